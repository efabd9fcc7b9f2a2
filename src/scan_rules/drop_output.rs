//! `scan-drop-output`: a loop without some of its outputs.
//!
//! When no kept output's step term reads output j's state, the loop
//! without output j computes the others exactly; each of their `proj`s is
//! unioned with the smaller loop's. Extraction keeps the smaller loop when
//! nothing reads output j (or when output j is computed elsewhere, e.g.
//! after the loop by `scan-push-out-output`). Sequences and non-sequences
//! only dropped outputs read go with them.
//!
//! Only outputs worth dropping are dropped — an output that nothing reads
//! (its `proj` has no parent in the e-graph), or one that is also computed
//! without this loop (its `proj` class holds a non-`proj` term, e.g. from
//! `scan-push-out-output`) or by another output of the same loop — and the
//! variants do not grow as the subsets of the outputs:
//!
//! - when some outputs are read and computed only here, one variant keeps
//!   just them and the states they read, every other output dropped at
//!   once;
//! - when every output is unread or computed elsewhere, which of them the
//!   loop is still worth computing is for the cost model: each read
//!   output gets a loop of its own (with the states it reads), one variant
//!   per output.
//!
//! Does not fire on: an output whose state a kept output reads (directly
//! or through a chain of states); a loop with one output; a loop whose
//! outputs are all read and computed only by it.

use super::build::NewScan;
use super::scan_node::{InnerInput, ScanNode};
use super::{per_scan_rule, proj, union_checked};
use crate::lang::egraph::{Head, OpName, TNode};
use crate::lang::Scalar;
use crate::rules::analysis::EGraph;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule("scan-drop-output", drop_output)
}

/// How an output of a loop is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// Nothing reads its `proj`.
    Unread,
    /// Its `proj` is read, and computed otherwise too (a term that is not
    /// a `proj`, or another output of the same loop).
    Elsewhere,
    /// Read, and computed only here.
    Here,
}

fn drop_output(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let n = scan.body.len();
    if n < 2 {
        return Vec::new();
    }
    let uses: Vec<Use> = (0..n).map(|j| use_of(egraph, scan, j)).collect();
    let here: Vec<usize> = (0..n).filter(|j| uses[*j] == Use::Here).collect();
    if here.len() == n {
        return Vec::new();
    }
    if !here.is_empty() {
        // One variant: every output that is not needed, dropped at once.
        let keep = with_states_read(egraph, scan, &here);
        let drop: Vec<usize> = (0..n).filter(|j| !keep.contains(j)).collect();
        if drop.is_empty() {
            return Vec::new();
        }
        if let Some(changed) = without(egraph, scan, &drop, rule) {
            return changed;
        }
        // The kept outputs' terms read a dropped state after all (the
        // dependence sets are a lower bound): each alone.
        let mut changed = Vec::new();
        if drop.len() > 1 {
            for j in drop {
                changed.extend(without(egraph, scan, &[j], rule).unwrap_or_default());
            }
        }
        return changed;
    }
    // Every output is unread or computed elsewhere too: which outputs the
    // loop is still worth computing is the cost model's choice, so each
    // read output gets a loop of its own (with the states it reads), one
    // variant per output rather than one per subset.
    let mut changed = Vec::new();
    for j in (0..n).filter(|j| uses[*j] == Use::Elsewhere) {
        let keep = with_states_read(egraph, scan, &[j]);
        let drop: Vec<usize> = (0..n).filter(|k| !keep.contains(k)).collect();
        if !drop.is_empty() {
            changed.extend(without(egraph, scan, &drop, rule).unwrap_or_default());
        }
    }
    changed
}

/// `outputs` and every output whose state they read, directly or through
/// other states: the outputs a loop computing `outputs` must keep. Read
/// from the dependence sets, which hold only inputs every term of a class
/// reads (a lower bound).
fn with_states_read(egraph: &EGraph, scan: &ScanNode, outputs: &[usize]) -> Vec<usize> {
    let inputs = scan.inner_inputs();
    let mut keep: Vec<usize> = outputs.to_vec();
    let mut i = 0;
    while i < keep.len() {
        let Some(&body) = scan.body.get(keep[i]) else {
            break;
        };
        for p in &egraph[body].data.deps {
            if let Some(InnerInput::State { out, .. }) = inputs.get(*p) {
                if !keep.contains(out) {
                    keep.push(*out);
                }
            }
        }
        i += 1;
    }
    keep.sort_unstable();
    keep
}

/// The loop without the outputs `drop` (sorted), each remaining `proj`
/// unioned with the smaller loop's: the classes that changed (none if it
/// was there already); `None` if it cannot be built.
fn without(egraph: &mut EGraph, scan: &ScanNode, drop: &[usize], rule: Symbol) -> Option<Vec<Id>> {
    let mut changed = Vec::new();
    let mut spec = NewScan::like(egraph, scan)?;
    for j in drop.iter().rev() {
        spec.outputs.remove(*j);
    }
    let out_map = |i: usize| -> Option<usize> {
        (!drop.contains(&i)).then(|| i - drop.iter().filter(|d| **d < i).count())
    };
    let source = spec.source_with(scan, &out_map);
    let new = spec.build(egraph, &[source])?;
    for i in 0..scan.body.len() {
        if let Some(i2) = out_map(i) {
            let old_p = proj(egraph, scan.class, i);
            let new_p = proj(egraph, new, i2);
            if union_checked(egraph, rule, old_p, new_p) {
                changed.push(old_p);
            }
        }
    }
    Some(changed)
}

/// How output `j` of `scan` is used (see [`Use`]).
fn use_of(egraph: &EGraph, scan: &ScanNode, j: usize) -> Use {
    let Some(kl) = egraph.lookup(TNode::lit(Scalar::I64(j as i64))) else {
        return Use::Unread;
    };
    let Some(p) = egraph.lookup(TNode {
        head: Head::Op(OpName::Proj),
        children: vec![kl, scan.class],
    }) else {
        return Use::Unread;
    };
    let class = &egraph[p];
    if class.parents().len() == 0 {
        return Use::Unread;
    }
    let elsewhere = class.nodes.iter().any(|n| match n.head {
        Head::Op(OpName::Proj) => {
            egraph.find(n.children[1]) == scan.class && egraph.find(n.children[0]) != kl
        }
        _ => true,
    });
    if elsewhere {
        Use::Elsewhere
    } else {
        Use::Here
    }
}
