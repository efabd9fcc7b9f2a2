//! `scan-to-linrec`: a state updated as a first-order linear recurrence is
//! the `linrec` op (PyTensor has no such rule; JAX keeps the loop).
//!
//! A sitsot state updated as `s_t = a_t ⊙ s_{t-1} + u_t`, where neither
//! `a_t` nor `u_t` reads a state (each from sequences, non-sequences and
//! constants), is `(linrec A U s_0)` with `A` and `U` the per-step values
//! computed outside the loop (by the vectorizer of push-out-seq), `A`
//! left unstacked when it is the same at every step. The kernel multiplies
//! then adds, as the loop body does, so the result is the loop's bit for
//! bit. This removes scalar recurrences (GARCH variances, AR filters,
//! exponential moving averages) from loops, and their gradients too: a
//! `linrec`'s gradient is another `linrec`.
//!
//! Does not fire on: a factor or term that reads a state; a term whose
//! step shape is not the state's (it would broadcast inside the loop), or
//! a factor whose step shape is neither a scalar's nor the state's; an
//! update whose sum is `sub` (written `add` of a `neg` it fires). The
//! case `a = 1` is `scan-to-cumulative`'s.

use super::scan_node::ScanNode;
use super::vectorize::Vectorizer;
use super::{union_checked, MAX_VARIANTS};
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::{BinaryOp, OutputInfo, Scalar};
use egg::{Applier, Id, PatternAst, Rewrite, Subst, Symbol, Var};

#[derive(Clone, Copy)]
struct ToLinRec;

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    Rewrite::new(
        "scan-to-linrec",
        super::ClassesWithHead(Head::Op(OpKind::Proj)),
        ToLinRec,
    )
}

impl Applier<TNode, TensorAnalysis> for ToLinRec {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        _subst: &Subst,
        _ast: Option<&PatternAst<TNode>>,
        rule: Symbol,
    ) -> Vec<Id> {
        let mut changed = Vec::new();
        for (k, s) in super::projs_in(egraph, eclass) {
            for scan in ScanNode::all_in(egraph, s).iter().take(MAX_VARIANTS) {
                if let Some(new) = linrec_of(egraph, scan, k) {
                    if union_checked(egraph, rule, eclass, new) {
                        changed.push(eclass);
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

fn op(egraph: &mut EGraph, name: OpKind, children: Vec<Id>) -> Id {
    egraph.add(TNode {
        head: Head::Op(name),
        children,
    })
}

/// `(linrec A U s_0)` for output `k` of `scan`, if its update is linear.
fn linrec_of(egraph: &mut EGraph, scan: &ScanNode, k: usize) -> Option<Id> {
    if scan.sig.outputs.get(k)? != &OutputInfo::Sitsot {
        return None;
    }
    let state = *scan.state_params(k).first()?;
    let init = scan.init_outer(k)?;
    let state_ty = egraph[init].data.ty()?.clone();
    if !state_ty.dtype.is_float() {
        return None;
    }
    let is_state = |egraph: &EGraph, c: Id| {
        egraph[c]
            .nodes
            .iter()
            .any(|n| matches!(n.head, Head::Arg(p, _) if p == state))
    };
    // (a, u) pairs of the body result's `add (mul a s) u` forms.
    let body = *scan.body.get(scan.sig.body_output_range(k).start)?;
    let mut forms: Vec<(Id, Id)> = Vec::new();
    for n in egraph[body].nodes.clone() {
        if n.head != Head::Op(OpKind::Binary(BinaryOp::Add)) {
            continue;
        }
        for (m, u) in [
            (n.children[0], n.children[1]),
            (n.children[1], n.children[0]),
        ] {
            for mn in &egraph[m].nodes {
                if mn.head != Head::Op(OpKind::Binary(BinaryOp::Mul)) {
                    continue;
                }
                match (
                    is_state(egraph, mn.children[0]),
                    is_state(egraph, mn.children[1]),
                ) {
                    (true, false) => forms.push((mn.children[1], u)),
                    (false, true) => forms.push((mn.children[0], u)),
                    _ => {}
                }
            }
        }
    }
    for (a, u) in forms.into_iter().take(MAX_VARIANTS) {
        let a_ty = egraph[a].data.ty()?.clone();
        let u_ty = egraph[u].data.ty()?.clone();
        if u_ty.shape != state_ty.shape || !(a_ty.ndim() == 0 || a_ty.shape == state_ty.shape) {
            continue;
        }
        let params = Vectorizer::standard_params(egraph, scan, true);
        let mut vz = Vectorizer::new(scan, egraph, params)?;
        let (Some(av), Some(uv)) = (vz.outer(egraph, a), vz.outer(egraph, u)) else {
            continue;
        };
        if !uv.batched {
            continue;
        }
        // A per-step scalar factor gets the state's axes after the time axis.
        let mut factor = av.id;
        if av.batched && a_ty.ndim() < state_ty.ndim() {
            for _ in a_ty.ndim()..state_ty.ndim() {
                let one = egraph.add(TNode::lit(Scalar::I64(1)));
                factor = op(egraph, OpKind::ExpandDims, vec![factor, one]);
            }
        }
        return Some(op(egraph, OpKind::LinRec, vec![factor, uv.id, init]));
    }
    None
}
