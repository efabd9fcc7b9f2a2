//! The gradient of a loop: the backward loop.
//!
//! Owns: [`scan_vjp`], which differentiates a forward `scan` with one
//! backward `scan` (research §1, §9.2). Backward step `i` handles forward
//! step `t = n-1-i`; its body rebuilds the forward step from what that
//! step read and differentiates it once (one reverse sweep over all the
//! step's results, [`super::reverse::sweep`]); nothing is stored but the
//! states' traces. Its parts:
//!
//! - the forward sequences, with their taps, in the other direction (a
//!   forward loop's backward loop goes backwards and vice versa), so each
//!   backward step reads the rows its forward step read;
//! - each sitsot's and mitsot's trace (its init rows, then its outputs)
//!   as a sequence read at the state's taps: the values the forward step
//!   read;
//! - each MIT-MOT's reads, one sequence per in tap, taken from the
//!   forward loop built a second time with those reads as mapped outputs
//!   (a MIT-MOT's tape after the loop does not hold what each step read;
//!   the expanded program runs that loop twice, see [`mitmot`]);
//! - each mapped output's cotangent as a sequence;
//! - one MIT-MOT per float state (a sitsot: in taps (0, 1), out tap (1);
//!   a mitsot with taps T: in taps {0} ∪ -T, out taps -T): the cotangent
//!   of the trace, in reverse order, starting as the outputs' cotangents
//!   (zeros for the init rows); tap 0 is the complete cotangent of the
//!   step's result, each out tap adds the step's contribution to an
//!   earlier slot; the init's gradient is the tape's last rows;
//! - one MIT-MOT per float MIT-MOT state (in and out taps -(O ∪ I)): the
//!   cotangent of its tape, reversed; each backward step takes the
//!   cotangents of the slots its forward step wrote, zeroes them, and adds
//!   the contributions of the forward step's reads ([`mitmot`]); the
//!   init tape's gradient is that tape after the loop, reversed. This is
//!   how second and higher order gradients go through loops;
//! - one mapped output per non-sequence (its per-step contribution,
//!   summed after the loop) and per sequence tap (placed back at the rows
//!   the tap read).
//!
//! Must not: differentiate ops outside a loop body (see [`super::vjp`]).
//! A sequence longer than a constant step count is read through the
//! slice of its used rows; its gradient is zero in the other rows (when
//! the step count is known only at run time, through the loops of
//! [`super::seq_rows`]). A loop whose outputs keep only their last steps
//! (`(keep K)`) is built again keeping all of them (`kept_vjp`). A
//! MIT-MOT tape whose length is related to the steps only at run time (a
//! while loop's backward loop, differentiated again) is cut with the
//! loops of [`super::seq_rows`] too ([`mitmot`]).

mod mitmot;

use super::emit::Emit;
use super::error::{GradError, Unsupported};
use super::expand::copy_graph;
use super::reverse::sweep;
use super::seq_rows;
use crate::lang::loop_type::step_count;
use crate::lang::{
    BodyParam, Builder, Dim, LangError, LoopSig, NodeId, Op, OutputInfo, Scalar, Type,
};
use mitmot::{read_traces, MitmotDual};

