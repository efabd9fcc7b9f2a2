"""The PyTensor mode "EQSCAN" (eqscan/pytensor.py) against PyTensor's
default mode: values, shared variable updates, gradients, and the error
for an op it cannot convert."""

import numpy as np
import pytest

pytensor = pytest.importorskip("pytensor")
pytest.importorskip("eqscan.from_pytensor", reason="the PyTensor converter is not in this tree")

import pytensor.tensor as pt  # noqa: E402
from pytensor.graph.basic import Apply  # noqa: E402
from pytensor.graph.op import Op  # noqa: E402

import eqscan  # noqa: E402
import eqscan.pytensor  # noqa: E402,F401  (registers the mode)


def both(inputs, outputs, **kwargs):
    """The function in mode EQSCAN and in the default mode."""
    return (
        pytensor.function(inputs, outputs, mode="EQSCAN", **kwargs),
        pytensor.function(inputs, outputs, **kwargs),
    )


def assert_same(a, b, rtol=1e-12):
    if not isinstance(a, (list, tuple)):
        a, b = [a], [b]
    assert len(a) == len(b)
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_allclose(x, y, rtol=rtol, atol=0)


def test_from_pytensor_is_the_function_and_the_module():
    import eqscan.from_pytensor as module

    x = pt.vector("x")
    assert eqscan.from_pytensor([x * 2], [x]).inputs[0].dtype == "float64"
    assert module.from_pytensor([x * 2], [x]).outputs[0].dtype == "float64"


def test_the_mode_is_registered():
    from pytensor.compile.mode import get_mode

    mode = get_mode("EQSCAN")
    assert isinstance(mode.linker, eqscan.pytensor.EqscanLinker)


