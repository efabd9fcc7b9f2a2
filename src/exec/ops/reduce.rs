//! Reductions (`sum mean max min prod`, and `sum_to`, a sum back to a
//! shape that broadcasts) and running scans (`cumsum cumprod`).
//!
//! Owns: the reduction kernels and their summation order. Sums follow
//! NumPy's order on C-contiguous data, so results match NumPy bit for bit
//! there: reducing all axes or the last axis uses NumPy's pairwise summation
//! ([`pairwise_sum`]); reducing any other axis adds the slices along it in
//! order. Products and running scans are sequential. `max`/`min` propagate
//! NaN and reject an empty reduced axis. Must not: decide result dtypes.

use super::elementwise::{Arith, Float};
use super::normalize_axis;
use super::stable;
use super::vmath;
use crate::exec::value::{shape_str, with_elem, Elem, Value};
use crate::lang::{CumOp, DType, NormOp, ReduceOp};
use multiversion::multiversion;
use ndarray::{ArrayD, ArrayView1, ArrayViewD, Axis, IxDyn};

/// The longest run [`pairwise_sum`] adds without splitting it (a leaf of
/// its summation tree).
pub const PAIRWISE_LEAF: usize = 128;

/// Where the summation tree of [`pairwise_sum`] splits a run of `n >
/// PAIRWISE_LEAF` elements: the length of its first half (half, rounded
/// down to a multiple of 8).
#[inline(always)]
pub fn pairwise_split(n: usize) -> usize {
    let n2 = n / 2;
    n2 - n2 % 8
}

/// A leaf of the summation tree (`a.len() <= PAIRWISE_LEAF`): under 8
/// elements in order, else 8 interleaved accumulators combined as a tree,
/// then the last `len % 8` elements in order.
#[inline(always)]
fn leaf_sum<T: Arith>(a: &[T]) -> T {
    let n = a.len();
    if n < 8 {
        let mut res = T::zero();
        for &x in a {
            res = res.add(x);
        }
        return res;
    }
    let body = n - n % 8;
    let mut r = [T::zero(); 8];
    r.copy_from_slice(&a[..8]);
    // Whole chunks of 8, one per accumulator: the same additions in the
    // same order, lane by lane (so they vectorize).
    for c in a[8..body].chunks_exact(8) {
        for (rj, &x) in r.iter_mut().zip(c) {
            *rj = rj.add(x);
        }
    }
    // The accumulators pass through memory here: without it the compiler
    // lays them out for the pairwise combination below (even and odd
    // lanes) and shuffles every chunk of the loop into that layout.
    let r = std::hint::black_box(r);
    let mut res = (r[0].add(r[1]).add(r[2].add(r[3]))).add(r[4].add(r[5]).add(r[6].add(r[7])));
    for &x in &a[body..] {
        res = res.add(x);
    }
    res
}

/// A leaf of the summation tree of `a` reversed, reading `a` backwards:
/// the additions of [`leaf_sum`] on the reversed elements, in the same
/// order (reversed element `i` is `a[n - 1 - i]`).
#[inline(always)]
fn leaf_sum_rev<T: Arith>(a: &[T]) -> T {
    let n = a.len();
    if n < 8 {
        let mut res = T::zero();
        for &x in a.iter().rev() {
            res = res.add(x);
        }
        return res;
    }
    // The accumulators in mirrored order: `m[7 - j]` is accumulator j, so
    // each chunk adds lane by lane (no permutation) with the same operands
    // in the same order.
    let mut m = [T::zero(); 8];
    m.copy_from_slice(&a[n - 8..]);
    let body = n - n % 8;
    // Reversed elements 8..body are a[n - body..n - 8], backwards, in
    // chunks of 8 from the end: reversed element 8c + j is chunk c's
    // element 7 - j, added into accumulator j = m[7 - j].
    for c in a[n - body..n - 8].rchunks_exact(8) {
        for (mk, &x) in m.iter_mut().zip(c) {
            *mk = mk.add(x);
        }
    }
    // Through memory, as in `leaf_sum`.
    let m = std::hint::black_box(m);
    let mut res = (m[7].add(m[6]).add(m[5].add(m[4]))).add(m[3].add(m[2]).add(m[1].add(m[0])));
    for &x in a[..n - body].iter().rev() {
        res = res.add(x);
    }
    res
}

/// A pending node of the summation tree while [`tree_sum`] walks it: the
/// range of its second half and, once known, the sum of its first.
#[derive(Clone, Copy)]
struct Pending<T> {
    start: usize,
    len: usize,
    first: Option<T>,
}

/// The most pending nodes [`tree_sum`] keeps: enough for any block the
/// fused groups sum (each level halves a run, so 16 levels reach the
/// leaves of runs of up to 7 million elements); deeper subtrees are
/// summed by a call of their own.
const TREE_DEPTH: usize = 16;

