//! The type rules of nested lists (SPEC §1 "Nested lists (FractalTensors)").
//!
//! Owns: which ops take a list where and what they give — `(len X)`,
//! `(index L I)`, `(stack L)`, `(unstack X)` and `(flatten L)` — and the
//! one check that every other op refuses a list where it needs a tensor
//! ([`list_rule`], which [`super::infer::infer`] asks first). A list type
//! is a [`Type`] with [`Type::list`] > 0: its innermost elements are
//! tensors of the type's dtype and shape, and every length inside it is
//! known only at run time. Must not: evaluate anything (the run-time
//! checks — an index out of range, tensors of different shapes to stack —
//! belong to `crate::exec::list`).

use super::dtype::DType;
use super::op::ListOp;
use super::op_table::Op;
use super::program::{Graph, Program};
use super::shape::{Dim, Type};

/// The type of `op` on `args` when lists are involved: `Ok(Some(t))` for
/// a list op or `index`/`stack` of a list, an error for a list where a
/// tensor is required, `Ok(None)` when the tensor rules apply (no list
/// in sight).
pub fn list_rule(op: &Op, args: &[&Type]) -> Result<Option<Type>, String> {
    match op {
        Op::List(ListOp::Nest) => match args {
            [x, l] => nest(x, l).map(Some),
            _ => Err(format!("expects 2 arguments (X L), got {}", args.len())),
        },
        Op::List(ListOp::CompressInnermost) => match args {
            [m, l] => compress_innermost(m, l).map(Some),
            _ => Err(format!("expects 2 arguments (MASK L), got {}", args.len())),
        },
        Op::List(l) => one_arg(args).and_then(|x| list_op(*l, x)).map(Some),
        Op::Compress if args.len() == 2 && args[1].is_list() => compress(args).map(Some),
        Op::Index if args.first().is_some_and(|t| t.is_list()) => index(args).map(Some),
        Op::Stack if args.len() == 1 && args[0].is_list() => stack(args[0]).map(Some),
        _ => {
            tensors_only(args)?;
            Ok(None)
        }
    }
}

/// Refuses a list among `args`: one sentence naming the argument.
pub fn tensors_only(args: &[&Type]) -> Result<(), String> {
    match args.iter().enumerate().find(|(_, t)| t.is_list()) {
        Some((k, t)) => Err(format!(
            "argument {} is the list {t}, where a tensor is required",
            k + 1
        )),
        None => Ok(()),
    }
}

/// Whether any value of `p` (an input, a node, inside loops too) is a
/// list: the optimizer carries such a program unchanged for now.
pub fn holds_lists(p: &Program) -> bool {
    graph_holds_lists(&p.graph)
}

/// Whether any value of `g` (inside its loops too) is a list.
pub fn graph_holds_lists(g: &Graph) -> bool {
    g.nodes.iter().any(|n| {
        n.ty.iter().any(Type::is_list)
            || match &n.op {
                Op::Scan(s) => graph_holds_lists(&s.body),
                _ => false,
            }
    })
}

fn one_arg<'a>(args: &[&'a Type]) -> Result<&'a Type, String> {
    match args {
        [x] => Ok(x),
        _ => Err(format!("expects 1 argument, got {}", args.len())),
    }
}

fn list_op(op: ListOp, x: &Type) -> Result<Type, String> {
    match op {
        ListOp::Len => {
            if !x.is_list() && x.ndim() == 0 {
                return Err(format!(
                    "needs a list or an array with a leading axis, got the scalar {x}"
                ));
            }
            Ok(Type::scalar(DType::I64))
        }
        ListOp::Unstack => {
            if x.is_list() {
                return Err(format!(
                    "takes a tensor (its rows become the list), got the list {x}"
                ));
            }
            let Some((_, row)) = x.shape.split_first() else {
                return Err(format!(
                    "needs an array with a leading axis to take rows from, got the scalar {x}"
                ));
            };
            Ok(Type::new(x.dtype, row.to_vec()).listed())
        }
        ListOp::Flatten => {
            if x.list < 2 {
                return Err(format!(
                    "takes a list of lists (depth 2 or more), got {}",
                    depth_word(x)
                ));
            }
            Ok(x.element().strong())
        }
        ListOp::Nest => Err("expects 2 arguments (X L), got 1".into()),
        ListOp::CompressInnermost => Err("expects 2 arguments (MASK L), got 1".into()),
    }
}

/// `(compress_innermost MASK L)`: L's innermost tensors where MASK holds,
/// L's nesting kept: L's type. That MASK has one entry per innermost
/// tensor is checked when it runs.
fn compress_innermost(m: &Type, l: &Type) -> Result<Type, String> {
    if m.is_list() || m.dtype != DType::Bool || m.ndim() != 1 {
        return Err(format!(
            "takes a bool vector as its mask (one entry per innermost tensor), got {m}"
        ));
    }
    if !l.is_list() {
        return Err(format!("takes a list (argument 2), got the tensor {l}"));
    }
    Ok(l.clone().strong())
}

