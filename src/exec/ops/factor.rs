//! Dense factorizations: the kernels of `numpy.linalg`'s `solve`,
//! `solve_triangular` (SciPy's), `cholesky`, `inv`, `det` and `slogdet`,
//! batched over leading axes.
//!
//! Owns: the factorizations of one row-major n×n matrix — LU with partial
//! pivoting ([`lu`], LAPACK `getf2`'s order of operations: the largest
//! pivot, the first on ties; the column scaled by the pivot's reciprocal;
//! a rank-1 update of the rest), Cholesky reading the lower triangle
//! ([`cholesky_lower`], `potf2`'s), the substitutions of `getrs`/`trsm`
//! — and the batched drivers that broadcast the stacks and convert the
//! operands to the float dtype the result has (`i64` and `bool` in `f64`,
//! `f32` kept). Never an explicit inverse: `inv` is the LU solve of the
//! identity. Must not: decide result dtypes or know where the op is
//! written (an error is a sentence; the caller places it).
//!
//! Why our own loops rather than a library: the matrices of the workloads
//! this serves are small (4×4 in a Kalman filter step, inside a loop of
//! thousands of steps), where a call's fixed cost dominates — faer 0.24's
//! `partial_piv_lu().solve()` of a 4×4 system took 396 ns a call on the
//! build machine (allocation and dispatch), these loops under 60 ns — and
//! NumPy's semantics at a singular matrix (an exact zero pivot: an error
//! for `solve`/`inv`, 0 for `det`) need the pivots, which these loops
//! expose directly. The loops are O(n³) like LAPACK's unblocked routines;
//! for large matrices a blocked library would be faster (left for later).

use crate::exec::value::{shape_str, Elem, Value};
use crate::lang::DType;
use ndarray::{ArrayD, IxDyn};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A float element type the factorizations compute in.
pub trait Real:
    Elem
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The smallest positive normal number (LAPACK's `sfmin`).
    const MIN_NORMAL: Self;
    /// `|x|`.
    fn abs(self) -> Self;
    /// `√x`.
    fn sqrt(self) -> Self;
    /// `ln x`.
    fn ln(self) -> Self;
}

impl Real for f64 {
    const MIN_NORMAL: f64 = f64::MIN_POSITIVE;
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn ln(self) -> f64 {
        f64::ln(self)
    }
}

impl Real for f32 {
    const MIN_NORMAL: f32 = f32::MIN_POSITIVE;
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn ln(self) -> f32 {
        f32::ln(self)
    }
}

// ------------------------------------------------------------ one matrix

/// LU factorization with partial pivoting of the row-major n×n `a` in
/// place: `P a = L U`, `L` unit lower (below the diagonal), `U` upper. At
/// step `k` rows `k` and `piv[k]` were swapped. Returns whether every
/// pivot is non-zero (an exact zero pivot leaves its column unscaled and
/// the factorization goes on, as LAPACK's `getf2`).
pub fn lu<T: Real>(a: &mut [T], n: usize, piv: &mut [usize]) -> bool {
    let mut regular = true;
    for k in 0..n {
        let mut p = k;
        let mut best = a[k * n + k].abs();
        for i in k + 1..n {
            let v = a[i * n + k].abs();
            if v > best {
                best = v;
                p = i;
            }
        }
        piv[k] = p;
        let pivot = a[p * n + k];
        if pivot == T::zero() {
            regular = false;
            continue;
        }
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
        }
        if pivot.abs() >= T::MIN_NORMAL {
            let r = T::one() / pivot;
            for i in k + 1..n {
                a[i * n + k] = a[i * n + k] * r;
            }
        } else {
            for i in k + 1..n {
                a[i * n + k] = a[i * n + k] / pivot;
            }
        }
        for i in k + 1..n {
            let l = a[i * n + k];
            let (top, rest) = a.split_at_mut(i * n);
            let row_k = &top[k * n + k + 1..k * n + n];
            for (x, &u) in rest[k + 1..n].iter_mut().zip(row_k) {
                *x = *x - l * u;
            }
        }
    }
    regular
}

