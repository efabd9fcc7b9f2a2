"""The converter of PyTensor's ``Scan`` op into an eqscan ``(scan ...)``.

This module owns the mapping of one ``Scan`` node, every ``ScanInfo`` field
included, onto the language's loop (SPEC §1, Scan / While loops / MIT-MOT),
and the analysis of the outer buffers that mapping needs. It must not
convert any other op (``ops.py`` does; the inner graph goes through the
core's ``convert_inner``) and it never runs anything.

The mapping
-----------
PyTensor's outer inputs are ``[n_steps] + sequences + mit-mot buffers +
mit-sot buffers + sit-sot buffers + untraced sit-sot inits + nit-sot lengths
+ non-sequences``; its inner inputs ``sequences + mit-mot taps + mit-sot taps
+ sit-sot + untraced + non-sequences``; its inner outputs ``mit-mot out taps
+ mit-sot + sit-sot + nit-sot + untraced [+ condition]``.

- ``n_steps``: ``(n_steps N)``, left out where ``N`` is the shortest
  sequence's length (what ``scan()`` computes; eqscan's default is the
  same), so a program need not compute a run-time length.
- Sequences: ``scan()`` has already sliced one outer array per tap (and
  reversed them for ``go_backwards``), so each is a taps-0 eqscan sequence
  of that pre-sliced array: the same rows, the same values. The
  ``x[:n_steps]`` it wraps each in (``x[:len(y)]`` once canonicalized) is
  read as ``x``: eqscan reads the first ``n_steps`` rows itself.
- Mit-mot: ``(mitmot BUF (in_taps ...) (out_taps ...))`` with PyTensor's
  taps as they are. PyTensor reads slot ``i - min(in) + t`` and writes slot
  ``i - min(in) + s`` (reads first), exactly SPEC's rule; the output is the
  whole tape in both.
- Mit-sot / sit-sot: PyTensor's outer input is a buffer whose first ``m =
  -min(taps)`` rows are the initial values; its outer output is that buffer
  after the loop. eqscan's INIT is those ``m`` rows (a sit-sot's INIT the
  one row, unstacked), read off how the buffer is made (``set_subtensor``
  of ``AllocEmpty``, ``alloc(v, ...)``, else the buffer's rows), and its
  value has no initial rows, so the output is ``(concat 0 ROWS V)`` when the
  buffer holds ``N = n_steps + m`` rows (what ``scan()`` and ``grad``
  build). A buffer of ``L`` rows holds the last ``L`` of them (PyTensor's
  circular buffer, put back in order) or, longer, them then zeros: a
  literal slice or zero rows where ``L - N`` is a constant, else taken at
  run time (save-mem'd buffers, truncated gradients). While loops map
  only full buffers; anything else raises ``eqscan.Error``.
- Nit-sot: the outer input is the output's length, mapped as a state's
  buffer with ``m = 0``.
- Untraced sit-sot (shared updates, random generators): a ``sitsot`` whose
  INIT is the outer input; the output is the last state (the INIT when the
  loop runs no step). A random generator is the ``random`` module's draw
  counter, its seed carried into the body: one fresh key per step.
- Non-sequences as they are; ``as_while``: the last inner output becomes
  ``(until COND)`` (PyTensor stops when it is non-zero, NaN included, as
  eqscan does).

Sizes are compared as linear forms over the PyTensor graph's integer
scalars (``linear``); the walk converts only what the mapping reads
(``scan_needs``), so neither the buffers' ``AllocEmpty`` nor the dynamic
slices ``scan()`` wraps sequences in reach the program.
"""

from __future__ import annotations

import weakref

from pytensor.graph.basic import Constant
from pytensor.scan.op import Scan
from pytensor.tensor.basic import Alloc, AllocEmpty
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.subtensor import IncSubtensor, Subtensor, get_idx_list

from . import linear as L
from .core import Converter, lang_dtype, register, register_needs
from .random import is_rng

# ---------------------------------------------------------------- buffers


def _expand_sitsot_init(y):
    """For a one-row ``y`` made as ``expand_dims(h, 0)``, ``h``; else None."""
    node = y.owner
    if node is None or not isinstance(node.op, DimShuffle):
        return None
    order = node.op.new_order
    if (
        len(order) >= 1
        and order[0] == "x"
        and list(order[1:]) == list(range(node.inputs[0].type.ndim))
    ):
        return node.inputs[0]
    return None


