//! The e-class analysis: the type of every class, the constant it holds (if
//! every element is the same known number), the range of its values (see
//! [`super::range`]), and the scan inner inputs it reads.
//!
//! Owns: [`TensorAnalysis`], [`ClassData`], the type check of every e-node
//! (by [`crate::lang::infer::infer`] and, for scans,
//! [`crate::lang::loop_type`]: the same rules the parser uses), constant
//! folding (by the executor's kernels, so folding has exactly the
//! semantics of running) and [`EGraph`].
//!
//! Why here and not in `src/lang` (as DESIGN.md first placed it): folding
//! evaluates ops, and the language layer must not know about execution.
//!
//! Ranges merge by intersection: each node of a class computes the same
//! values, so each node's range is a sound bound for the class.
//!
//! Dependence sets merge by intersection, which can be optimistic (egg issue
//! #234): a rewrite that relies on "this class reads only inputs S" must
//! extract a witness term whose leaves are all allowed.

use super::range::{op_range, Range};
use crate::egraph::term::{Head, Lit, OpKind, TNode};
use crate::exec::ops::eval;
use crate::exec::Value;
use crate::lang::infer::infer;
use crate::lang::loop_type;
use crate::lang::{
    AttrKind, AttrValue, Dim, Elements, ExactInt, Form, LoopSig, Op, Scalar, Slot, Type,
};
use egg::{Analysis, DidMerge, Id};
use std::collections::BTreeSet;

/// The e-graph of programs.
pub type EGraph = egg::EGraph<TNode, TensorAnalysis>;

/// What a class is.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A tensor value of this type.
    Value(Type),
    /// A scan: one type per output.
    Multi(Vec<Type>),
    /// An attribute (a type, a dtype, `none`) or a root; not a value.
    Attr,
    /// A node whose arguments do not type-check (a rule built something
    /// ill-typed); such a class is never unioned with a value class.
    Invalid(String),
}

/// The analysis data of one e-class.
#[derive(Clone, Debug)]
pub struct ClassData {
    /// Its type.
    pub kind: Kind,
    /// Set when every element is this number.
    pub konst: Option<Scalar>,
    /// Bounds of every non-NaN element (see [`super::range`]).
    pub range: Range,
    /// The inner inputs of the enclosing scan it reads (see module docs).
    pub deps: BTreeSet<usize>,
    /// The saturation iteration in which the class was made or last had
    /// a class merged into it or its data refined (see
    /// [`crate::egraph::stamps`]); no part of what the class means.
    pub touched: u64,
}

impl ClassData {
    /// The value type, if the class is a value.
    pub fn ty(&self) -> Option<&Type> {
        match &self.kind {
            Kind::Value(t) => Some(t),
            _ => None,
        }
    }
}

/// The analysis; counts the unions it had to make between classes of
/// different types (always a bug in a rewrite: rule appliers check types
/// before they union).
#[derive(Default)]
pub struct TensorAnalysis {
    /// Unions of classes whose types differed.
    pub type_conflicts: usize,
    /// Unions of classes holding constants that disagree (see
    /// [`crate::egraph::union::konsts_agree`]); appliers refuse such
    /// unions, so only congruence after a float-inexact rewrite can make
    /// one. Each is a wrong equation in the e-graph.
    pub konst_conflicts: usize,
    /// Per rule, the rewrites refused because the two sides' types or
    /// shapes differed (counted by the rule appliers).
    pub refused: std::collections::BTreeMap<String, usize>,
    /// When set, rule appliers stop adding to the e-graph once it says a
    /// limit is reached (see [`crate::egraph::runner::ApplyGuard`]).
    pub guard: Option<crate::egraph::runner::ApplyGuard>,
    /// When saturation must stop: appliers that do much work per match
    /// (the Scan rewrites) check it, so one rule's matches cannot overrun
    /// the time limit egg checks only between rules.
    pub deadline: Option<std::time::Instant>,
    /// The scan classes the Scan rewrites skip this iteration (see
    /// [`crate::egraph::retired`]).
    pub retired: std::collections::HashSet<egg::Id>,
    /// The scan classes whose outputs were all loop-free at the start of
    /// this iteration (retired once they are again at the next).
    pub loop_free_scans: std::collections::HashSet<egg::Id>,
    /// Calls of [`Self::out_of_time`] so far.
    pub clock_calls: std::cell::Cell<u32>,
    /// The deadline was found passed.
    pub past_deadline: std::cell::Cell<bool>,
    /// The saturation iteration, counted by the runner before each one
    /// (0: no runner counts them).
    pub iteration: u64,
    /// Each class's reach stamp at the start of this iteration: the
    /// latest [`ClassData::touched`] of the classes it reaches (see
    /// [`crate::egraph::stamps`]).
    pub reach_stamps: std::collections::HashMap<egg::Id, u64>,
    /// State a family of rewrites keeps between its applications (the
    /// Scan rewrites keep their body plans here); see [`RewriteState`].
    pub rewrite_state: RewriteState,
}

