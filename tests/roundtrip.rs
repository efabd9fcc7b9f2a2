//! Round trip of the printer: for every program in `examples/`,
//! `benches/programs/`, `benches/programs/held/`, `tests/cases/ops/` and
//! `tests/cases/scan/`,
//! parse → print → parse gives an equal program, and printing is a fixed
//! point (print(parse(print(p))) == print(p)). The printed forms of the
//! bench programs and the examples are insta snapshots
//! (`tests/snapshots/roundtrip__bench__NAME.snap`, `..__example__NAME.snap`,
//! `..__held__NAME.snap`), and `eqscan fmt` prints them. One trial per
//! program, named `bench::NAME`, `held::NAME`, `example::NAME`, `ops::NAME`
//! or `scan::NAME`.

mod common;

use common::harness::{self, file_trials, plain_trials};
use common::{rel, root, stem};
use eqscan::lang::{parse_program, print_program};
use std::path::Path;

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

/// `eqscan fmt` prints what the printer writes (up to a final newline).
fn fmt_command_prints_canonical_form(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let p = parse_program(&text).unwrap_or_else(|e| panic!("{}", e.located(&rel(path))));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_eqscan"))
        .arg("fmt")
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "eqscan fmt {}: {}",
        rel(path),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout.trim_end_matches('\n'),
        print_program(&p).trim_end_matches('\n'),
        "eqscan fmt {}",
        rel(path)
    );
}

/// The examples the README shows are in `examples/`, so this harness,
/// `tests/optimized.rs` and `tests/plan.rs` check them (a harness over an
/// emptied folder would have nothing to check).
fn examples_folder_has_the_documented_examples() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for name in ["rnn", "combinators", "taps"] {
        assert!(
            readme.contains(&format!("{name}.sexp")),
            "README.md no longer names {name}.sexp: update this list"
        );
        let path = root().join("examples").join(format!("{name}.sexp"));
        assert!(path.is_file(), "{} is missing", rel(&path));
    }
}

fn main() {
    let mut trials = plain_trials![examples_folder_has_the_documented_examples];
    // The bench programs (held ones too) and the examples: the round trip, the printed
    // form's snapshot, and `eqscan fmt`.
    for (dir, prefix) in [
        ("benches/programs", "bench"),
        ("benches/programs/held", "held"),
        ("examples", "example"),
    ] {
        trials.extend(file_trials(dir, prefix, move |path| {
            let printed = round_trip(path)?;
            insta::assert_snapshot!(format!("{prefix}__{}", stem(path)), printed);
            fmt_command_prints_canonical_form(path);
            Ok(())
        }));
    }
    // The NumPy cases: the round trip.
    for (dir, group) in [("tests/cases/ops", "ops"), ("tests/cases/scan", "scan")] {
        trials.extend(file_trials(dir, group, |path| {
            Ok(round_trip(path).map(|_| ())?)
        }));
    }
    harness::run(trials);
}
