//! Property: optimizing a program with loops never changes what it
//! computes.
//!
//! `tests/progen` generates random well-typed programs with scans (every
//! clause kind, nested scans, scans reading other scans' outputs, running
//! sums); for each, `optimize` with the default rewrites must return a
//! program that is no costlier, prints and parses back, and computes the
//! same outputs on the data rule's inputs (dtype and shape equal, values
//! within rtol 1e-8 / atol 1e-10, nan equal to nan); in one case of eight,
//! optimizing twice must print the same program. A panic is a failure.
//!
//! Both programs also run on inputs at extreme scales (`EXTREMES`): the
//! data rule times 1e-300 and times 2e3, values in 705..715 and
//! -715..-705 (where `exp` overflows), and a mix of these per input. There
//! the floating-point contract of issue 11 holds: an integer output is
//! unchanged, a finite output stays finite, an infinite one keeps its
//! sign, and finite values are equal within rtol 1e-8, atol 1e-10 times
//! the output's largest finite magnitude (at least 1e-10: the written
//! program may lose a tiny input to absorption, `0.5 + (x - 0.5)`, where
//! the optimized one keeps it), plus ten times how far the written
//! program's output moves when its inputs are multiplied by 1 + 1e-12
//! (`sin(Z * W * x)` at 1e3 rounds its 1e9 argument differently when
//! reassociated). The generator writes stable forms (a max-shifted
//! `exp`, logsumexp, softmax) for this to bite on.
//!
//! Environment:
//! - `EQSCAN_PROPTEST_CASES` — the number of cases (default 250, about a
//!   minute in `--release`);
//! - `EQSCAN_PROPTEST_SEED` — a fixed RNG seed (default: proptest's own);
//! - `EQSCAN_PROPTEST_ITERS`, `_NODES`, `_TIME_MS` — saturation limits
//!   (default 10 iterations, 10,000 nodes, 1,000 ms);
//! - `EQSCAN_PROPTEST_PLATEAU` — iterations without a better cost before
//!   saturation stops (`Limits::plateau_iters`; default the optimizer's,
//!   0 never);
//! - `EQSCAN_PROPTEST_FIGURES`, `EQSCAN_PROPTEST_UNSATURATED` — where to
//!   write each program's optimizer figures, and the programs that did not
//!   saturate (`tests/common/optimize_figures.rs`);
//! - `EQSCAN_PROPTEST_RULES` — `default`, `scan` (the Scan rewrites alone)
//!   or rule files `a.rules:b.rules` (with the Scan rewrites);
//! - `EQSCAN_PROPTEST_KEEP_GOING` — record failures and go on; at the end
//!   they are grouped (fails with the Scan rewrites alone or not, runs
//!   backwards or not) and `EQSCAN_PROPTEST_REDUCE_MAX` (2) of each group
//!   are reduced and reported;
//! - `EQSCAN_PROPTEST_SHRINK_SECS` (60), `EQSCAN_PROPTEST_REDUCE_SECS`
//!   (120) — time for proptest's shrinking of the decision stream, then for
//!   reducing the program text (`progen::reduce`).
//!
//! Reduced failing programs are printed and written to
//! `$CARGO_TARGET_TMPDIR/proptest_scan_failures/`; the case being run is
//! always in `proptest_scan_last.sexp` there (a stack overflow aborts the
//! process before proptest can report). Minimal failing programs found so
//! far live in `tests/cases/scan_rules/prop_*.sexp`, and the trial
//! `saved::NAME` checks each of them with the same property;
//! `reduce_a_file` (ignored) reduces the program in
//! `EQSCAN_PROPTEST_REDUCE`.

mod common;
mod progen;

