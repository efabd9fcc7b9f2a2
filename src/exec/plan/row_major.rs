//! Reading a strided view in row-major order, lane by lane.
//!
//! Owns: [`fill_row_major`], which writes the elements of any view (a
//! transposed operand, a column block of a matrix, a broadcast) into a
//! contiguous buffer in row-major order, converting each as it goes. It
//! walks the view's last axis as whole lanes — a `memcpy` when the lane is
//! contiguous, a fill when it is broadcast, a strided loop otherwise — so
//! the per-element cost of ndarray's dynamic-rank iterator (an index
//! vector cloned and stepped for every element) is paid once per lane.
//! Must not: allocate, or change a value: it only moves (and converts)
//! elements, in the order `ArrayViewD::iter` gives them.

use ndarray::{ArrayViewD, Axis, Ix1};

/// Writes the elements of `a`, in row-major order, into the first
/// `a.len()` elements of `out`, each converted by `conv`.
pub fn fill_row_major<S: Copy, T: Copy>(
    a: &ArrayViewD<'_, S>,
    out: &mut [T],
    conv: impl Fn(S) -> T,
) {
    let n = a.len();
    if n == 0 {
        return;
    }
    let out = &mut out[..n];
    if let Some(s) = a.as_slice() {
        for (d, &x) in out.iter_mut().zip(s) {
            *d = conv(x);
        }
        return;
    }
    if a.ndim() == 0 {
        if let Some(&x) = a.first() {
            out[0] = conv(x);
        }
        return;
    }
    let last = Axis(a.ndim() - 1);
    let inner = a.len_of(last);
    let stride = a.stride_of(last);
    let mut k = 0;
    for lane in a.lanes(last) {
        let dst = &mut out[k..k + inner];
        k += inner;
        match (stride, lane.as_slice()) {
            (0, _) => {
                if let Some(&x) = lane.first() {
                    dst.fill(conv(x));
                }
            }
            (_, Some(s)) => {
                for (d, &x) in dst.iter_mut().zip(s) {
                    *d = conv(x);
                }
            }
            _ => {
                let lane = lane.into_dimensionality::<Ix1>();
                if let Ok(lane) = lane {
                    for (d, &x) in dst.iter_mut().zip(lane.iter()) {
                        *d = conv(x);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fill_row_major;
    use ndarray::{Array, ArrayD, Axis, IxDyn, Slice};

    /// Every layout gives what `iter` gives: transposes of every axis
    /// order, column blocks, reversals and broadcasts.
    #[test]
    fn matches_iter_order_on_every_layout() {
        let a: ArrayD<f64> = Array::from_iter((0..120).map(|x| x as f64 * 1.5 - 7.0))
            .into_shape_with_order(IxDyn(&[4, 5, 6]))
            .expect("shape");
        let perms: [[usize; 3]; 6] = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        for p in perms {
            let t = a.view().permuted_axes(IxDyn(&p));
            let mut views = vec![t.clone()];
            let mut block = t.clone();
            block.slice_axis_inplace(Axis(2), Slice::new(1, Some(-1), 1));
            views.push(block);
            let mut rev = t.clone();
            rev.invert_axis(Axis(1));
            views.push(rev);
            for v in views {
                let want: Vec<f64> = v.iter().copied().collect();
                let mut got = vec![f64::NAN; want.len()];
                fill_row_major(&v, &mut got, |x| x);
                assert_eq!(got, want, "permutation {p:?}, shape {:?}", v.shape());
            }
        }
        let row = a.index_axis(Axis(0), 2).index_axis(Axis(0), 3).to_owned();
        let wide = row.broadcast(IxDyn(&[3, 4, 6])).expect("broadcast");
        let col = a.slice_axis(Axis(2), Slice::from(0..1)).to_owned();
        let tall = col.broadcast(IxDyn(&[4, 5, 7])).expect("broadcast");
        for v in [wide, tall] {
            let want: Vec<i64> = v.iter().map(|&x| x as i64).collect();
            let mut got = vec![0i64; want.len()];
            fill_row_major(&v, &mut got, |x| x as i64);
            assert_eq!(got, want);
        }
    }
}