/// State that rewrites keep in the e-graph between applications, one value
/// per type: a rewrite family stores what it shares across matches
/// without the e-graph layer knowing what it is.
#[derive(Default)]
pub struct RewriteState(std::collections::HashMap<std::any::TypeId, Box<dyn std::any::Any>>);

impl RewriteState {
    /// The value of type `T`, made with `T::default()` on first use.
    pub fn get_mut<T: Default + 'static>(&mut self) -> &mut T {
        let slot = self
            .0
            .entry(std::any::TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()));
        match slot.downcast_mut::<T>() {
            Some(t) => t,
            // The map is keyed by the type id of its values.
            None => unreachable!("rewrite state keyed by another type"),
        }
    }
}

impl TensorAnalysis {
    /// True once the saturation deadline has passed, or the
    /// [`Self::guard`] has stopped rule applications.
    ///
    /// The clock is read on every [`Self::CLOCK_EVERY`]-th call only (rules
    /// ask once per candidate pair, and reading the clock cost a fifth of
    /// a saturation); once past, the answer stays true.
    pub fn out_of_time(&self) -> bool {
        if self.guard.as_ref().is_some_and(|g| g.tripped.is_some()) || self.past_deadline.get() {
            return true;
        }
        let calls = self.clock_calls.get().wrapping_add(1);
        self.clock_calls.set(calls);
        if calls % Self::CLOCK_EVERY != 1 {
            return false;
        }
        let past = self
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d);
        self.past_deadline.set(past);
        past
    }

    /// Calls of [`Self::out_of_time`] per reading of the clock.
    pub const CLOCK_EVERY: u32 = 32;
}

/// Reads a literal attribute child.
fn lit_of(egraph: &EGraph, id: Id) -> Option<Scalar> {
    egraph[id].nodes.iter().find_map(|n| match n.head {
        Head::Lit(Lit(s)) if n.children.is_empty() => Some(s),
        _ => None,
    })
}

/// The integer literal a class holds, if any.
pub fn int_of(egraph: &EGraph, id: Id) -> Option<i64> {
    match lit_of(egraph, id)? {
        Scalar::I64(i) => Some(i),
        _ => None,
    }
}

fn dim_of(egraph: &EGraph, id: Id) -> Option<Dim> {
    egraph[id].nodes.iter().find_map(|n| match &n.head {
        Head::Lit(Lit(Scalar::I64(k))) => Some(Dim::known(*k)),
        Head::Size(s) => Some(Dim::sym(s.as_str())),
        _ => None,
    })
}

fn type_of(egraph: &EGraph, id: Id) -> Option<Type> {
    egraph[id].nodes.iter().find_map(|n| match &n.head {
        Head::Type(d) => {
            let shape = n
                .children
                .iter()
                .map(|c| dim_of(egraph, *c))
                .collect::<Option<Vec<_>>>()?;
            Some(Type::new(*d, shape))
        }
        _ => None,
    })
}

