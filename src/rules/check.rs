//! Soundness of rules by evaluation (`eqscan rules check`, SPEC §3).
//!
//! Owns: [`check_rule`] and [`check_rules`]: for a rule, pick types for its
//! pattern variables (scalars, vectors and matrices of every dtype, and
//! axes for variables in axis positions), keep the combinations whose
//! conditions on types hold and whose left side type-checks, and then
//! 1. statically: the right side must type-check to the very same type
//!    (dtype, shape, weakness) — else the rule "changes a type or shape";
//! 2. by running: both sides, built as programs with one input per
//!    variable (through the typed builder), run by the executor on random values and on edge values
//!    (0, ±1, negative, large), must agree within a tolerance — else the
//!    rule is "unsound";
//! 3. at extreme magnitudes (the floating-point contract of
//!    `rules/README.md`): both sides again, on ±1e308, ±710, ±1e-308,
//!    subnormals, every magnitude mixed with either sign in one tensor, and
//!    the edges of `i64` (its limits, ±2^53); the rule is "unsafe" when a
//!    finite element of the left side is infinite or NaN on the right, an
//!    integer result changes, or — when every value is tiny — the right
//!    side loses what the left computes: it is nearer zero than the left
//!    (or of the other sign) by more than 64 ulps of the largest value the
//!    left side itself computes (its inputs, subterms and result). A left
//!    side that is inf or NaN constrains nothing.
//!
//! Variables that a value predicate constrains (`is-zero`, `positive`, ...)
//! are given uniform constants that satisfy it; variables under a range
//! predicate (`exp-safe`, `moderate`) values within its bound, at its
//! edges in the extreme battery. In the ordinary trials overflow is out of
//! scope: for rules that use `exp`, "large" is 20 instead of 1e6.
//! The tolerance is NumPy-like (rtol 1e-6, atol 1e-9; a NaN or infinite
//! left side may become finite, as the contract allows) plus
//! a rounding allowance of 64 ulps of the largest value or product of
//! values involved (inputs, subterms, results), in the lowest
//! float precision involved, as reassociation legitimately rounds
//! differently; integers and booleans compare exactly.
//!
//! Deterministic: a fixed-seed xorshift drives every choice.
//! Must not: change rules or the e-graph.

use super::conditions::{Cond, ConstNeed};
use super::file::Rule;
use crate::egraph::term::{expr_to_program, Head, OpKind, TNode, TermError};
use crate::exec::run::{run_program, Dims};
use crate::exec::Value;
use crate::lang::{DType, Dim, Program, Scalar, Type};
use egg::{ENodeOrVar, Id, Language, PatternAst, RecExpr, Symbol, Var};
use ndarray::{ArrayD, IxDyn};
use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

/// What is wrong with a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The two sides have different types or shapes (or the right side
    /// does not type-check) for a binding where the left side does.
    ChangesType,
    /// The two sides compute different values.
    Unsound,
    /// At an extreme magnitude the right side breaks the floating-point
    /// contract: the left side is finite and the right side is infinite
    /// or NaN, an integer result changes, or (all values tiny) the right
    /// side loses what the left side computes accurately.
    Unsafe,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Finding::ChangesType => "changes a type or shape",
            Finding::Unsound => "unsound",
            Finding::Unsafe => "unsafe",
        })
    }
}

/// One variable of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The pattern variable, `?x`.
    pub var: String,
    /// Its type (or `axis` for an axis variable).
    pub ty: String,
    /// Its value, abbreviated (empty when only types matter).
    pub value: String,
}

/// Why a rule fails the check: the bindings and both sides' results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    /// What kind of failure.
    pub finding: Finding,
    /// The variables' types and values.
    pub bindings: Vec<Binding>,
    /// The left side's result (type and abbreviated values).
    pub lhs: String,
    /// The right side's result, or why it cannot be built or run.
    pub rhs: String,
}

impl fmt::Display for Counterexample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: with ", self.finding)?;
        for (i, b) in self.bindings.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{} = {}", b.var, b.ty)?;
            if !b.value.is_empty() {
                write!(f, " {}", b.value)?;
            }
        }
        write!(f, "; left gives {}, right gives {}", self.lhs, self.rhs)
    }
}

/// A tiny deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15 | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// What a variable stands for.
#[derive(Clone, Debug, PartialEq)]
enum Role {
    /// A tensor value (an input of the test programs).
    Tensor,
    /// An integer attribute (an axis), written as a literal.
    Axis,
}

/// The choice for one variable.
#[derive(Clone, Debug, PartialEq)]
enum Choice {
    Tensor(Type),
    Axis(i64),
}

const DTYPES: [DType; 4] = [DType::F64, DType::F32, DType::I64, DType::Bool];
/// The dtypes tried in a group of their own, after every other trial (so
/// the trials over [`DTYPES`] and their seeded counterexamples are the
/// same with or without them): combinations in which some tensor
/// variable has one of these, mixed with the others.
const EXTRA_DTYPES: [DType; 1] = [DType::I32];
/// At most this many combinations of [`EXTRA_DTYPES`] are tried per rule
/// when there are more.
const MAX_EXTRA_COMBOS: usize = 300;
const SHAPES: [&[i64]; 5] = [&[], &[3], &[2, 3], &[3, 3], &[3, 2]];
/// Shapes with a length-1 axis (where `squeeze` applies and `sum_to` keeps
/// an axis), tried after every combination of [`SHAPES`].
const UNIT_SHAPES: [&[i64]; 2] = [&[1, 3], &[3, 1]];
const AXES: [i64; 3] = [0, 1, -1];
/// At most this many type combinations are tried per rule.
const MAX_COMBOS: usize = 1500;

