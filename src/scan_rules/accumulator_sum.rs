//! `scan-accumulator-sum`: a loop's accumulators read only at their end
//! leave the loop as sums over all steps of their stacked operands.
//!
//! A gradient's backward loop accumulates each weight's gradient step by
//! step: `dW_t = dW_{t-1} + x_tᵀ g_t`, `db_t = db_{t-1} + sum(g_t, 0)`,
//! read only at the end. Its last value is `dW_0 + Σ_t x_tᵀ g_t`: one
//! product of `[x_1 … x_T]ᵀ` and `[g_1; …; g_T]` after the loop, where the
//! loop did `T` skinny ones (inner size the batch). The rule builds that
//! form in one step: the loop without its accumulators, stacking instead
//! the step values their terms multiply (`g_t`: mapped outputs), and each
//! accumulator's last value `(index (proj k S) -1)` unioned with its init
//! plus the sum, written from the term `f_t` it adds:
//!
//! | `f_t` | `Σ_t f_t` |
//! |---|---|
//! | `a_t ± b_t` | `Σa ± Σb` |
//! | `(concat ax a_t b_t …)` | `(concat ax Σa Σb …)` |
//! | `(dot a_t b_t)`, both per step | one `dot` of the reshaped stacks ([`super::sum_matmul`]) |
//! | `(dot W b_t)`, `(dot a_t W)`, `W` the same every step | `(dot W Σb)`, `(dot Σa W)` |
//! | `(sum a_t 0)`, `a_t` a matrix | `(sum (reshape A Tn q) 0)` |
//! | a term over sequences and non-sequences only | `(sum F 0)`, `F` its vectorized form |
//! | anything else | `(sum F 0)`, `F` the term itself stacked |
//!
//! An operand that reads no state is vectorized ([`super::vectorize`]): a
//! sequence's tap is the sequence itself, read in place. One that reads a
//! state becomes a mapped output of the new loop (each distinct class
//! once, at most [`super::MAX_MERGED_OUTPUTS`] outputs in all).
//!
//! `scan-accumulator-out`, `scan-stack-factor`, `scan-push-out-output`,
//! `cumsum-last` and `sum-matmul-steps` reach the same form, one iteration
//! each and one accumulator at a time: five iterations after the tape
//! became a carry, longer than the optimizer waits without a gain (three),
//! so `tests/cases/scan_rules/eq_weight_grad_chain.sexp` stopped with its
//! products still summed step by step. This rule takes all the
//! accumulators of a loop in one iteration.
//!
//! The sum is bracketed differently from the loop (a product's inner sum,
//! a pairwise sum, and the init added last), as `sum-matmul-steps` and
//! `cumsum-last` already allow: rounding differs, as reassociating a sum
//! does (rules/README.md). The loop must run at least one step (its step
//! count known): reading `-1` of no rows fails, where the sum would give
//! the init.
//!
//! Does not fire on: a loop with a mitmot (`scan-mitmot-to-carry` first),
//! a while loop, an accumulator that another body result reads, whose
//! term reads it or no state, or whose type differs from its term's, an
//! output that keeps its last steps (the full loop is rewritten; save-mem
//! applies to the result), a step count that is not a known positive
//! number, a loop whose outputs would be more than
//! [`super::MAX_MERGED_OUTPUTS`].

use super::accumulator::accumulated_term;
use super::build::NewOutput;
use super::drop_output::rebuilt_without;
use super::scan_node::ScanNode;
use super::sum_matmul::{sizes, stacked_product};
use super::terms::{index, lit, op};
use super::vectorize::Vectorizer;
use super::{per_scan_rule, proj, union_checked, MAX_MERGED_OUTPUTS};
use crate::egraph::analysis::EGraph;
use crate::egraph::term::{Head, Lit, OpKind};
use crate::lang::{BinaryOp, DType, Dim, ReduceOp, Scalar, Type};
use egg::{Id, Symbol};
use std::collections::BTreeSet;

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule(
        "scan-accumulator-sum",
        super::Reads::Loop,
        accumulators_summed,
    )
}