/// The attribute of kind `kind` held by the children `ch` (as many as the
/// op's layout gives it), if they are constants of the right form.
fn attr_of(egraph: &EGraph, kind: AttrKind, ch: &[Id]) -> Option<AttrValue> {
    let one = || match ch {
        [c] => Some(*c),
        _ => None,
    };
    Some(match kind {
        AttrKind::Axis | AttrKind::AxisOrZero | AttrKind::Step | AttrKind::Output => {
            AttrValue::Int(int_of(egraph, one()?)?)
        }
        AttrKind::OptAxis => AttrValue::OptInt(match ch {
            [] => None,
            _ => Some(int_of(egraph, one()?)?),
        }),
        AttrKind::Start | AttrKind::Stop => {
            let c = one()?;
            if egraph[c].nodes.iter().any(|n| n.head == Head::NoneBound) {
                AttrValue::OptInt(None)
            } else {
                AttrValue::OptInt(Some(int_of(egraph, c)?))
            }
        }
        AttrKind::Perm => AttrValue::Ints(
            ch.iter()
                .map(|c| int_of(egraph, *c))
                .collect::<Option<Vec<_>>>()?,
        ),
        AttrKind::Sizes => AttrValue::Sizes(
            ch.iter()
                .map(|c| dim_of(egraph, *c))
                .collect::<Option<Vec<_>>>()?,
        ),
        AttrKind::Type => AttrValue::Type(type_of(egraph, one()?)?),
        AttrKind::DType => {
            AttrValue::DType(egraph[one()?].nodes.iter().find_map(|n| match n.head {
                Head::DType(d) => Some(d),
                _ => None,
            })?)
        }
        AttrKind::Size => AttrValue::Size(dim_of(egraph, one()?)?),
        AttrKind::Flag => match lit_of(egraph, one()?)? {
            Scalar::Bool(b) => AttrValue::Bool(b),
            _ => return None,
        },
        AttrKind::Literals => AttrValue::Literals(
            ch.iter()
                .map(|c| lit_of(egraph, *c))
                .collect::<Option<Vec<_>>>()?,
        ),
    })
}

/// The language op an op node stands for, with its attributes read from
/// its children (laid out as the op table says), and its value children.
/// `None` for `proj` (typed from its scan) and for a node whose attributes
/// are not constants of the right form.
pub fn node_op(egraph: &EGraph, kind: OpKind, ch: &[Id]) -> Option<(Op, Vec<Id>)> {
    if kind == OpKind::Proj {
        return None;
    }
    let spans = kind.spans(Form::Term, ch.len())?;
    let mut attrs = Vec::new();
    let mut vargs = Vec::new();
    for (slot, at) in kind.layout().iter().zip(spans) {
        match slot {
            Slot::Attr(a) => attrs.push(attr_of(egraph, *a, &ch[at])?),
            Slot::Arg | Slot::Args => vargs.extend_from_slice(&ch[at]),
        }
    }
    Some((Op::from_parts(kind, attrs)?, vargs))
}

/// The value of an `i64` scalar class as a size: a constant, a size
/// symbol, or a sum, difference or product of such (as the parser types
/// `(n_steps (sub T 1))`); `None` otherwise. `depth` bounds the nesting
/// and a budget of class visits the whole search: a class such as 0 holds
/// many equal terms (`(mul 0 x)`, `(sub y y)`, ...), and trying each of
/// them at every level was exponential in `depth`.
fn size_value(egraph: &EGraph, c: Id, depth: usize) -> Option<Dim> {
    let mut visits = 64;
    size_value_within(egraph, c, depth, &mut visits)
}

fn size_value_within(egraph: &EGraph, c: Id, depth: usize, visits: &mut usize) -> Option<Dim> {
    if depth == 0 || *visits == 0 {
        return None;
    }
    *visits -= 1;
    // A constant class answers at once, whatever terms it holds.
    if let Some(Scalar::I64(k)) = egraph[c].data.konst {
        return Some(Dim::known(k));
    }
    egraph[c].nodes.iter().find_map(|n| match &n.head {
        Head::Lit(Lit(Scalar::I64(k))) => Some(Dim::known(*k)),
        Head::Size(s) => Some(Dim::sym(s.as_str())),
        Head::Op(OpKind::Binary(b)) if n.children.len() == 2 => {
            let x = size_value_within(egraph, n.children[0], depth - 1, visits)?;
            let y = size_value_within(egraph, n.children[1], depth - 1, visits)?;
            match b {
                crate::lang::BinaryOp::Add => Some(x.add(&y)),
                crate::lang::BinaryOp::Sub => Some(x.sub(&y)),
                crate::lang::BinaryOp::Mul => Some(x.mul(&y)),
                crate::lang::BinaryOp::Div
                | crate::lang::BinaryOp::Pow
                | crate::lang::BinaryOp::Maximum
                | crate::lang::BinaryOp::Minimum
                | crate::lang::BinaryOp::Mod
                | crate::lang::BinaryOp::FloorDiv => None,
            }
            .filter(|d| *d != Dim::Unknown)
        }
        _ => None,
    })
}

