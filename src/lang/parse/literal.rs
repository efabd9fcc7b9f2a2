//! The leaves of the program syntax: literals, names, dtypes, sizes and
//! types.
//!
//! Owns: what a literal atom is ([`parse_literal`]: integers, floats,
//! `inf`/`nan`, booleans), what a name is ([`is_identifier`]), integer
//! parameters (axes, taps, `none`), dtypes, dimensions (declaring symbolic
//! sizes, which must not clash with bound names) and `(DTYPE DIM ...)`
//! types.
//! Must not: build nodes (see [`super::expr`]).

use super::{syntax, Parser};
use crate::lang::dtype::DType;
use crate::lang::error::LangError;
use crate::lang::op::Scalar;
use crate::lang::program::Span;
use crate::lang::sexp::Sexp;
use crate::lang::shape::{Dim, Type};

/// A literal atom, if `s` is one: integers, floats (with `.` or an
/// exponent, or `inf`/`nan`), `true`/`false`.
pub fn parse_literal(s: &str) -> Option<Result<Scalar, String>> {
    match s {
        "true" => return Some(Ok(Scalar::Bool(true))),
        "false" => return Some(Ok(Scalar::Bool(false))),
        "inf" | "+inf" => return Some(Ok(Scalar::F64(f64::INFINITY))),
        "-inf" => return Some(Ok(Scalar::F64(f64::NEG_INFINITY))),
        "nan" => return Some(Ok(Scalar::F64(f64::NAN))),
        _ => {}
    }
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let first = body.chars().next()?;
    if !(first.is_ascii_digit() || (first == '.' && body.len() > 1)) {
        return None;
    }
    if body.bytes().all(|b| b.is_ascii_digit()) {
        return Some(
            s.parse::<i64>()
                .map(Scalar::I64)
                .map_err(|_| format!("integer literal '{s}' does not fit in i64")),
        );
    }
    Some(
        s.parse::<f64>()
            .map(Scalar::F64)
            .map_err(|_| format!("'{s}' is not a number")),
    )
}

/// Names: a letter or `_` first, then letters, digits, `_`, `.`, `'`.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_alphabetic() || c == '_')
        && cs.all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '\'')
        && !matches!(s, "true" | "false" | "none" | "inf" | "nan")
}

impl Parser {
    pub(super) fn parse_dim(&mut self, s: &Sexp) -> Result<Dim, LangError> {
        match s.atom() {
            Some(a) => match parse_literal(a) {
                Some(Ok(Scalar::I64(n))) if n >= 0 => Ok(Dim::known(n)),
                Some(_) => Err(syntax(
                    s.span(),
                    format!("'{a}' is not a size: expected a non-negative integer or a symbol"),
                )),
                None if is_identifier(a) => {
                    self.declare_size(a, s.span())?;
                    Ok(Dim::sym(a))
                }
                None => Err(syntax(s.span(), format!("'{a}' is not a size"))),
            },
            None => Err(syntax(s.span(), "expected a size")),
        }
    }

    pub(super) fn declare_size(&mut self, name: &str, span: Span) -> Result<(), LangError> {
        if self.frames.iter().any(|f| f.names.contains_key(name)) {
            return Err(syntax(
                span,
                format!("'{name}' is a bound name; it cannot also be a symbolic size"),
            ));
        }
        self.sizes.insert(name.to_string());
        Ok(())
    }

    pub(super) fn parse_dtype(s: &Sexp) -> Result<DType, LangError> {
        s.atom()
            .and_then(DType::from_name)
            .ok_or_else(|| syntax(s.span(), "expected a dtype: f64, f32, i64, i32 or bool"))
    }

    /// The type of an input or a shared variable: a tensor type `(DTYPE
    /// DIM ...)` or a list type `(list T)` (SPEC §1 "Nested lists").
    pub(super) fn parse_decl_type(&mut self, s: &Sexp) -> Result<Type, LangError> {
        let parts = s.list().unwrap_or(&[]);
        if parts.first().and_then(|p| p.atom()) != Some("list") {
            return self.parse_type(s);
        }
        let [_, inner] = parts else {
            return Err(syntax(
                s.span(),
                format!(
                    "(list T) takes one element type, got {}",
                    parts.len().saturating_sub(1)
                ),
            ));
        };
        Ok(self.parse_decl_type(inner)?.listed())
    }

    pub(super) fn parse_type(&mut self, s: &Sexp) -> Result<Type, LangError> {
        let parts = s
            .list()
            .filter(|p| !p.is_empty())
            .ok_or_else(|| syntax(s.span(), "expected a type (DTYPE DIM ...)"))?;
        let dtype = Self::parse_dtype(&parts[0])?;
        let shape = parts[1..]
            .iter()
            .map(|d| self.parse_dim(d))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Type::new(dtype, shape))
    }

    pub(super) fn int_param(s: &Sexp, what: &str) -> Result<i64, LangError> {
        match s.atom().and_then(parse_literal) {
            Some(Ok(Scalar::I64(n))) => Ok(n),
            _ => Err(syntax(s.span(), format!("expected an integer {what}"))),
        }
    }

    pub(super) fn opt_int_param(s: &Sexp, what: &str) -> Result<Option<i64>, LangError> {
        if s.atom() == Some("none") {
            return Ok(None);
        }
        Self::int_param(s, &format!("{what} or none")).map(Some)
    }
}
