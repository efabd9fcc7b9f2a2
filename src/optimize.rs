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
//! result back (see [`crate::egraph::runner::Budget`]). The default
//! extraction is then greedy DAG-aware when the e-graph is small (at most
//! [`DAG_EXTRACTION_MAX_CLASSES`] classes) and more time is left than the
//! tree extractor needs, and stops at the deadline, keeping the best term
//! found by then; otherwise it is the tree extractor, `O(n log n)` in the
//! e-nodes. ILP extraction ([`Extractor::Ilp`]) runs within its own time
//! limit instead.

use crate::egraph::analysis::{EGraph, TensorAnalysis};
use crate::egraph::runner::{saturate_until, Budget, Limits};
use crate::egraph::term::TNode;
use crate::egraph::term::{expr_to_program, program_to_expr};
use crate::extract::cost::CostModel;
use crate::extract::dag::{dag_cost, extract_dag_until};
use crate::extract::ilp::{solve_ilp, IlpLimits};
use crate::extract::tree::extract_tree;
use crate::lang::{print_program, Program, Type};
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
    /// The extractor whose term was kept (see [`Extraction::extractor`]).
    pub extractor: &'static str,
    /// Why the requested extractor was not the one used, or that its term
    /// is not proven optimal; `None` when nothing needs saying.
    pub extractor_note: Option<String>,
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
            "extractor": self.extractor,
            "extractor_note": self.extractor_note,
            "time_ms": {"parse": parse_ms, "saturate": self.saturate_ms, "extract": self.extract_ms},
        })
    }
}

/// The rewrites of the optimizer: the algebraic `rules` (from rule files)
/// followed by the Scan rewrites ([`crate::scan_rules`]) unless `scan_rules`
/// is false.
pub fn rewrites(
    rules: &[crate::rules::Rule],
    scan_rules: bool,
) -> Vec<Rewrite<TNode, TensorAnalysis>> {
    let mut r = crate::rules::to_rewrites(rules);
    if scan_rules {
        r.extend(crate::scan_rules::scan_rewrites());
    }
    r
}

/// The shipped rule sets and the Scan rewrites.
pub fn default_rewrites(
) -> Result<Vec<Rewrite<TNode, TensorAnalysis>>, Vec<crate::rules::RuleError>> {
    Ok(rewrites(&crate::rules::defaults::default_rules()?, true))
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

/// The cost of `p` as written: the measure extraction minimizes, with
/// every node of the program paid (two copies of one loop are two loops;
/// see [`crate::extract::dag::written_cost`]).
pub fn program_cost(p: &Program, model: &CostModel) -> Result<f64, String> {
    Ok(crate::extract::dag::written_cost(
        &program_to_expr(p)?,
        model,
    ))
}

/// The best term of `root`'s class on the DAG measure, by the default
/// extractor ([`Extractor::Greedy`]).
pub fn extract(egraph: &EGraph, root: egg::Id, model: &CostModel) -> (f64, egg::RecExpr<TNode>) {
    let x = extract_with(egraph, root, model, &Extractor::Greedy);
    (x.cost, x.expr)
}

/// Which extractor picks the optimized term.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Extractor {
    /// Greedy DAG-aware extraction (the default); tree extraction above
    /// [`DAG_EXTRACTION_MAX_CLASSES`] classes.
    #[default]
    Greedy,
    /// Tree extraction (a shared value paid once per use), judged
    /// on the DAG measure.
    Tree,
    /// Exact extraction by ILP ([`crate::extract::ilp`]) within these
    /// limits; greedy DAG when the ILP refuses the e-graph or finds nothing
    /// better before its time limit.
    Ilp(IlpLimits),
}

impl Extractor {
    /// The name `--extractor` takes: `greedy`, `tree` or `ilp`.
    pub fn name(&self) -> &'static str {
        match self {
            Extractor::Greedy => "greedy",
            Extractor::Tree => "tree",
            Extractor::Ilp(_) => "ilp",
        }
    }
}

/// A term chosen by [`extract_with`].
#[derive(Clone, Debug)]
pub struct Extraction {
    /// Its cost on the DAG measure ([`dag_cost`]).
    pub cost: f64,
    /// The term.
    pub expr: egg::RecExpr<TNode>,
    /// The extractor that chose it: `greedy`, `tree` or `ilp`.
    pub extractor: &'static str,
    /// Why that is not the extractor asked for, or that an ILP term is not
    /// proven optimal.
    pub note: Option<String>,
}

/// The best term of `root`'s class on the DAG measure, by `extractor`,
/// without a deadline.
pub fn extract_with(
    egraph: &EGraph,
    root: egg::Id,
    model: &CostModel,
    extractor: &Extractor,
) -> Extraction {
    extract_within(egraph, root, model, extractor, None)
}

