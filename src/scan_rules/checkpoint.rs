//! `scan-checkpoint`: a backward loop that reads a forward loop's saved
//! trace becomes one that recomputes it segment by segment from
//! checkpoints (store or recompute, chosen by the cost model; research
//! §1.10, §3.5 and §6.4 of the shared notes: PyTensor's `scan_checkpoints`
//! and JAX's `remat` of a scan, here an e-graph alternative).
//!
//! The pair it rewrites is what the gradient of a sit-sot loop builds: a
//! forward loop `F` (one sit-sot `h`, init `h0`, sequences at tap 0, no
//! `n_steps`) and a `go_backwards` loop `B` over the same `T` steps that
//! reads `h_{t-1}` as the sequence `(concat 0 (expand_dims h0 0) H)` at
//! tap -1, `H` being `F`'s trace. With `T = r + S·k` (`k` the divisor of
//! `T` nearest √T and `r = 0` when one lies within a factor 2 of √T;
//! otherwise `k = ⌊√T⌋` and `r = T mod k`, a prefix shorter than a
//! segment):
//!
//! - `Fck`, a loop over the `S` segments (each sequence of `F` reshaped to
//!   `(S, k, ...)`), runs `F`'s body as an inner loop of `k` steps from its
//!   carry and keeps only each segment's last state: the checkpoints;
//! - `Bck`, a `go_backwards` loop over the segments, recomputes each
//!   segment's states from its checkpoint (the inner loop of `Fck` again,
//!   the same body, so the same operations in the same order), then runs
//!   `B`'s body over the segment as an inner `go_backwards` loop of `k`
//!   steps. `B`'s states pass from segment to segment as carries: a
//!   sit-sot as itself, the tape of a sit-sot's cotangent (a mitmot with
//!   in taps `(0 1)`, out tap `(1)`, `T + 1` slots) as its last slot plus
//!   the segment's own `k` slots of the original tape; each mapped output
//!   becomes an accumulator of its per-segment sums;
//! - with a prefix (`r > 0`), `Fp` runs `F` over the first `r` steps (its
//!   `r` rows are stored: fewer than a segment's), `Fck` starts from its
//!   last state, and `Bp`, `B` over the first `r` steps reading `Fp`'s
//!   rows, takes over `Bck`'s states; `B`'s mapped outputs add `Bp`'s sums
//!   to `Bck`'s, and `F`'s start from `Fp`'s.
//!
//! The equalities unioned are those of the values the pair's consumers
//! read: `(index (proj j B) -1)` of each state, and `(sum (proj j B) 0)`
//! of each mapped output, equal `(index (proj j' Bck) -1)` (every output
//! of `Bck` keeps one step). A sum becomes a sum of per-segment sums: the
//! same value, rounded in another order.
//!
//! Memory: `F`'s trace (`T` rows) and `B`'s mapped outputs (`T` rows) are
//! replaced by `S` checkpoints and one segment's `k` rows at a time; the
//! work of `F` is done twice. Without a memory budget the stored form is
//! cheaper and wins; the rule is added to the optimizer only under
//! `--memory-budget`, where [`crate::extract::cost::CostModel`] prices
//! allocations over the budget.
//!
//! Does not fire on: a trace within the memory budget (nothing to save:
//! the loops the rule builds, each segment's and the prefix's, are such
//! loops); a step count not known from the sizes given (the segments are
//! reshapes of known sizes), or fewer than 4 steps; a
//! forward loop with more than one output, a tap other than 0, `n_steps`
//! or `keep`; a backward loop with `n_steps`, `keep`, a mit-sot, a mitmot
//! other than a sit-sot's tape of `T + 1` slots, a sequence other than
//! the trace at a tap other than 0, or `H` itself as a sequence (the form
//! of [`super::read_trace`]: it would still read all of `H`).

use super::build::steps_leaf;
use super::scan_node::ScanNode;
use super::terms::{concat0, index, lit, op};
use super::{proj, projs_in, union_checked, ScanClasses, MAX_VARIANTS};
use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::loop_type::sequence_step;
use crate::lang::{BinaryOp, Dim, LoopSig, OutputInfo, ReduceOp, Scalar, Type};
use egg::{Applier, Id, PatternAst, Rewrite, Subst, Symbol, Var};
use std::collections::BTreeMap;

/// The rule's name.
pub const NAME: &str = "scan-checkpoint";

/// The rule, for loops whose step counts evaluate with `sizes` (the
/// values of the symbolic sizes, as the run binds them), under a memory
/// budget of `budget` bytes.
pub fn rewrite(sizes: BTreeMap<String, i64>, budget: u64) -> super::ScanRewrite {
    Rewrite::new(NAME, ScanClasses, Checkpoint { sizes, budget })
}

/// The applier: the sizes that make a step count known, and the budget.
#[derive(Clone, Debug)]
struct Checkpoint {
    sizes: BTreeMap<String, i64>,
    /// A trace within it is left stored: checkpointing it would save
    /// nothing the cost model prices, and the loops the rule builds (each
    /// segment's, the prefix's) would be checkpointed in turn.
    budget: u64,
}

