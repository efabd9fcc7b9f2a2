//! The four loop programs of issue 15 ("Loops at native speed"), each a
//! loop that must stay a loop: `benches/programs/kalman.sexp` (a Kalman
//! filter, 2 states), `hmm_forward.sexp` (the HMM forward algorithm in log
//! space), `gru.sexp` (a GRU layer) and `lstm.sexp` (an LSTM layer with a
//! mask), checked against NumPy.
//!
//! Each program's header gives its small test sizes (`; dims: ...`) and the
//! data rule's scales (`; scale: ...`). `tests/loops_reference.py` reads the
//! same two headers, makes the inputs by the data rule and computes the
//! outputs with plain NumPy from the textbook equations, independently of
//! the `.sexp`, into `tests/fixtures/loops/NAME/` (`in_*.npy`, `out_K.npy`,
//! `meta.json`). Per program:
//!
//! - `generated_inputs`: `generate_inputs` at the header's sizes and scales
//!   gives NumPy's inputs, and `meta.json` has the header's sizes;
//! - `interpreter`: the reference interpreter on the program as written;
//! - `plan`: the compiled plan on the program as written;
//! - `optimized`: the program optimized as `eqscan run` does (default
//!   rules and limits, the cost model at the small sizes and at the header's
//!   medium sizes), run on the compiled plan: the outputs are NumPy's, and
//!   exactly one loop is left (none of the four can lose its recurrence,
//!   and the rewrites must not split it).
//!
//! Outputs must equal NumPy's within the program's relative tolerance
//! ([`LOOP_PROGRAMS`]; 1e-9 or tighter) and dtype and shape.
//!
//! The held programs of issue 40 (`benches/programs/held/NAME.sexp`,
//! [`HELD_PROGRAMS`]: published user models written as their users wrote
//! them, not tuned for eqscan) are checked the same way, with the loops
//! each has as written and after optimizing (the HMM's forward and
//! backward loops merge into one; GARCH-t's variance recurrence becomes a
//! `linrec`); and, when the header has an `; extreme: NAME=S ...` line,
//! again at those scales (`extreme_plan`, `extreme_optimized`: fixtures
//! in `tests/fixtures/loops/NAME.extreme/`).

mod common;

use common::{compare, expected_outputs, header_pairs, root};
use eqscan::exec::npy::read_npy;
use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::exec::Value;
use eqscan::lang::{parse_program, Program};
use eqscan::session::OptimizerSettings;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Each program with its relative tolerance against NumPy. Matrix
/// products and sums run in another order than NumPy's (BLAS, pairwise),
/// and the HMM reference works in probability space, so the last bits
/// differ. Largest differences seen (as written and optimized alike):
/// kalman none (bit-equal), hmm_forward 9e-16 relative, gru 2e-14
/// relative, lstm 2e-13 relative on elements near zero (1e-16 absolute).
const LOOP_PROGRAMS: &[(&str, f64)] = &[
    ("kalman", 1e-12),
    ("hmm_forward", 1e-12),
    ("gru", 1e-12),
    ("lstm", 1e-12),
];

/// The held programs of issue 40: name, relative tolerance against
/// NumPy, loops as written, loops after optimizing (at the small and the
/// medium sizes alike). Largest differences seen (absolute): at the
/// header's scales 1.1e-14 (hmm_fb_categorical's posteriors), 4e-16 or
/// less for the others; at the extreme scales 9e-13 on the HMM's
/// posteriors (each is exp of a sum of log-probabilities near −1500,
/// whose last bit is 2e-13), 1.5e-5 on GARCH-t's variances near 1e12 and
/// 6e-5 on the stochastic-volatility density near −5e11 (both about
/// 1e-16 relative), 2e-15 or less for the rest.
const HELD_PROGRAMS: &[(&str, f64, usize, usize)] = &[
    ("hmm_fb_categorical", 1e-10, 2, 1),
    ("lstm_lm_masked", 1e-10, 1, 1),
    ("gru_b80", 1e-10, 1, 1),
    ("stochvol_filter", 1e-10, 1, 1),
    ("local_level", 1e-10, 1, 1),
    ("garch_t", 1e-10, 1, 0),
];

/// For elements near zero (the LSTM's hidden states cross it).
const ATOL: f64 = 1e-14;

struct LoopProgram {
    name: &'static str,
    rtol: f64,
    dir: PathBuf,
    program: Program,
    /// The small sizes of the `; dims:` header.
    dims: Dims,
    /// The sizes of the `(medium: ...)` header line.
    medium: Dims,
    scales: BTreeMap<String, f64>,
    inputs: Vec<Value>,
    /// Loops as written and after optimizing.
    loops: (usize, usize),
}