/// The cotangent contributions of loop `node`'s outer arguments, given the
/// cotangent of each of its outputs (`None`: the cost does not depend on
/// it); one entry per argument, `None` where none flows or `wanted` is
/// false.
pub fn scan_vjp(
    e: &mut Emit,
    node: NodeId,
    out_cots: &[Option<NodeId>],
    wanted: &[bool],
) -> Result<Vec<Option<NodeId>>, GradError> {
    let fwd = e.b.graph().node(node).clone();
    let Op::Scan(scan) = &fwd.op else {
        return Err(e.unsupported("scan", Unsupported::Loop("a node that is not a loop")));
    };
    let sig = scan.sig.clone();
    let fbody = scan.body.clone();
    let args = fwd.args.clone();
    if !sig.keep.is_empty() {
        return kept_vjp(e, &sig, &fbody, &args, out_cots, wanted);
    }
    // A while loop ran as many steps as its outputs hold (its step count
    // is a most): every sequence is cut to the rows those steps read, and
    // the backward loop runs over them. Its condition is not
    // differentiated (the count is piecewise constant in every input).
    let n_dim = if sig.until {
        Dim::Unknown
    } else {
        steps_of(e, &sig, &args)?
    };
    // An output with one row per step that ran.
    let count_out = sig.outputs.iter().position(|o| !o.is_mitmot()).unwrap_or(0);
    let back = sig.go_backwards;
    // Per sequence: `Some(rows)` when the loop reads only its first `rows`
    // rows (its last ones when the loop goes backwards), because the step
    // count is below what the sequence allows.
    // `Some(None)`: as many rows as the loop reads, known only at run time
    // (see `super::seq_rows`).
    let mut used_rows: Vec<Option<Option<i64>>> = Vec::with_capacity(sig.sequences.len());
    for (s, taps) in sig.sequences.iter().enumerate() {
        let len = e.ty(args[s])?.shape[0].clone();
        let avail = TapWindowExt::avail(taps, &len);
        if avail == n_dim && n_dim != Dim::Unknown {
            used_rows.push(None);
            continue;
        }
        let span = crate::lang::TapWindow::of(taps).span();
        used_rows.push(Some(n_dim.as_known().map(|n| n + span)));
    }
    // Per output: its type, whether it is a float state (carried by a tape).
    let out_tys: Vec<Type> = fwd.ty.clone();
    let init_args: Vec<Option<usize>> = (0..sig.outputs.len()).map(|k| sig.init_arg(k)).collect();
    let is_tape: Vec<bool> = sig
        .outputs
        .iter()
        .enumerate()
        .map(|(k, o)| o.is_state() && out_tys[k].dtype.is_float())
        .collect();
    // Per float MIT-MOT state: how the backward loop carries its tape.
    let mut duals: Vec<Option<MitmotDual>> = vec![None; sig.outputs.len()];
    for (k, o) in sig.outputs.iter().enumerate() {
        if o.is_mitmot() && is_tape[k] {
            let len = out_tys[k].shape.first().cloned().unwrap_or(Dim::Unknown);
            let dual = MitmotDual::plan(o, &len, &n_dim).map_err(|r| e.unsupported("scan", r))?;
            duals[k] = Some(dual);
        }
    }
    // Per MIT-MOT state, the values each step read at each in tap.
    let mitmot_reads = if sig.has_mitmot() {
        read_traces(e, &sig, &fbody, &args)?
    } else {
        vec![Vec::new(); sig.outputs.len()]
    };

    // ---- the backward loop's outer arguments
    let mut bseqs: Vec<Vec<i64>> = Vec::new();
    let mut bargs: Vec<NodeId> = Vec::new();
    // 1. forward sequences, same taps.
    for (s, taps) in sig.sequences.iter().enumerate() {
        bseqs.push(taps.clone());
        let seq = match used_rows[s] {
            Some(Some(used)) => e.op(used_slice(used, back), &[args[s]])?,
            Some(None) => {
                let span = crate::lang::TapWindow::of(taps).span();
                let steps = proj_of(e.b, node, count_out)?;
                seq_rows::used_rows(e, args[s], span, back, steps)?
            }
            None => args[s],
        };
        bargs.push(seq);
    }
    // 2. state traces (states carried by a tape, and integer states too:
    //    the step needs their values).
    let mut trace_seq: Vec<Option<usize>> = vec![None; sig.outputs.len()];
    // A MIT-MOT's reads: one sequence per in tap, read at tap 0.
    let mut read_seq: Vec<Vec<usize>> = vec![Vec::new(); sig.outputs.len()];
    for (k, reads) in mitmot_reads.iter().enumerate() {
        for &r in reads {
            let r = if back { e.flip0(r)? } else { r };
            read_seq[k].push(bseqs.len());
            bseqs.push(vec![0]);
            bargs.push(r);
        }
    }
    for (k, o) in sig.outputs.iter().enumerate() {
        if o.is_mitmot() {
            continue;
        }
        let Some(ia) = init_args[k] else { continue };
        let init = args[ia];
        let rows = match o {
            OutputInfo::Sitsot => e.expand_dims(init, 0)?,
            _ => init,
        };
        let proj = proj_of(e.b, node, k)?;
        let mut r = e.op(Op::Concat(0), &[rows, proj])?;
        let taps = o.taps();
        let read_taps = if back {
            r = e.flip0(r)?;
            taps.iter().map(|t| -t).collect()
        } else {
            taps
        };
        trace_seq[k] = Some(bseqs.len());
        bseqs.push(read_taps);
        bargs.push(r);
    }
    // 3. cotangents of mapped outputs.
    let mut cot_seq: Vec<Option<usize>> = vec![None; sig.outputs.len()];
    for (k, o) in sig.outputs.iter().enumerate() {
        if let (OutputInfo::Nitsot, Some(c)) = (o, out_cots.get(k).copied().flatten()) {
            let c = if back { e.flip0(c)? } else { c };
            cot_seq[k] = Some(bseqs.len());
            bseqs.push(vec![0]);
            bargs.push(c);
        }
    }
    // 4. one tape per float state: the cotangent of the trace, reversed.
    let mut bouts: Vec<OutputInfo> = Vec::new();
    let mut tape_out: Vec<Option<usize>> = vec![None; sig.outputs.len()];
    // Per MIT-MOT dual, the cotangent of the forward tape after the loop.
    let mut tape_direct: Vec<Option<NodeId>> = vec![None; sig.outputs.len()];
    for (k, o) in sig.outputs.iter().enumerate() {
        if !is_tape[k] {
            continue;
        }
        if let Some(dual) = &duals[k] {
            let direct = match out_cots.get(k).copied().flatten() {
                Some(c) => c,
                None => e.zeros_like(proj_of(e.b, node, k)?)?,
            };
            // A row per forward step: the trace of the tape's first read.
            let steps = mitmot_reads[k]
                .first()
                .copied()
                .ok_or_else(|| internal("a MIT-MOT state without an in tap"))?;
            let tape = dual.init(e, direct, steps)?;
            tape_direct[k] = Some(direct);
            tape_out[k] = Some(bouts.len());
            bouts.push(dual.output_info());
            bargs.push(tape);
            continue;
        }
        let depth = o.window().depth() as i64;
        let mut rows_t = out_tys[k].clone();
        rows_t.shape[0] = Dim::known(depth);
        let tail = e.zeros(&rows_t)?;
        let direct = match out_cots.get(k).copied().flatten() {
            Some(c) => e.flip0(c)?,
            None => e.zeros_like(proj_of(e.b, node, k)?)?,
        };
        let tape = e.op(Op::Concat(0), &[direct, tail])?;
        let mut neg: Vec<i64> = o.taps().iter().map(|t| -t).collect();
        neg.sort_unstable();
        let mut in_taps = vec![0];
        in_taps.extend(neg.iter().copied());
        tape_out[k] = Some(bouts.len());
        bouts.push(OutputInfo::Mitmot {
            in_taps,
            out_taps: neg,
        });
        bargs.push(tape);
    }
    // 4b. a sitsot accumulator (from zeros) per wanted float non-sequence
    //     whose type has a size known only at run time: a loop without
    //     steps could not give the empty mapped output of that shape.
    let float_wanted = |e: &Emit, a: usize| -> Result<bool, GradError> {
        Ok(wanted.get(a).copied().unwrap_or(false) && e.ty(args[a])?.dtype.is_float())
    };
    let ns_args: Vec<usize> = sig.non_seq_args().collect();
    let mut ns_acc: Vec<Option<NodeId>> = vec![None; ns_args.len()];
    for (j, &a) in ns_args.iter().enumerate() {
        if float_wanted(e, a)? && e.ty(args[a])?.shape.contains(&Dim::Unknown) {
            let zeros = e.zeros_like(args[a])?;
            ns_acc[j] = Some(zeros);
            bargs.push(zeros);
        }
    }
    // 5. non-sequences, passed on.
    for &a in &ns_args {
        bargs.push(args[a]);
    }
    if sig.until && bseqs.is_empty() && !bouts.is_empty() {
        return Err(e.unsupported(
            "scan",
            Unsupported::Loop(
                "a while loop whose backward loop has no sequence to count its steps",
            ),
        ));
    }
    let has_n_steps = sig.n_steps_arg().is_some() && bseqs.is_empty();
    if has_n_steps {
        if let Some(k) = sig.n_steps_arg() {
            bargs.push(args[k]);
        }
    }
    // Outputs: the accumulators (after the tapes, as their inits are),
    // mapped outputs per other wanted float non-sequence, per wanted
    // float sequence tap.
    let mut ns_out: Vec<Option<usize>> = vec![None; ns_args.len()];
    for (j, acc) in ns_acc.iter().enumerate() {
        if acc.is_some() {
            ns_out[j] = Some(bouts.len());
            bouts.push(OutputInfo::Sitsot);
        }
    }
    for (j, &a) in ns_args.iter().enumerate() {
        if ns_acc[j].is_none() && float_wanted(e, a)? {
            ns_out[j] = Some(bouts.len());
            bouts.push(OutputInfo::Nitsot);
        }
    }
    let mut seq_out: Vec<Vec<Option<usize>>> = Vec::new();
    for (s, taps) in sig.sequences.iter().enumerate() {
        let w = float_wanted(e, s)?;
        seq_out.push(
            taps.iter()
                .map(|_| {
                    w.then(|| {
                        bouts.push(OutputInfo::Nitsot);
                        bouts.len() - 1
                    })
                })
                .collect(),
        );
    }
    if bouts.is_empty() {
        return Ok(vec![None; args.len()]);
    }
    let bsig = LoopSig {
        sequences: bseqs.clone(),
        outputs: bouts.clone(),
        n_non_seqs: ns_args.len(),
        has_n_steps,
        go_backwards: !back,
        keep: Vec::new(),
        until: false,
        as_list: Vec::new(),
    };
    let fparams = sig.body_params();
    let span = e.span;
    let bparam_layout = bsig.body_params();
    let outs = e.b.scan(bsig, &bargs, |body, ps| {
        // Where each backward parameter is.
        let find = |want: BodyParam| -> Option<NodeId> {
            bparam_layout.iter().position(|p| *p == want).map(|i| ps[i])
        };
        // The forward step's parameters, from the backward ones.
        let mut fps: Vec<NodeId> = Vec::with_capacity(fparams.len());
        for p in &fparams {
            let id = match *p {
                BodyParam::Sequence { seq, tap } => find(BodyParam::Sequence { seq, tap }),
                BodyParam::State { out, tap } if sig.outputs[out].is_mitmot() => {
                    let ti = sig.outputs[out].taps().iter().position(|t| *t == tap);
                    ti.and_then(|ti| read_seq[out].get(ti))
                        .and_then(|&s| find(BodyParam::Sequence { seq: s, tap: 0 }))
                }
                BodyParam::State { out, tap } => {
                    let s = trace_seq[out];
                    let tap = if back { -tap } else { tap };
                    s.and_then(|s| find(BodyParam::Sequence { seq: s, tap }))
                }
                BodyParam::NonSequence(j) => find(BodyParam::NonSequence(j)),
            };
            fps.push(id.ok_or_else(|| internal("a forward parameter has no backward one"))?);
        }
        let map = copy_graph(body, &fbody, Some(&fps))?;
        let results: Vec<NodeId> = fbody.outputs.iter().map(|o| map[o.0][0]).collect();
        // The cotangent of each forward result.
        let mut seeds = Vec::new();
        for (bo, &r) in sig.body_outputs().iter().zip(&results) {
            let k = bo.out;
            let cot = if let (Some(t), Some(sigma)) = (tape_out[k], bo.tap) {
                let tap = MitmotDual::written_cot_tap(sigma);
                find(BodyParam::State { out: t, tap })
            } else if let Some(t) = tape_out[k] {
                find(BodyParam::State { out: t, tap: 0 })
            } else {
                cot_seq[k].and_then(|s| find(BodyParam::Sequence { seq: s, tap: 0 }))
            };
            if let Some(c) = cot {
                seeds.push((r, c));
            }
        }
        let found = sweep(body, &seeds, &fps, span)?;
        let mut e = Emit { b: body, span };
        let mut outs: Vec<NodeId> = Vec::new();
        // Tapes: old slot + the contribution to each state tap.
        for (k, o) in sig.outputs.iter().enumerate() {
            let Some(t) = tape_out[k] else { continue };
            if let Some(dual) = &duals[k] {
                let mut old = Vec::with_capacity(dual.taps.len());
                for &tap in &dual.taps {
                    old.push(
                        find(BodyParam::State { out: t, tap })
                            .ok_or_else(|| internal("a tape tap has no parameter"))?,
                    );
                }
                let read_cot = |tau: i64| {
                    fparams
                        .iter()
                        .position(|p| *p == BodyParam::State { out: k, tap: tau })
                        .and_then(|i| found[i])
                };
                outs.extend(dual.step(&mut e, &old, read_cot)?);
                continue;
            }
            let mut written = Vec::new();
            let mut neg: Vec<i64> = o.taps().iter().map(|t| -t).collect();
            neg.sort_unstable();
            for &nt in &neg {
                let old = find(BodyParam::State { out: t, tap: nt })
                    .ok_or_else(|| internal("a tape tap has no parameter"))?;
                let pi = fparams
                    .iter()
                    .position(|p| *p == BodyParam::State { out: k, tap: -nt });
                let c = pi.and_then(|i| found[i]);
                written.push(match c {
                    Some(c) => {
                        let c = e.fit(c, &e.ty(old)?)?;
                        e.add(old, c)?
                    }
                    None => old,
                });
            }
            // A mitmot takes one result per out tap, tapes first, in order.
            outs.extend(written);
        }
        // Non-sequences, then sequence taps: the step's contribution.
        for accumulate in [true, false] {
            for (j, slot) in ns_out.iter().enumerate() {
                let Some(slot) = slot else { continue };
                if ns_acc[j].is_some() != accumulate {
                    continue;
                }
                let pi = fparams.iter().position(|p| *p == BodyParam::NonSequence(j));
                let x = pi
                    .map(|i| fps[i])
                    .ok_or_else(|| internal("a non-sequence has no parameter"))?;
                let c = contribution(&mut e, pi.and_then(|i| found[i]), x)?;
                outs.push(if accumulate {
                    let acc = find(BodyParam::State {
                        out: *slot,
                        tap: -1,
                    })
                    .ok_or_else(|| internal("an accumulator has no parameter"))?;
                    e.add(acc, c)?
                } else {
                    c
                });
            }
        }
        for (s, taps) in sig.sequences.iter().enumerate() {
            for (ti, &tap) in taps.iter().enumerate() {
                if seq_out[s][ti].is_none() {
                    continue;
                }
                let pi = fparams
                    .iter()
                    .position(|p| *p == BodyParam::Sequence { seq: s, tap });
                let x = pi
                    .map(|i| fps[i])
                    .ok_or_else(|| internal("a sequence tap has no parameter"))?;
                outs.push(contribution(&mut e, pi.and_then(|i| found[i]), x)?);
            }
        }
        Ok::<_, GradError>(outs)
    })?;
    // ---- from the backward loop's outputs to the arguments' cotangents
    let mut res: Vec<Option<NodeId>> = vec![None; args.len()];
    for (k, o) in sig.outputs.iter().enumerate() {
        let (Some(t), Some(ia)) = (tape_out[k], init_args[k]) else {
            continue;
        };
        if !wanted.get(ia).copied().unwrap_or(false) {
            continue;
        }
        let tape = outs[t];
        let g = match o {
            OutputInfo::Mitmot { .. } => {
                let (Some(dual), Some(direct)) = (&duals[k], tape_direct[k]) else {
                    return Err(internal("a MIT-MOT tape without its dual"));
                };
                dual.gradient(e, tape, direct)?
            }
            OutputInfo::Sitsot => {
                let last = e.int(-1)?;
                e.op(Op::Index, &[tape, last])?
            }
            _ => {
                let d = o.window().depth() as i64;
                let rows = e.op(
                    Op::Slice {
                        start: Some(-d),
                        stop: None,
                        step: 1,
                    },
                    &[tape],
                )?;
                e.flip0(rows)?
            }
        };
        let it = e.ty(args[ia])?;
        res[ia] = Some(e.fit(g, &it)?);
    }
    for (j, &a) in ns_args.iter().enumerate() {
        if let Some(o) = ns_out[j] {
            let s = match ns_acc[j] {
                // The init, then the running sums: the last row.
                Some(zeros) => {
                    let first = e.expand_dims(zeros, 0)?;
                    let rows = e.op(Op::Concat(0), &[first, outs[o]])?;
                    let last = e.int(-1)?;
                    e.op(Op::Index, &[rows, last])?
                }
                None => e.sum(outs[o], Some(0))?,
            };
            let at = e.ty(args[a])?;
            res[a] = Some(e.fit(s, &at)?);
        }
    }
    for (s, taps) in sig.sequences.iter().enumerate() {
        let st = e.ty(args[s])?;
        let window = sig.seq_window(s);
        let mut total: Option<NodeId> = None;
        for (ti, &tap) in taps.iter().enumerate() {
            let Some(o) = seq_out[s][ti] else { continue };
            // Backward step i is forward step n-1-i: in row order, the
            // rows are reversed unless the forward loop went backwards.
            let rows = if back { outs[o] } else { e.flip0(outs[o])? };
            let before = window.offset(tap);
            let after = window.span() - before;
            let mut parts = Vec::new();
            for (count, at_end) in [(before, false), (after, true)] {
                if count > 0 {
                    let mut t = st.clone();
                    t.shape[0] = Dim::known(count);
                    let z = e.zeros(&t)?;
                    parts.push((z, at_end));
                }
            }
            let mut pieces: Vec<NodeId> = parts.iter().filter(|p| !p.1).map(|p| p.0).collect();
            pieces.push(rows);
            pieces.extend(parts.iter().filter(|p| p.1).map(|p| p.0));
            let full = if pieces.len() == 1 {
                rows
            } else {
                e.op(Op::Concat(0), &pieces)?
            };
            total = Some(match total {
                Some(t) => e.add(t, full)?,
                None => full,
            });
        }
        if let Some(t) = total {
            res[s] = Some(match used_rows[s] {
                // The rows the loop did not read get zero gradient.
                Some(None) => {
                    let placed = seq_rows::place_rows(e, t, args[s], back)?;
                    e.fit(placed, &st)?
                }
                Some(Some(used)) => {
                    let mut ut = st.clone();
                    ut.shape[0] = Dim::known(used);
                    let t = e.fit(t, &ut)?;
                    let z = e.zeros_like(args[s])?;
                    let Op::Slice { start, stop, step } = used_slice(used, back) else {
                        return Err(internal("the used rows are not a slice"));
                    };
                    e.op(Op::IncSlice { start, stop, step }, &[z, t])?
                }
                None => e.fit(t, &st)?,
            });
        }
    }
    Ok(res)
}

