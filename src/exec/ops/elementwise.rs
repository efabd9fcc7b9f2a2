//! Elementwise kernels: unary functions, binary arithmetic, comparisons and
//! `where`, with NumPy broadcasting of runtime shapes.
//!
//! Owns: [`Arith`] and [`Float`] (the arithmetic of each element type, with
//! NumPy's semantics: wrapping integers, NaN-propagating maximum/minimum,
//! `or`/`and` for booleans), runtime broadcasting ([`broadcast_shapes`],
//! [`zip2`]) and the four kernels. Operands are cast to the computation
//! dtype before the loop. Must not: decide result dtypes (the caller passes
//! them, from type inference).

use super::{special, vmath};
use crate::exec::value::{shape_str, with_elem, Elem, Value};
use crate::lang::{BinaryOp, CompareOp, DType, UnaryOp};
use ndarray::{ArrayD, ArrayViewD, IxDyn, Zip};

/// Arithmetic of one element type, as NumPy computes it in that dtype.
pub trait Arith: Elem {
    /// `a + b` (wrapping for `i64`, `or` for bool).
    fn add(self, o: Self) -> Self;
    /// `a - b` (wrapping for `i64`; `xor` for bool, which callers reject).
    fn sub(self, o: Self) -> Self;
    /// `a * b` (wrapping for `i64`, `and` for bool).
    fn mul(self, o: Self) -> Self;
    /// `a ** b`; for `i64` the caller rejects negative exponents first.
    fn pow(self, o: Self) -> Self;
    /// NaN-propagating maximum (`or` for bool).
    fn maximum(self, o: Self) -> Self;
    /// NaN-propagating minimum (`and` for bool).
    fn minimum(self, o: Self) -> Self;
    /// NumPy's `mod`: the remainder of floor division, with the sign of
    /// `o` (for integers 0 when `o` is 0; bools are promoted first).
    fn modulo(self, o: Self) -> Self;
    /// NumPy's `floor_divide` (for integers 0 when `o` is 0, and the
    /// wrapped quotient for `i64::MIN // -1`; bools are promoted first).
    fn floor_div(self, o: Self) -> Self;
    /// `-a` (wrapping for `i64`; `not` for bool, which callers reject).
    fn neg(self) -> Self;
    /// `|a|` (wrapping for `i64`, identity for bool).
    fn abs(self) -> Self;
    /// -1, 0 or 1; NaN stays NaN; identity for bool.
    fn sign(self) -> Self;
    /// True for a float NaN.
    fn is_nan(self) -> bool;
}

/// Floating-point functions of `f32` and `f64`.
pub trait Float: Arith {
    /// `a / b`
    fn div(self, o: Self) -> Self;
    /// Applies a unary float function (`exp`, `sin`, ...). `Neg`, `Abs` and
    /// `Sign` are handled by [`Arith`].
    fn unary(self, op: UnaryOp) -> Self;
    /// `dst[i] = unary(src[i], op)` over equal-length slices; the same bits
    /// as the element function, possibly computed with SIMD.
    fn unary_slice(op: UnaryOp, src: &[Self], dst: &mut [Self]) {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s.unary(op);
        }
    }
    /// `buf[i] = unary(buf[i], op)`, as [`Float::unary_slice`].
    fn unary_inplace(op: UnaryOp, buf: &mut [Self]) {
        for v in buf {
            *v = v.unary(op);
        }
    }
}

/// The SIMD kernel of `vmath` that computes `op` in `f64`, if any.
fn vmath_func(op: UnaryOp) -> Option<vmath::Func> {
    match op {
        UnaryOp::Exp => Some(vmath::Func::Exp),
        UnaryOp::Log => Some(vmath::Func::Log),
        UnaryOp::Sin => Some(vmath::Func::Sin),
        UnaryOp::Cos => Some(vmath::Func::Cos),
        UnaryOp::Tanh => Some(vmath::Func::Tanh),
        UnaryOp::Sigmoid => Some(vmath::Func::Sigmoid),
        UnaryOp::Neg
        | UnaryOp::Abs
        | UnaryOp::Sign
        | UnaryOp::Log1p
        | UnaryOp::Sqrt
        | UnaryOp::Expm1
        | UnaryOp::Softplus
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Erf
        | UnaryOp::Erfc
        | UnaryOp::Gammaln
        | UnaryOp::Digamma
        | UnaryOp::Trigamma => None,
    }
}

