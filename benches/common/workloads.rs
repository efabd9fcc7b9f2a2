//! The workload programs of `benches/programs/` (the eight forward ones,
//! the three gradient ones, `*_grad`, and the four loop programs of
//! issue 15: kalman, hmm_forward, gru, lstm), shared by the benches
//! (`benches/optimize.rs`, `benches/execute.rs`): the files in name order,
//! each program with its `grad`s expanded (what `eqscan run` and
//! `optimize` work on), the medium sizes of each header's
//! `(medium: T=... N=...)` line, and the data rule's input scales
//! (WORKLOADS.md).

#![allow(dead_code)] // each includer uses part of it

use eqscan::grad::expand;
use eqscan::lang::{parse_program, Program};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One workload: its name (the file stem), its program (`grad`s
/// expanded) and its text.
pub struct Workload {
    pub name: String,
    pub program: Program,
    pub text: String,
}

/// The workload programs, sorted by name.
pub fn workloads() -> Vec<Workload> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("benches/programs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sexp"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path
                .file_stem()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&path).expect("read");
            let written = parse_program(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let program = expand(&written).unwrap_or_else(|e| panic!("{name}: {e}"));
            Workload {
                name,
                program,
                text,
            }
        })
        .collect()
}

/// The sizes of a workload's `(medium: T=200 N=256)` header line.
pub fn medium_dims(text: &str, file: &str) -> BTreeMap<String, i64> {
    let start = text
        .find("(medium:")
        .unwrap_or_else(|| panic!("{file}: no '(medium: ...)' line"));
    let rest = &text[start + "(medium:".len()..];
    let end = rest.find(')').unwrap_or_else(|| panic!("{file}: unclosed"));
    rest[..end]
        .split_whitespace()
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .unwrap_or_else(|| panic!("{file}: bad size {kv}"));
            let v = v
                .parse()
                .unwrap_or_else(|_| panic!("{file}: bad size {kv}"));
            (k.to_string(), v)
        })
        .collect()
}

/// Input scales of the data rule, from WORKLOADS.md and the loop programs'
/// `; scale:` headers (1 when not listed).
pub fn scales(name: &str) -> BTreeMap<String, f64> {
    let list: &[(&str, f64)] = match name {
        "invariant" => &[("A", 1.0 / 16.0)],
        "rnn" | "rnn_grad" => &[("W", 1.0 / 16.0), ("U", 1.0 / 16.0)],
        "output_push" => &[("W", 1.0 / 11.0), ("V", 1.0 / 11.0)],
        // The loop programs' `; scale:` headers (tests/loop_programs.rs).
        "kalman" => &[("y", 4.0)],
        "hmm_forward" => &[
            ("y", 4.0),
            ("mu", 4.0),
            ("pi_logits", 2.0),
            ("A_logits", 2.0),
        ],
        _ => &[],
    };
    list.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}
