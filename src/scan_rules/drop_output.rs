//! `scan-drop-output`: a loop without one of its outputs.
//!
//! When no other output's step term reads output j's state, the loop
//! without output j computes the others exactly; each of their `proj`s is
//! unioned with the smaller loop's. Extraction keeps the smaller loop when
//! nothing reads output j (or when output j is computed elsewhere, e.g.
//! after the loop by `scan-push-out-output`). Sequences and non-sequences
//! only output j read go with it.
//!
//! Only outputs worth dropping are tried — an output that nothing reads
//! (its `proj` has no parent in the e-graph), or one that is also computed
//! without this loop (its `proj` class holds a non-`proj` term, e.g. from
//! `scan-push-out-output`) or by another output of the same loop — so the
//! variants do not grow as the subsets of the outputs.
//!
//! Does not fire on: an output whose state another output reads (directly
//! or through a chain of states); a loop with one output; an output read
//! elsewhere and computed only here.

use super::build::NewScan;
use super::scan_node::ScanNode;
use super::{per_scan_rule, proj, union_checked};
use crate::lang::egraph::{Head, OpName, TNode};
use crate::lang::Scalar;
use crate::rules::analysis::EGraph;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule("scan-drop-output", drop_output)
}

fn drop_output(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let n = scan.body.len();
    if n < 2 {
        return Vec::new();
    }
    let droppable: Vec<usize> = (0..n)
        .filter(|j| worth_dropping(egraph, scan, *j))
        .collect();
    if droppable.is_empty() {
        return Vec::new();
    }
    // All at once (one variant, not one per subset); when the outputs that
    // stay read one of them, each alone.
    if droppable.len() < n {
        let changed = without(egraph, scan, &droppable, rule);
        if !changed.is_empty() {
            return changed;
        }
    }
    let mut changed = Vec::new();
    if droppable.len() > 1 {
        for j in droppable {
            changed.extend(without(egraph, scan, &[j], rule));
        }
    }
    changed
}

/// The loop without the outputs `drop` (sorted), each remaining `proj`
/// unioned with the smaller loop's; empty if it cannot be built.
fn without(egraph: &mut EGraph, scan: &ScanNode, drop: &[usize], rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    let Some(mut spec) = NewScan::like(egraph, scan) else {
        return changed;
    };
    for j in drop.iter().rev() {
        spec.outputs.remove(*j);
    }
    let out_map = |i: usize| -> Option<usize> {
        (!drop.contains(&i)).then(|| i - drop.iter().filter(|d| **d < i).count())
    };
    let source = spec.source_with(scan, &out_map);
    let Some(new) = spec.build(egraph, &[source]) else {
        return changed;
    };
    for i in 0..scan.body.len() {
        if let Some(i2) = out_map(i) {
            let old_p = proj(egraph, scan.class, i);
            let new_p = proj(egraph, new, i2);
            if union_checked(egraph, rule, old_p, new_p) {
                changed.push(old_p);
            }
        }
    }
    changed
}

/// True when output `j`'s `proj` is read by nothing, or is computed
/// otherwise too (see the module docs).
fn worth_dropping(egraph: &EGraph, scan: &ScanNode, j: usize) -> bool {
    let Some(kl) = egraph.lookup(TNode::lit(Scalar::I64(j as i64))) else {
        return true;
    };
    let Some(p) = egraph.lookup(TNode {
        head: Head::Op(OpName::Proj),
        children: vec![kl, scan.class],
    }) else {
        return true;
    };
    let class = &egraph[p];
    class.parents().len() == 0
        || class.nodes.iter().any(|n| match n.head {
            Head::Op(OpName::Proj) => {
                egraph.find(n.children[1]) == scan.class && egraph.find(n.children[0]) != kl
            }
            _ => true,
        })
}
