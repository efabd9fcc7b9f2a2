//! The vector-Jacobian product of every op: given the cotangent `g` of an
//! op's result, the cotangent each of its operands receives.
//!
//! Owns: [`vjp`], one arm per [`Op`] variant (the match is exhaustive, so
//! a new op does not compile until its gradient is decided here), and the
//! gradient rules where an op is not differentiable at a point (docs/gradients.md,
//! "Gradients"): `abs` at 0 gives 0; `maximum`/`minimum` give a tie
//! entirely to their first operand; `max`/`min` reductions give every
//! tied element the full cotangent (PyTensor's rules); `prod` and
//! `cumprod` are zero-safe (no division by the operand). No gradient
//! flows into comparisons, `sign`, casts to or from integers and bools,
//! indices, literals and `stop_gradient`. Must not: walk a graph (see
//! [`super::reverse`]) or differentiate a loop (see [`super::loop_vjp`]).
//!
//! Each contribution is reduced back to its operand's type by
//! [`Emit::fit`] (broadcast axes summed, dtype cast).

use super::emit::Emit;
use super::error::{GradError, Unsupported};
use crate::lang::{
    BinaryOp, CompareOp, CumOp, Dim, LoopSig, NodeId, NormOp, Op, OutputInfo, ReduceOp, Type,
    UnaryOp,
};

