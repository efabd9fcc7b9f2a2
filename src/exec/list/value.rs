//! The run-time value of a nested list.
//!
//! Owns: [`ListValue`] — the tensors of the innermost depth stacked in one
//! shared array (`values`) and one offset vector per depth below the
//! outermost (the row splits) — and the operations on it that move no
//! element: its length, an element, the concatenation of its lists, the
//! list of a tensor's rows; and the two that build new storage: `stack`
//! and the canonical `.npz` layout ([`ListValue::to_parts`]). Must not:
//! know about programs, files or spans (errors are sentences; the caller
//! places them).
//!
//! A list cut from another (an element, a flattened list) shares the
//! other's `values` and splits (`Arc`s) and only records which range of
//! them it covers, so taking an element or flattening costs O(1) and
//! copies no tensor. A tensor handed to a tensor op is an owned `Value`,
//! so `index` at the innermost depth copies that one tensor.

use crate::exec::value::{with_array, Value};
use crate::lang::DType;
use ndarray::{Axis, Slice};
use std::sync::Arc;

/// A nested list of depth `depth()` ≥ 1 whose innermost elements are
/// tensors of one shape (`values.shape()[1..]`).
#[derive(Clone, Debug)]
pub struct ListValue {
    /// The innermost tensors, stacked along axis 0 (shared).
    values: Arc<Value>,
    /// `levels[k]` holds the offsets of the lists at depth `k + 1` of the
    /// root list into depth `k + 2` (into `values` for the last); the
    /// root's own range is `lo..hi` at `level` 0.
    levels: Arc<Vec<Vec<usize>>>,
    /// The depth in `levels` whose positions this list's elements are:
    /// `levels.len()` when they are rows of `values`.
    level: usize,
    /// This list's elements are positions `lo..hi` at `level`.
    lo: usize,
    hi: usize,
}

/// One element of a list: a tensor (at the innermost depth) or a list.
#[derive(Clone, Debug)]
pub enum Element {
    /// A tensor, owned (copied out of the list's `values`).
    Tensor(Value),
    /// A list sharing the parent's storage.
    List(ListValue),
}

impl ListValue {
    /// The list of the rows of `x` along axis 0 (`unstack`): `x` becomes
    /// the list's `values` as it is.
    pub fn of_rows(x: Value) -> Result<ListValue, String> {
        let Some(&n) = x.shape().first() else {
            return Err("unstack needs an array with a leading axis, got a scalar".into());
        };
        Ok(ListValue {
            values: Arc::new(x),
            levels: Arc::new(Vec::new()),
            level: 0,
            lo: 0,
            hi: n,
        })
    }

    /// A list from the canonical layout: `values` and the row splits of
    /// every depth, outermost first (`row_splits_0` = `[0, n]`, ...),
    /// checked: each starts at 0, never decreases, and ends at the length
    /// of what it indexes (the next splits' entries less one; `values`'s
    /// rows for the last). The error says which splits and why.
    pub fn from_parts(values: Value, splits: Vec<Vec<i64>>) -> Result<ListValue, String> {
        if splits.is_empty() {
            return Err("a list needs at least row_splits_0".into());
        }
        let Some(&rows) = values.shape().first() else {
            return Err("values must have a leading axis (one row per innermost tensor)".into());
        };
        let mut levels = Vec::with_capacity(splits.len());
        for (k, s) in splits.iter().enumerate() {
            let name = format!("row_splits_{k}");
            let target = match splits.get(k + 1) {
                Some(next) => next.len().checked_sub(1).ok_or_else(|| {
                    format!("row_splits_{} is empty (it needs at least [0])", k + 1)
                })?,
                None => rows,
            };
            let what = if k + 1 == splits.len() {
                format!("the {rows} rows of values")
            } else {
                format!("the {target} lists of row_splits_{}", k + 1)
            };
            if s.first() != Some(&0) {
                return Err(format!("{name} must start at 0, got {s:?}"));
            }
            if k == 0 && s.len() != 2 {
                return Err(format!(
                    "row_splits_0 must have 2 entries ([0, n]: one list at the outermost depth), got {}",
                    s.len()
                ));
            }
            if let Some(w) = s.windows(2).position(|w| w[1] < w[0]) {
                return Err(format!(
                    "{name} must not decrease, but entry {} is {} after {}",
                    w + 1,
                    s[w + 1],
                    s[w]
                ));
            }
            let last = *s.last().unwrap_or(&0);
            if last as u64 != target as u64 {
                return Err(format!("{name} must end at {target} ({what}), got {last}"));
            }
            levels.push(s.iter().map(|&x| x as usize).collect::<Vec<_>>());
        }
        let hi = levels[0][1];
        levels.remove(0);
        Ok(ListValue {
            values: Arc::new(values),
            levels: Arc::new(levels),
            level: 0,
            lo: 0,
            hi,
        })
    }

