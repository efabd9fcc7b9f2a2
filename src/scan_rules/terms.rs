//! Small term builders the Scan rewrites share: an op over classes, an
//! integer literal, and the few shapes of terms several rules write.
//!
//! Owns: adding these nodes to the e-graph. Must not: decide anything —
//! the rules choose what to build; this only spells it.

use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::{CumOp, Scalar};
use egg::Id;

/// The node `(name children...)`.
pub fn op(egraph: &mut EGraph, name: OpKind, children: Vec<Id>) -> Id {
    egraph.add(TNode {
        head: Head::Op(name),
        children,
    })
}

/// The integer literal `v` (an axis, an index, a bound).
pub fn lit(egraph: &mut EGraph, v: i64) -> Id {
    egraph.add(TNode::lit(Scalar::I64(v)))
}

/// `(index x i)`.
pub fn index(egraph: &mut EGraph, x: Id, i: i64) -> Id {
    let i = lit(egraph, i);
    op(egraph, OpKind::Index, vec![x, i])
}

/// `(expand_dims x axis)`.
pub fn expand_dims(egraph: &mut EGraph, x: Id, axis: i64) -> Id {
    let a = lit(egraph, axis);
    op(egraph, OpKind::ExpandDims, vec![x, a])
}

/// `(concat 0 parts ...)`.
pub fn concat0(egraph: &mut EGraph, parts: Vec<Id>) -> Id {
    let mut children = vec![lit(egraph, 0)];
    children.extend(parts);
    op(egraph, OpKind::Concat, children)
}

/// `(slice (CUM (concat 0 (expand_dims s0 0) F) 0) 1 none 1)`: the running
/// sum or product of the rows of `F` started at `s0`, in the loop's order
/// (`cumsum` and `cumprod` are sequential), without `s0`'s own row — the
/// trace of a loop's fold, every value the loop's.
pub fn running_from(egraph: &mut EGraph, cum: CumOp, s0: Id, rows: Id) -> Id {
    let first = expand_dims(egraph, s0, 0);
    let joined = concat0(egraph, vec![first, rows]);
    let zero = lit(egraph, 0);
    let running = op(egraph, OpKind::Cumulative(cum), vec![joined, zero]);
    let one = lit(egraph, 1);
    let open = egraph.add(TNode::leaf(Head::NoneBound));
    op(egraph, OpKind::Slice, vec![running, one, open, one])
}
