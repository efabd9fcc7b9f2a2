//! Terms of one loop's body found in another loop's scope, by lookup.
//!
//! Owns: [`Translation`] (a body class with its parameter leaves renamed
//! to another loop's parameters, looked up node by node) and [`reaches`]
//! (whether a class is part of a body), and the parameter of one loop
//! that holds another's non-sequence ([`shared_non_seq_param`]). Must not: add to the e-graph —
//! the rules that pair two loops (`scan-read-trace`,
//! `scan-store-step-values`) decide what to build from what is found.

use super::scan_node::ScanNode;
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, TNode};
use crate::lang::BodyParam;
use egg::Id;
use std::collections::{BTreeMap, BTreeSet};

/// Classes a translation or a reach may visit, at most (a body is tens of
/// classes).
const MAX_VISITS: usize = 4096;

/// A term of one loop's body looked up in another loop's scope: each
/// parameter leaf replaced by the one `map` names, every other node kept.
/// Only looks up; adds nothing to the e-graph.
pub struct Translation<'a> {
    map: &'a [Option<usize>],
    /// Each class translated (`None`: it has no translation, or it is
    /// being translated: a cycle).
    memo: BTreeMap<Id, Option<Id>>,
    visits: usize,
}

impl<'a> Translation<'a> {
    /// A translation with `map[k]` the parameter of the other scope that
    /// stands for parameter `k` (`None`: `k` has no counterpart).
    pub fn new(map: &'a [Option<usize>]) -> Translation<'a> {
        Translation {
            map,
            memo: BTreeMap::new(),
            visits: 0,
        }
    }

    /// The class in the other scope holding a node of `c` with its
    /// leaves replaced, if the e-graph has one.
    pub fn class(&mut self, egraph: &EGraph, c: Id) -> Option<Id> {
        let c = egraph.find(c);
        if let Some(done) = self.memo.get(&c) {
            return *done;
        }
        if egraph[c].data.deps.is_empty() {
            // A closed term: the same value in every scope.
            return Some(c);
        }
        self.memo.insert(c, None);
        let nodes = egraph[c].nodes.clone();
        for n in nodes {
            if self.visits >= MAX_VISITS {
                return None;
            }
            self.visits += 1;
            let found = match &n.head {
                Head::Arg(k, t) => self.map.get(*k).copied().flatten().and_then(|k2| {
                    egraph.lookup(TNode {
                        head: Head::Arg(k2, t.clone()),
                        children: Vec::new(),
                    })
                }),
                // A nested loop's body is in its own scope.
                Head::Scan(_) => None,
                head => {
                    let mut children = Vec::with_capacity(n.children.len());
                    for ch in &n.children {
                        match self.class(egraph, *ch) {
                            Some(t) => children.push(t),
                            None => break,
                        }
                    }
                    if children.len() == n.children.len() {
                        egraph.lookup(TNode {
                            head: head.clone(),
                            children,
                        })
                    } else {
                        None
                    }
                }
            };
            if let Some(t) = found {
                let t = egraph.find(t);
                self.memo.insert(c, Some(t));
                return Some(t);
            }
        }
        None
    }
}

/// True when `target` is a class of the body whose results are `roots`
/// (nested loops' bodies are not walked: they are other scopes).
pub fn reaches(egraph: &EGraph, roots: &[Id], target: Id) -> bool {
    let target = egraph.find(target);
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Id> = roots.iter().map(|r| egraph.find(*r)).collect();
    while let Some(c) = stack.pop() {
        if c == target {
            return true;
        }
        if !seen.insert(c) || seen.len() > MAX_VISITS || egraph[c].data.deps.is_empty() {
            continue;
        }
        for n in &egraph[c].nodes {
            if matches!(n.head, Head::Scan(_)) {
                continue;
            }
            stack.extend(n.children.iter().map(|ch| egraph.find(*ch)));
        }
    }
    false
}

/// The parameter of `b`'s body that holds the value of `f`'s non-sequence
/// `k` (a non-sequence of `b` with the same outer class), if any.
pub fn shared_non_seq_param(
    egraph: &EGraph,
    f: &ScanNode,
    b: &ScanNode,
    k: usize,
) -> Option<usize> {
    let outer = egraph.find(f.non_seq_outer(k));
    let j = (0..b.sig.n_non_seqs).find(|&j| egraph.find(b.non_seq_outer(j)) == outer)?;
    b.sig
        .body_params()
        .iter()
        .position(|q| *q == BodyParam::NonSequence(j))
}