def test_the_mode_from_pytensor_flags():
    import os
    import subprocess
    import sys

    code = (
        "import eqscan.pytensor, pytensor, numpy as np, pytensor.tensor as pt\n"
        "x = pt.vector('x')\n"
        "f = pytensor.function([x], x * 2 + 1)\n"
        "print(type(f.maker.linker).__name__, f(np.arange(3.0)).tolist())\n"
    )
    env = {**os.environ, "PYTENSOR_FLAGS": "floatX=float64,mode=EQSCAN"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["EqscanLinker", "[1.0,", "3.0,", "5.0]"]


def test_elementwise_and_dot():
    W, x, b = pt.matrix("W"), pt.vector("x"), pt.vector("b")
    y = pt.tanh(W @ x + b) * 2.0 - pt.exp(-(x.sum()))
    z = (W**2).sum(axis=1) / (1.0 + pt.abs(b))
    f, g = both([W, x, b], [y, z])
    rng = np.random.default_rng(0)
    for scale in (1e-3, 1.0, 30.0):
        args = [rng.normal(size=(3, 4)) * scale, rng.normal(size=4) * scale, rng.normal(size=3)]
        assert_same(f(*args), g(*args))


def test_float32_and_integers_keep_their_dtypes():
    x = pt.vector("x", dtype="float32")
    k = pt.vector("k", dtype="int64")
    f, g = both([x, k], [x * 2 + 1, k * 3 - 1, (x > 0).sum()])
    args = [np.array([1.5, -2.0, 3.25], np.float32), np.array([1, -7, 2**40])]
    assert_same(f(*args), g(*args), rtol=0)


def test_an_output_that_is_an_input_is_a_copy():
    x = pt.vector("x")
    f, g = both([x], [x, x + 1])
    a = np.arange(3.0)
    out, plus = f(a)
    assert_same([out, plus], g(a))
    out[0] = 10.0
    assert a[0] == 0.0


def test_shared_variable_updates_match_the_default_mode():
    rng = np.random.default_rng(1)
    W0 = rng.normal(size=(4, 4)) * 0.3
    states = {}
    for mode in ("EQSCAN", None):
        h = pytensor.shared(np.ones(4), name="h")
        n = pytensor.shared(np.int64(0), name="n")
        W = pytensor.shared(W0, name="W")
        x = pt.vector("x")
        h_new = pt.tanh(W @ h + x)
        f = pytensor.function([x], [h_new.sum(), n], updates={h: h_new, n: n + 1}, mode=mode)
        outs = [f(np.full(4, 0.1 * k)) for k in range(5)]
        states[mode] = (outs, h.get_value(), n.get_value(), W.get_value())
    (o1, h1, n1, w1), (o2, h2, n2, w2) = states["EQSCAN"], states[None]
    for a, b in zip(o1, o2):
        assert_same(a, b)
    assert_same(h1, h2)
    assert n1 == n2 == 5
    assert_same(w1, w2, rtol=0)


def test_gradient_graph():
    W, x = pt.matrix("W"), pt.vector("x")
    cost = (pt.tanh(W @ x) ** 2).sum() + pt.log1p(pt.exp(x)).sum()
    gW, gx = pytensor.grad(cost, [W, x])
    f, g = both([W, x], [cost, gW, gx])
    rng = np.random.default_rng(2)
    args = [rng.normal(size=(5, 3)), rng.normal(size=3)]
    assert_same(f(*args), g(*args), rtol=1e-11)


def _scan_converter_present() -> bool:
    W = pt.matrix("W")
    h0 = pt.vector("h0")
    hs = pytensor.scan(lambda h, w: pt.tanh(w @ h), outputs_info=h0, non_sequences=W,
                       n_steps=3, return_updates=False)
    try:
        eqscan.from_pytensor([hs], [W, h0])
    except eqscan.Error as e:
        return "Scan" not in str(e) and "AllocEmpty" not in str(e)
    return True


@pytest.mark.skipif(not _scan_converter_present(), reason="the Scan converter is not in this tree")
def test_scan_with_a_sitsot():
    X, h0, W = pt.matrix("X"), pt.vector("h0"), pt.matrix("W")
    hs = pytensor.scan(
        lambda x, h, w: pt.tanh(w @ h + x),
        sequences=X, outputs_info=h0, non_sequences=W, return_updates=False,
    )
    cost = hs[-1].sum()
    f, g = both([X, h0, W], [hs, cost, pytensor.grad(cost, W)])
    rng = np.random.default_rng(3)
    args = [rng.normal(size=(7, 4)), rng.normal(size=4), rng.normal(size=(4, 4)) * 0.5]
    assert_same(f(*args), g(*args), rtol=1e-10)


class Opaque(Op):
    """An op eqscan knows nothing about."""

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0].copy()


def test_an_unknown_op_is_an_error_naming_it():
    x = pt.vector("x")
    with pytest.raises(eqscan.Error, match="Opaque"):
        pytensor.function([x], Opaque()(x) + 1, mode="EQSCAN")


@pytest.mark.filterwarnings("ignore:RandomVariable Ops will stop hiding:DeprecationWarning")
def test_a_shared_generator_draws_new_numbers_each_call():
    pytest.importorskip("eqscan._convert.random", reason="random variables are not converted in this tree")
    rng = pytensor.shared(np.random.default_rng(1), name="rng")
    x = pt.random.normal(2.0, 3.0, size=(20000,), rng=rng)
    f = pytensor.function([], x, updates={rng: x.owner.outputs[0]}, mode="EQSCAN")
    a, b = f(), f()
    assert a.shape == b.shape == (20000,) and a.dtype == np.float64
    assert not np.array_equal(a, b)
    for draw in (a, b):
        # 20000 draws: the mean within 5 standard errors, the spread within 3 %.
        assert abs(draw.mean() - 2.0) < 5 * 3.0 / np.sqrt(20000)
        assert abs(draw.std() / 3.0 - 1.0) < 0.03
    assert isinstance(rng.get_value(), np.random.Generator)