/// `b ← U⁻¹ L⁻¹ P b` for the factors of [`lu`] (all pivots non-zero) and
/// a row-major n×m `b`.
pub fn lu_solve<T: Real>(f: &[T], piv: &[usize], n: usize, b: &mut [T], m: usize) {
    for (k, &p) in piv.iter().enumerate().take(n) {
        if p != k {
            for j in 0..m {
                b.swap(k * m + j, p * m + j);
            }
        }
    }
    forward(f, n, b, m, true);
    backward(f, n, b, m);
}

/// `b ← T⁻¹ b` for the lower triangle `T` of the row-major n×n `t`
/// (its unit diagonal taken as ones when `unit`).
fn forward<T: Real>(t: &[T], n: usize, b: &mut [T], m: usize, unit: bool) {
    for i in 0..n {
        let (head, tail) = b.split_at_mut((i + 1) * m);
        let bi = &mut head[i * m..];
        if !unit {
            let d = t[i * n + i];
            bi.iter_mut().for_each(|x| *x = *x / d);
        }
        for r in i + 1..n {
            let l = t[r * n + i];
            let br = &mut tail[(r - i - 1) * m..(r - i) * m];
            for (x, &y) in br.iter_mut().zip(bi.iter()) {
                *x = *x - l * y;
            }
        }
    }
}

/// `b ← T⁻¹ b` for the upper triangle `T` (diagonal included) of the
/// row-major n×n `t`.
fn backward<T: Real>(t: &[T], n: usize, b: &mut [T], m: usize) {
    for i in (0..n).rev() {
        let d = t[i * n + i];
        let (head, tail) = b.split_at_mut(i * m);
        let bi = &mut tail[..m];
        bi.iter_mut().for_each(|x| *x = *x / d);
        for r in 0..i {
            let u = t[r * n + i];
            let br = &mut head[r * m..(r + 1) * m];
            for (x, &y) in br.iter_mut().zip(bi.iter()) {
                *x = *x - u * y;
            }
        }
    }
}

/// The lower Cholesky factor of the row-major n×n `a`, reading its lower
/// triangle, into `l` (upper triangle zero); the first column whose
/// pivot is not positive (or NaN) when `a` is not positive definite.
pub fn cholesky_lower<T: Real>(a: &[T], n: usize, l: &mut [T]) -> Result<(), usize> {
    l.iter_mut().for_each(|x| *x = T::zero());
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d = d - l[j * n + k] * l[j * n + k];
        }
        // not positive, or NaN (LAPACK's potrf test)
        if d.partial_cmp(&T::zero()) != Some(std::cmp::Ordering::Greater) {
            return Err(j);
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s = s - l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    Ok(())
}

/// `(sign, log|det|)` from the factors of [`lu`]; `(0, -inf)` when a
/// pivot is zero.
fn lu_slogdet<T: Real>(f: &[T], piv: &[usize], n: usize) -> (T, T) {
    let mut negative = false;
    let mut log = T::zero();
    for k in 0..n {
        let u = f[k * n + k];
        if u == T::zero() {
            return (T::zero(), T::from_f64(f64::NEG_INFINITY));
        }
        negative ^= (u < T::zero()) ^ (piv[k] != k);
        log = log + u.abs().ln();
    }
    (if negative { -T::one() } else { T::one() }, log)
}

/// The determinant from the factors of [`lu`]: the product of the
/// pivots, signed by the row swaps.
fn lu_det<T: Real>(f: &[T], piv: &[usize], n: usize) -> T {
    let mut d = T::one();
    for k in 0..n {
        d = d * f[k * n + k];
        if piv[k] != k {
            d = -d;
        }
    }
    d
}

// ------------------------------------------------------------ one small matrix

/// The largest order the step tape factors (its scratch is on the stack).
pub const SMALL_N: usize = 8;

