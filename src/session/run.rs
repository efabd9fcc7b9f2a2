//! The `run` command as a library call: a program's inputs and shared
//! variables bound (from `.npy` files, given values or the workload data
//! rule), its sizes bound, optimized or not, compiled once and executed
//! (after a warm-up when repeated), with what `run` reports.
//!
//! Owns: [`RunOptions`], [`run`], [`RunResult`] (its JSON report, its text
//! lines, its `.npy` files). Must not: print or parse arguments.
//!
//! An error of the optimized program where the program as written runs is
//! an optimizer bug: the written program's results are returned, with the
//! optimized program's error in [`RunResult::optimized_error`]
//! ([`crate::exec::map_back`]).

use super::{OptimizerSettings, SessionError};
use crate::exec::map_back::{run_mapped_back, Outcome};
use crate::exec::plan::{Compiled, OffTape};
use crate::exec::run::{bind_inputs, generate_missing_within, Dims};
use crate::exec::shape_check::check_program;
use crate::exec::{npy, ExecError, MemoryBudget, Value};
use crate::lang::program::Span;
use crate::lang::{DType, Program};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where the value of an input or a shared variable comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// An `.npy` file (read within the memory budget).
    Npy(PathBuf),
    /// A value at hand.
    Value(Value),
}

/// What `run` is asked for.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Values of inputs, by name (`--input`).
    pub inputs: Vec<(String, Source)>,
    /// Fill every input not in [`Self::inputs`] with the workload data rule
    /// (`--gen`); without it, every input must be given.
    pub gen: bool,
    /// Scales of generated inputs, by name (1 when absent).
    pub scales: BTreeMap<String, f64>,
    /// Values of symbolic sizes (`--dim`); the inputs' shapes bind the
    /// others.
    pub dims: Dims,
    /// The most bytes one array may take.
    pub memory: MemoryBudget,
    /// The optimizer; `None` runs the program as written (`--no-opt`).
    pub optimizer: Option<OptimizerSettings>,
    /// Execute this many times after one warm-up run (`--repeat`); `None`:
    /// once, timed.
    pub repeat: Option<usize>,
    /// First values of shared variables, by name (zeros otherwise).
    pub shared: Vec<(String, Source)>,
    /// Calls in a row per run, each seeing the shared variables as the
    /// previous one left them (at least 1).
    pub calls: u64,
}

impl Default for RunOptions {
    /// No inputs given, nothing generated, the default optimizer, one run
    /// of one call.
    fn default() -> Self {
        RunOptions {
            inputs: Vec::new(),
            gen: false,
            scales: BTreeMap::new(),
            dims: Dims::new(),
            memory: MemoryBudget::default(),
            optimizer: Some(OptimizerSettings::default()),
            repeat: None,
            shared: Vec::new(),
            calls: 1,
        }
    }
}

/// How a program's loops ran ([`RunResult::loops`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopCount {
    /// Loops that ran (nested loops counted once each).
    pub run: usize,
    /// Of those, loops whose steps after the first ran on a step tape.
    pub on_tape: usize,
    /// Of those, loops whose step tape ran (part of) each step as machine
    /// code.
    pub native: usize,
}

/// What [`run`] computed.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// The last run's outputs, in the program's order.
    pub outputs: Vec<Value>,
    /// Each output's dtype as the program declares it: a key output is
    /// reported as `key` (its value holds the keys' 64 bits as `i64`).
    pub output_dtypes: Vec<DType>,
    /// The shared variables' values after the last run, in declaration
    /// order.
    pub shared: Vec<(String, Value)>,
    /// Milliseconds of each timed run (the warm-up excluded when
    /// repeated).
    pub execute_ms: Vec<f64>,
    /// Milliseconds spent optimizing (0 without the optimizer).
    pub optimize_ms: f64,
    /// The most bytes the executor's own storage held.
    pub peak_bytes: usize,
    /// The loops of the executed program (nested ones counted once), and
    /// how many of them ran their steps on a step tape (the body compiled
    /// for its shapes) rather than node by node.
    pub loops: LoopCount,
    /// Each loop that ran its steps node by node, in the program's order:
    /// its place in the executed program and why it ran off the step
    /// tape.
    pub off_tape: Vec<(Span, OffTape)>,
    /// Whether the run was repeated ([`RunOptions::repeat`]).
    pub repeated: bool,
    /// The error of the optimized program, when it failed where the
    /// program as written runs (an optimizer bug; the results are the
    /// written program's).
    pub optimized_error: Option<ExecError>,
}

