//! Matrix-matrix products of `f64`: one function that every executor
//! calls, so a product gives the same bits in the interpreter, the plan
//! and the step tape.
//!
//! Owns: [`gemm`] (`C = A·B` for views of any strides),
//! [`gemm_rows`] (the same product for row-major slices, what the step
//! tape holds) and [`gemm_rows_prepacked`] (the same with `B` packed
//! once, for a loop's weights). Which kernel runs depends on the shapes alone, never on
//! the layout: products of at most [`SMALL_PRODUCTS`] multiplications
//! (`m·k·n`) run the small kernel, every row of `C` built as
//! `0 + a[i,0]·B[0,:] + a[i,1]·B[1,:] + …` in that order, without
//! packing, allocation or fused multiply-add (the 2×2 products of a
//! Kalman filter's step cost nanoseconds, not the microsecond and two
//! allocations of a packed product); larger products run
//! `matrixmultiply` through `ndarray::linalg::general_mat_mul`, or, for
//! row-major operands whose `B` fits the second-level cache on a machine
//! where it gives matrixmultiply's bits, the kernel of [`prepacked`],
//! which packs only `B` and reads `A` in place. Must not:
//! choose a kernel by layout, or allocate in the small kernel (loop bodies
//! call it every step).

use crate::exec::aligned::CacheAligned;
use crate::exec::ops::prepacked;
use crate::exec::threads;
use multiversion::multiversion;
use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, Axis};

/// The largest product (`m·k·n` multiplications) the small kernel runs.
pub const SMALL_PRODUCTS: usize = 4096;

/// True when an `(m, k)·(k, n)` product runs the small kernel.
pub(crate) fn is_small(m: usize, k: usize, n: usize) -> bool {
    m.saturating_mul(k).saturating_mul(n) <= SMALL_PRODUCTS
}

/// `C = A·B` for an `(m, k)` `A`, a `(k, n)` `B` and an `(m, n)` `C`, any
/// strides. The caller checks the shapes agree (ndarray panics
/// otherwise; every caller has).
pub fn gemm(a: &ArrayView2<'_, f64>, b: &ArrayView2<'_, f64>, c: &mut ArrayViewMut2<'_, f64>) {
    let (m, k) = a.dim();
    let n = b.ncols();
    if !is_small(m, k, n) {
        if is_gram(a, b) {
            gram(a, b, c);
        } else {
            let done = match (a.as_slice(), c.as_slice_mut()) {
                (Some(sa), Some(sc)) => through_packed_b(sa, b, m, k, n, sc),
                _ => false,
            };
            if !done {
                packed(a, b, c);
            }
        }
        return;
    }
    if let (Some(sa), Some(sb), Some(sc)) = (a.as_slice(), b.as_slice(), c.as_slice_mut()) {
        small_rows(sa, sb, k, n, sc);
        return;
    }
    // Strided operands: the same order, element by element.
    for (i, mut crow) in c.outer_iter_mut().enumerate() {
        crow.fill(0.0);
        for (kk, brow) in b.outer_iter().enumerate() {
            let aik = a[[i, kk]];
            crow.zip_mut_with(&brow, |c, &b| *c += aik * b);
        }
    }
}

/// The smallest side of a symmetric product [`gram`] splits in blocks.
/// Each block is a product of its own, and matrixmultiply wakes its
/// threads for each: a 1024 × 600 Aᵀ·A took 27.5 ms and 20.0 ms without
/// and with the split on one thread, 17-21 ms and 17.0 ms on two, and
/// at side 256 split into 128-wide blocks two threads were slower.
const GRAM_BLOCK: usize = 256;

/// True when `b` is `a` transposed (the same elements: `A·Aᵀ`, or `Bᵀ·B`
/// read the other way), so that `a·b` is symmetric.
fn is_gram(a: &ArrayView2<'_, f64>, b: &ArrayView2<'_, f64>) -> bool {
    let at = a.t();
    at.as_ptr() == b.as_ptr() && at.shape() == b.shape() && at.strides() == b.strides()
}

