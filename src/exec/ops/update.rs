//! Updates: a copy of `X` with one part of it added into or replaced
//! (NumPy's `x[i, j] += g`, `x[a:b:s] = v`, `numpy.add.at(x, idx, g)` and
//! `x[idx] = v` on a copy; PyTensor's `inc_subtensor` and
//! `set_subtensor`), and `take`, the read the `*_take` updates write
//! back. The increments are what the gradients of `index`, `slice` and
//! `take` scatter into.
//!
//! Owns: [`Part`] (where an update writes: the positions of an index, a
//! slice of axis 0, or the positions an integer array picks along an
//! axis), locating it in a shape with the errors `index`, `slice` and
//! `take` give; [`Write`] (add or replace); and [`write_into`], the one
//! loop both executors run (the plan calls it on its own storage, in
//! place when `X` is dead). Repeated positions of a take part are
//! written in the index array's row-major order: increments accumulate,
//! the last replacement wins. Must not: decide result dtypes (the caller
//! passes them: `X`'s).

use super::elementwise::Arith;
use super::normalize_axis;
use super::shape::{index_position, index_positions, slice_spec};
use crate::exec::value::{shape_str, with_elem, Value};
use crate::lang::{DType, Op};
use ndarray::{ArrayViewD, ArrayViewMutD, Axis, IxDyn, Slice};

/// What an update does to its part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// Adds the update into the part (`inc_*`).
    Add,
    /// Replaces the part by the update (`set_*`).
    Set,
}

impl Write {
    /// What the update op `op` does: `inc_*` add, every other op (the
    /// `set_*` ones) replace.
    pub fn of(op: &Op) -> Write {
        match op {
            Op::IncIndex | Op::IncSlice { .. } | Op::IncTake(_) => Write::Add,
            _ => Write::Set,
        }
    }
}

/// The part of `X` an update writes.
#[derive(Clone, Debug, PartialEq)]
pub enum Part<'a> {
    /// `X[i, j, ...]`: one position on each leading axis.
    Index(&'a [usize]),
    /// `X[start:stop:step]` along axis 0.
    Slice(Slice),
    /// The positions `at` (an index array of shape `shape`, flattened
    /// row-major) along `axis`.
    Take {
        /// the axis the positions are on
        axis: usize,
        /// the positions, row-major
        at: &'a [usize],
        /// the index array's shape
        shape: &'a [usize],
    },
}

impl Part<'_> {
    /// The slice of axis 0 of `shape` that `[start:stop:step]` selects.
    pub fn slice(
        shape: &[usize],
        start: Option<i64>,
        stop: Option<i64>,
        step: i64,
    ) -> Result<Part<'static>, String> {
        let Some(&len) = shape.first() else {
            return Err("a 0-dimensional array cannot be sliced".into());
        };
        Ok(Part::Slice(slice_spec(len, start, stop, step)?))
    }

    /// The shape of the part of an array of `shape`.
    fn shape(&self, shape: &[usize]) -> Vec<usize> {
        match self {
            Part::Index(pos) => shape.get(pos.len()..).unwrap_or(&[]).to_vec(),
            Part::Slice(sl) => {
                let mut s = shape.to_vec();
                if let Some(first) = s.first_mut() {
                    let len = *first as isize;
                    let end = sl.end.unwrap_or(len).min(len);
                    let span = (end - sl.start).max(0) as usize;
                    let step = sl.step.unsigned_abs();
                    *first = if span == 0 { 0 } else { (span - 1) / step + 1 };
                }
                s
            }
            Part::Take {
                axis, shape: idx, ..
            } => take_shape(shape, *axis, idx),
        }
    }
}

/// The shape `take` gives: `shape` with `axis` replaced by `idx`.
fn take_shape(shape: &[usize], axis: usize, idx: &[usize]) -> Vec<usize> {
    let mut s = shape[..axis.min(shape.len())].to_vec();
    s.extend_from_slice(idx);
    s.extend_from_slice(shape.get(axis + 1..).unwrap_or(&[]));
    s
}

