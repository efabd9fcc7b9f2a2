//! `(scan ...)` and its clauses.
//!
//! Owns: the `sequences` (with `taps`), `outputs_info` (`sitsot`,
//! `mitsot`, `mitmot`, `nitsot`, `keep`), `non_sequences`, `n_steps`, `go_backwards`
//! and `fn` clauses, assembling the scan's arguments and [`LoopSig`], and
//! typing the loop through the scan type rule ([`loop_type`]) with its
//! errors placed at the part they are about.
//! Must not: parse the `fn` body itself (see [`super::body`]) or restate
//! the scan type rule.

use super::literal::is_identifier;
use super::{arity, loop_err, syntax, type_err, Parser};
use crate::lang::dtype::DType;
use crate::lang::error::LangError;
use crate::lang::loop_sig::{LoopSig, TapWindow, MAX_TAP};
use crate::lang::loop_type::{self, LoopPart, LoopTypeError};
use crate::lang::op::Scalar;
use crate::lang::op_table::Op;
use crate::lang::program::{Graph, NodeId, OutputInfo, Scan, Span};
use crate::lang::sexp::Sexp;
use crate::lang::shape::{Dim, Type};
use std::collections::BTreeSet;

impl Parser {
    pub(super) fn taps_clause(s: &Sexp) -> Result<Vec<i64>, LangError> {
        Self::taps_named(s, "taps")
    }

