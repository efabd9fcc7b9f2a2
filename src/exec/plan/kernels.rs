//! Kernels that write into output storage the plan keeps across calls.
//!
//! Owns: [`fast`], the allocation-free paths of the hot ops — elementwise
//! unary, binary, comparison and `where` on `f64`/`f32` (a 0-D operand of
//! any dtype is read as a scalar; an operand may be the destination
//! itself, for in-place runs), `dot`/`matmul` of 1-D and 2-D floats,
//! `zeros_like`, and the increments `inc_index`/`inc_slice` (in place
//! when the planner lets them overwrite their operand) —
//! and [`ensure`], which shapes a slot's storage for a result, reusing its
//! buffer. Each path computes exactly what the reference kernel in
//! [`crate::exec::ops`] computes (the same element functions, the same
//! matrix routines), so results agree bit for bit; anything else — other
//! dtypes, runtime shape errors, empty matrix products — answers "not
//! handled" and the runtime calls the reference kernel instead.
//! Must not: report errors (the reference kernel words them), or allocate
//! once a slot has reached its size.

use super::view::{ValView, ViewElem};
use crate::exec::ops::elementwise::{Arith, Float};
use crate::exec::ops::linalg::Gemm;
use crate::exec::ops::shape::index_position;
use crate::exec::ops::update::{check_fits, write_into, Part, Write};
use crate::exec::value::{checked_len, Elem, Value};
use crate::lang::{BinaryOp, CompareOp, DType, Op, UnaryOp};
use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, Dimension, Ix1, Ix2, IxDyn, Zip};

/// One argument of a kernel: a view, or the destination's current value
/// (the argument the node overwrites in place).
#[derive(Clone, Debug)]
pub enum Arg<'a> {
    /// The destination slot holds this argument.
    Dest,
    /// Read-only data elsewhere.
    View(ValView<'a>),
}

/// Shapes `dest` to hold a `T` array of `shape`, reusing its buffer (the
/// contents are left unspecified). `None` when the size is absurd or
/// memory cannot be reserved; the reference kernel then reports it.
pub fn ensure<'v, T: Elem>(
    dest: &'v mut Option<Value>,
    shape: &[usize],
) -> Option<&'v mut ArrayD<T>> {
    let fits = matches!(
        dest.as_ref().and_then(T::peek),
        Some(a) if a.shape() == shape && a.is_standard_layout()
    );
    if !fits {
        let n = checked_len(shape, T::DTYPE).ok()?;
        let mut data: Vec<T> = match dest.take().map(T::unwrap) {
            Some(Ok(a)) => a.into_raw_vec_and_offset().0,
            _ => Vec::new(),
        };
        if n > data.len() {
            data.try_reserve_exact(n - data.len()).ok()?;
        }
        data.resize(n, T::zero());
        *dest = Some(T::wrap(ArrayD::from_shape_vec(IxDyn(shape), data).ok()?));
    }
    dest.as_mut().and_then(T::peek_mut)
}

/// An operand of an elementwise kernel over `T`.
pub enum Opnd<'a, T> {
    /// The destination's current value.
    Dest,
    /// A 0-D operand, converted as `astype` does.
    Scalar(T),
    /// An array of the computation dtype.
    Arr(ArrayViewD<'a, T>),
}

/// The operand an argument gives a kernel over `T`, if it can.
pub fn opnd<'a, T: ViewElem>(a: &Arg<'a>) -> Option<Opnd<'a, T>> {
    match a {
        Arg::Dest => Some(Opnd::Dest),
        Arg::View(v) if v.ndim() == 0 => {
            crate::exec::plan::view::with_view!(v, x => x.first().map(|e| Opnd::Scalar(e.cast::<T>())))
        }
        Arg::View(v) => T::of_view(v).map(Opnd::Arr),
    }
}

fn opnd_shape<'s, T>(o: &'s Opnd<'_, T>, dest: &'s [usize]) -> &'s [usize] {
    match o {
        Opnd::Dest => dest,
        Opnd::Scalar(_) => &[],
        Opnd::Arr(a) => a.shape(),
    }
}

/// NumPy broadcasting of runtime shapes, without allocating for up to
/// four axes; `None` when they do not broadcast.
pub fn broadcast(shapes: &[&[usize]]) -> Option<IxDyn> {
    let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = IxDyn::zeros(n);
    for k in 0..n {
        out[k] = 1;
    }
    for s in shapes {
        let off = n - s.len();
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[off + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return None;
            }
        }
    }
    Some(out)
}

/// The data of `a` as a slice when it is contiguous, row-major and of
/// `shape` (no broadcasting): the plain loops below then apply.
fn flat<'a, T>(a: &'a ArrayViewD<'_, T>, shape: &[usize]) -> Option<&'a [T]> {
    if a.shape() == shape {
        a.as_slice()
    } else {
        None
    }
}

