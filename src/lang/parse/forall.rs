//! `(forall (fn (x) E) L)` (SPEC §1 "Nested lists"): the fn applied to
//! every tensor at the innermost depth of the list L, the nesting kept.
//!
//! Owns: its parsing and its lowering. Over a list of tensors it is a
//! `map`. Over a list of lists it is one `map` over the innermost tensors
//! of all of L's lists (`(flatten ...)` down to a list of tensors: views,
//! no copy), whose results are put back in L's nesting with `(nest XS L)`
//! (L's row splits kept on the result):
//! `(nest (map (fn (x) E) (flatten L)) L)` at depth 2. So the fn's loop
//! runs once over every tensor, and `grad` goes through it as through any
//! map (`flatten` and `nest` are each other's VJP). The operand is parsed
//! a second time for `nest`, so that the printed form reads back to the
//! same program. Must not: evaluate anything.

use super::{arity, type_err, Parser};
use crate::lang::error::LangError;
use crate::lang::op::ListOp;
use crate::lang::op_table::Op;
use crate::lang::program::NodeId;
use crate::lang::sexp::Sexp;

impl Parser {
    /// `(forall (fn (x) E) L)`.
    pub(super) fn forall(&mut self, s: &Sexp) -> Result<NodeId, LangError> {
        let span = s.span();
        let items = s.list().unwrap_or(&[]);
        if items.len() != 3 {
            return Err(arity(
                span,
                "forall",
                "a fn of one parameter and a list",
                items.len().saturating_sub(1),
            ));
        }
        let at = items[2].span();
        let l = self.expr(&items[2])?;
        let lt = self.ty(l).clone();
        if !lt.is_list() {
            return Err(type_err(
                at,
                "forall",
                format!(
                    "applies its fn to the innermost tensors of a list, got the tensor {}; \
                     map its rows instead",
                    lt.strong()
                ),
            ));
        }
        let mut flat = l;
        for _ in 1..lt.list {
            flat = self.make(Op::List(ListOp::Flatten), vec![flat], at)?;
        }
        let outs = self.map_over(vec![flat], &[at], &items[1], span)?;
        let [mapped] = outs[..] else {
            return Err(type_err(
                items[1].span(),
                "forall",
                format!(
                    "the fn returns one tensor per element, not {} results",
                    outs.len()
                ),
            ));
        };
        let mt = self.ty(mapped).clone();
        if mt.list != 1 {
            return Err(type_err(
                items[1].span(),
                "forall",
                "the fn must return a tensor of one shape for every element; it returns a \
                 list, or a tensor whose length is known only at run time (map makes each \
                 such result a list)",
            ));
        }
        if lt.list == 1 {
            return Ok(mapped);
        }
        let l2 = self.expr(&items[2])?;
        self.make(Op::List(ListOp::Nest), vec![mapped, l2], span)
    }
}
