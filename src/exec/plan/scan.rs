//! Scan in the plan: a loop whose body is a compiled graph, whose outputs
//! are written row by row into buffers kept across calls.
//!
//! Owns: [`ScanPlan`] (the body's plan and what each body parameter stands
//! for), [`ScanRt`] (the body's runtime, kept across steps and calls) and
//! [`exec`], the loop itself. Its bookkeeping — the step count, the rows
//! each tap reads, the kept rows of each output, the shapes of a loop
//! without steps and the loop errors — is the loop frame the reference
//! interpreter ([`crate::exec::run`]) uses too (`exec::loop_frame`); this
//! file keeps only the storage. Body parameters are views (a row of a
//! sequence, a row of an output buffer, an init, a non-sequence): no step
//! copies its inputs. One exception, once per call rather than per step: a
//! transposed matrix that the body reads only through `dot` is given as a
//! row-major copy, so the matrix-vector products run the row kernel.
//! Each step copies the body's results into its row of the output buffers (a ring buffer of K rows for `(keep K)`, rotated to
//! chronological order at the end), so once the buffers and the body's
//! slots have their sizes a step allocates nothing. A mitmot's buffer is
//! its tape, copied in once per call; in taps are views of its slots, and
//! out taps are copied into their slots after the body (results that view
//! a parameter are copied out first, so every read of a step comes before
//! its writes). The steps after the first run on the body's step tape
//! when it compiles: the loop hands it its data as `f64` slices (a
//! sequence whose rows are each row-major but not the whole, a reversed
//! trace or a strided column, in place by its rows' origin and stride,
//! [`SeqRows`]; a mask, integer data or another layout through a copy
//! made once per call into storage kept across calls, [`Converted`]; an
//! output buffer of another dtype through an `f64` shadow, [`Shadows`])
//! and the body's own loops ([`BodyLoops`]). Must not: differ from
//! the reference loop in any result or error message.

use super::row_major::fill_row_major;
use super::runtime::{internal, Env, GraphRt, Meter, NoParams, Params};
use super::schedule::{GraphPlan, PlanOptions};
use super::step::{
    compile, BufRows, Bufs, Held, Holding, LoopRunner, OffTape, ParamAt, ParamShape, Sources,
    StepTape, Store, MAX_POINTERS,
};
use super::view::{copy_into, with_view, ValView, ViewElem};
use super::view::{Loc as ViewLoc, Root};
use crate::exec::budget::Allocation;
use crate::exec::error::{ExecError, LoopError};
use crate::exec::loop_frame::{LoopFrame, StateRead};
use crate::exec::value::{with_elem, Elem, Value};
use crate::lang::program::{Graph, NodeId, Scan, Span};
use crate::lang::{BodyOutput, BodyParam, DType, Op};
use ndarray::{ArrayViewD, Axis};
use std::cell::RefCell;

/// A compiled loop.
#[derive(Clone, Debug)]
pub struct ScanPlan {
    /// The body.
    pub body: GraphPlan,
    /// What each body parameter stands for.
    pub params: Vec<BodyParam>,
    /// What each body result is for (its output, and a mitmot's out tap).
    pub results: Vec<BodyOutput>,
    /// Per non-sequence: the body reads it only as an operand of `dot`,
    /// so a transposed matrix may be given to the body as a row-major
    /// copy (see [`row_major_invariant`]).
    pub product_only: Vec<bool>,
}

impl ScanPlan {
    /// Compiles a scan's body and its parameter map.
    pub fn compile(scan: &Scan, options: PlanOptions) -> Result<ScanPlan, ExecError> {
        let params = scan.sig.body_params();
        let n_non_seqs = scan.sig.non_seq_args().count();
        let product_only = (0..n_non_seqs)
            .map(|j| {
                let k = params
                    .iter()
                    .position(|p| matches!(p, BodyParam::NonSequence(n) if *n == j));
                k.is_some_and(|k| read_only_by_dot(&scan.body, k))
            })
            .collect();
        Ok(ScanPlan {
            body: GraphPlan::compile(&scan.body, options)?,
            params,
            results: scan.sig.body_outputs(),
            product_only,
        })
    }
}

/// Whether body parameter `k` is read, and only as an operand of `dot`
/// (not an output of the body either).
fn read_only_by_dot(body: &Graph, k: usize) -> bool {
    let Some(p) = body
        .nodes
        .iter()
        .position(|n| matches!(n.op, Op::Input(i) if i == k))
    else {
        return false;
    };
    let mut read = false;
    for n in &body.nodes {
        if n.args.iter().any(|a| a.0 == p) {
            if !matches!(n.op, Op::Dot) {
                return false;
            }
            read = true;
        }
    }
    read && body.outputs.iter().all(|o| o.0 != p)
}

/// Whether a loop of `steps` steps should read invariant `v` (read only
/// by `dot`) from a row-major copy: `v` is a transposed row-major matrix
/// of floats (`W` read as `Wᵀ`), and the loop takes two steps or more.
/// The matrix-vector kernels give the same bits for every layout, but a
/// column-major matrix goes through the slower column kernel at every
/// step, where one copy before the loop costs less than one step.
fn row_major_invariant(v: &ValView<'_>, steps: usize) -> bool {
    fn transposed<T>(a: &ndarray::ArrayViewD<'_, T>) -> bool {
        a.ndim() == 2 && a.len() > 1 && !a.is_standard_layout() && a.t().is_standard_layout()
    }
    steps >= 2
        && match v {
            ValView::F64(a) => transposed(a),
            ValView::F32(a) => transposed(a),
            ValView::I64(_) | ValView::I32(_) | ValView::Bool(_) => false,
        }
}

/// The runtime of one scan node, kept across steps and calls.
#[derive(Debug)]
pub struct ScanRt {
    body: GraphRt,
    /// Copies of body results that are views of the step's parameters
    /// (they must be read before the output buffers are written).
    scratch: Vec<Option<Value>>,
    /// Row-major copies of transposed invariants, one per non-sequence
    /// (see [`row_major_invariant`]); the storage is kept across calls.
    invariants: Vec<Option<Value>>,
    /// The bytes the copies of this call hold (on the meter).
    invariants_held: usize,
    /// The body's step tape.
    step: TapeRt,
    /// The storage of the tape's converted copies of the loop's data
    /// ([`Converted`]), by argument, kept across calls.
    converted: Vec<Vec<f64>>,
}

/// A loop's step tape, kept across calls.
#[derive(Debug, Default)]
struct TapeRt {
    /// The body compiled for the shapes of the last call that tried
    /// (`None` inside: it does not compile), with what it was made for.
    tape: Option<(TapeKey, Option<StepTape>)>,
    /// Where each body parameter is on the current step.
    at: Vec<ParamAt>,
    /// The whole native loop's layouts for the last frame it ran in
    /// (cleared with a new tape).
    layouts: Option<NativeLayouts>,
    /// The bytes the tape's arena holds during a call (on the meter).
    held: usize,
    /// Why the last call ran its steps on the plan (`None`: it did not,
    /// or has not run).
    off: Option<OffTape>,
    /// Per output buffer that is not `f64`, its elements as the tape
    /// reads and writes them ([`Shadows`]); kept across calls.
    shadows: Vec<Vec<f64>>,
}

impl ScanRt {
    /// This loop and the loops in its body: how many have a step tape,
    /// and how many there are.
    pub fn loops_on_tape(&self) -> (usize, usize) {
        let own = matches!(self.step.tape, Some((_, Some(_)))) as usize;
        let (a, b) = self.body.loops_on_tape();
        (own + a, 1 + b)
    }

    /// Each loop without a step tape, this one then those in its body,
    /// with why it ran off the tape, appended to `out`: `span` is this
    /// loop's place in the program, `plan` its own plan.
    pub fn loops_off_tape(&self, plan: &ScanPlan, span: Span, out: &mut Vec<(Span, OffTape)>) {
        if !matches!(self.step.tape, Some((_, Some(_)))) {
            out.push((span, self.step.off.unwrap_or(OffTape::FewSteps)));
        }
        self.body.loops_off_tape(&plan.body, out);
    }

    /// What a step of this loop, then of each loop in its body, runs on
    /// its tape (loops without a tape are skipped), appended to `out`.
    pub fn step_census(&self, out: &mut Vec<super::step::StepCensus>) {
        if let Some((_, Some(t))) = &self.step.tape {
            out.push(t.census());
        }
        self.body.step_census(out);
    }

    /// This loop and the loops in its body: how many run machine code on
    /// their step tape.
    pub fn loops_native(&self) -> usize {
        let own = matches!(&self.step.tape, Some((_, Some(t))) if t.runs_native()) as usize;
        own + self.body.loops_native()
    }

    /// This loop and the loops in its body: how many have a whole native
    /// loop on their step tape.
    pub fn loops_native_whole(&self) -> usize {
        let own = matches!(&self.step.tape, Some((_, Some(t))) if t.has_native_loop()) as usize;
        own + self.body.loops_native_whole()
    }
}

/// What a step tape was compiled for: the size generation, what it knew
/// of each body parameter and the shape of each body result.
#[derive(Clone, Debug, PartialEq)]
struct TapeKey {
    gen: u64,
    params: Vec<ParamShape>,
    results: Vec<Vec<usize>>,
    /// How each parameter's store holds it.
    params_held: Vec<Held>,
    /// How each result's row holds it.
    results_held: Vec<Held>,
}

impl ScanRt {
    fn new(plan: &ScanPlan, n_out: usize) -> ScanRt {
        ScanRt {
            body: GraphRt::new(&plan.body),
            scratch: (0..n_out).map(|_| None).collect(),
            invariants: plan.product_only.iter().map(|_| None).collect(),
            invariants_held: 0,
            converted: Vec::new(),
            step: TapeRt::default(),
        }
    }
}