/// The positions an `i64` index array picks along an axis of length
/// `len` (negative from the end), row-major; an index out of range is
/// an error naming the axis.
pub fn take_positions(len: usize, axis: usize, idx: &Value) -> Result<Vec<usize>, String> {
    let Value::I64(a) = idx else {
        return Err(format!("the indices must be i64, got {}", idx.dtype()));
    };
    a.iter().map(|&i| index_position(len, axis, i)).collect()
}

/// Checks that `g_shape` broadcasts to the part of an array of `x_shape`:
/// the error `write_into` would give, before anything is written.
pub fn check_fits(x_shape: &[usize], part: &Part, g_shape: &[usize]) -> Result<(), String> {
    let p = part.shape(x_shape);
    let fits = g_shape.len() <= p.len()
        && g_shape
            .iter()
            .rev()
            .zip(p.iter().rev())
            .all(|(&g, &d)| g == d || g == 1);
    if fits {
        Ok(())
    } else {
        Err(format!(
            "could not broadcast the update of shape {} into the part of shape {}",
            shape_str(g_shape),
            shape_str(&p)
        ))
    }
}

/// `x[part] += g` or `x[part] = g` (as `how` says), `g` broadcast to
/// the part's shape (checked first: nothing is written when it does not
/// fit).
pub fn write_into<T: Arith>(
    x: &mut ArrayViewMutD<'_, T>,
    part: &Part,
    g: &ArrayViewD<'_, T>,
    how: Write,
) -> Result<(), String> {
    check_fits(x.shape(), part, g.shape())?;
    let apply = |r: &mut T, v: T| match how {
        Write::Add => *r = r.add(v),
        Write::Set => *r = v,
    };
    let full = part.shape(x.shape());
    let mut region = x.view_mut();
    match part {
        Part::Index(pos) => {
            for &i in *pos {
                region = region.index_axis_move(Axis(0), i);
            }
        }
        Part::Slice(sl) => region.slice_axis_inplace(Axis(0), *sl),
        Part::Take { axis, at, shape } => {
            let Some(gb) = g.broadcast(IxDyn(&full)) else {
                return Err("internal: the update does not broadcast after all".into());
            };
            for (k, &p) in at.iter().enumerate() {
                // The update's piece for the k-th index: its coordinates
                // in the index array, row-major, on axes axis.. of gb.
                let mut piece = gb.view();
                let mut rest = k;
                let mut coords = vec![0usize; shape.len()];
                for (c, &n) in coords.iter_mut().zip(shape.iter()).rev() {
                    *c = rest % n.max(1);
                    rest /= n.max(1);
                }
                for &c in &coords {
                    piece = piece.index_axis_move(Axis(*axis), c);
                }
                let mut row = region.index_axis_mut(Axis(*axis), p);
                row.zip_mut_with(&piece, |r, &v| apply(r, v));
            }
            return Ok(());
        }
    }
    let Some(gb) = g.broadcast(region.raw_dim()) else {
        return Err("internal: the update does not broadcast after all".into());
    };
    region.zip_mut_with(&gb, |r, &v| apply(r, v));
    Ok(())
}

/// A copy of `x` (as `out`) with `g` (cast to `out`) written at `part`.
fn update(x: &Value, g: &Value, part: &Part, how: Write, out: DType) -> Result<Value, String> {
    Ok(with_elem!(out, T => {
        let mut a = x.to_array::<T>().into_owned();
        let gv = g.to_array::<T>();
        write_into(&mut a.view_mut(), part, &gv.view(), how)?;
        Value::from(a)
    }))
}

/// `(inc_index X G I ...)` and `(set_index X V I ...)`: indices as
/// `index` reads them.
pub fn write_index(
    x: &Value,
    g: &Value,
    idx: &[&Value],
    how: Write,
    out: DType,
) -> Result<Value, String> {
    let pos = index_positions(x.shape(), idx)?;
    update(x, g, &Part::Index(&pos), how, out)
}

/// `(inc_slice X G START STOP STEP)` and `(set_slice ...)`: the slice as
/// `slice` takes it.
pub fn write_slice(
    x: &Value,
    g: &Value,
    (start, stop, step): (Option<i64>, Option<i64>, i64),
    how: Write,
    out: DType,
) -> Result<Value, String> {
    let part = Part::slice(x.shape(), start, stop, step)?;
    update(x, g, &part, how, out)
}

