//! Increments: `inc_index` and `inc_slice`, a copy of `X` with `G` added
//! into one part of it (NumPy's `x[i, j] += g` and `x[a:b:s] += g` on a
//! copy; PyTensor's `inc_subtensor`). They are what the gradients of
//! `index` and `slice` scatter into.
//!
//! Owns: [`Part`] (where an increment adds: the positions of an index, or
//! a slice of axis 0), locating it in a shape with the errors `index` and
//! `slice` give, and [`add_into`], the one loop both executors run (the
//! plan calls it on its own storage, in place when `X` is dead). Must not:
//! decide result dtypes (the caller passes them: `X`'s).

use super::elementwise::Arith;
use super::shape::{index_positions, slice_spec};
use crate::exec::value::{shape_str, with_elem, Value};
use crate::lang::DType;
use ndarray::{ArrayViewD, ArrayViewMutD, Axis, Slice};

/// The part of `X` an increment adds into.
#[derive(Clone, Debug, PartialEq)]
pub enum Part<'a> {
    /// `X[i, j, ...]`: one position on each leading axis.
    Index(&'a [usize]),
    /// `X[start:stop:step]` along axis 0.
    Slice(Slice),
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
        }
    }
}

/// Checks that `g_shape` broadcasts to the part of an array of `x_shape`:
/// the error `add_into` would give, before anything is written.
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
            "could not broadcast the increment of shape {} into the part of shape {}",
            shape_str(g_shape),
            shape_str(&p)
        ))
    }
}

/// `x[part] += g`, `g` broadcast to the part's shape (checked first:
/// nothing is written when it does not fit).
pub fn add_into<T: Arith>(
    x: &mut ArrayViewMutD<'_, T>,
    part: &Part,
    g: &ArrayViewD<'_, T>,
) -> Result<(), String> {
    check_fits(x.shape(), part, g.shape())?;
    let mut region = x.view_mut();
    match part {
        Part::Index(pos) => {
            for &i in *pos {
                region = region.index_axis_move(Axis(0), i);
            }
        }
        Part::Slice(sl) => region.slice_axis_inplace(Axis(0), *sl),
    }
    let Some(gb) = g.broadcast(region.raw_dim()) else {
        return Err("internal: the increment does not broadcast after all".into());
    };
    region.zip_mut_with(&gb, |r, &v| *r = r.add(v));
    Ok(())
}

/// A copy of `x` (as `out`) with `g` (cast to `out`) added at `part`.
fn increment(x: &Value, g: &Value, part: &Part, out: DType) -> Result<Value, String> {
    Ok(with_elem!(out, T => {
        let mut a = x.to_array::<T>().into_owned();
        let gv = g.to_array::<T>();
        add_into(&mut a.view_mut(), part, &gv.view())?;
        Value::from(a)
    }))
}

/// `(inc_index X G I ...)`: indices as `index` reads them.
pub fn inc_index(x: &Value, g: &Value, idx: &[&Value], out: DType) -> Result<Value, String> {
    let pos = index_positions(x.shape(), idx)?;
    increment(x, g, &Part::Index(&pos), out)
}

/// `(inc_slice X G START STOP STEP)`: the slice as `slice` takes it.
pub fn inc_slice(
    x: &Value,
    g: &Value,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
    out: DType,
) -> Result<Value, String> {
    let part = Part::slice(x.shape(), start, stop, step)?;
    increment(x, g, &part, out)
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
        let r = inc_index(&x, &g, &[&Value::scalar_i64(-1)], DType::F64).unwrap();
        assert_eq!(r, f(&[0.0, 1.0, 2.0, 3.0, 14.0, 25.0], &[3, 2]));
        // a scalar increment broadcasts over the row
        let r = inc_index(
            &x,
            &Value::scalar_f64(1.0),
            &[&Value::scalar_i64(0)],
            DType::F64,
        );
        assert_eq!(r.unwrap(), f(&[1.0, 2.0, 2.0, 3.0, 4.0, 5.0], &[3, 2]));
        // x[::-2] += [[1, 1], [2, 2]]: rows 2 and 0
        let g2 = f(&[1.0, 1.0, 2.0, 2.0], &[2, 2]);
        let r = inc_slice(&x, &g2, None, None, -2, DType::F64).unwrap();
        assert_eq!(r, f(&[2.0, 3.0, 2.0, 3.0, 5.0, 6.0], &[3, 2]));
        assert_eq!(
            inc_index(&x, &g, &[&Value::scalar_i64(3)], DType::F64),
            Err("index 3 is out of range for axis 0 of size 3".to_string())
        );
        assert_eq!(
            inc_slice(&x, &g2, Some(0), Some(3), 1, DType::F64),
            Err(
                "could not broadcast the increment of shape (2, 2) into the part of shape (3, 2)"
                    .to_string()
            )
        );
        // an empty slice takes an empty or broadcastable increment
        let r = inc_slice(&x, &g, Some(5), None, 1, DType::F64).unwrap();
        assert_eq!(r, x);
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