macro_rules! float_impls {
    ($t:ident, $log:expr) => {
        impl Arith for $t {
            fn add(self, o: $t) -> $t {
                self + o
            }
            fn sub(self, o: $t) -> $t {
                self - o
            }
            fn mul(self, o: $t) -> $t {
                self * o
            }
            fn pow(self, o: $t) -> $t {
                self.powf(o)
            }
            fn maximum(self, o: $t) -> $t {
                // NumPy keeps the second operand on ties (maximum(0.0, -0.0) is -0.0).
                if self.is_nan() || (!o.is_nan() && self > o) {
                    self
                } else {
                    o
                }
            }
            fn minimum(self, o: $t) -> $t {
                if self.is_nan() || (!o.is_nan() && self < o) {
                    self
                } else {
                    o
                }
            }
            fn modulo(self, o: $t) -> $t {
                float_divmod(self as f64, o as f64).1 as $t
            }
            fn floor_div(self, o: $t) -> $t {
                float_divmod(self as f64, o as f64).0 as $t
            }
            fn neg(self) -> $t {
                -self
            }
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            fn sign(self) -> $t {
                if self > 0.0 {
                    1.0
                } else if self < 0.0 {
                    -1.0
                } else if self == 0.0 {
                    0.0
                } else {
                    self
                }
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }

        impl Float for $t {
            fn div(self, o: $t) -> $t {
                self / o
            }
            fn unary(self, op: UnaryOp) -> $t {
                match op {
                    UnaryOp::Neg => -self,
                    // f32 computes in f64 and rounds once.
                    UnaryOp::Exp => vmath::scalar(vmath::Func::Exp, self as f64) as $t,
                    UnaryOp::Log => $log(self),
                    UnaryOp::Log1p => self.ln_1p(),
                    UnaryOp::Sqrt => self.sqrt(),
                    UnaryOp::Tanh => vmath::scalar(vmath::Func::Tanh, self as f64) as $t,
                    UnaryOp::Sigmoid => vmath::scalar(vmath::Func::Sigmoid, self as f64) as $t,
                    UnaryOp::Sin => vmath::sin(self as f64) as $t,
                    UnaryOp::Cos => vmath::cos(self as f64) as $t,
                    UnaryOp::Abs => <$t>::abs(self),
                    UnaryOp::Sign => Arith::sign(self),
                    UnaryOp::Floor => self.floor(),
                    UnaryOp::Ceil => self.ceil(),
                    UnaryOp::Round => self.round_ties_even(),
                    UnaryOp::Expm1 => special::expm1(self as f64) as $t,
                    UnaryOp::Softplus => special::softplus(self as f64) as $t,
                    UnaryOp::Erf => special::erf(self as f64) as $t,
                    UnaryOp::Erfc => special::erfc(self as f64) as $t,
                    UnaryOp::Gammaln => special::gammaln(self as f64) as $t,
                    UnaryOp::Digamma => special::digamma(self as f64) as $t,
                    UnaryOp::Trigamma => special::trigamma(self as f64) as $t,
                }
            }
            float_slice_impls!($t);
        }
    };
}

/// The slice kernels: `f64` runs `vmath`'s SIMD kernels; `f32` keeps the
/// element loop.
macro_rules! float_slice_impls {
    (f64) => {
        fn unary_slice(op: UnaryOp, src: &[f64], dst: &mut [f64]) {
            match vmath_func(op) {
                Some(f) => vmath::map_slice(f, src, dst),
                None => dst.iter_mut().zip(src).for_each(|(d, &s)| *d = s.unary(op)),
            }
        }
        fn unary_inplace(op: UnaryOp, buf: &mut [f64]) {
            match vmath_func(op) {
                Some(f) => vmath::map_slice_inplace(f, buf),
                None => buf.iter_mut().for_each(|v| *v = v.unary(op)),
            }
        }
    };
    (f32) => {};
}
// f64's log is vmath's (the slice kernels' bits); f32 keeps its own libm
// log, as its slice kernels keep the element loop.
float_impls!(f64, vmath::log);
float_impls!(f32, f32::ln);

/// NumPy's `divmod` of two floats (`npy_divmod`): the floor quotient and
/// the remainder with the sign of `b`, both computed from `fmod` so that
/// `q * b + r` reproduces `a` as closely as NumPy's does; `b = 0` gives
/// NaN for both.
pub fn float_divmod(a: f64, b: f64) -> (f64, f64) {
    let mut r = a % b;
    if b == 0.0 {
        return (a / b, r);
    }
    let mut div = (a - r) / b;
    if r != 0.0 {
        if (b < 0.0) != (r < 0.0) {
            r += b;
            div -= 1.0;
        }
    } else {
        r = 0.0f64.copysign(b);
    }
    let q = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0.0f64.copysign(a / b)
    };
    (q, r)
}

