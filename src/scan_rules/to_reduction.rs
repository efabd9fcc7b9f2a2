//! `scan-to-reduction` and `scan-to-cumulative`: loops that are whole-array
//! ops (PyTensor has no such rule).
//!
//! A state updated as `s_t = s_{t-1} ⊕ f(x_t)`, with `⊕` one of `add`,
//! `mul`, `maximum`, `minimum` and `f` reading no state, is
//! `s_0 ⊕ f(x_0) ⊕ ... ⊕ f(x_t)`. Read only at its end (`(index S -1)`),
//! it is a reduction over the time axis: `s_0 ⊕ reduce(f(X), 0)` (`sum`,
//! `prod`, `max`, `min`). A fold whose step count may be 0 is read as
//! `(index (concat 0 (expand_dims s_0 0) S) -1)` (the init when no step
//! ran); for `add` and `mul` that is the same reduction (a sum over no
//! rows is 0, a product 1); `max` and `min` have no identity (an error
//! over no rows), so they reduce `concat(s_0, f(X))` instead. Read at every step, a running `add` or `mul` is
//! `cumsum` / `cumprod` of `f(X)` combined with `s_0`. The sum is then
//! bracketed differently from the loop (NumPy's pairwise sum instead of
//! left to right), as `reduce` allows. A product is not: grouped
//! differently it overflows or underflows where the loop's does not, so
//! unless `s_0` is the constant 1 the factors follow `s_0` in the loop's
//! order, `prod(concat(s_0, F), 0)` and `cumprod(concat(s_0, F), 0)[1:]`
//! (both sequential), the loop's bits at any magnitude; that needs `f` of
//! the state's type.
//!
//! Works in a loop with a mitmot too (the state's body result is found by
//! its output's position among the body results).
//!
//! Does not fire on: an update that reads the state elsewhere too (a
//! recurrence that is not a running fold), `f` reading another state,
//! `sub` or `div` (not associative); `maximum` / `minimum` at every step
//! (there is no running max op).

use super::scan_node::ScanNode;
use super::vectorize::Vectorizer;
use super::{union_checked, MAX_VARIANTS};
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::{BinaryOp, CumOp, OutputInfo, ReduceOp, Scalar};
use egg::{Applier, Id, PatternAst, Rewrite, Subst, Symbol, Var};

/// Which reads of the state the rule rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    /// `(index S -1)`: a reduction.
    Last,
    /// `S` itself: a cumulative op.
    EveryStep,
}

#[derive(Clone, Copy)]
struct ToReduction(Read);

/// The rule for a state read at its end.
pub fn rewrite() -> super::ScanRewrite {
    Rewrite::new(
        "scan-to-reduction",
        super::ClassesWithHead(Head::Op(OpKind::Proj)),
        ToReduction(Read::Last),
    )
}

/// The rule for a state read at every step.
pub fn rewrite_every_step() -> super::ScanRewrite {
    Rewrite::new(
        "scan-to-cumulative",
        super::ClassesWithHead(Head::Op(OpKind::Proj)),
        ToReduction(Read::EveryStep),
    )
}

fn lit(egraph: &mut EGraph, s: Scalar) -> Id {
    egraph.add(TNode::lit(s))
}

fn op(egraph: &mut EGraph, name: OpKind, children: Vec<Id>) -> Id {
    egraph.add(TNode {
        head: Head::Op(name),
        children,
    })
}