/// A linalg op on one small `f64` matrix, as the step tape runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Small {
    /// `(solve A B)`
    Solve,
    /// `(solve_triangular A B LOWER)`
    Triangular(bool),
    /// `(cholesky A)`
    Cholesky,
    /// `(inv A)`
    Inv,
    /// `(det A)`
    Det,
    /// result `k` of `(slogdet A)`
    Slogdet(usize),
}

impl Small {
    /// Whether it reads a right-hand side.
    pub fn reads_b(self) -> bool {
        matches!(self, Small::Solve | Small::Triangular(_))
    }

    /// Its result's length for an n×n matrix and `m` right-hand side
    /// columns.
    pub fn out_len(self, n: usize, m: usize) -> usize {
        match self {
            Small::Solve | Small::Triangular(_) => n * m,
            Small::Cholesky | Small::Inv => n * n,
            Small::Det | Small::Slogdet(_) => 1,
        }
    }
}

/// `kind` on the row-major n×n `a` (`n ≤ SMALL_N`) and n×m `b`, into
/// `out` ([`Small::out_len`]): the same operations, in the same order, as
/// the batched kernels on one matrix, and the same errors.
pub fn small(
    kind: Small,
    a: &[f64],
    b: &[f64],
    n: usize,
    m: usize,
    out: &mut [f64],
) -> Result<(), String> {
    if n > SMALL_N || a.len() < n * n || out.len() < kind.out_len(n, m) {
        return Err("internal: a small factorization of the wrong size".into());
    }
    let mut f = [0.0f64; SMALL_N * SMALL_N];
    let mut piv = [0usize; SMALL_N];
    let (f, piv) = (&mut f[..n * n], &mut piv[..n]);
    match kind {
        Small::Solve => {
            f.copy_from_slice(&a[..n * n]);
            if !lu(f, n, piv) {
                return Err(singular("the matrix"));
            }
            let x = &mut out[..n * m];
            x.copy_from_slice(b.get(..n * m).ok_or("internal: a short right-hand side")?);
            lu_solve(f, piv, n, x, m);
        }
        Small::Triangular(lower) => {
            if let Some(i) = (0..n).find(|&i| a[i * n + i] == 0.0) {
                return Err(zero_diagonal("the matrix", i));
            }
            let x = &mut out[..n * m];
            x.copy_from_slice(b.get(..n * m).ok_or("internal: a short right-hand side")?);
            if lower {
                forward(a, n, x, m, false);
            } else {
                backward(a, n, x, m);
            }
        }
        Small::Cholesky => {
            cholesky_lower(&a[..n * n], n, &mut out[..n * n])
                .map_err(|j| not_positive_definite("the matrix", j))?;
        }
        Small::Inv => {
            f.copy_from_slice(&a[..n * n]);
            if !lu(f, n, piv) {
                return Err(singular("the matrix"));
            }
            let x = &mut out[..n * n];
            x.fill(0.0);
            for i in 0..n {
                x[i * n + i] = 1.0;
            }
            lu_solve(f, piv, n, x, n);
        }
        Small::Det | Small::Slogdet(_) => {
            f.copy_from_slice(&a[..n * n]);
            lu(f, n, piv);
            out[0] = match kind {
                _ if n == 0 => (kind != Small::Slogdet(1)) as u8 as f64,
                Small::Det => lu_det(f, piv, n),
                Small::Slogdet(0) => lu_slogdet(f, piv, n).0,
                _ => lu_slogdet(f, piv, n).1,
            };
        }
    }
    Ok(())
}

fn singular(which: &str) -> String {
    format!("{which} is singular (an exact zero pivot in its LU factorization)")
}

fn zero_diagonal(which: &str, i: usize) -> String {
    format!("{which} is singular: its diagonal element {i} is zero")
}

fn not_positive_definite(which: &str, j: usize) -> String {
    format!("{which} is not positive definite (pivot {j} is not positive)")
}

// ------------------------------------------------------------ batches

/// A stack of matrices: its batch shape and its data, row-major.
struct Stack<T> {
    batch: Vec<usize>,
    rows: usize,
    cols: usize,
    data: Vec<T>,
}

