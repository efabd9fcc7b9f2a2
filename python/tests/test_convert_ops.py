"""Each converted op: a small PyTensor graph compiled with PyTensor's
default mode against the converted program run by eqscan (as written and
optimized) on the same inputs: f64 within 1e-9 relative, integers exact."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import check_graph as _check_graph


def check_graph(*args, **kwargs):
    """conftest's check, also through ``mode="EQSCAN"`` (PyTensor's
    canonicalized graph converted as the mode converts it)."""
    return _check_graph(*args, eqscan_mode=True, **kwargs)


R = np.random.default_rng(0)


def normal(*shape, scale=1.0):
    return R.normal(size=shape) * scale


def pos(*shape):
    return R.uniform(0.1, 3.0, size=shape)


def ints(*shape, lo=-5, hi=6, dtype="int64"):
    return R.integers(lo, hi, size=shape).astype(dtype)


def spd(n):
    a = R.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


# Extreme magnitudes for the stable ops.
BIG = np.array([-1e300, -745.2, -40.0, -1e-300, 0.0, 1e-300, 30.0, 709.0, 1e300])


def _x(name="x", ndim=1, dtype="float64"):
    return pt.tensor(name, dtype=dtype, shape=(None,) * ndim)


# ---------------------------------------------------------------- elementwise

UNARY = {
    "neg": (pt.neg, normal),
    "exp": (pt.exp, lambda n: normal(n, scale=10)),
    "log": (pt.log, pos),
    "log1p": (pt.log1p, lambda n: R.uniform(-0.9, 5, n)),
    "expm1": (pt.expm1, lambda n: normal(n, scale=1e-3)),
    "sqrt": (pt.sqrt, pos),
    "tanh": (pt.tanh, normal),
    "sigmoid": (pt.sigmoid, lambda n: normal(n, scale=20)),
    "softplus": (pt.softplus, lambda n: normal(n, scale=30)),
    "sin": (pt.sin, normal),
    "cos": (pt.cos, normal),
    "abs": (pt.abs, normal),
    "sign": (pt.sign, lambda n: np.array([-2.0, 0.0, 3.0] * (n // 3 + 1))[:n]),
    "erf": (pt.erf, normal),
    "erfc": (pt.erfc, lambda n: normal(n, scale=4)),
    "gammaln": (pt.gammaln, pos),
    "psi": (pt.psi, pos),
    "floor": (pt.floor, lambda n: normal(n, scale=5)),
    "ceil": (pt.ceil, lambda n: normal(n, scale=5)),
    "round_half_even": (lambda x: pt.round(x, mode="half_to_even"), lambda n: np.array([0.5, 1.5, 2.5, -0.5, -1.7, 2.2] * 2)[:n]),
    "round_half_away": (lambda x: pt.round(x, mode="half_away_from_zero"), lambda n: np.array([0.5, 1.5, 2.5, -0.5, -1.7, 2.2] * 2)[:n]),
    "sqr": (pt.sqr, normal),
    "reciprocal": (pt.reciprocal, pos),
    "exp2": (pt.exp2, normal),
    "log2": (pt.log2, pos),
    "log10": (pt.log10, pos),
    "tan": (pt.tan, normal),
    "sinh": (pt.sinh, normal),
    "cosh": (pt.cosh, normal),
    "trunc": (pt.trunc, lambda n: normal(n, scale=5)),
    "log1mexp": (pt.log1mexp, lambda n: -pos(n)),
    "arctanh": (pt.arctanh, lambda n: R.uniform(-0.999, 0.999, n)),
    "arcsinh": (pt.arcsinh, lambda n: np.array([-1e300, -3.0, -1e-9, 0.0, 0.5, 1e12])[:n]),
    "arccosh": (pt.arccosh, lambda n: np.array([1.0, 1.0 + 1e-12, 1.5, 10.0, 1e9, 1e300])[:n]),
    "deg2rad": (pt.deg2rad, normal),
    "rad2deg": (pt.rad2deg, normal),
    "isnan": (pt.isnan, lambda n: np.array([np.nan, 1.0, np.inf, 0.0] * 3)[:n]),
    "isinf": (pt.isinf, lambda n: np.array([np.nan, 1.0, -np.inf, 0.0] * 3)[:n]),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    f, gen = UNARY[name]
    x = _x()
    check_graph(f(x), [x], [gen(6)])


BINARY = {
    "add": (lambda a, b: a + b, normal, normal),
    "sub": (lambda a, b: a - b, normal, normal),
    "mul": (lambda a, b: a * b, normal, normal),
    "true_div": (lambda a, b: a / b, normal, pos),
    "pow": (lambda a, b: a**b, pos, normal),
    "maximum": (pt.maximum, normal, normal),
    "minimum": (pt.minimum, normal, normal),
    "gt": (pt.gt, normal, normal),
    "ge": (pt.ge, normal, normal),
    "lt": (pt.lt, normal, normal),
    "le": (pt.le, normal, normal),
    "eq": (pt.eq, lambda n: np.arange(n) % 3 * 1.0, lambda n: np.arange(n) % 2 * 1.0),
    "neq": (pt.neq, lambda n: np.arange(n) % 3 * 1.0, lambda n: np.arange(n) % 2 * 1.0),
    "mod": (pt.mod, lambda n: normal(n, scale=7), lambda n: normal(n, scale=2)),
    "int_div": (pt.int_div, lambda n: normal(n, scale=7), lambda n: normal(n, scale=2)),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcast(name):
    f, ga, gb = BINARY[name]
    a = _x("a", 2)
    b = _x("b", 1)
    va = ga(12).reshape(3, 4)
    check_graph(f(a, b), [a, b], [va, gb(4)])


@pytest.mark.parametrize(
    "name,f",
    [
        ("add", lambda a, b: a + b),
        ("mul", lambda a, b: a * b),
        ("int_div", pt.int_div),
        ("mod", pt.mod),
        ("maximum", pt.maximum),
        ("neg_sub", lambda a, b: -a - b),
        ("abs", lambda a, b: abs(a) + b),
        ("true_div", lambda a, b: a / b),
        ("sign", lambda a, b: pt.sign(a) * b),
    ],
)
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_integer_ops(name, f, dtype):
    a = _x("a", 1, dtype)
    b = _x("b", 1, dtype)
    va = ints(8, lo=-20, hi=21, dtype=dtype)
    vb = ints(8, lo=1, hi=6, dtype=dtype) * np.where(np.arange(8) % 2, 1, -1).astype(dtype)
    check_graph(f(a, b), [a, b], [va, vb])


def test_mixed_dtype_promotion():
    a = _x("a", 1, "float32")
    b = _x("b", 1, "float64")
    i = _x("i", 1, "int32")
    k = pt.lscalar("k")
    outs = [a * 2, a * 0.1, a + b, a + i, i + k, i * 2, (i > 1) & (a < 0.5), ~(i > 1), (i > 1) | (a < 0.5)]
    check_graph(
        outs,
        [a, b, i, k],
        [normal(5).astype("float32"), normal(5), ints(5, dtype="int32"), 7],
        rtol=1e-6,
    )


def test_switch_clip():
    x = _x()
    c = _x("c", 1, "bool")
    check_graph(
        [pt.switch(x > 0, x, 2 * x), pt.switch(c, x, -1.0), pt.clip(x, -0.5, 0.7)],
        [x, c],
        [normal(6), np.array([True, False] * 3)],
    )


def test_cast():
    x = _x()
    i = _x("i", 1, "int64")
    outs = [
        pt.cast(x * 10, "int64"),
        pt.cast(x, "float32"),
        pt.cast(i, "float64"),
        pt.cast(i, "int32"),
        pt.cast(x > 0, "int64"),
        pt.cast(i, "bool"),
    ]
    check_graph(outs, [x, i], [normal(6), ints(6)], rtol=1e-6)


def test_composite():
    # The default mode fuses these into a Composite; a FunctionGraph that
    # holds it converts too.
    x = _x()
    y = _x("y")
    f = pytensor.function([x, y], pt.exp(x) * pt.tanh(y) + x**2 - 1.5, mode="FAST_RUN")
    fg = f.maker.fgraph
    from pytensor.scalar import Composite

    assert any(
        isinstance(getattr(n.op, "scalar_op", None), Composite) for n in fg.toposort()
    ), "expected a fused Composite"
    from conftest import assert_close, run_text

    from eqscan.from_pytensor import convert

    pmap = convert(fg)
    vx, vy = normal(5), normal(5)
    want = f(vx, vy)
    feeds = dict(zip([n for _, n in pmap.inputs], [vx, vy]))
    for opt in (False, True):
        (got,) = run_text(pmap.text, feeds, optimize=opt)
        assert_close(got, want)


@pytest.mark.parametrize("name", ["sigmoid", "softplus", "log1p", "expm1", "exp", "tanh", "erfc", "log1mexp"])
def test_extreme_magnitudes(name):
    fs = {
        "sigmoid": pt.sigmoid,
        "softplus": pt.softplus,
        "log1p": lambda x: pt.log1p(pt.abs(x)),
        "expm1": pt.expm1,
        "exp": pt.exp,
        "tanh": pt.tanh,
        "erfc": pt.erfc,
        "log1mexp": lambda x: pt.log1mexp(-pt.abs(x) - 1e-300),
    }
    x = _x()
    with np.errstate(all="ignore"):
        check_graph(fs[name](x), [x], [BIG])


# ---------------------------------------------------------------- shapes


def test_dimshuffle():
    x = _x("x", 3)
    r = pt.tensor("r", shape=(1, None))
    outs = [x.dimshuffle(2, 0, 1), x.dimshuffle("x", 1, 0, 2, "x"), r.dimshuffle(1), x.T, r[0]]
    check_graph(outs, [x, r], [normal(2, 3, 4), normal(1, 5)])


def test_reshape_from_shapes():
    x = _x("x", 2)
    v = _x("v", 1)
    outs = [
        x.reshape((-1,)),
        x.reshape((x.shape[1], x.shape[0])),
        x.reshape((v.shape[0], -1)),
        x.flatten(),
        x.reshape((2, 3, 2)),
        x.reshape((x.shape[0] * x.shape[1],)),
    ]
    check_graph(outs, [x, v], [normal(4, 3), normal(4)])


def test_shape_ops():
    x = _x("x", 2)
    outs = [
        pt.cast(x.shape, "int64"),
        x.shape[1] * 2,
        x.sum() / x.shape[0],
        x.mean(axis=0),
        x.var(),
        pt.specify_shape(x, (None, 3)) + 1,
    ]
    check_graph(outs, [x], [normal(4, 3)])


def test_join_make_vector():
    a = _x("a", 2)
    b = _x("b", 2)
    s = pt.dscalar("s")
    t = pt.dscalar("t")
    outs = [
        pt.concatenate([a, b], axis=0),
        pt.concatenate([a, b, a], axis=1),
        pt.stack([s, t, s * t]),
        pt.stack([a, b]),
        pt.join(-1, a, b),
    ]
    check_graph(outs, [a, b, s, t], [normal(2, 3), normal(2, 3), 1.5, -2.0])


def test_alloc_arange_eye():
    x = _x("x", 1)
    s = pt.dscalar("s")
    outs = [
        pt.zeros((x.shape[0], 3)),
        pt.ones((2, x.shape[0])) * s,
        pt.alloc(s, 3, 2),
        pt.alloc(x, 4, x.shape[0]),
        pt.arange(x.shape[0]),
        pt.arange(2, 11, 3),
        pt.arange(x.shape[0]) * x,
        pt.eye(3),
        pt.zeros_like(x) + pt.ones_like(x) * 2,
        pt.full((2, 2), 7, dtype="int64"),
        pt.empty((2, 3)) * 0,
    ]
    check_graph(outs, [x, s], [normal(5), 2.5])


# ---------------------------------------------------------------- reductions

REDUCTIONS = {
    "sum": lambda x, a: pt.sum(x, axis=a),
    "prod": lambda x, a: pt.prod(x, axis=a),
    "max": lambda x, a: pt.max(x, axis=a),
    "min": lambda x, a: pt.min(x, axis=a),
    "mean": lambda x, a: pt.mean(x, axis=a),
    "all": lambda x, a: pt.all(x > 0, axis=a),
    "any": lambda x, a: pt.any(x > 1, axis=a),
    "argmax": lambda x, a: pt.argmax(x, axis=a),
    "argmin": lambda x, a: pt.argmin(x, axis=a),
    "logsumexp": lambda x, a: pt.logsumexp(x, axis=a),
}


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name, axis):
    if name in ("argmax", "argmin") and axis == (0, 2):
        pytest.skip("argmax over several axes has no eqscan op")
    x = _x("x", 3)
    check_graph(REDUCTIONS[name](x, axis), [x], [normal(2, 3, 4)])


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_integer_reductions(dtype):
    x = _x("x", 2, dtype)
    v = ints(3, 4, lo=-3, hi=4, dtype="int64").astype(dtype)
    outs = [x.sum(), x.sum(axis=0), x.max(axis=1), pt.argmax(x, axis=0), x.prod(axis=1)]
    if dtype == "bool":
        outs = [x.sum(), x.sum(axis=0), pt.all(x, axis=1), pt.any(x)]
    check_graph(outs, [x], [v])


def test_cumulative():
    x = _x("x", 2)
    outs = [pt.cumsum(x, axis=0), pt.cumsum(x, axis=1), pt.cumprod(x, axis=-1), pt.cumsum(x)]
    check_graph(outs, [x], [normal(3, 4)])


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_softmax(axis):
    x = _x("x", 2)
    outs = [pt.special.softmax(x, axis=axis), pt.special.log_softmax(x, axis=axis)]
    check_graph(outs, [x], [normal(3, 4)])


def test_stable_ops_extreme():
    x = _x("x", 2)
    v = np.array([[1e300, -1e300, 0.0, 700.0], [-800.0, -900.0, -1000.0, -np.inf], [1e-300, 2.0, 3.0, 710.0]])
    outs = [
        pt.special.softmax(x, axis=1),
        pt.special.log_softmax(x, axis=1),
        pt.logsumexp(x, axis=1),
        pt.special.softmax(x, axis=0),
    ]
    with np.errstate(all="ignore"):
        check_graph(outs, [x], [v])


# ---------------------------------------------------------------- products


def test_dot_matmul():
    A = _x("A", 3)
    B = _x("B", 2)
    v = _x("v", 1)
    w = _x("w", 1)
    outs = [pt.dot(B, v), pt.dot(v, B.T), pt.dot(B, B.T), pt.dot(v, w), A @ B.T, B @ v, pt.outer(v, w), pt.tensordot(B, B, axes=[[1], [1]])]
    check_graph(outs, [A, B, v, w], [normal(2, 3, 4), normal(3, 4), normal(4), normal(4)])


def test_blas_ops():
    """The BLAS ops a user's FunctionGraph may hold (built directly: this
    PyTensor's default mode does not introduce them)."""
    import pytensor.tensor.blas as blas

    A = _x("A", 2)
    B = _x("B", 2)
    C = _x("C", 2)
    v = _x("v", 1)
    w = _x("w", 1)
    a = pt.dscalar("a")
    outs = [
        blas.gemv_no_inplace(w, a, A, v, pt.constant(0.5, dtype="float64")),
        blas.gemv_no_inplace(w, a, A, v, pt.constant(0.0, dtype="float64")),
        blas.gemm_no_inplace(C, a, A, B, pt.constant(2.0, dtype="float64")),
        blas.ger(A, a, v, w),
        blas._dot22(A, B),
        blas._dot22scalar(A, B, a),
        blas.BatchedDot()(pt.stack([A, B]), pt.stack([B, C])),
    ]
    check_graph(outs, [A, B, C, v, w, a], [normal(3, 3), normal(3, 3), normal(3, 3), normal(3), normal(3), 1.7])