/// The parameters of one step. `'s` is how long the step borrows the
/// loop's state; `'v` how long the argument views live.
struct StepParams<'s, 'v> {
    t: usize,
    map: &'s [BodyParam],
    frame: &'s LoopFrame,
    seqs: &'s [ValView<'v>],
    inits: &'s [ValView<'v>],
    bufs: &'s [Option<Value>],
    non_seqs: &'s [ValView<'v>],
}

impl Params for StepParams<'_, '_> {
    fn param(&self, k: usize) -> Option<ValView<'_>> {
        match *self.map.get(k)? {
            BodyParam::Sequence { seq, tap } => self
                .seqs
                .get(seq)?
                .row(self.frame.seq_row(seq, tap, self.t)?),
            BodyParam::State { out, tap } => match self.frame.state_read(out, tap, self.t)? {
                StateRead::Written(r) => ValView::of(self.bufs.get(out)?.as_ref()?).into_row(r),
                StateRead::Init(i) => self.inits.get(i).map(|v| v.reborrow()),
                StateRead::InitRow(i, r) => self.inits.get(i)?.row(r),
            },
            BodyParam::NonSequence(j) => self.non_seqs.get(j).map(|v| v.reborrow()),
        }
    }
}

fn scalar_i64(v: &ValView<'_>) -> Option<i64> {
    match v {
        ValView::I64(a) if a.ndim() == 0 => a.iter().next().copied(),
        _ => None,
    }
}

/// Grows output `k`'s buffer `buf` (of a while loop, when it keeps every
/// step) to hold step `t`'s row, when it does not yet
/// ([`LoopFrame::grow_for`]), the new size checked against the budget. A
/// buffer the first step has not made yet is left to it.
fn grow_buffer(
    frame: &mut LoopFrame,
    buf: &mut Option<Value>,
    k: usize,
    t: usize,
    out_ty: &crate::lang::Type,
    env: Env<'_>,
    span: crate::lang::program::Span,
) -> Result<(), ExecError> {
    let Some(b) = buf.as_mut() else {
        return Ok(());
    };
    let Some(rows) = frame.grow_for(k, t) else {
        return Ok(());
    };
    let mut shape = b.shape().to_vec();
    if let Some(first) = shape.first_mut() {
        *first = rows;
    }
    check_output(env, span, k, out_ty.dtype, &shape)?;
    b.resize_rows(rows);
    Ok(())
}

/// Checks a buffer of `shape` for output `k` against the budget.
fn check_output(
    env: Env<'_>,
    span: crate::lang::program::Span,
    k: usize,
    dtype: DType,
    shape: &[usize],
) -> Result<(), ExecError> {
    env.budget
        .check(Allocation::LoopOutput(k), dtype, shape)
        .map_err(|over| ExecError::OverBudget {
            span,
            op: "scan".to_string(),
            over: Box::new(over),
        })
}

/// The truth of a while loop's condition (see [`Value::scalar_truth`]).
fn scalar_truth(v: &ValView<'_>) -> Option<bool> {
    if v.ndim() != 0 {
        return None;
    }
    with_view!(v, a => a.iter().next().map(|&x| crate::exec::value::truth(x)))
}

/// Shapes buffer `b` as `rows` rows of `step` of `dtype`, reusing its
/// storage.
fn shape_buffer(
    b: &mut Option<Value>,
    dtype: DType,
    rows: usize,
    step: &[usize],
) -> Result<(), String> {
    let mut shape = Vec::with_capacity(step.len() + 1);
    shape.push(rows);
    shape.extend_from_slice(step);
    let ok = with_elem!(dtype, T => super::kernels::ensure::<T>(b, &shape).is_some());
    if ok {
        Ok(())
    } else {
        crate::exec::value::checked_len(&shape, dtype)?;
        Err(format!(
            "cannot allocate an output of shape {}",
            crate::exec::value::shape_str(&shape)
        ))
    }
}

/// Copies `src` into row `i` of `dst`, converting as `astype`; false when
/// the shapes differ.
fn set_row(dst: &mut Value, i: usize, src: &ValView<'_>) -> bool {
    fn put<T: ViewElem>(d: &mut ndarray::ArrayD<T>, i: usize, s: &ValView<'_>) -> bool {
        if d.ndim() == 0 || i >= d.shape()[0] {
            return false;
        }
        let mut r = d.index_axis_mut(Axis(0), i);
        if r.shape() != s.shape() {
            return false;
        }
        // Same dtype, both contiguous: one memcpy.
        if let Some(v) = T::of_view(s) {
            if let (Some(src), Some(dst)) = (v.as_slice(), r.as_slice_mut()) {
                dst.copy_from_slice(src);
                return true;
            }
        }
        with_view!(s, a => r.zip_mut_with(a, |x, y| *x = y.cast::<T>()));
        true
    }
    match dst {
        Value::F64(d) => put(d, i, src),
        Value::F32(d) => put(d, i, src),
        Value::I64(d) => put(d, i, src),
        Value::I32(d) => put(d, i, src),
        Value::Bool(d) => put(d, i, src),
    }
}

/// Rotates the rows of a ring buffer so that row `start` comes first.
fn rotate_rows(b: &mut Value, start: usize) {
    fn rot<T: Elem>(a: &mut ndarray::ArrayD<T>, start: usize) {
        let rows = a.shape().first().copied().unwrap_or(0);
        if rows == 0 {
            return;
        }
        let per_row = a.len() / rows;
        match a.as_slice_mut() {
            Some(s) => s.rotate_left(start * per_row),
            None => {
                let mut o = a.clone();
                for i in 0..rows {
                    o.index_axis_mut(Axis(0), i)
                        .assign(&a.index_axis(Axis(0), (start + i) % rows));
                }
                *a = o;
            }
        }
    }
    match b {
        Value::F64(a) => rot(a, start),
        Value::F32(a) => rot(a, start),
        Value::I64(a) => rot(a, start),
        Value::I32(a) => rot(a, start),
        Value::Bool(a) => rot(a, start),
    }
}

/// Runs scan node `i` of `plan`; its outputs go to the node's slots.
pub fn exec(
    rt: &mut GraphRt,
    plan: &GraphPlan,
    i: usize,
    params: &dyn Params,
    env: Env<'_>,
    meter: &mut Meter,
) -> Result<(), ExecError> {
    let node = &plan.graph.nodes[i];
    let (Op::Scan(scan), Some(sp)) = (&node.op, plan.nodes[i].scan.as_deref()) else {
        return Err(internal(plan, i, "a loop without its plan"));
    };
    let slots = &plan.nodes[i].slots;
    let n_out = scan.sig.outputs.len();
    if slots.len() != n_out || node.ty.len() != n_out {
        return Err(internal(plan, i, "a loop with the wrong number of outputs"));
    }
    let mut srt = match rt.scans[i].take() {
        Some(s) => s,
        None => Box::new(ScanRt::new(sp, sp.results.len())),
    };
    let mut bufs: Vec<Option<Value>> = slots.iter().map(|&s| rt.slots[s].val.take()).collect();
    let r = run_loop(
        rt, plan, i, scan, sp, params, env, meter, &mut srt, &mut bufs,
    );
    // The invariants' copies are released from the meter's account (their
    // storage stays for the next call).
    meter.resize(&mut srt.invariants_held, 0);
    meter.resize(&mut srt.step.held, 0);
    for (&s, b) in slots.iter().zip(bufs) {
        let bytes = b.as_ref().map_or(0, |v| v.len_bytes());
        let slot = &mut rt.slots[s];
        slot.val = b;
        meter.resize(&mut slot.held, bytes);
    }
    rt.scans[i] = Some(srt);
    r
}