/// The size a scan's `n_steps` argument holds, if the scan has one (a
/// literal, a size symbol, or arithmetic on those; [`Dim::Unknown`] when
/// it is computed from data).
fn n_steps_size(egraph: &EGraph, sig: &LoopSig, args: &[Id]) -> Option<Dim> {
    sig.n_steps_arg().map(|k| {
        args.get(k)
            .and_then(|a| size_value(egraph, *a, 8))
            .unwrap_or(Dim::Unknown)
    })
}

/// Whether `node` itself reads a body parameter, as [`ClassData::deps`]
/// counts it for the node alone: an `(arg k)` does; a scan does when its
/// outer arguments do (its body's parameters are its own); any other node
/// when a child class does. A class's `deps` is the intersection over its
/// nodes, so a closed class (reading no parameter) may still hold a node
/// that reads one: `(zeros_like (arg 1))` equal to `(zeros_like x)`.
pub fn reads_a_parameter(egraph: &EGraph, node: &TNode) -> bool {
    let children: &[Id] = match &node.head {
        Head::Arg(..) => return true,
        Head::Scan(sig) => {
            let n = sig.n_body_results().min(node.children.len());
            &node.children[n..]
        }
        _ => &node.children,
    };
    children.iter().any(|c| !egraph[*c].data.deps.is_empty())
}

/// The step count of a scan node with clauses `sig` and outer arguments
/// `args`, by the scan type rule ([`loop_type::step_count`]): its
/// `n_steps`, else the steps the sequences allow ([`Dim::Unknown`] when
/// not known statically, or when the loop does not type-check).
pub fn scan_steps(egraph: &EGraph, sig: &LoopSig, args: &[Id]) -> Dim {
    let seq_lens: Vec<Dim> = sig
        .seq_args()
        .map(|k| {
            args.get(k)
                .and_then(|a| egraph[*a].data.ty())
                .and_then(|t| t.shape.first().cloned())
                .unwrap_or(Dim::Unknown)
        })
        .collect();
    loop_type::step_count(sig, &seq_lens, n_steps_size(egraph, sig, args)).unwrap_or(Dim::Unknown)
}

/// The output types of a scan node with clauses `sig`, body output
/// classes `body` and outer arguments `args`, by the scan type rule the
/// parser applies ([`loop_type::output_types`]).
fn scan_types(
    egraph: &EGraph,
    sig: &LoopSig,
    body: &[Id],
    args: &[Id],
) -> Result<Vec<Type>, String> {
    let values = |ids: &[Id], what: &str| -> Result<Vec<&Type>, String> {
        ids.iter()
            .map(|c| {
                egraph[*c]
                    .data
                    .ty()
                    .ok_or_else(|| format!("scan {what} is not a value"))
            })
            .collect()
    };
    let arg_tys = values(args, "argument")?;
    let body_tys = values(body, "body output")?;
    loop_type::output_types(sig, &arg_tys, n_steps_size(egraph, sig, args), &body_tys)
        .map_err(|e| format!("scan: {e}"))
}

/// What [`infer`] calls `consts`: the value of each argument that is a
/// literal (a weak constant), as the parser passes it.
pub fn literal_args(egraph: &EGraph, args: &[Id]) -> Vec<Option<Scalar>> {
    args.iter()
        .map(|a| match egraph[*a].data.ty() {
            Some(t) if t.weak => egraph[*a].data.konst,
            _ => None,
        })
        .collect()
}

/// The constant of an op that only moves, repeats, picks or joins
/// elements ([`Elements::Rearranged`], [`Elements::Joined`]): uniform
/// arguments rearranged are the same constant.
fn rearranged_konst(op: &Op, egraph: &EGraph, vargs: &[Id]) -> Option<Scalar> {
    let first = || vargs.first().and_then(|a| egraph[*a].data.konst);
    match op.elements() {
        Elements::Rearranged => first(),
        Elements::Joined => {
            let c = first()?;
            let same = vargs
                .iter()
                .all(|a| egraph[*a].data.konst.is_some_and(|k| k == c));
            same.then_some(c)
        }
        Elements::Pointwise | Elements::Filled | Elements::Zero | Elements::Mixed => None,
    }
}