# ---------------------------------------------------------------- indexing


def test_subtensor_basic():
    x = _x("x", 3)
    i = pt.lscalar("i")
    outs = [
        x[1],
        x[-1, 2],
        x[1:3],
        x[::-1],
        x[:, 1],
        x[:, :, -2],
        x[0, 1:, ::2],
        x[:, ::-2, 1],
        x[i],
        x[:, i],
        x[i, -1, i],
        x[1:, i],
    ]
    check_graph(outs, [x, i], [normal(4, 5, 3), 2])


def test_inc_set_subtensor():
    x = _x("x", 2)
    y = _x("y", 1)
    i = pt.lscalar("i")
    outs = [
        pt.set_subtensor(x[0], y),
        pt.inc_subtensor(x[i], y),
        pt.set_subtensor(x[1:3], 0.0),
        pt.inc_subtensor(x[::2], y),
        pt.set_subtensor(x[:, 1], 9.0),
        pt.inc_subtensor(x[:, 2], x[:, 0]),
        pt.set_subtensor(x[1:, -1], 5.0),
        pt.inc_subtensor(x[1, 2], 4.0),
        pt.set_subtensor(x[:, ::-1], x),
    ]
    check_graph(outs, [x, y, i], [normal(4, 3), normal(3), 3])


def test_advanced_indexing():
    x = _x("x", 2)
    idx = _x("idx", 1, "int64")
    idx2 = _x("idx2", 2, "int64")
    outs = [
        x[idx],
        x[:, idx],
        x[idx2],
        pt.inc_subtensor(x[idx], 1.0),
        pt.set_subtensor(x[idx], -2.0),
        pt.inc_subtensor(x[idx], x[idx] * 3),
        pt.inc_subtensor(x[:, idx], 2.0),
        x[-1:][idx[:1] * 0],
        x[idx, idx[::-1] % 3],
        x[idx2, 1],
        pt.inc_subtensor(x[idx, idx[::-1] % 3], 1.5),
        pt.set_subtensor(x[idx[1:], 0], 7.0),
    ]
    check_graph(outs, [x, idx, idx2], [normal(4, 3), np.array([0, 2, 2, -1]), np.array([[0, 1], [3, 3]])])


