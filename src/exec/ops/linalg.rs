//! Linear algebra: `numpy.dot` and `numpy.matmul`.
//!
//! Owns: [`dot`] (0-D operands multiply; 1-D·1-D inner product; matrix-
//! vector and matrix-matrix products; N-D operands contract the last axis
//! of `a` with the second-to-last of `b`) and [`matmul`] (1-D operands are
//! promoted and the added axis removed; batch axes broadcast). Floats use
//! ndarray's products (matrixmultiply); `i64` (wrapping) and bool (`or` of
//! `and`s) use plain loops; `f64` products are the shared kernels of
//! `gemm` and `matvec`. Inner sizes are checked at run time.
//! Must not: decide result dtypes.

use super::elementwise::{binary, broadcast_shapes, Arith};
use super::{gemm, matvec};
use crate::exec::aligned::CacheAligned;
use crate::exec::value::{checked_len, shape_str, with_elem, Elem, Value};
use crate::lang::{BinaryOp, DType};
use ndarray::linalg::{general_mat_mul, general_mat_vec_mul};
use ndarray::{
    Array1, ArrayD, ArrayView1, ArrayView2, ArrayViewD, ArrayViewMut1, ArrayViewMut2, Axis, Ix1,
    Ix2, IxDyn,
};

/// `(outer A B)`: `a[i] * b[j]` for two vectors, in dtype `out`.
pub fn outer(a: &Value, b: &Value, out: DType) -> Result<Value, String> {
    if a.ndim() != 1 || b.ndim() != 1 {
        return Err(format!(
            "the operands must be 1-D, got {} and {}",
            a.shape_str(),
            b.shape_str()
        ));
    }
    Ok(with_elem!(out, T => {
        let (av, bv) = (a.to_array::<T>(), b.to_array::<T>());
        let (m, n) = (av.len(), bv.len());
        checked_len(&[m, n], T::DTYPE)?;
        let mut data = Vec::new();
        data.try_reserve_exact(m * n)
            .map_err(|_| format!("cannot allocate an array of shape ({m}, {n})"))?;
        for &x in av.iter() {
            data.extend(bv.iter().map(|&y| x.mul(y)));
        }
        match ArrayD::from_shape_vec(IxDyn(&[m, n]), data) {
            Ok(r) => Value::from(r),
            Err(e) => return Err(format!("internal: outer's shape: {e}")),
        }
    }))
}

/// Matrix products of one element type.
pub trait Gemm: Arith {
    /// `c = a · b` for an `(m, k)` `a`, a `(k, n)` `b` and an `(m, n)` `c`.
    fn gemm(a: &ArrayView2<Self>, b: &ArrayView2<Self>, c: &mut ArrayViewMut2<Self>) {
        c.fill(Self::zero());
        for (i, mut crow) in c.outer_iter_mut().enumerate() {
            for (k, brow) in b.outer_iter().enumerate() {
                let aik = a[[i, k]];
                crow.zip_mut_with(&brow, |c, &b| *c = c.add(aik.mul(b)));
            }
        }
    }

    /// Prepares `b` for several `(m, k)·b` products ([`Gemm::gemm_shared_b`])
    /// into `buf`; false when there is nothing to prepare (call
    /// [`Gemm::gemm`] for each then).
    fn pack_shared_b(_b: &ArrayView2<Self>, _m: usize, _buf: &mut CacheAligned) -> bool {
        false
    }

    /// [`Gemm::gemm`] given `b` prepared by [`Gemm::pack_shared_b`]: the
    /// same bits.
    fn gemm_shared_b(
        a: &ArrayView2<Self>,
        b: &ArrayView2<Self>,
        _packed_b: &[f64],
        c: &mut ArrayViewMut2<Self>,
    ) {
        Self::gemm(a, b, c);
    }

    /// `a · x` for an `(m, k)` `a` and a `(k,)` `x`.
    fn gemv(a: &ArrayView2<Self>, x: &ArrayView1<Self>) -> Array1<Self> {
        let mut y = Array1::from_elem(a.nrows(), Self::zero());
        Self::gemv_into(a, x, &mut y.view_mut());
        y
    }

