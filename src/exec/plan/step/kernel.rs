//! The tape's generic instruction: an op it does not specialize, computed
//! by the plan's own kernels on the arena's memory.
//!
//! Owns: [`KernelCall`] — one body node the tape computes by calling
//! `kernels::fast` (the plan's allocation-free paths) and, when that
//! declines, the reference kernel `ops::eval`, exactly as the plan's
//! runtime computes the node — with its operands' places and the way the
//! arena holds each value ([`Held`]); [`KernelScratch`], the owned operand
//! and result values one such instruction reuses from step to step; and
//! running it ([`run`]). A loop of the body (a nested loop) is such a
//! node too: the plan's own loop runner runs it on the operands' values
//! ([`LoopRunner`], its own step tape included), and its outputs go into
//! the arena one after another ([`LoopOut`]). Must not: compute anything
//! itself (the bits are the plan's because the kernels and the loop
//! runner are), or allocate on a step once its values are sized, apart
//! from what a reference kernel or a loop allocates.

use super::Loc;
use crate::exec::ops;
use crate::exec::plan::kernels::{self, Arg};
use crate::exec::plan::view::ValView;
use crate::exec::run::Dims;
use crate::exec::value::Value;
use crate::lang::{DType, Op, Type};
use ndarray::{ArrayD, IxDyn};

/// How the arena holds the elements of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// As its number in `f64`: every `f64`, `f32`, `i32` and bool (1.0
    /// and 0.0) exactly, and the loop's `i64` data (converted only when
    /// every element is at most 2^53 in magnitude).
    Num,
    /// An `i64` (or key) computed on the tape, its 64 bits stored as
    /// they are (`f64::from_bits`): exact whatever its magnitude. Only a
    /// [`KernelCall`] reads such a value.
    Bits,
}

impl Held {
    /// How a kernel's result of `dtype` is held.
    pub(crate) fn of_result(dtype: DType) -> Held {
        match dtype {
            DType::I64 | DType::Key => Held::Bits,
            _ => Held::Num,
        }
    }
}

/// One operand of a [`KernelCall`].
#[derive(Clone, Debug)]
pub(crate) enum KernelArg {
    /// `len` elements at `loc`, held as `held` (the operand's dtype and
    /// shape are those of its scratch value).
    At { loc: Loc, len: usize, held: Held },
    /// A literal or size known when the tape was made: its scratch value
    /// holds it, and no step writes it.
    Const,
}

/// A body node computed by the plan's kernels (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct KernelCall {
    /// The op.
    pub op: Op,
    /// Its operands, in order.
    pub args: Box<[KernelArg]>,
    /// The operands' static types (their weak flags decide the dtype a
    /// comparison computes in), as the plan passes them.
    pub arg_tys: Box<[Type]>,
    /// The node's static type.
    pub out_ty: Type,
    /// The dtype a comparison computes in, as the plan decided it.
    pub compare: Option<DType>,
    /// The sizes of the call (ops that build shapes read them).
    pub dims: Box<Dims>,
    /// The result's shape (fixed with the parameters' shapes).
    pub shape: Box<[usize]>,
    /// How the arena holds the result.
    pub held: Held,
    /// Where the result goes in the arena.
    pub dst: usize,
    /// The result's elements.
    pub len: usize,
    /// Its [`KernelScratch`] in the tape's list.
    pub slot: usize,
    /// The body node (an error of its kernel names it).
    pub node: usize,
    /// A loop of the body ([`LoopRunner`]): where each of its outputs
    /// goes in the result (`None`: a kernel's one result).
    pub loop_outs: Option<Box<[LoopOut]>>,
}

/// Where one output of a nested loop goes in its [`KernelCall`]'s result.
#[derive(Clone, Debug)]
pub(crate) struct LoopOut {
    /// Its first element, from the call's `dst`.
    pub at: usize,
    /// Its shape (fixed with the parameters' shapes).
    pub shape: Box<[usize]>,
    /// How the arena holds it.
    pub held: Held,
}

