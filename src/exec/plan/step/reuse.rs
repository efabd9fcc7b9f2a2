//! Reusing the arena within a step: a value whose last reader has run
//! gives its region to a value computed later in the step.
//!
//! Owns: [`reuse`], the pass that lays out again the regions of the values
//! a step computes (after [`super::compile`] has placed every value in its
//! own region, in schedule order). A body of a few large elementwise
//! values — an LSTM cell's gates, a GRU's three products and their sums —
//! otherwise touches a new region of the arena for every value on every
//! step: more than the second-level cache holds, so every pass wrote and
//! read its values through the third. With regions reused, the step's
//! values fit in the few regions live at once, which stay in the cache from
//! one pass to the next and one step to the next.
//!
//! What moves: the destination of an instruction over slices that only it
//! writes (every such value, however small: one layout rule, which every
//! test case then exercises), that is not a body result, that no prologue
//! instruction reads, and that every reader reads after it
//! within the step, each read lying inside it. Everything else (constants,
//! the prologue's values, staged parameters, results, values written
//! element by element) stays, packed below the moved ones in the order it
//! had. A moved value's region is free once the instruction after its last
//! reader starts; an instruction's destination then never overlaps what it
//! reads, since its operands are live while it runs.
//!
//! Must not: change what any instruction computes (only where its values
//! are), or move a value any step reads before the step writes it.

use super::{overlaps, Instr, Loc, StepTape};
use crate::exec::aligned::LINE;

/// A value that moves: written by step instruction `ins` at `off` (`len`
/// elements), last read by step instruction `last`.
#[derive(Clone, Copy, Debug)]
struct Moved {
    ins: usize,
    off: usize,
    len: usize,
    last: usize,
}

/// Calls `f(index, inside)` for every value of `by_off` (sorted by offset,
/// disjoint) that `[o, o + l)` overlaps (`inside`: the range lies within
/// that value).
fn each_hit(by_off: &[Moved], o: usize, l: usize, f: &mut dyn FnMut(usize, bool)) {
    let end = o + l.max(1);
    let mut k = by_off.partition_point(|m| m.off + m.len <= o);
    while let Some(m) = by_off.get(k) {
        if m.off >= end {
            break;
        }
        f(k, m.off <= o && o + l <= m.off + m.len);
        k += 1;
    }
}

/// Lays the tape's step values out again (see the module docs); the tape
/// is left as it is when nothing moves or a new offset does not fit.
pub(super) fn reuse(tape: &mut StepTape) {
    let Some(moved) = movable(tape) else {
        return;
    };
    let Some((pool_at, layout)) = place(&moved) else {
        return;
    };
    // The offsets that stay are packed: each moved region leaves a gap,
    // closed by shifting what lies above it down; the pool follows.
    let mut by_off: Vec<(Moved, usize)> = moved.iter().copied().zip(layout).collect();
    by_off.sort_by_key(|(m, _)| m.off);
    // gone[k]: the elements of the moved regions below the k-th.
    let gone: Vec<usize> = std::iter::once(0)
        .chain(by_off.iter().scan(0, |sum, (m, _)| {
            *sum += m.len;
            Some(*sum)
        }))
        .collect();
    let kept_len = tape.arena.len() - gone[by_off.len()];
    let map = |o: usize| -> usize {
        let k = by_off.partition_point(|(m, _)| m.off + m.len <= o);
        match by_off.get(k) {
            Some(&(m, at)) if m.off <= o => kept_len + at + (o - m.off),
            _ => o - gone[k],
        }
    };
    let mut prologue = tape.prologue.clone();
    let mut instrs = tape.instrs.clone();
    for ins in prologue.iter_mut().chain(instrs.iter_mut()) {
        if ins.map_arena(&map).is_none() {
            return;
        }
    }
    let mut arena = vec![0.0; kept_len + pool_at];
    let mut from = 0;
    for (m, _) in &by_off {
        let (src, to) = (tape.arena.get(from..m.off), map(from));
        if let (Some(src), Some(dst)) = (src, arena.get_mut(to..to + (m.off - from))) {
            dst.copy_from_slice(src);
        }
        from = m.off + m.len;
    }
    if let (Some(src), Some(dst)) = (tape.arena.get(from..), arena.get_mut(map(from)..kept_len)) {
        dst.copy_from_slice(src);
    }
    tape.results = tape.results.iter().map(|&(o, l)| (map(o), l)).collect();
    tape.prologue = prologue;
    tape.instrs = instrs;
    tape.arena = arena.into();
}

