//! Random numbers (SPEC §1 "Random numbers"), end to end: the draws'
//! distributions, the independence of derived keys, the same bits in every
//! executor and optimized or not, and a Gibbs sampler whose long-run means
//! match the exact ones.
//!
//! The statistical tests are deterministic: every seed is fixed, so each
//! is a fixed pass or fail, and each threshold is the critical value of its
//! statistic at a significance level of 1e-4 (for a generator that is what
//! it claims, an unlucky seed fails one of these tests with probability
//! about 1e-4 per statistic):
//! - Kolmogorov–Smirnov: `sqrt(n) D < 2.2253` (the Kolmogorov distribution's
//!   upper 1e-4 point, `scipy.stats.kstwobign.isf(1e-4)`; n = 1e5, where
//!   the asymptotic form is accurate to a few parts in 1e3);
//! - chi-square: the upper 1e-4 points `scipy.stats.chi2.isf(1e-4, df)`,
//!   15.137 (df 1), 18.421 (2), 21.108 (3);
//! - a correlation of n pairs: `sqrt(n) |r| < 3.8906` (the normal's
//!   two-sided 1e-4 point).
//!
//! `tests/cases/ops/random_draws.sexp` and `scan/random_per_step.sexp`
//! check the bits themselves against an independent NumPy Philox4x32-10;
//! here the keys they hold are compared exactly (the case harness compares
//! integers within a relative tolerance).

mod common;

use eqscan::exec::plan::{Compiled, PlanOptions};
use eqscan::exec::run::{run_program, Dims};
use eqscan::exec::Value;
use eqscan::extract::CostModel;
use eqscan::lang::{parse_program, Program};
use eqscan::optimize::{default_rewrites, optimize};
use ndarray::{ArrayD, IxDyn};
use std::time::Duration;

const KS_CRIT: f64 = 2.2253;
const CHI2_CRIT: [f64; 4] = [0.0, 15.137, 18.421, 21.108];
const Z_CRIT: f64 = 3.8906;

