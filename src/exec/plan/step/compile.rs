//! Compiling a loop body into a [`StepTape`] for concrete shapes.
//!
//! Owns: walking the body's schedule once with the shapes of this call's
//! parameters, giving each value a place (a region of the arena, a region
//! of a parameter, or an integer known now) and emitting the instruction
//! that computes it. Must not: compile anything that could fail or differ
//! from the plan at run time — it answers why not instead ([`OffTape`]),
//! and the loop stays on the plan.

use super::kernel::{self, Held, KernelArg, KernelCall, KernelScratch, LoopOut, Own};
use super::{Cover, GemmShape, Instr, Loc, OffTape, Operand, ScalarOp, StepTape};
use crate::exec::ops::elementwise::broadcast_shapes;
use crate::exec::ops::factor::{Small, SMALL_N};
use crate::exec::ops::normalize_axis;
use crate::exec::ops::shape::slice_indices;
use crate::exec::ops::{gemm, matvec, prepacked};
use crate::exec::plan::schedule::GraphPlan;
use crate::exec::run::Dims;
use crate::exec::value::Value;
use crate::lang::infer::infer;
use crate::lang::Dim;
use crate::lang::{BinaryOp, DType, Op, ReduceOp, Scalar, Type, UnaryOp};

/// What the tape may know of a body parameter: its shape, when its data
/// is contiguous `f64` (on every step); `None` when the tape may not read
/// it.
pub(crate) type ParamShape = Option<Vec<usize>>;

/// The largest arena, in elements (8 MiB): beyond it a body is dominated
/// by its arithmetic and the plan's slot reuse matters more than its
/// per-step cost. (A PyTensor GRU gradient's backward step, batch 32 and
/// 128 units, takes 4.0 MiB once its regions are shared.)
const MAX_ARENA: usize = 1 << 20;

/// The largest arena while the body compiles, every value in its own
/// region (8 × [`MAX_ARENA`]): the regions of a step's values are shared
/// afterwards ([`super::reuse`]), and the arena the tape keeps must fit
/// in [`MAX_ARENA`]. A PyTensor gradient's backward step builds a dozen
/// `384 × 128` values (fills, their increments, their transposes), of
/// which a few are live at once.
const MAX_UNSHARED: usize = MAX_ARENA * 8;

/// Results of at most this many elements are computed one element at a
/// time (instructions on one element cost a few nanoseconds; a call of a
/// slice kernel costs tens).
const SCALAR_LEN: usize = 8;

/// Products and reductions of at most this many operations likewise,
/// each product's sum in its kernel's order.
const SCALAR_WORK: usize = 64;

/// The most elements an [`Instr::Kernel`] call may copy per step (its
/// operands that are not `f64` in, its result out; an `f64` operand is
/// read in place, [`kernel::in_place`]): past it the copies cost more than the
/// plan's views save, and the loop stays on the plan. A PyTensor GRU
/// gradient's `inc_slice` into a `384 × 128` zero matrix (49,152 elements
/// each way) made its backward loop 10-25% slower on the tape than on the
/// plan; the small updates, cumulative sums and integer arithmetic of the
/// cases copy a few hundred elements at most.
const MAX_KERNEL_COPY: usize = 4096;

/// Parameters of at most this many elements that instructions on one
/// element read are copied into the arena first, once per step (a read of
/// the arena is cheaper than one of the loop's data).
const STAGE_LEN: usize = 64;

/// A value of the step: where it is and its shape.
#[derive(Clone, Debug)]
struct Val {
    loc: Loc,
    shape: Vec<usize>,
}

impl Val {
    fn len(&self) -> usize {
        self.shape.iter().product()
    }
}

/// What the compiler knows of a node.
#[derive(Clone, Debug)]
enum Known {
    /// An `f64` value of the step.
    Val(Val),
    /// An integer scalar known when the tape is made (a literal, a size).
    Int(i64),
    /// A value whose shape a step sets (a nested while loop's output, and
    /// what kernels compute from it), held outside the arena where the
    /// call that computed it keeps it; `ty` its type as far as this call's
    /// sizes fix it (the dims they do not, [`Dim::Unknown`]). Only kernel
    /// calls and nested loops read it.
    Dyn(Own, Type),
}

/// `loc` moved `by` elements on.
fn offset(loc: Loc, by: usize) -> Loc {
    match loc {
        Loc::Arena(o) => Loc::Arena(o + by),
        Loc::Param(k, o) => Loc::Param(k, o + by),
    }
}

/// Row-major strides of `shape`, in elements.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// For each element of a result of shape `out` (row-major), the element
/// of the source that `map` sends it to, given the result's multi-index.
fn gather_index(out: &[usize], mut map: impl FnMut(&[usize]) -> usize) -> Box<[usize]> {
    let len: usize = out.iter().product();
    let mut idx = vec![0usize; out.len()];
    let mut res = Vec::with_capacity(len);
    for _ in 0..len {
        res.push(map(&idx));
        for ax in (0..out.len()).rev() {
            idx[ax] += 1;
            if idx[ax] < out[ax] {
                break;
            }
            idx[ax] = 0;
        }
    }
    res.into_boxed_slice()
}

/// `ty` with each dim the sizes `bind` fix made a constant, the others
/// [`Dim::Unknown`]: what the tape knows of a value whose shape a step
/// sets ([`Known::Dyn`]).
fn fixed(ty: &Type, bind: &dyn Fn(&str) -> Option<i64>) -> Type {
    Type {
        shape: ty
            .shape
            .iter()
            .map(|d| match d.eval(bind) {
                Some(n) if n >= 0 => Dim::known(n),
                _ => Dim::Unknown,
            })
            .collect(),
        ..ty.clone()
    }
}

struct Builder<'a> {
    instrs: Vec<Instr>,
    arena: Vec<f64>,
    params: &'a [ParamShape],
    /// Per parameter, whether it is the same on every step.
    invariant: &'a [bool],
    param_sizes: Vec<usize>,
    /// Per parameter, its copy in the arena (see [`STAGE_LEN`]).
    staged: Vec<Option<usize>>,
    /// The scalar constants made so far, by their bits.
    scalars: Vec<(u64, usize)>,
    /// The body node being compiled (an [`Instr::Factor`] names it).
    node: usize,
    /// Set when a value did not fit in the arena ([`MAX_UNSHARED`]).
    full: bool,
    /// The dtypes of the arguments of the body node being compiled.
    arg_dtypes: Vec<DType>,
    /// Per [`Instr::Kernel`], its operand values.
    scratch: Vec<KernelScratch>,
    /// Set when a kernel call's or a nested loop's copies passed
    /// [`MAX_KERNEL_COPY`].
    too_large: bool,
}

/// What the builder has made so far (see [`Builder::mark`]).
#[derive(Clone, Copy)]
struct Mark {
    instrs: usize,
    arena: usize,
}

/// A body node for [`Builder::kernel`].
struct Call<'c> {
    op: &'c Op,
    args: &'c [Known],
    arg_tys: &'c [Type],
    held: &'c [Held],
    out_ty: &'c Type,
    compare: Option<DType>,
    dims: &'c Dims,
}

