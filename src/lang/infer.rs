//! Type and shape inference for every op but `scan` (the make_node check).
//!
//! Owns: the type rules of the op set: which argument types an op accepts
//! and the dtype, static shape and weakness of its result, after NumPy 2
//! (NEP 50 promotion, broadcasting, `numpy.dot`/`numpy.matmul`, Python slice
//! semantics). Must not: evaluate programs, or type `input`, `scan` and
//! `proj` (the parser does).
//!
//! Sizes are symbolic ([`Dim`]); a rule only rejects arguments that can never
//! be valid, and only claims a result size that is right for every binding
//! of the symbols (with negative sizes read as 0, as [`Dim::eval`] does).
//! Anything it cannot decide is accepted with [`Dim::Unknown`] or a size that
//! holds whenever the program runs without error; the executor checks the
//! rest at run time.

use super::dtype::{promote, promote_strong, DType};
use super::op::{BinaryOp, CumOp, Op, ReduceOp, Scalar, UnaryOp};
use super::shape::{broadcast_shapes, shape_str, Dim, Shape, Type};

/// The largest constant or coefficient a size may have. Keeping sizes well
/// inside `i64` lets affine arithmetic on two sizes never overflow.
const SIZE_LIMIT: i64 = 1 << 60;

/// The result type of `op` applied to arguments of types `args`.
/// `consts[i]` is the value of argument `i` when it is a literal.
/// The error is a sentence without location naming the shapes/dtypes.
pub fn infer(op: &Op, args: &[&Type], consts: &[Option<Scalar>]) -> Result<Type, String> {
    for a in args {
        check_limits(&a.shape, a)?;
    }
    match op {
        Op::Input(_) | Op::Scan(_) | Op::Proj(_) => Err(format!(
            "internal: `{}` is typed by the parser, not by infer",
            op.name()
        )),
        Op::Literal(s) => {
            let [] = fixed(args)?;
            Ok(Type {
                dtype: s.dtype(),
                shape: Vec::new(),
                weak: true,
            })
        }
        Op::Size(_) => {
            let [] = fixed(args)?;
            Ok(Type::scalar(DType::I64))
        }
        Op::Unary(u) => {
            let [x] = fixed(args)?;
            unary(*u, x)
        }
        Op::Binary(b) => {
            let [x, y] = fixed(args)?;
            binary(*b, x, y)
        }
        Op::Compare(_) => {
            let [x, y] = fixed(args)?;
            let shape = broadcast2(x, y)?;
            Ok(Type {
                dtype: DType::Bool,
                shape,
                weak: x.weak && y.weak,
            })
        }
        Op::Where => {
            let [c, x, y] = fixed(args)?;
            where_(c, x, y)
        }
        Op::Reduce(r, axis) => {
            let [x] = fixed(args)?;
            reduce(*r, *axis, x)
        }
        Op::Cumulative(c, axis) => {
            let [x] = fixed(args)?;
            cumulative(*c, *axis, x)
        }
        Op::Dot => {
            let [a, b] = fixed(args)?;
            dot(a, b)
        }
        Op::Matmul => {
            let [a, b] = fixed(args)?;
            matmul(a, b)
        }
        Op::Transpose(perm) => {
            let [x] = fixed(args)?;
            transpose(perm.as_deref(), x)
        }
        Op::Reshape(dims) => {
            let [x] = fixed(args)?;
            reshape(x, dims)
        }
        Op::ExpandDims(ax) => {
            let [x] = fixed(args)?;
            expand_dims(*ax, x)
        }
        Op::Stack => stack(args),
        Op::Concat(ax) => concat(*ax, args),
        Op::Index => index(args, consts),
        Op::Slice { start, stop, step } => {
            let [x] = fixed(args)?;
            slice(x, *start, *stop, *step)
        }
        Op::Fill(ty) => {
            let [v] = fixed(args)?;
            if v.ndim() != 0 {
                return Err(format!(
                    "the fill value must be a scalar, got {v} with {} dimension(s)",
                    v.ndim()
                ));
            }
            check_created(ty)?;
            Ok(ty.clone().strong())
        }
        Op::Zeros(ty) | Op::Ones(ty) => {
            let [] = fixed(args)?;
            check_created(ty)?;
            Ok(ty.clone().strong())
        }
        Op::Arange(d) => {
            let [] = fixed(args)?;
            arange(d)
        }
        Op::Tensor(ty, values) => {
            let [] = fixed(args)?;
            tensor(ty, values)
        }
        Op::Cast(dt) => {
            let [x] = fixed(args)?;
            Ok(Type::new(*dt, x.shape.clone()))
        }
    }
}

