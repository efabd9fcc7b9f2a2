//! The optimizer's floating-point contract (rules/README.md) on the
//! programs of issue 11: a stable logsumexp stays stable, an HMM forward
//! pass in the log domain stays finite, and the opt-in fast-math rules are
//! what breaks them.

use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::Value;
use eqscan::lang::{parse_program, Program};
use eqscan::rules::load_rules;
use ndarray::{ArrayD, IxDyn};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The program optimized with the shipped rules (`fast_math`: and
/// rules/fast-math/ too), Scan rewrites included.
fn optimized(p: &Program, fast_math: bool) -> Program {
    let mut paths = vec![root().join("rules")];
    if fast_math {
        paths.push(root().join("rules/fast-math"));
    }
    optimized_with(p, &paths)
}

/// The program optimized with the fast-math rules and every shipped rule
/// file but `stable.rules` (which turns the spelled-out logsumexp into
/// the op, out of the fast-math rules' reach): what the fast-math rules
/// do to the form as written.
fn optimized_fast_math_alone(p: &Program) -> Program {
    let mut paths: Vec<PathBuf> = ["algebra", "linalg", "reductions", "shape"]
        .iter()
        .map(|f| root().join(format!("rules/{f}.rules")))
        .collect();
    paths.push(root().join("rules/fast-math"));
    optimized_with(p, &paths)
}

fn optimized_with(p: &Program, paths: &[PathBuf]) -> Program {
    let rules = load_rules(paths).unwrap();
    let rewrites = eqscan::optimize::rewrites(&rules, true);
    let model = eqscan::extract::cost::CostModel::default();
    eqscan::optimize::optimize(p, &rewrites, &Default::default(), &model)
        .unwrap()
        .program
}

fn values(v: &Value) -> Vec<f64> {
    v.as_f64_array().iter().copied().collect()
}

/// Every output finite, and equal to the reference within `rtol`.
fn assert_finite_and_close(got: &[Value], want: &[Value], rtol: f64) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (values(g), values(w));
        assert_eq!(g.len(), w.len(), "output {k}");
        for (a, b) in g.iter().zip(&w) {
            assert!(a.is_finite() && b.is_finite(), "output {k}: {a} vs {b}");
            assert!(
                (a - b).abs() <= rtol * b.abs(),
                "output {k}: {a} vs {b} (relative {})",
                (a - b).abs() / b.abs()
            );
        }
    }
}

const LSE: &str =
    "(program lse (input x (f64 N)) (let m (max x)) (output (add m (log (sum (exp (sub x m)))))))";

/// x = -800 - linspace(0, 3, 10), the input.
fn lse_input() -> Vec<Value> {
    let x: Vec<f64> = (0..10).map(|i| -800.0 - 3.0 * i as f64 / 9.0).collect();
    vec![Value::F64(ArrayD::from_shape_vec(IxDyn(&[10]), x).unwrap())]
}

#[test]
fn the_stable_logsumexp_stays_stable_at_minus_800() {
    let p = parse_program(LSE).unwrap();
    let want = run_program(&p, lse_input(), &Dims::new()).unwrap();
    // log(sum(exp(-(0..3)))) - 800, by NumPy: -798.7756722555123
    assert!((values(&want[0])[0] - -798.7756722555123).abs() < 1e-9);
    let opt = optimized(&p, false);
    let got = run_program(&opt, lse_input(), &Dims::new()).unwrap();
    assert_finite_and_close(&got, &want, 1e-12);
    // rules/stable.rules: the spelled-out form is the op.
    let text = eqscan::lang::print::print_program(&opt);
    assert!(text.contains("(logsumexp x)"), "{text}");
}

#[test]
fn fast_math_makes_the_logsumexp_nan() {
    // What the shipped rules did before the contract: with the opt-in
    // fast-math rules, exp-add and sum-scale-right give
    // m + log(exp(-m) * sum(exp(x))), inf * 0.
    let p = parse_program(LSE).unwrap();
    let opt = optimized_fast_math_alone(&p);
    let got = run_program(&opt, lse_input(), &Dims::new()).unwrap();
    assert!(values(&got[0])[0].is_nan(), "{:?}", values(&got[0]));
    // With the shipped rules too, the op is cheaper than the broken form:
    // the result stays finite even under fast-math.
    let want = run_program(&p, lse_input(), &Dims::new()).unwrap();
    let opt = optimized(&p, true);
    let got = run_program(&opt, lse_input(), &Dims::new()).unwrap();
    assert_finite_and_close(&got, &want, 1e-12);
}

