//! Element types and NumPy 2 type promotion (NEP 50).
//!
//! Owns: the four numeric dtypes and the key dtype, their names, and the
//! promotion rules used by every op's type inference. Must not: know about
//! shapes or programs.

use std::fmt;

/// An element type. Ordered by NumPy's "kind" hierarchy: bool < int < float,
/// and within floats by width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`
    Bool,
    /// `i32`: NumPy's `int32`, wrapping arithmetic (SPEC §1)
    I32,
    /// `i64`
    I64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `key`: a random key (SPEC §1 "Random numbers"), not a number. Its
    /// elements are stored as `i64` (the 64 bits of a Philox4x32-10 key,
    /// see [`DType::storage`]); only the random ops, the shape and
    /// selection ops and loops take it.
    Key,
}

/// The three NumPy kinds that matter for promotion with weak (Python) scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// booleans
    Bool,
    /// signed integers
    Int,
    /// floating point
    Float,
    /// random keys (never promoted with the others)
    Key,
}

impl DType {
    /// Every numeric dtype, in promotion order ([`DType::Key`] is not one).
    pub const ALL: [DType; 5] = [DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64];

    /// The name used in program text (`f64`, `f32`, `i64`, `i32`, `bool`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::Key => "key",
        }
    }

    /// Parses a dtype name as written in programs.
    pub fn from_name(s: &str) -> Option<DType> {
        Some(match s {
            "bool" => DType::Bool,
            "i32" => DType::I32,
            "i64" => DType::I64,
            "f32" => DType::F32,
            "f64" => DType::F64,
            "key" => DType::Key,
            _ => return None,
        })
    }

    /// NumPy's name of this dtype (`float64`, ...), as `numpy.dtype.name` prints it.
    pub fn numpy_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::Key => "int64",
        }
    }

    /// The kind of this dtype.
    pub fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::I32 | DType::I64 => Kind::Int,
            DType::F32 | DType::F64 => Kind::Float,
            DType::Key => Kind::Key,
        }
    }

    /// True for `f32` and `f64`.
    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }

    /// Size of one element in bytes.
    pub fn size_bytes(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::I64 | DType::F64 | DType::Key => 8,
            DType::I32 | DType::F32 => 4,
        }
    }

    /// True for the integer dtypes (`i32`, `i64`).
    pub fn is_int(self) -> bool {
        self.kind() == Kind::Int
    }

    /// The range of an integer dtype as `i64` bounds (`None` for the others).
    pub fn int_range(self) -> Option<(i64, i64)> {
        match self {
            DType::I32 => Some((i32::MIN as i64, i32::MAX as i64)),
            DType::I64 => Some((i64::MIN, i64::MAX)),
            _ => None,
        }
    }

    /// True for [`DType::Key`].
    pub fn is_key(self) -> bool {
        self == DType::Key
    }

    /// The dtype a runtime value of this dtype is stored as: a key's
    /// elements are `i64` (its 64 bits), every other dtype is itself.
    pub fn storage(self) -> DType {
        match self {
            DType::Key => DType::I64,
            d => d,
        }
    }

    /// The dtype a unary float function (exp, sin, ...) returns for this
    /// input: floats keep their width, integers and booleans give `f64`.
    /// (NumPy gives `float16` for booleans; eqscan has no `float16`.)
    pub fn to_float(self) -> DType {
        match self {
            DType::F32 => DType::F32,
            _ => DType::F64,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Promotes two strong (array) dtypes, as `numpy.result_type` does:
/// the larger of the two, except that an integer with `f32` gives `f64`
/// (NumPy 2: `int32 + float32` and `int64 + float32` are `float64`).
pub fn promote_strong(a: DType, b: DType) -> DType {
    use DType::*;
    match (a, b) {
        (I64 | I32, F32) | (F32, I64 | I32) => F64,
        _ => a.max(b),
    }
}

/// Promotes a strong dtype with a weak one (a Python scalar), after NEP 50:
/// the weak operand only matters when its kind is higher than the strong one's.
pub fn promote_weak(strong: DType, weak: DType) -> DType {
    if weak.kind() <= strong.kind() {
        strong
    } else {
        match weak.kind() {
            Kind::Float => DType::F64,
            Kind::Int => DType::I64,
            Kind::Bool | Kind::Key => strong,
        }
    }
}

/// Promotes two operands, each possibly weak. Returns the dtype and whether
/// the result is itself weak (only when both operands are).
pub fn promote(a: DType, a_weak: bool, b: DType, b_weak: bool) -> (DType, bool) {
    match (a_weak, b_weak) {
        (false, false) => (promote_strong(a, b), false),
        (false, true) => (promote_weak(a, b), false),
        (true, false) => (promote_weak(b, a), false),
        (true, true) => (a.max(b), true),
    }
}

/// The dtype a comparison of two operands computes in: their promotion,
/// except that an `i32` against a weak integer (a Python int) compares in
/// `i64`, as NumPy 2 compares an `int32` array with any Python integer
/// exactly (`np.int32(1) < 3000000000` is `True`, not an error).
pub fn compare_dtype(a: DType, a_weak: bool, b: DType, b_weak: bool) -> DType {
    let (d, _) = promote(a, a_weak, b, b_weak);
    let weak_int = (a_weak && a == DType::I64) || (b_weak && b == DType::I64);
    if d == DType::I32 && weak_int {
        DType::I64
    } else {
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn strong_promotion_follows_numpy_result_type() {
        assert_eq!(promote_strong(I64, F32), F64);
        assert_eq!(promote_strong(F32, F32), F32);
        assert_eq!(promote_strong(Bool, I64), I64);
        assert_eq!(promote_strong(Bool, F32), F32);
        assert_eq!(promote_strong(F32, F64), F64);
        // numpy 2.4: int32 with bool, int64, float32, float64
        assert_eq!(promote_strong(I32, Bool), I32);
        assert_eq!(promote_strong(I32, I64), I64);
        assert_eq!(promote_strong(F32, I32), F64);
        assert_eq!(promote_strong(I32, F64), F64);
    }

    #[test]
    fn weak_literals_do_not_upcast_their_kind() {
        // np.float32 array * 2.0 -> float32; int64 array + 0.5 -> float64
        assert_eq!(promote(F32, false, F64, true), (F32, false));
        assert_eq!(promote(I64, false, F64, true), (F64, false));
        assert_eq!(promote(Bool, false, I64, true), (I64, false));
        assert_eq!(promote(F32, false, I64, true), (F32, false));
        assert_eq!(promote(I64, true, F64, true), (F64, true));
        // int32 array + 1 -> int32; + 1.0 -> float64; bool array + 1 -> int64
        assert_eq!(promote(I32, false, I64, true), (I32, false));
        assert_eq!(promote(I64, true, I32, false), (I32, false));
        assert_eq!(promote(I32, false, F64, true), (F64, false));
    }
}
