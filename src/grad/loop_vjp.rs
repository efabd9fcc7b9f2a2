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
//! - each state's trace (its init rows, then its outputs) as a sequence
//!   read at the state's taps: the values the forward step read;
//! - each mapped output's cotangent as a sequence;
//! - one MIT-MOT per state (a sitsot: in taps (0, 1), out tap (1); a
//!   mitsot with taps T: in taps {0} ∪ -T, out taps -T): the cotangent of
//!   the trace, in reverse order, starting as the outputs' cotangents
//!   (zeros for the init rows); tap 0 is the complete cotangent of the
//!   step's result, each out tap adds the step's contribution to an
//!   earlier slot; the init's gradient is the tape's last rows;
//! - one mapped output per non-sequence (its per-step contribution,
//!   summed after the loop) and per sequence tap (placed back at the rows
//!   the tap read).
//!
//! Must not: differentiate ops outside a loop body (see [`super::vjp`]).
//! A sequence longer than a constant step count is read through the
//! slice of its used rows; its gradient is zero in the other rows (when
//! the step count is known only at run time, through the loops of
//! [`super::seq_rows`]).
//! Not yet handled (an error naming the case): outputs that keep only
//! their last steps, and loops that hold a MIT-MOT state (the gradient of
//! a backward loop).

use super::emit::Emit;
use super::error::{GradError, Unsupported};
use super::expand::copy_graph;
use super::reverse::sweep;
use super::seq_rows;
use crate::lang::{BodyParam, Builder, Dim, LangError, LoopSig, NodeId, Op, OutputInfo, Type};

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
        return Err(e.unsupported(
            "scan",
            Unsupported::Loop("outputs that keep their last steps"),
        ));
    }
    if sig.outputs.iter().any(|o| o.is_mitmot()) {
        return Err(e.unsupported("scan", Unsupported::Loop("loops with a MIT-MOT state")));
    }
    let n_dim = fwd.ty[0].shape[0].clone();
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
                let steps = proj_of(e.b, node, 0)?;
                seq_rows::used_rows(e, args[s], span, back, steps)?
            }
            None => args[s],
        };
        bargs.push(seq);
    }
    // 2. state traces (states carried by a tape, and integer states too:
    //    the step needs their values).
    let mut trace_seq: Vec<Option<usize>> = vec![None; sig.outputs.len()];
    for (k, o) in sig.outputs.iter().enumerate() {
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
    for (k, o) in sig.outputs.iter().enumerate() {
        if !is_tape[k] {
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
        for (k, &r) in results.iter().enumerate() {
            let cot = if let Some(t) = tape_out[k] {
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

/// The steps a sequence of static length `len` read at `taps` allows.
struct TapWindowExt;

impl TapWindowExt {
    fn avail(taps: &[i64], len: &Dim) -> Dim {
        crate::lang::TapWindow::of(taps).steps_in_dim(len)
    }
}

/// The slice of a sequence holding the `used` rows a loop reads: its
/// first rows, or its last ones when the loop goes backwards.
fn used_slice(used: i64, back: bool) -> Op {
    if back {
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

fn internal(msg: &str) -> GradError {
    GradError::Build(LangError::Type {
        span: Default::default(),
        op: "grad".into(),
        msg: format!("internal: {msg}"),
    })
}
