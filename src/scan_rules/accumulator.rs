//! `scan-accumulator-out`: an accumulator that the loop's recurrence does
//! not read leaves the loop; its terms are stacked and summed after it.
//!
//! A sitsot `acc_t = acc_{t-1} + f_t` (`add`, either operand order) whose
//! previous value no other body result reads, and whose `f_t` reads the
//! loop's state (otherwise it is `scan-to-reduction`'s), is the running
//! sum `acc_0 + f_1 + ... + f_t`. The rule replaces it by a mapped output
//! stacking `F = (f_1, ..., f_T)` in the same loop (the other outputs are
//! unchanged) and writes the accumulator's trace after the loop as
//!
//! ```text
//! (slice (cumsum (concat 0 (expand_dims acc_0 0) F) 0) 1 none 1)
//! ```
//!
//! The initial value is kept (PyTensor's `push_out_dot1` drops it), and
//! the running sum adds the rows in the loop's order — `cumsum` is
//! sequential in both executors (`exec/ops/reduce.rs`) — so every value,
//! the last one included, is the loop's bit for bit: no range condition is
//! needed, and the floating-point contract (rules/README.md) holds at any
//! magnitude. Reading it at `-1` fails where the loop's output does (a
//! loop of 0 steps has no last value). Once `F` is stacked, a term of `F`
//! may leave the loop too (`scan-push-out-output`, `scan-drop-output`).
//!
//! Does not fire on: a loop with a mitmot, an accumulator some other body
//! result reads (it feeds the recurrence), an `f_t` that reads the
//! accumulator or no state, an `f_t` of another type than the state (a
//! broadcast or a promotion in the update), a bool state, an output that
//! keeps only its last steps (the save-mem variants: the full loop is
//! rewritten and save-mem applies to the result), a loop that already has
//! [`super::MAX_MERGED_OUTPUTS`] outputs.

use super::build::{NewOutput, NewScan};
use super::scan_node::ScanNode;
use super::{per_scan_rule, proj, union_checked, MAX_MERGED_OUTPUTS};
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, OpKind};
use crate::lang::{BinaryOp, CumOp, DType, OutputInfo};
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule("scan-accumulator-out", super::Reads::Loop, accumulators_out)
}

/// The term `f_t` of accumulator output `k`, if output `k` is one.
pub(super) fn accumulated_term(egraph: &EGraph, scan: &ScanNode, k: usize) -> Option<Id> {
    if scan.sig.outputs.get(k)? != &OutputInfo::Sitsot || scan.sig.kept(k).is_some() {
        return None;
    }
    let acc = *scan.state_params(k).first()?;
    let states = scan.all_state_params();
    let own = scan.sig.body_output_range(k).start;
    let read_elsewhere = scan
        .body
        .iter()
        .enumerate()
        .any(|(i, b)| i != own && egraph[*b].data.deps.contains(&acc));
    if read_elsewhere {
        return None;
    }
    let body = *scan.body.get(own)?;
    let state_ty = egraph[body].data.ty()?.clone();
    if state_ty.dtype == DType::Bool {
        return None;
    }
    let is_acc = |c: Id| {
        egraph[c]
            .nodes
            .iter()
            .any(|n| matches!(n.head, Head::Arg(p, _) if p == acc))
    };
    egraph[body].nodes.iter().find_map(|n| {
        if n.head != Head::Op(OpKind::Binary(BinaryOp::Add)) || n.children.len() != 2 {
            return None;
        }
        let (x, y) = (egraph.find(n.children[0]), egraph.find(n.children[1]));
        let f = match (is_acc(x), is_acc(y)) {
            (true, false) => y,
            (false, true) => x,
            _ => return None,
        };
        let deps = &egraph[f].data.deps;
        let fits = egraph[f]
            .data
            .ty()
            .is_some_and(|t| t.dtype == state_ty.dtype && t.shape == state_ty.shape);
        (fits && !deps.contains(&acc) && !deps.is_disjoint(&states)).then_some(f)
    })
}

fn accumulators_out(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    if scan.sig.has_mitmot() || scan.sig.outputs.len() > MAX_MERGED_OUTPUTS {
        return changed;
    }
    // One accumulator per rebuilt loop: the rule meets the new loop again
    // for the next.
    let Some((k, f)) =
        (0..scan.sig.outputs.len()).find_map(|k| Some((k, accumulated_term(egraph, scan, k)?)))
    else {
        return changed;
    };
    let Some(init) = scan.init_outer(k) else {
        return changed;
    };
    let (Some(init_ty), Some(f_ty)) = (
        egraph[init].data.ty().cloned(),
        egraph[f].data.ty().cloned(),
    ) else {
        return changed;
    };
    if init_ty.dtype != f_ty.dtype || init_ty.shape != f_ty.shape {
        return changed;
    }
    let Some(mut spec) = NewScan::like(egraph, scan) else {
        return changed;
    };
    spec.outputs[k] = NewOutput::mapped(f_ty.strong(), f);
    let source = spec.source_of(scan);
    let Some(new) = spec.build(egraph, &[source]) else {
        return changed;
    };
    changed.extend(super::union_outputs(
        egraph,
        rule,
        scan.class,
        new,
        (0..scan.sig.outputs.len()).filter(|j| *j != k),
    ));
    let stacked = proj(egraph, new, k);
    let trace = super::terms::running_from(egraph, CumOp::Cumsum, init, stacked);
    let old = proj(egraph, scan.class, k);
    if union_checked(egraph, rule, old, trace) {
        changed.push(old);
    }
    changed
}
