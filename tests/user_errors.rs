//! Errors of an optimized run belong to the user's program (issue 11,
//! point 4): `eqscan run` optimized and `eqscan run --no-opt` end the same
//! way — the same exit status, the same line on stderr (the same sentence
//! at the same FILE:LINE:COL of the user's file), the same stdout.
//!
//! - `both_ways::NAME`: every `tests/cases/fail/NAME.sexp` whose `; args:`
//!   run the program (`run ...`), run once with `--no-opt` and once without.
//!   The `opt_*` cases are the repros of the issue (a state of shape [1]
//!   fed a [D] step, n_steps past the sequences, a size never bound, an
//!   error whose line or column moved in the optimized text, indices and
//!   step counts from data, a 0-step loop whose body cannot run); their
//!   args run optimized, and `tests/bad_input.rs` snapshots the line.
//! - `optimizer_bug::*`: a rule file with a wrong rule (the sum of x becomes
//!   its element 100) makes the optimized program fail where the program as
//!   written runs: the run prints the written program's results, exit 0,
//!   and one warning line naming the optimizer (`eqscan::exec::map_back`).
//! - `agree::PATH@SIZES`: every valid program (examples, the case folders,
//!   the workloads), optimized once with the shipped rules, then run in
//!   process at its sizes, with every size 0 and with every size 1: the
//!   check of the program as written (`eqscan::exec::shape_check`) and the
//!   run must give the error `--no-opt` gives, or none, and the optimized
//!   program must never fail where the written one runs. At its own sizes
//!   the check must accept every valid program. Optimizer bugs this finds
//!   are listed in [`KNOWN_OPTIMIZER_BUGS`] (the run falls back to the
//!   written program for them); a listed case that no longer fails must be
//!   taken off the list.
//! - `optimizer_bug::zero_size_max`: a former one, through the command
//!   line: the results of `--no-opt`, no warning, exit 0.

mod common;

