//! `scan-stack-factor`: the loop-varying factor of a per-step product is
//! stacked by the loop, so the product can leave it.
//!
//! A mapped output `o_t = a_t ⊗ b_t` (`mul`, `dot` or `matmul`) whose
//! factor `a_t` reads the loop's state (the cotangent δ_t of a backward
//! loop) and whose other factor `b_t` does not (a sequence's row, a
//! non-sequence) stays in the loop as a product per step:
//! `scan-push-out-output` moves an output out only when it is computed
//! from other outputs' step values. This rule adds `a_t` as a new mapped
//! output; then `o` is a term of the stacked `A` and `b`'s sequence
//! after the loop — `Σ_t δ_t q_tᵀ` becomes one matrix product
//! (`sum-outer-products`), `W δ_t` one product with the stack — and
//! `scan-drop-output` takes `o` out of the loop. Both loops stay in the
//! e-graph; the cost model decides whether stacking `A` pays.
//!
//! A loop with a mitmot gets the new output too (its tape is untouched):
//! the product leaves through the loop's carry form
//! (`scan-mitmot-to-carry`), whose outputs other than the tape are this
//! loop's, so the mitmot loop with the stacked factor can stay.
//!
//! Does not fire on: a factor that is a bare parameter
//! (a state's previous value is not a step output), a factor already an
//! output, a product whose two factors both read the state, or neither
//! (then it is `scan-push-out-seq`'s), a loop that already has
//! [`super::MAX_MERGED_OUTPUTS`] outputs.

use super::build::NewOutput;
use super::build::NewScan;
use super::scan_node::ScanNode;
use super::{per_scan_rule, MAX_MERGED_OUTPUTS};
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, OpKind};
use crate::lang::{BinaryOp, OutputInfo};
use egg::{Id, Symbol};
use std::collections::BTreeSet;

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule("scan-stack-factor", super::Reads::Loop, stack_factor)
}

fn stack_factor(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    if scan.sig.outputs.len() >= MAX_MERGED_OUTPUTS {
        return changed;
    }
    let states = scan.all_state_params();
    let reads_state = |egraph: &EGraph, c: Id| !egraph[c].data.deps.is_disjoint(&states);
    // Results of a mitmot's out taps are tape writes, not stacked steps.
    let outputs: BTreeSet<Id> = scan
        .sig
        .body_outputs()
        .iter()
        .zip(&scan.body)
        .filter(|(r, _)| r.tap.is_none())
        .map(|(_, b)| egraph.find(*b))
        .collect();
    let mut factors: Vec<Id> = Vec::new();
    for (j, info) in scan.sig.outputs.iter().enumerate() {
        if *info != OutputInfo::Nitsot {
            continue;
        }
        let Some(&body) = scan.body.get(scan.sig.body_output_range(j).start) else {
            continue;
        };
        for n in egraph[body].nodes.iter() {
            let is_product = matches!(
                n.head,
                Head::Op(OpKind::Binary(BinaryOp::Mul) | OpKind::Dot | OpKind::Matmul)
            );
            if !is_product || n.children.len() != 2 {
                continue;
            }
            let (x, y) = (egraph.find(n.children[0]), egraph.find(n.children[1]));
            let varying = match (reads_state(egraph, x), reads_state(egraph, y)) {
                (true, false) => x,
                (false, true) => y,
                _ => continue,
            };
            let is_param = egraph[varying]
                .nodes
                .iter()
                .any(|m| matches!(m.head, Head::Arg(..)));
            if !is_param && !outputs.contains(&varying) && !factors.contains(&varying) {
                factors.push(varying);
            }
        }
    }
    // One factor per rebuilt loop: the rule meets the new loop again for
    // the next.
    let Some(&factor) = factors.first() else {
        return changed;
    };
    let Some(step_type) = egraph[factor].data.ty().cloned() else {
        return changed;
    };
    let Some(mut spec) = NewScan::like(egraph, scan) else {
        return changed;
    };
    spec.outputs
        .push(NewOutput::mapped(step_type.strong(), factor));
    let source = spec.source_of(scan);
    let Some(new) = spec.build(egraph, &[source]) else {
        return changed;
    };
    changed.extend(super::union_outputs(
        egraph,
        rule,
        scan.class,
        new,
        0..scan.sig.outputs.len(),
    ));
    changed
}
