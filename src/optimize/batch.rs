//! The batching rewrite of list programs (issue 41, `docs/lists.md`
//! "Batching"): a `map` over a list of sequences whose `fn` folds over
//! its sequence becomes one loop over `T_max` steps on the sequences
//! padded into a `(T_max, B, ...)` batch, each step masked per row (a
//! row past its sequence's end keeps its state), so the final state of
//! row `b` is sequence `b`'s fold (its init when the sequence is empty).
//!
//! With the lengths known (`run`), each fold instead runs in
//! length-sorted phases whose batch shrinks as sequences end (grows, for a
//! backward fold, whose phases run last first)
//! ([`PhasePlan`], `batch_phases.rs`; [`Phased`]), tried first.
//!
//! Owns: [`batch_lists`] (the term-level rewrite, before `grad` expands,
//! so the gradient is the batched loop's), [`Batched`] (the dense program
//! and how its inputs and outputs relate to the list program's) and the
//! cost comparison that chooses it ([`BatchCost`]). Must not: run
//! anything, pad values (`crate::exec::list::pad` does), or touch the
//! e-graph — the dense program goes through `optimize` like any other.
//!
//! The dense program takes, in place of a list input `L` of sequences, two
//! inputs: `L_padded`, the sequences padded with zeros to
//! `(L_steps, L_batch, ...)`, and `L_lengths` (`i64 (L_batch)`), with
//! the symbolic sizes `L_steps` (the longest length) and `L_batch` (the
//! number of sequences). A `map` whose results the program turns back
//! into lists (`unstack`) gives the stacked tensor; `(stack (unstack X))`
//! is `X`. Every other use of a list refuses the rewrite (the reason is
//! returned), and the program runs per sequence as written.
//!
//! The step function is vectorized over the batch (a `vmap` of the ops a
//! recurrent step uses: elementwise ops, `dot`, reductions along an axis,
//! `expand_dims`, `transpose`, `concat`). The arithmetic per row is the
//! same except for products: `(dot W x)` becomes `(dot X_b Wᵀ)`, whose
//! sums a matrix kernel may associate differently, so results agree
//! within rounding of a re-associated sum, not bit for bit.

use super::batch_phases::PhasePlan;
use crate::lang::infer::{grad_types, infer};
use crate::lang::list_type::graph_holds_lists;
use crate::lang::loop_type;
use crate::lang::op::{BinaryOp, CompareOp, ListOp, Scalar};
use crate::lang::{DType, Dim, Graph, LoopSig, Node, NodeId, Op, OutputInfo, Program, Scan};
use crate::lang::{Span, Type};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Why [`batch_lists`] leaves a program per sequence (`run --json`'s
/// `not_batched`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NotBatched {
    /// The program has shared variables.
    #[error("a program with shared variables is not batched")]
    SharedVariables,
    /// No input is a list of sequences.
    #[error("the program has no list of sequences")]
    NoListOfSequences,
    /// A list input of another depth than a list of sequences.
    #[error("the list input {input} is not a list of sequences")]
    NotSequences {
        /// The input's name.
        input: String,
    },
    /// A list input read other than by maps over its sequences.
    #[error("the list input {input} has a use other than a map over its sequences")]
    ListUse {
        /// The input's name.
        input: String,
    },
    /// A list used outside a map over its sequences once batched.
    #[error("a list is used outside a map over its sequences")]
    OtherUse,
    /// A map's `fn` captures a list.
    #[error("a map captures a list")]
    CapturedList,
    /// A map's `fn` is not one fold over its sequence (or its loop's
    /// outputs are lists).
    #[error("the map's fn is not a fold over its sequence")]
    NotAFold,
    /// A fold's init or captured value depends on the sequence.
    #[error("a fold's init or captured value depends on the sequence")]
    DependsOnSequence,
    /// The fold's step holds what the batched step cannot hold.
    #[error("the fold's step is not batched: {0}")]
    Step(String),
    /// For these lengths the batched loop costs more ([`BatchCost`]).
    #[error("per sequence costs {per_sequence:.3e} against {batched:.3e} batched for {input}")]
    Costlier {
        /// The list input's name.
        input: String,
        /// The per-sequence cost.
        per_sequence: f64,
        /// The batched cost.
        batched: f64,
    },
    /// A node of the batched program does not type (a defect).
    #[error("internal error: the batched program does not type: {0}")]
    Retype(String),
    /// A defect of the rewrite.
    #[error("internal error: {0}")]
    Internal(&'static str),
}

/// The list program as one dense program (see the module documentation).
#[derive(Clone, Debug)]
pub struct Batched {
    /// The dense program: no lists, `grad`s not yet expanded.
    pub program: Program,
    /// The list inputs replaced by a padded batch, in input order.
    pub lists: Vec<PaddedList>,
    /// For each output: `true` when the list program gives the list of
    /// the rows of the dense program's output.
    pub list_outputs: Vec<bool>,
    /// The costs compared to choose the rewrite, per list input (with
    /// lengths) or `None` (without).
    pub costs: Vec<Option<(f64, f64)>>,
}

/// One list input of sequences and the two dense inputs that replace it.
#[derive(Clone, Debug, PartialEq)]
pub struct PaddedList {
    /// The list input's index in the list program.
    pub input: usize,
    /// Its name.
    pub name: String,
    /// The padded batch's input index in the dense program; the lengths
    /// follow it.
    pub padded_input: usize,
    /// The symbolic size of the steps (the longest sequence).
    pub steps: String,
    /// The symbolic size of the batch (the number of sequences).
    pub batch: String,
    /// Whether the lengths are known and the longest is at least 1: a
    /// fold's result is then its batched loop's last state, `(index S
    /// -1)`, which the Scan rewrites shrink to the last step (without
    /// lengths, the empty-safe form of `docs/lists.md` stays).
    pub steps_positive: bool,
    /// With the lengths known: the length-sorted phases the folds run in
    /// (`batch_phases.rs`) and their symbolic sizes; `None`: one masked
    /// loop over the padded batch in the sequences' order.
    pub phases: Option<Phased>,
}

/// A list's phase plan and the symbolic sizes of its phases, with the
/// dense program's inputs for them (named by [`PaddedList`]'s methods):
/// per phase `p` the padded rows `NAME_padded{p}` (`(steps[p], rows[p],
/// ...)`: sorted row `r` holds steps `s_p ..` of sequence `order[r]`),
/// the rows' lengths from `s_p` on `NAME_lengths{p}` (`i64 (rows[p])`,
/// only when the phase is masked), the rows passed on to phase `p + 1`
/// `NAME_next{p}` (`i64 (rows[p + 1])`: `0 .. k_{p+1}`), and the rows
/// ending in it, `NAME_ended{p}` (`i64 (ended[p])`, [`PhasePlan::ended`])
/// and the sequences they are, `NAME_users{p}` (`i64 (ended[p])`: `order`
/// at those rows).
#[derive(Clone, Debug, PartialEq)]
pub struct Phased {
    /// The plan.
    pub plan: PhasePlan,
    /// The symbolic size of each phase's steps.
    pub steps: Vec<String>,
    /// The symbolic size of each phase's rows.
    pub rows: Vec<String>,
    /// The symbolic size of the rows ending in each phase.
    pub ended: Vec<String>,
}

impl PaddedList {
    /// The name of phase `p`'s padded rows.
    pub fn padded_name(&self, p: usize) -> String {
        format!("{}_padded{p}", self.name)
    }

    /// The name of phase `p`'s lengths.
    pub fn lengths_name(&self, p: usize) -> String {
        format!("{}_lengths{p}", self.name)
    }

    /// The name of the rows phase `p` passes on.
    pub fn next_name(&self, p: usize) -> String {
        format!("{}_next{p}", self.name)
    }

    /// The name of the rows ending in phase `p`.
    pub fn ended_name(&self, p: usize) -> String {
        format!("{}_ended{p}", self.name)
    }

    /// The name of the sequences ending in phase `p`.
    pub fn users_name(&self, p: usize) -> String {
        format!("{}_users{p}", self.name)
    }
}

/// The dense inputs standing for one list in the program: a padded batch
/// per phase (one without phases), its lengths when masked, the rows
/// passed on between phases, the rows ending in each phase and whose they
/// are (phased only).
struct Feed {
    pads: Vec<NodeId>,
    lens: Vec<Option<NodeId>>,
    nexts: Vec<NodeId>,
    ended: Vec<(NodeId, NodeId)>,
}

/// The cost model of the choice, in units of one elementwise flop. One
/// step of a loop costs `ops · o` (`o` = [`BatchCost::OP_OVERHEAD`], one op
/// dispatch) plus its work: `f = e + p`, `e` its elementwise flops and `p`
/// the multiply-adds of its products. Per sequence,
/// `Σ T_i (k·o + e + p)`; batched, `T_max ((k + m)·o + B·(e + p / R))`,
/// `m` the mask's ops and `R` = [`BatchCost::PRODUCT_REUSE`]: a product
/// over B rows reads its matrix once per step, not once per row, so each
/// multiply-add costs less than in a matrix-vector product (measured:
/// `eqscan run` of a 128×128 matvec against a 64-row matmul).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchCost {
    /// Ops of one step of the fold.
    pub ops: f64,
    /// The extra ops a batched step pays for its mask.
    pub mask_ops: f64,
    /// Elementwise flops of one step for one sequence.
    pub elementwise: f64,
    /// Multiply-adds of the products of one step for one sequence.
    pub products: f64,
}

