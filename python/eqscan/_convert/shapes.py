"""Static shapes for the converter: evaluating PyTensor's integer shape
graphs to the language's sizes, and the dims of converted variables.

This module owns the question "what size is this, as the program can write
it?". A size is an ``int``, a ``str`` symbol (a symbolic size of the
program), or ``None`` (known only at run time). It never emits program text.
"""

from __future__ import annotations

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import ScalarFromTensor, TensorFromScalar
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.shape import Shape, Shape_i, SpecifyShape
from pytensor.tensor.subtensor import Subtensor

# Placeholders standing for sizes while an op's infer_shape runs: var -> size.
_PLACEHOLDER_TAG = "_eqscan_size"


def _placeholder(d):
    if isinstance(d, (int, np.integer)):
        return pt.constant(np.int64(d))
    v = pt.lscalar(str(d) if d is not None else "unknown_size")
    setattr(v.tag, _PLACEHOLDER_TAG, d)
    return v


def _fold_int(op, vals):
    """Fold a scalar integer op over plain ints, or None."""
    if not all(isinstance(v, (int, np.integer)) for v in vals):
        return _fold_symbolic(op, vals)
    v = [int(x) for x in vals]
    if isinstance(op, (ps.Identity, ps.Cast)):
        return v[0]
    if isinstance(op, ps.Add):
        return sum(v)
    if isinstance(op, ps.Sub):
        return v[0] - v[1]
    if isinstance(op, ps.Mul):
        return int(np.prod(v))
    if isinstance(op, ps.IntDiv):
        return v[0] // v[1] if v[1] else None
    if isinstance(op, ps.Maximum):
        return max(v)
    if isinstance(op, ps.Minimum):
        return min(v)
    if isinstance(op, ps.Neg):
        return -v[0]
    return None


def _fold_symbolic(op, vals):
    """The few integer identities that keep a symbol: x + 0, x * 1, x // 1,
    max(x, 1) / max(x, 0) (a size is >= 1 when broadcasting yields it: not
    certain, so only 0), identity and cast."""
    if any(v is None for v in vals):
        return None
    if isinstance(op, (ps.Identity, ps.Cast)):
        return vals[0]
    if isinstance(op, ps.Add):
        rest = [v for v in vals if v != 0]
        return rest[0] if len(rest) == 1 else None
    if isinstance(op, ps.Mul):
        rest = [v for v in vals if v != 1]
        return rest[0] if len(rest) == 1 else None
    if isinstance(op, (ps.IntDiv,)) and vals[1] == 1:
        return vals[0]
    if isinstance(op, ps.Sub) and vals[1] == 0:
        return vals[0]
    if isinstance(op, (ps.Maximum, ps.Minimum)) and len(set(vals)) == 1:
        return vals[0]
    if isinstance(op, ps.Maximum) and len(vals) == 2 and 0 in vals:
        return [v for v in vals if v != 0][0] if any(v != 0 for v in vals) else 0
    return None


def _scalar_op(var):
    """The scalar op of an Elemwise (or a ScalarOp apply), else None."""
    op = var.owner.op
    if isinstance(op, Elemwise):
        return op.scalar_op
    if isinstance(op, ps.ScalarOp):
        return op
    return None


