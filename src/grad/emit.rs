//! The small expressions gradients are written with, on a typed builder.
//!
//! Owns: [`Emit`], a [`Builder`] with shorthands for the nodes gradient
//! rules add (literals, elementwise ops, reductions, `where`), and the
//! shape glue every rule shares: a value broadcast to another's shape
//! ([`Emit::broadcast_like`]), zeros of a value's shape
//! ([`Emit::zeros_like`]), a static size as an `i64` value
//! ([`Emit::size_value`]) and the reduction of a cotangent back to its
//! operand's type ([`Emit::fit`], NumPy broadcasting undone). Must not:
//! know any op's gradient (see [`super::vjp`]).
//!
//! Types are static (sizes are affine in symbols, [`Dim`]), so the axes a
//! broadcast added are known when the gradient is built: the leading axes
//! of a higher-rank result, and the axes where the operand's size is the
//! integer 1 and the result's is not. A symbolic size that is 1 at run
//! time (a symbol against an integer, which NumPy broadcasting allows) is
//! not known here; such a program fails at run time with a shape error in
//! the gradient instead (a run-time `sum_to` op would cover it).

use super::error::{GradError, Unsupported};
use crate::lang::{
    BinaryOp, Builder, CompareOp, DType, Dim, NodeId, Op, ReduceOp, Scalar, Span, Type, UnaryOp,
};

/// A builder with the shorthands gradient rules use. Every node is type
/// checked by the builder.
pub struct Emit<'b> {
    /// The builder the gradient is added to.
    pub b: &'b mut Builder,
    /// Where the `grad` being expanded is written (for errors).
    pub span: Span,
}

impl<'b> Emit<'b> {
    /// The type of node `x`.
    pub fn ty(&self, x: NodeId) -> Result<Type, GradError> {
        Ok(self.b.ty(x)?.clone())
    }

    /// The node `op(args...)`.
    pub fn op(&mut self, op: Op, args: &[NodeId]) -> Result<NodeId, GradError> {
        Ok(self.b.op(op, args)?)
    }

    /// A weak float literal.
    pub fn lit(&mut self, v: f64) -> Result<NodeId, GradError> {
        Ok(self.b.literal(Scalar::F64(v))?)
    }

    /// A weak `i64` literal.
    pub fn int(&mut self, v: i64) -> Result<NodeId, GradError> {
        Ok(self.b.literal(Scalar::I64(v))?)
    }

    /// `u(x)`.
    pub fn unary(&mut self, u: UnaryOp, x: NodeId) -> Result<NodeId, GradError> {
        self.op(Op::Unary(u), &[x])
    }

    /// `op(a, b)`.
    pub fn bin(&mut self, op: BinaryOp, a: NodeId, b: NodeId) -> Result<NodeId, GradError> {
        self.op(Op::Binary(op), &[a, b])
    }

    /// `a * b`.
    pub fn mul(&mut self, a: NodeId, b: NodeId) -> Result<NodeId, GradError> {
        self.bin(BinaryOp::Mul, a, b)
    }

    /// `a + b`.
    pub fn add(&mut self, a: NodeId, b: NodeId) -> Result<NodeId, GradError> {
        self.bin(BinaryOp::Add, a, b)
    }

    /// Two cotangent contributions summed: `a + b`, or, for lists of
    /// tensors whose shape the type fixes (the cotangents of `index` and
    /// `stack`'s of a list used twice), their elements summed pairwise,
    /// `(unstack (add (stack a) (stack b)))`. Other lists reach `add` and
    /// its located type error.
    pub fn add_cotangents(&mut self, a: NodeId, b: NodeId) -> Result<NodeId, GradError> {
        let (ta, tb) = (self.ty(a)?, self.ty(b)?);
        if stackable_list(&ta) && ta == tb {
            let (ra, rb) = (self.op(Op::Stack, &[a])?, self.op(Op::Stack, &[b])?);
            let sum = self.add(ra, rb)?;
            return self.op(Op::List(crate::lang::ListOp::Unstack), &[sum]);
        }
        self.add(a, b)
    }

    /// `a - b`.
    pub fn sub(&mut self, a: NodeId, b: NodeId) -> Result<NodeId, GradError> {
        self.bin(BinaryOp::Sub, a, b)
    }

    /// `a / b`.
    pub fn div(&mut self, a: NodeId, b: NodeId) -> Result<NodeId, GradError> {
        self.bin(BinaryOp::Div, a, b)
    }

    /// `-x`.
    pub fn neg(&mut self, x: NodeId) -> Result<NodeId, GradError> {
        self.unary(UnaryOp::Neg, x)
    }

    /// `cmp(a, b)`.
    pub fn cmp(&mut self, c: CompareOp, a: NodeId, b: NodeId) -> Result<NodeId, GradError> {
        self.op(Op::Compare(c), &[a, b])
    }

    /// `(where c a b)`.
    pub fn where_(&mut self, c: NodeId, a: NodeId, b: NodeId) -> Result<NodeId, GradError> {
        self.op(Op::Where, &[c, a, b])
    }

    /// `(sum x axis)`, or the sum of all elements.
    pub fn sum(&mut self, x: NodeId, axis: Option<i64>) -> Result<NodeId, GradError> {
        self.op(Op::Reduce(ReduceOp::Sum, axis), &[x])
    }

    /// `(expand_dims x axis)`.
    pub fn expand_dims(&mut self, x: NodeId, axis: i64) -> Result<NodeId, GradError> {
        self.op(Op::ExpandDims(axis), &[x])
    }