/// The gradient of a loop some of whose outputs keep only their last `K`
/// steps (`(keep K)`): the loop is built again keeping every step (the
/// backward loop reads whole traces), each kept output's cotangent is
/// placed in the last rows of zeros of the whole output's shape (`K` rows,
/// or all when the loop ran fewer steps, as the executors keep them), and
/// that loop is differentiated ([`scan_vjp`]).
fn kept_vjp(
    e: &mut Emit,
    sig: &LoopSig,
    fbody: &crate::lang::Graph,
    args: &[NodeId],
    out_cots: &[Option<NodeId>],
    wanted: &[bool],
) -> Result<Vec<Option<NodeId>>, GradError> {
    let mut whole = sig.clone();
    whole.keep = Vec::new();
    let outs = e.b.scan(whole, args, |body, ps| {
        let map = copy_graph(body, fbody, Some(ps))?;
        Ok::<_, GradError>(fbody.outputs.iter().map(|o| map[o.0][0]).collect())
    })?;
    let node = outs
        .first()
        .and_then(|&o| e.b.graph().node(o).args.first().copied())
        .ok_or_else(|| internal("a loop without outputs"))?;
    let mut cots = Vec::with_capacity(out_cots.len());
    for (k, c) in out_cots.iter().enumerate() {
        cots.push(match (c, sig.kept(k)) {
            (Some(c), Some(kept)) => {
                let kept = i64::try_from(kept).map_err(|_| internal("a kept count past i64"))?;
                let z = e.zeros_like(outs[k])?;
                let at_end = Op::IncSlice {
                    start: Some(-kept),
                    stop: None,
                    step: 1,
                };
                Some(e.op(at_end, &[z, *c])?)
            }
            (c, _) => *c,
        });
    }
    scan_vjp(e, node, &cots, wanted)
}

