//! Work the Scan rewrites share within one saturation iteration.
//!
//! Owns: [`ScanMemo`] (kept in [`crate::egraph::analysis::TensorAnalysis`]):
//! the body term plans ([`Plan`]) made in the current iteration. Must not:
//! decide what a rule does.
//!
//! Bodies are written over positional parameters, so the loops of a chain
//! (or the variants of one loop) often share their body classes, and a rule
//! that plans the terms of a body ([`Plan::shared`]) asks for the same plan
//! once per loop: same sources (where each parameter goes, which classes
//! are replaced) and same roots. The plan is made once per iteration and
//! shared. The runner counts iterations
//! ([`crate::egraph::analysis::TensorAnalysis::iteration`]) and a plan is
//! kept for the iteration it was made in; without a runner (iteration 0)
//! nothing is shared.
//!
//! Within an iteration the rules change the e-graph, so a plan made earlier
//! in it may miss nodes added since. Its terms are still terms of their
//! classes (an e-graph only grows), so what is built from it is as sound
//! as from a fresh plan; there may only be fewer terms to choose from,
//! until the next iteration.
//!
//! A memo of which loops each rule had examined, skipping a loop whose
//! body and inputs were unchanged (a hash of the body's classes), was
//! tried and measured: while the algebraic rules are still growing the
//! bodies, nearly every loop's body changes in every iteration, and the
//! hashing cost more than the skips saved (the Scan rule cases took 6%
//! longer, chain-K no faster), so it is not kept.

use super::body::{Plan, Source};
use egg::Id;
use std::collections::HashMap;
use std::sync::Arc;

/// Body plans as memo keys: the sources and the roots (canonical).
type PlanKey = (Vec<Source>, Vec<(usize, Id)>);

/// The plans shared within a saturation iteration (see the module docs).
#[derive(Debug, Default)]
pub struct ScanMemo {
    /// The saturation iteration (0: no runner counts them, nothing is
    /// shared).
    generation: u64,
    /// The body plans made in this generation, by sources and roots.
    plans: HashMap<PlanKey, Arc<Plan>>,
    /// Plans made.
    pub made: usize,
    /// Plans asked for and found made already.
    pub reused: usize,
}

impl ScanMemo {
    /// Moves to saturation iteration `iteration`: plans of an earlier one
    /// are dropped.
    fn at(&mut self, iteration: u64) {
        if iteration != self.generation {
            self.generation = iteration;
            self.plans.clear();
        }
    }

    /// The plan made for `sources` and `roots` in saturation iteration
    /// `iteration`, if any.
    pub fn plan(
        &mut self,
        iteration: u64,
        sources: &[Source],
        roots: &[(usize, Id)],
    ) -> Option<Arc<Plan>> {
        self.at(iteration);
        if self.generation == 0 {
            return None;
        }
        let p = self.plans.get(&(sources.to_vec(), roots.to_vec())).cloned();
        if p.is_some() {
            self.reused += 1;
        }
        p
    }

    /// Keeps `plan`, made for `sources` and `roots` in iteration
    /// `iteration`, for the rest of that iteration.
    pub fn keep_plan(
        &mut self,
        iteration: u64,
        sources: &[Source],
        roots: &[(usize, Id)],
        plan: Arc<Plan>,
    ) {
        self.at(iteration);
        self.made += 1;
        if self.generation != 0 {
            self.plans.insert((sources.to_vec(), roots.to_vec()), plan);
        }
    }
}
