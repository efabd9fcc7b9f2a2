//! The conditions after a rule's `if`: `pred(?a, ?b), pred2(?c, 1)`.
//!
//! Owns: the syntax of the `if` clause (predicate names, parenthesised
//! arguments that are pattern variables or integers, commas) and mapping
//! [`Cond::parse`]'s refusals to [`RuleError`]s with positions.
//! Must not: define or evaluate predicates (that is
//! [`crate::rules::conditions`]) or check that variables are bound (see
//! [`super::rule`]).

use super::error::{Ctx, RuleError};
use super::split::Tok;
use crate::rules::conditions::{Cond, CondArg, CondError};
use egg::Var;

/// Parses the conditions after `if`.
pub(super) fn conditions(toks: &[Tok], at: &Tok, cx: &mut Ctx<'_>) -> Option<Vec<(Cond, Tok)>> {
    let mut out = Vec::new();
    let mut i = 0;
    if toks.is_empty() {
        cx.syntax(at.line, at.col, "'if' must be followed by conditions");
        return None;
    }
    let mut ok = true;
    while i < toks.len() {
        let name = toks[i].clone();
        if matches!(name.text.as_str(), "(" | ")" | ",") {
            cx.syntax(
                name.line,
                name.col,
                "expected a predicate name, e.g. same-shape(?a, ?b)",
            );
            return None;
        }
        i += 1;
        if toks.get(i).map(|t| t.text.as_str()) != Some("(") {
            cx.syntax(
                name.line,
                name.col,
                format!("expected '(' after the predicate '{}'", name.text),
            );
            return None;
        }
        i += 1;
        let mut args = Vec::new();
        let mut arg_ok = true;
        loop {
            let Some(t) = toks.get(i) else {
                cx.syntax(name.line, name.col, "unbalanced parentheses in a condition");
                return None;
            };
            i += 1;
            match t.text.as_str() {
                ")" => break,
                "," => continue,
                "(" => {
                    cx.syntax(
                        t.line,
                        t.col,
                        "a condition's arguments are variables or integers",
                    );
                    return None;
                }
                s => {
                    if let Some(n) = s.strip_prefix('?').filter(|n| !n.is_empty()) {
                        match format!("?{n}").parse::<Var>() {
                            Ok(v) => args.push((CondArg::Var(v), t.clone())),
                            Err(_) => arg_ok = false,
                        }
                    } else if let Ok(k) = s.parse::<i64>() {
                        args.push((CondArg::Int(k), t.clone()));
                    } else {
                        cx.syntax(t.line, t.col, format!("bad condition argument '{s}'"));
                        arg_ok = false;
                    }
                }
            }
        }
        let plain: Vec<CondArg> = args.iter().map(|(a, _)| a.clone()).collect();
        match Cond::parse(&name.text, &plain) {
            Ok(c) if arg_ok => out.push((c, name.clone())),
            Ok(_) => ok = false,
            Err(CondError::Unknown(n)) => {
                let span = cx.at(&name);
                cx.errors
                    .push(RuleError::UnknownPredicate { span, name: n });
                ok = false;
            }
            Err(CondError::Args(msg)) => {
                let span = cx.at(&name);
                cx.errors.push(RuleError::BadCondition {
                    span,
                    name: name.text.clone(),
                    msg,
                });
                ok = false;
            }
        }
        match toks.get(i).map(|t| t.text.as_str()) {
            None => break,
            Some(",") => i += 1,
            Some(_) => {
                let t = &toks[i];
                cx.syntax(t.line, t.col, "expected ',' between conditions");
                return None;
            }
        }
    }
    ok.then_some(out)
}