/// The DAG cost of an extracted term; infinite for the empty term an
/// extractor gives when the class has none.
fn term_cost(expr: &egg::RecExpr<TNode>, model: &CostModel) -> f64 {
    if expr.as_ref().is_empty() {
        f64::INFINITY
    } else {
        dag_cost(expr, model)
    }
}

/// [`extract_with`] by `deadline`. Greedy extraction is used only if the
/// e-graph has at most [`DAG_EXTRACTION_MAX_CLASSES`] classes and more time
/// is left than [`EXTRACT_TIME_PER_NODE`] per node, and stops at the
/// deadline with the best term found by then; otherwise the tree
/// extractor's term is taken (the note says why). The ILP keeps its own
/// time limit.
pub fn extract_within(
    egraph: &EGraph,
    root: egg::Id,
    model: &CostModel,
    extractor: &Extractor,
    deadline: Option<Instant>,
) -> Extraction {
    let greedy = || {
        let small = egraph.number_of_classes() <= DAG_EXTRACTION_MAX_CLASSES;
        let time_for_dag = deadline.is_none_or(|d| {
            let tree_time = EXTRACT_TIME_PER_NODE
                .saturating_mul(u32::try_from(egraph.total_size()).unwrap_or(u32::MAX));
            Instant::now() + tree_time < d
        });
        if small && time_for_dag {
            let (cost, expr, complete) = extract_dag_until(egraph, root, model, deadline);
            let note = (!complete).then(|| {
                "greedy DAG extraction stopped at the time limit; the best term found by then is kept"
                    .to_string()
            });
            (cost, expr, "greedy", note)
        } else {
            let (_, expr) = extract_tree(egraph, root, model);
            let note = if small {
                "too little of the time limit left for greedy DAG extraction; tree extraction used"
                    .to_string()
            } else {
                format!(
                    "greedy DAG extraction skipped above {DAG_EXTRACTION_MAX_CLASSES} e-classes; \
                     tree extraction used"
                )
            };
            (term_cost(&expr, model), expr, "tree", Some(note))
        }
    };
    let (cost, expr, used, note) = match extractor {
        Extractor::Greedy => greedy(),
        Extractor::Tree => {
            let (_, expr) = extract_tree(egraph, root, model);
            (term_cost(&expr, model), expr, "tree", None)
        }
        Extractor::Ilp(limits) => match solve_ilp(egraph, root, model, limits) {
            Ok(x) if x.optimal => (x.cost, x.expr, "ilp", None),
            Ok(x) if x.cost < x.greedy_cost => {
                let note = format!(
                    "ilp: time limit of {} s reached; its best term, not proven optimal, is kept",
                    limits.time_limit.as_secs_f64()
                );
                (x.cost, x.expr, "ilp", Some(note))
            }
            Ok(_) => {
                let (c, e, used, _) = greedy();
                let note = format!(
                    "ilp: time limit of {} s reached with nothing better than greedy DAG; \
                     greedy DAG used",
                    limits.time_limit.as_secs_f64()
                );
                (c, e, used, Some(note))
            }
            Err(e) => {
                let (c, expr, used, fallback) = greedy();
                let note = match fallback {
                    Some(f) => format!("ilp: {e}; {f}"),
                    None => format!("ilp: {e}; greedy DAG used"),
                };
                (c, expr, used, Some(note))
            }
        },
    };
    Extraction {
        cost,
        expr,
        extractor: used,
        note,
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
    optimize_with(p, rewrites, limits, model, &Extractor::Greedy)
}

/// [`optimize`] with the given extractor.
pub fn optimize_with(
    p: &Program,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    model: &CostModel,
    extractor: &Extractor,
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
    let x = extract_within(
        &sat.egraph,
        sat.root,
        model,
        extractor,
        Some(extract_deadline),
    );
    let (cost_after, expr) = (x.cost, x.expr);
    // Every parameter, the shared variables included (they are read like
    // inputs; the update values are the graph's last outputs).
    let inputs: Vec<(String, Type)> = p
        .graph
        .params()
        .map(|(_, n)| (n.name.clone().unwrap_or_default(), n.ty().clone()))
        .collect();
    let (program, cost_after) = if cost_after < cost_before && !expr.as_ref().is_empty() {
        let mut q = expr_to_program(&p.name, &inputs, &expr).map_err(|e| {
            format!("internal error: the extracted term is not a program ({e}):\n{expr}")
        })?;
        q.shared = p.shared.clone();
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
        extractor: x.extractor,
        extractor_note: x.note,
    })
}
