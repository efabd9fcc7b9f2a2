//! The e-graph language: programs as `egg` terms, and back.
//!
//! Owns: [`TNode`] (the `egg::Language` of programs) and the conversion
//! Program → `RecExpr` ([`program_to_expr`]); the way back,
//! [`expr_to_program`], is in [`super::to_program`]. Must not: hold
//! rewrite rules or costs.
//!
//! A term mirrors program text: `(sum X 1)` is the node `sum` with the
//! children `X` and the literal `1`; attributes (axes, taps of a slice,
//! types of created tensors, dtypes of casts) are leaf children. So a rule
//! pattern is written exactly like a program expression.
//!
//! A scan's inner function is an ordinary term whose leaves name the loop's
//! inner inputs by position, [`Head::Arg`]; a scan node's children are its
//! body outputs followed by its outer arguments (in [`Scan`]'s layout). Two
//! loops with the same body therefore share e-classes, and an arg always
//! means "input k of the nearest enclosing scan" (de Bruijn style).
//!
//! Back from a term, the program is built with the typed program builder
//! ([`crate::lang::build::Builder`]), which checks every node as the
//! parser does (the make_node contract), so an extracted program is well
//! typed by construction or the conversion fails ([`TermError`]).

use crate::lang::dtype::DType;
use crate::lang::op::{BinaryOp, CompareOp, CumOp, Op, ReduceOp, Scalar, UnaryOp};
use crate::lang::parse::parse_literal;
use crate::lang::program::{Graph, NodeId, OutputInfo, Program, Scan};
use crate::lang::shape::{Dim, Type};
use egg::{FromOp, Id, Language, RecExpr, Symbol};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

pub use super::to_program::{expr_to_program, AttrKind, TermError};

/// A literal with total equality and order (`f64` compared by bits).
#[derive(Clone, Copy, Debug)]
pub struct Lit(pub Scalar);

impl Lit {
    fn key(&self) -> (u8, u64) {
        match self.0 {
            Scalar::Bool(b) => (0, b as u64),
            Scalar::I64(i) => (1, i as u64),
            Scalar::F64(x) => (2, x.to_bits()),
        }
    }
}

impl PartialEq for Lit {
    fn eq(&self, o: &Lit) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Lit {}
impl Hash for Lit {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.key().hash(h)
    }
}
impl PartialOrd for Lit {
    fn partial_cmp(&self, o: &Lit) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Lit {
    fn cmp(&self, o: &Lit) -> Ordering {
        self.key().cmp(&o.key())
    }
}

/// The head of an op node: an op without its attributes (they are children).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpName {
    /// elementwise unary
    Unary(UnaryOp),
    /// elementwise binary
    Binary(BinaryOp),
    /// comparison
    Compare(CompareOp),
    /// `(where c a b)`
    Where,
    /// `(sum x)` / `(sum x axis)`
    Reduce(ReduceOp),
    /// `(cumsum x axis)`
    Cumulative(CumOp),
    /// `(dot a b)`
    Dot,
    /// `(matmul a b)`
    Matmul,
    /// `(transpose x axis ...)`
    Transpose,
    /// `(reshape x dim ...)`
    Reshape,
    /// `(expand_dims x axis)`
    ExpandDims,
    /// `(stack x ...)`
    Stack,
    /// `(concat axis x ...)`
    Concat,
    /// `(index x i ...)`
    Index,
    /// `(slice x start stop step)`
    Slice,
    /// `(fill type v)`
    Fill,
    /// `(zeros type)`
    Zeros,
    /// `(ones type)`
    Ones,
    /// `(arange n)`
    Arange,
    /// `(tensor type v ...)`
    Tensor,
    /// `(cast dtype x)`
    Cast,
    /// `(proj k scan)`: output k of a scan
    Proj,
}

