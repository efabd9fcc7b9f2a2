//! Graphviz pictures of programs.
//!
//! Owns: turning a [`Program`] into a `petgraph` graph (one vertex per
//! node, scan bodies included, an edge per argument; a scan's outer
//! arguments also point at the body parameters they feed, dashed) and its
//! DOT text. Must not: change the program.

use super::op_table::Op;
use super::program::{Graph, Program};
use petgraph::dot::{Config, Dot};
use petgraph::graph::{DiGraph, NodeIndex};

/// An edge: a data dependence, or an outer value feeding a body parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// The target reads the source.
    Data,
    /// The source feeds the target (a body parameter) at every step.
    Feeds,
}

impl std::fmt::Display for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Edge::Data => "",
            Edge::Feeds => "feeds",
        })
    }
}

fn label(prefix: &str, node: &super::program::Node) -> String {
    let what = match &node.op {
        Op::Input(_) => node.name.as_deref().unwrap_or("input").to_string(),
        Op::Literal(s) => s.to_string(),
        Op::Size(s) => s.clone(),
        other => other.name().to_string(),
    };
    let named = match (&node.op, &node.name) {
        (Op::Input(_), _) | (_, None) => what,
        (_, Some(n)) => format!("{n} = {what}"),
    };
    let ty: Vec<String> = node.ty.iter().map(|t| t.to_string()).collect();
    format!("{prefix}{named}\n{}", ty.join(", "))
}

fn add_graph(g: &Graph, prefix: &str, out: &mut DiGraph<String, Edge>) -> Vec<NodeIndex> {
    let mut ids: Vec<NodeIndex> = Vec::with_capacity(g.nodes.len());
    for (i, node) in g.nodes.iter().enumerate() {
        let v = out.add_node(label(prefix, node));
        for a in &node.args {
            out.add_edge(ids[a.0], v, Edge::Data);
        }
        if let Op::Scan(s) = &node.op {
            let inner = add_graph(&s.body, &format!("{prefix}scan{i}/"), out);
            // Outer argument -> the body parameters it provides.
            for (param, p) in s.sig.body_params().into_iter().enumerate() {
                if let (Some(k), Some(&inner_param)) = (s.sig.arg_of(p), inner.get(param)) {
                    out.add_edge(ids[node.args[k].0], inner_param, Edge::Feeds);
                }
            }
            for o in &s.body.outputs {
                out.add_edge(inner[o.0], v, Edge::Feeds);
            }
        }
        ids.push(v);
    }
    ids
}

/// The program as a petgraph graph.
pub fn program_graph(p: &Program) -> DiGraph<String, Edge> {
    let mut g = DiGraph::new();
    add_graph(&p.graph, "", &mut g);
    g
}

/// The program's graph as DOT text.
pub fn program_dot(p: &Program) -> String {
    let g = program_graph(p);
    format!(
        "{}",
        Dot::with_attr_getters(
            &g,
            &[Config::EdgeNoLabel],
            &|_, e| if *e.weight() == Edge::Feeds {
                "style=dashed".to_string()
            } else {
                String::new()
            },
            &|_, _| "shape=box".to_string(),
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse_program;

    #[test]
    fn scan_bodies_are_in_the_picture() {
        let p = parse_program(
            "(program p (input X (f64 T 2)) (output (scan (sequences X) (fn (x) (exp x)))))",
        )
        .unwrap();
        let g = program_graph(&p);
        // X, scan, proj + the body's x and exp
        assert_eq!(g.node_count(), 5);
        let dot = program_dot(&p);
        assert!(
            dot.contains("scan2/exp") || dot.contains("scan1/exp"),
            "{dot}"
        );
        assert!(dot.contains("style=dashed"));
    }
}
