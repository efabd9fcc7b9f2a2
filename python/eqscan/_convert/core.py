"""The core of the PyTensor -> eqscan converter: graph walk, naming, the op
registry, types, constants and shapes.

This module owns turning a PyTensor graph into eqscan program TEXT. It knows
nothing about particular ops (those live in ``ops.py`` and ``scan.py``, which
register converters here) and it never runs anything: the text is handed to
``eqscan.parse`` by ``eqscan.from_pytensor``.

Interface for op converters (stable)
------------------------------------

Registering. A converter is a function ``fn(cv, node)`` registered for one or
more PyTensor ``Op`` classes::

    from eqscan._convert.core import register

    @register(pytensor.tensor.basic.Join)
    def _join(cv, node): ...

Lookup follows the op's class MRO, so registering a base class covers its
subclasses; a subclass registration wins. ``register_scalar`` does the same
for the scalar ops inside ``Elemwise`` / ``Composite`` (signature
``fn(cv, scalar_op, args, out_dtype) -> str`` with ``args`` a list of
``Val``).

Called as. ``fn(cv, node)`` with ``cv`` the ``Converter`` and ``node`` the
PyTensor ``Apply``. Every input of ``node`` has been converted before.

Reading inputs.
  - ``cv.expr(var)`` -> str: the expression text of a converted variable (a
    name, or a literal for a scalar constant).
  - ``cv.val(var)`` -> ``Val``: text, language dtype, dims, and whether it is
    a weak literal.
  - ``cv.dims(var)`` -> tuple of dims: an ``int`` where the size is known, a
    ``str`` symbol where it is a symbolic size of the program, ``None`` where
    it is known only at run time.
  - ``cv.const_value(var)`` -> numpy value or ``None``: the value of a
    variable that is constant (after folding casts / shapes of static size).
  - ``cv.static_size(var)`` -> int | str | None: a scalar integer variable
    evaluated to a literal size or a size symbol (``Shape_i`` of a variable
    with a symbolic dim, constants, ``MakeVector`` items ...). Use it wherever
    the language needs a DIM (reshape sizes, ``fill``/``zeros`` types,
    ``arange``). ``cv.static_sizes(var)`` does it for a 1-D shape vector.
  - ``cv.size_expr(var, axis)`` -> str: an i64 expression for
    ``var.shape[axis]`` (a literal, the size symbol, or, for a size known
    only at run time, a count of the elements along that axis).
  - ``cv.rng_seed(var)``: the SEED constant of a random generator variable
    (an ``i64`` draw counter in the program; see ``random.py``), and
    ``cv.set_rng_seed(var, seed)`` for a generator a converter makes (a
    loop's inner generator stands for its outer one).

Binding results. The converter returns one of:
  - a ``str``: the expression of the node's single output;
  - a list/tuple of ``str`` or ``Val`` (one per output; ``None`` for an
    output no one uses): each output bound to its expression (a ``Val`` is
    recorded as it is);
  - ``Multi(text)``: ``text`` is a multi-valued expression (a scan, slogdet):
    bound as ``(let (A B ...) text)``, one name per output, in order;
  - ``None``: the converter bound every output itself with
    ``cv.bind(var, text)`` / ``cv.bind_many(vars, text)``.
  A text that is a bare name or literal is recorded as an alias (no ``let``).
  Lets that no output (or update, or inner-body output) reads are dropped
  at the end (``prune``), so a converter may bind freely.
  Core casts a result whose language dtype differs from PyTensor's output
  dtype only for Elemwise; other converters must produce the right dtype
  (``cv.cast(text, var.dtype)`` helps).

Reading less. ``register_needs(OpClass)(fn)`` with ``fn(node, used_outputs)
-> inputs`` tells the walk which inputs a converter reads (default: all);
nodes that only unread inputs depend on are not converted. ``cv.wanted(var)``
says whether the program reads ``var``: a converter may leave an unread
output unbound (Scan does both: it reads a sequence ``x`` rather than
``scan()``'s ``x[:n_steps]``, and a buffer's initial rows rather than the
``AllocEmpty`` they are set into).

Errors. ``raise cv.error(node, "why")`` (or ``cv.unsupported(node)``) gives
an ``eqscan.Error`` naming PyTensor's op and the output variable.
``cv.defer_error(var, error)`` binds ``var`` to a marker instead: the error
is raised only if the finished program reads it (``check_deferred``).

Inner graphs (scan bodies). ``cv.convert_inner(inputs, outputs, names,
dims=None)`` converts the graph from ``inputs`` (inner PyTensor variables) to
``outputs`` in a fresh scope where ``inputs[k]`` is the name ``names[k]``
(a ``fn`` parameter; ``dims[k]``, if given, its dims in the outer program).
It returns ``(lines, exprs)``: the ``(let ...)`` lines of the body and one
expression per output, to be written as
``(fn (names...) lines... (outputs exprs...))``. Names made there are fresh
in the whole program. With ``reserve=False`` the ``names`` are texts of the
enclosing body rather than new parameters (OpFromGraph is inlined so). ``cv.fresh(hint)`` gives a fresh name;
``cv.bind`` inside a converter called from an inner graph writes to that
inner body.

Constants and types. ``render_literal(value, dtype)`` renders a scalar
(``1.5``, ``-3``, ``true``, ``inf``, ``nan``); ``cv.render_const(array)``
renders an array as ``(tensor TYPE v ...)``; ``render_type(dtype, dims)``
gives ``(f64 3 n)``. ``lang_dtype(pytensor_dtype)`` maps a dtype: float64,
float32, int64, int32 and bool as themselves; float16 widens to f32; int8,
int16, uint8 and uint16 widen to i32 and uint32 to i64 (the values are the
same; arithmetic that would overflow the narrow type wraps differently);
uint64 and complex dtypes are an error.

Symbolic sizes. An input's dim that PyTensor knows statically is that
integer; every other dim is a fresh symbol named after the input
(``x_0``, ``x_1``). Symbols are never shared between two inputs: PyTensor
does not know two such sizes are equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from pytensor.graph.basic import Apply, Constant
from pytensor.graph.traversal import toposort

from .errors import Error

# ---------------------------------------------------------------- dtypes

_DTYPES = {
    "float64": "f64",
    "float32": "f32",
    "float16": "f32",
    "int64": "i64",
    "int32": "i32",
    "int16": "i32",
    "int8": "i32",
    "uint8": "i32",
    "uint16": "i32",
    "uint32": "i64",
    "bool": "bool",
}

_NUMPY = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32, "bool": np.bool_}


def lang_dtype(dtype: str) -> str:
    """The language dtype for a PyTensor / NumPy dtype name (see module doc)."""
    try:
        return _DTYPES[str(dtype)]
    except KeyError:
        raise Error(f"from_pytensor: dtype {dtype} has no eqscan dtype") from None


def numpy_dtype(ldtype: str) -> np.dtype:
    """The NumPy dtype of a language dtype."""
    return np.dtype(_NUMPY[ldtype])


def render_literal(value: Any, ldtype: str | None = None) -> str:
    """A scalar literal: ``1.5`` / ``1e-08`` / ``inf`` for floats, ``3`` for
    ints, ``true``/``false`` for bools. ``ldtype`` picks the form (a float
    dtype always renders with ``.`` or an exponent)."""
    v = np.asarray(value).item() if not isinstance(value, (bool, int, float)) else value
    if ldtype == "bool" or isinstance(v, (bool, np.bool_)):
        return "true" if bool(v) else "false"
    if ldtype in ("f64", "f32") or isinstance(v, float):
        f = float(v)
        if np.isnan(f):
            return "nan"
        if np.isinf(f):
            return "inf" if f > 0 else "-inf"
        return repr(f)
    return str(int(v))


def render_dim(d) -> str:
    if d is None:
        raise Error("from_pytensor: internal error: rendering an unknown size")
    return str(d)


def render_type(ldtype: str, dims: Iterable) -> str:
    """``(DTYPE DIM ...)``."""
    return "(" + " ".join([ldtype] + [render_dim(d) for d in dims]) + ")"


# ---------------------------------------------------------------- values


@dataclass
class Val:
    """A converted variable: its expression text, language dtype, dims and
    whether it is a weak literal (a Python-scalar-like constant)."""

    text: str
    dtype: str
    dims: tuple
    weak: bool = False

    @property
    def ndim(self) -> int:
        return len(self.dims)


@dataclass
class Multi:
    """A converter's result that is one multi-valued expression."""

    text: str


