//! The kernels of the stable reductions (`logsumexp`, `softmax`,
//! `log_softmax`) over blocks of memory, with vectorized `exp`.
//!
//! Owns: how these ops walk their data: an array read as `outer` blocks of
//! `extent x inner` elements, reduced or normalized along the middle axis.
//! A lane along a strided axis (`inner > 1`) is never gathered: the
//! kernels walk whole rows of a block of columns, so the loads are
//! contiguous and the columns' running maxima and sums sit side by side
//! in registers; contiguous lanes (`inner == 1`) are taken eight at a
//! time, element `i` of each gathered into a row, so that their sums are
//! independent chains. `exp` runs over tiles of shifted values
//! ([`vmath::exp_slice`] for `logsumexp`, inside this module's AVX2+FMA
//! compilation; [`vmath::map_slice_inplace`] for the normalizations), the
//! element function's bits many elements at a time. Each lane's
//! operations are those of the one-lane definitions,
//! [`logsumexp_of`] and [`normalize_lane`] — the maximum, the shift, each
//! `exp`, the sum of the exponentials from zero *in the lane's order*,
//! one `log` — so every executor (interpreter, plan, step tape) that calls
//! these kernels gets the definitions' bits, whatever the layout.
//! Must not: change a lane's summation order (the interpreter, the plan
//! and the step tape must agree bit for bit), or use an operation whose
//! result depends on the instruction set (see [`vmath`]).
//!
//! [`logsumexp_of`]: super::reduce::logsumexp_of
//! [`normalize_lane`]: super::reduce::normalize_lane

use super::reduce::logsumexp_of;
use super::vmath::{self, Func};
use crate::lang::NormOp;
use multiversion::multiversion;

/// Elements of the stack tiles `logsumexp` shifts and exponentiates at
/// once.
const TILE: usize = 256;

/// The two stack tiles of `logsumexp`: the shifted values and their
/// exponentials.
type Tiles = ([f64; TILE], [f64; TILE]);

/// Columns of a strided block walked together: their running maxima and
/// sums stay in registers (four AVX2 registers each) down the rows.
const COLS: usize = 16;

/// Lanes of a contiguous axis summed together: independent chains of
/// additions, each in its lane's order, so that one addition's latency
/// does not bound the loop.
const LANES: usize = 8;

/// The maximum of each column `c0..c0 + w` of the `rows` rows of `src`
/// (rows `inner` apart), folded in row order from `-inf` keeping the
/// earlier value on a tie (as [`logsumexp_of`] does), and whether a
/// column holds a NaN.
#[inline(always)]
fn column_max(src: &[f64], inner: usize, rows: usize, c0: usize, w: usize) -> ([f64; COLS], bool) {
    let mut m = [f64::NEG_INFINITY; COLS];
    let mut nan = false;
    for r in 0..rows {
        let row = &src[r * inner + c0..r * inner + c0 + w];
        for (mj, &v) in m.iter_mut().zip(row) {
            *mj = if v > *mj { v } else { *mj };
            nan |= v.is_nan();
        }
    }
    (m, nan)
}

/// The maximum of a lane (`-inf` for an empty one) and whether it holds a
/// NaN. The value is the lane's maximum; the sign of a zero maximum may
/// differ from an in-order fold's, which no result of these kernels
/// shows (a shift of ±0 gives the same differences but for a `-0`
/// element, whose `exp` is 1 either way; `log(s) ± 0` is `log(s)` since
/// `s ≥ 1`, and `(x - m) - log(s)` differs only when `s = 1`, when the
/// lane has a single zero and so one sign).
#[inline(always)]
fn lane_max(a: &[f64]) -> (f64, bool) {
    let mut m = [f64::NEG_INFINITY; LANES];
    let mut nan = false;
    let mut chunks = a.chunks_exact(LANES);
    for c in &mut chunks {
        for (mj, &v) in m.iter_mut().zip(c) {
            *mj = if v > *mj { v } else { *mj };
            nan |= v.is_nan();
        }
    }
    let mut best = f64::NEG_INFINITY;
    for &v in m.iter().chain(chunks.remainder()) {
        best = if v > best { v } else { best };
        nan |= v.is_nan();
    }
    (best, nan)
}

