//! The three gradient workloads of `bench/WORKLOADS.md` ("Gradient
//! workloads": `rnn_grad`, `ar1_grad`, `garch_grad`), run at size small on
//! the fixtures in `tests/fixtures/workloads/NAME/` and compared with
//! `grad_reference.py`'s outputs (its `best` form, which `--check` verifies
//! against the naive loops and against central differences): dtype and
//! shape equal, values within 1e-9 relative (and 1e-12 absolute, for the
//! exact zeros a gradient may hold).
//!
//! The programs are `benches/programs/NAME.sexp` ([`PROGRAMS`]), beside
//! the forward workloads, written with `grad` and every size symbolic
//! (every test and bench that reads that folder expands `grad` first, as
//! `eqscan run` and `optimize` do); T and N are bound from the fixtures'
//! shapes
//! (`reference.py --size small` divides T by 10 and every other dimension
//! by 4). Per workload: `as_written` (the interpreter on the expanded
//! program), `optimized` (saturated and extracted, on the interpreter and
//! on the compiled plan; never costlier), `generated_inputs` (the data rule
//! gives the fixtures' inputs), and `command_line` (`eqscan run --gen
//! --out`, optimized and with `--no-opt`).
//!
//! To regenerate the fixtures: `python3 /work/shared/bench/grad_reference.py
//! --save tests/fixtures/workloads --size small` (see
//! `tests/fixtures/README.md`).

mod common;

use common::{compare, expected_outputs, root};
use eqscan::exec::npy::read_npy;
use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::Value;
use eqscan::lang::{parse_program, Program};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// Where the programs are.
const PROGRAMS: &str = "benches/programs";

const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-12;

/// The gradient workloads, each with its data-rule scales (WORKLOADS.md).
const WORKLOADS: &[(&str, &[(&str, f64)])] = &[
    ("rnn_grad", &[("W", 1.0 / 16.0), ("U", 1.0 / 16.0)]),
    ("ar1_grad", &[]),
    ("garch_grad", &[]),
];

fn scales(name: &str) -> BTreeMap<String, f64> {
    WORKLOADS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| s.iter().map(|(k, v)| (k.to_string(), *v)).collect())
        .unwrap_or_default()
}

struct Workload {
    name: &'static str,
    dir: PathBuf,
    /// The program as written (with `grad`).
    written: Program,
    dims: Dims,
    inputs: Vec<Value>,
}

