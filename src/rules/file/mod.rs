//! The `.rules` format (SPEC §2): reading rule files into [`Rule`]s.
//!
//! Owns: the [`Rule`] type, the entry points [`parse_rules`] (one file's
//! text) and [`load_rules`] (files and folders), and the check that no two
//! rules share a name. The steps live in the submodules: `split` (text
//! to rules' characters and tokens), `pattern` (one side to a checked
//! pattern), `if_clause` (the conditions), `rule` (one whole rule and
//! its variable checks), `load` (files on disk) and `error`
//! ([`RuleError`] with its `FILE:LINE:COL`, collected ISLE style, not
//! first-fail).
//! Must not: build rewrites (see [`super::conditions::to_rewrites`]) or
//! evaluate rules (see [`super::check`]).

mod error;
mod if_clause;
mod load;
mod pattern;
mod rule;
mod split;

pub use error::{RuleError, RuleSpan};
pub use load::load_rules;

use super::conditions::Cond;
use crate::egraph::term::TNode;
use egg::Pattern;
use error::Ctx;
use rule::parse_one;
use split::split_rules;
use std::collections::BTreeMap;
use std::fmt;

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

pub(super) fn check_duplicates(rules: &[Rule], errors: &mut Vec<RuleError>) {
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