/// Moves each packed `B` ([`Instr::PackB`]'s destination, which only its
/// products read) whose region does not start on a cache line to the end
/// of the arena, on one: the arena starts on a line, and the product
/// kernel loads a packed `B` a line at a time (see
/// [`crate::exec::aligned`]). Its old region stays, for what else a
/// reused region holds at other times.
pub(super) fn align_packed(tape: &mut StepTape) {
    let mut regions: Vec<(usize, usize)> = tape
        .prologue
        .iter()
        .chain(&tape.instrs)
        .filter_map(|ins| match *ins {
            Instr::PackB { dst, shape, .. } if !dst.is_multiple_of(LINE) => {
                Some((dst, shape.packed_b_span()))
            }
            _ => None,
        })
        .collect();
    // A region packed twice (a reused one) moves once.
    regions.sort_unstable();
    regions.dedup_by_key(|r| r.0);
    for (from, len) in regions {
        let to = tape.arena.len().div_ceil(LINE) * LINE;
        // Only the packing and its products move: the old region may be
        // shared (a pooled one) with values computed at other times.
        for ins in tape.prologue.iter_mut().chain(tape.instrs.iter_mut()) {
            match ins {
                Instr::PackB { dst, .. } if *dst == from => *dst = to,
                Instr::Gemm {
                    packed_b: Some(p), ..
                } if *p == from => *p = to,
                _ => {}
            }
        }
        tape.arena.resize(to + len);
    }
}

/// The step values that may move (see the module docs), in step order;
/// `None` when none may.
fn movable(tape: &StepTape) -> Option<Vec<Moved>> {
    let mut cands: Vec<Moved> = Vec::new();
    for (i, ins) in tape.instrs.iter().enumerate() {
        let Some(d) = ins.slice_destination() else {
            continue;
        };
        let mut regions = 0;
        let mut len = 0;
        ins.writes(&mut |o, l| {
            regions += 1;
            if o == d {
                len = l;
            }
        });
        let is_result = tape.results.iter().any(|&(o, l)| overlaps(o, l, d, len));
        if regions == 1 && len > 0 && !is_result {
            cands.push(Moved {
                ins: i,
                off: d,
                len,
                last: i,
            });
        }
    }
    if cands.is_empty() {
        return None;
    }
    // Regions two instructions write both stay: every candidate of a run
    // of overlapping ones is dropped, so the rest are disjoint.
    cands.sort_by_key(|m| m.off);
    let mut disjoint = Vec::with_capacity(cands.len());
    let mut k = 0;
    while k < cands.len() {
        let (mut end, mut j) = (cands[k].off + cands[k].len, k + 1);
        while j < cands.len() && cands[j].off < end {
            end = end.max(cands[j].off + cands[j].len);
            j += 1;
        }
        if j == k + 1 {
            disjoint.push(cands[k]);
        }
        k = j;
    }
    let cands = disjoint;
    // Each written by its instruction only.
    let mut ok = vec![true; cands.len()];
    let writes = |who: Option<usize>, ins: &Instr, ok: &mut [bool]| {
        ins.writes(&mut |o, l| {
            each_hit(&cands, o, l, &mut |k, _| {
                if who != Some(cands[k].ins) {
                    ok[k] = false;
                }
            })
        })
    };
    for ins in &tape.prologue {
        writes(None, ins, &mut ok);
    }
    for (j, ins) in tape.instrs.iter().enumerate() {
        writes(Some(j), ins, &mut ok);
    }
    // Read by the prologue: stays.
    for ins in &tape.prologue {
        ins.reads(&mut |loc, l| {
            if let Loc::Arena(o) = loc {
                each_hit(&cands, o, l, &mut |k, _| ok[k] = false);
            }
        });
    }
    // Each step read: inside the value, after its writer; the last one
    // ends the value's life.
    let mut last: Vec<usize> = cands.iter().map(|m| m.ins).collect();
    for (j, ins) in tape.instrs.iter().enumerate() {
        ins.reads(&mut |loc, l| {
            let Loc::Arena(o) = loc else { return };
            each_hit(&cands, o, l, &mut |k, inside| {
                if !inside || j <= cands[k].ins {
                    ok[k] = false;
                }
                last[k] = last[k].max(j);
            });
        });
    }
    let mut moved: Vec<Moved> = cands
        .iter()
        .zip(&ok)
        .zip(&last)
        .filter(|((_, &ok), _)| ok)
        .map(|((m, _), &last)| Moved { last, ..*m })
        .collect();
    moved.sort_by_key(|m| m.ins);
    (!moved.is_empty()).then_some(moved)
}

