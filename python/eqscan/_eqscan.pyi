"""Type stubs of the Rust extension module `eqscan._eqscan`."""

import os
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

class Error(Exception):
    """An error of an eqscan program: the line the command line prints
    (``FILE:LINE:COL: message`` where the program has a place for it)."""

class Param:
    """The name and type of an input, output or shared variable."""

    @property
    def name(self) -> str: ...
    @property
    def dtype(self) -> str:
        """NumPy's dtype name (``"float64"``; a random key is ``"int64"``)."""
    @property
    def shape(self) -> tuple[int | str, ...]:
        """Sizes: ``int``, or ``str`` for a symbolic size."""
    @property
    def type(self) -> str:
        """The type as program text, e.g. ``"(f64 T 2)"``."""

class Program:
    """A parsed (or optimized) program. ``str(p)`` is the canonical text
    (``eqscan fmt``)."""

    @property
    def name(self) -> str: ...
    @property
    def filename(self) -> str:
        """The file the program's errors are located in."""
    @property
    def inputs(self) -> list[Param]: ...
    @property
    def outputs(self) -> list[Param]: ...
    @property
    def shared(self) -> list[Param]: ...
    @property
    def report(self) -> dict[str, Any] | None:
        """The optimizer's ``--json`` report (``None`` if not optimized)."""
    def optimize(
        self,
        *,
        rules: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = ...,
        scan_rules: bool = True,
        no_scan_rules: bool = False,
        iter_limit: int = ...,
        node_limit: int = ...,
        plateau_iters: int = ...,
        restarts: int = ...,
        time_limit: float = ...,
        extractor: str = "greedy",
        ilp_time_limit: float = ...,
        memory_budget: int | str | None = None,
        dims: dict[str, int] | None = None,
    ) -> Program:
        """The optimized program, with ``report`` set."""
    def compile(
        self,
        optimize: bool = True,
        max_memory: int | str | None = None,
        *,
        rules: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = ...,
        scan_rules: bool = True,
        no_scan_rules: bool = False,
        iter_limit: int = ...,
        node_limit: int = ...,
        plateau_iters: int = ...,
        restarts: int = ...,
        time_limit: float = ...,
        extractor: str = "greedy",
        ilp_time_limit: float = ...,
        memory_budget: int | str | None = None,
        dims: dict[str, int] | None = None,
    ) -> Function:
        """A callable ``Function`` (optimized first unless ``optimize=False``)."""

class Function:
    """A compiled program: ``f(*arrays, **arrays) -> tuple of arrays``."""

    def __call__(self, *args: npt.ArrayLike, **kwargs: npt.ArrayLike) -> tuple[np.ndarray, ...]: ...
    def get_shared(self, name: str) -> np.ndarray | None:
        """A copy of shared variable ``name`` (``None`` before the first
        call when it was not set)."""
    def set_shared(self, name: str, value: npt.ArrayLike) -> None:
        """Sets shared variable ``name`` (copied) for the next call."""
    @property
    def inputs(self) -> list[Param]: ...
    @property
    def outputs(self) -> list[Param]: ...
    @property
    def shared(self) -> list[Param]: ...
    @property
    def input_copies(self) -> list[str]:
        """Names of the inputs the last call copied instead of reading in place."""

def load(path: str | os.PathLike[str]) -> Program:
    """Reads and parses a program file; raises ``Error``."""

def parse(text: str, filename: str = "<string>") -> Program:
    """Parses program text, errors located in ``filename``; raises ``Error``."""
