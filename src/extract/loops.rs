//! Loop-aware improvement of a DAG selection: adopting a loop that
//! computes the outputs of several selected classes at once.
//!
//! Owns: [`adopt_loops`]. Must not: make the first selection (see
//! [`super::dag`]) or switch one class at a time (see [`super::improve`]).
//!
//! `scan-merge` and `scan-fuse` put a loop `M` computing the outputs of
//! two loops into the e-graph: each old output class `(proj k S)` gets a
//! node `(proj k' M)`. The greedy extractor prices each class on its own,
//! so each of those nodes carries the whole of `M`, and the separate loops
//! always look cheaper; the single-switch pass ([`super::improve`]) cannot
//! help either, since switching one class to `M` pays for `M` while the
//! old loop it replaces is still needed by the others.
//!
//! This pass looks at every scan e-node `M` whose class is read (through
//! `proj`) by at least two selected classes, or by one when `M`'s class is
//! already selected. It switches all of those classes to their `proj` of
//! `M` at once (and `M`'s class to `M`; the classes below `M` keep their
//! current nodes), and keeps the switch when the DAG cost of the whole
//! selection ([`selection_cost`], which pays a shared class once per
//! scope) drops. Each sweep tries every candidate from the same selection
//! and keeps the one that lowers the cost most (the first that helps could
//! shut out a better loop: see the test
//! `the_best_loop_switch_is_taken_not_the_first`); it sweeps again while
//! something improves, within a budget of tries and the deadline.
//!
//! A switch never closes a cycle: the only new edges are those of the
//! `proj` nodes (to `M`'s class and a literal) and of `M` itself, so the
//! new selection is acyclic exactly when the classes `M` reaches under it
//! form no cycle and include none of the switched classes; that is checked
//! before the cost. Candidates are visited in a fixed order (by dense class
//! index, then node position), so the result is deterministic.

use super::improve::{reachable, selection_cost};
use super::table::NodeTable;
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, OpKind};
use std::time::Instant;

/// What [`adopt_loops`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Adopted {
    /// Some switch was kept: the selection changed.
    pub changed: bool,
    /// The pass ran to its fixed point or its budget (`false`: the
    /// deadline cut it short).
    pub complete: bool,
}

/// A scan class with the classes that read it through `proj`.
struct Readers {
    /// The scan's class (dense index).
    class: usize,
    /// Each class holding a `proj` of `class`, once, with the position of
    /// its first such `proj` node; sorted by class.
    projs: Vec<(usize, usize)>,
}

/// For every class holding a scan node and read through `proj` by at least
/// one class other than itself, the readers; sorted by the scan's class.
fn scan_readers(egraph: &EGraph, t: &NodeTable) -> Vec<Readers> {
    let mut by_src: Vec<Vec<(usize, usize)>> = vec![Vec::new(); t.n_classes()];
    for c in 0..t.n_classes() {
        for k in 0..t.n_nodes(c) {
            let info = t.info(c, k);
            let Some(&src) = info.children.get(1) else {
                continue;
            };
            let is_proj = t
                .node(egraph, c, k)
                .is_some_and(|n| matches!(n.head, Head::Op(OpKind::Proj)));
            if !is_proj || !info.own.is_finite() || src == c {
                continue;
            }
            let readers = &mut by_src[src];
            if readers.last().is_none_or(|(last, _)| *last != c) {
                readers.push((c, k));
            }
        }
    }
    by_src
        .into_iter()
        .enumerate()
        .filter(|(c, projs)| {
            !projs.is_empty() && (0..t.n_nodes(*c)).any(|k| t.info(*c, k).scan.is_some())
        })
        .map(|(class, projs)| Readers { class, projs })
        .collect()
}

/// Whether class `c`'s chosen node is a `proj` of class `src`.
fn reads(t: &NodeTable, egraph: &EGraph, choice: &[usize], c: usize, src: usize) -> bool {
    t.info(c, choice[c]).children.get(1) == Some(&src)
        && t.node(egraph, c, choice[c])
            .is_some_and(|n| matches!(n.head, Head::Op(OpKind::Proj)))
}

