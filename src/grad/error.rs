//! The errors of the gradient transform ([`GradError`]).
//!
//! Owns: why a `grad` cannot be expanded: a node the typed builder
//! refuses (a bug of a gradient rule, or a type error at the `grad`), or a
//! gradient this version cannot write with the ops it has
//! ([`Unsupported`]). Every error names where the `grad` (or the op
//! whose gradient is missing) is written.

use crate::lang::{Dim, LangError, Span};
use std::fmt;

/// Why a program's `grad` could not be expanded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GradError {
    /// The builder refused a node of the expanded program.
    #[error("{0}")]
    Build(#[from] LangError),
    /// The gradient of an op cannot be written with the ops eqscan has.
    #[error("grad: the gradient of {op} {reason}")]
    Unsupported {
        /// Where the op is written.
        span: Span,
        /// The op.
        op: &'static str,
        /// Which case is missing.
        reason: Unsupported,
    },
}

/// A gradient that cannot be written with the ops eqscan has (each names
/// the op it would need).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// `reshape` of a value with more than one size known only at run time.
    ReshapeUnknownSizes,
    /// `concat` of several parts whose lengths along the axis are not
    /// integers, along an axis other than 0 or after a part whose length
    /// is known only at run time.
    ConcatSymbolicParts,
    /// `slice` with a step other than 1 and -1.
    SliceStep(i64),
    /// A size known only at run time where the gradient needs it as a
    /// value (the length of an indexed or sliced axis, a created zero).
    UnknownSize,
    /// A loop form the backward loop does not handle yet.
    Loop(&'static str),
    /// An op whose derivative is a function eqscan does not have.
    Derivative(&'static str),
    /// A loop with a MIT-MOT state whose tape is known to be shorter than
    /// the loop needs (`steps + max(taps) - min(in_taps)`): the forward
    /// loop cannot run.
    MitmotTapeLength {
        /// The tape's length.
        tape: Dim,
        /// The shortest tape the loop allows.
        shortest: Dim,
    },
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::ReshapeUnknownSizes => f.write_str(
                "needs the operand's shape at run time: more than one of its sizes is unknown",
            ),
            Unsupported::ConcatSymbolicParts => f.write_str(
                "needs a split at run-time sizes: several parts have symbolic lengths (supported along axis 0 when each part's offset is known statically)",
            ),
            Unsupported::SliceStep(s) => write!(
                f,
                "with step {s} needs a scatter into a slice (inc_slice); steps 1 and -1 are supported"
            ),
            Unsupported::UnknownSize => {
                f.write_str("needs a size that is known only at run time")
            }
            Unsupported::Loop(what) => write!(f, "is not written yet for {what}"),
            Unsupported::Derivative(what) => {
                write!(f, "needs {what}, which eqscan does not have")
            }
            Unsupported::MitmotTapeLength { tape, shortest } => write!(
                f,
                "needs a MIT-MOT tape of at least the length the loop runs over ({shortest} \
                 slots); its tape has {tape} slots"
            ),
        }
    }
}

impl GradError {
    /// Where the error is, if it has a position.
    pub fn span(&self) -> Option<Span> {
        match self {
            GradError::Build(e) => e.span(),
            GradError::Unsupported { span, .. } => Some(*span),
        }
    }

    /// Formats the error as one sentence naming `file:line:col`.
    pub fn located(&self, file: &str) -> String {
        match self.span().filter(|s| *s != Span::default()) {
            Some(s) => format!("{file}:{}:{}: {self}", s.line, s.col),
            None => format!("{file}: {self}"),
        }
    }
}
