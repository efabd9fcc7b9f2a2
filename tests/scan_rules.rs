//! Data-driven tests of the Scan rewrites: each `tests/cases/scan_rules/NAME.sexp`
//! is optimized with the shipped rules and the Scan rewrites, and must keep
//! its outputs, its cost bound and the structure its header states.
//!
//! Header comments (`; KEY: VALUE`, one per line, anywhere in the file; each
//! key at most once):
//!
//! | key | meaning |
//! |---|---|
//! | `dims: T=6 N=3` | symbolic sizes to run at; also the sizes the cost model prices at |
//! | `cost_dims: T=1000` | optional: sizes for the cost model that replace or add to `dims` |
//! | `memory_budget: BYTES` | optional: optimize under this memory budget (`--memory-budget`): the cost model prices allocations over it and the budget's rewrites (`optimize::memory_rewrites`, sized by `cost_dims`) join the Scan rewrites |
//! | `scale: X=0.5` | optional: input scales of the data rule, as in `tests/cases.rs` |
//! | `scans_before: 2` | optional: the number of scans as written (nested ones included) |
//! | `scans_after: 1` | required: the exact number of scans in the optimized program |
//! | `parts_after: seqs=0 sitsots=1` | optional: exact counts of loop parts in the optimized program, summed over its scans (nested ones included): `seqs`, `nonseqs`, `sitsots`, `mitsots`, `mitmots`, `nitsots` |
//! | `fires: RULE ...` | each rule must be in the report's `rules_applied` |
//! | `not_fires: RULE ...` | no rule named here may be applied |
//! | `known_bug: TEXT` | the case shows a bug not fixed yet: it is listed as ignored (run it with `-- --ignored`) |
//!
//! RULE names are checked against the rewrites' names, and a comment line
//! `; word: ...` whose word looks like a misspelt key (it has an underscore,
//! or is one edit away from a key) is an error rather than a silent no-op.
//!
//! For every case the harness checks, in this order:
//! 1. the program parses, and `scans_before` (if given) holds;
//! 2. optimizing with `default_rewrites()`, `Limits::default()` (but a
//!    60 s time limit, so that runs stop on the deterministic iteration and
//!    node limits; a run stopped by time fails) and
//!    `CostModel::with_dims(cost_dims)` succeeds with
//!    `cost_after <= cost_before`;
//! 3. `scans_after`, `fires` and `not_fires` hold;
//! 4. optimizing again prints the same program text (determinism);
//! 5. the original and the optimized program, run on the data rule's inputs,
//!    give the same outputs: dtype and shape equal, values within
//!    rtol 1e-9 / atol 1e-12 (nan equal to nan);
//! 6. the optimized program's text, headed by the cost before and after
//!    and the stop reason (`common::optimized_snapshot`), matches the insta
//!    snapshot `tests/snapshots/scan_rules__NAME.snap`.
//!
//! Update the snapshots with `INSTA_UPDATE=always cargo test --release --test scan_rules`
//! and read every new one. Run one case with
//! `cargo test --release --test scan_rules -- pt_a1_dup_unused_nonseqs`.
//! The saturation limits may be overridden for exploration with the
//! environment variables `EQSCAN_ITER_LIMIT`, `EQSCAN_NODE_LIMIT` and
//! `EQSCAN_TIME_LIMIT` (seconds).

mod common;

use common::harness::{self, case_files};
use common::{compare, header, header_pairs, optimized_snapshot, rel, stem};
use eqscan::egraph::runner::Limits;
use eqscan::exec::run::{generate_inputs, run_program, Dims};
use eqscan::extract::cost::CostModel;
use eqscan::lang::{parse_program, print_program, Graph, Op, OutputInfo, Program};
use eqscan::optimize::{default_rewrites, memory_rewrites, optimize, Report};
use libtest_mimic::{Failed, Trial};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-12;

/// The saturation time limit of the tests (see [`limits`]).
const TIME_LIMIT_SECS: u64 = 60;

/// The header keys a case may use.
const KEYS: &[&str] = &[
    "dims",
    "cost_dims",
    "memory_budget",
    "scale",
    "scans_before",
    "scans_after",
    "parts_after",
    "fires",
    "not_fires",
    "known_bug",
];

/// The loop parts `parts_after:` counts.
const PARTS: &[&str] = &[
    "seqs", "nonseqs", "sitsots", "mitsots", "mitmots", "nitsots",
];

