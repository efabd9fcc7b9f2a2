"""Converters of PyTensor's tensor ops (everything but Scan).

This module owns the op-by-op mapping; each converter is registered with
``core.register`` and follows the interface in ``core``'s module doc.
"""

from __future__ import annotations

from pytensor.tensor.elemwise import DimShuffle

from . import elemwise  # noqa: F401  (Elemwise and the scalar ops)
from . import graph_ops  # noqa: F401  (OpFromGraph: inlined)
from . import indexing  # noqa: F401  (Subtensor and friends)
from . import linalg  # noqa: F401  (Dot, Blockwise, BLAS, linalg)
from . import random  # noqa: F401  (random variables on keys)
from . import reduce  # noqa: F401  (CAReduce, Argmax, CumOp, Softmax)
from . import shape_ops  # noqa: F401  (shapes, creation, pass-through ops)
from .core import register


def dimshuffle_text(x: str, new_order, input_ndim: int) -> str:
    """``x`` rearranged as ``DimShuffle(new_order)``: squeeze the dropped
    (broadcastable) axes, transpose the kept ones, insert the new ones."""
    kept = [a for a in new_order if a != "x"]
    dropped = sorted(set(range(input_ndim)) - set(kept), reverse=True)
    t = x
    for a in dropped:
        t = f"(squeeze {t} {a})"
    remaining = sorted(kept)
    perm = [remaining.index(a) for a in kept]
    if perm != list(range(len(perm))):
        t = f"(transpose {t} {' '.join(map(str, perm))})"
    for pos, a in enumerate(new_order):
        if a == "x":
            t = f"(expand_dims {t} {pos})"
    return t


@register(DimShuffle)
def _dimshuffle(cv, node):
    op = node.op
    x = node.inputs[0]
    xd = cv.dims(x)
    text = dimshuffle_text(cv.expr(x), op.new_order, op.input_ndim)
    dims = tuple(1 if a == "x" else xd[a] for a in op.new_order)
    out = node.outputs[0]
    dims = tuple(int(s) if s is not None else d for s, d in zip(out.type.shape, dims))
    cv.bind(out, text, dims=dims)
