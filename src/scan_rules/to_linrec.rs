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
//! The other order, `s_t = a_t ⊙ (s_{t-1} + u_t)` (the carry a backward
//! loop builds: the cotangent summed, then multiplied into the previous
//! step), is the same recurrence one step later: `g_t = s_{t-1} + u_t`
//! satisfies `g_t = a_{t-1} ⊙ g_{t-1} + u_t`, so `G = (linrec A' U s_0)`
//! with `A'` the factors shifted down by one row behind a row of ones
//! (`1 ⊙ s_0` is `s_0` exactly), and the state is `A ⊙ G`. Both products
//! and sums are the loop's own, so this form is bit for bit the loop's too
//! (distributing `a` over the sum would not be: `a s + a u` overflows
//! where `a (s + u)` need not).
//!
//! When other outputs of the loop read the state, the loop is also
//! rebuilt with the state's previous values fed in as a sequence (the
//! recurrence's trace behind `s_0`): the state becomes a nit-sot, nothing
//! is carried, and push-out-seq can take the whole loop apart.
//!
//! Does not fire on: a factor or term that reads a state; a term whose
//! step shape is not the state's (it would broadcast inside the loop), or
//! a factor whose step shape is neither a scalar's nor the state's; a
//! factor or term of another dtype than the state's; an update whose sum
//! is `sub` (written `add` of a `neg` it fires); a state that keeps only
//! its last steps. The case `a = 1` is `scan-to-cumulative`'s.

use super::body::Target;
use super::build::{NewScan, NewSeq};
use super::scan_node::ScanNode;
use super::terms::{concat0, expand_dims, op};
use super::vectorize::{reversed, slice, Outer, Vectorizer};
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
                let Some(found) = linrec_of(egraph, scan, k) else {
                    continue;
                };
                let trace = found.trace;
                if union_checked(egraph, rule, eclass, trace) {
                    changed.push(eclass);
                    // Once per trace found (not again in each iteration:
                    // the terms it adds stay, and vectorizing twice per
                    // loop variant and iteration cost a fifth of the
                    // optimizer's time on garch_grad).
                    changed.extend(recomputations_read(egraph, scan, k, &found, rule));
                }
                if scan.sig.outputs.len() > 1 {
                    changed.extend(state_fed_in(egraph, scan, k, trace, rule));
                }
            }
        }
        changed
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// The two ways a body writes a linear update of the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// `a ⊙ s + u`.
    MulThenAdd,
    /// `a ⊙ (s + u)`.
    AddThenMul,
}

/// The `(form, a, u, inner)` of the body result class `body`, whose
/// state parameter is `state`: `inner` is the class of the inner
/// operation (`a ⊙ s`, or `s + u`).
fn linear_forms(egraph: &EGraph, body: Id, state: usize) -> Vec<(Form, Id, Id, Id)> {
    let is_state = |c: Id| {
        egraph[c]
            .nodes
            .iter()
            .any(|n| matches!(n.head, Head::Arg(p, _) if p == state))
    };
    let binary = |c: Id, op: BinaryOp| -> Vec<(Id, Id)> {
        egraph[c]
            .nodes
            .iter()
            .filter(|n| n.head == Head::Op(OpKind::Binary(op)))
            .flat_map(|n| {
                [
                    (n.children[0], n.children[1]),
                    (n.children[1], n.children[0]),
                ]
            })
            .collect()
    };
    let mut forms = Vec::new();
    // a s + u: an add one of whose operands is a product with the state.
    for (m, u) in binary(body, BinaryOp::Add) {
        for (x, a) in binary(m, BinaryOp::Mul) {
            if is_state(x) && !is_state(a) {
                forms.push((Form::MulThenAdd, a, u, m));
            }
        }
    }
    // a (s + u): a product one of whose operands is a sum with the state.
    for (sum, a) in binary(body, BinaryOp::Mul) {
        for (x, u) in binary(sum, BinaryOp::Add) {
            if is_state(x) && !is_state(u) && !is_state(a) {
                forms.push((Form::AddThenMul, a, u, sum));
            }
        }
    }
    forms.dedup();
    forms
}

