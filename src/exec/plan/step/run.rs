//! Running a [`StepTape`]: one step's instructions over the arena and the
//! loop's data, then its results into the loop's rows.
//!
//! Owns: where each body parameter is on a step ([`ParamAt`], placed by
//! the loop), the loop's data as the tape reads it ([`Sources`]) and the
//! execution of each instruction with the plan's element functions and
//! kernels. Must not: allocate, or compute anything in another order than
//! the plan does.

use super::epilogue::{self, Operands, MAX_STAGES};
use super::kernel::{self, KernelScratch, LoopRunner};
use super::native::{NativeRun, MAX_POINTERS};
use super::rows;
use super::{Cover, GemmShape, Instr, Loc, Operand, ScalarOp, StepTape};
use crate::exec::ops::elementwise::{Arith, Float};
use crate::exec::ops::reduce::{fold_extreme, pairwise_sum};
use crate::exec::ops::shape::index_position;
use crate::exec::ops::stable::{logsumexp_blocks, normalize_blocks};
use crate::exec::ops::{factor, logmatmulexp, matvec, prepacked};
use crate::exec::plan::block::{
    binary2_periodic, binary_block, binary_periodic, select_periodic, zip2, Blk, Periodic,
};
use crate::lang::{BinaryOp, CompareOp, ReduceOp};
use multiversion::multiversion;
use ndarray::ArrayView1;

/// Which of the loop's data a body parameter is read from on a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Store {
    /// Sequence `j`.
    Seq(usize),
    /// The buffer of output `k` (a state's earlier step, a mitmot slot).
    Buf(usize),
    /// Init `i`.
    Init(usize),
    /// Non-sequence `j`.
    NonSeq(usize),
    /// Not read by the tape.
    Unused,
}

/// Where a body parameter is on a step: its store and the element its
/// data starts at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ParamAt {
    /// The store.
    pub store: Store,
    /// The first element.
    pub base: usize,
}

/// The loop's data during one call, as contiguous `f64` slices (`None`
/// where a value is not one; the tape never reads those).
pub(crate) struct Sources<'a> {
    /// Per sequence, its whole data.
    pub seqs: &'a [Option<&'a [f64]>],
    /// Per init.
    pub inits: &'a [Option<&'a [f64]>],
    /// Per non-sequence.
    pub non_seqs: &'a [Option<&'a [f64]>],
    /// The output buffers' data (rows written by earlier steps).
    pub bufs: Bufs<'a>,
    /// What runs the loops of the body (nested loops), when it has any.
    pub loops: Option<&'a dyn LoopRunner>,
}

/// The output buffers as a step reads them.
#[derive(Clone, Copy)]
pub(crate) enum Bufs<'a> {
    /// Each buffer whole.
    Whole(&'a [&'a mut [f64]]),
    /// Each buffer with a gap: the row a result of this step is written
    /// into straight from its instruction (see [`StepTape::run`]), which
    /// no read of the step touches.
    Split(&'a [BufRows<'a>]),
}

/// A buffer's elements before and after a gap of `gap` elements (an
/// empty `hi` and no gap: the whole buffer in `lo`).
#[derive(Clone, Copy, Default)]
pub(crate) struct BufRows<'a> {
    /// The elements before the gap.
    pub lo: &'a [f64],
    /// The gap's length.
    pub gap: usize,
    /// The elements after the gap.
    pub hi: &'a [f64],
}

impl<'a> BufRows<'a> {
    /// The buffer's data from element `base` on, up to the gap when
    /// `base` lies before it; `None` inside the gap.
    #[inline(always)]
    fn from(&self, base: usize) -> Option<&'a [f64]> {
        match base.checked_sub(self.lo.len()) {
            None => self.lo.get(base..),
            Some(past) => self.hi.get(past.checked_sub(self.gap)?..),
        }
    }
}

impl<'a> Sources<'a> {
    /// The data of the body parameter at `at`, from its first element on.
    #[inline(always)]
    fn param(&self, at: ParamAt) -> Option<&'a [f64]> {
        let whole: &'a [f64] = match at.store {
            Store::Buf(k) => match self.bufs {
                Bufs::Whole(b) => b.get(k)?,
                Bufs::Split(b) => return b.get(k)?.from(at.base),
            },
            Store::Seq(j) => (*self.seqs.get(j)?)?,
            Store::Init(i) => (*self.inits.get(i)?)?,
            Store::NonSeq(j) => (*self.non_seqs.get(j)?)?,
            Store::Unused => return None,
        };
        whole.get(at.base..)
    }
}

