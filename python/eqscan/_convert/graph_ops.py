"""Converters of ops that carry an inner graph of tensor ops
(``OpFromGraph`` and its subclasses, as PyTensor's symbolic ops are): the
inner graph is inlined, its inputs standing for the outer operands.

This module owns the inlining; Scan (whose inner graph is a loop body) is
not its business.
"""

from __future__ import annotations

from pytensor.compile.builders import OpFromGraph

from .core import register


def inline_op_from_graph(cv, node):
    """Convert ``node``'s inner graph in place of the node: its inner inputs
    become the outer operands' names; the lines go to the current body."""
    op = node.op
    inner_in = list(op.inner_inputs)
    inner_out = list(op.inner_outputs)
    names = [cv.expr(i) for i in node.inputs]
    dims = [cv.dims(i) for i in node.inputs]
    lines, exprs = cv.convert_inner(inner_in, inner_out, names, dims=dims, reserve=False)
    cv.lines.extend(lines)
    return [cv.cast(e, o.type.dtype, lang_dtype_of(io)) for e, o, io in zip(exprs, node.outputs, inner_out)]


def lang_dtype_of(v):
    from .core import lang_dtype

    return lang_dtype(v.type.dtype)


@register(OpFromGraph)
def _op_from_graph(cv, node):
    return inline_op_from_graph(cv, node)