/// The shift of a lane whose maximum is `m`: `m`, or 0 when it is
/// infinite (`logsumexp` and `log_softmax`; `softmax` always shifts by
/// `m`).
#[inline(always)]
fn shift_of(m: f64, always: bool) -> f64 {
    if always || m.is_finite() {
        m
    } else {
        0.0
    }
}

/// `logsumexp` along the middle axis of `x`, read as blocks of `extent x
/// inner` elements, into `out` (`inner` per block): lane `(o, j)` is
/// `x[o * extent * inner + i * inner + j]` for `i < extent`. The bits of
/// [`logsumexp_of`] on each lane. `None` when `extent` is 0 or the
/// lengths do not match (`x` must hold `out.len() / inner` blocks).
pub fn logsumexp_blocks(x: &[f64], out: &mut [f64], extent: usize, inner: usize) -> Option<()> {
    if extent == 0 || inner == 0 || !out.len().is_multiple_of(inner) {
        return None;
    }
    let block = extent * inner;
    if x.len() != out.len() / inner * block {
        return None;
    }
    TILES.with(|cell| {
        let mut tiles = cell.borrow_mut();
        logsumexp_into(x, out, extent, inner, &mut tiles);
    });
    Some(())
}

thread_local! {
    /// The tiles of [`logsumexp_blocks`], kept from call to call (a step
    /// tape calls it on every step; zeroing fresh ones each time cost a
    /// tenth of the time).
    static TILES: std::cell::RefCell<Box<Tiles>> =
        std::cell::RefCell::new(Box::new(([0.0; TILE], [0.0; TILE])));
}

/// [`logsumexp_blocks`] once its arguments are checked.
// Compiled for AVX2+FMA too, chosen at run time: `exp`'s multiply-adds
// are instructions there (libm's `fma` in the baseline compilation, the
// same bits).
#[multiversion(targets("x86_64+avx2+fma"))]
fn logsumexp_into(x: &[f64], out: &mut [f64], extent: usize, inner: usize, tiles: &mut Tiles) {
    let block = extent * inner;
    if inner == 1 {
        logsumexp_lanes(x, out, extent, tiles);
        return;
    }
    for (src, dst) in x.chunks_exact(block).zip(out.chunks_exact_mut(inner)) {
        let mut c0 = 0;
        while c0 < inner {
            let w = match inner - c0 {
                n if n >= COLS => {
                    logsumexp_columns::<COLS>(
                        src,
                        inner,
                        extent,
                        c0,
                        &mut dst[c0..c0 + COLS],
                        tiles,
                    );
                    COLS
                }
                n if n >= 4 => {
                    logsumexp_columns::<4>(src, inner, extent, c0, &mut dst[c0..c0 + 4], tiles);
                    4
                }
                _ => {
                    logsumexp_columns::<1>(src, inner, extent, c0, &mut dst[c0..c0 + 1], tiles);
                    1
                }
            };
            c0 += w;
        }
    }
}

/// `logsumexp` down the `W` columns `c0..c0 + W` of the `extent` rows of
/// `src` (rows `inner` apart) into `dst` (`W` elements).
#[inline(always)]
fn logsumexp_columns<const W: usize>(
    src: &[f64],
    inner: usize,
    extent: usize,
    c0: usize,
    dst: &mut [f64],
    tiles: &mut Tiles,
) {
    let row = |r: usize| -> [f64; W] {
        let mut v = [0.0; W];
        v.copy_from_slice(&src[r * inner + c0..r * inner + c0 + W]);
        v
    };
    let at = |j: usize, i: usize| src[i * inner + c0 + j];
    logsumexp_rows(extent, row, at, dst, tiles);
}

