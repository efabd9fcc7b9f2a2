//! The e-graph as the extractors read it: classes in a fixed (sorted)
//! order, each node's own cost computed once, children as dense class
//! indices.
//!
//! Owns: [`NodeTable`], built once per extraction so that
//! [`CostModel::node_cost`] (type inference of the node) runs once per
//! e-node, whichever extractors run on it. Must not: choose nodes.

use super::cost::{loop_cost, CostModel};
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, TNode};
use egg::{Id, Language, RecExpr};
use std::collections::{HashMap, HashSet};

/// One e-node, as the extractors see it (a view into a [`NodeTable`]).
#[derive(Clone, Copy)]
pub(crate) struct NodeInfo<'a> {
    /// Own cost (for a scan, its overhead `steps × step_overhead`);
    /// infinite when the node cannot be extracted.
    pub own: f64,
    /// For a scan: steps and the number of body outputs (its first
    /// children).
    pub scan: Option<(f64, usize)>,
    /// Dense indices of the children's classes.
    pub children: &'a [usize],
}

impl NodeInfo<'_> {
    /// The node's tree cost given its children's: own cost plus the
    /// children's, a scan's body children counted `steps` times
    /// ([`loop_cost`]).
    pub fn tree_cost(&self, child_cost: impl Fn(usize) -> f64) -> f64 {
        if !self.own.is_finite() {
            return f64::INFINITY;
        }
        let nb = self.scan.map(|(_, nb)| nb).unwrap_or(0);
        let body: f64 = self.children[..nb].iter().map(|c| child_cost(*c)).sum();
        let outer: f64 = self.children[nb..].iter().map(|c| child_cost(*c)).sum();
        match self.scan {
            Some((steps, _)) => loop_cost(self.own, steps, body) + outer,
            None => self.own + outer,
        }
    }
}

/// Every class and node of a (rebuilt) e-graph, costed once.
///
/// Nodes are numbered globally (class by class, in the e-graph's order
/// within a class) and stored flat, so that the extractors' passes over
/// hundreds of thousands of nodes stay in cache.
pub(crate) struct NodeTable {
    /// The canonical class ids, sorted; a class's dense index is its
    /// position here.
    pub classes: Vec<Id>,
    /// Dense index of each canonical class id, by `usize::from(id)`
    /// (`usize::MAX` for a non-canonical id).
    dense: Vec<usize>,
    /// Class `c`'s nodes are the global nodes `first[c]..first[c + 1]`.
    first: Vec<usize>,
    /// Per global node: own cost.
    own: Vec<f64>,
    /// Per global node: for a scan, steps and body outputs.
    scan: Vec<Option<(f64, usize)>>,
    /// Per global node: its children are `children[child_at[g]..child_at[g + 1]]`.
    child_at: Vec<usize>,
    /// Children (dense class indices) of every node, one after another.
    children: Vec<usize>,
}

impl NodeTable {
    /// Costs every node of `egraph` under `model`.
    pub fn new(egraph: &EGraph, model: &CostModel) -> Self {
        let mut classes: Vec<Id> = egraph.classes().map(|c| c.id).collect();
        classes.sort();
        let max_id = classes.last().map(|c| usize::from(*c) + 1).unwrap_or(0);
        let mut dense = vec![usize::MAX; max_id];
        for (i, c) in classes.iter().enumerate() {
            dense[usize::from(*c)] = i;
        }
        let n_nodes: usize = classes.iter().map(|c| egraph[*c].nodes.len()).sum();
        let mut t = NodeTable {
            first: Vec::with_capacity(classes.len() + 1),
            own: Vec::with_capacity(n_nodes),
            scan: Vec::with_capacity(n_nodes),
            child_at: Vec::with_capacity(n_nodes + 1),
            children: Vec::with_capacity(2 * n_nodes),
            classes: Vec::new(),
            dense,
        };
        t.child_at.push(0);
        for c in &classes {
            t.first.push(t.own.len());
            for n in &egraph[*c].nodes {
                let mut usable = true;
                for ch in &n.children {
                    let d = t.dense_of(egraph.find(*ch));
                    // A child outside the graph (not rebuilt) makes the
                    // node unusable.
                    usable &= d.is_some();
                    t.children.push(d.unwrap_or(0));
                }
                t.child_at.push(t.children.len());
                t.own.push(if usable {
                    model.node_cost(egraph, n)
                } else {
                    f64::INFINITY
                });
                t.scan.push(match &n.head {
                    Head::Scan(sig) => Some((
                        model.scan_steps(egraph, *c),
                        sig.n_body_results().min(n.children.len()),
                    )),
                    _ => None,
                });
            }
        }
        t.first.push(t.own.len());
        t.classes = classes;
        t
    }

