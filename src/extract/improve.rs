//! Local improvement of a DAG selection (one chosen node per class).
//!
//! Owns: [`improve`], the sweep that tries switching one selected class to
//! another of its nodes and keeps the switches that make the whole
//! selection cheaper; the DAG cost of a selection ([`selection_cost`]);
//! and `Tally`, that cost kept up to date under single switches.
//! Must not: make the first selection (see [`super::dag`]).
//!
//! A selection's cost is paid per *scope*: the root's, and the body of
//! each selected scan. A class reachable in a scope (without entering scan
//! bodies) is paid once there; a scan adds `steps ×` its body scope's sum.
//! Recomputing that sum for every candidate switch costs a walk of the
//! whole selection, which made a sweep quadratic (chain-K: 130 candidates
//! on a 533-class selection at K = 64). `Tally` keeps, per scope, a
//! reference count for each class (how many selected edges of the scope
//! reach it) and the scope's sum; a switch adds the new node's edges and
//! removes the old one's, and only classes whose count moves between 0 and
//! 1 enter or leave the sum — work proportional to what the switch
//! changes. A change to a body's sum is carried, times its scan's steps,
//! into the scopes that hold that scan.

use super::cost::loop_cost;
use super::table::NodeTable;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// The classes reachable from `root` under `choice` (bodies included), in
/// post-order (a class after everything it reaches); `None` if `choice`
/// has a cycle.
pub(crate) fn reachable(t: &NodeTable, root: usize, choice: &[usize]) -> Option<Vec<usize>> {
    // 0 = unseen, 1 = on the stack, 2 = done
    let mut state = vec![0u8; t.n_classes()];
    let mut order = Vec::new();
    let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
    state[root] = 1;
    while let Some((c, next)) = stack.last_mut() {
        let (c, k) = (*c, *next);
        let children = t.info(c, choice[c]).children;
        if let Some(&ch) = children.get(k) {
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            match state[ch] {
                0 => {
                    state[ch] = 1;
                    stack.push((ch, 0));
                }
                1 => return None,
                _ => {}
            }
        } else {
            state[c] = 2;
            order.push(c);
            stack.pop();
        }
    }
    Some(order)
}

/// The DAG cost of the selection `choice` from `root`: each class paid
/// once per scope, a scan adding `steps ×` its body's scope.
pub(crate) fn selection_cost(t: &NodeTable, root: usize, choice: &[usize]) -> f64 {
    let mut memo: HashMap<usize, f64> = HashMap::new();
    scope(t, &[root], choice, &mut memo)
}

fn scope(t: &NodeTable, roots: &[usize], choice: &[usize], memo: &mut HashMap<usize, f64>) -> f64 {
    let mut seen = vec![false; t.n_classes()];
    let mut stack: Vec<usize> = roots.to_vec();
    let mut total = 0.0;
    while let Some(c) = stack.pop() {
        if std::mem::replace(&mut seen[c], true) {
            continue;
        }
        let info = t.info(c, choice[c]);
        let nb = info.scan.map(|(_, nb)| nb).unwrap_or(0);
        stack.extend(&info.children[nb..]);
        let mut cost = info.own;
        if let Some((steps, nb)) = info.scan {
            let body = match memo.get(&c) {
                Some(b) => *b,
                None => {
                    let b = scope(t, &info.children[..nb], choice, memo);
                    memo.insert(c, b);
                    b
                }
            };
            cost = loop_cost(cost, steps, body);
        }
        total += cost;
    }
    total
}

/// One scope of a selection.
struct Scope {
    /// `None` for the root's scope; `(scan class, node)` for a body. A
    /// body whose scan has since switched to another node is kept (and
    /// kept up to date) for when it switches back, but no longer counts.
    owner: Option<(usize, usize)>,
    /// Per class reachable in the scope: how many selected edges of the
    /// scope (and roots) reach it.
    count: HashMap<usize, u32>,
    /// The scope's cost: the weights of its classes.
    sum: f64,
}

/// The cost of a selection, kept up to date under single switches.
struct Tally<'t> {
    t: &'t NodeTable,
    scopes: Vec<Scope>,
    /// The body scope of `(scan class, node)`.
    body: HashMap<(usize, usize), usize>,
    /// Per class, the scopes it is reachable in.
    member: Vec<Vec<usize>>,
    /// Changes made to the root scope's sum since [`Tally::take_change`]:
    /// their sum and the sum of their magnitudes.
    change: (f64, f64),
}

impl<'t> Tally<'t> {
    fn new(t: &'t NodeTable, root: usize, choice: &[usize]) -> Tally<'t> {
        let mut tally = Tally {
            t,
            scopes: vec![Scope {
                owner: None,
                count: HashMap::new(),
                sum: 0.0,
            }],
            body: HashMap::new(),
            member: vec![Vec::new(); t.n_classes()],
            change: (0.0, 0.0),
        };
        tally.inc(0, root, choice);
        tally
    }

    /// The edges of class `c`'s node `k` paid in the scope that holds it
    /// (for a scan, its outer arguments; its body outputs open a scope).
    fn outer(&self, c: usize, k: usize) -> &'t [usize] {
        let info = self.t.info(c, k);
        let nb = info.scan.map(|(_, nb)| nb).unwrap_or(0);
        &info.children[nb..]
    }