/// A value from its source.
fn load(source: &Source, budget: &MemoryBudget) -> Result<Value, SessionError> {
    match source {
        Source::Npy(path) => npy::read_npy_within(path, budget).map_err(SessionError::Npy),
        Source::Value(v) => Ok(v.clone()),
    }
}

/// Runs `p` as [`RunOptions`] asks: binds its inputs and shared variables,
/// checks the program as written with the sizes bound (its errors are the
/// user's, whether it then runs optimized or not), optimizes it unless
/// asked not to, and executes it on the compiled plan.
pub fn run(p: &Program, opts: &RunOptions) -> Result<RunResult, SessionError> {
    let expanded = super::expand(p)?;
    let p = &expanded;
    let budget = opts.memory;
    let mut values: Vec<Option<Value>> = vec![None; p.n_inputs()];
    let names: Vec<String> = p.inputs().map(|(n, _)| n.to_string()).collect();
    for (name, source) in &opts.inputs {
        let Some(k) = names.iter().position(|n| n == name) else {
            return Err(SessionError::UnknownInput {
                name: name.clone(),
                inputs: names,
            });
        };
        values[k] = Some(load(source, &budget)?);
    }
    let shared_names: Vec<String> = p.shared_vars().map(|(n, _)| n.to_string()).collect();
    let mut state: Vec<Option<Value>> = vec![None; shared_names.len()];
    for (name, source) in &opts.shared {
        let Some(k) = shared_names.iter().position(|n| n == name) else {
            return Err(SessionError::UnknownShared {
                name: name.clone(),
                shared: shared_names,
            });
        };
        state[k] = Some(load(source, &budget)?);
    }
    let dims = {
        let mut all = values.clone();
        all.extend(state.iter().cloned());
        bind_inputs(p, &all, &opts.dims).map_err(SessionError::Exec)?
    };
    // Shared variables not given start as zeros.
    let bind = |s: &str| dims.get(s).copied();
    let mut first_state = Vec::with_capacity(state.len());
    for ((id, node), v) in p.graph.params().skip(p.n_inputs()).zip(state) {
        first_state.push(match v {
            Some(v) => v,
            None => Value::from_type_zeros_within(node.ty(), &bind, &budget).map_err(|msg| {
                SessionError::Exec(ExecError::Input {
                    span: p.graph.span(id),
                    name: node.name.clone().unwrap_or_default(),
                    msg,
                })
            })?,
        });
    }
    let inputs = if opts.gen {
        generate_missing_within(p, values, &dims, &opts.scales, &budget)
            .map_err(SessionError::Exec)?
    } else {
        let mut full = Vec::with_capacity(values.len());
        for (v, name) in values.into_iter().zip(&names) {
            match v {
                Some(v) => full.push(v),
                None => return Err(SessionError::MissingInput { name: name.clone() }),
            }
        }
        full
    };
    // The program as written, checked with the sizes bound: its errors are
    // the user's, whether it then runs optimized or not.
    check_program(p, &dims).map_err(SessionError::Exec)?;
    let (optimized, optimize_ms) = optimize_timed(p, &dims, opts)?;
    let execution = Execution {
        dims: &dims,
        budget,
        inputs: &inputs,
        shared_names: &shared_names,
        first_state: &first_state,
        runs: opts.repeat.map_or(1, |k| k + 1),
        repeated: opts.repeat.is_some(),
        calls: opts.calls,
    };
    // An error of the optimized program is told as the written program's
    // (crate::exec::map_back).
    let (executed, optimized_error) = match &optimized {
        None => (execution.execute(p).map_err(SessionError::Exec)?, None),
        Some(q) => match run_mapped_back(p, q, |prog| execution.execute(prog))
            .map_err(SessionError::Exec)?
        {
            Outcome::Optimized(done) => (done, None),
            Outcome::Written {
                result,
                optimized_error,
            } => (result, Some(optimized_error)),
        },
    };
    let output_dtypes = p.graph.outputs[..p.n_outputs()]
        .iter()
        .map(|&o| p.graph.node(o).ty().dtype)
        .collect();
    Ok(RunResult {
        outputs: executed.outputs,
        output_dtypes,
        shared: shared_names.into_iter().zip(executed.final_state).collect(),
        execute_ms: executed.times,
        optimize_ms,
        peak_bytes: executed.peak,
        loops: executed.loops,
        off_tape: executed.off_tape,
        repeated: opts.repeat.is_some(),
        optimized_error,
    })
}

