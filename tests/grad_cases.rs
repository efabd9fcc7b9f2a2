//! Data-driven gradient cases: finite differences and PyTensor's values.
//!
//! Every `tests/cases/grad/NAME.sexp` is one trial per mode (`MODES`: as
//! written and optimized, each on the interpreter and on the compiled
//! plan; and the expanded program as `eqscan expand` prints it, read
//! back, on the plan). Output 0 of a case is a scalar float cost L; outputs 1..=k are
//! its gradients with respect to the inputs its `; wrt: X Y` header names,
//! in that order. The inputs come from the data rule (`generate_inputs`)
//! with the case's `; dims:` and `; scale:` headers, as in `tests/cases.rs`.
//! In every mode a case must pass each check that applies:
//!
//! - `wrt:` — the finite-difference check ([`fd_check`]): central
//!   differences of L in f64, perturbing every element of an input of at
//!   most 16 elements and 16 evenly spread ones of a larger one, against
//!   the program's own gradient outputs (step and tolerances, and why, in
//!   `tests/common/fd.rs`);
//! - `NAME.expected/out_K.npy` — every output equals the stored value
//!   (written by `tests/grad_cases.py` with `pytensor.grad`, for points
//!   where finite differences are undefined (ties, kinks) or where the
//!   derivative is taken with respect to a let-bound value): dtype and
//!   shape equal, values within rtol 1e-9 / atol 1e-12;
//! - optimized modes — every output equals the as-written interpreter's
//!   (rtol 1e-9 / atol 1e-12).
//!
//! - `; reference: jax` — the expected outputs are JAX's, written by
//!   `tests/jax_models.py` from a model written there by hand in
//!   `jax.numpy` (PyMC-style models, issue 38); `; rtol: 1e-12` tightens
//!   the comparison with them (atol stays 1e-12 · max |value|).
//!
//! A case must have a `wrt:` header or expected outputs (else it checks
//! nothing and fails). `; pending: TEXT` reports the case as ignored (a
//! loop form the `grad` transform does not support yet; run it with
//! `-- --ignored`). `grad` is expanded (`eqscan::grad::expand`) before a
//! program runs or is optimized, as `eqscan run` does. The harness's own trials (`fd_rejects_*`, named after their
//! functions) show that a wrong gradient fails the check.
//!
//! Run one case with `cargo test --release --test grad_cases -- grad::op_exp`.

mod common;

use common::fd::{fd_check, fd_positions};
use common::harness::{self, case_files, plain_trials};
use common::{compare, expected_outputs, header, header_pairs, rel, stem};
use eqscan::exec::npy::read_npy;
use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::Value;
use eqscan::lang::{parse_program, Program};
use libtest_mimic::{Failed, Trial};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The case folder.
const DIR: &str = "tests/cases/grad";

/// Tolerances against stored values and between modes (as `tests/cases.rs`).
const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-12;

/// The same for f32 outputs: eqscan and PyTensor (or an optimized program)
/// may sum f32 elements in another order, which moves a result by a few
/// f32 ulps (1.2e-7 relative each).
const RTOL_F32: f64 = 1e-5;
const ATOL_F32: f64 = 1e-6;

/// The header keys a case may use.
const KEYS: &[&str] = &["dims", "scale", "wrt", "pending", "reference", "rtol"];

/// How a program is prepared before it runs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Prepare {
    AsWritten,
    Optimized,
    /// The text `eqscan expand` prints (the expanded program printed),
    /// read back: what a user who saves the expansion runs.
    ExpandedText,
}

/// What runs the prepared program.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Executor {
    /// The reference interpreter (`exec::run::run_program`).
    Interpreter,
    /// The compiled plan (`exec::plan::Compiled`), what `eqscan run` uses.
    Plan,
}

/// The modes: a name, a preparation and an executor.
const MODES: &[(&str, Prepare, Executor)] = &[
    ("unoptimized", Prepare::AsWritten, Executor::Interpreter),
    ("plan", Prepare::AsWritten, Executor::Plan),
    ("optimized", Prepare::Optimized, Executor::Interpreter),
    ("optimized_plan", Prepare::Optimized, Executor::Plan),
    ("expanded_text", Prepare::ExpandedText, Executor::Plan),
];

/// What a case file says.
struct Case {
    file: String,
    text: String,
    dims: Dims,
    scales: BTreeMap<String, f64>,
    wrt: Vec<String>,
    expected: Vec<PathBuf>,
    /// `; rtol:` for the comparison with the expected outputs.
    rtol: Option<f64>,
}