/// `out = f(x)` elementwise (x broadcast to `out`'s shape).
fn map1<T: Copy>(mut out: ArrayViewMutD<'_, T>, x: &Opnd<'_, T>, f: impl Fn(T) -> T) {
    let fx = match x {
        Opnd::Arr(a) => flat(a, out.shape()),
        _ => None,
    };
    match (x, fx, out.as_slice_mut()) {
        (Opnd::Dest, _, Some(o)) => o.iter_mut().for_each(|v| *v = f(*v)),
        (Opnd::Dest, _, None) => out.mapv_inplace(f),
        (Opnd::Scalar(s), ..) => out.fill(f(*s)),
        (Opnd::Arr(_), Some(a), Some(o)) => o.iter_mut().zip(a).for_each(|(v, &w)| *v = f(w)),
        (Opnd::Arr(a), ..) => Zip::from(out).and_broadcast(a).for_each(|o, &v| *o = f(v)),
    }
}

/// An operand of [`map2_contig`]: the destination, a scalar, contiguous
/// data of the result's shape, or contiguous data of a suffix of it that
/// repeats every row (a bias added to each row of a matrix).
#[derive(Clone, Copy)]
enum Contig<'a, T> {
    Dest,
    Scalar(T),
    Full(&'a [T]),
    Repeats(&'a [T]),
}

/// How `x` covers contiguous output of `shape`, if it does.
fn contig<'a, T: Copy>(x: &'a Opnd<'_, T>, shape: &[usize]) -> Option<Contig<'a, T>> {
    match x {
        Opnd::Dest => Some(Contig::Dest),
        Opnd::Scalar(s) => Some(Contig::Scalar(*s)),
        Opnd::Arr(a) => {
            let data = a.as_slice()?;
            if a.shape() == shape {
                return Some(Contig::Full(data));
            }
            // Leading unit axes do not change the layout.
            let own: &[usize] = {
                let lead = a.shape().iter().take_while(|&&d| d == 1).count();
                &a.shape()[lead..]
            };
            (own.len() < shape.len() && shape.ends_with(own)).then_some(Contig::Repeats(data))
        }
    }
}

/// One operand of a row: its slice, or a scalar.
#[derive(Clone, Copy)]
enum RowSrc<'a, T> {
    Dest,
    Scalar(T),
    Slice(&'a [T]),
}

/// `o = f(x, y)` over one contiguous row.
#[inline(always)]
fn zip_row<T: Copy>(o: &mut [T], x: RowSrc<'_, T>, y: RowSrc<'_, T>, f: &impl Fn(T, T) -> T) {
    use RowSrc::*;
    match (x, y) {
        (Dest, Dest) => o.iter_mut().for_each(|v| *v = f(*v, *v)),
        (Dest, Scalar(s)) => o.iter_mut().for_each(|v| *v = f(*v, s)),
        (Scalar(s), Dest) => o.iter_mut().for_each(|v| *v = f(s, *v)),
        (Dest, Slice(b)) => o.iter_mut().zip(b).for_each(|(v, &w)| *v = f(*v, w)),
        (Slice(a), Dest) => o.iter_mut().zip(a).for_each(|(v, &w)| *v = f(w, *v)),
        (Scalar(s), Scalar(t)) => o.fill(f(s, t)),
        (Slice(a), Scalar(s)) => o.iter_mut().zip(a).for_each(|(v, &w)| *v = f(w, s)),
        (Scalar(s), Slice(b)) => o.iter_mut().zip(b).for_each(|(v, &w)| *v = f(s, w)),
        (Slice(a), Slice(b)) => o
            .iter_mut()
            .zip(a.iter().zip(b))
            .for_each(|(v, (&p, &q))| *v = f(p, q)),
    }
}

/// `out = f(x, y)` when the result and every array operand are contiguous,
/// each operand of the result's shape or repeating a suffix of it; false
/// otherwise (nothing is written).
fn map2_contig<T: Copy>(
    out: &mut ArrayViewMutD<'_, T>,
    x: &Opnd<'_, T>,
    y: &Opnd<'_, T>,
    f: &impl Fn(T, T) -> T,
) -> bool {
    let (Some(cx), Some(cy)) = (contig(x, out.shape()), contig(y, out.shape())) else {
        return false;
    };
    let Some(o) = out.as_slice_mut() else {
        return false;
    };
    // The row length: the repeating operands' length (they must agree),
    // else the whole result.
    let period = match (cx, cy) {
        (Contig::Repeats(a), Contig::Repeats(b)) if a.len() != b.len() => return false,
        (Contig::Repeats(a), _) | (_, Contig::Repeats(a)) => a.len(),
        _ => o.len(),
    };
    if period == 0 || o.len() % period != 0 {
        return o.is_empty();
    }
    for (k, r) in o.chunks_exact_mut(period).enumerate() {
        zip_row(r, row_of(cx, k, period), row_of(cy, k, period), f);
    }
    true
}

/// Row `k` (of `period` elements) of an operand.
fn row_of<T>(c: Contig<'_, T>, k: usize, period: usize) -> RowSrc<'_, T> {
    match c {
        Contig::Dest => RowSrc::Dest,
        Contig::Scalar(s) => RowSrc::Scalar(s),
        Contig::Full(d) => RowSrc::Slice(&d[k * period..(k + 1) * period]),
        Contig::Repeats(d) => RowSrc::Slice(d),
    }
}

/// `out = f(x, y)` elementwise with broadcasting; either operand may be
/// the destination.
fn map2<T: Copy>(
    mut out: ArrayViewMutD<'_, T>,
    x: &Opnd<'_, T>,
    y: &Opnd<'_, T>,
    f: impl Fn(T, T) -> T,
) {
    use Opnd::*;
    if map2_contig(&mut out, x, y, &f) {
        return;
    }
    match (x, y) {
        (Dest, Dest) => out.mapv_inplace(|v| f(v, v)),
        (Dest, Scalar(s)) => out.mapv_inplace(|v| f(v, *s)),
        (Scalar(s), Dest) => out.mapv_inplace(|v| f(*s, v)),
        (Dest, Arr(b)) => Zip::from(out)
            .and_broadcast(b)
            .for_each(|o, &v| *o = f(*o, v)),
        (Arr(a), Dest) => Zip::from(out)
            .and_broadcast(a)
            .for_each(|o, &v| *o = f(v, *o)),
        (Scalar(s), Scalar(t)) => out.fill(f(*s, *t)),
        (Arr(a), Scalar(s)) => Zip::from(out)
            .and_broadcast(a)
            .for_each(|o, &v| *o = f(v, *s)),
        (Scalar(s), Arr(b)) => Zip::from(out)
            .and_broadcast(b)
            .for_each(|o, &v| *o = f(*s, v)),
        (Arr(a), Arr(b)) => Zip::from(out)
            .and_broadcast(a)
            .and_broadcast(b)
            .for_each(|o, &v, &w| *o = f(v, w)),
    }
}

/// True when an operand of shape `a` broadcasts to exactly `target`.
fn broadcasts_to(a: &[usize], target: &[usize]) -> bool {
    a.len() <= target.len()
        && a.iter()
            .rev()
            .zip(target.iter().rev())
            .all(|(&d, &t)| d == t || d == 1)
}

/// The result array of an elementwise op over `x` and `y`: the
/// destination itself when an operand is the destination (the other must
/// broadcast to its shape), else the destination shaped for the result.
fn out2<'v, T: Elem>(
    dest: &'v mut Option<Value>,
    x: &Opnd<'_, T>,
    y: &Opnd<'_, T>,
) -> Option<&'v mut ArrayD<T>> {
    if matches!(x, Opnd::Dest) || matches!(y, Opnd::Dest) {
        let d = dest.as_mut().and_then(T::peek_mut)?;
        let fits = |o: &Opnd<'_, T>| match o {
            Opnd::Arr(a) => broadcasts_to(a.shape(), d.shape()),
            _ => true,
        };
        if !fits(x) || !fits(y) {
            return None;
        }
        return Some(d);
    }
    let sx: &[usize] = match x {
        Opnd::Arr(a) => a.shape(),
        _ => &[],
    };
    let sy: &[usize] = match y {
        Opnd::Arr(a) => a.shape(),
        _ => &[],
    };
    if sx == sy || sy.is_empty() {
        ensure::<T>(dest, sx)
    } else if sx.is_empty() {
        ensure::<T>(dest, sy)
    } else {
        let b = broadcast(&[sx, sy])?;
        ensure::<T>(dest, b.slice())
    }
}

