//! `eqscan fmt`: print a program in canonical form.

use super::{emit, load_program, UserError};
use eqscan::lang::print_program;
use std::path::PathBuf;

// The options of `fmt`.
#[derive(clap::Args)]
pub struct Options {
    /// The program file (.sexp).
    prog: PathBuf,
}

/// Prints the program in canonical form.
pub fn run(o: Options) -> Result<(), UserError> {
    let p = load_program(&o.prog)?;
    emit(&print_program(&p));
    Ok(())
}
