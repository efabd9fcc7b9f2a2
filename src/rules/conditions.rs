//! Rule conditions and the type-safe rewrites built from rules.
//!
//! Owns: the named predicates of rule files ([`Cond`], listed in
//! `rules/README.md` and [`PREDICATES`]), their evaluation against the
//! e-class analysis ([`Cond::check`]) and against static types (for the
//! soundness checker, [`Cond::check_types`]), and [`to_rewrites`]: each
//! [`Rule`] as an `egg::Rewrite` whose applier ([`TypedApplier`]) checks the
//! conditions, instantiates the right side and unions it with the matched
//! class only when both have the same fully known type.
//! Must not: parse rule files (see [`super::file`]), run the saturation
//! loop, or contain Scan-specific logic.

use super::file::Rule;
use crate::egraph::analysis::{ClassData, EGraph, TensorAnalysis};
use crate::egraph::union::union_allowed;
use crate::lang::infer::infer;
use crate::lang::{BinaryOp, DType, Dim, Op, Scalar, Type};
use egg::{Applier, Id, Pattern, PatternAst, Rewrite, Subst, Symbol, Var};
use std::fmt;

/// The predicates a rule may use: name, signature, meaning.
pub const PREDICATES: &[(&str, &str, &str)] = &[
    (
        "same-shape",
        "same-shape(?a, ?b)",
        "?a and ?b have the same static shape",
    ),
    (
        "same-type",
        "same-type(?a, ?b)",
        "?a and ?b have the same type (dtype, shape, weakness)",
    ),
    (
        "same-dtype",
        "same-dtype(?a, ?b)",
        "?a and ?b have the same dtype (shapes and weakness aside)",
    ),
    (
        "keeps-type",
        "keeps-type(?a, ?b)",
        "an elementwise binary op of ?a and ?b (broadcast, promoted) has ?a's type",
    ),
    (
        "is-const",
        "is-const(?a)",
        "every element of ?a is the same known number",
    ),
    ("is-zero", "is-zero(?a)", "?a is a uniform constant 0"),
    ("is-one", "is-one(?a)", "?a is a uniform constant 1"),
    ("is-two", "is-two(?a)", "?a is a uniform constant 2"),
    (
        "nonzero",
        "nonzero(?a)",
        "?a is a uniform finite constant other than 0",
    ),
    (
        "positive",
        "positive(?a)",
        "?a is a uniform finite constant greater than 0",
    ),
    (
        "exp-safe",
        "exp-safe(?a)",
        "every element of ?a is known (by its value range) to lie in [-700, 700], where exp is finite and normal",
    ),
    (
        "moderate",
        "moderate(?a)",
        "every element of ?a is known (by its value range) to lie in [-1e50, 1e50]",
    ),
    (
        "neg-exact",
        "neg-exact(?a)",
        "negating ?a is exact: ?a is not an integer, or its range excludes its dtype's minimum (i64::MIN or i32::MIN, which negates to itself)",
    ),
    (
        "recip-safe",
        "recip-safe(?a)",
        "?a is a uniform constant c with 1e-300 <= |c| <= 1e300 (1/c is finite and normal)",
    ),
    ("is-float", "is-float(?a)", "?a's dtype is f64 or f32"),
    ("is-int", "is-int(?a)", "?a's dtype is i64 or i32"),
    (
        "not-bool",
        "not-bool(?a)",
        "?a's dtype is a number type (not bool)",
    ),
    (
        "sums-in-dtype",
        "sums-in-dtype(?a)",
        "?a's dtype is f64, f32 or i64: its sum keeps its dtype (bool and i32 sum in i64, so arithmetic that wraps before the sum does not after it)",
    ),
    ("is-scalar", "is-scalar(?a)", "?a has no axes"),
    ("ndim", "ndim(?a, N)", "?a has exactly N axes"),
    (
        "min-rows",
        "min-rows(?a, N)",
        "?a has an axis, and its first axis has a literal size of at least N (not a symbolic one, which may be 0)",
    ),
    (
        "same-kind",
        "same-kind(?a, ?b)",
        "?a and ?b are both floats or both integers of the same width (no integer arithmetic that wraps regrouped with float arithmetic that does not, nor i32 wrapping with i64)",
    ),
    (
        "aligned",
        "aligned(?a, ?b)",
        "?a's last axis and ?b's first have the same static size (as dot aligns them)",
    ),
    (
        "aligned-last",
        "aligned-last(?a, ?b)",
        "?a's last axis and ?b's last have the same static size (as a dot with ?b transposed aligns them)",
    ),
    (
        "no-unknown-dims",
        "no-unknown-dims(?a)",
        "no size of ?a's shape is unknown",
    ),
];