/// `(nest X L)`: X's tensors (the rows of a tensor, or the innermost
/// tensors of a list) in L's nesting: a list of L's depth whose
/// innermost tensors are X's. How many X holds is checked when it runs.
fn nest(x: &Type, l: &Type) -> Result<Type, String> {
    if !l.is_list() {
        return Err(format!(
            "takes its nesting from a list (argument 2), got the tensor {l}"
        ));
    }
    let inner = if x.is_list() {
        Type::new(x.dtype, x.shape.clone())
    } else {
        match x.shape.split_first() {
            Some((_, row)) => Type::new(x.dtype, row.to_vec()),
            None => {
                return Err(format!(
                    "needs a list or an array with a leading axis (argument 1), got the scalar {x}"
                ))
            }
        }
    };
    let mut t = inner;
    t.list = l.list;
    Ok(t)
}

/// `(compress MASK L)` on a list: the elements of L (at its outermost
/// depth) where the bool vector MASK holds (`filter` over a list of
/// lists keeps whole elements).
fn compress(args: &[&Type]) -> Result<Type, String> {
    let (m, l) = (args[0], args[1]);
    if m.is_list() || m.dtype != DType::Bool || m.ndim() != 1 {
        return Err(format!(
            "of a list takes a bool vector as its mask (one entry per element), got {m}"
        ));
    }
    Ok(l.clone().strong())
}

/// `(index L I)`: one element of L; I an integer scalar.
fn index(args: &[&Type]) -> Result<Type, String> {
    let [l, i] = args else {
        return Err(format!(
            "of a list takes one index, got {}",
            args.len().saturating_sub(1)
        ));
    };
    if i.is_list() || i.ndim() != 0 || !i.dtype.is_int() {
        return Err(format!(
            "the index of a list must be an integer scalar, got {i}"
        ));
    }
    Ok(l.element().strong())
}

/// `(stack L)`: a list of tensors as one tensor with a new axis 0 of the
/// list's length.
fn stack(l: &Type) -> Result<Type, String> {
    if l.list != 1 {
        return Err(format!(
            "takes a list of tensors, got the list of lists {l}; flatten it first"
        ));
    }
    let mut shape = vec![Dim::Unknown];
    shape.extend(l.shape.iter().cloned());
    Ok(Type::new(l.dtype, shape))
}

fn depth_word(x: &Type) -> String {
    if x.is_list() {
        format!("the list of tensors {x}")
    } else {
        format!("the tensor {x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vec4() -> Type {
        Type::new(DType::F64, vec![Dim::known(4)])
    }

    #[test]
    fn list_ops_type() {
        let l1 = vec4().listed();
        let l2 = l1.clone().listed();
        let len = list_rule(&Op::List(ListOp::Len), &[&l2]).unwrap().unwrap();
        assert_eq!(len, Type::scalar(DType::I64));
        let flat = list_rule(&Op::List(ListOp::Flatten), &[&l2])
            .unwrap()
            .unwrap();
        assert_eq!(flat, l1);
        let i = Type::scalar(DType::I64);
        let el = list_rule(&Op::Index, &[&l2, &i]).unwrap().unwrap();
        assert_eq!(el, l1);
        let st = list_rule(&Op::Stack, &[&l1]).unwrap().unwrap();
        assert_eq!(st.shape, vec![Dim::Unknown, Dim::known(4)]);
        let m = Type::new(DType::F32, vec![Dim::sym("T"), Dim::known(3)]);
        let un = list_rule(&Op::List(ListOp::Unstack), &[&m])
            .unwrap()
            .unwrap();
        assert_eq!(un.list, 1);
        assert_eq!(un.shape, vec![Dim::known(3)]);
    }

    #[test]
    fn lists_refused_where_tensors_are_required() {
        let l1 = vec4().listed();
        let e = list_rule(&Op::Unary(crate::lang::UnaryOp::Exp), &[&l1]).unwrap_err();
        assert!(e.contains("where a tensor is required"), "{e}");
        assert!(list_rule(&Op::List(ListOp::Flatten), &[&l1]).is_err());
        assert!(list_rule(&Op::Stack, &[&l1.clone().listed()]).is_err());
        let f = Type::scalar(DType::F64);
        assert!(list_rule(&Op::Index, &[&l1, &f]).is_err());
        assert!(list_rule(&Op::List(ListOp::Unstack), &[&l1]).is_err());
        assert_eq!(list_rule(&Op::Stack, &[&vec4()]).unwrap(), None);
    }
}
