//! Op kernels: `perform` for every op but `scan` (which [`super::run`]
//! drives). Each family has its file; [`eval`] dispatches on the op set
//! exhaustively.
//!
//! Static types are already checked (make_node); kernels check runtime
//! shapes again, because symbolic sizes are only bound now. Errors are
//! sentences without location; the caller adds the op and its position.

pub mod elementwise;
pub mod linalg;
pub mod reduce;
pub mod shape;

use crate::exec::Value;
use crate::lang::{Dim, Op, Scalar, Type};

fn eval_shape(t: &Type, bind: &dyn Fn(&str) -> Option<i64>) -> Result<Vec<usize>, String> {
    t.shape
        .iter()
        .map(|d: &Dim| {
            d.eval(bind)
                .map(|v| v as usize)
                .ok_or_else(|| format!("size {d} is not bound"))
        })
        .collect()
}

/// Computes `op` on `args`. `arg_tys` and `out_ty` are the static types of
/// the arguments and the result (the result's dtype is authoritative);
/// `bind` gives the values of symbolic sizes.
pub fn eval(
    op: &Op,
    args: &[&Value],
    arg_tys: &[&Type],
    out_ty: &Type,
    bind: &dyn Fn(&str) -> Option<i64>,
) -> Result<Value, String> {
    let arg = |k: usize| -> Result<&Value, String> {
        args.get(k)
            .copied()
            .ok_or_else(|| format!("internal: missing argument {k}"))
    };
    let ty = |k: usize| -> Result<&Type, String> {
        arg_tys
            .get(k)
            .copied()
            .ok_or_else(|| format!("internal: missing argument type {k}"))
    };
    match op {
        Op::Input(_) | Op::Scan(_) | Op::Proj(_) => {
            Err(format!("internal: {} is not a kernel", op.name()))
        }
        Op::Literal(s) => Ok(Value::scalar(*s)),
        Op::Size(name) => bind(name)
            .map(|v| Value::scalar(Scalar::I64(v)))
            .ok_or_else(|| format!("symbolic size '{name}' is not bound")),
        Op::Unary(u) => elementwise::unary(*u, arg(0)?, out_ty),
        Op::Binary(b) => elementwise::binary(*b, arg(0)?, arg(1)?, out_ty),
        Op::Compare(c) => elementwise::compare(*c, arg(0)?, arg(1)?, ty(0)?, ty(1)?),
        Op::Where => elementwise::select(arg(0)?, arg(1)?, arg(2)?, out_ty),
        Op::Reduce(r, axis) => reduce::reduce(*r, *axis, arg(0)?, out_ty),
        Op::Cumulative(c, axis) => reduce::cumulative(*c, *axis, arg(0)?, out_ty),
        Op::Dot => linalg::dot(arg(0)?, arg(1)?, out_ty),
        Op::Matmul => linalg::matmul(arg(0)?, arg(1)?, out_ty),
        Op::Transpose(perm) => shape::transpose(arg(0)?, perm.as_deref()),
        Op::Reshape(dims) => shape::reshape(arg(0)?, dims, bind),
        Op::ExpandDims(axis) => shape::expand_dims(arg(0)?, *axis),
        Op::Stack => shape::stack_or_concat(args, None, out_ty),
        Op::Concat(axis) => shape::stack_or_concat(args, Some(*axis), out_ty),
        Op::Index => shape::index(arg(0)?, &args[1.min(args.len())..]),
        Op::Slice { start, stop, step } => shape::slice(arg(0)?, *start, *stop, *step),
        Op::Fill(t) => {
            let v = arg(0)?;
            if !v.shape().is_empty() {
                return Err(format!(
                    "the fill value must be a scalar, got shape {:?}",
                    v.shape()
                ));
            }
            let shape = eval_shape(t, bind)?;
            Ok(match v.cast(t.dtype) {
                Value::F64(a) => Value::F64(
                    a.broadcast(ndarray::IxDyn(&shape))
                        .ok_or("bad shape")?
                        .to_owned(),
                ),
                Value::F32(a) => Value::F32(
                    a.broadcast(ndarray::IxDyn(&shape))
                        .ok_or("bad shape")?
                        .to_owned(),
                ),
                Value::I64(a) => Value::I64(
                    a.broadcast(ndarray::IxDyn(&shape))
                        .ok_or("bad shape")?
                        .to_owned(),
                ),
                Value::Bool(a) => Value::Bool(
                    a.broadcast(ndarray::IxDyn(&shape))
                        .ok_or("bad shape")?
                        .to_owned(),
                ),
            })
        }
        Op::Zeros(t) => Ok(Value::full(t.dtype, &eval_shape(t, bind)?, Scalar::I64(0))),
        Op::Ones(t) => Ok(Value::full(t.dtype, &eval_shape(t, bind)?, Scalar::I64(1))),
        Op::Arange(d) => {
            let n = d
                .eval(bind)
                .ok_or_else(|| format!("size {d} is not bound"))?;
            Ok(Value::I64(
                ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[n as usize]), (0..n).collect())
                    .map_err(|e| e.to_string())?,
            ))
        }
        Op::Tensor(t, vals) => {
            let shape = eval_shape(t, bind)?;
            let flat: Vec<f64> = vals.iter().map(|v| v.as_f64()).collect();
            let as_f64 = Value::F64(
                ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), flat)
                    .map_err(|e| e.to_string())?,
            );
            // Integer literals are exact; go through i64 for i64 tensors.
            Ok(if t.dtype == crate::lang::DType::I64 {
                let ints: Vec<i64> = vals
                    .iter()
                    .map(|v| match v {
                        Scalar::I64(i) => *i,
                        Scalar::Bool(b) => *b as i64,
                        Scalar::F64(x) => crate::exec::value::f64_to_i64(*x),
                    })
                    .collect();
                Value::I64(
                    ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), ints)
                        .map_err(|e| e.to_string())?,
                )
            } else {
                as_f64.cast(t.dtype)
            })
        }
        Op::Cast(dt) => Ok(arg(0)?.cast(*dt)),
    }
}
