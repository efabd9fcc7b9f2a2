//! Options and argument parsers shared by several commands: the
//! optimizer's options ([`OptArgs`]), `NAME=VALUE` pairs, seconds, byte
//! counts.

use eqscan::egraph::runner::Limits;
use eqscan::exec::run::Dims;
use eqscan::extract::{Extractor, IlpLimits};
use eqscan::session::OptimizerSettings;
use std::path::PathBuf;
use std::time::Duration;

/// Options of the optimizer, shared by `optimize`, `run`, `explain`,
/// `dot --egraph`.
#[derive(clap::Args, Clone)]
pub struct OptArgs {
    /// Rule files or folders (default: the rule sets built into eqscan,
    /// the same as the repository's rules/ folder).
    #[arg(long = "rules", value_name = "PATH")]
    rules: Vec<PathBuf>,
    /// Saturate with the rule files only, without the Scan rewrites.
    #[arg(long)]
    no_scan_rules: bool,
    /// Stop saturating after N iterations.
    #[arg(long, value_name = "N", default_value_t = Limits::default().iter_limit)]
    iter_limit: usize,
    /// Stop saturating once the e-graph has N nodes.
    #[arg(long, value_name = "N", default_value_t = Limits::default().node_limit)]
    node_limit: usize,
    /// Stop saturating once the optimized program's cost has not improved
    /// for N iterations in a row (0: never).
    #[arg(long, value_name = "N",
          default_value_t = Limits::default().plateau_iters.unwrap_or(0))]
    plateau_iters: usize,
    /// Saturate again, at most N times, from the extracted program when
    /// the e-graph holds many variants of each loop (0: never).
    #[arg(long, value_name = "N", default_value_t = Limits::default().restarts)]
    restarts: usize,
    /// Stop saturating after SECS seconds (a finite positive number).
    #[arg(long, value_name = "SECS", value_parser = positive_seconds,
          default_value_t = Limits::default().time_limit.as_secs_f64())]
    pub time_limit: f64,
    /// How the optimized term is extracted: greedy DAG-aware, tree, or
    /// exact ILP (greedy when the ILP refuses the e-graph or times out).
    #[arg(long, value_enum, default_value_t = ExtractorArg::Greedy)]
    extractor: ExtractorArg,
    /// Stop the ILP solver after SECS seconds (with --extractor ilp; a
    /// finite positive number).
    #[arg(long, value_name = "SECS", value_parser = positive_seconds,
          default_value_t = IlpLimits::default().time_limit.as_secs_f64())]
    ilp_time_limit: f64,
    /// Prefer forms whose arrays fit in BYTES (plain bytes or a suffix K,
    /// M, G, T, powers of 1024): the cost model penalizes any allocation
    /// larger, and a backward loop may recompute a forward trace from
    /// checkpoints instead of storing it (scan-checkpoint).
    #[arg(long, value_name = "BYTES", value_parser = byte_count)]
    memory_budget: Option<u64>,
}

/// The values of `--extractor`.
#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq)]
enum ExtractorArg {
    Greedy,
    Tree,
    Ilp,
}

impl OptArgs {
    /// The extractor asked for.
    fn extractor(&self) -> Extractor {
        match self.extractor {
            ExtractorArg::Greedy => Extractor::Greedy,
            ExtractorArg::Tree => Extractor::Tree,
            ExtractorArg::Ilp => Extractor::Ilp(IlpLimits {
                time_limit: seconds(self.ilp_time_limit),
                ..IlpLimits::default()
            }),
        }
    }

    /// The saturation limits asked for.
    fn limits(&self) -> Limits {
        Limits {
            iter_limit: self.iter_limit,
            node_limit: self.node_limit,
            time_limit: seconds(self.time_limit),
            plateau_iters: (self.plateau_iters > 0).then_some(self.plateau_iters),
            restarts: self.restarts,
        }
    }

