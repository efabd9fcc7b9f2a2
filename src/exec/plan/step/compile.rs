//! Compiling a loop body into a [`StepTape`] for concrete shapes.
//!
//! Owns: walking the body's schedule once with the shapes of this call's
//! parameters, giving each value a place (a region of the arena, a region
//! of a parameter, or an integer known now) and emitting the instruction
//! that computes it. Must not: compile anything that could fail or differ
//! from the plan at run time — it answers `None` instead, and the loop
//! stays on the plan.

use super::{Cover, Instr, Loc, Operand, StepTape};
use crate::exec::ops::elementwise::broadcast_shapes;
use crate::exec::ops::normalize_axis;
use crate::exec::ops::shape::slice_indices;
use crate::exec::plan::schedule::GraphPlan;
use crate::exec::run::Dims;
use crate::lang::{DType, Op, ReduceOp, Scalar, Type};

/// What the tape may know of a body parameter: its shape, when its data
/// is contiguous `f64` (on every step); `None` when the tape may not read
/// it.
pub(crate) type ParamShape = Option<Vec<usize>>;

/// The largest arena, in elements (4 MiB): beyond it a body is dominated
/// by its arithmetic and the plan's slot reuse matters more than its
/// per-step cost.
const MAX_ARENA: usize = 1 << 19;

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

struct Builder<'a> {
    instrs: Vec<Instr>,
    arena: Vec<f64>,
    params: &'a [ParamShape],
    param_sizes: Vec<usize>,
}

