//! The compiled executor: a program planned once, run many times.
//!
//! Owns: compiling a [`crate::lang::Program`] into a plan and running it.
//! [`contract`] declares, per op, what it may do with storage (view or
//! overwrite an argument); [`schedule`] orders the nodes, finds each
//! value's lifetime, decides which elementwise ops run in place and
//! assigns storage ("slots") by liveness; [`fusion`] runs chains of
//! elementwise ops as one blocked loop, with the block kernels of
//! [`block`] (which the step tape shares); [`view`] locates values that live
//! in another value's storage; [`kernels`] computes into a slot's storage
//! without allocating; [`runtime`] runs a plan's nodes; [`scan`] runs loops
//! with output buffers filled row by row; [`step`] compiles a loop body
//! for its shapes into straight-line instructions that run a step without
//! the plan's per-node dispatch; [`compiled`] is the library API
//! with its memory rules. The interpreter of [`crate::exec::run`] stays the
//! reference semantics: the plan must agree with it on every result and
//! every error. Must not: rewrite programs.

pub(crate) mod block;
pub mod compiled;
pub mod contract;
pub mod fusion;
pub mod kernels;
pub(crate) mod row_major;
pub mod runtime;
pub mod scan;
pub mod schedule;
pub(crate) mod step;
pub mod view;

pub use compiled::{Compiled, Outputs};
pub use schedule::{GraphPlan, PlanOptions, NATIVE_STEPS, SPLIT_WORK};
pub use step::{OffTape, StepCensus};
pub use view::ValView;
