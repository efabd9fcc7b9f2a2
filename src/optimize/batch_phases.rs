//! The phases of a length-sorted batch (issue 41, `docs/lists.md`
//! "Batching"): with the sequences sorted by length, longest first, the
//! rows still running at step `t` are a prefix of the batch, so the
//! batched fold runs as `P` loops one after another, phase `p` running
//! steps `[s_p, s_{p+1})` on the first `k_p` rows (the sequences longer
//! than `s_p`). The batch shrinks as sequences end, and the work is close
//! to `Σ T_i` rows of the step instead of `T_max · B`.
//!
//! Owns: [`PhasePlan`] and its choice from the run-time lengths
//! ([`PhasePlan::choose`]: the boundaries minimizing a cost, by dynamic
//! programming over the distinct lengths). Must not: write the program
//! (`batch.rs` does) or pad values (`crate::exec::list::pad` does).

use super::batch::BatchCost;

/// How a batch of sequences of known lengths runs in phases.
#[derive(Clone, Debug, PartialEq)]
pub struct PhasePlan {
    /// The sequences' indices sorted by length, longest first (ties in
    /// input order): sorted row `r` is sequence `order[r]`.
    pub order: Vec<usize>,
    /// The step boundaries `0 = s_0 < s_1 < ... < s_P = T_max`.
    pub bounds: Vec<usize>,
    /// The rows `k_p` phase `p` runs: the sequences longer than `s_p`.
    pub rows: Vec<usize>,
    /// Whether a sequence ends strictly inside phase `p` (before
    /// `s_{p+1}`): its loop then masks each row past its end.
    pub masked: Vec<bool>,
    /// The cost of the plan ([`BatchCost`]'s units).
    pub cost: f64,
}

impl PhasePlan {
    /// The work one phase's loop costs besides its steps (starting the
    /// loop, its gradient's loop, passing the state on, setting the ended
    /// rows), in [`BatchCost`]'s units (about a nanosecond each). Measured
    /// on the Elman benchmark (`docs/lists.md`): an extra 0, 3·10⁵ or
    /// 3·10⁶ per phase (51, 15 or 5 phases) timed the same within the
    /// noise, 3·10⁷ (3 phases) was slower; this value sits in the flat
    /// part.
    pub const LOOP_OVERHEAD: f64 = 200_000.0;

    /// The cheapest plan for `lengths` under `cost`; `None` when no
    /// sequence has a step. The boundaries are taken among the distinct
    /// lengths (a boundary elsewhere only adds a loop), so a phase ending
    /// where its shortest rows end needs no mask.
    pub fn choose(cost: &BatchCost, lengths: &[usize]) -> Option<PhasePlan> {
        let mut order: Vec<usize> = (0..lengths.len()).collect();
        order.sort_by_key(|&b| std::cmp::Reverse(lengths[b]));
        let sorted: Vec<usize> = order.iter().map(|&b| lengths[b]).collect();
        let mut cuts: Vec<usize> = sorted.iter().copied().filter(|&t| t > 0).collect();
        cuts.push(0);
        cuts.sort_unstable();
        cuts.dedup();
        if cuts.len() < 2 {
            return None;
        }
        // best[j]: the cheapest phases covering steps [0, cuts[j]), and the
        // cut the last of them starts at.
        let mut best: Vec<(f64, usize)> = vec![(f64::INFINITY, 0); cuts.len()];
        best[0] = (0.0, 0);
        for j in 1..cuts.len() {
            for i in 0..j {
                let c = best[i].0 + phase_cost(cost, &sorted, cuts[i], cuts[j]);
                if c < best[j].0 {
                    best[j] = (c, i);
                }
            }
        }
        let mut at = cuts.len() - 1;
        let mut bounds = vec![cuts[at]];
        while at > 0 {
            at = best[at].1;
            bounds.push(cuts[at]);
        }
        bounds.reverse();
        let rows = bounds[..bounds.len() - 1]
            .iter()
            .map(|&s| running(&sorted, s))
            .collect();
        let masked = bounds
            .windows(2)
            .map(|w| ends_inside(&sorted, w[0], w[1]))
            .collect();
        Some(PhasePlan {
            order,
            bounds,
            rows,
            masked,
            cost: best[cuts.len() - 1].0,
        })
    }

    /// The number of phases.
    pub fn phases(&self) -> usize {
        self.rows.len()
    }