impl Builder<'_> {
    /// What has been made so far, to [`Builder::undo`] a node that did
    /// not compile after all.
    fn mark(&self) -> Mark {
        Mark {
            instrs: self.instrs.len(),
            arena: self.arena.len(),
        }
    }

    /// Forgets the instructions and regions made since `m` (a node that
    /// emitted some before it found what it does not take).
    fn undo(&mut self, m: Mark) {
        self.instrs.truncate(m.instrs);
        self.arena.truncate(m.arena);
        self.scalars.retain(|&(_, off)| off < m.arena);
        for s in self.staged.iter_mut() {
            if s.is_some_and(|off| off >= m.arena) {
                *s = None;
            }
        }
    }

    /// The node computed by the plan's kernels on the arena's memory
    /// ([`Instr::Kernel`]): any op but a parameter, a loop, its
    /// projections, and one whose result's shape its operands' shapes do
    /// not fix. Its value, and how the arena holds it.
    fn kernel(&mut self, c: Call<'_>) -> Option<(Known, Held)> {
        if matches!(c.op, Op::Input(_) | Op::Scan(_) | Op::Proj(_) | Op::Grad) {
            return None;
        }
        let bind = |s: &str| c.dims.get(s).copied();
        let n = c.args.len();
        let (mut args, mut values, mut tys) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for ((k, ty), &held) in c.args.iter().zip(c.arg_tys).zip(c.held) {
            let (arg, value) = kernel_operand(k, ty, held);
            args.push(arg);
            values.push(value);
            let shape = match k {
                Known::Val(v) => v.shape.clone(),
                Known::Int(_) => vec![],
                Known::Dyn(_, t) => {
                    tys.push(t.clone());
                    continue;
                }
            };
            tys.push(Type {
                dtype: ty.dtype,
                shape: shape.iter().map(|&d| Dim::known(d as i64)).collect(),
                weak: ty.weak,
                list: 0,
            });
        }
        if args.len() != n {
            return None;
        }
        let refs: Vec<&Type> = tys.iter().collect();
        let t = infer(c.op, &refs, &vec![None; n]).ok()?;
        let Some(shape) = self.shape_of(&t, &bind) else {
            // A result whose shape a step sets: held in the call's scratch.
            return self.owned_kernel(c, args, values, fixed(&t, &bind));
        };
        let len: usize = shape.iter().product();
        if copied_by(&args, &values, true) + len > MAX_KERNEL_COPY {
            self.too_large = true;
            return None;
        }
        let held = Held::of_result(c.out_ty.dtype);
        let dst = self.alloc(len)?;
        let into = KernelInto::Arena {
            shape: shape.clone(),
            held,
            dst,
            len,
        };
        self.push_kernel_call(&c, args, values, into);
        let v = Val {
            loc: Loc::Arena(dst),
            shape,
        };
        Some((Known::Val(v), held))
    }

    /// The node of [`Builder::kernel`] whose result's shape a step sets
    /// (type `ty`): computed by the same kernels into its call's scratch,
    /// where it stays ([`Known::Dyn`]). Its operands' copies count
    /// against [`MAX_KERNEL_COPY`] as any call's.
    fn owned_kernel(
        &mut self,
        c: Call<'_>,
        args: Vec<KernelArg>,
        values: Vec<Value>,
        ty: Type,
    ) -> Option<(Known, Held)> {
        if copied_by(&args, &values, true) > MAX_KERNEL_COPY {
            self.too_large = true;
            return None;
        }
        let slot = self.push_kernel_call(&c, args, values, KernelInto::Scratch);
        let own = Own { slot, out: None };
        Some((Known::Dyn(own, ty), Held::Num))
    }

    /// Pushes the call of `c`'s kernel on `args` (`values`: the scratch
    /// its operands are copied into), its result written as `into` says;
    /// returns the call's scratch slot.
    fn push_kernel_call(
        &mut self,
        c: &Call<'_>,
        args: Vec<KernelArg>,
        values: Vec<Value>,
        into: KernelInto,
    ) -> usize {
        let slot = self.scratch.len();
        self.scratch.push(KernelScratch {
            args: values,
            dest: None,
            outs: Vec::new(),
        });
        let (shape, held, dst, len, owned) = match into {
            KernelInto::Arena {
                shape,
                held,
                dst,
                len,
            } => (shape.into_boxed_slice(), held, dst, len, false),
            KernelInto::Scratch => (Box::default(), Held::Num, 0, 0, true),
        };
        self.instrs.push(Instr::Kernel(Box::new(KernelCall {
            op: c.op.clone(),
            args: args.into_boxed_slice(),
            arg_tys: c.arg_tys.to_vec().into_boxed_slice(),
            out_ty: c.out_ty.clone(),
            compare: c.compare,
            dims: Box::new(c.dims.clone()),
            shape,
            held,
            dst,
            len,
            slot,
            node: self.node,
            loop_outs: None,
            owned,
        })));
        slot
    }

    /// A loop of the body (a nested loop), run on each step by the plan's
    /// loop runner on its operands' values ([`kernel::run_loop`]), its
    /// outputs whose shapes the sizes fix one after another in one region
    /// of the arena; the others — every output of a while loop (its
    /// lengths are known only once it has run), an output whose shape the
    /// sizes do not fix — held outside it, in the call's scratch
    /// ([`Known::Dyn`]). Each output's value and how the arena holds it.
    fn nested(&mut self, c: Call<'_>, out_tys: &[Type]) -> Option<Vec<(Known, Held)>> {
        let Op::Scan(scan) = c.op else {
            return None;
        };
        let bind = |s: &str| c.dims.get(s).copied();
        let mut outs = Vec::with_capacity(out_tys.len());
        let mut total = 0usize;
        for ty in out_tys {
            let shape = if scan.sig.until {
                None
            } else {
                self.shape_of(ty, &bind)
            };
            let Some(shape) = shape else {
                outs.push(LoopOut {
                    at: total,
                    shape: Box::new([]),
                    held: Held::Num,
                    owned: true,
                });
                continue;
            };
            let len: usize = shape.iter().product();
            outs.push(LoopOut {
                at: total,
                shape: shape.into_boxed_slice(),
                held: Held::of_result(ty.dtype),
                owned: false,
            });
            total = total.checked_add(len)?;
        }
        let (mut args, mut values) = (Vec::new(), Vec::new());
        for ((k, ty), &held) in c.args.iter().zip(c.arg_tys).zip(c.held) {
            let (arg, value) = kernel_operand(k, ty, held);
            args.push(arg);
            values.push(value);
        }
        if args.len() != c.args.len() {
            return None;
        }
        if copied_by(&args, &values, false).saturating_add(total) > MAX_KERNEL_COPY {
            self.too_large = true;
            return None;
        }
        let dst = self.alloc(total)?;
        let slot = self.scratch.len();
        self.scratch.push(KernelScratch {
            args: values,
            dest: None,
            outs: vec![None; outs.len()],
        });
        let vals = outs
            .iter()
            .zip(out_tys)
            .enumerate()
            .map(|(k, (o, ty))| {
                if o.owned {
                    let own = Own { slot, out: Some(k) };
                    return (Known::Dyn(own, fixed(ty, &bind)), Held::Num);
                }
                let v = Val {
                    loc: Loc::Arena(dst + o.at),
                    shape: o.shape.to_vec(),
                };
                (Known::Val(v), o.held)
            })
            .collect();
        self.instrs.push(Instr::Kernel(Box::new(KernelCall {
            op: c.op.clone(),
            args: args.into_boxed_slice(),
            arg_tys: c.arg_tys.to_vec().into_boxed_slice(),
            out_ty: c.out_ty.clone(),
            compare: None,
            dims: Box::new(c.dims.clone()),
            shape: Box::new([total]),
            held: Held::Num,
            dst,
            len: total,
            slot,
            node: self.node,
            loop_outs: Some(outs.into_boxed_slice()),
            owned: false,
        })));
        Some(vals)
    }

    /// True when `loc` is in a parameter that is the same on every step.
    fn is_invariant(&self, loc: Loc) -> bool {
        matches!(loc, Loc::Param(k, _) if self.invariant.get(k).copied().unwrap_or(false))
    }

    fn alloc(&mut self, len: usize) -> Option<usize> {
        let off = self.arena.len();
        let end = off.checked_add(len)?;
        if end > MAX_UNSHARED {
            self.full = true;
            return None;
        }
        self.arena.resize(end, 0.0);
        Some(off)
    }

    fn constant(&mut self, shape: Vec<usize>, v: f64) -> Option<Val> {
        let len = shape.iter().product();
        let off = self.alloc(len)?;
        self.arena[off..off + len].fill(v);
        Some(Val {
            loc: Loc::Arena(off),
            shape,
        })
    }

    /// The value of an operand computed in `f64`.
    fn float(&mut self, k: &Known) -> Option<Val> {
        match k {
            Known::Val(v) => Some(v.clone()),
            Known::Int(i) => self.constant(vec![], *i as f64),
            Known::Dyn(..) => None,
        }
    }

    fn param(&mut self, k: usize) -> Option<Val> {
        let shape = self.params.get(k)?.clone()?;
        if shape.contains(&0) {
            // Without elements (a row of width 0): nothing to read, so
            // never placed (a size of 0 marks a parameter the tape does
            // not read); any offset of the arena holds its no elements.
            return Some(Val {
                loc: Loc::Arena(0),
                shape,
            });
        }
        self.param_sizes[k] = shape.iter().product();
        Some(Val {
            loc: Loc::Param(k, 0),
            shape,
        })
    }

    /// Emits `make(dst)` for a new value of `shape`.
    fn emit(&mut self, shape: Vec<usize>, make: impl FnOnce(usize) -> Instr) -> Option<Val> {
        let dst = self.alloc(shape.iter().product())?;
        self.instrs.push(make(dst));
        Some(Val {
            loc: Loc::Arena(dst),
            shape,
        })
    }

    /// The products of `shape`, result of shape `out`. Products large
    /// enough for the packed kernel pack their `B` first when this
    /// machine's kernel allows it ([`prepacked::available`]): a separate
    /// instruction, which the prologue runs once per call when `B` does
    /// not change between steps, so that a step packs neither operand.
    fn gemm(&mut self, a: Loc, b: Loc, shape: GemmShape, out: Vec<usize>) -> Option<Val> {
        let GemmShape { m, k, n, .. } = shape;
        let packed_b =
            if !gemm::is_small(m, k, n) && prepacked::available() && prepacked::fits(k, n) {
                let dst = self.alloc(shape.packed_b_span())?;
                self.instrs.push(Instr::PackB { src: b, shape, dst });
                Some(dst)
            } else {
                None
            };
        self.emit(out, |dst| Instr::Gemm {
            a,
            b,
            shape,
            packed_b,
            dst,
            then: Box::new([]),
        })
    }

    /// The arena element holding the constant `v` (one per value).
    fn scalar(&mut self, v: f64) -> Option<Loc> {
        let bits = v.to_bits();
        if let Some(&(_, off)) = self.scalars.iter().find(|(b, _)| *b == bits) {
            return Some(Loc::Arena(off));
        }
        let off = self.alloc(1)?;
        self.arena[off] = v;
        self.scalars.push((bits, off));
        Some(Loc::Arena(off))
    }

    /// Where instructions on one element read `loc`: a small parameter
    /// from its copy in the arena (made at its first such read).
    fn scalar_src(&mut self, loc: Loc) -> Option<Loc> {
        let Loc::Param(k, o) = loc else {
            return Some(loc);
        };
        let size = *self.param_sizes.get(k)?;
        if size > STAGE_LEN {
            return Some(loc);
        }
        let at = match self.staged[k] {
            Some(at) => at,
            None => {
                let dst = self.alloc(size)?;
                self.instrs.push(Instr::Copy {
                    src: Loc::Param(k, 0),
                    dst,
                    len: size,
                });
                self.staged[k] = Some(dst);
                dst
            }
        };
        Some(Loc::Arena(at + o))
    }

    /// `dst = Σ_j row[j·stride] · x[j]` for `j < k`, one element at a
    /// time in the canonical order of `matvec`: eight running sums from
    /// zero over the first `8·⌊k/8⌋` products, combined as
    /// `((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))`, then the rest
    /// added one by one.
    fn scalar_dot(&mut self, row: Loc, stride: usize, x: Loc, k: usize, dst: usize) -> Option<()> {
        let zero = self.scalar(0.0)?;
        let body = k - k % 8;
        let mut acc = zero;
        if body > 0 {
            let lanes = self.alloc(8 + 6)?;
            for l in 0..8 {
                let mut a = zero;
                for j in (l..body).step_by(8) {
                    self.instrs.push(Instr::MulAdd1 {
                        acc: a,
                        a: offset(row, j * stride),
                        b: offset(x, j),
                        dst: lanes + l,
                    });
                    a = Loc::Arena(lanes + l);
                }
            }
            let t = lanes + 8;
            let sum = [
                (lanes, lanes + 4, t),
                (lanes + 1, lanes + 5, t + 1),
                (t, t + 1, t + 2),
                (lanes + 2, lanes + 6, t + 3),
                (lanes + 3, lanes + 7, t + 4),
                (t + 3, t + 4, t + 5),
                (t + 2, t + 5, dst),
            ];
            for (a, b, d) in sum {
                self.instrs.push(Instr::Binary1 {
                    op: BinaryOp::Add,
                    a: Loc::Arena(a),
                    b: Loc::Arena(b),
                    dst: d,
                });
            }
            acc = Loc::Arena(dst);
        }
        for j in body..k {
            self.instrs.push(Instr::MulAdd1 {
                acc,
                a: offset(row, j * stride),
                b: offset(x, j),
                dst,
            });
            acc = Loc::Arena(dst);
        }
        if k == 0 {
            self.instrs.push(Instr::Move1 { src: zero, dst });
        }
        Some(())
    }

    /// `A · B` one element at a time, in the small kernel's order of
    /// `gemm`: each element the products added one by one to zero.
    fn scalar_gemm(&mut self, a: Loc, b: Loc, m: usize, k: usize, n: usize) -> Option<Val> {
        let (a, b) = (self.scalar_src(a)?, self.scalar_src(b)?);
        let zero = self.scalar(0.0)?;
        let dst = self.alloc(m * n)?;
        for i in 0..m {
            for j in 0..n {
                let d = dst + i * n + j;
                let mut acc = zero;
                for kk in 0..k {
                    self.instrs.push(Instr::MulAdd1 {
                        acc,
                        a: offset(a, i * k + kk),
                        b: offset(b, kk * n + j),
                        dst: d,
                    });
                    acc = Loc::Arena(d);
                }
                if k == 0 {
                    self.instrs.push(Instr::Move1 { src: zero, dst: d });
                }
            }
        }
        Some(Val {
            loc: Loc::Arena(dst),
            shape: vec![m, n],
        })
    }

    /// The reduction `op` of `x` (`[outer, extent, inner]` over the middle
    /// axis) one element at a time, in the order of the tape's `reduce`
    /// kernel: NumPy's pairwise sum over a last axis (sequential below 8
    /// elements, eight running sums up to 128), else the slices folded
    /// in order.
    #[allow(clippy::too_many_arguments)]
    fn scalar_reduce(
        &mut self,
        op: ReduceOp,
        src: Loc,
        outer: usize,
        extent: usize,
        inner: usize,
        shape: Vec<usize>,
    ) -> Option<Val> {
        let src = self.scalar_src(src)?;
        let dst = self.alloc(outer * inner)?;
        let add = |a: Loc, b: Loc, dst: usize| Instr::Binary1 {
            op: BinaryOp::Add,
            a,
            b,
            dst,
        };
        for o in 0..outer {
            for i in 0..inner {
                let d = dst + o * inner + i;
                let elem = |e: usize| offset(src, (o * extent + e) * inner + i);
                match op {
                    // One `Reduce` instruction (the caller never expands it);
                    // integer and bool results are not on the tape.
                    ReduceOp::LogSumExp
                    | ReduceOp::Argmax
                    | ReduceOp::Argmin
                    | ReduceOp::All
                    | ReduceOp::Any => return None,
                    ReduceOp::Sum | ReduceOp::Mean if inner == 1 && extent >= 8 => {
                        if extent > 128 {
                            return None;
                        }
                        let lanes = self.alloc(8 + 6)?;
                        for l in 0..8 {
                            self.instrs.push(Instr::Move1 {
                                src: elem(l),
                                dst: lanes + l,
                            });
                        }
                        let body = extent - extent % 8;
                        for j in (8..body).step_by(8) {
                            for l in 0..8 {
                                let acc = Loc::Arena(lanes + l);
                                self.instrs.push(add(acc, elem(j + l), lanes + l));
                            }
                        }
                        // ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
                        let t = lanes + 8;
                        let r = |l: usize| Loc::Arena(lanes + l);
                        self.instrs.push(add(r(0), r(1), t));
                        self.instrs.push(add(r(2), r(3), t + 1));
                        self.instrs
                            .push(add(Loc::Arena(t), Loc::Arena(t + 1), t + 2));
                        self.instrs.push(add(r(4), r(5), t + 3));
                        self.instrs.push(add(r(6), r(7), t + 4));
                        self.instrs
                            .push(add(Loc::Arena(t + 3), Loc::Arena(t + 4), t + 5));
                        self.instrs
                            .push(add(Loc::Arena(t + 2), Loc::Arena(t + 5), d));
                        for e in body..extent {
                            self.instrs.push(add(Loc::Arena(d), elem(e), d));
                        }
                    }
                    ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Prod => {
                        let (bop, start) = if op == ReduceOp::Prod {
                            (BinaryOp::Mul, 1.0)
                        } else {
                            (BinaryOp::Add, 0.0)
                        };
                        let mut acc = self.scalar(start)?;
                        for e in 0..extent {
                            self.instrs.push(Instr::Binary1 {
                                op: bop,
                                a: acc,
                                b: elem(e),
                                dst: d,
                            });
                            acc = Loc::Arena(d);
                        }
                        if extent == 0 {
                            self.instrs.push(Instr::Move1 { src: acc, dst: d });
                        }
                    }
                    ReduceOp::Max | ReduceOp::Min => {
                        if extent == 0 {
                            return None;
                        }
                        let bop = if op == ReduceOp::Max {
                            BinaryOp::Maximum
                        } else {
                            BinaryOp::Minimum
                        };
                        self.instrs.push(Instr::Move1 {
                            src: elem(0),
                            dst: d,
                        });
                        for e in 1..extent {
                            self.instrs.push(Instr::Binary1 {
                                op: bop,
                                a: Loc::Arena(d),
                                b: elem(e),
                                dst: d,
                            });
                        }
                    }
                }
                if op == ReduceOp::Mean {
                    let count = self.scalar(extent as f64)?;
                    self.instrs.push(Instr::Binary1 {
                        op: BinaryOp::Div,
                        a: Loc::Arena(d),
                        b: count,
                        dst: d,
                    });
                }
            }
        }
        Some(Val {
            loc: Loc::Arena(dst),
            shape,
        })
    }

    /// `op` over a small result of shape `out`, one element at a time,
    /// each operand read as its cover says.
    fn scalar_binary(
        &mut self,
        op: BinaryOp,
        a: Operand,
        b: Operand,
        out: Vec<usize>,
        period: usize,
    ) -> Option<Val> {
        let len: usize = out.iter().product();
        let (la, lb) = (self.scalar_src(a.loc)?, self.scalar_src(b.loc)?);
        let at = |o: Operand, loc: Loc, i: usize| match o.cover {
            Cover::Full => offset(loc, i),
            Cover::Scalar => loc,
            Cover::Repeat => offset(loc, i % period),
            Cover::PerBlock => offset(loc, i / period),
        };
        let dst = self.alloc(len)?;
        for i in 0..len {
            self.instrs.push(Instr::Binary1 {
                op,
                a: at(a, la, i),
                b: at(b, lb, i),
                dst: dst + i,
            });
        }
        Some(Val {
            loc: Loc::Arena(dst),
            shape: out,
        })
    }

    fn gather(&mut self, src: &Val, shape: Vec<usize>, index: Box<[usize]>) -> Option<Val> {
        let src_len = src.len();
        if index.iter().any(|&i| i >= src_len) {
            return None;
        }
        if index.len() <= SCALAR_LEN {
            let from = self.scalar_src(src.loc)?;
            let dst = self.alloc(index.len())?;
            for (d, &i) in index.iter().enumerate() {
                self.instrs.push(Instr::Move1 {
                    src: offset(from, i),
                    dst: dst + d,
                });
            }
            return Some(Val {
                loc: Loc::Arena(dst),
                shape,
            });
        }
        let loc = src.loc;
        if let Some(rows) = super::rows::Rows::of_index(&index) {
            return self.emit(shape, |dst| Instr::Rows {
                src: loc,
                rows,
                dst,
                op: None,
            });
        }
        self.emit(shape, |dst| Instr::Gather {
            src: loc,
            src_len,
            dst,
            index,
        })
    }

    /// `xs` as the operands of an elementwise instruction whose result has
    /// shape `out`, and the instruction's period: each in place when it
    /// covers the result whole, as a scalar, or in blocks of one period (a
    /// row broadcast along the rows, a column along the columns); one that
    /// repeats with another period than an earlier one is gathered to the
    /// result's shape (the same elements). The period is the result's
    /// length when none repeats; `None` when the result is not whole
    /// blocks of it.
    fn block_operands<const N: usize>(
        &mut self,
        xs: [Val; N],
        out: &[usize],
    ) -> Option<([Operand; N], usize)> {
        let len: usize = out.iter().product();
        let mut period = None;
        let mut ops = Vec::with_capacity(N);
        for x in xs {
            let (o, p) = self.operand(x.clone(), out, true)?;
            if !matches!(o.cover, Cover::Repeat | Cover::PerBlock) {
                ops.push(o);
            } else if period.is_none_or(|q| q == p) {
                period = Some(p);
                ops.push(o);
            } else {
                ops.push(self.operand(x, out, false)?.0);
            }
        }
        let period = period.unwrap_or(len);
        if period == 0 || !len.is_multiple_of(period) {
            return None;
        }
        Some((ops.try_into().ok()?, period))
    }

    /// `x` broadcast to `out` as a binary operand: in place when it covers
    /// the result as a whole, a scalar or a repeating block; else gathered.
    fn operand(&mut self, x: Val, out: &[usize], repeat: bool) -> Option<(Operand, usize)> {
        let len: usize = out.iter().product();
        if x.shape == out {
            let op = Operand {
                loc: x.loc,
                cover: Cover::Full,
            };
            return Some((op, len));
        }
        if x.len() == 1 {
            let op = Operand {
                loc: x.loc,
                cover: Cover::Scalar,
            };
            return Some((op, len));
        }
        let lead = x.shape.iter().take_while(|&&d| d == 1).count();
        let own = &x.shape[lead..];
        if repeat && own.len() < out.len() && out.ends_with(own) && x.len() > 0 {
            let op = Operand {
                loc: x.loc,
                cover: Cover::Repeat,
            };
            return Some((op, x.len()));
        }
        let n = out.len();
        let pad = n - x.shape.len();
        let column = n >= 2
            && x.shape.last() == Some(&1)
            && out[n - 1] > 1
            && x.shape[..x.shape.len() - 1]
                .iter()
                .eq(out[pad..n - 1].iter())
            && out[..pad].iter().all(|&d| d == 1);
        if repeat && column {
            let op = Operand {
                loc: x.loc,
                cover: Cover::PerBlock,
            };
            return Some((op, out[n - 1]));
        }
        // General broadcasting: gather to the result's shape.
        let xs = strides(&x.shape);
        let pad = out.len() - x.shape.len();
        let index = gather_index(out, |idx| {
            x.shape
                .iter()
                .enumerate()
                .map(|(a, &d)| if d == 1 { 0 } else { idx[pad + a] * xs[a] })
                .sum()
        });
        let full = self.gather(&x, out.to_vec(), index)?;
        let op = Operand {
            loc: full.loc,
            cover: Cover::Full,
        };
        Some((op, len))
    }

    fn node(
        &mut self,
        op: &Op,
        dtype: DType,
        compare: Option<DType>,
        args: &[Known],
        dims: &Dims,
    ) -> Option<Known> {
        let bind = |s: &str| dims.get(s).copied();
        // Only f64 values are computed here (and comparisons made in f64,
        // whose booleans are held as 1.0 and 0.0); integers only as known
        // scalars.
        let computed = !matches!(op, Op::Input(_) | Op::Literal(_) | Op::Size(_));
        let float_compare = matches!(op, Op::Compare(_)) && compare == Some(DType::F64);
        if computed && dtype != DType::F64 && !float_compare {
            return None;
        }
        let v = match (op, args) {
            (Op::Input(k), []) => self.param(*k)?,
            (Op::Literal(s), []) => {
                return match (dtype, s) {
                    (DType::F64, s) => self.constant(vec![], s.as_f64()).map(Known::Val),
                    (_, Scalar::I64(i)) => Some(Known::Int(*i)),
                    (_, Scalar::Bool(b)) => Some(Known::Int(*b as i64)),
                    (_, Scalar::F64(_)) => None,
                };
            }
            (Op::Size(s), []) => return bind(s).map(Known::Int),
            (Op::Unary(u), [x]) => {
                let x = self.float(x)?;
                let (op, src, len) = (*u, x.loc, x.len());
                if len <= SCALAR_LEN {
                    let src = self.scalar_src(src)?;
                    let dst = self.alloc(len)?;
                    for i in 0..len {
                        let (src, dst) = (offset(src, i), dst + i);
                        self.instrs.push(Instr::Unary1 { op, src, dst });
                    }
                    Val {
                        loc: Loc::Arena(dst),
                        shape: x.shape,
                    }
                } else {
                    self.emit(x.shape, |dst| Instr::Unary { op, src, dst, len })?
                }
            }
            (Op::Binary(bop), [x, y]) => {
                let bop = *bop;
                let (x, y) = (self.float(x)?, self.float(y)?);
                let out = broadcast_shapes(&[&x.shape, &y.shape]).ok()?;
                let len: usize = out.iter().product();
                if len == 1 && x.len() == 1 && y.len() == 1 {
                    let (a, b) = (self.scalar_src(x.loc)?, self.scalar_src(y.loc)?);
                    self.emit(out, |dst| Instr::Binary1 { op: bop, a, b, dst })?
                } else {
                    let ([a, b], period) = self.block_operands([x, y], &out)?;
                    if len <= SCALAR_LEN {
                        return self.scalar_binary(bop, a, b, out, period).map(Known::Val);
                    }
                    self.emit(out, |dst| Instr::Binary {
                        op: bop,
                        a,
                        b,
                        dst,
                        len,
                        period,
                    })?
                }
            }
            (Op::Compare(c), [x, y]) => {
                let (x, y) = (self.float(x)?, self.float(y)?);
                let out = broadcast_shapes(&[&x.shape, &y.shape]).ok()?;
                let len: usize = out.iter().product();
                let (a, _) = self.operand(x, &out, false)?;
                let (b, _) = self.operand(y, &out, false)?;
                let op = *c;
                self.emit(out, |dst| Instr::Compare { op, a, b, dst, len })?
            }
            // numpy.clip's definition, two instructions: the bits of the
            // clip kernel (maximum, then minimum, of the same elements).
            (Op::Clip, [x, lo, hi]) => {
                let max = Op::Binary(BinaryOp::Maximum);
                let m = self.node(&max, dtype, None, &[x.clone(), lo.clone()], dims)?;
                let min = Op::Binary(BinaryOp::Minimum);
                return self.node(&min, dtype, None, &[m, hi.clone()], dims);
            }
            (Op::Where, [c, x, y]) => {
                let (c, x, y) = (self.float(c)?, self.float(x)?, self.float(y)?);
                let out = broadcast_shapes(&[&c.shape, &x.shape, &y.shape]).ok()?;
                let len: usize = out.iter().product();
                let ([cond, a, b], period) = self.block_operands([c, x, y], &out)?;
                self.emit(out, |dst| Instr::Select {
                    cond,
                    a,
                    b,
                    dst,
                    len,
                    period,
                })?
            }
            (Op::Tensor(ty, values), []) => {
                let shape = self.shape_of(ty, &bind)?;
                if values.len() != shape.iter().product::<usize>() {
                    return None;
                }
                let off = self.alloc(values.len())?;
                for (d, v) in self.arena[off..].iter_mut().zip(values) {
                    *d = v.as_f64();
                }
                Val {
                    loc: Loc::Arena(off),
                    shape,
                }
            }
            (Op::Fill(ty), [x]) => {
                let shape = self.shape_of(ty, &bind)?;
                let x = self.float(x)?;
                if x.len() != 1 {
                    return None;
                }
                let index = vec![0; shape.iter().product()].into_boxed_slice();
                self.gather(&x, shape, index)?
            }
            (Op::Normalize(n, axis), [x]) => {
                // Lanes along any axis: contiguous along the last, `inner`
                // elements apart along another.
                let x = self.float(x)?;
                let ax = normalize_axis(*axis, x.shape.len()).ok()?;
                let extent = x.shape[ax];
                let outer: usize = x.shape[..ax].iter().product();
                let inner: usize = x.shape[ax + 1..].iter().product();
                let (op, src) = (*n, x.loc);
                self.emit(x.shape.clone(), |dst| Instr::Normalize {
                    op,
                    src,
                    dst,
                    outer,
                    extent,
                    inner,
                })?
            }
            (Op::Reduce(r, axis), [x]) => {
                // The tape holds f64 values: an index or a truth value is
                // the plan's.
                if matches!(
                    r,
                    ReduceOp::Argmax | ReduceOp::Argmin | ReduceOp::All | ReduceOp::Any
                ) {
                    return None;
                }
                let x = self.float(x)?;
                let (outer, extent, inner, shape) = match axis {
                    None => (1, x.len(), 1, vec![]),
                    Some(a) => {
                        let ax = normalize_axis(*a, x.shape.len()).ok()?;
                        let mut shape = x.shape.clone();
                        let extent = shape.remove(ax);
                        let outer = x.shape[..ax].iter().product();
                        let inner = x.shape[ax + 1..].iter().product();
                        (outer, extent, inner, shape)
                    }
                };
                if extent == 0 && matches!(r, ReduceOp::Max | ReduceOp::Min | ReduceOp::LogSumExp) {
                    return None;
                }
                if outer * extent * inner <= SCALAR_WORK && *r != ReduceOp::LogSumExp {
                    return self
                        .scalar_reduce(*r, x.loc, outer, extent, inner, shape)
                        .map(Known::Val);
                }
                let (op, src) = (*r, x.loc);
                self.emit(shape, |dst| Instr::Reduce {
                    op,
                    src,
                    dst,
                    outer,
                    extent,
                    inner,
                })?
            }
            // `dot` with a scalar is the product (the dot kernel's own
            // definition).
            (Op::Dot, [x, y])
                if [x, y].iter().any(|k| {
                    matches!(k, Known::Int(_)) || matches!(k, Known::Val(v) if v.shape.is_empty())
                }) =>
            {
                let mul = Op::Binary(BinaryOp::Mul);
                return self.node(&mul, dtype, None, &[x.clone(), y.clone()], dims);
            }
            (Op::Dot | Op::Matmul, [x, y]) => {
                let (x, y) = (self.float(x)?, self.float(y)?);
                if x.len() == 0 || y.len() == 0 {
                    return None;
                }
                match (x.shape.as_slice(), y.shape.as_slice()) {
                    // A · x, and x · B as Bᵀ · x (the plan's form).
                    (&[m, k], &[k2]) | (&[k2], &[k, m]) if k == k2 => {
                        let transposed = x.shape.len() == 1;
                        let (a, xl) = if transposed {
                            (y.loc, x.loc)
                        } else {
                            (x.loc, y.loc)
                        };
                        if m * k <= SCALAR_WORK {
                            let (a, xl) = (self.scalar_src(a)?, self.scalar_src(xl)?);
                            let dst = self.alloc(m)?;
                            for i in 0..m {
                                // Row i of A, or column i of B.
                                let (row, stride) = if transposed {
                                    (offset(a, i), m)
                                } else {
                                    (offset(a, i * k), 1)
                                };
                                self.scalar_dot(row, stride, xl, k, dst + i)?;
                            }
                            return Some(Known::Val(Val {
                                loc: Loc::Arena(dst),
                                shape: vec![m],
                            }));
                        }
                        // A matrix the same on every step, read by rows
                        // from the second-level cache: packed once per
                        // call into row blocks.
                        let packed_a = if !transposed
                            && matvec::row_blocks_pay(m, k)
                            && self.is_invariant(a)
                        {
                            let dst = self.alloc(m * k)?;
                            self.instrs.push(Instr::PackRows {
                                src: a,
                                rows: m,
                                cols: k,
                                dst,
                            });
                            Some(dst)
                        } else {
                            None
                        };
                        self.emit(vec![m], |dst| Instr::Gemv {
                            a,
                            rows: m,
                            cols: k,
                            x: xl,
                            dst,
                            transposed,
                            packed_a,
                        })?
                    }
                    (&[k], &[k2]) if k == k2 && k <= SCALAR_WORK => {
                        let (a, b) = (self.scalar_src(x.loc)?, self.scalar_src(y.loc)?);
                        let dst = self.alloc(1)?;
                        self.scalar_dot(a, 1, b, k, dst)?;
                        Val {
                            loc: Loc::Arena(dst),
                            shape: vec![],
                        }
                    }
                    (&[m, k], &[k2, n]) if k == k2 && m * k * n <= SCALAR_WORK => {
                        self.scalar_gemm(x.loc, y.loc, m, k, n)?
                    }
                    (&[k], &[k2]) if k == k2 => {
                        let (a, b) = (x.loc, y.loc);
                        self.emit(vec![], |dst| Instr::Inner { a, b, len: k, dst })?
                    }
                    (&[m, k], &[k2, n]) if k == k2 => {
                        let (a, b) = (x.loc, y.loc);
                        let shape = GemmShape {
                            m,
                            k,
                            n,
                            batch: 1,
                            a_stride: 0,
                            b_stride: 0,
                        };
                        self.gemm(a, b, shape, vec![m, n])?
                    }
                    (xs, ys) if matches!(op, Op::Matmul) && xs.len().min(ys.len()) >= 2 => {
                        // Stacks of matrices: one product per batch, in
                        // the plan's (row-major) batch order. The batch
                        // axes are equal, or one side has none (its
                        // matrix is used for every batch).
                        let (bx, [m, k]) = xs.split_at(xs.len() - 2) else {
                            return None;
                        };
                        let (by, [k2, n]) = ys.split_at(ys.len() - 2) else {
                            return None;
                        };
                        let (m, k, n) = (*m, *k, *n);
                        if k != *k2 || !(bx == by || bx.is_empty() || by.is_empty()) {
                            return None;
                        }
                        let batch_shape = if bx.is_empty() { by } else { bx };
                        let batch: usize = batch_shape.iter().product();
                        let a_stride = if bx.is_empty() { 0 } else { m * k };
                        let b_stride = if by.is_empty() { 0 } else { k * n };
                        let mut out = batch_shape.to_vec();
                        out.extend([m, n]);
                        let (a, b) = (x.loc, y.loc);
                        let shape = GemmShape {
                            m,
                            k,
                            n,
                            batch,
                            a_stride,
                            b_stride,
                        };
                        self.gemm(a, b, shape, out)?
                    }
                    _ => return None,
                }
            }
            (Op::LogMatMulExp, [x, y]) => {
                let (x, y) = (self.float(x)?, self.float(y)?);
                let &[n, m] = y.shape.as_slice() else {
                    return None;
                };
                let rows = match *x.shape.as_slice() {
                    [k] if k == n => 1,
                    [r, k] if k == n => r,
                    _ => return None,
                };
                if n == 0 {
                    return None;
                }
                // exp(B) first: the prologue's when B is invariant.
                let (src, len) = (y.loc, n * m);
                let exp_b = self.emit(y.shape.clone(), |dst| Instr::Unary {
                    op: UnaryOp::Exp,
                    src,
                    dst,
                    len,
                })?;
                let mut shape = x.shape[..x.shape.len() - 1].to_vec();
                shape.push(m);
                let dst = self.alloc(rows * m + n)?;
                self.instrs.push(Instr::LogMatMulExp {
                    a: x.loc,
                    b: y.loc,
                    exp_b: exp_b.loc,
                    rows,
                    n,
                    m,
                    dst,
                });
                Val {
                    loc: Loc::Arena(dst),
                    shape,
                }
            }
            (
                Op::Solve
                | Op::SolveTriangular(_)
                | Op::Cholesky
                | Op::Inv
                | Op::Det
                | Op::Slogdet(_),
                [x, rest @ ..],
            ) => {
                let kind = match op {
                    Op::Solve => Small::Solve,
                    Op::SolveTriangular(lower) => Small::Triangular(*lower),
                    Op::Cholesky => Small::Cholesky,
                    Op::Inv => Small::Inv,
                    Op::Det => Small::Det,
                    Op::Slogdet(k) => Small::Slogdet(*k),
                    _ => return None,
                };
                let a = self.float(x)?;
                let n = match *a.shape.as_slice() {
                    [r, c] if r == c && (1..=SMALL_N).contains(&r) => r,
                    _ => return None,
                };
                let (b, m, shape) = match (kind.reads_b(), rest) {
                    (true, [y]) => {
                        let b = self.float(y)?;
                        match *b.shape.as_slice() {
                            [k] if k == n => (b.loc, 1, vec![n]),
                            [k, m] if k == n => (b.loc, m, vec![n, m]),
                            _ => return None,
                        }
                    }
                    (false, []) => match kind {
                        Small::Det | Small::Slogdet(_) => (a.loc, 0, vec![]),
                        _ => (a.loc, 0, vec![n, n]),
                    },
                    _ => return None,
                };
                let node = self.node;
                self.emit(shape, |dst| Instr::Factor {
                    kind,
                    a: a.loc,
                    b,
                    n,
                    m,
                    dst,
                    node,
                })?
            }
            (Op::Transpose(perm), [x]) => {
                let x = self.float(x)?;
                let n = x.shape.len();
                let order: Vec<usize> = match perm {
                    None => (0..n).rev().collect(),
                    Some(p) => {
                        let o: Option<Vec<usize>> =
                            p.iter().map(|&a| normalize_axis(a, n).ok()).collect();
                        o?
                    }
                };
                let mut seen = vec![false; n];
                for &a in &order {
                    if std::mem::replace(seen.get_mut(a)?, true) {
                        return None;
                    }
                }
                if order.len() != n {
                    return None;
                }
                let shape: Vec<usize> = order.iter().map(|&a| x.shape[a]).collect();
                // The last two axes swapped, of matrices that are not rows
                // or columns: their sides.
                let matrices = (n >= 2
                    && order[..n - 2].iter().enumerate().all(|(i, &a)| i == a)
                    && order[n - 2..] == [n - 1, n - 2])
                .then(|| (x.shape[n - 2], x.shape[n - 1]))
                .filter(|&(rows, cols)| rows > 1 && cols > 1 && x.len() > SCALAR_LEN);
                if order.iter().enumerate().all(|(i, &a)| i == a) {
                    Val { loc: x.loc, shape }
                } else if let Some((rows, cols)) = matrices {
                    let (src, batch) = (x.loc, x.len() / (rows * cols));
                    self.emit(shape, |dst| Instr::Transpose {
                        src,
                        batch,
                        rows,
                        cols,
                        dst,
                    })?
                } else {
                    let xs = strides(&x.shape);
                    let index = gather_index(&shape, |idx| {
                        order.iter().zip(idx).map(|(&a, &i)| i * xs[a]).sum()
                    });
                    self.gather(&x, shape, index)?
                }
            }
            // The elements in reverse order along one axis: a gather.
            (Op::Flip(axis), [x]) => {
                let x = self.float(x)?;
                let ax = normalize_axis(*axis, x.shape.len()).ok()?;
                let xs = strides(&x.shape);
                let shape = x.shape.clone();
                let index = gather_index(&shape, |idx| {
                    idx.iter()
                        .enumerate()
                        .map(|(a, &i)| if a == ax { shape[a] - 1 - i } else { i } * xs[a])
                        .sum()
                });
                self.gather(&x, shape.clone(), index)?
            }
            (Op::Reshape(sizes), [x]) => {
                let x = self.float(x)?;
                let mut shape = Vec::with_capacity(sizes.len());
                let mut infer = None;
                for (i, d) in sizes.iter().enumerate() {
                    if d.as_known() == Some(-1) {
                        if infer.replace(i).is_some() {
                            return None;
                        }
                        shape.push(1);
                    } else {
                        shape.push(usize::try_from(d.eval(&bind)?).ok()?);
                    }
                }
                let known: usize = shape.iter().product();
                if let Some(i) = infer {
                    if known == 0 || x.len() % known != 0 {
                        return None;
                    }
                    shape[i] = x.len() / known;
                }
                if shape.iter().product::<usize>() != x.len() {
                    return None;
                }
                Val { loc: x.loc, shape }
            }
            (Op::ExpandDims(a), [x]) => {
                let x = self.float(x)?;
                let ax = normalize_axis(*a, x.shape.len() + 1).ok()?;
                let mut shape = x.shape.clone();
                shape.insert(ax, 1);
                Val { loc: x.loc, shape }
            }
            (Op::Squeeze(a), [x]) => {
                let x = self.float(x)?;
                let ax = normalize_axis(*a, x.shape.len()).ok()?;
                if x.shape[ax] != 1 {
                    return None;
                }
                let mut shape = x.shape.clone();
                shape.remove(ax);
                Val { loc: x.loc, shape }
            }
            (Op::Index, [x, idx @ ..]) => {
                let mut x = self.float(x)?;
                if idx.len() > x.shape.len() {
                    return None;
                }
                // Axis by axis, each index on the first axis left: a known
                // one moves the view on, one read from the loop's data
                // picks its row when the step runs.
                for (ax, k) in idx.iter().enumerate() {
                    let d = x.shape[0];
                    let row: usize = x.shape[1..].iter().product();
                    let shape = x.shape[1..].to_vec();
                    x = match k {
                        Known::Int(i) => {
                            let i = if *i < 0 { i + d as i64 } else { *i };
                            if i < 0 || i >= d as i64 {
                                return None;
                            }
                            Val {
                                loc: offset(x.loc, i as usize * row),
                                shape,
                            }
                        }
                        Known::Val(at) => {
                            let int = matches!(
                                self.arg_dtypes.get(ax + 1),
                                Some(DType::I64 | DType::I32)
                            );
                            if !int || !at.shape.is_empty() {
                                return None;
                            }
                            self.index_at(&x, at, 1, ax, 0, shape)?
                        }
                        Known::Dyn(..) => return None,
                    };
                }
                x
            }
            // numpy.take along an axis by one known index (gate k of a
            // packed (M, 4, N) pre-activation): a view of the operand, in
            // place when the axis is the first, else its elements gathered
            // (those of the result only, never the whole operand).
            (Op::Take(axis), [x, Known::Int(i)]) => {
                let x = self.float(x)?;
                let ax = normalize_axis(*axis, x.shape.len()).ok()?;
                let d = x.shape[ax];
                let i = usize::try_from(*i).ok().filter(|&i| i < d)?;
                let mut shape = x.shape.clone();
                shape.remove(ax);
                let st = strides(&x.shape);
                if x.shape[..ax].iter().all(|&n| n == 1) {
                    Val {
                        loc: offset(x.loc, i * st[ax]),
                        shape,
                    }
                } else {
                    let index = gather_index(&shape, |idx| {
                        let mut at = i * st[ax];
                        for (a, &k) in idx.iter().enumerate() {
                            at += k * st[if a < ax { a } else { a + 1 }];
                        }
                        at
                    });
                    self.gather(&x, shape, index)?
                }
            }
            // numpy.take along an axis, by i64 indices read from the
            // loop's data (an integer sequence's row, a state).
            (Op::Take(axis), [x, Known::Val(at)])
                if self.arg_dtypes.get(1) == Some(&DType::I64) =>
            {
                let x = self.float(x)?;
                let ax = normalize_axis(*axis, x.shape.len()).ok()?;
                let mut shape = x.shape[..ax].to_vec();
                shape.extend_from_slice(&at.shape);
                shape.extend_from_slice(&x.shape[ax + 1..]);
                let count = at.len();
                self.index_at(&x, at, count, ax, ax, shape)?
            }
            (Op::Slice { start, stop, step }, [x]) => {
                let x = self.float(x)?;
                let (&rows, rest) = x.shape.split_first()?;
                let (first, step, count) = slice_indices(rows, *start, *stop, *step).ok()?;
                let row: usize = rest.iter().product();
                let mut shape = x.shape.clone();
                shape[0] = count;
                if step == 1 || count <= 1 {
                    let at = if count == 0 { 0 } else { first as usize * row };
                    Val {
                        loc: offset(x.loc, at),
                        shape,
                    }
                } else {
                    let index = gather_index(&shape, |idx| {
                        let r = (first + idx[0] as i64 * step) as usize;
                        r * row
                            + idx[1..]
                                .iter()
                                .zip(&strides(rest))
                                .map(|(i, s)| i * s)
                                .sum::<usize>()
                    });
                    self.gather(&x, shape, index)?
                }
            }
            (Op::Stack, xs) if !xs.is_empty() => {
                let vals: Option<Vec<Val>> = xs.iter().map(|x| self.float(x)).collect();
                let vals = vals?;
                let first = vals[0].shape.clone();
                if vals.iter().any(|v| v.shape != first) {
                    return None;
                }
                let mut shape = vec![vals.len()];
                shape.extend_from_slice(&first);
                self.concat_rows(&vals, shape)?
            }
            (Op::Concat(a), xs) if !xs.is_empty() => {
                let vals: Option<Vec<Val>> = xs.iter().map(|x| self.float(x)).collect();
                let vals = vals?;
                let nd = vals[0].shape.len();
                let ax = normalize_axis(*a, nd).ok()?;
                let same_but_axis = |v: &Val| {
                    v.shape.len() == nd
                        && (0..nd).all(|d| d == ax || v.shape[d] == vals[0].shape[d])
                };
                if !vals.iter().all(same_but_axis) {
                    return None;
                }
                let mut shape = vals[0].shape.clone();
                shape[ax] = vals.iter().map(|v| v.shape[ax]).sum();
                if ax == 0 {
                    self.concat_rows(&vals, shape)?
                } else {
                    // Per index of the axes before `ax`, each part's
                    // block in turn: one copy each.
                    let outer: usize = shape[..ax].iter().product();
                    let dst = self.alloc(shape.iter().product())?;
                    let mut at = dst;
                    for o in 0..outer {
                        for v in &vals {
                            let len = v.len() / outer.max(1);
                            self.instrs.push(Instr::Copy {
                                src: offset(v.loc, o * len),
                                dst: at,
                                len,
                            });
                            at += len;
                        }
                    }
                    Val {
                        loc: Loc::Arena(dst),
                        shape,
                    }
                }
            }
            (Op::Cast(DType::F64) | Op::StopGradient, [x]) => match x {
                Known::Val(v) => v.clone(),
                Known::Int(i) => self.constant(vec![], *i as f64)?,
                Known::Dyn(..) => return None,
            },
            (Op::ZerosLike, [x]) => {
                let shape = match x {
                    Known::Val(v) => v.shape.clone(),
                    Known::Int(_) => vec![],
                    Known::Dyn(..) => return None,
                };
                self.constant(shape, 0.0)?
            }
            (Op::Zeros(ty) | Op::Ones(ty), []) => {
                let shape = self.shape_of(ty, &bind)?;
                let v = if matches!(op, Op::Ones(_)) { 1.0 } else { 0.0 };
                self.constant(shape, v)?
            }
            _ => return None,
        };
        Some(Known::Val(v))
    }

    /// The shape of `ty` with the sizes bound.
    fn shape_of(&self, ty: &Type, bind: &dyn Fn(&str) -> Option<i64>) -> Option<Vec<usize>> {
        ty.shape
            .iter()
            .map(|d| d.eval(bind).and_then(|n| usize::try_from(n).ok()))
            .collect()
    }

    /// The slices of `x` along `axis` at the `count` integer indices held
    /// at `at` (see [`Instr::IndexAt`]), of shape `shape`; `named` is the
    /// axis an error names.
    fn index_at(
        &mut self,
        x: &Val,
        at: &Val,
        count: usize,
        named: usize,
        axis: usize,
        shape: Vec<usize>,
    ) -> Option<Val> {
        let outer: usize = x.shape[..axis].iter().product();
        let size = *x.shape.get(axis)?;
        let inner: usize = x.shape[axis + 1..].iter().product();
        let (src, at, node) = (x.loc, at.loc, self.node);
        self.emit(shape, |dst| Instr::IndexAt {
            src,
            at,
            count,
            outer,
            size,
            inner,
            axis: named,
            dst,
            node,
        })
    }

    /// The values one after the other (rows of a stack or an axis-0
    /// concatenation).
    fn concat_rows(&mut self, vals: &[Val], shape: Vec<usize>) -> Option<Val> {
        let dst = self.alloc(shape.iter().product())?;
        let mut at = dst;
        for v in vals {
            let len = v.len();
            self.instrs.push(Instr::Copy {
                src: v.loc,
                dst: at,
                len,
            });
            at += len;
        }
        Some(Val {
            loc: Loc::Arena(dst),
            shape,
        })
    }
}

