//! From one step to all steps: the outer term that computes a body term for
//! every step at once, stacked along a new leading axis.
//!
//! Owns: [`Vectorizer`] and [`Outer`], and the sequence slices that stand
//! for a sequence parameter ([`sequence_steps`]). Must not: decide which
//! classes to push out (the rules do).
//!
//! A body term over sequence taps `x_t` and non-sequences `w` becomes a
//! term over the whole (tap-sliced) sequence `X` and `w`: elementwise ops
//! broadcast (a batched operand gets length-1 axes after the time axis
//! when a loop-invariant operand has more axes), axes of reductions,
//! transposes and concatenations shift by one, `dot` and `matmul` become
//! the matching batched products, indexing and slicing of a step's axis 0
//! go through a transpose. A term with no batched operand is rebuilt as it
//! is, outside the loop (the loop-invariant case). Nested scans are not
//! vectorized. Every result is checked against the type it must have, so a
//! case this file gets wrong fails the rewrite instead of changing a type.

use super::scan_node::ScanNode;
use super::terms::{expand_dims, lit, op};
use crate::egraph::analysis::{node_op, EGraph, Kind};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::BodyParam;
use crate::lang::{BinaryOp, Dim, Op, ReduceOp, Type};
use egg::Id;
use std::collections::{BTreeMap, BTreeSet};

/// The outer form of a body class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outer {
    /// The outer class.
    pub id: Id,
    /// True: one row per step (steps × the step's type); false: the same
    /// value at every step (the step's type).
    pub batched: bool,
}

/// Deeper terms are not vectorized (the recursion is bounded).
const MAX_DEPTH: usize = 200;

/// Vectorizes body classes of one scan.
pub struct Vectorizer {
    /// Outer form of each parameter; `None`: the parameter may not be read.
    params: Vec<Option<Outer>>,
    /// Classes with a known outer form (e.g. another output's value).
    leaves: BTreeMap<Id, Outer>,
    /// The step count.
    steps: Dim,
    memo: BTreeMap<Id, Option<Outer>>,
    busy: BTreeSet<Id>,
}

/// The outer value standing for sequence `seq` read at `tap` in every
/// step: the tap's slice of the sequence, reversed when the scan goes
/// backwards. `None` when it cannot be written with constant bounds.
pub fn sequence_steps(egraph: &mut EGraph, scan: &ScanNode, seq: usize, tap: i64) -> Option<Id> {
    let steps = scan.steps(egraph)?;
    sequence_rows(egraph, scan, seq, tap, &steps)
}

/// The rows a step reads of sequence `seq`, one per step for `rows`
/// steps, in iteration order: `rows` is the step count, or (for
/// [`long_rows`]) all the steps the sequence allows. A loop going forwards
/// reads rows `off, off + 1, ...` of the sequence (`off` the tap's offset
/// in its window); one going backwards reads from the last step the
/// sequence allows down, so a sequence longer than the step count is cut
/// at its start. The bounds are literals: they are written when the
/// sequence allows a known number of steps more than `rows`, or when
/// `rows` is known; otherwise `None`.
pub fn sequence_rows(
    egraph: &mut EGraph,
    scan: &ScanNode,
    seq: usize,
    tap: i64,
    rows: &Dim,
) -> Option<Id> {
    let x = scan.seq_outer(seq);
    let window = scan.sig.seq_window(seq);
    let len = egraph[x].data.ty()?.shape.first()?.clone();
    let allowed = window.steps_in_dim(&len);
    let off = window.offset(tap);
    // Where the last window's tap row sits, counted from the end (≤ 0).
    let end = off - window.span();
    let open = |b: i64| (b != 0).then_some(b);
    let backwards = scan.sig.go_backwards;
    let extra = allowed.sub(rows).as_known();
    let (start, stop) = match (extra, rows.as_known()) {
        (Some(e), _) if e < 0 => return None,
        // A sequence that allows exactly the rows read.
        (Some(0), _) => (off, open(end)),
        // A known number of rows, going forwards: the first ones.
        (_, Some(n)) if n > 0 && !backwards => (off, Some(off + n)),
        // The sequence allows `e` steps more than are read: going
        // backwards, the first `e` are not read.
        (Some(e), _) => {
            if backwards {
                (off + e, open(end))
            } else {
                (off, open(end - e))
            }
        }
        // A known number of rows of a sequence of symbolic length, going
        // backwards: the last ones.
        (None, Some(n)) if n > 0 => (end - n, open(end)),
        _ => return None,
    };
    let sliced = if start == 0 && stop.is_none() {
        x
    } else {
        slice(egraph, x, Some(start), stop, 1)
    };
    Some(if backwards {
        slice(egraph, sliced, None, None, -1)
    } else {
        sliced
    })
}

