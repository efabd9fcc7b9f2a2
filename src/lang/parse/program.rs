//! The top level of a program and `let`.
//!
//! Owns: `(program NAME ...)` with its `input`, `shared`, `let`, `update`
//! and `output` clauses (their order, arity and the update's type against
//! its shared variable), binder names, and `let` with one name or a
//! destructuring list of names.
//! Must not: parse expressions (see [`super::expr`]) or types (see
//! [`super::literal`]).

use super::literal::is_identifier;
use super::{arity, syntax, type_err, Frame, Parser};
use crate::lang::error::LangError;
use crate::lang::loop_type;
use crate::lang::program::{NodeId, Program, SharedVars, Span};
use crate::lang::sexp::Sexp;
use crate::lang::shape::Type;
use crate::lang::Op;

impl Parser {
    pub(super) fn program(&mut self, s: &Sexp) -> Result<Program, LangError> {
        let items = match s {
            Sexp::List(items, _) if s.head() == Some("program") => items,
            _ => return Err(syntax(s.span(), "expected (program NAME ...)")),
        };
        let name = match items.get(1).and_then(|n| n.atom()) {
            Some(n) => n.to_string(),
            None => return Err(syntax(s.span(), "expected a name after 'program'")),
        };
        let mut outputs = None;
        let mut seen_let = false;
        // Shared variables: (name, type, where declared).
        let mut shared: Vec<(String, Type, Span)> = Vec::new();
        // Updates: (shared index, value) in the order written.
        let mut updates: Vec<(usize, NodeId)> = Vec::new();
        for item in &items[2..] {
            let span = item.span();
            let parts = item.list().ok_or_else(|| {
                syntax(
                    span,
                    "expected (input ...), (shared ...), (let ...), (update ...) or (output ...)",
                )
            })?;
            match item.head() {
                Some(kw @ ("input" | "shared")) => {
                    if seen_let {
                        return Err(syntax(
                            span,
                            format!(
                                "{} must come before the first let",
                                if kw == "input" {
                                    "inputs"
                                } else {
                                    "shared variables"
                                }
                            ),
                        ));
                    }
                    if kw == "input" && !shared.is_empty() {
                        return Err(syntax(span, "inputs must come before the shared variables"));
                    }
                    if parts.len() != 3 {
                        return Err(arity(span, kw, "a name and a type", parts.len() - 1));
                    }
                    let name = self.binder_name(&parts[1])?;
                    let ty = self.parse_decl_type(&parts[2])?;
                    if ty.dtype.is_key() {
                        return Err(syntax(
                            parts[2].span(),
                            format!(
                                "{} cannot be a key: keys are made in the program, with (key SEED)",
                                if kw == "input" {
                                    "an input"
                                } else {
                                    "a shared variable"
                                }
                            ),
                        ));
                    }
                    if kw == "shared" && ty.is_list() {
                        return Err(syntax(
                            parts[2].span(),
                            "a shared variable cannot be a list yet (issue 41): make it an input",
                        ));
                    }
                    // Its own type may have made the name a size: `(input
                    // N (f64 N))` (a loop capturing N would then print a
                    // binding of a size's name, which does not parse).
                    self.binder_name(&parts[1])?;
                    let k = self.graph().n_params;
                    let id = self.push(
                        Op::Input(k),
                        vec![],
                        vec![ty.clone()],
                        Some(name.clone()),
                        parts[1].span(),
                    );
                    self.frame().graph.n_params += 1;
                    self.bind(&name, id, parts[1].span())?;
                    if kw == "shared" {
                        shared.push((name, ty, parts[1].span()));
                    }
                }
                Some("let") => {
                    seen_let = true;
                    self.let_clause(item)?;
                }
                Some("update") => {
                    seen_let = true;
                    if parts.len() != 3 {
                        return Err(arity(
                            span,
                            "update",
                            "a shared variable and an expression",
                            parts.len() - 1,
                        ));
                    }
                    let name = parts[1]
                        .atom()
                        .ok_or_else(|| syntax(parts[1].span(), "expected a shared variable"))?;
                    let Some(j) = shared.iter().position(|(n, _, _)| n == name) else {
                        return Err(syntax(
                            parts[1].span(),
                            format!("'{name}' is not a shared variable"),
                        ));
                    };
                    if updates.iter().any(|(k, _)| *k == j) {
                        return Err(syntax(
                            parts[1].span(),
                            format!("'{name}' is updated twice"),
                        ));
                    }
                    let id = self.expr(&parts[2])?;
                    let (vt, st) = (self.ty(id).clone(), &shared[j].1);
                    if !loop_type::update_fits_state(&vt, st) {
                        return Err(type_err(
                            parts[2].span(),
                            "update",
                            format!(
                                "the new value of '{name}' has type {vt}, the variable has type {st}"
                            ),
                        ));
                    }
                    updates.push((j, id));
                }
                Some("output") => {
                    if outputs.is_some() {
                        return Err(syntax(span, "a program has one (output ...) clause"));
                    }
                    if parts.len() < 2 {
                        return Err(arity(span, "output", "1 or more expressions", 0));
                    }
                    let mut outs = Vec::new();
                    for e in &parts[1..] {
                        outs.push(self.expr(e)?);
                    }
                    outputs = Some(outs);
                }
                _ => return Err(syntax(
                    span,
                    "expected (input ...), (shared ...), (let ...), (update ...) or (output ...)",
                )),
            }
        }
        let Some(mut outputs) = outputs else {
            return Err(syntax(s.span(), "the program has no (output ...) clause"));
        };
        outputs.extend(updates.iter().map(|(_, id)| *id));
        let mut frame = self.frames.pop().unwrap_or_else(Frame::new);
        frame.graph.outputs = outputs;
        Ok(Program {
            name,
            graph: frame.graph,
            shared: SharedVars {
                count: shared.len(),
                updates: updates.into_iter().map(|(j, _)| j).collect(),
            },
        })
    }

