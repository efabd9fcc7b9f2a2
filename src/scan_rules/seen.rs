//! The scan nodes each Scan rewrite has already examined, to skip those
//! whose reach has not changed since.
//!
//! Owns: [`Key`] (a rule and a canonical scan node), [`record`] and
//! [`unchanged_since_seen`], kept in the e-graph's rewrite state. Must not:
//! be used by a rule whose result depends on more than the scan node
//! reaches ([`super::Reads::Context`]: how the loop's outputs are used,
//! other loops).
//!
//! Why: on gradient programs every Scan rewrite rebuilt, in every
//! iteration, the loop variants it had built in the iterations before
//! (the converted three-scan model of `benches/python_convert.py`
//! applied `scan-accumulator-out` 503 times and `scan-stack-factor` 218
//! times on an e-graph of 720 classes; most applications added nothing).
//! A rule that reads only what the node reaches gives the same result on
//! the same node while nothing under it changed: the e-graph adds a node
//! it already holds and a union it already made. The reach stamps of
//! [`crate::egraph::stamps`] say when something did change.
//!
//! A rule examines a node in iteration `i` and records `i`. In a later
//! iteration it skips the node when the node's children's reach stamps
//! (taken when that iteration began) are all below `i`: nothing the node
//! reaches changed from the start of iteration `i` on. A change made during
//! the current iteration is seen at the next one. An earlier attempt
//! (`memo.rs`) hashed the bodies' classes instead, which cost more than it
//! saved; the stamps cost one pass over the e-graph per iteration.

use crate::egraph::analysis::EGraph;
use crate::egraph::term::TNode;
use egg::Symbol;
use std::collections::HashMap;

/// A rule and a scan node with canonical children.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key(Symbol, TNode);

impl Key {
    /// The key of `rule` on `scan`'s node.
    pub fn of(egraph: &EGraph, rule: Symbol, scan: &super::scan_node::ScanNode) -> Key {
        let mut node = scan.node.clone();
        // Unions made since the node was decoded.
        for c in node.children.iter_mut() {
            *c = egraph.find(*c);
        }
        Key(rule, node)
    }
}

/// The iteration in which each rule last examined each node.
#[derive(Debug, Default)]
struct Seen {
    at: HashMap<Key, u64>,
}

/// Notes that the rule of `key` examined its node in this iteration
/// (nothing is noted outside a runner, iteration 0).
pub fn record(egraph: &mut EGraph, key: Key) {
    let now = egraph.analysis.iteration;
    if now > 0 {
        egraph
            .analysis
            .rewrite_state
            .get_mut::<Seen>()
            .at
            .insert(key, now);
    }
}

/// True when the rule of `key` examined its node in an earlier iteration
/// and nothing the node reaches has changed since that iteration began.
pub fn unchanged_since_seen(egraph: &mut EGraph, key: &Key) -> bool {
    let now = egraph.analysis.iteration;
    let Some(&then) = egraph.analysis.rewrite_state.get_mut::<Seen>().at.get(key) else {
        return false;
    };
    if then >= now {
        return false;
    }
    let stamps = &egraph.analysis.reach_stamps;
    key.1
        .children
        .iter()
        .all(|c| stamps.get(c).is_some_and(|&s| s < then))
}