impl Applier<TNode, TensorAnalysis> for Checkpoint {
    fn apply_one(
        &self,
        egraph: &mut EGraph,
        eclass: Id,
        _subst: &Subst,
        _ast: Option<&PatternAst<TNode>>,
        rule: Symbol,
    ) -> Vec<Id> {
        if super::applications_stopped(egraph) {
            return Vec::new();
        }
        let mut changed = Vec::new();
        for b in ScanNode::all_in(egraph, eclass).iter().take(MAX_VARIANTS) {
            if egraph.analysis.out_of_time() {
                break;
            }
            changed.extend(self.rewrite_pair(egraph, b, rule));
        }
        changed
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

/// What the backward loop's trace sequence is made of (also read by
/// [`super::read_trace`], which rewrites the same pair).
pub(super) struct Trace {
    /// The position of the sequence among `B`'s sequences.
    pub(super) seq: usize,
    /// `h0`, the row before the trace.
    pub(super) h0: Id,
    /// The forward loops whose output 0 is the trace.
    pub(super) forwards: Vec<ScanNode>,
}

/// How one output of `B` passes from segment to segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Carried {
    /// A sit-sot: itself.
    State,
    /// A sit-sot's cotangent tape: its last slot.
    Tape,
    /// A mapped output: the sum of its steps.
    Summed,
}

impl Checkpoint {
    /// Builds the checkpointed form of `b` with each forward loop its trace
    /// comes from, and unions what `b`'s consumers read.
    fn rewrite_pair(&self, egraph: &mut EGraph, b: &ScanNode, rule: Symbol) -> Vec<Id> {
        let mut changed = Vec::new();
        let Some(plan) = self.plan(egraph, b) else {
            return changed;
        };
        let Some(trace) = find_trace(egraph, b, &plan.steps) else {
            return changed;
        };
        if !self.over_budget(egraph, trace.h0, &plan) {
            return changed;
        }
        for f in trace.forwards.iter().take(MAX_VARIANTS) {
            let Some(pair) = Pair::new(egraph, b, f, &trace, &plan) else {
                continue;
            };
            let Some(built) = pair.build(egraph) else {
                continue;
            };
            // The sums of F's mapped outputs (a loss summed in the loop;
            // the accumulators start from the prefix's sums).
            for j in 1..f.sig.outputs.len() {
                let old_out = proj(egraph, f.class, j);
                let old = sum_all(egraph, old_out);
                let new_out = proj(egraph, built.fck, j);
                let new = index(egraph, new_out, -1);
                if union_checked(egraph, rule, old, new) {
                    changed.push(old);
                }
            }
            for (j, carried) in plan.carried.iter().enumerate() {
                let old_out = proj(egraph, b.class, j);
                let old = match carried {
                    Carried::State | Carried::Tape => index(egraph, old_out, -1),
                    Carried::Summed => sum0(egraph, old_out),
                };
                let bck_out = proj(egraph, built.bck, j);
                let bck_last = index(egraph, bck_out, -1);
                let new = match (built.bp, carried) {
                    (None, _) => bck_last,
                    (Some(bp), Carried::State | Carried::Tape) => {
                        let out = proj(egraph, bp, j);
                        index(egraph, out, -1)
                    }
                    (Some(bp), Carried::Summed) => {
                        let out = proj(egraph, bp, j);
                        let s = sum0(egraph, out);
                        op(egraph, OpKind::Binary(BinaryOp::Add), vec![bck_last, s])
                    }
                };
                if union_checked(egraph, rule, old, new) {
                    changed.push(old);
                }
            }
        }
        changed
    }

    /// Whether the trace, `T` values of `h0`'s type, is over the budget
    /// (true when its size is not known).
    fn over_budget(&self, egraph: &EGraph, h0: Id, plan: &Plan) -> bool {
        let Some(ty) = egraph[h0].data.ty() else {
            return true;
        };
        let rows = plan.segments * plan.k + plan.prefix;
        let mut bytes = (rows as f64) * ty.dtype.size_bytes() as f64;
        for d in &ty.shape {
            match d.eval(&|s: &str| self.sizes.get(s).copied()) {
                Some(n) => bytes *= n as f64,
                None => return true,
            }
        }
        bytes > self.budget as f64
    }

