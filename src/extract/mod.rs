//! The cost model and extraction (tree, DAG-aware, exact), and the policy
//! that picks an extractor.
//!
//! Owns: [`CostModel`] (the work of one e-node, from the analysis types,
//! and its weights; every extractor prices a loop by one function,
//! [`cost::loop_cost`]: `own + steps × body`), the shared node table that
//! costs each e-node once for all extractors, tree extraction
//! ([`extract_tree`]: a shared value is paid once per use), greedy
//! DAG-aware extraction ([`extract_dag`]: a shared value is paid once, the
//! default; followed by local passes that switch one class, or all the
//! classes a merged loop can serve, when the whole term gets cheaper),
//! exact extraction by ILP ([`extract_ilp`], the yardstick, within size
//! and time limits), [`dag_cost`], the one measure all are compared
//! on, and [`policy`] (which extractor runs when, its fallbacks, and the
//! time an optimization leaves extraction). Must not: run anything —
//! costs come from static types and the weights of [`CostModel`] only.
//!
//! ```
//! use eqscan::extract::{dag_cost, extract_dag, extract_tree, CostModel};
//! use eqscan::egraph::term::program_to_expr;
//! use eqscan::lang::parse_program;
//! use eqscan::egraph::analysis::{EGraph, TensorAnalysis};
//!
//! let p = parse_program(
//!     "(program p (input X (f64 T 4)) (let e (exp X)) (output (add e e) (mul e 2.0)))",
//! )
//! .unwrap();
//! let mut egraph = EGraph::new(TensorAnalysis::default());
//! let root = egraph.add_expr(&program_to_expr(&p).unwrap());
//! egraph.rebuild();
//! let model = CostModel::default();
//! let (_, tree) = extract_tree(&egraph, root, &model);
//! let (cost, dag) = extract_dag(&egraph, root, &model);
//! assert!(cost <= dag_cost(&tree, &model));
//! assert_eq!(cost, dag_cost(&dag, &model));
//! ```

pub mod cost;
pub mod dag;
pub mod ilp;
mod improve;
mod loops;
mod pmap;
pub mod policy;
mod table;
mod tree;
mod unshare;

pub use cost::CostModel;
pub use dag::{dag_cost, extract_dag};
pub use ilp::{extract_ilp, solve_ilp, IlpError, IlpExtraction, IlpLimits};
pub use policy::{extract_within, Extraction, Extractor, ExtractorKind, ExtractorNote};
pub use tree::extract_tree;
pub(crate) use unshare::unshare_types;
