//! Running a program that holds lists.
//!
//! Owns: [`Item`] (a run-time value: a tensor or a list), binding a list
//! program's inputs ([`bind_items`]: each list checked against its
//! declared depth, dtype and element shape, its element shape binding
//! symbolic sizes), and [`eval_items`], which evaluates the top-level
//! graph node by node: the list ops here, every tensor op through the
//! interpreter's kernels (`crate::exec::ops`, budget checked first) and
//! every loop through the interpreter's `run_scan` (loops take no list in
//! this stage of issue 41; the type rules refuse them). Errors found at
//! run time (an index out of range) name the op's position. Must not:
//! rewrite programs or read files.

use super::loops::run_list_scan;
use super::value::{Element, ListValue};
use crate::exec::budget::MemoryBudget;
use crate::exec::error::ExecError;
use crate::exec::loop_frame::check_loop_outputs;
use crate::exec::ops;
use crate::exec::run::{bind_input_refs, run_scan, Dims};
use crate::exec::value::Value;
use crate::lang::list_type::graph_holds_lists;
use crate::lang::program::{Graph, NodeId, Program, Span};
use crate::lang::shape::shape_str;
use crate::lang::{ListOp, Op, Type};

/// A run-time value of a list program.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A tensor.
    Tensor(Value),
    /// A nested list.
    List(ListValue),
}

impl Item {
    /// The tensor, if it is one.
    pub fn tensor(&self) -> Option<&Value> {
        match self {
            Item::Tensor(v) => Some(v),
            Item::List(_) => None,
        }
    }

    /// The bytes its storage holds (a list's whole shared storage).
    pub fn len_bytes(&self) -> usize {
        match self {
            Item::Tensor(v) => v.len_bytes(),
            Item::List(l) => l.storage_bytes(),
        }
    }

    /// The sum of its elements (of its innermost tensors for a list).
    pub fn sum_f64(&self) -> f64 {
        match self {
            Item::Tensor(v) => v.sum_f64(),
            Item::List(l) => l.sum_f64(),
        }
    }
}

impl From<Element> for Item {
    fn from(e: Element) -> Item {
        match e {
            Element::Tensor(v) => Item::Tensor(v),
            Element::List(l) => Item::List(l),
        }
    }
}

/// Checks each given input of `p` (`None`: not given yet) against its
/// declared type and binds the symbolic sizes their shapes fix, starting
/// from `given`; a list's element shape binds as a tensor's shape does.
pub fn bind_items(p: &Program, inputs: &[Option<&Item>], given: &Dims) -> Result<Dims, ExecError> {
    let tensors: Vec<Option<&Value>> = inputs.iter().map(|i| i.and_then(Item::tensor)).collect();
    let mut dims = bind_input_refs(p, &tensors, given)?;
    for ((id, node), item) in p.graph.params().zip(inputs) {
        let ty = node.ty();
        let bad = |msg: String| ExecError::Input {
            span: p.graph.span(id),
            name: node.name.clone().unwrap_or_default(),
            msg,
        };
        match item {
            Some(Item::List(l)) => {
                if !ty.is_list() {
                    return Err(bad(format!(
                        "expected the tensor type {ty}, got a list (a .npz archive)"
                    )));
                }
                check_list(l, ty, &mut dims).map_err(bad)?;
            }
            Some(Item::Tensor(_)) if ty.is_list() => {
                return Err(bad(format!(
                    "expected the list {ty}, got a tensor: give it as a .npz archive (values, row_splits_0, ...)"
                )))
            }
            _ => {}
        }
    }
    Ok(dims)
}

