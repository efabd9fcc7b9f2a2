"""Converters of PyTensor's indexing ops: Subtensor, IncSubtensor (set and
inc), AdvancedSubtensor1 / AdvancedSubtensor (integer arrays -> ``take``)
and AdvancedIncSubtensor1 / AdvancedIncSubtensor (-> ``inc_take`` /
``set_take``).

This module owns rewriting NumPy index tuples into the language's
axis-0 ``index``/``slice`` (and their updates), moving an axis to the front
with ``transpose`` where an index is not on axis 0. Slice bounds must be
literals (or a symbolic size equal to the whole axis, which is no bound);
integer indices may be any expression. Boolean masks are an error.
An update of a zero-filled array along one axis is a zero-padded value
(``pads``), written as a ``concat``.
"""

from __future__ import annotations

from pytensor.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
    indices_from_subtensor,
)

from . import pads
from .core import lang_dtype, register
from .errors import Error
from .linear import same_size

FULL = ("slice", None, None, 1)


def _entries(cv, node, x, idx_vars):
    """The index tuple as entries ``("int", text)`` / ``("slice", a, b, s)``
    (literal bounds) / ``("array", var)``."""
    idx = indices_from_subtensor(idx_vars, node.op.idx_list)
    xd = cv.dims(x)
    out = []
    for axis, e in enumerate(idx):
        if isinstance(e, slice):
            step = _bound(cv, node, e.step)
            step = 1 if step is None else step
            if step == 0:
                raise cv.error(node, "a slice step of 0")
            start = _bound(cv, node, e.start, xd[axis], step < 0, (x, axis))
            stop = _bound(cv, node, e.stop, xd[axis], step > 0, (x, axis))
            out.append(("slice", start, stop, step))
        elif e.type.ndim == 0:
            out.append(("int", cv.expr(e)))
        elif e.type.dtype == "bool":
            raise cv.error(node, "boolean mask indexing (a data-dependent length)")
        else:
            out.append(("array", e))
    return out


def _bound(cv, node, v, axis_len=None, may_be_end=False, axis_of=None):
    if v is None:
        return None
    from pytensor.tensor.type_other import NoneTypeT

    if isinstance(getattr(v, "type", None), NoneTypeT):
        return None
    s = cv.static_size(v)
    if isinstance(s, int):
        return s
    if s is not None and may_be_end and s == axis_len:
        return None  # the whole axis
    if may_be_end and axis_of is not None and same_size(v, *axis_of):
        return None  # the whole axis, known only at run time (scan's x[:n_steps])
    raise cv.error(node, f"slice bound {v} is not a literal (the language's slices take literals)")


def _strip(entries):
    entries = list(entries)
    while entries and entries[-1] == FULL:
        entries.pop()
    return entries


def _opt(v):
    return "none" if v is None else str(v)


def _move_front(t, k, nd):
    perm = [k] + [j for j in range(nd) if j != k]
    return f"(transpose {t} {' '.join(map(str, perm))})"


def _move_back(t, k, nd):
    inv = list(range(1, k + 1)) + [0] + list(range(k + 1, nd))
    return f"(transpose {t} {' '.join(map(str, inv))})"


def subtensor_text(t: str, nd: int, entries) -> str:
    """``t[entries]`` for basic entries (ints and slices)."""
    entries = _strip(entries)
    lead = 0
    while lead < len(entries) and entries[lead][0] == "int":
        lead += 1
    if lead == len(entries) and lead:
        return f"(index {t} {' '.join(e[1] for e in entries)})"
    # Right to left: the axes before the current entry are untouched.
    cur = nd
    for k in reversed(range(len(entries))):
        e = entries[k]
        if e == FULL:
            continue
        if e[0] == "int":
            src = t if k == 0 else _move_front(t, k, cur)
            t = f"(index {src} {e[1]})"
            cur -= 1
        elif e[0] == "take":
            t = f"(take {t} {e[1]} {k})"
        else:
            _, a, b, s = e
            if k == 0:
                t = f"(slice {t} {_opt(a)} {_opt(b)} {s})"
            else:
                t = _move_back(f"(slice {_move_front(t, k, cur)} {_opt(a)} {_opt(b)} {s})", k, cur)
    return t


