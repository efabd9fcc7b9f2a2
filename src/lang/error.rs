//! Errors of the language layer: reading, parsing and type checking programs.
//!
//! Every variant but [`LangError::Empty`] and [`LangError::Build`] carries
//! the [`Span`] where the problem is; the command line prefixes the file
//! name, giving `FILE:LINE:COL: message`.

use super::loop_type::LoopTypeError;
use super::program::{NodeId, Span};
use std::fmt;

/// A program that cannot be read, parsed or type checked.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LangError {
    /// The file is empty or holds only comments.
    #[error("the file is empty: expected (program NAME ...)")]
    Empty,
    /// The file is not valid UTF-8.
    #[error("the file is not valid UTF-8 (first bad byte at offset {offset})")]
    NotUtf8 {
        /// Byte offset of the first invalid byte.
        offset: usize,
        /// Where the bad byte is.
        span: Span,
    },
    /// Malformed s-expression or clause.
    #[error("{msg}")]
    Syntax {
        /// Where.
        span: Span,
        /// What is wrong.
        msg: String,
    },
    /// Nesting deeper than the reader allows.
    #[error("expression nested deeper than {limit} levels; bind parts with let")]
    TooDeep {
        /// Where the limit was crossed.
        span: Span,
        /// The limit.
        limit: usize,
    },
    /// An unknown op name in head position.
    #[error("unknown op '{name}'")]
    UnknownOp {
        /// Where.
        span: Span,
        /// The name.
        name: String,
    },
    /// An op with the wrong number of arguments.
    #[error("{op} takes {expected}, got {got}")]
    Arity {
        /// Where.
        span: Span,
        /// The op.
        op: String,
        /// What it takes ("2 arguments", "1 or 2 arguments", ...).
        expected: String,
        /// How many were given.
        got: usize,
    },
    /// A name used but never bound.
    #[error("unbound name '{name}'")]
    Unbound {
        /// Where.
        span: Span,
        /// The name.
        name: String,
    },
    /// A name bound twice.
    #[error("'{name}' is already bound (at {first})")]
    Rebound {
        /// Where the second binding is.
        span: Span,
        /// The name.
        name: String,
        /// Where the first binding is.
        first: Span,
    },
    /// The op's make_node check failed: wrong dtypes, shapes, axes, ...
    #[error("{op}: {msg}")]
    Type {
        /// Where.
        span: Span,
        /// The op.
        op: String,
        /// What is wrong, with the shapes and dtypes involved.
        msg: String,
    },
    /// A loop that does not type-check (see [`super::loop_type`]).
    #[error("{op}: {reason}")]
    Loop {
        /// Where the part of the loop the error is about is written.
        span: Span,
        /// The op (`scan`).
        op: String,
        /// What is wrong.
        reason: Box<LoopTypeError>,
    },
    /// A program built with [`super::build::Builder`] was given something
    /// no program can hold (its nodes' type errors are [`LangError::Type`]).
    #[error("{kind}")]
    Build {
        /// What was wrong.
        kind: BuildErrorKind,
    },
}

/// Why [`super::build::Builder`] refused a call that is not a type error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildErrorKind {
    /// A node id that is not (yet) a node of the graph being built.
    UnknownNode(NodeId),
    /// An input declared after other nodes: the parameters come first.
    LateInput(String),
    /// A name that is not an identifier, so the program would not print
    /// and parse back.
    BadName(String),
    /// An input type with a size that is neither a non-negative integer
    /// nor a symbol (as an `(input ...)` clause writes it).
    InputType {
        /// The input.
        name: String,
        /// Its type, printed.
        ty: String,
    },
    /// An op that has its own method ([`super::op_table::Op::Input`],
    /// [`super::op_table::Op::Scan`], [`super::op_table::Op::Proj`]).
    NotAnOp(&'static str),
    /// A scan given another number of outer arguments than its clauses
    /// imply.
    ScanArgs {
        /// What the clauses imply.
        expected: usize,
        /// What was given.
        got: usize,
    },
    /// A graph finished without outputs.
    NoOutputs,
}

impl fmt::Display for BuildErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildErrorKind::UnknownNode(id) => {
                write!(f, "node {} is not a node of this graph", id.0)
            }
            BuildErrorKind::LateInput(n) => write!(
                f,
                "input '{n}' is declared after other nodes: inputs come first"
            ),
            BuildErrorKind::BadName(n) => write!(f, "'{n}' is not a name"),
            BuildErrorKind::InputType { name, ty } => write!(
                f,
                "input '{name}' has type {ty}: its sizes must be integers or symbols"
            ),
            BuildErrorKind::NotAnOp(op) => {
                write!(f, "'{op}' nodes are built with their own method")
            }
            BuildErrorKind::ScanArgs { expected, got } => write!(
                f,
                "the scan's clauses take {expected} outer arguments, got {got}"
            ),
            BuildErrorKind::NoOutputs => f.write_str("a graph needs at least one output"),
        }
    }
}

impl LangError {
    /// Where the error is, if it has a position.
    pub fn span(&self) -> Option<Span> {
        match self {
            LangError::Empty | LangError::Build { .. } => None,
            LangError::NotUtf8 { span, .. }
            | LangError::Syntax { span, .. }
            | LangError::TooDeep { span, .. }
            | LangError::UnknownOp { span, .. }
            | LangError::Arity { span, .. }
            | LangError::Unbound { span, .. }
            | LangError::Rebound { span, .. }
            | LangError::Type { span, .. }
            | LangError::Loop { span, .. } => Some(*span),
        }
    }

    /// Formats the error as one sentence naming `file:line:col`.
    pub fn located(&self, file: &str) -> String {
        match self.span() {
            Some(s) => format!("{file}:{}:{}: {self}", s.line, s.col),
            None => format!("{file}: {self}"),
        }
    }
}
