//! The structure of the optimized gradient workloads (issue 14, "Done
//! when"): optimized at the medium sizes of `bench/WORKLOADS.md`, rnn_grad
//! keeps two loops — the forward recurrence and a backward loop that holds
//! only the cotangent's recurrence (one state, per-step vectors, one
//! matrix-vector product; no per-step outer product and no accumulator of
//! a weight gradient) — and ar1_grad and garch_grad keep no loop (garch's
//! two recurrences are `linrec`s). The values are checked
//! against `grad_reference.py` by `tests/grad_workloads.rs`; here the
//! optimized and the expanded program are also compared on generated
//! inputs at a small size.

mod common;

use common::{compare, root};
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::extract::cost::CostModel;
use eqscan::lang::{parse_program, Graph, Op, Program, Scan};
use std::collections::BTreeMap;

/// The program `name`, from `benches/programs/` or `benches/grad_programs/`.
fn load(name: &str) -> Program {
    let path = ["benches/programs", "benches/grad_programs"]
        .iter()
        .map(|d| root().join(format!("{d}/{name}.sexp")))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no program {name}"));
    let text = std::fs::read_to_string(&path).expect("read program");
    let written = parse_program(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    eqscan::grad::expand(&written).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn dims(pairs: &[(&str, i64)]) -> Dims {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// `p` optimized with the cost model at `cost_dims`; its outputs are
/// checked against the expanded program's at `run_dims`.
fn optimized(p: &Program, cost_dims: &[(&str, i64)], run_dims: &[(&str, i64)]) -> Program {
    let rewrites = eqscan::optimize::default_rewrites().expect("shipped rules load");
    let model = CostModel::with_dims(dims(cost_dims));
    let report =
        eqscan::optimize::optimize(p, &rewrites, &Default::default(), &model).expect("optimize");
    let run = dims(run_dims);
    let inputs = generate_inputs(p, &run, &BTreeMap::new()).expect("inputs");
    let want = run_program(p, inputs.clone(), &run).expect("run expanded");
    let got = run_program(&report.program, inputs, &run).expect("run optimized");
    assert_eq!(want.len(), got.len());
    for (k, (w, g)) in want.iter().zip(&got).enumerate() {
        if let Err(msg) = compare(g, w, 1e-9, 1e-12) {
            panic!("output {k} differs after optimizing:\n{msg}");
        }
    }
    report.program
}

/// Every scan of `g`, nested ones included.
fn scans(g: &Graph) -> Vec<&Scan> {
    let mut out = Vec::new();
    for n in &g.nodes {
        if let Op::Scan(s) = &n.op {
            out.push(s.as_ref());
            out.extend(scans(&s.body));
        }
    }
    out
}

#[test]
fn rnn_grad_backward_loop_holds_only_the_recurrence() {
    let p = load("rnn_grad");
    let opt = optimized(&p, &[("T", 500), ("N", 256)], &[("T", 7), ("N", 3)]);
    let loops = scans(&opt.graph);
    assert_eq!(loops.len(), 2, "{}", eqscan::lang::print_program(&opt));
    let backward: Vec<&&Scan> = loops.iter().filter(|s| s.sig.go_backwards).collect();
    assert_eq!(backward.len(), 1, "one backward loop");
    let b = backward[0];
    let states = b.sig.outputs.iter().filter(|o| o.is_state()).count();
    assert_eq!(
        states, 1,
        "the backward loop carries one state: {:?}",
        b.sig.outputs
    );
    // No per-step matrix is computed in the body: an outer product (or an
    // accumulator of a weight gradient) would be a rank-2 value.
    for n in &b.body.nodes[b.body.n_params..] {
        for t in &n.ty {
            assert!(
                t.ndim() <= 1,
                "a rank-{} value in the backward loop: {:?}\n{}",
                t.ndim(),
                n.op,
                eqscan::lang::print_program(&opt)
            );
        }
    }
    let products = b
        .body
        .nodes
        .iter()
        .filter(|n| matches!(n.op, Op::Dot | Op::Matmul))
        .count();
    assert_eq!(products, 1, "one matrix-vector product per step");
}

#[test]
fn ar1_grad_keeps_no_loop() {
    let p = load("ar1_grad");
    let opt = optimized(&p, &[("T", 200_000)], &[("T", 9)]);
    assert_eq!(
        scans(&opt.graph).len(),
        0,
        "{}",
        eqscan::lang::print_program(&opt)
    );
}

/// garch_grad: the forward variance recurrence and the backward carry of
/// its cotangent are both `linrec`s; no loop is left.
#[test]
fn garch_grad_keeps_no_loop_and_two_linear_recurrences() {
    let p = load("garch_grad");
    let opt = optimized(&p, &[("T", 100_000)], &[("T", 9)]);
    let text = eqscan::lang::print_program(&opt);
    assert_eq!(scans(&opt.graph).len(), 0, "{text}");
    let linrecs = opt
        .graph
        .nodes
        .iter()
        .filter(|n| matches!(n.op, Op::LinRec))
        .count();
    assert_eq!(linrecs, 2, "{text}");
}