/// Places the moved values (in step order) in a pool, each in a free
/// block that fits it best once every value whose last reader ran before
/// its writer is freed. Returns the pool's length and each value's offset
/// in it.
fn place(moved: &[Moved]) -> Option<(usize, Vec<usize>)> {
    let mut free: Vec<(usize, usize)> = Vec::new();
    let mut live: Vec<(usize, usize, usize)> = Vec::new();
    let mut end = 0usize;
    let mut at = Vec::with_capacity(moved.len());
    for m in moved {
        // Free what no instruction from this one on reads.
        live.retain(|&(last, o, l)| {
            if last < m.ins {
                release(&mut free, o, l);
                false
            } else {
                true
            }
        });
        let best = free
            .iter()
            .enumerate()
            .filter(|(_, &(_, l))| l >= m.len)
            .min_by_key(|(_, &(_, l))| l)
            .map(|(k, _)| k);
        let o = match best {
            Some(k) => {
                let (o, l) = free[k];
                if l == m.len {
                    free.remove(k);
                } else {
                    free[k] = (o + m.len, l - m.len);
                }
                o
            }
            None => {
                let o = end;
                end = end.checked_add(m.len)?;
                o
            }
        };
        live.push((m.last, o, m.len));
        at.push(o);
    }
    Some((end, at))
}

/// Returns `[o, o + l)` to the free blocks (sorted by offset), merged with
/// its neighbours.
fn release(free: &mut Vec<(usize, usize)>, o: usize, l: usize) {
    let k = free.partition_point(|&(p, _)| p < o);
    free.insert(k, (o, l));
    if k + 1 < free.len() && free[k].0 + free[k].1 == free[k + 1].0 {
        free[k].1 += free[k + 1].1;
        free.remove(k + 1);
    }
    if k > 0 && free[k - 1].0 + free[k - 1].1 == free[k].0 {
        free[k - 1].1 += free[k].1;
        free.remove(k);
    }
}

#[cfg(test)]
mod tests {
    use super::super::run::{Bufs, ParamAt, Sources, Store};
    use super::super::{Cover, Operand};
    use super::*;
    use crate::lang::{BinaryOp, UnaryOp};

    const LEN: usize = 300;

    fn whole(loc: Loc) -> Operand {
        Operand {
            loc,
            cover: Cover::Full,
        }
    }

    fn binary(op: BinaryOp, a: Loc, b: Loc, dst: usize) -> Instr {
        Instr::Binary {
            op,
            a: whole(a),
            b: whole(b),
            dst,
            len: LEN,
            period: LEN,
        }
    }