fn tensor_types() -> Vec<Type> {
    types_of(&SHAPES)
}

fn types_of(shapes: &[&[i64]]) -> Vec<Type> {
    types_of_dtypes(shapes, &DTYPES)
}

fn types_of_dtypes(shapes: &[&[i64]], dtypes: &[DType]) -> Vec<Type> {
    let mut out = Vec::new();
    for s in shapes {
        for &d in dtypes {
            out.push(Type::new(d, s.iter().map(|k| Dim::known(*k)).collect()));
        }
    }
    out
}

/// The role of every variable of a pattern, by the position it occupies.
fn roles(ast: &PatternAst<TNode>) -> BTreeMap<Var, Role> {
    let nodes = ast.as_ref();
    let mut out = BTreeMap::new();
    let attr_child = |id: &Id, out: &mut BTreeMap<Var, Role>| {
        if let ENodeOrVar::Var(v) = &nodes[usize::from(*id)] {
            out.insert(*v, Role::Axis);
        }
    };
    for n in nodes {
        match n {
            ENodeOrVar::Var(v) => {
                out.entry(*v).or_insert(Role::Tensor);
            }
            ENodeOrVar::ENode(e) => {
                let Head::Op(op) = &e.head else { continue };
                let attrs: &[Id] = match op {
                    OpKind::Reduce(_)
                    | OpKind::Cumulative(_)
                    | OpKind::Normalize(_)
                    | OpKind::ExpandDims
                    | OpKind::Transpose
                    | OpKind::Flip
                    | OpKind::Squeeze => e.children.get(1..).unwrap_or(&[]),
                    OpKind::Concat => e.children.get(..1).unwrap_or(&[]),
                    _ => &[],
                };
                for c in attrs {
                    attr_child(c, &mut out);
                }
            }
        }
    }
    out
}

fn uses_exp(ast: &PatternAst<TNode>) -> bool {
    ast.as_ref().iter().any(|n| match n {
        ENodeOrVar::ENode(e) => e.head == Head::Op(OpKind::Unary(crate::lang::UnaryOp::Exp)),
        _ => false,
    })
}

/// Everything about one rule the trials share.
struct Setup<'a> {
    rule: &'a Rule,
    vars: Vec<Var>,
    roles: BTreeMap<Var, Role>,
    needs: BTreeMap<Var, ConstNeed>,
    /// The range predicates on variables (see [`Setup::bound`]).
    range_conds: Vec<Cond>,
    large: f64,
}

/// The edges of `i32`: its limits, ±2^24 (the end of f32's exact
/// integers) and one past, the square root of its limit, 2^30.
const EDGE_I32: [i64; 9] = [
    i32::MAX as i64,
    i32::MIN as i64,
    1 << 24,
    -(1 << 24),
    (1 << 24) + 1,
    46_341,
    -46_341,
    1 << 30,
    -1,
];

