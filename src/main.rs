//! The `eqscan` command line (SPEC §3). Thin: parsing arguments, reading
//! files, formatting results; the work is in the library.

use clap::{Parser, Subcommand};
use eqscan::egraph::runner::{saturate, Limits};
use eqscan::exec::map_back::{optimizer_bug_warning, run_mapped_back, Outcome};
use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{bind_inputs, generate_missing_within, Dims};
use eqscan::exec::{npy, MemoryBudget, Value};
use eqscan::extract::cost::CostModel;
use eqscan::extract::IlpLimits;
use eqscan::lang::parse::parse_program_bytes;
use eqscan::lang::{print_program, Program};
use eqscan::optimize::{optimize_with, Extractor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "eqscan",
    version,
    about = "Optimize tensor programs with loops (Scan) by equality saturation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a program (optimized unless --no-opt) and print each output's
    /// shape and sum.
    Run {
        /// The program file (.sexp).
        prog: PathBuf,
        /// An input's value from a .npy file.
        #[arg(long = "input", value_name = "NAME=FILE.npy", value_parser = name_path)]
        inputs: Vec<(String, PathBuf)>,
        /// Fill every input not given by --input with the workload data rule.
        #[arg(long)]
        gen: bool,
        /// Scale of a generated input (default 1).
        #[arg(long = "scale", value_name = "NAME=S", value_parser = name_f64, requires = "gen")]
        scales: Vec<(String, f64)>,
        /// The value of a symbolic size.
        #[arg(long = "dim", value_name = "NAME=N", value_parser = name_size)]
        dims: Vec<(String, i64)>,
        /// The most bytes one array may take (an op's result, a loop's
        /// output buffer, an input); an op that needs more fails before it
        /// runs. Plain bytes, or with a suffix K, M, G, T (powers of 1024).
        /// Default: the machine's physical memory.
        #[arg(long, value_name = "BYTES", value_parser = byte_count)]
        max_memory: Option<u64>,
        /// Run the program as written, without optimizing it.
        #[arg(long)]
        no_opt: bool,
        /// Write each output to DIR/out_K.npy.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Execute K times after one warm-up run (the program is compiled
        /// once; every run reuses its plan and storage; each run starts
        /// from the first values of the shared variables).
        #[arg(long, value_name = "K")]
        repeat: Option<usize>,
        /// The first value of a shared variable (zeros otherwise).
        #[arg(long = "shared", value_name = "NAME=FILE.npy", value_parser = name_path)]
        shared: Vec<(String, PathBuf)>,
        /// Make N calls in a row per run: each call sees the shared
        /// variables as the previous one left them. Outputs are the last
        /// call's; --out also writes DIR/shared_NAME.npy, the final values.
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::value_parser!(u64).range(1..))]
        calls: u64,
        /// Print a JSON report instead of text (`peak_bytes` is the most
        /// the executor's own storage held).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        opt: OptArgs,
    },
    /// Print a program in canonical form.
    Fmt {
        /// The program file (.sexp).
        prog: PathBuf,
    },
    /// Print the optimized program (or, with --json, the optimizer's report).
    Optimize {
        /// The program file (.sexp).
        prog: PathBuf,
        /// The size the cost model gives a symbolic size (default 1000).
        #[arg(long = "dim", value_name = "NAME=N", value_parser = name_size)]
        dims: Vec<(String, i64)>,
        #[command(flatten)]
        opt: OptArgs,
        /// Print the JSON report of SPEC §3 instead of the program.
        #[arg(long)]
        json: bool,
    },
    /// Show why the optimized program equals the original: the chain of
    /// rewrites from one to the other.
    Explain {
        /// The program file (.sexp).
        prog: PathBuf,
        /// The size the cost model gives a symbolic size (default 1000).
        #[arg(long = "dim", value_name = "NAME=N", value_parser = name_size)]
        dims: Vec<(String, i64)>,
        #[command(flatten)]
        opt: OptArgs,
    },
    /// Rule files: `eqscan rules check PATH ...`.
    Rules {
        #[command(subcommand)]
        action: RulesAction,
    },
    /// Print the program's graph (or its saturated e-graph) as Graphviz.
    Dot {
        /// The program file (.sexp).
        prog: PathBuf,
        /// Draw the saturated e-graph instead of the program.
        #[arg(long)]
        egraph: bool,
        #[command(flatten)]
        opt: OptArgs,
    },
}