/// The cotangent contributions of node `node` (an op of the builder's
/// graph) whose result has cotangent `g`: one entry per value argument,
/// `None` where no gradient flows or where `wanted` is false. Each entry
/// has its operand's type. Loops and their projections are differentiated
/// by [`super::loop_vjp`], not here.
pub fn vjp(
    e: &mut Emit,
    node: NodeId,
    g: NodeId,
    wanted: &[bool],
) -> Result<Vec<Option<NodeId>>, GradError> {
    let n = e.b.graph().node(node).clone();
    let args = n.args.clone();
    let out = node;
    let arg_ty: Vec<Type> = args.iter().map(|a| e.ty(*a)).collect::<Result<_, _>>()?;
    let want = |k: usize| {
        wanted.get(k).copied().unwrap_or(false) && arg_ty.get(k).is_some_and(|t| t.dtype.is_float())
    };
    let mut res: Vec<Option<NodeId>> = vec![None; args.len()];
    // Lists: `stack` and `unstack` are each other's VJP, as are `flatten`
    // and `nest` (the cotangent in the operand's nesting); `len` and a
    // list no gradient is wanted for pass none; `index` of a list of
    // tensors sends its cotangent to that element, zeros to the others.
    // Other list ops (`index` of a list of lists, `compress` of a list)
    // refuse, located.
    if matches!(n.op, Op::List(_)) || arg_ty.iter().any(|t| t.is_list()) {
        let any = (0..args.len()).any(want);
        match &n.op {
            _ if !any => return Ok(res),
            Op::List(crate::lang::ListOp::Len) => return Ok(res),
            Op::Stack if args.len() == 1 => {
                res[0] = Some(e.op(Op::List(crate::lang::ListOp::Unstack), &[g])?);
                return Ok(res);
            }
            Op::List(crate::lang::ListOp::Unstack) => {
                let rows = e.op(Op::Stack, &[g])?;
                res[0] = Some(e.fit(rows, &arg_ty[0])?);
                return Ok(res);
            }
            // One element of a list of tensors: the list's cotangent is
            // the tensor index's, `(inc_index (zeros_like (stack L)) g I)`,
            // as a list. Only where every element has the same shape by
            // its type (no size known only at run time), so that the
            // `stack` cannot fail where the written program does not.
            Op::Index
                if args.len() == 2
                    && super::emit::stackable_list(&arg_ty[0])
                    && !arg_ty[1].is_list() =>
            {
                let rows = e.op(Op::Stack, &[args[0]])?;
                let ct = index(e, rows, &args[1..], g)?;
                res[0] = Some(e.op(Op::List(crate::lang::ListOp::Unstack), &[ct])?);
                return Ok(res);
            }
            // `flatten` and `nest` move no value: each tensor's cotangent
            // goes back to its place in the operand's nesting.
            Op::List(crate::lang::ListOp::Flatten) => {
                res[0] = Some(e.op(Op::List(crate::lang::ListOp::Nest), &[g, args[0]])?);
                return Ok(res);
            }
            Op::List(crate::lang::ListOp::Nest) => {
                if want(0) {
                    res[0] = Some(if arg_ty[0].is_list() {
                        e.op(Op::List(crate::lang::ListOp::Nest), &[g, args[0]])?
                    } else {
                        let mut flat = g;
                        for _ in 1..arg_ty[1].list {
                            flat = e.op(Op::List(crate::lang::ListOp::Flatten), &[flat])?;
                        }
                        let rows = e.op(Op::Stack, &[flat])?;
                        e.fit(rows, &arg_ty[0])?
                    });
                }
                return Ok(res);
            }
            _ => {
                return Err(GradError::Build(crate::lang::LangError::Type {
                    span: e.span,
                    op: n.op.name().into(),
                    msg: "gradients through this list op are not supported yet".into(),
                }))
            }
        }
    }
    match &n.op {
        Op::Input(_)
        | Op::Literal(_)
        | Op::Size(_)
        | Op::Compare(_)
        | Op::Zeros(_)
        | Op::Ones(_)
        | Op::Arange(_)
        | Op::Tensor(..)
        | Op::ZerosLike
        | Op::Eye(_)
        | Op::StopGradient => {}
        // Draws are constants for `grad`, as in JAX: `bernoulli` and
        // `categorical` give no gradient with respect to P and LOGITS (their
        // results are piecewise constant in them), and keys carry none.
        Op::MakeKey
        | Op::Split(_)
        | Op::FoldIn
        | Op::Uniform(_)
        | Op::Normal(_)
        | Op::Bernoulli
        | Op::Categorical => {}
        Op::Scan(_) | Op::Proj(_) | Op::Grad | Op::List(_) => {
            return Err(GradError::Build(crate::lang::LangError::Type {
                span: e.span,
                op: "grad".into(),
                msg: format!(
                    "internal: {} is differentiated by the loop rule",
                    n.op.name()
                ),
            }))
        }
        Op::Unary(u) => {
            if want(0) {
                res[0] = unary(e, *u, args[0], out, g)?;
            }
        }
        Op::Binary(op) => {
            let (x, y) = (args[0], args[1]);
            let (gx, gy) = binary(e, *op, x, y, out, g, want(0), want(1))?;
            res[0] = gx;
            res[1] = gy;
        }
        Op::Where => {
            let c = args[0];
            let zero = e.lit(0.0)?;
            if want(1) {
                res[1] = Some(e.where_(c, g, zero)?);
            }
            if want(2) {
                res[2] = Some(e.where_(c, zero, g)?);
            }
        }
        Op::Reduce(r, axis) => {
            if want(0) {
                res[0] = Some(reduce(e, *r, *axis, args[0], out, g)?);
            }
        }
        Op::Cumulative(c, axis) => {
            if want(0) {
                res[0] = Some(cumulative(e, *c, *axis, args[0], out, g)?);
            }
        }
        Op::Normalize(n, axis) => {
            if want(0) {
                res[0] = Some(normalize(e, *n, *axis, args[0], out, g)?);
            }
        }
        Op::Dot => {
            let (ga, gb) = dot(e, args[0], args[1], g, want(0), want(1))?;
            res[0] = ga;
            res[1] = gb;
        }
        Op::Matmul => {
            let (ga, gb) = matmul(e, args[0], args[1], g, want(0), want(1))?;
            res[0] = ga;
            res[1] = gb;
        }
        Op::Transpose(perm) => {
            if want(0) {
                let inv = match perm {
                    None => None,
                    Some(p) => {
                        let nd = p.len() as i64;
                        let mut inv = vec![0i64; p.len()];
                        for (i, &a) in p.iter().enumerate() {
                            let a = if a < 0 { a + nd } else { a };
                            inv[a as usize] = i as i64;
                        }
                        Some(inv)
                    }
                };
                res[0] = Some(e.op(Op::Transpose(inv), &[g])?);
            }
        }
        Op::Reshape(_) => {
            if want(0) {
                let shape = &arg_ty[0].shape;
                let unknown = shape.iter().filter(|d| **d == Dim::Unknown).count();
                if unknown > 1 {
                    return Err(e.unsupported("reshape", Unsupported::ReshapeUnknownSizes));
                }
                // A size written neither as a number nor as one symbol
                // (`3*T`: the length of a matrix flattened) becomes -1
                // when it is the only one: a term can then hold it.
                let plain = |d: &Dim| d.as_known().is_some() || d.as_sym().is_some();
                let odd = shape.iter().filter(|d| !plain(d)).count();
                let dims: Vec<Dim> = shape
                    .iter()
                    .map(|d| match d {
                        Dim::Unknown => Dim::known(-1),
                        d if odd == 1 && !plain(d) => Dim::known(-1),
                        d => d.clone(),
                    })
                    .collect();
                res[0] = Some(e.op(Op::Reshape(dims), &[g])?);
            }
        }
        Op::ExpandDims(axis) => {
            if want(0) {
                let nd = arg_ty[0].ndim() as i64 + 1;
                let a = if *axis < 0 { axis + nd } else { *axis };
                res[0] = Some(e.sum(g, Some(a))?);
            }
        }
        Op::Stack => {
            for (k, r) in res.iter_mut().enumerate() {
                if want(k) {
                    let i = e.int(k as i64)?;
                    *r = Some(e.op(Op::Index, &[g, i])?);
                }
            }
        }
        Op::Concat(axis) => {
            let parts = concat(
                e,
                *axis,
                &args,
                &arg_ty,
                g,
                &(0..args.len()).map(want).collect::<Vec<_>>(),
            )?;
            res = parts;
        }
        Op::Index => {
            if want(0) {
                res[0] = Some(index(e, args[0], &args[1..], g)?);
            }
        }
        Op::Slice { start, stop, step } => {
            if want(0) {
                res[0] = Some(slice(e, args[0], *start, *stop, *step, g)?);
            }
        }
        Op::Fill(_) => {
            if want(0) {
                res[0] = Some(e.sum(g, None)?);
            }
        }
        Op::Cast(_) => {
            if want(0) && e.ty(out)?.dtype.is_float() {
                res[0] = Some(g);
            }
        }
        Op::LinRec => {
            let [a, u, h0] = [args[0], args[1], args[2]];
            let [ga, gu, gh] = linrec(e, a, u, h0, out, g, [want(0), want(1), want(2)])?;
            res[0] = ga;
            res[1] = gu;
            res[2] = gh;
        }
        Op::LogMatMulExp => {
            let (ga, gb) = logmatmulexp(e, args[0], args[1], out, g, want(0), want(1))?;
            res[0] = ga;
            res[1] = gb;
        }
        // (sum_to G X): each element of G was added into one of the
        // result's; X only gives the shape.
        Op::SumTo => {
            if want(0) {
                res[0] = Some(e.broadcast_like(g, args[0])?);
            }
        }
        // A copy of X with G added into a part: X receives g whole, G the
        // part of g it was added to.
        Op::IncIndex => {
            if want(0) {
                res[0] = Some(g);
            }
            if want(1) {
                let mut ix = vec![g];
                ix.extend_from_slice(&args[2..]);
                res[1] = Some(e.op(Op::Index, &ix)?);
            }
        }
        Op::IncSlice { start, stop, step } => {
            if want(0) {
                res[0] = Some(g);
            }
            if want(1) {
                let part = Op::Slice {
                    start: *start,
                    stop: *stop,
                    step: *step,
                };
                res[1] = Some(e.op(part, &[g])?);
            }
        }
        Op::Flip(axis) => {
            if want(0) {
                res[0] = Some(e.op(Op::Flip(*axis), &[g])?);
            }
        }
        Op::Squeeze(axis) => {
            if want(0) {
                let a = norm_axis(*axis, arg_ty[0].ndim());
                res[0] = Some(e.expand_dims(g, a)?);
            }
        }
        Op::Clip => {
            let [gx, glo, ghi] = clip(
                e,
                [args[0], args[1], args[2]],
                g,
                [want(0), want(1), want(2)],
            )?;
            res[0] = gx;
            res[1] = glo;
            res[2] = ghi;
        }
        // g[i, j] = a[i] b[j]: ā = g·b, b̄ = gᵀ·a.
        Op::Outer => {
            if want(0) {
                res[0] = Some(e.op(Op::Dot, &[g, args[1]])?);
            }
            if want(1) {
                let gt = e.op(Op::Transpose(None), &[g])?;
                res[1] = Some(e.op(Op::Dot, &[gt, args[0]])?);
            }
        }
        // X's part was replaced: X receives g with zeros there; V the
        // part of g (summed over what it was broadcast to, by `fit`).
        Op::SetIndex => {
            if want(0) {
                let zero = e.lit(0.0)?;
                let mut a = vec![g, zero];
                a.extend_from_slice(&args[2..]);
                res[0] = Some(e.op(Op::SetIndex, &a)?);
            }
            if want(1) {
                let mut ix = vec![g];
                ix.extend_from_slice(&args[2..]);
                res[1] = Some(e.op(Op::Index, &ix)?);
            }
        }
        Op::SetSlice { start, stop, step } => {
            let (start, stop, step) = (*start, *stop, *step);
            if want(0) {
                let zero = e.lit(0.0)?;
                res[0] = Some(e.op(Op::SetSlice { start, stop, step }, &[g, zero])?);
            }
            if want(1) {
                res[1] = Some(e.op(Op::Slice { start, stop, step }, &[g])?);
            }
        }
        // Each picked position's cotangent added back at its position
        // (repeated picks add up).
        Op::Take(axis) => {
            if want(0) {
                let dtype = arg_ty[0].dtype;
                let gc = e.cast(g, dtype)?;
                let z = e.zeros_like(args[0])?;
                res[0] = Some(e.op(Op::IncTake(*axis), &[z, gc, args[1]])?);
            }
        }
        Op::IncTake(axis) => {
            if want(0) {
                res[0] = Some(g);
            }
            if want(1) {
                res[1] = Some(e.op(Op::Take(*axis), &[g, args[2]])?);
            }
        }
        Op::SetTake(axis) => {
            if want(0) {
                let zero = e.lit(0.0)?;
                res[0] = Some(e.op(Op::SetTake(*axis), &[g, zero, args[2]])?);
            }
            if want(1) {
                res[1] = Some(set_take_value(e, *axis, args[0], args[2], &arg_ty, g)?);
            }
        }
        // Each kept row's cotangent goes back to its row, zeros in the
        // rows left out (the mask, a bool, has none).
        Op::Compress => {
            if want(1) {
                let back = e.op(Op::Uncompress, &[args[0], g])?;
                res[1] = Some(e.fit(back, &arg_ty[1])?);
            }
        }
        Op::Solve | Op::SolveTriangular(_) | Op::Cholesky | Op::Inv | Op::Det | Op::Slogdet(_) => {
            let [ga, gb] = super::linalg_vjp::linalg(e, &n.op, &args, out, g, [want(0), want(1)])?;
            res[0] = ga;
            if res.len() > 1 {
                res[1] = gb;
            }
        }
        // The rows put back are read at the same positions.
        Op::Uncompress => {
            if want(1) {
                let rows = e.op(Op::Compress, &[args[0], g])?;
                res[1] = Some(e.fit(rows, &arg_ty[1])?);
            }
        }
    }
    for (k, r) in res.iter_mut().enumerate() {
        if let Some(c) = *r {
            *r = Some(e.fit(c, &arg_ty[k])?);
        }
    }
    Ok(res)
}