impl<T: Real> Stack<T> {
    /// `v` in `T`, its last two axes the matrices (`vector`: its last axis
    /// is one column).
    fn of(v: &Value, vector: bool) -> Stack<T> {
        let a = v.to_array::<T>();
        let shape = a.shape().to_vec();
        let data: Vec<T> = a.iter().copied().collect();
        if vector {
            let (batch, n) = shape.split_at(shape.len() - 1);
            return Stack {
                batch: batch.to_vec(),
                rows: n[0],
                cols: 1,
                data,
            };
        }
        let (batch, m) = shape.split_at(shape.len() - 2);
        Stack {
            batch: batch.to_vec(),
            rows: m[0],
            cols: m[1],
            data,
        }
    }

    /// The square order of its matrices, or the error.
    fn square(&self) -> Result<usize, String> {
        if self.rows != self.cols {
            return Err(format!(
                "the matrix must be square, got {}x{} matrices",
                self.rows, self.cols
            ));
        }
        Ok(self.rows)
    }
}

/// For each matrix of the broadcast batch `out`, the index of the matrix
/// of a stack with batch `batch` it reads.
fn batch_index(out: &[usize], batch: &[usize]) -> Vec<usize> {
    let total: usize = out.iter().product();
    let lead = out.len() - batch.len();
    let mut idx = Vec::with_capacity(total);
    for t in 0..total {
        let (mut rem, mut k, mut stride) = (t, 0, 1);
        for (ax, &len) in out.iter().enumerate().rev() {
            let i = rem % len.max(1);
            rem /= len.max(1);
            if ax >= lead {
                let bl = batch[ax - lead];
                if bl != 1 {
                    k += i * stride;
                }
                stride *= bl;
            }
        }
        idx.push(k);
    }
    idx
}

/// Which of the stack's matrices, in words, for an error.
fn which(batch: &[usize], k: usize) -> String {
    if batch.iter().product::<usize>() <= 1 {
        "the matrix".into()
    } else {
        format!("matrix {k} of the stack {}", shape_str(batch))
    }
}

fn wrap<T: Real>(shape: Vec<usize>, data: Vec<T>) -> Result<Value, String> {
    ArrayD::from_shape_vec(IxDyn(&shape), data)
        .map(T::wrap)
        .map_err(|e| format!("internal: {e}"))
}

/// `(solve A B)` (`triangle` `None`) or `(solve_triangular A B LOWER)`
/// (`Some(lower)`) in `T`.
fn solve_t<T: Real>(a: &Value, b: &Value, triangle: Option<bool>) -> Result<Value, String> {
    let sa = Stack::<T>::of(a, false);
    let n = sa.square()?;
    let vector = b.ndim() == 1;
    let sb = Stack::<T>::of(b, vector);
    if sb.rows != n {
        return Err(format!(
            "the matrix {} and the right-hand side {} differ in size: {n} != {}",
            a.shape_str(),
            b.shape_str(),
            sb.rows
        ));
    }
    let m = sb.cols;
    let batch = if vector {
        sa.batch.clone()
    } else {
        super::elementwise::broadcast_shapes(&[&sa.batch, &sb.batch])?
    };
    let ia = batch_index(&batch, &sa.batch);
    let ib = batch_index(&batch, &sb.batch);
    let mut out = Vec::with_capacity(ia.len() * n * m);
    let mut f = vec![T::zero(); n * n];
    let mut piv = vec![0usize; n];
    let mut last = usize::MAX;
    for (t, (&ka, &kb)) in ia.iter().zip(&ib).enumerate() {
        let start = out.len();
        if vector {
            out.extend_from_slice(&sb.data[..n]);
        } else {
            out.extend_from_slice(&sb.data[kb * n * m..(kb + 1) * n * m]);
        }
        let x = &mut out[start..];
        let am = &sa.data[ka * n * n..(ka + 1) * n * n];
        match triangle {
            Some(lower) => {
                if let Some(i) = (0..n).find(|&i| am[i * n + i] == T::zero()) {
                    return Err(zero_diagonal(&which(&batch, t), i));
                }
                if lower {
                    forward(am, n, x, m, false);
                } else {
                    backward(am, n, x, m);
                }
            }
            None => {
                // A matrix broadcast over the batch is factored once.
                if ka != last {
                    f.copy_from_slice(am);
                    if !lu(&mut f, n, &mut piv) {
                        return Err(singular(&which(&batch, t)));
                    }
                    last = ka;
                }
                lu_solve(&f, &piv, n, x, m);
            }
        }
    }
    let mut shape = batch;
    shape.push(n);
    if !vector {
        shape.push(m);
    }
    wrap(shape, out)
}