#[allow(clippy::too_many_arguments)]
fn run_loop(
    rt: &GraphRt,
    plan: &GraphPlan,
    i: usize,
    scan: &Scan,
    sp: &ScanPlan,
    params: &dyn Params,
    env: Env<'_>,
    meter: &mut Meter,
    srt: &mut ScanRt,
    bufs: &mut [Option<Value>],
) -> Result<(), ExecError> {
    let node = &plan.graph.nodes[i];
    let span = plan.graph.span(NodeId(i));
    let fail = |msg: String| ExecError::Op {
        span,
        op: "scan".to_string(),
        msg,
    };
    let loop_err = |reason| ExecError::Loop { span, reason };
    if node.args.len() != scan.sig.n_args() {
        return Err(internal(plan, i, "wrong number of arguments"));
    }
    let mut args: Vec<ValView<'_>> = Vec::with_capacity(node.args.len());
    for a in &node.args {
        match rt.view(a.0, params) {
            Some(v) => args.push(v),
            None => return Err(internal(plan, i, "argument not computed")),
        }
    }
    let sig = &scan.sig;
    let seq_lens: Vec<usize> = sig
        .seq_args()
        .map(|k| args[k].shape().first().copied().unwrap_or(0))
        .collect();
    let inits: Vec<ValView<'_>> = sig.init_args().map(|k| args[k].clone()).collect();
    let init_shapes: Vec<&[usize]> = inits.iter().map(|v| v.shape()).collect();
    let given = sig.n_steps_arg().map(|k| scalar_i64(&args[k]));
    let mut frame = LoopFrame::new(sig, &seq_lens, given, &init_shapes).map_err(loop_err)?;
    let mut non_seqs: Vec<ValView<'_>> = sig.non_seq_args().map(|k| args[k].clone()).collect();
    // Transposed matrices read only by products: one row-major copy each,
    // made once per call (no larger than the value it copies, which was
    // checked against the budget when it was made).
    let mut copied = vec![false; non_seqs.len()];
    let mut copy_bytes = 0;
    for (j, v) in non_seqs.iter().enumerate() {
        if !(sp.product_only.get(j) == Some(&true) && row_major_invariant(v, frame.steps())) {
            continue;
        }
        let Some(slot) = srt.invariants.get_mut(j) else {
            return Err(internal(plan, i, "a loop invariant without storage"));
        };
        let ok = with_elem!(v.dtype(), T => super::kernels::ensure::<T>(slot, v.shape()).is_some());
        if !ok || !slot.as_mut().is_some_and(|d| copy_into(d, v)) {
            return Err(internal(plan, i, "cannot copy a loop invariant"));
        }
        copy_bytes += slot.as_ref().map_or(0, |c| c.len_bytes());
        copied[j] = true;
    }
    meter.resize(&mut srt.invariants_held, copy_bytes);
    for ((v, copy), &c) in non_seqs.iter_mut().zip(&srt.invariants).zip(&copied) {
        if let (true, Some(copy)) = (c, copy) {
            *v = ValView::of(copy);
        }
    }
    let seqs: Vec<ValView<'_>> = sig.seq_args().map(|k| args[k].clone()).collect();
    let mut out_nodes: Vec<usize> = sp.body.graph.outputs.iter().map(|o| o.0).collect();
    if out_nodes.len() != sig.n_body_results() {
        return Err(internal(
            plan,
            i,
            "the body has the wrong number of outputs",
        ));
    }
    // A while loop's condition: the body's last result.
    let cond_node = sig.until_result().map(|c| out_nodes[c]);
    out_nodes.truncate(sp.results.len());
    if out_nodes.len() != sp.results.len() {
        return Err(internal(
            plan,
            i,
            "the body has the wrong number of outputs",
        ));
    }
    // A mitmot's buffer is a copy of its tape, made once per call into
    // storage kept across calls (the tape is an input value, never
    // written); the steps then read and write its slots in place.
    for (k, init) in sig.init_index().into_iter().enumerate() {
        let Some(tape) = init.filter(|_| frame.is_tape(k)).and_then(|n| inits.get(n)) else {
            continue;
        };
        let out_ty = &node.ty[k];
        env.budget
            .check(Allocation::LoopOutput(k), out_ty.dtype, tape.shape())
            .map_err(|over| ExecError::OverBudget {
                span,
                op: "scan".to_string(),
                over: Box::new(over),
            })?;
        let step = tape.shape().get(1..).unwrap_or(&[]);
        shape_buffer(&mut bufs[k], out_ty.dtype, frame.rows(k), step).map_err(&fail)?;
        if !bufs[k].as_mut().is_some_and(|b| copy_into(b, tape)) {
            return Err(internal(plan, i, "a mitmot tape of another shape"));
        }
    }
    let mut param_rooted = vec![false; out_nodes.len()];
    if !plan.options.step_tape {
        srt.step.off = Some(OffTape::Disabled);
    } else if frame.steps() < 2 && !matches!(srt.step.tape, Some((_, Some(_)))) {
        srt.step.off = Some(OffTape::FewSteps);
    }
    let mut t = 0;
    while t < frame.steps() {
        if t == 1 {
            let elements = (seqs.iter().chain(&inits).map(|v| v.len()))
                .chain(bufs.iter().flatten().map(|b| b.len()));
            if frame.later_steps_are_empty(elements) {
                srt.step.off = Some(OffTape::EmptySteps);
                break;
            }
        }
        // After the first step (which sized the buffers and checked every
        // shape), the rest on the step tape when the body compiles to one.
        // (A body known not to compile at these sizes is not tried again.)
        let known_failure = matches!(&srt.step.tape, Some((k, None)) if k.gen == env.gen);
        if t == 1 && plan.options.step_tape && !known_failure {
            let data = LoopData {
                seqs: &seqs,
                inits: &inits,
                non_seqs: &non_seqs,
            };
            let converted = data.converted(&mut srt.converted);
            let slices = data.slices(&converted);
            // A while loop runs on the tape in stretches, each up to the
            // first step its growing buffers have no row for; they grow
            // between stretches (a for loop: one stretch).
            let mut from = 1;
            // Set when a while loop's condition held on the tape.
            let mut stopped = false;
            while from < frame.steps() {
                for (k, out_ty) in node.ty.iter().enumerate() {
                    grow_buffer(&mut frame, &mut bufs[k], k, from, out_ty, env, span)?;
                }
                let ready = ready_tape(
                    &mut srt.step,
                    sp,
                    scan,
                    &data,
                    &converted,
                    &slices,
                    bufs,
                    env,
                    meter,
                );
                let Some(ready) = ready else { break };
                // Machine code once the call runs enough steps: a for
                // loop knows its count; a while loop's bound says
                // nothing of the steps that run, so it compiles once
                // `min` steps have run on the tape in a call (its first
                // stretch ends there; a later call finds it compiled).
                let native_steps = plan.options.native_steps;
                let mut to = frame.room_from(from);
                match native_steps {
                    Some(min) if frame.is_while() && from < min && !ready.tape.native_tried() => {
                        to = to.min(min)
                    }
                    Some(min) if frame.is_while() || frame.steps() > min => {
                        ready.tape.make_native(sig.until_result());
                    }
                    _ => {}
                }
                meter.transient(converted.bytes());
                let loops = BodyLoops {
                    plan: &sp.body,
                    rt: RefCell::new(&mut srt.body),
                    env,
                    meter: RefCell::new(&mut *meter),
                    error: RefCell::new(None),
                };
                let last = run_on_tape(
                    ready,
                    sp,
                    &frame,
                    &slices,
                    bufs,
                    from,
                    to,
                    sig.until_result(),
                    &loops,
                );
                let Some(last) = last else {
                    return Err(loops
                        .error
                        .take()
                        .unwrap_or_else(|| tape_error(&srt.step, sp, plan, i)));
                };
                if let Some(last) = last {
                    frame.stop_after(last);
                    stopped = true;
                    break;
                }
                from = to;
            }
            drop(slices);
            converted.give_back(&mut srt.converted);
            // Every step ran on the tape, or the loop stopped there.
            if stopped || from >= frame.steps() {
                break;
            }
            // The tape was not ready for a later stretch: the plan runs
            // the rest (or every step from the second, when it never was).
            if from > 1 {
                t = from;
                continue;
            }
        }
        {
            let step = StepParams {
                t,
                map: &sp.params,
                frame: &frame,
                seqs: &seqs,
                inits: &inits,
                bufs,
                non_seqs: &non_seqs,
            };
            srt.body.run(&sp.body, &step, env, meter)?;
            // Results that are views of this step's parameters are copied
            // out before the buffers they may point into are written.
            for (k, &o) in out_nodes.iter().enumerate() {
                param_rooted[k] = matches!(srt.body.locs[o].root, super::view::Root::Param(_));
                if !param_rooted[k] {
                    continue;
                }
                let Some(v) = srt.body.view(o, &step) else {
                    return Err(internal(plan, i, "body output not computed"));
                };
                let s = &mut srt.scratch[k];
                let ok =
                    with_elem!(v.dtype(), T => super::kernels::ensure::<T>(s, v.shape()).is_some());
                if !ok || !s.as_mut().is_some_and(|d| copy_into(d, &v)) {
                    return Err(fail(format!(
                        "cannot copy the step's output of shape {}",
                        crate::exec::value::shape_str(v.shape())
                    )));
                }
            }
        }
        for (j, (&o, &result)) in out_nodes.iter().zip(&sp.results).enumerate() {
            let k = result.out;
            let out_ty = &node.ty[k];
            let v = if param_rooted[j] {
                srt.scratch[j].as_ref().map(ValView::of)
            } else {
                srt.body.view(o, &NoParams)
            };
            let Some(v) = v else {
                return Err(internal(plan, i, "body output not computed"));
            };
            frame.check_returned(k, v.shape()).map_err(loop_err)?;
            grow_buffer(&mut frame, &mut bufs[k], k, t, out_ty, env, span)?;
            if t == 0 && !frame.is_tape(k) {
                // A while loop's buffer from the last call, of this step
                // shape, keeps the rows it had.
                if let Some(b) = bufs[k].as_ref() {
                    if frame.is_while() && b.shape().get(1..) == Some(v.shape()) {
                        frame.adopt_rows(k, b.shape().first().copied().unwrap_or(0));
                    }
                }
                let mut shape = Vec::with_capacity(v.ndim() + 1);
                shape.push(frame.rows(k));
                shape.extend_from_slice(v.shape());
                check_output(env, span, k, out_ty.dtype, &shape)?;
                shape_buffer(&mut bufs[k], out_ty.dtype, frame.rows(k), v.shape())
                    .map_err(&fail)?;
            }
            let Some(buf) = bufs[k].as_mut() else {
                return Err(internal(plan, i, "output buffer missing"));
            };
            let Some(r) = frame.result_row(result, t) else {
                return Err(internal(plan, i, "a mitmot slot out of range"));
            };
            if !set_row(buf, r, &v) {
                return Err(loop_err(LoopError::StepShape {
                    out: k,
                    step: t,
                    got: v.shape().to_vec(),
                    earlier: buf.shape()[1..].to_vec(),
                }));
            }
        }
        // A while loop stops after the step whose condition holds.
        if let Some(c) = cond_node {
            let holds = srt
                .body
                .view(c, &NoParams)
                .and_then(|v| scalar_truth(&v))
                .ok_or_else(|| internal(plan, i, "the loop condition is not a scalar"))?;
            if holds {
                frame.stop_after(t);
                break;
            }
        }
        t += 1;
    }
    let bind = |s: &str| env.dims.get(s).copied();
    for (k, out_ty) in node.ty.iter().enumerate() {
        if frame.is_tape(k) {
            continue;
        }
        // A while loop's buffer holds its first `rows` rows.
        if frame.is_while() && frame.steps() > 0 {
            if let Some(b) = bufs[k].as_mut() {
                b.resize_rows(frame.rows(k));
            }
        }
        if frame.steps() > 0 {
            let start = frame.oldest_row(k);
            if start != 0 {
                if let Some(b) = bufs[k].as_mut() {
                    rotate_rows(b, start);
                }
            }
            continue;
        }
        let step = frame.zero_step_shape(k, out_ty, &bind).map_err(loop_err)?;
        shape_buffer(&mut bufs[k], out_ty.dtype, 0, &step).map_err(&fail)?;
    }
    Ok(())
}

