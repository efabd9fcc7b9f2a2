//! The Op contract as the planner reads it.
//!
//! Owns: [`Role`], a node's part in the plan, derived from the op's
//! [`Storage`] fact in the op table (whether it is a view of an argument —
//! its `view_map` —, may overwrite an argument — its `destroy_map` — or
//! computes into storage of its own) and from the dtypes at hand; and
//! [`view_map`] / [`destroy_map`], the two declarations in the form the
//! planner reads them. Must not: decide whether an overwrite is safe in a
//! given graph (that is the planner's liveness question), or compute
//! anything.

use crate::lang::{DType, Op, Storage};

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
    View,
    /// Elementwise: may write its result over an argument of the same type
    /// that nobody reads later (`destroy_map = {0: [i]}`).
    Elementwise,
    /// Argument 0 with a part updated (`inc_index`, `inc_slice`): may
    /// write its result over argument 0 when nobody reads it later
    /// (`destroy_map = {0: [0]}`); computes into storage of its own
    /// otherwise.
    Update,
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
    match (op, op.storage()) {
        (Op::Input(k), _) => Role::Param(*k),
        (Op::Proj(k), _) => Role::Proj(*k),
        (_, Storage::Created) => Role::Const,
        (_, Storage::InPlace) => Role::Elementwise,
        (_, Storage::UpdatesArg0) => Role::Update,
        (_, Storage::View) if arg0 == Some(out) => Role::View,
        // A shape op or cast that changes the dtype converts: not a view.
        (_, Storage::View | Storage::Fresh | Storage::Param | Storage::Projection) => Role::Fresh,
        (_, Storage::Loop) => Role::Loop,
    }
}

/// The `view_map` of a node: the argument whose storage its result may
/// share, if any.
pub fn view_map(role: Role) -> Option<usize> {
    match role {
        Role::View | Role::Proj(_) => Some(0),
        Role::Param(_)
        | Role::Const
        | Role::Elementwise
        | Role::Update
        | Role::Fresh
        | Role::Loop => None,
    }
}

/// The `destroy_map` of a node: the arguments it may overwrite with its
/// result, when the planner finds them dead and of the result's type.
pub fn destroy_map(role: Role, n_args: usize) -> std::ops::Range<usize> {
    match role {
        Role::Elementwise => 0..n_args,
        Role::Update => 0..n_args.min(1),
        Role::Param(_) | Role::Const | Role::View | Role::Fresh | Role::Loop | Role::Proj(_) => {
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
        // an increment may overwrite its operand, and only that one
        let inc = role(&Op::IncIndex, Some(DType::F64), DType::F64);
        assert_eq!(inc, Role::Update);
        assert_eq!(destroy_map(inc, 3), 0..1);
        assert_eq!(view_map(inc), None);
        assert_eq!(role(&Op::Flip(0), Some(DType::F64), DType::F64), Role::View);
    }
}
