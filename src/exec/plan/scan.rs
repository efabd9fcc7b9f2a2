//! Scan in the plan: a loop whose body is a compiled graph, whose outputs
//! are written row by row into buffers kept across calls.
//!
//! Owns: [`ScanPlan`] (the body's plan and where each body parameter comes
//! from), [`ScanRt`] (the body's runtime, kept across steps and calls) and
//! [`exec`], the loop itself, with the reference semantics of
//! [`crate::exec::run`]: sequences tap-sliced, reversed when going
//! backwards, then cut to `n_steps`; states read at their taps from the
//! init rows or the rows written so far; an output with `(keep K)` in a
//! ring buffer of K rows, rotated to chronological order at the end.
//! Body parameters are views (a row of a sequence, a row of an output
//! buffer, an init, a non-sequence): no step copies its inputs. Each step
//! copies the body's results into row `t` of the output buffers, so once
//! the buffers and the body's slots have their sizes a step allocates
//! nothing. Must not: differ from the reference loop in any result or
//! error message.

use super::runtime::{internal, Env, GraphRt, Meter, NoParams, Params};
use super::schedule::{GraphPlan, PlanOptions};
use super::view::{copy_into, with_view, ValView, ViewElem};
use crate::exec::budget::Allocation;
use crate::exec::error::ExecError;
use crate::exec::run::step_count;
use crate::exec::value::{eval_shape, with_elem, Elem, Value};
use crate::lang::program::{NodeId, OutputInfo, Scan};
use crate::lang::shape::shape_str;
use crate::lang::{DType, Op};
use ndarray::Axis;

/// Where a body parameter comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamSrc {
    /// Row `t + offset` of sequence `seq` (after the backwards flip);
    /// `offset` is the tap less the sequence's lowest tap.
    Seq {
        /// Which sequence.
        seq: usize,
        /// Row offset from the step.
        offset: i64,
    },
    /// State output `out` read at `tap` (negative), from init number
    /// `init` while `t + tap < 0`.
    State {
        /// Which output.
        out: usize,
        /// Which init argument.
        init: usize,
        /// The tap.
        tap: i64,
    },
    /// Non-sequence `k`.
    NonSeq(usize),
}

/// A compiled loop.
#[derive(Clone, Debug)]
pub struct ScanPlan {
    /// The body.
    pub body: GraphPlan,
    /// One entry per body parameter.
    pub params: Vec<ParamSrc>,
}

impl ScanPlan {
    /// Compiles a scan's body and its parameter map.
    pub fn compile(scan: &Scan, options: PlanOptions) -> Result<ScanPlan, ExecError> {
        let mut params = Vec::with_capacity(scan.n_body_params());
        for (k, taps) in scan.sequences.iter().enumerate() {
            let lo = taps.iter().copied().min().unwrap_or(0).min(0);
            for &tap in taps {
                params.push(ParamSrc::Seq {
                    seq: k,
                    offset: tap - lo,
                });
            }
        }
        let mut init = 0;
        for (k, info) in scan.outputs.iter().enumerate() {
            if !info.is_state() {
                continue;
            }
            for tap in info.taps() {
                params.push(ParamSrc::State { out: k, init, tap });
            }
            init += 1;
        }
        params.extend((0..scan.n_non_seqs).map(ParamSrc::NonSeq));
        Ok(ScanPlan {
            body: GraphPlan::compile(&scan.body, options)?,
            params,
        })
    }
}

/// The runtime of one scan node, kept across steps and calls.
#[derive(Debug)]
pub struct ScanRt {
    body: GraphRt,
    /// Copies of body results that are views of the step's parameters
    /// (they must be read before the output buffers are written).
    scratch: Vec<Option<Value>>,
}

impl ScanRt {
    fn new(plan: &ScanPlan, n_out: usize) -> ScanRt {
        ScanRt {
            body: GraphRt::new(&plan.body),
            scratch: (0..n_out).map(|_| None).collect(),
        }
    }
}

/// The parameters of one step. `'s` is how long the step borrows the
/// loop's state; `'v` how long the argument views live.
struct StepParams<'s, 'v> {
    t: usize,
    map: &'s [ParamSrc],
    go_backwards: bool,
    seqs: &'s [ValView<'v>],
    seq_avail: &'s [usize],
    inits: &'s [ValView<'v>],
    init_rows: &'s [usize],
    sitsot: &'s [bool],
    bufs: &'s [Option<Value>],
    rows: &'s [usize],
    non_seqs: &'s [ValView<'v>],
}