def _slice_len(d, e):
    """The length of axis size ``d`` after entry ``e`` (None: run time)."""
    if e == FULL:
        return d
    if e[0] != "slice":
        return None
    _, a, b, step = e
    if isinstance(d, int):
        return len(range(d)[slice(a, b, step)])
    if a is None and b is None and step in (1, -1):
        return d
    return None


def _sub_dims(cv, x, entries, out):
    xd = list(cv.dims(x))
    dims = []
    for k, d in enumerate(xd):
        e = entries[k] if k < len(entries) else FULL
        if e[0] == "int":
            continue
        dims.append(_slice_len(d, e))
    return tuple(int(s) if s is not None else d for s, d in zip(out.type.shape, dims))


def _keep_indices(cv, node, x, axis, sl) -> str:
    """The name of the indices a slice with run-time bounds keeps along
    ``axis`` of ``x``: a run-time-length vector (``filter`` over ``arange``
    of the axis's length, flipped for a negative step), for ``take`` /
    ``inc_take`` / ``set_take``. Python's slice rules: negative bounds from
    the end, clamped to the axis."""
    step = 1 if not _given(sl.step) else cv.static_size(sl.step)
    if not isinstance(step, int) or step == 0:
        raise cv.error(node, "a slice step that is not a non-zero literal")
    n = cv.dims(x)[axis]
    if n is None:
        raise cv.error(node, "a run-time slice of an axis whose size is known only at run time")
    ns = cv.size_expr(x, axis)

    def norm(b, lo, hi, default):
        if not _given(b):
            return default
        t = cv.expr(b)
        return f"(minimum (maximum (where (lt {t} 0) (add {t} {ns}) {t}) {lo}) {hi})"

    j = cv.fresh("j")
    if step > 0:
        lo, hi = cv.fresh("lo"), cv.fresh("hi")
        cv.lines.append(f"(let {lo} {norm(sl.start, 0, ns, '0')})")
        cv.lines.append(f"(let {hi} {norm(sl.stop, 0, ns, ns)})")
        pred = f"(where (ge {j} {lo}) (lt {j} {hi}) false)"
        if step != 1:
            pred = f"(where {pred} (eq (mod (sub {j} {lo}) {step}) 0) false)"
        keep = f"(filter (fn ({j}) {pred}) (arange {n}))"
    else:
        last = f"(sub {ns} 1)"
        hi, lo = cv.fresh("hi"), cv.fresh("lo")
        cv.lines.append(f"(let {hi} {norm(sl.start, -1, last, last)})")
        cv.lines.append(f"(let {lo} {norm(sl.stop, -1, last, '-1')})")
        pred = f"(where (le {j} {hi}) (gt {j} {lo}) false)"
        if step != -1:
            pred = f"(where {pred} (eq (mod (sub {hi} {j}) {-step}) 0) false)"
        keep = f"(flip (filter (fn ({j}) {pred}) (arange {n})) 0)"
    name = cv.fresh("keep")
    cv.lines.append(f"(let {name} {keep})")
    return name


def _given(b) -> bool:
    from pytensor.tensor.type_other import NoneTypeT

    return b is not None and not isinstance(getattr(b, "type", None), NoneTypeT)


def run_time_entries(cv, node, x, idx_vars):
    """The index tuple when some slice bound is known only at run time: as
    ``_entries``, with such a slice as ``("take", keep_name)``."""
    idx = indices_from_subtensor(idx_vars, node.op.idx_list)
    xd = cv.dims(x)
    out = []
    for axis, e in enumerate(idx):
        if isinstance(e, slice):
            try:
                step = _bound(cv, node, e.step)
                step = 1 if step is None else step
                start = _bound(cv, node, e.start, xd[axis], step < 0)
                stop = _bound(cv, node, e.stop, xd[axis], step > 0)
                out.append(("slice", start, stop, step))
            except Error:
                out.append(("take", _keep_indices(cv, node, x, axis, e)))
        elif e.type.ndim == 0:
            out.append(("int", cv.expr(e)))
        else:
            raise cv.error(node, "an index array next to a slice with run-time bounds")
    return out


