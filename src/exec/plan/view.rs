//! Borrowed values and views: how a value that lives in someone else's
//! storage is found and read.
//!
//! Owns: [`ValView`] (a read-only view of any dtype), [`VStep`] (one
//! concrete layout step: permute, take a row, slice axis 0, insert an axis,
//! reshape contiguous data, reverse an axis, drop a length-1 axis), [`Loc`] (where a value lives: a root — a graph
//! parameter or one of the plan's slots — and the steps from the root to
//! the value) and applying steps to a root. Applying steps never copies
//! and, for arrays of up to four axes, never allocates.
//! Must not: decide when a view is legal (the planner and the runtime do,
//! before recording the steps) or write data.

use crate::exec::value::{Elem, Value};
use crate::lang::DType;
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};

/// A read-only view of a runtime tensor of any dtype.
#[derive(Clone, Debug)]
pub enum ValView<'a> {
    /// `f64` data
    F64(ArrayViewD<'a, f64>),
    /// `f32` data
    F32(ArrayViewD<'a, f32>),
    /// `i64` data
    I64(ArrayViewD<'a, i64>),
    /// `i32` data
    I32(ArrayViewD<'a, i32>),
    /// `bool` data
    Bool(ArrayViewD<'a, bool>),
}

/// Runs `$body` with `$a` bound to the typed view inside a [`ValView`].
macro_rules! with_view {
    ($v:expr, $a:ident => $body:expr) => {
        match $v {
            $crate::exec::plan::view::ValView::F64($a) => $body,
            $crate::exec::plan::view::ValView::F32($a) => $body,
            $crate::exec::plan::view::ValView::I64($a) => $body,
            $crate::exec::plan::view::ValView::I32($a) => $body,
            $crate::exec::plan::view::ValView::Bool($a) => $body,
        }
    };
}
pub(crate) use with_view;

/// Element types that can be read out of a [`ValView`].
pub trait ViewElem: Elem {
    /// The typed view if `v` has this dtype.
    fn of_view<'a>(v: &ValView<'a>) -> Option<ArrayViewD<'a, Self>>;
    /// Wraps a typed view.
    fn wrap_view(a: ArrayViewD<'_, Self>) -> ValView<'_>;
}

macro_rules! view_elem {
    ($t:ty, $var:ident) => {
        impl ViewElem for $t {
            fn of_view<'a>(v: &ValView<'a>) -> Option<ArrayViewD<'a, $t>> {
                match v {
                    ValView::$var(a) => Some(a.clone()),
                    _ => None,
                }
            }
            fn wrap_view(a: ArrayViewD<'_, $t>) -> ValView<'_> {
                ValView::$var(a)
            }
        }
    };
}
view_elem!(f64, F64);
view_elem!(f32, F32);
view_elem!(i64, I64);
view_elem!(i32, I32);
view_elem!(bool, Bool);

impl<'a> ValView<'a> {
    /// A view of a whole value.
    pub fn of(v: &'a Value) -> ValView<'a> {
        match v {
            Value::F64(a) => ValView::F64(a.view()),
            Value::F32(a) => ValView::F32(a.view()),
            Value::I64(a) => ValView::I64(a.view()),
            Value::I32(a) => ValView::I32(a.view()),
            Value::Bool(a) => ValView::Bool(a.view()),
        }
    }

    /// The same view, borrowed for a shorter time (views are invariant
    /// in their lifetime, so this is how one is handed out through `&self`).
    pub fn reborrow(&self) -> ValView<'_> {
        match self {
            ValView::F64(a) => ValView::F64(a.view()),
            ValView::F32(a) => ValView::F32(a.view()),
            ValView::I64(a) => ValView::I64(a.view()),
            ValView::I32(a) => ValView::I32(a.view()),
            ValView::Bool(a) => ValView::Bool(a.view()),
        }
    }

    /// Row `i` of axis 0, if there is one.
    pub fn row(&self, i: usize) -> Option<ValView<'_>> {
        if self.ndim() == 0 || i >= self.shape()[0] {
            return None;
        }
        Some(match self {
            ValView::F64(a) => ValView::F64(a.view().index_axis_move(Axis(0), i)),
            ValView::F32(a) => ValView::F32(a.view().index_axis_move(Axis(0), i)),
            ValView::I64(a) => ValView::I64(a.view().index_axis_move(Axis(0), i)),
            ValView::I32(a) => ValView::I32(a.view().index_axis_move(Axis(0), i)),
            ValView::Bool(a) => ValView::Bool(a.view().index_axis_move(Axis(0), i)),
        })
    }

    /// Row `i` of axis 0, if there is one, keeping the view's lifetime.
    pub fn into_row(self, i: usize) -> Option<ValView<'a>> {
        if self.ndim() == 0 || i >= self.shape()[0] {
            return None;
        }
        Some(match self {
            ValView::F64(a) => ValView::F64(a.index_axis_move(Axis(0), i)),
            ValView::F32(a) => ValView::F32(a.index_axis_move(Axis(0), i)),
            ValView::I64(a) => ValView::I64(a.index_axis_move(Axis(0), i)),
            ValView::I32(a) => ValView::I32(a.index_axis_move(Axis(0), i)),
            ValView::Bool(a) => ValView::Bool(a.index_axis_move(Axis(0), i)),
        })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            ValView::F64(_) => DType::F64,
            ValView::F32(_) => DType::F32,
            ValView::I64(_) => DType::I64,
            ValView::I32(_) => DType::I32,
            ValView::Bool(_) => DType::Bool,
        }
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        with_view!(self, a => a.shape())
    }

    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_view!(self, a => a.len())
    }

    /// True when the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when the data is row-major and contiguous.
    pub fn is_standard_layout(&self) -> bool {
        with_view!(self, a => a.is_standard_layout())
    }

    /// An owned copy (row-major).
    pub fn to_value(&self) -> Value {
        match self {
            ValView::F64(a) => Value::F64(a.to_owned()),
            ValView::F32(a) => Value::F32(a.to_owned()),
            ValView::I64(a) => Value::I64(a.to_owned()),
            ValView::I32(a) => Value::I32(a.to_owned()),
            ValView::Bool(a) => Value::Bool(a.to_owned()),
        }
    }

    /// The single element as `i64` when the view is `i64` with exactly one
    /// element (what an index argument must be).
    pub fn index_scalar(&self) -> Option<i64> {
        match self {
            ValView::I64(a) if a.len() == 1 => a.iter().next().copied(),
            ValView::I32(a) if a.len() == 1 => a.iter().next().map(|&i| i64::from(i)),
            _ => None,
        }
    }

    /// The view after `steps`, or `None` when a step does not fit the
    /// layout (the caller reports an internal error; the runtime checks
    /// every step when it records it).
    pub fn apply(self, steps: &[VStep]) -> Option<ValView<'a>> {
        if steps.is_empty() {
            return Some(self);
        }
        Some(match self {
            ValView::F64(a) => ValView::F64(apply_steps(a, steps)?),
            ValView::F32(a) => ValView::F32(apply_steps(a, steps)?),
            ValView::I64(a) => ValView::I64(apply_steps(a, steps)?),
            ValView::I32(a) => ValView::I32(apply_steps(a, steps)?),
            ValView::Bool(a) => ValView::Bool(apply_steps(a, steps)?),
        })
    }
}

