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
//! the plan's products all give the same bits. A matrix read by rows on
//! every step of a loop may be packed once into blocks of four rows
//! ([`pack_row_blocks`]), which the row kernel then reads as one stream
//! ([`gemv_row_blocks`]), with the same bits. The kernels are compiled
//! for baseline x86-64 and AVX2+FMA (`multiversion`) and use no fused
//! multiply-add, so they agree bit for bit. Must not: allocate when `A`'s
//! rows or columns and `x` are contiguous (the loop bodies of Scan call it
//! every step).

use crate::exec::threads;
use multiversion::multiversion;
use ndarray::{ArrayView1, ArrayView2, ArrayViewMut1};

/// Running sums per dot product.
const LANES: usize = 8;
/// Columns per block of the column kernel: its running sums, `LANES`
/// blocks of `COLS`, take 16 KiB.
const COLS: usize = 256;

/// Half of a dot product's running sums: lanes 0–3 or 4–7, one AVX2
/// register.
type Quad = [f64; 4];
/// `LANES` consecutive elements of a row or of `x`.
type Chunk = [f64; LANES];

/// Adds the products of one chunk to a row's running sums: lane `l` takes
/// `a[l] * x[l]`, lanes 0–3 in `lo` and 4–7 in `hi`.
#[inline(always)]
fn add_products(lo: &mut Quad, hi: &mut Quad, a: &Chunk, x: &Chunk) {
    for l in 0..4 {
        lo[l] += a[l] * x[l];
        hi[l] += a[l + 4] * x[l + 4];
    }
}

/// A value on a 64-byte boundary: the running sums stored by [`finish`]
/// sit in whole cache lines, wherever the stack frame falls (a 32-byte
/// store across two lines, read back in halves, cannot be forwarded:
/// output_push's matrix-vector products took 12% longer when an unrelated
/// change moved the frame).
#[repr(C, align(64))]
struct Aligned<T>(T);

/// The results of `R` rows from their running sums: the lanes combined
/// as `((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))`, then the
/// products of each row's tail (its last `x.len() mod 8` elements) with
/// `x`'s added one by one.
///
/// The sums pass through [`std::hint::black_box`] (an identity: the bits
/// do not depend on it). Without it the compiler's vectorizer starts from
/// the `R` adjacent results and packs the running sums of the `R` rows
/// lane by lane into registers, so every chunk of the loop that produced
/// them would be shuffled across rows (about 1.3 times the time). Behind
/// it each row's `lo` and `hi` are what is stored, one register each, and
/// the loop keeps one register per half-row.
#[inline(always)]
fn finish<const R: usize>(lo: [Quad; R], hi: [Quad; R], tails: [&[f64]; R], x: &[f64]) -> [f64; R] {
    let Aligned((lo, hi)) = std::hint::black_box(Aligned((lo, hi)));
    let x_tail = &x[x.len() - x.len() % LANES..];
    let mut out = [0.0; R];
    for (((o, lo), hi), tail) in out.iter_mut().zip(&lo).zip(&hi).zip(tails) {
        let v: Quad = std::array::from_fn(|l| lo[l] + hi[l]);
        *o = (v[0] + v[1]) + (v[2] + v[3]);
        for (a, b) in tail.iter().zip(x_tail) {
            *o += a * b;
        }
    }
    out
}

/// The tail of a row of `x.len()` elements (or more): its elements past
/// the last whole chunk of `x`.
#[inline(always)]
fn tail<'r>(row: &'r [f64], x: &[f64]) -> &'r [f64] {
    &row[x.len() - x.len() % LANES..x.len()]
}

