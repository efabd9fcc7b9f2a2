"""Converters of PyTensor's shape and creation ops: Shape, Shape_i,
SpecifyShape, Reshape, Join, MakeVector, Alloc, AllocEmpty, ARange, Eye,
the scalar/tensor conversions, and the ops that only pass a value through
(DeepCopyOp, OutputGuard, ViewOp, CheckAndRaise).

This module owns how a size PyTensor computes becomes a size the language
can write: a literal, a symbolic size, or ``-1`` in a reshape; a size that
is none of these is an error naming the op.
"""

from __future__ import annotations

import numpy as np
from pytensor.tensor.basic import (
    ARange,
    Alloc,
    AllocEmpty,
    Eye,
    Join,
    MakeVector,
    ScalarFromTensor,
    TensorFromScalar,
)
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape

from .core import lang_dtype, register, render_type
from .shapes import static_sizes


def _passthrough_types():
    types = []
    try:
        from pytensor.compile.ops import DeepCopyOp, OutputGuard, ViewOp

        types += [DeepCopyOp, OutputGuard, ViewOp]
    except ImportError:  # pragma: no cover
        from pytensor.compile.ops import DeepCopyOp, ViewOp

        types += [DeepCopyOp, ViewOp]
    try:
        from pytensor.raise_op import CheckAndRaise

        types.append(CheckAndRaise)
    except ImportError:  # pragma: no cover
        pass
    return types


@register(*_passthrough_types())
def _passthrough(cv, node):
    """The value of the first input. CheckAndRaise / Assert: the check is
    dropped (the language has no assertion); the value is the same."""
    x = node.inputs[0]
    cv.set_val(node.outputs[0], cv.val(x))


@register(ScalarFromTensor, TensorFromScalar)
def _scalar_tensor(cv, node):
    cv.set_val(node.outputs[0], cv.val(node.inputs[0]))


@register(SpecifyShape)
def _specify_shape(cv, node):
    x = node.inputs[0]
    v = cv.val(x)
    dims = list(v.dims)
    for k, s in enumerate(node.inputs[1:]):
        d = cv.static_size(s) if not _is_none(s) else None
        if isinstance(d, int) and dims[k] is None:
            dims[k] = d
    cv.set_val(node.outputs[0], type(v)(v.text, v.dtype, tuple(dims), v.weak))


def _is_none(v) -> bool:
    from pytensor.tensor.type_other import NoneTypeT

    return isinstance(v.type, NoneTypeT)


@register(Shape_i)
def _shape_i(cv, node):
    return cv.size_expr(node.inputs[0], node.op.i)


@register(Shape)
def _shape(cv, node):
    x = node.inputs[0]
    dims = cv.dims(x)
    if x.type.ndim == 0:
        return "(tensor (i64 0))"
    if all(isinstance(d, int) for d in dims):
        return f"(tensor (i64 {len(dims)}) {' '.join(map(str, dims))})"
    items = [cv.size_expr(x, k) for k in range(x.type.ndim)]
    return f"(cast i64 (stack {' '.join(items)}))"


@register(MakeVector)
def _make_vector(cv, node):
    out = node.outputs[0]
    ld = lang_dtype(out.type.dtype)
    if not node.inputs:
        return f"(tensor ({ld} 0))"
    consts = [cv.const_value(i) for i in node.inputs]
    if all(c is not None for c in consts):
        return cv.render_const(np.asarray([np.asarray(c).item() for c in consts], dtype=out.type.dtype), ld)
    items = " ".join(cv.expr(i) for i in node.inputs)
    return f"(cast {ld} (stack {items}))"


@register(Reshape)
def _reshape(cv, node):
    x, shp = node.inputs
    out = node.outputs[0]
    sizes = static_sizes(cv, shp, partial=True)
    if sizes is None:
        raise cv.error(node, "the new shape is not a vector of literal or symbolic sizes")
    unknown = [k for k, d in enumerate(sizes) if d is None]
    if len(unknown) == 1 and -1 not in sizes:
        sizes[unknown[0]] = -1  # the one size the others determine
    elif unknown:
        raise cv.error(
            node, "more than one size of the new shape is known only at run time"
        )
    if out.type.ndim == 0:
        return f"(reshape {cv.expr(x)})"
    dims = tuple(
        int(s) if s is not None else (d if d != -1 else None)
        for s, d in zip(out.type.shape, sizes)
    )
    cv.bind(out, f"(reshape {cv.expr(x)} {' '.join(map(str, sizes))})", dims=dims)


