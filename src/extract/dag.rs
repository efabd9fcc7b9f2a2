//! DAG-aware greedy extraction, in the manner of extraction-gym's
//! faster-greedy-dag.
//!
//! Every class keeps the *cost set* of its best node so far: the classes
//! that node's term needs, each with its cost, so a class that several
//! children need is paid once. A node's cost set is the union of its
//! children's sets plus its own entry; the class takes the node whose set
//! sums lowest. Nodes are re-examined (in a fixed FIFO order) whenever one
//! of their children's classes improves, until nothing improves.
//!
//! Loops: a scan's body outputs are not paid at the level of the scan; the
//! union of the body outputs' sets is summed separately and the scan's own
//! entry is `steps × (body + step_overhead)`. The body classes still enter
//! the scan's set, marked "reached, paid inside a loop" (`None`), so that
//! cycles through bodies are seen, and so that a class needed both outside
//! and inside a body is paid once outside plus `steps` times inside.
//!
//! The result is acyclic: a node whose children's sets contain its own
//! class is never taken, and the final term is built by a depth-first walk
//! that, should stale sets still have let a cycle through, switches one
//! class of the cycle to the tree extractor's choice and tries again.
//! Finally the tree extractor's term is costed on the same measure
//! ([`dag_cost`]) and returned instead when it is cheaper, so the DAG
//! result is never worse than the tree result.

use super::cost::{mul_inf, CostModel};
use super::tree::tree_extractor;
use crate::lang::egraph::{Head, TNode};
use crate::rules::analysis::{EGraph, TensorAnalysis};
use egg::{Id, Language, RecExpr};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// Dense class index → cost paid at this level (`Some`), or reached only
/// inside a loop body whose scan pays it (`None`).
type Entries = BTreeMap<usize, Option<f64>>;

#[derive(Clone)]
struct CostSet {
    total: f64,
    entries: Rc<Entries>,
    node: usize,
}

struct NodeInfo {
    /// Own cost (for a scan, its overhead `steps × step_overhead`).
    own: f64,
    /// For a scan: steps and the number of body outputs.
    scan: Option<(f64, usize)>,
    /// Dense indices of the children's classes.
    children: Vec<usize>,
}

fn sum_paid(e: &Entries) -> f64 {
    e.values().flatten().sum()
}

/// Adds `other` into `acc`; `as_body` marks every entry as paid inside a
/// loop. A paid entry wins over a reached-only one.
fn union_into(acc: &mut Entries, other: &Entries, as_body: bool) {
    for (k, v) in other {
        let v = if as_body { None } else { *v };
        match acc.get_mut(k) {
            None => {
                acc.insert(*k, v);
            }
            Some(old) => {
                if old.is_none() && v.is_some() {
                    *old = v;
                }
            }
        }
    }
}

struct Greedy {
    classes: Vec<Id>,
    nodes: Vec<Vec<NodeInfo>>,
    best: Vec<Option<CostSet>>,
}

impl Greedy {
    fn new(egraph: &EGraph, model: &CostModel) -> Self {
        let mut classes: Vec<Id> = egraph.classes().map(|c| c.id).collect();
        classes.sort();
        let index: HashMap<Id, usize> = classes.iter().enumerate().map(|(i, c)| (*c, i)).collect();
        let nodes = classes
            .iter()
            .map(|c| {
                egraph[*c]
                    .nodes
                    .iter()
                    .map(|n| {
                        let own = model.node_cost(egraph, n);
                        let scan = match &n.head {
                            Head::Scan(sig) => Some((
                                model.scan_steps(egraph, *c),
                                sig.n_body_outputs().min(n.children.len()),
                            )),
                            _ => None,
                        };
                        let children = n
                            .children
                            .iter()
                            .map(|ch| index.get(&egraph.find(*ch)).copied().unwrap_or(usize::MAX))
                            .collect::<Vec<_>>();
                        // A child outside the graph (not rebuilt) makes the node unusable.
                        let own = if children.contains(&usize::MAX) {
                            f64::INFINITY
                        } else {
                            own
                        };
                        NodeInfo {
                            own,
                            scan,
                            children,
                        }
                    })
                    .collect()
            })
            .collect();
        let n = classes.len();
        Greedy {
            classes,
            nodes,
            best: vec![None; n],
        }
    }

