"""Zero-padded values: PyTensor's ``inc_subtensor(zeros, v, [:, lo:hi])``
(the gradient of a slice) and sums of such values, written as one
``concat`` of the values and zero blocks.

A gradient through column slices of a matrix (a GRU's or an LSTM's gate
blocks ``z[:, :n]``, ``z[:, n:2n]``, ...) is, in PyTensor's graph, a sum of
``IncSubtensor`` nodes into zero matrices, one per slice. Written as the
language's ``inc_slice`` on axis 0 between transposes, each one fills a
whole zero matrix, adds a block and moves the axes back, and the sum then
adds the full matrices: the work of several matrices per step of a
backward loop for what is one concatenation. Here such a value is
recorded as a ``Pad`` (its axis, shape and the disjoint ranges it holds)
and a sum of pads with disjoint ranges is one ``Pad`` again, so the
converter writes ``(concat AXIS v1 v2 ...)`` with ``zeros`` blocks only
where no value is.

This module owns recognizing pads and writing them; it must not change
what any other IncSubtensor or Elemwise converts to. Values: a pad's
elements are the values where they are and 0 elsewhere; a sum of pads
over disjoint ranges has the same elements (``v + 0`` is ``v``, but a
``-0.0`` there becomes ``+0.0`` in PyTensor and stays ``-0.0`` here: the
two compare equal).
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import render_type


@dataclass(frozen=True)
class Pad:
    """A zero array of static ``dims`` and language dtype ``ldtype`` that
    holds, along ``axis``, the value ``text`` in each range ``[lo, hi)`` of
    ``pieces`` (sorted, disjoint, non-empty)."""

    axis: int
    dims: tuple
    ldtype: str
    pieces: tuple

    def text(self) -> str:
        """``(concat AXIS ...)`` of the pieces and zero blocks between them
        (the one piece alone when it fills the axis)."""
        parts = []
        at = 0
        for lo, hi, t in self.pieces:
            if lo > at:
                parts.append(self._zeros(lo - at))
            parts.append(t)
            at = hi
        if at < self.dims[self.axis]:
            parts.append(self._zeros(self.dims[self.axis] - at))
        if len(parts) == 1:
            return parts[0]
        return f"(concat {self.axis} {' '.join(parts)})"

    def _zeros(self, width: int) -> str:
        dims = list(self.dims)
        dims[self.axis] = width
        return f"(zeros {render_type(self.ldtype, dims)})"


def is_zero_filled(x) -> bool:
    """Whether every element of ``x`` is the constant 0 (PyTensor's
    ``zeros_like`` / ``alloc(0, ...)`` / ``second(x, 0)``)."""
    from pytensor.tensor.basic import get_underlying_scalar_constant_value
    from pytensor.tensor.exceptions import NotScalarConstantError

    try:
        return get_underlying_scalar_constant_value(x) == 0
    except NotScalarConstantError:
        return False


def from_update(cv, x, y, entries, y_text: str, ldtype: str) -> Pad | None:
    """``x`` with ``x[entries]`` incremented (or set) by ``y`` as a pad,
    when ``x`` is zero-filled with static dims, ``entries`` are whole axes
    but one slice of step 1 with literal bounds, and ``y`` has the slice's
    very shape (no broadcast); else None. ``entries`` as
    ``indexing._entries`` gives them."""
    dims = cv.dims(x)
    if not all(isinstance(d, int) for d in dims) or not is_zero_filled(x):
        return None
    cut = [k for k, e in enumerate(entries) if e != ("slice", None, None, 1)]
    if len(cut) != 1:
        return None
    axis = cut[0]
    e = entries[axis]
    if e[0] != "slice" or e[3] != 1 or axis >= len(dims):
        return None
    r = range(dims[axis])[slice(e[1], e[2], 1)]
    if len(r) == 0:
        return None
    part = list(dims)
    part[axis] = len(r)
    if tuple(cv.dims(y)) != tuple(part) or y.type.ndim != len(dims):
        return None
    return Pad(axis, tuple(dims), ldtype, ((r.start, r.stop, y_text),))


def sum_of(pads, out_ldtype: str, out_dims: tuple) -> Pad | None:
    """The sum of ``pads`` as one pad, when they pad along the same axis
    the same shape and dtype as the sum's, over disjoint ranges; else
    None."""
    first = pads[0]
    if any(p is None or (p.axis, p.dims, p.ldtype) != (first.axis, first.dims, first.ldtype) for p in pads):
        return None
    if first.ldtype != out_ldtype or tuple(out_dims) != first.dims:
        return None
    pieces = sorted((pc for p in pads for pc in p.pieces), key=lambda pc: pc[0])
    if any(a[1] > b[0] for a, b in zip(pieces, pieces[1:])):
        return None
    return Pad(first.axis, first.dims, first.ldtype, tuple(pieces))
