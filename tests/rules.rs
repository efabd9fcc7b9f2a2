//! The rule-file layer: loading, errors with spans, soundness checks of the
//! shipped rules, and type-safe rewriting in the e-graph.

use eqscan::lang::egraph::program_to_expr;
use eqscan::lang::parse_program;
use eqscan::rules::analysis::{EGraph, TensorAnalysis};
use eqscan::rules::check::Finding;
use eqscan::rules::{check_rule, load_rules, parse_rules, to_rewrites, Rule, RuleError};
use std::path::PathBuf;

fn shipped() -> Vec<Rule> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules");
    match load_rules(&[dir]) {
        Ok(r) => r,
        Err(es) => panic!(
            "{}",
            es.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
        ),
    }
}

#[test]
fn every_shipped_rule_file_loads() {
    let rules = shipped();
    assert!(rules.len() > 50, "{} rules", rules.len());
    for f in ["algebra.rules", "linalg.rules", "reductions.rules"] {
        assert!(rules.iter().any(|r| r.file.ends_with(f)), "{f}");
    }
}

#[test]
fn every_shipped_rule_passes_the_check() {
    let mut bad = Vec::new();
    for r in shipped() {
        if let Err(c) = check_rule(&r, 200, 7) {
            bad.push(format!("{} ({}:{}): {c}", r.name, r.file, r.line));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