@register(Subtensor)
def _subtensor(cv, node):
    x = node.inputs[0]
    out = node.outputs[0]
    try:
        entries = _entries(cv, node, x, node.inputs[1:])
    except Error:
        entries = run_time_entries(cv, node, x, node.inputs[1:])
    text = subtensor_text(cv.expr(x), x.type.ndim, entries)
    cv.bind(out, text, dims=_sub_dims(cv, x, entries, out))


def set_sub_text(xt, x_nd, vt, v_nd, entries, inc: bool) -> str:
    """``X`` with ``X[entries]`` replaced by (``inc``: incremented by) ``V``."""
    entries = _strip(entries)
    if not entries:
        return f"(add {xt} {vt})" if inc else f"(add (zeros_like {xt}) {vt})"
    e0 = entries[0]
    kind = "inc" if inc else "set"
    if e0[0] == "take":
        part = f"(take {xt} {e0[1]} 0)"
        inner = set_sub_text(part, x_nd, vt, v_nd, [FULL] + entries[1:], inc)
        return f"(set_take {xt} {inner} {e0[1]} 0)"
    if len(entries) == 1 or (e0[0] == "int" and all(e[0] == "int" for e in entries)):
        if e0[0] == "int":
            return f"({kind}_index {xt} {vt} {' '.join(e[1] for e in entries)})"
        _, a, b, s = e0
        return f"({kind}_slice {xt} {vt} {_opt(a)} {_opt(b)} {s})"
    if e0[0] == "int":
        inner = set_sub_text(f"(index {xt} {e0[1]})", x_nd - 1, vt, v_nd, entries[1:], inc)
        return f"(set_index {xt} {inner} {e0[1]})"
    if e0 != FULL:
        _, a, b, s = e0
        part = f"(slice {xt} {_opt(a)} {_opt(b)} {s})"
        inner = set_sub_text(part, x_nd, vt, v_nd, [FULL] + entries[1:], inc)
        return f"(set_slice {xt} {inner} {_opt(a)} {_opt(b)} {s})"
    # A whole axis 0 before other indices: rotate axis 0 to the end.
    m = x_nd - sum(1 for e in entries if e[0] == "int")
    v = vt
    for _ in range(m - v_nd):
        v = f"(expand_dims {v} 0)"
    if m > 1:
        v = f"(transpose {v} {' '.join(map(str, list(range(1, m)) + [0]))})"
    xr = f"(transpose {xt} {' '.join(map(str, list(range(1, x_nd)) + [0]))})"
    res = set_sub_text(xr, x_nd, v, m, entries[1:], inc)
    back = [x_nd - 1] + list(range(x_nd - 1))
    return f"(transpose {res} {' '.join(map(str, back))})"


@register(IncSubtensor)
def _inc_subtensor(cv, node):
    x, y = node.inputs[:2]
    out = node.outputs[0]
    try:
        entries = _entries(cv, node, x, node.inputs[2:])
    except Error:
        entries = run_time_entries(cv, node, x, node.inputs[2:])
    yv = cv.val(y)
    yt = cv.cast(yv.text, x.type.dtype, yv.dtype)
    pad = pads.from_update(cv, x, y, entries, yt, lang_dtype(x.type.dtype))
    if pad is not None:  # into zeros: a concatenation, no update
        cv.bind(out, pad.text(), dims=pad.dims)
        cv.pads[out] = pad
        return
    text = set_sub_text(cv.expr(x), x.type.ndim, yt, y.type.ndim, entries, not node.op.set_instead_of_inc)
    cv.bind(out, text, dims=cv.dims(x))