fn program(text: &str) -> Program {
    parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn dims(pairs: &[(&str, i64)]) -> Dims {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// The outputs of a program without inputs, on the interpreter.
fn run(text: &str, d: &[(&str, i64)]) -> Vec<Value> {
    let p = program(text);
    run_program(&p, Vec::new(), &dims(d)).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn f64s(v: &Value) -> Vec<f64> {
    v.to_array::<f64>().iter().copied().collect()
}

fn i64s(v: &Value) -> Vec<i64> {
    v.to_array::<i64>().iter().copied().collect()
}

/// `sqrt(n)` times the Kolmogorov–Smirnov distance of `xs` from `cdf`.
fn ks(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    let mut d = 0.0f64;
    for (i, &x) in xs.iter().enumerate() {
        let f = cdf(x);
        d = d.max((i as f64 + 1.0) / n - f).max(f - i as f64 / n);
    }
    d * n.sqrt()
}

fn normal_cdf(z: f64) -> f64 {
    0.5 * libm::erfc(-z / std::f64::consts::SQRT_2)
}

/// Pearson's chi-square of `counts` against the probabilities `p` (the
/// categories with probability 0 left out: their counts must be 0).
fn chi_square(counts: &[u64], p: &[f64]) -> f64 {
    let n: u64 = counts.iter().sum();
    counts
        .iter()
        .zip(p)
        .filter(|(_, &p)| p > 0.0)
        .map(|(&c, &p)| {
            let e = n as f64 * p;
            (c as f64 - e).powi(2) / e
        })
        .sum()
}

/// `sqrt(n)` times the correlation of two samples.
fn z_corr(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    n.sqrt() * (sab / (saa * sbb).sqrt()).abs()
}

#[test]
fn uniforms_pass_kolmogorov_smirnov() {
    let out = run(
        "(program u
          (let k (key 20261129))
          (output (uniform k (f64 N)) (uniform (fold_in k 1) (f32 N))
                  (uniform (split k 4) (f64 25000))))",
        &[("N", 100_000)],
    );
    for (what, v) in [("f64", &out[0]), ("f32", &out[1]), ("per key", &out[2])] {
        let xs = f64s(v);
        assert!(
            xs.iter().all(|x| (0.0..1.0).contains(x)),
            "{what}: outside [0, 1)"
        );
        let d = ks(xs, |x| x.clamp(0.0, 1.0));
        eprintln!("uniform {what}: sqrt(n) D = {d:.4}");
        assert!(d < KS_CRIT, "{what}: sqrt(n) D = {d}");
    }
}

#[test]
fn normals_pass_kolmogorov_smirnov() {
    let out = run(
        "(program z
          (let k (key 7))
          (output (normal k (f64 N)) (normal (fold_in k 5) (f32 N))))",
        &[("N", 100_000)],
    );
    for (what, v) in [("f64", &out[0]), ("f32", &out[1])] {
        let xs = f64s(v);
        assert!(
            xs.iter().all(|x| x.abs() < 8.58),
            "{what}: a draw beyond 8.58"
        );
        let d = ks(xs, normal_cdf);
        eprintln!("normal {what}: sqrt(n) D = {d:.4}");
        assert!(d < KS_CRIT, "{what}: sqrt(n) D = {d}");
    }
}

#[test]
fn bernoulli_counts_match_p() {
    let n = 100_000u64;
    for (j, p) in [0.3, 0.5, 0.001, 0.97].into_iter().enumerate() {
        let text =
            format!("(program b (output (bernoulli (fold_in (key 3) {j}) (fill (f64 N) {p:?}))))");
        let out = run(&text, &[("N", n as i64)]);
        let trues = out[0].to_array::<bool>().iter().filter(|&&b| b).count() as u64;
        let chi = chi_square(&[trues, n - trues], &[p, 1.0 - p]);
        eprintln!("bernoulli p = {p}: chi-square {chi:.3}");
        assert!(
            chi < CHI2_CRIT[1],
            "p = {p}: {trues} of {n}, chi-square {chi}"
        );
    }
    // The ends and out-of-range probabilities are exact.
    let out = run(
        "(program b (let k (key 3))
          (output (bernoulli k (tensor (f64 6) 0.0 1.0 -0.5 1.5 -inf inf))
                  (bernoulli k (fill (f64 N) 0.0)) (bernoulli k (fill (f32 N) 1.0))))",
        &[("N", 10_000)],
    );
    let ends: Vec<bool> = out[0].to_array::<bool>().iter().copied().collect();
    assert_eq!(ends, [false, true, false, true, false, true]);
    assert!(out[1].to_array::<bool>().iter().all(|b| !b));
    assert!(out[2].to_array::<bool>().iter().all(|&b| b));
}

fn softmax(l: &[f64]) -> Vec<f64> {
    let m = l.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = l.iter().map(|x| (x - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|x| x / s).collect()
}

#[test]
fn categorical_counts_match_softmax() {
    let n = 100_000usize;
    let ln2 = std::f64::consts::LN_2;
    let ln3 = 3f64.ln();
    let rows: [(&str, Vec<f64>, usize); 3] = [
        // a -inf logit is never drawn
        ("ordinary", vec![0.0, f64::NEG_INFINITY, 1.0, ln2, -2.0], 3),
        // at ±700, probabilities 1/4, 3/4 and exp(-1400) = 0 in f64
        ("extreme", vec![700.0, 700.0 + ln3, -700.0], 1),
        // f32 logits
        ("f32", vec![-1.5, 0.25, 0.0], 2),
    ];
    for (j, (what, logits, df)) in rows.iter().enumerate() {
        let lit: Vec<String> = logits
            .iter()
            .map(|x| match *x {
                x if x == f64::NEG_INFINITY => "-inf".to_string(),
                x => format!("{x:?}"),
            })
            .collect();
        let dt = if *what == "f32" { "f32" } else { "f64" };
        let text = format!(
            "(program c
              (let logits (add (zeros ({dt} N {m})) (tensor ({dt} {m}) {l})))
              (output (categorical (fold_in (key 11) {j}) logits)))",
            m = logits.len(),
            l = lit.join(" ")
        );
        let out = run(&text, &[("N", n as i64)]);
        let mut counts = vec![0u64; logits.len()];
        for c in i64s(&out[0]) {
            counts[usize::try_from(c).expect("a category is >= 0")] += 1;
        }
        let p = softmax(logits);
        for (c, p) in counts.iter().zip(&p) {
            if *p == 0.0 {
                assert_eq!(*c, 0, "{what}: a category of probability 0 was drawn");
            }
        }
        let chi = chi_square(&counts, &p);
        eprintln!("categorical {what}: counts {counts:?}, chi-square {chi:.3}");
        assert!(
            chi < CHI2_CRIT[*df],
            "{what}: counts {counts:?}, chi-square {chi}"
        );
    }
}