use common::harness::{self, case_files, case_name, plain_trials};
use common::{compare, header_pairs, rel, stem};
use eqscan::egraph::analysis::TensorAnalysis;
use eqscan::egraph::runner::Limits;
use eqscan::egraph::term::TNode;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::extract::cost::CostModel;
use eqscan::lang::{parse_program, print_program};
use eqscan::optimize::{default_rewrites, optimize, Report};
use libtest_mimic::{Failed, Trial};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const RTOL: f64 = 1e-8;
const ATOL: f64 = 1e-10;
const DEFAULT_CASES: u32 = 250;

fn env_num(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

fn limits() -> Limits {
    Limits {
        iter_limit: env_num("EQSCAN_PROPTEST_ITERS", 10) as usize,
        node_limit: env_num("EQSCAN_PROPTEST_NODES", 10_000) as usize,
        time_limit: Duration::from_millis(env_num("EQSCAN_PROPTEST_TIME_MS", 1_000)),
        plateau_iters: match env_num(
            "EQSCAN_PROPTEST_PLATEAU",
            Limits::default().plateau_iters.unwrap_or(0) as u64,
        ) {
            0 => None,
            k => Some(k as usize),
        },
        restarts: Limits::DEFAULT_RESTARTS,
    }
}

/// The rewrites under test: `EQSCAN_PROPTEST_RULES` unset or `default`
/// gives the shipped rule sets and the Scan rewrites; `scan` the Scan
/// rewrites alone; otherwise a `:`-separated list of rule files, used
/// with the Scan rewrites (to tell a Scan rewrite's failure from an
/// algebraic rule's).
fn rewrites_under_test() -> Rewrites {
    match std::env::var("EQSCAN_PROPTEST_RULES").as_deref() {
        Err(_) | Ok("default") => default_rewrites().expect("the shipped rules load"),
        Ok("scan") => eqscan::optimize::rewrites(&[], true),
        Ok(paths) => {
            let mut rules = Vec::new();
            for path in paths.split(':') {
                let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
                rules.extend(
                    eqscan::rules::parse_rules(&text, path)
                        .unwrap_or_else(|e| panic!("{path}: {} rule errors", e.len())),
                );
            }
            eqscan::optimize::rewrites(&rules, true)
        }
    }
}

fn tmp_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

type Rewrites = Vec<egg::Rewrite<TNode, TensorAnalysis>>;

/// Figures over the run, printed at the end.
#[derive(Default)]
struct Stats {
    coverage: progen::Coverage,
    cases: usize,
    changed: usize,
    scans_removed: usize,
    determinism_checks: usize,
    stop_reasons: BTreeMap<&'static str, usize>,
    rules: BTreeMap<String, usize>,
    slowest: (f64, String),
    /// Optimizing times in ms, to print a distribution.
    times: Vec<f64>,
    /// Stop reasons, costs, times and e-graph sizes of the optimizer.
    figures: common::optimize_figures::OptimizeFigures,
}

/// Optimizes `p`, turning a panic into an error.
fn optimize_caught(
    p: &eqscan::lang::Program,
    rewrites: &Rewrites,
    limits: &Limits,
) -> Result<Report, String> {
    let model = CostModel::default();
    match catch_unwind(AssertUnwindSafe(|| optimize(p, rewrites, limits, &model))) {
        Ok(r) => r.map_err(|e| format!("optimize failed: {e}")),
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("optimize panicked: {msg}"))
        }
    }
}

/// What checking one program found.
#[derive(Clone, Debug)]
enum Outcome {
    /// The property holds.
    Pass,
    /// The program itself does not parse or run (a generator bug, or a
    /// reducer's candidate to discard).
    Invalid(String),
    /// The property fails; the message starts with its kind (up to ':').
    Fail(String),
}

/// The kind of a failure: its message up to the first ':'.
fn kind(msg: &str) -> &str {
    msg.split(':').next().unwrap_or(msg)
}

/// How the inputs of an extreme-scale run are made.
#[derive(Clone, Copy, Debug)]
enum Extreme {
    /// The data rule times a factor.
    Scaled(f64),
    /// `±(710 + 5 * sin(...))`: values in 705..715, the sign alternating
    /// by input (the first positive).
    Near710,
    /// Each input one of the above, by its position.
    Mixed,
}

