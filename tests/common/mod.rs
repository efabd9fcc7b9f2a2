//! Helpers shared by the integration tests: locating files, reading case
//! headers, comparing values with a tolerance, the content of
//! optimized-program snapshots, and (in [`harness`]) the trials of the
//! data-driven harnesses.
#![allow(dead_code)]

pub mod fd;
pub mod harness;
pub mod op_examples;
pub mod optimize_figures;

use eqscan::exec::plan::PlanOptions;
use eqscan::exec::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The plan with every loop step on the plan itself (no step tape): the
/// reference the step tape and its machine code are compared with.
pub fn plan_without_tape() -> PlanOptions {
    PlanOptions {
        step_tape: false,
        ..PlanOptions::default()
    }
}

/// The plan with the step tape as machine code from a loop's first step
/// on, whatever its length (the default waits for long loops).
pub fn plan_native_from_first_step() -> PlanOptions {
    PlanOptions {
        native_steps: Some(0),
        ..PlanOptions::default()
    }
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `.sexp` files directly in `dir` (relative to the root), sorted; none
/// when the directory does not exist.
pub fn sexp_files(dir: &str) -> Vec<PathBuf> {
    let dir = root().join(dir);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "sexp") && p.is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// The file name without `.sexp`.
pub fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// `path` relative to the repository root, for messages.
pub fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// The value of a `; KEY: ...` header comment, if any (the first one).
pub fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let body = line.trim_start().strip_prefix(';')?.trim_start();
        let rest = body.strip_prefix(key)?.strip_prefix(':')?;
        Some(rest.trim())
    })
}

/// `NAME=VALUE` pairs of a header (`; dims: T=5 N=3`).
pub fn header_pairs<T: std::str::FromStr>(text: &str, key: &str) -> BTreeMap<String, T>
where
    T::Err: std::fmt::Debug,
{
    let mut map = BTreeMap::new();
    if let Some(v) = header(text, key) {
        for item in v.split_whitespace() {
            let (k, v) = item
                .split_once('=')
                .unwrap_or_else(|| panic!("bad '{key}:' header item {item:?}"));
            let v = v
                .parse()
                .unwrap_or_else(|e| panic!("bad '{key}:' value {item:?}: {e:?}"));
            map.insert(k.to_string(), v);
        }
    }
    map
}

fn dtype_name(v: &Value) -> String {
    format!("{:?}", v.dtype())
}

/// Checks that `got` equals `expected`: same dtype, same shape, and every
/// element within `atol + rtol * |expected|` (nan matches nan, infinities
/// must be equal). Returns a description of the differences otherwise.
pub fn compare(got: &Value, expected: &Value, rtol: f64, atol: f64) -> Result<(), String> {
    if got.dtype() != expected.dtype() {
        return Err(format!(
            "dtype: got {}, expected {}",
            dtype_name(got),
            dtype_name(expected)
        ));
    }
    if got.shape() != expected.shape() {
        return Err(format!(
            "shape: got {:?}, expected {:?}",
            got.shape(),
            expected.shape()
        ));
    }
    let g = elements(got);
    let e = elements(expected);
    let shape = expected.shape().to_vec();
    let mut bad = Vec::new();
    let mut n_bad = 0usize;
    let mut worst = 0.0f64;
    for (i, (a, b)) in g.iter().zip(e.iter()).enumerate() {
        let ok = (a.is_nan() && b.is_nan())
            || a == b
            || (a.is_finite() && b.is_finite() && (a - b).abs() <= atol + rtol * b.abs());
        if !ok {
            n_bad += 1;
            if a.is_finite() && b.is_finite() {
                worst = worst.max((a - b).abs());
            } else {
                worst = f64::INFINITY;
            }
            if bad.len() < 5 {
                bad.push(format!(
                    "  at {:?}: got {a:?}, expected {b:?}",
                    unravel(i, &shape)
                ));
            }
        }
    }
    if n_bad == 0 {
        Ok(())
    } else {
        Err(format!(
            "{n_bad} of {} elements differ (max |got-expected| = {worst:e}; rtol {rtol:e}, atol {atol:e}):\n{}",
            e.len(),
            bad.join("\n")
        ))
    }
}

/// The elements as `f64`, row-major (exact for the small integers of the
/// tests).
pub fn elements(v: &Value) -> Vec<f64> {
    match v {
        Value::F64(a) => a.iter().copied().collect(),
        Value::F32(a) => a.iter().map(|&x| x as f64).collect(),
        Value::I64(a) => a.iter().map(|&x| x as f64).collect(),
        Value::I32(a) => a.iter().map(|&x| x as f64).collect(),
        Value::Bool(a) => a.iter().map(|&x| x as i64 as f64).collect(),
    }
}

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (k, &n) in shape.iter().enumerate().rev() {
        if n > 0 {
            idx[k] = i % n;
            i /= n;
        }
    }
    idx
}

/// The `out_K.npy` files of a directory, in K order (K = 0, 1, ... until a
/// file is missing).
pub fn expected_outputs(dir: &Path) -> Vec<PathBuf> {
    (0..)
        .map(|k| dir.join(format!("out_{k}.npy")))
        .take_while(|p| p.is_file())
        .collect()
}

/// The content of an optimized-program snapshot: two `;` comment lines
/// with the cost of the program as written and of the optimized one
/// (the report's DAG measure) and why saturation stopped (and a third
/// with the rounds of saturation when it restarted from the extracted
/// program), then the optimized program's text. The comments keep the snapshot a program that
/// parses. Every field is deterministic: the callers fail a run that
/// stopped on the time limit, the only stop reason that depends on the
/// machine.
pub fn optimized_snapshot(report: &eqscan::optimize::Report, program_text: &str) -> String {
    let stop = report.stop_reason.to_string();
    assert_ne!(
        stop, "time_limit",
        "a run stopped by the clock would make the snapshot depend on the machine"
    );
    // The rounds are named only when saturation restarted from the
    // extracted program (most cases run one).
    let rounds = match report.rounds {
        0 | 1 => String::new(),
        n => format!("; rounds: {n}\n"),
    };
    format!(
        "; cost: {} -> {}\n; stop_reason: {stop}\n{rounds}{program_text}",
        report.cost_before, report.cost_after
    )
}

/// Ends a property run that failed: writes each reduced program of
/// `report` (its text, the failure's message) to `DIR/PREFIXkkk.sexp` and
/// panics with all of them, so a failure can be read and replayed.
pub fn fail_with_reduced(dir: &Path, prefix: &str, report: &[(String, String)]) -> ! {
    let _ = std::fs::create_dir_all(dir);
    let mut all = Vec::new();
    for (k, (text, msg)) in report.iter().enumerate() {
        let path = dir.join(format!("{prefix}{k:03}.sexp"));
        let _ = std::fs::write(&path, text);
        all.push(format!("--- {} ---\n{text}{msg}", path.display()));
    }
    panic!("property failed; reduced programs:\n{}", all.join("\n\n"));
}
