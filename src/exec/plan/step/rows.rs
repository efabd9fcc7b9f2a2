//! Gathers that read whole rows at a fixed stride: an LSTM's gate
//! `take preact k 1` of a packed `(M, 4, N)` pre-activation is `M` rows of
//! `N` elements, `4N` apart. Such a gather is an [`Instr::Rows`], which
//! copies row by row instead of reading an index per element; and when
//! the only reader of its result is an activation (the gate's sigmoid or
//! tanh), the two are one instruction that applies the activation to
//! each row where it lies, one pass over the gate instead of two.
//!
//! Owns: [`Rows`] (the pattern, found in a gather's index by
//! [`Rows::of_index`]), the pass that merges a row gather with the unary
//! instruction that reads it ([`fuse_unary`]), and running one
//! ([`run`]). Must not: change an element's value: a row copied is the
//! same elements, and the activation of an element does not depend on
//! the elements beside it (`vmath`'s slice kernels return what the
//! scalar function returns, element by element), so rows give the bits
//! of the whole slice.

use super::{overlaps, Instr, Loc};
use crate::exec::ops::elementwise::Float;
use crate::lang::UnaryOp;

/// The shortest row worth a row copy: below it a gather's index is as
/// quick, and a broadcast column (rows of one element) stays a gather.
const MIN_ROW: usize = 4;

/// `rows` runs of `row_len` consecutive source elements, the first from
/// element `first` on, each `stride` elements after the one before, laid
/// end to end (`row_len ≥ 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rows {
    /// The source element the first row starts at.
    pub first: usize,
    /// Elements from one row's start to the next one's.
    pub stride: usize,
    /// Elements per row.
    pub row_len: usize,
    /// How many rows.
    pub rows: usize,
}

impl Rows {
    /// The elements laid end to end.
    pub(crate) fn len(&self) -> usize {
        self.rows * self.row_len
    }

    /// The source elements it reaches: up to the end of its last row.
    pub(crate) fn span(&self) -> usize {
        match self.rows {
            0 => 0,
            r => self.first + (r - 1) * self.stride + self.row_len,
        }
    }

    /// `index` as rows, when it is that: its first run of consecutive
    /// elements (at least [`MIN_ROW`]) sets the row length, which must
    /// divide its length, and every later run starts `stride` after the
    /// one before.
    pub(crate) fn of_index(index: &[usize]) -> Option<Rows> {
        let first = *index.first()?;
        let row_len = 1 + index
            .windows(2)
            .take_while(|w| w[0].checked_add(1) == Some(w[1]))
            .count();
        if row_len < MIN_ROW || !index.len().is_multiple_of(row_len) {
            return None;
        }
        let rows = index.len() / row_len;
        let stride = match index.get(row_len) {
            Some(&next) => next.checked_sub(first)?,
            None => row_len,
        };
        let fits = index.chunks_exact(row_len).enumerate().all(|(r, row)| {
            let start = r.checked_mul(stride).and_then(|s| s.checked_add(first));
            row.iter()
                .enumerate()
                .all(|(j, &i)| start.and_then(|s| s.checked_add(j)) == Some(i))
        });
        fits.then_some(Rows {
            first,
            stride,
            row_len,
            rows,
        })
    }
}

/// `out = op(rows of x)` (a copy when `op` is `None`); `x` spans the
/// rows ([`Rows::span`]) and `out` holds [`Rows::len`] elements. `None`
/// when they do not.
pub(super) fn run(rows: Rows, op: Option<UnaryOp>, x: &[f64], out: &mut [f64]) -> Option<()> {
    if rows.row_len == 0 || out.len() != rows.len() {
        return None;
    }
    for (r, o) in out.chunks_exact_mut(rows.row_len).enumerate() {
        let row = x.get(rows.first + r * rows.stride..)?.get(..rows.row_len)?;
        match op {
            None => o.copy_from_slice(row),
            Some(op) => <f64 as Float>::unary_slice(op, row, o),
        }
    }
    Some(())
}

