//! What the commands of the command line do, as library calls that tests
//! reach: `expand` (every `grad` replaced, the first step of the
//! others), the optimizer a command is asked for, `run` (inputs bound,
//! optimized or not, executed on the compiled plan, repeated, reported)
//! and `explain` (the chain of rewrites).
//!
//! Owns: [`OptimizerSettings`] (the rules, limits and extractor of
//! `optimize`, `run`, `explain` and `dot --egraph`), [`run`](run::run)
//! with its options and result, [`explain`](explain::explain), and
//! [`SessionError`]. Must not: parse
//! arguments or print (the binary does), and no lower layer may import it
//! (`tests/layers.rs`).

pub mod error;
pub mod expand;
pub mod explain;
pub mod run;
mod run_batched;
pub mod run_lists;

pub use error::SessionError;
pub use expand::expand;
pub use explain::explain;
pub use run::{run, RunOptions, RunResult, Source};
pub use run_lists::{run_lists, ListRunResult};

use crate::egraph::analysis::TensorAnalysis;
use crate::egraph::runner::Limits;
use crate::egraph::term::TNode;
use crate::exec::run::Dims;
use crate::extract::{CostModel, Extractor};
use crate::lang::Program;
use crate::optimize::{optimize_with, rewrites, Report};
use crate::rules::RuleError;
use egg::Rewrite;
use std::path::PathBuf;

/// The optimizer a command is asked for.
#[derive(Clone, Debug)]
pub struct OptimizerSettings {
    /// Rule files or folders; empty for the rule sets built into eqscan
    /// (the same as the repository's `rules/` folder).
    pub rules: Vec<PathBuf>,
    /// Whether the Scan rewrites saturate with the rules.
    pub scan_rules: bool,
    /// Saturation limits (the time limit bounds the whole optimization).
    pub limits: Limits,
    /// The extractor asked for.
    pub extractor: Extractor,
    /// The memory budget in bytes (`--memory-budget`): the cost model
    /// prices allocations over it, and `scan-checkpoint` (recomputing a
    /// forward trace instead of storing it) joins the Scan rewrites.
    /// `None`: no budget.
    pub memory_budget: Option<u64>,
}

impl Default for OptimizerSettings {
    /// The shipped rules and the Scan rewrites, default limits, greedy
    /// extraction: what `eqscan optimize` does without options.
    fn default() -> Self {
        OptimizerSettings {
            rules: Vec::new(),
            scan_rules: true,
            limits: Limits::default(),
            extractor: Extractor::default(),
            memory_budget: None,
        }
    }
}

impl OptimizerSettings {
    /// The rewrites to saturate with: the rules of [`Self::rules`] (or the
    /// shipped ones), then the Scan rewrites if [`Self::scan_rules`].
    pub fn rewrites(&self) -> Result<Vec<Rewrite<TNode, TensorAnalysis>>, Vec<RuleError>> {
        let rules = if self.rules.is_empty() {
            crate::rules::defaults::default_rules()
        } else {
            crate::rules::load_rules(&self.rules)
        };
        rules.map(|r| rewrites(&r, self.scan_rules))
    }

    /// The rewrites for a program whose symbolic sizes have the values
    /// `dims`: [`Self::rewrites`], and under a memory budget (with the
    /// Scan rewrites) [`crate::optimize::memory_rewrites`].
    pub fn rewrites_for(
        &self,
        dims: &Dims,
    ) -> Result<Vec<Rewrite<TNode, TensorAnalysis>>, Vec<RuleError>> {
        let mut rewrites = self.rewrites()?;
        if let (Some(budget), true) = (self.memory_budget, self.scan_rules) {
            rewrites.extend(crate::optimize::memory_rewrites(dims, budget));
        }
        Ok(rewrites)
    }

    /// The cost model: symbolic sizes valued by `dims`, memory priced
    /// against the budget if there is one.
    pub fn cost_model(&self, dims: &Dims) -> CostModel {
        let mut model = CostModel::with_dims(dims.clone());
        model.memory_budget = self.memory_budget.map(|b| b as f64);
        model
    }

    /// [`Self::optimize`] of a program as written (its `grad`s not yet
    /// expanded): a program over lists of sequences is first batched
    /// ([`crate::optimize::batch::batch_lists`], without lengths: made
    /// whenever it applies), so the result is the dense program, whose
    /// inputs are each list's padded batch and lengths.
    pub fn optimize_written(&self, p: &Program, dims: &Dims) -> Result<Report, SessionError> {
        if crate::lang::list_type::holds_lists(p) {
            if let Ok(b) = crate::optimize::batch::batch_lists(p, None) {
                return self.optimize(&b.program, dims);
            }
        }
        self.optimize(p, dims)
    }

    /// Optimizes `p`, the cost model giving symbolic sizes the values of
    /// `dims`. Under a memory budget, the cost model prices memory too and
    /// `scan-checkpoint` is added, its segments sized by `dims`.
    pub fn optimize(&self, p: &Program, dims: &Dims) -> Result<Report, SessionError> {
        let expanded = expand(p)?;
        let p = &expanded;
        let rewrites = self.rewrites_for(dims).map_err(SessionError::Rules)?;
        let model = self.cost_model(dims);
        Ok(optimize_with(
            p,
            &rewrites,
            &self.limits,
            &model,
            &self.extractor,
        )?)
    }
}
