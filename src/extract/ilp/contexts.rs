//! The loop contexts of the ILP: the scopes of [`super::dag_cost`], each
//! with the classes reachable in it and how many times they are paid.
//!
//! Owns: [`Context`], [`contexts`] (found breadth-first from the root,
//! refused past the size limit) and [`allowed`]. Must not: create solver
//! variables (see [`super::problem`]).

use super::super::cost::mul_inf;
use super::candidates::{Cand, Candidates};
use super::IlpError;
use std::collections::{HashMap, HashSet, VecDeque};

/// A scope of [`super::dag_cost`]: outside any loop, or a loop body
/// reached through a chain of scan classes.
pub(super) struct Context {
    /// How many times a class active here is paid.
    pub mult: f64,
    /// The scan classes whose bodies enclose this context.
    pub path: Vec<usize>,
    /// The classes reachable here (over all candidate nodes).
    pub classes: Vec<usize>,
}

/// The contexts reachable from `root`, and the child context of each
/// (context, scan class).
pub(super) struct Contexts {
    /// The contexts; the root context first.
    pub list: Vec<Context>,
    /// The body context of each (context, scan class) pair.
    pub child: HashMap<(usize, usize), usize>,
}

/// The contexts reachable from class `root`; [`IlpError::TooLarge`] past
/// `limit` class–context pairs.
pub(super) fn contexts(g: &Candidates, root: usize, limit: usize) -> Result<Contexts, IlpError> {
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
                                    // The body is paid `steps` times each
                                    // time the loop is (`loop_cost`).
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
    Ok(Contexts { list: ctxs, child })
}

/// A scan node of class `x` cannot be used inside `x`'s own body (that
/// term would be cyclic); every other node can.
pub(super) fn allowed(ctx: &Context, x: usize, cand: &Cand) -> bool {
    cand.scan.is_none() || !ctx.path.contains(&x)
}
