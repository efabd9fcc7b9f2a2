//! One side of a rule: tokens to a checked egg [`Pattern`].
//!
//! Owns: reading tokens into position-carrying s-expressions, checking each
//! op name, arity, literal, dtype and pattern variable against the term
//! language, and handing the checked text to egg's pattern parser
//! ([`Side`]).
//! Must not: split a rule at its arrow, parse conditions or check that
//! variables are bound (see [`super::rule`]).

use super::error::{Ctx, RuleError};
use super::split::Tok;
use crate::egraph::term::{FromOpError, Head, TNode};
use egg::{FromOp, Id, Pattern, Var};

/// An s-expression with positions.
#[derive(Clone, Debug)]
enum Tree {
    Atom(Tok),
    List(Tok, Vec<Tree>),
}
/// Reads s-expressions from tokens (parentheses are balanced by
/// [`super::split::split_rules`]; `,` is not allowed inside a pattern).
fn read_trees(toks: &[Tok], cx: &mut Ctx<'_>) -> Option<Vec<Tree>> {
    fn one(toks: &[Tok], i: &mut usize, cx: &mut Ctx<'_>) -> Option<Tree> {
        let t = toks.get(*i)?.clone();
        *i += 1;
        match t.text.as_str() {
            "(" => {
                let mut items = Vec::new();
                loop {
                    match toks.get(*i) {
                        None => {
                            cx.syntax(
                                t.line,
                                t.col,
                                "unbalanced parentheses: this '(' is never closed",
                            );
                            return None;
                        }
                        Some(c) if c.text == ")" => {
                            *i += 1;
                            return Some(Tree::List(t, items));
                        }
                        Some(_) => items.push(one(toks, i, cx)?),
                    }
                }
            }
            ")" => {
                cx.syntax(
                    t.line,
                    t.col,
                    "unbalanced parentheses: this ')' closes nothing",
                );
                None
            }
            "," => {
                cx.syntax(t.line, t.col, "unexpected ',' inside a pattern");
                None
            }
            _ => Some(Tree::Atom(t)),
        }
    }
    let mut i = 0;
    let mut out = Vec::new();
    while i < toks.len() {
        out.push(one(toks, &mut i, cx)?);
    }
    Some(out)
}

/// Checks a pattern tree; returns its text for egg's parser and collects
/// its variables with their positions.
fn check_tree(t: &Tree, in_type: bool, vars: &mut Vec<(Var, Tok)>, cx: &mut Ctx<'_>) -> String {
    match t {
        Tree::Atom(tok) => {
            let s = tok.text.as_str();
            if let Some(name) = s.strip_prefix('?') {
                match s.parse::<Var>() {
                    Ok(v) if !name.is_empty() => vars.push((v, tok.clone())),
                    _ => cx.syntax(tok.line, tok.col, format!("bad pattern variable '{s}'")),
                }
                return s.to_string();
            }
            match TNode::from_op(s, Vec::new()) {
                Ok(TNode {
                    head: Head::Size(_),
                    ..
                }) if !in_type => {
                    let span = cx.at(tok);
                    cx.errors.push(RuleError::UnknownName {
                        span,
                        name: s.to_string(),
                    });
                }
                Ok(_) => {}
                Err(e) => push_from_op(e, tok, cx),
            }
            s.to_string()
        }
        Tree::List(open, items) => {
            let Some((head, args)) = items.split_first() else {
                cx.syntax(open.line, open.col, "empty list '()'");
                return "()".to_string();
            };
            let Tree::Atom(h) = head else {
                cx.syntax(open.line, open.col, "a list must start with an op name");
                return "()".to_string();
            };
            if h.text.starts_with('?') {
                cx.syntax(h.line, h.col, "a pattern variable cannot stand for an op");
            }
            let dummy = vec![Id::from(0usize); args.len()];
            let is_type = match TNode::from_op(&h.text, dummy) {
                Ok(TNode {
                    head: Head::Type(_),
                    ..
                }) => true,
                Ok(_) => false,
                Err(e) => {
                    push_from_op(e, h, cx);
                    false
                }
            };
            let mut s = format!("({}", h.text);
            for a in args {
                s.push(' ');
                s.push_str(&check_tree(a, is_type, vars, cx));
            }
            s.push(')');
            s
        }
    }
}

fn push_from_op(e: FromOpError, tok: &Tok, cx: &mut Ctx<'_>) {
    let span = cx.at(tok);
    cx.errors.push(match e {
        FromOpError::UnknownOp(op) => RuleError::UnknownOp { span, op },
        FromOpError::Arity { op, n } => RuleError::Arity { span, op, n },
        FromOpError::BadLiteral(msg) => RuleError::BadLiteral { span, msg },
    });
}

/// One side of a rule: its pattern, variables (with positions) and the
/// position of its first token.
pub(super) struct Side {
    pub(super) pat: Pattern<TNode>,
    pub(super) vars: Vec<(Var, Tok)>,
    pub(super) first: Tok,
}

pub(super) fn side(toks: &[Tok], what: &str, at: &Tok, cx: &mut Ctx<'_>) -> Option<Side> {
    let Some(first) = toks.first().cloned() else {
        cx.syntax(at.line, at.col, format!("the {what} side is empty"));
        return None;
    };
    let n_err = cx.errors.len();
    let trees = read_trees(toks, cx)?;
    if trees.len() != 1 {
        let extra = trees.get(1).map(|t| match t {
            Tree::Atom(t) | Tree::List(t, _) => t.clone(),
        });
        let t = extra.unwrap_or_else(|| first.clone());
        cx.syntax(
            t.line,
            t.col,
            format!("the {what} side must be one expression; this starts a second"),
        );
        return None;
    }
    let mut vars = Vec::new();
    let text = check_tree(&trees[0], false, &mut vars, cx);
    if cx.errors.len() > n_err {
        return None;
    }
    match text.parse::<Pattern<TNode>>() {
        Ok(pat) => Some(Side { pat, vars, first }),
        Err(e) => {
            let span = cx.at(&first);
            cx.errors.push(RuleError::Pattern {
                span,
                msg: format!("the {what} side does not parse: {e}"),
            });
            None
        }
    }
}
