//! Loops that read lists (SPEC §1 "Nested lists": "scan takes lists as
//! sequences (an element per step) and its outputs stay tensors";
//! functions may capture lists).
//!
//! Owns: [`run_list_scan`], the run of one `scan` node whose sequences or
//! captured values are lists, or whose body holds lists (a `map` over a
//! list of sequences whose `fn` loops over its sequence). Step `t` reads
//! element `t` of each list sequence (a view of the list's storage: an
//! element that is a list shares it, an element that is a tensor is its
//! one row) and row `t` of each tensor sequence; the body runs through the
//! list evaluator ([`super::run`]), captured values borrowed, never
//! copied per step. The zipped sequences' lengths are checked before the
//! first step (an error at the loop). Must not: rewrite programs, or run
//! loops over tensors only (the interpreter's `run_scan` does).
//!
//! Supported outputs: mapped (`nitsot`, stacked, or built as a list of
//! the steps' results when the loop marks it `as_list`: a step's list as
//! it is, a step's tensor as the list of its rows) and one-tap states
//! (`sitsot`, keeping all steps or the last K); sequences read at tap 0. Other
//! forms (mitsot, mitmot, `until`) with a list are an error naming the
//! loop: no combinator over lists builds them.

use super::run::{eval_graph_items, Item};
use super::value::{row, stack_values, ListValue};
use crate::exec::budget::{Allocation, MemoryBudget};
use crate::exec::error::ExecError;
use crate::exec::run::Dims;
use crate::exec::value::{eval_shape, Value};
use crate::lang::program::{Node, Scan, Span};
use crate::lang::OutputInfo;
use std::collections::VecDeque;

fn loop_error(span: Span, msg: impl Into<String>) -> ExecError {
    ExecError::Op {
        span,
        op: "scan".to_string(),
        msg: msg.into(),
    }
}

/// The length of a sequence: a list's element count, a tensor's rows.
fn seq_len(x: &Item) -> Option<usize> {
    match x {
        Item::List(l) => Some(l.len()),
        Item::Tensor(v) => v.shape().first().copied(),
    }
}

/// Element (or row) `i` of a sequence.
fn seq_item(x: &Item, i: usize) -> Result<Item, String> {
    match x {
        Item::List(l) => l.get(i as i64).map(Item::from),
        Item::Tensor(v) => Ok(Item::Tensor(row(v, i))),
    }
}