    /// The cost set of node `k` of class `c`, or `None` when a child has no
    /// set yet, the node is unusable, it would close a cycle, or it cannot
    /// beat the class's current best.
    fn node_set(&self, c: usize, k: usize) -> Option<CostSet> {
        let info = &self.nodes[c][k];
        if !info.own.is_finite() {
            return None;
        }
        let sets: Vec<&CostSet> = info
            .children
            .iter()
            .map(|ch| self.best[*ch].as_ref())
            .collect::<Option<_>>()?;
        let nb = info.scan.map(|(_, nb)| nb).unwrap_or(0);
        let steps = info.scan.map(|(s, _)| s).unwrap_or(1.0);
        let (body, outer) = sets.split_at(nb);
        // Lower bound: the union sums to at least its largest part.
        if let Some(cur) = &self.best[c] {
            let max_of = |s: &[&CostSet]| s.iter().map(|x| x.total).fold(0.0, f64::max);
            let lb = info.own + mul_inf(steps, max_of(body)) + max_of(outer);
            if lb >= cur.total {
                return None;
            }
        }
        // The outer part: start from the largest set.
        let largest = outer
            .iter()
            .enumerate()
            .max_by_key(|(i, s)| (s.entries.len(), usize::MAX - i))
            .map(|(i, _)| i);
        let mut acc: Entries = match largest {
            Some(i) => (*outer[i].entries).clone(),
            None => Entries::new(),
        };
        for (i, s) in outer.iter().enumerate() {
            if Some(i) != largest {
                union_into(&mut acc, &s.entries, false);
            }
        }
        let mut own = info.own;
        if info.scan.is_some() {
            let mut body_acc = Entries::new();
            for s in body {
                union_into(&mut body_acc, &s.entries, false);
            }
            // `own` already holds steps × step_overhead.
            own += mul_inf(steps, sum_paid(&body_acc));
            union_into(&mut acc, &body_acc, true);
        }
        if acc.contains_key(&c) || !own.is_finite() {
            return None;
        }
        acc.insert(c, Some(own));
        let total = sum_paid(&acc);
        Some(CostSet {
            total,
            entries: Rc::new(acc),
            node: k,
        })
    }

    fn run(&mut self) {
        let n = self.classes.len();
        let mut parents: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        let mut queue: VecDeque<(usize, usize)> = VecDeque::new();
        let mut queued: Vec<Vec<bool>> =
            self.nodes.iter().map(|ns| vec![false; ns.len()]).collect();
        for (c, ns) in self.nodes.iter().enumerate() {
            for (k, info) in ns.iter().enumerate() {
                let mut seen = Vec::new();
                for ch in &info.children {
                    if !seen.contains(ch) {
                        seen.push(*ch);
                        parents[*ch].push((c, k));
                    }
                }
                if info.children.is_empty() {
                    queue.push_back((c, k));
                    queued[c][k] = true;
                }
            }
        }
        while let Some((c, k)) = queue.pop_front() {
            queued[c][k] = false;
            let Some(set) = self.node_set(c, k) else {
                continue;
            };
            let better = match &self.best[c] {
                None => true,
                Some(cur) => set.total < cur.total,
            };
            if better {
                self.best[c] = Some(set);
                for &(pc, pk) in &parents[c] {
                    if !queued[pc][pk] {
                        queued[pc][pk] = true;
                        queue.push_back((pc, pk));
                    }
                }
            }
        }
    }
}