/// The dot products of four rows (each of `x.len()` elements at least)
/// with `x`, in the canonical order; each chunk of `x` is loaded once for
/// the four rows.
#[inline(always)]
fn dot4(rows: [&[f64]; 4], x: &[f64]) -> [f64; 4] {
    let rows = rows.map(|r| &r[..x.len()]);
    let [c0, c1, c2, c3] = rows.map(|r| r.as_chunks::<LANES>().0);
    let mut lo = [[0.0; 4]; 4];
    let mut hi = [[0.0; 4]; 4];
    let chunks = x.as_chunks::<LANES>().0.iter();
    for ((((xs, a0), a1), a2), a3) in chunks.zip(c0).zip(c1).zip(c2).zip(c3) {
        add_products(&mut lo[0], &mut hi[0], a0, xs);
        add_products(&mut lo[1], &mut hi[1], a1, xs);
        add_products(&mut lo[2], &mut hi[2], a2, xs);
        add_products(&mut lo[3], &mut hi[3], a3, xs);
    }
    finish(lo, hi, rows.map(|r| tail(r, x)), x)
}

/// The dot product of one row (of `x.len()` elements at least) with `x`,
/// in the canonical order.
#[inline(always)]
fn dot1(row: &[f64], x: &[f64]) -> f64 {
    let row = &row[..x.len()];
    let (mut lo, mut hi) = ([0.0; 4], [0.0; 4]);
    for (xs, a) in x
        .as_chunks::<LANES>()
        .0
        .iter()
        .zip(row.as_chunks::<LANES>().0)
    {
        add_products(&mut lo, &mut hi, a, xs);
    }
    finish([lo], [hi], [tail(row, x)], x)[0]
}

/// Rows of `A` per block of the row kernel.
const ROWS: usize = 4;

/// The rows of a matrix as the kernels read them.
#[derive(Clone, Copy)]
enum Rows<'a> {
    /// Row-major data, rows of `len` elements one after another.
    Packed { data: &'a [f64], len: usize },
    /// A view: a row is a slice when its elements are contiguous.
    View(&'a ArrayView2<'a, f64>),
}

impl<'a> Rows<'a> {
    /// Row `i` (below the number of rows), or `None` when it is not
    /// contiguous.
    #[inline(always)]
    fn row(self, i: usize) -> Option<&'a [f64]> {
        match self {
            Rows::Packed { data, len } => data.get(i * len..(i + 1) * len),
            Rows::View(a) => a.row(i).to_slice(),
        }
    }
}

/// `y = A·x` for `A` given by its `y.len()` rows, four rows at a time.
/// False (with `y` partly written) when a row is not contiguous.
#[multiversion(targets("x86_64+avx2+fma"))]
fn gemv_rows(a: Rows<'_>, x: &[f64], y: &mut [f64]) -> bool {
    // Packed rows: taken in turn, without a bounds check per row.
    if let Rows::Packed { data, len } = a {
        if len != x.len() {
            return false;
        }
        if len == 0 {
            // Sums of no products.
            y.fill(0.0);
            return true;
        }
        let mut rows = data.chunks_exact(len);
        let mut blocks = y.chunks_exact_mut(ROWS);
        for yb in &mut blocks {
            let (Some(r0), Some(r1), Some(r2), Some(r3)) =
                (rows.next(), rows.next(), rows.next(), rows.next())
            else {
                return false;
            };
            yb.copy_from_slice(&dot4([r0, r1, r2, r3], x));
        }
        let rest = blocks.into_remainder();
        if rows.len() < rest.len() {
            return false;
        }
        for (yi, r) in rest.iter_mut().zip(rows) {
            *yi = dot1(r, x);
        }
        return true;
    }
    let done = y.len() - y.len() % ROWS;
    let mut blocks = y.chunks_exact_mut(ROWS);
    for (b, yb) in (&mut blocks).enumerate() {
        let i = b * ROWS;
        let (Some(r0), Some(r1), Some(r2), Some(r3)) =
            (a.row(i), a.row(i + 1), a.row(i + 2), a.row(i + 3))
        else {
            return false;
        };
        yb.copy_from_slice(&dot4([r0, r1, r2, r3], x));
    }
    for (i, yi) in y.iter_mut().enumerate().skip(done) {
        let Some(r) = a.row(i) else { return false };
        *yi = dot1(r, x);
    }
    true
}

