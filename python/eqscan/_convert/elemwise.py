"""Converters of ``Elemwise`` and the scalar ops inside it (``Composite``
included).

This module owns the mapping of PyTensor's scalar ops to the language's
elementwise ops, and the dtype bookkeeping that makes the language's NumPy-2
promotion (weak literals included) give PyTensor's output dtype: where the
two differ, the result is cast to PyTensor's dtype.
"""

from __future__ import annotations

import numpy as np
import pytensor.scalar as ps
from pytensor.tensor.elemwise import DimShuffle, Elemwise

from . import pads
from .core import Val, lang_dtype, lookup_scalar, numpy_dtype, register, register_scalar
from .errors import Error

# ---------------------------------------------------------------- dtype rules


def _np(v: Val):
    """A stand-in for NumPy's promotion: a weak literal is a Python scalar."""
    if v.weak:
        return {"f64": 0.5, "f32": 0.5, "i64": 1, "i32": 1, "bool": True}[v.dtype]
    return numpy_dtype(v.dtype)


def _ld(dt) -> str:
    return lang_dtype(np.dtype(dt).name)


def promote(args) -> str:
    """The language dtype of an arithmetic op on ``args`` (NEP 50)."""
    if all(a.weak for a in args):
        kinds = [a.dtype for a in args]
        if any(k in ("f64", "f32") for k in kinds):
            return "f64"
        if any(k in ("i64", "i32") for k in kinds):
            return "i64"
        return "bool"
    return _ld(np.result_type(*[_np(a) for a in args]))


def _floaty(args) -> str:
    d = promote(args)
    return d if d in ("f64", "f32") else "f64"


# ---------------------------------------------------------------- scalar ops

# PyTensor scalar op -> (language head, dtype rule)
_UNARY_FLOAT = {
    ps.Exp: "exp",
    ps.Log: "log",
    ps.Log1p: "log1p",
    ps.Expm1: "expm1",
    ps.Sqrt: "sqrt",
    ps.Tanh: "tanh",
    ps.Sigmoid: "sigmoid",
    ps.Softplus: "softplus",
    ps.Sin: "sin",
    ps.Cos: "cos",
    ps.Erf: "erf",
    ps.Erfc: "erfc",
    ps.GammaLn: "gammaln",
    ps.Psi: "digamma",
    ps.TriGamma: "trigamma",
}
_UNARY_SAME = {
    ps.Neg: "neg",
    ps.Abs: "abs",
    ps.Sign: "sign",
    ps.Floor: "floor",
    ps.Ceil: "ceil",
    ps.RoundHalfToEven: "round",
}
_BINARY = {
    ps.Sub: "sub",
    ps.IntDiv: "floor_div",
    ps.Mod: "mod",
    ps.Pow: "pow",
}
_NARY = {ps.Add: "add", ps.Mul: "mul", ps.Maximum: "maximum", ps.Minimum: "minimum"}
_COMPARE = {ps.GT: "gt", ps.GE: "ge", ps.LT: "lt", ps.LE: "le", ps.EQ: "eq", ps.NEQ: "ne"}


def _nest(head: str, texts) -> str:
    acc = texts[0]
    for t in texts[1:]:
        acc = f"({head} {acc} {t})"
    return acc


@register_scalar(*_UNARY_FLOAT)
def _unary_float(cv, op, args, out):
    head = _lookup_head(_UNARY_FLOAT, op)
    return f"({head} {args[0].text})", _floaty(args)


@register_scalar(*_UNARY_SAME)
def _unary_same(cv, op, args, out):
    head = _lookup_head(_UNARY_SAME, op)
    return f"({head} {args[0].text})", promote(args)


@register_scalar(*_NARY)
def _nary(cv, op, args, out):
    head = _lookup_head(_NARY, op)
    if out == "bool" and head in ("add", "maximum"):
        return _nest_where_or([a.text for a in args]), "bool"
    if out == "bool" and head in ("mul", "minimum"):
        return _nest_where_and([a.text for a in args]), "bool"
    return _nest(head, [a.text for a in args]), promote(args)


@register_scalar(*_BINARY)
def _binary(cv, op, args, out):
    head = _lookup_head(_BINARY, op)
    return f"({head} {args[0].text} {args[1].text})", promote(args)


@register_scalar(ps.TrueDiv)
def _true_div(cv, op, args, out):
    return f"(div {args[0].text} {args[1].text})", _floaty(args)


@register_scalar(*_COMPARE)
def _compare(cv, op, args, out):
    head = _lookup_head(_COMPARE, op)
    return f"({head} {args[0].text} {args[1].text})", "bool"


@register_scalar(ps.Switch)
def _switch(cv, op, args, out):
    c, a, b = args
    return f"(where {_truth(c)} {a.text} {b.text})", promote([a, b])


