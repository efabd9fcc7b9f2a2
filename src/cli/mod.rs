//! The commands of the `eqscan` binary, one file each: its options (a
//! clap `Args` struct) and a `run` function that reads files, calls the
//! library and prints. Shared here: the user error every command returns,
//! writing to stdout, reading a program.

pub mod args;
pub mod dot;
pub mod expand;
pub mod explain;
pub mod fmt;
pub mod optimize;
pub mod rules;
pub mod run;

use eqscan::lang::parse::parse_program_bytes;
use eqscan::lang::Program;
use std::path::Path;

/// A user error: one sentence, printed on stderr, exit status 1.
pub struct UserError(pub String);

/// Writes to stdout. When the reader has gone (`eqscan dot P | head`), the
/// rest of the output is dropped quietly instead of panicking.
pub fn emit(text: &str) {
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

/// [`emit`] with a line feed after `text`.
pub fn emit_line(text: &str) {
    emit(&format!("{text}\n"));
}

/// Reads and parses the program in `path`.
pub fn load_program(path: &Path) -> Result<Program, UserError> {
    let file = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| UserError(format!("{file}: cannot read the file: {e}")))?;
    parse_program_bytes(&bytes).map_err(|e| UserError(e.located(&file)))
}

/// Reads and parses the program in `path`, and expands its `grad`s
/// (what `run`, `optimize`, `explain` and `dot` work on).
pub fn load_expanded(path: &Path) -> Result<Program, UserError> {
    let p = load_program(path)?;
    let file = path.display().to_string();
    eqscan::session::expand(&p).map_err(|e| UserError(e.located(&file)))
}

/// Every rule error, one per line (each names FILE:LINE:COL).
pub fn rule_errors(errors: &[eqscan::rules::RuleError]) -> String {
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
