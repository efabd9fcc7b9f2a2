//! Saturation: a program's term in an e-graph, rewritten until saturation
//! or a limit.
//!
//! Owns: [`Limits`] (iteration, node and time limits and the cost
//! plateau, with the defaults the command line documents), the [`Budget`]
//! that leaves time for extraction, the [`ApplyGuard`] that holds rule
//! appliers to both, the [`CostWatch`] that ends a run at a cost plateau,
//! the egg `Runner` with a `BackoffScheduler`, the figures of a run
//! ([`Saturation`], [`IterationFigures`]), why it stopped ([`StopReason`])
//! and why it could not start ([`SaturateError`]).
//! Must not: extract or execute (a [`CostWatch`] is given its cost
//! function by the caller, `optimize`).
//!
//! Why a cost plateau: in the property runs of `tests/proptest_scan.rs`
//! and `tests/proptest_grad.rs` (issue 14), one gradient program in ten
//! ran to the iteration limit, and most saturating ones ran several
//! iterations after their best term was found. The iterations that do not
//! end are commutativity, associativity and distributivity (`mul-comm`,
//! `mul-assoc` both ways, `mul-add-distrib` both ways, `sub-to-add-neg`
//! and `neg-mul` both ways, `add-assoc`) enumerating forms of the same
//! cost, and the backoff scheduler's bans, which keep a run going until
//! every banned rule has had its turn again. Stopping after
//! [`Limits::DEFAULT_PLATEAU_ITERS`] iterations without a cheaper term
//! (chosen by measurement against 2, and against smaller backoff
//! match limits, which cost more than they saved) ends those runs.
//!
//! egg checks its node and time limits only between two rules, and a rule
//! may be applied to a hundred thousand matches at once (the scheduler's
//! match limit grows each time it bans a rule), so an e-graph could end
//! several times over its node limit, and saturation seconds over its time
//! limit. The appliers (of `rules` and `scan_rules`) therefore ask the
//! [`ApplyGuard`] before each application; once it says a limit is reached
//! they apply nothing, and a runner hook ends the run at the next
//! iteration.

use super::analysis::{EGraph, TensorAnalysis};
use crate::egraph::term::{program_to_expr, TNode};
use crate::lang::Program;
use egg::{BackoffScheduler, Id, Language, RecExpr, Rewrite, Runner};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Why a saturation run stopped; [`StopReason::name`] is SPEC §3's
/// spelling (the `stop_reason` of `optimize --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StopReason {
    /// No rule added anything new.
    Saturated,
    /// The iteration limit was reached.
    IterationLimit,
    /// The node limit was reached.
    NodeLimit,
    /// The time limit (or the time kept back for extraction) was reached.
    TimeLimit,
    /// The cost of the best term had not improved for
    /// [`Limits::plateau_iters`] iterations (only when a [`CostWatch`]
    /// follows the run).
    CostPlateau,
    /// Anything else egg reports (not expected).
    Other,
}

