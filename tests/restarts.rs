//! Restarts (`Limits::restarts`): when saturation leaves many variants of
//! each written loop in the e-graph, the optimizer saturates again from
//! the program it extracted and keeps the cheaper. Checked here: the GRU
//! layer's gradient gets cheaper only with the restart, computes what the
//! written program computes either way, and a program whose e-graph holds
//! few loop variants does not restart.

mod common;

use eqscan::egraph::runner::Limits;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::Value;
use eqscan::extract::CostModel;
use eqscan::lang::loop_sig::OutputInfo;
use eqscan::lang::{parse_program, Program};
use eqscan::optimize::{default_rewrites, optimize, Report};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

fn load(rel: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).expect("read the case");
    parse_program(&text).expect("parse the case")
}

/// Optimizes `p` with the default rewrites, at most `restarts` restarts,
/// under a time limit no run here comes near.
fn optimized(p: &Program, restarts: usize) -> Report {
    let limits = Limits {
        time_limit: Duration::from_secs(60),
        restarts,
        ..Limits::default()
    };
    let rewrites = default_rewrites().expect("the shipped rules");
    let r = optimize(p, &rewrites, &limits, &CostModel::default()).expect("optimize");
    assert_ne!(r.stop_reason.name(), "time_limit", "{}", p.name);
    r
}

/// `p` run on inputs generated with `scales` (the case's `scale:`).
fn outputs(p: &Program, scales: &BTreeMap<String, f64>) -> Vec<Value> {
    let dims = Dims::new();
    let inputs = generate_inputs(p, &dims, scales).expect("inputs");
    run_program(p, inputs, &dims).expect("run")
}

fn assert_close(got: &[Value], want: &[Value], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: outputs");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        if let Err(e) = common::compare(g, w, 1e-9, 1e-12) {
            panic!("{what}: output {k} against the written program's: {e}");
        }
    }
}

/// The GRU layer's gradient: one round leaves the weight gradients
/// accumulated step by step; the restart takes them out of the backward
/// loop, which then keeps one state, and lowers the cost by 3% or more.
#[test]
fn a_restart_takes_the_gru_weight_gradients_out_of_the_loop() {
    let p = load("tests/cases/scan_rules/eq_restart_gru_layer_grad.sexp");
    let once = optimized(&p, 0);
    let again = optimized(&p, 1);
    assert_eq!(once.rounds, 1);
    assert_eq!(again.rounds, 2);
    assert!(
        again.cost_after <= 0.97 * once.cost_after,
        "{} against {}",
        again.cost_after,
        once.cost_after
    );
    assert!(again.iterations > once.iterations);
    assert!(
        again.rules_applied.get("scan-accumulator-sum").copied() > Some(0),
        "{:?}",
        again.rules_applied
    );
    let states = |r: &Report| -> usize {
        r.program
            .graph
            .nodes
            .iter()
            .filter_map(|n| match &n.op {
                eqscan::lang::Op::Scan(s) => Some(
                    s.sig
                        .outputs
                        .iter()
                        .filter(|o| matches!(o, OutputInfo::Sitsot))
                        .count(),
                ),
                _ => None,
            })
            .sum()
    };
    assert!(
        states(&again) < states(&once),
        "states after one round and after two"
    );
    assert_eq!(states(&again), 2, "h_t forwards and its gradient backwards");
    let scales = BTreeMap::from([("W".to_string(), 0.1), ("U".to_string(), 0.1)]);
    let want = outputs(&p, &scales);
    assert_close(&outputs(&once.program, &scales), &want, "one round");
    assert_close(&outputs(&again.program, &scales), &want, "two rounds");
}

/// The RNN example's e-graph holds few variants of its loop: no restart,
/// whatever the limit allows.
#[test]
fn few_loop_variants_no_restart() {
    let p = load("examples/rnn.sexp");
    let r = optimized(&p, 3);
    assert_eq!(r.rounds, 1, "{:?}", r.rules_applied);
}