    /// The segments and carried outputs of `b`, when it qualifies.
    fn plan(&self, egraph: &EGraph, b: &ScanNode) -> Option<Plan> {
        let sig = &b.sig;
        if !sig.go_backwards || sig.has_n_steps || !sig.keep.is_empty() {
            return None;
        }
        let steps = b.steps(egraph)?;
        let t = steps.eval(&|s: &str| self.sizes.get(s).copied())?;
        let (k, prefix) = segments(t)?;
        let mut carried = Vec::new();
        for (j, info) in sig.outputs.iter().enumerate() {
            carried.push(match info {
                OutputInfo::Sitsot => Carried::State,
                OutputInfo::Nitsot => Carried::Summed,
                OutputInfo::Mitmot { in_taps, out_taps }
                    if in_taps.as_slice() == [0, 1] && out_taps.as_slice() == [1] =>
                {
                    // The tape must be the loop's steps plus one slot.
                    let tape = b.init_outer(j)?;
                    let slots = egraph[tape].data.ty()?.shape.first()?.clone();
                    if slots.sub(&steps).as_known()? != 1 {
                        return None;
                    }
                    Carried::Tape
                }
                _ => return None,
            });
        }
        Some(Plan {
            steps,
            segments: (t - prefix) / k,
            k,
            prefix,
            carried,
        })
    }
}

/// The segments of `t` steps, `(k, r)`: `t = r + S·k` with `S, k ≥ 2`.
/// `k` is the divisor of `t` nearest √t when one lies within a factor 2
/// of it (`r = 0`: no prefix); otherwise `k = ⌊√t⌋` and `r = t mod k`
/// (`r < k`: the prefix's stored rows are fewer than a segment's). None
/// below 4 steps.
fn segments(t: i64) -> Option<(i64, i64)> {
    if t < 4 {
        return None;
    }
    let root = (t as f64).sqrt();
    let divisor = (2..=t / 2)
        .take_while(|k| k * k <= 4 * t)
        .filter(|k| 4 * k * k >= t && t % k == 0 && t / k >= 2)
        .min_by(|a, b| {
            let da = (*a as f64 - root).abs();
            let db = (*b as f64 - root).abs();
            da.total_cmp(&db)
        });
    if let Some(k) = divisor {
        return Some((k, 0));
    }
    // ⌊√t⌋ in integers (the float root may be off by one near squares).
    let mut k = root as i64;
    while k * k > t {
        k -= 1;
    }
    while (k + 1) * (k + 1) <= t {
        k += 1;
    }
    Some((k, t % k))
}

/// The segments of a backward loop.
struct Plan {
    /// The step count (symbolic).
    steps: Dim,
    /// The number of segments, `S`.
    segments: i64,
    /// The steps of one segment, `k`.
    k: i64,
    /// The steps before the first segment, `r` (`T = r + S·k`).
    prefix: i64,
    /// How each output passes between segments.
    carried: Vec<Carried>,
}

/// The sequence of `b` that is `(concat 0 (expand_dims h0 0) H)` at tap
/// -1 with `H` the output 0 of forward loops over `steps` steps whose init
/// is `h0`.
pub(super) fn find_trace(egraph: &EGraph, b: &ScanNode, steps: &Dim) -> Option<Trace> {
    for (i, taps) in b.sig.sequences.iter().enumerate() {
        if taps.as_slice() != [-1] {
            continue;
        }
        let outer = b.seq_outer(i);
        for n in &egraph[outer].nodes {
            if n.head != Head::Op(OpKind::Concat) || n.children.len() != 3 {
                continue;
            }
            if int_of(egraph, n.children[0]) != Some(0) {
                continue;
            }
            let Some(h0) = expand_dims0_arg(egraph, n.children[1]) else {
                continue;
            };
            let forwards: Vec<ScanNode> = projs_in(egraph, n.children[2])
                .into_iter()
                .filter(|(k, _)| *k == 0)
                .flat_map(|(_, s)| ScanNode::all_in(egraph, s))
                .filter(|f| is_forward(egraph, f, h0, steps))
                .collect();
            if !forwards.is_empty() {
                return Some(Trace {
                    seq: i,
                    h0,
                    forwards,
                });
            }
        }
    }
    None
}

/// True for a forward loop of a sit-sot with init `h0` (then only mapped
/// outputs), over `steps` steps, sequences at tap 0, without `n_steps` or
/// `keep`.
fn is_forward(egraph: &EGraph, f: &ScanNode, h0: Id, steps: &Dim) -> bool {
    let sig = &f.sig;
    !sig.go_backwards
        && !sig.has_n_steps
        && sig.keep.is_empty()
        && !sig.sequences.is_empty()
        && sig.sequences.iter().all(|t| t.as_slice() == [0])
        && sig.outputs.first() == Some(&OutputInfo::Sitsot)
        && sig.outputs[1..].iter().all(|o| *o == OutputInfo::Nitsot)
        && f.init_outer(0).map(|i| egraph.find(i)) == Some(egraph.find(h0))
        && f.steps(egraph).as_ref() == Some(steps)
}

/// The argument of an `(expand_dims X 0)` node of `class`.
fn expand_dims0_arg(egraph: &EGraph, class: Id) -> Option<Id> {
    egraph[class].nodes.iter().find_map(|n| {
        (n.head == Head::Op(OpKind::ExpandDims)
            && n.children.len() == 2
            && int_of(egraph, n.children[1]) == Some(0))
        .then(|| n.children[0])
    })
}

fn int_of(egraph: &EGraph, c: Id) -> Option<i64> {
    egraph[c].nodes.iter().find_map(|n| match n.head {
        Head::Lit(crate::egraph::term::Lit(Scalar::I64(v))) => Some(v),
        _ => None,
    })
}

/// The class of `(proj k scan)` if the e-graph has that node.
fn projs_in_class(egraph: &EGraph, scan: Id, k: usize) -> Option<Id> {
    let kl = egraph.lookup(TNode::lit(Scalar::I64(k as i64)))?;
    egraph.lookup(TNode {
        head: Head::Op(OpKind::Proj),
        children: vec![kl, scan],
    })
}

/// A backward loop, the forward loop of its trace, and its segments.
struct Pair<'a> {
    b: &'a ScanNode,
    f: &'a ScanNode,
    trace_seq: usize,
    h0: Id,
    plan: &'a Plan,
    /// The type of `h` (one state).
    state: Type,
}

