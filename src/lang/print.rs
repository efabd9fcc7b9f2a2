//! Printing programs.
use super::program::Program;

/// Prints a program in canonical form.
pub fn print_program(p: &Program) -> String {
    p.name.clone()
}