/// The nodes that have each class as a child.
struct Parents {
    /// Class `c`'s parents are the global nodes `nodes[start[c]..start[c + 1]]`.
    start: Vec<usize>,
    nodes: Vec<usize>,
    /// The class of each global node.
    class_of: Vec<usize>,
    /// The global number of each class's first node.
    first: Vec<usize>,
}

impl Parents {
    fn new(t: &NodeTable) -> Self {
        let (start, nodes) = t.parents();
        let first = (0..t.n_classes()).map(|c| t.global(c, 0)).collect();
        Parents {
            start,
            nodes,
            class_of: t.class_of_nodes(),
            first,
        }
    }

    /// The nodes with class `c` as a child, as `(class, position)`.
    fn of(&self, c: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.nodes[self.start[c]..self.start[c + 1]]
            .iter()
            .map(|g| {
                let pc = self.class_of[*g];
                (pc, g - self.first[pc])
            })
    }
}

/// The switches that make the selection use scan class `s`'s outputs
/// wherever it can, as `(class, node)`, each class once: every selected
/// class with a `proj` of `s` that does not read `s` yet switches to that
/// `proj`; and for a reader class that is not selected (e.g. an output
/// `s` keeps only the last steps of), each selected class with a node that
/// reads it and otherwise only selected classes switches to that node,
/// and the reader to its `proj`.
fn switches(
    t: &NodeTable,
    egraph: &EGraph,
    choice: &[usize],
    selected: &[bool],
    parents: &Parents,
    r: &Readers,
    s: usize,
) -> Vec<(usize, usize)> {
    let mut group: Vec<(usize, usize)> = Vec::new();
    let push = |group: &mut Vec<(usize, usize)>, c: usize, k: usize| {
        if c != s && group.iter().all(|(g, _)| *g != c) {
            group.push((c, k));
        }
    };
    for &(q, j) in &r.projs {
        if selected[q] {
            if !reads(t, egraph, choice, q, s) {
                push(&mut group, q, j);
            }
            continue;
        }
        let mut users = Vec::new();
        for (pc, pk) in parents.of(q) {
            let info = t.info(pc, pk);
            if selected[pc]
                && pk != choice[pc]
                && pc != q
                && info.own.is_finite()
                && info.children.iter().all(|ch| *ch == q || selected[*ch])
                && users.iter().all(|(u, _)| *u != pc)
            {
                users.push((pc, pk));
            }
        }
        if !users.is_empty() {
            push(&mut group, q, j);
            for (pc, pk) in users {
                push(&mut group, pc, pk);
            }
        }
    }
    group
}

/// The switches that make the selection read scan class `s` (as node
/// `k`) through any chain of classes, as `(class, node)`: every class
/// with a `proj` of `s` switches to it, selected or not; then each
/// selected class whose chosen term does not reach `s` but which has a
/// node with a child whose chosen term does switches to the first such
/// node. A weight gradient written as a `dot` of a loop's reshaped
/// output reads the loop two classes down, where [`switches`] looks one.
fn indirect_switches(
    t: &NodeTable,
    choice: &[usize],
    selected: &[bool],
    parents: &Parents,
    r: &Readers,
    s: usize,
    k: usize,
) -> Vec<(usize, usize)> {
    let mut trial = choice.to_vec();
    trial[s] = k;
    let mut group: Vec<(usize, usize)> = Vec::new();
    for &(q, j) in &r.projs {
        if q != s && trial[q] != j {
            trial[q] = j;
            group.push((q, j));
        }
    }
    // The classes whose chosen term reaches `s`.
    let mut reach = vec![false; t.n_classes()];
    reach[s] = true;
    let mut stack = vec![s];
    while let Some(x) = stack.pop() {
        for (pc, pk) in parents.of(x) {
            if !reach[pc] && trial[pc] == pk {
                reach[pc] = true;
                stack.push(pc);
            }
        }
    }
    for q in 0..t.n_classes() {
        if !selected[q] || reach[q] || q == s {
            continue;
        }
        let node = (0..t.n_nodes(q)).find(|&kq| {
            let info = t.info(q, kq);
            info.own.is_finite() && info.children.iter().any(|ch| reach[*ch])
        });
        // `q` is not in `group` yet: a class with a `proj` of `s` reaches it.
        if let Some(kq) = node {
            group.push((q, kq));
        }
    }
    group
}

