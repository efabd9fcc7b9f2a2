//! Running a compiled graph: the storage a plan keeps across calls, and
//! the execution of its nodes in schedule order.
//!
//! Owns: [`GraphRt`] (the slots of one [`GraphPlan`], the location of each
//! value in this run, the runtimes of the loops inside it), [`Params`] (how
//! a graph reads its parameters: the caller's inputs, or a loop's
//! per-step views), [`Meter`] (the executor's own account of the bytes it
//! holds) and the execution of parameters, constants, views and computed
//! nodes. A view records where its value is instead of copying it; it
//! copies (through the reference kernel) only when its layout forbids a
//! view. A computed node writes into its slot through a fast kernel, or
//! through the reference kernel of [`crate::exec::ops`], whose result then
//! becomes the slot's storage. Must not: write a parameter, or allocate
//! per node once the slots have their sizes (the error paths aside).

use super::contract::Role;
use super::fusion::FusedRt;
use super::kernels::{self, Arg};
use super::scan::ScanRt;
use super::schedule::GraphPlan;
use super::view::{is_permutation, Loc, Root, VStep, ValView};
use crate::exec::budget::MemoryBudget;
use crate::exec::error::ExecError;
use crate::exec::ops::{self, normalize_axis, shape::slice_spec};
use crate::exec::run::Dims;
use crate::exec::value::Value;
use crate::lang::program::NodeId;
use crate::lang::{Op, Type};
use ndarray::{Dimension, IxDyn};

/// How a graph reads its parameters.
pub trait Params {
    /// A view of parameter `k`, if there is one.
    fn param(&self, k: usize) -> Option<ValView<'_>>;
    /// Parameter `k` as a whole value, when the caller holds one (saves a
    /// copy when a reference kernel needs a `&Value`).
    fn whole(&self, _k: usize) -> Option<&Value> {
        None
    }
}

/// No parameters (reading results after a run).
pub struct NoParams;

impl Params for NoParams {
    fn param(&self, _k: usize) -> Option<ValView<'_>> {
        None
    }
}

/// The caller's inputs, by reference.
pub struct RefParams<'a>(pub &'a [&'a Value]);

impl Params for RefParams<'_> {
    fn param(&self, k: usize) -> Option<ValView<'_>> {
        self.0.get(k).map(|v| ValView::of(v))
    }
    fn whole(&self, k: usize) -> Option<&Value> {
        self.0.get(k).copied()
    }
}

/// The executor's account of its own storage: the bytes its slots hold
/// now, and the most they (plus the transient copies of reference-kernel
/// calls) have held.
#[derive(Clone, Copy, Debug, Default)]
pub struct Meter {
    live: usize,
    peak: usize,
}

impl Meter {
    /// Records that a holding of `*held` bytes is now `now` bytes.
    pub fn resize(&mut self, held: &mut usize, now: usize) {
        self.live = self.live.saturating_sub(*held) + now;
        *held = now;
        self.peak = self.peak.max(self.live);
    }

    /// Records `bytes` held briefly on top of the slots.
    pub fn transient(&mut self, bytes: usize) {
        self.peak = self.peak.max(self.live + bytes);
    }

    /// Bytes held now.
    pub fn live(&self) -> usize {
        self.live
    }

    /// The most bytes held since the last [`Meter::reset_peak`].
    pub fn peak(&self) -> usize {
        self.peak
    }

    /// Starts a new peak from what is held now.
    pub fn reset_peak(&mut self) {
        self.peak = self.live;
    }
}

/// Storage kept across calls: a value (its buffer reused when the next
/// value fits) and the bytes the meter counts for it.
#[derive(Debug, Default)]
pub struct Slot {
    /// The value, if any.
    pub val: Option<Value>,
    /// Bytes counted by the meter.
    pub held: usize,
}

/// What a run needs besides storage: the sizes, and their generation
/// (constants are recomputed when it changes).
#[derive(Clone, Copy)]
pub struct Env<'a> {
    /// The symbolic sizes of this call.
    pub dims: &'a Dims,
    /// Bumped whenever `dims` (or the budget) differs from the previous
    /// call's.
    pub gen: u64,
    /// The most bytes one array may take.
    pub budget: MemoryBudget,
}