impl<'a> Pair<'a> {
    fn new(
        egraph: &EGraph,
        b: &'a ScanNode,
        f: &'a ScanNode,
        trace: &Trace,
        plan: &'a Plan,
    ) -> Option<Pair<'a>> {
        // Every other sequence of `b` is read at tap 0.
        let other_taps_zero = b
            .sig
            .sequences
            .iter()
            .enumerate()
            .all(|(i, t)| i == trace.seq || t.as_slice() == [0]);
        if !other_taps_zero {
            return None;
        }
        // A loop that reads the trace itself as well (`scan-read-trace`'s
        // form) would still need all of it: nothing to save.
        let h = projs_in_class(egraph, f.class, 0);
        let reads_trace = (0..b.sig.sequences.len())
            .any(|i| i != trace.seq && Some(egraph.find(b.seq_outer(i))) == h);
        if reads_trace {
            return None;
        }
        let state = egraph[trace.h0].data.ty()?.clone();
        Some(Pair {
            b,
            f,
            trace_seq: trace.seq,
            h0: trace.h0,
            plan,
            state,
        })
    }

    /// `S·k` of the `T` rows of `x` (`rows`: its last ones, or its first
    /// ones) as `(S, k, ...)`.
    fn segmented(&self, egraph: &mut EGraph, x: Id, rows: Rows) -> Option<Id> {
        let ty = egraph[x].data.ty()?.clone();
        let (len, rest) = ty.shape.split_first()?;
        if *len != self.plan.steps {
            return None;
        }
        // Bounds counted from the end where the length is `T - r`, so
        // that the slice's length is `T`'s expression minus a constant.
        let r = self.plan.prefix;
        let x = match rows {
            _ if r == 0 => x,
            Rows::Last => super::vectorize::slice(egraph, x, Some(r), None, 1),
            Rows::First => super::vectorize::slice(egraph, x, Some(0), Some(-r), 1),
        };
        let mut sizes = vec![lit(egraph, self.plan.segments), lit(egraph, self.plan.k)];
        for d in rest {
            sizes.push(steps_leaf(egraph, d)?);
        }
        let mut children = vec![x];
        children.extend(sizes);
        Some(op(egraph, OpKind::Reshape, children))
    }

    /// The inner forward loop of one segment: `F`'s body over the params
    /// `seqs` (one segment of each of `F`'s sequences), from the state
    /// `carry`, with `F`'s non-sequences `non_seqs`; its trace (`k` rows).
    fn inner_forward(&self, egraph: &mut EGraph, seqs: &[Id], carry: Id, non_seqs: &[Id]) -> Id {
        let inner = self.inner_loop(egraph, seqs, carry, non_seqs);
        proj(egraph, inner, 0)
    }

    /// The inner forward loop itself (see [`Self::inner_forward`]).
    fn inner_loop(&self, egraph: &mut EGraph, seqs: &[Id], carry: Id, non_seqs: &[Id]) -> Id {
        let mut children = self.f.body.clone();
        children.extend_from_slice(seqs);
        children.push(carry);
        children.extend_from_slice(non_seqs);
        egraph.add(TNode {
            head: Head::Scan(self.f.sig.clone()),
            children,
        })
    }

    /// The first `r` rows of `x` (`T` rows), as `x[0 : -S·k]`: a length
    /// of `T`'s expression minus a constant (a slice `x[0 : r]` of a
    /// symbolic `T` has no known length: `T` might be below `r`).
    fn prefix_rows(&self, egraph: &mut EGraph, x: Id) -> Id {
        let covered = self.plan.segments * self.plan.k;
        super::vectorize::slice(egraph, x, Some(0), Some(-covered), 1)
    }

    /// `Fp`: `F` over the prefix's `r` steps, from `h0`.
    fn prefix_forward(&self, egraph: &mut EGraph) -> Id {
        let f = self.f;
        let mut children = f.body.clone();
        let mut args = f.args.clone();
        for (i, arg) in args.iter_mut().enumerate().take(f.sig.sequences.len()) {
            *arg = self.prefix_rows(egraph, f.seq_outer(i));
        }
        children.extend(args);
        egraph.add(TNode {
            head: Head::Scan(f.sig.clone()),
            children,
        })
    }

    /// `Bp`: `B` over the prefix's `r` steps (the last it runs), reading
    /// `Fp`'s rows, from `Bck`'s states: a tape is its slots `S·k ..= T`
    /// with the first one `Bck`'s carry.
    fn prefix_backward(&self, egraph: &mut EGraph, fp: Id, bck: Id) -> Option<Id> {
        let b = self.b;
        let r = self.plan.prefix;
        let covered = self.plan.segments * self.plan.k;
        let mut args = b.args.clone();
        for (i, arg) in args.iter_mut().enumerate().take(b.sig.sequences.len()) {
            *arg = if i == self.trace_seq {
                let h0_row = expand_dims0(egraph, self.h0);
                let rows = proj(egraph, fp, 0);
                concat0(egraph, vec![h0_row, rows])
            } else {
                self.prefix_rows(egraph, b.seq_outer(i))
            };
        }
        for (j, c) in self.plan.carried.iter().enumerate() {
            let out = proj(egraph, bck, j);
            let carry = index(egraph, out, -1);
            let init = match c {
                Carried::State => carry,
                Carried::Tape => {
                    let tape = b.init_outer(j)?;
                    let carry_row = expand_dims0(egraph, carry);
                    match self.reversed_tape(egraph, tape) {
                        // Slot i < T is R's row T-1-i, slot T is LAST.
                        Some((rev, last)) if r >= 2 => {
                            let head = super::vectorize::slice(
                                egraph,
                                rev,
                                Some(0),
                                Some(-(covered + 1)),
                                1,
                            );
                            let rows = flip0(egraph, head);
                            concat0(egraph, vec![carry_row, rows, last])
                        }
                        Some((_, last)) => concat0(egraph, vec![carry_row, last]),
                        None => {
                            let rest = slice_from(egraph, tape, covered + 1);
                            concat0(egraph, vec![carry_row, rest])
                        }
                    }
                }
                Carried::Summed => continue,
            };
            *args.get_mut(b.sig.init_arg(j)?)? = init;
        }
        let mut children = b.body.clone();
        children.extend(args);
        Some(egraph.add(TNode {
            head: Head::Scan(b.sig.clone()),
            children,
        }))
    }

    /// `Fck`: the checkpoints, the state after each segment (`S` rows,
    /// its output 0), and the sum of each of `F`'s mapped outputs (its
    /// output `j`, one step kept), from the state `start` (after the
    /// prefix `fp`, if any); returns the loop's class.
    fn checkpoints(&self, egraph: &mut EGraph, start: Id, fp: Option<Id>) -> Option<Id> {
        let f = self.f;
        let mut outer = Vec::new();
        for i in 0..f.sig.sequences.len() {
            outer.push(self.segmented(egraph, f.seq_outer(i), Rows::Last)?);
        }
        let ns_outer: Vec<Id> = (0..f.sig.n_non_seqs).map(|j| f.non_seq_outer(j)).collect();
        let n_out = f.sig.outputs.len();
        // The accumulators of the mapped outputs' sums come after the
        // checkpoints' carry among the parameters (states before
        // non-sequences): renumber the non-sequences.
        let mut params = Params::default();
        let seqs: Vec<Id> = outer
            .iter()
            .map(|&o| params.sequence(egraph, o))
            .collect::<Option<_>>()?;
        let carry = params.state(egraph, self.state.clone());
        let mut accs = Vec::new();
        let mut acc_inits = Vec::new();
        let out_tys = f.output_types(egraph)?;
        for (j, ty) in out_tys.iter().enumerate().skip(1) {
            let scalar = Type::new(ty.dtype, Vec::new());
            acc_inits.push(match fp {
                Some(fp) => {
                    let out = proj(egraph, fp, j);
                    sum_all(egraph, out)
                }
                None => zeros(egraph, &scalar)?,
            });
            accs.push(params.state(egraph, scalar));
        }
        let ns: Vec<Id> = ns_outer
            .iter()
            .map(|&o| params.non_seq(egraph, o))
            .collect::<Option<_>>()?;
        let inner = self.inner_loop(egraph, &seqs, carry, &ns);
        let trace = proj(egraph, inner, 0);
        let mut body = vec![index(egraph, trace, -1)];
        for (j, acc) in accs.iter().enumerate() {
            let out = proj(egraph, inner, j + 1);
            let s = sum_all(egraph, out);
            body.push(op(egraph, OpKind::Binary(BinaryOp::Add), vec![*acc, s]));
        }
        let mut children = body;
        children.extend(outer);
        children.push(start);
        children.extend(acc_inits);
        children.extend(ns_outer);
        let mut keep = vec![None];
        keep.extend((1..n_out).map(|_| Some(1)));
        let sig = LoopSig {
            sequences: vec![vec![0]; f.sig.sequences.len()],
            outputs: vec![OutputInfo::Sitsot; n_out],
            n_non_seqs: f.sig.n_non_seqs,
            has_n_steps: false,
            go_backwards: false,
            keep: LoopSig::keep_list(keep),
            until: false,
            as_list: Vec::new(),
        };
        Some(egraph.add(TNode {
            head: Head::Scan(sig),
            children,
        }))
    }

    /// `Bck`, the backward loop over the segments, `Fck`, and the
    /// prefix's loops.
    fn build(&self, egraph: &mut EGraph) -> Option<Built> {
        let (b, f) = (self.b, self.f);
        let fp = (self.plan.prefix > 0).then(|| self.prefix_forward(egraph));
        let start = match fp {
            Some(fp) => {
                let rows = proj(egraph, fp, 0);
                index(egraph, rows, -1)
            }
            None => self.h0,
        };
        let fck = self.checkpoints(egraph, start, fp)?;
        let checkpoints = proj(egraph, fck, 0);
        // Sequences: F's, the checkpoints before each segment, B's other
        // sequences, then each tape's slots 1 ..= S·k in segments.
        let mut seq_outer = Vec::new();
        for i in 0..f.sig.sequences.len() {
            seq_outer.push(self.segmented(egraph, f.seq_outer(i), Rows::Last)?);
        }
        let start_row = expand_dims0(egraph, start);
        let before = concat0(egraph, vec![start_row, checkpoints]);
        let ck_at = seq_outer.len();
        seq_outer.push(before);
        let mut b_seq_at = vec![None; b.sig.sequences.len()];
        for (i, at) in b_seq_at.iter_mut().enumerate() {
            if i != self.trace_seq {
                *at = Some(seq_outer.len());
                seq_outer.push(self.segmented(egraph, b.seq_outer(i), Rows::Last)?);
            }
        }
        let mut tape_rows_at = vec![None; b.sig.outputs.len()];
        let mut tape_first = vec![None; b.sig.outputs.len()];
        for (j, c) in self.plan.carried.iter().enumerate() {
            if *c != Carried::Tape {
                continue;
            }
            let tape = b.init_outer(j)?;
            match self.reversed_tape(egraph, tape) {
                Some((rev, last)) => {
                    // Slots 1 ..= T from the rows of `rev` (time order)
                    // and the slot after each segment: no copy of the tape.
                    let seg = self.segmented(egraph, rev, Rows::Last)?;
                    // The slot after the earliest segment: LAST, or the
                    // prefix's last row.
                    let r = self.plan.prefix;
                    let after = match r {
                        0 => last,
                        _ => {
                            let row = index(egraph, rev, r - 1);
                            expand_dims0(egraph, row)
                        }
                    };
                    let next = self.next_slots(egraph, seg, after)?;
                    tape_rows_at[j] = Some(TapeRows::Reversed {
                        rows: seq_outer.len(),
                        next: seq_outer.len() + 1,
                    });
                    seq_outer.push(seg);
                    seq_outer.push(next);
                    tape_first[j] = Some(index(egraph, rev, -1));
                }
                None => {
                    // Slots 1 ..= T in the order the steps write them; the
                    // loop over segments goes backwards, so flipped.
                    let rows = slice_from(egraph, tape, 1);
                    let seg = self.segmented(egraph, rows, Rows::First)?;
                    tape_rows_at[j] = Some(TapeRows::Slots(seq_outer.len()));
                    seq_outer.push(flip0(egraph, seg));
                }
            }
        }
        let mut seq_taps = vec![vec![0]; seq_outer.len()];
        seq_taps[ck_at] = vec![-1];
        // Parameters, in `fn` order.
        let mut params = Params::default();
        let mut seq_params = Vec::new();
        for (o, taps) in seq_outer.iter().zip(&seq_taps) {
            let ty = egraph[*o].data.ty()?.clone();
            let step = match taps.as_slice() {
                [0] => sequence_step(0, &ty).ok()?,
                // The checkpoints at tap -1: one state.
                _ => self.state.clone(),
            };
            seq_params.push(params.typed(egraph, step));
        }
        let mut inits = Vec::new();
        let mut state_params = Vec::new();
        for (j, c) in self.plan.carried.iter().enumerate() {
            let (init, ty) = match c {
                Carried::State => {
                    let i = b.init_outer(j)?;
                    (i, egraph[i].data.ty()?.clone())
                }
                Carried::Tape => {
                    let row = match tape_first[j] {
                        Some(r) => r,
                        None => {
                            let tape = b.init_outer(j)?;
                            index(egraph, tape, 0)
                        }
                    };
                    (row, egraph[row].data.ty()?.clone())
                }
                Carried::Summed => {
                    let ty = b.output_types(egraph)?.get(j)?.clone();
                    let step = Type::new(ty.dtype, ty.shape.get(1..)?.to_vec());
                    (zeros(egraph, &step)?, step)
                }
            };
            inits.push(init);
            state_params.push(params.state(egraph, ty));
        }
        let mut ns_outer = Vec::new();
        let mut b_ns = Vec::new();
        for j in 0..b.sig.n_non_seqs {
            let o = b.non_seq_outer(j);
            b_ns.push(params.non_seq(egraph, o)?);
            ns_outer.push(o);
        }
        let mut f_ns = Vec::new();
        for j in 0..f.sig.n_non_seqs {
            let o = f.non_seq_outer(j);
            f_ns.push(params.non_seq(egraph, o)?);
            ns_outer.push(o);
        }
        // The body: the segment's states recomputed from its checkpoint,
        // then B's steps over the segment.
        let ck = seq_params[ck_at];
        let hseg = self.inner_forward(egraph, &seq_params[..ck_at], ck, &f_ns);
        let ck_row = expand_dims0(egraph, ck);
        let trace_seg = concat0(egraph, vec![ck_row, hseg]);
        let mut inner_args = Vec::new();
        for (i, at) in b_seq_at.iter().enumerate() {
            inner_args.push(match at {
                Some(p) => seq_params[*p],
                None if i == self.trace_seq => trace_seg,
                None => return None,
            });
        }
        for (j, c) in self.plan.carried.iter().enumerate() {
            match c {
                Carried::State => inner_args.push(state_params[j]),
                Carried::Tape => {
                    let carry = expand_dims0(egraph, state_params[j]);
                    let parts = match tape_rows_at[j]? {
                        TapeRows::Slots(at) => vec![carry, seq_params[at]],
                        TapeRows::Reversed { rows, next } => {
                            // This segment's rows of `rev`, last first,
                            // without the first of them (the carry's
                            // slot), then the slot after the segment.
                            let rev = flip0(egraph, seq_params[rows]);
                            let rest = slice_from(egraph, rev, 1);
                            let after = expand_dims0(egraph, seq_params[next]);
                            vec![carry, rest, after]
                        }
                    };
                    inner_args.push(concat0(egraph, parts));
                }
                Carried::Summed => {}
            }
        }
        inner_args.extend_from_slice(&b_ns);
        let mut children = b.body.clone();
        children.extend(inner_args);
        let inner = egraph.add(TNode {
            head: Head::Scan(b.sig.clone()),
            children,
        });
        let mut body = Vec::new();
        for (j, c) in self.plan.carried.iter().enumerate() {
            let out = proj(egraph, inner, j);
            body.push(match c {
                Carried::State | Carried::Tape => index(egraph, out, -1),
                Carried::Summed => {
                    let s = sum0(egraph, out);
                    op(
                        egraph,
                        OpKind::Binary(BinaryOp::Add),
                        vec![state_params[j], s],
                    )
                }
            });
        }
        let n_out = body.len();
        let mut children = body;
        children.extend(seq_outer);
        children.extend(inits);
        let n_ns = ns_outer.len();
        children.extend(ns_outer);
        let sig = LoopSig {
            sequences: seq_taps,
            outputs: vec![OutputInfo::Sitsot; n_out],
            n_non_seqs: n_ns,
            has_n_steps: false,
            go_backwards: true,
            keep: LoopSig::keep_list(vec![Some(1); n_out]),
            until: false,
            as_list: Vec::new(),
        };
        let bck = egraph.add(TNode {
            head: Head::Scan(sig),
            children,
        });
        let bp = match fp {
            Some(fp) => Some(self.prefix_backward(egraph, fp, bck)?),
            None => None,
        };
        Some(Built { fck, bck, bp })
    }
}