/// A candidate switch: the selection's cost after it, the scan class and
/// the node it adopts, and the classes switched with their new nodes.
type Switch = (f64, usize, usize, Vec<(usize, usize)>);

/// Relative margin by which a switch must lower the cost to be kept, so
/// that rounding never makes two selections of equal cost alternate.
const MARGIN: f64 = 1e-12;

/// Adopts loops that serve several selected classes at once (see the
/// module documentation). `choice` must be acyclic from `root`; it stays
/// acyclic, and its cost from `root` never rises. At most `budget` switches
/// are evaluated; the pass stops at `deadline`.
pub(crate) fn adopt_loops(
    egraph: &EGraph,
    t: &NodeTable,
    root: usize,
    choice: &mut [usize],
    mut budget: usize,
    deadline: Option<Instant>,
) -> Adopted {
    let mut done = Adopted {
        changed: false,
        complete: true,
    };
    let readers = scan_readers(egraph, t);
    if readers.is_empty() {
        return done;
    }
    let Some(order) = reachable(t, root, choice) else {
        return done;
    };
    let mut cur = selection_cost(t, root, choice);
    if !cur.is_finite() {
        return done;
    }
    let mut selected = vec![false; t.n_classes()];
    for &c in &order {
        selected[c] = true;
    }
    let parents = Parents::new(t);
    // Each sweep tries every candidate switch from the same selection and
    // keeps the one that lowers the cost most. Taking the first switch
    // that helps would let a loop that serves two classes directly shut
    // out a cheaper loop serving them through other classes: once the
    // first is adopted, the second no longer has a selected reader.
    loop {
        let mut best: Option<Switch> = None;
        for r in &readers {
            let s = r.class;
            for k in 0..t.n_nodes(s) {
                let info = t.info(s, k);
                if info.scan.is_none() || !info.own.is_finite() || budget == 0 {
                    continue;
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    done.complete = false;
                    return done;
                }
                let direct = switches(t, egraph, choice, &selected, &parents, r, s);
                let mut indirect = indirect_switches(t, choice, &selected, &parents, r, s, k);
                let mut sorted = direct.clone();
                sorted.sort_unstable();
                indirect.sort_unstable();
                // The same switches need one look.
                let groups = if indirect == sorted {
                    vec![direct]
                } else {
                    vec![direct, indirect]
                };
                for group in groups {
                    let uses = group.iter().filter(|(p, _)| selected[*p]).count();
                    if (uses < 2 && !(uses == 1 && selected[s])) || budget == 0 {
                        continue;
                    }
                    budget -= 1;
                    let old_s = choice[s];
                    let old: Vec<usize> = group.iter().map(|(p, _)| choice[*p]).collect();
                    choice[s] = k;
                    for (p, j) in &group {
                        choice[*p] = *j;
                    }
                    if reachable(t, root, choice).is_some() {
                        let cost = selection_cost(t, root, choice);
                        let bar = best.as_ref().map_or(cur - MARGIN * cur.abs(), |b| b.0);
                        if cost < bar {
                            best = Some((cost, s, k, group.clone()));
                        }
                    }
                    choice[s] = old_s;
                    for ((p, _), o) in group.iter().zip(old) {
                        choice[*p] = o;
                    }
                }
            }
        }
        let Some((cost, s, k, group)) = best else {
            break;
        };
        choice[s] = k;
        for (p, j) in &group {
            choice[*p] = *j;
        }
        let Some(o) = reachable(t, root, choice) else {
            break;
        };
        selected.iter_mut().for_each(|x| *x = false);
        for &c in &o {
            selected[c] = true;
        }
        cur = cost;
        done.changed = true;
    }
    done
}

#[cfg(test)]
mod tests {
    use crate::egraph::analysis::{EGraph, TensorAnalysis};
    use crate::egraph::runner::{saturate, Limits};
    use crate::egraph::term::{program_to_expr, Head, OpKind, TNode};
    use crate::extract::dag::{dag_cost, extract_dag, extract_dag_with};
    use crate::extract::CostModel;
    use crate::lang::parse_program;
    use egg::{Id, RecExpr};
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    /// The scan nodes of a term.
    fn scans(e: &RecExpr<TNode>) -> Vec<&TNode> {
        e.as_ref()
            .iter()
            .filter(|n| matches!(n.head, Head::Scan(_)))
            .collect()
    }

