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
//! body outputs followed by its outer arguments (in [`LoopSig`]'s layout). Two
//! loops with the same body therefore share e-classes, and an arg always
//! means "input k of the nearest enclosing scan" (de Bruijn style).
//!
//! Back from a term, the program is built with the typed program builder
//! ([`crate::lang::build::Builder`]), which checks every node as the
//! parser does (the make_node contract), so an extracted program is well
//! typed by construction or the conversion fails ([`TermError`]).

use crate::lang::dtype::DType;
use crate::lang::op::Scalar;
use crate::lang::op_table::Op;
use crate::lang::op_table::{AttrKind, AttrValue, Form, Slot};
use crate::lang::parse::parse_literal;
use crate::lang::program::{Graph, LoopSig, NodeId, Program};
use crate::lang::shape::{Dim, Type};
use egg::{FromOp, Id, Language, RecExpr, Symbol};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

pub use super::to_program::{expr_to_program, LeafKind, TermError};

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

/// The head of an op node: an op without its attributes (they are its leaf
/// children, laid out as the op table says).
pub use crate::lang::OpKind;

/// What a node is; together with the number of children it decides which
/// nodes match.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Head {
    /// An op; attributes are leaf children.
    Op(OpKind),
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
    /// A scan: children are its body outputs, then its outer arguments
    /// (in the signature's layout).
    Scan(LoopSig),
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
            // `key` is the op `(key SEED)` in terms: no valid term holds the
            // key dtype as an attribute (casts to keys and created keys are
            // type errors).
            if let Some(d) = DType::from_name(op).filter(|d| !d.is_key()) {
                return Ok(TNode::leaf(Head::DType(d)));
            }
            if OpKind::from_name(op).is_none()
                && op.chars().next().is_some_and(|c| c.is_alphabetic())
            {
                return Ok(TNode::leaf(Head::Size(Symbol::from(op))));
            }
        }
        if let Some(d) = DType::from_name(op).filter(|d| !d.is_key()) {
            return Ok(TNode {
                head: Head::Type(d),
                children,
            });
        }
        match OpKind::from_name(op) {
            Some(o) if o.arity(Form::Term).admits(children.len()) => Ok(TNode {
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

/// Adds the node of `op` (an op of the op table) with value children `args`
/// to `expr`: its attributes become leaf children where the op's layout
/// puts them.
fn op_into(expr: &mut RecExpr<TNode>, op: &Op, args: &[Id]) -> Result<Id, String> {
    let Some((kind, attrs)) = op.parts() else {
        return Err(format!("{} is not an op node", op.name()));
    };
    let spans = kind
        .spans(Form::Args, args.len())
        .ok_or_else(|| format!("{} does not take {} arguments", kind.name(), args.len()))?;
    let mut attrs = attrs.into_iter();
    let mut children = Vec::new();
    let lit = |expr: &mut RecExpr<TNode>, v: i64| expr.add(TNode::lit(Scalar::I64(v)));
    for (slot, at) in kind.layout().iter().zip(spans) {
        let Slot::Attr(k) = slot else {
            children.extend_from_slice(&args[at]);
            continue;
        };
        let Some(v) = attrs.next() else {
            return Err(format!("{}: an attribute is missing", kind.name()));
        };
        match v {
            AttrValue::Int(i) => children.push(lit(expr, i)),
            AttrValue::OptInt(Some(i)) => children.push(lit(expr, i)),
            // An omitted slice bound is a leaf; an omitted axis is no child.
            AttrValue::OptInt(None) if matches!(k, AttrKind::Start | AttrKind::Stop) => {
                children.push(expr.add(TNode::leaf(Head::NoneBound)))
            }
            AttrValue::OptInt(None) => {}
            AttrValue::Ints(v) => children.extend(v.into_iter().map(|i| lit(expr, i))),
            AttrValue::Sizes(v) => {
                for d in &v {
                    children.push(size_leaf(expr, d)?);
                }
            }
            AttrValue::Type(t) => children.push(type_leaf(expr, &t)?),
            AttrValue::DType(d) => children.push(expr.add(TNode::leaf(Head::DType(d)))),
            AttrValue::Size(d) => children.push(size_leaf(expr, &d)?),
            AttrValue::Bool(b) => children.push(expr.add(TNode::lit(Scalar::Bool(b)))),
            AttrValue::Literals(v) => {
                children.extend(v.into_iter().map(|x| expr.add(TNode::lit(x))))
            }
        }
    }
    Ok(expr.add(TNode {
        head: Head::Op(kind),
        children,
    }))
}

/// Adds graph `g`'s nodes to `expr`; returns the id of each node.
fn graph_into(expr: &mut RecExpr<TNode>, g: &Graph, top: bool) -> Result<Vec<Id>, String> {
    let mut ids: Vec<Id> = Vec::with_capacity(g.nodes.len());
    for node in &g.nodes {
        let args: Vec<Id> = node.args.iter().map(|a| ids[a.0]).collect();
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
            Op::Scan(s) => {
                let body = graph_into(expr, &s.body, false)?;
                let mut c: Vec<Id> = s.body.outputs.iter().map(|o| body[o.0]).collect();
                c.extend(args);
                let sig = LoopSig {
                    keep: LoopSig::keep_list(s.sig.keep.clone()),
                    ..s.sig.clone()
                };
                expr.add(TNode {
                    head: Head::Scan(sig),
                    children: c,
                })
            }
            op => op_into(expr, op, &args)?,
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