# ---------------------------------------------------------------- registry

Converter_fn = Callable[["Converter", Apply], Any]
_OPS: dict[type, Converter_fn] = {}
_SCALAR_OPS: dict[type, Callable] = {}
_NEEDS: dict[type, Callable] = {}


def register(*op_types: type) -> Callable[[Converter_fn], Converter_fn]:
    """Register ``fn(cv, node)`` as the converter of the given Op classes."""

    def deco(fn):
        for t in op_types:
            _OPS[t] = fn
        return fn

    return deco


def register_scalar(*op_types: type):
    """Register ``fn(cv, scalar_op, args, out_dtype) -> str`` for scalar ops
    (inside Elemwise and Composite). ``args`` are ``Val``s; ``out_dtype`` is
    the language dtype PyTensor gives the result."""

    def deco(fn):
        for t in op_types:
            _SCALAR_OPS[t] = fn
        return fn

    return deco


def register_needs(*op_types: type):
    """Register ``fn(node, used_outputs) -> inputs``: which of ``node``'s
    inputs its converter reads when ``used_outputs`` are wanted. The walk
    converts only what is read (a Scan reads a sequence's unsliced array
    and a buffer's initial rows, not the dynamic slices ``scan()`` wraps
    them in)."""

    def deco(fn):
        for t in op_types:
            _NEEDS[t] = fn
        return fn

    return deco


