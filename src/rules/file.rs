//! The `.rules` format (SPEC §2): reading rule files into [`Rule`]s.
//!
//! Owns: splitting a file into rules (one per line, continued while
//! parentheses are open, `#` comments), parsing `NAME: LHS => RHS`,
//! `NAME: LHS <=> RHS` and `... if COND, ...`, checking every op, literal,
//! predicate and variable, and reporting every error of every file with its
//! `FILE:LINE:COL` ([`RuleError`], collected ISLE style, not first-fail).
//! Must not: build rewrites (see [`super::conditions::to_rewrites`]) or
//! evaluate rules (see [`super::check`]).

use super::conditions::{Cond, CondArg, CondError};
use crate::egraph::term::{FromOpError, Head, TNode};
use crate::lang::sexp::MAX_DEPTH;
use egg::{ENodeOrVar, FromOp, Id, Pattern, Var};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// A position in a rule file (1-based line and column, in characters).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RuleSpan {
    /// The file, as given.
    pub file: String,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub col: usize,
}

impl fmt::Display for RuleSpan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// A bad rule file or rule. Displays as `FILE:LINE:COL: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The file or folder cannot be read.
    #[error("{file}: {msg}")]
    Io {
        /// The path.
        file: String,
        /// The system's message.
        msg: String,
    },
    /// Malformed rule text: missing `:` or `=>`, unbalanced parentheses,
    /// a stray token.
    #[error("{span}: {msg}")]
    Syntax {
        /// Where.
        span: RuleSpan,
        /// What is wrong.
        msg: String,
    },
    /// An op name that the language does not have.
    #[error("{span}: unknown op '{op}'")]
    UnknownOp {
        /// Where the op name is.
        span: RuleSpan,
        /// The name.
        op: String,
    },
    /// A known op with the wrong number of arguments.
    #[error("{span}: {op} does not take {n} argument(s)")]
    Arity {
        /// Where the op name is.
        span: RuleSpan,
        /// The op.
        op: String,
        /// The number given.
        n: usize,
    },
    /// A leaf that is neither a variable, a literal, a dtype nor `none`.
    #[error("{span}: unknown name '{name}': a rule's leaves are pattern variables (?x), literals, dtypes or none")]
    UnknownName {
        /// Where.
        span: RuleSpan,
        /// The name.
        name: String,
    },
    /// A malformed literal.
    #[error("{span}: {msg}")]
    BadLiteral {
        /// Where.
        span: RuleSpan,
        /// What is wrong.
        msg: String,
    },
    /// A condition names no known predicate.
    #[error("{span}: unknown predicate '{name}' (see rules/README.md for the list)")]
    UnknownPredicate {
        /// Where the name is.
        span: RuleSpan,
        /// The name.
        name: String,
    },
    /// A condition's arguments do not fit its predicate.
    #[error("{span}: bad condition '{name}': {msg}")]
    BadCondition {
        /// Where the condition is.
        span: RuleSpan,
        /// The predicate.
        name: String,
        /// What is expected.
        msg: String,
    },
    /// A variable on the right side or in a condition that the left side
    /// does not bind.
    #[error("{span}: variable {var} is not bound by the left side of rule '{rule}'")]
    UnboundVar {
        /// Where the variable is.
        span: RuleSpan,
        /// The variable.
        var: String,
        /// The rule.
        rule: String,
    },
    /// A left side that is a bare variable (it would match every class).
    #[error("{span}: the left side of rule '{rule}' is a bare variable, which matches every class{hint}")]
    BareLhs {
        /// Where.
        span: RuleSpan,
        /// The rule.
        rule: String,
        /// A hint (for `<=>` rules).
        hint: String,
    },
    /// Two rules with the same name.
    #[error("{span}: rule '{name}' is defined twice (first at {first})")]
    DuplicateName {
        /// The second definition.
        span: RuleSpan,
        /// The name.
        name: String,
        /// The first definition.
        first: RuleSpan,
    },
    /// egg's pattern parser refused a side (should not happen after the
    /// checks above).
    #[error("{span}: {msg}")]
    Pattern {
        /// The side's first token.
        span: RuleSpan,
        /// egg's message.
        msg: String,
    },
}

impl RuleError {
    /// Where the error is (`None` for I/O errors).
    pub fn span(&self) -> Option<&RuleSpan> {
        match self {
            RuleError::Io { .. } => None,
            RuleError::Syntax { span, .. }
            | RuleError::UnknownOp { span, .. }
            | RuleError::Arity { span, .. }
            | RuleError::UnknownName { span, .. }
            | RuleError::BadLiteral { span, .. }
            | RuleError::UnknownPredicate { span, .. }
            | RuleError::BadCondition { span, .. }
            | RuleError::UnboundVar { span, .. }
            | RuleError::BareLhs { span, .. }
            | RuleError::DuplicateName { span, .. }
            | RuleError::Pattern { span, .. } => Some(span),
        }
    }
}