/// Runs a loop of the body as the plan does (the loop's own runner and
/// runtime, kept across steps), for the tape of the loop around it.
pub(crate) trait LoopRunner {
    /// Runs the loop at body node `node` on the values `args` (its
    /// operands, in order), then calls `out(k, value)` for each of its
    /// outputs. `Err(true)`: the loop failed (the runner keeps its
    /// error, the program's); `Err(false)`: `out` refused a value (the
    /// tape and the loop disagree).
    fn run_loop(
        &self,
        node: usize,
        args: &[Value],
        out: &mut dyn FnMut(usize, &Value) -> Option<()>,
    ) -> Result<(), bool>;
}

/// The values one [`KernelCall`] reuses from step to step: its operands
/// (written from the arena before each call, in place) and the kernel's
/// result (written in place by `kernels::fast`).
#[derive(Clone, Debug, Default)]
pub(crate) struct KernelScratch {
    /// Per operand, its value.
    pub args: Vec<Value>,
    /// The last result.
    pub dest: Option<Value>,
}

/// A value of `dtype` and `shape` filled with zeros.
pub(crate) fn zeros(dtype: DType, shape: &[usize]) -> Value {
    let sh = IxDyn(shape);
    match dtype.storage() {
        DType::F64 => Value::F64(ArrayD::zeros(sh)),
        DType::F32 => Value::F32(ArrayD::zeros(sh)),
        DType::I32 => Value::I32(ArrayD::zeros(sh)),
        DType::Bool => Value::Bool(ArrayD::from_elem(sh, false)),
        _ => Value::I64(ArrayD::zeros(sh)),
    }
}

/// Writes the arena's elements `x` (held as `held`) into `v`, whose
/// shape has `x.len()` elements, in its dtype. `None` when the lengths
/// disagree.
fn fill(v: &mut Value, x: &[f64], held: Held) -> Option<()> {
    macro_rules! each {
        ($a:expr, $f:expr) => {{
            let d = $a.as_slice_mut()?;
            if d.len() != x.len() {
                return None;
            }
            for (d, &x) in d.iter_mut().zip(x) {
                *d = $f(x);
            }
        }};
    }
    match v {
        Value::F64(a) => {
            let d = a.as_slice_mut()?;
            if d.len() != x.len() {
                return None;
            }
            d.copy_from_slice(x);
        }
        Value::F32(a) => each!(a, |x: f64| x as f32),
        Value::I32(a) => each!(a, |x: f64| x as i32),
        Value::Bool(a) => each!(a, |x: f64| x != 0.0),
        Value::I64(a) => match held {
            Held::Num => each!(a, |x: f64| x as i64),
            Held::Bits => each!(a, |x: f64| x.to_bits() as i64),
        },
    }
    Some(())
}

/// Writes `v` (of `shape`) into `out`, held as `held`, in row-major
/// order. `None` when the shapes disagree.
fn store(v: &Value, shape: &[usize], held: Held, out: &mut [f64]) -> Option<()> {
    if v.shape() != shape || out.len() != v.len() {
        return None;
    }
    macro_rules! each {
        ($a:expr, $f:expr) => {{
            match $a.as_slice() {
                Some(s) => {
                    for (o, &x) in out.iter_mut().zip(s) {
                        *o = $f(x);
                    }
                }
                None => {
                    for (o, &x) in out.iter_mut().zip($a.iter()) {
                        *o = $f(x);
                    }
                }
            }
        }};
    }
    match v {
        Value::F64(a) => match a.as_slice() {
            Some(s) => out.copy_from_slice(s),
            None => each!(a, |x: f64| x),
        },
        Value::F32(a) => each!(a, |x: f32| x as f64),
        Value::I32(a) => each!(a, |x: i32| x as f64),
        Value::Bool(a) => each!(a, |x: bool| if x { 1.0 } else { 0.0 }),
        Value::I64(a) => match held {
            Held::Num => each!(a, |x: i64| x as f64),
            Held::Bits => each!(a, |x: i64| f64::from_bits(x as u64)),
        },
    }
    Some(())
}

/// The most operands the allocation-free path takes (as the plan's
/// runtime).
const FAST_ARGS: usize = 6;

