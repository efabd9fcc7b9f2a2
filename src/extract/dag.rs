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
//! Greedy choice is per class, so it misses sharing between siblings (a
//! class whose cheapest node alone is not the cheapest once another branch
//! already pays for a child). A local improvement pass follows
//! (`extract/improve.rs`): for each selected class, try the nodes whose
//! children are all already selected, and keep a switch that makes the
//! whole selection cheaper.
//!
//! Neither sees a loop that serves several classes: after `scan-merge`,
//! each output class of two loops can read the merged loop, but each
//! class alone pays for all of it. The loop-aware pass
//! (`extract/loops.rs`) then switches all the classes a loop can serve at
//! once, when the whole selection gets cheaper; if it switched anything,
//! the local pass runs again on the new selection.
//!
//! The result is acyclic: a node whose children's sets contain its own
//! class is never taken, and the final term is built by a depth-first walk
//! that, should stale sets still have let a cycle through, switches one
//! class of the cycle to the tree extractor's choice and tries again.
//! Finally the tree extractor's term is costed on the same measure
//! ([`dag_cost`]) and returned instead when it is cheaper, so the DAG
//! result is never worse than the tree result.

use super::cost::{loop_cost, CostModel};
use super::improve::improve;
use super::loops::adopt_loops;
use super::pmap::PMap;
use super::table::{build_term, NodeTable};
use super::tree::TreeChoice;
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, TNode};
use egg::{Id, Language, RecExpr};
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Instant;

/// Dense class index → cost paid at this level (`Some`), or reached only
/// inside a loop body whose scan pays it (`None`). Persistent: a set shares
/// its structure with the child set it was made from.
type Entries = PMap;

#[derive(Clone)]
struct CostSet {
    /// The sum of the paid entries.
    total: f64,
    entries: Entries,
    node: usize,
}

/// Adds `other` into `acc`; `as_body` marks every entry as paid inside a
/// loop. A paid entry wins over a reached-only one. Returns what the paid
/// entries of `acc` gained.
fn union_into(acc: &mut Entries, other: &Entries, as_body: bool) -> f64 {
    let mut gained = 0.0;
    other.for_each(|k, v| {
        let v = if as_body { None } else { v };
        let take = match acc.get(k) {
            None => true,
            Some(old) => old.is_none() && v.is_some(),
        };
        if take {
            acc.insert(k, v);
            gained += v.unwrap_or(0.0);
        }
    });
    gained
}

/// Unions `sets` starting from the largest (shared, not copied); the union
/// and the sum of its paid entries.
fn union_all(sets: &[&CostSet], bound: usize) -> (Entries, f64) {
    let largest = sets
        .iter()
        .enumerate()
        .max_by_key(|(i, s)| (s.entries.len(), usize::MAX - i))
        .map(|(i, _)| i);
    let (mut acc, mut total) = match largest {
        Some(i) => (sets[i].entries.clone(), sets[i].total),
        None => (Entries::new(bound), 0.0),
    };
    for (i, s) in sets.iter().enumerate() {
        if Some(i) != largest {
            total += union_into(&mut acc, &s.entries, false);
        }
    }
    (acc, total)
}

struct Greedy<'t> {
    t: &'t NodeTable,
    best: Vec<Option<CostSet>>,
}

impl<'t> Greedy<'t> {
    fn new(t: &'t NodeTable) -> Self {
        Greedy {
            t,
            best: vec![None; t.classes.len()],
        }
    }