    /// `y = a · x` into an `(m,)` `y`.
    fn gemv_into(a: &ArrayView2<Self>, x: &ArrayView1<Self>, y: &mut ArrayViewMut1<Self>) {
        for (row, yi) in a.outer_iter().zip(y.iter_mut()) {
            *yi = Self::inner(&row, x);
        }
    }

    /// The inner product of two vectors of the same length.
    fn inner(a: &ArrayView1<Self>, b: &ArrayView1<Self>) -> Self {
        a.iter()
            .zip(b.iter())
            .fold(Self::zero(), |acc, (&x, &y)| acc.add(x.mul(y)))
    }
}

macro_rules! float_gemm {
    ($t:ident) => {
        impl Gemm for $t {
            float_gemm!(@products $t);
        }
    };
    // f64: the kernels every executor shares (`gemm`, `matvec`).
    (@products f64) => {
        fn gemm(a: &ArrayView2<f64>, b: &ArrayView2<f64>, c: &mut ArrayViewMut2<f64>) {
            gemm::gemm(a, b, c);
        }
        fn pack_shared_b(b: &ArrayView2<f64>, m: usize, buf: &mut CacheAligned) -> bool {
            gemm::pack_shared(b, m, buf)
        }
        fn gemm_shared_b(
            a: &ArrayView2<f64>,
            b: &ArrayView2<f64>,
            packed_b: &[f64],
            c: &mut ArrayViewMut2<f64>,
        ) {
            gemm::gemm_packed(a, b, packed_b, c);
        }
        fn gemv_into(a: &ArrayView2<f64>, x: &ArrayView1<f64>, y: &mut ArrayViewMut1<f64>) {
            matvec::gemv(a, x, y);
        }
        fn inner(a: &ArrayView1<f64>, b: &ArrayView1<f64>) -> f64 {
            matvec::inner(a, b)
        }
    };
    (@products f32) => {
        fn gemm(a: &ArrayView2<f32>, b: &ArrayView2<f32>, c: &mut ArrayViewMut2<f32>) {
            general_mat_mul(1.0, a, b, 0.0, c);
        }
        fn gemv_into(a: &ArrayView2<f32>, x: &ArrayView1<f32>, y: &mut ArrayViewMut1<f32>) {
            general_mat_vec_mul(1.0, a, x, 0.0, y);
        }
        fn inner(a: &ArrayView1<f32>, b: &ArrayView1<f32>) -> f32 {
            a.dot(b)
        }
    };
}
float_gemm!(f64);
float_gemm!(f32);
impl Gemm for i64 {}
impl Gemm for i32 {}
impl Gemm for bool {}

fn not_aligned(a: &[usize], b: &[usize], ka: usize, da: usize, kb: usize, db: usize) -> String {
    format!(
        "shapes {} and {} not aligned: {ka} (dim {da}) != {kb} (dim {db})",
        shape_str(a),
        shape_str(b)
    )
}

