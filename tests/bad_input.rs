//! Bad input must be rejected cleanly: exit status 1, exactly one line on
//! stderr (`FILE:LINE:COL: message` where there is a location), never a
//! panic. The message of each case is an insta snapshot
//! (`tests/snapshots/bad_input__NAME.snap`).
//!
//! Cases are the files `tests/cases/fail/NAME.sexp`; the header comment
//! `; args: run --no-opt --gen --dim T=3` gives the command line, with the
//! program's path inserted after the subcommand; `; known_bug: TEXT` marks
//! a case whose fix is not in yet (ignored until the line is removed).
//! The binary runs in the
//! repository root, so paths in args and messages are relative to it.
//! A few cases are generated here instead (an empty file, a non-UTF-8 file,
//! a 200,000-deep expression, a missing program file) and run in a temporary
//! directory; usage errors must exit with 2.
//!
//! Update the snapshots with `INSTA_UPDATE=always cargo test --test bad_input`
//! (or `cargo insta test --review`), then read every one.

mod common;

use common::harness::{self, case_files};
use common::{header, rel, root, stem};
use eqscan::exec::ops::product_kernel::{self, PackedWidth, ProductKernel};
use libtest_mimic::{Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn eqscan(args: &[String], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eqscan"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("start eqscan")
}

/// Checks exit status 1, one line on stderr, no panic; returns the line.
fn user_error(out: &Output, what: &str) -> Result<String, Failed> {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        return Err(format!("{what}: eqscan panicked:\n{stderr}").into());
    }
    if out.status.code() != Some(1) {
        return Err(format!(
            "{what}: expected exit status 1, got {} with stderr:\n{stderr}\nstdout:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout)
        )
        .into());
    }
    let line = stderr.strip_suffix('\n').unwrap_or(&stderr);
    if line.trim().is_empty() || line.contains('\n') {
        return Err(format!("{what}: expected exactly one line on stderr, got:\n{stderr}").into());
    }
    Ok(line.to_string())
}

fn file_case(path: &Path) -> Result<(), Failed> {
    let name = stem(path);
    let file = rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
    let args = header(&text, "args").ok_or(format!("{file}: no '; args:' header"))?;
    let mut words = args.split_whitespace().map(str::to_string);
    let mut argv = vec![words.next().ok_or("empty args")?, file.clone()];
    argv.extend(words);
    let out = eqscan(&argv, &root());
    let line = user_error(&out, &format!("eqscan {}", argv.join(" ")))?;
    insta::assert_snapshot!(name, line);
    Ok(())
}

fn tmp_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("bad_input")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `bytes` to `NAME.sexp` in a fresh directory and runs
/// `eqscan ARGS[0] NAME.sexp ARGS[1..]` there.
fn generated(name: &str, bytes: &[u8], args: &[&str]) -> Output {
    let dir = tmp_dir(name);
    let file = format!("{name}.sexp");
    std::fs::write(dir.join(&file), bytes).unwrap();
    let mut argv = vec![args[0].to_string(), file];
    argv.extend(args[1..].iter().map(|s| s.to_string()));
    eqscan(&argv, &dir)
}