// ---------------------------------------------------------------- helpers

/// The arguments as an array of exactly `N`, or an arity error.
fn fixed<'a, const N: usize>(args: &[&'a Type]) -> Result<[&'a Type; N], String> {
    <[&Type; N]>::try_from(args).map_err(|_| {
        format!(
            "expects {N} argument{}, got {}",
            if N == 1 { "" } else { "s" },
            args.len()
        )
    })
}

/// Rejects sizes whose constants or coefficients exceed [`SIZE_LIMIT`].
fn check_limits(shape: &[Dim], ty: &dyn std::fmt::Display) -> Result<(), String> {
    for d in shape {
        if !within_limit(d) {
            return Err(format!(
                "size {d} in {ty} is too large (sizes are limited to 2^60)"
            ));
        }
    }
    Ok(())
}

fn within_limit(d: &Dim) -> bool {
    match d {
        Dim::Affine { constant, terms } => {
            constant.unsigned_abs() <= SIZE_LIMIT as u64
                && terms
                    .iter()
                    .all(|(_, c)| c.unsigned_abs() <= SIZE_LIMIT as u64)
        }
        Dim::Unknown => true,
    }
}

/// `a + b`, or `None` when a constant or coefficient would leave the limit.
fn add_dims(a: &Dim, b: &Dim) -> Option<Dim> {
    let d = a.add(b);
    within_limit(&d).then_some(d)
}

/// `d + k` for a constant computed in `i128`, or `None` past the limit.
fn offset_dim(d: &Dim, k: i128) -> Option<Dim> {
    let k = i64::try_from(k)
        .ok()
        .filter(|k| k.unsigned_abs() <= SIZE_LIMIT as u64)?;
    add_dims(d, &Dim::known(k))
}

/// `d * k`, or `None` past the limit.
fn scale_dim(d: &Dim, k: i128) -> Option<Dim> {
    match d {
        Dim::Affine { constant, terms } => {
            let fits = |c: i64| {
                (c as i128)
                    .checked_mul(k)
                    .is_some_and(|v| v.unsigned_abs() <= SIZE_LIMIT as u128)
            };
            if fits(*constant) && terms.iter().all(|(_, c)| fits(*c)) {
                Some(d.scale(i64::try_from(k).ok()?))
            } else {
                None
            }
        }
        Dim::Unknown => Some(Dim::Unknown),
    }
}

/// Normalizes an axis (negative counts from the end) for an operand with
/// `ndim` axes.
fn norm_axis(axis: i64, ndim: usize, shape: &[Dim]) -> Result<usize, String> {
    let n = ndim as i128;
    let a = axis as i128;
    let a = if a < 0 { a + n } else { a };
    if (0..n).contains(&a) {
        Ok(a as usize)
    } else {
        Err(format!(
            "axis {axis} is out of range for a {ndim}-D operand {}",
            shape_str(shape)
        ))
    }
}

/// Broadcasts the shapes of two operands.
fn broadcast2(a: &Type, b: &Type) -> Result<Shape, String> {
    broadcast_shapes(&a.shape, &b.shape).ok_or_else(|| {
        format!(
            "shapes {} and {} do not broadcast",
            shape_str(&a.shape),
            shape_str(&b.shape)
        )
    })
}

