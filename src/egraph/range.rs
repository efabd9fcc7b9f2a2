//! Value ranges: an interval that covers every element of an e-class, and
//! how each op maps its arguments' intervals to its result's.
//!
//! Owns: [`Range`] (a closed interval of the extended reals, with interval
//! arithmetic whose bounds are sound under the executor's rounding) and
//! [`op_range`], the transfer function of every op, including the one
//! relational fact the analysis knows: `x - max(x) <= 0`.
//! Must not: read rules, decide rewrites (the predicates that read ranges
//! are in `rules::conditions`), or evaluate ops on data.
//!
//! # What a range means
//!
//! `[lo, hi]` bounds every element of the class that is not NaN: NaN is
//! never excluded (an input may hold NaN, and `0 * inf` makes one), so a
//! range says nothing about NaN. Bounds are extended reals: a finite `hi`
//! means no element is `+inf`; `[-inf, inf]` ([`Range::FULL`]) is "nothing
//! known". The analysis over-approximates: every element the executor can
//! compute lies in the range, whatever the inputs.
//!
//! Rounding: `+ - * /`, `max`/`min`, `sqrt` and casts round monotonically
//! (IEEE round to nearest), so bounds computed with the same float ops are
//! bounds of the computed values. Transcendental functions (the executor's
//! SIMD `exp`, `tanh`, ... are within a few ulps, not correctly rounded)
//! and sums (whose order differs between kernels) widen their bounds
//! outward by a relative margin, which never moves a bound across zero
//! (`exp(x) >= 0` and `x - max(x) <= 0` stay exact).
//!
//! Integers: an `i64` result wraps on overflow, so an `i64` range whose
//! bounds leave `[-2^63, 2^63)` becomes the whole `i64` range. Sizes: a
//! reduction over a symbolic size is unbounded unless its sign is known.

use super::analysis::EGraph;
use crate::egraph::term::{Head, OpKind};
use crate::exec::ops::special;
use crate::lang::{BinaryOp, CumOp, DType, Dim, NormOp, Op, ReduceOp, Scalar, Type, UnaryOp};
use egg::Id;

/// A closed interval of the extended reals bounding every non-NaN element
/// of a class (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// Lower bound (may be `-inf`).
    pub lo: f64,
    /// Upper bound (may be `+inf`).
    pub hi: f64,
}

/// `2^63` as f64: the first value outside `i64`.
const I64_EDGE: f64 = 9_223_372_036_854_775_808.0;

/// Relative outward margin for results of transcendental functions.
const ULP_MARGIN: f64 = 1e-13;

impl Range {
    /// Nothing known.
    pub const FULL: Range = Range {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };
    /// Every `bool` (as 0 and 1).
    pub const BOOL: Range = Range { lo: 0.0, hi: 1.0 };
    /// Every `i32`.
    pub const I32: Range = Range {
        lo: i32::MIN as f64,
        hi: i32::MAX as f64,
    };
    /// `[-1, 1]`.
    pub const UNIT: Range = Range { lo: -1.0, hi: 1.0 };
    /// Every `i64`.
    pub const I64: Range = Range {
        lo: -I64_EDGE,
        hi: I64_EDGE,
    };

    /// `[lo, hi]`; a NaN bound, or `lo > hi`, gives [`Range::FULL`].
    pub fn new(lo: f64, hi: f64) -> Range {
        if lo.is_nan() || hi.is_nan() || lo > hi {
            Range::FULL
        } else {
            Range { lo, hi }
        }
    }

    /// The single value `x` (a NaN constant: [`Range::FULL`], since a
    /// range bounds only non-NaN elements and says nothing about NaN).
    pub fn point(x: f64) -> Range {
        Range::new(x, x)
    }

    /// The range of a uniform constant.
    pub fn of_scalar(s: Scalar) -> Range {
        Range::point(s.as_f64())
    }

    /// True when every non-NaN element is finite and within `[-b, b]`.
    pub fn within(&self, b: f64) -> bool {
        -b <= self.lo && self.hi <= b
    }

    /// True when nothing is known.
    pub fn is_full(&self) -> bool {
        *self == Range::FULL
    }

    /// The intersection, for two facts about one class. When the two do
    /// not overlap (only possible for a class whose every element is NaN),
    /// `self` is kept.
    pub fn intersect(&self, other: &Range) -> Range {
        let lo = self.lo.max(other.lo);
        let hi = self.hi.min(other.hi);
        if lo > hi {
            *self
        } else {
            Range { lo, hi }
        }
    }

