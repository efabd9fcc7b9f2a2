//! Property: the gradient of a random program with loops is computed the
//! same optimized as written, and equals finite differences.
//!
//! `tests/progen` generates random well-typed programs with scans (as for
//! `tests/proptest_scan.rs`). Each becomes a gradient program
//! ([`with_grad`]): its f64 outputs are bound, the cost is
//! L = Σ_k sum(tanh(out_k)) (bounded, and every element matters), and the
//! outputs are L and `(grad L X ...)` for every f64 input X. Then:
//!
//! - `grad` expands (`eqscan::grad::expand`) and the expanded program runs
//!   on the data rule's inputs;
//! - optimized with the default rewrites (limits as in
//!   `tests/proptest_scan.rs`), it computes the same outputs (dtype and
//!   shape equal, values within rtol 1e-8 / atol 1e-10);
//! - one program in four that has no kink (`abs`, `maximum`, `minimum`,
//!   `max`, `min`: finite differences are undefined at a tie) also passes
//!   the finite-difference check of `tests/common/fd.rs` on the program
//!   as written.
//!
//! Ignored until `grad` differentiates loops (run it with `cargo test
//! --release --test proptest_grad -- --ignored`). Environment:
//! `EQSCAN_PROPTEST_GRAD_CASES` (default 100),
//! `EQSCAN_PROPTEST_SEED` (a fixed seed; default 13). A failing program is
//! printed with the message; the case being run is always in
//! `$CARGO_TARGET_TMPDIR/proptest_grad_last.sexp`.

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
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use std::collections::BTreeMap;
use std::time::Duration;

const RTOL: f64 = 1e-8;
const ATOL: f64 = 1e-10;

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
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
/// no op with a kink or a tie.
fn smooth(text: &str) -> bool {
    ["(abs ", "(maximum ", "(minimum ", "(max ", "(min "]
        .iter()
        .all(|k| !text.contains(k))
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// What one program gave.
enum Outcome {
    Pass { fd: bool },
    Skip,
    Fail(String),
}

fn check(
    text: &str,
    dims: &Dims,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    figures: &mut OptimizeFigures,
) -> Outcome {
    let Ok(generated) = parse_program(text) else {
        return Outcome::Fail("the generated program does not parse".into());
    };
    let Some(gtext) = with_grad(text, &generated) else {
        return Outcome::Skip;
    };
    let _ = std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("proptest_grad_last.sexp"),
        &gtext,
    );
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
            return fail(format!("output {k}, optimized against as written: {m}"));
        }
    }
    let fd = smooth(&gtext) && fnv(&gtext).is_multiple_of(4);
    if fd {
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

#[test]
#[ignore = "every generated program has a loop: needs grad of loops, not in helper/grad yet"]
fn gradients_of_random_programs() {
    let cases = env_num("EQSCAN_PROPTEST_GRAD_CASES", 100) as u32;
    let mut config = Config::with_cases(cases);
    config.failure_persistence = None;
    config.max_shrink_iters = 256;
    config.rng_seed = RngSeed::Fixed(env_num("EQSCAN_PROPTEST_SEED", 13));
    let mut runner = TestRunner::new(config);
    let rewrites = default_rewrites().expect("shipped rules load");
    let counts = std::cell::RefCell::new((0usize, 0usize, 0usize));
    let figures = std::cell::RefCell::new(OptimizeFigures::default());
    let failed = std::cell::RefCell::new(BTreeMap::<String, usize>::new());
    let result = runner.run(&prop::collection::vec(any::<u8>(), 0..600), |stream| {
        let g = progen::program(&stream);
        let dims: Dims = [("T".to_string(), g.t)].into();
        match check(&g.text, &dims, &rewrites, &mut figures.borrow_mut()) {
            Outcome::Pass { fd } => {
                let mut c = counts.borrow_mut();
                c.0 += 1;
                c.1 += fd as usize;
                Ok(())
            }
            Outcome::Skip => {
                counts.borrow_mut().2 += 1;
                Ok(())
            }
            Outcome::Fail(m) if std::env::var("EQSCAN_PROPTEST_KEEP_GOING").is_ok() => {
                let kind = m.split(':').next().unwrap_or("").to_string();
                *failed.borrow_mut().entry(kind).or_insert(0) += 1;
                Ok(())
            }
            Outcome::Fail(m) => Err(TestCaseError::fail(m)),
        }
    });
    eprintln!(
        "failures by kind (EQSCAN_PROPTEST_KEEP_GOING): {:?}",
        failed.borrow()
    );
    let (pass, fd, skip) = *counts.borrow();
    eprintln!("{pass} gradient programs passed ({fd} with finite differences), {skip} skipped (nothing to differentiate)");
    eprintln!("{}", figures.borrow().summary());
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(pass > 0, "no program was checked");
}
