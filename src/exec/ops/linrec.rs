//! The first-order linear recurrence `linrec`: `h_t = A_t ⊙ h_{t-1} + U_t`
//! over axis 0 of `U`, from `h_{-1} = H0`, every `h_t` stacked.
//!
//! Owns: [`linrec`], the one loop both executors run. Each step computes
//! `A_t * h_{t-1}` then adds `U_t`, two roundings in that order (no fused
//! multiply-add), so the result is bit for bit the `scan` it replaces
//! (`(add (mul a h) u)`; IEEE addition is commutative, so `(add u (mul a
//! h))` rounds the same). Must not: decide the result dtype (the caller
//! passes it: float, from the type rule).

use super::elementwise::Arith;
use crate::exec::value::{shape_str, with_elem, Elem, Value};
use crate::lang::DType;
use ndarray::{ArrayD, IxDyn};

/// `(linrec A U H0)` computed in dtype `out`: `A` broadcast to `U`'s
/// shape, `H0` to one row of it.
pub fn linrec(a: &Value, u: &Value, h0: &Value, out: DType) -> Result<Value, String> {
    if u.ndim() == 0 {
        return Err("the recurrence runs over axis 0 of U, which is 0-D".into());
    }
    let shape = u.shape().to_vec();
    let step = &shape[1..];
    Ok(with_elem!(out, T => {
        let av = a.to_array::<T>();
        let uv = u.to_array::<T>();
        let hv = h0.to_array::<T>();
        let a_b = av.broadcast(IxDyn(&shape)).ok_or_else(|| {
            format!(
                "the factor A of shape {} does not broadcast to the shape {} of U",
                shape_str(a.shape()),
                shape_str(&shape)
            )
        })?;
        let h_b = hv.broadcast(IxDyn(step)).ok_or_else(|| {
            format!(
                "the initial value H0 of shape {} does not broadcast to one step {} of U",
                shape_str(h0.shape()),
                shape_str(step)
            )
        })?;
        // One flat pass over rows in memory order: the state of the
        // previous step is the previous row of the result itself.
        let n: usize = step.iter().product();
        let rows = shape[0];
        let u_flat = uv.as_standard_layout();
        let u_flat = u_flat.as_slice().ok_or("U has no standard layout")?;
        let h_flat: Vec<T> = h_b.iter().copied().collect();
        let mut out: Vec<T> = vec![<T as Elem>::zero(); rows * n];
        if a.ndim() == 0 {
            let a0 = av.iter().next().copied().unwrap_or(<T as Elem>::zero());
            recur(&mut out, u_flat, &h_flat, n, |_| a0);
        } else {
            let a_full = a_b.as_standard_layout();
            let a_flat = a_full.as_slice().ok_or("A has no standard layout")?;
            recur(&mut out, u_flat, &h_flat, n, |i| a_flat[i]);
        }
        let res = ArrayD::from_shape_vec(IxDyn(&shape), out).map_err(|e| e.to_string())?;
        T::wrap(res)
    }))
}

/// `out[t, i] = a(t n + i) * out[t - 1, i] + u[t, i]` over rows of `n`
/// elements, `h0` before row 0.
fn recur<T: Arith>(out: &mut [T], u: &[T], h0: &[T], n: usize, a: impl Fn(usize) -> T) {
    if n == 0 {
        return;
    }
    let (first, rest) = out.split_at_mut(n.min(out.len()));
    for (i, r) in first.iter_mut().enumerate() {
        *r = T::add(T::mul(a(i), h0[i]), u[i]);
    }
    let mut prev: &[T] = first;
    for (t, row) in rest.chunks_exact_mut(n).enumerate() {
        let base = (t + 1) * n;
        for (i, r) in row.iter_mut().enumerate() {
            *r = T::add(T::mul(a(base + i), prev[i]), u[base + i]);
        }
        prev = row;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    fn f(v: &[f64], shape: &[usize]) -> Value {
        Value::F64(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }

    #[test]
    fn recurrence_rows_and_broadcast_factor() {
        // h = 0.5 h + u from h0 = [1, 2]: rows [1.5, 3], [1.75, 2.5].
        let u = f(&[1.0, 2.0, 1.0, 1.0], &[2, 2]);
        let r = linrec(
            &Value::scalar_f64(0.5),
            &u,
            &f(&[1.0, 2.0], &[2]),
            DType::F64,
        )
        .unwrap();
        assert_eq!(r, f(&[1.5, 3.0, 1.75, 2.5], &[2, 2]));
        // A per step and per element; h0 a scalar broadcast to the row.
        let a = f(&[2.0, 0.0, -1.0, 3.0], &[2, 2]);
        let r = linrec(&a, &u, &Value::scalar_f64(1.0), DType::F64).unwrap();
        assert_eq!(r, f(&[3.0, 2.0, -2.0, 7.0], &[2, 2]));
        // No rows: an empty result of U's shape.
        let e = f(&[], &[0, 3]);
        assert_eq!(
            linrec(&e, &e, &Value::scalar_f64(1.0), DType::F64).unwrap(),
            e
        );
    }

    #[test]
    fn shapes_that_do_not_broadcast_are_errors() {
        let u = f(&[1.0, 2.0, 1.0, 1.0], &[2, 2]);
        let a3 = f(&[1.0, 2.0, 3.0], &[3]);
        assert!(linrec(&a3, &u, &Value::scalar_f64(0.0), DType::F64)
            .unwrap_err()
            .contains("does not broadcast"));
        assert!(linrec(&Value::scalar_f64(1.0), &u, &a3, DType::F64)
            .unwrap_err()
            .contains("one step"));
        assert!(linrec(&u, &Value::scalar_f64(1.0), &u, DType::F64).is_err());
    }
}
