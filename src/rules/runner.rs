//! Saturation: a program's term in an e-graph, rewritten until saturation
//! or a limit.
//!
//! Owns: [`Limits`] (iteration, node and time limits, with the defaults the
//! command line documents), the egg `Runner` with a `BackoffScheduler`, and
//! the figures of a run ([`Saturation`]). Must not: extract or execute.

use super::analysis::{EGraph, TensorAnalysis};
use crate::lang::egraph::{program_to_expr, TNode};
use crate::lang::Program;
use egg::{BackoffScheduler, Id, Rewrite, Runner, StopReason};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Limits of one saturation run.
#[derive(Clone, Debug)]
pub struct Limits {
    /// At most this many iterations (default 30).
    pub iter_limit: usize,
    /// Stop once the e-graph has this many nodes (default 50,000).
    pub node_limit: usize,
    /// Stop after this much time (default 5 s).
    pub time_limit: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            iter_limit: 30,
            node_limit: 50_000,
            time_limit: Duration::from_secs(5),
        }
    }
}

/// The outcome of a saturation run.
pub struct Saturation {
    /// The saturated e-graph.
    pub egraph: EGraph,
    /// The class of the program's root ([`crate::lang::egraph::Head::Outputs`]).
    pub root: Id,
    /// Why the run stopped, as SPEC §3 spells it.
    pub stop_reason: &'static str,
    /// Iterations run.
    pub iterations: usize,
    /// How often each rule was applied (only rules that fired).
    pub rules_applied: BTreeMap<String, usize>,
    /// Wall time of the run.
    pub time: Duration,
}

/// SPEC §3's name of a stop reason.
pub fn stop_reason_name(r: &Option<StopReason>) -> &'static str {
    match r {
        Some(StopReason::Saturated) | None => "saturated",
        Some(StopReason::IterationLimit(_)) => "iteration_limit",
        Some(StopReason::NodeLimit(_)) => "node_limit",
        Some(StopReason::TimeLimit(_)) => "time_limit",
        Some(StopReason::Other(_)) => "other",
    }
}

/// Puts `p` in an e-graph and saturates it with `rewrites`.
pub fn saturate(
    p: &Program,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    explanations: bool,
) -> Result<Saturation, String> {
    let expr = program_to_expr(p)?;
    let start = Instant::now();
    let mut egraph = EGraph::new(TensorAnalysis {
        deadline: Some(start + limits.time_limit),
        ..TensorAnalysis::default()
    });
    if explanations {
        egraph = egraph.with_explanations_enabled();
    }
    let runner = Runner::default()
        .with_egraph(egraph)
        .with_expr(&expr)
        .with_iter_limit(limits.iter_limit)
        .with_node_limit(limits.node_limit)
        .with_time_limit(limits.time_limit)
        .with_scheduler(BackoffScheduler::default())
        .run(rewrites.iter());
    let mut applied: BTreeMap<String, usize> = BTreeMap::new();
    for it in &runner.iterations {
        for (name, n) in &it.applied {
            *applied.entry(name.to_string()).or_insert(0) += n;
        }
    }
    let root = runner.roots.first().copied().ok_or("no root")?;
    Ok(Saturation {
        root: runner.egraph.find(root),
        stop_reason: stop_reason_name(&runner.stop_reason),
        iterations: runner.iterations.len(),
        rules_applied: applied,
        egraph: runner.egraph,
        time: start.elapsed(),
    })
}