/// `Arith` for the integer dtypes: NumPy's wrapping arithmetic, with
/// integer powers by square and multiply (wrapping, as NumPy computes
/// them) and 0 for a divisor of 0 in `mod` and `floor_div`.
macro_rules! int_impls {
    ($t:ty) => {
        impl Arith for $t {
            fn add(self, o: $t) -> $t {
                self.wrapping_add(o)
            }
            fn sub(self, o: $t) -> $t {
                self.wrapping_sub(o)
            }
            fn mul(self, o: $t) -> $t {
                self.wrapping_mul(o)
            }
            fn pow(self, o: $t) -> $t {
                let Ok(mut e) = u64::try_from(o) else {
                    // Unreachable through `binary`, which rejects negative exponents.
                    return 0;
                };
                let (mut base, mut acc): ($t, $t) = (self, 1);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    e >>= 1;
                    if e > 0 {
                        base = base.wrapping_mul(base);
                    }
                }
                acc
            }
            fn maximum(self, o: $t) -> $t {
                self.max(o)
            }
            fn minimum(self, o: $t) -> $t {
                self.min(o)
            }
            fn modulo(self, o: $t) -> $t {
                if o == 0 {
                    return 0;
                }
                let r = self.wrapping_rem(o);
                if r != 0 && ((r < 0) != (o < 0)) {
                    r + o
                } else {
                    r
                }
            }
            fn floor_div(self, o: $t) -> $t {
                if o == 0 {
                    return 0;
                }
                let q = self.wrapping_div(o);
                if self.wrapping_rem(o) != 0 && ((self < 0) != (o < 0)) {
                    q - 1
                } else {
                    q
                }
            }
            fn neg(self) -> $t {
                self.wrapping_neg()
            }
            fn abs(self) -> $t {
                self.wrapping_abs()
            }
            fn sign(self) -> $t {
                self.signum()
            }
            fn is_nan(self) -> bool {
                false
            }
        }
    };
}
int_impls!(i64);
int_impls!(i32);

impl Arith for bool {
    fn add(self, o: bool) -> bool {
        self | o
    }
    fn sub(self, o: bool) -> bool {
        self ^ o
    }
    fn mul(self, o: bool) -> bool {
        self & o
    }
    fn pow(self, o: bool) -> bool {
        // 0**0 = 1, 0**1 = 0, 1**x = 1
        self | !o
    }
    fn maximum(self, o: bool) -> bool {
        self | o
    }
    fn minimum(self, o: bool) -> bool {
        self & o
    }
    // Unreachable through `binary` (bools are promoted to i64 first): the
    // values of 0/1 arithmetic, with 0 for a divisor of 0.
    fn modulo(self, _o: bool) -> bool {
        false
    }
    fn floor_div(self, o: bool) -> bool {
        self & o
    }
    fn neg(self) -> bool {
        !self
    }
    fn abs(self) -> bool {
        self
    }
    fn sign(self) -> bool {
        self
    }
    fn is_nan(self) -> bool {
        false
    }
}

/// NumPy broadcasting of runtime shapes; the error names all the shapes,
/// e.g. `shapes (5, 64) and (3,) do not broadcast`.
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>, String> {
    let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; n];
    for s in shapes {
        let off = n - s.len();
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[off + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return Err(broadcast_error(shapes));
            }
        }
    }
    Ok(out)
}

