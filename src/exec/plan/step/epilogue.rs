//! Elementwise instructions computed inside the matrix product they read:
//! a GRU gate's `x·W + h·U + b`, where `x·W` is a sequence (pushed out of
//! the loop) and `h·U` the step's product, becomes one product whose
//! kernel adds the sequence's row and the bias to each sum as it stores
//! it, instead of two passes over the product after it.
//!
//! Owns: [`Stage`] (an instruction so absorbed), the pass that absorbs
//! them ([`fuse_products`]), and running them: as the product kernel's
//! [`prepacked::Step`]s ([`steps`]), or apart, after the product, with
//! the elementwise kernels the instructions themselves run
//! ([`apply_apart`]). Must not: change any element's operations or their
//! order. In the kernel each stage is the same rounding of the same two
//! values as the instruction's; a NaN's payload, though, may depend on
//! the instructions that compute it, so a product whose result holds a
//! NaN runs its stages apart instead (the kernel says so).

use super::{overlaps, Cover, Instr, Loc, Operand};
use crate::exec::ops::gemm;
use crate::exec::ops::prepacked::{self, Step, StepOp, StepSrc};
use crate::exec::plan::block::{binary2_block, binary_block, binary_periodic, Blk, Periodic};
use crate::lang::BinaryOp;

/// The most stages one product absorbs (each takes at most two of the
/// kernel's [`prepacked::MAX_STEPS`]).
pub(crate) const MAX_STAGES: usize = 2;

/// The largest `k` whose products absorb stages: one block of the
/// kernel's running sums, so that every element is stored once.
const MAX_K: usize = 256;

/// Elements per piece when stages run apart: the product's values are
/// copied a piece at a time beside the operands the instruction reads.
const PIECE: usize = 1024;

/// An elementwise instruction absorbed by the product whose result `v` it
/// read (the only reader of that result), computing the next `v`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Stage {
    /// An [`Instr::Binary`]: `v = op(v, other)`, or `op(other, v)` when
    /// `!product_first`; `period` is the instruction's (`n`, the
    /// product's columns, for a repeated row).
    Binary {
        op: BinaryOp,
        product_first: bool,
        other: Operand,
        period: usize,
    },
    /// An [`Instr::Binary2`] whose `x` (`at_x`) or `y` is `v`; `other` is
    /// the other of the two.
    Binary2 {
        outer: BinaryOp,
        inner: BinaryOp,
        inner_first: bool,
        at_x: bool,
        other: Operand,
        z: Operand,
    },
}

impl Stage {
    /// Calls `f(operand, period)` for each operand (besides `v`).
    pub(super) fn operands(&self, f: &mut dyn FnMut(Operand, Option<usize>)) {
        match *self {
            Stage::Binary { other, period, .. } => f(other, Some(period)),
            Stage::Binary2 { other, z, .. } => {
                f(other, None);
                f(z, None);
            }
        }
    }

    /// The operands, mutably (to move them in the arena).
    pub(super) fn operands_mut(&mut self) -> impl Iterator<Item = &mut Operand> {
        let (a, b) = match self {
            Stage::Binary { other, .. } => (other, None),
            Stage::Binary2 { other, z, .. } => (other, Some(z)),
        };
        std::iter::once(a).chain(b)
    }
}

/// Operand `o`, whose data over the whole product is `d`, as batch `g`
/// (of `mn` elements) sees it: the kernel's operand of a [`Step`].
fn batch_src(o: Operand, d: &[f64], g: usize, mn: usize) -> Option<StepSrc<'_>> {
    Some(match o.cover {
        Cover::Full => StepSrc::Full(d.get(g * mn..(g + 1) * mn)?),
        Cover::Scalar => StepSrc::Scalar(*d.first()?),
        Cover::Repeat => StepSrc::Row(d),
        Cover::PerBlock => return None,
    })
}

