//! The memory budget: the most bytes one array of the executor may take.
//!
//! Owns: [`MemoryBudget`] (by default three quarters of the memory the
//! machine has available when the process starts, from `/proc/meminfo` and
//! the cgroup's limit), the byte count of an array in checked arithmetic
//! ([`array_bytes`]), and the sentence for an array over the budget
//! ([`OverBudget`]). The executors ask [`MemoryBudget::check`] where an
//! op's result type is known, before its kernel runs (one chokepoint per
//! executor, see [`crate::exec::ops::check_budget`]); `--gen` and `.npy`
//! reading ask before they allocate. The budget bounds each allocation,
//! not their sum. Must not: allocate, or know about kernels.

use crate::exec::value::shape_str;
use crate::lang::DType;
use std::fmt;
use std::sync::OnceLock;

/// The budget when the machine's memory cannot be read: 8 GiB.
pub const FALLBACK_BYTES: u64 = 8 << 30;

/// The most bytes one array may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    bytes: u64,
}

impl Default for MemoryBudget {
    /// What the machine can give ([`MemoryBudget::machine`]).
    fn default() -> MemoryBudget {
        MemoryBudget::machine()
    }
}

impl MemoryBudget {
    /// A budget of `bytes` bytes.
    pub fn bytes(bytes: u64) -> MemoryBudget {
        MemoryBudget { bytes }
    }

    /// No budget: only what the address space allows.
    pub fn unlimited() -> MemoryBudget {
        MemoryBudget { bytes: u64::MAX }
    }

    /// What one array can actually have on this machine: three quarters of
    /// the memory available when the process starts (`MemAvailable` of
    /// `/proc/meminfo`, at most what the cgroup v2 limit `memory.max`
    /// leaves above `memory.current`), or [`FALLBACK_BYTES`] when none of
    /// it can be read. Read once per process.
    ///
    /// Not the physical memory: on a machine whose other processes hold
    /// part of it, an array the size of what is left is refused here,
    /// with a located sentence, instead of aborting the process when the
    /// allocator fails (or being killed when its pages are touched). The
    /// quarter kept back is for the program's other arrays, which the
    /// budget does not count.
    pub fn machine() -> MemoryBudget {
        static AVAILABLE: OnceLock<u64> = OnceLock::new();
        let bytes = *AVAILABLE.get_or_init(|| {
            let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
            let cgroup =
                |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok();
            available_bytes(
                meminfo.as_deref(),
                cgroup("memory.max").as_deref(),
                cgroup("memory.current").as_deref(),
            )
        });
        MemoryBudget { bytes }
    }

    /// The budget in bytes.
    pub fn limit(&self) -> u64 {
        self.bytes
    }

    /// Checks that an array of `dtype` and `shape`, for `what`, fits in the budget (and
    /// in the address space).
    pub fn check(&self, what: Allocation, dtype: DType, shape: &[usize]) -> Result<(), OverBudget> {
        let bytes = array_bytes(dtype, shape);
        match bytes {
            Some(b) if b <= self.bytes as u128 && b <= isize::MAX as u128 => Ok(()),
            _ => Err(OverBudget {
                what,
                dtype,
                shape: shape.to_vec(),
                bytes,
                budget: self.bytes,
            }),
        }
    }
}

/// The default budget from the text of `/proc/meminfo` and the cgroup v2
/// files `memory.max` and `memory.current` (each `None` when unreadable):
/// three quarters of the smaller of `MemAvailable` (or `MemTotal` on
/// kernels without it) and the cgroup's headroom; [`FALLBACK_BYTES`] when
/// neither is known.
fn available_bytes(meminfo: Option<&str>, max: Option<&str>, current: Option<&str>) -> u64 {
    let machine = meminfo
        .and_then(|m| meminfo_field(m, "MemAvailable:").or_else(|| meminfo_field(m, "MemTotal:")));
    let headroom = match (max.map(str::trim), current.map(str::trim)) {
        (Some(m), Some(c)) if m != "max" => {
            let (m, c) = (m.parse::<u64>().ok(), c.parse::<u64>().ok());
            m.zip(c).map(|(m, c)| m.saturating_sub(c))
        }
        _ => None,
    };
    let have = match (machine, headroom) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return FALLBACK_BYTES,
    };
    have / 4 * 3
}

/// A `NAME:  N kB` field of `/proc/meminfo`, in bytes.
fn meminfo_field(meminfo: &str, name: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with(name))?;
    let mut words = line[name.len()..].split_whitespace();
    let n: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// The bytes of an array of `dtype` and `shape`; `None` when the count
/// does not fit in 128 bits.
pub fn array_bytes(dtype: DType, shape: &[usize]) -> Option<u128> {
    shape
        .iter()
        .try_fold(dtype.size_bytes() as u128, |acc, &d| {
            acc.checked_mul(d as u128)
        })
}

/// A byte count with a readable figure: `80000000000 bytes (74.5 GiB)`.
fn bytes_str(b: u128) -> String {
    bytes_note(b, None)
}

