//! The cost model: the work of one e-node, from the types the analysis gives.
//!
//! A node's cost is its own work in *flop-equivalents*: arithmetic
//! operations, plus the bytes it moves divided by 8 (one `f64` read or
//! written counts as one operation). Symbolic sizes take their value from
//! [`CostModel::dims`] and otherwise [`CostModel::default_size`].
//!
//! A scan's own cost here is only its loop overhead, `steps ×
//! step_overhead`; the work of its body depends on which body terms an
//! extractor picks, so every extractor adds `steps × body` through one
//! function, [`loop_cost`].
//!
//! A node that cannot be part of a well-typed program — one of its children
//! is [`Kind::Invalid`], its attributes are not constants, or its arguments
//! do not type-check — costs `f64::INFINITY`, so no extractor picks it while
//! a finite alternative exists.

use crate::egraph::analysis::{node_op, reads_a_parameter, EGraph, Kind};
use crate::egraph::term::{Head, OpKind, TNode};
use crate::lang::infer::infer;
use crate::lang::{Dim, Op, ReduceOp, Scalar, Storage, Type, Work};
use egg::Id;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Sizes and weights of the cost model.
///
/// [`Default`] gives the weights every command and test uses; a field may
/// be changed to explore another model (e.g. a larger `step_overhead` for
/// a slower executor).
#[derive(Clone, Debug, PartialEq)]
pub struct CostModel {
    /// Values of symbolic sizes (e.g. `T = 20000`).
    pub dims: BTreeMap<String, i64>,
    /// The value of a size that `dims` does not bind, or that is unknown:
    /// 1000 by default — large enough that a loop over an unbound `T`
    /// is clearly more expensive than one step of it.
    pub default_size: i64,
    /// The fixed cost of one loop step in flop-equivalents: the executor's
    /// per-step bookkeeping (slicing the sequences, one small allocation per
    /// body op, writing the outputs). 2000 by default: about 1–2 µs a step
    /// at ~1 flop-equivalent a nanosecond; to be measured on the executor.
    pub step_overhead: f64,
    /// The cost of one loop input per step (taking a sequence's row,
    /// binding a parameter): a few operations (4 by default), so a loop
    /// without an unused input is cheaper than with it.
    pub input_step_cost: f64,
    /// The weight of an elementwise op of work class
    /// [`Work::Transcendental`] (exp, log, log1p, tanh, sigmoid, sin, cos,
    /// pow, as their family lines in `lang::op` say) relative to an add or a
    /// multiply: a libm call costs roughly 5–20 simple operations (8 by
    /// default).
    pub transcendental_weight: f64,
    /// The cost of an op that makes a view (transpose, reshape,
    /// expand_dims, index): constant, independent of the size (1 by
    /// default).
    pub view_cost: f64,
    /// The cost of a literal leaf: tiny (1e-3 by default), so that among
    /// equal-work terms the one with fewer literals wins (other leaves
    /// cost 0).
    pub literal_cost: f64,
    /// The memory budget in bytes (`--memory-budget`), `None` by default:
    /// then memory is priced only as the bytes ops move. With a budget,
    /// every allocation larger than the budget costs
    /// [`Self::memory_penalty`] per budget's worth of bytes (see
    /// [`Self::allocation_penalty`]).
    pub memory_budget: Option<f64>,
    /// The cost of an allocation over [`Self::memory_budget`], per budget's
    /// worth of its bytes: 1e15 by default, more than the work of any
    /// program eqscan runs in reasonable time, so a form that fits wins
    /// whatever its work, and among forms that do not, the one whose
    /// oversized arrays are fewer and smaller.
    pub memory_penalty: f64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel {
            dims: BTreeMap::new(),
            default_size: 1000,
            step_overhead: 2000.0,
            input_step_cost: 4.0,
            transcendental_weight: 8.0,
            view_cost: 1.0,
            literal_cost: 1e-3,
            memory_budget: None,
            memory_penalty: 1e15,
        }
    }
}

