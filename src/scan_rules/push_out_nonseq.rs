//! `scan-push-out-nonseq`: loop-invariant code motion.
//!
//! A body sub-term that reads only non-sequences (and constants) is the
//! same at every step: it is computed once before the loop and passed in as
//! a new non-sequence. An output that is wholly invariant is its value
//! repeated `n_steps` times — for state outputs too, which PyTensor gets
//! wrong (it gives them `n_steps` minus the init rows).
//!
//! A while loop is hoisted from too (research §5.2: hoisting invariant
//! work is allowed), its condition's invariant terms included; its step
//! count and condition do not change, and none of its outputs becomes a
//! repetition (their length is the steps that ran, known at run time).
//!
//! Does not fire on: a sub-term that reads a sequence or a state (it
//! changes from step to step); a bare constant (kept inside, where it
//! folds).

use super::hoist::{hoist, HoistAs};
use super::per_scan_rule_while_too;

/// The rule.
pub fn rewrite() -> super::ScanRewrite {
    per_scan_rule_while_too(
        "scan-push-out-nonseq",
        super::Reads::Loop,
        |egraph, scan, rule| hoist(egraph, scan, rule, HoistAs::NonSequence),
    )
}
