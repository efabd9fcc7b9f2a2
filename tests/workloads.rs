//! The eight scan workloads of `bench/WORKLOADS.md`, run on the small
//! fixtures in `tests/fixtures/workloads/` (see its README) and compared with
//! NumPy's outputs (rtol = atol = 1e-9, dtype and shape equal).
//!
//! The programs are the repository's copies, `benches/programs/NAME.sexp`.
//! They are written at the default ("medium") size with concrete sizes such
//! as `(f64 256 256)`; the fixtures are at size "small", where `reference.py`
//! divides every T by 10 and every other dimension by 4. So each program is
//! first brought to size small the same way: every integer size inside a type
//! `(DTYPE DIM ...)` is divided by 4 (at least 1); `T` is symbolic and bound
//! from the inputs (or, for `fib`, from `params.n_steps`).
//!
//! Per workload: `library` runs `run_program` on the fixture inputs;
//! `generated_inputs` checks that `generate_inputs` (the data rule) gives the
//! fixture inputs; `command_line` runs `eqscan run --no-opt --gen --out DIR`
//! and compares the written `out_K.npy`.

mod common;
#[path = "../benches/common/workloads.rs"]
mod workload_programs;

use common::{compare, expected_outputs, root};
use eqscan::exec::npy::read_npy;
use eqscan::exec::run::{generate_inputs, run_program};
use eqscan::exec::Value;
use eqscan::lang::{parse_program, Program};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use workload_programs::scales;

const TOL: f64 = 1e-9;