/// What [`linrec_of`] found: the trace, and the body classes whose
/// per-step values it knows.
struct Found {
    /// The trace of the state (its values after each step, in step order).
    trace: Id,
    /// Body classes and the outer value of each, one row per step: the
    /// update (whose value is `trace`) and, for `a ⊙ (s + u)`, the sum
    /// `s + u` (whose value is the retimed `linrec`).
    known: Vec<(Id, Id)>,
}

/// The trace of output `k` of `scan` (its values after each step, in
/// step order) as a `linrec`, if its update is linear.
fn linrec_of(egraph: &mut EGraph, scan: &ScanNode, k: usize) -> Option<Found> {
    if scan.sig.outputs.get(k)? != &OutputInfo::Sitsot || scan.sig.kept(k).is_some() {
        return None;
    }
    let state = *scan.state_params(k).first()?;
    let init = scan.init_outer(k)?;
    let state_ty = egraph[init].data.ty()?.clone();
    if !state_ty.dtype.is_float() {
        return None;
    }
    let body = *scan.body.get(scan.sig.body_output_range(k).start)?;
    for (form, a, u, sum) in linear_forms(egraph, body, state)
        .into_iter()
        .take(MAX_VARIANTS)
    {
        let a_ty = egraph[a].data.ty()?.clone();
        let u_ty = egraph[u].data.ty()?.clone();
        if u_ty.shape != state_ty.shape
            || !(a_ty.ndim() == 0 || a_ty.shape == state_ty.shape)
            || a_ty.dtype != state_ty.dtype
            || u_ty.dtype != state_ty.dtype
        {
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
                factor = expand_dims(egraph, factor, 1);
            }
        }
        return Some(match form {
            Form::MulThenAdd => {
                let trace = op(egraph, OpKind::LinRec, vec![factor, uv.id, init]);
                Found {
                    trace,
                    known: vec![(body, trace)],
                }
            }
            Form::AddThenMul => {
                let per_step = if av.batched && a_ty.shape == state_ty.shape {
                    factor
                } else {
                    let yes = egraph.add(TNode::lit(Scalar::Bool(true)));
                    op(egraph, OpKind::Where, vec![yes, factor, uv.id])
                };
                let shifted = shifted_factor(egraph, per_step, init, state_ty.dtype);
                let g = op(egraph, OpKind::LinRec, vec![shifted, uv.id, init]);
                let trace = op(egraph, OpKind::Binary(BinaryOp::Mul), vec![factor, g]);
                Found {
                    trace,
                    known: vec![(body, trace), (sum, g)],
                }
            }
        });
    }
    None
}

/// The factors of the retimed recurrence: a row of ones (the state's
/// shape), then every step's factor but the last.
/// `(slice (concat 0 ONES PER_STEP) 0 -1 1)`, where `per_step` holds one
/// full row per step (the caller spreads a factor that is the same at
/// every step with `(where true A U)`).
fn shifted_factor(egraph: &mut EGraph, per_step: Id, init: Id, dtype: crate::lang::DType) -> Id {
    let yes = egraph.add(TNode::lit(Scalar::Bool(true)));
    let scalar_ty = egraph.add(TNode {
        head: Head::Type(dtype),
        children: Vec::new(),
    });
    let one = egraph.add(TNode::lit(Scalar::F64(1.0)));
    let one = op(egraph, OpKind::Fill, vec![scalar_ty, one]);
    let ones = op(egraph, OpKind::Where, vec![yes, one, init]);
    let row = expand_dims(egraph, ones, 0);
    let all = concat0(egraph, vec![row, per_step]);
    slice(egraph, all, Some(0), Some(-1), 1)
}