impl OpName {
    /// The name in program text.
    pub fn name(self) -> &'static str {
        match self {
            OpName::Unary(u) => u.name(),
            OpName::Binary(b) => b.name(),
            OpName::Compare(c) => c.name(),
            OpName::Reduce(r) => r.name(),
            OpName::Cumulative(c) => c.name(),
            OpName::Where => "where",
            OpName::Dot => "dot",
            OpName::Matmul => "matmul",
            OpName::Transpose => "transpose",
            OpName::Reshape => "reshape",
            OpName::ExpandDims => "expand_dims",
            OpName::Stack => "stack",
            OpName::Concat => "concat",
            OpName::Index => "index",
            OpName::Slice => "slice",
            OpName::Fill => "fill",
            OpName::Zeros => "zeros",
            OpName::Ones => "ones",
            OpName::Arange => "arange",
            OpName::Tensor => "tensor",
            OpName::Cast => "cast",
            OpName::Proj => "proj",
        }
    }

    /// The op with this name.
    pub fn from_name(s: &str) -> Option<OpName> {
        if let Some(u) = UnaryOp::ALL.iter().find(|u| u.name() == s) {
            return Some(OpName::Unary(*u));
        }
        if let Some(b) = BinaryOp::ALL.iter().find(|b| b.name() == s) {
            return Some(OpName::Binary(*b));
        }
        if let Some(c) = CompareOp::ALL.iter().find(|c| c.name() == s) {
            return Some(OpName::Compare(*c));
        }
        if let Some(r) = ReduceOp::ALL.iter().find(|r| r.name() == s) {
            return Some(OpName::Reduce(*r));
        }
        if let Some(c) = CumOp::ALL.iter().find(|c| c.name() == s) {
            return Some(OpName::Cumulative(*c));
        }
        Some(match s {
            "where" => OpName::Where,
            "dot" => OpName::Dot,
            "matmul" => OpName::Matmul,
            "transpose" => OpName::Transpose,
            "reshape" => OpName::Reshape,
            "expand_dims" => OpName::ExpandDims,
            "stack" => OpName::Stack,
            "concat" => OpName::Concat,
            "index" => OpName::Index,
            "slice" => OpName::Slice,
            "fill" => OpName::Fill,
            "zeros" => OpName::Zeros,
            "ones" => OpName::Ones,
            "arange" => OpName::Arange,
            "tensor" => OpName::Tensor,
            "cast" => OpName::Cast,
            "proj" => OpName::Proj,
            _ => return None,
        })
    }

    /// Whether `n` children is a valid arity.
    pub fn arity_ok(self, n: usize) -> bool {
        match self {
            OpName::Unary(_) => n == 1,
            OpName::Binary(_) | OpName::Compare(_) | OpName::Dot | OpName::Matmul => n == 2,
            OpName::Where => n == 3,
            OpName::Reduce(_) => n == 1 || n == 2,
            OpName::Cumulative(_) | OpName::ExpandDims | OpName::Fill | OpName::Cast => n == 2,
            OpName::Proj => n == 2,
            OpName::Transpose | OpName::Reshape | OpName::Stack | OpName::Tensor => n >= 1,
            OpName::Concat | OpName::Index => n >= 2,
            OpName::Slice => n == 4,
            OpName::Zeros | OpName::Ones | OpName::Arange => n == 1,
        }
    }
}

/// The static clauses of a scan; its children carry the rest.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScanSig {
    /// Taps of each sequence.
    pub sequences: Vec<Vec<i64>>,
    /// Kind of each output.
    pub outputs: Vec<OutputInfo>,
    /// Number of non-sequences.
    pub n_non_seqs: usize,
    /// Whether the last argument is `n_steps`.
    pub has_n_steps: bool,
    /// Iterate from the end.
    pub go_backwards: bool,
    /// Per output, the last steps it keeps (`None`: all); empty: all keep
    /// every step.
    pub keep: Vec<Option<usize>>,
}