/// `out = f(x, y)` into an array of another element type (no operand is
/// the destination).
fn map2_to<T: Copy, O: Clone>(
    out: &mut ArrayD<O>,
    x: &Opnd<'_, T>,
    y: &Opnd<'_, T>,
    f: impl Fn(T, T) -> O,
) -> bool {
    use Opnd::*;
    match (x, y) {
        (Dest, _) | (_, Dest) => return false,
        (Scalar(s), Scalar(t)) => out.fill(f(*s, *t)),
        (Arr(a), Scalar(s)) => Zip::from(out)
            .and_broadcast(a)
            .for_each(|o, &v| *o = f(v, *s)),
        (Scalar(s), Arr(b)) => Zip::from(out)
            .and_broadcast(b)
            .for_each(|o, &v| *o = f(*s, v)),
        (Arr(a), Arr(b)) => Zip::from(out)
            .and_broadcast(a)
            .and_broadcast(b)
            .for_each(|o, &v, &w| *o = f(v, w)),
    }
    true
}

/// `out = op(x)` for a float unary op (the reference kernel's element
/// function), `x` broadcast to `out`.
pub fn apply_unary<T: Float>(op: UnaryOp, mut out: ArrayViewMutD<'_, T>, x: &Opnd<'_, T>) {
    // Contiguous data of the result's shape: the slice kernels (SIMD where
    // the op has one).
    match x {
        Opnd::Dest => {
            if let Some(o) = out.as_slice_mut() {
                return T::unary_inplace(op, o);
            }
        }
        Opnd::Arr(a) => {
            if let (Some(src), Some(o)) = (flat(a, out.shape()), out.as_slice_mut()) {
                return T::unary_slice(op, src, o);
            }
        }
        Opnd::Scalar(_) => {}
    }
    match op {
        UnaryOp::Neg => map1(out, x, Arith::neg),
        UnaryOp::Abs => map1(out, x, Arith::abs),
        UnaryOp::Sign => map1(out, x, Arith::sign),
        _ => map1(out, x, |v| v.unary(op)),
    }
}

