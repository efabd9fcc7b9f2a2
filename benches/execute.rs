//! The executor's time: one call of a compiled program (`Compiled::call`,
//! inputs by reference, results borrowed; the plan and its storage reused
//! from call to call, as `eqscan run --repeat` does).
//!
//! - `execute/NAME/optimized` and `execute/NAME/unoptimized`: each workload
//!   of `benches/programs/` at its medium sizes (the `(medium: T=... N=...)`
//!   line of its header) on the data rule's inputs (WORKLOADS.md scales),
//!   optimized with the default rules and limits, or as written;
//! - `step/{fib/1,fib/1024,garch}/{native,tape,plan}`: the cost of a loop
//!   step, as machine code, on the step tape and on the plan: the `fib` loop with states of N = 1
//!   and 1024 elements and the GARCH(1,1) variance recurrence as written,
//!   5,000 steps, throughput in steps (criterion prints time per step);
//!   `step/fib/{1,1024}/floor`: the same loop hand-written in Rust over
//!   a reused output, the floor issue 15 measures fib against;
//!
//! - `while_step/{for,while}/{tape,plan}`: a loop step of a vector state
//!   as a for loop and as a while loop stopped by its condition after the
//!   same 5,000 steps;
//! - `product/{gru_step,lstm_gate,gru_hoisted,gru_b80_step,gru_b80_hoisted,elman_step,elman_hoisted}/{matrixmultiply,packed_b,prepacked}`:
//!   one `f64` matrix product at the shapes of the GRU's step
//!   (80×128·128×128), an LSTM gate's (64×64·64×64), the GRU's
//!   product pushed out of its loop (4000×128·128×128), and the held
//!   `gru_b80`'s three gates at once, in its step (80×128·128×384) and
//!   pushed out (4000×128·128×384), and the ragged Elman benchmark's
//!   step with its whole batch (64×128·128×128) and a phase's input
//!   product pushed out (1200×64·64×128), on one thread:
//!   matrixmultiply (packing both operands), the packed-`B` kernel
//!   packing `B` first (`gemm_rows`), and with `B` packed beforehand
//!   (what a loop does with its weights);
//! - `vmath/{exp,exp_wide,log,tanh,sigmoid,sin}`: the elementary
//!   functions' slice kernels over 4,096 values (an LSTM gate's);
//! - `fused_pass/ar1_grad/{fused,unfused}`: the loop-free AR(1) gradient
//!   at T = 200,000 with fusion on and off.
//!
//! `cargo bench --bench execute` (quick: 10 samples, ~2 s a case).

#[path = "common/workloads.rs"]
mod common;

use common::{medium_dims, scales};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use eqscan::egraph::runner::Limits;
use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{generate_inputs, Dims};
use eqscan::exec::Value;
use eqscan::extract::CostModel;
use eqscan::lang::{parse_program, Program};
use eqscan::optimize::optimize;
use std::path::PathBuf;
use std::time::Duration;

/// The workload programs, sorted by name, with their medium sizes.
fn workloads() -> Vec<(String, Program, Dims)> {
    common::workloads()
        .into_iter()
        .map(|w| {
            let dims = medium_dims(&w.text, &w.name);
            (w.name, w.program, dims)
        })
        .collect()
}

fn quick<'c>(
    c: &'c mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'c, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g
}

fn bench_workloads(c: &mut Criterion) {
    let rewrites = eqscan::optimize::default_rewrites().expect("the default rules load");
    let mut g = quick(c, "execute");
    for (name, p, dims) in workloads() {
        let inputs = generate_inputs(&p, &dims, &scales(&name)).expect("inputs");
        let refs: Vec<&Value> = inputs.iter().collect();
        let model = CostModel::with_dims(dims.clone());
        let opt = optimize(&p, &rewrites, &Limits::default(), &model)
            .expect("optimize")
            .program;
        for (variant, prog) in [("optimized", &opt), ("unoptimized", &p)] {
            let mut f = Compiled::new(prog, &dims).expect("compile");
            f.call(&refs).expect("first call");
            eprintln!(
                "{name}/{variant}: the executor holds {} bytes",
                f.peak_bytes()
            );
            g.bench_function(BenchmarkId::new(&name, variant), |b| {
                b.iter(|| {
                    f.call(&refs).expect("call");
                })
            });
        }
    }
    g.finish();
}