/// `logsumexp` of `W` lanes of `extent` elements side by side, `row(i)`
/// holding element `i` of each (`at(j, i)` element `i` of lane `j`), into
/// `dst` (`W` elements): the running maxima, then the running sums of
/// the exponentials, a row of `W` values at a time (in registers, `exp`
/// over the row at once), the rows in order — [`logsumexp_of`]'s
/// operations on each lane.
#[inline(always)]
fn logsumexp_rows<const W: usize>(
    extent: usize,
    row: impl Fn(usize) -> [f64; W],
    at: impl Fn(usize, usize) -> f64,
    dst: &mut [f64],
    tiles: &mut Tiles,
) {
    let mut m = [f64::NEG_INFINITY; W];
    let mut nan = false;
    for r in 0..extent {
        let v = row(r);
        for (mj, &x) in m.iter_mut().zip(&v) {
            *mj = if x > *mj { x } else { *mj };
            nan |= x.is_nan();
        }
    }
    if nan {
        // The definition, lane by lane (NaN is rare).
        for (j, d) in dst.iter_mut().enumerate() {
            *d = logsumexp_of(extent, |i| at(j, i));
        }
        return;
    }
    let mut shift = [0.0; W];
    for (s, &mj) in shift.iter_mut().zip(&m) {
        *s = shift_of(mj, false);
    }
    // The rows tile by tile: shifted, exponentiated together (a loop the
    // compiler vectorizes), then added to the sums in order.
    let rows_per_tile = TILE / W;
    let mut sum = [0.0f64; W];
    let mut r0 = 0;
    while r0 < extent {
        let rn = (extent - r0).min(rows_per_tile);
        let (t, e) = (&mut tiles.0[..rn * W], &mut tiles.1[..rn * W]);
        for (k, trow) in t.chunks_exact_mut(W).enumerate() {
            let v = row(r0 + k);
            for ((d, &x), &s) in trow.iter_mut().zip(&v).zip(&shift) {
                *d = x - s;
            }
        }
        vmath::exp_slice(t, e);
        for erow in e.chunks_exact(W) {
            for (s, &v) in sum.iter_mut().zip(erow) {
                *s += v;
            }
        }
        r0 += rn;
    }
    for ((d, &s), &sh) in dst.iter_mut().zip(&sum).zip(&shift) {
        *d = vmath::log(s) + sh;
    }
}

/// `logsumexp` of each contiguous lane of `extent` elements of `x` into
/// `out`: [`LANES`] lanes side by side (element `i` of each gathered into
/// a row, so that their sums are independent chains of additions, each
/// in its lane's order), then the last ones one at a time.
#[inline(always)]
fn logsumexp_lanes(x: &[f64], out: &mut [f64], extent: usize, tiles: &mut Tiles) {
    for (src, dst) in x.chunks(extent * LANES).zip(out.chunks_mut(LANES)) {
        if dst.len() == LANES {
            let row = |i: usize| -> [f64; LANES] { std::array::from_fn(|l| src[l * extent + i]) };
            logsumexp_rows(extent, row, |l, i| src[l * extent + i], dst, tiles);
        } else {
            for (lane, d) in src.chunks_exact(extent).zip(dst.chunks_exact_mut(1)) {
                logsumexp_rows(extent, |i| [lane[i]], |_, i| lane[i], d, tiles);
            }
        }
    }
}

/// Softmax or log-softmax along the middle axis of `x`, read as blocks of
/// `extent x inner` elements, into `out` (the same shape): the bits of
/// [`normalize_lane`](super::reduce::normalize_lane) on each lane (a lane
/// holding NaN all NaN). Does nothing when the lengths do not match.
#[multiversion(targets("x86_64+avx2"))]
pub fn normalize_blocks(op: NormOp, x: &[f64], out: &mut [f64], extent: usize, inner: usize) {
    let block = extent * inner;
    if block == 0 || x.len() != out.len() || !x.len().is_multiple_of(block) {
        return;
    }
    let always = op == NormOp::Softmax;
    if inner == 1 {
        // LANES lanes at a time: their exponentials in one pass, then
        // their sums side by side (independent chains, each in its
        // lane's order); the last lanes the same way, fewer at a time.
        let group = extent * LANES;
        for (src, dst) in x.chunks(group).zip(out.chunks_mut(group)) {
            normalize_lanes(op, always, src, dst, extent);
        }
        return;
    }
    // Per column: the shift, the sum, whether it holds NaN.
    let mut shift = vec![0.0; inner];
    let mut sum = vec![0.0f64; inner];
    let mut nan = vec![false; inner];
    for (src, dst) in x.chunks_exact(block).zip(out.chunks_exact_mut(block)) {
        let mut c0 = 0;
        while c0 < inner {
            let w = (inner - c0).min(COLS);
            let (m, n) = column_max(src, inner, extent, c0, w);
            for j in 0..w {
                shift[c0 + j] = shift_of(m[j], always);
                nan[c0 + j] = n && (0..extent).any(|i| src[i * inner + c0 + j].is_nan());
            }
            c0 += w;
        }
        // e = exp(x - shift) in `dst`, then each column's sum in row order.
        for (drow, srow) in dst.chunks_exact_mut(inner).zip(src.chunks_exact(inner)) {
            for ((d, &v), &s) in drow.iter_mut().zip(srow).zip(&shift) {
                *d = v - s;
            }
        }
        vmath::map_slice_inplace(Func::Exp, dst);
        sum.fill(0.0);
        for drow in dst.chunks_exact(inner) {
            for (s, &e) in sum.iter_mut().zip(drow) {
                *s += e;
            }
        }
        sum.iter_mut().for_each(|s| *s = total_of(op, *s));
        finish_rows(op, src, dst, inner, &shift, &sum);
        for (j, _) in nan.iter().enumerate().filter(|(_, &n)| n) {
            for i in 0..extent {
                dst[i * inner + j] = f64::NAN;
            }
        }
    }
}