/// `a * b` where an infinite factor always gives infinity (never NaN).
pub(crate) fn mul_inf(a: f64, b: f64) -> f64 {
    if a.is_infinite() || b.is_infinite() || a.is_nan() || b.is_nan() {
        f64::INFINITY
    } else {
        a * b
    }
}

/// The whole cost of a loop node: its own cost `own` (for a scan, the
/// overhead of its steps and what its outputs keep, see
/// [`CostModel::node_cost`]) plus `steps ×` the cost `body` of one step of
/// its body; infinite when either part is. Every extractor prices a loop
/// through this function.
pub fn loop_cost(own: f64, steps: f64, body: f64) -> f64 {
    own + mul_inf(steps, body)
}

impl CostModel {
    /// The work of one result element of an elementwise op of work class
    /// `w`, in flop-equivalents.
    fn element_weight(&self, w: Work) -> f64 {
        match w {
            Work::Simple => 1.0,
            Work::Transcendental => self.transcendental_weight,
        }
    }
}

impl CostModel {
    /// A model with the given size bindings and the default constants.
    pub fn with_dims(dims: BTreeMap<String, i64>) -> Self {
        CostModel {
            dims,
            ..CostModel::default()
        }
    }

    /// The value of one size: bound symbols from [`Self::dims`], unbound
    /// ones (and unknown sizes) [`Self::default_size`].
    pub(crate) fn size(&self, d: &Dim) -> f64 {
        let bind = |s: &str| Some(self.dims.get(s).copied().unwrap_or(self.default_size));
        d.eval(&bind).unwrap_or(self.default_size).max(0) as f64
    }

    /// The number of elements of a value of type `t` (1 for a scalar).
    pub(crate) fn elements(&self, t: &Type) -> f64 {
        t.shape.iter().map(|d| self.size(d)).product()
    }

    /// The bytes of a value of type `t`.
    pub(crate) fn bytes(&self, t: &Type) -> f64 {
        self.elements(t) * t.dtype.size_bytes() as f64
    }

    /// The step count of the scan whose e-class is `class`: the length of
    /// its first output (every output has the same), or
    /// [`Self::default_size`] when the class is not a scan.
    pub(crate) fn scan_steps(&self, egraph: &EGraph, class: Id) -> f64 {
        egraph[class]
            .nodes
            .iter()
            .find_map(|n| match &n.head {
                Head::Scan(sig) => {
                    let nb = sig.n_body_results().min(n.children.len());
                    let d = crate::egraph::analysis::scan_steps(egraph, sig, &n.children[nb..]);
                    (d != Dim::Unknown).then(|| self.size(&d))
                }
                _ => None,
            })
            .unwrap_or(self.default_size as f64)
    }

    /// The elements a scan's outputs hold (every step, or the steps an
    /// output keeps): what the loop writes and keeps in memory.
    /// An output that keeps its last K steps, of a loop whose step count
    /// may be smaller (a while loop, a symbolic length that may be 0),
    /// holds K steps at most: counted as K, where its type cannot say it.
    pub(crate) fn scan_storage(
        &self,
        egraph: &EGraph,
        class: Id,
        sig: &crate::lang::LoopSig,
    ) -> f64 {
        match &egraph[class].data.kind {
            Kind::Multi(tys) => tys
                .iter()
                .enumerate()
                .map(|(k, t)| self.kept_elements(sig, k, t))
                .sum(),
            _ => 0.0,
        }
    }

    /// The elements output `k` (of type `t`) of a loop with clauses `sig`
    /// holds: K steps at most when it keeps its last K and its type's
    /// row count is unknown.
    fn kept_elements(&self, sig: &crate::lang::LoopSig, k: usize, t: &Type) -> f64 {
        match (sig.kept(k), t.shape.split_first()) {
            (Some(kept), Some((Dim::Unknown, step))) => {
                let step: f64 = step.iter().map(|d| self.size(d)).product();
                kept as f64 * step
            }
            _ => self.elements(t),
        }
    }

