//! `scan-merge-outputs` (the output half of PyTensor's merge-inouts):
//! two outputs whose step terms are the same class are the same output.
//!
//! Row t of an output is its step term evaluated at step t, whatever its
//! kind, so equal step terms give equal outputs; the duplicate is then
//! read from the first and split off by `scan-drop-output`. Inputs given
//! twice are merged by every rebuild ([`super::build`]).
//!
//! Does not fire on: a loop with a mitmot (its body results are tape
//! writes, not outputs); outputs whose terms differ, e.g. two states with the
//! same update that each read their own previous value; outputs that keep
//! different steps (`(keep K)`: one holds its last K steps alone).

use super::scan_node::ScanNode;
use super::{per_scan_rule, proj, union_checked};
use crate::egraph::analysis::EGraph;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule("scan-merge-outputs", super::Reads::Loop, merge_outputs)
}

fn merge_outputs(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    // Refused with a mitmot: its body results are tape writes, not outputs
    // (PyTensor merges two mitmots only when tape and taps are the same).
    if scan.sig.has_mitmot() {
        return changed;
    }
    for j in 0..scan.body.len() {
        for k in j + 1..scan.body.len() {
            // Equal only when both keep the same steps: a `(keep K)`
            // output's projection holds its last K steps alone.
            if scan.body[j] == scan.body[k] && scan.sig.kept(j) == scan.sig.kept(k) {
                let pj = proj(egraph, scan.class, j);
                let pk = proj(egraph, scan.class, k);
                if union_checked(egraph, rule, pj, pk) {
                    changed.push(pj);
                }
            }
        }
    }
    changed
}
