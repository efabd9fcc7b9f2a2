//! Running programs: binding symbolic sizes, evaluating graphs, and Scan.
//!
//! Owns: the reference semantics of a program run — inputs checked against
//! their declared types, symbolic sizes bound from input shapes or given
//! sizes, nodes evaluated in graph order (each value dropped after its last
//! use), and `scan` with exactly `pytensor.scan`'s semantics: sequences
//! tap-sliced, reversed when going backwards, then cut to `n_steps`;
//! states read at their taps from the init rows and the steps computed so
//! far; outputs holding every step without the initial values; a mitmot's
//! tape copied once, read and written in place. Where each
//! read and write goes is the loop frame's (`super::loop_frame`, shared
//! with the compiled plan); this file keeps each step's values as owned
//! rows. Must not: rewrite programs.

use super::budget::{Allocation, MemoryBudget};
use super::error::{ExecError, LoopError};
use super::loop_frame::{check_loop_outputs, LoopFrame, StateRead};
use super::ops;
use super::value::Value;
use crate::lang::program::{Graph, NodeId, Program, Scan, Span};
use crate::lang::shape::shape_str;
use crate::lang::{BodyParam, DType, Op, Type};
use ndarray::{ArrayD, Axis, IxDyn};
use std::collections::BTreeMap;

/// Symbolic sizes and their values.
pub type Dims = BTreeMap<String, i64>;

/// Runs `p` on `inputs` (in declaration order). `dims` gives sizes that no
/// input binds (such as a scan's `n_steps T`); sizes the inputs bind must
/// agree with it.
pub fn run_program(p: &Program, inputs: Vec<Value>, dims: &Dims) -> Result<Vec<Value>, ExecError> {
    run_program_within(p, inputs, dims, &MemoryBudget::default())
}

/// [`run_program`] with a memory budget: an op whose result (or a buffer
/// its kernel needs) would be larger is an error before its kernel runs.
pub fn run_program_within(
    p: &Program,
    inputs: Vec<Value>,
    dims: &Dims,
    budget: &MemoryBudget,
) -> Result<Vec<Value>, ExecError> {
    // A list program's values are `super::list::Item`s, run by
    // `super::list::eval_items`.
    if crate::lang::list_type::holds_lists(p) {
        return Err(ExecError::Op {
            span: Span::default(),
            op: "run".into(),
            msg: "a program that holds lists runs on exec::list::eval_items".into(),
        });
    }
    let dims = bind_dims(p, &inputs, dims)?;
    let refs: Vec<&Value> = inputs.iter().collect();
    eval_graph_within(&p.graph, &refs, &dims, budget)
}

/// Runs `p` on inputs already checked by [`bind_inputs`], with the sizes it
/// returned.
pub fn eval_program(p: &Program, inputs: &[Value], dims: &Dims) -> Result<Vec<Value>, ExecError> {
    let refs: Vec<&Value> = inputs.iter().collect();
    eval_graph(&p.graph, &refs, dims)
}

/// Checks each input against its declared type and binds the symbolic sizes
/// of the input types, starting from `given`.
pub fn bind_dims(p: &Program, inputs: &[Value], given: &Dims) -> Result<Dims, ExecError> {
    let params = p.graph.n_params;
    if inputs.len() != params {
        return Err(ExecError::Input {
            span: Span::default(),
            name: p.name.clone(),
            msg: format!(
                "the program takes {params} inputs, {} were given",
                inputs.len()
            ),
        });
    }
    let refs: Vec<Option<&Value>> = inputs.iter().map(Some).collect();
    bind_input_refs(p, &refs, given)
}

/// Like [`bind_dims`] for inputs some of which are not given yet (`None`):
/// checks the given ones and binds the sizes their shapes fix.
pub fn bind_inputs(p: &Program, inputs: &[Option<Value>], given: &Dims) -> Result<Dims, ExecError> {
    let refs: Vec<Option<&Value>> = inputs.iter().map(|v| v.as_ref()).collect();
    bind_input_refs(p, &refs, given)
}

