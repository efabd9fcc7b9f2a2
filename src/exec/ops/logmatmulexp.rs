//! The matrix product in log space, `logmatmulexp`:
//! `r[k, j] = log Σ_i exp(A[k, i] + B[i, j])`.
//!
//! Owns: [`logmatmulexp`], the interpreter's kernel (the plan runs it too),
//! and [`rows`], the loop it and the step tape both run, so every executor
//! gives the same bits.
//!
//! How: each row of `A` is shifted by its maximum `a*`, and
//! `r[j] = a* + log Σ_i exp(A[i] − a*) · exp(B[i, j])`, a weighted sum of
//! the precomputed `exp(B)` — `N` exponentials per row instead of `N·M`
//! (the step tape computes `exp(B)` once per loop call when `B` does not
//! change between steps). Every term is at most `exp(B[i, j])`, so the sum
//! can only leave the normal range where `exp(B)` does: a sum that is not
//! finite or lies below [`safe_min`] (a column whose terms all underflow,
//! an `exp(B)` that overflowed, a NaN) is not used; that column is
//! computed the max-shifted way, `m + log Σ_i exp(x_i − m)` with
//! `x_i = A[i] + B[i, j]` and `m = max_i x_i`, the form written out in
//! programs; a column of `−inf` terms gives `−inf` and an infinite term
//! `inf`, as `scipy.special.logsumexp` does (the written form gives NaN
//! there), and a NaN term NaN. A row whose maximum is not finite goes
//! that way whole. A sum in range loses nothing: terms
//! that underflowed are below `2^-1022` against a sum of at least
//! `2^-900`. Must not: decide the result dtype (the caller passes it).

use super::elementwise::Float;
use crate::exec::value::{shape_str, Elem, Value};
use crate::lang::{DType, UnaryOp};
use ndarray::{ArrayD, IxDyn};

/// The smallest scaled sum the fast form uses: `2^-900` in `f64`,
/// `2^-100` in `f32` (far above the subnormals, so the terms that
/// underflowed do not matter).
fn safe_min<T: Elem>() -> T {
    if T::DTYPE == DType::F32 {
        T::from_f64((-100f64).exp2())
    } else {
        T::from_f64((-900f64).exp2())
    }
}

/// `(logmatmulexp A B)` computed in the float dtype `out`: `A` a vector
/// (N) or a matrix (K, N), `B` a matrix (N, M).
pub fn logmatmulexp(a: &Value, b: &Value, out: DType) -> Result<Value, String> {
    if out == DType::F32 {
        typed::<f32>(a, b)
    } else {
        typed::<f64>(a, b).map(|v| v.into_dtype(out))
    }
}

fn typed<T: Float>(a: &Value, b: &Value) -> Result<Value, String> {
    let (bs, as_) = (b.shape(), a.shape());
    let (n, m) = match (as_, bs) {
        ([n] | [_, n], &[bn, m]) if *n == bn => (bn, m),
        _ => {
            return Err(format!(
            "takes a vector or matrix A (N) or (K, N) and a matrix B (N, M), got shapes {} and {}",
            shape_str(as_),
            shape_str(bs)
        ))
        }
    };
    if n == 0 {
        return Err("the sum runs over an axis of length 0, which has no maximum".into());
    }
    let k = if as_.len() == 2 { as_[0] } else { 1 };
    let av = a.to_array::<T>();
    let av = av.as_standard_layout();
    let bv = b.to_array::<T>();
    let bv = bv.as_standard_layout();
    let (Some(af), Some(bf)) = (av.as_slice(), bv.as_slice()) else {
        return Err("internal: an operand has no standard layout".into());
    };
    let mut e = vec![T::zero(); n * m];
    T::unary_slice(UnaryOp::Exp, bf, &mut e);
    let mut w = vec![T::zero(); n];
    let mut r = vec![T::zero(); k * m];
    rows(af, bf, &e, n, m, &mut w, &mut r);
    let mut shape = as_[..as_.len() - 1].to_vec();
    shape.push(m);
    let res = ArrayD::from_shape_vec(IxDyn(&shape), r).map_err(|e| e.to_string())?;
    Ok(T::wrap(res))
}

/// True when the fast form may use the scaled sum `s`.
fn in_range<T: Float>(s: T, min: T) -> bool {
    s.to_f64().is_finite() && s >= min
}

