//! Expanding every `grad` of a program.
//!
//! Owns: [`expand`]: the program copied node by node through the typed
//! builder, loop bodies included, each `(grad COST X ...)` replaced by its
//! gradients as it is reached ([`super::reverse::gradients`]). Graph order
//! puts a `grad` after everything it reads, so a `grad` whose COST holds
//! another `grad` is differentiated after that one was expanded: second
//! and higher order come out of the same walk. Names, spans and shared
//! variables are kept.
//!
//! A `grad` in a loop body with respect to an outer name (a non-sequence
//! parameter: a closure's captured value or a value passed explicitly)
//! follows the outer graph, as SPEC §1 says: the other non-sequences the
//! loop receives that the outer graph computes from that name (`y = f(x)`
//! captured beside `x`) are recomputed in the body from its parameter
//! (the outer nodes from `x` to `y` copied in, what else they read passed
//! as extra non-sequences), so the body's `grad` sees `y` as a function
//! of `x` ([`copy_scan`]). Must not: differentiate (see
//! [`super::reverse`]).

use super::error::GradError;
use super::reverse::gradients;
use crate::lang::{BodyParam, Builder, Graph, LoopSig, Node, NodeId, Op, Program, Scan};
use std::collections::{BTreeSet, HashMap};

/// The program with every `grad` replaced by plain ops and loops.
pub fn expand(p: &Program) -> Result<Program, GradError> {
    let mut b = Builder::new(&p.name);
    let map = copy_graph(&mut b, &p.graph, None)?;
    let outs: Vec<NodeId> = p.graph.outputs.iter().map(|o| map[o.0][0]).collect();
    let mut q = b.finish(&outs)?;
    q.shared = p.shared.clone();
    Ok(q)
}

/// Whether the program holds a `grad` (in a loop body too).
pub fn has_grad(g: &Graph) -> bool {
    g.nodes.iter().any(|n| match &n.op {
        Op::Grad => true,
        Op::Scan(s) => has_grad(&s.body),
        _ => false,
    })
}

/// Copies graph `g` into `b`, expanding its `grad`s; `params` are the new
/// ids of its parameters (a loop body), or `None` for the top level,
/// whose inputs are declared. Returns the new ids of each node (several
/// for a loop or a `grad`: one per result).
pub(crate) fn copy_graph(
    b: &mut Builder,
    g: &Graph,
    params: Option<&[NodeId]>,
) -> Result<Vec<Vec<NodeId>>, GradError> {
    let mut map: Vec<Vec<NodeId>> = Vec::with_capacity(g.nodes.len());
    for (i, node) in g.nodes.iter().enumerate() {
        let span = g.span(NodeId(i));
        b.set_span(span);
        let args: Vec<NodeId> = node
            .args
            .iter()
            .map(|a| map[a.0].first().copied().unwrap_or(*a))
            .collect();
        let new: Vec<NodeId> = match &node.op {
            Op::Input(k) => match params {
                Some(ps) => vec![ps[*k]],
                None => {
                    let name = node.name.as_deref().unwrap_or("_");
                    vec![b.input(name, node.ty().clone())?]
                }
            },
            Op::Scan(s) => copy_scan(b, s, &args)?,
            Op::Proj(k) => vec![map[node.args[0].0][*k]],
            Op::Grad => gradients(b, args[0], &args[1..], span)?,
            op => vec![b.op(op.clone(), &args)?],
        };
        if let (Some(name), [id]) = (&node.name, new.as_slice()) {
            if b.graph().node(*id).name.is_none()
                && !matches!(node.op, Op::Input(_) if params.is_none())
            {
                b.name(*id, name)?;
            }
        }
        map.push(new);
    }
    Ok(map)
}