    /// A list of depth 1 of the tensors `xs`, all of one dtype and shape
    /// (of `dtype` and `shape` when `xs` is empty); the error names the
    /// first tensor whose shape differs.
    pub fn of_tensors(xs: &[Value], dtype: DType, shape: &[usize]) -> Result<ListValue, String> {
        let values = stack_values(xs, dtype, shape)?;
        ListValue::of_rows(values)
    }

    /// The list whose elements are `parts`, lists of depth `depth - 1`
    /// (`depth` ≥ 2) whose innermost tensors have dtype `dtype` and shape
    /// `shape` (what an empty list's storage is made of): a `map` whose
    /// steps give lists. One copy of the parts' rows; the error names the
    /// first part whose innermost tensors have another shape.
    pub fn of_lists(
        parts: &[ListValue],
        depth: usize,
        dtype: DType,
        shape: &[usize],
    ) -> Result<ListValue, String> {
        if let Some((k, p)) = parts
            .iter()
            .enumerate()
            .find(|(_, p)| p.depth() + 1 != depth)
        {
            return Err(format!(
                "element {k} is a list of depth {}, where depth {} is required",
                p.depth(),
                depth - 1
            ));
        }
        let mut splits: Vec<Vec<i64>> = vec![vec![0, parts.len() as i64]];
        splits.extend((1..depth).map(|_| vec![0i64]));
        let mut rows_out: Vec<Value> = Vec::new();
        for (k, p) in parts.iter().enumerate() {
            let (values, ps) = p.to_parts();
            let first = parts[0].element_shape();
            if p.element_shape() != first {
                return Err(format!(
                    "the tensors of a list must have one shape, but element {k} holds tensors of shape {:?} and element 0 of {:?}",
                    p.element_shape(),
                    first
                ));
            }
            // Each depth's offsets continue where the previous part's end.
            for (level, offs) in ps.iter().enumerate() {
                let out = &mut splits[level + 1];
                let base = *out.last().unwrap_or(&0);
                out.extend(offs.iter().skip(1).map(|&x| x + base));
            }
            rows_out.extend((0..values.shape()[0]).map(|i| row(&values, i)));
        }
        let inner = parts
            .first()
            .map_or(shape.to_vec(), |p| p.element_shape().to_vec());
        let values = stack_values(&rows_out, dtype, &inner)?;
        ListValue::from_parts(values, splits)
    }

    /// How many lists wrap the innermost tensors.
    pub fn depth(&self) -> usize {
        self.levels.len() - self.level + 1
    }

