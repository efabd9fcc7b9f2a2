//! The compiled function: a program planned once and called many times.
//!
//! Owns: [`Compiled`] — the plan of a program, its storage kept across
//! calls, the binding of symbolic sizes per call — and the memory rules of
//! the library API (the memory-aliasing seed's two spaces): an input passed
//! by reference ([`Compiled::call`]) is never written; an input passed by
//! value ([`Compiled::call_owned`], Aesara's `borrow=True`) belongs to the
//! executor and may serve as workspace; results are borrowed views
//! ([`Outputs`]) valid until the next call — the borrow checker enforces
//! it, since a call takes `&mut self` — or owned values
//! ([`Compiled::call_values`]). Must not: plan anything per call.

use super::runtime::{Env, GraphRt, Meter, NoParams, Params};
use super::schedule::{GraphPlan, PlanOptions};
use super::step::StepCensus;
use super::view::{copy_into, Root, ValView};
use crate::exec::budget::MemoryBudget;
use crate::exec::error::ExecError;
use crate::exec::run::{bind_input_refs, Dims};
use crate::exec::value::{with_elem, Value};
use crate::lang::{Program, Span};

/// One plan with its storage.
#[derive(Debug)]
struct Instance {
    plan: GraphPlan,
    rt: GraphRt,
    /// Copies of outputs that are (views of) the caller's inputs.
    copies: Vec<Option<Value>>,
    copy_held: Vec<usize>,
}

impl Instance {
    fn new(p: &Program, options: PlanOptions) -> Result<Instance, ExecError> {
        let plan = GraphPlan::compile_program(p, options)?;
        let rt = GraphRt::new(&plan);
        let n = plan.graph.outputs.len();
        Ok(Instance {
            plan,
            rt,
            copies: (0..n).map(|_| None).collect(),
            copy_held: vec![0; n],
        })
    }

    /// After a run: copies the outputs that live in the caller's inputs
    /// into storage of the executor's own.
    ///
    /// The first `served` outputs that are views of one of the first
    /// `borrowed` parameters (inputs the caller lends for as long as it
    /// reads the results) are not copied: [`Instance::outputs`] views the
    /// input itself.
    fn settle(
        &mut self,
        params: &dyn Params,
        meter: &mut Meter,
        served: usize,
        borrowed: usize,
    ) -> Result<(), ExecError> {
        for (k, o) in self.plan.graph.outputs.iter().enumerate() {
            let Root::Param(p) = self.rt.locs[o.0].root else {
                continue;
            };
            if k < served && p < borrowed {
                continue;
            }
            let Some(v) = self.rt.view(o.0, params) else {
                return Err(not_computed(&self.plan, o.0));
            };
            let c = &mut self.copies[k];
            let ok = with_elem!(v.dtype(), T => super::kernels::ensure::<T>(c, v.shape()).is_some())
                && c.as_mut().is_some_and(|d| copy_into(d, &v));
            if !ok {
                return Err(not_computed(&self.plan, o.0));
            }
            let bytes = c.as_ref().map_or(0, |v| v.len_bytes());
            meter.resize(&mut self.copy_held[k], bytes);
        }
        Ok(())
    }

    /// The first `n` outputs (the program's own; update values follow).
    /// An output that views one of the `inputs` (lent for `'a`, see
    /// [`Instance::settle`]) views it in place.
    fn outputs<'a>(&'a self, n: usize, inputs: &[&'a Value]) -> Result<Outputs<'a>, ExecError> {
        let mut views = Vec::with_capacity(n);
        for (k, o) in self.plan.graph.outputs.iter().enumerate().take(n) {
            views.push(
                self.output_view(k, inputs)
                    .ok_or_else(|| not_computed(&self.plan, o.0))?,
            );
        }
        Ok(Outputs { views })
    }

    /// Output `k` after a run (after [`Instance::settle`]): a view of one
    /// of the `inputs` it was not copied from, its copy, or its storage.
    fn output_view<'a>(&'a self, k: usize, inputs: &[&'a Value]) -> Option<ValView<'a>> {
        let loc = &self.rt.locs[self.plan.graph.outputs.get(k)?.0];
        match loc.root {
            Root::Param(p) if p < inputs.len() => {
                inputs.get(p).and_then(|v| ValView::of(v).apply(&loc.steps))
            }
            Root::Param(_) => self.copies.get(k)?.as_ref().map(ValView::of),
            _ => self.rt.view(self.plan.graph.outputs.get(k)?.0, &NoParams),
        }
    }
}

/// The parameters of a call: the inputs (by reference; none when they were
/// handed over and live in slots), then the shared variables.
struct CallParams<'a> {
    inputs: &'a [&'a Value],
    n_inputs: usize,
    shared: &'a [Option<Value>],
}

