//! One rule: `NAME: LHS => RHS`, `NAME: LHS <=> RHS`, `... if COND, ...`.
//!
//! Owns: the rule's name, finding its arrow and `if`, and the checks that
//! need both sides: every variable of the right side and of the conditions
//! bound by the left side (both ways for `<=>`), no bare-variable left
//! side; then the one or two directed [`Rule`]s.
//! Must not: check a side's ops and literals (see [`super::pattern`]),
//! parse conditions (see [`super::if_clause`]) or look across rules (see
//! [`super::check_duplicates`]).

use super::error::{Ctx, RuleError};
use super::if_clause::conditions;
use super::pattern::{side, Side};
use super::split::{tokenize, At, Tok};
use super::Rule;
use crate::rules::conditions::Cond;
use egg::{ENodeOrVar, Var};
use std::collections::BTreeSet;

/// Parses one rule's characters into its directed rules (two for `<=>`);
/// none when it has errors, which go to `cx`.
pub(super) fn parse_one(chars: &[At], cx: &mut Ctx<'_>) -> Vec<Rule> {
    let Some(start) = chars.iter().position(|a| !a.c.is_whitespace()) else {
        return Vec::new();
    };
    let chars = &chars[start..];
    let (line, col) = (chars[0].line, chars[0].col);
    let Some(colon) = chars.iter().position(|a| a.c == ':') else {
        cx.syntax(line, col, "expected 'NAME: LHS => RHS'");
        return Vec::new();
    };
    let name: String = chars[..colon]
        .iter()
        .map(|a| a.c)
        .collect::<String>()
        .trim()
        .to_string();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        cx.syntax(
            line,
            col,
            format!("bad rule name '{name}' (use kebab-case words)"),
        );
        return Vec::new();
    }
    let toks = tokenize(&chars[colon + 1..]);
    let name_tok = Tok {
        text: name.clone(),
        line,
        col,
    };
    let mut depth = 0i64;
    let mut arrow = None;
    let mut cond_at = None;
    for (k, t) in toks.iter().enumerate() {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            "=>" | "<=>" if depth == 0 && arrow.is_none() => arrow = Some(k),
            "if" if depth == 0 && arrow.is_some() && cond_at.is_none() => cond_at = Some(k),
            _ => {}
        }
    }
    let Some(ak) = arrow else {
        cx.syntax(line, col, format!("rule '{name}' has no '=>' or '<=>'"));
        return Vec::new();
    };
    let both = toks[ak].text == "<=>";
    let rhs_end = cond_at.unwrap_or(toks.len());
    let lhs = side(&toks[..ak], "left", &toks[ak], cx);
    let rhs = side(&toks[ak + 1..rhs_end], "right", &toks[ak], cx);
    let conds = match cond_at {
        Some(k) => conditions(&toks[k + 1..], &toks[k], cx),
        None => Some(Vec::new()),
    };
    let (Some(lhs), Some(rhs), Some(conds)) = (lhs, rhs, conds) else {
        return Vec::new();
    };
    let lvars: BTreeSet<Var> = lhs.vars.iter().map(|(v, _)| *v).collect();
    let rvars: BTreeSet<Var> = rhs.vars.iter().map(|(v, _)| *v).collect();
    let mut ok = true;
    let mut unbound = |v: &Var, t: &Tok, rule: &str, cx: &mut Ctx<'_>| {
        let span = cx.at(t);
        cx.errors.push(RuleError::UnboundVar {
            span,
            var: v.to_string(),
            rule: rule.to_string(),
        });
        ok = false;
    };
    for (v, t) in &rhs.vars {
        if !lvars.contains(v) {
            unbound(v, t, &name, cx);
        }
    }
    for (c, t) in &conds {
        for v in c.vars() {
            if !lvars.contains(&v) {
                unbound(&v, t, &name, cx);
            }
        }
    }
    if both {
        let rev = format!("{name}-rev");
        for (v, t) in &lhs.vars {
            if !rvars.contains(v) {
                unbound(v, t, &rev, cx);
            }
        }
    }
    let bare = |s: &Side| matches!(s.pat.ast.as_ref().last(), Some(ENodeOrVar::Var(_)));
    if bare(&lhs) {
        let span = cx.at(&lhs.first);
        cx.errors.push(RuleError::BareLhs {
            span,
            rule: name.clone(),
            hint: String::new(),
        });
        ok = false;
    }
    if both && bare(&rhs) {
        let span = cx.at(&rhs.first);
        cx.errors.push(RuleError::BareLhs {
            span,
            rule: format!("{name}-rev"),
            hint: "; write this rule with '=>'".to_string(),
        });
        ok = false;
    }
    if !ok {
        return Vec::new();
    }
    let conds: Vec<Cond> = conds.into_iter().map(|(c, _)| c).collect();
    let mut out = vec![Rule {
        name: name.clone(),
        lhs: lhs.pat.clone(),
        rhs: rhs.pat.clone(),
        conds: conds.clone(),
        file: cx.file.to_string(),
        line: name_tok.line,
        col: name_tok.col,
    }];
    if both {
        out.push(Rule {
            name: format!("{name}-rev"),
            lhs: rhs.pat,
            rhs: lhs.pat,
            conds,
            file: cx.file.to_string(),
            line: name_tok.line,
            col: name_tok.col,
        });
    }
    out
}
