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
use super::op::{BinaryOp, ExactInt, ReduceOp, Scalar, UnaryDType, UnaryOp};
use super::op_table::Op;
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
    let want = op.arg_arity();
    if !want.admits(args.len()) {
        return Err(format!("expects {want}, got {}", args.len()));
    }
    if let Some(t) = super::list_type::list_rule(op, args)? {
        return Ok(t);
    }
    exact_literal_arithmetic(op, args, consts)?;
    check_keys(op, args)?;
    let out = infer_op(op, args, consts)?;
    weak_ints_fit(op, args, consts, &out)?;
    Ok(out)
}

/// A weak integer literal combined with an `i32` must fit in `i32`: NumPy
/// 2 raises `OverflowError: Python integer 3000000000 out of bounds for
/// int32` for `int32_array + 3000000000` (and for `where`, `clip`,
/// `full`, writes into an `int32` array, ...). Comparisons are exact
/// instead (see [`crate::lang::dtype::compare_dtype`]). [`infer`] checks
/// literal arguments; the parser also calls this with the exact values of
/// arithmetic on literals (`(mul 100000 100000)` is 10^10, a Python int).
pub fn weak_ints_fit(
    op: &Op,
    args: &[&Type],
    consts: &[Option<Scalar>],
    out: &Type,
) -> Result<(), String> {
    let values: &[usize] = match op {
        Op::Binary(_) | Op::Clip | Op::Stack | Op::Concat(_) | Op::Fill(_) => &[0, 1, 2],
        Op::Where => &[1, 2],
        Op::SetIndex
        | Op::SetSlice { .. }
        | Op::SetTake(_)
        | Op::IncIndex
        | Op::IncSlice { .. }
        | Op::IncTake(_) => &[1],
        _ => return Ok(()),
    };
    let Some((lo, hi)) = out.dtype.int_range() else {
        return Ok(());
    };
    for &k in values {
        if let (Some(t), Some(Some(Scalar::I64(v)))) = (args.get(k), consts.get(k)) {
            if t.weak && !(lo..=hi).contains(v) {
                return Err(format!(
                    "the integer literal {v} is out of bounds for {} \
                     (NumPy 2 raises OverflowError); cast it or the other operand first",
                    out.dtype
                ));
            }
        }
    }
    Ok(())
}