fn medium_dims(text: &str, name: &str) -> Dims {
    let start = text
        .find("(medium:")
        .unwrap_or_else(|| panic!("{name}: no '(medium: ...)' header"))
        + "(medium:".len();
    let end = start + text[start..].find(')').expect("closed medium line");
    text[start..end]
        .split_whitespace()
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("NAME=SIZE");
            (k.to_string(), v.parse().expect("a size"))
        })
        .collect()
}

/// The program's file (relative to the root), its tolerance and its
/// loops as written and optimized.
fn listed(name: &str) -> (String, f64, (usize, usize)) {
    if let Some((_, r)) = LOOP_PROGRAMS.iter().find(|(n, _)| *n == name) {
        return (format!("benches/programs/{name}.sexp"), *r, (1, 1));
    }
    let (_, r, before, after) = HELD_PROGRAMS
        .iter()
        .find(|(n, ..)| *n == name)
        .expect("listed");
    (
        format!("benches/programs/held/{name}.sexp"),
        *r,
        (*before, *after),
    )
}

/// The program at its header's scales, or (`extreme`) at its `; extreme:`
/// scales with the fixtures of `NAME.extreme/`.
fn load(name: &'static str) -> LoopProgram {
    load_at(name, false)
}

fn load_at(name: &'static str, extreme: bool) -> LoopProgram {
    let (file, rtol, loops) = listed(name);
    let text = std::fs::read_to_string(root().join(&file)).expect("read program");
    let program = parse_program(&text).unwrap_or_else(|e| panic!("{}", e.located(&file)));
    let dims: Dims = header_pairs(&text, "dims");
    let scales = if extreme {
        let s: BTreeMap<String, f64> = header_pairs(&text, "extreme");
        assert!(!s.is_empty(), "{name}: no '; extreme:' header");
        s
    } else {
        header_pairs(&text, "scale")
    };
    assert!(!dims.is_empty(), "{name}: no '; dims:' header");
    let fixtures = if extreme {
        format!("{name}.extreme")
    } else {
        name.to_string()
    };
    let dir = root().join("tests/fixtures/loops").join(fixtures);
    let inputs = generate_inputs(&program, &dims, &scales)
        .unwrap_or_else(|e| panic!("{}", e.located(&file)));
    LoopProgram {
        name,
        rtol,
        dir,
        medium: medium_dims(&text, name),
        program,
        dims,
        scales,
        inputs,
        loops,
    }
}

