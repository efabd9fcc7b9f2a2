//! Op kernels: what each [`Op`] computes on runtime values, with NumPy's
//! semantics.
//!
//! Owns: [`eval`], the single entry point that dispatches an op to its
//! family (`elementwise`, `reduce`, `linalg`, `shape`, `create`,
//! `update`), and
//! [`normalize_axis`]. The static types were checked by type inference;
//! `out_ty` is authoritative for the result dtype. Runtime shapes are still
//! checked: a kernel never panics, whatever its inputs; it returns an error
//! sentence without location that does not start with the op name (the
//! caller adds both). Must not: run graphs or scans ([`Op::Input`],
//! [`Op::Scan`] and [`Op::Proj`] belong to the runner).

pub mod compress;
pub mod create;
pub mod elementwise;
pub mod factor;
pub mod gemm;
pub mod linalg;
pub mod linrec;
pub mod logmatmulexp;
pub mod matvec;
pub mod prepacked;
#[cfg(target_arch = "x86_64")]
mod prepacked_avx512;
pub mod product_kernel;
pub mod random;
pub mod reduce;
pub mod shape;
pub mod special;
pub mod stable;
pub mod update;
pub mod vmath;

use crate::exec::budget::{Allocation, MemoryBudget, OverBudget};
use crate::exec::value::Value;
use crate::lang::dtype::{compare_dtype, promote_strong};
use crate::lang::{DType, Dim, Op, Type};
use update::Write;

/// Checks, before `op`'s kernel runs, that each array the kernel allocates
/// fits in `budget`: its result, and each operand it first converts to the
/// dtype it computes in (a bool operand of `sum` becomes `i64`, eight times
/// its size; other temporaries of the kernels are no larger than an
/// operand or the result). Sizes come from the static types under `dims`;
/// where a size is known only at run time, `arg_shape(k)` gives operand
/// `k`'s shape and the result's type is inferred from those. Returns
/// whether the answer depends on `dims` alone (then it holds until they
/// change). Every op but [`Op::Scan`] (its buffers are checked by the
/// loop runners).
pub fn check_budget(
    op: &Op,
    arg_tys: &[&Type],
    out_ty: &Type,
    dims: &dyn Fn(&str) -> Option<i64>,
    budget: &MemoryBudget,
    arg_shape: &dyn Fn(usize) -> Option<Vec<usize>>,
) -> Result<bool, OverBudget> {
    if matches!(
        op,
        Op::Input(_) | Op::Proj(_) | Op::Scan(_) | Op::Literal(_) | Op::Size(_)
    ) {
        return Ok(true);
    }
    let mut fixed = true;
    if let Some(common) = compute_dtype(op, arg_tys, out_ty.dtype) {
        for (k, t) in arg_tys.iter().enumerate() {
            // where's condition is read as bool
            let dt = if matches!(op, Op::Where) && k == 0 {
                DType::Bool
            } else {
                common
            };
            if t.dtype == dt {
                continue;
            }
            let shape = eval_sizes(&t.shape, dims).or_else(|| {
                fixed = false;
                arg_shape(k)
            });
            if let Some(shape) = shape {
                budget.check(Allocation::Converted(k), dt, &shape)?;
            }
        }
    }
    let shape = eval_sizes(&out_ty.shape, dims).or_else(|| {
        fixed = false;
        runtime_result_shape(op, arg_tys, dims, arg_shape)
    });
    if let Some(shape) = shape {
        budget.check(Allocation::Result, out_ty.dtype, &shape)?;
    }
    Ok(fixed)
}

/// The dtype `op`'s kernel converts its operands to, for the ops that do.
fn compute_dtype(op: &Op, arg_tys: &[&Type], out: DType) -> Option<DType> {
    match op {
        Op::Unary(_)
        | Op::Binary(_)
        | Op::Where
        | Op::Reduce(..)
        | Op::Cumulative(..)
        | Op::Normalize(..)
        | Op::Dot
        | Op::Matmul
        | Op::Stack
        | Op::Concat(_)
        | Op::Solve
        | Op::SolveTriangular(_)
        | Op::Cholesky
        | Op::Inv
        | Op::Det
        | Op::Slogdet(_) => Some(out),
        Op::Compare(_) => match arg_tys {
            [a, b] => Some(compare_dtype(a.dtype, a.weak, b.dtype, b.weak)),
            _ => None,
        },
        _ => None,
    }
}