impl Builder<'_> {
    fn alloc(&mut self, len: usize) -> Option<usize> {
        let off = self.arena.len();
        let end = off.checked_add(len)?;
        if end > MAX_ARENA {
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
        }
    }

    fn param(&mut self, k: usize) -> Option<Val> {
        let shape = self.params.get(k)?.clone()?;
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

    fn gather(&mut self, src: &Val, shape: Vec<usize>, index: Box<[usize]>) -> Option<Val> {
        let src_len = src.len();
        if index.iter().any(|&i| i >= src_len) {
            return None;
        }
        let loc = src.loc;
        self.emit(shape, |dst| Instr::Gather {
            src: loc,
            src_len,
            dst,
            index,
        })
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
                if len == 1 {
                    self.emit(x.shape, |dst| Instr::Unary1 { op, src, dst })?
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
                    let (a, b) = (x.loc, y.loc);
                    self.emit(out, |dst| Instr::Binary1 { op: bop, a, b, dst })?
                } else {
                    let (a, pa) = self.operand(x, &out, true)?;
                    let (b, pb) = self.operand(y, &out, true)?;
                    let blocked = |c: Cover| matches!(c, Cover::Repeat | Cover::PerBlock);
                    let period = match (a.cover, b.cover) {
                        (ca, cb) if blocked(ca) && blocked(cb) && pa != pb => return None,
                        (ca, _) if blocked(ca) => pa,
                        (_, cb) if blocked(cb) => pb,
                        _ => len,
                    };
                    if period == 0 || !len.is_multiple_of(period) {
                        return None;
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
            (Op::Where, [c, x, y]) => {
                let (c, x, y) = (self.float(c)?, self.float(x)?, self.float(y)?);
                let out = broadcast_shapes(&[&c.shape, &x.shape, &y.shape]).ok()?;
                let len: usize = out.iter().product();
                let (c, _) = self.operand(c, &out, false)?;
                let (a, _) = self.operand(x, &out, false)?;
                let (b, _) = self.operand(y, &out, false)?;
                self.emit(out, |dst| Instr::Select {
                    cond: c,
                    a,
                    b,
                    dst,
                    len,
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
            (Op::Reduce(r, axis), [x]) => {
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
                if extent == 0 && matches!(r, ReduceOp::Max | ReduceOp::Min) {
                    return None;
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
                        self.emit(vec![m], |dst| Instr::Gemv {
                            a,
                            rows: m,
                            cols: k,
                            x: xl,
                            dst,
                            transposed,
                        })?
                    }
                    (&[k], &[k2]) if k == k2 => {
                        let (a, b) = (x.loc, y.loc);
                        self.emit(vec![], |dst| Instr::Inner { a, b, len: k, dst })?
                    }
                    (&[m, k], &[k2, n]) if k == k2 => {
                        let (a, b) = (x.loc, y.loc);
                        self.emit(vec![m, n], |dst| Instr::Gemm { a, b, m, k, n, dst })?
                    }
                    _ => return None,
                }
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
                if order.iter().enumerate().all(|(i, &a)| i == a) {
                    Val { loc: x.loc, shape }
                } else {
                    let xs = strides(&x.shape);
                    let index = gather_index(&shape, |idx| {
                        order.iter().zip(idx).map(|(&a, &i)| i * xs[a]).sum()
                    });
                    self.gather(&x, shape, index)?
                }
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
                let x = self.float(x)?;
                if idx.len() > x.shape.len() {
                    return None;
                }
                let xs = strides(&x.shape);
                let mut at = 0;
                for (ax, k) in idx.iter().enumerate() {
                    let Known::Int(i) = k else { return None };
                    let d = x.shape[ax] as i64;
                    let i = if *i < 0 { i + d } else { *i };
                    if i < 0 || i >= d {
                        return None;
                    }
                    at += i as usize * xs[ax];
                }
                Val {
                    loc: offset(x.loc, at),
                    shape: x.shape[idx.len()..].to_vec(),
                }
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
                if normalize_axis(*a, nd).ok()? != 0
                    || vals
                        .iter()
                        .any(|v| v.shape.len() != nd || v.shape[1..] != vals[0].shape[1..])
                {
                    return None;
                }
                let mut shape = vals[0].shape.clone();
                shape[0] = vals.iter().map(|v| v.shape[0]).sum();
                self.concat_rows(&vals, shape)?
            }
            (Op::Cast(DType::F64) | Op::StopGradient, [x]) => match x {
                Known::Val(v) => v.clone(),
                Known::Int(i) => self.constant(vec![], *i as f64)?,
            },
            (Op::ZerosLike, [x]) => {
                let shape = match x {
                    Known::Val(v) => v.shape.clone(),
                    Known::Int(_) => vec![],
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

/// Compiles the body `body` for one call: `params` gives what the tape
/// may know of each body parameter, `dims` the sizes, `results` the shape
/// each body result had on the step the plan ran (the loop's row shapes).
/// `None` when the body does not compile (see the module docs).
pub(crate) fn compile(
    body: &GraphPlan,
    params: &[ParamShape],
    dims: &Dims,
    results: &[Vec<usize>],
) -> Option<StepTape> {
    let g = &body.graph;
    let mut b = Builder {
        instrs: Vec::new(),
        arena: Vec::new(),
        params,
        param_sizes: vec![0; params.len()],
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
    for i in (0..g.nodes.len()).filter(|&i| needed[i]) {
        let node = g.nodes.get(i)?;
        let args: Option<Vec<Known>> = node
            .args
            .iter()
            .map(|a| known.get(a.0).cloned().flatten())
            .collect();
        let dtype = node.ty.first()?.dtype;
        let compare = body.nodes.get(i)?.compare_dtype;
        known[i] = Some(b.node(&node.op, dtype, compare, &args?, dims)?);
    }
    if g.outputs.len() != results.len() {
        return None;
    }
    let mut res = Vec::with_capacity(results.len());
    for (o, want) in g.outputs.iter().zip(results) {
        let v = b.float(known.get(o.0)?.as_ref()?)?;
        if &v.shape != want {
            return None;
        }
        let len = v.len();
        let off = match v.loc {
            Loc::Arena(off) => off,
            // A parameter returned as it is: copied, so that every read
            // of the step comes before the loop writes its rows.
            src @ Loc::Param(..) => {
                let dst = b.alloc(len)?;
                b.instrs.push(Instr::Copy { src, dst, len });
                dst
            }
        };
        res.push((off, len));
    }
    let tape = StepTape {
        instrs: b.instrs,
        arena: b.arena,
        results: res,
        param_sizes: b.param_sizes,
    };
    tape.operands_below_destinations().then_some(tape)
}
