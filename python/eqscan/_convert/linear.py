"""Integer scalars of a PyTensor graph as linear forms, to decide that two
sizes are equal without running anything.

This module owns the analysis: ``lin(var)`` reads an integer scalar (shape
entries, ``n_steps``, slice bounds: constants, ``+ - *`` by constants, scalar
conversions) as ``{atom: coefficient}`` with the constant under the key
``None``; ``dim(x, k)`` reads ``x.shape[k]``, following allocations, set /
inc subtensors, constant slices (taken to lie inside the array), ``x[:s]``
(``s`` when ``s`` is a ``minimum`` that includes ``x``'s length) and the
traced outputs of a (non-while) Scan (their buffer's length). Anything
else is an atom by identity, so equal forms are equal sizes (up to a slice
clamped at an array's end, which makes a loop's sequence too short anyway)
while unequal forms only mean "not proved". It emits no program text.
"""

from __future__ import annotations

import weakref

import numpy as np
import pytensor.scalar as ps
from pytensor.graph.basic import Constant
from pytensor.scan.op import Scan
from pytensor.tensor.basic import Alloc, AllocEmpty, ScalarFromTensor, TensorFromScalar
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.shape import Shape, Shape_i, SpecifyShape
from pytensor.tensor.subtensor import IncSubtensor, Subtensor, get_idx_list

Lin = dict  # atom key -> integer coefficient; the key None holds the constant


def lin_const(c: int) -> Lin:
    return {None: int(c)}


def lin_add(a: Lin, b: Lin, sign: int = 1) -> Lin:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return {k: v for k, v in out.items() if v != 0}


def lin_scale(a: Lin, s: int) -> Lin:
    return {k: v * s for k, v in a.items() if v * s != 0}


def lin_constant_of(a: Lin) -> int | None:
    """The value of a form without atoms, else None."""
    if all(k is None for k in a):
        return a.get(None, 0)
    return None


def int_constant(var) -> int | None:
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        if data.size == 1 and data.dtype.kind in "iub":
            return int(data.reshape(()))
    return None


# Memos (the forms of a variable's ancestors do not change). Atoms name
# variables by ``id``: a form held for a live variable names only its
# ancestors, which it keeps alive, and a memo's value never holds its key.
_LIN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_DIM: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BY_ID: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _atom(kind: str, var, k=None) -> Lin:
    _BY_ID[id(var)] = var
    return {(kind, id(var), k): 1}


def lin(var, depth: int = 0) -> Lin:
    """``var`` (an integer scalar) as a linear form."""
    try:
        return _LIN[var]
    except (KeyError, TypeError):
        pass
    out = _lin(var, depth)
    if depth <= 64:  # a truncated answer is not kept
        _LIN[var] = out
    return out


def dim(x, k: int, depth: int = 0) -> Lin:
    """``x.shape[k]`` as a linear form."""
    per = _DIM.get(x)
    if per is not None and k in per:
        return per[k]
    out = _dim(x, k, depth)
    if depth <= 64:
        _DIM.setdefault(x, {})[k] = out
    return out


