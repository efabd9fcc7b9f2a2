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
    pub const ALL: [DType; 4] = [DType::Bool, DType::I64, DType::F32, DType::F64];

    /// The name used in program text (`f64`, `f32`, `i64`, `bool`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
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
            DType::I64 => Kind::Int,
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
            DType::F32 => 4,
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
/// the larger of the two, except that `i64` with `f32` gives `f64`.
pub fn promote_strong(a: DType, b: DType) -> DType {
    use DType::*;
    match (a, b) {
        (I64, F32) | (F32, I64) => F64,
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
    }

    #[test]
    fn weak_literals_do_not_upcast_their_kind() {
        // np.float32 array * 2.0 -> float32; int64 array + 0.5 -> float64
        assert_eq!(promote(F32, false, F64, true), (F32, false));
        assert_eq!(promote(I64, false, F64, true), (F64, false));
        assert_eq!(promote(Bool, false, I64, true), (I64, false));
        assert_eq!(promote(F32, false, I64, true), (F32, false));
        assert_eq!(promote(I64, true, F64, true), (F64, true));
    }
}
