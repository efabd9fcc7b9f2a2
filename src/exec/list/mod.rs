//! Nested lists at run time (SPEC §1 "Nested lists (FractalTensors)";
//! the design is `docs/lists.md`).
//!
//! Owns: the list value ([`value::ListValue`]: one shared `values` array
//! and one row-splits vector per depth; its elements are ranges of them,
//! never copies), its `.npz` layout ([`npz`]), generated list inputs
//! ([`gen`]) and the evaluator of programs that hold lists ([`run`]).
//! Must not: rewrite programs, or know about the command line.

pub mod gen;
mod loops;
pub mod npz;
pub mod pad;
pub mod run;
pub mod value;

pub use run::{bind_items, eval_items, Item};
pub use value::{Element, ListValue};