/// The bound of `exp-safe` (f64, i64, bool; f32): `exp(±700)` is a
/// finite, normal f64 (overflow is at 709.8, subnormals below -708.4), and
/// `exp(±80)` a finite, normal f32 (overflow at 88.7, subnormals below
/// -87.3).
pub const EXP_SAFE_BOUND: (f64, f64) = (700.0, 80.0);

/// The bound of `moderate` (f64, i64, bool; f32): a product of up to six
/// such numbers is finite (1e300 in f64, 1e36 in f32), and so is a sum of
/// fewer than 1e200 (1e26 in f32) products of two. Every `i64` is
/// moderate: integer arithmetic wraps, and the ring identities hold for
/// it exactly.
pub const MODERATE_BOUND: (f64, f64) = (1e50, 1e6);

/// The magnitudes `recip-safe` accepts (f64; f32): `1 / c` is finite and
/// normal.
pub const RECIP_SAFE_BOUNDS: ((f64, f64), (f64, f64)) = ((1e-300, 1e300), (1e-37, 1e37));

/// The f64 or f32 member of a pair of bounds, by dtype.
fn by_precision<T: Copy>(pair: (T, T), dtype: DType) -> T {
    if dtype == DType::F32 {
        pair.1
    } else {
        pair.0
    }
}

/// A condition of a rule: a named predicate over pattern variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `same-shape(?a, ?b)`
    SameShape(Var, Var),
    /// `same-type(?a, ?b)`
    SameType(Var, Var),
    /// `same-dtype(?a, ?b)`
    SameDtype(Var, Var),
    /// `keeps-type(?a, ?b)`
    KeepsType(Var, Var),
    /// `is-const(?a)`
    IsConst(Var),
    /// `is-zero(?a)`
    IsZero(Var),
    /// `is-one(?a)`
    IsOne(Var),
    /// `is-two(?a)`
    IsTwo(Var),
    /// `nonzero(?a)`
    Nonzero(Var),
    /// `positive(?a)`
    Positive(Var),
    /// `exp-safe(?a)`
    ExpSafe(Var),
    /// `moderate(?a)`
    Moderate(Var),
    /// `recip-safe(?a)`
    RecipSafe(Var),
    /// `neg-exact(?a)`
    NegExact(Var),
    /// `is-float(?a)`
    IsFloat(Var),
    /// `is-int(?a)`
    IsInt(Var),
    /// `not-bool(?a)`
    NotBool(Var),
    /// `sums-in-dtype(?a)`
    SumsInDtype(Var),
    /// `is-scalar(?a)`
    IsScalar(Var),
    /// `ndim(?a, N)`
    Ndim(Var, usize),
    /// `min-rows(?a, N)`
    MinRows(Var, i64),
    /// `no-unknown-dims(?a)`
    NoUnknownDims(Var),
    /// `aligned(?a, ?b)`
    Aligned(Var, Var),
    /// `aligned-last(?a, ?b)`
    AlignedLast(Var, Var),
    /// `same-kind(?a, ?b)`
    SameKind(Var, Var),
}

/// An argument of a condition as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CondArg {
    /// A pattern variable `?x`.
    Var(Var),
    /// An integer.
    Int(i64),
}

/// Why a condition could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CondError {
    /// No predicate has this name.
    Unknown(String),
    /// The arguments do not fit the predicate's signature.
    Args(String),
}

