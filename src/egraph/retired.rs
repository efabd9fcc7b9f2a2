//! Retired loops: scan classes whose every output already has a loop-free
//! form in the e-graph.
//!
//! Owns: [`loop_free_scans`], computed before each saturation iteration;
//! the runner's hook retires (in [`super::TensorAnalysis::retired`]) the
//! loops it finds at the start of two iterations in a row, so the Scan
//! rewrites have one iteration to improve on the first loop-free form (a
//! fold whose last value is `(index (cumsum X) -1)` becomes `(sum X)` in
//! the next iteration, by `scan-to-reduction` on the loop). The Scan
//! rewrites skip a retired loop: rebuilding, merging or pushing parts out
//! of a loop that extraction never needs to pick only grows the e-graph
//! (measured on garch_grad: the loops its `linrec`s replace kept every
//! Scan rewrite busy for three more iterations). Must not: decide what a
//! rewrite does, or drop anything from the e-graph — retiring only stops
//! work on the loop; its classes and their equalities stay.
//!
//! A class is loop-free when one of its nodes is not a scan and reads
//! only loop-free classes (a body's parameters are leaves, so a loop body
//! is loop-free; a `proj` of a scan is not, unless its class also holds
//! a loop-free node). A scan class is retired when every `proj` that
//! reads it sits in a loop-free class, and something reads it.
//!
//! Retiring trades optimality for time: a rewrite of a retired loop that
//! would have led to a cheaper loop-free form than the ones found is not
//! tried. The snapshots of tests/ show no such loss with the one-iteration
//! grace.

use super::analysis::EGraph;
use super::term::Head;
use egg::Id;
use std::collections::{HashMap, HashSet};

/// The canonical ids of the scan classes of `egraph` (which must be
/// rebuilt) whose every output has a loop-free form.
pub fn loop_free_scans(egraph: &EGraph) -> HashSet<Id> {
    let mut free: HashSet<Id> = HashSet::new();
    // A fixed point: each pass marks the classes with a node over marked
    // classes; at most as many passes as the deepest loop-free term.
    loop {
        let before = free.len();
        for class in egraph.classes() {
            if free.contains(&class.id) {
                continue;
            }
            let found = class.nodes.iter().any(|n| {
                !matches!(n.head, Head::Scan(_))
                    && n.children.iter().all(|c| free.contains(&egraph.find(*c)))
            });
            if found {
                free.insert(class.id);
            }
        }
        if free.len() == before {
            break;
        }
    }
    // Per scan class: whether some reader is not loop-free.
    let mut needed: HashMap<Id, bool> = HashMap::new();
    for class in egraph.classes() {
        for n in &class.nodes {
            for c in &n.children {
                let c = egraph.find(*c);
                if !egraph[c]
                    .nodes
                    .iter()
                    .any(|m| matches!(m.head, Head::Scan(_)))
                {
                    continue;
                }
                let reader_free = matches!(n.head, Head::Op(super::term::OpKind::Proj))
                    && free.contains(&class.id);
                *needed.entry(c).or_insert(false) |= !reader_free;
            }
        }
    }
    needed
        .into_iter()
        .filter_map(|(c, need)| (!need).then_some(c))
        .collect()
}