impl BatchCost {
    /// The work one op dispatch costs, in flops (about a microsecond).
    pub const OP_OVERHEAD: f64 = 1000.0;
    /// How much less a multiply-add costs in a product over a batch of
    /// rows than in a matrix-vector product.
    pub const PRODUCT_REUSE: f64 = 4.0;

    /// The backward steps of a gradient add about twice a step's work
    /// and ops to each step (each product `x·W` gives two, `g·Wᵀ` and
    /// `xᵀ·g`; each elementwise op its local derivative and a product
    /// with the cotangent): the step of a differentiated fold.
    pub fn with_backward(self) -> BatchCost {
        const BACKWARD: f64 = 3.0;
        BatchCost {
            ops: self.ops * BACKWARD,
            mask_ops: self.mask_ops * BACKWARD,
            elementwise: self.elementwise * BACKWARD,
            products: self.products * BACKWARD,
        }
    }

    /// The cost of running each sequence's loop: `Σ T_i (k·o + e + p)`.
    pub fn per_sequence(&self, lengths: &[usize]) -> f64 {
        let steps: f64 = lengths.iter().map(|&t| t as f64).sum();
        steps * (self.ops * Self::OP_OVERHEAD + self.elementwise + self.products)
    }

    /// The work of one row of a step in a product over `k` rows: `e +
    /// p / r(k)`, the reuse `r(k) = R·k / (k + R - 1)` growing from 1 (a
    /// matrix-vector product) towards `R` as the rows grow.
    pub fn row_cost(&self, k: usize) -> f64 {
        let (k, r) = (k.max(1) as f64, Self::PRODUCT_REUSE);
        self.elementwise + self.products * (k + r - 1.0) / (r * k)
    }

    /// The cost of one masked loop over the padded batch:
    /// `T_max ((k + m)·o + B·(e + p / R))`.
    pub fn batched(&self, lengths: &[usize]) -> f64 {
        let t_max = lengths.iter().copied().max().unwrap_or(0) as f64;
        let b = lengths.len() as f64;
        let row = self.elementwise + self.products / Self::PRODUCT_REUSE;
        t_max * ((self.ops + self.mask_ops) * Self::OP_OVERHEAD + b * row)
    }
}

/// What one value of the map's `fn` is, as the rewrite sees it.
#[derive(Clone, Debug)]
enum V {
    /// The `fn`'s sequence parameter (a list).
    Seq,
    /// The sequence stacked (what a fold over it reads).
    Stacked,
    /// A value the same for every sequence, computed at the top level.
    Unb(NodeId),
    /// A batched fold's states, `(T_max, B, ...)`.
    States(NodeId),
    /// One value per sequence, `(B, ...)`.
    Bat(NodeId),
    /// A phased fold's states, of which only the final ones exist: the
    /// final states `(B, ...)` ...
    Final(NodeId),
    /// ... reversed ...
    FinalRev(NodeId),
    /// ... and followed by the init: row 0 is the fold's result.
    FinalRevInit(NodeId),
}

/// A graph under construction, every node typed as the parser types it.
struct Writer {
    g: Graph,
    span: Span,
}

impl Writer {
    fn new(span: Span) -> Writer {
        Writer {
            g: Graph::default(),
            span,
        }
    }

    fn ty(&self, id: NodeId) -> &Type {
        self.g.node(id).ty()
    }

    fn push(&mut self, op: Op, args: Vec<NodeId>, ty: Vec<Type>, name: Option<String>) -> NodeId {
        let node = Node { op, args, ty, name };
        self.g.push(node, self.span)
    }

