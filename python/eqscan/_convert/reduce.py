"""Converters of PyTensor's reductions and normalizations: CAReduce (Sum,
Prod, Max, Min, All, Any and CAReduce over add/mul/maximum/minimum/and/or),
Argmax, CumOp (cumsum/cumprod), Softmax and LogSoftmax.

This module owns turning PyTensor's axis tuples into the language's
one-axis-at-a-time reductions (highest axis first, so the others keep their
numbers) and the dtype a reduction gives.
"""

from __future__ import annotations

import pytensor.scalar as ps
from pytensor.tensor.elemwise import CAReduce
from pytensor.tensor.extra_ops import CumOp
from pytensor.tensor.math import Argmax

from .core import lang_dtype, register

_HEADS = [
    (ps.Add, "sum"),
    (ps.Mul, "prod"),
    (ps.ScalarMaximum, "max"),
    (ps.Maximum, "max"),
    (ps.ScalarMinimum, "min"),
    (ps.Minimum, "min"),
    (ps.AND, "all"),
    (ps.OR, "any"),
]


def _head(cv, node):
    sop = node.op.scalar_op
    if type(sop).__name__ == "MulWithoutZeros":
        return "prod_nz"
    for cls, head in _HEADS:
        if isinstance(sop, cls):
            return head
    raise cv.error(node, f"a reduction over scalar op {sop} has no eqscan op")


def _axes(node, ndim):
    axis = node.op.axis
    if axis is None:
        return None
    return sorted({a % ndim for a in axis}, reverse=True) if ndim else []


@register(CAReduce)
def _careduce(cv, node):
    x = node.inputs[0]
    out = node.outputs[0]
    head = _head(cv, node)
    xv = cv.val(x)
    t = xv.text
    if head == "prod_nz":  # ProdWithoutZeros (in prod's gradient): zeros count as ones
        head = "prod"
        t = f"(where (eq {t} 0) (cast {xv.dtype} 1) {t})"
    if head in ("all", "any") and xv.dtype != "bool":
        t = f"(ne {t} 0)"
    elif head in ("sum", "prod") and lang_dtype(out.type.dtype) != xv.dtype:
        # PyTensor accumulates in the output's dtype.
        t = f"(cast {lang_dtype(out.type.dtype)} {t})"
    axes = _axes(node, x.type.ndim)
    if axes is None or len(axes) == x.type.ndim and x.type.ndim > 0:
        text = f"({head} {t})" if x.type.ndim else t
    else:
        for a in axes:
            t = f"({head} {t} {a})"
        text = t
    got = _reduce_dtype(head, xv.dtype if head not in ("sum", "prod") else lang_dtype(out.type.dtype))
    return cv.cast(text, out.type.dtype, got)


def _reduce_dtype(head, in_ld):
    if head in ("all", "any"):
        return "bool"
    if head in ("sum", "prod") and in_ld in ("i32", "bool"):
        return "i64"
    return in_ld


@register(Argmax)
def _argmax(cv, node):
    x = node.inputs[0]
    out = node.outputs[0]
    axis = node.op.axis
    nd = x.type.ndim
    t = cv.expr(x)
    if axis is None or len(axis) == nd:
        text = f"(argmax {t})"
    elif len(axis) == 1:
        text = f"(argmax {t} {axis[0] % nd})"
    else:
        raise cv.error(node, "argmax over several (not all) axes has no eqscan op")
    return cv.cast(text, out.type.dtype, "i64")


@register(CumOp)
def _cumop(cv, node):
    x = node.inputs[0]
    out = node.outputs[0]
    head = {"add": "cumsum", "mul": "cumprod"}.get(node.op.mode)
    if head is None:
        raise cv.error(node, f"cumulative mode {node.op.mode}")
    t = cv.expr(x)
    if node.op.axis is None:
        t = f"(reshape {t} -1)"
        axis = 0
    else:
        axis = node.op.axis % max(x.type.ndim, 1)
    text = f"({head} {t} {axis})"
    return cv.cast(text, out.type.dtype, _reduce_dtype("sum", cv.val(x).dtype))


def _softmax_types():
    from pytensor.tensor import special

    return special.Softmax, special.LogSoftmax


@register(*_softmax_types())
def _softmax(cv, node):
    from pytensor.tensor.special import LogSoftmax

    x = node.inputs[0]
    head = "log_softmax" if isinstance(node.op, LogSoftmax) else "softmax"
    axis = getattr(node.op, "axis", None)
    nd = x.type.ndim
    if isinstance(axis, (tuple, list)):
        axis = axis[0] if len(axis) == 1 else (None if len(axis) == nd else "many")
    if axis == "many":
        from .graph_ops import inline_op_from_graph

        return inline_op_from_graph(cv, node)
    t = cv.expr(x)
    if axis is None and nd > 1:
        # over every element: flatten, normalize, restore the shape
        from .graph_ops import inline_op_from_graph

        return inline_op_from_graph(cv, node)
    axis = 0 if axis is None else axis % max(nd, 1)
    return f"({head} {t} {axis})"


# ---- ops of older PyTensor releases (registered when they exist)


def _older(module, name):
    import importlib

    return getattr(importlib.import_module(module), name, None)


_MAX_AND_ARGMAX = _older("pytensor.tensor.math", "MaxAndArgmax")
_SOFTMAX_GRAD = _older("pytensor.tensor.special", "SoftmaxGrad")

if _MAX_AND_ARGMAX is not None:  # pragma: no cover (PyTensor < 2.20)

    @register(_MAX_AND_ARGMAX)
    def _max_and_argmax(cv, node):
        x = node.inputs[0]
        nd = x.type.ndim
        axis = node.op.axis
        t = cv.expr(x)
        if axis is None or len(axis) == nd:
            return [f"(max {t})", f"(argmax {t})"]
        if len(axis) != 1:
            raise cv.error(node, "argmax over several (not all) axes has no eqscan op")
        a = axis[0] % nd
        return [f"(max {t} {a})", f"(argmax {t} {a})"]


if _SOFTMAX_GRAD is not None:  # pragma: no cover (older PyTensor)

    @register(_SOFTMAX_GRAD)
    def _softmax_grad(cv, node):
        dy, sm = (cv.expr(i) for i in node.inputs)
        nd = node.inputs[0].type.ndim
        axis = getattr(node.op, "axis", -1)
        axis = nd - 1 if axis is None else axis % nd
        return f"(mul (sub {dy} (expand_dims (sum (mul {dy} {sm}) {axis}) {axis})) {sm})"