def static_size(cv, var):
    """A scalar integer variable as a size: int, symbol, or None."""
    tag = getattr(getattr(var, "tag", None), _PLACEHOLDER_TAG, "missing")
    if tag != "missing":
        return tag
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        if data.size == 1 and data.dtype.kind in "iub":
            return int(data.reshape(()))
        return None
    known = cv._find(var)
    if known is not None and known.weak and known.dtype in ("i64", "i32"):
        return int(known.text)
    if var.owner is None:
        return None
    op = var.owner.op
    ins = var.owner.inputs
    if isinstance(op, Shape_i):
        return cv.dims(ins[0])[op.i]
    if isinstance(op, (ScalarFromTensor, TensorFromScalar)) or type(op).__name__ in (
        "CheckAndRaise",
        "Assert",
    ):
        return static_size(cv, ins[0])
    if isinstance(op, DimShuffle) and var.type.ndim == 0 and ins[0].type.ndim == 1:
        # squeeze of a length-1 vector (canonicalize writes x.shape[0] of a
        # vector as squeeze(shape(x)))
        vec = static_sizes(cv, ins[0], partial=True)
        return vec[0] if vec is not None and len(vec) == 1 else None
    if isinstance(op, Subtensor) and len(op.idx_list) == 1 and not isinstance(
        op.idx_list[0], slice
    ):
        vec = static_sizes(cv, ins[0], partial=True)
        k = static_size(cv, ins[1])
        if vec is not None and isinstance(k, int) and -len(vec) <= k < len(vec):
            return vec[k]
        return None
    if isinstance(op, DimShuffle) and ins[0].type.ndim == 1 and not any(
        a != "x" for a in op.new_order
    ):
        vec = static_sizes(cv, ins[0], partial=True)  # squeezing a 1-vector
        return vec[0] if vec is not None and len(vec) == 1 else None
    sop = _scalar_op(var)
    if isinstance(sop, ps.Composite):
        return _fold_composite(sop, [static_size(cv, i) for i in ins], var.owner.outputs.index(var))
    if sop is not None:
        vals = [static_size(cv, i) for i in ins]
        return _fold_int(sop, vals)
    return None


def _fold_composite(comp, vals, k):
    """A Composite's ``k``-th output folded over sizes, or None."""
    env = dict(zip(comp.fgraph.inputs, vals))
    for node in comp.fgraph.toposort():
        args = []
        for i in node.inputs:
            if i in env:
                args.append(env[i])
            elif isinstance(i, Constant):
                data = np.asarray(i.data)
                args.append(int(data) if data.dtype.kind in "iub" else None)
            else:
                args.append(None)
        env[node.outputs[0]] = _fold_int(node.op, args)
    return env.get(comp.fgraph.outputs[k])


def static_sizes(cv, var, partial: bool = False):
    """A 1-D integer shape vector as a list of sizes, or None. With
    ``partial``, entries that are not static are None (instead of the whole
    answer being None)."""
    out = _sizes(cv, var)
    if out is None:
        return None
    if not partial and any(d is None for d in out):
        return None
    return out


def _sizes(cv, var):
    from pytensor.tensor.basic import MakeVector

    if isinstance(var, Constant):
        data = np.asarray(var.data)
        if data.ndim == 1 and data.dtype.kind in "iu":
            return [int(x) for x in data]
        return None
    if var.owner is None:
        return None
    op = var.owner.op
    ins = var.owner.inputs
    if isinstance(op, Shape):
        return list(cv.dims(ins[0]))
    if isinstance(op, MakeVector):
        return [static_size(cv, i) for i in ins]
    if isinstance(op, Elemwise) and isinstance(op.scalar_op, (ps.Cast, ps.Identity)):
        return _sizes(cv, ins[0])
    if isinstance(op, SpecifyShape):
        return _sizes(cv, ins[0])
    if isinstance(op, DimShuffle) and ins[0].type.ndim == 0 and tuple(op.new_order) == ("x",):
        return [static_size(cv, ins[0])]
    if isinstance(op, Subtensor) and len(op.idx_list) == 1 and isinstance(op.idx_list[0], slice):
        # a literal slice of a sizes vector (x.shape[-2:])
        from pytensor.tensor.subtensor import indices_from_subtensor

        vec = _sizes(cv, ins[0])
        (sl,) = indices_from_subtensor(ins[1:], op.idx_list)
        bounds = [None if b is None else static_size(cv, b) for b in (sl.start, sl.stop, sl.step)]
        given = [b for b, raw in zip(bounds, (sl.start, sl.stop, sl.step)) if raw is not None]
        if vec is None or not all(isinstance(b, int) for b in given):
            return None
        return vec[slice(*bounds)]
    return None


