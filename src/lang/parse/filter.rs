//! `(filter (fn (x) P) X)` and `(filterall (fn (x) P) X)` (SPEC §1
//! "Filtering"): rows, or elements, chosen by a predicate, a length known
//! only at run time.
//!
//! Owns: their parsing and their lowering. Each is the mask a `map` of the
//! predicate computes (one bool per row of X; for `filterall`, per element
//! of X in row-major order, X flattened first) and `(compress MASK X)`,
//! which keeps the rows where the mask holds. The program then holds
//! those two, so every later stage (types, rewrites, both executors,
//! `grad`) sees a loop and an op it knows; `fmt` prints them (the operand
//! written twice, once for each). Over a list of tensors the elements are
//! stacked first and the kept rows made a list again; over a list of lists
//! `filter`'s mask is a loop over the list's elements and `compress` keeps
//! whole elements (their ranges of the row splits), and `filterall`'s
//! mask is one loop over the innermost tensors (`(stack (flatten ...
//! L))`), which `(compress_innermost MASK L)` keeps in L's nesting. Must
//! not: evaluate anything.

use super::{arity, syntax, type_err, Parser};
use crate::lang::error::LangError;
use crate::lang::loop_sig::LoopSig;
use crate::lang::loop_type;
use crate::lang::op::ListOp;
use crate::lang::op_table::Op;
use crate::lang::program::{NodeId, OutputInfo, Span};
use crate::lang::sexp::Sexp;
use crate::lang::{DType, Dim};

impl Parser {
    /// `(filter (fn (x) P) X)` (`op` = "filter": X's rows where P holds)
    /// or `(filterall (fn (x) P) X)` (X's elements where P holds, as
    /// NumPy's `X[p(X)]`).
    pub(super) fn filter(&mut self, s: &Sexp, op: &str) -> Result<NodeId, LangError> {
        let span = s.span();
        let items = s.list().unwrap_or(&[]);
        if items.len() != 3 {
            return Err(arity(
                span,
                op,
                "a fn of one parameter and an operand",
                items.len().saturating_sub(1),
            ));
        }
        // One parameter: a row (filter) or an element (filterall).
        if let Some(params) = items[1]
            .list()
            .filter(|_| items[1].head() == Some("fn"))
            .and_then(|l| l.get(1))
            .and_then(|p| p.list().map(|l| (l.len(), p.span())))
        {
            let (n, at) = params;
            if n != 1 {
                let what = if op == "filter" { "row" } else { "element" };
                return Err(type_err(
                    at,
                    op,
                    format!("takes a fn of one parameter (each {what} of the operand), got {n}"),
                ));
            }
        }
        let x = self.expr(&items[2])?;
        let depth = self.ty(x).list;
        // filterall over a list of lists filters each element's own
        // innermost tensors, the nesting kept: a map of it over the
        // outermost depth, down to a list of tensors.
        if depth > 1 && op == "filterall" {
            return self.filterall_nested(x, &items[1], &items[2], span);
        }
        // filter over a list of lists keeps whole elements: its mask is
        // read from the list as it is, and `compress` keeps the elements.
        let whole = depth > 1;
        // Over a list of tensors both keep whole elements (its innermost
        // tensors are its elements): the rows of the elements stacked.
        let list = self.filter_rows(x, items[2].span())?;
        let x = list.unwrap_or(x);
        let xt = self.ty(x).clone();
        if xt.ndim() == 0 && !whole {
            return Err(type_err(
                items[2].span(),
                op,
                format!(
                    "needs an array to choose from, got the scalar {}",
                    xt.strong()
                ),
            ));
        }
        // filterall's predicate reads the elements in row-major order.
        let flatten = op == "filterall" && list.is_none() && xt.ndim() != 1;
        let source = self.flat(x, flatten, span)?;
        let mask = self.predicate_mask(source, &items[1], op, span)?;
        // The operand as compress reads it: parsed again, after the loop,
        // so that no node is shared and the nodes come in the order the
        // printed `(compress (scan ... (sequences X) ...) X)` reads back
        // in (the optimizer's e-graph merges the two).
        let x2 = self.expr(&items[2])?;
        let x2 = match list {
            Some(_) => self.filter_rows(x2, items[2].span())?.unwrap_or(x2),
            None => x2,
        };
        let operand = self.flat(x2, flatten, span)?;
        let kept = self.make(Op::Compress, vec![mask, operand], span)?;
        if whole {
            return Ok(kept);
        }
        match list {
            Some(_) => self.rows_as_list(kept, span),
            None => Ok(kept),
        }
    }

