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
    let (values, splits) = sequences_of(l)?;
    let offs = &splits[1];
    let lens: Vec<i64> = offs.windows(2).map(|w| w[1] - w[0]).collect();
    let t_max = lens.iter().copied().max().unwrap_or(0).max(0) as usize;
    let padded = with_array!(&values, a => pad(a, offs, t_max));
    let lens =
        Value::from(ArrayD::from_shape_vec(IxDyn(&[lens.len()]), lens).map_err(|e| e.to_string())?);
    Ok((padded, lens))
}

/// The values and row splits of `l`, which must be a list of sequences
/// (depth 2).
fn sequences_of(l: &ListValue) -> Result<(Value, Vec<Vec<i64>>), String> {
    if l.depth() != 2 {
        return Err(format!(
            "padding needs a list of sequences (depth 2), got depth {}",
            l.depth()
        ));
    }
    Ok(l.to_parts())
}

fn pad<T: Elem>(values: &ArrayD<T>, offs: &[i64], t_max: usize) -> Value {
    let mut shape = vec![t_max, offs.len().saturating_sub(1)];
    shape.extend_from_slice(&values.shape()[1..]);
    let mut out = ArrayD::from_elem(IxDyn(&shape), T::zero());
    for (b, w) in offs.windows(2).enumerate() {
        let (lo, hi) = (w[0] as usize, w[1] as usize);
        out.index_axis_mut(Axis(1), b)
            .slice_axis_mut(Axis(0), (0..hi - lo).into())
            .assign(&values.slice_axis(Axis(0), (lo..hi).into()));
    }
    T::wrap(out)
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
    let (values, splits) = sequences_of(l)?;
    let offs = &splits[1];
    let n = offs.len().saturating_sub(1);
    if order.len() != n || bounds.len() != rows.len() + 1 || order.iter().any(|&b| b >= n) {
        return Err("the phase plan does not fit the list".to_string());
    }
    let phases = (0..rows.len())
        .map(|p| {
            let (lo, hi) = (bounds[p], bounds[p + 1]);
            let seqs: Vec<(usize, usize)> = order[..rows[p].min(n)]
                .iter()
                .map(|&b| (offs[b] as usize, offs[b + 1] as usize))
                .collect();
            with_array!(&values, a => pad_phase(a, &seqs, lo, hi))
        })
        .collect();
    Ok(phases)
}

/// Steps `lo .. hi` of the sequences at `seqs` (each its rows' range in
/// `values`) as one tensor `(hi - lo, seqs.len(), ...)`, zeros past a
/// sequence's end.
fn pad_phase<T: Elem>(values: &ArrayD<T>, seqs: &[(usize, usize)], lo: usize, hi: usize) -> Value {
    let mut shape = vec![hi.saturating_sub(lo), seqs.len()];
    shape.extend_from_slice(&values.shape()[1..]);
    let mut out = ArrayD::from_elem(IxDyn(&shape), T::zero());
    for (r, &(start, end)) in seqs.iter().enumerate() {
        let from = (start + lo).min(end);
        let to = (start + hi).min(end);
        out.index_axis_mut(Axis(1), r)
            .slice_axis_mut(Axis(0), (0..to - from).into())
            .assign(&values.slice_axis(Axis(0), (from..to).into()));
    }
    T::wrap(out)
}