#[test]
fn derived_keys_give_uncorrelated_streams() {
    let n = 100_000;
    let out = run(
        "(program s
          (let k (key 99))
          (let two (split k 2))
          (output (uniform (index two 0) (f64 N)) (uniform (index two 1) (f64 N))
                  (uniform k (f64 N))
                  (uniform (fold_in k (arange 9)) (f64 N))))",
        &[("N", n)],
    );
    let (a, b, parent) = (f64s(&out[0]), f64s(&out[1]), f64s(&out[2]));
    let z = z_corr(&a, &b);
    assert!(z < Z_CRIT, "sibling split keys: sqrt(n) r = {z}");
    let z = z_corr(&parent, &a);
    assert!(z < Z_CRIT, "a key and its first split: sqrt(n) r = {z}");
    // lag-1 correlation within a stream
    let z = z_corr(&a[..a.len() - 1], &a[1..]);
    assert!(z < Z_CRIT, "lag 1: sqrt(n) r = {z}");
    // fold_in(k, i) against fold_in(k, i + 1)
    let f = f64s(&out[3]);
    let rows: Vec<&[f64]> = f.chunks(n as usize).collect();
    for i in 0..8 {
        let z = z_corr(rows[i], rows[i + 1]);
        assert!(z < Z_CRIT, "fold_in {i} and {}: sqrt(n) r = {z}", i + 1);
    }
}

#[test]
fn split_rows_equal_fold_in_and_draws_are_pure() {
    let out = run(
        "(program s
          (let k (key -5))
          (output (split k 6) (fold_in k (arange 6)) (fold_in k 4)
                  (uniform k (f64 9)) (uniform k (f64 9)) (uniform k (f64 3 3))
                  (index (uniform (split k 6) (f64 2)) 4) (uniform (fold_in k 4) (f64 2))))",
        &[],
    );
    assert_eq!(out[0], out[1], "split rows are fold_in");
    assert_eq!(i64s(&out[0])[4], i64s(&out[2])[0]);
    assert_eq!(out[3], out[4], "the same key gives the same draws");
    assert_eq!(
        f64s(&out[3]),
        f64s(&out[5]),
        "a draw's shape only lays it out"
    );
    assert_eq!(out[6], out[7], "a draw per key is the key's draw");
}

/// The keys the case files hold, exactly (the case harness compares
/// integers within its relative tolerance).
#[test]
fn case_keys_match_numpy_exactly() {
    let root = common::root();
    for (case, outs) in [
        ("ops/random_draws", &[0usize, 1, 2, 3, 4, 13, 14][..]),
        ("scan/random_per_step", &[1usize][..]),
        ("ops/random_keys_moved", &[0usize, 1, 2, 4, 5, 6, 9][..]),
    ] {
        let path = root.join(format!("tests/cases/{case}.sexp"));
        let text = std::fs::read_to_string(&path).unwrap();
        let p = program(&text);
        let d: Dims = common::header_pairs(&text, "dims").into_iter().collect();
        let scales = common::header_pairs(&text, "scale");
        let inputs = eqscan::exec::run::generate_inputs(&p, &d, &scales).unwrap();
        let got = run_program(&p, inputs, &d).unwrap();
        for &k in outs {
            let want = eqscan::exec::npy::read_npy(
                &root.join(format!("tests/cases/{case}.expected/out_{k}.npy")),
            )
            .unwrap();
            assert_eq!(i64s(&got[k]), i64s(&want), "{case}: output {k}");
        }
    }
}