/// A loop's argument views during one call.
struct LoopData<'s, 'v> {
    seqs: &'s [ValView<'v>],
    inits: &'s [ValView<'v>],
    non_seqs: &'s [ValView<'v>],
}

/// Each argument view's data as contiguous `f64`: the view's own data
/// (a sequence's from its lowest element to its highest, [`SeqRows`]),
/// or its converted copy.
struct LoopSlices<'a> {
    seqs: Vec<Option<&'a [f64]>>,
    /// Per sequence read in place but not row-major as a whole, where
    /// its rows are (`None`: row `r` at `r` times the row's elements).
    seq_rows: Vec<Option<SeqRows>>,
    inits: Vec<Option<&'a [f64]>>,
    non_seqs: Vec<Option<&'a [f64]>>,
}

impl<'a> LoopSlices<'a> {
    /// What a step of the tape reads: these slices and the buffers `bufs`,
    /// the body's loops run by `loops`.
    fn sources<'s>(&'s self, bufs: Bufs<'s>, loops: &'s dyn LoopRunner) -> Sources<'s> {
        Sources {
            seqs: &self.seqs,
            inits: &self.inits,
            non_seqs: &self.non_seqs,
            bufs,
            loops: Some(loops),
        }
    }
}

/// The loops of a loop's body, run for its step tape ([`LoopRunner`]):
/// the plan's own loop runner ([`exec`]) on the body's runtime (each
/// nested loop's storage and step tape, as the plan's steps left them),
/// with the call's sizes and meter. The first error a loop meets is kept
/// here, for the outer loop to return as the plan would have.
struct BodyLoops<'r> {
    plan: &'r GraphPlan,
    rt: RefCell<&'r mut GraphRt>,
    env: Env<'r>,
    meter: RefCell<&'r mut Meter>,
    error: RefCell<Option<ExecError>>,
}

/// The operands of a nested loop, as the parameters its argument nodes
/// point at while it runs on the tape.
struct ArgValues<'v>(&'v [&'v Value]);

impl Params for ArgValues<'_> {
    fn param(&self, k: usize) -> Option<ValView<'_>> {
        self.0.get(k).map(|v| ValView::of(v))
    }

    fn whole(&self, k: usize) -> Option<&Value> {
        self.0.get(k).copied()
    }
}

impl LoopRunner for BodyLoops<'_> {
    fn run_loop(
        &self,
        node: usize,
        args: &[&Value],
        out: &mut dyn FnMut(usize, &Value) -> Option<()>,
    ) -> Result<(), bool> {
        let mut rt = self.rt.borrow_mut();
        let mut meter = self.meter.borrow_mut();
        let n = self.plan.graph.nodes.get(node).ok_or(false)?;
        // Each operand's node points at its value while the loop runs
        // (its own place saved, and restored after).
        let mut saved: Vec<(usize, ViewLoc)> = Vec::with_capacity(n.args.len());
        for (j, a) in n.args.iter().enumerate() {
            if saved.iter().any(|&(x, _)| x == a.0) {
                continue;
            }
            let at = ViewLoc {
                root: Root::Param(j),
                steps: Vec::new(),
            };
            let loc = rt.locs.get_mut(a.0).ok_or(false)?;
            saved.push((a.0, std::mem::replace(loc, at)));
        }
        let r = exec(
            &mut rt,
            self.plan,
            node,
            &ArgValues(args),
            self.env,
            &mut meter,
        );
        for (a, loc) in saved {
            if let Some(l) = rt.locs.get_mut(a) {
                *l = loc;
            }
        }
        if let Err(e) = r {
            *self.error.borrow_mut() = Some(e);
            return Err(true);
        }
        let slots = &self.plan.nodes.get(node).ok_or(false)?.slots;
        for (k, &s) in slots.iter().enumerate() {
            let v = rt.slots.get(s).and_then(|s| s.val.as_ref()).ok_or(false)?;
            out(k, v).ok_or(false)?;
        }
        Ok(())
    }
}

/// Copies, in `f64` and in order, of the argument views the tape cannot
/// read in place (a boolean mask, an integer sequence, a non-sequence or
/// init not in row-major order, a sequence whose rows are not each
/// row-major), made once per call for the step tape into storage kept
/// across calls. Booleans become 1.0 and 0.0 and integers their exact
/// `f64` (what every specialized instruction reads them as), and `i64`
/// data with an element past 2^53 (a random key) and every `i64` init (an
/// `i64` state's first rows, read where the state's buffer is read, which
/// holds bits: see [`Shadows`]) their 64 bits ([`Held`]), which only the
/// plan's kernels read. An `f64` sequence whose rows are each row-major
/// (a reversed trace, a strided column) is read in place ([`SeqRows`]).
struct Converted {
    seqs: Vec<Option<Vec<f64>>>,
    inits: Vec<Option<Vec<f64>>>,
    non_seqs: Vec<Option<Vec<f64>>>,
    /// How each copy holds its elements (`Num` for views read in place).
    seqs_held: Vec<Held>,
    non_seqs_held: Vec<Held>,
}

/// The largest integer magnitude whose `f64` is exact (2^53).
const EXACT_INT: u64 = 1 << 53;

/// The most elements one converted copy may have (8 MB).
const MAX_CONVERTED: usize = 1 << 20;

/// Where the rows of a sequence read in place are in the data the tape
/// sees of it ([`LoopSlices::seqs`]): row `r` starts at element
/// `origin + r·stride` (`stride` negative for a reversed sequence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SeqRows {
    origin: usize,
    stride: isize,
}

impl SeqRows {
    /// The first element of row `r`.
    #[inline(always)]
    fn start(self, r: usize) -> Option<usize> {
        let off = isize::try_from(r).ok()?.checked_mul(self.stride)?;
        self.origin.checked_add_signed(off)
    }
}

/// The data of the `f64` sequence `a` from its lowest element to its
/// highest, and where its rows are in it, when it is not row-major as a
/// whole but each row is (its rows `|stride|` elements apart, in either
/// direction); `None` otherwise (and for a sequence without elements).
fn rows_in_place<'a>(a: &ArrayViewD<'a, f64>) -> Option<(&'a [f64], SeqRows)> {
    let n = *a.shape().first()?;
    let row: usize = a.shape().get(1..)?.iter().product();
    if n == 0 || row == 0 || a.is_standard_layout() {
        return None;
    }
    if !a.index_axis(Axis(0), 0).is_standard_layout() {
        return None;
    }
    let stride = if n == 1 { row as isize } else { a.strides()[0] };
    let last = stride.checked_mul(isize::try_from(n - 1).ok()?)?;
    let lo = last.min(0);
    let len = usize::try_from(last.max(0) - lo).ok()?.checked_add(row)?;
    let origin = lo.unsigned_abs();
    // SAFETY: every element of `a` is at `as_ptr() + r·stride + j` for
    // a row r < n and j < row, so inside the `len` elements from
    // `as_ptr() + lo`; the views the plan makes are views of one value's
    // buffer (an owned array: [`ValView::of`]), whose elements are all
    // initialized, and what lies between two rows is of that buffer
    // too. Nothing writes a loop's sequences while it runs (its
    // outputs are its own buffers), and the slice lives no longer than
    // the view's borrow.
    let data = unsafe { std::slice::from_raw_parts(a.as_ptr().offset(lo), len) };
    Some((data, SeqRows { origin, stride }))
}

impl<'s> LoopData<'s, '_> {
    /// The copies of this call's data the tape cannot read in place,
    /// in `pool`'s storage (by argument, seqs then inits then
    /// non-sequences; give it back with [`Converted::give_back`]).
    fn converted(&self, pool: &mut Vec<Vec<f64>>) -> Converted {
        fn of(
            views: &[ValView<'_>],
            inits: bool,
            seqs: bool,
            pool: &mut [Vec<f64>],
        ) -> (Vec<Option<Vec<f64>>>, Vec<Held>) {
            views
                .iter()
                .zip(pool.iter_mut())
                .map(|(v, slot)| {
                    let mut take = |len: usize| {
                        let mut out = std::mem::take(slot);
                        out.clear();
                        out.resize(len, 0.0);
                        out
                    };
                    match v {
                        ValView::F64(a) if a.is_standard_layout() => (None, Held::Num),
                        ValView::F64(a) if seqs && rows_in_place(a).is_some() => (None, Held::Num),
                        // Integers past 2^53 have no exact f64 (the tape
                        // reads integers as indices too, `Instr::IndexAt`):
                        // their bits, for the kernels. An `i64` init: its
                        // bits, as its state's buffer holds them.
                        ValView::I64(a)
                            if a.len() <= MAX_CONVERTED
                                && (inits || a.iter().any(|y| y.unsigned_abs() > EXACT_INT)) =>
                        {
                            let mut out = take(a.len());
                            fill_row_major(a, &mut out, |y| f64::from_bits(y as u64));
                            (Some(out), Held::Bits)
                        }
                        v if v.len() <= MAX_CONVERTED => {
                            let mut out = take(v.len());
                            with_view!(v, a => fill_row_major(a, &mut out, |y| y.cast::<f64>()));
                            (Some(out), Held::Num)
                        }
                        _ => (None, Held::Num),
                    }
                })
                .unzip()
        }
        let (n_s, n_i) = (self.seqs.len(), self.inits.len());
        let n = n_s + n_i + self.non_seqs.len();
        if pool.len() < n {
            pool.resize_with(n, Vec::new);
        }
        let (seqs, seqs_held) = of(self.seqs, false, true, &mut pool[..n_s]);
        let (inits, _) = of(self.inits, true, false, &mut pool[n_s..n_s + n_i]);
        let (non_seqs, non_seqs_held) = of(self.non_seqs, false, false, &mut pool[n_s + n_i..n]);
        Converted {
            seqs,
            inits,
            non_seqs,
            seqs_held,
            non_seqs_held,
        }
    }

    fn slices<'a>(&'a self, conv: &'a Converted) -> LoopSlices<'a> {
        fn of<'a>(
            views: &'a [ValView<'_>],
            conv: &'a [Option<Vec<f64>>],
        ) -> Vec<Option<&'a [f64]>> {
            views
                .iter()
                .zip(conv)
                .map(|(v, c)| match (v, c) {
                    (_, Some(c)) => Some(c.as_slice()),
                    (ValView::F64(a), None) => a.as_slice(),
                    _ => None,
                })
                .collect()
        }
        let (seqs, seq_rows) = self
            .seqs
            .iter()
            .zip(&conv.seqs)
            .map(|(v, c)| match (v, c) {
                (ValView::F64(a), None) => match rows_in_place(a) {
                    Some((d, rows)) => (Some(d), Some(rows)),
                    None => (a.as_slice(), None),
                },
                (_, Some(c)) => (Some(c.as_slice()), None),
                _ => (None, None),
            })
            .unzip();
        LoopSlices {
            seqs,
            seq_rows,
            inits: of(self.inits, &conv.inits),
            non_seqs: of(self.non_seqs, &conv.non_seqs),
        }
    }
}

