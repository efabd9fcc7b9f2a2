//! `scan-drop-output`: a loop without one of its outputs.
//!
//! When no other output's step term reads output j's state, the loop
//! without output j computes the others exactly; each of their `proj`s is
//! unioned with the smaller loop's. Extraction keeps the smaller loop when
//! nothing reads output j (or when output j is computed elsewhere, e.g.
//! after the loop by `scan-push-out-output`). Sequences and non-sequences
//! only output j read go with it.
//!
//! Does not fire on: an output whose state another output reads (directly
//! or through a chain of states); a loop with one output.

use super::build::NewScan;
use super::scan_node::ScanNode;
use super::{per_scan_rule, proj, union_checked};
use crate::rules::analysis::EGraph;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule("scan-drop-output", drop_output)
}

fn drop_output(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    let n = scan.body.len();
    if n < 2 {
        return changed;
    }
    for j in 0..n {
        let Some(mut spec) = NewScan::like(egraph, scan) else {
            return changed;
        };
        spec.outputs.remove(j);
        let out_map = |i: usize| match i.cmp(&j) {
            std::cmp::Ordering::Less => Some(i),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some(i - 1),
        };
        let source = spec.source_with(scan, &out_map);
        let Some(new) = spec.build(egraph, &[source]) else {
            continue;
        };
        for i in 0..n {
            if let Some(i2) = out_map(i) {
                let old_p = proj(egraph, scan.class, i);
                let new_p = proj(egraph, new, i2);
                if union_checked(egraph, rule, old_p, new_p) {
                    changed.push(old_p);
                }
            }
        }
    }
    changed
}