# ---------------------------------------------------------------- linear algebra


def test_linalg():
    A = _x("A", 2)
    S = _x("S", 2)
    b = _x("b", 1)
    Bm = _x("Bm", 2)
    L = pt.linalg.cholesky(S)
    outs = [
        pt.linalg.cholesky(S),
        pt.linalg.solve(A, b),
        pt.linalg.solve(A, Bm),
        pt.linalg.solve_triangular(L, b, lower=True),
        pt.linalg.solve_triangular(L.T, Bm, lower=False),
        pt.linalg.inv(A),
        pt.linalg.det(A),
        pt.linalg.slogdet(S)[1],
        pt.linalg.cho_solve((L, True), b),
    ]
    check_graph(outs, [A, S, b, Bm], [normal(4, 4) + 4 * np.eye(4), spd(4), normal(4), normal(4, 2)], rtol=1e-8)


def test_batched_linalg():
    A = _x("A", 3)
    b = _x("b", 2)
    outs = [pt.linalg.solve(A, b, b_ndim=1), pt.linalg.inv(A), pt.linalg.det(A), A @ A]
    va = normal(2, 3, 3) + 3 * np.eye(3)
    check_graph(outs, [A, b], [va, normal(2, 3)], rtol=1e-8)


# ---------------------------------------------------------------- gradients