    /// Its length (elements at the outermost depth).
    pub fn len(&self) -> usize {
        self.hi - self.lo
    }

    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.hi == self.lo
    }

    /// The dtype of the innermost tensors.
    pub fn dtype(&self) -> DType {
        self.values.dtype()
    }

    /// The shape of the innermost tensors.
    pub fn element_shape(&self) -> &[usize] {
        &self.values.shape()[1..]
    }

    /// Element `i` (negative counts from the end); out of range is an
    /// error naming the length.
    pub fn get(&self, i: i64) -> Result<Element, String> {
        let n = self.len() as i64;
        let k = if i < 0 { i + n } else { i };
        if !(0..n).contains(&k) {
            return Err(format!(
                "index {i} is out of range for a list of length {n}"
            ));
        }
        Ok(self.element(k as usize))
    }

    /// Element `k`, `0 <= k < len()`.
    fn element(&self, k: usize) -> Element {
        let pos = self.lo + k;
        if self.level == self.levels.len() {
            Element::Tensor(row(&self.values, pos))
        } else {
            let offs = &self.levels[self.level];
            Element::List(ListValue {
                values: self.values.clone(),
                levels: self.levels.clone(),
                level: self.level + 1,
                lo: offs[pos],
                hi: offs[pos + 1],
            })
        }
    }

    /// Every element, in order.
    pub fn elements(&self) -> Vec<Element> {
        (0..self.len()).map(|k| self.element(k)).collect()
    }

    /// The concatenation of its lists (`flatten`), sharing its storage;
    /// an error for a list of tensors.
    pub fn flatten(&self) -> Result<ListValue, String> {
        if self.level == self.levels.len() {
            return Err("flatten needs a list of lists, got a list of tensors".into());
        }
        let offs = &self.levels[self.level];
        Ok(ListValue {
            values: self.values.clone(),
            levels: self.levels.clone(),
            level: self.level + 1,
            lo: offs[self.lo],
            hi: offs[self.hi],
        })
    }

    /// The range of rows of `values` this list covers.
    fn value_rows(&self) -> (usize, usize) {
        let (mut lo, mut hi) = (self.lo, self.hi);
        for offs in &self.levels[self.level..] {
            (lo, hi) = (offs[lo], offs[hi]);
        }
        (lo, hi)
    }

    /// Its tensors stacked along a new axis 0 (`stack`): a list of
    /// tensors only (depth 1); one copy of its rows.
    pub fn stack(&self) -> Result<Value, String> {
        if self.depth() != 1 {
            return Err(format!(
                "stack needs a list of tensors, got a list of depth {}",
                self.depth()
            ));
        }
        Ok(rows(&self.values, self.lo, self.hi))
    }

    /// The canonical layout: its innermost tensors stacked (a copy of its
    /// rows) and its row splits, outermost first, each rebased to start
    /// at 0 (`row_splits_0` = `[0, len]`).
    pub fn to_parts(&self) -> (Value, Vec<Vec<i64>>) {
        let (lo, hi) = self.value_rows();
        (rows(&self.values, lo, hi), self.splits())
    }

    /// The stacked tensors it covers without a copy: the shared `values`
    /// (of which it may cover a part), the row of `values` its first
    /// tensor is, and its row splits as [`ListValue::to_parts`] gives them
    /// (rebased to 0: add the row to each innermost offset).
    pub fn parts_in_place(&self) -> (&Value, usize, Vec<Vec<i64>>) {
        (&self.values, self.value_rows().0, self.splits())
    }

    /// Its row splits, outermost first, each rebased to start at 0 (the
    /// splits of [`ListValue::to_parts`], no tensor copied).
    pub fn splits(&self) -> Vec<Vec<i64>> {
        let mut splits = vec![vec![0, self.len() as i64]];
        let (mut lo, mut hi) = (self.lo, self.hi);
        for offs in &self.levels[self.level..] {
            let base = offs[lo];
            splits.push(offs[lo..=hi].iter().map(|&x| (x - base) as i64).collect());
            (lo, hi) = (offs[lo], offs[hi]);
        }
        splits
    }

    /// How many tensors it holds at its innermost depth.
    pub fn count(&self) -> usize {
        let (lo, hi) = self.value_rows();
        hi - lo
    }

    /// Its innermost tensors stacked (a copy of the rows it covers).
    pub fn innermost(&self) -> Value {
        let (lo, hi) = self.value_rows();
        rows(&self.values, lo, hi)
    }

    /// The list of its nesting (its splits, rebased) whose innermost
    /// tensors are the rows of `values` (`nest`): as many rows as it
    /// holds tensors, else an error naming both counts.
    pub fn nest(&self, values: Value) -> Result<ListValue, String> {
        let n = values.shape().first().copied().unwrap_or(0);
        if values.shape().is_empty() || n != self.count() {
            return Err(format!(
                "needs as many tensors as the list holds at its innermost depth ({}), got {n}",
                self.count()
            ));
        }
        ListValue::from_parts(values, self.splits())
    }

    /// Its elements where `mask` holds, in order (`filter` over a list
    /// keeps whole elements): a copy of the kept rows; `mask` must have
    /// one entry per element.
    pub fn compress(&self, mask: &[bool]) -> Result<ListValue, String> {
        if mask.len() != self.len() {
            return Err(format!(
                "the mask has {} entries for a list of {} elements",
                mask.len(),
                self.len()
            ));
        }
        let kept = (0..self.len())
            .filter(|&k| mask[k])
            .map(|k| self.element(k));
        let dtype = self.dtype();
        let shape = self.element_shape().to_vec();
        if self.depth() == 1 {
            let xs: Vec<Value> = kept
                .map(|e| match e {
                    Element::Tensor(v) => v,
                    Element::List(l) => l.innermost(),
                })
                .collect();
            return ListValue::of_tensors(&xs, dtype, &shape);
        }
        let parts: Vec<ListValue> = kept
            .filter_map(|e| match e {
                Element::List(l) => Some(l),
                Element::Tensor(_) => None,
            })
            .collect();
        ListValue::of_lists(&parts, self.depth(), dtype, &shape)
    }

    /// Its innermost tensors where `mask` (one entry per innermost
    /// tensor, in order) holds, its nesting kept: each innermost list
    /// keeps its own tensors that pass (a list left empty stays, empty);
    /// a copy of the kept rows (`filterall` over a list of lists).
    pub fn compress_innermost(&self, mask: &[bool]) -> Result<ListValue, String> {
        let (values, mut splits) = self.to_parts();
        if mask.len() != self.count() {
            return Err(format!(
                "the mask has {} entries for a list of {} tensors at its innermost depth",
                mask.len(),
                self.count()
            ));
        }
        let kept = Value::from(ndarray::Array1::from(mask.to_vec()).into_dyn());
        let values = crate::exec::ops::compress::compress(&kept, &values)?;
        if let Some(inner) = splits.last_mut() {
            let mut at = 0i64;
            let mut start = 0usize;
            for off in inner.iter_mut().skip(1) {
                let end = usize::try_from(*off).map_err(|_| "a negative row split")?;
                at += mask[start..end].iter().filter(|&&m| m).count() as i64;
                start = end;
                *off = at;
            }
        }
        ListValue::from_parts(values, splits)
    }

    /// Which storage it shares: lists cut from one another have the same
    /// id (the address of their shared `values`).
    pub fn storage_id(&self) -> usize {
        Arc::as_ptr(&self.values) as usize
    }

    /// The bytes of its whole shared storage (`values`, of which it may
    /// cover a part).
    pub fn storage_bytes(&self) -> usize {
        self.values.len_bytes()
    }

    /// The sum of every element of its tensors, as `f64`.
    pub fn sum_f64(&self) -> f64 {
        let (lo, hi) = self.value_rows();
        rows(&self.values, lo, hi).sum_f64()
    }
}

