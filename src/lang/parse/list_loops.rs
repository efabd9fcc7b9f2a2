//! Loops over lists of tensors (SPEC §1 "Nested lists"), phase 1 of
//! issue 41: `map`, `reduce`, `foldl`, `foldr`, `scanl`, `scanr`,
//! `filter` and `filterall` over a list of depth 1 (`forall` comes with
//! phase 2).
//!
//! Owns: the lowering of those forms over a list of tensors. The list is
//! read as the tensor of its elements stacked (`(stack L)`, a new axis 0
//! of run-time length), the loop runs over that tensor's rows as it runs
//! over any tensor, and a result that SPEC makes a list (`map`, `scanl`,
//! `scanr`, the filters, `forall`) is made one again with `unstack`. The
//! program then holds plain nodes every stage knows. Deeper lists, lists
//! zipped with other sequences (whose lengths must then agree at run
//! time) and lists captured by a `fn` are refused here with a located
//! error: they come with the list-producing loop form of phase 2 (see
//! `docs/lists.md`). Must not: evaluate anything.

use super::{type_err, Parser};
use crate::lang::error::LangError;
use crate::lang::op::ListOp;
use crate::lang::op_table::Op;
use crate::lang::program::{NodeId, Span};

impl Parser {
    /// `x` as a loop over it reads it: a list of tensors becomes its
    /// elements stacked (a tensor whose rows the loop reads), a list of
    /// lists stays a list (the loop reads an element per step, a view of
    /// its storage); a tensor stays as it is. The flag: `x` was a list.
    pub(super) fn list_as_rows(
        &mut self,
        x: NodeId,
        at: Span,
    ) -> Result<(NodeId, bool), LangError> {
        let t = self.ty(x).clone();
        match t.list {
            0 => Ok((x, false)),
            1 => Ok((self.make(Op::Stack, vec![x], at)?, true)),
            _ => Ok((x, true)),
        }
    }

    /// `x` as a filter reads it: a list of tensors becomes its elements
    /// stacked (`Some`), a tensor stays as it is (`None`); a list of lists
    /// is an error at `at` (filters keep whole elements of a list of
    /// tensors only, for now).
    pub(super) fn filter_rows(
        &mut self,
        x: NodeId,
        at: Span,
        op: &str,
    ) -> Result<Option<NodeId>, LangError> {
        let t = self.ty(x).clone();
        if t.list > 1 {
            return Err(type_err(
                at,
                op,
                format!(
                    "over the list of lists {t} is not supported yet (over a list of \
                     tensors it is; flatten it, or see docs/lists.md)"
                ),
            ));
        }
        match t.list {
            0 => Ok(None),
            _ => self.make(Op::Stack, vec![x], at).map(Some),
        }
    }

    /// The sequences of a `map` as its loop reads them: one list of
    /// tensors is stacked; zipped with other sequences, or deeper, lists
    /// stay lists (the loop then checks that the lengths agree before its
    /// first step). `true` when any was a list.
    pub(super) fn map_sequences(
        &mut self,
        seqs: &mut [NodeId],
        spans: &[Span],
    ) -> Result<bool, LangError> {
        let lists = seqs.iter().filter(|&&s| self.ty(s).is_list()).count();
        if lists == 0 {
            return Ok(false);
        }
        if seqs.len() == 1 {
            seqs[0] = self.list_as_rows(seqs[0], spans[0])?.0;
        }
        Ok(true)
    }

    /// `x`'s rows as a list (a loop's result that SPEC makes a list).
    pub(super) fn rows_as_list(&mut self, x: NodeId, at: Span) -> Result<NodeId, LangError> {
        self.make(Op::List(ListOp::Unstack), vec![x], at)
    }
}
