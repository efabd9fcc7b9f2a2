//! Rule files, conditions, the e-class analysis, the algebraic rewrites and
//! the saturation runner.
//!
//! Owns: the `.rules` format of SPEC §2 ([`file`]), the predicates of
//! conditional rules and type-safe rewrites ([`conditions`]), the soundness
//! checker ([`check`]), the shipped rule sets ([`defaults`]), the e-class
//! analysis ([`analysis`]) with its value ranges ([`range`]) and the egg
//! runner with its limits ([`runner`]).
//! Must not: contain Scan-specific logic (that is `scan_rules`).

pub mod check;
pub mod conditions;
pub mod defaults;
pub mod file;

pub use check::{check_rule, check_rules, Counterexample};
pub use conditions::{to_rewrites, Cond, TypedApplier};
pub use file::{load_rules, parse_rules, Rule, RuleError, RuleSpan};
