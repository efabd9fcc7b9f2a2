//! Property: the gradient of a random program with loops is computed the
//! same optimized as written, and equals finite differences.
//!
//! `tests/progen` generates random well-typed programs with scans (as for
//! `tests/proptest_scan.rs`: every loop form, nested loops, non-sequences,
//! several outputs). Each becomes a gradient program ([`with_grad`]): its
//! f64 outputs are bound, the cost is L = Σ_k sum(tanh(out_k)) (bounded,
//! and every element matters), and the outputs are L and `(grad L X ...)`
//! for every f64 input X (so with respect to inputs a loop reads as a
//! sequence, an init or a non-sequence, and inputs only the top level
//! reads). Then:
//!
//! - `grad` expands (`eqscan::grad::expand`) and the expanded program runs
//!   on the data rule's inputs;
//! - optimized with the default rewrites (limits as in
//!   `tests/proptest_scan.rs`), it computes the same outputs (dtype and
//!   shape equal, values within rtol 1e-8 / atol 1e-10);
//! - one program in four (`EQSCAN_PROPTEST_GRAD_FD`) that has no kink
//!   ([`smooth`]: finite differences are undefined at a tie) also passes
//!   the finite-difference check of `tests/common/fd.rs` on the program
//!   as written, at the inputs plus `FD_SHIFT` (the data rule's exact
//!   zeros sit on the kink of a `where` against zeros).
//!
//! A panic in any step is a failure. Environment:
//! - `EQSCAN_PROPTEST_GRAD_CASES` — the number of programs (default
//!   [`DEFAULT_CASES`], about 10 s in `--release`);
//! - `EQSCAN_PROPTEST_SEED` — the RNG seed (default 13);
//! - `EQSCAN_PROPTEST_GRAD_FD` — one program in this many smooth ones gets
//!   the finite-difference check (default 4);
//! - `EQSCAN_PROPTEST_KEEP_GOING` — record failures and go on; at the end
//!   they are grouped by kind and `EQSCAN_PROPTEST_REDUCE_MAX` (2) of each
//!   kind are reduced (`progen::reduce`, `EQSCAN_PROPTEST_REDUCE_SECS`,
//!   default 120) and reported.
//!
//! Reduced failing programs (the gradient program, with `; dims:` and
//! `; wrt:` headers: ready for `tests/cases/grad/`) are printed and
//! written to `$CARGO_TARGET_TMPDIR/proptest_grad_failures/`; the case
//! being run is always in `proptest_grad_last.sexp` there. `reduce_a_file`
//! (ignored) reduces the generated program (without its `grad`) in
//! `EQSCAN_PROPTEST_REDUCE`.

mod common;
mod progen;

use common::compare;
use common::fd::fd_check;
use common::optimize_figures::OptimizeFigures;
use egg::Rewrite;
use eqscan::egraph::analysis::TensorAnalysis;
use eqscan::egraph::runner::Limits;
use eqscan::egraph::term::TNode;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::Value;
use eqscan::extract::cost::CostModel;
use eqscan::lang::{parse_program, DType, Program};
use eqscan::optimize::{default_rewrites, optimize};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const RTOL: f64 = 1e-8;
const ATOL: f64 = 1e-10;
/// Added to every f64 input for the finite-difference check.
const FD_SHIFT: f64 = 0.0371;
/// Programs checked by default (`cargo test --release`).
const DEFAULT_CASES: u64 = 150;

type Rewrites = Vec<Rewrite<TNode, TensorAnalysis>>;