    fn param(&mut self, k: usize, ty: Type, name: Option<String>) -> NodeId {
        self.g.n_params += 1;
        self.push(Op::Input(k), vec![], vec![ty], name)
    }

    /// `op(args)`, typed by [`infer`].
    fn op(&mut self, op: Op, args: &[NodeId]) -> Result<NodeId, NotBatched> {
        let tys: Vec<&Type> = args.iter().map(|&a| self.ty(a)).collect();
        let consts: Vec<Option<Scalar>> = args
            .iter()
            .map(|&a| match self.g.node(a).op {
                Op::Literal(s) => Some(s),
                _ => None,
            })
            .collect();
        let ty = infer(&op, &tys, &consts)
            .map_err(|m| NotBatched::Retype(format!("{}: {m}", op.name())))?;
        Ok(self.push(op, args.to_vec(), vec![ty], None))
    }

    /// A loop with body `body`, typed as the parser types it; its
    /// projections.
    fn scan(
        &mut self,
        sig: LoopSig,
        body: Graph,
        args: &[NodeId],
    ) -> Result<Vec<NodeId>, NotBatched> {
        let tys = self.scan_types(&sig, &body, args)?;
        let id = self.push(
            Op::Scan(Box::new(Scan { sig, body })),
            args.to_vec(),
            tys.clone(),
            None,
        );
        Ok(tys
            .into_iter()
            .enumerate()
            .map(|(k, t)| self.push(Op::Proj(k), vec![id], vec![t], None))
            .collect())
    }

    fn scan_types(
        &self,
        sig: &LoopSig,
        body: &Graph,
        args: &[NodeId],
    ) -> Result<Vec<Type>, NotBatched> {
        let arg_tys: Vec<&Type> = args.iter().map(|&a| self.ty(a)).collect();
        let n_steps = sig.n_steps_arg().map(|k| match &self.g.node(args[k]).op {
            Op::Literal(Scalar::I64(v)) => Dim::known(*v),
            Op::Size(s) => Dim::sym(s),
            _ => Dim::Unknown,
        });
        let body_tys: Vec<&Type> = body.outputs.iter().map(|o| body.node(*o).ty()).collect();
        loop_type::output_types(sig, &arg_tys, n_steps, &body_tys)
            .map_err(|e| NotBatched::Retype(e.to_string()))
    }

    /// A copy of `node` on new arguments, typed again (the arguments'
    /// types may have changed: a run-time length became a symbol).
    fn copy(&mut self, node: &Node, args: Vec<NodeId>) -> Result<NodeId, NotBatched> {
        let ty = match &node.op {
            Op::Scan(s) => self.scan_types(&s.sig, &s.body, &args)?,
            Op::Proj(k) => {
                let src = self.g.node(args[0]);
                vec![src
                    .ty
                    .get(*k)
                    .cloned()
                    .ok_or(NotBatched::Internal("a projection out of range"))?]
            }
            Op::Grad => {
                let tys: Vec<&Type> = args[1..].iter().map(|&a| self.ty(a)).collect();
                grad_types(self.ty(args[0]), &tys).map_err(|e| NotBatched::Retype(e.to_string()))?
            }
            Op::Input(_) => return Err(NotBatched::Internal("an input inside a graph")),
            op => {
                let id = self.op(op.clone(), &args)?;
                self.g.nodes[id.0].name = node.name.clone();
                return Ok(id);
            }
        };
        Ok(self.push(node.op.clone(), args, ty, node.name.clone()))
    }

    /// `x` (an unbatched value) given a leading batch axis of size
    /// `batch` after its first `at` axes: `zeros + expand_dims(x, at)`.
    fn broadcast(&mut self, x: NodeId, batch: &str, at: usize) -> Result<NodeId, NotBatched> {
        let t = self.ty(x).clone();
        let mut shape = t.shape.clone();
        shape.insert(at, Dim::sym(batch));
        let zeros = self.op(Op::Zeros(Type::new(t.dtype, shape)), &[])?;
        let x = self.op(Op::ExpandDims(at as i64), &[x])?;
        self.op(Op::Binary(BinaryOp::Add), &[zeros, x])
    }
}

/// The map loops over list input `k` of `g`: every use of it but its
/// `len`, each a map over it alone (one sequence, nitsot outputs,
/// forwards). `None` when some use is anything else.
fn maps_over(g: &Graph, k: usize) -> Option<Vec<usize>> {
    let mut uses = Vec::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if !n.args.contains(&NodeId(k)) {
            continue;
        }
        // `(len L)` reads no sequence: it becomes the batch's size.
        if n.op == Op::List(ListOp::Len) {
            continue;
        }
        let Op::Scan(s) = &n.op else { return None };
        let sig = &s.sig;
        let is_map = sig.sequences == [vec![0]]
            && n.args[0] == NodeId(k)
            && !n.args[1..].contains(&NodeId(k))
            && sig.outputs.iter().all(|o| *o == OutputInfo::Nitsot)
            && !sig.has_n_steps
            && !sig.until
            && !sig.go_backwards
            && sig.keep.is_empty();
        if !is_map {
            return None;
        }
        uses.push(i);
    }
    (!uses.is_empty()).then_some(uses)
}

/// The folds a map's `fn` runs over its sequence (scans in its body).
fn folds_of(s: &Scan) -> Vec<&Scan> {
    s.body
        .nodes
        .iter()
        .filter_map(|n| match &n.op {
            Op::Scan(inner) => Some(&**inner),
            _ => None,
        })
        .collect()
}

/// The cost figures of the folds the maps over one list run.
fn cost_of(g: &Graph, maps: &[usize]) -> BatchCost {
    let mut c = BatchCost {
        ops: 0.0,
        mask_ops: 0.0,
        elementwise: 0.0,
        products: 0.0,
    };
    for &m in maps {
        let Op::Scan(s) = &g.nodes[m].op else {
            continue;
        };
        for fold in folds_of(s) {
            let body = &fold.body;
            for n in &body.nodes[body.n_params..] {
                c.ops += 1.0;
                let (e, p) = flops(body, n);
                c.elementwise += e;
                c.products += p;
            }
            c.mask_ops += 1.0 + 2.0 * fold.sig.outputs.len() as f64;
        }
    }
    c
}