/// The constant of a `tensor` literal whose elements are all one value
/// in its dtype (PyTensor's `x ** 2` is a pow by `(tensor (i32 1 1) 2)`).
fn uniform_literal_konst(op: &Op, out: &Type) -> Option<Scalar> {
    let Op::Tensor(_, vals) = op else {
        return None;
    };
    let first = *vals.first()?;
    if vals.iter().any(|v| *v != first) {
        return None;
    }
    first_scalar(&eval(op, &[], &[], out, &|_| None).ok()?)
}

/// The constant of a `where` whose condition is a uniform constant: the
/// branch it selects, when that branch is a constant of the result's dtype
/// (`(where true (fill (f64) 1.0) x)`, the ones a gradient seeds with, is
/// the constant 1 in `x`'s shape).
fn selected_konst(op: &Op, egraph: &EGraph, vargs: &[Id], out: &Type) -> Option<Scalar> {
    if !matches!(op, Op::Where) {
        return None;
    }
    let pick = match egraph[*vargs.first()?].data.konst? {
        Scalar::Bool(true) => vargs.get(1)?,
        Scalar::Bool(false) => vargs.get(2)?,
        _ => return None,
    };
    let branch = &egraph[*pick].data;
    (branch.ty()?.dtype == out.dtype).then_some(branch.konst?)
}

/// The constant of an op whose every element is zero ([`Elements::Zero`]),
/// in the result's dtype.
fn zero_konst(op: &Op, out: &Type) -> Option<Scalar> {
    match op.elements() {
        Elements::Zero => Some(match out.dtype {
            crate::lang::DType::F64 | crate::lang::DType::F32 => Scalar::F64(0.0),
            crate::lang::DType::I64 | crate::lang::DType::I32 => Scalar::I64(0),
            crate::lang::DType::Bool => Scalar::Bool(false),
            // keys are never constants
            crate::lang::DType::Key => return None,
        }),
        Elements::Pointwise
        | Elements::Filled
        | Elements::Rearranged
        | Elements::Joined
        | Elements::Mixed => None,
    }
}

/// Whether the op's constant is folded by evaluating it on its arguments'
/// constants (pointwise ops and fills: a uniform result).
fn folds(op: &Op) -> bool {
    match op.elements() {
        Elements::Pointwise | Elements::Filled => true,
        Elements::Rearranged | Elements::Joined | Elements::Zero | Elements::Mixed => false,
    }
}

fn fold(op: &Op, consts: &[Scalar], arg_tys: &[&Type], out: &Type) -> Option<Scalar> {
    // Integer arithmetic whose exact result does not fit in i64 is not
    // folded: the folded constant would be a wrapped number.
    if out.dtype == crate::lang::DType::I64 {
        let ints: Option<Vec<i64>> = consts
            .iter()
            .map(|c| match c {
                Scalar::I64(i) => Some(*i),
                Scalar::Bool(b) => Some(i64::from(*b)),
                Scalar::F64(_) => None,
            })
            .collect();
        if ints.is_some_and(|xs| ExactInt::of(op, &xs) == ExactInt::Overflows) {
            return None;
        }
    }
    let vals: Vec<Value> = consts.iter().map(|s| Value::from_scalar(*s)).collect();
    let refs: Vec<&Value> = vals.iter().collect();
    // Evaluate on 0-D stand-ins of the right dtypes.
    let scalar_tys: Vec<Type> = arg_tys
        .iter()
        .map(|t| Type {
            dtype: t.dtype,
            shape: vec![],
            weak: t.weak,
            list: 0,
        })
        .collect();
    let st: Vec<&Type> = scalar_tys.iter().collect();
    let out0 = Type {
        dtype: out.dtype,
        shape: vec![],
        weak: out.weak,
        list: 0,
    };
    let op0 = match op {
        Op::Fill(t) | Op::Zeros(t) | Op::Ones(t) => {
            let t0 = Type::new(t.dtype, vec![]);
            match op {
                Op::Fill(_) => Op::Fill(t0),
                Op::Zeros(_) => Op::Zeros(t0),
                _ => Op::Ones(t0),
            }
        }
        other => other.clone(),
    };
    let cast: Vec<Value> = refs.iter().zip(&st).map(|(v, t)| v.cast(t.dtype)).collect();
    let cref: Vec<&Value> = cast.iter().collect();
    first_scalar(&eval(&op0, &cref, &st, &out0, &|_| None).ok()?)
}

