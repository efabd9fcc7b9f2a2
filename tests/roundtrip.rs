//! Round trip of the printer: for every program in `examples/`,
//! `benches/programs/`, `tests/cases/ops/` and `tests/cases/scan/`,
//! parse → print → parse gives an equal program, and printing is a fixed
//! point (print(parse(print(p))) == print(p)). The printed forms of the
//! bench programs and the examples are insta snapshots
//! (`tests/snapshots/roundtrip__bench__NAME.snap`, `..__example__NAME.snap`).

mod common;

use common::{rel, sexp_files, stem};
use eqscan::lang::{parse_program, print_program};
use std::path::Path;

const DIRS: &[&str] = &[
    "examples",
    "benches/programs",
    "tests/cases/ops",
    "tests/cases/scan",
];

fn round_trip(path: &Path) -> Result<String, String> {
    let file = rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
    let p1 = parse_program(&text).map_err(|e| e.located(&file))?;
    let printed = print_program(&p1);
    let p2 = parse_program(&printed).map_err(|e| {
        format!(
            "{}\nprinted text:\n{printed}",
            e.located(&format!("print({file})"))
        )
    })?;
    if p1 != p2 {
        return Err(format!(
            "{file}: parse(print(p)) != p\nprinted text:\n{printed}\nfirst: {p1:#?}\nafter: {p2:#?}"
        ));
    }
    let printed2 = print_program(&p2);
    if printed2 != printed {
        return Err(format!(
            "{file}: printing is not a fixed point\nfirst:\n{printed}\nsecond:\n{printed2}"
        ));
    }
    Ok(printed)
}

#[test]
fn parse_print_parse() {
    let mut n = 0;
    let mut failures = Vec::new();
    for dir in DIRS {
        for path in sexp_files(dir) {
            n += 1;
            if let Err(e) = round_trip(&path) {
                failures.push(e);
            }
        }
    }
    assert!(n > 0, "no programs found");
    assert!(
        failures.is_empty(),
        "{} of {n} programs fail the round trip:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn snapshots(dir: &str, prefix: &str) {
    for path in sexp_files(dir) {
        let printed = round_trip(&path).unwrap_or_else(|e| panic!("{e}"));
        insta::assert_snapshot!(format!("{prefix}__{}", stem(&path)), printed);
    }
}

#[test]
fn printed_bench_programs() {
    assert!(!sexp_files("benches/programs").is_empty());
    snapshots("benches/programs", "bench");
}

#[test]
fn printed_examples() {
    snapshots("examples", "example");
}

/// `eqscan fmt` prints what the printer writes (up to a final newline).
#[test]
fn fmt_command_prints_canonical_form() {
    for dir in ["examples", "benches/programs"] {
        for path in sexp_files(dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            let p = parse_program(&text).unwrap_or_else(|e| panic!("{}", e.located(&rel(&path))));
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_eqscan"))
                .arg("fmt")
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "eqscan fmt {}: {}",
                rel(&path),
                String::from_utf8_lossy(&out.stderr)
            );
            let stdout = String::from_utf8(out.stdout).unwrap();
            assert_eq!(
                stdout.trim_end_matches('\n'),
                print_program(&p).trim_end_matches('\n'),
                "eqscan fmt {}",
                rel(&path)
            );
        }
    }
}
