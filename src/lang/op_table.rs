//! The op table: every op head, its name, arity and attribute layout.
//!
//! Owns: [`OpKind`] (an op without its attributes: the head word of an op
//! in program text, and the head of an op node in the e-graph's terms) and,
//! in one line per head of the `op_table!` invocation below, its layout: the operands it is
//! written with, in order, each a value argument ([`Slot::Arg`],
//! [`Slot::Args`]) or an attribute of some [`AttrKind`]. Every arity — in
//! program text, in terms, in value arguments — is derived from the layout
//! ([`OpKind::arity`]), and [`Op::parts`] / [`Op::from_parts`] split an op
//! into its head and attribute values and back. The parser, the printer,
//! the term language, the analysis, the type rules and the executor all
//! read this table; family names (`exp`, `add`, ...) are declared with their
//! family in [`super::op`]. Must not: parse, print, type or evaluate.
//!
//! A new op is one line here plus one variant of [`Op`] and its arms in
//! [`Op::parts`] and [`Op::from_parts`]; every stage that must know it
//! (type rule, kernel, cost, range, gradient) matches on [`Op`]
//! exhaustively and fails to compile until it does. The gradient of every
//! op (its vector-Jacobian product) is in `src/grad/vjp.rs`, one arm per
//! op.

use super::dtype::DType;
use super::op::{BinaryOp, CompareOp, CumOp, Op, ReduceOp, Scalar, UnaryOp};
use super::shape::{Dim, Type};
use std::fmt;
use std::ops::Range;

/// How many operands something takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Exactly(usize),
    /// From the first to the second, both included.
    Range(usize, usize),
    /// This many or more.
    AtLeast(usize),
}

impl Arity {
    fn of_bounds(min: usize, max: Option<usize>) -> Arity {
        match max {
            Some(max) if max == min => Arity::Exactly(min),
            Some(max) => Arity::Range(min, max),
            None => Arity::AtLeast(min),
        }
    }

    /// Whether `n` operands fit.
    pub fn admits(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::Range(lo, hi) => (lo..=hi).contains(&n),
            Arity::AtLeast(k) => n >= k,
        }
    }
}

impl fmt::Display for Arity {
    /// "no arguments", "1 argument", "1 or 2 arguments", "2 or more
    /// arguments", ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Arity::Exactly(0) => f.write_str("no arguments"),
            Arity::Exactly(1) => f.write_str("1 argument"),
            Arity::Exactly(k) => write!(f, "{k} arguments"),
            Arity::Range(lo, hi) if hi == lo + 1 => write!(f, "{lo} or {hi} arguments"),
            Arity::Range(lo, hi) => write!(f, "{lo} to {hi} arguments"),
            Arity::AtLeast(k) => write!(f, "{k} or more arguments"),
        }
    }
}

/// Which written form of an op an arity or a layout is read for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Program text: attributes with a default may be left out.
    Text,
    /// An e-graph term: every attribute is a leaf child, defaults written.
    Term,
    /// The value arguments alone (a program node's `args`).
    Args,
}

/// The kind of an attribute: how it is written and what value it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// An axis, an integer literal (negative counts from the end).
    Axis,
    /// An axis that may be left out (then the op works on every axis).
    OptAxis,
    /// An axis that program text may leave out, meaning 0; terms hold it.
    AxisOrZero,
    /// Zero or more axes (a permutation); none means "reverse the axes".
    Perm,
    /// Zero or more sizes, of which one may be `-1` (inferred).
    Sizes,
    /// A slice's start: an integer or `none`.
    Start,
    /// A slice's stop: an integer or `none`.
    Stop,
    /// A slice's step: an integer; program text may leave it out or write
    /// `none`, meaning 1; terms hold it.
    Step,
    /// The type `(DTYPE DIM ...)` of a created tensor.
    Type,
    /// A dtype.
    DType,
    /// A size.
    Size,
    /// Zero or more scalar literals.
    Literals,
    /// The index of a scan's output.
    Output,
}

impl AttrKind {
    /// The least and most operands it is written with in `form`
    /// (`None`: no most).
    fn width(self, form: Form) -> (usize, Option<usize>) {
        match (self, form) {
            (_, Form::Args) => (0, Some(0)),
            (AttrKind::OptAxis, _) => (0, Some(1)),
            (AttrKind::AxisOrZero | AttrKind::Step, Form::Text) => (0, Some(1)),
            (AttrKind::Perm | AttrKind::Sizes | AttrKind::Literals, _) => (0, None),
            (
                AttrKind::Axis
                | AttrKind::AxisOrZero
                | AttrKind::Start
                | AttrKind::Stop
                | AttrKind::Step
                | AttrKind::Type
                | AttrKind::DType
                | AttrKind::Size
                | AttrKind::Output,
                _,
            ) => (1, Some(1)),
        }
    }

