//! Hoisting sub-terms out of a loop body: the engine of the two push-out
//! rules.
//!
//! Owns: [`hoist`] — find the largest body sub-terms of a kind the caller
//! chooses, compute them outside on the outer values ([`Vectorizer`]), pass
//! them in as new inputs, and union the new loop with the old one; an
//! output that is wholly such a sub-term is unioned with its outer form
//! directly. Must not: decide which sub-terms qualify (the rules do).
//!
//! A loop with a mitmot is hoisted from like any other: its tape taps are
//! states, so a term reading them stays inside (as in PyTensor); only its
//! tape output is never replaced by a hoisted term.

use super::body::{scoped_children, Plan, Source, Target};
use super::build::{NewScan, NewSeq};
use super::scan_node::ScanNode;
use super::terms::op;
use super::vectorize::{Outer, Vectorizer};
use super::{proj, union_checked, union_loop_forms};
use crate::egraph::analysis::{EGraph, Kind};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::{BinaryOp, DType, Dim, Scalar, Type};
use egg::{Id, Symbol};
use std::collections::BTreeSet;

/// What the hoisted terms become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HoistAs {
    /// Loop-invariant terms, passed in as new non-sequences.
    NonSequence,
    /// Terms of the sequences (and non-sequences), computed for all steps
    /// and passed in as new sequences.
    Sequence,
}

/// True for a class worth hoisting: a value that is not a bare input,
/// literal or constant.
fn worth_hoisting(egraph: &EGraph, c: Id) -> bool {
    let data = &egraph[c].data;
    matches!(data.kind, Kind::Value(_))
        && data.konst.is_none()
        && !egraph[c].nodes.iter().any(|n| {
            matches!(
                n.head,
                Head::Arg(..) | Head::Lit(_) | Head::Input(..) | Head::Size(_)
            )
        })
}

