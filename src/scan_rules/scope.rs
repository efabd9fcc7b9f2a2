//! Where loops are used: the scopes (the program's top level, or the body
//! of one scan e-node) from which a loop class is reachable, for the
//! rules that pair two loops of one body (`scan-merge`).
//!
//! Owns: [`Scope`] and [`LoopScopes`]. Must not: change the e-graph, or
//! decide what a rule does with the sets.
//!
//! An inner input `(arg k)` is a hash-consed leaf, so a class reading it
//! sits in every body that has an input `k` of its type: which body a loop
//! belongs to cannot be read off the loop. It is read from the other side:
//! each scan e-node's body results are walked within their scope (a nested
//! scan's own body left out, its outer arguments followed;
//! [`super::reach::ScanReach::within_scope`]), and every loop reached
//! there is used in that body. The top level is walked from the program's
//! root (the `outputs` node).
//!
//! The walk follows every node of every class, so a set over-approximates
//! where any extraction can use a loop: a class that an extracted program
//! uses in a body is reachable from that body. Two loops with one set are
//! used in exactly the same bodies, as far as the e-graph can tell:
//! wherever one of them is, the other is reachable too, and so are its
//! outer arguments.

use super::reach::ScanReach;
use crate::egraph::analysis::EGraph;
use crate::egraph::term::Head;
use egg::Id;
use std::collections::{BTreeSet, HashMap};

/// A scope a loop is used in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// The program's top level.
    Top,
    /// The body of a scan e-node: its class and its place in the class's
    /// nodes (two scan nodes of one class may have different bodies, whose
    /// inputs are numbered differently).
    Body(Id, usize),
}

/// For some loop classes, the scopes each is used in.
pub struct LoopScopes {
    of: HashMap<Id, BTreeSet<Scope>>,
    /// False when a walk could not be made (a class the table did not
    /// know of): then no set is known.
    complete: bool,
}

impl LoopScopes {
    /// The scopes of each of `loops` (loop classes) in `egraph` as it is
    /// now.
    pub fn new(egraph: &EGraph, loops: &[Id]) -> LoopScopes {
        let wanted: BTreeSet<Id> = loops.iter().map(|c| egraph.find(*c)).collect();
        let mut of: HashMap<Id, BTreeSet<Scope>> = HashMap::new();
        let mut complete = true;
        let table = ScanReach::within_scope(egraph);
        let mut add = |from: &[Id], scope: Scope, of: &mut HashMap<Id, BTreeSet<Scope>>| {
            let Some(reached) = table.loops_from(egraph, from) else {
                complete = false;
                return;
            };
            for l in reached {
                if wanted.contains(&l) {
                    of.entry(l).or_default().insert(scope);
                }
            }
        };
        for class in egraph.classes() {
            for (k, n) in class.nodes.iter().enumerate() {
                match &n.head {
                    Head::Scan(sig) => {
                        let nr = sig.n_body_results().min(n.children.len());
                        add(&n.children[..nr], Scope::Body(class.id, k), &mut of);
                    }
                    Head::Outputs => add(&n.children, Scope::Top, &mut of),
                    _ => {}
                }
            }
        }
        LoopScopes { of, complete }
    }

    /// The scopes loop class `l` is used in (empty: none, or `l` was not
    /// asked for); `None` when they are not known.
    pub fn of(&self, egraph: &EGraph, l: Id) -> Option<BTreeSet<Scope>> {
        self.complete
            .then(|| self.of.get(&egraph.find(l)).cloned().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egraph::analysis::TensorAnalysis;
    use crate::egraph::term::program_to_expr;
    use crate::lang::parse_program;

    /// Every loop class of the program `src` (added as written, not
    /// saturated) with the scopes it is used in.
    fn scopes_of(src: &str) -> (EGraph, Vec<(Id, BTreeSet<Scope>)>) {
        let p = parse_program(src).expect("parse");
        let mut egraph = EGraph::new(TensorAnalysis::default());
        egraph.add_expr(&program_to_expr(&p).expect("term"));
        egraph.rebuild();
        let loops: Vec<Id> = egraph
            .classes()
            .filter(|c| c.nodes.iter().any(|n| matches!(n.head, Head::Scan(_))))
            .map(|c| c.id)
            .collect();
        let scopes = LoopScopes::new(&egraph, &loops);
        let sets = loops
            .iter()
            .map(|l| (*l, scopes.of(&egraph, *l).expect("complete")))
            .collect();
        (egraph, sets)
    }

    /// Two inner loops whose inputs are the same leaves, in the bodies
    /// of two outer loops: each is used in its own body only; the outer
    /// loops at the top level only. The same inner loop in both bodies is
    /// used in both.
    #[test]
    fn inner_loops_are_used_in_their_own_bodies() {
        let inner = |f: &str| {
            format!(
                "(scan (sequences xx) (outputs_info (sitsot 0.0)) (non_sequences t)
                   (fn (s a k) ({f} (add a (mul s k)))))"
            )
        };
        let src = |f: &str, g: &str| {
            format!(
                "(program p (input c (f64 3)) (input d (f64 2)) (input x (f64 4))
                   (let O (scan (sequences c) (non_sequences x)
                     (fn (t xx) (index {} -1))))
                   (let P (scan (sequences d) (non_sequences x)
                     (fn (t xx) (index {} -1))))
                   (output O P))",
                inner(f),
                inner(g)
            )
        };
        let (_, sets) = scopes_of(&src("tanh", "sin"));
        assert_eq!(sets.len(), 4);
        let top: Vec<_> = sets
            .iter()
            .filter(|(_, s)| *s == BTreeSet::from([Scope::Top]))
            .collect();
        assert_eq!(top.len(), 2, "{sets:?}");
        let bodies: Vec<&BTreeSet<Scope>> = sets
            .iter()
            .map(|(_, s)| s)
            .filter(|s| !s.contains(&Scope::Top))
            .collect();
        assert_eq!(bodies.len(), 2, "{sets:?}");
        assert!(bodies.iter().all(|s| s.len() == 1), "{sets:?}");
        assert_ne!(bodies[0], bodies[1]);
        // One inner loop, hash-consed: used in both bodies.
        let (_, sets) = scopes_of(&src("tanh", "tanh"));
        assert_eq!(sets.len(), 3);
        assert!(
            sets.iter()
                .any(|(_, s)| s.len() == 2 && !s.contains(&Scope::Top)),
            "{sets:?}"
        );
    }
}