impl StopReason {
    /// SPEC §3's name: `saturated`, `iteration_limit`, `node_limit`,
    /// `time_limit`, `cost_plateau` (or `other`).
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Saturated => "saturated",
            StopReason::IterationLimit => "iteration_limit",
            StopReason::NodeLimit => "node_limit",
            StopReason::TimeLimit => "time_limit",
            StopReason::CostPlateau => "cost_plateau",
            StopReason::Other => "other",
        }
    }

    /// The reason egg's runner gives (`None`: it has not stopped, taken as
    /// saturated). The guard's reasons come back through
    /// [`egg::StopReason::Other`] with their [`Self::name`].
    pub fn from_egg(r: &Option<egg::StopReason>) -> StopReason {
        match r {
            Some(egg::StopReason::Saturated) | None => StopReason::Saturated,
            Some(egg::StopReason::IterationLimit(_)) => StopReason::IterationLimit,
            Some(egg::StopReason::NodeLimit(_)) => StopReason::NodeLimit,
            Some(egg::StopReason::TimeLimit(_)) => StopReason::TimeLimit,
            Some(egg::StopReason::Other(s)) if s == StopReason::TimeLimit.name() => {
                StopReason::TimeLimit
            }
            Some(egg::StopReason::Other(s)) if s == StopReason::NodeLimit.name() => {
                StopReason::NodeLimit
            }
            Some(egg::StopReason::Other(s)) if s == StopReason::CostPlateau.name() => {
                StopReason::CostPlateau
            }
            Some(egg::StopReason::Other(_)) => StopReason::Other,
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq<&str> for StopReason {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

/// Why a program could not be saturated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SaturateError {
    /// The program has no term in the e-graph's language (the message of
    /// [`program_to_expr`]).
    #[error("{0}")]
    Term(String),
    /// egg's runner came back without the program's root (a bug).
    #[error("no root")]
    NoRoot,
}

/// Limits of one saturation run.
#[derive(Clone, Debug)]
pub struct Limits {
    /// At most this many iterations (default 30).
    pub iter_limit: usize,
    /// Stop once the e-graph has this many nodes (default 50,000).
    pub node_limit: usize,
    /// Stop after this much time (default 5 s).
    pub time_limit: Duration,
    /// Stop once the cost of the best term has not improved for this many
    /// iterations in a row (default [`Limits::DEFAULT_PLATEAU_ITERS`];
    /// `None`: never). Only a run that a [`CostWatch`] follows can tell
    /// (the optimizer's); [`saturate`] alone ignores it.
    pub plateau_iters: Option<usize>,
    /// After the first saturation, at most this many more, each from the
    /// program extracted from the one before (default
    /// [`Limits::DEFAULT_RESTARTS`]; the optimizer decides when one is
    /// worth its time: see `crate::optimize`). [`saturate`] alone ignores
    /// it.
    pub restarts: usize,
}

impl Limits {
    /// The default of [`Limits::plateau_iters`].
    pub const DEFAULT_PLATEAU_ITERS: usize = 3;
    /// The default of [`Limits::restarts`].
    pub const DEFAULT_RESTARTS: usize = 1;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            iter_limit: 30,
            node_limit: 50_000,
            time_limit: Duration::from_secs(5),
            plateau_iters: Some(Limits::DEFAULT_PLATEAU_ITERS),
            restarts: Limits::DEFAULT_RESTARTS,
        }
    }
}

/// When saturation must end, leaving time for what follows.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Saturation ends by this instant...
    pub deadline: Instant,
    /// ...less this much per e-node of the e-graph (the time extraction
    /// will take on it).
    pub per_node: Duration,
}

impl Budget {
    /// The whole time limit from now, nothing kept back.
    pub fn from_limits(limits: &Limits) -> Budget {
        Budget {
            deadline: Instant::now() + limits.time_limit,
            per_node: Duration::ZERO,
        }
    }
}

/// What rule appliers consult before adding to the e-graph (kept in
/// [`TensorAnalysis::guard`]): the node limit and the [`Budget`].
#[derive(Clone, Debug)]
pub struct ApplyGuard {
    /// No application once the e-graph has this many nodes.
    pub node_limit: usize,
    /// No application once `now + per_node × nodes` reaches the deadline.
    pub budget: Budget,
    /// The limit that stopped the appliers.
    pub tripped: Option<StopReason>,
    /// Applications asked about so far (the clock is read every
    /// [`ApplyGuard::CLOCK_EVERY`]-th time).
    calls: usize,
}

impl ApplyGuard {
    /// How often, in applications, the guard reads the clock.
    pub const CLOCK_EVERY: usize = 16;

    /// A guard for `node_limit` and `budget`.
    pub fn new(node_limit: usize, budget: Budget) -> ApplyGuard {
        ApplyGuard {
            node_limit,
            budget,
            tripped: None,
            calls: 0,
        }
    }

    /// Whether a limit is reached with an e-graph of `nodes` e-nodes (the
    /// clock is read only every [`Self::CLOCK_EVERY`]-th call); once it
    /// is, it stays reached.
    pub fn exhausted(&mut self, nodes: usize) -> bool {
        self.calls += 1;
        let read_clock = self.calls % Self::CLOCK_EVERY == 1;
        self.check(nodes, read_clock).is_some()
    }

    /// The limit reached with an e-graph of `nodes` e-nodes, if any,
    /// reading the clock.
    pub fn check_now(&mut self, nodes: usize) -> Option<StopReason> {
        self.check(nodes, true)
    }