/// The sum over the summation tree of `n` elements (split by
/// [`pairwise_split`] down to leaves of at most [`PAIRWISE_LEAF`]):
/// `leaf(start, len)` sums a leaf, `subtree(start, len)` a subtree below
/// the stack's depth, and the halves of a node are added first + second.
/// This is the recursion of NumPy's pairwise summation walked with a
/// small stack of pending nodes, so that it runs inside one compiled
/// version of its caller.
#[inline(always)]
pub(crate) fn tree_sum<T: Arith>(
    n: usize,
    mut leaf: impl FnMut(usize, usize) -> T,
    mut subtree: impl FnMut(usize, usize) -> T,
) -> T {
    if n <= PAIRWISE_LEAF {
        return leaf(0, n);
    }
    let mut stack: [Pending<T>; TREE_DEPTH] = [Pending {
        start: 0,
        len: 0,
        first: None,
    }; TREE_DEPTH];
    let mut depth = 0;
    let (mut start, mut len) = (0, n);
    loop {
        while len > PAIRWISE_LEAF && depth < TREE_DEPTH {
            let n2 = pairwise_split(len);
            stack[depth] = Pending {
                start: start + n2,
                len: len - n2,
                first: None,
            };
            depth += 1;
            len = n2;
        }
        let mut v = if len <= PAIRWISE_LEAF {
            leaf(start, len)
        } else {
            subtree(start, len)
        };
        loop {
            if depth == 0 {
                return v;
            }
            let top = &mut stack[depth - 1];
            match top.first {
                Some(first) => {
                    v = first.add(v);
                    depth -= 1;
                }
                None => {
                    top.first = Some(v);
                    start = top.start;
                    len = top.len;
                    break;
                }
            }
        }
    }
}

/// NumPy's pairwise summation (`pairwise_sum` in its loops): runs under 8
/// elements are summed in order, runs up to 128 with 8 interleaved
/// accumulators, longer runs are split in two at a multiple of 8.
// Compiled for AVX2 too, chosen at run time: the same additions in the
// same order (no fused multiply-add), twice as wide.
#[multiversion(targets("x86_64+avx2"))]
pub fn pairwise_sum<T: Arith>(a: &[T]) -> T {
    tree_sum(
        a.len(),
        |s, l| leaf_sum(&a[s..s + l]),
        |s, l| pairwise_sum(&a[s..s + l]),
    )
}

/// [`pairwise_sum`] of `a` reversed, reading `a` backwards: the same
/// additions in the same order.
#[multiversion(targets("x86_64+avx2"))]
pub fn pairwise_sum_rev<T: Arith>(a: &[T]) -> T {
    let n = a.len();
    // Reversed elements `s..s + l` are `a[n - s - l..n - s]`.
    tree_sum(
        n,
        |s, l| leaf_sum_rev(&a[n - s - l..n - s]),
        |s, l| pairwise_sum_rev(&a[n - s - l..n - s]),
    )
}

/// [`pairwise_sum_rev`] of each range `a..b` of `ranges` (offsets into
/// `x` plus `offset`), into `out` in order: one call for the many short
/// runs a reversed sum collects block by block.
#[multiversion(targets("x86_64+avx2"))]
pub fn pairwise_sums_rev<T: Arith>(
    x: &[T],
    offset: usize,
    ranges: &[(usize, usize)],
    out: &mut [T],
) {
    for (o, &(a, b)) in out.iter_mut().zip(ranges) {
        let run = &x[a - offset..b - offset];
        *o = if run.len() <= PAIRWISE_LEAF {
            leaf_sum_rev(run)
        } else {
            pairwise_sum_rev(run)
        };
    }
}

/// Pairwise sum of a 1-D view (copied when not contiguous).
fn lane_sum<T: Arith>(lane: ArrayView1<T>) -> T {
    match lane.as_slice() {
        Some(s) => pairwise_sum(s),
        None => pairwise_sum(&lane.to_vec()),
    }
}

fn sum_t<T: Arith>(a: &ArrayViewD<T>, axis: Option<usize>) -> ArrayD<T> {
    match axis {
        None => {
            let std = a.as_standard_layout();
            let s = match std.as_slice() {
                Some(s) => pairwise_sum(s),
                None => pairwise_sum(&std.iter().copied().collect::<Vec<_>>()),
            };
            ArrayD::from_elem(IxDyn(&[]), s)
        }
        Some(ax) if ax + 1 == a.ndim() => a.as_standard_layout().map_axis(Axis(ax), lane_sum),
        Some(ax) => a.fold_axis(Axis(ax), T::zero(), |&acc, &x| acc.add(x)),
    }
}

fn prod_t<T: Arith>(a: &ArrayViewD<T>, axis: Option<usize>) -> ArrayD<T> {
    match axis {
        None => {
            let p = a
                .as_standard_layout()
                .iter()
                .fold(T::one(), |acc, &x| acc.mul(x));
            ArrayD::from_elem(IxDyn(&[]), p)
        }
        Some(ax) => a.fold_axis(Axis(ax), T::one(), |&acc, &x| acc.mul(x)),
    }
}