/// Hoists what `how` allows out of `scan`; returns the classes changed.
pub fn hoist(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol, how: HoistAs) -> Vec<Id> {
    let mut changed = Vec::new();
    // A while loop: its invariant terms only (a term over a sequence's
    // rows would be computed for rows its steps never reach).
    let until = scan.sig.until;
    if until && how == HoistAs::Sequence {
        return changed;
    }
    let seqs = how == HoistAs::Sequence;
    let mut params = Vectorizer::standard_params(egraph, scan, seqs);
    let Some(steps) = scan.steps(egraph) else {
        return changed;
    };
    // A sequence whose rows cannot be cut to the step count with literal
    // bounds (`n_steps N` over `T` rows): its terms are computed on every
    // row it allows and the loop reads the first `N` of them (the last `N`
    // going backwards); no output is then wholly a hoisted term.
    let mut rows = steps.clone();
    let unread_seq = scan
        .sig
        .body_params()
        .iter()
        .zip(&params)
        .any(|(p, o)| matches!(p, crate::lang::BodyParam::Sequence { .. }) && o.is_none());
    if seqs && unread_seq {
        if let Some(long) = super::vectorize::long_rows(egraph, scan) {
            params = Vectorizer::params_over(egraph, scan, true, &long);
            rows = long;
        }
    }
    let exact = rows == steps;
    let mut vz = Vectorizer::with_rows(params, rows);
    let Some(mut spec) = NewScan::like(egraph, scan) else {
        return changed;
    };
    // Walk the smallest terms of the body from its outputs; stop at the
    // first class that qualifies on each path.
    let plain = [spec.source_of(scan)];
    // The outputs' terms, and a while loop's condition.
    let body: Vec<Id> = scan.body.iter().copied().chain(scan.until).collect();
    let roots: Vec<(usize, Id)> = body.iter().map(|b| (0, *b)).collect();
    let plan = Plan::shared(egraph, &plain, &roots);
    let mut hoisted: Vec<(Id, Outer)> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Id> = body.clone();
    while let Some(c) = stack.pop() {
        if !seen.insert(c) {
            continue;
        }
        if worth_hoisting(egraph, c) {
            if let Some(o) = vz.outer(egraph, c) {
                // A closed term rebuilds to itself: it is a constant, which
                // `scan-inline-constants` keeps inside.
                let closed = egraph.find(o.id) == egraph.find(c);
                if o.batched == (how == HoistAs::Sequence) && !closed {
                    // Canonical: a shared plan may know it by an older id.
                    hoisted.push((egraph.find(c), o));
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
    // A whole output that is a constant (a class holding its literal form,
    // the same inside the loop and out) is that constant repeated: the
    // walk above does not hoist constants, which fold inside a body.
    // (A mitmot's results are written into its tape, not stacked: its
    // output is never a repetition of one of them.)
    let whole_outputs: Vec<(usize, Id)> = scan
        .sig
        .body_outputs()
        .iter()
        .zip(&scan.body)
        .filter(|(r, _)| r.tap.is_none())
        .map(|(r, b)| (r.out, *b))
        .collect();
    // (A while loop's outputs hold the steps that ran: none is a
    // repetition of a known number of steps.)
    if how == HoistAs::NonSequence && !until {
        for &(j, ref b) in &whole_outputs {
            let data = &egraph[*b].data;
            if data.konst.is_none() || data.ty().is_none() {
                continue;
            }
            let dtype = spec.outputs[j].step_type.dtype;
            if let Some(w) = broadcast_steps(egraph, scan, *b, &spec.steps, dtype, false) {
                let p = proj(egraph, scan.class, j);
                if union_checked(egraph, rule, p, w) {
                    changed.push(p);
                }
            }
        }
    }
    if hoisted.is_empty() {
        return changed;
    }
    // A whole output that qualifies equals its outer form.
    for &(j, b) in whole_outputs.iter().filter(|_| exact && !until) {
        let b = egraph.find(b);
        let Some((_, o)) = hoisted.iter().find(|(c, _)| *c == b) else {
            continue;
        };
        let whole = if o.batched {
            Some(o.id)
        } else {
            broadcast_steps(
                egraph,
                scan,
                o.id,
                &spec.steps,
                spec.outputs[j].step_type.dtype,
                true,
            )
        };
        if let Some(w) = whole {
            let p = proj(egraph, scan.class, j);
            if union_checked(egraph, rule, p, w) {
                changed.push(p);
            }
        }
    }
    // The loop with the hoisted terms passed in.
    let first_new = match how {
        HoistAs::NonSequence => spec.non_seqs.len(),
        HoistAs::Sequence => spec.sequences.len(),
    };
    for (c, o) in &hoisted {
        let Some(t) = egraph[*c].data.ty().cloned() else {
            return changed;
        };
        match how {
            HoistAs::NonSequence => spec.non_seqs.push((o.id, t.strong())),
            HoistAs::Sequence => spec.sequences.push(NewSeq {
                // Stacked in iteration order; a loop going backwards reverses
                // its sequences, so it gets them in the original order.
                outer: if spec.go_backwards {
                    super::vectorize::reversed(egraph, o.id)
                } else {
                    o.id
                },
                taps: vec![0],
                step_type: t.strong(),
            }),
        }
    }
    let mut source: Source = spec.source_of(scan);
    for (i, (c, _)) in hoisted.iter().enumerate() {
        let v = match how {
            HoistAs::NonSequence => spec.non_seq_param(first_new + i),
            HoistAs::Sequence => spec.seq_param(first_new + i, 0),
        };
        source.replace.insert(*c, Target::Param(v));
    }
    if let Some(new) = spec.build(egraph, &[source]) {
        if union_loop_forms(egraph, scan, rule, scan.class, new) {
            changed.push(scan.class);
        }
    }
    changed
}

/// `v` repeated `steps` times along a new leading axis, as an output of
/// dtype `dtype`: a state's, which a weak literal step takes (converted as
/// the executors convert each step). `scan` is the loop whose steps these
/// are (see [`repeat_steps`]). `any_shape: false` refuses a shape a type
/// cannot write: `v` is then a body class that is a constant (the same
/// inside the loop and out), and such a class may also hold nodes that
/// read the body's parameters, which the other forms would carry out of
/// the loop.
pub fn broadcast_steps(
    egraph: &mut EGraph,
    scan: &ScanNode,
    v: Id,
    steps: &Dim,
    dtype: DType,
    any_shape: bool,
) -> Option<Id> {
    let repeated = repeat_steps(egraph, scan, v, steps, any_shape)?;
    if egraph[v].data.ty()?.dtype == dtype {
        return Some(repeated);
    }
    let d = egraph.add(TNode::leaf(Head::DType(dtype)));
    Some(egraph.add(TNode {
        head: Head::Op(OpKind::Cast),
        children: vec![d, repeated],
    }))
}

/// `v` repeated `steps` times along a new leading axis, in its dtype.
///
/// When the whole shape can be written as a type (each size a literal or
/// a symbol): `zeros` of that type plus `v` (`where` for bool). When only
/// the step count can: `v` broadcast against `zeros` of shape
/// `(steps, 1, ..., 1)`, so `v`'s own sizes (`N-1`, or known only at run
/// time) need not be written. When the step count cannot be written
/// either (`T-1` steps of a sequence read at taps -1 0), the steps come
/// from the loop's first sequence: its rows as the loop reads them
/// ([`super::vectorize::sequence_steps`]), made `zeros_like` and summed
/// down to one axis, compared with themselves (all true) and broadcast as
/// the condition of `where(c, v, v)` — an exact copy of `v` that reads no
/// element of the sequence.
fn repeat_steps(
    egraph: &mut EGraph,
    scan: &ScanNode,
    v: Id,
    steps: &Dim,
    any_shape: bool,
) -> Option<Id> {
    let t: Type = egraph[v].data.ty()?.clone();
    let zero = egraph.add(TNode::lit(Scalar::I64(0)));
    let row = op(egraph, OpKind::ExpandDims, vec![v, zero]);
    let mut dims = Vec::new();
    for d in std::iter::once(steps).chain(&t.shape) {
        dims.push(super::build::steps_leaf(egraph, d));
    }
    // The forms for sizes a type cannot write are built for top-level
    // loops only (no outer argument reads an enclosing body's parameter).
    let top_level = any_shape && scan.is_top_level(egraph);
    let ty = if dims.iter().all(Option::is_some) {
        dims.into_iter().flatten().collect()
    } else if let (Some(first), true) = (dims[0], top_level) {
        let one = egraph.add(TNode::lit(Scalar::I64(1)));
        let mut d = vec![first];
        d.extend(t.shape.iter().map(|_| one));
        d
    } else if top_level {
        return steps_from_sequence(egraph, scan, row, t.ndim());
    } else {
        return None;
    };
    let ty = egraph.add(TNode {
        head: Head::Type(t.dtype),
        children: ty,
    });
    if t.dtype == DType::Bool {
        let ones = op(egraph, OpKind::Ones, vec![ty]);
        return Some(op(egraph, OpKind::Where, vec![ones, row, row]));
    }
    let zeros = op(egraph, OpKind::Zeros, vec![ty]);
    Some(op(egraph, OpKind::Binary(BinaryOp::Add), vec![zeros, row]))
}

/// `row` (one step's value with a leading axis of 1; the step has `rank`
/// axes) repeated once per step of `scan`, the step count taken from the
/// rows of its first sequence (see [`repeat_steps`]).
fn steps_from_sequence(egraph: &mut EGraph, scan: &ScanNode, row: Id, rank: usize) -> Option<Id> {
    if scan.sig.n_seqs() == 0 {
        return None;
    }
    let tap = *scan.sig.sequences.first()?.first()?;
    let rows = super::vectorize::sequence_steps(egraph, scan, 0, tap)?;
    let mut z = op(egraph, OpKind::ZerosLike, vec![rows]);
    let seq_rank = egraph[rows].data.ty()?.ndim();
    let one = egraph.add(TNode::lit(Scalar::I64(1)));
    for _ in 1..seq_rank {
        z = op(
            egraph,
            OpKind::Reduce(crate::lang::ReduceOp::Sum),
            vec![z, one],
        );
    }
    let mut cond = op(
        egraph,
        OpKind::Compare(crate::lang::CompareOp::Eq),
        vec![z, z],
    );
    for _ in 0..rank {
        cond = op(egraph, OpKind::ExpandDims, vec![cond, one]);
    }
    Some(op(egraph, OpKind::Where, vec![cond, row, row]))
}