/// Runs `f` on `a` converted to the float dtype `out`.
macro_rules! in_float {
    ($out:expr, $f:ident($($arg:expr),*)) => {
        match $out {
            DType::F32 => $f::<f32>($($arg),*),
            DType::F64 => $f::<f64>($($arg),*),
            other => Err(format!("internal: a linalg result of dtype {other}")),
        }
    };
}

/// `(solve A B)`: `numpy.linalg.solve` (NumPy 2: `B` is a vector only when
/// it is 1-D), the result in `out`.
pub fn solve(a: &Value, b: &Value, out: DType) -> Result<Value, String> {
    in_float!(out, solve_t(a, b, None))
}

/// `(solve_triangular A B LOWER)`: `scipy.linalg.solve_triangular` batched,
/// reading only the lower (or upper) triangle of `A`; a zero on the
/// diagonal is an error, as SciPy's.
pub fn solve_triangular(a: &Value, b: &Value, lower: bool, out: DType) -> Result<Value, String> {
    in_float!(out, solve_t(a, b, Some(lower)))
}

fn cholesky_t<T: Real>(a: &Value) -> Result<Value, String> {
    let sa = Stack::<T>::of(a, false);
    let n = sa.square()?;
    let mut out = vec![T::zero(); sa.data.len()];
    for (k, (am, l)) in sa
        .data
        .chunks_exact(n * n)
        .zip(out.chunks_exact_mut(n * n))
        .enumerate()
    {
        if let Err(j) = cholesky_lower(am, n, l) {
            return Err(not_positive_definite(&which(&sa.batch, k), j));
        }
    }
    wrap(a.shape().to_vec(), out)
}

/// `(cholesky A)`: the lower factor, reading the lower triangle of `A`.
pub fn cholesky(a: &Value, out: DType) -> Result<Value, String> {
    in_float!(out, cholesky_t(a))
}

fn inv_t<T: Real>(a: &Value) -> Result<Value, String> {
    let sa = Stack::<T>::of(a, false);
    let n = sa.square()?;
    let mut out = vec![T::zero(); sa.data.len()];
    let mut f = vec![T::zero(); n * n];
    let mut piv = vec![0usize; n];
    for (k, (am, x)) in sa
        .data
        .chunks_exact(n * n)
        .zip(out.chunks_exact_mut(n * n))
        .enumerate()
    {
        f.copy_from_slice(am);
        if !lu(&mut f, n, &mut piv) {
            return Err(singular(&which(&sa.batch, k)));
        }
        for i in 0..n {
            x[i * n + i] = T::one();
        }
        lu_solve(&f, &piv, n, x, n);
    }
    wrap(a.shape().to_vec(), out)
}

/// `(inv A)`: the LU solve of the identity.
pub fn inv(a: &Value, out: DType) -> Result<Value, String> {
    in_float!(out, inv_t(a))
}

