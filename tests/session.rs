//! The `run` command as a library call ([`eqscan::session::run`]): inputs
//! bound from values or generated, optimized or not, executed on the
//! compiled plan, repeated, reported. Outputs are checked against the
//! NumPy references of `tests/cases/scan` and against the program run as
//! written on the same inputs.

mod common;

use common::{compare, expected_outputs, header_pairs, root};
use eqscan::exec::npy::read_npy;
use eqscan::exec::Value;
use eqscan::lang::{parse_program, Program};
use eqscan::session::{run, RunOptions, SessionError, Source};
use ndarray::{ArrayD, IxDyn};

/// The tolerances of `tests/cases.rs`.
const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-12;

fn f64s(shape: &[usize], f: impl Fn(usize) -> f64) -> Value {
    let n: usize = shape.iter().product();
    Value::F64(ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(f).collect()).expect("shape"))
}

fn load(rel: &str) -> (Program, String) {
    let text = std::fs::read_to_string(root().join(rel)).expect("read");
    (parse_program(&text).expect("parse"), text)
}

/// The case `tests/cases/scan/NAME.sexp` run optimized through the session,
/// with generated inputs, its sizes and scales: its outputs are NumPy's.
fn matches_numpy(name: &str) {
    let rel = format!("tests/cases/scan/{name}.sexp");
    let (p, text) = load(&rel);
    let opts = RunOptions {
        gen: true,
        dims: header_pairs(&text, "dims"),
        scales: header_pairs(&text, "scale"),
        ..RunOptions::default()
    };
    let result = run(&p, &opts).unwrap_or_else(|e| panic!("{rel}: {}", e.located(&rel)));
    assert!(result.optimized_error.is_none(), "{rel}");
    let expected = expected_outputs(&root().join(format!("tests/cases/scan/{name}.expected")));
    assert!(!expected.is_empty(), "{rel}: no NumPy references");
    assert_eq!(result.outputs.len(), expected.len(), "{rel}");
    for (k, (got, path)) in result.outputs.iter().zip(&expected).enumerate() {
        let want = read_npy(path).expect("read the reference");
        compare(got, &want, RTOL, ATOL).unwrap_or_else(|e| panic!("{rel}: output {k}: {e}"));
    }
}

#[test]
fn hmm_forward_matches_numpy() {
    matches_numpy("hmm_forward_logspace");
}

#[test]
fn scan_chain_matches_numpy() {
    matches_numpy("scan_chain");
}

#[test]
fn foldr_matches_numpy() {
    matches_numpy("comb_foldr");
}

#[test]
fn closure_and_non_sequences_match_numpy() {
    matches_numpy("scan_closure_and_non_sequences");
}

/// `examples/rnn.sexp` (T = 40), optimized and as written on the same
/// generated inputs: equal outputs; the repeat and the reports.
#[test]
fn optimized_rnn_agrees_with_the_program_as_written() {
    let (p, _) = load("examples/rnn.sexp");
    let opts = RunOptions {
        gen: true,
        dims: [("T".to_string(), 40)].into(),
        repeat: Some(3),
        ..RunOptions::default()
    };
    let optimized = run(&p, &opts).expect("optimized run");
    let written = run(
        &p,
        &RunOptions {
            optimizer: None,
            ..opts.clone()
        },
    )
    .expect("run as written");
    assert_eq!(optimized.outputs.len(), 2);
    for (k, (a, b)) in optimized.outputs.iter().zip(&written.outputs).enumerate() {
        compare(a, b, RTOL, ATOL).unwrap_or_else(|e| panic!("output {k}: {e}"));
    }
    assert_eq!(optimized.outputs[0].shape(), &[40, 256]);
    // Three timed runs after the warm-up; as written, no time optimizing.
    assert_eq!(optimized.execute_ms.len(), 3);
    assert_eq!(written.optimize_ms, 0.0);
    assert!(optimized.optimize_ms > 0.0);
    let json = optimized.to_json();
    assert_eq!(json["outputs"][0]["shape"], serde_json::json!([40, 256]));
    assert_eq!(json["outputs"][0]["dtype"], "f64");
    assert_eq!(json["execute_ms"].as_array().map(|a| a.len()), Some(3));
    assert!(json.get("shared").is_none());
    let lines = optimized.text_lines();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[0].starts_with("out_0: f64 [40, 256] sum="),
        "{lines:?}"
    );
    assert!(lines[2].starts_with("execute: median "), "{lines:?}");
}

