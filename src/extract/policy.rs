//! Extractor policy: which extractor runs when, what it falls back to, and
//! how an optimization's time limit is split between saturation and
//! extraction.
//!
//! Owns: [`Extractor`] (what `--extractor` asks for), [`ExtractorKind`]
//! (the extractor whose term is kept), [`ExtractorNote`] (why that is not
//! the one asked for), [`extract_within`], and the time split
//! ([`saturation_budget`], [`extraction_deadline`], [`EXTRACT_TIME_PER_NODE`],
//! [`final_reserve`]), and when a saturation is worth starting again from
//! its extracted term ([`restart_pays`]).
//! Must not: extract by itself (it calls [`super::dag`], the tree
//! extractor and [`super::ilp`]) or saturate.
//!
//! The time limit bounds a whole optimization, not only saturation.
//! Saturation ends early enough to leave [`EXTRACT_TIME_PER_NODE`] per
//! e-node of the e-graph it built, plus [`final_reserve`] for writing the
//! result back ([`saturation_budget`]). The default extraction is then
//! greedy DAG-aware when the e-graph is small (at most
//! [`DAG_EXTRACTION_MAX_CLASSES`] classes) and more time is left than the
//! tree extractor needs, and stops at the deadline, keeping the best term
//! found by then; otherwise it is the tree extractor, `O(n log n)` in the
//! e-nodes. ILP extraction ([`Extractor::Ilp`]) runs within its own time
//! limit instead, and falls back to greedy when it refuses the e-graph or
//! finds nothing better.

use super::cost::CostModel;
use super::dag::{dag_cost, extract_dag_until};
use super::ilp::{solve_ilp, IlpError, IlpLimits};
use super::tree::extract_tree;
use crate::egraph::analysis::EGraph;
use crate::egraph::runner::Budget;
use crate::egraph::term::TNode;
use egg::{Id, RecExpr};
use std::fmt;
use std::time::{Duration, Instant};

/// Above this many e-classes, extraction is by tree cost (`O(n log n)`),
/// judged on the DAG measure: the greedy DAG extractor keeps a set of
/// classes per class; sets share structure along chains, but merging the
/// sets of siblings that share much can still cost up to `O(n²)`.
pub const DAG_EXTRACTION_MAX_CLASSES: usize = 4000;

/// Above this many loops in a saturated e-graph per loop of the program
/// put in it, the optimizer saturates again from the extracted program
/// ([`restart_pays`]). The Scan rewrites build the product of their
/// choices (a GRU layer's gradient, two loops as written, grows 2 → 28 →
/// 207 → 728 → 2,105 loops over its first five iterations), and the
/// greedy extractor, which prices each class alone, then picks among
/// loop variants whose combinations it cannot weigh: a loop that stores
/// nothing beside the one whose stored values another loop reads. A
/// model with three loops and their gradients ends near 30 a loop, the
/// GRU and LSTM layers near 400 and 250.
pub const RESTART_LOOPS_PER_WRITTEN_LOOP: usize = 64;

/// Whether a saturated `egraph` holds so many loop variants, more than
/// [`RESTART_LOOPS_PER_WRITTEN_LOOP`] per loop of the program it started
/// from (`written_loops`, nested ones included), that extraction among
/// them is unreliable, and saturating again from the extracted program
/// (an e-graph with that program's loops alone, which the rewrites vary
/// anew) is worth its time.
pub fn restart_pays(egraph: &EGraph, written_loops: usize) -> bool {
    if written_loops == 0 {
        return false;
    }
    let loops = egraph
        .classes()
        .flat_map(|c| c.nodes.iter())
        .filter(|n| matches!(n.head, crate::egraph::term::Head::Scan(_)))
        .count();
    loops > RESTART_LOOPS_PER_WRITTEN_LOOP.saturating_mul(written_loops)
}

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

/// The budget of saturation in an optimization that started at `start`
/// with `time_limit` for the whole: it ends [`final_reserve`] before the
/// end, less [`EXTRACT_TIME_PER_NODE`] per e-node. Extraction has until
/// the budget's deadline (or the moment saturation ended, if later).
pub fn saturation_budget(start: Instant, time_limit: Duration) -> Budget {
    let deadline = start + time_limit;
    Budget {
        deadline: deadline
            .checked_sub(final_reserve(time_limit))
            .unwrap_or(start),
        per_node: EXTRACT_TIME_PER_NODE,
    }
}

/// The deadline of extraction after saturation under `budget`: the
/// budget's deadline, or now if saturation ended later.
pub fn extraction_deadline(budget: &Budget) -> Instant {
    budget.deadline.max(Instant::now())
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
    /// The kind of extractor asked for.
    pub fn kind(&self) -> ExtractorKind {
        match self {
            Extractor::Greedy => ExtractorKind::Greedy,
            Extractor::Tree => ExtractorKind::Tree,
            Extractor::Ilp(_) => ExtractorKind::Ilp,
        }
    }

    /// The name `--extractor` takes: `greedy`, `tree` or `ilp`.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }
}

