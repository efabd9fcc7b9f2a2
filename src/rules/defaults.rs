//! The default rule sets, built into the binary: the same text as the
//! repository's `rules/` folder, so `eqscan optimize` works from any folder.
//!
//! Owns: the list of shipped rule files. Must not: define rules (they are
//! data, in `rules/*.rules`).

use super::conditions::to_rewrites;
use super::file::{parse_rules, Rule, RuleError};
use crate::egraph::analysis::TensorAnalysis;
use crate::egraph::term::TNode;

/// `(file name, text)` of every shipped rule file, in load order.
pub const DEFAULT_RULE_FILES: &[(&str, &str)] = &[
    (
        "rules/algebra.rules",
        include_str!("../../rules/algebra.rules"),
    ),
    (
        "rules/linalg.rules",
        include_str!("../../rules/linalg.rules"),
    ),
    (
        "rules/reductions.rules",
        include_str!("../../rules/reductions.rules"),
    ),
    ("rules/shape.rules", include_str!("../../rules/shape.rules")),
    (
        "rules/stable.rules",
        include_str!("../../rules/stable.rules"),
    ),
];

/// The shipped rules.
pub fn default_rules() -> Result<Vec<Rule>, Vec<RuleError>> {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for (file, text) in DEFAULT_RULE_FILES {
        match parse_rules(text, file) {
            Ok(r) => rules.extend(r),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(rules)
    } else {
        Err(errors)
    }
}

/// The shipped rules as rewrites.
pub fn default_rewrites() -> Result<Vec<egg::Rewrite<TNode, TensorAnalysis>>, Vec<RuleError>> {
    Ok(to_rewrites(&default_rules()?))
}