    /// How it is shown in a usage line.
    fn usage(self) -> &'static str {
        match self {
            AttrKind::Axis => "AXIS",
            AttrKind::OptAxis | AttrKind::AxisOrZero => "[AXIS]",
            AttrKind::Perm => "[AXIS ...]",
            AttrKind::Sizes => "[DIM ...]",
            AttrKind::Start => "START",
            AttrKind::Stop => "STOP",
            AttrKind::Step => "[STEP]",
            AttrKind::Type => "TYPE",
            AttrKind::DType => "DTYPE",
            AttrKind::Size => "N",
            AttrKind::Literals => "[VALUE ...]",
            AttrKind::Output => "K",
        }
    }
}

/// One operand position of an op's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// One value argument.
    Arg,
    /// One or more value arguments.
    Args,
    /// An attribute.
    Attr(AttrKind),
}

impl Slot {
    fn width(self, form: Form) -> (usize, Option<usize>) {
        match self {
            Slot::Arg => (1, Some(1)),
            Slot::Args => (1, None),
            Slot::Attr(a) => a.width(form),
        }
    }

    fn usage(self) -> &'static str {
        match self {
            Slot::Arg => "X",
            Slot::Args => "ARG ...",
            Slot::Attr(a) => a.usage(),
        }
    }
}

/// The value of one attribute, as [`Op::parts`] gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// [`AttrKind::Axis`], [`AttrKind::AxisOrZero`], [`AttrKind::Step`],
    /// [`AttrKind::Output`]
    Int(i64),
    /// [`AttrKind::OptAxis`], [`AttrKind::Start`], [`AttrKind::Stop`]
    OptInt(Option<i64>),
    /// [`AttrKind::Perm`]
    Ints(Vec<i64>),
    /// [`AttrKind::Sizes`]
    Sizes(Vec<Dim>),
    /// [`AttrKind::Type`]
    Type(Type),
    /// [`AttrKind::DType`]
    DType(DType),
    /// [`AttrKind::Size`]
    Size(Dim),
    /// [`AttrKind::Literals`]
    Literals(Vec<Scalar>),
}

use AttrKind as A;
use Slot::{Arg, Args, Attr};

