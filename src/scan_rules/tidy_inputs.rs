//! `scan-tidy-inputs` (PyTensor's unused-input removal and the input half
//! of merge-inouts): the same loop without the sequences and
//! non-sequences no output reads, and with inputs given the same outer
//! value (and taps) passed once.
//!
//! Every rebuild does this ([`super::build::NewScan::build`]); this rule
//! applies it to loops as written. A loop that is already tidy rebuilds to
//! itself, so the rule adds nothing then. A dropped sequence that set the
//! step count is replaced by an explicit `n_steps`.
//!
//! Does not fire on: states (a state is dropped with its output, by
//! `scan-drop-output`); a sequence read at some of its taps only (its taps
//! decide the step count and the slices).

use super::build::NewScan;
use super::scan_node::ScanNode;
use super::{per_scan_rule, union_checked};
use crate::egraph::analysis::EGraph;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule("scan-tidy-inputs", super::Reads::Loop, tidy_inputs)
}

fn tidy_inputs(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let Some(spec) = NewScan::like(egraph, scan) else {
        return Vec::new();
    };
    let source = spec.source_of(scan);
    match spec.build(egraph, &[source]) {
        Some(new) if union_checked(egraph, rule, scan.class, new) => vec![scan.class],
        _ => Vec::new(),
    }
}
