//! `scan-push-out-seq`: work on the sequences done for all steps at once.
//!
//! A body sub-term that reads sequences and non-sequences but no state —
//! elementwise ops, `dot` / `matmul` with a non-sequence operand,
//! reductions, transposes, indexing of a step — is computed on the whole
//! (tap-sliced) sequence before the loop and passed in as a new sequence.
//! An output that is wholly such a term is that term: when every output
//! is, the loop disappears. Each sequence tap is sliced on its own, and a
//! state's init rows play no part (an output holds the steps only).
//!
//! Does not fire on: a sub-term that reads a state (a recurrence), or one
//! with a nested scan; sequences whose step slices need a symbolic bound.

use super::hoist::{hoist, HoistAs};
use super::per_scan_rule;

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule(
        "scan-push-out-seq",
        super::Reads::Loop,
        |egraph, scan, rule| hoist(egraph, scan, rule, HoistAs::Sequence),
    )
}