/// The arena around an instruction's destination (what it may read):
/// the elements below it and those above it (its operands lie in either, never in the
/// destination: see `reuse`).
#[derive(Clone, Copy)]
struct Around<'s> {
    lo: &'s [f64],
    hi: &'s [f64],
    /// The offset of `hi`'s first element.
    hi_at: usize,
}

impl<'s> Around<'s> {
    /// The whole arena, when the destination is elsewhere (a row).
    fn whole(arena: &'s [f64]) -> Self {
        Around {
            lo: arena,
            hi: &[],
            hi_at: arena.len(),
        }
    }

    /// `len` elements from offset `o`, all below or all above the
    /// destination.
    #[inline(always)]
    fn get(self, o: usize, len: usize) -> Option<&'s [f64]> {
        let end = o.checked_add(len)?;
        if end <= self.lo.len() {
            self.lo.get(o..end)
        } else {
            let from = o.checked_sub(self.hi_at)?;
            self.hi.get(from..from + len)
        }
    }
}

/// The arena split around the `len` elements from `dst` on: what may be
/// read, and the destination.
#[inline(always)]
fn around(arena: &mut [f64], dst: usize, len: usize) -> Option<(Around<'_>, &mut [f64])> {
    let (lo, rest) = arena.split_at_mut_checked(dst)?;
    let (out, hi) = rest.split_at_mut_checked(len)?;
    let hi_at = dst + len;
    Some((Around { lo, hi, hi_at }, out))
}

/// `len` elements at `loc`: in the arena around the destination, or in a
/// parameter.
#[inline(always)]
fn read<'s>(
    ar: Around<'s>,
    src: &Sources<'s>,
    at: &[ParamAt],
    loc: Loc,
    len: usize,
) -> Option<&'s [f64]> {
    match loc {
        Loc::Arena(o) => ar.get(o, len),
        Loc::Param(k, o) => src.param(*at.get(k)?)?.get(o..o.checked_add(len)?),
    }
}

/// One element at `loc` (anywhere in the arena, or in a parameter).
#[inline(always)]
fn read1(arena: &[f64], src: &Sources<'_>, at: &[ParamAt], loc: Loc) -> Option<f64> {
    match loc {
        Loc::Arena(o) => arena.get(o).copied(),
        Loc::Param(k, o) => src.param(*at.get(k)?)?.get(o).copied(),
    }
}

/// `op` on one element, as the plan's kernels compute it.
#[inline(always)]
pub(super) fn binary1(op: BinaryOp, x: f64, y: f64) -> f64 {
    match op {
        BinaryOp::Add => x.add(y),
        BinaryOp::Sub => x.sub(y),
        BinaryOp::Mul => x.mul(y),
        BinaryOp::Div => Float::div(x, y),
        BinaryOp::Pow => x.pow(y),
        BinaryOp::Maximum => Arith::maximum(x, y),
        BinaryOp::Minimum => Arith::minimum(x, y),
        BinaryOp::Mod => Arith::modulo(x, y),
        BinaryOp::FloorDiv => Arith::floor_div(x, y),
    }
}

/// `out[i] = op(a[i], b[i])` as 1.0 or 0.0.
fn compare_block(op: CompareOp, out: &mut [f64], a: Blk<'_, f64>, b: Blk<'_, f64>) {
    let f = |t: bool| if t { 1.0 } else { 0.0 };
    match op {
        CompareOp::Gt => zip2(out, a, b, |x, y| f(x > y)),
        CompareOp::Ge => zip2(out, a, b, |x, y| f(x >= y)),
        CompareOp::Lt => zip2(out, a, b, |x, y| f(x < y)),
        CompareOp::Le => zip2(out, a, b, |x, y| f(x <= y)),
        CompareOp::Eq => zip2(out, a, b, |x, y| f(x == y)),
        CompareOp::Ne => zip2(out, a, b, |x, y| f(x != y)),
    }
}

/// An operand whose data is `d`, as [`binary_periodic`] reads it.
#[inline(always)]
fn periodic(o: Operand, d: &[f64]) -> Option<Periodic<'_, f64>> {
    Some(match o.cover {
        Cover::Scalar => Periodic::Scalar(*d.first()?),
        Cover::Full => Periodic::Full(d),
        Cover::Repeat => Periodic::Repeat(d),
        Cover::PerBlock => Periodic::PerBlock(d),
    })
}

