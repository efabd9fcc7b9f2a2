//! `scan-store-step-values`: a loop that recomputes another loop's steps
//! in reverse (the backward loop of a gradient, as PyTensor builds it)
//! reads the values the forward loop computed instead, stored by the
//! forward loop as new mapped outputs (store or recompute: both forms stay
//! in the e-graph and the cost model chooses).
//!
//! The pair: a forward loop `F` with a sit-sot `h` (init `h0`, trace `H`)
//! and a loop `B` over the same `T` steps, also going forwards, that reads
//! `F`'s inputs reversed: `h_{t-1}` as the reversed shifted trace
//! `(slice (concat 0 (expand_dims h0 0) H) -2 none -1)`, each of `F`'s
//! sequences `X` as `(slice X none none -1)`, and `F`'s non-sequences as
//! they are. Step `t` of `B` then sees what step `T-1-t` of `F` saw, and
//! `B`'s body rebuilds `F`'s step (the gates of an LSTM or a GRU) to
//! differentiate it. The rule translates `F`'s body into `B`'s scope
//! ([`Translation`]: each of `F`'s parameters renamed to the `B` parameter
//! that holds the same value), and walks `B`'s body from its results: the
//! first class on each path that is the translation of an `F` class
//! reading a state is a value `F` computed at the matching step. `F` is
//! built again with each such class as a new mapped output `P` (its old
//! outputs unioned with the new loop's), and `B` again with
//! `(slice P none none -1)` as a new sequence in place of the class (a
//! class that is `F`'s step result is its trace, reversed, with no new
//! output). JAX's `scan` keeps the same values as residuals of its
//! forward pass. `scan-read-trace` does this for a `go_backwards` loop and
//! the step result only.
//!
//! Every value is the same: `P`'s rows are the classes `F` computes, and
//! `B` computes the same class from the same values at the matching step.
//! Memory: one trace of each stored value's type (`T` rows).
//!
//! Does not fire on: an `F` whose step has no `dot` or `matmul` of a value
//! reading a state (elementwise steps are cheap to recompute, and each
//! pair costs the optimizer two loops); a `B` going backwards, a while loop, a loop with
//! `n_steps`, inside another loop's body; an `F` with a mitmot, `n_steps`,
//! `keep`, or going backwards; loops of different step counts; an input
//! of `F` that `B` does not read reversed (a sequence of other rows, one
//! longer than the step count); a `B` one of whose forms reads a value
//! stored this way already (fired once: the other rules rewrite that
//! loop as they rewrite the others); an `F` that would have more than
//! [`super::MAX_MERGED_OUTPUTS`] outputs (the values beyond are not
//! stored).

use super::body::{scoped_children, Plan, Target};
use super::build::{NewOutput, NewScan, NewSeq};
use super::scan_node::ScanNode;
use super::translate::{shared_non_seq_param, Translation};
use super::vectorize::{find_reversed, reversed};
use super::{
    per_scan_rule, proj, union_loop_forms, union_outputs, MAX_MERGED_OUTPUTS, MAX_VARIANTS,
};
use crate::egraph::analysis::{int_of, EGraph, Kind};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::{BodyParam, Dim, OutputInfo, Scalar, Type};
use egg::{Id, Symbol};
use std::collections::{BTreeMap, BTreeSet};

/// The rule's name.
pub const NAME: &str = "scan-store-step-values";

/// Classes of a body a walk may visit, at most.
const MAX_VISITS: usize = 4096;

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule(NAME, super::Reads::Loop, store_values)
}

/// A sequence of `B` that is a forward loop's reversed shifted trace.
struct ReversedTrace {
    /// `B`'s sequence.
    seq: usize,
    /// The forward loop's class.
    forward: Id,
    /// Its sit-sot.
    out: usize,
}

