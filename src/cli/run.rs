//! `eqscan run`: run a program (optimized unless `--no-opt`) and print each
//! output's shape and sum. The work is [`eqscan::session::run`]; this file
//! turns the options into [`RunOptions`] and prints the result.

use super::args::{byte_count, dims_or_exit, name_f64, name_path, name_size, name_text, OptArgs};
use super::{emit_line, load_program, UserError};
use eqscan::exec::map_back::optimizer_bug_warning;
use eqscan::exec::MemoryBudget;
use eqscan::session::{RunOptions, Source};
use std::path::PathBuf;

// The options of `run`.
#[derive(clap::Args)]
pub struct Options {
    /// The program file (.sexp).
    prog: PathBuf,
    /// An input's value from a .npy file; a list input's from a .npz
    /// archive holding `values` and `row_splits_0`, `row_splits_1`, ...
    /// (outermost first; see docs/lists.md).
    #[arg(long = "input", value_name = "NAME=FILE.npy", value_parser = name_path)]
    inputs: Vec<(String, PathBuf)>,
    /// Fill every input not given by --input with the workload data rule.
    #[arg(long)]
    gen: bool,
    /// The lengths of a generated list input: its depths outermost first,
    /// separated by '/', each the lengths of that depth's lists in order,
    /// separated by ','; the outermost (one length) may be left out. For
    /// (list (list (f64 4))): `3/2,0,1` or `2,0,1` gives three sequences
    /// of lengths 2, 0 and 1. Without it: 3 elements outermost, and the
    /// j-th list of each deeper depth (j from 0) has (j + 2) % 4.
    #[arg(long = "lengths", value_name = "NAME=SPEC", value_parser = name_text, requires = "gen")]
    lengths: Vec<(String, String)>,
    /// Scale of a generated input (default 1).
    #[arg(long = "scale", value_name = "NAME=S", value_parser = name_f64, requires = "gen")]
    scales: Vec<(String, f64)>,
    /// The value of a symbolic size.
    #[arg(long = "dim", value_name = "NAME=N", value_parser = name_size)]
    dims: Vec<(String, i64)>,
    /// The most bytes one array may take (an op's result, a loop's
    /// output buffer, an input); an op that needs more fails before it
    /// runs. Plain bytes, or with a suffix K, M, G, T (powers of 1024).
    /// Default: three quarters of the memory available when eqscan starts (MemAvailable, or the cgroup limit if lower)
    #[arg(long, value_name = "BYTES", value_parser = byte_count)]
    max_memory: Option<u64>,
    /// Run the program as written, without optimizing it.
    #[arg(long)]
    no_opt: bool,
    /// Write each output to DIR/out_K.npy (a list output to DIR/out_K.npz).
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
    /// the executor's own storage held; `loops` counts the loops that ran
    /// and those whose steps ran on a step tape).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    opt: OptArgs,
}

/// Runs the program and prints (or writes) its outputs.
pub fn run(o: Options) -> Result<(), UserError> {
    let file = o.prog.display().to_string();
    let p = load_program(&o.prog)?;
    let sources = |pairs: Vec<(String, PathBuf)>| {
        pairs
            .into_iter()
            .map(|(name, path)| (name, Source::Npy(path)))
            .collect()
    };
    let opts = RunOptions {
        dims: dims_or_exit(&o.dims),
        inputs: sources(o.inputs),
        gen: o.gen,
        scales: o.scales.into_iter().collect(),
        memory: o
            .max_memory
            .map_or_else(MemoryBudget::default, MemoryBudget::bytes),
        optimizer: (!o.no_opt).then(|| o.opt.settings()),
        repeat: o.repeat,
        shared: sources(o.shared),
        calls: o.calls,
    };
    if eqscan::lang::list_type::holds_lists(&p) {
        let lengths = o.lengths.into_iter().collect();
        let result = eqscan::session::run_lists(&p, &opts, &lengths)
            .map_err(|e| UserError(e.located(&file)))?;
        if let Some(dir) = &o.out {
            result
                .write_out(dir)
                .map_err(|e| UserError(e.located(&file)))?;
        }
        let lines = match o.json {
            true => vec![result.to_json().to_string()],
            false => result.text_lines(),
        };
        for line in lines {
            emit_line(&line);
        }
        return Ok(());
    }
    let result = eqscan::session::run(&p, &opts).map_err(|e| UserError(e.located(&file)))?;
    if let Some(e) = &result.optimized_error {
        eprintln!("{}", optimizer_bug_warning(&file, e));
    }
    if let Some(dir) = &o.out {
        result
            .write_npy(dir)
            .map_err(|e| UserError(e.located(&file)))?;
    }
    if o.json {
        emit_line(&result.to_json_in(Some(&file)).to_string());
    } else {
        for line in result.text_lines() {
            emit_line(&line);
        }
    }
    Ok(())
}
