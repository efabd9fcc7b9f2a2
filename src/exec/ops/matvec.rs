//! Matrix-vector and vector-vector products of `f64`, in one summation
//! order whatever the layout.
//!
//! Owns: [`gemv`] (`y = A·x` for any strides of `A`, `x` and `y`) and
//! [`inner`]. Every element of a result is the sum of `K` products in the
//! canonical order: eight running sums, the j-th taking the products
//! `j, j+8, j+16, ...` of the first `8·⌊K/8⌋`, combined as
//! `((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))`, then the remaining products added one by one.
//! Two kernels follow that order: rows of a row-major `A` four at a time
//! (each load of `x` serves four rows), and, for a column-major `A` (a
//! transposed matrix, `x·B`), rows of `Aᵀ` scaled into blocks of partial
//! sums. So `dot(W, h)`, `dot(h, transpose(W))` and the interpreter's and
//! the plan's products all give the same bits. Both kernels are compiled
//! for baseline x86-64 and AVX2+FMA (`multiversion`) and use no fused
//! multiply-add, so they agree bit for bit. Must not: allocate when `A`'s
//! rows or columns and `x` are contiguous (the loop bodies of Scan call it
//! every step).

use multiversion::multiversion;
use ndarray::{ArrayView1, ArrayView2, ArrayViewMut1};

/// Running sums per dot product.
const LANES: usize = 8;
/// Columns per block of the column kernel: its running sums, `LANES`
/// blocks of `COLS`, take 16 KiB.
const COLS: usize = 256;

/// The dot products of `R` rows (each of `x.len()` elements at least)
/// with `x`, in the canonical order; each load of `x` serves every row.
#[inline(always)]
fn dot_rows<const R: usize>(rows: [&[f64]; R], x: &[f64]) -> [f64; R] {
    let k = x.len();
    let body = k - k % LANES;
    let rows = rows.map(|r| &r[..k]);
    let mut acc = [[0.0f64; LANES]; R];
    for j in (0..body).step_by(LANES) {
        let xs = &x[j..j + LANES];
        for r in 0..R {
            let a = &rows[r][j..j + LANES];
            for l in 0..LANES {
                acc[r][l] += a[l] * xs[l];
            }
        }
    }
    let mut out = combine_rows(&acc);
    for r in 0..R {
        for j in body..k {
            out[r] += rows[r][j] * x[j];
        }
    }
    out
}

/// The lanes' sums of `R` rows, in the canonical order. Kept out of line:
/// inlined, the pairing steers the compiler into packing the running sums
/// across rows, which makes the loop several times slower.
#[inline(never)]
fn combine_rows<const R: usize>(acc: &[[f64; LANES]; R]) -> [f64; R] {
    acc.map(|a| ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7])))
}

/// Rows of `A` per block of the row kernel.
const ROWS: usize = 4;

/// `y = A·x` for `A` given by its rows (contiguous slices), four rows at a
/// time. False (with `y` partly written) when a row is not contiguous.
#[multiversion(targets("x86_64+avx2+fma"))]
fn gemv_rows(a: &ArrayView2<'_, f64>, x: &[f64], y: &mut [f64]) -> bool {
    let row = |i: usize| a.row(i).to_slice();
    let done = y.len() - y.len() % ROWS;
    let mut blocks = y.chunks_exact_mut(ROWS);
    for (b, yb) in (&mut blocks).enumerate() {
        let i = b * ROWS;
        let (Some(r0), Some(r1), Some(r2), Some(r3)) = (row(i), row(i + 1), row(i + 2), row(i + 3))
        else {
            return false;
        };
        yb.copy_from_slice(&dot_rows([r0, r1, r2, r3], x));
    }
    for (i, yi) in y.iter_mut().enumerate().skip(done) {
        let Some(r) = row(i) else { return false };
        *yi = dot_rows([r], x)[0];
    }
    true
}