    /// The mask of `op`'s predicate `pred` (a `fn` of one parameter) over
    /// the rows of `source`: a map giving one bool per row.
    fn predicate_mask(
        &mut self,
        source: NodeId,
        pred: &Sexp,
        op: &str,
        span: Span,
    ) -> Result<NodeId, LangError> {
        let step = loop_type::sequence_step(0, self.ty(source))
            .map_err(|reason| super::loop_err(span, op, reason))?;
        let body = self.fn_body(pred, &[step], None)?;
        if let Some(at) = body.until {
            return Err(syntax(
                at,
                format!("(until COND) is allowed in scan only, not in {op}"),
            ));
        }
        let [pred] = body.graph.outputs[..] else {
            return Err(type_err(
                pred.span(),
                op,
                "the predicate is one expression, not (outputs ...)",
            ));
        };
        let pt = body.graph.node(pred).ty();
        if pt.dtype != DType::Bool || pt.ndim() != 0 {
            return Err(type_err(
                body.graph.span(pred),
                op,
                format!(
                    "the predicate must be a bool scalar (a comparison, say), got {}",
                    pt.clone().strong()
                ),
            ));
        }
        let mut args = vec![source];
        args.extend(body.captured.iter().copied());
        let sig = LoopSig {
            sequences: vec![vec![0]],
            outputs: vec![OutputInfo::Nitsot],
            n_non_seqs: body.captured.len(),
            ..LoopSig::default()
        };
        let out_tys = self
            .loop_types(&sig, &args, &body.graph)
            .map_err(|reason| super::loop_err(span, op, reason))?;
        Ok(self.push_scan(sig, body.graph, args, out_tys, span)[0])
    }

    /// `(filterall PRED L)` over the list of lists `l` (parsed from
    /// `operand`): one loop of the predicate over L's innermost tensors in
    /// order, `(stack (flatten ... L))`, and `(compress_innermost MASK L)`,
    /// which keeps each innermost list's tensors that pass, the nesting
    /// kept. The operand is parsed again after the loop, as `filter` does,
    /// so that the printed form reads back to the same nodes. (It was a
    /// `map` of `filterall` over the outermost depth: one loop per
    /// innermost list.)
    fn filterall_nested(
        &mut self,
        l: NodeId,
        pred: &Sexp,
        operand: &Sexp,
        span: Span,
    ) -> Result<NodeId, LangError> {
        let at = operand.span();
        let mut flat = l;
        for _ in 1..self.ty(l).list {
            flat = self.make(Op::List(ListOp::Flatten), vec![flat], at)?;
        }
        let rows = self.make(Op::Stack, vec![flat], at)?;
        let mask = self.predicate_mask(rows, pred, "filterall", span)?;
        let l2 = self.expr(operand)?;
        self.make(Op::List(ListOp::CompressInnermost), vec![mask, l2], span)
    }

    /// `x` flattened to a vector when `flatten`, else `x`.
    fn flat(&mut self, x: NodeId, flatten: bool, span: Span) -> Result<NodeId, LangError> {
        if flatten {
            self.make(Op::Reshape(vec![Dim::known(-1)]), vec![x], span)
        } else {
            Ok(x)
        }
    }
}
