"""PyTensor's Scan converted to eqscan loops, checked against PyTensor's
default mode on the same inputs (f64 within 1e-9 relative), as written and
optimized: the scan documentation's examples, ports (written anew) of the
essentials of PyTensor's tests/scan/test_basic.py, gradient graphs (through
sit-sots, mit-sots, while loops and nested scans), canonicalized graphs, and
buffer layouts that ``scan()`` does not build (save-mem'd ones)."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import assert_close, check_graph, run_text
from pytensor.graph.rewriting.utils import rewrite_graph
from pytensor.scan.utils import until

import eqscan
from eqscan.from_pytensor import convert


def scan(*args, **kwargs):
    kwargs.setdefault("return_updates", False)
    return pytensor.scan(*args, **kwargs)


def canonical(outputs):
    """``outputs`` after PyTensor's canonicalizing rewrites only (what the
    EQSCAN mode converts)."""
    return rewrite_graph(list(outputs), include=("canonicalize",))


def check(outputs, inputs, values):
    """``outputs`` converted with ``from_pytensor`` (run as written and
    optimized) and compiled with mode EQSCAN (canonicalized, then
    converted), each against PyTensor's default mode."""
    check_graph(outputs, inputs, values)
    import eqscan.pytensor  # noqa: F401  (registers the mode)

    outputs = list(outputs)
    want = pytensor.function(inputs, outputs)(*values)
    got = pytensor.function(inputs, outputs, mode="EQSCAN")(*values)
    for k, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, what=f"mode EQSCAN, output {k}")


def run_converted(outputs, inputs, values, optimize=True, updates=None, shared=None):
    pmap = convert(outputs, inputs, updates=updates)
    feeds = {n: np.asarray(v, dtype=var.type.dtype) for (var, n), v in zip(pmap.inputs, values)}
    return pmap, run_text(pmap.text, feeds, optimize=optimize, shared=shared)


def finite_diff(f, x, eps=1e-6):
    """Central differences of the scalar ``f`` at ``x`` (float64 array)."""
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


# ---------------------------------------------------------------- the docs' examples


def test_doc_power_by_scan():
    # A ** k by repeated multiplication (sit-sot, non-sequence, symbolic n_steps)
    k = pt.iscalar("k")
    A = pt.dvector("A")
    result = scan(
        lambda prior, A: prior * A, outputs_info=pt.ones_like(A), non_sequences=A, n_steps=k
    )
    vals = [np.array([1e30, -1e-30, 3.0, 0.5, -2.0]), np.int32(10)]
    check([result[-1], result], [A, k], vals)


def test_doc_polynomial_sequences():
    # a polynomial from a sequence of coefficients and an arange sequence (nit-sot)
    coefficients = pt.dvector("coefficients")
    x = pt.dscalar("x")
    components = scan(
        lambda c, p, x: c * (x**p),
        sequences=[coefficients, pt.arange(1000)],
        non_sequences=x,
    )
    check([components.sum(), components], [coefficients, x], [np.array([1.0, 0.0, 2.0, -3.5]), 3.0])


def test_doc_polynomial_taps():
    # the same with the coefficient sequence read at taps -1 and 0
    c = pt.dvector("c")
    x = pt.dscalar("x")
    comps = scan(
        lambda c_prev, c_now, p, x: (c_prev + c_now) * (x**p),
        sequences=[dict(input=c, taps=[-1, 0]), pt.arange(100)],
        non_sequences=x,
    )
    check([comps], [c, x], [np.array([1.0, 2.0, -1.0, 0.25, 4.0]), -1.5])


def test_doc_cumulative_sum_extreme_magnitudes():
    v = pt.dvector("v")
    s = scan(lambda x, acc: acc + x, sequences=v, outputs_info=pt.constant(0.0, dtype="float64"))
    vals = np.array(
        [1e300, -1e300, 1e-300, 3.0, -2.5e-310, 1e308, 1e308]
    )  # the last overflows to inf
    check([s], [v], [vals])