/// `out = op(x, y)` for a float binary op, operands broadcast to `out`
/// (either may be `out` itself).
pub fn apply_binary<T: Float>(
    op: BinaryOp,
    out: ArrayViewMutD<'_, T>,
    x: &Opnd<'_, T>,
    y: &Opnd<'_, T>,
) {
    match op {
        BinaryOp::Add => map2(out, x, y, Arith::add),
        BinaryOp::Sub => map2(out, x, y, Arith::sub),
        BinaryOp::Mul => map2(out, x, y, Arith::mul),
        BinaryOp::Div => map2(out, x, y, Float::div),
        BinaryOp::Pow => map2(out, x, y, Arith::pow),
        BinaryOp::Maximum => map2(out, x, y, Arith::maximum),
        BinaryOp::Minimum => map2(out, x, y, Arith::minimum),
        BinaryOp::Mod => map2(out, x, y, Arith::modulo),
        BinaryOp::FloorDiv => map2(out, x, y, Arith::floor_div),
    }
}

fn unary_f<T: Float + ViewElem>(op: UnaryOp, x: &Arg<'_>, dest: &mut Option<Value>) -> bool {
    let Some(x) = opnd::<T>(x) else { return false };
    let out = match &x {
        Opnd::Dest => dest.as_mut().and_then(T::peek_mut),
        Opnd::Scalar(_) => ensure::<T>(dest, &[]),
        Opnd::Arr(a) => ensure::<T>(dest, a.shape()),
    };
    let Some(out) = out else { return false };
    apply_unary(op, out.view_mut(), &x);
    true
}

fn binary_f<T: Float + ViewElem>(
    op: BinaryOp,
    a: &Arg<'_>,
    b: &Arg<'_>,
    dest: &mut Option<Value>,
) -> bool {
    let (Some(x), Some(y)) = (opnd::<T>(a), opnd::<T>(b)) else {
        return false;
    };
    let Some(out) = out2(dest, &x, &y) else {
        return false;
    };
    apply_binary(op, out.view_mut(), &x, &y);
    true
}

fn compare_f<T: Float + ViewElem>(
    op: CompareOp,
    a: &Arg<'_>,
    b: &Arg<'_>,
    dest: &mut Option<Value>,
) -> bool {
    let (Some(x), Some(y)) = (opnd::<T>(a), opnd::<T>(b)) else {
        return false;
    };
    let Some(shape) = broadcast(&[opnd_shape(&x, &[]), opnd_shape(&y, &[])]) else {
        return false;
    };
    if matches!(x, Opnd::Dest) || matches!(y, Opnd::Dest) {
        return false;
    }
    let Some(out) = ensure::<bool>(dest, shape.slice()) else {
        return false;
    };
    match op {
        CompareOp::Gt => map2_to(out, &x, &y, |v, w| v > w),
        CompareOp::Ge => map2_to(out, &x, &y, |v, w| v >= w),
        CompareOp::Lt => map2_to(out, &x, &y, |v, w| v < w),
        CompareOp::Le => map2_to(out, &x, &y, |v, w| v <= w),
        CompareOp::Eq => map2_to(out, &x, &y, |v, w| v == w),
        CompareOp::Ne => map2_to(out, &x, &y, |v, w| v != w),
    }
}

/// A 0-D view of a scalar operand (kept in `cell`), or the operand's view.
fn view_of<'r, T: Copy>(o: &'r Opnd<'_, T>, cell: &'r [T; 1]) -> Option<ArrayViewD<'r, T>> {
    match o {
        Opnd::Arr(v) => Some(v.view()),
        Opnd::Scalar(_) => ArrayViewD::from_shape(IxDyn(&[]), &cell[..]).ok(),
        Opnd::Dest => None,
    }
}

fn scalar_of<T: Elem>(o: &Opnd<'_, T>) -> T {
    match o {
        Opnd::Scalar(s) => *s,
        _ => T::zero(),
    }
}