/// What the loop tells the compiler of a body's data beyond its shapes:
/// how the loop's stores hold each parameter and each result's row.
#[derive(Clone, Copy)]
pub(crate) struct Holding<'h> {
    /// Per body parameter, how its store holds its elements (an `i64`
    /// state or mitmot slot, and integer data past 2^53, as their bits).
    pub params: &'h [Held],
    /// Per body result, how its row holds its elements (a row of an
    /// `i64` buffer as their bits, any other as their number).
    pub results: &'h [Held],
}

/// Compiles the body `body` for one call: `params` gives what the tape
/// may know of each body parameter, `invariant` which of them are the
/// same on every step (non-sequences), `dims` the sizes, `results` the shape
/// each body result had on the step the plan ran (the loop's row shapes),
/// `holding` how the loop's stores hold the parameters and rows.
/// The reason when the body does not compile (see the module docs).
pub(crate) fn compile(
    body: &GraphPlan,
    params: &[ParamShape],
    invariant: &[bool],
    dims: &Dims,
    results: &[Vec<usize>],
    holding: Holding<'_>,
) -> Result<StepTape, OffTape> {
    let mut why = None;
    let tape = compile_or(body, params, invariant, dims, results, holding, &mut why);
    tape.ok_or(why.unwrap_or(OffTape::Shape))
}

