//! `scan-store-prev-products`: a product a loop computes from a state's
//! previous value, done again over all steps after the loop, is the
//! loop's stacked product instead (store or recompute: both forms stay in
//! the e-graph and the cost model chooses).
//!
//! A forward loop `F` with a sit-sot `h` (init `h0`, trace `H`) reads
//! `h_{t-1}` at step `t`; over all steps those values are the shifted
//! trace `Hprev = (slice (concat 0 (expand_dims h0 0) H) none -1 1)`. A
//! product of `F`'s body of `h_{t-1}` and a non-sequence `U` (`(dot
//! h_{t-1} U)` or `(matmul h_{t-1} U)`, an RNN's `h_{t-1}·U`) is, over all
//! steps, `(matmul Hprev U)` (`dot` for a vector state), or reversed
//! `(matmul (slice Hprev none none -1) U)`. That is the term a gradient's
//! backward loop leaves after the loops once `scan-push-out-seq` has moved
//! its recomputation of the forward step out of it (the backward loop
//! reads `h_{t-1}` as a sequence of the shifted trace). When the e-graph
//! holds that term already (the rule only looks it up: it adds nothing
//! until a recomputation exists, so it does not change what the other
//! rules see before), the rule builds `F` again with each such product as
//! a new mapped output `P` (the old outputs unioned with the new loop's)
//! and unions `P` (or `P` reversed) with it: the extractor then chooses
//! between one product over all steps after the loop and the rows `F`
//! computed anyway, written once (`T` rows of the product's type: memory
//! of the trace's order). JAX keeps these products as residuals of the
//! forward pass; `scan-save-products` does the same for a backward loop
//! that still recomputes them in its body.
//!
//! Every value is the same: `P`'s rows are the loop's own products, and
//! the product over all steps computes each row from the same operands
//! (a batched product is the step's product per row), so the rule needs
//! no range condition.
//!
//! Does not fire on: a loop going backwards, a while loop, a loop with a
//! mitmot, `n_steps` or `keep`, a loop inside another loop's body; a
//! product of other operands than a sit-sot's previous value and a
//! non-sequence (`scan-push-out-seq` moves one of no state), one that is
//! an output already, one whose product over all steps the e-graph does
//! not hold or that holds a loop's output already (stored once: the other
//! rules rewrite that loop as they rewrite the others); a loop that would
//! have more than [`super::MAX_MERGED_OUTPUTS`] outputs.

use super::build::{NewOutput, NewScan};
use super::scan_node::ScanNode;
use super::vectorize::{find_reversed, reversed};
use super::{per_scan_rule, proj, projs_in, union_checked, union_outputs, MAX_MERGED_OUTPUTS};
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::{BodyParam, OutputInfo, Scalar, Type};
use egg::{Id, Symbol};
use std::collections::BTreeSet;

/// The rule's name.
pub const NAME: &str = "scan-store-prev-products";

/// Classes of the body the search for products may visit, at most.
const MAX_VISITS: usize = 4096;

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule(NAME, super::Reads::Context, store_prev)
}

/// A product to store: its class in the body, its type, and the classes
/// after the loop that hold it over all steps, in order and reversed.
struct Stored {
    body: Id,
    ty: Type,
    outer: Option<Id>,
    outer_reversed: Option<Id>,
}

/// Builds loop `f` again with its products of a previous state that the
/// e-graph also computes over all steps as mapped outputs, each unioned
/// with that product; returns the classes changed.
fn store_prev(egraph: &mut EGraph, f: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    let sig = &f.sig;
    if sig.go_backwards
        || sig.until
        || sig.has_n_steps
        || sig.has_mitmot()
        || !sig.keep.is_empty()
        || f.body.len() >= MAX_MERGED_OUTPUTS
    {
        return changed;
    }
    // Top-level loops only: a loop in another loop's body has no trace
    // the outer scope reads.
    if !f.is_top_level(egraph) {
        return changed;
    }
    let params = sig.body_params();
    let mut found: Vec<Stored> = Vec::new();
    for (c, ty, state, nonseq, kind) in products_of_prev(egraph, f, &params) {
        if f.body.len() + found.len() >= MAX_MERGED_OUTPUTS {
            break;
        }
        let Some(prev) = shifted_trace(egraph, f, state) else {
            continue;
        };
        let u = f.non_seq_outer(nonseq);
        let outer = lookup_op(egraph, kind, vec![prev, u]);
        let outer_reversed =
            find_reversed(egraph, prev).and_then(|r| lookup_op(egraph, kind, vec![r, u]));
        // Stored once already: a loop's output is in the class.
        let stored_already = |o: Option<Id>| o.is_some_and(|o| !projs_in(egraph, o).is_empty());
        if (outer.is_none() && outer_reversed.is_none())
            || stored_already(outer)
            || stored_already(outer_reversed)
        {
            continue;
        }
        found.push(Stored {
            body: c,
            ty,
            outer,
            outer_reversed,
        });
    }
    if found.is_empty() {
        return changed;
    }
    let Some(mut spec) = NewScan::like(egraph, f) else {
        return changed;
    };
    for s in &found {
        spec.outputs
            .push(NewOutput::mapped(s.ty.clone().strong(), s.body));
    }
    let source = spec.source_of(f);
    let Some(new) = spec.build(egraph, &[source]) else {
        return changed;
    };
    let n = f.body.len();
    changed.extend(union_outputs(egraph, rule, f.class, new, 0..n));
    for (j, s) in found.iter().enumerate() {
        let p = proj(egraph, new, n + j);
        if let Some(o) = s.outer {
            if union_checked(egraph, rule, o, p) {
                changed.push(o);
            }
        }
        if let Some(o) = s.outer_reversed {
            let pr = reversed(egraph, p);
            if union_checked(egraph, rule, o, pr) {
                changed.push(o);
            }
        }
    }
    changed
}