/// The GARCH(1,1) variance recurrence as written (a scalar loop of a few
/// ops: `garch_grad`'s forward pass, which the optimizer would turn into
/// a `linrec`; here it runs as a loop to measure the per-step cost).
const GARCH_FORWARD: &str = "(program garch_forward
  (input r (f64 T)) (input omega (f64)) (input alpha (f64)) (input beta (f64)) (input s0 (f64))
  (let (S2 ell) (scan
    (sequences (r (taps -1 0)))
    (outputs_info (sitsot s0) (nitsot))
    (non_sequences omega alpha beta)
    (fn (r_prev r_t s_prev om al be)
      (let s (add (add om (mul al (mul r_prev r_prev))) (mul be s_prev)))
      (outputs s (mul -0.5 (add (log s) (div (mul r_t r_t) s)))))))
  (output (sum ell)))";

/// The executor's cost per loop step: `fib` with states of N = 1 and
/// 1024 elements and the GARCH forward recurrence, each compiled to
/// machine code (`native`: the default for loops this long), on the step
/// tape without it (`tape`) and on the plan alone (`plan`), as written
/// (no rewrite removes these loops), throughput in steps.
fn bench_step(c: &mut Criterion) {
    let fib = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/programs/fib.sexp"),
    )
    .expect("fib.sexp");
    let fib = parse_program(&fib).expect("fib parses");
    let garch = parse_program(GARCH_FORWARD).expect("garch_forward parses");
    let steps = 5000i64;
    let cases = [
        ("fib/1", &fib, vec![("T", steps), ("N", 1)]),
        ("fib/1024", &fib, vec![("T", steps), ("N", 1024)]),
        ("garch", &garch, vec![("T", steps + 1)]),
    ];
    let mut g = quick(c, "step");
    for (name, p, dims) in cases {
        let dims: Dims = dims.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let inputs = generate_inputs(p, &dims, &Default::default()).expect("inputs");
        let refs: Vec<&Value> = inputs.iter().collect();
        for (variant, step_tape, native) in [
            ("native", true, true),
            ("tape", true, false),
            ("plan", false, false),
        ] {
            let options = eqscan::exec::plan::PlanOptions {
                step_tape,
                native_steps: if native { Some(0) } else { None },
                ..Default::default()
            };
            let mut f = Compiled::with_options(p, &dims, options).expect("compile");
            f.call(&refs).expect("first call");
            g.throughput(Throughput::Elements(steps as u64));
            g.bench_function(BenchmarkId::new(name, variant), |b| {
                b.iter(|| {
                    f.call(&refs).expect("call");
                })
            });
        }
    }
    // The floor: fib's loop hand-written in Rust over a preallocated
    // output reused from call to call (the best form of WORKLOADS.md:
    // one pass over each row, `0.5·x₋₁ + 0.3·x₋₂ + 0.1` as written).
    for n in [1usize, 1024] {
        let rows = steps as usize;
        let x0: Vec<f64> = (0..n).map(|i| 0.5 * (0.37 * i as f64).sin()).collect();
        let x1: Vec<f64> = (0..n)
            .map(|i| 0.5 * (0.37 * i as f64 + 1.3).sin())
            .collect();
        let mut out = vec![0.0f64; rows * n];
        g.throughput(Throughput::Elements(steps as u64));
        g.bench_function(BenchmarkId::new(format!("fib/{n}"), "floor"), |b| {
            b.iter(|| {
                fib_floor(&x0, &x1, &mut out, n);
                std::hint::black_box(&out);
            })
        });
    }
    g.finish();
}

/// fib's recurrence by hand: row `t` of `out` (rows of `n`) from the two
/// before it, the first two from `x0` and `x1`.
fn fib_floor(x0: &[f64], x1: &[f64], out: &mut [f64], n: usize) {
    for row in 0..out.len() / n {
        let (done, rest) = out.split_at_mut(row * n);
        let (m2, m1) = match row {
            0 => (x0, x1),
            1 => (x1, &done[..n]),
            _ => {
                let (a, b) = done[(row - 2) * n..].split_at(n);
                (a, b)
            }
        };
        for ((o, &a), &b) in rest[..n].iter_mut().zip(m1).zip(m2) {
            *o = 0.5 * a + 0.3 * b + 0.1;
        }
    }
}