/// [`compile`], `why` set to the reason when it answers `None` for one
/// it can name (`None` left: a result of another shape than its row).
fn compile_or(
    body: &GraphPlan,
    params: &[ParamShape],
    invariant: &[bool],
    dims: &Dims,
    results: &[Vec<usize>],
    holding: Holding<'_>,
    why: &mut Option<OffTape>,
) -> Option<StepTape> {
    let g = &body.graph;
    let mut b = Builder {
        instrs: Vec::new(),
        arena: Vec::new(),
        params,
        invariant,
        param_sizes: vec![0; params.len()],
        staged: vec![None; params.len()],
        scalars: Vec::new(),
        node: 0,
        full: false,
        arg_dtypes: Vec::new(),
        scratch: Vec::new(),
        too_large: false,
    };
    // Every node the results need, in the graph's (topological) order:
    // the plan's schedule leaves out the members of fused groups.
    let mut needed = vec![false; g.nodes.len()];
    for o in &g.outputs {
        *needed.get_mut(o.0)? = true;
    }
    for i in (0..g.nodes.len()).rev() {
        if needed[i] {
            for a in &g.nodes[i].args {
                *needed.get_mut(a.0)? = true;
            }
        }
    }
    let mut known: Vec<Option<Known>> = vec![None; g.nodes.len()];
    let mut held = vec![Held::Num; g.nodes.len()];
    // Per nested loop's node, its outputs ([`Builder::nested`]).
    let mut nested: std::collections::HashMap<usize, Vec<(Known, Held)>> = Default::default();
    for i in (0..g.nodes.len()).filter(|&i| needed[i]) {
        let node = g.nodes.get(i)?;
        let args: Option<Vec<Known>> = node
            .args
            .iter()
            .map(|a| known.get(a.0).cloned().flatten())
            .collect();
        let dtype = node.ty.first()?.dtype;
        let compare = body.nodes.get(i)?.compare_dtype;
        b.node = i;
        b.arg_dtypes.clear();
        for a in &node.args {
            b.arg_dtypes.push(g.nodes.get(a.0)?.ty.first()?.dtype);
        }
        let args = args?;
        // A nested loop's output: its place in the loop's region.
        if let (Op::Proj(k), [a]) = (&node.op, &node.args[..]) {
            if let Some(outs) = nested.get(&a.0) {
                let (v, h) = outs.get(*k)?.clone();
                held[i] = h;
                known[i] = Some(v);
                continue;
            }
        }
        // A nested loop the plan runs (it has its loop plan): the plan's
        // loop runner runs it on each step.
        if let Op::Scan(_) = node.op {
            if body.nodes.get(i)?.scan.is_none() {
                *why = Some(OffTape::NestedLoop);
                return None;
            }
            let (arg_tys, arg_held) = operand_types(g, node, &held)?;
            let call = Call {
                op: &node.op,
                args: &args,
                arg_tys: &arg_tys,
                held: &arg_held,
                out_ty: node.ty.first()?,
                compare: None,
                dims,
            };
            let Some(outs) = b.nested(call, &node.ty) else {
                *why = Some(match &node.op {
                    _ if b.full => OffTape::ArenaFull,
                    _ if b.too_large => OffTape::NestedCopy,
                    _ => OffTape::NestedLoop,
                });
                return None;
            };
            // The loop's node itself stands for its outputs in the arena
            // (only its projections read it).
            let in_arena = outs.iter().filter_map(|(k, _)| match k {
                Known::Val(v) => Some(v),
                _ => None,
            });
            let whole: usize = in_arena.clone().map(Val::len).sum();
            let first = in_arena.map(|v| v.loc).next().unwrap_or(Loc::Arena(0));
            nested.insert(i, outs);
            known[i] = Some(Known::Val(Val {
                loc: first,
                shape: vec![whole],
            }));
            continue;
        }
        // A value held as its bits only a kernel call reads; any other
        // node the specialized instructions do not take goes to one.
        // So does a value held outside the arena (whose shape a step sets).
        let bits = node.args.iter().any(|a| held.get(a.0) == Some(&Held::Bits))
            || args.iter().any(|k| matches!(k, Known::Dyn(..)));
        let mark = b.mark();
        let mut k = if bits {
            None
        } else {
            b.node(&node.op, dtype, compare, &args, dims)
        };
        if k.is_none() && !b.full {
            b.undo(mark);
            let (arg_tys, arg_held) = operand_types(g, node, &held)?;
            let call = Call {
                op: &node.op,
                args: &args,
                arg_tys: &arg_tys,
                held: &arg_held,
                out_ty: node.ty.first()?,
                compare,
                dims,
            };
            if let Some((v, h)) = b.kernel(call) {
                k = Some(v);
                held[i] = h;
            }
        }
        if k.is_none() {
            let float_compare = matches!(node.op, Op::Compare(_)) && compare == Some(DType::F64);
            *why = Some(match (&node.op, node.op.kind()) {
                _ if b.full => OffTape::ArenaFull,
                (Op::Scan(_), _) => OffTape::NestedLoop,
                (Op::Input(_), _) => OffTape::Param(dtype),
                (_, None) => OffTape::Constant,
                (_, Some(k)) if b.too_large => OffTape::KernelCopy(k),
                (_, Some(k)) if dtype != DType::F64 && !float_compare => OffTape::DType(k, dtype),
                (_, Some(k)) => OffTape::Op(k),
            });
        }
        if let Op::Input(p) = node.op {
            // A parameter is held as its store holds it.
            held[i] = holding.params.get(p).copied().unwrap_or(Held::Num);
        }
        known[i] = Some(k?);
    }
    if g.outputs.len() != results.len() {
        return None;
    }
    let mut res = Vec::with_capacity(results.len());
    for (j, (o, want)) in g.outputs.iter().zip(results).enumerate() {
        let row_held = holding.results.get(j).copied().unwrap_or(Held::Num);
        let k = known.get(o.0)?.as_ref()?;
        let v = match (k, held.get(o.0).copied()?, row_held) {
            (_, h, r) if h == r => b.float(k)?,
            // An integer literal returned into an `i64` row: its bits.
            (Known::Int(i), _, Held::Bits) => b.constant(vec![], f64::from_bits(*i as u64))?,
            // An `i64` held as its number (a row of the loop's integers
            // returned as it is) into an `i64` row: the plan's kernel
            // casts it to `i64` and the arena holds its bits.
            (Known::Val(_), Held::Num, Held::Bits) => {
                let ty = g.nodes.get(o.0)?.ty.first()?;
                let call = Call {
                    op: &Op::Cast(DType::I64),
                    args: std::slice::from_ref(k),
                    arg_tys: std::slice::from_ref(ty),
                    held: &[Held::Num],
                    out_ty: &Type {
                        dtype: DType::I64,
                        ..ty.clone()
                    },
                    compare: None,
                    dims,
                };
                match b.kernel(call) {
                    Some((Known::Val(v), Held::Bits)) => v,
                    _ => {
                        *why = Some(OffTape::Output(ty.dtype));
                        return None;
                    }
                }
            }
            // An `i64`'s bits into a row that holds numbers: no such
            // row (only `i64` rows hold bits).
            _ => return None,
        };
        if &v.shape != want {
            return None;
        }
        let len = v.len();
        let off = match v.loc {
            Loc::Arena(off) => off,
            // A parameter returned as it is: copied, so that every read
            // of the step comes before the loop writes its rows.
            src @ Loc::Param(..) => {
                let Some(dst) = b.alloc(len) else {
                    *why = Some(OffTape::ArenaFull);
                    return None;
                };
                b.instrs.push(Instr::Copy { src, dst, len });
                dst
            }
        };
        res.push((off, len));
    }
    // Products take their readers first (computed as each element is
    // stored: no pass at all), then the passes left pair up.
    let instrs = super::epilogue::fuse_products(b.instrs, &res);
    let instrs = super::fuse_binaries(instrs, &res);
    let instrs = super::rows::fuse_unary(instrs, &res);
    let (prologue, instrs) = super::hoist_invariants(instrs, invariant, b.arena.len());
    // Packed last, so that a hoisted instruction does not split a run.
    let (prologue, instrs) = (pack_scalars(prologue), pack_scalars(instrs));
    let direct = super::direct_results(&instrs, &res);
    let mut tape = StepTape {
        prologue,
        instrs,
        direct,
        arena: b.arena.into(),
        results: res,
        param_sizes: b.param_sizes,
        native_tried: false,
        native_loop: None,
        scratch: b.scratch,
        failure: None,
    };
    super::reuse::reuse(&mut tape);
    super::reuse::align_packed(&mut tape);
    if tape.arena.len() > MAX_ARENA {
        *why = Some(OffTape::ArenaFull);
        return None;
    }
    if !tape.operands_clear_of_destinations() {
        *why = Some(OffTape::Storage);
        return None;
    }
    Some(tape)
}

