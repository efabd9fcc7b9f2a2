//! Static shapes with symbolic sizes, and tensor types.
//!
//! Owns: [`Dim`] (a size known at compile time, a symbol bound when the
//! program runs, an affine combination of symbols, or unknown), [`Type`]
//! (dtype + shape + weakness), and broadcasting of static shapes.
//! Must not: evaluate programs; runtime shapes are checked by the executor.

use super::dtype::DType;
use std::collections::BTreeMap;
use std::fmt;

/// One static size: `constant + Σ coeff·symbol`, or [`Dim::Unknown`] when
/// the size cannot be expressed (e.g. a strided slice of a symbolic axis).
/// Sizes with no symbols are plain integers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// An affine size; `terms` is sorted by symbol and has no zero coefficient.
    Affine {
        /// The constant part.
        constant: i64,
        /// `(symbol, coefficient)` pairs, sorted by symbol.
        terms: Vec<(String, i64)>,
    },
    /// A size known only when the program runs.
    Unknown,
}

impl Dim {
    /// A constant size.
    pub fn known(n: i64) -> Dim {
        Dim::Affine {
            constant: n,
            terms: Vec::new(),
        }
    }

    /// The smallest value the size can take (symbols are sizes, at least
    /// 0): its constant when no symbol has a negative coefficient, else
    /// (and for an unknown size) 0.
    pub fn least(&self) -> i64 {
        match self {
            Dim::Affine { constant, terms } if terms.iter().all(|(_, c)| *c >= 0) => {
                (*constant).max(0)
            }
            _ => 0,
        }
    }

    /// A symbolic size named `s`.
    pub fn sym(s: &str) -> Dim {
        Dim::Affine {
            constant: 0,
            terms: vec![(s.to_string(), 1)],
        }
    }

    /// The value if the size has no symbols.
    pub fn as_known(&self) -> Option<i64> {
        match self {
            Dim::Affine { constant, terms } if terms.is_empty() => Some(*constant),
            _ => None,
        }
    }

    /// The symbol name if the size is exactly one symbol.
    pub fn as_sym(&self) -> Option<&str> {
        match self {
            Dim::Affine { constant: 0, terms } if terms.len() == 1 && terms[0].1 == 1 => {
                Some(&terms[0].0)
            }
            _ => None,
        }
    }

    /// True when this is the constant 1 (broadcastable).
    pub fn is_one(&self) -> bool {
        self.as_known() == Some(1)
    }

    fn from_map(constant: i64, map: BTreeMap<String, i64>) -> Dim {
        Dim::Affine {
            constant,
            terms: map.into_iter().filter(|(_, c)| *c != 0).collect(),
        }
    }

    fn combine(&self, other: &Dim, sign: i64) -> Dim {
        match (self, other) {
            (
                Dim::Affine {
                    constant: c1,
                    terms: t1,
                },
                Dim::Affine {
                    constant: c2,
                    terms: t2,
                },
            ) => {
                let mut map: BTreeMap<String, i64> = t1.iter().cloned().collect();
                for (s, c) in t2 {
                    *map.entry(s.clone()).or_insert(0) += sign * c;
                }
                Dim::from_map(c1 + sign * c2, map)
            }
            _ => Dim::Unknown,
        }
    }

    /// `self + other`.
    pub fn add(&self, other: &Dim) -> Dim {
        self.combine(other, 1)
    }

    /// `self - other`.
    pub fn sub(&self, other: &Dim) -> Dim {
        self.combine(other, -1)
    }

    /// `self * k` for a constant `k`.
    pub fn scale(&self, k: i64) -> Dim {
        match self {
            Dim::Affine { constant, terms } => Dim::from_map(
                constant * k,
                terms.iter().map(|(s, c)| (s.clone(), c * k)).collect(),
            ),
            Dim::Unknown => Dim::Unknown,
        }
    }