@register_scalar(ps.Clip)
def _clip(cv, op, args, out):
    return f"(clip {args[0].text} {args[1].text} {args[2].text})", promote(args)


@register_scalar(ps.Identity)
def _identity(cv, op, args, out):
    return args[0].text, args[0].dtype


@register_scalar(ps.Cast)
def _cast(cv, op, args, out):
    ld = lang_dtype(op.o_type.dtype)
    if args[0].dtype == ld and not args[0].weak:
        return args[0].text, ld
    return f"(cast {ld} {args[0].text})", ld


@register_scalar(ps.Second)
def _second(cv, op, args, out):
    a, b = args
    # b broadcast to a's shape, in b's dtype.
    return f"(add {b.text} (cast {b.dtype} (zeros_like {a.text})))", promote([b])


@register_scalar(ps.Sqr)
def _sqr(cv, op, args, out):
    return f"(mul {args[0].text} {args[0].text})", promote(args)


@register_scalar(ps.Reciprocal)
def _reciprocal(cv, op, args, out):
    return f"(div 1.0 {args[0].text})", _floaty(args)


@register_scalar(ps.Exp2)
def _exp2(cv, op, args, out):
    return f"(pow 2.0 {args[0].text})", _floaty(args)


@register_scalar(ps.Log2)
def _log2(cv, op, args, out):
    return f"(div (log {args[0].text}) (log 2.0))", _floaty(args)


@register_scalar(ps.Log10)
def _log10(cv, op, args, out):
    return f"(div (log {args[0].text}) (log 10.0))", _floaty(args)


@register_scalar(ps.Tan)
def _tan(cv, op, args, out):
    x = args[0].text
    return f"(div (sin {x}) (cos {x}))", _floaty(args)


@register_scalar(ps.Sinh)
def _sinh(cv, op, args, out):
    x = args[0].text
    return f"(mul 0.5 (sub (expm1 {x}) (expm1 (neg {x}))))", _floaty(args)


@register_scalar(ps.Cosh)
def _cosh(cv, op, args, out):
    x = args[0].text
    return f"(mul 0.5 (add (exp {x}) (exp (neg {x}))))", _floaty(args)


@register_scalar(ps.Trunc)
def _trunc(cv, op, args, out):
    x = args[0].text
    return f"(where (lt {x} 0) (ceil {x}) (floor {x}))", promote(args)


@register_scalar(ps.RoundHalfAwayFromZero)
def _round_away(cv, op, args, out):
    x = args[0].text
    if args[0].dtype not in ("f64", "f32"):
        return x, args[0].dtype
    return f"(mul (sign {x}) (floor (add (abs {x}) 0.5)))", promote(args)


@register_scalar(ps.Log1mexp)
def _log1mexp(cv, op, args, out):
    x = args[0].text
    return (
        f"(where (lt {x} -0.6931471805599453) (log1p (neg (exp {x}))) (log (neg (expm1 {x}))))",
        _floaty(args),
    )


@register_scalar(ps.ArcTanh)
def _arctanh(cv, op, args, out):
    x = args[0].text
    return f"(mul 0.5 (log1p (div (mul 2.0 {x}) (sub 1.0 {x}))))", _floaty(args)


@register_scalar(ps.ArcSinh)
def _arcsinh(cv, op, args, out):
    # sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); beyond 1e8 the square
    # would lose the result, so log(2|x|) there.
    x = args[0].text
    a = f"(abs {x})"
    small = f"(log1p (add {a} (div (mul {a} {a}) (add 1.0 (sqrt (add 1.0 (mul {a} {a})))))))"
    large = f"(add (log {a}) 0.6931471805599453)"
    return f"(mul (sign {x}) (where (gt {a} 1e8) {large} {small}))", _floaty(args)


@register_scalar(ps.ArcCosh)
def _arccosh(cv, op, args, out):
    # log1p(t + sqrt(t (t + 2))) with t = x - 1; log(2x) beyond 1e8.
    x = args[0].text
    t = f"(sub {x} 1.0)"
    small = f"(log1p (add {t} (sqrt (mul {t} (add {t} 2.0)))))"
    large = f"(add (log {x}) 0.6931471805599453)"
    return f"(where (gt {x} 1e8) {large} {small})", _floaty(args)


@register_scalar(ps.Deg2Rad)
def _deg2rad(cv, op, args, out):
    return f"(mul {args[0].text} 0.017453292519943295)", _floaty(args)


@register_scalar(ps.Rad2Deg)
def _rad2deg(cv, op, args, out):
    return f"(mul {args[0].text} 57.29577951308232)", _floaty(args)