fn check_outputs(w: &LoopProgram, outputs: &[Value], how: &str) {
    let expected = expected_outputs(&w.dir);
    assert!(!expected.is_empty(), "{}: no fixtures", w.name);
    assert_eq!(outputs.len(), expected.len(), "{} ({how}): outputs", w.name);
    let mut errors = Vec::new();
    for (k, (got, p)) in outputs.iter().zip(&expected).enumerate() {
        let exp = read_npy(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if let Err(msg) = compare(got, &exp, w.rtol, ATOL) {
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

fn run_plan(w: &LoopProgram, p: &Program, how: &str) -> Vec<Value> {
    let mut plan = Compiled::new(p, &w.dims).unwrap_or_else(|e| panic!("{} ({how}): {e}", w.name));
    let refs: Vec<&Value> = w.inputs.iter().collect();
    plan.call_values(&refs)
        .unwrap_or_else(|e| panic!("{} ({how}): {e}", w.name))
}

fn generated_inputs(name: &'static str) {
    generated_inputs_at(name, false);
}

fn generated_inputs_at(name: &'static str, extreme: bool) {
    let w = load_at(name, extreme);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.dir.join("meta.json")).expect("meta.json"))
            .expect("JSON");
    let meta_dims: Dims = serde_json::from_value(meta["dims"].clone()).expect("dims");
    assert_eq!(meta_dims, w.dims, "{name}: fixtures made at other sizes");
    let meta_scales: BTreeMap<String, f64> =
        serde_json::from_value(meta["scales"].clone()).expect("scales");
    assert_eq!(
        meta_scales, w.scales,
        "{name}: fixtures made at other scales"
    );
    let names: Vec<&str> = w.program.inputs().map(|(n, _)| n).collect();
    assert_eq!(meta["inputs"], serde_json::json!(names), "{name}: inputs");
    for ((iname, _), g) in w.program.inputs().zip(&w.inputs) {
        let p = w.dir.join(format!("in_{iname}.npy"));
        let f = read_npy(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        // The same formula in Rust and NumPy: equal up to libm's last bit.
        if let Err(msg) = compare(g, &f, 1e-14, 1e-15) {
            panic!("{name}: generated input {iname} differs from NumPy's:\n{msg}");
        }
    }
}

fn interpreter(name: &'static str) {
    let w = load(name);
    let outputs = run_program(&w.program, w.inputs.clone(), &w.dims)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    check_outputs(&w, &outputs, "interpreter, as written");
}

fn plan(name: &'static str) {
    plan_at(name, false);
}

fn plan_at(name: &'static str, extreme: bool) {
    let w = load_at(name, extreme);
    let outputs = run_plan(&w, &w.program, "plan, as written");
    check_outputs(&w, &outputs, "plan, as written");
}

fn optimized(name: &'static str) {
    optimized_at(name, false);
}

/// The extreme scales: the inputs as NumPy made them, the plan as written
/// and optimized (at the small sizes) give NumPy's outputs.
fn extreme(name: &'static str) {
    generated_inputs_at(name, true);
    plan_at(name, true);
    let w = load_at(name, true);
    let outputs = run_program(&w.program, w.inputs.clone(), &w.dims)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    check_outputs(&w, &outputs, "interpreter, as written, extreme scales");
    optimized_at(name, true);
}

fn optimized_at(name: &'static str, extreme: bool) {
    let w = load_at(name, extreme);
    let (before, after) = w.loops;
    assert_eq!(w.program.count_scans(), before, "{name}: loops as written");
    for (sizes, dims) in [("small", &w.dims), ("medium", &w.medium)] {
        let how = format!("plan, optimized for the {sizes} sizes");
        let report = OptimizerSettings::default()
            .optimize(&w.program, dims)
            .unwrap_or_else(|e| panic!("{name} ({how}): {e}"));
        assert!(
            report.cost_after <= report.cost_before,
            "{name} ({how}): cost went up: {} -> {}",
            report.cost_before,
            report.cost_after
        );
        assert_eq!(
            report.program.count_scans(),
            after,
            "{name} ({how}): loops left in\n{}",
            eqscan::lang::print_program(&report.program)
        );
        let outputs = run_plan(&w, &report.program, &how);
        check_outputs(&w, &outputs, &how);
    }
}

/// The tests every loop program gets, in the module of its name.
macro_rules! program_tests {
    ($name:ident) => {
        #[test]
        fn generated_inputs() {
            super::generated_inputs(stringify!($name));
        }
        #[test]
        fn interpreter() {
            super::interpreter(stringify!($name));
        }
        #[test]
        fn plan() {
            super::plan(stringify!($name));
        }
        #[test]
        fn optimized() {
            super::optimized(stringify!($name));
        }
    };
}

macro_rules! loop_programs {
    ($($name:ident),*) => {$(
        mod $name {
            program_tests!($name);
        }
    )*};
}

loop_programs!(kalman, hmm_forward, gru, lstm);

/// The held programs' tests: those of every loop program, and the run at
/// the extreme scales of their headers.
macro_rules! held_programs {
    ($($name:ident),*) => {$(
        mod $name {
            program_tests!($name);
            #[test]
            fn extreme() {
                super::extreme(stringify!($name));
            }
        }
    )*};
}

mod held {
    use super::{extreme, generated_inputs, interpreter, optimized, plan};
    held_programs!(
        hmm_fb_categorical,
        lstm_lm_masked,
        gru_b80,
        stochvol_filter,
        local_level,
        garch_t
    );
}

/// Every listed program has its file and its fixtures (and its extreme
/// fixtures when its header has an `; extreme:` line), and every fixture
/// folder is a listed program's (the macros above test the listed ones);
/// every file of `benches/programs/held/` is listed.
#[test]
fn every_loop_program_is_tested() {
    let names: Vec<&str> = LOOP_PROGRAMS
        .iter()
        .map(|(n, _)| *n)
        .chain(HELD_PROGRAMS.iter().map(|(n, ..)| *n))
        .collect();
    let mut expected_dirs = Vec::new();
    for name in &names {
        let (file, ..) = listed(name);
        let text =
            std::fs::read_to_string(root().join(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        expected_dirs.push(name.to_string());
        if !header_pairs::<f64>(&text, "extreme").is_empty() {
            expected_dirs.push(format!("{name}.extreme"));
        }
    }
    for d in &expected_dirs {
        assert!(
            root()
                .join(format!("tests/fixtures/loops/{d}/out_0.npy"))
                .is_file(),
            "no fixtures in tests/fixtures/loops/{d}"
        );
    }
    let mut dirs: Vec<String> = std::fs::read_dir(root().join("tests/fixtures/loops"))
        .expect("tests/fixtures/loops")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    expected_dirs.sort();
    assert_eq!(
        dirs, expected_dirs,
        "tests/fixtures/loops: folders without a listed program"
    );
    let held: Vec<String> = common::sexp_files("benches/programs/held")
        .iter()
        .map(|p| common::stem(p))
        .collect();
    assert_eq!(
        held.len(),
        HELD_PROGRAMS.len(),
        "benches/programs/held: {held:?}"
    );
    for h in &held {
        assert!(
            HELD_PROGRAMS.iter().any(|(n, ..)| n == h),
            "benches/programs/held/{h}.sexp is not listed in HELD_PROGRAMS"
        );
    }
}
