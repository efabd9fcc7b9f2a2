//! The tape's generic instruction: an op it does not specialize, computed
//! by the plan's own kernels on the arena's memory.
//!
//! Owns: [`KernelCall`] — one body node the tape computes by calling
//! `kernels::fast` (the plan's allocation-free paths) and, when that
//! declines, the reference kernel `ops::eval`, exactly as the plan's
//! runtime computes the node — with its operands' places and the way the
//! arena holds each value ([`Held`]); [`KernelScratch`], the owned operand
//! and result values one such instruction reuses from step to step (an
//! `f64` operand is read in place instead, a view of the arena:
//! [`in_place`]); and
//! running it ([`run`]). A loop of the body (a nested loop) is such a
//! node too: the plan's own loop runner runs it on the operands' values
//! ([`LoopRunner`], its own step tape included), and its outputs go into
//! the arena one after another ([`LoopOut`]).
//!
//! Values whose shape a step sets (a nested while loop's outputs, whose
//! lengths are known only once it has run, and what kernels compute from
//! them) are not in the arena: each stays where the call that computed it
//! left it, in that call's [`KernelScratch`] ([`Own`]), and only later
//! kernel calls and loops read it there, in place ([`KernelArg::Owned`]).
//! A value of a fixed shape computed from them goes into the arena as any
//! other. Must not: compute anything itself (the bits are the plan's
//! because the kernels and the loop runner are), or allocate on a step
//! once its values are sized, apart from what a reference kernel or a
//! loop allocates and a held value whose shape changed from the last
//! step.

use super::Loc;
use crate::exec::ops;
use crate::exec::plan::kernels::{self, Arg};
use crate::exec::plan::view::ValView;
use crate::exec::run::Dims;
use crate::exec::value::Value;
use crate::lang::{DType, Op, Type};
use ndarray::{ArrayD, ArrayViewD, IxDyn};

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
    /// A value held outside the arena, whose shape a step sets: read in
    /// place from the call that computed it earlier in the step.
    Owned(Own),
}

/// Where a value held outside the arena is: the [`KernelScratch`] of the
/// call that computed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Own {
    /// The call's slot in the tape's list.
    pub slot: usize,
    /// A nested loop's output `k` (`KernelScratch::outs`); `None`: a
    /// kernel's one result (`KernelScratch::dest`).
    pub out: Option<usize>,
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
    /// The kernel's result is held outside the arena, in the call's
    /// scratch ([`Own`]): its shape is set by each step (`dst` and `len`
    /// are then 0, and `shape` empty).
    pub owned: bool,
}

impl KernelCall {
    /// True when the call reads or computes a value held outside the
    /// arena: what it does then is not seen in the arena's regions (such
    /// a call runs on every step, never once per call).
    pub(crate) fn touches_owned(&self) -> bool {
        self.owned
            || self.args.iter().any(|a| matches!(a, KernelArg::Owned(_)))
            || self
                .loop_outs
                .as_deref()
                .is_some_and(|o| o.iter().any(|o| o.owned))
    }
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
    /// Held outside the arena instead (a while loop's output, or one whose
    /// shape the sizes do not fix): kept in the call's scratch as the loop
    /// returned it (`at`, `shape` and `held` unused).
    pub owned: bool,
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
        args: &[&Value],
        out: &mut dyn FnMut(usize, &Value) -> Option<()>,
    ) -> Result<(), bool>;
}

/// The values one [`KernelCall`] reuses from step to step: its operands
/// (written from the arena before each call, in place) and the kernel's
/// result (written in place by `kernels::fast`).
#[derive(Clone, Debug, Default)]
pub(crate) struct KernelScratch {
    /// Per operand, its value (unused for an operand held outside the
    /// arena, [`KernelArg::Owned`]).
    pub args: Vec<Value>,
    /// The last result.
    pub dest: Option<Value>,
    /// A nested loop's outputs held outside the arena ([`LoopOut::owned`]),
    /// by output, as the last step left them.
    pub outs: Vec<Option<Value>>,
}

/// The value `own` in `before` (the scratch of the calls before the one
/// reading it).
fn owned(before: &[KernelScratch], own: Own) -> Option<&Value> {
    let s = before.get(own.slot)?;
    match own.out {
        None => s.dest.as_ref(),
        Some(k) => s.outs.get(k)?.as_ref(),
    }
}

/// The operand values of `call`: its own copies from the arena in `args`,
/// and the values held outside it in `before`.
fn operands<'v>(
    call: &KernelCall,
    args: &'v [Value],
    before: &'v [KernelScratch],
) -> Option<Vec<&'v Value>> {
    call.args
        .iter()
        .zip(args)
        .map(|(a, v)| match *a {
            KernelArg::Owned(own) => owned(before, own),
            _ => Some(v),
        })
        .collect()
}