@register_scalar(ps.IsNan)
def _isnan(cv, op, args, out):
    x = args[0].text
    return f"(ne {x} {x})", "bool"


@register_scalar(ps.IsInf)
def _isinf(cv, op, args, out):
    return f"(eq (abs {args[0].text}) inf)", "bool"


def _truth(v: Val) -> str:
    return v.text if v.dtype == "bool" else f"(ne {v.text} 0)"


def _nest_where_and(texts):
    acc = texts[-1]
    for t in reversed(texts[:-1]):
        acc = f"(where {t} {acc} false)"
    return acc


def _nest_where_or(texts):
    acc = texts[-1]
    for t in reversed(texts[:-1]):
        acc = f"(where {t} true {acc})"
    return acc


@register_scalar(ps.AND)
def _and(cv, op, args, out):
    _bool_only(op, args)
    return _nest_where_and([a.text for a in args]), "bool"


@register_scalar(ps.OR)
def _or(cv, op, args, out):
    _bool_only(op, args)
    return _nest_where_or([a.text for a in args]), "bool"


@register_scalar(ps.XOR)
def _xor(cv, op, args, out):
    _bool_only(op, args)
    return _nest("ne", [a.text for a in args]), "bool"


@register_scalar(ps.Invert)
def _invert(cv, op, args, out):
    _bool_only(op, args)
    return f"(where {args[0].text} false true)", "bool"


def _bool_only(op, args):
    if any(a.dtype != "bool" for a in args):
        raise Error(
            f"from_pytensor: cannot convert scalar op {op}: bitwise operations on "
            "integers have no eqscan op (only on bool)"
        )


def _lookup_head(table, op):
    for cls in type(op).__mro__:
        if cls in table:
            return table[cls]
    raise KeyError(type(op).__name__)


# ---------------------------------------------------------------- Elemwise


def _broadcast_dims(vals, out_var) -> tuple:
    nd = out_var.type.ndim
    dims = []
    for k in range(nd):
        s = out_var.type.shape[k]
        if s is not None:
            dims.append(int(s))
            continue
        cands = [
            v.dims[k - (nd - v.ndim)]
            for v in vals
            if k - (nd - v.ndim) >= 0 and v.dims[k - (nd - v.ndim)] not in (1, None)
        ]
        # Operands that are not broadcast along an axis have equal sizes there
        # whenever the program runs (else the op fails), so any one will do;
        # a literal first.
        cands.sort(key=lambda d: not isinstance(d, int))
        dims.append(cands[0] if cands else None)
    return tuple(dims)


def scalar_expr(cv, sop, args, out_var_dtype: str, where=None):
    """The text of scalar op ``sop`` on ``args``, cast to PyTensor's output
    dtype (a PyTensor dtype name) where the language's promotion differs."""
    fn = lookup_scalar(sop)
    if fn is None:
        node = where
        what = f" in {node.op}" if node is not None else ""
        raise Error(
            f"from_pytensor: cannot convert scalar op {sop} ({type(sop).__name__}){what}"
            + (f" (output {node.outputs[0]})" if node is not None else "")
            + ": eqscan has no conversion for it"
        )
    want = lang_dtype(out_var_dtype)
    text, got = fn(cv, sop, args, want)
    if got != want and want != "bool" and not isinstance(sop, _HETEROGENEOUS):
        # Compute in PyTensor's dtype, as its C code does: cast the operands.
        cast = [
            a if (a.dtype == want and not a.weak) else Val(f"(cast {want} {a.text})", want, a.dims)
            for a in args
        ]
        text, got = fn(cv, sop, cast, want)
    elif got != want and isinstance(sop, ps.Switch):
        c, a, b = args
        cast = [c] + [
            x if (x.dtype == want and not x.weak) else Val(f"(cast {want} {x.text})", want, x.dims)
            for x in (a, b)
        ]
        text, got = fn(cv, sop, cast, want)
    if got != want:
        text = f"(cast {want} {text})"
    return text


# Scalar ops whose operands need not have the output's dtype.
_HETEROGENEOUS = (
    ps.LogicalComparison,
    ps.Cast,
    ps.Identity,
    ps.Switch,
    ps.IsNan,
    ps.IsInf,
    ps.AND,
    ps.OR,
    ps.XOR,
    ps.Invert,
)