    /// What class `c` adds to a scope that holds it, with its chosen node.
    fn weight(&mut self, c: usize, choice: &[usize]) -> f64 {
        let info = self.t.info(c, choice[c]);
        match info.scan {
            Some((steps, _)) => {
                let b = self.body_scope(c, choice[c], choice);
                loop_cost(info.own, steps, self.scopes[b].sum)
            }
            None => info.own,
        }
    }

    /// The body scope of scan class `s` with node `k`, built on first use.
    fn body_scope(&mut self, s: usize, k: usize, choice: &[usize]) -> usize {
        if let Some(&b) = self.body.get(&(s, k)) {
            return b;
        }
        let b = self.scopes.len();
        // Built without an owner, so that the sums it collects are not
        // also carried into the scopes that hold `s` (the caller adds the
        // whole weight of `s` itself).
        self.scopes.push(Scope {
            owner: None,
            count: HashMap::new(),
            sum: 0.0,
        });
        self.body.insert((s, k), b);
        let info = self.t.info(s, k);
        let nb = info.scan.map(|(_, nb)| nb).unwrap_or(0);
        for &r in &info.children[..nb] {
            self.inc(b, r, choice);
        }
        self.scopes[b].owner = Some((s, k));
        b
    }

    /// Adds `delta` to scope `w`'s sum and carries it, times the steps,
    /// into the scopes that hold its scan (when that scan still has this
    /// body's node).
    fn add_to(&mut self, w: usize, delta: f64, choice: &[usize]) {
        self.scopes[w].sum += delta;
        if w == 0 {
            self.change.0 += delta;
            self.change.1 += delta.abs();
        }
        if let Some((s, k)) = self.scopes[w].owner {
            if choice[s] == k {
                let steps = self.t.info(s, k).scan.map(|(st, _)| st).unwrap_or(1.0);
                // The loop's cost moves by what its body's does, `steps`
                // times.
                let d = loop_cost(0.0, steps, delta);
                for outer in self.member[s].clone() {
                    self.add_to(outer, d, choice);
                }
            }
        }
    }

    /// One more edge to class `c` in scope `w`.
    fn inc(&mut self, w: usize, c: usize, choice: &[usize]) {
        let n = self.scopes[w].count.entry(c).or_insert(0);
        *n += 1;
        if *n > 1 {
            return;
        }
        // `c` enters the scope: its weight (building its body first, not
        // yet a member, so the body is counted once), then its edges.
        let wc = self.weight(c, choice);
        self.member[c].push(w);
        self.add_to(w, wc, choice);
        for &ch in self.outer(c, choice[c]) {
            self.inc(w, ch, choice);
        }
    }

    /// One edge fewer to class `c` in scope `w`.
    fn dec(&mut self, w: usize, c: usize, choice: &[usize]) {
        let Some(n) = self.scopes[w].count.get_mut(&c) else {
            return;
        };
        *n -= 1;
        if *n > 0 {
            return;
        }
        self.scopes[w].count.remove(&c);
        self.member[c].retain(|s| *s != w);
        let wc = self.weight(c, choice);
        self.add_to(w, -wc, choice);
        for &ch in self.outer(c, choice[c]) {
            self.dec(w, ch, choice);
        }
    }

    /// Switches class `x` (selected) to its node `k`. The new node must
    /// not close a cycle.
    fn switch(&mut self, x: usize, k: usize, choice: &mut [usize]) {
        let old = choice[x];
        if old == k {
            return;
        }
        let scopes = self.member[x].clone();
        let w_old = self.weight(x, choice);
        choice[x] = k;
        let w_new = self.weight(x, choice);
        for w in scopes {
            self.add_to(w, w_new - w_old, choice);
            for &ch in self.outer(x, k) {
                self.inc(w, ch, choice);
            }
            for &ch in self.outer(x, old) {
                self.dec(w, ch, choice);
            }
        }
    }

    /// The change of the selection's cost since the last call, and the
    /// sum of the magnitudes that made it (its rounding scale).
    fn take_change(&mut self) -> (f64, f64) {
        std::mem::take(&mut self.change)
    }
}

/// Whether choosing, for class `x`, a node with these children would close
/// a cycle: some child reaches `x`. Only classes after `x` in the
/// selection's post-order (`pos`) can reach it.
fn closes_cycle(
    t: &NodeTable,
    choice: &[usize],
    pos: &[usize],
    x: usize,
    children: &[usize],
) -> bool {
    let px = pos[x];
    let mut stack: Vec<usize> = children.iter().copied().filter(|c| pos[*c] >= px).collect();
    let mut seen: HashSet<usize> = HashSet::new();
    while let Some(c) = stack.pop() {
        if c == x {
            return true;
        }
        if !seen.insert(c) {
            continue;
        }
        for &ch in t.info(c, choice[c]).children {
            if pos[ch] != usize::MAX && pos[ch] >= px {
                stack.push(ch);
            }
        }
    }
    false
}

