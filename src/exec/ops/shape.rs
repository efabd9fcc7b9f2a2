//! Shape ops: `transpose reshape expand_dims squeeze flip stack concat`,
//! and indexing (`index`, `slice` with Python's slice semantics).
//!
//! Owns: moving data between shapes, with every runtime size checked
//! before an ndarray call that would panic on it. Results own their data
//! (a transpose keeps permuted strides; everything else is row-major).
//! Must not: decide result dtypes (stack and concat cast to the dtype given).

use super::normalize_axis;
use crate::exec::value::{eval_shape, with_array, with_elem, Value};
use crate::lang::{DType, Dim};
use ndarray::{Axis, CowArray, IxDyn, Slice};

/// Reverses the axes (`perm` is `None`) or permutes them (negative entries
/// count from the end).
pub fn transpose(x: &Value, perm: Option<&[i64]>) -> Result<Value, String> {
    let n = x.ndim();
    let order: Vec<usize> = match perm {
        None => (0..n).rev().collect(),
        Some(p) => {
            if p.len() != n {
                return Err(format!(
                    "axes don't match array: {} axes given for an array of dimension {n}",
                    p.len()
                ));
            }
            let order = p
                .iter()
                .map(|&a| normalize_axis(a, n))
                .collect::<Result<Vec<_>, _>>()?;
            let mut seen = vec![false; n];
            for &a in &order {
                if std::mem::replace(&mut seen[a], true) {
                    return Err(format!("repeated axis {a} in transpose"));
                }
            }
            order
        }
    };
    Ok(with_array!(x, a => Value::from(a.clone().permuted_axes(IxDyn(&order)))))
}

/// Reshapes to `sizes` (symbolic sizes bound by `dims`; one size may be
/// `-1`, inferred). Data is read in row-major order.
pub fn reshape(
    x: &Value,
    sizes: &[Dim],
    dims: &dyn Fn(&str) -> Option<i64>,
) -> Result<Value, String> {
    let len = x.len();
    let mut shape = Vec::with_capacity(sizes.len());
    let mut infer = None;
    let mut shown = Vec::with_capacity(sizes.len());
    for (i, d) in sizes.iter().enumerate() {
        match d.as_known() {
            Some(-1) => {
                if infer.replace(i).is_some() {
                    return Err("can only specify one unknown dimension".into());
                }
                shape.push(1);
                shown.push("-1".to_string());
            }
            Some(k) if k < 0 => return Err(format!("negative size {k} in reshape")),
            _ => {
                let n = eval_shape(std::slice::from_ref(d), dims)?[0];
                shape.push(n);
                shown.push(n.to_string());
            }
        }
    }
    let shown = if shown.len() == 1 {
        format!("({},)", shown[0])
    } else {
        format!("({})", shown.join(", "))
    };
    let bad = || format!("cannot reshape array of size {len} into shape {shown}");
    let known = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(bad)?;
    if let Some(i) = infer {
        if known == 0 || !len.is_multiple_of(known) {
            return Err(bad());
        }
        shape[i] = len / known;
    } else if known != len {
        return Err(bad());
    }
    Ok(with_array!(x, a => Value::from(
        a.as_standard_layout()
            .into_owned()
            .into_shape_with_order(IxDyn(&shape))
            .map_err(|e| format!("internal: {e}"))?
    )))
}

/// Inserts a length-1 axis at `axis` of the result (negative counts from
/// the end of the result).
pub fn expand_dims(x: &Value, axis: i64) -> Result<Value, String> {
    let ax = normalize_axis(axis, x.ndim() + 1)?;
    Ok(with_array!(x, a => Value::from(a.clone().insert_axis(Axis(ax)))))
}