/// `C = A·Aᵀ` (`b` is `a` transposed, see [`is_gram`]) as NumPy's `syrk`
/// path computes `A.T @ A`: `C` split at half its side, the two diagonal
/// blocks (recursively) and the block above them computed, the block
/// below copied from the one above. An element of `C` is the sum of the
/// same products in the same order in whichever block it is computed
/// (the blocks share the whole `k` extent, and `x·y` is `y·x`), so the
/// bits are those of the full product, for a quarter less work per level.
fn gram(a: &ArrayView2<'_, f64>, b: &ArrayView2<'_, f64>, c: &mut ArrayViewMut2<'_, f64>) {
    let m = a.nrows();
    if m < 2 * GRAM_BLOCK {
        packed(a, b, c);
        return;
    }
    let h = m / 2;
    let (a1, a2) = a.view().split_at(Axis(0), h);
    let (b1, b2) = b.view().split_at(Axis(1), h);
    let (top, bottom) = c.view_mut().split_at(Axis(0), h);
    let (mut c11, mut c12) = top.split_at(Axis(1), h);
    let (mut c21, mut c22) = bottom.split_at(Axis(1), h);
    // The diagonal blocks side by side, one per thread.
    threads::join(|| gram(&a1, &b1, &mut c11), || gram(&a2, &b2, &mut c22));
    packed(&a1, &b2, &mut c12);
    c21.assign(&c12.t());
}

/// Products of at least this many multiplications are split in two
/// halves of `C`'s rows run on two threads when the executor may use two
/// ([`threads::budget`]).
const SPLIT_PRODUCTS: usize = 1 << 20;

/// The first row of the second half when an `(m, k)·(k, n)` product is
/// split over two threads ([`SPLIT_PRODUCTS`]), a multiple of
/// matrixmultiply's 8-row tiles so that each half's tiles are the whole
/// product's; `None` when it runs on one thread. Every packed kernel
/// splits by it.
pub(crate) fn row_split(m: usize, k: usize, n: usize) -> Option<usize> {
    let large = m.saturating_mul(k).saturating_mul(n) >= SPLIT_PRODUCTS;
    (large && m >= 16 && threads::budget() >= 2).then(|| m / 2 - (m / 2) % 8)
}

/// `C = A·B` by matrixmultiply's packed kernel, the rows of `C` split in
/// two halves run on two threads when the product is large. Each element
/// is the same sum in the same order whichever rows are computed
/// together, so the split keeps the bits. (matrixmultiply's own threads
/// are not used: it wakes them at every product, 30-60 µs on the
/// machines measured, where the executor's helper is already polling
/// between the products of a call.)
fn packed(a: &ArrayView2<'_, f64>, b: &ArrayView2<'_, f64>, c: &mut ArrayViewMut2<'_, f64>) {
    let (m, k) = a.dim();
    let n = b.ncols();
    if let Some(h) = row_split(m, k, n) {
        let (a1, a2) = a.view().split_at(Axis(0), h);
        let (mut c1, mut c2) = c.view_mut().split_at(Axis(0), h);
        threads::join(
            || general_mat_mul(1.0, &a1, b, 0.0, &mut c1),
            || general_mat_mul(1.0, &a2, b, 0.0, &mut c2),
        );
        return;
    }
    general_mat_mul(1.0, a, b, 0.0, c);
}

/// Packs `b` once for several `(m, k)·b` products ([`gemm_packed`]: a
/// batched product whose batches share their right operand, such as a
/// loop's inputs against a stack of weights), into `buf`. False when
/// [`gemm`] would not run the packed-`B` kernel for such a product (small
/// products, a `B` that is not row-major or does not fit, a machine
/// without the kernel): then call [`gemm`] for each.
pub fn pack_shared(b: &ArrayView2<'_, f64>, m: usize, buf: &mut CacheAligned) -> bool {
    let (k, n) = b.dim();
    b.as_slice().is_some() && !is_small(m, k, n) && pack_into(b, buf).is_some()
}

/// `b` packed into `buf` (grown to fit; on a cache line, as the kernel
/// loads it a line at a time), and its length there; `None` when the
/// packed-`B` kernel does not run for it.
fn pack_into(b: &ArrayView2<'_, f64>, buf: &mut CacheAligned) -> Option<usize> {
    let (k, n) = b.dim();
    if !prepacked::available() || !prepacked::fits(k, n) {
        return None;
    }
    let len = prepacked::packed_len(k, n);
    if buf.len() < len {
        buf.resize(len);
    }
    prepacked::pack_view(b, &mut buf[..len])?;
    Some(len)
}