/// The elementwise flops and the products' multiply-adds of a node.
fn flops(g: &Graph, n: &Node) -> (f64, f64) {
    let elems = |t: &Type| -> f64 {
        t.shape
            .iter()
            .map(|d| d.as_known().unwrap_or(1).max(1) as f64)
            .product()
    };
    let out = n.ty.first().map_or(1.0, elems);
    match n.op {
        Op::Dot | Op::Matmul => {
            let a = g.node(n.args[0]).ty();
            let k = a.shape.last().and_then(Dim::as_known).unwrap_or(1).max(1);
            (0.0, out * k as f64)
        }
        _ => (out, 0.0),
    }
}

/// A fresh symbol `base` (with underscores added until it names no input
/// and no size of the program).
fn fresh(base: String, taken: &BTreeSet<String>) -> String {
    let mut s = base;
    while taken.contains(&s) {
        s.push('_');
    }
    s
}

/// The list program `p` as one dense program, each map over a list of
/// sequences batched; `lengths` gives each list input's sequence lengths
/// by name when they are known (in `run`): a list is batched only when
/// the batched loop costs less ([`BatchCost`]). Without lengths the
/// rewrite is made whenever it applies (equal lengths assumed: then the
/// batched loop costs `T((k+m)·o + B·f)` against `B·T(k·o + f)`). The
/// error says why the program is not batched.
pub fn batch_lists(
    p: &Program,
    lengths: Option<&BTreeMap<String, Vec<usize>>>,
) -> Result<Batched, NotBatched> {
    match lengths {
        Some(_) => batch_with(p, lengths, true).or_else(|_| batch_with(p, lengths, false)),
        None => batch_with(p, None, false),
    }
}

/// [`batch_lists`], the folds run in length-sorted phases when `phased`
/// (and the lengths are known).
fn batch_with(
    p: &Program,
    lengths: Option<&BTreeMap<String, Vec<usize>>>,
    phased: bool,
) -> Result<Batched, NotBatched> {
    let g = &p.graph;
    if p.shared.count > 0 {
        return Err(NotBatched::SharedVariables);
    }
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for (_, n) in g.params() {
        taken.extend(n.name.clone());
        for d in &n.ty().shape {
            if let Dim::Affine { terms, .. } = d {
                taken.extend(terms.iter().map(|(s, _)| s.clone()));
            }
        }
    }
    // A `grad` runs each batched fold backward too: its steps cost more,
    // its loops no more often (`PhasePlan::LOOP_OVERHEAD` counts both).
    let differentiated = g.nodes.iter().any(|n| matches!(n.op, Op::Grad));
    let mut targets: HashMap<usize, String> = HashMap::new();
    let mut lists = Vec::new();
    let mut costs = Vec::new();
    let mut shift = 0;
    for (id, n) in g.params() {
        let k = id.0;
        if !n.ty().is_list() {
            continue;
        }
        let name = n.name.clone().unwrap_or_default();
        if n.ty().list != 2 {
            return Err(NotBatched::NotSequences { input: name });
        }
        let Some(maps) = maps_over(g, k) else {
            return Err(NotBatched::ListUse { input: name });
        };
        let mut cost = cost_of(g, &maps);
        if differentiated {
            cost = cost.with_backward();
        }
        let lens = lengths.and_then(|l| l.get(&name));
        let plan = lens
            .filter(|_| phased)
            .and_then(|lens| PhasePlan::choose(&cost, lens));
        let compared = lens.map(|lens| {
            let bat = plan.as_ref().map_or(cost.batched(lens), |p| p.cost);
            (cost.per_sequence(lens), bat)
        });
        if let Some((per, bat)) = compared {
            if per <= bat {
                return Err(NotBatched::Costlier {
                    input: name,
                    per_sequence: per,
                    batched: bat,
                });
            }
        }
        costs.push(compared);
        for m in maps {
            targets.insert(m, name.clone());
        }
        let steps = fresh(format!("{name}_steps"), &taken);
        let batch = fresh(format!("{name}_batch"), &taken);
        let phases = plan.map(|plan| {
            let n = plan.phases();
            Phased {
                steps: (0..n)
                    .map(|q| fresh(format!("{steps}{q}"), &taken))
                    .collect(),
                rows: (0..n)
                    .map(|q| fresh(format!("{batch}{q}"), &taken))
                    .collect(),
                ended: (0..n)
                    .map(|q| fresh(format!("{name}_ends{q}"), &taken))
                    .collect(),
                plan,
            }
        });
        let n_inputs = phases.as_ref().map_or(2, |ph| {
            let masked = ph.plan.masked.iter().filter(|&&m| m).count();
            4 * ph.plan.phases() - 1 + masked
        });
        lists.push(PaddedList {
            input: k,
            name,
            padded_input: k + shift,
            steps,
            batch,
            steps_positive: compared.is_some(),
            phases,
        });
        shift += n_inputs - 1;
    }
    if lists.is_empty() {
        return Err(NotBatched::NoListOfSequences);
    }
    let mut w = Writer::new(Span::default());
    let mut map: Vec<Option<NodeId>> = vec![None; g.nodes.len()];
    let mut padded: HashMap<String, (Feed, &PaddedList)> = HashMap::new();
    for (id, n) in g.params() {
        match lists.iter().find(|l| l.input == id.0) {
            Some(l) => {
                let feed = feed_params(&mut w, l, &n.ty().element().element());
                padded.insert(l.name.clone(), (feed, l));
            }
            None => {
                let k = w.g.n_params;
                map[id.0] = Some(w.param(k, n.ty().clone(), n.name.clone()));
            }
        }
    }
    let mut batched_outs: HashMap<usize, Vec<NodeId>> = HashMap::new();
    for i in g.n_params..g.nodes.len() {
        let node = &g.nodes[i];
        w.span = g.span(NodeId(i));
        if let Some(name) = targets.get(&i) {
            let Op::Scan(s) = &node.op else {
                return Err(NotBatched::Internal("a target is not a loop"));
            };
            let (feed, l) = &padded[name];
            let non_seqs = node.args[1..]
                .iter()
                .map(|a| map[a.0].ok_or(NotBatched::CapturedList))
                .collect::<Result<Vec<_>, _>>()?;
            let outs = batch_map(&mut w, s, &non_seqs, feed, l)?;
            batched_outs.insert(i, outs);
            continue;
        }
        // `(len L)` of a batched list: its number of sequences, the
        // batch's size (bound with the padded inputs).
        if node.op == Op::List(ListOp::Len) {
            if let Some(l) = lists
                .iter()
                .find(|l| node.args.first() == Some(&NodeId(l.input)))
            {
                let ty = Type::scalar(DType::I64);
                map[i] = Some(w.push(Op::Size(l.batch.clone()), vec![], vec![ty], None));
                continue;
            }
        }
        let src = node.args.first().and_then(|a| batched_outs.get(&a.0));
        if let (Op::Proj(k), Some(outs)) = (&node.op, src) {
            map[i] = Some(outs[*k]);
            continue;
        }
        let args = node
            .args
            .iter()
            .map(|a| map[a.0].ok_or(NotBatched::OtherUse))
            .collect::<Result<Vec<_>, _>>()?;
        if let (Op::Stack, [a]) = (&node.op, args.as_slice()) {
            let an = w.g.node(*a);
            if an.op == Op::List(ListOp::Unstack) {
                map[i] = Some(an.args[0]);
                continue;
            }
        }
        map[i] = Some(w.copy(node, args)?);
    }
    let mut list_outputs = Vec::new();
    let mut outputs = Vec::new();
    for o in &g.outputs {
        let id = map[o.0].ok_or(NotBatched::OtherUse)?;
        let n = w.g.node(id);
        if n.op == Op::List(ListOp::Unstack) {
            outputs.push(n.args[0]);
            list_outputs.push(true);
        } else {
            outputs.push(id);
            list_outputs.push(false);
        }
    }
    w.g.outputs = outputs;
    let graph = live(&w.g);
    if graph_holds_lists(&graph) {
        return Err(NotBatched::OtherUse);
    }
    Ok(Batched {
        program: Program {
            name: p.name.clone(),
            graph,
            shared: Default::default(),
        },
        lists,
        list_outputs,
        costs,
    })
}