impl Params for CallParams<'_> {
    fn param(&self, k: usize) -> Option<ValView<'_>> {
        self.whole(k).map(ValView::of)
    }
    fn whole(&self, k: usize) -> Option<&Value> {
        if k < self.n_inputs {
            self.inputs.get(k).copied()
        } else {
            self.shared.get(k - self.n_inputs)?.as_ref()
        }
    }
}

fn not_computed(plan: &GraphPlan, i: usize) -> ExecError {
    super::runtime::internal(plan, i, "output not computed")
}

/// A program compiled to a plan: call it as often as needed; each call
/// reuses the storage of the previous ones.
///
/// ```
/// use eqscan::exec::plan::Compiled;
/// use eqscan::exec::Value;
/// use eqscan::lang::parse_program;
///
/// let p = parse_program(
///     "(program f (input x (f64 N)) (output (mul (add x 1.0) 2.0)))",
/// ).unwrap();
/// let mut f = Compiled::new(&p, &Default::default()).unwrap();
/// let x = Value::F64(ndarray::array![1.0, 2.0].into_dyn());
/// let out = f.call(&[&x]).unwrap();
/// assert_eq!(out.get(0).unwrap().to_value(), Value::F64(ndarray::array![4.0, 6.0].into_dyn()));
/// // the caller's input is untouched
/// assert_eq!(x, Value::F64(ndarray::array![1.0, 2.0].into_dyn()));
/// ```
#[derive(Debug)]
pub struct Compiled {
    program: Program,
    given: Dims,
    options: PlanOptions,
    by_ref: Instance,
    by_value: Option<Instance>,
    /// The current value of each shared variable (`None`: zeros, made at
    /// the next call once the sizes are known).
    shared: Vec<Option<Value>>,
    dims: Dims,
    gen: u64,
    meter: Meter,
    budget: MemoryBudget,
}

/// The results of a call, borrowed from the compiled function: valid until
/// its next call. The borrow checker holds the caller to it:
///
/// ```compile_fail
/// use eqscan::exec::plan::Compiled;
/// use eqscan::exec::Value;
/// use eqscan::lang::parse_program;
///
/// let p = parse_program("(program f (input x (f64 N)) (output (mul x 2.0)))").unwrap();
/// let mut f = Compiled::new(&p, &Default::default()).unwrap();
/// let x = Value::F64(ndarray::array![1.0, 2.0].into_dyn());
/// let first = f.call(&[&x]).unwrap();
/// let second = f.call(&[&x]).unwrap(); // `f` is still borrowed by `first`
/// println!("{:?} {:?}", first.get(0), second.get(0));
/// ```
#[derive(Debug)]
pub struct Outputs<'a> {
    views: Vec<ValView<'a>>,
}

impl<'a> Outputs<'a> {
    /// Number of outputs.
    pub fn len(&self) -> usize {
        self.views.len()
    }

    /// True for a program without outputs.
    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }

    /// Output `k`.
    pub fn get(&self, k: usize) -> Option<&ValView<'a>> {
        self.views.get(k)
    }

    /// The outputs in order.
    pub fn iter(&self) -> impl Iterator<Item = &ValView<'a>> {
        self.views.iter()
    }

    /// Owned copies of the outputs.
    pub fn to_values(&self) -> Vec<Value> {
        self.views.iter().map(|v| v.to_value()).collect()
    }
}

impl Compiled {
    /// Compiles `p` with the default options. `dims` gives sizes that no
    /// input binds (such as a scan's `n_steps T`).
    pub fn new(p: &Program, dims: &Dims) -> Result<Compiled, ExecError> {
        Compiled::with_options(p, dims, PlanOptions::default())
    }