/// The type rule of each op (see [`infer`]).
fn infer_op(op: &Op, args: &[&Type], consts: &[Option<Scalar>]) -> Result<Type, String> {
    match op {
        Op::Input(_) | Op::Scan(_) | Op::Proj(_) | Op::Grad => Err(format!(
            "internal: `{}` is typed by the parser, not by infer",
            op.name()
        )),
        // Typed by `super::list_type::list_rule`, asked first.
        Op::List(_) => Err(format!("internal: `{}` is a list op", op.name())),
        Op::Literal(s) => {
            let [] = fixed(args)?;
            Ok(Type {
                dtype: s.dtype(),
                shape: Vec::new(),
                weak: true,
                list: 0,
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
                list: 0,
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
        Op::Cumulative(_, axis) => {
            let [x] = fixed(args)?;
            cumulative(*axis, x)
        }
        Op::Normalize(_, axis) => {
            let [x] = fixed(args)?;
            norm_axis(*axis, x.ndim(), &x.shape)?;
            Ok(Type::new(x.dtype.to_float(), x.shape.clone()))
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
            numbers_created(ty)?;
            Ok(ty.clone().strong())
        }
        Op::Zeros(ty) | Op::Ones(ty) => {
            let [] = fixed(args)?;
            numbers_created(ty)?;
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
            if dt.is_key() {
                return Err(format!(
                    "cannot cast {x} to a key: keys are made with (key SEED)"
                ));
            }
            Ok(Type::new(*dt, x.shape.clone()))
        }
        Op::ZerosLike => {
            let [x] = fixed(args)?;
            Ok(x.clone())
        }
        Op::SumTo => {
            let [g, x] = fixed(args)?;
            sum_to(g, x)
        }
        Op::LinRec => {
            let [a, u, h0] = fixed(args)?;
            linrec(a, u, h0)
        }
        Op::LogMatMulExp => {
            let [a, b] = fixed(args)?;
            logmatmulexp(a, b)
        }
        Op::IncIndex => inc_index(args, consts),
        Op::IncSlice { start, stop, step } => {
            let [x, g] = fixed(args)?;
            let part = slice(x, *start, *stop, *step)?;
            increment(x, g, &part)
        }
        Op::Flip(ax) => {
            let [x] = fixed(args)?;
            norm_axis(*ax, x.ndim(), &x.shape)?;
            Ok(Type::new(x.dtype, x.shape.clone()))
        }
        Op::Squeeze(ax) => {
            let [x] = fixed(args)?;
            squeeze(*ax, x)
        }
        Op::StopGradient => {
            let [x] = fixed(args)?;
            Ok(x.clone())
        }
        Op::Compress => {
            let [m, x] = fixed(args)?;
            compress(m, x)
        }
        Op::MakeKey => {
            let [seed] = fixed(args)?;
            if seed.dtype != DType::I64 || seed.ndim() != 0 {
                return Err(format!("the seed must be an i64 scalar, got {seed}"));
            }
            Ok(Type::scalar(DType::Key))
        }
        Op::Split(n) => {
            let [k] = fixed(args)?;
            key_array(k)?;
            check_created(&Type::new(DType::Key, vec![n.clone()]))?;
            let mut shape = k.shape.clone();
            shape.push(n.clone());
            Ok(Type::new(DType::Key, shape))
        }
        Op::FoldIn => {
            let [k, i] = fixed(args)?;
            key_array(k)?;
            if i.dtype != DType::I64 {
                return Err(format!("the index must be i64, got {i}"));
            }
            Ok(Type::new(DType::Key, broadcast2(k, i)?))
        }
        Op::Uniform(ty) | Op::Normal(ty) => {
            let [k] = fixed(args)?;
            key_array(k)?;
            if !ty.dtype.is_float() {
                return Err(format!(
                    "draws floats: the type must be f64 or f32, got {ty}"
                ));
            }
            check_created(ty)?;
            Ok(Type::new(ty.dtype, [&k.shape[..], &ty.shape[..]].concat()))
        }
        Op::Bernoulli => {
            let [k, p] = fixed(args)?;
            key_array(k)?;
            if p.dtype == DType::Bool {
                return Err(format!("the probability must be a number, got {p}"));
            }
            Ok(Type::new(
                DType::Bool,
                [&k.shape[..], &p.shape[..]].concat(),
            ))
        }
        Op::Categorical => {
            let [k, logits] = fixed(args)?;
            key_array(k)?;
            if !logits.dtype.is_float() {
                return Err(format!("the logits must be f64 or f32, got {logits}"));
            }
            let Some((n, rows)) = logits.shape.split_last() else {
                return Err(format!(
                    "the logits must have at least one axis (one row per draw), got {logits}"
                ));
            };
            if n.as_known() == Some(0) {
                return Err(format!(
                    "cannot draw from an empty row: the logits are {logits}"
                ));
            }
            Ok(Type::new(DType::I64, [&k.shape[..], rows].concat()))
        }
        Op::Uncompress => {
            let [m, g] = fixed(args)?;
            uncompress(m, g)
        }
        Op::Clip => {
            let [x, lo, hi] = fixed(args)?;
            clip(x, lo, hi)
        }
        Op::Eye(ty) => {
            let [] = fixed(args)?;
            numbers_created(ty)?;
            if ty.ndim() != 2 {
                return Err(format!("the type must be 2-D, got {ty}"));
            }
            Ok(ty.clone().strong())
        }
        Op::Outer => {
            let [a, b] = fixed(args)?;
            outer(a, b)
        }
        Op::SetIndex => write_index(args, consts, Write::Set),
        Op::SetSlice { start, stop, step } => {
            let [x, v] = fixed(args)?;
            let part = slice(x, *start, *stop, *step)?;
            write_part(x, v, &part, Write::Set)
        }
        Op::Take(axis) => {
            let [x, idx] = fixed(args)?;
            take(x, idx, *axis, consts.get(1).copied().flatten())
        }
        Op::IncTake(axis) | Op::SetTake(axis) => {
            let [x, g, idx] = fixed(args)?;
            let part = take(x, idx, *axis, consts.get(2).copied().flatten())?;
            let how = match op {
                Op::IncTake(_) => Write::Add,
                _ => Write::Set,
            };
            write_part(x, g, &part, how)
        }
        Op::Solve | Op::SolveTriangular(_) | Op::Cholesky | Op::Inv | Op::Det | Op::Slogdet(_) => {
            super::linalg_type::linalg(op, args)
                .unwrap_or_else(|| Err("internal: not a linalg op".into()))
        }
    }
}

/// How an update writes its part: adds into it or replaces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Write {
    /// `inc_index`, `inc_slice`, `inc_take`
    Add,
    /// `set_index`, `set_slice`, `set_take`
    Set,
}

impl Write {
    fn noun(self) -> &'static str {
        match self {
            Write::Add => "increment",
            Write::Set => "value",
        }
    }
}

/// `(clip X LO HI)`: the three broadcast together, in their promoted
/// dtype (NEP 50, as `numpy.clip` promotes).
fn clip(x: &Type, lo: &Type, hi: &Type) -> Result<Type, String> {
    let shape = broadcast_shapes(&x.shape, &lo.shape)
        .and_then(|s| broadcast_shapes(&s, &hi.shape))
        .ok_or_else(|| {
            format!(
                "shapes {}, {} and {} do not broadcast",
                shape_str(&x.shape),
                shape_str(&lo.shape),
                shape_str(&hi.shape)
            )
        })?;
    let (d, w) = promote(x.dtype, x.weak, lo.dtype, lo.weak);
    let (dtype, weak) = promote(d, w, hi.dtype, hi.weak);
    Ok(Type {
        dtype,
        shape,
        weak,
        list: 0,
    })
}

/// `(outer A B)`: two vectors, every product.
fn outer(a: &Type, b: &Type) -> Result<Type, String> {
    if a.ndim() != 1 || b.ndim() != 1 {
        return Err(format!(
            "the operands must be 1-D, got {} and {}",
            shape_str(&a.shape),
            shape_str(&b.shape)
        ));
    }
    let dtype = promote_strong(a.dtype, b.dtype);
    Ok(Type::new(
        dtype,
        vec![a.shape[0].clone(), b.shape[0].clone()],
    ))
}

/// `(take X IDX AXIS)`: X with AXIS replaced by IDX's shape; `konst` is
/// IDX when it is a literal, checked against a known size.
fn take(x: &Type, idx: &Type, axis: i64, konst: Option<Scalar>) -> Result<Type, String> {
    if x.ndim() == 0 {
        return Err(format!("cannot take from the 0-D operand {x}"));
    }
    let a = norm_axis(axis, x.ndim(), &x.shape)?;
    if idx.dtype != DType::I64 {
        return Err(format!("the indices must be i64, got {idx}"));
    }
    if let (Some(Scalar::I64(v)), Some(n)) = (konst, x.shape[a].as_known()) {
        if !(-n..n).contains(&v) {
            return Err(format!(
                "index {v} is out of range for axis {a} of size {n}"
            ));
        }
    }
    let mut shape = x.shape[..a].to_vec();
    shape.extend(idx.shape.iter().cloned());
    shape.extend(x.shape[a + 1..].iter().cloned());
    Ok(Type::new(x.dtype, shape))
}

// ------------------------------------------------------------------- keys

/// Keys are not numbers (SPEC §1 "Random numbers"): only the random ops,
/// `where`'s branches and the ops that move or pick elements (shape ops,
/// `index`, `slice`, `take`, `stack`, `concat`, `stop_gradient`) take them, and
/// those take keys or numbers in their data arguments, never a mix. The
/// random ops check their own arguments.
fn check_keys(op: &Op, args: &[&Type]) -> Result<(), String> {
    let data = match op {
        Op::MakeKey
        | Op::Split(_)
        | Op::FoldIn
        | Op::Uniform(_)
        | Op::Normal(_)
        | Op::Bernoulli
        | Op::Categorical => return Ok(()),
        Op::Where => 1..3,
        Op::Stack | Op::Concat(_) => 0..args.len(),
        Op::Index
        | Op::Slice { .. }
        | Op::Transpose(_)
        | Op::Reshape(_)
        | Op::ExpandDims(_)
        | Op::Flip(_)
        | Op::Squeeze(_)
        | Op::Take(_)
        | Op::StopGradient => 0..1,
        _ => 0..0,
    };
    for (k, a) in args.iter().enumerate() {
        if a.dtype.is_key() && !data.contains(&k) {
            return Err(format!(
                "a key is not a number: argument {} is {a}; keys are only drawn from, split, folded, indexed and moved",
                k + 1
            ));
        }
    }
    let keys = args[data.clone()]
        .iter()
        .filter(|a| a.dtype.is_key())
        .count();
    if keys > 0 && keys < data.len() {
        return Err(format!(
            "cannot mix keys and numbers: {}",
            args[data]
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(" and ")
        ));
    }
    Ok(())
}

/// The key argument of a random op: keys of any shape (one draw per key).
fn key_array(k: &Type) -> Result<(), String> {
    if !k.dtype.is_key() {
        return Err(format!("the first argument must be a key, got {k}"));
    }
    Ok(())
}

/// A mask of `compress` or `uncompress`: a bool vector; its length.
fn mask_len(m: &Type) -> Result<&Dim, String> {
    if m.dtype != DType::Bool || m.ndim() != 1 {
        return Err(format!("the mask must be a bool vector, got {m}"));
    }
    Ok(&m.shape[0])
}

/// `(compress M X)`: X's rows where M holds, a length known at run time.
fn compress(m: &Type, x: &Type) -> Result<Type, String> {
    let len = mask_len(m)?;
    let Some(rows) = x.shape.first() else {
        return Err(format!(
            "the operand needs a leading axis to choose rows from, got {x}"
        ));
    };
    if let (Some(a), Some(b)) = (len.as_known(), rows.as_known()) {
        if a != b {
            return Err(format!(
                "the mask has {a} elements but the operand has {b} rows"
            ));
        }
    }
    let mut shape = x.shape.clone();
    shape[0] = Dim::Unknown;
    Ok(Type::new(x.dtype, shape))
}

/// `(uncompress M G)`: G's rows back at M's true positions, M's length.
fn uncompress(m: &Type, g: &Type) -> Result<Type, String> {
    let len = mask_len(m)?.clone();
    if g.ndim() == 0 {
        return Err(format!("the rows to put back need a leading axis, got {g}"));
    }
    let mut shape = g.shape.clone();
    shape[0] = len;
    Ok(Type::new(g.dtype, shape))
}

/// Why a `(grad COST X ...)` does not type-check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GradTypeError {
    /// COST is not a scalar of dtype f64 or f32.
    Cost(Type),
    /// The X at this position (0-based among the X) is not a float value.
    NotFloat(usize, Type),
    /// The X at this position is a list: gradients through lists come in
    /// a later stage of issue 41.
    List(usize, Type),
}

impl std::fmt::Display for GradTypeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GradTypeError::Cost(t) => {
                write!(f, "the cost must be a scalar of dtype f64 or f32, got {t}")
            }
            GradTypeError::NotFloat(_, t) => write!(
                f,
                "only f64 and f32 values have gradients, got a value of type {t}"
            ),
            GradTypeError::List(_, t) => write!(
                f,
                "gradients with respect to the list {t} are not supported yet"
            ),
        }
    }
}

/// The type rule of `(grad COST X ...)`: COST is an f64 or f32 scalar,
/// each X a float value; the result is one gradient per X, of X's type
/// (made strong).
pub fn grad_types(cost: &Type, xs: &[&Type]) -> Result<Vec<Type>, GradTypeError> {
    if cost.is_list() || cost.ndim() != 0 || !cost.dtype.is_float() {
        return Err(GradTypeError::Cost(cost.clone()));
    }
    xs.iter()
        .enumerate()
        .map(|(k, t)| {
            if t.is_list() {
                Err(GradTypeError::List(k, (*t).clone()))
            } else if t.dtype.is_float() {
                Ok((*t).clone().strong())
            } else {
                Err(GradTypeError::NotFloat(k, (*t).clone()))
            }
        })
        .collect()
}

