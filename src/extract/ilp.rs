//! Exact DAG-aware extraction by integer linear programming: the yardstick
//! the greedy extractor ([`super::dag`]) is measured against, and the
//! `optimize --extractor ilp` option.
//!
//! The model is the standard extraction ILP (one e-node per e-class), with
//! the loop semantics of [`dag_cost`]:
//!
//! - A *context* is a scope of [`dag_cost`]: the root context is the
//!   program outside any loop; the body of scan class `s` reached in
//!   context `P` is the context `P·s`, whose classes are paid
//!   `mult(P·s) = mult(P) × steps(s)` times. A class reachable in several
//!   contexts is paid once in each, as [`dag_cost`] pays it once per scope.
//! - A binary `u[P, n]` per context `P` and node `n` reachable in it: `n`
//!   is its class's node in `P` and is paid there, at `mult(P) ×
//!   node_cost(n)`; the objective is the sum of these. A class is active in
//!   `P` when `Σ_n u[P, n] = 1`; the root class is active in the root
//!   context; a chosen node activates each child class — in `P` for an
//!   ordinary child or a scan's outer argument, in `P·s` for a scan's body
//!   output. The constraint is summed per class: `active(child) ≥ Σ u[P,
//!   n]` over the nodes `n` of one class that have that child (at most one
//!   is chosen), which gives a much tighter LP bound than one constraint
//!   per node (on `rnn`, 13 times fewer branch-and-bound nodes).
//! - One node per class across contexts: a node used in several contexts
//!   gets a binary `chosen[n] ≥ u[P, n]` (else `chosen[n]` is its one
//!   `u`), and `Σ_{n ∈ class} chosen[n] ≤ 1`. So the result is one term,
//!   a DAG, as the other extractors give.
//! - Acyclicity: a continuous level `L[c] ∈ [0, M-1]` per class of each
//!   strongly connected component (of size `M`) of the class graph, and
//!   `L[parent] ≥ L[child] + 1 - M (1 - chosen[n])` for every edge inside
//!   the component (edges between components cannot close a cycle). A scan
//!   node of class `s` is left out of contexts already inside `s`'s body.
//!
//! Nodes of infinite cost, nodes that are their own class's child, and
//! nodes with a child class that has no finite term are left out first;
//! so are dominated nodes (no cheaper than another node of the class that
//! needs a subset of its children, e.g. `(add b a)` beside `(add a b)`),
//! which never make a better term.
//! The solution's objective equals [`dag_cost`] of the extracted term
//! (within the solver's relative tolerance of 1e-9); the tests check it.
//! The optimum is over one-node-per-class terms, the space the greedy and
//! tree extractors search too.
//!
//! The solver is `good_lp` with its `microlp` backend, pure Rust (`egg`'s
//! own `lp` feature links the system's CBC library). It is warm-started
//! with the greedy DAG term, so even a time-limited search never does worse
//! than greedy. Limits ([`IlpLimits`]): a problem with more than
//! `max_classes` class–context pairs is refused before it is built; the
//! solver stops at `time_limit`. [`extract_ilp`] returns a term only when
//! optimality was proven; [`solve_ilp`] also returns time-limited
//! incumbents and the problem's figures.
//!
//! What to expect: the LP relaxation of DAG extraction is weak (a class
//! reached by several fractional alternatives is paid only at their
//! largest share), so the solver branches. With `microlp`, e-graphs of a
//! few hundred e-nodes are solved in well under a second (`rnn` saturated
//! with the shipped rules: 110 classes, about 300 variables, 0.3–0.5 s);
//! at a few thousand classes (`tests/cases/ops/composite_lets.sexp`: 2,719
//! classes, 10,896 variables) optimality is not proven within 10 s.
//!
//! Must not: change the e-graph, or be the default extractor (it is
//! exponential in the worst case).

use super::cost::{mul_inf, CostModel};
use super::dag::{dag_cost, extract_dag};
use super::table::build_term;
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, TNode};
use egg::{Id, Language, RecExpr};
use good_lp::solvers::{WithInitialSolution, WithTimeLimit};
use good_lp::{
    constraint, microlp, variable, Constraint, Expression, ProblemVariables, Solution,
    SolutionStatus, SolverModel, Variable,
};
use std::cell::Cell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