/// A list against its declared type: depth, dtype, element shape
/// (binding its symbolic sizes in `dims`).
fn check_list(l: &ListValue, ty: &Type, dims: &mut Dims) -> Result<(), String> {
    if l.depth() != ty.list as usize {
        return Err(format!(
            "expected a list of depth {}, {ty}, got one of depth {} (the archive has {} row_splits)",
            ty.list,
            l.depth(),
            l.depth()
        ));
    }
    if l.dtype() != ty.dtype.storage() {
        return Err(format!("expected dtype {}, got {}", ty.dtype, l.dtype()));
    }
    let shape = l.element_shape();
    let mismatch = || {
        format!(
            "expected elements of shape {}, got {:?} (values has shape {:?})",
            shape_str(&ty.shape),
            shape,
            [&[l.len()][..], shape].concat()
        )
    };
    if shape.len() != ty.ndim() {
        return Err(mismatch());
    }
    for (axis, (d, &n)) in ty.shape.iter().zip(shape).enumerate() {
        let n = n as i64;
        if let Some(k) = d.as_known() {
            if k != n {
                return Err(mismatch());
            }
        } else if let Some(s) = d.as_sym() {
            match dims.get(s) {
                Some(&prev) if prev != n => {
                    return Err(format!(
                        "element axis {axis} has size {n}, but the symbolic size {s} is {prev}"
                    ))
                }
                _ => {
                    dims.insert(s.to_string(), n);
                }
            }
        }
    }
    Ok(())
}

/// A node's value while the graph runs.
enum Slot<'a> {
    /// A parameter's value, borrowed from the caller (never copied).
    Param(&'a Item),
    One(Item),
    /// The results of a loop (tensors, or lists for its outputs built as
    /// lists).
    Multi(Vec<Item>),
}

impl Slot<'_> {
    fn item(&self) -> Option<&Item> {
        match self {
            Slot::Param(item) => Some(item),
            Slot::One(item) => Some(item),
            Slot::Multi(_) => None,
        }
    }
}

fn op_error(span: Span, op: &Op, msg: impl Into<String>) -> ExecError {
    ExecError::Op {
        span,
        op: op.name().to_string(),
        msg: msg.into(),
    }
}

/// The bytes the live values hold: each tensor's own, and each list
/// storage once, however many lists (elements, flattened lists) share it.
#[derive(Default)]
struct Meter {
    live: usize,
    peak: usize,
    /// Live lists per shared storage.
    lists: std::collections::HashMap<usize, usize>,
}

impl Meter {
    fn add(&mut self, s: &Slot) {
        match s {
            Slot::One(Item::Tensor(v)) | Slot::Param(Item::Tensor(v)) => self.live += v.len_bytes(),
            Slot::One(Item::List(l)) | Slot::Param(Item::List(l)) => {
                let n = self.lists.entry(l.storage_id()).or_insert(0);
                if *n == 0 {
                    self.live += l.storage_bytes();
                }
                *n += 1;
            }
            Slot::Multi(vs) => self.live += vs.iter().map(Item::len_bytes).sum::<usize>(),
        }
        self.peak = self.peak.max(self.live);
    }

    fn remove(&mut self, s: &Slot) {
        match s {
            Slot::One(Item::Tensor(v)) | Slot::Param(Item::Tensor(v)) => self.live -= v.len_bytes(),
            Slot::One(Item::List(l)) | Slot::Param(Item::List(l)) => {
                if let Some(n) = self.lists.get_mut(&l.storage_id()) {
                    *n -= 1;
                    if *n == 0 {
                        self.live -= l.storage_bytes();
                    }
                }
            }
            Slot::Multi(vs) => self.live -= vs.iter().map(Item::len_bytes).sum::<usize>(),
        }
    }
}

/// Evaluates the top-level graph of `p` on `inputs` (checked by
/// [`bind_items`]) with the sizes `dims`; returns its outputs and the
/// most bytes the values held at once took (inputs included; storage
/// shared by several lists counted once).
pub fn eval_items(
    p: &Program,
    inputs: &[Item],
    dims: &Dims,
    budget: &MemoryBudget,
) -> Result<(Vec<Item>, usize), ExecError> {
    let refs: Vec<&Item> = inputs.iter().collect();
    eval_graph_items(&p.graph, &refs, dims, budget)
}