def test_grad_mlp():
    X = _x("X", 2)
    W = _x("W", 2)
    b = _x("b", 1)
    y = _x("y", 1, "int64")
    h = pt.tanh(X @ W + b)
    p = pt.special.softmax(h, axis=1)
    loss = -pt.mean(pt.log(p[pt.arange(y.shape[0]), y]))
    gW, gb = pytensor.grad(loss, [W, b])
    check_graph([loss, gW, gb], [X, W, b, y], [normal(5, 3), normal(3, 4), normal(4), np.array([0, 3, 1, 1, 2])])


def test_grad_elementwise_and_indexing():
    x = _x("x", 1)
    A = _x("A", 2)
    cost = (pt.sigmoid(x[1:]) ** 2).sum() + (A[:, 0] * x[:3]).sum() + pt.logsumexp(A, axis=1).sum() + (A**2)[1:, ::2].sum()
    gx, gA = pytensor.grad(cost, [x, A])
    check_graph([cost, gx, gA], [x, A], [normal(4), normal(3, 4)])


def test_grad_linalg_and_reductions():
    A = _x("A", 2)
    v = _x("v", 1)
    S = A @ A.T + 3 * pt.eye(3)
    cost = pt.linalg.slogdet(S)[1] + pt.dot(v, pt.linalg.solve(S, v)) + pt.max(A, axis=1).sum() + pt.prod(A[0])
    gA, gv = pytensor.grad(cost, [A, v])
    check_graph([cost, gA, gv], [A, v], [normal(3, 3), normal(3)], rtol=1e-8)