/// Copies loop `s` (outer arguments `args`, already in `b`) into `b`,
/// expanding the `grad`s of its body. When a `grad` in the body (at any
/// depth) is taken with respect to a non-sequence parameter, the other
/// non-sequences whose outer values `b`'s graph computes from that
/// parameter's outer value are recomputed in the body from the parameter
/// (the outer nodes in between copied in, the values they read besides
/// passed as extra non-sequences at the end), so the gradient follows the
/// outer graph; the values are unchanged.
fn copy_scan(b: &mut Builder, s: &Scan, args: &[NodeId]) -> Result<Vec<NodeId>, GradError> {
    let targets = grad_targets(&s.body, &s.sig);
    let layout = s.sig.body_params();
    let ns_args: Vec<usize> = s.sig.non_seq_args().collect();
    let param_of_ns = |j: usize| layout.iter().position(|p| *p == BodyParam::NonSequence(j));
    // The outer value of each target, and the parameter standing for it.
    let mut sources: HashMap<usize, usize> = HashMap::new();
    for &j in &targets {
        if let Some(k) = param_of_ns(j) {
            sources.entry(args[ns_args[j]].0).or_insert(k);
        }
    }
    let plan = if sources.is_empty() {
        None
    } else {
        recompute_plan(b.graph(), &sources, ns_args.iter().map(|&a| args[a]))
    };
    let Some(plan) = plan else {
        return b.scan(s.sig.clone(), args, |inner, ps| {
            let m = copy_graph(inner, &s.body, Some(ps))?;
            Ok::<_, GradError>(s.body.outputs.iter().map(|o| m[o.0][0]).collect())
        });
    };
    // The extra non-sequences go after the loop's own.
    let mut sig: LoopSig = s.sig.clone();
    sig.n_non_seqs += plan.leaves.len();
    let ns_end = ns_args
        .last()
        .map_or(s.sig.non_seq_args().start, |&a| a + 1);
    let mut new_args: Vec<NodeId> = args[..ns_end].to_vec();
    new_args.extend(plan.leaves.iter().map(|&l| NodeId(l)));
    new_args.extend_from_slice(&args[ns_end..]);
    let n_params = layout.len();
    b.scan(sig, &new_args, |inner, ps| {
        // Outer node -> its value in the body.
        let mut inside: HashMap<usize, Vec<NodeId>> = HashMap::new();
        for (&node, &k) in &sources {
            inside.insert(node, vec![ps[k]]);
        }
        for (i, &l) in plan.leaves.iter().enumerate() {
            inside.insert(l, vec![ps[n_params + i]]);
        }
        for (i, node, span) in &plan.nodes {
            inner.set_span(*span);
            let value = |a: &NodeId| inside.get(&a.0).and_then(|v| v.first().copied());
            let new_args: Vec<NodeId> = node
                .args
                .iter()
                .map(|a| value(a).ok_or_else(|| internal_error("a recomputed node's argument")))
                .collect::<Result<_, _>>()?;
            let new = match &node.op {
                Op::Scan(s2) => copy_scan(inner, s2, &new_args)?,
                Op::Proj(k) => {
                    let outs = inside
                        .get(&node.args[0].0)
                        .ok_or_else(|| internal_error("a recomputed projection's loop"))?;
                    vec![outs[*k]]
                }
                op => vec![inner.op(op.clone(), &new_args)?],
            };
            inside.insert(*i, new);
        }
        let mut params: Vec<NodeId> = ps[..n_params].to_vec();
        for (j, &a) in ns_args.iter().enumerate() {
            if let (Some(k), Some(v)) = (param_of_ns(j), inside.get(&args[a].0)) {
                params[k] = v[0];
            }
        }
        let m = copy_graph(inner, &s.body, Some(&params))?;
        Ok::<_, GradError>(s.body.outputs.iter().map(|o| m[o.0][0]).collect())
    })
}

/// The outer nodes to recompute in a loop body (see [`copy_scan`]).
struct RecomputePlan {
    /// The nodes computed from a source that a non-sequence needs, in
    /// graph order: index, node, span.
    nodes: Vec<(usize, Node, crate::lang::Span)>,
    /// The other values they read (not sources, not created in place):
    /// extra non-sequences.
    leaves: Vec<usize>,
}

/// Which nodes of `g` between the `sources` and the non-sequence values
/// `non_seqs` to copy into a loop body, or `None` when no non-sequence
/// is computed from a source.
fn recompute_plan(
    g: &Graph,
    sources: &HashMap<usize, usize>,
    non_seqs: impl Iterator<Item = NodeId>,
) -> Option<RecomputePlan> {
    let n = g.nodes.len();
    let lowest = sources.keys().copied().min()?;
    // from_source[i]: node i is computed from a source (a source itself
    // only if its own arguments are).
    let mut from_source = vec![false; n];
    for i in lowest..n {
        from_source[i] = g.nodes[i]
            .args
            .iter()
            .any(|a| sources.contains_key(&a.0) || from_source[a.0]);
    }
    let wanted: Vec<usize> = non_seqs.map(|a| a.0).filter(|&a| from_source[a]).collect();
    let top = wanted.iter().copied().max()?;
    let mut needed = vec![false; n];
    for &w in &wanted {
        needed[w] = true;
    }
    let mut nodes = Vec::new();
    let mut leaves = BTreeSet::new();
    for i in (lowest..=top).rev() {
        if !(needed[i] && from_source[i]) {
            continue;
        }
        for a in &g.nodes[i].args {
            if sources.contains_key(&a.0) {
                continue;
            }
            if from_source[a.0] {
                needed[a.0] = true;
            } else {
                leaves.insert(a.0);
            }
        }
        nodes.push((i, g.nodes[i].clone(), g.span(NodeId(i))));
    }
    nodes.reverse();
    // Values created without arguments (literals, sizes, constants) are
    // created again in the body rather than passed.
    let mut passed = Vec::new();
    for l in leaves {
        let leaf = &g.nodes[l];
        if leaf.args.is_empty() && !matches!(leaf.op, Op::Input(_)) {
            nodes.insert(0, (l, leaf.clone(), g.span(NodeId(l))));
        } else {
            passed.push(l);
        }
    }
    Some(RecomputePlan {
        nodes,
        leaves: passed,
    })
}

/// The non-sequences of loop `sig` (with body `body`) that a `grad` in
/// the body, or in a loop nested in it that receives the parameter as is,
/// takes a gradient with respect to.
fn grad_targets(body: &Graph, sig: &LoopSig) -> BTreeSet<usize> {
    let layout = sig.body_params();
    let non_seq = |x: NodeId| match body.node(x).op {
        Op::Input(k) => match layout.get(k) {
            Some(BodyParam::NonSequence(j)) => Some(*j),
            _ => None,
        },
        _ => None,
    };
    let mut out = BTreeSet::new();
    for node in &body.nodes {
        match &node.op {
            Op::Grad => out.extend(node.args[1..].iter().filter_map(|x| non_seq(*x))),
            Op::Scan(s) => {
                let ns: Vec<usize> = s.sig.non_seq_args().collect();
                for j in grad_targets(&s.body, &s.sig) {
                    if let Some(&a) = ns.get(j) {
                        out.extend(node.args.get(a).and_then(|x| non_seq(*x)));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn internal_error(what: &str) -> GradError {
    GradError::Build(crate::lang::LangError::Type {
        span: Default::default(),
        op: "grad".into(),
        msg: format!("internal: {what} was not copied"),
    })
}