/// Limits of the exact extractor.
#[derive(Clone, Debug, PartialEq)]
pub struct IlpLimits {
    /// Refuse a problem with more class–context pairs than this (a class
    /// counts once per loop context it is reachable in; without loops,
    /// the number of reachable classes). 3000 by default.
    pub max_classes: usize,
    /// Stop the solver after this long (10 s by default); the best term
    /// found so far is then not proven optimal.
    pub time_limit: Duration,
}

impl Default for IlpLimits {
    fn default() -> Self {
        IlpLimits {
            max_classes: 3000,
            time_limit: Duration::from_secs(10),
        }
    }
}

/// Why the exact extractor gave no proven-optimal term.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum IlpError {
    /// The root class holds no term of finite cost.
    #[error("the root class has no term of finite cost")]
    NoTerm,
    /// The problem is larger than [`IlpLimits::max_classes`].
    #[error(
        "the ILP would have more than {limit} classes (a class counts once per loop body it is \
         reachable in)"
    )]
    TooLarge {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The solver reached [`IlpLimits::time_limit`] before proving
    /// optimality.
    #[error("the ILP solver did not prove optimality within {seconds} s")]
    TimeLimit {
        /// The time limit, in seconds.
        seconds: f64,
    },
    /// The solver failed, or its solution is not a term (a bug).
    #[error("the ILP solver failed: {message}")]
    Solver {
        /// What went wrong.
        message: String,
    },
}

/// The result of [`solve_ilp`], with the problem's figures.
#[derive(Clone, Debug)]
pub struct IlpExtraction {
    /// [`dag_cost`] of [`Self::expr`].
    pub cost: f64,
    /// The ILP objective of the solution, summed from its coefficients;
    /// equals [`Self::cost`] within 1e-9 relative.
    pub objective: f64,
    /// The extracted term (acyclic; type attributes unshared).
    pub expr: RecExpr<TNode>,
    /// Whether the solver proved the term optimal (else the time limit
    /// stopped it).
    pub optimal: bool,
    /// [`dag_cost`] of the greedy DAG term the solver was started from.
    pub greedy_cost: f64,
    /// Class–context pairs in the problem.
    pub classes: usize,
    /// Loop contexts (1 without scans).
    pub contexts: usize,
    /// Variables of the ILP.
    pub variables: usize,
    /// Constraints of the ILP.
    pub constraints: usize,
    /// Time spent building and solving the ILP (the greedy start excluded).
    pub time: Duration,
}

/// The cheapest term of class `root` by [`dag_cost`], proven optimal by
/// an ILP, and its cost; see the module docs for the model and the limits.
/// `egraph` must be rebuilt.
pub fn extract_ilp(
    egraph: &EGraph,
    root: Id,
    model: &CostModel,
    limits: &IlpLimits,
) -> Result<(f64, RecExpr<TNode>), IlpError> {
    let s = solve_ilp(egraph, root, model, limits)?;
    if s.optimal {
        Ok((s.cost, s.expr))
    } else {
        Err(IlpError::TimeLimit {
            seconds: limits.time_limit.as_secs_f64(),
        })
    }
}

/// A node that may be extracted: finite cost, children all indexed.
struct Cand {
    /// Position of the node in its e-class.
    k: usize,
    own: f64,
    /// For a scan: steps and the number of body outputs.
    scan: Option<(f64, usize)>,
    /// Dense indices of the children's classes.
    children: Vec<usize>,
}

impl Cand {
    fn n_body(&self) -> usize {
        self.scan.map(|(_, nb)| nb).unwrap_or(0)
    }
}

/// The e-graph's classes, densely indexed, with their extractable nodes.
struct Graph {
    classes: Vec<Id>,
    index: HashMap<Id, usize>,
    cands: Vec<Vec<Cand>>,
    /// Per class: dropped (dominated) node position → its dominator's.
    alias: Vec<HashMap<usize, usize>>,
}

