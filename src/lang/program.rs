//! The program IR: a typed graph of nodes, with scans holding inner graphs.
//!
//! Owns: [`Program`], [`Graph`], [`Node`] and [`Scan`] (a loop signature,
//! [`LoopSig`], with its body). Must not: parse, print or run.
//!
//! A [`Graph`] is an arena of nodes in topological order (a node's arguments
//! come before it). Its first `n_params` nodes are [`Op::Input`] nodes, the
//! graph's parameters: the program's inputs, or the inner inputs of a scan's
//! `fn`. Names given by `let` stay on the nodes, so the printer can write the
//! program the way it was written.

pub use super::loop_sig::{LoopSig, OutputInfo};
use super::op_table::Op;
use super::shape::Type;
use std::fmt;

/// A position in a source file (1-based line and column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters).
    pub col: u32,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Index of a node in its [`Graph`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub usize);

/// One operation applied to earlier nodes of the same graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// What the node computes.
    pub op: Op,
    /// Its arguments, all earlier in the graph.
    pub args: Vec<NodeId>,
    /// Its result types: one per result (a scan has one per output; the
    /// [`Op::Proj`] nodes reading them carry the same types).
    pub ty: Vec<Type>,
    /// The name a `let` (or a parameter list) gave it, if any.
    pub name: Option<String>,
}

impl Node {
    /// The type of a single-result node.
    pub fn ty(&self) -> &Type {
        &self.ty[0]
    }
}

/// A graph: parameters, nodes in topological order, outputs.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// The first `n_params` nodes are the parameters ([`Op::Input`]).
    pub n_params: usize,
    /// Nodes in topological order.
    pub nodes: Vec<Node>,
    /// Source position of each node (parallel to `nodes`); not part of
    /// program equality.
    pub spans: Vec<Span>,
    /// The graph's results.
    pub outputs: Vec<NodeId>,
}

impl PartialEq for Graph {
    /// Two graphs are equal when they compute the same thing with the same
    /// names; source positions do not matter.
    fn eq(&self, other: &Graph) -> bool {
        self.n_params == other.n_params
            && self.nodes == other.nodes
            && self.outputs == other.outputs
    }
}

impl Graph {
    /// Appends a node and returns its id.
    pub fn push(&mut self, node: Node, span: Span) -> NodeId {
        self.nodes.push(node);
        self.spans.push(span);
        NodeId(self.nodes.len() - 1)
    }

    /// The node with id `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0]
    }

    /// The source position of node `id`.
    pub fn span(&self, id: NodeId) -> Span {
        self.spans.get(id.0).copied().unwrap_or_default()
    }

    /// The parameter nodes, in order.
    pub fn params(&self) -> impl Iterator<Item = (NodeId, &Node)> {
        self.nodes[..self.n_params]
            .iter()
            .enumerate()
            .map(|(i, n)| (NodeId(i), n))
    }

    /// How many times each node is used as an argument or an output.
    pub fn use_counts(&self) -> Vec<usize> {
        let mut uses = vec![0; self.nodes.len()];
        for n in &self.nodes {
            for a in &n.args {
                uses[a.0] += 1;
            }
        }
        for o in &self.outputs {
            uses[o.0] += 1;
        }
        uses
    }
}

/// A whole program: a name and its top-level graph, whose parameters are the
/// program's inputs followed by its shared variables, and whose outputs are
/// the program's outputs followed by the new values of shared variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The name after `program`.
    pub name: String,
    /// The top-level graph.
    pub graph: Graph,
    /// The shared variables and their updates (SPEC §1); empty for a
    /// program without state.
    pub shared: SharedVars,
}

/// The state a program keeps across calls (`(shared NAME TYPE)` and
/// `(update NAME EXPR)`).
///
/// The shared variables are the last `count` parameters of the graph, in
/// declaration order. The updates are the last `updates.len()` outputs of
/// the graph: `updates[j]` is the shared variable (0-based among the
/// shared ones) that the j-th of them becomes after a call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedVars {
    /// Number of shared variables.
    pub count: usize,
    /// For each trailing update output, the variable it updates.
    pub updates: Vec<usize>,
}

impl Program {
    /// The inputs: `(name, type)` in declaration order (the shared
    /// variables excluded).
    pub fn inputs(&self) -> impl Iterator<Item = (&str, &Type)> {
        self.graph
            .params()
            .take(self.n_inputs())
            .map(|(_, n)| (n.name.as_deref().unwrap_or(""), n.ty()))
    }

    /// Number of inputs (parameters that are not shared variables).
    pub fn n_inputs(&self) -> usize {
        self.graph.n_params.saturating_sub(self.shared.count)
    }

    /// The shared variables: `(name, type)` in declaration order.
    pub fn shared_vars(&self) -> impl Iterator<Item = (&str, &Type)> {
        self.graph
            .params()
            .skip(self.n_inputs())
            .map(|(_, n)| (n.name.as_deref().unwrap_or(""), n.ty()))
    }

    /// Number of outputs of the program (update values excluded).
    pub fn n_outputs(&self) -> usize {
        self.graph
            .outputs
            .len()
            .saturating_sub(self.shared.updates.len())
    }

    /// Number of scan nodes in the program, nested ones included.
    pub fn count_scans(&self) -> usize {
        fn count(g: &Graph) -> usize {
            g.nodes
                .iter()
                .map(|n| match &n.op {
                    Op::Scan(s) => 1 + count(&s.body),
                    _ => 0,
                })
                .sum()
        }
        count(&self.graph)
    }
}

/// A loop with the semantics of `pytensor.scan`: a signature (the layout
/// of its arguments and of its body's parameters, see [`LoopSig`]) and the
/// step function.
#[derive(Clone, Debug, PartialEq)]
pub struct Scan {
    /// Everything but the body.
    pub sig: LoopSig,
    /// The step function: one parameter per [`LoopSig::body_params`], one
    /// output per entry of `sig.outputs`.
    pub body: Graph,
}