def _lin(var, depth: int) -> Lin:
    c = int_constant(var)
    if c is not None:
        return lin_const(c)
    atom = _atom("var", var)
    if var.owner is None or depth > 64:
        return atom
    op, ins = var.owner.op, var.owner.inputs
    if isinstance(op, (ScalarFromTensor, TensorFromScalar, SpecifyShape)):
        return lin(ins[0], depth + 1)
    if isinstance(op, Shape_i):
        return dim(ins[0], op.i, depth + 1)
    if (
        isinstance(op, Subtensor)
        and len(op.idx_list) == 1
        and not isinstance(op.idx_list[0], slice)
    ):
        base = ins[0]
        k = int_constant(ins[1]) if len(ins) > 1 else None
        if base.owner is not None and isinstance(base.owner.op, Shape) and k is not None:
            return dim(base.owner.inputs[0], k, depth + 1)
        return atom
    if isinstance(op, DimShuffle) and var.type.ndim == 0:
        # Squeeze of a length-1 shape vector
        base = ins[0]
        if base.owner is not None and isinstance(base.owner.op, Shape):
            x = base.owner.inputs[0]
            if x.type.ndim == 1:
                return dim(x, 0, depth + 1)
        return lin(base, depth + 1) if base.type.ndim == 0 else atom
    sop = op.scalar_op if isinstance(op, Elemwise) else op if isinstance(op, ps.ScalarOp) else None
    if sop is None:
        return atom
    if isinstance(sop, ps.Composite):
        out = _composite(sop, [lin(i, depth + 1) for i in ins], var.owner.outputs.index(var))
        return atom if out is None else out
    if isinstance(sop, (ps.Identity, ps.Cast)):
        return lin(ins[0], depth + 1)
    if isinstance(sop, (ps.Minimum, ps.Maximum)):
        return extreme(
            "min" if isinstance(sop, ps.Minimum) else "max", [lin(i, depth + 1) for i in ins]
        )
    if isinstance(sop, ps.Add):
        out: Lin = {}
        for i in ins:
            out = lin_add(out, lin(i, depth + 1))
        return out
    if isinstance(sop, ps.Sub):
        return lin_add(lin(ins[0], depth + 1), lin(ins[1], depth + 1), -1)
    if isinstance(sop, ps.Neg):
        return lin_scale(lin(ins[0], depth + 1), -1)
    if isinstance(sop, ps.Mul):
        forms = [lin(i, depth + 1) for i in ins]
        consts = [lin_constant_of(f) for f in forms]
        if sum(c is None for c in consts) <= 1:
            scale = 1
            rest = lin_const(1)
            for f, c in zip(forms, consts):
                if c is None:
                    rest = f
                else:
                    scale *= c
            return lin_scale(rest, scale)
    return atom


def _dim(x, k: int, depth: int) -> Lin:
    shape = getattr(x.type, "shape", None)
    if shape is not None and k < len(shape) and shape[k] is not None:
        return lin_const(shape[k])
    atom = _atom("dim", x, k)
    if x.owner is None or depth > 64:
        return atom
    op, ins = x.owner.op, x.owner.inputs
    if isinstance(op, AllocEmpty):
        return lin(ins[k], depth + 1)
    if isinstance(op, Alloc):
        return lin(ins[1 + k], depth + 1)
    if isinstance(op, IncSubtensor):
        return dim(ins[0], k, depth + 1)
    if isinstance(op, SpecifyShape):
        return dim(ins[0], k, depth + 1)
    if isinstance(op, Scan) and k == 0 and not op.info.as_while:
        # a loop's traced output holds as many rows as its buffer (or its
        # nit-sot length); a while loop's is shorter when it stops early
        j = x.owner.outputs.index(x)
        info = op.info
        n_buf = info.n_mit_mot + info.n_mit_sot + info.n_sit_sot
        if j < info.n_mit_mot:
            return dim(ins[1 + info.n_seqs + j], 0, depth + 1)
        if j < n_buf:
            taps = (list(info.mit_sot_in_slices) + [(-1,)] * info.n_sit_sot)[j - info.n_mit_mot]
            return buffer_len(ins[1 + info.n_seqs + j], -min(taps), depth + 1)
        if j < n_buf + info.n_nit_sot:
            return lin(op.outer_nitsot(ins)[j - n_buf], depth + 1)
        return atom
    if isinstance(op, Elemwise):
        # PyTensor broadcasts only axes known to be 1: any input of full
        # rank not statically 1 there has the output's size
        for i in ins:
            if i.type.ndim == x.type.ndim and i.type.shape[k] != 1:
                return dim(i, k, depth + 1)
        return atom
    if isinstance(op, Subtensor) and k == 0 and isinstance(op.idx_list[0], slice):
        sl = get_idx_list(ins, op.idx_list)[0]
        length = dim(ins[0], 0, depth + 1)
        n = slice_len(length, sl)
        if n is not None:
            return n
        if sl.start is None and sl.step is None and sl.stop is not None:
            # x[:s] is min(s, len(x)): s where s is a minimum that includes len(x)
            stop = lin(sl.stop, depth + 1)
            if any(same(leaf, length) for leaf in leaves(stop)):
                return stop
    return atom