/// `y = Bᵀ·x` for `B` given by its `x.len()` rows: each output
/// element is the canonical sum over the rows. For a block of up to
/// [`COLS`] columns, row `i` of `B` scaled by `x[i]` is added into the
/// running sums of lane `i mod 8`, so `B` is read once, row after row, and
/// the sums stay in a 16 KiB block of the stack (the first-level cache);
/// the lanes are then combined and the tail rows added, column by column
/// in the canonical order but vectorized across columns. False (with `y`
/// partly written) when a row is not contiguous or shorter than `y`.
#[multiversion(targets("x86_64+avx2+fma"))]
fn gemv_cols(b: Rows<'_>, x: &[f64], y: &mut [f64], col0: usize) -> bool {
    let k = x.len();
    let body = k - k % LANES;
    let mut acc = [[0.0f64; COLS]; LANES];
    for (c0, yb) in (0..y.len()).step_by(COLS).zip(y.chunks_mut(COLS)) {
        let w = yb.len();
        for lane in acc.iter_mut() {
            lane[..w].fill(0.0);
        }
        for q in 0..body / LANES {
            for (l, lane) in acc.iter_mut().enumerate() {
                let i = q * LANES + l;
                let Some(r) = b.row(i).and_then(|r| r.get(col0 + c0..col0 + c0 + w)) else {
                    return false;
                };
                let xi = x[i];
                for (a, &bij) in lane[..w].iter_mut().zip(r) {
                    *a += bij * xi;
                }
            }
        }
        let [a0, a1, a2, a3, a4, a5, a6, a7] = &acc;
        for (c, yc) in yb.iter_mut().enumerate() {
            *yc = ((a0[c] + a4[c]) + (a1[c] + a5[c])) + ((a2[c] + a6[c]) + (a3[c] + a7[c]));
        }
        for (i, &xi) in x.iter().enumerate().skip(body) {
            let Some(r) = b.row(i).and_then(|r| r.get(col0 + c0..col0 + c0 + w)) else {
                return false;
            };
            for (yc, &bij) in yb.iter_mut().zip(r) {
                *yc += bij * xi;
            }
        }
    }
    true
}

/// Products of at least this many multiplications are split in two
/// halves of their results run on two threads when the executor may use
/// two ([`threads::budget`]): a 256 × 256 matrix (an RNN step's) is split,
/// a 128 × 128 one is not. Each result is computed as without the split,
/// so the bits are the same.
const SPLIT_MULS: usize = 1 << 16;

/// Where a product of `outputs` results of `k` multiplications each is
/// split (a multiple of `unit`, so the kernels group the results as they
/// do whole), or `None` when it runs on one thread.
fn split_at(outputs: usize, k: usize, unit: usize, force: bool) -> Option<usize> {
    if !force && (outputs.saturating_mul(k) < SPLIT_MULS || threads::budget() < 2) {
        return None;
    }
    let half = outputs / 2 - (outputs / 2) % unit;
    (half > 0 && half < outputs).then_some(half)
}

/// `y = A·x` for a row-major `A` of `y.len()` rows of `x.len()` elements,
/// given as one slice: the entry for callers that hold plain slices (a
/// step tape), with the bits of [`gemv`]. False, with `y` untouched, when
/// `a.len()` is not `y.len() · x.len()`.
pub fn gemv_row_major(a: &[f64], x: &[f64], y: &mut [f64]) -> bool {
    gemv_row_major_split(a, x, y, false)
}

/// [`gemv_row_major`], split by rows over two threads when large enough
/// (or when `force`: for the tests, which compare the bits).
fn gemv_row_major_split(a: &[f64], x: &[f64], y: &mut [f64], force: bool) -> bool {
    if y.len().checked_mul(x.len()) != Some(a.len()) {
        return false;
    }
    let len = x.len();
    by_row_halves(a, len, y, force, |a, y| {
        gemv_rows(Rows::Packed { data: a, len }, x, y)
    })
}