/// The runtime shape of a draw's TYPE.
fn draw_shape(shape: &[Dim], dims: &dyn Fn(&str) -> Option<i64>) -> Result<Vec<usize>, String> {
    shape
        .iter()
        .map(|d| {
            let n = d
                .eval(dims)
                .ok_or_else(|| format!("the size {d} is not bound"))?;
            usize::try_from(n).map_err(|_| format!("cannot draw a size of {n}"))
        })
        .collect()
}

/// A static shape under `dims`, if every size is known.
fn eval_sizes(shape: &[Dim], dims: &dyn Fn(&str) -> Option<i64>) -> Option<Vec<usize>> {
    shape
        .iter()
        .map(|d| d.eval(dims).and_then(|n| usize::try_from(n).ok()))
        .collect()
}

/// The result shape of `op` inferred from its operands' runtime shapes
/// (their static types with every size made known).
fn runtime_result_shape(
    op: &Op,
    arg_tys: &[&Type],
    dims: &dyn Fn(&str) -> Option<i64>,
    arg_shape: &dyn Fn(usize) -> Option<Vec<usize>>,
) -> Option<Vec<usize>> {
    let mut tys = Vec::with_capacity(arg_tys.len());
    for (k, t) in arg_tys.iter().enumerate() {
        let shape = arg_shape(k)?;
        tys.push(Type {
            dtype: t.dtype,
            shape: shape.iter().map(|&n| Dim::known(n as i64)).collect(),
            weak: t.weak,
            list: 0,
        });
    }
    let refs: Vec<&Type> = tys.iter().collect();
    let t = crate::lang::infer::infer(op, &refs, &vec![None; refs.len()]).ok()?;
    eval_sizes(&t.shape, dims)
}

/// Normalizes an axis (negative counts from the end) against `ndim` axes.
pub fn normalize_axis(axis: i64, ndim: usize) -> Result<usize, String> {
    let n = ndim as i64;
    let a = if axis < 0 { axis + n } else { axis };
    if a < 0 || a >= n {
        Err(format!(
            "axis {axis} is out of bounds for array of dimension {ndim}"
        ))
    } else {
        Ok(a as usize)
    }
}