/// [`bind_inputs`] on borrowed inputs (nothing is copied).
pub fn bind_input_refs(
    p: &Program,
    inputs: &[Option<&Value>],
    given: &Dims,
) -> Result<Dims, ExecError> {
    let mut dims = given.clone();
    for ((id, node), v) in p.graph.params().zip(inputs) {
        let Some(v) = v else { continue };
        let name = node.name.clone().unwrap_or_default();
        let span = p.graph.span(id);
        let ty = node.ty();
        let bad = |msg: String| ExecError::Input {
            span,
            name: name.clone(),
            msg,
        };
        if v.dtype() != ty.dtype {
            return Err(bad(format!(
                "expected dtype {}, got {}",
                ty.dtype,
                v.dtype()
            )));
        }
        if v.shape().len() != ty.ndim() {
            return Err(bad(format!(
                "expected shape {}, got {:?}",
                shape_str(&ty.shape),
                v.shape()
            )));
        }
        for (axis, (d, &n)) in ty.shape.iter().zip(v.shape()).enumerate() {
            let n = n as i64;
            if let Some(k) = d.as_known() {
                if k != n {
                    return Err(bad(format!(
                        "expected shape {}, got {:?} (axis {axis})",
                        shape_str(&ty.shape),
                        v.shape()
                    )));
                }
            } else if let Some(s) = d.as_sym() {
                match dims.get(s) {
                    Some(&prev) if prev != n => {
                        return Err(bad(format!(
                            "axis {axis} has size {n}, but the symbolic size {s} is {prev}"
                        )))
                    }
                    _ => {
                        dims.insert(s.to_string(), n);
                    }
                }
            }
        }
    }
    Ok(dims)
}

/// Fills the inputs not given (`None`) by the workload data rule, with the
/// sizes in `dims`.
pub fn generate_missing(
    p: &Program,
    inputs: Vec<Option<Value>>,
    dims: &Dims,
    scales: &BTreeMap<String, f64>,
) -> Result<Vec<Value>, ExecError> {
    generate_missing_within(p, inputs, dims, scales, &MemoryBudget::default())
}

/// [`generate_missing`] with a memory budget: an input larger than it is an
/// error before anything is allocated.
pub fn generate_missing_within(
    p: &Program,
    inputs: Vec<Option<Value>>,
    dims: &Dims,
    scales: &BTreeMap<String, f64>,
    budget: &MemoryBudget,
) -> Result<Vec<Value>, ExecError> {
    let mut out = Vec::with_capacity(inputs.len());
    for (k, (((id, node), v), shape)) in p
        .graph
        .params()
        .zip(inputs)
        .zip(input_shapes_opt(p, dims))
        .enumerate()
    {
        out.push(match v {
            Some(v) => v,
            None => {
                let shape = shape.map_err(|name| ExecError::UnboundDim {
                    span: p.graph.span(id),
                    name,
                })?;
                let name = node.name.as_deref().unwrap_or("");
                let dtype = node.ty().dtype;
                budget
                    .check(Allocation::Data, dtype, &shape)
                    .map_err(|over| ExecError::Input {
                        span: p.graph.span(id),
                        name: name.to_string(),
                        msg: format!("generating it {over}"),
                    })?;
                let s = scales.get(name).copied().unwrap_or(1.0);
                super::gen::generate(k, dtype, &shape, s)
            }
        });
    }
    Ok(out)
}

fn input_shapes_opt(p: &Program, dims: &Dims) -> Vec<Result<Vec<usize>, String>> {
    p.graph
        .params()
        .map(|(_, n)| {
            n.ty()
                .shape
                .iter()
                .map(|d| {
                    d.eval(&|s| dims.get(s).copied())
                        .map(|v| v as usize)
                        .ok_or_else(|| d.symbols().next().unwrap_or("?").to_string())
                })
                .collect()
        })
        .collect()
}

/// The concrete shape of each input under `dims`, for generating data.
pub fn input_shapes(p: &Program, dims: &Dims) -> Result<Vec<Vec<usize>>, ExecError> {
    p.graph
        .params()
        .zip(input_shapes_opt(p, dims))
        .map(|((id, _), r)| {
            r.map_err(|name| ExecError::UnboundDim {
                span: p.graph.span(id),
                name,
            })
        })
        .collect()
}

/// Generates every input by the workload data rule (see [`super::gen`]);
/// `scales` gives an input's scale by name (1 otherwise).
pub fn generate_inputs(
    p: &Program,
    dims: &Dims,
    scales: &BTreeMap<String, f64>,
) -> Result<Vec<Value>, ExecError> {
    generate_missing(p, vec![None; p.graph.n_params], dims, scales)
}

/// A value held by the evaluator: a parameter borrowed from the caller, or
/// one it computed.
enum Slot<'a> {
    Borrowed(&'a Value),
    Owned(Value),
    /// The results of a multi-result node (a scan).
    Multi(Vec<Value>),
}

impl Slot<'_> {
    fn value(&self) -> Option<&Value> {
        match self {
            Slot::Borrowed(v) => Some(v),
            Slot::Owned(v) => Some(v),
            Slot::Multi(_) => None,
        }
    }
}