/// The extreme-scale runs and their names (in failure messages).
const EXTREMES: &[(Extreme, &str)] = &[
    (Extreme::Scaled(2e-300), "inputs near 1e-300"),
    (Extreme::Scaled(2e3), "inputs near 1e3"),
    (Extreme::Near710, "inputs near +-710"),
    (Extreme::Mixed, "mixed extreme inputs"),
];

/// The inputs of `p` for an extreme-scale run: f64 inputs as the mode
/// says, others by the data rule at scale 1.
fn extreme_inputs(
    p: &eqscan::lang::Program,
    dims: &Dims,
    mode: Extreme,
) -> Result<Vec<eqscan::exec::Value>, String> {
    use eqscan::exec::gen::{generate, value_at};
    use eqscan::exec::Value;
    let shapes = eqscan::exec::run::input_shapes(p, dims).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (k, ((_, ty), shape)) in p.inputs().zip(shapes).enumerate() {
        if ty.dtype != eqscan::lang::DType::F64 {
            out.push(generate(k, ty.dtype, &shape, 1.0));
            continue;
        }
        let mode = match mode {
            Extreme::Mixed => [
                Extreme::Scaled(2e-300),
                Extreme::Near710,
                Extreme::Scaled(2e3),
                Extreme::Near710,
                Extreme::Scaled(1.0),
            ][k % 5],
            m => m,
        };
        let n: usize = shape.iter().product();
        let vals: Vec<f64> = (0..n)
            .map(|i| match mode {
                Extreme::Scaled(s) => value_at(k, i, s),
                _ => {
                    let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                    sign * (710.0 + value_at(k, i, 10.0))
                }
            })
            .collect();
        let a = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), vals)
            .map_err(|e| e.to_string())?;
        out.push(Value::F64(a));
    }
    Ok(out)
}

/// `inputs` with every float multiplied by 1 + 1e-12: how far the written
/// program moves on them bounds the rounding a rewrite may change.
fn nudged(inputs: &[eqscan::exec::Value]) -> Vec<eqscan::exec::Value> {
    use eqscan::exec::Value;
    inputs
        .iter()
        .map(|v| match v {
            Value::F64(a) => Value::F64(a.mapv(|x| x * (1.0 + 1e-12))),
            other => other.clone(),
        })
        .collect()
}

/// The floating-point contract between the written program's outputs
/// `want` and the optimized one's `got` (see the module docs); the error
/// starts with the kind of violation.
fn contract(
    got: &[eqscan::exec::Value],
    want: &[eqscan::exec::Value],
    nearby: Option<&[eqscan::exec::Value]>,
) -> Result<(), String> {
    use eqscan::lang::DType;
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        if g.dtype() != w.dtype() || g.shape() != w.shape() {
            return Err(format!(
                "type changed: output {k}: {:?} {:?} -> {:?} {:?}",
                w.dtype(),
                w.shape(),
                g.dtype(),
                g.shape()
            ));
        }
        let integer = matches!(w.dtype(), DType::I64 | DType::Bool);
        let (ge, we) = (common::elements(g), common::elements(w));
        let near = nearby.and_then(|n| n.get(k)).map(common::elements);
        let m = we
            .iter()
            .filter(|x| x.is_finite())
            .fold(0.0f64, |m, x| m.max(x.abs()));
        for (i, (a, b)) in ge.iter().zip(&we).enumerate() {
            let at = format!("output {k} element {i}: optimized {a:?}, written {b:?}");
            if integer {
                if a != b {
                    return Err(format!("integer output changed: {at}"));
                }
            } else if b.is_finite() && !a.is_finite() {
                return Err(format!("finite output became inf or nan: {at}"));
            } else if b.is_infinite() && a != b {
                return Err(format!("inf output changed: {at}"));
            } else if b.is_finite() && {
                let moved = near
                    .as_ref()
                    .and_then(|n| n.get(i))
                    .map_or(0.0, |c| (b - c).abs());
                (a - b).abs() > RTOL * b.abs() + ATOL * m.max(1.0) + 10.0 * moved
            } {
                return Err(format!("outputs differ beyond the tolerance: {at}"));
            }
        }
    }
    Ok(())
}