def test_doc_fibonacci_mitsot():
    # taps [-2, -1] on int64 (exact) and float64 states
    init = pt.lvector("init")
    n = pt.lscalar("n")
    fib = scan(lambda a, b: a + b, outputs_info=[dict(initial=init, taps=[-2, -1])], n_steps=n)
    check([fib], [init, n], [np.array([0, 1]), 90])
    finit = pt.dvector("finit")
    ffib = scan(
        lambda a, b: 0.5 * a - b, outputs_info=[dict(initial=finit, taps=[-2, -1])], n_steps=30
    )
    check([ffib], [finit], [np.array([1e-200, 3e200])])


def test_doc_power_of_2_until():
    max_value = pt.dscalar("max_value")

    def power_of_2(previous_power, max_value):
        return previous_power * 2, until(previous_power * 2 > max_value)

    values = scan(power_of_2, outputs_info=pt.constant(1.0), non_sequences=max_value, n_steps=1024)
    for m in (45.0, 1.0, 0.5, 1e300, np.inf):  # the last never stops: 1024 steps, overflow to inf
        check([values], [max_value], [m])


def test_while_steps_run_is_the_length():
    # xs.shape[0] of a while loop is the steps that ran, not the n_steps
    # PyTensor allocates its buffer for: halving x until it is below 1.
    x0 = pt.dscalar("x0")
    xs = scan(lambda x: (x / 2, until(x / 2 < 1)), outputs_info=x0, n_steps=2000)
    for v in (1000.0, 0.5, 3.0, 1e300):
        check([xs.shape[0], xs[-1], xs.sum()], [x0], [v])
        steps, x = 0, v
        while steps < 2000:
            x, steps = x / 2, steps + 1
            if x < 1:
                break
        import eqscan.pytensor  # noqa: F401  (registers the mode)

        n, last = pytensor.function([x0], [xs.shape[0], xs[-1]], mode="EQSCAN")(v)
        assert (int(n), float(last)) == (steps, x)


def test_doc_rnn():
    ins, H, vals = _rnn(seed=0, steps=7)
    check([H, H[-1]], ins, vals)


# ---------------------------------------------------------------- ports of test_basic.py


def test_go_backwards():
    x = pt.dvector("x")
    h0 = pt.dscalar("h0")
    out = scan(lambda x, h: x + 2.0 * h, sequences=x, outputs_info=h0, go_backwards=True)
    check([out], [x, h0], [np.array([1.0, -2.0, 3.5, 1e-5, 7.0]), 0.25])


def test_go_backwards_with_taps_and_nitsot():
    x = pt.dmatrix("x")
    y, z = scan(
        lambda xm1, x0, acc: (acc + xm1 * x0, (xm1 - x0).sum()),
        sequences=dict(input=x, taps=[-1, 0]),
        outputs_info=[pt.zeros(3), None],
        go_backwards=True,
    )
    check([y, z], [x], [np.random.default_rng(1).normal(size=(6, 3))])


def test_multiple_outputs_mixed_kinds():
    # a mit-sot, a sit-sot and two nit-sots from two sequences and a non-sequence
    x = pt.dvector("x")
    u = pt.dmatrix("u")
    w = pt.dscalar("w")
    y0 = pt.dvector("y0")
    s0 = pt.dvector("s0")

    def step(x, u, ym3, ym1, s, w):
        y = w * ym1 - 0.5 * ym3 + x
        s_new = s * 0.9 + u
        return y, s_new, y * s_new.sum(), (u**2).sum()

    y, s, a, b = scan(
        step,
        sequences=[x, u],
        outputs_info=[dict(initial=y0, taps=[-3, -1]), s0, None, None],
        non_sequences=w,
    )
    rng = np.random.default_rng(2)
    vals = [
        rng.normal(size=8),
        rng.normal(size=(8, 2)),
        0.7,
        rng.normal(size=3),
        rng.normal(size=2),
    ]
    check([y, s, a, b], [x, u, w, y0, s0], vals)


def test_nitsot_only_map():
    x = pt.dmatrix("x")
    y = pt.dvector("y")
    out = scan(lambda r, c: pt.exp(r) * c, sequences=[x, y])
    check([out], [x, y], [np.random.default_rng(3).normal(size=(5, 4)), np.arange(5.0)])