fn into2<T>(v: ArrayViewD<'_, T>) -> Result<ArrayView2<'_, T>, String> {
    v.into_dimensionality::<Ix2>()
        .map_err(|e| format!("internal: expected a matrix: {e}"))
}

fn into1<T>(v: ArrayViewD<'_, T>) -> Result<ArrayView1<'_, T>, String> {
    v.into_dimensionality::<Ix1>()
        .map_err(|e| format!("internal: expected a vector: {e}"))
}

/// `(m, k) · (k, n)` into a new `(m, n)` array.
fn matmul2<T: Gemm>(a: &ArrayView2<T>, b: &ArrayView2<T>) -> Result<ArrayD<T>, String> {
    let shape = [a.nrows(), b.ncols()];
    checked_len(&shape, T::DTYPE)?;
    let mut c = ndarray::Array2::from_elem(shape, T::zero());
    T::gemm(a, b, &mut c.view_mut());
    Ok(c.into_dyn())
}

fn dot_t<T: Gemm>(a: &ArrayViewD<T>, b: &ArrayViewD<T>) -> Result<ArrayD<T>, String> {
    let (sa, sb) = (a.shape(), b.shape());
    let (na, nb) = (sa.len(), sb.len());
    let ka = sa[na - 1];
    let kb_axis = if nb == 1 { 0 } else { nb - 2 };
    let kb = sb[kb_axis];
    if ka != kb {
        return Err(not_aligned(sa, sb, ka, na - 1, kb, kb_axis));
    }
    match (na, nb) {
        (1, 1) => {
            let v = T::inner(&into1(a.view())?, &into1(b.view())?);
            Ok(ArrayD::from_elem(IxDyn(&[]), v))
        }
        (2, 1) => Ok(T::gemv(&into2(a.view())?, &into1(b.view())?).into_dyn()),
        (1, 2) => Ok(T::gemv(&into2(b.view())?.t(), &into1(a.view())?).into_dyn()),
        (2, 2) => matmul2(&into2(a.view())?, &into2(b.view())?),
        _ => {
            // a as (M, K); b with its contraction axis moved first, as (K, P).
            let m: usize = sa[..na - 1].iter().product();
            let a_std = a.as_standard_layout();
            let a2 = a_std
                .view()
                .into_shape_with_order((m, ka))
                .map_err(|e| format!("internal: {e}"))?;
            let mut order: Vec<usize> = vec![kb_axis];
            order.extend((0..nb).filter(|&i| i != kb_axis));
            let b_perm = b.view().permuted_axes(IxDyn(&order));
            let b_std = b_perm.as_standard_layout();
            let rest: Vec<usize> = (0..nb).filter(|&i| i != kb_axis).map(|i| sb[i]).collect();
            let p: usize = rest.iter().product();
            let b2 = b_std
                .view()
                .into_shape_with_order((kb, p))
                .map_err(|e| format!("internal: {e}"))?;
            let mut out_shape: Vec<usize> = sa[..na - 1].to_vec();
            out_shape.extend(rest);
            let c = matmul2(&a2, &b2)?;
            c.into_shape_with_order(IxDyn(&out_shape))
                .map_err(|e| format!("internal: {e}"))
        }
    }
}

/// `numpy.dot(a, b)` with result dtype `out` (operands are cast to it).
pub fn dot(a: &Value, b: &Value, out: DType) -> Result<Value, String> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return binary(BinaryOp::Mul, a, b, out);
    }
    Ok(with_elem!(out, T => T::wrap(dot_t(&a.to_array::<T>().view(), &b.to_array::<T>().view())?)))
}

fn matmul_t<T: Gemm>(a: &ArrayViewD<T>, b: &ArrayViewD<T>) -> Result<ArrayD<T>, String> {
    let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
    // Promote 1-D operands to matrices.
    let a = if sa.len() == 1 {
        a.view().insert_axis(Axis(0))
    } else {
        a.view()
    };
    let b = if sb.len() == 1 {
        b.view().insert_axis(Axis(1))
    } else {
        b.view()
    };
    let (na, nb) = (a.ndim(), b.ndim());
    let (m, k) = (a.shape()[na - 2], a.shape()[na - 1]);
    let (k2, n) = (b.shape()[nb - 2], b.shape()[nb - 1]);
    if k != k2 {
        let (da, db) = (sa.len() - 1, sb.len().saturating_sub(2));
        return Err(not_aligned(&sa, &sb, k, da, k2, db));
    }
    let batch = broadcast_shapes(&[&a.shape()[..na - 2], &b.shape()[..nb - 2]]).map_err(|_| {
        format!(
            "shapes {} and {} do not broadcast in their batch axes",
            shape_str(&sa),
            shape_str(&sb)
        )
    })?;
    let mut out_shape = batch.clone();
    out_shape.extend([m, n]);
    checked_len(&out_shape, T::DTYPE)?;
    let full = |r: usize, c: usize| {
        let mut s = batch.clone();
        s.extend([r, c]);
        IxDyn(&s)
    };
    let internal = || "internal: batch broadcast failed".to_string();
    let av = a.broadcast(full(m, k)).ok_or_else(internal)?;
    let bv = b.broadcast(full(k, n)).ok_or_else(internal)?;
    let mut out = ArrayD::from_elem(IxDyn(&out_shape), T::zero());
    let n_batch: usize = batch.iter().product();
    for f in 0..n_batch {
        // Decode the flat batch index (row-major) and take the matrices.
        let mut idx = vec![0usize; batch.len()];
        let mut rem = f;
        for (i, &d) in batch.iter().enumerate().rev() {
            idx[i] = rem % d;
            rem /= d;
        }
        let mut x = av.view();
        let mut y = bv.view();
        let mut z = out.view_mut();
        for &i in &idx {
            x = x.index_axis_move(Axis(0), i);
            y = y.index_axis_move(Axis(0), i);
            z = z.index_axis_move(Axis(0), i);
        }
        let mut z2 = z
            .into_dimensionality::<Ix2>()
            .map_err(|e| format!("internal: {e}"))?;
        T::gemm(&into2(x)?, &into2(y)?, &mut z2);
    }
    // Remove the axes added for 1-D operands.
    let mut res = out;
    if sa.len() == 1 {
        let m_axis = res.ndim() - 2;
        res = res.index_axis_move(Axis(m_axis), 0);
    }
    if sb.len() == 1 {
        let n_axis = res.ndim() - 1;
        res = res.index_axis_move(Axis(n_axis), 0);
    }
    Ok(res)
}