/// One layout step from a root to a view of it. Every step keeps the
/// data where it is.
#[derive(Clone, Debug, PartialEq)]
pub enum VStep {
    /// Permute the axes (a valid permutation of the current axes).
    Permute(IxDyn),
    /// Take row `i` of axis 0.
    Row(usize),
    /// Slice axis 0 (bounds already normalized and in range).
    Slice(Slice),
    /// Insert a length-1 axis at this position.
    Insert(usize),
    /// Reshape row-major contiguous data.
    Reshape(IxDyn),
    /// Reverse this axis.
    Flip(usize),
    /// Drop this axis (of length 1).
    Remove(usize),
}

/// Applies layout steps to a typed view; `None` when a step does not fit.
pub fn apply_steps<'a, T>(mut v: ArrayViewD<'a, T>, steps: &[VStep]) -> Option<ArrayViewD<'a, T>> {
    for s in steps {
        v = match s {
            VStep::Permute(p) => {
                if p.ndim() != v.ndim() || !is_permutation(p.slice()) {
                    return None;
                }
                v.permuted_axes(p.clone())
            }
            VStep::Row(i) => {
                if v.ndim() == 0 || *i >= v.shape()[0] {
                    return None;
                }
                v.index_axis_move(Axis(0), *i)
            }
            VStep::Slice(sl) => {
                if v.ndim() == 0 || !slice_fits(sl, v.shape()[0]) {
                    return None;
                }
                v.slice_axis_inplace(Axis(0), *sl);
                v
            }
            VStep::Insert(ax) => {
                if *ax > v.ndim() {
                    return None;
                }
                v.insert_axis(Axis(*ax))
            }
            VStep::Reshape(shape) => {
                if shape.size_checked() != Some(v.len()) {
                    return None;
                }
                v.into_shape_with_order(shape.clone()).ok()?
            }
            VStep::Flip(ax) => {
                if *ax >= v.ndim() {
                    return None;
                }
                v.invert_axis(Axis(*ax));
                v
            }
            VStep::Remove(ax) => {
                if *ax >= v.ndim() || v.shape()[*ax] != 1 {
                    return None;
                }
                v.index_axis_move(Axis(*ax), 0)
            }
        };
    }
    Some(v)
}