def slice_len(length: Lin, sl: slice) -> Lin | None:
    """The length of ``x[sl]`` for constant bounds, as a form over ``x``'s
    length, taking the bounds to lie inside ``x`` (a slice clamped at 0 or
    at the end is a sequence too short for its loop); None when the length
    is not linear (a positive stop on a length that is not constant)."""
    bounds = []
    for b in (sl.start, sl.stop, sl.step):
        if b is None:
            bounds.append(None)
        else:
            c = int_constant(b)
            if c is None:
                return None
            bounds.append(c)
    start, stop, step = bounds
    step = 1 if step is None else step

    def at(b):  # a bound as a position
        return lin_add(length, lin_const(b)) if b < 0 else lin_const(b)

    known = lin_constant_of(length)
    if step == 1:
        s = lin_const(0) if start is None else at(start)
        if stop is None or stop < 0:
            e = length if stop is None else at(stop)
        elif known is not None:
            e = lin_const(min(stop, known))
        else:
            e = extreme("min", [lin_const(stop), length])
        return lin_add(e, s, -1)
    if step == -1:
        s = lin_add(length, lin_const(-1)) if start is None else at(start)
        if start is not None and start >= 0 and known is None:
            return None
        e = lin_const(-1) if stop is None else at(stop)
        return lin_add(s, e, -1)
    return None


def extreme(kind: str, forms: list) -> Lin:
    """``min`` (``kind`` "min") or ``max`` of forms: the form itself when
    they are all one, else an atom named by the set of its operands (nested
    ones flattened), so two minimums of the same sizes are the same size."""
    flat = []
    for f in forms:
        flat.extend(leaves(f, kind))
    if kind == "max" and len(flat) > 1:
        # a clamp of a size at 0: the size (sizes are taken to lie inside
        # their arrays, as for slices)
        flat = [f for f in flat if lin_constant_of(f) != 0] or flat
    uniq = []
    for f in flat:
        if not any(same(f, g) for g in uniq):
            uniq.append(f)
    consts = [lin_constant_of(f) for f in uniq]
    if len(uniq) > 1 and all(c is not None for c in consts):
        return lin_const(min(consts) if kind == "min" else max(consts))
    if len(uniq) == 1:
        return uniq[0]
    return {(kind, frozenset(frozenset(f.items()) for f in uniq), None): 1}


def _switch(cond, a: Lin, b: Lin, of) -> Lin | None:
    """``switch(p < q, a, b)`` as ``min(p, q)`` (a is p, b is q) or
    ``max(p, q)`` (a is q, b is p): the clamps FAST_RUN writes sizes with."""
    node = cond.owner
    if node is None or not isinstance(node.op, (ps.LT, ps.GT)):
        return None
    p, q = (of(i) for i in node.inputs)
    if p is None or q is None:
        return None
    if isinstance(node.op, ps.GT):
        p, q = q, p
    if same(a, p) and same(b, q):
        return extreme("min", [p, q])
    if same(a, q) and same(b, p):
        return extreme("max", [p, q])
    return None


def leaves(form: Lin, kind: str = "min") -> list:
    """The operands of a form that is a minimum (``kind``), else the form."""
    if len(form) == 1:
        ((key, coef),) = form.items()
        if coef == 1 and key is not None and key[0] == kind:
            return [dict(f) for f in key[1]]
    return [form]