/// The loop parts of every scan in `g` (nested ones included), by the
/// names of [`PARTS`].
fn loop_parts(g: &Graph, counts: &mut BTreeMap<String, usize>) {
    for n in &g.nodes {
        if let Op::Scan(s) = &n.op {
            let mut add = |k: &str, v: usize| *counts.entry(k.to_string()).or_insert(0) += v;
            add("seqs", s.sig.n_seqs());
            add("nonseqs", s.sig.n_non_seqs);
            for o in &s.sig.outputs {
                match o {
                    OutputInfo::Sitsot => add("sitsots", 1),
                    OutputInfo::Mitsot(_) => add("mitsots", 1),
                    OutputInfo::Nitsot => add("nitsots", 1),
                    OutputInfo::Mitmot { .. } => add("mitmots", 1),
                }
            }
            loop_parts(&s.body, counts);
        }
    }
}

/// What a case's header asks for.
struct Case {
    dims: Dims,
    cost_dims: Dims,
    memory_budget: Option<u64>,
    scales: BTreeMap<String, f64>,
    scans_before: Option<usize>,
    scans_after: usize,
    parts_after: BTreeMap<String, usize>,
    fires: Vec<String>,
    not_fires: Vec<String>,
    known_bug: Option<String>,
}

/// The lowercase `word` of a `; word: ...` comment line, if it has that
/// form.
fn header_key(line: &str) -> Option<&str> {
    let body = line.trim_start().strip_prefix(';')?.trim_start();
    let (key, _) = body.split_once(':')?;
    (!key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')).then_some(key)
}

/// Edit distance between two short words.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// True when `key` (not a header key) looks like a misspelt one: it has an
/// underscore, or is one edit away from a key. Prose such as `; read: ...`
/// is left alone.
fn misspelt(key: &str) -> bool {
    key.contains('_') || KEYS.iter().any(|k| distance(key, k) <= 1)
}

fn parse_count(text: &str, key: &str) -> Result<Option<usize>, String> {
    header(text, key)
        .map(|v| {
            v.parse()
                .map_err(|e| format!("bad '{key}:' header {v:?}: {e}"))
        })
        .transpose()
}

fn rule_list(text: &str, key: &str, known: &BTreeSet<String>) -> Result<Vec<String>, String> {
    let rules: Vec<String> = header(text, key)
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    for r in &rules {
        if !known.contains(r) {
            return Err(format!("'{key}:' names {r:?}, which is no rewrite"));
        }
    }
    Ok(rules)
}

impl Case {
    fn read(text: &str, known: &BTreeSet<String>) -> Result<Case, String> {
        let mut seen = BTreeSet::new();
        for line in text.lines() {
            let Some(key) = header_key(line) else {
                continue;
            };
            if KEYS.contains(&key) {
                if !seen.insert(key) {
                    return Err(format!("header key '{key}:' given twice"));
                }
            } else if misspelt(key) {
                return Err(format!("unknown header key '{key}:' (known: {KEYS:?})"));
            }
        }
        let dims: Dims = header_pairs(text, "dims");
        let mut cost_dims = dims.clone();
        cost_dims.extend(header_pairs::<i64>(text, "cost_dims"));
        Ok(Case {
            dims,
            cost_dims,
            memory_budget: match header(text, "memory_budget") {
                Some(v) => Some(
                    v.trim()
                        .parse()
                        .map_err(|_| format!("'memory_budget: {v}' is not a byte count"))?,
                ),
                None => None,
            },
            scales: header_pairs(text, "scale"),
            scans_before: parse_count(text, "scans_before")?,
            scans_after: parse_count(text, "scans_after")?
                .ok_or("no '; scans_after:' header (required)")?,
            parts_after: {
                let parts: BTreeMap<String, usize> = header_pairs(text, "parts_after");
                if let Some(k) = parts.keys().find(|k| !PARTS.contains(&k.as_str())) {
                    return Err(format!("'parts_after:' counts {k:?} (known: {PARTS:?})"));
                }
                parts
            },
            fires: rule_list(text, "fires", known)?,
            not_fires: rule_list(text, "not_fires", known)?,
            known_bug: header(text, "known_bug").map(str::to_string),
        })
    }
}

/// The saturation limits: the defaults, except for the time limit, raised
/// so that a run stops on the iteration or node limit whatever the
/// machine's load (a run cut by time would make the result depend on it;
/// such a run fails the case).
fn limits() -> Limits {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    let mut l = Limits {
        time_limit: Duration::from_secs(TIME_LIMIT_SECS),
        ..Limits::default()
    };
    if let Some(v) = env("EQSCAN_ITER_LIMIT") {
        l.iter_limit = v as usize;
    }
    if let Some(v) = env("EQSCAN_NODE_LIMIT") {
        l.node_limit = v as usize;
    }
    if let Some(v) = env("EQSCAN_TIME_LIMIT") {
        l.time_limit = Duration::from_secs_f64(v);
    }
    l
}

fn optimized(p: &Program, case: &Case) -> Result<Report, String> {
    let mut rewrites = default_rewrites().map_err(|e| format!("{} rule errors", e.len()))?;
    let mut model = CostModel::with_dims(case.cost_dims.clone());
    if let Some(budget) = case.memory_budget {
        rewrites.extend(memory_rewrites(&case.cost_dims, budget));
        model.memory_budget = Some(budget as f64);
    }
    optimize(p, &rewrites, &limits(), &model).map_err(|e| e.to_string())
}

fn run(p: &Program, case: &Case, what: &str) -> Result<Vec<eqscan::exec::Value>, String> {
    let inputs = generate_inputs(p, &case.dims, &case.scales)
        .map_err(|e| format!("{what}: generate_inputs: {e}"))?;
    run_program(p, inputs, &case.dims).map_err(|e| format!("{what}: run: {e}"))
}

/// The applications of the Scan rewrites, for messages.
fn applied(r: &Report) -> String {
    let v: Vec<String> = r
        .rules_applied
        .iter()
        .filter(|(k, n)| k.starts_with("scan-") && **n > 0)
        .map(|(k, n)| format!("{k}×{n}"))
        .collect();
    format!(
        "scan rules applied: [{}]; refused: {:?}; stop: {}",
        v.join(" "),
        r.rules_refused,
        r.stop_reason
    )
}

fn run_case(path: &Path, known: &BTreeSet<String>) -> Result<(), Failed> {
    let file = rel(path);
    let name = stem(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
    let case = Case::read(&text, known).map_err(|e| format!("{file}: {e}"))?;
    let program = parse_program(&text).map_err(|e| e.located(&file))?;
    if let Some(n) = case.scans_before {
        let got = program.count_scans();
        if got != n {
            return Err(format!("{file}: {got} scans as written, header says {n}").into());
        }
    }

    let report = optimized(&program, &case).map_err(|e| format!("{file}: optimize: {e}"))?;
    let text_after = print_program(&report.program);
    let mut errors = Vec::new();
    if report.stop_reason == "time_limit" {
        errors.push(format!(
            "saturation stopped on the time limit ({TIME_LIMIT_SECS} s): the result depends on the machine"
        ));
    }
    if report.cost_after > report.cost_before {
        errors.push(format!(
            "cost went up: {} -> {}",
            report.cost_before, report.cost_after
        ));
    }
    if report.scans_after != case.scans_after {
        errors.push(format!(
            "{} scans after optimizing, expected {}",
            report.scans_after, case.scans_after
        ));
    }
    if !case.parts_after.is_empty() {
        let mut parts = BTreeMap::new();
        loop_parts(&report.program.graph, &mut parts);
        for (k, want) in &case.parts_after {
            let got = parts.get(k).copied().unwrap_or(0);
            if got != *want {
                errors.push(format!("{got} {k} after optimizing, expected {want}"));
            }
        }
    }
    for r in &case.fires {
        if report.rules_applied.get(r).copied().unwrap_or(0) == 0 {
            errors.push(format!("{r} did not fire"));
        }
    }
    for r in &case.not_fires {
        if let Some(&n) = report.rules_applied.get(r).filter(|n| **n > 0) {
            errors.push(format!("{r} fired {n} times"));
        }
    }

    let again = optimized(&program, &case).map_err(|e| format!("{file}: optimize again: {e}"))?;
    let text_again = print_program(&again.program);
    if text_again != text_after {
        errors.push(format!(
            "optimizing twice printed different programs (stop: {} / {}):\n{text_after}\n---\n{text_again}",
            report.stop_reason, again.stop_reason
        ));
    }

    let want = run(&program, &case, "original")?;
    match run(&report.program, &case, "optimized") {
        Err(e) => errors.push(e),
        Ok(got) if got.len() != want.len() => errors.push(format!(
            "{} outputs after optimizing, {} before",
            got.len(),
            want.len()
        )),
        Ok(got) => {
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                if let Err(msg) = compare(g, w, RTOL, ATOL) {
                    errors.push(format!("output {k}: {msg}"));
                }
            }
        }
    }

    if !errors.is_empty() {
        let bug = case
            .known_bug
            .map(|b| format!(" (known bug: {b})"))
            .unwrap_or_default();
        return Err(format!(
            "{file}{bug}:\n{}\n{}\noptimized program:\n{text_after}",
            errors.join("\n"),
            applied(&report)
        )
        .into());
    }
    let snapshot = optimized_snapshot(&report, &text_after);
    insta::assert_snapshot!(name, snapshot);
    Ok(())
}

fn main() {
    let known: BTreeSet<String> = default_rewrites()
        .expect("the shipped rules load")
        .iter()
        .chain(memory_rewrites(&Dims::new(), 0).iter())
        .map(|r| r.name.to_string())
        .collect();
    let mut trials = Vec::new();
    for path in case_files("tests/cases/scan_rules") {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let ignored = header(&text, "known_bug").is_some();
        let known = known.clone();
        let name = stem(&path);
        trials.push(Trial::test(name, move || run_case(&path, &known)).with_ignored_flag(ignored));
    }
    harness::run(trials);
}