/// The loops of the checkpointed form.
struct Built {
    /// The checkpoints (and the sums of `F`'s mapped outputs).
    fck: Id,
    /// The backward loop over the segments.
    bck: Id,
    /// `B` over the prefix, after `Bck`, when there is one.
    bp: Option<Id>,
}

/// Which rows of a `T`-row value the segments cover.
#[derive(Clone, Copy, Debug)]
enum Rows {
    /// The last `S·k` (time order: the prefix comes first).
    Last,
    /// The first `S·k` (a tape's slots, in the order the backward loop
    /// writes them: the prefix's come last).
    First,
}

/// Where a tape's slots come from among `Bck`'s sequences.
#[derive(Clone, Copy, Debug)]
enum TapeRows {
    /// One sequence of the slots 1 ..= T, segment by segment.
    Slots(usize),
    /// The tape is `(concat 0 (flip R) LAST)`: the segments of `R` in time
    /// order, and the slot after each segment.
    Reversed { rows: usize, next: usize },
}

impl Pair<'_> {
    /// `(R, LAST)` when `tape` is `(concat 0 REV LAST)` with `REV` the
    /// rows of `R` (`T` rows) reversed and `LAST` one row: the form a
    /// gradient gives the cotangent tape of a trace.
    fn reversed_tape(&self, egraph: &EGraph, tape: Id) -> Option<(Id, Id)> {
        let one = Dim::known(1);
        egraph[tape].nodes.iter().find_map(|n| {
            if n.head != Head::Op(OpKind::Concat) || n.children.len() != 3 {
                return None;
            }
            if int_of(egraph, n.children[0]) != Some(0) {
                return None;
            }
            let (rev, last) = (n.children[1], n.children[2]);
            if egraph[last].data.ty()?.shape.first()? != &one {
                return None;
            }
            let r = reversed_of(egraph, rev)?;
            (egraph[r].data.ty()?.shape.first()? == &self.plan.steps).then_some((r, last))
        })
    }

    /// The slot after each segment, in time order: `LAST` for the first
    /// segment, then the last row of each segment but the final one:
    /// `(concat 0 LAST (slice (index (transpose SEG 1 0 2) k-1) 0 -1))`.
    fn next_slots(&self, egraph: &mut EGraph, seg: Id, last: Id) -> Option<Id> {
        let rank = egraph[seg].data.ty()?.ndim();
        let mut perm = vec![lit(egraph, 1), lit(egraph, 0)];
        for a in 2..rank {
            perm.push(lit(egraph, a as i64));
        }
        let mut children = vec![seg];
        children.extend(perm);
        let by_row = op(egraph, OpKind::Transpose, children);
        let ends = index(egraph, by_row, self.plan.k - 1);
        let before = super::vectorize::slice(egraph, ends, Some(0), Some(-1), 1);
        Some(concat0(egraph, vec![last, before]))
    }
}