/// One directed rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Its name (`NAME-rev` for the backward half of a `<=>` rule).
    pub name: String,
    /// The left side (the searcher).
    pub lhs: Pattern<TNode>,
    /// The right side.
    pub rhs: Pattern<TNode>,
    /// Conditions, all of which must hold.
    pub conds: Vec<Cond>,
    /// The file it comes from.
    pub file: String,
    /// Line of its name.
    pub line: usize,
    /// Column of its name.
    pub col: usize,
}

impl fmt::Display for Rule {
    /// The rule in `.rules` syntax (parses back to the same rule).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} => {}", self.name, self.lhs, self.rhs)?;
        if !self.conds.is_empty() {
            let cs: Vec<String> = self.conds.iter().map(|c| c.to_string()).collect();
            write!(f, " if {}", cs.join(", "))?;
        }
        Ok(())
    }
}

/// A character with its position.
#[derive(Clone, Copy, Debug)]
struct At {
    c: char,
    line: usize,
    col: usize,
}

/// A token of a rule: `(`, `)`, `,` or an atom.
#[derive(Clone, Debug)]
struct Tok {
    text: String,
    line: usize,
    col: usize,
}

/// An s-expression with positions.
#[derive(Clone, Debug)]
enum Tree {
    Atom(Tok),
    List(Tok, Vec<Tree>),
}

struct Ctx<'a> {
    file: &'a str,
    errors: Vec<RuleError>,
}

impl Ctx<'_> {
    fn span(&self, line: usize, col: usize) -> RuleSpan {
        RuleSpan {
            file: self.file.to_string(),
            line,
            col,
        }
    }
    fn at(&self, t: &Tok) -> RuleSpan {
        self.span(t.line, t.col)
    }
    fn syntax(&mut self, line: usize, col: usize, msg: impl Into<String>) {
        let span = self.span(line, col);
        self.errors.push(RuleError::Syntax {
            span,
            msg: msg.into(),
        });
    }
}

/// Whether a line starts a new rule (`NAME:` with NAME a plain word).
fn starts_rule(line: &str) -> bool {
    let t = line.trim_start();
    match t.find(':') {
        Some(k) if k > 0 => t[..k]
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '.'),
        _ => false,
    }
}

/// Splits a file into rules: each a run of characters with positions.
fn split_rules(text: &str, cx: &mut Ctx<'_>) -> Vec<Vec<At>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut cur: Vec<At> = Vec::new();
    let mut open: Vec<(usize, usize)> = Vec::new();
    // Set when the current rule had a stray ')': it is dropped, not parsed.
    let mut poisoned = false;
    let flush = |cur: &mut Vec<At>, out: &mut Vec<Vec<At>>, poisoned: &mut bool| {
        if std::mem::take(poisoned) {
            cur.clear();
        } else if cur.iter().any(|a| !a.c.is_whitespace()) {
            out.push(std::mem::take(cur));
        } else {
            cur.clear();
        }
    };
    for (li, line) in lines.iter().enumerate() {
        let ln = li + 1;
        if !open.is_empty() && starts_rule(line) {
            // The previous rule never closed its parentheses; report it and
            // start afresh so later rules are still checked.
            if let Some(&(l, c)) = open.first() {
                cx.syntax(l, c, "unbalanced parentheses: this '(' is never closed");
            }
            open.clear();
            cur.clear();
            poisoned = false;
        }
        for (ci, c) in line.chars().enumerate() {
            let col = ci + 1;
            if c == '#' {
                break;
            }
            if crate::lang::sexp::is_stray_control(c) {
                if !poisoned {
                    cx.syntax(ln, col, crate::lang::sexp::stray_control_msg(c));
                }
                poisoned = true;
                continue;
            }
            match c {
                '(' => {
                    open.push((ln, col));
                    // The program reader's bound: later passes recurse once
                    // per level.
                    if open.len() > MAX_DEPTH {
                        if !poisoned {
                            cx.syntax(
                                ln,
                                col,
                                format!("rule nested deeper than {MAX_DEPTH} levels"),
                            );
                        }
                        poisoned = true;
                    }
                }
                // The guard pops the matching '(' when there is one.
                ')' if open.pop().is_none() => {
                    if !poisoned {
                        cx.syntax(ln, col, "unbalanced parentheses: this ')' closes nothing");
                    }
                    poisoned = true;
                    continue;
                }
                _ => {}
            }
            cur.push(At { c, line: ln, col });
        }
        cur.push(At {
            c: ' ',
            line: ln,
            col: line.chars().count() + 1,
        });
        if open.is_empty() {
            flush(&mut cur, &mut out, &mut poisoned);
        }
    }
    if let Some(&(l, c)) = open.first() {
        cx.syntax(l, c, "unbalanced parentheses: this '(' is never closed");
        cur.clear();
    }
    flush(&mut cur, &mut out, &mut poisoned);
    out
}