/// The dense inputs standing for list `l` (its sequences' element type
/// `elem`), declared as the next parameters of `w`.
fn feed_params(w: &mut Writer, l: &PaddedList, elem: &Type) -> Feed {
    let index = |w: &mut Writer, size: &str, name: String| {
        let k = w.g.n_params;
        w.param(k, Type::new(DType::I64, vec![Dim::sym(size)]), Some(name))
    };
    let padded = |w: &mut Writer, steps: &str, rows: &str, name: String| {
        let mut shape = vec![Dim::sym(steps), Dim::sym(rows)];
        shape.extend(elem.shape.iter().cloned());
        let k = w.g.n_params;
        w.param(k, Type::new(elem.dtype, shape), Some(name))
    };
    let Some(ph) = &l.phases else {
        let pad = padded(w, &l.steps, &l.batch, format!("{}_padded", l.name));
        let lens = index(w, &l.batch, format!("{}_lengths", l.name));
        return Feed {
            pads: vec![pad],
            lens: vec![Some(lens)],
            nexts: Vec::new(),
            ended: Vec::new(),
        };
    };
    let mut feed = Feed {
        pads: Vec::new(),
        lens: Vec::new(),
        nexts: Vec::new(),
        ended: Vec::new(),
    };
    for (p, &masked) in ph.plan.masked.iter().enumerate() {
        let pad = padded(w, &ph.steps[p], &ph.rows[p], l.padded_name(p));
        feed.pads.push(pad);
        let lens = masked.then(|| index(w, &ph.rows[p], l.lengths_name(p)));
        feed.lens.push(lens);
    }
    for p in 1..ph.plan.phases() {
        let next = index(w, &ph.rows[p], l.next_name(p - 1));
        feed.nexts.push(next);
    }
    for p in 0..ph.plan.phases() {
        let rows = index(w, &ph.ended[p], l.ended_name(p));
        let users = index(w, &ph.ended[p], l.users_name(p));
        feed.ended.push((rows, users));
    }
    feed
}

/// `g` without the nodes its outputs do not reach (parameters kept).
fn live(g: &Graph) -> Graph {
    let mut keep = vec![false; g.nodes.len()];
    keep[..g.n_params].fill(true);
    let mut stack: Vec<NodeId> = g.outputs.clone();
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut keep[id.0], true) && id.0 >= g.n_params {
            continue;
        }
        stack.extend(g.nodes[id.0].args.iter().copied());
    }
    let mut new_id = vec![NodeId(0); g.nodes.len()];
    let mut out = Graph {
        n_params: g.n_params,
        ..Graph::default()
    };
    for (i, n) in g.nodes.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        let mut n = n.clone();
        n.args = n.args.iter().map(|a| new_id[a.0]).collect();
        new_id[i] = out.push(n, g.span(NodeId(i)));
    }
    out.outputs = g.outputs.iter().map(|o| new_id[o.0]).collect();
    out
}