/// [`normalize_blocks`] of the contiguous lanes of `extent` elements in
/// `src` (at most [`LANES`] of them) into `dst`: each lane's maximum and
/// shift, all the shifted values exponentiated in one pass, then the
/// lanes' sums of the exponentials side by side, element `i` of each lane
/// added in turn (each sum in its lane's order), and each lane finished.
#[inline(always)]
fn normalize_lanes(op: NormOp, always: bool, src: &[f64], dst: &mut [f64], extent: usize) {
    let lanes = src.len() / extent;
    let mut shift = [0.0; LANES];
    let mut nan = [false; LANES];
    for (l, (s, d)) in src
        .chunks_exact(extent)
        .zip(dst.chunks_exact_mut(extent))
        .enumerate()
    {
        let (m, n) = lane_max(s);
        (shift[l], nan[l]) = (shift_of(m, always), n);
        for (d, &v) in d.iter_mut().zip(s) {
            *d = v - shift[l];
        }
    }
    vmath::map_slice_inplace(Func::Exp, dst);
    let mut sum = [0.0f64; LANES];
    if lanes == LANES {
        for i in 0..extent {
            for (l, s) in sum.iter_mut().enumerate() {
                *s += dst[l * extent + i];
            }
        }
    } else {
        for (s, d) in sum.iter_mut().zip(dst.chunks_exact(extent)) {
            for &e in d {
                *s += e;
            }
        }
    }
    for (l, (s, d)) in src
        .chunks_exact(extent)
        .zip(dst.chunks_exact_mut(extent))
        .enumerate()
    {
        if nan[l] {
            d.fill(f64::NAN);
        } else {
            finish_rows(op, s, d, 1, &[shift[l]], &[total_of(op, sum[l])]);
        }
    }
}

/// What the last pass of [`normalize_blocks`] needs of a lane's sum of
/// exponentials: the sum (softmax) or its `log` (log-softmax).
#[inline(always)]
fn total_of(op: NormOp, sum: f64) -> f64 {
    match op {
        NormOp::Softmax => sum,
        NormOp::LogSoftmax => vmath::log(sum),
    }
}

