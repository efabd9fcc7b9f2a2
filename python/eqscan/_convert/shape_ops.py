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
import pytensor.tensor as pt
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
    if out.type.ndim == 0:
        return f"(reshape {cv.expr(x)})"
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
    lead_broadcast = nd > 0 and (v.type.ndim < nd or v.type.shape[0] == 1)
    if sizes and sizes[0] is None and lead_broadcast and all(d is not None for d in sizes[1:]):
        # A leading size known only at run time (grad pads a while loop's
        # gradient to the sequence's length): the rows of a loop of that
        # many steps.
        row = pt.alloc(v if v.type.ndim < nd else v[0], *shape[1:])
        cv.walk([], [row])
        rows = cv.fresh("rows")
        n = cv.expr(shape[0])
        cv.lines.append(
            f"(let ({rows}) (scan (outputs_info (nitsot)) (n_steps (cast i64 {n})) "
            f"(fn () (outputs {cv.cast(cv.expr(row), out.type.dtype, cv.val(row).dtype)}))))"
        )
        cv.bind(out, rows, dims=tuple(sizes))
        return
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
    sn, sm = cv.static_size(n), cv.static_size(m)
    if sn is None or sm is None or kk is None:
        raise cv.error(node, "the size or the diagonal is known only at run time")
    ld = lang_dtype(out.type.dtype)
    kk = int(kk)
    if kk == 0:
        text = f"(eye {render_type(ld, (sn, sm))})"
    else:  # ones where column - row == k
        rows = f"(expand_dims (arange {sn}) 1)"
        cols = f"(expand_dims (arange {sm}) 0)"
        text = f"(cast {ld} (eq (sub {cols} {rows}) {kk}))"
    cv.bind(out, text, dims=(sn, sm))


def _extract_diag_type():
    from pytensor.tensor.basic import ExtractDiag

    return ExtractDiag


@register(_extract_diag_type())
def _extract_diag(cv, node):
    """``diagonal(x, offset, axis1, axis2)`` of a matrix: the flat indices
    ``start + k * (m + 1)`` of the flattened matrix (with the axes put
    first). Batched diagonals are an error."""
    op = node.op
    x = node.inputs[0]
    if x.type.ndim != 2:
        raise cv.error(node, "the diagonal of more than a matrix")
    t = cv.expr(x)
    a1, a2 = op.axis1 % 2, op.axis2 % 2
    if (a1, a2) == (1, 0):
        t = f"(transpose {t})"
    n, m = cv.dims(x)[a1], cv.dims(x)[a2]
    k = op.offset
    ms = cv.size_expr(x, a2)
    if isinstance(n, int) and isinstance(m, int):
        length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
        steps = f"(arange {length})"
    elif n == m and k == 0:
        length = n
        steps = f"(arange {length})"
    elif n is not None and m is not None:
        # A run-time length: the steps along the diagonal that stay inside.
        length = None
        ns = cv.size_expr(x, a1)
        bound = f"(minimum {ns} (sub {ms} {k}))" if k >= 0 else f"(minimum (add {ns} {k}) {ms})"
        j = cv.fresh("j")
        steps = f"(filter (fn ({j}) (lt {j} {bound})) (arange {n if k >= 0 else m}))"
    else:
        raise cv.error(node, "the diagonal of a matrix whose sizes are known only at run time")
    start = str(k) if k >= 0 else f"(mul {-k} {ms})"
    idx = f"(add {start} (mul {steps} (add {ms} 1)))"
    cv.bind(node.outputs[0], f"(take (reshape {t} -1) {idx})", dims=(length,))


def _split_type():
    from pytensor.tensor.basic import Split

    return Split


@register(_split_type())
def _split(cv, node):
    """``split`` with literal sizes: one slice per piece along the axis."""
    from .indexing import subtensor_text

    x, axis, splits = node.inputs
    ax = cv.const_value(axis)
    sizes = cv.static_sizes(splits)
    if ax is None or sizes is None:
        raise cv.error(node, "the axis or the split sizes are not literal or symbolic sizes")
    ax = int(ax) % x.type.ndim
    out = []
    if all(isinstance(d, int) for d in sizes):
        start = 0
        for size in sizes:
            entries = [("slice", None, None, 1)] * ax + [("slice", start, start + int(size), 1)]
            out.append(subtensor_text(cv.expr(x), x.type.ndim, entries))
            start += int(size)
        return out
    # Symbolic sizes: each piece takes the rows offset + arange(size).
    offset = "0"
    for size in sizes:
        out.append(f"(take {cv.expr(x)} (add {offset} (arange {size})) {ax})")
        offset = f"(add {offset} {size})"
    return out