/// Checks the property for one program.
fn check_program(
    text: &str,
    dims: &Dims,
    rewrites: &Rewrites,
    check_determinism: bool,
    stats: Option<&mut Stats>,
) -> Outcome {
    let p = match parse_program(text) {
        Ok(p) => p,
        Err(e) => return Outcome::Invalid(format!("the program does not parse: {e}")),
    };
    let scales: BTreeMap<String, f64> = header_pairs(text, "scale");
    let inputs = match generate_inputs(&p, dims, &scales) {
        Ok(i) => i,
        Err(e) => return Outcome::Invalid(format!("generate_inputs: {e}")),
    };
    let want = match run_program(&p, inputs.clone(), dims) {
        Ok(w) => w,
        Err(e) => return Outcome::Invalid(format!("the program does not run: {e}")),
    };
    match check_optimized(
        &p,
        text,
        inputs,
        want,
        dims,
        rewrites,
        check_determinism,
        stats,
    ) {
        Ok(()) => Outcome::Pass,
        Err(msg) => Outcome::Fail(msg),
    }
}

/// The property for a program that runs, given its inputs and outputs.
#[allow(clippy::too_many_arguments)]
fn check_optimized(
    p: &eqscan::lang::Program,
    text: &str,
    inputs: Vec<eqscan::exec::Value>,
    want: Vec<eqscan::exec::Value>,
    dims: &Dims,
    rewrites: &Rewrites,
    check_determinism: bool,
    stats: Option<&mut Stats>,
) -> Result<(), String> {
    let limits = limits();
    let t0 = Instant::now();
    let report = optimize_caught(p, rewrites, &limits)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let printed = print_program(&report.program);
    let fail = |msg: String| format!("{msg}\noptimized program:\n{printed}");
    if report.cost_after > report.cost_before {
        return Err(fail(format!(
            "cost went up: {} -> {}",
            report.cost_before, report.cost_after
        )));
    }
    let reparsed = parse_program(&printed)
        .map_err(|e| fail(format!("the optimized program does not parse back: {e}")))?;
    if reparsed != report.program {
        return Err(fail(
            "the optimized program prints and parses back differently".into(),
        ));
    }
    let got = run_program(&report.program, inputs, dims)
        .map_err(|e| fail(format!("the optimized program fails to run: {e}")))?;
    if got.len() != want.len() {
        return Err(fail(format!(
            "{} outputs instead of {}",
            got.len(),
            want.len()
        )));
    }
    let mut diffs = Vec::new();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        if let Err(msg) = compare(g, w, RTOL, ATOL) {
            diffs.push(format!("output {k}: {msg}"));
        }
    }
    if !diffs.is_empty() {
        return Err(fail(format!(
            "outputs differ after optimizing:\n{}",
            diffs.join("\n")
        )));
    }
    for &(mode, name) in EXTREMES {
        let Ok(inputs) = extreme_inputs(p, dims, mode) else {
            continue;
        };
        // A written program that fails on these inputs says nothing of the
        // optimizer; the optimized one must then fail too (checked by the
        // errors' existence, not their text).
        let want = run_program(p, inputs.clone(), dims);
        let nearby = run_program(p, nudged(&inputs), dims).ok();
        let got = run_program(&report.program, inputs, dims);
        match (want, got) {
            (Ok(w), Ok(g)) => {
                if let Err(msg) = contract(&g, &w, nearby.as_deref()) {
                    let (kind, rest) = msg.split_once(':').unwrap_or((&msg, ""));
                    return Err(fail(format!("{kind} at {name}:{rest}")));
                }
            }
            (Ok(_), Err(e)) => {
                return Err(fail(format!(
                    "the optimized program fails to run at {name}: {e}"
                )))
            }
            (Err(_), _) => {}
        }
    }
    let mut determinism_checked = false;
    if check_determinism && report.stop_reason != "time_limit" {
        let again = optimize_caught(p, rewrites, &limits)?;
        if again.stop_reason != "time_limit" {
            determinism_checked = true;
            let printed2 = print_program(&again.program);
            if printed2 != printed {
                return Err(fail(format!(
                    "optimizing twice gives different programs; the second:\n{printed2}"
                )));
            }
        }
    }
    if let Some(s) = stats {
        s.cases += 1;
        if printed != print_program(p) {
            s.changed += 1;
        }
        s.scans_removed += report.scans_before.saturating_sub(report.scans_after);
        s.determinism_checks += determinism_checked as usize;
        *s.stop_reasons.entry(report.stop_reason.name()).or_insert(0) += 1;
        for (r, n) in &report.rules_applied {
            if r.starts_with("scan-") {
                *s.rules.entry(r.clone()).or_insert(0) += n;
            }
        }
        s.times.push(ms);
        s.figures.add("scan", text, &report, ms);
        if ms > s.slowest.0 {
            s.slowest = (ms, text.to_string());
        }
    }
    Ok(())
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf29ce484222325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// Splits a program's text into its `; dims:` sizes and the program.
fn dims_of(text: &str) -> Dims {
    header_pairs(text, "dims")
}