/// [`bytes_str`] with `note` added inside the parentheses.
fn bytes_note(b: u128, note: Option<&str>) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if b < 1024 {
        return match note {
            Some(n) => format!("{b} bytes ({n})"),
            None => format!("{b} bytes"),
        };
    }
    let mut x = b as f64;
    let mut unit = "bytes";
    for u in UNITS {
        if x < 1024.0 {
            break;
        }
        x /= 1024.0;
        unit = u;
    }
    match note {
        Some(n) => format!("{b} bytes ({x:.1} {unit}; {n})"),
        None => format!("{b} bytes ({x:.1} {unit})"),
    }
}

/// An array larger than the budget (or than any machine can address).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverBudget {
    /// What the array is for.
    pub what: Allocation,
    /// Its dtype.
    pub dtype: DType,
    /// Its shape.
    pub shape: Vec<usize>,
    /// The bytes it needs (`None`: more than 2^128).
    pub bytes: Option<u128>,
    /// The budget, in bytes.
    pub budget: u64,
}

impl fmt::Display for OverBudget {
    /// `needs N bytes for WHAT, an f64 array of shape S, more than the
    /// memory budget of B bytes (...)`: the caller puts the subject first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let need = match self.bytes {
            Some(b) => bytes_str(b),
            None => "more than 2^128 bytes".to_string(),
        };
        let article = if self.dtype == DType::Bool { "a" } else { "an" };
        write!(
            f,
            "needs {need} for {}, {article} {} array of shape {}, more than the memory budget of {}",
            self.what,
            self.dtype,
            shape_str(&self.shape),
            bytes_note(self.budget as u128, Some("set it with --max-memory"))
        )
    }
}

/// What an array over the budget is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocation {
    /// The op's result.
    Result,
    /// Operand `k`, converted to the dtype the op computes in.
    Converted(usize),
    /// The buffer of a loop's output `k` (every step it keeps).
    LoopOutput(usize),
    /// The data of an input (generated, read from a file, or zeros).
    Data,
}

impl fmt::Display for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allocation::Result => f.write_str("its result"),
            Allocation::Converted(k) => {
                write!(f, "operand {k} converted to the dtype it computes in")
            }
            Allocation::LoopOutput(k) => write!(f, "the steps of output {k}"),
            Allocation::Data => f.write_str("its data"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_three_quarters_of_what_is_available() {
        let text = "MemTotal:       24684092 kB\nMemFree:  100 kB\nMemAvailable:   20802744 kB\n";
        assert_eq!(meminfo_field(text, "MemTotal:"), Some(24684092 * 1024));
        assert_eq!(meminfo_field("MemFree: 3 kB\n", "MemTotal:"), None);
        let budget = available_bytes(Some(text), None, None);
        assert_eq!(budget, 20802744 * 1024 / 4 * 3);
        // The fuzz finding of issue 40: a 20 GB broadcast on this machine
        // (24 GiB physical, 19.8 GiB available) is refused, not attempted.
        let b = MemoryBudget::bytes(budget);
        assert!(b
            .check(Allocation::Result, DType::F64, &[50000, 50000])
            .is_err());
        assert!(b
            .check(Allocation::Result, DType::F64, &[50000, 5000])
            .is_ok());
        // A cgroup limit lower than the machine's memory wins; "max" is none.
        let g = available_bytes(Some(text), Some("4294967296\n"), Some("1073741824\n"));
        assert_eq!(g, (3 << 30) / 4 * 3);
        assert_eq!(
            available_bytes(Some(text), Some("max\n"), Some("5\n")),
            budget
        );
        assert_eq!(available_bytes(None, Some("400\n"), Some("0\n")), 300);
        // An old kernel without MemAvailable: its total.
        assert_eq!(available_bytes(Some("MemTotal: 8 kB\n"), None, None), 6144);
        assert_eq!(available_bytes(None, None, None), FALLBACK_BYTES);
        assert!(MemoryBudget::machine().limit() > 0);
    }

    #[test]
    fn checks_in_checked_arithmetic() {
        let b = MemoryBudget::bytes(1000);
        let r = Allocation::Result;
        assert!(b.check(r, DType::F64, &[125]).is_ok());
        let e = b.check(r, DType::F64, &[126]).unwrap_err();
        assert_eq!(e.bytes, Some(1008));
        assert_eq!(
            e.to_string(),
            "needs 1008 bytes for its result, an f64 array of shape (126,), more than the memory budget of 1000 bytes (set it with --max-memory)"
        );
        let huge = [usize::MAX, usize::MAX, usize::MAX];
        let e = MemoryBudget::unlimited()
            .check(Allocation::Data, DType::Bool, &huge)
            .unwrap_err();
        assert_eq!(e.bytes, None);
        assert!(e
            .to_string()
            .starts_with("needs more than 2^128 bytes for its data, a bool array"));
        assert!(MemoryBudget::unlimited()
            .check(r, DType::F64, &[1 << 61])
            .is_err());
        assert!(MemoryBudget::bytes(0).check(r, DType::F64, &[0, 5]).is_ok());
        assert_eq!(bytes_str(80_000_000_000), "80000000000 bytes (74.5 GiB)");
    }
}
