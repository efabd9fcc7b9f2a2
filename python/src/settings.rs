//! The optimizer's keyword flags (`Program.optimize(**flags)`,
//! `Program.compile(**flags)`): the options of `eqscan optimize`, under
//! the same names with `_` for `-`.

use eqscan::egraph::runner::Limits;
use eqscan::exec::run::Dims;
use eqscan::extract::{Extractor, IlpLimits};
use eqscan::session::OptimizerSettings;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::time::Duration;

/// The flags `optimize` accepts, in the order its error message lists them.
pub const OPTIMIZE_FLAGS: [&str; 12] = [
    "rules",
    "scan_rules",
    "no_scan_rules",
    "iter_limit",
    "node_limit",
    "plateau_iters",
    "restarts",
    "time_limit",
    "extractor",
    "ilp_time_limit",
    "memory_budget",
    "dims",
];

/// What the flags ask for: the optimizer, and the values the cost model
/// gives symbolic sizes (`dims`, the command line's `--dim`).
pub struct Flags {
    pub settings: OptimizerSettings,
    pub dims: Dims,
}

/// Reads the optimizer's flags from `flags`; a flag not in
/// [`OPTIMIZE_FLAGS`] is a `TypeError`, a bad value a `ValueError`.
pub fn read_flags(flags: Option<&Bound<'_, PyDict>>) -> PyResult<Flags> {
    let mut settings = OptimizerSettings::default();
    let mut dims = Dims::new();
    let mut limits = Limits::default();
    let mut extractor = "greedy".to_string();
    let mut ilp = IlpLimits::default();
    let Some(flags) = flags else {
        return Ok(Flags { settings, dims });
    };
    for (key, value) in flags.iter() {
        let key: String = key.extract()?;
        match key.as_str() {
            "rules" => {
                settings.rules = if let Ok(one) = value.extract::<PathBuf>() {
                    vec![one]
                } else {
                    value.extract::<Vec<PathBuf>>().map_err(|_| {
                        PyTypeError::new_err("rules: expected a path or a list of paths")
                    })?
                }
            }
            "scan_rules" => settings.scan_rules = value.extract()?,
            "no_scan_rules" => settings.scan_rules = !value.extract::<bool>()?,
            "iter_limit" => limits.iter_limit = value.extract()?,
            "node_limit" => limits.node_limit = value.extract()?,
            "plateau_iters" => {
                let n: usize = value.extract()?;
                limits.plateau_iters = (n > 0).then_some(n);
            }
            "restarts" => limits.restarts = value.extract()?,
            "time_limit" => limits.time_limit = seconds("time_limit", value.extract()?)?,
            "extractor" => extractor = value.extract()?,
            "ilp_time_limit" => ilp.time_limit = seconds("ilp_time_limit", value.extract()?)?,
            "memory_budget" => {
                settings.memory_budget = if value.is_none() {
                    None
                } else if let Ok(n) = value.extract::<u64>() {
                    Some(n)
                } else {
                    let s: String = value.extract().map_err(|_| {
                        PyTypeError::new_err(
                            "memory_budget: expected bytes (an int) or a string such as '512M'",
                        )
                    })?;
                    Some(byte_count(&s).map_err(PyValueError::new_err)?)
                };
                if settings.memory_budget == Some(0) {
                    return Err(PyValueError::new_err(
                        "memory_budget: the memory budget must be above 0 bytes",
                    ));
                }
            }
            "dims" => {
                if !value.is_none() {
                    dims = value.extract()?;
                }
            }
            other => {
                return Err(PyTypeError::new_err(format!(
                    "unknown optimizer flag '{other}' (flags: {})",
                    OPTIMIZE_FLAGS.join(", ")
                )))
            }
        }
    }
    settings.limits = limits;
    settings.extractor = match extractor.as_str() {
        "greedy" => Extractor::Greedy,
        "tree" => Extractor::Tree,
        "ilp" => Extractor::Ilp(ilp),
        other => {
            return Err(PyValueError::new_err(format!(
                "extractor: '{other}' is not one of 'greedy', 'tree', 'ilp'"
            )))
        }
    };
    Ok(Flags { settings, dims })
}

/// A time limit: a finite number of seconds above 0 (at most a year).
fn seconds(flag: &str, s: f64) -> PyResult<Duration> {
    if !s.is_finite() || s <= 0.0 || s > 365.0 * 24.0 * 3600.0 {
        return Err(PyValueError::new_err(format!(
            "{flag}: {s} is not a finite positive number of seconds (at most a year)"
        )));
    }
    Ok(Duration::from_secs_f64(s))
}

/// A byte count: digits, then optionally K, M, G or T (powers of 1024,
/// with an optional `B` or `iB`), as the command line reads it.
pub fn byte_count(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let bad = || format!("'{s}' is not a byte count (such as 1000000, 512M or 4G)");
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let power = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 1,
        "M" | "MB" | "MIB" => 2,
        "G" | "GB" | "GIB" => 3,
        "T" | "TB" | "TIB" => 4,
        _ => return Err(bad()),
    };
    1024u64
        .checked_pow(power)
        .and_then(|m| n.checked_mul(m))
        .ok_or_else(|| format!("'{s}' is more bytes than fit in 64 bits"))
}