/// The cotangent of the operand `x` of `u(x)` (result `out`).
fn unary(
    e: &mut Emit,
    u: UnaryOp,
    x: NodeId,
    out: NodeId,
    g: NodeId,
) -> Result<Option<NodeId>, GradError> {
    Ok(Some(match u {
        UnaryOp::Neg => e.neg(g)?,
        UnaryOp::Exp => e.mul(g, out)?,
        UnaryOp::Log => e.div(g, x)?,
        UnaryOp::Log1p => {
            let one = e.lit(1.0)?;
            let d = e.add(x, one)?;
            e.div(g, d)?
        }
        UnaryOp::Sqrt => {
            let half = e.lit(0.5)?;
            let h = e.mul(g, half)?;
            e.div(h, out)?
        }
        UnaryOp::Tanh => {
            let one = e.lit(1.0)?;
            let sq = e.mul(out, out)?;
            let d = e.sub(one, sq)?;
            e.mul(g, d)?
        }
        UnaryOp::Sigmoid => {
            let one = e.lit(1.0)?;
            let c = e.sub(one, out)?;
            let d = e.mul(out, c)?;
            e.mul(g, d)?
        }
        // g * f'(x) where f' is another unary op of x (sign(0) = 0: abs
        // has gradient 0 at 0).
        UnaryOp::Sin
        | UnaryOp::Abs
        | UnaryOp::Expm1
        | UnaryOp::Softplus
        | UnaryOp::Gammaln
        | UnaryOp::Digamma => {
            let derivative = match u {
                UnaryOp::Sin => UnaryOp::Cos,
                UnaryOp::Abs => UnaryOp::Sign,
                UnaryOp::Expm1 => UnaryOp::Exp,
                UnaryOp::Softplus => UnaryOp::Sigmoid,
                UnaryOp::Gammaln => UnaryOp::Digamma,
                UnaryOp::Digamma => UnaryOp::Trigamma,
                _ => return Err(e.unsupported("grad", Unsupported::Derivative("a derivative op"))),
            };
            let d = e.unary(derivative, x)?;
            e.mul(g, d)?
        }
        UnaryOp::Cos => {
            let s = e.unary(UnaryOp::Sin, x)?;
            let m = e.mul(g, s)?;
            e.neg(m)?
        }
        // Piecewise constant: zero almost everywhere (JAX's convention;
        // PyTensor's too for floor, ceil and round).
        UnaryOp::Sign | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round => return Ok(None),
        // erf'(x) = 2/sqrt(pi) e^(-x^2); erfc' its negative.
        UnaryOp::Erf | UnaryOp::Erfc => {
            let sq = e.mul(x, x)?;
            let nsq = e.neg(sq)?;
            let ex = e.unary(UnaryOp::Exp, nsq)?;
            let k = if u == UnaryOp::Erf {
                std::f64::consts::FRAC_2_SQRT_PI
            } else {
                -std::f64::consts::FRAC_2_SQRT_PI
            };
            let c = e.lit(k)?;
            let d = e.mul(c, ex)?;
            e.mul(g, d)?
        }
        UnaryOp::Trigamma => {
            return Err(e.unsupported("trigamma", Unsupported::Derivative("polygamma(2, x)")))
        }
    }))
}