/// Given values, shared variables left at zeros, three calls: the outputs
/// read the state from before the last call, the final state has all
/// three updates; the files written read back equal.
#[test]
fn given_inputs_and_shared_state_across_calls() {
    let (p, _) = load("tests/cases/shared/accumulate.sexp");
    let x = f64s(&[3], |i| 1.0 + i as f64);
    let opts = RunOptions {
        inputs: vec![("x".to_string(), Source::Value(x))],
        calls: 3,
        ..RunOptions::default()
    };
    let r = run(&p, &opts).expect("run");
    assert_eq!(r.outputs[0], f64s(&[3], |i| 4.0 * (1.0 + i as f64)));
    assert_eq!(r.outputs[1], Value::scalar_i64(2));
    let names: Vec<&str> = r.shared.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["total", "count"]);
    assert_eq!(r.shared[0].1, f64s(&[3], |i| 3.0 * (1.0 + i as f64)));
    assert_eq!(r.shared[1].1, Value::scalar_i64(3));
    assert_eq!(r.to_json()["shared"]["count"]["sum"], 3.0);
    let written = run(
        &p,
        &RunOptions {
            optimizer: None,
            ..opts
        },
    )
    .expect("run as written");
    assert_eq!(written.outputs, r.outputs);
    let dir = std::env::temp_dir().join(format!("eqscan-session-{}", std::process::id()));
    r.write_npy(&dir).expect("write");
    assert_eq!(
        read_npy(&dir.join("out_0.npy")).expect("read"),
        r.outputs[0]
    );
    assert_eq!(
        read_npy(&dir.join("shared_total.npy")).expect("read"),
        r.shared[0].1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A name the program lacks, a missing input, a value of the wrong shape:
/// typed errors, told as the command line tells them.
#[test]
fn input_errors_are_typed_and_located() {
    let (p, _) = load("tests/cases/shared/accumulate.sexp");
    let named = |name: &str| RunOptions {
        inputs: vec![(name.to_string(), Source::Value(f64s(&[3], |_| 1.0)))],
        ..RunOptions::default()
    };
    let e = run(&p, &named("y")).expect_err("no input y");
    assert!(matches!(e, SessionError::UnknownInput { .. }), "{e:?}");
    assert_eq!(
        e.located("acc.sexp"),
        "acc.sexp: the program has no input named 'y' (inputs: x)"
    );
    // (N bound, so that the shared variables' zeros can be made first.)
    let no_x = RunOptions {
        dims: [("N".to_string(), 3)].into(),
        ..RunOptions::default()
    };
    let e = run(&p, &no_x).expect_err("x missing");
    assert!(matches!(e, SessionError::MissingInput { .. }), "{e:?}");
    assert_eq!(
        e.located("acc.sexp"),
        "acc.sexp: input 'x' is not given: use --input x=FILE.npy or --gen"
    );
    let e = run(
        &p,
        &RunOptions {
            shared: vec![("t".to_string(), Source::Value(f64s(&[3], |_| 1.0)))],
            ..named("x")
        },
    )
    .expect_err("no shared t");
    assert!(matches!(e, SessionError::UnknownShared { .. }), "{e:?}");
    // A second input of another length for N: the sizes do not bind.
    let e = run(
        &p,
        &RunOptions {
            shared: vec![("total".to_string(), Source::Value(f64s(&[4], |_| 1.0)))],
            ..named("x")
        },
    )
    .expect_err("N is 3 and 4");
    assert!(matches!(e, SessionError::Exec(_)), "{e:?}");
    assert!(e.located("acc.sexp").starts_with("acc.sexp:"), "{e}");
}

/// `explain` on `x × 1 + 0`: the summary counts the steps, one line per
/// term from the program to its optimized form follows, and saturation
/// of so small a program ends saturated.
#[test]
fn explain_lists_every_step() {
    let p = parse_program("(program p (input x (f64 3)) (output (add (mul x 1.0) 0.0)))")
        .expect("parse");
    let settings = eqscan::session::OptimizerSettings::default();
    let rewrites = settings.rewrites().expect("shipped rules");
    let lines = eqscan::session::explain(
        &p,
        &rewrites,
        &settings.limits,
        &eqscan::extract::CostModel::default(),
        &settings.extractor,
    )
    .expect("explain");
    let steps: usize = lines[0]
        .strip_prefix("; ")
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", lines[0]));
    assert!(steps >= 2, "{lines:?}");
    assert_eq!(lines.len(), steps + 3, "{lines:?}");
    assert!(
        lines[1].starts_with("; stop reason: saturated, "),
        "{lines:?}"
    );
    // From the program as written to x alone (the last rewrite named in
    // the last term).
    assert!(lines[2].contains("(add (mul x 1"), "{lines:?}");
    let last = lines.last().expect("a line");
    assert!(
        last.starts_with("(outputs (Rewrite=> ") && last.ends_with(" x))"),
        "{last}"
    );
}

/// `run --json` names each loop that ran off the step tape, at its place
/// in the program, with why: here a loop whose step builds a value of
/// 1.1 million elements (past the tape's arena) beside a loop on the tape
/// and a loop of one step.
#[test]
fn the_report_says_why_a_loop_ran_off_the_tape() {
    let text = "(program why (input X (f64 T N)) (input h0 (f64 N))
  (let I (scan (sequences X) (outputs_info (nitsot)) (fn (x) (sum (tanh (add (zeros (f64 1100 1000)) (sum x)))))))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (fn (x h) (tanh (add x h)))))
  (let G (scan (sequences (slice X 0 1)) (outputs_info (sitsot h0)) (fn (x h) (mul x h))))
  (output I H G))";
    let p = parse_program(text).expect("parse");
    let opts = RunOptions {
        gen: true,
        optimizer: None,
        dims: [("T".to_string(), 6), ("N".to_string(), 3)].into(),
        ..RunOptions::default()
    };
    let r = run(&p, &opts).expect("run");
    assert_eq!((r.loops.run, r.loops.on_tape), (3, 1));
    let json = r.to_json_in(Some("why.sexp"));
    let off = json["loops"]["off_tape"].as_array().expect("off_tape");
    let got: Vec<(&str, &str)> = off
        .iter()
        .map(|o| (o["at"].as_str().unwrap(), o["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("why.sexp:2:10", "values larger than the arena"),
            ("why.sexp:4:10", "fewer than two steps"),
        ]
    );
    // Without a file name: LINE:COL.
    assert_eq!(r.to_json()["loops"]["off_tape"][0]["at"], "2:10");
    // The report's other fields are as they were.
    assert_eq!(json["loops"]["run"], 3);
    assert_eq!(json["loops"]["on_tape"], 1);
}