impl ScanSig {
    fn of(s: &Scan) -> ScanSig {
        let keep = if s.keep.iter().any(|k| k.is_some()) {
            s.keep.clone()
        } else {
            Vec::new()
        };
        ScanSig {
            sequences: s.sequences.clone(),
            outputs: s.outputs.clone(),
            n_non_seqs: s.n_non_seqs,
            has_n_steps: s.has_n_steps,
            go_backwards: s.go_backwards,
            keep,
        }
    }

    /// The steps output `k` keeps, if not all.
    pub fn kept(&self, k: usize) -> Option<usize> {
        self.keep.get(k).copied().flatten()
    }

    /// The same layout as a [`Scan`] with an empty body, for its argument
    /// helpers.
    pub fn layout(&self) -> Scan {
        Scan {
            sequences: self.sequences.clone(),
            outputs: self.outputs.clone(),
            n_non_seqs: self.n_non_seqs,
            has_n_steps: self.has_n_steps,
            go_backwards: self.go_backwards,
            keep: self.keep.clone(),
            body: Graph::default(),
        }
    }

    /// Number of body outputs (the first children of a scan node).
    pub fn n_body_outputs(&self) -> usize {
        self.outputs.len()
    }
}

/// What a node is; together with the number of children it decides which
/// nodes match.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Head {
    /// An op; attributes are leaf children.
    Op(OpName),
    /// A literal (a weak scalar value, or an attribute such as an axis).
    Lit(Lit),
    /// `none`, an omitted slice bound.
    NoneBound,
    /// A dtype attribute (of `cast`).
    DType(DType),
    /// A type attribute `(f64 D ...)`; one size leaf child per axis.
    Type(DType),
    /// A program input, by name, with its declared type.
    Input(Symbol, Type),
    /// A symbolic size (as a value: an `i64` scalar; or a size attribute).
    Size(Symbol),
    /// Inner input k of the nearest enclosing scan, with its type.
    Arg(usize, Type),
    /// A scan: children are its body outputs, then its outer arguments.
    Scan(ScanSig),
    /// The program's outputs (the root of a program term).
    Outputs,
}

/// A node of the e-graph language.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TNode {
    /// What the node is.
    pub head: Head,
    /// Its children, in program-text order.
    pub children: Vec<Id>,
}

impl TNode {
    /// A leaf.
    pub fn leaf(head: Head) -> TNode {
        TNode {
            head,
            children: Vec::new(),
        }
    }

    /// A literal leaf.
    pub fn lit(s: Scalar) -> TNode {
        TNode::leaf(Head::Lit(Lit(s)))
    }
}

impl Language for TNode {
    type Discriminant = Head;

    fn discriminant(&self) -> Head {
        self.head.clone()
    }

    fn matches(&self, other: &Self) -> bool {
        self.head == other.head && self.children.len() == other.children.len()
    }

    fn children(&self) -> &[Id] {
        &self.children
    }

    fn children_mut(&mut self) -> &mut [Id] {
        &mut self.children
    }
}

impl fmt::Display for TNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.head {
            Head::Op(o) => f.write_str(o.name()),
            Head::Lit(l) => write!(f, "{}", l.0),
            Head::NoneBound => f.write_str("none"),
            Head::DType(d) | Head::Type(d) => f.write_str(d.name()),
            Head::Input(s, _) | Head::Size(s) => f.write_str(s.as_str()),
            Head::Arg(k, _) => write!(f, "arg{k}"),
            Head::Scan(_) => f.write_str("scan"),
            Head::Outputs => f.write_str("outputs"),
        }
    }
}

/// Why a pattern atom or op is not part of the language.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FromOpError {
    /// An unknown op name.
    #[error("unknown op '{0}'")]
    UnknownOp(String),
    /// A known op with the wrong number of arguments.
    #[error("{op} does not take {n} arguments")]
    Arity {
        /// The op.
        op: String,
        /// The number given.
        n: usize,
    },
    /// A malformed literal.
    #[error("{0}")]
    BadLiteral(String),
}

impl FromOp for TNode {
    type Error = FromOpError;