/// [`gemm`] given `b` packed by [`pack_shared`] into `packed`: the same
/// kernel choice and the same bits, without packing `b` again.
pub fn gemm_packed(
    a: &ArrayView2<'_, f64>,
    b: &ArrayView2<'_, f64>,
    packed_b: &[f64],
    c: &mut ArrayViewMut2<'_, f64>,
) {
    let (m, k) = a.dim();
    let n = b.ncols();
    if is_small(m, k, n) || is_gram(a, b) || b.as_slice().is_none() {
        gemm(a, b, c);
        return;
    }
    if let (Some(sa), Some(sc)) = (a.as_slice(), c.as_slice_mut()) {
        if prepacked::product(sa, packed_b, m, k, n, sc) == Some(true) {
            return;
        }
    }
    // Strided operands, or a NaN in the result: what `gemm` runs then.
    packed(a, b, c);
}

/// `c = a·b` for row-major `a` (`m·k` elements), `b` (`k·n`) and `c`
/// (`m·n`), by the kernel [`gemm`] runs for these shapes. `None` when a
/// slice is shorter than its shape says (nothing is written then).
pub fn gemm_rows(a: &[f64], b: &[f64], m: usize, k: usize, n: usize, c: &mut [f64]) -> Option<()> {
    let a = a.get(..m.checked_mul(k)?)?;
    let b = b.get(..k.checked_mul(n)?)?;
    let c = c.get_mut(..m.checked_mul(n)?)?;
    if is_small(m, k, n) {
        small_rows(a, b, k, n, c);
    } else if !through_packed_b(a, &ArrayView2::from_shape((k, n), b).ok()?, m, k, n, c) {
        packed_rows(a, b, m, k, n, c)?;
    }
    Some(())
}

/// [`gemm_rows`] with `b` also given packed (`bp`, by
/// [`prepacked::pack`]; a loop packs a `B` that does not change once per
/// call): the same bits, without packing either operand when the
/// machine's kernel allows it.
pub fn gemm_rows_prepacked(
    a: &[f64],
    b: &[f64],
    bp: &[f64],
    m: usize,
    k: usize,
    n: usize,
    c: &mut [f64],
) -> Option<()> {
    gemm_rows_prepacked_then(a, b, bp, m, k, n, c, &[]).map(drop)
}