/// `ins` as one operation of a [`Instr::Scalars`] run, when it works on
/// one element and all its operands are in the arena.
fn scalar_op(ins: &Instr) -> Option<ScalarOp> {
    let at = |l: Loc| match l {
        Loc::Arena(o) => u32::try_from(o).ok(),
        Loc::Param(..) => None,
    };
    let to = |d: usize| u32::try_from(d).ok();
    Some(match *ins {
        Instr::Move1 { src, dst } => ScalarOp::Move {
            src: at(src)?,
            dst: to(dst)?,
        },
        Instr::MulAdd1 { acc, a, b, dst } => ScalarOp::MulAdd {
            acc: at(acc)?,
            a: at(a)?,
            b: at(b)?,
            dst: to(dst)?,
        },
        Instr::Unary1 { op, src, dst } => ScalarOp::Unary {
            op,
            src: at(src)?,
            dst: to(dst)?,
        },
        Instr::Binary1 { op, a, b, dst } => {
            let (a, b, dst) = (at(a)?, at(b)?, to(dst)?);
            match op {
                BinaryOp::Add => ScalarOp::Add { a, b, dst },
                BinaryOp::Sub => ScalarOp::Sub { a, b, dst },
                BinaryOp::Mul => ScalarOp::Mul { a, b, dst },
                op => ScalarOp::Binary { op, a, b, dst },
            }
        }
        _ => return None,
    })
}