fn broadcast_error(shapes: &[&[usize]]) -> String {
    let parts: Vec<String> = shapes.iter().map(|s| shape_str(s)).collect();
    let list = match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.join(""),
    };
    format!("shapes {list} do not broadcast")
}

/// A view of `a` broadcast to `shape` (checked by [`broadcast_shapes`]).
fn bview<'a, A>(a: &'a ArrayViewD<'_, A>, shape: &[usize]) -> Result<ArrayViewD<'a, A>, String> {
    a.broadcast(IxDyn(shape)).ok_or_else(|| {
        format!(
            "shapes {} and {} do not broadcast",
            shape_str(a.shape()),
            shape_str(shape)
        )
    })
}

/// Applies `f` to the broadcast pairs of `a` and `b`.
pub fn zip2<A: Copy, B: Copy, O>(
    a: &ArrayViewD<A>,
    b: &ArrayViewD<B>,
    f: impl Fn(A, B) -> O,
) -> Result<ArrayD<O>, String> {
    if a.shape() == b.shape() {
        return Ok(Zip::from(a).and(b).map_collect(|&x, &y| f(x, y)));
    }
    let shape = broadcast_shapes(&[a.shape(), b.shape()])?;
    let (av, bv) = (bview(a, &shape)?, bview(b, &shape)?);
    Ok(Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y)))
}

/// Applies `f` to the broadcast triples of `a`, `b` and `c`.
pub fn zip3<A: Copy, B: Copy, C: Copy, O>(
    a: &ArrayViewD<A>,
    b: &ArrayViewD<B>,
    c: &ArrayViewD<C>,
    f: impl Fn(A, B, C) -> O,
) -> Result<ArrayD<O>, String> {
    let shape = broadcast_shapes(&[a.shape(), b.shape(), c.shape()])?;
    let (av, bv, cv) = (bview(a, &shape)?, bview(b, &shape)?, bview(c, &shape)?);
    Ok(Zip::from(&av)
        .and(&bv)
        .and(&cv)
        .map_collect(|&x, &y, &z| f(x, y, z)))
}

/// The float dtype a float function computes in when the result is `out`.
fn float_dtype(out: DType) -> DType {
    if out == DType::F32 {
        DType::F32
    } else {
        DType::F64
    }
}

/// Runs `$body` with `$F` bound to `f32` or `f64`.
macro_rules! with_float {
    ($dt:expr, $F:ident => $body:expr) => {
        if $dt == DType::F32 {
            type $F = f32;
            $body
        } else {
            type $F = f64;
            $body
        }
    };
}

/// An elementwise unary op with result dtype `out`. Float functions of
/// integers or booleans compute in `f64`.
pub fn unary(op: UnaryOp, x: &Value, out: DType) -> Result<Value, String> {
    match op {
        UnaryOp::Neg if out == DType::Bool => {
            Err("the boolean negative, the `-` operator, is not supported; use logical not".into())
        }
        UnaryOp::Neg => Ok(with_elem!(out, T => T::wrap(x.to_array::<T>().mapv(Arith::neg)))),
        UnaryOp::Abs => Ok(with_elem!(out, T => T::wrap(x.to_array::<T>().mapv(Arith::abs)))),
        UnaryOp::Sign => Ok(with_elem!(out, T => T::wrap(x.to_array::<T>().mapv(Arith::sign)))),
        // On integers and bools: the value itself.
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round if !out.is_float() => Ok(x.clone()),
        _ => {
            let v = with_float!(float_dtype(out), F => {
                let mut a = x.to_array::<F>().into_owned();
                match a.as_slice_mut() {
                    Some(s) => F::unary_inplace(op, s),
                    None => a.mapv_inplace(|v| v.unary(op)),
                }
                F::wrap(a)
            });
            Ok(v.into_dtype(out))
        }
    }
}