/// [`gemm_rows_prepacked`], each element then updated by `steps` as the
/// packed kernel stores it ([`prepacked::product_then`]): `Some(true)`
/// (always, without steps). `Some(false)`: `c` holds the product alone (a
/// small product, one the kernel does not take with steps, or a NaN in
/// the result), and the caller applies the steps apart.
#[allow(clippy::too_many_arguments)]
pub fn gemm_rows_prepacked_then(
    a: &[f64],
    b: &[f64],
    bp: &[f64],
    m: usize,
    k: usize,
    n: usize,
    c: &mut [f64],
    steps: &[prepacked::Step<'_>],
) -> Option<bool> {
    let a = a.get(..m.checked_mul(k)?)?;
    let b = b.get(..k.checked_mul(n)?)?;
    let c = c.get_mut(..m.checked_mul(n)?)?;
    if is_small(m, k, n) {
        small_rows(a, b, k, n, c);
        return Some(steps.is_empty());
    }
    match prepacked::product_then(a, bp, m, k, n, c, steps) {
        Some(true) => return Some(true),
        // Steps the kernel does not take: the product alone.
        None if !steps.is_empty() && prepacked::product(a, bp, m, k, n, c) == Some(true) => {
            return Some(false)
        }
        _ => packed_rows(a, b, m, k, n, c)?,
    }
    Some(steps.is_empty())
}

/// matrixmultiply's product of row-major slices of the exact lengths.
fn packed_rows(a: &[f64], b: &[f64], m: usize, k: usize, n: usize, c: &mut [f64]) -> Option<()> {
    let av = ArrayView2::from_shape((m, k), a).ok()?;
    let bv = ArrayView2::from_shape((k, n), b).ok()?;
    let mut cv = ArrayViewMut2::from_shape((m, n), c).ok()?;
    packed(&av, &bv, &mut cv);
    Some(())
}

/// The product of row-major `a` and `c` (slices of the exact lengths) and
/// `b` of any strides through a packed `B` ([`prepacked`]: `A` read where
/// it is, not packed) when the
/// machine's kernel gives matrixmultiply's bits and `B` fits the
/// second-level cache; `B` is packed into a buffer this thread keeps
/// (allocated once, grown when a larger `B` comes). False when it did
/// not run or met a NaN (then the caller runs matrixmultiply).
fn through_packed_b(
    a: &[f64],
    b: &ArrayView2<'_, f64>,
    m: usize,
    k: usize,
    n: usize,
    c: &mut [f64],
) -> bool {
    use std::cell::RefCell;
    thread_local! {
        static PACKED_B: RefCell<CacheAligned> = RefCell::new(CacheAligned::default());
    }
    PACKED_B.with(|buf| {
        let Ok(mut buf) = buf.try_borrow_mut() else {
            return false;
        };
        pack_into(b, &mut buf)
            .is_some_and(|len| prepacked::product(a, &buf[..len], m, k, n, c) == Some(true))
    })
}

/// The small kernel on row-major slices of the exact lengths: each row
/// of `c` accumulates the rows of `b` scaled by its row of `a`, in `k`
/// order (each row's update is one vectorizable loop).
#[multiversion(targets("x86_64+avx2"))]
fn small_rows(a: &[f64], b: &[f64], k: usize, n: usize, c: &mut [f64]) {
    if n == 0 {
        return;
    }
    if k == 0 {
        c.fill(0.0);
        return;
    }
    for (arow, crow) in a.chunks_exact(k).zip(c.chunks_exact_mut(n)) {
        crow.fill(0.0);
        for (&aik, brow) in arow.iter().zip(b.chunks_exact(n)) {
            crow.iter_mut().zip(brow).for_each(|(c, &b)| *c += aik * b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    fn filled(m: usize, n: usize, seed: u64) -> Array2<f64> {
        let mut s = seed;
        Array2::from_shape_fn((m, n), |_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
    }

    /// The small kernel's order, written out element by element.
    fn reference(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
        let (m, k) = a.dim();
        let n = b.ncols();
        Array2::from_shape_fn((m, n), |(i, j)| {
            let mut s = 0.0;
            for kk in 0..k {
                s += a[[i, kk]] * b[[kk, j]];
            }
            s
        })
    }

    #[test]
    fn products_against_a_shared_packed_b_keep_gemms_bits() {
        let bits = |x: &Array2<f64>| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        // Small (no packing), the LSTM's 64³, the GRU's step, a B too wide
        // to pack, a NaN in A (recomputed by matrixmultiply), a strided A.
        for &(m, k, n, nan, strided) in &[
            (4, 5, 6, false, false),
            (64, 64, 64, false, false),
            (80, 128, 128, false, false),
            (20, 300, 300, false, false),
            (30, 40, 50, true, false),
            (30, 40, 50, false, true),
        ] {
            let b = filled(k, n, 7);
            let mut tall = filled(2 * m, k, 11);
            if nan {
                tall[[6, 5]] = f64::NAN;
            }
            // Every other row of a taller matrix (strided), or its first m.
            let a_view = if strided {
                tall.slice(ndarray::s![..;2, ..])
            } else {
                tall.slice(ndarray::s![..m, ..])
            };
            let mut want = Array2::from_elem((m, n), f64::NAN);
            gemm(&a_view, &b.view(), &mut want.view_mut());
            let mut buf = CacheAligned::default();
            let packed = pack_shared(&b.view(), m, &mut buf);
            assert_eq!(
                packed,
                !is_small(m, k, n) && prepacked::available() && prepacked::fits(k, n)
            );
            let mut got = Array2::from_elem((m, n), f64::NAN);
            if packed {
                gemm_packed(&a_view, &b.view(), &buf, &mut got.view_mut());
            } else {
                gemm(&a_view, &b.view(), &mut got.view_mut());
            }
            assert_eq!(bits(&got), bits(&want), "{m}x{k}x{n}");
        }
    }

    #[test]
    fn small_products_follow_the_order_in_every_layout() {
        for &(m, k, n) in &[
            (1, 1, 1),
            (2, 2, 2),
            (3, 5, 7),
            (16, 16, 16),
            (2, 0, 3),
            (0, 3, 2),
        ] {
            let a = filled(m, k, 1);
            let b = filled(k, n, 2);
            let want = reference(&a, &b);
            let mut c = Array2::from_elem((m, n), f64::NAN);
            gemm(&a.view(), &b.view(), &mut c.view_mut());
            assert_eq!(c, want, "{m}x{k}x{n} row-major");
            // Transposed (column-major) operands and result.
            let at = a.t().to_owned();
            let bt = b.t().to_owned();
            let mut ct = Array2::from_elem((n, m), f64::NAN);
            gemm(&at.t(), &bt.t(), &mut ct.view_mut().reversed_axes());
            assert_eq!(ct.t(), want, "{m}x{k}x{n} strided");
            let mut flat = vec![f64::NAN; m * n];
            let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
            gemm_rows(sa, sb, m, k, n, &mut flat).unwrap();
            assert_eq!(
                flat,
                want.iter().copied().collect::<Vec<_>>(),
                "{m}x{k}x{n} rows"
            );
        }
    }

    #[test]
    fn large_products_agree_across_entry_points() {
        let (m, k, n) = (20, 30, 40);
        assert!(!is_small(m, k, n));
        let (a, b) = (filled(m, k, 3), filled(k, n, 4));
        let mut c = Array2::zeros((m, n));
        gemm(&a.view(), &b.view(), &mut c.view_mut());
        let mut flat = vec![0.0; m * n];
        gemm_rows(
            a.as_slice().unwrap(),
            b.as_slice().unwrap(),
            m,
            k,
            n,
            &mut flat,
        )
        .unwrap();
        assert_eq!(flat, c.iter().copied().collect::<Vec<_>>());
        let want = reference(&a, &b);
        for (x, y) in c.iter().zip(want.iter()) {
            assert!((x - y).abs() <= 1e-13, "{x} vs {y}");
        }
    }

    #[test]
    fn symmetric_products_keep_the_full_products_bits() {
        // Sides split once and twice (odd halves too), and k across the
        // packed product's blocks of k.
        for &(side, k) in &[(256, 100), (300, 257), (513, 600), (255, 40)] {
            let a = filled(side, k, 5);
            for (x, y) in [(a.view(), a.t()), (a.t(), a.view())] {
                assert!(is_gram(&x, &y));
                let n = y.ncols();
                let mut got = Array2::from_elem((n, n), f64::NAN);
                gemm(&x, &y, &mut got.view_mut());
                let mut want = Array2::zeros((n, n));
                general_mat_mul(1.0, &x, &y, 0.0, &mut want.view_mut());
                let bits = |c: &Array2<f64>| c.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert!(bits(&got) == bits(&want), "{side} x {k}");
                assert_eq!(got, got.t(), "{side} x {k}: not symmetric");
            }
        }
        // A copy of the transpose is another matrix: no shortcut.
        let a = filled(300, 50, 6);
        let copy = a.t().to_owned();
        assert!(!is_gram(&a.view(), &copy.view()));
    }

    #[test]
    fn products_split_by_rows_keep_their_bits() {
        // Halves of C's rows computed apart (as `packed` splits them over
        // two threads) are the full product's rows, odd sizes included.
        for &(m, k, n) in &[(131, 300, 77), (16, 1000, 129), (200, 256, 256)] {
            let (a, b) = (filled(m, k, 7), filled(k, n, 8));
            let mut whole = Array2::zeros((m, n));
            general_mat_mul(1.0, &a.view(), &b.view(), 0.0, &mut whole.view_mut());
            let mut split = Array2::from_elem((m, n), f64::NAN);
            gemm(&a.view(), &b.view(), &mut split.view_mut());
            let h = m / 2 - (m / 2) % 8;
            let (a1, a2) = a.view().split_at(Axis(0), h);
            let mut halves = Array2::from_elem((m, n), f64::NAN);
            {
                let (mut c1, mut c2) = halves.view_mut().split_at(Axis(0), h);
                general_mat_mul(1.0, &a1, &b.view(), 0.0, &mut c1);
                general_mat_mul(1.0, &a2, &b.view(), 0.0, &mut c2);
            }
            let bits = |c: &Array2<f64>| c.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert!(bits(&halves) == bits(&whole), "{m}x{k}x{n}: halves");
            assert!(bits(&split) == bits(&whole), "{m}x{k}x{n}: gemm");
        }
    }

    #[test]
    fn short_slices_are_refused() {
        let mut c = [0.0; 4];
        assert!(gemm_rows(&[1.0; 3], &[1.0; 4], 2, 2, 2, &mut c).is_none());
        assert!(gemm_rows(&[1.0; 4], &[1.0; 4], 2, 2, 2, &mut c[..3]).is_none());
    }
}
