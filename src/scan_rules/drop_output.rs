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
//! (its `proj` has no parent in the e-graph), a duplicate of an earlier
//! output of the same loop, or one that is also computed without this loop
//! (its `proj` class holds a non-`proj` term, e.g. from
//! `scan-push-out-output`) — and the variants do not grow as the subsets
//! of the outputs:
//!
//! - one variant without the unread outputs and the duplicates (they are
//!   of no use);
//! - when some outputs are read and computed only here, one variant keeps
//!   just them and the states they read, every other output dropped at
//!   once;
//! - when every read output is also computed elsewhere, which of them the
//!   loop is still worth computing is for the cost model: each gets a loop
//!   of its own (with the states it reads), one variant per output.
//!
//! A mitmot is one output (with a body result per out tap): it is dropped
//! whole when nothing reads it and no kept output reads its slots, as
//! PyTensor's `scan_remove_unused` drops a mitmot group.
//!
//! A while loop drops outputs too, but never a state its condition reads
//! (directly or through a chain of states: PyTensor's `scan_remove_unused`
//! keeps the condition's inputs as survivors); its step count and
//! condition do not change.
//!
//! Does not fire on: an output whose state a kept output or a while
//! loop's condition reads (directly or through a chain of states); a loop
//! with one output; a loop whose outputs are all read and computed only
//! by it.

use super::build::{NewOutput, NewScan};
use super::scan_node::ScanNode;
use super::{per_scan_rule_while_too, proj, union_loop_forms};
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::BodyParam;
use crate::lang::Scalar;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule_while_too("scan-drop-output", super::Reads::Context, drop_output)
}

/// How an output of a loop is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// Nothing reads its `proj`.
    Unread,
    /// It equals an output of the same loop that comes before it.
    Duplicate,
    /// Its `proj` is read, and computed otherwise too (its class holds a
    /// term that is not a `proj`).
    Elsewhere,
    /// Read, and computed only here.
    Here,
}

fn drop_output(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    // Outputs, not body results: a mitmot is one output with a result per
    // out tap, dropped (when nothing reads it) as a whole, as in PyTensor.
    let n = scan.sig.outputs.len();
    if n < 2 {
        return Vec::new();
    }
    let uses: Vec<Use> = (0..n).map(|j| use_of(egraph, scan, j)).collect();
    let of = |u: Use| -> Vec<usize> { (0..n).filter(|j| uses[*j] == u).collect() };
    let (here, elsewhere) = (of(Use::Here), of(Use::Elsewhere));
    let mut changed = Vec::new();
    // Without what is of no use (unread outputs, duplicates).
    let wanted: Vec<usize> = (0..n)
        .filter(|j| matches!(uses[*j], Use::Here | Use::Elsewhere))
        .collect();
    if wanted.is_empty() {
        return changed;
    }
    if wanted.len() < n {
        changed.extend(keeping(egraph, scan, &wanted, rule).unwrap_or_default());
    }
    if elsewhere.is_empty() {
        return changed;
    }
    if !here.is_empty() {
        // Also without what is computed elsewhere: one variant.
        match keeping(egraph, scan, &here, rule) {
            Some(c) => changed.extend(c),
            None => {
                // A kept output's term reads a dropped state after all
                // (the dependence sets are a lower bound): each alone.
                for j in elsewhere {
                    let rest: Vec<usize> = wanted.iter().copied().filter(|k| *k != j).collect();
                    changed.extend(keeping(egraph, scan, &rest, rule).unwrap_or_default());
                }
            }
        }
        return changed;
    }
    // Every read output is computed elsewhere too: which of them the loop
    // is still worth computing is the cost model's choice, so each gets a
    // loop of its own (with the states it reads), one variant per output
    // rather than one per subset.
    for j in elsewhere {
        changed.extend(keeping(egraph, scan, &[j], rule).unwrap_or_default());
    }
    changed
}

