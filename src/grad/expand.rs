//! Expanding every `grad` of a program.
//!
//! Owns: [`expand`]: the program copied node by node through the typed
//! builder, loop bodies included, each `(grad COST X ...)` replaced by its
//! gradients as it is reached ([`super::reverse::gradients`]). Graph order
//! puts a `grad` after everything it reads, so a `grad` whose COST holds
//! another `grad` is differentiated after that one was expanded: second
//! and higher order come out of the same walk. Names, spans and shared
//! variables are kept. Must not: differentiate (see [`super::reverse`]).

use super::error::GradError;
use super::reverse::gradients;
use crate::lang::{Builder, Graph, NodeId, Op, Program};

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
fn copy_graph(
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
            Op::Scan(s) => b.scan(s.sig.clone(), &args, |inner, ps| {
                let m = copy_graph(inner, &s.body, Some(ps))?;
                Ok::<_, GradError>(s.body.outputs.iter().map(|o| m[o.0][0]).collect())
            })?,
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