/// Two sizes that must be equal (stack, concat): the one to keep, or `None`
/// when they certainly differ. A known size wins over a symbolic one; two
/// different symbolic sizes must be equal when the program runs, so either
/// is right then.
fn unify(a: &Dim, b: &Dim) -> Option<Dim> {
    if a.provably_differs(b) {
        None
    } else if a.as_known().is_some() || *b == Dim::Unknown {
        Some(a.clone())
    } else if b.as_known().is_some() || *a == Dim::Unknown {
        Some(b.clone())
    } else {
        Some(a.clone())
    }
}

/// Checks the type of a created tensor (fill, zeros, ones): every size known
/// and non-negative, or symbolic.
fn check_created(ty: &Type) -> Result<(), String> {
    check_limits(&ty.shape, ty)?;
    for d in &ty.shape {
        match d {
            Dim::Unknown => {
                return Err(format!(
                    "the sizes of a created tensor must be integers or symbols, got {ty}"
                ))
            }
            _ => {
                if let Some(n) = d.as_known().filter(|n| *n < 0) {
                    return Err(format!("negative size {n} in {ty} is not allowed"));
                }
            }
        }
    }
    Ok(())
}

// -------------------------------------------------------------- elementwise

fn unary(u: UnaryOp, x: &Type) -> Result<Type, String> {
    let dtype = match u {
        UnaryOp::Neg => {
            if x.dtype == DType::Bool {
                return Err(format!(
                    "is not defined for the bool operand {x} (NumPy forbids it); \
                     use (eq X false) for logical not"
                ));
            }
            x.dtype
        }
        UnaryOp::Sign => {
            if x.dtype == DType::Bool {
                return Err(format!("is not defined for the bool operand {x}"));
            }
            x.dtype
        }
        UnaryOp::Abs => x.dtype,
        UnaryOp::Exp
        | UnaryOp::Log
        | UnaryOp::Log1p
        | UnaryOp::Sqrt
        | UnaryOp::Tanh
        | UnaryOp::Sigmoid
        | UnaryOp::Sin
        | UnaryOp::Cos => x.dtype.to_float(),
    };
    Ok(Type {
        dtype,
        shape: x.shape.clone(),
        weak: x.weak,
    })
}

fn binary(b: BinaryOp, x: &Type, y: &Type) -> Result<Type, String> {
    let shape = broadcast2(x, y)?;
    let (promoted, weak) = promote(x.dtype, x.weak, y.dtype, y.weak);
    let dtype = match b {
        BinaryOp::Div => promoted.to_float(),
        BinaryOp::Sub if promoted == DType::Bool => {
            return Err(format!(
                "subtracting bool operands ({x} and {y}) is not defined (NumPy forbids it); \
                 use (ne A B) for exclusive or"
            ))
        }
        // NumPy gives int8 for bool ** bool; the closest dtype here is i64.
        BinaryOp::Pow if promoted == DType::Bool => DType::I64,
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Pow
        | BinaryOp::Maximum
        | BinaryOp::Minimum => promoted,
    };
    Ok(Type { dtype, shape, weak })
}

fn where_(c: &Type, x: &Type, y: &Type) -> Result<Type, String> {
    if c.dtype != DType::Bool {
        return Err(format!(
            "condition must be bool, got {c}; compare it first, e.g. (ne COND 0)"
        ));
    }
    let shape = broadcast_shapes(&c.shape, &x.shape)
        .and_then(|s| broadcast_shapes(&s, &y.shape))
        .ok_or_else(|| {
            format!(
                "shapes {}, {} and {} do not broadcast",
                shape_str(&c.shape),
                shape_str(&x.shape),
                shape_str(&y.shape)
            )
        })?;
    let (dtype, weak) = promote(x.dtype, x.weak, y.dtype, y.weak);
    Ok(Type {
        dtype,
        shape,
        weak: weak && c.weak,
    })
}

