//! `eqscan rules check`: parse rule files and test every rule for
//! soundness.

use super::args::seconds;
use super::{emit_line, rule_errors, UserError};
use std::path::PathBuf;

// The actions of `rules`.
#[derive(clap::Subcommand)]
pub enum Action {
    /// Parse rule files and test each rule for soundness by evaluating both
    /// sides on random tensors and edge values; exit 1 if any rule is
    /// unsound or changes a type or shape.
    Check {
        /// Rule files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Stop (exit 1) if checking takes longer than SECS seconds.
        #[arg(long, value_name = "SECS", default_value_t = 60.0)]
        time_limit: f64,
    },
}

/// Runs the action.
pub fn run(action: Action) -> Result<(), UserError> {
    let Action::Check { paths, time_limit } = action;
    let rules = eqscan::rules::load_rules(&paths).map_err(|e| UserError(rule_errors(&e)))?;
    let findings = eqscan::rules::check::check_rules_within(&rules, seconds(time_limit))
        .map_err(|e| UserError(e.to_string()))?;
    for (name, cx) in &findings {
        let at = rules
            .iter()
            .find(|r| &r.name == name)
            .map(|r| format!("{}:{}:{}: ", r.file, r.line, r.col))
            .unwrap_or_default();
        emit_line(&format!("{at}{name}: {cx}"));
    }
    if findings.is_empty() {
        emit_line(&format!(
            "{} rules checked: all sound and safe at extreme magnitudes, none changes a type or shape",
            rules.len()
        ));
        Ok(())
    } else {
        Err(UserError(format!(
            "{} of {} rules are unsound, unsafe or change a type or shape",
            findings.len(),
            rules.len()
        )))
    }
}