/// The kernel: `out[k·m + j] = log Σ_i exp(a[k·n + i] + b[i·m + j])` for
/// every row `k` of `a` (`a.len() / n` rows), given `exp_b[i] =
/// exp(b[i])` (the element function's bits) and `n` elements of scratch
/// `w`. `n` is at least 1; the slices have the lengths the shapes say.
pub(crate) fn rows<T: Float>(
    a: &[T],
    b: &[T],
    exp_b: &[T],
    n: usize,
    m: usize,
    w: &mut [T],
    out: &mut [T],
) {
    let min = safe_min::<T>();
    let w = &mut w[..n];
    for (ak, ok) in a.chunks_exact(n).zip(out.chunks_exact_mut(m)) {
        let top = ak[1..].iter().fold(ak[0], |acc, &x| acc.maximum(x));
        if !top.to_f64().is_finite() {
            for (j, o) in ok.iter_mut().enumerate() {
                *o = shifted(ak, b, m, j);
            }
            continue;
        }
        for (wi, &x) in w.iter_mut().zip(ak) {
            *wi = x.sub(top);
        }
        T::unary_inplace(UnaryOp::Exp, w);
        ok.fill(T::zero());
        for (&wi, row) in w.iter().zip(exp_b.chunks_exact(m)) {
            for (o, &e) in ok.iter_mut().zip(row) {
                *o = o.add(wi.mul(e));
            }
        }
        if ok.iter().all(|&s| in_range(s, min)) {
            T::unary_inplace(UnaryOp::Log, ok);
            ok.iter_mut().for_each(|o| *o = top.add(*o));
        } else {
            for (j, o) in ok.iter_mut().enumerate() {
                *o = if in_range(*o, min) {
                    top.add(o.unary(UnaryOp::Log))
                } else {
                    shifted(ak, b, m, j)
                };
            }
        }
    }
}

