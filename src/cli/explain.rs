//! `eqscan explain`: the chain of rewrites from a program to its optimized
//! form.

use super::args::{dims_or_exit, name_size, OptArgs};
use super::{emit_line, load_program, rule_errors, UserError};
use eqscan::egraph::analysis::TensorAnalysis;
use eqscan::egraph::runner::{saturate, Limits};
use eqscan::egraph::term::{program_to_expr, TNode};
use eqscan::extract::{extract_within, CostModel, Extractor};
use eqscan::lang::Program;
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
    let p = load_program(&o.prog)?;
    let settings = o.opt.settings();
    let rewrites = settings
        .rewrites()
        .map_err(|e| UserError(rule_errors(&e)))?;
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
    let model = CostModel::with_dims(dims_or_exit(&o.dims));
    let extractor = settings.extractor;
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
    match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(lines)) => {
            for line in lines {
                emit_line(&line);
            }
            Ok(())
        }
        Ok(Err(e)) => Err(UserError(format!("{file}: {e}"))),
        Err(RecvTimeoutError::Timeout) => Err(UserError(format!(
            "{file}: explain: the chain of rewrites was not found within the time limit of {} s (raise --time-limit)",
            o.opt.time_limit
        ))),
        Err(RecvTimeoutError::Disconnected) => Err(UserError(format!(
            "{file}: internal error: the explanation failed"
        ))),
    }
}

/// The lines `explain` prints: a summary, then the program after each
/// rewrite from the program to its optimized form.
fn explain_lines(
    p: &Program,
    rewrites: &[egg::Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    model: &CostModel,
    extractor: &Extractor,
) -> Result<Vec<String>, String> {
    let sat = saturate(p, rewrites, limits, true).map_err(|e| e.to_string())?;
    let best = extract_within(&sat.egraph, sat.root, model, extractor, None).expr;
    let original = program_to_expr(p)?;
    // egg flattens the explanation by deep-copying every step's term at
    // every nesting level (cubic in a chain of lets); the deadline in
    // `run` bounds it.
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
