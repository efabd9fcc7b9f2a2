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
    # The PyTensor converter imports PyTensor: only when asked for. Its
    # module has the function's name: importing the module makes
    # `eqscan.from_pytensor` the module, so the function replaces it here.
    if name == "from_pytensor":
        return _from_pytensor()
    raise AttributeError(f"module 'eqscan' has no attribute '{name}'")


def _from_pytensor() -> Any:
    """Imports the converter and makes `eqscan.from_pytensor` the function
    (importing its module made it the module)."""
    from .from_pytensor import from_pytensor

    globals()["from_pytensor"] = from_pytensor
    return from_pytensor