def _lookup(table: dict, op) -> Callable | None:
    for cls in type(op).__mro__:
        fn = table.get(cls)
        if fn is not None:
            return fn
    return None


def lookup_op(op) -> Converter_fn | None:
    """The converter registered for ``op``'s class (MRO order), or None."""
    return _lookup(_OPS, op)


def lookup_scalar(op) -> Callable | None:
    """The scalar converter registered for ``op``'s class, or None."""
    return _lookup(_SCALAR_OPS, op)


# ---------------------------------------------------------------- names

_RESERVED = {"true", "false", "none", "inf", "nan"}


def _sanitize(name: str | None, fallback: str) -> str:
    if not name:
        return fallback
    s = re.sub(r"[^A-Za-z0-9_.']", "_", name)
    if not (s[0].isalpha() or s[0] == "_"):
        s = "_" + s
    if s in _RESERVED:
        s = "_" + s
    return s


# ---------------------------------------------------------------- converter


@dataclass
class _Scope:
    vals: dict = field(default_factory=dict)
    lines: list = field(default_factory=list)


class Converter:
    """Walks a graph, converting each node with its registered converter.

    One Converter makes one program; see the module doc for the interface
    converters use.
    """

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._counter = 0
        self._scopes: list[_Scope] = [_Scope()]
        self._wanted: set = set()
        self._rng_seeds: dict = {}
        self._deferred: dict = {}
        # Zero-padded values (``pads.Pad``) by variable: IncSubtensor into
        # zeros and sums of them, which the converters of those ops read.
        self.pads: dict = {}

    # ---- names

    def fresh(self, hint: str = "v") -> str:
        """A name not used anywhere in the program."""
        hint = _sanitize(hint, "v")
        if hint not in self._used and not re.fullmatch(r"v\d+", hint):
            self._used.add(hint)
            return hint
        while True:
            self._counter += 1
            n = f"{hint}{self._counter}" if hint != "v" else f"v{self._counter}"
            if n not in self._used:
                self._used.add(n)
                return n

    def reserve(self, name: str) -> None:
        """Mark ``name`` (a symbol, a parameter) as taken."""
        self._used.add(name)

    # ---- scopes

    @property
    def lines(self) -> list:
        return self._scopes[-1].lines

    def _find(self, var) -> Val | None:
        for s in reversed(self._scopes):
            v = s.vals.get(var)
            if v is not None:
                return v
        return None

    def set_val(self, var, val: Val) -> None:
        """Record ``var``'s converted value in the current scope."""
        self._scopes[-1].vals[var] = val

    def val(self, var) -> Val:
        """The converted value of ``var`` (constants are rendered here)."""
        v = self._find(var)
        if v is not None:
            return v
        if isinstance(var, Constant):
            v = self.const_val(var)
            if not v.weak:  # an array: one let at the top, however often read
                name = self.fresh(var.name or "c")
                self._scopes[0].lines.append(f"(let {name} {v.text})")
                v = Val(name, v.dtype, v.dims)
            self._scopes[0].vals[var] = v
            return v
        raise Error(
            f"from_pytensor: variable {var} is used before it is computed "
            "(is it an input missing from `inputs`?)"
        )

    def expr(self, var) -> str:
        """The expression text of a converted variable."""
        return self.val(var).text

    # ---- constants

    def const_val(self, var: Constant) -> Val:
        data = np.asarray(var.data)
        ld = lang_dtype(data.dtype if var.type.dtype is None else var.type.dtype)
        if data.ndim == 0:
            # Scalars narrower than what they meet stay weak, like Python scalars:
            # the Elemwise converter casts where PyTensor's result differs.
            return Val(render_literal(data, ld), ld, (), weak=True)
        return Val(self.render_const(data, ld), ld, tuple(data.shape))

    def render_const(self, data, ldtype: str | None = None) -> str:
        """An array constant as ``(tensor TYPE v ...)`` (row-major)."""
        data = np.asarray(data)
        ld = ldtype or lang_dtype(data.dtype)
        if data.ndim == 0:
            return f"(tensor {render_type(ld, ())} {render_literal(data, ld)})"
        flat = " ".join(render_literal(x, ld) for x in data.reshape(-1))
        return f"(tensor {render_type(ld, data.shape)}{' ' + flat if flat else ''})"

    def const_value(self, var):
        """The value of ``var`` if it is a constant (folding casts and
        shapes of static size), else None."""
        from .shapes import constant_value

        return constant_value(self, var)

    # ---- shapes

    def dims(self, var) -> tuple:
        """``var``'s dims: int (known), str (symbol) or None (run time)."""
        v = self._find(var)
        if v is not None:
            return v.dims
        if isinstance(var, Constant):
            return self.val(var).dims
        return tuple(s if s is not None else None for s in var.type.shape)

    def static_size(self, var):
        """A scalar integer variable as a size: int, symbol, or None."""
        from .shapes import static_size

        return static_size(self, var)

    def static_sizes(self, var) -> list | None:
        """A 1-D integer shape vector as a list of sizes, or None when any
        entry is not static."""
        from .shapes import static_sizes

        return static_sizes(self, var)

    def size_expr(self, var, axis: int) -> str:
        """An i64 expression for ``var.shape[axis]``."""
        ndim = var.type.ndim
        axis = axis % ndim if ndim else axis
        d = self.dims(var)[axis]
        if d is not None:
            return str(d)
        # A run-time size: count the elements of the 1-D line along the axis
        # (the language has no shape-of op; an empty other axis fails here).
        x = self.expr(var)
        if ndim > 1:
            perm = [k for k in range(ndim) if k != axis] + [axis]
            zeros = " ".join("0" for _ in range(ndim - 1))
            x = f"(index (transpose {x} {' '.join(map(str, perm))}) {zeros})"
        return f"(sum (add (cast i64 (zeros_like {x})) 1))"

    # ---- casting

    def cast(self, text: str, pytensor_dtype: str, from_ldtype: str | None = None) -> str:
        """``text`` cast to a PyTensor dtype (no-op when already that)."""
        ld = lang_dtype(pytensor_dtype)
        if from_ldtype == ld:
            return text
        return f"(cast {ld} {text})"

    # ---- binding

    def _is_atom(self, text: str) -> bool:
        return "(" not in text and " " not in text

    def bind(self, var, text: str, dims: tuple | None = None, ldtype: str | None = None) -> str:
        """Bind ``var`` to ``text`` with a ``let`` (an atom is an alias);
        returns the name. ``dims`` defaults to PyTensor's static shape
        completed by the op's shape inference. Lets no output reads are
        dropped at the end (``prune``)."""
        ld = ldtype or lang_dtype(var.type.dtype)
        if dims is None:
            dims = self._guess_dims(var.owner, var) if var.owner is not None else var.type.shape
        dims = tuple(None if d is None else d for d in dims)
        if self._is_atom(text):
            self.set_val(var, Val(text, ld, tuple(dims)))
            return text
        name = self.fresh(var.name or "v")
        self.lines.append(f"(let {name} {text})")
        self.set_val(var, Val(name, ld, tuple(dims)))
        return name

    def bind_many(self, vars: Sequence, text: str, dims: Sequence | None = None) -> list:
        """Bind several variables to one multi-valued expression."""
        names = [self.fresh(v.name or "v") for v in vars]
        self.lines.append(f"(let ({' '.join(names)}) {text})")
        for k, (v, n) in enumerate(zip(vars, names)):
            d = tuple(dims[k]) if dims is not None else tuple(v.type.shape)
            self.set_val(v, Val(n, lang_dtype(v.type.dtype), d))
        return names

    # ---- errors

    def error(self, node, why: str) -> Error:
        """An ``eqscan.Error`` naming ``node``'s op and output."""
        out = node.outputs[0] if node.outputs else None
        return Error(f"from_pytensor: cannot convert {node.op} (output {out}): {why}")

    def unsupported(self, node) -> Error:
        out = node.outputs[0] if node.outputs else None
        return Error(
            f"from_pytensor: cannot convert op {node.op} ({type(node.op).__name__}, "
            f"output {out}): eqscan has no conversion for it"
        )

    def defer_error(self, var, error: Error) -> None:
        """Bind ``var`` to a marker that raises ``error`` only if the program
        ends up reading it (``check_deferred``): for an op the language
        lacks whose value a pattern of its consumers converts without it
        (LUFactor under a pair of triangular solves)."""
        token = f"__unconverted_{len(self._deferred)}__"
        self._deferred[token] = error
        self.set_val(var, Val(token, "f64", tuple(var.type.shape)))

    def check_deferred(self, text: str) -> None:
        """Raise the error of a deferred marker that ``text`` still reads."""
        for token, error in self._deferred.items():
            if token in text:
                raise error

    # ---- the walk

    def convert_node(self, node: Apply) -> None:
        fn = lookup_op(node.op)
        if fn is None:
            raise self.unsupported(node)
        try:
            res = fn(self, node)
        except Error:
            raise
        except Exception as e:  # a converter's bug, reported with the op
            raise self.error(node, f"{type(e).__name__}: {e}") from e
        self._bind_result(node, res)

    def _bind_result(self, node: Apply, res) -> None:
        outs = node.outputs
        if res is None:
            for o in outs:
                if self._find(o) is None and self.wanted(o) and not _is_unused_output(o):
                    raise self.error(node, "the converter bound no value for an output")
            return
        if isinstance(res, Multi):
            self.bind_many(outs, res.text)
            return
        if isinstance(res, str):
            res = [res]
        if len(res) != len(outs):
            raise self.error(node, f"{len(res)} results for {len(outs)} outputs")
        for o, r in zip(outs, res):
            if r is None:
                continue
            if isinstance(r, Val):
                self.set_val(o, r)
            else:
                self.bind(o, r, dims=self._guess_dims(node, o))

    def _guess_dims(self, node, out) -> tuple:
        from .shapes import infer_dims

        return infer_dims(self, node, out)

    def walk(self, inputs: Sequence, outputs: Sequence) -> None:
        """Convert every node between ``inputs`` and ``outputs`` that some
        output needs, in order (an op's ``register_needs`` function says
        which of its inputs its converter reads; by default all)."""
        order = list(toposort(outputs, blockers=inputs))
        wanted = set(outputs)
        for node in reversed(order):
            used = [o for o in node.outputs if o in wanted]
            if not used:
                continue
            needs = _lookup(_NEEDS, node.op)
            wanted.update(needs(node, used) if needs is not None else node.inputs)
        self._wanted |= wanted
        for node in order:
            if not any(o in wanted for o in node.outputs):
                continue
            if all(self._find(o) is not None for o in node.outputs):
                continue
            self.convert_node(node)

    def wanted(self, var) -> bool:
        """Whether the program reads ``var`` (a converter may leave an
        output no one reads unbound)."""
        return var in self._wanted

    def convert_inner(
        self, inputs: Sequence, outputs: Sequence, names: Sequence[str], dims=None, reserve=True
    ):
        """Convert an inner graph (see the module doc); returns
        ``(lines, exprs)``. ``reserve=False`` when ``names`` are texts of
        the enclosing body (inlining) rather than new parameters."""
        self._scopes.append(_Scope())
        try:
            from .random import is_rng

            for k, (v, n) in enumerate(zip(inputs, names)):
                if reserve:
                    self.reserve(n)
                if is_rng(v):  # a draw counter (see ``random``)
                    self.set_val(v, Val(n, "i64", ()))
                    continue
                d = tuple(dims[k]) if dims is not None else tuple(v.type.shape)
                self.set_val(v, Val(n, lang_dtype(v.type.dtype), d))
            self.walk(inputs, outputs)
            exprs = [self.expr(o) for o in outputs]
            return prune(self.lines, exprs), exprs
        finally:
            self._scopes.pop()

    # ---- inputs

    def rng_seed(self, var) -> int:
        """The SEED constant of a random generator variable (``random``)."""
        try:
            return self._rng_seeds[var]
        except KeyError:
            raise Error(f"from_pytensor: random generator {var} has no seed") from None

    def set_rng_seed(self, var, seed: int) -> None:
        self._rng_seeds[var] = seed

    def add_input(self, var, name: str | None = None) -> tuple:
        """Declare a graph input: picks its name and symbols; returns
        ``(name, TYPE text)``. The caller writes the ``(input ...)`` line.
        A random generator is an ``(i64)`` draw counter (see ``random``)."""
        from .random import is_rng, root_seed

        name = name or self.fresh(_sanitize(var.name, "rng" if is_rng(var) else "x"))
        self.reserve(name)
        if is_rng(var):
            self.set_val(var, Val(name, "i64", ()))
            self.set_rng_seed(var, root_seed(var, len(self._rng_seeds)))
            return name, "(i64)"
        dims = []
        for k, s in enumerate(var.type.shape):
            if s is not None:
                dims.append(int(s))
            else:
                sym = self.fresh(f"{name}_{k}")
                dims.append(sym)
        ld = lang_dtype(var.type.dtype)
        self.set_val(var, Val(name, ld, tuple(dims)))
        return name, render_type(ld, dims)


_TOKEN = re.compile(r"[^\s()]+")


def prune(lines: Sequence[str], roots: Sequence[str]) -> list:
    """The ``(let ...)`` lines that the texts ``roots`` need, in order
    (the language has no side effects, so an unread let is dead)."""
    needed = set()
    for r in roots:
        needed.update(_TOKEN.findall(r))
    kept = []
    for line in reversed(lines):
        m = re.match(r"\(let (\([^()]*\)|[^\s()]+) ", line)
        if m is None:
            kept.append(line)
            continue
        names = m.group(1).strip("()").split()
        if any(n in needed for n in names):
            kept.append(line)
            needed.update(_TOKEN.findall(line[m.end():]))
    return kept[::-1]


def _is_unused_output(o) -> bool:
    fg = getattr(o, "fgraph", None)
    if fg is None:
        return False
    return not fg.clients.get(o)


__all__ = [
    "Converter",
    "Error",
    "Multi",
    "Val",
    "lang_dtype",
    "lookup_op",
    "lookup_scalar",
    "numpy_dtype",
    "prune",
    "register",
    "register_scalar",
    "render_literal",
    "render_type",
]
