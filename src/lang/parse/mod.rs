//! Parsing programs: s-expressions to a typed [`Program`].
//!
//! Owns: the meaning of every clause of SPEC §1 — inputs, `let`,
//! destructuring `let`, `output`, every op, `scan` with all its clauses,
//! closures (outer names used in a `fn` become non-sequences), and the loop
//! combinators (`map`, `reduce`, `foldl`, `scanl`, `foldr`, `scanr`), which
//! are lowered to `scan` here. Every node is type checked when it is built
//! ([`super::infer::infer`]; scans here), so a wrong program is rejected
//! with the op, the shapes and the position before anything runs.
//! Must not: print, optimize or run.
//!
//! This module holds the entry points ([`parse_program`],
//! [`parse_program_bytes`]), the parser state (a stack of `Frame` scopes,
//! the symbolic sizes), name binding and resolution (closure captures),
//! node building and the error constructors. The clauses are parsed in the
//! submodules, each an `impl Parser` block: `program` (the top level and
//! `let`), `expr` (expressions and op nodes with their attributes),
//! `scan` (`scan` and its clauses), `body` (a `fn` clause as a nested
//! graph), `combinator` (`map` and the folds, lowered to scans), `grad`
//! (`(grad COST X ...)`, kept as a node for `crate::grad` to expand) and
//! `literal` (literals, names, dtypes, sizes and types).

mod body;
mod combinator;
mod expr;
mod filter;
mod forall;
mod grad;
mod list_loops;
mod literal;
mod program;
mod scan;

pub(crate) use literal::is_identifier;
pub use literal::parse_literal;

use super::error::LangError;
use super::infer::{infer, weak_ints_fit};
use super::loop_type::LoopTypeError;
use super::op::Scalar;
use super::op_table::Op;
use super::program::{Graph, Node, NodeId, Program, Span};
use super::sexp::{decode, read_all};
use super::shape::Type;
use std::collections::{BTreeSet, HashMap};

/// Parses program text.
pub fn parse_program(text: &str) -> Result<Program, LangError> {
    let items = read_all(text, ';')?;
    let mut iter = items.into_iter();
    let Some(first) = iter.next() else {
        return Err(LangError::Empty);
    };
    if let Some(extra) = iter.next() {
        return Err(syntax(
            extra.span(),
            "a file holds one program; this is after its closing ')'",
        ));
    }
    Parser::new().program(&first)
}

/// Parses a program file's bytes (checks UTF-8 first).
pub fn parse_program_bytes(bytes: &[u8]) -> Result<Program, LangError> {
    parse_program(decode(bytes)?)
}

fn syntax(span: Span, msg: impl Into<String>) -> LangError {
    LangError::Syntax {
        span,
        msg: msg.into(),
    }
}

fn arity(span: Span, op: &str, expected: &str, got: usize) -> LangError {
    LangError::Arity {
        span,
        op: op.to_string(),
        expected: expected.to_string(),
        got,
    }
}

fn loop_err(span: Span, op: &str, reason: LoopTypeError) -> LangError {
    LangError::Loop {
        span,
        op: op.to_string(),
        reason: Box::new(reason),
    }
}

fn type_err(span: Span, op: &str, msg: impl Into<String>) -> LangError {
    LangError::Type {
        span,
        op: op.to_string(),
        msg: msg.into(),
    }
}

/// One scope being built: the top level, or a `fn` body.
struct Frame {
    graph: Graph,
    names: HashMap<String, (NodeId, Span)>,
    /// Outer names used in this `fn`: (value in the parent frame, the
    /// parameter standing for it here).
    captures: Vec<(NodeId, NodeId)>,
}

impl Frame {
    fn new() -> Frame {
        Frame {
            graph: Graph::default(),
            names: HashMap::new(),
            captures: Vec::new(),
        }
    }
}

struct Parser {
    frames: Vec<Frame>,
    /// Names known to be symbolic sizes.
    sizes: BTreeSet<String>,
}

impl Parser {
    fn new() -> Parser {
        Parser {
            frames: vec![Frame::new()],
            sizes: BTreeSet::new(),
        }
    }

    fn frame(&mut self) -> &mut Frame {
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    fn graph(&self) -> &Graph {
        &self.frames[self.frames.len() - 1].graph
    }

    fn ty(&self, id: NodeId) -> &Type {
        self.graph().node(id).ty()
    }

    fn bind(&mut self, name: &str, id: NodeId, span: Span) -> Result<(), LangError> {
        if let Some((_, first)) = self.frame().names.get(name) {
            return Err(LangError::Rebound {
                span,
                name: name.to_string(),
                first: *first,
            });
        }
        self.frame().names.insert(name.to_string(), (id, span));
        Ok(())
    }

    fn push(
        &mut self,
        op: Op,
        args: Vec<NodeId>,
        ty: Vec<Type>,
        name: Option<String>,
        span: Span,
    ) -> NodeId {
        self.frame().graph.push(Node { op, args, ty, name }, span)
    }

    /// Builds a node after the make_node check of its op.
    fn make(&mut self, op: Op, args: Vec<NodeId>, span: Span) -> Result<NodeId, LangError> {
        let tys: Vec<&Type> = args.iter().map(|&a| self.ty(a)).collect();
        let consts: Vec<Option<Scalar>> = args
            .iter()
            .map(|&a| match self.graph().node(a).op {
                Op::Literal(s) => Some(s),
                _ => None,
            })
            .collect();
        let ty = infer(&op, &tys, &consts).map_err(|msg| type_err(span, op.name(), msg))?;
        if ty.dtype.is_int() {
            let exact: Vec<Option<Scalar>> = args.iter().map(|&a| self.weak_int(a)).collect();
            weak_ints_fit(&op, &tys, &exact, &ty).map_err(|msg| type_err(span, op.name(), msg))?;
        }
        Ok(self.push(op, args, vec![ty], None, span))
    }

    /// The exact value of a weak integer made of literals by `neg`, `abs`,
    /// `add`, `sub`, `mul` and `pow` (a Python int in NumPy), if it is one.
    fn weak_int(&self, a: NodeId) -> Option<Scalar> {
        let node = self.graph().node(a);
        let ty = node.ty.first()?;
        if !ty.weak || ty.dtype != super::DType::I64 {
            return None;
        }
        if let Op::Literal(s) = node.op {
            return Some(s);
        }
        if !matches!(node.op, Op::Unary(_) | Op::Binary(_)) {
            return None;
        }
        let xs: Option<Vec<i64>> = node
            .args
            .iter()
            .map(|&b| match self.weak_int(b)? {
                Scalar::I64(v) => Some(v),
                _ => None,
            })
            .collect();
        match super::op::ExactInt::of(&node.op, &xs?) {
            super::op::ExactInt::Value(v) => Some(Scalar::I64(v)),
            _ => None,
        }
    }

    fn resolve(&mut self, name: &str, level: usize, span: Span) -> Option<NodeId> {
        if let Some((id, _)) = self.frames[level].names.get(name) {
            return Some(*id);
        }
        if level == 0 {
            return None;
        }
        let outer = self.resolve(name, level - 1, span)?;
        let ty = self.frames[level - 1]
            .graph
            .node(outer)
            .ty()
            .clone()
            .strong();
        let frame = &mut self.frames[level];
        let id = frame.graph.push(
            Node {
                op: Op::Input(usize::MAX),
                args: vec![],
                ty: vec![ty],
                name: Some(name.to_string()),
            },
            span,
        );
        frame.captures.push((outer, id));
        frame.names.insert(name.to_string(), (id, span));
        Some(id)
    }
}