/// The instructions with each run of consecutive [`scalar_op`]s packed
/// into one [`Instr::Scalars`]: the same operations in the same order.
fn pack_scalars(instrs: Vec<Instr>) -> Vec<Instr> {
    let mut out = Vec::with_capacity(instrs.len());
    let mut run: Vec<ScalarOp> = Vec::new();
    for ins in instrs {
        match scalar_op(&ins) {
            Some(op) => run.push(op),
            None => {
                if !run.is_empty() {
                    out.push(Instr::Scalars(std::mem::take(&mut run).into_boxed_slice()));
                }
                out.push(ins);
            }
        }
    }
    if !run.is_empty() {
        out.push(Instr::Scalars(run.into_boxed_slice()));
    }
    out
}

/// The types of `node`'s operands in `g` and how the tape holds each
/// (`None`: an operand without a type), for a kernel call.
fn operand_types(
    g: &crate::lang::Graph,
    node: &crate::lang::Node,
    held: &[Held],
) -> Option<(Vec<Type>, Vec<Held>)> {
    let tys: Option<Vec<Type>> = node
        .args
        .iter()
        .map(|a| g.nodes.get(a.0)?.ty.first().cloned())
        .collect();
    let holding = node
        .args
        .iter()
        .map(|a| held.get(a.0).copied().unwrap_or(Held::Num))
        .collect();
    Some((tys?, holding))
}

