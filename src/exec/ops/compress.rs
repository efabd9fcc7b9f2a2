//! Rows chosen by a mask: [`compress`] (the rows of `X` where a bool
//! vector is true, what `filter` and `filterall` lower to) and
//! [`uncompress`] (rows put back at the true positions of a mask, zeros
//! elsewhere: `compress`'s gradient, and `compress` is its own).
//!
//! Owns: the two kernels, with the check that the mask is a bool vector
//! as long as the rows (the lengths may be known only at run time).
//! Must not: evaluate a predicate (the mask is an operand).

use crate::exec::value::{Elem, Value};
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};

/// The mask as bools, checked to be a vector of `rows` elements.
fn mask_of(m: &Value, rows: usize, what: &str) -> Result<Vec<bool>, String> {
    let Value::Bool(a) = m else {
        return Err(format!("the mask must be bool, got {}", m.dtype()));
    };
    if a.ndim() != 1 {
        return Err(format!(
            "the mask must be a vector, got {} dimension(s)",
            a.ndim()
        ));
    }
    if a.len() != rows {
        return Err(format!(
            "the mask has {} elements but {what} has {rows} rows",
            a.len()
        ));
    }
    Ok(a.iter().copied().collect())
}

/// The rows of `x` where `m` is true, in order (`numpy.compress(m, x,
/// axis=0)`).
pub fn compress(m: &Value, x: &Value) -> Result<Value, String> {
    let Some(&rows) = x.shape().first() else {
        return Err("compress needs an operand with a leading axis, got a scalar".into());
    };
    let mask = mask_of(m, rows, "the operand")?;
    fn go<T: Elem>(a: &ArrayD<T>, mask: &[bool]) -> ArrayD<T> {
        let kept: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
        a.select(Axis(0), &kept)
    }
    Ok(match x {
        Value::F64(a) => Value::F64(go(a, &mask)),
        Value::F32(a) => Value::F32(go(a, &mask)),
        Value::I64(a) => Value::I64(go(a, &mask)),
        Value::I32(a) => Value::I32(go(a, &mask)),
        Value::Bool(a) => Value::Bool(go(a, &mask)),
    })
}

/// `g`'s rows at the true positions of `m` (as many as there are), zeros
/// in the other rows: `len(m)` rows of `g`'s row shape.
pub fn uncompress(m: &Value, g: &Value) -> Result<Value, String> {
    let Some(&given) = g.shape().first() else {
        return Err("uncompress needs rows to put back, got a scalar".into());
    };
    let Value::Bool(ma) = m else {
        return Err(format!("the mask must be bool, got {}", m.dtype()));
    };
    let mask = mask_of(m, ma.len(), "the mask")?;
    let kept = mask.iter().filter(|&&b| b).count();
    if kept != given {
        return Err(format!(
            "the mask keeps {kept} rows but {given} rows are given"
        ));
    }
    fn go<T: Elem>(a: &ArrayViewD<'_, T>, mask: &[bool]) -> ArrayD<T> {
        let mut shape = a.shape().to_vec();
        shape[0] = mask.len();
        let mut out = ArrayD::from_elem(IxDyn(&shape), T::zero());
        let mut next = 0;
        for (i, &keep) in mask.iter().enumerate() {
            if keep {
                out.index_axis_mut(Axis(0), i)
                    .assign(&a.index_axis(Axis(0), next));
                next += 1;
            }
        }
        out
    }
    Ok(match g {
        Value::F64(a) => Value::F64(go(&a.view(), &mask)),
        Value::F32(a) => Value::F32(go(&a.view(), &mask)),
        Value::I64(a) => Value::I64(go(&a.view(), &mask)),
        Value::I32(a) => Value::I32(go(&a.view(), &mask)),
        Value::Bool(a) => Value::Bool(go(&a.view(), &mask)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{arr1, arr2};

    #[test]
    fn compress_keeps_the_true_rows_and_uncompress_puts_them_back() {
        let x = Value::F64(arr2(&[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).into_dyn());
        let m = Value::Bool(arr1(&[true, false, true]).into_dyn());
        let kept = compress(&m, &x).unwrap();
        assert_eq!(kept, Value::F64(arr2(&[[1.0, 2.0], [5.0, 6.0]]).into_dyn()));
        let back = uncompress(&m, &kept).unwrap();
        assert_eq!(
            back,
            Value::F64(arr2(&[[1.0, 2.0], [0.0, 0.0], [5.0, 6.0]]).into_dyn())
        );
        // None kept: zero rows, and back to zeros.
        let none = Value::Bool(arr1(&[false, false, false]).into_dyn());
        let empty = compress(&none, &x).unwrap();
        assert_eq!(empty.shape(), &[0, 2]);
        assert_eq!(uncompress(&none, &empty).unwrap().sum_f64(), 0.0);
        // Lengths that differ, a mask that is not bool.
        let short = Value::Bool(arr1(&[true]).into_dyn());
        assert!(compress(&short, &x)
            .unwrap_err()
            .contains("1 elements but the operand has 3 rows"));
        assert!(uncompress(&m, &x)
            .unwrap_err()
            .contains("keeps 2 rows but 3 rows are given"));
        assert!(compress(&x, &x).unwrap_err().contains("must be bool"));
    }
}
