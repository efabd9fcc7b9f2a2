//! Rewriting a scan body by extract-and-reinsert.
//!
//! Owns: [`Source`] (a body's classes and where each of its inner inputs
//! goes in a new scan), [`Plan`] (a representative term of every class a
//! body reaches, chosen locally) and the rebuilding of those terms in a
//! new scope. Must not: decide what a rewrite does — the rules say which
//! inputs go where; this only carries it out.
//!
//! Terms are chosen, not the classes reused, because an inner input is a
//! positional leaf `(arg k)`: the same class may sit in another loop's body
//! where `k` means something else, so a body can only be re-scoped by
//! writing out one of its terms with new leaves. The choice is the smallest
//! term (fewest nodes) in which every leaf is allowed: a class whose
//! inputs are all forbidden has no term, and a rewrite that needs it fails.
//! Nested scans are copied with their bodies untouched (a body only reads
//! its own scan's inputs); only their outer arguments are re-scoped.

use super::memo::ScanMemo;
use crate::egraph::analysis::{EGraph, Kind};
use crate::egraph::term::{Head, TNode};
use crate::lang::Type;
use egg::Id;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Where something of a source body goes in the new scan.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The new scan's parameter with this provisional index (see
    /// [`crate::scan_rules::build::NewScan`]).
    Param(usize),
    /// A closed term (no inner input), valid in any scope.
    Closed(Id),
    /// A class of source `.0`'s body, rebuilt in the new scope.
    From(usize, Id),
}

/// A body to carry into a new scan.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Source {
    /// For each inner input of the old scan (by parameter position), where
    /// it goes; `None`: it must not be read.
    pub params: Vec<Option<Target>>,
    /// For each inner input of the old scan, its type (`None`: unknown).
    /// A leaf `(arg k)` of another type is not this scan's input `k`: the
    /// body's class was shared with another loop's body, where `k` is a
    /// different input, and the leaf must not be chosen here.
    pub param_types: Vec<Option<Type>>,
    /// Classes replaced as a whole (a pushed-out sub-term becomes a new
    /// parameter).
    pub replace: BTreeMap<Id, Target>,
}

impl Source {
    /// True when the leaf `(arg k)` of type `t` may stand for the old
    /// scan's inner input `k`: its type is that input's (a leaf typed for
    /// another loop's input `k` reads something else).
    fn admits_leaf(&self, k: usize, t: &Type) -> bool {
        match self.param_types.get(k) {
            Some(Some(p)) => p.dtype == t.dtype && p.shape == t.shape,
            _ => true,
        }
    }
}

const INF: usize = usize::MAX;

/// The representative term of every class a set of sources reach.
#[derive(Debug)]
pub struct Plan {
    sources: Vec<Source>,
    /// Per source: class → (cost, the chosen node).
    choice: Vec<BTreeMap<Id, (usize, TNode)>>,
    /// Per source: class → the size of its smallest allowed term (a
    /// replaced class included).
    costs: Vec<BTreeMap<Id, usize>>,
}

fn is_scan(n: &TNode) -> Option<usize> {
    match &n.head {
        Head::Scan(sig) => Some(sig.n_body_results().min(n.children.len())),
        _ => None,
    }
}

/// The children of `n` in its own scope (a scan's body outputs are not).
pub fn scoped_children(n: &TNode) -> &[Id] {
    match is_scan(n) {
        Some(nb) => &n.children[nb..],
        None => &n.children,
    }
}

impl Plan {
    /// [`Plan::new`], or the plan made for the same sources and roots
    /// earlier in this saturation iteration (loops that share a body share
    /// its plan; see [`crate::scan_rules::memo`]). A plan made earlier in
    /// the iteration may miss nodes added since: its terms are still terms
    /// of their classes, there may only be fewer to choose from.
    pub fn shared(egraph: &mut EGraph, sources: &[Source], roots: &[(usize, Id)]) -> Arc<Plan> {
        let roots: Vec<(usize, Id)> = roots.iter().map(|(s, c)| (*s, egraph.find(*c))).collect();
        let iteration = egraph.analysis.iteration;
        let memo = egraph.analysis.rewrite_state.get_mut::<ScanMemo>();
        if let Some(p) = memo.plan(iteration, sources, &roots) {
            return p;
        }
        let plan = Arc::new(Plan::new(egraph, sources, &roots));
        let memo = egraph.analysis.rewrite_state.get_mut::<ScanMemo>();
        memo.keep_plan(iteration, sources, &roots, plan.clone());
        plan
    }