def test_grad_advanced_inc():
    E = _x("E", 2)
    idx = _x("idx", 1, "int64")
    w = _x("w", 1)
    emb = E[idx]
    cost = (pt.tanh(emb @ w) ** 2).sum()
    gE, gw = pytensor.grad(cost, [E, w])
    check_graph([cost, gE, gw], [E, idx, w], [normal(5, 3), np.array([1, 4, 1, 0]), normal(3)])


# ---------------------------------------------------------------- errors


def test_unknown_op_names_it():
    import eqscan
    from eqscan.from_pytensor import convert

    x = pt.matrix("x")
    with pytest.raises(eqscan.Error, match=r"Eigh.*output"):
        convert([pt.linalg.eigh(x)[0]], [x])


def test_unknown_scalar_op_names_it():
    import eqscan
    from eqscan.from_pytensor import convert

    x = pt.vector("x")
    with pytest.raises(eqscan.Error, match="ArcTan2|arctan2"):
        convert([pt.arctan2(x, x)], [x])


def test_boolean_mask_with_a_partial_slice_is_an_error():
    import eqscan
    from eqscan.from_pytensor import convert

    x = pt.matrix("x")
    m = pt.vector("m", dtype="bool")
    with pytest.raises(eqscan.Error, match="boolean"):
        convert([x[m, 1:]], [x, m])


