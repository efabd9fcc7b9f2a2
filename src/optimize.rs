//! The optimizer pipeline: saturate, extract, convert back, report.
//!
//! Owns: [`optimize`], its [`Report`] (the `--json` report of SPEC §3) and
//! its errors ([`OptimizeError`]). Must not: hold rules, costs, extractor
//! policy or kernels — it wires `rules`, `scan_rules`, `extract` and
//! `lang` together.
//!
//! The time limit bounds the whole [`optimize`] call, not only saturation;
//! [`crate::extract::policy`] splits it between saturation and extraction
//! and picks the extractor.
//!
//! Saturation is followed by a [`CostWatch`]: after each iteration the
//! greedy extractor gives the best term's cost, and the run stops once it
//! has not improved for [`Limits::plateau_iters`] iterations (most of an
//! unsaturated run's iterations only grow the e-graph: commutativity,
//! associativity and distributivity keep adding forms of the same cost).
//! The cheapest term seen along the way is kept: greedy DAG extraction is
//! not monotone in the e-graph, and a larger e-graph may give a slightly
//! costlier term.
//!
//! A round of saturation and extraction may be followed by restarts
//! ([`Limits::restarts`]): when the e-graph holds many variants of each
//! written loop ([`restart_pays`]), the extracted program goes into a fresh
//! e-graph and is saturated again, within the same time limit, and the
//! cheaper term is kept. The Scan rewrites build the product of their
//! choices, among which the greedy extractor picks badly; the fresh
//! e-graph holds only the chosen loops, and the rewrites that need them
//! (`scan-accumulator-sum` on a backward loop whose forward loop stores
//! its gates) reach their form in it. Each round is [`saturate_and_extract`].

pub mod batch;
pub mod batch_phases;
pub mod list_identities;
mod loop_spans;