/// An extractor, without its limits: the one whose term was kept (the
/// `extractor` of `optimize --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExtractorKind {
    /// Greedy DAG-aware extraction.
    Greedy,
    /// Tree extraction.
    Tree,
    /// Exact extraction by ILP.
    Ilp,
}

impl ExtractorKind {
    /// Its name: `greedy`, `tree` or `ilp`.
    pub fn name(self) -> &'static str {
        match self {
            ExtractorKind::Greedy => "greedy",
            ExtractorKind::Tree => "tree",
            ExtractorKind::Ilp => "ilp",
        }
    }
}

impl fmt::Display for ExtractorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq<&str> for ExtractorKind {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

/// Why the extractor kept is not the one asked for, or that its term is
/// not proven optimal (the `extractor_note` of `optimize --json`, in the
/// words of its [`fmt::Display`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ExtractorNote {
    /// Greedy DAG extraction reached the deadline; its best term so far is
    /// kept.
    GreedyStopped,
    /// Too little time was left for greedy DAG extraction; tree extraction
    /// was used.
    TreeForLackOfTime,
    /// The e-graph has more than [`DAG_EXTRACTION_MAX_CLASSES`] classes;
    /// tree extraction was used.
    TreeAboveMaxClasses,
    /// The ILP reached its time limit with a term better than greedy's,
    /// not proven optimal; that term is kept.
    IlpNotProven {
        /// The ILP's time limit, in seconds.
        seconds: f64,
    },
    /// The ILP reached its time limit with nothing better than greedy;
    /// greedy DAG extraction was used.
    IlpNothingBetter {
        /// The ILP's time limit, in seconds.
        seconds: f64,
    },
    /// The ILP gave no term; greedy was used, itself with `fallback` when
    /// it fell back in turn.
    IlpFailed {
        /// Why the ILP gave no term.
        error: IlpError,
        /// The note of the greedy extraction used instead.
        fallback: Option<Box<ExtractorNote>>,
    },
}

impl fmt::Display for ExtractorNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtractorNote::GreedyStopped => f.write_str(
                "greedy DAG extraction stopped at the time limit; the best term found by then is \
                 kept",
            ),
            ExtractorNote::TreeForLackOfTime => f.write_str(
                "too little of the time limit left for greedy DAG extraction; tree extraction used",
            ),
            ExtractorNote::TreeAboveMaxClasses => write!(
                f,
                "greedy DAG extraction skipped above {DAG_EXTRACTION_MAX_CLASSES} e-classes; \
                 tree extraction used"
            ),
            ExtractorNote::IlpNotProven { seconds } => write!(
                f,
                "ilp: time limit of {seconds} s reached; its best term, not proven optimal, is \
                 kept"
            ),
            ExtractorNote::IlpNothingBetter { seconds } => write!(
                f,
                "ilp: time limit of {seconds} s reached with nothing better than greedy DAG; \
                 greedy DAG used"
            ),
            ExtractorNote::IlpFailed { error, fallback } => match fallback {
                Some(note) => write!(f, "ilp: {error}; {note}"),
                None => write!(f, "ilp: {error}; greedy DAG used"),
            },
        }
    }
}

/// A term chosen by [`extract_within`].
#[derive(Clone, Debug)]
pub struct Extraction {
    /// Its cost on the DAG measure ([`dag_cost`]).
    pub cost: f64,
    /// The term.
    pub expr: RecExpr<TNode>,
    /// The extractor that chose it.
    pub extractor: ExtractorKind,
    /// Why that is not the extractor asked for, or that an ILP term is not
    /// proven optimal.
    pub note: Option<ExtractorNote>,
}

/// The DAG cost of an extracted term; infinite for the empty term an
/// extractor gives when the class has none.
fn term_cost(expr: &RecExpr<TNode>, model: &CostModel) -> f64 {
    if expr.as_ref().is_empty() {
        f64::INFINITY
    } else {
        dag_cost(expr, model)
    }
}

/// The tree extractor's term, as an [`Extraction`] with `note`.
fn by_tree(
    egraph: &EGraph,
    root: Id,
    model: &CostModel,
    note: Option<ExtractorNote>,
) -> Extraction {
    let (_, expr) = extract_tree(egraph, root, model);
    Extraction {
        cost: term_cost(&expr, model),
        expr,
        extractor: ExtractorKind::Tree,
        note,
    }
}

