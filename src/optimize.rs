//! The optimizer pipeline: saturate, extract, convert back, report.
//!
//! Owns: [`optimize`] and its [`Report`] (the `--json` report of SPEC §3),
//! and the split of the time limit between saturation and extraction.
//! Must not: hold rules, costs or kernels — it wires `rules`, `extract` and
//! `lang` together.
//!
//! The time limit bounds the whole [`optimize`] call, not only saturation.
//! Saturation ends early enough to leave [`EXTRACT_TIME_PER_NODE`] per
//! e-node of the e-graph it built, plus [`final_reserve`] for writing the
//! result back (see [`crate::rules::runner::Budget`]). Extraction is then
//! greedy DAG-aware when the e-graph is small (at most
//! [`DAG_EXTRACTION_MAX_CLASSES`] classes) and more time is left than the
//! tree extractor needs, and stops at the deadline, keeping the best term
//! found by then; otherwise it is the tree extractor, `O(n log n)` in the
//! e-nodes.

use crate::extract::cost::CostModel;
use crate::extract::dag::{dag_cost, extract_dag_until};
use crate::extract::tree::extract_tree;
use crate::lang::egraph::TNode;
use crate::lang::egraph::{expr_to_program, expr_to_text, program_to_expr};
use crate::lang::{print_program, Program, Type};
use crate::rules::analysis::{EGraph, TensorAnalysis};
use crate::rules::runner::{saturate_until, Budget, Limits};
use egg::Rewrite;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Everything `optimize --json` reports.
#[derive(Clone, Debug)]
pub struct Report {
    /// The optimized program.
    pub program: Program,
    /// Why saturation stopped.
    pub stop_reason: &'static str,
    /// Saturation iterations.
    pub iterations: usize,
    /// E-nodes after saturation.
    pub egraph_nodes: usize,
    /// E-classes after saturation.
    pub egraph_classes: usize,
    /// Applications per rule.
    pub rules_applied: BTreeMap<String, usize>,
    /// Rewrites refused because they would change a type or shape.
    pub rules_refused: BTreeMap<String, usize>,
    /// Cost of the program as written (same model, DAG measure).
    pub cost_before: f64,
    /// Cost of the optimized program.
    pub cost_after: f64,
    /// Scans before, nested ones included.
    pub scans_before: usize,
    /// Scans after.
    pub scans_after: usize,
    /// Milliseconds spent saturating.
    pub saturate_ms: f64,
    /// Milliseconds spent extracting and converting back.
    pub extract_ms: f64,
    /// How the term was extracted: `"dag"` (greedy DAG-aware), `"dag-cut"`
    /// (the same, stopped at the deadline) or `"tree"`.
    pub extractor: &'static str,
}

impl Report {
    /// The SPEC §3 JSON object (`parse_ms` is the caller's to add).
    pub fn to_json(&self, parse_ms: f64) -> serde_json::Value {
        serde_json::json!({
            "program": print_program(&self.program),
            "stop_reason": self.stop_reason,
            "iterations": self.iterations,
            "egraph_nodes": self.egraph_nodes,
            "egraph_classes": self.egraph_classes,
            "rules_applied": self.rules_applied,
            "rules_refused": self.rules_refused,
            "cost_before": self.cost_before,
            "cost_after": self.cost_after,
            "scans_before": self.scans_before,
            "scans_after": self.scans_after,
            "time_ms": {"parse": parse_ms, "saturate": self.saturate_ms, "extract": self.extract_ms},
            "extractor": self.extractor,
        })
    }
}

/// Above this many e-classes, extraction is by tree cost (`O(n log n)`),
/// judged on the DAG measure: the greedy DAG extractor keeps a set of
/// classes per class; sets share structure along chains, but merging the
/// sets of siblings that share much can still cost up to `O(n²)`.
pub const DAG_EXTRACTION_MAX_CLASSES: usize = 4000;

/// Time kept back per e-node of the saturated e-graph for extracting from
/// it: costing every node once (a type inference each), the tree
/// extractor's pass, and dropping the e-graph take 1–2 µs a node on a
/// 2-core machine; this leaves a margin for a loaded one.
pub const EXTRACT_TIME_PER_NODE: Duration = Duration::from_micros(3);

