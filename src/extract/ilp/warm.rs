//! The ILP's warm start: the values of every variable for the greedy DAG
//! term, so that even a time-limited search never does worse than greedy.
//!
//! Owns: [`warm_start`]. Must not: build constraints (see
//! [`super::problem`]).

use super::candidates::Candidates;
use super::problem::VarIndex;
use crate::egraph::analysis::EGraph;
use crate::egraph::term::TNode;
use egg::{Id, Language, RecExpr};
use good_lp::Variable;
use std::collections::{HashMap, HashSet};

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

/// Values of every variable of `index` for the term `expr` of class
/// `root` (dense index), or `None` if it does not fit the problem (then
/// the solver starts from nothing). `child` is the body context of each
/// (context, scan class).
pub(super) fn warm_start(
    egraph: &EGraph,
    g: &Candidates,
    expr: &RecExpr<TNode>,
    root: usize,
    child: &HashMap<(usize, usize), usize>,
    index: &VarIndex,
) -> Option<Vec<(Variable, f64)>> {
    // The candidate chosen in each class of the term, children first.
    let mut order: Vec<(usize, usize)> = Vec::new();
    for (class, node) in selection_of(egraph, expr)? {
        let x = g.table.dense_of(class)?;
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
        let (_, var, _) = index.u.get(p)?.get(&x)?.iter().find(|(k, _, _)| *k == j)?;
        on.insert(*var);
        on.insert(*index.chosen.get(&(x, j))?);
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
    let comp: HashMap<usize, usize> = index
        .levels
        .iter()
        .map(|l| (l.class, l.component))
        .collect();
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
    for m in &index.u {
        for v in m.values() {
            for (_, var, _) in v {
                values.push((*var, flag(var)));
            }
        }
    }
    for var in &index.chosen_vars {
        values.push((*var, flag(var)));
    }
    for l in &index.levels {
        values.push((l.var, height.get(&l.class).copied().unwrap_or(0.0)));
    }
    Some(values)
}