    /// [`Range::intersect`] for merging classes: a bound moves only when
    /// it tightens by more than a relative 1e-9 (or reaches zero, or
    /// becomes finite), so refinement through cycles of the e-graph stops.
    pub fn refine(&self, other: &Range) -> Range {
        let r = self.intersect(other);
        let moved = |old: f64, new: f64| {
            old != new
                && (old.is_infinite()
                    || new == 0.0
                    || (new - old).abs() > 1e-9 * old.abs().max(new.abs()))
        };
        Range {
            lo: if moved(self.lo, r.lo) { r.lo } else { self.lo },
            hi: if moved(self.hi, r.hi) { r.hi } else { self.hi },
        }
    }

    /// The smallest range holding both.
    pub fn hull(&self, other: &Range) -> Range {
        Range {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// Moves finite bounds outward by `rel` of their magnitude (zero and
    /// infinite bounds stay).
    fn widen(&self, rel: f64) -> Range {
        Range {
            lo: self.lo - self.lo.abs() * rel,
            hi: self.hi + self.hi.abs() * rel,
        }
    }

    fn neg(&self) -> Range {
        Range {
            lo: -self.hi,
            hi: -self.lo,
        }
    }

    fn add(&self, o: &Range) -> Range {
        // inf + -inf is NaN, never an element bound: such a sum is NaN.
        Range::new(
            sum_bound(self.lo, o.lo, -1.0),
            sum_bound(self.hi, o.hi, 1.0),
        )
    }

    fn sub(&self, o: &Range) -> Range {
        self.add(&o.neg())
    }

    fn mul(&self, o: &Range) -> Range {
        let ps = [
            prod(self.lo, o.lo),
            prod(self.lo, o.hi),
            prod(self.hi, o.lo),
            prod(self.hi, o.hi),
        ];
        Range::new(
            ps.iter().copied().fold(f64::INFINITY, f64::min),
            ps.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }

    /// `x * x` for one and the same `x`.
    fn square(&self) -> Range {
        let (a, b) = (prod(self.lo, self.lo), prod(self.hi, self.hi));
        if self.lo <= 0.0 && self.hi >= 0.0 {
            Range::new(0.0, a.max(b))
        } else {
            Range::new(a.min(b), a.max(b))
        }
    }

    fn div(&self, o: &Range) -> Range {
        if o.lo <= 0.0 && o.hi >= 0.0 {
            return Range::FULL;
        }
        let qs = [
            self.lo / o.lo,
            self.lo / o.hi,
            self.hi / o.lo,
            self.hi / o.hi,
        ];
        if qs.iter().any(|q| q.is_nan()) {
            return Range::FULL;
        }
        Range::new(
            qs.iter().copied().fold(f64::INFINITY, f64::min),
            qs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }

    /// A monotone non-decreasing function applied to both bounds, widened.
    fn monotone(&self, f: fn(f64) -> f64) -> Range {
        Range::new(f(self.lo), f(self.hi)).widen(ULP_MARGIN)
    }

    /// The sum of `n` elements of this range (`None`: a symbolic count),
    /// computed in precision `eps`.
    fn times_count(&self, n: Option<f64>, eps: f64) -> Range {
        if *self == Range::point(0.0) {
            return *self;
        }
        let Some(n) = n else {
            // Any count: keep the sign only.
            return Range {
                lo: if self.lo >= 0.0 {
                    0.0
                } else {
                    f64::NEG_INFINITY
                },
                hi: if self.hi <= 0.0 { 0.0 } else { f64::INFINITY },
            };
        };
        if n <= 0.0 {
            return Range::point(0.0);
        }
        // Every partial sum has a rounding error of at most n * eps times
        // the largest magnitude, whatever the order of summation.
        let m = self.lo.abs().max(self.hi.abs());
        let err = 2.0 * n * n * eps * m;
        let mut lo = prod(n, self.lo) - err;
        let mut hi = prod(n, self.hi) + err;
        if self.lo >= 0.0 {
            lo = lo.max(0.0);
        }
        if self.hi <= 0.0 {
            hi = hi.min(0.0);
        }
        Range::new(lo, hi)
    }
}

/// `a + b` for bounds, where `inf + -inf` (no element reaches both) is the
/// infinite bound in the direction `dir`.
fn sum_bound(a: f64, b: f64, dir: f64) -> f64 {
    let s = a + b;
    if s.is_nan() {
        dir * f64::INFINITY
    } else {
        s
    }
}

/// `a * b` for bounds: `0 * inf` is 0 (an element that is 0 times an
/// element that is finite is 0; `0 * inf` itself is NaN, which no range
/// bounds).
fn prod(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        a * b
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Machine epsilon of a dtype's arithmetic (f64's for integers, whose
/// bounds are f64 images).
fn eps_of(d: DType) -> f64 {
    match d {
        DType::F32 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}

/// The range of a class, read from the e-graph.
fn range_of(egraph: &EGraph, id: Id) -> Range {
    egraph[id].data.range
}

/// The number of elements an op reduces or contracts over: the product of
/// the sizes, `None` when one is not a known integer.
fn count(shape: &[Dim]) -> Option<f64> {
    shape
        .iter()
        .try_fold(1.0f64, |acc, d| d.as_known().map(|k| acc * k.max(0) as f64))
}

fn norm_axis(axis: i64, ndim: usize) -> Option<usize> {
    let k = if axis < 0 { axis + ndim as i64 } else { axis };
    (0..ndim as i64).contains(&k).then_some(k as usize)
}

/// True when class `m` holds a maximum of class `x` broadcast back against
/// `x`: `(max x)`, `(max x 0)` (broadcasting aligns it with `x`'s trailing
/// axes), or `(expand_dims (max x k) k)` (keepdims, as the language writes
/// it), so that every element of `x - m` is at most 0.
fn holds_max_of(egraph: &EGraph, m: Id, x: Id, x_ndim: usize) -> bool {
    let x = egraph.find(x);
    let is_max_of = |class: Id, axis_ok: &dyn Fn(Option<i64>) -> bool| {
        egraph[class].nodes.iter().any(|n| {
            n.head == Head::Op(OpKind::Reduce(ReduceOp::Max))
                && n.children.first().is_some_and(|c| egraph.find(*c) == x)
                && match n.children.get(1) {
                    None => axis_ok(None),
                    Some(a) => lit_int(egraph, *a).is_some_and(|k| axis_ok(Some(k))),
                }
        })
    };
    let leading = |a: Option<i64>| match a {
        None => true,
        Some(k) => norm_axis(k, x_ndim) == Some(0),
    };
    if is_max_of(m, &leading) {
        return true;
    }
    egraph[m].nodes.iter().any(|n| {
        if n.head != Head::Op(OpKind::ExpandDims) {
            return false;
        }
        let (Some(inner), Some(at)) = (n.children.first(), n.children.get(1)) else {
            return false;
        };
        let Some(at) = lit_int(egraph, *at).and_then(|k| norm_axis(k, x_ndim)) else {
            return false;
        };
        is_max_of(*inner, &|a| {
            a.and_then(|k| norm_axis(k, x_ndim)) == Some(at)
        })
    })
}

fn lit_int(egraph: &EGraph, id: Id) -> Option<i64> {
    egraph[id].nodes.iter().find_map(|n| match n.head {
        Head::Lit(crate::egraph::term::Lit(Scalar::I64(k))) if n.children.is_empty() => Some(k),
        _ => None,
    })
}

/// The range of an op's result, from its value arguments' classes `vargs`
/// (attributes already read into `op`) and its inferred type `out`.
pub fn op_range(egraph: &EGraph, op: &Op, vargs: &[Id], out: &Type) -> Range {
    let arg = |k: usize| {
        vargs
            .get(k)
            .map(|a| range_of(egraph, *a))
            .unwrap_or(Range::FULL)
    };
    let arg_ty = |k: usize| vargs.get(k).and_then(|a| egraph[*a].data.ty());
    let eps = eps_of(out.dtype);
    let r = match op {
        Op::Input(_) | Op::Scan(_) | Op::Proj(_) | Op::Grad => Range::FULL,
        Op::StopGradient => arg(0),
        Op::Size(_) | Op::List(crate::lang::ListOp::Len) => Range::new(0.0, f64::INFINITY),
        // Lists are carried opaquely for now (issue 41).
        Op::List(_) => Range::FULL,
        // A key's 64 bits, stored as i64: no order worth knowing.
        Op::MakeKey | Op::Split(_) | Op::FoldIn => Range::I64,
        // The largest 53-bit (24-bit) uniform is 1 - 2^-53 (1 - 2^-24).
        Op::Uniform(_) => Range::new(0.0, 1.0 - eps),
        // Box–Muller with 1 - u1 >= 2^-53: |z| <= sqrt(106 log 2) < 8.58.
        Op::Normal(_) => Range::new(-8.58, 8.58),
        Op::Bernoulli => Range::BOOL,
        Op::Categorical => {
            let n = arg_ty(1)
                .and_then(|t| t.shape.last())
                .and_then(Dim::as_known)
                .map_or(f64::INFINITY, |n| (n - 1).max(0) as f64);
            Range::new(0.0, n)
        }
        Op::Literal(s) => Range::of_scalar(*s),
        Op::Unary(u) => {
            let x = arg(0);
            match u {
                UnaryOp::Neg => x.neg(),
                UnaryOp::Exp => x
                    .monotone(f64::exp)
                    .intersect(&Range::new(0.0, f64::INFINITY)),
                UnaryOp::Log => Range::new(x.lo.max(0.0), x.hi).monotone(f64::ln),
                UnaryOp::Log1p => Range::new(x.lo.max(-1.0), x.hi).monotone(f64::ln_1p),
                UnaryOp::Sqrt => Range::new(x.lo.max(0.0), x.hi).monotone(f64::sqrt),
                UnaryOp::Tanh => x.monotone(f64::tanh).intersect(&Range::UNIT),
                UnaryOp::Sigmoid => x.monotone(sigmoid).intersect(&Range::BOOL),
                UnaryOp::Sin | UnaryOp::Cos => Range::UNIT,
                UnaryOp::Abs => {
                    if x.lo >= 0.0 {
                        x
                    } else if x.hi <= 0.0 {
                        x.neg()
                    } else {
                        Range::new(0.0, x.hi.max(-x.lo))
                    }
                }
                UnaryOp::Sign => Range::new(
                    if x.lo >= 0.0 { 0.0 } else { -1.0 },
                    if x.hi <= 0.0 { 0.0 } else { 1.0 },
                ),
                UnaryOp::Expm1 => x
                    .monotone(special::expm1)
                    .intersect(&Range::new(-1.0, f64::INFINITY)),
                UnaryOp::Softplus => x
                    .monotone(special::softplus)
                    .intersect(&Range::new(0.0, f64::INFINITY)),
                UnaryOp::Floor => Range::new(x.lo.floor(), x.hi.floor()),
                UnaryOp::Ceil => Range::new(x.lo.ceil(), x.hi.ceil()),
                UnaryOp::Round => Range::new(x.lo.round_ties_even(), x.hi.round_ties_even()),
                UnaryOp::Erf => x.monotone(special::erf).intersect(&Range::UNIT),
                UnaryOp::Erfc => Range::new(special::erfc(x.hi), special::erfc(x.lo))
                    .widen(ULP_MARGIN)
                    .intersect(&Range::new(0.0, 2.0)),
                // log|Γ| is at least its minimum over x > 0 (about
                // -0.1215, at digamma's root); anything for x < 0.
                UnaryOp::Gammaln if x.lo > 0.0 => Range::new(-0.1215, f64::INFINITY),
                UnaryOp::Gammaln | UnaryOp::Digamma => Range::FULL,
                // ψ' is positive on x > 0 (and π²/sin² - ψ'(1-x) elsewhere).
                UnaryOp::Trigamma if x.lo > 0.0 => Range::new(0.0, f64::INFINITY),
                UnaryOp::Trigamma => Range::FULL,
            }
        }
        Op::Binary(b) => {
            let (x, y) = (arg(0), arg(1));
            let same = vargs.len() == 2 && egraph.find(vargs[0]) == egraph.find(vargs[1]);
            match b {
                BinaryOp::Add => x.add(&y),
                BinaryOp::Sub => {
                    // x - x is 0 (NaN for infinite x, which no range bounds).
                    let mut r = if same { Range::point(0.0) } else { x.sub(&y) };
                    let x_ndim = arg_ty(0).map(|t| t.ndim()).unwrap_or(0);
                    if out.dtype.is_float()
                        && vargs.len() == 2
                        && holds_max_of(egraph, vargs[1], vargs[0], x_ndim)
                    {
                        r = r.intersect(&Range::new(f64::NEG_INFINITY, 0.0));
                    }
                    r
                }
                BinaryOp::Mul if same => x.square(),
                BinaryOp::Mul => x.mul(&y),
                BinaryOp::Div => x.div(&y),
                BinaryOp::Pow => match (y.lo == y.hi).then_some(y.lo) {
                    Some(1.0) => x,
                    Some(2.0) => x.square(),
                    Some(0.5) => Range::new(x.lo.max(0.0), x.hi).monotone(f64::sqrt),
                    Some(0.0) => Range::point(1.0),
                    _ if x.lo >= 0.0 => Range::new(0.0, f64::INFINITY),
                    _ => Range::FULL,
                },
                BinaryOp::Maximum => Range::new(x.lo.max(y.lo), x.hi.max(y.hi)),
                BinaryOp::Minimum => Range::new(x.lo.min(y.lo), x.hi.min(y.hi)),
                // The sign of the divisor, and no farther from 0 than it
                // (mod(-1, inf) is inf); a divisor that may be 0: NaN.
                BinaryOp::Mod if y.lo > 0.0 => Range::new(0.0, y.hi),
                BinaryOp::Mod if y.hi < 0.0 => Range::new(y.lo, 0.0),
                BinaryOp::Mod => Range::FULL,
                // floor of the quotient, one outward for the rounding of
                // (a - r) / b.
                BinaryOp::FloorDiv => {
                    let q = x.div(&y);
                    Range::new(q.lo.floor() - 1.0, q.hi.floor() + 1.0)
                }
            }
        }
        Op::Compare(_) => Range::BOOL,
        Op::Where => arg(1).hull(&arg(2)),
        Op::Reduce(r, axis) => {
            let x = arg(0);
            let shape = arg_ty(0).map(|t| t.shape.clone()).unwrap_or_default();
            let n = match axis {
                None => count(&shape),
                Some(a) => {
                    norm_axis(*a, shape.len()).and_then(|k| count(std::slice::from_ref(&shape[k])))
                }
            };
            match r {
                ReduceOp::Max | ReduceOp::Min => x,
                ReduceOp::Sum => x.times_count(n, eps),
                ReduceOp::Mean => mean_range(&x, n, eps),
                ReduceOp::Prod => prod_range(&x),
                // max(x) <= logsumexp(x) <= max(x) + log(n).
                // An index into the reduced extent.
                ReduceOp::Argmax | ReduceOp::Argmin => {
                    Range::new(0.0, n.map_or(f64::INFINITY, |n| (n - 1.0).max(0.0)))
                }
                ReduceOp::All | ReduceOp::Any => Range::BOOL,
                ReduceOp::LogSumExp => match n {
                    Some(n) if n >= 1.0 => {
                        Range::new(x.lo, x.hi + n.ln()).widen(ULP_MARGIN * n.max(1.0))
                    }
                    _ => Range::new(x.lo, f64::INFINITY),
                },
            }
        }
        Op::Normalize(NormOp::Softmax, _) => Range::BOOL,
        Op::Normalize(NormOp::LogSoftmax, _) => Range::new(f64::NEG_INFINITY, 0.0),
        Op::Cumulative(c, axis) => {
            let x = arg(0);
            let shape = arg_ty(0).map(|t| t.shape.clone()).unwrap_or_default();
            let n =
                norm_axis(*axis, shape.len()).and_then(|k| count(std::slice::from_ref(&shape[k])));
            match c {
                // Every prefix: one element up to all n.
                CumOp::Cumsum => x.hull(&x.times_count(n, eps)),
                CumOp::Cumprod => prod_range(&x),
            }
        }
        Op::Dot | Op::Matmul => {
            let (x, y) = (arg(0), arg(1));
            let k = match arg_ty(0) {
                Some(t) if t.shape.is_empty() => Some(1.0),
                Some(t) => t.shape.last().and_then(|d| count(std::slice::from_ref(d))),
                None => None,
            };
            let k = match arg_ty(1) {
                Some(t) if t.shape.is_empty() => Some(1.0),
                _ => k,
            };
            x.mul(&y).times_count(k, eps)
        }
        Op::Transpose(_)
        | Op::Reshape(_)
        | Op::ExpandDims(_)
        | Op::Index
        | Op::Slice { .. }
        | Op::Fill(_) => arg(0),
        Op::Stack | Op::Concat(_) => (1..vargs.len()).fold(arg(0), |acc, k| acc.hull(&arg(k))),
        Op::Flip(_) | Op::Squeeze(_) => arg(0),
        // Some of X's rows.
        Op::Compress => arg(1),
        // A solve or an inverse may be as large as the matrix is close to
        // singular, a determinant as large as its entries to the n-th
        // power; the Cholesky factor's entries are bounded by the square
        // roots of A's diagonal, but a range of those is not kept.
        Op::Solve | Op::SolveTriangular(_) | Op::Inv | Op::Det | Op::Cholesky => Range::FULL,
        // The sign of a determinant: -1, 0 or 1.
        Op::Slogdet(0) => Range::UNIT,
        Op::Slogdet(_) => Range::FULL,
        // G's values, and zeros in the other rows.
        Op::Uncompress => arg(1).hull(&Range::point(0.0)),
        Op::ZerosLike => Range::point(0.0),
        // A factor beyond 1 in magnitude grows h geometrically: no bound
        // worth the analysis yet.
        Op::LinRec => Range::FULL,
        // log Σ_i exp(x_i) lies between max_i x_i and max_i x_i + log N
        // (N < 2^63, log N < 44), x_i = a_i + b_ij; widened for the
        // rounding of exp, the sum and log.
        Op::LogMatMulExp => arg(0)
            .add(&arg(1))
            .add(&Range::new(-1e-6, 44.0))
            .widen(64.0 * eps),
        // Each element sums between none (an empty axis of G) and all of
        // G's elements.
        Op::SumTo => {
            let g = arg(0);
            let n = arg_ty(0).and_then(|t| count(&t.shape));
            g.hull(&g.times_count(n, eps)).hull(&Range::point(0.0))
        }
        // Each element is X's, or X's plus one of G's.
        Op::IncIndex | Op::IncSlice { .. } => {
            let x = arg(0);
            x.hull(&x.add(&arg(1)))
        }
        // Each element is X's or one of V's.
        Op::SetIndex | Op::SetSlice { .. } | Op::SetTake(_) => arg(0).hull(&arg(1)),
        // Each element is X's, or X's plus any number of G's (repeated
        // indices accumulate).
        Op::IncTake(_) => {
            let (x, g) = (arg(0), arg(1));
            let n = arg_ty(1).and_then(|t| count(&t.shape));
            x.hull(&x.add(&g.hull(&g.times_count(n, eps))))
        }
        Op::Take(_) => arg(0),
        // minimum(maximum(x, lo), hi)
        Op::Clip => {
            let (x, lo, hi) = (arg(0), arg(1), arg(2));
            let m = Range::new(x.lo.max(lo.lo), x.hi.max(lo.hi));
            Range::new(m.lo.min(hi.lo), m.hi.min(hi.hi))
        }
        Op::Eye(_) => Range::BOOL,
        Op::Outer => arg(0).mul(&arg(1)),
        Op::Zeros(_) => Range::point(0.0),
        Op::Ones(_) => Range::point(1.0),
        Op::Arange(n) => match n.as_known() {
            Some(k) => Range::new(0.0, (k - 1).max(0) as f64),
            None => Range::new(0.0, f64::INFINITY),
        },
        Op::Tensor(_, vals) => vals
            .iter()
            .map(|s| Range::of_scalar(*s))
            .reduce(|a, b| a.hull(&b))
            .unwrap_or(Range::FULL),
        Op::Cast(d) => {
            let x = arg(0);
            match d {
                DType::Bool => Range::BOOL,
                DType::I64 if x.within(4.0e18) => Range::new(x.lo.trunc(), x.hi.trunc()),
                DType::I64 => Range::I64,
                // A float cast gives i32::MIN for NaN and out of range
                // (which `by_dtype` widens to every i32).
                DType::I32 if arg_ty(0).is_some_and(|t| t.dtype.is_float()) => {
                    Range::new(x.lo.trunc(), x.hi.trunc()).hull(&Range::point(i32::MIN as f64))
                }
                DType::I32 => x,
                DType::F32 => x.widen(f32::EPSILON as f64),
                DType::F64 => x,
                // a cast to a key is a type error
                DType::Key => Range::FULL,
            }
        }
    };
    by_dtype(r, out.dtype)
}

/// What a result's dtype adds: `bool` is within `[0, 1]`; an `i64` range
/// that leaves `i64` may have wrapped, so it is every `i64`; likewise an
/// `i32` range that leaves `i32` is every `i32`.
fn by_dtype(r: Range, d: DType) -> Range {
    match d {
        DType::Bool => r.intersect(&Range::BOOL),
        DType::I32 if r.lo < Range::I32.lo || r.hi > Range::I32.hi => Range::I32,
        DType::I64 if r.lo < -I64_EDGE || r.hi >= I64_EDGE => Range::I64,
        _ => r,
    }
}

/// Fewer elements than this are in any tensor the executor can hold
/// (2^60: an exbibyte of bool).
const MAX_ELEMENTS: f64 = 1_152_921_504_606_846_976.0;

/// The mean of `n` elements of `x`: within `x` when the sum cannot
/// overflow (for a symbolic `n`, with fewer than [`MAX_ELEMENTS`]).
fn mean_range(x: &Range, n: Option<f64>, eps: f64) -> Range {
    let n_bound = n.unwrap_or(MAX_ELEMENTS).max(1.0);
    let sum = x.times_count(Some(n_bound), eps);
    if sum.lo.is_finite() && sum.hi.is_finite() {
        x.widen(4.0 * n_bound * eps)
    } else {
        // The sum may overflow to inf on the side that reaches it.
        Range::new(
            if sum.lo.is_finite() {
                x.lo
            } else {
                f64::NEG_INFINITY
            },
            if sum.hi.is_finite() {
                x.hi
            } else {
                f64::INFINITY
            },
        )
    }
}

/// The product of any number of elements of `x`.
fn prod_range(x: &Range) -> Range {
    if x.lo >= 0.0 && x.hi <= 1.0 {
        Range::BOOL
    } else if x.within(1.0) {
        Range::UNIT
    } else if x.lo >= 0.0 {
        Range::new(0.0, f64::INFINITY)
    } else {
        Range::FULL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_arithmetic_keeps_signs_and_handles_infinities() {
        let r = |lo, hi| Range::new(lo, hi);
        assert_eq!(r(1.0, 2.0).add(&r(-5.0, 3.0)), r(-4.0, 5.0));
        assert_eq!(
            r(f64::NEG_INFINITY, 0.0).add(&r(0.0, f64::INFINITY)),
            Range::FULL
        );
        assert_eq!(r(-2.0, 3.0).mul(&r(-1.0, 4.0)), r(-8.0, 12.0));
        assert_eq!(
            r(0.0, 1.0).mul(&r(0.0, f64::INFINITY)),
            r(0.0, f64::INFINITY)
        );
        assert_eq!(r(-3.0, 2.0).square(), r(0.0, 9.0));
        assert_eq!(r(1.0, 2.0).div(&r(-1.0, 1.0)), Range::FULL);
        assert_eq!(
            r(1e300, 1e300).mul(&r(1e300, 1e300)),
            r(f64::INFINITY, f64::INFINITY)
        );
        let e = r(f64::NEG_INFINITY, 0.0).monotone(f64::exp);
        assert_eq!(e.lo, 0.0);
        assert!(e.hi >= 1.0 && e.hi < 1.0 + 1e-12);
        let s = r(0.0, 1.0).times_count(Some(10.0), f64::EPSILON);
        assert_eq!(s.lo, 0.0);
        assert!(s.hi >= 10.0 && s.hi < 10.0 + 1e-10);
        assert_eq!(
            r(-1.0, 0.0).times_count(None, f64::EPSILON),
            r(f64::NEG_INFINITY, 0.0)
        );
        assert_eq!(by_dtype(r(0.0, I64_EDGE), DType::I64), Range::I64);
        // i32::MAX + 1 wraps to i32::MIN: every i32
        assert_eq!(by_dtype(r(0.0, 2_147_483_648.0), DType::I32), Range::I32);
        assert_eq!(by_dtype(r(-5.0, 7.0), DType::I32), r(-5.0, 7.0));
    }

    #[test]
    fn intersection_never_empties_and_stops_on_tiny_moves() {
        let a = Range::new(0.0, 10.0);
        assert_eq!(a.intersect(&Range::new(20.0, 30.0)), a);
        assert_eq!(a.refine(&Range::new(-1.0, 5.0)), Range::new(0.0, 5.0));
        assert_eq!(a.refine(&Range::new(0.0, 10.0 - 1e-14)), a);
        assert_eq!(
            a.intersect(&Range::new(0.0, 10.0 - 1e-14)),
            Range::new(0.0, 10.0 - 1e-14)
        );
        assert_eq!(Range::point(f64::NAN), Range::FULL);
    }
}
