//! The cost model and extraction (tree, DAG-aware, exact).
//!
//! Owns: [`CostModel`] (the work of one e-node, from the analysis types;
//! loops cost `steps × (body + step_overhead)`), tree extraction
//! ([`extract_tree`]: a shared value is paid once per use), greedy
//! DAG-aware extraction ([`extract_dag`]: a shared value is paid once, the
//! default; followed by local passes that switch one class, or all the
//! classes a merged loop can serve, when the whole term gets cheaper),
//! exact extraction by ILP ([`extract_ilp`], the yardstick, within size
//! and time limits), and [`dag_cost`], the one measure all are compared
//! on. Must not: run anything — costs come from static types and
//! the constants of [`CostModel`] only.
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

use crate::egraph::term::{Head, TNode};
use egg::{Id, Language, RecExpr};

pub mod cost;
pub mod dag;
pub mod ilp;
mod improve;
mod loops;
mod pmap;
mod table;
pub mod tree;

pub use cost::CostModel;
pub use dag::{dag_cost, extract_dag, extract_dag_until};
pub use ilp::{extract_ilp, solve_ilp, IlpError, IlpExtraction, IlpLimits};
pub use tree::{extract_tree, TreeCost};

/// Gives every use of a type attribute (`(f64 D 3)`) its own copy.
///
/// Extraction shares equal subterms, attributes included; but a program
/// writes a type attribute at each use (it cannot be a `let` value), and
/// the term → program conversion reads it at each use. So extracted terms
/// keep types unshared, as the program has them (they cost nothing either
/// way).
pub(crate) fn unshare_types(expr: &RecExpr<TNode>) -> RecExpr<TNode> {
    let nodes = expr.as_ref();
    let mut out: RecExpr<TNode> = RecExpr::default();
    // New id of each non-type node; for a type node, its mapped form.
    let mut ids: Vec<Option<Id>> = Vec::with_capacity(nodes.len());
    let mut types: Vec<Option<TNode>> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let mut children = Vec::with_capacity(node.children.len());
        for c in node.children() {
            let i = usize::from(*c);
            let id = match (
                types.get(i).cloned().flatten(),
                ids.get(i).copied().flatten(),
            ) {
                (Some(t), _) => out.add(t),
                (None, Some(id)) => id,
                (None, None) => *c,
            };
            children.push(id);
        }
        let mapped = TNode {
            head: node.head.clone(),
            children,
        };
        if matches!(node.head, Head::Type(_)) {
            types.push(Some(mapped));
            ids.push(None);
        } else {
            types.push(None);
            ids.push(Some(out.add(mapped)));
        }
    }
    if let Some(Head::Type(_)) = nodes.last().map(|n| &n.head) {
        if let Some(Some(t)) = types.last() {
            out.add(t.clone());
        }
    }
    out
}