    /// The cost set of node `k` of class `c`, or `None` when a child has no
    /// set yet, the node is unusable, it would close a cycle, or it cannot
    /// beat the class's current best.
    fn node_set(&self, c: usize, k: usize) -> Option<CostSet> {
        let info = self.t.info(c, k);
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
            let lb = loop_cost(info.own, steps, max_of(body)) + max_of(outer);
            if lb >= cur.total {
                return None;
            }
        }
        let bound = self.t.n_classes();
        let (mut acc, mut total) = union_all(outer, bound);
        let mut own = info.own;
        if info.scan.is_some() {
            let (body_acc, body_total) = union_all(body, bound);
            // `own` already holds steps × step_overhead.
            own = loop_cost(own, steps, body_total);
            total += union_into(&mut acc, &body_acc, true);
        }
        if acc.contains(c) || !own.is_finite() {
            return None;
        }
        acc.insert(c, Some(own));
        total += own;
        Some(CostSet {
            total,
            entries: acc,
            node: k,
        })
    }

    /// Runs to a fixed point; `false` if `deadline` passed first (the
    /// sets are then incomplete).
    fn run(&mut self, deadline: Option<Instant>) -> bool {
        let (p_start, p_nodes) = self.t.parents();
        let mut queue: VecDeque<(usize, usize)> = VecDeque::new();
        let class_of = self.t.class_of_nodes();
        let mut queued = vec![false; self.t.total_nodes()];
        for c in 0..self.t.n_classes() {
            for k in 0..self.t.n_nodes(c) {
                if self.t.info(c, k).children.is_empty() {
                    queue.push_back((c, k));
                    queued[self.t.global(c, k)] = true;
                }
            }
        }
        let mut popped = 0usize;
        while let Some((c, k)) = queue.pop_front() {
            popped += 1;
            if popped.is_multiple_of(DEADLINE_CHECK_EVERY) && past(deadline) {
                return false;
            }
            queued[self.t.global(c, k)] = false;
            let Some(set) = self.node_set(c, k) else {
                continue;
            };
            let better = match &self.best[c] {
                None => true,
                Some(cur) => set.total < cur.total,
            };
            if better {
                self.best[c] = Some(set);
                for &pg in &p_nodes[p_start[c]..p_start[c + 1]] {
                    if !queued[pg] {
                        queued[pg] = true;
                        let pc = class_of[pg];
                        queue.push_back((pc, pg - self.t.global(pc, 0)));
                    }
                }
            }
        }
        true
    }
}

/// How many queue entries the greedy pass handles between two looks at
/// the clock.
const DEADLINE_CHECK_EVERY: usize = 256;

fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
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
    let (cost, expr, _) = extract_dag_until(egraph, root, model, None);
    (cost, expr)
}

/// [`extract_dag`] within a deadline: once `deadline` passes, the greedy
/// pass is abandoned (the tree extractor's term is returned) or the local
/// improvement and loop-aware passes stop where they are. The flag is `true` when extraction
/// ran to the end.
pub(crate) fn extract_dag_until(
    egraph: &EGraph,
    root: Id,
    model: &CostModel,
    deadline: Option<Instant>,
) -> (f64, RecExpr<TNode>, bool) {
    extract_dag_with(egraph, root, model, deadline, true)
}

/// [`extract_dag_until`], with the loop-aware pass ([`super::loops`]) run
/// or not (`loops`): the tests compare the two.
pub(crate) fn extract_dag_with(
    egraph: &EGraph,
    root: Id,
    model: &CostModel,
    deadline: Option<Instant>,
    loops: bool,
) -> (f64, RecExpr<TNode>, bool) {
    let table = NodeTable::new(egraph, model);
    extract_dag_on(egraph, &table, root, model, deadline, loops)
}