    /// For a scan node, its step count (looked up through the node's class);
    /// `None` for any other node.
    pub(crate) fn scan_steps_of(&self, egraph: &EGraph, node: &TNode) -> Option<f64> {
        if !matches!(node.head, Head::Scan(_)) {
            return None;
        }
        Some(match egraph.lookup(node.clone()) {
            Some(class) => self.scan_steps(egraph, class),
            None => self.default_size as f64,
        })
    }

    /// The node's own work (children excluded), in flop-equivalents:
    ///
    /// - elementwise ops: one operation per result element
    ///   ([`Self::transcendental_weight`] for exp, log, tanh, sin, cos, sigmoid,
    ///   pow), plus the bytes of the arguments and the result over 8;
    /// - reductions and cumulative ops: one operation per input element,
    ///   plus bytes moved over 8;
    /// - `dot` / `matmul`: `2·m·k·n` (twice the result elements times the
    ///   contracted length), plus bytes moved over 8;
    /// - views (transpose, reshape, expand_dims, index, flip, squeeze):
    ///   [`Self::view_cost`];
    /// - copies and creations (stack, concat, slice, fill, zeros,
    ///   zeros_like, ones, tensor, arange, cast): the result's elements;
    /// - `sum_to`: one operation per element of G, plus bytes moved over 8;
    /// - increments (`inc_index`, `inc_slice`): the result's elements (the
    ///   copy of X) plus the increment's;
    /// - leaves, `proj` and the root: 0 ([`Self::literal_cost`] for a
    ///   literal);
    /// - a scan: its loop overhead, `steps × (step_overhead + inputs ×
    ///   input_step_cost)`, plus the elements its outputs keep (all steps,
    ///   or the last K of an output with `(keep K)`, or a mitmot's whole
    ///   tape, copied once per run); the body (every body result, one per
    ///   out tap of a mitmot) is added by
    ///   the extractors, through [`loop_cost`].
    ///
    /// Under a memory budget ([`Self::memory_budget`]), the node also pays
    /// [`Self::allocation_penalty`] for the bytes it allocates
    /// ([`Self::allocated_bytes`]).
    ///
    /// `f64::INFINITY` for a node that cannot be extracted: a child class
    /// is [`Kind::Invalid`], the attributes are not constants, the
    /// arguments do not type-check, or a scan's body output is not a value.
    pub fn node_cost(&self, egraph: &EGraph, node: &TNode) -> f64 {
        let work = self.work_cost(egraph, node);
        if work.is_finite() && self.memory_budget.is_some() {
            work + self.allocation_penalty(self.allocated_bytes(egraph, node))
        } else {
            work
        }
    }

    /// The penalty of an allocation of `bytes` under
    /// [`Self::memory_budget`]: 0 when it fits (or without a budget),
    /// else [`Self::memory_penalty`] × `bytes / budget`.
    ///
    /// The model prices each allocation, not the sum of those alive at
    /// once (an additive cost cannot see liveness): an array larger than
    /// the budget cannot fit whatever else is freed, so a form holding one
    /// is over budget; a form whose arrays each fit may still peak above
    /// it when several are alive together (the run's `peak_bytes` tells).
    pub fn allocation_penalty(&self, bytes: f64) -> f64 {
        match self.memory_budget {
            Some(budget) if bytes > budget => mul_inf(self.memory_penalty, bytes / budget.max(1.0)),
            _ => 0.0,
        }
    }

    /// The bytes `node` allocates (0 for views, projections, leaves and
    /// inputs; a loop's outputs as kept: all steps, or the last K, or a
    /// mitmot's whole tape), by the op table's storage facts.
    pub fn allocated_bytes(&self, egraph: &EGraph, node: &TNode) -> f64 {
        let Some(class) = egraph.lookup(node.clone()) else {
            return 0.0;
        };
        match (&node.head, &egraph[class].data.kind) {
            (Head::Scan(sig), Kind::Multi(tys)) => tys
                .iter()
                .enumerate()
                .map(|(k, t)| self.kept_elements(sig, k, t) * t.dtype.size_bytes() as f64)
                .sum(),
            (Head::Op(kind), Kind::Value(t)) => match kind.storage() {
                Storage::Fresh | Storage::InPlace | Storage::UpdatesArg0 | Storage::Created => {
                    self.bytes(t)
                }
                Storage::View | Storage::Loop | Storage::Projection | Storage::Param => 0.0,
            },
            _ => 0.0,
        }
    }