fn binary_t<T: Arith>(
    op: BinaryOp,
    a: &ArrayViewD<T>,
    b: &ArrayViewD<T>,
) -> Result<ArrayD<T>, String> {
    match op {
        BinaryOp::Add => zip2(a, b, T::add),
        BinaryOp::Sub => zip2(a, b, T::sub),
        BinaryOp::Mul => zip2(a, b, T::mul),
        BinaryOp::Pow => zip2(a, b, T::pow),
        BinaryOp::Maximum => zip2(a, b, T::maximum),
        BinaryOp::Minimum => zip2(a, b, T::minimum),
        BinaryOp::Mod => zip2(a, b, T::modulo),
        BinaryOp::FloorDiv => zip2(a, b, T::floor_div),
        // Routed to the float path by `binary`.
        BinaryOp::Div => Err("internal: division outside the float path".into()),
    }
}

/// An elementwise binary op with broadcasting, computed in the result dtype
/// `out` (division computes in `f64` unless `out` is `f32`).
pub fn binary(op: BinaryOp, a: &Value, b: &Value, out: DType) -> Result<Value, String> {
    if op == BinaryOp::Div {
        let v = with_float!(float_dtype(out), F => {
            F::wrap(zip2(&a.to_array::<F>().view(), &b.to_array::<F>().view(), F::div)?)
        });
        return Ok(v.into_dtype(out));
    }
    if op == BinaryOp::Sub && out == DType::Bool {
        return Err(
            "the boolean subtract, the `-` operator, is not supported; use logical xor".into(),
        );
    }
    if op == BinaryOp::Pow && out.is_int() && b.to_array::<i64>().iter().any(|&e| e < 0) {
        return Err("integers to negative integer powers are not allowed".into());
    }
    Ok(with_elem!(out, T => {
        T::wrap(binary_t(op, &a.to_array::<T>().view(), &b.to_array::<T>().view())?)
    }))
}

fn compare_t<T: Elem>(
    op: CompareOp,
    a: &ArrayViewD<T>,
    b: &ArrayViewD<T>,
) -> Result<ArrayD<bool>, String> {
    match op {
        CompareOp::Gt => zip2(a, b, |x, y| x > y),
        CompareOp::Ge => zip2(a, b, |x, y| x >= y),
        CompareOp::Lt => zip2(a, b, |x, y| x < y),
        CompareOp::Le => zip2(a, b, |x, y| x <= y),
        CompareOp::Eq => zip2(a, b, |x, y| x == y),
        CompareOp::Ne => zip2(a, b, |x, y| x != y),
    }
}

/// An elementwise comparison with broadcasting, computed in the dtype
/// `common` (the promotion of the operand types); the result is `bool`.
pub fn compare(op: CompareOp, a: &Value, b: &Value, common: DType) -> Result<Value, String> {
    Ok(Value::Bool(with_elem!(common, T => {
        compare_t(op, &a.to_array::<T>().view(), &b.to_array::<T>().view())?
    })))
}

/// `where(cond, a, b)` with the three shapes broadcast together; `cond` is
/// read as bool, the branches are cast to `out`.
pub fn where_(cond: &Value, a: &Value, b: &Value, out: DType) -> Result<Value, String> {
    let c = cond.to_array::<bool>();
    Ok(with_elem!(out, T => {
        T::wrap(zip3(&c.view(), &a.to_array::<T>().view(), &b.to_array::<T>().view(), |c, x, y| {
            if c { x } else { y }
        })?)
    }))
}