fn where_f<T: Float + ViewElem>(
    c: &Arg<'_>,
    a: &Arg<'_>,
    b: &Arg<'_>,
    dest: &mut Option<Value>,
) -> bool {
    let (Some(c), Some(x), Some(y)) = (opnd::<bool>(c), opnd::<T>(a), opnd::<T>(b)) else {
        return false;
    };
    let cells = ([scalar_of(&c)], [scalar_of(&x)], [scalar_of(&y)]);
    let (Some(cv), Some(xv), Some(yv)) = (
        view_of(&c, &cells.0),
        view_of(&x, &cells.1),
        view_of(&y, &cells.2),
    ) else {
        return false;
    };
    let Some(shape) = broadcast(&[cv.shape(), xv.shape(), yv.shape()]) else {
        return false;
    };
    let Some(out) = ensure::<T>(dest, shape.slice()) else {
        return false;
    };
    Zip::from(out)
        .and_broadcast(&cv)
        .and_broadcast(&xv)
        .and_broadcast(&yv)
        .for_each(|o, &k, &v, &w| *o = if k { v } else { w });
    true
}

fn dot_f<T: Float + ViewElem + ndarray::LinalgScalar + Gemm>(
    a: &Arg<'_>,
    b: &Arg<'_>,
    dest: &mut Option<Value>,
) -> bool {
    let (Arg::View(a), Arg::View(b)) = (a, b) else {
        return false;
    };
    let (Some(a), Some(b)) = (T::of_view(a), T::of_view(b)) else {
        return false;
    };
    // Empty products and mismatched inner sizes go to the reference kernel.
    if a.is_empty() || b.is_empty() {
        return false;
    }
    match (a.ndim(), b.ndim()) {
        (2, 2) => {
            let (Ok(a), Ok(b)) = (
                a.into_dimensionality::<Ix2>(),
                b.into_dimensionality::<Ix2>(),
            ) else {
                return false;
            };
            if a.ncols() != b.nrows() {
                return false;
            }
            let Some(out) = ensure::<T>(dest, &[a.nrows(), b.ncols()]) else {
                return false;
            };
            let Ok(mut c) = out.view_mut().into_dimensionality::<Ix2>() else {
                return false;
            };
            T::gemm(&a, &b, &mut c);
        }
        (2, 1) => {
            let (Ok(a), Ok(x)) = (
                a.into_dimensionality::<Ix2>(),
                b.into_dimensionality::<Ix1>(),
            ) else {
                return false;
            };
            if a.ncols() != x.len() {
                return false;
            }
            let Some(out) = ensure::<T>(dest, &[a.nrows()]) else {
                return false;
            };
            let Ok(mut y) = out.view_mut().into_dimensionality::<Ix1>() else {
                return false;
            };
            T::gemv_into(&a, &x, &mut y);
        }
        (1, 2) => {
            let (Ok(x), Ok(b)) = (
                a.into_dimensionality::<Ix1>(),
                b.into_dimensionality::<Ix2>(),
            ) else {
                return false;
            };
            if b.nrows() != x.len() {
                return false;
            }
            let Some(out) = ensure::<T>(dest, &[b.ncols()]) else {
                return false;
            };
            let Ok(mut y) = out.view_mut().into_dimensionality::<Ix1>() else {
                return false;
            };
            T::gemv_into(&b.t(), &x, &mut y);
        }
        (1, 1) => {
            let (Ok(x), Ok(y)) = (
                a.into_dimensionality::<Ix1>(),
                b.into_dimensionality::<Ix1>(),
            ) else {
                return false;
            };
            if x.len() != y.len() {
                return false;
            }
            let Some(out) = ensure::<T>(dest, &[]) else {
                return false;
            };
            out.fill(T::inner(&x, &y));
        }
        _ => return false,
    }
    true
}

/// True for two views of at least 2 axes, one with more than 2: a
/// `matmul` over stacks of matrices.
fn batched_operands(a: &Arg<'_>, b: &Arg<'_>) -> bool {
    match (a, b) {
        (Arg::View(a), Arg::View(b)) => {
            let (na, nb) = (a.shape().len(), b.shape().len());
            na >= 2 && nb >= 2 && na.max(nb) > 2
        }
        _ => false,
    }
}

