//! `scan-mitmot-to-carry`: the MIT-MOT tape a gradient builds for a
//! sit-sot becomes a sit-sot carry and a sequence (research §2.5;
//! pymc-devs/pytensor#1687 proposes the same in PyTensor).
//!
//! A mitmot with in taps `(0 1)` and out tap `(1)` over `n` steps reads, at
//! step `t`, slot `t` (written by step `t - 1`, or the tape's own slot 0
//! at `t = 0`) and slot `t + 1` (never written before step `t`: writes
//! only reach slots up to `t`), and writes slot `t + 1`. So slot `t + 1`'s
//! read is the tape's original row `t + 1` — a sequence — and slot `t`'s
//! read is what the previous step wrote — a sit-sot carry with init the
//! tape's row 0. The body stays as it is: its in-tap-0 parameter becomes
//! the carry, its in-tap-1 parameter the new sequence, its out-tap result
//! the carry's new value. The tape after the loop is row 0, the carry's
//! `n` values, then the rows no step touched:
//! `(concat 0 TAPE[0] C TAPE[-e] .. TAPE[-1])` (each row expand_dims'd) with
//! `e` the tape's slots beyond `n + 1` (none in the gradient's case; at
//! most 4). Going backwards, the sequence is the tape's rows `1 ..= n`
//! reversed (a loop reverses each sequence from its own end).
//!
//! Once the tape is a carry, the loop has no mitmot, and the rules that
//! refuse one (`scan-push-out-output`, `scan-merge`, `scan-fuse`,
//! `scan-merge-outputs`) apply: a backward loop's per-step weight
//! gradients move out of it.
//!
//! Does not fire on: any other taps — the dual of a mit-sot (in taps
//! `{0} ∪ −T`, out taps `−T`) would need a window of pending slots carried
//! and shifted every step; second-order tapes read slots they also wrote
//! earlier; a tape whose slots beyond `n + 1` are not a known count of at
//! most 4.

use super::body::Target;
use super::build::{NewScan, NewSeq};
use super::scan_node::ScanNode;
use super::terms::{concat0, expand_dims, index};
use super::vectorize::slice;
use super::{per_scan_rule, proj, union_checked};
use crate::egraph::analysis::EGraph;
use crate::lang::OutputInfo;
use egg::{Id, Symbol};

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule("scan-mitmot-to-carry", super::Reads::Loop, to_carry)
}

/// True for the tape a gradient builds for a sit-sot: in taps `(0 1)`,
/// out tap `(1)`.
fn is_sitsot_dual(info: &OutputInfo) -> bool {
    matches!(info, OutputInfo::Mitmot { in_taps, out_taps }
        if in_taps.as_slice() == [0, 1] && out_taps.as_slice() == [1])
}

fn to_carry(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    // One tape at a time: the loop this builds has one mitmot fewer, and
    // the rule meets it again for the next.
    let Some(k) = scan.sig.outputs.iter().position(is_sitsot_dual) else {
        return changed;
    };
    let Some(new) = carry_loop(egraph, scan, k) else {
        return changed;
    };
    let Some((tape, extra)) = tape_and_extra(egraph, scan, k) else {
        return changed;
    };
    for j in 0..scan.sig.outputs.len() {
        let old = proj(egraph, scan.class, j);
        let mut value = proj(egraph, new, j);
        if j == k {
            // Rows as `expand_dims` of `index`: a slice of a symbolic
            // length has no known length, so the union would be refused.
            let mut parts = vec![row(egraph, tape, 0), value];
            parts.extend((1..=extra).rev().map(|i| row(egraph, tape, -i)));
            value = concat0(egraph, parts);
        }
        if union_checked(egraph, rule, old, value) {
            changed.push(old);
        }
    }
    changed
}

/// The tape of output `k` and its slots beyond the step count plus one,
/// when that is a known count.
fn tape_and_extra(egraph: &EGraph, scan: &ScanNode, k: usize) -> Option<(Id, i64)> {
    let tape = scan.init_outer(k)?;
    let slots = egraph[tape].data.ty()?.shape.first()?.clone();
    let steps = scan.steps(egraph)?;
    let extra = slots.sub(&steps).as_known()? - 1;
    (0..=MAX_EXTRA).contains(&extra).then_some((tape, extra))
}

/// The loop with output `k`'s tape turned into a carry and a sequence.
fn carry_loop(egraph: &mut EGraph, scan: &ScanNode, k: usize) -> Option<Id> {
    let (tape, extra) = tape_and_extra(egraph, scan, k)?;
    let mut spec = NewScan::like(egraph, scan)?;
    let row0 = index(egraph, tape, 0);
    let step_type = spec.outputs.get(k)?.step_type.clone();
    let out = spec.outputs.get_mut(k)?;
    out.info = OutputInfo::Sitsot;
    out.init = Some(row0);
    out.keep = None;
    // The rows 1 ..= n, in the order the loop reads them.
    let rows = if spec.go_backwards {
        slice(egraph, tape, Some(-(extra + 1)), Some(0), -1)
    } else if extra > 0 {
        slice(egraph, tape, Some(1), Some(-extra), 1)
    } else {
        slice(egraph, tape, Some(1), None, 1)
    };
    let seq = spec.sequences.len();
    spec.sequences.push(NewSeq {
        outer: rows,
        taps: vec![0],
        step_type: step_type.clone(),
    });
    let mut source = spec.source_of(scan);
    // The old in-tap-1 parameter reads the new sequence.
    let tap1 = *scan.state_params(k).get(1)?;
    *source.params.get_mut(tap1)? = Some(Target::Param(spec.seq_param(seq, 0)));
    *source.param_types.get_mut(tap1)? = Some(step_type);
    spec.build(egraph, &[source])
}

/// The untouched slots after the last step's write a tape may have, at
/// most (each becomes one part of the tape's concat).
const MAX_EXTRA: i64 = 4;

/// Row `i` of `x` with its leading axis kept: `(expand_dims (index x i) 0)`.
fn row(egraph: &mut EGraph, x: Id, i: i64) -> Id {
    let r = index(egraph, x, i);
    expand_dims(egraph, r, 0)
}
