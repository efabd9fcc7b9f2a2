//! How loops read lists (SPEC §1 "Nested lists"; issue 41): `map`,
//! `reduce`, `foldl`, `foldr`, `scanl`, `scanr`, `filter`, `filterall`
//! and `forall`.
//!
//! Owns: the helpers that turn a list operand into what the loop reads.
//! A list of tensors is read as the tensor of its elements stacked
//! (`(stack L)`, a new axis 0 of run-time length), the loop runs over
//! that tensor's rows as it runs over any tensor, and a result that SPEC
//! makes a list is made one again with `unstack`. A list of lists, or
//! lists zipped with other sequences, stay lists (the loop reads an
//! element per step, a view of the storage). Must not: evaluate
//! anything.

use super::Parser;
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
    /// stacked (`Some`); a tensor, or a list of lists (whose elements a
    /// filter keeps whole), stays as it is (`None`).
    pub(super) fn filter_rows(&mut self, x: NodeId, at: Span) -> Result<Option<NodeId>, LangError> {
        match self.ty(x).list {
            1 => self.make(Op::Stack, vec![x], at).map(Some),
            _ => Ok(None),
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
