//! The errors of the `.rules` reader and the collector that gathers them.
//!
//! Owns: [`RuleSpan`] (a `FILE:LINE:COL` position), [`RuleError`] (every
//! way a rule file or rule can be wrong) and `Ctx`, the per-file collector
//! every parsing step pushes its errors into (ISLE style: all errors of a
//! file are reported, not the first).
//! Must not: parse anything or decide what is an error; the readers in the
//! sibling modules do.

use super::split::Tok;
use std::fmt;

/// A position in a rule file (1-based line and column, in characters).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RuleSpan {
    /// The file, as given.
    pub file: String,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub col: usize,
}

impl fmt::Display for RuleSpan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// A bad rule file or rule. Displays as `FILE:LINE:COL: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The file or folder cannot be read.
    #[error("{file}: {msg}")]
    Io {
        /// The path.
        file: String,
        /// The system's message.
        msg: String,
    },
    /// Malformed rule text: missing `:` or `=>`, unbalanced parentheses,
    /// a stray token.
    #[error("{span}: {msg}")]
    Syntax {
        /// Where.
        span: RuleSpan,
        /// What is wrong.
        msg: String,
    },
    /// An op name that the language does not have.
    #[error("{span}: unknown op '{op}'")]
    UnknownOp {
        /// Where the op name is.
        span: RuleSpan,
        /// The name.
        op: String,
    },
    /// A known op with the wrong number of arguments.
    #[error("{span}: {op} does not take {n} argument(s)")]
    Arity {
        /// Where the op name is.
        span: RuleSpan,
        /// The op.
        op: String,
        /// The number given.
        n: usize,
    },
    /// A leaf that is neither a variable, a literal, a dtype nor `none`.
    #[error("{span}: unknown name '{name}': a rule's leaves are pattern variables (?x), literals, dtypes or none")]
    UnknownName {
        /// Where.
        span: RuleSpan,
        /// The name.
        name: String,
    },
    /// A malformed literal.
    #[error("{span}: {msg}")]
    BadLiteral {
        /// Where.
        span: RuleSpan,
        /// What is wrong.
        msg: String,
    },
    /// A condition names no known predicate.
    #[error("{span}: unknown predicate '{name}' (see rules/README.md for the list)")]
    UnknownPredicate {
        /// Where the name is.
        span: RuleSpan,
        /// The name.
        name: String,
    },
    /// A condition's arguments do not fit its predicate.
    #[error("{span}: bad condition '{name}': {msg}")]
    BadCondition {
        /// Where the condition is.
        span: RuleSpan,
        /// The predicate.
        name: String,
        /// What is expected.
        msg: String,
    },
    /// A variable on the right side or in a condition that the left side
    /// does not bind.
    #[error("{span}: variable {var} is not bound by the left side of rule '{rule}'")]
    UnboundVar {
        /// Where the variable is.
        span: RuleSpan,
        /// The variable.
        var: String,
        /// The rule.
        rule: String,
    },
    /// A left side that is a bare variable (it would match every class).
    #[error("{span}: the left side of rule '{rule}' is a bare variable, which matches every class{hint}")]
    BareLhs {
        /// Where.
        span: RuleSpan,
        /// The rule.
        rule: String,
        /// A hint (for `<=>` rules).
        hint: String,
    },
    /// Two rules with the same name.
    #[error("{span}: rule '{name}' is defined twice (first at {first})")]
    DuplicateName {
        /// The second definition.
        span: RuleSpan,
        /// The name.
        name: String,
        /// The first definition.
        first: RuleSpan,
    },
    /// egg's pattern parser refused a side (should not happen after the
    /// checks above).
    #[error("{span}: {msg}")]
    Pattern {
        /// The side's first token.
        span: RuleSpan,
        /// egg's message.
        msg: String,
    },
}

impl RuleError {
    /// Where the error is (`None` for I/O errors).
    pub fn span(&self) -> Option<&RuleSpan> {
        match self {
            RuleError::Io { .. } => None,
            RuleError::Syntax { span, .. }
            | RuleError::UnknownOp { span, .. }
            | RuleError::Arity { span, .. }
            | RuleError::UnknownName { span, .. }
            | RuleError::BadLiteral { span, .. }
            | RuleError::UnknownPredicate { span, .. }
            | RuleError::BadCondition { span, .. }
            | RuleError::UnboundVar { span, .. }
            | RuleError::BareLhs { span, .. }
            | RuleError::DuplicateName { span, .. }
            | RuleError::Pattern { span, .. } => Some(span),
        }
    }
}

/// The per-file parsing context: the file's name for spans and the errors
/// found so far.
pub(super) struct Ctx<'a> {
    pub(super) file: &'a str,
    pub(super) errors: Vec<RuleError>,
}

impl Ctx<'_> {
    pub(super) fn span(&self, line: usize, col: usize) -> RuleSpan {
        RuleSpan {
            file: self.file.to_string(),
            line,
            col,
        }
    }
    pub(super) fn at(&self, t: &Tok) -> RuleSpan {
        self.span(t.line, t.col)
    }
    pub(super) fn syntax(&mut self, line: usize, col: usize, msg: impl Into<String>) {
        let span = self.span(line, col);
        self.errors.push(RuleError::Syntax {
            span,
            msg: msg.into(),
        });
    }
}