/// Block `c` (of `period` elements) of an operand whose data is `d`.
#[inline(always)]
fn block(o: Operand, d: &[f64], c: usize, period: usize) -> Option<Blk<'_, f64>> {
    let p = periodic(o, d)?;
    p.covers(period, c + 1).then(|| p.block(c, period))
}

/// `out` = the transposes of the `rows × cols` row-major matrices laid
/// end to end in `x` (as many as fit in `out`), in square tiles so that
/// both sides are read and written a few cache lines at a time.
fn transpose_tiles(x: &[f64], out: &mut [f64], rows: usize, cols: usize) {
    const TILE: usize = 8;
    let size = rows * cols;
    if size == 0 {
        return;
    }
    for (s, d) in x.chunks_exact(size).zip(out.chunks_exact_mut(size)) {
        for i0 in (0..rows).step_by(TILE) {
            let i1 = (i0 + TILE).min(rows);
            for j0 in (0..cols).step_by(TILE) {
                let j1 = (j0 + TILE).min(cols);
                for i in i0..i1 {
                    let row = &s[i * cols + j0..i * cols + j1];
                    for (j, &v) in (j0..j1).zip(row) {
                        d[j * rows + i] = v;
                    }
                }
            }
        }
    }
}

/// The reduction `op` of `x`, read as `[outer, extent, inner]`, over its
/// middle axis into `out` (`[outer, inner]`), in the reference kernel's
/// order: a sum over a last axis (or all axes) is NumPy's pairwise sum,
/// over another axis the slices added in order to zero; a product folds
/// from one; max and min start from the first slice.
fn reduce(op: ReduceOp, x: &[f64], out: &mut [f64], extent: usize, inner: usize) -> Option<()> {
    let block = extent * inner;
    for (o, dst) in out.chunks_exact_mut(inner.max(1)).enumerate() {
        let src = x.get(o * block..(o + 1) * block)?;
        match op {
            ReduceOp::Sum | ReduceOp::Mean if inner == 1 => dst[0] = pairwise_sum(src),
            ReduceOp::Max | ReduceOp::Min if inner == 1 => {
                dst[0] = fold_extreme(src, op == ReduceOp::Max)?;
            }
            ReduceOp::LogSumExp => logsumexp_blocks(src, dst, extent, inner)?,
            _ => fold_rows(op, src, dst)?,
        }
        if op == ReduceOp::Mean {
            let count = extent as f64;
            dst.iter_mut().for_each(|d| *d = Float::div(*d, count));
        }
    }
    Some(())
}

/// `dst` (of `inner` elements) folded with the rows of `src` (rows of
/// `inner` elements) in order: sums from zero, products from one, max
/// and min from the first row.
#[multiversion(targets("x86_64+avx2"))]
fn fold_rows(op: ReduceOp, src: &[f64], dst: &mut [f64]) -> Option<()> {
    let inner = dst.len();
    if inner == 0 {
        return Some(());
    }
    if !src.len().is_multiple_of(inner)
        || (src.is_empty() && matches!(op, ReduceOp::Max | ReduceOp::Min))
    {
        return None;
    }
    match op {
        ReduceOp::Sum | ReduceOp::Mean => fold_columns(src, dst, Some(0.0), |d, v| d.add(v)),
        ReduceOp::Prod => fold_columns(src, dst, Some(1.0), |d, v| d.mul(v)),
        ReduceOp::Max => fold_columns(src, dst, None, Arith::maximum),
        ReduceOp::Min => fold_columns(src, dst, None, Arith::minimum),
        // `reduce` computes it; the others are never on the tape.
        ReduceOp::LogSumExp
        | ReduceOp::Argmax
        | ReduceOp::Argmin
        | ReduceOp::All
        | ReduceOp::Any => return None,
    }
    Some(())
}

/// Columns folded at a time by [`fold_columns`]: running values that fit
/// in registers (four AVX2 registers) across the rows.
const FOLD_COLUMNS: usize = 16;