/// The fold of the non-empty `a` with NumPy's NaN-propagating maximum
/// (`max`) or minimum from its first element, in order — the bits of
/// `a[1..].fold(a[0], maximum)` — computed in lanes: the result is the
/// first NaN when there is one; otherwise the extreme value, which has
/// one bit pattern unless it is a zero, and then the sign of the last
/// zero (a tie keeps the later operand, as NumPy's `maximum`). `None`
/// for an empty slice.
#[multiversion(targets("x86_64+avx2"))]
pub fn fold_extreme(a: &[f64], max: bool) -> Option<f64> {
    const LANES: usize = 8;
    a.first()?;
    let mut m = [if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    }; LANES];
    let mut nan = [false; LANES];
    let mut chunks = a.chunks_exact(LANES);
    for c in &mut chunks {
        for ((m, n), &v) in m.iter_mut().zip(&mut nan).zip(c) {
            // A NaN `v` is never taken (both compares are false).
            let better = if max { v > *m } else { v < *m };
            *m = if better { v } else { *m };
            *n |= v.is_nan();
        }
    }
    let mut best = m[0];
    let mut any_nan = nan.iter().any(|&n| n);
    for &v in m[1..].iter().chain(chunks.remainder()) {
        any_nan |= v.is_nan();
        if (max && v > best) || (!max && v < best) {
            best = v;
        }
    }
    if any_nan {
        return a.iter().copied().find(|v| v.is_nan());
    }
    if best == 0.0 {
        return a.iter().rev().copied().find(|&v| v == 0.0);
    }
    // Not a zero (every element infinite included): one bit pattern.
    Some(best)
}

/// SciPy's `logsumexp` of the `n` elements `at(0)`, ..., `at(n - 1)`:
/// `m + log(Σ exp(x - m))` with `m` their maximum, or 0 when that is
/// infinite (a row of `-inf` gives `-inf`, one holding `+inf` gives
/// `+inf`); NaN when one is NaN. The sum is taken in order (no buffer:
/// the step tape calls it on every step), `exp` and `log` are the `exp`
/// and `log` ops' own. The one definition both executors use.
pub fn logsumexp_of(n: usize, at: impl Fn(usize) -> f64) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for i in 0..n {
        let v = at(i);
        if v.is_nan() {
            return v;
        }
        if v > m {
            m = v;
        }
    }
    let shift = if m.is_finite() { m } else { 0.0 };
    let mut s = 0.0;
    for i in 0..n {
        s += vmath::scalar(vmath::Func::Exp, at(i) - shift);
    }
    vmath::log(s) + shift
}

/// `logsumexp` over `axis` (or all axes) of a float array, by the block
/// kernel ([`stable::logsumexp_blocks`], the bits of [`logsumexp_of`] on
/// each lane); the caller has checked that the reduced extent is not
/// empty where the result has elements.
fn logsumexp_t(a: &ArrayViewD<f64>, axis: Option<usize>) -> ArrayD<f64> {
    let (shape, extent, inner) = match axis {
        None => (vec![], a.len(), 1),
        Some(ax) => {
            let mut shape = a.shape().to_vec();
            let extent = shape.remove(ax);
            (shape, extent, a.shape()[ax + 1..].iter().product())
        }
    };
    let len: usize = shape.iter().product();
    let mut out = vec![0.0; len];
    if len > 0 {
        let std = a.as_standard_layout();
        let data: std::borrow::Cow<[f64]> = match std.as_slice() {
            Some(d) => d.into(),
            None => std.iter().copied().collect::<Vec<_>>().into(),
        };
        if stable::logsumexp_blocks(&data, &mut out, extent, inner).is_none() {
            out.fill(f64::NAN);
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), out).unwrap_or_else(|_| ArrayD::zeros(IxDyn(&[0])))
}

/// The index of the first maximum (`max`) or minimum of a lane, NaN
/// counting as the extreme (the first NaN's index), as NumPy's `argmax`.
/// `None` for an empty lane.
pub fn arg_extreme<T: Arith + PartialOrd>(lane: impl Iterator<Item = T>, max: bool) -> Option<i64> {
    let mut best: Option<(usize, T)> = None;
    for (i, v) in lane.enumerate() {
        if v.is_nan() {
            return i64::try_from(i).ok();
        }
        let better = match best {
            None => true,
            Some((_, b)) => (max && v > b) || (!max && v < b),
        };
        if better {
            best = Some((i, v));
        }
    }
    best.and_then(|(i, _)| i64::try_from(i).ok())
}

/// [`arg_extreme`] of a contiguous `f64` lane: the extreme found by the
/// lane kernel ([`fold_extreme`], vectorized), then its first position
/// (the first NaN's when it is NaN; -0 and +0 tie, as in NumPy).
fn arg_extreme_slice(s: &[f64], max: bool) -> Option<i64> {
    let best = fold_extreme(s, max)?;
    let at = if best.is_nan() {
        s.iter().position(|v| v.is_nan())
    } else {
        s.iter().position(|&v| v == best)
    };
    at.and_then(|i| i64::try_from(i).ok())
}