@register(Join)
def _join(cv, node):
    axis = cv.const_value(node.inputs[0])
    if axis is None:
        raise cv.error(node, "the axis is not a constant")
    axis = int(axis)
    out = node.outputs[0]
    parts = [i for i in node.inputs[1:]]
    if len(parts) == 1:
        return cv.expr(parts[0])
    texts = [cv.cast(cv.expr(p), out.type.dtype, cv.val(p).dtype) for p in parts]
    return f"(concat {axis} {' '.join(texts)})"


def _shape_of(cv, node, sizes_vars):
    sizes = [cv.static_size(s) for s in sizes_vars]
    return sizes


@register(Alloc)
def _alloc(cv, node):
    v, *shape = node.inputs
    out = node.outputs[0]
    ld = lang_dtype(out.type.dtype)
    sizes = _shape_of(cv, node, shape)
    val = cv.val(v)
    # A run-time size the value itself supplies (same axis, not broadcast) is fine.
    nd = len(sizes)
    for k, d in enumerate(sizes):
        if d is None:
            j = k - (nd - val.ndim)
            if j >= 0 and v.type.shape[j] != 1 and val.dims[j] is not None:
                sizes[k] = val.dims[j]
    if any(d is None for d in sizes):
        raise cv.error(node, "a size of the new array is known only at run time")
    ty = render_type(ld, sizes)
    if v.type.ndim == 0:
        c = cv.const_value(v)
        if c is not None and float(np.asarray(c)) == 0.0 and not np.signbit(np.asarray(c, dtype=float)):
            text = f"(zeros {ty})"
        else:
            text = f"(fill {ty} {cv.cast(val.text, out.type.dtype, val.dtype)})"
    else:
        text = f"(add (zeros {ty}) {cv.cast(val.text, out.type.dtype, val.dtype)})"
    cv.bind(out, text, dims=tuple(sizes))


@register(AllocEmpty)
def _alloc_empty(cv, node):
    out = node.outputs[0]
    sizes = _shape_of(cv, node, node.inputs)
    if any(d is None for d in sizes):
        raise cv.error(node, "a size of the new array is known only at run time")
    cv.bind(out, f"(zeros {render_type(lang_dtype(out.type.dtype), sizes)})", dims=tuple(sizes))


@register(ARange)
def _arange(cv, node):
    start, stop, step = node.inputs
    out = node.outputs[0]
    ld = lang_dtype(out.type.dtype)
    a, b, s = (cv.const_value(x) for x in (start, stop, step))
    if a is not None and b is not None and s is not None:
        vals = np.arange(np.asarray(a).item(), np.asarray(b).item(), np.asarray(s).item(), dtype=out.type.dtype)
        return cv.render_const(vals, ld) if vals.size else f"(tensor ({ld} 0))"
    n = None
    if a is not None and s is not None and int(np.asarray(a)) == 0 and int(np.asarray(s)) == 1:
        n = cv.static_size(stop)
    if n is None:
        raise cv.error(node, "only arange(0, N, 1) with N a literal or symbolic size converts")
    text = f"(arange {n})"
    if ld != "i64":
        text = f"(cast {ld} {text})"
    cv.bind(out, text, dims=(n,))


@register(Eye)
def _eye(cv, node):
    n, m, k = node.inputs
    out = node.outputs[0]
    kk = cv.const_value(k)
    if kk is None or int(kk) != 0:
        raise cv.error(node, "only the main diagonal (k=0) converts")
    sn, sm = cv.static_size(n), cv.static_size(m)
    if sn is None or sm is None:
        raise cv.error(node, "the size is known only at run time")
    cv.bind(out, f"(eye {render_type(lang_dtype(out.type.dtype), (sn, sm))})", dims=(sn, sm))