/// The cotangents of `x` and `y` in `op(x, y)` (result `out`), before
/// broadcasting is undone.
#[allow(clippy::too_many_arguments)]
fn binary(
    e: &mut Emit,
    op: BinaryOp,
    x: NodeId,
    y: NodeId,
    out: NodeId,
    g: NodeId,
    wx: bool,
    wy: bool,
) -> Result<(Option<NodeId>, Option<NodeId>), GradError> {
    let mut gx = None;
    let mut gy = None;
    match op {
        BinaryOp::Add => {
            gx = wx.then_some(g);
            gy = wy.then_some(g);
        }
        BinaryOp::Sub => {
            gx = wx.then_some(g);
            if wy {
                gy = Some(e.neg(g)?);
            }
        }
        BinaryOp::Mul => {
            if wx {
                gx = Some(e.mul(g, y)?);
            }
            if wy {
                gy = Some(e.mul(g, x)?);
            }
        }
        BinaryOp::Div => {
            if wx {
                gx = Some(e.div(g, y)?);
            }
            if wy {
                // d(x/y)/dy = -(x/y)/y
                let m = e.mul(g, out)?;
                let d = e.div(m, y)?;
                gy = Some(e.neg(d)?);
            }
        }
        BinaryOp::Pow => {
            if wx {
                // y * x^(y-1)
                let one = e.lit(1.0)?;
                let ym1 = e.sub(y, one)?;
                let p = e.bin(BinaryOp::Pow, x, ym1)?;
                let d = e.mul(y, p)?;
                gx = Some(e.mul(g, d)?);
            }
            if wy {
                // log(x) * x^y, taken as 0 where x == 0
                let l = e.unary(UnaryOp::Log, x)?;
                let d = e.mul(l, out)?;
                let m = e.mul(g, d)?;
                let zero = e.lit(0.0)?;
                let at0 = e.cmp(CompareOp::Eq, x, zero)?;
                gy = Some(e.where_(at0, zero, m)?);
            }
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            // A tie goes entirely to the first operand.
            let c = if op == BinaryOp::Maximum {
                CompareOp::Ge
            } else {
                CompareOp::Le
            };
            let first = e.cmp(c, x, y)?;
            let zero = e.lit(0.0)?;
            if wx {
                gx = Some(e.where_(first, g, zero)?);
            }
            if wy {
                gy = Some(e.where_(first, zero, g)?);
            }
        }
        // a mod b = a - b floor(a / b), floor's derivative taken as zero
        // (JAX's convention).
        BinaryOp::Mod => {
            gx = wx.then_some(g);
            if wy {
                let q = e.bin(BinaryOp::FloorDiv, x, y)?;
                let m = e.mul(g, q)?;
                gy = Some(e.neg(m)?);
            }
        }
        // Piecewise constant.
        BinaryOp::FloorDiv => {}
    }
    Ok((gx, gy))
}

/// `axis` of a rank-`n` value, counted from the front.
fn norm_axis(axis: i64, n: usize) -> i64 {
    if axis < 0 {
        axis + n as i64
    } else {
        axis
    }
}

