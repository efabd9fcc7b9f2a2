//! The Op contract: what each op may do with storage, declared once.
//!
//! Owns: [`Role`], matched exhaustively over [`Op`] — so a new op does not
//! compile until it says whether it is a view of an argument (its
//! `view_map`), may overwrite an argument (its `destroy_map`), or computes
//! into storage of its own — and [`view_map`] / [`destroy_map`], the two
//! declarations in the form the planner reads them.
//! Must not: decide whether an overwrite is safe in a given graph (that is
//! the planner's liveness question), or compute anything.

use crate::lang::{DType, Op};

/// How a view reads its argument 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewOp {
    /// The argument itself (a cast to the dtype it already has).
    Identity,
    /// `transpose`: permuted axes.
    Transpose,
    /// `reshape` of row-major contiguous data (copies when the data is not
    /// contiguous).
    Reshape,
    /// `expand_dims`: an inserted axis.
    ExpandDims,
    /// `index`: rows of leading axes, at runtime positions.
    Index,
    /// `slice`: a strided range of axis 0.
    Slice,
}

/// What a node does with storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A graph parameter: the caller's storage, never written (unless the
    /// caller handed it over).
    Param(usize),
    /// No arguments: computed once per binding of the symbolic sizes and
    /// kept (a literal, a size, a created tensor).
    Const,
    /// A view of argument 0 (`view_map = {0: [0]}`): copies nothing when
    /// the layout allows.
    View(ViewOp),
    /// Elementwise: may write its result over an argument of the same type
    /// that nobody reads later (`destroy_map = {0: [i]}`).
    Elementwise,
    /// Computes into storage of its own, reused across calls.
    Fresh,
    /// A scan: one storage per output, filled step by step.
    Loop,
    /// The k-th result of a multi-result node: a view of that result.
    Proj(usize),
}

/// The role of `op`. `arg0` is the dtype of argument 0 (if any) and `out`
/// the result dtype: a shape op or cast that changes the dtype converts,
/// so it is not a view.
pub fn role(op: &Op, arg0: Option<DType>, out: DType) -> Role {
    let same = arg0 == Some(out);
    let view = |v: ViewOp| {
        if same {
            Role::View(v)
        } else {
            Role::Fresh
        }
    };
    match op {
        Op::Input(k) => Role::Param(*k),
        Op::Literal(_)
        | Op::Size(_)
        | Op::Zeros(_)
        | Op::Ones(_)
        | Op::Arange(_)
        | Op::Tensor(..) => Role::Const,
        Op::Unary(_) | Op::Binary(_) | Op::Compare(_) => Role::Elementwise,
        // The kernel of `where` does not run in place; declaring less than
        // it could do is always safe.
        Op::Where => Role::Fresh,
        Op::Reduce(..)
        | Op::Cumulative(..)
        | Op::Dot
        | Op::Matmul
        | Op::Stack
        | Op::Concat(_)
        | Op::Fill(_) => Role::Fresh,
        Op::Transpose(_) => view(ViewOp::Transpose),
        Op::Reshape(_) => view(ViewOp::Reshape),
        Op::ExpandDims(_) => view(ViewOp::ExpandDims),
        Op::Index => view(ViewOp::Index),
        Op::Slice { .. } => view(ViewOp::Slice),
        Op::Cast(_) | Op::StopGradient => view(ViewOp::Identity),
        // Expanded before a program is compiled; its kernel refuses it.
        Op::Grad => Role::Fresh,
        Op::Scan(_) => Role::Loop,
        Op::Proj(k) => Role::Proj(*k),
    }
}

/// The `view_map` of a node: the argument whose storage its result may
/// share, if any.
pub fn view_map(role: Role) -> Option<usize> {
    match role {
        Role::View(_) | Role::Proj(_) => Some(0),
        Role::Param(_) | Role::Const | Role::Elementwise | Role::Fresh | Role::Loop => None,
    }
}

/// The `destroy_map` of a node: the arguments it may overwrite with its
/// result, when the planner finds them dead and of the result's type.
pub fn destroy_map(role: Role, n_args: usize) -> std::ops::Range<usize> {
    match role {
        Role::Elementwise => 0..n_args,
        Role::Param(_) | Role::Const | Role::View(_) | Role::Fresh | Role::Loop | Role::Proj(_) => {
            0..0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{BinaryOp, Type};

    #[test]
    fn declarations() {
        let add = role(&Op::Binary(BinaryOp::Add), Some(DType::F64), DType::F64);
        assert_eq!(add, Role::Elementwise);
        assert_eq!(destroy_map(add, 2), 0..2);
        assert_eq!(view_map(add), None);
        let t = role(&Op::Transpose(None), Some(DType::F32), DType::F32);
        assert_eq!(view_map(t), Some(0));
        assert_eq!(destroy_map(t, 1), 0..0);
        // a cast that converts is not a view
        assert_eq!(
            role(&Op::Cast(DType::I64), Some(DType::F64), DType::I64),
            Role::Fresh
        );
        assert_eq!(
            role(&Op::Zeros(Type::scalar(DType::F64)), None, DType::F64),
            Role::Const
        );
    }
}