/// The products of `f`'s body of a sit-sot's previous value and a
/// non-sequence that are no output of `f`, each once, in the order met
/// from `f`'s results: `(class, type, state output, non-sequence, the
/// product's op over all steps)`.
fn products_of_prev(
    egraph: &EGraph,
    f: &ScanNode,
    params: &[BodyParam],
) -> Vec<(Id, Type, usize, usize, OpKind)> {
    let mut found = Vec::new();
    let param_of = |c: Id| {
        egraph[c].nodes.iter().find_map(|n| match n.head {
            Head::Arg(k, _) if n.children.is_empty() => params.get(k).copied(),
            _ => None,
        })
    };
    let results: BTreeSet<Id> = f.body.iter().map(|r| egraph.find(*r)).collect();
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Id> = f.body.iter().rev().map(|r| egraph.find(*r)).collect();
    while let Some(c) = stack.pop() {
        if !seen.insert(c) || seen.len() > MAX_VISITS || egraph[c].data.deps.is_empty() {
            continue;
        }
        let nodes = &egraph[c].nodes;
        if !results.contains(&c) {
            let product = nodes.iter().find_map(|n| {
                let is_dot = match n.head {
                    Head::Op(OpKind::Dot) => true,
                    Head::Op(OpKind::Matmul) => false,
                    _ => return None,
                };
                let [a, b] = n.children[..] else {
                    return None;
                };
                let Some(BodyParam::State { out, tap: -1 }) = param_of(a) else {
                    return None;
                };
                let Some(BodyParam::NonSequence(k)) = param_of(b) else {
                    return None;
                };
                let rank = egraph[a].data.ty()?.ndim();
                let kind = if is_dot && rank == 1 {
                    OpKind::Dot
                } else {
                    OpKind::Matmul
                };
                (f.sig.outputs.get(out) == Some(&OutputInfo::Sitsot)).then_some((out, k, kind))
            });
            if let (Some((out, k, kind)), Some(ty)) = (product, egraph[c].data.ty()) {
                found.push((c, ty.clone(), out, k, kind));
            }
        }
        for n in nodes {
            if matches!(n.head, Head::Scan(_)) {
                continue;
            }
            stack.extend(n.children.iter().rev().map(|ch| egraph.find(*ch)));
        }
    }
    found
}

/// The class of `(slice (concat 0 (expand_dims h0 0) H) none -1 1)` for
/// sit-sot `out` of `f` (`H` its trace), if the e-graph holds it.
fn shifted_trace(egraph: &EGraph, f: &ScanNode, out: usize) -> Option<Id> {
    let init = f.init_outer(out)?;
    let zero = lookup_lit(egraph, 0)?;
    let k = lookup_lit(egraph, out as i64)?;
    let trace = lookup_op(egraph, OpKind::Proj, vec![k, f.class])?;
    let first = lookup_op(egraph, OpKind::ExpandDims, vec![init, zero])?;
    let all = lookup_op(egraph, OpKind::Concat, vec![zero, first, trace])?;
    let open = egraph.lookup(TNode::leaf(Head::NoneBound))?;
    let stop = lookup_lit(egraph, -1)?;
    let step = lookup_lit(egraph, 1)?;
    lookup_op(egraph, OpKind::Slice, vec![all, open, stop, step])
}

fn lookup_lit(egraph: &EGraph, v: i64) -> Option<Id> {
    egraph.lookup(TNode::lit(Scalar::I64(v)))
}

fn lookup_op(egraph: &EGraph, kind: OpKind, children: Vec<Id>) -> Option<Id> {
    egraph.lookup(TNode {
        head: Head::Op(kind),
        children,
    })
}