/// Runs `scan` (the loop node `node`, at `span`) on its outer arguments
/// `args` (lists or tensors, in the loop's layout); returns its outputs.
pub(crate) fn run_list_scan(
    scan: &Scan,
    args: &[&Item],
    node: &Node,
    span: Span,
    dims: &Dims,
    budget: &MemoryBudget,
) -> Result<Vec<Item>, ExecError> {
    let sig = &scan.sig;
    if args.len() != sig.n_args() {
        return Err(loop_error(
            span,
            "internal error: wrong number of arguments",
        ));
    }
    if sig.until || sig.sequences.iter().any(|t| t.as_slice() != [0]) {
        return Err(loop_error(
            span,
            "a loop over lists reads each sequence at tap 0 and has no (until ...)",
        ));
    }
    if let Some(k) = sig
        .outputs
        .iter()
        .position(|o| !matches!(o, OutputInfo::Sitsot | OutputInfo::Nitsot))
    {
        return Err(loop_error(
            span,
            format!("output {k} of a loop over lists must be a sitsot or a nitsot"),
        ));
    }
    let seqs: Vec<&Item> = sig.seq_args().map(|k| args[k]).collect();
    let mut lens = Vec::with_capacity(seqs.len());
    for (k, x) in seqs.iter().enumerate() {
        lens.push(seq_len(x).ok_or_else(|| loop_error(span, format!("sequence {k} is a scalar")))?);
    }
    if let Some(k) = lens.iter().position(|&n| n != lens[0]) {
        return Err(loop_error(
            span,
            format!(
                "the zipped sequences have different lengths: sequence 0 has {} elements, sequence {k} has {}",
                lens[0], lens[k]
            ),
        ));
    }
    let avail = lens.first().copied().unwrap_or(0);
    let steps = match sig.n_steps_arg() {
        Some(k) => {
            let n = args[k]
                .tensor()
                .and_then(Value::to_i64_scalar)
                .ok_or_else(|| loop_error(span, "n_steps must be an i64 scalar"))?;
            let n = usize::try_from(n)
                .map_err(|_| loop_error(span, format!("n_steps is negative: {n}")))?;
            if n > avail && !seqs.is_empty() {
                return Err(loop_error(
                    span,
                    format!("n_steps is {n}, but the sequences have {avail} elements"),
                ));
            }
            n
        }
        None => avail,
    };
    let inits: Vec<&Item> = sig.init_args().map(|k| args[k]).collect();
    let non_seqs: Vec<&Item> = sig.non_seq_args().map(|k| args[k]).collect();
    let n_out = sig.outputs.len();
    // Each output's kept steps (all, or the last K).
    let mut kept: Vec<VecDeque<Value>> = vec![VecDeque::new(); n_out];
    // The steps' results of the outputs built as lists, each as a list.
    let mut listed: Vec<Vec<ListValue>> = vec![Vec::new(); n_out];
    let mut states: Vec<Item> = inits.iter().map(|&i| i.clone()).collect();
    let state_of: Vec<Option<usize>> = sig.init_index();
    for t in 0..steps {
        let at = if sig.go_backwards { steps - 1 - t } else { t };
        let mut step_items: Vec<Item> = Vec::with_capacity(seqs.len());
        for x in &seqs {
            step_items.push(seq_item(x, at).map_err(|m| loop_error(span, m))?);
        }
        let mut params: Vec<&Item> = step_items.iter().collect();
        params.extend(states.iter());
        params.extend(non_seqs.iter().copied());
        let (outs, _) = eval_graph_items(&scan.body, &params, dims, budget)?;
        if outs.len() != n_out {
            return Err(loop_error(
                span,
                "internal error: wrong number of body results",
            ));
        }
        for (k, out) in outs.into_iter().enumerate() {
            if sig.is_list_output(k) {
                // A list as it is; a tensor as the list of its rows.
                let l = match out {
                    Item::List(l) => l,
                    Item::Tensor(v) => ListValue::of_rows(v)
                        .map_err(|m| loop_error(span, format!("output {k}: {m}")))?,
                };
                listed[k].push(l);
                continue;
            }
            let Item::Tensor(v) = out else {
                return Err(loop_error(
                    span,
                    format!("output {k}: a step returned a list, where a tensor is required"),
                ));
            };
            let dtype = node.ty.get(k).map_or(v.dtype(), |t| t.dtype.storage());
            let v = if v.dtype() == dtype { v } else { v.cast(dtype) };
            if let Some(i) = state_of[k] {
                states[i] = Item::Tensor(v.clone());
            }
            kept[k].push_back(v);
            if let Some(limit) = sig.kept(k) {
                while kept[k].len() > limit {
                    kept[k].pop_front();
                }
            }
        }
    }
    let bind = |s: &str| dims.get(s).copied();
    (0..n_out)
        .map(|k| {
            let ty = node
                .ty
                .get(k)
                .ok_or_else(|| loop_error(span, "internal error: missing output type"))?;
            if sig.is_list_output(k) {
                let inner = eval_shape(&ty.shape, &bind).map_err(|m| loop_error(span, m))?;
                return ListValue::of_lists(&listed[k], ty.list as usize, ty.dtype, &inner)
                    .map(Item::List)
                    .map_err(|m| loop_error(span, format!("output {k}: {m}")));
            }
            let rows: Vec<Value> = kept[k].drain(..).collect();
            let step_shape = match rows.first() {
                Some(r) => r.shape().to_vec(),
                None => eval_shape(&ty.shape[1.min(ty.shape.len())..], &bind)
                    .map_err(|m| loop_error(span, m))?,
            };
            let mut full = vec![rows.len()];
            full.extend(&step_shape);
            budget
                .check(Allocation::LoopOutput(k), ty.dtype, &full)
                .map_err(|over| ExecError::OverBudget {
                    span,
                    op: "scan".to_string(),
                    over: Box::new(over),
                })?;
            stack_values(&rows, ty.dtype, &step_shape)
                .map(Item::Tensor)
                .map_err(|m| loop_error(span, format!("output {k}: {m}")))
        })
        .collect()
}