impl Params for StepParams<'_, '_> {
    fn param(&self, k: usize) -> Option<ValView<'_>> {
        match *self.map.get(k)? {
            ParamSrc::Seq { seq, offset } => {
                let i = if self.go_backwards {
                    self.seq_avail.get(seq)?.checked_sub(1 + self.t)?
                } else {
                    self.t
                };
                self.seqs.get(seq)?.row((i as i64 + offset) as usize)
            }
            ParamSrc::State { out, init, tap } => {
                let at = self.t as i64 + tap;
                if at >= 0 {
                    let b = self.bufs.get(out)?.as_ref()?;
                    let r = at as usize % self.rows.get(out)?;
                    ValView::of(b).into_row(r)
                } else if *self.sitsot.get(out)? {
                    self.inits.get(init).map(|v| v.reborrow())
                } else {
                    self.inits
                        .get(init)?
                        .row((*self.init_rows.get(init)? as i64 + at) as usize)
                }
            }
            ParamSrc::NonSeq(j) => self.non_seqs.get(j).map(|v| v.reborrow()),
        }
    }
}

fn scalar_i64(v: &ValView<'_>) -> Option<i64> {
    match v {
        ValView::I64(a) if a.ndim() == 0 => a.iter().next().copied(),
        _ => None,
    }
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
    if slots.len() != scan.outputs.len() || node.ty.len() != scan.outputs.len() {
        return Err(internal(plan, i, "a loop with the wrong number of outputs"));
    }
    let mut srt = match rt.scans[i].take() {
        Some(s) => s,
        None => Box::new(ScanRt::new(sp, scan.outputs.len())),
    };
    let mut bufs: Vec<Option<Value>> = slots.iter().map(|&s| rt.slots[s].val.take()).collect();
    let r = run_loop(
        rt, plan, i, scan, sp, params, env, meter, &mut srt, &mut bufs,
    );
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
    if node.args.len() != scan.n_args() {
        return Err(internal(plan, i, "wrong number of arguments"));
    }
    let mut args: Vec<ValView<'_>> = Vec::with_capacity(node.args.len());
    for a in &node.args {
        match rt.view(a.0, params) {
            Some(v) => args.push(v),
            None => return Err(internal(plan, i, "argument not computed")),
        }
    }
    // Steps the sequences allow.
    let mut allowed: Option<usize> = None;
    let mut seq_avail = Vec::with_capacity(scan.n_seqs());
    for (k, taps) in scan.sequences.iter().enumerate() {
        let x = &args[scan.seq_args().start + k];
        let len = x.shape().first().copied().unwrap_or(0) as i64;
        let lo = taps.iter().copied().min().unwrap_or(0).min(0);
        let hi = taps.iter().copied().max().unwrap_or(0).max(0);
        let avail = (len - (hi - lo)).max(0) as usize;
        allowed = Some(allowed.map_or(avail, |a| a.min(avail)));
        seq_avail.push(avail);
    }
    let given = scan.n_steps_arg().map(|k| scalar_i64(&args[k]));
    let n = step_count(given, allowed).map_err(fail)?;
    // Inits, their row counts, and each state's step shape.
    let inits: Vec<ValView<'_>> = scan.init_args().map(|k| args[k].clone()).collect();
    let mut init_rows = vec![0usize; inits.len()];
    let mut sitsot = vec![false; scan.outputs.len()];
    let mut state_init: Vec<Option<usize>> = vec![None; scan.outputs.len()];
    {
        let mut next = 0;
        for (k, info) in scan.outputs.iter().enumerate() {
            match info {
                OutputInfo::Nitsot => {}
                OutputInfo::Sitsot => {
                    if next >= inits.len() {
                        return Err(internal(plan, i, "missing init"));
                    }
                    sitsot[k] = true;
                    state_init[k] = Some(next);
                    next += 1;
                }
                OutputInfo::Mitsot(taps) => {
                    let need = -taps.iter().copied().min().unwrap_or(-1);
                    let Some(v) = inits.get(next) else {
                        return Err(internal(plan, i, "missing init"));
                    };
                    let rows = v.shape().first().copied().unwrap_or(0) as i64;
                    if v.ndim() == 0 || rows != need {
                        return Err(fail(format!(
                            "output {k}: a mitsot with taps {taps:?} needs an init of {need} rows, got shape {:?}",
                            v.shape()
                        )));
                    }
                    init_rows[next] = need as usize;
                    state_init[k] = Some(next);
                    next += 1;
                }
            }
        }
    }
    // A loop of fewer steps than an output keeps (a symbolic length the
    // optimizer could not compare) keeps them all.
    let rows: Vec<usize> = (0..scan.outputs.len())
        .map(|k| scan.kept(k).map_or(n, |kept| kept.min(n)))
        .collect();
    let non_seqs: Vec<ValView<'_>> = scan.non_seq_args().map(|k| args[k].clone()).collect();
    let seqs: Vec<ValView<'_>> = scan.seq_args().map(|k| args[k].clone()).collect();
    let out_nodes: Vec<usize> = sp.body.graph.outputs.iter().map(|o| o.0).collect();
    if out_nodes.len() != scan.outputs.len() {
        return Err(internal(
            plan,
            i,
            "the body has the wrong number of outputs",
        ));
    }
    let mut param_rooted = vec![false; out_nodes.len()];
    for t in 0..n {
        {
            let step = StepParams {
                t,
                map: &sp.params,
                go_backwards: scan.go_backwards,
                seqs: &seqs,
                seq_avail: &seq_avail,
                inits: &inits,
                init_rows: &init_rows,
                sitsot: &sitsot,
                bufs,
                rows: &rows,
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
        for (k, &o) in out_nodes.iter().enumerate() {
            let out_ty = &node.ty[k];
            let v = if param_rooted[k] {
                srt.scratch[k].as_ref().map(ValView::of)
            } else {
                srt.body.view(o, &NoParams)
            };
            let Some(v) = v else {
                return Err(internal(plan, i, "body output not computed"));
            };
            if let Some(j) = state_init[k] {
                let init = &inits[j];
                let expected: &[usize] = if sitsot[k] {
                    init.shape()
                } else {
                    &init.shape()[1..]
                };
                if v.shape() != expected {
                    return Err(fail(format!(
                        "state {k}: fn returned shape {:?} but the state has shape {:?}",
                        v.shape(),
                        expected
                    )));
                }
            }
            if t == 0 {
                let mut shape = Vec::with_capacity(v.ndim() + 1);
                shape.push(rows[k]);
                shape.extend_from_slice(v.shape());
                env.budget
                    .check(Allocation::LoopOutput(k), out_ty.dtype, &shape)
                    .map_err(|over| ExecError::OverBudget {
                        span,
                        op: "scan".to_string(),
                        over: Box::new(over),
                    })?;
                shape_buffer(&mut bufs[k], out_ty.dtype, rows[k], v.shape()).map_err(&fail)?;
            }
            let Some(buf) = bufs[k].as_mut() else {
                return Err(internal(plan, i, "output buffer missing"));
            };
            if !set_row(buf, t % rows[k].max(1), &v) {
                return Err(fail(format!(
                    "output {k}: step {t} has shape {:?}, earlier steps had {:?}",
                    v.shape(),
                    &buf.shape()[1..]
                )));
            }
        }
    }
    let bind = |s: &str| env.dims.get(s).copied();
    for (k, info) in scan.outputs.iter().enumerate() {
        let out_ty = &node.ty[k];
        if n > 0 {
            let start = n % rows[k].max(1);
            if start != 0 {
                if let Some(b) = bufs[k].as_mut() {
                    rotate_rows(b, start);
                }
            }
            continue;
        }
        // Zero steps: shapes from the inits, else from the static types.
        let step: Vec<usize> = match (info, state_init[k]) {
            (OutputInfo::Sitsot, Some(j)) => inits[j].shape().to_vec(),
            (OutputInfo::Mitsot(_), Some(j)) => inits[j].shape()[1..].to_vec(),
            _ => eval_shape(&out_ty.shape[1..], &bind).map_err(|_| {
                fail(format!(
                    "output {k} has no steps and its step shape {} is not known statically",
                    shape_str(&out_ty.shape[1..])
                ))
            })?,
        };
        shape_buffer(&mut bufs[k], out_ty.dtype, 0, &step).map_err(&fail)?;
    }
    Ok(())
}