    /// A chain of values over two parameters, each in its own region (as
    /// `compile` places them), the last one the body result; and a
    /// prologue value (read by the step) that must stay.
    fn chain() -> StepTape {
        let at = |k: usize| Loc::Arena(k * LEN);
        let p = |k: usize| Loc::Param(k, 0);
        let instrs = vec![
            // v1 = p0 · p1, v2 = tanh v1, v3 = v1 + v2, v4 = v3 · c,
            // v5 = v4 − v2, r = v5 + v3.
            binary(BinaryOp::Mul, p(0), p(1), LEN),
            Instr::Unary {
                op: UnaryOp::Tanh,
                src: at(1),
                dst: 2 * LEN,
                len: LEN,
            },
            binary(BinaryOp::Add, at(1), at(2), 3 * LEN),
            binary(BinaryOp::Mul, at(3), at(0), 4 * LEN),
            binary(BinaryOp::Sub, at(4), at(2), 5 * LEN),
            binary(BinaryOp::Add, at(5), at(3), 6 * LEN),
        ];
        let prologue = vec![binary(BinaryOp::Add, p(0), p(0), 0)];
        let direct = vec![None; instrs.len()];
        StepTape {
            prologue,
            instrs,
            direct,
            arena: vec![0.0; 7 * LEN].into(),
            results: vec![(6 * LEN, LEN)],
            param_sizes: vec![LEN, LEN],
            native_tried: false,
            native_loop: None,
            scratch: Vec::new(),
            failure: None,
        }
    }