impl Converted {
    /// Puts each copy's storage back in `pool` (as [`LoopData::converted`]
    /// took it) for the next call.
    fn give_back(self, pool: &mut [Vec<f64>]) {
        let all = self.seqs.into_iter().chain(self.inits).chain(self.non_seqs);
        for (slot, c) in pool.iter_mut().zip(all) {
            if let Some(c) = c {
                *slot = c;
            }
        }
    }

    fn bytes(&self) -> usize {
        [&self.seqs, &self.inits, &self.non_seqs]
            .into_iter()
            .flatten()
            .flatten()
            .map(|c| c.len() * std::mem::size_of::<f64>())
            .sum()
    }
}

/// What the tape may know of body parameter `p`: its shape when every
/// store it is read from on steps after the first is there as contiguous
/// `f64`.
fn param_shape(
    p: &BodyParam,
    scan: &Scan,
    data: &LoopData<'_, '_>,
    slices: &LoopSlices<'_>,
    bufs: &[Option<Value>],
) -> ParamShape {
    match *p {
        BodyParam::Sequence { seq, .. } => {
            slices.seqs.get(seq)?.as_ref()?;
            data.seqs.get(seq)?.shape().get(1..).map(<[usize]>::to_vec)
        }
        BodyParam::State { out, .. } => {
            let b = bufs.get(out)?.as_ref()?;
            if let Some(i) = scan.sig.init_index().get(out).copied().flatten() {
                slices.inits.get(i)?.as_ref()?;
            }
            standard_layout(b).then(|| b.shape().get(1..).map(<[usize]>::to_vec))?
        }
        BodyParam::NonSequence(j) => {
            slices.non_seqs.get(j)?.as_ref()?;
            Some(data.non_seqs.get(j)?.shape().to_vec())
        }
    }
}

/// How the store of body parameter `p` holds its elements on the tape:
/// an `i64` buffer (and so its init) as bits ([`Shadows`]), a converted
/// copy as [`Converted`] made it, anything else as its number.
fn param_held(p: &BodyParam, conv: &Converted, bufs: &[Option<Value>]) -> Held {
    match *p {
        BodyParam::Sequence { seq, .. } => conv.seqs_held.get(seq).copied(),
        BodyParam::State { out, .. } => match bufs.get(out) {
            Some(Some(b)) => Some(buffer_held(b)),
            _ => None,
        },
        BodyParam::NonSequence(j) => conv.non_seqs_held.get(j).copied(),
    }
    .unwrap_or(Held::Num)
}

/// How the tape holds the elements of an output buffer of `b`'s dtype:
/// an `i64`'s bits, any other's number (exact in `f64`).
fn buffer_held(b: &Value) -> Held {
    match b {
        Value::I64(_) => Held::Bits,
        _ => Held::Num,
    }
}

/// True when `b`'s elements are in row-major order in memory.
fn standard_layout(b: &Value) -> bool {
    match b {
        Value::F64(a) => a.is_standard_layout(),
        Value::F32(a) => a.is_standard_layout(),
        Value::I64(a) => a.is_standard_layout(),
        Value::I32(a) => a.is_standard_layout(),
        Value::Bool(a) => a.is_standard_layout(),
    }
}

/// The loop's step tape for this call's shapes, compiled when they are
/// new; `None` when the body does not compile to one (the plan runs every
/// step then).
#[allow(clippy::too_many_arguments)]
fn ready_tape<'r>(
    rt: &'r mut TapeRt,
    sp: &ScanPlan,
    scan: &Scan,
    data: &LoopData<'_, '_>,
    conv: &Converted,
    slices: &LoopSlices<'_>,
    bufs: &[Option<Value>],
    env: Env<'_>,
    meter: &mut Meter,
) -> Option<ReadyTape<'r>> {
    let mut results = Vec::with_capacity(sp.results.len());
    let mut results_held = Vec::with_capacity(sp.results.len());
    for r in &sp.results {
        match bufs.get(r.out)?.as_ref()? {
            b if standard_layout(b) => {
                results.push(b.shape().get(1..)?.to_vec());
                results_held.push(buffer_held(b));
            }
            b => {
                rt.off = Some(OffTape::Output(b.dtype()));
                return None;
            }
        }
    }
    // A while loop's condition: one more result, a scalar.
    if scan.sig.until {
        results.push(Vec::new());
        results_held.push(Held::Num);
    }
    let key = TapeKey {
        gen: env.gen,
        params: sp
            .params
            .iter()
            .map(|p| param_shape(p, scan, data, slices, bufs))
            .collect(),
        results,
        params_held: sp
            .params
            .iter()
            .map(|p| param_held(p, conv, bufs))
            .collect(),
        results_held,
    };
    if rt.tape.as_ref().is_none_or(|(k, _)| *k != key) {
        let invariant: Vec<bool> = sp
            .params
            .iter()
            .map(|p| matches!(p, BodyParam::NonSequence(_)))
            .collect();
        let holding = Holding {
            params: &key.params_held,
            results: &key.results_held,
        };
        let tape = compile(
            &sp.body,
            &key.params,
            &invariant,
            env.dims,
            &key.results,
            holding,
        );
        if std::env::var_os("EQSCAN_TAPE_DUMP").is_some() {
            eprintln!("{tape:#?}");
        }
        rt.off = tape.as_ref().err().copied();
        rt.tape = Some((key, tape.ok()));
        rt.layouts = None;
    }
    let Some(tape) = rt.tape.as_mut()?.1.as_mut() else {
        // Known not to compile at these shapes: the reason stays.
        return None;
    };
    rt.off = None;
    meter.resize(&mut rt.held, tape.arena_bytes());
    rt.at.clear();
    rt.at.resize(
        sp.params.len(),
        ParamAt {
            store: Store::Unused,
            base: 0,
        },
    );
    Some(ReadyTape {
        tape,
        at: &mut rt.at,
        layouts: &mut rt.layouts,
        shadows: &mut rt.shadows,
    })
}

/// A loop's step tape ready for a call ([`ready_tape`]), with its
/// per-call state.
struct ReadyTape<'r> {
    tape: &'r mut StepTape,
    /// Where each body parameter is on the current step.
    at: &'r mut [ParamAt],
    /// See [`TapeRt::layouts`].
    layouts: &'r mut Option<NativeLayouts>,
    /// See [`TapeRt::shadows`].
    shadows: &'r mut Vec<Vec<f64>>,
}

/// Where body parameter `p` (of `size` elements) is on step `t`, a
/// sequence's rows where `rows` says ([`LoopSlices::seq_rows`]).
#[inline(always)]
fn place(
    p: &BodyParam,
    frame: &LoopFrame,
    rows: &[Option<SeqRows>],
    t: usize,
    size: usize,
) -> Option<ParamAt> {
    let (store, row) = match *p {
        BodyParam::Sequence { seq, tap } => {
            let r = frame.seq_row(seq, tap, t)?;
            if let Some(Some(rows)) = rows.get(seq) {
                return Some(ParamAt {
                    store: Store::Seq(seq),
                    base: rows.start(r)?,
                });
            }
            (Store::Seq(seq), r)
        }
        BodyParam::State { out, tap } => match frame.state_read(out, tap, t)? {
            StateRead::Written(r) => (Store::Buf(out), r),
            StateRead::Init(i) => (Store::Init(i), 0),
            StateRead::InitRow(i, r) => (Store::Init(i), r),
        },
        BodyParam::NonSequence(j) => (Store::NonSeq(j), 0),
    };
    Some(ParamAt {
        store,
        base: row.checked_mul(size)?,
    })
}

/// The most elements a step's sequence rows may take together for the
/// tape to prefetch the next step's rows while the step runs (4 KiB: a
/// fraction of the first-level cache). Rows this small are read once
/// each, and reading one from memory stalls its step (output_push's row
/// of 128: its sum took as long as the step's 128 tanh); larger ones the
/// step streams itself (prefetching a GRU's 240 KiB of rows only
/// crowded out its products' operands).
const PREFETCH_ROWS: usize = 512;

/// The fewest elements a sequence's row must have to be prefetched: a
/// row of a few elements shares its cache line with the next rows, which
/// the hardware fetches ahead by itself, and finding its place on every
/// step would only lengthen a short step (a Kalman filter's is tens of
/// nanoseconds).
const PREFETCH_ROW_MIN: usize = 64;