/// `kernel(a, y)` for the rows of `a` (`y.len()` rows of `len` elements,
/// or blocks of them packed by [`pack_row_blocks`]), split at a whole
/// block of [`ROWS`] over two threads when large enough (or `force`):
/// each result is computed as without the split.
fn by_row_halves(
    a: &[f64],
    len: usize,
    y: &mut [f64],
    force: bool,
    kernel: impl Fn(&[f64], &mut [f64]) -> bool + Sync,
) -> bool {
    if let Some(half) = split_at(y.len(), len, ROWS, force) {
        let (y0, y1) = y.split_at_mut(half);
        let (a0, a1) = a.split_at(half * len);
        let (l, r) = threads::join(|| kernel(a0, y0), || kernel(a1, y1));
        return l && r;
    }
    kernel(a, y)
}

/// The fewest elements a matrix must have for [`pack_row_blocks`] to pay
/// (64 KiB, twice the first-level cache): a smaller one stays in that
/// cache whatever its layout, and the packed copy would only take memory.
const ROW_BLOCKS_MIN: usize = 8192;

/// True when a `(rows, cols)` matrix read by rows on every step of a
/// loop is worth packing once by [`pack_row_blocks`]: at least a block of
/// rows, and too large for the first-level cache.
pub fn row_blocks_pay(rows: usize, cols: usize) -> bool {
    rows >= ROWS && rows.saturating_mul(cols) >= ROW_BLOCKS_MIN
}

/// Packs a row-major `(rows, cols)` matrix `a` into `out` (`rows · cols`
/// elements) for [`gemv_row_blocks`]: each block of four rows as its
/// chunks of 8 columns interleaved (chunk 0 of rows 0, 1, 2, 3, then
/// chunk 1 of each, ...), then the four rows' tails (their last `cols mod
/// 8` elements); the last `rows mod 4` rows as they are. The four-row
/// kernel then reads one stream instead of four, which the caches fetch
/// ahead better: a 128 × 128 product from the second-level cache took
/// 15% less time. `None` when a slice is shorter than its shape.
pub fn pack_row_blocks(a: &[f64], rows: usize, cols: usize, out: &mut [f64]) -> Option<()> {
    let len = rows.checked_mul(cols)?;
    let (a, out) = (a.get(..len)?, out.get_mut(..len)?);
    if cols == 0 {
        return Some(());
    }
    let body = cols - cols % LANES;
    let blocks = rows / ROWS * ROWS * cols;
    for (src, dst) in a[..blocks]
        .chunks_exact(ROWS * cols)
        .zip(out[..blocks].chunks_exact_mut(ROWS * cols))
    {
        let (dst_body, dst_tails) = dst.split_at_mut(ROWS * body);
        for (r, row) in src.chunks_exact(cols).enumerate() {
            for (c, chunk) in row[..body].chunks_exact(LANES).enumerate() {
                let at = (c * ROWS + r) * LANES;
                dst_body[at..at + LANES].copy_from_slice(chunk);
            }
            let t = cols - body;
            dst_tails[r * t..(r + 1) * t].copy_from_slice(&row[body..]);
        }
    }
    out[blocks..].copy_from_slice(&a[blocks..]);
    Some(())
}

/// `y = A·x` for `A` packed by [`pack_row_blocks`] (`y.len()` rows of
/// `x.len()` columns): the bits of [`gemv_row_major`] on the unpacked
/// matrix (each row's running sums take the same products in the same
/// order). False, with `y` untouched, when `packed.len()` is not
/// `y.len() · x.len()`.
pub fn gemv_row_blocks(packed: &[f64], x: &[f64], y: &mut [f64]) -> bool {
    gemv_row_blocks_split(packed, x, y, false)
}