def _peel_sequence(seq, n_steps):
    """``x`` for a sequence written ``x[:s]`` with ``s`` at least
    ``n_steps`` (``scan()`` writes ``x[:n_steps]``; canonicalized,
    ``x[:len(y)]`` when ``n_steps`` is ``min(len(x), len(y))``): eqscan reads
    the first ``n_steps`` rows itself."""
    node = seq.owner
    if node is None or not isinstance(node.op, Subtensor) or len(node.op.idx_list) != 1:
        return seq
    first = node.op.idx_list[0]
    if not isinstance(first, slice):
        return seq
    sl = get_idx_list(node.inputs, node.op.idx_list)[0]
    if sl.start is not None or sl.step is not None or sl.stop is None:
        return seq
    # s >= n_steps when each operand of s's minimum is one of n_steps's
    steps = L.leaves(L.lin(n_steps))
    if all(any(L.same(leaf, f) for f in steps) for leaf in L.leaves(L.lin(sl.stop))):
        return node.inputs[0]
    return seq


def _drop_whole_slices(var):
    """``var`` without the ``y[:s]`` whose ``s`` is ``y``'s whole length,
    through constant slices on axis 0 (``grad`` reverses a loop's
    ``x[:n_steps]`` as ``x[:n_steps][::-1]``: ``x[::-1]`` when ``n_steps``
    is ``x``'s length). Returns ``(new, anchor)``: ``anchor`` is the
    variable of the original graph that the new one is built on (``var``
    itself when nothing is dropped)."""
    node = var.owner
    if (
        node is None
        or not isinstance(node.op, Subtensor)
        or len(node.op.idx_list) != 1
        or not isinstance(node.op.idx_list[0], slice)
    ):
        return var, var
    base = node.inputs[0]
    sl = get_idx_list(node.inputs, node.op.idx_list)[0]
    bounds = (sl.start, sl.stop, sl.step)
    consts = [None if b is None else L.int_constant(b) for b in bounds]
    if sl.start is None and sl.step is None and sl.stop is not None and consts[1] is None:
        if L.same(L.lin(sl.stop), L.dim(base, 0)):
            return _drop_whole_slices(base)
        return var, var
    if any(b is not None and c is None for b, c in zip(bounds, consts)):
        return var, var
    new_base, anchor = _drop_whole_slices(base)
    if new_base is base:
        return var, var
    return new_base[slice(*consts)], anchor


def _steps_are_shortest_sequence(n_steps, seqs) -> bool:
    """Whether ``n_steps`` is the shortest sequence's length (what
    ``scan()`` computes when it is not given): then the loop needs no
    ``(n_steps ...)``, eqscan's default is that length."""
    if not seqs:
        return False
    leaves = L.leaves(L.lin(n_steps))
    lens = [L.dim(s, 0) for s in seqs]

    def among(f, forms):
        return any(not L.lin_add(f, g, -1) for g in forms)

    return all(among(f, lens) for f in leaves) and all(among(q, leaves) for q in lens)


