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
//! The nodes and their costs come from the shared node table
//! (`extract/table.rs`), as for the other extractors. The files:
//! `candidates.rs` (the nodes that may be chosen, dominated ones dropped),
//! `contexts.rs` (the loop scopes), `problem.rs` (variables and
//! constraints), `warm.rs` (the greedy start); this file runs the solver
//! and reads the term.
//!
//! Must not: change the e-graph, or be the default extractor (it is
//! exponential in the worst case).

mod candidates;
mod contexts;
mod problem;
mod warm;

use super::cost::CostModel;
use super::dag::{dag_cost, extract_dag_on};
use super::table::{build_term, NodeTable};
use crate::egraph::analysis::EGraph;
use crate::egraph::term::TNode;
use candidates::Candidates;
use contexts::contexts;
use egg::{Id, RecExpr};
use good_lp::solvers::{WithInitialSolution, WithTimeLimit};
use good_lp::{microlp, Solution, SolutionStatus, SolverModel};
use problem::Problem;
use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use warm::warm_start;

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

/// Like [`extract_ilp`], but also returns a time-limited (not proven
/// optimal) incumbent, and the problem's figures.
pub fn solve_ilp(
    egraph: &EGraph,
    root: Id,
    model: &CostModel,
    limits: &IlpLimits,
) -> Result<IlpExtraction, IlpError> {
    let root = egraph.find(root);
    let table = NodeTable::new(egraph, model);
    let g = Candidates::new(&table);
    let Some(r) = table.dense_of(root) else {
        return Err(IlpError::NoTerm);
    };
    if g.cands[r].is_empty() {
        return Err(IlpError::NoTerm);
    }
    let ctxs = contexts(&g, r, limits.max_classes)?;

    // The greedy term: the warm start, and the bound the ILP must meet.
    let (greedy_cost, greedy_expr, _) = extract_dag_on(egraph, &table, root, model, None, true);
    let t0 = Instant::now();

    let Problem {
        vars,
        objective,
        constraints,
        index,
    } = Problem::build(&g, &ctxs, r)?;
    let warm = warm_start(egraph, &g, &greedy_expr, r, &ctxs.child, &index);

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
    for key in &index.keys {
        if solution.value(index.chosen[key]) > 0.5 {
            let (x, j) = *key;
            let class = table.classes[x];
            if let Some(n) = egraph[class].nodes.get(g.cands[x][j].k) {
                sel.insert(class, n.clone());
            }
        }
    }
    let mut value = 0.0;
    for (p, ctx) in ctxs.list.iter().enumerate() {
        for x in &ctx.classes {
            for (_, var, coef) in index.u[p].get(x).into_iter().flatten() {
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
        classes: ctxs.list.iter().map(|c| c.classes.len()).sum(),
        contexts: ctxs.list.len(),
        variables: index.n_vars,
        constraints: n_constraints,
        time,
    })
}
