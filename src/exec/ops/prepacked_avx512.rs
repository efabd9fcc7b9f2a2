//! The AVX-512 form of [`super::prepacked`]'s kernel: the same tiles of
//! [`ROWS`] rows of `A` against a packed `B`, each panel of [`PANEL`]
//! columns one 512-bit register per row, up to [`GROUP`] panels at a time
//! (24 running sums in registers, against the AVX2 form's 12).
//!
//! Owns: [`tile`]. Bits: every element of `C` is the AVX2 form's, because
//! each is computed exactly as there, only in a wider register: over
//! each block of [`MM_KC`] consecutive `k`, a running sum from `+0`
//! updated by one fused multiply-add per `k` in order (a lane of
//! `vfmadd231pd` on a `zmm` register rounds as one on a `ymm` register);
//! the first block's sum stored as `sum + 0` and each later one added to
//! the element as `c + sum`, or `c + (sum + 0)` in matrixmultiply's
//! partial edge tiles; the elementwise steps applied after, in order, one
//! rounding each; a stored NaN reported. `prepacked`'s unit tests run
//! both forms against matrixmultiply on a machine that has both, and
//! `tests/plan.rs` forces each with `EQSCAN_PACKED_WIDTH`. Must not:
//! change the order of any element's sum, or allocate.

use super::prepacked::fma::steps_on_1;
use super::prepacked::{
    each_tile, prefetch_next, Next, Shape, Step, StepOp, StepSrc, TileWork, BLOCK_ROWS, MM_KC,
    PANEL, ROWS,
};
use std::arch::x86_64::*;

/// Panels of `B` (of [`PANEL`] columns) one call of the inner loop takes:
/// `ROWS × GROUP` = 24 accumulators, `GROUP` loads of `B` and the
/// broadcasts of `A` fit the 32 registers.
const GROUP: usize = 4;