    /// The node's work alone (see [`Self::node_cost`]).
    fn work_cost(&self, egraph: &EGraph, node: &TNode) -> f64 {
        if node
            .children
            .iter()
            .any(|c| matches!(egraph[*c].data.kind, Kind::Invalid(_)))
            || !in_scope(egraph, node)
        {
            return f64::INFINITY;
        }
        match &node.head {
            Head::Lit(_) => self.literal_cost,
            Head::NoneBound
            | Head::DType(_)
            | Head::Type(_)
            | Head::Input(..)
            | Head::Size(_)
            | Head::Arg(..) => 0.0,
            Head::Outputs => {
                let all_values = node
                    .children
                    .iter()
                    .all(|c| matches!(egraph[*c].data.kind, Kind::Value(_)));
                if all_values {
                    0.0
                } else {
                    f64::INFINITY
                }
            }
            Head::Scan(sig) => {
                let nb = sig.n_body_results();
                let layout = sig;
                if node.children.len() != nb + layout.n_args()
                    || node
                        .children
                        .iter()
                        .any(|c| !matches!(egraph[*c].data.kind, Kind::Value(_)))
                {
                    return f64::INFINITY;
                }
                let steps = self.scan_steps_of(egraph, node).unwrap_or(0.0);
                let inputs = layout.n_body_params() as f64 * self.input_step_cost;
                let storage = egraph
                    .lookup(node.clone())
                    .map(|c| self.scan_storage(egraph, c, sig))
                    .unwrap_or(0.0);
                mul_inf(steps, self.step_overhead + inputs) + storage
            }
            Head::Op(OpKind::Proj) => {
                let k = node.children.first().and_then(|c| {
                    egraph[*c].nodes.iter().find_map(|n| match n.head {
                        Head::Lit(crate::egraph::term::Lit(Scalar::I64(k))) => Some(k),
                        _ => None,
                    })
                });
                let src = node.children.get(1).map(|c| &egraph[*c].data.kind);
                match (k, src) {
                    (Some(k), Some(Kind::Multi(tys))) if k >= 0 && (k as usize) < tys.len() => 0.0,
                    _ => f64::INFINITY,
                }
            }
            Head::Op(name) => self.op_cost(egraph, *name, &node.children),
        }
    }

    fn op_cost(&self, egraph: &EGraph, name: OpKind, children: &[Id]) -> f64 {
        let Some((op, vargs)) = node_op(egraph, name, children) else {
            return f64::INFINITY;
        };
        let Some(tys) = vargs
            .iter()
            .map(|a| egraph[*a].data.ty().map(|t| self.sized(egraph, *a, t)))
            .collect::<Option<Vec<Cow<'_, Type>>>>()
        else {
            return f64::INFINITY;
        };
        let tys: Vec<&Type> = tys.iter().map(|t| t.as_ref()).collect();
        let consts = crate::egraph::analysis::literal_args(egraph, &vargs);
        let Ok(out) = infer(&op, &tys, &consts) else {
            return f64::INFINITY;
        };
        self.op_work(&op, &tys, &out)
    }