class _State:
    """How one mit-sot / sit-sot / nit-sot buffer maps (see the module doc).

    ``kind`` says where the ``m`` rows before the first step come from:
    ``"single"`` (a sit-sot's ``expand_dims(h, 0)``: ``h``), ``"rows"`` (the
    variable set into the buffer's first rows), ``"alloc"`` (a buffer
    ``alloc(v, ...)``: rows of ``v``), ``"buffer"`` (read from the buffer
    itself) or ``"none"`` (a nit-sot). ``extra`` is the buffer's length
    less ``n_steps + m`` when that is a constant, else None."""

    def __init__(self, buf, m: int, n_steps):
        self.buf = buf
        self.m = m
        self.src = None
        if m == 0:
            self.kind = "none"
            length, before = L.lin(buf), L.lin_const(0)
        else:
            length, before = L.buffer_len(buf, m), L.lin_const(m)
            rows = L.init_rows(buf, m)
            nd = buf.type.ndim
            if rows is not None and not all(
                L.same(L.dim(rows, k), L.dim(buf, k)) for k in range(1, nd)
            ):
                # rows broadcast into the buffer's rows (FAST_RUN folds
                # ones_like(v) to [[1.]]): the rows at the buffer's sizes
                self.kind = "alloc"
                self.src = rows[0] if m == 1 else rows
                self.trailing = [L.size_var(_dim_var(buf, k)) for k in range(1, nd)]
            elif rows is not None:
                single = _expand_sitsot_init(rows) if m == 1 else None
                self.kind, self.src = ("single", single) if single is not None else ("rows", rows)
            elif (
                buf.owner is not None
                and isinstance(buf.owner.op, Alloc)
                and buf.owner.inputs[0].type.ndim < buf.type.ndim
            ):
                self.kind = "alloc"
                self.src = buf.owner.inputs[0]
                self.trailing = [L.size_var(d) for d in buf.owner.inputs[2:]]
            else:
                self.kind = "buffer"
        self.extra = L.lin_constant_of(L.lin_add(length, L.lin_add(L.lin(n_steps), before), -1))
        self.length = L.lin_constant_of(length)  # when it is a constant

    def needs(self) -> list:
        """The outer variables the mapping reads."""
        if self.kind == "none":
            return []
        if self.kind == "buffer":
            return [self.buf]
        return [self.src, *getattr(self, "trailing", [])]

    def init(self, cv: Converter, sitsot: bool) -> tuple:
        """``(INIT, ROWS)``: the text of the eqscan init and of the ``m``
        rows before the first step (for a sit-sot, INIT is one row)."""
        dtype = self.buf.type.dtype
        if self.kind == "alloc":
            import pytensor.tensor as pt

            lead = [] if sitsot else [self.m]
            made = pt.alloc(self.src, *lead, *self.trailing)
            cv.walk([], [made])
            init = _strong(cv, made, dtype)
            return init, (f"(expand_dims {init} 0)" if sitsot else init)
        if self.kind == "single":
            init = _strong(cv, self.src, dtype)
            return (init if sitsot else f"(expand_dims {init} 0)"), f"(expand_dims {init} 0)"
        if self.kind == "rows":
            rows = _strong(cv, self.src, dtype)
            return (f"(index {rows} 0)" if sitsot else rows), rows
        b = cv.expr(self.buf)
        rows = f"(slice {b} 0 {self.m} 1)"
        return (f"(index {b} 0)" if sitsot else rows), rows

    def step_dims(self, cv: Converter) -> tuple:
        """The dims of one step of the state."""
        if self.kind == "single":
            return tuple(cv.dims(self.src))
        if self.kind == "rows":
            return tuple(cv.dims(self.src)[1:])
        if self.kind == "alloc":
            return tuple(cv.static_size(d) for d in self.trailing)
        return tuple(cv.dims(self.buf)[1:])


class _Plan:
    """What a Scan node's conversion reads and how (shared by the walk's
    ``scan_needs`` and ``convert_scan``)."""

    def __init__(self, node):
        op: Scan = node.op
        info = op.info
        ins = node.inputs
        self.op, self.info = op, info
        self.n_steps = n_steps = ins[0]
        peeled = [_drop_whole_slices(_peel_sequence(s, n_steps)) for s in op.outer_seqs(ins)]
        self.seqs = [p[0] for p in peeled]
        self.anchors = [p[1] for p in peeled]
        self.omit_n_steps = _steps_are_shortest_sequence(n_steps, self.seqs)
        self.mitmot = list(op.outer_mitmot(ins))
        self.states = [
            _State(b, -min(taps), n_steps)
            for b, taps in zip(op.outer_mitsot(ins), info.mit_sot_in_slices)
        ] + [_State(b, 1, n_steps) for b in op.outer_sitsot(ins)]
        self.taps = list(info.mit_sot_in_slices) + [(-1,)] * info.n_sit_sot
        self.nitsots = [_State(n, 0, n_steps) for n in op.outer_nitsot(ins)]
        self.untraced = list(op.outer_untraced_sit_sot(ins))
        self.non_seqs = list(op.outer_non_seqs(ins))

    def needs(self) -> list:
        out = [] if self.omit_n_steps else [self.n_steps]
        out += self.anchors + self.mitmot
        for st in self.states:
            out += st.needs()
        return out + self.untraced + self.non_seqs