fn tokenize(chars: &[At]) -> Vec<Tok> {
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let a = chars[i];
        if a.c.is_whitespace() {
            i += 1;
        } else if matches!(a.c, '(' | ')' | ',') {
            toks.push(Tok {
                text: a.c.to_string(),
                line: a.line,
                col: a.col,
            });
            i += 1;
        } else {
            let mut s = String::new();
            while i < chars.len()
                && !chars[i].c.is_whitespace()
                && !matches!(chars[i].c, '(' | ')' | ',')
            {
                s.push(chars[i].c);
                i += 1;
            }
            toks.push(Tok {
                text: s,
                line: a.line,
                col: a.col,
            });
        }
    }
    toks
}

/// Reads s-expressions from tokens (parentheses are balanced by
/// [`split_rules`]; `,` is not allowed inside a pattern).
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
struct Side {
    pat: Pattern<TNode>,
    vars: Vec<(Var, Tok)>,
    first: Tok,
}

fn side(toks: &[Tok], what: &str, at: &Tok, cx: &mut Ctx<'_>) -> Option<Side> {
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

/// Parses the conditions after `if`.
fn conditions(toks: &[Tok], at: &Tok, cx: &mut Ctx<'_>) -> Option<Vec<(Cond, Tok)>> {
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

fn parse_one(chars: &[At], cx: &mut Ctx<'_>) -> Vec<Rule> {
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

/// Parses the text of one rule file; `file` names it in errors. Returns
/// every rule, or every error.
pub fn parse_rules(text: &str, file: &str) -> Result<Vec<Rule>, Vec<RuleError>> {
    let mut cx = Ctx {
        file,
        errors: Vec::new(),
    };
    let mut rules = Vec::new();
    for chunk in split_rules(text, &mut cx) {
        rules.extend(parse_one(&chunk, &mut cx));
    }
    check_duplicates(&rules, &mut cx.errors);
    if cx.errors.is_empty() {
        Ok(rules)
    } else {
        cx.errors.sort_by_key(|e| e.span().map(|s| (s.line, s.col)));
        Err(cx.errors)
    }
}

fn check_duplicates(rules: &[Rule], errors: &mut Vec<RuleError>) {
    let mut seen: BTreeMap<&str, RuleSpan> = BTreeMap::new();
    for r in rules {
        let span = RuleSpan {
            file: r.file.clone(),
            line: r.line,
            col: r.col,
        };
        if let Some(first) = seen.get(r.name.as_str()) {
            errors.push(RuleError::DuplicateName {
                span,
                name: r.name.clone(),
                first: first.clone(),
            });
        } else {
            seen.insert(&r.name, span);
        }
    }
}

/// The rule files a path stands for: the file itself, or every `*.rules`
/// file of a folder, sorted by name.
fn rule_files(path: &Path) -> Result<Vec<PathBuf>, RuleError> {
    let io = |e: std::io::Error| RuleError::Io {
        file: path.display().to_string(),
        msg: e.to_string(),
    };
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "rules"))
            .collect();
        files.sort();
        Ok(files)
    } else {
        std::fs::metadata(path).map_err(io)?;
        Ok(vec![path.to_path_buf()])
    }
}

/// Loads rules from files and folders (a folder: every `*.rules` in it,
/// sorted by name). Returns every rule, or every error of every file
/// (including rule names defined twice across files).
pub fn load_rules(paths: &[PathBuf]) -> Result<Vec<Rule>, Vec<RuleError>> {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        let files = match rule_files(p) {
            Ok(f) => f,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        for f in files {
            let name = f.display().to_string();
            let text = match std::fs::read(&f) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(t) => t,
                    Err(e) => {
                        errors.push(RuleError::Io {
                            file: name,
                            msg: format!("not valid UTF-8 ({e})"),
                        });
                        continue;
                    }
                },
                Err(e) => {
                    errors.push(RuleError::Io {
                        file: name,
                        msg: e.to_string(),
                    });
                    continue;
                }
            };
            match parse_rules(&text, &name) {
                Ok(rs) => rules.extend(rs),
                Err(es) => errors.extend(es),
            }
        }
    }
    if errors.is_empty() {
        check_duplicates(&rules, &mut errors);
    }
    if errors.is_empty() {
        Ok(rules)
    } else {
        Err(errors)
    }
}
