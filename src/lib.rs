//! eqscan: optimize tensor programs with loops by equality saturation.
//!
//! The layers, each depending only on those before it (checked by
//! `tests/layers.rs`): [`lang`] reads a `.sexp` program into a typed graph
//! — scans with inner graphs included — and prints it back; [`grad`]
//! expands `(grad COST X ...)` into plain ops and loops; [`exec`] runs
//! it with `pytensor.scan`'s semantics; [`egraph`] holds programs as terms
//! in an e-graph with its analysis and saturation runner; [`rules`] (rule
//! files and conditions), [`scan_rules`] (the Scan rewrites) and
//! [`extract`] (cost model, extractors and their policy) work on it;
//! [`optimize`] ties them together; [`session`] does what the commands do
//! (`run`: inputs bound, optimized, executed, reported); the `eqscan`
//! binary is the command line, one file per command.
//!
//! ```
//! use eqscan::lang::{parse_program, print_program};
//! use eqscan::exec::run::{generate_inputs, run_program, Dims};
//!
//! let p = parse_program(
//!     "(program cumsum
//!        (input X (f64 T 2))
//!        (let S (scan (sequences X) (outputs_info (sitsot (zeros (f64 2))))
//!                     (fn (x acc) (add acc x))))
//!        (output (index S -1)))",
//! ).unwrap();
//! assert_eq!(parse_program(&print_program(&p)).unwrap(), p);
//! let dims: Dims = [("T".to_string(), 4)].into();
//! let inputs = generate_inputs(&p, &dims, &Default::default()).unwrap();
//! let out = run_program(&p, inputs.clone(), &dims).unwrap();
//! assert_eq!(out[0].shape(), &[2]);
//! ```
#![warn(missing_docs)]

pub mod egraph;
pub mod exec;
pub mod extract;
pub mod grad;
pub mod lang;
pub mod optimize;
pub mod rules;
pub mod scan_rules;
pub mod session;