    fn check(&mut self, nodes: usize, read_clock: bool) -> Option<StopReason> {
        if self.tripped.is_none() {
            if nodes >= self.node_limit {
                self.tripped = Some(StopReason::NodeLimit);
            } else if read_clock && self.out_of_time(nodes) {
                self.tripped = Some(StopReason::TimeLimit);
            }
        }
        self.tripped
    }

    fn out_of_time(&self, nodes: usize) -> bool {
        let keep = self
            .budget
            .per_node
            .saturating_mul(u32::try_from(nodes).unwrap_or(u32::MAX));
        Instant::now() + keep >= self.budget.deadline
    }
}

/// What one saturation iteration did.
#[derive(Clone, Debug)]
pub struct IterationFigures {
    /// E-nodes when the iteration began.
    pub nodes: usize,
    /// E-classes when the iteration began.
    pub classes: usize,
    /// Applications per rule (rules that changed the e-graph).
    pub applied: Vec<(String, usize)>,
}

/// The outcome of a saturation run.
pub struct Saturation {
    /// The saturated e-graph.
    pub egraph: EGraph,
    /// The class of the program's root ([`crate::egraph::term::Head::Outputs`]).
    pub root: Id,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// Iterations run.
    pub iterations: usize,
    /// How often each rule was applied (only rules that fired).
    pub rules_applied: BTreeMap<String, usize>,
    /// Each iteration's figures, in order.
    pub per_iteration: Vec<IterationFigures>,
    /// Wall time of the run.
    pub time: Duration,
}

/// Puts `p` in an e-graph and saturates it with `rewrites` under `limits`
/// (the time limit counted from now).
pub fn saturate(
    p: &Program,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    explanations: bool,
) -> Result<Saturation, SaturateError> {
    saturate_until(
        p,
        rewrites,
        limits,
        &Budget::from_limits(limits),
        explanations,
    )
}

/// [`saturate`] under a [`Budget`] instead of `limits.time_limit`: the run
/// ends once `now + budget.per_node × nodes` reaches `budget.deadline`
/// (its stop reason is then `time_limit`), or at the iteration or node
/// limit of `limits`.
pub fn saturate_until(
    p: &Program,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    budget: &Budget,
    explanations: bool,
) -> Result<Saturation, SaturateError> {
    saturate_watched(p, rewrites, limits, budget, explanations, None)
}

/// What the cost of the program's best term is in an e-graph: the
/// function a [`CostWatch`] calls (`None`: not known, counted as no
/// improvement).
pub type CostOf = Box<dyn FnMut(&EGraph, Id) -> Option<f64>>;

/// Follows the cost of the program's best term during saturation, to
/// stop the run once it no longer improves ([`Limits::plateau_iters`]).
///
/// Before each iteration but the first, [`CostWatch::cost_of`] is given
/// the e-graph as the previous iteration left it and the root's class;
/// the run stops with [`StopReason::CostPlateau`] once the cost has not
/// gone significantly below (by more than one part in ten thousand) the
/// cost of the last significant gain for `plateau_iters` iterations in a
/// row. The e-graph is then exactly the
/// one last given to `cost_of`.
pub struct CostWatch {
    /// The cost of the root's best term in an e-graph.
    pub cost_of: CostOf,
}

/// Where a [`CostWatch`] stands: the cost of the last significant
/// improvement and the iterations since it.
struct Plateau {
    anchor: f64,
    since: usize,
    patience: usize,
    /// The e-graph's nodes when the anchor was set.
    anchor_nodes: usize,
}

impl Plateau {
    /// An improvement counts when the cost falls below the cost of the
    /// last one that counted by more than this fraction of it.
    ///
    /// Gradient programs gain a few units of a cost of 10^10 in the
    /// iterations after their loops are rebuilt (a `neg` folded in a
    /// loop-free term: `benches/programs/rnn_grad.sexp` gains 1,000 of
    /// 1.2·10^10 in its third iteration, the converted three-scan model of
    /// `benches/python_convert.py` 59,000 of 4.5·10^10 over four). Each
    /// such gain used to restart the count, so the run went on for
    /// [`Limits::DEFAULT_PLATEAU_ITERS`] more iterations, each the
    /// costliest of the run. The PyTensor LSTM gradient of
    /// `benches/python_layers.py` gains 2.3·10^-5 of its cost in its
    /// fourth iteration (its e-graph then doubled) and 6·10^-4 to 2·10^-3
    /// in each of the next four, which took the run to its 5 s time limit;
    /// the programs of the fourth and the eighth iteration (the later
    /// folds a mit-mot into a carry) run within 1% of each other (paired
    /// runs, one thread). One part in ten thousand is below any
    /// difference the cost model can predict in time; the best term of
    /// the run is still the one kept, whatever the gain.
    const SIGNIFICANT: f64 = 1e-4;