    /// Compiles `p` with `options` (`owned_inputs` is ignored: each call
    /// says how it passes its inputs).
    pub fn with_options(
        p: &Program,
        dims: &Dims,
        options: PlanOptions,
    ) -> Result<Compiled, ExecError> {
        let options = PlanOptions {
            owned_inputs: false,
            ..options
        };
        // Lists run on the list evaluator in this stage of issue 41
        // (`crate::exec::list`, see docs/lists.md).
        if crate::lang::list_type::holds_lists(p) {
            return Err(ExecError::Op {
                span: Default::default(),
                op: "plan".into(),
                msg: "a program that holds lists is run by the list evaluator \
                      (eqscan run), not compiled yet"
                    .into(),
            });
        }
        Ok(Compiled {
            program: p.clone(),
            given: dims.clone(),
            options,
            by_ref: Instance::new(p, options)?,
            by_value: None,
            shared: (0..p.shared.count).map(|_| None).collect(),
            dims: Dims::new(),
            gen: 0,
            meter: Meter::default(),
            budget: MemoryBudget::default(),
        })
    }

    /// Sets the memory budget: a call in which an op's result (or a buffer
    /// its kernel or a loop needs) would be larger fails before that op
    /// runs, with [`ExecError::OverBudget`]. The default is the machine's
    /// memory available (see [`crate::exec::budget::MemoryBudget::machine`]).
    pub fn set_memory_budget(&mut self, budget: MemoryBudget) {
        self.budget = budget;
        // Checks already passed were against the old budget.
        self.gen += 1;
    }

    /// The plan inputs passed by reference run with.
    pub fn plan(&self) -> &GraphPlan {
        &self.by_ref.plan
    }

    /// The most bytes the executor's storage has held (slots, copies of
    /// outputs, and the transient copies of reference kernels), since
    /// compiling or the last [`Compiled::reset_peak`]. Shared variables are
    /// the caller's state and not counted.
    pub fn peak_bytes(&self) -> usize {
        self.meter.peak()
    }

    /// How the loops of the last call by reference ran: the number of
    /// loop runtimes whose body has a step tape (their steps after the
    /// first ran on it), and the number of loop runtimes in all (nested
    /// loops counted once each).
    pub fn loops_on_tape(&self) -> (usize, usize) {
        self.by_ref.rt.loops_on_tape()
    }

    /// The loop runtimes of the last call by reference that ran their
    /// steps on the plan, in the program's order: each loop's place in
    /// the program and why it ran off its step tape.
    pub fn loops_off_tape(&self) -> Vec<(crate::lang::program::Span, super::OffTape)> {
        let mut out = Vec::new();
        self.by_ref.rt.loops_off_tape(&self.by_ref.plan, &mut out);
        out
    }

    /// What one step of each loop runtime of the last call by reference
    /// ran on its step tape (loops without one are skipped), in the
    /// program's order: the tape's structure, for tests and reports.
    pub fn step_census(&self) -> Vec<StepCensus> {
        let mut out = Vec::new();
        self.by_ref.rt.step_census(&mut out);
        out
    }

    /// How many loop runtimes of the last call by reference ran steps as
    /// machine code (`PlanOptions::native_steps`).
    pub fn loops_native(&self) -> usize {
        self.by_ref.rt.loops_native()
    }

    /// How many loop runtimes of the last call by reference have their
    /// whole loop as one native function (a step that is one run of
    /// machine code; while loops included).
    pub fn loops_native_whole(&self) -> usize {
        self.by_ref.rt.loops_native_whole()
    }

    /// The bytes the executor's storage holds between calls.
    pub fn held_bytes(&self) -> usize {
        self.meter.live()
    }

    /// Starts a new peak from what is held now.
    pub fn reset_peak(&mut self) {
        self.meter.reset_peak();
    }

    fn shared_index(&self, name: &str) -> Option<usize> {
        self.program.shared_vars().position(|(n, _)| n == name)
    }

    /// The current value of shared variable `name` (borrowed: valid until
    /// the next call or `set_shared`). `None` for an unknown name, or
    /// before the first call when no value was set (it is zeros then).
    pub fn shared(&self, name: &str) -> Option<&Value> {
        self.shared.get(self.shared_index(name)?)?.as_ref()
    }

