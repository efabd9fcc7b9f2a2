//! Matrix products against a right operand packed once: what a loop body
//! runs when its `B` (a weight matrix, a non-sequence) is the same on every
//! step, so that a step neither packs `B` again nor packs its `A`.
//!
//! Owns: the packed layout ([`packed_len`], [`pack`]: `B` in panels of
//! [`PANEL`] columns, each panel's rows contiguous, the last one padded
//! with zeros) and the product against it ([`product`]), whose kernel
//! reads the rows of `A` where they are and keeps a tile of `6 × 8`
//! running sums in registers, and that product with elementwise steps on
//! each element as it is stored ([`product_then`], [`Step`]: a loop's
//! sums of a product and a sequence's row or a bias). `gemm` decides when
//! it runs (a `B` that fits
//! the second-level cache, [`fits`]) and packs `B` itself for products
//! outside loops.
//!
//! Bits: the result is the one matrixmultiply (`super::gemm`) gives for the
//! same shapes, element for element, because it repeats what its packed
//! kernel (matrixmultiply's AVX2+FMA kernel) does to each element: over
//! each block of [`MM_KC`] consecutive `k`, a running sum from `+0`
//! updated by one fused multiply-add per `k` in order; the first block's
//! sum stored as `sum + 0`, each later block's added to the element (as
//! `c + (sum + 0)` in matrixmultiply's partial edge tiles, its last
//! `m mod 8` rows and `n mod 4` columns, `c + sum` elsewhere: the two
//! differ only in the sign of a zero). A NaN's payload depends on the
//! instructions, not only on the order, so the kernel reports a NaN it
//! stored and the caller computes that product again with matrixmultiply. That holds wherever
//! matrixmultiply runs that kernel: x86-64 with AVX2 and FMA, AVX-512
//! included, since eqscan does not build matrixmultiply's AVX-512 kernel
//! (`super::product_kernel` says why); elsewhere, or when
//! `EQSCAN_PRODUCT_KERNEL=portable` forces it ([`available`]), `gemm`
//! runs matrixmultiply on the unpacked `B`. Where the processor has
//! AVX-512F the same tiles run in 512-bit registers, up to four panels at
//! a time (`prepacked_avx512`, chosen by `product_kernel::width`), each
//! element by the same chain. The unit tests compare both widths with
//! matrixmultiply bit for bit, extreme values and every edge included. Must not: change the
//! order of any element's sum, or allocate.

use crate::exec::ops::product_kernel::{self, PackedWidth, ProductKernel};
use crate::exec::threads;
use ndarray::{s, ArrayView2};

/// Columns per panel of a packed `B`.
pub const PANEL: usize = 8;
/// matrixmultiply's block of `k` for `f64` (its `D_KC`).
pub(super) const MM_KC: usize = 256;
/// matrixmultiply's tile of its AVX2+FMA `f64` kernel: rows, columns.
const MM_MR: usize = 8;
const MM_NR: usize = 4;
/// Rows of `A` per tile of this kernel (both widths).
pub(super) const ROWS: usize = 6;

/// The elements a `(k, n)` matrix takes packed.
pub fn packed_len(k: usize, n: usize) -> usize {
    k.saturating_mul(n.div_ceil(PANEL) * PANEL)
}

/// True when products run on this kernel: the machine has it (x86-64
/// with AVX2 and FMA, AVX-512 or not) and [`super::product_kernel`]'s
/// choice is [`ProductKernel::Packed`] (the default where it exists).
pub fn available() -> bool {
    product_kernel::selected() == ProductKernel::Packed
}

/// True when this machine has the kernel's instructions, whatever the
/// choice: [`product`] and [`product_then`] run on a `B` packed by the
/// caller then (the unit tests compare them with matrixmultiply on every
/// such machine, even with `portable` forced).
pub fn runs_here() -> bool {
    product_kernel::machine() == ProductKernel::Packed
}

/// Packs the row-major `(k, n)` matrix `b` into `out` ([`packed_len`]
/// elements): panel `q` holds columns `8q … 8q + 7`, row after row, zeros
/// past column `n`. `None` when a slice is too short.
pub fn pack(b: &[f64], k: usize, n: usize, out: &mut [f64]) -> Option<()> {
    let b = b.get(..k.checked_mul(n)?)?;
    let out = out.get_mut(..packed_len(k, n))?;
    if k == 0 || n == 0 {
        return Some(());
    }
    for (q, panel) in out.chunks_exact_mut(k * PANEL).enumerate() {
        let j0 = q * PANEL;
        let w = PANEL.min(n - j0);
        for (brow, prow) in b.chunks_exact(n).zip(panel.chunks_exact_mut(PANEL)) {
            // A whole panel row as one fixed-size copy (a register's
            // move), not a call of `memcpy` per eight elements.
            if w == PANEL {
                let src: &[f64; PANEL] = brow.get(j0..j0 + PANEL)?.try_into().ok()?;
                let dst: &mut [f64; PANEL] = prow.try_into().ok()?;
                *dst = *src;
            } else {
                prow[..w].copy_from_slice(&brow[j0..j0 + w]);
                prow[w..].fill(0.0);
            }
        }
    }
    Some(())
}

