//! `scan-push-out-output`: an output computed from other outputs' step
//! values is computed after the loop, on their stacked values.
//!
//! With `h_t` a state's new value, `o_t = dot(V, h_t)` is, over all steps,
//! `dot(H, Vᵀ)` with `H` the stacked states: one matrix product after the
//! loop instead of a matrix-vector product per step. The output then
//! stays in the loop only if something else reads it (see
//! `scan-drop-output`).
//!
//! A while loop's output is pushed out too (research §5.2: allowed, the
//! steps that ran being known after the loop): from the other outputs'
//! stacked values and the non-sequences only (a sequence has more rows
//! than the steps that ran), its length the steps that ran. Its step
//! count and condition do not change, and the output stays in the loop
//! while the condition reads it (the e-graph keeps both forms).
//!
//! Does not fire on: a loop with a mitmot (a tape has no stacked step
//! values); an output whose only other outputs keep their last steps
//! alone (`(keep K)`: their projections are not the stacked values); an
//! output that reads a state's previous value (`h_{t-1}`)
//! or its own; one that no other output's value appears in (that is
//! `scan-push-out-seq`'s case).

use super::scan_node::ScanNode;
use super::vectorize::{Outer, Vectorizer};
use super::{per_scan_rule_while_too, proj, union_loop_forms};
use crate::egraph::analysis::EGraph;
use crate::lang::Dim;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule_while_too("scan-push-out-output", super::Reads::Loop, push_out_output)
}

fn push_out_output(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    // Refused with a mitmot: a tape output has no per-step values to stack
    // (PyTensor leaves mitmot loops alone here too).
    if scan.body.len() < 2 || scan.sig.has_mitmot() {
        return changed;
    }
    let projs: Vec<Id> = (0..scan.body.len())
        .map(|k| proj(egraph, scan.class, k))
        .collect();
    let until = scan.sig.until;
    for j in 0..scan.body.len() {
        let params = Vectorizer::standard_params(egraph, scan, !until);
        // A while loop's stacked values have as many rows as steps ran.
        let mut vz = if until {
            Vectorizer::with_rows(params, Dim::Unknown)
        } else {
            let Some(vz) = Vectorizer::new(scan, egraph, params) else {
                return changed;
            };
            vz
        };
        let mut any_leaf = false;
        for (k, b) in scan.body.iter().enumerate() {
            // An output that keeps only its last steps (`scan-save-mem`)
            // has no stacked values to read: its steps are recomputed.
            if k != j && *b != scan.body[j] && scan.sig.kept(k).is_none() {
                vz.set_leaf(
                    *b,
                    Outer {
                        id: projs[k],
                        batched: true,
                    },
                );
                any_leaf = true;
            }
        }
        if !any_leaf {
            continue;
        }
        let Some(o) = vz.outer(egraph, scan.body[j]) else {
            continue;
        };
        if o.batched && union_loop_forms(egraph, scan, rule, projs[j], o.id) {
            changed.push(projs[j]);
        }
    }
    changed
}
