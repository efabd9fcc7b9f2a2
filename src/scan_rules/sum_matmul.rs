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
//! When `T` or `k` is a symbolic size (a batched loop's steps and rows,
//! `optimize::batch`), `T·k` has no term form (a size is a literal or one
//! symbol) and the reshapes write `-1` for it: `(reshape X -1 p)`, its
//! type's size unknown until the program runs. `p` and `q` must then be
//! positive literals (`-1` next to a size 0 is ambiguous).
//!
//! Does not fire on: operands of another rank than 3, a step axis or an
//! inner size that may differ between `A` and `B` (one broadcast), a
//! symbolic `T·k` beside a `p` or `q` that is not a positive literal,
//! integer or bool operands, a sum over another axis.

use super::terms::{lit, op};
use super::union_checked;
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, Lit, OpKind, TNode};
use crate::lang::{Dim, ReduceOp, Scalar, Type};
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

/// The sizes of a sum of stacked products: `T·k` as a literal when both
/// are (`None` when symbolic: the reshapes infer it, `-1`), and `p`, `q`.
pub(super) struct Sizes {
    tk: Option<i64>,
    p: i64,
    q: i64,
}

/// The [`Sizes`] for float operands `(T, p, k)` and `(T, k, q)` whose
/// step axes and inner sizes are the same sizes, `p` and `q` literals
/// (`T·k` not overflowing when literal; `p`, `q` positive when not).
pub(super) fn sizes(egraph: &EGraph, a: Id, b: Id) -> Option<Sizes> {
    let ty = |c: Id| -> Option<&Type> {
        let t: &Type = egraph[c].data.ty()?;
        (t.dtype.is_float() && t.ndim() == 3).then_some(t)
    };
    let (sa, sb) = (&ty(a)?.shape, &ty(b)?.shape);
    if sa[0] != sb[0] || sa[2] != sb[1] || sa[0] == Dim::Unknown || sa[2] == Dim::Unknown {
        return None;
    }
    let (p, q) = (sa[1].as_known()?, sb[2].as_known()?);
    let tk = match (sa[0].as_known(), sa[2].as_known()) {
        (Some(t), Some(k)) => Some(t.checked_mul(k)?),
        _ if p > 0 && q > 0 => None,
        _ => return None,
    };
    Some(Sizes { tk, p, q })
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
pub(super) fn stacked_product(egraph: &mut EGraph, a: Id, b: Id, Sizes { tk, p, q }: Sizes) -> Id {
    let tk = lit(egraph, tk.unwrap_or(-1));
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
