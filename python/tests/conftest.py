"""Shared helpers of the Python tests: run a converted program and compare
it with PyTensor's default mode."""

from __future__ import annotations

import numpy as np
import pytest


def run_text(text: str, feeds: dict, optimize: bool = True, shared: dict | None = None):
    """Run program ``text`` on ``feeds`` (name -> array), shared variables
    set first from ``shared``; returns the outputs (a list of arrays)."""
    import eqscan

    f = eqscan.parse(text).compile(optimize=optimize)
    for k, v in (shared or {}).items():
        f.set_shared(k, np.asarray(v))
    return [np.asarray(o) for o in f(**feeds)]


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


def check_graph(
    outputs, inputs, values, rtol=1e-9, optimize_modes=(False, True), atol=0.0, eqscan_mode=False
):
    """Compile ``outputs`` with PyTensor's default mode and convert them;
    run both on ``values`` (one array per input) and compare, as written and
    optimized; with ``eqscan_mode``, also through ``mode="EQSCAN"``.
    Returns the program text."""
    import pytensor

    from eqscan.from_pytensor import convert

    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    f = pytensor.function(inputs, outputs, on_unused_input="ignore")
    want = f(*values)
    pmap = convert(outputs, inputs)
    from eqscan._convert.core import lang_dtype, numpy_dtype

    feeds = {
        n: np.asarray(np.asarray(v, dtype=var.type.dtype), dtype=numpy_dtype(lang_dtype(var.type.dtype)))
        for (var, n), v in zip(pmap.inputs, values)
    }
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
    import os

    if os.environ.get("EQSCAN_TEST_FGRAPH"):
        # Opt-in: the FAST_RUN-rewritten FunctionGraph, as a user may pass it
        # (some graphs hold ops eqscan lacks there, e.g. LUFactor for solve).
        h = pytensor.function(inputs, outputs, mode="FAST_RUN", on_unused_input="ignore")
        pm = convert(h.maker.fgraph)
        fg_feeds = {
            n: np.asarray(np.asarray(v, dtype=var.type.dtype), dtype=numpy_dtype(lang_dtype(var.type.dtype)))
            for (var, n), v in zip(pm.inputs, values)
        }
        got = run_text(pm.text, fg_feeds)
        for k, (gv, w) in enumerate(zip(got, want)):
            assert_close(gv, w, max(rtol, 1e-9), what=f"output {k} (FAST_RUN fgraph)\n{pm.text}")
    if eqscan_mode:
        # The same graph through the EQSCAN mode (PyTensor's canonicalized
        # graph, converted as the mode converts it).
        import eqscan.pytensor  # noqa: F401  (registers the mode)

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