/// The default extraction by `deadline`: greedy DAG if the e-graph has at
/// most [`DAG_EXTRACTION_MAX_CLASSES`] classes and more time is left than
/// [`EXTRACT_TIME_PER_NODE`] per node, stopping at the deadline with the
/// best term found by then; else the tree extractor's term.
fn greedy(egraph: &EGraph, root: Id, model: &CostModel, deadline: Option<Instant>) -> Extraction {
    let small = egraph.number_of_classes() <= DAG_EXTRACTION_MAX_CLASSES;
    let time_for_dag = deadline.is_none_or(|d| {
        let tree_time = EXTRACT_TIME_PER_NODE
            .saturating_mul(u32::try_from(egraph.total_size()).unwrap_or(u32::MAX));
        Instant::now() + tree_time < d
    });
    if small && time_for_dag {
        let (cost, expr, complete) = extract_dag_until(egraph, root, model, deadline);
        Extraction {
            cost,
            expr,
            extractor: ExtractorKind::Greedy,
            note: (!complete).then_some(ExtractorNote::GreedyStopped),
        }
    } else if small {
        by_tree(egraph, root, model, Some(ExtractorNote::TreeForLackOfTime))
    } else {
        by_tree(
            egraph,
            root,
            model,
            Some(ExtractorNote::TreeAboveMaxClasses),
        )
    }
}

/// The best term of `root`'s class on the DAG measure, by `extractor`,
/// by `deadline` (`None`: no deadline). Greedy extraction is used only if
/// the e-graph has at most [`DAG_EXTRACTION_MAX_CLASSES`] classes and more
/// time is left than [`EXTRACT_TIME_PER_NODE`] per node, and stops at the
/// deadline with the best term found by then; otherwise the tree
/// extractor's term is taken (the note says why). The ILP keeps its own
/// time limit, and falls back to greedy.
pub fn extract_within(
    egraph: &EGraph,
    root: Id,
    model: &CostModel,
    extractor: &Extractor,
    deadline: Option<Instant>,
) -> Extraction {
    match extractor {
        Extractor::Greedy => greedy(egraph, root, model, deadline),
        Extractor::Tree => by_tree(egraph, root, model, None),
        Extractor::Ilp(limits) => {
            let seconds = limits.time_limit.as_secs_f64();
            match solve_ilp(egraph, root, model, limits) {
                Ok(x) if x.optimal || x.cost < x.greedy_cost => Extraction {
                    cost: x.cost,
                    expr: x.expr,
                    extractor: ExtractorKind::Ilp,
                    note: (!x.optimal).then_some(ExtractorNote::IlpNotProven { seconds }),
                },
                Ok(_) => Extraction {
                    note: Some(ExtractorNote::IlpNothingBetter { seconds }),
                    ..greedy(egraph, root, model, deadline)
                },
                Err(error) => {
                    let g = greedy(egraph, root, model, deadline);
                    Extraction {
                        note: Some(ExtractorNote::IlpFailed {
                            error,
                            fallback: g.note.clone().map(Box::new),
                        }),
                        ..g
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The notes print as `optimize --json` has always written them.
    #[test]
    fn notes_print_their_sentences() {
        assert_eq!(
            ExtractorNote::TreeAboveMaxClasses.to_string(),
            "greedy DAG extraction skipped above 4000 e-classes; tree extraction used"
        );
        assert_eq!(
            ExtractorNote::IlpNotProven { seconds: 2.5 }.to_string(),
            "ilp: time limit of 2.5 s reached; its best term, not proven optimal, is kept"
        );
        let refused = ExtractorNote::IlpFailed {
            error: IlpError::TooLarge { limit: 3 },
            fallback: None,
        };
        assert_eq!(
            refused.to_string(),
            "ilp: the ILP would have more than 3 classes (a class counts once per loop body it \
             is reachable in); greedy DAG used"
        );
        let twice = ExtractorNote::IlpFailed {
            error: IlpError::NoTerm,
            fallback: Some(Box::new(ExtractorNote::TreeForLackOfTime)),
        };
        assert_eq!(
            twice.to_string(),
            "ilp: the root class has no term of finite cost; too little of the time limit left \
             for greedy DAG extraction; tree extraction used"
        );
        assert_eq!(ExtractorKind::Greedy.to_string(), "greedy");
        assert_eq!(Extractor::Ilp(IlpLimits::default()).name(), "ilp");
    }

    /// The time split: saturation ends a tenth of the limit (at most
    /// 50 ms) before the end, and keeps 3 µs per e-node for extraction.
    #[test]
    fn saturation_leaves_time_for_extraction() {
        let start = Instant::now();
        let b = saturation_budget(start, Duration::from_secs(1));
        assert_eq!(b.deadline - start, Duration::from_millis(950));
        assert_eq!(b.per_node, Duration::from_micros(3));
        let b = saturation_budget(start, Duration::from_millis(100));
        assert_eq!(b.deadline - start, Duration::from_millis(90));
    }
}