/// For a loop reading a sequence whose length is unrelated to the step
/// count (`n_steps N` over `T` rows), the steps that sequence allows: a
/// term of it can be computed on all of them before the loop and passed
/// in as a new sequence, of which the loop reads the first `N` (the last
/// `N` going backwards). `None` when every sequence's rows can be cut to
/// the step count with literal bounds.
pub fn long_rows(egraph: &EGraph, scan: &ScanNode) -> Option<Dim> {
    let steps = scan.steps(egraph)?;
    (0..scan.sig.n_seqs()).find_map(|seq| {
        let len = egraph[scan.seq_outer(seq)]
            .data
            .ty()?
            .shape
            .first()?
            .clone();
        let allowed = scan.sig.seq_window(seq).steps_in_dim(&len);
        let cut = allowed.sub(&steps).as_known().is_some() || steps.as_known().is_some();
        (!cut && allowed != Dim::Unknown).then_some(allowed)
    })
}

/// `x` with its leading axis reversed (`(slice x none none -1)`).
pub fn reversed(egraph: &mut EGraph, x: Id) -> Id {
    slice(egraph, x, None, None, -1)
}

/// The class of `(slice x none none -1)`, if the e-graph holds it (the
/// lookup-only twin of [`reversed`]).
pub fn find_reversed(egraph: &EGraph, x: Id) -> Option<Id> {
    let open = egraph.lookup(TNode::leaf(Head::NoneBound))?;
    let step = egraph.lookup(TNode::lit(crate::lang::Scalar::I64(-1)))?;
    egraph.lookup(TNode {
        head: Head::Op(OpKind::Slice),
        children: vec![x, open, open, step],
    })
}

