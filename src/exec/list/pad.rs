//! A list of sequences as a padded batch: what the batching rewrite's
//! dense program reads in place of the list (`docs/lists.md`
//! "Batching").
//!
//! Owns: [`pad_sequences`] and [`pad_phases`] (the length-sorted phases
//! of the rewrite's plan). Must not: decide whether to batch (the
//! optimizer's `batch` does) or run a program.

use super::value::ListValue;
use crate::exec::value::{with_array, Elem, Value};
use ndarray::{ArrayD, Axis, IxDyn};

/// The sequences of `l` (a list of lists of tensors) padded with zeros into
/// one tensor `(T_max, B, ...)`: row `[t, b]` is element `t` of sequence
/// `b` while `t` is below its length. Also the lengths, `i64 (B)`.
pub fn pad_sequences(l: &ListValue) -> Result<(Value, Value), String> {
    let (values, base, offs) = sequences_of(l)?;
    let lens: Vec<i64> = offs.windows(2).map(|w| w[1] - w[0]).collect();
    let t_max = lens.iter().copied().max().unwrap_or(0).max(0) as usize;
    let seqs: Vec<(usize, usize)> = offs
        .windows(2)
        .map(|w| (base + w[0] as usize, base + w[1] as usize))
        .collect();
    let padded = with_array!(values, a => pad_phase(a, &seqs, 0, t_max))?;
    let lens =
        Value::from(ArrayD::from_shape_vec(IxDyn(&[lens.len()]), lens).map_err(|e| e.to_string())?);
    Ok((padded, lens))
}

/// The shared values `l` (a list of sequences, depth 2) reads, the row of
/// its first tensor, and its sequences' offsets from that row.
fn sequences_of(l: &ListValue) -> Result<(&Value, usize, Vec<i64>), String> {
    if l.depth() != 2 {
        return Err(format!(
            "padding needs a list of sequences (depth 2), got depth {}",
            l.depth()
        ));
    }
    let (values, base, mut splits) = l.parts_in_place();
    Ok((values, base, splits.pop().unwrap_or_default()))
}

/// The sequences of `l` (a list of sequences) sorted and cut into phases:
/// sorted row `r` is sequence `order[r]`, and phase `p` (steps
/// `bounds[p] .. bounds[p + 1]`, its first `rows[p]` sorted rows) is one
/// tensor `(bounds[p + 1] - bounds[p], rows[p], ...)` whose row `[t, r]` is
/// element `bounds[p] + t` of that sequence while it has one, zeros past
/// its end.
pub fn pad_phases(
    l: &ListValue,
    order: &[usize],
    bounds: &[usize],
    rows: &[usize],
) -> Result<Vec<Value>, String> {
    let (values, base, offs) = sequences_of(l)?;
    let n = offs.len().saturating_sub(1);
    if order.len() != n || bounds.len() != rows.len() + 1 || order.iter().any(|&b| b >= n) {
        return Err("the phase plan does not fit the list".to_string());
    }
    (0..rows.len())
        .map(|p| {
            let (lo, hi) = (bounds[p], bounds[p + 1]);
            let seqs: Vec<(usize, usize)> = order[..rows[p].min(n)]
                .iter()
                .map(|&b| (base + offs[b] as usize, base + offs[b + 1] as usize))
                .collect();
            with_array!(values, a => pad_phase(a, &seqs, lo, hi))
        })
        .collect()
}

/// Steps `lo .. hi` of the sequences at `seqs` (each its rows' range in
/// `values`) as one tensor `(hi - lo, seqs.len(), ...)`, zeros past a
/// sequence's end: written once, in order, each row copied whole from
/// `values` (no zero-fill first, no copy of `values`).
fn pad_phase<T: Elem>(
    values: &ArrayD<T>,
    seqs: &[(usize, usize)],
    lo: usize,
    hi: usize,
) -> Result<Value, String> {
    let steps = hi.saturating_sub(lo);
    let mut shape = vec![steps, seqs.len()];
    shape.extend_from_slice(&values.shape()[1..]);
    let width: usize = values.shape()[1..].iter().product();
    let len = steps
        .checked_mul(seqs.len())
        .and_then(|n| n.checked_mul(width))
        .ok_or("the padded batch is too large")?;
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| format!("the padded batch ({len} elements) does not fit in memory"))?;
    let contiguous = values.as_slice();
    for t in lo..hi {
        for &(start, end) in seqs {
            let at = start + t;
            if at >= end {
                out.extend(std::iter::repeat_n(T::zero(), width));
            } else if let Some(d) = contiguous {
                out.extend_from_slice(&d[at * width..(at + 1) * width]);
            } else {
                out.extend(values.index_axis(Axis(0), at).iter().copied());
            }
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), out)
        .map(T::wrap)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::list::value::Element;

    /// Row `[t, r]` of a padding, from the copied parts: sequence `seq(r)`'s
    /// element `lo + t`, or zeros past its end.
    fn naive(l: &ListValue, seqs: &[usize], lo: usize, hi: usize) -> Vec<f64> {
        let (values, splits) = l.to_parts();
        let Value::F64(v) = values else {
            panic!("f64 values")
        };
        let offs = &splits[1];
        let width = v.shape()[1];
        let mut out = Vec::new();
        for t in lo..hi {
            for &b in seqs {
                let at = offs[b] as usize + t;
                if at < offs[b + 1] as usize {
                    out.extend(v.index_axis(Axis(0), at).iter().copied());
                } else {
                    out.extend(std::iter::repeat_n(0.0, width));
                }
            }
        }
        out
    }

    fn data(v: &Value) -> Vec<f64> {
        let Value::F64(a) = v else { panic!("f64") };
        a.iter().copied().collect()
    }

    /// A list of sequences that is part of a list of lists (its rows start
    /// past the first part's), padded whole and in phases in place: the
    /// rows of the copied parts, zeros past each end.
    #[test]
    fn paddings_of_a_list_inside_another_read_its_own_rows() {
        let n = 16;
        let values = ArrayD::from_shape_fn(IxDyn(&[n, 2]), |i| (i[0] * 2 + i[1]) as f64 + 0.5);
        let splits = vec![vec![0, 2], vec![0, 2, 5], vec![0, 3, 8, 9, 12, 16]];
        let outer = ListValue::from_parts(Value::F64(values), splits).expect("splits");
        let Ok(Element::List(l)) = outer.get(1) else {
            panic!("a list")
        };
        // Its sequences have lengths 1, 3 and 4, and start at row 8.
        assert_eq!(l.splits()[1], [0, 1, 4, 8]);
        let (padded, lens) = pad_sequences(&l).expect("sequences");
        assert_eq!(padded.shape(), [4, 3, 2]);
        assert_eq!(data(&padded), naive(&l, &[0, 1, 2], 0, 4));
        let Value::I64(lens) = lens else {
            panic!("i64")
        };
        assert_eq!(lens.iter().copied().collect::<Vec<_>>(), [1, 3, 4]);
        let (order, bounds, rows) = ([2, 1, 0], [0, 1, 3, 4], [3, 2, 1]);
        let phases = pad_phases(&l, &order, &bounds, &rows).expect("plan");
        for (p, v) in phases.iter().enumerate() {
            let want = naive(&l, &order[..rows[p]], bounds[p], bounds[p + 1]);
            assert_eq!(v.shape(), [bounds[p + 1] - bounds[p], rows[p], 2]);
            assert_eq!(data(v), want, "phase {p}");
        }
        assert!(pad_phases(&l, &[0, 1], &bounds, &rows).is_err());
    }
}