/// A value of `F`'s step that `B` recomputes.
struct Recomputed {
    /// The class in `B`'s body.
    in_b: Id,
    /// The class in `F`'s body.
    in_f: Id,
    /// Its type (a step's).
    ty: Type,
    /// `Some(k)`: it is `F`'s step result for output `k` (a sit-sot or a
    /// mapped output), stored already.
    result_of: Option<usize>,
}

/// Rebuilds `b` reading the values its forward loop stores where its body
/// recomputes them; returns the classes changed.
fn store_values(egraph: &mut EGraph, b: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    if b.sig.go_backwards || b.sig.until || b.sig.has_n_steps {
        return changed;
    }
    if !b.is_top_level(egraph) {
        return changed;
    }
    let Some(steps) = b.steps(egraph) else {
        return changed;
    };
    for trace in reversed_traces(egraph, b) {
        let forwards = ScanNode::all_in(egraph, trace.forward);
        for f in forwards.iter().take(MAX_VARIANTS) {
            if !pairs_with(egraph, f, &trace, &steps) || !multiplies_state(egraph, f) {
                continue;
            }
            let h = proj(egraph, f.class, trace.out);
            if ScanNode::all_in(egraph, b.class)
                .iter()
                .any(|s| reads_stored(egraph, s, f, h))
            {
                continue;
            }
            let Some(map) = param_map(egraph, f, b, &trace, &steps) else {
                continue;
            };
            let found = recomputed(egraph, f, b, &map);
            if found.is_empty() {
                continue;
            }
            changed.extend(rebuild(egraph, f, b, &found, rule));
        }
    }
    changed
}

/// True when `f`'s step has a `dot` or `matmul` of a value that reads a
/// state (an RNN's `h_{t-1}·U`): the recomputations worth a stored trace.
/// A step of elementwise ops is cheap to recompute in the backward loop,
/// and its pairs are not built (they cost the optimizer a loop each).
fn multiplies_state(egraph: &EGraph, f: &ScanNode) -> bool {
    let params = f.sig.body_params();
    let reads_state = |c: Id| {
        egraph[c]
            .data
            .deps
            .iter()
            .any(|d| matches!(params.get(*d), Some(BodyParam::State { .. })))
    };
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Id> = f.body.iter().map(|r| egraph.find(*r)).collect();
    while let Some(c) = stack.pop() {
        if !seen.insert(c) || seen.len() > MAX_VISITS || egraph[c].data.deps.is_empty() {
            continue;
        }
        for n in &egraph[c].nodes {
            match n.head {
                Head::Scan(_) => continue,
                Head::Op(OpKind::Dot | OpKind::Matmul)
                    if n.children.iter().any(|ch| reads_state(*ch)) =>
                {
                    return true
                }
                _ => stack.extend(n.children.iter().map(|ch| egraph.find(*ch))),
            }
        }
    }
    false
}

/// The sequences of `b`, read at tap 0 only, that are a loop's sit-sot's
/// shifted trace reversed: `(slice (concat 0 (expand_dims h0 0) H) -2
/// none -1)`, or that slice's rows `none -1` reversed.
fn reversed_traces(egraph: &EGraph, b: &ScanNode) -> Vec<ReversedTrace> {
    let mut found = Vec::new();
    for (seq, taps) in b.sig.sequences.iter().enumerate() {
        if taps[..] != [0] {
            continue;
        }
        let outer = b.seq_outer(seq);
        let mut alls = slices(egraph, outer, (Some(-2), None, -1));
        for shifted in slices(egraph, outer, (None, None, -1)) {
            alls.extend(slices(egraph, shifted, (None, Some(-1), 1)));
        }
        for all in alls {
            for (forward, out) in shifted_trace_of(egraph, all) {
                found.push(ReversedTrace { seq, forward, out });
            }
        }
    }
    found
}

