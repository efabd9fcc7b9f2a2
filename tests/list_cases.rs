//! Nested-list cases checked against NumPy (`tests/cases/lists/`).
//!
//! Each `NAME.sexp` runs in every mode of [`MODES`] on the inputs in
//! `NAME.inputs/` (one `.npz` archive per list input, one `.npy` file per
//! tensor input, named after the input) or, with a `; gen: L=2,0,1`
//! header, on generated inputs (`--gen --lengths L=2,0,1`; `; gen:` alone
//! keeps the default lengths). The outputs must match
//! `NAME.expected/out_K.npz|npy`, which `tests/list_cases.py` computes
//! with NumPy: a list's dtype, row splits and values, a tensor's dtype and
//! shape, values within rtol 1e-9 / atol 1e-12 (nan equal to nan). Every
//! case also prints back to text that parses to the same program, and
//! goes through the e-graph's term language unchanged.
//!
//! Run one case with `cargo test --release --test list_cases -- lists::d3_nested`.

mod common;

use common::harness::{self, case_files};
use common::{compare, header, stem};
use eqscan::exec::list::npz::read_list_npz;
use eqscan::exec::list::{Item, ListValue};
use eqscan::exec::npy::read_npy;
use eqscan::lang::{parse_program, print_program, Program};
use eqscan::session::{run_lists, OptimizerSettings, RunOptions, Source};
use libtest_mimic::{Failed, Trial};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-12;

/// How a case is run: through the library without and with the
/// optimizer, and through `eqscan run --out` (the archives it writes read
/// back).
const MODES: &[&str] = &["no_opt", "optimized", "cli"];

/// A case's command-line inputs: `(NAME, FILE)` pairs, and the `--lengths`
/// of a generated case (`None`: inputs from files).
struct Given {
    files: Vec<(String, PathBuf)>,
    gen: Option<BTreeMap<String, String>>,
}

fn given(path: &Path, text: &str) -> Given {
    let gen = header(text, "gen").map(|v| {
        v.split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    });
    let dir = path.with_extension("inputs");
    let mut files = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let p = e.path();
            if let Some(name) = p.file_stem().and_then(|s| s.to_str()) {
                files.push((name.to_string(), p.clone()));
            }
        }
    }
    files.sort();
    Given { files, gen }
}

fn read_item(path: &Path) -> Result<Item, String> {
    if path.extension().is_some_and(|e| e == "npz") {
        read_list_npz(path)
            .map(Item::List)
            .map_err(|e| e.to_string())
    } else {
        read_npy(path).map(Item::Tensor).map_err(|e| e.to_string())
    }
}

fn expected(path: &Path) -> Vec<PathBuf> {
    let dir = path.with_extension("expected");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    let index = |p: &PathBuf| -> usize {
        p.file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.strip_prefix("out_"))
            .and_then(|k| k.parse().ok())
            .unwrap_or(usize::MAX)
    };
    files.sort_by_key(index);
    files
}

fn compare_lists(got: &ListValue, want: &ListValue) -> Result<(), String> {
    let (gv, gs) = got.to_parts();
    let (wv, ws) = want.to_parts();
    if gs != ws {
        return Err(format!("row splits: got {gs:?}, expected {ws:?}"));
    }
    compare(&gv, &wv, RTOL, ATOL).map_err(|e| format!("values: {e}"))
}

fn compare_items(got: &[Item], want_files: &[PathBuf]) -> Result<(), String> {
    if got.len() != want_files.len() {
        return Err(format!(
            "{} outputs, {} expected",
            got.len(),
            want_files.len()
        ));
    }
    for (k, (g, w)) in got.iter().zip(want_files).enumerate() {
        let want = read_item(w)?;
        match (g, &want) {
            (Item::List(g), Item::List(w)) => compare_lists(g, w),
            (Item::Tensor(g), Item::Tensor(w)) => compare(g, w, RTOL, ATOL),
            _ => Err("a list where a tensor is expected, or the reverse".into()),
        }
        .map_err(|e| format!("out_{k}: {e}"))?;
    }
    Ok(())
}

fn run_library(p: &Program, g: &Given, optimize: bool) -> Result<Vec<Item>, String> {
    let opts = RunOptions {
        inputs: g
            .files
            .iter()
            .map(|(n, f)| (n.clone(), Source::Npy(f.clone())))
            .collect(),
        gen: g.gen.is_some(),
        optimizer: optimize.then(OptimizerSettings::default),
        ..RunOptions::default()
    };
    let lengths = g.gen.clone().unwrap_or_default();
    run_lists(p, &opts, &lengths)
        .map(|r| r.outputs)
        .map_err(|e| e.to_string())
}

fn run_cli(path: &Path, g: &Given, n_out: usize) -> Result<Vec<Item>, String> {
    let out = std::env::temp_dir().join(format!(
        "eqscan-lists-{}-{}",
        std::process::id(),
        stem(path)
    ));
    let _ = std::fs::remove_dir_all(&out);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_eqscan"));
    cmd.arg("run").arg(path).arg("--out").arg(&out);
    for (n, f) in &g.files {
        cmd.arg("--input").arg(format!("{n}={}", f.display()));
    }
    if let Some(lens) = &g.gen {
        cmd.arg("--gen");
        for (n, s) in lens {
            cmd.arg("--lengths").arg(format!("{n}={s}"));
        }
    }
    let o = cmd.output().map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(format!(
            "eqscan run failed: {}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    let items = (0..n_out)
        .map(|k| {
            let npz = out.join(format!("out_{k}.npz"));
            read_item(&if npz.exists() {
                npz
            } else {
                out.join(format!("out_{k}.npy"))
            })
        })
        .collect::<Result<Vec<_>, _>>();
    let _ = std::fs::remove_dir_all(&out);
    items
}

/// The program prints back to text that parses to itself, and goes
/// through the term language unchanged.
fn round_trips(p: &Program) -> Result<(), String> {
    let text = print_program(p);
    let q =
        parse_program(&text).map_err(|e| format!("printed text does not parse: {e}\n{text}"))?;
    if &q != p {
        return Err(format!("printed text parses to another program:\n{text}"));
    }
    use eqscan::egraph::term::{expr_to_program, program_to_expr};
    // The term language takes programs with their `grad`s expanded.
    let expanded = eqscan::grad::expand(p).map_err(|e| format!("grad: {e}"))?;
    let p = &expanded;
    let expr = program_to_expr(p).map_err(|e| format!("to term: {e}"))?;
    let inputs: Vec<_> = p
        .inputs()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    let back = expr_to_program(&p.name, &inputs, &expr).map_err(|e| format!("from term: {e}"))?;
    let again = print_program(&back);
    if parse_program(&again).is_err() {
        return Err(format!("the term's program does not parse back:\n{again}"));
    }
    Ok(())
}

fn check(path: &Path, mode: &str) -> Result<(), Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let p = parse_program(&text).map_err(|e| e.to_string())?;
    let g = given(path, &text);
    let want = expected(path);
    let got = match mode {
        "no_opt" => {
            round_trips(&p)?;
            run_library(&p, &g, false)?
        }
        "optimized" => run_library(&p, &g, true)?,
        _ => run_cli(path, &g, want.len())?,
    };
    compare_items(&got, &want).map_err(Failed::from)
}

fn main() {
    let files = case_files("tests/cases/lists");
    let mut trials = Vec::new();
    for &mode in MODES {
        for path in &files {
            let path = path.clone();
            let name = format!("lists::{}::{mode}", stem(&path));
            trials.push(Trial::test(name, move || check(&path, mode)));
        }
    }
    harness::run(trials)
}