#[test]
fn an_hmm_forward_pass_over_1500_steps_stays_finite_optimized() {
    let path = root().join("tests/cases/scan/hmm_forward_logspace.sexp");
    let text = std::fs::read_to_string(&path).unwrap();
    let p = parse_program(&text).unwrap();
    let dims: Dims = [("T".to_string(), 1500)].into();
    let scales: BTreeMap<String, f64> = [("E".to_string(), 20.0)].into();
    let inputs = generate_inputs(&p, &dims, &scales).unwrap();
    let want = run_program(&p, inputs.clone(), &dims).unwrap();
    // The log-likelihood, by NumPy (tests/numpy_cases.py).
    let ll = values(&want[0])[0];
    assert!((ll - -1196703.656364962).abs() < 1e-6 * ll.abs(), "{ll}");
    let opt = optimized(&p, false);
    let got = run_program(&opt, inputs.clone(), &dims).unwrap();
    assert_finite_and_close(&got, &want, 1e-12);
    // The fast-math rules break it (NaN), as the shipped rules used to.
    let fast = optimized_fast_math_alone(&p);
    let bad = run_program(&fast, inputs, &dims).unwrap();
    assert!(values(&bad[0])[0].is_nan(), "{:?}", values(&bad[0]));
}

fn eqscan(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_eqscan"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn rules_check_passes_the_shipped_rules_and_reports_fast_math_unsafe() {
    let (code, out, err) = eqscan(&["rules", "check", "rules/"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("rules checked: all sound and safe at extreme magnitudes"),
        "{out}"
    );
    let (code, out, err) = eqscan(&["rules", "check", "rules/fast-math/"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(
            "rules/fast-math/fast-math.rules:14:1: tanh-sigmoid: unsafe: with ?x = f64() 1e-160; \
             left gives f64() 1e-160, right gives f64() 0.0"
        ),
        "{out}"
    );
    assert!(out.contains("exp-add-fast: unsafe: with "), "{out}");
    assert_eq!(
        err.trim(),
        "21 of 22 rules are unsound, unsafe or change a type or shape"
    );
}

#[test]
fn rules_check_honours_its_time_limit() {
    let t0 = std::time::Instant::now();
    let (code, out, err) = eqscan(&["rules", "check", "rules/", "--time-limit", "0.05"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.starts_with("rules check stopped at its time limit of 0.05 s, after "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(t0.elapsed().as_secs_f64() < 5.0);
}

/// i64 arithmetic wraps and f64 arithmetic does not: a rule that regroups
/// one with the other changes the result (found by the fuzz test, with
/// `(k + (2^63 - 1)) + 1e-320`). Each output as written, by NumPy 2:
/// `(k + np.int64(2**63-1)) + 1e-320` wraps first; `k * (2**62 + 0.5)`
/// multiplies in f64; `x - k` in f64 with k = i64::MIN does not wrap.
#[test]
fn wrapping_integer_sums_are_not_regrouped_with_float_sums() {
    let p = parse_program(
        "(program wrap
          (input k (i64 3))
          (input x (f64 3))
          (output (add (add k 9223372036854775807) 1e-320)
                  (mul k (add 4611686018427387904 0.5))
                  (sub x (mul k -9223372036854775808))
                  (neg (mul k (add x 0.0)))))",
    )
    .unwrap();
    let k = Value::I64(ArrayD::from_shape_vec(IxDyn(&[3]), vec![1, 4, -3]).unwrap());
    let x = Value::F64(ArrayD::from_shape_vec(IxDyn(&[3]), vec![0.5, -2.0, 3.0]).unwrap());
    let want = run_program(&p, vec![k.clone(), x.clone()], &Dims::new()).unwrap();
    // 1 + (2^63 - 1) wraps to -2^63.
    assert_eq!(values(&want[0])[0], -9223372036854775808.0);
    assert_eq!(values(&want[1])[1], 4.0 * 4611686018427387904.5);
    let opt = optimized(&p, false);
    let got = run_program(&opt, vec![k, x], &Dims::new()).unwrap();
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(
            values(g),
            values(w),
            "{}",
            eqscan::lang::print::print_program(&opt)
        );
    }
}

/// `x - x` is +0 for every finite `x`, `x * 0` is -0 for a negative one:
/// a rule turning one into the other flips the sign of an infinity that
/// divides by it (found by the fuzz test).
#[test]
fn a_difference_with_itself_keeps_the_sign_of_its_zero() {
    let p = parse_program(
        "(program z (input x (f64 3)) (input a (f64 3))
          (output (div a (sub x x)) (div 1.0 (add (sub x x) (mul a 0.0)))))",
    )
    .unwrap();
    let x = Value::F64(ArrayD::from_shape_vec(IxDyn(&[3]), vec![-2.0, 3.0, -0.5]).unwrap());
    let a = Value::F64(ArrayD::from_shape_vec(IxDyn(&[3]), vec![1.0, -1.0, 4.0]).unwrap());
    let want = run_program(&p, vec![x.clone(), a.clone()], &Dims::new()).unwrap();
    assert_eq!(
        values(&want[0]),
        vec![f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY]
    );
    let opt = optimized(&p, false);
    let got = run_program(&opt, vec![x, a], &Dims::new()).unwrap();
    assert_eq!(
        values(&got[0]),
        values(&want[0]),
        "{}",
        eqscan::lang::print::print_program(&opt)
    );
}
