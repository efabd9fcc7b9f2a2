//! Which unions a rewrite may make.
//!
//! Owns: the checks every rule applier (algebraic or Scan) makes before it
//! unions the class it built with the class it matched: same kind with
//! known sizes ([`kinds_compatible`]), agreeing constants
//! ([`konsts_agree`]), no one-sided non-finite constant
//! ([`union_allowed`]); the union itself when they pass, a refusal
//! counted per rule otherwise ([`union_checked`]). Must not: decide what
//! a rule rewrites.

use super::analysis::{ClassData, EGraph, Kind};
use crate::lang::{Dim, Scalar, Type};

/// True when a rewrite may union classes of these kinds: the same value
/// type with every size known (not [`Dim::Unknown`]), or the same scan
/// output types.
pub fn kinds_compatible(new: &Kind, matched: &Kind) -> bool {
    let known = |t: &Type| !t.shape.contains(&Dim::Unknown);
    match (new, matched) {
        (Kind::Value(a), Kind::Value(b)) => a == b && known(a),
        (Kind::Multi(a), Kind::Multi(b)) => a == b && a.iter().all(known),
        _ => false,
    }
}

/// True when two constants (of classes about to be unioned) are the same
/// number: equal, or both NaN. Exactly equal, not merely close: a rule
/// that is an identity of real numbers but not of floats (`exp(a + b) ==
/// exp(a) * exp(b)` when `exp(a)` underflows, or `(x * y) * z == x * (y *
/// z)` off by a rounding) must not put two different numbers in one class.
/// Once 0.0 and 1.0 share a class every program reading either is wrong,
/// and even a last-bit drift would print `0.9999999999999999` where the
/// program computes `1.0`.
pub fn konsts_agree(a: Option<Scalar>, b: Option<Scalar>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return true;
    };
    let (x, y) = (a.as_f64(), b.as_f64());
    x == y || (x.is_nan() && y.is_nan())
}

/// True when a rewrite may union the class `new` it built with the class
/// `matched`: their kinds agree ([`kinds_compatible`]) and so do their
/// constants ([`konsts_agree`]).
///
/// A class without a constant is never unioned with a NaN or infinite
/// constant either: no rule means "this expression is identically NaN",
/// and such a union is the trace of a float overflow (`0.0 * inf`) in a
/// rule that holds only for real numbers.
pub fn union_allowed(new: &ClassData, matched: &ClassData) -> bool {
    kinds_compatible(&new.kind, &matched.kind) && konsts_allowed(new, matched)
}

/// [`konsts_agree`], and no one-sided non-finite constant.
fn konsts_allowed(new: &ClassData, matched: &ClassData) -> bool {
    let non_finite = |k: Option<Scalar>| k.is_some_and(|c| !c.as_f64().is_finite());
    let one_sided_non_finite = (new.konst.is_none() && non_finite(matched.konst))
        || (matched.konst.is_none() && non_finite(new.konst));
    konsts_agree(new.konst, matched.konst) && !one_sided_non_finite
}

/// Unions `matched` with `new` (the class a rule built) when
/// [`union_allowed`], counting a refusal for `rule` in
/// [`super::analysis::TensorAnalysis::refused`] otherwise; true if the
/// e-graph changed.
pub fn union_checked(
    egraph: &mut EGraph,
    rule: egg::Symbol,
    matched: egg::Id,
    new: egg::Id,
) -> bool {
    union_if(egraph, rule, matched, new, union_allowed)
}

/// [`union_checked`] for two forms of the values of one while loop (the
/// same steps and condition: lengths that are equal, though known only at
/// run time): the same kinds, sizes known or not, and agreeing constants.
/// A rule calls it only for such pairs (see `crate::scan_rules`).
pub fn union_checked_same_loop(
    egraph: &mut EGraph,
    rule: egg::Symbol,
    matched: egg::Id,
    new: egg::Id,
) -> bool {
    union_if(egraph, rule, matched, new, |n, m| {
        n.kind == m.kind && konsts_allowed(n, m)
    })
}

/// Unions `matched` with `new` when `allowed(new's data, matched's data)`,
/// else counts a refusal for `rule`; true if the e-graph changed.
fn union_if(
    egraph: &mut EGraph,
    rule: egg::Symbol,
    matched: egg::Id,
    new: egg::Id,
    allowed: impl Fn(&ClassData, &ClassData) -> bool,
) -> bool {
    if egraph.find(matched) == egraph.find(new) {
        return false;
    }
    if !allowed(&egraph[new].data, &egraph[matched].data) {
        *egraph.analysis.refused.entry(rule.to_string()).or_insert(0) += 1;
        return false;
    }
    egraph.union_trusted(matched, new, rule)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::DType;

    fn data(konst: Option<Scalar>) -> ClassData {
        ClassData {
            kind: Kind::Value(Type {
                dtype: DType::F64,
                shape: vec![],
                weak: false,
                list: 0,
            }),
            konst,
            range: crate::egraph::range::Range::FULL,
            deps: Default::default(),
            touched: 0,
        }
    }

    #[test]
    fn constants_must_be_exactly_equal() {
        let f = |x| Some(Scalar::F64(x));
        assert!(konsts_agree(f(1.0), f(1.0)));
        assert!(konsts_agree(f(2.0), Some(Scalar::I64(2))));
        assert!(konsts_agree(f(f64::NAN), f(f64::NAN)));
        assert!(konsts_agree(None, f(3.0)));
        assert!(!konsts_agree(f(1.0), f(0.0)));
        assert!(!konsts_agree(f(1.0), f(0.9999999999999999)));
        assert!(!konsts_agree(f(f64::INFINITY), f(f64::NAN)));
    }

    #[test]
    fn a_non_constant_class_never_becomes_nan_or_infinite() {
        let none = data(None);
        assert!(union_allowed(&none, &data(Some(Scalar::F64(0.0)))));
        assert!(!union_allowed(&none, &data(Some(Scalar::F64(f64::NAN)))));
        assert!(!union_allowed(
            &data(Some(Scalar::F64(f64::INFINITY))),
            &none
        ));
        assert!(union_allowed(
            &data(Some(Scalar::F64(f64::INFINITY))),
            &data(Some(Scalar::F64(f64::INFINITY)))
        ));
    }
}