/// `argmax`/`argmin` of `f64`: contiguous lanes by [`arg_extreme_slice`],
/// others as every dtype.
fn arg_extreme_f64(a: &ArrayViewD<f64>, axis: Option<usize>, max: bool) -> ArrayD<i64> {
    let lane = |l: ndarray::ArrayView1<f64>| match l.as_slice() {
        Some(s) => arg_extreme_slice(s, max),
        None => arg_extreme(l.iter().copied(), max),
    };
    match (axis, a.as_slice()) {
        (None, Some(s)) => ArrayD::from_elem(IxDyn(&[]), arg_extreme_slice(s, max).unwrap_or(0)),
        (None, None) => arg_extreme_t(a, None, max),
        (Some(ax), _) => a.map_axis(Axis(ax), |l| lane(l).unwrap_or(0)),
    }
}

fn arg_extreme_t<T: Arith + PartialOrd>(
    a: &ArrayViewD<T>,
    axis: Option<usize>,
    max: bool,
) -> ArrayD<i64> {
    match axis {
        None => ArrayD::from_elem(IxDyn(&[]), arg_extreme(a.iter().copied(), max).unwrap_or(0)),
        Some(ax) => a.map_axis(Axis(ax), |lane| {
            arg_extreme(lane.iter().copied(), max).unwrap_or(0)
        }),
    }
}

/// `all` (`every`) or `any` of the elements' truth (non-zero; NaN is
/// true), over `axis` or all axes.
fn truth_t<T: Arith>(a: &ArrayViewD<T>, axis: Option<usize>, every: bool) -> ArrayD<bool> {
    let truth = |v: &T| *v != T::zero();
    match axis {
        None => ArrayD::from_elem(
            IxDyn(&[]),
            if every {
                a.iter().all(truth)
            } else {
                a.iter().any(truth)
            },
        ),
        Some(ax) => a.map_axis(Axis(ax), |lane| {
            if every {
                lane.iter().all(truth)
            } else {
                lane.iter().any(truth)
            }
        }),
    }
}

/// Max or min; the caller has checked that the reduced extent is not empty.
fn extreme_t<T: Arith>(a: &ArrayViewD<T>, axis: Option<usize>, max: bool) -> ArrayD<T> {
    let pick = |x: T, y: T| if max { x.maximum(y) } else { x.minimum(y) };
    match axis {
        None => {
            let mut it = a.iter();
            let first = it.next().copied().unwrap_or_else(T::zero);
            let m = it.fold(first, |acc, &x| pick(acc, x));
            ArrayD::from_elem(IxDyn(&[]), m)
        }
        Some(ax) => {
            let mut sub = a.axis_iter(Axis(ax));
            let mut res = match sub.next() {
                Some(first) => first.to_owned(),
                None => {
                    let mut s = a.shape().to_vec();
                    s.remove(ax);
                    return ArrayD::from_elem(IxDyn(&s), T::zero());
                }
            };
            for s in sub {
                res.zip_mut_with(&s, |r, &x| *r = pick(*r, x));
            }
            res
        }
    }
}

fn mean_t<F: Float>(a: &ArrayViewD<F>, axis: Option<usize>) -> ArrayD<F> {
    let n = match axis {
        None => a.len(),
        Some(ax) => a.len_of(Axis(ax)),
    };
    let count = F::from_f64(n as f64);
    sum_t(a, axis).mapv_into(|s| s.div(count))
}