/// `R` when class `c` holds `(slice R none none -1)` or `(flip R 0)`.
fn reversed_of(egraph: &EGraph, c: Id) -> Option<Id> {
    egraph[c].nodes.iter().find_map(|n| match n.head {
        Head::Op(OpKind::Flip) if n.children.len() == 2 => {
            (int_of(egraph, n.children[1]) == Some(0)).then(|| n.children[0])
        }
        Head::Op(OpKind::Slice) if n.children.len() == 4 => {
            let open = |k: usize| {
                egraph[n.children[k]]
                    .nodes
                    .iter()
                    .any(|m| m.head == Head::NoneBound)
            };
            (open(1) && open(2) && int_of(egraph, n.children[3]) == Some(-1)).then(|| n.children[0])
        }
        _ => None,
    })
}

/// The parameters of a loop being built, numbered in `fn` order (the
/// caller adds them in that order: sequences, states, non-sequences).
#[derive(Default)]
struct Params {
    next: usize,
}

impl Params {
    fn typed(&mut self, egraph: &mut EGraph, ty: Type) -> Id {
        let id = egraph.add(TNode::leaf(Head::Arg(self.next, ty)));
        self.next += 1;
        id
    }

    fn sequence(&mut self, egraph: &mut EGraph, outer: Id) -> Option<Id> {
        let ty = sequence_step(0, egraph[outer].data.ty()?).ok()?;
        Some(self.typed(egraph, ty))
    }