/// The lowercase `word` of a `; word: ...` comment line, if it has that
/// form.
fn header_key(line: &str) -> Option<&str> {
    let body = line.trim_start().strip_prefix(';')?.trim_start();
    let (key, _) = body.split_once(':')?;
    (!key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')).then_some(key)
}

/// Whether `a` and `b` differ by at most one insertion, deletion,
/// substitution or swap of two neighbours.
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let p = short.iter().zip(&long).take_while(|(x, y)| x == y).count();
    if short.len() == long.len() {
        let swapped = p + 1 < short.len()
            && short[p] == long[p + 1]
            && short[p + 1] == long[p]
            && short[p + 2..] == long[p + 2..];
        swapped || short[p + 1..] == long[p + 1..]
    } else {
        short[p..] == long[p + 1..]
    }
}

/// Refuses a `; word:` line that looks like a misspelt key (one edit away
/// from one, or with an underscore), so a typo does not switch a check
/// off silently.
fn check_keys(text: &str, file: &str) -> Result<(), String> {
    for (i, line) in text.lines().enumerate() {
        let Some(key) = header_key(line) else {
            continue;
        };
        if KEYS.contains(&key) {
            continue;
        }
        if key.contains('_') || KEYS.iter().any(|k| one_edit(k, key)) {
            return Err(format!(
                "{file}:{}: unknown header key {key:?} (keys: {})",
                i + 1,
                KEYS.join(" ")
            ));
        }
    }
    Ok(())
}

fn load_case(path: &Path) -> Result<Case, String> {
    let file = rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
    check_keys(&text, &file)?;
    let wrt = header(&text, "wrt")
        .map(|v| v.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let expected = expected_outputs(&path.with_extension("expected"));
    let rtol = match header(&text, "rtol") {
        None => None,
        Some(v) => Some(
            v.trim()
                .parse::<f64>()
                .map_err(|e| format!("{file}: `; rtol: {v}`: {e}"))?,
        ),
    };
    if header(&text, "reference").is_some_and(|r| r.trim() != "jax") {
        return Err(format!("{file}: `; reference:` takes `jax`"));
    }
    Ok(Case {
        rtol,
        dims: header_pairs(&text, "dims"),
        scales: header_pairs(&text, "scale"),
        file,
        text,
        wrt,
        expected,
    })
}

/// `p` with every `grad` expanded into plain ops and loops (what `eqscan
/// run` executes; `p` itself when it has none).
fn expanded(p: &Program) -> Result<Program, String> {
    if eqscan::grad::has_grad(&p.graph) {
        eqscan::grad::expand(p).map_err(|e| format!("expanding grad: {e}"))
    } else {
        Ok(p.clone())
    }
}

/// Saturated with the shipped rules and extracted by the cost model priced
/// at the case's sizes; never costlier than the original.
fn optimized(p: &Program, dims: &Dims) -> Result<Program, String> {
    let rewrites =
        eqscan::optimize::default_rewrites().map_err(|e| format!("{} rule errors", e.len()))?;
    let model = eqscan::extract::cost::CostModel::with_dims(dims.clone());
    let report = eqscan::optimize::optimize(p, &rewrites, &Default::default(), &model)
        .map_err(|e| e.to_string())?;
    if report.cost_after > report.cost_before {
        return Err(format!(
            "cost went up: {} -> {}",
            report.cost_before, report.cost_after
        ));
    }
    Ok(report.program)
}

/// Runs one program on many input sets: the interpreter, or one compiled
/// plan called again and again.
enum Runner<'a> {
    Interpreter(&'a Program, &'a Dims),
    Plan(Box<Compiled>),
}

impl<'a> Runner<'a> {
    fn new(executor: Executor, p: &'a Program, dims: &'a Dims) -> Result<Self, String> {
        Ok(match executor {
            Executor::Interpreter => Runner::Interpreter(p, dims),
            Executor::Plan => Runner::Plan(Box::new(
                Compiled::new(p, dims).map_err(|e| format!("compiling: {e}"))?,
            )),
        })
    }

    fn run(&mut self, inputs: &[Value]) -> Result<Vec<Value>, String> {
        match self {
            Runner::Interpreter(p, dims) => {
                run_program(p, inputs.to_vec(), dims).map_err(|e| e.to_string())
            }
            Runner::Plan(c) => {
                let refs: Vec<&Value> = inputs.iter().collect();
                c.call_values(&refs).map_err(|e| e.to_string())
            }
        }
    }
}

