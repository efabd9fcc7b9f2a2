//! From a rule file's text to rules' characters and tokens.
//!
//! Owns: splitting a file into rules (one per line, continued while
//! parentheses are open, `#` comments, stray control characters, the
//! nesting bound) with every character's position ([`At`]), and cutting one
//! rule's characters into tokens ([`Tok`]: `(`, `)`, `,` or an atom).
//! Must not: look at what the tokens mean (patterns, conditions, the arrow);
//! see the sibling modules.

use super::error::Ctx;
use crate::lang::sexp::MAX_DEPTH;

/// A character with its position.
#[derive(Clone, Copy, Debug)]
pub(super) struct At {
    pub(super) c: char,
    pub(super) line: usize,
    pub(super) col: usize,
}

/// A token of a rule: `(`, `)`, `,` or an atom.
#[derive(Clone, Debug)]
pub(super) struct Tok {
    pub(super) text: String,
    pub(super) line: usize,
    pub(super) col: usize,
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
pub(super) fn split_rules(text: &str, cx: &mut Ctx<'_>) -> Vec<Vec<At>> {
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

pub(super) fn tokenize(chars: &[At]) -> Vec<Tok> {
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
