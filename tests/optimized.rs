//! The optimized form of every program in `examples/`,
//! `benches/programs/` and `benches/programs/held/`, as `eqscan optimize` prints it (default rules and
//! Scan rewrites, default limits, the default cost model), recorded as
//! insta snapshots
//! (`tests/snapshots/optimized__bench__NAME.snap`, `..__example__NAME.snap`,
//! `..__held__NAME.snap`),
//! each headed by the cost before and after and the stop reason
//! (`common::optimized_snapshot`). One trial per program, named
//! `bench::NAME` or `example::NAME`:
//! `cargo test --release --test optimized -- bench::rnn`.
//!
//! The time limit is raised to 60 s (as in `tests/scan_rules.rs`) so that
//! every run stops on saturation or the deterministic iteration and node
//! limits (today every one saturates; the snapshot header says so): a run
//! cut by the clock would make its snapshot depend on the machine, so a
//! run stopped by time fails.
//!
//! For each program: optimizing it twice in one process prints the same
//! text (determinism), and the optimized program computes the original's
//! outputs within 1e-9 at small sizes, on the data rule's inputs (a held
//! program at its header's `; dims:` and `; scale:`: GARCH-t's backcast
//! reads 75 returns).
//!
//! When the rules or the Scan rewrites change, review the new forms and
//! regenerate: `INSTA_UPDATE=always cargo test --release --test optimized`.

mod common;

use common::harness::{self, file_trials};
use common::{optimized_snapshot, rel, stem};
use eqscan::egraph::analysis::TensorAnalysis;
use eqscan::egraph::runner::Limits;
use eqscan::egraph::term::TNode;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::Value;
use eqscan::extract::CostModel;
use eqscan::lang::{parse_program, print_program, Program};
use eqscan::optimize::{optimize, Report};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const TOL: f64 = 1e-9;

/// Sizes the programs run at here (small).
fn run_dims() -> Dims {
    [("T", 8), ("D", 5), ("N", 6), ("M", 4)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

fn rewrites() -> Vec<egg::Rewrite<TNode, TensorAnalysis>> {
    match eqscan::optimize::default_rewrites() {
        Ok(r) => r,
        Err(es) => panic!("the default rules do not load: {es:?}"),
    }
}

fn load(path: &Path) -> Program {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", rel(path)));
    let p = parse_program(&text).unwrap_or_else(|e| panic!("{}", e.located(&rel(path))));
    // The gradient workloads hold `grad`s: optimized, as `eqscan optimize`
    // does, after expansion.
    eqscan::grad::expand(&p).unwrap_or_else(|e| panic!("{}: {e}", rel(path)))
}

fn optimize_default(p: &Program, rewrites: &[egg::Rewrite<TNode, TensorAnalysis>]) -> Report {
    let limits = Limits {
        time_limit: Duration::from_secs(60),
        ..Limits::default()
    };
    let r = optimize(p, rewrites, &limits, &CostModel::default())
        .unwrap_or_else(|e| panic!("{}: {e}", p.name));
    assert_ne!(
        r.stop_reason, "time_limit",
        "{}: saturation stopped on the time limit: the result depends on the machine",
        p.name
    );
    r
}

fn outputs(p: &Program, what: &str, dims: &Dims, scales: &BTreeMap<String, f64>) -> Vec<Value> {
    let inputs = generate_inputs(p, dims, scales).unwrap_or_else(|e| panic!("{what}: inputs: {e}"));
    run_program(p, inputs, dims).unwrap_or_else(|e| panic!("{what}: run: {e}"))
}

/// Checks one program and its snapshot `PREFIX__STEM`.
fn check_file(path: &Path, prefix: &str, rewrites: &[egg::Rewrite<TNode, TensorAnalysis>]) {
    let what = rel(path);
    let p = load(path);
    let first = optimize_default(&p, rewrites);
    let second = optimize_default(&p, rewrites);
    let printed = print_program(&first.program);
    assert_eq!(
        printed,
        print_program(&second.program),
        "{what}: two optimizations in one process differ"
    );
    assert!(
        first.cost_after <= first.cost_before,
        "{what}: cost {} > {}",
        first.cost_after,
        first.cost_before
    );
    // The printed form is a program (it parses back to the same one).
    let reparsed = parse_program(&printed)
        .unwrap_or_else(|e| panic!("{what}: the optimized text does not parse: {e}"));
    assert_eq!(reparsed, first.program, "{what}: print/parse");

    let (dims, scales) = if prefix == "held" {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{what}: {e}"));
        (
            common::header_pairs(&text, "dims"),
            common::header_pairs(&text, "scale"),
        )
    } else {
        (run_dims(), BTreeMap::new())
    };
    let want = outputs(&p, &what, &dims, &scales);
    let got = outputs(
        &first.program,
        &format!("{what} (optimized)"),
        &dims,
        &scales,
    );
    assert_eq!(got.len(), want.len(), "{what}: number of outputs");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        if let Err(e) = common::compare(g, w, TOL, TOL) {
            panic!("{what}: output {k} of the optimized program: {e}\n{printed}");
        }
    }
    eprintln!(
        "{what}: {} after {} iteration(s), {} nodes; cost {} -> {} ({})",
        first.stop_reason,
        first.iterations,
        first.egraph_nodes,
        first.cost_before,
        first.cost_after,
        first.extractor
    );
    let snapshot = optimized_snapshot(&first, &printed);
    insta::assert_snapshot!(format!("{prefix}__{}", stem(path)), snapshot);
}

fn main() {
    let rewrites = Arc::new(rewrites());
    let mut trials = Vec::new();
    for (dir, prefix) in [
        ("benches/programs", "bench"),
        ("benches/programs/held", "held"),
        ("examples", "example"),
    ] {
        let rewrites = rewrites.clone();
        trials.extend(file_trials(dir, prefix, move |path| {
            check_file(path, prefix, &rewrites);
            Ok(())
        }));
    }
    harness::run(trials);
}