/// Piece `lo..hi` of a batch's operand over whole elements or a scalar
/// (`None` for a repeated row).
fn blk(src: StepSrc<'_>, lo: usize, hi: usize) -> Option<Blk<'_, f64>> {
    match src {
        StepSrc::Full(d) => Some(Blk::Slice(d.get(lo..hi)?)),
        StepSrc::Scalar(x) => Some(Blk::Scalar(x)),
        StepSrc::Row(_) => None,
    }
}

/// The operands of a product's stages over the whole product, in the
/// order of [`Stage::operands`].
pub(super) struct Operands<'a> {
    data: [(Operand, &'a [f64]); 2 * MAX_STAGES],
    count: usize,
}

impl<'a> Operands<'a> {
    /// Each operand of `stages` as `read(loc, elements)` finds it, for a
    /// product of `len` elements; `None` when one is not there.
    pub(super) fn read(
        stages: &[Stage],
        len: usize,
        mut read: impl FnMut(Loc, usize) -> Option<&'a [f64]>,
    ) -> Option<Self> {
        const NONE: Operand = Operand {
            loc: Loc::Arena(0),
            cover: Cover::Scalar,
        };
        let mut data = [(NONE, &[][..]); 2 * MAX_STAGES];
        let mut count = 0;
        let mut found = true;
        for s in stages {
            s.operands(&mut |o, period| {
                match (
                    read(o.loc, o.span(len, period.unwrap_or(len))),
                    data.get_mut(count),
                ) {
                    (Some(d), Some(slot)) => *slot = (o, d),
                    _ => found = false,
                }
                count += 1;
            });
        }
        found.then_some(Operands { data, count })
    }

    /// The operands as batch `g` (of `mn` elements) sees them, in `out`.
    pub(super) fn of_batch<'o>(
        &self,
        g: usize,
        mn: usize,
        out: &'o mut [StepSrc<'a>; 2 * MAX_STAGES],
    ) -> Option<&'o [StepSrc<'a>]> {
        for (s, &(o, d)) in out.iter_mut().zip(&self.data[..self.count]) {
            *s = batch_src(o, d, g, mn)?;
        }
        Some(&out[..self.count])
    }
}