/// A reduction over `axis` (negative counts from the end) or all axes,
/// with result dtype `out`. Max, min, their arg forms and logsumexp of an
/// empty extent are errors when the result has an element (NumPy's
/// error; an empty result is empty). Sums and products compute in `out` (so bool
/// and i64 sum in wrapping i64); `mean` computes in `out`'s float type.
pub fn reduce(op: ReduceOp, x: &Value, axis: Option<i64>, out: DType) -> Result<Value, String> {
    let axis = match axis {
        Some(a) => Some(normalize_axis(a, x.ndim())?),
        None => None,
    };
    let extent = match axis {
        Some(ax) => x.shape()[ax],
        None => x.len(),
    };
    // The result's elements: an empty extent has no maximum (an error,
    // as NumPy's) only where a result element asks for one; with none
    // (a loop's rows of length 0 over 0 steps, pushed out of the loop)
    // the result is empty, as the loop's.
    let lanes: usize = match axis {
        Some(ax) => x
            .shape()
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != ax)
            .map(|(_, &n)| n)
            .product(),
        None => 1,
    };
    match op {
        ReduceOp::Sum => Ok(with_elem!(out, T => T::wrap(sum_t(&x.to_array::<T>().view(), axis)))),
        ReduceOp::Prod => {
            Ok(with_elem!(out, T => T::wrap(prod_t(&x.to_array::<T>().view(), axis))))
        }
        ReduceOp::Mean => {
            let v = if out == DType::F32 {
                Value::F32(mean_t(&x.to_array::<f32>().view(), axis))
            } else {
                Value::F64(mean_t(&x.to_array::<f64>().view(), axis))
            };
            Ok(v.into_dtype(out))
        }
        ReduceOp::Argmax | ReduceOp::Argmin => {
            let max = op == ReduceOp::Argmax;
            if extent == 0 && lanes > 0 {
                let name = if max { "argmax" } else { "argmin" };
                return Err(format!("attempt to get {name} of an empty sequence"));
            }
            let idx = match x {
                Value::F64(a) => arg_extreme_f64(&a.view(), axis, max),
                _ => {
                    with_elem!(x.dtype(), T => arg_extreme_t(&x.to_array::<T>().view(), axis, max))
                }
            };
            Ok(Value::I64(idx))
        }
        ReduceOp::All | ReduceOp::Any => {
            let every = op == ReduceOp::All;
            let t = with_elem!(x.dtype(), T => truth_t(&x.to_array::<T>().view(), axis, every));
            Ok(Value::Bool(t))
        }
        ReduceOp::LogSumExp => {
            if extent == 0 && lanes > 0 {
                return Err(
                    "zero-size array to reduction operation logsumexp which has no identity".into(),
                );
            }
            let v = logsumexp_t(&x.to_array::<f64>().view(), axis);
            Ok(Value::F64(v).into_dtype(out))
        }
        ReduceOp::Max | ReduceOp::Min => {
            let max = op == ReduceOp::Max;
            if extent == 0 && lanes > 0 {
                let name = if max { "maximum" } else { "minimum" };
                return Err(format!(
                    "zero-size array to reduction operation {name} which has no identity"
                ));
            }
            // A whole f64 array in memory order: the lane kernel (the
            // same bits).
            if let (None, DType::F64, Value::F64(a)) = (axis, out, x) {
                if let Some(m) = a.as_slice().and_then(|d| fold_extreme(d, max)) {
                    return Ok(Value::F64(ArrayD::from_elem(IxDyn(&[]), m)));
                }
            }
            Ok(with_elem!(out, T => T::wrap(extreme_t(&x.to_array::<T>().view(), axis, max))))
        }
    }
}

/// `(sum_to G X)`: `g` summed to `shape` (`X`'s), in `out`. `shape` must
/// broadcast to `g`'s: the leading extra axes of `g` are summed away,
/// then each axis where `shape` has 1 and `g` has not is summed keeping
/// a length-1 axis.
pub fn sum_to(g: &Value, shape: &[usize], out: DType) -> Result<Value, String> {
    let gs = g.shape();
    let bad = || {
        format!(
            "the shape {} of X does not broadcast to the shape {} of G",
            shape_str(shape),
            shape_str(gs)
        )
    };
    let lead = gs.len().checked_sub(shape.len()).ok_or_else(bad)?;
    if shape
        .iter()
        .zip(&gs[lead..])
        .any(|(&x, &d)| x != d && x != 1)
    {
        return Err(bad());
    }
    Ok(with_elem!(out, T => {
        let a = g.to_array::<T>();
        let mut r: Option<ArrayD<T>> = None;
        for _ in 0..lead {
            let next = match &r {
                Some(v) => sum_t(&v.view(), Some(0)),
                None => sum_t(&a.view(), Some(0)),
            };
            r = Some(next);
        }
        for (k, &x) in shape.iter().enumerate() {
            let cur = r.as_ref().map_or(a.shape()[lead + k], |v| v.shape()[k]);
            if x == 1 && cur != 1 {
                let next = match &r {
                    Some(v) => sum_t(&v.view(), Some(k)),
                    None => sum_t(&a.view(), Some(lead + k)),
                };
                r = Some(next.insert_axis(Axis(k)));
            }
        }
        T::wrap(r.unwrap_or_else(|| a.into_owned()))
    }))
}

fn cumulative_t<T: Arith>(a: &ArrayViewD<T>, ax: usize, op: CumOp) -> ArrayD<T> {
    let f = match op {
        CumOp::Cumsum => T::add,
        CumOp::Cumprod => T::mul,
    };
    let mut out = a.as_standard_layout().into_owned();
    let n = out.len_of(Axis(ax));
    let mut view = out.view_mut();
    for i in 1..n {
        let (head, mut tail) = view.view_mut().split_at(Axis(ax), i);
        let prev = head.index_axis(Axis(ax), i - 1);
        let mut cur = tail.index_axis_mut(Axis(ax), 0);
        cur.zip_mut_with(&prev, |c, &p| *c = f(p, *c));
    }
    out
}

/// SciPy's `softmax` or `log_softmax` of one lane (`x` in, `out` out, the
/// same length): `m` the lane's maximum (for log-softmax 0 when that is
/// infinite, as SciPy: a lane of `-inf` then gives NaN, as softmax's
/// does); `e_i = exp(x_i - m)`, `s` their sum in order; softmax `e_i /
/// s`, log-softmax `(x_i - m) - log(s)`. A lane holding NaN is NaN.
pub fn normalize_lane(op: NormOp, x: &[f64], out: &mut [f64]) {
    normalize_strided(op, x, out, x.len().min(out.len()), 1);
}