/// A value's first element as a class constant: floats as `F64`, integers
/// as `I64` (an `i32`'s wrapped bits, as the kernel computes them).
fn first_scalar(v: &Value) -> Option<Scalar> {
    Some(match v {
        Value::F64(a) => Scalar::F64(*a.iter().next()?),
        Value::F32(a) => Scalar::F64(*a.iter().next()? as f64),
        Value::I64(a) => Scalar::I64(*a.iter().next()?),
        Value::I32(a) => Scalar::I64(i64::from(*a.iter().next()?)),
        Value::Bool(a) => Scalar::Bool(*a.iter().next()?),
    })
}

impl Analysis<TNode> for TensorAnalysis {
    type Data = ClassData;

    fn make(egraph: &mut EGraph, enode: &TNode, _id: Id) -> ClassData {
        let touched = egraph.analysis.iteration;
        let deps = |egraph: &EGraph, ch: &[Id]| -> BTreeSet<usize> {
            ch.iter()
                .flat_map(|c| egraph[*c].data.deps.iter().copied())
                .collect()
        };
        let value = |kind: Kind, konst: Option<Scalar>, deps| {
            let range = match (&kind, konst) {
                (_, Some(c)) => Range::of_scalar(c),
                (Kind::Value(t), None) => match t.dtype {
                    crate::lang::DType::Bool => Range::BOOL,
                    crate::lang::DType::I64 => Range::I64,
                    crate::lang::DType::I32 => Range::I32,
                    _ => Range::FULL,
                },
                _ => Range::FULL,
            };
            ClassData {
                touched,
                kind,
                konst,
                range,
                deps,
            }
        };
        match &enode.head {
            Head::Lit(Lit(s)) => {
                let t = Type {
                    dtype: s.dtype(),
                    shape: vec![],
                    weak: true,
                    list: 0,
                };
                value(Kind::Value(t), Some(*s), BTreeSet::new())
            }
            Head::Size(_) => {
                let mut d = value(
                    Kind::Value(Type::scalar(crate::lang::DType::I64)),
                    None,
                    BTreeSet::new(),
                );
                d.range = Range::new(0.0, Range::I64.hi);
                d
            }
            Head::Input(_, t) => value(Kind::Value(t.clone()), None, BTreeSet::new()),
            Head::Arg(k, t) => value(Kind::Value(t.clone()), None, [*k].into()),
            Head::NoneBound | Head::DType(_) | Head::Type(_) | Head::Outputs => {
                value(Kind::Attr, None, deps(egraph, &enode.children))
            }
            Head::Scan(sig) => {
                let (body, args) = enode
                    .children
                    .split_at(sig.n_body_results().min(enode.children.len()));
                match scan_types(egraph, sig, body, args) {
                    Ok(tys) => value(Kind::Multi(tys), None, deps(egraph, args)),
                    Err(why) => value(Kind::Invalid(why), None, BTreeSet::new()),
                }
            }
            Head::Op(OpKind::Proj) => {
                let k = enode.children.first().and_then(|c| int_of(egraph, *c));
                let src = enode.children.get(1).map(|s| &egraph[*s].data);
                match (k, src) {
                    (
                        Some(k),
                        Some(ClassData {
                            kind: Kind::Multi(tys),
                            deps: d,
                            ..
                        }),
                    ) => match tys.get(k as usize) {
                        Some(t) => value(Kind::Value(t.clone()), None, d.clone()),
                        None => value(Kind::Invalid("no such output".into()), None, d.clone()),
                    },
                    _ => value(
                        Kind::Invalid("proj of a non-scan".into()),
                        None,
                        BTreeSet::new(),
                    ),
                }
            }
            Head::Op(name) => {
                let d = deps(egraph, &enode.children);
                let Some((op, vargs)) = node_op(egraph, *name, &enode.children) else {
                    return value(
                        Kind::Invalid(format!("{}: attributes are not constants", name.name())),
                        None,
                        d,
                    );
                };
                let tys: Option<Vec<&Type>> = vargs.iter().map(|a| egraph[*a].data.ty()).collect();
                let Some(tys) = tys else {
                    return value(
                        Kind::Invalid(format!("{}: an argument is not a value", name.name())),
                        None,
                        d,
                    );
                };
                match infer(&op, &tys, &literal_args(egraph, &vargs)) {
                    Ok(t) => {
                        let all: Option<Vec<Scalar>> =
                            vargs.iter().map(|a| egraph[*a].data.konst).collect();
                        let konst = match (folds(&op), all) {
                            (true, Some(cs)) => fold(&op, &cs, &tys, &t),
                            _ => rearranged_konst(&op, egraph, &vargs)
                                .or_else(|| zero_konst(&op, &t))
                                .or_else(|| selected_konst(&op, egraph, &vargs, &t))
                                .or_else(|| uniform_literal_konst(&op, &t)),
                        };
                        let range = op_range(egraph, &op, &vargs, &t);
                        let mut data = value(Kind::Value(t), konst, d);
                        data.range = data.range.intersect(&range);
                        data
                    }
                    Err(msg) => value(Kind::Invalid(format!("{}: {msg}", name.name())), None, d),
                }
            }
        }
    }

