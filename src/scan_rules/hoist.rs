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
use super::vectorize::{Outer, Vectorizer};
use super::{proj, union_checked};
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
    let params = Vectorizer::standard_params(egraph, scan, how == HoistAs::Sequence);
    let Some(mut vz) = Vectorizer::new(scan, egraph, params) else {
        return changed;
    };
    let Some(mut spec) = NewScan::like(egraph, scan) else {
        return changed;
    };
    // Walk the smallest terms of the body from its outputs; stop at the
    // first class that qualifies on each path.
    let plain = [spec.source_of(scan)];
    let roots: Vec<(usize, Id)> = scan.body.iter().map(|b| (0, *b)).collect();
    let plan = Plan::shared(egraph, &plain, &roots);
    let mut hoisted: Vec<(Id, Outer)> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Id> = scan.body.clone();
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
    if how == HoistAs::NonSequence {
        for &(j, ref b) in &whole_outputs {
            let data = &egraph[*b].data;
            if data.konst.is_none() || data.ty().is_none() {
                continue;
            }
            let dtype = spec.outputs[j].step_type.dtype;
            if let Some(w) = broadcast_steps(egraph, *b, &spec.steps, dtype) {
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
    for &(j, b) in &whole_outputs {
        let b = egraph.find(b);
        let Some((_, o)) = hoisted.iter().find(|(c, _)| *c == b) else {
            continue;
        };
        let whole = if o.batched {
            Some(o.id)
        } else {
            broadcast_steps(egraph, o.id, &spec.steps, spec.outputs[j].step_type.dtype)
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
        if union_checked(egraph, rule, scan.class, new) {
            changed.push(scan.class);
        }
    }
    changed
}

/// `v` repeated `steps` times along a new leading axis, as an output of
/// dtype `dtype`: a state's, which a weak literal step takes (converted as
/// the executors convert each step).
pub fn broadcast_steps(egraph: &mut EGraph, v: Id, steps: &Dim, dtype: DType) -> Option<Id> {
    let repeated = repeat_steps(egraph, v, steps)?;
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
fn repeat_steps(egraph: &mut EGraph, v: Id, steps: &Dim) -> Option<Id> {
    let t: Type = egraph[v].data.ty()?.clone();
    let mut dims = vec![super::build::steps_leaf(egraph, steps)?];
    for d in &t.shape {
        dims.push(super::build::steps_leaf(egraph, d)?);
    }
    let ty = egraph.add(TNode {
        head: Head::Type(t.dtype),
        children: dims,
    });
    let zero = egraph.add(TNode::lit(Scalar::I64(0)));
    let row = egraph.add(TNode {
        head: Head::Op(OpKind::ExpandDims),
        children: vec![v, zero],
    });
    if t.dtype == DType::Bool {
        let ones = egraph.add(TNode {
            head: Head::Op(OpKind::Ones),
            children: vec![ty],
        });
        return Some(egraph.add(TNode {
            head: Head::Op(OpKind::Where),
            children: vec![ones, row, row],
        }));
    }
    let zeros = egraph.add(TNode {
        head: Head::Op(OpKind::Zeros),
        children: vec![ty],
    });
    Some(egraph.add(TNode {
        head: Head::Op(OpKind::Binary(BinaryOp::Add)),
        children: vec![zeros, row],
    }))
}
