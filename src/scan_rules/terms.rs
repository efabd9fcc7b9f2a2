//! Small term builders the Scan rewrites share: an op over classes, an
//! integer literal, and the few shapes of terms several rules write.
//!
//! Owns: adding these nodes to the e-graph. Must not: decide anything —
//! the rules choose what to build; this only spells it.

use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::Scalar;
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