/// The cotangent of `x` in `r(x, axis)` (result `out`).
fn reduce(
    e: &mut Emit,
    r: ReduceOp,
    axis: Option<i64>,
    x: NodeId,
    out: NodeId,
    g: NodeId,
) -> Result<NodeId, GradError> {
    let xt = e.ty(x)?;
    let a = axis.map(|a| norm_axis(a, xt.ndim()));
    // A value of the reduced shape, made to broadcast against x.
    let back = |e: &mut Emit, v: NodeId| -> Result<NodeId, GradError> {
        match a {
            Some(a) => e.expand_dims(v, a),
            None => Ok(v),
        }
    };
    let ge = back(e, g)?;
    Ok(match r {
        ReduceOp::Sum => e.broadcast_like(ge, x)?,
        ReduceOp::Mean => {
            let count = match a {
                Some(a) => xt.shape[a as usize].clone(),
                None => xt.shape.iter().fold(Dim::known(1), |acc, d| acc.mul(d)),
            };
            let scaled = if count == Dim::Unknown {
                // 1/N from the operand's shape: the mean of ones.
                let one = e.lit(1.0)?;
                let ones = e.broadcast_like(one, x)?;
                let ones = e.cast(ones, xt.dtype)?;
                let n = e.sum(ones, axis)?;
                let n = back(e, n)?;
                e.div(ge, n)?
            } else {
                let n = e.size_value(&count, "mean")?;
                e.div(ge, n)?
            };
            e.broadcast_like(scaled, x)?
        }
        // Piecewise constant (an index, a truth value): zero.
        ReduceOp::Argmax | ReduceOp::Argmin | ReduceOp::All | ReduceOp::Any => e.zeros_like(x)?,
        // softmax(x) along the axis: exp(x - logsumexp(x)).
        ReduceOp::LogSumExp => {
            let oe = back(e, out)?;
            let d = e.sub(x, oe)?;
            let p = e.unary(UnaryOp::Exp, d)?;
            let m = e.mul(ge, p)?;
            e.broadcast_like(m, x)?
        }
        ReduceOp::Max | ReduceOp::Min => {
            // Every element equal to the result gets the full cotangent.
            let oe = back(e, out)?;
            let hit = e.cmp(CompareOp::Eq, x, oe)?;
            let zero = e.lit(0.0)?;
            let w = e.where_(hit, ge, zero)?;
            e.broadcast_like(w, x)?
        }
        ReduceOp::Prod => {
            // Zero-safe: with no zero in the group, prod/x; with exactly one,
            // the zero's slot gets the product of the others; else 0.
            let zero = e.lit(0.0)?;
            let one = e.lit(1.0)?;
            let is0 = e.cmp(CompareOp::Eq, x, zero)?;
            let nz = e.where_(is0, one, x)?;
            let p_nz = e.op(Op::Reduce(ReduceOp::Prod, axis), &[nz])?;
            let p_nz = back(e, p_nz)?;
            let z_as = e.cast(is0, xt.dtype)?;
            let n0 = e.sum(z_as, axis)?;
            let n0 = back(e, n0)?;
            let none = e.cmp(CompareOp::Eq, n0, zero)?;
            let just1 = e.cmp(CompareOp::Eq, n0, one)?;
            let plain = e.div(p_nz, nz)?;
            let at_zero = e.where_(is0, p_nz, zero)?;
            let single = e.where_(just1, at_zero, zero)?;
            let d = e.where_(none, plain, single)?;
            let m = e.mul(ge, d)?;
            e.broadcast_like(m, x)?
        }
    })
}

/// The cotangent of `x` in a softmax or log-softmax along `axis` (result
/// `out`): softmax: `y (g - sum(g y))`; log-softmax: `g - exp(out)
/// sum(g)`, the sums along the axis kept for broadcasting.
fn normalize(
    e: &mut Emit,
    n: NormOp,
    axis: i64,
    x: NodeId,
    out: NodeId,
    g: NodeId,
) -> Result<NodeId, GradError> {
    let xt = e.ty(x)?;
    let a = norm_axis(axis, xt.ndim());
    Ok(match n {
        NormOp::Softmax => {
            let gy = e.mul(g, out)?;
            let s = e.sum(gy, Some(a))?;
            let s = e.expand_dims(s, a)?;
            let d = e.sub(g, s)?;
            e.mul(out, d)?
        }
        NormOp::LogSoftmax => {
            let s = e.sum(g, Some(a))?;
            let s = e.expand_dims(s, a)?;
            let p = e.unary(UnaryOp::Exp, out)?;
            let m = e.mul(p, s)?;
            e.sub(g, m)?
        }
    })
}

/// The cotangent of `x` in a running sum or product along `axis`.
fn cumulative(
    e: &mut Emit,
    c: CumOp,
    axis: i64,
    x: NodeId,
    out: NodeId,
    g: NodeId,
) -> Result<NodeId, GradError> {
    let xt = e.ty(x)?;
    if xt.ndim() == 0 {
        return Ok(g);
    }
    let a = norm_axis(axis, xt.ndim()) as usize;
    let gs = e.swap_axes(g, 0, a)?;
    let r = match c {
        CumOp::Cumsum => {
            // The reversed running sum of g.
            let f = e.flip0(gs)?;
            let cs = e.op(Op::Cumulative(CumOp::Cumsum, 0), &[f])?;
            e.flip0(cs)?
        }
        CumOp::Cumprod => {
            // x̄_i = L_i R_i: L the exclusive running product, R_i =
            // g_i + x_{i+1} R_{i+1} (a backward loop), no division.
            let xs = e.swap_axes(x, 0, a)?;
            let ps = e.swap_axes(out, 0, a)?;
            let st = e.ty(xs)?;
            let mut row = st.clone();
            row.shape[0] = Dim::known(1);
            let ones = e.op(Op::Ones(row.strong()), &[])?;
            let head = e.op(
                Op::Slice {
                    start: None,
                    stop: Some(-1),
                    step: 1,
                },
                &[ps],
            )?;
            let l = e.op(Op::Concat(0), &[ones, head])?;
            let mut step = st.clone();
            step.shape.remove(0);
            let c0 = e.zeros(&step)?;
            let sig = LoopSig {
                sequences: vec![vec![0], vec![0]],
                outputs: vec![OutputInfo::Sitsot, OutputInfo::Nitsot],
                n_non_seqs: 0,
                has_n_steps: false,
                go_backwards: true,
                keep: Vec::new(),
                until: false,
                as_list: Vec::new(),
            };
            let outs = e.b.scan(sig, &[gs, xs, c0], |body, p| {
                let r = body.op(Op::Binary(BinaryOp::Add), &[p[0], p[2]])?;
                let c = body.op(Op::Binary(BinaryOp::Mul), &[p[1], r])?;
                Ok::<_, GradError>(vec![c, r])
            })?;
            let rr = e.flip0(outs[1])?;
            e.mul(l, rr)?
        }
    };
    e.swap_axes(r, 0, a)
}

