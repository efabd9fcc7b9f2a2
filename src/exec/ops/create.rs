//! Creation ops and leaves: `fill zeros zeros_like ones arange tensor`, literals and
//! symbolic sizes used as values.
//!
//! Owns: building new tensors from static types, whose symbolic sizes are
//! bound by the run's `dims`; sizes are checked so that an absurd size is an
//! error, not an allocation failure. Must not: read program inputs.

use crate::exec::value::{checked_len, eval_shape, with_elem, Elem, Value};
use crate::lang::{DType, Dim, Scalar, Type};
use ndarray::{ArrayD, IxDyn};

/// A tensor of type `ty` (dtype `out`) filled with the single element of
/// `value`, cast to `out`.
pub fn fill(
    ty: &Type,
    value: &Value,
    out: DType,
    dims: &dyn Fn(&str) -> Option<i64>,
) -> Result<Value, String> {
    if value.len() != 1 {
        return Err(format!(
            "the fill value must be a scalar, got shape {}",
            value.shape_str()
        ));
    }
    let shape = eval_shape(&ty.shape, dims)?;
    with_elem!(out, T => {
        let x = value.to_array::<T>().iter().next().copied().unwrap_or_else(T::zero);
        Value::try_full::<T>(&shape, x)
    })
}

/// Zeros of type `ty` (dtype `out`).
pub fn zeros(ty: &Type, out: DType, dims: &dyn Fn(&str) -> Option<i64>) -> Result<Value, String> {
    let shape = eval_shape(&ty.shape, dims)?;
    with_elem!(out, T => Value::try_full::<T>(&shape, T::zero()))
}

/// Zeros of `x`'s runtime shape (dtype `out`).
pub fn zeros_like(x: &Value, out: DType) -> Result<Value, String> {
    with_elem!(out, T => Value::try_full::<T>(x.shape(), T::zero()))
}

/// Ones of type `ty` (dtype `out`).
pub fn ones(ty: &Type, out: DType, dims: &dyn Fn(&str) -> Option<i64>) -> Result<Value, String> {
    let shape = eval_shape(&ty.shape, dims)?;
    with_elem!(out, T => Value::try_full::<T>(&shape, T::one()))
}

/// `(eye TYPE)`: ones on the main diagonal of a 2-D type (dtype `out`),
/// zeros elsewhere.
pub fn eye(ty: &Type, out: DType, dims: &dyn Fn(&str) -> Option<i64>) -> Result<Value, String> {
    let shape = eval_shape(&ty.shape, dims)?;
    if shape.len() != 2 {
        return Err(format!("the type must be 2-D, got {ty}"));
    }
    let v = with_elem!(out, T => {
        let mut v = Value::try_full::<T>(&shape, T::zero())?;
        if let Some(a) = T::peek_mut(&mut v) {
            for k in 0..shape[0].min(shape[1]) {
                a[[k, k].as_slice()] = T::one();
            }
        }
        v
    });
    Ok(v)
}

/// `0, 1, ..., n-1` as `i64`.
pub fn arange(n: &Dim, dims: &dyn Fn(&str) -> Option<i64>) -> Result<Value, String> {
    let shape = eval_shape(std::slice::from_ref(n), dims)?;
    let mut v = Value::try_full::<i64>(&shape, 0)?;
    if let Value::I64(a) = &mut v {
        for (k, x) in a.iter_mut().enumerate() {
            *x = k as i64;
        }
    }
    Ok(v)
}

/// A literal tensor of type `ty` (dtype `out`) holding `values` row-major.
pub fn tensor(
    ty: &Type,
    values: &[Scalar],
    out: DType,
    dims: &dyn Fn(&str) -> Option<i64>,
) -> Result<Value, String> {
    let shape = eval_shape(&ty.shape, dims)?;
    let n = checked_len(&shape, out)?;
    if n != values.len() {
        return Err(format!(
            "a tensor of shape {} needs {n} values, got {}",
            crate::exec::value::shape_str(&shape),
            values.len()
        ));
    }
    Ok(with_elem!(out, T => {
        let data: Vec<T> = values.iter().map(|&s| Value::scalar_as::<T>(s)).collect();
        T::wrap(ArrayD::from_shape_vec(IxDyn(&shape), data).map_err(|e| format!("internal: {e}"))?)
    }))
}

