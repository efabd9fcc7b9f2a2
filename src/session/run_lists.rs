//! The `run` command for a program that holds lists (SPEC §1 "Nested
//! lists"): inputs read from `.npz` archives (tensors from `.npy` files)
//! or generated, with list lengths from `--lengths` or the default rule;
//! optimized unless asked not to: batched into one dense program when the
//! batching rewrite applies and its cost model chooses it for the lengths
//! (`run_batched.rs`), else carried unchanged and executed by the list evaluator
//! (`crate::exec::list`); reported with each list output's nesting.
//!
//! Owns: [`run_lists`] and [`ListRunResult`] (its JSON report, text lines
//! and output files). Must not: print or parse arguments.

use super::run::{finite_or_null, optimize_timed, RunOptions, Source};
use super::SessionError;
use crate::exec::list::gen::{generate_list, Lengths};
use crate::exec::list::npz::{read_list_npz, write_list_npz};
use crate::exec::list::{bind_items, eval_items, Item, ListValue};
use crate::exec::run::Dims;
use crate::exec::value::eval_shape;
use crate::exec::{npy, ExecError};
use crate::lang::{Program, Type};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// What [`run_lists`] computed.
#[derive(Clone, Debug)]
pub struct ListRunResult {
    /// The last run's outputs, in the program's order.
    pub outputs: Vec<Item>,
    /// Each output's declared type.
    pub output_types: Vec<Type>,
    /// Milliseconds of each timed run.
    pub execute_ms: Vec<f64>,
    /// Milliseconds spent optimizing (0 without the optimizer).
    pub optimize_ms: f64,
    /// The most bytes the values held at once took (a list storage shared
    /// by several lists counted once), over the runs.
    pub peak_bytes: usize,
    /// Whether the run was repeated.
    pub repeated: bool,
    /// Whether the program ran as one dense program through the batching
    /// rewrite (`crate::optimize::batch`) rather than per sequence.
    pub batched: bool,
    /// How the batched program's loops ran (`None` per sequence: the list
    /// evaluator runs loops on the interpreter).
    pub loops: Option<super::run::LoopCount>,
    /// Why the program ran per sequence and not batched (`None` when it
    /// ran batched).
    pub not_batched: Option<String>,
}

/// Runs `p`, which holds lists, as `opts` asks; `lengths` gives the
/// `--lengths` spec of generated list inputs by name.
pub fn run_lists(
    p: &Program,
    opts: &RunOptions,
    lengths: &BTreeMap<String, String>,
) -> Result<ListRunResult, SessionError> {
    let written = p;
    let expanded = super::expand(p)?;
    let p = &expanded;
    let names: Vec<String> = p.inputs().map(|(n, _)| n.to_string()).collect();
    let input_err = |k: usize, msg: String| {
        let id = crate::lang::NodeId(k);
        SessionError::Exec(ExecError::Input {
            span: p.graph.span(id),
            name: names[k].clone(),
            msg,
        })
    };
    let mut items: Vec<Option<Item>> = vec![None; p.n_inputs()];
    for (name, source) in &opts.inputs {
        let Some(k) = names.iter().position(|n| n == name) else {
            return Err(SessionError::UnknownInput {
                name: name.clone(),
                inputs: names,
            });
        };
        let ty = p.graph.node(crate::lang::NodeId(k)).ty();
        items[k] = Some(match source {
            Source::Npy(path) if ty.is_list() => {
                Item::List(read_list_npz(path).map_err(|e| input_err(k, e.to_string()))?)
            }
            Source::Npy(path) => {
                Item::Tensor(npy::read_npy_within(path, &opts.memory).map_err(SessionError::Npy)?)
            }
            Source::Value(v) => Item::Tensor(v.clone()),
        });
    }
    for name in lengths.keys() {
        let Some(k) = names.iter().position(|n| n == name) else {
            return Err(SessionError::UnknownInput {
                name: name.clone(),
                inputs: names,
            });
        };
        if !p.graph.node(crate::lang::NodeId(k)).ty().is_list() {
            return Err(input_err(
                k,
                "--lengths is for list inputs; this one is a tensor".into(),
            ));
        }
    }
    let refs: Vec<Option<&Item>> = items.iter().map(Option::as_ref).collect();
    let mut dims = bind_items(p, &refs, &opts.dims).map_err(SessionError::Exec)?;
    // Generated inputs, in declaration order (a generated list's element
    // shape needs its sizes bound by then).
    let mut inputs = Vec::with_capacity(items.len());
    for (k, item) in items.into_iter().enumerate() {
        let item = match item {
            Some(item) => item,
            None if !opts.gen => {
                return Err(SessionError::MissingInput {
                    name: names[k].clone(),
                })
            }
            None => generated(p, k, &dims, opts, lengths).map_err(|m| input_err(k, m))?,
        };
        inputs.push(item);
    }
    let refs: Vec<Option<&Item>> = inputs.iter().map(Some).collect();
    dims = bind_items(p, &refs, &dims).map_err(SessionError::Exec)?;
    let not_batched = match super::run_batched::run_batched(written, &inputs, &dims, opts)? {
        Ok(r) => return Ok(r),
        Err(why) => why,
    };
    let (optimized, optimize_ms) = optimize_timed(p, &dims, opts)?;
    let prog = optimized.as_ref().unwrap_or(p);
    let runs = opts.repeat.map_or(1, |k| k + 1);
    let mut execute_ms = Vec::new();
    let mut outputs = Vec::new();
    let mut peak_bytes = 0;
    for r in 0..runs {
        let t0 = Instant::now();
        let (outs, peak) =
            eval_items(prog, &inputs, &dims, &opts.memory).map_err(SessionError::Exec)?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if opts.repeat.is_none() || r > 0 {
            execute_ms.push(ms);
        }
        peak_bytes = peak_bytes.max(peak);
        outputs = outs;
    }
    outputs.truncate(p.n_outputs());
    let output_types = p.graph.outputs[..p.n_outputs()]
        .iter()
        .map(|&o| p.graph.node(o).ty().clone())
        .collect();
    Ok(ListRunResult {
        outputs,
        output_types,
        execute_ms,
        optimize_ms,
        peak_bytes,
        repeated: opts.repeat.is_some(),
        batched: false,
        loops: None,
        not_batched: Some(not_batched),
    })
}

