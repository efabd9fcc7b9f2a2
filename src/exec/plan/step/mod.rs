//! A loop body compiled for its shapes: straight-line instructions over
//! one preallocated arena of `f64`, run once per step without the plan's
//! per-node dispatch, views or shape checks.
//!
//! Owns: [`StepTape`] — the instructions of one loop body for one set of
//! parameter shapes ([`compile`]), the arena its values live in, and
//! running a step ([`StepTape::run`]) and writing its results into the
//! loop's output rows ([`StepTape::commit`]). The loop itself
//! (`plan::scan`) runs the first step through the plan, which sizes the
//! buffers and checks every shape and budget, then hands the remaining
//! steps to the tape when the body compiles to one.
//!
//! What compiles: bodies whose values are all `f64` (integer literals and
//! sizes may appear as operands and static indices), made of elementwise
//! unary and binary ops, comparisons made in `f64` (their booleans held
//! as 1.0 and 0.0) and `where`, reductions, `dot`/`matmul` of vectors and
//! matrices, and the layout ops (`reshape`, `expand_dims`, `squeeze`,
//! `transpose`, static `index`, `slice`, `stack`, `concat` along axis 0,
//! `cast` to `f64`, `tensor`, `fill`, `zeros`, `ones`). None of them can fail once the shapes are fixed, so
//! a step on the tape never fails; anything else (nested loops, integer or
//! boolean values, indices read from data) leaves the loop on the plan.
//!
//! Bits: each instruction calls the element functions and kernels the
//! plan calls — `Float::unary`/`unary_slice`, `Arith`, NumPy's pairwise
//! sum, the canonical matrix-vector kernels, `gemm::gemm_rows` — in the
//! plan's order, so a loop gives the same bits on the tape and off it
//! (`tests/plan.rs` runs every case both ways).
//!
//! Small values: a value of at most a few elements (a Kalman filter's
//! 2×2 covariance, a GARCH variance) is computed one element at a time
//! by scalar instructions — the matrix-vector and matrix kernels' element
//! orders spelled out element by element, pairwise sums unrolled — and
//! runs of consecutive scalar instructions are packed into one
//! `Instr::Scalars` so a step of a small body is a flat loop over a few
//! dozen scalar operations. The parameters those read are staged (copied
//! into the arena once per step) so the scalar operations address one
//! slice.
//!
//! Storage: every value has its own region of the arena, allocated in
//! schedule order, so an instruction's operands always lie below its
//! destination and the arena splits into a read part and a write part
//! without `unsafe`. Views whose data is contiguous (reshapes, static
//! indices, unit-step slices) share their argument's region or read the
//! parameter in place; the loop's parameters are read where they are (a
//! row of a sequence, a row of an output buffer, an init, a
//! non-sequence), never copied in. Must not: allocate while a step runs,
//! or fail a step the plan would have run.

mod compile;
mod run;

pub(crate) use compile::{compile, ParamShape};
pub(crate) use run::{ParamAt, Sources, Store};

use crate::lang::{BinaryOp, CompareOp, ReduceOp, UnaryOp};

/// Where a value of the step lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    /// At this offset of the arena.
    Arena(usize),
    /// In body parameter `.0`, from element `.1` on.
    Param(usize, usize),
}

/// How a binary operand covers the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cover {
    /// Every element, in order.
    Full,
    /// One element, for all.
    Scalar,
    /// A block of `period` elements that repeats (a row added to every
    /// row of a matrix).
    Repeat,
    /// One element per block of `period` result elements (a column
    /// added to every column of a matrix).
    PerBlock,
}

/// One operand of a binary instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Operand {
    /// Where it is.
    pub loc: Loc,
    /// How it covers the result.
    pub cover: Cover,
}

impl Operand {
    /// The elements it spans in an instruction of `len` results whose
    /// repeating block has `period` elements.
    pub(crate) fn span(self, len: usize, period: usize) -> usize {
        match self.cover {
            Cover::Full => len,
            Cover::Scalar => 1,
            Cover::Repeat => period,
            Cover::PerBlock => len / period.max(1),
        }
    }
}

