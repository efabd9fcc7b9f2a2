//! Which loops a value depends on: reachability between e-classes, for
//! the rules that pair two loops (`scan-merge`, `scan-fuse`) and must not
//! make a loop read itself.
//!
//! Owns: [`ScanReach`] (for every class, the loop classes it reaches,
//! computed for the whole e-graph in one pass) and [`reaches`] (one query,
//! stopping at the first hit). Must not: change the e-graph.
//!
//! Reachability follows every child of every node of a class, loop bodies
//! included, as the e-graph holds them: it over-approximates what any one
//! term of a class reads, which is the safe side for avoiding cycles.
//! [`ScanReach::within_scope`] is the same table within one scope: a scan
//! node's body results are not followed, only its outer arguments (see
//! [`super::scope`]).

use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, TNode};
use egg::Id;
use std::collections::HashMap;

/// For every class of an e-graph, the loop classes (classes holding a scan
/// node) reachable from it, itself included.
///
/// Built by one pass of Tarjan's algorithm: the strongly connected
/// components of the class graph come out children first, and each one's
/// set is the union of its members' own bits and its successors' sets, so
/// the whole table takes time linear in the e-graph (times the number of
/// loop classes / 64).
pub struct ScanReach {
    /// Per class id (`usize::from`), its component; `u32::MAX`: not a
    /// class when the table was built.
    component: Vec<u32>,
    /// Per loop class, its bit.
    bit: HashMap<Id, usize>,
    /// Per bit, its loop class.
    loops: Vec<Id>,
    /// Words of each component's bit set.
    words: usize,
    /// The bit sets of the components, `words` words each.
    sets: Vec<u64>,
}

const NONE: u32 = u32::MAX;

impl ScanReach {
    /// The table of `egraph` as it is now.
    pub fn new(egraph: &EGraph) -> ScanReach {
        Self::following(egraph, |n| &n.children)
    }

    /// The table of `egraph` within one scope: from a class, the loops
    /// its terms read in the scope that holds it, a nested loop's body
    /// (the scan's own scope) left out.
    pub fn within_scope(egraph: &EGraph) -> ScanReach {
        Self::following(egraph, super::body::scoped_children)
    }