/// Computes `call` into `out` (its region of the arena, or nothing else),
/// its operands read by `read(loc, len)`. `Err(Some(msg))`: the kernel's
/// error (what the plan raises at this node); `Err(None)`: the tape and
/// the loop disagree about a shape (an internal error).
pub(crate) fn run<'s>(
    call: &KernelCall,
    scratch: &mut KernelScratch,
    read: impl Fn(Loc, usize) -> Option<&'s [f64]>,
    out: &mut [f64],
) -> Result<(), Option<String>> {
    for (a, v) in call.args.iter().zip(scratch.args.iter_mut()) {
        if let KernelArg::At { loc, len, held } = *a {
            fill(v, read(loc, len).ok_or(None)?, held).ok_or(None)?;
        }
    }
    if call.loop_outs.is_some() {
        // A nested loop: see `run_loop`.
        return Err(None);
    }
    let n = scratch.args.len();
    let done = n <= FAST_ARGS && {
        let mut args: [Option<Arg<'_>>; FAST_ARGS] = [None, None, None, None, None, None];
        for (slot, v) in args.iter_mut().zip(&scratch.args) {
            *slot = Some(Arg::View(ValView::of(v)));
        }
        kernels::fast(
            &call.op,
            &args[..n],
            &mut scratch.dest,
            call.out_ty.dtype,
            call.compare,
        )
    };
    if !done {
        let refs: Vec<&Value> = scratch.args.iter().collect();
        let tys: Vec<&Type> = call.arg_tys.iter().collect();
        let bind = |s: &str| call.dims.get(s).copied();
        scratch.dest = Some(ops::eval(&call.op, &refs, &tys, &call.out_ty, &bind).map_err(Some)?);
    }
    let v = scratch.dest.as_ref().ok_or(None)?;
    store(v, &call.shape, call.held, out).ok_or(None)
}

/// Runs the nested loop `call` (`call.loop_outs` set) by `runner` on
/// its operands read by `read`, its outputs stored into `out`.
/// `Err(true)`: the loop failed (`runner` keeps the error); `Err(false)`:
/// the tape and the loop disagree.
pub(crate) fn run_loop<'s>(
    call: &KernelCall,
    scratch: &mut KernelScratch,
    read: impl Fn(Loc, usize) -> Option<&'s [f64]>,
    out: &mut [f64],
    runner: &dyn LoopRunner,
) -> Result<(), bool> {
    let outs = call.loop_outs.as_deref().ok_or(false)?;
    for (a, v) in call.args.iter().zip(scratch.args.iter_mut()) {
        if let KernelArg::At { loc, len, held } = *a {
            fill(v, read(loc, len).ok_or(false)?, held).ok_or(false)?;
        }
    }
    runner.run_loop(call.node, &scratch.args, &mut |k, v| {
        let o = outs.get(k)?;
        let len: usize = o.shape.iter().product();
        store(
            v,
            &o.shape,
            o.held,
            out.get_mut(o.at..o.at.checked_add(len)?)?,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every dtype goes into the arena and back as it was: integers past
    /// 2^53 and negative ones through their bits, NaN and infinities as
    /// they are.
    #[test]
    fn values_cross_the_arena_unchanged() {
        let cases = [
            (
                Value::I64(
                    ArrayD::from_shape_vec(IxDyn(&[3]), vec![i64::MAX, -(1 << 60) - 1, -3])
                        .unwrap(),
                ),
                Held::Bits,
            ),
            (
                Value::I64(ArrayD::from_shape_vec(IxDyn(&[2]), vec![1 << 53, -7]).unwrap()),
                Held::Num,
            ),
            (
                Value::F32(
                    ArrayD::from_shape_vec(IxDyn(&[3]), vec![f32::NAN, f32::NEG_INFINITY, 1e-45])
                        .unwrap(),
                ),
                Held::Num,
            ),
            (
                Value::I32(ArrayD::from_shape_vec(IxDyn(&[2]), vec![i32::MIN, i32::MAX]).unwrap()),
                Held::Num,
            ),
            (
                Value::Bool(ArrayD::from_shape_vec(IxDyn(&[2]), vec![true, false]).unwrap()),
                Held::Num,
            ),
        ];
        for (v, held) in cases {
            let shape = v.shape().to_vec();
            let mut arena = vec![0.0; v.len()];
            store(&v, &shape, held, &mut arena).unwrap();
            let mut back = zeros(v.dtype(), &shape);
            fill(&mut back, &arena, held).unwrap();
            match (&v, &back) {
                (Value::F32(a), Value::F32(b)) => {
                    assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()))
                }
                _ => assert_eq!(v, back),
            }
        }
    }
}
