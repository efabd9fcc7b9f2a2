//! Reverse-mode differentiation: `(grad COST X ...)` expanded into plain
//! ops and loops.
//!
//! A layer of its own between `lang` and `exec` (it needs only the
//! language: it reads programs and writes them through the typed builder,
//! `crate::lang::build`). `eqscan run`, `optimize`, `explain` and `dot`
//! expand first, so the executors, the e-graph and every rewrite see an
//! ordinary program; `eqscan expand` prints the expanded one.
//!
//! Owns: [`expand`] (every `grad` of a program, loop bodies included,
//! nested ones first), the reverse sweep over a graph (`reverse`), the
//! gradient of every op (`vjp`: one exhaustive match over the ops, the tie
//! rules), of every loop (`loop_vjp`: the backward loop), the shape glue
//! they share (`emit`) and [`GradError`]. Must not: run programs, or know
//! about the e-graph, rules or extraction.
//!
//! The meaning is `pytensor.grad`'s (SPEC §1 "Gradients"): each X names a
//! binding (an input, a shared variable, a let-bound value, a `fn`
//! parameter); the gradient is the total derivative of COST with respect
//! to that value, of X's type; zeros where COST does not depend on it.

pub mod emit;
pub mod error;
pub mod expand;
mod linalg_vjp;
pub mod loop_vjp;
pub mod reverse;
pub mod seq_rows;
pub mod vjp;

pub use error::{GradError, Unsupported};
pub use expand::{expand, has_grad};
pub use reverse::gradients;