/// A loop of the optimized program (which the optimizer built: its nodes
/// carry no position) is named at the written loop it came from, not at
/// `0:0`: here the outer loop of a nested pair (its inner while loop runs
/// within the outer tape), off the tape for a value of 1.1 million
/// elements its step builds.
#[test]
fn an_optimized_loop_off_the_tape_is_named_at_its_written_loop() {
    let text = "(program nest (input X (f64 T N N)) (input h0 (f64 N))
  (let H (scan (sequences X) (outputs_info (sitsot h0))
    (fn (x h)
      (let R (scan (sequences x) (outputs_info (sitsot h)) (fn (r g) (let y (tanh (add r (mul 2.0 g)))) (outputs y (until (gt (sum y) 1e9))))))
      (add (mul 0.5 (index R -1)) (sum (tanh (add (zeros (f64 1100 1000)) (sum h))))))))
  (output H))";
    let p = parse_program(text).expect("parse");
    let opts = RunOptions {
        gen: true,
        dims: [("T".to_string(), 5), ("N".to_string(), 3)].into(),
        ..RunOptions::default()
    };
    assert!(opts.optimizer.is_some());
    let r = run(&p, &opts).expect("run");
    let json = r.to_json_in(Some("nest.sexp"));
    let off = json["loops"]["off_tape"].as_array().expect("off_tape");
    let got: Vec<(&str, &str)> = off
        .iter()
        .map(|o| (o["at"].as_str().unwrap(), o["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [("nest.sexp:2:10", "values larger than the arena")],
        "{json}"
    );
}