    /// The work of `op` on arguments of types `args` giving a result of type
    /// `out` (see [`Self::node_cost`]).
    pub(crate) fn op_work(&self, op: &Op, args: &[&Type], out: &Type) -> f64 {
        let n_out = self.elements(out);
        let moved = (args.iter().map(|t| self.bytes(t)).sum::<f64>() + self.bytes(out)) / 8.0;
        // One Philox4x32-10 block: ten rounds of two 32-bit products and
        // four xors, and a key bump; it gives two f64 draws (or one key).
        let philox = 40.0;
        match op {
            Op::Unary(u) => self.element_weight(u.work()) * n_out + moved,
            Op::MakeKey => n_out + moved,
            Op::Split(_) | Op::FoldIn => philox * n_out + moved,
            Op::Uniform(_) | Op::Bernoulli => philox / 2.0 * n_out + moved,
            // a log, a square root and a sine or cosine per element pair
            Op::Normal(_) => {
                (philox / 2.0 + 1.5 * self.element_weight(Work::Transcendental)) * n_out + moved
            }
            // two logs per logit
            Op::Categorical => {
                let n = args.get(1).map_or(0.0, |t| self.elements(t));
                (philox / 2.0 + 2.0 * self.element_weight(Work::Transcendental)) * n + moved
            }
            Op::Binary(b) => self.element_weight(b.work()) * n_out + moved,
            Op::Compare(_) | Op::Where => n_out + moved,
            // An exp per element, a max and a sum per lane (a log per
            // result element).
            Op::Reduce(ReduceOp::LogSumExp, _) => {
                let n_in = args.first().map(|t| self.elements(t)).unwrap_or(0.0);
                self.element_weight(Work::Transcendental) * (n_in + n_out) + n_in + moved
            }
            Op::Reduce(..) | Op::Cumulative(..) => {
                args.first().map(|t| self.elements(t)).unwrap_or(0.0) + moved
            }
            // An exp per element, a max and a sum per lane.
            Op::Normalize(..) => self.element_weight(Work::Transcendental) * n_out + moved,
            Op::Dot | Op::Matmul => {
                let k = match (args.first(), args.get(1)) {
                    (Some(a), Some(b)) if !a.shape.is_empty() && !b.shape.is_empty() => {
                        a.shape.last().map(|d| self.size(d)).unwrap_or(1.0)
                    }
                    _ => 1.0,
                };
                2.0 * n_out * k + moved
            }
            Op::Transpose(_)
            | Op::Reshape(_)
            | Op::ExpandDims(_)
            | Op::Index
            | Op::Flip(_)
            | Op::Squeeze(_)
            | Op::StopGradient => self.view_cost,
            // A multiply and an add per element of U, one pass.
            Op::LinRec => 2.0 * args.get(1).map(|t| self.elements(t)).unwrap_or(0.0) + moved,
            // Per result element a multiply-add per term and a log; an exp
            // per element of A. exp(B) is not counted: in a loop it is
            // computed once per call where B does not change (the step
            // tape's prologue), and outside one the op replaces a form
            // that takes as many exps.
            Op::LogMatMulExp => {
                let n = args
                    .get(1)
                    .and_then(|b| b.shape.first())
                    .map_or(1.0, |d| self.size(d));
                let a = args.first().map_or(0.0, |t| self.elements(t));
                2.0 * n_out * n + self.element_weight(Work::Transcendental) * (a + n_out) + moved
            }
            // Per matrix of the stack (n×n): an LU factorization (2n³/3
            // multiply-adds) and two substitutions per right-hand side
            // column (2n² each); a triangular solve the substitution
            // alone; Cholesky n³/3; an inverse the LU and n columns; a
            // determinant the LU.
            Op::Solve
            | Op::SolveTriangular(_)
            | Op::Cholesky
            | Op::Inv
            | Op::Det
            | Op::Slogdet(_) => {
                let a = args.first().copied();
                let n = a.and_then(|t| t.shape.last()).map_or(1.0, |d| self.size(d));
                let mats = a.map_or(1.0, |t| self.elements(t)) / (n * n).max(1.0);
                let cols = match (op, args.get(1)) {
                    (_, Some(b)) if b.ndim() >= 2 => b.shape.last().map_or(1.0, |d| self.size(d)),
                    _ => 1.0,
                };
                let per = match op {
                    Op::Solve => 2.0 * n * n * n / 3.0 + 2.0 * n * n * cols,
                    Op::SolveTriangular(_) => n * n * cols,
                    Op::Cholesky => n * n * n / 3.0,
                    Op::Inv => 8.0 * n * n * n / 3.0,
                    _ => 2.0 * n * n * n / 3.0 + n,
                };
                // the batch of `solve` broadcasts: its result's count
                let mats = match op {
                    Op::Solve | Op::SolveTriangular(_) => (n_out / (n * cols).max(1.0)).max(mats),
                    _ => mats,
                };
                2.0 * per * mats + moved
            }
            // A pass over G, writing X's shape.
            Op::SumTo => args.first().map(|t| self.elements(t)).unwrap_or(0.0) + moved,
            // A pass over the mask to count, then a copy of each kept row
            // (or each given row back, over zeros), row by row.
            // Bookkeeping on row splits, no element moved.
            Op::List(_) => 1.0,
            Op::Compress | Op::Uncompress => {
                let rows = args.get(1).map(|t| self.elements(t)).unwrap_or(0.0);
                2.0 * rows + args.first().map(|t| self.elements(t)).unwrap_or(0.0) + moved
            }
            // A compare and a select per element for each bound.
            Op::Clip => 2.0 * n_out + moved,
            // A product per element.
            Op::Outer => n_out + moved,
            // A copy of X, and a write per element of the update.
            Op::IncIndex
            | Op::IncSlice { .. }
            | Op::SetIndex
            | Op::SetSlice { .. }
            | Op::IncTake(_)
            | Op::SetTake(_) => n_out + args.get(1).map(|t| self.elements(t)).unwrap_or(0.0),
            Op::Stack
            | Op::Concat(_)
            | Op::Slice { .. }
            | Op::Fill(_)
            | Op::Zeros(_)
            | Op::Ones(_)
            | Op::Tensor(..)
            | Op::Arange(_)
            | Op::Cast(_)
            | Op::ZerosLike
            | Op::Eye(_)
            | Op::Take(_) => n_out,
            Op::Literal(_) => self.literal_cost,
            Op::Input(_) | Op::Size(_) | Op::Proj(_) => 0.0,
            // Never built by `node_op`; a scan is costed by its head.
            Op::Scan(_) => f64::INFINITY,
            // Expanded before a program reaches the e-graph.
            Op::Grad => f64::INFINITY,
        }
    }
}

