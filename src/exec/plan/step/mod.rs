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
//! `cast` to `f64`, `tensor`, `fill`, `zeros`, `ones`), `take` by a
//! literal index (a view of its operand), and `index` and `take` by
//! integers read from the loop's data ([`Instr::IndexAt`]).
//! Any other op — an update (`inc_slice`, `inc_index`, `inc_take`), a
//! cumulative sum, an op computing integers, booleans or `f32` — is an
//! [`Instr::Kernel`]: the plan's own kernel (`kernels::fast`, else the
//! reference kernel) called on its `f64` operands read in place (views
//! of the arena or of the loop's data) and on copies of the others, its
//! result copied back ([`kernel`]; an `i64` it computes is held as
//! its 64 bits, which only another kernel call reads). Once the shapes
//! are fixed only a kernel can fail, as the plan would: a singular matrix
//! of a linalg op, an index out of range, any error of a kernel call stop
//! the step with the plan's error. A nested loop is such a call too, its
//! kernel the plan's own loop runner (`kernel::LoopRunner`, its own step
//! tape included), its outputs one region of the arena. A value whose
//! shape a step sets — a nested while loop's outputs, whose lengths are
//! known only once it has run, and what is computed from them up to a
//! value of a fixed shape — is not in the arena: it stays in the scratch
//! of the call that computed it, and only kernel calls and nested loops
//! read it (`kernel::Own`). What is left (a parameter the tape cannot
//! read, a nested loop too large to copy) leaves the loop on the plan,
//! and [`OffTape`] says why.
//!
//! Dtypes: the arena holds every value in `f64` as [`Held`] says — its
//! number (exact for `f32`, `i32`, bool and integers up to 2^53) or, for
//! an `i64` or key computed by a kernel, read from an `i64` state or
//! from integer data past 2^53, its 64 bits. A loop output of another
//! dtype than `f64` is written into an `f64` shadow of its buffer, which
//! the loop makes from the buffer before a run on the tape and writes
//! back, in the buffer's dtype, row by row for the rows the tape wrote
//! (`plan::scan`); a result held otherwise than its row holds it is cast
//! by the plan's kernel first ([`compile`]). Values without elements
//! (rows of width 0) are never read: nothing to compute.
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
//! Storage: every value gets its own region of the arena, allocated in
//! schedule order; then the values of a step that are large enough share
//! regions ([`reuse`]): a value whose last reader has run gives its region
//! to a later one, so a step's values stay in the cache. An instruction's
//! operands lie wholly below or wholly above its destination, and a step
//! splits the arena around it without `unsafe`. Views whose data is contiguous (reshapes, static
//! indices, unit-step slices) share their argument's region or read the
//! parameter in place; the loop's parameters are read where they are (a
//! row of a sequence, a row of an output buffer, an init, a
//! non-sequence), never copied in.
//!
//! Packed operands: a step neither packs a matrix product's `B` nor
//! reads a matrix-vector product's large matrix in rows apart when that
//! operand is the same on every step: [`Instr::PackB`] and
//! [`Instr::PackRows`] pack it once per call, in the prologue.
//!
//! Passes: a matrix product computes its only elementwise reader as it
//! stores each element ([`epilogue`]); then a sum or product whose
//! result only one other sum or product reads is computed inside it
//! ([`Instr::Binary2`], one pass over the elements instead of two, its
//! operands whole, scalars, or repeating with one period: a padded
//! batch's mask); a gather of whole rows at a stride (an LSTM's gate
//! sliced out of its packed pre-activation) copies rows, and the
//! activation that alone reads it is applied to the rows where they lie
//! ([`rows`], one pass instead of two); and a body result that an elementwise
//! instruction computes last, and no later instruction reads, is written
//! by it straight into the loop's row for the step instead of the arena
//! (`direct`; the loop splits the buffer around that row, and keeps the
//! result in the arena on a step that reads the row, as a ring buffer of
//! one row does).
//!
//! Native code: once a call runs enough steps (`PlanOptions::
//! native_steps`), [`StepTape::make_native`] compiles the runs of the
//! step's instructions that gain from it — operations on single elements,
//! and groups of elementwise instructions over the same elements — to
//! machine code with cranelift ([`native`]), one function per run, which
//! then stands in the instruction list as one [`Instr::Native`]. The same
//! operations in the same order, so the same bits. Must not: allocate
//! while a step runs, or fail a step the plan would have run.

mod compile;
mod epilogue;
mod kernel;
mod native;
mod off_tape;
mod reuse;
mod rows;
mod run;

pub(crate) use compile::{compile, Holding, ParamShape};
pub(crate) use epilogue::Stage;
pub(crate) use kernel::{Held, LoopRunner};
pub(crate) use native::MAX_POINTERS;
pub use off_tape::OffTape;
pub(crate) use run::{BufRows, Bufs, ParamAt, Sources, Store};

use crate::exec::aligned::CacheAligned;
use crate::exec::ops::factor::Small;
use crate::exec::ops::prepacked;
use crate::lang::{BinaryOp, CompareOp, NormOp, ReduceOp, UnaryOp};

/// Where a value of the step lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    /// At this offset of the arena.
    Arena(usize),
    /// In body parameter `.0`, from element `.1` on.
    Param(usize, usize),
}