/// `dst[j] = f(...f(f(init, row0[j]), row1[j])..., rowN[j])` for every
/// column `j` (from the first row when `init` is `None`), the rows of
/// `src` taken in order: the columns in blocks of [`FOLD_COLUMNS`] whose
/// running values stay in registers down all the rows (rather than going
/// through `dst` at every row, a store and a load in each element's chain).
/// The caller checks that `src` holds whole rows (at least one without
/// `init`).
#[inline(always)]
fn fold_columns(src: &[f64], dst: &mut [f64], init: Option<f64>, f: impl Fn(f64, f64) -> f64) {
    let inner = dst.len();
    let rows = src.len() / inner;
    let skip = usize::from(init.is_none());
    let mut c0 = 0;
    while c0 < inner {
        let w = (inner - c0).min(FOLD_COLUMNS);
        let mut acc = [0.0f64; FOLD_COLUMNS];
        match init {
            Some(v) => acc[..w].fill(v),
            None => acc[..w].copy_from_slice(&src[c0..c0 + w]),
        }
        if w == FOLD_COLUMNS {
            for r in skip..rows {
                let row = &src[r * inner + c0..r * inner + c0 + FOLD_COLUMNS];
                for (a, &v) in acc.iter_mut().zip(row) {
                    *a = f(*a, v);
                }
            }
        } else {
            for r in skip..rows {
                let row = &src[r * inner + c0..r * inner + c0 + w];
                for (a, &v) in acc[..w].iter_mut().zip(row) {
                    *a = f(*a, v);
                }
            }
        }
        dst[c0..c0 + w].copy_from_slice(&acc[..w]);
        c0 += w;
    }
}

/// Runs operations on single elements of the arena, in order.
fn run_scalars(ops: &[ScalarOp], arena: &mut [f64]) -> Option<()> {
    let get = |arena: &[f64], i: u32| arena.get(i as usize).copied();
    for op in ops {
        let (v, dst) = match *op {
            ScalarOp::Move { src, dst } => (get(arena, src)?, dst),
            ScalarOp::MulAdd { acc, a, b, dst } => {
                (get(arena, acc)? + get(arena, a)? * get(arena, b)?, dst)
            }
            ScalarOp::Add { a, b, dst } => (get(arena, a)? + get(arena, b)?, dst),
            ScalarOp::Sub { a, b, dst } => (get(arena, a)? - get(arena, b)?, dst),
            ScalarOp::Mul { a, b, dst } => (get(arena, a)? * get(arena, b)?, dst),
            ScalarOp::Binary { op, a, b, dst } => {
                (binary1(op, get(arena, a)?, get(arena, b)?), dst)
            }
            ScalarOp::Unary { op, src, dst } => (get(arena, src)?.unary(op), dst),
        };
        *arena.get_mut(dst as usize)? = v;
    }
    Some(())
}

/// Runs a run compiled to machine code, after checking every slice it
/// touches against its extent (`None`, running nothing, when one is
/// short).
fn run_native(
    run: &NativeRun,
    arena: &mut [f64],
    at: &[ParamAt],
    src: &Sources<'_>,
    rows: &mut [Option<&mut [f64]>],
) -> Option<()> {
    let ext = &run.extent;
    let mut params = [std::ptr::null::<f64>(); MAX_POINTERS];
    for (p, &(k, need)) in params.iter_mut().zip(&ext.params) {
        *p = src.param(*at.get(k)?)?.get(..need)?.as_ptr();
    }
    let mut row_ptrs = [std::ptr::null_mut::<f64>(); MAX_POINTERS];
    for (p, &(j, len)) in row_ptrs.iter_mut().zip(&ext.rows) {
        if let Some(row) = rows.get_mut(j as usize).and_then(|r| r.as_deref_mut()) {
            *p = row.get_mut(..len)?.as_mut_ptr();
        }
    }
    let arena = arena.get_mut(..ext.arena)?;
    // SAFETY: the arena, each parameter and each row given hold the
    // elements the extent records (checked just above); the rows are
    // disjoint from each other, from the arena, and from the parameters
    // (the loop splits its buffers around them).
    unsafe { run.call(arena.as_mut_ptr(), params.as_ptr(), row_ptrs.as_ptr()) };
    Some(())
}