/// [`normalize_lane`] of the lane `x[0], x[stride], ...` (`extent`
/// elements) into `out[0], out[stride], ...`: the same operations in the
/// same order, so the same bits as the lane gathered. `x` and `out` must
/// hold `(extent - 1) * stride + 1` elements.
pub fn normalize_strided(op: NormOp, x: &[f64], out: &mut [f64], extent: usize, stride: usize) {
    let at = |k: usize| k * stride;
    let lane = || (0..extent).map(|k| x[at(k)]);
    if lane().any(|v| v.is_nan()) {
        (0..extent).for_each(|k| out[at(k)] = f64::NAN);
        return;
    }
    let m = lane().fold(f64::NEG_INFINITY, f64::max);
    let shift = if m.is_finite() || op == NormOp::Softmax {
        m
    } else {
        0.0
    };
    let mut s = 0.0;
    for k in 0..extent {
        let e = vmath::scalar(vmath::Func::Exp, x[at(k)] - shift);
        out[at(k)] = e;
        s += e;
    }
    match op {
        NormOp::Softmax => (0..extent).for_each(|k| out[at(k)] /= s),
        NormOp::LogSoftmax => {
            let ls = vmath::log(s);
            for k in 0..extent {
                out[at(k)] = (x[at(k)] - shift) - ls;
            }
        }
    }
}

/// Softmax or log-softmax along `axis` (negative counts from the end), in
/// `f64` then the float result dtype `out`: by the block kernel
/// ([`stable::normalize_blocks`], the bits of [`normalize_lane`] on each
/// lane).
pub fn normalize(op: NormOp, x: &Value, axis: i64, out: DType) -> Result<Value, String> {
    let ax = normalize_axis(axis, x.ndim())?;
    let a = x.to_array::<f64>();
    let src = a.as_standard_layout();
    let extent = src.shape()[ax];
    let inner = src.shape()[ax + 1..].iter().product();
    let data: std::borrow::Cow<[f64]> = match src.as_slice() {
        Some(d) => d.into(),
        None => src.iter().copied().collect::<Vec<_>>().into(),
    };
    let mut res = vec![0.0; data.len()];
    stable::normalize_blocks(op, &data, &mut res, extent, inner);
    let res = ArrayD::from_shape_vec(IxDyn(src.shape()), res).map_err(|e| e.to_string())?;
    Ok(Value::F64(res).into_dtype(out))
}