/// The map `outer` over list `l` as top-level nodes of `w`: each of its
/// outputs `(B, ...)`. `non_seqs` are its captured values (top-level ids).
fn batch_map(
    w: &mut Writer,
    outer: &Scan,
    non_seqs: &[NodeId],
    feed: &Feed,
    l: &PaddedList,
) -> Result<Vec<NodeId>, NotBatched> {
    let body = &outer.body;
    let mut v: Vec<Option<V>> = vec![None; body.nodes.len()];
    v[0] = Some(V::Seq);
    for (j, &a) in non_seqs.iter().enumerate() {
        v[1 + j] = Some(V::Unb(a));
    }
    let mut fold_outs: HashMap<usize, Vec<NodeId>> = HashMap::new();
    let mut fold_finals: HashMap<usize, Vec<NodeId>> = HashMap::new();
    // A fold's states reversed (`rev`), then followed by its init
    // (`rev_init`): row 0 of the latter is the fold's result.
    let mut rev: HashMap<NodeId, NodeId> = HashMap::new();
    let mut rev_init: HashMap<NodeId, NodeId> = HashMap::new();
    for i in body.n_params..body.nodes.len() {
        let node = &body.nodes[i];
        let src = node.args.first().and_then(|a| fold_outs.get(&a.0));
        if let (Op::Proj(k), Some(outs)) = (&node.op, src) {
            v[i] = Some(V::States(outs[*k]));
            continue;
        }
        let finals = node.args.first().and_then(|a| fold_finals.get(&a.0));
        if let (Op::Proj(k), Some(outs)) = (&node.op, finals) {
            v[i] = Some(V::Final(outs[*k]));
            continue;
        }
        let args: Vec<V> = node
            .args
            .iter()
            .map(|a| {
                v[a.0]
                    .clone()
                    .ok_or(NotBatched::Internal("an argument before its node"))
            })
            .collect::<Result<_, _>>()?;
        let unb: Option<Vec<NodeId>> = args
            .iter()
            .map(|a| match a {
                V::Unb(id) => Some(*id),
                _ => None,
            })
            .collect();
        let value = match (&node.op, args.as_slice()) {
            (_, _) if unb.is_some() => V::Unb(w.copy(node, unb.unwrap_or_default())?),
            (Op::Stack, [V::Seq]) => V::Stacked,
            (Op::Scan(fold), _) if l.phases.is_some() => {
                let outs = batch_fold_phased(w, fold, &args, feed, l)?;
                fold_finals.insert(i, outs);
                continue;
            }
            (Op::Scan(fold), _) => {
                let (Some(&pad), Some(Some(lens))) = (feed.pads.first(), feed.lens.first()) else {
                    return Err(NotBatched::Internal("a padded batch without its lengths"));
                };
                let outs = batch_fold(w, fold, &args, pad, *lens, l)?;
                fold_outs.insert(i, outs);
                continue;
            }
            (Op::Slice { .. }, [V::Final(f)])
                if node.op
                    == (Op::Slice {
                        start: None,
                        stop: None,
                        step: -1,
                    }) =>
            {
                V::FinalRev(*f)
            }
            (Op::Concat(0), [V::FinalRev(f), V::Unb(_)]) => V::FinalRevInit(*f),
            (Op::Index, [V::FinalRevInit(f), V::Unb(i)])
                if w.g.node(*i).op == Op::Literal(Scalar::I64(0)) =>
            {
                V::Bat(*f)
            }
            (Op::Slice { .. }, [V::States(s)]) => {
                let id = w.op(node.op.clone(), &[*s])?;
                let reversed = Op::Slice {
                    start: None,
                    stop: None,
                    step: -1,
                };
                if node.op == reversed {
                    rev.insert(id, *s);
                }
                V::States(id)
            }
            (Op::Concat(0), [V::States(r), V::Unb(_)]) if rev.contains_key(r) => {
                let init = match &args[1] {
                    // The parser's `(expand_dims INIT 0)`: kept in that
                    // form, `(expand_dims INIT_b 0)` with INIT broadcast
                    // over the batch, so `fold-read-last` and the Scan
                    // rewrites read it as the fold's init row.
                    V::Unb(u) if w.g.node(*u).op == Op::ExpandDims(0) => {
                        let x = w.g.node(*u).args[0];
                        let b = w.broadcast(x, &l.batch, 0)?;
                        w.op(Op::ExpandDims(0), &[b])?
                    }
                    V::Unb(u) => w.broadcast(*u, &l.batch, 1)?,
                    _ => return Err(NotBatched::Internal("a concat's init")),
                };
                let id = w.op(Op::Concat(0), &[*r, init])?;
                rev_init.insert(id, rev[r]);
                V::States(id)
            }
            (Op::Concat(0), _) => {
                let mut parts = Vec::new();
                for a in &args {
                    parts.push(match a {
                        V::States(s) => *s,
                        V::Unb(u) => w.broadcast(*u, &l.batch, 1)?,
                        _ => {
                            return Err(NotBatched::Step("a concat of per-sequence values".into()))
                        }
                    });
                }
                V::States(w.op(Op::Concat(0), &parts)?)
            }
            (Op::Index, [V::States(c), V::Unb(i)])
                if l.steps_positive
                    && rev_init.contains_key(c)
                    && w.g.node(*i).op == Op::Literal(Scalar::I64(0)) =>
            {
                let last = w.op(Op::Literal(Scalar::I64(-1)), &[])?;
                V::Bat(w.op(Op::Index, &[rev_init[c], last])?)
            }
            (Op::Index, [V::States(s), V::Unb(i)])
                if matches!(w.g.node(*i).op, Op::Literal(Scalar::I64(_))) =>
            {
                V::Bat(w.op(Op::Index, &[*s, *i])?)
            }
            (op, _) => {
                return Err(NotBatched::Step(format!(
                    "the map's fn uses its sequence's loop in a {} node",
                    op.name()
                )))
            }
        };
        v[i] = Some(value);
    }
    body.outputs
        .iter()
        .map(|o| match v[o.0].clone() {
            Some(V::Bat(id)) => Ok(id),
            Some(V::Unb(u)) => w.broadcast(u, &l.batch, 0),
            _ => Err(NotBatched::NotAFold),
        })
        .collect()
}

/// The fold `fold`'s inits and captured values (top-level ids), checked:
/// a loop over the map's stacked sequence, its states sitsots, its inits
/// and captured values the same for every sequence.
fn fold_parts(fold: &Scan, args: &[V]) -> Result<(Vec<NodeId>, Vec<NodeId>), NotBatched> {
    let sig = &fold.sig;
    let plain = sig.sequences == [vec![0]]
        && sig.outputs.iter().all(|o| *o == OutputInfo::Sitsot)
        && !sig.has_n_steps
        && !sig.until
        && sig.keep.is_empty()
        && !sig.as_list.iter().any(|&l| l);
    if !plain || !matches!(args.first(), Some(V::Stacked)) {
        return Err(NotBatched::NotAFold);
    }
    let rest: Vec<NodeId> = args[1..]
        .iter()
        .map(|a| match a {
            V::Unb(id) => Ok(*id),
            _ => Err(NotBatched::DependsOnSequence),
        })
        .collect::<Result<_, _>>()?;
    let (inits, caps) = rest.split_at(sig.outputs.len());
    Ok((inits.to_vec(), caps.to_vec()))
}

/// The fold `fold` as one masked loop over the padded batch; its
/// outputs' projections, `(T_max, B, ...)`.
fn batch_fold(
    w: &mut Writer,
    fold: &Scan,
    args: &[V],
    pad: NodeId,
    lens: NodeId,
    l: &PaddedList,
) -> Result<Vec<NodeId>, NotBatched> {
    let (inits, caps) = fold_parts(fold, args)?;
    let states = inits
        .iter()
        .map(|&i| w.broadcast(i, &l.batch, 0))
        .collect::<Result<Vec<_>, _>>()?;
    let steps = w.op(Op::Arange(Dim::sym(&l.steps)), &[])?;
    batch_loop(w, fold, pad, &states, &caps, Some((steps, lens)))
}

