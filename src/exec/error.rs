//! Errors raised while binding inputs and running a program.

use crate::exec::budget::OverBudget;
use crate::lang::shape::shape_str;
use crate::lang::{Dim, Span};

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
    /// A loop that cannot run on these arguments (raised alike by both
    /// executors and by the check of a program with its sizes bound).
    #[error("scan: {reason}")]
    Loop {
        /// Where the scan is written.
        span: Span,
        /// What is wrong.
        reason: LoopError,
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
            | ExecError::Loop { span, .. }
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

/// Why a loop cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LoopError {
    /// The `n_steps` argument is not an `i64` scalar.
    #[error("n_steps must be an i64 scalar")]
    StepsNotScalar,
    /// A negative `n_steps`.
    #[error("n_steps must not be negative, got {0}")]
    NegativeSteps(i64),
    /// An `n_steps` larger than the sequences allow.
    #[error("n_steps is {given} but the sequences allow only {allowed} steps")]
    TooManySteps {
        /// The `n_steps` given.
        given: usize,
        /// The steps the sequences allow.
        allowed: usize,
    },
    /// A mitsot whose init does not hold as many rows as its taps reach.
    #[error(
        "output {out}: a mitsot with taps {taps:?} needs an init of {rows} rows, got shape {}",
        shape_text(init)
    )]
    InitRows {
        /// Which output.
        out: usize,
        /// Its taps.
        taps: Vec<i64>,
        /// The rows its taps reach.
        rows: usize,
        /// The init's shape.
        init: Vec<Dim>,
    },
    /// The body returned a state of another shape than its init gives.
    #[error("state {out}: fn returned shape {returned:?} but the state has shape {state:?}")]
    StateShape {
        /// Which output.
        out: usize,
        /// The shape the body returned.
        returned: Vec<usize>,
        /// The shape of a step of the state.
        state: Vec<usize>,
    },
    /// A step returned an output of another shape than the earlier steps.
    #[error("output {out}: step {step} has shape {got:?}, earlier steps had {earlier:?}")]
    StepShape {
        /// Which output.
        out: usize,
        /// The step.
        step: usize,
        /// The shape it returned.
        got: Vec<usize>,
        /// The shape the earlier steps returned.
        earlier: Vec<usize>,
    },
    /// A mapped output of a loop without steps whose step shape its type
    /// does not tell.
    #[error(
        "output {out} has no steps and its step shape {} is not known statically",
        shape_str(step)
    )]
    UnknownStepShape {
        /// Which output.
        out: usize,
        /// Its static step shape.
        step: Vec<Dim>,
    },
    /// A mitmot tape with fewer slots than the steps and taps reach.
    #[error("output {out}: a mitmot with in taps {in_taps:?} and out taps {out_taps:?} over {steps} steps needs a tape of at least {needed} slots, got {slots}")]
    TapeTooShort {
        /// Which output.
        out: usize,
        /// Its in taps.
        in_taps: Vec<i64>,
        /// Its out taps.
        out_taps: Vec<i64>,
        /// The step count.
        steps: usize,
        /// The slots needed: `steps + max(taps) - min(in_taps)`.
        needed: usize,
        /// The slots the tape has.
        slots: usize,
    },
    /// A loop node that does not match its signature (a bug).
    #[error("internal error: {0}")]
    Internal(&'static str),
}

/// A shape as `[3, 2]` when every size is known, else in the static
/// notation.
fn shape_text(shape: &[Dim]) -> String {
    let known: Option<Vec<usize>> = shape
        .iter()
        .map(|d| d.as_known().and_then(|n| usize::try_from(n).ok()))
        .collect();
    match known {
        Some(s) => format!("{s:?}"),
        None => shape_str(shape),
    }
}