/// True when `p` holds each of `0..p.len()` once.
pub fn is_permutation(p: &[usize]) -> bool {
    let n = p.len();
    // Quadratic but allocation-free; permutations are short.
    p.iter().all(|&a| a < n) && (0..n).all(|i| p[..i].iter().all(|&b| b != p[i]))
}

/// True when `sl` selects in range of an axis of length `len` (the form
/// the slice kernel's conversion produces: `start <= end <= len`).
fn slice_fits(sl: &Slice, len: usize) -> bool {
    let end = sl.end.unwrap_or(len as isize);
    sl.step != 0 && sl.start >= 0 && sl.start <= end && end <= len as isize
}

use ndarray::Dimension;

/// Where a value is: which storage holds it, and how to see it there.
#[derive(Clone, Debug, Default)]
pub struct Loc {
    /// The storage.
    pub root: Root,
    /// The steps from the root's whole value to this value.
    pub steps: Vec<VStep>,
}

impl Loc {
    /// Points this location at the whole of `root` (keeps the steps'
    /// capacity, so the runtime can reuse it without allocating).
    pub fn set_whole(&mut self, root: Root) {
        self.root = root;
        self.steps.clear();
    }
}

/// The storage a value lives in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Root {
    /// Not computed in this run.
    #[default]
    Unset,
    /// The k-th parameter of the graph (the caller's, never written).
    Param(usize),
    /// A slot of the plan.
    Slot(usize),
}

/// Copies `src` into `dst` (same shape), converting elements as
/// `numpy.astype` does when the dtypes differ. Returns false when the
/// shapes differ.
pub fn copy_into(dst: &mut Value, src: &ValView<'_>) -> bool {
    fn put<T: Elem>(d: &mut ArrayD<T>, s: &ValView<'_>) -> bool {
        if d.shape() != s.shape() {
            return false;
        }
        with_view!(s, a => d.zip_mut_with(a, |x, y| *x = y.cast::<T>()));
        true
    }
    match dst {
        Value::F64(d) => put(d, src),
        Value::F32(d) => put(d, src),
        Value::I64(d) => put(d, src),
        Value::I32(d) => put(d, src),
        Value::Bool(d) => put(d, src),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    #[test]
    fn steps_compose_without_copying() {
        let v = Value::F64(
            Array::from_shape_vec(IxDyn(&[2, 3]), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]).unwrap(),
        );
        let base = ValView::of(&v);
        let t = base
            .clone()
            .apply(&[VStep::Permute(IxDyn(&[1, 0])), VStep::Row(2)])
            .unwrap();
        assert_eq!(
            t.to_value(),
            Value::F64(ndarray::array![2.0, 5.0].into_dyn())
        );
        let r = base
            .clone()
            .apply(&[
                VStep::Reshape(IxDyn(&[3, 2])),
                VStep::Slice(Slice::new(0, Some(3), -2)),
            ])
            .unwrap();
        assert_eq!(
            r.to_value(),
            Value::F64(ndarray::array![[4.0, 5.0], [0.0, 1.0]].into_dyn())
        );
        // a reshape of non-contiguous data is refused, not copied
        assert!(base
            .clone()
            .apply(&[VStep::Permute(IxDyn(&[1, 0])), VStep::Reshape(IxDyn(&[6]))])
            .is_none());
        assert!(base.clone().apply(&[VStep::Row(2)]).is_none());
        assert!(base.apply(&[VStep::Permute(IxDyn(&[0, 0]))]).is_none());
        let ptr = match ValView::of(&v) {
            ValView::F64(a) => a.as_ptr(),
            _ => unreachable!(),
        };
        match ValView::of(&v).apply(&[VStep::Insert(0), VStep::Row(0)]) {
            Some(ValView::F64(a)) => assert_eq!(a.as_ptr(), ptr),
            _ => panic!("expected an f64 view"),
        }
    }
}