/// The runtime state of one [`GraphPlan`].
#[derive(Debug)]
pub struct GraphRt {
    /// One per slot of the plan.
    pub slots: Vec<Slot>,
    /// Where each node's value is in this run.
    pub locs: Vec<Loc>,
    /// The runtime of each scan node.
    pub scans: Vec<Option<Box<ScanRt>>>,
    /// The block buffers of each fused group.
    pub fused: Vec<Option<FusedRt>>,
    /// The size generation each constant was computed for (0: never).
    consts: Vec<u64>,
    /// The size generation each node last passed the budget check for,
    /// when the check depended on the sizes alone (0: never).
    budget_checked: Vec<u64>,
}

pub(super) fn internal(plan: &GraphPlan, i: usize, what: &str) -> ExecError {
    ExecError::Op {
        span: plan.graph.span(NodeId(i)),
        op: plan.graph.nodes[i].op.name().to_string(),
        msg: format!("internal error: {what}"),
    }
}

impl GraphRt {
    /// Empty storage for `plan` (slots get their buffers on first use).
    pub fn new(plan: &GraphPlan) -> GraphRt {
        let n = plan.graph.nodes.len();
        GraphRt {
            slots: (0..plan.n_slots).map(|_| Slot::default()).collect(),
            locs: vec![Loc::default(); n],
            scans: (0..n).map(|_| None).collect(),
            fused: (0..n).map(|_| None).collect(),
            consts: vec![0; n],
            budget_checked: vec![0; n],
        }
    }

    /// Runs every node of the schedule.
    pub fn run(
        &mut self,
        plan: &GraphPlan,
        params: &dyn Params,
        env: Env<'_>,
        meter: &mut Meter,
    ) -> Result<(), ExecError> {
        for &i in &plan.order {
            self.exec(plan, i, params, env, meter)?;
        }
        Ok(())
    }

    /// The loop runtimes in this graph and the loops inside them: how many
    /// have a step tape, and how many there are.
    pub fn loops_on_tape(&self) -> (usize, usize) {
        self.scans
            .iter()
            .flatten()
            .map(|s| s.loops_on_tape())
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
    }

    /// Each loop runtime of this graph (and of the loops inside them)
    /// without a step tape, with its place in the program and why it ran
    /// off the tape, appended to `out` in order (`plan`: this graph's).
    pub fn loops_off_tape(
        &self,
        plan: &GraphPlan,
        out: &mut Vec<(crate::lang::program::Span, super::step::OffTape)>,
    ) {
        for (i, s) in self.scans.iter().enumerate() {
            let (Some(s), Some(sp)) = (s, plan.nodes.get(i).and_then(|n| n.scan.as_ref())) else {
                continue;
            };
            s.loops_off_tape(sp, plan.graph.span(crate::lang::program::NodeId(i)), out);
        }
    }

    /// What a step of each loop runtime in this graph (and of the loops
    /// inside them) runs on its tape, appended to `out` in order.
    pub fn step_census(&self, out: &mut Vec<super::step::StepCensus>) {
        for s in self.scans.iter().flatten() {
            s.step_census(out);
        }
    }

    /// The loop runtimes in this graph and the loops inside them that run
    /// machine code on their step tape.
    pub fn loops_native(&self) -> usize {
        self.scans.iter().flatten().map(|s| s.loops_native()).sum()
    }

    /// The loop runtimes in this graph and the loops inside them whose
    /// step tape runs the whole loop as one native function.
    pub fn loops_native_whole(&self) -> usize {
        self.scans
            .iter()
            .flatten()
            .map(|s| s.loops_native_whole())
            .sum()
    }

    /// A view of node `i`'s value in this run.
    pub fn view<'s>(&'s self, i: usize, params: &'s dyn Params) -> Option<ValView<'s>> {
        let loc = self.locs.get(i)?;
        let base = match loc.root {
            Root::Param(k) => params.param(k)?,
            Root::Slot(s) => ValView::of(self.slots.get(s)?.val.as_ref()?),
            Root::Unset => return None,
        };
        base.apply(&loc.steps)
    }

    /// Node `i`'s value as a whole value it holds or the caller holds, if
    /// it is one (no view steps).
    fn whole<'s>(&'s self, i: usize, params: &'s dyn Params) -> Option<&'s Value> {
        let loc = self.locs.get(i)?;
        if !loc.steps.is_empty() {
            return None;
        }
        match loc.root {
            Root::Param(k) => params.whole(k),
            Root::Slot(s) => self.slots.get(s)?.val.as_ref(),
            Root::Unset => None,
        }
    }

