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
        let a_full;
        let factor = if av.len() == 1 {
            Factor::Same(av.iter().next().copied().unwrap_or(<T as Elem>::zero()))
        } else if av.ndim() == shape.len() && av.shape()[0] == rows && av.len() == rows {
            // One factor per step (shape (rows, 1, ...)): read once a row.
            a_full = av.as_standard_layout();
            Factor::PerRow(a_full.as_slice().ok_or("A has no standard layout")?)
        } else {
            a_full = a_b.as_standard_layout();
            Factor::PerElement(a_full.as_slice().ok_or("A has no standard layout")?)
        };
        let out = recur(u_flat, &h_flat, n, factor);
        if out.len() != rows * n {
            return Err(format!("U has {} elements, not {rows} rows of {n}", u_flat.len()));
        }
        let res = ArrayD::from_shape_vec(IxDyn(&shape), out).map_err(|e| e.to_string())?;
        T::wrap(res)
    }))
}

/// How the kernel reads the factor `A` of each element.
#[derive(Clone, Copy)]
enum Factor<'a, T> {
    /// One value for every step and element.
    Same(T),
    /// One value per step (row), the same for the elements of the row.
    PerRow(&'a [T]),
    /// One value per element of `U` (row-major, `U`'s shape).
    PerElement(&'a [T]),
}

/// `out[t, i] = a[t, i] * out[t - 1, i] + u[t, i]` over rows of `n`
/// elements, `h0` before row 0. The scalar recurrence (`n = 1`) keeps the
/// state in a register; wider rows run one step over the row at a time.
/// No per-element index arithmetic or bounds checks: every loop zips
/// slices of equal length. The result has `u`'s length (empty when `h0`
/// is not one row of `n`).
fn recur<T: Arith>(u: &[T], h0: &[T], n: usize, a: Factor<'_, T>) -> Vec<T> {
    if n == 0 || u.is_empty() || h0.len() != n {
        return Vec::new();
    }
    if n == 1 {
        // Collected, so the result is written once (never zeroed first).
        let mut h = h0[0];
        return match a {
            Factor::Same(f) => u
                .iter()
                .map(|&x| {
                    h = T::add(T::mul(f, h), x);
                    h
                })
                .collect(),
            Factor::PerRow(fs) | Factor::PerElement(fs) => u
                .iter()
                .zip(fs)
                .map(|(&x, &f)| {
                    h = T::add(T::mul(f, h), x);
                    h
                })
                .collect(),
        };
    }
    let mut out: Vec<T> = vec![<T as Elem>::zero(); u.len()];
    let (first, rest) = out.split_at_mut(n);
    row_step(first, h0, &u[..n], a, 0, n);
    let mut prev: &[T] = first;
    for (t, (row, u_row)) in rest
        .chunks_exact_mut(n)
        .zip(u[n..].chunks_exact(n))
        .enumerate()
    {
        row_step(row, prev, u_row, a, t + 1, n);
        prev = row;
    }
    out
}

/// One step of the recurrence over a row: `row[i] = a[t, i] * prev[i] +
/// u_row[i]`.
#[inline(always)]
fn row_step<T: Arith>(
    row: &mut [T],
    prev: &[T],
    u_row: &[T],
    a: Factor<'_, T>,
    t: usize,
    n: usize,
) {
    match a {
        Factor::Same(f) => {
            for ((r, &p), &x) in row.iter_mut().zip(prev).zip(u_row) {
                *r = T::add(T::mul(f, p), x);
            }
        }
        Factor::PerRow(fs) => {
            let f = fs.get(t).copied().unwrap_or(<T as Elem>::zero());
            for ((r, &p), &x) in row.iter_mut().zip(prev).zip(u_row) {
                *r = T::add(T::mul(f, p), x);
            }
        }
        Factor::PerElement(fs) => {
            let a_row = fs.get(t * n..(t + 1) * n).unwrap_or(&[]);
            for (((r, &p), &x), &f) in row.iter_mut().zip(prev).zip(u_row).zip(a_row) {
                *r = T::add(T::mul(f, p), x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array, Dimension};

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

    /// The recurrence step by step with `A` indexed through ndarray's own
    /// broadcasting: the reference every factor layout must equal bit
    /// for bit.
    fn naive(a: &ArrayD<f64>, u: &ArrayD<f64>, h0: &ArrayD<f64>) -> ArrayD<f64> {
        let shape = u.shape().to_vec();
        let a = a.broadcast(IxDyn(&shape)).unwrap();
        let h0 = h0.broadcast(IxDyn(&shape[1..])).unwrap();
        let mut out = ArrayD::<f64>::zeros(IxDyn(&shape));
        for t in 0..shape[0] {
            for (i, h) in h0.indexed_iter() {
                let mut idx = vec![t];
                idx.extend(i.slice());
                let prev = if t == 0 {
                    *h
                } else {
                    let mut p = idx.clone();
                    p[0] = t - 1;
                    out[IxDyn(&p)]
                };
                out[IxDyn(&idx)] = a[IxDyn(&idx)] * prev + u[IxDyn(&idx)];
            }
        }
        out
    }

    #[test]
    fn every_factor_layout_equals_the_step_by_step_recurrence() {
        // Values whose products round (not exact), so a kernel that fused
        // the multiply-add or reordered it would differ in the last bits.
        let val = |k: usize| ((k as f64) * 0.7313).sin() * 1.37 + 0.11;
        let arr = |shape: &[usize], seed: usize| {
            let n: usize = shape.iter().product();
            ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|k| val(k + seed)).collect()).unwrap()
        };
        for step in [vec![], vec![1], vec![3], vec![2, 3]] {
            let rows = 7;
            let mut full = vec![rows];
            full.extend(&step);
            let u = arr(&full, 5);
            let h0 = arr(&step, 50);
            // Per-step scalar factor: (rows, 1, ...).
            let mut per_row = vec![rows];
            per_row.extend(step.iter().map(|_| 1));
            let factors = [
                arr(&[], 90),
                arr(&per_row, 91),
                arr(&full, 92),
                arr(&step, 93),
                arr(&[1], 94),
            ];
            for a in &factors {
                let got = linrec(
                    &Value::F64(a.clone()),
                    &Value::F64(u.clone()),
                    &Value::F64(h0.clone()),
                    DType::F64,
                )
                .unwrap();
                let want = Value::F64(naive(a, &u, &h0));
                assert_eq!(got, want, "step {step:?}, factor {:?}", a.shape());
            }
        }
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
