"""Shared variables and their updates: the program's ``(shared ...)`` and
``(update ...)``, over several calls, against PyTensor's function."""

import numpy as np
import pytensor
import pytensor.tensor as pt
from conftest import assert_close, run_text

from eqscan.from_pytensor import convert


def test_shared_read_and_updated():
    rng = np.random.default_rng(1)
    W0 = rng.normal(size=(3, 3))
    W = pytensor.shared(W0.copy(), name="W")
    count = pytensor.shared(np.int64(0), name="count")
    x = pt.vector("x")
    y = pt.tanh(W @ x)
    updates = {W: W - 0.1 * pt.outer(y, x), count: count + 1}
    f = pytensor.function([x], [y, count], updates=updates)
    vx = rng.normal(size=3)
    want_y, want_c = f(vx)

    pmap = convert([y, count], [x], updates=updates)
    assert [n for _, n in pmap.shared] == ["W", "count"]
    assert set(pmap.updates) == {"W", "count"}
    assert "(update W " in pmap.text and "(update count " in pmap.text
    got_y, got_c = run_text(pmap.text, {"x": vx}, shared={"W": W0, "count": np.int64(0)})
    assert_close(got_y, want_y)
    assert_close(got_c, want_c)


def test_shared_without_update_is_read():
    b = pytensor.shared(np.array([1.0, 2.0]), name="b")
    x = pt.vector("x")
    pmap = convert([x + b], [x])
    assert pmap.shared[0][1] == "b" and not pmap.updates
    (got,) = run_text(pmap.text, {"x": np.array([0.5, 0.5])}, shared={"b": np.array([1.0, 2.0])})
    assert_close(got, np.array([1.5, 2.5]))


def test_function_graph_update_mapping():
    """A FunctionGraph whose update_mapping marks outputs as updates."""
    from pytensor.graph.fg import FunctionGraph

    s = pytensor.shared(np.float64(2.0), name="s")
    x = pt.dscalar("x")
    fg = FunctionGraph([x, s], [x * s, s + x], clone=False)
    fg.update_mapping = {1: 1}
    pmap = convert(fg)
    assert [n for _, n in pmap.inputs] == ["x"]
    assert [n for _, n in pmap.shared] == ["s"]
    assert len(pmap.outputs) == 1
    (got,) = run_text(pmap.text, {"x": np.float64(3.0)}, shared={"s": np.float64(2.0)})
    assert_close(got, np.float64(6.0))
