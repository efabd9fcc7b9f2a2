"""Zero-padded values (``eqscan/_convert/pads.py``): ``inc_subtensor`` into
zeros along one axis, and sums of such values over disjoint ranges, convert
to one ``concat`` (no ``inc_slice``, no transposes), with the values
PyTensor's default mode gives; anything else converts as before."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
from conftest import check_graph



def _scan(fn, **kw):
    """``pytensor.scan``'s outputs (PyTensor 3 and newer ones)."""
    import inspect

    if "return_updates" in inspect.signature(pytensor.scan).parameters:
        return pytensor.scan(fn, return_updates=False, **kw)
    return pytensor.scan(fn, **kw)[0]


def gru_layer(T, B, n_in, n_h):
    """A GRU layer and its gradient with respect to W, U, b (as
    ``benches/python_layers.py`` writes it)."""
    X = pt.tensor("X", shape=(T, B, n_in))
    W = pt.tensor("W", shape=(n_in, 3 * n_h))
    U = pt.tensor("U", shape=(n_h, 3 * n_h))
    b = pt.tensor("b", shape=(3 * n_h,))
    h0 = pt.tensor("h0", shape=(B, n_h))

    def step(x_t, h_tm1, W, U, b):
        xw = pt.dot(x_t, W) + b
        hu = pt.dot(h_tm1, U[:, : 2 * n_h])
        z = pt.sigmoid(xw[:, :n_h] + hu[:, :n_h])
        r = pt.sigmoid(xw[:, n_h : 2 * n_h] + hu[:, n_h:])
        h_hat = pt.tanh(xw[:, 2 * n_h :] + pt.dot(r * h_tm1, U[:, 2 * n_h :]))
        return (1.0 - z) * h_tm1 + z * h_hat

    H = _scan(step, sequences=X, outputs_info=h0, non_sequences=[W, U, b])
    cost = (H**2).sum()
    vals = [normal(T, B, n_in), normal(n_in, 3 * n_h, scale=0.5, seed=1)]
    vals += [normal(n_h, 3 * n_h, scale=0.5, seed=2)]
    vals += [normal(3 * n_h, seed=3), normal(B, n_h, seed=4)]
    return [X, W, U, b, h0], [cost] + pytensor.grad(cost, [W, U, b]), vals


def normal(*shape, scale=1.0, seed=0):
    return np.random.default_rng(seed).normal(size=shape) * scale


def _blocks_grad():
    """The gradient of a cost reading three column blocks of ``A @ W``
    (column 4 unread: a zero block), as PyTensor builds it: a sum of three
    IncSubtensor nodes into zeros."""
    A = pt.tensor("A", shape=(3, 4))
    W = pt.tensor("W", shape=(4, 7))
    z = A @ W
    cost = (pt.sigmoid(z[:, :2]) * pt.tanh(z[:, 2:4])).sum() + (z[:, 5:] ** 2).sum()
    return [cost, pytensor.grad(cost, W)], [A, W]


def test_blocks_of_a_gradient_are_one_concat():
    outs, ins = _blocks_grad()
    text = check_graph(outs, ins, [normal(3, 4), normal(4, 7, seed=1)])
    assert "inc_slice" not in text and "(concat 1 " in text, text
    assert "(zeros (f64 3 1))" in text, text  # the unread column


def test_blocks_at_extreme_magnitudes():
    outs, ins = _blocks_grad()
    for scale in (1e3, 1e-300, 1e150):
        check_graph(outs, ins, [normal(3, 4, scale=scale), normal(4, 7, seed=1)])


def test_pads_keep_inf_and_nan():
    y = pt.tensor("y", shape=(2, 2))
    v = pt.tensor("v", shape=(2, 2))
    Z = pt.zeros((2, 6))
    a = pt.inc_subtensor(Z[:, 1:3], y)
    b = pt.set_subtensor(Z[:, 4:], v)
    outs = [a, a + b, b + a]
    vals = [np.array([[np.inf, -1e308], [np.nan, -0.0]]), np.array([[1e-300, -np.inf], [1e308, np.nan]])]
    text = check_graph(outs, [y, v], vals)
    assert "inc_slice" not in text, text


def test_what_is_not_a_pad_converts_as_before():
    y = pt.tensor("y", shape=(3, 3))
    x = pt.tensor("x", shape=(3, 5))
    m = pt.matrix("m")
    Z = pt.zeros((3, 5))
    outs = [
        pt.inc_subtensor(Z[:, 1:4], y) + pt.inc_subtensor(Z[:, 3:], y[:, :2]),  # overlapping ranges
        pt.inc_subtensor(Z[:, ::2], y),  # a step of 2
        pt.inc_subtensor(Z[:, 1:4], 2.5),  # a broadcast value
        pt.inc_subtensor(x[:, 1:4], y),  # not into zeros
        pt.inc_subtensor(Z[1:, 1:4], y[1:]),  # two cut axes
        pt.inc_subtensor(Z[:, 1:4], y) + x,  # a pad plus a full value
        pt.inc_subtensor(pt.zeros_like(m)[:, 1:4], y),  # sizes unknown
    ]
    text = check_graph(outs, [y, x, m], [normal(3, 3), normal(3, 5, seed=2), normal(3, 5, seed=3)])
    # Every one but the overlapping sum (two pads, added) and the pad plus
    # a full value (a pad, added) keeps its update.
    assert text.count("inc_slice") == 5, text


def test_gru_gradient_body_has_no_inc_slice():
    inputs, outputs, vals = gru_layer(5, 3, 4, 6)
    text = check_graph(outputs, inputs, vals, rtol=1e-9, eqscan_mode=True)
    body = text[text.index("(fn", text.index("mitmot")) :]
    assert "inc_slice" not in body, text
    assert "(concat 1 " in body, text