/// The sliced operands of the `slice` nodes of class `c` with literal
/// bounds `(start, stop, step)` (`None`: an open bound).
fn slices(egraph: &EGraph, c: Id, bounds: (Option<i64>, Option<i64>, i64)) -> Vec<Id> {
    let bound = |c: Id, want: Option<i64>| match want {
        None => egraph[c]
            .nodes
            .iter()
            .any(|n| matches!(n.head, Head::NoneBound)),
        Some(v) => int_of(egraph, c) == Some(v),
    };
    egraph[c]
        .nodes
        .iter()
        .filter_map(|n| match (&n.head, &n.children[..]) {
            (Head::Op(OpKind::Slice), [x, start, stop, step])
                if bound(*start, bounds.0)
                    && bound(*stop, bounds.1)
                    && int_of(egraph, *step) == Some(bounds.2) =>
            {
                Some(*x)
            }
            _ => None,
        })
        .collect()
}

/// For class `all` holding `(concat 0 (expand_dims h0 0) H)` with `H`
/// sit-sot `out` of a loop, `(loop class, out)` (each such form).
fn shifted_trace_of(egraph: &EGraph, all: Id) -> Vec<(Id, usize)> {
    let mut found = Vec::new();
    for n in &egraph[all].nodes {
        let (Head::Op(OpKind::Concat), [axis, first, trace]) = (&n.head, &n.children[..]) else {
            continue;
        };
        if int_of(egraph, *axis) != Some(0) {
            continue;
        }
        let expanded = egraph[*first].nodes.iter().any(|m| {
            matches!((&m.head, &m.children[..]),
                (Head::Op(OpKind::ExpandDims), [_, ax]) if int_of(egraph, *ax) == Some(0))
        });
        if !expanded {
            continue;
        }
        for m in &egraph[*trace].nodes {
            if let (Head::Op(OpKind::Proj), [k, s]) = (&m.head, &m.children[..]) {
                if let Some(k) = int_of(egraph, *k).and_then(|k| usize::try_from(k).ok()) {
                    // The init row must be that sit-sot's init.
                    let init_ok = ScanNode::all_in(egraph, *s).iter().any(|f| {
                        f.init_outer(k).is_some_and(|i| {
                            egraph[*first].nodes.iter().any(|e| {
                                matches!((&e.head, &e.children[..]),
                                    (Head::Op(OpKind::ExpandDims), [x, _])
                                        if egraph.find(*x) == egraph.find(i))
                            })
                        })
                    });
                    if init_ok {
                        found.push((egraph.find(*s), k));
                    }
                }
            }
        }
    }
    found
}

/// True when `f` is a forward loop this rule stores from, over `steps`
/// steps, and `trace`'s sit-sot is one of its sit-sots.
fn pairs_with(egraph: &EGraph, f: &ScanNode, trace: &ReversedTrace, steps: &Dim) -> bool {
    !f.sig.go_backwards
        && !f.sig.until
        && !f.sig.has_n_steps
        && !f.sig.has_mitmot()
        && f.sig.keep.is_empty()
        && f.is_top_level(egraph)
        && f.sig.outputs.get(trace.out) == Some(&OutputInfo::Sitsot)
        && f.steps(egraph).as_ref() == Some(steps)
}

/// True when loop `s` reads, as a sequence, a reversed output of a loop
/// that has more outputs than `f` and whose output `k < f`'s count is in
/// `h`'s class (`f`'s sit-sot trace): a loop this rule built.
fn reads_stored(egraph: &EGraph, s: &ScanNode, f: &ScanNode, h: Id) -> bool {
    let h = egraph.find(h);
    let n = f.sig.outputs.len();
    let same_trace = |g: &ScanNode| {
        (0..n).any(|k| {
            egraph
                .lookup(TNode::lit(Scalar::I64(k as i64)))
                .and_then(|k| {
                    egraph.lookup(TNode {
                        head: Head::Op(OpKind::Proj),
                        children: vec![k, g.class],
                    })
                })
                .is_some_and(|c| egraph.find(c) == h)
        })
    };
    (0..s.sig.n_seqs()).any(|i| {
        slices(egraph, s.seq_outer(i), (None, None, -1))
            .into_iter()
            .any(|p| {
                egraph[p]
                    .nodes
                    .iter()
                    .any(|m| match (&m.head, &m.children[..]) {
                        (Head::Op(OpKind::Proj), [_, g]) => ScanNode::all_in(egraph, *g)
                            .iter()
                            .any(|g| g.sig.outputs.len() > n && same_trace(g)),
                        _ => false,
                    })
            })
    })
}