def _advanced(cv, node, x, entries):
    """Where the integer arrays are: ``(axis, idx_text, x_text, restore)``.

    One array with every other index a whole axis: ``take`` along its axis.
    Several arrays on the leading axes (NumPy's ``x[a, b]``, broadcasting
    together) with whole axes after them: ``x`` is flattened over those axes
    and indexed by the flat index ``a * d1 + b`` (each array's negative
    entries taken from the end of its axis first); ``restore`` is the
    reshape that undoes the flattening (for updates), else None.
    """
    arrays = [k for k, e in enumerate(entries) if e[0] == "array"]
    # Next to an array, an integer is an index array too (NumPy broadcasts it).
    arrays = [k for k, e in enumerate(entries) if e[0] in ("array", "int")]
    others_full = all(e == FULL for k, e in enumerate(entries) if k not in arrays)
    xt = cv.expr(x)
    if len(arrays) == 1 and others_full:
        return arrays[0], _idx_text(cv, entries[arrays[0]]), xt, None
    k = len(arrays)
    if arrays != list(range(k)) or not others_full:
        raise cv.error(
            node,
            "integer-array indices convert when there is one (any axis) or when "
            "they are the leading indices, every other index a whole axis",
        )
    dims = cv.dims(x)
    if any(d is None for d in dims[k:]):
        raise cv.error(node, "an axis after the indexed ones has a run-time size")
    flat = None
    for j in range(k):
        a = _idx_text(cv, entries[j])
        dj = cv.size_expr(x, j)
        a = f"(where (lt {a} 0) (add {a} {dj}) {a})"
        flat = a if flat is None else f"(add (mul {flat} {dj}) {a})"
    rest = " ".join(str(d) for d in dims[k:])
    xr = f"(reshape {xt} -1{' ' + rest if rest else ''})"
    restore = None
    if sum(d is None for d in dims) <= 1:
        restore = " ".join(str(d) if d is not None else "-1" for d in dims)
    return 0, flat, xr, restore


def _mask_update(cv, node, x, y, mask):
    """``x[mask] = y`` / ``x[mask] += y``: a value broadcast over the kept
    rows is a ``where``; a value per kept row is put back at its row with
    ``uncompress`` (zeros elsewhere)."""
    mt, xt = mask
    m = node.inputs[2]
    k = m.type.ndim
    yv = cv.val(y)
    yt = cv.cast(yv.text, x.type.dtype, yv.dtype)
    x_text = cv.expr(x)
    per_row = y.type.ndim == x.type.ndim - k + 1 and y.type.shape[0] != 1
    if k > 1 and per_row:
        dims = cv.dims(x)
        if any(d is None for d in dims):
            raise cv.error(node, "a boolean-mask update of an array whose sizes are known only at run time")
    wm = cv.expr(m)
    for _ in range(x.type.ndim - k):
        wm = f"(expand_dims {wm} -1)"
    if per_row:
        back = f"(uncompress {mt} {yt})"
        if k > 1:
            back = f"(reshape {back} {' '.join(str(d) for d in cv.dims(x))})"
    else:
        back = yt
    if node.op.set_instead_of_inc:
        return f"(where {wm} {back} {x_text})"
    return f"(add {x_text} (where {wm} {back} (cast {lang_dtype(x.type.dtype)} 0)))"


def _idx_text(cv, e):
    return e[1] if e[0] == "int" else cv.expr(e[1])


def _merge(out, dims):
    """PyTensor's static sizes, completed by ``dims`` (or the op's shape
    inference when ``dims`` is None)."""
    if dims is None:
        return None
    return tuple(int(s) if s is not None else d for s, d in zip(out.type.shape, dims))


@register(AdvancedSubtensor1)
def _adv_sub1(cv, node):
    x, idx = node.inputs
    out = node.outputs[0]
    dims = tuple(cv.dims(idx)) + tuple(cv.dims(x)[1:])
    cv.bind(out, f"(take {cv.expr(x)} {cv.expr(idx)})", dims=_merge(out, dims))


