//! Tree extraction: the cheapest term of each class when a shared value is
//! paid once per use, with the work of [`CostModel::node_cost`].
//!
//! A tree cost counts a shared value once per use, so it overprices terms
//! that share work; it is the baseline the DAG extractor
//! ([`super::dag`]) is compared against, and its fallback.

use super::cost::CostModel;
use super::table::{build_term, NodeTable};
use crate::egraph::analysis::EGraph;
use crate::egraph::term::TNode;
use egg::{Id, RecExpr};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// The cheapest term of class `root` by tree cost, and that cost
/// (`f64::INFINITY` when the class holds no extractable term).
///
/// `egraph` must be rebuilt (`egraph.rebuild()`), as for any `egg`
/// extraction. Each node is costed once and each class settled once
/// (cheapest first), so the time is `O(n log n)` in the e-nodes.
pub fn extract_tree(egraph: &EGraph, root: Id, model: &CostModel) -> (f64, RecExpr<TNode>) {
    let table = NodeTable::new(egraph, model);
    let choice = TreeChoice::new(&table);
    let (cost, expr) = choice.term(egraph, &table, root);
    (cost, super::unshare_types(&expr))
}

/// The tree extractor's choice for every class: the node of least tree
/// cost (a node's own work plus its children's tree costs, a scan's body
/// paid `steps` times: [`super::table::NodeInfo::tree_cost`]).
///
/// Computed as Knuth's generalization of Dijkstra's algorithm: classes are
/// settled in order of increasing cost, and a node is costed once all its
/// children's classes are settled. A node costs at least as much as each of
/// its children (costs are non-negative), so the first candidate of a class
/// to come out of the queue is its cheapest; and every chosen node's
/// children were settled before it, so the choices never form a cycle.
/// Ties go to the lower class, then the earlier node: deterministic.
pub(crate) struct TreeChoice {
    /// Per class (dense index), its tree cost; infinite when unsettled.
    pub cost: Vec<f64>,
    /// Per class, the position of its chosen node; `None` when the class
    /// has no term (only possible in an e-graph that is not rebuilt).
    pub node: Vec<Option<usize>>,
}

/// A queue entry: cost, class, global node (ordered by the total order
/// on the cost, then class, then node).
#[derive(PartialEq)]
struct Candidate(f64, usize, usize);

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .total_cmp(&other.0)
            .then(self.1.cmp(&other.1))
            .then(self.2.cmp(&other.2))
    }
}

impl TreeChoice {
    /// Settles every class of `table`.
    pub fn new(table: &NodeTable) -> Self {
        let n = table.n_classes();
        let (p_start, p_nodes) = table.parents();
        let class_of = table.class_of_nodes();
        let mut heap: BinaryHeap<Reverse<Candidate>> = BinaryHeap::new();
        // Per node, how many of its distinct child classes are unsettled.
        let mut pending = vec![0usize; table.total_nodes()];
        for c in 0..n {
            for k in 0..table.n_nodes(c) {
                let g = table.global(c, k);
                let ch = table.info_global(g).children;
                pending[g] = ch
                    .iter()
                    .enumerate()
                    .filter(|(i, c)| !ch[..*i].contains(c))
                    .count();
                if pending[g] == 0 {
                    let cost = table.info_global(g).tree_cost(|_| 0.0);
                    heap.push(Reverse(Candidate(cost, c, g)));
                }
            }
        }
        let mut cost = vec![f64::INFINITY; n];
        let mut node = vec![None; n];
        while let Some(Reverse(Candidate(total, c, g))) = heap.pop() {
            if node[c].is_some() {
                continue;
            }
            cost[c] = total;
            node[c] = Some(g - table.global(c, 0));
            for &pg in &p_nodes[p_start[c]..p_start[c + 1]] {
                pending[pg] -= 1;
                let pc = class_of[pg];
                if pending[pg] == 0 && node[pc].is_none() {
                    let t = table.info_global(pg).tree_cost(|ch| cost[ch]);
                    heap.push(Reverse(Candidate(t, pc, pg)));
                }
            }
        }
        TreeChoice { cost, node }
    }

    /// The chosen node of class `id` (any id of the class).
    pub fn node_of(&self, egraph: &EGraph, table: &NodeTable, id: Id) -> Option<TNode> {
        let c = table.dense_of(egraph.find(id))?;
        let k = self.node[c]?;
        table.node(egraph, c, k).cloned()
    }

    /// The chosen term of class `root` and its tree cost; an empty term and
    /// an infinite cost when the class has none.
    pub fn term(&self, egraph: &EGraph, table: &NodeTable, root: Id) -> (f64, RecExpr<TNode>) {
        let cost = table
            .dense_of(egraph.find(root))
            .map(|c| self.cost[c])
            .unwrap_or(f64::INFINITY);
        let choose = |id: Id| self.node_of(egraph, table, id);
        match build_term(egraph, root, &choose) {
            Ok(expr) => (cost, expr),
            Err(_) => (f64::INFINITY, RecExpr::default()),
        }
    }
}
