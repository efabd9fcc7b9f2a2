//! The vector-Jacobian products of the `numpy.linalg` ops, batched over
//! leading axes.
//!
//! Owns: [`linalg`], the cotangents of `solve`, `solve_triangular`,
//! `cholesky`, `inv`, `det` and `slogdet`, written with ops that have
//! gradients of their own (so second order works): no explicit inverse
//! where a solve serves. With `Xᵀ` the transpose of the last two axes:
//! - `X = solve(A, B)`: `gB = solve(Aᵀ, G)`, `gA = -gB Xᵀ` (a 1-D `B` is a
//!   column for the products);
//! - `X = solve_triangular(A, B, lower)`: `gB` the triangular solve with
//!   `Aᵀ` (the other triangle), `gA = -gB Xᵀ` masked to the triangle read;
//! - `L = cholesky(A)`: `gA = L⁻ᵀ Φ(Lᵀ G) L⁻¹` symmetrized (Φ: the lower
//!   triangle with the diagonal halved), the two `L⁻¹` products as
//!   triangular solves;
//! - `Y = inv(A)`: `gA = -Yᵀ G Yᵀ`;
//! - `d = det(A)`: `gA = G d A⁻ᵀ`; `logdet`: `gA = G A⁻ᵀ`; the sign has no
//!   gradient. `A⁻ᵀ` is the inverse of `Aᵀ`: a determinant has no right-hand
//!   side a solve could take instead (so the gradient of a singular
//!   matrix's determinant is the inverse's run-time error).
//!
//! Must not: walk a graph or reduce a cotangent to its operand's type (the
//! caller does, with `Emit::fit`).

use super::emit::Emit;
use super::error::{GradError, Unsupported};
use crate::lang::{CompareOp, Dim, NodeId, Op};

/// `x` with its last two axes swapped.
fn mt(e: &mut Emit, x: NodeId) -> Result<NodeId, GradError> {
    let n = e.ty(x)?.ndim();
    e.swap_axes(x, n - 2, n - 1)
}

/// `x` with two length-1 axes appended (a batch of scalars as a batch of
/// 1×1 matrices, to scale matrices).
fn as_matrices(e: &mut Emit, x: NodeId) -> Result<NodeId, GradError> {
    let x = e.expand_dims(x, -1)?;
    e.expand_dims(x, -1)
}

/// The bool n×n mask `i c j` of the row index `i` and column index `j`
/// of a matrix of order `n` (`ge`: the lower triangle).
fn index_mask(e: &mut Emit, n: &Dim, c: CompareOp) -> Result<NodeId, GradError> {
    if !super::emit::printable(n) {
        return Err(e.unsupported("linalg", Unsupported::UnknownSize));
    }
    let j = e.op(Op::Arange(n.clone()), &[])?;
    let i = e.expand_dims(j, -1)?;
    e.cmp(c, i, j)
}

/// The order of the square matrix operand `a`.
fn order(e: &Emit, a: NodeId) -> Result<Dim, GradError> {
    let t = e.ty(a)?;
    t.shape
        .last()
        .cloned()
        .ok_or_else(|| e.unsupported("linalg", Unsupported::UnknownSize))
}

/// The cotangents `(gA, gB)` of the linalg op `op` with arguments `args`,
/// result `out` and result cotangent `g` (`gB` only for the solves);
/// `want` says which are needed.
pub(super) fn linalg(
    e: &mut Emit,
    op: &Op,
    args: &[NodeId],
    out: NodeId,
    g: NodeId,
    want: [bool; 2],
) -> Result<[Option<NodeId>; 2], GradError> {
    let a = args[0];
    match op {
        Op::Solve | Op::SolveTriangular(_) => {
            let b = args[1];
            let vector = e.ty(b)?.ndim() == 1;
            let (g2, x2) = if vector {
                (e.expand_dims(g, -1)?, e.expand_dims(out, -1)?)
            } else {
                (g, out)
            };
            let at = mt(e, a)?;
            let back = match op {
                Op::SolveTriangular(lower) => Op::SolveTriangular(!lower),
                _ => Op::Solve,
            };
            let gb2 = e.op(back, &[at, g2])?;
            let mut ga = None;
            if want[0] {
                let xt = mt(e, x2)?;
                let p = e.op(Op::Matmul, &[gb2, xt])?;
                let mut m = e.neg(p)?;
                if let Op::SolveTriangular(lower) = op {
                    let n = order(e, a)?;
                    let c = if *lower { CompareOp::Ge } else { CompareOp::Le };
                    let mask = index_mask(e, &n, c)?;
                    let zero = e.lit(0.0)?;
                    m = e.where_(mask, m, zero)?;
                }
                ga = Some(m);
            }
            let gb = if want[1] {
                Some(if vector {
                    e.op(Op::Squeeze(-1), &[gb2])?
                } else {
                    gb2
                })
            } else {
                None
            };
            Ok([ga, gb])
        }
        Op::Cholesky if want[0] => {
            let n = order(e, a)?;
            // Φ: 1 below the diagonal, 1/2 on it, 0 above.
            let below = index_mask(e, &n, CompareOp::Gt)?;
            let diag = index_mask(e, &n, CompareOp::Eq)?;
            let (one, half, zero) = (e.lit(1.0)?, e.lit(0.5)?, e.lit(0.0)?);
            let on_diag = e.where_(diag, half, zero)?;
            let phi = e.where_(below, one, on_diag)?;
            let lt = mt(e, out)?;
            let ltg = e.op(Op::Matmul, &[lt, g])?;
            let p = e.mul(ltg, phi)?;
            // Y = L⁻ᵀ P, then Z = Y L⁻¹ = (L⁻ᵀ Yᵀ)ᵀ
            let y = e.op(Op::SolveTriangular(false), &[lt, p])?;
            let yt = mt(e, y)?;
            let zt = e.op(Op::SolveTriangular(false), &[lt, yt])?;
            let z = mt(e, zt)?;
            let s = e.add(z, zt)?;
            Ok([Some(e.mul(s, half)?), None])
        }
        Op::Inv if want[0] => {
            let yt = mt(e, out)?;
            let p = e.op(Op::Matmul, &[yt, g])?;
            let p = e.op(Op::Matmul, &[p, yt])?;
            Ok([Some(e.neg(p)?), None])
        }
        Op::Det | Op::Slogdet(1) if want[0] => {
            let at = mt(e, a)?;
            let inv_t = e.op(Op::Inv, &[at])?;
            let scale = match op {
                Op::Det => e.mul(g, out)?,
                _ => g,
            };
            let s = as_matrices(e, scale)?;
            Ok([Some(e.mul(s, inv_t)?), None])
        }
        _ => Ok([None, None]),
    }
}