/// [`gemv_row_blocks`], split by rows over two threads as
/// [`gemv_row_major`] is (at a whole block: the rows past it are packed as
/// a matrix of their own would be).
fn gemv_row_blocks_split(packed: &[f64], x: &[f64], y: &mut [f64], force: bool) -> bool {
    if y.len().checked_mul(x.len()) != Some(packed.len()) {
        return false;
    }
    by_row_halves(packed, x.len(), y, force, |p, y| {
        row_blocks(p, x, y);
        true
    })
}

/// The kernel of [`gemv_row_blocks`] (sizes checked by the caller).
#[multiversion(targets("x86_64+avx2+fma"))]
fn row_blocks(packed: &[f64], x: &[f64], y: &mut [f64]) {
    let cols = x.len();
    if cols == 0 {
        y.fill(0.0);
        return;
    }
    let body = cols - cols % LANES;
    let t = cols - body;
    let xs = x.as_chunks::<LANES>().0;
    let blocks = y.len() / ROWS * ROWS;
    let (packed_blocks, rest) = packed.split_at(blocks * cols);
    for (blk, yb) in packed_blocks
        .chunks_exact(ROWS * cols)
        .zip(y.chunks_exact_mut(ROWS))
    {
        let (chunks, tails) = blk.split_at(ROWS * body);
        let mut lo = [[0.0; 4]; ROWS];
        let mut hi = [[0.0; 4]; ROWS];
        for (quad, xc) in chunks.as_chunks::<{ ROWS * LANES }>().0.iter().zip(xs) {
            let rows = quad.as_chunks::<LANES>().0;
            for ((lo, hi), a) in lo.iter_mut().zip(&mut hi).zip(rows) {
                add_products(lo, hi, a, xc);
            }
        }
        // The four rows' tails (`split_at`, not a closure per row: this
        // runs once per block).
        let (t0, rest) = tails.split_at(t);
        let (t1, rest) = rest.split_at(t);
        let (t2, t3) = rest.split_at(t);
        yb.copy_from_slice(&finish(lo, hi, [t0, t1, t2, t3], x));
    }
    for (row, yi) in rest.chunks_exact(cols).zip(&mut y[blocks..]) {
        *yi = dot1(row, x);
    }
}

/// `y = A·x` for a column-major `A` (`y.len()` rows, `x.len()` columns),
/// given as its row-major transpose `b` (`x.len()` rows of `y.len()`
/// elements): `y = Bᵀ·x`, the product `x·B`. The slice entry of
/// [`gemv`]'s column kernel, with its bits. False, with `y` untouched,
/// when `b.len()` is not `y.len() · x.len()`.
pub fn gemv_col_major(b: &[f64], x: &[f64], y: &mut [f64]) -> bool {
    gemv_col_major_split(b, x, y, false)
}

