//! `(grad COST X ...)`.
//!
//! Owns: the grad clause: COST an expression, each X a name in scope (an
//! input, a shared variable, a let-bound value, a `fn` parameter or an
//! outer name used in a `fn`), typed by [`grad_types`]; the node and one
//! projection per X. Must not: differentiate anything (`crate::grad`
//! expands the node before anything runs).

use super::literal::parse_literal;
use super::{arity, syntax, type_err, Parser};
use crate::lang::error::LangError;
use crate::lang::infer::{grad_types, GradTypeError};
use crate::lang::op_table::Op;
use crate::lang::program::NodeId;
use crate::lang::sexp::Sexp;
use crate::lang::shape::Type;

impl Parser {
    /// Parses `(grad COST X ...)` and returns one value per X.
    pub(super) fn grad(&mut self, s: &Sexp) -> Result<Vec<NodeId>, LangError> {
        let span = s.span();
        let items = s.list().unwrap_or(&[]);
        if items.len() < 3 {
            return Err(arity(
                span,
                "grad",
                "a cost and 1 or more names",
                items.len().saturating_sub(1),
            ));
        }
        let cost = self.expr(&items[1])?;
        let mut xs = Vec::with_capacity(items.len() - 2);
        for x in &items[2..] {
            let Some(name) = x.atom().filter(|a| parse_literal(a).is_none()) else {
                return Err(syntax(
                    x.span(),
                    "grad: expected the name of a value to differentiate with respect to",
                ));
            };
            let level = self.frames.len() - 1;
            match self.resolve(name, level, x.span()) {
                Some(id) => xs.push(id),
                None if self.sizes.contains(name) => {
                    return Err(type_err(
                        x.span(),
                        "grad",
                        format!("'{name}' is a symbolic size, not a value with a gradient"),
                    ))
                }
                None => {
                    return Err(LangError::Unbound {
                        span: x.span(),
                        name: name.to_string(),
                    })
                }
            }
        }
        let x_tys: Vec<&Type> = xs.iter().map(|&x| self.ty(x)).collect();
        let tys = grad_types(self.ty(cost), &x_tys).map_err(|e| {
            let at = match e {
                GradTypeError::Cost(_) => items[1].span(),
                GradTypeError::NotFloat(k, _) | GradTypeError::List(k, _) => items[2 + k].span(),
            };
            type_err(at, "grad", e.to_string())
        })?;
        let mut args = vec![cost];
        args.extend(xs);
        let node = self.push(Op::Grad, args, tys.clone(), None, span);
        Ok(tys
            .into_iter()
            .enumerate()
            .map(|(k, t)| self.push(Op::Proj(k), vec![node], vec![t], None, span))
            .collect())
    }
}