/// The outputs of `p` in every executor, as written: the interpreter, the
/// plan with and without the step tape, and the tape's machine code from
/// the first step; all must be the same bits.
fn every_executor(p: &Program, inputs: &[Value], d: &Dims) -> Vec<Value> {
    let want = run_program(p, inputs.to_vec(), d).unwrap();
    let refs: Vec<&Value> = inputs.iter().collect();
    for (what, options) in [
        ("plan", PlanOptions::default()),
        ("plan without tape", common::plan_without_tape()),
        ("native steps", common::plan_native_from_first_step()),
    ] {
        let mut f = Compiled::with_options(p, d, options).unwrap();
        let got = f.call_values(&refs).unwrap();
        assert_eq!(got, want, "{}: {what} differs from the interpreter", p.name);
    }
    want
}

fn optimized(p: &Program) -> Program {
    let rewrites = default_rewrites().unwrap();
    let limits = eqscan::egraph::runner::Limits {
        time_limit: Duration::from_secs(60),
        ..Default::default()
    };
    optimize(p, &rewrites, &limits, &CostModel::default())
        .unwrap()
        .program
}

/// A loop that draws per step (a folded-in step key, which the vectorizer
/// batches after the loop, and a split key state): as written and
/// optimized, in every executor, the same bits.
#[test]
fn per_step_draws_are_the_same_optimized_and_in_every_executor() {
    let p = program(
        "(program per_step
          (input X (f64 T 3))
          (let K (key 1234))
          (let Y (scan (sequences X (arange T)) (non_sequences K)
            (fn (x t k) (add x (normal (fold_in k t) (f64 3))))))
          (let B (scan (sequences (arange T)) (non_sequences K)
            (fn (t k) (bernoulli (fold_in k t) (fill (f64 4) 0.5)))))
          (let C (scan (sequences X (arange T)) (non_sequences K)
            (fn (x t k) (categorical (fold_in k t) x))))
          (let (S KS) (scan (outputs_info (sitsot (zeros (f32 2))) (sitsot K)) (n_steps T)
            (fn (s k) (let two (split k 2))
              (outputs (add s (uniform (index two 1) (f32 2))) (index two 0)))))
          (output Y B C S KS))",
    );
    let q = optimized(&p);
    let text = eqscan::lang::print_program(&q);
    // The vectorizer took the folded-in draws out of their loops.
    assert!(
        q.count_scans() < p.count_scans(),
        "no loop was batched:\n{text}"
    );
    let d = dims(&[("T", 50)]);
    let x = ArrayD::from_shape_fn(IxDyn(&[50, 3]), |i| {
        (i[0] as f64 * 0.37 + i[1] as f64).sin()
    });
    let inputs = vec![Value::F64(x)];
    let want = every_executor(&p, &inputs, &d);
    let got = every_executor(&q, &inputs, &d);
    assert_eq!(got, want, "optimized:\n{text}");
    // Run twice: the same bits.
    assert_eq!(run_program(&p, inputs.clone(), &d).unwrap(), want);
}

/// The RBM of the Gibbs sampler test: 3 visible and 2 hidden units.
const W: [[f64; 2]; 3] = [[1.2, -0.8], [0.5, 1.0], [-1.5, 0.3]];
const BVIS: [f64; 3] = [0.2, -0.4, 0.1];
const BHID: [f64; 2] = [-0.3, 0.5];

fn gibbs() -> (Program, Vec<Value>) {
    let path = common::root().join("examples/gibbs_rbm.sexp");
    let p = program(&std::fs::read_to_string(path).unwrap());
    let w = ArrayD::from_shape_fn(IxDyn(&[3, 2]), |i| W[i[0]][i[1]]);
    let inputs = vec![
        Value::F64(w),
        Value::F64(ArrayD::from_shape_vec(IxDyn(&[3]), BVIS.to_vec()).unwrap()),
        Value::F64(ArrayD::from_shape_vec(IxDyn(&[2]), BHID.to_vec()).unwrap()),
        Value::F64(ArrayD::zeros(IxDyn(&[3]))),
    ];
    (p, inputs)
}

