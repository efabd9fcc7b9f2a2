//! The ILP itself: its variables, objective and constraints, as the module
//! documentation of [`super`] states them.
//!
//! Owns: [`Problem::build`] (the `u`, `chosen` and level variables; the
//! root, activation, one-node-per-class and acyclicity constraints) and
//! [`VarIndex`], which tells the solution's values apart. Must not: run the
//! solver or read its solution (see [`super::solve_ilp`]).

use super::super::cost::mul_inf;
use super::candidates::Candidates;
use super::contexts::{allowed, Contexts};
use super::IlpError;
use good_lp::{constraint, variable, Constraint, Expression, ProblemVariables, Variable};
use std::collections::HashMap;

/// The variables of one class in one context: (candidate, `u`, objective
/// coefficient).
pub(super) type ClassVars = Vec<(usize, Variable, f64)>;

/// A level variable of the acyclicity constraints.
pub(super) struct Level {
    /// The class (dense index) it orders.
    pub class: usize,
    /// Its strongly connected component.
    pub component: usize,
    /// The variable.
    pub var: Variable,
}

/// Which variable stands for what.
pub(super) struct VarIndex {
    /// `u[P][x]`: the variables of class `x` in context `P`.
    pub u: Vec<HashMap<usize, ClassVars>>,
    /// Every (class, candidate) with a variable, sorted.
    pub keys: Vec<(usize, usize)>,
    /// `chosen[(x, j)]`: candidate `j` of class `x` is in the term (its
    /// one `u` when it has only one).
    pub chosen: HashMap<(usize, usize), Variable>,
    /// The `chosen` variables that are not a `u`.
    pub chosen_vars: Vec<Variable>,
    /// The level variables.
    pub levels: Vec<Level>,
    /// The number of variables.
    pub n_vars: usize,
}

/// The ILP, ready for a solver.
pub(super) struct Problem {
    /// Its variables.
    pub vars: ProblemVariables,
    /// The cost to minimise.
    pub objective: Expression,
    /// Its constraints.
    pub constraints: Vec<Constraint>,
    /// What the variables stand for.
    pub index: VarIndex,
}

impl Problem {
    /// The ILP of extracting class `root` over the candidates `g` in the
    /// contexts `ctxs`.
    pub fn build(g: &Candidates, ctxs: &Contexts, root: usize) -> Result<Problem, IlpError> {
        let mut vars = ProblemVariables::new();
        let mut n_vars = 0usize;
        let mut u: Vec<HashMap<usize, ClassVars>> = Vec::with_capacity(ctxs.list.len());
        // The u variables of each (class, candidate) across contexts.
        let mut uses: HashMap<(usize, usize), Vec<Variable>> = HashMap::new();
        let mut objective = Expression::default();
        for ctx in &ctxs.list {
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
        constraints.push(constraint::eq(active(0, root), 1.0));
        // A chosen node activates its children: for each class and child
        // class, the nodes that need the child sum to at most its
        // activation (at most one of them is chosen; summed, the LP bound
        // is far tighter than one constraint per node).
        for (p, ctx) in ctxs.list.iter().enumerate() {
            for &x in &ctx.classes {
                let mut needs: Vec<((usize, usize), Vec<Variable>)> = Vec::new();
                for &(j, var, _) in &u[p][&x] {
                    let cand = &g.cands[x][j];
                    let nb = cand.n_body();
                    let mut targets: Vec<(usize, usize)> = Vec::new();
                    for (i, &y) in cand.children.iter().enumerate() {
                        let q = if i < nb {
                            match ctxs.child.get(&(p, x)) {
                                Some(q) => *q,
                                None => {
                                    return Err(IlpError::Solver {
                                        message: "internal error: a loop body has no context"
                                            .into(),
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
        let levels = acyclicity(g, &keys, &chosen, &mut vars, &mut constraints);
        n_vars += levels.len();
        Ok(Problem {
            vars,
            objective,
            constraints,
            index: VarIndex {
                u,
                keys,
                chosen,
                chosen_vars,
                levels,
                n_vars,
            },
        })
    }
}

/// Adds the level variables and constraints that forbid cycles among
/// chosen nodes; returns the level variables, for the warm start.
fn acyclicity(
    g: &Candidates,
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
        for y in g.cands[x][j].children {
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
        for &y in g.cands[x][j].children {
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