def _mask(cv, node, x, idx_vars):
    """``(mask_text, x_text)`` when the index is one boolean mask on the
    leading axes (every other index a whole axis), both flattened over the
    mask's axes so that ``compress`` (NumPy's ``compress(mask, x, 0)``)
    gives ``x[mask]``; else None."""
    idx = indices_from_subtensor(idx_vars, node.op.idx_list)
    if not idx or isinstance(idx[0], slice) or idx[0].type.dtype != "bool":
        return None
    for e in idx[1:]:
        if not isinstance(e, slice) or any(_given(b) for b in (e.start, e.stop, e.step)):
            raise cv.error(node, "a boolean mask with other indices that are not whole axes")
    m = idx[0]
    k = m.type.ndim
    mt, xt = cv.expr(m), cv.expr(x)
    if k > 1:
        trailing = cv.dims(x)[k:]
        if any(d is None for d in trailing):
            raise cv.error(node, "a boolean mask over an array whose other sizes are known only at run time")
        mt = f"(reshape {mt} -1)"
        xt = f"(reshape {xt} -1{''.join(' ' + str(d) for d in trailing)})"
    return mt, xt


@register(AdvancedSubtensor)
def _adv_sub(cv, node):
    x = node.inputs[0]
    mask = _mask(cv, node, x, node.inputs[1:])
    if mask is not None:
        return f"(compress {mask[0]} {mask[1]})"
    entries = _entries(cv, node, x, node.inputs[1:])
    axis, it, xt, _ = _advanced(cv, node, x, entries)
    idx = [e[1] for e in entries if e[0] == "array"]
    out = node.outputs[0]
    dims = None
    if len(idx) == 1 and all(e[0] != "int" for e in entries):
        xd = list(cv.dims(x))
        dims = tuple(xd[:axis] + list(cv.dims(idx[0])) + xd[axis + 1 :])
    cv.bind(out, f"(take {xt} {it} {axis})", dims=_merge(out, dims))


def _take_update(cv, y, x_nd, xt, it, axis, part_shape, set_: bool, dtype) -> str:
    yv = cv.val(y)
    yt = cv.cast(yv.text, dtype, yv.dtype)
    full = part_shape is not None and y.type.ndim == len(part_shape) and all(
        s != 1 or t == 1 for s, t in zip(y.type.shape, part_shape)
    )
    if not full:  # broadcast the values to the gathered part's shape
        yt = f"(add (zeros_like (take {xt} {it} {axis})) {yt})"
    head = "set_take" if set_ else "inc_take"
    return f"({head} {xt} {yt} {it} {axis})"


@register(AdvancedIncSubtensor1)
def _adv_inc1(cv, node):
    x, y, idx = node.inputs
    part = list(idx.type.shape) + list(x.type.shape[1:])
    return _take_update(
        cv, y, x.type.ndim, cv.expr(x), cv.expr(idx), 0, part, node.op.set_instead_of_inc, x.type.dtype
    )


@register(AdvancedIncSubtensor)
def _adv_inc(cv, node):
    x, y = node.inputs[:2]
    mask = _mask(cv, node, x, node.inputs[2:])
    if mask is not None:
        return _mask_update(cv, node, x, y, mask)
    entries = _entries(cv, node, x, node.inputs[2:])
    axis, it, xt, restore = _advanced(cv, node, x, entries)
    arrays = [e[1] for e in entries if e[0] in ("array", "int")]
    if len(arrays) == 1 and entries[axis][0] == "array":
        xs = list(x.type.shape)
        part = xs[:axis] + list(arrays[0].type.shape) + xs[axis + 1 :]
    else:
        part = None  # broadcast shape of several arrays: let take give it
    text = _take_update(cv, y, x.type.ndim, xt, it, axis, part, node.op.set_instead_of_inc, x.type.dtype)
    if len(arrays) > 1:
        if restore is None:
            raise cv.error(node, "an update through several index arrays needs static sizes")
        text = f"(reshape {text} {restore})"
    return text


__all__ = ["set_sub_text", "subtensor_text", "lang_dtype"]