/// Whether `node` may stand for its class wherever the class is used. The
/// extractors choose one node per class, shared by every use; a class
/// closed over body parameters (`deps` empty: its value is the same in
/// every step, so a rewrite may hoist it out of the loop, and it may be
/// used at the top level) may still hold a node that reads one, such as
/// `(zeros_like (arg 1))` beside `(zeros_like x)`. Chosen for a use at the
/// top level, that node leaves `(arg 1)` outside any loop (a PyTensor
/// Hessian's converted graph did). So in a closed class, a node that reads
/// a parameter is out of scope when the class has a node that reads none;
/// when none does, every node stays a candidate, as before. (A class that
/// reads parameters is used inside bodies only, where a node reading more
/// of that body's parameters is fine: a merged loop reads both loops'.)
fn in_scope(egraph: &EGraph, node: &TNode) -> bool {
    // Most nodes read no parameter: decided without looking up the class.
    if !reads_a_parameter(egraph, node) {
        return true;
    }
    let Some(class) = egraph.lookup(node.clone()) else {
        return true;
    };
    !egraph[class].data.deps.is_empty()
        || egraph[class]
            .nodes
            .iter()
            .all(|n| reads_a_parameter(egraph, n))
}

/// How deep [`CostModel::sized`] looks through views for a size it can
/// count (a reshape under a transpose is two).
const SIZED_DEPTH: usize = 3;

