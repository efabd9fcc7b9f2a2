//! `--memory-budget`: rnn_grad run under a budget of half the bytes of the
//! forward trace its backward loop reads (`H`, `T × N` values) stays within
//! it (`peak_bytes`, the executor's own storage), and gives the outputs of
//! the unbudgeted run and of `grad_reference.py`'s best form
//! (`tests/fixtures/memory_budget/rnn_grad/`, written by
//! `tests/memory_budget_reference.py`), within 1e-9 relative. The
//! rewrites that make it fit, `scan-checkpoint` and `scan-sum-into-loop`,
//! are in the report's `rules_applied` and in `explain`'s chain.
//!
//! The figure is at T = 50,000, N = 256 (benches/RESULTS.md); this
//! test runs T = 2000, N = 32, the budget computed the same way.

mod common;

use common::{compare, expected_outputs, root};
use eqscan::exec::npy::read_npy;
use eqscan::exec::run::Dims;
use eqscan::lang::{parse_program, Program};
use eqscan::session::{run, OptimizerSettings, RunOptions, RunResult};
use std::collections::BTreeMap;

const T: i64 = 2000;
const N: i64 = 32;

const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-12;

/// Half of what the trace `H` the backward loop reads needs.
const BUDGET: u64 = (T * N * 8 / 2) as u64;

fn program() -> Program {
    let path = root().join("benches/programs/rnn_grad.sexp");
    let text = std::fs::read_to_string(&path).expect("rnn_grad.sexp");
    parse_program(&text).expect("parse")
}

fn dims() -> Dims {
    Dims::from([("T".to_string(), T), ("N".to_string(), N)])
}

fn settings(budget: Option<u64>) -> OptimizerSettings {
    OptimizerSettings {
        memory_budget: budget,
        ..OptimizerSettings::default()
    }
}

fn run_with(budget: Option<u64>) -> RunResult {
    run_steps(T, budget)
}

fn run_steps(t: i64, budget: Option<u64>) -> RunResult {
    let scales: BTreeMap<String, f64> = [("W", 1.0 / 16.0), ("U", 1.0 / 16.0)]
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    let opts = RunOptions {
        gen: true,
        scales,
        dims: Dims::from([("T".to_string(), t), ("N".to_string(), N)]),
        optimizer: Some(settings(budget)),
        ..RunOptions::default()
    };
    let r = run(&program(), &opts).expect("run");
    assert!(r.optimized_error.is_none(), "{:?}", r.optimized_error);
    r
}

#[test]
fn rnn_grad_runs_within_half_its_trace() {
    let stored = run_with(None);
    let budgeted = run_with(Some(BUDGET));
    // The stored form needs more than the budget (else the test shows
    // nothing), the budgeted one fits.
    assert!(
        stored.peak_bytes as u64 > BUDGET,
        "unbudgeted peak {} is within {BUDGET}",
        stored.peak_bytes
    );
    assert!(
        budgeted.peak_bytes as u64 <= BUDGET,
        "peak {} over the budget {BUDGET}",
        budgeted.peak_bytes
    );
    assert_eq!(budgeted.outputs.len(), 5);
    for (k, (got, want)) in budgeted.outputs.iter().zip(&stored.outputs).enumerate() {
        compare(got, want, RTOL, ATOL).unwrap_or_else(|e| panic!("out_{k} vs unbudgeted: {e}"));
    }
    let files = expected_outputs(&root().join("tests/fixtures/memory_budget/rnn_grad"));
    assert_eq!(files.len(), 5, "the grad_reference.py fixtures");
    for (k, (got, file)) in budgeted.outputs.iter().zip(&files).enumerate() {
        let want = read_npy(file).expect("fixture");
        compare(got, &want, RTOL, ATOL).unwrap_or_else(|e| panic!("out_{k} vs NumPy: {e}"));
    }
}

/// A prime step count (2003: no divisor near its root) is checkpointed
/// with a prefix of 23 steps before 45 segments of 44: the outputs are the
/// stored form's, and the peak falls by an order of magnitude (not to the
/// budget itself: the cost model prices each allocation, not their sum at
/// the peak; docs/trust.md, "Memory budget of the optimizer").
#[test]
fn a_prime_step_count_is_checkpointed_with_a_prefix() {
    const T_PRIME: i64 = 2003;
    let budget = (T_PRIME * N * 8 / 2) as u64;
    let stored = run_steps(T_PRIME, None);
    let budgeted = run_steps(T_PRIME, Some(budget));
    assert!(
        budgeted.peak_bytes * 10 < stored.peak_bytes,
        "peak {} under the budget, {} stored",
        budgeted.peak_bytes,
        stored.peak_bytes
    );
    for (k, (got, want)) in budgeted.outputs.iter().zip(&stored.outputs).enumerate() {
        compare(got, want, RTOL, ATOL).unwrap_or_else(|e| panic!("out_{k} vs unbudgeted: {e}"));
    }
}

#[test]
fn budget_report_names_the_rewrites() {
    let p = program();
    let report = settings(Some(BUDGET))
        .optimize(&p, &dims())
        .expect("optimize");
    for rule in ["scan-checkpoint", "scan-sum-into-loop"] {
        assert!(
            report.rules_applied.get(rule).copied().unwrap_or(0) > 0,
            "{rule} not in {:?}",
            report.rules_applied
        );
    }
    // Without a budget neither rule is in the optimizer.
    let plain = settings(None).optimize(&p, &dims()).expect("optimize");
    assert!(!plain.rules_applied.contains_key("scan-checkpoint"));
    assert!(!plain.rules_applied.contains_key("scan-sum-into-loop"));
    // The budgeted form holds the segment loops: the checkpoints' loop and
    // the backward loop over segments, each with an inner loop.
    assert!(
        report.scans_after > plain.scans_after,
        "{} scans under the budget, {} without",
        report.scans_after,
        plain.scans_after
    );
}

/// `explain` under a budget shows both rewrites in the chain (a small
/// gradient program, so the explanation is quick).
#[test]
fn explain_shows_the_rewrites() {
    let text =
        std::fs::read_to_string(root().join("tests/cases/scan_rules/eq_checkpoint_rnn.sexp"))
            .expect("case");
    let p = eqscan::session::expand(&parse_program(&text).expect("parse")).expect("expand");
    let dims = Dims::from([("T".to_string(), 12), ("N".to_string(), 3)]);
    let s = settings(Some(144));
    let lines = eqscan::session::explain(
        &p,
        &s.rewrites_for(&dims).expect("rules"),
        &s.limits,
        &s.cost_model(&dims),
        &s.extractor,
    )
    .expect("explain");
    let text = lines.join("\n");
    for rule in ["scan-checkpoint", "scan-sum-into-loop"] {
        assert!(text.contains(rule), "{rule} not in the explanation");
    }
}
