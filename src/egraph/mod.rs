//! The e-graph of programs: the term language, the e-class analysis and
//! the saturation runner.
//!
//! Owns: [`term`] (programs as `egg` terms), [`to_program`] (terms back
//! to programs, through the typed builder), [`analysis`] (the
//! type, constant, value range and dependences of every class, with
//! constant folding), [`range`] (the value-range facts), [`union`] (which
//! unions a rewrite may make), [`retired`] (loops whose outputs all have
//! loop-free forms) and [`runner`] (saturation with its limits,
//! deadline, guard and counters).
//!
//! Must not: hold rewrite rules (`rules`, `scan_rules`), costs or
//! extraction (`extract`). It sits between `exec` (folding runs the
//! executor's kernels) and the rewrites; nothing here imports `rules`,
//! `scan_rules` or `extract`.

pub mod analysis;
pub mod range;
pub mod retired;
pub mod runner;
pub mod stamps;
pub mod term;
pub mod to_program;
pub mod union;

pub use analysis::{ClassData, EGraph, Kind, TensorAnalysis};
pub use term::{Head, Lit, TNode};
