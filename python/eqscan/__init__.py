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

import importlib
import sys
import types
from typing import Any

from ._eqscan import Error, Function, Param, Program, load, parse

__all__ = ["Error", "Function", "Param", "Program", "load", "parse", "from_pytensor"]


class _CallableModule(types.ModuleType):
    """The converter's module, ``eqscan.from_pytensor``, callable as its
    function: ``eqscan.from_pytensor(outputs, inputs)`` converts, and
    ``eqscan.from_pytensor.convert`` (or ``import eqscan.from_pytensor``)
    reaches the rest of the module."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.from_pytensor(*args, **kwargs)


class _Package(types.ModuleType):
    """The package: when Python's import system binds the submodule
    ``from_pytensor`` as an attribute (which would hide the function of
    the same name), the module is made callable as the function."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "from_pytensor" and type(value) is types.ModuleType:
            value.__class__ = _CallableModule
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    # The PyTensor converter imports PyTensor: only when asked for.
    if name == "from_pytensor":
        return importlib.import_module(".from_pytensor", __name__)
    raise AttributeError(f"module 'eqscan' has no attribute '{name}'")