def test_sequence_taps_both_sides():
    # sequence taps (-2, 1) and a mit-sot (-2, -1), the SPEC's loop_seq_taps
    x = pt.dvector("x")
    y0 = pt.dvector("y0")
    Y = scan(
        lambda xm2, xp1, ym2, ym1: 0.5 * ym1 - 0.3 * ym2 + xm2 * xp1,
        sequences=[dict(input=x, taps=[-2, 1])],
        outputs_info=[dict(initial=y0, taps=[-2, -1])],
    )
    check([Y], [x, y0], [np.random.default_rng(4).normal(size=8), np.array([0.3, -0.1])])


def test_nsteps_shorter_than_sequence():
    x = pt.dvector("x")
    n = pt.lscalar("n")
    out = scan(
        lambda x, h: h * 0.5 + x,
        sequences=x,
        outputs_info=pt.constant(0.0, dtype="float64"),
        n_steps=n,
    )
    check([out], [x, n], [np.arange(10.0), 4])


def test_zero_steps():
    x = pt.dvector("x")
    h0 = pt.dscalar("h0")
    out = scan(lambda x, h: h + x, sequences=x, outputs_info=h0)
    check([out], [x, h0], [np.zeros(0), 2.0])


def test_while_with_sequence_and_nitsot():
    x = pt.dvector("x")
    lim = pt.dscalar("lim")

    def step(x, acc, lim):
        new = acc + x
        return [new, new * x], until(new > lim)

    acc, prod = scan(
        step, sequences=x, outputs_info=[pt.constant(0.0, dtype="float64"), None], non_sequences=lim
    )
    xs = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    for lim_v in (4.0, 100.0, -1.0):  # stops on step 3; never; on step 1
        check([acc, prod], [x, lim], [xs, lim_v])


def test_while_nan_condition_stops():
    x = pt.dvector("x")
    out = scan(
        lambda x, h: (h + x, until(pt.log(h + x))),
        sequences=x,
        outputs_info=pt.constant(1.0, dtype="float64"),
    )
    # log(1 + x) is 0 (continue) for x = 0, NaN (stop) for x < -1
    check([out], [x], [np.array([0.0, 0.0, -5.0, 1.0])])


def test_shared_variable_updates_inside_scan():
    s = pytensor.shared(np.float64(1.0), name="s")
    x = pt.dvector("x")
    y, upd = pytensor.scan(lambda x: (x + s, {s: s * 2.0}), sequences=[x], return_updates=True)
    f = pytensor.function([x], y, updates=upd)
    xs = np.array([0.5, -1.0, 3.0])
    want = f(xs)
    want_s = s.get_value()
    s.set_value(np.float64(1.0))
    pmap, got = run_converted([y], [x], [xs], updates=upd, shared={"s": np.float64(1.0)})
    assert_close(got[0], want, what=pmap.text)
    assert "(update s" in pmap.text
    assert want_s == 8.0


def test_nested_scan():
    # a scan inside a scan body: per row, a running product; carried state across rows
    X = pt.dmatrix("X")
    h0 = pt.dscalar("h0")

    def outer(row, h):
        inner = scan(
            lambda v, p: p * v + h, sequences=row, outputs_info=pt.constant(1.0, dtype="float64")
        )
        return h + inner[-1]

    H = scan(outer, sequences=X, outputs_info=h0)
    check([H], [X, h0], [np.random.default_rng(5).normal(size=(4, 3)), 0.5])


# ---------------------------------------------------------------- gradients


def _rnn(seed=6, steps=6):
    """The scan docs' Elman RNN, and inputs for it."""
    X = pt.dmatrix("X")
    W = pt.dmatrix("W")
    U = pt.dmatrix("U")
    b = pt.dvector("b")
    h0 = pt.dvector("h0")
    H = scan(
        lambda x, h, W, U, b: pt.tanh(x @ W + h @ U + b),
        sequences=X,
        outputs_info=h0,
        non_sequences=[W, U, b],
    )
    rng = np.random.default_rng(seed)
    vals = [
        rng.normal(size=(steps, 3)),
        rng.normal(size=(3, 4)),
        rng.normal(size=(4, 4)) * 0.5,
        rng.normal(size=4),
        rng.normal(size=4),
    ]
    return [X, W, U, b, h0], H, vals