impl Setup<'_> {
    /// A side as a program whose first output is the side and whose other
    /// outputs are its op subterms (their magnitudes set the rounding
    /// allowance): the pattern as a term, each tensor variable the input
    /// `vK` and each axis variable its literal, built back through the
    /// typed builder (so a side that does not type-check is an error).
    fn program(&self, side: &PatternAst<TNode>, combo: &[Choice]) -> Result<Program, TermError> {
        let input = |k: usize| format!("v{k}");
        let inputs: Vec<(String, Type)> = combo
            .iter()
            .enumerate()
            .filter_map(|(k, c)| match c {
                Choice::Tensor(t) => Some((input(k), t.clone())),
                Choice::Axis(_) => None,
            })
            .collect();
        let nodes = side.as_ref();
        let mut expr: RecExpr<TNode> = RecExpr::default();
        let mut ids: Vec<Id> = Vec::with_capacity(nodes.len() + 1);
        for n in nodes {
            let node = match n {
                ENodeOrVar::Var(v) => match self.vars.iter().position(|w| w == v) {
                    Some(k) => match &combo[k] {
                        Choice::Tensor(t) => {
                            TNode::leaf(Head::Input(Symbol::from(input(k)), t.clone()))
                        }
                        Choice::Axis(a) => TNode::lit(Scalar::I64(*a)),
                    },
                    None => return Err(TermError::UnknownInput(v.to_string())),
                },
                ENodeOrVar::ENode(e) => e.clone().map_children(|c| ids[usize::from(c)]),
            };
            ids.push(expr.add(node));
        }
        let mut outs: Vec<Id> = ids.last().copied().into_iter().collect();
        for (i, n) in nodes.iter().enumerate().take(nodes.len().saturating_sub(1)) {
            if let ENodeOrVar::ENode(TNode {
                head: Head::Op(_), ..
            }) = n
            {
                outs.push(ids[i]);
            }
        }
        expr.add(TNode {
            head: Head::Outputs,
            children: outs,
        });
        expr_to_program("check", &inputs, &expr)
    }

    fn type_conds_hold(&self, combo: &[Choice]) -> bool {
        let ty = |v: Var| -> Option<Type> {
            let k = self.vars.iter().position(|w| *w == v)?;
            match &combo[k] {
                Choice::Tensor(t) => Some(t.clone()),
                Choice::Axis(_) => Some(Type {
                    dtype: DType::I64,
                    shape: vec![],
                    weak: true,
                    list: 0,
                }),
            }
        };
        self.rule
            .conds
            .iter()
            .all(|c| c.check_types(&ty).unwrap_or(true))
    }

    fn bindings(&self, combo: &[Choice], values: Option<&[Value]>) -> Vec<Binding> {
        let mut out = Vec::new();
        let mut input = 0;
        for (v, c) in self.vars.iter().zip(combo) {
            match c {
                Choice::Tensor(t) => {
                    let value = values
                        .and_then(|vs| vs.get(input))
                        .map(show_values)
                        .unwrap_or_default();
                    input += 1;
                    out.push(Binding {
                        var: v.to_string(),
                        ty: t.to_string(),
                        value,
                    });
                }
                Choice::Axis(a) => out.push(Binding {
                    var: v.to_string(),
                    ty: "axis".to_string(),
                    value: a.to_string(),
                }),
            }
        }
        out
    }

    /// A number for a free element: random or an edge value.
    fn number(&self, rng: &mut Rng, edge: bool) -> f64 {
        if edge {
            let l = self.large;
            [0.0, 1.0, -1.0, -2.5, l, -l, 0.5][rng.below(7)]
        } else {
            (rng.unit() * 4.0 - 2.0) * if rng.below(4) == 0 { 10.0 } else { 1.0 }
        }
    }

    /// A uniform constant of dtype `dtype` that satisfies `need`.
    fn constant(&self, rng: &mut Rng, need: ConstNeed, dtype: DType, mode: usize) -> f64 {
        for _ in 0..100 {
            let x = match need {
                ConstNeed::Zero => 0.0,
                ConstNeed::One => 1.0,
                ConstNeed::Two => 2.0,
                _ => self.number(rng, mode % 2 == 1),
            };
            let x = if need == ConstNeed::Positive {
                x.abs()
            } else {
                x
            };
            let x = match dtype {
                DType::F64 => x,
                DType::F32 => x as f32 as f64,
                DType::I64 | DType::Key => x.round(),
                DType::I32 => x.round().clamp(i32::MIN as f64, i32::MAX as f64),
                DType::Bool => (x.round() != 0.0) as u8 as f64,
            };
            if Cond::const_ok(need, Scalar::F64(x), dtype) {
                return x;
            }
        }
        1.0
    }

    fn values(&self, combo: &[Choice], rng: &mut Rng, mode: usize) -> Vec<Value> {
        let mut out = Vec::new();
        for (v, c) in self.vars.iter().zip(combo) {
            let Choice::Tensor(t) = c else { continue };
            let shape = concrete_shape(t);
            let n: usize = shape.iter().product();
            let konst = self
                .needs
                .get(v)
                .map(|need| self.constant(rng, *need, t.dtype, mode));
            let bound = self.bound(*v, t.dtype);
            let xs: Vec<f64> = (0..n)
                .map(|_| match konst {
                    Some(k) => k,
                    // mode 0: random; 1: edge values; 2: mixed.
                    None => {
                        let edge = mode == 1 || (mode == 2 && rng.below(2) == 0);
                        self.number(rng, edge)
                    }
                })
                .map(|x| x.clamp(-bound, bound))
                .collect();
            out.push(make_value(t.dtype, &shape, xs));
        }
        out
    }
}

/// The sizes a checked variable of type `t` gets (the checker's types
/// are static; an unknown size counts as 1).
fn concrete_shape(t: &Type) -> Vec<usize> {
    t.shape
        .iter()
        .map(|d| d.as_known().unwrap_or(1).max(0) as usize)
        .collect()
}

fn make_value(dtype: DType, shape: &[usize], xs: Vec<f64>) -> Value {
    let arr = |v: Vec<f64>| {
        ArrayD::from_shape_vec(IxDyn(shape), v).unwrap_or_else(|_| ArrayD::zeros(IxDyn(shape)))
    };
    match dtype {
        DType::F64 => Value::F64(arr(xs)),
        DType::F32 => Value::F32(arr(xs).mapv(|x| x as f32)),
        DType::I64 | DType::Key => Value::I64(arr(xs).mapv(|x| x.round() as i64)),
        // `as` saturates: a large magnitude becomes an edge of i32
        DType::I32 => Value::I32(arr(xs).mapv(|x| x.round() as i32)),
        DType::Bool => Value::Bool(arr(xs).mapv(|x| x.round() != 0.0)),
    }
}

fn show_values(v: &Value) -> String {
    let n = v.as_f64_array().len();
    let first: Vec<String> = match v {
        Value::I64(a) => a.iter().take(6).map(|x| x.to_string()).collect(),
        Value::I32(a) => a.iter().take(6).map(|x| x.to_string()).collect(),
        Value::Bool(a) => a.iter().take(6).map(|x| x.to_string()).collect(),
        _ => v
            .as_f64_array()
            .iter()
            .take(6)
            .map(|x| format!("{x:?}"))
            .collect(),
    };
    let more = if n > 6 { ", ..." } else { "" };
    if v.shape().is_empty() {
        first.join("")
    } else {
        format!("[{}{more}]", first.join(", "))
    }
}

fn show_result(v: &Value) -> String {
    let shape: Vec<Dim> = v.shape().iter().map(|k| Dim::known(*k as i64)).collect();
    format!("{} {}", Type::new(v.dtype(), shape), show_values(v))
}