/// [`pack`] for a `(k, n)` matrix of any strides (a transposed matrix:
/// `x·Wᵀ`; one in row-major order is copied by rows, as [`pack`] does):
/// the same layout, so the product against it is the one against the
/// row-major copy. `None` when `out` is too short.
pub fn pack_view(b: &ArrayView2<'_, f64>, out: &mut [f64]) -> Option<()> {
    let (k, n) = b.dim();
    if let Some(rows) = b.as_slice() {
        return pack(rows, k, n, out);
    }
    let out = out.get_mut(..packed_len(k, n))?;
    if k == 0 || n == 0 {
        return Some(());
    }
    for (q, panel) in out.chunks_exact_mut(k * PANEL).enumerate() {
        let cols = b.slice(s![.., q * PANEL..(q * PANEL + PANEL).min(n)]);
        for (brow, prow) in cols.outer_iter().zip(panel.chunks_exact_mut(PANEL)) {
            let w = brow.len();
            for (p, &v) in prow.iter_mut().zip(&brow) {
                *p = v;
            }
            prow[w..].fill(0.0);
        }
    }
    Some(())
}

/// The most elements a packed `B` may take for [`product`] to be worth
/// it: every tile of rows reads all of `B`, which must stay in the
/// second-level cache (512 KiB); a larger `B` goes to matrixmultiply,
/// which blocks it.
const MAX_PACKED: usize = 1 << 16;

/// True when a `(k, n)` `B` is small enough for [`product`].
pub fn fits(k: usize, n: usize) -> bool {
    packed_len(k, n) <= MAX_PACKED
}

/// `c = a·B` for row-major `a` (`m·k` elements) and `c` (`m·n`), `B`
/// packed in `bp` (by [`pack`]), with the bits of `gemm_rows` when the
/// result holds no NaN: `Some(true)`. `Some(false)`: a NaN appeared, and
/// the caller computes the product again with matrixmultiply, whose
/// instructions decide its payload. `None` when a slice is shorter than
/// its shape says, or [`runs_here`] is false (nothing is written then).
pub fn product(a: &[f64], bp: &[f64], m: usize, k: usize, n: usize, c: &mut [f64]) -> Option<bool> {
    product_then(a, bp, m, k, n, c, &[])
}

/// An elementwise operation on each element `v` of a product as the
/// kernel stores it, with the element `w` of `src` at the same row and
/// column: `v = op(v, w)` when `product_first`, else `op(w, v)`. Several
/// run in order: what the elementwise instructions that read only the
/// product compute, without a pass of their own over it.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// The operation.
    pub op: StepOp,
    /// Whether the running value is the left operand.
    pub product_first: bool,
    /// The other operand.
    pub src: StepSrc<'a>,
}

/// The operation of a [`Step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `·`
    Mul,
}