    fn state(&mut self, egraph: &mut EGraph, ty: Type) -> Id {
        self.typed(egraph, ty)
    }

    fn non_seq(&mut self, egraph: &mut EGraph, outer: Id) -> Option<Id> {
        let ty = egraph[outer].data.ty()?.clone().strong();
        Some(self.typed(egraph, ty))
    }
}

/// `(sum x 0)`.
fn sum0(egraph: &mut EGraph, x: Id) -> Id {
    let a = lit(egraph, 0);
    op(egraph, OpKind::Reduce(ReduceOp::Sum), vec![x, a])
}

/// `(sum x)`.
fn sum_all(egraph: &mut EGraph, x: Id) -> Id {
    op(egraph, OpKind::Reduce(ReduceOp::Sum), vec![x])
}

/// `(expand_dims x 0)`.
fn expand_dims0(egraph: &mut EGraph, x: Id) -> Id {
    let a = lit(egraph, 0);
    op(egraph, OpKind::ExpandDims, vec![x, a])
}

/// `(flip x 0)`.
fn flip0(egraph: &mut EGraph, x: Id) -> Id {
    let a = lit(egraph, 0);
    op(egraph, OpKind::Flip, vec![x, a])
}

/// `(slice x start none 1)`.
fn slice_from(egraph: &mut EGraph, x: Id, start: i64) -> Id {
    super::vectorize::slice(egraph, x, Some(start), None, 1)
}