/// Runs one instruction; `direct`: the body result it writes straight
/// into `rows[direct]` when that row is given (see [`StepTape::run`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn exec(
    ins: &Instr,
    direct: Option<u32>,
    arena: &mut [f64],
    at: &[ParamAt],
    src: &Sources<'_>,
    rows: &mut [Option<&mut [f64]>],
    failure: &mut Option<(usize, String)>,
    scratch: &mut [KernelScratch],
) -> Option<()> {
    // The destination of an instruction over slices: its result's row, or
    // its region of the arena (all of the arena below it readable).
    macro_rules! split {
        ($dst:expr, $len:expr) => {
            match direct.and_then(|j| rows.get_mut(j as usize)?.as_deref_mut()) {
                Some(row) => (Around::whole(&arena[..]), row.get_mut(..$len)?),
                None => around(arena, $dst, $len)?,
            }
        };
    }
    match *ins {
        Instr::Native(ref run) => run_native(run, arena, at, src, rows)?,
        Instr::Kernel(ref call) => {
            let (ar, out) = around(arena, call.dst, call.len)?;
            let read = |loc: Loc, len: usize| read(ar, src, at, loc, len);
            if call.loop_outs.is_some() {
                // A nested loop: its error, if any, is the runner's.
                let runner = src.loops?;
                kernel::run_loop(call, scratch, read, out, runner).ok()?;
            } else if let Err(why) = kernel::run(call, scratch, read, out) {
                *failure = why.map(|msg| (call.node, msg));
                return None;
            }
        }
        Instr::Scalars(ref ops) => run_scalars(ops, arena)?,
        Instr::Move1 { src: s, dst } => {
            let x = read1(arena, src, at, s)?;
            *arena.get_mut(dst)? = x;
        }
        Instr::MulAdd1 { acc, a, b, dst } => {
            let c = read1(arena, src, at, acc)?;
            let x = read1(arena, src, at, a)?;
            let y = read1(arena, src, at, b)?;
            *arena.get_mut(dst)? = c + x * y;
        }
        Instr::Unary1 { op, src: s, dst } => {
            let x = read1(arena, src, at, s)?;
            *arena.get_mut(dst)? = x.unary(op);
        }
        Instr::Binary1 { op, a, b, dst } => {
            let x = read1(arena, src, at, a)?;
            let y = read1(arena, src, at, b)?;
            *arena.get_mut(dst)? = binary1(op, x, y);
        }
        Instr::Copy { src: s, dst, len } => {
            let (ar, out) = around(arena, dst, len)?;
            match (out, read(ar, src, at, s, len)?) {
                // A staged scalar: no call to copy one element.
                ([d], [x]) => *d = *x,
                (d, x) => d.copy_from_slice(x),
            }
        }
        Instr::Gather {
            src: s,
            src_len,
            dst,
            ref index,
        } => {
            let (ar, out) = around(arena, dst, index.len())?;
            let x = read(ar, src, at, s, src_len)?;
            for (o, &i) in out.iter_mut().zip(index.iter()) {
                *o = *x.get(i)?;
            }
        }
        Instr::Transpose {
            src: s,
            batch,
            rows,
            cols,
            dst,
        } => {
            let len = batch * rows * cols;
            let (ar, out) = around(arena, dst, len)?;
            transpose_tiles(read(ar, src, at, s, len)?, out, rows, cols);
        }
        Instr::Rows {
            src: s,
            rows,
            dst,
            op,
        } => {
            let (ar, out) = around(arena, dst, rows.len())?;
            rows::run(rows, op, read(ar, src, at, s, rows.span())?, out)?;
        }
        Instr::Unary {
            op,
            src: s,
            dst,
            len,
        } => {
            let (ar, out) = split!(dst, len);
            <f64 as Float>::unary_slice(op, read(ar, src, at, s, len)?, out);
        }
        Instr::Binary {
            op,
            a,
            b,
            dst,
            len,
            period,
        } => {
            let (ar, out) = split!(dst, len);
            let da = read(ar, src, at, a.loc, a.span(len, period))?;
            let db = read(ar, src, at, b.loc, b.span(len, period))?;
            if [a, b]
                .iter()
                .all(|o| matches!(o.cover, Cover::Full | Cover::Scalar))
            {
                // One block: the whole result.
                binary_block(op, out, block(a, da, 0, len)?, block(b, db, 0, len)?);
            } else {
                binary_periodic(op, out, period, periodic(a, da)?, periodic(b, db)?)
                    .then_some(())?;
            }
        }
        Instr::Binary2 {
            outer,
            inner,
            inner_first,
            x,
            y,
            z,
            dst,
            len,
            period,
        } => {
            let (ar, out) = split!(dst, len);
            let dx = read(ar, src, at, x.loc, x.span(len, period))?;
            let dy = read(ar, src, at, y.loc, y.span(len, period))?;
            let dz = read(ar, src, at, z.loc, z.span(len, period))?;
            // Operands whole or scalars have `period == len`: one block.
            let (px, py, pz) = (periodic(x, dx)?, periodic(y, dy)?, periodic(z, dz)?);
            binary2_periodic(outer, inner, inner_first, out, period, px, py, pz).then_some(())?;
        }
        Instr::Compare { op, a, b, dst, len } => {
            let (ar, out) = around(arena, dst, len)?;
            let sa = block(a, read(ar, src, at, a.loc, a.span(len, len))?, 0, len)?;
            let sb = block(b, read(ar, src, at, b.loc, b.span(len, len))?, 0, len)?;
            compare_block(op, out, sa, sb);
        }
        Instr::Select {
            cond,
            a,
            b,
            dst,
            len,
            period,
        } => {
            let (ar, out) = around(arena, dst, len)?;
            let dc = read(ar, src, at, cond.loc, cond.span(len, period))?;
            let da = read(ar, src, at, a.loc, a.span(len, period))?;
            let db = read(ar, src, at, b.loc, b.span(len, period))?;
            let (pc, pa, pb) = (periodic(cond, dc)?, periodic(a, da)?, periodic(b, db)?);
            select_periodic(out, period, pc, pa, pb).then_some(())?;
        }
        Instr::Reduce {
            op,
            src: s,
            dst,
            outer,
            extent,
            inner,
        } => {
            let (ar, out) = around(arena, dst, outer * inner)?;
            let x = read(ar, src, at, s, outer * extent * inner)?;
            reduce(op, x, out, extent, inner)?;
        }
        Instr::Normalize {
            op,
            src: s,
            dst,
            outer,
            extent,
            inner,
        } => {
            let len = outer * extent * inner;
            let (ar, out) = around(arena, dst, len)?;
            let x = read(ar, src, at, s, len)?;
            normalize_blocks(op, x, out, extent, inner);
        }
        Instr::Gemv {
            rows,
            cols,
            x,
            dst,
            packed_a: Some(p),
            ..
        } => {
            let (ar, y) = around(arena, dst, rows)?;
            let pa = read(ar, src, at, Loc::Arena(p), rows * cols)?;
            let xs = read(ar, src, at, x, cols)?;
            matvec::gemv_row_blocks(pa, xs, y).then_some(())?;
        }
        Instr::Gemv {
            a,
            rows,
            cols,
            x,
            dst,
            transposed,
            packed_a: None,
        } => {
            let (ar, y) = around(arena, dst, rows)?;
            let da = read(ar, src, at, a, rows * cols)?;
            let xs = read(ar, src, at, x, cols)?;
            // A matrix with one row or one column has the same
            // elements in both layouts; `gemv` reads it by rows.
            let done = if transposed && rows > 1 && cols > 1 {
                matvec::gemv_col_major(da, xs, y)
            } else {
                matvec::gemv_row_major(da, xs, y)
            };
            done.then_some(())?;
        }
        Instr::LogMatMulExp {
            a,
            b,
            exp_b,
            rows,
            n,
            m,
            dst,
        } => {
            let (ar, out) = around(arena, dst, rows * m + n)?;
            let av = read(ar, src, at, a, rows * n)?;
            let bv = read(ar, src, at, b, n * m)?;
            let ev = read(ar, src, at, exp_b, n * m)?;
            let (out, w) = out.split_at_mut(rows * m);
            logmatmulexp::rows(av, bv, ev, n, m, w, out);
        }
        Instr::Factor {
            kind,
            a,
            b,
            n,
            m,
            dst,
            node,
        } => {
            let (ar, out) = split!(dst, kind.out_len(n, m));
            let av = read(ar, src, at, a, n * n)?;
            let bv = if kind.reads_b() {
                read(ar, src, at, b, n * m)?
            } else {
                &[]
            };
            if let Err(msg) = factor::small(kind, av, bv, n, m, out) {
                *failure = Some((node, msg));
                return None;
            }
        }
        Instr::IndexAt {
            src: s,
            at: a,
            count,
            outer,
            size,
            inner,
            axis,
            dst,
            node,
        } => {
            let (ar, out) = around(arena, dst, outer * count * inner)?;
            let x = read(ar, src, at, s, outer * size * inner)?;
            let idx = read(ar, src, at, a, count)?;
            for (k, &i) in idx.iter().enumerate() {
                // Exact: an integer of at most 2^53 in magnitude.
                let j = match index_position(size, axis, i as i64) {
                    Ok(j) => j,
                    Err(msg) => {
                        *failure = Some((node, msg));
                        return None;
                    }
                };
                for o in 0..outer {
                    let from = (o * size + j) * inner;
                    let to = (o * count + k) * inner;
                    out.get_mut(to..to + inner)?
                        .copy_from_slice(x.get(from..from + inner)?);
                }
            }
        }
        Instr::Inner { a, b, len, dst } => {
            let (ar, out) = around(arena, dst, 1)?;
            let x = ArrayView1::from(read(ar, src, at, a, len)?);
            let y = ArrayView1::from(read(ar, src, at, b, len)?);
            *out.first_mut()? = matvec::inner(&x, &y);
        }
        Instr::Gemm {
            a,
            b,
            shape,
            packed_b,
            dst,
            ref then,
        } => {
            let len = shape.batch * shape.m * shape.n;
            let (ar, out) = around(arena, dst, len)?;
            let da = read(ar, src, at, a, shape.a_span())?;
            let db = read(ar, src, at, b, shape.b_span())?;
            let GemmShape { m, k, n, .. } = shape;
            let packed = match packed_b {
                Some(p) => Some(ar.get(p, shape.packed_b_span())?),
                None => None,
            };
            let operands = Operands::read(then, len, |loc, span| read(ar, src, at, loc, span))?;
            let plen = prepacked::packed_len(k, n);
            for (g, c) in out.chunks_exact_mut((m * n).max(1)).enumerate() {
                let ag = da.get(g * shape.a_stride..)?;
                let bg = db.get(g * shape.b_stride..)?;
                let bp = match packed {
                    Some(bp) => Some(bp.get(if shape.b_stride == 0 { 0 } else { g * plen }..)?),
                    None => None,
                };
                let mut srcs = [prepacked::StepSrc::Scalar(0.0); 2 * MAX_STAGES];
                let srcs = operands.of_batch(g, m * n, &mut srcs)?;
                epilogue::product(then, srcs, ag, bg, bp, (m, k, n), c)?;
            }
        }
        Instr::PackRows {
            src: a,
            rows,
            cols,
            dst,
        } => {
            let (ar, out) = around(arena, dst, rows * cols)?;
            let da = read(ar, src, at, a, rows * cols)?;
            matvec::pack_row_blocks(da, rows, cols, out)?;
        }
        Instr::PackB { src: b, shape, dst } => {
            let (ar, out) = around(arena, dst, shape.packed_b_span())?;
            let db = read(ar, src, at, b, shape.b_span())?;
            let GemmShape { k, n, .. } = shape;
            let plen = prepacked::packed_len(k, n);
            for g in 0..shape.b_count() {
                let bg = db.get(g * shape.b_stride..)?;
                prepacked::pack(bg, k, n, out.get_mut(g * plen..)?)?;
            }
        }
    }
    Some(())
}