/// [`extract_dag_with`] on an e-graph already costed in `table` (the ILP
/// starts from this term and shares the table).
pub(crate) fn extract_dag_on(
    egraph: &EGraph,
    table: &NodeTable,
    root: Id,
    model: &CostModel,
    deadline: Option<Instant>,
    loops: bool,
) -> (f64, RecExpr<TNode>, bool) {
    let root = egraph.find(root);
    let tree = TreeChoice::new(table);
    let (_, tree_expr) = tree.term(egraph, table, root);
    let tree_cost = if tree_expr.as_ref().is_empty() {
        f64::INFINITY
    } else {
        dag_cost(&tree_expr, model)
    };

    let mut greedy = Greedy::new(table);
    if !greedy.run(deadline) {
        return (tree_cost, super::unshare_types(&tree_expr), false);
    }
    // The tree extractor's node of each class, as a position in the class.
    let tree_choice: Vec<usize> = tree.node.iter().map(|k| k.unwrap_or(0)).collect();
    let mut choice: Vec<usize> = greedy
        .best
        .iter()
        .zip(&tree_choice)
        .map(|(b, t)| b.as_ref().map(|s| s.node).unwrap_or(*t))
        .collect();
    let node_of = |choice: &[usize], id: Id| -> Option<TNode> {
        let id = egraph.find(id);
        let k = table.dense_of(id).and_then(|i| choice.get(i)).copied();
        match k.and_then(|k| egraph[id].nodes.get(k)) {
            Some(n) => Some(n.clone()),
            None => tree.node_of(egraph, table, id),
        }
    };
    // Stale cost sets may still let a cycle through: switch one class of
    // it at a time to the tree extractor's node.
    let mut acyclic = false;
    for _ in 0..=table.classes.len() {
        match build_term(egraph, root, &|id| node_of(&choice, id)) {
            Ok(_) => {
                acyclic = true;
                break;
            }
            Err(cycle) => {
                let switch = cycle.into_iter().find_map(|c| {
                    let i = table.dense_of(c)?;
                    (choice[i] != tree_choice[i]).then_some(i)
                });
                match switch {
                    Some(i) => choice[i] = tree_choice[i],
                    None => break,
                }
            }
        }
    }
    let mut complete = true;
    let dag_expr = if acyclic {
        if let Some(r) = table.dense_of(root) {
            complete = improve(table, r, &mut choice, IMPROVE_BUDGET, deadline);
            if complete && loops {
                let adopted = adopt_loops(egraph, table, r, &mut choice, LOOPS_BUDGET, deadline);
                complete = adopted.complete;
                if adopted.changed && complete {
                    complete = improve(table, r, &mut choice, IMPROVE_BUDGET, deadline);
                }
            }
        }
        build_term(egraph, root, &|id| node_of(&choice, id)).ok()
    } else {
        None
    };
    let (cost, expr) = match dag_expr {
        Some(e) if !e.as_ref().is_empty() => {
            let c = dag_cost(&e, model);
            if c <= tree_cost {
                (c, e)
            } else {
                (tree_cost, tree_expr)
            }
        }
        _ => (tree_cost, tree_expr),
    };
    (cost, super::unshare_types(&expr), complete)
}

/// At most this many candidate switches are tried by the local
/// improvement pass.
const IMPROVE_BUDGET: usize = 20_000;

/// At most this many loop switches are tried by the loop-aware pass
/// ([`super::loops`]).
const LOOPS_BUDGET: usize = 2_000;

/// The DAG cost of a term (root: its last node): the sum of
/// [`CostModel::node_cost`] over its distinct nodes, where a scan adds
/// `steps ×` the DAG cost of its body (the distinct nodes its body outputs
/// reach, nested scans likewise). Nodes are told apart by their class in
/// an e-graph of the term alone, so a repeated subterm counts once.
pub fn dag_cost(expr: &RecExpr<TNode>, model: &CostModel) -> f64 {
    term_cost(expr, model, true)
}

/// The cost of a term as an executor runs it: like [`dag_cost`], but an
/// op or scan node is paid once per occurrence in the term, not once per
/// distinct subterm — a program that computes the same loop twice under
/// two names pays for two loops (literals, types and inputs are still
/// shared). This is the cost of a program as written (whose
/// term keeps one node per node of its graph); extracted terms have no
/// repeated subterms, and both measures agree on them.
pub fn written_cost(expr: &RecExpr<TNode>, model: &CostModel) -> f64 {
    term_cost(expr, model, false)
}

/// [`written_cost`] read off an e-graph `eg` that holds `expr` and
/// nothing else, rebuilt, where `ids[i]` is the class of node `i` (the
/// e-graph saturation starts from: `crate::egraph::runner::Seeded`). The
/// same value as [`written_cost`], without building the e-graph again.
pub fn written_cost_in(eg: &EGraph, ids: &[Id], expr: &RecExpr<TNode>, model: &CostModel) -> f64 {
    cost_in(eg, ids, expr, model, false)
}

/// [`dag_cost`] when `share_equal`, else [`written_cost`].
fn term_cost(expr: &RecExpr<TNode>, model: &CostModel, share_equal: bool) -> f64 {
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
    cost_in(&eg, &ids, expr, model, share_equal)
}