    /// Chooses terms for every class reachable from `roots` (pairs of a
    /// source index and a class of that source's body).
    pub fn new(egraph: &EGraph, sources: &[Source], roots: &[(usize, Id)]) -> Plan {
        let mut plan = Plan {
            sources: sources.to_vec(),
            choice: vec![BTreeMap::new(); sources.len()],
            costs: vec![BTreeMap::new(); sources.len()],
        };
        // The closure of each source, without crossing replaced classes.
        let mut closure: Vec<BTreeSet<Id>> = vec![BTreeSet::new(); sources.len()];
        let mut stack: Vec<(usize, Id)> =
            roots.iter().map(|(s, c)| (*s, egraph.find(*c))).collect();
        // Targets that point into another source are roots there too.
        for src in sources {
            for t in src.params.iter().flatten().chain(src.replace.values()) {
                if let Target::From(s2, c) = t {
                    stack.push((*s2, egraph.find(*c)));
                }
            }
        }
        while let Some((s, c)) = stack.pop() {
            if s >= sources.len() || !closure[s].insert(c) {
                continue;
            }
            if sources[s].replace.contains_key(&c) {
                continue;
            }
            for n in &egraph[c].nodes {
                for ch in scoped_children(n) {
                    stack.push((s, egraph.find(*ch)));
                }
            }
        }
        plan.choose(egraph, &closure);
        plan
    }

    /// Knuth's generalization of Dijkstra's algorithm to AND-OR graphs:
    /// classes are settled in order of their smallest term's size, a node
    /// becomes available once all its children are settled. Linear in the
    /// size of the closure (times a log), and the chosen terms are acyclic
    /// (a node is chosen only after all its children).
    fn choose(&mut self, egraph: &EGraph, closure: &[BTreeSet<Id>]) {
        use std::cmp::Reverse;
        use std::collections::{BinaryHeap, HashMap};
        struct Cand {
            vert: usize,
            base: usize,
            pending: usize,
            sum: usize,
            node: Option<usize>,
        }
        let verts: Vec<(usize, Id)> = closure
            .iter()
            .enumerate()
            .flat_map(|(s, cl)| cl.iter().map(move |c| (s, *c)))
            .collect();
        let index: HashMap<(usize, Id), usize> =
            verts.iter().enumerate().map(|(i, v)| (*v, i)).collect();
        let mut cands: Vec<Cand> = Vec::new();
        let mut parents: Vec<Vec<usize>> = vec![Vec::new(); verts.len()];
        let mut add = |cands: &mut Vec<Cand>, v: usize, base, node, children: Vec<usize>| {
            let id = cands.len();
            for ch in &children {
                parents[*ch].push(id);
            }
            cands.push(Cand {
                vert: v,
                base,
                pending: children.len(),
                sum: 0,
                node,
            });
        };
        let target_child = |t: &Target| -> Option<Option<usize>> {
            match t {
                Target::From(s2, c2) => index.get(&(*s2, egraph.find(*c2))).map(|i| Some(*i)),
                _ => Some(None),
            }
        };
        for (v, &(s, c)) in verts.iter().enumerate() {
            let src = &self.sources[s];
            if let Some(t) = src.replace.get(&c) {
                if let Some(ch) = target_child(t) {
                    add(&mut cands, v, 0, None, ch.into_iter().collect());
                }
                continue;
            }
            for (i, n) in egraph[c].nodes.iter().enumerate() {
                if let Head::Arg(k, ty) = &n.head {
                    if !src.admits_leaf(*k, ty) {
                        continue;
                    }
                    if let Some(Some(t)) = src.params.get(*k) {
                        if let Some(ch) = target_child(t) {
                            add(&mut cands, v, 1, Some(i), ch.into_iter().collect());
                        }
                    }
                    continue;
                }
                if let Some(nb) = is_scan(n) {
                    if n.children[..nb]
                        .iter()
                        .any(|b| !matches!(egraph[*b].data.kind, Kind::Value(_)))
                    {
                        continue;
                    }
                }
                let kids = scoped_children(n);
                if kids
                    .iter()
                    .any(|ch| matches!(egraph[*ch].data.kind, Kind::Invalid(_)))
                {
                    continue;
                }
                let children: Option<Vec<usize>> = kids
                    .iter()
                    .map(|ch| index.get(&(s, egraph.find(*ch))).copied())
                    .collect();
                if let Some(children) = children {
                    add(&mut cands, v, 1, Some(i), children);
                }
            }
        }
        let mut heap: BinaryHeap<Reverse<(usize, usize, usize)>> = cands
            .iter()
            .enumerate()
            .filter(|(_, c)| c.pending == 0)
            .map(|(i, c)| Reverse((c.base, c.vert, i)))
            .collect();
        let mut settled = vec![false; verts.len()];
        while let Some(Reverse((cost, v, ci))) = heap.pop() {
            if settled[v] {
                continue;
            }
            settled[v] = true;
            let (s, c) = verts[v];
            self.costs[s].insert(c, cost);
            if let Some(i) = cands[ci].node {
                let mut node = egraph[c].nodes[i].clone();
                for ch in node.children.iter_mut() {
                    *ch = egraph.find(*ch);
                }
                self.choice[s].insert(c, (cost, node));
            }
            for &p in &parents[v] {
                let cand = &mut cands[p];
                cand.pending -= 1;
                cand.sum = cand.sum.saturating_add(cost);
                if cand.pending == 0 && !settled[cand.vert] {
                    heap.push(Reverse((cand.base.saturating_add(cand.sum), cand.vert, p)));
                }
            }
        }
    }