/// Post-order positions of the selected classes (`usize::MAX` elsewhere).
fn positions(n: usize, order: &[usize]) -> Vec<usize> {
    let mut pos = vec![usize::MAX; n];
    for (i, c) in order.iter().enumerate() {
        pos[*c] = i;
    }
    pos
}

/// Local improvement of an acyclic selection: greedy extraction picks
/// each class's node alone, so it misses sharing between siblings (a
/// node whose children another branch already pays for). For each
/// selected class, in a fixed order, try every other node whose
/// children are all already selected and that closes no cycle; keep a
/// switch when the whole selection gets cheaper. Sweeps again while
/// something improves, within `budget` tries and `deadline`; `false` when
/// the deadline cut it short.
pub(crate) fn improve(
    t: &NodeTable,
    root: usize,
    choice: &mut [usize],
    mut budget: usize,
    deadline: Option<Instant>,
) -> bool {
    let Some(order) = reachable(t, root, choice) else {
        return true;
    };
    let mut cur = selection_cost(t, root, choice);
    if !cur.is_finite() {
        return true;
    }
    let mut pos = positions(t.n_classes(), &order);
    let mut sorted = order;
    let mut tally = Tally::new(t, root, choice);
    let mut improved = true;
    while improved && budget > 0 {
        improved = false;
        sorted.sort_unstable();
        for &c in &sorted {
            for k in 0..t.n_nodes(c) {
                if pos[c] == usize::MAX || k == choice[c] || budget == 0 {
                    continue;
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return false;
                }
                let info = t.info(c, k);
                if !info.own.is_finite()
                    || !info.children.iter().all(|ch| pos[*ch] != usize::MAX)
                    || closes_cycle(t, choice, &pos, c, info.children)
                {
                    continue;
                }
                budget -= 1;
                let old = choice[c];
                tally.take_change();
                tally.switch(c, k, choice);
                let (delta, scale) = tally.take_change();
                // Beyond rounding, cheaper: confirm on the whole selection.
                if delta < -1e-13 * scale {
                    let exact = selection_cost(t, root, choice);
                    if exact < cur {
                        if let Some(order) = reachable(t, root, choice) {
                            cur = exact;
                            improved = true;
                            pos = positions(t.n_classes(), &order);
                            tally = Tally::new(t, root, choice);
                            continue;
                        }
                    }
                }
                tally.switch(c, old, choice);
            }
        }
        if improved {
            if let Some(order) = reachable(t, root, choice) {
                sorted = order;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egraph::runner::{saturate, Limits};
    use crate::extract::CostModel;
    use crate::lang::parse_program;

    /// Every switch the tally makes, and its reversal, agree with the cost
    /// recomputed from scratch, on a saturated e-graph with scans (one
    /// nested), shared values and reassociated products.
    #[test]
    fn tally_follows_every_switch() {
        let p = parse_program(
            "(program p (input X (f64 T 4)) (input w (f64 4)) (input A (f64 4 4))
               (let e (exp X))
               (let S (scan (sequences X e) (non_sequences w A)
                        (fn (x y v a)
                          (add (mul (dot (dot (transpose a) a) x) v)
                               (sum (scan (sequences (stack y y)) (fn (z) (mul z 2.0))) 0)))))
               (output (add S (mul (mul e 2.0) 3.0)) (sin e)))",
        )
        .expect("parse");
        let rewrites = crate::rules::defaults::default_rewrites().expect("rules");
        let sat = saturate(&p, &rewrites, &Limits::default(), false).expect("saturate");
        let model = CostModel::default();
        let t = NodeTable::new(&sat.egraph, &model);
        let r = t.dense_of(sat.egraph.find(sat.root)).expect("root");
        let tree = super::super::tree::TreeChoice::new(&t);
        let mut choice: Vec<usize> = tree.node.iter().map(|k| k.unwrap_or(0)).collect();
        let order = reachable(&t, r, &choice).expect("acyclic");
        let pos = positions(t.n_classes(), &order);
        let mut tally = Tally::new(&t, r, &choice);
        let base = selection_cost(&t, r, &choice);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(close(tally.scopes[0].sum, base));
        let mut tried = 0;
        for &c in &order {
            for k in 0..t.n_nodes(c) {
                let info = t.info(c, k);
                if k == choice[c]
                    || !info.own.is_finite()
                    || !info.children.iter().all(|ch| pos[*ch] != usize::MAX)
                    || closes_cycle(&t, &choice, &pos, c, info.children)
                {
                    continue;
                }
                let old = choice[c];
                tally.switch(c, k, &mut choice);
                let exact = selection_cost(&t, r, &choice);
                assert!(
                    close(tally.scopes[0].sum, exact),
                    "{} vs {exact}",
                    tally.scopes[0].sum
                );
                tally.switch(c, old, &mut choice);
                assert!(
                    close(tally.scopes[0].sum, base),
                    "{} vs {base}",
                    tally.scopes[0].sum
                );
                tried += 1;
            }
        }
        assert!(tried >= 5, "{tried} switches tried");
    }
}