/// An instruction on one element whose operands all lie in the arena:
/// what a run of [`Instr::Scalars`] holds (20 bytes, against the 80 of a
/// general instruction, and one dispatch per operation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScalarOp {
    /// `dst = src`.
    Move { src: u32, dst: u32 },
    /// `dst = acc + a·b` (two roundings).
    MulAdd { acc: u32, a: u32, b: u32, dst: u32 },
    /// `dst = a + b`.
    Add { a: u32, b: u32, dst: u32 },
    /// `dst = a − b`.
    Sub { a: u32, b: u32, dst: u32 },
    /// `dst = a · b`.
    Mul { a: u32, b: u32, dst: u32 },
    /// `dst = op(a, b)`, any other binary operation.
    Binary {
        op: BinaryOp,
        a: u32,
        b: u32,
        dst: u32,
    },
    /// `dst = op(src)`.
    Unary { op: UnaryOp, src: u32, dst: u32 },
}

/// One instruction; every destination is a region of the arena.
#[derive(Clone, Debug)]
pub(crate) enum Instr {
    /// `dst[..len] = src[..len]`.
    Copy { src: Loc, dst: usize, len: usize },
    /// `dst[i] = src[index[i]]`: transposes, broadcasts, strided slices.
    Gather {
        src: Loc,
        src_len: usize,
        dst: usize,
        index: Box<[usize]>,
    },
    /// Operations on one element each, all in the arena, in order.
    Scalars(Box<[ScalarOp]>),
    /// `dst = src` on one element.
    Move1 { src: Loc, dst: usize },
    /// `dst = acc + a·b` on one element each (two roundings, no fused
    /// multiply-add): one step of a product's sum, in its kernel's order.
    MulAdd1 {
        acc: Loc,
        a: Loc,
        b: Loc,
        dst: usize,
    },
    /// `dst = op(src)` on one element.
    Unary1 { op: UnaryOp, src: Loc, dst: usize },
    /// `dst[i] = op(src[i])`.
    Unary {
        op: UnaryOp,
        src: Loc,
        dst: usize,
        len: usize,
    },
    /// `dst = op(a, b)` on one element each.
    Binary1 {
        op: BinaryOp,
        a: Loc,
        b: Loc,
        dst: usize,
    },
    /// `dst[i] = op(a[i], b[i])` with each operand's cover; `period` is
    /// the length of a repeating operand's block (`len` when none).
    Binary {
        op: BinaryOp,
        a: Operand,
        b: Operand,
        dst: usize,
        len: usize,
        period: usize,
    },
    /// `dst[i] = op(a[i], b[i])` as 1.0 or 0.0 (operands whole or
    /// scalars).
    Compare {
        op: CompareOp,
        a: Operand,
        b: Operand,
        dst: usize,
        len: usize,
    },
    /// `dst[i] = if cond[i] != 0 { a[i] } else { b[i] }` (operands whole
    /// or scalars).
    Select {
        cond: Operand,
        a: Operand,
        b: Operand,
        dst: usize,
        len: usize,
    },
    /// A reduction of `src`, read as `[outer, extent, inner]`, over the
    /// middle axis into `[outer, inner]` (a mean divides by `extent`).
    Reduce {
        op: ReduceOp,
        src: Loc,
        dst: usize,
        outer: usize,
        extent: usize,
        inner: usize,
    },
    /// `dst = A · x` for a row-major `(rows, cols)` `A`, or with
    /// `transposed`, `dst = Bᵀ · x` for a row-major `(cols, rows)` `B`
    /// (`x · B`, as the plan computes it).
    Gemv {
        a: Loc,
        rows: usize,
        cols: usize,
        x: Loc,
        dst: usize,
        transposed: bool,
    },
    /// `dst = a · b` of two vectors.
    Inner {
        a: Loc,
        b: Loc,
        len: usize,
        dst: usize,
    },
    /// `dst[g] = A[g] · B[g]` for each batch `g` of `shape`.
    Gemm {
        a: Loc,
        b: Loc,
        shape: GemmShape,
        dst: usize,
    },
}