/// `y = Bᵀ·x` for `B` given by its rows (contiguous slices): each output
/// element is the canonical sum over the rows. For a block of up to
/// [`COLS`] columns, row `i` of `B` scaled by `x[i]` is added into the
/// running sums of lane `i mod 8`, so `B` is read once, row after row, and
/// the sums stay in a 16 KiB block of the stack (the first-level cache);
/// the lanes are then combined and the tail rows added, column by column
/// in the canonical order but vectorized across columns. False (with `y`
/// partly written) when a row is not contiguous.
#[multiversion(targets("x86_64+avx2+fma"))]
fn gemv_cols(b: &ArrayView2<'_, f64>, x: &[f64], y: &mut [f64]) -> bool {
    let k = x.len();
    let body = k - k % LANES;
    let row = |i: usize| b.row(i).to_slice();
    let mut acc = [[0.0f64; COLS]; LANES];
    for (c0, yb) in (0..y.len()).step_by(COLS).zip(y.chunks_mut(COLS)) {
        let w = yb.len();
        for lane in acc.iter_mut() {
            lane[..w].fill(0.0);
        }
        for q in 0..body / LANES {
            for (l, lane) in acc.iter_mut().enumerate() {
                let i = q * LANES + l;
                let (Some(r), xi) = (row(i), x[i]) else {
                    return false;
                };
                for (a, &bij) in lane[..w].iter_mut().zip(&r[c0..c0 + w]) {
                    *a += bij * xi;
                }
            }
        }
        let [a0, a1, a2, a3, a4, a5, a6, a7] = &acc;
        for (c, yc) in yb.iter_mut().enumerate() {
            *yc = ((a0[c] + a4[c]) + (a1[c] + a5[c])) + ((a2[c] + a6[c]) + (a3[c] + a7[c]));
        }
        for (i, &xi) in x.iter().enumerate().skip(body) {
            let Some(r) = row(i) else { return false };
            for (yc, &bij) in yb.iter_mut().zip(&r[c0..c0 + w]) {
                *yc += bij * xi;
            }
        }
    }
    true
}

/// `y = A·x` for an `(m, k)` `A`, a `(k,)` `x` and an `(m,)` `y`, any
/// strides. The caller checks the sizes; on a mismatch `y` is left as it
/// is.
pub fn gemv(a: &ArrayView2<'_, f64>, x: &ArrayView1<'_, f64>, y: &mut ArrayViewMut1<'_, f64>) {
    if a.ncols() != x.len() || a.nrows() != y.len() {
        return;
    }
    let xs = x.as_standard_layout();
    let Some(xs) = xs.as_slice() else {
        return;
    };
    let write = |y: &mut [f64]| {
        // Rows of A contiguous: the row kernel; columns contiguous (Aᵀ is
        // row-major): the column kernel; else a standard-layout copy.
        if a.ncols() <= 1 || a.strides()[1] == 1 {
            if gemv_rows(a, xs, y) {
                return;
            }
        } else if a.strides()[0] == 1 && gemv_cols(&a.t(), xs, y) {
            return;
        }
        let copy = a.as_standard_layout();
        gemv_rows(&copy.view(), xs, y);
    };
    match y.as_slice_mut() {
        Some(y) => write(y),
        None => {
            let mut tmp = vec![0.0; y.len()];
            write(&mut tmp);
            y.iter_mut().zip(tmp).for_each(|(d, v)| *d = v);
        }
    }
}