def test_boolean_masks():
    """``x[mask]`` is ``compress`` (run-time length); updates through a mask
    are ``where`` / ``uncompress``; gradients put rows back."""
    x = _x("x", 1)
    M = _x("M", 2)
    mk = _x("mk", 1, "bool")
    outs = [
        x[x > 0],
        M[M > 0],
        M[mk],
        (x[x > 0] ** 2).sum(),
        pt.set_subtensor(x[x > 0], 0.0),
        pt.inc_subtensor(M[M < 0], 1.0),
        pt.set_subtensor(M[mk], M[mk] * 2),
        pt.inc_subtensor(x[x > 0], x[x > 0]),
    ]
    grads = pytensor.grad((x[x > 0] ** 3).sum() + (M[mk] ** 2).sum(), [x, M])
    check_graph(
        outs + grads,
        [x, M, mk],
        [np.array([1.0, -2.0, 3.0, 0.0]), np.array([[1.0, -1.0], [-2.0, 2.0], [0.5, 0.0]]), np.array([True, False, True])],
    )


def test_missing_input_is_an_error():
    import eqscan
    from eqscan.from_pytensor import convert

    x = pt.vector("x")
    y = pt.vector("y")
    with pytest.raises(eqscan.Error, match="neither in `inputs`"):
        convert([x + y], [x])


