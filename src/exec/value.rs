//! Runtime values: n-dimensional arrays of one of the four dtypes.
//!
//! Owns: [`Value`], the [`Elem`] trait over the four element types (with
//! NumPy's `astype` conversions between them), conversions between dtypes,
//! and small helpers the executor and its tests need (scalars, sums,
//! closeness). Must not: know about ops.

use crate::lang::{DType, Dim, Scalar, Type};
use ndarray::{ArrayD, Axis, CowArray, IxDyn, Slice};
use std::fmt::Debug;

/// A runtime tensor.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `f64` data
    F64(ArrayD<f64>),
    /// `f32` data
    F32(ArrayD<f32>),
    /// `i64` data
    I64(ArrayD<i64>),
    /// `i32` data
    I32(ArrayD<i32>),
    /// `bool` data
    Bool(ArrayD<bool>),
}

/// The truth of one element as a while loop's condition reads it: a bool
/// as it is, a number when non-zero (NaN included; an `i64` is non-zero
/// exactly when its nearest `f64` is).
pub fn truth<T: Elem>(x: T) -> bool {
    x.to_f64() != 0.0
}

/// One of the four element types, with NumPy's `astype` conversions.
///
/// Conversions follow NumPy on x86-64: float → int truncates toward zero,
/// and NaN, ±inf and out-of-range floats become `i64::MIN`; float → bool is
/// `x != 0` (so NaN is `true`); bool → number is 0 or 1; `f64` → `f32`
/// rounds to nearest.
pub trait Elem: Copy + PartialEq + PartialOrd + Debug + Default + Send + Sync + 'static {
    /// The dtype of this element type.
    const DTYPE: DType;
    /// Additive identity (`false` for bool).
    fn zero() -> Self;
    /// Multiplicative identity (`true` for bool).
    fn one() -> Self;
    /// Converts from `f64` as `numpy.astype` does.
    fn from_f64(x: f64) -> Self;
    /// Converts from `i64` as `numpy.astype` does.
    fn from_i64(x: i64) -> Self;
    /// Converts from `bool` (0 or 1).
    fn from_bool(x: bool) -> Self;
    /// The value as `f64` (bool gives 0 or 1; `i64` rounds to nearest).
    fn to_f64(self) -> f64;
    /// Converts to another element type as `numpy.astype` does.
    fn cast<U: Elem>(self) -> U;
    /// Wraps an array of this type into a [`Value`].
    fn wrap(a: ArrayD<Self>) -> Value;
    /// The array inside `v` if `v` has this dtype.
    fn peek(v: &Value) -> Option<&ArrayD<Self>>;
    /// The array inside `v`, mutably, if `v` has this dtype.
    fn peek_mut(v: &mut Value) -> Option<&mut ArrayD<Self>>;
    /// The array inside `v` if `v` has this dtype, else `v` back.
    fn unwrap(v: Value) -> Result<ArrayD<Self>, Value>;
}