def test_grad_rnn_sitsot():
    ins, H, vals = _rnn()
    cost = (H**2).sum() + H[-1].sum()
    grads = pytensor.grad(cost, ins)
    check([cost, *grads], ins, vals)


def test_grad_rnn_canonicalized():
    ins, H, vals = _rnn()
    cost = (H**2).sum()
    grads = pytensor.grad(cost, ins)
    check(canonical([cost, *grads]), ins, vals)


def test_grad_two_states_static_tape_lengths():
    # A cell with two sit-sot states (h, c as an LSTM's) over a sequence of
    # static length: the traced outputs get the static length T + 1, so the
    # zero tape `grad` allocates for the second state's gradient is a
    # literal `zeros` and no loop of a run-time step count builds it (the
    # Scan rewrites refuse loops whose sizes are not literals).
    X = pt.tensor("X", dtype="float64", shape=(5, 3))
    W = pt.tensor("W", dtype="float64", shape=(3, 4))
    h0 = pt.tensor("h0", dtype="float64", shape=(4,))
    c0 = pt.tensor("c0", dtype="float64", shape=(4,))

    def step(x, h, c, W):
        c2 = pt.tanh(x @ W) * pt.sigmoid(h) + c * 0.5
        return pt.tanh(c2) * pt.sigmoid(h), c2

    H, C = scan(step, sequences=X, outputs_info=[h0, c0], non_sequences=[W])
    cost = (H**2).sum()
    ins = [X, W, h0, c0]
    grads = pytensor.grad(cost, ins)
    text = convert([cost, *grads], ins).text
    assert "(zeros (f64 6 4))" in text
    assert "n_steps" not in text
    rng = np.random.default_rng(11)
    vals = [rng.normal(size=(5, 3)), rng.normal(size=(3, 4))]
    vals += [rng.normal(size=4), rng.normal(size=4)]
    check([cost, *grads], ins, vals)


def test_grad_mitsot():
    # y0 of static length: grad slices its gradient as the first
    # len(y0[:2]) rows, a run-time bound unless y0's length is known
    y0 = pt.tensor("y0", dtype="float64", shape=(2,))
    a = pt.dscalar("a")
    x = pt.dvector("x")
    Y = scan(
        lambda x, ym2, ym1, a: a * ym1 - 0.3 * pt.sin(ym2) + x,
        sequences=x,
        outputs_info=[dict(initial=y0, taps=[-2, -1])],
        non_sequences=a,
    )
    cost = (Y**2).sum()
    grads = pytensor.grad(cost, [y0, a, x])
    vals = [np.array([0.2, -0.4]), 0.8, np.random.default_rng(7).normal(size=7)]
    check([cost, *grads], [y0, a, x], vals)


def _while_graph():
    x = pt.dvector("x")
    h0 = pt.dscalar("h0")
    w = pt.dscalar("w")

    def step(x, h, w):
        new = pt.tanh(w * h + x)
        return new, until(new > 0.9)

    H = scan(step, sequences=x, outputs_info=h0, non_sequences=w)
    cost = (H**2).sum() + H[-1]
    return [x, h0, w], cost