    /// The optimizer these options ask for.
    pub fn settings(&self) -> OptimizerSettings {
        OptimizerSettings {
            rules: self.rules.clone(),
            scan_rules: !self.no_scan_rules,
            limits: self.limits(),
            extractor: self.extractor(),
            memory_budget: self.memory_budget,
        }
    }
}

/// A duration of `s` seconds (checked finite and positive by
/// [`positive_seconds`]; unbounded if it does not fit a duration).
pub fn seconds(s: f64) -> Duration {
    Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX)
}

/// The longest time limit accepted: a year.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// A time limit in seconds: a finite number above 0 (and at most a year).
fn positive_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number of seconds"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("'{s}' is not a finite positive number of seconds"));
    }
    if v > MAX_SECONDS {
        return Err(format!("'{s}' seconds is more than a year"));
    }
    Ok(v)
}

/// A byte count: digits, optionally followed by K, M, G or T (powers of
/// 1024, with an optional `B` or `iB`), above 0.
pub fn byte_count(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, suffix) = t.split_at(digits);
    let bad = || format!("'{s}' is not a byte count (such as 1000000, 512M or 4G)");
    let n: u64 = num.parse().map_err(|_| bad())?;
    let unit: u32 = match suffix.to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 1,
        "M" | "MB" | "MIB" => 2,
        "G" | "GB" | "GIB" => 3,
        "T" | "TB" | "TIB" => 4,
        _ => return Err(bad()),
    };
    let bytes = 1024u64
        .checked_pow(unit)
        .and_then(|m| n.checked_mul(m))
        .ok_or_else(|| format!("'{s}' is more bytes than fit in 64 bits"))?;
    if bytes == 0 {
        return Err(format!("'{s}': the memory budget must be above 0 bytes"));
    }
    Ok(bytes)
}

fn split_eq(s: &str) -> Result<(&str, &str), String> {
    match s.split_once('=') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a, b)),
        _ => Err(format!("expected NAME=VALUE, got '{s}'")),
    }
}

/// `NAME=PATH`.
pub fn name_path(s: &str) -> Result<(String, PathBuf), String> {
    let (a, b) = split_eq(s)?;
    Ok((a.to_string(), PathBuf::from(b)))
}

/// `NAME=SPEC` with SPEC the lengths of a list (checked against the
/// list's depth when the program is known).
pub fn name_text(s: &str) -> Result<(String, String), String> {
    let (a, b) = split_eq(s)?;
    Ok((a.to_string(), b.to_string()))
}

/// `NAME=X` with X a number.
pub fn name_f64(s: &str) -> Result<(String, f64), String> {
    let (a, b) = split_eq(s)?;
    let v: f64 = b.parse().map_err(|_| format!("'{b}' is not a number"))?;
    Ok((a.to_string(), v))
}

/// `NAME=N` with N a size: an integer from 0 to `i64::MAX`.
pub fn name_size(s: &str) -> Result<(String, i64), String> {
    let (a, b) = split_eq(s)?;
    let v: u64 = b
        .parse()
        .map_err(|_| format!("'{b}' is not a non-negative integer"))?;
    let v = i64::try_from(v)
        .map_err(|_| format!("size {v} is larger than the largest size, {}", i64::MAX))?;
    Ok((a.to_string(), v))
}

/// The `--dim` pairs as sizes by name; a name given twice with different
/// values is a usage error (exit status 2), the same value twice is fine.
pub fn dims_or_exit(dims: &[(String, i64)]) -> Dims {
    let mut out = Dims::new();
    for (name, v) in dims {
        match out.insert(name.clone(), *v) {
            Some(prev) if prev != *v => {
                use clap::CommandFactory;
                crate::Cli::command()
                    .error(
                        clap::error::ErrorKind::ArgumentConflict,
                        format!(
                            "--dim {name} is given twice with different values ({prev} and {v})"
                        ),
                    )
                    .exit();
            }
            _ => {}
        }
    }
    out
}
