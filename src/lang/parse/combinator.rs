//! The loop combinators, lowered to scans: `map`, `reduce`, `foldl`,
//! `scanl`, `foldr`, `scanr`.
//!
//! Owns: each combinator's arguments and its lowering (`map` to a scan of
//! mapped outputs over zipped sequences; the folds to a one-state scan,
//! backwards for `foldr`/`scanr`, read at its last step or reversed), and
//! the folds' own type error sentences.
//! Must not: parse `(scan ...)` clauses (see [`super::scan`]).

use super::{arity, loop_err, syntax, type_err, Parser};
use crate::lang::error::LangError;
use crate::lang::loop_sig::LoopSig;
use crate::lang::loop_type::{self, LoopTypeError};
use crate::lang::op::Scalar;
use crate::lang::op_table::Op;
use crate::lang::program::{NodeId, OutputInfo};
use crate::lang::sexp::Sexp;

impl Parser {
    /// `(map (fn (x ...) E) X ...)`: a scan over the zipped sequences.
    pub(super) fn map(&mut self, s: &Sexp) -> Result<Vec<NodeId>, LangError> {
        let span = s.span();
        let items = s.list().unwrap_or(&[]);
        if items.len() < 3 {
            return Err(arity(
                span,
                "map",
                "a fn and 1 or more sequences",
                items.len().saturating_sub(1),
            ));
        }
        let seqs = self.exprs(&items[2..])?;
        let mut tys = Vec::new();
        for (k, (id, x)) in seqs.iter().zip(&items[2..]).enumerate() {
            match loop_type::sequence_step(k, self.ty(*id)) {
                Ok(step) => tys.push(step),
                Err(_) => {
                    return Err(type_err(
                        x.span(),
                        "map",
                        format!(
                            "a sequence needs a leading axis, got the scalar {}",
                            self.ty(*id).clone().strong()
                        ),
                    ))
                }
            }
        }
        let body = self.fn_body(&items[1], &tys, None)?;
        if let Some(at) = body.until {
            return Err(syntax(
                at,
                "(until COND) is allowed in scan only, not in map",
            ));
        }
        let mut args = seqs.clone();
        args.extend(body.captured.iter().copied());
        let sig = LoopSig {
            sequences: vec![vec![0]; seqs.len()],
            outputs: vec![OutputInfo::Nitsot; body.graph.outputs.len()],
            n_non_seqs: body.captured.len(),
            ..LoopSig::default()
        };
        let out_tys = self
            .loop_types(&sig, &args, &body.graph)
            .map_err(|reason| loop_err(span, "map", reason))?;
        Ok(self.push_scan(sig, body.graph, args, out_tys, span))
    }

    /// `(foldl (fn (acc x) E) INIT X)` and its relatives, lowered to a
    /// sitsot scan (backwards for foldr/scanr); folds read the last state,
    /// scanr reverses the states so they line up with X.
    pub(super) fn fold(&mut self, s: &Sexp, op: &str) -> Result<NodeId, LangError> {
        let span = s.span();
        let items = s.list().unwrap_or(&[]);
        if items.len() != 4 {
            return Err(arity(
                span,
                op,
                "3 arguments ((fn (acc x) E) INIT X)",
                items.len() - 1,
            ));
        }
        let init = self.expr(&items[2])?;
        let xs = self.expr(&items[3])?;
        let Ok(step) = loop_type::sequence_step(0, self.ty(xs)) else {
            return Err(type_err(
                items[3].span(),
                op,
                format!(
                    "a sequence needs a leading axis, got the scalar {}",
                    self.ty(xs).clone().strong()
                ),
            ));
        };
        let acc = self.ty(init).clone().strong();
        // The scan's fn takes (x, acc); the combinator writes (acc x).
        let body = self.fn_body(&items[1], &[step, acc.clone()], Some(&[1, 0]))?;
        if let Some(at) = body.until {
            return Err(syntax(
                at,
                format!("(until COND) is allowed in scan only, not in {op}"),
            ));
        }
        let mut args = vec![xs, init];
        args.extend(body.captured.iter().copied());
        let backwards = op == "foldr" || op == "scanr";
        let sig = LoopSig {
            sequences: vec![vec![0]],
            outputs: vec![OutputInfo::Sitsot],
            n_non_seqs: body.captured.len(),
            go_backwards: backwards,
            ..LoopSig::default()
        };
        let out_ty = match self.loop_types(&sig, &args, &body.graph) {
            Ok(mut tys) if tys.len() == 1 => tys.remove(0),
            Err(LoopTypeError::StateType { returned, .. }) => {
                return Err(type_err(
                    items[2].span(),
                    op,
                    format!("the accumulator starts as {acc} but the fn returns {returned}"),
                ))
            }
            Err(LoopTypeError::OutputCount { .. }) | Ok(_) => {
                return Err(type_err(
                    items[1].span(),
                    op,
                    "the fn must return one value",
                ))
            }
            Err(reason) => return Err(loop_err(span, op, reason)),
        };
        let states = self.push_scan(sig, body.graph, args, vec![out_ty], span)[0];
        match op {
            "scanl" => Ok(states),
            "scanr" => self.make(
                Op::Slice {
                    start: None,
                    stop: None,
                    step: -1,
                },
                vec![states],
                span,
            ),
            _ => {
                let last = self.make(Op::Literal(Scalar::I64(-1)), vec![], span)?;
                self.make(Op::Index, vec![states, last], span)
            }
        }
    }
}