fn generated_case(name: &'static str, bytes: Vec<u8>, args: &'static [&'static str]) -> Trial {
    Trial::test(format!("generated::{name}"), move || {
        let out = generated(name, &bytes, args);
        let line = user_error(&out, name)?;
        insta::assert_snapshot!(name, line);
        Ok(())
    })
}

fn deep_program(depth: usize) -> Vec<u8> {
    let mut s = String::with_capacity(depth * 6 + 100);
    s.push_str("(program deep\n  (input X (f64 3))\n  (output ");
    for _ in 0..depth {
        s.push_str("(neg ");
    }
    s.push('X');
    for _ in 0..depth {
        s.push(')');
    }
    s.push_str("))\n");
    s.into_bytes()
}

/// A 200,000-deep expression: a clean error (exit 1) or success (exit 0),
/// never a crash (a stack overflow aborts with a signal).
fn deep_case(args: &'static [&'static str]) -> Trial {
    let name = format!("generated::deep_nesting_{}", args[0]);
    Trial::test(name, move || {
        let out = generated(
            &format!("deep_nesting_{}", args[0]),
            &deep_program(200_000),
            args,
        );
        match out.status.code() {
            Some(0) => Ok(()),
            Some(1) => {
                let line = user_error(&out, "deep nesting")?;
                insta::assert_snapshot!(format!("deep_nesting_{}", args[0]), line);
                Ok(())
            }
            _ => Err(format!(
                "deep nesting: {} (stderr: {})",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
            .into()),
        }
    })
}

fn usage_case(name: &'static str, args: &'static [&'static str]) -> Trial {
    Trial::test(format!("usage::{name}"), move || {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let out = eqscan(&argv, &root());
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("panicked") {
            return Err(format!("eqscan panicked:\n{stderr}").into());
        }
        if out.status.code() != Some(2) {
            return Err(format!("expected exit status 2, got {}:\n{stderr}", out.status).into());
        }
        Ok(())
    })
}

/// Like [`usage_case`], and stderr must contain `want`.
fn usage_case_owned(name: &'static str, argv: Vec<String>, want: &'static str) -> Trial {
    Trial::test(format!("usage::{name}"), move || {
        let out = eqscan(&argv, &root());
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("panicked") {
            return Err(format!("eqscan panicked:\n{stderr}").into());
        }
        if out.status.code() != Some(2) || !stderr.contains(want) {
            return Err(format!(
                "expected exit status 2 and '{want}', got {}:\n{stderr}",
                out.status
            )
            .into());
        }
        Ok(())
    })
}

/// A rule whose left side nests `depth` negations.
fn deep_rule(depth: usize) -> String {
    format!(
        "deep: {}?x{} => ?x\n",
        "(neg ".repeat(depth),
        ")".repeat(depth)
    )
}

/// Writes `text` to `NAME.rules` and runs `eqscan rules check NAME.rules`:
/// exit 1, one located line, within a second or two.
fn rules_case(name: &'static str, text: String) -> Trial {
    Trial::test(format!("generated::{name}"), move || {
        let dir = tmp_dir(name);
        let file = format!("{name}.rules");
        std::fs::write(dir.join(&file), &text).unwrap();
        let t0 = std::time::Instant::now();
        let out = eqscan(&["rules".into(), "check".into(), file], &dir);
        let line = user_error(&out, name)?;
        if t0.elapsed() > std::time::Duration::from_secs(5) {
            return Err(format!("{name}: took {:?}", t0.elapsed()).into());
        }
        insta::assert_snapshot!(name, line);
        Ok(())
    })
}

fn main() {
    let mut trials: Vec<Trial> = Vec::new();
    for path in case_files("tests/cases/fail") {
        let name = format!("fail::{}", stem(&path));
        // A `; known_bug:` header marks a bug not fixed yet: the case is
        // ignored (run it with `-- --ignored`; remove the line once it passes).
        let known_bug =
            std::fs::read_to_string(&path).is_ok_and(|t| header(&t, "known_bug").is_some());
        trials.push(Trial::test(name, move || file_case(&path)).with_ignored_flag(known_bug));
    }

    // A thread budget that is not a positive number, a product kernel
    // that does not exist or that this machine cannot run: usage errors.
    let mut settings: Vec<(&str, &str, &str, String)> = ["many", "0"]
        .into_iter()
        .zip(["threads_word", "threads_zero"])
        .map(|(value, name)| {
            (
                name,
                "EQSCAN_NUM_THREADS",
                value,
                format!(
                    "EQSCAN_NUM_THREADS must be a whole number of threads, 1 or more, not '{value}'"
                ),
            )
        })
        .collect();
    settings.push((
        "kernel_word",
        "EQSCAN_PRODUCT_KERNEL",
        "fastest",
        "EQSCAN_PRODUCT_KERNEL must be 'packed', 'portable' or 'auto', not 'fastest'".into(),
    ));
    settings.push((
        "width_word",
        "EQSCAN_PACKED_WIDTH",
        "avx1024",
        "EQSCAN_PACKED_WIDTH must be 'avx2', 'avx512' or 'auto', not 'avx1024'".into(),
    ));
    if product_kernel::machine_width() == PackedWidth::Avx2 {
        settings.push((
            "width_missing",
            "EQSCAN_PACKED_WIDTH",
            "avx512",
            "EQSCAN_PACKED_WIDTH=avx512 needs an x86-64 processor with AVX-512F".into(),
        ));
    }
    if product_kernel::machine() == ProductKernel::Portable {
        settings.push((
            "kernel_missing",
            "EQSCAN_PRODUCT_KERNEL",
            "packed",
            "EQSCAN_PRODUCT_KERNEL=packed needs an x86-64 processor with AVX2 and FMA".into(),
        ));
    }
    for (name, var, value, want) in settings {
        trials.push(Trial::test(format!("usage::{name}"), move || {
            let out = Command::new(env!("CARGO_BIN_EXE_eqscan"))
                .args(["run", "--gen", "examples/rnn.sexp"])
                .env(var, value)
                .current_dir(root())
                .output()
                .expect("start eqscan");
            let stderr = String::from_utf8_lossy(&out.stderr);
            if out.status.code() != Some(2)
                || !stderr.contains(&want)
                || stderr.lines().count() != 1
            {
                return Err(format!(
                    "expected exit 2 and '{want}', got {}:\n{stderr}",
                    out.status
                )
                .into());
            }
            Ok(())
        }));
    }
    // Both kernels by name (and `auto`) run the program.
    for value in ["portable", "auto"] {
        trials.push(Trial::test(
            format!("usage::kernel_{value}_runs"),
            move || {
                let out = Command::new(env!("CARGO_BIN_EXE_eqscan"))
                    .args(["run", "--gen", "--dim", "T=20", "examples/rnn.sexp"])
                    .env("EQSCAN_PRODUCT_KERNEL", value)
                    .current_dir(root())
                    .output()
                    .expect("start eqscan");
                if !out.status.success() {
                    return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
                }
                Ok(())
            },
        ));
    }
    trials.push(generated_case("empty_file", Vec::new(), &["fmt"]));
    trials.push(generated_case(
        "empty_file_run",
        Vec::new(),
        &["run", "--no-opt", "--gen"],
    ));
    trials.push(generated_case(
        "whitespace_only",
        b"\n   \n\t\n".to_vec(),
        &["fmt"],
    ));
    // An invalid byte (0xff) on line 3, column 16.
    trials.push(generated_case(
        "non_utf8",
        b"(program p\n  (input X (f64 3))\n  (output (neg X\xff)))\n".to_vec(),
        &["fmt"],
    ));
    // Latin-1 text in a comment is not UTF-8 either (line 1, column 9).
    trials.push(generated_case(
        "non_utf8_comment",
        b"; caf\xe9 au lait\n(program p\n  (input X (f64 3))\n  (output X))\n".to_vec(),
        &["fmt"],
    ));
    trials.push(Trial::test("generated::missing_program", || {
        let dir = tmp_dir("missing_program");
        let argv = vec!["run".to_string(), "no_such_file.sexp".to_string()];
        let line = user_error(&eqscan(&argv, &dir), "missing program")?;
        insta::assert_snapshot!("missing_program", line);
        Ok(())
    }));
    trials.push(Trial::test("generated::program_is_a_directory", || {
        let dir = tmp_dir("program_is_a_directory");
        std::fs::create_dir_all(dir.join("dir.sexp")).unwrap();
        let argv = vec!["fmt".to_string(), "dir.sexp".to_string()];
        let line = user_error(&eqscan(&argv, &dir), "directory")?;
        insta::assert_snapshot!("program_is_a_directory", line);
        Ok(())
    }));
    trials.push(deep_case(&["fmt"]));
    trials.push(deep_case(&["run", "--no-opt", "--gen"]));

    // Control characters other than whitespace, outside comments.
    trials.push(generated_case(
        "nul_byte",
        b"(program p\n  (input X (f64 3))\n  (output (neg\0 X)))\n".to_vec(),
        &["fmt"],
    ));
    trials.push(generated_case(
        "escape_between_tokens",
        b"(program p\n  (input X (f64 3))\n  \x1b(output X))\n".to_vec(),
        &["run", "--no-opt", "--gen"],
    ));
    // ... but inside a comment they are text.
    trials.push(Trial::test("generated::control_in_comment_is_fine", || {
        let out = generated(
            "control_in_comment",
            b"; a \0 and a \x1b\n(program p\n  (input X (f64 3))\n  (output X))\n",
            &["fmt"],
        );
        match out.status.code() {
            Some(0) => Ok(()),
            _ => Err(format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr)).into()),
        }
    }));
    trials.push(rules_case("rule_nested_3000_deep", deep_rule(3000)));
    trials.push(rules_case(
        "rule_control_character",
        "neg-neg: (neg (neg ?x)) =>\x07 ?x\n".to_string(),
    ));

    trials.push(usage_case("no_subcommand", &[]));
    trials.push(usage_case("unknown_subcommand", &["frobnicate"]));
    trials.push(usage_case("run_without_program", &["run"]));
    trials.push(usage_case(
        "unknown_flag",
        &["run", "benches/programs/map.sexp", "--no-such-flag"],
    ));

    // Time limits: finite positive numbers only.
    for (name, flag, value) in [
        ("time_limit_inf", "--time-limit", "inf"),
        ("time_limit_nan", "--time-limit", "nan"),
        ("time_limit_zero", "--time-limit", "0"),
        ("time_limit_negative", "--time-limit", "-1"),
        ("ilp_time_limit_inf", "--ilp-time-limit", "inf"),
        ("ilp_time_limit_nan", "--ilp-time-limit", "nan"),
    ] {
        trials.push(usage_case_owned(
            name,
            vec![
                "optimize".into(),
                "benches/programs/map.sexp".into(),
                format!("{flag}={value}"),
            ],
            "is not a finite positive number of seconds",
        ));
    }
    let run_map = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["run", "benches/programs/map.sexp", "--gen", "--no-opt"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    trials.push(usage_case_owned(
        "dim_twice_different",
        run_map(&["--dim", "T=3", "--dim", "T=4"]),
        "--dim T is given twice with different values (3 and 4)",
    ));
    trials.push(usage_case_owned(
        "dim_beyond_i64",
        run_map(&["--dim", "T=18446744073709551615"]),
        "size 18446744073709551615 is larger than the largest size, 9223372036854775807",
    ));
    trials.push(usage_case_owned(
        "max_memory_zero",
        run_map(&["--max-memory", "0"]),
        "the memory budget must be above 0 bytes",
    ));
    trials.push(usage_case_owned(
        "max_memory_bad_suffix",
        run_map(&["--max-memory", "4Q"]),
        "'4Q' is not a byte count",
    ));

    harness::run(trials);
}