/// Keeps `v` in `slot`, in the storage the value there has when it has
/// `v`'s dtype (a while loop's output changes its length from step to
/// step: no allocation once the storage holds the longest), else a new
/// copy.
fn keep(slot: &mut Option<Value>, v: &Value) {
    fn refill<T: Clone + Default>(d: &mut ArrayD<T>, v: &ArrayD<T>) {
        let (mut data, _) = std::mem::take(d).into_raw_vec_and_offset();
        data.clear();
        data.extend(v.iter().cloned());
        *d = ArrayD::from_shape_vec(IxDyn(v.shape()), data).unwrap_or_else(|_| v.clone());
    }
    match (slot.as_mut(), v) {
        (Some(Value::F64(d)), Value::F64(v)) => refill(d, v),
        (Some(Value::F32(d)), Value::F32(v)) => refill(d, v),
        (Some(Value::I64(d)), Value::I64(v)) => refill(d, v),
        (Some(Value::I32(d)), Value::I32(v)) => refill(d, v),
        (Some(Value::Bool(d)), Value::Bool(v)) => refill(d, v),
        _ => *slot = Some(v.clone()),
    }
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

/// True when a [`KernelCall`]'s operand whose scratch value is `v` is
/// read in place by the allocation-free kernels, not copied: an `f64`
/// (the arena holds its elements as they are) of at most
/// [`IN_PLACE_DIMS`] dimensions.
pub(crate) fn in_place(v: &Value) -> bool {
    matches!(v, Value::F64(_)) && v.shape().len() <= IN_PLACE_DIMS
}

/// The most dimensions an operand read in place may have: a view's shape
/// of more would be allocated on each step (`IxDyn` holds four inline).
const IN_PLACE_DIMS: usize = 4;

/// The most operands the allocation-free path takes (as the plan's
/// runtime).
const FAST_ARGS: usize = 6;

/// Computes `call` into `out` (its region of the arena, or nothing else),
/// its operands read by `read(loc, len)` and, held outside the arena,
/// from `scratch` (every call's, this one's at `call.slot`).
/// `Err(Some(msg))`: the kernel's error (what the plan raises at this
/// node); `Err(None)`: the tape and the loop disagree about a shape (an
/// internal error).
pub(crate) fn run<'s>(
    call: &KernelCall,
    scratch: &mut [KernelScratch],
    read: impl Fn(Loc, usize) -> Option<&'s [f64]>,
    out: &mut [f64],
) -> Result<(), Option<String>> {
    let (before, rest) = scratch.split_at_mut(call.slot);
    let KernelScratch { args, dest, .. } = rest.first_mut().ok_or(None)?;
    if call.loop_outs.is_some() {
        // A nested loop: see `run_loop`.
        return Err(None);
    }
    // An `f64` operand is read in place, a view of the arena or of the
    // loop's data in its scratch value's shape (row-major, as the copy
    // would be: the kernel computes the same bits); any other is copied
    // into its scratch value first.
    for (a, v) in call.args.iter().zip(args.iter_mut()) {
        if let (&KernelArg::At { loc, len, held }, false) = (a, in_place(v)) {
            fill(v, read(loc, len).ok_or(None)?, held).ok_or(None)?;
        }
    }
    let n = args.len();
    let done = n <= FAST_ARGS && {
        let mut fast: [Option<Arg<'_>>; FAST_ARGS] = [None, None, None, None, None, None];
        for (slot, (a, v)) in fast.iter_mut().zip(call.args.iter().zip(args.iter())) {
            let view = match *a {
                KernelArg::Owned(own) => ValView::of(owned(before, own).ok_or(None)?),
                KernelArg::At { loc, len, .. } if in_place(v) => {
                    let data = read(loc, len).ok_or(None)?;
                    let shape = IxDyn(v.shape());
                    ValView::F64(ArrayViewD::from_shape(shape, data).map_err(|_| None)?)
                }
                _ => ValView::of(v),
            };
            *slot = Some(Arg::View(view));
        }
        kernels::fast(&call.op, &fast[..n], dest, call.out_ty.dtype, call.compare)
    };
    if !done {
        // The reference kernel takes values: the operands read in place
        // are copied after all.
        for (a, v) in call.args.iter().zip(args.iter_mut()) {
            if let (&KernelArg::At { loc, len, held }, true) = (a, in_place(v)) {
                fill(v, read(loc, len).ok_or(None)?, held).ok_or(None)?;
            }
        }
        let refs = operands(call, args, before).ok_or(None)?;
        let tys: Vec<&Type> = call.arg_tys.iter().collect();
        let bind = |s: &str| call.dims.get(s).copied();
        *dest = Some(ops::eval(&call.op, &refs, &tys, &call.out_ty, &bind).map_err(Some)?);
    }
    if call.owned {
        // Held where it is, in `dest`.
        return Ok(());
    }
    let v = dest.as_ref().ok_or(None)?;
    store(v, &call.shape, call.held, out).ok_or(None)
}

/// Runs the nested loop `call` (`call.loop_outs` set) by `runner` on
/// its operands read by `read` and, held outside the arena, from
/// `scratch`; its outputs stored into `out`, or kept in the call's
/// scratch ([`LoopOut::owned`]). `Err(true)`: the loop failed (`runner`
/// keeps the error); `Err(false)`: the tape and the loop disagree.
pub(crate) fn run_loop<'s>(
    call: &KernelCall,
    scratch: &mut [KernelScratch],
    read: impl Fn(Loc, usize) -> Option<&'s [f64]>,
    out: &mut [f64],
    runner: &dyn LoopRunner,
) -> Result<(), bool> {
    let outs = call.loop_outs.as_deref().ok_or(false)?;
    let (before, rest) = scratch.split_at_mut(call.slot);
    let KernelScratch {
        args, outs: kept, ..
    } = rest.first_mut().ok_or(false)?;
    for (a, v) in call.args.iter().zip(args.iter_mut()) {
        if let KernelArg::At { loc, len, held } = *a {
            fill(v, read(loc, len).ok_or(false)?, held).ok_or(false)?;
        }
    }
    if kept.len() < outs.len() {
        kept.resize(outs.len(), None);
    }
    let refs = operands(call, args, before).ok_or(false)?;
    runner.run_loop(call.node, &refs, &mut |k, v| {
        let o = outs.get(k)?;
        if o.owned {
            keep(kept.get_mut(k)?, v);
            return Some(());
        }
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