/// The other operand of a [`Step`].
#[derive(Clone, Copy, Debug)]
pub enum StepSrc<'a> {
    /// A row-major `(m, n)` matrix, element for element.
    Full(&'a [f64]),
    /// A row of `n`, the same for every row.
    Row(&'a [f64]),
    /// One value for every element.
    Scalar(f64),
}

/// The most [`Step`]s one product applies.
pub const MAX_STEPS: usize = 4;

/// [`product`], each element then updated by `steps` in order before it
/// is stored (one rounding per step, as the elementwise instructions
/// round: the same bits as the product followed by them, when no value is
/// NaN). `Some(false)` when a stored value is NaN: the caller computes the
/// product and the steps again, apart, whose instructions decide a NaN's
/// payload. `None` (nothing written) where [`product`] gives `None`, and
/// for steps when `k` is above one block of sums (256) or is 0, or there
/// are more than [`MAX_STEPS`], or a step's operand is shorter than its
/// shape says.
pub fn product_then(
    a: &[f64],
    bp: &[f64],
    m: usize,
    k: usize,
    n: usize,
    c: &mut [f64],
    steps: &[Step<'_>],
) -> Option<bool> {
    product_then_as(product_kernel::width(), a, bp, m, k, n, c, steps)
}

/// [`product_then`] with the registers of `width`, whatever the process
/// selected (the same bits either way: what the unit tests check on a
/// machine that has both). `None` also when `width` is AVX-512 and the
/// machine lacks it.
#[allow(clippy::too_many_arguments)]
pub(super) fn product_then_as(
    width: PackedWidth,
    a: &[f64],
    bp: &[f64],
    m: usize,
    k: usize,
    n: usize,
    c: &mut [f64],
    steps: &[Step<'_>],
) -> Option<bool> {
    if !runs_here() || (width == PackedWidth::Avx512 && product_kernel::machine_width() != width) {
        return None;
    }
    let a = a.get(..m.checked_mul(k)?)?;
    let bp = bp.get(..packed_len(k, n))?;
    let c = c.get_mut(..m.checked_mul(n)?)?;
    if !steps.is_empty() {
        let sized = |s: &Step<'_>| match s.src {
            StepSrc::Full(d) => d.len() >= m * n,
            StepSrc::Row(d) => d.len() >= n,
            StepSrc::Scalar(_) => true,
        };
        if k == 0 || k > MM_KC || steps.len() > MAX_STEPS || !steps.iter().all(sized) {
            return None;
        }
    }
    if m == 0 || n == 0 {
        return Some(true);
    }
    if k == 0 {
        c.fill(0.0);
        return Some(true);
    }
    let shape = Shape {
        k,
        n,
        edge_row: m - m % MM_MR,
        edge_col: n - n % MM_NR,
    };
    // Split over two threads as matrixmultiply's products are.
    let clean = if let Some(h) = super::gemm::row_split(m, k, n) {
        let (a1, a2) = a.split_at(h * k);
        let (c1, c2) = c.split_at_mut(h * n);
        let (x, y) = threads::join(
            || rows(width, a1, bp, 0, shape, c1, steps),
            || rows(width, a2, bp, h, shape, c2, steps),
        );
        x && y
    } else {
        rows(width, a, bp, 0, shape, c, steps)
    };
    Some(clean)
}

/// What every tile needs to know of its product: `k`, `n`, and where
/// matrixmultiply's partial tiles start (first row and column).
#[derive(Clone, Copy)]
pub(super) struct Shape {
    pub(super) k: usize,
    pub(super) n: usize,
    pub(super) edge_row: usize,
    pub(super) edge_col: usize,
}

/// Where the next tile's rows of `A` and `C` start: a tile prefetches a
/// share of their cache lines before each of its panels.
#[derive(Clone, Copy)]
pub(super) struct Next {
    pub(super) a: *const f64,
    pub(super) c: *const f64,
}

/// Rows of `A` per block of [`rows`]: 16 tiles (96 KiB of `A` at
/// k = 128, kept in the second-level cache while the panels pass).
pub(super) const BLOCK_ROWS: usize = 16 * ROWS;

/// The rows of `c` from the rows of `a` (`row0`: the first one's index in
/// the whole product); false when a value it stored is NaN.
///
/// Block of [`BLOCK_ROWS`] rows after block; in each block, the panels of
/// `B` one after another (the AVX-512 kernel takes up to four at a time),
/// and each panel against every tile of [`ROWS`] rows of the block in
/// turn: the panel (`k · 8` elements, 8 KiB at k = 128; 32 KiB for four)
/// stays in the first-level cache while the block's tiles of `A` come from
/// the second level, where the block stays between panels. (Tile after
/// tile against all of `B` read `B` from the second level once per tile of
/// 6 rows: about 19 against 27–31 GMAC/s for a 64 × 128 × 128 product
/// on AVX-512.) While a tile runs, the next tile's rows of `C` at these
/// columns are prefetched, and at the first panel its rows of `A`, so
/// that a product whose operands come from the third level (a loop's
/// inputs hoisted into one product over every step) does not wait for
/// them. The order of the tiles and panels does not change any element's
/// sum.
fn rows(
    width: PackedWidth,
    a: &[f64],
    bp: &[f64],
    row0: usize,
    shape: Shape,
    c: &mut [f64],
    steps: &[Step<'_>],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if width == PackedWidth::Avx512 {
            // SAFETY: `runs_here()` (checked by the only caller) and the
            // caller's check of AVX-512F; the slices as below.
            return unsafe { super::prepacked_avx512::rows(a, bp, row0, shape, c, steps) };
        }
        let k = shape.k;
        let mut clean = true;
        each_tile!(a, c, row0, shape, 1, |t| {
            let (first, next, q) = (t.first, t.next, t.q);
            // SAFETY: `runs_here()` (checked by the only caller) says the
            // CPU has AVX2 and FMA; `t.a` holds `r` rows of `k`, `bp`
            // `packed_len(k, n)` elements, `t.c` `r` rows of `n`; panel q
            // exists.
            clean &= unsafe {
                match t.a.len() / k.max(1) {
                    6 => fma::tile::<6>(t.a, bp, first, shape, t.c, next, q, steps),
                    5 => fma::tile::<5>(t.a, bp, first, shape, t.c, next, q, steps),
                    4 => fma::tile::<4>(t.a, bp, first, shape, t.c, next, q, steps),
                    3 => fma::tile::<3>(t.a, bp, first, shape, t.c, next, q, steps),
                    2 => fma::tile::<2>(t.a, bp, first, shape, t.c, next, q, steps),
                    _ => fma::tile::<1>(t.a, bp, first, shape, t.c, next, q, steps),
                }
            };
        });
        clean
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (width, a, bp, row0, shape, c, steps);
        false
    }
}

/// One tile of [`rows`]' order: its rows of `A` and of `C`, its first
/// row in the whole product, the panels `q .. q + g` it runs against, and
/// where the next tile of its block starts (none after the block's last).
pub(super) struct TileWork<'t> {
    pub(super) a: &'t [f64],
    pub(super) c: &'t mut [f64],
    pub(super) first: usize,
    pub(super) q: usize,
    pub(super) g: usize,
    pub(super) next: Option<Next>,
}