/// A value each step gives, as it is read after the loop.
#[derive(Clone, Copy, Debug)]
enum Operand {
    /// Stacked by the vectorizer (steps × the step's type).
    Stacked(Id),
    /// The same every step (the step's type).
    Invariant(Id),
    /// A body class that reads a state: a mapped output of the new loop.
    Stored(Id),
}

/// How `Σ_t f_t` is written after the loop.
#[derive(Clone, Debug)]
enum Sum {
    /// `Σa ± Σb`.
    Binary(BinaryOp, Box<Sum>, Box<Sum>),
    /// The parts' sums joined along the axis (a literal class).
    Concat(Id, Vec<Sum>),
    /// `Σ_t a_t b_t`, both per step.
    Product(Operand, Operand),
    /// `W Σb`.
    LeftInvariant(Id, Box<Sum>),
    /// `Σa W`.
    RightInvariant(Box<Sum>, Id),
    /// `Σ_t sum(a_t, 0)` of matrices `a_t`.
    RowSums(Operand),
    /// `sum(A, 0)` of the stacked values.
    Steps(Operand),
}

/// Deeper terms are summed whole (the recursion is bounded).
const MAX_DEPTH: usize = 16;

/// What planning reads: the vectorizer of the loop's state-free terms and
/// the loop's state parameters.
struct Planner<'a> {
    vz: Vectorizer,
    states: &'a BTreeSet<usize>,
}

impl Planner<'_> {
    fn reads_state(&self, egraph: &EGraph, c: Id) -> bool {
        !egraph[c].data.deps.is_disjoint(self.states)
    }

    /// Class `c` as a value each step gives.
    fn operand(&mut self, egraph: &mut EGraph, c: Id) -> Option<Operand> {
        let c = egraph.find(c);
        if !self.reads_state(egraph, c) {
            if let Some(o) = self.vz.outer(egraph, c) {
                return Some(match o.batched {
                    true => Operand::Stacked(o.id),
                    false => Operand::Invariant(o.id),
                });
            }
        }
        let ty = egraph[c].data.ty()?;
        (ty.dtype.is_float() && !ty.shape.contains(&Dim::Unknown)).then_some(Operand::Stored(c))
    }

    /// How `Σ_t c_t` is written.
    fn plan(&mut self, egraph: &mut EGraph, c: Id, depth: usize) -> Option<Sum> {
        let c = egraph.find(c);
        let ty = egraph[c].data.ty()?.clone();
        if depth < MAX_DEPTH {
            let mut i = 0;
            while let Some(n) = egraph[c].nodes.get(i).cloned() {
                i += 1;
                if let Some(s) = self.node(egraph, &ty, &n.head, &n.children, depth) {
                    return Some(s);
                }
            }
        }
        match self.operand(egraph, c)? {
            Operand::Invariant(_) => None,
            o => Some(Sum::Steps(o)),
        }
    }

    fn node(
        &mut self,
        egraph: &mut EGraph,
        ty: &Type,
        head: &Head,
        children: &[Id],
        depth: usize,
    ) -> Option<Sum> {
        let same_type = |egraph: &EGraph, x: Id| egraph[x].data.ty() == Some(ty);
        match head {
            Head::Op(OpKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub))) => {
                let [a, b] = children else { return None };
                if !same_type(egraph, *a) || !same_type(egraph, *b) {
                    return None;
                }
                let (sa, sb) = (
                    self.plan(egraph, *a, depth + 1)?,
                    self.plan(egraph, *b, depth + 1)?,
                );
                Some(Sum::Binary(*op, Box::new(sa), Box::new(sb)))
            }
            Head::Op(OpKind::Concat) => {
                let (axis, parts) = children.split_first()?;
                let mut sums = Vec::with_capacity(parts.len());
                for p in parts {
                    sums.push(self.plan(egraph, *p, depth + 1)?);
                }
                Some(Sum::Concat(*axis, sums))
            }
            Head::Op(OpKind::Dot) => {
                let [a, b] = children else { return None };
                let is_matrix = |x: Id| egraph[x].data.ty().is_some_and(|t| t.ndim() == 2);
                if !is_matrix(*a) || !is_matrix(*b) || !ty.dtype.is_float() {
                    return None;
                }
                match (self.operand(egraph, *a)?, self.operand(egraph, *b)?) {
                    (Operand::Invariant(_), Operand::Invariant(_)) => None,
                    (Operand::Invariant(w), _) => Some(Sum::LeftInvariant(
                        w,
                        Box::new(self.plan(egraph, *b, depth + 1)?),
                    )),
                    (_, Operand::Invariant(w)) => Some(Sum::RightInvariant(
                        Box::new(self.plan(egraph, *a, depth + 1)?),
                        w,
                    )),
                    (x, y) => Some(Sum::Product(x, y)),
                }
            }
            Head::Op(OpKind::Reduce(ReduceOp::Sum)) => {
                let [a, axis] = children else { return None };
                let rows_summed = egraph[*axis]
                    .nodes
                    .iter()
                    .any(|n| n.head == Head::Lit(Lit(Scalar::I64(0))));
                let is_matrix = egraph[*a].data.ty().is_some_and(|t| t.ndim() == 2);
                if !rows_summed || !is_matrix || !ty.dtype.is_float() {
                    return None;
                }
                match self.operand(egraph, *a)? {
                    Operand::Invariant(_) => None,
                    o => Some(Sum::RowSums(o)),
                }
            }
            _ => None,
        }
    }
}