// ---------------------------------------------------------------- helpers

/// Integer literals are exact (weak, as Python integers are under NEP 50):
/// `(mul 4294967296 4294967296)` is 2^64 in NumPy, which no `i64` holds.
/// Arithmetic on weak `i64` literals whose exact result does not fit is
/// refused, never wrapped; the e-graph relies on this too, so a rewrite
/// such as `(x * a) * b => x * (a * b)` cannot build a wrapped constant.
fn exact_literal_arithmetic(
    op: &Op,
    args: &[&Type],
    consts: &[Option<Scalar>],
) -> Result<(), String> {
    if args.is_empty() || args.len() != consts.len() {
        return Ok(());
    }
    let mut xs = Vec::with_capacity(args.len());
    for (t, c) in args.iter().zip(consts) {
        match (t.dtype, t.weak, c) {
            (DType::I64, true, Some(Scalar::I64(v))) => xs.push(*v),
            _ => return Ok(()),
        }
    }
    match ExactInt::of(op, &xs) {
        ExactInt::Overflows => {
            let operands: Vec<String> = xs.iter().map(|v| v.to_string()).collect();
            Err(format!(
                "the exact result on the integer literals {} does not fit in i64 \
                 (eqscan refuses to wrap it; write a float literal such as {}.0)",
                operands.join(" and "),
                xs[0]
            ))
        }
        ExactInt::Value(_) | ExactInt::NotArithmetic => Ok(()),
    }
}