# ---------------------------------------------------------------- more shapes


def test_diagonals_triangles_split_roll():
    x = _x("x", 2)
    r = _x("r", 2)
    v = _x("v", 1)
    outs = [
        pt.tril(x),
        pt.triu(x, 1),
        pt.diag(x),
        pt.diagonal(r, 1),
        pt.diagonal(r, -1),
        pt.trace(x) if hasattr(pt, "trace") else pt.diag(x).sum(),
        pt.diag(v),
        pt.eye(3, 4, k=1),
        pt.split(v, [2, 3], n_splits=2)[1],
        pt.roll(v, 2),
    ]
    check_graph(outs, [x, r, v], [normal(4, 4), normal(3, 5), normal(5)])


@pytest.mark.parametrize(
    "mk",
    [
        lambda v, i, j: v[i:],
        lambda v, i, j: v[:i],
        lambda v, i, j: v[i:j],
        lambda v, i, j: v[-i:],
        lambda v, i, j: v[i::2],
        lambda v, i, j: v[j:i:-1],
        lambda v, i, j: v[:i:-2],
        lambda v, i, j: v[i:100],
    ],
    ids=["from", "to", "between", "neg", "step2", "neg_step", "neg_step2", "clamped"],
)
def test_run_time_slice_bounds(mk):
    v = _x("v", 1)
    i = pt.lscalar("i")
    j = pt.lscalar("j")
    check_graph(mk(v, i, j), [v, i, j], [normal(7), 2, 5])


def test_run_time_slice_updates():
    x = _x("x", 2)
    i = pt.lscalar("i")
    outs = [
        pt.set_subtensor(x[i:], 0.0),
        pt.inc_subtensor(x[:, :i], 1.0),
        (x[i:] ** 2).sum(),
        x[i:, 1],
        x[1, ::-1][:i],
        pt.set_subtensor(x[i:, 1], -3.0),
        pt.inc_subtensor(x[1:, -i:], x[1:, :i]),
    ]
    g = pytensor.grad(outs[2], x)
    check_graph(outs + [g], [x, i], [normal(4, 3), 1])


def test_narrow_dtypes_widen():
    """int8/uint8/int16 inputs are i32 in the program, float16 f32; values
    that fit give PyTensor's values (float16: PyTensor's default mode does
    not run it)."""
    a = _x("a", 1, "int8")
    u = _x("u", 1, "uint8")
    s = _x("s", 1, "int16")
    outs = [a + 1, a * u, s - a, pt.exp(a), (a > 0) & (u < 3), pt.cast(a, "float64") / 3, a.sum()]
    check_graph(
        outs,
        [a, u, s],
        [np.array([-3, 0, 5], "int8"), np.array([1, 2, 3], "uint8"), np.array([300, -2, 7], "int16")],
        rtol=1e-6,
    )


def test_grad_through_shape_ops():
    x = _x("x", 1)
    A = _x("A", 2)
    j = pt.concatenate([x, x[::-1] * 2])
    r = j.reshape((2, -1))
    s = pt.stack([r[0], r[1] ** 2])
    c = pt.cumsum(s, axis=1)
    u = pt.set_subtensor(A[0], x[:3])
    cost = (c * pt.sin(c)).sum() + (u @ A.T).sum() + pt.split(x, [1, 3], n_splits=2)[1].prod()
    gx, gA = pytensor.grad(cost, [x, A])
    check_graph([cost, gx, gA], [x, A], [normal(4), normal(3, 3)])


