//! The op set, defined once.
//!
//! Owns: [`Op`] and its parameter enums, the names ops have in program text.
//! Every stage (type inference, printer, executor, and later the e-graph and
//! cost model) matches on [`Op`] exhaustively, so a new op does not compile
//! until every stage handles it. Must not: hold type rules or kernels.

use super::dtype::DType;
use super::program::Scan;
use super::shape::{Dim, Type};
use std::fmt;

/// Elementwise unary ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `e^x`
    Exp,
    /// natural log
    Log,
    /// `log(1 + x)`
    Log1p,
    /// square root
    Sqrt,
    /// hyperbolic tangent
    Tanh,
    /// `1 / (1 + e^-x)`
    Sigmoid,
    /// sine
    Sin,
    /// cosine
    Cos,
    /// absolute value
    Abs,
    /// -1, 0 or 1
    Sign,
}

/// Elementwise binary arithmetic ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// true division `a / b`
    Div,
    /// `a ** b`
    Pow,
    /// elementwise maximum (NaN-propagating)
    Maximum,
    /// elementwise minimum (NaN-propagating)
    Minimum,
}

/// Elementwise comparisons; all return `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CompareOp {
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a == b`
    Eq,
    /// `a != b`
    Ne,
}

/// Reductions over one axis or all axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReduceOp {
    /// sum
    Sum,
    /// arithmetic mean
    Mean,
    /// maximum
    Max,
    /// minimum
    Min,
    /// product
    Prod,
}

/// Running (inclusive) scans along an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CumOp {
    /// running sum
    Cumsum,
    /// running product
    Cumprod,
}

/// A scalar literal as written in a program. `F64` literals compare by bits,
/// so a program holding `nan` still equals itself.
#[derive(Clone, Copy, Debug)]
pub enum Scalar {
    /// `true` / `false`
    Bool(bool),
    /// an integer literal
    I64(i64),
    /// a literal with `.` or an exponent (or `inf`, `nan`)
    F64(f64),
}

impl Scalar {
    /// The dtype a literal has on its own (before weak promotion).
    pub fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::I64(_) => DType::I64,
            Scalar::F64(_) => DType::F64,
        }
    }

    /// The value as `f64`.
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::I64(i) => i as f64,
            Scalar::F64(x) => x,
        }
    }
}

impl PartialEq for Scalar {
    fn eq(&self, other: &Scalar) -> bool {
        match (self, other) {
            (Scalar::Bool(a), Scalar::Bool(b)) => a == b,
            (Scalar::I64(a), Scalar::I64(b)) => a == b,
            (Scalar::F64(a), Scalar::F64(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl fmt::Display for Scalar {
    /// Prints a literal so that it parses back to the same value and dtype.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::I64(i) => write!(f, "{i}"),
            Scalar::F64(x) => {
                if x.is_nan() {
                    f.write_str("nan")
                } else if x.is_infinite() {
                    f.write_str(if *x > 0.0 { "inf" } else { "-inf" })
                } else {
                    // Debug prints the shortest text that reads back to the
                    // same bits, always with `.` or an exponent.
                    write!(f, "{x:?}")
                }
            }
        }
    }
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
    /// The k-th result of a multi-result node (a scan); 1 argument.
    Proj(usize),
}

impl UnaryOp {
    /// Every unary op.
    pub const ALL: [UnaryOp; 11] = [
        UnaryOp::Neg,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Log1p,
        UnaryOp::Sqrt,
        UnaryOp::Tanh,
        UnaryOp::Sigmoid,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Abs,
        UnaryOp::Sign,
    ];

    /// The name in program text.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Log1p => "log1p",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Abs => "abs",
            UnaryOp::Sign => "sign",
        }
    }
}

impl BinaryOp {
    /// Every binary op.
    pub const ALL: [BinaryOp; 7] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
    ];

    /// The name in program text.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Pow => "pow",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
        }
    }
}

impl CompareOp {
    /// Every comparison.
    pub const ALL: [CompareOp; 6] = [
        CompareOp::Gt,
        CompareOp::Ge,
        CompareOp::Lt,
        CompareOp::Le,
        CompareOp::Eq,
        CompareOp::Ne,
    ];

    /// The name in program text.
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
        }
    }
}

impl ReduceOp {
    /// Every reduction.
    pub const ALL: [ReduceOp; 5] = [
        ReduceOp::Sum,
        ReduceOp::Mean,
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::Prod,
    ];

    /// The name in program text.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Prod => "prod",
        }
    }
}

impl CumOp {
    /// Both running scans.
    pub const ALL: [CumOp; 2] = [CumOp::Cumsum, CumOp::Cumprod];

    /// The name in program text.
    pub fn name(self) -> &'static str {
        match self {
            CumOp::Cumsum => "cumsum",
            CumOp::Cumprod => "cumprod",
        }
    }
}

/// The exact result of integer arithmetic on `i64` operands, for the
/// callers that must not wrap: constant folding, and the typing of
/// arithmetic on integer literals (which are exact in NumPy, as Python
/// integers are under NEP 50).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExactInt {
    /// The op is not one whose integer result can overflow (or the
    /// operands do not fit it).
    NotArithmetic,
    /// The exact result, which fits in `i64`.
    Value(i64),
    /// The exact result does not fit in `i64`: the kernel would wrap.
    Overflows,
}

impl ExactInt {
    /// `op` applied to `i64` operands `xs`, exactly: `neg`, `abs`, `add`,
    /// `sub`, `mul` and `pow` (a negative exponent is not arithmetic here;
    /// the type rules reject it).
    pub fn of(op: &Op, xs: &[i64]) -> ExactInt {
        let r = match (op, xs) {
            (Op::Unary(UnaryOp::Neg), [a]) => a.checked_neg(),
            (Op::Unary(UnaryOp::Abs), [a]) => a.checked_abs(),
            (Op::Binary(BinaryOp::Add), [a, b]) => a.checked_add(*b),
            (Op::Binary(BinaryOp::Sub), [a, b]) => a.checked_sub(*b),
            (Op::Binary(BinaryOp::Mul), [a, b]) => a.checked_mul(*b),
            (Op::Binary(BinaryOp::Pow), [a, b]) => match u32::try_from(*b) {
                Ok(e) => a.checked_pow(e),
                // 0, 1 and -1 stay bounded under any exponent.
                Err(_) if *b > 0 && (-1..=1).contains(a) => a.checked_pow((*b & 1) as u32 + 2),
                Err(_) if *b > 0 => None,
                Err(_) => return ExactInt::NotArithmetic,
            },
            _ => return ExactInt::NotArithmetic,
        };
        r.map_or(ExactInt::Overflows, ExactInt::Value)
    }
}

impl Op {
    /// The head word of the op in program text (`add`, `scan`, ...).
    /// Leaves that print as atoms give a descriptive word.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Input(_) => "input",
            Op::Literal(_) => "literal",
            Op::Size(_) => "size",
            Op::Unary(u) => u.name(),
            Op::Binary(b) => b.name(),
            Op::Compare(c) => c.name(),
            Op::Where => "where",
            Op::Reduce(r, _) => r.name(),
            Op::Cumulative(c, _) => c.name(),
            Op::Dot => "dot",
            Op::Matmul => "matmul",
            Op::Transpose(_) => "transpose",
            Op::Reshape(_) => "reshape",
            Op::ExpandDims(_) => "expand_dims",
            Op::Stack => "stack",
            Op::Concat(_) => "concat",
            Op::Index => "index",
            Op::Slice { .. } => "slice",
            Op::Fill(_) => "fill",
            Op::Zeros(_) => "zeros",
            Op::Ones(_) => "ones",
            Op::Arange(_) => "arange",
            Op::Tensor(..) => "tensor",
            Op::Cast(_) => "cast",
            Op::Scan(_) => "scan",
            Op::Proj(_) => "proj",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_int_refuses_what_would_wrap() {
        let mul = Op::Binary(BinaryOp::Mul);
        let add = Op::Binary(BinaryOp::Add);
        let pow = Op::Binary(BinaryOp::Pow);
        let neg = Op::Unary(UnaryOp::Neg);
        assert_eq!(ExactInt::of(&mul, &[1 << 32, 1 << 32]), ExactInt::Overflows);
        assert_eq!(
            ExactInt::of(&mul, &[1 << 31, 1 << 31]),
            ExactInt::Value(1 << 62)
        );
        assert_eq!(ExactInt::of(&add, &[i64::MAX, 1]), ExactInt::Overflows);
        assert_eq!(
            ExactInt::of(&add, &[i64::MAX, -1]),
            ExactInt::Value(i64::MAX - 1)
        );
        assert_eq!(ExactInt::of(&neg, &[i64::MIN]), ExactInt::Overflows);
        assert_eq!(ExactInt::of(&neg, &[i64::MAX]), ExactInt::Value(-i64::MAX));
        assert_eq!(ExactInt::of(&pow, &[2, 63]), ExactInt::Overflows);
        assert_eq!(ExactInt::of(&pow, &[2, 62]), ExactInt::Value(1 << 62));
        assert_eq!(
            ExactInt::of(&pow, &[-1, (1 << 40) + 1]),
            ExactInt::Value(-1)
        );
        assert_eq!(ExactInt::of(&pow, &[3, 1 << 40]), ExactInt::Overflows);
        assert_eq!(ExactInt::of(&pow, &[2, -1]), ExactInt::NotArithmetic);
        assert_eq!(
            ExactInt::of(&Op::Binary(BinaryOp::Maximum), &[i64::MAX, 1]),
            ExactInt::NotArithmetic
        );
    }
}
