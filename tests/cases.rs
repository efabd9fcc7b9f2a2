//! Data-driven op and scan cases checked against NumPy.
//!
//! Every `tests/cases/{ops,scan}/NAME.sexp` is one test per mode (`MODES`:
//! as written, through the term language, optimized — each on the
//! interpreter — and as written and optimized on the compiled plan). Its header
//! comments give the symbolic sizes (`; dims: T=5 N=3`) and input scales
//! (`; scale: X=0.5`); the inputs come from the data rule
//! (`generate_inputs`), and the outputs must match
//! `NAME.expected/out_K.npy`, which `tests/numpy_cases.py` computes with
//! NumPy from the same inputs: dtype and shape equal, values within
//! rtol 1e-9 / atol 1e-12, nan equal to nan.
//!
//! Run one case with `cargo test --test cases -- scan::comb_scanr`.

mod common;

use common::harness::{self, case_files};
use common::{compare, expected_outputs, header_pairs, rel, stem};
use eqscan::exec::npy::read_npy;
use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::{ExecError, Value};
use eqscan::lang::{parse_program, Program};
use libtest_mimic::{Failed, Trial};
use std::collections::BTreeMap;
use std::path::Path;

const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-12;

/// The case groups: directories under `tests/cases`.
const GROUPS: &[&str] = &["ops", "scan"];

/// How a program is prepared before it runs.
type Prepare = fn(&Program) -> Result<Program, String>;

/// What runs the prepared program.
#[derive(Clone, Copy)]
enum Executor {
    /// The reference interpreter (`exec::run::run_program`).
    Interpreter,
    /// The compiled plan (`exec::plan::Compiled`), what `eqscan run` uses.
    Plan,
}

/// The modes: a name, a preparation and an executor. Adding a mode is one
/// line here, and every case then runs in it too.
const MODES: &[(&str, Prepare, Executor)] = &[
    ("unoptimized", unoptimized, Executor::Interpreter),
    ("term", via_term, Executor::Interpreter),
    ("optimized", optimized, Executor::Interpreter),
    ("plan", unoptimized, Executor::Plan),
    ("optimized_plan", optimized, Executor::Plan),
];

/// Saturated with the shipped rules and extracted by the cost model; the
/// optimized program must never cost more than the original.
fn optimized(p: &Program) -> Result<Program, String> {
    let rewrites =
        eqscan::optimize::default_rewrites().map_err(|e| format!("{} rule errors", e.len()))?;
    let model = eqscan::extract::cost::CostModel::default();
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

/// Runs `program` on `inputs` with `executor`.
fn execute(
    executor: Executor,
    program: &Program,
    inputs: Vec<Value>,
    dims: &Dims,
) -> Result<Vec<Value>, ExecError> {
    match executor {
        Executor::Interpreter => run_program(program, inputs, dims),
        Executor::Plan => {
            let mut compiled = Compiled::new(program, dims)?;
            let refs: Vec<&Value> = inputs.iter().collect();
            compiled.call_values(&refs)
        }
    }
}

fn run_case(path: &Path, prepare: Prepare, executor: Executor) -> Result<(), Failed> {
    let file = rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
    let dims: Dims = header_pairs(&text, "dims");
    let scales: BTreeMap<String, f64> = header_pairs(&text, "scale");
    let program = parse_program(&text).map_err(|e| e.located(&file))?;
    let program = prepare(&program).map_err(|e| format!("{file}: preparing: {e}"))?;
    let inputs = generate_inputs(&program, &dims, &scales)
        .map_err(|e| format!("generate_inputs: {}", e.located(&file)))?;
    let outputs = execute(executor, &program, inputs, &dims)
        .map_err(|e| format!("run: {}", e.located(&file)))?;

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
    let mut trials = Vec::new();
    for group in GROUPS {
        for path in case_files(&format!("tests/cases/{group}")) {
            for &(mode, prepare, executor) in MODES {
                let path = path.clone();
                let name = format!("{group}::{}::{mode}", stem(&path));
                trials.push(Trial::test(name, move || {
                    run_case(&path, prepare, executor)
                }));
            }
        }
    }
    harness::run(trials);
}
