//! A scan e-node taken apart: its signature, its body outputs and its
//! outer arguments.
//!
//! Owns: [`ScanNode`]. What each inner input (each `fn` parameter) stands
//! for is the signature's ([`LoopSig::body_params`]). Must not: change the
//! e-graph.

use crate::egraph::analysis::{EGraph, Kind};
use crate::egraph::term::{Head, TNode};
use crate::lang::loop_type;
use crate::lang::{BodyParam, Dim, LoopSig, Type};
use egg::Id;
use std::collections::BTreeSet;

/// One scan e-node, decoded.
#[derive(Clone, Debug)]
pub struct ScanNode {
    /// The e-class holding the node.
    pub class: Id,
    /// Its signature.
    pub sig: LoopSig,
    /// The body result classes (scope: the scan's params): one per output,
    /// one per out tap of a mitmot ([`LoopSig::body_outputs`]).
    pub body: Vec<Id>,
    /// The outer argument classes, in [`crate::lang::Scan`]'s layout.
    pub args: Vec<Id>,
    /// A while loop's condition class (scope: the scan's params), the
    /// body's last result; `None` for a for loop.
    pub until: Option<Id>,
    /// The node itself, its children canonical.
    pub node: TNode,
}

impl ScanNode {
    /// Decodes `node` (of class `class`) if it is a well-formed scan.
    pub fn decode(egraph: &EGraph, class: Id, node: &TNode) -> Option<ScanNode> {
        // A while loop (`until`) is seen only by the rewrites that keep
        // its step count and its condition ([`Self::decode_while_too`]):
        // SPEC §1, research §5.2. The algebraic rules rewrite its body.
        match &node.head {
            Head::Scan(sig) if !sig.until => Self::decode_while_too(egraph, class, node),
            _ => None,
        }
    }

    /// [`Self::decode`] for a while loop too, its condition in
    /// [`Self::until`]: for the rewrites that handle one.
    pub fn decode_while_too(egraph: &EGraph, class: Id, node: &TNode) -> Option<ScanNode> {
        let Head::Scan(sig) = &node.head else {
            return None;
        };
        let nb = sig.n_body_outputs();
        let nr = sig.n_body_results();
        if node.children.len() != nr + sig.n_args() {
            return None;
        }
        let f = |i: &Id| egraph.find(*i);
        Some(ScanNode {
            class: egraph.find(class),
            sig: sig.clone(),
            body: node.children[..nb].iter().map(f).collect(),
            args: node.children[nr..].iter().map(f).collect(),
            until: sig.until_result().map(|c| f(&node.children[c])),
            node: TNode {
                head: node.head.clone(),
                children: node.children.iter().map(f).collect(),
            },
        })
    }

    /// Every well-formed scan node of `class`, in the class's node order;
    /// none when the class is retired (every output of the loop has a
    /// loop-free form: see [`crate::egraph::retired`]).
    pub fn all_in(egraph: &EGraph, class: Id) -> Vec<ScanNode> {
        Self::all_decoded(egraph, class, ScanNode::decode)
    }

    /// [`Self::all_in`], while loops included ([`Self::decode_while_too`]).
    pub fn all_in_while_too(egraph: &EGraph, class: Id) -> Vec<ScanNode> {
        Self::all_decoded(egraph, class, ScanNode::decode_while_too)
    }

    fn all_decoded(
        egraph: &EGraph,
        class: Id,
        decode: fn(&EGraph, Id, &TNode) -> Option<ScanNode>,
    ) -> Vec<ScanNode> {
        if egraph.analysis.retired.contains(&egraph.find(class)) {
            return Vec::new();
        }
        egraph[class]
            .nodes
            .iter()
            .filter_map(|n| decode(egraph, class, n))
            .collect()
    }

    /// True when no outer argument reads an enclosing body's parameter:
    /// the loop is not inside another loop's body.
    pub fn is_top_level(&self, egraph: &EGraph) -> bool {
        self.args.iter().all(|a| egraph[*a].data.deps.is_empty())
    }

    /// The outer argument of sequence `seq`.
    pub fn seq_outer(&self, seq: usize) -> Id {
        self.args[seq]
    }

    /// The outer init argument of output `out`, if it is a state.
    pub fn init_outer(&self, out: usize) -> Option<Id> {
        self.args.get(self.sig.init_arg(out)?).copied()
    }

    /// The outer argument of non-sequence `k`.
    pub fn non_seq_outer(&self, k: usize) -> Id {
        self.args[self.sig.non_seq_args().start + k]
    }

    /// The outer `n_steps` argument, if given.
    pub fn n_steps_outer(&self) -> Option<Id> {
        self.sig.n_steps_arg().map(|k| self.args[k])
    }

    /// The type of each output (steps × the step's type), from the analysis.
    pub fn output_types(&self, egraph: &EGraph) -> Option<Vec<Type>> {
        match &egraph[self.class].data.kind {
            Kind::Multi(t) => Some(t.clone()),
            _ => None,
        }
    }

    /// The step count, when the analysis knows it.
    pub fn steps(&self, egraph: &EGraph) -> Option<Dim> {
        let d = crate::egraph::analysis::scan_steps(egraph, &self.sig, &self.args);
        (d != Dim::Unknown).then_some(d)
    }

    /// The type of inner input `k` (a step's slice of its outer value),
    /// by the scan type rule.
    pub fn param_type(&self, egraph: &EGraph, k: usize) -> Option<Type> {
        let param = *self.sig.body_params().get(k)?;
        let outer = *self.args.get(self.sig.arg_of(param)?)?;
        let ty = egraph[outer].data.ty()?;
        match param {
            BodyParam::Sequence { seq, .. } => loop_type::sequence_step(seq, ty).ok(),
            BodyParam::State { out, .. } => {
                loop_type::state_step(out, self.sig.outputs.get(out)?, ty).ok()?
            }
            BodyParam::NonSequence(_) => Some(ty.clone().strong()),
        }
    }

    /// The parameter positions of every state tap, of all outputs.
    pub fn all_state_params(&self) -> BTreeSet<usize> {
        self.sig
            .body_params()
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p, BodyParam::State { .. }))
            .map(|(i, _)| i)
            .collect()
    }

    /// The parameter positions of output `out`'s state taps.
    pub fn state_params(&self, out: usize) -> Vec<usize> {
        self.sig
            .body_params()
            .iter()
            .enumerate()
            .filter(|(_, i)| matches!(i, BodyParam::State { out: o, .. } if *o == out))
            .map(|(k, _)| k)
            .collect()
    }
}
