//! Parsing programs.
use super::error::LangError;
use super::program::Program;

/// Parses a program.
pub fn parse_program(text: &str) -> Result<Program, LangError> {
    let _ = text;
    Err(LangError::Empty)
}