/// The step count of loop `sig` with outer arguments `args`, as the
/// builder typed it: the `n_steps` literal or size symbol, else what the
/// sequences allow ([`Dim::Unknown`] when not known statically).
fn steps_of(e: &Emit, sig: &LoopSig, args: &[NodeId]) -> Result<Dim, GradError> {
    let mut lens = Vec::with_capacity(sig.n_seqs());
    for s in sig.seq_args() {
        lens.push(
            e.ty(args[s])?
                .shape
                .first()
                .cloned()
                .unwrap_or(Dim::Unknown),
        );
    }
    let n_steps = sig
        .n_steps_arg()
        .map(|k| match &e.b.graph().node(args[k]).op {
            Op::Literal(Scalar::I64(v)) => Dim::known(*v),
            Op::Size(s) => Dim::sym(s),
            _ => Dim::Unknown,
        });
    step_count(sig, &lens, n_steps).map_err(|r| {
        GradError::Build(LangError::Loop {
            span: e.span,
            op: "scan".to_string(),
            reason: Box::new(r),
        })
    })
}

/// The steps a sequence of static length `len` read at `taps` allows.
struct TapWindowExt;

impl TapWindowExt {
    fn avail(taps: &[i64], len: &Dim) -> Dim {
        crate::lang::TapWindow::of(taps).steps_in_dim(len)
    }
}