/// The last pass of [`normalize_blocks`] over a block's rows of `inner`
/// elements, `dst` holding the exponentials and `total` each column's
/// [`total_of`]: softmax divides each by its column's sum, log-softmax
/// writes `(x - shift) - log(sum)`.
#[inline(always)]
fn finish_rows(
    op: NormOp,
    src: &[f64],
    dst: &mut [f64],
    inner: usize,
    shift: &[f64],
    total: &[f64],
) {
    match op {
        NormOp::Softmax => {
            for drow in dst.chunks_exact_mut(inner) {
                for (d, &s) in drow.iter_mut().zip(total) {
                    *d /= s;
                }
            }
        }
        NormOp::LogSoftmax => {
            for (drow, srow) in dst.chunks_exact_mut(inner).zip(src.chunks_exact(inner)) {
                for (((d, &v), &s), &ls) in drow.iter_mut().zip(srow).zip(shift).zip(total) {
                    *d = (v - s) - ls;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::ops::reduce::normalize_strided;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// Values of mixed magnitudes (the summation order shows in the last
    /// bits), with signed zeros, huge ones, infinities and NaN (with a
    /// payload) sprinkled in when `specials`.
    fn data(n: usize, seed: u64, specials: bool) -> Vec<f64> {
        let nan2 = f64::from_bits(f64::NAN.to_bits() | 5);
        (0..n)
            .map(|i| {
                let t = (i as u64).wrapping_mul(2654435761).wrapping_add(seed) % 1009;
                let v = ((i as f64 + seed as f64) * 0.731).sin() * 10f64.powi((t % 7) as i32 - 3);
                if !specials {
                    return v;
                }
                match t % 97 {
                    1 => 0.0,
                    2 => -0.0,
                    3 => f64::NEG_INFINITY,
                    4 => 745.0 + v.abs(),
                    5 => -1e300,
                    6 if t.is_multiple_of(3) => f64::INFINITY,
                    7 if t.is_multiple_of(5) => nan2,
                    _ => v * 300.0,
                }
            })
            .collect()
    }

    /// Every (extent, inner, outer) around the kernels' block sizes.
    fn shapes() -> Vec<(usize, usize, usize)> {
        let mut s = vec![];
        for extent in [1usize, 2, 7, 8, 31, 32, 33, 64, 65, 100, 700] {
            for inner in [1usize, 2, 15, 16, 17, 32, 40] {
                for outer in [1usize, 3, 9] {
                    if extent * inner * outer <= 60_000 {
                        s.push((extent, inner, outer));
                    }
                }
            }
        }
        s
    }

    #[test]
    fn logsumexp_blocks_are_the_definitions_bits() {
        for (k, &(extent, inner, outer)) in shapes().iter().enumerate() {
            for specials in [false, true] {
                let x = data(outer * extent * inner, k as u64, specials);
                let mut got = vec![0.0; outer * inner];
                assert!(logsumexp_blocks(&x, &mut got, extent, inner).is_some());
                let want: Vec<f64> = (0..outer * inner)
                    .map(|l| {
                        let (o, j) = (l / inner, l % inner);
                        logsumexp_of(extent, |i| x[o * extent * inner + i * inner + j])
                    })
                    .collect();
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "{extent} x {inner}, {outer} blocks"
                );
            }
        }
        // Lanes of nothing but zeros of either sign, -inf and +inf.
        for lane in [
            vec![-0.0],
            vec![0.0],
            vec![-0.0, f64::NEG_INFINITY],
            vec![f64::NEG_INFINITY, -0.0, 0.0, -0.0],
            vec![f64::NEG_INFINITY; 3],
            vec![f64::NEG_INFINITY, f64::INFINITY],
            vec![-5e-324, -0.0],
        ] {
            let mut got = [0.0];
            logsumexp_blocks(&lane, &mut got, lane.len(), 1).unwrap();
            let want = logsumexp_of(lane.len(), |i| lane[i]);
            assert_eq!(got[0].to_bits(), want.to_bits(), "{lane:?}");
        }
        assert!(logsumexp_blocks(&[], &mut [], 0, 1).is_none());
        assert!(logsumexp_blocks(&[1.0; 5], &mut [0.0; 2], 2, 1).is_none());
    }

    #[test]
    fn normalize_blocks_are_the_definitions_bits() {
        for (k, &(extent, inner, outer)) in shapes().iter().enumerate() {
            for specials in [false, true] {
                let x = data(outer * extent * inner, 7 + k as u64, specials);
                for op in [NormOp::Softmax, NormOp::LogSoftmax] {
                    let mut got = vec![0.0; x.len()];
                    normalize_blocks(op, &x, &mut got, extent, inner);
                    let mut want = vec![0.0; x.len()];
                    for o in 0..outer {
                        for j in 0..inner {
                            let base = o * extent * inner + j;
                            normalize_strided(op, &x[base..], &mut want[base..], extent, inner);
                        }
                    }
                    assert_eq!(
                        bits(&got),
                        bits(&want),
                        "{op:?} {extent} x {inner} x {outer}"
                    );
                }
            }
        }
        for lane in [
            vec![-0.0],
            vec![0.0, f64::NEG_INFINITY],
            vec![-0.0, -1e-320],
            vec![f64::NEG_INFINITY; 2],
            vec![f64::INFINITY, 1.0],
        ] {
            for op in [NormOp::Softmax, NormOp::LogSoftmax] {
                let mut got = vec![0.0; lane.len()];
                normalize_blocks(op, &lane, &mut got, lane.len(), 1);
                let mut want = vec![0.0; lane.len()];
                normalize_strided(op, &lane, &mut want, lane.len(), 1);
                assert_eq!(bits(&got), bits(&want), "{op:?} {lane:?}");
            }
        }
    }
}
