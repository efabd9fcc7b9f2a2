//! `dot` (numpy.dot for 0-, 1- and 2-D operands) and `matmul` (numpy.matmul:
//! batched, broadcasting the batch axes). Float products use ndarray's
//! `dot` (matrixmultiply); integer and boolean ones a plain triple loop.

use super::elementwise::{binary, broadcast_shape};
use crate::exec::Value;
use crate::lang::{BinaryOp, Type};
use ndarray::{Array2, ArrayD, ArrayView2, Axis, IxDyn};

/// Element types that `dot` and `matmul` work on.
trait MatElem: Clone + Default + 'static {
    fn matmul(a: ArrayView2<Self>, b: ArrayView2<Self>) -> Array2<Self>;
}

impl MatElem for f64 {
    fn matmul(a: ArrayView2<f64>, b: ArrayView2<f64>) -> Array2<f64> {
        a.dot(&b)
    }
}

impl MatElem for f32 {
    fn matmul(a: ArrayView2<f32>, b: ArrayView2<f32>) -> Array2<f32> {
        a.dot(&b)
    }
}

fn naive<T: Clone>(
    a: ArrayView2<T>,
    b: ArrayView2<T>,
    zero: T,
    add: impl Fn(T, T) -> T,
    mul: impl Fn(T, T) -> T,
) -> Array2<T> {
    let (m, k) = a.dim();
    let n = b.dim().1;
    Array2::from_shape_fn((m, n), |(i, j)| {
        (0..k).fold(zero.clone(), |s, p| {
            add(s, mul(a[(i, p)].clone(), b[(p, j)].clone()))
        })
    })
}

impl MatElem for i64 {
    fn matmul(a: ArrayView2<i64>, b: ArrayView2<i64>) -> Array2<i64> {
        naive(a, b, 0, i64::wrapping_add, i64::wrapping_mul)
    }
}

impl MatElem for bool {
    fn matmul(a: ArrayView2<bool>, b: ArrayView2<bool>) -> Array2<bool> {
        naive(a, b, false, |s, x| s | x, |x, y| x & y)
    }
}

/// Batched product of `a` (..., m, k) and `b` (..., k, n), both at least 2-D.
fn batched<T: MatElem>(a: &ArrayD<T>, b: &ArrayD<T>) -> Result<ArrayD<T>, String> {
    let (ra, rb) = (a.ndim(), b.ndim());
    let (m, k) = (a.shape()[ra - 2], a.shape()[ra - 1]);
    let (k2, n) = (b.shape()[rb - 2], b.shape()[rb - 1]);
    if k != k2 {
        return Err(format!(
            "inner dimensions differ: {:?} and {:?} ({k} != {k2})",
            a.shape(),
            b.shape()
        ));
    }
    let batch = broadcast_shape(&a.shape()[..ra - 2], &b.shape()[..rb - 2])?;
    let full = |mut sh: Vec<usize>, x: usize, y: usize| {
        sh.push(x);
        sh.push(y);
        sh
    };
    let (Some(av), Some(bv)) = (
        a.broadcast(IxDyn(&full(batch.clone(), m, k))),
        b.broadcast(IxDyn(&full(batch.clone(), k, n))),
    ) else {
        return Err("batch axes do not broadcast".into());
    };
    let nb: usize = batch.iter().product();
    let flat =
        |v: ndarray::ArrayViewD<T>, x: usize, y: usize| -> Result<ndarray::Array3<T>, String> {
            v.as_standard_layout()
                .into_owned()
                .into_shape_with_order((nb, x, y))
                .map_err(|e| e.to_string())
        };
    let (a3, b3) = (flat(av, m, k)?, flat(bv, k, n)?);
    let mut out = ndarray::Array3::<T>::default((nb, m, n));
    for i in 0..nb {
        out.index_axis_mut(Axis(0), i).assign(&T::matmul(
            a3.index_axis(Axis(0), i),
            b3.index_axis(Axis(0), i),
        ));
    }
    out.into_shape_with_order(IxDyn(&full(batch, m, n)))
        .map_err(|e| e.to_string())
}

fn matmul_typed<T: MatElem>(a: &ArrayD<T>, b: &ArrayD<T>) -> Result<ArrayD<T>, String> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err("matmul needs operands of at least 1 dimension".into());
    }
    let a2 = if a.ndim() == 1 {
        a.clone().insert_axis(Axis(0))
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.clone().insert_axis(Axis(1))
    } else {
        b.clone()
    };
    let mut r = batched(&a2, &b2)?;
    if b.ndim() == 1 {
        let last = r.ndim() - 1;
        r = r.index_axis_move(Axis(last), 0);
    }
    if a.ndim() == 1 {
        let row_axis = r.ndim() - 1 - (b.ndim() != 1) as usize;
        r = r.index_axis_move(Axis(row_axis), 0);
    }
    Ok(r)
}

fn dot_typed<T: MatElem>(a: &ArrayD<T>, b: &ArrayD<T>) -> Result<ArrayD<T>, String> {
    match (a.ndim(), b.ndim()) {
        (1 | 2, 1 | 2) => matmul_typed(a, b),
        _ => Err(format!(
            "dot takes 1-D or 2-D operands here, got {:?} and {:?}",
            a.shape(),
            b.shape()
        )),
    }
}

macro_rules! dispatch {
    ($f:ident, $a:expr, $b:expr) => {
        match ($a, $b) {
            (Value::F64(x), Value::F64(y)) => Value::F64($f(x, y)?),
            (Value::F32(x), Value::F32(y)) => Value::F32($f(x, y)?),
            (Value::I64(x), Value::I64(y)) => Value::I64($f(x, y)?),
            (Value::Bool(x), Value::Bool(y)) => Value::Bool($f(x, y)?),
            _ => return Err("internal: operands of different dtypes".into()),
        }
    };
}

/// numpy.dot; a 0-D operand multiplies elementwise.
pub fn dot(a: &Value, b: &Value, out: &Type) -> Result<Value, String> {
    if a.shape().is_empty() || b.shape().is_empty() {
        return binary(BinaryOp::Mul, a, b, out);
    }
    let (a, b) = (a.cast(out.dtype), b.cast(out.dtype));
    Ok(dispatch!(dot_typed, &a, &b))
}

/// numpy.matmul.
pub fn matmul(a: &Value, b: &Value, out: &Type) -> Result<Value, String> {
    let (a, b) = (a.cast(out.dtype), b.cast(out.dtype));
    Ok(dispatch!(matmul_typed, &a, &b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::DType;

    fn f(shape: &[usize], v: Vec<f64>) -> Value {
        Value::F64(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
    }

    #[test]
    fn dot_and_matmul_shapes() {
        let t = Type::new(DType::F64, vec![]);
        let m = f(&[2, 3], vec![1., 2., 3., 4., 5., 6.]);
        let v = f(&[3], vec![1., 0., -1.]);
        assert_eq!(dot(&m, &v, &t).unwrap(), f(&[2], vec![-2., -2.]));
        assert_eq!(dot(&v, &v, &t).unwrap(), f(&[], vec![2.]));
        let w = f(&[2], vec![1., 1.]);
        assert_eq!(dot(&w, &m, &t).unwrap(), f(&[3], vec![5., 7., 9.]));
        assert!(dot(&m, &m, &t).is_err());
        let batch = f(&[2, 1, 3], vec![1., 2., 3., 4., 5., 6.]);
        assert_eq!(matmul(&batch, &v, &t).unwrap(), f(&[2, 1], vec![-2., -2.]));
        assert_eq!(matmul(&w, &m, &t).unwrap(), f(&[3], vec![5., 7., 9.]));
    }
}