/// The slice of a sequence holding the `used` rows a loop reads: its
/// first rows, or its last ones when the loop goes backwards (none for
/// `n_steps 0`: `[-0:]` would be every row).
fn used_slice(used: i64, back: bool) -> Op {
    if back && used > 0 {
        Op::Slice {
            start: Some(-used),
            stop: None,
            step: 1,
        }
    } else {
        Op::Slice {
            start: Some(0),
            stop: Some(used),
            step: 1,
        }
    }
}

/// A step's contribution to parameter `x`: `c` fitted to `x`'s type, or
/// zeros when none flows.
fn contribution(e: &mut Emit, c: Option<NodeId>, x: NodeId) -> Result<NodeId, GradError> {
    let xt = e.ty(x)?;
    match c {
        Some(c) => e.fit(c, &xt),
        None => e.zeros_like(x),
    }
}

/// The projection of output `k` of loop `node` (the node right after it
/// that reads output `k`).
fn proj_of(b: &Builder, node: NodeId, k: usize) -> Result<NodeId, GradError> {
    let g = b.graph();
    g.nodes
        .iter()
        .enumerate()
        .skip(node.0 + 1)
        .find(|(_, n)| matches!(n.op, Op::Proj(j) if j == k) && n.args.first() == Some(&node))
        .map(|(i, _)| NodeId(i))
        .ok_or_else(|| internal("a loop output has no projection"))
}

