//! Rule files, conditions and the algebraic rewrites.
//!
//! Owns: the `.rules` format of SPEC §2 ([`file`]), the predicates of
//! conditional rules and type-safe rewrites ([`conditions`]), the soundness
//! checker ([`check`]), the shipped rule sets ([`defaults`]) and the one
//! algebraic rewrite a rule file cannot write ([`count`]: a sum of ones is
//! the element count, from the shape). The
//! e-class analysis, value ranges and the runner are in [`crate::egraph`].
//! Must not: contain Scan-specific logic (that is `scan_rules`).

pub mod check;
pub mod conditions;
pub mod count;
pub mod defaults;
pub mod file;

pub use check::{check_rule, check_rules, Counterexample};
pub use conditions::{to_rewrites, Cond, TypedApplier};
pub use file::{load_rules, parse_rules, Rule, RuleError, RuleSpan};