def test_grad_while_against_pytensor_and_finite_differences():
    ins, cost = _while_graph()
    grads = pytensor.grad(cost, ins)
    xs = np.array([0.1, 0.3, -0.2, 0.5, 2.0, 0.1, 0.4])  # stops after step 5 (of 7)
    vals = [xs, 0.3, 1.2]
    # the converted graph computes what PyTensor's does, as written and optimized
    check([cost, *grads], ins, vals)
    _, got = run_converted([cost, *grads], ins, vals)
    fc = pytensor.function(ins, cost)
    # the init and non-sequence gradients are the derivatives (finite differences)
    fd_h0 = finite_diff(lambda h: fc(xs, float(h), 1.2), 0.3)
    fd_w = finite_diff(lambda w: fc(xs, 0.3, float(w)), 1.2)
    np.testing.assert_allclose(got[2], fd_h0, rtol=1e-6)
    np.testing.assert_allclose(got[3], fd_w, rtol=1e-6)
    # the sequence gradient PyTensor 3.0.7 builds for a while loop is the
    # derivative shifted down a row (pymc-devs/pytensor#2217); the
    # conversion keeps PyTensor's graph, shift included
    fd_x = finite_diff(lambda xv: fc(xv, 0.3, 1.2), xs)
    assert np.abs(fd_x[:5]).min() > 1e-3 and np.all(fd_x[5:] == 0)
    np.testing.assert_allclose(got[1][1:], fd_x[:-1], rtol=1e-6, atol=1e-9)
    assert got[1][0] == 0.0


def test_grad_nested_scan():
    X = pt.dmatrix("X")
    h0 = pt.dscalar("h0")
    w = pt.dscalar("w")

    def outer(row, h, w):
        inner = scan(
            lambda v, p, w: pt.tanh(p * w + v), sequences=row, outputs_info=h, non_sequences=w
        )
        return inner[-1] + 0.1 * h

    H = scan(outer, sequences=X, outputs_info=h0, non_sequences=w)
    cost = (H**2).sum()
    grads = pytensor.grad(cost, [X, h0, w])
    vals = [np.random.default_rng(8).normal(size=(3, 4)), 0.5, 0.7]
    check([cost, *grads], [X, h0, w], vals)


def test_second_order_through_scan():
    # the gradient of a gradient: mit-mot states with several taps
    x = pt.dvector("x")
    w = pt.dscalar("w")
    H = scan(
        lambda x, h, w: pt.sin(w * h) + x,
        sequences=x,
        outputs_info=pt.constant(0.1, dtype="float64"),
        non_sequences=w,
    )
    cost = (H**2).sum()
    g = pytensor.grad(cost, w)
    gg = pytensor.grad(g, w)
    check([g, gg], [x, w], [np.array([0.3, -0.2, 0.5, 0.1]), 0.9])


# ---------------------------------------------------------------- buffers scan() does not build


def _sitsot_node():
    x = pt.dvector("x")
    h0 = pt.dscalar("h0")
    out = scan(lambda x, h: h * 0.5 + x, sequences=x, outputs_info=h0)
    return x, h0, out.owner.inputs[0].owner


def test_circular_buffer_keeps_the_last_rows():
    # a save-mem'd sit-sot: a 3-row buffer over 6 steps holds the last 3
    # states, in order (PyTensor's perform rotates its circular buffer)
    x, _, node = _sitsot_node()
    buf = pt.dvector("buf", shape=(3,))
    n = pt.constant(np.int64(6))
    out = node.op.make_node(n, x, buf).outputs[0]
    vals = [np.arange(1.0, 7.0), np.array([2.0, 9.0, 9.0])]
    check([out], [x, buf], vals)


def test_longer_buffer_pads_with_zeros():
    x, _, node = _sitsot_node()
    buf = pt.dvector("buf", shape=(9,))
    n = pt.constant(np.int64(5))
    out = node.op.make_node(n, x, buf).outputs[0]
    check([out], [x, buf], [np.arange(1.0, 6.0), np.full(9, 4.0)])


def test_buffer_of_a_run_time_length():
    # a buffer whose length the converter cannot relate to n_steps: the rows
    # PyTensor keeps (the last ones, or the steps then zeros) are taken at
    # run time
    x, _, node = _sitsot_node()
    buf = pt.dvector("buf")
    n = pt.lscalar("n")
    out = node.op.make_node(n, x, buf).outputs[0]
    xs = np.arange(1.0, 9.0)
    for length, steps in ((3, 8), (9, 8), (20, 5), (1, 6), (4, 3)):
        check_graph([out], [x, buf, n], [xs, np.full(length, 2.0), steps])


# ---------------------------------------------------------------- random generators