pub(super) fn internal(msg: &str) -> GradError {
    GradError::Build(LangError::Type {
        span: Default::default(),
        op: "grad".into(),
        msg: format!("internal: {msg}"),
    })
}

#[cfg(test)]
mod tests {
    use super::mitmot::MitmotDual;
    use crate::grad::Unsupported;
    use crate::lang::{Dim, OutputInfo};

    fn mitmot(in_taps: &[i64], out_taps: &[i64]) -> OutputInfo {
        OutputInfo::Mitmot {
            in_taps: in_taps.to_vec(),
            out_taps: out_taps.to_vec(),
        }
    }

    #[test]
    fn a_mitmot_dual_reads_and_writes_every_slot_its_forward_step_touches() {
        let t = Dim::sym("T");
        // A sitsot's dual (in taps (0 1), out tap (1)) on T+1 slots: its
        // own dual reads and writes at (-1 0), as PyTensor's second order.
        let d = MitmotDual::plan(&mitmot(&[0, 1], &[1]), &t.add(&Dim::known(1)), &t).unwrap();
        assert_eq!(d.taps, vec![-1, 0]);
        // A mitsot's dual (in taps (0 3 1), out taps (3 1)) on T+3 slots.
        let d = MitmotDual::plan(&mitmot(&[0, 3, 1], &[3, 1]), &t.add(&Dim::known(3)), &t);
        assert_eq!(d.unwrap().taps, vec![-3, -1, 0]);
        // Out taps that are not in taps get a backward tap (to write zero).
        let d = MitmotDual::plan(&mitmot(&[-1, 1], &[0, 2]), &t.add(&Dim::known(3)), &t);
        assert_eq!(d.unwrap().taps, vec![-2, -1, 0, 1]);
        // A longer tape by a known number of slots is fine, and so is one
        // whose excess is known only at run time (the forward executor
        // refuses a tape that is too short); one known to be shorter is
        // refused.
        assert!(MitmotDual::plan(&mitmot(&[0], &[2]), &Dim::known(9), &Dim::known(4)).is_ok());
        for len in [Dim::sym("S"), Dim::known(8), Dim::Unknown] {
            assert!(MitmotDual::plan(&mitmot(&[0, 1], &[1]), &len, &t).is_ok());
        }
        for (len, steps) in [(t.clone(), t.clone()), (Dim::known(4), Dim::known(4))] {
            let e = MitmotDual::plan(&mitmot(&[0, 1], &[1]), &len, &steps).unwrap_err();
            assert_eq!(
                e,
                Unsupported::MitmotTapeLength {
                    tape: len.clone(),
                    shortest: steps.add(&Dim::known(1)),
                }
            );
        }
    }
}