impl StepTape {
    /// Runs one step: body parameter `k` is at `at[k]` in `src`. `None`
    /// only if the tape and the loop disagree about the data (an internal
    /// error: nothing a program can cause).
    ///
    /// `rows[j]`, when given, is the row of the loop's buffer that body
    /// result `j` goes to: the instruction that computes the result (see
    /// [`StepTape::direct`]) writes it there instead of into the arena,
    /// and the caller does not copy it. Any other result stays in the
    /// arena ([`StepTape::result`]).
    pub(crate) fn run(
        &mut self,
        at: &[ParamAt],
        src: &Sources<'_>,
        rows: &mut [Option<&mut [f64]>],
    ) -> Option<()> {
        self.failure = None;
        for (ins, &direct) in self.instrs.iter().zip(&self.direct) {
            exec(
                ins,
                direct,
                &mut self.arena,
                at,
                src,
                rows,
                &mut self.failure,
                &mut self.scratch,
            )?;
        }
        Some(())
    }

    /// The body node and the error of a linalg op that stopped the last
    /// step ([`Instr::Factor`]): a program's error, not a disagreement.
    pub(crate) fn failure(&self) -> Option<&(usize, String)> {
        self.failure.as_ref()
    }

    /// Runs the instructions that compute the same values on every step
    /// (see [`StepTape::prologue`]): once per call, before its steps on the
    /// tape, with the parameters placed for any of them.
    pub(crate) fn run_prologue(&mut self, at: &[ParamAt], src: &Sources<'_>) -> Option<()> {
        for ins in &self.prologue {
            exec(
                ins,
                None,
                &mut self.arena,
                at,
                src,
                &mut [],
                &mut self.failure,
                &mut self.scratch,
            )?;
        }
        Some(())
    }

