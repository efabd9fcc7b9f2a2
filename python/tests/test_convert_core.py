"""The converter's core: naming, types, constants, errors."""

import numpy as np
import pytensor.tensor as pt
import pytest
from conftest import check_graph, run_text

import eqscan
from eqscan.from_pytensor import convert


def test_elemwise_mixed_dtypes(rng):
    x = pt.vector("x")
    y = pt.matrix("y", dtype="float32")
    i = pt.lscalar("i")
    vals = [rng.normal(size=3), rng.normal(size=(2, 3)).astype("float32"), 4]
    check_graph([pt.exp(x) + y * 2, pt.switch(x > 0, x, -x), (x + i) // 3], [x, y, i], vals)


def test_unknown_op_raises_naming_it():
    x = pt.matrix("x")
    y = pt.linalg.eigh(x)[0]
    with pytest.raises(eqscan.Error, match="Eigh"):
        convert([y], [x])


def test_from_pytensor_returns_program_with_map(rng):
    import pytensor

    x = pt.vector("x")
    W = pytensor.shared(np.eye(2), name="W")
    prog = eqscan.from_pytensor([pt.tanh(W @ x)], [x], updates={W: W * 2})
    assert isinstance(prog, eqscan.Program)
    m = prog.pytensor_map
    assert [n for _, n in m.inputs] == ["x"] and [n for _, n in m.shared] == ["W"]
    assert m.outputs[0].owner is not None and "W" in m.updates
    f = prog.compile()
    f.set_shared("W", np.eye(2) * 0.5)
    vx = np.array([1.0, -2.0])
    (y,) = f(vx)
    np.testing.assert_allclose(y, np.tanh(0.5 * vx), rtol=1e-12)
    np.testing.assert_allclose(f.get_shared("W"), np.eye(2))
    assert "(shared W (f64 W_0 W_1))" in m.text  # a shared value may change shape


def test_names_are_sanitized_and_unique():
    a = pt.vector("a.b")
    b = pt.vector("a.b")
    c = pt.vector("true")
    d = pt.vector("1x")
    m = convert([a + b + c + d], [a, b, c, d])
    names = [n for _, n in m.inputs]
    assert len(set(names)) == 4 and "true" not in names and not names[3][0].isdigit()
    eqscan.parse(m.text)


def test_inputs_may_cut_the_graph():
    """As pytensor.function allows: an intermediate variable given as an
    input stands for its value; what computes it is not converted."""
    x = pt.vector("x")
    h = pt.exp(x)
    h.name = "h"
    y = (h * 2).sum()
    m = convert([y], [h])
    assert [n for _, n in m.inputs] == ["h"] and "exp" not in m.text
    (got,) = run_text(m.text, {"h": np.array([1.0, 2.0])})
    np.testing.assert_allclose(got, 6.0)


def test_constant_and_input_outputs():
    x = pt.vector("x")
    m = convert([x, pt.constant(np.array([1.0, 2.0])), pt.constant(3)], [x])
    got = run_text(m.text, {"x": np.array([5.0])})
    np.testing.assert_array_equal(got[0], [5.0])
    np.testing.assert_array_equal(got[1], [1.0, 2.0])
    assert got[2] == 3