    /// `(cast dtype x)`, or `x` when it has that dtype already.
    pub fn cast(&mut self, x: NodeId, dtype: DType) -> Result<NodeId, GradError> {
        if self.ty(x)?.dtype == dtype {
            return Ok(x);
        }
        self.op(Op::Cast(dtype), &[x])
    }

    /// `x` with axes `a` and `b` swapped.
    pub fn swap_axes(&mut self, x: NodeId, a: usize, b: usize) -> Result<NodeId, GradError> {
        if a == b {
            return Ok(x);
        }
        let n = self.ty(x)?.ndim();
        let mut perm: Vec<i64> = (0..n as i64).collect();
        perm.swap(a, b);
        self.op(Op::Transpose(Some(perm)), &[x])
    }

    /// `x` reversed along axis 0 (`x[::-1]`).
    pub fn flip0(&mut self, x: NodeId) -> Result<NodeId, GradError> {
        self.op(
            Op::Slice {
                start: None,
                stop: None,
                step: -1,
            },
            &[x],
        )
    }

    /// A boolean literal.
    pub fn boolean(&mut self, v: bool) -> Result<NodeId, GradError> {
        Ok(self.b.literal(Scalar::Bool(v))?)
    }

    /// `g` broadcast to the shape of `like` (the values of `g`; `like`
    /// only gives the shape): `(where true g like)`, which never reads
    /// `like`'s values into the result.
    pub fn broadcast_like(&mut self, g: NodeId, like: NodeId) -> Result<NodeId, GradError> {
        if self.ty(g)?.shape == self.ty(like)?.shape {
            return Ok(g);
        }
        let t = self.boolean(true)?;
        self.where_(t, g, like)
    }

    /// Zeros of `like`'s shape and dtype: a created tensor when its sizes
    /// can be written, else `(zeros_like like)`.
    pub fn zeros_like(&mut self, like: NodeId) -> Result<NodeId, GradError> {
        let t = self.ty(like)?;
        if t.shape.iter().all(printable) {
            return self.op(Op::Zeros(t.strong()), &[]);
        }
        self.op(Op::ZerosLike, &[like])
    }

    /// Zeros of type `t` (its sizes integers or symbols, as a created
    /// tensor's type is written).
    pub fn zeros(&mut self, t: &Type) -> Result<NodeId, GradError> {
        if !t.shape.iter().all(printable) {
            return Err(self.unsupported("zeros", Unsupported::UnknownSize));
        }
        self.op(Op::Zeros(t.clone().strong()), &[])
    }

    /// A static size as an `i64` scalar value (`T - 1` from the symbol
    /// `T`); an error when it is known only at run time.
    pub fn size_value(&mut self, d: &Dim, op: &'static str) -> Result<NodeId, GradError> {
        let Dim::Affine { constant, terms } = d else {
            return Err(self.unsupported(op, Unsupported::UnknownSize));
        };
        let mut acc: Option<NodeId> = None;
        for (s, c) in terms {
            let sym = self.b.size(s)?;
            let term = if *c == 1 {
                sym
            } else {
                let k = self.int(*c)?;
                self.mul(sym, k)?
            };
            acc = Some(match acc {
                Some(a) => self.add(a, term)?,
                None => term,
            });
        }
        match acc {
            None => self.int(*constant),
            Some(a) if *constant == 0 => Ok(a),
            Some(a) => {
                let k = self.int(*constant)?;
                self.add(a, k)
            }
        }
    }

    /// The cotangent contribution `g` reduced to an operand of type
    /// `target`: summed over the leading axes a broadcast added and over
    /// the axes where the operand has length 1 and `g` does not (kept as
    /// length 1), then cast to the operand's dtype.
    pub fn fit(&mut self, g: NodeId, target: &Type) -> Result<NodeId, GradError> {
        let mut g = g;
        let gt = self.ty(g)?;
        if gt.ndim() < target.ndim() || gt.is_list() != target.is_list() {
            return Err(GradError::Build(crate::lang::LangError::Type {
                span: self.span,
                op: "grad".into(),
                msg: format!(
                    "a cotangent of type {gt} for a value of type {target}: gradients through \
                     a loop over a list of lists, with respect to what its elements depend \
                     on, are not supported yet"
                ),
            }));
        }
        while self.ty(g)?.ndim() > target.ndim() {
            g = self.sum(g, Some(0))?;
        }
        for (i, d) in target.shape.iter().enumerate() {
            let gd = self.ty(g)?.shape[i].clone();
            if d.is_one() && !gd.is_one() {
                let s = self.sum(g, Some(i as i64))?;
                g = self.expand_dims(s, i as i64)?;
            }
        }
        self.cast(g, target.dtype)
    }

    /// An [`GradError::Unsupported`] for `op` at the `grad`'s position.
    pub fn unsupported(&self, op: &'static str, reason: Unsupported) -> GradError {
        GradError::Unsupported {
            span: self.span,
            op,
            reason,
        }
    }
}

/// Whether a size can be written in a created tensor's type: an integer
/// or a symbol (not `T-1`, not unknown).
pub fn printable(d: &Dim) -> bool {
    d.as_known().is_some() || d.as_sym().is_some()
}

/// True for a list of tensors whose shape its type fixes (no size known
/// only at run time): `stack` of it cannot fail, so `grad` may go through
/// the stacked tensor.
pub fn stackable_list(t: &Type) -> bool {
    t.list == 1 && t.shape.iter().all(|d| *d != Dim::Unknown)
}
