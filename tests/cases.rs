//! Data-driven op and scan cases checked against NumPy.
//!
//! Every `tests/cases/{ops,scan}/NAME.sexp` is one test per mode. Its header
//! comments give the symbolic sizes (`; dims: T=5 N=3`) and input scales
//! (`; scale: X=0.5`); the inputs come from the data rule
//! (`generate_inputs`), and the outputs must match
//! `NAME.expected/out_K.npy`, which `tests/numpy_cases.py` computes with
//! NumPy from the same inputs: dtype and shape equal, values within
//! rtol 1e-9 / atol 1e-12, nan equal to nan.
//!
//! Run one case with `cargo test --test cases -- scan::comb_scanr`.

mod common;

use common::{compare, expected_outputs, header_pairs, rel, sexp_files, stem};
use eqscan::exec::npy::read_npy;
use eqscan::exec::run::{generate_inputs, run_program};
use eqscan::lang::{parse_program, Program};
use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-12;

/// The case groups: directories under `tests/cases`.
const GROUPS: &[&str] = &["ops", "scan"];

/// How a program is prepared before it runs. Adding a mode is one line here
/// (e.g. `("optimized", optimized)` once the optimizer exists), and every
/// case then runs in it too.
type Prepare = fn(&Program) -> Result<Program, String>;
const MODES: &[(&str, Prepare)] = &[
    ("unoptimized", unoptimized),
    ("term", via_term),
    ("optimized", optimized),
];

/// Saturated with the shipped rules and extracted by the cost model; the
/// optimized program must never cost more than the original.
fn optimized(p: &Program) -> Result<Program, String> {
    let rewrites =
        eqscan::optimize::default_rewrites().map_err(|e| format!("{} rule errors", e.len()))?;
    let model = eqscan::extract::cost::CostModel::default();
    let report = eqscan::optimize::optimize(p, &rewrites, &Default::default(), &model)?;
    if report.cost_after > report.cost_before {
        return Err(format!(
            "cost went up: {} -> {}",
            report.cost_before, report.cost_after
        ));
    }
    Ok(report.program)
}

fn unoptimized(p: &Program) -> Result<Program, String> {
    Ok(p.clone())
}

/// Through the e-graph language and back: the program as an `egg` term,
/// then built back through the typed builder (what extraction will do).
fn via_term(p: &Program) -> Result<Program, String> {
    use eqscan::egraph::term::{expr_to_program, program_to_expr};
    let expr = program_to_expr(p)?;
    let inputs: Vec<_> = p
        .inputs()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    expr_to_program(&p.name, &inputs, &expr).map_err(|e| e.to_string())
}

fn run_case(path: &Path, prepare: Prepare) -> Result<(), Failed> {
    let file = rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
    let dims: BTreeMap<String, i64> = header_pairs(&text, "dims");
    let scales: BTreeMap<String, f64> = header_pairs(&text, "scale");
    let program = parse_program(&text).map_err(|e| e.located(&file))?;
    let program = prepare(&program).map_err(|e| format!("{file}: preparing: {e}"))?;
    let inputs = generate_inputs(&program, &dims, &scales)
        .map_err(|e| format!("generate_inputs: {}", e.located(&file)))?;
    let outputs =
        run_program(&program, inputs, &dims).map_err(|e| format!("run: {}", e.located(&file)))?;

    let exp_dir = path.with_extension("expected");
    let expected = expected_outputs(&exp_dir);
    if expected.is_empty() {
        return Err(format!(
            "{}: no expected outputs; run `python3 tests/numpy_cases.py`",
            rel(&exp_dir)
        )
        .into());
    }
    if outputs.len() != expected.len() {
        return Err(format!(
            "{file}: {} outputs, expected {}",
            outputs.len(),
            expected.len()
        )
        .into());
    }
    let mut errors = Vec::new();
    for (k, (got, exp_path)) in outputs.iter().zip(&expected).enumerate() {
        let exp = read_npy(exp_path).map_err(|e| format!("{}: {e}", rel(exp_path)))?;
        if let Err(msg) = compare(got, &exp, RTOL, ATOL) {
            errors.push(format!("output {k}: {msg}"));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{file}:\n{}", errors.join("\n")).into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for group in GROUPS {
        let files: Vec<PathBuf> = sexp_files(&format!("tests/cases/{group}"));
        assert!(!files.is_empty(), "no cases under tests/cases/{group}");
        for path in files {
            for &(mode, prepare) in MODES {
                let path = path.clone();
                let name = format!("{group}::{}::{mode}", stem(&path));
                trials.push(Trial::test(name, move || run_case(&path, prepare)));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
