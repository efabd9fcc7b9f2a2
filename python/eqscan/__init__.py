"""eqscan from Python: tensor programs with loops, optimized by equality
saturation and run on NumPy arrays.

    import eqscan
    prog = eqscan.load("examples/rnn.sexp")   # or eqscan.parse(text)
    opt = prog.optimize()                      # opt.report: the --json report
    f = prog.compile()                         # optimized unless optimize=False
    outs = f(W=W, U=U, b=b, X=X, h0=h0)        # a tuple of NumPy arrays
    print(opt)                                 # the text `eqscan fmt` prints

Errors of a program raise :class:`eqscan.Error`, whose message is the line
the command line prints (``FILE:LINE:COL: ...``).

``eqscan.from_pytensor(outputs, inputs=None)`` converts a PyTensor graph
into a :class:`Program`; ``import eqscan.pytensor`` registers the PyTensor
mode ``"EQSCAN"``.
"""

from __future__ import annotations

from typing import Any

from ._eqscan import Error, Function, Param, Program, load, parse

__all__ = ["Error", "Function", "Param", "Program", "load", "parse", "from_pytensor"]


def __getattr__(name: str) -> Any:
    # The PyTensor converter imports PyTensor: only when asked for.
    if name == "from_pytensor":
        from .from_pytensor import from_pytensor

        return from_pytensor
    raise AttributeError(f"module 'eqscan' has no attribute '{name}'")
