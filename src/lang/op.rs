//! The op families and scalar literals.
//!
//! Owns: the op families (unary, binary, comparison, reduction, running
//! scan), each member declared once with its name in program text and the
//! facts its family declares ([`UnaryDType`], [`Work`]), which the type
//! rule and the cost model read by matching on the fact, so a new member
//! is one line here plus its kernel and its range; [`Scalar`], a literal;
//! [`ExactInt`], integer arithmetic that must not wrap. [`Op`] itself, every
//! op head and its layout are in [`super::op_table`]. Must not: hold type
//! rules or kernels.

use super::dtype::DType;
use super::op_table::Op;
use std::fmt;

/// Declares a family of ops that share one layout (elementwise unary,
/// binary, ...): the enum, its `ALL` list and each member's name in program
/// text, one line per member, so the list cannot miss a member.
///
/// A family may declare facts every member has, `[fact: Type, ...]` after
/// its name; each member's line then gives its value of each fact, in the
/// same order (`Exp = "exp" [Float, Transcendental],`, each value a variant
/// of the fact's enum), and the family gets one method per fact. A member
/// line with a value missing or left over does not compile.
macro_rules! op_family {
    (
        $(#[$doc:meta])*
        $family:ident $( [ $( $(#[$fdoc:meta])* $fact:ident : $fty:ident ),+ ] )? {
            $( $(#[$mdoc:meta])* $member:ident = $name:literal $( [ $($val:ident),+ ] )?, )+
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $family {
            $( $(#[$mdoc])* $member, )+
        }

        impl $family {
            /// Every member, in declaration order.
            pub const ALL: &'static [$family] = &[$($family::$member),+];

            /// The name in program text.
            pub fn name(self) -> &'static str {
                match self {
                    $( $family::$member => $name, )+
                }
            }
        }

        op_family!(@facts $family
            [ $($( $(#[$fdoc])* $fact : $fty ),+)? ]
            [ $( $member [ $($($val),+)? ] )+ ]);
    };
    // No fact left: every member's values are used up.
    (@facts $family:ident [] [ $( $member:ident [] )+ ]) => {};
    // The first fact: each member's first value; then the rest.
    (@facts $family:ident
        [ $(#[$fdoc:meta])* $fact:ident : $fty:ident
          $(, $(#[$rdoc:meta])* $rfact:ident : $rty:ident )* ]
        [ $( $member:ident [ $first:ident $(, $rest:ident)* ] )+ ]
    ) => {
        impl $family {
            $(#[$fdoc])*
            pub fn $fact(self) -> $fty {
                match self {
                    $( $family::$member => $fty::$first, )+
                }
            }
        }

        op_family!(@facts $family
            [ $( $(#[$rdoc])* $rfact : $rty ),* ]
            [ $( $member [ $($rest),* ] )+ ]);
    };
}

/// How the result dtype of an elementwise unary op follows its operand's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryDType {
    /// Float-valued: a float operand keeps its dtype, a bool or integer
    /// one gives `f64` (exp, log, sin, ...).
    Float,
    /// The operand's dtype, bool included (abs).
    Same,
    /// The operand's dtype; not defined on bool (neg, sign).
    Signed,
}

/// The arithmetic one result element of an elementwise op costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// One simple instruction: an add, a compare, a negation, a square
    /// root.
    Simple,
    /// A transcendental function, computed by a series or a library call
    /// (exp, log, tanh, sin, pow, ...).
    Transcendental,
}

op_family! {
    /// Elementwise unary ops.
    UnaryOp [
        /// How the result dtype follows the operand's.
        dtype_rule: UnaryDType,
        /// The work of one result element.
        work: Work
    ] {
        /// `-x`
        Neg = "neg" [Signed, Simple],
        /// `e^x`
        Exp = "exp" [Float, Transcendental],
        /// natural log
        Log = "log" [Float, Transcendental],
        /// `log(1 + x)`
        Log1p = "log1p" [Float, Transcendental],
        /// square root
        Sqrt = "sqrt" [Float, Simple],
        /// hyperbolic tangent
        Tanh = "tanh" [Float, Transcendental],
        /// `1 / (1 + e^-x)`
        Sigmoid = "sigmoid" [Float, Transcendental],
        /// sine
        Sin = "sin" [Float, Transcendental],
        /// cosine
        Cos = "cos" [Float, Transcendental],
        /// absolute value
        Abs = "abs" [Same, Simple],
        /// -1, 0 or 1
        Sign = "sign" [Signed, Simple],
        /// `e^x - 1`, accurate near 0
        Expm1 = "expm1" [Float, Transcendental],
        /// `log(1 + e^x)`, without overflow
        Softplus = "softplus" [Float, Transcendental],
        /// the largest integer not above `x` (integers and bools unchanged)
        Floor = "floor" [Same, Simple],
        /// the smallest integer not below `x` (integers and bools unchanged)
        Ceil = "ceil" [Same, Simple],
        /// the nearest integer, halves to even (integers unchanged)
        Round = "round" [Signed, Simple],
        /// the error function
        Erf = "erf" [Float, Transcendental],
        /// `1 - erf(x)`, accurate where it is tiny
        Erfc = "erfc" [Float, Transcendental],
        /// `log|Γ(x)|`
        Gammaln = "gammaln" [Float, Transcendental],
        /// `Γ'(x) / Γ(x)`
        Digamma = "digamma" [Float, Transcendental],
        /// the derivative of digamma (SciPy's `polygamma(1, x)`)
        Trigamma = "trigamma" [Float, Transcendental],
    }
}

op_family! {
    /// Elementwise binary arithmetic ops.
    BinaryOp [
        /// The work of one result element.
        work: Work
    ] {
        /// `a + b`
        Add = "add" [Simple],
        /// `a - b`
        Sub = "sub" [Simple],
        /// `a * b`
        Mul = "mul" [Simple],
        /// true division `a / b`
        Div = "div" [Simple],
        /// `a ** b`
        Pow = "pow" [Transcendental],
        /// elementwise maximum (NaN-propagating)
        Maximum = "maximum" [Simple],
        /// elementwise minimum (NaN-propagating)
        Minimum = "minimum" [Simple],
        /// `a mod b` with the sign of `b` (NumPy's `mod`; 0 for an integer
        /// `b` of 0)
        Mod = "mod" [Simple],
        /// `floor(a / b)` (NumPy's `floor_divide`; 0 for an integer `b` of 0)
        FloorDiv = "floor_div" [Simple],
    }
}

op_family! {
    /// Elementwise comparisons; all return `bool`.
    CompareOp {
        /// `a > b`
        Gt = "gt",
        /// `a >= b`
        Ge = "ge",
        /// `a < b`
        Lt = "lt",
        /// `a <= b`
        Le = "le",
        /// `a == b`
        Eq = "eq",
        /// `a != b`
        Ne = "ne",
    }
}

op_family! {
    /// Reductions over one axis or all axes.
    ReduceOp {
        /// sum
        Sum = "sum",
        /// arithmetic mean
        Mean = "mean",
        /// maximum
        Max = "max",
        /// minimum
        Min = "min",
        /// product
        Prod = "prod",
        /// `log(sum(exp(x)))`, max-shifted as SciPy's `logsumexp`: finite
        /// wherever the result is
        LogSumExp = "logsumexp",
        /// the index (`i64`) of the first maximum (of the first NaN); all
        /// axes flattened without an axis
        Argmax = "argmax",
        /// the index (`i64`) of the first minimum (of the first NaN)
        Argmin = "argmin",
        /// `bool`: every element is non-zero (NaN counts as non-zero)
        All = "all",
        /// `bool`: some element is non-zero
        Any = "any",
    }
}

op_family! {
    /// Normalizations along an axis (the result has the operand's shape).
    NormOp {
        /// `exp(x - m) / sum(exp(x - m))`, `m` the max along the axis
        Softmax = "softmax",
        /// `(x - m) - log(sum(exp(x - m)))`
        LogSoftmax = "log_softmax",
    }
}

op_family! {
    /// Running (inclusive) scans along an axis.
    CumOp {
        /// running sum
        Cumsum = "cumsum",
        /// running product
        Cumprod = "cumprod",
    }
}

op_family! {
    /// Plain ops on nested lists (SPEC §1 "Nested lists"; type rules in
    /// `super::list_type`, run by `crate::exec::list`). `index` and
    /// `stack` take lists too, as the same ops that take tensors.
    ListOp {
        /// `(len X)`: a list's length, or a tensor's leading length (i64)
        Len = "len",
        /// `(unstack X)`: a tensor's rows along axis 0, as a list
        Unstack = "unstack",
        /// `(flatten L)`: a list of lists as one list, the inner lists
        /// concatenated
        Flatten = "flatten",
        /// `(nest X L)`: the tensors of X (its rows, or a list's
        /// innermost tensors) in L's nesting, as many as L holds (how
        /// `forall` keeps its operand's row splits on its result)
        Nest = "nest",
        /// `(compress_innermost MASK L)`: L's innermost tensors where the
        /// bool vector MASK (one entry per innermost tensor, in order)
        /// holds, L's nesting kept (a list left empty stays, empty): how
        /// `filterall` on a list of lists runs its predicate in one loop
        CompressInnermost = "compress_innermost",
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_lines_give_each_member_its_facts() {
        assert_eq!(UnaryOp::Exp.dtype_rule(), UnaryDType::Float);
        assert_eq!(UnaryOp::Exp.work(), Work::Transcendental);
        assert_eq!(UnaryOp::Sqrt.dtype_rule(), UnaryDType::Float);
        assert_eq!(UnaryOp::Sqrt.work(), Work::Simple);
        assert_eq!(UnaryOp::Abs.dtype_rule(), UnaryDType::Same);
        assert_eq!(UnaryOp::Neg.dtype_rule(), UnaryDType::Signed);
        assert_eq!(UnaryOp::Sign.dtype_rule(), UnaryDType::Signed);
        assert_eq!(BinaryOp::Pow.work(), Work::Transcendental);
        assert_eq!(BinaryOp::Div.work(), Work::Simple);
        let transcendental: Vec<&str> = UnaryOp::ALL
            .iter()
            .filter(|u| u.work() == Work::Transcendental)
            .map(|u| u.name())
            .collect();
        assert_eq!(
            transcendental,
            [
                "exp", "log", "log1p", "tanh", "sigmoid", "sin", "cos", "expm1", "softplus", "erf",
                "erfc", "gammaln", "digamma", "trigamma"
            ]
        );
        assert_eq!(UnaryOp::Floor.dtype_rule(), UnaryDType::Same);
        assert_eq!(UnaryOp::Round.dtype_rule(), UnaryDType::Signed);
        assert_eq!(BinaryOp::Mod.work(), Work::Simple);
    }

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