    /// `(HEAD T ...)`: one or more distinct taps within [`MAX_TAP`].
    fn taps_named(s: &Sexp, head: &str) -> Result<Vec<i64>, LangError> {
        let parts = match s.list() {
            Some(p) if s.head() == Some(head) && p.len() >= 2 => p,
            _ => return Err(syntax(s.span(), format!("expected ({head} T ...)"))),
        };
        let taps = parts[1..]
            .iter()
            .map(|t| {
                let v = Self::int_param(t, "tap")?;
                if v.unsigned_abs() > MAX_TAP.unsigned_abs() {
                    return Err(syntax(
                        t.span(),
                        format!("a tap must lie within -{MAX_TAP}..{MAX_TAP}, got {v}"),
                    ));
                }
                Ok(v)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let distinct: BTreeSet<_> = taps.iter().collect();
        if distinct.len() != taps.len() {
            return Err(syntax(s.span(), "taps must be distinct"));
        }
        Ok(taps)
    }

    /// Parses `(scan ...)` and returns one value per output.
    pub(super) fn scan(&mut self, s: &Sexp) -> Result<Vec<NodeId>, LangError> {
        let span = s.span();
        let items = s.list().unwrap_or(&[]);
        let mut seqs: Vec<(NodeId, Vec<i64>)> = Vec::new();
        let mut outs: Vec<(OutputInfo, Option<NodeId>, Span)> = Vec::new();
        let mut has_outputs_info = false;
        let mut non_seqs: Vec<NodeId> = Vec::new();
        let mut n_steps: Option<NodeId> = None;
        let mut go_backwards = false;
        let mut keep: Vec<Option<usize>> = Vec::new();
        let mut as_list: Vec<bool> = Vec::new();
        let mut fn_clause: Option<&Sexp> = None;
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for clause in &items[1..] {
            let cspan = clause.span();
            let Some(head) = clause.head() else {
                return Err(syntax(cspan, "expected a scan clause: sequences, outputs_info, non_sequences, n_steps, go_backwards or fn"));
            };
            if !seen.insert(head) {
                return Err(syntax(cspan, format!("the clause '{head}' is given twice")));
            }
            let parts = &clause.list().unwrap_or(&[])[1..];
            match head {
                "sequences" => {
                    for seq in parts {
                        let (x, taps) = match seq.list() {
                            Some([x, t]) if t.head() == Some("taps") => (x, Self::taps_clause(t)?),
                            _ => (seq, vec![0]),
                        };
                        let id = self.expr(x)?;
                        loop_type::sequence_step(seqs.len(), self.ty(id))
                            .map_err(|reason| loop_err(x.span(), "scan", reason))?;
                        seqs.push((id, taps));
                    }
                }
                "outputs_info" => {
                    has_outputs_info = true;
                    for o in parts {
                        let mut oparts = o.list().unwrap_or(&[]);
                        // An optional trailing (keep K): only the last K steps.
                        let mut kept = None;
                        if let Some(last) = oparts.last().filter(|l| l.head() == Some("keep")) {
                            let kp = last.list().unwrap_or(&[]);
                            if kp.len() != 2 {
                                return Err(arity(last.span(), "keep", "1 argument", kp.len() - 1));
                            }
                            let k = Self::int_param(&kp[1], "keep")?;
                            if k < 1 {
                                return Err(syntax(kp[1].span(), format!("an output keeps at least 1 step, got {k}")));
                            }
                            kept = Some(k as usize);
                            oparts = &oparts[..oparts.len() - 1];
                        }
                        keep.push(kept);
                        // (nitsot as_list): the steps' results built as a list.
                        let listed = o.head() == Some("nitsot")
                            && oparts.len() == 2
                            && oparts[1].atom() == Some("as_list");
                        as_list.push(listed);
                        if listed {
                            if kept.is_some() {
                                return Err(syntax(o.span(), "an output built as a list keeps every step: (keep K) does not apply"));
                            }
                            outs.push((OutputInfo::Nitsot, None, o.span()));
                            continue;
                        }
                        match (o.head(), oparts.len()) {
                            (Some("sitsot"), 2) => {
                                let init = self.expr(&oparts[1])?;
                                outs.push((OutputInfo::Sitsot, Some(init), o.span()));
                            }
                            (Some("mitsot"), 3) => {
                                let taps = Self::taps_clause(&oparts[2])?;
                                if let Some(t) = taps.iter().find(|&&t| t >= 0) {
                                    return Err(syntax(oparts[2].span(), format!("a mitsot reads past values: taps must be negative, got {t}")));
                                }
                                let depth = TapWindow::of(&taps).depth();
                                if let Some(k) = kept.filter(|&k| k < depth) {
                                    return Err(syntax(o.span(), format!("a mitsot with taps {taps:?} must keep at least {depth} steps, got (keep {k})")));
                                }
                                let init = self.expr(&oparts[1])?;
                                outs.push((OutputInfo::Mitsot(taps), Some(init), o.span()));
                            }
                            (Some("nitsot"), 1) => outs.push((OutputInfo::Nitsot, None, o.span())),
                            (Some("mitmot"), 4) => {
                                if kept.is_some() {
                                    return Err(syntax(o.span(), "a mitmot keeps its whole tape: (keep K) does not apply"));
                                }
                                let in_taps = Self::taps_named(&oparts[2], "in_taps")?;
                                let out_taps = Self::taps_named(&oparts[3], "out_taps")?;
                                let init = self.expr(&oparts[1])?;
                                outs.push((OutputInfo::Mitmot { in_taps, out_taps }, Some(init), o.span()));
                            }
                            _ => return Err(syntax(o.span(), "expected (sitsot INIT), (mitsot INIT (taps T ...)), (mitmot BUF (in_taps T ...) (out_taps S ...)), (nitsot) or (nitsot as_list), each but mitmot and as_list optionally ending in (keep K)")),
                        }
                    }
                }
                "non_sequences" => non_seqs.extend(self.exprs(parts)?),
                "n_steps" => {
                    if parts.len() != 1 {
                        return Err(arity(cspan, "n_steps", "1 argument", parts.len()));
                    }
                    if let Some(a) = parts[0].atom() {
                        let level = self.frames.len() - 1;
                        if is_identifier(a) && self.resolve(a, level, parts[0].span()).is_none() {
                            self.declare_size(a, parts[0].span())?;
                        }
                    }
                    let id = self.expr(&parts[0])?;
                    let t = self.ty(id);
                    if t.dtype != DType::I64 || t.ndim() != 0 {
                        return Err(type_err(parts[0].span(), "scan", format!("n_steps must be an i64 scalar, got {t}")));
                    }
                    // A negative step count, literal or not, is the shape
                    // check's located error when the program runs (the
                    // optimizer may fold an expression to a negative literal,
                    // and what it prints must parse).
                    n_steps = Some(id);
                }
                "go_backwards" => {
                    if !parts.is_empty() {
                        return Err(arity(cspan, "go_backwards", "no arguments", parts.len()));
                    }
                    go_backwards = true;
                }
                "fn" => fn_clause = Some(clause),
                other => {
                    return Err(syntax(cspan, format!("unknown scan clause '{other}'; expected sequences, outputs_info, non_sequences, n_steps, go_backwards or fn")))
                }
            }
        }
        let Some(fn_clause) = fn_clause else {
            return Err(syntax(span, "scan needs a (fn (PARAM ...) BODY) clause"));
        };
        if seqs.is_empty() && n_steps.is_none() {
            return Err(syntax(span, "a scan without sequences needs (n_steps N)"));
        }
        let infos: Vec<OutputInfo> = if has_outputs_info {
            outs.iter().map(|o| o.0.clone()).collect()
        } else {
            // Without outputs_info, one mapped output per body result
            // (known once the body is parsed).
            Vec::new()
        };
        // Arguments: sequences, inits, non-sequences (declared, then
        // captured), n_steps.
        let mut args: Vec<NodeId> = seqs.iter().map(|s| s.0).collect();
        args.extend(outs.iter().filter_map(|o| o.1));
        args.extend(non_seqs.iter().copied());
        let mut sig = LoopSig {
            sequences: seqs.into_iter().map(|s| s.1).collect(),
            outputs: infos,
            n_non_seqs: non_seqs.len(),
            has_n_steps: false,
            go_backwards,
            keep: LoopSig::keep_list(keep),
            until: false,
            as_list: LoopSig::as_list_list(as_list),
        };
        // The spans of the parts of the loop, for its type errors.
        let seq_spans: Vec<Span> = args[sig.seq_args()]
            .iter()
            .map(|a| self.graph().span(*a))
            .collect();
        let out_spans: Vec<Span> = outs.iter().map(|o| o.2).collect();
        // Where `(until COND)` is, once the body is parsed.
        let until_span = std::cell::Cell::new(None::<Span>);
        let place = |reason: LoopTypeError| {
            let at = match reason.part() {
                LoopPart::Sequence(k) => seq_spans.get(k).copied(),
                LoopPart::Output(k) => out_spans.get(k).copied(),
                LoopPart::Body => Some(fn_clause.span()),
                LoopPart::Until => until_span.get().or(Some(fn_clause.span())),
                LoopPart::Loop => None,
            };
            loop_err(at.unwrap_or(span), "scan", reason)
        };
        // Parameter types, in the fn's order.
        let param_tys = {
            let arg_tys: Vec<&Type> = args.iter().map(|a| self.ty(*a)).collect();
            loop_type::param_types(&sig, &arg_tys).map_err(&place)?
        };
        let body = self.fn_body(fn_clause, &param_tys, None)?;
        sig.until = body.until.is_some();
        until_span.set(body.until);
        if !has_outputs_info {
            let n = body.graph.outputs.len() - usize::from(sig.until);
            sig.outputs = vec![OutputInfo::Nitsot; n];
        }
        if sig.outputs.is_empty() {
            return Err(syntax(span, "a scan needs at least one output"));
        }
        args.extend(body.captured.iter().copied());
        sig.n_non_seqs += body.captured.len();
        if let Some(n) = n_steps {
            args.push(n);
            sig.has_n_steps = true;
        }
        let out_tys = self.loop_types(&sig, &args, &body.graph).map_err(&place)?;
        Ok(self.push_scan(sig, body.graph, args, out_tys, span))
    }

    /// Adds a typed loop (clauses `sig`, body `body`, outer arguments
    /// `args`, output types `out_tys`) and one projection per output;
    /// returns the projections.
    pub(super) fn push_scan(
        &mut self,
        sig: LoopSig,
        body: Graph,
        args: Vec<NodeId>,
        out_tys: Vec<Type>,
        span: Span,
    ) -> Vec<NodeId> {
        let scan = Scan { sig, body };
        let scan_id = self.push(Op::Scan(Box::new(scan)), args, out_tys.clone(), None, span);
        out_tys
            .into_iter()
            .enumerate()
            .map(|(k, t)| self.push(Op::Proj(k), vec![scan_id], vec![t], None, span))
            .collect()
    }

    /// The output types of a loop `sig` with outer arguments `args` and
    /// body `body`, by the scan type rule ([`loop_type::output_types`]);
    /// `n_steps` is a literal or a size symbol, or unknown statically.
    pub(super) fn loop_types(
        &self,
        sig: &LoopSig,
        args: &[NodeId],
        body: &Graph,
    ) -> Result<Vec<Type>, LoopTypeError> {
        let arg_tys: Vec<&Type> = args.iter().map(|a| self.ty(*a)).collect();
        let n_steps = sig
            .n_steps_arg()
            .map(|k| match &self.graph().node(args[k]).op {
                Op::Literal(Scalar::I64(v)) => Dim::known(*v),
                Op::Size(s) => Dim::sym(s),
                _ => Dim::Unknown,
            });
        let body_tys: Vec<&Type> = body.outputs.iter().map(|o| body.node(*o).ty()).collect();
        loop_type::output_types(sig, &arg_tys, n_steps, &body_tys)
    }
}