/// True when arena regions `[o, o + l)` and `[p, p + m)` share an
/// element (what the tape's passes ask before moving or merging a write).
pub(super) fn overlaps(o: usize, l: usize, p: usize, m: usize) -> bool {
    o < p + m && p < o + l
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
    /// `dst = op(rows of src)`: the [`rows::Rows`] of `src` laid end to
    /// end, each element mapped by `op` when given (a gather of whole
    /// rows at a stride, and the activation that alone reads it).
    Rows {
        src: Loc,
        rows: rows::Rows,
        dst: usize,
        op: Option<UnaryOp>,
    },
    /// `dst = src` with the last two axes swapped: `src` read as `batch`
    /// row-major `rows × cols` matrices, `dst` as their `cols × rows`
    /// transposes, in tiles (a transpose in a step, such as the
    /// `hᵀ` of a weight gradient's `hᵀ·g`, without an index per element).
    Transpose {
        src: Loc,
        batch: usize,
        rows: usize,
        cols: usize,
        dst: usize,
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
    /// `dst[i] = outer(inner(x[i], y[i]), z[i])` when `inner_first`, else
    /// `outer(z[i], inner(x[i], y[i]))`, for `outer` and `inner` among
    /// add, sub and mul, each operand with its cover as in
    /// [`Instr::Binary`] (`period` the length of a repeating operand's
    /// block, `len` when none): a binary instruction and the one whose
    /// result only it reads, in one pass (see [`fuse_binaries`]).
    Binary2 {
        outer: BinaryOp,
        inner: BinaryOp,
        inner_first: bool,
        x: Operand,
        y: Operand,
        z: Operand,
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
    /// `dst[i] = if cond[i] != 0 { a[i] } else { b[i] }`, each operand
    /// with its cover as in [`Instr::Binary`] (`period` the length of a
    /// repeating operand's block, `len` when none): a row mask broadcast
    /// along its rows is one element per block, read in place.
    Select {
        cond: Operand,
        a: Operand,
        b: Operand,
        dst: usize,
        len: usize,
        period: usize,
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
    /// Softmax or log-softmax of `src`, read as `outer × extent × inner`
    /// (row-major) along the middle axis, into `dst` of the same length:
    /// each of the `outer × inner` lanes is `extent` elements `inner`
    /// apart (contiguous for the last axis, `inner = 1`).
    Normalize {
        op: NormOp,
        src: Loc,
        dst: usize,
        outer: usize,
        extent: usize,
        inner: usize,
    },
    /// The slices of `src` (read as `[outer, size, inner]`) along its
    /// middle axis at the `count` indices held at `at` into `dst` (read
    /// as `[outer, count, inner]`): `index` and `take` by integers read
    /// from the loop's data, each held as its `f64` (exact: the loop
    /// converts integers of at most 2^53 in magnitude only), negative
    /// from the end. An index out of range stops the step with the
    /// plan's error (`node` is the body node, `axis` the axis it names).
    IndexAt {
        src: Loc,
        at: Loc,
        count: usize,
        outer: usize,
        size: usize,
        inner: usize,
        axis: usize,
        dst: usize,
        node: usize,
    },
    /// `dst = A · x` for a row-major `(rows, cols)` `A`, or with
    /// `transposed`, `dst = Bᵀ · x` for a row-major `(cols, rows)` `B`
    /// (`x · B`, as the plan computes it).
    /// With `packed_a`, `A` is read from there instead, packed by an
    /// [`Instr::PackRows`] (`matvec::pack_row_blocks`; the same bits).
    Gemv {
        a: Loc,
        rows: usize,
        cols: usize,
        x: Loc,
        dst: usize,
        transposed: bool,
        packed_a: Option<usize>,
    },
    /// The row-major `(rows, cols)` matrix at `src` packed into `rows ·
    /// cols` elements from `dst` on for the [`Instr::Gemv`] that reads it
    /// (`matvec::pack_row_blocks`): emitted only for a matrix the same on
    /// every step, so it runs once per call, in the prologue.
    PackRows {
        src: Loc,
        rows: usize,
        cols: usize,
        dst: usize,
    },
    /// `dst = a · b` of two vectors.
    Inner {
        a: Loc,
        b: Loc,
        len: usize,
        dst: usize,
    },
    /// `dst[k·m + j] = log Σ_i exp(a[k·n + i] + b[i·m + j])` for each of
    /// `rows` rows of `a`, given `exp_b = exp(b)` (an earlier
    /// instruction's value, in the prologue when `b` does not change
    /// between steps), with `n` elements of scratch after the result
    /// (`logmatmulexp::rows`).
    LogMatMulExp {
        a: Loc,
        b: Loc,
        exp_b: Loc,
        rows: usize,
        n: usize,
        m: usize,
        dst: usize,
    },
    /// A linalg op on one n×n matrix `a` (`n ≤ factor::SMALL_N`) and, for
    /// the solves, the n×m right-hand side `b`: `factor::small`, its
    /// scratch on the stack. A singular (or not positive definite) matrix
    /// stops the step; `node` is the body node, for the error.
    Factor {
        kind: Small,
        a: Loc,
        b: Loc,
        n: usize,
        m: usize,
        dst: usize,
        node: usize,
    },
    /// `dst[g] = A[g] · B[g]` for each batch `g` of `shape`; with
    /// `packed_b`, each distinct `B` is also packed there (by an
    /// [`Instr::PackB`], in the prologue when `B` does not change between
    /// steps), `prepacked::packed_len(k, n)` elements apart, and the
    /// products read it instead of packing `B` and `A` (the same bits).
    /// `then`: the elementwise instructions that read only the product,
    /// in order, computed on each element as the kernel stores it
    /// ([`epilogue`]); `dst` is then the last one's result.
    Gemm {
        a: Loc,
        b: Loc,
        shape: GemmShape,
        packed_b: Option<usize>,
        dst: usize,
        then: Box<[Stage]>,
    },
    /// Each distinct `B` of the products of `shape` (`shape.b_count()`
    /// row-major `(k, n)` matrices, `b_stride` elements apart from `src`
    /// on) packed into `prepacked::packed_len(k, n)` elements from `dst`
    /// on, for the [`Instr::Gemm`] of the same shape.
    PackB {
        src: Loc,
        shape: GemmShape,
        dst: usize,
    },
    /// An op the tape does not specialize, computed by the plan's own
    /// kernels on copies of its operands ([`kernel`]); a kernel's error
    /// stops the step with the plan's error.
    Kernel(Box<kernel::KernelCall>),
    /// A run of the instructions above compiled to machine code
    /// ([`native`]): the same operations on the same elements in the same
    /// order, without a dispatch per operation, the values of one group
    /// of elementwise instructions kept in registers.
    Native(Box<native::NativeRun>),
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

    /// The distinct `B` matrices: one when every batch shares it.
    pub fn b_count(&self) -> usize {
        if self.b_stride == 0 {
            1
        } else {
            self.batch
        }
    }

    /// The elements the packed `B` matrices take.
    pub fn packed_b_span(&self) -> usize {
        self.b_count() * prepacked::packed_len(self.k, self.n)
    }
}

/// What one step of a loop runs on its tape, counted by kind: the
/// structure a change to the tape's passes shows in (the instructions
/// run once per call, before the steps, are not counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCensus {
    /// Matrix products.
    pub products: usize,
    /// Elementwise operations computed inside a product's kernel as it
    /// stores each element (a product's readers).
    pub product_stages: usize,
    /// Passes over elements of their own: unary, binary (one op or a
    /// fused pair), comparisons, selections, and runs of machine code.
    pub passes: usize,
    /// Of the passes, those computing a fused pair of binary ops.
    pub fused_pairs: usize,
}

/// A loop body compiled for one set of parameter shapes.
#[derive(Clone, Debug)]
pub(crate) struct StepTape {
    /// The instructions whose values are the same on every step of a
    /// call (they read only non-sequences, constants and each other's
    /// values): run once per call, before the steps on the tape
    /// ([`StepTape::run_prologue`]).
    prologue: Vec<Instr>,
    /// The instructions of a step, in schedule order.
    instrs: Vec<Instr>,
    /// Per instruction: the body result it computes when it may write
    /// that result straight into the loop's row (see [`direct_results`]).
    direct: Vec<Option<u32>>,
    /// The arena: constants (written once, when the tape is made) and
    /// every computed value; it starts on a cache line, and so does each
    /// packed `B` in it ([`reuse::align_packed`]).
    arena: CacheAligned,
    /// Per body result: its region of the arena and its length.
    results: Vec<(usize, usize)>,
    /// Per body parameter: its number of elements (one row of a sequence,
    /// of a state; a whole non-sequence), 0 when the tape does not read it.
    param_sizes: Vec<usize>,
    /// True once [`StepTape::make_native`] ran (whether or not any run
    /// compiled).
    native_tried: bool,
    /// The whole loop as one native function, when the step is one run
    /// (see [`StepTape::run_native_loop`]).
    native_loop: Option<native::NativeLoop>,
    /// Per [`Instr::Kernel`], the values it reuses from step to step.
    scratch: Vec<kernel::KernelScratch>,
    /// Why the last step stopped, when an instruction checking what the
    /// plan checks ([`Instr::Factor`], [`Instr::IndexAt`],
    /// [`Instr::Kernel`]) stopped it:
    /// the body node and the error sentence (what the plan would raise).
    failure: Option<(usize, String)>,
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
    /// arena lies wholly below or wholly above what it writes (what lets a
    /// step split the arena around a destination). Instructions on one
    /// element read and write the arena whole, anywhere.
    fn operands_clear_of_destinations(&self) -> bool {
        self.prologue.iter().chain(&self.instrs).all(|ins| {
            let Some(dst) = ins.slice_destination() else {
                return true;
            };
            let mut end = dst;
            ins.writes(&mut |o, l| end = end.max(o + l));
            let mut clear = true;
            ins.reads(&mut |loc, len| {
                if let Loc::Arena(o) = loc {
                    clear &= o + len <= dst || o >= end;
                }
            });
            clear
        })
    }

    /// The elements of body parameter slot `s` of the whole native loop
    /// that one step reads, per slot: (body parameter, elements); `None`
    /// without such a loop.
    pub(crate) fn native_loop_params(&self) -> Option<&[(usize, usize)]> {
        self.native_loop.as_ref().map(|l| &l.extent.params[..])
    }

    /// The body results the whole native loop writes straight into their
    /// rows during a step (the others are copied at its end).
    pub(crate) fn native_loop_rows(&self) -> &[(u32, usize)] {
        self.native_loop
            .as_ref()
            .map_or(&[], |l| &l.extent.rows[..])
    }

    /// Runs at most `n` steps of the loop as one native function,
    /// parameter slot `s` of step `t` at `params[s] + t·p_strides[s]` and
    /// body result `j` of step `t` written to `rows[j] + t·r_strides[j]`;
    /// returns the steps that ran (fewer than `n` when a while loop's
    /// condition held on the last of them). `None` (running nothing)
    /// without a whole loop or when the arena is short.
    ///
    /// # Safety
    /// As [`native::NativeLoop::call`]: every address those give for
    /// `t < n` lies in a slice the caller holds (readable for a
    /// parameter, writable for a row), the rows overlapping no parameter
    /// read in the same step.
    pub(crate) unsafe fn run_native_loop(
        &mut self,
        params: &[*const f64; native::MAX_POINTERS],
        p_strides: &[isize; native::MAX_POINTERS],
        rows: &[*mut f64; native::MAX_POINTERS],
        r_strides: &[isize; native::MAX_POINTERS],
        n: usize,
    ) -> Option<usize> {
        let lp = self.native_loop.as_ref()?;
        let arena = self.arena.get_mut(..lp.extent.arena)?;
        // SAFETY: the arena holds the extent (just checked); the rest is
        // the caller's contract.
        let ran = unsafe {
            lp.call(
                arena.as_mut_ptr(),
                params.as_ptr(),
                p_strides.as_ptr(),
                rows.as_ptr(),
                r_strides.as_ptr(),
                n,
            )
        };
        Some(ran)
    }

    /// What a step runs, counted by kind.
    pub(crate) fn census(&self) -> StepCensus {
        let mut c = StepCensus::default();
        for ins in &self.instrs {
            match ins {
                Instr::Gemm { then, .. } => {
                    c.products += 1;
                    c.product_stages += then.len();
                }
                Instr::Binary2 { .. } => {
                    c.passes += 1;
                    c.fused_pairs += 1;
                }
                Instr::Unary { .. }
                | Instr::Rows { op: Some(_), .. }
                | Instr::Binary { .. }
                | Instr::Compare { .. }
                | Instr::Select { .. }
                | Instr::Native(_) => c.passes += 1,
                _ => {}
            }
        }
        c
    }

    /// True when some of the step runs as machine code.
    /// True once [`Self::make_native`] ran (whether or not anything
    /// compiled).
    pub(crate) fn native_tried(&self) -> bool {
        self.native_tried
    }

    /// True when the whole loop runs as one native function
    /// ([`native::NativeLoop`]) where its layout allows.
    pub(crate) fn has_native_loop(&self) -> bool {
        self.native_loop.is_some()
    }

    pub(crate) fn runs_native(&self) -> bool {
        self.instrs
            .iter()
            .any(|ins| matches!(ins, Instr::Native(_)))
    }

    /// True when some body result may be written straight into its row.
    pub(crate) fn writes_direct(&self) -> bool {
        (0..self.results.len()).any(|j| self.result_writes_direct(j))
    }

    /// True when body result `j` may be written straight into its row
    /// (asked once per call).
    pub(crate) fn result_writes_direct(&self, j: usize) -> bool {
        let Ok(j) = u32::try_from(j) else {
            return false;
        };
        self.direct.contains(&Some(j))
            || self.instrs.iter().any(|ins| match ins {
                Instr::Native(run) => run.extent.rows.iter().any(|&(r, _)| r == j),
                _ => false,
            })
    }

    /// Compiles the runs of the step's instructions that gain from it to
    /// machine code ([`native`]), once; a tape whose runs do not compile
    /// (another architecture, a code generator's refusal) stays as it is.
    /// Worth it for a loop of many steps: compiling takes a fraction of a
    /// millisecond per run. `cond`: the result holding a while loop's
    /// condition (the whole loop, when one is made, stops at it).
    pub(crate) fn make_native(&mut self, cond: Option<usize>) {
        if std::mem::replace(&mut self.native_tried, true) {
            return;
        }
        let ranges = native::runs(&self.instrs, &self.direct);
        if ranges.is_empty() {
            return;
        }
        let instrs = &self.instrs;
        let results = &self.results;
        // Whether anything after instruction `i` (a later instruction, or
        // the loop reading a result from the arena) reads `[o, o + l)`.
        let read_after = |i: usize, o: usize, l: usize| {
            if results.iter().any(|&(p, m)| overlaps(o, l, p, m)) {
                return true;
            }
            let mut read = false;
            for ins in instrs.iter().skip(i + 1) {
                ins.reads(&mut |loc, m| {
                    if let Loc::Arena(p) = loc {
                        read |= overlaps(o, l, p, m);
                    }
                });
            }
            read
        };
        let whole = Some(&self.results[..]);
        let Ok((runs, native_loop)) =
            native::compile_runs(instrs, &self.direct, &ranges, &read_after, whole, cond)
        else {
            return;
        };
        self.native_loop = native_loop;
        let old = std::mem::take(&mut self.instrs);
        let old_direct = std::mem::take(&mut self.direct);
        let mut runs = ranges.into_iter().zip(runs).peekable();
        let mut i = 0;
        while i < old.len() {
            if let Some((r, run)) = runs.next_if(|(r, _)| r.start == i) {
                self.instrs.push(Instr::Native(Box::new(run)));
                self.direct.push(None);
                i = r.end.max(i + 1);
            } else {
                self.instrs.push(old[i].clone());
                self.direct.push(old_direct.get(i).copied().flatten());
                i += 1;
            }
        }
    }

    /// The number of elements of body result `j`.
    pub(crate) fn result_len(&self, j: usize) -> Option<usize> {
        self.results.get(j).map(|&(_, len)| len)
    }
}

impl Instr {
    /// The arena offset an instruction over slices writes from (`None`
    /// for an instruction on single elements, which may write anywhere).
    fn slice_destination(&self) -> Option<usize> {
        match *self {
            Instr::Scalars(_)
            | Instr::Native(_)
            | Instr::Move1 { .. }
            | Instr::MulAdd1 { .. }
            | Instr::Unary1 { .. }
            | Instr::Binary1 { .. } => None,
            Instr::Copy { dst, .. }
            | Instr::Gather { dst, .. }
            | Instr::Rows { dst, .. }
            | Instr::Transpose { dst, .. }
            | Instr::Unary { dst, .. }
            | Instr::Binary { dst, .. }
            | Instr::Binary2 { dst, .. }
            | Instr::Compare { dst, .. }
            | Instr::Select { dst, .. }
            | Instr::Reduce { dst, .. }
            | Instr::Normalize { dst, .. }
            | Instr::Gemv { dst, .. }
            | Instr::Inner { dst, .. }
            | Instr::LogMatMulExp { dst, .. }
            | Instr::Factor { dst, .. }
            | Instr::IndexAt { dst, .. }
            | Instr::Gemm { dst, .. }
            | Instr::PackB { dst, .. }
            | Instr::PackRows { dst, .. } => Some(dst),
            Instr::Kernel(ref k) if k.owned => None,
            Instr::Kernel(ref k) => Some(k.dst),
        }
    }

    /// Calls `f(offset, len)` for each region of the arena the
    /// instruction writes.
    fn writes(&self, f: &mut dyn FnMut(usize, usize)) {
        match *self {
            Instr::Native(ref run) => run.instrs.iter().for_each(|ins| ins.writes(f)),
            Instr::Kernel(ref k) if k.owned => {}
            Instr::Kernel(ref k) => f(k.dst, k.len),
            Instr::Scalars(ref ops) => {
                for op in ops.iter() {
                    let (ScalarOp::Move { dst, .. }
                    | ScalarOp::MulAdd { dst, .. }
                    | ScalarOp::Add { dst, .. }
                    | ScalarOp::Sub { dst, .. }
                    | ScalarOp::Mul { dst, .. }
                    | ScalarOp::Binary { dst, .. }
                    | ScalarOp::Unary { dst, .. }) = *op;
                    f(dst as usize, 1);
                }
            }
            Instr::Move1 { dst, .. }
            | Instr::MulAdd1 { dst, .. }
            | Instr::Unary1 { dst, .. }
            | Instr::Binary1 { dst, .. }
            | Instr::Inner { dst, .. } => f(dst, 1),
            Instr::Copy { dst, len, .. }
            | Instr::Unary { dst, len, .. }
            | Instr::Binary { dst, len, .. }
            | Instr::Binary2 { dst, len, .. }
            | Instr::Compare { dst, len, .. }
            | Instr::Select { dst, len, .. } => f(dst, len),
            Instr::Gather { dst, ref index, .. } => f(dst, index.len()),
            Instr::Rows { dst, rows, .. } => f(dst, rows.len()),
            Instr::Transpose {
                dst,
                batch,
                rows,
                cols,
                ..
            } => f(dst, batch * rows * cols),
            Instr::Reduce {
                dst, outer, inner, ..
            } => f(dst, outer * inner),
            Instr::Normalize {
                dst,
                outer,
                extent,
                inner,
                ..
            } => f(dst, outer * extent * inner),
            Instr::Gemv { dst, rows, .. } => f(dst, rows),
            Instr::Gemm { dst, shape, .. } => f(dst, shape.batch * shape.m * shape.n),
            Instr::PackB { dst, shape, .. } => f(dst, shape.packed_b_span()),
            Instr::PackRows {
                dst, rows, cols, ..
            } => f(dst, rows * cols),
            Instr::LogMatMulExp {
                dst, rows, n, m, ..
            } => f(dst, rows * m + n),
            Instr::Factor {
                kind, n, m, dst, ..
            } => f(dst, kind.out_len(n, m)),
            Instr::IndexAt {
                dst,
                outer,
                count,
                inner,
                ..
            } => f(dst, outer * count * inner),
        }
    }

    /// Replaces every arena offset the instruction names — its
    /// destination, its operands' places, its packed or exponentiated
    /// operands — by `f(offset)` (what [`reuse`] uses to move values).
    /// `None` when a new offset does not fit an instruction on single
    /// elements (32 bits). A native run is left as it is: the tape is
    /// laid out before any run compiles.
    fn map_arena(&mut self, f: &dyn Fn(usize) -> usize) -> Option<()> {
        let loc = |l: &mut Loc| {
            if let Loc::Arena(o) = l {
                *o = f(*o);
            }
        };
        let one = |i: &mut u32| -> Option<()> {
            *i = u32::try_from(f(*i as usize)).ok()?;
            Some(())
        };
        match self {
            Instr::Native(_) => {}
            Instr::Kernel(k) => {
                for a in k.args.iter_mut() {
                    if let kernel::KernelArg::At { loc: l, .. } = a {
                        loc(l);
                    }
                }
                k.dst = f(k.dst);
            }
            Instr::Scalars(ops) => {
                for op in ops.iter_mut() {
                    match op {
                        ScalarOp::Move { src, dst } | ScalarOp::Unary { src, dst, .. } => {
                            one(src)?;
                            one(dst)?;
                        }
                        ScalarOp::MulAdd { acc, a, b, dst } => {
                            for i in [acc, a, b, dst] {
                                one(i)?;
                            }
                        }
                        ScalarOp::Add { a, b, dst }
                        | ScalarOp::Sub { a, b, dst }
                        | ScalarOp::Mul { a, b, dst }
                        | ScalarOp::Binary { a, b, dst, .. } => {
                            for i in [a, b, dst] {
                                one(i)?;
                            }
                        }
                    }
                }
            }
            Instr::Copy { src, dst, .. }
            | Instr::Gather { src, dst, .. }
            | Instr::Rows { src, dst, .. }
            | Instr::Transpose { src, dst, .. }
            | Instr::Move1 { src, dst }
            | Instr::Unary1 { src, dst, .. }
            | Instr::Unary { src, dst, .. } => {
                loc(src);
                *dst = f(*dst);
            }
            Instr::MulAdd1 { acc, a, b, dst } => {
                for l in [acc, a, b] {
                    loc(l);
                }
                *dst = f(*dst);
            }
            Instr::Binary1 { a, b, dst, .. } => {
                loc(a);
                loc(b);
                *dst = f(*dst);
            }
            Instr::Binary { a, b, dst, .. } | Instr::Compare { a, b, dst, .. } => {
                loc(&mut a.loc);
                loc(&mut b.loc);
                *dst = f(*dst);
            }
            Instr::Binary2 { x, y, z, dst, .. } => {
                for o in [x, y, z] {
                    loc(&mut o.loc);
                }
                *dst = f(*dst);
            }
            Instr::Select {
                cond, a, b, dst, ..
            } => {
                for o in [cond, a, b] {
                    loc(&mut o.loc);
                }
                *dst = f(*dst);
            }
            Instr::Reduce { src, dst, .. } | Instr::Normalize { src, dst, .. } => {
                loc(src);
                *dst = f(*dst);
            }
            Instr::Gemv {
                a,
                x,
                dst,
                packed_a,
                ..
            } => {
                loc(a);
                loc(x);
                if let Some(p) = packed_a {
                    *p = f(*p);
                }
                *dst = f(*dst);
            }
            Instr::PackRows { src, dst, .. } => {
                loc(src);
                *dst = f(*dst);
            }
            Instr::Inner { a, b, dst, .. } => {
                loc(a);
                loc(b);
                *dst = f(*dst);
            }
            Instr::LogMatMulExp {
                a, b, exp_b, dst, ..
            } => {
                for l in [a, b, exp_b] {
                    loc(l);
                }
                *dst = f(*dst);
            }
            Instr::Factor { a, b, dst, .. } => {
                loc(a);
                loc(b);
                *dst = f(*dst);
            }
            Instr::IndexAt { src, at, dst, .. } => {
                loc(src);
                loc(at);
                *dst = f(*dst);
            }
            Instr::Gemm {
                a,
                b,
                packed_b,
                dst,
                then,
                ..
            } => {
                loc(a);
                loc(b);
                if let Some(p) = packed_b {
                    *p = f(*p);
                }
                for o in then.iter_mut().flat_map(Stage::operands_mut) {
                    loc(&mut o.loc);
                }
                *dst = f(*dst);
            }
            Instr::PackB { src, dst, .. } => {
                loc(src);
                *dst = f(*dst);
            }
        }
        Some(())
    }

    /// Calls `f(loc, len)` for each operand the instruction reads: its
    /// location and the elements it spans.
    fn reads(&self, f: &mut dyn FnMut(Loc, usize)) {
        let one = |i: u32| Loc::Arena(i as usize);
        match *self {
            Instr::Native(ref run) => run.instrs.iter().for_each(|ins| ins.reads(f)),
            Instr::Kernel(ref k) => {
                for a in k.args.iter() {
                    if let kernel::KernelArg::At { loc, len, .. } = *a {
                        f(loc, len);
                    }
                }
            }
            Instr::Copy { src, len, .. } | Instr::Unary { src, len, .. } => f(src, len),
            Instr::Gather { src, src_len, .. } => f(src, src_len),
            Instr::Rows { src, rows, .. } => f(src, rows.span()),
            Instr::Transpose {
                src,
                batch,
                rows,
                cols,
                ..
            } => f(src, batch * rows * cols),
            Instr::Scalars(ref ops) => {
                for op in ops.iter() {
                    match *op {
                        ScalarOp::Move { src, .. } | ScalarOp::Unary { src, .. } => f(one(src), 1),
                        ScalarOp::MulAdd { acc, a, b, .. } => {
                            f(one(acc), 1);
                            f(one(a), 1);
                            f(one(b), 1);
                        }
                        ScalarOp::Add { a, b, .. }
                        | ScalarOp::Sub { a, b, .. }
                        | ScalarOp::Mul { a, b, .. }
                        | ScalarOp::Binary { a, b, .. } => {
                            f(one(a), 1);
                            f(one(b), 1);
                        }
                    }
                }
            }
            Instr::Move1 { src, .. } | Instr::Unary1 { src, .. } => f(src, 1),
            Instr::MulAdd1 { acc, a, b, .. } => {
                f(acc, 1);
                f(a, 1);
                f(b, 1);
            }
            Instr::Binary1 { a, b, .. } => {
                f(a, 1);
                f(b, 1);
            }
            Instr::Binary {
                a, b, len, period, ..
            } => {
                f(a.loc, a.span(len, period));
                f(b.loc, b.span(len, period));
            }
            Instr::Binary2 {
                x,
                y,
                z,
                len,
                period,
                ..
            } => {
                for o in [x, y, z] {
                    f(o.loc, o.span(len, period));
                }
            }
            Instr::Compare { a, b, len, .. } => {
                f(a.loc, a.span(len, len));
                f(b.loc, b.span(len, len));
            }
            Instr::Select {
                cond,
                a,
                b,
                len,
                period,
                ..
            } => {
                for o in [cond, a, b] {
                    f(o.loc, o.span(len, period));
                }
            }
            Instr::Reduce {
                src,
                outer,
                extent,
                inner,
                ..
            } => f(src, outer * extent * inner),
            Instr::Normalize {
                src,
                outer,
                extent,
                inner,
                ..
            } => f(src, outer * extent * inner),
            Instr::Gemv {
                a,
                rows,
                cols,
                x,
                packed_a,
                ..
            } => {
                match packed_a {
                    Some(p) => f(Loc::Arena(p), rows * cols),
                    None => f(a, rows * cols),
                }
                f(x, cols);
            }
            Instr::PackRows {
                src, rows, cols, ..
            } => f(src, rows * cols),
            Instr::Inner { a, b, len, .. } => {
                f(a, len);
                f(b, len);
            }
            Instr::Gemm {
                a,
                b,
                shape,
                packed_b,
                ref then,
                ..
            } => {
                f(a, shape.a_span());
                f(b, shape.b_span());
                if let Some(p) = packed_b {
                    f(Loc::Arena(p), shape.packed_b_span());
                }
                let len = shape.batch * shape.m * shape.n;
                for s in then.iter() {
                    s.operands(&mut |o, period| f(o.loc, o.span(len, period.unwrap_or(len))));
                }
            }
            Instr::PackB { src, shape, .. } => f(src, shape.b_span()),
            Instr::LogMatMulExp {
                a,
                b,
                exp_b,
                rows,
                n,
                m,
                ..
            } => {
                f(a, rows * n);
                f(b, n * m);
                f(exp_b, n * m);
            }
            Instr::Factor {
                kind, a, b, n, m, ..
            } => {
                f(a, n * n);
                if kind.reads_b() {
                    f(b, n * m);
                }
            }
            Instr::IndexAt {
                src,
                at,
                count,
                outer,
                size,
                inner,
                ..
            } => {
                f(src, outer * size * inner);
                f(at, count);
            }
        }
    }
}

/// Per instruction, the body result it may write straight into the
/// loop's row instead of the arena: an elementwise instruction over
/// slices (`Unary`, `Binary`, `Binary2`) whose destination is exactly the region of
/// result `j`, when no later instruction reads that region and no other
/// result overlaps it. The value is then never needed in the arena: the
/// loop reads it back, on later steps, from its row.
fn direct_results(instrs: &[Instr], results: &[(usize, usize)]) -> Vec<Option<u32>> {
    let mut direct = vec![None; instrs.len()];
    for (j, &(off, len)) in results.iter().enumerate() {
        let shared = results
            .iter()
            .enumerate()
            .any(|(k, &(o, l))| k != j && overlaps(o, l, off, len));
        let Some(i) = instrs.iter().position(|ins| {
            matches!(*ins,
                Instr::Unary { dst, len: l, .. }
                | Instr::Binary { dst, len: l, .. }
                | Instr::Binary2 { dst, len: l, .. }
                    if dst == off && l == len)
        }) else {
            continue;
        };
        let mut read_later = false;
        for ins in &instrs[i + 1..] {
            ins.reads(&mut |loc, l| {
                if let Loc::Arena(o) = loc {
                    read_later |= overlaps(o, l, off, len);
                }
            });
        }
        if !shared && !read_later && len > 1 {
            direct[i] = u32::try_from(j).ok();
        }
    }
    direct
}
/// The instructions with each binary instruction (add, sub or mul)
/// whose result one later such instruction reads, once, whole, and
/// nothing else — no other instruction, no body result — computed
/// inside that reader as one [`Instr::Binary2`]: the same element
/// operations in the same order, one pass over the elements fewer. Their
/// other operands may repeat (a row, or one value per block: the mask of
/// a padded batch) when both instructions repeat them with one period.
/// An inner instruction's operands are still in place when its reader
/// runs: a step never overwrites a value of the arena, and the
/// parameters do not change during a step.
fn fuse_binaries(instrs: Vec<Instr>, results: &[(usize, usize)]) -> Vec<Instr> {
    let plain = |o: &Operand| matches!(o.cover, Cover::Full | Cover::Scalar);
    // An instruction that can be either side of a fusion: (op, a, b,
    // dst, len, the period of its repeating operands if any). Each is
    // fused once at most, on one side (an inner instruction is still a
    // plain `Binary`, and so is its reader).
    let fusable = |ins: &Instr| match *ins {
        Instr::Binary {
            op: op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul),
            a,
            b,
            dst,
            len,
            period,
        } if period > 0 && len % period == 0 => {
            let repeats = (!plain(&a) || !plain(&b)).then_some(period);
            Some((op, a, b, dst, len, repeats))
        }
        _ => None,
    };
    // The fusable results by their first element: (instruction, length).
    // They never overlap (every value has its own region).
    let starts: std::collections::BTreeMap<usize, (usize, usize)> = instrs
        .iter()
        .enumerate()
        .filter_map(|(i, ins)| fusable(ins).map(|(.., dst, len, _)| (dst, (i, len))))
        .collect();
    // Per instruction, how its result is read: a read of exactly the
    // whole result counts once, a partial read twice (ruling it out).
    let mut reads = vec![0usize; instrs.len()];
    for ins in &instrs {
        ins.reads(&mut |loc, len| {
            let Loc::Arena(o) = loc else { return };
            for (&start, &(i, l)) in starts.range(..o + len).rev() {
                if start + l <= o {
                    break;
                }
                reads[i] += if o == start && len == l { 1 } else { 2 };
            }
        });
    }
    let in_result =
        |start: usize, l: usize| results.iter().any(|&(o, n)| o < start + l && start < o + n);
    let mut out: Vec<Option<Instr>> = instrs.iter().cloned().map(Some).collect();
    for (k, ins) in instrs.iter().enumerate() {
        let Some((outer, a, b, dst, len, outer_repeats)) = fusable(ins) else {
            continue;
        };
        for (pos, o) in [a, b].into_iter().enumerate() {
            let Loc::Arena(off) = o.loc else { continue };
            let Some(&(i, _)) = starts.get(&off) else {
                continue;
            };
            let Some((inner, x, y, _, l, inner_repeats)) = fusable(&instrs[i]) else {
                continue;
            };
            let period = match (outer_repeats, inner_repeats) {
                (None, None) => len,
                (Some(p), None) | (None, Some(p)) => p,
                (Some(p), Some(q)) if p == q => p,
                _ => continue,
            };
            if i >= k
                || l != len
                || o.cover != Cover::Full
                || reads[i] != 1
                || in_result(off, l)
                || !matches!(out[i], Some(Instr::Binary { .. }))
                || !matches!(out[k], Some(Instr::Binary { .. }))
            {
                continue;
            }
            let z = if pos == 0 { b } else { a };
            out[k] = Some(Instr::Binary2 {
                outer,
                inner,
                inner_first: pos == 0,
                x,
                y,
                z,
                dst,
                len,
                period,
            });
            out[i] = None;
            break;
        }
    }
    out.into_iter().flatten().collect()
}

/// Splits the instructions into those that compute the same values on
/// every step and the rest, each list in order. An instruction is hoisted
/// when every operand is a parameter that `invariant` marks (a
/// non-sequence), a constant of the arena (written by no instruction) or
/// a value a hoisted instruction wrote, and when it is the only
/// instruction writing its elements (the running sums of a product,
/// updated in place, stay in the steps). Hoisted ones run once per call
/// (a staged copy of a non-sequence, a bias broadcast to a batch); the
/// values they write are never written again, so every later step reads
/// them as they were.
fn hoist_invariants(
    instrs: Vec<Instr>,
    invariant: &[bool],
    arena_len: usize,
) -> (Vec<Instr>, Vec<Instr>) {
    /// What an element of the arena holds across the steps.
    #[derive(Clone, Copy, PartialEq)]
    enum Elem {
        /// Written by no instruction, or by a hoisted one: the same on
        /// every step.
        Same,
        /// Its one writer is still to come.
        Pending,
        /// Written on every step.
        Varies,
    }
    let mut writers = vec![0u8; arena_len];
    for ins in &instrs {
        ins.writes(&mut |o, len| {
            if let Some(w) = writers.get_mut(o..o + len) {
                w.iter_mut().for_each(|c| *c = c.saturating_add(1));
            }
        });
    }
    let mut elems: Vec<Elem> = writers
        .iter()
        .map(|&c| match c {
            0 => Elem::Same,
            1 => Elem::Pending,
            _ => Elem::Varies,
        })
        .collect();
    let (mut prologue, mut steps) = (Vec::new(), Vec::new());
    for ins in instrs {
        // A call that reads or computes a value held outside the arena
        // (whose shape a step sets) runs on every step.
        let mut same = !matches!(ins, Instr::Kernel(ref k) if k.touches_owned());
        ins.reads(&mut |loc, len| match loc {
            Loc::Param(k, _) => same &= invariant.get(k).copied().unwrap_or(false),
            Loc::Arena(o) => {
                same &= elems
                    .get(o..o + len)
                    .is_some_and(|e| e.iter().all(|&e| e == Elem::Same));
            }
        });
        ins.writes(&mut |o, len| {
            same &= writers
                .get(o..o + len)
                .is_some_and(|w| w.iter().all(|&c| c == 1));
        });
        let now = if same { Elem::Same } else { Elem::Varies };
        ins.writes(&mut |o, len| {
            if let Some(e) = elems.get_mut(o..o + len) {
                e.fill(now);
            }
        });
        if same {
            prologue.push(ins);
        } else {
            steps.push(ins);
        }
    }
    (prologue, steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(loc: Loc) -> Operand {
        Operand {
            loc,
            cover: Cover::Full,
        }
    }

    fn scalar(off: usize) -> Operand {
        Operand {
            loc: Loc::Arena(off),
            cover: Cover::Scalar,
        }
    }

    fn binary(op: BinaryOp, a: Operand, b: Operand, dst: usize) -> Instr {
        Instr::Binary {
            op,
            a,
            b,
            dst,
            len: 4,
            period: 4,
        }
    }

    /// t = 0.5·p (arena 1..5), r = t + q (5..9): one pass, written
    /// straight into the result's row.
    #[test]
    fn a_product_read_once_is_computed_inside_its_reader() {
        let instrs = vec![
            binary(BinaryOp::Mul, scalar(0), full(Loc::Param(0, 0)), 1),
            binary(
                BinaryOp::Add,
                full(Loc::Arena(1)),
                full(Loc::Param(1, 0)),
                5,
            ),
        ];
        let results = [(5, 4)];
        let fused = fuse_binaries(instrs, &results);
        assert_eq!(fused.len(), 1);
        assert!(matches!(
            fused[0],
            Instr::Binary2 {
                outer: BinaryOp::Add,
                inner: BinaryOp::Mul,
                inner_first: true,
                dst: 5,
                ..
            }
        ));
        assert_eq!(direct_results(&fused, &results), vec![Some(0)]);
    }

    /// A padded batch's mask: t = m·h (m one value per row of 2, arena
    /// 1..5), r = t + q (5..9). They fuse into one pass over blocks of
    /// 2, which computes the bits of the two passes; with another
    /// instruction repeating an operand every 4, they do not.
    #[test]
    fn a_mask_per_row_fuses_when_both_passes_share_its_period() {
        let per_row = Operand {
            loc: Loc::Param(2, 0),
            cover: Cover::PerBlock,
        };
        let masked = |period: usize| Instr::Binary {
            op: BinaryOp::Mul,
            a: per_row,
            b: full(Loc::Param(0, 0)),
            dst: 1,
            len: 4,
            period,
        };
        let row = Operand {
            loc: Loc::Param(1, 0),
            cover: Cover::Repeat,
        };
        let add = |b: Operand, period: usize| Instr::Binary {
            op: BinaryOp::Add,
            a: full(Loc::Arena(1)),
            b,
            dst: 5,
            len: 4,
            period,
        };
        let results = [(5, 4)];
        let fused = fuse_binaries(vec![masked(2), add(full(Loc::Param(1, 0)), 4)], &results);
        assert_eq!(fused.len(), 1);
        assert!(matches!(
            fused[0],
            Instr::Binary2 {
                outer: BinaryOp::Add,
                inner: BinaryOp::Mul,
                inner_first: true,
                period: 2,
                ..
            }
        ));
        // The same period on both sides fuses; two periods do not.
        assert_eq!(
            fuse_binaries(vec![masked(2), add(row, 2)], &results).len(),
            1
        );
        assert_eq!(
            fuse_binaries(vec![masked(2), add(row, 4)], &results).len(),
            2
        );
        // The fused pass against the two passes, on values where the
        // order of operations shows (rounding and overflow).
        let m = [3.0, -1e308];
        let h = [0.1, 0.7, 1e-300, 2.0];
        let q = [0.2, -0.21, 1.0, f64::MAX];
        let (mut t, mut want) = ([0.0; 4], [0.0; 4]);
        for i in 0..4 {
            t[i] = m[i / 2] * h[i];
            want[i] = t[i] + q[i];
        }
        use crate::exec::plan::block::{binary2_periodic, Periodic};
        let mut got = [0.0; 4];
        let mut masked_add = |mask: &[f64]| {
            binary2_periodic(
                BinaryOp::Add,
                BinaryOp::Mul,
                true,
                &mut got,
                2,
                Periodic::PerBlock(mask),
                Periodic::Full(&h),
                Periodic::Full(&q),
            )
        };
        // An operand too short is refused.
        assert!(!masked_add(&m[..1]));
        assert!(masked_add(&m));
        for i in 0..4 {
            assert_eq!(got[i].to_bits(), want[i].to_bits(), "element {i}");
        }
    }

    #[test]
    fn a_value_read_twice_or_returned_stays_a_pass_of_its_own() {
        // t read by r and by s.
        let twice = vec![
            binary(BinaryOp::Mul, scalar(0), full(Loc::Param(0, 0)), 1),
            binary(
                BinaryOp::Add,
                full(Loc::Arena(1)),
                full(Loc::Param(1, 0)),
                5,
            ),
            binary(BinaryOp::Sub, full(Loc::Arena(1)), scalar(0), 9),
        ];
        let fused = fuse_binaries(twice, &[(5, 4), (9, 4)]);
        assert!(fused.iter().all(|i| matches!(i, Instr::Binary { .. })));
        // t is a body result.
        let returned = vec![
            binary(BinaryOp::Mul, scalar(0), full(Loc::Param(0, 0)), 1),
            binary(
                BinaryOp::Add,
                full(Loc::Arena(1)),
                full(Loc::Param(1, 0)),
                5,
            ),
        ];
        let fused = fuse_binaries(returned, &[(1, 4), (5, 4)]);
        assert_eq!(fused.len(), 2);
        // Read as both operands of its reader.
        let square = vec![
            binary(BinaryOp::Mul, scalar(0), full(Loc::Param(0, 0)), 1),
            binary(BinaryOp::Mul, full(Loc::Arena(1)), full(Loc::Arena(1)), 5),
        ];
        assert_eq!(fuse_binaries(square, &[(5, 4)]).len(), 2);
        // A division does not fuse.
        let div = vec![
            binary(BinaryOp::Div, scalar(0), full(Loc::Param(0, 0)), 1),
            binary(
                BinaryOp::Add,
                full(Loc::Arena(1)),
                full(Loc::Param(1, 0)),
                5,
            ),
        ];
        assert_eq!(fuse_binaries(div, &[(5, 4)]).len(), 2);
    }

    /// Parameter 0 a sequence, 1 a non-sequence; arena 0 a constant.
    #[test]
    fn what_reads_only_non_sequences_and_constants_runs_once_per_call() {
        let instrs = vec![
            // Staged non-sequence: hoisted.
            Instr::Copy {
                src: Loc::Param(1, 0),
                dst: 1,
                len: 4,
            },
            // Reads the staged copy and a constant: hoisted.
            binary(BinaryOp::Mul, full(Loc::Arena(1)), scalar(0), 5),
            // Reads the sequence: every step.
            binary(
                BinaryOp::Add,
                full(Loc::Arena(5)),
                full(Loc::Param(0, 0)),
                9,
            ),
            // Reads a value of the step: every step.
            binary(BinaryOp::Mul, full(Loc::Arena(9)), full(Loc::Arena(5)), 13),
        ];
        let (prologue, steps) = hoist_invariants(instrs, &[false, true], 17);
        assert_eq!(prologue.len(), 2);
        assert!(matches!(prologue[0], Instr::Copy { dst: 1, .. }));
        assert!(matches!(prologue[1], Instr::Binary { dst: 5, .. }));
        assert_eq!(steps.len(), 2);
    }

    /// A running sum updated in place (one element written by several
    /// instructions) stays in the steps, even where one of its updates
    /// reads only non-sequences: the next step must start it again.
    #[test]
    fn a_value_written_twice_is_computed_on_every_step() {
        let instrs = vec![
            Instr::MulAdd1 {
                acc: Loc::Arena(0),
                a: Loc::Param(1, 0),
                b: Loc::Param(1, 1),
                dst: 1,
            },
            Instr::MulAdd1 {
                acc: Loc::Arena(1),
                a: Loc::Param(0, 0),
                b: Loc::Param(1, 2),
                dst: 1,
            },
        ];
        let (prologue, steps) = hoist_invariants(instrs, &[false, true], 2);
        assert!(prologue.is_empty());
        assert_eq!(steps.len(), 2);
    }

    #[test]
    fn a_result_read_later_or_shared_stays_in_the_arena() {
        let instrs = vec![
            binary(BinaryOp::Mul, scalar(0), full(Loc::Param(0, 0)), 1),
            binary(BinaryOp::Add, full(Loc::Arena(1)), scalar(0), 5),
        ];
        // Result 0 (1..5) is read by the add; result 1 (5..9) is not.
        assert_eq!(
            direct_results(&instrs, &[(1, 4), (5, 4)]),
            vec![None, Some(1)]
        );
        // The same value returned twice.
        assert_eq!(direct_results(&instrs, &[(5, 4), (5, 4)]), vec![None, None]);
        // A result of one element stays in the arena.
        let one = vec![Instr::Binary {
            op: BinaryOp::Add,
            a: scalar(0),
            b: scalar(0),
            dst: 1,
            len: 1,
            period: 1,
        }];
        assert_eq!(direct_results(&one, &[(1, 1)]), vec![None]);
    }
}