/// Runs `$body` on every tile of `$a`'s rows (`k > 0`) in [`rows`]' order,
/// with `$t` the tile's [`TileWork`]: block of [`BLOCK_ROWS`] after
/// block, in each the panels `$group` at a time, each group against every
/// tile of the block. A macro, not a function taking a closure, so that
/// the body is compiled in its caller, with the caller's instruction set
/// (a closure has the baseline's and cannot inline the AVX-512 tile: 1 to
/// 3.5% slower on a 64 × 128 × 128 product).
macro_rules! each_tile {
    ($a:expr, $c:expr, $row0:expr, $shape:expr, $group:expr, |$t:ident| $body:block) => {{
        let (k, n) = ($shape.k.max(1), $shape.n);
        let panels = n.div_ceil(PANEL);
        let blocks = $a.chunks(BLOCK_ROWS * k).zip($c.chunks_mut(BLOCK_ROWS * n));
        for (b, (ablock, cblock)) in blocks.enumerate() {
            let n_tiles = ablock.len().div_ceil(ROWS * k);
            let mut q = 0;
            while q < panels {
                let g = ($group as usize).max(1).min(panels - q);
                let tiles = ablock.chunks(ROWS * k).zip(cblock.chunks_mut(ROWS * n));
                for (t, (atile, ctile)) in tiles.enumerate() {
                    let next = (t + 1 < n_tiles).then(|| Next {
                        a: atile.as_ptr().wrapping_add(ROWS * k),
                        c: ctile.as_ptr().wrapping_add(ROWS * n),
                    });
                    let $t = TileWork {
                        a: atile,
                        c: ctile,
                        first: $row0 + b * BLOCK_ROWS + t * ROWS,
                        q,
                        g,
                        next,
                    };
                    $body
                }
                q += g;
            }
        }
    }};
}
pub(super) use each_tile;

