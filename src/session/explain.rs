//! The `explain` command as a library call: the chain of rewrites from a
//! program to its optimized form.
//!
//! Owns: [`explain`]. Must not: bound its own time (egg's explanation
//! cannot be interrupted; the command line runs it on a thread it abandons
//! at the deadline).

use super::SessionError;
use crate::egraph::analysis::TensorAnalysis;
use crate::egraph::runner::{saturate, Limits};
use crate::egraph::term::{program_to_expr, TNode};
use crate::extract::{extract_within, CostModel, Extractor};
use crate::lang::Program;
use egg::Rewrite;

/// The lines `explain` prints: the number of rewrites, why saturation
/// stopped, then the term after each rewrite from `p` to its optimized
/// form (saturated with `rewrites` under `limits` and extracted by
/// `extractor` under `model`).
pub fn explain(
    p: &Program,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    model: &CostModel,
    extractor: &Extractor,
) -> Result<Vec<String>, SessionError> {
    let sat = saturate(p, rewrites, limits, true)?;
    let best = extract_within(&sat.egraph, sat.root, model, extractor, None).expr;
    let original = program_to_expr(p).map_err(SessionError::Term)?;
    // egg flattens the explanation by deep-copying every step's term at
    // every nesting level (cubic in a chain of lets).
    let mut egraph = sat.egraph;
    let best_id = egraph.add_expr(&best);
    if egraph.find(best_id) != sat.root {
        return Err(SessionError::NotInRootClass);
    }
    let mut explanation = egraph.explain_equivalence(&original, &best);
    let steps = explanation.make_flat_explanation().len().saturating_sub(1);
    let mut lines = vec![
        format!("; {steps} rewrite(s) from the program to its optimized form"),
        format!(
            "; stop reason: {}, {} iteration(s)",
            sat.stop_reason, sat.iterations
        ),
    ];
    lines.extend(explanation.get_flat_strings());
    Ok(lines)
}