def constant_value(cv, var):
    """The value of a constant (or a statically known integer), else None."""
    if isinstance(var, Constant):
        return np.asarray(var.data)
    s = static_size(cv, var) if var.type.ndim == 0 else None
    if isinstance(s, int):
        return np.asarray(s, dtype=var.type.dtype)
    return None


def infer_dims(cv, node, out) -> tuple:
    """``out``'s dims: PyTensor's static shape, completed by the op's
    ``infer_shape`` evaluated on the inputs' sizes."""
    static = tuple(out.type.shape)
    if all(s is not None for s in static):
        return tuple(int(s) for s in static)
    fast = _fast_dims(cv, node, out)
    if fast is not None and len(fast) == len(static):
        return tuple(int(s) if s is not None else d for s, d in zip(static, fast))
    try:
        in_shapes = []
        for i in node.inputs:
            if hasattr(i.type, "ndim"):
                in_shapes.append(tuple(_placeholder(d) for d in cv.dims(i)))
            else:
                in_shapes.append(None)
        shapes = node.op.infer_shape(None, node, in_shapes)
        k = node.outputs.index(out)
        inferred = [static_size(cv, pt.as_tensor_variable(s)) for s in shapes[k]]
    except Exception:  # no infer_shape, or one that needs the fgraph
        inferred = [None] * len(static)
    return tuple(
        int(s) if s is not None else inferred[k] if k < len(inferred) else None
        for k, s in enumerate(static)
    )


def _broadcast(dim_lists):
    """Broadcast dims (right-aligned): a size other than 1 wins (any one of
    several: they are equal whenever the program runs)."""
    nd = max((len(d) for d in dim_lists), default=0)
    out = []
    for k in range(nd):
        cands = [d[k - nd + len(d)] for d in dim_lists if k - nd + len(d) >= 0]
        known = [c for c in cands if c not in (1, None)]
        known.sort(key=lambda c: not isinstance(c, int))
        if known:
            out.append(known[0])
        elif all(c == 1 for c in cands):
            out.append(1)
        else:
            out.append(None)
    return out


def _fast_dims(cv, node, out):
    """Dims for the common ops without building PyTensor shape graphs
    (CAReduce, Dot, Blockwise by its signature), else None."""
    from pytensor.tensor.blockwise import Blockwise
    from pytensor.tensor.elemwise import CAReduce
    from pytensor.tensor.math import Dot

    op = node.op
    ins = node.inputs
    if isinstance(op, CAReduce):
        d = list(cv.dims(ins[0]))
        if op.axis is None:
            return ()
        drop = {a % len(d) for a in op.axis} if d else set()
        return tuple(x for k, x in enumerate(d) if k not in drop)
    if isinstance(op, Dot) and all(i.type.ndim == 2 for i in ins):
        return (cv.dims(ins[0])[0], cv.dims(ins[1])[1])
    if isinstance(op, Blockwise):
        sig = getattr(op, "signature", None)
        try:
            ins_sig, outs_sig = _parse_signature(sig)
        except Exception:
            return None
        letters: dict = {}
        batch = []
        for i, core in zip(ins, ins_sig):
            d = list(cv.dims(i))
            nb = len(d) - len(core)
            batch.append(d[:nb])
            for name, size in zip(core, d[nb:]):
                if letters.get(name) is None or isinstance(size, int):
                    letters[name] = size if size is not None else letters.get(name)
        k = node.outputs.index(out)
        return tuple(_broadcast(batch)) + tuple(letters.get(n) for n in outs_sig[k])
    return None


def _parse_signature(sig: str):
    """``"(m,n),(n)->(m)"`` as ``([["m", "n"], ["n"]], [["m"]])``."""
    import re

    lhs, rhs = sig.split("->")

    def parts(side):
        return [[t for t in g.split(",") if t] for g in re.findall(r"\(([^()]*)\)", side)]

    return parts(lhs), parts(rhs)
