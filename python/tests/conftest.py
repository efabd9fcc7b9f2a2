"""Shared helpers of the Python tests: run a converted program and compare
it with PyTensor's default mode."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

ROOT = HERE.parent.parent
CLI = Path(os.environ.get("EQSCAN_CLI", ROOT / "target" / "release" / "eqscan"))


def _have_extension() -> bool:
    try:
        import eqscan

        return hasattr(eqscan, "parse") and hasattr(eqscan, "load")
    except ImportError:
        return False


def run_text(text: str, feeds: dict, optimize: bool = True, shared: dict | None = None):
    """Run program ``text`` on ``feeds`` (name -> array); returns the outputs
    (a list of arrays). Uses the Python API when the extension is built, else
    the CLI."""
    if _have_extension():
        import eqscan

        f = eqscan.parse(text).compile(optimize=optimize)
        for k, v in (shared or {}).items():
            f.set_shared(k, v)
        return [np.asarray(o) for o in f(**feeds)]
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "prog.sexp").write_text(text)
        cmd = [str(CLI), "run", str(d / "prog.sexp"), "--out", str(d / "out")]
        for k, v in feeds.items():
            np.save(d / f"in_{k}.npy", np.asarray(v))
            cmd += ["--input", f"{k}={d / f'in_{k}.npy'}"]
        for k, v in (shared or {}).items():
            np.save(d / f"sh_{k}.npy", np.asarray(v))
            cmd += ["--shared", f"{k}={d / f'sh_{k}.npy'}"]
        if not optimize:
            cmd.append("--no-opt")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"eqscan run failed:\n{r.stderr}\n--- program:\n{text}")
        outs = []
        k = 0
        while (d / "out" / f"out_{k}.npy").exists():
            outs.append(np.load(d / "out" / f"out_{k}.npy"))
            k += 1
        return outs


def assert_close(got, want, rtol=1e-9, what=""):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        atol = 1e-300 if want.dtype == np.float64 else 1e-30
        tol = rtol if want.dtype == np.float64 else max(rtol, 1e-5)
        np.testing.assert_allclose(got, want, rtol=tol, atol=atol, equal_nan=True, err_msg=what)


def check_graph(outputs, inputs, values, rtol=1e-9, optimize_modes=(False, True), atol=0.0):
    """Compile ``outputs`` with PyTensor's default mode and convert them;
    run both on ``values`` (one array per input) and compare, as written and
    optimized. Returns the program text."""
    import pytensor

    from eqscan.from_pytensor import convert

    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    f = pytensor.function(inputs, outputs, on_unused_input="ignore")
    want = f(*values)
    pmap = convert(outputs, inputs)
    feeds = {n: np.asarray(v, dtype=var.type.dtype) for (var, n), v in zip(pmap.inputs, values)}
    for opt in optimize_modes:
        got = run_text(pmap.text, feeds, optimize=opt)
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            assert g.dtype == np.asarray(w).dtype or np.asarray(w).dtype.itemsize < 4, (
                f"output {k}: dtype {g.dtype} != {np.asarray(w).dtype}\n{pmap.text}"
            )
            if atol:
                np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=pmap.text)
            else:
                assert_close(g, w, rtol, what=f"output {k} (optimize={opt})\n{pmap.text}")
    if _have_extension():
        # The same graph through the EQSCAN mode (PyTensor's canonicalized
        # graph, converted as the mode converts it).
        import eqscan.pytensor  # noqa: F401

        g = pytensor.function(inputs, outputs, mode="EQSCAN", on_unused_input="ignore")
        got = g(*values)
        for k, (gv, w) in enumerate(zip(got, want)):
            if atol:
                np.testing.assert_allclose(gv, w, rtol=rtol, atol=atol)
            else:
                assert_close(gv, w, rtol, what=f"output {k} (mode EQSCAN)")
    return pmap.text


@pytest.fixture
def rng():
    return np.random.default_rng(42)