/// `(inc_take X G IDX AXIS)` and `(set_take X V IDX AXIS)`.
pub fn write_take(
    x: &Value,
    g: &Value,
    idx: &Value,
    axis: i64,
    how: Write,
    out: DType,
) -> Result<Value, String> {
    let a = normalize_axis(axis, x.ndim())?;
    let at = take_positions(x.shape()[a], a, idx)?;
    let part = Part::Take {
        axis: a,
        at: &at,
        shape: idx.shape(),
    };
    update(x, g, &part, how, out)
}

/// `(take X IDX AXIS)`: the slices of X along AXIS at IDX's positions,
/// laid out in IDX's shape.
pub fn take(x: &Value, idx: &Value, axis: i64) -> Result<Value, String> {
    let a = normalize_axis(axis, x.ndim())?;
    let at = take_positions(x.shape()[a], a, idx)?;
    let shape = take_shape(x.shape(), a, idx.shape());
    Ok(with_elem!(x.dtype(), T => {
        let xv = x.to_array::<T>();
        let xs = xv.as_standard_layout();
        let Some(src) = xs.as_slice() else {
            return Err("internal: take's operand is not contiguous".to_string());
        };
        let picked = take_rows(src, x.shape(), a, &at);
        match ndarray::ArrayD::from_shape_vec(IxDyn(&shape), picked) {
            Ok(r) => Value::from(r),
            Err(e) => return Err(format!("internal: take's result shape: {e}")),
        }
    }))
}