    /// Iterations without a gain may grow the e-graph by this many nodes,
    /// or by as many as it held at the last gain if that is more, before
    /// the run stops (after at least one such iteration).
    ///
    /// Each iteration of a gradient program's run costs about twice the
    /// one before, as the Scan rewrites build variants of variants: the
    /// PyTensor GRU gradient of `benches/python_layers.py` has its best
    /// term after 2 iterations (2,097 nodes, 40 ms) and spent 1 s in the
    /// three iterations after it (16,511 nodes), the LSTM's best after 4
    /// (3,908 nodes, 220 ms), then 1.7 s more, neither finding anything.
    /// Three iterations of patience are mostly the last one. Stopping once
    /// the idle iterations have grown the e-graph as much as everything
    /// before bounds the waste by the work the run has shown it needs; a
    /// run whose e-graph stays small keeps its whole patience. Nodes, not
    /// time: the optimized program must not depend on the machine's speed.
    const IDLE_FLOOR_NODES: usize = 1_000;

    /// Takes the cost after an iteration and the e-graph's size; true when
    /// the run should stop.
    fn stalled(&mut self, cost: Option<f64>, nodes: usize) -> bool {
        // Below the anchor by a significant fraction (any finite cost is
        // below an infinite anchor).
        let bar = if self.anchor.is_finite() {
            self.anchor - Self::SIGNIFICANT * self.anchor.abs()
        } else {
            self.anchor
        };
        match cost {
            Some(c) if c < bar => {
                self.anchor = c;
                self.since = 0;
                self.anchor_nodes = nodes;
            }
            _ => self.since += 1,
        }
        let grown = nodes.saturating_sub(self.anchor_nodes);
        self.since >= self.patience
            || (self.since >= 1 && grown >= self.anchor_nodes.max(Self::IDLE_FLOOR_NODES))
    }
}

/// [`saturate_until`] followed by `watch` (if any), which stops the run
/// at a cost plateau (see [`CostWatch`]).
pub fn saturate_watched(
    p: &Program,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    budget: &Budget,
    explanations: bool,
    watch: Option<CostWatch>,
) -> Result<Saturation, SaturateError> {
    let seeded = seed(p, limits, budget, explanations)?;
    saturate_seeded(seeded, rewrites, limits, budget, watch)
}

/// A program's term in a fresh e-graph, before any rule has run: what
/// [`saturate_seeded`] starts from. Between the two, a caller may read the
/// e-graph of the program alone (`optimize` prices the written program on
/// it, instead of building the same e-graph a second time: for a program
/// of 100,000 nodes that was a fifth of the whole run).
pub struct Seeded {
    /// The e-graph holding the program's term and nothing else, rebuilt.
    pub egraph: EGraph,
    /// The program's term.
    pub expr: RecExpr<TNode>,
    /// The class of each node of [`Self::expr`] (not canonical: read
    /// them through `egraph.find`).
    pub ids: Vec<Id>,
    /// When seeding began (the run's time counts from then).
    start: Instant,
}

/// Puts `p`'s term in a fresh e-graph whose appliers are held to `limits`
/// and `budget`, with explanations if asked.
pub fn seed(
    p: &Program,
    limits: &Limits,
    budget: &Budget,
    explanations: bool,
) -> Result<Seeded, SaturateError> {
    let expr = program_to_expr(p).map_err(SaturateError::Term)?;
    let start = Instant::now();
    let mut egraph = EGraph::new(TensorAnalysis {
        guard: Some(ApplyGuard::new(limits.node_limit, *budget)),
        deadline: Some(budget.deadline),
        ..TensorAnalysis::default()
    });
    if explanations {
        egraph = egraph.with_explanations_enabled();
    }
    // As egg's `add_expr` does: each node over its children's uncanonical
    // classes (explanations then hold the written term).
    let mut ids: Vec<Id> = Vec::with_capacity(expr.as_ref().len());
    for node in expr.as_ref() {
        let node = node
            .clone()
            .map_children(|c| ids.get(usize::from(c)).copied().unwrap_or(c));
        ids.push(egraph.add_uncanonical(node));
    }
    egraph.rebuild();
    Ok(Seeded {
        egraph,
        expr,
        ids,
        start,
    })
}

