//! The type rules of the `numpy.linalg` ops: `solve`, `solve_triangular`,
//! `cholesky`, `inv`, `det` and `slogdet`.
//!
//! Owns: [`linalg`], the result type of each of them, after NumPy 2's
//! `numpy.linalg`: the matrix operand is a square matrix or a stack of
//! them (..., n, n); `solve`'s right-hand side is a vector only when it
//! is 1-D, otherwise a stack of (n, k) matrices whose leading axes
//! broadcast with the matrix's; results are floats (`i64` and `bool`
//! operands computed in `f64`, `f32` kept). Must not: evaluate anything;
//! a size that is symbolic is accepted here and checked at run time.

use super::dtype::promote_strong;
use super::infer::broadcast_batches;
use super::op_table::Op;
use super::shape::{shape_str, Dim, Type};

/// The matrix operand of a linalg op: its batch sizes and its order `n`.
fn square(a: &Type) -> Result<(&[Dim], &Dim), String> {
    let [batch @ .., rows, cols] = a.shape.as_slice() else {
        return Err(format!(
            "takes a square matrix or a stack of them (..., n, n), got {a}"
        ));
    };
    if rows.provably_differs(cols) {
        return Err(format!(
            "the matrix must be square, got shape {}",
            shape_str(&a.shape)
        ));
    }
    Ok((batch, rows))
}

/// `(solve A B)` and `(solve_triangular A B LOWER)`.
fn solve(a: &Type, b: &Type) -> Result<Type, String> {
    let (a_batch, n) = square(a)?;
    // numpy.linalg's common type: each operand's float type (`i64` and
    // `bool` as `f64`), the wider of the two (`bool` with `f32` is `f64`).
    let dtype = promote_strong(a.dtype.to_float(), b.dtype.to_float());
    let mismatch = |bn: &Dim| {
        format!(
            "the matrix {} and the right-hand side {} differ in size: {n} != {bn}",
            shape_str(&a.shape),
            shape_str(&b.shape)
        )
    };
    match b.shape.as_slice() {
        [] => Err(format!(
            "the right-hand side must be a vector (n) or a stack of matrices (..., n, k), got {b}"
        )),
        [bn] => {
            if n.provably_differs(bn) {
                return Err(mismatch(bn));
            }
            let mut shape = a_batch.to_vec();
            shape.push(n.clone());
            Ok(Type::new(dtype, shape))
        }
        [b_batch @ .., bn, k] => {
            if n.provably_differs(bn) {
                return Err(mismatch(bn));
            }
            let mut shape = broadcast_batches(a, a_batch, b, b_batch)?;
            shape.push(n.clone());
            shape.push(k.clone());
            Ok(Type::new(dtype, shape))
        }
    }
}

/// The result type of the linalg op `op` on arguments `args` (already
/// counted), or `None` when `op` is not one of them.
pub(crate) fn linalg(op: &Op, args: &[&Type]) -> Option<Result<Type, String>> {
    Some(match (op, args) {
        (Op::Solve | Op::SolveTriangular(_), [a, b]) => solve(a, b),
        (Op::Cholesky | Op::Inv, [a]) => {
            square(a).map(|_| Type::new(a.dtype.to_float(), a.shape.clone()))
        }
        (Op::Det | Op::Slogdet(_), [a]) => {
            square(a).map(|(batch, _)| Type::new(a.dtype.to_float(), batch.to_vec()))
        }
        (
            Op::Solve | Op::SolveTriangular(_) | Op::Cholesky | Op::Inv | Op::Det | Op::Slogdet(_),
            _,
        ) => Err(format!("expects {}, got {}", op.arg_arity(), args.len())),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::DType::{Bool, F32, F64, I64};

    fn arr(dt: crate::lang::DType, s: &[i64]) -> Type {
        Type::new(dt, s.iter().map(|&k| Dim::known(k)).collect())
    }

    fn ok(op: Op, args: &[&Type]) -> Type {
        linalg(&op, args).unwrap().unwrap()
    }

    fn err(op: Op, args: &[&Type]) -> String {
        linalg(&op, args).unwrap().unwrap_err()
    }

    #[test]
    fn numpy2_solve_shapes() {
        let a = arr(F64, &[5, 3, 3]);
        // A 1-D right-hand side is a vector, even with a batched matrix.
        assert_eq!(
            ok(Op::Solve, &[&a, &arr(F64, &[3])]).shape,
            arr(F64, &[5, 3]).shape
        );
        // A 2-D one is a matrix, its batch broadcast.
        assert_eq!(
            ok(Op::Solve, &[&a, &arr(F64, &[3, 2])]).shape,
            arr(F64, &[5, 3, 2]).shape
        );
        assert_eq!(
            ok(Op::Solve, &[&arr(F64, &[3, 3]), &arr(F64, &[4, 1, 3, 2])]).shape,
            arr(F64, &[4, 1, 3, 2]).shape
        );
        assert!(err(Op::Solve, &[&a, &arr(F64, &[4])]).contains("differ in size"));
        assert!(err(Op::Solve, &[&a, &arr(F64, &[2, 3, 1])]).contains("broadcast"));
        assert!(err(Op::Solve, &[&arr(F64, &[3, 4]), &arr(F64, &[3])]).contains("square"));
        assert!(err(Op::Solve, &[&arr(F64, &[3]), &arr(F64, &[3])]).contains("(..., n, n)"));
    }

    #[test]
    fn float_results() {
        let a = arr(I64, &[3, 3]);
        assert_eq!(ok(Op::Inv, &[&a]).dtype, F64);
        assert_eq!(ok(Op::Det, &[&arr(Bool, &[2, 2])]).dtype, F64);
        assert_eq!(ok(Op::Cholesky, &[&arr(F32, &[2, 2])]).dtype, F32);
        assert_eq!(
            ok(Op::Slogdet(1), &[&arr(F32, &[4, 2, 2])]).shape,
            arr(F32, &[4]).shape
        );
        assert_eq!(
            ok(
                Op::SolveTriangular(true),
                &[&arr(F32, &[2, 2]), &arr(F64, &[2])]
            )
            .dtype,
            F64
        );
        // numpy.linalg reads an integer or bool operand as f64
        assert_eq!(
            ok(Op::Solve, &[&arr(Bool, &[2, 2]), &arr(F32, &[2])]).dtype,
            F64
        );
        assert_eq!(
            ok(Op::Solve, &[&arr(F32, &[2, 2]), &arr(I64, &[2])]).dtype,
            F64
        );
        assert_eq!(
            ok(Op::Solve, &[&arr(F32, &[2, 2]), &arr(F32, &[2])]).dtype,
            F32
        );
    }
}