#[derive(Subcommand)]
enum RulesAction {
    /// Parse rule files and test each rule for soundness by evaluating both
    /// sides on random tensors and edge values; exit 1 if any rule is
    /// unsound or changes a type or shape.
    Check {
        /// Rule files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Stop (exit 1) if checking takes longer than SECS seconds.
        #[arg(long, value_name = "SECS", default_value_t = 60.0)]
        time_limit: f64,
    },
}

/// Options of the optimizer, shared by `optimize`, `run`, `dot --egraph`.
#[derive(clap::Args, Clone)]
struct OptArgs {
    /// Rule files or folders (default: the rule sets built into eqscan,
    /// the same as the repository's rules/ folder).
    #[arg(long = "rules", value_name = "PATH")]
    rules: Vec<PathBuf>,
    /// Saturate with the rule files only, without the Scan rewrites.
    #[arg(long)]
    no_scan_rules: bool,
    /// Stop saturating after N iterations.
    #[arg(long, value_name = "N", default_value_t = Limits::default().iter_limit)]
    iter_limit: usize,
    /// Stop saturating once the e-graph has N nodes.
    #[arg(long, value_name = "N", default_value_t = Limits::default().node_limit)]
    node_limit: usize,
    /// Stop saturating after SECS seconds (a finite positive number).
    #[arg(long, value_name = "SECS", value_parser = positive_seconds,
          default_value_t = Limits::default().time_limit.as_secs_f64())]
    time_limit: f64,
    /// How the optimized term is extracted: greedy DAG-aware, tree, or
    /// exact ILP (greedy when the ILP refuses the e-graph or times out).
    #[arg(long, value_enum, default_value_t = ExtractorArg::Greedy)]
    extractor: ExtractorArg,
    /// Stop the ILP solver after SECS seconds (with --extractor ilp; a
    /// finite positive number).
    #[arg(long, value_name = "SECS", value_parser = positive_seconds,
          default_value_t = IlpLimits::default().time_limit.as_secs_f64())]
    ilp_time_limit: f64,
}

/// The values of `--extractor`.
#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq)]
enum ExtractorArg {
    Greedy,
    Tree,
    Ilp,
}

impl OptArgs {
    fn extractor(&self) -> Extractor {
        match self.extractor {
            ExtractorArg::Greedy => Extractor::Greedy,
            ExtractorArg::Tree => Extractor::Tree,
            ExtractorArg::Ilp => Extractor::Ilp(IlpLimits {
                time_limit: seconds(self.ilp_time_limit),
                ..IlpLimits::default()
            }),
        }
    }

    fn limits(&self) -> Limits {
        Limits {
            iter_limit: self.iter_limit,
            node_limit: self.node_limit,
            time_limit: seconds(self.time_limit),
        }
    }
}

/// A duration of `s` seconds (checked finite and positive by
/// [`positive_seconds`]; unbounded if it does not fit a duration).
fn seconds(s: f64) -> std::time::Duration {
    std::time::Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(std::time::Duration::MAX)
}

/// The longest time limit accepted: a year.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// A time limit in seconds: a finite number above 0 (and at most a year).
fn positive_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number of seconds"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("'{s}' is not a finite positive number of seconds"));
    }
    if v > MAX_SECONDS {
        return Err(format!("'{s}' seconds is more than a year"));
    }
    Ok(v)
}

/// A byte count: digits, optionally followed by K, M, G or T (powers of
/// 1024, with an optional `B` or `iB`), above 0.
fn byte_count(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, suffix) = t.split_at(digits);
    let bad = || format!("'{s}' is not a byte count (such as 1000000, 512M or 4G)");
    let n: u64 = num.parse().map_err(|_| bad())?;
    let unit: u32 = match suffix.to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 1,
        "M" | "MB" | "MIB" => 2,
        "G" | "GB" | "GIB" => 3,
        "T" | "TB" | "TIB" => 4,
        _ => return Err(bad()),
    };
    let bytes = 1024u64
        .checked_pow(unit)
        .and_then(|m| n.checked_mul(m))
        .ok_or_else(|| format!("'{s}' is more bytes than fit in 64 bits"))?;
    if bytes == 0 {
        return Err(format!("'{s}': the memory budget must be above 0 bytes"));
    }
    Ok(bytes)
}