/// For each parameter of `f`'s body, the parameter of `b`'s body holding
/// the same value at the matching step (`None`: none; `f`'s step must not
/// read it). `None` when `trace`'s state parameter has no counterpart.
fn param_map(
    egraph: &EGraph,
    f: &ScanNode,
    b: &ScanNode,
    trace: &ReversedTrace,
    steps: &Dim,
) -> Option<Vec<Option<usize>>> {
    let b_params = b.sig.body_params();
    let b_seq_param = |i: usize| {
        b_params
            .iter()
            .position(|q| *q == BodyParam::Sequence { seq: i, tap: 0 })
    };
    let mut map = Vec::new();
    let mut has_state = false;
    for p in f.sig.body_params() {
        let to = match p {
            BodyParam::Sequence { seq, tap: 0 } if f.sig.sequences[seq][..] == [0] => {
                let x = f.seq_outer(seq);
                let exact = egraph[x]
                    .data
                    .ty()
                    .and_then(|t| t.shape.first())
                    .is_some_and(|d| d == steps);
                let rev = if exact {
                    find_reversed(egraph, x)
                } else {
                    None
                };
                rev.and_then(|r| {
                    let r = egraph.find(r);
                    (0..b.sig.n_seqs())
                        .find(|&i| {
                            b.sig.sequences[i][..] == [0] && egraph.find(b.seq_outer(i)) == r
                        })
                        .and_then(b_seq_param)
                })
            }
            BodyParam::State { out, tap: -1 } if out == trace.out => {
                has_state = true;
                b_seq_param(trace.seq)
            }
            BodyParam::NonSequence(k) => shared_non_seq_param(egraph, f, b, k),
            _ => None,
        };
        map.push(to);
    }
    has_state.then_some(map)
}

/// The values of `f`'s steps that `b` recomputes: walking `b`'s body from
/// its results, the first class on each path that translates an `f` class
/// reading a state (a value, not a parameter or a constant), each once,
/// at most as many as `f` may gain outputs.
fn recomputed(
    egraph: &mut EGraph,
    f: &ScanNode,
    b: &ScanNode,
    map: &[Option<usize>],
) -> Vec<Recomputed> {
    let state_params = f.all_state_params();
    // `f`'s body classes, each translated into `b`'s scope.
    let mut tr = Translation::new(map);
    let mut image: BTreeMap<Id, Id> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Id> = f.body.iter().map(|r| egraph.find(*r)).collect();
    while let Some(c) = stack.pop() {
        if !seen.insert(c) || seen.len() > MAX_VISITS {
            continue;
        }
        let data = &egraph[c].data;
        if data.deps.is_empty() {
            continue;
        }
        let worth = matches!(data.kind, Kind::Value(_))
            && data.konst.is_none()
            && data.deps.iter().any(|d| state_params.contains(d))
            && !egraph[c]
                .nodes
                .iter()
                .any(|n| matches!(n.head, Head::Arg(..)));
        if worth {
            if let Some(t) = tr.class(egraph, c) {
                image.entry(egraph.find(t)).or_insert(c);
            }
        }
        for n in &egraph[c].nodes {
            if !matches!(n.head, Head::Scan(_)) {
                stack.extend(n.children.iter().map(|ch| egraph.find(*ch)));
            }
        }
    }
    if image.is_empty() {
        return Vec::new();
    }
    // `f`'s step results, by sit-sot.
    let results: BTreeMap<Id, usize> = f
        .sig
        .body_outputs()
        .iter()
        .zip(&f.body)
        .filter(|(o, _)| {
            o.tap.is_none()
                && matches!(
                    f.sig.outputs[o.out],
                    OutputInfo::Sitsot | OutputInfo::Nitsot
                )
        })
        .map(|(o, r)| (egraph.find(*r), o.out))
        .collect();
    let Some(spec) = NewScan::like(egraph, b) else {
        return Vec::new();
    };
    let roots: Vec<(usize, Id)> = b.body.iter().map(|r| (0, egraph.find(*r))).collect();
    let plan = Plan::shared(egraph, &[spec.source_of(b)], &roots);
    let room = MAX_MERGED_OUTPUTS.saturating_sub(f.sig.outputs.len());
    let mut found: Vec<Recomputed> = Vec::new();
    let mut new_outputs = 0;
    let mut walked = BTreeSet::new();
    let mut stack: Vec<Id> = roots.iter().rev().map(|(_, c)| *c).collect();
    while let Some(c) = stack.pop() {
        let c = egraph.find(c);
        if !walked.insert(c) {
            continue;
        }
        if let Some(&in_f) = image.get(&c) {
            let result_of = results.get(&in_f).copied();
            let ty_b = egraph[c].data.ty().cloned();
            let ty_f = egraph[in_f].data.ty();
            let same = matches!((&ty_b, ty_f), (Some(x), Some(y))
                if x.dtype == y.dtype && x.shape == y.shape && !x.shape.contains(&Dim::Unknown));
            if let (true, Some(ty)) = (same, ty_b) {
                if result_of.is_some() || new_outputs < room {
                    new_outputs += usize::from(result_of.is_none());
                    found.push(Recomputed {
                        in_b: c,
                        in_f,
                        ty: ty.strong(),
                        result_of,
                    });
                    continue;
                }
            }
        }
        if let Some(n) = plan.chosen(0, c) {
            if !matches!(n.head, Head::Arg(..)) {
                stack.extend(scoped_children(n).iter().rev().copied());
            }
        }
    }
    found
}