/// Declares [`OpKind`] and its table: families (one head per member, named
/// by the family) and single ops with their names, each with its layout.
macro_rules! op_table {
    (
        families { $( $(#[$fdoc:meta])* $fam:ident($fty:ident) = [$($fslot:expr),*], )+ }
        ops { $( $(#[$odoc:meta])* $op:ident = $name:literal [$($slot:expr),*], )+ }
    ) => {
        /// An op without its attributes: the head word of an op in program
        /// text and the head of an op node in a term (attributes are its
        /// leaf children there).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum OpKind {
            $( $(#[$fdoc])* $fam($fty), )+
            $( $(#[$odoc])* $op, )+
        }

        impl OpKind {
            /// Every op head: each family's members, then the single ops.
            pub fn all() -> impl Iterator<Item = OpKind> {
                std::iter::empty()
                    $( .chain($fty::ALL.iter().map(|&m| OpKind::$fam(m))) )+
                    .chain([$(OpKind::$op),+])
            }

            /// The name in program text.
            pub fn name(self) -> &'static str {
                match self {
                    $( OpKind::$fam(m) => m.name(), )+
                    $( OpKind::$op => $name, )+
                }
            }

            /// The operands it is written with, in program-text order.
            pub fn layout(self) -> &'static [Slot] {
                match self {
                    $( OpKind::$fam(_) => &[$($fslot),*], )+
                    $( OpKind::$op => &[$($slot),*], )+
                }
            }
        }
    };
}

op_table! {
    families {
        /// elementwise unary: `(exp x)`
        Unary(UnaryOp) = [Arg],
        /// elementwise binary: `(add a b)`
        Binary(BinaryOp) = [Arg, Arg],
        /// comparison: `(gt a b)`
        Compare(CompareOp) = [Arg, Arg],
        /// reduction: `(sum x)`, `(sum x axis)`
        Reduce(ReduceOp) = [Arg, Attr(A::OptAxis)],
        /// running scan: `(cumsum x axis)`
        Cumulative(CumOp) = [Arg, Attr(A::AxisOrZero)],
    }
    ops {
        /// `(where c a b)`
        Where = "where" [Arg, Arg, Arg],
        /// `(dot a b)`
        Dot = "dot" [Arg, Arg],
        /// `(matmul a b)`
        Matmul = "matmul" [Arg, Arg],
        /// `(transpose x axis ...)`
        Transpose = "transpose" [Arg, Attr(A::Perm)],
        /// `(reshape x dim ...)`
        Reshape = "reshape" [Arg, Attr(A::Sizes)],
        /// `(expand_dims x axis)`
        ExpandDims = "expand_dims" [Arg, Attr(A::Axis)],
        /// `(stack x ...)`
        Stack = "stack" [Args],
        /// `(concat axis x ...)`
        Concat = "concat" [Attr(A::Axis), Args],
        /// `(index x i ...)`
        Index = "index" [Arg, Args],
        /// `(slice x start stop step)`
        Slice = "slice" [Arg, Attr(A::Start), Attr(A::Stop), Attr(A::Step)],
        /// `(fill type v)`
        Fill = "fill" [Attr(A::Type), Arg],
        /// `(zeros type)`
        Zeros = "zeros" [Attr(A::Type)],
        /// `(ones type)`
        Ones = "ones" [Attr(A::Type)],
        /// `(arange n)`
        Arange = "arange" [Attr(A::Size)],
        /// `(tensor type v ...)`
        Tensor = "tensor" [Attr(A::Type), Attr(A::Literals)],
        /// `(cast dtype x)`
        Cast = "cast" [Attr(A::DType), Arg],
        /// `(stop_gradient x)`
        StopGradient = "stop_gradient" [Arg],
        /// `(proj k scan)`: output k of a scan (terms only; programs bind
        /// a scan's outputs with a destructuring `let`)
        Proj = "proj" [Attr(A::Output), Arg],
    }
}

impl OpKind {
    /// The op head with this name (`proj` included: see
    /// [`OpKind::in_programs`]).
    pub fn from_name(name: &str) -> Option<OpKind> {
        OpKind::all().find(|k| k.name() == name)
    }

    /// Whether programs write this head (`proj` exists only in terms).
    pub fn in_programs(self) -> bool {
        self != OpKind::Proj
    }

    /// How many operands it takes in `form`.
    pub fn arity(self, form: Form) -> Arity {
        let (mut min, mut max) = (0, Some(0));
        for s in self.layout() {
            let (lo, hi) = s.width(form);
            min += lo;
            max = max.zip(hi).map(|(a, b)| a + b);
        }
        Arity::of_bounds(min, max)
    }

    /// What it takes in program text, for an arity error: the arity, and
    /// for an op with a varying arity its usage (`1 or 2 arguments (X
    /// [AXIS])`).
    pub fn expected(self) -> String {
        match self.arity(Form::Text) {
            a @ Arity::Exactly(_) => a.to_string(),
            a => {
                let words: Vec<&str> = self.layout().iter().map(|s| s.usage()).collect();
                format!("{a} ({})", words.join(" "))
            }
        }
    }

    /// Where each slot's operands are among `n` operands written in
    /// `form`, one range per slot of [`OpKind::layout`]; `None` when `n`
    /// does not fit. A layout has at most one slot of varying width, which
    /// takes what the others leave.
    pub fn spans(self, form: Form, n: usize) -> Option<Vec<Range<usize>>> {
        if !self.arity(form).admits(n) {
            return None;
        }
        let layout = self.layout();
        let fixed: usize = layout
            .iter()
            .map(|s| s.width(form))
            .filter(|(lo, hi)| Some(*lo) == *hi)
            .map(|(lo, _)| lo)
            .sum();
        let mut at = 0;
        let mut spans = Vec::with_capacity(layout.len());
        for s in layout {
            let w = match s.width(form) {
                (lo, Some(hi)) if lo == hi => lo,
                _ => n.checked_sub(fixed)?,
            };
            spans.push(at..at + w);
            at += w;
        }
        (at == n).then_some(spans)
    }
}

impl AttrValue {
    fn int(self) -> Option<i64> {
        match self {
            AttrValue::Int(i) => Some(i),
            _ => None,
        }
    }
    fn opt_int(self) -> Option<Option<i64>> {
        match self {
            AttrValue::OptInt(i) => Some(i),
            _ => None,
        }
    }
    fn ty(self) -> Option<Type> {
        match self {
            AttrValue::Type(t) => Some(t),
            _ => None,
        }
    }
}

impl Op {
    /// Its head in the op table; `None` for inputs, literals, sizes and
    /// scans, which are not op heads.
    pub fn kind(&self) -> Option<OpKind> {
        Some(match self {
            Op::Input(_) | Op::Literal(_) | Op::Size(_) | Op::Scan(_) | Op::Grad => return None,
            Op::Unary(u) => OpKind::Unary(*u),
            Op::Binary(b) => OpKind::Binary(*b),
            Op::Compare(c) => OpKind::Compare(*c),
            Op::Reduce(r, _) => OpKind::Reduce(*r),
            Op::Cumulative(c, _) => OpKind::Cumulative(*c),
            Op::Where => OpKind::Where,
            Op::Dot => OpKind::Dot,
            Op::Matmul => OpKind::Matmul,
            Op::Transpose(_) => OpKind::Transpose,
            Op::Reshape(_) => OpKind::Reshape,
            Op::ExpandDims(_) => OpKind::ExpandDims,
            Op::Stack => OpKind::Stack,
            Op::Concat(_) => OpKind::Concat,
            Op::Index => OpKind::Index,
            Op::Slice { .. } => OpKind::Slice,
            Op::Fill(_) => OpKind::Fill,
            Op::Zeros(_) => OpKind::Zeros,
            Op::Ones(_) => OpKind::Ones,
            Op::Arange(_) => OpKind::Arange,
            Op::Tensor(..) => OpKind::Tensor,
            Op::Cast(_) => OpKind::Cast,
            Op::StopGradient => OpKind::StopGradient,
            Op::Proj(_) => OpKind::Proj,
        })
    }

    /// Its head and its attribute values, one per attribute slot of the
    /// head's layout, in order; `None` as for [`Op::kind`].
    pub fn parts(&self) -> Option<(OpKind, Vec<AttrValue>)> {
        use AttrValue as V;
        let kind = self.kind()?;
        let attrs = match self {
            Op::Reduce(_, axis) => vec![V::OptInt(*axis)],
            Op::Cumulative(_, axis) | Op::ExpandDims(axis) | Op::Concat(axis) => {
                vec![V::Int(*axis)]
            }
            Op::Transpose(perm) => vec![V::Ints(perm.clone().unwrap_or_default())],
            Op::Reshape(dims) => vec![V::Sizes(dims.clone())],
            Op::Slice { start, stop, step } => {
                vec![V::OptInt(*start), V::OptInt(*stop), V::Int(*step)]
            }
            Op::Fill(t) | Op::Zeros(t) | Op::Ones(t) => vec![V::Type(t.clone())],
            Op::Arange(n) => vec![V::Size(n.clone())],
            Op::Tensor(t, vals) => vec![V::Type(t.clone()), V::Literals(vals.clone())],
            Op::Cast(d) => vec![V::DType(*d)],
            Op::Proj(k) => vec![V::Int(*k as i64)],
            Op::Unary(_)
            | Op::Binary(_)
            | Op::Compare(_)
            | Op::Where
            | Op::Dot
            | Op::Matmul
            | Op::Stack
            | Op::Index
            | Op::StopGradient => Vec::new(),
            Op::Input(_) | Op::Literal(_) | Op::Size(_) | Op::Scan(_) | Op::Grad => return None,
        };
        Some((kind, attrs))
    }

    /// The op with head `kind` and attribute values `attrs` (as
    /// [`Op::parts`] gives them); `None` when they do not fit the layout.
    pub fn from_parts(kind: OpKind, attrs: Vec<AttrValue>) -> Option<Op> {
        let mut a = attrs.into_iter();
        let op = match kind {
            OpKind::Unary(u) => Op::Unary(u),
            OpKind::Binary(b) => Op::Binary(b),
            OpKind::Compare(c) => Op::Compare(c),
            OpKind::Reduce(r) => Op::Reduce(r, a.next()?.opt_int()?),
            OpKind::Cumulative(c) => Op::Cumulative(c, a.next()?.int()?),
            OpKind::Where => Op::Where,
            OpKind::Dot => Op::Dot,
            OpKind::Matmul => Op::Matmul,
            OpKind::Transpose => match a.next()? {
                AttrValue::Ints(p) if p.is_empty() => Op::Transpose(None),
                AttrValue::Ints(p) => Op::Transpose(Some(p)),
                _ => return None,
            },
            OpKind::Reshape => match a.next()? {
                AttrValue::Sizes(d) => Op::Reshape(d),
                _ => return None,
            },
            OpKind::ExpandDims => Op::ExpandDims(a.next()?.int()?),
            OpKind::Stack => Op::Stack,
            OpKind::Concat => Op::Concat(a.next()?.int()?),
            OpKind::Index => Op::Index,
            OpKind::Slice => Op::Slice {
                start: a.next()?.opt_int()?,
                stop: a.next()?.opt_int()?,
                step: a.next()?.int()?,
            },
            OpKind::Fill => Op::Fill(a.next()?.ty()?),
            OpKind::Zeros => Op::Zeros(a.next()?.ty()?),
            OpKind::Ones => Op::Ones(a.next()?.ty()?),
            OpKind::Arange => match a.next()? {
                AttrValue::Size(n) => Op::Arange(n),
                _ => return None,
            },
            OpKind::Tensor => match (a.next()?.ty()?, a.next()?) {
                (t, AttrValue::Literals(v)) => Op::Tensor(t, v),
                _ => return None,
            },
            OpKind::Cast => match a.next()? {
                AttrValue::DType(d) => Op::Cast(d),
                _ => return None,
            },
            OpKind::StopGradient => Op::StopGradient,
            OpKind::Proj => Op::Proj(usize::try_from(a.next()?.int()?).ok()?),
        };
        a.next().is_none().then_some(op)
    }

    /// How many value arguments it takes.
    pub fn arg_arity(&self) -> Arity {
        match self {
            Op::Input(_) | Op::Literal(_) | Op::Size(_) => Arity::Exactly(0),
            Op::Scan(s) => Arity::Exactly(s.sig.n_args()),
            Op::Grad => Arity::AtLeast(2),
            op => op.kind().map_or(Arity::Exactly(0), |k| k.arity(Form::Args)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_found() {
        let all: Vec<OpKind> = OpKind::all().collect();
        for k in &all {
            assert_eq!(OpKind::from_name(k.name()), Some(*k));
        }
        let mut names: Vec<&str> = all.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }

    #[test]
    fn a_layout_has_at_most_one_slot_of_varying_width() {
        for k in OpKind::all() {
            for form in [Form::Text, Form::Term, Form::Args] {
                let varying = k
                    .layout()
                    .iter()
                    .filter(|s| {
                        let (lo, hi) = s.width(form);
                        Some(lo) != hi
                    })
                    .count();
                assert!(varying <= 1, "{} in {form:?}", k.name());
            }
        }
    }

    #[test]
    fn arities_follow_the_layout() {
        use Arity::*;
        let r = OpKind::Reduce(ReduceOp::Sum);
        assert_eq!(r.arity(Form::Text), Range(1, 2));
        assert_eq!(r.arity(Form::Term), Range(1, 2));
        assert_eq!(r.arity(Form::Args), Exactly(1));
        let c = OpKind::Cumulative(CumOp::Cumsum);
        assert_eq!(c.arity(Form::Text), Range(1, 2));
        assert_eq!(c.arity(Form::Term), Exactly(2));
        assert_eq!(OpKind::Slice.arity(Form::Text), Range(3, 4));
        assert_eq!(OpKind::Slice.arity(Form::Term), Exactly(4));
        assert_eq!(OpKind::Concat.arity(Form::Term), AtLeast(2));
        assert_eq!(OpKind::Concat.arity(Form::Args), AtLeast(1));
        assert_eq!(OpKind::Index.arity(Form::Args), AtLeast(2));
        assert_eq!(OpKind::Tensor.arity(Form::Term), AtLeast(1));
        assert_eq!(OpKind::Tensor.arity(Form::Args), Exactly(0));
        assert_eq!(OpKind::Concat.spans(Form::Term, 4), Some(vec![0..1, 1..4]));
        assert_eq!(
            OpKind::Slice.spans(Form::Text, 3),
            Some(vec![0..1, 1..2, 2..3, 3..3])
        );
        assert_eq!(OpKind::Slice.spans(Form::Text, 5), None);
        assert_eq!(
            OpKind::Reduce(ReduceOp::Max).spans(Form::Term, 1),
            Some(vec![0..1, 1..1])
        );
        assert_eq!(
            OpKind::Reduce(ReduceOp::Sum).expected(),
            "1 or 2 arguments (X [AXIS])"
        );
        assert_eq!(OpKind::Binary(BinaryOp::Add).expected(), "2 arguments");
        assert_eq!(OpKind::Unary(UnaryOp::Neg).expected(), "1 argument");
    }
}
