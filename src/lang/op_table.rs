//! The op table: every op, its head, name, arity, attribute layout and
//! the facts each later stage reads.
//!
//! Owns: [`Op`] (an op with its attributes, as a program node holds it),
//! [`OpKind`] (an op without its attributes: the head word of an op in
//! program text, and the head of an op node in the e-graph's terms) and,
//! in one line per head of the `op_table!` invocation below, its layout —
//! the operands it is written with, in order, each a value argument
//! ([`Slot::Arg`], [`Slot::Args`]) or an attribute of some [`AttrKind`] —
//! and two facts: [`Elements`] (what its result's elements are made of,
//! read by constant folding) and [`Storage`] (views and in-place writes,
//! read by the planner). Every arity — in program text, in terms, in value
//! arguments — is derived from the layout ([`OpKind::arity`]), and
//! [`Op::parts`] / [`Op::from_parts`] split an op into its head and
//! attribute values and back. The parser, the printer, the term language,
//! the analysis, the type rules, the planner and the executor all read
//! this table; family names (`exp`, `add`, ...) and their own facts are
//! declared with their family in [`super::op`]. Must not: parse, print,
//! type or evaluate.
//!
//! A new op is one line here plus one variant of [`Op`] and its arms in
//! [`Op::kind`], [`Op::parts`] and [`Op::from_parts`]; the stages that
//! must know more than the table says match on [`Op`] exhaustively and do
//! not compile until they handle it: its type rule (`lang/infer.rs`), its
//! kernel (`exec/ops/`), its value range (`egraph/range.rs`) and its cost
//! (`extract/cost.rs`) and its gradient (`grad/vjp.rs`, one arm per op).
//! A view op also says in `exec/plan/runtime.rs` how its view is laid out
//! (without it the planner copies).

use super::dtype::DType;
use super::op::{BinaryOp, CompareOp, CumOp, ListOp, NormOp, ReduceOp, Scalar, UnaryOp};
use super::program::Scan;
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
    /// A literal `true` or `false`.
    Flag,
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
                | AttrKind::Output
                | AttrKind::Flag,
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
            AttrKind::Flag => "true|false",
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
    /// [`AttrKind::Flag`]
    Bool(bool),
}

/// One size in a `reshape`: a static size or `-1` (inferred).
pub type ReshapeDim = Dim;

