//! Rule files, conditions, the algebraic rewrites and the saturation runner.
//!
//! Empty until the e-graph issue (issue 4) builds it: it will own the
//! `.rules` format of SPEC §2, loading and checking rules, and the egg
//! runner with its limits. Must not: contain Scan-specific logic.

pub mod analysis;
pub mod check;
pub mod conditions;
pub mod file;

pub use check::{check_rule, check_rules, Counterexample};
pub use conditions::{to_rewrites, Cond, TypedApplier};
pub use file::{load_rules, parse_rules, Rule, RuleError, RuleSpan};