/// `(clip X LO HI)`: `minimum(maximum(x, lo), hi)` in dtype `out`, as
/// `numpy.clip` computes it (NaN in any operand propagates; a LO above HI
/// gives HI).
pub fn clip(x: &Value, lo: &Value, hi: &Value, out: DType) -> Result<Value, String> {
    Ok(with_elem!(out, T => {
        T::wrap(zip3(
            &x.to_array::<T>().view(),
            &lo.to_array::<T>().view(),
            &hi.to_array::<T>().view(),
            |x, l, h| Arith::minimum(Arith::maximum(x, l), h),
        )?)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, Array};

    fn f(v: &[f64], shape: &[usize]) -> Value {
        Value::F64(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }
    fn i(v: &[i64], shape: &[usize]) -> Value {
        Value::I64(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }
    fn b(v: &[bool], shape: &[usize]) -> Value {
        Value::Bool(Array::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap())
    }

    #[test]
    fn broadcasting() {
        let x = f(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let r = f(&[10.0, 20.0], &[2, 1]);
        let c = f(&[100.0, 200.0, 300.0], &[3]);
        let y = binary(BinaryOp::Add, &x, &r, DType::F64).unwrap();
        assert_eq!(y, f(&[11.0, 12.0, 13.0, 24.0, 25.0, 26.0], &[2, 3]));
        let z = binary(BinaryOp::Mul, &r, &c, DType::F64).unwrap();
        assert_eq!(
            z,
            f(&[1000.0, 2000.0, 3000.0, 2000.0, 4000.0, 6000.0], &[2, 3])
        );
        let s = binary(BinaryOp::Sub, &x, &Value::scalar_f64(1.0), DType::F64).unwrap();
        assert_eq!(s, f(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3]));
        // a runtime mismatch is an error, not a panic
        let bad = f(&[0.0; 3], &[3]);
        let e = binary(
            BinaryOp::Add,
            &f(&vec![0.0; 5 * 64], &[5, 64]),
            &bad,
            DType::F64,
        );
        assert_eq!(
            e,
            Err("shapes (5, 64) and (3,) do not broadcast".to_string())
        );
        assert_eq!(
            broadcast_shapes(&[&[2, 1], &[3], &[4, 1, 1]]),
            Ok(vec![4, 2, 3])
        );
        assert_eq!(
            broadcast_shapes(&[&[2], &[3], &[1]]),
            Err("shapes (2,), (3,) and (1,) do not broadcast".to_string())
        );
        assert_eq!(broadcast_shapes(&[&[0], &[1]]), Ok(vec![0]));
    }

    #[test]
    fn computes_in_the_result_dtype() {
        // f32 array * literal 2.0 computes in f32
        let x = Value::F32(array![0.1f32, 3.0].into_dyn());
        let y = binary(BinaryOp::Mul, &x, &Value::scalar_f64(0.1), DType::F32).unwrap();
        assert_eq!(
            y,
            Value::F32(array![0.1f32 * 0.1f32, 3.0f32 * 0.1f32].into_dyn())
        );
        // i64 / i64 is true division in f64
        let d = binary(
            BinaryOp::Div,
            &i(&[1, 7, -7], &[3]),
            &Value::scalar_i64(2),
            DType::F64,
        )
        .unwrap();
        assert_eq!(d, f(&[0.5, 3.5, -3.5], &[3]));
        let z = binary(
            BinaryOp::Div,
            &f(&[1.0, -1.0, 0.0], &[3]),
            &Value::scalar_f64(0.0),
            DType::F64,
        )
        .unwrap()
        .as_f64_array();
        assert_eq!(z[0], f64::INFINITY);
        assert_eq!(z[1], f64::NEG_INFINITY);
        assert!(z[2].is_nan());
        // i64 + 0.5 -> f64
        let h = binary(
            BinaryOp::Add,
            &i(&[1, 2], &[2]),
            &Value::scalar_f64(0.5),
            DType::F64,
        )
        .unwrap();
        assert_eq!(h, f(&[1.5, 2.5], &[2]));
    }

    #[test]
    fn i32_wraps_as_numpy_int32() {
        let w =
            |v: &[i32]| Value::I32(ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap());
        let edge = w(&[i32::MAX, i32::MIN, 7, -7]);
        // np.array([MAX, MIN, 7, -7], np.int32) + 1, * -1, -x, abs(x)
        assert_eq!(
            binary(BinaryOp::Add, &edge, &Value::scalar_i64(1), DType::I32).unwrap(),
            w(&[i32::MIN, i32::MIN + 1, 8, -6])
        );
        assert_eq!(
            binary(BinaryOp::Mul, &edge, &Value::scalar_i64(-1), DType::I32).unwrap(),
            w(&[-i32::MAX, i32::MIN, -7, 7])
        );
        assert_eq!(
            unary(UnaryOp::Neg, &edge, DType::I32).unwrap(),
            w(&[-i32::MAX, i32::MIN, -7, 7])
        );
        assert_eq!(
            unary(UnaryOp::Abs, &edge, DType::I32).unwrap(),
            w(&[i32::MAX, i32::MIN, 7, 7])
        );
        // x // 3, x % 3, x // 0, MIN // -1 (NumPy: MIN, 0, 0)
        let three = w(&[3, 3, 3, 3]);
        assert_eq!(
            binary(BinaryOp::FloorDiv, &edge, &three, DType::I32).unwrap(),
            w(&[715827882, -715827883, 2, -3])
        );
        assert_eq!(
            binary(BinaryOp::Mod, &edge, &three, DType::I32).unwrap(),
            w(&[1, 1, 1, 2])
        );
        assert_eq!(
            binary(BinaryOp::FloorDiv, &edge, &w(&[0, -1, 0, -1]), DType::I32).unwrap(),
            w(&[0, i32::MIN, 0, 7])
        );
        // np.int32(3) ** np.int32(25) wraps to 1180052131 (3^25 mod 2^32)
        assert_eq!(
            binary(BinaryOp::Pow, &w(&[3]), &w(&[25]), DType::I32).unwrap(),
            w(&[1180052131])
        );
    }

    #[test]
    fn integer_wrapping_and_powers() {
        let big = i(&[i64::MAX, i64::MIN], &[2]);
        let one = Value::scalar_i64(1);
        assert_eq!(
            binary(BinaryOp::Add, &big, &one, DType::I64).unwrap(),
            i(&[i64::MIN, i64::MIN + 1], &[2])
        );
        assert_eq!(
            binary(BinaryOp::Mul, &big, &Value::scalar_i64(2), DType::I64).unwrap(),
            i(&[-2, 0], &[2])
        );
        // np.int64(3) ** 50 wraps to 6048575297968530377
        assert_eq!(
            binary(
                BinaryOp::Pow,
                &Value::scalar_i64(3),
                &Value::scalar_i64(50),
                DType::I64
            )
            .unwrap(),
            Value::scalar_i64(6048575297968530377)
        );
        assert_eq!(
            binary(
                BinaryOp::Pow,
                &i(&[2, -3, 0], &[3]),
                &i(&[10, 3, 0], &[3]),
                DType::I64
            )
            .unwrap(),
            i(&[1024, -27, 1], &[3])
        );
        assert_eq!(
            binary(BinaryOp::Pow, &i(&[2], &[1]), &i(&[-1], &[1]), DType::I64),
            Err("integers to negative integer powers are not allowed".to_string())
        );
        assert_eq!(
            unary(UnaryOp::Neg, &big, DType::I64).unwrap(),
            i(&[-i64::MAX, i64::MIN], &[2])
        );
        assert_eq!(
            unary(UnaryOp::Abs, &big, DType::I64).unwrap(),
            i(&[i64::MAX, i64::MIN], &[2])
        );
        assert_eq!(
            unary(UnaryOp::Sign, &i(&[-5, 0, 9], &[3]), DType::I64).unwrap(),
            i(&[-1, 0, 1], &[3])
        );
    }

    #[test]
    fn nan_propagation_and_signs() {
        let nan = f64::NAN;
        let a = f(&[nan, 1.0, 2.0, 0.0], &[4]);
        let c = f(&[1.0, nan, 1.0, -0.0], &[4]);
        let mx = binary(BinaryOp::Maximum, &a, &c, DType::F64)
            .unwrap()
            .as_f64_array();
        let mn = binary(BinaryOp::Minimum, &a, &c, DType::F64)
            .unwrap()
            .as_f64_array();
        assert!(mx[0].is_nan() && mx[1].is_nan() && mn[0].is_nan() && mn[1].is_nan());
        assert_eq!((mx[2], mn[2]), (2.0, 1.0));
        // np.maximum(0.0, -0.0) is -0.0
        assert!(mx[3] == 0.0 && mx[3].is_sign_negative());
        let s = unary(UnaryOp::Sign, &f(&[-0.0, nan, -2.0, 3.0], &[4]), DType::F64)
            .unwrap()
            .as_f64_array();
        assert!(s[0] == 0.0 && s[0].is_sign_positive() && s[1].is_nan());
        assert_eq!((s[2], s[3]), (-1.0, 1.0));
        let cmp = compare(CompareOp::Ne, &a, &a, DType::F64).unwrap();
        assert_eq!(cmp, b(&[true, false, false, false], &[4]));
        let cmp = compare(CompareOp::Ge, &a, &c, DType::F64).unwrap();
        assert_eq!(cmp, b(&[false, false, true, true], &[4]));
    }

    #[test]
    fn float_functions() {
        let x = f(&[0.0, 1.0, -2.0], &[3]);
        let e = unary(UnaryOp::Sigmoid, &x, DType::F64)
            .unwrap()
            .as_f64_array();
        // 1/(1+np.exp(-x))
        assert_eq!(
            e.as_slice().unwrap(),
            &[0.5, 0.7310585786300049, 0.11920292202211755]
        );
        let t = unary(UnaryOp::Tanh, &i(&[1], &[1]), DType::F64).unwrap();
        assert_eq!(t, f(&[0.7615941559557649], &[1]));
        let l = unary(UnaryOp::Log, &f(&[-1.0, 0.0], &[2]), DType::F64)
            .unwrap()
            .as_f64_array();
        assert!(l[0].is_nan() && l[1] == f64::NEG_INFINITY);
        let s = unary(
            UnaryOp::Sin,
            &Value::F32(array![1.0f32].into_dyn()),
            DType::F32,
        )
        .unwrap();
        assert_eq!(s, Value::F32(array![1.0f32.sin()].into_dyn()));
        assert_eq!(
            unary(UnaryOp::Sqrt, &b(&[true, false], &[2]), DType::F64).unwrap(),
            f(&[1.0, 0.0], &[2])
        );
    }

    #[test]
    fn booleans() {
        let p = b(&[true, true, false, false], &[4]);
        let q = b(&[true, false, true, false], &[4]);
        assert_eq!(
            binary(BinaryOp::Add, &p, &q, DType::Bool).unwrap(),
            b(&[true, true, true, false], &[4])
        );
        assert_eq!(
            binary(BinaryOp::Mul, &p, &q, DType::Bool).unwrap(),
            b(&[true, false, false, false], &[4])
        );
        assert_eq!(
            binary(BinaryOp::Minimum, &p, &q, DType::Bool).unwrap(),
            b(&[true, false, false, false], &[4])
        );
        assert_eq!(
            binary(BinaryOp::Add, &p, &q, DType::I64).unwrap(),
            i(&[2, 1, 1, 0], &[4])
        );
        assert_eq!(unary(UnaryOp::Abs, &p, DType::Bool).unwrap(), p);
        assert!(binary(BinaryOp::Sub, &p, &q, DType::Bool).is_err());
        assert!(unary(UnaryOp::Neg, &p, DType::Bool).is_err());
        assert_eq!(
            compare(CompareOp::Lt, &p, &q, DType::Bool).unwrap(),
            b(&[false, false, true, false], &[4])
        );
    }

    #[test]
    fn comparisons_promote() {
        // int64 array > 2.5 compares in f64
        let r = compare(
            CompareOp::Gt,
            &i(&[2, 3], &[2]),
            &Value::scalar_f64(2.5),
            DType::F64,
        )
        .unwrap();
        assert_eq!(r, b(&[false, true], &[2]));
        // float32 array == 0.1 (weak) compares in f32: True
        let x = Value::F32(array![0.1f32].into_dyn());
        let r = compare(CompareOp::Eq, &x, &Value::scalar_f64(0.1), DType::F32).unwrap();
        assert_eq!(r, b(&[true], &[1]));
        let r = compare(CompareOp::Eq, &x, &Value::scalar_f64(0.1), DType::F64).unwrap();
        assert_eq!(r, b(&[false], &[1]));
    }

    #[test]
    fn where_broadcasts_and_casts() {
        let c = b(&[true, false], &[2, 1]);
        let x = i(&[1, 2, 3], &[3]);
        let y = Value::scalar_f64(-0.5);
        let r = where_(&c, &x, &y, DType::F64).unwrap();
        assert_eq!(r, f(&[1.0, 2.0, 3.0, -0.5, -0.5, -0.5], &[2, 3]));
        let e = where_(&b(&[true; 2], &[2]), &x, &y, DType::F64);
        assert_eq!(
            e,
            Err("shapes (2,), (3,) and () do not broadcast".to_string())
        );
    }
}