    /// `self * other` when at least one is constant; unknown otherwise.
    pub fn mul(&self, other: &Dim) -> Dim {
        match (self.as_known(), other.as_known()) {
            (Some(a), _) => other.scale(a),
            (_, Some(b)) => self.scale(b),
            _ => Dim::Unknown,
        }
    }

    /// True when the two sizes are certainly different (for every binding).
    pub fn provably_differs(&self, other: &Dim) -> bool {
        match self.sub(other) {
            Dim::Affine { constant, terms } => terms.is_empty() && constant != 0,
            Dim::Unknown => false,
        }
    }

    /// Evaluates the size under a binding of the symbols. `None` when a
    /// symbol is unbound or the size is unknown. Negative results clamp to
    /// 0, results beyond `i64::MAX` to `i64::MAX` (so that a huge `--dim`
    /// makes a huge size, never a wrapped one).
    pub fn eval(&self, bind: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        match self {
            Dim::Affine { constant, terms } => {
                // Coefficients stay below 2^60 and values below 2^63: each
                // product fits in i128, and so does a sum of a few.
                let mut v = *constant as i128;
                for (s, c) in terms {
                    v = v.saturating_add((*c as i128).saturating_mul(bind(s)? as i128));
                }
                Some(v.clamp(0, i64::MAX as i128) as i64)
            }
            Dim::Unknown => None,
        }
    }

    /// The value of the affine expression itself with every symbol bound,
    /// before [`Dim::eval`]'s clamp at 0 (`T-1` is -1 at `T = 0`), or
    /// `None` when a symbol is unbound or the size is unknown.
    pub fn eval_signed(&self, bind: &dyn Fn(&str) -> Option<i64>) -> Option<i128> {
        match self {
            Dim::Affine { constant, terms } => {
                let mut v = *constant as i128;
                for (s, c) in terms {
                    v = v.saturating_add((*c as i128).saturating_mul(bind(s)? as i128));
                }
                Some(v)
            }
            Dim::Unknown => None,
        }
    }

    /// The symbols this size mentions.
    pub fn symbols(&self) -> impl Iterator<Item = &str> {
        let terms: &[(String, i64)] = match self {
            Dim::Affine { terms, .. } => terms,
            Dim::Unknown => &[],
        };
        terms.iter().map(|(s, _)| s.as_str())
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Unknown => f.write_str("?"),
            Dim::Affine { constant, terms } => {
                if terms.is_empty() {
                    return write!(f, "{constant}");
                }
                for (i, (s, c)) in terms.iter().enumerate() {
                    let c = *c;
                    if i > 0 {
                        f.write_str(if c < 0 { "-" } else { "+" })?;
                    } else if c < 0 {
                        f.write_str("-")?;
                    }
                    if c.abs() != 1 {
                        write!(f, "{}*", c.abs())?;
                    }
                    f.write_str(s)?;
                }
                if *constant > 0 {
                    write!(f, "+{constant}")?;
                } else if *constant < 0 {
                    write!(f, "{constant}")?;
                }
                Ok(())
            }
        }
    }
}

/// A static shape: one [`Dim`] per axis; empty for a scalar.
pub type Shape = Vec<Dim>;

/// Formats a shape as `(T, 64)`.
pub fn shape_str(shape: &[Dim]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}

/// The static type of a value: dtype, shape, and whether it is a weak
/// scalar (a literal, which NEP 50 promotion treats like a Python scalar).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Type {
    /// Element type.
    pub dtype: DType,
    /// Static shape.
    pub shape: Shape,
    /// True for literals and values computed only from literals.
    pub weak: bool,
    /// How many lists wrap the tensor type: 0 for a tensor, `d` for a
    /// `(list ... (list (DTYPE DIM ...)))` of depth `d`, whose innermost
    /// elements are tensors of `dtype` and `shape` (SPEC §1 "Nested
    /// lists"; see `super::list`).
    pub list: u32,
}