/// The fold `fold` in the phases of `l`'s plan (`batch_phases.rs`): one
/// loop per phase on the rows still running (sorted longest first), each
/// phase's last states passed on to the next through `nexts` (a prefix of
/// the rows), and each sequence's final states set from the phase it ends
/// in (`ended`: those rows, and the sequences they are, which undoes the
/// sort) into the init given to every sequence (an empty one keeps it).
/// Its final states, `(B, ...)`, in the sequences' order.
fn batch_fold_phased(
    w: &mut Writer,
    fold: &Scan,
    args: &[V],
    feed: &Feed,
    l: &PaddedList,
) -> Result<Vec<NodeId>, NotBatched> {
    let (inits, caps) = fold_parts(fold, args)?;
    let Some(phases) = &l.phases else {
        return Err(NotBatched::Internal("a phased fold without its plan"));
    };
    if fold.sig.go_backwards {
        return batch_fold_phased_backwards(w, fold, &inits, &caps, feed, l, phases);
    }
    let mut states = inits
        .iter()
        .map(|&i| w.broadcast(i, &phases.rows[0], 0))
        .collect::<Result<Vec<_>, _>>()?;
    let mut results = inits
        .iter()
        .map(|&i| w.broadcast(i, &l.batch, 0))
        .collect::<Result<Vec<_>, _>>()?;
    for (p, &pad) in feed.pads.iter().enumerate() {
        let mask = match feed.lens[p] {
            Some(lens) => Some((w.op(Op::Arange(Dim::sym(&phases.steps[p])), &[])?, lens)),
            None => None,
        };
        let outs = batch_loop(w, fold, pad, &states, &caps, mask)?;
        let last = w.op(Op::Literal(Scalar::I64(-1)), &[])?;
        let (ended, users) = feed.ended[p];
        let mut next = Vec::new();
        for (k, &o) in outs.iter().enumerate() {
            let f = w.op(Op::Index, &[o, last])?;
            let done = w.op(Op::Take(0), &[f, ended])?;
            results[k] = w.op(Op::SetTake(0), &[results[k], done, users])?;
            if let Some(&rows) = feed.nexts.get(p) {
                next.push(w.op(Op::Take(0), &[f, rows])?);
            }
        }
        states = next;
    }
    Ok(results)
}

/// [`batch_fold_phased`] for a backward fold (`foldr`): it starts at each
/// sequence's end, so the phases run last first and the batch grows. The
/// last phase's rows (the longest sequences) start from the init; each
/// earlier phase takes the rows the later one ran (`nexts`, a prefix of
/// its rows) with their last states, and starts its other rows, the
/// sequences that end inside it or at its end, from the init. A row
/// whose sequence ends strictly inside a phase is masked there until the
/// loop reaches its last element (the same `(lt t LENGTHS)` as forwards:
/// the loop reads the step counter backwards too). Every sequence's fold
/// ends at its first element, in phase 0, whose last states are every
/// row's final ones, set into the sequences' places (`ended`, `users`).
fn batch_fold_phased_backwards(
    w: &mut Writer,
    fold: &Scan,
    inits: &[NodeId],
    caps: &[NodeId],
    feed: &Feed,
    l: &PaddedList,
    phases: &Phased,
) -> Result<Vec<NodeId>, NotBatched> {
    let mut carried: Option<Vec<NodeId>> = None;
    for p in (0..feed.pads.len()).rev() {
        let mut states = Vec::with_capacity(inits.len());
        for (k, &i) in inits.iter().enumerate() {
            let fresh = w.broadcast(i, &phases.rows[p], 0)?;
            states.push(match (&carried, feed.nexts.get(p)) {
                (Some(later), Some(&rows)) => w.op(Op::SetTake(0), &[fresh, later[k], rows])?,
                (None, _) => fresh,
                (Some(_), None) => {
                    return Err(NotBatched::Internal(
                        "a phase without the rows it passes on",
                    ))
                }
            });
        }
        let mask = match feed.lens[p] {
            Some(lens) => Some((w.op(Op::Arange(Dim::sym(&phases.steps[p])), &[])?, lens)),
            None => None,
        };
        let outs = batch_loop(w, fold, feed.pads[p], &states, caps, mask)?;
        let last = w.op(Op::Literal(Scalar::I64(-1)), &[])?;
        let finals = outs
            .iter()
            .map(|&o| w.op(Op::Index, &[o, last]))
            .collect::<Result<Vec<_>, _>>()?;
        carried = Some(finals);
    }
    let Some(finals) = carried else {
        return Err(NotBatched::Internal("a phased fold without phases"));
    };
    let mut results = inits
        .iter()
        .map(|&i| w.broadcast(i, &l.batch, 0))
        .collect::<Result<Vec<_>, _>>()?;
    for &(ended, users) in &feed.ended {
        for (k, &f) in finals.iter().enumerate() {
            let done = w.op(Op::Take(0), &[f, ended])?;
            results[k] = w.op(Op::SetTake(0), &[results[k], done, users])?;
        }
    }
    Ok(results)
}

/// One loop of the fold `fold`'s step vectorized over a batch: over the
/// sequence batch `seq` (steps, rows, ...) from the batched `states`, with
/// the captured values `caps`; with `mask` (`(arange steps)` and the rows'
/// lengths), a row keeps its state from its length on. Its outputs'
/// projections, `(steps, rows, ...)`.
fn batch_loop(
    w: &mut Writer,
    fold: &Scan,
    seq: NodeId,
    states: &[NodeId],
    caps: &[NodeId],
    mask: Option<(NodeId, NodeId)>,
) -> Result<Vec<NodeId>, NotBatched> {
    let sig = &fold.sig;
    let n_states = sig.outputs.len();
    let mut new_args = vec![seq];
    new_args.extend(mask.map(|m| m.0));
    new_args.extend_from_slice(states);
    new_args.extend_from_slice(caps);
    new_args.extend(mask.map(|m| m.1));
    let masked = usize::from(mask.is_some());
    let new_sig = LoopSig {
        sequences: vec![vec![0]; 1 + masked],
        outputs: sig.outputs.clone(),
        n_non_seqs: caps.len() + masked,
        has_n_steps: false,
        go_backwards: sig.go_backwards,
        keep: Vec::new(),
        until: false,
        as_list: Vec::new(),
    };
    let arg_tys: Vec<&Type> = new_args.iter().map(|&a| w.ty(a)).collect();
    let param_tys = loop_type::param_types(&new_sig, &arg_tys)
        .map_err(|e| NotBatched::Retype(e.to_string()))?;
    let mut b = Writer::new(w.span);
    let params: Vec<NodeId> = param_tys
        .into_iter()
        .enumerate()
        .map(|(k, t)| b.param(k, t, None))
        .collect();
    let x = params[0];
    let first_state = 1 + masked;
    let hs = &params[first_state..first_state + n_states];
    let cs = &params[first_state + n_states..first_state + n_states + caps.len()];
    let body = &fold.body;
    // Each node of the fold's body: its id in the new body, and whether it
    // is batched (a leading axis B).
    let mut v: Vec<(NodeId, bool)> = Vec::with_capacity(body.nodes.len());
    v.push((x, true));
    v.extend(hs.iter().map(|&h| (h, true)));
    v.extend(cs.iter().map(|&c| (c, false)));
    for node in &body.nodes[body.n_params..] {
        let args: Vec<(NodeId, bool)> = node.args.iter().map(|a| v[a.0]).collect();
        let ids: Vec<NodeId> = args.iter().map(|a| a.0).collect();
        let id = if args.iter().any(|a| a.1) {
            (vmap(&mut b, &node.op, &args)?, true)
        } else {
            (b.copy(node, ids)?, false)
        };
        v.push(id);
    }
    let mask = match mask {
        Some(_) => {
            let (t, blens) = (params[1], params[params.len() - 1]);
            Some(b.op(Op::Compare(CompareOp::Lt), &[t, blens])?)
        }
        None => None,
    };
    let mut results = Vec::new();
    for (k, o) in body.outputs.iter().enumerate() {
        let (r, batched) = v[o.0];
        let Some(mut m) = mask else {
            if !batched {
                return Err(NotBatched::Step("a state the same for every row".into()));
            }
            results.push(r);
            continue;
        };
        for _ in 1..b.ty(hs[k]).ndim() {
            m = b.op(Op::ExpandDims(-1), &[m])?;
        }
        results.push(b.op(Op::Where, &[m, r, hs[k]])?);
    }
    b.g.outputs = results;
    w.scan(new_sig, b.g, &new_args)
}

