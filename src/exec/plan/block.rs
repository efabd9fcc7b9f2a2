//! Elementwise kernels over one block: slices of equal length, or
//! scalars, with the operation dispatched once per block so that each
//! loop is a plain (vectorizable) loop of one operation.
//!
//! Owns: [`Blk`] (an operand's block), [`binary_block`] (a binary op over
//! one block), [`binary_periodic`] (over a run of blocks, an operand
//! repeated or one per block), [`binary2_block`] (a binary op computed
//! inside its reader) and [`binary2_periodic`] (both over a run of
//! blocks), shared by
//! the fused groups (`fusion`) and the step tape (`step`). They call the
//! reference kernels' element functions, compiled for baseline x86-64,
//! AVX2 and AVX-512 (chosen at run time) without fused multiply-add, so
//! every path gives the same bits (a wider register computes more
//! elements at once, each by the same operations). Must not: allocate, or change an element
//! function's order of operations.

use crate::exec::ops::elementwise::{Arith, Float};
use crate::lang::BinaryOp;
use multiversion::multiversion;

/// An operand's block: a scalar or a slice of the block's length.
#[derive(Clone, Copy)]
pub(crate) enum Blk<'a, T> {
    Scalar(T),
    Slice(&'a [T]),
}

/// `o = f(x, y)` over a block.
#[inline(always)]
pub(crate) fn zip2<T: Copy>(o: &mut [T], x: Blk<'_, T>, y: Blk<'_, T>, f: impl Fn(T, T) -> T) {
    let n = o.len();
    match (x, y) {
        (Blk::Slice(a), Blk::Slice(b)) => {
            for (v, (&p, &q)) in o.iter_mut().zip(a[..n].iter().zip(&b[..n])) {
                *v = f(p, q);
            }
        }
        (Blk::Slice(a), Blk::Scalar(s)) => {
            for (v, &p) in o.iter_mut().zip(&a[..n]) {
                *v = f(p, s);
            }
        }
        (Blk::Scalar(s), Blk::Slice(b)) => {
            for (v, &q) in o.iter_mut().zip(&b[..n]) {
                *v = f(s, q);
            }
        }
        (Blk::Scalar(s), Blk::Scalar(t)) => o.fill(f(s, t)),
    }
}

/// `o = f(x, y, z)` over a block.
#[inline(always)]
pub(crate) fn zip3<T: Copy>(
    o: &mut [T],
    x: Blk<'_, T>,
    y: Blk<'_, T>,
    z: Blk<'_, T>,
    f: impl Fn(T, T, T) -> T,
) {
    use Blk::{Scalar as S, Slice as V};
    let n = o.len();
    match (x, y, z) {
        (V(a), V(b), V(c)) => {
            for (v, ((&p, &q), &r)) in o.iter_mut().zip(a[..n].iter().zip(&b[..n]).zip(&c[..n])) {
                *v = f(p, q, r);
            }
        }
        (V(a), V(b), S(r)) => {
            for (v, (&p, &q)) in o.iter_mut().zip(a[..n].iter().zip(&b[..n])) {
                *v = f(p, q, r);
            }
        }
        (V(a), S(q), V(c)) => {
            for (v, (&p, &r)) in o.iter_mut().zip(a[..n].iter().zip(&c[..n])) {
                *v = f(p, q, r);
            }
        }
        (S(p), V(b), V(c)) => {
            for (v, (&q, &r)) in o.iter_mut().zip(b[..n].iter().zip(&c[..n])) {
                *v = f(p, q, r);
            }
        }
        (V(a), S(q), S(r)) => {
            for (v, &p) in o.iter_mut().zip(&a[..n]) {
                *v = f(p, q, r);
            }
        }
        (S(p), V(b), S(r)) => {
            for (v, &q) in o.iter_mut().zip(&b[..n]) {
                *v = f(p, q, r);
            }
        }
        (S(p), S(q), V(c)) => {
            for (v, &r) in o.iter_mut().zip(&c[..n]) {
                *v = f(p, q, r);
            }
        }
        (S(p), S(q), S(r)) => o.fill(f(p, q, r)),
    }
}

/// `$body` with `$f` bound to `|p, q, r| outer(inner(p, q), r)` when
/// `$first`, else `|p, q, r| outer(r, inner(p, q))`, for `outer` and
/// `inner` among add, sub and mul (the reference kernel's element
/// functions); `$none` for another op.
macro_rules! with_binary2_fn {
    ($outer:expr, $inner:expr, $first:expr, $f:ident => $body:expr, else $none:expr) => {{
        use BinaryOp::{Add, Mul, Sub};
        macro_rules! go {
            ($o:path, $i:path) => {
                if $first {
                    let $f = |p, q, r| $o($i(p, q), r);
                    $body
                } else {
                    let $f = |p, q, r| $o(r, $i(p, q));
                    $body
                }
            };
        }
        match ($outer, $inner) {
            (Add, Add) => go!(Arith::add, Arith::add),
            (Add, Sub) => go!(Arith::add, Arith::sub),
            (Add, Mul) => go!(Arith::add, Arith::mul),
            (Sub, Add) => go!(Arith::sub, Arith::add),
            (Sub, Sub) => go!(Arith::sub, Arith::sub),
            (Sub, Mul) => go!(Arith::sub, Arith::mul),
            (Mul, Add) => go!(Arith::mul, Arith::add),
            (Mul, Sub) => go!(Arith::mul, Arith::sub),
            (Mul, Mul) => go!(Arith::mul, Arith::mul),
            _ => $none,
        }
    }};
}

