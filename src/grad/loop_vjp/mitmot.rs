//! The dual of a MIT-MOT state: its tape in the backward loop.
//!
//! Owns: [`MitmotDual`], how the backward loop carries the cotangent of a
//! forward MIT-MOT tape (its taps, its initial tape, one backward step's
//! writes, the gradient of the forward tape's init), and [`read_traces`],
//! the forward loop rebuilt with the values each step read. Must not:
//! build the backward loop itself (see [`super::scan_vjp`]).
//!
//! The forward loop (SPEC §1, [`OutputInfo::Mitmot`]): with in taps `I`,
//! out taps `O`, `m = min(I)`, `M = max(I ∪ O)` and `n` steps, step `i`
//! reads slot `i - m + τ` for each `τ ∈ I` (modulo the length `L`, which
//! never wraps once `L >= n + M - m`), then writes slot `i - m + σ` for
//! each `σ ∈ O`, replacing its value. In reverse, with `ct` the cotangent
//! of the tape, forward step `i` undone is: for each `σ ∈ O`, the written
//! value's cotangent is `ct[i - m + σ]` and that slot's cotangent becomes
//! zero (the value it held before the write does not reach the tape after
//! the loop through it); then for each `τ ∈ I`, `ct[i - m + τ]` gains the
//! step's contribution to its read (reads happen before writes, so they
//! are undone last). What is left in `ct` after step 0 is the cotangent of
//! the init tape.
//!
//! The backward loop runs `ct` reversed as a tape of its own: backward
//! step `j` undoes forward step `i = n - 1 - j`, and forward slot `s` is
//! reversed slot `L - 1 - s`. Its taps are `T' = -(O ∪ I)`, in and out
//! alike (so `min(T') = -M`): backward step `j` reaches slot
//! `j + M + τ'`, which is reversed forward slot `i - m - τ'` exactly when
//! `L = n + M - m`, the shortest tape the loop allows. The slots a step
//! reads at `-σ` give the written values' cotangents; the slots it writes
//! at `-τ` get `(old, or zero if τ ∈ O) + contribution if τ ∈ I`. A
//! longer tape (`L - (n + M - m)` known and positive) has slots no step
//! touches at its end: the backward tape leaves them out and their
//! cotangent passes straight through. When that excess is known only at
//! run time (a tape of 7 slots for `T` steps, or the backward loop of a
//! while loop, whose tape and steps both have the forward's executed
//! count), the backward tape is the first `n + M - m` rows cut by a loop
//! of `n` steps, and the init's gradient those rows written over the
//! cotangent after the loop ([`super::super::seq_rows`]): the forward
//! executor refuses a tape shorter than the shortest, so the excess is
//! never negative when this runs. A tape known to be too short is refused
//! ([`Unsupported::MitmotTapeLength`]).
//!
//! The value a step reads from a slot may be overwritten by a later step
//! (a mit-sot's dual with out taps (3, 1) writes each slot twice), so the
//! tape after the loop does not give it back: [`read_traces`] builds the
//! forward loop a second time with one more mapped output per in tap, the
//! value the step read. The expanded program then runs the forward loop
//! twice (a merge of the two loops is the optimizer's business).

use super::super::emit::Emit;
use super::super::error::{GradError, Unsupported};
use super::super::expand::copy_graph;
use super::super::seq_rows;
use crate::lang::{BodyParam, Dim, Graph, LoopSig, NodeId, Op, OutputInfo};

/// How the backward loop carries the cotangent of one forward MIT-MOT
/// tape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct MitmotDual {
    /// The forward in taps.
    in_taps: Vec<i64>,
    /// The forward out taps.
    out_taps: Vec<i64>,
    /// The backward tape's in and out taps, `-(O ∪ I)` in increasing
    /// order.
    pub taps: Vec<i64>,
    /// `M - m`: the shortest tape has `n + M - m` slots.
    extra: i64,
    /// The slots at the end of the forward tape that no step reads or
    /// writes, `L - (n + M - m)`; `None` when known only at run time.
    tail: Option<i64>,
}

impl MitmotDual {
    /// The dual of a MIT-MOT `info` whose tape has `tape_len` slots, over
    /// `steps` steps; `Err` with the reason when the tape is known to be
    /// shorter than the loop needs.
    pub fn plan(info: &OutputInfo, tape_len: &Dim, steps: &Dim) -> Result<MitmotDual, Unsupported> {
        let (OutputInfo::Mitmot { in_taps, out_taps }, Some(extra)) = (info, info.tape_extra())
        else {
            return Err(Unsupported::Loop(
                "a MIT-MOT dual of a state that is not a MIT-MOT",
            ));
        };
        let shortest = steps.add(&Dim::known(extra));
        let tail = match tape_len.sub(&shortest).as_known() {
            Some(t) if t < 0 => {
                return Err(Unsupported::MitmotTapeLength {
                    tape: tape_len.clone(),
                    shortest,
                })
            }
            known => known,
        };
        let mut taps: Vec<i64> = out_taps.iter().chain(in_taps).map(|t| -t).collect();
        taps.sort_unstable();
        taps.dedup();
        Ok(MitmotDual {
            in_taps: in_taps.clone(),
            out_taps: out_taps.clone(),
            taps,
            extra,
            tail,
        })
    }

