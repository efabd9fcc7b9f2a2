//! `sum-outer-products`: a sum over the leading (step) axis of stacked
//! outer products is one matrix product.
//!
//! With `A` of type `(T, p, 1)` (a column per step) and `B` of type
//! `(T, 1, q)` (a row per step), `(sum (mul A B) 0)` is
//! `Σ_t a_t b_tᵀ = Aᵀ B`, written
//! `(dot (transpose (squeeze A 2) 1 0) (squeeze B 1))`: one product of
//! `2 p q T` operations instead of a `T × p × q` temporary written and
//! read again. This is the form a backward loop leaves for a weight
//! gradient once its per-step outer products are computed after the loop
//! (`scan-push-out-output` on the stacked cotangents), and the form
//! `scan-to-reduction` gives an accumulator `S + a_t b_tᵀ`. The sum is
//! bracketed differently (a dot's inner sum instead of a pairwise sum over
//! the steps), as `scan-to-reduction` already allows.
//!
//! Does not fire on: operands that broadcast along the step axis (one of
//! them invariant: `(Σ a_t) bᵀ` is another rule's), integer or bool
//! operands, a sum over another axis, ranks other than 3.

use super::terms::{lit, op};
use super::union_checked;
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, Lit, OpKind, TNode};
use crate::lang::{BinaryOp, Dim, ReduceOp, Scalar, Type};
use egg::{Applier, Id, PatternAst, Rewrite, Subst, Symbol, Var};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    Rewrite::new(
        "sum-outer-products",
        super::ClassesWithHead(Head::Op(OpKind::Reduce(ReduceOp::Sum))),
        OuterSum,
    )
}

#[derive(Clone, Copy, Debug)]
struct OuterSum;

/// The classes `eclass` sums down axis 0: X of each `(sum X 0)` node (the
/// step axis of a stacked loop output).
pub(super) fn summed_down_axis0(egraph: &EGraph, eclass: Id) -> Vec<Id> {
    egraph[eclass]
        .nodes
        .iter()
        .filter(|n| {
            n.head == Head::Op(OpKind::Reduce(ReduceOp::Sum))
                && n.children.len() == 2
                && is_lit(egraph, n.children[1], 0)
        })
        .map(|n| n.children[0])
        .collect()
}

impl Applier<TNode, TensorAnalysis> for OuterSum {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        _subst: &Subst,
        _ast: Option<&PatternAst<TNode>>,
        rule: Symbol,
    ) -> Vec<Id> {
        let summed = summed_down_axis0(egraph, eclass);
        let mut changed = Vec::new();
        for x in summed {
            let factors: Vec<(Id, Id)> = egraph[x]
                .nodes
                .iter()
                .filter(|n| {
                    n.head == Head::Op(OpKind::Binary(BinaryOp::Mul)) && n.children.len() == 2
                })
                .map(|n| (n.children[0], n.children[1]))
                .collect();
            for (a, b) in factors {
                let (col, row) = match (step_form(egraph, a), step_form(egraph, b)) {
                    (Some((ta, Form::Column)), Some((tb, Form::Row))) if ta == tb => (a, b),
                    (Some((ta, Form::Row)), Some((tb, Form::Column))) if ta == tb => (b, a),
                    _ => continue,
                };
                let product = outer_product_sum(egraph, col, row);
                if union_checked(egraph, rule, eclass, product) {
                    changed.push(eclass);
                }
            }
        }
        changed
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// Which singleton axis a stacked operand has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// `(T, p, 1)`.
    Column,
    /// `(T, 1, q)`.
    Row,
}

/// The step count and form of a float operand of rank 3 with one
/// singleton axis after a step axis that is not itself a broadcast 1.
fn step_form(egraph: &EGraph, c: Id) -> Option<(Dim, Form)> {
    let t: &Type = egraph[c].data.ty()?;
    if !t.dtype.is_float() || t.ndim() != 3 || t.shape.contains(&Dim::Unknown) {
        return None;
    }
    let steps = t.shape[0].clone();
    if steps.is_one() {
        return None;
    }
    let form = if t.shape[2].is_one() {
        Form::Column
    } else if t.shape[1].is_one() {
        Form::Row
    } else {
        return None;
    };
    Some((steps, form))
}

fn is_lit(egraph: &EGraph, c: Id, v: i64) -> bool {
    egraph[c]
        .nodes
        .iter()
        .any(|n| n.head == Head::Lit(Lit(Scalar::I64(v))))
}

/// `(dot (transpose (squeeze col 2) 1 0) (squeeze row 1))`.
fn outer_product_sum(egraph: &mut EGraph, col: Id, row: Id) -> Id {
    let two = lit(egraph, 2);
    let one = lit(egraph, 1);
    let zero = lit(egraph, 0);
    let a = op(egraph, OpKind::Squeeze, vec![col, two]);
    let at = op(egraph, OpKind::Transpose, vec![a, one, zero]);
    let b = op(egraph, OpKind::Squeeze, vec![row, one]);
    op(egraph, OpKind::Dot, vec![at, b])
}