    /// The body result of one step of `tape` (after its prologue).
    fn step(tape: &mut StepTape, p0: &[f64], p1: &[f64]) -> Vec<u64> {
        let non_seqs = [Some(p0), Some(p1)];
        let src = Sources {
            seqs: &[],
            inits: &[],
            non_seqs: &non_seqs,
            bufs: Bufs::Whole(&[]),
            loops: None,
        };
        let at = [0, 1].map(|j| ParamAt {
            store: Store::NonSeq(j),
            base: 0,
        });
        tape.run_prologue(&at, &src).expect("prologue");
        tape.run(&at, &src, &mut []).expect("step");
        let r = tape.result(0).expect("result");
        r.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn dead_values_give_their_regions_to_later_ones_with_the_same_bits() {
        let p0: Vec<f64> = (0..LEN).map(|i| (i as f64 * 0.37).sin() * 3.0).collect();
        let p1: Vec<f64> = (0..LEN).map(|i| (i as f64 * 0.11).cos() - 0.2).collect();
        let mut before = chain();
        let want = step(&mut before, &p0, &p1);
        let mut after = chain();
        reuse(&mut after);
        assert!(after.operands_clear_of_destinations());
        // v1, v2 and v3 are live together; v4 takes v1's region (v1's
        // last reader was v3); v5 needs a fourth, v2 and v4 being live
        // while it runs: four regions for five values, besides the
        // prologue's value and the result, which stay.
        assert_eq!(after.arena.len(), 6 * LEN);
        let dst = |i: usize| after.instrs[i].slice_destination();
        assert_eq!(dst(3), dst(0));
        assert_eq!(step(&mut after, &p0, &p1), want);
        // Twice: nothing of one step leaks into the next.
        assert_eq!(step(&mut after, &p0, &p1), want);
    }

    /// A product of two parameters against its `B` packed in the
    /// prologue at `packed_at`, then the product written after it.
    fn packed_product(packed_at: usize) -> StepTape {
        let (m, k, n) = (12, 20, 24);
        let shape = super::super::GemmShape {
            m,
            k,
            n,
            batch: 1,
            a_stride: 0,
            b_stride: 0,
        };
        let span = shape.packed_b_span();
        let out = packed_at + span;
        StepTape {
            prologue: vec![Instr::PackB {
                src: Loc::Param(1, 0),
                shape,
                dst: packed_at,
            }],
            instrs: vec![Instr::Gemm {
                a: Loc::Param(0, 0),
                b: Loc::Param(1, 0),
                shape,
                packed_b: Some(packed_at),
                dst: out,
                then: Box::new([]),
            }],
            direct: vec![None],
            arena: vec![0.0; out + m * n].into(),
            results: vec![(out, m * n)],
            param_sizes: vec![m * k, k * n],
            native_tried: false,
            native_loop: None,
            scratch: Vec::new(),
            failure: None,
        }
    }

    #[test]
    fn a_packed_b_is_moved_onto_a_cache_line_with_the_same_bits() {
        let a: Vec<f64> = (0..12 * 20).map(|i| (i as f64 * 0.37).sin()).collect();
        let b: Vec<f64> = (0..20 * 24).map(|i| (i as f64 * 0.11).cos()).collect();
        let packed_b_at = |t: &StepTape| match t.prologue[0] {
            Instr::PackB { dst, .. } => dst,
            _ => unreachable!("the prologue packs B"),
        };
        let mut aligned = packed_product(8);
        let want = step(&mut aligned, &a, &b);
        let len = aligned.arena.len();
        align_packed(&mut aligned);
        // Already on a line: nothing moves.
        assert_eq!((packed_b_at(&aligned), aligned.arena.len()), (8, len));
        let mut moved = packed_product(3);
        align_packed(&mut moved);
        let at = packed_b_at(&moved);
        assert!(at.is_multiple_of(8) && at >= 3 + 20 * 24, "moved to {at}");
        assert!(matches!(moved.instrs[0], Instr::Gemm { packed_b: Some(p), .. } if p == at));
        assert!((moved.arena.as_ptr() as usize).is_multiple_of(64));
        assert!(moved.operands_clear_of_destinations());
        assert_eq!(step(&mut moved, &a, &b), want);
    }

    #[test]
    fn a_value_written_twice_or_read_before_its_writer_stays() {
        // v3 written again by a later instruction (into its second half).
        let mut twice = chain();
        twice.instrs.push(Instr::Copy {
            src: Loc::Param(0, 0),
            dst: 3 * LEN + LEN / 2,
            len: LEN / 2,
        });
        twice.direct.push(None);
        let moved = movable(&twice).expect("some values move");
        assert!(moved.iter().all(|m| m.off != 3 * LEN));
        // v2 read by the first instruction, before v2 is written.
        let mut early = chain();
        early.instrs[0] = binary(BinaryOp::Mul, Loc::Arena(2 * LEN), Loc::Param(1, 0), LEN);
        let moved = movable(&early).expect("some values move");
        assert!(moved.iter().all(|m| m.off != 2 * LEN));
        // Two values whose regions overlap (v4's and v5's, v5 moved half a
        // value down): neither moves.
        let mut overlapping = chain();
        overlapping.instrs[4] = binary(
            BinaryOp::Sub,
            Loc::Arena(4 * LEN),
            Loc::Arena(2 * LEN),
            4 * LEN + LEN / 2,
        );
        let moved = movable(&overlapping).expect("some values move");
        assert!(moved.iter().all(|m| m.ins != 3 && m.ins != 4));
        // A value made of two halves (a concatenation, each half copied by
        // its own instruction) and read whole: neither half moves.
        let mut halves = chain();
        let half = LEN / 2;
        halves.instrs[3] = Instr::Copy {
            src: Loc::Param(0, 0),
            dst: 4 * LEN,
            len: half,
        };
        halves.instrs.insert(
            4,
            Instr::Copy {
                src: Loc::Param(1, 0),
                dst: 4 * LEN + half,
                len: LEN - half,
            },
        );
        halves.direct.push(None);
        let moved = movable(&halves).expect("some values move");
        assert!(moved
            .iter()
            .all(|m| m.off + m.len <= 4 * LEN || m.off >= 5 * LEN));
        let p0: Vec<f64> = (0..LEN).map(|i| i as f64 * 0.5 - 7.0).collect();
        let p1: Vec<f64> = (0..LEN).map(|i| (i as f64).sqrt()).collect();
        let want = step(&mut halves.clone(), &p0, &p1);
        reuse(&mut halves);
        assert_eq!(step(&mut halves, &p0, &p1), want);
    }
}