    /// An e-graph holding the program `separate` and the program `merged`,
    /// their outputs unioned pairwise (as `scan-merge` leaves the classes
    /// of two loops' outputs), and the root of `separate`.
    fn unioned(separate: &str, merged: &str) -> (EGraph, Id) {
        let mut eg = EGraph::new(TensorAnalysis::default());
        let mut root = |text: &str| {
            let p = parse_program(text).expect("parse");
            eg.add_expr(&program_to_expr(&p).expect("to expr"))
        };
        let (rp, rq) = (root(separate), root(merged));
        let outputs = |eg: &EGraph, r: Id| eg[r].nodes[0].children.clone();
        let pairs: Vec<(Id, Id)> = outputs(&eg, rp).into_iter().zip(outputs(&eg, rq)).collect();
        for (a, b) in pairs {
            eg.union(a, b);
        }
        eg.rebuild();
        (eg, rp)
    }

    const SEPARATE: &str = "(program p (input x (f64 T)) (input y (f64 T))
        (let A (scan (sequences x) (outputs_info (sitsot 0.0)) (fn (s a) (tanh (add a s)))))
        (let B (scan (sequences y) (outputs_info (sitsot 0.0)) (fn (s b) (sin (add b s)))))
        (output A B))";

    /// Extraction with and without the loop-aware pass: (cost, term) each.
    fn both(eg: &EGraph, root: Id) -> ((f64, RecExpr<TNode>), (f64, RecExpr<TNode>)) {
        let m = CostModel::default();
        let (c1, e1, done1) = extract_dag_with(eg, root, &m, None, true);
        let (c0, e0, done0) = extract_dag_with(eg, root, &m, None, false);
        assert!(done1 && done0);
        ((c1, e1), (c0, e0))
    }

    /// Two loops over different sequences, and the merged loop computing
    /// both: greedy alone keeps the two loops; the pass takes the merged
    /// one, which saves one loop's overhead.
    #[test]
    fn the_merged_loop_is_taken_when_cheaper() {
        let (eg, root) = unioned(
            SEPARATE,
            "(program q (input x (f64 T)) (input y (f64 T))
               (let (A B) (scan (sequences x y) (outputs_info (sitsot 0.0) (sitsot 0.0))
                 (fn (s t a b) (outputs (tanh (add a s)) (sin (add b t))))))
               (output A B))",
        );
        let ((c1, e1), (c0, e0)) = both(&eg, root);
        assert_eq!(scans(&e0).len(), 2, "{e0}");
        assert_eq!(scans(&e1).len(), 1, "{e1}");
        // The one loop has both outputs.
        assert!(
            scans(&e1).iter().all(|n| match &n.head {
                Head::Scan(sig) => sig.n_body_outputs() == 2,
                _ => false,
            }),
            "{e1}"
        );
        assert!(c1 < c0, "{c1} vs {c0}");
        assert_eq!(c1, dag_cost(&e1, &CostModel::default()));
        // Deterministic, and what the public entry point gives.
        let (c, e) = extract_dag(&eg, root, &CostModel::default());
        assert_eq!((c, e.to_string()), (c1, e1.to_string()));
    }

    /// The same, but the merged loop also computes a third output, a
    /// 64×64 matrix product every step: merging costs more than it saves,
    /// and the two loops are kept.
    #[test]
    fn the_merged_loop_is_left_when_costlier() {
        let (eg, root) = unioned(
            SEPARATE,
            "(program q (input x (f64 T)) (input y (f64 T)) (input W (f64 64 64))
               (let (A B C) (scan (sequences x y)
                 (outputs_info (sitsot 0.0) (sitsot 0.0) (nitsot)) (non_sequences W)
                 (fn (s t a b w) (outputs (tanh (add a s)) (sin (add b t)) (sum (dot w w))))))
               (output A B C))",
        );
        let loops = eg
            .classes()
            .flat_map(|c| &c.nodes)
            .filter(|n| matches!(n.head, Head::Scan(_)))
            .count();
        assert_eq!(loops, 3, "both loops and the merged one");
        let ((c1, e1), (c0, e0)) = both(&eg, root);
        assert_eq!(scans(&e1).len(), 2, "{e1}");
        assert_eq!((c1, e1.to_string()), (c0, e0.to_string()));
    }

    /// A backward loop's weight gradient: once saturated, one loop `L`
    /// (the carry and the stacked step terms) serves the carry's last value
    /// through `proj` and the weight gradient through a `dot` of its
    /// reshaped output; another loop (the carry and the accumulator, its
    /// last row kept) serves both through `proj`. Greedy prices each output
    /// alone and picks a third, carry-only loop for the carry. Adopting the
    /// first loop that helps took the second and shut `L` out (its only
    /// selected reader was gone); the pass takes the switch that helps
    /// most, and the term is the one-product form.
    #[test]
    fn the_best_loop_switch_is_taken_not_the_first() {
        let text = "(program bw
            (input X (f64 5 2 3)) (input D (f64 5 2 4)) (input G (f64 6 2 4)) (input U (f64 4 4))
            (let (m acc) (scan
              (sequences (slice X none none -1) (slice D none none -1))
              (outputs_info (mitmot (slice G none none -1) (in_taps 0 1) (out_taps 1))
                            (sitsot (zeros (f64 3 4))))
              (non_sequences U)
              (fn (x d m0 m1 a u)
                (let g (mul (add m0 d) (sub 1.0 (mul m0 m0))))
                (outputs (add m1 (dot g u)) (add a (dot (transpose x 1 0) g))))))
            (output (index acc -1) (index m -1)))";
        let p = parse_program(text).expect("parse");
        let rewrites = crate::optimize::default_rewrites().expect("rules");
        let limits = Limits {
            iter_limit: 12,
            plateau_iters: None,
            ..Limits::default()
        };
        let sat = saturate(&p, &rewrites, &limits, false).expect("saturate");
        let m = CostModel::default();
        let (c1, e1, done) = extract_dag_with(&sat.egraph, sat.root, &m, None, true);
        let (c0, _, _) = extract_dag_with(&sat.egraph, sat.root, &m, None, false);
        assert!(done);
        assert!(c1 < c0, "{c1} vs greedy {c0}");
        assert_eq!(scans(&e1).len(), 1, "{e1}");
        let heads: Vec<&Head> = e1.as_ref().iter().map(|n| &n.head).collect();
        assert!(
            !heads.iter().any(|h| matches!(h, Head::Op(OpKind::Matmul))),
            "the steps' products are one dot: {e1}"
        );
        assert!(
            heads.iter().any(|h| matches!(h, Head::Op(OpKind::Reshape))),
            "{e1}"
        );
    }

    fn sexp_files(dir: &Path, prefix: &str) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("read dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "sexp")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(prefix))
            })
            .collect();
        files.sort();
        files
    }

    /// On saturated e-graphs of the merge cases and the workloads, the pass
    /// never makes the extracted term costlier than greedy extraction
    /// without it, and it makes some cheaper.
    #[test]
    fn never_costlier_than_greedy() {
        let root_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = sexp_files(&root_dir.join("tests/cases/scan_rules"), "pt_e");
        files.extend(sexp_files(&root_dir.join("benches/programs"), ""));
        assert!(files.len() >= 15, "{} files", files.len());
        let rewrites = crate::optimize::default_rewrites().expect("rules");
        let limits = Limits {
            iter_limit: 10,
            node_limit: 20_000,
            time_limit: Duration::from_secs(30),
            ..Limits::default()
        };
        let m = CostModel::default();
        let mut cheaper = 0;
        for f in &files {
            let text = std::fs::read_to_string(f).expect("read");
            let p = parse_program(&text).expect("parse");
            let p = crate::grad::expand(&p).expect("grad expands");
            let sat = saturate(&p, &rewrites, &limits, false).expect("saturate");
            let (c1, e1, _) = extract_dag_with(&sat.egraph, sat.root, &m, None, true);
            let (c0, _, _) = extract_dag_with(&sat.egraph, sat.root, &m, None, false);
            let name = f.display();
            assert!(c1 <= c0, "{name}: {c1} > greedy {c0}");
            assert_eq!(c1, dag_cost(&e1, &m), "{name}");
            if c1 < c0 {
                cheaper += 1;
            }
        }
        assert!(cheaper >= 5, "the pass improved {cheaper} programs");
    }
}