/// [`gemv_col_major`], split by columns of `b` over two threads when
/// large enough (or when `force`).
fn gemv_col_major_split(b: &[f64], x: &[f64], y: &mut [f64], force: bool) -> bool {
    if y.len().checked_mul(x.len()) != Some(b.len()) {
        return false;
    }
    let rows = Rows::Packed {
        data: b,
        len: y.len(),
    };
    // Each result's sums do not depend on the columns beside it.
    if let Some(half) = split_at(y.len(), x.len(), LANES, force) {
        let (y0, y1) = y.split_at_mut(half);
        let (l, r) = threads::join(
            || gemv_cols(rows, x, y0, 0),
            || gemv_cols(rows, x, y1, half),
        );
        return l && r;
    }
    gemv_cols(rows, x, y, 0)
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
        // A or Aᵀ in standard layout: the kernels read the data as one
        // slice. Rows of A contiguous: the row kernel; columns contiguous:
        // the column kernel; else a standard-layout copy.
        if let Some(data) = a.as_slice() {
            if gemv_row_major(data, xs, y) {
                return;
            }
        } else if let Some(data) = a.t().as_slice() {
            if gemv_col_major(data, xs, y) {
                return;
            }
        } else if a.ncols() <= 1 || a.strides()[1] == 1 {
            if gemv_rows(Rows::View(a), xs, y) {
                return;
            }
        } else if a.strides()[0] == 1 && gemv_cols(Rows::View(&a.t()), xs, y, 0) {
            return;
        }
        let copy = a.as_standard_layout();
        let len = a.ncols();
        if let Some(data) = copy.as_slice() {
            gemv_rows(Rows::Packed { data, len }, xs, y);
        }
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

/// [`dot1`] compiled for the processor.
#[multiversion(targets("x86_64+avx2+fma"))]
fn inner_slices(a: &[f64], b: &[f64]) -> f64 {
    dot1(a, b)
}

/// The inner product of two vectors of one length, in the canonical order.
pub fn inner(a: &ArrayView1<'_, f64>, b: &ArrayView1<'_, f64>) -> f64 {
    let (a, b) = (a.as_standard_layout(), b.as_standard_layout());
    match (a.as_slice(), b.as_slice()) {
        (Some(a), Some(b)) if a.len() == b.len() => inner_slices(a, b),
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
        assert!(gemv_cols(
            Rows::View(&a.view()),
            xs.as_slice().unwrap(),
            &mut y,
            0
        ));
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
        assert!(!gemv_cols(
            Rows::View(&strided),
            xs.as_slice().unwrap(),
            &mut y,
            0
        ));
    }

    #[test]
    fn products_split_over_two_threads_keep_their_bits() {
        // Splits inside and on the column kernel's blocks, row counts
        // not a multiple of the row kernel's four, a tail of products.
        for (m, k) in [(9, 13), (261, 77), (300, 300), (600, 21)] {
            let (a, x) = data(m, k);
            let xs = x.as_slice().unwrap();
            let rows = a.as_slice().unwrap();
            let (mut whole, mut split) = (vec![0.0; m], vec![0.0; m]);
            assert!(gemv_row_major_split(rows, xs, &mut whole, false));
            assert!(gemv_row_major_split(rows, xs, &mut split, true));
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&whole), bits(&split), "rows {m} x {k}");
            // The same matrix as the transpose of a (k, m) one.
            let at = a.t().as_standard_layout().to_owned();
            let cols = at.as_slice().unwrap();
            let (mut whole_t, mut split_t) = (vec![0.0; m], vec![0.0; m]);
            assert!(gemv_col_major_split(cols, xs, &mut whole_t, false));
            assert!(gemv_col_major_split(cols, xs, &mut split_t, true));
            assert_eq!(bits(&whole_t), bits(&split_t), "columns {m} x {k}");
            assert_eq!(bits(&whole), bits(&whole_t), "layouts {m} x {k}");
        }
    }

    /// The canonical order written plainly, one product at a time: the
    /// oracle the kernels are held to.
    fn reference_dot(a: &[f64], x: &[f64]) -> f64 {
        let body = x.len() - x.len() % 8;
        let mut s = [0.0f64; 8];
        for j in 0..body {
            s[j % 8] += a[j] * x[j];
        }
        let mut out = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
        for j in body..x.len() {
            out += a[j] * x[j];
        }
        out
    }

    /// Same bits, or both NaN (Rust leaves a NaN's sign and payload
    /// unspecified).
    fn same(p: f64, q: f64) -> bool {
        p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan())
    }

    /// Values of magnitudes 2^-40 to 2^40 and either sign, with, when
    /// `special`, zeros of both signs, huge values whose products overflow,
    /// infinities, NaN and subnormals among them.
    fn values(n: usize, seed: &mut u64, special: bool) -> Vec<f64> {
        let specials = [
            0.0,
            -0.0,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            5e-324,
            -2.2e-308,
            1e-200,
        ];
        (0..n)
            .map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                let r = *seed;
                if special && r.is_multiple_of(7) {
                    return specials[(r >> 8) as usize % specials.len()];
                }
                let m = ((r >> 11) as f64) / (1u64 << 53) as f64;
                let e = ((r >> 3) % 81) as i32 - 40;
                let v = m * 2f64.powi(e);
                if r & 1 == 0 {
                    v
                } else {
                    -v
                }
            })
            .collect()
    }

    #[test]
    fn every_kernel_keeps_the_reference_order_on_odd_sizes_strides_and_views() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let ks = (0..=20).chain([23, 31, 63, 64, 65, 127, 129, 256]);
        for k in ks {
            for m in [1, 2, 3, 4, 5, 7, 8, 9, 13, 33] {
                for special in [false, true] {
                    let a =
                        Array2::from_shape_vec((m, k), values(m * k, &mut seed, special)).unwrap();
                    let x = Array1::from(values(k, &mut seed, special));
                    let want: Vec<f64> = (0..m)
                        .map(|i| reference_dot(&a.row(i).to_vec(), x.as_slice().unwrap()))
                        .collect();
                    // The same matrix as: row-major (the row kernel),
                    // column-major and the transpose of a row-major Aᵀ
                    // (the column kernel), rows in reverse order (rows
                    // contiguous, not in standard layout), every other
                    // column of a wider matrix (copied first); x and y
                    // contiguous and strided.
                    let mut f = Array2::zeros((m, k).f());
                    f.assign(&a);
                    let at = a.t().as_standard_layout().into_owned();
                    assert!(k <= 1 || m <= 1 || at.t().strides()[0] == 1);
                    let mut rev = a.clone();
                    rev.invert_axis(ndarray::Axis(0));
                    let mut wide = Array2::from_elem((m, 2 * k), f64::NAN);
                    wide.slice_mut(ndarray::s![.., ..;2]).assign(&a);
                    let mut xwide = Array1::from_elem(2 * k, 7.0);
                    xwide.slice_mut(ndarray::s![..;2]).assign(&x);
                    let views = [
                        (a.view(), false),
                        (f.view(), false),
                        (at.t(), false),
                        (rev.view(), true),
                        (wide.slice(ndarray::s![.., ..;2]), false),
                    ];
                    for (v, (av, reversed)) in views.into_iter().enumerate() {
                        for xv in [x.view(), xwide.slice(ndarray::s![..;2])] {
                            let mut y = Array1::from_elem(m, f64::NAN);
                            gemv(&av, &xv, &mut y.view_mut());
                            let mut ywide = Array1::from_elem(2 * m, -1.0);
                            gemv(&av, &xv, &mut ywide.slice_mut(ndarray::s![..;2]));
                            for i in 0..m {
                                let w = want[if reversed { m - 1 - i } else { i }];
                                assert!(
                                    same(y[i], w) && same(ywide[2 * i], w),
                                    "{m}x{k} view {v} row {i}: {} {} vs {w}",
                                    y[i],
                                    ywide[2 * i]
                                );
                                assert_eq!(ywide[2 * i + 1], -1.0);
                            }
                        }
                    }
                    // The slice entries: A row-major, and A given as the
                    // row-major Aᵀ.
                    let (xs, mut y1, mut y2) = (x.as_slice().unwrap(), vec![0.0; m], vec![0.0; m]);
                    assert!(gemv_row_major(a.as_slice().unwrap(), xs, &mut y1));
                    assert!(gemv_col_major(at.as_slice().unwrap(), xs, &mut y2));
                    for (i, &w) in want.iter().enumerate() {
                        assert!(same(y1[i], w) && same(y2[i], w), "{m}x{k} row {i}");
                        assert!(same(inner(&a.row(i), &x.view()), w));
                        assert!(same(inner(&f.row(i), &x.view()), w));
                    }
                }
            }
        }
    }

    #[test]
    fn the_four_row_kernel_and_the_one_row_kernel_agree_with_the_reference() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for k in (0..48).chain([100, 255, 256, 257, 1000]) {
            for trial in 0..8 {
                let rows: Vec<Vec<f64>> = (0..4)
                    .map(|_| values(k + trial % 3, &mut seed, trial % 2 == 1))
                    .collect();
                let x = values(k, &mut seed, trial % 2 == 1);
                let rs = [&rows[0][..], &rows[1][..], &rows[2][..], &rows[3][..]];
                let four = dot4(rs, &x);
                for r in 0..4 {
                    let want = reference_dot(&rows[r][..k], &x);
                    assert!(same(four[r], want), "k={k} row {r}: {} vs {want}", four[r]);
                    assert!(same(dot1(rs[r], &x), want), "k={k} row {r}");
                }
            }
        }
    }

    #[test]
    fn the_row_block_layout_keeps_the_row_kernels_bits() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        // Rows below, at and past a block, columns below, at and past a
        // chunk, extreme values and NaN included.
        for rows in [1usize, 3, 4, 5, 8, 11, 128] {
            for cols in [1usize, 7, 8, 9, 16, 23, 128] {
                for trial in 0..3 {
                    let a = values(rows * cols, &mut seed, trial == 1);
                    let x = values(cols, &mut seed, trial == 2);
                    let mut want = vec![0.0; rows];
                    assert!(gemv_row_major(&a, &x, &mut want));
                    let mut packed = vec![0.0; rows * cols];
                    assert!(pack_row_blocks(&a, rows, cols, &mut packed).is_some());
                    let mut got = vec![f64::NAN; rows];
                    assert!(gemv_row_blocks(&packed, &x, &mut got));
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert!(same(*g, *w), "{rows}x{cols} row {i}: {g} vs {w}");
                    }
                    // Against the written sum too (the reference order).
                    for (i, g) in got.iter().enumerate() {
                        let want = reference_dot(&a[i * cols..(i + 1) * cols], &x);
                        assert!(same(*g, want), "{rows}x{cols} row {i}");
                    }
                }
            }
        }
        // Split over two threads at a block: the same bits.
        for rows in [8usize, 13, 64] {
            let cols = 19;
            let a = values(rows * cols, &mut seed, true);
            let x = values(cols, &mut seed, false);
            let mut packed = vec![0.0; rows * cols];
            assert!(pack_row_blocks(&a, rows, cols, &mut packed).is_some());
            let (mut one, mut two) = (vec![0.0; rows], vec![0.0; rows]);
            assert!(gemv_row_blocks(&packed, &x, &mut one));
            assert!(gemv_row_blocks_split(&packed, &x, &mut two, true));
            assert!(
                one.iter().zip(&two).all(|(p, q)| same(*p, *q)),
                "{rows} rows"
            );
        }
        // Wrong sizes are refused.
        let mut y = [0.0; 2];
        assert!(!gemv_row_blocks(&[0.0; 5], &[0.0; 3], &mut y));
        assert!(pack_row_blocks(&[0.0; 5], 2, 3, &mut [0.0; 6]).is_none());
    }

    #[test]
    fn the_slice_entries_refuse_data_of_the_wrong_size() {
        let (a, x) = data(3, 5);
        let (a, x) = (a.as_slice().unwrap(), x.as_slice().unwrap());
        let mut y = vec![-1.0; 3];
        assert!(!gemv_row_major(&a[..14], x, &mut y));
        assert!(!gemv_col_major(&a[..14], x, &mut y));
        assert!(!gemv_row_major(a, &x[..4], &mut y));
        assert!(!gemv_col_major(a, x, &mut y[..2]));
        assert_eq!(y, [-1.0; 3]);
        assert!(gemv_row_major(a, x, &mut y));
        assert!(y.iter().all(|v| *v != -1.0));
        // No rows or no columns.
        assert!(gemv_row_major(&[], &[], &mut []));
        let mut z = vec![7.0; 2];
        assert!(gemv_row_major(&[], &[], &mut z) && gemv_col_major(&[], &[], &mut z));
        assert_eq!(z, [0.0; 2]);
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
