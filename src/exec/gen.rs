//! Deterministic workload data (the "Data" rule of `bench/WORKLOADS.md`).
//!
//! Owns: [`generate`]. For the k-th input of a workload (k = 0, 1, ... in
//! declaration order), the element at row-major flat index `i` is
//!
//! ```text
//! value = 0.5 * sin(0.37 * i + 1.3 * k) * s
//! ```
//!
//! computed in `f64` with exactly NumPy's operation order
//! (`0.5 * np.sin(0.37 * i + 1.3 * k) * s` with `i` a float64 array), so the
//! values are bit-identical to NumPy's where `sin` is the C library's (as
//! NumPy's float64 `sin` is on x86-64 Linux). Other dtypes derive from it:
//! `f32` rounds the `f64` value to nearest; `i64` is `round(10 * value)`
//! with ties to even (`np.round(10 * v).astype(np.int64)`); `bool` is
//! `value > 0`. Must not: read files or know about programs.

use crate::exec::value::Value;
use crate::lang::DType;
use ndarray::{Array, IxDyn};

/// The `f64` value of element `i` of the `k`-th input at scale `scale`.
pub fn value_at(k: usize, i: usize, scale: f64) -> f64 {
    0.5 * (0.37 * i as f64 + 1.3 * k as f64).sin() * scale
}

/// The data of the `k`-th input of a workload: an array of `dtype` and
/// `shape` filled by the rule in the module docs. The caller checks that
/// the shape is of a reasonable size (see
/// [`crate::exec::budget::MemoryBudget::check`]); this allocates.
pub fn generate(k: usize, dtype: DType, shape: &[usize], scale: f64) -> Value {
    let n: usize = shape.iter().product();
    let vals = (0..n).map(|i| value_at(k, i, scale));
    let dim = IxDyn(shape);
    // from_shape_vec cannot fail: the vector has exactly `n` elements.
    match dtype {
        DType::F64 => Value::F64(
            Array::from_iter(vals)
                .into_shape_with_order(dim)
                .unwrap_or_default(),
        ),
        DType::F32 => Value::F32(
            Array::from_iter(vals.map(|v| v as f32))
                .into_shape_with_order(dim)
                .unwrap_or_default(),
        ),
        DType::I64 | DType::Key => Value::I64(
            Array::from_iter(vals.map(|v| (10.0 * v).round_ties_even() as i64))
                .into_shape_with_order(dim)
                .unwrap_or_default(),
        ),
        // An i32 input is the i64 rule cast (the values are small).
        DType::I32 => Value::I32(
            Array::from_iter(vals.map(|v| (10.0 * v).round_ties_even() as i64 as i32))
                .into_shape_with_order(dim)
                .unwrap_or_default(),
        ),
        DType::Bool => Value::Bool(
            Array::from_iter(vals.map(|v| v > 0.0))
                .into_shape_with_order(dim)
                .unwrap_or_default(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected numbers printed by NumPy 2.4 with
    // `0.5 * np.sin(0.37 * np.arange(n, dtype=np.float64) + 1.3 * k) * s`.

    #[test]
    fn f64_matches_numpy_bits() {
        let v = generate(2, DType::F64, &[3, 4], 1.0 / 16.0).as_f64_array();
        assert_eq!(v.shape(), &[3, 4]);
        assert_eq!(v[[0, 0]], 0.016109417869420755);
        assert_eq!(v[[1, 1]], -0.030180408144394964);
        assert_eq!(v[[2, 3]], 0.011788761622110762);
        let w = generate(0, DType::F64, &[1000], 1.0);
        let a = w.as_f64_array();
        assert_eq!(
            (a[0], a[1], a[999]),
            (0.0, 0.180807715982481, -0.4404908731261957)
        );
        // v.sum() in NumPy (pairwise)
        assert_eq!(w.sum_f64(), 0.4835728199432615);
    }

    #[test]
    fn other_dtypes() {
        let f = generate(1, DType::F32, &[5], 1.0);
        let want: Vec<f32> = [
            0.4817790985107422,
            0.4975416660308838,
            0.44596433639526367,
            0.33402779698371887,
            0.17688217759132385,
        ]
        .iter()
        .map(|&x: &f64| x as f32)
        .collect();
        assert_eq!(f, Value::F32(ndarray::Array::from_vec(want).into_dyn()));
        let i = generate(3, DType::I64, &[8], 1.0);
        assert_eq!(
            i,
            Value::I64(ndarray::Array::from_vec(vec![-3, -5, -5, -5, -4, -3, -1, 1]).into_dyn())
        );
        let b = generate(3, DType::Bool, &[2, 4], 1.0);
        let want = [false, false, false, false, false, false, false, true];
        assert_eq!(
            b,
            Value::Bool(ndarray::Array::from_shape_vec(IxDyn(&[2, 4]), want.to_vec()).unwrap())
        );
        assert_eq!(generate(0, DType::F64, &[], 1.0), Value::scalar_f64(0.0));
        assert_eq!(generate(0, DType::F64, &[0, 3], 1.0).shape(), &[0, 3]);
    }
}
