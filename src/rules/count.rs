//! `sum-of-ones`: a sum of a tensor every element of which is 1.0 is its
//! number of elements.
//!
//! The seed of a sum's gradient is a ones-like tensor (`(where true 1.0
//! v)`, shaped like `v`), and the gradient of an additive term such as
//! `- log_sigma` in a log-likelihood sums it: `(sum ones)` is then a pass
//! over memory that computes `n`. The rule writes the count from the
//! shape instead, `(cast f64 n)`, with `n` built from the sizes of the
//! shape (symbolic sizes as `size` values, `i64` arithmetic).
//!
//! Exact: a pairwise (or any) sum of `n` ones in `f64` is `n` for every
//! `n` below 2^53, and no array that large fits in memory. Only `f64`
//! (a sum of `f32` ones rounds from 2^24 on), only whole sums of any rank
//! and sums over axis 0 of a 1-D tensor (a sum over one axis of a larger
//! rank is a tensor), only static shapes whose sizes are a literal or a
//! symbol plus a literal (what slicing a symbolic size gives).
//!
//! Owns: this one rewrite, which needs the analysis (a class's constant
//! and shape) and builds a term no rule file can write. Must not: match
//! anything but sums.

use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::egraph::union::union_checked;
use crate::lang::{BinaryOp, DType, Dim, Scalar};
use egg::{Applier, Id, Pattern, PatternAst, Rewrite, Subst, Symbol, Var};

/// The rule's name (in `rules_applied` and `explain`): a whole sum.
pub const NAME: &str = "sum-of-ones";

/// The name of the form over axis 0 of a 1-D tensor.
pub const AXIS_NAME: &str = "sum-of-ones-axis";

/// The rewrites: a whole sum, and a sum over axis 0.
pub fn rewrites() -> Vec<Rewrite<TNode, TensorAnalysis>> {
    let mut out = Vec::new();
    let Ok(ones) = "?o".parse::<Var>() else {
        return out;
    };
    for (name, lhs, axis) in [(NAME, "(sum ?o)", false), (AXIS_NAME, "(sum ?o 0)", true)] {
        let Ok(pattern) = lhs.parse::<Pattern<TNode>>() else {
            continue;
        };
        let applier = CountApplier { ones, axis };
        if let Ok(r) = Rewrite::new(name, pattern, applier) {
            out.push(r);
        }
    }
    out
}

/// The applier: checks the summed class and writes the count.
#[derive(Clone, Debug)]
struct CountApplier {
    ones: Var,
    /// A sum over axis 0 (else over all axes).
    axis: bool,
}

fn op(egraph: &mut EGraph, kind: OpKind, children: Vec<Id>) -> Id {
    egraph.add(TNode {
        head: Head::Op(kind),
        children,
    })
}

/// The `i64` term of a size: a literal, or a symbol plus a literal.
fn size_term(egraph: &mut EGraph, d: &Dim) -> Option<Id> {
    let Dim::Affine { constant, terms } = d else {
        return None;
    };
    let lit = |egraph: &mut EGraph, v: i64| egraph.add(TNode::lit(Scalar::I64(v)));
    match terms.as_slice() {
        [] => Some(lit(egraph, *constant)),
        [(s, 1)] => {
            let sym = egraph.add(TNode::leaf(Head::Size(Symbol::from(s.as_str()))));
            if *constant == 0 {
                return Some(sym);
            }
            let c = lit(egraph, *constant);
            Some(op(egraph, OpKind::Binary(BinaryOp::Add), vec![sym, c]))
        }
        _ => None,
    }
}

impl Applier<TNode, TensorAnalysis> for CountApplier {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        subst: &Subst,
        _searcher_ast: Option<&PatternAst<TNode>>,
        rule_name: Symbol,
    ) -> Vec<Id> {
        if crate::egraph::runner::applications_stopped(egraph) {
            return Vec::new();
        }
        let Some(&o) = subst.get(self.ones) else {
            return Vec::new();
        };
        let data = &egraph[o].data;
        let Some(ty) = data.ty() else {
            return Vec::new();
        };
        let is_one = data.konst.is_some_and(|c| c.as_f64() == 1.0);
        if !is_one || ty.dtype != DType::F64 || (self.axis && ty.ndim() != 1) {
            return Vec::new();
        }
        if egraph[eclass].data.konst.is_some() {
            return Vec::new();
        }
        let shape = ty.shape.clone();
        let mut count: Option<Id> = None;
        for d in &shape {
            let Some(t) = size_term(egraph, d) else {
                return Vec::new();
            };
            count = Some(match count {
                None => t,
                Some(c) => op(egraph, OpKind::Binary(BinaryOp::Mul), vec![c, t]),
            });
        }
        let count = count.unwrap_or_else(|| egraph.add(TNode::lit(Scalar::I64(1))));
        let f64_leaf = egraph.add(TNode::leaf(Head::DType(DType::F64)));
        let new = op(egraph, OpKind::Cast, vec![f64_leaf, count]);
        if union_checked(egraph, rule_name, eclass, new) {
            vec![eclass]
        } else {
            Vec::new()
        }
    }

    fn vars(&self) -> Vec<Var> {
        vec![self.ones]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_patterns_parse() {
        assert_eq!(rewrites().len(), 2);
    }
}
