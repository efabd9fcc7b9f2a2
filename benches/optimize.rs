//! The optimizer's own time: saturation + extraction + writing back (one
//! `eqscan::optimize::optimize` call, default rules and limits).
//!
//! - `optimize/NAME`: each workload program of `benches/programs/`, under a
//!   cost model with its medium sizes (the `(medium: T=... N=...)` line of
//!   its header, from WORKLOADS.md);
//! - `chain/K`: the chain-K scaling workload (`benches/chain.rs`) for
//!   K = 1, 2, 4, ..., 64. Before timing each K, one run prints the
//!   e-graph's size, the stop reason and the split between saturation and
//!   extraction, so that growth with K can be read off.
//!
//! `cargo bench --bench optimize` (quick: 10 samples, ~2 s a case);
//! `EQSCAN_BENCH_PLATEAU=0` turns the plateau stop off.

mod chain;
#[path = "common/workloads.rs"]
mod common;

use common::medium_dims;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use eqscan::egraph::analysis::TensorAnalysis;
use eqscan::egraph::runner::Limits;
use eqscan::egraph::term::TNode;
use eqscan::extract::CostModel;
use eqscan::lang::{parse_program, Program};
use eqscan::optimize::{optimize, Report};
use std::hint::black_box;
use std::time::Duration;

type Rewrites = Vec<egg::Rewrite<TNode, TensorAnalysis>>;

fn rewrites() -> Rewrites {
    eqscan::optimize::default_rewrites().expect("the default rules load")
}

/// The workload programs, sorted by name, with their medium cost models.
fn workloads() -> Vec<(String, Program, CostModel)> {
    common::workloads()
        .into_iter()
        .map(|w| {
            let model = CostModel::with_dims(medium_dims(&w.text, &w.name));
            (w.name, w.program, model)
        })
        .collect()
}

fn run(p: &Program, rewrites: &Rewrites, model: &CostModel) -> Report {
    optimize(p, rewrites, &limits(), model).expect("optimize")
}

/// The default limits; `EQSCAN_BENCH_PLATEAU=N` sets
/// [`Limits::plateau_iters`] (0: no plateau stop, saturation as before
/// issue 14), to compare the two in one build.
fn limits() -> Limits {
    let mut l = Limits::default();
    if let Some(n) = std::env::var("EQSCAN_BENCH_PLATEAU")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        l.plateau_iters = (n > 0).then_some(n);
    }
    l
}

fn describe(what: &str, r: &Report) {
    eprintln!(
        "{what}: {} e-nodes, {} classes, {} after {} iteration(s); saturate {:.2} ms, extract {:.2} ms ({}); cost {:.4e} -> {:.4e}",
        r.egraph_nodes,
        r.egraph_classes,
        r.stop_reason,
        r.iterations,
        r.saturate_ms,
        r.extract_ms,
        r.extractor,
        r.cost_before,
        r.cost_after
    );
}

fn quick<'c>(
    c: &'c mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'c, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    g
}

fn bench_workloads(c: &mut Criterion) {
    let rewrites = rewrites();
    let mut g = quick(c, "optimize");
    for (name, p, model) in workloads() {
        describe(&name, &run(&p, &rewrites, &model));
        g.bench_function(&name, |b| b.iter(|| run(black_box(&p), &rewrites, &model)));
    }
    g.finish();
}

fn bench_chain(c: &mut Criterion) {
    let rewrites = rewrites();
    let model = chain::chain_model();
    let mut g = quick(c, "chain");
    for &k in chain::CHAIN_KS {
        let text = chain::chain_program(k);
        let p = parse_program(&text).unwrap_or_else(|e| panic!("chain-{k}: {e}"));
        describe(&format!("chain-{k}"), &run(&p, &rewrites, &model));
        g.bench_with_input(BenchmarkId::from_parameter(k), &p, |b, p| {
            b.iter(|| run(black_box(p), &rewrites, &model))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_workloads, bench_chain);
criterion_main!(benches);
