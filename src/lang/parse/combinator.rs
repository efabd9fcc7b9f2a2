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
use crate::lang::program::{NodeId, OutputInfo, Span};
use crate::lang::sexp::Sexp;
use crate::lang::shape::Dim;

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
        let spans: Vec<_> = items[2..].iter().map(|x| x.span()).collect();
        self.map_over(seqs, &spans, &items[1], span)
    }

    /// `map` of the fn `f` over the sequences `seqs` (parsed already;
    /// `spans` where each was written), the map written at `span`.
    pub(super) fn map_over(
        &mut self,
        mut seqs: Vec<NodeId>,
        spans: &[Span],
        f: &Sexp,
        span: Span,
    ) -> Result<Vec<NodeId>, LangError> {
        let over_list = self.map_sequences(&mut seqs, spans)?;
        let mut tys = Vec::new();
        for (k, (id, at)) in seqs.iter().zip(spans).enumerate() {
            match loop_type::sequence_step(k, self.ty(*id)) {
                Ok(step) => tys.push(step),
                Err(e @ LoopTypeError::ListArg { .. }) => {
                    return Err(type_err(*at, "map", e.to_string()))
                }
                Err(_) => {
                    return Err(type_err(
                        *at,
                        "map",
                        format!(
                            "a sequence needs a leading axis, got the scalar {}",
                            self.ty(*id).clone().strong()
                        ),
                    ))
                }
            }
        }
        let body = self.fn_body(f, &tys, None)?;
        if let Some(at) = body.until {
            return Err(syntax(
                at,
                "(until COND) is allowed in scan only, not in map",
            ));
        }
        // An output is built as a list of the steps' results (SPEC: a list
        // one depth deeper) when the fn returns a list, or, over a list, a
        // tensor whose leading length is known only at run time (each
        // becomes the list of its rows).
        let as_list: Vec<bool> = body
            .graph
            .outputs
            .iter()
            .map(|o| {
                let t = body.graph.node(*o).ty();
                t.is_list() || (over_list && t.shape.first() == Some(&Dim::Unknown))
            })
            .collect();
        let mut args = seqs.clone();
        args.extend(body.captured.iter().copied());
        let sig = LoopSig {
            sequences: vec![vec![0]; seqs.len()],
            outputs: vec![OutputInfo::Nitsot; body.graph.outputs.len()],
            n_non_seqs: body.captured.len(),
            as_list: LoopSig::as_list_list(as_list.clone()),
            ..LoopSig::default()
        };
        let out_tys = self
            .loop_types(&sig, &args, &body.graph)
            .map_err(|reason| loop_err(span, "map", reason))?;
        let outs = self.push_scan(sig, body.graph, args, out_tys, span);
        if !over_list {
            return Ok(outs);
        }
        // Over a list, each result is a list (SPEC).
        outs.into_iter()
            .zip(as_list)
            .map(|(o, listed)| {
                if listed {
                    Ok(o)
                } else {
                    self.rows_as_list(o, span)
                }
            })
            .collect()
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
        // The sequence first, then the init: the order in which the
        // printed `(scan (sequences X) (outputs_info (sitsot INIT)) ...)`
        // reads back, so that printing round-trips.
        let xs = self.expr(&items[3])?;
        let (xs, list) = self.list_as_rows(xs, items[3].span())?;
        let init = self.expr(&items[2])?;
        let step = loop_type::sequence_step(0, self.ty(xs));
        if let Err(e @ LoopTypeError::ListArg { .. }) = &step {
            return Err(type_err(items[3].span(), op, e.to_string()));
        }
        let Ok(step) = step else {
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
        let is_fold = !matches!(op, "scanl" | "scanr");
        // A fold over a sequence that may be empty (its length known only
        // at run time, symbolic, or 0) gives its init when no step runs.
        let may_be_empty = is_fold && may_be_empty(self.ty(xs));
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
        let out = match op {
            "scanl" => states,
            "scanr" => self.make(
                Op::Slice {
                    start: None,
                    stop: None,
                    step: -1,
                },
                vec![states],
                span,
            )?,
            _ if may_be_empty => {
                // The states from the last, followed by the init: row 0
                // is the last state, or the init when no step ran. The
                // init is read again, so that each copy has one reader
                // and the printed form reads back to this program.
                let reversed = self.make(
                    Op::Slice {
                        start: None,
                        stop: None,
                        step: -1,
                    },
                    vec![states],
                    span,
                )?;
                let init = self.expr(&items[2])?;
                let init_row = self.make(Op::ExpandDims(0), vec![init], span)?;
                let rows = self.make(Op::Concat(0), vec![reversed, init_row], span)?;
                let first = self.make(Op::Literal(Scalar::I64(0)), vec![], span)?;
                return self.make(Op::Index, vec![rows, first], span);
            }
            _ => {
                let last = self.make(Op::Literal(Scalar::I64(-1)), vec![], span)?;
                return self.make(Op::Index, vec![states, last], span);
            }
        };
        // Over a list, scanl and scanr give lists (SPEC).
        if list {
            self.rows_as_list(out, span)
        } else {
            Ok(out)
        }
    }
}

/// Whether a loop over `xs` may run no step: its leading length is known
/// only at run time, or is 0, or is symbolic and not provably positive
/// (`T` may be bound to 0 at run time; `T + 1` may not, symbols being
/// sizes).
fn may_be_empty(xs: &crate::lang::Type) -> bool {
    match xs.shape.first() {
        Some(Dim::Unknown) => true,
        Some(Dim::Affine { constant, terms }) => *constant < 1 || terms.iter().any(|(_, c)| *c < 0),
        None => false,
    }
}