/// The inner product of two vectors of one length, in the canonical order.
pub fn inner(a: &ArrayView1<'_, f64>, b: &ArrayView1<'_, f64>) -> f64 {
    let (a, b) = (a.as_standard_layout(), b.as_standard_layout());
    match (a.as_slice(), b.as_slice()) {
        (Some(a), Some(b)) if a.len() == b.len() => dot_rows([a], b)[0],
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2, ShapeBuilder};

    fn data(m: usize, k: usize) -> (Array2<f64>, Array1<f64>) {
        let a = Array2::from_shape_fn((m, k), |(i, j)| ((i * 31 + j * 7) as f64 * 0.37).sin());
        let x = Array1::from_shape_fn(k, |j| (j as f64 * 0.91).cos());
        (a, x)
    }

    #[test]
    fn every_layout_gives_the_same_bits_and_the_right_values() {
        for (m, k) in [
            (1, 1),
            (3, 5),
            (4, 4),
            (7, 9),
            (64, 130),
            (130, 67),
            (5, 0),
            (300, 21),
            (257, 8),
            (513, 3),
        ] {
            let (a, x) = data(m, k);
            // Row-major, column-major, strided rows, and a strided x.
            let mut f = Array2::zeros((m, k).f());
            f.assign(&a);
            let wide = Array2::from_shape_fn((m, 2 * k), |(i, j)| {
                if j % 2 == 0 {
                    a[[i, j / 2]]
                } else {
                    f64::NAN
                }
            });
            let strided = wide.slice(ndarray::s![.., ..;2]);
            let xwide = Array1::from_shape_fn(2 * k, |j| if j % 2 == 0 { x[j / 2] } else { 7.0 });
            let xs = xwide.slice(ndarray::s![..;2]);
            let mut results = Vec::new();
            for av in [a.view(), f.view(), strided] {
                for xv in [x.view(), xs] {
                    let mut y = Array1::zeros(m);
                    gemv(&av, &xv, &mut y.view_mut());
                    results.push(y);
                }
            }
            let want = a.dot(&x);
            for y in &results {
                assert_eq!(
                    y.mapv(f64::to_bits),
                    results[0].mapv(f64::to_bits),
                    "{m}x{k}"
                );
                for (p, q) in y.iter().zip(&want) {
                    assert!(
                        (p - q).abs() <= 1e-12 * (1.0 + q.abs()),
                        "{m}x{k}: {p} vs {q}"
                    );
                }
            }
            // Each row equals the inner product of that row.
            for (i, yi) in results[0].iter().enumerate() {
                assert_eq!(yi.to_bits(), inner(&a.row(i), &x.view()).to_bits());
            }
        }
    }

    #[test]
    fn a_transposed_matrix_takes_the_column_kernel_past_one_block() {
        // 300 output elements: two blocks of columns; 21 rows: two groups
        // of eight lanes and a tail of five.
        let (a, _) = data(21, 300);
        let xs = Array1::from_shape_fn(21, |i| (i as f64 * 0.53).sin());
        let mut y = vec![0.0; 300];
        assert!(gemv_cols(&a.view(), xs.as_slice().unwrap(), &mut y));
        let want = a.t().dot(&xs);
        for (p, q) in y.iter().zip(&want) {
            assert!((p - q).abs() <= 1e-12 * (1.0 + q.abs()), "{p} vs {q}");
        }
        // Each element is the canonical inner product of a column.
        for (c, yc) in y.iter().enumerate() {
            let col = a.column(c).to_owned();
            assert_eq!(yc.to_bits(), inner(&col.view(), &xs.view()).to_bits());
        }
        // Rows that are not contiguous: the kernel declines.
        let wide = Array2::from_shape_fn((21, 600), |(i, j)| a[[i, j / 2]]);
        let strided = wide.slice(ndarray::s![.., ..;2]);
        assert!(!gemv_cols(&strided, xs.as_slice().unwrap(), &mut y));
    }

    #[test]
    fn a_strided_result_is_written_in_place() {
        let (a, x) = data(6, 10);
        let mut wide = Array1::from_elem(12, -1.0);
        let mut y = wide.slice_mut(ndarray::s![..;2]);
        gemv(&a.view(), &x.view(), &mut y);
        let want = a.dot(&x);
        for i in 0..6 {
            assert!((wide[2 * i] - want[i]).abs() < 1e-12);
            assert_eq!(wide[2 * i + 1], -1.0);
        }
    }
}
