//! `eqscan expand`: print a program with every `grad` expanded.

use super::{emit, load_expanded, UserError};
use eqscan::lang::print_program;
use std::path::PathBuf;

// The options of `expand`.
#[derive(clap::Args)]
pub struct Options {
    /// The program file (.sexp).
    prog: PathBuf,
}

/// Prints the program with every `grad` replaced by plain ops and loops,
/// in canonical form.
pub fn run(o: Options) -> Result<(), UserError> {
    let p = load_expanded(&o.prog)?;
    emit(&print_program(&p));
    Ok(())
}