/// Stacks equal-shaped values along a new axis 0, cast to `out`.
pub fn stack(xs: &[&Value], out: DType) -> Result<Value, String> {
    let first = xs.first().ok_or("need at least one array to stack")?;
    if let Some(other) = xs.iter().find(|v| v.shape() != first.shape()) {
        return Err(format!(
            "all input arrays must have the same shape; got {} and {}",
            first.shape_str(),
            other.shape_str()
        ));
    }
    Ok(with_elem!(out, T => {
        let arrs: Vec<CowArray<'_, T, IxDyn>> = xs.iter().map(|v| v.to_array::<T>()).collect();
        let views: Vec<_> = arrs.iter().map(|a| a.view()).collect();
        Value::from(ndarray::stack(Axis(0), &views).map_err(|e| format!("internal: {e}"))?)
    }))
}

/// Concatenates values along `axis` (negative counts from the end), cast
/// to `out`; all other sizes must match.
pub fn concat(xs: &[&Value], axis: i64, out: DType) -> Result<Value, String> {
    let first = xs.first().ok_or("need at least one array to concatenate")?;
    let n = first.ndim();
    if n == 0 {
        return Err("zero-dimensional arrays cannot be concatenated".into());
    }
    let ax = normalize_axis(axis, n)?;
    for (i, v) in xs.iter().enumerate().skip(1) {
        if v.ndim() != n {
            return Err(format!(
                "all the input arrays must have same number of dimensions, but the array at \
                 index 0 has {n} dimension(s) and the array at index {i} has {} dimension(s)",
                v.ndim()
            ));
        }
        for d in 0..n {
            if d != ax && v.shape()[d] != first.shape()[d] {
                return Err(format!(
                    "all the input array dimensions except for the concatenation axis must \
                     match exactly, but along dimension {d}, the array at index 0 has size {} \
                     and the array at index {i} has size {}",
                    first.shape()[d],
                    v.shape()[d]
                ));
            }
        }
    }
    Ok(with_elem!(out, T => {
        let arrs: Vec<CowArray<'_, T, IxDyn>> = xs.iter().map(|v| v.to_array::<T>()).collect();
        let views: Vec<_> = arrs.iter().map(|a| a.view()).collect();
        Value::from(ndarray::concatenate(Axis(ax), &views).map_err(|e| format!("internal: {e}"))?)
    }))
}

/// The positions `x[i, j, ...]` picks on the leading axes of `shape`: one
/// integer scalar per axis, negative from the end, bounds checked.
pub fn index_positions(shape: &[usize], idx: &[&Value]) -> Result<Vec<usize>, String> {
    if idx.len() > shape.len() {
        return Err(format!(
            "too many indices for array: array is {}-dimensional, but {} were indexed",
            shape.len(),
            idx.len()
        ));
    }
    let mut pos = Vec::with_capacity(idx.len());
    for (ax, v) in idx.iter().enumerate() {
        let i = match (v.dtype(), v.to_i64_scalar()) {
            (DType::I64 | DType::I32, Some(i)) => i,
            _ => {
                return Err(format!(
                    "index {ax} must be an integer scalar, got {}{}",
                    v.dtype(),
                    v.shape_str()
                ))
            }
        };
        pos.push(index_position(shape[ax], ax, i)?);
    }
    Ok(pos)
}

/// Index `i` (negative from the end) on axis `ax` of length `size`.
pub fn index_position(size: usize, ax: usize, i: i64) -> Result<usize, String> {
    let j = if i < 0 {
        i.checked_add(size as i64)
    } else {
        Some(i)
    };
    match j {
        Some(j) if j >= 0 && (j as u64) < size as u64 => Ok(j as usize),
        _ => Err(format!(
            "index {i} is out of range for axis {ax} of size {size}"
        )),
    }
}

/// `x[i, j, ...]`: one integer scalar per leading axis, negative from the
/// end, bounds checked.
pub fn index(x: &Value, idx: &[&Value]) -> Result<Value, String> {
    let pos = index_positions(x.shape(), idx)?;
    Ok(with_array!(x, a => {
        let mut v = a.view();
        for &i in &pos {
            v = v.index_axis_move(Axis(0), i);
        }
        Value::from(v.to_owned())
    }))
}