/// Reduces a failing program (see `progen::reduce`) to a smaller one that
/// fails the same way, within `EQSCAN_PROPTEST_REDUCE_SECS` (default 120).
fn reduce_failure(text: &str, msg: &str, rewrites: &Rewrites) -> (String, String) {
    let dims = dims_of(text);
    let want = kind(msg).to_string();
    let mut last_msg = msg.to_string();
    let budget = Duration::from_secs(env_num("EQSCAN_PROPTEST_REDUCE_SECS", 120));
    let header: String = text
        .lines()
        .filter(|l| l.trim_start().starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect();
    let reduced = progen::reduce::reduce(text, budget, &mut |cand| match check_program(
        cand,
        &dims,
        rewrites,
        want.starts_with("optimizing twice"),
        None,
    ) {
        Outcome::Fail(m) if kind(&m) == want => {
            last_msg = m;
            true
        }
        _ => false,
    });
    // The message of the reduced program.
    if let Outcome::Fail(m) = check_program(&reduced, &dims, rewrites, true, None) {
        last_msg = m;
    }
    (format!("{header}{reduced}"), last_msg)
}

thread_local! {
    /// Results by program text: shrinking often regenerates a program it
    /// has already tried.
    static SEEN: RefCell<HashMap<String, Outcome>> = RefCell::new(HashMap::new());
}

fn optimized_equals_unoptimized_on_random_loop_programs() {
    let cases = env_num("EQSCAN_PROPTEST_CASES", DEFAULT_CASES as u64) as u32;
    let keep_going = std::env::var("EQSCAN_PROPTEST_KEEP_GOING").is_ok();
    let mut config = Config::with_cases(cases);
    config.failure_persistence = None;
    config.max_shrink_iters = 4096;
    config.max_shrink_time = 1000 * env_num("EQSCAN_PROPTEST_SHRINK_SECS", 60) as u32;
    if let Ok(seed) = std::env::var("EQSCAN_PROPTEST_SEED") {
        config.rng_seed = RngSeed::Fixed(seed.parse().expect("EQSCAN_PROPTEST_SEED"));
    }
    let mut runner = TestRunner::new(config);
    let rewrites = rewrites_under_test();
    let stats = Mutex::new(Stats::default());
    let failures: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
    let last = tmp_file("proptest_scan_last.sexp");
    let start = Instant::now();

    let result = runner.run(&prop::collection::vec(any::<u8>(), 0..600), |stream| {
        let g = progen::program(&stream);
        let _ = std::fs::write(&last, &g.text);
        let cached = SEEN.with(|s| s.borrow().get(&g.text).cloned());
        let outcome = match cached {
            Some(o) => o,
            None => {
                let dims: Dims = [("T".to_string(), g.t)].into();
                let mut st = stats.lock().unwrap_or_else(|e| e.into_inner());
                st.coverage.add(&g);
                let det = fnv(&g.text).is_multiple_of(8);
                let o = check_program(&g.text, &dims, &rewrites, det, Some(&mut st));
                SEEN.with(|s| s.borrow_mut().insert(g.text.clone(), o.clone()));
                o
            }
        };
        match outcome {
            Outcome::Pass => Ok(()),
            Outcome::Invalid(msg) => panic!("generator bug: {msg}\n{}", g.text),
            Outcome::Fail(msg) if keep_going => {
                failures.lock().unwrap().push((g.text.clone(), msg));
                Ok(())
            }
            Outcome::Fail(msg) => Err(TestCaseError::fail(format!("{msg}\nprogram:\n{}", g.text))),
        }
    });
    let secs = start.elapsed().as_secs_f64();
    let st = stats.into_inner().unwrap_or_else(|e| e.into_inner());
    eprintln!(
        "{} programs checked in {secs:.1} s ({} changed by optimize, {} scans removed, \
         {} determinism checks); stop reasons {:?}",
        st.cases, st.changed, st.scans_removed, st.determinism_checks, st.stop_reasons
    );
    eprintln!("scan rules applied: {:?}", st.rules);
    let mut times = st.times.clone();
    times.sort_by(f64::total_cmp);
    if !times.is_empty() {
        let q = |f: f64| times[((times.len() - 1) as f64 * f) as usize];
        eprintln!(
            "optimize ms: median {:.0}, 90% {:.0}, max {:.0}, total {:.1} s",
            q(0.5),
            q(0.9),
            q(1.0),
            times.iter().sum::<f64>() / 1e3
        );
    }
    eprintln!("{}", st.figures.summary());
    eprintln!("slowest case: {:.0} ms\n{}", st.slowest.0, st.slowest.1);
    let cov = &st.coverage;
    let line: Vec<String> = progen::FEATURES
        .iter()
        .map(|f| format!("{f}={}", cov.counts.get(f).copied().unwrap_or(0)))
        .collect();
    eprintln!(
        "coverage over {} programs: {}",
        cov.programs,
        line.join(" ")
    );

    let dir = tmp_file("proptest_scan_failures");
    let mut report = Vec::new();
    match result {
        Ok(()) => {}
        Err(TestError::Fail(_, stream)) => {
            let g = progen::program(&stream);
            let Outcome::Fail(msg) = check_program(
                &g.text,
                &[("T".to_string(), g.t)].into(),
                &rewrites,
                true,
                None,
            ) else {
                panic!("the shrunk program no longer fails:\n{}", g.text);
            };
            let (text, msg) = reduce_failure(&g.text, &msg, &rewrites);
            report.push((text, msg));
        }
        Err(e) => panic!("{e}"),
    }
    let failures = failures.into_inner().unwrap();
    if !failures.is_empty() {
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, m) in &failures {
            *kinds.entry(kind(m)).or_insert(0) += 1;
        }
        eprintln!("{} failing programs: {kinds:?}", failures.len());
        // Group the failures by a rough signature — whether the Scan
        // rewrites alone fail too, whether the program runs backwards —
        // and reduce a few of each group.
        let scan_only = eqscan::optimize::rewrites(&[], true);
        let mut groups: BTreeMap<String, Vec<&(String, String)>> = BTreeMap::new();
        for f in &failures {
            let alone = matches!(
                check_program(&f.0, &dims_of(&f.0), &scan_only, false, None),
                Outcome::Fail(_)
            );
            let back = ["go_backwards", "scanr", "foldr"]
                .iter()
                .any(|w| f.0.contains(w));
            let sig = format!(
                "{}{}",
                if alone {
                    "scan rewrites alone"
                } else {
                    "needs rule files"
                },
                if back { ", backwards" } else { "" }
            );
            groups.entry(sig).or_default().push(f);
        }
        let per = env_num("EQSCAN_PROPTEST_REDUCE_MAX", 2) as usize;
        let mut seen = std::collections::BTreeSet::new();
        for (sig, fs) in &groups {
            eprintln!("{sig}: {} failing programs", fs.len());
            for (text, msg) in fs.iter().take(per) {
                let (text, msg) = reduce_failure(text, msg, &rewrites);
                if seen.insert(text.clone()) {
                    report.push((text, format!("[{sig}] {msg}")));
                }
            }
        }
    }
    if !report.is_empty() {
        common::fail_with_reduced(&dir, "", &report);
    }
    if cases >= 200 {
        let missing: Vec<&&str> = progen::FEATURES
            .iter()
            .filter(|f| !cov.counts.contains_key(**f))
            .collect();
        assert!(missing.is_empty(), "features never generated: {missing:?}");
    }
}