/// The body classes a plan stores, in order of first use.
fn stored(sum: &Sum, out: &mut Vec<Id>) {
    let mut add = |o: &Operand| {
        if let Operand::Stored(c) = o {
            if !out.contains(c) {
                out.push(*c);
            }
        }
    };
    match sum {
        Sum::Binary(_, a, b) => {
            stored(a, out);
            stored(b, out);
        }
        Sum::Concat(_, parts) => parts.iter().for_each(|p| stored(p, out)),
        Sum::Product(a, b) => {
            add(a);
            add(b);
        }
        Sum::LeftInvariant(_, s) | Sum::RightInvariant(s, _) => stored(s, out),
        Sum::RowSums(a) | Sum::Steps(a) => add(a),
    }
}

/// Writes plans after the loop, the stored classes read from the new
/// loop's outputs.
struct Writer<'a> {
    /// Each stored class and its stacked output.
    outputs: &'a [(Id, Id)],
    steps: i64,
}

impl Writer<'_> {
    fn stacked(&self, o: &Operand) -> Option<Id> {
        match o {
            Operand::Stacked(id) => Some(*id),
            Operand::Stored(c) => self.outputs.iter().find(|(s, _)| s == c).map(|(_, p)| *p),
            Operand::Invariant(_) => None,
        }
    }

    fn write(&self, egraph: &mut EGraph, sum: &Sum) -> Option<Id> {
        Some(match sum {
            Sum::Binary(b, x, y) => {
                let (x, y) = (self.write(egraph, x)?, self.write(egraph, y)?);
                op(egraph, OpKind::Binary(*b), vec![x, y])
            }
            Sum::Concat(axis, parts) => {
                let mut children = vec![*axis];
                for p in parts {
                    children.push(self.write(egraph, p)?);
                }
                op(egraph, OpKind::Concat, children)
            }
            Sum::Product(a, b) => {
                let (a, b) = (self.stacked(a)?, self.stacked(b)?);
                let s = sizes(egraph, a, b)?;
                stacked_product(egraph, a, b, s)
            }
            Sum::LeftInvariant(w, s) => {
                let s = self.write(egraph, s)?;
                op(egraph, OpKind::Dot, vec![*w, s])
            }
            Sum::RightInvariant(s, w) => {
                let s = self.write(egraph, s)?;
                op(egraph, OpKind::Dot, vec![s, *w])
            }
            Sum::RowSums(a) => {
                let a = self.stacked(a)?;
                let (n, q) = match &egraph[a].data.ty()?.shape[..] {
                    [_, n, q] => (n.as_known()?, q.as_known()?),
                    _ => return None,
                };
                let tn = lit(egraph, self.steps.checked_mul(n)?);
                let q = lit(egraph, q);
                let flat = op(egraph, OpKind::Reshape, vec![a, tn, q]);
                let zero = lit(egraph, 0);
                op(egraph, OpKind::Reduce(ReduceOp::Sum), vec![flat, zero])
            }
            Sum::Steps(a) => {
                let a = self.stacked(a)?;
                let zero = lit(egraph, 0);
                op(egraph, OpKind::Reduce(ReduceOp::Sum), vec![a, zero])
            }
        })
    }
}

