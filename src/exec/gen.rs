//! Generated input data: the workload data rule of `bench/WORKLOADS.md`.
//!
//! For the k-th input of a program (declaration order), the element at
//! row-major flat index i is `0.5 * sin(0.37 * i + 1.3 * k) * s`, computed
//! in `f64` in exactly NumPy's order of operations (so the values are
//! bit-identical to `reference.py`'s), s the input's scale. eqscan extends
//! the rule to other dtypes: `f32` inputs take the value rounded to `f32`,
//! `i64` inputs `round(10 * value)` with ties to even (NumPy's `round`),
//! `bool` inputs `value > 0`.

use super::Value;
use crate::lang::DType;
use ndarray::{ArrayD, IxDyn};

/// The data-rule value at flat index `i` of the `k`-th input.
pub fn value_at(k: usize, i: usize, scale: f64) -> f64 {
    0.5 * (0.37 * i as f64 + 1.3 * k as f64).sin() * scale
}

/// The `k`-th input of the given dtype and shape, with scale `scale`.
pub fn generate(k: usize, dtype: DType, shape: &[usize], scale: f64) -> Value {
    let n: usize = shape.iter().product();
    let vals: Vec<f64> = (0..n).map(|i| value_at(k, i, scale)).collect();
    let arr =
        |v| ArrayD::from_shape_vec(IxDyn(shape), v).unwrap_or_else(|_| ArrayD::zeros(IxDyn(shape)));
    match dtype {
        DType::F64 => Value::F64(arr(vals)),
        DType::F32 => Value::F32(arr(vals).mapv(|x| x as f32)),
        DType::I64 => Value::I64(arr(vals).mapv(|x| (10.0 * x).round_ties_even() as i64)),
        DType::Bool => Value::Bool(arr(vals).mapv(|x| x > 0.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_numpy_values() {
        // 0.5*np.sin(0.37*np.arange(3) + 1.3*1)
        let v = generate(1, DType::F64, &[3], 1.0).as_f64_array();
        let want = [0.4817790927085965, 0.4975416749050901, 0.4459643254766898];
        for (a, b) in v.iter().zip(want) {
            assert!((a - b).abs() < 1e-15, "{a} vs {b}");
        }
        assert_eq!(generate(0, DType::I64, &[2], 1.0).sum_f64(), 2.0); // [0, 2]
    }
}