impl CostModel {
    /// The type of class `class` (of type `t`) as the cost model sizes it:
    /// [`kept_bound`], and an unknown size that a view of a counted
    /// operand fixes, counted with the bound sizes: the `-1` of a
    /// `(reshape X -1 p)` is X's elements over `p` (the form
    /// `sum-matmul-steps` writes for `T·k` with `T` and `k` symbolic, which
    /// has no size term), a transpose moves its operand's sizes. Without
    /// this a product over `T·k` rows would be priced at
    /// [`Self::default_size`] rows whatever the loop's steps and rows. The
    /// sizes found are numbers for pricing only; the type stays unknown.
    fn sized<'t>(&self, egraph: &EGraph, class: Id, t: &'t Type) -> Cow<'t, Type> {
        let t = kept_bound(egraph, class, t);
        if !t.shape.contains(&Dim::Unknown) {
            return t;
        }
        match self.counted_shape(egraph, class, SIZED_DEPTH) {
            Some(shape) if shape.len() == t.ndim() => {
                let mut known = t.into_owned();
                known.shape = shape.into_iter().map(Dim::known).collect();
                Cow::Owned(known)
            }
            _ => t,
        }
    }

    /// The sizes of class `class` counted with the bound sizes, through at
    /// most `depth` reshapes and transposes (see [`Self::sized`]).
    fn counted_shape(&self, egraph: &EGraph, class: Id, depth: usize) -> Option<Vec<i64>> {
        let t = egraph[class].data.ty()?;
        if !t.shape.contains(&Dim::Unknown) {
            return Some(t.shape.iter().map(|d| self.size(d) as i64).collect());
        }
        if depth == 0 {
            return None;
        }
        let lit = |c: &Id| {
            egraph[*c].nodes.iter().find_map(|n| match n.head {
                Head::Lit(crate::egraph::term::Lit(Scalar::I64(k))) => Some(k),
                _ => None,
            })
        };
        egraph[class]
            .nodes
            .iter()
            .find_map(|n| match (&n.head, n.children.as_slice()) {
                (Head::Op(OpKind::Reshape), [x, sizes @ ..]) if sizes.len() == t.ndim() => {
                    let elements: i64 = self.counted_shape(egraph, *x, depth - 1)?.iter().product();
                    let mut shape = Vec::with_capacity(t.ndim());
                    let mut infer_at = None;
                    for (i, (c, d)) in sizes.iter().zip(&t.shape).enumerate() {
                        match (lit(c), d) {
                            (Some(-1), _) if infer_at.is_none() => {
                                infer_at = Some(i);
                                shape.push(0);
                            }
                            (_, Dim::Unknown) => return None,
                            (_, d) => shape.push(self.size(d) as i64),
                        }
                    }
                    let rest: i64 = shape
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| Some(*i) != infer_at)
                        .map(|(_, s)| *s)
                        .product();
                    if let Some(i) = infer_at {
                        shape[i] = if rest > 0 { elements / rest } else { 0 };
                    }
                    Some(shape)
                }
                (Head::Op(OpKind::Transpose), [x, perm @ ..]) => {
                    let inner = self.counted_shape(egraph, *x, depth - 1)?;
                    if perm.is_empty() {
                        return Some(inner.into_iter().rev().collect());
                    }
                    perm.iter()
                        .map(|c| {
                            let a = lit(c)?;
                            let a = if a < 0 { a + inner.len() as i64 } else { a };
                            inner.get(usize::try_from(a).ok()?).copied()
                        })
                        .collect()
                }
                _ => None,
            })
    }
}

/// The type of class `class` (of type `t`) as the cost model sizes it: a
/// loop output that keeps its last K steps, typed with an unknown number
/// of rows (the loop may run fewer than K steps), has at most K rows.
fn kept_bound<'t>(egraph: &EGraph, class: Id, t: &'t Type) -> Cow<'t, Type> {
    if !matches!(t.shape.first(), Some(Dim::Unknown)) {
        return Cow::Borrowed(t);
    }
    let kept = egraph[class].nodes.iter().find_map(|n| {
        let (Head::Op(OpKind::Proj), [k, src]) = (&n.head, n.children.as_slice()) else {
            return None;
        };
        let k = egraph[*k].nodes.iter().find_map(|m| match m.head {
            Head::Lit(crate::egraph::term::Lit(Scalar::I64(k))) if k >= 0 => Some(k as usize),
            _ => None,
        })?;
        egraph[*src].nodes.iter().find_map(|m| match &m.head {
            Head::Scan(sig) => sig.kept(k),
            _ => None,
        })
    });
    match kept {
        Some(kept) => {
            let mut bounded = t.clone();
            bounded.shape[0] = Dim::known(kept as i64);
            Cow::Owned(bounded)
        }
        None => Cow::Borrowed(t),
    }
}