// --------------------------------------------------------------- reductions

fn reduce(r: ReduceOp, axis: Option<i64>, x: &Type) -> Result<Type, String> {
    let dtype = match r {
        ReduceOp::Sum | ReduceOp::Prod if x.dtype == DType::Bool => DType::I64,
        ReduceOp::Mean => x.dtype.to_float(),
        ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Max | ReduceOp::Min => x.dtype,
    };
    let (shape, reduced): (Shape, Vec<&Dim>) = match axis {
        None => (Vec::new(), x.shape.iter().collect()),
        Some(ax) => {
            let a = norm_axis(ax, x.ndim(), &x.shape)?;
            let mut shape = x.shape.clone();
            shape.remove(a);
            (shape, x.shape.get(a).into_iter().collect())
        }
    };
    // NumPy rejects a max/min over an empty axis unless the result is
    // itself empty; reject it only when that is certain.
    if matches!(r, ReduceOp::Max | ReduceOp::Min)
        && reduced.iter().any(|d| d.as_known() == Some(0))
        && shape.iter().all(|d| d.as_known().is_some_and(|n| n > 0))
    {
        return Err(format!(
            "the zero-size operand {x} has no {} (the reduction has no identity)",
            r.name()
        ));
    }
    Ok(Type::new(dtype, shape))
}

fn cumulative(c: CumOp, axis: i64, x: &Type) -> Result<Type, String> {
    let _ = c;
    norm_axis(axis, x.ndim(), &x.shape)?;
    let dtype = if x.dtype == DType::Bool {
        DType::I64
    } else {
        x.dtype
    };
    Ok(Type::new(dtype, x.shape.clone()))
}

// ----------------------------------------------------------- linear algebra

fn not_aligned(a: &Type, b: &Type, ia: usize, ib: usize) -> String {
    let da = a.shape.get(ia).map_or("?".to_string(), |d| d.to_string());
    let db = b.shape.get(ib).map_or("?".to_string(), |d| d.to_string());
    format!(
        "shapes {} and {} are not aligned: {da} (dim {ia}) != {db} (dim {ib})",
        shape_str(&a.shape),
        shape_str(&b.shape)
    )
}

fn dot(a: &Type, b: &Type) -> Result<Type, String> {
    for t in [a, b] {
        if t.ndim() > 2 {
            return Err(format!(
                "takes 0-, 1- or 2-D operands, got {t} with {} dimensions; \
                 use matmul for stacks of matrices",
                t.ndim()
            ));
        }
    }
    let dtype = promote_strong(a.dtype, b.dtype);
    let check = |ia: usize, ib: usize| -> Result<(), String> {
        match (a.shape.get(ia), b.shape.get(ib)) {
            (Some(x), Some(y)) if !x.provably_differs(y) => Ok(()),
            _ => Err(not_aligned(a, b, ia, ib)),
        }
    };
    let shape = match (a.shape.as_slice(), b.shape.as_slice()) {
        ([], other) | (other, []) => other.to_vec(),
        ([_], [_]) => {
            check(0, 0)?;
            Vec::new()
        }
        ([m, _], [_]) => {
            check(1, 0)?;
            vec![m.clone()]
        }
        ([_], [_, n]) => {
            check(0, 0)?;
            vec![n.clone()]
        }
        ([m, _], [_, n]) => {
            check(1, 0)?;
            vec![m.clone(), n.clone()]
        }
        _ => return Err("internal: dot operand with more than 2 dimensions".into()),
    };
    Ok(Type::new(dtype, shape))
}

