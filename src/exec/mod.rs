//! The reference executor over `ndarray`.
//!
//! Owns: runtime values, op kernels, binding symbolic sizes, running graphs
//! and scans, reading/writing .npy files and generating workload data.
//! Must not: rewrite programs.

pub mod error;
pub mod gen;
pub mod npy;
pub mod ops;
pub mod run;
pub mod value;

pub use error::ExecError;
pub use value::Value;