/// Where a kernel call's result goes ([`Builder::push_kernel_call`]).
enum KernelInto {
    /// `len` elements at `dst` in the arena, of `shape`, held as `held`.
    Arena {
        shape: Vec<usize>,
        held: Held,
        dst: usize,
        len: usize,
    },
    /// The call's scratch, where it stays (a result whose shape a step
    /// sets).
    Scratch,
}

/// The elements a kernel call copies out of the arena for its operands
/// (`values`: their scratch values): all of them for a nested loop (its
/// runner takes values), those not read in place for a kernel's call
/// (`kernels`: see [`kernel::in_place`]).
fn copied_by(args: &[KernelArg], values: &[Value], kernels: bool) -> usize {
    args.iter()
        .zip(values)
        .map(|(a, v)| match a {
            KernelArg::At { .. } if kernels && kernel::in_place(v) => 0,
            KernelArg::At { len, .. } => *len,
            KernelArg::Const | KernelArg::Owned(_) => 0,
        })
        .sum()
}

/// How a kernel call reads its operand `k` (of type `ty`, held in the
/// arena as `held`), and the scratch value the operand is copied into.
fn kernel_operand(k: &Known, ty: &Type, held: Held) -> (KernelArg, Value) {
    match k {
        Known::Val(v) => (
            KernelArg::At {
                loc: v.loc,
                len: v.len(),
                held,
            },
            kernel::zeros(ty.dtype, &v.shape),
        ),
        Known::Int(i) => (
            KernelArg::Const,
            Value::I64(ndarray::arr0(*i).into_dyn()).into_dtype(ty.dtype),
        ),
        Known::Dyn(own, _) => (KernelArg::Owned(*own), kernel::zeros(ty.dtype, &[])),
    }
}