    /// The id the plan knows class `c` of source `s` by: the plan keeps
    /// the ids that were canonical when it was made (a shared plan may be
    /// used after unions), else `c`'s canonical id.
    fn local(&self, egraph: &EGraph, s: usize, c: Id) -> Id {
        let known = |c: &Id| {
            self.costs.get(s).is_some_and(|m| m.contains_key(c))
                || self
                    .sources
                    .get(s)
                    .is_some_and(|x| x.replace.contains_key(c))
        };
        if known(&c) {
            c
        } else {
            egraph.find(c)
        }
    }

    fn cost(&self, egraph: &EGraph, s: usize, c: Id) -> usize {
        let c = self.local(egraph, s, c);
        self.costs[s].get(&c).copied().unwrap_or(INF)
    }

    /// The node chosen for class `c` of source `s` (children canonical).
    pub fn chosen(&self, s: usize, c: Id) -> Option<&TNode> {
        self.choice.get(s)?.get(&c).map(|(_, n)| n)
    }

    /// True when class `c` of source `s` has a term whose leaves are all
    /// allowed.
    pub fn has_term(&self, egraph: &EGraph, s: usize, c: Id) -> bool {
        self.cost(egraph, s, c) < INF
    }

    /// The provisional parameters the chosen terms of `roots` read.
    pub fn params_read(&self, egraph: &EGraph, roots: &[(usize, Id)]) -> BTreeSet<usize> {
        let mut seen: BTreeSet<(usize, Id)> = BTreeSet::new();
        let mut read = BTreeSet::new();
        let mut stack: Vec<(usize, Id)> = roots.to_vec();
        let mut targets: Vec<Target> = Vec::new();
        while let Some((s, c)) = stack.pop() {
            let c = self.local(egraph, s, c);
            if !seen.insert((s, c)) {
                continue;
            }
            if let Some(t) = self.sources[s].replace.get(&c) {
                targets.push(t.clone());
            } else if let Some((_, n)) = self.choice[s].get(&c) {
                if let Head::Arg(k, _) = &n.head {
                    if let Some(Some(t)) = self.sources[s].params.get(*k) {
                        targets.push(t.clone());
                    }
                }
                for ch in scoped_children(n) {
                    stack.push((s, *ch));
                }
            }
            for t in targets.drain(..) {
                match t {
                    Target::Param(v) => {
                        read.insert(v);
                    }
                    Target::Closed(_) => {}
                    Target::From(s2, c2) => stack.push((s2, c2)),
                }
            }
        }
        read
    }

