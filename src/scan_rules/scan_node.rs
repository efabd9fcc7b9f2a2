//! A scan e-node taken apart: its clauses, its body outputs, its outer
//! arguments, and what each inner input (each `fn` parameter) is.
//!
//! Owns: [`ScanNode`] and [`InnerInput`]. Must not: change the e-graph.

use crate::egraph::analysis::{EGraph, Kind};
use crate::egraph::term::{Head, ScanSig, TNode};
use crate::lang::{Dim, OutputInfo, Type};
use egg::Id;

/// What one inner input of a scan (one `fn` parameter) stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InnerInput {
    /// Sequence `seq` read at `tap`.
    Sequence {
        /// Index among the sequences.
        seq: usize,
        /// The tap.
        tap: i64,
    },
    /// Output `out` (a state) read at `tap` (negative).
    State {
        /// Index among the outputs (in `outputs_info` order).
        out: usize,
        /// The tap.
        tap: i64,
    },
    /// Non-sequence `k`.
    NonSequence(usize),
}

/// One scan e-node, decoded.
#[derive(Clone, Debug)]
pub struct ScanNode {
    /// The e-class holding the node.
    pub class: Id,
    /// Its static clauses.
    pub sig: ScanSig,
    /// The body output classes, one per output (scope: the scan's params).
    pub body: Vec<Id>,
    /// The outer argument classes, in [`crate::lang::Scan`]'s layout.
    pub args: Vec<Id>,
}

impl ScanNode {
    /// Decodes `node` (of class `class`) if it is a well-formed scan.
    pub fn decode(egraph: &EGraph, class: Id, node: &TNode) -> Option<ScanNode> {
        let Head::Scan(sig) = &node.head else {
            return None;
        };
        let nb = sig.n_body_outputs();
        if node.children.len() != nb + sig.layout().n_args() {
            return None;
        }
        let f = |i: &Id| egraph.find(*i);
        Some(ScanNode {
            class: egraph.find(class),
            sig: sig.clone(),
            body: node.children[..nb].iter().map(f).collect(),
            args: node.children[nb..].iter().map(f).collect(),
        })
    }

    /// Every well-formed scan node of `class`, in the class's node order.
    pub fn all_in(egraph: &EGraph, class: Id) -> Vec<ScanNode> {
        egraph[class]
            .nodes
            .iter()
            .filter_map(|n| ScanNode::decode(egraph, class, n))
            .collect()
    }

    /// What each inner input (by parameter position) stands for.
    pub fn inner_inputs(&self) -> Vec<InnerInput> {
        let mut v = Vec::new();
        for (seq, taps) in self.sig.sequences.iter().enumerate() {
            for &tap in taps {
                v.push(InnerInput::Sequence { seq, tap });
            }
        }
        for (out, info) in self.sig.outputs.iter().enumerate() {
            for tap in info.taps() {
                v.push(InnerInput::State { out, tap });
            }
        }
        for k in 0..self.sig.n_non_seqs {
            v.push(InnerInput::NonSequence(k));
        }
        v
    }

    /// The outer argument of sequence `seq`.
    pub fn seq_outer(&self, seq: usize) -> Id {
        self.args[seq]
    }

    /// The outer init argument of output `out`, if it is a state.
    pub fn init_outer(&self, out: usize) -> Option<Id> {
        if !self.sig.outputs.get(out)?.is_state() {
            return None;
        }
        let k = self.sig.outputs[..out]
            .iter()
            .filter(|o| o.is_state())
            .count();
        Some(self.args[self.sig.sequences.len() + k])
    }

    /// The outer argument of non-sequence `k`.
    pub fn non_seq_outer(&self, k: usize) -> Id {
        self.args[self.sig.layout().non_seq_args().start + k]
    }

    /// The outer `n_steps` argument, if given.
    pub fn n_steps_outer(&self) -> Option<Id> {
        self.sig.layout().n_steps_arg().map(|k| self.args[k])
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

    /// The type of inner input `k` (a step's slice of its outer value).
    pub fn param_type(&self, egraph: &EGraph, k: usize) -> Option<Type> {
        let t = |id: Id| egraph[id].data.ty().cloned();
        let drop_lead = |t: Type| -> Option<Type> {
            if t.shape.is_empty() {
                return None;
            }
            Some(Type::new(t.dtype, t.shape[1..].to_vec()))
        };
        match self.inner_inputs().get(k)? {
            InnerInput::Sequence { seq, .. } => drop_lead(t(self.seq_outer(*seq))?),
            InnerInput::State { out, .. } => {
                let init = t(self.init_outer(*out)?)?;
                match &self.sig.outputs[*out] {
                    OutputInfo::Mitsot(_) => drop_lead(init),
                    _ => Some(init.strong()),
                }
            }
            InnerInput::NonSequence(j) => Some(t(self.non_seq_outer(*j))?.strong()),
        }
    }

    /// The parameter positions of output `out`'s state taps.
    pub fn state_params(&self, out: usize) -> Vec<usize> {
        self.inner_inputs()
            .iter()
            .enumerate()
            .filter(|(_, i)| matches!(i, InnerInput::State { out: o, .. } if *o == out))
            .map(|(k, _)| k)
            .collect()
    }
}
