//! The nodes the ILP may choose: those of the shared [`NodeTable`] that can
//! be part of a term, less the dominated ones.
//!
//! Owns: [`Candidates`] (per class, its candidate nodes, and the node each
//! dropped one maps to) and the domination rule. Must not: cost nodes (the
//! table did, once) or build the ILP (see [`super::problem`]).

use super::super::table::NodeTable;
use std::collections::{HashMap, VecDeque};

/// A node that may be extracted: finite cost, not its own class's child,
/// every child class with a finite term.
#[derive(Clone, Copy)]
pub(super) struct Cand<'t> {
    /// Position of the node in its e-class.
    pub k: usize,
    /// Own cost (for a scan, its overhead; the body is paid through the
    /// contexts).
    pub own: f64,
    /// For a scan: steps and the number of body outputs.
    pub scan: Option<(f64, usize)>,
    /// Dense indices of the children's classes.
    pub children: &'t [usize],
}

impl Cand<'_> {
    /// The number of body outputs (0 for a node that is not a scan).
    pub fn n_body(&self) -> usize {
        self.scan.map(|(_, nb)| nb).unwrap_or(0)
    }
}

/// The candidates of every class of a [`NodeTable`] (same dense indices).
pub(super) struct Candidates<'t> {
    /// The table the candidates are read from.
    pub table: &'t NodeTable,
    /// Per class, its candidates in e-graph order.
    pub cands: Vec<Vec<Cand<'t>>>,
    /// Per class: dropped (dominated) node position → its dominator's.
    alias: Vec<HashMap<usize, usize>>,
}

impl<'t> Candidates<'t> {
    /// The candidates of `table`: nodes of infinite cost, nodes that are
    /// their own class's child and nodes with a child class that has no
    /// finite term are left out, then the dominated ones.
    pub fn new(table: &'t NodeTable) -> Self {
        let n = table.n_classes();
        let mut cands: Vec<Vec<Cand<'t>>> = (0..n)
            .map(|c| {
                (0..table.n_nodes(c))
                    .filter_map(|k| {
                        let info = table.info(c, k);
                        (info.own.is_finite() && !info.children.contains(&c)).then_some(Cand {
                            k,
                            own: info.own,
                            scan: info.scan,
                            children: info.children,
                        })
                    })
                    .collect()
            })
            .collect();
        // Keep only nodes whose children all have a finite term: a class
        // gets one when a node's children all have one (a worklist over
        // the number of children still without).
        let mut ok = vec![false; n];
        let mut missing: Vec<Vec<usize>> = Vec::with_capacity(n);
        let mut parents: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        let mut queue: VecDeque<usize> = VecDeque::new();
        for (c, cs) in cands.iter().enumerate() {
            let mut m = Vec::with_capacity(cs.len());
            for (j, cand) in cs.iter().enumerate() {
                let distinct = sorted_set(cand.children);
                for ch in &distinct {
                    parents[*ch].push((c, j));
                }
                m.push(distinct.len());
                if distinct.is_empty() && !ok[c] {
                    ok[c] = true;
                    queue.push_back(c);
                }
            }
            missing.push(m);
        }
        while let Some(ch) = queue.pop_front() {
            for &(c, j) in &parents[ch] {
                missing[c][j] -= 1;
                if missing[c][j] == 0 && !ok[c] {
                    ok[c] = true;
                    queue.push_back(c);
                }
            }
        }
        let mut alias = Vec::with_capacity(n);
        for cs in cands.iter_mut() {
            cs.retain(|cand| cand.children.iter().all(|ch| ok[*ch]));
            alias.push(drop_dominated(cs));
        }
        Candidates {
            table,
            cands,
            alias,
        }
    }

    /// The candidate of class `x` standing for its e-node at position `k`
    /// (the node itself, or the node that dominates it).
    pub fn cand_of(&self, x: usize, k: usize) -> Option<usize> {
        let k = self.alias[x].get(&k).copied().unwrap_or(k);
        self.cands[x].iter().position(|c| c.k == k)
    }
}

/// `s` sorted, without repeats.
fn sorted_set(s: &[usize]) -> Vec<usize> {
    let mut v = s.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// The children of a candidate as (body classes, other classes), each
/// sorted without repeats.
fn child_sets(c: &Cand) -> (Vec<usize>, Vec<usize>) {
    let nb = c.n_body();
    (sorted_set(&c.children[..nb]), sorted_set(&c.children[nb..]))
}

fn is_subset(a: &[usize], b: &[usize]) -> bool {
    a.iter().all(|x| b.binary_search(x).is_ok())
}

/// Drops the nodes of a class that another node dominates — no costlier,
/// and needing a subset of its children (of the same kind: body or outer)
/// — such as `(add b a)` beside `(add a b)`: any term using the dominated
/// node stays a term, no costlier and no more cyclic, with the other. Of
/// equal nodes the first is kept. Returns the position of each dropped
/// node mapped to its dominator's.
fn drop_dominated(cs: &mut Vec<Cand>) -> HashMap<usize, usize> {
    let mut alias = HashMap::new();
    if cs.len() < 2 {
        return alias;
    }
    let sets: Vec<(Vec<usize>, Vec<usize>)> = cs.iter().map(child_sets).collect();
    let mut order: Vec<usize> = (0..cs.len()).collect();
    order.sort_by(|&a, &b| {
        cs[a]
            .own
            .total_cmp(&cs[b].own)
            .then((sets[a].0.len() + sets[a].1.len()).cmp(&(sets[b].0.len() + sets[b].1.len())))
            .then(cs[a].k.cmp(&cs[b].k))
    });
    let mut kept: Vec<usize> = Vec::new();
    for &n in &order {
        let dominator = kept.iter().copied().find(|&m| {
            cs[m].scan.is_some() == cs[n].scan.is_some()
                && cs[m].own <= cs[n].own
                && is_subset(&sets[m].0, &sets[n].0)
                && is_subset(&sets[m].1, &sets[n].1)
        });
        match dominator {
            Some(m) => {
                alias.insert(cs[n].k, cs[m].k);
            }
            None => kept.push(n),
        }
    }
    kept.sort_unstable();
    let mut i = 0;
    cs.retain(|_| {
        let keep = kept.binary_search(&i).is_ok();
        i += 1;
        keep
    });
    alias
}