/// Input `k` of `p` by the data rule: a tensor, or a list with the
/// lengths `--lengths` gives (the default rule otherwise).
fn generated(
    p: &Program,
    k: usize,
    dims: &Dims,
    opts: &RunOptions,
    lengths: &BTreeMap<String, String>,
) -> Result<Item, String> {
    let node = p.graph.node(crate::lang::NodeId(k));
    let ty = node.ty();
    let name = node.name.as_deref().unwrap_or("");
    let bind = |s: &str| dims.get(s).copied();
    let shape = eval_shape(&ty.shape, &bind)?;
    let scale = opts.scales.get(name).copied().unwrap_or(1.0);
    if !ty.is_list() {
        opts.memory
            .check(crate::exec::budget::Allocation::Data, ty.dtype, &shape)
            .map_err(|over| format!("generating it {over}"))?;
        return Ok(Item::Tensor(crate::exec::gen::generate(
            k, ty.dtype, &shape, scale,
        )));
    }
    let depth = ty.list as usize;
    let lens = match lengths.get(name) {
        Some(spec) => Lengths::parse(spec, depth).map_err(|m| format!("--lengths {name}: {m}"))?,
        None => Lengths::default_rule(depth),
    };
    let mut full = vec![lens.count()];
    full.extend(&shape);
    opts.memory
        .check(crate::exec::budget::Allocation::Data, ty.dtype, &full)
        .map_err(|over| format!("generating it {over}"))?;
    generate_list(k, ty.dtype, &shape, &lens, scale).map(Item::List)
}

/// The lengths of a list as `--lengths` writes them (`3/2,0,1`).
pub fn lengths_text(l: &ListValue) -> String {
    let (_, splits) = l.to_parts();
    splits
        .iter()
        .map(|s| {
            s.windows(2)
                .map(|w| (w[1] - w[0]).to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join("/")
}

impl ListRunResult {
    /// The report of `run --json`: a tensor output as `run` gives it, a
    /// list output as `{"dtype", "shape": [element shape], "row_splits":
    /// [[...], ...], "sum"}`.
    pub fn to_json(&self) -> serde_json::Value {
        let outs: Vec<serde_json::Value> = self
            .outputs
            .iter()
            .zip(&self.output_types)
            .map(|(item, ty)| match item {
                Item::Tensor(v) => serde_json::json!({
                    "shape": v.shape(),
                    "dtype": ty.dtype.name(),
                    "sum": finite_or_null(v.sum_f64()),
                }),
                Item::List(l) => serde_json::json!({
                    "dtype": ty.dtype.name(),
                    "shape": l.element_shape(),
                    "row_splits": l.to_parts().1,
                    "sum": finite_or_null(l.sum_f64()),
                }),
            })
            .collect();
        serde_json::json!({
            "optimize_ms": self.optimize_ms,
            "execute_ms": self.execute_ms,
            "peak_bytes": self.peak_bytes,
            "batched": self.batched,
            "not_batched": self.not_batched,
            "loops": self.loops.map(|l| serde_json::json!({
                "run": l.run,
                "on_tape": l.on_tape,
                "native": l.native,
            })),
            "outputs": outs,
        })
    }

    /// The lines `run` prints: a tensor output's dtype, shape and sum; a
    /// list output's type, lengths (as `--lengths` writes them) and sum.
    pub fn text_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .outputs
            .iter()
            .zip(&self.output_types)
            .enumerate()
            .map(|(k, (item, ty))| match item {
                Item::Tensor(v) => {
                    format!("out_{k}: {} {:?} sum={}", ty.dtype, v.shape(), v.sum_f64())
                }
                Item::List(l) => format!(
                    "out_{k}: {} lengths={} sum={}",
                    crate::lang::print::type_text(ty),
                    lengths_text(l),
                    l.sum_f64()
                ),
            })
            .collect();
        if self.repeated {
            lines.push(super::run::median_line(&self.execute_ms));
        }
        lines
    }

    /// Writes each output to `dir/out_K.npy` (a tensor) or `dir/out_K.npz`
    /// (a list), creating `dir` if needed.
    pub fn write_out(&self, dir: &Path) -> Result<(), SessionError> {
        std::fs::create_dir_all(dir).map_err(|error| SessionError::CreateDir {
            dir: dir.to_path_buf(),
            error,
        })?;
        for (k, item) in self.outputs.iter().enumerate() {
            match item {
                Item::Tensor(v) => npy::write_npy(&dir.join(format!("out_{k}.npy")), v),
                Item::List(l) => write_list_npz(&dir.join(format!("out_{k}.npz")), l),
            }
            .map_err(SessionError::Npy)?;
        }
        Ok(())
    }
}
