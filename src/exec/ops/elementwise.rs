//! Elementwise kernels: unary functions, binary arithmetic, comparisons and
//! `where`, with NumPy broadcasting of runtime shapes.
//!
//! Operands are first converted to the dtype the op computes in (the
//! result's dtype for arithmetic, the promoted dtype for comparisons), so
//! each kernel works on one element type.

use crate::exec::Value;
use crate::lang::{BinaryOp, CompareOp, DType, Type, UnaryOp};
use ndarray::{ArrayD, IxDyn, Zip};

/// The broadcast of runtime shapes, or an error naming both.
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Result<Vec<usize>, String> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for (i, o) in out.iter_mut().enumerate() {
        let da = (i + a.len()).checked_sub(n).map_or(1, |j| a[j]);
        let db = (i + b.len()).checked_sub(n).map_or(1, |j| b[j]);
        *o = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(format!("shapes {a:?} and {b:?} do not broadcast"));
        };
    }
    Ok(out)
}

/// Applies `f` to the broadcast pair `(a, b)`.
fn zip2<A: Clone, B: Clone, C>(
    a: &ArrayD<A>,
    b: &ArrayD<B>,
    f: impl Fn(A, B) -> C,
) -> Result<ArrayD<C>, String> {
    let shape = broadcast_shape(a.shape(), b.shape())?;
    let sh = IxDyn(&shape);
    let (Some(av), Some(bv)) = (a.broadcast(sh.clone()), b.broadcast(sh)) else {
        return Err(format!(
            "shapes {:?} and {:?} do not broadcast",
            a.shape(),
            b.shape()
        ));
    };
    Ok(Zip::from(&av)
        .and(&bv)
        .map_collect(|x, y| f(x.clone(), y.clone())))
}

fn nan_max<T: PartialOrd + Copy>(a: T, b: T) -> T {
    // NaN compares false both ways: propagate whichever is NaN.
    #[allow(clippy::eq_op)]
    if a != a {
        a
    } else if b != b || b > a {
        b
    } else {
        a
    }
}

fn nan_min<T: PartialOrd + Copy>(a: T, b: T) -> T {
    #[allow(clippy::eq_op)]
    if a != a {
        a
    } else if b != b || b < a {
        b
    } else {
        a
    }
}

fn ipow(base: i64, exp: i64) -> Result<i64, String> {
    if exp < 0 {
        return Err("integers to negative integer powers are not allowed".into());
    }
    let (mut result, mut b, mut e) = (1i64, base, exp as u64);
    while e > 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    Ok(result)
}

macro_rules! float_binary {
    ($op:expr, $a:expr, $b:expr) => {
        match $op {
            BinaryOp::Add => zip2($a, $b, |x, y| x + y),
            BinaryOp::Sub => zip2($a, $b, |x, y| x - y),
            BinaryOp::Mul => zip2($a, $b, |x, y| x * y),
            BinaryOp::Div => zip2($a, $b, |x, y| x / y),
            BinaryOp::Pow => zip2($a, $b, |x, y| x.powf(y)),
            BinaryOp::Maximum => zip2($a, $b, nan_max),
            BinaryOp::Minimum => zip2($a, $b, nan_min),
        }
    };
}

/// Binary arithmetic, computed in `out`'s dtype.
pub fn binary(op: BinaryOp, a: &Value, b: &Value, out: &Type) -> Result<Value, String> {
    let (a, b) = (a.cast(out.dtype), b.cast(out.dtype));
    Ok(match (&a, &b) {
        (Value::F64(x), Value::F64(y)) => Value::F64(float_binary!(op, x, y)?),
        (Value::F32(x), Value::F32(y)) => Value::F32(float_binary!(op, x, y)?),
        (Value::I64(x), Value::I64(y)) => Value::I64(match op {
            BinaryOp::Add => zip2(x, y, i64::wrapping_add)?,
            BinaryOp::Sub => zip2(x, y, i64::wrapping_sub)?,
            BinaryOp::Mul => zip2(x, y, i64::wrapping_mul)?,
            BinaryOp::Div => return Err("internal: integer division result".into()),
            BinaryOp::Pow => {
                let r = zip2(x, y, ipow)?;
                let mut out = Vec::with_capacity(r.len());
                for v in r.iter() {
                    out.push(v.clone()?);
                }
                ArrayD::from_shape_vec(r.raw_dim(), out).map_err(|e| e.to_string())?
            }
            BinaryOp::Maximum => zip2(x, y, i64::max)?,
            BinaryOp::Minimum => zip2(x, y, i64::min)?,
        }),
        (Value::Bool(x), Value::Bool(y)) => Value::Bool(match op {
            BinaryOp::Add | BinaryOp::Maximum => zip2(x, y, |p, q| p | q)?,
            BinaryOp::Mul | BinaryOp::Minimum => zip2(x, y, |p, q| p & q)?,
            _ => return Err(format!("{} is not defined for bool", op.name())),
        }),
        _ => return Err("internal: operands of different dtypes".into()),
    })
}