    pub(super) fn binder_name(&self, s: &Sexp) -> Result<String, LangError> {
        match s.atom() {
            Some(a) if is_identifier(a) => {
                if self.sizes.contains(a) {
                    return Err(syntax(
                        s.span(),
                        format!("'{a}' is a symbolic size; it cannot be bound as a name"),
                    ));
                }
                Ok(a.to_string())
            }
            _ => Err(syntax(s.span(), "expected a name")),
        }
    }

    pub(super) fn let_clause(&mut self, item: &Sexp) -> Result<(), LangError> {
        let span = item.span();
        let parts = item.list().unwrap_or(&[]);
        if parts.len() != 3 {
            return Err(arity(
                span,
                "let",
                "a name and an expression",
                parts.len().saturating_sub(1),
            ));
        }
        match &parts[1] {
            Sexp::Atom(..) => {
                let name = self.binder_name(&parts[1])?;
                let id = self.expr(&parts[2])?;
                let node = &mut self.frame().graph.nodes[id.0];
                if node.name.is_none() && !matches!(node.op, Op::Input(_)) {
                    node.name = Some(name.clone());
                }
                self.bind(&name, id, parts[1].span())
            }
            Sexp::List(names, nspan) => {
                if names.is_empty() {
                    return Err(syntax(*nspan, "expected one or more names"));
                }
                let names: Vec<(String, Span)> = names
                    .iter()
                    .map(|n| Ok((self.binder_name(n)?, n.span())))
                    .collect::<Result<_, LangError>>()?;
                // `(let (sign _) (slogdet A))`: `_` makes no node (what
                // the printer writes for a result the program does not
                // read).
                if let (Some("slogdet"), 2) = (parts[2].head(), names.len()) {
                    let rest = parts[2].list().map_or(&[][..], |l| &l[1..]);
                    let keep = [names[0].0 != "_", names[1].0 != "_"];
                    let ids = self.slogdet(rest, parts[2].span(), keep)?;
                    for ((name, nspan), id) in names.into_iter().zip(ids) {
                        let Some(id) = id else { continue };
                        let node = &mut self.frame().graph.nodes[id.0];
                        if node.name.is_none() {
                            node.name = Some(name.clone());
                        }
                        self.bind(&name, id, nspan)?;
                    }
                    return Ok(());
                }
                let ids = self.expr_multi(&parts[2])?;
                if ids.len() != names.len() {
                    return Err(syntax(
                        *nspan,
                        format!(
                            "{} names for an expression with {} results",
                            names.len(),
                            ids.len()
                        ),
                    ));
                }
                for ((name, nspan), id) in names.into_iter().zip(ids) {
                    let node = &mut self.frame().graph.nodes[id.0];
                    if node.name.is_none() {
                        node.name = Some(name.clone());
                    }
                    self.bind(&name, id, nspan)?;
                }
                Ok(())
            }
        }
    }
}
