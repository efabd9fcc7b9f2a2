//! `eqscan dot`: print a program's graph, or its saturated e-graph, as
//! Graphviz.

use super::args::OptArgs;
use super::{emit, load_expanded, rule_errors, UserError};
use eqscan::egraph::runner::saturate;
use std::path::PathBuf;

// The options of `dot`.
#[derive(clap::Args)]
pub struct Options {
    /// The program file (.sexp).
    prog: PathBuf,
    /// Draw the saturated e-graph instead of the program.
    #[arg(long)]
    egraph: bool,
    #[command(flatten)]
    opt: OptArgs,
}

/// Prints the graph.
pub fn run(o: Options) -> Result<(), UserError> {
    let file = o.prog.display().to_string();
    let p = load_expanded(&o.prog)?;
    if o.egraph {
        let settings = o.opt.settings();
        let rewrites = settings
            .rewrites()
            .map_err(|e| UserError(rule_errors(&e)))?;
        let sat = saturate(&p, &rewrites, &settings.limits, false)
            .map_err(|e| UserError(format!("{file}: {e}")))?;
        emit(&sat.egraph.dot().to_string());
    } else {
        emit(&eqscan::lang::dot::program_dot(&p));
    }
    Ok(())
}
