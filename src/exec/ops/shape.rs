//! Shape and indexing kernels: transpose, reshape, expand_dims, stack,
//! concat, index (`X[i, j]`) and slice (`X[start:stop:step]`, with Python's
//! exact rules for negative steps and clamping).

use super::reduce::norm_axis;
use crate::exec::Value;
use crate::lang::{Dim, Type};
use crate::{each, each_try};
use ndarray::{ArrayD, Axis, IxDyn};

/// Reverses the axes, or permutes them by `perm` (negative entries count
/// from the end).
pub fn transpose(a: &Value, perm: Option<&[i64]>) -> Result<Value, String> {
    let nd = a.shape().len();
    let perm: Vec<usize> = match perm {
        None => (0..nd).rev().collect(),
        Some(p) => {
            let p = p
                .iter()
                .map(|&x| norm_axis(x, nd))
                .collect::<Result<Vec<_>, _>>()?;
            let mut seen = p.clone();
            seen.sort_unstable();
            if seen != (0..nd).collect::<Vec<_>>() {
                return Err(format!("{p:?} is not a permutation of the {nd} axes"));
            }
            p
        }
    };
    Ok(each!(a, x => x.view().permuted_axes(IxDyn(&perm)).as_standard_layout().into_owned()))
}

/// Reshapes in row-major order; `dims` are evaluated with the bound sizes,
/// one of them may be -1.
pub fn reshape(
    a: &Value,
    dims: &[Dim],
    bind: &dyn Fn(&str) -> Option<i64>,
) -> Result<Value, String> {
    let mut sizes: Vec<i64> = Vec::new();
    for d in dims {
        if d.as_known() == Some(-1) {
            sizes.push(-1);
        } else {
            sizes.push(
                d.eval(bind)
                    .ok_or_else(|| format!("size {d} is not bound"))?,
            );
        }
    }
    let total = a.len() as i64;
    let known: i64 = sizes.iter().filter(|&&s| s != -1).product();
    let holes = sizes.iter().filter(|&&s| s == -1).count();
    if holes == 1 {
        if known == 0 || total % known != 0 {
            return Err(format!("cannot reshape {:?} into {sizes:?}", a.shape()));
        }
        for s in sizes.iter_mut().filter(|s| **s == -1) {
            *s = total / known;
        }
    }
    if holes > 1 || sizes.iter().product::<i64>() != total {
        return Err(format!(
            "cannot reshape an array of shape {:?} ({total} elements) into {sizes:?}",
            a.shape()
        ));
    }
    let shape: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
    Ok(each_try!(a, x => x
        .as_standard_layout()
        .into_owned()
        .into_shape_with_order(IxDyn(&shape))
        .map_err(|e| e.to_string())))
}

/// Inserts a length-1 axis at `axis` of the result.
pub fn expand_dims(a: &Value, axis: i64) -> Result<Value, String> {
    let ax = norm_axis(axis, a.shape().len() + 1)?;
    Ok(each!(a, x => x.clone().insert_axis(Axis(ax))))
}

fn join<T: Clone>(
    parts: Vec<&ArrayD<T>>,
    axis: usize,
    new_axis: bool,
) -> Result<ArrayD<T>, String> {
    let views: Vec<_> = parts.iter().map(|p| p.view()).collect();
    if new_axis {
        ndarray::stack(Axis(axis), &views).map_err(|e| e.to_string())
    } else {
        ndarray::concatenate(Axis(axis), &views).map_err(|e| e.to_string())
    }
}

/// Stacks along a new axis 0 (`new_axis`), or concatenates along `axis`.
/// Arguments are converted to `out`'s dtype first.
pub fn stack_or_concat(args: &[&Value], axis: Option<i64>, out: &Type) -> Result<Value, String> {
    let cast: Vec<Value> = args.iter().map(|v| v.cast(out.dtype)).collect();
    let first = cast.first().ok_or("needs at least one array")?;
    let ax = match axis {
        Some(a) => norm_axis(a, first.shape().len())?,
        None => 0,
    };
    for v in &cast {
        let same = match axis {
            None => v.shape() == first.shape(),
            Some(_) => {
                v.shape().len() == first.shape().len()
                    && v.shape()
                        .iter()
                        .zip(first.shape())
                        .enumerate()
                        .all(|(i, (x, y))| i == ax || x == y)
            }
        };
        if !same {
            let shapes: Vec<_> = cast.iter().map(|v| v.shape().to_vec()).collect();
            return Err(format!("arrays of shapes {shapes:?} cannot be joined"));
        }
    }
    macro_rules! gather {
        ($var:ident) => {{
            let parts: Vec<_> = cast
                .iter()
                .filter_map(|v| match v {
                    Value::$var(x) => Some(x),
                    _ => None,
                })
                .collect();
            Value::$var(join(parts, ax, axis.is_none())?)
        }};
    }
    Ok(match first {
        Value::F64(_) => gather!(F64),
        Value::F32(_) => gather!(F32),
        Value::I64(_) => gather!(I64),
        Value::Bool(_) => gather!(Bool),
    })
}

