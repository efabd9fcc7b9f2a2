"""Converters of PyTensor's indexing ops: Subtensor, IncSubtensor (set and
inc), AdvancedSubtensor1 / AdvancedSubtensor (integer arrays -> ``take``)
and AdvancedIncSubtensor1 / AdvancedIncSubtensor (-> ``inc_take`` /
``set_take``).

This module owns rewriting NumPy index tuples into the language's
axis-0 ``index``/``slice`` (and their updates), moving an axis to the front
with ``transpose`` where an index is not on axis 0. Slice bounds must be
literals (or a symbolic size equal to the whole axis, which is no bound);
integer indices may be any expression. Boolean masks are an error.
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

from .core import lang_dtype, register

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
            start = _bound(cv, node, e.start, xd[axis], step < 0)
            stop = _bound(cv, node, e.stop, xd[axis], step > 0)
            out.append(("slice", start, stop, step))
        elif e.type.ndim == 0:
            out.append(("int", cv.expr(e)))
        elif e.type.dtype == "bool":
            raise cv.error(node, "boolean mask indexing (a data-dependent length)")
        else:
            out.append(("array", e))
    return out


def _bound(cv, node, v, axis_len=None, may_be_end=False):
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
        else:
            _, a, b, s = e
            if k == 0:
                t = f"(slice {t} {_opt(a)} {_opt(b)} {s})"
            else:
                t = _move_back(f"(slice {_move_front(t, k, cur)} {_opt(a)} {_opt(b)} {s})", k, cur)
    return t


def _sub_dims(cv, x, entries, out):
    xd = list(cv.dims(x))
    dims = []
    for k, d in enumerate(xd):
        e = entries[k] if k < len(entries) else FULL
        if e[0] == "int":
            continue
        dims.append(d if e == FULL else None)
    return tuple(int(s) if s is not None else d for s, d in zip(out.type.shape, dims))


@register(Subtensor)
def _subtensor(cv, node):
    x = node.inputs[0]
    out = node.outputs[0]
    entries = _entries(cv, node, x, node.inputs[1:])
    text = subtensor_text(cv.expr(x), x.type.ndim, entries)
    cv.bind(out, text, dims=_sub_dims(cv, x, entries, out))


def set_sub_text(xt, x_nd, vt, v_nd, entries, inc: bool) -> str:
    """``X`` with ``X[entries]`` replaced by (``inc``: incremented by) ``V``."""
    entries = _strip(entries)
    if not entries:
        return f"(add {xt} {vt})" if inc else f"(add (zeros_like {xt}) {vt})"
    e0 = entries[0]
    kind = "inc" if inc else "set"
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
    entries = _entries(cv, node, x, node.inputs[2:])
    yv = cv.val(y)
    yt = cv.cast(yv.text, x.type.dtype, yv.dtype)
    text = set_sub_text(cv.expr(x), x.type.ndim, yt, y.type.ndim, entries, not node.op.set_instead_of_inc)
    cv.bind(out, text, dims=cv.dims(x))


def _single_array(cv, node, entries):
    arrays = [k for k, e in enumerate(entries) if e[0] == "array"]
    others_full = all(e == FULL for k, e in enumerate(entries) if k not in arrays)
    if len(arrays) != 1 or not others_full:
        raise cv.error(
            node,
            "only one integer-array index with every other index a whole axis converts "
            "(to take)",
        )
    return arrays[0], entries[arrays[0]][1]


@register(AdvancedSubtensor1)
def _adv_sub1(cv, node):
    x, idx = node.inputs
    return f"(take {cv.expr(x)} {cv.expr(idx)})"


@register(AdvancedSubtensor)
def _adv_sub(cv, node):
    x = node.inputs[0]
    entries = _entries(cv, node, x, node.inputs[1:])
    axis, idx = _single_array(cv, node, entries)
    return f"(take {cv.expr(x)} {cv.expr(idx)} {axis})"


def _take_update(cv, node, x, y, idx, axis, set_: bool) -> str:
    yv = cv.val(y)
    yt = cv.cast(yv.text, x.type.dtype, yv.dtype)
    want_nd = x.type.ndim - 1 + idx.type.ndim
    full = y.type.ndim == want_nd and all(
        s != 1 or t == 1
        for s, t in zip(y.type.shape, _take_static_shape(x, idx, axis))
    )
    xt = cv.expr(x)
    it = cv.expr(idx)
    if not full:  # broadcast the values to the gathered part's shape
        yt = f"(add (zeros_like (take {xt} {it} {axis})) {yt})"
    head = "set_take" if set_ else "inc_take"
    return f"({head} {xt} {yt} {it} {axis})"


def _take_static_shape(x, idx, axis):
    xs = list(x.type.shape)
    return xs[:axis] + list(idx.type.shape) + xs[axis + 1 :]


@register(AdvancedIncSubtensor1)
def _adv_inc1(cv, node):
    x, y, idx = node.inputs
    return _take_update(cv, node, x, y, idx, 0, node.op.set_instead_of_inc)


@register(AdvancedIncSubtensor)
def _adv_inc(cv, node):
    x, y = node.inputs[:2]
    entries = _entries(cv, node, x, node.inputs[2:])
    axis, idx = _single_array(cv, node, entries)
    return _take_update(cv, node, x, y, idx, axis, node.op.set_instead_of_inc)


__all__ = ["set_sub_text", "subtensor_text", "lang_dtype"]