/// What a value-level predicate asks of a variable's uniform constant
/// (used by the soundness checker to generate inputs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstNeed {
    /// Any uniform constant.
    Any,
    /// The constant 0.
    Zero,
    /// The constant 1.
    One,
    /// The constant 2.
    Two,
    /// A nonzero constant.
    Nonzero,
    /// A positive constant.
    Positive,
    /// A constant whose reciprocal is finite and normal.
    Reciprocable,
}

impl Cond {
    /// Builds the condition `name(args)`.
    pub fn parse(name: &str, args: &[CondArg]) -> Result<Cond, CondError> {
        let sig = PREDICATES
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, s, _)| *s)
            .ok_or_else(|| CondError::Unknown(name.to_string()))?;
        let bad = || CondError::Args(format!("expected {sig}"));
        let one = || match args {
            [CondArg::Var(a)] => Ok(*a),
            _ => Err(bad()),
        };
        let two = || match args {
            [CondArg::Var(a), CondArg::Var(b)] => Ok((*a, *b)),
            _ => Err(bad()),
        };
        Ok(match name {
            "same-shape" => two().map(|(a, b)| Cond::SameShape(a, b))?,
            "same-type" => two().map(|(a, b)| Cond::SameType(a, b))?,
            "same-dtype" => two().map(|(a, b)| Cond::SameDtype(a, b))?,
            "keeps-type" => two().map(|(a, b)| Cond::KeepsType(a, b))?,
            "aligned" => two().map(|(a, b)| Cond::Aligned(a, b))?,
            "aligned-last" => two().map(|(a, b)| Cond::AlignedLast(a, b))?,
            "same-kind" => two().map(|(a, b)| Cond::SameKind(a, b))?,
            "is-const" => Cond::IsConst(one()?),
            "is-zero" => Cond::IsZero(one()?),
            "is-one" => Cond::IsOne(one()?),
            "is-two" => Cond::IsTwo(one()?),
            "nonzero" => Cond::Nonzero(one()?),
            "positive" => Cond::Positive(one()?),
            "exp-safe" => Cond::ExpSafe(one()?),
            "moderate" => Cond::Moderate(one()?),
            "recip-safe" => Cond::RecipSafe(one()?),
            "neg-exact" => Cond::NegExact(one()?),
            "is-float" => Cond::IsFloat(one()?),
            "is-int" => Cond::IsInt(one()?),
            "not-bool" => Cond::NotBool(one()?),
            "sums-in-dtype" => Cond::SumsInDtype(one()?),
            "is-scalar" => Cond::IsScalar(one()?),
            "no-unknown-dims" => Cond::NoUnknownDims(one()?),
            "ndim" => match args {
                [CondArg::Var(a), CondArg::Int(n)] if *n >= 0 => Cond::Ndim(*a, *n as usize),
                _ => return Err(bad()),
            },
            "min-rows" => match args {
                [CondArg::Var(a), CondArg::Int(n)] if *n >= 0 => Cond::MinRows(*a, *n),
                _ => return Err(bad()),
            },
            _ => return Err(CondError::Unknown(name.to_string())),
        })
    }

    /// The pattern variables the condition reads.
    pub fn vars(&self) -> Vec<Var> {
        match self {
            Cond::SameShape(a, b)
            | Cond::SameType(a, b)
            | Cond::SameDtype(a, b)
            | Cond::KeepsType(a, b)
            | Cond::Aligned(a, b)
            | Cond::AlignedLast(a, b)
            | Cond::SameKind(a, b) => vec![*a, *b],
            Cond::IsConst(a)
            | Cond::IsZero(a)
            | Cond::IsOne(a)
            | Cond::IsTwo(a)
            | Cond::Nonzero(a)
            | Cond::Positive(a)
            | Cond::ExpSafe(a)
            | Cond::Moderate(a)
            | Cond::RecipSafe(a)
            | Cond::NegExact(a)
            | Cond::IsFloat(a)
            | Cond::IsInt(a)
            | Cond::NotBool(a)
            | Cond::SumsInDtype(a)
            | Cond::IsScalar(a)
            | Cond::Ndim(a, _)
            | Cond::MinRows(a, _)
            | Cond::NoUnknownDims(a) => vec![*a],
        }
    }

    /// For a predicate on values: the variable and what its uniform
    /// constant must be. `None` for predicates on types.
    pub fn const_need(&self) -> Option<(Var, ConstNeed)> {
        match self {
            Cond::IsConst(a) => Some((*a, ConstNeed::Any)),
            Cond::IsZero(a) => Some((*a, ConstNeed::Zero)),
            Cond::IsOne(a) => Some((*a, ConstNeed::One)),
            Cond::IsTwo(a) => Some((*a, ConstNeed::Two)),
            Cond::Nonzero(a) => Some((*a, ConstNeed::Nonzero)),
            Cond::Positive(a) => Some((*a, ConstNeed::Positive)),
            Cond::RecipSafe(a) => Some((*a, ConstNeed::Reciprocable)),
            _ => None,
        }
    }

    /// For a predicate on value ranges: the variable, and the bound `b`
    /// its elements must be known to lie within (`[-b, b]`) when its dtype
    /// is `dtype`. `None` otherwise.
    pub fn range_bound(&self, dtype: DType) -> Option<(Var, f64)> {
        match self {
            Cond::ExpSafe(a) => Some((*a, by_precision(EXP_SAFE_BOUND, dtype))),
            Cond::Moderate(a) => Some((*a, by_precision(MODERATE_BOUND, dtype))),
            _ => None,
        }
    }

    /// Evaluates a predicate on types, given each variable's type (`None`
    /// when the variable is not a value). Returns `None` for predicates on
    /// values (see [`Cond::const_need`]).
    pub fn check_types(&self, ty: &dyn Fn(Var) -> Option<Type>) -> Option<bool> {
        let with = |a: &Var, f: &dyn Fn(&Type) -> bool| ty(*a).is_some_and(|t| f(&t));
        Some(match self {
            Cond::SameShape(a, b) => matches!((ty(*a), ty(*b)), (Some(x), Some(y))
                if x.shape == y.shape && !x.shape.contains(&Dim::Unknown)),
            Cond::SameType(a, b) => matches!((ty(*a), ty(*b)), (Some(x), Some(y))
                if x == y && !x.shape.contains(&Dim::Unknown)),
            Cond::SameDtype(a, b) => {
                matches!((ty(*a), ty(*b)), (Some(x), Some(y)) if x.dtype == y.dtype)
            }
            Cond::KeepsType(a, b) => match (ty(*a), ty(*b)) {
                (Some(x), Some(y)) => {
                    !x.shape.contains(&Dim::Unknown)
                        && infer(&Op::Binary(BinaryOp::Add), &[&x, &y], &[None, None])
                            .is_ok_and(|r| r == x)
                }
                _ => false,
            },
            Cond::Aligned(a, b) => matches!((ty(*a), ty(*b)), (Some(x), Some(y))
                if matches!((x.shape.last(), y.shape.first()),
                    (Some(n), Some(k)) if n == k && *n != Dim::Unknown)),
            Cond::AlignedLast(a, b) => matches!((ty(*a), ty(*b)), (Some(x), Some(y))
                if matches!((x.shape.last(), y.shape.last()),
                    (Some(n), Some(k)) if n == k && *n != Dim::Unknown)),
            Cond::SameKind(a, b) => matches!((ty(*a), ty(*b)), (Some(x), Some(y))
                if (x.dtype.is_float() && y.dtype.is_float())
                    || (x.dtype.is_int() && x.dtype == y.dtype)),
            // Bounds on values: no type needed.
            Cond::ExpSafe(_) | Cond::Moderate(_) => true,
            // By type alone, only for dtypes other than the integers (an
            // integer class needs a range without its minimum, see `check`).
            Cond::NegExact(a) => with(a, &|t| !t.dtype.is_int()),
            Cond::IsFloat(a) => with(a, &|t| t.dtype.is_float()),
            Cond::IsInt(a) => with(a, &|t| t.dtype.is_int()),
            Cond::NotBool(a) => with(a, &|t| t.dtype != DType::Bool),
            Cond::SumsInDtype(a) => with(a, &|t| {
                matches!(t.dtype, DType::F64 | DType::F32 | DType::I64)
            }),
            Cond::IsScalar(a) => with(a, &|t| t.shape.is_empty()),
            Cond::Ndim(a, n) => with(a, &|t| t.ndim() == *n),
            Cond::MinRows(a, n) => with(a, &|t| {
                t.shape
                    .first()
                    .and_then(|d| d.as_known())
                    .is_some_and(|k| k >= *n)
            }),
            Cond::NoUnknownDims(a) => with(a, &|t| !t.shape.contains(&Dim::Unknown)),
            Cond::IsConst(_)
            | Cond::IsZero(_)
            | Cond::IsOne(_)
            | Cond::IsTwo(_)
            | Cond::Nonzero(_)
            | Cond::Positive(_)
            | Cond::RecipSafe(_) => return None,
        })
    }

    /// Whether a uniform constant of a class of dtype `dtype` satisfies a
    /// value predicate.
    pub fn const_ok(need: ConstNeed, c: Scalar, dtype: DType) -> bool {
        let x = c.as_f64();
        match need {
            ConstNeed::Any => true,
            ConstNeed::Zero => x == 0.0,
            ConstNeed::One => x == 1.0,
            ConstNeed::Two => x == 2.0,
            ConstNeed::Nonzero => x.is_finite() && x != 0.0,
            ConstNeed::Positive => x.is_finite() && x > 0.0,
            ConstNeed::Reciprocable => {
                let (lo, hi) = by_precision(RECIP_SAFE_BOUNDS, dtype);
                (lo..=hi).contains(&x.abs())
            }
        }
    }

    /// Evaluates the condition on the classes a match bound.
    pub fn check(&self, egraph: &EGraph, subst: &Subst) -> bool {
        let data = |v: Var| -> Option<&ClassData> { subst.get(v).map(|id| &egraph[*id].data) };
        if let Some(v) = self.vars().first().copied() {
            let dtype = data(v).and_then(|d| d.ty()).map(|t| t.dtype);
            if let (Some(dtype), Some((_, b))) = (dtype, self.range_bound(DType::F64)) {
                let b = self.range_bound(dtype).map_or(b, |(_, b)| b);
                return data(v).is_some_and(|d| d.range.within(b));
            }
        }
        if self.range_bound(DType::F64).is_some() {
            return false;
        }
        if let Cond::NegExact(v) = self {
            return data(*v).is_some_and(|d| match d.ty() {
                Some(t) => match t.dtype.int_range() {
                    Some((min, _)) => d.range.lo > min as f64,
                    None => true,
                },
                None => false,
            });
        }
        if let Some((v, need)) = self.const_need() {
            return data(v)
                .and_then(|d| Some((d.konst?, d.ty()?.dtype)))
                .is_some_and(|(c, dt)| Cond::const_ok(need, c, dt));
        }
        let ty = |v: Var| data(v).and_then(|d| d.ty().cloned());
        self.check_types(&ty).unwrap_or(false)
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, vars) = match self {
            Cond::SameShape(..) => ("same-shape", self.vars()),
            Cond::SameType(..) => ("same-type", self.vars()),
            Cond::SameDtype(..) => ("same-dtype", self.vars()),
            Cond::KeepsType(..) => ("keeps-type", self.vars()),
            Cond::Aligned(..) => ("aligned", self.vars()),
            Cond::AlignedLast(..) => ("aligned-last", self.vars()),
            Cond::SameKind(..) => ("same-kind", self.vars()),
            Cond::IsConst(_) => ("is-const", self.vars()),
            Cond::IsZero(_) => ("is-zero", self.vars()),
            Cond::IsOne(_) => ("is-one", self.vars()),
            Cond::IsTwo(_) => ("is-two", self.vars()),
            Cond::Nonzero(_) => ("nonzero", self.vars()),
            Cond::Positive(_) => ("positive", self.vars()),
            Cond::ExpSafe(_) => ("exp-safe", self.vars()),
            Cond::Moderate(_) => ("moderate", self.vars()),
            Cond::RecipSafe(_) => ("recip-safe", self.vars()),
            Cond::NegExact(_) => ("neg-exact", self.vars()),
            Cond::IsFloat(_) => ("is-float", self.vars()),
            Cond::IsInt(_) => ("is-int", self.vars()),
            Cond::NotBool(_) => ("not-bool", self.vars()),
            Cond::SumsInDtype(_) => ("sums-in-dtype", self.vars()),
            Cond::IsScalar(_) => ("is-scalar", self.vars()),
            Cond::NoUnknownDims(_) => ("no-unknown-dims", self.vars()),
            Cond::Ndim(a, n) => return write!(f, "ndim({a}, {n})"),
            Cond::MinRows(a, n) => return write!(f, "min-rows({a}, {n})"),
        };
        let vs: Vec<String> = vars.iter().map(|v| v.to_string()).collect();
        write!(f, "{name}({})", vs.join(", "))
    }
}

