//! Tree extraction: `egg`'s [`Extractor`] with the work of
//! [`CostModel::node_cost`].
//!
//! A tree cost counts a shared value once per use, so it overprices terms
//! that share work; it is the baseline the DAG extractor
//! ([`super::dag`]) is compared against, and its fallback.

use super::cost::CostModel;
use crate::lang::egraph::{Head, TNode};
use crate::rules::analysis::EGraph;
use egg::{CostFunction, Extractor, Id, RecExpr};

/// The tree cost function: a node's own work plus its children's tree
/// costs; a scan costs `steps × (Σ body outputs' tree costs +
/// step_overhead)` plus its outer arguments' tree costs.
pub struct TreeCost<'a> {
    egraph: &'a EGraph,
    model: &'a CostModel,
}

impl<'a> TreeCost<'a> {
    /// The cost function of `model` on `egraph`.
    pub fn new(egraph: &'a EGraph, model: &'a CostModel) -> Self {
        TreeCost { egraph, model }
    }
}

impl CostFunction<TNode> for TreeCost<'_> {
    type Cost = f64;

    fn cost<C>(&mut self, enode: &TNode, mut costs: C) -> f64
    where
        C: FnMut(Id) -> f64,
    {
        let own = self.model.node_cost(self.egraph, enode);
        if !own.is_finite() {
            return f64::INFINITY;
        }
        match &enode.head {
            Head::Scan(sig) => {
                let nb = sig.n_body_outputs().min(enode.children.len());
                let steps = self.model.scan_steps_of(self.egraph, enode).unwrap_or(0.0);
                let body: f64 = enode.children[..nb].iter().map(|c| costs(*c)).sum();
                let outer: f64 = enode.children[nb..].iter().map(|c| costs(*c)).sum();
                // `own` is steps × step_overhead plus what the outputs keep.
                own + super::cost::mul_inf(steps, body) + outer
            }
            _ => own + enode.children.iter().map(|c| costs(*c)).sum::<f64>(),
        }
    }
}

/// The cheapest term of class `root` by tree cost, and that cost
/// (`f64::INFINITY` when the class holds no extractable term).
///
/// `egraph` must be rebuilt (`egraph.rebuild()`), as for any `egg`
/// extraction.
pub fn extract_tree(egraph: &EGraph, root: Id, model: &CostModel) -> (f64, RecExpr<TNode>) {
    let (cost, expr) = tree_extractor(egraph, model).find_best(root);
    (cost, super::unshare_types(&expr))
}

/// The tree extractor's choice for every class, for callers that need a
/// fallback per class (the DAG extractor).
pub(crate) fn tree_extractor<'a>(
    egraph: &'a EGraph,
    model: &'a CostModel,
) -> Extractor<'a, TreeCost<'a>, TNode, crate::rules::analysis::TensorAnalysis> {
    Extractor::new(egraph, TreeCost::new(egraph, model))
}