/// The shape of a [`Instr::Gemm`]: `batch` products of row-major `(m, k)`
/// and `(k, n)` matrices, batch `g`'s `A` at element `g·a_stride` of its
/// operand (0: the same matrix for every batch), its `B` likewise, its
/// result at `g·m·n` of the destination.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GemmShape {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub batch: usize,
    pub a_stride: usize,
    pub b_stride: usize,
}

impl GemmShape {
    /// The elements of `A`'s operand that the products read.
    pub fn a_span(&self) -> usize {
        self.a_stride * self.batch.saturating_sub(1) + self.m * self.k
    }

    /// The elements of `B`'s operand that the products read.
    pub fn b_span(&self) -> usize {
        self.b_stride * self.batch.saturating_sub(1) + self.k * self.n
    }
}

/// A loop body compiled for one set of parameter shapes.
#[derive(Clone, Debug)]
pub(crate) struct StepTape {
    /// The instructions, in schedule order.
    instrs: Vec<Instr>,
    /// The arena: constants (written once, when the tape is made) and
    /// every computed value.
    arena: Vec<f64>,
    /// Per body result: its region of the arena and its length.
    results: Vec<(usize, usize)>,
    /// Per body parameter: its number of elements (one row of a sequence,
    /// of a state; a whole non-sequence), 0 when the tape does not read it.
    param_sizes: Vec<usize>,
}

impl StepTape {
    /// The bytes the arena holds.
    pub(crate) fn arena_bytes(&self) -> usize {
        self.arena.len() * std::mem::size_of::<f64>()
    }

    /// The number of elements of body parameter `k` (0 when the tape does
    /// not read it): a row's length, to place the row in its buffer.
    pub(crate) fn param_size(&self, k: usize) -> usize {
        self.param_sizes.get(k).copied().unwrap_or(0)
    }

    /// True when every operand an instruction over slices reads from the
    /// arena lies below its destination (what lets a step split the arena
    /// into a read part and a write part). Instructions on one element
    /// read and write the arena whole, anywhere.
    fn operands_below_destinations(&self) -> bool {
        let below = |loc: Loc, len: usize, dst: usize| match loc {
            Loc::Arena(o) => o + len <= dst,
            Loc::Param(..) => true,
        };
        self.instrs.iter().all(|ins| match *ins {
            Instr::Copy { src, dst, len } | Instr::Unary { src, dst, len, .. } => {
                below(src, len, dst)
            }
            Instr::Gather {
                src, src_len, dst, ..
            } => below(src, src_len, dst),
            Instr::Scalars(_)
            | Instr::Move1 { .. }
            | Instr::MulAdd1 { .. }
            | Instr::Unary1 { .. }
            | Instr::Binary1 { .. } => true,
            Instr::Binary {
                a,
                b,
                dst,
                len,
                period,
                ..
            } => below(a.loc, a.span(len, period), dst) && below(b.loc, b.span(len, period), dst),
            Instr::Compare { a, b, dst, len, .. } => {
                below(a.loc, a.span(len, len), dst) && below(b.loc, b.span(len, len), dst)
            }
            Instr::Select {
                cond,
                a,
                b,
                dst,
                len,
            } => {
                let span = |o: Operand| if o.cover == Cover::Scalar { 1 } else { len };
                below(cond.loc, span(cond), dst)
                    && below(a.loc, span(a), dst)
                    && below(b.loc, span(b), dst)
            }
            Instr::Reduce {
                src,
                dst,
                outer,
                extent,
                inner,
                ..
            } => below(src, outer * extent * inner, dst),
            Instr::Gemv {
                a,
                rows,
                cols,
                x,
                dst,
                ..
            } => below(a, rows * cols, dst) && below(x, cols, dst),
            Instr::Inner { a, b, len, dst } => below(a, len, dst) && below(b, len, dst),
            Instr::Gemm { a, b, shape, dst } => {
                below(a, shape.a_span(), dst) && below(b, shape.b_span(), dst)
            }
        })
    }
}
