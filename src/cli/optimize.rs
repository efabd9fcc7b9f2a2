//! `eqscan optimize`: print the optimized program, or the optimizer's
//! report.

use super::args::{dims_or_exit, name_size, OptArgs};
use super::{emit, emit_line, load_program, UserError};
use eqscan::lang::print_program;
use std::path::PathBuf;
use std::time::Instant;

// The options of `optimize`.
#[derive(clap::Args)]
pub struct Options {
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
}

/// Optimizes the program and prints it (or the JSON report).
pub fn run(o: Options) -> Result<(), UserError> {
    let file = o.prog.display().to_string();
    let t0 = Instant::now();
    let p = load_program(&o.prog)?;
    let parse_ms = t0.elapsed().as_secs_f64() * 1e3;
    let report = o
        .opt
        .settings()
        .optimize_written(&p, &dims_or_exit(&o.dims))
        .map_err(|e| UserError(e.located(&file)))?;
    if o.json {
        emit_line(&report.to_json(parse_ms).to_string());
    } else {
        emit(&print_program(&report.program));
    }
    Ok(())
}