use common::harness::{self, case_files};
use common::{header, header_pairs, rel, root, stem};
use eqscan::exec::map_back::{run_mapped_back, Outcome};
use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{generate_inputs, Dims};
use eqscan::exec::shape_check::check_program;
use eqscan::exec::{ExecError, Value};
use eqscan::lang::{parse_program, Program};
use libtest_mimic::{Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn eqscan(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eqscan"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("start eqscan")
}

fn show(out: &Output) -> String {
    format!(
        "exit {}, stderr {:?}, stdout {:?}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    )
}

/// Runs a fail case's command line with and without `--no-opt`.
fn both_ways(path: &Path) -> Result<(), Failed> {
    let file = rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
    let args = header(&text, "args").ok_or(format!("{file}: no '; args:' header"))?;
    let mut words = args.split_whitespace().map(str::to_string);
    let sub = words.next().ok_or("empty args")?;
    let rest: Vec<String> = words.filter(|w| w != "--no-opt").collect();
    let mut optimized = vec![sub.clone(), file.clone()];
    optimized.extend(rest.iter().cloned());
    let mut written = optimized.clone();
    written.push("--no-opt".to_string());
    let (o, w) = (eqscan(&optimized), eqscan(&written));
    if w.status.code() != Some(1) {
        return Err(format!("{file} --no-opt: expected exit 1, got {}", show(&w)).into());
    }
    if (o.status.code(), &o.stderr, &o.stdout) != (w.status.code(), &w.stderr, &w.stdout) {
        return Err(format!(
            "{file}: optimized and --no-opt differ\n  optimized: {}\n  --no-opt:  {}",
            show(&o),
            show(&w)
        )
        .into());
    }
    Ok(())
}

const BUG_RULES: &str = "tests/cases/optimizer_bug/sum_is_element_100.rules";

/// The optimized program fails, the written one runs: the written
/// program's results, exit 0, one warning line.
fn optimizer_bug(program: &str, dims: &[&str], failure: &str) -> Result<(), Failed> {
    let mut args = vec!["run".to_string(), program.to_string(), "--gen".to_string()];
    args.extend(dims.iter().map(|d| d.to_string()));
    let mut written = args.clone();
    written.push("--no-opt".to_string());
    args.extend(["--rules".to_string(), BUG_RULES.to_string()]);
    let (o, w) = (eqscan(&args), eqscan(&written));
    let want = format!(
        "warning: {program}: the optimized program failed where the program as written runs \
         (an optimizer bug; the results are those of the program as written): {failure}\n"
    );
    if o.status.code() != Some(0) || w.status.code() != Some(0) {
        return Err(format!("expected exit 0: {} / {}", show(&o), show(&w)).into());
    }
    if o.stdout != w.stdout || String::from_utf8_lossy(&o.stderr) != want {
        return Err(format!(
            "got {}\nwant stderr {want:?}\n--no-opt: {}",
            show(&o),
            show(&w)
        )
        .into());
    }
    Ok(())
}

/// Programs whose optimized form (optimized at the case's sizes) fails at
/// other sizes where the program as written runs: optimizer bugs found by
/// `agree::`, with what goes wrong. `eqscan run` prints the written
/// program's results and a warning for them.
const KNOWN_OPTIMIZER_BUGS: &[(&str, &str)] = &[(
    "tests/cases/scan_rules/eq_vec_stack_invariant_reshape.sexp",
    "all sizes 0: the hoisted (reshape X T -1) is ambiguous at T = 0",
)];

/// A valid program and the sizes it is meant to run at.
struct Valid {
    name: String,
    program: Program,
    dims: Dims,
}

fn valid_programs() -> Vec<Valid> {
    let defaults: Dims = [("T", 8), ("D", 5), ("N", 6), ("M", 4)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for dir in [
        "examples",
        "benches/programs",
        "tests/cases/ops",
        "tests/cases/scan",
        "tests/cases/scan_rules",
        "tests/cases/shared",
    ] {
        dirs.extend(case_files(dir));
    }
    for path in dirs {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut dims = defaults.clone();
        dims.extend(header_pairs::<i64>(&text, "dims"));
        let program = parse_program(&text).unwrap_or_else(|e| panic!("{}", e.located(&rel(&path))));
        // `eqscan run` expands `grad` before anything else.
        let program =
            eqscan::grad::expand(&program).unwrap_or_else(|e| panic!("{}: {e}", rel(&path)));
        out.push(Valid {
            name: rel(&path),
            program,
            dims,
        });
    }
    out
}

/// What a run ended with: the outputs, or the located error.
fn run_once(p: &Program, inputs: &[Value], dims: &Dims) -> Result<Vec<Value>, ExecError> {
    let mut c = Compiled::new(p, dims)?;
    let refs: Vec<&Value> = inputs.iter().collect();
    c.call_values(&refs)
}

/// The written program and its optimized form, run at `dims` the way
/// `eqscan run` does.
/// Returns whether a known optimizer bug showed.
fn agree(name: &str, written: &Program, optimized: &Program, dims: &Dims) -> Result<bool, Failed> {
    let inputs = match generate_inputs(written, dims, &Default::default()) {
        Ok(v) => v,
        // The same for both: inputs are made before anything else.
        Err(_) => return Ok(false),
    };
    if check_program(written, dims).is_err() {
        // Reported before optimizing, in both modes.
        return Ok(false);
    }
    let as_written = run_once(written, &inputs, dims);
    let mapped = run_mapped_back(written, optimized, |p| run_once(p, &inputs, dims));
    match (as_written, mapped) {
        (Err(w), Err(o)) if w == o => Ok(false),
        (Ok(_), Ok(Outcome::Optimized(_))) => Ok(false),
        (Ok(_), Ok(Outcome::Written { .. }))
            if KNOWN_OPTIMIZER_BUGS.iter().any(|k| k.0 == name) =>
        {
            Ok(true)
        }
        (
            Ok(_),
            Ok(Outcome::Written {
                optimized_error, ..
            }),
        ) => Err(format!(
            "{name} at {dims:?}: the optimized program fails where the written one runs \
             (an optimizer bug): {optimized_error}\n{}",
            eqscan::lang::print_program(optimized)
        )
        .into()),
        (w, o) => Err(format!(
            "{name} at {dims:?}: as written {:?}, optimized {:?}",
            w.err(),
            o.err()
        )
        .into()),
    }
}

fn main() {
    let mut trials: Vec<Trial> = Vec::new();

    for path in case_files("tests/cases/fail") {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if header(&text, "args").is_some_and(|a| a.starts_with("run ") || a == "run") {
            let name = format!("both_ways::{}", stem(&path));
            trials.push(Trial::test(name, move || both_ways(&path)));
        }
    }

    trials.push(Trial::test("optimizer_bug::sum_becomes_an_element", || {
        optimizer_bug(
            "tests/cases/optimizer_bug/sum_of_squares.sexp",
            &["--dim", "N=3"],
            "index: index 100 is out of range for axis 0 of size 6",
        )
    }));

    // A former one: the optimized program takes a max over an empty axis
    // that the loop of 0 steps never takes. A reduction of an empty
    // extent into an empty result is empty now (an error only where a
    // result element asks for the extreme of nothing), so both forms
    // run, with the same outputs and no warning.
    trials.push(Trial::test("optimizer_bug::zero_size_max", || {
        let program = "tests/cases/scan_rules/eq_vec_reduce_axes_a.sexp";
        let mut args: Vec<String> = ["run", program, "--gen", "--dim", "T=0", "--dim", "N=0"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(["--dim".to_string(), "M=0".to_string()]);
        let mut written = args.clone();
        written.push("--no-opt".to_string());
        let (o, w) = (eqscan(&args), eqscan(&written));
        if o.status.code() != Some(0)
            || w.status.code() != Some(0)
            || o.stdout != w.stdout
            || !o.stderr.is_empty()
        {
            return Err(format!("got {}\n--no-opt: {}", show(&o), show(&w)).into());
        }
        Ok(())
    }));

    let rewrites = std::sync::Arc::new(
        eqscan::optimize::default_rewrites().unwrap_or_else(|e| panic!("{} rule errors", e.len())),
    );
    for case in valid_programs() {
        let rewrites = rewrites.clone();
        trials.push(Trial::test(format!("agree::{}", case.name), move || {
            let Valid {
                name,
                program,
                dims,
            } = case;
            check_program(&program, &dims).map_err(|e| {
                format!("the check rejects {name} at {dims:?}: {}", e.located(&name))
            })?;
            let model = eqscan::extract::cost::CostModel::with_dims(dims.clone());
            let optimized =
                eqscan::optimize::optimize(&program, &rewrites, &Default::default(), &model)
                    .map_err(|e| e.to_string())?
                    .program;
            let mut known_bug_seen = false;
            for value in [None, Some(0), Some(1)] {
                let at: Dims = dims
                    .iter()
                    .map(|(k, v)| (k.clone(), value.unwrap_or(*v)))
                    .collect();
                known_bug_seen |= agree(&name, &program, &optimized, &at)?;
            }
            let listed = KNOWN_OPTIMIZER_BUGS.iter().any(|k| k.0 == name);
            if listed && !known_bug_seen {
                return Err(format!(
                    "{name} is in KNOWN_OPTIMIZER_BUGS but its optimized form no longer fails: \
                     take it off the list"
                )
                .into());
            }
            Ok(())
        }));
    }

    harness::run(trials);
}