/// [`term_cost`] on the e-graph `eg` of the term alone, `ids[i]` the class
/// of node `i`.
fn cost_in(
    eg: &EGraph,
    ids: &[Id],
    expr: &RecExpr<TNode>,
    model: &CostModel,
    share_equal: bool,
) -> f64 {
    let nodes = expr.as_ref();
    if nodes.is_empty() {
        return 0.0;
    }
    let canon: Vec<TNode> = nodes
        .iter()
        .map(|n| {
            n.clone()
                .map_children(|c| eg.find(ids.get(usize::from(c)).copied().unwrap_or(c)))
        })
        .collect();
    let mut memo: HashMap<usize, f64> = HashMap::new();
    let scope = Scope {
        eg,
        expr,
        canon: &canon,
        model,
        share_equal,
    };
    scope.cost(&[nodes.len() - 1], &mut memo)
}

/// What [`Scope::cost`] reads: the term, its nodes' canonical forms in an
/// e-graph of the term alone, the cost model, and whether equal subterms
/// are paid once.
struct Scope<'a> {
    eg: &'a EGraph,
    expr: &'a RecExpr<TNode>,
    canon: &'a [TNode],
    model: &'a CostModel,
    share_equal: bool,
}

/// The DAG cost of the nodes reachable from `roots` without entering scan
/// bodies; each scan adds `steps × ` its body's scope cost.
impl Scope<'_> {
    fn cost(&self, roots: &[usize], memo: &mut HashMap<usize, f64>) -> f64 {
        let nodes = self.expr.as_ref();
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
                Head::Scan(sig) => sig.n_body_results().min(node.children.len()),
                _ => 0,
            };
            for c in &node.children[outer_from..] {
                stack.push(usize::from(*c));
            }
            let computes = matches!(node.head, Head::Op(_) | Head::Scan(_));
            if (self.share_equal || !computes) && !seen.insert(&self.canon[i]) {
                continue;
            }
            let mut cost = self.model.node_cost(self.eg, &self.canon[i]);
            if let Head::Scan(_) = &node.head {
                let body = match memo.get(&i) {
                    Some(b) => *b,
                    None => {
                        let body_roots: Vec<usize> = node.children[..outer_from]
                            .iter()
                            .map(|c| usize::from(*c))
                            .collect();
                        let b = self.cost(&body_roots, memo);
                        memo.insert(i, b);
                        b
                    }
                };
                let steps = self
                    .model
                    .scan_steps_of(self.eg, &self.canon[i])
                    .unwrap_or(0.0);
                cost = loop_cost(cost, steps, body);
            }
            total += cost;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::{written_cost, written_cost_in};
    use crate::egraph::runner::{seed, Budget, Limits};
    use crate::egraph::term::program_to_expr;
    use crate::extract::CostModel;
    use crate::lang::parse_program;
    use std::path::Path;

    /// The written program priced on the e-graph saturation starts from
    /// costs exactly what it costs on an e-graph of its own, on every
    /// program of the Scan rewrites' cases and the benchmark programs
    /// (loops, repeated subterms, constants the analysis folds).
    #[test]
    fn the_written_cost_on_the_seeded_egraph_is_the_written_cost() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in [
            "tests/cases/scan_rules",
            "benches/programs",
            "benches/programs/held",
        ] {
            for entry in std::fs::read_dir(root.join(dir)).expect("read dir") {
                let path = entry.expect("entry").path();
                if path.extension().is_some_and(|e| e == "sexp") {
                    files.push(path);
                }
            }
        }
        files.sort();
        assert!(files.len() >= 100, "{} files", files.len());
        let limits = Limits::default();
        let budget = Budget::from_limits(&limits);
        let m = CostModel::default();
        let mut priced = 0;
        for f in &files {
            let text = std::fs::read_to_string(f).expect("read");
            let Ok(p) = parse_program(&text) else {
                continue;
            };
            let Ok(p) = crate::grad::expand(&p) else {
                continue;
            };
            let Ok(expr) = program_to_expr(&p) else {
                continue;
            };
            let seeded = seed(&p, &limits, &budget, false).expect("seed");
            let on_seed = written_cost_in(&seeded.egraph, &seeded.ids, &seeded.expr, &m);
            assert_eq!(
                on_seed.to_bits(),
                written_cost(&expr, &m).to_bits(),
                "{}",
                f.display()
            );
            priced += 1;
        }
        assert!(priced >= 100, "{priced} programs priced");
    }
}
