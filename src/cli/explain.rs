//! `eqscan explain`: the chain of rewrites from a program to its optimized
//! form ([`eqscan::session::explain`]), within the time limit.

use super::args::{dims_or_exit, name_size, OptArgs};
use super::{emit_line, load_expanded, rule_errors, UserError};
use eqscan::egraph::runner::Limits;
use eqscan::session::explain;
use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Instant;

// The options of `explain`.
#[derive(clap::Args)]
pub struct Options {
    /// The program file (.sexp).
    prog: PathBuf,
    /// The size the cost model gives a symbolic size (default 1000).
    #[arg(long = "dim", value_name = "NAME=N", value_parser = name_size)]
    dims: Vec<(String, i64)>,
    #[command(flatten)]
    opt: OptArgs,
}

/// Prints the explanation, within the time limit.
pub fn run(o: Options) -> Result<(), UserError> {
    let file = o.prog.display().to_string();
    let p = load_expanded(&o.prog)?;
    let settings = o.opt.settings();
    let dims = dims_or_exit(&o.dims);
    let rewrites = settings
        .rewrites_for(&dims)
        .map_err(|e| UserError(rule_errors(&e)))?;
    let model = settings.cost_model(&dims);
    let limits = settings.limits;
    let deadline = Instant::now() + limits.time_limit;
    // The whole command honours --time-limit: saturation gets half of it,
    // extraction and the explanation the rest. egg's explanation cannot be
    // interrupted, so it runs on a thread of its own, abandoned (with the
    // process) at the deadline.
    let sat_limits = Limits {
        time_limit: limits.time_limit / 2,
        ..limits
    };
    let extractor = settings.extractor;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let _ = tx.send(explain(&p, &rewrites, &sat_limits, &model, &extractor));
        })
        .map_err(|e| UserError(format!("internal error: cannot start a thread: {e}")))?;
    match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(lines)) => {
            for line in lines {
                emit_line(&line);
            }
            Ok(())
        }
        Ok(Err(e)) => Err(UserError(e.located(&file))),
        Err(RecvTimeoutError::Timeout) => Err(UserError(format!(
            "{file}: explain: the chain of rewrites was not found within the time limit of {} s (raise --time-limit)",
            o.opt.time_limit
        ))),
        Err(RecvTimeoutError::Disconnected) => Err(UserError(format!(
            "{file}: internal error: the explanation failed"
        ))),
    }
}