/// Computes `op` on `args`. `arg_tys` are the arguments' static types (their
/// weak flags decide the dtype comparisons compute in), `out_ty` the result
/// type; `dims` binds the symbolic sizes. Every op but [`Op::Input`],
/// [`Op::Scan`] and [`Op::Proj`].
pub fn eval(
    op: &Op,
    args: &[&Value],
    arg_tys: &[&Type],
    out_ty: &Type,
    dims: &dyn Fn(&str) -> Option<i64>,
) -> Result<Value, String> {
    let out = out_ty.dtype;
    let v = match op {
        Op::Input(_) | Op::Scan(_) | Op::Proj(_) => {
            return Err(format!("internal: {} is not an op kernel", op.name()))
        }
        // Lists are run by `crate::exec::list`; a tensor's length is here.
        Op::List(crate::lang::ListOp::Len) => match args[0].shape().first() {
            Some(&n) => Value::scalar_i64(n as i64),
            None => return Err("len of a scalar".into()),
        },
        Op::List(_) => return Err(format!("internal: {} runs on lists", op.name())),
        Op::Grad => {
            return Err(
                "internal: grad is expanded before a program runs (crate::grad::expand)".into(),
            )
        }
        _ if !op.arg_arity().admits(args.len()) => {
            return Err(format!(
                "internal: {} takes {}, got {}",
                op.name(),
                op.arg_arity(),
                args.len()
            ))
        }
        Op::Literal(s) => {
            return Ok(create::literal(*s));
        }
        Op::Size(name) => create::size(name, dims)?,
        Op::Unary(u) => elementwise::unary(*u, args[0], out)?,
        Op::Binary(b) => elementwise::binary(*b, args[0], args[1], out)?,
        Op::Compare(c) => {
            let common = match (arg_tys.first(), arg_tys.get(1)) {
                (Some(a), Some(b)) => compare_dtype(a.dtype, a.weak, b.dtype, b.weak),
                _ => promote_strong(args[0].dtype(), args[1].dtype()),
            };
            elementwise::compare(*c, args[0], args[1], common)?
        }
        Op::Where => elementwise::where_(args[0], args[1], args[2], out)?,
        Op::Reduce(r, axis) => reduce::reduce(*r, args[0], *axis, out)?,
        Op::Cumulative(c, axis) => reduce::cumulative(*c, args[0], *axis, out)?,
        Op::Normalize(n, axis) => reduce::normalize(*n, args[0], *axis, out)?,
        Op::Dot => linalg::dot(args[0], args[1], out)?,
        Op::Matmul => linalg::matmul(args[0], args[1], out)?,
        Op::Transpose(perm) => shape::transpose(args[0], perm.as_deref())?,
        Op::Reshape(sizes) => shape::reshape(args[0], sizes, dims)?,
        Op::ExpandDims(axis) => shape::expand_dims(args[0], *axis)?,
        Op::Stack => shape::stack(args, out)?,
        Op::Concat(axis) => shape::concat(args, *axis, out)?,
        Op::Index => {
            let (x, idx) = args
                .split_first()
                .ok_or("internal: index needs an argument")?;
            shape::index(x, idx)?
        }
        Op::Slice { start, stop, step } => shape::slice(args[0], *start, *stop, *step)?,
        Op::Fill(ty) => create::fill(ty, args[0], out, dims)?,
        Op::Zeros(ty) => create::zeros(ty, out, dims)?,
        Op::Ones(ty) => create::ones(ty, out, dims)?,
        Op::Arange(n) => create::arange(n, dims)?,
        Op::Tensor(ty, values) => create::tensor(ty, values, out, dims)?,
        Op::Cast(dt) => args[0].cast(*dt),
        Op::ZerosLike => create::zeros_like(args[0], out)?,
        Op::SumTo => reduce::sum_to(args[0], args[1].shape(), out)?,
        Op::LinRec => linrec::linrec(args[0], args[1], args[2], out)?,
        Op::LogMatMulExp => logmatmulexp::logmatmulexp(args[0], args[1], out)?,
        Op::IncIndex | Op::SetIndex => match args {
            [x, g, idx @ ..] => update::write_index(x, g, idx, Write::of(op), out)?,
            _ => return Err("internal: an update needs an operand and a value".into()),
        },
        Op::IncSlice { start, stop, step } | Op::SetSlice { start, stop, step } => {
            update::write_slice(args[0], args[1], (*start, *stop, *step), Write::of(op), out)?
        }
        Op::Take(axis) => update::take(args[0], args[1], *axis)?,
        Op::IncTake(axis) | Op::SetTake(axis) => {
            update::write_take(args[0], args[1], args[2], *axis, Write::of(op), out)?
        }
        Op::Clip => elementwise::clip(args[0], args[1], args[2], out)?,
        Op::Eye(ty) => create::eye(ty, out, dims)?,
        Op::Outer => linalg::outer(args[0], args[1], out)?,
        Op::Flip(axis) => shape::flip(args[0], *axis)?,
        Op::Squeeze(axis) => shape::squeeze(args[0], *axis)?,
        Op::Compress => compress::compress(args[0], args[1])?,
        Op::Uncompress => compress::uncompress(args[0], args[1])?,
        Op::StopGradient => args[0].clone(),
        Op::MakeKey => random::make_key(args[0])?,
        Op::Split(n) => random::split(args[0], n, dims)?,
        Op::FoldIn => random::fold_in_values(args[0], args[1])?,
        Op::Uniform(ty) => random::uniform(args[0], ty.dtype, &draw_shape(&ty.shape, dims)?)?,
        Op::Normal(ty) => random::normal(args[0], ty.dtype, &draw_shape(&ty.shape, dims)?)?,
        Op::Bernoulli => random::bernoulli_values(args[0], args[1])?,
        Op::Categorical => random::categorical_values(args[0], args[1])?,
        Op::Solve => factor::solve(args[0], args[1], out)?,
        Op::SolveTriangular(lower) => factor::solve_triangular(args[0], args[1], *lower, out)?,
        Op::Cholesky => factor::cholesky(args[0], out)?,
        Op::Inv => factor::inv(args[0], out)?,
        Op::Det => factor::det(args[0], out)?,
        Op::Slogdet(k) => factor::slogdet(args[0], *k, out)?,
    };
    // The static type decides the dtype; kernels that keep their input's
    // dtype (shape ops, index) are cast when the two disagree.
    Ok(v.into_dtype(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{BinaryOp, CompareOp, DType, Dim, ReduceOp, Scalar, UnaryOp};

    fn no_dims(_: &str) -> Option<i64> {
        None
    }

    #[test]
    fn dispatch_and_promotion() {
        let x = Value::F32(ndarray::Array::from_vec(vec![0.1f32, 2.0]).into_dyn());
        let xt = Type::new(DType::F32, vec![Dim::known(2)]);
        let lit = Value::scalar_f64(0.1);
        let lt = Type {
            dtype: DType::F64,
            shape: vec![],
            weak: true,
            list: 0,
        };
        let bt = Type::new(DType::Bool, vec![Dim::known(2)]);
        // f32 == weak 0.1 compares in f32
        let r = eval(
            &Op::Compare(CompareOp::Eq),
            &[&x, &lit],
            &[&xt, &lt],
            &bt,
            &no_dims,
        )
        .unwrap();
        assert_eq!(
            r,
            Value::Bool(ndarray::Array::from_vec(vec![true, false]).into_dyn())
        );
        // ... but against a strong f64 scalar it compares in f64
        let st = Type::scalar(DType::F64);
        let r = eval(
            &Op::Compare(CompareOp::Eq),
            &[&x, &lit],
            &[&xt, &st],
            &bt,
            &no_dims,
        )
        .unwrap();
        assert_eq!(
            r,
            Value::Bool(ndarray::Array::from_vec(vec![false, false]).into_dyn())
        );
        let r = eval(
            &Op::Binary(BinaryOp::Mul),
            &[&x, &lit],
            &[&xt, &lt],
            &xt,
            &no_dims,
        )
        .unwrap();
        assert_eq!(r.dtype(), DType::F32);
        let r = eval(&Op::Unary(UnaryOp::Exp), &[&x], &[&xt], &xt, &no_dims).unwrap();
        assert_eq!(r.dtype(), DType::F32);
        let s = eval(
            &Op::Reduce(ReduceOp::Sum, None),
            &[&x],
            &[&xt],
            &Type::scalar(DType::F32),
            &no_dims,
        )
        .unwrap();
        assert_eq!(s, Value::scalar_f32(2.1f32));
        let c = eval(
            &Op::Cast(DType::I64),
            &[&x],
            &[&xt],
            &Type::new(DType::I64, vec![Dim::known(2)]),
            &no_dims,
        )
        .unwrap();
        assert_eq!(
            c,
            Value::I64(ndarray::Array::from_vec(vec![0, 2]).into_dyn())
        );
    }

    #[test]
    fn leaves_and_errors() {
        let ty = Type::scalar(DType::I64);
        let dims = |s: &str| (s == "T").then_some(5);
        assert_eq!(
            eval(&Op::Size("T".into()), &[], &[], &ty, &dims).unwrap(),
            Value::scalar_i64(5)
        );
        assert_eq!(
            eval(&Op::Size("N".into()), &[], &[], &ty, &dims),
            Err("symbolic size 'N' is not bound: give --dim N=N".to_string())
        );
        let weak = Type {
            list: 0,
            dtype: DType::F64,
            shape: vec![],
            weak: true,
        };
        assert_eq!(
            eval(&Op::Literal(Scalar::I64(3)), &[], &[], &weak, &dims).unwrap(),
            Value::scalar_i64(3)
        );
        assert!(eval(&Op::Input(0), &[], &[], &ty, &dims)
            .unwrap_err()
            .starts_with("internal"));
        assert!(eval(&Op::Proj(0), &[], &[], &ty, &dims)
            .unwrap_err()
            .starts_with("internal"));
        assert!(eval(
            &Op::Binary(BinaryOp::Add),
            &[&Value::scalar_i64(1)],
            &[],
            &ty,
            &dims
        )
        .is_err());
        assert!(eval(&Op::Index, &[], &[], &ty, &dims).is_err());
        assert_eq!(normalize_axis(-1, 3), Ok(2));
        assert_eq!(normalize_axis(-3, 3), Ok(0));
        assert!(normalize_axis(-4, 3).is_err());
        assert!(normalize_axis(3, 3).is_err());
        assert!(normalize_axis(0, 0).is_err());
        assert!(normalize_axis(i64::MIN, 3).is_err());
    }

    /// Every op on every combination of small shapes (empty, length 1,
    /// mismatched) and dtypes returns `Ok` or `Err`, never panics.
    #[test]
    fn no_panics_on_any_shapes() {
        use crate::lang::{CumOp, DType::*};
        let shapes: Vec<Vec<usize>> = vec![
            vec![],
            vec![0],
            vec![1],
            vec![3],
            vec![2, 3],
            vec![3, 1],
            vec![0, 3],
            vec![3, 0],
            vec![2, 1, 3],
            vec![1, 3, 2],
        ];
        let dtypes = [F64, F32, I64, Bool];
        let values: Vec<Value> = shapes
            .iter()
            .flat_map(|s| {
                dtypes.iter().enumerate().map(move |(k, &dt)| {
                    // values include negatives, zeros and NaN-free floats
                    crate::exec::gen::generate(k, dt, s, 7.0)
                })
            })
            .collect();
        let dims = |s: &str| (s == "T").then_some(3);
        let mut ops: Vec<Op> = Vec::new();
        ops.extend(UnaryOp::ALL.iter().map(|&u| Op::Unary(u)));
        ops.extend(BinaryOp::ALL.iter().map(|&b| Op::Binary(b)));
        ops.extend(CompareOp::ALL.iter().map(|&c| Op::Compare(c)));
        for axis in [None, Some(0), Some(1), Some(-1), Some(-3), Some(5)] {
            ops.extend(ReduceOp::ALL.iter().map(|&r| Op::Reduce(r, axis)));
        }
        for axis in [0, 1, -1, -4] {
            ops.extend(CumOp::ALL.iter().map(|&c| Op::Cumulative(c, axis)));
            ops.push(Op::ExpandDims(axis));
            ops.push(Op::Concat(axis));
            ops.push(Op::Flip(axis));
            ops.push(Op::Squeeze(axis));
            ops.push(Op::Take(axis));
            ops.push(Op::IncTake(axis));
            ops.push(Op::SetTake(axis));
        }
        ops.extend([Op::Dot, Op::Matmul, Op::Where, Op::Stack, Op::Index]);
        ops.extend([
            Op::ZerosLike,
            Op::SumTo,
            Op::IncIndex,
            Op::SetIndex,
            Op::Compress,
            Op::Uncompress,
            Op::Clip,
            Op::Outer,
        ]);
        ops.push(Op::Transpose(None));
        ops.push(Op::Transpose(Some(vec![1, 0])));
        ops.push(Op::Transpose(Some(vec![-1, 0, 1])));
        ops.push(Op::Reshape(vec![Dim::known(-1)]));
        ops.push(Op::Reshape(vec![Dim::known(3), Dim::known(-1)]));
        ops.push(Op::Reshape(vec![Dim::sym("T"), Dim::known(2)]));
        for (start, stop, step) in [
            (None, None, -1),
            (Some(-2), None, 1),
            (Some(5), Some(1), -2),
            (None, None, 0),
        ] {
            ops.push(Op::Slice { start, stop, step });
            ops.push(Op::IncSlice { start, stop, step });
            ops.push(Op::SetSlice { start, stop, step });
        }
        let ty = Type::new(F64, vec![Dim::sym("T"), Dim::known(2)]);
        ops.push(Op::Fill(ty.clone()));
        ops.push(Op::Eye(ty.clone()));
        ops.push(Op::Cast(I64));
        ops.push(Op::Cast(Bool));
        let mut n = 0;
        for op in &ops {
            for out in dtypes {
                let out_ty = Type::scalar(out);
                for a in &values {
                    let at = Type::new(a.dtype(), vec![]);
                    let _ = eval(op, &[a], &[&at], &out_ty, &dims);
                    for b in values.iter().step_by(3) {
                        let bt = Type::new(b.dtype(), vec![]);
                        let _ = eval(op, &[a, b], &[&at, &bt], &out_ty, &dims);
                        n += 1;
                    }
                    if matches!(
                        op,
                        Op::Where
                            | Op::Stack
                            | Op::Concat(_)
                            | Op::IncIndex
                            | Op::SetIndex
                            | Op::Clip
                            | Op::IncTake(_)
                            | Op::SetTake(_)
                    ) {
                        for b in values.iter().step_by(5) {
                            let _ = eval(op, &[a, b, a], &[&at, &at, &at], &out_ty, &dims);
                        }
                    }
                }
            }
        }
        assert!(n > 10_000);
    }

    #[test]
    fn empty_products() {
        let z = |s: &[usize]| Value::zeros(DType::F64, s);
        let out = Type::scalar(DType::F64);
        let r = eval(&Op::Dot, &[&z(&[2, 0]), &z(&[0, 3])], &[], &out, &no_dims).unwrap();
        assert_eq!(r, z(&[2, 3]));
        let r = eval(&Op::Dot, &[&z(&[0, 3]), &z(&[3, 2])], &[], &out, &no_dims).unwrap();
        assert_eq!(r.shape(), &[0, 2]);
        let r = eval(&Op::Dot, &[&z(&[2, 0]), &z(&[0])], &[], &out, &no_dims).unwrap();
        assert_eq!(r, z(&[2]));
        let r = eval(
            &Op::Matmul,
            &[&z(&[4, 2, 0]), &z(&[0, 3])],
            &[],
            &out,
            &no_dims,
        )
        .unwrap();
        assert_eq!(r, z(&[4, 2, 3]));
        let i = Type::scalar(DType::I64);
        let zi = |s: &[usize]| Value::zeros(DType::I64, s);
        let r = eval(&Op::Dot, &[&zi(&[2, 0]), &zi(&[0, 3])], &[], &i, &no_dims).unwrap();
        assert_eq!(r, zi(&[2, 3]));
    }
}