fn internal(span: Span, op: &str, what: &str) -> ExecError {
    ExecError::Op {
        span,
        op: op.to_string(),
        msg: format!("internal error: {what}"),
    }
}

/// Evaluates a graph on parameter values; returns its outputs.
pub fn eval_graph(g: &Graph, params: &[&Value], dims: &Dims) -> Result<Vec<Value>, ExecError> {
    eval_graph_within(g, params, dims, &MemoryBudget::default())
}

/// [`eval_graph`] with a memory budget, checked before each op's kernel
/// runs ([`ops::check_budget`], the interpreter's one chokepoint) and
/// before a loop's output buffers are allocated.
pub fn eval_graph_within(
    g: &Graph,
    params: &[&Value],
    dims: &Dims,
    budget: &MemoryBudget,
) -> Result<Vec<Value>, ExecError> {
    let n = g.nodes.len();
    // The last node (or output) reading each node, so values can be freed.
    let mut last_use = vec![0usize; n];
    for (i, node) in g.nodes.iter().enumerate() {
        for a in &node.args {
            last_use[a.0] = last_use[a.0].max(i);
        }
    }
    let mut keep = vec![false; n];
    for o in &g.outputs {
        keep[o.0] = true;
    }
    let mut slots: Vec<Option<Slot>> = Vec::with_capacity(n);
    let bind = |s: &str| dims.get(s).copied();
    for (i, node) in g.nodes.iter().enumerate() {
        let span = g.span(NodeId(i));
        let name = node.op.name();
        let slot = match &node.op {
            Op::Input(k) => match params.get(*k) {
                Some(v) => Slot::Borrowed(v),
                None => return Err(internal(span, name, "missing parameter")),
            },
            Op::Proj(k) => {
                let src = node.args.first().map(|a| a.0).unwrap_or(usize::MAX);
                match slots.get(src).and_then(|s| s.as_ref()) {
                    Some(Slot::Multi(vs)) => match vs.get(*k) {
                        Some(v) => Slot::Owned(v.clone()),
                        None => return Err(internal(span, name, "missing result")),
                    },
                    _ => return Err(internal(span, name, "projection of a single value")),
                }
            }
            _ => {
                let mut args = Vec::with_capacity(node.args.len());
                for a in &node.args {
                    match slots
                        .get(a.0)
                        .and_then(|s| s.as_ref())
                        .and_then(|s| s.value())
                    {
                        Some(v) => args.push(v),
                        None => return Err(internal(span, name, "argument not computed")),
                    }
                }
                let arg_tys: Vec<&Type> = node.args.iter().map(|a| g.node(*a).ty()).collect();
                let over = |over| ExecError::OverBudget {
                    span,
                    op: name.to_string(),
                    over: Box::new(over),
                };
                match &node.op {
                    Op::Scan(scan) => {
                        check_loop_outputs(&node.ty, &bind, budget).map_err(over)?;
                        Slot::Multi(run_scan(scan, &args, node, span, dims, budget)?)
                    }
                    op => Slot::Owned({
                        ops::check_budget(op, &arg_tys, node.ty(), &bind, budget, &|k| {
                            args.get(k).map(|v| v.shape().to_vec())
                        })
                        .map_err(over)?;
                        ops::eval(op, &args, &arg_tys, node.ty(), &bind).map_err(|msg| {
                            ExecError::Op {
                                span,
                                op: name.to_string(),
                                msg,
                            }
                        })?
                    }),
                }
            }
        };
        slots.push(Some(slot));
        // Free arguments whose last reader this was.
        for a in &node.args {
            if last_use[a.0] == i && !keep[a.0] {
                slots[a.0] = None;
            }
        }
    }
    g.outputs
        .iter()
        .map(|o| {
            match slots
                .get(o.0)
                .and_then(|s| s.as_ref())
                .and_then(|s| s.value())
            {
                Some(v) => Ok(v.clone()),
                None => Err(internal(g.span(*o), "output", "output not computed")),
            }
        })
        .collect()
}

/// `v[i]` along axis 0, as an owned value.
fn row(v: &Value, i: usize) -> Value {
    match v {
        Value::F64(a) => Value::F64(a.index_axis(Axis(0), i).to_owned()),
        Value::F32(a) => Value::F32(a.index_axis(Axis(0), i).to_owned()),
        Value::I64(a) => Value::I64(a.index_axis(Axis(0), i).to_owned()),
        Value::I32(a) => Value::I32(a.index_axis(Axis(0), i).to_owned()),
        Value::Bool(a) => Value::Bool(a.index_axis(Axis(0), i).to_owned()),
    }
}