/// Builds the term of `root` from one node per class; `Err` with the
/// classes of a cycle if the choices have one.
fn build(
    egraph: &EGraph,
    root: Id,
    choice: &dyn Fn(Id) -> TNode,
) -> Result<RecExpr<TNode>, Vec<Id>> {
    let root = egraph.find(root);
    let mut expr = RecExpr::default();
    let mut done: HashMap<Id, Id> = HashMap::new();
    let mut on_stack: HashSet<Id> = HashSet::new();
    // (class, its chosen node, next child to visit)
    let mut stack: Vec<(Id, TNode, usize)> = vec![(root, choice(root), 0)];
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
            let n = choice(child);
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

/// The cheapest term of class `root` by DAG cost (a class that several
/// consumers share is paid once; a scan's body is paid `steps` times), and
/// its cost as [`dag_cost`] measures it (`f64::INFINITY` when the class
/// holds no extractable term).
///
/// Greedy, so not optimal; but never worse than [`super::extract_tree`]'s
/// term on the same measure (that term is returned when it is cheaper).
/// Deterministic: classes and nodes are visited in a fixed order.
/// `egraph` must be rebuilt.
pub fn extract_dag(egraph: &EGraph, root: Id, model: &CostModel) -> (f64, RecExpr<TNode>) {
    let root = egraph.find(root);
    let tree = tree_extractor(egraph, model);
    let tree_expr = tree.find_best(root).1;
    let tree_cost = dag_cost(&tree_expr, model);

    let mut greedy = Greedy::new(egraph, model);
    greedy.run();
    let index: HashMap<Id, usize> = greedy
        .classes
        .iter()
        .enumerate()
        .map(|(i, c)| (*c, i))
        .collect();
    let mut use_tree: HashSet<Id> = HashSet::new();
    let dag_expr = loop {
        let choice = |id: Id| -> TNode {
            let id = egraph.find(id);
            if !use_tree.contains(&id) {
                if let Some(set) = index.get(&id).and_then(|i| greedy.best[*i].as_ref()) {
                    if let Some(n) = egraph[id].nodes.get(set.node) {
                        return n.clone();
                    }
                }
            }
            tree.find_best_node(id).clone()
        };
        match build(egraph, root, &choice) {
            Ok(e) => break Some(e),
            Err(cycle) => match cycle.into_iter().find(|c| !use_tree.contains(c)) {
                Some(c) => {
                    use_tree.insert(c);
                }
                None => break None,
            },
        }
    };
    let (cost, expr) = match dag_expr {
        Some(e) => {
            let c = dag_cost(&e, model);
            if c <= tree_cost {
                (c, e)
            } else {
                (tree_cost, tree_expr)
            }
        }
        None => (tree_cost, tree_expr),
    };
    (cost, super::unshare_types(&expr))
}

/// The DAG cost of a term (root: its last node): the sum of
/// [`CostModel::node_cost`] over its distinct nodes, where a scan adds
/// `steps ×` the DAG cost of its body (the distinct nodes its body outputs
/// reach, nested scans likewise). Nodes are told apart by their class in
/// an e-graph of the term alone, so a repeated subterm counts once.
pub fn dag_cost(expr: &RecExpr<TNode>, model: &CostModel) -> f64 {
    let nodes = expr.as_ref();
    if nodes.is_empty() {
        return 0.0;
    }
    let mut eg = EGraph::new(TensorAnalysis::default());
    let mut ids: Vec<Id> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let m = n
            .clone()
            .map_children(|c| ids.get(usize::from(c)).copied().unwrap_or(c));
        ids.push(eg.add(m));
    }
    eg.rebuild();
    let canon: Vec<TNode> = nodes
        .iter()
        .map(|n| {
            n.clone()
                .map_children(|c| eg.find(ids.get(usize::from(c)).copied().unwrap_or(c)))
        })
        .collect();
    let mut memo: HashMap<usize, f64> = HashMap::new();
    scope_cost(&eg, expr, &canon, &[nodes.len() - 1], model, &mut memo)
}

/// The DAG cost of the nodes reachable from `roots` without entering scan
/// bodies; each scan adds `steps × ` its body's scope cost.
fn scope_cost(
    eg: &EGraph,
    expr: &RecExpr<TNode>,
    canon: &[TNode],
    roots: &[usize],
    model: &CostModel,
    memo: &mut HashMap<usize, f64>,
) -> f64 {
    let nodes = expr.as_ref();
    let mut visited: HashSet<usize> = HashSet::new();
    let mut seen: HashSet<&TNode> = HashSet::new();
    let mut stack: Vec<usize> = roots.to_vec();
    let mut total = 0.0;
    while let Some(i) = stack.pop() {
        if !visited.insert(i) {
            continue;
        }
        let Some(node) = nodes.get(i) else { continue };
        let outer_from = match &node.head {
            Head::Scan(sig) => sig.n_body_outputs().min(node.children.len()),
            _ => 0,
        };
        for c in &node.children[outer_from..] {
            stack.push(usize::from(*c));
        }
        if !seen.insert(&canon[i]) {
            continue;
        }
        let mut cost = model.node_cost(eg, &canon[i]);
        if let Head::Scan(_) = &node.head {
            let body = match memo.get(&i) {
                Some(b) => *b,
                None => {
                    let body_roots: Vec<usize> = node.children[..outer_from]
                        .iter()
                        .map(|c| usize::from(*c))
                        .collect();
                    let b = scope_cost(eg, expr, canon, &body_roots, model, memo);
                    memo.insert(i, b);
                    b
                }
            };
            let steps = model.scan_steps_of(eg, &canon[i]).unwrap_or(0.0);
            cost += mul_inf(steps, body);
        }
        total += cost;
    }
    total
}