/// Prefetches, into the first-level cache, what the block's next tile
/// (none after its last) reads at the columns of `panels` panels from `j0`: its [`ROWS`] rows of
/// `C` and of each step's full operand (its first row: `row`), and, when
/// `with_a`, all its rows of `A` (`ROWS · k` elements). A prefetch never
/// faults.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn prefetch_next(
    next: Option<Next>,
    shape: Shape,
    row: usize,
    j0: usize,
    panels: usize,
    with_a: bool,
    steps: &[Step<'_>],
) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    let Some(next) = next else {
        return;
    };
    let n = shape.n;
    let line = |at: *const f64| {
        // SAFETY: a prefetch reads nothing it could fault on.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at as *const i8) }
    };
    if with_a {
        for l in 0..(ROWS * shape.k).div_ceil(8) {
            line(next.a.wrapping_add(8 * l));
        }
    }
    for r in 0..ROWS {
        for j in (j0..j0 + panels * PANEL)
            .step_by(PANEL)
            .take_while(|&j| j < n)
        {
            line(next.c.wrapping_add(r * n + j));
            for s in steps {
                if let StepSrc::Full(d) = s.src {
                    line(d.as_ptr().wrapping_add((row + r) * n + j));
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod fma {
    use super::{Next, Shape, Step, StepOp, StepSrc, MM_KC, PANEL, ROWS};
    use std::arch::x86_64::*;

    /// `R` rows of `c` (`row0`: the first one's row in the whole product)
    /// at panel `q`'s columns, from `R` rows of `a` and panel `q` of `bp`,
    /// prefetching what `next` reads there (and its rows of `A` at the
    /// first panel); false when a value it stored is NaN.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; `a` holds `R·k` elements, `bp`
    /// `packed_len(k, n)`, `c` `R·n`; panel `q` exists.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile<const R: usize>(
        a: &[f64],
        bp: &[f64],
        row0: usize,
        shape: Shape,
        c: &mut [f64],
        next: Option<Next>,
        q: usize,
        steps: &[Step<'_>],
    ) -> bool {
        let Shape {
            k,
            n,
            edge_row,
            edge_col,
        } = shape;
        debug_assert!(a.len() >= R * k && c.len() >= R * n);
        debug_assert!(bp.len() >= super::packed_len(k, n));
        let ap = a.as_ptr();
        let cp = c.as_mut_ptr();
        let zero = _mm256_setzero_pd();
        // Lanes that stored a NaN (a NaN is unordered with itself).
        let mut nan = zero;
        let mut scalar_nan = false;
        // One pointer per row of `a`, indexed by p: each broadcast is then
        // one instruction on its own register, not a chain of address
        // additions (the loop is bound by instructions issued, not only
        // by its multiply-adds). (`black_box` hides that they are k
        // apart, which the compiler would otherwise fold back into that
        // chain.)
        // SAFETY: row r < R of `a` starts at r·k < a.len().
        let arows: [*const f64; R] =
            std::hint::black_box(std::array::from_fn(|r| unsafe { ap.add(r * k) }));
        let j0 = q * PANEL;
        super::prefetch_next(next, shape, row0 + ROWS, j0, 1, q == 0, steps);
        let width = PANEL.min(n - j0);
        // SAFETY: panel q starts at q·k·PANEL < packed_len(k, n).
        let panel = unsafe { bp.as_ptr().add(q * k * PANEL) };
        let mut p0 = 0;
        while p0 < k {
            let kc = MM_KC.min(k - p0);
            let mut acc = [[zero; 2]; R];
            for p in p0..p0 + kc {
                // SAFETY: row p of the panel, and element p of each
                // of the R rows of `a`, are in their slices.
                unsafe {
                    let b0 = _mm256_loadu_pd(panel.add(p * PANEL));
                    let b1 = _mm256_loadu_pd(panel.add(p * PANEL + 4));
                    for (acc, row) in acc.iter_mut().zip(&arows) {
                        let x = _mm256_broadcast_sd(&*row.add(p));
                        acc[0] = _mm256_fmadd_pd(x, b0, acc[0]);
                        acc[1] = _mm256_fmadd_pd(x, b1, acc[1]);
                    }
                }
            }
            if p0 == 0 && width == PANEL {
                // The first block over a whole panel (every panel
                // but a partial last one when k ≤ 256): each sum
                // stored as `sum + 0`, straight from its register.
                for (r, acc) in acc.iter().enumerate() {
                    // SAFETY: row r of `c`, columns j0 .. j0 + 8.
                    unsafe {
                        let crow = cp.add(r * n + j0);
                        let v = [_mm256_add_pd(acc[0], zero), _mm256_add_pd(acc[1], zero)];
                        let [v0, v1] = if steps.is_empty() {
                            v
                        } else {
                            steps_on_8(steps, row0 + r, n, j0, v)
                        };
                        nan = _mm256_or_pd(nan, _mm256_cmp_pd::<_CMP_UNORD_Q>(v0, v1));
                        _mm256_storeu_pd(crow, v0);
                        _mm256_storeu_pd(crow.add(4), v1);
                    }
                }
                p0 += kc;
                continue;
            }
            for (r, acc) in acc.iter().enumerate() {
                // SAFETY: row r of `c`, columns j0 .. j0 + width.
                let crow = unsafe { cp.add(r * n + j0) };
                let interior = row0 + r < edge_row && j0 + PANEL <= edge_col;
                // (A first block over a whole panel was stored above.)
                if width == PANEL && interior {
                    // SAFETY: the 8 columns lie in the row.
                    unsafe {
                        for (h, &s) in acc.iter().enumerate() {
                            let at = crow.add(4 * h);
                            let v = _mm256_add_pd(_mm256_loadu_pd(at), s);
                            nan = _mm256_or_pd(nan, _mm256_cmp_pd::<_CMP_UNORD_Q>(v, v));
                            _mm256_storeu_pd(at, v);
                        }
                    }
                } else {
                    let mut sums = [0.0f64; PANEL];
                    // SAFETY: `sums` holds the 8 lanes.
                    unsafe {
                        _mm256_storeu_pd(sums.as_mut_ptr(), acc[0]);
                        _mm256_storeu_pd(sums.as_mut_ptr().add(4), acc[1]);
                    }
                    for (jj, &s) in sums.iter().enumerate().take(width) {
                        let edge = row0 + r >= edge_row || j0 + jj >= edge_col;
                        // SAFETY: column j0 + jj < n of row r.
                        unsafe {
                            let at = crow.add(jj);
                            *at = if p0 == 0 {
                                steps_on_1(steps, row0 + r, n, j0 + jj, s + 0.0)
                            } else if edge {
                                *at + (s + 0.0)
                            } else {
                                *at + s
                            };
                            scalar_nan |= (*at).is_nan();
                        }
                    }
                }
            }
            p0 += kc;
        }
        !scalar_nan && _mm256_movemask_pd(nan) == 0
    }

    /// `steps` (in order) on the values `v` of row `row`, columns `j0 ..
    /// j0 + 8`, of an `n`-column product.
    ///
    /// # Safety
    /// The CPU has AVX2; each step's operand holds those columns (checked
    /// by `product_then`).
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn steps_on_8(
        steps: &[Step<'_>],
        row: usize,
        n: usize,
        j0: usize,
        mut v: [__m256d; 2],
    ) -> [__m256d; 2] {
        for s in steps {
            // SAFETY: the operand holds row `row`'s columns j0 .. j0 + 8.
            let w = unsafe {
                match s.src {
                    StepSrc::Full(d) => {
                        let p = d.as_ptr().add(row * n + j0);
                        [_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4))]
                    }
                    StepSrc::Row(d) => {
                        let p = d.as_ptr().add(j0);
                        [_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4))]
                    }
                    StepSrc::Scalar(x) => [_mm256_set1_pd(x); 2],
                }
            };
            for (v, w) in v.iter_mut().zip(w) {
                let (x, y) = if s.product_first { (*v, w) } else { (w, *v) };
                *v = match s.op {
                    StepOp::Add => _mm256_add_pd(x, y),
                    StepOp::Sub => _mm256_sub_pd(x, y),
                    StepOp::Mul => _mm256_mul_pd(x, y),
                };
            }
        }
        v
    }

    /// `steps` (in order) on the value `v` of row `row`, column `j`.
    ///
    /// # Safety
    /// Each step's operand holds that element (checked by
    /// `product_then`).
    #[inline]
    pub(in crate::exec::ops) unsafe fn steps_on_1(
        steps: &[Step<'_>],
        row: usize,
        n: usize,
        j: usize,
        mut v: f64,
    ) -> f64 {
        for s in steps {
            // SAFETY: the operand holds the element.
            let w = unsafe {
                match s.src {
                    StepSrc::Full(d) => *d.get_unchecked(row * n + j),
                    StepSrc::Row(d) => *d.get_unchecked(j),
                    StepSrc::Scalar(x) => x,
                }
            };
            let (x, y) = if s.product_first { (v, w) } else { (w, v) };
            v = match s.op {
                StepOp::Add => x + y,
                StepOp::Sub => x - y,
                StepOp::Mul => x * y,
            };
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-1, 1), with `special` mixed in.
    fn filled(len: usize, seed: u64, special: &[f64]) -> Vec<f64> {
        let mut s = seed;
        (0..len)
            .map(|i| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if !special.is_empty() && (s >> 60) == 0 {
                    return special[i % special.len()];
                }
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The kernel's widths this machine runs (AVX2 alone on a machine
    /// without AVX-512F, both with it; AVX2 also where the kernel does not
    /// run at all, whose `None` the checks expect).
    fn widths() -> Vec<PackedWidth> {
        let mut w = vec![PackedWidth::Avx2];
        if product_kernel::machine_width() == PackedWidth::Avx512 {
            w.push(PackedWidth::Avx512);
        }
        w
    }

    /// The kernel against matrixmultiply on the same operands, bit for
    /// bit (a product whose result holds a NaN must be reported).
    fn agree(m: usize, k: usize, n: usize, a: &[f64], b: &[f64]) {
        use ndarray::linalg::general_mat_mul;
        use ndarray::ArrayViewMut2;
        let mut want = vec![f64::NAN; m * n];
        general_mat_mul(
            1.0,
            &ArrayView2::from_shape((m, k), a).unwrap(),
            &ArrayView2::from_shape((k, n), b).unwrap(),
            0.0,
            &mut ArrayViewMut2::from_shape((m, n), &mut want[..]).unwrap(),
        );
        let mut bp = vec![f64::NAN; packed_len(k, n)];
        pack(b, k, n, &mut bp).unwrap();
        // Each width this machine has, forced, then the selected one.
        for width in widths() {
            let mut got = vec![f64::NAN; m * n];
            match product_then_as(width, a, &bp, m, k, n, &mut got, &[]) {
                None => return assert!(!runs_here()),
                Some(false) => {
                    assert!(
                        want.iter().any(|x| x.is_nan()),
                        "{m}x{k}x{n} ({width:?}): a NaN reported where matrixmultiply has none"
                    );
                    continue;
                }
                Some(true) => {}
            }
            if bits(&got) != bits(&want) {
                let i = (0..m * n)
                    .find(|&i| got[i].to_bits() != want[i].to_bits())
                    .unwrap();
                panic!(
                    "{m}x{k}x{n} ({width:?}): element ({}, {}) is {:e}, matrixmultiply gives {:e}",
                    i / n,
                    i % n,
                    got[i],
                    want[i]
                );
            }
        }
        let mut got = vec![f64::NAN; m * n];
        if product(a, &bp, m, k, n, &mut got) != Some(true) {
            return;
        }
        // And through the entry points every executor calls.
        let mut rows = vec![f64::NAN; m * n];
        super::super::gemm::gemm_rows(a, b, m, k, n, &mut rows).unwrap();
        assert!(bits(&rows) == bits(&want), "{m}x{k}x{n}: gemm_rows");
        let mut pre = vec![f64::NAN; m * n];
        super::super::gemm::gemm_rows_prepacked(a, b, &bp, m, k, n, &mut pre).unwrap();
        assert!(
            bits(&pre) == bits(&want),
            "{m}x{k}x{n}: gemm_rows_prepacked"
        );
        // B given as the transpose of its row-major transpose (x·Wᵀ):
        // packed from the view to the same layout, and the product's bits.
        let bt = ArrayView2::from_shape((k, n), b).unwrap().t().to_owned();
        let b_view = bt.t();
        let mut bp_view = vec![f64::NAN; packed_len(k, n)];
        pack_view(&b_view, &mut bp_view).unwrap();
        assert!(bits(&bp_view) == bits(&bp), "{m}x{k}x{n}: pack_view");
        let mut through_view = vec![f64::NAN; m * n];
        super::super::gemm::gemm(
            &ArrayView2::from_shape((m, k), a).unwrap(),
            &b_view,
            &mut ArrayViewMut2::from_shape((m, n), &mut through_view[..]).unwrap(),
        );
        assert!(
            bits(&through_view) == bits(&want),
            "{m}x{k}x{n}: gemm with a transposed B"
        );
    }

    #[test]
    fn products_against_a_packed_matrix_keep_matrixmultiplys_bits() {
        // Tiles whole and partial in both kernels' sense (rows mod 6 and
        // mod 8, columns mod 8 and mod 4), k across matrixmultiply's
        // blocks of 256, and the shapes of the GRU and LSTM steps.
        for &(m, k, n) in &[
            (80, 128, 128),
            (64, 64, 64),
            (17, 300, 13),
            (9, 257, 5),
            (8, 600, 12),
            (23, 513, 31),
            (7, 40, 17),
            (1, 5000, 3),
            (160, 64, 130),
            // The AVX-512 form's groups of four panels: whole groups and
            // one, two or three panels left (whole, or the last partial),
            // over one and over three blocks of k.
            (29, 520, 44),
            (14, 300, 24),
            (10, 600, 40),
            (6, 128, 256),
            (80, 128, 384),
            // Several blocks of 96 rows, the last one partial (its last
            // tile too), each block's panels outermost.
            (203, 70, 44),
            (192, 300, 40),
        ] {
            let (a, b) = (filled(m * k, 1, &[]), filled(k * n, 2, &[]));
            agree(m, k, n, &a, &b);
        }
    }

    #[test]
    fn extreme_values_keep_their_bits_and_zero_signs() {
        // Products that underflow to -0 or a subnormal, overflow, signed
        // zeros, infinities and NaN, over one block of k and over three
        // (a block's sum of -0, e.g. of products that all underflow,
        // added to the blocks before it).
        let special = [
            -0.0,
            0.0,
            1e-300,
            -1e-300,
            f64::MIN_POSITIVE,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            5e-324,
        ];
        for &(m, k, n) in &[(19, 70, 21), (13, 600, 11), (16, 520, 9), (21, 300, 40)] {
            let a = filled(m * k, 3, &special);
            let b = filled(k * n, 4, &special);
            agree(m, k, n, &a, &b);
            // Tiny factors everywhere: every product underflows.
            let tiny_a: Vec<f64> = a.iter().map(|x| x * 1e-160).collect();
            let tiny_b: Vec<f64> = b.iter().map(|x| -x * 1e-160).collect();
            agree(m, k, n, &tiny_a, &tiny_b);
        }
        // Overflow to +inf without NaN (so the kernel's own result
        // stands), subnormals and signed zeros.
        let no_nan = [-0.0, 0.0, 1e-300, -1e-300, f64::MIN_POSITIVE, 1e300, 5e-324];
        for &(m, k, n) in &[(19, 70, 21), (13, 600, 11)] {
            let mut a = filled(m * k, 5, &no_nan);
            let mut b = filled(k * n, 6, &no_nan);
            a.iter_mut().step_by(3).for_each(|x| *x = 1e300);
            b.iter_mut().step_by(5).for_each(|x| *x = 1e300);
            let mut c = vec![0.0; m * n];
            super::super::gemm::gemm_rows(&a, &b, m, k, n, &mut c).unwrap();
            assert!(c.iter().all(|x| !x.is_nan()));
            assert!(
                c.iter().any(|x| x.is_infinite()),
                "{m}x{k}x{n}: no overflow"
            );
            agree(m, k, n, &a, &b);
        }
        // Columns of -0 products in every block: the sign of the zero
        // each block leaves decides the element.
        let (m, k, n) = (11, 700, 7);
        let a = vec![-1e-200; m * k];
        let b = vec![1e-200; k * n];
        agree(m, k, n, &a, &b);
    }

    /// `product_then` against the product followed by each step on each
    /// element in the written order, bit for bit; a NaN in the result
    /// must be reported (the caller then runs the steps apart).
    fn steps_agree(m: usize, k: usize, n: usize, a: &[f64], b: &[f64], steps: &[Step<'_>]) {
        let mut want = vec![f64::NAN; m * n];
        super::super::gemm::gemm_rows(a, b, m, k, n, &mut want).unwrap();
        for (i, v) in want.iter_mut().enumerate() {
            for s in steps {
                let w = match s.src {
                    StepSrc::Full(d) => d[i],
                    StepSrc::Row(d) => d[i % n],
                    StepSrc::Scalar(x) => x,
                };
                let (x, y) = if s.product_first { (*v, w) } else { (w, *v) };
                *v = match s.op {
                    StepOp::Add => x + y,
                    StepOp::Sub => x - y,
                    StepOp::Mul => x * y,
                };
            }
        }
        let mut bp = vec![f64::NAN; packed_len(k, n)];
        pack(b, k, n, &mut bp).unwrap();
        for width in widths() {
            steps_agree_as(width, m, k, n, a, &bp, steps, &want);
        }
    }

    /// [`steps_agree`]'s check of `product_then` with the registers of
    /// `width`.
    #[allow(clippy::too_many_arguments)]
    fn steps_agree_as(
        width: PackedWidth,
        m: usize,
        k: usize,
        n: usize,
        a: &[f64],
        bp: &[f64],
        steps: &[Step<'_>],
        want: &[f64],
    ) {
        let mut got = vec![f64::NAN; m * n];
        match product_then_as(width, a, bp, m, k, n, &mut got, steps) {
            None => assert!(!runs_here()),
            Some(false) => assert!(
                want.iter().any(|x| x.is_nan()),
                "{m}x{k}x{n} ({width:?}): a NaN reported where the steps give none"
            ),
            Some(true) => {
                assert!(
                    !want.iter().any(|x| x.is_nan()),
                    "{m}x{k}x{n} ({width:?}): a NaN not reported"
                );
                for i in 0..m * n {
                    assert!(
                        got[i].to_bits() == want[i].to_bits(),
                        "{m}x{k}x{n} ({width:?}): element ({}, {}) is {:e}, expected {:e}",
                        i / n,
                        i % n,
                        got[i],
                        want[i]
                    );
                }
            }
        }
    }

    #[test]
    fn steps_on_stored_elements_keep_the_separate_passes_bits() {
        // Whole and partial tiles and panels (rows mod 6, columns mod 8),
        // one row split over two threads (160 rows), the GRU and LSTM
        // step shapes; every kind of operand and operation, each side.
        for &(m, k, n) in &[
            (80, 128, 128),
            (64, 64, 64),
            (7, 40, 17),
            (13, 256, 9),
            (160, 64, 130),
            (29, 200, 44),
            (11, 96, 24),
            (9, 64, 40),
        ] {
            let (a, b) = (filled(m * k, 7, &[]), filled(k * n, 8, &[]));
            let full = filled(m * n, 9, &[]);
            let row = filled(n, 10, &[]);
            let step = |op, product_first, src| Step {
                op,
                product_first,
                src,
            };
            let cases: [&[Step<'_>]; 4] = [
                &[step(StepOp::Add, false, StepSrc::Full(&full))],
                &[
                    step(StepOp::Add, true, StepSrc::Full(&full)),
                    step(StepOp::Add, true, StepSrc::Row(&row)),
                ],
                &[
                    step(StepOp::Sub, false, StepSrc::Row(&row)),
                    step(StepOp::Mul, true, StepSrc::Scalar(-0.75)),
                    step(StepOp::Sub, true, StepSrc::Full(&full)),
                ],
                &[
                    step(StepOp::Mul, false, StepSrc::Full(&full)),
                    step(StepOp::Sub, false, StepSrc::Scalar(2.5)),
                    step(StepOp::Add, false, StepSrc::Row(&row)),
                    step(StepOp::Mul, true, StepSrc::Row(&row)),
                ],
            ];
            for steps in cases {
                steps_agree(m, k, n, &a, &b, steps);
            }
        }
    }

    #[test]
    fn steps_at_extreme_magnitudes_keep_bits_or_report_nan() {
        // Overflow in the product or in a step (inf, then inf - inf),
        // subnormals, signed zeros (-0 + -0, 0 · -x), and NaN operands.
        let special = [
            -0.0,
            0.0,
            1e-300,
            -1e-300,
            1e300,
            -1e300,
            5e-324,
            f64::MIN_POSITIVE,
        ];
        // (40 columns: a whole group of four panels and one more, in
        // the AVX-512 form.)
        // (And 203 rows: three blocks of rows, the steps' operands read
        // at each block's rows.)
        for (m, k, n) in [(19, 70, 21), (13, 70, 40), (203, 70, 40)] {
            steps_at_extremes(m, k, n, &special);
        }
    }

    fn steps_at_extremes(m: usize, k: usize, n: usize, special: &[f64]) {
        let a = filled(m * k, 11, special);
        let b = filled(k * n, 12, special);
        let mut huge = filled(m * n, 13, special);
        huge.iter_mut().step_by(7).for_each(|x| *x = f64::MAX);
        let zeros = vec![-0.0; n];
        let with_nan = filled(m * n, 14, &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
        let step = |op, product_first, src| Step {
            op,
            product_first,
            src,
        };
        for steps in [
            [
                step(StepOp::Add, true, StepSrc::Full(&huge)),
                step(StepOp::Add, false, StepSrc::Row(&zeros)),
            ],
            [
                step(StepOp::Mul, true, StepSrc::Full(&huge)),
                step(StepOp::Mul, false, StepSrc::Scalar(-0.0)),
            ],
            [
                step(StepOp::Sub, false, StepSrc::Full(&with_nan)),
                step(StepOp::Add, true, StepSrc::Scalar(1e308)),
            ],
        ] {
            steps_agree(m, k, n, &a, &b, &steps);
            // Every product underflows: signed zeros through the steps.
            let tiny: Vec<f64> = a.iter().map(|x| x * 1e-300).collect();
            steps_agree(m, k, n, &tiny, &b, &steps);
        }
    }

    #[test]
    fn steps_are_refused_where_the_kernel_cannot_run_them() {
        let (m, n) = (20, 40);
        let full = vec![1.0; m * n];
        let steps = [Step {
            op: StepOp::Add,
            product_first: true,
            src: StepSrc::Full(&full),
        }];
        for k in [0, 257] {
            let (a, b) = (vec![1.0; m * k], vec![1.0; k * n]);
            let mut bp = vec![0.0; packed_len(k, n)];
            pack(&b, k, n, &mut bp).unwrap();
            let mut c = vec![0.0; m * n];
            assert!(
                product_then(&a, &bp, m, k, n, &mut c, &steps).is_none(),
                "k = {k}"
            );
            assert_eq!(
                product_then(&a, &bp, m, k, n, &mut c, &[]),
                runs_here().then_some(true)
            );
        }
        // An operand shorter than the product, or than a row.
        let k = 30;
        let (a, b) = (vec![1.0; m * k], vec![1.0; k * n]);
        let mut bp = vec![0.0; packed_len(k, n)];
        pack(&b, k, n, &mut bp).unwrap();
        let mut c = vec![0.0; m * n];
        let short_full = [Step {
            src: StepSrc::Full(&full[1..]),
            ..steps[0]
        }];
        let short_row = [Step {
            src: StepSrc::Row(&full[..n - 1]),
            ..steps[0]
        }];
        assert!(product_then(&a, &bp, m, k, n, &mut c, &short_full).is_none());
        assert!(product_then(&a, &bp, m, k, n, &mut c, &short_row).is_none());
    }

    #[test]
    fn short_slices_are_refused() {
        let (m, k, n) = (20, 30, 40);
        let (a, b) = (vec![1.0; m * k], vec![1.0; k * n]);
        let mut bp = vec![0.0; packed_len(k, n)];
        assert!(pack(&b[1..], k, n, &mut bp).is_none());
        pack(&b, k, n, &mut bp).unwrap();
        let mut c = vec![0.0; m * n];
        assert!(product(&a[1..], &bp, m, k, n, &mut c).is_none());
        assert!(product(&a, &bp[1..], m, k, n, &mut c).is_none());
        assert!(product(&a, &bp, m, k, n, &mut c[1..]).is_none());
    }
}