/// Saturates a [`Seeded`] e-graph with `rewrites` under `limits` and
/// `budget`, followed by `watch` (if any), as [`saturate_watched`].
pub fn saturate_seeded(
    seeded: Seeded,
    rewrites: &[Rewrite<TNode, TensorAnalysis>],
    limits: &Limits,
    budget: &Budget,
    watch: Option<CostWatch>,
) -> Result<Saturation, SaturateError> {
    let Seeded {
        egraph, ids, start, ..
    } = seeded;
    let root = ids.last().copied().ok_or(SaturateError::NoRoot)?;
    let mut watch = match (watch, limits.plateau_iters) {
        (Some(w), Some(patience)) if patience > 0 => Some((
            w,
            Plateau {
                anchor: f64::INFINITY,
                since: 0,
                patience,
                anchor_nodes: 0,
            },
        )),
        _ => None,
    };
    let mut runner = Runner::default().with_egraph(egraph);
    let root = runner.egraph.find(root);
    runner.roots.push(root);
    let runner = runner
        .with_iter_limit(limits.iter_limit)
        .with_node_limit(limits.node_limit)
        .with_time_limit(budget.deadline.saturating_duration_since(start))
        .with_scheduler(BackoffScheduler::default())
        .with_hook(move |runner| {
            // Before each iteration: count it (rewrites that share work
            // within an iteration read the count), note the retired loops,
            // and end the run if a limit is reached.
            runner.egraph.analysis.iteration += 1;
            let now = super::retired::loop_free_scans(&runner.egraph);
            let before = std::mem::replace(&mut runner.egraph.analysis.loop_free_scans, now);
            runner.egraph.analysis.retired = before
                .iter()
                .map(|c| runner.egraph.find(*c))
                .filter(|c| runner.egraph.analysis.loop_free_scans.contains(c))
                .collect();
            runner.egraph.analysis.reach_stamps = super::stamps::reach_stamps(&runner.egraph);
            let nodes = runner.egraph.total_size();
            if let Some(reason) = runner
                .egraph
                .analysis
                .guard
                .as_mut()
                .and_then(|g| g.check_now(nodes))
            {
                return Err(reason.name().to_string());
            }
            // After each iteration (not before the first): the best
            // term's cost, and a stop at a plateau.
            if let (Some((w, plateau)), Some(&root)) = (watch.as_mut(), runner.roots.first()) {
                if runner.egraph.analysis.iteration > 1 {
                    let root = runner.egraph.find(root);
                    let cost = (w.cost_of)(&runner.egraph, root);
                    if plateau.stalled(cost, runner.egraph.total_size()) {
                        return Err(StopReason::CostPlateau.name().to_string());
                    }
                }
            }
            Ok(())
        })
        .run(rewrites.iter());
    let mut applied: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_iteration = Vec::new();
    for it in &runner.iterations {
        for (name, n) in &it.applied {
            *applied.entry(name.to_string()).or_insert(0) += n;
        }
        per_iteration.push(IterationFigures {
            nodes: it.egraph_nodes,
            classes: it.egraph_classes,
            applied: it
                .applied
                .iter()
                .map(|(r, n)| (r.to_string(), *n))
                .collect(),
        });
    }
    let root = runner.roots.first().copied().ok_or(SaturateError::NoRoot)?;
    let mut egraph = runner.egraph;
    // A limit the appliers hit is why the run ended, even if egg, seeing
    // nothing applied in the last iteration, took it for saturation.
    let tripped = egraph.analysis.guard.take().and_then(|g| g.tripped);
    let stop_reason = match (StopReason::from_egg(&runner.stop_reason), tripped) {
        (StopReason::Saturated | StopReason::IterationLimit, Some(t)) => t,
        (r, _) => r,
    };
    Ok(Saturation {
        root: egraph.find(root),
        stop_reason,
        iterations: runner.iterations.len(),
        rules_applied: applied,
        per_iteration,
        egraph,
        time: start.elapsed(),
    })
}