    /// Stores a value computed by a reference kernel in slot `s`.
    pub(super) fn store(&mut self, s: usize, v: Value, meter: &mut Meter) {
        let bytes = v.len_bytes();
        let slot = &mut self.slots[s];
        slot.val = Some(v);
        meter.resize(&mut slot.held, bytes);
    }

    fn exec(
        &mut self,
        plan: &GraphPlan,
        i: usize,
        params: &dyn Params,
        env: Env<'_>,
        meter: &mut Meter,
    ) -> Result<(), ExecError> {
        let np = &plan.nodes[i];
        if !matches!(np.role, Role::Param(_) | Role::Proj(_) | Role::View)
            && self.budget_checked[i] != env.gen
        {
            self.check_budget(plan, i, params, env)?;
        }
        if np.fusion.is_some() {
            return super::fusion::exec(self, plan, i, params, env, meter);
        }
        match np.role {
            Role::Param(k) => {
                let root = match np.slots.first() {
                    Some(&s) => Root::Slot(s),
                    None => Root::Param(k),
                };
                self.locs[i].set_whole(root);
            }
            Role::Proj(k) => {
                let src = plan.graph.nodes[i].args.first().map(|a| a.0);
                let Some(&s) = src.and_then(|s| plan.nodes[s].slots.get(k)) else {
                    return Err(internal(plan, i, "projection of a missing result"));
                };
                self.locs[i].set_whole(Root::Slot(s));
            }
            Role::Const => {
                let Some(&s) = np.slots.first() else {
                    return Err(internal(plan, i, "a constant without storage"));
                };
                if self.consts[i] != env.gen || self.slots[s].val.is_none() {
                    let v = self.reference(plan, i, params, env, meter, None)?;
                    self.store(s, v, meter);
                    self.consts[i] = env.gen;
                }
                self.locs[i].set_whole(Root::Slot(s));
            }
            Role::View => self.exec_view(plan, i, params, env, meter)?,
            Role::Elementwise | Role::Update | Role::Fresh => {
                self.exec_compute(plan, i, params, env, meter)?
            }
            Role::Loop => super::scan::exec(self, plan, i, params, env, meter)?,
        }
        Ok(())
    }

    /// The plan's one budget chokepoint: before node `i` computes, checks
    /// that its result (every output of a loop), and each operand its
    /// kernel converts, fit in the budget ([`ops::check_budget`]). Views
    /// are not checked: they hold no more than their base. A check that
    /// depended on the sizes alone is not repeated until they change.
    fn check_budget(
        &mut self,
        plan: &GraphPlan,
        i: usize,
        params: &dyn Params,
        env: Env<'_>,
    ) -> Result<(), ExecError> {
        let node = &plan.graph.nodes[i];
        let bind = |s: &str| env.dims.get(s).copied();
        let fixed = if let Op::Scan(_) = node.op {
            crate::exec::loop_frame::check_loop_outputs(&node.ty, &bind, &env.budget)
        } else {
            let arg_tys: Vec<&Type> = node
                .args
                .iter()
                .map(|a| plan.graph.nodes[a.0].ty())
                .collect();
            let arg_shape = |k: usize| {
                let a = node.args.get(k)?;
                self.view(a.0, params).map(|v| v.shape().to_vec())
            };
            ops::check_budget(
                &node.op,
                &arg_tys,
                node.ty(),
                &bind,
                &env.budget,
                &arg_shape,
            )
        };
        match fixed {
            Ok(true) => {
                self.budget_checked[i] = env.gen;
                Ok(())
            }
            Ok(false) => Ok(()),
            Err(over) => Err(ExecError::OverBudget {
                span: plan.graph.span(NodeId(i)),
                op: node.op.name().to_string(),
                over: Box::new(over),
            }),
        }
    }