def test_hessian_vector_product():
    x = _x("x", 1)
    W = _x("W", 2)
    cost = pt.logsumexp(W @ pt.tanh(x)) + (x**3).sum()
    g = pytensor.grad(cost, x)
    hv = pytensor.grad((g * pt.constant(np.array([1.0, -2.0, 0.5]))).sum(), x)
    check_graph([g, hv], [x, W], [normal(3), normal(4, 3)])


def test_scalar_reshape_and_empty_arrays():
    x = _x("x", 1)
    M = _x("M", 2)
    outs = [x.reshape(()), pt.as_tensor(np.zeros((0,))).sum() + x[0], M.sum(axis=0), M.T @ M, M.shape[0]]
    check_graph(outs, [x, M], [np.array([2.5]), np.zeros((0, 3))])


# ---------------------------------------------------------------- layers


def test_attention_layernorm_grad():
    Q = _x("Q", 3)
    K = _x("K", 3)
    V = _x("V", 3)
    g = _x("g", 1)
    s = (Q @ K.transpose(0, 2, 1)) / np.sqrt(4.0)
    a = pt.special.softmax(s, axis=-1)
    o = a @ V
    mu = o.mean(axis=-1, keepdims=True)
    var = ((o - mu) ** 2).mean(axis=-1, keepdims=True)
    ln = (o - mu) / pt.sqrt(var + 1e-5) * g
    cost = (ln**2).sum()
    grads = pytensor.grad(cost, [Q, K, V, g])
    check_graph([cost] + grads, [Q, K, V, g], [normal(2, 3, 4), normal(2, 5, 4), normal(2, 5, 4), normal(4)], rtol=1e-8)


def test_gru_and_lstm_cells_grad():
    x = _x("x", 2)
    h = _x("h", 2)
    c = _x("c", 2)
    W = _x("W", 2)
    U = _x("U", 2)
    b = _x("b", 1)
    n = 3
    z = pt.sigmoid(x @ W[:, :n] + h @ U[:, :n] + b[:n])
    r = pt.sigmoid(x @ W[:, n : 2 * n] + h @ U[:, n : 2 * n] + b[n : 2 * n])
    hh = pt.tanh(x @ W[:, 2 * n : 3 * n] + (r * h) @ U[:, 2 * n : 3 * n] + b[2 * n : 3 * n])
    h_gru = (1 - z) * h + z * hh
    gates = x @ W + h @ U + b
    i_, f_, o_ = (pt.sigmoid(gates[:, k * n : (k + 1) * n]) for k in range(3))
    c_new = f_ * c + i_ * pt.tanh(gates[:, 3 * n : 4 * n])
    h_lstm = o_ * pt.tanh(c_new)
    cost = (h_gru**2).sum() + (h_lstm * c_new).sum()
    grads = pytensor.grad(cost, [W, U, b, h])
    check_graph(
        [cost] + grads,
        [x, h, c, W, U, b],
        [normal(2, 4), normal(2, 3), normal(2, 3), normal(4, 12), normal(3, 12), normal(12)],
    )


def test_float32_model_grad():
    X = _x("X", 2, "float32")
    W = _x("W", 2, "float32")
    b = _x("b", 1, "float32")
    h = pt.nnet_relu(X @ W + b) if hasattr(pt, "nnet_relu") else pt.maximum(X @ W + b, 0)
    p = pt.special.log_softmax(h * np.float32(0.5), axis=1)
    cost = -p[:, 0].mean() + np.float32(1e-3) * (W**2).sum()
    grads = pytensor.grad(cost, [W, b])
    assert cost.dtype == "float32" and all(g.dtype == "float32" for g in grads)
    check_graph(
        [cost] + grads,
        [X, W, b],
        [normal(4, 3).astype("float32"), normal(3, 5).astype("float32"), normal(5).astype("float32")],
        rtol=1e-5,
    )