/// The indices of the `wrt` names among the program's inputs.
fn wrt_indices(p: &Program, wrt: &[String]) -> Result<Vec<(usize, String)>, String> {
    let names: Vec<&str> = p.inputs().map(|(n, _)| n).collect();
    wrt.iter()
        .map(|w| {
            names
                .iter()
                .position(|n| n == w)
                .map(|k| (k, w.clone()))
                .ok_or_else(|| format!("wrt: {w} is not an input (inputs: {})", names.join(" ")))
        })
        .collect()
}

/// Every output against a reference, `what` naming the reference;
/// `rtol` replaces the default relative tolerance of f64 outputs (and
/// makes the absolute one relative to the largest expected magnitude).
fn compare_all(got: &[Value], want: &[Value], what: &str, rtol: Option<f64>) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} outputs, {what} has {}", got.len(), want.len()));
    }
    let errors: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter_map(|(k, (g, w))| {
            let (rtol, atol) = if w.dtype() == eqscan::lang::DType::F32 {
                (RTOL_F32, ATOL_F32)
            } else if let Some(r) = rtol {
                let big = w.as_f64_array().iter().fold(0.0f64, |m, v| m.max(v.abs()));
                (r, r * big)
            } else {
                (RTOL, ATOL)
            };
            compare(g, w, rtol, atol)
                .err()
                .map(|m| format!("output {k} against {what}: {m}"))
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

fn run_case(path: &Path, prepare: Prepare, executor: Executor) -> Result<(), Failed> {
    let case = load_case(path)?;
    let file = &case.file;
    if case.wrt.is_empty() && case.expected.is_empty() {
        return Err(format!(
            "{file}: checks nothing: give a `; wrt:` header or expected outputs (tests/grad_cases.py)"
        )
        .into());
    }
    let parsed = parse_program(&case.text).map_err(|e| e.located(file))?;
    let written = expanded(&parsed).map_err(|e| format!("{file}: {e}"))?;
    let program = match prepare {
        Prepare::AsWritten => written.clone(),
        Prepare::Optimized => {
            optimized(&written, &case.dims).map_err(|e| format!("{file}: optimizing: {e}"))?
        }
        Prepare::ExpandedText => {
            let text = eqscan::lang::print_program(&written);
            parse_program(&text)
                .map_err(|e| format!("{file}: the expanded text does not parse: {e}\n{text}"))?
        }
    };
    let inputs = generate_inputs(&written, &case.dims, &case.scales)
        .map_err(|e| format!("generate_inputs: {}", e.located(file)))?;
    let mut runner =
        Runner::new(executor, &program, &case.dims).map_err(|e| format!("{file}: {e}"))?;
    let outputs = runner
        .run(&inputs)
        .map_err(|e| format!("{file}: run: {e}"))?;

    let mut errors = Vec::new();
    if prepare == Prepare::Optimized {
        match run_program(&written, inputs.clone(), &case.dims) {
            Ok(reference) => {
                if let Err(m) = compare_all(&outputs, &reference, "the program as written", None) {
                    errors.push(m);
                }
            }
            Err(e) => errors.push(format!("as written: run: {e}")),
        }
    }
    if !case.expected.is_empty() {
        let mut want = Vec::new();
        for p in &case.expected {
            want.push(read_npy(p).map_err(|e| format!("{}: {e}", rel(p)))?);
        }
        if let Err(m) = compare_all(&outputs, &want, "NAME.expected", case.rtol) {
            errors.push(m);
        }
    }
    if !case.wrt.is_empty() {
        let wrt = wrt_indices(&written, &case.wrt).map_err(|e| format!("{file}: {e}"))?;
        if let Err(m) = fd_check(&mut |xs| runner.run(xs), &inputs, &wrt, &outputs) {
            errors.push(m);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{file}:\n{}", errors.join("\n")).into())
    }
}

// ---------------------------------------------------------------------------
// The harness's own trials: a wrong gradient must fail the check.

/// Parses `text` and runs the finite-difference check of its `; wrt:`
/// header on the interpreter.
fn fd_check_text(text: &str) -> Result<(), String> {
    let p = parse_program(text).map_err(|e| e.to_string())?;
    let dims: Dims = header_pairs(text, "dims");
    let inputs = generate_inputs(&p, &dims, &BTreeMap::new()).map_err(|e| e.to_string())?;
    let wrt: Vec<String> = header(text, "wrt")
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let wrt = wrt_indices(&p, &wrt)?;
    let mut run = |xs: &[Value]| run_program(&p, xs.to_vec(), &dims).map_err(|e| e.to_string());
    let outputs = run(&inputs)?;
    fd_check(&mut run, &inputs, &wrt, &outputs)
}

/// L = sum(x·x): 2x passes, 3x, 2x + 1e-3 and a gradient missing one
/// element's term fail.
fn fd_rejects_wrong_elementwise_gradient() {
    let program = |grad: &str| {
        format!(
            "; wrt: x\n(program sq (input x (f64 N)) (output (sum (mul x x)) {grad}))\n; dims: N=20\n"
        )
    };
    fd_check_text(&program("(mul 2.0 x)")).expect("the right gradient passes");
    for wrong in [
        "(mul 3.0 x)",
        "(add (mul 2.0 x) 1e-3)",
        "(mul (mul 2.0 x) (lt (arange N) 19))",
        "(mul 2.0 (neg x))",
    ] {
        let e = fd_check_text(&program(wrong)).expect_err(wrong);
        assert!(e.contains("differ from finite differences"), "{wrong}: {e}");
    }
}

/// A gradient of the wrong shape or dtype fails before any difference.
fn fd_rejects_wrong_gradient_type() {
    let e = fd_check_text(
        "; wrt: x\n(program sq (input x (f64 3)) (output (sum (mul x x)) (sum (mul 2.0 x))))",
    )
    .expect_err("a scalar for a vector");
    assert!(e.contains("but x is"), "{e}");
    let e =
        fd_check_text("; wrt: x\n(program sq (input x (f64 3)) (output (mul x x) (mul 2.0 x)))")
            .expect_err("a vector cost");
    assert!(e.contains("output 0 must be a float scalar"), "{e}");
}

/// The hand-written backward loop of a running sum (the reverse cumulative
/// sum of the cotangent) passes; the same loop not reversed (the classic
/// mistake) and one that starts a step late fail.
fn fd_rejects_wrong_loop_gradient() {
    let program = |backward: &str| {
        format!(
            "; wrt: x\n; dims: T=7\n(program cs (input x (f64 T)) (input c (f64 T))
  (let y (scan (sequences x) (outputs_info (sitsot (fill (f64) 0.0))) (fn (x_t acc) (add acc x_t))))
  (let r (scan (sequences c) (outputs_info (sitsot (fill (f64) 0.0))) (go_backwards) (fn (c_t acc) (add acc c_t))))
  (output (sum (mul y c)) {backward}))"
        )
    };
    fd_check_text(&program("(slice r none none -1)")).expect("the right backward loop passes");
    for wrong in [
        "r",
        "(concat 0 (slice (slice r none none -1) 1 none) (fill (f64 1) 0.0))",
    ] {
        let e = fd_check_text(&program(wrong)).expect_err(wrong);
        assert!(e.contains("differ from finite differences"), "{wrong}: {e}");
    }
}

/// The sampled positions: every element of a small input, 16 spread ones
/// with both ends of a large one.
fn fd_positions_cover() {
    assert_eq!(fd_positions(3), vec![0, 1, 2]);
    assert_eq!(fd_positions(16), (0..16).collect::<Vec<_>>());
    let p = fd_positions(1000);
    assert_eq!(p.len(), 16);
    assert_eq!((p[0], p[15]), (0, 999));
    assert!(p.windows(2).all(|w| w[0] < w[1]));
}

/// A misspelt header key is an error; prose comments are not.
fn header_keys_checked() {
    assert!(check_keys("; wtr: x\n", "f").is_err());
    assert!(check_keys("; pendng: x\n", "f").is_err());
    assert!(check_keys("; fd_tol: 1\n", "f").is_err());
    assert!(check_keys("; wrt: x\n; pending: later\n; note: prose\n", "f").is_ok());
}

fn main() {
    let mut trials = plain_trials![
        fd_rejects_wrong_elementwise_gradient,
        fd_rejects_wrong_gradient_type,
        fd_rejects_wrong_loop_gradient,
        fd_positions_cover,
        header_keys_checked,
    ];
    for path in case_files(DIR) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let ignored = header(&text, "pending").is_some();
        for &(mode, prepare, executor) in MODES {
            let path = path.clone();
            let name = format!("grad::{}::{mode}", stem(&path));
            trials.push(
                Trial::test(name, move || run_case(&path, prepare, executor))
                    .with_ignored_flag(ignored),
            );
        }
    }
    harness::run(trials);
}
