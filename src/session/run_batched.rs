//! `run` of a list program through the batching rewrite: when
//! [`crate::optimize::batch::batch_lists`] chooses it for the run-time
//! lengths, the sequences are padded, the dense program runs as any
//! dense program does (its `grad`s expanded, optimized, on the compiled
//! plan and the step tape), and its outputs become the list program's.
//!
//! A batched run that fails or gives a result that is not finite is
//! thrown away and the program runs as written (see [`run_batched`]):
//! the padded steps compute on rows the written program never reads.
//!
//! Owns: [`run_batched`]. Must not: decide whether to batch (the rewrite
//! does) or print.

use super::run::{RunOptions, Source};
use super::run_lists::ListRunResult;
use super::SessionError;
use crate::exec::list::pad::{pad_phases, pad_sequences};
use crate::exec::list::{Item, ListValue};
use crate::exec::run::Dims;
use crate::exec::value::Value;
use crate::exec::ExecError;
use crate::lang::{NodeId, Program, Type};
use crate::optimize::batch::{batch_lists, NotBatched, PaddedList, Phased};
use std::collections::BTreeMap;
use std::time::Instant;

/// Runs the list program `p` (its `grad`s not expanded) on `inputs` as
/// one dense program, when the optimizer is on and the rewrite applies
/// and costs less for these lengths; otherwise (the caller runs it per
/// sequence) the sentence saying why not. The padding's time is counted in each run's time.
pub(super) fn run_batched(
    p: &Program,
    inputs: &[Item],
    dims: &Dims,
    opts: &RunOptions,
) -> Result<Result<ListRunResult, String>, SessionError> {
    if opts.optimizer.is_none() {
        return Ok(Err("the optimizer is off".to_string()));
    }
    let names: Vec<String> = p.inputs().map(|(n, _)| n.to_string()).collect();
    let mut lengths = BTreeMap::new();
    for (name, item) in names.iter().zip(inputs) {
        if let Item::List(l) = item {
            if l.depth() != 2 {
                let input = name.clone();
                return Ok(Err(NotBatched::NotSequences { input }.to_string()));
            }
            let splits = l.splits();
            let lens = splits[1].windows(2).map(|w| (w[1] - w[0]) as usize);
            lengths.insert(name.clone(), lens.collect::<Vec<_>>());
        }
    }
    let b = match batch_lists(p, Some(&lengths)) {
        Ok(b) => b,
        Err(why) => return Ok(Err(why.to_string())),
    };
    // The padding is part of each run (the list is the program's input):
    // it is done once per run, warm-up included, as a caller padding its
    // lists on every call would, and each run's time counts its own
    // padding (one cold measure, first-touch page faults included, made
    // the figures of `--repeat` swing by a factor of three).
    let runs = opts.repeat.map_or(1, |k| k + 1);
    let mut pad_ms = Vec::with_capacity(runs);
    let mut padded = None;
    for _ in 0..runs {
        let t0 = Instant::now();
        let mut dense_inputs = Vec::new();
        let mut dense_dims = dims.clone();
        for (k, (name, item)) in names.iter().zip(inputs).enumerate() {
            match item {
                Item::Tensor(v) => dense_inputs.push((name.clone(), Source::Value(v.clone()))),
                Item::List(l) => {
                    let at = |msg: String| {
                        SessionError::Exec(ExecError::Input {
                            span: p.graph.span(NodeId(k)),
                            name: name.clone(),
                            msg,
                        })
                    };
                    let Some(pl) = b.lists.iter().find(|pl| pl.input == k) else {
                        let input = name.clone();
                        return Ok(Err(NotBatched::ListUse { input }.to_string()));
                    };
                    match &pl.phases {
                        Some(ph) => {
                            let lens = &lengths[name];
                            phased_inputs(l, lens, pl, ph, &mut dense_inputs, &mut dense_dims)
                                .map_err(at)?;
                        }
                        None => {
                            let (padded, lens) = pad_sequences(l).map_err(at)?;
                            dense_dims.insert(pl.steps.clone(), padded.shape()[0] as i64);
                            dense_dims.insert(pl.batch.clone(), padded.shape()[1] as i64);
                            dense_inputs.push((format!("{name}_padded"), Source::Value(padded)));
                            dense_inputs.push((format!("{name}_lengths"), Source::Value(lens)));
                        }
                    }
                }
            }
        }
        pad_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        padded = Some((dense_inputs, dense_dims));
    }
    let (dense_inputs, dense_dims) = padded.unwrap_or_default();
    // The warm-up run's padding is not counted, as its run is not.
    let counted = &pad_ms[usize::from(opts.repeat.is_some())..];
    let dense_opts = RunOptions {
        inputs: dense_inputs,
        gen: false,
        scales: BTreeMap::new(),
        dims: dense_dims,
        memory: opts.memory,
        optimizer: opts.optimizer.clone(),
        repeat: opts.repeat,
        shared: Vec::new(),
        calls: 1,
    };
    // The padded steps compute the step on rows no sequence has (zeros
    // past its end, with its last state): their results are masked away,
    // but a step that meets a pole there (a `log` or a division at 0)
    // makes an infinite local derivative, and the zero cotangent of a
    // masked row times it is NaN in the gradient. The written program
    // never computes those steps; so a batched run that fails, or whose
    // results are not all finite, is not trusted: the caller runs the
    // program as written, which gives its own results or its own error.
    let r = match super::run::run(&b.program, &dense_opts) {
        Ok(r) => r,
        Err(e) => return Ok(Err(format!("the batched program failed ({e})"))),
    };
    if !r.outputs.iter().all(all_finite) {
        return Ok(Err(
            "the batched program's results were not all finite".to_string()
        ));
    }
    let outputs = r
        .outputs
        .into_iter()
        .zip(&b.list_outputs)
        .enumerate()
        .map(|(k, (v, &list))| {
            if !list {
                return Ok(Item::Tensor(v));
            }
            ListValue::of_rows(v).map(Item::List).map_err(|msg| {
                let o = p.graph.outputs[k];
                SessionError::Exec(ExecError::Input {
                    span: p.graph.span(o),
                    name: format!("out_{k}"),
                    msg,
                })
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let output_types: Vec<Type> = p.graph.outputs[..p.n_outputs()]
        .iter()
        .map(|&o| p.graph.node(o).ty().clone())
        .collect();
    Ok(Ok(ListRunResult {
        outputs,
        output_types,
        execute_ms: r
            .execute_ms
            .iter()
            .zip(counted.iter().cycle())
            .map(|(ms, pad)| ms + pad)
            .collect(),
        optimize_ms: r.optimize_ms,
        peak_bytes: r.peak_bytes,
        repeated: r.repeated,
        batched: true,
        loops: Some(r.loops),
        not_batched: None,
    }))
}

/// The dense inputs and sizes standing for list `l` (its sequences'
/// lengths `lens`) run in the phases `ph` (`optimize::batch::Phased`): each
/// phase's padded rows, its masked rows' lengths from the phase's first
/// step, the rows passed on, the rows ending in each phase and whose they
/// are.
fn phased_inputs(
    l: &ListValue,
    lens: &[usize],
    pl: &PaddedList,
    ph: &Phased,
    inputs: &mut Vec<(String, Source)>,
    dims: &mut Dims,
) -> Result<(), String> {
    let plan = &ph.plan;
    let pads = pad_phases(l, &plan.order, &plan.bounds, &plan.rows)?;
    let sorted = plan.sorted_lengths(lens);
    let ints = |v: Vec<i64>| {
        let n = v.len();
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[n]), v)
            .map(Value::from)
            .map_err(|e| e.to_string())
    };
    for (p, pad) in pads.into_iter().enumerate() {
        dims.insert(ph.steps[p].clone(), plan.steps(p) as i64);
        dims.insert(ph.rows[p].clone(), plan.rows[p] as i64);
        inputs.push((pl.padded_name(p), Source::Value(pad)));
        if plan.masked[p] {
            let s = plan.bounds[p];
            let local = sorted[..plan.rows[p]].iter().map(|&t| (t - s) as i64);
            inputs.push((pl.lengths_name(p), Source::Value(ints(local.collect())?)));
        }
        if p > 0 {
            let next = (0..plan.rows[p] as i64).collect();
            inputs.push((pl.next_name(p - 1), Source::Value(ints(next)?)));
        }
        let ended = plan.ended(p);
        dims.insert(ph.ended[p].clone(), ended.len() as i64);
        let users = plan.order[ended.clone()].iter().map(|&b| b as i64);
        let rows = ended.map(|r| r as i64);
        inputs.push((pl.ended_name(p), Source::Value(ints(rows.collect())?)));
        inputs.push((pl.users_name(p), Source::Value(ints(users.collect())?)));
    }
    dims.insert(pl.batch.clone(), lens.len() as i64);
    Ok(())
}

/// Whether every element of `v` is finite (integers and bools always are).
fn all_finite(v: &crate::exec::value::Value) -> bool {
    use crate::exec::value::Value;
    match v {
        Value::F64(a) => a.iter().all(|x| x.is_finite()),
        Value::F32(a) => a.iter().all(|x| x.is_finite()),
        Value::I64(_) | Value::I32(_) | Value::Bool(_) => true,
    }
}
