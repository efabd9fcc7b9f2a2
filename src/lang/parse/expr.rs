//! Expressions: atoms, op applications and the dispatch to loops.
//!
//! Owns: an atom as a literal, a bound name (captured from outer scopes
//! when needed), a symbolic size or an error; `(OP ...)` for every op of
//! the op table, matched to its layout with attributes read first; the
//! one-result and several-result forms; sending `scan`, `map` and the
//! folds to their parsers.
//! Must not: know a loop's clauses (see [`super::scan`],
//! [`super::combinator`]).

use super::literal::parse_literal;
use super::{arity, syntax, type_err, Parser};
use crate::lang::error::LangError;
use crate::lang::op::Scalar;
use crate::lang::op_table::Op;
use crate::lang::op_table::{AttrKind, AttrValue, Form, OpKind, Slot};
use crate::lang::program::{NodeId, Span};
use crate::lang::sexp::Sexp;
use crate::lang::shape::Dim;

impl Parser {
    pub(super) fn atom_expr(&mut self, a: &str, span: Span) -> Result<NodeId, LangError> {
        if let Some(lit) = parse_literal(a) {
            let lit = lit.map_err(|m| syntax(span, m))?;
            return self.make(Op::Literal(lit), vec![], span);
        }
        let level = self.frames.len() - 1;
        if let Some(id) = self.resolve(a, level, span) {
            return Ok(id);
        }
        if self.sizes.contains(a) {
            return self.make(Op::Size(a.to_string()), vec![], span);
        }
        if a == "none" {
            return Err(syntax(span, "'none' is only allowed as a slice bound"));
        }
        Err(LangError::Unbound {
            span,
            name: a.to_string(),
        })
    }

    /// An expression with exactly one result.
    pub(super) fn expr(&mut self, s: &Sexp) -> Result<NodeId, LangError> {
        let ids = self.expr_multi(s)?;
        if ids.len() != 1 {
            // The head that gave several results: a loop form, `grad`, ...
            let head = match s {
                Sexp::List(items, _) => match items.first() {
                    Some(Sexp::Atom(a, _)) => Some(a.as_str()),
                    _ => None,
                },
                _ => None,
            }
            .unwrap_or("expression");
            return Err(syntax(
                s.span(),
                format!(
                    "this {head} has {} results; bind them with (let (A B ...) ({head} ...))",
                    ids.len()
                ),
            ));
        }
        Ok(ids[0])
    }

    pub(super) fn exprs(&mut self, items: &[Sexp]) -> Result<Vec<NodeId>, LangError> {
        items.iter().map(|e| self.expr(e)).collect()
    }

    /// An expression that may have several results (a scan).
    pub(super) fn expr_multi(&mut self, s: &Sexp) -> Result<Vec<NodeId>, LangError> {
        let span = s.span();
        let items = match s {
            Sexp::Atom(a, _) => return Ok(vec![self.atom_expr(a, span)?]),
            Sexp::List(items, _) => items,
        };
        let Some(head) = items.first() else {
            return Err(syntax(span, "empty expression ()"));
        };
        let Some(op) = head.atom() else {
            return Err(syntax(head.span(), "expected an op name here"));
        };
        let rest = &items[1..];
        if let Some(kind) = OpKind::from_name(op).filter(|k| k.in_programs()) {
            return Ok(vec![self.op_node(kind, rest, span)?]);
        }
        match op {
            "scan" => self.scan(s),
            "map" => self.map(s),
            "filter" | "filterall" => Ok(vec![self.filter(s, op)?]),
            "forall" => Ok(vec![self.forall(s)?]),
            "grad" => self.grad(s),
            "slogdet" => Ok(self
                .slogdet(rest, span, [true; 2])?
                .into_iter()
                .flatten()
                .collect()),
            "reduce" | "foldl" | "scanl" | "foldr" | "scanr" => Ok(vec![self.fold(s, op)?]),
            _ => Err(LangError::UnknownOp {
                span: head.span(),
                name: op.to_string(),
            }),
        }
    }