/// How one program is executed: its sizes, inputs and shared variables'
/// first values, and how many runs of how many calls.
struct Execution<'a> {
    dims: &'a Dims,
    budget: MemoryBudget,
    inputs: &'a [Value],
    shared_names: &'a [String],
    first_state: &'a [Value],
    /// Runs in all, the warm-up included.
    runs: usize,
    /// Whether the first run is a warm-up (not timed).
    repeated: bool,
    calls: u64,
}

/// What one program's execution computed: the last run's outputs, the
/// timed runs, the executor's peak storage, the shared variables' final
/// values.
struct Executed {
    outputs: Vec<Value>,
    times: Vec<f64>,
    peak: usize,
    loops: LoopCount,
    off_tape: Vec<(Span, OffTape)>,
    final_state: Vec<Value>,
}

impl Execution<'_> {
    /// Compiles `p` once and runs it: every run reuses the plan and its
    /// storage, and starts from the shared variables' first values.
    fn execute(&self, p: &Program) -> Result<Executed, ExecError> {
        let mut compiled = Compiled::new(p, self.dims)?;
        compiled.set_memory_budget(self.budget);
        let refs: Vec<&Value> = self.inputs.iter().collect();
        let mut times = Vec::new();
        let mut outputs = Vec::new();
        for r in 0..self.runs {
            for (name, v) in self.shared_names.iter().zip(self.first_state) {
                compiled.set_shared(name, v.clone())?;
            }
            let t0 = Instant::now();
            for _ in 1..self.calls {
                compiled.call(&refs)?;
            }
            let results = compiled.call(&refs)?;
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            if !self.repeated || r > 0 {
                times.push(ms);
            }
            if r + 1 == self.runs {
                outputs = results.to_values();
            }
        }
        let final_state = self
            .shared_names
            .iter()
            .zip(self.first_state)
            .map(|(n, first)| compiled.shared(n).unwrap_or(first).clone())
            .collect();
        Ok(Executed {
            outputs,
            times,
            peak: compiled.peak_bytes(),
            loops: {
                let (on_tape, run) = compiled.loops_on_tape();
                LoopCount {
                    run,
                    on_tape,
                    native: compiled.loops_native(),
                }
            },
            off_tape: compiled.loops_off_tape(),
            final_state,
        })
    }
}

/// The program optimized as `opts` asks (`None` under `--no-opt`), and
/// the milliseconds that took (0 when not optimized).
pub(crate) fn optimize_timed(
    p: &Program,
    dims: &Dims,
    opts: &RunOptions,
) -> Result<(Option<Program>, f64), SessionError> {
    let Some(settings) = &opts.optimizer else {
        return Ok((None, 0.0));
    };
    let t_opt = Instant::now();
    let optimized = settings.optimize(p, dims)?.program;
    Ok((Some(optimized), t_opt.elapsed().as_secs_f64() * 1e3))
}