_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _plan(node) -> _Plan:
    plan = _PLANS.get(node)
    if plan is None:
        plan = _PLANS[node] = _Plan(node)
    return plan


@register_needs(Scan)
def scan_needs(node, used_outputs) -> list:
    """The outer inputs ``convert_scan`` reads for ``node``: a sequence
    ``x`` rather than ``x[:n_steps]``, a buffer's initial rows rather than
    the buffer where they are peeled, no ``n_steps`` where it is the
    shortest sequence's length."""
    return _plan(node).needs()


# ---------------------------------------------------------------- the converter


def _strong(cv: Converter, var, dtype=None) -> str:
    """``var``'s text in ``dtype`` (default: its own PyTensor dtype), a weak
    literal cast too (a state's init fixes the state's dtype)."""
    v = cv.val(var)
    if is_rng(var):  # a draw counter
        return v.text
    ld = lang_dtype(dtype or var.type.dtype)
    if v.weak or v.dtype != ld:
        return f"(cast {ld} {v.text})"
    return v.text


def _cast_inner_output(var, text: str) -> str:
    """A constant inner output is a weak literal: give it PyTensor's dtype."""
    if isinstance(var, Constant) and getattr(var.type, "ndim", None) == 0:
        return f"(cast {lang_dtype(var.type.dtype)} {text})"
    return text


def _i64(cv: Converter, var) -> str:
    """An integer scalar as an ``i64`` expression."""
    v = cv.val(var)
    if v.dtype != "i64" and not v.weak:
        return f"(cast i64 {v.text})"
    return v.text