/// The arguments as an array of `N`, to name them. [`infer`] has checked
/// their number against the op table already, so a mismatch here is a type
/// rule out of step with its table line.
fn fixed<'a, const N: usize>(args: &[&'a Type]) -> Result<[&'a Type; N], String> {
    <[&Type; N]>::try_from(args).map_err(|_| {
        format!(
            "internal: the type rule names {N} arguments where the op table allows {}",
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
/// [`check_created`] for a tensor of numbers (`fill`, `zeros`, `ones`,
/// `tensor`): keys are made with `(key SEED)`.
fn numbers_created(ty: &Type) -> Result<(), String> {
    if ty.dtype.is_key() {
        return Err(format!(
            "cannot create {ty} from numbers: keys are made with (key SEED)"
        ));
    }
    check_created(ty)
}

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
    let dtype = match u.dtype_rule() {
        UnaryDType::Signed if x.dtype == DType::Bool => {
            return Err(match u {
                UnaryOp::Neg => format!(
                    "is not defined for the bool operand {x} (NumPy forbids it); \
                     use (eq X false) for logical not"
                ),
                _ => format!("is not defined for the bool operand {x}"),
            })
        }
        UnaryDType::Signed | UnaryDType::Same => x.dtype,
        UnaryDType::Float => x.dtype.to_float(),
    };
    Ok(Type {
        dtype,
        shape: x.shape.clone(),
        weak: x.weak,
        list: 0,
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
        // NumPy gives int8 for bool ** bool (and bool % bool, bool // bool);
        // the closest dtype here is i64.
        BinaryOp::Pow | BinaryOp::Mod | BinaryOp::FloorDiv if promoted == DType::Bool => DType::I64,
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Pow
        | BinaryOp::Maximum
        | BinaryOp::Minimum
        | BinaryOp::Mod
        | BinaryOp::FloorDiv => promoted,
    };
    Ok(Type {
        dtype,
        shape,
        weak,
        list: 0,
    })
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
        list: 0,
    })
}

// --------------------------------------------------------------- reductions

fn reduce(r: ReduceOp, axis: Option<i64>, x: &Type) -> Result<Type, String> {
    let dtype = match r {
        // NumPy 2 on 64-bit Linux sums and multiplies bool and int32 in int64.
        ReduceOp::Sum | ReduceOp::Prod if matches!(x.dtype, DType::Bool | DType::I32) => DType::I64,
        ReduceOp::Mean | ReduceOp::LogSumExp => x.dtype.to_float(),
        ReduceOp::Argmax | ReduceOp::Argmin => DType::I64,
        ReduceOp::All | ReduceOp::Any => DType::Bool,
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

/// cumsum and cumprod have the same rule: shape kept, bool and i32 count
/// in i64 (as NumPy 2's `cumsum` of `int32` gives `int64`).
fn cumulative(axis: i64, x: &Type) -> Result<Type, String> {
    norm_axis(axis, x.ndim(), &x.shape)?;
    let dtype = if matches!(x.dtype, DType::Bool | DType::I32) {
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
    let mut shape = broadcast_batches(a, a_batch, b, b_batch)?;
    shape.extend(a_rows.cloned());
    shape.extend(b_cols.cloned());
    Ok(Type::new(dtype, shape))
}

// -------------------------------------------------------------------- shape

/// The broadcast of two operands' batch axes (`matmul`, the linear
/// algebra ops): `a_batch` of `a`'s shape and `b_batch` of `b`'s.
pub(super) fn broadcast_batches(
    a: &Type,
    a_batch: &[Dim],
    b: &Type,
    b_batch: &[Dim],
) -> Result<Shape, String> {
    broadcast_shapes(a_batch, b_batch).ok_or_else(|| {
        format!(
            "the batch sizes {} of {} and {} of {} do not broadcast",
            shape_str(a_batch),
            shape_str(&a.shape),
            shape_str(b_batch),
            shape_str(&b.shape)
        )
    })
}

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

fn squeeze(ax: i64, x: &Type) -> Result<Type, String> {
    let a = norm_axis(ax, x.ndim(), &x.shape)?;
    let mut shape = x.shape.clone();
    let d = shape.remove(a);
    if d.provably_differs(&Dim::known(1)) {
        return Err(format!(
            "axis {ax} of {} has size {d}; only an axis of size 1 can be squeezed",
            shape_str(&x.shape)
        ));
    }
    Ok(Type::new(x.dtype, shape))
}

/// `(sum_to G X)`: `X`'s shape must broadcast to `G`'s (no more axes, and
/// each size 1 or `G`'s); the result has `X`'s shape and the dtype `sum`
/// gives `G` (bool counts as i64), weak when `G` is (a literal summed to
/// a 0-D shape is itself).
fn sum_to(g: &Type, x: &Type) -> Result<Type, String> {
    let bad = || {
        format!(
            "the shape {} of X does not broadcast to the shape {} of G",
            shape_str(&x.shape),
            shape_str(&g.shape)
        )
    };
    let lead = g.ndim().checked_sub(x.ndim()).ok_or_else(bad)?;
    for (dx, dg) in x.shape.iter().zip(&g.shape[lead..]) {
        if !dx.is_one() && dx.provably_differs(dg) {
            return Err(bad());
        }
    }
    let dtype = if g.dtype == DType::Bool {
        DType::I64
    } else {
        g.dtype
    };
    Ok(Type {
        dtype,
        shape: x.shape.clone(),
        weak: g.weak,
        list: 0,
    })
}

/// Whether `small` broadcasts to `shape` without growing it (its sizes are
/// 1 or equal to `shape`'s, aligned from the right).
fn broadcasts_into(small: &[Dim], shape: &[Dim]) -> bool {
    small.len() <= shape.len()
        && small
            .iter()
            .rev()
            .zip(shape.iter().rev())
            .all(|(s, d)| s.is_one() || !s.provably_differs(d))
}

/// `(linrec A U H0)`: `U` has a step axis; `A` broadcasts to `U`'s shape,
/// `H0` to one step of it; the result has `U`'s shape and the operands'
/// promoted dtype made float (an integer recurrence runs in f64).
fn linrec(a: &Type, u: &Type, h0: &Type) -> Result<Type, String> {
    let Some((_, step)) = u.shape.split_first() else {
        return Err(format!(
            "the recurrence runs over axis 0 of U, which has no axis ({u})"
        ));
    };
    if !broadcasts_into(&a.shape, &u.shape) {
        return Err(format!(
            "the factor A's shape {} does not broadcast to the shape {} of U",
            shape_str(&a.shape),
            shape_str(&u.shape)
        ));
    }
    if !broadcasts_into(&h0.shape, step) {
        return Err(format!(
            "the initial value H0's shape {} does not broadcast to one step {} of U",
            shape_str(&h0.shape),
            shape_str(step)
        ));
    }
    let (au, weak) = promote(a.dtype, a.weak, u.dtype, u.weak);
    let (dtype, _) = promote(au, weak, h0.dtype, h0.weak);
    Ok(Type::new(dtype.to_float(), u.shape.clone()))
}

/// `(logmatmulexp A B)`: a vector (N) or matrix (K, N) `A` against a
/// matrix (N, M) `B`, as `dot` aligns them; the result is float.
fn logmatmulexp(a: &Type, b: &Type) -> Result<Type, String> {
    if !(1..=2).contains(&a.ndim()) || b.ndim() != 2 {
        return Err(format!(
            "takes a vector or a matrix A and a matrix B, got {a} and {b}"
        ));
    }
    let (ia, n) = (a.ndim() - 1, &a.shape[a.ndim() - 1]);
    if n.provably_differs(&b.shape[0]) {
        return Err(not_aligned(a, b, ia, 0));
    }
    let mut shape = a.shape[..ia].to_vec();
    shape.push(b.shape[1].clone());
    Ok(Type::new(
        promote_strong(a.dtype, b.dtype).to_float(),
        shape,
    ))
}

/// An increment of `x` by `g` at a part of type `part` (`inc_index`,
/// `inc_slice`): `g` must broadcast to the part's shape and its dtype fit
/// `x`'s (adding it does not promote `x`); the result has `x`'s type.
fn increment(x: &Type, g: &Type, part: &Type) -> Result<Type, String> {
    write_part(x, g, part, Write::Add)
}

/// An update of `x` by `v` at a part of type `part`, added or written
/// over (`inc_*`, `set_*`): `v` must broadcast to the part's shape and
/// its dtype fit `x`'s (the update does not promote `x`; NumPy would
/// cast silently, PyTensor refuses a downcast); the result has `x`'s
/// type.
fn write_part(x: &Type, g: &Type, part: &Type, how: Write) -> Result<Type, String> {
    let noun = how.noun();
    let (promoted, _) = promote(x.dtype, false, g.dtype, g.weak);
    if promoted != x.dtype {
        let verb = match how {
            Write::Add => "adding it",
            Write::Set => "writing it",
        };
        return Err(format!(
            "the {noun} {g} does not fit the dtype of X {x} ({verb} would make {promoted}); \
             cast it first"
        ));
    }
    let fits = g.ndim() <= part.ndim()
        && g.shape
            .iter()
            .rev()
            .zip(part.shape.iter().rev())
            .all(|(dg, dp)| dg.is_one() || !dg.provably_differs(dp));
    if !fits {
        return Err(format!(
            "the {noun}'s shape {} does not broadcast to the shape {} of the part it {}",
            shape_str(&g.shape),
            shape_str(&part.shape),
            match how {
                Write::Add => "adds to",
                Write::Set => "replaces",
            }
        ));
    }
    Ok(Type::new(x.dtype, x.shape.clone()))
}

/// `(inc_index X G I ...)`: the indices as [`index`] checks them.
fn inc_index(args: &[&Type], consts: &[Option<Scalar>]) -> Result<Type, String> {
    write_index(args, consts, Write::Add)
}

/// `(inc_index X G I ...)` and `(set_index X V I ...)`: the indices as
/// [`index`] checks them.
fn write_index(args: &[&Type], consts: &[Option<Scalar>], how: Write) -> Result<Type, String> {
    let noun = match how {
        Write::Add => "an increment",
        Write::Set => "a value",
    };
    let Some((x, rest)) = args.split_first() else {
        return Err(format!(
            "expects an operand, {noun} and at least 1 index, got no arguments"
        ));
    };
    let Some((g, indices)) = rest.split_first() else {
        return Err(format!(
            "expects {noun} and at least 1 index after the operand {x}"
        ));
    };
    let mut index_args = vec![*x];
    index_args.extend_from_slice(indices);
    let mut index_consts = vec![None];
    index_consts.extend(consts.iter().skip(2).copied());
    let part = index(&index_args, &index_consts)?;
    write_part(x, g, &part, how)
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
    numbers_created(ty)?;
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
    if let Some((lo, hi)) = ty.dtype.int_range() {
        if let Some(v) = values
            .iter()
            .find(|v| matches!(v, Scalar::F64(f) if !f.is_finite()))
        {
            return Err(format!("cannot convert {v} to {}", ty.dtype));
        }
        if let Some(v) = values
            .iter()
            .find(|v| matches!(v, Scalar::I64(i) if !(lo..=hi).contains(i)))
        {
            return Err(format!(
                "the integer {v} is out of bounds for {} (NumPy 2 raises OverflowError)",
                ty.dtype
            ));
        }
    }
    Ok(ty.clone().strong())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::op::{CompareOp, CumOp};
    use DType::*;

    fn k(n: i64) -> Dim {
        Dim::known(n)
    }
    fn t() -> Dim {
        Dim::sym("T")
    }
    fn arr(dtype: DType, dims: &[i64]) -> Type {
        Type::new(dtype, dims.iter().map(|&n| k(n)).collect())
    }
    fn lit(s: Scalar) -> Type {
        infer(&Op::Literal(s), &[], &[]).unwrap()
    }
    fn go(op: Op, args: &[&Type]) -> Result<Type, String> {
        infer(&op, args, &[])
    }
    fn ok(op: Op, args: &[&Type]) -> Type {
        go(op, args).unwrap_or_else(|e| panic!("unexpected error: {e}"))
    }
    fn err(op: Op, args: &[&Type]) -> String {
        match go(op, args) {
            Ok(t) => panic!("expected an error, got {t}"),
            Err(e) => e,
        }
    }
    #[test]
    fn i32_follows_numpy_2() {
        let k = arr(I32, &[3]);
        let add = |a: &Type, b: &Type| ok(Op::Binary(BinaryOp::Add), &[a, b]).dtype;
        // numpy 2.4: int32 + int64, float32, float64, bool, 1, 1.0
        assert_eq!(add(&k, &arr(I64, &[3])), I64);
        assert_eq!(add(&k, &arr(F32, &[3])), F64);
        assert_eq!(add(&k, &arr(F64, &[3])), F64);
        assert_eq!(add(&k, &arr(Bool, &[3])), I32);
        assert_eq!(add(&k, &lit(Scalar::I64(1))), I32);
        assert_eq!(add(&k, &lit(Scalar::F64(1.0))), F64);
        // sum, prod, cumsum of int32 are int64; max int32; mean float64
        let r = |op| ok(Op::Reduce(op, None), &[&k]).dtype;
        assert_eq!(r(ReduceOp::Sum), I64);
        assert_eq!(r(ReduceOp::Prod), I64);
        assert_eq!(r(ReduceOp::Max), I32);
        assert_eq!(r(ReduceOp::Mean), F64);
        assert_eq!(r(ReduceOp::Argmax), I64);
        assert_eq!(ok(Op::Cumulative(CumOp::Cumsum, 0), &[&k]).dtype, I64);
        assert_eq!(ok(Op::Binary(BinaryOp::Div), &[&k, &k]).dtype, F64);
        // a weak int outside i32 with an i32 is an error (OverflowError)
        let big = lit(Scalar::I64(3_000_000_000));
        let e = infer(
            &Op::Binary(BinaryOp::Mul),
            &[&k, &big],
            &[None, Some(Scalar::I64(3_000_000_000))],
        )
        .unwrap_err();
        assert!(e.contains("3000000000 is out of bounds for i32"), "{e}");
        let edge = [None, Some(Scalar::I64(i32::MIN as i64))];
        let min = lit(Scalar::I64(i32::MIN as i64));
        assert_eq!(
            infer(&Op::Binary(BinaryOp::Add), &[&k, &min], &edge).map(|t| t.dtype),
            Ok(I32)
        );
        // ... but comparing with it is not (NumPy compares exactly)
        let c = infer(
            &Op::Compare(CompareOp::Lt),
            &[&k, &big],
            &[None, Some(Scalar::I64(3_000_000_000))],
        );
        assert_eq!(c.map(|t| t.dtype), Ok(Bool));
    }

    fn slice_len(d: Dim, start: Option<i64>, stop: Option<i64>, step: i64) -> Dim {
        let x = Type::new(F64, vec![d, k(2)]);
        let r = ok(Op::Slice { start, stop, step }, &[&x]);
        assert_eq!(r.shape[1], k(2));
        r.shape[0].clone()
    }

    #[test]
    fn leaves() {
        let l = lit(Scalar::F64(2.0));
        assert_eq!((l.dtype, l.weak, l.ndim()), (F64, true, 0));
        assert_eq!(lit(Scalar::Bool(true)).dtype, Bool);
        assert_eq!(ok(Op::Size("T".into()), &[]), Type::scalar(I64));
        assert!(err(Op::Input(0), &[]).starts_with("internal:"));
        assert!(err(Op::Proj(0), &[&arr(F64, &[])]).starts_with("internal:"));
        assert_eq!(
            err(Op::Literal(Scalar::I64(1)), &[&arr(F64, &[])]),
            "expects no arguments, got 1"
        );
    }

    #[test]
    fn unary_rules() {
        let x = arr(I64, &[3]);
        let e = ok(Op::Unary(UnaryOp::Exp), &[&x]);
        assert_eq!((e.dtype, e.weak), (F64, false));
        assert_eq!(ok(Op::Unary(UnaryOp::Sin), &[&arr(F32, &[2])]).dtype, F32);
        assert_eq!(ok(Op::Unary(UnaryOp::Sqrt), &[&arr(Bool, &[2])]).dtype, F64);
        assert_eq!(ok(Op::Unary(UnaryOp::Abs), &[&arr(Bool, &[2])]).dtype, Bool);
        assert_eq!(ok(Op::Unary(UnaryOp::Neg), &[&x]).dtype, I64);
        let l = lit(Scalar::I64(2));
        let n = ok(Op::Unary(UnaryOp::Log), &[&l]);
        assert_eq!((n.dtype, n.weak), (F64, true));
        assert!(err(Op::Unary(UnaryOp::Neg), &[&arr(Bool, &[3])]).contains("(eq X false)"));
        assert!(err(Op::Unary(UnaryOp::Sign), &[&arr(Bool, &[3])]).contains("bool"));
        assert_eq!(
            err(Op::Unary(UnaryOp::Exp), &[&x, &x]),
            "expects 1 argument, got 2"
        );
    }

    #[test]
    fn binary_promotion_and_weakness() {
        let f32a = arr(F32, &[3]);
        let i64a = arr(I64, &[3]);
        let half = lit(Scalar::F64(0.5));
        let two = lit(Scalar::I64(2));
        // f32 array * weak f64 literal -> f32
        let r = ok(Op::Binary(BinaryOp::Mul), &[&f32a, &half]);
        assert_eq!((r.dtype, r.weak, r.shape.clone()), (F32, false, vec![k(3)]));
        // i64 + 0.5 -> f64
        assert_eq!(ok(Op::Binary(BinaryOp::Add), &[&i64a, &half]).dtype, F64);
        // i64 array / i64 -> f64; f32 / f32 -> f32; f32 / weak int -> f32
        assert_eq!(ok(Op::Binary(BinaryOp::Div), &[&i64a, &i64a]).dtype, F64);
        assert_eq!(ok(Op::Binary(BinaryOp::Div), &[&f32a, &f32a]).dtype, F32);
        assert_eq!(ok(Op::Binary(BinaryOp::Div), &[&f32a, &two]).dtype, F32);
        // strong i64 with strong f32 -> f64
        assert_eq!(ok(Op::Binary(BinaryOp::Add), &[&i64a, &f32a]).dtype, F64);
        // two literals stay weak
        let w = ok(Op::Binary(BinaryOp::Add), &[&two, &half]);
        assert_eq!((w.dtype, w.weak), (F64, true));
        // bool rules
        let b = arr(Bool, &[3]);
        assert!(err(Op::Binary(BinaryOp::Sub), &[&b, &b]).contains("bool"));
        assert!(err(Op::Binary(BinaryOp::Sub), &[&b, &lit(Scalar::Bool(true))]).contains("bool"));
        assert_eq!(ok(Op::Binary(BinaryOp::Sub), &[&b, &two]).dtype, I64);
        assert_eq!(ok(Op::Binary(BinaryOp::Add), &[&b, &b]).dtype, Bool);
        assert_eq!(ok(Op::Binary(BinaryOp::Pow), &[&b, &b]).dtype, I64);
        assert_eq!(ok(Op::Binary(BinaryOp::Maximum), &[&b, &f32a]).dtype, F32);
        // broadcasting
        let r = ok(
            Op::Binary(BinaryOp::Add),
            &[&arr(F64, &[3, 1]), &arr(F64, &[4])],
        );
        assert_eq!(r.shape, vec![k(3), k(4)]);
        assert_eq!(
            err(
                Op::Binary(BinaryOp::Add),
                &[&arr(F64, &[3, 4]), &arr(F64, &[5])]
            ),
            "shapes (3, 4) and (5,) do not broadcast"
        );
    }

    #[test]
    fn compare_and_where() {
        let x = arr(F32, &[3, 1]);
        let r = ok(Op::Compare(CompareOp::Lt), &[&x, &lit(Scalar::I64(0))]);
        assert_eq!((r.dtype, r.weak), (Bool, false));
        let both = ok(
            Op::Compare(CompareOp::Eq),
            &[&lit(Scalar::I64(0)), &lit(Scalar::F64(1.0))],
        );
        assert_eq!((both.dtype, both.weak), (Bool, true));
        let c = arr(Bool, &[4]);
        let w = ok(Op::Where, &[&c, &x, &lit(Scalar::F64(0.0))]);
        assert_eq!((w.dtype, w.shape.clone()), (F32, vec![k(3), k(4)]));
        let w = ok(Op::Where, &[&c, &arr(I64, &[1]), &arr(F32, &[])]);
        assert_eq!(w.dtype, F64);
        let e = err(Op::Where, &[&arr(F64, &[4]), &x, &x]);
        assert!(e.starts_with("condition must be bool, got f64(4,)"), "{e}");
        assert!(err(Op::Where, &[&c, &arr(F64, &[5]), &x]).contains("do not broadcast"));
    }

    #[test]
    fn reductions_and_cumulative() {
        let x = arr(Bool, &[3, 4]);
        let r = ok(Op::Reduce(ReduceOp::Sum, Some(-1)), &[&x]);
        assert_eq!((r.dtype, r.shape.clone()), (I64, vec![k(3)]));
        let r = ok(Op::Reduce(ReduceOp::Mean, None), &[&arr(I64, &[3, 4])]);
        assert_eq!((r.dtype, r.ndim()), (F64, 0));
        assert_eq!(
            ok(Op::Reduce(ReduceOp::Mean, Some(0)), &[&arr(F32, &[3])]).dtype,
            F32
        );
        assert_eq!(ok(Op::Reduce(ReduceOp::Max, Some(0)), &[&x]).dtype, Bool);
        assert_eq!(
            ok(Op::Reduce(ReduceOp::Prod, Some(1)), &[&x]).shape,
            vec![k(3)]
        );
        assert_eq!(
            err(Op::Reduce(ReduceOp::Sum, Some(2)), &[&x]),
            "axis 2 is out of range for a 2-D operand (3, 4)"
        );
        assert!(err(Op::Reduce(ReduceOp::Sum, Some(-3)), &[&x]).contains("out of range"));
        assert!(err(Op::Reduce(ReduceOp::Sum, Some(0)), &[&arr(F64, &[])]).contains("0-D"));
        assert!(
            err(Op::Reduce(ReduceOp::Max, Some(1)), &[&arr(F64, &[2, 0])]).contains("zero-size")
        );
        assert!(err(Op::Reduce(ReduceOp::Min, None), &[&arr(F64, &[0])]).contains("zero-size"));
        assert_eq!(
            ok(Op::Reduce(ReduceOp::Max, Some(0)), &[&arr(F64, &[2, 0])]).shape,
            vec![k(0)]
        );
        assert_eq!(
            ok(Op::Reduce(ReduceOp::Sum, None), &[&arr(F64, &[0])]).dtype,
            F64
        );
        let c = ok(Op::Cumulative(CumOp::Cumsum, -1), &[&x]);
        assert_eq!((c.dtype, c.shape.clone()), (I64, vec![k(3), k(4)]));
        assert_eq!(
            ok(Op::Cumulative(CumOp::Cumprod, 0), &[&arr(F32, &[3])]).dtype,
            F32
        );
        assert!(err(Op::Cumulative(CumOp::Cumsum, 0), &[&arr(F64, &[])]).contains("out of range"));
        assert!(err(Op::Cumulative(CumOp::Cumsum, 2), &[&x]).contains("axis 2"));
    }

    #[test]
    fn dot_rules() {
        let m = arr(F32, &[3, 4]);
        let v4 = arr(F64, &[4]);
        let r = ok(Op::Dot, &[&m, &v4]);
        assert_eq!((r.dtype, r.shape.clone()), (F64, vec![k(3)]));
        let e = err(Op::Dot, &[&arr(F64, &[3]), &v4]);
        assert_eq!(
            e,
            "shapes (3,) and (4,) are not aligned: 3 (dim 0) != 4 (dim 0)"
        );
        assert_eq!(ok(Op::Dot, &[&v4, &v4]).ndim(), 0);
        assert_eq!(ok(Op::Dot, &[&v4, &arr(F64, &[4, 5])]).shape, vec![k(5)]);
        assert_eq!(
            ok(Op::Dot, &[&m, &arr(F64, &[4, 5])]).shape,
            vec![k(3), k(5)]
        );
        assert!(err(Op::Dot, &[&m, &m]).contains("not aligned"));
        // a scalar scales: shape of the other; weakness is ignored
        let s = ok(Op::Dot, &[&lit(Scalar::F64(2.0)), &m]);
        assert_eq!(
            (s.dtype, s.weak, s.shape.clone()),
            (F64, false, vec![k(3), k(4)])
        );
        assert!(err(Op::Dot, &[&arr(F64, &[2, 3, 4]), &v4]).contains("matmul"));
        // symbolic sizes are accepted
        let ts = Type::new(F64, vec![t(), k(4)]);
        assert_eq!(ok(Op::Dot, &[&ts, &v4]).shape, vec![t()]);
        assert_eq!(ok(Op::Dot, &[&Type::new(F64, vec![t()]), &v4]).ndim(), 0);
    }

    #[test]
    fn matmul_rules() {
        let a = arr(F64, &[2, 3, 4]);
        let r = ok(Op::Matmul, &[&a, &arr(F32, &[4])]);
        assert_eq!((r.dtype, r.shape.clone()), (F64, vec![k(2), k(3)]));
        assert_eq!(
            ok(Op::Matmul, &[&arr(F64, &[3]), &a]).shape,
            vec![k(2), k(4)]
        );
        assert_eq!(
            ok(Op::Matmul, &[&arr(F64, &[4]), &arr(F64, &[4])]).ndim(),
            0
        );
        assert_eq!(
            ok(
                Op::Matmul,
                &[&arr(F64, &[5, 1, 3, 4]), &arr(F64, &[6, 4, 2])]
            )
            .shape,
            vec![k(5), k(6), k(3), k(2)]
        );
        assert!(err(Op::Matmul, &[&arr(F64, &[4]), &a]).contains("inner sizes"));
        assert!(err(Op::Matmul, &[&a, &arr(F64, &[3, 4, 5])]).contains("batch"));
        assert!(err(Op::Matmul, &[&a, &lit(Scalar::F64(2.0))]).contains("0-D"));
        let ts = Type::new(F64, vec![t(), k(3), k(4)]);
        assert_eq!(
            ok(Op::Matmul, &[&ts, &arr(F64, &[4, 5])]).shape,
            vec![t(), k(3), k(5)]
        );
    }

    #[test]
    fn ops_of_gradient_programs() {
        let x = Type::new(F64, vec![t(), k(3)]);
        let z = ok(Op::ZerosLike, &[&x]);
        assert_eq!(z, x);
        let l = ok(Op::ZerosLike, &[&lit(Scalar::F64(2.0))]);
        assert!(l.weak);
        // sum_to: the leading axes go, length-1 axes are summed to 1
        let g = Type::new(F32, vec![k(2), t(), k(3)]);
        let r = ok(Op::SumTo, &[&g, &Type::new(I64, vec![k(1), k(3)])]);
        assert_eq!((r.dtype, r.shape.clone()), (F32, vec![k(1), k(3)]));
        assert_eq!(ok(Op::SumTo, &[&g, &x]).shape, vec![t(), k(3)]);
        assert_eq!(
            ok(Op::SumTo, &[&arr(Bool, &[4]), &arr(F64, &[])]).dtype,
            I64
        );
        // a symbolic size may be 1 or G's at run time
        let n = Type::new(F64, vec![Dim::sym("N"), k(3)]);
        assert!(go(Op::SumTo, &[&arr(F64, &[5, 3]), &n]).is_ok());
        assert!(err(Op::SumTo, &[&arr(F64, &[5, 3]), &arr(F64, &[2, 3])]).contains("broadcast"));
        assert!(err(Op::SumTo, &[&arr(F64, &[3]), &arr(F64, &[1, 3])]).contains("broadcast"));
        assert!(err(Op::SumTo, &[&arr(F64, &[1, 3]), &arr(F64, &[3, 3])]).contains("broadcast"));
        // increments: X's type; G broadcast to the part; G's dtype fits X's
        let m = arr(F32, &[4, 3]);
        let i = arr(I64, &[]);
        assert_eq!(ok(Op::IncIndex, &[&m, &arr(F32, &[3]), &i]), m);
        assert_eq!(ok(Op::IncIndex, &[&m, &lit(Scalar::F64(1.0)), &i, &i]), m);
        assert!(err(Op::IncIndex, &[&m, &arr(F64, &[3]), &i]).contains("cast it first"));
        assert!(err(Op::IncIndex, &[&m, &arr(F32, &[4]), &i]).contains("does not broadcast"));
        assert!(err(Op::IncIndex, &[&m, &arr(F32, &[1, 3]), &i]).contains("does not broadcast"));
        assert_eq!(
            err(Op::IncIndex, &[&m, &arr(F32, &[3])]),
            "expects 3 or more arguments, got 2"
        );
        assert!(err(Op::IncIndex, &[&m, &m, &i, &i, &i]).contains("too many indices"));
        let consts = [None, None, Some(Scalar::I64(-5))];
        assert!(infer(&Op::IncIndex, &[&m, &arr(F32, &[3]), &i], &consts)
            .unwrap_err()
            .contains("index -5 is out of range for axis 0 of size 4"));
        let sl = |start, stop, step| Op::IncSlice { start, stop, step };
        assert_eq!(ok(sl(None, None, -2), &[&m, &arr(F32, &[2, 3])]), m);
        assert_eq!(ok(sl(Some(1), Some(3), 1), &[&m, &arr(F32, &[1, 3])]), m);
        assert!(err(sl(Some(1), Some(3), 1), &[&m, &arr(F32, &[3, 3])]).contains("(2, 3)"));
        assert!(err(sl(None, None, 0), &[&m, &m]).contains("zero"));
        // flip keeps the type; squeeze drops a length-1 axis
        assert_eq!(ok(Op::Flip(-1), &[&x]), x);
        assert!(err(Op::Flip(0), &[&arr(F64, &[])]).contains("out of range"));
        let c = Type::new(F64, vec![t(), k(1)]);
        assert_eq!(ok(Op::Squeeze(-1), &[&c]).shape, vec![t()]);
        assert_eq!(ok(Op::Squeeze(0), &[&c]).shape, vec![k(1)]);
        assert!(err(Op::Squeeze(0), &[&arr(F64, &[3, 1])]).contains("size 3"));
        assert!(err(Op::Squeeze(2), &[&c]).contains("out of range"));
    }

    #[test]
    fn transpose_and_expand_dims() {
        let x = arr(F64, &[2, 3, 4]);
        assert_eq!(ok(Op::Transpose(None), &[&x]).shape, vec![k(4), k(3), k(2)]);
        assert_eq!(
            ok(Op::Transpose(Some(vec![1, -1, 0])), &[&x]).shape,
            vec![k(3), k(4), k(2)]
        );
        assert!(err(Op::Transpose(Some(vec![0, 0, 1])), &[&x]).contains("permutation"));
        assert!(err(Op::Transpose(Some(vec![0, 1])), &[&x]).contains("permutation"));
        assert!(err(Op::Transpose(Some(vec![0, 1, 3])), &[&x]).contains("permutation"));
        assert_eq!(ok(Op::Transpose(None), &[&arr(F64, &[])]).ndim(), 0);
        let v = arr(F64, &[3]);
        assert_eq!(ok(Op::ExpandDims(0), &[&v]).shape, vec![k(1), k(3)]);
        assert_eq!(ok(Op::ExpandDims(1), &[&v]).shape, vec![k(3), k(1)]);
        assert_eq!(ok(Op::ExpandDims(-1), &[&v]).shape, vec![k(3), k(1)]);
        assert_eq!(ok(Op::ExpandDims(-2), &[&v]).shape, vec![k(1), k(3)]);
        assert!(err(Op::ExpandDims(2), &[&v]).contains("out of range"));
        assert!(err(Op::ExpandDims(-3), &[&v]).contains("out of range"));
        let s = ok(Op::ExpandDims(0), &[&lit(Scalar::F64(1.0))]);
        assert_eq!((s.shape.clone(), s.weak), (vec![k(1)], false));
    }

    #[test]
    fn reshape_rules() {
        let reshape = |x: &Type, dims: Vec<Dim>| go(Op::Reshape(dims), &[x]);
        let x = arr(F64, &[3, 4]);
        assert_eq!(
            reshape(&x, vec![k(2), k(-1)]).unwrap().shape,
            vec![k(2), k(6)]
        );
        assert_eq!(reshape(&x, vec![k(12)]).unwrap().shape, vec![k(12)]);
        assert!(reshape(&x, vec![k(5), k(-1)])
            .unwrap_err()
            .contains("cannot reshape"));
        assert!(reshape(&x, vec![k(5), k(2)])
            .unwrap_err()
            .contains("cannot reshape"));
        assert!(reshape(&x, vec![k(-1), k(-1)])
            .unwrap_err()
            .contains("only one"));
        assert!(reshape(&x, vec![k(-2), k(-6)])
            .unwrap_err()
            .contains("negative"));
        assert!(reshape(&x, vec![k(0), k(-1)])
            .unwrap_err()
            .contains("ambiguous"));
        let empty = arr(F64, &[0, 4]);
        assert_eq!(
            reshape(&empty, vec![k(0), k(3)]).unwrap().shape,
            vec![k(0), k(3)]
        );
        assert_eq!(
            reshape(&empty, vec![k(-1), k(3)]).unwrap().shape,
            vec![k(0), k(3)]
        );
        // symbolic sizes
        let ts = Type::new(F64, vec![t(), k(4)]);
        assert_eq!(reshape(&ts, vec![k(-1)]).unwrap().shape, vec![t().scale(4)]);
        assert_eq!(
            reshape(&ts, vec![t(), k(-1)]).unwrap().shape,
            vec![t(), k(4)]
        );
        assert_eq!(
            reshape(&ts, vec![t(), k(2), k(-1)]).unwrap().shape,
            vec![t(), k(2), k(2)]
        );
        assert!(reshape(&ts, vec![t(), k(3)])
            .unwrap_err()
            .contains("cannot reshape"));
        assert!(reshape(&ts, vec![t(), k(3), k(-1)])
            .unwrap_err()
            .contains("cannot"));
        assert_eq!(reshape(&ts, vec![k(8)]).unwrap().shape, vec![k(8)]);
        assert_eq!(
            reshape(&ts, vec![k(3), k(-1)]).unwrap().shape,
            vec![k(3), Dim::Unknown]
        );
        assert_eq!(
            reshape(&ts, vec![Dim::sym("S"), k(-1)]).unwrap().shape,
            vec![Dim::sym("S"), Dim::Unknown]
        );
        let t2 = Type::new(F64, vec![t().scale(2), k(3)]);
        assert_eq!(
            reshape(&t2, vec![t(), k(-1)]).unwrap().shape,
            vec![t(), k(6)]
        );
        let unk = Type::new(F64, vec![Dim::Unknown, k(4)]);
        assert_eq!(
            reshape(&unk, vec![k(-1)]).unwrap().shape,
            vec![Dim::Unknown]
        );
    }

    #[test]
    fn stack_and_concat() {
        let a = arr(F32, &[3, 4]);
        let b = arr(I64, &[3, 4]);
        let s = ok(Op::Stack, &[&a, &b, &a]);
        assert_eq!((s.dtype, s.shape.clone()), (F64, vec![k(3), k(3), k(4)]));
        assert!(err(Op::Stack, &[&a, &arr(F32, &[3, 5])]).contains("same shape"));
        assert!(err(Op::Stack, &[&a, &arr(F32, &[3])]).contains("same shape"));
        assert_eq!(err(Op::Stack, &[]), "expects 1 or more arguments, got 0");
        let x = Type::new(F32, vec![t()]);
        assert!(err(Op::Stack, &[&x, &lit(Scalar::F64(1.0))]).contains("(T,) and ()"));
        let s = ok(Op::Stack, &[&x, &arr(F32, &[5])]);
        assert_eq!(s.shape, vec![k(2), k(5)]);
        let sc = ok(Op::Stack, &[&arr(F32, &[]), &lit(Scalar::F64(1.0))]);
        assert_eq!(
            (sc.dtype, sc.weak, sc.shape.clone()),
            (F32, false, vec![k(2)])
        );
        let c = ok(Op::Concat(0), &[&a, &arr(F64, &[2, 4])]);
        assert_eq!((c.dtype, c.shape.clone()), (F64, vec![k(5), k(4)]));
        let c = ok(Op::Concat(-1), &[&a, &Type::new(F32, vec![k(3), t()])]);
        assert_eq!(c.shape, vec![k(3), t().add(&k(4))]);
        assert!(err(Op::Concat(0), &[&a, &arr(F32, &[2, 5])]).contains("axis 1"));
        assert!(err(Op::Concat(0), &[&a, &arr(F32, &[2])]).contains("number of dimensions"));
        assert!(err(Op::Concat(2), &[&a, &a]).contains("out of range"));
        assert!(err(Op::Concat(0), &[&arr(F32, &[])]).contains("0-D"));
        assert_eq!(
            err(Op::Concat(0), &[]),
            "expects 1 or more arguments, got 0"
        );
    }

    #[test]
    fn index_rules() {
        let x = arr(F64, &[3, 4, 5]);
        let i = arr(I64, &[]);
        assert_eq!(ok(Op::Index, &[&x, &i]).shape, vec![k(4), k(5)]);
        assert_eq!(ok(Op::Index, &[&x, &i, &i, &i]).ndim(), 0);
        assert!(err(Op::Index, &[&x, &i, &i, &i, &i]).contains("too many indices"));
        assert!(err(Op::Index, &[&x, &arr(F64, &[])]).contains("i64"));
        assert!(err(Op::Index, &[&x, &arr(Bool, &[])]).contains("i64"));
        assert!(err(Op::Index, &[&x, &arr(I64, &[2])]).contains("i64 scalars"));
        assert_eq!(err(Op::Index, &[&x]), "expects 2 or more arguments, got 1");
        let five = lit(Scalar::I64(5));
        let consts = [None, Some(Scalar::I64(5))];
        assert_eq!(
            infer(&Op::Index, &[&x, &five], &consts).unwrap_err(),
            "index 5 is out of range for axis 0 of size 3"
        );
        let consts = [None, Some(Scalar::I64(-3))];
        assert!(infer(&Op::Index, &[&x, &five], &consts).is_ok());
        let consts = [None, Some(Scalar::I64(0)), Some(Scalar::I64(-5))];
        assert!(infer(&Op::Index, &[&x, &five, &five], &consts)
            .unwrap_err()
            .contains("axis 1 of size 4"));
        // symbolic axes are checked when the program runs
        let ts = Type::new(F64, vec![t()]);
        let consts = [None, Some(Scalar::I64(100))];
        assert!(infer(&Op::Index, &[&ts, &five], &consts).is_ok());
    }

    #[test]
    fn slices_of_known_sizes() {
        let n = |start, stop, step| slice_len(k(10), start, stop, step);
        assert_eq!(n(None, None, -2), k(5));
        assert_eq!(n(None, None, 1), k(10));
        assert_eq!(n(Some(2), Some(5), 1), k(3));
        assert_eq!(n(Some(-3), None, 1), k(3));
        assert_eq!(n(None, Some(-1), 1), k(9));
        assert_eq!(n(Some(5), Some(2), 1), k(0));
        assert_eq!(n(Some(5), Some(2), -1), k(3));
        assert_eq!(n(Some(100), None, -3), k(4));
        assert_eq!(n(Some(-100), Some(100), 3), k(4));
        assert_eq!(n(Some(i64::MIN), Some(i64::MAX), i64::MAX), k(1));
        assert_eq!(n(None, None, i64::MIN), k(1));
        assert_eq!(slice_len(k(0), None, None, -1), k(0));
        let x = arr(F64, &[10]);
        let e = err(
            Op::Slice {
                start: None,
                stop: None,
                step: 0,
            },
            &[&x],
        );
        assert!(e.contains("zero"));
        let e = err(
            Op::Slice {
                start: None,
                stop: None,
                step: 1,
            },
            &[&arr(F64, &[])],
        );
        assert!(e.contains("0-D"));
    }

    /// Checks a symbolic slice length against Python's for many bindings.
    fn check_symbolic(start: Option<i64>, stop: Option<i64>, step: i64) -> Dim {
        let d = slice_len(t(), start, stop, step);
        if d != Dim::Unknown {
            for n in 0..12 {
                let got = d.eval(&|_| Some(n));
                let want = py_slice_len(n, start, stop, step);
                assert_eq!(got, Some(want), "T={n} [{start:?}:{stop:?}:{step}] -> {d}");
            }
        }
        d
    }

    #[test]
    fn slices_of_symbolic_sizes() {
        let tm = |c: i64| t().sub(&k(c));
        assert_eq!(check_symbolic(Some(1), None, 1), tm(1));
        assert_eq!(check_symbolic(None, Some(-1), 1), tm(1));
        assert_eq!(check_symbolic(Some(1), Some(-2), 1), tm(3));
        assert_eq!(check_symbolic(None, None, 1), t());
        assert_eq!(check_symbolic(None, None, -1), t());
        assert_eq!(check_symbolic(None, Some(2), -1), tm(3));
        assert_eq!(check_symbolic(Some(-2), None, -1), tm(1));
        assert_eq!(check_symbolic(Some(-1), Some(0), -1), tm(1));
        assert_eq!(check_symbolic(Some(5), Some(2), 1), k(0));
        assert_eq!(check_symbolic(Some(-2), Some(-5), 1), k(0));
        assert_eq!(check_symbolic(Some(2), Some(5), -2), k(0));
        assert_eq!(check_symbolic(Some(2), Some(5), 1), Dim::Unknown);
        assert_eq!(check_symbolic(Some(-2), None, 1), Dim::Unknown);
        assert_eq!(check_symbolic(None, None, 2), Dim::Unknown);
        assert_eq!(check_symbolic(Some(3), None, -1), Dim::Unknown);
        // exhaustive soundness over small bounds
        let bounds = [None, Some(-4), Some(-1), Some(0), Some(1), Some(3)];
        for start in bounds {
            for stop in bounds {
                for step in [-3, -1, 1, 2] {
                    check_symbolic(start, stop, step);
                }
            }
        }
        // an affine size keeps its form
        let d = slice_len(t().add(&k(1)), Some(1), None, 1);
        assert_eq!(d, t());
        assert_eq!(slice_len(Dim::Unknown, Some(1), None, 1), Dim::Unknown);
        assert_eq!(slice_len(t(), Some(i64::MAX), None, 1), Dim::Unknown);
    }

    #[test]
    fn creation_and_cast() {
        let ty = arr(F32, &[2, 3]);
        let f = ok(Op::Fill(ty.clone()), &[&lit(Scalar::F64(1.5))]);
        assert_eq!(f, ty);
        assert!(err(Op::Fill(ty.clone()), &[&arr(F32, &[2])]).contains("scalar"));
        assert_eq!(ok(Op::Zeros(ty.clone()), &[]), ty);
        assert_eq!(
            ok(Op::Ones(Type::new(I64, vec![t()])), &[]).shape,
            vec![t()]
        );
        assert!(err(Op::Zeros(arr(F64, &[-1])), &[]).contains("negative"));
        assert!(err(Op::Ones(Type::new(F64, vec![Dim::Unknown])), &[]).contains("symbols"));
        assert!(err(Op::Zeros(ty.clone()), &[&ty]).contains("expects no arguments"));
        assert_eq!(ok(Op::Arange(t()), &[]), Type::new(I64, vec![t()]));
        assert_eq!(ok(Op::Arange(k(-3)), &[]).shape, vec![k(0)]);
        let vals = vec![Scalar::I64(1); 6];
        assert_eq!(ok(Op::Tensor(ty.clone(), vals.clone()), &[]), ty);
        assert!(err(Op::Tensor(ty.clone(), vals[..5].to_vec()), &[]).contains("6 values"));
        assert!(err(Op::Tensor(Type::new(F64, vec![t()]), vec![]), &[]).contains("known"));
        assert!(err(Op::Tensor(arr(I64, &[1]), vec![Scalar::F64(f64::NAN)]), &[]).contains("nan"));
        assert_eq!(
            ok(Op::Tensor(arr(F64, &[]), vec![Scalar::F64(1.0)]), &[]).ndim(),
            0
        );
        let c = ok(Op::Cast(I64), &[&lit(Scalar::F64(2.5))]);
        assert_eq!((c.dtype, c.weak), (I64, false));
        assert_eq!(ok(Op::Cast(Bool), &[&ty]).shape, ty.shape);
    }

    #[test]
    fn huge_sizes_do_not_panic() {
        let big = Type::new(F64, vec![k(i64::MAX)]);
        assert!(err(Op::Unary(UnaryOp::Exp), &[&big]).contains("too large"));
        let limit = Type::new(F64, vec![k(SIZE_LIMIT), t()]);
        let r = ok(Op::Concat(0), &[&limit, &limit, &limit]);
        assert_eq!(r.shape[0], Dim::Unknown);
        let r = ok(Op::Reshape(vec![k(-1)]), &[&limit]);
        assert_eq!(r.shape, vec![t().scale(SIZE_LIMIT)]);
        let over = Type::new(F64, vec![k(SIZE_LIMIT), k(2), t()]);
        let r = ok(Op::Reshape(vec![k(-1)]), &[&over]);
        assert_eq!(r.shape, vec![Dim::Unknown]);
        let many = Type::new(F64, vec![k(SIZE_LIMIT); 6]);
        assert!(go(Op::Reshape(vec![k(-1), k(3)]), &[&many]).is_ok());
        assert!(go(Op::Tensor(many.clone(), vec![]), &[]).is_err());
        for step in [i64::MIN, -1, 1, i64::MAX] {
            for b in [None, Some(i64::MIN), Some(i64::MAX)] {
                let _ = go(
                    Op::Slice {
                        start: b,
                        stop: b,
                        step,
                    },
                    &[&limit],
                );
            }
        }
        let _ = go(Op::ExpandDims(i64::MIN), &[&limit]);
        let _ = go(Op::Reduce(ReduceOp::Sum, Some(i64::MIN)), &[&limit]);
        let _ = go(Op::Transpose(Some(vec![i64::MIN, i64::MAX])), &[&limit]);
    }
}
