//! `scan-read-trace`: a backward loop that recomputes its forward loop's
//! step reads the forward loop's stacked output instead (store or
//! recompute: both forms stay in the e-graph and the cost model chooses).
//!
//! The pair it rewrites is what the gradient of a sit-sot loop builds
//! (see [`super::checkpoint`] for the same pair): a forward loop `F` with
//! a sit-sot `h` (init `h0`, trace `H`) and a `go_backwards` loop `B`
//! over the same `T` steps that reads `h_{t-1}` as the sequence
//! `(concat 0 (expand_dims h0 0) H)` at tap -1. `B`'s body rebuilds the
//! forward step, `f(x_t, h_{t-1}, w)`, to differentiate it; that value is
//! `H[t]`, already stored. The rule translates `F`'s step result into
//! `B`'s scope (each of `F`'s inputs is one `B` reads too: a sequence
//! given to both at tap 0 over exactly the step count, the trace for
//! `h_{t-1}`, a non-sequence given to both), and when `B`'s body holds
//! that class, builds `B` again with `H` as a new sequence read at tap 0
//! in its place. The two loops compute the same values (the same
//! operations on the same inputs, once in `F` and once in `B`): the two
//! loops are unioned (one class, so the other rules examine at most
//! [`super::MAX_VARIANTS`] forms of it, not twice as many loops).
//!
//! Memory: `H` is stored anyway (the trace is `B`'s sequence), so the new
//! loop needs no more; the work of `f` is no longer done twice. Under a
//! memory budget, `scan-checkpoint` still rewrites the original `B` (both
//! are in one class) and the cost model prices the two.
//!
//! Does not fire on: a backward loop with `n_steps` or `keep`, or inside
//! another loop's body (`scan-checkpoint`'s segments recompute on
//! purpose); one whose
//! class holds a loop that reads `H` at tap 0 already (fired once, the
//! other rules rewrite that loop as they rewrite the others); a forward loop `F` that is not the one
//! [`super::checkpoint`] pairs (one sit-sot then mapped outputs,
//! sequences at tap 0, no `n_steps` or `keep`); an input of `f` that `B`
//! does not read in the same way (e.g. a sequence of other rows, or one
//! longer than the step count); a `B` whose body does not compute `f`
//! (a term of `F`'s step that `B` lacks, even when equal by algebra).

use super::body::Target;
use super::build::{NewScan, NewSeq};
use super::checkpoint::find_trace;
use super::scan_node::ScanNode;
use super::translate::{reaches, shared_non_seq_param, Translation};
use super::{per_scan_rule, union_checked};
use crate::egraph::analysis::EGraph;
use crate::lang::{BodyParam, Dim};
use egg::{Id, Symbol};

/// The rule's name.
pub const NAME: &str = "scan-read-trace";

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule(NAME, super::Reads::Context, read_trace)
}

/// Rebuilds backward loop `b` reading its forward loop's trace where its
/// body recomputes the forward step; returns the classes changed.
fn read_trace(egraph: &mut EGraph, b: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    if !b.sig.go_backwards || b.sig.has_n_steps || !b.sig.keep.is_empty() {
        return changed;
    }
    // Top-level loops only: a loop in another loop's body (the segments
    // of `scan-checkpoint`) recomputes its trace on purpose.
    if !b.is_top_level(egraph) {
        return changed;
    }
    let Some(steps) = b.steps(egraph) else {
        return changed;
    };
    let Some(trace) = find_trace(egraph, b, &steps) else {
        return changed;
    };
    let b_params = b.sig.body_params();
    let Some(trace_param) = b_params.iter().position(|p| {
        *p == BodyParam::Sequence {
            seq: trace.seq,
            tap: -1,
        }
    }) else {
        return changed;
    };
    for f in trace.forwards.iter().take(super::MAX_VARIANTS) {
        let h = super::proj(egraph, f.class, 0);
        // Once one loop of `b`'s class reads the trace, the other forms of
        // `b` (rewritten by other rules meanwhile) are not rebuilt too:
        // the rules rewrite the one that reads it the same way.
        if ScanNode::all_in(egraph, b.class)
            .iter()
            .any(|s| reads_at_tap0(egraph, s, h))
        {
            continue;
        }
        let Some(map) = param_map(egraph, f, b, &steps, trace_param) else {
            continue;
        };
        let Some(&step_result) = f.body.first() else {
            continue;
        };
        let mut tr = Translation::new(&map);
        let Some(in_b) = tr.class(egraph, step_result) else {
            continue;
        };
        if !reaches(egraph, &b.body, in_b) {
            continue;
        }
        let Some(mut spec) = NewScan::like(egraph, b) else {
            continue;
        };
        let step_type = spec.sequences[trace.seq].step_type.clone();
        let same_type = egraph[in_b]
            .data
            .ty()
            .is_some_and(|t| t.dtype == step_type.dtype && t.shape == step_type.shape);
        if !same_type {
            continue;
        }
        let new_seq = spec.sequences.len();
        // A `go_backwards` loop takes its sequences in the original order.
        spec.sequences.push(NewSeq {
            outer: h,
            taps: vec![0],
            step_type,
        });
        let mut source = spec.source_of(b);
        source
            .replace
            .insert(egraph.find(in_b), Target::Param(spec.seq_param(new_seq, 0)));
        if let Some(new) = spec.build(egraph, &[source]) {
            if union_checked(egraph, rule, b.class, new) {
                changed.push(b.class);
            }
        }
    }
    changed
}

/// True when loop `s` reads `h` as a sequence at tap 0.
fn reads_at_tap0(egraph: &EGraph, s: &ScanNode, h: Id) -> bool {
    let h = egraph.find(h);
    s.sig
        .sequences
        .iter()
        .enumerate()
        .any(|(i, taps)| egraph.find(s.seq_outer(i)) == h && taps.contains(&0))
}

/// For each parameter of `f`'s body, the parameter of `b`'s body that
/// holds the same value at the matching step (`None`: no such one; `f`'s
/// step must not read it). `None` when the loops do not line up.
fn param_map(
    egraph: &EGraph,
    f: &ScanNode,
    b: &ScanNode,
    steps: &Dim,
    trace_param: usize,
) -> Option<Vec<Option<usize>>> {
    let b_params = b.sig.body_params();
    let exact_rows = |outer: Id| {
        egraph[outer]
            .data
            .ty()
            .and_then(|t| t.shape.first())
            .is_some_and(|d| d == steps)
    };
    let mut map = Vec::new();
    for p in f.sig.body_params() {
        let to = match p {
            BodyParam::Sequence { seq, tap: 0 } => {
                let outer = egraph.find(f.seq_outer(seq));
                if !exact_rows(outer) {
                    None
                } else {
                    (0..b.sig.n_seqs())
                        .find(|&i| egraph.find(b.seq_outer(i)) == outer)
                        .and_then(|i| {
                            b_params
                                .iter()
                                .position(|q| *q == BodyParam::Sequence { seq: i, tap: 0 })
                        })
                }
            }
            BodyParam::State { out: 0, tap: -1 } => Some(trace_param),
            BodyParam::NonSequence(k) => shared_non_seq_param(egraph, f, b, k),
            _ => None,
        };
        map.push(to);
    }
    Some(map)
}