impl PartialEq for ListValue {
    /// Two lists are equal when their canonical layouts are.
    fn eq(&self, other: &ListValue) -> bool {
        self.to_parts() == other.to_parts()
    }
}

/// Row `i` of `v` along axis 0, owned.
pub(super) fn row(v: &Value, i: usize) -> Value {
    with_array!(v, a => a.index_axis(Axis(0), i).to_owned().into())
}

/// Rows `lo..hi` of `v` along axis 0, owned.
fn rows(v: &Value, lo: usize, hi: usize) -> Value {
    with_array!(v, a => a.slice_axis(Axis(0), Slice::from(lo..hi)).to_owned().into())
}

/// `xs` stacked along a new axis 0; all of `dtype` (storage) and one
/// shape (`shape` when `xs` is empty).
pub(super) fn stack_values(xs: &[Value], dtype: DType, shape: &[usize]) -> Result<Value, String> {
    let first = xs.first().map_or(shape, |x| x.shape()).to_vec();
    for (k, x) in xs.iter().enumerate() {
        if x.shape() != first.as_slice() {
            return Err(format!(
                "the tensors of a list must have one shape, but element {k} has shape {:?} and element 0 {:?}",
                x.shape(),
                first
            ));
        }
    }
    let mut out_shape = vec![xs.len()];
    out_shape.extend(&first);
    let mut out = Value::zeros(dtype.storage(), &out_shape);
    for (k, x) in xs.iter().enumerate() {
        let x = x.cast(dtype.storage());
        if !crate::exec::run::set_row(&mut out, k, &x) {
            return Err(format!("element {k} has dtype {}, not {dtype}", x.dtype()));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::ArrayD;

    fn vals(n: usize, w: usize) -> Value {
        let data: Vec<f64> = (0..n * w).map(|x| x as f64).collect();
        Value::F64(ArrayD::from_shape_vec(vec![n, w], data).unwrap())
    }

    #[test]
    fn spec_example_round_trips() {
        // SPEC: sequences of lengths 2, 0 and 1 of 4-vectors.
        let l = ListValue::from_parts(vals(3, 4), vec![vec![0, 3], vec![0, 2, 2, 3]]).unwrap();
        assert_eq!(l.depth(), 2);
        assert_eq!(l.len(), 3);
        let Element::List(first) = l.get(0).unwrap() else {
            panic!("a list")
        };
        assert_eq!(first.len(), 2);
        let Element::List(empty) = l.get(-2).unwrap() else {
            panic!("a list")
        };
        assert!(empty.is_empty());
        assert_eq!(empty.stack().unwrap().shape(), &[0, 4]);
        let Element::List(last) = l.get(2).unwrap() else {
            panic!("a list")
        };
        let (v, s) = last.to_parts();
        assert_eq!(s, vec![vec![0, 1]]);
        assert_eq!(v, rows(&vals(3, 4), 2, 3));
        let flat = l.flatten().unwrap();
        assert_eq!(flat.len(), 3);
        assert_eq!(flat.stack().unwrap(), vals(3, 4));
        assert!(l.get(3).unwrap_err().contains("out of range"));
        assert!(flat.flatten().is_err());
        assert_eq!(l.sum_f64(), (0..12).sum::<i32>() as f64);
    }

    #[test]
    fn malformed_splits_are_refused() {
        let bad = |s: Vec<Vec<i64>>| ListValue::from_parts(vals(3, 2), s).unwrap_err();
        assert!(bad(vec![vec![0, 2], vec![0, 2, 1]]).contains("must not decrease"));
        assert!(bad(vec![vec![0, 2], vec![1, 2, 3]]).contains("start at 0"));
        assert!(bad(vec![vec![0, 2], vec![0, 1, 2]]).contains("must end at 3"));
        assert!(bad(vec![vec![0, 3], vec![0, 1, 2]]).contains("must end at 2"));
        assert!(bad(vec![vec![0, 1, 2], vec![0, 1, 3]]).contains("2 entries"));
    }

    #[test]
    fn nested_views_rebase() {
        // Depth 3: [[[r0, r1], []], [[r2]]].
        let l = ListValue::from_parts(
            vals(3, 1),
            vec![vec![0, 2], vec![0, 2, 3], vec![0, 2, 2, 3]],
        )
        .unwrap();
        let Element::List(second) = l.get(1).unwrap() else {
            panic!()
        };
        let (v, s) = second.to_parts();
        assert_eq!(s, vec![vec![0, 1], vec![0, 1]]);
        assert_eq!(v.shape(), &[1, 1]);
        assert_eq!(v.sum_f64(), 2.0);
        let f = l.flatten().unwrap();
        assert_eq!(f.to_parts().1, vec![vec![0, 3], vec![0, 2, 2, 3]]);
    }
}