/// `numpy.matmul(a, b)` with result dtype `out`: batched over leading axes
/// (broadcast), 1-D operands promoted to matrices and the added axis removed.
pub fn matmul(a: &Value, b: &Value, out: DType) -> Result<Value, String> {
    for (i, v) in [a, b].iter().enumerate() {
        if v.ndim() == 0 {
            return Err(format!(
                "operand {i} is a scalar; matmul needs at least 1 dimension (use mul)"
            ));
        }
    }
    if a.ndim() <= 2 && b.ndim() <= 2 {
        return dot(a, b, out);
    }
    Ok(
        with_elem!(out, T => T::wrap(matmul_t(&a.to_array::<T>().view(), &b.to_array::<T>().view())?)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    fn f(v: &[f64], shape: &[usize]) -> Value {
        Value::F64(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }
    fn i(v: &[i64], shape: &[usize]) -> Value {
        Value::I64(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }
    fn b(v: &[bool], shape: &[usize]) -> Value {
        Value::Bool(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }
    fn ar(shape: &[usize]) -> Value {
        let n: usize = shape.iter().product();
        i(&(0..n as i64).collect::<Vec<_>>(), shape)
    }
    fn arf(shape: &[usize]) -> Value {
        ar(shape).cast(DType::F64)
    }

    #[test]
    fn dot_shapes() {
        let a = arf(&[2, 3]);
        let v = f(&[1.0, 2.0, 3.0], &[3]);
        assert_eq!(dot(&a, &v, DType::F64).unwrap(), f(&[8.0, 26.0], &[2]));
        assert_eq!(
            dot(&f(&[1.0, -1.0], &[2]), &a, DType::F64).unwrap(),
            f(&[-3.0, -3.0, -3.0], &[3])
        );
        assert_eq!(dot(&v, &v, DType::F64).unwrap(), Value::scalar_f64(14.0));
        // np.arange(6).reshape(2,3) @ np.arange(12).reshape(3,4)
        let m = dot(&a, &arf(&[3, 4]), DType::F64).unwrap();
        assert_eq!(m, f(&[20., 23., 26., 29., 56., 68., 80., 92.], &[2, 4]));
        assert_eq!(
            dot(&Value::scalar_f64(2.0), &v, DType::F64).unwrap(),
            f(&[2.0, 4.0, 6.0], &[3])
        );
        assert_eq!(
            dot(&a, &f(&[1.0; 4], &[4]), DType::F64),
            Err("shapes (2, 3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)".to_string())
        );
        assert!(dot(&a, &a, DType::F64).is_err());
        // mixed dtypes cast to the result dtype
        assert_eq!(
            dot(&ar(&[2, 3]), &v, DType::F64).unwrap(),
            f(&[8.0, 26.0], &[2])
        );
    }

    #[test]
    fn dot_nd_and_integers() {
        // np.dot(np.arange(6).reshape(2,3), np.arange(24).reshape(2,3,4)).shape == (2, 2, 4)
        let r = dot(&ar(&[2, 3]), &ar(&[2, 3, 4]), DType::I64).unwrap();
        assert_eq!(r.shape(), &[2, 2, 4]);
        let r = r.as_f64_array();
        // [[[20,23,26,29],[56,59,62,65]],[[56,68,80,92],[200,212,224,236]]]
        assert_eq!(r[[0, 1, 0]], 56.0);
        assert_eq!(r[[1, 1, 3]], 236.0);
        assert_eq!(r[[1, 0, 1]], 68.0);
        // 3-D · 1-D
        let r = dot(&ar(&[2, 2, 3]), &i(&[1, 0, -1], &[3]), DType::I64).unwrap();
        assert_eq!(r, i(&[-2, -2, -2, -2], &[2, 2]));
        // wrapping integer products
        let big = i(&[i64::MAX, 1], &[2]);
        assert_eq!(
            dot(&big, &i(&[2, 2], &[2]), DType::I64).unwrap(),
            Value::scalar_i64(0)
        );
        // bool dot: or of ands
        let p = b(&[true, false, false, true], &[2, 2]);
        let q = b(&[false, true], &[2]);
        assert_eq!(dot(&p, &q, DType::Bool).unwrap(), b(&[false, true], &[2]));
        assert_eq!(
            dot(&b(&[], &[0]), &b(&[], &[0]), DType::Bool).unwrap(),
            Value::scalar_bool(false)
        );
    }

    #[test]
    fn matmul_batches() {
        // np.arange(24).reshape(2,3,4) @ np.arange(8).reshape(4,2)
        let r = matmul(&arf(&[2, 3, 4]), &arf(&[4, 2]), DType::F64).unwrap();
        assert_eq!(
            r,
            f(
                &[28., 34., 76., 98., 124., 162., 172., 226., 220., 290., 268., 354.],
                &[2, 3, 2]
            )
        );
        // broadcast batch axes: (2,1,2,2) @ (3,2,2) -> (2,3,2,2)
        let r = matmul(&ar(&[2, 1, 2, 2]), &ar(&[3, 2, 2]), DType::I64).unwrap();
        assert_eq!(r.shape(), &[2, 3, 2, 2]);
        let r = r.as_f64_array();
        // (np.arange(8).reshape(2,1,2,2) @ np.arange(12).reshape(3,2,2))[1, 2] == [[82, 91], [118, 131]]
        assert_eq!(r[[1, 2, 0, 0]], 82.0);
        assert_eq!(r[[1, 2, 1, 1]], 131.0);
        // 1-D operands with a batch
        let r = matmul(&f(&[1.0, 1.0], &[2]), &arf(&[3, 2, 2]), DType::F64).unwrap();
        assert_eq!(r, f(&[2., 4., 10., 12., 18., 20.], &[3, 2]));
        let r = matmul(&arf(&[3, 2, 2]), &f(&[1.0, 1.0], &[2]), DType::F64).unwrap();
        assert_eq!(r, f(&[1., 5., 9., 13., 17., 21.], &[3, 2]));
        assert_eq!(
            matmul(&f(&[1.0, 2.0], &[2]), &f(&[3.0, 4.0], &[2]), DType::F64).unwrap(),
            Value::scalar_f64(11.0)
        );
        assert!(matmul(&ar(&[2, 2, 3]), &ar(&[3, 2, 2]), DType::I64).is_err());
        assert!(matmul(&ar(&[2, 2, 3]), &ar(&[3, 3, 2]), DType::I64).is_err());
        assert!(matmul(&Value::scalar_i64(1), &ar(&[2]), DType::I64).is_err());
        // empty batch
        let r = matmul(&arf(&[0, 2, 3]), &arf(&[3, 4]), DType::F64).unwrap();
        assert_eq!(r.shape(), &[0, 2, 4]);
    }

    #[test]
    fn f32_products() {
        let a = arf(&[3, 3]).cast(DType::F32);
        // np.arange(9).reshape(3,3) @ itself
        let want = f(&[15., 18., 21., 42., 54., 66., 69., 90., 111.], &[3, 3]).cast(DType::F32);
        assert_eq!(dot(&a, &a, DType::F32).unwrap(), want);
        assert_eq!(
            dot(&a, &f(&[1.0; 3], &[3]), DType::F32).unwrap().dtype(),
            DType::F32
        );
    }
}
