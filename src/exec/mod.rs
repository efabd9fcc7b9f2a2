//! The reference executor over `ndarray`.
//!
//! Owns: runtime values, op kernels, binding symbolic sizes, running graphs
//! and scans — by the reference interpreter ([`run`]) and by compiled plans
//! ([`plan`]), which share each loop's bookkeeping (`loop_frame`) —
//! reading/writing .npy files and generating workload data;
//! checking a program with its sizes bound before it runs ([`shape_check`])
//! and telling an optimized run's errors as the written program's
//! ([`map_back`]); storage on cache lines ([`aligned`]). Must not:
//! rewrite programs.

pub mod aligned;
pub mod budget;
pub mod error;
pub mod gen;
pub mod list;
pub(crate) mod loop_frame;
pub mod map_back;
pub mod npy;
pub mod ops;
pub mod plan;
pub mod run;
pub mod shape_check;
pub mod threads;
pub mod value;

pub use budget::MemoryBudget;
pub use error::{ExecError, LoopError};
pub use value::Value;
