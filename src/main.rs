//! The `eqscan` command line (SPEC §3). Thin: each command is a file of
//! [`cli`] (its options and a `run` that reads files, calls the library
//! and prints); this file parses the command line and dispatches.

mod cli;

use clap::{Parser, Subcommand};
use cli::UserError;
use std::process::ExitCode;

/// mimalloc rather than the system's `malloc`: saturation and extraction
/// allocate and free many small values (the e-graph's nodes, sets of
/// classes, rebuilt loop bodies), and glibc's allocator took a quarter of
/// the optimizer's time on a converted PyTensor model.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    Run(cli::run::Options),
    /// Print a program in canonical form.
    Fmt(cli::fmt::Options),
    /// Print the program with every grad expanded into plain ops and loops.
    Expand(cli::expand::Options),
    /// Print the optimized program (or, with --json, the optimizer's report).
    Optimize(cli::optimize::Options),
    /// Show why the optimized program equals the original: the chain of
    /// rewrites from one to the other.
    Explain(cli::explain::Options),
    /// Rule files: `eqscan rules check PATH ...`.
    Rules {
        #[command(subcommand)]
        action: cli::rules::Action,
    },
    /// Print the program's graph (or its saturated e-graph) as Graphviz.
    Dot(cli::dot::Options),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A thread budget that is not a number is a usage error, like a bad
    // option (silently using every core would hide the mistake).
    if let Err(e) = eqscan::exec::threads::budget_setting() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    // So is a product kernel the machine cannot run, or a misspelled one.
    if let Err(e) = eqscan::exec::ops::product_kernel::setting() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
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
        Command::Run(o) => cli::run::run(o),
        Command::Fmt(o) => cli::fmt::run(o),
        Command::Expand(o) => cli::expand::run(o),
        Command::Optimize(o) => cli::optimize::run(o),
        Command::Explain(o) => cli::explain::run(o),
        Command::Rules { action } => cli::rules::run(action),
        Command::Dot(o) => cli::dot::run(o),
    }
}
