"""FunctionGraphs a user may pass: after PyTensor's FAST_RUN and
FAST_COMPILE rewrites (fused Composites, Assert-guarded shapes, BLAS-ready
dots, inplace ops) they convert and compute what PyTensor's function does."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import assert_close, run_text

from eqscan.from_pytensor import convert

R = np.random.default_rng(0)
X = pt.matrix("X")
W = pt.matrix("W")
b = pt.vector("b")
y = pt.lvector("y")
v = pt.vector("v")
i = pt.lscalar("i")


def _mlp():
    h = pt.tanh(X @ W + b)
    p = pt.special.softmax(h, axis=1)
    loss = -pt.mean(pt.log(p[pt.arange(y.shape[0]), y]))
    return [X, W, b, y], [loss] + pytensor.grad(loss, [W, b])


GRAPHS = {
    "mlp_grad": _mlp,
    "stable": lambda: ([X], [pt.logsumexp(X, axis=1), pt.special.log_softmax(X, axis=0)]),
    "indexing": lambda: (
        [X, y, i],
        [pt.inc_subtensor(X[y], 1.0), X[i:, 1], pt.set_subtensor(X[:, i], 0.0)],
    ),
    "linalg": lambda: (
        [X, v],
        [pt.linalg.solve(X @ X.T + 3 * pt.eye(X.shape[0]), v), pytensor.grad(pt.linalg.det(X), X)],
    ),
    "reductions": lambda: (
        [X],
        [X.max(axis=0), pt.argmax(X, axis=1), X.var(axis=1), pytensor.grad(X.prod(), X), pytensor.grad(X.max(), X)],
    ),
    "fused": lambda: ([X, v], [pt.exp(X) * pt.tanh(v) + X**2 - 1.5, pt.sigmoid(X).sum(axis=0) * v]),
}
VALS = {
    "X": R.normal(size=(3, 3)) + 2 * np.eye(3),
    "W": R.normal(size=(3, 3)),
    "b": R.normal(size=3),
    "y": np.array([0, 2, 1]),
    "v": R.normal(size=3),
    "i": 1,
}


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_rewritten_fgraph(name, mode):
    ins, outs = GRAPHS[name]()
    f = pytensor.function(ins, outs, mode=mode)
    want = f(*[VALS[t.name] for t in ins])
    pmap = convert(f.maker.fgraph)
    feeds = {n: VALS[var.name] for var, n in pmap.inputs}
    for opt in (False, True):
        got = run_text(pmap.text, feeds, optimize=opt)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_close(g, w, what=f"{name} {mode}\n{pmap.text}")


def test_fast_run_lu_solve_is_solve():
    """FAST_RUN writes solve(A, b) (and inv(A) @ b) as an LU factorization
    and two triangular solves: converted back to solve."""
    B = pt.matrix("B")
    f = pytensor.function([X, v, B], [pt.linalg.solve(X, v), pt.linalg.solve(X, B), pt.linalg.inv(X) @ v], mode="FAST_RUN")
    names = {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    assert "LUFactor" in names, names
    vals = [VALS["X"], VALS["v"], R.normal(size=(3, 2))]
    want = f(*vals)
    pmap = convert(f.maker.fgraph)
    assert "(solve " in pmap.text and "__unconverted" not in pmap.text
    got = run_text(pmap.text, {n: val for (var, n), val in zip(pmap.inputs, vals)})
    for g, w in zip(got, want):
        assert_close(g, w)


def test_lu_factor_read_elsewhere_is_an_error():
    import eqscan
    from pytensor.tensor.linalg import LUFactor

    lu, piv = LUFactor()(X)
    with pytest.raises(eqscan.Error, match="LUFactor"):
        convert([lu.sum()], [X])
