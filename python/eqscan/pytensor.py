"""The PyTensor mode ``"EQSCAN"``: ``import eqscan.pytensor`` registers it.

    import eqscan.pytensor
    f = pytensor.function(inputs, outputs, updates=..., mode="EQSCAN")

(or ``PYTENSOR_FLAGS=mode=EQSCAN``, with ``import eqscan.pytensor`` before
``import pytensor``: PyTensor refuses a mode it does not know when it reads
its flags at import; this module takes the flag out for PyTensor's import
and sets ``pytensor.config.mode`` to the mode once registered). The mode runs only PyTensor's canonicalizing
rewrites (``canonicalize`` and ``minimum_compile``; no stabilize,
specialize, fusion, in-place or Scan rewrites), so eqscan does the
optimizing. Its linker, :class:`EqscanLinker`, is built as PyTensor's JAX
and Numba linkers are (a ``JITLinker``): it converts the whole
``FunctionGraph`` once with :func:`eqscan.from_pytensor`, compiles the
program (optimized) and runs it as the graph's single thunk.

The graph is converted as a pure function of all its inputs: PyTensor's
function machinery gives the current values of shared variables as inputs
and takes their updates as extra outputs (``fgraph.update_mapping``), as
for every linker, so the values returned are the default mode's, updates
included. An op that cannot be converted raises :class:`eqscan.Error`
naming it when the function is compiled: there is no fallback.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

import numpy as np


def _without_mode_flag() -> str | None:
    """PyTensor checks ``PYTENSOR_FLAGS=mode=...`` against its own list of
    modes when it is imported, and refuses ``EQSCAN``. When this module is
    imported before PyTensor, the flag is taken out of the environment for
    PyTensor's import and the mode is set once it is registered (below).
    Returns the flags as they were, or ``None`` when nothing was taken."""
    flags = os.environ.get("PYTENSOR_FLAGS")
    if flags is None or "pytensor" in sys.modules:
        return None
    items = [f for f in flags.split(",") if f.strip()]
    kept = [f for f in items if f.replace(" ", "").lower() != "mode=eqscan"]
    if len(kept) == len(items):
        return None
    os.environ["PYTENSOR_FLAGS"] = ",".join(kept)
    return flags


_FLAGS = _without_mode_flag()

import pytensor  # noqa: E402
from pytensor.compile.mode import (  # noqa: E402
    Mode,
    predefined_linkers,
    predefined_modes,
    register_mode,
)
from pytensor.graph.fg import FunctionGraph  # noqa: E402
from pytensor.graph.rewriting.db import RewriteDatabaseQuery  # noqa: E402
from pytensor.graph.replace import clone_replace  # noqa: E402
from pytensor.link.basic import JITLinker  # noqa: E402

import eqscan  # noqa: E402
from eqscan.from_pytensor import from_pytensor  # noqa: E402

__all__ = ["EqscanLinker", "EQSCAN", "convert_fgraph"]


def _peel(var):
    """The variable under the copies PyTensor adds at a function's outputs
    (``DeepCopyOp``, ``ViewOp``, ``OutputGuard``): eqscan's results are new
    arrays already."""
    while var.owner is not None and type(var.owner.op).__name__ in (
        "DeepCopyOp",
        "ViewOp",
        "OutputGuard",
    ):
        var = var.owner.inputs[0]
    return var


def convert_fgraph(fgraph: FunctionGraph) -> eqscan.Program:
    """The program computing ``fgraph``'s outputs (updates included) from
    all its inputs (shared variables included), in order: a pure function,
    as a linker runs it. Raises ``eqscan.Error`` for an op it cannot
    convert."""
    fresh = [inp.type(name=inp.name) for inp in fgraph.inputs]
    outputs = [_peel(o) for o in fgraph.outputs]
    if outputs:
        outputs = clone_replace(outputs, replace=list(zip(fgraph.inputs, fresh)))
    return from_pytensor(outputs, inputs=fresh)


def _is_rng(var) -> bool:
    """Whether ``var`` is a random generator (``RandomType``)."""
    try:
        from pytensor.tensor.random.type import RandomType
    except ImportError:  # pragma: no cover
        return False
    return isinstance(var.type, RandomType)


class _Thunk:
    """The converted graph as a function of the inputs' values.

    - The program's input dtypes may be wider than PyTensor's (``int8`` is
      ``i32``): values are cast in, and results cast back to the dtypes of
      the graph's outputs.
    - A random generator is, in the program, a draw counter (an ``i64``,
      see ``eqscan._convert.random``). PyTensor holds a NumPy ``Generator``
      there, which eqscan does not read: the thunk keeps the counter of each
      generator input (0 at first) and passes it in; a generator output that
      updates an input (``fgraph.update_mapping``) gives the input's next
      counter, and PyTensor gets its ``Generator`` back unchanged. So each
      call draws new numbers, from eqscan's stream, not NumPy's.
    """

    def __init__(self, fn: eqscan.Function, fgraph: FunctionGraph, out_dtypes: list):
        self.fn = fn
        self.in_dtypes = [np.dtype(p.dtype) for p in fn.inputs]
        self.out_dtypes = out_dtypes
        self.rng_inputs = [k for k, v in enumerate(fgraph.inputs) if _is_rng(v)]
        self.counters = {k: 0 for k in self.rng_inputs}
        updates = getattr(fgraph, "update_mapping", None) or {}
        #: generator outputs: output index -> the input it updates (or None)
        self.rng_outputs = {
            k: updates.get(k) for k, o in enumerate(fgraph.outputs) if _is_rng(o)
        }

    def __call__(self, *args: Any) -> list:
        vals = list(args)
        for k, counter in self.counters.items():
            vals[k] = counter
        vals = [
            a if isinstance(a, np.ndarray) and a.dtype == d else np.asarray(a, dtype=d)
            for a, d in zip(vals, self.in_dtypes)
        ]
        outs = self.fn(*vals)
        if not self.rng_outputs:
            return [o if o.dtype == d else o.astype(d) for o, d in zip(outs, self.out_dtypes)]
        results = []
        for k, (o, d) in enumerate(zip(outs, self.out_dtypes)):
            if k in self.rng_outputs:
                j = self.rng_outputs[k]
                if j is not None:
                    self.counters[j] = int(o)
                # PyTensor's value for a generator: the input's Generator.
                source = j if j is not None else (self.rng_inputs or [None])[0]
                results.append(args[source] if source is not None else None)
            else:
                results.append(o if o.dtype == d else o.astype(d))
        return results


class EqscanLinker(JITLinker):
    """A PyTensor linker that runs the whole graph as one eqscan program
    (converted by :func:`eqscan.from_pytensor`, optimized by eqscan,
    executed by its compiled plan with the GIL released).

    ``optimize`` (default ``True``) and ``flags`` (the keyword flags of
    ``Program.optimize``) are passed to ``Program.compile``.
    """

    required_rewrites = ("minimum_compile",)
    incompatible_rewrites = (
        "cxx_only",
        "BlasOpt",
        "inplace",
        "fusion",
        "local_careduce_fusion",
        "scan_reduce_trace_prealloc",
    )

    def __init__(self, *args: Any, optimize: bool = True, flags: dict | None = None, **kwargs: Any):
        self.optimize = optimize
        self.flags = dict(flags or {})
        #: The program of the last graph converted (for inspection).
        self.program: eqscan.Program | None = None
        super().__init__(*args, **kwargs)

    def accept(self, fgraph, no_recycling=None, profile=None):
        # PyTensor makes a new linker per graph; keep the options.
        if self.fgraph is not None and self.fgraph is not fgraph:
            fresh = type(self)(allow_gc=self.allow_gc, optimize=self.optimize, flags=self.flags)
            return fresh.accept(fgraph, no_recycling, profile)
        return super().accept(fgraph, no_recycling, profile)

    def fgraph_convert(self, fgraph, **kwargs) -> Callable[..., list[np.ndarray]]:
        program = convert_fgraph(fgraph)
        self.program = program
        fn = program.compile(optimize=self.optimize, **self.flags)
        out_dtypes = [
            None if _is_rng(o) else np.dtype(o.type.dtype) for o in fgraph.outputs
        ]
        return _Thunk(fn, fgraph, out_dtypes)

    def jit_compile(self, fn: Callable) -> Callable:
        return fn

    def create_thunk_inputs(self, storage_map):
        return [storage_map[n] for n in self.fgraph.inputs]


#: The mode: PyTensor's canonicalizing rewrites, then the eqscan linker.
EQSCAN = Mode(
    EqscanLinker(),
    RewriteDatabaseQuery(include=["canonicalize"], exclude=["inplace"]),
)

if "EQSCAN" not in predefined_modes:
    register_mode("EQSCAN", EQSCAN)
predefined_linkers.setdefault("eqscan", EqscanLinker())

if _FLAGS is not None:
    os.environ["PYTENSOR_FLAGS"] = _FLAGS
    pytensor.config.mode = EQSCAN