fn accumulators_summed(egraph: &mut EGraph, scan: &ScanNode, rule: Symbol) -> Vec<Id> {
    let mut changed = Vec::new();
    if scan.sig.has_mitmot() || scan.sig.until {
        return changed;
    }
    let Some(steps) = scan.steps(egraph).and_then(|d| d.as_known()) else {
        return changed;
    };
    if steps < 1 {
        return changed;
    }
    let accs: Vec<(usize, Id)> = (0..scan.sig.outputs.len())
        .filter_map(|k| Some((k, accumulated_term(egraph, scan, k)?)))
        .collect();
    if accs.is_empty() {
        return changed;
    }
    let states = scan.all_state_params();
    let params = Vectorizer::standard_params(egraph, scan, true);
    let Some(vz) = Vectorizer::new(scan, egraph, params) else {
        return changed;
    };
    let mut planner = Planner {
        vz,
        states: &states,
    };
    // Each accumulator's plan, its init of the term's type.
    let mut plans: Vec<(usize, Id, Sum)> = Vec::new();
    for (k, f) in accs {
        let Some(init) = scan.init_outer(k) else {
            continue;
        };
        let (Some(init_ty), Some(f_ty)) = (egraph[init].data.ty(), egraph[f].data.ty()) else {
            continue;
        };
        if init_ty != f_ty || init_ty.dtype == DType::Bool {
            continue;
        }
        if let Some(sum) = planner.plan(egraph, f, 0) {
            plans.push((k, init, sum));
        }
    }
    if plans.is_empty() {
        return changed;
    }
    let mut to_store = Vec::new();
    for (_, _, s) in &plans {
        stored(s, &mut to_store);
    }
    let n_out = scan.sig.outputs.len();
    if n_out - plans.len() + to_store.len() > MAX_MERGED_OUTPUTS {
        return changed;
    }
    // The loop without the accumulators, the stored classes appended.
    let dropped: Vec<usize> = plans.iter().map(|(k, _, _)| *k).collect();
    let mut added = Vec::with_capacity(to_store.len());
    for c in &to_store {
        let Some(ty) = egraph[*c].data.ty() else {
            return changed;
        };
        added.push(NewOutput::mapped(ty.clone().strong(), *c));
    }
    let Some((new, unioned)) = rebuilt_without(egraph, scan, &dropped, added, rule) else {
        return changed;
    };
    changed.extend(unioned);
    let kept = n_out - dropped.len();
    let outputs: Vec<(Id, Id)> = to_store
        .iter()
        .enumerate()
        .map(|(j, c)| (*c, proj(egraph, new, kept + j)))
        .collect();
    let writer = Writer {
        outputs: &outputs,
        steps,
    };
    for (k, init, sum) in &plans {
        let Some(total) = writer.write(egraph, sum) else {
            continue;
        };
        let last = op(egraph, OpKind::Binary(BinaryOp::Add), vec![*init, total]);
        let trace = proj(egraph, scan.class, *k);
        let read = index(egraph, trace, -1);
        if union_checked(egraph, rule, read, last) {
            changed.push(read);
        }
    }
    changed
}