/// Asks the cache for the `size` elements of a sequence's row at `at`,
/// when `at` is one (nothing otherwise: a hint that never faults, and
/// only for data inside the slice).
#[inline(always)]
fn prefetch_row(data: &LoopSlices<'_>, at: Option<ParamAt>, size: usize) {
    let Some(ParamAt {
        store: Store::Seq(j),
        base,
    }) = at
    else {
        return;
    };
    let Some(row) = data
        .seqs
        .get(j)
        .copied()
        .flatten()
        .and_then(|d| d.get(base..base.saturating_add(size)))
    else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    for line in row.chunks(8) {
        // SAFETY: a prefetch reads nothing the program sees and never
        // faults; the address is inside `row`.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                line.as_ptr() as *const i8
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = row;
}

/// Why a run on the step tape stopped: the error of a body op that the
/// tape checks as the plan does (a singular matrix of a linalg op: see
/// `Instr::Factor`), placed at that op; otherwise the tape and the loop
/// disagree (an internal error).
fn tape_error(rt: &TapeRt, sp: &ScanPlan, plan: &GraphPlan, i: usize) -> ExecError {
    let failure = rt
        .tape
        .as_ref()
        .and_then(|(_, t)| t.as_ref())
        .and_then(|t| t.failure());
    match failure {
        Some((node, msg)) if *node < sp.body.graph.nodes.len() => ExecError::Op {
            span: sp.body.graph.span(NodeId(*node)),
            op: sp.body.graph.nodes[*node].op.name().to_string(),
            msg: msg.clone(),
        },
        _ => internal(plan, i, "the step tape disagrees with its loop"),
    }
}

/// Runs steps `from..` of the loop on `tape`, each step's results written
/// into their rows. `None` only when the tape and the loop disagree (an
/// internal error).
#[allow(clippy::too_many_arguments)]
fn run_on_tape(
    ready: ReadyTape<'_>,
    sp: &ScanPlan,
    frame: &LoopFrame,
    data: &LoopSlices<'_>,
    bufs: &mut [Option<Value>],
    from: usize,
    to: usize,
    cond: Option<usize>,
    loops: &dyn LoopRunner,
) -> Option<Option<usize>> {
    // Each buffer's elements as one slice for the whole run (no layout
    // to check per row; ready_tape took only standard-layout buffers):
    // an `f64` buffer's own, any other's shadow.
    let ReadyTape {
        tape,
        at,
        layouts,
        shadows,
    } = ready;
    shadows.resize_with(bufs.len(), Vec::new);
    let mut slices: Vec<&mut [f64]> = Vec::with_capacity(bufs.len());
    for (b, sh) in bufs.iter_mut().zip(shadows.iter_mut()) {
        match b {
            Some(Value::F64(a)) => slices.push(a.as_slice_mut()?),
            Some(b) => {
                Shadows::fill(b, sh)?;
                slices.push(sh.as_mut_slice());
            }
            None => return None,
        }
    }
    let ready = ReadyTape {
        tape,
        at,
        layouts,
        shadows: &mut Vec::new(),
    };
    let last = tape_steps(ready, sp, frame, data, &mut slices, from, to, cond, loops)?;
    drop(slices);
    // The rows the tape wrote into a shadow, back into their buffer.
    let end = last.map_or(to.min(frame.steps()), |l| l + 1);
    for result in &sp.results {
        let (Some(Some(b)), Some(sh)) = (bufs.get_mut(result.out), shadows.get(result.out)) else {
            return None;
        };
        if matches!(b, Value::F64(_)) {
            continue;
        }
        let row: usize = b.shape().get(1..)?.iter().product();
        for t in from..end {
            let r = frame.result_row(*result, t)?;
            Shadows::store_row(b, sh, r, row)?;
        }
    }
    Some(last)
}

/// The tape's copy of an output buffer that is not `f64`, in `f64` as
/// [`Held`] says (an `i64`'s bits, any other's number: exact both ways):
/// made from the buffer before a run on the tape (it holds the rows the
/// plan wrote, which states read) and written back into it row by row
/// for the rows the tape wrote.
struct Shadows;

impl Shadows {
    /// Makes `sh` the copy of `b` (resized, no allocation once it is as
    /// large).
    fn fill(b: &Value, sh: &mut Vec<f64>) -> Option<()> {
        sh.resize(b.len(), 0.0);
        macro_rules! each {
            ($a:expr, $f:expr) => {{
                let s = $a.as_slice()?;
                for (d, &x) in sh.iter_mut().zip(s) {
                    *d = $f(x);
                }
            }};
        }
        match b {
            Value::F64(a) => each!(a, |x: f64| x),
            Value::F32(a) => each!(a, |x: f32| x as f64),
            Value::I32(a) => each!(a, |x: i32| x as f64),
            Value::Bool(a) => each!(a, |x: bool| if x { 1.0 } else { 0.0 }),
            Value::I64(a) => each!(a, |x: i64| f64::from_bits(x as u64)),
        }
        Some(())
    }

    /// Writes row `r` (of `row` elements) of the copy `sh` into `b`, in
    /// its dtype.
    fn store_row(b: &mut Value, sh: &[f64], r: usize, row: usize) -> Option<()> {
        let lo = r.checked_mul(row)?;
        let src = sh.get(lo..lo.checked_add(row)?)?;
        macro_rules! each {
            ($a:expr, $f:expr) => {{
                let d = $a.as_slice_mut()?.get_mut(lo..lo + row)?;
                for (d, &x) in d.iter_mut().zip(src) {
                    *d = $f(x);
                }
            }};
        }
        match b {
            Value::F64(a) => each!(a, |x: f64| x),
            Value::F32(a) => each!(a, |x: f64| x as f32),
            Value::I32(a) => each!(a, |x: f64| x as i32),
            Value::Bool(a) => each!(a, |x: f64| x != 0.0),
            Value::I64(a) => each!(a, |x: f64| x.to_bits() as i64),
        }
        Some(())
    }
}

/// Places the body parameters the tape reads for step `t` (`all`: the
/// non-sequences too, which stay where the first placement put them).
#[inline(always)]
fn place_params(
    tape: &StepTape,
    at: &mut [ParamAt],
    sp: &ScanPlan,
    frame: &LoopFrame,
    rows: &[Option<SeqRows>],
    t: usize,
    all: bool,
) -> Option<()> {
    for (k, p) in sp.params.iter().enumerate() {
        let size = tape.param_size(k);
        if size > 0 && (all || !matches!(p, BodyParam::NonSequence(_))) {
            *at.get_mut(k)? = place(p, frame, rows, t, size)?;
        }
    }
    Some(())
}

/// The steps of a call at which the tape tries to run the rest of the
/// loop as one native function ([`native_loop`]).
const NATIVE_LOOP_TRIES: usize = 4;

/// The steps of a while loop's first native chunk ([`native_steps`]).
const NATIVE_WHILE_CHUNK: usize = 64;

/// Where a whole native loop's parameters and rows are, from its first
/// step on: found true of every step once per frame ([`native_layout`]),
/// then reused by every call whose loop has the same frame.
#[derive(Clone, Copy, Debug)]
struct NativeLayout {
    /// Per parameter slot: where it is on the first step, and the
    /// elements it moves by per step.
    params: [(ParamAt, isize); MAX_POINTERS],
    /// Per body result: the row of its buffer the first step writes, and
    /// the rows it moves by per step.
    rows: [(usize, isize); MAX_POINTERS],
}

/// The layouts of the whole native loop found for one frame, per step
/// it was tried from (`None`: some position does not move by a fixed
/// stride from that step on).
#[derive(Debug)]
struct NativeLayouts {
    /// The frame they were found for.
    frame: LoopFrame,
    /// Where the rows of the sequences read in place were
    /// ([`LoopSlices::seq_rows`]).
    rows: Vec<Option<SeqRows>>,
    /// Per stretch of steps tried (`from..to`; at most
    /// [`NATIVE_LOOP_TRIES`], the oldest dropped first): its layout.
    tried: Vec<((usize, usize), Option<NativeLayout>)>,
}

/// The layout of the whole native loop over steps `from..to` in
/// `frame`, from `known` when it was found for this frame, these rows of the sequences read in place ([`SeqRows`]) and this stretch,
/// else found now by `find` ([`native_layout`]) and kept there. A new
/// frame replaces the kept one in place (no allocation once the storage
/// is there).
fn known_layout(
    known: &mut Option<NativeLayouts>,
    frame: &LoopFrame,
    rows: &[Option<SeqRows>],
    (from, to): (usize, usize),
    find: impl FnOnce() -> Option<Option<NativeLayout>>,
) -> Option<Option<NativeLayout>> {
    let known = match known {
        Some(k) if k.frame == *frame && k.rows == rows => k,
        Some(k) => {
            k.frame.clone_from(frame);
            k.rows.clear();
            k.rows.extend_from_slice(rows);
            k.tried.clear();
            k
        }
        None => known.insert(NativeLayouts {
            frame: frame.clone(),
            rows: rows.to_vec(),
            tried: Vec::with_capacity(NATIVE_LOOP_TRIES),
        }),
    };
    if let Some(&(_, layout)) = known.tried.iter().find(|(t, _)| *t == (from, to)) {
        return Some(layout);
    }
    let layout = find()?;
    if known.tried.len() >= NATIVE_LOOP_TRIES {
        known.tried.remove(0);
    }
    known.tried.push(((from, to), layout));
    Some(layout)
}

/// The layout of the whole native loop over steps `from..to`, checked
/// step by step against the frame (`place` and `result_row`): every
/// parameter slot is in one store at a position that moves by a fixed
/// stride, and so is every result's row. `Some(None)` when it is not;
/// `None` only when the tape and the loop disagree.
fn native_layout(
    tape: &StepTape,
    sp: &ScanPlan,
    frame: &LoopFrame,
    rows: &[Option<SeqRows>],
    slots: &[(usize, usize)],
    from: usize,
    to: usize,
) -> Option<Option<NativeLayout>> {
    // A position from `from` on that moves by a fixed stride: the stride,
    // when `at(t)` is `at(from) + (t - from)·stride` for every step.
    let affine = |at: &dyn Fn(usize) -> Option<usize>| -> Option<isize> {
        let a0 = isize::try_from(at(from)?).ok()?;
        let stride = isize::try_from(at(from + 1)?).ok()? - a0;
        let mut want = a0;
        for t in from..to {
            if isize::try_from(at(t)?).ok()? != want {
                return None;
            }
            want = want.checked_add(stride)?;
        }
        Some(stride)
    };
    let unused = ParamAt {
        store: Store::Unused,
        base: 0,
    };
    let mut layout = NativeLayout {
        params: [(unused, 0); MAX_POINTERS],
        rows: [(0, 0); MAX_POINTERS],
    };
    for (slot, &(k, _)) in slots.iter().enumerate() {
        let p = sp.params.get(k)?;
        let size = tape.param_size(k);
        let first = place(p, frame, rows, from, size)?;
        let same_store =
            |t: usize| place(p, frame, rows, t, size).filter(|a| a.store == first.store);
        let Some(stride) = affine(&|t| same_store(t).map(|a| a.base)) else {
            return Some(None);
        };
        *layout.params.get_mut(slot)? = (first, stride);
    }
    for (j, result) in sp.results.iter().enumerate() {
        let Some(stride) = affine(&|t| frame.result_row(*result, t)) else {
            return Some(None);
        };
        *layout.rows.get_mut(j)? = (frame.result_row(*result, from)?, stride);
    }
    Some(Some(layout))
}

/// Runs steps `from..to` of the loop as one native function when the
/// tape has one ([`StepTape::native_loop_params`]) and, over all those
/// steps, every parameter it reads is in one store at a position that
/// moves by a fixed stride, and so is every result's row
/// ([`native_layout`], found once per frame and kept in `layouts`), each
/// within its slice. `Some(ran)`: the steps that ran from `from` (all of
/// them, or in a while loop up to the one whose condition held);
/// `None` when it does not apply (nothing ran).
#[allow(clippy::too_many_arguments)]
fn native_loop(
    tape: &mut StepTape,
    layouts: &mut Option<NativeLayouts>,
    sp: &ScanPlan,
    frame: &LoopFrame,
    data: &LoopSlices<'_>,
    bufs: &mut [&mut [f64]],
    from: usize,
    to: usize,
) -> Option<Option<usize>> {
    let Some(slots) = tape.native_loop_params() else {
        return Some(None);
    };
    let n = to.saturating_sub(from);
    if n < 2 || bufs.len() > MAX_POINTERS || sp.results.len() > MAX_POINTERS {
        return Some(None);
    }
    let find = || native_layout(tape, sp, frame, &data.seq_rows, slots, from, to);
    let Some(layout) = known_layout(layouts, frame, &data.seq_rows, (from, to), find)? else {
        return Some(None);
    };
    // Each buffer's data, as one pointer for reads and writes alike.
    let mut buf_ptr = [std::ptr::null_mut::<f64>(); MAX_POINTERS];
    let mut buf_len = [0usize; MAX_POINTERS];
    for ((p, l), b) in buf_ptr.iter_mut().zip(&mut buf_len).zip(bufs.iter_mut()) {
        (*p, *l) = (b.as_mut_ptr(), b.len());
    }
    // The first element and last end reached by `len` elements at a
    // position moving from `a0` by `stride` over the steps.
    let span = |a0: usize, stride: isize, len: usize| -> Option<(usize, usize)> {
        let last = (a0 as isize).checked_add(stride.checked_mul(n as isize - 1)?)?;
        let last = usize::try_from(last).ok()?;
        Some((a0.min(last), a0.max(last).checked_add(len)?))
    };
    let mut params = [std::ptr::null::<f64>(); MAX_POINTERS];
    let mut p_strides = [0isize; MAX_POINTERS];
    for (slot, &(_, need)) in slots.iter().enumerate() {
        let (first, stride) = *layout.params.get(slot)?;
        let (ptr, len): (*const f64, usize) = match first.store {
            Store::Buf(b) => (*buf_ptr.get(b)?, *buf_len.get(b)?),
            Store::Seq(j) => data.seqs.get(j)?.map(|d| (d.as_ptr(), d.len()))?,
            Store::Init(i) => data.inits.get(i)?.map(|d| (d.as_ptr(), d.len()))?,
            Store::NonSeq(j) => data.non_seqs.get(j)?.map(|d| (d.as_ptr(), d.len()))?,
            Store::Unused => return Some(None),
        };
        let (_, end) = span(first.base, stride, need)?;
        if end > len {
            return Some(None);
        }
        params[slot] = ptr.wrapping_add(first.base);
        p_strides[slot] = stride;
    }
    let mut rows = [std::ptr::null_mut::<f64>(); MAX_POINTERS];
    let mut r_strides = [0isize; MAX_POINTERS];
    for (j, result) in sp.results.iter().enumerate() {
        let len = tape.result_len(j)?;
        let (r0, stride) = *layout.rows.get(j)?;
        let (_, end) = span(r0.checked_mul(len)?, stride.checked_mul(len as isize)?, len)?;
        if end > *buf_len.get(result.out)? {
            return Some(None);
        }
        rows[j] = buf_ptr.get(result.out)?.wrapping_add(r0 * len);
        r_strides[j] = stride * len as isize;
    }
    // A result written into its row during the step: that row may hold
    // nothing the same step reads (a ring buffer of one row does).
    for &(j, len) in tape.native_loop_rows() {
        let out = sp.results.get(j as usize)?.out;
        let (row0, row_stride) = (rows[j as usize] as isize, r_strides[j as usize]);
        for (slot, &(_, need)) in slots.iter().enumerate() {
            if layout.params.get(slot)?.0.store != Store::Buf(out) {
                continue;
            }
            let (p0, p_stride) = (params[slot] as isize, p_strides[slot]);
            // Element addresses, in units of f64 (both pointers are into
            // the same buffer).
            let at = |ptr: isize, stride: isize| (i128::from(ptr as i64) / 8, stride as i128);
            let ((r, rs), (p, ps)) = (at(row0, row_stride), at(p0, p_stride));
            if meet_at_some_step(r, rs, p, ps, len as i128, need as i128, n as i128) {
                return Some(None);
            }
        }
    }
    // SAFETY: for every step t < n, parameter slot s reads `need`
    // elements at params[s] + t·stride inside its slice (the position is
    // affine, checked at every step of this frame, and its extremes are
    // within the slice), and result j writes its `len` elements inside
    // its buffer likewise. Sequences, inits and non-sequences are not
    // buffers; a buffer's reads and writes go through the one pointer
    // taken from it above; a step reads before it writes its rows (the
    // copy to the rows ends the step, as on the tape).
    let ran = unsafe { tape.run_native_loop(&params, &p_strides, &rows, &r_strides, n)? };
    Some(Some(ran))
}

/// What [`native_steps`] did.
enum NativeSteps {
    /// Nothing ran (no whole native loop, or its layout does not apply).
    NotRun,
    /// Every step of the stretch ran.
    All,
    /// A while loop's condition held after this step.
    Stopped(usize),
    /// The steps before this one ran; the tape runs the rest.
    Until(usize),
}

/// The steps `from..to` as one native function ([`native_loop`]). A while
/// loop's (`cond`) run in chunks from 64 steps, each twice the last: its
/// stretch may end at its bound (10^9 steps for a loop that stops after
/// 20), and the layout check looks at every step of a chunk, so the work
/// stays proportional to the steps that ran. When a later chunk's layout
/// does not apply, the steps run so far stand and the tape runs the
/// rest ([`NativeSteps::Until`]). `None` when the tape and the loop
/// disagree.
#[allow(clippy::too_many_arguments)]
fn native_steps(
    tape: &mut StepTape,
    layouts: &mut Option<NativeLayouts>,
    sp: &ScanPlan,
    frame: &LoopFrame,
    data: &LoopSlices<'_>,
    bufs: &mut [&mut [f64]],
    from: usize,
    to: usize,
    cond: Option<usize>,
) -> Option<NativeSteps> {
    let Some(c) = cond else {
        return Some(
            match native_loop(tape, layouts, sp, frame, data, bufs, from, to)? {
                Some(ran) if from + ran == to => NativeSteps::All,
                Some(_) => return None,
                None => NativeSteps::NotRun,
            },
        );
    };
    let mut t = from;
    let mut chunk = NATIVE_WHILE_CHUNK;
    while t < to {
        let end = to.min(t.saturating_add(chunk));
        let Some(ran) = native_loop(tape, layouts, sp, frame, data, bufs, t, end)? else {
            break;
        };
        if ran == 0 || t + ran > end {
            return None;
        }
        t += ran;
        if *tape.result(c)?.first()? != 0.0 {
            return Some(NativeSteps::Stopped(t - 1));
        }
        if t != end {
            return None;
        }
        chunk = chunk.saturating_mul(2);
    }
    Some(if t == from {
        NativeSteps::NotRun
    } else if t >= to {
        NativeSteps::All
    } else {
        NativeSteps::Until(t)
    })
}

/// The most buffers, and the most body results, a loop may have for the
/// tape to write results straight into their rows (a step's splits of
/// the buffers live on the stack).
const MAX_DIRECT: usize = 8;

/// Steps `from..to` on the tape, over the buffers' data `bufs`; in a
/// while loop (`cond`: the tape's result holding its condition), up to
/// the step whose condition holds: `Some(Some(t))` when step `t` stopped
/// the loop, `Some(None)` when every step ran.
///
/// A result the tape may write straight into its row
/// ([`StepTape::result_writes_direct`]) is, on every step where no read
/// of the step touches that row: its buffer is split around the row, the
/// step reads the parts before and after it, and the result's
/// instruction writes the row. Every other result is copied from the
/// arena after the step.
#[allow(clippy::too_many_arguments)]
fn tape_steps(
    ready: ReadyTape<'_>,
    sp: &ScanPlan,
    frame: &LoopFrame,
    data: &LoopSlices<'_>,
    bufs: &mut [&mut [f64]],
    from: usize,
    to: usize,
    cond: Option<usize>,
    loops: &dyn LoopRunner,
) -> Option<Option<usize>> {
    let ReadyTape {
        tape, at, layouts, ..
    } = ready;
    let to = to.min(frame.steps());
    let direct = tape.writes_direct() && bufs.len() <= MAX_DIRECT && sp.results.len() <= MAX_DIRECT;
    if from < to {
        // The values the same on every step, once: the parameters placed
        // as on the first step (the prologue reads only non-sequences).
        place_params(tape, at, sp, frame, &data.seq_rows, from, true)?;
        tape.run_prologue(at, &data.sources(Bufs::Whole(bufs), loops))?;
    }
    // The results the tape may write straight into their rows (one per
    // buffer): (result, buffer, length).
    let mut cands = [(0, 0, 0); MAX_DIRECT];
    let mut n_cands = 0;
    if direct {
        for (j, result) in sp.results.iter().enumerate() {
            if tape.result_writes_direct(j)
                && !frame.is_tape(result.out)
                && !cands[..n_cands].iter().any(|c| c.1 == result.out)
            {
                *cands.get_mut(n_cands)? = (j, result.out, tape.result_len(j)?);
                n_cands += 1;
            }
        }
    }
    // The sequences whose next rows each step prefetches (see
    // `PREFETCH_ROWS`): (body parameter, elements per step).
    let mut ahead = [(0, 0); MAX_POINTERS];
    let mut n_ahead = 0;
    let mut ahead_len = 0usize;
    for (k, p) in sp.params.iter().enumerate() {
        let size = tape.param_size(k);
        if size >= PREFETCH_ROW_MIN && matches!(p, BodyParam::Sequence { .. }) {
            if let Some(slot) = ahead.get_mut(n_ahead) {
                *slot = (k, size);
                n_ahead += 1;
            }
            ahead_len = ahead_len.saturating_add(size);
        }
    }
    if ahead_len > PREFETCH_ROWS {
        n_ahead = 0;
    }
    let mut t = from;
    while t < to {
        // The rest of the loop (of the stretch, in a while loop) as
        // native code, once every parameter and row moves by a fixed
        // stride (a state's first steps may read its init: tried on the
        // first few steps).
        if t < from + NATIVE_LOOP_TRIES {
            match native_steps(tape, layouts, sp, frame, data, bufs, t, to, cond)? {
                NativeSteps::NotRun => {}
                NativeSteps::Stopped(last) => return Some(Some(last)),
                NativeSteps::All => return Some(None),
                NativeSteps::Until(next) => {
                    t = next;
                    continue;
                }
            }
        }
        // A non-sequence stays where the first step placed it.
        place_params(tape, at, sp, frame, &data.seq_rows, t, false)?;
        if t + 1 < to {
            for &(k, size) in ahead.get(..n_ahead)? {
                let next = place(sp.params.get(k)?, frame, &data.seq_rows, t + 1, size);
                prefetch_row(data, next, size);
            }
        }
        // Per buffer, the row a result is written into this step:
        // (first element, length, result).
        let mut gaps: [Option<(usize, usize, usize)>; MAX_DIRECT] = [None; MAX_DIRECT];
        let mut any_written = false;
        for &(j, out, len) in cands.get(..n_cands)? {
            let start = frame.result_row(*sp.results.get(j)?, t)?.checked_mul(len)?;
            let read = at.iter().enumerate().any(|(k, p)| {
                let size = tape.param_size(k);
                size > 0
                    && p.store == Store::Buf(out)
                    && p.base < start + len
                    && start < p.base + size
            });
            if !read {
                *gaps.get_mut(out)? = Some((start, len, j));
                any_written = true;
            }
        }
        if any_written {
            let n_bufs = bufs.len();
            let mut parts: [BufRows<'_>; MAX_DIRECT] = Default::default();
            let mut rows: [Option<&mut [f64]>; MAX_DIRECT] = Default::default();
            for ((b, part), gap) in bufs.iter_mut().zip(&mut parts).zip(gaps) {
                *part = match gap {
                    None => BufRows {
                        lo: b,
                        gap: 0,
                        hi: &[],
                    },
                    Some((start, len, j)) => {
                        let (lo, rest) = b.split_at_mut_checked(start)?;
                        let (row, hi) = rest.split_at_mut_checked(len)?;
                        *rows.get_mut(j)? = Some(row);
                        BufRows { lo, gap: len, hi }
                    }
                };
            }
            tape.run(
                at,
                &data.sources(Bufs::Split(parts.get(..n_bufs)?), loops),
                &mut rows,
            )?;
        } else {
            tape.run(at, &data.sources(Bufs::Whole(bufs), loops), &mut [])?;
        }
        for (j, result) in sp.results.iter().enumerate() {
            let in_row = |g: &Option<(usize, usize, usize)>| g.is_some_and(|(_, _, w)| w == j);
            if any_written && gaps.get(result.out).is_some_and(in_row) {
                continue;
            }
            let row = tape.result(j)?;
            let r = frame.result_row(*result, t)?;
            let len = row.len();
            let dst = bufs
                .get_mut(result.out)?
                .get_mut(r.checked_mul(len)?..(r + 1).checked_mul(len)?)?;
            match (dst, row) {
                ([d], [v]) => *d = *v,
                (d, v) => d.copy_from_slice(v),
            }
        }
        // A while loop stops after the step whose condition holds
        // (non-zero, NaN included: compares are 1.0 or 0.0 on the tape).
        if let Some(c) = cond {
            if *tape.result(c)?.first()? != 0.0 {
                return Some(Some(t));
            }
        }
        t += 1;
    }
    Some(None)
}

/// True when, for some step `t < n`, the `len` elements from `r0 + rs·t`
/// and the `need` elements from `p0 + ps·t` share one (a row a step
/// writes and a parameter it reads). Constant time: their distance
/// `d(t) = (r0 − p0) + (rs − ps)·t` moves by a fixed amount, and they meet
/// when `−len < d(t) < need`, so only the first step past the lower bound
/// needs a look (a check at every step cost fib N = 1 about 6 ns a step).
fn meet_at_some_step(
    r0: i128,
    rs: i128,
    p0: i128,
    ps: i128,
    len: i128,
    need: i128,
    n: i128,
) -> bool {
    if n <= 0 || len <= 0 || need <= 0 {
        return false;
    }
    let (mut d0, mut delta, mut lo, mut hi) = (r0 - p0, rs - ps, -len, need);
    if delta < 0 {
        // The same question about -d(t), which grows.
        (d0, delta, lo, hi) = (-d0, -delta, -hi, -lo);
    }
    if delta == 0 {
        return lo < d0 && d0 < hi;
    }
    // The first step with d(t) > lo.
    let t = if d0 > lo {
        0
    } else {
        (lo - d0).div_euclid(delta) + 1
    };
    t < n && d0 + delta * t < hi
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse_program;
    use ndarray::{Array2, ShapeBuilder};

    #[test]
    fn rows_and_parameters_meet_as_a_check_of_every_step_says() {
        // Every small case against the check step by step.
        let brute = |r0: i128, rs: i128, p0: i128, ps: i128, len: i128, need: i128, n: i128| {
            (0..n).any(|t| {
                let (r, p) = (r0 + rs * t, p0 + ps * t);
                len > 0 && need > 0 && r < p + need && p < r + len
            })
        };
        let vals = [-7i128, -3, -1, 0, 1, 2, 5, 9];
        for r0 in vals {
            for rs in vals {
                for ps in [-4i128, 0, 1, 3, 8] {
                    for len in [0i128, 1, 2, 4] {
                        for need in [0i128, 1, 3] {
                            for n in [0i128, 1, 2, 5] {
                                assert_eq!(
                                    meet_at_some_step(r0, rs, 0, ps, len, need, n),
                                    brute(r0, rs, 0, ps, len, need, n),
                                    "{r0} {rs} {ps} {len} {need} {n}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// The body and signature of the program's first loop.
    fn first_loop(text: &str) -> Scan {
        let p = parse_program(text).unwrap();
        p.graph
            .nodes
            .iter()
            .find_map(|n| match &n.op {
                Op::Scan(s) => Some((**s).clone()),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn only_invariants_read_by_products_alone_may_be_copied() {
        let scan = first_loop(
            "(program p (input A (f64 3 3)) (input B (f64 3 3)) (input C (f64 3 3))
               (input h0 (f64 3))
               (let H (scan (outputs_info (sitsot h0)) (non_sequences A B C) (n_steps 4)
                 (fn (h a b c) (add (dot a h) (add (dot h b) (sum (mul b b) 0))))))
               (output H))",
        );
        let plan = ScanPlan::compile(&scan, PlanOptions::default()).unwrap();
        // A: only dot; B: dot and mul; C: not read.
        assert_eq!(plan.product_only, vec![true, false, false]);
    }

    #[test]
    fn only_transposed_row_major_matrices_over_two_steps_are_copied() {
        let a = Array2::from_shape_fn((4, 5), |(i, j)| (i * 5 + j) as f64).into_dyn();
        let f = Array2::<f64>::zeros((4, 5).f()).into_dyn();
        let t = a.t();
        let strided = a.slice(ndarray::s![.., ..;2]);
        assert!(row_major_invariant(&ValView::F64(t.view()), 2));
        assert!(row_major_invariant(&ValView::F64(f.view()), 2));
        assert!(!row_major_invariant(&ValView::F64(t.view()), 1));
        assert!(!row_major_invariant(&ValView::F64(a.view()), 2));
        assert!(!row_major_invariant(&ValView::F64(strided.into_dyn()), 2));
        let i = a.mapv(|x| x as i64);
        assert!(!row_major_invariant(&ValView::I64(i.t()), 2));
    }
}