/// The elements `take` picks from the row-major `src` of `shape`: for
/// each index of the axes before `axis`, the block of the axes after it
/// at each position of `at`, copied whole (one copy per block instead of
/// one view per position, and no second copy into a standard layout).
fn take_rows<T: Copy>(src: &[T], shape: &[usize], axis: usize, at: &[usize]) -> Vec<T> {
    let size = shape.get(axis).copied().unwrap_or(1);
    let inner: usize = shape.get(axis + 1..).unwrap_or(&[]).iter().product();
    let outer: usize = shape[..axis.min(shape.len())].iter().product();
    let mut out = Vec::with_capacity(outer * at.len() * inner);
    if inner == 0 || size == 0 {
        return out;
    }
    for block in src.chunks_exact(size * inner).take(outer) {
        for &p in at {
            // In range (`take_positions` checked); a short result fails
            // the caller's shape check otherwise.
            if let Some(row) = block.get(p * inner..(p + 1) * inner) {
                out.extend_from_slice(row);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array, IxDyn};

    fn f(v: &[f64], shape: &[usize]) -> Value {
        Value::F64(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }

    #[test]
    fn adds_into_a_copy() {
        let x = f(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[3, 2]);
        let g = f(&[10.0, 20.0], &[2]);
        let r = write_index(&x, &g, &[&Value::scalar_i64(-1)], Write::Add, DType::F64).unwrap();
        assert_eq!(r, f(&[0.0, 1.0, 2.0, 3.0, 14.0, 25.0], &[3, 2]));
        // a scalar increment broadcasts over the row
        let r = write_index(
            &x,
            &Value::scalar_f64(1.0),
            &[&Value::scalar_i64(0)],
            Write::Add,
            DType::F64,
        );
        assert_eq!(r.unwrap(), f(&[1.0, 2.0, 2.0, 3.0, 4.0, 5.0], &[3, 2]));
        // x[::-2] += [[1, 1], [2, 2]]: rows 2 and 0
        let g2 = f(&[1.0, 1.0, 2.0, 2.0], &[2, 2]);
        let r = write_slice(&x, &g2, (None, None, -2), Write::Add, DType::F64).unwrap();
        assert_eq!(r, f(&[2.0, 3.0, 2.0, 3.0, 5.0, 6.0], &[3, 2]));
        assert_eq!(
            write_index(&x, &g, &[&Value::scalar_i64(3)], Write::Add, DType::F64),
            Err("index 3 is out of range for axis 0 of size 3".to_string())
        );
        assert_eq!(
            write_slice(&x, &g2, (Some(0), Some(3), 1), Write::Add, DType::F64),
            Err(
                "could not broadcast the update of shape (2, 2) into the part of shape (3, 2)"
                    .to_string()
            )
        );
        // an empty slice takes an empty or broadcastable increment
        let r = write_slice(&x, &g, (Some(5), None, 1), Write::Add, DType::F64).unwrap();
        assert_eq!(r, x);
    }

    #[test]
    fn take_picks_what_select_picks_along_every_axis() {
        // A (2, 3, 4) array: blocks before and after every axis.
        let v: Vec<f64> = (0..24).map(|i| i as f64 * 1.5 - 7.0).collect();
        let x = Array::from_shape_vec(IxDyn(&[2, 3, 4]), v.clone()).unwrap();
        for axis in 0..3 {
            let size = x.shape()[axis];
            let at: Vec<usize> = [size - 1, 0, size - 1, 1 % size].to_vec();
            let idx: Vec<i64> = at.iter().map(|&p| p as i64 - size as i64).collect();
            let got = take(
                &Value::F64(x.clone()),
                &Value::I64(Array::from_vec(idx).into_dyn()),
                axis as i64,
            )
            .unwrap();
            let want = x.select(Axis(axis), &at);
            assert_eq!(
                got,
                Value::F64(want.as_standard_layout().into_owned()),
                "axis {axis}"
            );
        }
        // A transposed operand is read in its logical order.
        let t = x.clone().permuted_axes(IxDyn(&[2, 0, 1]));
        let got = take(
            &Value::F64(t.clone()),
            &Value::I64(Array::from_vec(vec![1, 0]).into_dyn()),
            1,
        )
        .unwrap();
        let want = t.select(Axis(1), &[1, 0]);
        assert_eq!(got, Value::F64(want.as_standard_layout().into_owned()));
    }

    #[test]
    fn takes_and_writes_back() {
        let x = f(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[3, 2]);
        let idx = Value::I64(Array::from_shape_vec(IxDyn(&[2, 2]), vec![2, -3, 2, 1]).unwrap());
        let t = take(&x, &idx, 0).unwrap();
        assert_eq!(t, f(&[4.0, 5.0, 0.0, 1.0, 4.0, 5.0, 2.0, 3.0], &[2, 2, 2]));
        let t1 = take(
            &x,
            &Value::I64(Array::from_vec(vec![1, 1, 0]).into_dyn()),
            -1,
        )
        .unwrap();
        assert_eq!(
            t1,
            f(&[1.0, 1.0, 0.0, 3.0, 3.0, 2.0, 5.0, 5.0, 4.0], &[3, 3])
        );
        // row 2 twice: increments accumulate (numpy.add.at) ...
        let g = f(&[1.0, 2.0, 3.0, 4.0], &[2, 2, 1]);
        let r = write_take(&x, &g, &idx, 0, Write::Add, DType::F64).unwrap();
        assert_eq!(r, f(&[2.0, 3.0, 6.0, 7.0, 8.0, 9.0], &[3, 2]));
        // ... and the last replacement wins
        let r = write_take(&x, &g, &idx, 0, Write::Set, DType::F64).unwrap();
        assert_eq!(r, f(&[2.0, 2.0, 4.0, 4.0, 3.0, 3.0], &[3, 2]));
        assert_eq!(
            take(&x, &Value::I64(Array::from_vec(vec![3]).into_dyn()), 0),
            Err("index 3 is out of range for axis 0 of size 3".to_string())
        );
        assert!(write_take(&x, &f(&[1.0; 3], &[3]), &idx, 0, Write::Add, DType::F64).is_err());
    }

    #[test]
    fn part_shapes_match_the_slice_kernel() {
        let shape = [10usize, 2];
        for (a, b, c) in [
            (None, None, -1),
            (Some(5), Some(1), -2),
            (Some(-2), None, 1),
            (Some(10), Some(20), 1),
            (Some(1), Some(9), 3),
            (None, None, i64::MIN),
        ] {
            let p = Part::slice(&shape, a, b, c).unwrap();
            let x = Value::zeros(DType::F64, &shape);
            let s = super::super::shape::slice(&x, a, b, c).unwrap();
            assert_eq!(p.shape(&shape), s.shape(), "{a:?} {b:?} {c}");
        }
    }
}