fn matmul(a: &Type, b: &Type) -> Result<Type, String> {
    for t in [a, b] {
        if t.ndim() == 0 {
            return Err(format!(
                "does not accept the 0-D operand {t}; use mul to scale by a scalar"
            ));
        }
    }
    let dtype = promote_strong(a.dtype, b.dtype);
    // Split each operand into batch sizes and its matrix (rows, cols); a 1-D
    // `a` is a row (1, k), a 1-D `b` a column (k, 1).
    let (a_batch, a_rows, a_inner) = match a.shape.as_slice() {
        [k] => (&[][..], None, k),
        [batch @ .., m, k] => (batch, Some(m), k),
        [] => return Err("internal: 0-D matmul operand".into()),
    };
    let (b_batch, b_inner, b_cols) = match b.shape.as_slice() {
        [k] => (&[][..], k, None),
        [batch @ .., k, n] => (batch, k, Some(n)),
        [] => return Err("internal: 0-D matmul operand".into()),
    };
    if a_inner.provably_differs(b_inner) {
        return Err(format!(
            "the inner sizes of {} and {} differ: {a_inner} != {b_inner}",
            shape_str(&a.shape),
            shape_str(&b.shape)
        ));
    }
    let mut shape = broadcast_shapes(a_batch, b_batch).ok_or_else(|| {
        format!(
            "the batch sizes {} of {} and {} of {} do not broadcast",
            shape_str(a_batch),
            shape_str(&a.shape),
            shape_str(b_batch),
            shape_str(&b.shape)
        )
    })?;
    shape.extend(a_rows.cloned());
    shape.extend(b_cols.cloned());
    Ok(Type::new(dtype, shape))
}

// -------------------------------------------------------------------- shape

fn transpose(perm: Option<&[i64]>, x: &Type) -> Result<Type, String> {
    let n = x.ndim();
    let shape = match perm {
        None => x.shape.iter().rev().cloned().collect(),
        Some(perm) => {
            let bad = || {
                let p: Vec<String> = perm.iter().map(|a| a.to_string()).collect();
                format!(
                    "axes ({}) are not a permutation of the {n} axes of {}",
                    p.join(", "),
                    shape_str(&x.shape)
                )
            };
            if perm.len() != n {
                return Err(bad());
            }
            let mut seen = vec![false; n];
            let mut shape = Vec::with_capacity(n);
            for &p in perm {
                let a = norm_axis(p, n, &x.shape).map_err(|_| bad())?;
                match seen.get_mut(a) {
                    Some(s) if !*s => *s = true,
                    _ => return Err(bad()),
                }
                shape.extend(x.shape.get(a).cloned());
            }
            shape
        }
    };
    Ok(Type::new(x.dtype, shape))
}

/// An element count as `constant × Π atoms`, each atom a symbolic size with
/// the common factor of its coefficients taken out (`4*T` is `4 × T`).
struct Count {
    constant: i128,
    atoms: Vec<Dim>,
    /// True when the count cannot be written this way (an unknown size, or
    /// a constant too large).
    opaque: bool,
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Count {
    fn of<'a>(dims: impl IntoIterator<Item = &'a Dim>) -> Count {
        let mut c = Count {
            constant: 1,
            atoms: Vec::new(),
            opaque: false,
        };
        for d in dims {
            let factor = match d {
                Dim::Unknown => {
                    c.opaque = true;
                    continue;
                }
                Dim::Affine { constant, terms } if terms.is_empty() => *constant as i128,
                Dim::Affine { constant, terms } => {
                    let g = terms
                        .iter()
                        .fold(constant.unsigned_abs() as u128, |g, (_, k)| {
                            gcd(g, k.unsigned_abs() as u128)
                        });
                    // g > 0 because some coefficient is non-zero.
                    let g = g.max(1) as i64;
                    c.atoms.push(Dim::Affine {
                        constant: constant / g,
                        terms: terms.iter().map(|(s, k)| (s.clone(), k / g)).collect(),
                    });
                    g as i128
                }
            };
            match c.constant.checked_mul(factor) {
                Some(v) => c.constant = v,
                None => c.opaque = true,
            }
        }
        c.atoms.sort();
        c
    }
}