fn compare_with<T: PartialOrd + Clone>(
    op: CompareOp,
    a: &ArrayD<T>,
    b: &ArrayD<T>,
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

/// Comparison, computed in the promoted dtype of the operands.
pub fn compare(op: CompareOp, a: &Value, b: &Value, ta: &Type, tb: &Type) -> Result<Value, String> {
    let (dt, _) = crate::lang::dtype::promote(ta.dtype, ta.weak, tb.dtype, tb.weak);
    let (a, b) = (a.cast(dt), b.cast(dt));
    Ok(Value::Bool(match (&a, &b) {
        (Value::F64(x), Value::F64(y)) => compare_with(op, x, y)?,
        (Value::F32(x), Value::F32(y)) => compare_with(op, x, y)?,
        (Value::I64(x), Value::I64(y)) => compare_with(op, x, y)?,
        (Value::Bool(x), Value::Bool(y)) => compare_with(op, x, y)?,
        _ => return Err("internal: operands of different dtypes".into()),
    }))
}

/// `where(cond, a, b)` with the branches converted to `out`'s dtype.
pub fn select(c: &Value, a: &Value, b: &Value, out: &Type) -> Result<Value, String> {
    let Value::Bool(c) = c.cast(DType::Bool) else {
        return Err("internal: condition is not bool".into());
    };
    let (a, b) = (a.cast(out.dtype), b.cast(out.dtype));
    let shape = broadcast_shape(&broadcast_shape(c.shape(), a.shape())?, b.shape())?;
    let sh = IxDyn(&shape);
    fn pick<T: Clone>(
        c: &ArrayD<bool>,
        a: &ArrayD<T>,
        b: &ArrayD<T>,
        sh: &IxDyn,
    ) -> Result<ArrayD<T>, String> {
        match (
            c.broadcast(sh.clone()),
            a.broadcast(sh.clone()),
            b.broadcast(sh.clone()),
        ) {
            (Some(c), Some(a), Some(b)) => Ok(Zip::from(&c)
                .and(&a)
                .and(&b)
                .map_collect(|&c, x, y| if c { x.clone() } else { y.clone() })),
            _ => Err("operands do not broadcast".into()),
        }
    }
    Ok(match (&a, &b) {
        (Value::F64(x), Value::F64(y)) => Value::F64(pick(&c, x, y, &sh)?),
        (Value::F32(x), Value::F32(y)) => Value::F32(pick(&c, x, y, &sh)?),
        (Value::I64(x), Value::I64(y)) => Value::I64(pick(&c, x, y, &sh)?),
        (Value::Bool(x), Value::Bool(y)) => Value::Bool(pick(&c, x, y, &sh)?),
        _ => return Err("internal: branches of different dtypes".into()),
    })
}

macro_rules! float_unary {
    ($op:expr, $a:expr, $t:ty) => {
        match $op {
            UnaryOp::Neg => $a.mapv(|x: $t| -x),
            UnaryOp::Exp => $a.mapv(<$t>::exp),
            UnaryOp::Log => $a.mapv(<$t>::ln),
            UnaryOp::Log1p => $a.mapv(<$t>::ln_1p),
            UnaryOp::Sqrt => $a.mapv(<$t>::sqrt),
            UnaryOp::Tanh => $a.mapv(<$t>::tanh),
            UnaryOp::Sigmoid => $a.mapv(|x: $t| 1.0 / (1.0 + (-x).exp())),
            UnaryOp::Sin => $a.mapv(<$t>::sin),
            UnaryOp::Cos => $a.mapv(<$t>::cos),
            UnaryOp::Abs => $a.mapv(<$t>::abs),
            UnaryOp::Sign => $a.mapv(|x: $t| {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x // 0, -0 and NaN stay as they are
                }
            }),
        }
    };
}

/// Unary functions, computed in `out`'s dtype.
pub fn unary(op: UnaryOp, a: &Value, out: &Type) -> Result<Value, String> {
    Ok(match a.cast(out.dtype) {
        Value::F64(x) => Value::F64(float_unary!(op, x, f64)),
        Value::F32(x) => Value::F32(float_unary!(op, x, f32)),
        Value::I64(x) => Value::I64(match op {
            UnaryOp::Neg => x.mapv(i64::wrapping_neg),
            UnaryOp::Abs => x.mapv(i64::wrapping_abs),
            UnaryOp::Sign => x.mapv(i64::signum),
            _ => return Err(format!("{} of i64 computes in a float dtype", op.name())),
        }),
        Value::Bool(x) => Value::Bool(match op {
            UnaryOp::Abs => x,
            _ => return Err(format!("{} is not defined for bool", op.name())),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::ArrayD;

    fn f(shape: &[usize], v: Vec<f64>) -> Value {
        Value::F64(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
    }

    #[test]
    fn broadcasting_and_nan_propagation() {
        let t = Type::new(DType::F64, vec![]);
        let r = binary(
            BinaryOp::Add,
            &f(&[2, 1], vec![1., 2.]),
            &f(&[3], vec![10., 20., 30.]),
            &t,
        )
        .unwrap();
        assert_eq!(r, f(&[2, 3], vec![11., 21., 31., 12., 22., 32.]));
        let r = binary(
            BinaryOp::Maximum,
            &f(&[2], vec![f64::NAN, 1.]),
            &f(&[2], vec![0., f64::NAN]),
            &t,
        )
        .unwrap();
        assert!(r.as_f64_array().iter().all(|x| x.is_nan()));
        assert!(binary(
            BinaryOp::Add,
            &f(&[2], vec![1., 2.]),
            &f(&[3], vec![1., 2., 3.]),
            &t
        )
        .is_err());
    }

    #[test]
    fn integer_power_rules() {
        let t = Type::new(DType::I64, vec![]);
        let i = |v: i64| Value::I64(ArrayD::from_elem(IxDyn(&[]), v));
        assert_eq!(binary(BinaryOp::Pow, &i(3), &i(4), &t).unwrap(), i(81));
        assert!(binary(BinaryOp::Pow, &i(3), &i(-1), &t).is_err());
    }
}