/// The rows of `c` from the rows of `a` (`row0`: the first one's row in
/// the whole product), block of [`BLOCK_ROWS`] after block, each block
/// group of panels after group, each group tile of [`ROWS`] rows after
/// tile; false when a value it stored is NaN. The order of the tiles and
/// groups does not change any element's sum.
///
/// # Safety
/// The CPU has AVX-512F, AVX2 and FMA; `a` holds whole rows of `k`, `bp`
/// `packed_len(k, n)` elements, `c` as many rows of `n` as `a` has of
/// `k`; each step's operand holds the elements of these rows (checked by
/// `product_then`).
#[target_feature(enable = "avx512f,avx2,fma")]
pub(super) unsafe fn rows(
    a: &[f64],
    bp: &[f64],
    row0: usize,
    shape: Shape,
    c: &mut [f64],
    steps: &[Step<'_>],
) -> bool {
    let (k, n) = (shape.k, shape.n);
    debug_assert!(k > 0 && a.len() / k <= c.len() / n.max(1));
    debug_assert!(bp.len() >= super::prepacked::packed_len(k, n));
    let mut found = Found::default();
    each_tile!(a, c, row0, shape, GROUP, |t| {
        prefetch_next(
            t.next,
            shape,
            t.first + ROWS,
            t.q * PANEL,
            t.g,
            t.q == 0,
            steps,
        );
        let at = Panels {
            bp: bp.as_ptr(),
            q: t.q,
            row0: t.first,
            shape,
            c: t.c.as_mut_ptr(),
        };
        // SAFETY: the caller's guarantees; `t.a` holds its rows, `t.c`
        // theirs; panels q .. q + g exist.
        unsafe {
            match t.a.len() / k {
                6 => tile::<6>(t.a, at, t.g, steps, &mut found),
                5 => tile::<5>(t.a, at, t.g, steps, &mut found),
                4 => tile::<4>(t.a, at, t.g, steps, &mut found),
                3 => tile::<3>(t.a, at, t.g, steps, &mut found),
                2 => tile::<2>(t.a, at, t.g, steps, &mut found),
                _ => tile::<1>(t.a, at, t.g, steps, &mut found),
            }
        }
    });
    !found.scalar && found.lanes == 0
}

/// `R` rows of `C` (at `at.c`) from `R` rows of `a`, against the `g`
/// panels of `B` from `at.q`.
///
/// # Safety
/// As [`rows`]'; `a` holds `R · k` elements, `at.c` `R` rows of `n`.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
unsafe fn tile<const R: usize>(
    a: &[f64],
    at: Panels,
    g: usize,
    steps: &[Step<'_>],
    found: &mut Found,
) {
    let k = at.shape.k;
    debug_assert!(a.len() >= R * k);
    // One pointer per row of `a` (see the AVX2 form: each broadcast is
    // then one instruction on its own register).
    // SAFETY: row r < R of `a` starts at r·k < a.len().
    let arows: [*const f64; R] =
        std::hint::black_box(std::array::from_fn(|r| unsafe { a.as_ptr().add(r * k) }));
    // SAFETY: the caller's guarantees.
    unsafe {
        match g {
            4 => group::<R, 4>(&arows, at, steps, found),
            3 => group::<R, 3>(&arows, at, steps, found),
            2 => group::<R, 2>(&arows, at, steps, found),
            _ => group::<R, 1>(&arows, at, steps, found),
        }
    }
}

/// The NaNs a tile stored: lanes of the vector stores, and any of the
/// scalar ones.
#[derive(Default)]
struct Found {
    lanes: u8,
    scalar: bool,
}

/// Where a group of panels lies: the packed `B`, its first panel, the
/// tile's first row in the product, the product's shape, and the tile's
/// rows of `C`.
#[derive(Clone, Copy)]
struct Panels {
    bp: *const f64,
    q: usize,
    row0: usize,
    shape: Shape,
    c: *mut f64,
}

/// The `R × P` sums of panels `at.q .. at.q + P`, block of `k` after
/// block, each block's stored into `C` as the AVX2 form stores it.
///
/// # Safety
/// As [`tile`]'s; the `P` panels exist.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
unsafe fn group<const R: usize, const P: usize>(
    arows: &[*const f64; R],
    at: Panels,
    steps: &[Step<'_>],
    found: &mut Found,
) {
    let Shape {
        k,
        n,
        edge_row,
        edge_col,
    } = at.shape;
    let zero = _mm512_setzero_pd();
    // SAFETY: panel q + i starts at (q + i)·k·PANEL < packed_len(k, n).
    let panel: [*const f64; P] =
        std::array::from_fn(|i| unsafe { at.bp.add((at.q + i) * k * PANEL) });
    let mut p0 = 0;
    while p0 < k {
        let kc = MM_KC.min(k - p0);
        let mut acc = [[zero; P]; R];
        for p in p0..p0 + kc {
            // SAFETY: row p of each panel, and element p of each of the R
            // rows of `a`, are in their slices.
            unsafe {
                let b: [__m512d; P] =
                    std::array::from_fn(|i| _mm512_loadu_pd(panel[i].add(p * PANEL)));
                for (acc, row) in acc.iter_mut().zip(arows) {
                    let x = _mm512_set1_pd(*row.add(p));
                    for (s, &bi) in acc.iter_mut().zip(&b) {
                        *s = _mm512_fmadd_pd(x, bi, *s);
                    }
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            let row = at.row0 + r;
            for (i, &sum) in acc.iter().enumerate() {
                let j0 = (at.q + i) * PANEL;
                let width = PANEL.min(n - j0);
                // SAFETY: row r of `c`, columns j0 .. j0 + width.
                let crow = unsafe { at.c.add(r * n + j0) };
                let interior = row < edge_row && j0 + PANEL <= edge_col;
                if width == PANEL && (p0 == 0 || interior) {
                    // SAFETY: the 8 columns lie in the row; the steps'
                    // operands hold them.
                    unsafe {
                        let v = if p0 == 0 {
                            // The first block: `sum + 0`, then the steps.
                            let v = _mm512_add_pd(sum, zero);
                            if steps.is_empty() {
                                v
                            } else {
                                steps_on_8(steps, row, n, j0, v)
                            }
                        } else {
                            _mm512_add_pd(_mm512_loadu_pd(crow), sum)
                        };
                        found.lanes |= _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(v, v);
                        _mm512_storeu_pd(crow, v);
                    }
                    continue;
                }
                let mut sums = [0.0f64; PANEL];
                // SAFETY: `sums` holds the 8 lanes.
                unsafe { _mm512_storeu_pd(sums.as_mut_ptr(), sum) };
                for (jj, &s) in sums.iter().enumerate().take(width) {
                    let edge = row >= edge_row || j0 + jj >= edge_col;
                    // SAFETY: column j0 + jj < n of row r; the steps'
                    // operands hold it.
                    unsafe {
                        let at = crow.add(jj);
                        *at = if p0 == 0 {
                            steps_on_1(steps, row, n, j0 + jj, s + 0.0)
                        } else if edge {
                            *at + (s + 0.0)
                        } else {
                            *at + s
                        };
                        found.scalar |= (*at).is_nan();
                    }
                }
            }
        }
        p0 += kc;
    }
}

/// `steps` (in order) on the values `v` of row `row`, columns `j0 .. j0 +
/// 8`, of an `n`-column product: the AVX2 form's `steps_on_8` in one
/// register.
///
/// # Safety
/// The CPU has AVX-512F; each step's operand holds those columns.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
unsafe fn steps_on_8(
    steps: &[Step<'_>],
    row: usize,
    n: usize,
    j0: usize,
    mut v: __m512d,
) -> __m512d {
    for s in steps {
        // SAFETY: the operand holds row `row`'s columns j0 .. j0 + 8.
        let w = unsafe {
            match s.src {
                StepSrc::Full(d) => _mm512_loadu_pd(d.as_ptr().add(row * n + j0)),
                StepSrc::Row(d) => _mm512_loadu_pd(d.as_ptr().add(j0)),
                StepSrc::Scalar(x) => _mm512_set1_pd(x),
            }
        };
        let (x, y) = if s.product_first { (v, w) } else { (w, v) };
        v = match s.op {
            StepOp::Add => _mm512_add_pd(x, y),
            StepOp::Sub => _mm512_sub_pd(x, y),
            StepOp::Mul => _mm512_mul_pd(x, y),
        };
    }
    v
}