    /// Computes node `i` with the reference kernel. `dest` is the slot
    /// taken out for the node's result and its value (the argument the
    /// node overwrites, if it runs in place).
    pub(super) fn reference(
        &self,
        plan: &GraphPlan,
        i: usize,
        params: &dyn Params,
        env: Env<'_>,
        meter: &mut Meter,
        dest: Option<(usize, Option<&Value>)>,
    ) -> Result<Value, ExecError> {
        let node = &plan.graph.nodes[i];
        let mut copies: Vec<Value> = Vec::new();
        let mut which: Vec<Result<&Value, usize>> = Vec::with_capacity(node.args.len());
        for a in &node.args {
            let in_dest = match (dest, self.locs.get(a.0)) {
                (Some((s, v)), Some(loc)) if loc.root == Root::Slot(s) && loc.steps.is_empty() => {
                    Some(v)
                }
                _ => None,
            };
            match in_dest {
                Some(Some(v)) => which.push(Ok(v)),
                Some(None) => return Err(internal(plan, i, "argument not computed")),
                None => match self.whole(a.0, params) {
                    Some(v) => which.push(Ok(v)),
                    None => match self.view(a.0, params) {
                        Some(v) => {
                            copies.push(v.to_value());
                            which.push(Err(copies.len() - 1));
                        }
                        None => return Err(internal(plan, i, "argument not computed")),
                    },
                },
            }
        }
        meter.transient(copies.iter().map(|v| v.len_bytes()).sum());
        let refs: Vec<&Value> = which
            .iter()
            .map(|w| match w {
                Ok(v) => *v,
                Err(k) => &copies[*k],
            })
            .collect();
        let arg_tys: Vec<&Type> = node
            .args
            .iter()
            .map(|a| plan.graph.nodes[a.0].ty())
            .collect();
        let bind = |s: &str| env.dims.get(s).copied();
        let v = ops::eval(&node.op, &refs, &arg_tys, node.ty(), &bind).map_err(|msg| {
            ExecError::Op {
                span: plan.graph.span(NodeId(i)),
                op: node.op.name().to_string(),
                msg,
            }
        })?;
        meter.transient(v.len_bytes() + copies.iter().map(|v| v.len_bytes()).sum::<usize>());
        Ok(v)
    }