/// E[v] under p(v, h) ∝ exp(vᵀ W h + bvisᵀ v + bhidᵀ h), by enumerating
/// the 2^5 states.
fn exact_visible_means() -> [f64; 3] {
    let (mut z, mut m) = (0.0, [0.0; 3]);
    for s in 0..32u32 {
        let v: Vec<f64> = (0..3).map(|i| f64::from((s >> i) & 1)).collect();
        let h: Vec<f64> = (0..2).map(|j| f64::from((s >> (3 + j)) & 1)).collect();
        let mut e = 0.0;
        for i in 0..3 {
            e += BVIS[i] * v[i];
            for j in 0..2 {
                e += v[i] * W[i][j] * h[j];
            }
        }
        for j in 0..2 {
            e += BHID[j] * h[j];
        }
        let w = f64::exp(e);
        z += w;
        for i in 0..3 {
            m[i] += w * v[i];
        }
    }
    m.map(|x| x / z)
}

/// The Gibbs sampler of examples/gibbs_rbm.sexp (the key a loop state):
/// optimized and as written, in every executor, the same draws; over
/// 200000 steps the visible units' means are within 4.5 standard errors
/// (batch means: 100 batches after 1000 steps of burn-in) of the exact
/// means.
#[test]
fn gibbs_rbm_is_the_same_optimized_and_matches_the_exact_means() {
    let (p, inputs) = gibbs();
    let q = optimized(&p);
    let d = dims(&[("T", 300)]);
    let want = every_executor(&p, &inputs, &d);
    let got = every_executor(&q, &inputs, &d);
    assert_eq!(got, want, "optimized:\n{}", eqscan::lang::print_program(&q));

    let steps = 201_000usize;
    let burn = 1_000usize;
    let d = dims(&[("T", steps as i64)]);
    let refs: Vec<&Value> = inputs.iter().collect();
    let mut f = Compiled::new(&q, &d).unwrap();
    let out = f.call_values(&refs).unwrap();
    let v = f64s(&out[0]);
    let exact = exact_visible_means();
    let batches = 100usize;
    let per = (steps - burn) / batches;
    for (i, &exact) in exact.iter().enumerate() {
        let means: Vec<f64> = (0..batches)
            .map(|b| {
                let rows = burn + b * per..burn + (b + 1) * per;
                rows.map(|t| v[t * 3 + i]).sum::<f64>() / per as f64
            })
            .collect();
        let mean = means.iter().sum::<f64>() / batches as f64;
        let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (batches - 1) as f64;
        let se = (var / batches as f64).sqrt();
        assert!(se < 0.005, "unit {i}: standard error {se}");
        assert!(
            (mean - exact).abs() < 4.5 * se,
            "unit {i}: mean {mean}, exact {exact}, standard error {se}"
        );
        eprintln!("visible unit {i}: mean {mean:.5}, exact {exact:.5}, standard error {se:.5}");
    }
}

/// Rows `categorical` has no softmax for: a row of `-inf` (or NaN) gives
/// 0; NaN logits are never drawn; the first `+inf` logit always is.
#[test]
fn categorical_edge_rows() {
    let out = run(
        "(program c
          (let l (tensor (f64 5 3)
            -inf -inf -inf
            nan nan nan
            nan 1.0 nan
            inf 0.0 inf
            -inf 2.0 -inf))
          (output (categorical (split (key 8) N) l)))",
        &[("N", 2000)],
    );
    let draws = i64s(&out[0]);
    for row in draws.chunks(5) {
        assert_eq!(row, [0, 0, 1, 0, 1]);
    }
}

/// The command line: `eqscan run` of the Gibbs sampler, optimized and with
/// `--no-opt`, writes the same bytes.
#[test]
fn gibbs_rbm_cli_optimized_and_no_opt_write_the_same_draws() {
    let dir = std::env::temp_dir().join(format!("eqscan_random_{}", std::process::id()));
    let example = common::root().join("examples/gibbs_rbm.sexp");
    let mut outs = Vec::new();
    for (k, extra) in [&[][..], &["--no-opt"][..]].into_iter().enumerate() {
        let out = dir.join(format!("run{k}"));
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_eqscan"))
            .arg("run")
            .arg(&example)
            .args(["--gen", "--dim", "T=500", "--out"])
            .arg(&out)
            .args(extra)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        outs.push(std::fs::read(out.join("out_0.npy")).unwrap());
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(outs[0], outs[1]);
}