    /// Adds the chosen term of class `c` of source `s` to the e-graph with
    /// every parameter renamed by `param` (provisional index → new position
    /// and type); `None` if some leaf has no term.
    pub fn rebuild(
        &self,
        egraph: &mut EGraph,
        s: usize,
        c: Id,
        param: &dyn Fn(usize) -> Option<(usize, Type)>,
        memo: &mut BTreeMap<(usize, Id), Id>,
    ) -> Option<Id> {
        // Iterative post-order, so deep bodies cannot overflow the stack.
        // Ids are those of the plan: nothing is re-canonicalized while
        // nodes are added (an analysis `modify` may union a new class).
        let mut stack: Vec<(usize, Id, bool)> = vec![(s, c, false)];
        while let Some((s, c, expanded)) = stack.pop() {
            if memo.contains_key(&(s, c)) {
                continue;
            }
            let deps = self.dependencies(s, c)?;
            if !expanded {
                stack.push((s, c, true));
                for d in deps {
                    if !memo.contains_key(&d) {
                        stack.push((d.0, d.1, false));
                    }
                }
                continue;
            }
            let id = self.build_one(egraph, s, c, param, memo)?;
            memo.insert((s, c), id);
        }
        memo.get(&(s, c)).copied()
    }

    /// The (source, class) pairs that must be built before `c`.
    fn dependencies(&self, s: usize, c: Id) -> Option<Vec<(usize, Id)>> {
        if let Some(t) = self.sources[s].replace.get(&c) {
            return Some(match t {
                Target::From(s2, c2) => vec![(*s2, *c2)],
                _ => vec![],
            });
        }
        let (cost, n) = self.choice[s].get(&c)?;
        if *cost == INF {
            return None;
        }
        if let Head::Arg(k, _) = &n.head {
            return Some(match self.sources[s].params.get(*k) {
                Some(Some(Target::From(s2, c2))) => vec![(*s2, *c2)],
                _ => vec![],
            });
        }
        Some(scoped_children(n).iter().map(|ch| (s, *ch)).collect())
    }

    fn target_id(
        &self,
        egraph: &mut EGraph,
        t: &Target,
        param: &dyn Fn(usize) -> Option<(usize, Type)>,
        memo: &BTreeMap<(usize, Id), Id>,
    ) -> Option<Id> {
        match t {
            Target::Param(v) => {
                let (k, ty) = param(*v)?;
                Some(egraph.add(TNode::leaf(Head::Arg(k, ty))))
            }
            Target::Closed(id) => Some(*id),
            Target::From(s2, c2) => memo.get(&(*s2, *c2)).copied(),
        }
    }

    fn build_one(
        &self,
        egraph: &mut EGraph,
        s: usize,
        c: Id,
        param: &dyn Fn(usize) -> Option<(usize, Type)>,
        memo: &BTreeMap<(usize, Id), Id>,
    ) -> Option<Id> {
        if let Some(t) = self.sources[s].replace.get(&c) {
            return self.target_id(egraph, t, param, memo);
        }
        let n = self.choice[s].get(&c)?.1.clone();
        if let Head::Arg(k, _) = &n.head {
            let t = self.sources[s].params.get(*k)?.as_ref()?;
            return self.target_id(egraph, t, param, memo);
        }
        let skip = is_scan(&n).unwrap_or(0);
        let mut children = n.children.clone();
        for ch in children.iter_mut().skip(skip) {
            *ch = *memo.get(&(s, *ch))?;
        }
        Some(egraph.add(TNode {
            head: n.head.clone(),
            children,
        }))
    }
}
