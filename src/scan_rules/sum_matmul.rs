//! `sum-matmul-steps`: a sum over the leading (step) axis of stacked
//! matrix products is one matrix product over all steps.
//!
//! With `A` of type `(T, p, k)` and `B` of type `(T, k, q)`,
//! `(sum (matmul A B) 0)` is `Σ_t A_t B_t = [A_1 … A_T] [B_1; …; B_T]`:
//! the `p × Tk` matrix of the `A_t` side by side times the `Tk × q` matrix
//! of the `B_t` stacked, written
//!
//! ```text
//! (dot (reshape (transpose A 1 0 2) p Tk) (reshape B Tk q))
//! ```
//!
//! or, when `A`'s class holds `(transpose X 0 2 1)` (each `A_t` a
//! transposed `X_t`, as a weight gradient's `x_tᵀ g_t` is),
//! `(dot (transpose (reshape X Tk p) 1 0) (reshape B Tk q))`, which reads
//! `X` in place. One product of `2 p q T k` operations instead of `T`
//! small ones and a `T × p × q` temporary written and summed again. This
//! is the form a backward loop leaves for a weight gradient once its
//! per-step products are computed after the loop (`scan-accumulator-out`,
//! `scan-push-out-output`), for any `k` (`sum-outer-products` is the
//! `k = 1` case written with `mul`). The sum is bracketed differently (a
//! dot's inner sum instead of a sum of the steps in order), as
//! `sum-outer-products` and `scan-to-reduction` already allow.
//!
//! Does not fire on: operands of another rank than 3, a step axis of
//! another length in `A` and `B` (one broadcast), sizes that are not
//! literals (the reshape needs `T·k`), integer or bool operands, a sum
//! over another axis.

use super::terms::{lit, op};
use super::union_checked;
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, Lit, OpKind, TNode};
use crate::lang::{ReduceOp, Scalar, Type};
use egg::{Applier, Id, PatternAst, Rewrite, Subst, Symbol, Var};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    Rewrite::new(
        "sum-matmul-steps",
        super::ClassesWithHead(Head::Op(OpKind::Reduce(ReduceOp::Sum))),
        SumMatmul,
    )
}

#[derive(Clone, Copy, Debug)]
struct SumMatmul;

impl Applier<TNode, TensorAnalysis> for SumMatmul {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        _subst: &Subst,
        _ast: Option<&PatternAst<TNode>>,
        rule: Symbol,
    ) -> Vec<Id> {
        let summed = super::outer_sum::summed_down_axis0(egraph, eclass);
        let mut changed = Vec::new();
        for x in summed {
            let products: Vec<(Id, Id)> = egraph[x]
                .nodes
                .iter()
                .filter(|n| n.head == Head::Op(OpKind::Matmul) && n.children.len() == 2)
                .map(|n| (n.children[0], n.children[1]))
                .collect();
            for (a, b) in products {
                let Some(sizes) = sizes(egraph, a, b) else {
                    continue;
                };
                let product = stacked_product(egraph, a, b, sizes);
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

/// `(T, p, k, q)` for float operands `(T, p, k)` and `(T, k, q)` of
/// literal sizes (`T·k` not overflowing).
fn sizes(egraph: &EGraph, a: Id, b: Id) -> Option<[i64; 4]> {
    let known = |c: Id| -> Option<Vec<i64>> {
        let t: &Type = egraph[c].data.ty()?;
        if !t.dtype.is_float() || t.ndim() != 3 {
            return None;
        }
        t.shape.iter().map(|d| d.as_known()).collect()
    };
    let (sa, sb) = (known(a)?, known(b)?);
    if sa[0] != sb[0] || sa[2] != sb[1] {
        return None;
    }
    sa[0].checked_mul(sa[2])?;
    Some([sa[0], sa[1], sa[2], sb[2]])
}

fn is_lit(egraph: &EGraph, c: Id, v: i64) -> bool {
    egraph[c]
        .nodes
        .iter()
        .any(|n| n.head == Head::Lit(Lit(Scalar::I64(v))))
}

/// The operand `X` of a `(transpose X 0 2 1)` in class `a`.
fn swapped_operand(egraph: &EGraph, a: Id) -> Option<Id> {
    egraph[a].nodes.iter().find_map(|n| {
        let perm_is = |want: &[i64]| {
            n.children.len() == 4
                && n.children[1..]
                    .iter()
                    .zip(want)
                    .all(|(&c, &w)| is_lit(egraph, c, w))
        };
        (n.head == Head::Op(OpKind::Transpose) && perm_is(&[0, 2, 1])).then(|| n.children[0])
    })
}

/// `[A_1 … A_T] [B_1; …; B_T]` as one `dot`.
fn stacked_product(egraph: &mut EGraph, a: Id, b: Id, [t, p, k, q]: [i64; 4]) -> Id {
    let tk = lit(egraph, t * k);
    let (lp, lq) = (lit(egraph, p), lit(egraph, q));
    let left = match swapped_operand(egraph, a) {
        Some(x) => {
            let flat = op(egraph, OpKind::Reshape, vec![x, tk, lp]);
            let (one, zero) = (lit(egraph, 1), lit(egraph, 0));
            op(egraph, OpKind::Transpose, vec![flat, one, zero])
        }
        None => {
            let (one, zero, two) = (lit(egraph, 1), lit(egraph, 0), lit(egraph, 2));
            let moved = op(egraph, OpKind::Transpose, vec![a, one, zero, two]);
            op(egraph, OpKind::Reshape, vec![moved, lp, tk])
        }
    };
    let right = op(egraph, OpKind::Reshape, vec![b, tk, lq]);
    op(egraph, OpKind::Dot, vec![left, right])
}