impl Type {
    /// A strong tensor type.
    pub fn new(dtype: DType, shape: Shape) -> Type {
        Type {
            dtype,
            shape,
            weak: false,
            list: 0,
        }
    }

    /// A strong scalar type.
    pub fn scalar(dtype: DType) -> Type {
        Type::new(dtype, Vec::new())
    }

    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Whether this is a list type (`(list T)`), not a tensor.
    pub fn is_list(&self) -> bool {
        self.list > 0
    }

    /// `(list T)` for this type T.
    pub fn listed(mut self) -> Type {
        self.list += 1;
        self.weak = false;
        self
    }

    /// The type of an element of a list type (one depth less); a tensor
    /// type is returned as it is.
    pub fn element(&self) -> Type {
        let mut t = self.clone();
        t.list = t.list.saturating_sub(1);
        t
    }

    /// The tensor type at the innermost depth of a list (itself for a
    /// tensor).
    pub fn innermost(&self) -> Type {
        let mut t = self.clone();
        t.list = 0;
        t
    }

    /// The same type, made strong.
    pub fn strong(mut self) -> Type {
        self.weak = false;
        self
    }
}

impl fmt::Display for Type {
    /// `f64(3, 4)` for a tensor, `(list f64(4,))` for a list.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.list {
            f.write_str("(list ")?;
        }
        write!(f, "{}{}", self.dtype, shape_str(&self.shape))?;
        for _ in 0..self.list {
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Broadcasts two static shapes with NumPy's rules. Sizes that are not
/// provably compatible but may be at run time (a symbol against a constant)
/// are accepted; the executor checks them. Returns `None` when the shapes
/// can never broadcast.
pub fn broadcast_shapes(a: &[Dim], b: &[Dim]) -> Option<Shape> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let da = (i + a.len()).checked_sub(n).map(|j| &a[j]);
        let db = (i + b.len()).checked_sub(n).map(|j| &b[j]);
        let d = match (da, db) {
            (Some(x), None) | (None, Some(x)) => x.clone(),
            (Some(x), Some(y)) => {
                if x == y || y.is_one() {
                    x.clone()
                } else if x.is_one() {
                    y.clone()
                } else if x.provably_differs(y) {
                    return None;
                } else if x.as_known().is_some() {
                    x.clone()
                } else if y.as_known().is_some() {
                    y.clone()
                } else {
                    Dim::Unknown
                }
            }
            (None, None) => unreachable!("i < max(len)"),
        };
        out.push(d);
    }
    Some(out)
}

#[cfg(test)]
mod tests {

    #[test]
    fn least_is_the_smallest_value_a_size_takes() {
        let t = Dim::sym("T");
        assert_eq!(Dim::known(4).least(), 4);
        assert_eq!(t.least(), 0);
        assert_eq!(t.add(&Dim::known(2)).least(), 2);
        assert_eq!(Dim::known(3).sub(&t).least(), 0);
        assert_eq!(Dim::Unknown.least(), 0);
    }

    use super::*;

    #[test]
    fn affine_arithmetic_and_display() {
        let t = Dim::sym("T");
        assert_eq!(t.sub(&Dim::known(2)).to_string(), "T-2");
        assert_eq!(t.add(&t).to_string(), "2*T");
        assert_eq!(t.sub(&t), Dim::known(0));
        assert!(t.add(&Dim::known(1)).provably_differs(&t));
        assert!(!t.provably_differs(&Dim::known(3)));
    }

    #[test]
    fn broadcasting_static_shapes() {
        let s = |v: &[i64]| v.iter().map(|&n| Dim::known(n)).collect::<Vec<_>>();
        assert_eq!(broadcast_shapes(&s(&[3, 1]), &s(&[4])), Some(s(&[3, 4])));
        assert_eq!(broadcast_shapes(&s(&[3]), &s(&[4])), None);
        let t = vec![Dim::sym("T"), Dim::known(4)];
        assert_eq!(broadcast_shapes(&t, &s(&[4])), Some(t.clone()));
    }
}