/// `dest = matmul(a, b)` for stacks of matrices whose batch axes
/// broadcast: one 2-D product per batch, each on sub-views of `a`, `b`
/// and `dest` (no copy of an operand), with the product the reference
/// kernel (`linalg::matmul`) runs on the same matrices: the same bits.
/// Empty operands and shapes that do not fit go to the reference kernel.
fn matmul_batched_f<T: Float + ViewElem + ndarray::LinalgScalar + Gemm>(
    a: &Arg<'_>,
    b: &Arg<'_>,
    dest: &mut Option<Value>,
) -> bool {
    let (Arg::View(a), Arg::View(b)) = (a, b) else {
        return false;
    };
    let (Some(a), Some(b)) = (T::of_view(a), T::of_view(b)) else {
        return false;
    };
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let (na, nb) = (a.ndim(), b.ndim());
    let (m, k) = (a.shape()[na - 2], a.shape()[na - 1]);
    let (k2, n) = (b.shape()[nb - 2], b.shape()[nb - 1]);
    if k != k2 {
        return false;
    }
    let Some(batch) = broadcast(&[&a.shape()[..na - 2], &b.shape()[..nb - 2]]) else {
        return false;
    };
    let full = |r: usize, c: usize| {
        let mut s = IxDyn::zeros(batch.ndim() + 2);
        for (i, d) in batch.slice().iter().enumerate() {
            s[i] = *d;
        }
        s[batch.ndim()] = r;
        s[batch.ndim() + 1] = c;
        s
    };
    let (Some(av), Some(bv)) = (a.broadcast(full(m, k)), b.broadcast(full(k, n))) else {
        return false;
    };
    let out_shape = full(m, n);
    let Some(out) = ensure::<T>(dest, out_shape.slice()) else {
        return false;
    };
    // A stack against one matrix, its rows one after another in memory
    // (X · W of every step at once): one product of (batch·m, k) rows.
    // When each batch's product already runs the packed kernel (the
    // kernel is chosen by shape, `gemm::is_small`), so does the merged
    // one, and each element of C is the same sum in the same order (the
    // kernel blocks k alike for every row): the batches' bits, with B
    // packed once instead of once per batch.
    if nb == 2 && a.ndim() == out_shape.ndim() && !crate::exec::ops::gemm::is_small(m, k, n) {
        let rows = a.len() / k.max(1);
        if let (Ok(x), Ok(y), Ok(mut z)) = (
            a.view().into_shape_with_order((rows, k)),
            b.view().into_dimensionality::<Ix2>(),
            out.view_mut().into_shape_with_order((rows, n)),
        ) {
            T::gemm(&x, &y, &mut z);
            return true;
        }
    }
    let dims = batch.slice();
    let n_batch: usize = dims.iter().product();
    // Batch `f`'s index along batch axis `axis` (row-major).
    let index = |f: usize, axis: usize| {
        let inner: usize = dims[axis + 1..].iter().product();
        (f / inner) % dims[axis]
    };
    // Batch `f`'s matrix of a batched operand.
    macro_rules! matrix {
        ($view:expr, $f:expr) => {{
            let mut v = $view;
            for axis in 0..dims.len() {
                v = v.index_axis_move(ndarray::Axis(0), index($f, axis));
            }
            v.into_dimensionality::<Ix2>().ok()
        }};
    }
    // The batches in the order of their `B` (where it lies), so that the
    // batches that share one (a stack of inputs against a stack of
    // weights broadcast over it) run one after another against it
    // packed once. Each product is computed as `gemm` computes it alone.
    let mut order = Vec::with_capacity(n_batch);
    for f in 0..n_batch {
        let Some(y) = matrix!(bv.view(), f) else {
            return false;
        };
        order.push((y.as_ptr() as usize, f, y));
    }
    order.sort_unstable_by_key(|&(b_at, f, _)| (b_at, f));
    let mut packed_b = crate::exec::aligned::CacheAligned::default();
    let mut packed_for = None;
    for (b_at, f, y) in order {
        let (Some(x), Some(mut z)) = (matrix!(av.view(), f), matrix!(out.view_mut(), f)) else {
            return false;
        };
        if packed_for.map(|(at, _)| at) != Some(b_at) {
            packed_for = Some((b_at, T::pack_shared_b(&y, m, &mut packed_b)));
        }
        if packed_for.is_some_and(|(_, packed)| packed) {
            T::gemm_shared_b(&x, &y, &packed_b, &mut z);
        } else {
            T::gemm(&x, &y, &mut z);
        }
    }
    true
}

/// `dest = zeros of x's shape`, any dtype.
fn zeros_like_t<T: Elem>(x: &Arg<'_>, dest: &mut Option<Value>) -> bool {
    let Arg::View(x) = x else { return false };
    let Some(out) = ensure::<T>(dest, x.shape()) else {
        return false;
    };
    out.fill(T::zero());
    true
}

/// `dest = x` with `g` added or written (`how`) at `part`; when `x` is
/// the destination (the planner found it dead), in place. Not handled:
/// `g` being the destination itself, `x` of another dtype, or anything
/// the reference kernel must word as an error (nothing is written then).
fn update_t<T: Arith + ViewElem>(
    x: &Arg<'_>,
    g: &Arg<'_>,
    part: &Part<'_>,
    how: Write,
    dest: &mut Option<Value>,
) -> bool {
    let Some(g) = opnd::<T>(g) else { return false };
    let cell = [scalar_of(&g)];
    let Some(gv) = view_of(&g, &cell) else {
        return false;
    };
    let out = match x {
        Arg::Dest => {
            let Some(d) = dest.as_mut().and_then(T::peek_mut) else {
                return false;
            };
            d
        }
        Arg::View(v) => {
            let Some(xv) = T::of_view(v) else {
                return false;
            };
            if check_fits(xv.shape(), part, gv.shape()).is_err() {
                return false;
            }
            let Some(d) = ensure::<T>(dest, xv.shape()) else {
                return false;
            };
            d.assign(&xv);
            d
        }
    };
    write_into(&mut out.view_mut(), part, &gv, how).is_ok()
}