    /// The dense index of a canonical class id.
    pub fn dense_of(&self, id: Id) -> Option<usize> {
        self.dense
            .get(usize::from(id))
            .copied()
            .filter(|d| *d != usize::MAX)
    }

    /// The number of classes.
    pub fn n_classes(&self) -> usize {
        self.classes.len()
    }

    /// The number of nodes of class `c`.
    pub fn n_nodes(&self, c: usize) -> usize {
        self.first[c + 1] - self.first[c]
    }

    /// The global number of class `c`'s `k`-th node.
    pub fn global(&self, c: usize, k: usize) -> usize {
        self.first[c] + k
    }

    /// The number of nodes of every class.
    pub fn total_nodes(&self) -> usize {
        self.own.len()
    }

    /// Class `c`'s `k`-th node.
    pub fn info(&self, c: usize, k: usize) -> NodeInfo<'_> {
        self.info_global(self.global(c, k))
    }

    /// The node with global number `g`.
    pub fn info_global(&self, g: usize) -> NodeInfo<'_> {
        NodeInfo {
            own: self.own[g],
            scan: self.scan[g],
            children: &self.children[self.child_at[g]..self.child_at[g + 1]],
        }
    }

    /// The e-node of class `c`'s `k`-th node.
    pub fn node<'a>(&self, egraph: &'a EGraph, c: usize, k: usize) -> Option<&'a TNode> {
        egraph[*self.classes.get(c)?].nodes.get(k)
    }

    /// For each class, the global numbers of the nodes that have it as a
    /// child (each node once per class, however often it uses it), as
    /// `(starts, nodes)`: class `c`'s parents are
    /// `nodes[starts[c]..starts[c + 1]]`.
    pub fn parents(&self) -> (Vec<usize>, Vec<usize>) {
        let n = self.n_classes();
        let mut count = vec![0usize; n + 1];
        self.for_each_distinct_child(|ch, _| count[ch + 1] += 1);
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let starts = count.clone();
        let mut fill = count;
        let mut nodes = vec![0usize; starts[n]];
        self.for_each_distinct_child(|ch, g| {
            nodes[fill[ch]] = g;
            fill[ch] += 1;
        });
        (starts, nodes)
    }

    /// Calls `f(child class, global node)` once per distinct child class
    /// of every node.
    fn for_each_distinct_child(&self, mut f: impl FnMut(usize, usize)) {
        for g in 0..self.total_nodes() {
            let ch = &self.children[self.child_at[g]..self.child_at[g + 1]];
            for (i, c) in ch.iter().enumerate() {
                if !ch[..i].contains(c) {
                    f(*c, g);
                }
            }
        }
    }

    /// The class of each global node.
    pub fn class_of_nodes(&self) -> Vec<usize> {
        let mut v = Vec::with_capacity(self.total_nodes());
        for c in 0..self.n_classes() {
            v.extend(std::iter::repeat_n(c, self.n_nodes(c)));
        }
        v
    }
}

/// Builds the term of `root` from one node per class; `Err` with the
/// classes of a cycle if the choices have one (or with the class that has
/// no choice).
pub(crate) fn build_term(
    egraph: &EGraph,
    root: Id,
    choice: &dyn Fn(Id) -> Option<TNode>,
) -> Result<RecExpr<TNode>, Vec<Id>> {
    let root = egraph.find(root);
    let mut expr = RecExpr::default();
    let mut done: HashMap<Id, Id> = HashMap::new();
    let mut on_stack: HashSet<Id> = HashSet::new();
    // (class, its chosen node, next child to visit)
    let first = choice(root).ok_or_else(|| vec![root])?;
    let mut stack: Vec<(Id, TNode, usize)> = vec![(root, first, 0)];
    on_stack.insert(root);
    while let Some((class, node, next)) = stack.last_mut() {
        if let Some(child) = node.children.get(*next).map(|c| egraph.find(*c)) {
            *next += 1;
            if done.contains_key(&child) {
                continue;
            }
            if on_stack.contains(&child) {
                let from = stack.iter().position(|(c, _, _)| *c == child).unwrap_or(0);
                return Err(stack[from..].iter().map(|(c, _, _)| *c).collect());
            }
            on_stack.insert(child);
            let n = choice(child).ok_or_else(|| vec![child])?;
            stack.push((child, n, 0));
        } else {
            let class = *class;
            let n = node
                .clone()
                .map_children(|c| done.get(&egraph.find(c)).copied().unwrap_or(c));
            let id = expr.add(n);
            done.insert(class, id);
            on_stack.remove(&class);
            stack.pop();
        }
    }
    Ok(expr)
}