/// Python's `slice(start, stop, step).indices(len)`, returned as the first
/// index, the step and the number of elements selected.
pub fn slice_indices(
    len: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> Result<(i64, i64, usize), String> {
    if step == 0 {
        return Err("slice step cannot be zero".into());
    }
    let len = len as i128;
    let st = step as i128;
    let (lower, upper) = if st < 0 { (-1, len - 1) } else { (0, len) };
    let clamp = |v: Option<i64>, default: i128| match v {
        None => default,
        Some(v) => {
            let v = v as i128;
            if v < 0 {
                (v + len).max(lower)
            } else {
                v.min(upper)
            }
        }
    };
    let b = clamp(start, if st < 0 { upper } else { lower });
    let e = clamp(stop, if st < 0 { lower } else { upper });
    let count = if st > 0 {
        if b < e {
            (e - b - 1) / st + 1
        } else {
            0
        }
    } else if e < b {
        (b - e - 1) / (-st) + 1
    } else {
        0
    };
    // b lies in [-1, len] and count in [0, len], so both fit.
    Ok((b as i64, step, count as usize))
}

/// `x[start:stop:step]` along axis 0, with Python's slice semantics
/// (negative bounds from the end, clamping, negative steps).
pub fn slice(x: &Value, start: Option<i64>, stop: Option<i64>, step: i64) -> Result<Value, String> {
    if x.ndim() == 0 {
        return Err("a 0-dimensional array cannot be sliced".into());
    }
    let sl = slice_spec(x.shape()[0], start, stop, step)?;
    Ok(with_array!(x, a => Value::from(a.slice_axis(Axis(0), sl).to_owned())))
}

/// `[start:stop:step]` of an axis of length `len` as an ndarray slice,
/// Python's semantics (see [`slice_indices`]).
pub fn slice_spec(
    len: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> Result<Slice, String> {
    let (first, step, count) = slice_indices(len, start, stop, step)?;
    Ok(if count == 0 {
        Slice::new(0, Some(0), 1)
    } else if count == 1 {
        Slice::new(first as isize, Some(first as isize + 1), 1)
    } else {
        // With 2 or more elements |step| < len, so nothing below overflows.
        let last = first + (count as i64 - 1) * step;
        let (lo, hi) = if step > 0 {
            (first, last)
        } else {
            (last, first)
        };
        // ndarray takes [lo, hi] and steps from the back when step < 0.
        Slice::new(lo as isize, Some(hi as isize + 1), step as isize)
    })
}

/// `x` reversed along `axis` (negative counts from the end).
pub fn flip(x: &Value, axis: i64) -> Result<Value, String> {
    let ax = normalize_axis(axis, x.ndim())?;
    Ok(with_array!(x, a => {
        let mut v = a.view();
        v.invert_axis(Axis(ax));
        Value::from(v.to_owned())
    }))
}

/// `x` without its length-1 axis `axis` (negative counts from the end).
pub fn squeeze(x: &Value, axis: i64) -> Result<Value, String> {
    let ax = normalize_axis(axis, x.ndim())?;
    if x.shape()[ax] != 1 {
        return Err(format!(
            "cannot squeeze axis {axis} of an array of shape {}: its size is {}, not 1",
            x.shape_str(),
            x.shape()[ax]
        ));
    }
    Ok(with_array!(x, a => Value::from(a.view().index_axis_move(Axis(ax), 0).to_owned())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    fn i(v: &[i64], shape: &[usize]) -> Value {
        Value::I64(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }
    fn ar(shape: &[usize]) -> Value {
        let n: usize = shape.iter().product();
        i(&(0..n as i64).collect::<Vec<_>>(), shape)
    }
    fn flat(v: &Value) -> Vec<i64> {
        v.as_f64_array().iter().map(|&x| x as i64).collect()
    }
    fn dims(s: &str) -> Option<i64> {
        (s == "T").then_some(4)
    }

    #[test]
    fn python_slices() {
        let x = ar(&[10]);
        let sl = |a, b, c| flat(&slice(&x, a, b, c).unwrap());
        // Compared with Python: list(range(10))[...]
        assert_eq!(sl(None, None, -1), vec![9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(sl(Some(5), Some(1), -2), vec![5, 3]);
        assert_eq!(sl(Some(-2), None, 1), vec![8, 9]);
        assert_eq!(sl(Some(10), Some(20), 1), Vec::<i64>::new());
        assert_eq!(sl(Some(-100), Some(3), 1), vec![0, 1, 2]);
        assert_eq!(sl(Some(100), None, -3), vec![9, 6, 3, 0]);
        assert_eq!(sl(None, Some(-100), -1), vec![9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(sl(Some(-1), Some(-11), -4), vec![9, 5, 1]);
        assert_eq!(sl(Some(2), Some(2), 1), Vec::<i64>::new());
        assert_eq!(sl(Some(1), Some(9), 3), vec![1, 4, 7]);
        assert_eq!(sl(Some(3), None, i64::MAX), vec![3]);
        assert_eq!(sl(None, None, i64::MIN), vec![9]);
        assert_eq!(
            sl(Some(i64::MIN), Some(i64::MAX), 1),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(sl(Some(0), Some(5), -1), Vec::<i64>::new());
        assert_eq!(
            slice(&x, None, None, 0),
            Err("slice step cannot be zero".to_string())
        );
        // an empty axis and a 2-D value
        assert_eq!(slice(&ar(&[0]), None, None, -1).unwrap().shape(), &[0]);
        let m = slice(&ar(&[4, 2]), Some(3), Some(0), -2).unwrap();
        assert_eq!(m, i(&[6, 7, 2, 3], &[2, 2]));
        assert_eq!(
            slice(&ar(&[4, 2]), Some(9), None, 1).unwrap().shape(),
            &[0, 2]
        );
        assert!(slice(&Value::scalar_i64(1), None, None, 1).is_err());
    }

    #[test]
    fn indexing() {
        let x = ar(&[5, 3]);
        let s = Value::scalar_i64;
        assert_eq!(index(&x, &[&s(1)]).unwrap(), i(&[3, 4, 5], &[3]));
        assert_eq!(index(&x, &[&s(-1), &s(-3)]).unwrap(), Value::scalar_i64(12));
        assert_eq!(
            index(&x, &[&s(7)]),
            Err("index 7 is out of range for axis 0 of size 5".to_string())
        );
        assert_eq!(
            index(&x, &[&s(0), &s(-4)]),
            Err("index -4 is out of range for axis 1 of size 3".to_string())
        );
        assert!(index(&x, &[&s(i64::MIN)]).is_err());
        assert!(index(&x, &[&s(0), &s(0), &s(0)]).is_err());
        assert!(index(&x, &[&Value::scalar_f64(1.0)]).is_err());
        assert!(index(&x, &[&Value::scalar_bool(true)]).is_err());
        assert!(index(&ar(&[0]), &[&s(0)]).is_err());
    }

    #[test]
    fn transposes() {
        let x = ar(&[2, 3]);
        let t = transpose(&x, None).unwrap();
        assert_eq!(t, i(&[0, 3, 1, 4, 2, 5], &[3, 2]));
        let y = ar(&[2, 3, 4]);
        let p = transpose(&y, Some(&[1, -1, 0])).unwrap();
        assert_eq!(p.shape(), &[3, 4, 2]);
        // np.arange(24).reshape(2,3,4).transpose(1,2,0)[2, 1] == [9, 21]
        assert_eq!(
            index(&p, &[&Value::scalar_i64(2), &Value::scalar_i64(1)]).unwrap(),
            i(&[9, 21], &[2])
        );
        assert!(transpose(&y, Some(&[0, 0, 1])).is_err());
        assert!(transpose(&y, Some(&[0, 1])).is_err());
        assert!(transpose(&y, Some(&[0, 1, 3])).is_err());
    }

    #[test]
    fn reshapes() {
        let x = ar(&[2, 3]);
        let r = reshape(&x, &[Dim::known(3), Dim::known(-1)], &dims).unwrap();
        assert_eq!(r, i(&[0, 1, 2, 3, 4, 5], &[3, 2]));
        // non-contiguous data is read in row-major order
        let t = transpose(&x, None).unwrap();
        let r = reshape(&t, &[Dim::known(-1)], &dims).unwrap();
        assert_eq!(r, i(&[0, 3, 1, 4, 2, 5], &[6]));
        let y = ar(&[8]);
        let r = reshape(&y, &[Dim::sym("T"), Dim::known(2)], &dims).unwrap();
        assert_eq!(r.shape(), &[4, 2]);
        assert_eq!(
            reshape(&y, &[Dim::known(3), Dim::known(-1)], &dims),
            Err("cannot reshape array of size 8 into shape (3, -1)".to_string())
        );
        assert_eq!(
            reshape(&y, &[Dim::known(3)], &dims),
            Err("cannot reshape array of size 8 into shape (3,)".to_string())
        );
        assert_eq!(
            reshape(&y, &[Dim::sym("N")], &dims),
            Err("symbolic size 'N' is not bound: give --dim N=N".to_string())
        );
        assert!(reshape(&y, &[Dim::known(-1), Dim::known(-1)], &dims).is_err());
        assert!(reshape(&ar(&[0]), &[Dim::known(0), Dim::known(-1)], &dims).is_err());
        assert_eq!(
            reshape(
                &Value::scalar_i64(3),
                &[Dim::known(1), Dim::known(1)],
                &dims
            )
            .unwrap(),
            i(&[3], &[1, 1])
        );
        let big = Dim::known(1 << 40);
        assert!(reshape(&y, &[big.clone(), big.clone(), big], &dims).is_err());
    }

    #[test]
    fn expand_stack_concat() {
        let x = ar(&[2, 3]);
        assert_eq!(expand_dims(&x, 0).unwrap().shape(), &[1, 2, 3]);
        assert_eq!(expand_dims(&x, -1).unwrap().shape(), &[2, 3, 1]);
        assert_eq!(expand_dims(&x, 2).unwrap().shape(), &[2, 3, 1]);
        assert_eq!(expand_dims(&x, -3).unwrap().shape(), &[1, 2, 3]);
        assert!(expand_dims(&x, 3).is_err());
        assert!(expand_dims(&x, -4).is_err());
        let f = Value::scalar_f64(0.5);
        let s = stack(&[&Value::scalar_i64(1), &f], DType::F64).unwrap();
        assert_eq!(s, Value::F64(Array::from_vec(vec![1.0, 0.5]).into_dyn()));
        assert_eq!(
            stack(&[&x, &x, &x], DType::I64).unwrap().shape(),
            &[3, 2, 3]
        );
        assert_eq!(
            stack(&[&x, &ar(&[3, 2])], DType::I64),
            Err("all input arrays must have the same shape; got (2, 3) and (3, 2)".to_string())
        );
        let c = concat(&[&x, &ar(&[1, 3])], 0, DType::I64).unwrap();
        assert_eq!(c, i(&[0, 1, 2, 3, 4, 5, 0, 1, 2], &[3, 3]));
        let c = concat(&[&x, &ar(&[2, 1])], -1, DType::I64).unwrap();
        assert_eq!(c, i(&[0, 1, 2, 0, 3, 4, 5, 1], &[2, 4]));
        assert!(concat(&[&x, &ar(&[2, 1])], 0, DType::I64).is_err());
        assert!(concat(&[&x, &ar(&[6])], 0, DType::I64).is_err());
        assert!(concat(&[&Value::scalar_i64(1)], 0, DType::I64).is_err());
        assert!(concat(&[], 0, DType::I64).is_err());
        assert!(stack(&[], DType::I64).is_err());
    }
}