/// `big \ small` as multisets of sorted atoms, or `None` when `small` is not
/// contained in `big`.
fn atoms_minus(big: &[Dim], small: &[Dim]) -> Option<Vec<Dim>> {
    let mut rest: Vec<Dim> = big.to_vec();
    for a in small {
        let i = rest.iter().position(|b| b == a)?;
        rest.remove(i);
    }
    Some(rest)
}

fn reshape(x: &Type, dims: &[Dim]) -> Result<Type, String> {
    check_limits(dims, &shape_str(dims))?;
    let mut infer_at = None;
    for (i, d) in dims.iter().enumerate() {
        match d.as_known() {
            Some(-1) if infer_at.is_some() => {
                return Err(format!("only one size may be -1, got {}", shape_str(dims)))
            }
            Some(-1) => infer_at = Some(i),
            Some(n) if n < 0 => {
                return Err(format!(
                    "size {n} in {} is negative (only -1 is allowed)",
                    shape_str(dims)
                ))
            }
            _ if *d == Dim::Unknown => {
                return Err(format!(
                    "sizes must be integers, symbols or -1, got {}",
                    shape_str(dims)
                ))
            }
            _ => {}
        }
    }
    let cannot = || format!("cannot reshape {x} into {}", shape_str(dims));
    let have = Count::of(&x.shape);
    let want = Count::of(
        dims.iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != infer_at)
            .map(|(_, d)| d),
    );
    let comparable = !have.opaque && !want.opaque;
    let Some(at) = infer_at else {
        if comparable && have.atoms == want.atoms && have.constant != want.constant {
            return Err(cannot());
        }
        return Ok(Type::new(x.dtype, dims.to_vec()));
    };
    if !want.opaque && want.constant == 0 {
        return Err(format!("{}: -1 is ambiguous next to a size 0", cannot()));
    }
    let inferred = if !comparable {
        Dim::Unknown
    } else if let Some(rest) = atoms_minus(&have.atoms, &want.atoms) {
        if want.constant != 0 && have.constant % want.constant == 0 {
            let k = have.constant / want.constant;
            match rest.as_slice() {
                [] => {
                    if k < 0 {
                        return Err(cannot());
                    }
                    i64::try_from(k)
                        .ok()
                        .filter(|k| *k <= SIZE_LIMIT)
                        .map_or(Dim::Unknown, Dim::known)
                }
                [atom] => scale_dim(atom, k).unwrap_or(Dim::Unknown),
                _ => Dim::Unknown,
            }
        } else if rest.is_empty() {
            return Err(cannot());
        } else {
            Dim::Unknown
        }
    } else {
        Dim::Unknown
    };
    let mut shape = dims.to_vec();
    if let Some(slot) = shape.get_mut(at) {
        *slot = inferred;
    }
    Ok(Type::new(x.dtype, shape))
}

fn expand_dims(ax: i64, x: &Type) -> Result<Type, String> {
    let n = x.ndim() as i128;
    let a = ax as i128;
    let pos = if a < 0 { a + n + 1 } else { a };
    if !(0..=n).contains(&pos) {
        return Err(format!(
            "axis {ax} is out of range for expanding a {n}-D operand {} \
             (allowed: {} to {n})",
            shape_str(&x.shape),
            -(n + 1)
        ));
    }
    let mut shape = x.shape.clone();
    shape.insert(pos as usize, Dim::known(1));
    Ok(Type::new(x.dtype, shape))
}

/// The promoted dtype of several operands (NEP 50), as a strong dtype.
fn promote_all(args: &[&Type]) -> Option<DType> {
    let (first, rest) = args.split_first()?;
    let (dt, _) = rest.iter().fold((first.dtype, first.weak), |(d, w), t| {
        promote(d, w, t.dtype, t.weak)
    });
    Some(dt)
}

