//! A `fn` clause: a loop body as a nested graph.
//!
//! Owns: the parameter list (its count against the loop's parameter types,
//! the combinators' written order), the body's own scope with its `let`s
//! and `outputs`, and moving the captured outer names to trailing
//! parameters ([`Body`]).
//! Must not: decide the parameter types (the caller does, from the loop's
//! signature).

use super::{arity, syntax, type_err, Frame, Parser};
use crate::lang::error::LangError;
use crate::lang::program::{Graph, NodeId, Span};
use crate::lang::sexp::Sexp;
use crate::lang::shape::Type;
use crate::lang::Op;
use std::collections::BTreeSet;

/// What a `fn` clause produced: its graph and the outer values its
/// closures captured (extra non-sequences, in order).
pub(super) struct Body {
    pub(super) graph: Graph,
    pub(super) captured: Vec<NodeId>,
    /// Where `(until COND)` was written, when the body ends with one: its
    /// condition is then the graph's last output.
    pub(super) until: Option<Span>,
}

impl Parser {
    /// Parses `(fn (PARAM ...) (let ...) ... BODY)` as a new graph whose
    /// parameters have `param_tys`. `order`, when given, maps the written
    /// parameter list to positions (combinators write `(acc x)` for a scan
    /// that takes `x` first).
    pub(super) fn fn_body(
        &mut self,
        s: &Sexp,
        param_tys: &[Type],
        order: Option<&[usize]>,
    ) -> Result<Body, LangError> {
        let span = s.span();
        let parts = match s.list() {
            Some(p) if s.head() == Some("fn") && p.len() >= 3 => p,
            _ => return Err(syntax(span, "expected (fn (PARAM ...) BODY)")),
        };
        let params = parts[1]
            .list()
            .ok_or_else(|| syntax(parts[1].span(), "expected the parameter list (PARAM ...)"))?;
        if params.len() != param_tys.len() {
            let what = if order.is_some() {
                format!("{} parameters", param_tys.len())
            } else {
                format!(
                    "{} parameters (one per sequence tap, one per state tap, one per non-sequence)",
                    param_tys.len()
                )
            };
            return Err(type_err(
                parts[1].span(),
                "fn",
                format!("takes {what}, got {}", params.len()),
            ));
        }
        let mut written: Vec<(String, Span)> = Vec::new();
        for p in params {
            written.push((self.binder_name(p)?, p.span()));
        }
        let mut in_order: Vec<Option<(String, Span)>> = vec![None; written.len()];
        for (i, w) in written.into_iter().enumerate() {
            let pos = order.map_or(i, |o| o[i]);
            in_order[pos] = Some(w);
        }
        self.frames.push(Frame::new());
        let result = (|| {
            for (k, (w, ty)) in in_order.iter().zip(param_tys).enumerate() {
                let Some((name, pspan)) = w else { continue };
                let id = self.push(
                    Op::Input(k),
                    vec![],
                    vec![ty.clone()],
                    Some(name.clone()),
                    *pspan,
                );
                self.frame().graph.n_params += 1;
                self.bind(name, id, *pspan)?;
            }
            let body_items = &parts[2..];
            let (lets, last) = body_items.split_at(body_items.len() - 1);
            for l in lets {
                if l.head() != Some("let") {
                    return Err(syntax(
                        l.span(),
                        "only (let ...) clauses may come before the body of a fn",
                    ));
                }
                self.let_clause(l)?;
            }
            let last = &last[0];
            if last.head() == Some("until") {
                return Err(syntax(
                    last.span(),
                    "(until COND) goes last in (outputs E ... (until COND)), after the loop's outputs",
                ));
            }
            let mut until = None;
            let outputs = if last.head() == Some("outputs") {
                let mut es = &last.list().unwrap_or(&[])[1..];
                if let Some(pos) = es.iter().position(|e| e.head() == Some("until")) {
                    let clause = &es[pos];
                    if pos + 1 != es.len() {
                        return Err(syntax(
                            clause.span(),
                            "(until COND) must be the last element of (outputs ...)",
                        ));
                    }
                    let cond = match clause.list() {
                        Some([_, c]) => c,
                        _ => {
                            let n = clause.list().map_or(0, |l| l.len().saturating_sub(1));
                            return Err(arity(clause.span(), "until", "1 argument (COND)", n));
                        }
                    };
                    until = Some((clause.span(), cond));
                    es = &es[..pos];
                }
                if es.is_empty() {
                    return Err(arity(last.span(), "outputs", "1 or more expressions", 0));
                }
                let mut outs = self.exprs(es)?;
                if let Some((_, cond)) = until {
                    outs.push(self.expr(cond)?);
                }
                outs
            } else {
                vec![self.expr(last)?]
            };
            Ok((outputs, until.map(|u| u.0)))
        })();
        let frame = self.frames.pop().unwrap_or_else(Frame::new);
        let (outputs, until) = result?;
        let mut body = finish_body(frame, outputs);
        body.until = until;
        Ok(body)
    }
}

/// Moves captured parameters right after the declared ones (they are extra
/// non-sequences) and renumbers the graph.
fn finish_body(frame: Frame, outputs: Vec<NodeId>) -> Body {
    let Frame {
        mut graph,
        captures,
        ..
    } = frame;
    graph.outputs = outputs;
    let n_decl = graph.n_params;
    let captured_inner: Vec<NodeId> = captures.iter().map(|c| c.1).collect();
    let mut order: Vec<usize> = (0..n_decl).collect();
    order.extend(captured_inner.iter().map(|c| c.0));
    let is_capture: BTreeSet<usize> = captured_inner.iter().map(|c| c.0).collect();
    order.extend((n_decl..graph.nodes.len()).filter(|i| !is_capture.contains(i)));
    let mut new_of = vec![0usize; graph.nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new;
    }
    let mut nodes = Vec::with_capacity(graph.nodes.len());
    let mut spans = Vec::with_capacity(graph.nodes.len());
    for &old in &order {
        let mut n = graph.nodes[old].clone();
        n.args = n.args.iter().map(|a| NodeId(new_of[a.0])).collect();
        if new_of[old] >= n_decl && new_of[old] < n_decl + captured_inner.len() {
            n.op = Op::Input(new_of[old]);
        }
        nodes.push(n);
        spans.push(graph.span(NodeId(old)));
    }
    graph.outputs = graph.outputs.iter().map(|o| NodeId(new_of[o.0])).collect();
    graph.nodes = nodes;
    graph.spans = spans;
    graph.n_params = n_decl + captured_inner.len();
    Body {
        graph,
        captured: captures.iter().map(|c| c.0).collect(),
        until: None,
    }
}