/// The loop with only `outputs` and the states they read (see
/// [`without`]); nothing when that is every output.
fn keeping(
    egraph: &mut EGraph,
    scan: &ScanNode,
    outputs: &[usize],
    rule: Symbol,
) -> Option<Vec<Id>> {
    let keep = with_states_read(egraph, scan, outputs);
    let drop: Vec<usize> = (0..scan.sig.outputs.len())
        .filter(|j| !keep.contains(j))
        .collect();
    if drop.is_empty() {
        return Some(Vec::new());
    }
    without(egraph, scan, &drop, rule)
}

/// `outputs` and every output whose state they read, directly or through
/// other states: the outputs a loop computing `outputs` must keep. Read
/// from the dependence sets, which hold only inputs every term of a class
/// reads (a lower bound).
fn with_states_read(egraph: &EGraph, scan: &ScanNode, outputs: &[usize]) -> Vec<usize> {
    let inputs = scan.sig.body_params();
    let mut keep: Vec<usize> = outputs.to_vec();
    let states_read = |term: Id, keep: &mut Vec<usize>| {
        for p in &egraph[term].data.deps {
            if let Some(BodyParam::State { out, .. }) = inputs.get(*p) {
                if !keep.contains(out) {
                    keep.push(*out);
                }
            }
        }
    };
    // A while loop's condition reads states that stay.
    if let Some(cond) = scan.until {
        states_read(cond, &mut keep);
    }
    let mut i = 0;
    while i < keep.len() {
        let Some(results) = scan.body.get(scan.sig.body_output_range(keep[i])) else {
            break;
        };
        for body in results {
            states_read(*body, &mut keep);
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
    rebuilt_without(egraph, scan, drop, Vec::new(), rule).map(|(_, changed)| changed)
}

/// The loop without the outputs `drop` (sorted) and with `added` after
/// the others, each remaining output's `proj` unioned with the new loop's
/// (the added outputs are the caller's to use): the new loop's class and
/// the classes that changed; `None` if it cannot be built.
pub(super) fn rebuilt_without(
    egraph: &mut EGraph,
    scan: &ScanNode,
    drop: &[usize],
    added: Vec<NewOutput>,
    rule: Symbol,
) -> Option<(Id, Vec<Id>)> {
    let mut changed = Vec::new();
    let mut spec = NewScan::like(egraph, scan)?;
    for j in drop.iter().rev() {
        spec.outputs.remove(*j);
    }
    spec.outputs.extend(added);
    let out_map = |i: usize| -> Option<usize> {
        (!drop.contains(&i)).then(|| i - drop.iter().filter(|d| **d < i).count())
    };
    let source = spec.source_with(scan, &out_map);
    let new = spec.build(egraph, &[source])?;
    for i in 0..scan.sig.outputs.len() {
        if let Some(i2) = out_map(i) {
            let old_p = proj(egraph, scan.class, i);
            let new_p = proj(egraph, new, i2);
            if union_loop_forms(egraph, scan, rule, old_p, new_p) {
                changed.push(old_p);
            }
        }
    }
    Some((new, changed))
}

/// How output `j` of `scan` is used (see [`Use`]).
fn use_of(egraph: &EGraph, scan: &ScanNode, j: usize) -> Use {
    let Some(kl) = egraph.lookup(TNode::lit(Scalar::I64(j as i64))) else {
        return Use::Unread;
    };
    let Some(p) = egraph.lookup(TNode {
        head: Head::Op(OpKind::Proj),
        children: vec![kl, scan.class],
    }) else {
        return Use::Unread;
    };
    let class = &egraph[p];
    if class.parents().len() == 0 {
        return Use::Unread;
    }
    let earlier = super::projs_in(egraph, p)
        .iter()
        .any(|(k, s)| *s == scan.class && *k < j);
    if earlier {
        Use::Duplicate
    } else if class.nodes.iter().any(|n| n.head != Head::Op(OpKind::Proj)) {
        Use::Elsewhere
    } else {
        Use::Here
    }
}