/// `(slice x start stop step)` along axis 0 (`None`: an open bound).
pub(crate) fn slice(
    egraph: &mut EGraph,
    x: Id,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> Id {
    let mut bound = |v: Option<i64>| match v {
        Some(v) => lit(egraph, v),
        None => egraph.add(TNode::leaf(Head::NoneBound)),
    };
    let a = bound(start);
    let b = bound(stop);
    let s = lit(egraph, step);
    op(egraph, OpKind::Slice, vec![x, a, b, s])
}

fn transpose(egraph: &mut EGraph, x: Id, perm: &[i64]) -> Id {
    let mut c = vec![x];
    for p in perm {
        c.push(lit(egraph, *p));
    }
    op(egraph, OpKind::Transpose, c)
}

/// Shifts a per-step axis to the outer term's axes.
fn shift_axis(a: i64) -> i64 {
    if a >= 0 {
        a + 1
    } else {
        a
    }
}

fn rank(egraph: &EGraph, id: Id) -> Option<usize> {
    egraph[id].data.ty().map(|t| t.ndim())
}

impl Vectorizer {
    /// A vectorizer for `scan` whose parameters map to `params` (`None`:
    /// forbidden) and whose classes in `leaves` have a known outer form.
    pub fn new(scan: &ScanNode, egraph: &EGraph, params: Vec<Option<Outer>>) -> Option<Self> {
        Some(Self::with_rows(params, scan.steps(egraph)?))
    }

    /// A vectorizer whose batched terms have `rows` rows (the step count,
    /// or more: see [`long_rows`]).
    pub fn with_rows(params: Vec<Option<Outer>>, rows: Dim) -> Self {
        Vectorizer {
            params,
            leaves: BTreeMap::new(),
            steps: rows,
            memo: BTreeMap::new(),
            busy: BTreeSet::new(),
        }
    }

    /// The usual parameter map: sequence taps by their slices (batched),
    /// non-sequences by their outer values (not batched), states
    /// forbidden. `allow_seqs: false` forbids sequences too.
    pub fn standard_params(
        egraph: &mut EGraph,
        scan: &ScanNode,
        allow_seqs: bool,
    ) -> Vec<Option<Outer>> {
        match scan.steps(egraph) {
            Some(steps) => Self::params_over(egraph, scan, allow_seqs, &steps),
            None => Self::params_over(egraph, scan, false, &Dim::Unknown),
        }
    }

    /// [`Self::standard_params`] with sequences read over `rows` rows
    /// ([`sequence_rows`]); a sequence that cannot be is forbidden.
    pub fn params_over(
        egraph: &mut EGraph,
        scan: &ScanNode,
        allow_seqs: bool,
        rows: &Dim,
    ) -> Vec<Option<Outer>> {
        scan.sig
            .body_params()
            .iter()
            .map(|i| match i {
                BodyParam::Sequence { seq, tap } if allow_seqs => {
                    sequence_rows(egraph, scan, *seq, *tap, rows)
                        .map(|id| Outer { id, batched: true })
                }
                BodyParam::NonSequence(k) => Some(Outer {
                    id: scan.non_seq_outer(*k),
                    batched: false,
                }),
                _ => None,
            })
            .collect()
    }

    /// Gives class `c` the outer form `o`.
    pub fn set_leaf(&mut self, c: Id, o: Outer) {
        self.leaves.insert(c, o);
    }

    /// The outer form of body class `c`, if it has a term over the allowed
    /// parameters that this file can vectorize.
    pub fn outer(&mut self, egraph: &mut EGraph, c: Id) -> Option<Outer> {
        self.visit(egraph, egraph.find(c), 0)
    }

    fn visit(&mut self, egraph: &mut EGraph, c: Id, depth: usize) -> Option<Outer> {
        if let Some(o) = self.leaves.get(&c) {
            return Some(*o);
        }
        if let Some(r) = self.memo.get(&c) {
            return *r;
        }
        // Every term of the class reads a parameter it may not read (the
        // dependence set holds only such parameters): no term to try.
        // Classes given an outer form could be inside one, so only without
        // them.
        if self.leaves.is_empty()
            && egraph[c]
                .data
                .deps
                .iter()
                .any(|p| !matches!(self.params.get(*p), Some(Some(_))))
        {
            self.memo.insert(c, None);
            return None;
        }
        if depth > MAX_DEPTH || !self.busy.insert(c) {
            return None;
        }
        let mut result = None;
        let mut i = 0;
        while let Some(n) = egraph[c].nodes.get(i).cloned() {
            if let Some(o) = self.node(egraph, c, &n, depth) {
                result = Some(o);
                break;
            }
            i += 1;
        }
        self.busy.remove(&c);
        self.memo.insert(c, result);
        result
    }

    fn node(&mut self, egraph: &mut EGraph, c: Id, n: &TNode, depth: usize) -> Option<Outer> {
        let step_ty = egraph[c].data.ty()?.clone();
        let out = match &n.head {
            Head::Arg(k, _) => return *self.params.get(*k)?,
            Head::Lit(_) | Head::Size(_) | Head::Input(..) => {
                return Some(Outer {
                    id: egraph.add(n.clone()),
                    batched: false,
                })
            }
            Head::Op(OpKind::Proj) | Head::Scan(_) | Head::Outputs => return None,
            Head::NoneBound | Head::DType(_) | Head::Type(_) => return None,
            Head::Op(name) => {
                let (op_, vargs) = node_op(egraph, *name, &n.children)?;
                let mut outs = Vec::with_capacity(vargs.len());
                for a in &vargs {
                    outs.push(self.visit(egraph, egraph.find(*a), depth + 1)?);
                }
                if outs.iter().all(|o| !o.batched) {
                    // Loop-invariant: the same node over the outer values.
                    // Each child is replaced once, from the original: an
                    // outer value may be the very class of another inner
                    // parameter (parameters are numbered per scope, so a
                    // nested body's Arg 5 and its enclosing body's Arg 5 are
                    // one class), and replacing in sequence would map it
                    // again.
                    let mut children = n.children.clone();
                    for ch in children.iter_mut() {
                        let orig = egraph.find(*ch);
                        if let Some((_, o)) = vargs
                            .iter()
                            .zip(&outs)
                            .find(|(a, _)| egraph.find(**a) == orig)
                        {
                            *ch = o.id;
                        }
                    }
                    let id = op(egraph, *name, children);
                    Outer { id, batched: false }
                } else {
                    let id = self.batched_node(egraph, *name, &op_, n, &vargs, &outs, &step_ty)?;
                    Outer { id, batched: true }
                }
            }
        };
        // The result must have exactly the type it stands for.
        let want: Vec<Dim> = if out.batched {
            std::iter::once(self.steps.clone())
                .chain(step_ty.shape.iter().cloned())
                .collect()
        } else {
            step_ty.shape.clone()
        };
        match &egraph[out.id].data.kind {
            Kind::Value(t) if t.dtype == step_ty.dtype && t.shape == want => Some(out),
            _ => None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn batched_node(
        &self,
        egraph: &mut EGraph,
        name: OpKind,
        op_: &Op,
        n: &TNode,
        vargs: &[Id],
        outs: &[Outer],
        step_ty: &Type,
    ) -> Option<Id> {
        let r_of = |egraph: &EGraph, i: usize| rank(egraph, vargs[i]);
        match op_ {
            Op::Unary(_) | Op::Cast(_) => {
                let mut children = n.children.clone();
                let last = children.len() - 1;
                children[last] = outs[0].id;
                Some(op(egraph, name, children))
            }
            // fold_in broadcasts its key and index as a binary op does
            Op::Binary(_) | Op::Compare(_) | Op::Where | Op::FoldIn => {
                let r = step_ty.ndim();
                let mut children = Vec::new();
                for (i, o) in outs.iter().enumerate() {
                    let mut id = o.id;
                    if o.batched {
                        for _ in r_of(egraph, i)?..r {
                            id = expand_dims(egraph, id, 1);
                        }
                    }
                    children.push(id);
                }
                Some(op(egraph, name, children))
            }
            Op::Reduce(_, axis) => {
                let x = outs[0].id;
                match axis {
                    Some(a) => {
                        let a = lit(egraph, shift_axis(*a));
                        Some(op(egraph, name, vec![x, a]))
                    }
                    None => {
                        let r = r_of(egraph, 0)?;
                        // Reducing a row's axes one at a time is the
                        // reduction of all of them, except for an index
                        // into the flattened row.
                        let arg = matches!(op_, Op::Reduce(ReduceOp::Argmax | ReduceOp::Argmin, _));
                        if r == 0 || (arg && r > 1) {
                            return None;
                        }
                        let mut id = x;
                        for _ in 0..r {
                            let a = lit(egraph, 1);
                            id = op(egraph, name, vec![id, a]);
                        }
                        Some(id)
                    }
                }
            }
            Op::Cumulative(_, a) | Op::Normalize(_, a) => {
                let a = lit(egraph, shift_axis(*a));
                Some(op(egraph, name, vec![outs[0].id, a]))
            }
            Op::Dot | Op::Matmul => self.product(egraph, op_, vargs, outs),
            Op::Transpose(perm) => {
                let r = r_of(egraph, 0)? as i64;
                let p: Vec<i64> = match perm {
                    None => (0..r).rev().collect(),
                    Some(p) => p.iter().map(|a| if *a < 0 { a + r } else { *a }).collect(),
                };
                let full: Vec<i64> = std::iter::once(0).chain(p.iter().map(|a| a + 1)).collect();
                Some(transpose(egraph, outs[0].id, &full))
            }
            Op::ExpandDims(a) => Some(expand_dims(egraph, outs[0].id, shift_axis(*a))),
            Op::Reshape(_) => {
                let s = super::build::steps_leaf(egraph, &self.steps)?;
                let mut children = vec![outs[0].id, s];
                children.extend(n.children[1..].iter().copied());
                Some(op(egraph, name, children))
            }
            Op::Index => {
                if outs[1..].iter().any(|o| o.batched) || !outs[0].batched {
                    return None;
                }
                let r = r_of(egraph, 0)? as i64;
                let m = (outs.len() - 1) as i64;
                // Bring the indexed axes before the time axis.
                let perm: Vec<i64> = (1..=m).chain(std::iter::once(0)).chain(m + 1..=r).collect();
                let t = transpose(egraph, outs[0].id, &perm);
                let mut children = vec![t];
                children.extend(outs[1..].iter().map(|o| o.id));
                Some(op(egraph, name, children))
            }
            Op::Slice { .. } => {
                let r = r_of(egraph, 0)? as i64;
                if r == 0 {
                    return None;
                }
                let perm: Vec<i64> = [1, 0].into_iter().chain(2..=r).collect();
                let t = transpose(egraph, outs[0].id, &perm);
                let mut children = n.children.clone();
                children[0] = t;
                let s = op(egraph, name, children);
                Some(transpose(egraph, s, &perm))
            }
            Op::Stack => {
                if outs.iter().any(|o| !o.batched) {
                    return None;
                }
                let r = r_of(egraph, 0)? as i64;
                let s = op(egraph, name, outs.iter().map(|o| o.id).collect());
                let perm: Vec<i64> = [1, 0].into_iter().chain(2..=r + 1).collect();
                Some(transpose(egraph, s, &perm))
            }
            // A draw from an array of keys is one draw per key, laid out
            // after the keys' axes: the draws of every step's key are the
            // per-step draws stacked, bit for bit. A per-step P or LOGITS
            // has no such form.
            Op::Split(_) | Op::Uniform(_) | Op::Normal(_) | Op::Bernoulli | Op::Categorical => {
                if !outs[0].batched || outs[1..].iter().any(|o| o.batched) {
                    return None;
                }
                let mut children = n.children.clone();
                children[0] = outs[0].id;
                Some(op(egraph, name, children))
            }
            Op::Concat(a) => {
                if outs.iter().any(|o| !o.batched) {
                    return None;
                }
                let mut children = vec![lit(egraph, shift_axis(*a))];
                children.extend(outs.iter().map(|o| o.id));
                Some(op(egraph, name, children))
            }
            _ => None,
        }
    }

    /// `dot` or `matmul` with at least one batched operand.
    fn product(&self, egraph: &mut EGraph, op_: &Op, vargs: &[Id], outs: &[Outer]) -> Option<Id> {
        let (ra, rb) = (rank(egraph, vargs[0])?, rank(egraph, vargs[1])?);
        let (a, b) = (outs[0], outs[1]);
        let is_dot = matches!(op_, Op::Dot);
        let dot = |egraph: &mut EGraph, x, y| op(egraph, OpKind::Dot, vec![x, y]);
        let matmul = |egraph: &mut EGraph, x, y| op(egraph, OpKind::Matmul, vec![x, y]);
        let mul = |egraph: &mut EGraph, x, y| op(egraph, OpKind::Binary(BinaryOp::Mul), vec![x, y]);
        let sum = |egraph: &mut EGraph, x, axis: i64| {
            let a = lit(egraph, axis);
            op(
                egraph,
                OpKind::Reduce(crate::lang::ReduceOp::Sum),
                vec![x, a],
            )
        };
        match (a.batched, b.batched, ra, rb) {
            // x_t · B (B a vector or a matrix): one product of the stacked rows.
            (true, false, 1, 1 | 2) => Some(if is_dot {
                dot(egraph, a.id, b.id)
            } else {
                matmul(egraph, a.id, b.id)
            }),
            // A_t · B
            (true, false, 2, 1 | 2) => Some(matmul(egraph, a.id, b.id)),
            // A · x_t = (X · Aᵀ) row by row
            (false, true, 2, 1) => {
                let at = transpose(egraph, a.id, &[1, 0]);
                Some(dot(egraph, b.id, at))
            }
            // a · x_t (vectors)
            (false, true, 1, 1) => Some(dot(egraph, b.id, a.id)),
            // A · B_t, a · B_t
            (false, true, 1 | 2, 2) => Some(matmul(egraph, a.id, b.id)),
            // x_t · y_t
            (true, true, 1, 1) => {
                let m = mul(egraph, a.id, b.id);
                Some(sum(egraph, m, 1))
            }
            // A_t · x_t
            (true, true, 2, 1) => {
                let x = expand_dims(egraph, b.id, 1);
                let m = mul(egraph, a.id, x);
                Some(sum(egraph, m, 2))
            }
            // x_t · B_t
            (true, true, 1, 2) => {
                let x = expand_dims(egraph, a.id, 2);
                let m = mul(egraph, x, b.id);
                Some(sum(egraph, m, 1))
            }
            (true, true, 2, 2) => Some(matmul(egraph, a.id, b.id)),
            // Batched matrix products (`matmul` of stacks of matrices):
            // the operand with fewer batch axes gets length-1 axes after
            // the time axis, so that its batch axes line up with the
            // other's and the time axis with the time axis or with nothing
            // (x_t (M,D) @ W (4,D,N): (T,1,M,D) @ (4,D,N) → (T,4,M,N)).
            (_, _, 2.., 2..) if !is_dot => {
                // A batched operand needs as many axes after its time axis
                // as the other operand has in one step.
                let pad = |egraph: &mut EGraph, o: Outer, mine: usize, other: usize| {
                    if !o.batched {
                        return o.id;
                    }
                    (mine..other).fold(o.id, |id, _| expand_dims(egraph, id, 1))
                };
                let x = pad(egraph, a, ra, rb);
                let y = pad(egraph, b, rb, ra);
                Some(matmul(egraph, x, y))
            }
            _ => None,
        }
    }
}