fn load(name: &'static str) -> Workload {
    let file = format!("{PROGRAMS}/{name}.sexp");
    let text = std::fs::read_to_string(root().join(&file)).expect("read program");
    let written = parse_program(&text).unwrap_or_else(|e| panic!("{}", e.located(&file)));
    let dir = root().join("tests/fixtures/workloads").join(name);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let names: Vec<&str> = written.inputs().map(|(n, _)| n).collect();
    let meta_names: Vec<&str> = meta["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        names, meta_names,
        "{name}: input order differs from grad_reference.py"
    );
    let mut dims = Dims::new();
    let mut inputs = Vec::new();
    for (iname, ty) in written.inputs() {
        let p = dir.join(format!("in_{iname}.npy"));
        let v = read_npy(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(ty.shape.len(), v.shape().len(), "{name}: rank of {iname}");
        for (d, &n) in ty.shape.iter().zip(v.shape()) {
            if let Some(s) = d.as_sym() {
                let old = dims.insert(s.to_string(), n as i64);
                assert!(
                    old.is_none() || old == Some(n as i64),
                    "{name}: {s} bound twice"
                );
            }
        }
        inputs.push(v);
    }
    Workload {
        name,
        dir,
        written,
        dims,
        inputs,
    }
}

/// The program with `grad` expanded into plain ops and loops.
fn expanded(w: &Workload) -> Program {
    eqscan::grad::expand(&w.written).unwrap_or_else(|e| panic!("{}: {e}", w.name))
}

fn check_outputs(w: &Workload, outputs: &[Value], how: &str) {
    let expected = expected_outputs(&w.dir);
    assert_eq!(outputs.len(), expected.len(), "{} ({how}): outputs", w.name);
    let mut errors = Vec::new();
    for (k, (got, p)) in outputs.iter().zip(&expected).enumerate() {
        let exp = read_npy(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if let Err(msg) = compare(got, &exp, RTOL, ATOL) {
            errors.push(format!("output {k}: {msg}"));
        }
    }
    assert!(
        errors.is_empty(),
        "{} ({how}):\n{}",
        w.name,
        errors.join("\n")
    );
}

fn as_written(name: &'static str) {
    let w = load(name);
    let outputs = run_program(&expanded(&w), w.inputs.clone(), &w.dims)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    check_outputs(&w, &outputs, "as written");
}

fn optimized(name: &'static str) {
    let w = load(name);
    let rewrites = eqscan::optimize::default_rewrites().expect("shipped rules load");
    let model = eqscan::extract::cost::CostModel::with_dims(w.dims.clone());
    let report = eqscan::optimize::optimize(&expanded(&w), &rewrites, &Default::default(), &model)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        report.cost_after <= report.cost_before,
        "{name}: cost went up: {} -> {}",
        report.cost_before,
        report.cost_after
    );
    let outputs = run_program(&report.program, w.inputs.clone(), &w.dims)
        .unwrap_or_else(|e| panic!("{name} (optimized): {e}"));
    check_outputs(&w, &outputs, "optimized, interpreter");
    let mut plan =
        Compiled::new(&report.program, &w.dims).unwrap_or_else(|e| panic!("{name}: {e}"));
    let refs: Vec<&Value> = w.inputs.iter().collect();
    let outputs = plan
        .call_values(&refs)
        .unwrap_or_else(|e| panic!("{name} (optimized plan): {e}"));
    check_outputs(&w, &outputs, "optimized, plan");
}

fn generated_inputs(name: &'static str) {
    let w = load(name);
    let generated = generate_inputs(&w.written, &w.dims, &scales(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    for ((iname, _), (g, f)) in w.written.inputs().zip(generated.iter().zip(&w.inputs)) {
        if let Err(msg) = compare(g, f, 1e-14, 1e-15) {
            panic!("{name}: generated input {iname} differs from grad_reference.py's:\n{msg}");
        }
    }
}

fn command_line(name: &'static str) {
    let w = load(name);
    for opt in [false, true] {
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("grad_workloads")
            .join(format!("{name}_{}", if opt { "opt" } else { "no_opt" }));
        let _ = std::fs::remove_dir_all(&out);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_eqscan"));
        cmd.arg("run")
            .arg(root().join(format!("{PROGRAMS}/{name}.sexp")))
            .arg("--gen");
        if !opt {
            cmd.arg("--no-opt");
        }
        for (k, v) in scales(name) {
            cmd.arg("--scale").arg(format!("{k}={v:?}"));
        }
        for (k, v) in &w.dims {
            cmd.arg("--dim").arg(format!("{k}={v}"));
        }
        cmd.arg("--out").arg(&out);
        let res = cmd.output().expect("run eqscan");
        assert!(
            res.status.success(),
            "{cmd:?} failed ({}):\n{}",
            res.status,
            String::from_utf8_lossy(&res.stderr)
        );
        let outputs: Vec<Value> = expected_outputs(&out)
            .iter()
            .map(|p| read_npy(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
            .collect();
        check_outputs(
            &w,
            &outputs,
            if opt {
                "eqscan run"
            } else {
                "eqscan run --no-opt"
            },
        );
    }
}

macro_rules! workloads {
    ($($name:ident),*) => {$(
        mod $name {
            #[test]
            fn as_written() {
                super::as_written(stringify!($name));
            }
            #[test]
            fn optimized() {
                super::optimized(stringify!($name));
            }
            #[test]
            fn generated_inputs() {
                super::generated_inputs(stringify!($name));
            }
            #[test]
            fn command_line() {
                super::command_line(stringify!($name));
            }
        }
    )*};
}

workloads!(rnn_grad, ar1_grad, garch_grad);

/// Every gradient workload listed has its program and fixtures, and every
/// `*_grad` program of [`PROGRAMS`] and `benches/programs` is listed.
#[test]
fn every_gradient_workload_is_tested() {
    let listed: Vec<&str> = WORKLOADS.iter().map(|(n, _)| *n).collect();
    let mut files = common::sexp_files("benches/programs");
    files.extend(common::sexp_files(PROGRAMS));
    for p in files {
        let s = common::stem(&p);
        if s.ends_with("_grad") {
            assert!(listed.contains(&s.as_str()), "{s} is not tested");
        }
    }
    for n in &listed {
        assert!(root().join(format!("{PROGRAMS}/{n}.sexp")).is_file(), "{n}");
        assert!(
            root()
                .join("tests/fixtures/workloads")
                .join(n)
                .join("out_0.npy")
                .is_file(),
            "no fixtures for {n}"
        );
    }
}