/// True once the saturation guard has stopped rule applications (a node
/// or time limit reached): every applier asks before doing any work.
pub fn applications_stopped(egraph: &mut super::analysis::EGraph) -> bool {
    let size = egraph.total_size();
    egraph
        .analysis
        .guard
        .as_mut()
        .is_some_and(|guard| guard.exhausted(size))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plateau(patience: usize) -> Plateau {
        Plateau {
            anchor: f64::INFINITY,
            since: 0,
            patience,
            anchor_nodes: 0,
        }
    }

    /// The run stops after `patience` iterations in a row without a
    /// better cost; an improvement starts the count again.
    #[test]
    fn plateau_counts_iterations_without_improvement() {
        let mut p = plateau(3);
        let costs = [10.0, 8.0, 8.0, 9.0, 7.0, 7.0, 7.0, 7.0];
        let stalled: Vec<bool> = costs.iter().map(|&c| p.stalled(Some(c), 0)).collect();
        assert_eq!(
            stalled,
            [false, false, false, false, false, false, false, true],
            "{costs:?}"
        );
        assert_eq!(p.anchor, 7.0);
    }

    /// An unknown cost and a gain within rounding count as no
    /// improvement.
    #[test]
    fn plateau_ignores_unknown_costs_and_rounding() {
        let mut p = plateau(2);
        assert!(!p.stalled(Some(1e6), 0));
        assert!(!p.stalled(Some(1e6 * (1.0 - 1e-15)), 0));
        assert!(p.stalled(None, 0));
        assert_eq!(p.anchor, 1e6);
    }

    /// Gains below one part in ten thousand, one after another, do not
    /// restart the count, even where they add up; their sum counts once it
    /// is significant against the last gain that counted.
    #[test]
    fn plateau_counts_tiny_gains_as_none() {
        let mut p = plateau(3);
        let base = 4.5e10;
        assert!(!p.stalled(Some(base), 0));
        assert!(!p.stalled(Some(base - 1.2e6), 0));
        assert!(!p.stalled(Some(base - 2.4e6), 0));
        assert!(
            p.stalled(Some(base - 3.6e6), 0),
            "three tiny gains are a plateau"
        );
        let mut q = plateau(2);
        assert!(!q.stalled(Some(base), 0));
        assert!(!q.stalled(Some(base - 4e6), 0));
        // 5e6 below the anchor: 1.1e-4 of it, a gain that counts.
        assert!(!q.stalled(Some(base - 5e6), 0));
        assert_eq!(q.anchor, base - 5e6);
        assert!(!q.stalled(Some(base - 5.1e6), 0));
        assert!(q.stalled(Some(base - 5.2e6), 0));
    }

    /// Idle iterations that grow the e-graph by as many nodes as it held
    /// at the last gain end the run before its patience; small growth
    /// (under the floor) does not.
    #[test]
    fn plateau_stops_when_idle_iterations_grow_the_egraph_past_its_size_at_the_gain() {
        let mut p = plateau(3);
        assert!(!p.stalled(Some(10.0), 300));
        assert!(!p.stalled(Some(5.0), 2_100), "a gain");
        assert!(!p.stalled(Some(5.0), 4_100), "grown 2,000 < 2,100");
        assert!(p.stalled(Some(5.0), 8_700), "grown 6,600 >= 2,100");
        let mut q = plateau(3);
        assert!(!q.stalled(Some(10.0), 10));
        assert!(!q.stalled(Some(10.0), 200), "grown 190, under the floor");
        assert!(!q.stalled(Some(10.0), 900));
        assert!(q.stalled(Some(10.0), 950), "patience");
        let mut r = plateau(3);
        assert!(!r.stalled(Some(10.0), 10));
        assert!(r.stalled(Some(10.0), 1_010), "grown 1,000: the floor");
    }

    #[test]
    fn cost_plateau_has_its_spec_name() {
        assert_eq!(StopReason::CostPlateau.name(), "cost_plateau");
        assert_eq!(
            StopReason::from_egg(&Some(egg::StopReason::Other("cost_plateau".into()))),
            StopReason::CostPlateau
        );
    }
}
