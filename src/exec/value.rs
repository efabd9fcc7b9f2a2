//! Runtime values: n-dimensional arrays of one of the four dtypes.
//!
//! Owns: [`Value`], conversions between dtypes (NumPy's `astype`), and the
//! [`each!`] macros that apply one generic expression to whichever array a
//! value holds. Must not: know about ops.

use crate::lang::{DType, Scalar};
use ndarray::{ArrayD, IxDyn};

/// A runtime tensor.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `f64` data
    F64(ArrayD<f64>),
    /// `f32` data
    F32(ArrayD<f32>),
    /// `i64` data
    I64(ArrayD<i64>),
    /// `bool` data
    Bool(ArrayD<bool>),
}

/// Applies `$e` (generic in the element type) to the array `$a` held by
/// `$v`, wrapping the result back in the same variant.
#[macro_export]
#[doc(hidden)]
macro_rules! each {
    ($v:expr, $a:ident => $e:expr) => {
        match $v {
            $crate::exec::Value::F64($a) => $crate::exec::Value::F64($e),
            $crate::exec::Value::F32($a) => $crate::exec::Value::F32($e),
            $crate::exec::Value::I64($a) => $crate::exec::Value::I64($e),
            $crate::exec::Value::Bool($a) => $crate::exec::Value::Bool($e),
        }
    };
}

/// Like [`each!`] for a fallible `$e` returning `Result<ArrayD<_>, E>`.
#[macro_export]
#[doc(hidden)]
macro_rules! each_try {
    ($v:expr, $a:ident => $e:expr) => {
        match $v {
            $crate::exec::Value::F64($a) => $crate::exec::Value::F64($e?),
            $crate::exec::Value::F32($a) => $crate::exec::Value::F32($e?),
            $crate::exec::Value::I64($a) => $crate::exec::Value::I64($e?),
            $crate::exec::Value::Bool($a) => $crate::exec::Value::Bool($e?),
        }
    };
}

/// Converts `f64` to `i64` as NumPy's `astype` does on x86: truncation
/// toward zero, and `i64::MIN` for NaN, infinities and out-of-range values.
pub fn f64_to_i64(x: f64) -> i64 {
    if x.is_finite() && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

impl Value {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Value::F64(_) => DType::F64,
            Value::F32(_) => DType::F32,
            Value::I64(_) => DType::I64,
            Value::Bool(_) => DType::Bool,
        }
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        match self {
            Value::F64(a) => a.shape(),
            Value::F32(a) => a.shape(),
            Value::I64(a) => a.shape(),
            Value::Bool(a) => a.shape(),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }

    /// True when the value has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of element data.
    pub fn len_bytes(&self) -> usize {
        self.len() * self.dtype().size_bytes()
    }

    /// A 0-D value holding a literal.
    pub fn scalar(s: Scalar) -> Value {
        match s {
            Scalar::Bool(b) => Value::Bool(ArrayD::from_elem(IxDyn(&[]), b)),
            Scalar::I64(i) => Value::I64(ArrayD::from_elem(IxDyn(&[]), i)),
            Scalar::F64(x) => Value::F64(ArrayD::from_elem(IxDyn(&[]), x)),
        }
    }

    /// A value of the given dtype and shape filled with `s` converted to
    /// that dtype.
    pub fn full(dtype: DType, shape: &[usize], s: Scalar) -> Value {
        Value::scalar(s).cast(dtype).broadcast_to(shape)
    }

    /// A 0-D value broadcast (copied) to `shape`.
    fn broadcast_to(&self, shape: &[usize]) -> Value {
        each!(self, a => {
            let x = a.iter().next().cloned().unwrap_or_default();
            ArrayD::from_elem(IxDyn(shape), x)
        })
    }

    /// The value of a 0-D `i64`.
    pub fn to_i64_scalar(&self) -> Option<i64> {
        match self {
            Value::I64(a) if a.ndim() == 0 => a.iter().next().copied(),
            _ => None,
        }
    }

    /// Converts to another dtype as NumPy's `astype` does.
    pub fn cast(&self, to: DType) -> Value {
        if self.dtype() == to {
            return self.clone();
        }
        match to {
            DType::F64 => Value::F64(self.as_f64_array()),
            DType::F32 => Value::F32(match self {
                Value::F32(a) => a.clone(),
                Value::F64(a) => a.mapv(|x| x as f32),
                Value::I64(a) => a.mapv(|x| x as f32),
                Value::Bool(a) => a.mapv(|x| x as u8 as f32),
            }),
            DType::I64 => Value::I64(match self {
                Value::I64(a) => a.clone(),
                Value::F64(a) => a.mapv(f64_to_i64),
                Value::F32(a) => a.mapv(|x| f64_to_i64(x as f64)),
                Value::Bool(a) => a.mapv(|x| x as i64),
            }),
            DType::Bool => Value::Bool(match self {
                Value::Bool(a) => a.clone(),
                Value::F64(a) => a.mapv(|x| x != 0.0),
                Value::F32(a) => a.mapv(|x| x != 0.0),
                Value::I64(a) => a.mapv(|x| x != 0),
            }),
        }
    }

    /// The elements as `f64` (booleans as 0 and 1).
    pub fn as_f64_array(&self) -> ArrayD<f64> {
        match self {
            Value::F64(a) => a.clone(),
            Value::F32(a) => a.mapv(|x| x as f64),
            Value::I64(a) => a.mapv(|x| x as f64),
            Value::Bool(a) => a.mapv(|x| x as u8 as f64),
        }
    }

    /// The sum of the elements as `f64` (what `run` prints).
    pub fn sum_f64(&self) -> f64 {
        match self {
            Value::F64(a) => a.sum(),
            Value::F32(a) => a.iter().map(|&x| x as f64).sum(),
            Value::I64(a) => a.iter().map(|&x| x as f64).sum(),
            Value::Bool(a) => a.iter().filter(|&&x| x).count() as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_follow_numpy_astype() {
        let v = Value::F64(
            ArrayD::from_shape_vec(IxDyn(&[4]), vec![1.7, -1.7, f64::NAN, 0.0]).unwrap(),
        );
        assert_eq!(
            v.cast(DType::I64),
            Value::I64(ArrayD::from_shape_vec(IxDyn(&[4]), vec![1, -1, i64::MIN, 0]).unwrap())
        );
        assert_eq!(
            v.cast(DType::Bool),
            Value::Bool(
                ArrayD::from_shape_vec(IxDyn(&[4]), vec![true, true, true, false]).unwrap()
            )
        );
        assert_eq!(Value::full(DType::F32, &[2], Scalar::I64(3)).sum_f64(), 6.0);
    }
}