/// `f64` → `i64` as NumPy's `astype` does on x86-64: truncation toward zero,
/// `i64::MIN` for NaN, infinities and values outside the `i64` range.
pub fn f64_to_i64(x: f64) -> i64 {
    // 2^63 is exactly representable; the valid range is [-2^63, 2^63).
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if x.is_nan() || !(-LIMIT..LIMIT).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

impl Elem for f64 {
    const DTYPE: DType = DType::F64;
    fn zero() -> f64 {
        0.0
    }
    fn one() -> f64 {
        1.0
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn from_i64(x: i64) -> f64 {
        x as f64
    }
    fn from_bool(x: bool) -> f64 {
        if x {
            1.0
        } else {
            0.0
        }
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn cast<U: Elem>(self) -> U {
        U::from_f64(self)
    }
    fn wrap(a: ArrayD<f64>) -> Value {
        Value::F64(a)
    }
    fn peek(v: &Value) -> Option<&ArrayD<f64>> {
        match v {
            Value::F64(a) => Some(a),
            _ => None,
        }
    }
    fn peek_mut(v: &mut Value) -> Option<&mut ArrayD<f64>> {
        match v {
            Value::F64(a) => Some(a),
            _ => None,
        }
    }
    fn unwrap(v: Value) -> Result<ArrayD<f64>, Value> {
        match v {
            Value::F64(a) => Ok(a),
            other => Err(other),
        }
    }
}

impl Elem for f32 {
    const DTYPE: DType = DType::F32;
    fn zero() -> f32 {
        0.0
    }
    fn one() -> f32 {
        1.0
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn from_i64(x: i64) -> f32 {
        x as f32
    }
    fn from_bool(x: bool) -> f32 {
        if x {
            1.0
        } else {
            0.0
        }
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn cast<U: Elem>(self) -> U {
        // f32 -> f64 is exact, so every conversion through f64 is the direct one.
        U::from_f64(self as f64)
    }
    fn wrap(a: ArrayD<f32>) -> Value {
        Value::F32(a)
    }
    fn peek(v: &Value) -> Option<&ArrayD<f32>> {
        match v {
            Value::F32(a) => Some(a),
            _ => None,
        }
    }
    fn peek_mut(v: &mut Value) -> Option<&mut ArrayD<f32>> {
        match v {
            Value::F32(a) => Some(a),
            _ => None,
        }
    }
    fn unwrap(v: Value) -> Result<ArrayD<f32>, Value> {
        match v {
            Value::F32(a) => Ok(a),
            other => Err(other),
        }
    }
}

impl Elem for i64 {
    const DTYPE: DType = DType::I64;
    fn zero() -> i64 {
        0
    }
    fn one() -> i64 {
        1
    }
    fn from_f64(x: f64) -> i64 {
        f64_to_i64(x)
    }
    fn from_i64(x: i64) -> i64 {
        x
    }
    fn from_bool(x: bool) -> i64 {
        x as i64
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn cast<U: Elem>(self) -> U {
        U::from_i64(self)
    }
    fn wrap(a: ArrayD<i64>) -> Value {
        Value::I64(a)
    }
    fn peek(v: &Value) -> Option<&ArrayD<i64>> {
        match v {
            Value::I64(a) => Some(a),
            _ => None,
        }
    }
    fn peek_mut(v: &mut Value) -> Option<&mut ArrayD<i64>> {
        match v {
            Value::I64(a) => Some(a),
            _ => None,
        }
    }
    fn unwrap(v: Value) -> Result<ArrayD<i64>, Value> {
        match v {
            Value::I64(a) => Ok(a),
            other => Err(other),
        }
    }
}

/// `f64` → `i32` as NumPy's `astype` does on x86-64: truncation toward zero,
/// `i32::MIN` for NaN, infinities and values outside the `i32` range.
pub fn f64_to_i32(x: f64) -> i32 {
    // The valid range is [-2^31, 2^31); both ends are exact in f64.
    const LIMIT: f64 = 2_147_483_648.0;
    if x.is_nan() || !(-LIMIT..LIMIT).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

impl Elem for i32 {
    const DTYPE: DType = DType::I32;
    fn zero() -> i32 {
        0
    }
    fn one() -> i32 {
        1
    }
    fn from_f64(x: f64) -> i32 {
        f64_to_i32(x)
    }
    fn from_i64(x: i64) -> i32 {
        // NumPy's int64 → int32 keeps the low 32 bits.
        x as i32
    }
    fn from_bool(x: bool) -> i32 {
        x as i32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn cast<U: Elem>(self) -> U {
        // i32 → i64 is exact, and every conversion from the i64 is the direct one.
        U::from_i64(self as i64)
    }
    fn wrap(a: ArrayD<i32>) -> Value {
        Value::I32(a)
    }
    fn peek(v: &Value) -> Option<&ArrayD<i32>> {
        match v {
            Value::I32(a) => Some(a),
            _ => None,
        }
    }
    fn peek_mut(v: &mut Value) -> Option<&mut ArrayD<i32>> {
        match v {
            Value::I32(a) => Some(a),
            _ => None,
        }
    }
    fn unwrap(v: Value) -> Result<ArrayD<i32>, Value> {
        match v {
            Value::I32(a) => Ok(a),
            other => Err(other),
        }
    }
}

impl Elem for bool {
    const DTYPE: DType = DType::Bool;
    fn zero() -> bool {
        false
    }
    fn one() -> bool {
        true
    }
    fn from_f64(x: f64) -> bool {
        x != 0.0
    }
    fn from_i64(x: i64) -> bool {
        x != 0
    }
    fn from_bool(x: bool) -> bool {
        x
    }
    fn to_f64(self) -> f64 {
        if self {
            1.0
        } else {
            0.0
        }
    }
    fn cast<U: Elem>(self) -> U {
        U::from_bool(self)
    }
    fn wrap(a: ArrayD<bool>) -> Value {
        Value::Bool(a)
    }
    fn peek(v: &Value) -> Option<&ArrayD<bool>> {
        match v {
            Value::Bool(a) => Some(a),
            _ => None,
        }
    }
    fn peek_mut(v: &mut Value) -> Option<&mut ArrayD<bool>> {
        match v {
            Value::Bool(a) => Some(a),
            _ => None,
        }
    }
    fn unwrap(v: Value) -> Result<ArrayD<bool>, Value> {
        match v {
            Value::Bool(a) => Ok(a),
            other => Err(other),
        }
    }
}

/// Runs `$body` with `$T` bound to the element type of the dtype `$dt`.
///
/// ```ignore
/// with_elem!(value.dtype(), T => do_something::<T>(value))
/// ```
macro_rules! with_elem {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            $crate::lang::DType::F64 => {
                #[allow(dead_code)]
                type $T = f64;
                $body
            }
            $crate::lang::DType::F32 => {
                #[allow(dead_code)]
                type $T = f32;
                $body
            }
            // a key's elements are stored as i64 (`DType::storage`)
            $crate::lang::DType::I64 | $crate::lang::DType::Key => {
                #[allow(dead_code)]
                type $T = i64;
                $body
            }
            $crate::lang::DType::I32 => {
                #[allow(dead_code)]
                type $T = i32;
                $body
            }
            $crate::lang::DType::Bool => {
                #[allow(dead_code)]
                type $T = bool;
                $body
            }
        }
    };
}
pub(crate) use with_elem;

/// Runs `$body` with `$a` bound to a reference to the array inside `$v`
/// (whatever its dtype).
macro_rules! with_array {
    ($v:expr, $a:ident => $body:expr) => {
        match $v {
            $crate::exec::value::Value::F64($a) => $body,
            $crate::exec::value::Value::F32($a) => $body,
            $crate::exec::value::Value::I64($a) => $body,
            $crate::exec::value::Value::I32($a) => $body,
            $crate::exec::value::Value::Bool($a) => $body,
        }
    };
}
pub(crate) use with_array;

impl From<ArrayD<f64>> for Value {
    fn from(a: ArrayD<f64>) -> Value {
        Value::F64(a)
    }
}

impl From<ArrayD<f32>> for Value {
    fn from(a: ArrayD<f32>) -> Value {
        Value::F32(a)
    }
}

impl From<ArrayD<i64>> for Value {
    fn from(a: ArrayD<i64>) -> Value {
        Value::I64(a)
    }
}

impl From<ArrayD<i32>> for Value {
    fn from(a: ArrayD<i32>) -> Value {
        Value::I32(a)
    }
}

impl From<ArrayD<bool>> for Value {
    fn from(a: ArrayD<bool>) -> Value {
        Value::Bool(a)
    }
}

/// Formats a runtime shape as NumPy prints it: `(5, 64)`, `(3,)`, `()`.
pub fn shape_str(shape: &[usize]) -> String {
    match shape {
        [] => "()".to_string(),
        [n] => format!("({n},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// The number of elements of an array of `shape` and `dtype`, or an error
/// when it would not fit in memory addressing (`isize::MAX` bytes).
pub fn checked_len(shape: &[usize], dtype: DType) -> Result<usize, String> {
    let mut n: usize = 1;
    for &d in shape {
        n = n
            .checked_mul(d)
            .ok_or_else(|| format!("an array of shape {} is too large", shape_str(shape)))?;
    }
    match n.checked_mul(dtype.size_bytes()) {
        Some(b) if b <= isize::MAX as usize => Ok(n),
        _ => Err(format!(
            "an array of shape {} is too large",
            shape_str(shape)
        )),
    }
}

/// Evaluates a static shape under a binding of the symbolic sizes.
/// Errors name an unbound symbol or an unknown size.
pub fn eval_shape(shape: &[Dim], dims: &dyn Fn(&str) -> Option<i64>) -> Result<Vec<usize>, String> {
    shape
        .iter()
        .map(|d| match d.eval(dims) {
            Some(n) => usize::try_from(n).map_err(|_| format!("size {n} is negative")),
            None => match d.symbols().find(|s| dims(s).is_none()) {
                Some(s) => Err(format!(
                    "symbolic size '{s}' is not bound: give --dim {s}=N"
                )),
                None => Err("a size is not known before the program runs".to_string()),
            },
        })
        .collect()
}

impl Value {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Value::F64(_) => DType::F64,
            Value::F32(_) => DType::F32,
            Value::I64(_) => DType::I64,
            Value::I32(_) => DType::I32,
            Value::Bool(_) => DType::Bool,
        }
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        with_array!(self, a => a.shape())
    }

    /// The shape formatted as NumPy prints it, e.g. `(5, 64)`.
    pub fn shape_str(&self) -> String {
        shape_str(self.shape())
    }

    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_array!(self, a => a.len())
    }

    /// True when the value has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of the data in bytes (elements × element size).
    pub fn len_bytes(&self) -> usize {
        self.len() * self.dtype().size_bytes()
    }

    /// A 0-D `f64` value.
    pub fn scalar_f64(x: f64) -> Value {
        Value::F64(ArrayD::from_elem(IxDyn(&[]), x))
    }

    /// A 0-D `f32` value.
    pub fn scalar_f32(x: f32) -> Value {
        Value::F32(ArrayD::from_elem(IxDyn(&[]), x))
    }

    /// A 0-D `i64` value.
    pub fn scalar_i64(x: i64) -> Value {
        Value::I64(ArrayD::from_elem(IxDyn(&[]), x))
    }

    /// A 0-D `bool` value.
    pub fn scalar_bool(x: bool) -> Value {
        Value::Bool(ArrayD::from_elem(IxDyn(&[]), x))
    }

    /// A 0-D value holding a literal, in the literal's own dtype.
    pub fn from_scalar(s: Scalar) -> Value {
        match s {
            Scalar::Bool(b) => Value::scalar_bool(b),
            Scalar::I64(i) => Value::scalar_i64(i),
            Scalar::F64(x) => Value::scalar_f64(x),
        }
    }

    /// A literal converted to element type `T` (as `astype` would).
    pub fn scalar_as<T: Elem>(s: Scalar) -> T {
        match s {
            Scalar::Bool(b) => T::from_bool(b),
            Scalar::I64(i) => T::from_i64(i),
            Scalar::F64(x) => T::from_f64(x),
        }
    }

    /// An array of `shape` filled with `x`.
    pub fn full<T: Elem>(shape: &[usize], x: T) -> Value {
        T::wrap(ArrayD::from_elem(IxDyn(shape), x))
    }

    /// An array of `shape` filled with `x`, or an error when the size is
    /// absurd or the memory cannot be allocated (instead of aborting).
    pub fn try_full<T: Elem>(shape: &[usize], x: T) -> Result<Value, String> {
        let n = checked_len(shape, T::DTYPE)?;
        let mut data: Vec<T> = Vec::new();
        data.try_reserve_exact(n).map_err(|_| {
            format!(
                "cannot allocate an array of shape {} ({} bytes)",
                shape_str(shape),
                n * T::DTYPE.size_bytes()
            )
        })?;
        data.resize(n, x);
        ArrayD::from_shape_vec(IxDyn(shape), data)
            .map(T::wrap)
            .map_err(|e| format!("internal: {e}"))
    }

    /// Zeros of the given dtype and shape. The caller checks the size
    /// (see [`checked_len`]); this allocates.
    pub fn zeros(dtype: DType, shape: &[usize]) -> Value {
        with_elem!(dtype, T => Value::full::<T>(shape, T::zero()))
    }

    /// Zeros of a static type whose symbolic sizes are bound by `dims`
    /// (the first value of a shared variable, for instance).
    pub fn from_type_zeros(ty: &Type, dims: &dyn Fn(&str) -> Option<i64>) -> Result<Value, String> {
        Value::from_type_zeros_within(ty, dims, &crate::exec::budget::MemoryBudget::default())
    }

    /// [`Value::from_type_zeros`] within a memory budget.
    pub fn from_type_zeros_within(
        ty: &Type,
        dims: &dyn Fn(&str) -> Option<i64>,
        budget: &crate::exec::budget::MemoryBudget,
    ) -> Result<Value, String> {
        let shape = eval_shape(&ty.shape, dims)?;
        budget
            .check(crate::exec::budget::Allocation::Data, ty.dtype, &shape)
            .map_err(|over| format!("its first value (zeros) {over}"))?;
        with_elem!(ty.dtype, T => Value::try_full::<T>(&shape, T::zero()))
    }

    /// The data as element type `T`: borrowed when the dtype is already
    /// `T`, converted (as `astype`) otherwise.
    pub fn to_array<T: Elem>(&self) -> CowArray<'_, T, IxDyn> {
        if let Some(a) = T::peek(self) {
            return CowArray::from(a.view());
        }
        with_array!(self, a => CowArray::from(a.mapv(|x| x.cast::<T>())))
    }

    /// The value converted to another dtype, as `numpy.astype` does
    /// (a clone when the dtype is the same).
    pub fn cast(&self, dtype: DType) -> Value {
        if dtype.storage() == self.dtype() {
            return self.clone();
        }
        with_elem!(dtype, T => T::wrap(self.to_array::<T>().into_owned()))
    }

    /// The value converted to another dtype, reusing the data when the
    /// dtype is already right.
    pub fn into_dtype(self, dtype: DType) -> Value {
        if dtype.storage() == self.dtype() {
            self
        } else {
            self.cast(dtype)
        }
    }

    /// The data converted to `f64` (bool gives 0/1), for comparisons.
    pub fn as_f64_array(&self) -> ArrayD<f64> {
        self.to_array::<f64>().into_owned()
    }

    /// The sum of all elements as `f64`, in row-major order with NumPy's
    /// pairwise summation (a bool value counts its `true`s).
    pub fn sum_f64(&self) -> f64 {
        with_array!(self, a => {
            let std = a.as_standard_layout();
            match std.as_slice() {
                Some(s) => pairwise_sum_f64(s),
                None => {
                    let v: Vec<_> = std.iter().copied().collect();
                    pairwise_sum_f64(&v)
                }
            }
        })
    }

    /// The single element as `i64` when the value has exactly one element
    /// (floats truncate as `astype` does).
    pub fn to_i64_scalar(&self) -> Option<i64> {
        if self.len() != 1 {
            return None;
        }
        with_array!(self, a => a.iter().next().map(|x| x.cast::<i64>()))
    }

    /// Keeps the first `rows` rows along axis 0 (of those it has),
    /// zero-filled past them: a while loop's buffer grown as its steps
    /// run, or cut to the steps that ran. A scalar is left as it is.
    pub fn resize_rows(&mut self, rows: usize) {
        fn go<T: Elem>(a: &mut ArrayD<T>, rows: usize) {
            let Some(&old) = a.shape().first() else {
                return;
            };
            if old == rows {
                return;
            }
            let mut shape = a.shape().to_vec();
            shape[0] = rows;
            let per_row: usize = shape[1..].iter().product();
            // In row-major order the rows kept are a prefix of the data:
            // the storage is truncated or extended in place (a buffer
            // grown again on the next call reuses its capacity).
            if a.is_standard_layout() {
                let (mut data, offset) = std::mem::take(a).into_raw_vec_and_offset();
                // The array's elements: `old · per_row` from its offset.
                data.drain(..offset.unwrap_or(0).min(data.len()));
                data.truncate(old * per_row);
                data.resize(rows * per_row, T::zero());
                *a = ArrayD::from_shape_vec(IxDyn(&shape), data)
                    .unwrap_or_else(|_| ArrayD::from_elem(IxDyn(&shape), T::zero()));
                return;
            }
            let mut grown = ArrayD::from_elem(IxDyn(&shape), T::zero());
            let keep = Slice::from(0..old.min(rows));
            grown
                .slice_axis_mut(Axis(0), keep)
                .assign(&a.slice_axis(Axis(0), keep));
            *a = grown;
        }
        match self {
            Value::F64(a) => go(a, rows),
            Value::F32(a) => go(a, rows),
            Value::I64(a) => go(a, rows),
            Value::I32(a) => go(a, rows),
            Value::Bool(a) => go(a, rows),
        }
    }

    /// The truth of a scalar as a while loop's condition reads it: a bool
    /// as it is, a number when non-zero (NaN included). `None` when the
    /// value is not a scalar.
    pub fn scalar_truth(&self) -> Option<bool> {
        if self.ndim() != 0 {
            return None;
        }
        with_array!(self, a => a.iter().next().map(|&x| truth(x)))
    }

    /// The single element as `f64` when the value has exactly one element.
    pub fn to_f64_scalar(&self) -> Option<f64> {
        if self.len() != 1 {
            return None;
        }
        with_array!(self, a => a.iter().next().map(|x| x.to_f64()))
    }

    /// True when both values have the same shape and every pair of elements
    /// satisfies `|a - b| <= atol + rtol * |b|` (as `numpy.allclose`, with
    /// NaN equal to NaN and infinities equal only to themselves). Dtypes may
    /// differ; values are compared as `f64`.
    pub fn allclose(&self, other: &Value, rtol: f64, atol: f64) -> bool {
        if self.shape() != other.shape() {
            return false;
        }
        let a = self.as_f64_array();
        let b = other.as_f64_array();
        ndarray::Zip::from(&a).and(&b).all(|&x, &y| {
            if x.is_nan() || y.is_nan() {
                x.is_nan() && y.is_nan()
            } else if x.is_infinite() || y.is_infinite() {
                x == y
            } else {
                (x - y).abs() <= atol + rtol * y.abs()
            }
        })
    }
}

/// NumPy's pairwise summation (`pairwise_sum` in NumPy's loops), over
/// elements converted to `f64`: blocks of up to 128 elements are summed
/// with 8 accumulators, larger runs are split in two.
fn pairwise_sum_f64<T: Elem>(a: &[T]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for x in a {
            res += x.to_f64();
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        for (j, rj) in r.iter_mut().enumerate() {
            *rj = a[j].to_f64();
        }
        let mut i = 8;
        while i < n - n % 8 {
            for (j, rj) in r.iter_mut().enumerate() {
                *rj += a[i + j].to_f64();
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for x in &a[i..] {
            res += x.to_f64();
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum_f64(&a[..n2]) + pairwise_sum_f64(&a[n2..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn casts_follow_numpy_astype() {
        let v = Value::F64(
            array![
                f64::NAN,
                f64::INFINITY,
                -f64::INFINITY,
                1e19,
                -1e19,
                -2.7,
                2.7
            ]
            .into_dyn(),
        );
        let i = v.cast(DType::I64);
        let m = i64::MIN;
        assert_eq!(i, Value::I64(array![m, m, m, m, m, -2, 2].into_dyn()));
        // exactly -2^63 fits
        assert_eq!(f64_to_i64(-9_223_372_036_854_775_808.0), i64::MIN);
        assert_eq!(
            f64_to_i64(9_223_372_036_854_774_784.0),
            9_223_372_036_854_774_784
        );
        let b = Value::F64(array![0.0, -0.0, f64::NAN, 0.1].into_dyn()).cast(DType::Bool);
        assert_eq!(b, Value::Bool(array![false, false, true, true].into_dyn()));
        let f = Value::Bool(array![true, false].into_dyn()).cast(DType::F32);
        assert_eq!(f, Value::F32(array![1.0f32, 0.0].into_dyn()));
        let g = Value::F64(array![1e40, 0.1].into_dyn()).cast(DType::F32);
        assert_eq!(g, Value::F32(array![f32::INFINITY, 0.1f32].into_dyn()));
        // numpy 2.4 on x86-64: np.array([nan, inf, -inf, 3e9, -2.7, 2.7]).astype(np.int32)
        let j = v.cast(DType::I32);
        let n = i32::MIN;
        assert_eq!(j, Value::I32(array![n, n, n, n, n, -2, 2].into_dyn()));
        assert_eq!(f64_to_i32(-2_147_483_648.0), i32::MIN);
        assert_eq!(f64_to_i32(2_147_483_647.9), i32::MAX);
        assert_eq!(f64_to_i32(2_147_483_648.0), i32::MIN);
        // np.array([2**40 + 5, -1], np.int64).astype(np.int32) keeps the low bits
        let w = Value::I64(array![(1i64 << 40) + 5, -1].into_dyn()).cast(DType::I32);
        assert_eq!(w, Value::I32(array![5, -1].into_dyn()));
        let k = Value::I64(array![3, 0, -1].into_dyn()).cast(DType::Bool);
        assert_eq!(k, Value::Bool(array![true, false, true].into_dyn()));
    }

    #[test]
    fn scalars_and_sizes() {
        let s = Value::scalar_i64(7);
        assert_eq!(s.shape(), &[] as &[usize]);
        assert_eq!(s.to_i64_scalar(), Some(7));
        assert_eq!(Value::scalar_f64(-2.9).to_i64_scalar(), Some(-2));
        assert_eq!(Value::zeros(DType::F32, &[2, 3]).len_bytes(), 24);
        assert_eq!(Value::zeros(DType::Bool, &[2, 3]).to_i64_scalar(), None);
        assert_eq!(shape_str(&[5, 64]), "(5, 64)");
        assert_eq!(shape_str(&[3]), "(3,)");
        assert_eq!(shape_str(&[]), "()");
        assert!(checked_len(&[usize::MAX, 2], DType::F64).is_err());
        assert!(checked_len(&[1 << 61], DType::F64).is_err());
        assert_eq!(checked_len(&[3, 0], DType::F64), Ok(0));
    }

    #[test]
    fn zeros_from_symbolic_type() {
        let ty = Type::new(DType::I64, vec![Dim::sym("T"), Dim::known(2)]);
        let dims = |s: &str| (s == "T").then_some(3);
        let v = Value::from_type_zeros(&ty, &dims).unwrap();
        assert_eq!(v.shape(), &[3, 2]);
        assert_eq!(v.dtype(), DType::I64);
        let none = |_: &str| None;
        assert_eq!(
            Value::from_type_zeros(&ty, &none),
            Err("symbolic size 'T' is not bound: give --dim T=N".to_string())
        );
    }

    #[test]
    fn sums_and_closeness() {
        let b = Value::Bool(array![true, false, true].into_dyn());
        assert_eq!(b.sum_f64(), 2.0);
        // 0.5 * np.sin(0.37 * np.arange(1200.0)): .sum() == 2.2324311600223554
        // (pairwise; a sequential loop gives 2.232431160022356)
        let v = crate::exec::gen::generate(0, DType::F64, &[4, 300], 1.0);
        assert_eq!(v.sum_f64(), 2.2324311600223554);
        let a = Value::F64(array![1.0, f64::NAN, f64::INFINITY].into_dyn());
        let c = Value::F32(array![1.0f32 + 1e-7, f32::NAN, f32::INFINITY].into_dyn());
        assert!(a.allclose(&c, 1e-5, 1e-8));
        let d = Value::F64(array![1.0, 0.0, f64::INFINITY].into_dyn());
        assert!(!a.allclose(&d, 1e-5, 1e-8));
    }
}