/// A literal: a 0-D value of the literal's own dtype.
pub fn literal(s: Scalar) -> Value {
    Value::from_scalar(s)
}

/// A symbolic size as an `i64` scalar.
pub fn size(name: &str, dims: &dyn Fn(&str) -> Option<i64>) -> Result<Value, String> {
    dims(name)
        .map(Value::scalar_i64)
        .ok_or_else(|| format!("symbolic size '{name}' is not bound: give --dim {name}=N"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array1;

    fn dims(s: &str) -> Option<i64> {
        (s == "T").then_some(3)
    }

    #[test]
    fn created_tensors() {
        let ty = Type::new(DType::F32, vec![Dim::sym("T"), Dim::known(2)]);
        let v = fill(&ty, &Value::scalar_f64(0.1), DType::F32, &dims).unwrap();
        assert_eq!(v, Value::full::<f32>(&[3, 2], 0.1f32));
        let v = fill(&ty, &Value::scalar_f64(-2.7), DType::I64, &dims).unwrap();
        assert_eq!(v, Value::full::<i64>(&[3, 2], -2));
        assert!(fill(&ty, &Value::zeros(DType::F64, &[2]), DType::F32, &dims).is_err());
        assert_eq!(
            zeros(&ty, DType::Bool, &dims).unwrap(),
            Value::full(&[3, 2], false)
        );
        assert_eq!(
            ones(&ty, DType::I64, &dims).unwrap(),
            Value::full(&[3, 2], 1i64)
        );
        let none = |_: &str| None;
        assert_eq!(
            ones(&ty, DType::I64, &none),
            Err("symbolic size 'T' is not bound: give --dim T=N".to_string())
        );
        let huge = Type::new(DType::F64, vec![Dim::known(1 << 40), Dim::known(1 << 40)]);
        assert!(zeros(&huge, DType::F64, &dims).is_err());
        // 256 TiB (beyond any address space): a size that passes the
        // isize check but cannot be allocated is an error, not an abort
        let big = Type::new(DType::F64, vec![Dim::known(1 << 45)]);
        assert!(ones(&big, DType::F64, &dims).is_err());
        assert!(arange(&Dim::known(1 << 60), &dims).is_err());
        let t = Dim::sym("T").sub(&Dim::known(1));
        assert_eq!(
            arange(&t, &dims).unwrap(),
            Value::I64(Array1::from_vec(vec![0, 1]).into_dyn())
        );
        assert_eq!(arange(&Dim::known(0), &dims).unwrap().shape(), &[0]);
        assert_eq!(size("T", &dims).unwrap(), Value::scalar_i64(3));
        assert!(size("N", &dims).is_err());
        assert_eq!(literal(Scalar::F64(2.0)), Value::scalar_f64(2.0));
        assert_eq!(literal(Scalar::Bool(true)).dtype(), DType::Bool);
    }

    #[test]
    fn literal_tensors() {
        let ty = Type::new(DType::F64, vec![Dim::known(2)]);
        let v = tensor(&ty, &[Scalar::I64(1), Scalar::F64(0.5)], DType::F64, &dims).unwrap();
        assert_eq!(v, Value::F64(Array1::from_vec(vec![1.0, 0.5]).into_dyn()));
        let b = tensor(&ty, &[Scalar::I64(0), Scalar::F64(0.5)], DType::Bool, &dims).unwrap();
        assert_eq!(
            b,
            Value::Bool(Array1::from_vec(vec![false, true]).into_dyn())
        );
        assert!(tensor(&ty, &[Scalar::I64(1)], DType::F64, &dims).is_err());
        let s = tensor(
            &Type::scalar(DType::I64),
            &[Scalar::I64(4)],
            DType::I64,
            &dims,
        )
        .unwrap();
        assert_eq!(s, Value::scalar_i64(4));
    }
}