impl Graph {
    fn new(egraph: &EGraph, model: &CostModel) -> Self {
        let mut classes: Vec<Id> = egraph.classes().map(|c| c.id).collect();
        classes.sort();
        let index: HashMap<Id, usize> = classes.iter().enumerate().map(|(i, c)| (*c, i)).collect();
        let mut cands: Vec<Vec<Cand>> = classes
            .iter()
            .enumerate()
            .map(|(ci, c)| {
                egraph[*c]
                    .nodes
                    .iter()
                    .enumerate()
                    .filter_map(|(k, n)| {
                        let own = model.node_cost(egraph, n);
                        let children = n
                            .children
                            .iter()
                            .map(|ch| index.get(&egraph.find(*ch)).copied())
                            .collect::<Option<Vec<usize>>>()?;
                        if !own.is_finite() || children.contains(&ci) {
                            return None;
                        }
                        let scan = match &n.head {
                            Head::Scan(sig) => Some((
                                model.scan_steps(egraph, *c),
                                sig.n_body_outputs().min(n.children.len()),
                            )),
                            _ => None,
                        };
                        Some(Cand {
                            k,
                            own,
                            scan,
                            children,
                        })
                    })
                    .collect()
            })
            .collect();
        // Keep only nodes whose children all have a finite term: a class
        // gets one when a node's children all have one (a worklist over
        // the number of children still without).
        let n = classes.len();
        let mut ok = vec![false; n];
        let mut missing: Vec<Vec<usize>> = Vec::with_capacity(n);
        let mut parents: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        let mut queue: VecDeque<usize> = VecDeque::new();
        for (c, cs) in cands.iter().enumerate() {
            let mut m = Vec::with_capacity(cs.len());
            for (j, cand) in cs.iter().enumerate() {
                let mut distinct = cand.children.clone();
                distinct.sort_unstable();
                distinct.dedup();
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
        Graph {
            classes,
            index,
            cands,
            alias,
        }
    }

    /// The candidate of class `x` standing for its e-node at position `k`
    /// (the node itself, or the node that dominates it).
    fn cand_of(&self, x: usize, k: usize) -> Option<usize> {
        let k = self.alias[x].get(&k).copied().unwrap_or(k);
        self.cands[x].iter().position(|c| c.k == k)
    }
}

/// The children of a candidate as (body classes, other classes), each
/// sorted without repeats.
fn child_sets(c: &Cand) -> (Vec<usize>, Vec<usize>) {
    let nb = c.n_body();
    let set = |s: &[usize]| {
        let mut v = s.to_vec();
        v.sort_unstable();
        v.dedup();
        v
    };
    (set(&c.children[..nb]), set(&c.children[nb..]))
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

/// A scope of [`dag_cost`]: outside any loop, or a loop body reached
/// through a chain of scan classes.
struct Context {
    /// How many times a class active here is paid.
    mult: f64,
    /// The scan classes whose bodies enclose this context.
    path: Vec<usize>,
    /// The classes reachable here (over all candidate nodes).
    classes: Vec<usize>,
}

/// The contexts reachable from `root`, and the child context of each
/// (context, scan class); `TooLarge` past `limit` class–context pairs.
type Contexts = (Vec<Context>, HashMap<(usize, usize), usize>);

fn contexts(g: &Graph, root: usize, limit: usize) -> Result<Contexts, IlpError> {
    let mut ctxs = vec![Context {
        mult: 1.0,
        path: Vec::new(),
        classes: Vec::new(),
    }];
    let mut starts: Vec<Vec<usize>> = vec![vec![root]];
    let mut child: HashMap<(usize, usize), usize> = HashMap::new();
    let mut pairs = 0usize;
    let mut p = 0;
    while p < ctxs.len() {
        let mut seen: HashSet<usize> = HashSet::new();
        let mut queue: VecDeque<usize> = VecDeque::new();
        for s in std::mem::take(&mut starts[p]) {
            if seen.insert(s) {
                queue.push_back(s);
            }
        }
        while let Some(x) = queue.pop_front() {
            pairs += 1;
            if pairs > limit {
                return Err(IlpError::TooLarge { limit });
            }
            ctxs[p].classes.push(x);
            for cand in &g.cands[x] {
                if !allowed(&ctxs[p], x, cand) {
                    continue;
                }
                let nb = cand.n_body();
                for (j, &y) in cand.children.iter().enumerate() {
                    if j < nb {
                        let q = match child.get(&(p, x)) {
                            Some(q) => *q,
                            None => {
                                let steps = cand.scan.map(|(s, _)| s).unwrap_or(0.0);
                                let mut path = ctxs[p].path.clone();
                                path.push(x);
                                ctxs.push(Context {
                                    mult: mul_inf(ctxs[p].mult, steps),
                                    path,
                                    classes: Vec::new(),
                                });
                                starts.push(Vec::new());
                                child.insert((p, x), ctxs.len() - 1);
                                ctxs.len() - 1
                            }
                        };
                        starts[q].push(y);
                    } else if seen.insert(y) {
                        queue.push_back(y);
                    }
                }
            }
        }
        p += 1;
    }
    Ok((ctxs, child))
}

/// A scan node of class `x` cannot be used inside `x`'s own body (that
/// term would be cyclic); every other node can.
fn allowed(ctx: &Context, x: usize, cand: &Cand) -> bool {
    cand.scan.is_none() || !ctx.path.contains(&x)
}

/// The node chosen in each class of a term of `egraph`, in the term's
/// order (children first); `None` if a node is not in the e-graph, or a
/// class has two.
fn selection_of(egraph: &EGraph, expr: &RecExpr<TNode>) -> Option<Vec<(Id, TNode)>> {
    let mut ids: Vec<Id> = Vec::with_capacity(expr.as_ref().len());
    let mut sel: HashMap<Id, TNode> = HashMap::new();
    let mut order: Vec<(Id, TNode)> = Vec::new();
    for node in expr.as_ref() {
        let n = node
            .clone()
            .map_children(|c| ids.get(usize::from(c)).copied().unwrap_or(c));
        let class = egraph.lookup(n.clone())?;
        let n = n.map_children(|c| egraph.find(c));
        match sel.get(&class) {
            Some(m) if *m != n => return None,
            Some(_) => {}
            None => {
                sel.insert(class, n.clone());
                order.push((class, n));
            }
        }
        ids.push(class);
    }
    Some(order)
}

/// The variables of one class in one context: (candidate, `u`, objective
/// coefficient).
type ClassVars = Vec<(usize, Variable, f64)>;

/// Like [`extract_ilp`], but also returns a time-limited (not proven
/// optimal) incumbent, and the problem's figures.
pub fn solve_ilp(
    egraph: &EGraph,
    root: Id,
    model: &CostModel,
    limits: &IlpLimits,
) -> Result<IlpExtraction, IlpError> {
    let root = egraph.find(root);
    let g = Graph::new(egraph, model);
    let Some(&r) = g.index.get(&root) else {
        return Err(IlpError::NoTerm);
    };
    if g.cands[r].is_empty() {
        return Err(IlpError::NoTerm);
    }
    let (ctxs, child) = contexts(&g, r, limits.max_classes)?;

    // The greedy term: the warm start, and the bound the ILP must meet.
    let (greedy_cost, greedy_expr) = extract_dag(egraph, root, model);
    let t0 = Instant::now();

    let mut vars = ProblemVariables::new();
    let mut n_vars = 0usize;
    // u[P][x]: the variables of class x in context P.
    let mut u: Vec<HashMap<usize, ClassVars>> = Vec::with_capacity(ctxs.len());
    // The u variables of each (class, candidate) across contexts.
    let mut uses: HashMap<(usize, usize), Vec<Variable>> = HashMap::new();
    let mut objective = Expression::default();
    for ctx in &ctxs {
        let mut m: HashMap<usize, ClassVars> = HashMap::new();
        for &x in &ctx.classes {
            let mut v = Vec::new();
            for (j, cand) in g.cands[x].iter().enumerate() {
                if !allowed(ctx, x, cand) {
                    continue;
                }
                let coef = mul_inf(ctx.mult, cand.own);
                if !coef.is_finite() {
                    continue;
                }
                let var = vars.add(variable().binary());
                n_vars += 1;
                objective.add_mul(coef, var);
                uses.entry((x, j)).or_default().push(var);
                v.push((j, var, coef));
            }
            m.insert(x, v);
        }
        u.push(m);
    }

    let mut constraints: Vec<Constraint> = Vec::new();
    // chosen[(x, j)]: node j of class x is in the term.
    let mut keys: Vec<(usize, usize)> = uses.keys().copied().collect();
    keys.sort_unstable();
    let mut chosen: HashMap<(usize, usize), Variable> = HashMap::new();
    let mut chosen_vars: Vec<Variable> = Vec::new();
    for key in &keys {
        let us = &uses[key];
        let c = if us.len() == 1 {
            us[0]
        } else {
            let c = vars.add(variable().binary());
            n_vars += 1;
            chosen_vars.push(c);
            for uv in us {
                constraints.push(constraint::leq(*uv, c));
            }
            c
        };
        chosen.insert(*key, c);
    }
    // One node per class.
    let mut by_class: HashMap<usize, Vec<Variable>> = HashMap::new();
    for key in &keys {
        by_class.entry(key.0).or_default().push(chosen[key]);
    }
    let mut class_keys: Vec<usize> = by_class.keys().copied().collect();
    class_keys.sort_unstable();
    for x in &class_keys {
        let cs = &by_class[x];
        if cs.len() > 1 {
            let sum: Expression = cs.iter().copied().sum();
            constraints.push(constraint::leq(sum, 1.0));
        }
    }
    // The root is active.
    let active = |p: usize, x: usize| -> Expression {
        u[p].get(&x)
            .map(|v| v.iter().map(|(_, var, _)| *var).sum())
            .unwrap_or_default()
    };
    constraints.push(constraint::eq(active(0, r), 1.0));
    // A chosen node activates its children: for each class and child
    // class, the nodes that need the child sum to at most its activation
    // (at most one of them is chosen; summed, the LP bound is far tighter
    // than one constraint per node).
    for (p, ctx) in ctxs.iter().enumerate() {
        for &x in &ctx.classes {
            let mut needs: Vec<((usize, usize), Vec<Variable>)> = Vec::new();
            for &(j, var, _) in &u[p][&x] {
                let cand = &g.cands[x][j];
                let nb = cand.n_body();
                let mut targets: Vec<(usize, usize)> = Vec::new();
                for (i, &y) in cand.children.iter().enumerate() {
                    let q = if i < nb {
                        match child.get(&(p, x)) {
                            Some(q) => *q,
                            None => {
                                return Err(IlpError::Solver {
                                    message: "internal error: a loop body has no context".into(),
                                })
                            }
                        }
                    } else {
                        p
                    };
                    if !targets.contains(&(q, y)) {
                        targets.push((q, y));
                    }
                }
                for t in targets {
                    match needs.iter_mut().find(|(k, _)| *k == t) {
                        Some((_, vs)) => vs.push(var),
                        None => needs.push((t, vec![var])),
                    }
                }
            }
            for ((q, y), vs) in needs {
                let sum: Expression = vs.into_iter().sum();
                constraints.push(constraint::geq(active(q, y), sum));
            }
        }
    }
    // Acyclicity, inside each strongly connected component.
    let levels = acyclicity(&g, &keys, &chosen, &mut vars, &mut constraints);
    n_vars += levels.len();

    // Warm start from the greedy term.
    let warm = warm_start(
        egraph,
        &g,
        &greedy_expr,
        r,
        &child,
        &u,
        &chosen,
        &chosen_vars,
        &levels,
    );

    let n_constraints = constraints.len();
    let mut problem = vars
        .minimise(objective)
        .using(microlp)
        .with_time_limit(limits.time_limit.as_secs_f64());
    for c in constraints {
        problem.add_constraint(c);
    }
    if let Some(w) = warm {
        problem = problem.with_initial_solution(w);
    }
    let solution = problem.solve().map_err(|e| {
        if t0.elapsed() >= limits.time_limit {
            IlpError::TimeLimit {
                seconds: limits.time_limit.as_secs_f64(),
            }
        } else {
            IlpError::Solver {
                message: e.to_string(),
            }
        }
    })?;
    let optimal = matches!(solution.status(), SolutionStatus::Optimal);

    // Read the term.
    let mut sel: HashMap<Id, TNode> = HashMap::new();
    for key in &keys {
        if solution.value(chosen[key]) > 0.5 {
            let (x, j) = *key;
            let class = g.classes[x];
            if let Some(n) = egraph[class].nodes.get(g.cands[x][j].k) {
                sel.insert(class, n.clone());
            }
        }
    }
    let mut value = 0.0;
    for (p, ctx) in ctxs.iter().enumerate() {
        for x in &ctx.classes {
            for (_, var, coef) in u[p].get(x).into_iter().flatten() {
                if solution.value(*var) > 0.5 {
                    value += coef;
                }
            }
        }
    }
    let missing = Cell::new(false);
    let expr = build_term(egraph, root, &|id| match sel.get(&egraph.find(id)) {
        Some(n) => Some(n.clone()),
        None => {
            missing.set(true);
            egraph[id].nodes.first().cloned()
        }
    });
    let expr = match expr {
        Ok(e) if !missing.get() => e,
        _ => {
            return Err(IlpError::Solver {
                message: "internal error: the ILP solution is not an acyclic term".into(),
            })
        }
    };
    let time = t0.elapsed();
    let expr = super::unshare_types(&expr);
    let cost = dag_cost(&expr, model);
    // Stopped early with something worse than the start (the solver may
    // reject a warm start): the start is the better answer.
    let (cost, value, expr) = if !optimal && greedy_cost < cost {
        (greedy_cost, greedy_cost, greedy_expr)
    } else {
        (cost, value, expr)
    };
    Ok(IlpExtraction {
        cost,
        objective: value,
        expr,
        optimal,
        greedy_cost,
        classes: ctxs.iter().map(|c| c.classes.len()).sum(),
        contexts: ctxs.len(),
        variables: n_vars,
        constraints: n_constraints,
        time,
    })
}

/// Adds the level variables and constraints that forbid cycles among
/// chosen nodes; returns the level variables, for the warm start.
fn acyclicity(
    g: &Graph,
    keys: &[(usize, usize)],
    chosen: &HashMap<(usize, usize), Variable>,
    vars: &mut ProblemVariables,
    constraints: &mut Vec<Constraint>,
) -> Vec<Level> {
    use petgraph::algo::tarjan_scc;
    use petgraph::graph::{DiGraph, NodeIndex};
    // The class graph over the nodes that have variables.
    let mut classes: Vec<usize> = keys.iter().map(|k| k.0).collect();
    classes.dedup();
    let pos: HashMap<usize, usize> = classes.iter().enumerate().map(|(i, c)| (*c, i)).collect();
    let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(classes.len(), keys.len());
    for _ in &classes {
        graph.add_node(());
    }
    for &(x, j) in keys {
        for y in &g.cands[x][j].children {
            if let (Some(a), Some(b)) = (pos.get(&x), pos.get(y)) {
                graph.update_edge(NodeIndex::new(*a), NodeIndex::new(*b), ());
            }
        }
    }
    let mut component: HashMap<usize, usize> = HashMap::new();
    let mut sizes: Vec<usize> = Vec::new();
    for scc in tarjan_scc(&graph) {
        if scc.len() < 2 {
            continue;
        }
        for n in &scc {
            component.insert(classes[n.index()], sizes.len());
        }
        sizes.push(scc.len());
    }
    let mut levels: Vec<Level> = Vec::new();
    let mut level_of: HashMap<usize, Variable> = HashMap::new();
    let mut sorted: Vec<usize> = component.keys().copied().collect();
    sorted.sort_unstable();
    for x in sorted {
        let comp = component[&x];
        let m = sizes[comp] as f64;
        let var = vars.add(variable().min(0.0).max(m - 1.0));
        level_of.insert(x, var);
        levels.push(Level {
            class: x,
            component: comp,
            var,
        });
    }
    for &(x, j) in keys {
        let Some(comp) = component.get(&x) else {
            continue;
        };
        let m = sizes[*comp] as f64;
        let mut seen: Vec<usize> = Vec::new();
        for &y in &g.cands[x][j].children {
            if y == x || seen.contains(&y) || component.get(&y) != Some(comp) {
                continue;
            }
            seen.push(y);
            // L[x] - L[y] - M chosen >= 1 - M
            let lhs = Expression::from(level_of[&x]) - level_of[&y] - m * chosen[&(x, j)];
            constraints.push(constraint::geq(lhs, 1.0 - m));
        }
    }
    levels
}

/// A level variable of the acyclicity constraints.
struct Level {
    class: usize,
    component: usize,
    var: Variable,
}

/// Values of every variable for the greedy term `expr`, or `None` if it
/// does not fit the problem (then the solver starts from nothing).
#[allow(clippy::too_many_arguments)]
fn warm_start(
    egraph: &EGraph,
    g: &Graph,
    expr: &RecExpr<TNode>,
    root: usize,
    child: &HashMap<(usize, usize), usize>,
    u: &[HashMap<usize, ClassVars>],
    chosen: &HashMap<(usize, usize), Variable>,
    chosen_vars: &[Variable],
    levels: &[Level],
) -> Option<Vec<(Variable, f64)>> {
    // The candidate chosen in each class of the term, children first.
    let mut order: Vec<(usize, usize)> = Vec::new();
    for (class, node) in selection_of(egraph, expr)? {
        let x = *g.index.get(&class)?;
        let k = egraph[class].nodes.iter().position(|n| *n == node)?;
        order.push((x, g.cand_of(x, k)?));
    }
    let choice: HashMap<usize, usize> = order.iter().copied().collect();
    // Activate the chosen node of each class reached, context by context.
    let mut on: HashSet<Variable> = HashSet::new();
    let mut seen: HashSet<(usize, usize)> = HashSet::new();
    let mut stack = vec![(0usize, root)];
    while let Some((p, x)) = stack.pop() {
        if !seen.insert((p, x)) {
            continue;
        }
        let j = *choice.get(&x)?;
        let (_, var, _) = u.get(p)?.get(&x)?.iter().find(|(k, _, _)| *k == j)?;
        on.insert(*var);
        on.insert(*chosen.get(&(x, j))?);
        let cand = &g.cands[x][j];
        let nb = cand.n_body();
        for (i, &y) in cand.children.iter().enumerate() {
            if i < nb {
                stack.push((*child.get(&(p, x))?, y));
            } else {
                stack.push((p, y));
            }
        }
    }
    // Levels: a class's height above the term's leaves within its
    // component (the term's order puts children first).
    let comp: HashMap<usize, usize> = levels.iter().map(|l| (l.class, l.component)).collect();
    let mut height: HashMap<usize, f64> = HashMap::new();
    for &(x, j) in &order {
        let Some(cx) = comp.get(&x) else { continue };
        let h = g.cands[x][j]
            .children
            .iter()
            .filter(|y| comp.get(y) == Some(cx))
            .map(|y| height.get(y).copied().unwrap_or(0.0) + 1.0)
            .fold(0.0, f64::max);
        height.insert(x, h);
    }
    let mut values: Vec<(Variable, f64)> = Vec::new();
    let flag = |var: &Variable| if on.contains(var) { 1.0 } else { 0.0 };
    for m in u {
        for v in m.values() {
            for (_, var, _) in v {
                values.push((*var, flag(var)));
            }
        }
    }
    for var in chosen_vars {
        values.push((*var, flag(var)));
    }
    for l in levels {
        values.push((l.var, height.get(&l.class).copied().unwrap_or(0.0)));
    }
    Some(values)
}