/// JSON has no NaN or infinity; those sums print as null.
pub(crate) fn finite_or_null(x: f64) -> serde_json::Value {
    if x.is_finite() {
        serde_json::json!(x)
    } else {
        serde_json::Value::Null
    }
}

/// A value's shape, dtype (`declared` when known: a key's) and sum, as
/// `run --json` reports it.
fn summary(v: &Value, declared: Option<DType>) -> serde_json::Value {
    serde_json::json!({
        "shape": v.shape(),
        "dtype": declared.unwrap_or(v.dtype()).name(),
        "sum": finite_or_null(v.sum_f64()),
    })
}

impl RunResult {
    /// The report of `run --json` (SPEC §3), with `shared` when the program
    /// has shared variables; each loop off the step tape is placed at
    /// `LINE:COL` ([`RunResult::to_json_in`] names the file).
    pub fn to_json(&self) -> serde_json::Value {
        self.to_json_in(None)
    }

    /// [`RunResult::to_json`], each loop off the step tape placed at
    /// `FILE:LINE:COL` when `file` is given.
    pub fn to_json_in(&self, file: Option<&str>) -> serde_json::Value {
        let off_tape: Vec<serde_json::Value> = self
            .off_tape
            .iter()
            .map(|(span, why)| {
                let at = match file {
                    Some(f) => format!("{f}:{span}"),
                    None => span.to_string(),
                };
                serde_json::json!({"at": at, "reason": why.to_string()})
            })
            .collect();
        let outs: Vec<serde_json::Value> = self
            .outputs
            .iter()
            .enumerate()
            .map(|(k, v)| summary(v, self.output_dtypes.get(k).copied()))
            .collect();
        let mut report = serde_json::json!({
            "optimize_ms": self.optimize_ms,
            "execute_ms": self.execute_ms,
            "peak_bytes": self.peak_bytes,
            "loops": {
                "run": self.loops.run,
                "on_tape": self.loops.on_tape,
                "native": self.loops.native,
                "off_tape": off_tape,
            },
            "outputs": outs,
        });
        if !self.shared.is_empty() {
            let state: serde_json::Map<String, serde_json::Value> = self
                .shared
                .iter()
                .map(|(n, v)| (n.clone(), summary(v, None)))
                .collect();
            report["shared"] = serde_json::Value::Object(state);
        }
        report
    }

    /// The lines `run` prints: each output's dtype, shape and sum, each
    /// shared variable's, and the median time when repeated.
    pub fn text_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (k, v) in self.outputs.iter().enumerate() {
            lines.push(format!(
                "out_{k}: {} {:?} sum={}",
                self.output_dtypes.get(k).copied().unwrap_or(v.dtype()),
                v.shape(),
                v.sum_f64()
            ));
        }
        for (name, v) in &self.shared {
            lines.push(format!(
                "shared {name}: {} {:?} sum={}",
                v.dtype(),
                v.shape(),
                v.sum_f64()
            ));
        }
        if self.repeated {
            lines.push(median_line(&self.execute_ms));
        }
        lines
    }

    /// Writes each output to `dir/out_K.npy` and each shared variable's
    /// final value to `dir/shared_NAME.npy`, creating `dir` if needed.
    pub fn write_npy(&self, dir: &Path) -> Result<(), SessionError> {
        std::fs::create_dir_all(dir).map_err(|error| SessionError::CreateDir {
            dir: dir.to_path_buf(),
            error,
        })?;
        for (k, v) in self.outputs.iter().enumerate() {
            npy::write_npy(&dir.join(format!("out_{k}.npy")), v).map_err(SessionError::Npy)?;
        }
        for (name, v) in &self.shared {
            npy::write_npy(&dir.join(format!("shared_{name}.npy")), v)
                .map_err(SessionError::Npy)?;
        }
        Ok(())
    }
}

/// The text report's last line for repeated runs: the median execution
/// time and the number of runs.
pub(crate) fn median_line(execute_ms: &[f64]) -> String {
    let mut sorted = execute_ms.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    format!(
        "execute: median {median:.3} ms over {} runs",
        execute_ms.len()
    )
}