/// `r = logmatmulexp(a, B)`: with the weights `P = exp(a_i + B_ij − r_j)`
/// (each column of `P` sums to 1, every weight at most 1: the softmax of
/// the column, computed stably), `ga_i = Σ_j P_ij g_j` and
/// `gB_ij = P_ij g_j` (summed over the rows of a matrix `a`).
fn logmatmulexp(
    e: &mut Emit,
    a: NodeId,
    b: NodeId,
    r: NodeId,
    g: NodeId,
    wa: bool,
    wb: bool,
) -> Result<(Option<NodeId>, Option<NodeId>), GradError> {
    if !(wa || wb) {
        return Ok((None, None));
    }
    // a's axes, then B's column axis: (N, M) or (K, N, M).
    let nd = e.ty(a)?.ndim() as i64;
    let col = e.expand_dims(a, nd)?;
    let x = e.add(col, b)?;
    let rr = e.expand_dims(r, nd - 1)?;
    let shifted = e.sub(x, rr)?;
    let p = e.unary(UnaryOp::Exp, shifted)?;
    let gg = e.expand_dims(g, nd - 1)?;
    let pg = e.mul(p, gg)?;
    let ga = if wa { Some(e.sum(pg, Some(nd))?) } else { None };
    let gb = match (wb, nd) {
        (false, _) => None,
        (true, 1) => Some(pg),
        (true, _) => Some(e.sum(pg, Some(0))?),
    };
    Ok((ga, gb))
}

/// The cotangents of `a` and `b` in `numpy.dot(a, b)` (0-, 1-, 2-D).
fn dot(
    e: &mut Emit,
    a: NodeId,
    b: NodeId,
    g: NodeId,
    wa: bool,
    wb: bool,
) -> Result<(Option<NodeId>, Option<NodeId>), GradError> {
    let (ra, rb) = (e.ty(a)?.ndim(), e.ty(b)?.ndim());
    let t = |e: &mut Emit, x: NodeId| e.op(Op::Transpose(None), &[x]);
    let mut ga = None;
    let mut gb = None;
    match (ra, rb) {
        (0, _) | (_, 0) => {
            if wa {
                ga = Some(e.mul(g, b)?);
            }
            if wb {
                gb = Some(e.mul(g, a)?);
            }
        }
        (1, 1) => {
            if wa {
                ga = Some(e.mul(g, b)?);
            }
            if wb {
                gb = Some(e.mul(g, a)?);
            }
        }
        (2, 1) => {
            if wa {
                let gc = e.expand_dims(g, 1)?;
                let br = e.expand_dims(b, 0)?;
                ga = Some(e.mul(gc, br)?);
            }
            if wb {
                let at = t(e, a)?;
                gb = Some(e.op(Op::Dot, &[at, g])?);
            }
        }
        (1, 2) => {
            if wa {
                ga = Some(e.op(Op::Dot, &[b, g])?);
            }
            if wb {
                let ac = e.expand_dims(a, 1)?;
                let gr = e.expand_dims(g, 0)?;
                gb = Some(e.mul(ac, gr)?);
            }
        }
        _ => {
            if wa {
                let bt = t(e, b)?;
                ga = Some(e.op(Op::Dot, &[g, bt])?);
            }
            if wb {
                let at = t(e, a)?;
                gb = Some(e.op(Op::Dot, &[at, g])?);
            }
        }
    }
    Ok((ga, gb))
}

/// The cotangents of `a` and `b` in `numpy.matmul(a, b)`: 1-D operands
/// are made a row and a column, the batch axes summed back by `fit`.
fn matmul(
    e: &mut Emit,
    a: NodeId,
    b: NodeId,
    g: NodeId,
    wa: bool,
    wb: bool,
) -> Result<(Option<NodeId>, Option<NodeId>), GradError> {
    let (ra, rb) = (e.ty(a)?.ndim(), e.ty(b)?.ndim());
    let a2 = if ra == 1 { e.expand_dims(a, 0)? } else { a };
    let b2 = if rb == 1 { e.expand_dims(b, -1)? } else { b };
    let mut g2 = g;
    if ra == 1 {
        g2 = e.expand_dims(g2, -2)?;
    }
    if rb == 1 {
        g2 = e.expand_dims(g2, -1)?;
    }
    let swap_last = |e: &mut Emit, x: NodeId| -> Result<NodeId, GradError> {
        let n = e.ty(x)?.ndim();
        e.swap_axes(x, n - 2, n - 1)
    };
    let mut ga = None;
    let mut gb = None;
    if wa {
        let bt = swap_last(e, b2)?;
        let m = e.op(Op::Matmul, &[g2, bt])?;
        let mut t = e.ty(a2)?;
        t.dtype = e.ty(m)?.dtype;
        let m = e.fit(m, &t)?;
        ga = Some(if ra == 1 { e.sum(m, Some(0))? } else { m });
    }
    if wb {
        let at = swap_last(e, a2)?;
        let m = e.op(Op::Matmul, &[at, g2])?;
        let mut t = e.ty(b2)?;
        t.dtype = e.ty(m)?.dtype;
        let m = e.fit(m, &t)?;
        gb = Some(if rb == 1 { e.sum(m, Some(-1))? } else { m });
    }
    Ok((ga, gb))
}