/// The shape of argument `x` (the destination's when it is the
/// destination), without allocating for up to four axes.
fn arg_shape(x: &Arg<'_>, dest: &Option<Value>) -> Option<IxDyn> {
    match x {
        Arg::Dest => dest.as_ref().map(|v| IxDyn(v.shape())),
        Arg::View(v) => Some(IxDyn(v.shape())),
    }
}

/// The fast update of `op` (`inc_index`, `inc_slice`, `inc_take` and
/// their `set_*` twins) in dtype `T`.
fn update_op<T: Arith + ViewElem>(
    op: &Op,
    args: &[Option<Arg<'_>>],
    dest: &mut Option<Value>,
) -> bool {
    let how = Write::of(op);
    match (op, args) {
        (Op::IncIndex | Op::SetIndex, [Some(x), Some(g), idx @ ..]) => {
            let Some(shape) = arg_shape(x, dest) else {
                return false;
            };
            let mut pos = [0usize; 4];
            if idx.len() > pos.len() || idx.len() > shape.ndim() {
                return false;
            }
            for (k, a) in idx.iter().enumerate() {
                let i = match a {
                    Some(Arg::View(v)) if v.dtype() == DType::I64 && v.ndim() == 0 => {
                        v.index_scalar()
                    }
                    _ => None,
                };
                match i.map(|i| index_position(shape[k], k, i)) {
                    Some(Ok(p)) => pos[k] = p,
                    _ => return false,
                }
            }
            update_t::<T>(x, g, &Part::Index(&pos[..idx.len()]), how, dest)
        }
        (
            Op::IncSlice { start, stop, step } | Op::SetSlice { start, stop, step },
            [Some(x), Some(g)],
        ) => {
            let Some(shape) = arg_shape(x, dest) else {
                return false;
            };
            match Part::slice(shape.slice(), *start, *stop, *step) {
                Ok(part) => update_t::<T>(x, g, &part, how, dest),
                Err(_) => false,
            }
        }
        (Op::IncTake(axis) | Op::SetTake(axis), [Some(x), Some(g), Some(Arg::View(iv))]) => {
            let Some(shape) = arg_shape(x, dest) else {
                return false;
            };
            let Ok(a) = crate::exec::ops::normalize_axis(*axis, shape.ndim()) else {
                return false;
            };
            let Some(idx) = i64::of_view(iv) else {
                return false;
            };
            let at: Result<Vec<usize>, String> = idx
                .iter()
                .map(|&i| index_position(shape[a], a, i))
                .collect();
            let Ok(at) = at else { return false };
            let part = Part::Take {
                axis: a,
                at: &at,
                shape: idx.shape(),
            };
            update_t::<T>(x, g, &part, how, dest)
        }
        _ => false,
    }
}

/// Runs `op` on `args` into `dest` when a fast path applies; false when
/// not (nothing was written that matters: `dest` may have been reshaped,
/// but the reference kernel replaces it). `out` is the result dtype and
/// `compare` the dtype a comparison computes in.
pub fn fast(
    op: &Op,
    args: &[Option<Arg<'_>>],
    dest: &mut Option<Value>,
    out: DType,
    compare: Option<DType>,
) -> bool {
    match (op, args) {
        (Op::Unary(u), [Some(x)]) => match out {
            DType::F64 => unary_f::<f64>(*u, x, dest),
            DType::F32 => unary_f::<f32>(*u, x, dest),
            _ => false,
        },
        (Op::Binary(b), [Some(x), Some(y)]) => match out {
            DType::F64 => binary_f::<f64>(*b, x, y, dest),
            DType::F32 => binary_f::<f32>(*b, x, y, dest),
            _ => false,
        },
        (Op::Compare(c), [Some(x), Some(y)]) => match compare {
            Some(DType::F64) => compare_f::<f64>(*c, x, y, dest),
            Some(DType::F32) => compare_f::<f32>(*c, x, y, dest),
            _ => false,
        },
        (Op::Where, [Some(c), Some(x), Some(y)]) => match out {
            DType::F64 => where_f::<f64>(c, x, y, dest),
            DType::F32 => where_f::<f32>(c, x, y, dest),
            _ => false,
        },
        (Op::Matmul, [Some(x), Some(y)]) if batched_operands(x, y) => match out {
            DType::F64 => matmul_batched_f::<f64>(x, y, dest),
            DType::F32 => matmul_batched_f::<f32>(x, y, dest),
            _ => false,
        },
        (Op::Dot | Op::Matmul, [Some(x), Some(y)]) => match out {
            DType::F64 => dot_f::<f64>(x, y, dest),
            DType::F32 => dot_f::<f32>(x, y, dest),
            _ => false,
        },
        (Op::ZerosLike, [Some(x)]) => match out {
            DType::F64 => zeros_like_t::<f64>(x, dest),
            DType::F32 => zeros_like_t::<f32>(x, dest),
            DType::I64 | DType::Key => zeros_like_t::<i64>(x, dest),
            DType::I32 => zeros_like_t::<i32>(x, dest),
            DType::Bool => zeros_like_t::<bool>(x, dest),
        },
        (
            Op::IncIndex
            | Op::IncSlice { .. }
            | Op::IncTake(_)
            | Op::SetIndex
            | Op::SetSlice { .. }
            | Op::SetTake(_),
            _,
        ) => match out {
            DType::F64 => update_op::<f64>(op, args, dest),
            DType::F32 => update_op::<f32>(op, args, dest),
            DType::I64 | DType::Key => update_op::<i64>(op, args, dest),
            DType::I32 => update_op::<i32>(op, args, dest),
            DType::Bool => update_op::<bool>(op, args, dest),
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::ops::linalg;
    use ndarray::{Array, ArrayD};

    fn values(shape: &[usize], seed: f64) -> ArrayD<f64> {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n)
            .map(|i| (i as f64 * 0.731 + seed).sin() * 1.3)
            .collect();
        Array::from_shape_vec(IxDyn(shape), v).unwrap()
    }

    /// The batched fast path gives the reference kernel's bits, for
    /// operands in standard layout, transposed (strided) and with batch
    /// axes that broadcast, and writes into a reused destination.
    #[test]
    fn batched_matmul_same_bits_as_reference() {
        // (a's shape, b's shape, the axes permutations applied to views)
        type Case<'c> = (
            &'c [usize],
            &'c [usize],
            Option<&'c [usize]>,
            Option<&'c [usize]>,
        );
        let cases: &[Case] = &[
            (&[5, 37], &[4, 37, 6], None, None),
            (&[3, 1, 5, 37], &[4, 37, 6], None, None),
            (&[4, 5, 37], &[37, 6], None, None),
            (&[2, 4, 5, 37], &[2, 1, 37, 6], None, None),
            // Transposed views: a is stored (37, 5), b (4, 6, 37).
            (&[37, 5], &[4, 6, 37], Some(&[1, 0]), Some(&[0, 2, 1])),
            (&[4, 37, 5], &[37, 6], Some(&[0, 2, 1]), None),
            // A stack against one matrix, each product packed: one merged
            // product (k beyond one block of the kernel's; the merged one
            // split over two threads).
            (&[4, 20, 37], &[37, 30], None, None),
            (&[3, 17, 300], &[300, 9], None, None),
            (&[8, 64, 64], &[64, 64], None, None),
            (&[2, 3, 20, 37], &[37, 30], None, None),
        ];
        for (sa, sb, pa, pb) in cases {
            let a = values(sa, 0.3);
            let b = values(sb, 1.7);
            let av = match pa {
                Some(p) => a.view().permuted_axes(IxDyn(p)),
                None => a.view(),
            };
            let bv = match pb {
                Some(p) => b.view().permuted_axes(IxDyn(p)),
                None => b.view(),
            };
            let want = linalg::matmul(
                &Value::F64(av.to_owned()),
                &Value::F64(bv.to_owned()),
                DType::F64,
            )
            .unwrap();
            let mut dest = Some(Value::F64(values(&[3], 9.0)));
            for _ in 0..2 {
                let args = [
                    Some(Arg::View(ValView::F64(av.clone()))),
                    Some(Arg::View(ValView::F64(bv.clone()))),
                ];
                assert!(fast(&Op::Matmul, &args, &mut dest, DType::F64, None));
                let got = dest.as_ref().unwrap().as_f64_array();
                let want = want.as_f64_array();
                assert_eq!(got.shape(), want.shape(), "{sa:?} @ {sb:?}");
                let same = got
                    .iter()
                    .zip(want.iter())
                    .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "{sa:?} @ {sb:?}: not the reference's bits");
            }
        }
        // `dot` of stacks is not `matmul`: not taken by this path.
        let a = values(&[4, 5, 37], 0.1);
        let b = values(&[37, 6], 0.2);
        let args = [
            Some(Arg::View(ValView::F64(a.view()))),
            Some(Arg::View(ValView::F64(b.view()))),
        ];
        let mut dest = None;
        assert!(!fast(&Op::Dot, &args, &mut dest, DType::F64, None));
    }
}
