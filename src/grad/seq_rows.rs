//! The rows of a sequence that a loop reads, when their count is known
//! only at run time.
//!
//! A loop runs `n` steps, the fewest its sequences (or its `n_steps`)
//! allow, so it reads only the first `n + span` rows of a sequence read
//! at taps spanning `span` rows (its last ones when the loop goes
//! backwards). When `n` is an integer the backward loop slices those rows
//! with constant bounds; when it is known only at run time (sequences of
//! lengths `T` and `3`, or `T` and `T - 1`, an `n_steps` expression),
//! sizes in attributes cannot say it, so both directions are loops whose
//! step count is the forward loop's:
//!
//! - [`used_rows`]: the rows read, `seq[:span]` followed by a map over
//!   `seq` at tap `span` that runs as many steps as a forward output has
//!   rows (`n`), so `n + span` rows in all;
//! - [`place_rows`]: a gradient of those rows put back at their place in
//!   zeros of the sequence's shape, by [`overwrite_rows`]: a loop over the
//!   rows holding a MIT-MOT tape that starts as the zeros (step `i` writes
//!   slot `i`). A MIT-MOT dual whose untouched tail is known only at run
//!   time writes its backward tape over the cotangent the same way.
//!
//! Owns: those constructions. Must not: differentiate anything (see
//! [`super::loop_vjp`]).

use super::emit::Emit;
use super::error::GradError;
use crate::lang::{LoopSig, NodeId, Op, OutputInfo};

/// The rows of `seq` a loop of `n` steps reads at taps spanning `span`
/// rows: its first `n + span` rows, or its last ones when `back`.
/// `steps` is any value with `n` rows (an output of that loop).
pub fn used_rows(
    e: &mut Emit,
    seq: NodeId,
    span: i64,
    back: bool,
    steps: NodeId,
) -> Result<NodeId, GradError> {
    let seq = if back { e.flip0(seq)? } else { seq };
    let sig = LoopSig {
        sequences: vec![vec![span], vec![0]],
        outputs: vec![OutputInfo::Nitsot],
        n_non_seqs: 0,
        has_n_steps: false,
        go_backwards: false,
        keep: Vec::new(),
        until: false,
        as_list: Vec::new(),
    };
    let mapped =
        e.b.scan(sig, &[seq, steps], |_, ps| Ok::<_, GradError>(vec![ps[0]]))?;
    let mut rows = mapped[0];
    if span > 0 {
        let head = e.op(
            Op::Slice {
                start: Some(0),
                stop: Some(span),
                step: 1,
            },
            &[seq],
        )?;
        rows = e.op(Op::Concat(0), &[head, rows])?;
    }
    if back {
        rows = e.flip0(rows)?;
    }
    Ok(rows)
}

/// `g`, the gradient of the rows [`used_rows`] gave for `seq`, placed at
/// those rows in zeros of `seq`'s shape: the first rows, or the last ones
/// when `back`.
pub fn place_rows(e: &mut Emit, g: NodeId, seq: NodeId, back: bool) -> Result<NodeId, GradError> {
    let g = if back { e.flip0(g)? } else { g };
    let zeros = e.zeros_like(seq)?;
    let out = overwrite_rows(e, g, zeros)?;
    if back {
        return e.flip0(out);
    }
    Ok(out)
}

/// `base` with its first rows replaced by the rows of `g` (as many as `g`
/// has, known only at run time; `base` has at least as many).
pub fn overwrite_rows(e: &mut Emit, g: NodeId, base: NodeId) -> Result<NodeId, GradError> {
    let sig = LoopSig {
        sequences: vec![vec![0]],
        outputs: vec![OutputInfo::Mitmot {
            in_taps: vec![0],
            out_taps: vec![0],
        }],
        n_non_seqs: 0,
        has_n_steps: false,
        go_backwards: false,
        keep: Vec::new(),
        until: false,
        as_list: Vec::new(),
    };
    // Parameters: the row of `g`, the tape's slot (unread: the write
    // replaces it, and each slot is written once).
    let placed =
        e.b.scan(sig, &[g, base], |_, ps| Ok::<_, GradError>(vec![ps[0]]))?;
    Ok(placed[0])
}