/// `X[i, j, ...]` with `i64` scalar indices; negative ones count from the end.
pub fn index(a: &Value, idx: &[&Value]) -> Result<Value, String> {
    let mut pos = Vec::new();
    for (k, v) in idx.iter().enumerate() {
        let i = v.to_i64_scalar().ok_or("indices must be i64 scalars")?;
        let Some(&n) = a.shape().get(k) else {
            return Err(format!(
                "too many indices for an array of shape {:?}",
                a.shape()
            ));
        };
        let j = if i < 0 { i + n as i64 } else { i };
        if j < 0 || j >= n as i64 {
            return Err(format!(
                "index {i} is out of range for axis {k} of size {n}"
            ));
        }
        pos.push(j as usize);
    }
    Ok(each!(a, x => {
        let mut v = x.view();
        for &p in &pos {
            v = v.index_axis_move(Axis(0), p);
        }
        v.to_owned()
    }))
}

/// The indices `range(start, stop, step)` selects from a length `len`,
/// after Python's `slice.indices`.
pub fn slice_indices(len: usize, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<usize> {
    let n = len as i64;
    let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |v: i64| {
        if v < 0 {
            (v + n).max(lower)
        } else {
            v.min(upper)
        }
    };
    let s = start.map_or(if step > 0 { lower } else { upper }, clamp);
    let e = stop.map_or(if step > 0 { upper } else { lower }, clamp);
    let mut out = Vec::new();
    let mut i = s;
    while (step > 0 && i < e) || (step < 0 && i > e) {
        out.push(i as usize);
        i += step;
    }
    out
}

/// `X[start:stop:step]` along axis 0.
pub fn slice(a: &Value, start: Option<i64>, stop: Option<i64>, step: i64) -> Result<Value, String> {
    if step == 0 {
        return Err("slice step cannot be zero".into());
    }
    let Some(&len) = a.shape().first() else {
        return Err("cannot slice a scalar".into());
    };
    let idx = slice_indices(len, start, stop, step);
    Ok(each!(a, x => x.select(Axis(0), &idx)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_slice_semantics() {
        let r = |s, e, st| slice_indices(10, s, e, st);
        assert_eq!(r(None, None, -1), (0..10).rev().collect::<Vec<_>>());
        assert_eq!(r(Some(5), Some(1), -2), vec![5, 3]);
        assert_eq!(r(Some(-2), None, 1), vec![8, 9]);
        assert_eq!(r(Some(10), Some(20), 1), Vec::<usize>::new());
        assert_eq!(r(None, None, 3), vec![0, 3, 6, 9]);
        assert_eq!(r(Some(-100), Some(2), 1), vec![0, 1]);
        assert_eq!(r(Some(3), Some(-100), -1), vec![3, 2, 1, 0]);
        assert_eq!(slice_indices(0, None, None, -1), Vec::<usize>::new());
    }

    #[test]
    fn index_and_reshape() {
        let x = Value::F64(
            ArrayD::from_shape_vec(IxDyn(&[2, 3]), (0..6).map(f64::from).collect()).unwrap(),
        );
        let i = |v: i64| Value::I64(ArrayD::from_elem(IxDyn(&[]), v));
        assert_eq!(index(&x, &[&i(-1), &i(0)]).unwrap().sum_f64(), 3.0);
        assert!(index(&x, &[&i(2)]).is_err());
        let t = transpose(&x, None).unwrap();
        let r = reshape(&t, &[Dim::known(-1)], &|_| None).unwrap();
        assert_eq!(
            r.as_f64_array().into_raw_vec_and_offset().0,
            vec![0., 3., 1., 4., 2., 5.]
        );
        assert!(reshape(&x, &[Dim::known(4)], &|_| None).is_err());
    }
}