def test_random_generator_threaded_through_scan():
    # a shared generator updated inside the scan (an untraced sit-sot): a
    # draw counter threaded through the loop, one fresh key per step
    from eqscan._convert.random import root_seed

    gen = pytensor.shared(np.random.default_rng(3), name="gen")
    x = pt.dvector("x")

    def step(x):
        nxt, r = pt.random.normal(0.0, 1.0, rng=gen).owner.outputs
        return x + 2.0 * r, {gen: nxt}

    y, upd = pytensor.scan(step, sequences=[x], return_updates=True)
    pmap = convert([y], [x], updates=upd)
    xs = np.array([1.0, -2.0, 3.0, 0.5])
    seed = root_seed(gen, 0)
    ref = "(program ref (output (stack {})))".format(
        " ".join(f"(normal (fold_in (key {seed}) {k}) (f64))" for k in range(len(xs)))
    )
    draws = run_text(ref, {})[0]
    assert np.std(draws) > 0.1
    for opt in (False, True):
        got = run_text(pmap.text, {"x": xs}, optimize=opt)[0]
        assert_close(got, xs + 2.0 * draws, what=pmap.text)
    assert "(update gen" in pmap.text


# ---------------------------------------------------------------- more of PyTensor's scan surface


def test_map_reduce_foldl_helpers():
    x = pt.dvector("x")
    from pytensor.scan.views import foldr, map, reduce

    zero, one = pt.constant(0.0, dtype="float64"), pt.constant(1.0, dtype="float64")
    m = map(lambda v: v**2 + 1.0, sequences=x, return_updates=False)
    r = reduce(lambda v, acc: acc * 0.5 + v, sequences=x, outputs_info=zero, return_updates=False)
    fr = foldr(lambda v, acc: acc - v * 2.0, sequences=x, outputs_info=one, return_updates=False)
    check([m, r, fr], [x], [np.array([1.0, -2.0, 3.0, 1e150, -1e-150])])


def _hessian():
    x = pt.dvector("x")
    return x, pytensor.gradient.hessian((x**3).sum() * pt.exp(x[0]), x)


def test_jacobian_and_hessian_by_scan():
    x = pt.dvector("x")
    y = pt.tanh(x) * x.sum()
    J = pytensor.gradient.jacobian(y, x, vectorize=False)
    check([J], [x], [np.array([0.3, -1.2, 2.0])])
    x, H = _hessian()
    check_graph([H], [x], [np.array([0.3, -1.2, 2.0])])


def test_hessian_through_mode():
    # The canonicalized Hessian made the optimizer extract a top-level use
    # of a hoisted class through a node reading a body parameter ('the
    # extracted term is not a program'); extract/cost.rs's in_scope fixed it.
    import eqscan.pytensor  # noqa: F401

    x, H = _hessian()
    xs = np.array([0.3, -1.2, 2.0])
    assert_close(pytensor.function([x], H, mode="EQSCAN")(xs), pytensor.function([x], H)(xs))


def test_integer_float32_and_bool_states():
    k = pt.lscalar("k")
    v = pt.fvector("v")
    cnt, acc, flag = scan(
        lambda c, a, v: (c * 3 - 1, a * np.float32(0.5) + v, (a > 0).any()),
        outputs_info=[pt.constant(1, dtype="int64"), pt.zeros(3, dtype="float32"), None],
        non_sequences=v,
        n_steps=k,
    )
    check([cnt, acc, flag], [k, v], [40, np.array([1.0, -2.0, 3.0], dtype="float32")])


def test_constant_and_pass_through_inner_outputs():
    x = pt.dvector("x")
    a, b, c = scan(lambda v: (pt.constant(2.5, dtype="float64"), v, v * 2.0), sequences=x)
    check([a, b, c], [x], [np.array([1.0, 2.0, 4.0])])


def test_grad_go_backwards_and_sequence_taps():
    x = pt.dvector("x")
    w = pt.dscalar("w")
    h0 = pt.dscalar("h0")
    H = scan(
        lambda xm1, xp2, h, w: pt.tanh(w * h + xm1 - 0.5 * xp2),
        sequences=dict(input=x, taps=[-1, 2]),
        outputs_info=h0,
        non_sequences=w,
        go_backwards=True,
    )
    cost = (H**2).sum() + H[-1]
    grads = pytensor.grad(cost, [x, w, h0])
    check([cost, *grads], [x, w, h0], [np.random.default_rng(9).normal(size=8), 0.7, -0.2])