    /// The backward loop's output for this dual.
    pub fn output_info(&self) -> OutputInfo {
        OutputInfo::Mitmot {
            in_taps: self.taps.clone(),
            out_taps: self.taps.clone(),
        }
    }

    /// The backward tape's in tap that reads the cotangent of the value
    /// the forward step wrote at out tap `sigma`.
    pub fn written_cot_tap(sigma: i64) -> i64 {
        -sigma
    }

    /// The backward tape before the loop: `direct` (the cotangent of the
    /// forward tape after the loop) without its untouched tail, reversed.
    /// `steps` is any value with a row per forward step (read only when
    /// the tail is known only at run time).
    pub fn init(&self, e: &mut Emit, direct: NodeId, steps: NodeId) -> Result<NodeId, GradError> {
        match self.tail {
            Some(0) => e.flip0(direct),
            // direct[L - tail - 1], ..., direct[0].
            Some(tail) => e.op(
                Op::Slice {
                    start: Some(-tail - 1),
                    stop: None,
                    step: -1,
                },
                &[direct],
            ),
            None => {
                let used = seq_rows::used_rows(e, direct, self.extra, false, steps)?;
                e.flip0(used)
            }
        }
    }

    /// What one backward step writes, one value per tap of
    /// [`Self::taps`]: `old[k]` is the slot's value read at `taps[k]`,
    /// `read_cot(τ)` the step's contribution to the forward read at in
    /// tap `τ` (`None`: none flows).
    pub fn step(
        &self,
        e: &mut Emit,
        old: &[NodeId],
        read_cot: impl Fn(i64) -> Option<NodeId>,
    ) -> Result<Vec<NodeId>, GradError> {
        let mut written = Vec::with_capacity(self.taps.len());
        for (&tap, &old) in self.taps.iter().zip(old) {
            let fwd_tap = -tap;
            // The slot's cotangent before the forward step: zero when the
            // step overwrote it, then what its read contributes.
            let kept = (!self.out_taps.contains(&fwd_tap)).then_some(old);
            let read = if self.in_taps.contains(&fwd_tap) {
                match read_cot(fwd_tap) {
                    Some(c) => {
                        let slot_t = e.ty(old)?;
                        Some(e.fit(c, &slot_t)?)
                    }
                    None => None,
                }
            } else {
                None
            };
            written.push(match (kept, read) {
                (Some(k), Some(r)) => e.add(k, r)?,
                (Some(k), None) => k,
                (None, Some(r)) => r,
                (None, None) => e.zeros_like(old)?,
            });
        }
        Ok(written)
    }

    /// The gradient of the forward tape's init, from the backward tape
    /// after the loop (`tape`) and the cotangent of the forward tape after
    /// the loop (`direct`, for the untouched tail).
    pub fn gradient(
        &self,
        e: &mut Emit,
        tape: NodeId,
        direct: NodeId,
    ) -> Result<NodeId, GradError> {
        let touched = e.flip0(tape)?;
        let tail = match self.tail {
            Some(0) => return Ok(touched),
            Some(tail) => tail,
            None => return seq_rows::overwrite_rows(e, touched, direct),
        };
        let rest = e.op(
            Op::Slice {
                start: Some(-tail),
                stop: None,
                step: 1,
            },
            &[direct],
        )?;
        e.op(Op::Concat(0), &[touched, rest])
    }
}

/// Loop `node` (signature `sig`, body `fbody`, outer arguments `args`)
/// built again with one more mapped output per in tap of each MIT-MOT
/// state: the value the step read there. Returns, per output of `sig`,
/// the new loop's outputs holding those values (one per in tap, in order,
/// a row per step in the order the steps run; empty for the other
/// outputs).
pub(super) fn read_traces(
    e: &mut Emit,
    sig: &LoopSig,
    fbody: &Graph,
    args: &[NodeId],
) -> Result<Vec<Vec<NodeId>>, GradError> {
    let params = sig.body_params();
    // Per MIT-MOT in tap: its output and the body parameter it reads.
    let mut reads: Vec<(usize, usize)> = Vec::new();
    for (k, o) in sig.outputs.iter().enumerate() {
        if !o.is_mitmot() {
            continue;
        }
        for tap in o.taps() {
            let p = params
                .iter()
                .position(|p| *p == BodyParam::State { out: k, tap })
                .ok_or_else(|| super::internal("a MIT-MOT in tap has no parameter"))?;
            reads.push((k, p));
        }
    }
    let mut traced = sig.clone();
    traced
        .outputs
        .extend(reads.iter().map(|_| OutputInfo::Nitsot));
    let outs = e.b.scan(traced, args, |body, ps| {
        let map = copy_graph(body, fbody, Some(ps))?;
        let mut results: Vec<NodeId> = fbody.outputs.iter().map(|o| map[o.0][0]).collect();
        results.extend(reads.iter().map(|&(_, p)| ps[p]));
        Ok::<_, GradError>(results)
    })?;
    let mut per_out: Vec<Vec<NodeId>> = vec![Vec::new(); sig.outputs.len()];
    for (r, &(k, _)) in reads.iter().enumerate() {
        let id = outs
            .get(sig.outputs.len() + r)
            .copied()
            .ok_or_else(|| super::internal("a read trace has no output"))?;
        per_out[k].push(id);
    }
    Ok(per_out)
}