/// `c = a·B` for one batch of a product (`B` packed in `bp` when given,
/// as `Instr::Gemm` says), then its `stages` on `c`: in the packed
/// kernel when it takes them, else apart ([`apply_apart`]).
pub(super) fn product(
    stages: &[Stage],
    srcs: &[StepSrc<'_>],
    a: &[f64],
    b: &[f64],
    bp: Option<&[f64]>,
    (m, k, n): (usize, usize, usize),
    c: &mut [f64],
) -> Option<()> {
    let done = match bp {
        Some(bp) => {
            let none = Step {
                op: StepOp::Add,
                product_first: true,
                src: StepSrc::Scalar(0.0),
            };
            let mut kernel = [none; prepacked::MAX_STEPS];
            let count = steps(stages, srcs, &mut kernel);
            let taken = &kernel[..count.unwrap_or(0)];
            gemm::gemm_rows_prepacked_then(a, b, bp, m, k, n, c, taken)? && count.is_some()
        }
        None => {
            gemm::gemm_rows(a, b, m, k, n, c)?;
            stages.is_empty()
        }
    };
    if done {
        Some(())
    } else {
        apply_apart(stages, srcs, n, c)
    }
}

fn step_op(op: BinaryOp) -> Option<StepOp> {
    match op {
        BinaryOp::Add => Some(StepOp::Add),
        BinaryOp::Sub => Some(StepOp::Sub),
        BinaryOp::Mul => Some(StepOp::Mul),
        _ => None,
    }
}

/// The kernel's steps for `stages`, whose operands for this batch are
/// `srcs` (one or two per stage, in the order of [`Stage::operands`]).
/// `None` when one has no kernel step.
fn steps<'a>(
    stages: &[Stage],
    srcs: &[StepSrc<'a>],
    out: &mut [Step<'a>; prepacked::MAX_STEPS],
) -> Option<usize> {
    let mut k = 0;
    let mut srcs = srcs.iter();
    let mut push = |op: BinaryOp, product_first: bool, src: StepSrc<'a>| -> Option<()> {
        *out.get_mut(k)? = Step {
            op: step_op(op)?,
            product_first,
            src,
        };
        k += 1;
        Some(())
    };
    for s in stages {
        match *s {
            Stage::Binary {
                op, product_first, ..
            } => push(op, product_first, *srcs.next()?)?,
            Stage::Binary2 {
                outer,
                inner,
                inner_first,
                at_x,
                ..
            } => {
                push(inner, at_x, *srcs.next()?)?;
                push(outer, inner_first, *srcs.next()?)?;
            }
        }
    }
    Some(k)
}

/// Runs `stages` on `out` (one batch of the product, `n` columns) apart
/// from the product, with the kernels of the instructions they were:
/// piece by piece, each piece of `v` copied aside so that the kernel
/// reads it and writes `out`. `srcs` as for [`steps`].
fn apply_apart(stages: &[Stage], srcs: &[StepSrc<'_>], n: usize, out: &mut [f64]) -> Option<()> {
    let mut srcs = srcs.iter();
    for s in stages {
        match *s {
            Stage::Binary {
                op, product_first, ..
            } => {
                let other = *srcs.next()?;
                match other {
                    // A repeated row: pieces of whole rows, as the
                    // instruction's kernel takes them.
                    StepSrc::Row(row) => by_pieces(out, (PIECE / n.max(1)) * n, |_, v, o| {
                        let (x, y) = (Periodic::Full(v), Periodic::Repeat(row));
                        let (a, b) = if product_first { (x, y) } else { (y, x) };
                        binary_periodic(op, o, n, a, b).then_some(())
                    })?,
                    _ => by_pieces(out, PIECE, |lo, v, o| {
                        let (x, y) = (Blk::Slice(v), blk(other, lo, lo + v.len())?);
                        let (a, b) = if product_first { (x, y) } else { (y, x) };
                        binary_block(op, o, a, b);
                        Some(())
                    })?,
                }
            }
            Stage::Binary2 {
                outer,
                inner,
                inner_first,
                at_x,
                ..
            } => {
                let (other, z) = (*srcs.next()?, *srcs.next()?);
                by_pieces(out, PIECE, |lo, v, o| {
                    let hi = lo + v.len();
                    let (p, q) = (Blk::Slice(v), blk(other, lo, hi)?);
                    let (x, y) = if at_x { (p, q) } else { (q, p) };
                    binary2_block(outer, inner, inner_first, o, x, y, blk(z, lo, hi)?).then_some(())
                })?;
            }
        }
    }
    Some(())
}

/// Calls `f(lo, v, piece)` for each piece of `out` (`piece` elements
/// from `lo` on; at most [`PIECE`]), `v` a copy of it made first.
fn by_pieces(
    out: &mut [f64],
    piece: usize,
    mut f: impl FnMut(usize, &[f64], &mut [f64]) -> Option<()>,
) -> Option<()> {
    if piece == 0 || piece > PIECE {
        return None;
    }
    let mut v = [0.0f64; PIECE];
    let mut lo = 0;
    while lo < out.len() {
        let hi = (lo + piece).min(out.len());
        let mine = &mut v[..hi - lo];
        mine.copy_from_slice(&out[lo..hi]);
        f(lo, mine, &mut out[lo..hi])?;
        lo = hi;
    }
    Some(())
}

/// The regions an instruction reads from the arena.
fn arena_reads(ins: &Instr) -> Vec<(usize, usize)> {
    let mut r = Vec::new();
    ins.reads(&mut |loc, len| {
        if let Loc::Arena(o) = loc {
            r.push((o, len));
        }
    });
    r
}

/// What a stage makes of the instruction `ins` that reads the product
/// `(dst, len)` of `n` columns, when it can absorb it: the stage and
/// the instruction's destination.
fn as_stage(ins: &Instr, dst: usize, len: usize, n: usize) -> Option<(Stage, usize)> {
    let is_v = |o: &Operand| o.loc == Loc::Arena(dst) && o.cover == Cover::Full;
    match *ins {
        Instr::Binary {
            op,
            a,
            b,
            dst: to,
            len: l,
            period,
        } if l == len && step_op(op).is_some() => {
            let (product_first, other) = if is_v(&a) {
                (true, b)
            } else if is_v(&b) {
                (false, a)
            } else {
                return None;
            };
            let plain = matches!(other.cover, Cover::Full | Cover::Scalar);
            let row = other.cover == Cover::Repeat && period == n && n <= PIECE;
            (plain || row).then_some((
                Stage::Binary {
                    op,
                    product_first,
                    other,
                    period,
                },
                to,
            ))
        }
        Instr::Binary2 {
            outer,
            inner,
            inner_first,
            x,
            y,
            z,
            dst: to,
            len: l,
            // Every operand plain (checked below): the period is `len`.
            period: _,
        } if l == len && step_op(outer).is_some() && step_op(inner).is_some() => {
            let (at_x, other) = if is_v(&x) {
                (true, y)
            } else if is_v(&y) {
                (false, x)
            } else {
                return None;
            };
            let plain = |o: &Operand| matches!(o.cover, Cover::Full | Cover::Scalar);
            (plain(&other) && plain(&z)).then_some((
                Stage::Binary2 {
                    outer,
                    inner,
                    inner_first,
                    at_x,
                    other,
                    z,
                },
                to,
            ))
        }
        _ => None,
    }
}

/// The instructions with each product that the packed kernel computes
/// (`B` packed, `k` ≤ 256, not a small product) merged with the
/// elementwise instruction that is the only reader of its result (a
/// binary one, or a fused pair, with the product as a whole operand and
/// the others whole, scalars or a repeated row), up to [`MAX_STAGES`] in
/// a chain: the merged instruction takes the reader's place and
/// destination. Neither value may be a body result; no instruction
/// between the product and its reader may write what the product reads
/// (the values of a step are written once, so this only rules out
/// running sums); the reader's destination must be written by it alone.
pub(super) fn fuse_products(instrs: Vec<Instr>, results: &[(usize, usize)]) -> Vec<Instr> {
    let in_result = |o: usize, l: usize| results.iter().any(|&(p, m)| overlaps(o, l, p, m));
    let mut out: Vec<Option<Instr>> = instrs.into_iter().map(Some).collect();
    // A merged product is met again at its new place, where it may absorb
    // its own reader.
    for i in 0..out.len() {
        let Some(Instr::Gemm {
            shape,
            packed_b: Some(_),
            dst,
            ref then,
            ..
        }) = out[i]
        else {
            continue;
        };
        let (m, k, n) = (shape.m, shape.k, shape.n);
        let len = shape.batch * m * n;
        if k > MAX_K || gemm::is_small(m, k, n) || then.len() >= MAX_STAGES || in_result(dst, len) {
            continue;
        }
        // The only reader, reading the whole product once.
        let mut reader = None;
        let mut reads = 0;
        for (j, ins) in out.iter().enumerate() {
            let Some(ins) = ins else { continue };
            for (o, l) in arena_reads(ins) {
                if overlaps(o, l, dst, len) {
                    reads += if o == dst && l == len { 1 } else { 2 };
                    reader = Some(j);
                }
            }
        }
        let Some(j) = reader.filter(|&j| reads == 1 && j > i) else {
            continue;
        };
        let Some((stage, to)) = out[j].as_ref().and_then(|r| as_stage(r, dst, len, n)) else {
            continue;
        };
        // The reader's destination: written by it alone.
        let mut writers = 0;
        for ins in out.iter().flatten() {
            ins.writes(&mut |o, l| writers += usize::from(overlaps(o, l, to, len)));
        }
        // What the product reads: unchanged until the reader runs.
        let needs = out[i].as_ref().map(arena_reads).unwrap_or_default();
        let mut changed = false;
        for ins in out[i + 1..j].iter().flatten() {
            ins.writes(&mut |o, l| {
                changed |= needs.iter().any(|&(p, m)| overlaps(o, l, p, m));
            });
        }
        if writers != 1 || changed {
            continue;
        }
        let Some(Instr::Gemm {
            a,
            b,
            shape,
            packed_b,
            then,
            ..
        }) = out[i].take()
        else {
            continue;
        };
        let mut then = then.into_vec();
        then.push(stage);
        out[j] = Some(Instr::Gemm {
            a,
            b,
            shape,
            packed_b,
            dst: to,
            then: then.into_boxed_slice(),
        });
    }
    out.into_iter().flatten().collect()
}