/// The cotangents of the parts of `(concat axis x ...)`: `g` cut along
/// the axis at the parts' lengths (integers, but for at most one part,
/// which then lies between the cuts counted from both ends).
/// With several symbolic parts, see [`concat_symbolic`].
fn concat(
    e: &mut Emit,
    axis: i64,
    parts: &[NodeId],
    tys: &[Type],
    g: NodeId,
    want: &[bool],
) -> Result<Vec<Option<NodeId>>, GradError> {
    let nd = tys.first().map_or(0, |t| t.ndim());
    let a = norm_axis(axis, nd) as usize;
    let lens: Vec<Option<i64>> = tys.iter().map(|t| t.shape[a].as_known()).collect();
    let symbolic = lens.iter().filter(|l| l.is_none()).count();
    let gs = e.swap_axes(g, 0, a)?;
    if symbolic > 1 {
        // Along another axis the gathered rows of a transposed cotangent
        // come out wrong in the compiled plan (the interpreter is right):
        // refused until that is found.
        if a != 0 && want.iter().any(|w| *w) {
            return Err(e.unsupported("concat", Unsupported::ConcatSymbolicParts));
        }
        return concat_symbolic(e, a, parts, tys, gs, want);
    }
    let mut res = vec![None; tys.len()];
    // Cut points counted from the front before the symbolic part, from
    // the end after it.
    let sym_at = lens.iter().position(|l| l.is_none()).unwrap_or(tys.len());
    let mut front = 0i64;
    for k in 0..sym_at {
        let len = lens[k].unwrap_or(0);
        if want[k] {
            let piece = e.op(
                Op::Slice {
                    start: Some(front),
                    stop: Some(front + len),
                    step: 1,
                },
                &[gs],
            )?;
            res[k] = Some(e.swap_axes(piece, 0, a)?);
        }
        front += len;
    }
    let mut back = 0i64; // rows after the current part, counted from the end
    for k in (sym_at..tys.len()).rev() {
        let start_back = back + lens[k].unwrap_or(0);
        if want[k] {
            let (start, stop) = if k == sym_at {
                (Some(front), (back > 0).then_some(-back))
            } else {
                (Some(-start_back), (back > 0).then_some(-back))
            };
            let piece = e.op(
                Op::Slice {
                    start,
                    stop,
                    step: 1,
                },
                &[gs],
            )?;
            res[k] = Some(e.swap_axes(piece, 0, a)?);
        }
        back = start_back;
    }
    Ok(res)
}

/// The cotangents of the parts of a `concat` along axis `a` with more
/// than one symbolic length (`gs`: the cotangent with axis `a` first).
/// Slices take integer bounds only, so each wanted part's rows are
/// gathered by a loop over that part's rows (its length is the step
/// count): a counter from the part's offset (the lengths before it, a
/// size value such as `T + 2`) reads `gs` at each row. An offset known
/// only at run time is refused.
fn concat_symbolic(
    e: &mut Emit,
    a: usize,
    parts: &[NodeId],
    tys: &[Type],
    gs: NodeId,
    want: &[bool],
) -> Result<Vec<Option<NodeId>>, GradError> {
    let mut res = vec![None; tys.len()];
    let mut offset = Dim::known(0);
    for (k, t) in tys.iter().enumerate() {
        if want[k] {
            if offset == Dim::Unknown {
                return Err(e.unsupported("concat", Unsupported::ConcatSymbolicParts));
            }
            let start = e.size_value(&offset, "concat")?;
            let rows = e.swap_axes(parts[k], 0, a)?;
            let sig = LoopSig {
                sequences: vec![vec![0]],
                outputs: vec![OutputInfo::Sitsot, OutputInfo::Nitsot],
                n_non_seqs: 1,
                has_n_steps: false,
                go_backwards: false,
                keep: Vec::new(),
                until: false,
                as_list: Vec::new(),
            };
            // Parameters: the part's row (unread), the row counter, gs.
            let outs = e.b.scan(sig, &[rows, start, gs], |body, ps| {
                let mut be = Emit {
                    b: body,
                    span: e.span,
                };
                let one = be.int(1)?;
                let next = be.add(ps[1], one)?;
                let row = be.op(Op::Index, &[ps[2], ps[1]])?;
                Ok::<_, GradError>(vec![next, row])
            })?;
            let piece = e.swap_axes(outs[1], 0, a)?;
            res[k] = Some(e.fit(piece, t)?);
        }
        offset = offset.add(&t.shape[a]);
    }
    Ok(res)
}

/// The cotangent of `x` in `x[i, ...]`: `g` added into zeros of `x`'s
/// shape at the indexed part (an increment, so repeated reads of one
/// element add up).
fn index(e: &mut Emit, x: NodeId, idx: &[NodeId], g: NodeId) -> Result<NodeId, GradError> {
    let dtype = e.ty(x)?.dtype;
    let g = e.cast(g, dtype)?;
    let mut args = vec![e.zeros_like(x)?, g];
    args.extend_from_slice(idx);
    e.op(Op::IncIndex, &args)
}

/// The cotangents of `(clip X LO HI)` = `minimum(maximum(X, LO), HI)`,
/// PyTensor's rule: X receives `g` wherever it lies within `[LO, HI]`
/// (bounds included), LO where X is below it, HI where X (or LO) is
/// above it. With LO above HI the result is HI, and HI receives all of
/// `g`.
fn clip(
    e: &mut Emit,
    [x, lo, hi]: [NodeId; 3],
    g: NodeId,
    want: [bool; 3],
) -> Result<[Option<NodeId>; 3], GradError> {
    let m = e.bin(BinaryOp::Maximum, x, lo)?;
    let above = e.cmp(CompareOp::Gt, m, hi)?;
    let below = e.cmp(CompareOp::Lt, x, lo)?;
    let zero = e.lit(0.0)?;
    let mut res = [None; 3];
    if want[0] {
        let inside = e.where_(below, zero, g)?;
        res[0] = Some(e.where_(above, zero, inside)?);
    }
    if want[1] {
        let low = e.where_(below, g, zero)?;
        res[1] = Some(e.where_(above, zero, low)?);
    }
    if want[2] {
        res[2] = Some(e.where_(above, g, zero)?);
    }
    Ok(res)
}