/// An operation. Arguments are graph values ([`super::program::NodeId`]);
/// parameters that the type rules need statically (axes, slice bounds,
/// types of created tensors) live in the op itself.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// The k-th parameter of the enclosing graph (a program input, or an
    /// inner input of a scan's `fn`). No arguments.
    Input(usize),
    /// A scalar literal (weak). No arguments.
    Literal(Scalar),
    /// A symbolic size used as a value: an `i64` scalar. No arguments.
    Size(String),
    /// Elementwise unary op; 1 argument.
    Unary(UnaryOp),
    /// Elementwise binary op with broadcasting; 2 arguments.
    Binary(BinaryOp),
    /// Elementwise comparison with broadcasting; 2 arguments.
    Compare(CompareOp),
    /// `(where COND A B)`; 3 arguments, broadcast together.
    Where,
    /// Reduction over one axis (negative counts from the end) or all axes.
    Reduce(ReduceOp, Option<i64>),
    /// Running sum/product along an axis (negative counts from the end).
    Cumulative(CumOp, i64),
    /// Softmax or log-softmax along an axis (negative counts from the
    /// end), max-shifted as SciPy's; 1 argument, a float result of its
    /// shape.
    Normalize(NormOp, i64),
    /// A plain op on nested lists (`len`, `unstack`, `flatten`); 1
    /// argument.
    List(ListOp),
    /// `numpy.dot` of 0-, 1- and 2-D operands; 2 arguments.
    Dot,
    /// `numpy.matmul` (batched, broadcasting batch axes); 2 arguments.
    Matmul,
    /// Reverse the axes (`None`) or permute them; 1 argument.
    Transpose(Option<Vec<i64>>),
    /// Reshape to the given sizes (one may be `-1`); 1 argument.
    Reshape(Vec<ReshapeDim>),
    /// Insert a length-1 axis at the given position of the result; 1 argument.
    ExpandDims(i64),
    /// Stack equal-shaped arguments along a new axis 0; 1 or more arguments.
    Stack,
    /// Concatenate arguments along an axis; 1 or more arguments.
    Concat(i64),
    /// `X[i, j, ...]`: the first argument is indexed by the following
    /// `i64` scalar arguments, one per leading axis (negative from the end).
    Index,
    /// `X[start:stop:step]` along axis 0; 1 argument.
    Slice {
        /// start, `None` for the default
        start: Option<i64>,
        /// stop, `None` for the default
        stop: Option<i64>,
        /// step, non-zero
        step: i64,
    },
    /// A tensor of the given type filled with the scalar argument; 1 argument.
    Fill(Type),
    /// A tensor of zeros of the given type. No arguments.
    Zeros(Type),
    /// A tensor of ones of the given type. No arguments.
    Ones(Type),
    /// `0, 1, ..., n-1` as `i64`. No arguments.
    Arange(Dim),
    /// A literal tensor of the given type, values row-major. No arguments.
    Tensor(Type, Vec<Scalar>),
    /// Convert to a dtype; 1 argument.
    Cast(DType),
    /// A loop; its arguments are laid out as [`Scan`] documents. It has one
    /// result per `outputs_info` entry, read with [`Op::Proj`].
    Scan(Box<Scan>),
    /// The k-th result of a multi-result node (a scan, a grad); 1 argument.
    Proj(usize),
    /// Zeros of the argument's dtype and runtime shape; 1 argument.
    ZerosLike,
    /// `(key SEED)`: the random key of an `i64` scalar seed (SPEC §1
    /// "Random numbers"; the generator is in `exec/ops/random.rs`);
    /// 1 argument.
    MakeKey,
    /// `(split KEY N)`: `N` keys derived from `KEY`, a `(key N)` array
    /// whose row `i` is `(fold_in KEY i)` (an array of keys splits each,
    /// the new axis last); 1 argument.
    Split(Dim),
    /// `(fold_in KEY I)`: the key derived from `KEY` and an `i64` scalar;
    /// 2 arguments.
    FoldIn,
    /// `(uniform KEY TYPE)`: floats of `TYPE` uniform in [0, 1), a pure
    /// function of the key; 1 argument.
    Uniform(Type),
    /// `(normal KEY TYPE)`: standard normal floats of `TYPE` (Box–Muller,
    /// always finite); 1 argument.
    Normal(Type),
    /// `(bernoulli KEY P)`: `bool` of `P`'s shape, true with probability
    /// `P` (element by element); 2 arguments.
    Bernoulli,
    /// `(categorical KEY LOGITS)`: `i64`, one draw per row of `LOGITS`
    /// along its last axis, index `j` with probability `softmax(LOGITS)[j]`
    /// (Gumbel-max: a `-inf` logit is never drawn); 2 arguments.
    Categorical,
    /// `(sum_to G X)`: `G` summed to the shape of `X` (broadcasting
    /// reversed: the leading extra axes of `G` summed away, then the axes
    /// where `X` has length 1 summed with keepdims); 2 arguments.
    SumTo,
    /// `(linrec A U H0)`: the first-order linear recurrence
    /// `h_t = A_t ⊙ h_{t-1} + U_t` over the rows of `U` (axis 0), from
    /// `h_{-1} = H0`; the result is every `h_t` stacked, `U`'s shape. `A`
    /// broadcasts to `U`'s shape (a scalar or a row is the same factor at
    /// every step), `H0` to one row of it. `cumsum` is the case `A = 1`.
    /// 3 arguments.
    LinRec,
    /// `(logmatmulexp A B)`: the matrix product in log space,
    /// `log(exp(A) · exp(B))`: `r[j] = log Σ_i exp(A[i] + B[i, j])` for a
    /// vector `A` (N) and a matrix `B` (N, M), each row of a matrix `A`
    /// (K, N) likewise; the forward step of a hidden Markov model. Its
    /// kernel sums `exp(A - max A) · exp(B)` and computes a column the
    /// max-shifted way wherever that sum is out of the normal range, so it
    /// is as stable as the max-shifted logsumexp it replaces. 2 arguments.
    LogMatMulExp,
    /// `(inc_index X G I ...)`: a copy of `X` with `G` (broadcast) added
    /// at `X[I, ...]`, indexed as [`Op::Index`] indexes; 3 or more
    /// arguments.
    IncIndex,
    /// `(inc_slice X G START STOP STEP)`: a copy of `X` with `G`
    /// (broadcast) added at `X[start:stop:step]` along axis 0, sliced as
    /// [`Op::Slice`] slices; 2 arguments.
    IncSlice {
        /// start, `None` for the default
        start: Option<i64>,
        /// stop, `None` for the default
        stop: Option<i64>,
        /// step, non-zero
        step: i64,
    },
    /// Reversed along an axis (negative counts from the end); 1 argument.
    Flip(i64),
    /// Drop a length-1 axis (negative counts from the end); 1 argument.
    Squeeze(i64),
    /// `(compress M X)`: the rows of X (along axis 0) where the bool
    /// vector M is true, in order, as `numpy.compress(M, X, axis=0)`; its
    /// leading length is known only at run time. What `filter` and
    /// `filterall` lower to. 2 arguments.
    Compress,
    /// `(uncompress M G)`: G's rows put back where the bool vector M is
    /// true, zeros elsewhere (M's length of rows): the gradient of
    /// [`Op::Compress`], whose own gradient it is in turn. 2 arguments.
    Uncompress,
    /// `(clip X LO HI)`: X limited to `[LO, HI]` elementwise, as
    /// `numpy.clip` (`minimum(maximum(X, LO), HI)`: NaN propagates, and a
    /// LO above HI gives HI); 3 arguments, broadcast together.
    Clip,
    /// `(eye TYPE)`: ones on the main diagonal of the 2-D TYPE, zeros
    /// elsewhere (`numpy.eye`). No arguments.
    Eye(Type),
    /// `(outer A B)`: `A[i] * B[j]` for 1-D A and B (`numpy.outer`); 2
    /// arguments.
    Outer,
    /// `(set_index X V I ...)`: a copy of `X` with `X[I, ...]` replaced
    /// by `V` (broadcast), indexed as [`Op::Index`] indexes (PyTensor's
    /// `set_subtensor`); 3 or more arguments.
    SetIndex,
    /// `(set_slice X V START STOP STEP)`: a copy of `X` with
    /// `X[start:stop:step]` (axis 0) replaced by `V` (broadcast), sliced as
    /// [`Op::Slice`] slices; 2 arguments.
    SetSlice {
        /// start, `None` for the default
        start: Option<i64>,
        /// stop, `None` for the default
        stop: Option<i64>,
        /// step, non-zero
        step: i64,
    },
    /// `(take X IDX AXIS)`: `X[..., IDX, ...]` with the integer array IDX
    /// (any shape; negative from the end) along AXIS (`numpy.take`
    /// without flattening); the result's shape is X's with that axis
    /// replaced by IDX's shape. 2 arguments.
    Take(i64),
    /// `(inc_take X G IDX AXIS)`: a copy of `X` with `G` (broadcast to
    /// `take`'s result shape) added at the positions IDX picks along
    /// AXIS, repeated indices accumulating (`numpy.add.at`); 3 arguments.
    IncTake(i64),
    /// `(set_take X V IDX AXIS)`: a copy of `X` with the positions IDX
    /// picks along AXIS replaced by `V` (broadcast to `take`'s result
    /// shape); with repeated indices the last write, in IDX's row-major
    /// order, wins. 3 arguments.
    SetTake(i64),
    /// `(stop_gradient X)`: the value of X, through which no gradient
    /// flows back (its gradient rule is in `src/grad/vjp.rs`); 1 argument.
    StopGradient,
    /// `(grad COST X ...)`: the gradients of the scalar COST with respect
    /// to the values X, one result per X (read with [`Op::Proj`]), each of
    /// X's type. Arguments: COST, then each X. It exists only before
    /// expansion: `crate::grad::expand` replaces every one by plain ops
    /// and loops, so the executors and the e-graph never see it (they
    /// refuse it as an internal error). Not an op head of the table.
    Grad,
    /// `(solve A B)`: `X` with `A X = B` for square `A` (..., n, n), batched
    /// over leading axes; `B` is a vector (n) only when it is 1-D, else
    /// (..., n, k), as `numpy.linalg.solve` in NumPy 2. LU with partial
    /// pivoting; an exactly singular `A` is a run-time error. 2 arguments.
    Solve,
    /// `(solve_triangular A B LOWER)`: as [`Op::Solve`] with `A`
    /// triangular; only its lower (`true`) or upper (`false`) triangle,
    /// diagonal included, is read. 2 arguments.
    SolveTriangular(bool),
    /// `(cholesky A)`: the lower factor `L` of a symmetric positive
    /// definite `A = L Lᵀ` (only the lower triangle of `A` is read), batched;
    /// a matrix that is not positive definite is a run-time error. 1 argument.
    Cholesky,
    /// `(inv A)`: the inverse of a square matrix, batched; an exactly
    /// singular `A` is a run-time error. 1 argument.
    Inv,
    /// `(det A)`: the determinant of a square matrix, batched (0 for a
    /// singular one). 1 argument.
    Det,
    /// One result of `(slogdet A)`: the sign (`0`) or the log of the
    /// absolute value (`1`) of the determinant, batched; (0, -inf) for a
    /// singular matrix. Programs bind both with `(let (sign logdet)
    /// (slogdet A))`, which makes one node per result; terms write
    /// `(slogdet K A)`. 1 argument.
    Slogdet(usize),
}