fn split_eq(s: &str) -> Result<(&str, &str), String> {
    match s.split_once('=') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a, b)),
        _ => Err(format!("expected NAME=VALUE, got '{s}'")),
    }
}

fn name_path(s: &str) -> Result<(String, PathBuf), String> {
    let (a, b) = split_eq(s)?;
    Ok((a.to_string(), PathBuf::from(b)))
}

fn name_f64(s: &str) -> Result<(String, f64), String> {
    let (a, b) = split_eq(s)?;
    let v: f64 = b.parse().map_err(|_| format!("'{b}' is not a number"))?;
    Ok((a.to_string(), v))
}

/// `NAME=N` with N a size: an integer from 0 to `i64::MAX`.
fn name_size(s: &str) -> Result<(String, i64), String> {
    let (a, b) = split_eq(s)?;
    let v: u64 = b
        .parse()
        .map_err(|_| format!("'{b}' is not a non-negative integer"))?;
    let v = i64::try_from(v)
        .map_err(|_| format!("size {v} is larger than the largest size, {}", i64::MAX))?;
    Ok((a.to_string(), v))
}

/// The `--dim` pairs as sizes by name; a name given twice with different
/// values is a usage error (exit status 2), the same value twice is fine.
fn dims_or_exit(dims: &[(String, i64)]) -> Dims {
    let mut out = Dims::new();
    for (name, v) in dims {
        match out.insert(name.clone(), *v) {
            Some(prev) if prev != *v => {
                use clap::CommandFactory;
                Cli::command()
                    .error(
                        clap::error::ErrorKind::ArgumentConflict,
                        format!(
                            "--dim {name} is given twice with different values ({prev} and {v})"
                        ),
                    )
                    .exit();
            }
            _ => {}
        }
    }
    out
}

macro_rules! emitln {
    ($($t:tt)*) => { emit(&format!("{}\n", format!($($t)*))) };
}

macro_rules! emit_fmt {
    ($($t:tt)*) => { emit(&format!($($t)*)) };
}

/// Writes to stdout. When the reader has gone (`eqscan dot P | head`), the
/// rest of the output is dropped quietly instead of panicking.
fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        std::process::exit(0);
    }
}

/// A user error: one sentence, printed on stderr, exit status 1.
struct UserError(String);

fn load_program(path: &Path) -> Result<Program, UserError> {
    let file = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| UserError(format!("{file}: cannot read the file: {e}")))?;
    parse_program_bytes(&bytes).map_err(|e| UserError(e.located(&file)))
}

/// The rewrites to saturate with.
fn load_rewrites(
    opt: &OptArgs,
) -> Result<
    Vec<egg::Rewrite<eqscan::egraph::term::TNode, eqscan::egraph::analysis::TensorAnalysis>>,
    UserError,
> {
    let rules = if opt.rules.is_empty() {
        eqscan::rules::defaults::default_rules()
    } else {
        eqscan::rules::load_rules(&opt.rules)
    };
    rules
        .map(|r| eqscan::optimize::rewrites(&r, !opt.no_scan_rules))
        .map_err(|errors| UserError(rule_errors(&errors)))
}