    /// Sets shared variable `name`, taking the value over (no copy). Its
    /// dtype and rank must be the variable's; its sizes are checked with
    /// the inputs' at the next call.
    pub fn set_shared(&mut self, name: &str, value: Value) -> Result<(), ExecError> {
        let Some(j) = self.shared_index(name) else {
            return Err(ExecError::Input {
                span: Span::default(),
                name: name.to_string(),
                msg: format!(
                    "the program {} has no shared variable of this name",
                    self.program.name
                ),
            });
        };
        let id = self.program.n_inputs() + j;
        let ty = self.program.graph.nodes[id].ty();
        if value.dtype() != ty.dtype || value.ndim() != ty.ndim() {
            return Err(ExecError::Input {
                span: self.program.graph.span(crate::lang::NodeId(id)),
                name: name.to_string(),
                msg: format!(
                    "expected {}, got {} of shape {}",
                    crate::lang::print::type_text(ty),
                    value.dtype(),
                    value.shape_str()
                ),
            });
        }
        self.shared[j] = Some(value);
        Ok(())
    }

    /// Checks the inputs (and the shared variables) and binds this call's
    /// sizes; shared variables not set yet become zeros.
    fn bind(&mut self, inputs: &[&Value]) -> Result<(), ExecError> {
        let n = self.program.n_inputs();
        if inputs.len() != n {
            return Err(ExecError::Input {
                span: Span::default(),
                name: self.program.name.clone(),
                msg: format!("the program takes {n} inputs, {} were given", inputs.len()),
            });
        }
        let mut all: Vec<Option<&Value>> = inputs.iter().map(|v| Some(*v)).collect();
        all.extend(self.shared.iter().map(|v| v.as_ref()));
        let dims = bind_input_refs(&self.program, &all, &self.given)?;
        let bind = |s: &str| dims.get(s).copied();
        for (j, (id, node)) in self.program.graph.params().skip(n).enumerate() {
            if self.shared[j].is_none() {
                let v = Value::from_type_zeros_within(node.ty(), &bind, &self.budget).map_err(
                    |msg| ExecError::Input {
                        span: self.program.graph.span(id),
                        name: node.name.clone().unwrap_or_default(),
                        msg,
                    },
                )?;
                self.shared[j] = Some(v);
            }
        }
        if self.gen == 0 || dims != self.dims {
            self.dims = dims;
            self.gen += 1;
        }
        Ok(())
    }

    /// After a run: the update values become the shared variables' values,
    /// all together (they were all computed before any is written).
    fn apply_updates(
        shared: &mut [Option<Value>],
        program: &Program,
        inst: &Instance,
    ) -> Result<(), ExecError> {
        let n_out = program.n_outputs();
        let names: Vec<&str> = program.shared_vars().map(|(n, _)| n).collect();
        for (u, &j) in program.shared.updates.iter().enumerate() {
            let k = n_out + u;
            let o = inst.plan.graph.outputs[k].0;
            let Some(v) = inst.output_view(k, &[]) else {
                return Err(not_computed(&inst.plan, o));
            };
            let Some(dst) = shared.get_mut(j).and_then(|d| d.as_mut()) else {
                return Err(not_computed(&inst.plan, o));
            };
            if !copy_into(dst, &v) {
                return Err(ExecError::Op {
                    span: inst.plan.graph.span(crate::lang::NodeId(o)),
                    op: "update".to_string(),
                    msg: format!(
                        "the new value of '{}' has shape {}, the variable has shape {}",
                        names.get(j).copied().unwrap_or("_"),
                        crate::exec::value::shape_str(v.shape()),
                        dst.shape_str()
                    ),
                });
            }
        }
        Ok(())
    }