    /// `(slogdet A)`: one node per result kept (`keep`), the sign and
    /// `log|det|`.
    pub(super) fn slogdet(
        &mut self,
        rest: &[Sexp],
        span: Span,
        keep: [bool; 2],
    ) -> Result<Vec<Option<NodeId>>, LangError> {
        let [a] = rest else {
            return Err(arity(span, "slogdet", "1 argument", rest.len()));
        };
        let a = self.expr(a)?;
        (0..2)
            .map(|k| {
                keep[k]
                    .then(|| self.make(Op::Slogdet(k), vec![a], span))
                    .transpose()
            })
            .collect()
    }

    /// `(OP OPERAND ...)` for an op of the op table: the operands are
    /// matched to the op's layout, attributes read first (in order), then
    /// the value arguments.
    pub(super) fn op_node(
        &mut self,
        kind: OpKind,
        rest: &[Sexp],
        span: Span,
    ) -> Result<NodeId, LangError> {
        let Some(spans) = kind.spans(Form::Text, rest.len()) else {
            return Err(arity(span, kind.name(), &kind.expected(), rest.len()));
        };
        let mut attrs = Vec::new();
        for (slot, at) in kind.layout().iter().zip(&spans) {
            if let Slot::Attr(a) = slot {
                attrs.push(self.attr(*a, &rest[at.clone()], span)?);
            }
        }
        let mut args = Vec::new();
        for (slot, at) in kind.layout().iter().zip(&spans) {
            if !matches!(slot, Slot::Attr(_)) {
                args.extend(self.exprs(&rest[at.clone()])?);
            }
        }
        let op = Op::from_parts(kind, attrs).ok_or_else(|| {
            type_err(
                span,
                kind.name(),
                "internal: the attributes do not fit the op",
            )
        })?;
        self.make(op, args, span)
    }

    /// An attribute of kind `kind` written as `items` (as many as the op's
    /// layout gives it) in the op at `span`.
    pub(super) fn attr(
        &mut self,
        kind: AttrKind,
        items: &[Sexp],
        span: Span,
    ) -> Result<AttrValue, LangError> {
        let one = || {
            items
                .first()
                .ok_or_else(|| syntax(span, "missing attribute"))
        };
        Ok(match kind {
            AttrKind::Axis => AttrValue::Int(Self::int_param(one()?, "axis")?),
            AttrKind::Output => AttrValue::Int(Self::int_param(one()?, "output index")?),
            AttrKind::Flag => {
                let a = one()?;
                match a.atom().and_then(parse_literal) {
                    Some(Ok(Scalar::Bool(b))) => AttrValue::Bool(b),
                    _ => return Err(syntax(a.span(), "expected true or false")),
                }
            }
            AttrKind::OptAxis => AttrValue::OptInt(match items.first() {
                Some(a) => Some(Self::int_param(a, "axis")?),
                None => None,
            }),
            AttrKind::AxisOrZero => AttrValue::Int(match items.first() {
                Some(a) => Self::int_param(a, "axis")?,
                None => 0,
            }),
            AttrKind::Perm => AttrValue::Ints(
                items
                    .iter()
                    .map(|a| Self::int_param(a, "axis"))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            AttrKind::Sizes => {
                let mut dims = Vec::new();
                for d in items {
                    dims.push(match d.atom().and_then(parse_literal) {
                        Some(Ok(Scalar::I64(-1))) => Dim::known(-1),
                        _ => self.parse_dim(d)?,
                    });
                }
                AttrValue::Sizes(dims)
            }
            AttrKind::Start => AttrValue::OptInt(Self::opt_int_param(one()?, "start")?),
            AttrKind::Stop => AttrValue::OptInt(Self::opt_int_param(one()?, "stop")?),
            AttrKind::Step => AttrValue::Int(match items.first() {
                Some(s) => Self::opt_int_param(s, "step")?.unwrap_or(1),
                None => 1,
            }),
            AttrKind::Type => AttrValue::Type(self.parse_type(one()?)?),
            AttrKind::DType => AttrValue::DType(Self::parse_dtype(one()?)?),
            AttrKind::Size => AttrValue::Size(self.parse_dim(one()?)?),
            AttrKind::Literals => {
                let mut vals = Vec::new();
                for v in items {
                    match v.atom().and_then(parse_literal) {
                        Some(Ok(s)) => vals.push(s),
                        Some(Err(m)) => return Err(syntax(v.span(), m)),
                        None => return Err(syntax(v.span(), "expected a number literal")),
                    }
                }
                AttrValue::Literals(vals)
            }
        })
    }
}