/// `o = outer(inner(x, y), z)` when `inner_first`, else `o = outer(z,
/// inner(x, y))`, for `outer` and `inner` among add, sub, mul; false for
/// another op. The reference kernel's element functions, compiled for
/// AVX2 too (no fused multiply-add).
#[multiversion(targets("x86_64+avx512f+avx2", "x86_64+avx2"))]
pub(crate) fn binary2_block<T: Float>(
    outer: BinaryOp,
    inner: BinaryOp,
    inner_first: bool,
    o: &mut [T],
    x: Blk<'_, T>,
    y: Blk<'_, T>,
    z: Blk<'_, T>,
) -> bool {
    with_binary2_fn!(outer, inner, inner_first, f => {
        zip3(o, x, y, z, f);
        true
    }, else false)
}

/// [`binary2_block`] for a result made of blocks of `period` elements,
/// each operand covering it as [`Periodic`] says (a padded batch's mask:
/// one value per row): every block in one call, as [`binary2_block`]
/// computes each. False for another op or an operand too short.
#[multiversion(targets("x86_64+avx512f+avx2", "x86_64+avx2"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn binary2_periodic<T: Float>(
    outer: BinaryOp,
    inner: BinaryOp,
    inner_first: bool,
    o: &mut [T],
    period: usize,
    x: Periodic<'_, T>,
    y: Periodic<'_, T>,
    z: Periodic<'_, T>,
) -> bool {
    if period == 0 {
        return o.is_empty();
    }
    let n_blocks = o.len() / period;
    if [x, y, z].iter().any(|d| !d.covers(period, n_blocks)) {
        return false;
    }
    with_binary2_fn!(outer, inner, inner_first, f => {
        for (c, ob) in o.chunks_exact_mut(period).enumerate() {
            zip3(ob, x.block(c, period), y.block(c, period), z.block(c, period), f);
        }
        true
    }, else false)
}

/// `$body` with `$f` bound to the element function of binary op `$op`
/// (the reference kernel's: `Arith` and `Float`).
macro_rules! with_binary_fn {
    ($op:expr, $f:ident => $body:expr) => {
        match $op {
            BinaryOp::Add => {
                let $f = Arith::add;
                $body
            }
            BinaryOp::Sub => {
                let $f = Arith::sub;
                $body
            }
            BinaryOp::Mul => {
                let $f = Arith::mul;
                $body
            }
            BinaryOp::Div => {
                let $f = Float::div;
                $body
            }
            BinaryOp::Pow => {
                let $f = Arith::pow;
                $body
            }
            BinaryOp::Maximum => {
                let $f = Arith::maximum;
                $body
            }
            BinaryOp::Minimum => {
                let $f = Arith::minimum;
                $body
            }
            BinaryOp::Mod => {
                let $f = Arith::modulo;
                $body
            }
            BinaryOp::FloorDiv => {
                let $f = Arith::floor_div;
                $body
            }
        }
    };
}

/// `o = op(x, y)` over one block, each operand a slice of `o`'s length
/// or a scalar: the reference kernel's element functions, compiled for
/// AVX2 too (chosen at run time; no fused multiply-add, so the results
/// are the same).
#[multiversion(targets("x86_64+avx512f+avx2", "x86_64+avx2"))]
pub(crate) fn binary_block<T: Float>(op: BinaryOp, o: &mut [T], x: Blk<'_, T>, y: Blk<'_, T>) {
    with_binary_fn!(op, f => zip2(o, x, y, f))
}