/// Column `j` the max-shifted way: `m + log Σ_i exp(x_i − m)`, `x_i =
/// a[i] + b[i·m_cols + j]`, `m = max_i x_i`; an infinite `m` is the
/// result (no term, or an infinite one: `−inf` or `inf`, as
/// `scipy.special.logsumexp` gives), a NaN term makes it NaN.
fn shifted<T: Float>(a: &[T], b: &[T], m_cols: usize, j: usize) -> T {
    let x = |i: usize| a[i].add(b[i * m_cols + j]);
    let top = (1..a.len()).fold(x(0), |acc, i| acc.maximum(x(i)));
    if top.to_f64().is_infinite() {
        return top;
    }
    let s = (0..a.len()).fold(T::zero(), |acc, i| {
        acc.add(x(i).sub(top).unary(UnaryOp::Exp))
    });
    top.add(s.unary(UnaryOp::Log))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every column the max-shifted way (the form programs write).
    fn reference(a: &[f64], b: &[f64], n: usize, m: usize) -> Vec<f64> {
        a.chunks_exact(n)
            .flat_map(|ak| (0..m).map(move |j| shifted(ak, b, m, j)))
            .collect()
    }

    fn run(a: &[f64], b: &[f64], n: usize, m: usize) -> Vec<f64> {
        let e: Vec<f64> = b.iter().map(|&x| x.unary(UnaryOp::Exp)).collect();
        let mut w = vec![0.0; n];
        let mut out = vec![0.0; a.len() / n * m];
        rows(a, b, &e, n, m, &mut w, &mut out);
        out
    }

    fn close(x: f64, y: f64) -> bool {
        (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= 1e-13 * x.abs().max(1.0)
    }

    #[test]
    fn ordinary_values_agree_with_the_shifted_form() {
        let (n, m) = (7, 5);
        let a: Vec<f64> = (0..2 * n).map(|i| (i as f64 * 0.7).sin() * 3.0).collect();
        let b: Vec<f64> = (0..n * m)
            .map(|i| (i as f64 * 1.3).cos() * 2.0 - 1.0)
            .collect();
        let got = run(&a, &b, n, m);
        for (g, r) in got.iter().zip(reference(&a, &b, n, m)) {
            assert!(close(*g, r), "{g} vs {r}");
        }
    }

    #[test]
    fn extreme_magnitudes_stay_finite_and_exact() {
        // Columns whose terms all underflow exp(B), columns that overflow
        // it, huge shifts in A, -inf entries (impossible transitions).
        let n = 3;
        let b = vec![
            -1000.0,
            800.0,
            0.0,
            f64::NEG_INFINITY, //
            -1200.0,
            790.0,
            -3.0,
            f64::NEG_INFINITY, //
            -1100.0,
            -5.0,
            1e-300,
            0.0,
        ];
        let m = 4;
        for a in [
            vec![0.0, 0.0, 0.0],
            vec![1e300, -1e300, 5.0],
            vec![-2000.0, -2001.0, -1999.5],
            vec![f64::NEG_INFINITY, 0.0, 1.0],
            vec![700.0, -700.0, 0.0],
        ] {
            let got = run(&a, &b, n, m);
            let want = reference(&a, &b, n, m);
            for (j, (g, r)) in got.iter().zip(&want).enumerate() {
                assert!(close(*g, *r), "a={a:?} column {j}: {g} vs {r}");
                assert_eq!(g.is_finite(), r.is_finite(), "a={a:?} column {j}");
            }
        }
        // Column 0: log Σ exp(-1000 + ...) is about -1000, finite.
        let got = run(&[0.0, 0.0, 0.0], &b, n, m);
        assert!((got[0] + 1000.0).abs() < 1e-9, "{}", got[0]);
    }

    #[test]
    fn nan_and_infinities_give_what_the_shifted_form_gives() {
        let (n, m) = (2, 2);
        let b = vec![0.0, f64::NAN, 1.0, 2.0];
        for a in [
            vec![f64::NAN, 0.0],
            vec![f64::INFINITY, 0.0],
            vec![f64::NEG_INFINITY, f64::NEG_INFINITY],
            vec![1.0, 2.0],
        ] {
            let got = run(&a, &b, n, m);
            let want = reference(&a, &b, n, m);
            for (g, r) in got.iter().zip(&want) {
                assert!(close(*g, *r), "a={a:?}: {g} vs {r}");
            }
        }
        // No term: log 0 = -inf; an infinite term: inf; NaN stays NaN.
        let got = run(&[f64::NEG_INFINITY; 2], &b, n, m);
        assert_eq!(got[0], f64::NEG_INFINITY);
        assert!(got[1].is_nan());
        let got = run(&[f64::INFINITY, 0.0], &b, n, m);
        assert_eq!(got[0], f64::INFINITY);
    }

    #[test]
    fn f32_agrees_with_f64_and_keeps_its_range() {
        let (n, m) = (6, 3);
        let a: Vec<f64> = (0..n).map(|i| (i as f64 * 0.9).sin() * 40.0).collect();
        // exp(±95) is out of f32's range: those columns go the shifted way.
        let b: Vec<f64> = (0..n * m).map(|i| (i as f64 * 0.4).cos() * 95.0).collect();
        let (af, bf): (Vec<f32>, Vec<f32>) = (
            a.iter().map(|&x| x as f32).collect(),
            b.iter().map(|&x| x as f32).collect(),
        );
        let to = |v: &[f32]| Value::F32(ndarray::Array::from_vec(v.to_vec()).into_dyn());
        let bv = Value::F32(ndarray::Array::from_shape_vec(IxDyn(&[n, m]), bf.clone()).unwrap());
        let r = logmatmulexp(&to(&af), &bv, DType::F32).unwrap();
        let a64: Vec<f64> = af.iter().map(|&x| x as f64).collect();
        let b64: Vec<f64> = bf.iter().map(|&x| x as f64).collect();
        let want = reference(&a64, &b64, n, m);
        for (g, w) in r.to_array::<f32>().iter().zip(&want) {
            assert!(g.is_finite(), "{g} vs {w}");
            assert!(
                (*g as f64 - w).abs() <= 1e-5 * w.abs().max(1.0),
                "{g} vs {w}"
            );
        }
    }

    #[test]
    fn the_value_kernel_checks_shapes_and_empty_sums() {
        let a = Value::F64(ndarray::Array::from_vec(vec![1.0, 2.0]).into_dyn());
        let b = Value::F64(ndarray::Array::zeros(IxDyn(&[3, 2])));
        assert!(logmatmulexp(&a, &b, DType::F64).is_err());
        let a0 = Value::F64(ndarray::Array::zeros(IxDyn(&[0])));
        let b0 = Value::F64(ndarray::Array::zeros(IxDyn(&[0, 2])));
        assert!(logmatmulexp(&a0, &b0, DType::F64).is_err());
        // log(2 · e^1) = 1 + log 2 in each column.
        let b = Value::F64(ndarray::Array::zeros(IxDyn(&[2, 3])));
        let a = Value::F64(ndarray::Array::from_vec(vec![1.0, 1.0]).into_dyn());
        let r = logmatmulexp(&a, &b, DType::F64).unwrap();
        assert_eq!(r.shape(), &[3]);
        for v in r.to_array::<f64>().iter() {
            assert!((v - (1.0 + 2f64.ln())).abs() < 1e-15);
        }
    }
}