/// The cotangent of V in `(set_take X V IDX AXIS)`: `g` at each written
/// position, but only for the write that stayed (the last of a repeated
/// index); the earlier ones were overwritten and get zeros, as finite
/// differences give. The winners are found by replaying the writes with
/// their ordinals: `W = set_take(zeros(n), 1..=K, idx)` holds at each
/// position the ordinal of its last write, and write k won where
/// `W[idx[k]] == k`.
fn set_take_value(
    e: &mut Emit,
    axis: i64,
    x: NodeId,
    idx: NodeId,
    arg_ty: &[Type],
    g: NodeId,
) -> Result<NodeId, GradError> {
    let (xt, it) = (&arg_ty[0], &arg_ty[2]);
    let nd = xt.ndim();
    let a = norm_axis(axis, nd).clamp(0, nd as i64) as usize;
    let picked = e.op(Op::Take(axis), &[g, idx])?;
    if it.ndim() == 0 {
        return Ok(picked);
    }
    // The indices as one row, in row-major order, and their shape back.
    let plain = |d: &Dim| d.as_known().is_some() || d.as_sym().is_some();
    let flat = if it.ndim() == 1 {
        idx
    } else {
        e.op(Op::Reshape(vec![Dim::known(-1)]), &[idx])?
    };
    let one = e.int(1)?;
    let zeros_i = e.zeros_like(flat)?;
    let ones = e.add(zeros_i, one)?;
    let ordinal = e.op(Op::Cumulative(CumOp::Cumsum, 0), &[ones])?;
    // A zero per position along the axis: X's zeros summed over the
    // other axes (an empty axis sums to zeros too).
    let xz = e.zeros_like(x)?;
    let mut w = e.cast(xz, crate::lang::DType::I64)?;
    for _ in a + 1..nd {
        w = e.sum(w, Some(-1))?;
    }
    for _ in 0..a {
        w = e.sum(w, Some(0))?;
    }
    let last = e.op(Op::SetTake(0), &[w, ordinal, flat])?;
    let seen = e.op(Op::Take(0), &[last, flat])?;
    let mut won = e.cmp(CompareOp::Eq, seen, ordinal)?;
    if it.ndim() > 1 {
        if it.shape.iter().filter(|d| !plain(d)).count() > 1 {
            return Err(e.unsupported("set_take", Unsupported::ReshapeUnknownSizes));
        }
        let dims: Vec<Dim> = it
            .shape
            .iter()
            .map(|d| if plain(d) { d.clone() } else { Dim::known(-1) })
            .collect();
        won = e.op(Op::Reshape(dims), &[won])?;
    }
    for _ in 0..a {
        won = e.expand_dims(won, 0)?;
    }
    for k in 0..nd.saturating_sub(a + 1) {
        won = e.expand_dims(won, (a + it.ndim() + k) as i64)?;
    }
    let zero = e.lit(0.0)?;
    e.where_(won, picked, zero)
}

/// The cotangent of `x` in `x[start:stop:step]` (axis 0, any step): `g`
/// added into zeros of `x`'s shape at the rows the slice read.
fn slice(
    e: &mut Emit,
    x: NodeId,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
    g: NodeId,
) -> Result<NodeId, GradError> {
    let dtype = e.ty(x)?.dtype;
    let g = e.cast(g, dtype)?;
    let z = e.zeros_like(x)?;
    e.op(Op::IncSlice { start, stop, step }, &[z, g])
}

/// The gradient of `h = (linrec a u h0)` with cotangent `g`: the same
/// recurrence run backwards. The cotangent of `h_t` is
/// `λ_t = g_t + a_{t+1} λ_{t+1}`, a `linrec` over the reversed rows whose
/// factor at reversed step `j` is `a_{T-j}` (the reversed factors shifted
/// by one; step 0's factor multiplies the zero start and is a zero row);
/// then `ū = λ`, `ā = λ ⊙ h_{t-1}` (with `h_{-1} = h0`), `h̄0 = (a ⊙ λ)_0`.
/// Each is fitted to its operand (a broadcast factor sums over the steps).
fn linrec(
    e: &mut Emit,
    a: NodeId,
    u: NodeId,
    h0: NodeId,
    h: NodeId,
    g: NodeId,
    want: [bool; 3],
) -> Result<[Option<NodeId>; 3], GradError> {
    if !want.iter().any(|w| *w) {
        return Ok([None; 3]);
    }
    let (at, ut) = (e.ty(a)?, e.ty(u)?);
    let rows = |start: Option<i64>, stop: Option<i64>| Op::Slice {
        start,
        stop,
        step: 1,
    };
    // The factor of each reversed step: `a` itself when it does not vary
    // over the steps.
    let varies = at.ndim() == ut.ndim() && !at.shape[0].is_one();
    let back_factor = if varies {
        let first = e.op(rows(Some(0), Some(1)), &[a])?;
        let zero_row = e.zeros_like(first)?;
        let rev = e.flip0(a)?;
        let shifted = e.op(rows(Some(0), Some(-1)), &[rev])?;
        e.op(Op::Concat(0), &[zero_row, shifted])?
    } else {
        a
    };
    let rev_g = e.flip0(g)?;
    let zero = e.lit(0.0)?;
    let rev_lambda = e.op(Op::LinRec, &[back_factor, rev_g, zero])?;
    let lambda = e.flip0(rev_lambda)?;
    let gu = if want[1] {
        Some(e.fit(lambda, &ut)?)
    } else {
        None
    };
    let ga = if want[0] {
        // h_{t-1}: h0 (broadcast to a row) before the rows of h but the last.
        let u_first = e.op(rows(Some(0), Some(1)), &[u])?;
        let row = e.zeros_like(u_first)?;
        let h0_row = e.add(row, h0)?;
        let h_head = e.op(rows(Some(0), Some(-1)), &[h])?;
        let prev = e.op(Op::Concat(0), &[h0_row, h_head])?;
        let c = e.mul(lambda, prev)?;
        Some(e.fit(c, &at)?)
    } else {
        None
    };
    let gh = if want[2] {
        let scaled = e.mul(lambda, a)?;
        let first = e.op(rows(Some(0), Some(1)), &[scaled])?;
        let c = e.sum(first, Some(0))?;
        let ht = e.ty(h0)?;
        Some(e.fit(c, &ht)?)
    } else {
        None
    };
    Ok([ga, gu, gh])
}