/// `(det A)` (`part` `None`) or result `part` of `(slogdet A)`.
fn det_t<T: Real>(a: &Value, part: Option<usize>) -> Result<Value, String> {
    let sa = Stack::<T>::of(a, false);
    let n = sa.square()?;
    let mut f = vec![T::zero(); n * n];
    let mut piv = vec![0usize; n];
    let mut out = Vec::with_capacity(sa.batch.iter().product());
    for am in sa.data.chunks_exact(n * n) {
        f.copy_from_slice(am);
        lu(&mut f, n, &mut piv);
        out.push(match part {
            None => lu_det(&f, &piv, n),
            Some(k) => {
                let (sign, log) = lu_slogdet(&f, &piv, n);
                if k == 0 {
                    sign
                } else {
                    log
                }
            }
        });
    }
    // an empty stack of matrices (n = 0 has one matrix per batch entry)
    if n == 0 {
        out = vec![if part == Some(1) { T::zero() } else { T::one() }; sa.batch.iter().product()];
    }
    wrap(sa.batch, out)
}

/// `(det A)`: the product of the LU pivots, signed; 0 for a singular `A`.
pub fn det(a: &Value, out: DType) -> Result<Value, String> {
    in_float!(out, det_t(a, None))
}

/// Result `part` of `(slogdet A)`: the sign (0) or `log|det|` (1);
/// (0, -inf) for a singular `A`.
pub fn slogdet(a: &Value, part: usize, out: DType) -> Result<Value, String> {
    in_float!(out, det_t(a, Some(part)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat(rows: &[&[f64]]) -> Value {
        let n = rows.len();
        let data: Vec<f64> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        Value::F64(ArrayD::from_shape_vec(IxDyn(&[n, rows[0].len()]), data).unwrap())
    }

    fn vals(v: &Value) -> Vec<f64> {
        v.as_f64_array().iter().copied().collect()
    }

    #[test]
    fn solves_with_pivoting() {
        // a zero in the top-left corner needs a row swap
        let a = mat(&[&[0.0, 2.0, 1.0], &[1.0, 1.0, 0.0], &[3.0, 0.0, 1.0]]);
        let b = Value::F64(ArrayD::from_shape_vec(IxDyn(&[3]), vec![5.0, 3.0, 4.0]).unwrap());
        let x = vals(&solve(&a, &b, DType::F64).unwrap());
        // x = (1, 2, 1) by hand
        for (got, want) in x.iter().zip([1.0, 2.0, 1.0]) {
            assert!((got - want).abs() < 1e-14, "{x:?}");
        }
        let d = vals(&det(&a, DType::F64).unwrap())[0];
        // 0*(1-0) - 2*(1-0) + 1*(0-3) = -5
        assert!((d + 5.0).abs() < 1e-14);
        assert_eq!(vals(&slogdet(&a, 0, DType::F64).unwrap()), vec![-1.0]);
        assert!((vals(&slogdet(&a, 1, DType::F64).unwrap())[0] - 5f64.ln()).abs() < 1e-14);
    }

    #[test]
    fn singular_matrices() {
        let a = mat(&[&[1.0, 2.0], &[2.0, 4.0]]);
        assert!(solve(&a, &a, DType::F64).unwrap_err().contains("singular"));
        assert!(inv(&a, DType::F64).unwrap_err().contains("singular"));
        assert_eq!(vals(&det(&a, DType::F64).unwrap()), vec![0.0]);
        assert_eq!(vals(&slogdet(&a, 0, DType::F64).unwrap()), vec![0.0]);
        assert_eq!(
            vals(&slogdet(&a, 1, DType::F64).unwrap()),
            vec![f64::NEG_INFINITY]
        );
        let not_pd = mat(&[&[1.0, 2.0], &[2.0, 1.0]]);
        assert!(cholesky(&not_pd, DType::F64)
            .unwrap_err()
            .contains("pivot 1"));
    }

    #[test]
    fn cholesky_reads_the_lower_triangle() {
        let a = mat(&[&[4.0, 99.0], &[2.0, 10.0]]);
        // L = [[2, 0], [1, 3]]
        assert_eq!(
            vals(&cholesky(&a, DType::F64).unwrap()),
            vec![2.0, 0.0, 1.0, 3.0]
        );
    }

    #[test]
    fn broadcast_batches() {
        assert_eq!(batch_index(&[2, 3], &[3]), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(batch_index(&[2, 3], &[2, 1]), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(batch_index(&[], &[]), vec![0]);
    }
}