    /// The table following the children `edges` gives of each node.
    fn following(egraph: &EGraph, edges: fn(&TNode) -> &[Id]) -> ScanReach {
        let ids: Vec<Id> = egraph.classes().map(|c| c.id).collect();
        let max = ids
            .iter()
            .map(|i| usize::from(*i))
            .max()
            .map_or(0, |m| m + 1);
        let mut dense = vec![NONE; max];
        for (k, id) in ids.iter().enumerate() {
            dense[usize::from(*id)] = k as u32;
        }
        let mut bit: HashMap<Id, usize> = HashMap::new();
        let mut own: Vec<Option<usize>> = vec![None; ids.len()];
        let mut adj: Vec<Vec<u32>> = Vec::with_capacity(ids.len());
        for (k, id) in ids.iter().enumerate() {
            let class = &egraph[*id];
            if class.nodes.iter().any(|n| matches!(n.head, Head::Scan(_))) {
                let b = bit.len();
                bit.insert(*id, b);
                own[k] = Some(b);
            }
            let mut succ: Vec<u32> = class
                .nodes
                .iter()
                .flat_map(|n| edges(n).iter())
                .map(|c| {
                    dense
                        .get(usize::from(egraph.find(*c)))
                        .copied()
                        .unwrap_or(NONE)
                })
                .filter(|d| *d != NONE)
                .collect();
            succ.sort_unstable();
            succ.dedup();
            adj.push(succ);
        }
        let words = bit.len().div_ceil(64).max(1);
        let n = ids.len();
        // Iterative Tarjan.
        let mut index = vec![NONE; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<u32> = Vec::new();
        let mut comp_of = vec![NONE; n];
        let mut sets: Vec<u64> = Vec::new();
        let mut counter = 0u32;
        let mut members: Vec<u32> = Vec::new();
        for root in 0..n {
            if index[root] != NONE {
                continue;
            }
            let mut calls: Vec<(u32, usize)> = vec![(root as u32, 0)];
            index[root] = counter;
            low[root] = counter;
            counter += 1;
            stack.push(root as u32);
            on_stack[root] = true;
            while let Some(&(v, i)) = calls.last() {
                let vu = v as usize;
                if let Some(&w) = adj[vu].get(i) {
                    if let Some(top) = calls.last_mut() {
                        top.1 += 1;
                    }
                    let wu = w as usize;
                    if index[wu] == NONE {
                        index[wu] = counter;
                        low[wu] = counter;
                        counter += 1;
                        stack.push(w);
                        on_stack[wu] = true;
                        calls.push((w, 0));
                    } else if on_stack[wu] {
                        low[vu] = low[vu].min(index[wu]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u as usize] = low[u as usize].min(low[vu]);
                }
                if low[vu] != index[vu] {
                    continue;
                }
                // v is the root of a component: pop it, then its set.
                let c = (sets.len() / words) as u32;
                members.clear();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp_of[w as usize] = c;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                let mut set = vec![0u64; words];
                for &m in &members {
                    if let Some(b) = own[m as usize] {
                        set[b / 64] |= 1 << (b % 64);
                    }
                    for &w in &adj[m as usize] {
                        let d = comp_of[w as usize];
                        if d != c && d != NONE {
                            let from = d as usize * words;
                            for (x, y) in set.iter_mut().zip(&sets[from..from + words]) {
                                *x |= *y;
                            }
                        }
                    }
                }
                sets.extend(set);
            }
        }
        let mut component = vec![NONE; max];
        for (k, id) in ids.iter().enumerate() {
            component[usize::from(*id)] = comp_of[k];
        }
        let mut loops = vec![Id::from(0usize); bit.len()];
        for (c, b) in &bit {
            loops[*b] = *c;
        }
        ScanReach {
            component,
            bit,
            loops,
            words,
            sets,
        }
    }

    /// The loop classes reachable from one of `from` (themselves
    /// included); `None` when a class of `from` was not a class when the
    /// table was built.
    pub fn loops_from(&self, egraph: &EGraph, from: &[Id]) -> Option<Vec<Id>> {
        let mut set = vec![0u64; self.words];
        for f in from {
            let c = *self.component.get(usize::from(egraph.find(*f)))?;
            if c == NONE {
                return None;
            }
            let at = c as usize * self.words;
            for (x, y) in set.iter_mut().zip(&self.sets[at..at + self.words]) {
                *x |= *y;
            }
        }
        let mut loops = Vec::new();
        for (w, word) in set.iter().enumerate() {
            let mut bits = *word;
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                loops.extend(self.loops.get(w * 64 + b).copied());
            }
        }
        Some(loops)
    }

    /// True when the loop class `target` is reachable from one of `from`
    /// (itself included). `None` when the table cannot tell: `target` or
    /// a class of `from` was not a loop class or a class when the table
    /// was built.
    pub fn reaches(&self, egraph: &EGraph, from: &[Id], target: Id) -> Option<bool> {
        let b = *self.bit.get(&egraph.find(target))?;
        let mut hit = false;
        for f in from {
            let c = *self.component.get(usize::from(egraph.find(*f)))?;
            if c == NONE {
                return None;
            }
            let w = self.sets[c as usize * self.words + b / 64];
            hit |= w & (1 << (b % 64)) != 0;
        }
        Some(hit)
    }
}

/// True when `target` is reachable from one of `from` (themselves
/// included), through any node's children; stops at the first hit.
pub fn reaches(egraph: &EGraph, from: &[Id], target: Id) -> bool {
    let target = egraph.find(target);
    let mut seen: std::collections::HashSet<Id> = std::collections::HashSet::new();
    let mut stack: Vec<Id> = from.iter().map(|c| egraph.find(*c)).collect();
    while let Some(c) = stack.pop() {
        if c == target {
            return true;
        }
        if !seen.insert(c) {
            continue;
        }
        for n in &egraph[c].nodes {
            stack.extend(n.children.iter().map(|ch| egraph.find(*ch)));
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egraph::runner::{saturate, Limits};
    use crate::lang::parse_program;

    /// A search within one scope (a scan's body results not followed).
    fn reaches_within(egraph: &EGraph, from: Id, target: Id) -> bool {
        let target = egraph.find(target);
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![egraph.find(from)];
        while let Some(c) = stack.pop() {
            if c == target {
                return true;
            }
            if seen.insert(c) {
                for n in &egraph[c].nodes {
                    let ch = crate::scan_rules::body::scoped_children(n);
                    stack.extend(ch.iter().map(|x| egraph.find(*x)));
                }
            }
        }
        false
    }

    /// The table agrees with a search from each class, for every class and
    /// every loop class of a saturated e-graph with chained, independent
    /// and nested loops, and still after a union that makes a cycle; so
    /// do the table within one scope and [`ScanReach::loops_from`].
    #[test]
    fn table_agrees_with_search() {
        let p = parse_program(
            "(program p (input X (f64 T 4)) (input w (f64 4)) (input h0 (f64 4))
               (let A (scan (sequences X) (outputs_info (sitsot h0))
                        (fn (x h) (tanh (add (mul h w) x)))))
               (let B (scan (sequences A) (fn (a) (mul a 2.0))))
               (let C (scan (sequences X) (non_sequences w)
                        (fn (x v) (sum (scan (sequences (stack x x)) (fn (z) (mul z v))) 0))))
               (output (add B 1.0) C))",
        )
        .expect("parse");
        let rewrites = crate::optimize::default_rewrites().expect("rules");
        let limits = Limits {
            iter_limit: 6,
            ..Limits::default()
        };
        let mut egraph = saturate(&p, &rewrites, &limits, false)
            .expect("saturate")
            .egraph;
        let check = |egraph: &EGraph| {
            let table = ScanReach::new(egraph);
            let within = ScanReach::within_scope(egraph);
            let ids: Vec<Id> = egraph.classes().map(|c| c.id).collect();
            let loops: Vec<Id> = egraph
                .classes()
                .filter(|c| c.nodes.iter().any(|n| matches!(n.head, Head::Scan(_))))
                .map(|c| c.id)
                .collect();
            assert!(loops.len() >= 4, "{} loop classes", loops.len());
            let mut hits = 0;
            let mut fewer = 0;
            for c in &ids {
                let mut from_c = Vec::new();
                for t in &loops {
                    let want = reaches(egraph, &[*c], *t);
                    hits += usize::from(want);
                    assert_eq!(table.reaches(egraph, &[*c], *t), Some(want), "{c} -> {t}");
                    let want_within = reaches_within(egraph, *c, *t);
                    fewer += usize::from(want && !want_within);
                    assert_eq!(within.reaches(egraph, &[*c], *t), Some(want_within));
                    if want_within {
                        from_c.push(*t);
                    }
                }
                let mut got = within.loops_from(egraph, &[*c]).expect("a class");
                got.sort();
                from_c.sort();
                assert_eq!(got, from_c, "{c}");
            }
            // The nested loop is read from the outer one's body only.
            assert!(fewer > 0);
            hits
        };
        let before = check(&egraph);
        // X's class also holds a term over B: every class that reaches X
        // now reaches B's loop and A's.
        let x = egraph
            .classes()
            .find(|c| {
                c.nodes
                    .iter()
                    .any(|n| matches!(&n.head, Head::Input(s, _) if s.as_str() == "X"))
            })
            .map(|c| c.id)
            .expect("X");
        let b_loop = egraph
            .classes()
            .filter(|c| c.nodes.iter().any(|n| matches!(n.head, Head::Scan(_))))
            .map(|c| c.id)
            .find(|l| reaches(&egraph, &[*l], x) && !reaches(&egraph, &[x], *l))
            .expect("a loop over X");
        let kl = egraph.add(crate::egraph::term::TNode::lit(crate::lang::Scalar::I64(0)));
        let out = egraph.add(crate::egraph::term::TNode {
            head: Head::Op(crate::egraph::term::OpKind::Proj),
            children: vec![kl, b_loop],
        });
        egraph.union(x, out);
        egraph.rebuild();
        assert!(check(&egraph) > before);
    }
}