fn stack(args: &[&Type]) -> Result<Type, String> {
    let Some((first, rest)) = args.split_first() else {
        return Err("expects at least 1 argument, got 0".into());
    };
    let mut shape = first.shape.clone();
    for t in rest {
        let differ = || {
            format!(
                "all operands must have the same shape, got {} and {}",
                shape_str(&first.shape),
                shape_str(&t.shape)
            )
        };
        if t.ndim() != shape.len() {
            return Err(differ());
        }
        for (s, d) in shape.iter_mut().zip(&t.shape) {
            *s = unify(s, d).ok_or_else(differ)?;
        }
    }
    let dtype = promote_all(args).unwrap_or(first.dtype);
    shape.insert(0, Dim::known(args.len() as i64));
    Ok(Type::new(dtype, shape))
}

fn concat(ax: i64, args: &[&Type]) -> Result<Type, String> {
    let Some((first, rest)) = args.split_first() else {
        return Err("expects at least 1 operand, got 0".into());
    };
    if first.ndim() == 0 {
        return Err(format!("cannot concatenate the 0-D operand {first}"));
    }
    let a = norm_axis(ax, first.ndim(), &first.shape)?;
    let mut shape = first.shape.clone();
    for t in rest {
        if t.ndim() != first.ndim() {
            return Err(format!(
                "all operands must have the same number of dimensions, \
                 but {} has {} and {} has {}",
                shape_str(&first.shape),
                first.ndim(),
                shape_str(&t.shape),
                t.ndim()
            ));
        }
        for (i, (s, d)) in shape.iter_mut().zip(&t.shape).enumerate() {
            if i == a {
                *s = add_dims(s, d).unwrap_or(Dim::Unknown);
            } else {
                *s = unify(s, d).ok_or_else(|| {
                    format!(
                        "sizes on axis {i} differ: {} and {} (only axis {a} may differ)",
                        shape_str(&first.shape),
                        shape_str(&t.shape)
                    )
                })?;
            }
        }
    }
    let dtype = promote_all(args).unwrap_or(first.dtype);
    Ok(Type::new(dtype, shape))
}

// ----------------------------------------------------------------- indexing

fn index(args: &[&Type], consts: &[Option<Scalar>]) -> Result<Type, String> {
    let Some((x, indices)) = args.split_first() else {
        return Err("expects an operand and at least 1 index, got no arguments".into());
    };
    if indices.is_empty() {
        return Err(format!("expects at least 1 index after the operand {x}"));
    }
    if indices.len() > x.ndim() {
        return Err(format!(
            "too many indices ({}) for a {}-D operand {}",
            indices.len(),
            x.ndim(),
            shape_str(&x.shape)
        ));
    }
    for (axis, t) in indices.iter().enumerate() {
        if t.dtype != DType::I64 || t.ndim() != 0 {
            return Err(format!(
                "indices must be i64 scalars, got {t} for axis {axis}"
            ));
        }
        let value = consts.get(axis + 1).copied().flatten();
        let size = x.shape.get(axis).and_then(Dim::as_known);
        if let (Some(Scalar::I64(v)), Some(n)) = (value, size) {
            if !(-n..n).contains(&v) {
                return Err(format!(
                    "index {v} is out of range for axis {axis} of size {n}"
                ));
            }
        }
    }
    let shape = x.shape.get(indices.len()..).unwrap_or(&[]).to_vec();
    Ok(Type::new(x.dtype, shape))
}