/// Every rule error, one per line (each names FILE:LINE:COL).
fn rule_errors(errors: &[eqscan::rules::RuleError]) -> String {
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Optimizes `p`, with sizes from `dims` for the cost model.
fn optimize_program(
    p: &Program,
    opt: &OptArgs,
    dims: &Dims,
    file: &str,
) -> Result<eqscan::optimize::Report, UserError> {
    let rewrites = load_rewrites(opt)?;
    let model = CostModel::with_dims(dims.clone());
    optimize_with(p, &rewrites, &opt.limits(), &model, &opt.extractor())
        .map_err(|e| UserError(format!("{file}: {e}")))
}

/// The lines `explain` prints: a summary, then the program after each
/// rewrite from the program to its optimized form.
fn explain_lines(
    p: &Program,
    rewrites: &[egg::Rewrite<
        eqscan::egraph::term::TNode,
        eqscan::egraph::analysis::TensorAnalysis,
    >],
    limits: &Limits,
    model: &CostModel,
    extractor: &Extractor,
) -> Result<Vec<String>, String> {
    let sat = saturate(p, rewrites, limits, true)?;
    let best = eqscan::optimize::extract_with(&sat.egraph, sat.root, model, extractor).expr;
    let original = eqscan::egraph::term::program_to_expr(p)?;
    // egg flattens the explanation by deep-copying every step's term at
    // every nesting level (cubic in a chain of lets); the deadline in
    // `dispatch` bounds it.
    let mut egraph = sat.egraph;
    let best_id = egraph.add_expr(&best);
    if egraph.find(best_id) != sat.root {
        return Err("internal error: the extracted term is not in the root class".into());
    }
    let mut explanation = egraph.explain_equivalence(&original, &best);
    let steps = explanation.make_flat_explanation().len().saturating_sub(1);
    let mut lines = vec![
        format!("; {steps} rewrite(s) from the program to its optimized form"),
        format!(
            "; stop reason: {}, {} iteration(s)",
            sat.stop_reason, sat.iterations
        ),
    ];
    lines.extend(explanation.get_flat_strings());
    Ok(lines)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Deeply nested programs recurse in the parser and printer; give them
    // room (the reader bounds the nesting, so this is a margin, not a fix).
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || dispatch(cli));
    let result = match worker.map(|h| h.join()) {
        Ok(Ok(r)) => r,
        _ => Err(UserError("internal error: the worker thread failed".into())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(UserError(msg)) => {
            eprintln!("{msg}");
            ExitCode::from(1)
        }
    }
}

fn dispatch(cli: Cli) -> Result<(), UserError> {
    match cli.command {
        Command::Fmt { prog } => {
            let p = load_program(&prog)?;
            emit_fmt!("{}", print_program(&p));
            Ok(())
        }
        Command::Optimize {
            prog,
            dims,
            opt,
            json,
        } => {
            let file = prog.display().to_string();
            let t0 = Instant::now();
            let p = load_program(&prog)?;
            let parse_ms = t0.elapsed().as_secs_f64() * 1e3;
            let report = optimize_program(&p, &opt, &dims_or_exit(&dims), &file)?;
            if json {
                emitln!("{}", report.to_json(parse_ms));
            } else {
                emit_fmt!("{}", print_program(&report.program));
            }
            Ok(())
        }
        Command::Rules {
            action: RulesAction::Check { paths, time_limit },
        } => {
            let rules =
                eqscan::rules::load_rules(&paths).map_err(|e| UserError(rule_errors(&e)))?;
            let findings = eqscan::rules::check::check_rules_within(&rules, seconds(time_limit))
                .map_err(|e| UserError(e.to_string()))?;
            for (name, cx) in &findings {
                let at = rules
                    .iter()
                    .find(|r| &r.name == name)
                    .map(|r| format!("{}:{}:{}: ", r.file, r.line, r.col))
                    .unwrap_or_default();
                emitln!("{at}{name}: {cx}");
            }
            if findings.is_empty() {
                emitln!(
                    "{} rules checked: all sound and safe at extreme magnitudes, none changes a type or shape",
                    rules.len()
                );
                Ok(())
            } else {
                Err(UserError(format!(
                    "{} of {} rules are unsound, unsafe or change a type or shape",
                    findings.len(),
                    rules.len()
                )))
            }
        }
        Command::Explain { prog, dims, opt } => {
            let file = prog.display().to_string();
            let p = load_program(&prog)?;
            let rewrites = load_rewrites(&opt)?;
            let limits = opt.limits();
            let deadline = Instant::now() + limits.time_limit;
            // The whole command honours --time-limit: saturation gets half
            // of it, extraction and the explanation the rest. egg's
            // explanation cannot be interrupted, so it runs on a thread of
            // its own, abandoned (with the process) at the deadline.
            let sat_limits = Limits {
                time_limit: limits.time_limit / 2,
                ..limits
            };
            let model = CostModel::with_dims(dims_or_exit(&dims));
            let extractor = opt.extractor();
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn(move || {
                    let _ = tx.send(explain_lines(
                        &p,
                        &rewrites,
                        &sat_limits,
                        &model,
                        &extractor,
                    ));
                })
                .map_err(|e| UserError(format!("internal error: cannot start a thread: {e}")))?;
            use std::sync::mpsc::RecvTimeoutError;
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(Ok(lines)) => {
                    for line in lines {
                        emitln!("{line}");
                    }
                    Ok(())
                }
                Ok(Err(e)) => Err(UserError(format!("{file}: {e}"))),
                Err(RecvTimeoutError::Timeout) => Err(UserError(format!(
                    "{file}: explain: the chain of rewrites was not found within the time limit of {} s (raise --time-limit)",
                    opt.time_limit
                ))),
                Err(RecvTimeoutError::Disconnected) => Err(UserError(format!(
                    "{file}: internal error: the explanation failed"
                ))),
            }
        }
        Command::Dot { prog, egraph, opt } => {
            let file = prog.display().to_string();
            let p = load_program(&prog)?;
            if egraph {
                let rewrites = load_rewrites(&opt)?;
                let sat = saturate(&p, &rewrites, &opt.limits(), false)
                    .map_err(|e| UserError(format!("{file}: {e}")))?;
                emit_fmt!("{}", sat.egraph.dot());
            } else {
                emit_fmt!("{}", eqscan::lang::dot::program_dot(&p));
            }
            Ok(())
        }
        Command::Run {
            prog,
            inputs,
            gen,
            scales,
            dims,
            no_opt,
            out,
            repeat,
            shared,
            calls,
            json,
            opt,
            max_memory,
        } => {
            let file = prog.display().to_string();
            let p = load_program(&prog)?;
            let given = dims_or_exit(&dims);
            let budget = max_memory.map_or_else(MemoryBudget::default, MemoryBudget::bytes);
            let mut values: Vec<Option<Value>> = vec![None; p.n_inputs()];
            let names: Vec<String> = p.inputs().map(|(n, _)| n.to_string()).collect();
            for (name, path) in inputs {
                let Some(k) = names.iter().position(|n| *n == name) else {
                    return Err(UserError(format!(
                        "{file}: the program has no input named '{name}' (inputs: {})",
                        names.join(", ")
                    )));
                };
                values[k] = Some(
                    npy::read_npy_within(&path, &budget).map_err(|e| UserError(e.to_string()))?,
                );
            }
            let shared_names: Vec<String> = p.shared_vars().map(|(n, _)| n.to_string()).collect();
            let mut state: Vec<Option<Value>> = vec![None; shared_names.len()];
            for (name, path) in shared {
                let Some(k) = shared_names.iter().position(|n| *n == name) else {
                    return Err(UserError(format!(
                        "{file}: the program has no shared variable named '{name}' (shared: {})",
                        shared_names.join(", ")
                    )));
                };
                state[k] = Some(
                    npy::read_npy_within(&path, &budget).map_err(|e| UserError(e.to_string()))?,
                );
            }
            let located = |e: eqscan::exec::ExecError| UserError(e.located(&file));
            let dims = {
                let mut all = values.clone();
                all.extend(state.iter().cloned());
                bind_inputs(&p, &all, &given).map_err(located)?
            };
            // Shared variables not given start as zeros.
            let bind = |s: &str| dims.get(s).copied();
            let mut first_state = Vec::with_capacity(state.len());
            for ((id, node), v) in p.graph.params().skip(p.n_inputs()).zip(state) {
                first_state.push(match v {
                    Some(v) => v,
                    None => {
                        Value::from_type_zeros_within(node.ty(), &bind, &budget).map_err(|msg| {
                            located(eqscan::exec::ExecError::Input {
                                span: p.graph.span(id),
                                name: node.name.clone().unwrap_or_default(),
                                msg,
                            })
                        })?
                    }
                });
            }
            let scales: BTreeMap<String, f64> = scales.into_iter().collect();
            let inputs = if gen {
                generate_missing_within(&p, values, &dims, &scales, &budget).map_err(located)?
            } else {
                let mut full = Vec::new();
                for (k, v) in values.into_iter().enumerate() {
                    match v {
                        Some(v) => full.push(v),
                        None => {
                            return Err(UserError(format!(
                                "{file}: input '{}' is not given: use --input {}=FILE.npy or --gen",
                                names[k], names[k]
                            )))
                        }
                    }
                }
                full
            };
            // The program as written, checked with the sizes bound: its
            // errors are the user's, whether it then runs optimized or not.
            eqscan::exec::shape_check::check_program(&p, &dims).map_err(located)?;
            let t_opt = Instant::now();
            let optimized = if no_opt {
                None
            } else {
                Some(optimize_program(&p, &opt, &dims, &file)?.program)
            };
            let optimize_ms = if no_opt {
                0.0
            } else {
                t_opt.elapsed().as_secs_f64() * 1e3
            };
            let runs = repeat.map_or(1, |k| k + 1);
            let execute = |p: &Program| -> Result<Executed, eqscan::exec::ExecError> {
                // Compiled once; every run reuses the plan and its storage.
                let mut compiled = Compiled::new(p, &dims)?;
                compiled.set_memory_budget(budget);
                let refs: Vec<&Value> = inputs.iter().collect();
                let mut times = Vec::new();
                let mut outputs = Vec::new();
                for r in 0..runs {
                    for (name, v) in shared_names.iter().zip(&first_state) {
                        compiled.set_shared(name, v.clone())?;
                    }
                    let t0 = Instant::now();
                    for _ in 1..calls {
                        compiled.call(&refs)?;
                    }
                    let results = compiled.call(&refs)?;
                    let ms = t0.elapsed().as_secs_f64() * 1e3;
                    if repeat.is_none() || r > 0 {
                        times.push(ms);
                    }
                    if r + 1 == runs {
                        outputs = results.to_values();
                    }
                }
                let final_state = shared_names
                    .iter()
                    .zip(&first_state)
                    .map(|(n, first)| compiled.shared(n).unwrap_or(first).clone())
                    .collect();
                Ok(Executed {
                    outputs,
                    times,
                    peak: compiled.peak_bytes(),
                    final_state,
                })
            };
            // An error of the optimized program is told as the written
            // program's (eqscan::exec::map_back).
            let Executed {
                outputs,
                times,
                peak,
                final_state,
            } = match &optimized {
                None => execute(&p).map_err(located)?,
                Some(q) => match run_mapped_back(&p, q, execute).map_err(located)? {
                    Outcome::Optimized(done) => done,
                    Outcome::Written {
                        result,
                        optimized_error,
                    } => {
                        eprintln!("{}", optimizer_bug_warning(&file, &optimized_error));
                        result
                    }
                },
            };
            if let Some(dir) = &out {
                std::fs::create_dir_all(dir).map_err(|e| {
                    UserError(format!("{}: cannot create the folder: {e}", dir.display()))
                })?;
                for (k, v) in outputs.iter().enumerate() {
                    npy::write_npy(&dir.join(format!("out_{k}.npy")), v)
                        .map_err(|e| UserError(e.to_string()))?;
                }
                for (name, v) in shared_names.iter().zip(&final_state) {
                    npy::write_npy(&dir.join(format!("shared_{name}.npy")), v)
                        .map_err(|e| UserError(e.to_string()))?;
                }
            }
            let summary = |v: &Value| {
                serde_json::json!({
                    "shape": v.shape(),
                    "dtype": v.dtype().name(),
                    "sum": finite_or_null(v.sum_f64()),
                })
            };
            if json {
                let outs: Vec<serde_json::Value> = outputs.iter().map(summary).collect();
                let mut report = serde_json::json!({
                    "optimize_ms": optimize_ms,
                    "execute_ms": times,
                    "peak_bytes": peak,
                    "outputs": outs,
                });
                if !shared_names.is_empty() {
                    let state: serde_json::Map<String, serde_json::Value> = shared_names
                        .iter()
                        .zip(&final_state)
                        .map(|(n, v)| (n.clone(), summary(v)))
                        .collect();
                    report["shared"] = serde_json::Value::Object(state);
                }
                emitln!("{report}");
            } else {
                for (k, v) in outputs.iter().enumerate() {
                    emitln!("out_{k}: {} {:?} sum={}", v.dtype(), v.shape(), v.sum_f64());
                }
                for (name, v) in shared_names.iter().zip(&final_state) {
                    emitln!(
                        "shared {name}: {} {:?} sum={}",
                        v.dtype(),
                        v.shape(),
                        v.sum_f64()
                    );
                }
                if repeat.is_some() {
                    let mut sorted = times.clone();
                    sorted.sort_by(|a, b| a.total_cmp(b));
                    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
                    emitln!("execute: median {median:.3} ms over {} runs", times.len());
                }
            }
            Ok(())
        }
    }
}

/// What `run` computed: the last run's outputs, the timed runs, the
/// executor's peak storage, the shared variables' final values.
struct Executed {
    outputs: Vec<Value>,
    times: Vec<f64>,
    peak: usize,
    final_state: Vec<Value>,
}

/// JSON has no NaN or infinity; those sums print as null.
fn finite_or_null(x: f64) -> serde_json::Value {
    if x.is_finite() {
        serde_json::json!(x)
    } else {
        serde_json::Value::Null
    }
}
