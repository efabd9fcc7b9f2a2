//! The reverse sweep: the gradients of one scalar with respect to values
//! of the same graph.
//!
//! Owns: [`gradients`]: which nodes lie on a path from an X to COST, the
//! seed (a cotangent of 1 for COST), the walk from COST backwards in
//! reverse graph order, where each node's cotangent is the sum of what its
//! users contributed (complete when the walk reaches it, since every user
//! comes later in the graph), and the result: one gradient per X, zeros
//! for an X that COST does not depend on. An X is differentiated on its
//! own: the walk goes on through it, so with `Wt = 0.5 W` both W's and
//! Wt's gradients are total derivatives. Must not: know any op's gradient
//! (see [`super::vjp`], [`super::loop_vjp`]).

use super::emit::Emit;
use super::error::GradError;
use super::loop_vjp::scan_vjp;
use super::vjp::vjp;
use crate::lang::{Builder, NodeId, Op, Span, Type};
use std::collections::HashMap;

/// Adds to `b` the gradients of the scalar `cost` with respect to each of
/// `xs` (nodes of `b`'s graph) and returns them, each of its X's type.
/// `span` is where the `grad` is written: the new nodes carry it.
pub fn gradients(
    b: &mut Builder,
    cost: NodeId,
    xs: &[NodeId],
    span: Span,
) -> Result<Vec<NodeId>, GradError> {
    b.set_span(span);
    let ct = b.ty(cost)?.clone();
    let seed = {
        let mut e = Emit { b, span };
        let one = e.lit(1.0)?;
        e.op(Op::Fill(Type::scalar(ct.dtype)), &[one])?
    };
    let found = sweep(b, &[(cost, seed)], xs, span)?;
    let mut e = Emit { b, span };
    xs.iter()
        .zip(found)
        .map(|(&x, g)| {
            let xt = e.ty(x)?;
            match g {
                Some(gx) => e.fit(gx, &xt),
                None => e.zeros_like(x),
            }
        })
        .collect()
}

/// The reverse sweep: given the cotangent of some nodes (`seeds`: node,
/// its cotangent; a node may appear twice, the cotangents add), adds to
/// `b` the cotangent of each of `xs` and returns it, `None` where nothing
/// flows (a vector-Jacobian product of the graph).
pub fn sweep(
    b: &mut Builder,
    seeds: &[(NodeId, NodeId)],
    xs: &[NodeId],
    span: Span,
) -> Result<Vec<Option<NodeId>>, GradError> {
    b.set_span(span);
    let Some(top) = seeds.iter().map(|s| s.0 .0).max() else {
        return Ok(vec![None; xs.len()]);
    };
    let g = b.graph();
    let n = g.nodes.len();
    // depends[i]: node i is an X or computed from one.
    let mut depends = vec![false; n];
    for &x in xs {
        depends[x.0] = true;
    }
    for i in 0..=top {
        if !depends[i] && g.nodes[i].args.iter().any(|a| depends[a.0]) {
            depends[i] = true;
        }
    }
    // needed[i]: a seeded node is computed from node i.
    let mut needed = vec![false; n];
    for s in seeds {
        needed[s.0 .0] = true;
    }
    for i in (0..=top).rev() {
        if needed[i] {
            for a in &g.nodes[i].args {
                needed[a.0] = true;
            }
        }
    }
    let lowest = xs.iter().map(|x| x.0).min().unwrap_or(0);
    let mut e = Emit { b, span };
    // The contributions each node has received, summed when it is reached.
    let mut pending: HashMap<usize, Vec<NodeId>> = HashMap::new();
    // The seeds, added after the contributions of the node's users: in a
    // loop body the seed is the cotangent carried from the next step, and
    // `local + carried` is the form `scan-to-linrec` recognizes (the
    // carried value is added last, as a recurrence adds its previous term).
    let mut seeded: HashMap<usize, Vec<NodeId>> = HashMap::new();
    for &(node, cot) in seeds {
        if depends[node.0] {
            seeded.entry(node.0).or_default().push(cot);
        }
    }
    // Per loop, the cotangent of each of its outputs.
    let mut loop_cots: HashMap<usize, Vec<Option<NodeId>>> = HashMap::new();
    let mut total: HashMap<usize, NodeId> = HashMap::new();
    for i in (lowest..=top).rev() {
        if !(depends[i] && needed[i]) {
            continue;
        }
        let node = e.b.graph().nodes[i].clone();
        let wanted: Vec<bool> = node.args.iter().map(|a| depends[a.0]).collect();
        if let Op::Scan(_) = node.op {
            let Some(cots) = loop_cots.remove(&i) else {
                continue;
            };
            let contribs = scan_vjp(&mut e, NodeId(i), &cots, &wanted)?;
            for (a, c) in node.args.iter().zip(contribs) {
                if let Some(c) = c {
                    pending.entry(a.0).or_default().push(c);
                }
            }
            continue;
        }
        let mut parts = pending.remove(&i).unwrap_or_default();
        parts.extend(seeded.remove(&i).unwrap_or_default());
        let Some((&first, rest)) = parts.split_first() else {
            continue;
        };
        let mut gi = first;
        for &p in rest {
            gi = e.add_cotangents(gi, p)?;
        }
        total.insert(i, gi);
        match node.op {
            Op::Proj(k) => {
                let scan = node.args[0].0;
                let outs = e.b.graph().nodes[scan].ty.len();
                let slot = loop_cots.entry(scan).or_insert_with(|| vec![None; outs]);
                slot[k] = Some(match slot[k] {
                    Some(prev) => e.add_cotangents(prev, gi)?,
                    None => gi,
                });
            }
            _ => {
                let contribs = vjp(&mut e, NodeId(i), gi, &wanted)?;
                for (a, c) in node.args.iter().zip(contribs) {
                    if let Some(c) = c {
                        pending.entry(a.0).or_default().push(c);
                    }
                }
            }
        }
    }
    Ok(xs.iter().map(|x| total.get(&x.0).copied()).collect())
}