def _composite(op, in_forms: list, k: int) -> Lin | None:
    """Output ``k`` of a ``Composite`` scalar graph over its inputs' forms
    (None where it is not linear)."""
    fg = op.fgraph
    forms = dict(zip(fg.inputs, in_forms))

    def of(v):
        if v in forms:
            return forms[v]
        if isinstance(v, Constant):
            c = int_constant(v)
            return None if c is None else lin_const(c)
        node = v.owner
        if node is None:
            return None
        args = [of(i) for i in node.inputs]
        if any(a is None for a in args):
            return None
        sop = node.op
        if isinstance(sop, (ps.Identity, ps.Cast)):
            out = args[0]
        elif isinstance(sop, ps.Add):
            out = {}
            for a in args:
                out = lin_add(out, a)
        elif isinstance(sop, ps.Sub):
            out = lin_add(args[0], args[1], -1)
        elif isinstance(sop, ps.Neg):
            out = lin_scale(args[0], -1)
        elif isinstance(sop, (ps.Minimum, ps.Maximum)):
            out = extreme("min" if isinstance(sop, ps.Minimum) else "max", args)
        elif isinstance(sop, ps.Switch):
            out = _switch(node.inputs[0], args[1], args[2], of)
            if out is None:
                return None
        else:
            return None
        forms[v] = out
        return out

    return of(fg.outputs[k])


def init_rows(buf, m: int):
    """The variable ``y`` that ``buf`` was built from as ``set_subtensor(
    base[:m], y)`` with ``y`` holding exactly ``m`` rows, else None."""
    node = buf.owner
    if node is None or not isinstance(node.op, IncSubtensor) or not node.op.set_instead_of_inc:
        return None
    idx = node.op.idx_list
    if len(idx) != 1 or not isinstance(idx[0], slice):
        return None
    sl = get_idx_list(node.inputs[1:], idx)[0]  # skip x: the value y stands first
    if sl.start is not None or sl.step is not None or sl.stop is None:
        return None
    y = node.inputs[1]
    if y.type.ndim != buf.type.ndim:
        return None
    rows = dim(y, 0)
    if lin_constant_of(rows) not in (None, m):
        return None
    if lin_add(lin(sl.stop), rows, -1):
        return None
    # y's rows fill the buffer's first rows; PyTensor reads m of them, so
    # y holds m rows (``init[:m]`` of a longer init is m rows; a shorter
    # one leaves PyTensor reading unset memory)
    return y


def buffer_len(buf, m: int, depth: int = 0) -> Lin:
    """The length of a scan state's buffer, its initial rows (see
    ``init_rows``) counted as the ``m`` rows PyTensor reads of them."""
    length = dim(buf, 0, depth)
    rows = init_rows(buf, m)
    if rows is None:
        return length
    return lin_add(lin_add(length, dim(rows, 0, depth + 1), -1), lin_const(m))


def size_var(var):
    """An integer scalar variable equal to ``var`` written the plainest way
    the form allows: a constant, ``x.shape[k]`` (``Shape_i``) for a form
    that is one array's size, else ``var`` itself."""
    import pytensor.tensor as pt
    from pytensor.tensor.shape import Shape_i as _Shape_i

    f = lin(var)
    c = lin_constant_of(f)
    if c is not None:
        return pt.constant(np.int64(c))
    if len(f) == 1:
        (((kind, ident, k), coef),) = f.items()
        atom = _BY_ID.get(ident)
        if coef == 1 and atom is not None and kind == "dim":
            return _Shape_i(k)(atom)
        if coef == 1 and atom is not None and kind == "var":
            return atom
    return var


def same(a: Lin, b: Lin) -> bool:
    """Whether two forms are the same size."""
    return not lin_add(a, b, -1)


def same_size(var, x, axis: int) -> bool:
    """Whether the integer scalar ``var`` is ``x.shape[axis]``."""
    return same(lin(var), dim(x, axis))