#[cfg(test)]
mod tests {
    use super::NodeTable;
    use crate::egraph::analysis::{EGraph, TensorAnalysis};
    use crate::egraph::term::{program_to_expr, Head};
    use crate::extract::{dag_cost, extract_tree, CostModel};
    use crate::lang::parse_program;

    /// `exp` over 64 rows of `X`, `T` steps.
    const EXP_LOOP: &str = "(program p (input X (f64 T 64))
        (let Y (scan (sequences X) (fn (x) (exp x)))) (output Y))";

    fn table_of(text: &str, model: &CostModel) -> (EGraph, NodeTable, egg::Id) {
        let p = parse_program(text).expect("parse");
        let mut eg = EGraph::new(TensorAnalysis::default());
        let root = eg.add_expr(&program_to_expr(&p).expect("term"));
        eg.rebuild();
        let t = NodeTable::new(&eg, model);
        (eg, t, root)
    }

    /// The scan node's (class, position) in the table.
    fn scan_node(eg: &EGraph, t: &NodeTable) -> (usize, usize) {
        (0..t.n_classes())
            .find_map(|c| {
                (0..t.n_nodes(c))
                    .find(|k| {
                        t.node(eg, c, *k)
                            .is_some_and(|n| matches!(n.head, Head::Scan(_)))
                    })
                    .map(|k| (c, k))
            })
            .expect("a scan node")
    }

    /// A loop's tree cost is its own cost plus `steps ×` its body's, the
    /// own cost holding `steps × (step_overhead + inputs ×
    /// input_step_cost)` and the rows kept; the DAG measure agrees.
    #[test]
    fn a_loop_costs_own_plus_steps_times_body() {
        let mut m = CostModel::default();
        m.dims.insert("T".into(), 10);
        let (eg, t, root) = table_of(EXP_LOOP, &m);
        let (c, k) = scan_node(&eg, &t);
        let info = t.info(c, k);
        assert_eq!(info.scan.map(|(steps, _)| steps), Some(10.0));
        // One input row bound per step; 10 × 64 elements kept.
        let own = 10.0 * (m.step_overhead + m.input_step_cost) + 640.0;
        assert!((info.own - own).abs() < 1e-9, "{} vs {own}", info.own);
        // The body: exp over 64 elements, 2 × 64 f64 moved.
        let body = m.transcendental_weight * 64.0 + 128.0;
        // The body output's class costs `body`; the sequence `X` nothing.
        let body_class = info.children[0];
        let tree = info.tree_cost(|c| if c == body_class { body } else { 0.0 });
        assert!((tree - (own + 10.0 * body)).abs() < 1e-6, "{tree}");
        let (_, term) = extract_tree(&eg, root, &m);
        let dag = dag_cost(&term, &m);
        // (The term's literals add `literal_cost` each.)
        assert!((dag - (own + 10.0 * body)).abs() < 0.01, "{dag}");
    }

    /// The weights are the model's fields: changing one changes the costs
    /// by exactly what it weighs.
    #[test]
    fn weights_are_fields_of_the_model() {
        let mut m = CostModel::default();
        m.dims.insert("T".into(), 10);
        let cost = |m: &CostModel| {
            let (eg, _, root) = table_of(EXP_LOOP, m);
            dag_cost(&extract_tree(&eg, root, m).1, m)
        };
        let base = cost(&m);
        let heavier = CostModel {
            transcendental_weight: m.transcendental_weight + 1.0,
            ..m.clone()
        };
        assert!((cost(&heavier) - base - 640.0).abs() < 1e-6);
        let slower = CostModel {
            step_overhead: m.step_overhead + 100.0,
            input_step_cost: m.input_step_cost + 1.0,
            ..m.clone()
        };
        assert!((cost(&slower) - base - 10.0 * 101.0).abs() < 1e-6);
    }
}