def test_grad_truncated_bptt():
    # truncate_gradient: the backward loop runs fewer steps than the forward
    X = pt.dmatrix("X")
    W = pt.dmatrix("W")
    h0 = pt.dvector("h0")
    H = scan(
        lambda x, h, W: pt.tanh(x + h @ W),
        sequences=X,
        outputs_info=h0,
        non_sequences=W,
        truncate_gradient=3,
    )
    cost = (H**2).sum()
    grads = pytensor.grad(cost, [X, W, h0])
    rng = np.random.default_rng(10)
    check(
        [cost, *grads],
        [X, W, h0],
        [rng.normal(size=(7, 2)), rng.normal(size=(2, 2)), rng.normal(size=2)],
    )


def test_grad_nested_mitsot_inside_sitsot():
    X = pt.dmatrix("X")
    a = pt.dscalar("a")

    def outer(row, h, a):
        inner = scan(
            lambda v, ym2, ym1, a: a * ym1 + ym2 * v,
            sequences=row,
            outputs_info=[dict(initial=pt.stack([h, h * 0.5]), taps=[-2, -1])],
            non_sequences=a,
        )
        return pt.sin(inner[-1])

    H = scan(outer, sequences=X, outputs_info=pt.constant(0.3, dtype="float64"), non_sequences=a)
    cost = (H**2).sum()
    grads = pytensor.grad(cost, [X, a])
    check([cost, *grads], [X, a], [np.random.default_rng(11).normal(size=(3, 4)) * 0.5, 0.6])


def test_shared_weights_and_updates_through_mode():
    # shared weights read in the body (non-sequences) and a counter updated
    # in it: mode EQSCAN returns the default mode's values and updates
    import eqscan.pytensor  # noqa: F401

    W = pytensor.shared(np.array([[0.5, -0.2], [0.1, 0.3]]), name="W")
    count = pytensor.shared(np.float64(0.0), name="count")
    X = pt.dmatrix("X")
    H, upd = pytensor.scan(
        lambda x, h: (pt.tanh(x + h @ W), {count: count + 1.0}),
        sequences=X,
        outputs_info=pt.zeros(2, dtype="float64"),
        return_updates=True,
    )
    xs = np.random.default_rng(12).normal(size=(5, 2))
    f_ref = pytensor.function([X], H, updates=upd)
    want = [f_ref(xs), f_ref(xs)]
    want_count = count.get_value()
    count.set_value(np.float64(0.0))
    f = pytensor.function([X], H, updates=upd, mode="EQSCAN")
    got = [f(xs), f(xs)]
    for g, w in zip(got, want):
        assert_close(g, w)
    assert count.get_value() == want_count == 10.0


def test_fast_run_graph_with_save_mem():
    # a graph PyTensor optimized itself (save-mem'd buffers, in-place ops,
    # fused elementwise): converting its FunctionGraph gives its values
    X = pt.dmatrix("X")
    W = pt.dmatrix("W")
    h0 = pt.dvector("h0")
    H = scan(lambda x, h, W: pt.tanh(x + h @ W), sequences=X, outputs_info=h0, non_sequences=W)
    f = pytensor.function([X, W, h0], [H[-1], H.sum()], mode="FAST_RUN")
    rng = np.random.default_rng(13)
    vals = [rng.normal(size=(6, 2)), rng.normal(size=(2, 2)), rng.normal(size=2)]
    pmap = convert(f.maker.fgraph)
    feeds = {n: v for (var, n), v in zip(pmap.inputs, vals)}
    want = f(*vals)
    for opt in (False, True):
        got = run_text(pmap.text, feeds, optimize=opt)
        for g, w in zip(got, want):
            assert_close(g, w, what=pmap.text)