    /// Runs the program on inputs passed by reference: they are read,
    /// never written. The results borrow from `self` until the next call
    /// (a result that is an input, or a view of one, borrows that input
    /// instead of being copied); the shared variables take their new
    /// values.
    pub fn call<'a>(&'a mut self, inputs: &[&'a Value]) -> Result<Outputs<'a>, ExecError> {
        self.bind(inputs)?;
        let env = Env {
            dims: &self.dims,
            gen: self.gen,
            budget: self.budget,
        };
        let inst = &mut self.by_ref;
        {
            let params = CallParams {
                inputs,
                n_inputs: inputs.len(),
                shared: &self.shared,
            };
            inst.rt.run(&inst.plan, &params, env, &mut self.meter)?;
            let served = self.program.n_outputs();
            inst.settle(&params, &mut self.meter, served, inputs.len())?;
        }
        Compiled::apply_updates(&mut self.shared, &self.program, inst)?;
        inst.outputs(self.program.n_outputs(), inputs)
    }

    /// Runs the program on inputs handed over by value: the executor may
    /// overwrite them once they are dead (Aesara's `borrow=True`), saving
    /// an allocation per elementwise op that can run on them in place.
    pub fn call_owned(&mut self, inputs: Vec<Value>) -> Result<Outputs<'_>, ExecError> {
        {
            let refs: Vec<&Value> = inputs.iter().collect();
            self.bind(&refs)?;
        }
        if self.by_value.is_none() {
            let options = PlanOptions {
                owned_inputs: true,
                ..self.options
            };
            self.by_value = Some(Instance::new(&self.program, options)?);
        }
        let Some(inst) = self.by_value.as_mut() else {
            return Err(ExecError::Input {
                span: Span::default(),
                name: self.program.name.clone(),
                msg: "internal error: no plan for owned inputs".to_string(),
            });
        };
        let n_inputs = inputs.len();
        let mut inputs: Vec<Option<Value>> = inputs.into_iter().map(Some).collect();
        for &i in &inst.plan.order {
            let np = &inst.plan.nodes[i];
            if let (super::contract::Role::Param(k), Some(&s)) = (np.role, np.slots.first()) {
                if let Some(v) = inputs.get_mut(k).and_then(|v| v.take()) {
                    let bytes = v.len_bytes();
                    let slot = &mut inst.rt.slots[s];
                    slot.val = Some(v);
                    self.meter.resize(&mut slot.held, bytes);
                }
            }
        }
        let env = Env {
            dims: &self.dims,
            gen: self.gen,
            budget: self.budget,
        };
        {
            let params = CallParams {
                inputs: &[],
                n_inputs,
                shared: &self.shared,
            };
            inst.rt.run(&inst.plan, &params, env, &mut self.meter)?;
            inst.settle(&params, &mut self.meter, 0, 0)?;
        }
        Compiled::apply_updates(&mut self.shared, &self.program, inst)?;
        inst.outputs(self.program.n_outputs(), &[])
    }

    /// Runs the program on inputs passed by reference and returns owned
    /// results: a result that fills one of the executor's buffers is moved
    /// out (the buffer is allocated again next call); others are copied.
    pub fn call_values(&mut self, inputs: &[&Value]) -> Result<Vec<Value>, ExecError> {
        self.call(inputs)?;
        let inst = &mut self.by_ref;
        let outs = &inst.plan.graph.outputs;
        let n_out = self.program.n_outputs();
        let mut values = Vec::with_capacity(n_out);
        for (k, o) in outs.iter().enumerate().take(n_out) {
            let loc = &inst.rt.locs[o.0];
            let movable = match loc.root {
                Root::Slot(s)
                    if loc.steps.is_empty()
                        && !inst.plan.pinned.get(s).copied().unwrap_or(true) =>
                {
                    let shared = outs.iter().enumerate().any(|(j, p)| {
                        j != k && matches!(inst.rt.locs[p.0].root, Root::Slot(x) if x == s)
                    });
                    (!shared).then_some(s)
                }
                _ => None,
            };
            let v = match movable {
                Some(s) => {
                    let slot = &mut inst.rt.slots[s];
                    self.meter.resize(&mut slot.held, 0);
                    slot.val.take()
                }
                // An input or a view of one (not copied by `call`), a
                // copy, or a view of the executor's storage.
                None => inst.output_view(k, inputs).map(|v| v.to_value()),
            };
            values.push(v.ok_or_else(|| not_computed(&inst.plan, o.0))?);
        }
        Ok(values)
    }
}