/// The loop-free AR(1) gradient (the optimized `ar1_grad`: residuals
/// from two slices of `x`, a `where` making ones, four sums, reversed
/// slices) at T = 200,000, with fusion on (one pass per group) and off
/// (node by node), throughput in elements of `x`.
fn bench_fused_pass(c: &mut Criterion) {
    let text = "(program ar1_grad_opt
      (input x (f64 T)) (input c (f64)) (input phi (f64)) (input log_sigma (f64))
      (let _v0 (slice x 0 -1 1))
      (let _v1 (sub (sub (slice x 1 none 1) c) (mul phi _v0)))
      (let _v2 (mul -0.5 (mul _v1 _v1)))
      (let _v3 (exp (mul log_sigma -2.0)))
      (let _v4 (sub (mul _v2 _v3) log_sigma))
      (let _v5 (where true (fill (f64) 1.0) _v4))
      (let _v6 (mul _v1 (mul -0.5 (mul _v3 _v5))))
      (let _v7 (slice (add _v6 _v6) none none -1))
      (output (sum _v4) (neg (sum _v7 0)) (neg (sum (mul (slice _v0 none none -1) _v7) 0))
              (sub (mul -2.0 (mul _v3 (sum (mul _v2 _v5) 0))) (sum _v5 0))))";
    let p = parse_program(text).expect("the program parses");
    let t = 200_000i64;
    let dims: Dims = [("T".to_string(), t)].into();
    let inputs = generate_inputs(&p, &dims, &Default::default()).expect("inputs");
    let refs: Vec<&Value> = inputs.iter().collect();
    let mut g = quick(c, "fused_pass");
    g.throughput(Throughput::Elements(t as u64));
    for (variant, fuse) in [("fused", true), ("unfused", false)] {
        let options = eqscan::exec::plan::PlanOptions {
            fuse,
            ..Default::default()
        };
        let mut f = Compiled::with_options(&p, &dims, options).expect("compile");
        f.call(&refs).expect("first call");
        g.bench_function(BenchmarkId::new("ar1_grad", variant), |b| {
            b.iter(|| {
                f.call(&refs).expect("call");
            })
        });
    }
    g.finish();
}

/// A loop of 5,000 steps over a vector state of 64, `h = tanh(0.5 h + x)`
/// with a step counter, as a for loop (`n_steps 5000`) and as a while loop
/// whose condition stops it after the same 5,000 steps (`(until (ge k
/// 5000))`, `n_steps` 10^9): the cost of a while loop's step against a
/// for loop's, on the step tape (without native code, which a while loop
/// does not use) and on the plan, throughput in steps.
fn bench_while_step(c: &mut Criterion) {
    let body = |until: &str, n_steps: &str| {
        format!(
            "(program w (input x (f64 64)) (input h0 (f64 64))
              (let (H K) (scan (outputs_info (sitsot h0) (sitsot (zeros (f64))))
                (non_sequences x) (n_steps {n_steps})
                (fn (h k xv)
                  (let h1 (tanh (add (mul h 0.5) xv)))
                  (let k1 (add k 1.0))
                  (outputs h1 k1{until}))))
              (output (index H -1) (index K -1)))"
        )
    };
    let steps = 5000u64;
    let programs = [
        ("for", body("", "5000")),
        ("while", body(" (until (ge k1 5000.0))", "1000000000")),
    ];
    let mut g = quick(c, "while_step");
    for (name, text) in programs {
        let p = parse_program(&text).expect("the loop parses");
        let dims = Dims::new();
        let inputs = generate_inputs(&p, &dims, &Default::default()).expect("inputs");
        let refs: Vec<&Value> = inputs.iter().collect();
        for (variant, step_tape) in [("tape", true), ("plan", false)] {
            let options = eqscan::exec::plan::PlanOptions {
                step_tape,
                native_steps: None,
                ..Default::default()
            };
            let mut f = Compiled::with_options(&p, &dims, options).expect("compile");
            f.call(&refs).expect("first call");
            g.throughput(Throughput::Elements(steps));
            g.bench_function(BenchmarkId::new(name, variant), |b| {
                b.iter(|| {
                    f.call(&refs).expect("call");
                })
            });
        }
    }
    g.finish();
}