    /// Body result `j` of the step that ran last.
    pub(crate) fn result(&self, j: usize) -> Option<&[f64]> {
        let &(off, len) = self.results.get(j)?;
        self.arena.get(off..off + len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::ops::reduce::logsumexp_of;

    /// The fold written plainly: each column's elements in row order.
    fn plain(op: ReduceOp, src: &[f64], inner: usize) -> Vec<f64> {
        let rows = src.len() / inner;
        (0..inner)
            .map(|j| {
                let col = (0..rows).map(|r| src[r * inner + j]);
                match op {
                    ReduceOp::Sum | ReduceOp::Mean => col.fold(0.0, |a, v| a.add(v)),
                    ReduceOp::Prod => col.fold(1.0, |a, v| a.mul(v)),
                    ReduceOp::Max => col.reduce(Arith::maximum).unwrap_or(f64::NAN),
                    ReduceOp::Min => col.reduce(Arith::minimum).unwrap_or(f64::NAN),
                    ReduceOp::LogSumExp => {
                        let v: Vec<f64> = col.collect();
                        logsumexp_of(v.len(), |i| v[i])
                    }
                    ReduceOp::Argmax | ReduceOp::Argmin | ReduceOp::All | ReduceOp::Any => f64::NAN,
                }
            })
            .collect()
    }

    #[test]
    fn logsumexp_on_the_tape_is_the_reference_kernels() {
        // Along a last axis and a leading one, with -inf, +inf and NaN
        // columns: the bits of ops::reduce (the plan's and the
        // interpreter's kernel).
        let (rows, inner) = (5usize, 4usize);
        let mut src: Vec<f64> = (0..rows * inner)
            .map(|i| (i as f64 * 0.91).sin() * 700.0)
            .collect();
        for r in 0..rows {
            src[r * inner] = f64::NEG_INFINITY;
        }
        src[inner + 1] = f64::INFINITY;
        src[2 * inner + 2] = f64::NAN;
        let x = crate::exec::Value::F64(
            ndarray::ArrayD::from_shape_vec(vec![rows, inner], src.clone()).unwrap(),
        );
        for (axis, extent, inner, outer) in [(0i64, rows, inner, 1usize), (1, inner, 1, rows)] {
            let want = crate::exec::ops::reduce::reduce(
                ReduceOp::LogSumExp,
                &x,
                Some(axis),
                crate::lang::DType::F64,
            )
            .unwrap();
            let mut got = vec![0.0; outer * inner];
            reduce(ReduceOp::LogSumExp, &src, &mut got, extent, inner).unwrap();
            let want: Vec<u64> = want.to_array::<f64>().iter().map(|v| v.to_bits()).collect();
            let got: Vec<u64> = got.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, want, "axis {axis}");
        }
    }

    #[test]
    fn folds_over_rows_keep_each_columns_order() {
        // Widths below, at and past the register block, values of mixed
        // magnitudes (the order shows in the last bits), NaN and -0.
        for inner in [1usize, 7, 16, 17, 32, 33, 50] {
            for rows in [1usize, 2, 5, 32] {
                let src: Vec<f64> = (0..rows * inner)
                    .map(|i| match i % 29 {
                        3 => f64::NAN,
                        7 => -0.0,
                        _ => ((i as f64) * 0.77).sin() * 10f64.powi((i % 13) as i32 - 6),
                    })
                    .collect();
                for op in [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min] {
                    let mut dst = vec![f64::NAN; inner];
                    assert!(fold_rows(op, &src, &mut dst).is_some());
                    let want = plain(op, &src, inner);
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&dst), bits(&want), "{op:?} {rows} x {inner}");
                }
            }
        }
        // Max of no rows has no value; a partial row is refused.
        assert!(fold_rows(ReduceOp::Max, &[], &mut [0.0; 3]).is_none());
        assert!(fold_rows(ReduceOp::Sum, &[1.0; 5], &mut [0.0; 3]).is_none());
    }
}