/// The length of `range(n)[start:stop:step]`, after Python's `slice.indices`.
fn py_slice_len(n: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> i64 {
    let n = n.max(0) as i128;
    let step = step as i128;
    let (lower, upper) = if step < 0 { (-1, n - 1) } else { (0, n) };
    let clamp = |v: Option<i64>, default: i128| match v {
        None => default,
        Some(v) if v < 0 => (v as i128 + n).max(lower),
        Some(v) => (v as i128).min(upper),
    };
    let start = clamp(start, if step < 0 { upper } else { lower });
    let stop = clamp(stop, if step < 0 { lower } else { upper });
    let len = if step > 0 && stop > start {
        (stop - start - 1) / step + 1
    } else if step < 0 && start > stop {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    // len <= n <= i64::MAX
    i64::try_from(len).unwrap_or(0)
}

/// The length of a slice of a symbolic size `d`, when one affine size is
/// right for every binding (negative results read as 0); otherwise unknown.
fn symbolic_slice_len(d: &Dim, start: Option<i64>, stop: Option<i64>, step: i64) -> Dim {
    let (s, e) = (start.map(i128::from), stop.map(i128::from));
    let exact = if step > 0 {
        let s = s.unwrap_or(0);
        match e {
            // Both bounds from the same end, stop not after start: empty.
            Some(e) if (s >= 0 && e >= 0 || s < 0 && e < 0) && e <= s => Some(Dim::known(0)),
            _ if step != 1 => None,
            // d[s:] and d[s:-c]: d - s (- c).
            None if s >= 0 => offset_dim(d, -s),
            Some(e) if s >= 0 && e < 0 => offset_dim(d, e - s),
            _ => None,
        }
    } else {
        match (s, e) {
            (Some(s), Some(e)) if (s >= 0 && e >= 0 || s < 0 && e < 0) && s <= e => {
                Some(Dim::known(0))
            }
            _ if step != -1 => None,
            // d[::-1]: d.
            (None, None) => Some(d.clone()),
            // d[:c:-1]: d - 1 - c.
            (None, Some(e)) if e >= 0 => offset_dim(d, -1 - e),
            // d[s::-1] with s < 0: d + s + 1.
            (Some(s), None) if s < 0 => offset_dim(d, s + 1),
            // d[s:c:-1] with s < 0 <= c: d + s - c.
            (Some(s), Some(e)) if s < 0 && e >= 0 => offset_dim(d, s - e),
            _ => None,
        }
    };
    exact.unwrap_or(Dim::Unknown)
}

fn slice(x: &Type, start: Option<i64>, stop: Option<i64>, step: i64) -> Result<Type, String> {
    if step == 0 {
        return Err("slice step cannot be zero".into());
    }
    let Some((d, rest)) = x.shape.split_first() else {
        return Err(format!("cannot slice the 0-D operand {x}"));
    };
    let len = match d {
        Dim::Unknown => Dim::Unknown,
        _ => match d.as_known() {
            Some(n) => Dim::known(py_slice_len(n, start, stop, step)),
            None => symbolic_slice_len(d, start, stop, step),
        },
    };
    let mut shape = vec![len];
    shape.extend(rest.iter().cloned());
    Ok(Type::new(x.dtype, shape))
}

// ----------------------------------------------------------------- creation

fn arange(d: &Dim) -> Result<Type, String> {
    check_limits(std::slice::from_ref(d), &"arange")?;
    let len = match d {
        Dim::Unknown => return Err("the length must be an integer or a symbol, got ?".into()),
        // numpy.arange(n) with n < 0 is empty.
        _ => match d.as_known() {
            Some(n) => Dim::known(n.max(0)),
            None => d.clone(),
        },
    };
    Ok(Type::new(DType::I64, vec![len]))
}

fn tensor(ty: &Type, values: &[Scalar]) -> Result<Type, String> {
    check_created(ty)?;
    let mut count: i128 = 1;
    for d in &ty.shape {
        let Some(n) = d.as_known() else {
            return Err(format!("a literal tensor needs known sizes, got {ty}"));
        };
        count = count.saturating_mul(n as i128);
    }
    if count != values.len() as i128 {
        return Err(format!("{ty} holds {count} values, got {}", values.len()));
    }
    if ty.dtype == DType::I64 {
        if let Some(v) = values
            .iter()
            .find(|v| matches!(v, Scalar::F64(f) if !f.is_finite()))
        {
            return Err(format!("cannot convert {v} to i64"));
        }
    }
    Ok(ty.clone().strong())
}