    fn from_op(op: &str, children: Vec<Id>) -> Result<Self, Self::Error> {
        if children.is_empty() {
            if let Some(l) = parse_literal(op) {
                return l.map(TNode::lit).map_err(FromOpError::BadLiteral);
            }
            if op == "none" {
                return Ok(TNode::leaf(Head::NoneBound));
            }
            if let Some(d) = DType::from_name(op) {
                return Ok(TNode::leaf(Head::DType(d)));
            }
            if OpName::from_name(op).is_none()
                && op.chars().next().is_some_and(|c| c.is_alphabetic())
            {
                return Ok(TNode::leaf(Head::Size(Symbol::from(op))));
            }
        }
        if let Some(d) = DType::from_name(op) {
            return Ok(TNode {
                head: Head::Type(d),
                children,
            });
        }
        match OpName::from_name(op) {
            Some(o) if o.arity_ok(children.len()) => Ok(TNode {
                head: Head::Op(o),
                children,
            }),
            Some(_) => Err(FromOpError::Arity {
                op: op.to_string(),
                n: children.len(),
            }),
            None => Err(FromOpError::UnknownOp(op.to_string())),
        }
    }
}

// ------------------------------------------------------------ to a term

fn size_leaf(expr: &mut RecExpr<TNode>, d: &Dim) -> Result<Id, String> {
    if let Some(k) = d.as_known() {
        Ok(expr.add(TNode::lit(Scalar::I64(k))))
    } else if let Some(s) = d.as_sym() {
        Ok(expr.add(TNode::leaf(Head::Size(Symbol::from(s)))))
    } else {
        Err(format!("the size {d} has no term form"))
    }
}

fn type_leaf(expr: &mut RecExpr<TNode>, t: &Type) -> Result<Id, String> {
    let dims = t
        .shape
        .iter()
        .map(|d| size_leaf(expr, d))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(expr.add(TNode {
        head: Head::Type(t.dtype),
        children: dims,
    }))
}