criterion_group!(
    benches,
    bench_workloads,
    bench_step,
    bench_while_step,
    bench_fused_pass,
    bench_products,
    bench_transcendentals
);

/// Each elementary function's slice kernel over 4,096 values (one LSTM
/// gate's pre-activations) within ±3, `exp` also over ±700 (its core's
/// range) and `log` over (0, 700], throughput in elements.
fn bench_transcendentals(c: &mut Criterion) {
    use eqscan::exec::ops::vmath::{map_slice, Func};
    let n = 4096;
    let gate: Vec<f64> = (0..n).map(|i| 3.0 * (0.37 * i as f64).sin()).collect();
    let wide: Vec<f64> = (0..n).map(|i| 700.0 * (0.37 * i as f64).sin()).collect();
    let positive: Vec<f64> = wide.iter().map(|x| x.abs() + 1e-3).collect();
    let mut out = vec![0.0; n];
    let mut g = quick(c, "vmath");
    g.throughput(Throughput::Elements(n as u64));
    for (name, f, src) in [
        ("exp", Func::Exp, &gate),
        ("exp_wide", Func::Exp, &wide),
        ("log", Func::Log, &positive),
        ("tanh", Func::Tanh, &gate),
        ("sigmoid", Func::Sigmoid, &gate),
        ("sin", Func::Sin, &gate),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                map_slice(f, src, &mut out);
                std::hint::black_box(&out);
            })
        });
    }
    g.finish();
}

/// One matrix product at the shapes the loop programs run (see the
/// module docs), each way the executor can compute it; the results are
/// checked to be the same bits first.
fn bench_products(c: &mut Criterion) {
    use eqscan::exec::ops::{gemm, prepacked};
    use ndarray::linalg::general_mat_mul;
    use ndarray::{ArrayView2, ArrayViewMut2};
    let mut g = quick(c, "product");
    for (name, m, k, n) in [
        ("gru_step", 80, 128, 128),
        ("lstm_gate", 64, 64, 64),
        ("gru_hoisted", 4000, 128, 128),
        ("gru_b80_step", 80, 128, 384),
        ("gru_b80_hoisted", 4000, 128, 384),
        ("elman_step", 64, 128, 128),
        ("elman_hoisted", 1200, 64, 128),
    ] {
        let a: Vec<f64> = (0..m * k).map(|i| (0.37 * i as f64).sin()).collect();
        let b: Vec<f64> = (0..k * n).map(|i| (0.37 * i as f64 + 1.3).sin()).collect();
        let mut bp = vec![0.0; prepacked::packed_len(k, n)];
        prepacked::pack(&b, k, n, &mut bp).expect("pack");
        let mut want = vec![0.0; m * n];
        let mut cv = ArrayViewMut2::from_shape((m, n), &mut want[..]).expect("c");
        let (av, bv) = (
            ArrayView2::from_shape((m, k), &a[..]).expect("a"),
            ArrayView2::from_shape((k, n), &b[..]).expect("b"),
        );
        general_mat_mul(1.0, &av, &bv, 0.0, &mut cv);
        let mut got = vec![0.0; m * n];
        gemm::gemm_rows_prepacked(&a, &b, &bp, m, k, n, &mut got).expect("product");
        assert!(
            got.iter()
                .zip(&want)
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "{name}: the packed-B kernel differs from matrixmultiply"
        );
        g.throughput(Throughput::Elements((m * k * n) as u64));
        g.bench_function(BenchmarkId::new(name, "matrixmultiply"), |bch| {
            bch.iter(|| {
                let mut cv = ArrayViewMut2::from_shape((m, n), &mut got[..]).expect("c");
                general_mat_mul(1.0, &av, &bv, 0.0, &mut cv);
            })
        });
        g.bench_function(BenchmarkId::new(name, "packed_b"), |bch| {
            bch.iter(|| gemm::gemm_rows(&a, &b, m, k, n, &mut got).expect("product"))
        });
        g.bench_function(BenchmarkId::new(name, "prepacked"), |bch| {
            bch.iter(|| gemm::gemm_rows_prepacked(&a, &b, &bp, m, k, n, &mut got).expect("product"))
        });
    }
    g.finish();
}

criterion_main!(benches);