/// A zero-filled value.
fn alloc(dtype: DType, shape: &[usize]) -> Value {
    let sh = IxDyn(shape);
    match dtype {
        DType::F64 => Value::F64(ArrayD::zeros(sh)),
        DType::F32 => Value::F32(ArrayD::zeros(sh)),
        DType::I64 | DType::Key => Value::I64(ArrayD::zeros(sh)),
        DType::I32 => Value::I32(ArrayD::zeros(sh)),
        DType::Bool => Value::Bool(ArrayD::from_elem(sh, false)),
    }
}

/// `dst[i] = src`; the dtypes must agree and the shapes match exactly.
pub(crate) fn set_row(dst: &mut Value, i: usize, src: &Value) -> bool {
    fn put<T: Clone>(d: &mut ArrayD<T>, i: usize, s: &ArrayD<T>) -> bool {
        let mut r = d.index_axis_mut(Axis(0), i);
        if r.shape() != s.shape() {
            return false;
        }
        r.assign(s);
        true
    }
    match (dst, src) {
        (Value::F64(d), Value::F64(s)) => put(d, i, s),
        (Value::F32(d), Value::F32(s)) => put(d, i, s),
        (Value::I64(d), Value::I64(s)) => put(d, i, s),
        (Value::I32(d), Value::I32(s)) => put(d, i, s),
        (Value::Bool(d), Value::Bool(s)) => put(d, i, s),
        _ => false,
    }
}

fn scalar_i64(v: &Value) -> Option<i64> {
    match v {
        Value::I64(a) if a.ndim() == 0 => a.iter().next().copied(),
        _ => None,
    }
}

/// Converts a body result to the output's dtype (a weak literal result
/// takes the state's dtype).
fn to_dtype(v: Value, dtype: DType, dims: &Dims) -> Result<Value, String> {
    if v.dtype() == dtype.storage() {
        return Ok(v);
    }
    let from = Type::new(v.dtype(), Vec::new());
    let to = Type::new(dtype, Vec::new());
    ops::eval(&Op::Cast(dtype), &[&v], &[&from], &to, &|s| {
        dims.get(s).copied()
    })
}