    fn exec_compute(
        &mut self,
        plan: &GraphPlan,
        i: usize,
        params: &dyn Params,
        env: Env<'_>,
        meter: &mut Meter,
    ) -> Result<(), ExecError> {
        let np = &plan.nodes[i];
        let node = &plan.graph.nodes[i];
        let Some(&s) = np.slots.first() else {
            return Err(internal(plan, i, "a computed node without storage"));
        };
        let mut dest = self.slots[s].val.take();
        let done = if node.args.len() <= 6 {
            let mut args: [Option<Arg<'_>>; 6] = [None, None, None, None, None, None];
            for (j, a) in node.args.iter().enumerate() {
                let loc = &self.locs[a.0];
                args[j] = if loc.root == Root::Slot(s) && loc.steps.is_empty() {
                    Some(Arg::Dest)
                } else {
                    self.view(a.0, params).map(Arg::View)
                };
            }
            let n = node.args.len();
            args[..n].iter().all(|a| a.is_some())
                && kernels::fast(
                    &node.op,
                    &args[..n],
                    &mut dest,
                    node.ty().dtype,
                    np.compare_dtype,
                )
        } else {
            false
        };
        if !done {
            let r = self.reference(plan, i, params, env, meter, Some((s, dest.as_ref())));
            match r {
                Ok(v) => dest = Some(v),
                Err(e) => {
                    self.slots[s].val = dest;
                    return Err(e);
                }
            }
        }
        let bytes = dest.as_ref().map_or(0, |v| v.len_bytes());
        let slot = &mut self.slots[s];
        slot.val = dest;
        meter.resize(&mut slot.held, bytes);
        self.locs[i].set_whole(Root::Slot(s));
        Ok(())
    }

    fn exec_view(
        &mut self,
        plan: &GraphPlan,
        i: usize,
        params: &dyn Params,
        env: Env<'_>,
        meter: &mut Meter,
    ) -> Result<(), ExecError> {
        let mut loc = std::mem::take(&mut self.locs[i]);
        if self.try_view(plan, i, &mut loc, params, env) {
            self.locs[i] = loc;
            return Ok(());
        }
        let v = self.reference(plan, i, params, env, meter, None)?;
        let Some(&s) = plan.nodes[i].slots.first() else {
            return Err(internal(plan, i, "a view without storage"));
        };
        self.store(s, v, meter);
        loc.set_whole(Root::Slot(s));
        self.locs[i] = loc;
        Ok(())
    }

    /// Records node `i` as a view of its argument 0 in `loc`; false when
    /// the layout or the arguments do not allow it (the reference kernel
    /// then copies, or words the error).
    fn try_view(
        &self,
        plan: &GraphPlan,
        i: usize,
        loc: &mut Loc,
        params: &dyn Params,
        env: Env<'_>,
    ) -> bool {
        let node = &plan.graph.nodes[i];
        let Some(base) = node.args.first().map(|a| a.0) else {
            return false;
        };
        let Some(bv) = self.view(base, params) else {
            return false;
        };
        let bl = &self.locs[base];
        loc.root = bl.root;
        loc.steps.clear();
        loc.steps.extend_from_slice(&bl.steps);
        let shape = bv.shape();
        let ndim = shape.len();
        let step = match &node.op {
            // A view of the same dtype: the argument itself.
            Op::Cast(_) | Op::StopGradient => return true,
            Op::Transpose(perm) => {
                let mut order = IxDyn::zeros(ndim);
                match perm {
                    None => {
                        for k in 0..ndim {
                            order[k] = ndim - 1 - k;
                        }
                    }
                    Some(p) => {
                        if p.len() != ndim {
                            return false;
                        }
                        for (k, &a) in p.iter().enumerate() {
                            match normalize_axis(a, ndim) {
                                Ok(x) => order[k] = x,
                                Err(_) => return false,
                            }
                        }
                        if !is_permutation(order.slice()) {
                            return false;
                        }
                    }
                }
                VStep::Permute(order)
            }
            Op::Reshape(sizes) => {
                if !bv.is_standard_layout() {
                    return false;
                }
                let bind = |s: &str| env.dims.get(s).copied();
                let mut to = IxDyn::zeros(sizes.len());
                let mut infer = None;
                let mut known: usize = 1;
                for (k, d) in sizes.iter().enumerate() {
                    match d.as_known() {
                        Some(-1) => {
                            if infer.replace(k).is_some() {
                                return false;
                            }
                            to[k] = 1;
                        }
                        Some(x) if x < 0 => return false,
                        _ => match d.eval(&bind) {
                            Some(x) => to[k] = x as usize,
                            None => return false,
                        },
                    }
                    match known.checked_mul(to[k]) {
                        Some(p) => known = p,
                        None => return false,
                    }
                }
                let len = bv.len();
                match infer {
                    Some(k) => {
                        if known == 0 || len % known != 0 {
                            return false;
                        }
                        to[k] = len / known;
                    }
                    None if known != len => return false,
                    None => {}
                }
                VStep::Reshape(to)
            }
            Op::ExpandDims(axis) => match normalize_axis(*axis, ndim + 1) {
                Ok(ax) => VStep::Insert(ax),
                Err(_) => return false,
            },
            Op::Flip(axis) => match normalize_axis(*axis, ndim) {
                Ok(ax) => VStep::Flip(ax),
                Err(_) => return false,
            },
            Op::Squeeze(axis) => match normalize_axis(*axis, ndim) {
                Ok(ax) if shape[ax] == 1 => VStep::Remove(ax),
                _ => return false,
            },
            Op::Index => {
                let idx = &node.args[1..];
                if idx.len() > ndim {
                    return false;
                }
                for (ax, a) in idx.iter().enumerate() {
                    let Some(i) = self.view(a.0, params).and_then(|v| v.index_scalar()) else {
                        return false;
                    };
                    let size = shape[ax];
                    let j = if i < 0 {
                        i.checked_add(size as i64)
                    } else {
                        Some(i)
                    };
                    match j {
                        Some(j) if j >= 0 && (j as u64) < size as u64 => {
                            loc.steps.push(VStep::Row(j as usize))
                        }
                        _ => return false,
                    }
                }
                return true;
            }
            Op::Slice { start, stop, step } => {
                if ndim == 0 {
                    return false;
                }
                // The same conversion as the slice kernel.
                let Ok(sl) = slice_spec(shape[0], *start, *stop, *step) else {
                    return false;
                };
                VStep::Slice(sl)
            }
            _ => return false,
        };
        loc.steps.push(step);
        true
    }
}
