//! Errors raised while binding inputs and running a program.

use crate::exec::budget::OverBudget;
use crate::lang::Span;

/// A program that cannot run on the given inputs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ExecError {
    /// An op failed at run time (shape mismatch between symbolic sizes,
    /// index out of range, n_steps too large, ...). `span` is the op's
    /// position in the program.
    #[error("{op}: {msg}")]
    Op {
        /// Where the op is written.
        span: Span,
        /// The op.
        op: String,
        /// What went wrong, with the shapes involved.
        msg: String,
    },
    /// An input is missing, or has the wrong dtype or shape.
    #[error("input '{name}': {msg}")]
    Input {
        /// Where the input is declared.
        span: Span,
        /// The input's name.
        name: String,
        /// What is wrong.
        msg: String,
    },
    /// A symbolic size that no input shape or `--dim` binds.
    #[error("symbolic size '{name}' is not bound: give --dim {name}=N")]
    UnboundDim {
        /// Where it is first used.
        span: Span,
        /// The symbol.
        name: String,
    },
    /// An array an op needs is larger than the memory budget (checked
    /// before the op's kernel runs).
    #[error("{op} {over}")]
    OverBudget {
        /// Where the op is written.
        span: Span,
        /// The op.
        op: String,
        /// The array, its size and the budget.
        over: Box<OverBudget>,
    },
    /// A .npy file that cannot be read or written, or holds the wrong data.
    #[error("{path}: {msg}")]
    Npy {
        /// The file.
        path: String,
        /// What is wrong.
        msg: String,
    },
}

impl ExecError {
    /// Where the error is in the program, if it has a position.
    pub fn span(&self) -> Option<Span> {
        match self {
            ExecError::Op { span, .. }
            | ExecError::Input { span, .. }
            | ExecError::UnboundDim { span, .. }
            | ExecError::OverBudget { span, .. } => Some(*span),
            ExecError::Npy { .. } => None,
        }
    }

    /// Formats the error as one sentence naming `file:line:col` of the
    /// program where it has a position.
    pub fn located(&self, file: &str) -> String {
        match self.span() {
            Some(s) => format!("{file}:{}:{}: {self}", s.line, s.col),
            None => self.to_string(),
        }
    }
}