impl Op {
    /// The head word of the op in program text (`add`, `scan`, ...), from
    /// the op table ([`OpKind::name`]); leaves that print as atoms give a
    /// descriptive word.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Input(_) => "input",
            Op::Literal(_) => "literal",
            Op::Size(_) => "size",
            Op::Scan(_) => "scan",
            Op::Grad => "grad",
            // Every other op has a head (see `Op::kind`).
            op => op.kind().map_or("op", OpKind::name),
        }
    }
}

/// What an op's result elements are made of, as constant folding in the
/// e-graph reads it: whether arguments that are constants (uniform tensors)
/// give a constant result, and which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elements {
    /// Each element is computed from the corresponding (broadcast)
    /// argument elements: uniform arguments give a uniform result, the op
    /// evaluated on scalars.
    Pointwise,
    /// Every element is one value: the op's attribute or its scalar
    /// argument.
    Filled,
    /// Elements of argument 0, moved, repeated or picked: a uniform
    /// argument 0 gives the same constant.
    Rearranged,
    /// The elements of all value arguments side by side: a constant when
    /// they all hold the same constant.
    Joined,
    /// Every element is zero (of the result's dtype), whatever the
    /// arguments hold.
    Zero,
    /// Anything else (reductions, contractions, running scans, created
    /// sequences, loops): not folded through uniformity.
    Mixed,
}

