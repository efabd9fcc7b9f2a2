"""``eqscan.from_pytensor``: a PyTensor graph as an eqscan program.

This module owns the entry point: it decides the program's inputs, shared
variables, outputs and updates from the PyTensor graph, runs the converter
(``eqscan._convert``) over it, and parses the text with ``eqscan.parse``. It
does not convert ops itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.fg import FunctionGraph

from . import _convert  # noqa: F401  (registers the op converters)
from ._convert.core import Converter, lang_dtype, prune
from ._convert.errors import Error
from ._convert.random import is_rng


@dataclass
class PytensorMap:
    """How a converted program's names relate to the PyTensor graph.

    - ``inputs``: ``[(pytensor_variable, name), ...]`` in the program's input
      order (the order of ``inputs`` / ``fgraph.inputs``, shared variables
      left out).
    - ``shared``: ``[(shared_variable, name), ...]``: PyTensor shared
      variables (and, for a FunctionGraph, inputs marked as updated), each a
      ``(shared NAME TYPE)`` of the program.
    - ``outputs``: the PyTensor variables of the program's outputs, in order.
    - ``updates``: ``{name: pytensor_variable}``: the update expression of
      each shared variable that has one (``(update NAME ...)``).
    - ``dtypes``: ``{name: numpy dtype name}`` of every input and shared
      variable as PyTensor holds it (the program's may be wider, see
      ``lang_dtype``); ``"rng"`` for a random generator, which the program
      holds as an ``i64`` draw counter (``_convert/random.py``).
    - ``text``: the program text handed to ``eqscan.parse``.
    """

    inputs: list = field(default_factory=list)
    shared: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    updates: dict = field(default_factory=dict)
    dtypes: dict = field(default_factory=dict)
    text: str = ""


def _as_list(x) -> list:
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _updates_list(updates) -> list:
    if updates is None:
        return []
    if isinstance(updates, dict):
        return list(updates.items())
    return list(updates)


def _dtype_name(v) -> str:
    return "rng" if is_rng(v) else str(v.type.dtype)


def _roots(outputs, stops=()) -> list:
    """The graph's root variables (or ``stops``: given inputs that a graph
    is cut at) in the order a left-to-right walk from the outputs first
    meets them (inner graphs are not entered)."""
    seen: set = set()
    roots: list = []
    stops = set(stops)
    stack = list(reversed(outputs))
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if v.owner is None or v in stops:
            roots.append(v)
        else:
            stack.extend(reversed(v.owner.inputs))
    return roots


def convert(
    outputs: Any,
    inputs: Sequence[Variable] | None = None,
    updates: Any = None,
    name: str = "pytensor",
) -> PytensorMap:
    """Convert to program text; returns the map (``.text`` is the program).

    ``outputs`` is a variable, a list of variables, or a ``FunctionGraph``
    (then its inputs and outputs are used, and its ``update_mapping``, when
    there is one, turns those outputs into updates of those inputs).
    ``inputs`` defaults to every non-constant, non-shared root of the graph,
    in graph order. ``updates`` is a dict or a list of pairs
    ``(shared_variable, new_value)``; a shared variable the graph reads that
    has a ``default_update`` (a ``RandomStream``'s generator) gets it unless
    ``updates`` names it, as in ``pytensor.function``.
    """
    pmap = PytensorMap()
    update_pairs = _updates_list(updates)
    if isinstance(outputs, FunctionGraph):
        fg = outputs
        outs = list(fg.outputs)
        ins = list(fg.inputs) if inputs is None else list(inputs)
        umap = getattr(fg, "update_mapping", None) or {}
        if umap:
            update_pairs += [(fg.inputs[i], fg.outputs[o]) for o, i in umap.items()]
            outs = [o for k, o in enumerate(fg.outputs) if k not in umap]
    else:
        outs = _as_list(outputs)
        ins = None if inputs is None else _as_list(inputs)
    for o in outs:
        if not isinstance(o, Variable):
            raise Error(f"from_pytensor: output {o!r} is not a PyTensor variable")

    # As pytensor.function does: a shared variable's default_update (a
    # RandomStream's generator has one) applies unless updated explicitly.
    while True:
        updated = [s for s, _ in update_pairs]
        everything = outs + [u for _, u in update_pairs]
        roots = [r for r in _roots(everything, ins or ()) if not isinstance(r, Constant)]
        extra = [
            (r, r.default_update)
            for r in roots
            if isinstance(r, SharedVariable)
            and getattr(r, "default_update", None) is not None
            and r not in updated
        ]
        if not extra:
            break
        update_pairs += extra
    shared = [r for r in roots if isinstance(r, SharedVariable)]
    for s in updated:
        if s not in shared:
            shared.append(s)
    if ins is None:
        ins = [r for r in roots if r not in shared]
    else:
        ins = [i for i in ins if i not in shared and not isinstance(i, SharedVariable)]
        shared += [
            i for i in _as_list(inputs) if isinstance(i, SharedVariable) and i not in shared
        ]
    missing = [r for r in roots if r not in ins and r not in shared]
    if missing:
        raise Error(
            f"from_pytensor: the graph reads {missing[0]} ({missing[0].type}), which is "
            "neither in `inputs` nor a shared variable"
        )

    cv = Converter()
    header = []
    for v in ins:
        n, ty = cv.add_input(v)
        header.append(f"(input {n} {ty})")
        pmap.inputs.append((v, n))
        pmap.dtypes[n] = _dtype_name(v)
    for v in shared:
        n, ty = cv.add_input(v)
        header.append(f"(shared {n} {ty})")
        pmap.shared.append((v, n))
        pmap.dtypes[n] = _dtype_name(v)

    cv.walk(ins + shared, everything)
    out_exprs = [cv.expr(o) for o in outs]
    upd_lines = []
    names = dict((v, n) for v, n in pmap.shared)
    for s, u in update_pairs:
        n = names[s]
        e = cv.expr(u)
        v = cv.val(u)
        want = "i64" if is_rng(s) else lang_dtype(s.type.dtype)
        if v.dtype != want:
            e = f"(cast {want} {e})"
        upd_lines.append(f"(update {n} {e})")
        pmap.updates[n] = u
    pmap.outputs = outs

    lines = prune(cv.lines, out_exprs + upd_lines)
    body = ["  " + line for line in header + lines + upd_lines]
    body.append("  (output " + " ".join(out_exprs) + ")" if out_exprs else "  (output)")
    pname = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "pytensor"
    pmap.text = f"(program {pname}\n" + "\n".join(body) + ")\n"
    cv.check_deferred(pmap.text)
    return pmap


def from_pytensor(outputs, inputs=None, updates=None, name: str = "pytensor"):
    """Convert a PyTensor graph into an eqscan ``Program``.

    ``outputs``: a variable, a list of variables or a ``FunctionGraph``;
    ``inputs``: the graph's inputs in the order the program takes them
    (default: every root that is not a constant or a shared variable);
    ``updates``: ``{shared_variable: new_value}`` (or pairs).

    Shared variables become ``(shared ...)`` of the program, their updates
    ``(update ...)``. The returned program carries ``pytensor_map``
    (a ``PytensorMap``: which PyTensor variable is which program name).
    An op that cannot be converted raises ``eqscan.Error`` naming it.
    """
    import eqscan

    pmap = convert(outputs, inputs, updates, name)
    prog = eqscan.parse(pmap.text, filename="<from_pytensor>")
    prog.pytensor_map = pmap
    return prog


__all__ = ["PytensorMap", "convert", "from_pytensor"]