/// The combination trial `t` of a phase visits among `len`: each in a
/// scrambled order first (7919 is prime, so `t · 7919 mod len` visits
/// them all when `len` is not a multiple of it), then random ones.
fn scrambled(t: usize, len: usize, rng: &mut Rng) -> usize {
    if t < len {
        (t * 7919) % len
    } else {
        rng.below(len)
    }
}

fn out_type(p: &Program) -> Option<Type> {
    let o = p.graph.outputs.first()?;
    Some(p.graph.node(*o).ty().clone())
}

fn eps(d: DType) -> f64 {
    match d {
        DType::F32 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}

/// Whether the right side's result `b` agrees with the left side's `a`
/// (see the module docs for the tolerance). A rewrite may refine a
/// result that is already not finite (the floating-point contract): where
/// the left side is NaN anything goes, and where it is ±inf the right
/// side may give that infinity or a finite number (`log(softmax(x))`,
/// -inf where softmax underflows, becomes the finite `log_softmax`), but
/// not NaN or the other infinity.
fn close(a: &Value, b: &Value, inputs: &[Value], inter: &[Value]) -> bool {
    if a.dtype() != b.dtype() || a.shape() != b.shape() {
        return false;
    }
    let (x, y) = (a.as_f64_array(), b.as_f64_array());
    if !a.dtype().is_float() {
        return x.iter().zip(y.iter()).all(|(p, q)| p == q);
    }
    let low = if inputs.iter().any(|v| v.dtype() == DType::F32) {
        DType::F32
    } else {
        a.dtype()
    };
    let big = inputs
        .iter()
        .chain(inter)
        .filter(|v| v.dtype().is_float() || v.dtype().is_int())
        .flat_map(|v| v.as_f64_array().into_iter())
        .chain(x.iter().copied())
        .chain(y.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    // A product inside an op (the terms of a dot's sum) can reach big²
    // before the sum cancels it: reassociating such sums rounds at that
    // magnitude, not at the result's.
    let big = big.max(big * big);
    let atol = 1e-9 + 64.0 * eps(low) * big;
    let rtol = 1e-6f64.max(64.0 * eps(low));
    x.iter().zip(y.iter()).all(|(p, q)| {
        if p.is_nan() {
            return true;
        }
        if p.is_infinite() {
            return p == q || q.is_finite();
        }
        if !q.is_finite() {
            return false;
        }
        (p - q).abs() <= atol + rtol * p.abs().max(q.abs())
    })
}

/// The type combinations to try: every one when there are few, else a
/// deterministic sample.
fn combos(setup: &Setup<'_>, rng: &mut Rng) -> Vec<Vec<Choice>> {
    combos_over(setup, rng, &tensor_types())
}

/// The combinations in which some tensor variable has a length-1 axis
/// ([`UNIT_SHAPES`]): all of them when there are at most
/// [`MAX_COMBOS`], else each such type for every tensor variable at once.
fn unit_axis_combos(setup: &Setup<'_>) -> Vec<Vec<Choice>> {
    let unit = types_of(&UNIT_SHAPES);
    let mut all = tensor_types();
    all.extend(unit.iter().cloned());
    let has_unit = |c: &[Choice]| {
        c.iter()
            .any(|x| matches!(x, Choice::Tensor(t) if unit.contains(t)))
    };
    match every_combo(&var_options(setup, &all)) {
        Some(every) => every.into_iter().filter(|c| has_unit(c)).collect(),
        None => same_for_all(&var_options(setup, &unit), unit.len()),
    }
}

/// The combinations in which some tensor variable has one of
/// [`EXTRA_DTYPES`] (of [`SHAPES`]): all of them when there are at most
/// [`MAX_COMBOS`], else each such type for every tensor variable at once,
/// then random mixes (from their own generator, seeded by `seed`).
fn extra_dtype_combos(setup: &Setup<'_>, seed: u64) -> Vec<Vec<Choice>> {
    let extra = types_of_dtypes(&SHAPES, &EXTRA_DTYPES);
    let mut all = tensor_types();
    all.extend(extra.iter().cloned());
    let has_extra = |c: &[Choice]| {
        c.iter()
            .any(|x| matches!(x, Choice::Tensor(t) if extra.contains(t)))
    };
    let opts = var_options(setup, &all);
    match every_combo(&opts) {
        Some(every) => every.into_iter().filter(|c| has_extra(c)).collect(),
        None => {
            let mut out = same_for_all(&var_options(setup, &extra), extra.len());
            let mut rng = Rng::new(seed ^ 0x1_3232);
            let mut tries = 0;
            while out.len() < MAX_EXTRA_COMBOS && tries < 100 * MAX_EXTRA_COMBOS {
                tries += 1;
                let c = random_combo(&opts, &mut rng);
                if has_extra(&c) {
                    out.push(c);
                }
            }
            out
        }
    }
}

/// What each pattern variable may be: one of `tensors` for a tensor
/// variable, one of [`AXES`] for an axis variable.
fn var_options(setup: &Setup<'_>, tensors: &[Type]) -> Vec<Vec<Choice>> {
    setup
        .vars
        .iter()
        .map(|v| match setup.roles.get(v) {
            Some(Role::Axis) => AXES.iter().map(|a| Choice::Axis(*a)).collect(),
            _ => tensors.iter().cloned().map(Choice::Tensor).collect(),
        })
        .collect()
}

/// Every combination of the options, the first variable's varying
/// fastest; `None` when there are more than [`MAX_COMBOS`].
fn every_combo(options: &[Vec<Choice>]) -> Option<Vec<Vec<Choice>>> {
    let total = options
        .iter()
        .try_fold(1usize, |acc, o| acc.checked_mul(o.len()))?;
    (total <= MAX_COMBOS).then(|| {
        (0..total)
            .map(|mut k| {
                options
                    .iter()
                    .map(|o| {
                        let c = o[k % o.len()].clone();
                        k /= o.len();
                        c
                    })
                    .collect()
            })
            .collect()
    })
}

/// `n` combinations, the k-th giving every variable its k-th option.
fn same_for_all(options: &[Vec<Choice>], n: usize) -> Vec<Vec<Choice>> {
    (0..n)
        .map(|k| options.iter().map(|o| o[k % o.len()].clone()).collect())
        .collect()
}

/// A combination drawn at random.
fn random_combo(options: &[Vec<Choice>], rng: &mut Rng) -> Vec<Choice> {
    options
        .iter()
        .map(|o| o[rng.below(o.len())].clone())
        .collect()
}

/// Every combination of `tensors` for the tensor variables (and of
/// [`AXES`] for axis variables) when there are at most [`MAX_COMBOS`],
/// else each type for every variable at once, then random ones.
fn combos_over(setup: &Setup<'_>, rng: &mut Rng, tensors: &[Type]) -> Vec<Vec<Choice>> {
    let options = var_options(setup, tensors);
    every_combo(&options).unwrap_or_else(|| {
        // Every variable of one and the same type first, then random.
        let mut out = same_for_all(&options, tensors.len());
        while out.len() < MAX_COMBOS {
            out.push(random_combo(&options, rng));
        }
        out
    })
}

/// Checks one rule: `trials` evaluations on random and edge values, after
/// a static type comparison over every tried type combination, then
/// `trials` more at extreme magnitudes (see the module docs). `seed` fixes
/// every choice.
pub fn check_rule(rule: &Rule, trials: usize, seed: u64) -> Result<(), Counterexample> {
    match check_rule_until(rule, trials, seed, None) {
        Outcome::Fails(c) => Err(c),
        Outcome::Passes | Outcome::OutOfTime => Ok(()),
    }
}

/// The verdict on one rule.
enum Outcome {
    Passes,
    Fails(Counterexample),
    /// The deadline passed before the check finished.
    OutOfTime,
}

/// [`check_rule`], stopping once `deadline` has passed.
fn check_rule_until(rule: &Rule, trials: usize, seed: u64, deadline: Option<Instant>) -> Outcome {
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    let mut rng = Rng::new(seed);
    let vars = rule.lhs.vars();
    let mut needs = BTreeMap::new();
    for c in &rule.conds {
        if let Some((v, n)) = c.const_need() {
            needs.insert(v, n);
        }
    }
    let range_conds = rule
        .conds
        .iter()
        .filter(|c| c.range_bound(DType::F64).is_some())
        .cloned()
        .collect();
    let setup = Setup {
        rule,
        roles: roles(&rule.lhs.ast),
        vars,
        needs,
        range_conds,
        large: if uses_exp(&rule.lhs.ast) || uses_exp(&rule.rhs.ast) {
            20.0
        } else {
            1e6
        },
    };
    // Static phase: keep the combinations where the left side type-checks;
    // the right side must have the same type.
    // The combinations with a length-1 axis come after the others and
    // are kept apart, so the trials over the others (and their seeded
    // counterexamples) are those of the plain shapes.
    let mut valid: Vec<(Vec<Choice>, Program, Program)> = Vec::new();
    let mut valid_unit: Vec<(Vec<Choice>, Program, Program)> = Vec::new();
    let mut valid_extra: Vec<(Vec<Choice>, Program, Program)> = Vec::new();
    let base = combos(&setup, &mut rng);
    let n_base = base.len();
    let unit = unit_axis_combos(&setup);
    let n_unit = unit.len();
    let extra = extra_dtype_combos(&setup, seed);
    for (i, combo) in base.into_iter().chain(unit).chain(extra).enumerate() {
        if late() {
            return Outcome::OutOfTime;
        }
        if !setup.type_conds_hold(&combo) {
            continue;
        }
        let Ok(lp) = setup.program(&rule.lhs.ast, &combo) else {
            continue;
        };
        let lt = out_type(&lp);
        let rp = setup.program(&rule.rhs.ast, &combo);
        let show = |t: &Option<Type>| t.as_ref().map(|t| t.to_string()).unwrap_or_default();
        match rp {
            Ok(rp) if out_type(&rp) == lt => {
                if i < n_base {
                    valid.push((combo, lp, rp))
                } else if i < n_base + n_unit {
                    valid_unit.push((combo, lp, rp))
                } else {
                    valid_extra.push((combo, lp, rp))
                }
            }
            Ok(rp) => {
                return Outcome::Fails(Counterexample {
                    finding: Finding::ChangesType,
                    bindings: setup.bindings(&combo, None),
                    lhs: show(&lt),
                    rhs: show(&out_type(&rp)),
                })
            }
            Err(e) => {
                return Outcome::Fails(Counterexample {
                    finding: Finding::ChangesType,
                    bindings: setup.bindings(&combo, None),
                    lhs: show(&lt),
                    rhs: format!("an ill-typed program ({e})"),
                })
            }
        }
    }
    if valid.is_empty() && valid_unit.is_empty() && valid_extra.is_empty() {
        return Outcome::Passes;
    }
    // A failing trial: the bindings and both sides' results.
    let fail = |finding, combo: &[Choice], inputs: &[Value], lhs: String, rhs: String| {
        Outcome::Fails(Counterexample {
            finding,
            bindings: setup.bindings(combo, Some(inputs)),
            lhs,
            rhs,
        })
    };
    // One trial on random values (`variant` picks the kind of values):
    // the failing outcome, if it fails.
    let random_trial = |combo: &[Choice], lp: &Program, rp: &Program, rng: &mut Rng, variant| {
        let inputs = setup.values(combo, rng, variant);
        let dims = Dims::new();
        let Ok(mut louts) = run_program(lp, inputs.clone(), &dims) else {
            return None;
        };
        if louts.is_empty() {
            return None;
        }
        let lv = louts.remove(0);
        let mut inter = louts;
        let rv = match run_program(rp, inputs.clone(), &dims) {
            Ok(mut v) if !v.is_empty() => {
                let r = v.remove(0);
                inter.extend(v);
                r
            }
            Ok(_) => return None,
            Err(e) => {
                return Some(fail(
                    Finding::Unsound,
                    combo,
                    &inputs,
                    show_result(&lv),
                    format!("an error ({e})"),
                ))
            }
        };
        if lv.dtype() != rv.dtype() || lv.shape() != rv.shape() {
            return Some(fail(
                Finding::ChangesType,
                combo,
                &inputs,
                show_result(&lv),
                show_result(&rv),
            ));
        }
        if !close(&lv, &rv, &inputs, &inter) {
            return Some(fail(
                Finding::Unsound,
                combo,
                &inputs,
                show_result(&lv),
                show_result(&rv),
            ));
        }
        None
    };
    // One trial of the extreme-magnitude battery: the failing outcome, if
    // it fails.
    let extreme_trial = |combo: &[Choice], lp: &Program, rp: &Program, rng: &mut Rng, kind| {
        let inputs = setup.extreme_values(combo, rng, kind);
        let dims = Dims::new();
        let Ok(mut louts) = run_program(lp, inputs.clone(), &dims) else {
            return None;
        };
        if louts.is_empty() {
            return None;
        }
        let lv = louts.remove(0);
        let rv = match run_program(rp, inputs.clone(), &dims) {
            Ok(mut v) if !v.is_empty() => v.remove(0),
            Ok(_) => return None,
            Err(e) => {
                return Some(fail(
                    Finding::Unsafe,
                    combo,
                    &inputs,
                    show_result(&lv),
                    format!("an error ({e})"),
                ))
            }
        };
        if !contract_holds(&lv, &rv, &inputs, &louts, kind == Extreme::Tiny) {
            return Some(fail(
                Finding::Unsafe,
                combo,
                &inputs,
                show_result(&lv),
                show_result(&rv),
            ));
        }
        None
    };
    // Dynamic phase.
    for t in 0..if valid.is_empty() { 0 } else { trials } {
        if late() {
            return Outcome::OutOfTime;
        }
        let (combo, lp, rp) = &valid[scrambled(t, valid.len(), &mut rng)];
        if let Some(failed) = random_trial(combo, lp, rp, &mut rng, t % 3) {
            return failed;
        }
    }
    // The extreme-magnitude battery.
    for t in 0..if valid.is_empty() { 0 } else { trials } {
        if late() {
            return Outcome::OutOfTime;
        }
        // Each kind of trial visits the combinations in a scrambled order,
        // then random ones.
        let kinds = Extreme::ALL.len();
        let (combo, lp, rp) = &valid[scrambled(t / kinds, valid.len(), &mut rng)];
        let kind = Extreme::ALL[t % kinds];
        if let Some(failed) = extreme_trial(combo, lp, rp, &mut rng, kind) {
            return failed;
        }
    }
    // Operands with a length-1 axis: every such combination on each kind
    // of random values.
    for (t, (combo, lp, rp)) in valid_unit
        .iter()
        .cycle()
        .take(3 * valid_unit.len())
        .enumerate()
    {
        if late() {
            return Outcome::OutOfTime;
        }
        if let Some(failed) = random_trial(combo, lp, rp, &mut rng, t % 3) {
            return failed;
        }
    }
    // The extra dtypes (i32, with the others): a random trial and an
    // extreme one per turn, over the combinations in a scrambled order.
    for t in 0..if valid_extra.is_empty() { 0 } else { trials } {
        if late() {
            return Outcome::OutOfTime;
        }
        let (combo, lp, rp) = &valid_extra[scrambled(t, valid_extra.len(), &mut rng)];
        if let Some(failed) = random_trial(combo, lp, rp, &mut rng, t % 3) {
            return failed;
        }
        let kind = Extreme::ALL[t % Extreme::ALL.len()];
        if let Some(failed) = extreme_trial(combo, lp, rp, &mut rng, kind) {
            return failed;
        }
    }
    Outcome::Passes
}

/// The floating-point contract on one extreme trial (see the module
/// docs): integer results equal; a finite left element never becomes
/// infinite or NaN; and when every value is tiny (`tiny`), the right side
/// agrees with the left within 64 ulps of the largest value the left side
/// itself computes (its inputs, subterms and result).
fn contract_holds(
    l: &Value,
    r: &Value,
    inputs: &[Value],
    left_inter: &[Value],
    tiny: bool,
) -> bool {
    if l.dtype() != r.dtype() || l.shape() != r.shape() {
        return false;
    }
    if !l.dtype().is_float() {
        return match (l, r) {
            (Value::I64(a), Value::I64(b)) => a == b,
            (Value::I32(a), Value::I32(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            _ => false,
        };
    }
    let (x, y) = (l.as_f64_array(), r.as_f64_array());
    if x.iter()
        .zip(y.iter())
        .any(|(p, q)| p.is_finite() && !q.is_finite())
    {
        return false;
    }
    if !tiny {
        return true;
    }
    let low = if inputs.iter().any(|v| v.dtype() == DType::F32) {
        DType::F32
    } else {
        l.dtype()
    };
    let big = inputs
        .iter()
        .chain(left_inter)
        .chain(std::iter::once(l))
        .flat_map(|v| v.as_f64_array().into_iter())
        .filter(|v| v.is_finite())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let allowance = 64.0 * eps(low) * big;
    // Only a loss counts: the right side nearer zero than the left, or of
    // the other sign (a right side more accurate than the left, such as
    // `(x * c) / c => x` where `x * c` underflows, is no breach).
    x.iter().zip(y.iter()).all(|(p, q)| {
        !p.is_finite() || (p - q).abs() <= allowance || (q.abs() >= p.abs() && p * q >= 0.0)
    })
}

/// The kinds of trial of the extreme battery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Extreme {
    /// Magnitudes near overflow (±1e308, ±710, ...; `i64` and `i32` edges).
    Large,
    /// Magnitudes near underflow (±1e-308, subnormals).
    Tiny,
    /// Every element any of them, of either sign, in one tensor.
    Mixed,
    /// One large or tiny magnitude per variable, with mixed signs.
    Uniform,
}

impl Extreme {
    const ALL: [Extreme; 4] = [
        Extreme::Large,
        Extreme::Tiny,
        Extreme::Mixed,
        Extreme::Uniform,
    ];
}

/// Large magnitudes of the battery, per float precision.
const LARGE_F64: [f64; 7] = [1e308, f64::MAX, 710.0, 745.0, 1e300, 1.4e154, 3e200];
const LARGE_F32: [f64; 5] = [3.4e38, 1e38, 89.0, 104.0, 1.9e19];
/// Tiny magnitudes (normal and subnormal), per float precision.
const TINY_F64: [f64; 7] = [
    1e-308,
    f64::MIN_POSITIVE,
    5e-324,
    1e-310,
    1e-300,
    1e-200,
    1e-160,
];
const TINY_F32: [f64; 5] = [1e-38, f32::MIN_POSITIVE as f64, 1e-45, 1e-40, 1e-30];
/// Ordinary values mixed in.
const ORDINARY: [f64; 5] = [0.0, 1.0, -1.0, 0.5, 2.0];
/// The edges of `i64`: its limits, ±2^53 and one past, the square root of
/// its limit.
const EDGE_I64: [i64; 9] = [
    i64::MAX,
    i64::MIN,
    1 << 53,
    -(1 << 53),
    (1 << 53) + 1,
    3_037_000_500,
    -3_037_000_500,
    1 << 62,
    -1,
];

impl Setup<'_> {
    /// The magnitude every element of variable `v` of dtype `dtype` must
    /// stay within, by the rule's range predicates (infinite if none).
    fn bound(&self, v: Var, dtype: DType) -> f64 {
        self.range_conds
            .iter()
            .filter_map(|c| c.range_bound(dtype))
            .filter(|(w, _)| *w == v)
            .fold(f64::INFINITY, |b, (_, c)| b.min(c))
    }

    /// A magnitude for the trial kind `kind` (signless), for dtype `d`.
    fn extreme_magnitude(&self, rng: &mut Rng, kind: Extreme, d: DType) -> f64 {
        let (large, tiny): (&[f64], &[f64]) = match d {
            DType::F32 => (&LARGE_F32, &TINY_F32),
            _ => (&LARGE_F64, &TINY_F64),
        };
        let pick = |rng: &mut Rng, xs: &[f64]| xs[rng.below(xs.len())];
        match kind {
            Extreme::Large | Extreme::Uniform if rng.below(10) == 0 => pick(rng, &ORDINARY).abs(),
            Extreme::Large | Extreme::Uniform => pick(rng, large),
            Extreme::Tiny => pick(rng, tiny),
            Extreme::Mixed => match rng.below(3) {
                0 => pick(rng, large),
                1 => pick(rng, tiny),
                _ => pick(rng, &ORDINARY).abs(),
            },
        }
    }

    /// A magnitude within `bound`: one over it becomes the bound's edge or
    /// a point inside.
    fn within(rng: &mut Rng, m: f64, bound: f64) -> f64 {
        if m <= bound {
            m
        } else {
            bound * [1.0, 0.999, 0.5, rng.unit()][rng.below(4)]
        }
    }

    /// Inputs of one extreme trial.
    fn extreme_values(&self, combo: &[Choice], rng: &mut Rng, kind: Extreme) -> Vec<Value> {
        let mut out = Vec::new();
        for (v, c) in self.vars.iter().zip(combo) {
            let Choice::Tensor(t) = c else { continue };
            let shape = concrete_shape(t);
            let n: usize = shape.iter().product();
            let bound = self.bound(*v, t.dtype);
            let need = self.needs.get(v).copied();
            let sign = |rng: &mut Rng| if rng.below(2) == 0 { 1.0 } else { -1.0 };
            match t.dtype {
                DType::Bool => {
                    let b = match need {
                        Some(ConstNeed::Zero) => Some(false),
                        Some(_) => Some(true),
                        None => None,
                    };
                    let xs: Vec<f64> = (0..n)
                        .map(|_| b.unwrap_or(rng.below(2) == 0) as u8 as f64)
                        .collect();
                    out.push(make_value(DType::Bool, &shape, xs));
                }
                DType::I64 | DType::I32 => {
                    let (edges, max): (&[i64], i64) = if t.dtype == DType::I32 {
                        (&EDGE_I32, i32::MAX as i64)
                    } else {
                        (&EDGE_I64, i64::MAX)
                    };
                    let one = |rng: &mut Rng| -> i64 {
                        let x = if kind == Extreme::Tiny {
                            [0, 1, -1, 2][rng.below(4)]
                        } else {
                            edges[rng.below(edges.len())]
                        };
                        if (x as f64).abs() <= bound {
                            x
                        } else {
                            let b = bound.min(max as f64) as i64;
                            [b, -b, b / 2][rng.below(3)]
                        }
                    };
                    let xs: Vec<i64> = match need {
                        Some(need) => {
                            let mut c = one(rng);
                            for _ in 0..100 {
                                if Cond::const_ok(need, Scalar::I64(c), t.dtype) {
                                    break;
                                }
                                c = match need {
                                    ConstNeed::Zero => 0,
                                    ConstNeed::One => 1,
                                    ConstNeed::Two => 2,
                                    ConstNeed::Positive => c.checked_abs().unwrap_or(max).min(max),
                                    _ => one(rng),
                                };
                            }
                            vec![c; n]
                        }
                        None => (0..n).map(|_| one(rng)).collect(),
                    };
                    let arr = ArrayD::from_shape_vec(IxDyn(&shape), xs)
                        .unwrap_or_else(|_| ArrayD::zeros(IxDyn(&shape)));
                    out.push(Value::I64(arr).cast(t.dtype));
                }
                d => {
                    let one = |rng: &mut Rng| -> f64 {
                        let m = self.extreme_magnitude(rng, kind, d);
                        sign(rng) * Setup::within(rng, m, bound)
                    };
                    let xs: Vec<f64> = match need {
                        Some(need) => {
                            let mut c = one(rng);
                            for _ in 0..100 {
                                let k = if d == DType::F32 { c as f32 as f64 } else { c };
                                if Cond::const_ok(need, Scalar::F64(k), d) {
                                    break;
                                }
                                c = match need {
                                    ConstNeed::Zero => 0.0,
                                    ConstNeed::One => 1.0,
                                    ConstNeed::Two => 2.0,
                                    ConstNeed::Positive if c != 0.0 => c.abs(),
                                    ConstNeed::Reciprocable => {
                                        let (lo, hi) = if d == DType::F32 {
                                            (1e-37, 1e37)
                                        } else {
                                            (1e-300, 1e300)
                                        };
                                        sign(rng) * [lo, hi, 1.0, 3.0][rng.below(4)]
                                    }
                                    _ => one(rng),
                                };
                            }
                            vec![c; n]
                        }
                        None if kind == Extreme::Uniform => {
                            let m = self.extreme_magnitude(rng, kind, d);
                            let m = Setup::within(rng, m, bound);
                            (0..n).map(|_| sign(rng) * m).collect()
                        }
                        None => (0..n).map(|_| one(rng)).collect(),
                    };
                    out.push(make_value(d, &shape, xs));
                }
            }
        }
        out
    }
}

/// Checks every rule (200 trials and 200 extreme trials each, a fixed
/// seed); returns the failing rules with a counterexample each, in rule
/// order.
pub fn check_rules(rules: &[Rule]) -> Vec<(String, Counterexample)> {
    rules
        .iter()
        .filter_map(|r| {
            check_rule(r, 200, 0x5EED)
                .err()
                .map(|c| (r.name.clone(), c))
        })
        .collect()
}

/// Why [`check_rules_within`] gave no verdict.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CheckError {
    /// The time limit passed before every rule was checked.
    #[error("rules check stopped at its time limit of {secs} s, after {checked} of {total} rules")]
    TimeLimit {
        /// The limit, in seconds.
        secs: f64,
        /// Rules whose check finished.
        checked: usize,
        /// Rules to check.
        total: usize,
    },
}

/// [`check_rules`] within a time limit: the findings, or
/// [`CheckError::TimeLimit`] once `limit` has passed (checked between
/// trials, so it holds within one trial's time).
pub fn check_rules_within(
    rules: &[Rule],
    limit: Duration,
) -> Result<Vec<(String, Counterexample)>, CheckError> {
    let deadline = Instant::now().checked_add(limit);
    let mut out = Vec::new();
    for (k, r) in rules.iter().enumerate() {
        match check_rule_until(r, 200, 0x5EED, deadline) {
            Outcome::Passes => {}
            Outcome::Fails(c) => out.push((r.name.clone(), c)),
            Outcome::OutOfTime => {
                return Err(CheckError::TimeLimit {
                    secs: limit.as_secs_f64(),
                    checked: k,
                    total: rules.len(),
                })
            }
        }
    }
    Ok(out)
}