/// What an op does with storage (the Op contract of seed 002: its
/// `view_map` and `destroy_map`), as the planner reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// A graph parameter: the caller's storage.
    Param,
    /// No value arguments: created once per binding of the symbolic sizes.
    Created,
    /// Elementwise: may write its result over an argument of the result's
    /// type that nothing reads later (`destroy_map`).
    InPlace,
    /// Not elementwise, but its result is argument 0 with a part updated:
    /// it may write over argument 0 when nothing reads it later
    /// (`destroy_map = {0: [0]}`, as PyTensor's `IncSubtensor`), and
    /// computes into storage of its own otherwise.
    UpdatesArg0,
    /// Computes into storage of its own.
    Fresh,
    /// A view of argument 0 when the dtype is unchanged (`view_map`); a
    /// copy when the layout does not allow a view.
    View,
    /// A loop: one storage per result, filled step by step.
    Loop,
    /// One result of a multi-result node: a view of it.
    Projection,
}

use AttrKind as A;
use Slot::{Arg, Args, Attr};

/// Declares [`OpKind`] and its table: families (one head per member, named
/// by the family) and single ops with their names, each with its layout.
macro_rules! op_table {
    (
        families { $( $(#[$fdoc:meta])* $fam:ident($fty:ident) = [$($fslot:expr),*] => $fel:ident, $fst:ident; )+ }
        ops { $( $(#[$odoc:meta])* $op:ident = $name:literal [$($slot:expr),*] => $el:ident, $st:ident; )+ }
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

            /// What its result's elements are made of.
            pub fn elements(self) -> Elements {
                match self {
                    $( OpKind::$fam(_) => Elements::$fel, )+
                    $( OpKind::$op => Elements::$el, )+
                }
            }

            /// What it does with storage.
            pub fn storage(self) -> Storage {
                match self {
                    $( OpKind::$fam(_) => Storage::$fst, )+
                    $( OpKind::$op => Storage::$st, )+
                }
            }
        }
    };
}

op_table! {
    families {
        /// elementwise unary: `(exp x)`
        Unary(UnaryOp) = [Arg] => Pointwise, InPlace;
        /// elementwise binary: `(add a b)`
        Binary(BinaryOp) = [Arg, Arg] => Pointwise, InPlace;
        /// comparison: `(gt a b)`
        Compare(CompareOp) = [Arg, Arg] => Pointwise, InPlace;
        /// reduction: `(sum x)`, `(sum x axis)`
        Reduce(ReduceOp) = [Arg, Attr(A::OptAxis)] => Mixed, Fresh;
        /// running scan: `(cumsum x axis)`
        Cumulative(CumOp) = [Arg, Attr(A::AxisOrZero)] => Mixed, Fresh;
        /// normalization along an axis: `(softmax x axis)`
        Normalize(NormOp) = [Arg, Attr(A::Axis)] => Mixed, Fresh;
        /// list op: `(len x)`, `(unstack x)`, `(flatten l)`, `(nest x l)`
        /// (how many arguments each takes: `list_type::list_rule`)
        List(ListOp) = [Args] => Mixed, Fresh;
    }
    ops {
        /// `(where c a b)`
        Where = "where" [Arg, Arg, Arg] => Pointwise, Fresh;
        /// `(dot a b)`
        Dot = "dot" [Arg, Arg] => Mixed, Fresh;
        /// `(matmul a b)`
        Matmul = "matmul" [Arg, Arg] => Mixed, Fresh;
        /// `(transpose x axis ...)`
        Transpose = "transpose" [Arg, Attr(A::Perm)] => Rearranged, View;
        /// `(reshape x dim ...)`
        Reshape = "reshape" [Arg, Attr(A::Sizes)] => Rearranged, View;
        /// `(expand_dims x axis)`
        ExpandDims = "expand_dims" [Arg, Attr(A::Axis)] => Rearranged, View;
        /// `(stack x ...)`
        Stack = "stack" [Args] => Joined, Fresh;
        /// `(concat axis x ...)`
        Concat = "concat" [Attr(A::Axis), Args] => Joined, Fresh;
        /// `(index x i ...)`
        Index = "index" [Arg, Args] => Rearranged, View;
        /// `(slice x start stop step)`
        Slice = "slice" [Arg, Attr(A::Start), Attr(A::Stop), Attr(A::Step)] => Rearranged, View;
        /// `(fill type v)`
        Fill = "fill" [Attr(A::Type), Arg] => Filled, Fresh;
        /// `(zeros type)`
        Zeros = "zeros" [Attr(A::Type)] => Filled, Created;
        /// `(ones type)`
        Ones = "ones" [Attr(A::Type)] => Filled, Created;
        /// `(arange n)`
        Arange = "arange" [Attr(A::Size)] => Mixed, Created;
        /// `(tensor type v ...)`
        Tensor = "tensor" [Attr(A::Type), Attr(A::Literals)] => Mixed, Created;
        /// `(cast dtype x)`
        Cast = "cast" [Attr(A::DType), Arg] => Pointwise, View;
        /// `(stop_gradient x)`
        StopGradient = "stop_gradient" [Arg] => Rearranged, View;
        /// `(proj k scan)`: output k of a scan (terms only; programs bind
        /// a scan's outputs with a destructuring `let`)
        Proj = "proj" [Attr(A::Output), Arg] => Mixed, Projection;
        /// `(zeros_like x)`
        ZerosLike = "zeros_like" [Arg] => Zero, Fresh;
        /// `(key seed)`
        MakeKey = "key" [Arg] => Mixed, Fresh;
        /// `(split key n)`
        Split = "split" [Arg, Attr(A::Size)] => Mixed, Fresh;
        /// `(fold_in key i)`
        FoldIn = "fold_in" [Arg, Arg] => Mixed, Fresh;
        /// `(uniform key type)`
        Uniform = "uniform" [Arg, Attr(A::Type)] => Mixed, Fresh;
        /// `(normal key type)`
        Normal = "normal" [Arg, Attr(A::Type)] => Mixed, Fresh;
        /// `(bernoulli key p)`
        Bernoulli = "bernoulli" [Arg, Arg] => Mixed, Fresh;
        /// `(categorical key logits)`
        Categorical = "categorical" [Arg, Arg] => Mixed, Fresh;
        /// `(sum_to g x)`
        SumTo = "sum_to" [Arg, Arg] => Mixed, Fresh;
        /// `(linrec a u h0)`
        LinRec = "linrec" [Arg, Arg, Arg] => Mixed, Fresh;
        /// `(logmatmulexp a b)`
        LogMatMulExp = "logmatmulexp" [Arg, Arg] => Mixed, Fresh;
        /// `(inc_index x g i ...)`
        IncIndex = "inc_index" [Arg, Arg, Args] => Mixed, UpdatesArg0;
        /// `(inc_slice x g start stop step)`
        IncSlice = "inc_slice" [Arg, Arg, Attr(A::Start), Attr(A::Stop), Attr(A::Step)] => Mixed, UpdatesArg0;
        /// `(flip x axis)`
        Flip = "flip" [Arg, Attr(A::AxisOrZero)] => Rearranged, View;
        /// `(squeeze x axis)`
        Squeeze = "squeeze" [Arg, Attr(A::Axis)] => Rearranged, View;
        /// `(compress m x)`
        Compress = "compress" [Arg, Arg] => Mixed, Fresh;
        /// `(uncompress m g)`
        Uncompress = "uncompress" [Arg, Arg] => Mixed, Fresh;
        /// `(clip x lo hi)`
        Clip = "clip" [Arg, Arg, Arg] => Pointwise, Fresh;
        /// `(eye type)`
        Eye = "eye" [Attr(A::Type)] => Mixed, Created;
        /// `(outer a b)`
        Outer = "outer" [Arg, Arg] => Mixed, Fresh;
        /// `(set_index x v i ...)`
        SetIndex = "set_index" [Arg, Arg, Args] => Mixed, UpdatesArg0;
        /// `(set_slice x v start stop step)`
        SetSlice = "set_slice" [Arg, Arg, Attr(A::Start), Attr(A::Stop), Attr(A::Step)] => Mixed, UpdatesArg0;
        /// `(take x idx axis)`
        Take = "take" [Arg, Arg, Attr(A::AxisOrZero)] => Mixed, Fresh;
        /// `(inc_take x g idx axis)`
        IncTake = "inc_take" [Arg, Arg, Arg, Attr(A::AxisOrZero)] => Mixed, UpdatesArg0;
        /// `(set_take x v idx axis)`
        SetTake = "set_take" [Arg, Arg, Arg, Attr(A::AxisOrZero)] => Mixed, UpdatesArg0;
        /// `(solve a b)`
        Solve = "solve" [Arg, Arg] => Mixed, Fresh;
        /// `(solve_triangular a b lower)`
        SolveTriangular = "solve_triangular" [Arg, Arg, Attr(A::Flag)] => Mixed, Fresh;
        /// `(cholesky a)`
        Cholesky = "cholesky" [Arg] => Mixed, Fresh;
        /// `(inv a)`
        Inv = "inv" [Arg] => Mixed, Fresh;
        /// `(det a)`
        Det = "det" [Arg] => Mixed, Fresh;
        /// `(slogdet k a)`: result k of slogdet (terms only; programs
        /// bind both results with a destructuring `let`)
        Slogdet = "slogdet" [Attr(A::Output), Arg] => Mixed, Fresh;
    }
}

impl OpKind {
    /// The op head with this name (`proj` included: see
    /// [`OpKind::in_programs`]).
    pub fn from_name(name: &str) -> Option<OpKind> {
        OpKind::all().find(|k| k.name() == name)
    }

    /// Whether programs write this head as an expression (`proj` exists
    /// only in terms; `slogdet` is written only as the value of a
    /// destructuring `let`).
    pub fn in_programs(self) -> bool {
        !matches!(self, OpKind::Proj | OpKind::Slogdet)
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
            Op::Normalize(n, _) => OpKind::Normalize(*n),
            Op::List(l) => OpKind::List(*l),
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
            Op::ZerosLike => OpKind::ZerosLike,
            Op::MakeKey => OpKind::MakeKey,
            Op::Split(_) => OpKind::Split,
            Op::FoldIn => OpKind::FoldIn,
            Op::Uniform(_) => OpKind::Uniform,
            Op::Normal(_) => OpKind::Normal,
            Op::Bernoulli => OpKind::Bernoulli,
            Op::Categorical => OpKind::Categorical,
            Op::SumTo => OpKind::SumTo,
            Op::LinRec => OpKind::LinRec,
            Op::LogMatMulExp => OpKind::LogMatMulExp,
            Op::IncIndex => OpKind::IncIndex,
            Op::IncSlice { .. } => OpKind::IncSlice,
            Op::Flip(_) => OpKind::Flip,
            Op::Squeeze(_) => OpKind::Squeeze,
            Op::Compress => OpKind::Compress,
            Op::Uncompress => OpKind::Uncompress,
            Op::Clip => OpKind::Clip,
            Op::Eye(_) => OpKind::Eye,
            Op::Outer => OpKind::Outer,
            Op::SetIndex => OpKind::SetIndex,
            Op::SetSlice { .. } => OpKind::SetSlice,
            Op::Take(_) => OpKind::Take,
            Op::IncTake(_) => OpKind::IncTake,
            Op::SetTake(_) => OpKind::SetTake,
            Op::Solve => OpKind::Solve,
            Op::SolveTriangular(_) => OpKind::SolveTriangular,
            Op::Cholesky => OpKind::Cholesky,
            Op::Inv => OpKind::Inv,
            Op::Det => OpKind::Det,
            Op::Slogdet(_) => OpKind::Slogdet,
        })
    }

    /// Its head and its attribute values, one per attribute slot of the
    /// head's layout, in order; `None` as for [`Op::kind`].
    pub fn parts(&self) -> Option<(OpKind, Vec<AttrValue>)> {
        use AttrValue as V;
        let kind = self.kind()?;
        let attrs = match self {
            Op::Reduce(_, axis) => vec![V::OptInt(*axis)],
            Op::Cumulative(_, axis)
            | Op::Normalize(_, axis)
            | Op::ExpandDims(axis)
            | Op::Concat(axis)
            | Op::Flip(axis)
            | Op::Squeeze(axis)
            | Op::Take(axis)
            | Op::IncTake(axis)
            | Op::SetTake(axis) => vec![V::Int(*axis)],
            Op::Transpose(perm) => vec![V::Ints(perm.clone().unwrap_or_default())],
            Op::Reshape(dims) => vec![V::Sizes(dims.clone())],
            Op::Slice { start, stop, step }
            | Op::IncSlice { start, stop, step }
            | Op::SetSlice { start, stop, step } => {
                vec![V::OptInt(*start), V::OptInt(*stop), V::Int(*step)]
            }
            Op::Fill(t)
            | Op::Zeros(t)
            | Op::Ones(t)
            | Op::Eye(t)
            | Op::Uniform(t)
            | Op::Normal(t) => vec![V::Type(t.clone())],
            Op::Arange(n) | Op::Split(n) => vec![V::Size(n.clone())],
            Op::Tensor(t, vals) => vec![V::Type(t.clone()), V::Literals(vals.clone())],
            Op::Cast(d) => vec![V::DType(*d)],
            Op::Proj(k) | Op::Slogdet(k) => vec![V::Int(*k as i64)],
            Op::SolveTriangular(lower) => vec![V::Bool(*lower)],
            Op::Compress | Op::Uncompress | Op::Solve | Op::Cholesky | Op::Inv | Op::Det => {
                Vec::new()
            }
            Op::Unary(_)
            | Op::Binary(_)
            | Op::Compare(_)
            | Op::List(_)
            | Op::Where
            | Op::Dot
            | Op::Matmul
            | Op::Stack
            | Op::Index
            | Op::ZerosLike
            | Op::SumTo
            | Op::LinRec
            | Op::LogMatMulExp
            | Op::IncIndex
            | Op::Clip
            | Op::Outer
            | Op::SetIndex
            | Op::MakeKey
            | Op::FoldIn
            | Op::Bernoulli
            | Op::Categorical
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
            OpKind::Normalize(n) => Op::Normalize(n, a.next()?.int()?),
            OpKind::List(l) => Op::List(l),
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
            OpKind::ZerosLike => Op::ZerosLike,
            OpKind::MakeKey => Op::MakeKey,
            OpKind::Split => match a.next()? {
                AttrValue::Size(n) => Op::Split(n),
                _ => return None,
            },
            OpKind::FoldIn => Op::FoldIn,
            OpKind::Uniform => Op::Uniform(a.next()?.ty()?),
            OpKind::Normal => Op::Normal(a.next()?.ty()?),
            OpKind::Bernoulli => Op::Bernoulli,
            OpKind::Categorical => Op::Categorical,
            OpKind::SumTo => Op::SumTo,
            OpKind::LinRec => Op::LinRec,
            OpKind::LogMatMulExp => Op::LogMatMulExp,
            OpKind::IncIndex => Op::IncIndex,
            OpKind::IncSlice => Op::IncSlice {
                start: a.next()?.opt_int()?,
                stop: a.next()?.opt_int()?,
                step: a.next()?.int()?,
            },
            OpKind::Flip => Op::Flip(a.next()?.int()?),
            OpKind::Squeeze => Op::Squeeze(a.next()?.int()?),
            OpKind::Compress => Op::Compress,
            OpKind::Uncompress => Op::Uncompress,
            OpKind::Clip => Op::Clip,
            OpKind::Eye => Op::Eye(a.next()?.ty()?),
            OpKind::Outer => Op::Outer,
            OpKind::SetIndex => Op::SetIndex,
            OpKind::SetSlice => Op::SetSlice {
                start: a.next()?.opt_int()?,
                stop: a.next()?.opt_int()?,
                step: a.next()?.int()?,
            },
            OpKind::Take => Op::Take(a.next()?.int()?),
            OpKind::IncTake => Op::IncTake(a.next()?.int()?),
            OpKind::SetTake => Op::SetTake(a.next()?.int()?),
            OpKind::Solve => Op::Solve,
            OpKind::SolveTriangular => match a.next()? {
                AttrValue::Bool(lower) => Op::SolveTriangular(lower),
                _ => return None,
            },
            OpKind::Cholesky => Op::Cholesky,
            OpKind::Inv => Op::Inv,
            OpKind::Det => Op::Det,
            OpKind::Slogdet => match usize::try_from(a.next()?.int()?).ok()? {
                k @ (0 | 1) => Op::Slogdet(k),
                _ => return None,
            },
        };
        a.next().is_none().then_some(op)
    }

    /// What its result's elements are made of ([`OpKind::elements`] for
    /// the op heads).
    pub fn elements(&self) -> Elements {
        match self {
            Op::Literal(_) => Elements::Filled,
            Op::Input(_) | Op::Size(_) | Op::Scan(_) | Op::Grad => Elements::Mixed,
            op => op.kind().map_or(Elements::Mixed, OpKind::elements),
        }
    }

    /// What it does with storage ([`OpKind::storage`] for the op heads).
    pub fn storage(&self) -> Storage {
        match self {
            Op::Input(_) => Storage::Param,
            Op::Literal(_) | Op::Size(_) => Storage::Created,
            Op::Scan(_) => Storage::Loop,
            // Expanded before a program is planned; its kernel refuses it.
            Op::Grad => Storage::Fresh,
            op => op.kind().map_or(Storage::Fresh, OpKind::storage),
        }
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