@register(Elemwise)
def _elemwise(cv, node):
    sop = node.op.scalar_op
    args = [_arg(cv, i) for i in node.inputs]
    out_nd = node.outputs[0].type.ndim
    if any(a.weak for a in args) and not any(not a.weak and a.ndim == out_nd for a in args):
        args = [cv.val(i) for i in node.inputs]  # the rank comes from an expanded literal
    if isinstance(sop, ps.Composite):
        return _composite(cv, node, sop, args)
    out = node.outputs[0]
    if isinstance(sop, ps.Add):
        parts = [cv.pads.get(i) for i in node.inputs]
        pad = pads.sum_of(parts, lang_dtype(out.type.dtype), tuple(_broadcast_dims(args, out)))
        if pad is not None:  # zero-padded values over disjoint ranges
            cv.bind(out, pad.text(), dims=pad.dims)
            cv.pads[out] = pad
            return None
    lse = _logsumexp(cv, node)
    if lse is not None:
        cv.bind(out, lse, dims=_broadcast_dims(args, out))
        return None
    text = scalar_expr(cv, sop, args, out.type.dtype, where=node)
    cv.bind(out, text, dims=_broadcast_dims(args, out))
    return None


def _logsumexp(cv, node):
    """``log(sum(exp(x), axis))`` (what ``pt.logsumexp`` builds, which
    PyTensor's default mode stabilizes) as the language's stable
    ``logsumexp``; None for anything else."""
    from pytensor.tensor.elemwise import CAReduce

    if not isinstance(node.op.scalar_op, ps.Log):
        return None
    s = node.inputs[0].owner
    keep = None
    if s is not None and isinstance(s.op, DimShuffle):  # keepdims=True
        keep = s.op
        s = s.inputs[0].owner
    if s is None or not isinstance(s.op, CAReduce) or type(s.op.scalar_op) is not ps.Add:
        return None
    e = s.inputs[0].owner
    if e is None or not isinstance(e.op, Elemwise) or not isinstance(e.op.scalar_op, ps.Exp):
        return None
    x = e.inputs[0]
    if x.type.dtype not in ("float64", "float32") or s.outputs[0].type.dtype != x.type.dtype:
        return None
    nd = x.type.ndim
    axes = s.op.axis
    axes = list(range(nd)) if axes is None else sorted({a % nd for a in axes})
    t = cv.expr(x)
    if len(axes) == nd:
        t = f"(logsumexp {t})"
    elif len(axes) == 1:
        t = f"(logsumexp {t} {axes[0]})"
    else:
        return None
    if keep is not None:
        from .ops import dimshuffle_text

        t = dimshuffle_text(t, keep.new_order, keep.input_ndim)
    return t


def _arg(cv, var) -> Val:
    """An Elemwise operand; a scalar constant that DimShuffle only expanded
    stays a weak literal (broadcasting does the expanding)."""
    from pytensor.graph.basic import Constant
    from pytensor.tensor.elemwise import DimShuffle

    o = var.owner
    if (
        o is not None
        and isinstance(o.op, DimShuffle)
        and isinstance(o.inputs[0], Constant)
        and o.inputs[0].type.ndim == 0
    ):
        v = cv.val(o.inputs[0])
        return Val(v.text, v.dtype, (1,) * var.type.ndim, weak=v.weak)
    return cv.val(var)


def _composite(cv, node, comp, args):
    """A Composite's inner scalar graph, node by node; intermediate results
    are bound with ``let`` (each has the broadcast shape of the inputs)."""
    fg = comp.fgraph
    dims = _broadcast_dims(args, node.outputs[0])
    env = dict(zip(fg.inputs, args))

    def val(v):
        if v in env:
            return env[v]
        return cv.val(v)  # a scalar constant

    for inner in fg.toposort():
        iargs = [val(i) for i in inner.inputs]
        o = inner.outputs[0]
        text = scalar_expr(cv, inner.op, iargs, o.type.dtype, where=node)
        if "(" in text:
            name = cv.fresh("c")
            cv.lines.append(f"(let {name} {text})")
            text = name
        env[o] = Val(text, lang_dtype(o.type.dtype), dims)
    results = []
    for inner_out, out in zip(fg.outputs, node.outputs):
        v = val(inner_out)
        if v.weak:  # a constant output: broadcast it
            shape_src = args[0].text if args else None
            t = f"(add {v.text} (cast {lang_dtype(out.type.dtype)} (zeros_like {shape_src})))"
            cv.bind(out, t, dims=dims)
        else:
            cv.set_val(out, Val(v.text, lang_dtype(out.type.dtype), dims))
        results.append(v)
    return None


@register(ps.ScalarOp)
def _scalar_node(cv, node):
    """A scalar op applied to scalars (PyTensor's ``ScalarType`` graphs, as
    shape arithmetic leaves them): the same text as inside Elemwise."""
    if isinstance(node.op, ps.Composite):
        return _composite(cv, node, node.op, [cv.val(i) for i in node.inputs])
    args = [cv.val(i) for i in node.inputs]
    out = node.outputs[0]
    cv.bind(out, scalar_expr(cv, node.op, args, out.type.dtype, where=node), dims=())
    return None