/// Divides every integer size inside a type form `(DTYPE DIM ...)` by 4
/// (at least 1), as `reference.py --size small` does for non-T dimensions.
fn small_size(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('(') {
        out.push_str(&rest[..=pos]);
        rest = &rest[pos + 1..];
        let head_len = rest
            .find(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .unwrap_or(rest.len());
        if !["f64", "f32", "i64", "bool"].contains(&&rest[..head_len]) {
            continue;
        }
        let Some(close) = rest.find(')') else { break };
        let body = &rest[..close];
        let mut tokens = body.split_whitespace();
        let mut new = tokens.next().unwrap().to_string();
        for tok in tokens {
            new.push(' ');
            match tok.parse::<i64>() {
                Ok(n) => new.push_str(&(n / 4).max(1).to_string()),
                Err(_) => new.push_str(tok),
            }
        }
        out.push_str(&new);
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

struct Workload {
    name: &'static str,
    dir: PathBuf,
    text: String,
    program: Program,
    meta: serde_json::Value,
    /// Symbolic sizes: from the inputs' shapes, and `T = n_steps` for fib.
    dims: BTreeMap<String, i64>,
}

fn load(name: &'static str) -> Workload {
    let prog_path = root().join("benches/programs").join(format!("{name}.sexp"));
    let file = format!("benches/programs/{name}.sexp");
    let text = small_size(&std::fs::read_to_string(&prog_path).expect("read program"));
    let program = parse_program(&text).unwrap_or_else(|e| panic!("{}\n{text}", e.located(&file)));
    let dir = root().join("tests/fixtures/workloads").join(name);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();

    // The program's inputs are the workload's, in the data rule's k order,
    // and (at size small) of the fixtures' shapes.
    let names: Vec<&str> = program.inputs().map(|(n, _)| n).collect();
    let meta_names: Vec<&str> = meta["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        names, meta_names,
        "{name}: input order differs from reference.py"
    );
    let mut dims = BTreeMap::new();
    if let Some(n) = meta["params"]["n_steps"].as_i64() {
        dims.insert("T".to_string(), n);
    }
    for (iname, ty) in program.inputs() {
        let shape: Vec<i64> = meta["shapes"][iname]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert_eq!(ty.shape.len(), shape.len(), "{name}: rank of input {iname}");
        for (d, &n) in ty.shape.iter().zip(&shape) {
            if let Some(s) = d.as_sym() {
                let old = dims.insert(s.to_string(), n);
                assert!(old.is_none() || old == Some(n), "{name}: {s} bound twice");
            } else {
                assert_eq!(d.as_known(), Some(n), "{name}: shape of input {iname}");
            }
        }
    }
    Workload {
        name,
        dir,
        text,
        program,
        meta,
        dims,
    }
}

fn fixture_inputs(w: &Workload) -> Vec<Value> {
    w.program
        .inputs()
        .map(|(n, _)| {
            let p = w.dir.join(format!("in_{n}.npy"));
            read_npy(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        })
        .collect()
}

fn check_outputs(w: &Workload, outputs: &[Value]) {
    let expected = expected_outputs(&w.dir);
    assert_eq!(
        expected.len(),
        w.meta["outputs"].as_array().unwrap().len(),
        "fixture outputs"
    );
    assert_eq!(
        outputs.len(),
        expected.len(),
        "{}: number of outputs",
        w.name
    );
    let mut errors = Vec::new();
    for (k, (got, p)) in outputs.iter().zip(&expected).enumerate() {
        let exp = read_npy(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if let Err(msg) = compare(got, &exp, TOL, TOL) {
            errors.push(format!("output {k}: {msg}"));
        }
    }
    assert!(errors.is_empty(), "{}:\n{}", w.name, errors.join("\n"));
}

fn library(name: &'static str) {
    let w = load(name);
    let inputs = fixture_inputs(&w);
    let outputs = run_program(&w.program, inputs, &w.dims)
        .unwrap_or_else(|e| panic!("{}", e.located(&format!("{name}.sexp"))));
    check_outputs(&w, &outputs);
}

/// Optimized with the shipped rules, the program still gives reference.py's
/// outputs, and costs no more than as written.
fn optimized(name: &'static str) {
    let w = load(name);
    let rewrites = eqscan::optimize::default_rewrites().expect("shipped rules load");
    let model = eqscan::extract::cost::CostModel::with_dims(w.dims.clone());
    let report = eqscan::optimize::optimize(&w.program, &rewrites, &Default::default(), &model)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        report.cost_after <= report.cost_before,
        "{name}: cost went up: {} -> {}",
        report.cost_before,
        report.cost_after
    );
    let outputs = run_program(&report.program, fixture_inputs(&w), &w.dims)
        .unwrap_or_else(|e| panic!("{}", e.located(&format!("{name} (optimized)"))));
    check_outputs(&w, &outputs);
}

fn generated_inputs(name: &'static str) {
    let w = load(name);
    let generated = generate_inputs(&w.program, &w.dims, &scales(name))
        .unwrap_or_else(|e| panic!("{}", e.located(&format!("{name}.sexp"))));
    let fixtures = fixture_inputs(&w);
    assert_eq!(generated.len(), fixtures.len());
    for ((iname, _), (g, f)) in w.program.inputs().zip(generated.iter().zip(&fixtures)) {
        // The same formula in Rust and NumPy: equal up to libm's last bit.
        if let Err(msg) = compare(g, f, 1e-14, 1e-15) {
            panic!("{name}: generated input {iname} differs from reference.py's:\n{msg}");
        }
    }
}

fn command_line(name: &'static str) {
    let w = load(name);
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("workloads")
        .join(name);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let prog = tmp.join(format!("{name}.sexp"));
    std::fs::write(&prog, &w.text).unwrap();
    let out = tmp.join("out");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_eqscan"));
    cmd.arg("run").arg(&prog).args(["--no-opt", "--gen"]);
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
    check_outputs(&w, &outputs);
}

/// What the optimizer must make of each workload (WORKLOADS.md's "best
/// hand-written form"): the loops left, the Scan rewrites that get there,
/// and how many `dot`s stay inside a loop body and how many move out.
struct BestForm {
    scans: usize,
    rules: &'static [&'static str],
    dots_in_loops: usize,
    dots_outside: usize,
}

fn best_form_of(name: &str) -> BestForm {
    let f = |scans, rules, dots_in_loops, dots_outside| BestForm {
        scans,
        rules,
        dots_in_loops,
        dots_outside,
    };
    match name {
        // Aᵀ·A hoisted, then the matvec per step becomes one product.
        "invariant" => f(0, &["scan-push-out-nonseq", "scan-push-out-seq"], 0, 2),
        // dot(U, x_t) + b as one matmul before the loop.
        "rnn" => f(1, &["scan-push-out-seq"], 1, 1),
        "map" => f(0, &["scan-push-out-seq"], 0, 0),
        "cumsum_last" => f(0, &["scan-to-reduction"], 0, 0),
        "merge" => f(0, &["scan-push-out-seq"], 0, 0),
        "fib" => f(1, &[], 0, 0),
        // dot(V, h_t) after the loop, on the stacked states.
        "output_push" => f(1, &["scan-push-out-output", "scan-drop-output"], 1, 1),
        "constants" => f(0, &["scan-inline-constants"], 0, 0),
        _ => panic!("no best form for {name}"),
    }
}

/// `dot`s (and `matmul`s) inside loop bodies and outside them.
fn count_products(g: &eqscan::lang::program::Graph, in_loop: bool, counts: &mut (usize, usize)) {
    use eqscan::lang::Op;
    for n in &g.nodes {
        match &n.op {
            Op::Dot | Op::Matmul if in_loop => counts.0 += 1,
            Op::Dot | Op::Matmul => counts.1 += 1,
            Op::Scan(s) => count_products(&s.body, true, counts),
            _ => {}
        }
    }
}

/// `eqscan optimize --json` on the workload at medium size reaches the
/// structure of the hand-written best form, and says which Scan rules fired.
fn best_form(name: &'static str) {
    let want = best_form_of(name);
    let prog = root().join("benches/programs").join(format!("{name}.sexp"));
    let res = Command::new(env!("CARGO_BIN_EXE_eqscan"))
        .arg("optimize")
        .arg(&prog)
        .arg("--json")
        .output()
        .expect("run eqscan");
    assert!(
        res.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&res.stdout).expect("JSON report");
    let text = report["program"].as_str().expect("program text");
    assert_eq!(
        report["scans_after"].as_u64(),
        Some(want.scans as u64),
        "{name}: loops left in\n{text}"
    );
    for r in want.rules {
        assert!(
            report["rules_applied"][r].as_u64().unwrap_or(0) > 0,
            "{name}: {r} did not fire: {}",
            report["rules_applied"]
        );
    }
    let p = parse_program(text).expect("the optimized program parses");
    assert_eq!(p.count_scans(), want.scans);
    let mut counts = (0, 0);
    count_products(&p.graph, false, &mut counts);
    assert_eq!(
        counts,
        (want.dots_in_loops, want.dots_outside),
        "{name}: (dots in loops, dots outside) in\n{text}"
    );
}

macro_rules! workloads {
    ($($name:ident),*) => {$(
        mod $name {
            #[test]
            fn library() {
                super::library(stringify!($name));
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
            #[test]
            fn best_form() {
                super::best_form(stringify!($name));
            }
        }
    )*};
}

workloads!(
    invariant,
    rnn,
    map,
    cumsum_last,
    merge,
    fib,
    output_push,
    constants
);

#[test]
fn every_workload_is_tested() {
    let tested = [
        "invariant",
        "rnn",
        "map",
        "cumsum_last",
        "merge",
        "fib",
        "output_push",
        "constants",
    ];
    // The gradient workloads (`*_grad`) are tests/grad_workloads.rs's, the
    // loop programs (fixtures in tests/fixtures/loops/) tests/loop_programs.rs's.
    let files: Vec<_> = common::sexp_files("benches/programs")
        .into_iter()
        .filter(|p| !common::stem(p).ends_with("_grad"))
        .filter(|p| {
            !root()
                .join("tests/fixtures/loops")
                .join(common::stem(p))
                .is_dir()
        })
        .collect();
    for p in &files {
        let s = common::stem(p);
        assert!(
            tested.contains(&s.as_str()),
            "benches/programs/{s}.sexp is not tested"
        );
        assert!(
            root().join("tests/fixtures/workloads").join(&s).is_dir(),
            "no fixtures for {s}"
        );
    }
    // And every tested workload has its program (the loop above passes on
    // an empty folder).
    assert_eq!(files.len(), tested.len(), "benches/programs: {files:?}");
}

#[test]
fn small_size_transform() {
    assert_eq!(
        small_size(
            "(input A (f64 256 256)) (input X (f64 T 64)) (fill (f64 64) 3.0) (f64) (cast f64 X)"
        ),
        "(input A (f64 64 64)) (input X (f64 T 16)) (fill (f64 16) 3.0) (f64) (cast f64 X)"
    );
}