    /// The steps phase `p` runs.
    pub fn steps(&self, p: usize) -> usize {
        self.bounds[p + 1] - self.bounds[p]
    }

    /// The lengths in sorted order.
    pub fn sorted_lengths(&self, lengths: &[usize]) -> Vec<usize> {
        self.order.iter().map(|&b| lengths[b]).collect()
    }

    /// The sorted rows that end in phase `p` (from `s_p` to `s_{p+1}`,
    /// its last step included): the rows it runs that the next phase does
    /// not.
    pub fn ended(&self, p: usize) -> std::ops::Range<usize> {
        self.rows.get(p + 1).copied().unwrap_or(0)..self.rows[p]
    }
}

/// The sequences (sorted longest first) longer than `s`.
fn running(sorted: &[usize], s: usize) -> usize {
    sorted.partition_point(|&t| t > s)
}

/// Whether a sequence ends strictly between `a` and `b`.
fn ends_inside(sorted: &[usize], a: usize, b: usize) -> bool {
    sorted.iter().any(|&t| t > a && t < b)
}

/// The cost of one phase over steps `[a, b)`: the loop's overhead, and per
/// step the step's op dispatches (the mask's too when a row ends inside)
/// and its work on the running rows, a product over fewer rows reusing its
/// matrix less ([`BatchCost::row_cost`]).
fn phase_cost(cost: &BatchCost, sorted: &[usize], a: usize, b: usize) -> f64 {
    let k = running(sorted, a);
    let mask = if ends_inside(sorted, a, b) {
        cost.mask_ops
    } else {
        0.0
    };
    let step = (cost.ops + mask) * BatchCost::OP_OVERHEAD + k as f64 * cost.row_cost(k);
    PhasePlan::LOOP_OVERHEAD + (b - a) as f64 * step
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(ops: f64, products: f64) -> BatchCost {
        BatchCost {
            ops,
            mask_ops: 3.0,
            elementwise: 100.0,
            products,
        }
    }

    #[test]
    fn equal_lengths_run_in_one_unmasked_phase() {
        let p = PhasePlan::choose(&cost(5.0, 1e4), &[7; 5]).expect("steps");
        assert_eq!(p.bounds, [0, 7]);
        assert_eq!(p.rows, [5]);
        assert_eq!(p.masked, [false]);
        assert_eq!(p.ended(0), 0..5);
    }

    #[test]
    fn heavy_steps_split_at_every_length_and_light_ones_do_not() {
        let lens = [3, 0, 900, 400, 3];
        let heavy = PhasePlan::choose(&cost(5.0, 1e6), &lens).expect("steps");
        assert_eq!(heavy.order, [2, 3, 0, 4, 1]);
        assert_eq!(heavy.bounds, [0, 3, 400, 900]);
        assert_eq!(heavy.rows, [4, 2, 1]);
        assert_eq!(heavy.masked, [false, false, false]);
        assert_eq!(
            [heavy.ended(0), heavy.ended(1), heavy.ended(2)],
            [2..4, 1..2, 0..1]
        );
        // Two steps at most: a second loop costs more than it saves.
        let short = [1, 0, 2, 2, 1];
        let light = PhasePlan::choose(&cost(5.0, 0.0), &short).expect("steps");
        assert_eq!(light.order, [2, 3, 0, 4, 1]);
        assert_eq!(light.bounds, [0, 2]);
        assert_eq!(light.masked, [true]);
        assert_eq!(light.ended(0), 0..4);
    }

    #[test]
    fn a_differentiated_fold_splits_more_often() {
        // The Elman benchmark's shape of lengths: many, spread out.
        let lens: Vec<usize> = (0..64).map(|i| 10 + (i * 37) % 490).collect();
        let step = cost(6.0, 128.0 * 128.0);
        let fwd = PhasePlan::choose(&step, &lens).expect("steps");
        let bwd = PhasePlan::choose(&step.with_backward(), &lens).expect("steps");
        assert!(
            bwd.phases() > fwd.phases(),
            "{} {}",
            bwd.phases(),
            fwd.phases()
        );
        // Every phase plan covers every step of the longest sequence.
        let longest = lens.iter().max().copied();
        assert_eq!(bwd.bounds.last().copied(), longest);
    }

    #[test]
    fn no_steps_no_plan() {
        assert_eq!(PhasePlan::choose(&cost(5.0, 1e4), &[0, 0]), None);
        assert_eq!(PhasePlan::choose(&cost(5.0, 1e4), &[]), None);
    }
}