@register(Scan)
def convert_scan(cv: Converter, node) -> None:
    """Bind the outputs of a ``Scan`` node the program reads (see the
    module doc)."""
    plan = _plan(node)
    op, info = plan.op, plan.info
    inner_ins = list(op.inner_inputs)
    inner_outs = list(op.inner_outputs)

    # ---- parameters and outputs_info, in PyTensor's inner-input order
    names: list[str] = []
    dims: list[tuple] = []

    def param(hint: str, d) -> None:
        var = inner_ins[len(names)]
        names.append(cv.fresh(var.name or hint))
        dims.append(tuple(d))

    for s, anchor in zip(plan.seqs, plan.anchors):
        if s is not anchor:  # made here: convert it now
            cv.walk([], [s])
        param("x", cv.dims(s)[1:])
    infos = []
    for buf, in_taps, out_taps in zip(plan.mitmot, info.mit_mot_in_slices, info.mit_mot_out_slices):
        infos.append(
            f"(mitmot {cv.expr(buf)} (in_taps {' '.join(map(str, in_taps))}) "
            f"(out_taps {' '.join(map(str, out_taps))}))"
        )
        for _ in in_taps:
            param("g", cv.dims(buf)[1:])
    rows_texts = []
    for j, (st, taps) in enumerate(zip(plan.states, plan.taps)):
        sitsot = j >= info.n_mit_sot
        init, rows = st.init(cv, sitsot)
        rows_texts.append(rows)
        if sitsot:
            infos.append(f"(sitsot {init})")
        else:
            infos.append(f"(mitsot {init} (taps {' '.join(map(str, taps))}))")
        for _ in taps:
            param("s", st.step_dims(cv))
    infos += ["(nitsot)"] * len(plan.nitsots)
    for u in plan.untraced:
        infos.append(f"(sitsot {_strong(cv, u)})")
        param("u", cv.dims(u))
    for v in plan.non_seqs:
        param("c", cv.dims(v))
    if len(names) != len(inner_ins):
        raise cv.error(node, "the inner inputs do not match the ScanInfo")

    # ---- the body: a random generator's seed goes with it into the body
    outer_ins = (
        [None] * (len(plan.seqs) + sum(len(t) for t in info.mit_mot_in_slices))
        + [None] * sum(len(t) for t in plan.taps)
        + plan.untraced
        + plan.non_seqs
    )
    for inner, outer in zip(inner_ins, outer_ins):
        if outer is not None and is_rng(outer):
            cv.set_rng_seed(inner, cv.rng_seed(outer))
    lines, exprs = cv.convert_inner(inner_ins, inner_outs, names, dims)
    exprs = [_cast_inner_output(v, e) for v, e in zip(inner_outs, exprs)]
    if info.as_while:
        exprs = exprs[:-1] + [f"(until {exprs[-1]})"]
    body = " ".join([*lines, f"(outputs {' '.join(exprs)})"])

    parts = ["(scan"]
    if plan.seqs:
        parts.append(f"(sequences {' '.join(cv.expr(s) for s in plan.seqs)})")
    parts.append(f"(outputs_info {' '.join(infos)})")
    if plan.non_seqs:
        parts.append(f"(non_sequences {' '.join(cv.expr(v) for v in plan.non_seqs)})")
    if not plan.omit_n_steps:
        parts.append(f"(n_steps {_i64(cv, plan.n_steps)})")
    parts.append(f"(fn ({' '.join(names)}) {body}))")

    # ---- bind eqscan's outputs, then PyTensor's from them
    outs = node.outputs
    out_names = [cv.fresh("scan") for _ in outs]
    cv.lines.append(f"(let ({' '.join(out_names)}) {' '.join(parts)})")
    wanted = getattr(cv, "wanted", lambda v: True)
    n_mm, n_tr, n_nit = info.n_mit_mot, len(plan.states), len(plan.nitsots)
    for j, o in enumerate(outs):
        if not wanted(o):
            continue
        name = out_names[j]
        if j < n_mm:  # mit-mot: the whole tape
            cv.bind(o, name, dims=tuple(cv.dims(plan.mitmot[j])))
        elif j < n_mm + n_tr:
            st = plan.states[j - n_mm]
            _bind_traced(cv, node, o, name, st, rows_texts[j - n_mm], st.step_dims(cv))
        elif j < n_mm + n_tr + n_nit:
            st = plan.nitsots[j - n_mm - n_tr]
            inner = op.inner_nitsot_outs(inner_outs)[j - n_mm - n_tr]
            step = tuple(int(d) if d is not None else None for d in inner.type.shape)
            if st.extra != 0 and None in step:  # zero rows to make: their sizes
                step = _nitsot_step_dims(cv, node, j, inner)
            _bind_traced(cv, node, o, name, st, None, step)
        else:  # untraced: the last state (the init after no step)
            u = plan.untraced[j - n_mm - n_tr - n_nit]
            ns = L.int_constant(plan.n_steps)
            if ns is not None and ns >= 1:
                text = f"(index {name} -1)"
            else:
                text = f"(index (concat 0 (expand_dims {_strong(cv, u)} 0) {name}) -1)"
            cv.bind(o, text, dims=tuple(cv.dims(u)), ldtype=cv.val(u).dtype)
            if is_rng(u):
                cv.set_rng_seed(o, cv.rng_seed(u))


def _nitsot_step_dims(cv: Converter, node, j: int, inner) -> tuple:
    """The dims of one step of nit-sot output ``j``: the inner output's
    static shape, completed by the Scan's shape inference (in terms of the
    outer inputs, so sizes the program knows as symbols)."""
    dims = [int(d) if d is not None else None for d in inner.type.shape]
    try:  # (the inference is costly: it builds the inner graph's shapes)
        shapes = node.op.infer_shape(
            None,
            node,
            [
                tuple(i.shape[k] for k in range(i.type.ndim)) if hasattr(i.type, "ndim") else None
                for i in node.inputs
            ],
        )
        for k, d in enumerate(dims):
            if d is None:
                dims[k] = cv.static_size(L.size_var(shapes[j][1 + k]))
    except Exception:  # no answer: the sizes stay unknown
        pass
    return tuple(dims)