/// The applier of a rule: checks its conditions, instantiates its right
/// side, and unions it with the matched class only if the types agree
/// (otherwise counts a refusal in [`TensorAnalysis::refused`]). Applies
/// nothing to a class holding a constant, and nothing once the analysis's
/// [`TensorAnalysis::guard`] says a limit is reached.
#[derive(Clone, Debug)]
pub struct TypedApplier {
    /// The rule's name (the key of [`TensorAnalysis::refused`]).
    pub name: String,
    /// The right side.
    pub rhs: Pattern<crate::egraph::term::TNode>,
    /// The conditions, all of which must hold.
    pub conds: Vec<Cond>,
}

type TNode = crate::egraph::term::TNode;

impl Applier<TNode, TensorAnalysis> for TypedApplier {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        subst: &Subst,
        searcher_ast: Option<&PatternAst<TNode>>,
        rule_name: Symbol,
    ) -> Vec<Id> {
        if crate::egraph::runner::applications_stopped(egraph) {
            return Vec::new();
        }
        // A class holding a constant already has its literal form (the
        // cheapest there is): rewriting it only adds other spellings of
        // the number, and with exp/tanh/sigmoid rules these multiply
        // without end.
        if egraph[eclass].data.konst.is_some() {
            return Vec::new();
        }
        if !self.conds.iter().all(|c| c.check(egraph, subst)) {
            return Vec::new();
        }
        let new = egraph.add_instantiation(&self.rhs.ast, subst);
        if egraph.find(new) == egraph.find(eclass) {
            return Vec::new();
        }
        if !union_allowed(&egraph[new].data, &egraph[eclass].data) {
            *egraph
                .analysis
                .refused
                .entry(self.name.clone())
                .or_insert(0) += 1;
            return Vec::new();
        }
        let (id, changed) = match searcher_ast {
            Some(ast) => egraph.union_instantiations(ast, &self.rhs.ast, subst, rule_name),
            None => (eclass, egraph.union(eclass, new)),
        };
        if changed {
            vec![id]
        } else {
            Vec::new()
        }
    }

    fn get_pattern_ast(&self) -> Option<&PatternAst<TNode>> {
        Some(&self.rhs.ast)
    }

    fn vars(&self) -> Vec<Var> {
        let mut vs = self.rhs.vars();
        for c in &self.conds {
            for v in c.vars() {
                if !vs.contains(&v) {
                    vs.push(v);
                }
            }
        }
        vs
    }
}

/// One rewrite per rule: the searcher is the left side, the applier a
/// [`TypedApplier`]. A rule egg refuses (a variable on the right or in a
/// condition that the left does not bind; the loader rejects such rules)
/// is left out.
pub fn to_rewrites(rules: &[Rule]) -> Vec<Rewrite<TNode, TensorAnalysis>> {
    rules
        .iter()
        .filter_map(|r| {
            let applier = TypedApplier {
                name: r.name.clone(),
                rhs: r.rhs.clone(),
                conds: r.conds.clone(),
            };
            Rewrite::new(r.name.as_str(), r.lhs.clone(), applier).ok()
        })
        .collect()
}