/// Time kept back, whatever the e-graph's size, for writing the extracted
/// term back as a program and checking it: a tenth of the time limit, at
/// most 50 ms.
pub fn final_reserve(time_limit: Duration) -> Duration {
    (time_limit / 10).min(Duration::from_millis(50))
}

/// The cost of `p` as written, on the measure extraction minimizes.
pub fn program_cost(p: &Program, model: &CostModel) -> Result<f64, String> {
    Ok(dag_cost(&program_to_expr(p)?, model))
}

/// The best term of `root`'s class on the DAG measure, without a deadline.
pub fn extract(egraph: &EGraph, root: egg::Id, model: &CostModel) -> (f64, egg::RecExpr<TNode>) {
    let (cost, expr, _) = extract_until(egraph, root, model, None);
    (cost, expr)
}

/// The best term of `root`'s class on the DAG measure that can be found by
/// `deadline`, its cost, and the extractor used (see [`Report::extractor`]):
/// greedy DAG-aware extraction if the e-graph has at most
/// [`DAG_EXTRACTION_MAX_CLASSES`] classes and more time is left than
/// [`EXTRACT_TIME_PER_NODE`] per node, else the tree extractor.
pub fn extract_until(
    egraph: &EGraph,
    root: egg::Id,
    model: &CostModel,
    deadline: Option<Instant>,
) -> (f64, egg::RecExpr<TNode>, &'static str) {
    let small = egraph.number_of_classes() <= DAG_EXTRACTION_MAX_CLASSES;
    let time_for_dag = deadline.is_none_or(|d| {
        let tree_time = EXTRACT_TIME_PER_NODE
            .saturating_mul(u32::try_from(egraph.total_size()).unwrap_or(u32::MAX));
        Instant::now() + tree_time < d
    });
    if small && time_for_dag {
        let (cost, expr, complete) = extract_dag_until(egraph, root, model, deadline);
        (cost, expr, if complete { "dag" } else { "dag-cut" })
    } else {
        let (_, expr) = extract_tree(egraph, root, model);
        let cost = if expr.as_ref().is_empty() {
            f64::INFINITY
        } else {
            dag_cost(&expr, model)
        };
        (cost, expr, "tree")
    }
}

/// Optimizes `p`: saturation with `rewrites` under `limits`, then DAG-aware
/// extraction under `model`, the whole call within `limits.time_limit`
/// (see the module documentation). The result is never costlier than `p`:
/// if extraction finds nothing better, `p` comes back unchanged.
pub fn optimize(
    p: &Program,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    model: &CostModel,
) -> Result<Report, String> {
    let start = Instant::now();
    let deadline = start + limits.time_limit;
    let reserve = final_reserve(limits.time_limit);
    let cost_before = program_cost(p, model)?;
    let budget = Budget {
        deadline: deadline.checked_sub(reserve).unwrap_or(start),
        per_node: EXTRACT_TIME_PER_NODE,
    };
    let sat = saturate_until(p, rewrites, limits, &budget, false)?;
    let t0 = Instant::now();
    let extract_deadline = budget.deadline.max(t0);
    let (cost_after, expr, extractor) =
        extract_until(&sat.egraph, sat.root, model, Some(extract_deadline));
    let inputs: Vec<(String, Type)> = p
        .inputs()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    let (program, cost_after) = if cost_after < cost_before && !expr.as_ref().is_empty() {
        let q = expr_to_program(&p.name, &inputs, &expr).map_err(|e| {
            format!(
                "internal error: the extracted program does not type-check ({e}):\n{}",
                expr_to_text(&p.name, &inputs, &expr)
            )
        })?;
        (q, cost_after)
    } else {
        (p.clone(), cost_before)
    };
    let refused = sat.egraph.analysis.refused.clone();
    Ok(Report {
        scans_before: p.count_scans(),
        scans_after: program.count_scans(),
        program,
        stop_reason: sat.stop_reason,
        iterations: sat.iterations,
        egraph_nodes: sat.egraph.total_number_of_nodes(),
        egraph_classes: sat.egraph.number_of_classes(),
        rules_applied: sat.rules_applied,
        rules_refused: refused,
        cost_before,
        cost_after,
        saturate_ms: sat.time.as_secs_f64() * 1e3,
        extract_ms: t0.elapsed().as_secs_f64() * 1e3,
        extractor,
    })
}