/// The body's recomputations of the state read from the trace: each class
/// of `found.known` vectorized with the state parameter read from the
/// trace (the values before each step: `init`, then the trace but its
/// last row) is the class's known per-step value, and so is the same
/// vectorization over every sequence reversed, reversed. Another loop
/// that recomputes this update from the state's saved trace (a backward
/// loop recomputes the forward step from `h_{t-1}`; going backwards, it
/// reads every sequence reversed) vectorizes to these same terms, so once
/// unioned the extractor reads the trace instead of recomputing it. Exact:
/// the vectorized update evaluates the body's own operations on the very
/// values the loop computed them on. Returns the classes it merged.
fn recomputations_read(
    egraph: &mut EGraph,
    scan: &ScanNode,
    k: usize,
    found: &Found,
    rule: Symbol,
) -> Vec<Id> {
    let mut changed = Vec::new();
    let (Some(&state), Some(init)) = (scan.state_params(k).first(), scan.init_outer(k)) else {
        return changed;
    };
    let row0 = expand_dims(egraph, init, 0);
    let all = concat0(egraph, vec![row0, found.trace]);
    let before = slice(egraph, all, Some(0), Some(-1), 1);
    for backwards in [false, true] {
        let mut params = Vectorizer::standard_params(egraph, scan, true);
        if backwards {
            for p in params.iter_mut().flatten() {
                if p.batched {
                    p.id = reversed(egraph, p.id);
                }
            }
        }
        let state_rows = if backwards {
            reversed(egraph, before)
        } else {
            before
        };
        let Some(slot) = params.get_mut(state) else {
            return changed;
        };
        *slot = Some(Outer {
            id: state_rows,
            batched: true,
        });
        let Some(mut vz) = Vectorizer::new(scan, egraph, params) else {
            return changed;
        };
        for &(class, value) in &found.known {
            let Some(o) = vz.outer(egraph, class) else {
                continue;
            };
            if !o.batched {
                continue;
            }
            let value = if backwards {
                reversed(egraph, value)
            } else {
                value
            };
            if union_checked(egraph, rule, value, o.id) {
                changed.push(egraph.find(value));
            }
        }
    }
    changed
}

/// `scan` rebuilt with output `k`'s state read from a sequence: its values
/// before each step, `trace` (the values after each step, in step order)
/// behind the init. The state becomes a nit-sot computing the same update.
/// Returns the classes it merged into.
fn state_fed_in(
    egraph: &mut EGraph,
    scan: &ScanNode,
    k: usize,
    trace: Id,
    rule: Symbol,
) -> Vec<Id> {
    match state_as_sequence(egraph, scan, k, trace) {
        Some(new) => super::union_outputs(egraph, rule, scan.class, new, 0..scan.sig.outputs.len()),
        None => Vec::new(),
    }
}

fn state_as_sequence(egraph: &mut EGraph, scan: &ScanNode, k: usize, trace: Id) -> Option<Id> {
    let state = *scan.state_params(k).first()?;
    let init = scan.init_outer(k)?;
    let mut spec = NewScan::like(egraph, scan)?;
    let row0 = expand_dims(egraph, init, 0);
    let all = concat0(egraph, vec![row0, trace]);
    let before = slice(egraph, all, Some(0), Some(-1), 1);
    // A loop going backwards reads each sequence from its end.
    let outer = if spec.go_backwards {
        reversed(egraph, before)
    } else {
        before
    };
    let out = spec.outputs.get_mut(k)?;
    let step_type = out.step_type.clone();
    out.info = OutputInfo::Nitsot;
    out.init = None;
    let seq = spec.sequences.len();
    spec.sequences.push(NewSeq {
        outer,
        taps: vec![0],
        step_type: step_type.clone(),
    });
    let mut source = spec.source_of(scan);
    *source.params.get_mut(state)? = Some(Target::Param(spec.seq_param(seq, 0)));
    *source.param_types.get_mut(state)? = Some(step_type);
    spec.build(egraph, &[source])
}