def _bind_traced(cv: Converter, node, out, name: str, st: _State, rows, step) -> None:
    """Bind PyTensor's traced output ``out`` (its buffer after the loop)
    from eqscan's value ``name`` (the steps) and ``rows`` (the rows before
    the first step, None for a nit-sot).

    PyTensor's buffer of ``L`` rows ends holding the last ``L`` of the
    ``N = n_steps + m`` rows (its circular buffer, put back in order) when
    ``L <= N``, else the ``N`` rows then zeros. ``L - N`` a constant ``c``
    is written with literal slices; otherwise (save-mem'd or truncated
    gradient buffers) the rows are taken at run time: ``take(F ++ zeros(max(L
    - N, 0)), arange(L) + max(N - L, 0))``. While loops map at ``c = 0``
    only."""
    full = name if rows is None else f"(concat 0 {rows} {name})"
    c = st.extra
    # The buffer's length when it is static: PyTensor's type often leaves
    # it unknown, and sizes computed from it later (the zero tapes `grad`
    # allocates for a second state) would otherwise be run-time sizes.
    lead = st.length
    if node.op.info.as_while:
        # A while loop's buffer keeps only the steps that ran: its length
        # is the run's, whatever PyTensor allocated (n_steps + m rows).
        lead = None
    elif lead is None:
        n = cv.static_size(node.inputs[0])
        if isinstance(n, int) and c is not None and n + st.m + c >= 0:
            lead = n + st.m + c
    if c == 0:
        cv.bind(out, full, dims=(lead, *step))
        return
    if node.op.info.as_while:
        raise cv.error(
            node,
            f"output {out}: a while loop's buffer that is not n_steps + {st.m} rows "
            "(eqscan maps the buffers of while loops only at their full length)",
        )
    if st.length is not None and st.length < st.m:
        raise cv.error(node, f"output {out}: a buffer shorter than its taps reach")
    if rows is not None:
        zero_row = f"(zeros_like (index {rows} 0))"
    elif all(d is not None for d in step):
        zero_row = f"(zeros ({' '.join([lang_dtype(out.type.dtype), *map(str, step)])}))"
    else:
        zero_row = None
    if c is not None and c < 0:
        # the circular buffer, rotated back in order: the last rows
        text = f"(slice {full} {-c} none 1)"
    elif c is not None:
        if zero_row is None:
            raise cv.error(
                node, f"output {out}: a nit-sot longer than n_steps with a run-time step shape"
            )
        text = f"(concat 0 {full} {_loop_rows(cv, str(c), zero_row)})"
    else:
        if zero_row is None:
            raise cv.error(
                node,
                f"output {out}: a nit-sot buffer of a run-time length with a run-time step shape",
            )
        n_var = node.inputs[0]
        length_var = _length_var(st.buf, st.m)
        cv.walk([], [n_var, length_var])
        n = f"(add {_i64(cv, n_var)} {st.m})" if st.m else _i64(cv, n_var)
        length = _i64(cv, length_var)
        pad = _loop_rows(cv, f"(maximum 0 (sub {length} {n}))", zero_row)
        index = _loop_rows(cv, length, None)
        text = f"(take (concat 0 {full} {pad}) (add {index} (maximum 0 (sub {n} {length}))))"
    cv.bind(out, text, dims=(lead, *step))


def _loop_rows(cv: Converter, count: str, row) -> str:
    """A name for ``count`` rows (an i64 expression, known at run time):
    each ``row``, or with ``row`` None the step indices ``0 .. count-1``
    (the language's ``arange`` and ``zeros`` take literal sizes; a loop's
    steps need not)."""
    name = cv.fresh("rows" if row is not None else "steps")
    if row is None:
        loop = f"(scan (outputs_info (sitsot -1)) (n_steps {count}) (fn (i) (outputs (add i 1))))"
    else:
        loop = f"(scan (outputs_info (nitsot)) (n_steps {count}) (fn () (outputs {row})))"
    cv.lines.append(f"(let ({name}) {loop})")
    return name


def _dim_var(buf, k: int):
    """A scalar variable for ``buf.shape[k]``, read off how it is made."""
    while buf.owner is not None and isinstance(buf.owner.op, IncSubtensor):
        buf = buf.owner.inputs[0]
    if buf.owner is not None and isinstance(buf.owner.op, AllocEmpty):
        return buf.owner.inputs[k]
    if buf.owner is not None and isinstance(buf.owner.op, Alloc):
        return buf.owner.inputs[1 + k]
    return buf.shape[k]


def _length_var(buf, m: int):
    """A scalar variable for the length of a state's buffer (the nit-sot
    length itself for ``m = 0``), read off how the buffer is made."""
    return buf if m == 0 else _dim_var(buf, 0)