/// Adds graph `g`'s nodes to `expr`; returns the id of each node.
fn graph_into(expr: &mut RecExpr<TNode>, g: &Graph, top: bool) -> Result<Vec<Id>, String> {
    let mut ids: Vec<Id> = Vec::with_capacity(g.nodes.len());
    for node in &g.nodes {
        let args: Vec<Id> = node.args.iter().map(|a| ids[a.0]).collect();
        let lit = |expr: &mut RecExpr<TNode>, v: i64| expr.add(TNode::lit(Scalar::I64(v)));
        let op_node = |o: OpName, children: Vec<Id>| TNode {
            head: Head::Op(o),
            children,
        };
        let id = match &node.op {
            Op::Input(k) => expr.add(TNode::leaf(if top {
                Head::Input(
                    Symbol::from(node.name.as_deref().unwrap_or("_")),
                    node.ty().clone(),
                )
            } else {
                Head::Arg(*k, node.ty().clone())
            })),
            Op::Literal(s) => expr.add(TNode::lit(*s)),
            Op::Size(s) => expr.add(TNode::leaf(Head::Size(Symbol::from(s.as_str())))),
            Op::Unary(u) => expr.add(op_node(OpName::Unary(*u), args)),
            Op::Binary(b) => expr.add(op_node(OpName::Binary(*b), args)),
            Op::Compare(c) => expr.add(op_node(OpName::Compare(*c), args)),
            Op::Where => expr.add(op_node(OpName::Where, args)),
            Op::Dot => expr.add(op_node(OpName::Dot, args)),
            Op::Matmul => expr.add(op_node(OpName::Matmul, args)),
            Op::Stack => expr.add(op_node(OpName::Stack, args)),
            Op::Index => expr.add(op_node(OpName::Index, args)),
            Op::Reduce(r, axis) => {
                let mut c = args;
                if let Some(a) = axis {
                    c.push(lit(expr, *a));
                }
                expr.add(op_node(OpName::Reduce(*r), c))
            }
            Op::Cumulative(cu, axis) => {
                let a = lit(expr, *axis);
                expr.add(op_node(OpName::Cumulative(*cu), vec![args[0], a]))
            }
            Op::Transpose(perm) => {
                let mut c = args;
                for p in perm.iter().flatten() {
                    c.push(lit(expr, *p));
                }
                expr.add(op_node(OpName::Transpose, c))
            }
            Op::Reshape(dims) => {
                let mut c = args;
                for d in dims {
                    c.push(size_leaf(expr, d)?);
                }
                expr.add(op_node(OpName::Reshape, c))
            }
            Op::ExpandDims(ax) => {
                let a = lit(expr, *ax);
                expr.add(op_node(OpName::ExpandDims, vec![args[0], a]))
            }
            Op::Concat(ax) => {
                let mut c = vec![lit(expr, *ax)];
                c.extend(args);
                expr.add(op_node(OpName::Concat, c))
            }
            Op::Slice { start, stop, step } => {
                let mut bound = |v: &Option<i64>| match v {
                    Some(v) => expr.add(TNode::lit(Scalar::I64(*v))),
                    None => expr.add(TNode::leaf(Head::NoneBound)),
                };
                let (a, b) = (bound(start), bound(stop));
                let s = expr.add(TNode::lit(Scalar::I64(*step)));
                expr.add(op_node(OpName::Slice, vec![args[0], a, b, s]))
            }
            Op::Fill(t) => {
                let tl = type_leaf(expr, t)?;
                expr.add(op_node(OpName::Fill, vec![tl, args[0]]))
            }
            Op::Zeros(t) | Op::Ones(t) => {
                let tl = type_leaf(expr, t)?;
                let o = if matches!(node.op, Op::Zeros(_)) {
                    OpName::Zeros
                } else {
                    OpName::Ones
                };
                expr.add(op_node(o, vec![tl]))
            }
            Op::Arange(d) => {
                let dl = size_leaf(expr, d)?;
                expr.add(op_node(OpName::Arange, vec![dl]))
            }
            Op::Tensor(t, vals) => {
                let mut c = vec![type_leaf(expr, t)?];
                for v in vals {
                    c.push(expr.add(TNode::lit(*v)));
                }
                expr.add(op_node(OpName::Tensor, c))
            }
            Op::Cast(dt) => {
                let d = expr.add(TNode::leaf(Head::DType(*dt)));
                expr.add(op_node(OpName::Cast, vec![d, args[0]]))
            }
            Op::Scan(s) => {
                let body = graph_into(expr, &s.body, false)?;
                let mut c: Vec<Id> = s.body.outputs.iter().map(|o| body[o.0]).collect();
                c.extend(args);
                expr.add(TNode {
                    head: Head::Scan(ScanSig::of(s)),
                    children: c,
                })
            }
            Op::Proj(k) => {
                let kl = lit(expr, *k as i64);
                expr.add(op_node(OpName::Proj, vec![kl, args[0]]))
            }
        };
        ids.push(id);
    }
    Ok(ids)
}

/// The program as one term whose root is [`Head::Outputs`].
pub fn program_to_expr(p: &Program) -> Result<RecExpr<TNode>, String> {
    let mut expr = RecExpr::default();
    let ids = graph_into(&mut expr, &p.graph, true)?;
    let outs: Vec<Id> = p.graph.outputs.iter().map(|o: &NodeId| ids[o.0]).collect();
    expr.add(TNode {
        head: Head::Outputs,
        children: outs,
    });
    Ok(expr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_patterns_parse_as_program_expressions() {
        let p: egg::Pattern<TNode> = "(sum (mul ?a 2.0) -1)".parse().unwrap();
        assert_eq!(p.to_string(), "(sum (mul ?a 2.0) -1)");
        assert!("(frob ?a)".parse::<egg::Pattern<TNode>>().is_err());
        assert!("(add ?a)".parse::<egg::Pattern<TNode>>().is_err());
    }
}