/// Runs one scan node. `args` are its evaluated arguments. The loop's
/// bookkeeping is its [`LoopFrame`]; this keeps each step's parameters as
/// owned rows and each output in a buffer allocated at the first step.
pub(crate) fn run_scan(
    scan: &Scan,
    args: &[&Value],
    node: &crate::lang::Node,
    span: Span,
    dims: &Dims,
    budget: &MemoryBudget,
) -> Result<Vec<Value>, ExecError> {
    let sig = &scan.sig;
    let fail = |msg: String| ExecError::Op {
        span,
        op: "scan".to_string(),
        msg,
    };
    let loop_err = |reason| ExecError::Loop { span, reason };
    let over = |over| ExecError::OverBudget {
        span,
        op: "scan".to_string(),
        over: Box::new(over),
    };
    if args.len() != sig.n_args() {
        return Err(internal(span, "scan", "wrong number of arguments"));
    }
    let seq_lens: Vec<usize> = sig
        .seq_args()
        .map(|k| args[k].shape().first().copied().unwrap_or(0))
        .collect();
    let inits: Vec<&Value> = sig.init_args().map(|k| args[k]).collect();
    let init_shapes: Vec<&[usize]> = inits.iter().map(|v| v.shape()).collect();
    let given = sig.n_steps_arg().map(|k| scalar_i64(args[k]));
    let mut frame = LoopFrame::new(sig, &seq_lens, given, &init_shapes).map_err(loop_err)?;
    let params_of = sig.body_params();
    // Output buffers: allocated once the first step tells their shape
    // (or from the static type when there are no steps).
    let mut bufs: Vec<Option<Value>> = vec![None; sig.outputs.len()];
    // A mitmot's buffer is a copy of its tape, made once: the loop reads
    // and writes its slots in place.
    for (k, i) in sig.init_index().into_iter().enumerate() {
        let Some(tape) = i.filter(|_| frame.is_tape(k)).and_then(|i| inits.get(i)) else {
            continue;
        };
        budget
            .check(Allocation::LoopOutput(k), tape.dtype(), tape.shape())
            .map_err(over)?;
        bufs[k] = Some((*tape).clone());
    }
    let results = sig.body_outputs();
    let bind = |s: &str| dims.get(s).copied();
    let mut t = 0;
    while t < frame.steps() {
        if t == 1 {
            let seq_elements = sig.seq_args().map(|k| args[k].len());
            let elements = seq_elements
                .chain(inits.iter().map(|v| v.len()))
                .chain(bufs.iter().flatten().map(|b| b.len()));
            if frame.later_steps_are_empty(elements) {
                break;
            }
        }
        let mut params: Vec<Value> = Vec::with_capacity(params_of.len());
        let mut refs: Vec<&Value> = Vec::with_capacity(params_of.len());
        for p in &params_of {
            let v = match *p {
                BodyParam::Sequence { seq, tap } => {
                    let x = args[sig.seq_args().start + seq];
                    match frame.seq_row(seq, tap, t) {
                        Some(r) => row(x, r),
                        None => return Err(internal(span, "scan", "sequence row out of range")),
                    }
                }
                BodyParam::State { out, tap } => match frame.state_read(out, tap, t) {
                    Some(StateRead::Written(r)) => match &bufs[out] {
                        Some(b) => row(b, r),
                        None => return Err(internal(span, "scan", "state read before written")),
                    },
                    Some(StateRead::Init(i)) => inits[i].clone(),
                    Some(StateRead::InitRow(i, r)) => row(inits[i], r),
                    None => return Err(internal(span, "scan", "missing init")),
                },
                BodyParam::NonSequence(_) => continue,
            };
            params.push(v);
        }
        refs.extend(params.iter());
        refs.extend(sig.non_seq_args().map(|k| args[k]));
        let mut outs = eval_graph_within(&scan.body, &refs, dims, budget)?;
        if outs.len() != sig.n_body_results() {
            return Err(internal(span, "scan", "wrong number of body results"));
        }
        // A while loop's condition, read after the step's outputs are kept.
        let stop = match sig.until_result().and_then(|c| outs.get(c)) {
            Some(cond) => match cond.scalar_truth() {
                Some(b) => b,
                None => return Err(internal(span, "scan", "the loop condition is not a scalar")),
            },
            None => false,
        };
        outs.truncate(results.len());
        // Every read of this step is done (the parameters are copies), so
        // a mitmot's writes may replace the slots it read.
        for (v, &result) in outs.into_iter().zip(&results) {
            let k = result.out;
            let Some(out_ty) = node.ty.get(k) else {
                return Err(internal(span, "scan", "missing output type"));
            };
            let v = to_dtype(v, out_ty.dtype, dims).map_err(fail)?;
            frame.check_returned(k, v.shape()).map_err(loop_err)?;
            if let (Some(rows), Some(b)) = (frame.grow_for(k, t), bufs[k].as_mut()) {
                let mut shape = b.shape().to_vec();
                shape[0] = rows;
                budget
                    .check(Allocation::LoopOutput(k), out_ty.dtype, &shape)
                    .map_err(over)?;
                b.resize_rows(rows);
            }
            if bufs[k].is_none() {
                let mut shape = vec![frame.rows(k)];
                shape.extend_from_slice(v.shape());
                budget
                    .check(Allocation::LoopOutput(k), out_ty.dtype, &shape)
                    .map_err(over)?;
                bufs[k] = Some(alloc(out_ty.dtype, &shape));
            }
            let Some(buf) = bufs[k].as_mut() else {
                return Err(internal(span, "scan", "output buffer missing"));
            };
            let Some(r) = frame.result_row(result, t) else {
                return Err(internal(span, "scan", "a mitmot slot out of range"));
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
        if stop {
            frame.stop_after(t);
            break;
        }
        t += 1;
    }
    (0..sig.outputs.len())
        .map(|k| {
            if let Some(mut b) = bufs[k].take() {
                // A while loop's buffer past the steps that ran is cut.
                if frame.is_while() && !frame.is_tape(k) {
                    b.resize_rows(frame.rows(k));
                }
                // A ring buffer is rotated back to chronological order.
                let start = frame.oldest_row(k);
                if start == 0 {
                    return Ok(b);
                }
                let rows = frame.rows(k);
                let mut ordered = alloc(b.dtype(), b.shape());
                for i in 0..rows {
                    set_row(&mut ordered, i, &row(&b, (start + i) % rows));
                }
                return Ok(ordered);
            }
            let out_ty = node
                .ty
                .get(k)
                .ok_or_else(|| internal(span, "scan", "missing output type"))?;
            let mut shape = vec![0];
            shape.extend(frame.zero_step_shape(k, out_ty, &bind).map_err(loop_err)?);
            Ok(alloc(out_ty.dtype, &shape))
        })
        .collect()
}