impl Applier<TNode, TensorAnalysis> for ToReduction {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        _subst: &Subst,
        _ast: Option<&PatternAst<TNode>>,
        rule: Symbol,
    ) -> Vec<Id> {
        let projs = super::projs_in(egraph, eclass);
        // The class the result equals: the last row, or the proj itself.
        let target = match self.0 {
            Read::EveryStep => Some(eclass),
            Read::Last => {
                let m1 = lit(egraph, Scalar::I64(-1));
                egraph.lookup(TNode {
                    head: Head::Op(OpKind::Index),
                    children: vec![eclass, m1],
                })
            }
        };
        let mut changed = Vec::new();
        for (k, s) in projs {
            for scan in ScanNode::all_in(egraph, s).iter().take(MAX_VARIANTS) {
                if let Some(target) = target {
                    if let Some(new) = fold_of(egraph, scan, k, self.0, false) {
                        if union_checked(egraph, rule, target, new) {
                            changed.push(target);
                        }
                    }
                }
                if self.0 != Read::Last {
                    continue;
                }
                // The empty-safe read of a fold whose step count may be 0.
                let Some(guarded) = last_or_init(egraph, scan, k, eclass) else {
                    continue;
                };
                if let Some(new) = fold_of(egraph, scan, k, Read::Last, true) {
                    if union_checked(egraph, rule, guarded, new) {
                        changed.push(guarded);
                    }
                }
            }
        }
        changed
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// True when class `c` is the constant 1: a product started at 1 is the
/// product of the factors alone, which `prod` and `cumprod` multiply in
/// the loop's order.
fn is_one(egraph: &EGraph, c: Id) -> bool {
    egraph[c].data.konst.is_some_and(|k| k.as_f64() == 1.0)
}

/// The class of `(index (concat 0 (expand_dims INIT 0) STATES) -1)` for
/// output `k` of `scan` whose states are class `states`, if the e-graph
/// holds it: the last state, or the init when no step ran (how a fold
/// over a sequence that may be empty is read).
fn last_or_init(egraph: &EGraph, scan: &ScanNode, k: usize, states: Id) -> Option<Id> {
    let init = scan.init_outer(k)?;
    let lit = |egraph: &EGraph, n: i64| egraph.lookup(TNode::lit(Scalar::I64(n)));
    let node = |head: OpKind, children: Vec<Id>| TNode {
        head: Head::Op(head),
        children,
    };
    let (zero, m1) = (lit(egraph, 0)?, lit(egraph, -1)?);
    let first = egraph.lookup(node(OpKind::ExpandDims, vec![init, zero]))?;
    let rows = egraph.lookup(node(OpKind::Concat, vec![zero, first, states]))?;
    egraph.lookup(node(OpKind::Index, vec![rows, m1]))
}

/// The whole-array form of output `k` of `scan`, if it is a running fold.
/// `empty_safe`: the form must also hold when the loop runs no step (the
/// init then): `sum` and `prod` over no rows give 0 and 1, which leave
/// the init as it is, but `max` and `min` over no rows are errors, so
/// they reduce the init's row followed by f's rows (exact: no rounding).
fn fold_of(
    egraph: &mut EGraph,
    scan: &ScanNode,
    k: usize,
    read: Read,
    empty_safe: bool,
) -> Option<Id> {
    if scan.sig.outputs.get(k)? != &OutputInfo::Sitsot {
        return None;
    }
    let state = *scan.state_params(k).first()?;
    let init = scan.init_outer(k)?;
    let is_state = |egraph: &EGraph, c: Id| {
        egraph[c]
            .nodes
            .iter()
            .any(|n| matches!(n.head, Head::Arg(p, _) if p == state))
    };
    // The body result of output k (a mitmot before it takes several).
    let body = *scan.body.get(scan.sig.body_output_range(k).start)?;
    let nodes = egraph[body].nodes.clone();
    for n in nodes {
        let Head::Op(OpKind::Binary(b)) = n.head else {
            continue;
        };
        let (reduce, cum) = match b {
            BinaryOp::Add => (ReduceOp::Sum, Some(CumOp::Cumsum)),
            BinaryOp::Mul => (ReduceOp::Prod, Some(CumOp::Cumprod)),
            BinaryOp::Maximum => (ReduceOp::Max, None),
            BinaryOp::Minimum => (ReduceOp::Min, None),
            _ => continue,
        };
        let f = match (
            is_state(egraph, n.children[0]),
            is_state(egraph, n.children[1]),
        ) {
            (true, false) => n.children[1],
            (false, true) => n.children[0],
            _ => continue,
        };
        let params = Vectorizer::standard_params(egraph, scan, true);
        let mut vz = Vectorizer::new(scan, egraph, params)?;
        let Some(v) = vz.outer(egraph, f) else {
            continue;
        };
        if !v.batched {
            continue;
        }
        let state_rank = egraph[init].data.ty()?.ndim();
        let zero = lit(egraph, Scalar::I64(0));
        // `max` and `min` over no rows are errors: when the loop may run
        // no step, they reduce the init's row followed by f's rows.
        let extreme = matches!(b, BinaryOp::Maximum | BinaryOp::Minimum);
        if (b == BinaryOp::Mul && !is_one(egraph, init)) || (extreme && empty_safe) {
            // A product in another grouping overflows or underflows where
            // the loop's does not (1e-300 · 2e300 · 2e300 is 4e300 one way
            // and inf the other): the factors follow the initial value in
            // the loop's order instead, `prod` and `cumprod` being
            // sequential. This needs f of the state's type.
            let (Some(ft), Some(it)) = (egraph[f].data.ty(), egraph[init].data.ty()) else {
                continue;
            };
            if ft.dtype != it.dtype || ft.shape != it.shape {
                continue;
            }
            return Some(match read {
                Read::Last => {
                    let first = super::terms::expand_dims(egraph, init, 0);
                    let rows = super::terms::concat0(egraph, vec![first, v.id]);
                    op(egraph, OpKind::Reduce(reduce), vec![rows, zero])
                }
                Read::EveryStep => super::terms::running_from(egraph, cum?, init, v.id),
            });
        }
        let folded = match read {
            Read::Last => op(egraph, OpKind::Reduce(reduce), vec![v.id, zero]),
            Read::EveryStep => {
                let cum = cum?;
                // Align f's step axes with the state's, after the time axis.
                let mut x = v.id;
                let f_rank = egraph[f].data.ty()?.ndim();
                for _ in f_rank..state_rank {
                    let one = lit(egraph, Scalar::I64(1));
                    x = op(egraph, OpKind::ExpandDims, vec![x, one]);
                }
                op(egraph, OpKind::Cumulative(cum), vec![x, zero])
            }
        };
        return Some(op(egraph, OpKind::Binary(b), vec![folded, init]));
    }
    None
}