/// Evaluates graph `g` (a program's, or a loop body's) on its parameters
/// `params` (borrowed: a captured tensor is not copied for each step);
/// returns its outputs and the most bytes its values held at once.
pub(super) fn eval_graph_items(
    g: &Graph,
    params: &[&Item],
    dims: &Dims,
    budget: &MemoryBudget,
) -> Result<(Vec<Item>, usize), ExecError> {
    let bind = |s: &str| dims.get(s).copied();
    let mut last_use = vec![0usize; g.nodes.len()];
    for (i, node) in g.nodes.iter().enumerate() {
        for a in &node.args {
            last_use[a.0] = i;
        }
    }
    let mut keep = vec![false; g.nodes.len()];
    for o in &g.outputs {
        keep[o.0] = true;
    }
    let mut slots: Vec<Option<Slot>> = Vec::with_capacity(g.nodes.len());
    let mut meter = Meter::default();
    for (i, node) in g.nodes.iter().enumerate() {
        let span = g.span(NodeId(i));
        let op = &node.op;
        let internal = |what: &str| op_error(span, op, format!("internal error: {what}"));
        let arg = |k: usize| -> Result<&Item, ExecError> {
            match node
                .args
                .get(k)
                .and_then(|a| slots.get(a.0))
                .and_then(|s| s.as_ref())
            {
                Some(slot) => slot.item().ok_or_else(|| internal("argument not computed")),
                None => Err(internal("argument not computed")),
            }
        };
        let slot = match op {
            Op::Input(k) => Slot::Param(params.get(*k).ok_or_else(|| internal("missing input"))?),
            Op::Proj(k) => {
                let src = node.args.first().map_or(usize::MAX, |a| a.0);
                match slots.get(src).and_then(|s| s.as_ref()) {
                    Some(Slot::Multi(vs)) => Slot::One(
                        vs.get(*k)
                            .cloned()
                            .ok_or_else(|| internal("missing result"))?,
                    ),
                    _ => return Err(internal("projection of a single value")),
                }
            }
            Op::List(ListOp::Nest) => {
                let Item::List(shape_of) = arg(1)? else {
                    return Err(internal("nest takes its nesting from a list"));
                };
                let values = match arg(0)? {
                    Item::Tensor(v) => v.clone(),
                    Item::List(l) => l.innermost(),
                };
                Slot::One(Item::List(
                    shape_of.nest(values).map_err(|m| op_error(span, op, m))?,
                ))
            }
            // `compress` of a list keeps whole elements; `compress_innermost`
            // the innermost tensors, the nesting kept.
            Op::List(ListOp::CompressInnermost) | Op::Compress
                if matches!(arg(1)?, Item::List(_)) =>
            {
                let (Item::Tensor(Value::Bool(m)), Item::List(l)) = (arg(0)?, arg(1)?) else {
                    return Err(internal("the mask is not a bool vector"));
                };
                let mask: Vec<bool> = m.iter().copied().collect();
                let kept = match op {
                    Op::Compress => l.compress(&mask),
                    _ => l.compress_innermost(&mask),
                };
                Slot::One(Item::List(kept.map_err(|m| op_error(span, op, m))?))
            }
            Op::List(l) => Slot::One(list_op(*l, arg(0)?).map_err(|m| op_error(span, op, m))?),
            Op::Index if matches!(arg(0)?, Item::List(_)) => {
                let Item::List(l) = arg(0)? else {
                    return Err(internal("a list"));
                };
                let i = arg(1)?
                    .tensor()
                    .and_then(Value::to_i64_scalar)
                    .ok_or_else(|| internal("the index is not an integer scalar"))?;
                Slot::One(l.get(i).map_err(|m| op_error(span, op, m))?.into())
            }
            Op::Stack if node.args.len() == 1 && matches!(arg(0)?, Item::List(_)) => {
                let Item::List(l) = arg(0)? else {
                    return Err(internal("a list"));
                };
                Slot::One(Item::Tensor(l.stack().map_err(|m| op_error(span, op, m))?))
            }
            _ => {
                // A loop that reads a list (a sequence, a captured list),
                // whose body holds one or that builds one runs here,
                // element by element.
                let lists_in_loop = match op {
                    Op::Scan(scan) => {
                        graph_holds_lists(&scan.body)
                            || !scan.sig.as_list.is_empty()
                            || (0..node.args.len()).any(|k| matches!(arg(k), Ok(Item::List(_))))
                    }
                    _ => false,
                };
                let mut args = Vec::with_capacity(node.args.len());
                for k in 0..node.args.len() {
                    match arg(k)? {
                        Item::Tensor(v) => args.push(v),
                        Item::List(_) if lists_in_loop => {}
                        Item::List(_) => {
                            return Err(op_error(span, op, "a list where a tensor is required"))
                        }
                    }
                }
                let arg_tys: Vec<&Type> = node.args.iter().map(|a| g.node(*a).ty()).collect();
                let over = |over| ExecError::OverBudget {
                    span,
                    op: op.name().to_string(),
                    over: Box::new(over),
                };
                match op {
                    Op::Scan(scan) if lists_in_loop => {
                        check_loop_outputs(&node.ty, &bind, budget).map_err(over)?;
                        let items = node
                            .args
                            .iter()
                            .map(|a| slots.get(a.0).and_then(|s| s.as_ref()).and_then(Slot::item))
                            .collect::<Option<Vec<&Item>>>()
                            .ok_or_else(|| internal("argument not computed"))?;
                        Slot::Multi(run_list_scan(scan, &items, node, span, dims, budget)?)
                    }
                    Op::Scan(scan) => {
                        check_loop_outputs(&node.ty, &bind, budget).map_err(over)?;
                        Slot::Multi(
                            run_scan(scan, &args, node, span, dims, budget)?
                                .into_iter()
                                .map(Item::Tensor)
                                .collect(),
                        )
                    }
                    _ => {
                        ops::check_budget(op, &arg_tys, node.ty(), &bind, budget, &|k| {
                            args.get(k).map(|v| v.shape().to_vec())
                        })
                        .map_err(over)?;
                        let v = ops::eval(op, &args, &arg_tys, node.ty(), &bind)
                            .map_err(|m| op_error(span, op, m))?;
                        Slot::One(Item::Tensor(v))
                    }
                }
            }
        };
        meter.add(&slot);
        slots.push(Some(slot));
        for a in &node.args {
            if last_use[a.0] == i && !keep[a.0] {
                if let Some(s) = slots[a.0].take() {
                    meter.remove(&s);
                }
            }
        }
    }
    let outs = g
        .outputs
        .iter()
        .map(
            |o| match slots.get(o.0).and_then(|s| s.as_ref()).and_then(Slot::item) {
                Some(item) => Ok(item.clone()),
                None => Err(op_error(
                    g.span(*o),
                    &Op::Proj(0),
                    "internal error: output not computed",
                )),
            },
        )
        .collect::<Result<Vec<_>, _>>()?;
    Ok((outs, meter.peak))
}

/// `len`, `unstack` and `flatten` on one value (`nest` takes two).
fn list_op(op: ListOp, x: &Item) -> Result<Item, String> {
    match (op, x) {
        (ListOp::Len, Item::List(l)) => Ok(Item::Tensor(Value::scalar_i64(l.len() as i64))),
        (ListOp::Len, Item::Tensor(v)) => match v.shape().first() {
            Some(&n) => Ok(Item::Tensor(Value::scalar_i64(n as i64))),
            None => Err("len of a scalar".into()),
        },
        (ListOp::Unstack, Item::Tensor(v)) => ListValue::of_rows(v.clone()).map(Item::List),
        (ListOp::Flatten, Item::List(l)) => l.flatten().map(Item::List),
        (ListOp::Unstack, Item::List(_)) => Err("unstack takes a tensor, got a list".into()),
        (ListOp::Flatten, Item::Tensor(_)) => Err("flatten takes a list, got a tensor".into()),
        (ListOp::Nest, _) => Err("nest takes 2 arguments".into()),
        (ListOp::CompressInnermost, _) => Err("compress_innermost takes 2 arguments".into()),
    }
}