/// `(zeros TYPE)`, when every size of `ty` has a leaf form.
fn zeros(egraph: &mut EGraph, ty: &Type) -> Option<Id> {
    let mut dims = Vec::new();
    for d in &ty.shape {
        dims.push(steps_leaf(egraph, d)?);
    }
    let t = egraph.add(TNode {
        head: Head::Type(ty.dtype),
        children: dims,
    });
    Some(op(egraph, OpKind::Zeros, vec![t]))
}

#[cfg(test)]
mod tests {
    use super::segments;

    #[test]
    fn segment_length_is_the_divisor_nearest_the_root() {
        assert_eq!(segments(50_000), Some((200, 0)));
        assert_eq!(segments(2000), Some((40, 0)));
        assert_eq!(segments(16), Some((4, 0)));
        assert_eq!(segments(12), Some((3, 0)));
        assert_eq!(segments(4), Some((2, 0)));
        assert_eq!(segments(3), None);
    }

    #[test]
    fn without_a_divisor_near_the_root_a_prefix_shorter_than_a_segment() {
        // Primes.
        assert_eq!(segments(13), Some((3, 1)));
        assert_eq!(segments(5), Some((2, 1)));
        assert_eq!(segments(2003), Some((44, 23)));
        assert_eq!(segments(50_021), Some((223, 69)));
        // 2·p: the divisor 2 is too far from the root.
        assert_eq!(segments(2 * 1009), Some((44, 2018 % 44)));
        for t in 4..3000i64 {
            let (k, r) = segments(t).unwrap();
            let s = (t - r) / k;
            assert!(k >= 2 && s >= 2 && r < k && r + s * k == t, "{t}: {k} {r}");
        }
    }
}