/// The instructions with each row gather ([`Instr::Rows`] without an
/// activation) whose result is read by one later [`Instr::Unary`] alone,
/// once and whole, merged into that reader's place: the unary applied to
/// the rows where they lie, into the reader's destination. Neither value
/// may be a body result (a unary result may then be written into the
/// loop's row directly); nothing between the two may write what the
/// gather reads (the values of a step are written once, so this only
/// rules out a running sum).
pub(super) fn fuse_unary(instrs: Vec<Instr>, results: &[(usize, usize)]) -> Vec<Instr> {
    let in_result = |o: usize, l: usize| results.iter().any(|&(p, m)| overlaps(o, l, p, m));
    let mut out: Vec<Option<Instr>> = instrs.into_iter().map(Some).collect();
    for i in 0..out.len() {
        let Some(Instr::Rows {
            src,
            rows,
            dst,
            op: None,
        }) = out[i]
        else {
            continue;
        };
        let len = rows.len();
        if len == 0 || in_result(dst, len) {
            continue;
        }
        // The only reader, reading the whole value once.
        let mut reader = None;
        let mut reads = 0;
        for (j, ins) in out.iter().enumerate() {
            ins.iter().for_each(|ins| {
                ins.reads(&mut |loc, l| {
                    if let Loc::Arena(o) = loc {
                        if overlaps(o, l, dst, len) {
                            reads += if o == dst && l == len { 1 } else { 2 };
                            reader = Some(j);
                        }
                    }
                })
            });
        }
        let Some(j) = reader.filter(|&j| reads == 1 && j > i) else {
            continue;
        };
        let Some(Instr::Unary {
            op,
            src: Loc::Arena(s),
            dst: to,
            len: l,
        }) = out[j]
        else {
            continue;
        };
        if s != dst || l != len || in_result(to, len) {
            continue;
        }
        // What the gather reads: unchanged until the reader runs.
        let mut changed = false;
        if let Loc::Arena(from) = src {
            for ins in out[i + 1..j].iter().flatten() {
                ins.writes(&mut |o, l| changed |= overlaps(o, l, from, rows.span()));
            }
        }
        if changed {
            continue;
        }
        out[i] = None;
        out[j] = Some(Instr::Rows {
            src,
            rows,
            dst: to,
            op: Some(op),
        });
    }
    out.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_of_a_packed_row_is_rows() {
        // take (M=3, 4, N=5) 2 1: rows of 5 from 10 on, 20 apart.
        let index: Vec<usize> = (0..3)
            .flat_map(|m| (0..5).map(move |j| 20 * m + 10 + j))
            .collect();
        let want = Rows {
            first: 10,
            stride: 20,
            row_len: 5,
            rows: 3,
        };
        assert_eq!(Rows::of_index(&index), Some(want));
        assert_eq!(want.span(), 55);
        // A whole contiguous run is one row.
        let run: Vec<usize> = (7..19).collect();
        assert_eq!(
            Rows::of_index(&run).map(|r| (r.rows, r.row_len)),
            Some((1, 12))
        );
    }

    #[test]
    fn other_gathers_are_not_rows() {
        // A transpose, a broadcast column, a flip, short rows, a run cut short.
        let transpose: Vec<usize> = (0..4)
            .flat_map(|j| (0..4).map(move |i| 4 * i + j))
            .collect();
        let column: Vec<usize> = (0..8).flat_map(|i| [i; 6]).collect();
        let flip: Vec<usize> = (0..10).rev().collect();
        let short: Vec<usize> = (0..4).flat_map(|m| [8 * m, 8 * m + 1]).collect();
        let mut cut: Vec<usize> = (0..3)
            .flat_map(|m| (0..5).map(move |j| 20 * m + j))
            .collect();
        cut[12] += 1;
        for index in [transpose, column, flip, short, cut] {
            assert_eq!(Rows::of_index(&index), None, "{index:?}");
        }
    }

    #[test]
    fn rows_give_the_bits_of_the_gathered_slice() {
        let x: Vec<f64> = (0..60).map(|i| (i as f64 - 31.0) * 0.37).collect();
        let rows = Rows {
            first: 10,
            stride: 20,
            row_len: 5,
            rows: 3,
        };
        let gathered: Vec<f64> = (0..3)
            .flat_map(|m| (0..5).map(move |j| 20 * m + 10 + j))
            .map(|i| x[i])
            .collect();
        let mut copied = vec![0.0; 15];
        assert_eq!(run(rows, None, &x, &mut copied), Some(()));
        assert_eq!(copied, gathered);
        for op in [UnaryOp::Sigmoid, UnaryOp::Tanh, UnaryOp::Exp] {
            let mut want = vec![0.0; 15];
            <f64 as Float>::unary_slice(op, &gathered, &mut want);
            let mut got = vec![0.0; 15];
            assert_eq!(run(rows, Some(op), &x, &mut got), Some(()));
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "{op:?}");
        }
        // A source too short for the rows: refused, not a panic.
        assert_eq!(run(rows, None, &x[..50], &mut copied), None);
    }

    #[test]
    fn a_gather_and_its_only_activation_merge() {
        let rows = Rows {
            first: 0,
            stride: 8,
            row_len: 4,
            rows: 2,
        };
        let gather = Instr::Rows {
            src: Loc::Param(0, 0),
            rows,
            dst: 100,
            op: None,
        };
        let unary = |src: usize, dst: usize| Instr::Unary {
            op: UnaryOp::Tanh,
            src: Loc::Arena(src),
            dst,
            len: 8,
        };
        let merged = fuse_unary(vec![gather.clone(), unary(100, 200)], &[(300, 8)]);
        assert!(matches!(
            merged[..],
            [Instr::Rows {
                dst: 200,
                op: Some(UnaryOp::Tanh),
                ..
            }]
        ));
        // Read twice: both stay.
        let twice = fuse_unary(
            vec![gather.clone(), unary(100, 200), unary(100, 300)],
            &[(400, 8)],
        );
        assert_eq!(twice.len(), 3);
        // A body result: both stay.
        assert_eq!(
            fuse_unary(vec![gather, unary(100, 200)], &[(200, 8)]).len(),
            2
        );
    }
}