use crate::egraph::analysis::TensorAnalysis;
use crate::egraph::runner::{
    saturate_seeded, seed, Budget, CostWatch, Limits, SaturateError, Saturation, Seeded, StopReason,
};
use crate::egraph::term::TNode;
use crate::egraph::term::{expr_to_program, program_to_expr, TermError};
use crate::extract::cost::CostModel;
use crate::extract::dag::written_cost_in;
use crate::extract::policy::{
    extract_within, extraction_deadline, restart_pays, saturation_budget, Extraction,
};
use crate::extract::{Extractor, ExtractorKind, ExtractorNote};
use crate::lang::{print_program, Program, Type};
use egg::{RecExpr, Rewrite};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Why a program could not be optimized.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OptimizeError {
    /// The program has no term in the e-graph's language (the message of
    /// [`program_to_expr`]).
    #[error("{0}")]
    Term(String),
    /// Saturation could not start.
    #[error(transparent)]
    Saturate(#[from] SaturateError),
    /// The extracted term is not a well-typed program: a rewrite or an
    /// extractor is wrong (a bug, reported with the term, on one line as
    /// every error is).
    #[error("internal error: the extracted term is not a program ({error}): {term}")]
    Extracted {
        /// Why the term is not a program.
        error: TermError,
        /// The extracted term, printed.
        term: String,
    },
}

/// A term printed on one line, its first 400 characters when longer (a
/// loop's gradient prints tens of kilobytes, which no reader of the error
/// wants whole).
fn abridged(term: &str) -> String {
    const KEEP: usize = 400;
    let line = term.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(KEEP) {
        Some((cut, _)) => format!(
            "{} … ({} characters in all)",
            &line[..cut],
            line.chars().count()
        ),
        None => line,
    }
}

/// Everything `optimize --json` reports.
#[derive(Clone, Debug)]
pub struct Report {
    /// The optimized program.
    pub program: Program,
    /// Why saturation stopped.
    pub stop_reason: StopReason,
    /// Rounds of saturation: 1, and one more for each restart from the
    /// extracted program ([`Limits::restarts`]).
    pub rounds: usize,
    /// Saturation iterations, over all rounds.
    pub iterations: usize,
    /// E-nodes after saturation (the largest e-graph of the rounds).
    pub egraph_nodes: usize,
    /// E-classes after saturation (the largest e-graph of the rounds).
    pub egraph_classes: usize,
    /// Applications per rule, over all rounds.
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
    /// The extractor whose term was kept.
    pub extractor: ExtractorKind,
    /// Why the requested extractor was not the one used, or that its term
    /// is not proven optimal; `None` when nothing needs saying.
    pub extractor_note: Option<ExtractorNote>,
}

impl Report {
    /// The SPEC §3 JSON object (`parse_ms` is the caller's to add).
    pub fn to_json(&self, parse_ms: f64) -> serde_json::Value {
        serde_json::json!({
            "program": print_program(&self.program),
            "stop_reason": self.stop_reason.name(),
            "rounds": self.rounds,
            "iterations": self.iterations,
            "egraph_nodes": self.egraph_nodes,
            "egraph_classes": self.egraph_classes,
            "rules_applied": self.rules_applied,
            "rules_refused": self.rules_refused,
            "cost_before": self.cost_before,
            "cost_after": self.cost_after,
            "scans_before": self.scans_before,
            "scans_after": self.scans_after,
            "extractor": self.extractor.name(),
            "extractor_note": self.extractor_note.as_ref().map(|n| n.to_string()),
            "time_ms": {"parse": parse_ms, "saturate": self.saturate_ms, "extract": self.extract_ms},
        })
    }
}

/// The rewrites of the optimizer: the algebraic `rules` (from rule files)
/// and `sum-of-ones` ([`crate::rules::count`]), followed by the Scan
/// rewrites ([`crate::scan_rules`]) unless `scan_rules` is false.
pub fn rewrites(
    rules: &[crate::rules::Rule],
    scan_rules: bool,
) -> Vec<Rewrite<TNode, TensorAnalysis>> {
    let mut r = crate::rules::to_rewrites(rules);
    r.extend(crate::rules::count::rewrites());
    if scan_rules {
        r.extend(crate::scan_rules::scan_rewrites());
    }
    r
}

/// The rewrites a memory budget of `budget` bytes adds to the optimizer
/// (`--memory-budget`): `scan-checkpoint`, its segments sized from `sizes`
/// (the values of the symbolic sizes), and `scan-sum-into-loop`. Both
/// trade work for memory, so they are only worth the e-graph they add
/// when the cost model prices memory.
pub fn memory_rewrites(
    sizes: &BTreeMap<String, i64>,
    budget: u64,
) -> Vec<Rewrite<TNode, TensorAnalysis>> {
    [
        crate::scan_rules::checkpoint::rewrite(sizes.clone(), budget),
        crate::scan_rules::sum_into_loop::rewrite(),
    ]
    .into_iter()
    .filter_map(Result::ok)
    .collect()
}

/// The shipped rule sets and the Scan rewrites.
pub fn default_rewrites(
) -> Result<Vec<Rewrite<TNode, TensorAnalysis>>, Vec<crate::rules::RuleError>> {
    Ok(rewrites(&crate::rules::defaults::default_rules()?, true))
}

/// The cost of `p` as written: the measure extraction minimizes, with
/// every node of the program paid (two copies of one loop are two loops;
/// see [`crate::extract::dag::written_cost`]).
pub fn program_cost(p: &Program, model: &CostModel) -> Result<f64, OptimizeError> {
    let expr = program_to_expr(p).map_err(OptimizeError::Term)?;
    Ok(crate::extract::dag::written_cost(&expr, model))
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
) -> Result<Report, OptimizeError> {
    optimize_with(p, rewrites, limits, model, &Extractor::Greedy)
}

/// The report of a program carried through unchanged: one that holds
/// lists, which the e-graph does not rewrite yet (issue 41; see
/// `docs/lists.md`).
fn unchanged(p: &Program, cost: f64, start: Instant) -> Report {
    Report {
        program: p.clone(),
        stop_reason: StopReason::Saturated,
        rounds: 0,
        iterations: 0,
        egraph_nodes: 0,
        egraph_classes: 0,
        rules_applied: BTreeMap::new(),
        rules_refused: BTreeMap::new(),
        cost_before: cost,
        cost_after: cost,
        scans_before: p.count_scans(),
        scans_after: p.count_scans(),
        saturate_ms: 0.0,
        extract_ms: start.elapsed().as_secs_f64() * 1e3,
        extractor: ExtractorKind::Greedy,
        extractor_note: None,
    }
}

/// The report of a program that holds lists: the seed's identities
/// ([`list_identities::list_identities`]: map fusion and the list ops
/// that undo one another, counted as `list-identities`) made when the cost
/// model prices the result no higher, else the program unchanged.
fn list_report(p: &Program, cost: f64, model: &CostModel, start: Instant) -> Report {
    let (q, fused) = list_identities::list_identities(p);
    let after = match fused {
        0 => None,
        _ => program_cost(&q, model).ok().filter(|c| *c <= cost),
    };
    let Some(after) = after else {
        return unchanged(p, cost, start);
    };
    let mut r = unchanged(&q, cost, start);
    r.cost_after = after;
    r.scans_before = p.count_scans();
    r.rules_applied.insert("list-identities".into(), fused);
    r
}

/// One round of the optimizer on a program `seeded` in its e-graph: saturation under `limits` and
/// `budget`, followed by the [`CostWatch`], then extraction with
/// `extractor`; the cheaper of the watch's best term and the extracted
/// one, and the time extraction took.
fn saturate_and_extract(
    seeded: Seeded,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    budget: &Budget,
    model: &CostModel,
    extractor: &Extractor,
) -> Result<(Saturation, Extraction, Duration), OptimizeError> {
    // The best term seen by the watch, and the cost the watch reads.
    let best: Rc<RefCell<Option<Extraction>>> = Rc::new(RefCell::new(None));
    let watch = {
        let (model, best, deadline) = (model.clone(), best.clone(), budget.deadline);
        CostWatch {
            cost_of: Box::new(move |egraph, root| {
                let x = extract_within(egraph, root, &model, &Extractor::Greedy, Some(deadline));
                let cost = x.cost;
                let mut best = best.borrow_mut();
                if best.as_ref().is_none_or(|b| cost < b.cost) {
                    *best = Some(x);
                }
                Some(cost)
            }),
        }
    };
    let sat = saturate_seeded(seeded, rewrites, limits, budget, Some(watch))?;
    let t0 = Instant::now();
    let watched = best.borrow_mut().take();
    let x = match watched {
        // At a plateau the e-graph is the one the watch last extracted
        // from, with the greedy extractor asked for: nothing new to find.
        Some(w)
            if sat.stop_reason == StopReason::CostPlateau
                && *extractor == Extractor::Greedy
                && w.cost.is_finite() =>
        {
            w
        }
        w => {
            let x = extract_within(
                &sat.egraph,
                sat.root,
                model,
                extractor,
                Some(extraction_deadline(budget)),
            );
            match w {
                Some(w) if w.cost < x.cost => w,
                _ => x,
            }
        }
    };
    Ok((sat, x, t0.elapsed()))
}

/// The program of an extracted term, with `p`'s inputs, shared variables
/// and loop positions ([`loop_spans::place_loops`]).
fn program_of(p: &Program, expr: &RecExpr<TNode>) -> Result<Program, OptimizeError> {
    // Every parameter, the shared variables included (they are read like
    // inputs; the update values are the graph's last outputs).
    let inputs: Vec<(String, Type)> = p
        .graph
        .params()
        .map(|(_, n)| (n.name.clone().unwrap_or_default(), n.ty().clone()))
        .collect();
    let mut q =
        expr_to_program(&p.name, &inputs, expr).map_err(|error| OptimizeError::Extracted {
            error,
            term: abridged(&expr.to_string()),
        })?;
    q.shared = p.shared.clone();
    loop_spans::place_loops(&mut q.graph, &p.graph);
    Ok(q)
}

/// [`optimize`] with the given extractor.
pub fn optimize_with(
    p: &Program,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    model: &CostModel,
    extractor: &Extractor,
) -> Result<Report, OptimizeError> {
    let start = Instant::now();
    if crate::lang::list_type::holds_lists(p) {
        let cost_before = program_cost(p, model)?;
        return Ok(list_report(p, cost_before, model, start));
    }
    let budget = saturation_budget(start, limits.time_limit);
    // The written program is priced on the e-graph saturation starts from.
    let seeded = seed(p, limits, &budget, false)?;
    let cost_before = written_cost_in(&seeded.egraph, &seeded.ids, &seeded.expr, model);
    let (mut sat, mut x, took) =
        saturate_and_extract(seeded, rewrites, limits, &budget, model, extractor)?;
    let mut totals = RoundTotals::default();
    totals.add(&mut sat, took);
    // Restarts: saturation again from the extracted program, while the
    // last round improved on its start, ended before the deadline and
    // left too many loop variants to extract among reliably.
    let mut round_start_cost = cost_before;
    while totals.rounds <= limits.restarts
        && x.cost < round_start_cost
        && !x.expr.as_ref().is_empty()
        && Instant::now() < budget.deadline
        && restart_pays(&sat.egraph, p.count_scans())
    {
        let q = program_of(p, &x.expr)?;
        round_start_cost = x.cost;
        let seeded = seed(&q, limits, &budget, false)?;
        let (mut next, y, took) =
            saturate_and_extract(seeded, rewrites, limits, &budget, model, extractor)?;
        totals.add(&mut next, took);
        if y.cost < x.cost {
            x = y;
        }
        sat = next;
    }
    drop(sat);
    let t0 = Instant::now();
    let (cost_after, expr) = (x.cost, x.expr);
    let (program, cost_after) = if cost_after < cost_before && !expr.as_ref().is_empty() {
        (program_of(p, &expr)?, cost_after)
    } else {
        (p.clone(), cost_before)
    };
    Ok(Report {
        scans_before: p.count_scans(),
        scans_after: program.count_scans(),
        program,
        // Every run has a first round.
        stop_reason: totals.stop_reason.unwrap_or(StopReason::Saturated),
        rounds: totals.rounds,
        iterations: totals.iterations,
        egraph_nodes: totals.egraph_nodes,
        egraph_classes: totals.egraph_classes,
        rules_applied: totals.rules_applied,
        rules_refused: totals.rules_refused,
        cost_before,
        cost_after,
        saturate_ms: totals.saturate.as_secs_f64() * 1e3,
        extract_ms: (totals.extract + t0.elapsed()).as_secs_f64() * 1e3,
        extractor: x.extractor,
        extractor_note: x.note,
    })
}

/// What the report gathers over the rounds of saturation: sums of the
/// times, iterations and rule counts, the largest e-graph, and the last
/// round's stop reason.
#[derive(Default)]
struct RoundTotals {
    rounds: usize,
    saturate: Duration,
    extract: Duration,
    iterations: usize,
    rules_applied: BTreeMap<String, usize>,
    rules_refused: BTreeMap<String, usize>,
    egraph_nodes: usize,
    egraph_classes: usize,
    /// `None` before the first round.
    stop_reason: Option<StopReason>,
}

impl RoundTotals {
    /// Counts one more round: its saturation `sat` (whose rule counts
    /// move here) and its extraction time.
    fn add(&mut self, sat: &mut Saturation, extract: Duration) {
        self.rounds += 1;
        self.saturate += sat.time;
        self.extract += extract;
        self.iterations += sat.iterations;
        for (rule, n) in std::mem::take(&mut sat.rules_applied) {
            *self.rules_applied.entry(rule).or_insert(0) += n;
        }
        for (rule, n) in &sat.egraph.analysis.refused {
            *self.rules_refused.entry(rule.clone()).or_insert(0) += n;
        }
        self.egraph_nodes = self.egraph_nodes.max(sat.egraph.total_number_of_nodes());
        self.egraph_classes = self.egraph_classes.max(sat.egraph.number_of_classes());
        self.stop_reason = Some(sat.stop_reason);
    }
}
