//! Reach stamps: the latest saturation iteration in which anything a class
//! reaches changed.
//!
//! Owns: [`reach_stamps`], computed by the runner before each iteration
//! from each class's [`ClassData::touched`] (the iteration that made it,
//! merged another class into it, or refined its data). Must not: decide
//! what a rewrite may skip (the rewrites that read only what their match
//! reaches use the stamps to skip a match they have seen unchanged; see
//! `scan_rules::seen`).
//!
//! A class's reach stamp is the largest `touched` among the classes it
//! reaches through its nodes' children, itself included. Every change egg
//! makes to a class goes through a union or a refinement of its data, so
//! a class whose reach stamp is below iteration `i` holds, with everything
//! under it, exactly what it held when iteration `i` began.
//!
//! [`ClassData::touched`]: super::analysis::ClassData::touched

use super::analysis::EGraph;
use egg::Id;
use std::collections::HashMap;

/// Every class's reach stamp (see the module docs), in time linear in the
/// e-graph: classes are taken by `touched`, latest first, and each
/// stamps every class above it not stamped yet, so each class is stamped
/// once, with the latest iteration it reaches.
pub fn reach_stamps(egraph: &EGraph) -> HashMap<Id, u64> {
    let mut order: Vec<(u64, Id)> = egraph
        .classes()
        .map(|c| (c.data.touched, egraph.find(c.id)))
        .collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    let mut stamps: HashMap<Id, u64> = HashMap::with_capacity(order.len());
    let mut stack = Vec::new();
    for (touched, id) in order {
        if stamps.contains_key(&id) {
            continue;
        }
        stamps.insert(id, touched);
        stack.push(id);
        while let Some(c) = stack.pop() {
            for p in egraph[c].parents() {
                let p = egraph.find(p);
                if let std::collections::hash_map::Entry::Vacant(e) = stamps.entry(p) {
                    e.insert(touched);
                    stack.push(p);
                }
            }
        }
    }
    stamps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egraph::analysis::TensorAnalysis;
    use crate::egraph::term::{program_to_expr, Head, OpKind, TNode};
    use crate::lang::op::UnaryOp;
    use crate::lang::parse_program;

    fn egraph_of(src: &str, iteration: u64) -> (EGraph, Id) {
        let p = parse_program(src).expect("parse");
        let mut g = EGraph::new(TensorAnalysis::default());
        g.analysis.iteration = iteration;
        let root = g.add_expr(&program_to_expr(&p).expect("term"));
        g.rebuild();
        (g, root)
    }

    /// The class holding a node with head `op`, and that node's children.
    fn class_with(g: &EGraph, op: OpKind) -> (Id, Vec<Id>) {
        g.classes()
            .find_map(|c| {
                c.nodes
                    .iter()
                    .find(|n| n.head == Head::Op(op))
                    .map(|n| (c.id, n.children.clone()))
            })
            .expect("class")
    }

    /// A union below a class reaches its stamp and every class above it;
    /// a class beside it keeps its stamp.
    #[test]
    fn a_union_stamps_every_class_above_it() {
        let (mut g, root) = egraph_of(
            "(program p (input x (f64 3)) (input y (f64 3))
               (output (add (exp x) (neg y))))",
            1,
        );
        let stamps = reach_stamps(&g);
        assert!(stamps.values().all(|&s| s == 1), "{stamps:?}");
        g.analysis.iteration = 2;
        let (exp_x, x) = class_with(&g, OpKind::Unary(UnaryOp::Exp));
        let (neg_y, _) = class_with(&g, OpKind::Unary(UnaryOp::Neg));
        let other = g.add(TNode {
            head: Head::Op(OpKind::Unary(UnaryOp::Log)),
            children: x,
        });
        g.union(exp_x, other);
        g.rebuild();
        let stamps = reach_stamps(&g);
        assert_eq!(stamps[&g.find(exp_x)], 2);
        assert_eq!(stamps[&g.find(root)], 2, "the root reaches the union");
        assert_eq!(stamps[&g.find(neg_y)], 1, "neg y reaches nothing new");
    }
}