/// A running sum or product along `axis` (negative counts from the end),
/// computed in the result dtype `out` (bool gives i64).
pub fn cumulative(op: CumOp, x: &Value, axis: i64, out: DType) -> Result<Value, String> {
    let ax = normalize_axis(axis, x.ndim())?;
    Ok(with_elem!(out, T => T::wrap(cumulative_t(&x.to_array::<T>().view(), ax, op))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    fn f(v: &[f64], shape: &[usize]) -> Value {
        Value::F64(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }
    fn i(v: &[i64], shape: &[usize]) -> Value {
        Value::I64(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }
    fn b(v: &[bool], shape: &[usize]) -> Value {
        Value::Bool(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }
    /// 0.1 * arange(n) reshaped.
    fn tenth(shape: &[usize]) -> Value {
        let n: usize = shape.iter().product();
        f(&(0..n).map(|k| 0.1 * k as f64).collect::<Vec<_>>(), shape)
    }

    #[test]
    fn sums_match_numpy_bits() {
        // x = 0.5 * np.sin(0.37 * np.arange(1200.0)).reshape(4, 300) (the
        // data rule for k = 0); NumPy's pairwise sums differ from sequential
        // ones in the last bits, e.g. x.sum() == 2.2324311600223554 where a
        // sequential loop gives 2.232431160022356.
        let x = crate::exec::gen::generate(0, DType::F64, &[4, 300], 1.0);
        assert_eq!(
            reduce(ReduceOp::Sum, &x, None, DType::F64).unwrap(),
            Value::scalar_f64(2.2324311600223554)
        );
        let s = reduce(ReduceOp::Sum, &x, Some(-1), DType::F64).unwrap();
        let want = [
            2.2233859074676396,
            -0.4435897309691921,
            -1.7775389088080862,
            2.230173892331994,
        ];
        assert_eq!(s, f(&want, &[4]));
        let s0 = reduce(ReduceOp::Sum, &x, Some(0), DType::F64)
            .unwrap()
            .as_f64_array();
        assert_eq!(s0[7], 0.26456503032876283);
        let m = reduce(ReduceOp::Mean, &x, Some(1), DType::F64).unwrap();
        let want = [
            0.007411286358225465,
            -0.0014786324365639737,
            -0.005925129696026954,
            0.007433912974439979,
        ];
        assert_eq!(m, f(&want, &[4]));
        // y = same rule reshaped (6, 5, 4): y.sum(axis=1)[2, 3], y.sum(axis=-1)[5, 4]
        let y = crate::exec::gen::generate(0, DType::F64, &[6, 5, 4], 1.0);
        let s1 = reduce(ReduceOp::Sum, &y, Some(1), DType::F64)
            .unwrap()
            .as_f64_array();
        assert_eq!(s1[[2, 3]], -0.008031626332582364);
        let s2 = reduce(ReduceOp::Sum, &y, Some(-1), DType::F64)
            .unwrap()
            .as_f64_array();
        assert_eq!(s2[[5, 4]], -0.8904224333038009);
    }

    /// NumPy's pairwise summation as its C source writes it (recursive),
    /// for the kernels to be compared with.
    fn numpy_pairwise(a: &[f64]) -> f64 {
        let n = a.len();
        if n < 8 {
            a.iter().fold(0.0, |s, &x| s + x)
        } else if n <= 128 {
            let mut r = [0.0; 8];
            r.copy_from_slice(&a[..8]);
            let mut i = 8;
            while i < n - n % 8 {
                for j in 0..8 {
                    r[j] += a[i + j];
                }
                i += 8;
            }
            let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            while i < n {
                res += a[i];
                i += 1;
            }
            res
        } else {
            let mut n2 = n / 2;
            n2 -= n2 % 8;
            numpy_pairwise(&a[..n2]) + numpy_pairwise(&a[n2..])
        }
    }

    #[test]
    fn pairwise_kernels_add_in_numpys_order() {
        // Mixed magnitudes, so that any other order shows in the last bits.
        for n in [
            0usize, 1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 136, 255, 256, 257, 1000, 1023, 1024,
            1025, 4097, 20011, 199_999, 9_000_001,
        ] {
            let x: Vec<f64> = (0..n)
                .map(|i| {
                    let t = i as f64;
                    (t * 0.7).sin() * 10f64.powi((i % 17) as i32 - 8) + 1.0 / (t + 3.0)
                })
                .collect();
            let want = numpy_pairwise(&x);
            assert_eq!(pairwise_sum(&x).to_bits(), want.to_bits(), "n = {n}");
            let rev: Vec<f64> = x.iter().rev().copied().collect();
            let want_rev = numpy_pairwise(&rev);
            assert_eq!(
                pairwise_sum_rev(&x).to_bits(),
                want_rev.to_bits(),
                "n = {n}"
            );
            if n >= 20011 {
                // The order shows: a sequential sum differs.
                assert_ne!(want.to_bits(), x.iter().sum::<f64>().to_bits(), "n = {n}");
            }
        }
    }

    #[test]
    fn integer_and_bool_reductions() {
        let x = i(&[1, 2, 3, 4, 5, 6], &[2, 3]);
        assert_eq!(
            reduce(ReduceOp::Sum, &x, Some(-2), DType::I64).unwrap(),
            i(&[5, 7, 9], &[3])
        );
        assert_eq!(
            reduce(ReduceOp::Prod, &x, Some(1), DType::I64).unwrap(),
            i(&[6, 120], &[2])
        );
        assert_eq!(
            reduce(ReduceOp::Mean, &x, None, DType::F64).unwrap(),
            Value::scalar_f64(3.5)
        );
        assert_eq!(
            reduce(ReduceOp::Max, &x, Some(-1), DType::I64).unwrap(),
            i(&[3, 6], &[2])
        );
        let w = i(&[i64::MAX, 1], &[2]);
        assert_eq!(
            reduce(ReduceOp::Sum, &w, None, DType::I64).unwrap(),
            Value::scalar_i64(i64::MIN)
        );
        let p = b(&[true, false, true, true], &[2, 2]);
        assert_eq!(
            reduce(ReduceOp::Sum, &p, None, DType::I64).unwrap(),
            Value::scalar_i64(3)
        );
        assert_eq!(
            reduce(ReduceOp::Sum, &p, Some(0), DType::I64).unwrap(),
            i(&[2, 1], &[2])
        );
        assert_eq!(
            reduce(ReduceOp::Max, &p, Some(1), DType::Bool).unwrap(),
            b(&[true, true], &[2])
        );
        assert_eq!(
            reduce(ReduceOp::Min, &p, Some(1), DType::Bool).unwrap(),
            b(&[false, true], &[2])
        );
        assert_eq!(
            reduce(ReduceOp::Prod, &p, None, DType::I64).unwrap(),
            Value::scalar_i64(0)
        );
    }

    #[test]
    fn lane_extremes_keep_the_ordered_folds_bits() {
        // Signed zeros, NaNs with payloads, infinities and ties, at every
        // length around the lane count: the bits of the ordered fold.
        let nan2 = f64::from_bits(f64::NAN.to_bits() | 7);
        let pool = [
            0.0,
            -0.0,
            1.5,
            -1.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            nan2,
            3.0,
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in 1..40 {
            for _ in 0..300 {
                // Mostly zeros and ordinary values, sometimes the rest.
                let a: Vec<f64> = (0..len)
                    .map(|_| {
                        let r = next();
                        let k = if r % 5 == 0 {
                            (r >> 8) % 9
                        } else {
                            (r >> 8) % 4
                        };
                        pool[k as usize]
                    })
                    .collect();
                for max in [true, false] {
                    let want = a[1..].iter().fold(a[0], |acc, &v| {
                        if max {
                            Arith::maximum(acc, v)
                        } else {
                            Arith::minimum(acc, v)
                        }
                    });
                    let got = fold_extreme(&a, max).unwrap();
                    assert_eq!(got.to_bits(), want.to_bits(), "{a:?} max={max}");
                    // argmax/argmin's fast path: the first extreme's index
                    assert_eq!(
                        arg_extreme_slice(&a, max),
                        arg_extreme(a.iter().copied(), max),
                        "{a:?} max={max}"
                    );
                }
            }
        }
        assert_eq!(fold_extreme(&[], true), None);
    }

    #[test]
    fn nan_and_empty() {
        let nan = f64::NAN;
        let x = f(&[1.0, nan, 3.0, 4.0], &[2, 2]);
        let m = reduce(ReduceOp::Max, &x, Some(0), DType::F64)
            .unwrap()
            .as_f64_array();
        assert!(m[1].is_nan() && m[0] == 3.0);
        let m = reduce(ReduceOp::Min, &x, None, DType::F64)
            .unwrap()
            .as_f64_array();
        assert!(m[[]].is_nan());
        let e = f(&[], &[3, 0]);
        assert_eq!(
            reduce(ReduceOp::Max, &e, Some(1), DType::F64),
            Err("zero-size array to reduction operation maximum which has no identity".to_string())
        );
        assert!(reduce(ReduceOp::Min, &e, None, DType::F64).is_err());
        // max over a non-empty axis of an empty array is an empty result
        assert_eq!(
            reduce(ReduceOp::Max, &e, Some(0), DType::F64).unwrap(),
            f(&[], &[0])
        );
        assert_eq!(
            reduce(ReduceOp::Sum, &e, Some(1), DType::F64).unwrap(),
            f(&[0.0; 3], &[3])
        );
        assert_eq!(
            reduce(ReduceOp::Prod, &e, Some(1), DType::F64).unwrap(),
            f(&[1.0; 3], &[3])
        );
        let m = reduce(ReduceOp::Mean, &e, Some(1), DType::F64)
            .unwrap()
            .as_f64_array();
        assert!(m.iter().all(|v| v.is_nan()));
        assert_eq!(
            reduce(ReduceOp::Sum, &e, Some(2), DType::F64),
            Err("axis 2 is out of bounds for array of dimension 2".to_string())
        );
        assert!(reduce(ReduceOp::Sum, &e, Some(-3), DType::F64).is_err());
        assert!(reduce(ReduceOp::Sum, &Value::scalar_f64(1.0), Some(0), DType::F64).is_err());
        assert_eq!(
            reduce(ReduceOp::Sum, &Value::scalar_f64(2.0), None, DType::F64).unwrap(),
            Value::scalar_f64(2.0)
        );
    }

    #[test]
    fn f32_mean_and_sum() {
        // np.float32 arange(10) * 0.1: mean == 0.45000002
        let x = Value::F32(Array::from_iter((0..10).map(|k| k as f32 * 0.1f32)).into_dyn());
        let m = reduce(ReduceOp::Mean, &x, None, DType::F32).unwrap();
        assert_eq!(m, Value::scalar_f32(0.44999996));
    }

    #[test]
    fn running_scans() {
        let x = i(&[1, 2, 3, 4, 5, 6], &[2, 3]);
        assert_eq!(
            cumulative(CumOp::Cumsum, &x, 0, DType::I64).unwrap(),
            i(&[1, 2, 3, 5, 7, 9], &[2, 3])
        );
        assert_eq!(
            cumulative(CumOp::Cumsum, &x, -1, DType::I64).unwrap(),
            i(&[1, 3, 6, 4, 9, 15], &[2, 3])
        );
        assert_eq!(
            cumulative(CumOp::Cumprod, &x, 1, DType::I64).unwrap(),
            i(&[1, 2, 6, 4, 20, 120], &[2, 3])
        );
        let p = b(&[true, false, true], &[3]);
        assert_eq!(
            cumulative(CumOp::Cumsum, &p, 0, DType::I64).unwrap(),
            i(&[1, 1, 2], &[3])
        );
        let y = tenth(&[4]);
        // np.cumsum(0.1 * np.arange(4)) == [0, 0.1, 0.30000000000000004, 0.6000000000000001]
        assert_eq!(
            cumulative(CumOp::Cumsum, &y, 0, DType::F64).unwrap(),
            f(&[0.0, 0.1, 0.30000000000000004, 0.6000000000000001], &[4])
        );
        assert_eq!(
            cumulative(CumOp::Cumsum, &f(&[], &[0, 2]), 0, DType::F64).unwrap(),
            f(&[], &[0, 2])
        );
        assert!(cumulative(CumOp::Cumsum, &y, 1, DType::F64).is_err());
    }
}