/// Builds `f` with the recomputed values as new mapped outputs and `b`
/// reading them reversed; returns the classes changed.
fn rebuild(
    egraph: &mut EGraph,
    f: &ScanNode,
    b: &ScanNode,
    found: &[Recomputed],
    rule: Symbol,
) -> Vec<Id> {
    let mut changed = Vec::new();
    let n = f.sig.outputs.len();
    let stored: Vec<&Recomputed> = found.iter().filter(|r| r.result_of.is_none()).collect();
    let new_f = if stored.is_empty() {
        f.class
    } else {
        let Some(mut spec) = NewScan::like(egraph, f) else {
            return changed;
        };
        for r in &stored {
            spec.outputs.push(NewOutput::mapped(r.ty.clone(), r.in_f));
        }
        let source = spec.source_of(f);
        let Some(new) = spec.build(egraph, &[source]) else {
            return changed;
        };
        changed.extend(union_outputs(egraph, rule, f.class, new, 0..n));
        new
    };
    let Some(mut spec) = NewScan::like(egraph, b) else {
        return changed;
    };
    let mut replace = Vec::new();
    let mut next_stored = n;
    for r in found {
        let rows = match r.result_of {
            Some(k) => proj(egraph, f.class, k),
            None => {
                next_stored += 1;
                proj(egraph, new_f, next_stored - 1)
            }
        };
        let outer = reversed(egraph, rows);
        let at = spec.sequences.len();
        spec.sequences.push(NewSeq {
            outer,
            taps: vec![0],
            step_type: r.ty.clone(),
        });
        replace.push((r.in_b, at));
    }
    let mut source = spec.source_of(b);
    for (c, at) in replace {
        source
            .replace
            .insert(egraph.find(c), Target::Param(spec.seq_param(at, 0)));
    }
    if let Some(new) = spec.build(egraph, &[source]) {
        // (A form of `b` that keeps its last rows, of a loop that may run
        // fewer steps, has row counts known only at run time.)
        if union_loop_forms(egraph, b, rule, b.class, new) {
            changed.push(b.class);
        }
    }
    changed
}
