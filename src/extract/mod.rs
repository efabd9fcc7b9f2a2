//! The cost model and extraction (tree and DAG-aware).
//!
//! Owns: [`CostModel`] (the work of one e-node, from the analysis types;
//! loops cost `steps × (body + step_overhead)`), tree extraction
//! ([`extract_tree`], `egg`'s extractor: a shared value is paid once per
//! use) and greedy DAG-aware extraction ([`extract_dag`]: a shared value is
//! paid once, the default), and [`dag_cost`], the one measure both are
//! compared on. Must not: run anything — costs come from static types and
//! the constants of [`CostModel`] only.
//!
//! ```
//! use eqscan::extract::{dag_cost, extract_dag, extract_tree, CostModel};
//! use eqscan::lang::egraph::program_to_expr;
//! use eqscan::lang::parse_program;
//! use eqscan::rules::analysis::{EGraph, TensorAnalysis};
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
pub mod tree;

pub use cost::CostModel;
pub use dag::{dag_cost, extract_dag};
pub use tree::{extract_tree, TreeCost};