    fn merge(&mut self, a: &mut ClassData, b: ClassData) -> DidMerge {
        // A union, or a child's refined data, changes what the class
        // holds: stamp it (the stamp alone is not a change of the data, so
        // it is not propagated to parents; `stamps` does that).
        a.touched = self.iteration;
        let mut changed_a = false;
        if a.kind != b.kind {
            match (&a.kind, &b.kind) {
                (Kind::Invalid(_), _) => {
                    a.kind = b.kind.clone();
                    changed_a = true;
                }
                (_, Kind::Invalid(_)) => {}
                _ => self.type_conflicts += 1,
            }
        }
        if !crate::egraph::union::konsts_agree(a.konst, b.konst) {
            self.konst_conflicts += 1;
        }
        if a.konst.is_none() && b.konst.is_some() {
            a.konst = b.konst;
            changed_a = true;
        }
        let range = a.range.refine(&b.range);
        if range != a.range {
            a.range = range;
            changed_a = true;
        }
        let inter: BTreeSet<usize> = a.deps.intersection(&b.deps).copied().collect();
        if inter.len() != a.deps.len() {
            a.deps = inter;
            changed_a = true;
        }
        let changed_b = a.deps.len() != b.deps.len() || a.kind != b.kind || a.range != b.range;
        DidMerge(changed_a, changed_b)
    }

    fn modify(egraph: &mut EGraph, id: Id) {
        // A class that holds a uniform constant gets its literal form, so
        // extraction can pick it: a weak literal for weak scalars, else
        // `(fill TYPE v)`.
        let data = egraph[id].data.clone();
        let (Some(c), Some(t)) = (data.konst, data.ty().cloned()) else {
            return;
        };
        // A NaN constant keeps its computed form: kernels may give NaNs of
        // other bit patterns than the folded one, and a class with two
        // literal NaNs never stops re-folding (a fuzz finding: `(tanh nan)`
        // hung the rebuild).
        if matches!(c, Scalar::F64(x) if x.is_nan()) {
            return;
        }
        let has_leaf = egraph[id]
            .nodes
            .iter()
            .any(|n| matches!(n.head, Head::Lit(_)) || matches!(n.head, Head::Op(OpKind::Fill)));
        if has_leaf
            || t.shape
                .iter()
                .any(|d| d.as_known().is_none() && d.as_sym().is_none())
        {
            return;
        }
        let new = if t.weak && t.shape.is_empty() {
            egraph.add(TNode::lit(c))
        } else {
            let mut dims = Vec::new();
            for d in &t.shape {
                dims.push(if let Some(k) = d.as_known() {
                    egraph.add(TNode::lit(Scalar::I64(k)))
                } else {
                    egraph.add(TNode::leaf(Head::Size(egg::Symbol::from(
                        d.as_sym().unwrap_or("?"),
                    ))))
                });
            }
            let ty = egraph.add(TNode {
                head: Head::Type(t.dtype),
                children: dims,
            });
            let v = egraph.add(TNode::lit(c));
            egraph.add(TNode {
                head: Head::Op(OpKind::Fill),
                children: vec![ty, v],
            })
        };
        if egraph[new].data.kind == egraph[id].data.kind {
            egraph.union(id, new);
        }
    }
}