def test_fast_run_untraced_state():
    # FAST_RUN turns a sit-sot read only at its last step into an untraced
    # sit-sot: its value is the last state
    X = pt.dmatrix("X")
    W = pt.dmatrix("W")
    h0 = pt.dvector("h0")
    H = scan(lambda x, h, W: pt.tanh(x + h @ W), sequences=X, outputs_info=h0, non_sequences=W)
    f = pytensor.function([X, W, h0], H[-1], mode="FAST_RUN")
    assert any(
        getattr(n.op, "info", None) and n.op.info.n_untraced_sit_sot
        for n in f.maker.fgraph.apply_nodes
    )
    pmap = convert(f.maker.fgraph)
    rng = np.random.default_rng(14)
    vals = [rng.normal(size=(5, 2)), rng.normal(size=(2, 2)), rng.normal(size=2)]
    feeds = {n: v for (var, n), v in zip(pmap.inputs, vals)}
    assert_close(run_text(pmap.text, feeds)[0], f(*vals), what=pmap.text)
    # no step: the init
    vals[0] = np.zeros((0, 2))
    feeds = {n: v for (var, n), v in zip(pmap.inputs, vals)}
    assert_close(run_text(pmap.text, feeds)[0], f(*vals), what=pmap.text)


def test_grad_mitsot_with_a_gap_in_its_taps():
    # taps (-3, -1): the backward loop's mit-mot reads slots (0, 3, 1) and
    # writes (3, 1) of its tape
    y0 = pt.tensor("y0", dtype="float64", shape=(3,))
    b = pt.dscalar("b")
    Y = scan(
        lambda ym3, ym1, b: 0.5 * ym1 - pt.sin(ym3) * b,
        outputs_info=[dict(initial=y0, taps=[-3, -1])],
        non_sequences=b,
        n_steps=6,
    )
    cost = (Y**2).sum() + Y[-2]
    grads = pytensor.grad(cost, [y0, b])
    check([cost, *grads], [y0, b], [np.array([0.3, -1.1, 0.7]), 1.3])


def test_no_step_and_empty_sequences():
    # n_steps == 0 and scans over empty sequences give empty outputs
    x0 = pt.dscalar("x0")
    n = pt.iscalar("n")
    values = scan(lambda v: 2.0 * v, outputs_info=x0, n_steps=n)
    check([values], [x0, n], [1.5, 0])
    xs = pt.dvector("xs")
    doubled = scan(lambda v: 2.0 * v, sequences=xs)
    summed = scan(lambda v, acc: acc + v, sequences=xs, outputs_info=x0)
    check([doubled, summed], [xs, x0], [np.zeros(0), 3.0])
    # the last state (which the optimizer keeps one step of; with no step,
    # summed[-1] is an index error as written, whatever FAST_RUN returns)
    check([summed[-1]], [xs, x0], [np.array([1.0, -4.0, 2.5]), 3.0])


def test_only_non_sequence_inputs():
    # the body returns its non-sequence unchanged; its gradient sums the steps
    inp = pt.dmatrix("inp")
    rep = scan(lambda v: v, non_sequences=[inp], n_steps=3)
    out = (rep * pt.arange(1.0, 4.0)[:, None, None]).sum()
    check([rep, pytensor.grad(out, inp)], [inp], [np.array([[1.0, 2.0], [3.0, 4.0]])])


def test_errors_name_what_cannot_be_converted():
    # an op the body uses that eqscan lacks: the error names it
    X = pt.dtensor3("X")
    out = scan(lambda m: pt.linalg.eigh(m)[0], sequences=X)
    with pytest.raises(eqscan.Error, match="Eigh"):
        convert([out], [X])
    # a while loop whose buffer is not n_steps + taps rows long
    x = pt.dvector("x")
    w = scan(
        lambda v, h: (h + v, until(h > 3.0)),
        sequences=x,
        outputs_info=pt.constant(0.0, dtype="float64"),
    )
    node = w.owner.inputs[0].owner
    short = node.op.make_node(node.inputs[0], node.inputs[1], pt.dvector("buf", shape=(2,)))
    with pytest.raises(eqscan.Error, match="while loop"):
        convert([short.outputs[0]], [x, short.inputs[2]])