/// A minimal failing program found so far, checked again with the same
/// property (a case with a `; known_bug:` header is an ignored trial, as
/// `tests/scan_rules.rs` ignores it).
fn saved_prop_case(path: &Path, rewrites: &Rewrites) -> Result<(), Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", rel(path)))?;
    match check_program(&text, &dims_of(&text), rewrites, true, None) {
        Outcome::Pass => Ok(()),
        Outcome::Invalid(e) | Outcome::Fail(e) => Err(format!("{}: {e}", rel(path)).into()),
    }
}

/// Reduces the failing program in the file `EQSCAN_PROPTEST_REDUCE` (with
/// the rewrites of `EQSCAN_PROPTEST_RULES`): `cargo test --release --test
/// proptest_scan -- --ignored reduce_a_file --nocapture`.
fn reduce_a_file() {
    let path = std::env::var("EQSCAN_PROPTEST_REDUCE").expect("EQSCAN_PROPTEST_REDUCE=FILE");
    let text = std::fs::read_to_string(&path).unwrap();
    let rewrites = rewrites_under_test();
    match check_program(&text, &dims_of(&text), &rewrites, true, None) {
        Outcome::Fail(msg) => {
            let (text, msg) = reduce_failure(&text, &msg, &rewrites);
            eprintln!("{text}{msg}");
        }
        other => panic!("{path} does not fail: {other:?}"),
    }
}

fn empty_stream_gives_the_simplest_program() {
    let g = progen::program(&[]);
    parse_program(&g.text).unwrap_or_else(|e| panic!("{e}\n{}", g.text));
    assert!(g.text.contains("(scan"), "{}", g.text);
}

fn main() {
    let mut trials = plain_trials![
        optimized_equals_unoptimized_on_random_loop_programs,
        empty_stream_gives_the_simplest_program,
    ];
    trials.extend(
        plain_trials![reduce_a_file]
            .into_iter()
            .map(|t| t.with_ignored_flag(true)),
    );
    let saved: Vec<PathBuf> = case_files("tests/cases/scan_rules")
        .into_iter()
        .filter(|p| stem(p).starts_with("prop_"))
        .collect();
    assert!(!saved.is_empty(), "no tests/cases/scan_rules/prop_*.sexp");
    let rewrites = Arc::new(default_rewrites().expect("the shipped rules load"));
    for path in saved {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let known_bug = common::header(&text, "known_bug").is_some();
        let rewrites = rewrites.clone();
        trials.push(
            Trial::test(case_name("saved", &path), move || {
                saved_prop_case(&path, &rewrites)
            })
            .with_ignored_flag(known_bug),
        );
    }
    harness::run(trials);
}
