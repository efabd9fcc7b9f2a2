//! The libtest-mimic side of the data-driven harnesses (`harness = false`
//! in Cargo.toml): one trial per case file, named after the case, so that
//! `cargo test --release --test NAME CASE` runs one case and a failure
//! names its file. Plain test functions (which panic on failure) of the
//! same binary become trials too, named after the function.
//!
//! Must not: know what a case checks; that is the harness's own code.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The `.sexp` files directly in `dir` (relative to the repository root),
/// sorted. Panics when there are none: a harness over an empty or missing
/// folder would pass while testing nothing.
pub fn case_files(dir: &str) -> Vec<PathBuf> {
    let files = super::sexp_files(dir);
    assert!(!files.is_empty(), "no .sexp files under {dir}");
    files
}

/// The trial name of a case file: `GROUP::STEM`, or `STEM` when `group`
/// is empty.
pub fn case_name(group: &str, path: &Path) -> String {
    let stem = super::stem(path);
    if group.is_empty() {
        stem
    } else {
        format!("{group}::{stem}")
    }
}

/// One trial per `.sexp` file of `dir` (which must have some), named
/// [`case_name`]`(group, file)`, each running `check` on the file's path.
pub fn file_trials<F>(dir: &str, group: &str, check: F) -> Vec<Trial>
where
    F: Fn(&Path) -> Result<(), Failed> + Send + Sync + 'static,
{
    let check = Arc::new(check);
    case_files(dir)
        .into_iter()
        .map(|path| {
            let check = check.clone();
            Trial::test(case_name(group, &path), move || check(&path))
        })
        .collect()
}

/// Runs the trials with the command line's arguments (filters, `--exact`,
/// `--ignored`, `--list`, ...) and exits with libtest's status.
pub fn run(trials: Vec<Trial>) -> ! {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, trials).exit()
}

/// Trials for plain test functions (`fn name()`, panicking on failure),
/// each named after its function: `plain_trials![a, b]`.
#[allow(unused_macros)]
macro_rules! plain_trials {
    ($($f:ident),* $(,)?) => {
        vec![$(libtest_mimic::Trial::test(stringify!($f), || {
            $f();
            Ok(())
        })),*]
    };
}
#[allow(unused_imports)]
pub(crate) use plain_trials;