fn env_num(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

fn tmp_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// The top-level expressions of `s` (balanced parentheses or atoms).
fn split_exprs(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
                if depth == 0 {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c if c.is_whitespace() && depth == 0 => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

/// The gradient program of a generated one, or `None` when it has no f64
/// output or no f64 input (nothing to differentiate). `p` is the parsed
/// generated program (for the outputs' and inputs' dtypes).
fn with_grad(text: &str, p: &Program) -> Option<String> {
    let at = text.rfind("(output ")?;
    let body = text[at + "(output ".len()..].trim_end();
    let body = body.strip_suffix("))")?;
    let outs = split_exprs(body);
    if outs.len() != p.n_outputs() {
        return None;
    }
    let float_outs: Vec<usize> = (0..outs.len())
        .filter(|&k| p.graph.node(p.graph.outputs[k]).ty().dtype == DType::F64)
        .collect();
    let xs: Vec<&str> = p
        .inputs()
        .filter(|(_, t)| t.dtype == DType::F64)
        .map(|(n, _)| n)
        .collect();
    if float_outs.is_empty() || xs.is_empty() {
        return None;
    }
    let mut s = text[..at].to_string();
    for &k in &float_outs {
        s.push_str(&format!("  (let gcost_o{k} {})\n", outs[k]));
    }
    let mut cost = format!("(sum (tanh gcost_o{}))", float_outs[0]);
    for &k in &float_outs[1..] {
        cost = format!("(add {cost} (sum (tanh gcost_o{k})))");
    }
    s.push_str(&format!("  (let gcost_L {cost})\n"));
    let names: Vec<String> = (0..xs.len()).map(|j| format!("gcost_g{j}")).collect();
    if xs.len() == 1 {
        s.push_str(&format!("  (let gcost_g0 (grad gcost_L {}))\n", xs[0]));
    } else {
        s.push_str(&format!(
            "  (let ({}) (grad gcost_L {}))\n",
            names.join(" "),
            xs.join(" ")
        ));
    }
    s.push_str(&format!("  (output gcost_L {}))\n", names.join(" ")));
    Some(s)
}

/// Whether finite differences are defined near the data rule's inputs:
/// no elementwise op with a kink (`abs` at 0, `maximum` and `minimum` at a
/// tie: a state and an update can tie exactly). The reductions `max` and
/// `min` stay: they mostly shift a softmax or a logsumexp, whose value
/// does not depend on the shift, and random data do not tie.
fn smooth(text: &str) -> bool {
    ["(abs ", "(maximum ", "(minimum "]
        .iter()
        .all(|k| !text.contains(k))
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// What one program gave.
#[derive(Clone, Debug)]
enum Outcome {
    Pass {
        fd: bool,
    },
    /// Nothing to differentiate (no f64 output or no f64 input).
    Skip,
    /// The property fails; the message starts with its kind (up to ':').
    Fail(String),
}

/// The kind of a failure: its message up to the first ':'.
fn kind(msg: &str) -> &str {
    msg.split(':').next().unwrap_or(msg)
}

/// The message of a caught panic.
fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Checks the generated program `text`, a panic caught as a failure.
fn check(text: &str, dims: &Dims, rewrites: &Rewrites, fd_every: u64) -> Outcome {
    check_recording(
        text,
        dims,
        rewrites,
        fd_every,
        &mut OptimizeFigures::default(),
    )
}

/// [`check`], recording the optimizer's figures of the program in `figures`.
fn check_recording(
    text: &str,
    dims: &Dims,
    rewrites: &Rewrites,
    fd_every: u64,
    figures: &mut OptimizeFigures,
) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| {
        check_inner(text, dims, rewrites, fd_every, figures)
    })) {
        Ok(o) => o,
        Err(e) => Outcome::Fail(format!("panic: {}", panic_message(e))),
    }
}

fn check_inner(
    text: &str,
    dims: &Dims,
    rewrites: &Rewrites,
    fd_every: u64,
    figures: &mut OptimizeFigures,
) -> Outcome {
    let Ok(generated) = parse_program(text) else {
        return Outcome::Fail("generator: the generated program does not parse".into());
    };
    let Some(gtext) = with_grad(text, &generated) else {
        return Outcome::Skip;
    };
    let _ = std::fs::write(tmp_file("proptest_grad_last.sexp"), &gtext);
    let fail = |m: String| Outcome::Fail(format!("{m}\nprogram:\n{gtext}"));
    let written = match parse_program(&gtext) {
        Ok(p) => p,
        Err(e) => return fail(format!("parse: {e}")),
    };
    let expanded = match eqscan::grad::expand(&written) {
        Ok(p) => p,
        Err(e) => return fail(format!("expand: {e}")),
    };
    let inputs = match generate_inputs(&written, dims, &BTreeMap::new()) {
        Ok(v) => v,
        Err(e) => return fail(format!("inputs: {e}")),
    };
    let reference = match run_program(&expanded, inputs.clone(), dims) {
        Ok(v) => v,
        Err(e) => return fail(format!("run as written: {e}")),
    };
    let limits = Limits {
        iter_limit: 10,
        node_limit: 10_000,
        time_limit: Duration::from_millis(1000),
        plateau_iters: match std::env::var("EQSCAN_PROPTEST_PLATEAU") {
            Ok(v) => v.parse().ok().filter(|&k: &usize| k > 0),
            Err(_) => Limits::default().plateau_iters,
        },
        restarts: Limits::DEFAULT_RESTARTS,
    };
    let model = CostModel::with_dims(dims.clone());
    let t0 = std::time::Instant::now();
    let report = match optimize(&expanded, rewrites, &limits, &model) {
        Ok(r) => r,
        Err(e) => return fail(format!("optimize: {e}")),
    };
    figures.add("grad", &gtext, &report, t0.elapsed().as_secs_f64() * 1e3);
    let optimized = match run_program(&report.program, inputs.clone(), dims) {
        Ok(v) => v,
        Err(e) => return fail(format!("run optimized: {e}")),
    };
    for (k, (o, r)) in optimized.iter().zip(&reference).enumerate() {
        if let Err(m) = compare(o, r, RTOL, ATOL) {
            return fail(format!("optimized against as written: output {k}: {m}"));
        }
    }
    let fd = smooth(&gtext) && fnv(&gtext).is_multiple_of(fd_every.max(1));
    if fd {
        // The data rule makes some elements exactly 0, where a `where`
        // against zeros has its kink: finite differences run at inputs
        // moved off those points.
        let inputs: Vec<Value> = inputs
            .iter()
            .map(|v| match v {
                Value::F64(a) => Value::F64(a.mapv(|x| x + FD_SHIFT)),
                other => other.clone(),
            })
            .collect();
        let reference = match run_program(&expanded, inputs.clone(), dims) {
            Ok(v) => v,
            Err(e) => return fail(format!("run as written at the shifted inputs: {e}")),
        };
        let wrt: Vec<(usize, String)> = written
            .inputs()
            .enumerate()
            .filter(|(_, (_, t))| t.dtype == DType::F64)
            .map(|(k, (n, _))| (k, n.to_string()))
            .collect();
        let mut run =
            |xs: &[Value]| run_program(&expanded, xs.to_vec(), dims).map_err(|e| e.to_string());
        if let Err(m) = fd_check(&mut run, &inputs, &wrt, &reference) {
            return fail(format!("finite differences: {m}"));
        }
    }
    Outcome::Pass { fd }
}

/// The `; dims:` sizes of a program's text.
fn dims_of(text: &str) -> Dims {
    common::header_pairs(text, "dims")
}

/// A failing generated program as a gradient case: the `; dims:` and
/// `; wrt:` headers and the gradient program.
fn as_case(text: &str) -> String {
    let Ok(p) = parse_program(text) else {
        return text.to_string();
    };
    let Some(gtext) = with_grad(text, &p) else {
        return text.to_string();
    };
    let wrt: Vec<&str> = p
        .inputs()
        .filter(|(_, t)| t.dtype == DType::F64)
        .map(|(n, _)| n)
        .collect();
    let body: String = gtext
        .lines()
        .filter(|l| !l.trim_start().starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect();
    let dims: Vec<String> = dims_of(text)
        .iter()
        .map(|(k, v): (&String, &i64)| format!("{k}={v}"))
        .collect();
    format!(
        "; wrt: {}\n; dims: {}\n{body}",
        wrt.join(" "),
        dims.join(" ")
    )
}

/// Reduces a failing generated program (`progen::reduce`) to a smaller
/// one that fails with the same kind, within `EQSCAN_PROPTEST_REDUCE_SECS`;
/// returns it as a gradient case and its message.
fn reduce_failure(text: &str, msg: &str, rewrites: &Rewrites) -> (String, String) {
    let dims = dims_of(text);
    let want = kind(msg).to_string();
    let budget = Duration::from_secs(env_num("EQSCAN_PROPTEST_REDUCE_SECS", 120));
    let header: String = text
        .lines()
        .filter(|l| l.trim_start().starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect();
    // Reduced programs always get the finite-difference check when the
    // failure is one (fd_every = 1).
    let fd_every = if want == "finite differences" {
        1
    } else {
        u64::MAX
    };
    let reduced = progen::reduce::reduce(text, budget, &mut |cand| {
        let cand = format!("{header}{cand}");
        matches!(check(&cand, &dims, rewrites, fd_every), Outcome::Fail(m) if kind(&m) == want)
    });
    let reduced = format!("{header}{reduced}");
    let last = match check(&reduced, &dims, rewrites, fd_every) {
        Outcome::Fail(m) => m,
        _ => msg.to_string(),
    };
    (as_case(&reduced), last)
}

#[test]
fn gradients_of_random_programs() {
    let cases = env_num("EQSCAN_PROPTEST_GRAD_CASES", DEFAULT_CASES) as u32;
    let fd_every = env_num("EQSCAN_PROPTEST_GRAD_FD", 4);
    let keep_going = std::env::var("EQSCAN_PROPTEST_KEEP_GOING").is_ok();
    let seed = env_num("EQSCAN_PROPTEST_SEED", 13);
    let mut config = Config::with_cases(cases);
    config.failure_persistence = None;
    config.max_shrink_iters = 1024;
    config.max_shrink_time = 1000 * env_num("EQSCAN_PROPTEST_SHRINK_SECS", 60) as u32;
    config.rng_seed = RngSeed::Fixed(seed);
    let mut runner = TestRunner::new(config);
    let rewrites = default_rewrites().expect("shipped rules load");
    let counts = std::cell::RefCell::new((0usize, 0usize, 0usize));
    let coverage = std::cell::RefCell::new(progen::Coverage::default());
    let figures = std::cell::RefCell::new(OptimizeFigures::default());
    let failures: std::cell::RefCell<Vec<(String, String)>> = Default::default();
    let start = Instant::now();
    let result = runner.run(&prop::collection::vec(any::<u8>(), 0..600), |stream| {
        let g = progen::program(&stream);
        let dims: Dims = [("T".to_string(), g.t)].into();
        let text = g.text.clone();
        match check_recording(&text, &dims, &rewrites, fd_every, &mut figures.borrow_mut()) {
            Outcome::Pass { fd } => {
                let mut c = counts.borrow_mut();
                c.0 += 1;
                c.1 += fd as usize;
                coverage.borrow_mut().add(&g);
                Ok(())
            }
            Outcome::Skip => {
                counts.borrow_mut().2 += 1;
                Ok(())
            }
            Outcome::Fail(m) if keep_going => {
                failures.borrow_mut().push((text, m));
                Ok(())
            }
            Outcome::Fail(m) => Err(TestCaseError::fail(m)),
        }
    });
    let (pass, fd, skip) = *counts.borrow();
    let failures = failures.into_inner();
    eprintln!(
        "seed {seed}: {pass} gradient programs passed ({fd} with finite differences), \
         {skip} skipped (nothing to differentiate), {} failed, in {:.1} s",
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    eprintln!("{}", figures.borrow().summary());
    let cov = coverage.borrow();
    let line: Vec<String> = progen::FEATURES
        .iter()
        .map(|f| format!("{f}={}", cov.counts.get(f).copied().unwrap_or(0)))
        .collect();
    eprintln!(
        "coverage over {} passing programs: {}",
        cov.programs,
        line.join(" ")
    );

    let mut report: Vec<(String, String)> = Vec::new();
    match result {
        Ok(()) => {}
        Err(TestError::Fail(_, stream)) => {
            let g = progen::program(&stream);
            let text = g.text.clone();
            let msg = match check(&text, &dims_of(&text), &rewrites, fd_every) {
                Outcome::Fail(m) => m,
                _ => panic!("the shrunk program no longer fails:\n{text}"),
            };
            report.push(reduce_failure(&text, &msg, &rewrites));
        }
        Err(e) => panic!("{e}"),
    }
    if !failures.is_empty() {
        let mut kinds: BTreeMap<String, Vec<&(String, String)>> = BTreeMap::new();
        for f in &failures {
            let first = f.1.lines().next().unwrap_or("");
            let k = if kind(&f.1) == "expand" || kind(&f.1) == "panic" {
                first.chars().take(120).collect()
            } else {
                kind(&f.1).to_string()
            };
            kinds.entry(k).or_default().push(f);
        }
        let per = env_num("EQSCAN_PROPTEST_REDUCE_MAX", 2) as usize;
        for (k, fs) in &kinds {
            eprintln!("{k}: {} failing programs", fs.len());
            for (text, msg) in fs.iter().take(per) {
                // The reducer keeps the kind, not the message: the
                // original is what to replay when they differ.
                eprintln!("original failing program:\n{text}{msg}");
                report.push(reduce_failure(text, msg, &rewrites));
            }
        }
    }
    if !report.is_empty() {
        let dir = tmp_file("proptest_grad_failures");
        common::fail_with_reduced(&dir, &format!("{seed}_"), &report);
    }
    assert!(pass > 0, "no program was checked");
}

/// Reduces the failing generated program (without its `grad`: the
/// harness adds it) in the file `EQSCAN_PROPTEST_REDUCE`: `cargo test
/// --release --test proptest_grad -- --ignored reduce_a_file --nocapture`.
#[test]
#[ignore = "a tool: needs EQSCAN_PROPTEST_REDUCE=FILE"]
fn reduce_a_file() {
    let path = std::env::var("EQSCAN_PROPTEST_REDUCE").expect("EQSCAN_PROPTEST_REDUCE=FILE");
    let text = std::fs::read_to_string(&path).expect("the file reads");
    let rewrites = default_rewrites().expect("shipped rules load");
    match check(&text, &dims_of(&text), &rewrites, 1) {
        Outcome::Fail(msg) => {
            let (text, msg) = reduce_failure(&text, &msg, &rewrites);
            eprintln!("{text}{msg}");
        }
        other => panic!("{path} does not fail: {other:?}"),
    }
}