/// Element rank of a value (its rank without the batch axis).
fn rank(b: &Writer, (id, bat): (NodeId, bool)) -> usize {
    b.ty(id).ndim() - usize::from(bat)
}

/// An axis attribute of an op on an element, on the batched value: a
/// non-negative axis moves past the batch axis; one counted from the end
/// stays.
fn shifted(a: i64) -> i64 {
    if a < 0 {
        a
    } else {
        a + 1
    }
}

/// `op` on arguments some of which are batched (a leading axis B), as one
/// op (or a few) on the batch: the `vmap` of the ops a recurrent step uses.
fn vmap(b: &mut Writer, op: &Op, args: &[(NodeId, bool)]) -> Result<NodeId, NotBatched> {
    let ids: Vec<NodeId> = args.iter().map(|a| a.0).collect();
    match op {
        Op::Unary(_) | Op::Cast(_) | Op::StopGradient => b.op(op.clone(), &ids),
        Op::Binary(_) | Op::Compare(_) | Op::Where | Op::Clip => {
            let top = args.iter().map(|&a| rank(b, a)).max().unwrap_or(0);
            let mut aligned = Vec::new();
            for &a in args {
                let mut id = a.0;
                if a.1 {
                    for _ in rank(b, a)..top {
                        id = b.op(Op::ExpandDims(1), &[id])?;
                    }
                }
                aligned.push(id);
            }
            b.op(op.clone(), &aligned)
        }
        Op::Reduce(r, Some(a)) => b.op(Op::Reduce(*r, Some(shifted(*a))), &ids),
        Op::Reduce(r, None) if rank(b, args[0]) == 1 => b.op(Op::Reduce(*r, Some(1)), &ids),
        Op::Cumulative(c, a) => b.op(Op::Cumulative(*c, shifted(*a)), &ids),
        Op::Normalize(n, a) => b.op(Op::Normalize(*n, shifted(*a)), &ids),
        Op::ExpandDims(a) => b.op(Op::ExpandDims(shifted(*a)), &ids),
        Op::Squeeze(a) => b.op(Op::Squeeze(shifted(*a)), &ids),
        Op::Flip(a) => b.op(Op::Flip(shifted(*a)), &ids),
        Op::Concat(a) if args.iter().all(|a| a.1) => b.op(Op::Concat(shifted(*a)), &ids),
        Op::Transpose(perm) => {
            let r = rank(b, args[0]) as i64;
            let perm: Vec<i64> = match perm {
                None => (0..r).rev().collect(),
                Some(p) => p.iter().map(|&a| if a < 0 { a + r } else { a }).collect(),
            };
            let perm = std::iter::once(0)
                .chain(perm.iter().map(|a| a + 1))
                .collect();
            b.op(Op::Transpose(Some(perm)), &ids)
        }
        Op::Dot => vmap_dot(b, args),
        op => Err(NotBatched::Step(format!("a {} node", op.name()))),
    }
}

/// `(dot A B)` with A or B batched.
fn vmap_dot(b: &mut Writer, args: &[(NodeId, bool)]) -> Result<NodeId, NotBatched> {
    let (x, y) = (args[0], args[1]);
    let (rx, ry) = (rank(b, x), rank(b, y));
    match (rx, x.1, ry, y.1) {
        // vector · vector, matrix · vector, vector · matrix, one batched
        (1, true, 1 | 2, false) => b.op(Op::Dot, &[x.0, y.0]),
        (1, false, 1, true) => b.op(Op::Dot, &[y.0, x.0]),
        (2, false, 1, true) => {
            let t = b.op(Op::Transpose(None), &[x.0])?;
            b.op(Op::Dot, &[y.0, t])
        }
        (2, true, 1 | 2, false) | (2, false, 2, true) | (2, true, 2, true) => {
            b.op(Op::Matmul, &[x.0, y.0])
        }
        (1, true, 1, true) => {
            let p = b.op(Op::Binary(BinaryOp::Mul), &[x.0, y.0])?;
            b.op(Op::Reduce(crate::lang::op::ReduceOp::Sum, Some(1)), &[p])
        }
        (2, true, 1, true) => {
            let y = b.op(Op::ExpandDims(2), &[y.0])?;
            let p = b.op(Op::Matmul, &[x.0, y])?;
            b.op(Op::Squeeze(-1), &[p])
        }
        (1, true, 2, true) => {
            let x = b.op(Op::ExpandDims(1), &[x.0])?;
            let p = b.op(Op::Matmul, &[x, y.0])?;
            b.op(Op::Squeeze(1), &[p])
        }
        (0, _, _, _) | (_, _, 0, _) => vmap(b, &Op::Binary(BinaryOp::Mul), args),
        _ => Err(NotBatched::Step("a dot of these ranks".into())),
    }
}