/// An operand of [`binary_periodic`]: how it covers a result made of
/// blocks of `period` elements.
#[derive(Clone, Copy)]
pub(crate) enum Periodic<'a, T> {
    /// Every element, in order.
    Full(&'a [T]),
    /// One element for all.
    Scalar(T),
    /// One block of `period` elements, repeated (a row added to every row
    /// of a matrix).
    Repeat(&'a [T]),
    /// One element per block (a column added to every column).
    PerBlock(&'a [T]),
}

impl<'a, T: Copy> Periodic<'a, T> {
    /// True when the data covers `n_blocks` blocks of `period` elements.
    pub(crate) fn covers(&self, period: usize, n_blocks: usize) -> bool {
        match self {
            Periodic::Full(d) => d.len() >= period * n_blocks,
            Periodic::Scalar(_) => true,
            Periodic::Repeat(d) => d.len() >= period,
            Periodic::PerBlock(d) => d.len() >= n_blocks,
        }
    }

    /// Block `c` (checked by [`Periodic::covers`]).
    #[inline(always)]
    pub(crate) fn block(self, c: usize, period: usize) -> Blk<'a, T> {
        match self {
            Periodic::Full(d) => Blk::Slice(&d[c * period..(c + 1) * period]),
            Periodic::Scalar(x) => Blk::Scalar(x),
            Periodic::Repeat(d) => Blk::Slice(&d[..period]),
            Periodic::PerBlock(d) => Blk::Scalar(d[c]),
        }
    }
}

/// `o = f(x, y)` block by block over `o`'s blocks of `period` elements.
#[inline(always)]
fn periodic<T: Copy>(
    o: &mut [T],
    period: usize,
    x: Periodic<'_, T>,
    y: Periodic<'_, T>,
    f: impl Fn(T, T) -> T + Copy,
) -> bool {
    if period == 0 {
        return o.is_empty();
    }
    let n_blocks = o.len() / period;
    if !x.covers(period, n_blocks) || !y.covers(period, n_blocks) {
        return false;
    }
    for (c, ob) in o.chunks_exact_mut(period).enumerate() {
        zip2(ob, x.block(c, period), y.block(c, period), f);
    }
    true
}

/// `o = op(x, y)` for a result made of blocks of `period` elements, each
/// operand covering it as [`Periodic`] says: every block in one call (one
/// dispatch), as [`binary_block`] computes each. False when an operand's
/// data is too short.
#[multiversion(targets("x86_64+avx512f+avx2", "x86_64+avx2"))]
pub(crate) fn binary_periodic<T: Float>(
    op: BinaryOp,
    o: &mut [T],
    period: usize,
    x: Periodic<'_, T>,
    y: Periodic<'_, T>,
) -> bool {
    with_binary_fn!(op, f => periodic(o, period, x, y, f))
}

/// `o = if c != 0 { a } else { b }` element by element (NumPy's `where`
/// on booleans held as 1.0 and 0.0: a NaN condition picks `a`), block by
/// block over `o`'s blocks of `period` elements. A condition that is one
/// element per block (a row mask broadcast along the row) copies the
/// chosen operand's block whole; otherwise the choice is made without a
/// branch, so the loop vectorizes. False when an operand does not cover
/// `o`.
pub(crate) fn select_periodic(
    o: &mut [f64],
    period: usize,
    c: Periodic<'_, f64>,
    a: Periodic<'_, f64>,
    b: Periodic<'_, f64>,
) -> bool {
    if period == 0 {
        return o.is_empty();
    }
    let n_blocks = o.len() / period;
    if [c, a, b].iter().any(|x| !x.covers(period, n_blocks)) {
        return false;
    }
    for (k, ob) in o.chunks_exact_mut(period).enumerate() {
        let (ab, bb) = (a.block(k, period), b.block(k, period));
        match c.block(k, period) {
            Blk::Scalar(t) => match if t != 0.0 { ab } else { bb } {
                Blk::Slice(d) => ob.copy_from_slice(&d[..ob.len()]),
                Blk::Scalar(x) => ob.fill(x),
            },
            cb => zip3(ob, cb, ab, bb, |t, x, y| if t != 0.0 { x } else { y }),
        }
    }
    true
}

#[cfg(test)]
mod select_tests {
    use super::*;

    #[test]
    fn select_periodic_matches_where_for_every_cover() {
        let a: Vec<f64> = (0..6).map(|i| i as f64).collect();
        let b: Vec<f64> = (0..6).map(|i| -(i as f64) - 1.0).collect();
        let want = |c: &dyn Fn(usize) -> f64| -> Vec<f64> {
            (0..6)
                .map(|i| if c(i) != 0.0 { a[i] } else { b[i] })
                .collect()
        };
        let mut o = vec![0.0; 6];
        // A row mask over two rows of three, NaN counting as true.
        let rows = [0.0, f64::NAN];
        assert!(select_periodic(
            &mut o,
            3,
            Periodic::PerBlock(&rows),
            Periodic::Full(&a),
            Periodic::Full(&b)
        ));
        assert_eq!(o, want(&|i| rows[i / 3]));
        // A column mask repeated on every row.
        let cols = [1.0, 0.0, 1.0];
        assert!(select_periodic(
            &mut o,
            3,
            Periodic::Repeat(&cols),
            Periodic::Full(&a),
            Periodic::Full(&b)
        ));
        assert_eq!(o, want(&|i| cols[i % 3]));
        // A full mask with a scalar branch.
        let full = [0.0, 1.0, 0.0, 1.0, 1.0, 0.0];
        assert!(select_periodic(
            &mut o,
            6,
            Periodic::Full(&full),
            Periodic::Full(&a),
            Periodic::Scalar(7.0)
        ));
        let w: Vec<f64> = (0..6)
            .map(|i| if full[i] != 0.0 { a[i] } else { 7.0 })
            .collect();
        assert_eq!(o, w);
        // An operand that does not cover the result.
        assert!(!select_periodic(
            &mut o,
            3,
            Periodic::PerBlock(&rows[..1]),
            Periodic::Full(&a),
            Periodic::Full(&b)
        ));
    }
}
