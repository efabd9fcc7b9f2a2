#!/usr/bin/env python3
"""NumPy references for the data-driven op and scan cases of eqscan.

Every case is a program file `tests/cases/<group>/<name>.sexp` (group `ops` or
`scan`). Its leading comments may say

    ; dims: T=5 N=3        symbolic sizes to bind
    ; scale: A=0.0625      per-input scales for the data rule (default 1)

The inputs come from the data rule of `bench/WORKLOADS.md` (the same rule as
eqscan's `generate_inputs` and `eqscan run --gen`): for the k-th input in
declaration order, the element at row-major flat index i is

    value = 0.5 * sin(0.37 * i + 1.3 * k) * scale        (float64)

and an `f32` input gets `value.astype(float32)`, an `i64` input
`np.round(10 * value).astype(int64)` (half to even), an `i32` input that
i64 value `.astype(int32)` (its low 32 bits), a `bool` input
`value > 0`.

This file holds, for each case, a NumPy function that computes the expected
outputs from those inputs, written independently of eqscan (scans as plain
Python loops over the steps, with the semantics of `pytensor.scan`). Running

    python3 tests/numpy_cases.py            # from the repository root (NumPy 2)

regenerates ALL expectations: it writes `tests/cases/<group>/<name>.expected/
out_K.npy` for every case (removing stale files) and fails if a case file has
no reference function or a reference has no case file. `--only NAME` limits
it to some cases; `--fail-fixtures` (re)writes the small `.npy` files under
`tests/fixtures/npy/` that the bad-input suite (`tests/bad_input.rs`) uses.

`tests/cases.rs` runs each case through eqscan and compares with these files
(dtype and shape equal; values within rtol 1e-9, atol 1e-12; nan equals nan).
"""
import argparse
import os
import re
import shutil
import sys
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests", "cases")
GROUPS = ("ops", "scan")
DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32,
          "bool": np.bool_}

f64, f32, i64, i32 = np.float64, np.float32, np.int64, np.int32

# ------------------------------------------------------------ case programs


def tokenize(text):
    text = re.sub(r";[^\n]*", " ", text)
    return re.findall(r"\(|\)|[^\s()]+", text)


def read_sexp(tokens):
    stack = [[]]
    for t in tokens:
        if t == "(":
            stack.append([])
        elif t == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(t)
    assert len(stack) == 1, "unbalanced parentheses"
    return stack[0]


def read_case(path):
    """(inputs, dims, scales): inputs as [(name, dtype, [dim, ...])]."""
    text = open(path, encoding="utf-8").read()
    dims, scales = {}, {}
    for line in text.splitlines():
        m = re.match(r"\s*;\s*(dims|scale):(.*)$", line)
        if not m:
            continue
        for item in m.group(2).split():
            k, v = item.split("=")
            if m.group(1) == "dims":
                dims[k] = int(v)
            else:
                scales[k] = float(v)
    (prog,) = read_sexp(tokenize(text))
    assert prog[0] == "program", path
    inputs = []
    for clause in prog[2:]:
        if isinstance(clause, list) and clause[0] == "input":
            name, ty = clause[1], clause[2]
            inputs.append((name, ty[0], ty[1:]))
    return inputs, dims, scales


def data_rule(k, shape, dtype, scale):
    """The k-th input of the given shape and dtype (see the module docstring)."""
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n, dtype=np.float64)
    v = (0.5 * np.sin(0.37 * i + 1.3 * k) * scale).reshape(shape)
    if dtype == "f64":
        return v
    if dtype == "f32":
        return v.astype(np.float32)
    if dtype == "i64":
        return np.round(10 * v).astype(np.int64)
    if dtype == "i32":
        return np.round(10 * v).astype(np.int64).astype(np.int32)
    if dtype == "bool":
        return v > 0
    raise ValueError(dtype)


def make_inputs(inputs, dims, scales):
    out = {}
    for k, (name, dtype, shape) in enumerate(inputs):
        shp = tuple(int(d) if re.fullmatch(r"-?\d+", d) else dims[d] for d in shape)
        out[name] = data_rule(k, shp, dtype, scales.get(name, 1.0))
    return out


# --------------------------------------------------------------- references

REFS = {g: {} for g in GROUPS}


def ops(fn):
    REFS["ops"][fn.__name__] = fn
    return fn


def scan(fn):
    REFS["scan"][fn.__name__] = fn
    return fn


def sigmoid(x):
    with np.errstate(over="ignore"):
        return np.where(x >= 0, 1.0 / (1.0 + np.exp(-x)), np.exp(x) / (1.0 + np.exp(x)))


# ---- elementwise, unary

@ops
def unary_neg(d, n):
    return (-d["X"],)


@ops
def unary_exp(d, n):
    return (np.exp(d["X"]),)


@ops
def unary_log(d, n):
    return (np.log(np.abs(d["X"]) + 1.0),)


@ops
def unary_log_zero(d, n):
    return (np.log(np.abs(d["X"])),)


@ops
def unary_log1p(d, n):
    return (np.log1p(np.abs(d["X"])),)


@ops
def unary_sqrt(d, n):
    return (np.sqrt(np.abs(d["X"])),)


@ops
def unary_tanh(d, n):
    return (np.tanh(d["X"]),)


@ops
def unary_sigmoid(d, n):
    return (sigmoid(d["X"]),)


@ops
def unary_sigmoid_extreme(d, n):
    return (sigmoid(d["X"] * 4000.0),)


def _scipy_special():
    import scipy.special
    return scipy.special


def _special_outputs(x):
    sp = _scipy_special()
    with np.errstate(all="ignore"):
        return (np.expm1(x), np.logaddexp(0.0, x), np.floor(x), np.ceil(x), np.round(x),
                sp.erf(x), sp.erfc(x), sp.gammaln(x), sp.digamma(x), sp.polygamma(1, x))


@ops
def unary_special(d, n):
    return _special_outputs(d["X"])


@ops
def unary_special_extreme(d, n):
    sp = _scipy_special()
    x = d["X"]
    t = x * 1e-306
    with np.errstate(all="ignore"):
        return (np.expm1(x), np.logaddexp(0.0, x), np.round(x), sp.erf(x), sp.erfc(x),
                sp.gammaln(x), sp.digamma(x), sp.polygamma(1, x),
                np.expm1(t), np.logaddexp(0.0, t), sp.erfc(t), sp.digamma(t),
                sp.polygamma(1, t), sp.gammaln(t))


@ops
def unary_round_dtypes(d, n):
    k, b, f = d["K"], d["B"], d["F"]
    h = np.array([-2.5, -1.5, -0.5, 0.5, 2.5, 3.5])
    return (np.floor(k), np.ceil(k), np.round(k), np.floor(b), np.ceil(b), np.round(h),
            np.floor(f), np.round(f))


@ops
def binary_mod_floor_div(d, n):
    x = d["X"]
    a = np.array([7.5, -7.5, 7.5, -7.5, 0.0, 5.0, -0.0, 1.0, 1e300])
    b = np.array([2.0, 2.0, -2.0, -2.0, 0.0, np.inf, 3.0, -np.inf, 3e-300])
    i = np.array([7, -7, 7, -7, 0, 9223372036854775807], dtype=np.int64)
    j = np.array([3, 3, -3, -3, 0, -2], dtype=np.int64)
    p = np.array([True, False])
    t = np.array([True, True])
    c = np.array([3.0, -3.0, 0.5, 7.0])
    with np.errstate(all="ignore"):
        return (np.mod(a, b), np.floor_divide(a, b), np.mod(i, j), np.floor_divide(i, j),
                np.mod(x * 10.0, c), np.floor_divide(x * 10.0, c),
                np.mod(p, t).astype(np.int64), np.floor_divide(p, t).astype(np.int64))


def _logsumexp(x, axis=None):
    return _scipy_special().logsumexp(x, axis=axis)


@ops
def reduce_logsumexp(d, n):
    x, k = d["X"], d["K"]
    e = np.array([[-np.inf, -np.inf, -np.inf], [1.0, np.inf, 2.0], [1e308, 1e308, -1e308],
                  [3.0, np.nan, 1.0]])
    with np.errstate(all="ignore"):
        return (_logsumexp(x), _logsumexp(x, 0), _logsumexp(x, -1), _logsumexp(x * 1000.0, 1),
                _logsumexp(e, 1), _logsumexp(k.astype(np.float64)),
                _logsumexp(k.astype(np.float64), 0))


@ops
def normalize_softmax(d, n):
    sp = _scipy_special()
    x, k = d["X"], d["K"].astype(np.float64)
    e = np.array([[-np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf], [1.0, np.inf, 2.0],
                  [3.0, np.nan, 1.0]])
    with np.errstate(all="ignore"):
        return (sp.softmax(x, 0), sp.softmax(x, -1), sp.log_softmax(x, 0), sp.log_softmax(x, -1),
                sp.softmax(x * 1000.0, 1), sp.log_softmax(x * 1000.0, 1),
                sp.softmax(e, 1), sp.log_softmax(e, 1), sp.softmax(k, 1), sp.log_softmax(k, 0))


@ops
def reduce_arg_truth(d, n):
    x, k = d["X"], d["K"]
    t = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, -1.0, -1.0]])
    z = np.array([[0.0, -0.0], [np.nan, 0.0]])
    b = x > 0.0
    return (np.argmax(x), np.argmax(x, 0), np.argmin(x, -1), np.argmax(t, 1), np.argmin(t, 1),
            np.argmin(k, 0), np.argmax(b, 1), np.all(z, 1), np.any(z, 1), np.all(x), np.any(b, 0),
            np.all(k), np.any(k == 100))


@ops
def clip_bounds(d, n):
    x, k, b, lo = d["X"], d["K"], d["B"], d["L"]
    e = np.array([np.nan, -np.inf, np.inf, 1e308, -1e308, 0.25])
    with np.errstate(all="ignore"):
        return (np.clip(x, -0.25, 0.3), np.clip(x, lo, 0.4), np.clip(x, x[0], x[2]),
                np.clip(e, -1.0, 1.0), np.clip(e, 1.0, -1.0), np.clip(e, -np.inf, 1e308),
                np.clip(x, 0.1, np.nan), np.clip(k, 0.5, 2.5), np.clip(k, -2, 3),
                np.clip(b, False, True), np.clip(x * 1e308, -1e300, 1e300))


@ops
def eye_outer(d, n):
    x, k, b = d["X"], d["K"], d["B"]
    with np.errstate(all="ignore"):
        return (np.eye(3), np.eye(3, 5), np.eye(4, 2), np.eye(n["N"], dtype=np.int64),
                np.eye(2, 3, dtype=bool), np.eye(0, 3),
                np.outer(x[0], x[1]), np.outer(x[2], k), np.outer(k, k), np.outer(b, b),
                np.outer(x[0], np.zeros(0)),
                np.outer(np.array([1e200, -1e200]), np.array([1e200, 1e-200, 0.0])))


def _set(x, key, v):
    y = x.copy()
    y[key] = v
    return y


@ops
def update_set(d, n):
    x, k, b = d["X"], d["K"], d["B"]
    s = _set(x, 1, 7.0)
    return (s, _set(x, -1, x[0]), _set(x, (2, -1), -2.5), _set(x, slice(None, None, -2), x[3]),
            _set(x, slice(1, 3, 1), 0.0), _set(x, slice(0, 2), np.array([[1e308], [-1e308]])),
            _set(x, slice(5, None), 9.0), _set(k, 0, 100), _set(k, slice(-2, None), k[0]),
            _set(b, 0, True), np.sum(x), s - x)


def _add_at(x, idx, g, axis=0):
    y = np.moveaxis(x.copy(), axis, 0)
    g = np.broadcast_to(g, np.take(x, idx, axis=axis).shape)
    g = np.moveaxis(g, list(range(axis, axis + np.ndim(idx))), list(range(np.ndim(idx))))
    np.add.at(y, idx, g)
    return np.moveaxis(y, 0, axis)


def _set_at(x, idx, v, axis=0):
    y = np.moveaxis(x.copy(), axis, 0)
    v = np.broadcast_to(v, np.take(x, idx, axis=axis).shape)
    v = np.moveaxis(v, list(range(axis, axis + np.ndim(idx))), list(range(np.ndim(idx))))
    flat = np.reshape(idx, -1)
    rows = np.reshape(v, (flat.size,) + y.shape[1:])
    for i, r in zip(flat, rows):  # in order: the last write wins
        y[i] = r
    return np.moveaxis(y, 0, axis)


@ops
def take_family(d, n):
    x, k, g = d["X"], d["K"], d["G"]
    j = np.array([3, -1, 0, 3, 1])
    j2 = np.array([[0, -1, 0], [2, 2, 1]])
    z = np.zeros(0, dtype=np.int64)
    return (np.take(x, j, 0), np.take(x, j2, 0), np.take(x, 2, 0), np.take(x, j2, 1),
            np.take(x, [2, -3, 2], -1), np.take(x, z, 0), np.take(k, j, 0),
            _add_at(x, j, g), _add_at(x, j, 1.0), _add_at(x, j2, x[0]), _add_at(x, j2, 0.5, 1),
            _add_at(k, j, 3), _add_at(x, z, g[0]),
            _set_at(x, j, g), _set_at(x, j2, -1.0), _set_at(x, j2, g[0], 1), _set_at(k, j, 7),
            _set_at(x > 0.0, j, True))


@ops
def unary_sin(d, n):
    return (np.sin(d["X"]),)


@ops
def unary_cos(d, n):
    return (np.cos(d["X"]),)


@ops
def unary_abs(d, n):
    return (np.abs(d["X"]),)


@ops
def unary_sign(d, n):
    return (np.sign(d["X"]),)


@ops
def unary_i64(d, n):
    K = d["K"]
    return (-K, np.abs(K), np.sign(K), np.exp(K), np.sin(K))


@ops
def unary_f32(d, n):
    X = d["X"]
    return (-np.sqrt(np.abs(X)), np.abs(X))


@ops
def unary_chain(d, n):
    return (np.tanh(np.sin(np.exp(d["X"]))),)


# ---- elementwise, binary; promotion

@ops
def binary_add_broadcast(d, n):
    return (d["A"] + d["b"], d["b"] + d["A"])


@ops
def binary_sub_column(d, n):
    return (d["A"] - d["c"],)


@ops
def binary_mul_outer(d, n):
    return (d["a"] * d["b"],)


@ops
def binary_div(d, n):
    return (d["A"] / (np.abs(d["B"]) + 0.5),)


@ops
def binary_div_zero(d, n):
    X = d["X"]
    return (X / (X - X),)


@ops
def binary_pow(d, n):
    A, B = d["A"], d["B"]
    return (np.abs(A) ** B, A ** 2.0, 2.0 ** A)


@ops
def binary_pow_nan(d, n):
    return (d["X"] ** 0.5,)


@ops
def binary_pow_i64(d, n):
    K, J = d["K"], d["J"]
    return (K ** 2, K ** np.abs(J))


@ops
def binary_maximum_minimum(d, n):
    A, B = d["A"], d["B"]
    return (np.maximum(A, B), np.minimum(A, B), np.maximum(A, 0.0))


@ops
def binary_maximum_nan(d, n):
    lx, Y = np.log(d["X"]), d["Y"]
    return (np.maximum(lx, Y), np.minimum(lx, Y), np.maximum(Y, lx))


@ops
def binary_literal_left(d, n):
    X = d["X"]
    return (1.0 - X, 2.0 / (np.abs(X) + 1.0), 3 * X)


@ops
def binary_i64(d, n):
    K, J = d["K"], d["J"]
    return (K + J, K - 3, K * J, np.maximum(K, J), np.minimum(K, -1))


@ops
def literal_int_exact(d, n):
    x, k = d["x"], d["k"]
    with np.errstate(over="ignore"):
        return (
            (x * 4294967296) * 4294967296,
            -(x * -9223372036854775808),
            (x + 9223372036854775807) + 1,
            (k * 4294967296) * 4294967296,  # int64 wraps, as written
            (k + 9223372036854775807) + 1,
        )


@ops
def binary_i64_div(d, n):
    return (d["K"] / d["J"],)


@ops
def binary_mixed_dtypes(d, n):
    X, Y, K = d["X"], d["Y"], d["K"]
    return (X + Y, X * K, K - Y)


@ops
def promo_f32_weak(d, n):
    X = d["X"]
    return (X * 2.0, X + 1, X / 4.0, 0.5 - X)


@ops
def promo_i64_weak(d, n):
    K = d["K"]
    return (K + 0.5, K * 2, K / 2, 1.5 * K)


@ops
def promo_bool(d, n):
    B, K, X = d["B"], d["K"], d["X"]
    return (B + 1, B * 2.5, B + K, B * X)


# ---- comparisons and where

@ops
def compare_f64(d, n):
    A, B = d["A"], d["B"]
    return (A > B, A >= B, A < B, A <= B, A == B, A != B)


@ops
def compare_i64_ties(d, n):
    K, J = d["K"], d["J"]
    return (K == J, K != J, K >= J, K <= J, K > J, K < J)


@ops
def compare_literal_mixed(d, n):
    X, K, b = d["X"], d["K"], d["b"]
    return (X > 0.0, K <= 0, K < X, X >= b, K == 2)


@ops
def where_basic(d, n):
    A, B = d["A"], d["B"]
    return (np.where(A > B, A, B),)


@ops
def where_broadcast(d, n):
    C, a, c = d["C"], d["a"], d["c"]
    return (np.where(C, a, 0.0), np.where(C, a, c))


@ops
def where_mixed_dtype(d, n):
    C, K, X = d["C"], d["K"], d["X"]
    return (np.where(C, K, X), np.where(K > 0, K, -K))


@ops
def where_scalar_cond(d, n):
    A, B = d["A"], d["B"]
    return (np.where(A.sum() > 0.0, A, B), np.where(A.sum() < 0.0, A, B))


# ---- reductions and running scans

@ops
def reduce_sum(d, n):
    X = d["X"]
    return (X.sum(), X.sum(0), X.sum(1))


@ops
def reduce_sum_negative_axes(d, n):
    X = d["X"]
    return (X.sum(-1), X.sum(-2), X.sum(-3), X.sum(1))


@ops
def reduce_mean(d, n):
    X = d["X"]
    return (X.mean(), X.mean(1), X.mean(-1))


@ops
def reduce_mean_i64(d, n):
    K = d["K"]
    return (K.mean(), K.mean(0), K.mean(-1))


@ops
def reduce_max(d, n):
    X = d["X"]
    return (X.max(), X.max(0), X.max(-1), X.max(-2))


@ops
def reduce_min(d, n):
    X = d["X"]
    return (X.min(), X.min(1), X.min(-3))


@ops
def reduce_prod(d, n):
    X = d["X"]
    return (X.prod(), X.prod(0), X.prod(-1))


@ops
def reduce_i64(d, n):
    K = d["K"]
    return (K.sum(), K.max(1), K.min(), K.prod(0), K.sum(-2))


@ops
def reduce_bool(d, n):
    B = d["B"]
    return (B.sum(), B.sum(0))


@ops
def reduce_nan(d, n):
    lx = np.log(d["X"])
    return (lx.max(), lx.min(1), lx.sum(0))


@ops
def reduce_symbolic(d, n):
    X = d["X"]
    return (X.sum(0), X.mean(-1), X.max())


@ops
def cumsum_axes(d, n):
    X = d["X"]
    return (np.cumsum(X, 0), np.cumsum(X, 1), np.cumsum(X, -1), np.cumsum(X, -3))


@ops
def cumsum_1d(d, n):
    v = d["v"]
    return (np.cumsum(v), np.cumsum(v, -1))


@ops
def cumprod_axes(d, n):
    X = d["X"]
    return (np.cumprod(X, 0), np.cumprod(X, 2), np.cumprod(X, -2))


@ops
def cumsum_int_bool(d, n):
    K, B = d["K"], d["B"]
    return (np.cumsum(K, 1), np.cumprod(K, 0), np.cumsum(B, 0), np.cumsum(B, -1))


# ---- linear algebra

@ops
def dot_1d_1d(d, n):
    return (np.dot(d["a"], d["b"]),)


@ops
def dot_2d_1d(d, n):
    return (np.dot(d["A"], d["v"]),)


@ops
def dot_1d_2d(d, n):
    return (np.dot(d["v"], d["A"]),)


@ops
def dot_2d_2d(d, n):
    return (np.dot(d["A"], d["B"]),)


@ops
def dot_scalar(d, n):
    s, A, v = d["s"], d["A"], d["v"]
    return (np.dot(s, A), np.dot(A, s), np.dot(s, v), np.dot(s, s))


@ops
def dot_i64(d, n):
    K, J, X = d["K"], d["J"], d["X"]
    return (np.dot(K, J), np.dot(K, X))


@ops
def matmul_2d(d, n):
    return (np.matmul(d["A"], d["B"]),)


@ops
def matmul_batched(d, n):
    return (np.matmul(d["A"], d["B"]),)


@ops
def matmul_broadcast(d, n):
    A, B, C, D = d["A"], d["B"], d["C"], d["D"]
    return (np.matmul(A, B), np.matmul(B.T, A.transpose(0, 2, 1)), np.matmul(C, D))


@ops
def matmul_1d(d, n):
    v, A, w, Bt = d["v"], d["A"], d["w"], d["Bt"]
    return (np.matmul(v, A), np.matmul(A, w), np.matmul(Bt, w), np.matmul(w, w))


# ---- numpy.linalg (solve_triangular from SciPy, batched by hand)


def _tri_solve(A, B, lower):
    """scipy.linalg.solve_triangular over a stack, B broadcast as numpy.linalg.solve's."""
    import scipy.linalg as sl
    vector = B.ndim == 1
    Bm = B[..., None] if vector else B
    batch = np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2] if not vector else A.shape[:-2])
    Ab = np.broadcast_to(A, batch + A.shape[-2:])
    Bb = np.broadcast_to(Bm, batch + Bm.shape[-2:])
    out = np.empty(batch + Bm.shape[-2:])
    for idx in np.ndindex(*batch):
        out[idx] = sl.solve_triangular(Ab[idx], Bb[idx], lower=lower, check_finite=False)
    return out[..., 0] if vector else out


def _round3(x):
    return np.round(x * x.dtype.type(1000.0)) / x.dtype.type(1000.0)


@ops
def linalg_batched(d, n):
    X, B, b = d["X"], d["B"], d["b"]
    A = X @ X.transpose(0, 2, 1) + 4.0 * np.eye(3)
    sign, logdet = np.linalg.slogdet(A)
    L = np.linalg
    return (L.solve(A, B), L.solve(A, b), L.cholesky(A), L.inv(A), L.det(A), sign, logdet)


@ops
def linalg_broadcast_rhs(d, n):
    X, B, Y, C = d["X"], d["B"], d["Y"], d["C"]
    A = X @ X.T + 3.0 * np.eye(3)
    S = Y @ Y.transpose(0, 1, 3, 2) + np.eye(3)
    return (np.linalg.solve(A, B), np.linalg.solve(S, C), _tri_solve(S, C, False))


@ops
def linalg_f32(d, n):
    X, B = d["X"], d["B"]
    A = X @ X.T + np.float32(2.0) * np.eye(3, dtype=f32)
    assert A.dtype == f32
    x = np.linalg.solve(A, B)
    sign, logdet = np.linalg.slogdet(A)
    r = np.all(np.abs(A @ x - B) <= f32(1e-5))
    return (np.bool_(r), _round3(x), _round3(np.linalg.inv(A)), _round3(np.linalg.cholesky(A)),
            _round3(np.linalg.det(A)), sign, _round3(logdet))


@ops
def linalg_i64(d, n):
    K, J = d["K"], d["J"]
    A = K + 9 * np.eye(3, dtype=i64)
    sign, logdet = np.linalg.slogdet(A)
    return (np.linalg.solve(A, J), np.linalg.inv(A), np.linalg.det(A), sign, logdet,
            _tri_solve(A.astype(f64), J.astype(f64), True))


@ops
def linalg_ill_conditioned(d, n):
    b = d["b"]
    A = np.array([[1.0, 1.0], [1.0, 1.00000001]])
    H = np.array([[1.0, 0.5, 0.3333333333333333], [0.5, 0.3333333333333333, 0.25],
                  [0.3333333333333333, 0.25, 0.2]])
    sign, logdet = np.linalg.slogdet(A)
    return (np.linalg.solve(A, b), np.linalg.inv(A), np.linalg.det(A), sign, logdet,
            np.linalg.det(H), np.linalg.inv(H))


@ops
def linalg_singular(d, n):
    S = np.array([1.0, 2.0, 2.0, 4.0, 0.0, 0.0, 3.0, 5.0, 0.0, 1.0, 0.0, 7.0,
                  2.0, 1.0, 1.0, 3.0]).reshape(4, 2, 2)
    sign, logdet = np.linalg.slogdet(S)
    return (np.linalg.det(S), sign, logdet)


@ops
def linalg_negative_det(d, n):
    P = np.array([0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
                  -2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.5,
                  1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0]).reshape(3, 3, 3)
    sign, logdet = np.linalg.slogdet(P)
    return (np.linalg.det(P), sign, logdet, np.linalg.inv(P))


@ops
def linalg_triangular(d, n):
    B, b = d["B"], d["b"]
    L = np.array([[2.0, np.nan, np.inf], [0.5, -3.0, 1e300], [1.5, -0.25, 4.0]])
    U = np.array([[2.0, 0.5, 1.5], [np.nan, -3.0, -0.25], [-np.inf, 1e300, 4.0]])
    return (_tri_solve(L, B, True), _tri_solve(U, B, False), _tri_solve(L, b, True),
            _tri_solve(U, b, False))


@ops
def linalg_extreme(d, n):
    X, B = d["X"], d["B"]
    A = X @ X.T + 2.0 * np.eye(3)
    big, tiny = A * 1e150, A * 1e-150
    s1, l1 = np.linalg.slogdet(big)
    s2, l2 = np.linalg.slogdet(tiny)
    with np.errstate(over="ignore", under="ignore"):
        return (np.linalg.det(big), np.linalg.det(tiny), s1, l1, s2, l2, np.linalg.solve(big, B),
                np.linalg.solve(tiny, B), np.linalg.inv(tiny), np.linalg.cholesky(big),
                np.linalg.cholesky(tiny))


@ops
def linalg_slogdet_discard(d, n):
    A = d["X"] - 2.0 * np.eye(3)
    sign, logdet = np.linalg.slogdet(A)
    return (logdet, sign)


@ops
def linalg_large(d, n):
    X, B, D = d["X"], d["B"], d["D"]
    M = X @ X.T + 40.0 * np.eye(40)
    sign, logdet = np.linalg.slogdet(M)
    return (np.linalg.solve(M, B), np.linalg.inv(M), np.linalg.cholesky(M), sign, logdet,
            np.linalg.det(M * 0.1), _tri_solve(M, D, True))


@scan
def kalman_filter(d, n):
    Tm, Z, R, Q, H, x0, Y = (d[k] for k in ["Tm", "Z", "R", "Qin", "Hin", "x0", "Y"])
    Q = Q + 0.5 * np.eye(4)
    H = H + 0.5 * np.eye(2)
    a, P = x0, np.eye(4)
    RQR = R @ Q @ R.T
    As, Ps, lls = [], [], []
    for y in Y:
        v = y - Z @ a
        PZT = P @ Z.T
        F = Z @ PZT + H
        K = np.linalg.solve(F, PZT.T).T
        IKZ = np.eye(4) - K @ Z
        af = a + K @ v
        Pf = IKZ @ P @ IKZ.T + K @ H @ K.T
        _, logdet = np.linalg.slogdet(F)
        lls.append(-0.5 * (2 * np.log(2 * np.pi) + logdet + v @ np.linalg.solve(F, v)))
        a, P = Tm @ af, Tm @ Pf @ Tm.T + RQR
        As.append(a)
        Ps.append(P)
    LL = np.array(lls)
    return (np.array(As), np.array(Ps), LL, np.sum(LL))


# ---- shape

@ops
def transpose_default(d, n):
    return (d["A"].T, d["X"].T, d["v"].T)


@ops
def transpose_permuted(d, n):
    X = d["X"]
    return (X.transpose(1, 2, 0), X.transpose(0, 2, 1), X.transpose(2, 1, 0), X.transpose(0, 1, 2))


@ops
def transpose_symbolic(d, n):
    X = d["X"]
    return (X.T, X.transpose(1, 0))


@ops
def reshape_basic(d, n):
    X = d["X"]
    return (X.reshape(2, 6), X.reshape(12), X.reshape(2, 3, 2), X.reshape(1, 12))


@ops
def reshape_infer(d, n):
    X = d["X"]
    return (X.reshape(2, -1), X.reshape(-1, 3, 2), X.reshape(-1), X.reshape(6, -1, 1))


@ops
def reshape_symbolic(d, n):
    X, T, N = d["X"], n["T"], n["N"]
    return (X.reshape(N, T), X.reshape(-1), X.reshape(T, N, 1))


@ops
def expand_dims(d, n):
    X, s = d["X"], d["s"]
    return tuple(np.expand_dims(X, a) for a in (0, 1, 2, -1, -2, -3)) + (np.expand_dims(s, 0),)


@ops
def stack_1d(d, n):
    a, b, c = d["a"], d["b"], d["c"]
    return (np.stack([a, b, c]), np.stack([a]))


@ops
def stack_2d_scalars(d, n):
    A, B = d["A"], d["B"]
    return (np.stack([A, B]), np.stack([A.sum(), B.max(), A.min()]))


@ops
def concat_axes(d, n):
    A, B, C = d["A"], d["B"], d["C"]
    return (np.concatenate([A, B], 0), np.concatenate([A, C], 1),
            np.concatenate([C, A], -1), np.concatenate([B, A, B], -2))


@ops
def concat_1d_promote(d, n):
    a, b, k = d["a"], d["b"], d["k"]
    return (np.concatenate([a, b, a]), np.concatenate([a, k]), np.concatenate([a]))


# ---- indexing

@ops
def index_basic(d, n):
    X = d["X"]
    return (X[0], X[2], X[-1], X[-3])


@ops
def index_multi(d, n):
    X, Y = d["X"], d["Y"]
    return (X[1, -2], Y[-1, 2], Y[0, -1, -1], Y[1, 0])


@ops
def index_dynamic(d, n):
    X, N = d["X"], n["N"]
    return (X[N - 1], X[-N], X[2 - N])


@ops
def index_1d(d, n):
    v = d["v"]
    return (v[0], v[-2], v[5])


@ops
def slice_basic(d, n):
    X = d["X"]
    return (X[1:3:1], X[0::1], X[:5:1], X[2::1])


@ops
def slice_step(d, n):
    X = d["X"]
    return (X[0::2], X[1::3], X[:7:3], X[1:6:2])


@ops
def slice_negative_step(d, n):
    X = d["X"]
    return (X[::-1], X[-1:0:-2], X[5::-3], X[:2:-1], X[6:1:-2])


@ops
def slice_negative_bounds(d, n):
    X = d["X"]
    return (X[-3:-1:1], X[-4::1], X[:-2:1], X[-1:-6:-2])


@ops
def slice_clamp_empty(d, n):
    X = d["X"]
    return (X[-100:100:2], X[100::-1], X[3:1:1], X[1:3:-1])


@ops
def slice_symbolic(d, n):
    X = d["X"]
    return (X[1::2], X[::-2], X[-3::1])


# ---- ops of gradient programs

def _inc(x, key, g):
    y = x.copy()
    y[key] += g
    return y


@ops
def grad_zeros_like(d, n):
    X, Y, K, B = d["X"], d["Y"], d["K"], d["B"]
    return (np.zeros_like(X), np.zeros_like(Y), np.zeros_like(K), np.zeros_like(B),
            np.zeros_like(2.5), np.zeros_like(X) + X)


def _sum_to(g, shape):
    """G summed to `shape`: NumPy broadcasting reversed."""
    lead = g.ndim - len(shape)
    r = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(k for k, n in enumerate(shape) if n == 1 and r.shape[k] != 1)
    r = r.sum(axis=axes, keepdims=True) if axes else r
    assert np.broadcast_shapes(shape, g.shape) == g.shape
    return np.asarray(r)


@ops
def grad_sum_to(d, n):
    G, x, r, c, s, K, B, F = (d[k] for k in ("G", "x", "r", "c", "s", "K", "B", "F"))
    return (_sum_to(G, x.shape), _sum_to(G, r.shape), _sum_to(G, c.shape),
            _sum_to(G, s.shape), _sum_to(G, G.shape), _sum_to(K, r.shape),
            _sum_to(B, r.shape).astype(i64), _sum_to(F, c.shape),
            _sum_to(x, (1, 1)))


@ops
def grad_inc_index(d, n):
    X, g, Y, K, h, i = (d[k] for k in ("X", "g", "Y", "K", "h", "i"))
    return (_inc(X, 1, g), _inc(X, -1, g), _inc(X, (0, -2), 2.5), _inc(Y, 1, X),
            _inc(Y, (0, 3), g), _inc(Y, (-1, -4, 2), X[0, 0]), _inc(K, 2, 3),
            _inc(X, 0, h), _inc(_inc(X, 0, g), 0, g), _inc(X, int(i), np.ones(1)))


@ops
def grad_inc_slice(d, n):
    X, g, Y, K = d["X"], d["g"], d["Y"], d["K"]
    return (_inc(X, slice(1, 4, 1), g), _inc(X, slice(None, None, -1), g),
            _inc(X, slice(-1, 0, -2), 1.0), _inc(X, slice(None, 3), X[:3]),
            _inc(X, slice(100, None), g), _inc(X, slice(None, None, 4), g),
            _inc(Y, slice(1, None, 2), g), _inc(Y, slice(None, None, -1), Y[::-1]),
            _inc(K, slice(-100, 100, 3), 2))


@ops
def grad_flip(d, n):
    X, Y, V, K, E = d["X"], d["Y"], d["V"], d["K"], d["E"]
    return (np.flip(X, 0), np.flip(X, 1), np.flip(X, -1), np.flip(Y, 1),
            np.flip(np.flip(Y, 2), -1), np.flip(V, 0), np.flip(K, 1), np.flip(E, 0),
            np.flip(X, 0) + X, np.flip(X.T, 1).sum(0), np.exp(X) + np.flip(np.exp(X), 1))


@ops
def filter(d, n):
    X, K, B, c, W = d["X"], d["K"], d["B"], d["c"], d["W"]
    Wn = np.concatenate([W, np.full((1, 2), np.nan)], 0)
    kept = X[X.sum(1) > 0]
    assert 0 < len(kept) < len(X)
    return (kept, X[X < 0.1], K[K[:, 0] >= 0], B[B], X[X[:, 1] > c],
            X[X[:, 0] > 100.0], X[X[:, 0] < 100.0], kept[kept[:, 2] < 0.3],
            kept.sum(0), X[X < 0.1].sum(), Wn[Wn[:, 0] > 0.0])


def _linrec(a, u, h0, dtype=np.float64):
    u = np.asarray(u, dtype=dtype)
    a = np.broadcast_to(np.asarray(a, dtype=dtype), u.shape)
    h = np.broadcast_to(np.asarray(h0, dtype=dtype), u.shape[1:]).copy()
    out = np.empty(u.shape, dtype=dtype)
    for t in range(u.shape[0]):
        h = a[t] * h + u[t]
        out[t] = h
    return out


@ops
def linrec(d, n):
    A, U, h, K, F, E, c = d["A"], d["U"], d["h"], d["K"], d["F"], d["E"], d["c"]
    return (_linrec(A, U, h), _linrec(0.9, U, h), _linrec(A[0], U, 0.5), _linrec(c, U, h),
            _linrec(0.5, K, 1.0), _linrec(np.float32(0.25), F, np.float32(1.0), np.float32),
            _linrec(2.0, E, h), np.cumsum(U, 0), _linrec(3.5, U, h))


def _logmatmulexp(a, b):
    """log(exp(a) @ exp(b)) the max-shifted way, column by column, with
    scipy.special.logsumexp's infinities (no term: -inf; an infinite term:
    inf); a NaN term gives NaN."""
    x = np.expand_dims(a, -1) + b  # (..., N, M)
    top = np.max(x, axis=-2, keepdims=True)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(all="ignore"):
        r = np.log(np.sum(np.exp(x - shift), axis=-2)) + np.squeeze(shift, -2)
    return r


@ops
def logmatmulexp(d, n):
    a, A, B = d["a"], d["A"], d["B"]
    with np.errstate(all="ignore"):
        none = np.log(B * 0.0)
    return (_logmatmulexp(a, B), _logmatmulexp(A, B), _logmatmulexp(a, B - 1000.0),
            _logmatmulexp(a, B + 800.0), _logmatmulexp(a * 1e4, B),
            _logmatmulexp(A, np.where(B < 0.0, none, B)), _logmatmulexp(a, none))


@ops
def grad_squeeze(d, n):
    X, R, C, O = d["X"], d["R"], d["C"], d["O"]
    return (np.squeeze(X, 1), np.squeeze(X, -2), np.squeeze(R, 0), np.squeeze(C, 1),
            np.squeeze(C, -1), np.squeeze(O, 0), np.squeeze(np.expand_dims(R, 2), -1),
            np.squeeze(X.T, 1) * 2.0)


@ops
def grad_inc_inplace(d, n):
    A, g = d["A"], d["g"]
    x = np.exp(A)
    dead = _inc(A * 2.0, 1, g)
    kept = _inc(x, slice(None, None, -2), g)
    twice = _inc(_inc(np.sin(A), slice(1, 3), g), 0, g)
    return (dead, kept + x, x.sum(0), twice, _inc(x, 3, x[0]))


# ---- creation and casting

@ops
def create_fill(d, n):
    X, N = d["X"], n["N"]
    return (np.full((2, 3), 1.5), np.full(2, 7, dtype=i64), np.full(N, X.sum()),
            np.full((2, 2), True), np.full(3, 0.25, dtype=f32))


@ops
def create_zeros_ones(d, n):
    X, N, M = d["X"], n["N"], n["M"]
    return (np.zeros((2, 3)), np.ones(3, dtype=i64), np.ones((2, 2), dtype=f32),
            np.zeros(2, dtype=bool), X + np.ones((N, M)), np.zeros(()))


@ops
def create_arange(d, n):
    X, N = d["X"], n["N"]
    return (np.arange(5, dtype=i64), np.arange(N, dtype=i64), np.arange(N, dtype=i64) * X,
            np.arange(N, dtype=i64) + 1)


@ops
def create_tensor(d, n):
    X = d["X"]
    return (np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), np.array([1, -2, 3], dtype=i64),
            np.array([True, False]), X + np.array([1.0, -1.0, 0.5]), np.array(2.5))


@ops
def cast_dtypes(d, n):
    X, K, B = d["X"], d["K"], d["B"]
    return (X.astype(f32), (X * 10.0).astype(i64), X.astype(bool), B.astype(f64),
            B.astype(i64), K.astype(f64), K.astype(f32), K.astype(bool))


@ops
def size_expr(d, n):
    X, N, M = d["X"], i64(n["N"]), i64(n["M"])
    return (X + N, N * M, N / M, X.sum() - M)


@ops
def empty_axis(d, n):
    X = d["X"]
    return (X.sum(0), X.prod(0), X.mean(0), X.sum(), X.sum(1), np.cumsum(X, 0), X[::-1], X.T)


@ops
def composite_softmax(d, n):
    X = d["X"]
    E = np.exp(X - np.expand_dims(X.max(-1), -1))
    return (E / np.expand_dims(E.sum(-1), -1),)


@ops
def composite_lets(d, n):
    A, v = d["A"], d["v"]
    h = np.tanh(np.dot(A, v) + 0.5)
    g = h * h
    return ((g * np.dot(A, v)).sum(), h)


# ------------------------------------------------------------------- scans
# Plain loops, step by step, as pytensor.scan defines them. A sequence with
# taps K is cut PyTensor's way: with a = min(min K, 0) and b = max(max K, 0),
# tap k is X[k - a : len - (b - k)], so step t reads X[t + k - a]; there are
# len - (b - a) steps. go_backwards reverses each of these cut sequences, and
# only then are they cut to [:n_steps] (pytensor/scan/basic.py).


def steps(n, shape, dtype=f64):
    return np.empty((n,) + tuple(shape), dtype=dtype)







@scan
def softmax_steps_last_axis(d, n):
    sp = _scipy_special()
    x, w, h = d["X"], d["W"], d["h0"]
    hs, ls = [], []
    for t in range(x.shape[0]):
        p = sp.softmax(w @ h, -1)
        ls.append(sp.log_softmax(h[None, :] + w, 1))
        h = p * 0.5 + x[t]
        hs.append(h)
    return (np.stack(hs), np.stack(ls))

@scan
def softmax_steps(d, n):
    sp = _scipy_special()
    x, w, h = d["X"], d["W"], d["h0"]
    hs, ps, ls, qs = [], [], [], []
    for t in range(x.shape[0]):
        p = sp.softmax(w @ h, 0)
        m = x[t][None, :] + w
        h = p * 0.5 + x[t]
        hs.append(h)
        ps.append(p)
        ls.append(sp.log_softmax(m, 1))
        qs.append(sp.log_softmax(m, 0))
    return (np.stack(hs), np.stack(ps), np.stack(ls), np.stack(qs))

@scan
def argmax_matrix_step(d, n):
    x = d["X"]
    i = np.array([np.argmax(x[t]) for t in range(x.shape[0])], dtype=np.int64)
    j = np.array([np.argmin(x[t]) for t in range(x.shape[0])], dtype=np.int64)
    l = np.array([_logsumexp(x[t]) for t in range(x.shape[0])])
    return (i, j, l)

@scan
def argmax_steps(d, n):
    x, w = d["X"], d["w"]
    idx, pos, cnt = [], [], []
    c = np.int64(0)
    for t in range(x.shape[0]):
        s = x[t] * w
        idx.append(np.argmax(s))
        pos.append(np.all(s > 0.0))
        c = c + np.int64(np.any(s > 0.3))
        cnt.append(c)
    return (np.array(idx, dtype=np.int64), np.array(pos), np.array(cnt, dtype=np.int64))

@scan
def sample_without_replacement(d, n):
    s, g = d["s"], d["G"]
    cur = s.copy()
    states, picks = [], []
    for t in range(g.shape[0]):
        i = np.argmax(cur + g[t])
        cur = cur.copy()
        cur[i] = -np.inf
        states.append(cur)
        picks.append(i)
    picks = np.array(picks, dtype=np.int64)
    return (np.array(states), picks, s[picks])


@scan
def hmm_take_emissions(d, n):
    la, lb, a, o = d["LA"], d["LB"], d["a0"], d["O"]
    obs = np.mod(o + 100, 4)
    rows = []
    for t in range(obs.shape[0]):
        a = _logsumexp(a[:, None] + la, 0) + lb[:, obs[t]]
        rows.append(a)
    rows = np.array(rows)
    return (rows, lb.T[obs], _logsumexp(rows[-1]))


@scan
def lse_forward(d, n):
    x, la, a = d["X"], d["LA"], d["a0"]
    rows = []
    for t in range(x.shape[0]):
        a = _logsumexp(a[:, None] + la, 0) + x[t]
        rows.append(a)
    out = np.stack(rows)
    return (out, _logsumexp(out[-1]))

@scan
def logspace_forward(d, n):
    lb, L, a = d["lb"], d["L"], d["a0"]
    lmax = L.max(1, keepdims=True)
    logA = L - (lmax + np.log(np.exp(L - lmax).sum(1, keepdims=True)))
    out = steps(len(lb), a.shape)
    for t in range(len(lb)):
        a = lb[t] + _logmatmulexp(a, logA)
        out[t] = a
    return (out,)


@scan
def native_extremes(d, n):
    X, s, v = d["X"], d["s0"], d["v0"]
    T = len(X)
    S, V, Z, W = steps(T, ()), steps(T, v.shape), steps(T, ()), steps(T, v.shape)
    with np.errstate(all="ignore"):
        for t in range(T):
            x = X[t]
            s1 = s * 1e306 + x[0] * 1e308
            Z[t] = (s1 - s1) / -np.abs(s)
            s = np.minimum(np.maximum(np.log(np.abs(s1)), np.abs(s) ** 0.5), 800.0) * x[1]
            v1 = v * 1e308 - x * 1e308
            v2 = v1 / np.abs(x)
            v = -(v2 + v * 0.5) * 1e-300
            S[t], V[t], W[t] = s, v, v2 * 1e-300 + -x
    return (S, V, Z, W)


@scan
def map_zero_width(d, n):
    X = d["X"]
    return (X.copy(), X * 2.0)


@scan
def scan_map_nitsot(d, n):
    X = d["X"]
    Y = steps(len(X), X.shape[1:])
    for t in range(len(X)):
        Y[t] = X[t] * 2.0 + np.sin(X[t])
    return (Y,)


@scan
def scan_sitsot(d, n):
    X, a = d["X"], d["a0"]
    A = steps(len(X), a.shape)
    for t in range(len(X)):
        a = a * 0.9 + X[t] * X[t]
        A[t] = a
    return (A,)


@scan
def scan_seq_taps_m2_0(d, n):
    X = d["X"]
    T = len(X) - 2
    Y = steps(T, X.shape[1:])
    for t in range(T):
        x_m2, x_0 = X[t], X[t + 2]
        Y[t] = x_0 - 0.5 * x_m2
    return (Y,)


@scan
def scan_seq_taps_m1_p1(d, n):
    X, a = d["X"], d["a0"]
    T = len(X) - 2
    A = steps(T, a.shape)
    for t in range(T):
        x_m1, x_p1 = X[t], X[t + 2]
        a = a * 0.5 + x_m1 * (x_p1 + 1.0)
        A[t] = a
    return (A,)


@scan
def scan_seq_taps_past_only(d, n):
    X = d["X"]
    T = len(X) - 3
    Y = steps(T, X.shape[1:])
    for t in range(T):
        x_m3, x_m1 = X[t], X[t + 2]
        Y[t] = x_m1 - 2.0 * x_m3
    return (Y,)


@scan
def scan_seq_taps_future_only(d, n):
    X = d["X"]
    T = len(X) - 2
    Y = steps(T, X.shape[1:])
    for t in range(T):
        x_p1, x_p2 = X[t + 1], X[t + 2]
        Y[t] = x_p1 + 3.0 * x_p2
    return (Y,)


@scan
def scan_seq_taps_unordered(d, n):
    X = d["X"]
    T = len(X) - 2
    Y = steps(T, X.shape[1:])
    for t in range(T):
        x_p1, x_m1, x_0 = X[t + 2], X[t], X[t + 1]
        Y[t] = (x_p1 - 2.0 * x_m1) + 3.0 * x_0
    return (Y,)


@scan
def scan_two_sequences(d, n):
    X, Y = d["X"], d["Y"]
    T = min(len(X) - 1, len(Y))
    Z = steps(T, X.shape[1:])
    for t in range(T):
        x_m1, x_0, y = X[t], X[t + 1], Y[t]
        Z[t] = x_m1 * y + x_0
    return (Z,)


@scan
def scan_mitsot_m2_m1(d, n):
    buf = list(d["I"])
    for _ in range(n["T"]):
        x_m2, x_m1 = buf[-2], buf[-1]
        buf.append((0.5 * x_m1 - 0.25 * x_m2) + 0.1)
    return (np.array(buf[2:]),)


@scan
def scan_mitsot_m3_m1(d, n):
    buf = list(d["I"])
    for _ in range(n["T"]):
        x_m3, x_m1 = buf[-3], buf[-1]
        buf.append(x_m1 + 0.5 * x_m3)
    return (np.array(buf[3:]),)


@scan
def scan_mitsot_taps_unordered(d, n):
    buf = list(d["I"])
    for _ in range(n["T"]):
        x_m1, x_m3 = buf[-1], buf[-3]
        buf.append(x_m1 - 0.3 * x_m3)
    return (np.array(buf[3:]),)


@scan
def scan_mitsot_with_sequence(d, n):
    X = d["X"]
    buf = list(d["I"])
    for t in range(len(X)):
        x_m2, x_m1 = buf[-2], buf[-1]
        buf.append(np.tanh(X[t] + x_m1 * (x_m2 + 1.0)))
    return (np.array(buf[2:]),)


@scan
def scan_mixed_outputs(d, n):
    X, a, w = d["X"], d["a0"], d["w"]
    buf = list(d["I"])
    T = len(X)
    Y, A, M = steps(T, w.shape), steps(T, a.shape), steps(T, a.shape)
    for t in range(T):
        x, m2, m1 = X[t], buf[-2], buf[-1]
        Y[t] = x * w
        new_a = a + x
        M[t] = 0.5 * m1 + 0.25 * (m2 - a)
        buf.append(M[t].copy())
        a = new_a
        A[t] = a
    return (Y, A, M)


@scan
def scan_go_backwards_nitsot(d, n):
    X = d["X"]
    T = len(X)
    Y = steps(T, X.shape[1:])
    for t in range(T):
        Y[t] = np.exp(X[T - 1 - t]) * 3.0
    return (Y,)


@scan
def scan_go_backwards_sitsot(d, n):
    X, a = d["X"], d["a0"]
    T = len(X)
    A = steps(T, a.shape)
    for t in range(T):
        a = a * 0.5 + X[T - 1 - t]
        A[t] = a
    return (A,)


@scan
def scan_go_backwards_n_steps(d, n):
    # reversed first (X[T-1], X[T-2], ...), then cut to the first 4 steps
    X, a = d["X"], d["a0"]
    T = len(X)
    A = steps(4, a.shape)
    for t in range(4):
        a = a * 0.5 + X[T - 1 - t]
        A[t] = a
    return (A,)


@scan
def scan_go_backwards_mitsot(d, n):
    X = d["X"]
    T = len(X)
    buf = list(d["I"])
    for t in range(T):
        m2, m1 = buf[-2], buf[-1]
        buf.append(X[T - 1 - t] + (m1 - 0.5 * m2))
    return (np.array(buf[2:]),)


@scan
def scan_go_backwards_taps(d, n):
    X = d["X"]
    T = len(X)
    Y = steps(T - 1, X.shape[1:])
    for t in range(T - 1):
        x_m1, x_0 = X[T - 2 - t], X[T - 1 - t]
        Y[t] = x_0 - 2.0 * x_m1
    return (Y,)


@scan
def scan_go_backwards_taps_n_steps(d, n):
    X = d["X"]
    T = len(X)
    Y = steps(3, X.shape[1:])
    for t in range(3):
        x_m1, x_0 = X[T - 2 - t], X[T - 1 - t]
        Y[t] = x_0 - 2.0 * x_m1
    return (Y,)


@scan
def scan_push_out_seq_long(d, n):
    X, U, W, h = d["X"], d["U"], d["W"], d["h0"]
    N = n["N"]
    H = steps(N, h.shape)
    for t in range(N):
        xm, x = X[t], X[t + 1]
        h = np.tanh(W @ h + U @ (x - 0.5 * xm))
        H[t] = h
    return (H, H[-1])


@scan
def scan_push_out_seq_long_backwards(d, n):
    X, U, h = d["X"], d["U"], d["h0"]
    T, N = len(X), n["N"]
    H = steps(N, h.shape)
    for t in range(N):
        a, c = X[T - 3 - t], X[T - 1 - t]
        h = np.tanh(U @ h + (U @ a) * c)
        H[t] = h
    return (H,)


@scan
def scan_merge_bidirectional(d, n):
    X, Wf, Uf, Wb, Ub, h0 = (d[k] for k in ("X", "Wf", "Uf", "Wb", "Ub", "h0"))
    T = len(X)
    F, B = steps(T, h0.shape), steps(T, h0.shape)
    h, g = h0, h0
    for t in range(T):
        h = np.tanh(Wf @ h + Uf @ X[t])
        F[t] = h
        g = np.tanh(Wb @ g + Ub @ X[T - 1 - t])
        B[t] = g
    return (np.concatenate([F, B[::-1]], axis=1), B[-1])


@scan
def scan_invariant_symbolic(d, n):
    X, W, K = d["X"], d["W"], d["K"]
    T = len(X)
    A = np.stack([np.exp(W[1:])] * (T - 1))
    B = np.stack([K * 3] * (T - 1))
    C = np.stack([W[1:] > 0.0] * (T - 1))
    return (A, B, C)


@scan
def scan_accumulator_out(d, n):
    X, Y, W, h, l = d["X"], d["Y"], d["W"], d["h0"], d["l0"]
    T = len(X)
    L, H = steps(T, ()), steps(T, h.shape)
    for t in range(T):
        h = np.tanh(W @ h + X[t])
        e = h - Y[t]
        l = np.sum(e * e) + l
        L[t] = l
        H[t] = h
    return (L[-1], L, H)


@scan
def scan_n_steps_no_sequences(d, n):
    a = d["a0"]
    A = steps(5, a.shape)
    for t in range(5):
        a = a * 0.5 + 1.0
        A[t] = a
    return (A,)


@scan
def scan_n_steps_expression(d, n):
    s = d["s0"]
    S = steps(n["T"] - 1, ())
    for t in range(n["T"] - 1):
        s = s * 1.5 - 0.25
        S[t] = s
    return (S, d["X"].sum())


@scan
def scan_n_steps_nitsot_only(d, n):
    w = d["w"]
    Y = steps(4, w.shape)
    for t in range(4):
        Y[t] = w * 2.0
    return (Y,)


@scan
def scan_n_steps_shorter(d, n):
    X, a = d["X"], d["a0"]
    A, Y = steps(4, a.shape), steps(4, a.shape)
    for t in range(4):
        x = X[t]
        Y[t] = x * a
        a = a + x
        A[t] = a
    return (A, Y)


@scan
def scan_n_steps_zero(d, n):
    return (steps(0, d["a0"].shape),)


@scan
def scan_nested(d, n):
    X = d["X"]
    Y = steps(len(X), X.shape[2:])
    for t in range(len(X)):
        acc = np.zeros(X.shape[2])
        for r in X[t]:
            acc = acc * 0.5 + r * r
        Y[t] = acc
    return (Y,)


@scan
def scan_nested_closure(d, n):
    X, h, w = d["X"], d["h0"], d["w"]
    H = steps(len(X), h.shape)
    for t in range(len(X)):
        acc = h
        for r in X[t]:
            acc = np.tanh(acc * w + r * h)
        h = acc
        H[t] = h
    return (H,)


@scan
def scan_nested_outputs(d, n):
    X, a = d["X"], d["a0"]
    Y = steps(len(X), X.shape[1:])
    for t in range(len(X)):
        acc = a
        for m in range(X.shape[1]):
            acc = acc + 2.0 * X[t, m]
            Y[t, m] = acc
    return (Y,)


@scan
def scan_closure(d, n):
    X, w = d["X"], d["w"]
    c = w * 2.0
    Y = steps(len(X), w.shape)
    for t in range(len(X)):
        Y[t] = X[t] * c + w
    return (Y,)


@scan
def scan_closure_and_non_sequences(d, n):
    X, w, b, a = d["X"], d["w"], d["b"], d["a0"]
    A = steps(len(X), a.shape)
    for t in range(len(X)):
        a = np.tanh(a * w + (X[t] * b + 0.1))
        A[t] = a
    return (A,)


@scan
def scan_non_sequences_order(d, n):
    X, p, q, r = d["X"], d["p"], d["q"], d["r"]
    Y = steps(len(X), p.shape)
    for t in range(len(X)):
        Y[t] = X[t] * p + (q - r)
    return (Y,)


@scan
def scan_empty_sequence(d, n):
    N = n["N"]
    return (steps(0, (N,)), steps(0, (N,)))


@scan
def scan_empty_scalar_steps(d, n):
    return (steps(0, ()),)


@scan
def scan_multiple_outputs(d, n):
    X, a = d["X"], d["a0"]
    T = len(X)
    A, B = steps(T, a.shape), steps(T, ())
    for t in range(T):
        a2 = a + X[t]
        b = a2 * X[t]
        A[t], B[t] = a2, b.sum()
        a = a2
    return (A, B, A[-1] - B.sum())


@scan
def scan_two_nitsots(d, n):
    X = d["X"]
    S, C = steps(len(X), X.shape[1:]), steps(len(X), X.shape[1:])
    for t in range(len(X)):
        S[t], C[t] = np.sin(X[t]), np.cos(X[t])
    return (S, C)


@scan
def scan_scalar_state(d, n):
    X, s = d["X"], d["s0"]
    S = steps(len(X), ())
    for t in range(len(X)):
        s = s * 0.5 + X[t].sum()
        S[t] = s
    return (S,)


@scan
def scan_i64_state(d, n):
    K, a = d["K"], d["k0"]
    A = steps(len(K), a.shape, i64)
    for t in range(len(K)):
        a = a + K[t] * 2
        A[t] = a
    return (A,)


@scan
def scan_bool_nitsot(d, n):
    X = d["X"]
    B = steps(len(X), X.shape[1:], bool)
    for t in range(len(X)):
        B[t] = X[t] > 0.0
    return (B,)


@scan
def scan_matrix_state(d, n):
    m, A = d["M0"], d["A"]
    Ms = steps(n["T"], m.shape)
    for t in range(n["T"]):
        m = np.tanh(np.dot(m, A) + 0.1)
        Ms[t] = m
    return (Ms,)


@scan
def scan_tape_small_kernels(d, n):
    X, h, W, B, P, Q, c = (d[k] for k in ("X", "h0", "W", "B", "P", "Q", "c"))
    T = len(X)
    outs = [steps(T, s) for s in [(9,), (3,), (2, 2), (), (1, 2), (2, 3), (2, 3)]]
    for t in range(T):
        h = np.tanh(0.5 * h + X[t])
        y = W @ h + h @ B
        z = P @ Q + c[:, None] * (h[:6].reshape(2, 3) @ np.full((3, 2), 0.25))
        s = (h @ h + h.sum()) + (h.mean() + h[:5].sum())
        hm = h[:8].reshape(4, 2)
        m = hm.max(0) + (hm.min(1).mean(0) + hm[:2].prod(0))
        m = m + h[0].reshape(1, 1) @ h[1].reshape(1, 1)
        g = c[:, None] + h[:6].reshape(2, 3)
        r = h[:6].reshape(2, 3) - h[6:9]
        for o, v in zip(outs, (h, y, z, s, m, g, r)):
            o[t] = v
    return tuple(outs)



@scan
def scan_tape_batched_matmul(d, n):
    X, U, V, h = (d[k] for k in ("X", "U", "V", "h0"))
    T, _, M, N = X.shape
    H, S = steps(T, (M, N)), steps(T, (2, M, M))
    for t in range(T):
        a = h @ U                       # (3, M, N): one matrix for every batch
        b = X[t] @ V                    # (2, M, N)
        S[t] = a[0:2] @ b.transpose(0, 2, 1)
        h = np.tanh(0.25 * a.sum(0) + 0.125 * b.sum(0))
        H[t] = h
    return H, S

@scan
def scan_tape_packed_weights(d, n):
    X, Wx, U, h = d["X"], d["Wx"], d["U"], d["h0"]
    T = len(X)
    H = steps(T, h.shape)
    for t in range(T):
        h = np.tanh(0.05 * (X[t] @ Wx) + 0.3 * (h @ U))
        H[t] = h
    return (H,)

@scan
def scan_tape_direct_rows(d, n):
    X, a0, h, g = d["X"], d["a0"], d["h0"], d["g0"]
    T = len(X)
    A, H, Y, W = (steps(T, (12,)) for _ in range(4))
    a2, a1 = a0[0], a0[1]
    for t in range(T):
        x = X[t]
        a = (0.5 * a1 + 0.3 * a2) + x * 0.1
        h = h * 0.9 - a1 * x
        Y[t] = h * 2.0
        W[t] = 3.0 * x - (a1 + 0.5)
        g = g * 0.5 + x
        A[t], H[t] = a, h
        a2, a1 = a1, a
    return A[-3:], H[-1:], Y, Y.copy(), W, g[None]

@scan
def scan_tape_invariants(d, n):
    X, h, b, W, v, c = (d[k] for k in ("X", "h0", "b", "W", "v", "c"))
    T = len(X)
    H, S = steps(T, h.shape), steps(T, ())
    for t in range(T):
        bias = b[None, :] + np.zeros((3, 16))
        h = np.tanh((h * c + X[t]) + (bias + W @ v))
        H[t], S[t] = h, h.sum() + v @ v
    return H, S

@ops
def logsumexp_extreme(d, n):
    X = d["X"]

    def lse(v, axis=None):
        m = v.max(axis=axis, keepdims=True)
        out = np.log(np.exp(v - m).sum(axis=axis, keepdims=True)) + m
        return out.reshape(()) if axis is None else np.squeeze(out, axis)

    x = -800.0 - np.linspace(0.0, 3.0, 10)
    return (lse(x), lse(X), lse(X, 1), lse(X, 0))


@scan
def transposed_invariant_dot(d, n):
    W, V, X, h0 = d["W"], d["V"], d["X"], d["h0"]
    Wt, Vt = W.T, V.T
    T = len(X)
    H = steps(T, h0.shape)
    S = steps(T, ())
    P = steps(T, (len(h0), 1))
    h = h0
    for t in range(T):
        S[t] = np.sum(Vt * Vt)
        P[t] = Wt @ h[:, None]
        h = np.tanh(Wt @ h + X[t] @ Vt)
        H[t] = h
    return (H, S, P)


@scan
def hmm_forward_logspace(d, n):
    logA, E, a0 = d["logA"], d["E"], d["a0"]
    T = len(E)
    alpha = a0 - 800.0
    A = steps(T, alpha.shape)
    for t in range(T):
        M = alpha[:, None] + logA
        m = M.max()
        alpha = m + np.log(np.exp(M - m).sum(0)) + (E[t] - 800.0)
        A[t] = alpha
    last = A[-1]
    ml = last.max()
    return (ml + np.log(np.exp(last - ml).sum()), last, A.sum(0))


@scan
def scan_chain(d, n):
    X, a = d["X"], d["a0"]
    T = len(X)
    Y = steps(T, X.shape[1:])
    for t in range(T):
        Y[t] = X[t] * X[t]
    A = steps(T - 1, a.shape)
    for t in range(T - 1):
        y_m1, y = Y[t], Y[t + 1]
        a = a + (y - y_m1)
        A[t] = a
    return (A.sum(0), A[-1], Y.mean())


@scan
def scan_init_expression(d, n):
    X = d["X"]
    a, buf = X[0], [X[1], X[2]]
    T = len(X)
    A, M = steps(T, a.shape), steps(T, a.shape)
    for t in range(T):
        m2, m1 = buf[-2], buf[-1]
        a = a + X[t]
        A[t] = a
        M[t] = m1 - 0.5 * m2
        buf.append(M[t].copy())
    return (A, M)


# ---- random numbers (SPEC §1 "Random numbers")
#
# An independent Philox4x32-10 (Salmon et al., SC11; Random123's
# philox4x32_R with R = 10) and the conventions of eqscan's README: a key is
# 64 bits (two key words, low word first) stored as int64; (key SEED) is the
# seed's bits; fold_in(K, I) is words 0 and 1 of philox(counter = (I low,
# I high, 0, 1), K); split(K, N)[i] = fold_in(K, i); the stream of K is
# block b = philox(counter = (b low, b high, 0, 0), K). f64 uniform element
# e: block e // 2, words 2(e % 2) (low) and 2(e % 2) + 1 (high), the high 53
# bits times 2**-53; f32 element e: word e % 4 of block e // 4, the high 24
# bits times 2**-24; normals by Box-Muller on the f64 uniforms of block p
# (sqrt(-2 log(1 - u1)) times cos and sin of 2 pi u2), f32 ones rounded from
# f64; bernoulli: u_e < p_e; categorical: Gumbel-max with v_e = (high 52
# bits + 1/2) 2**-52, first index of the largest logit - log(-log(v)).

_M32 = np.uint64(0xFFFFFFFF)


def philox4x32_10(ctr, key):
    """ctr: four uint64 arrays of 32-bit words; key: two. Returns four."""
    c = [np.asarray(w, dtype=np.uint64) & _M32 for w in ctr]
    k = [np.asarray(w, dtype=np.uint64) & _M32 for w in key]
    for r in range(10):
        if r:
            k = [(k[0] + np.uint64(0x9E3779B9)) & _M32, (k[1] + np.uint64(0xBB67AE85)) & _M32]
        p0 = np.uint64(0xD2511F53) * c[0]
        p1 = np.uint64(0xCD9E8D57) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k[0], p1 & _M32,
             (p0 >> np.uint64(32)) ^ c[3] ^ k[1], p0 & _M32]
    return c


def _key_words(key):
    u = np.asarray(key, dtype=np.int64).view(np.uint64)
    return [u & _M32, u >> np.uint64(32)]


def rng_key(seed):
    return np.asarray(seed, dtype=np.int64)


def rng_fold_in(key, i):
    key, i = np.broadcast_arrays(np.asarray(key, dtype=np.int64), np.asarray(i, dtype=np.int64))
    iu = i.view(np.uint64)
    zero = np.zeros(iu.shape, dtype=np.uint64)
    out = philox4x32_10([iu & _M32, iu >> np.uint64(32), zero, zero + np.uint64(1)],
                        _key_words(key))
    return (out[0] | (out[1] << np.uint64(32))).view(np.int64)


def rng_split(key, n):
    key = np.asarray(key, dtype=np.int64)
    return rng_fold_in(key[..., None], np.arange(n, dtype=np.int64))


def _blocks(key, nblocks):
    """The first nblocks blocks of one key's stream: four arrays."""
    b = np.arange(nblocks, dtype=np.uint64)
    zero = np.zeros(nblocks, dtype=np.uint64)
    kw = _key_words(np.int64(key))
    return philox4x32_10([b & _M32, b >> np.uint64(32), zero, zero],
                         [np.full(nblocks, kw[0]), np.full(nblocks, kw[1])])


def _bits53(key, n):
    w = _blocks(key, (n + 1) // 2)
    lo = np.stack([w[0], w[2]], axis=1).reshape(-1)
    hi = np.stack([w[1], w[3]], axis=1).reshape(-1)
    return (((hi << np.uint64(32)) | lo) >> np.uint64(11))[:n]


def _per_key(keys, fn):
    keys = np.asarray(keys, dtype=np.int64)
    rows = [fn(int(k)) for k in keys.reshape(-1)]
    inner = rows[0].shape if rows else ()
    return np.array(rows).reshape(keys.shape + inner)


def rng_uniform(keys, dtype, shape):
    n = int(np.prod(shape, dtype=np.int64))

    def one(k):
        if dtype == np.float32:
            w = _blocks(k, (n + 3) // 4)
            words = np.stack(w, axis=1).reshape(-1)[:n]
            return ((words >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)).reshape(shape)
        return (_bits53(k, n).astype(np.float64) * 2.0 ** -53).reshape(shape)
    return _per_key(keys, one)


def rng_normal(keys, dtype, shape):
    n = int(np.prod(shape, dtype=np.int64))

    def one(k):
        u = _bits53(k, 2 * ((n + 1) // 2)).astype(np.float64) * 2.0 ** -53
        u1, u2 = u[0::2], u[1::2]
        r = np.sqrt(-2.0 * np.log(1.0 - u1))
        th = 2.0 * np.pi * u2
        z = np.stack([r * np.cos(th), r * np.sin(th)], axis=1).reshape(-1)[:n]
        return z.reshape(shape).astype(dtype)
    return _per_key(keys, one)


def rng_bernoulli(keys, p):
    p = np.asarray(p, dtype=np.float64)

    def one(k):
        u = _bits53(k, p.size).astype(np.float64) * 2.0 ** -53
        return (u < p.reshape(-1)).reshape(p.shape)
    return _per_key(keys, one)


def rng_categorical(keys, logits):
    logits = np.asarray(logits, dtype=np.float64)

    def one(k):
        v = ((_bits53(k, logits.size) >> np.uint64(1)).astype(np.float64) + 0.5) * 2.0 ** -52
        with np.errstate(invalid="ignore"):
            score = logits.reshape(-1) - np.log(-np.log(v))
        score = score.reshape(logits.shape)
        out = np.zeros(logits.shape[:-1], dtype=np.int64)
        for idx in np.ndindex(*logits.shape[:-1]):
            row, best = score[idx], -np.inf
            for j, s in enumerate(row):
                if s > best:
                    best, out[idx] = s, j
        return out
    return _per_key(keys, one)


def _check_philox_known_answers():
    """Random123's kat_vectors, the three philox4x32 10 lines."""
    cases = [([0, 0, 0, 0], [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]),
             ([0xffffffff] * 4, [0xffffffff] * 2, [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]),
             ([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0],
              [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1])]
    for ctr, key, want in cases:
        got = [int(w) for w in philox4x32_10([np.uint64(c) for c in ctr], [np.uint64(k) for k in key])]
        assert got == want, (ctr, key, [hex(g) for g in got])


_check_philox_known_answers()


@ops
def random_draws(d, n):
    p = d["p"]
    k = rng_key(42)
    ks = rng_split(k, 4)
    kx = rng_key(np.array([0, -1, 2 ** 63 - 1, -(2 ** 63 - 1)], dtype=np.int64))
    f = rng_fold_in(k, np.arange(n["N"]))
    logits = np.array([[0.0, -np.inf, 1.0], [700.0, -700.0, 700.0], [-np.inf, -np.inf, 2.5],
                       [1e300, 0.0, -1e300]])
    return (kx, ks, ks[2], rng_fold_in(k, 2), f,
            rng_uniform(k, f64, (3, 5)), rng_uniform(ks[1], f32, (7,)), rng_uniform(ks, f64, (2,)),
            rng_normal(k, f64, (5,)), rng_normal(rng_fold_in(k, -3), f32, (2, 3)),
            rng_normal(f, f64, (3,)),
            rng_bernoulli(k, p), rng_bernoulli(ks, p + 0.5),
            rng_categorical(k, logits), rng_categorical(ks, logits[0]))


@scan
def random_per_step(d, n):
    X, T = d["X"], n["T"]
    s, k = np.zeros(3), rng_key(7)
    S, KS = [], []
    for _ in range(T):
        two = rng_split(k, 2)
        s = s + rng_normal(two[1], f64, (3,))
        k = two[0]
        S.append(s)
        KS.append(k)
    K = rng_key(7)
    Y = [X[t] + rng_uniform(rng_fold_in(K, t), f64, (3,)) for t in range(T)]
    return (np.array(S), np.array(KS, dtype=np.int64), np.array(Y))


@ops
def random_keys_moved(d, n):
    c, N = d["c"], n["N"]
    ks, js = rng_split(rng_key(3), N), rng_split(rng_key(4), 4)
    w = np.where(c, ks, js)
    r = np.concatenate([ks[1:3], js[::-1]]).reshape(2, 3)
    t = r.T
    S = np.array([rng_uniform(k, f64, (2,)) for k in ks])
    F = np.array([rng_fold_in(k, 5) for k in ks])
    return (w, r, t, S, F, ks.copy(), ks[-1], rng_uniform(w, f32, (3,)), rng_normal(t, f64, (2,)),
            ks[[3, 0, -1]])


# ---- combinators

@scan
def comb_map_one(d, n):
    X = d["X"]
    Y = steps(len(X), X.shape[1:])
    for t in range(len(X)):
        Y[t] = X[t] * np.exp(X[t])
    return (Y,)


@scan
def comb_map_two(d, n):
    X, Y = d["X"], d["Y"]
    Z = steps(len(X), X.shape[1:])
    for t in range(len(X)):
        Z[t] = X[t] - 2.0 * Y[t]
    return (Z,)


@scan
def comb_map_closure(d, n):
    X, w = d["X"], d["w"]
    Y = steps(len(X), ())
    for t in range(len(X)):
        Y[t] = np.dot(X[t], w)
    return (Y,)


@scan
def comb_map_nested(d, n):
    X = d["X"]
    Y = steps(len(X), X.shape[1:])
    for t in range(len(X)):
        for j in range(X.shape[1]):
            e = X[t, j]
            Y[t, j] = e * e + 1.0
    return (Y,)


@scan
def comb_reduce(d, n):
    X, a0 = d["X"], d["a0"]
    s, m = a0, a0
    for x in X:
        s = s + x
        m = np.maximum(m, x)
    return (s, m)


def _fold(acc, xs, f):
    for x in xs:
        acc = f(acc, x)
    return acc


def _scan(acc, xs, f):
    out = []
    for x in xs:
        acc = f(acc, x)
        out.append(acc)
    return out


def _half(acc, x):
    return acc * 0.5 + x


@scan
def comb_foldl(d, n):
    return (_fold(d["a0"], d["X"], _half),)


@scan
def comb_scanl(d, n):
    return (np.array(_scan(d["a0"], d["X"], _half)),)


@scan
def comb_foldr(d, n):
    return (_fold(d["a0"], d["X"][::-1], _half),)


@scan
def comb_scanr(d, n):
    X = d["X"]
    R = steps(len(X), X.shape[1:])
    acc = d["a0"]
    for t in reversed(range(len(X))):
        acc = _half(acc, X[t])
        R[t] = acc
    return (R,)


@scan
def comb_scalar_folds(d, n):
    v, s0 = d["v"], d["s0"]

    def f(acc, x):
        return acc * x - 1.0

    T = len(v)
    L, R = steps(T, ()), steps(T, ())
    acc = s0
    for t in range(T):
        acc = f(acc, v[t])
        L[t] = acc
    acc = s0
    for t in reversed(range(T)):
        acc = f(acc, v[t])
        R[t] = acc
    return (L, R, L[-1], R[0])


@scan
def comb_i64_fold(d, n):
    K, k0 = d["K"], d["k0"]

    def f(acc, k):
        return acc * 2 - k

    R = steps(len(K), k0.shape, i64)
    acc = k0
    for t in reversed(range(len(K))):
        acc = f(acc, K[t])
        R[t] = acc
    return (_fold(k0, K, f), R)


@scan
def comb_foldr_in_map(d, n):
    X, s0 = d["X"], d["s0"]
    Y = steps(len(X), ())
    for t in range(len(X)):
        acc = s0
        for j in reversed(range(X.shape[1])):
            acc = acc * 0.5 + X[t, j]
        Y[t] = acc
    return (Y,)


@scan
def comb_fold_empty(d, n):
    X, a0 = d["X"], d["a0"]
    kept = a0.copy()
    for x in X:
        if x.sum() > 0.0:
            kept = kept + x
    return (a0, a0, np.ones(n["N"]), a0, kept)


def _folds_symbolic(d, n):
    """Folds over T rows, T bound at run time (0 included): each gives its
    init when no step runs."""
    X, a0, b0, K = d["X"], d["a0"], d["b0"], d["K"]
    T, N = n["T"], n["N"]
    l = a0.copy()
    for x in X:
        l = l * 0.5 + x
    r = b0.copy()
    for x in X[::-1]:
        r = np.tanh(r + x)
    s = a0.copy()
    for x in X:
        s = s + x
    m = b0.copy()
    for x in X:
        m = np.maximum(m, x)
    k = np.ones(N, dtype=i64)
    for x in K:
        k = k * 3 + x
    cols = np.empty(N)
    for j in range(N):
        acc = 1.0
        for e in X[:, j]:
            acc = acc + e
        cols[j] = acc
    S = steps(T, (N,))
    acc = a0.copy()
    for t in range(T):
        acc = acc + X[t]
        S[t] = acc
    return (l, r, s, m, k, cols, S)


@scan
def comb_fold_symbolic_T0(d, n):
    return _folds_symbolic(d, n)


@scan
def comb_fold_symbolic_T4(d, n):
    return _folds_symbolic(d, n)


@scan
def comb_map_empty(d, n):
    N = n["N"]
    return (steps(0, (N,)), steps(0, (N,)))


# ------------------------------------------------------------------ mitmot


def mitmot_loop(n, tapes, taps, step):
    """Runs the MIT-MOT semantics of SPEC §1 (research §2.2) in plain Python.

    `tapes` are the initial tapes (copied), `taps[j] = (in_taps, out_taps)`
    of tape j, and `step(i, reads)` gets, per tape, the slots read at its
    in taps (copies) and returns, per tape, the values for its out taps.
    With m = min(in_taps): step i reads slot (i - m + T) mod len for each in
    tap T, then, after every read, writes slot i - m + S for each out tap S
    (no modulo; the slot must exist). Returns the final tapes.
    """
    tapes = [np.array(t, copy=True) for t in tapes]
    for t, (ins, outs) in zip(tapes, taps):
        assert len(t) >= n + max(ins + outs) - min(ins), "tape too short"
    for i in range(n):
        reads = []
        for t, (ins, _) in zip(tapes, taps):
            base = i - min(ins)
            reads.append([np.array(t[(base + tap) % len(t)], copy=True) for tap in ins])
        writes = step(i, reads)
        for t, (ins, outs), w in zip(tapes, taps, writes):
            base = i - min(ins)
            assert len(w) == len(outs)
            for tap, v in zip(outs, w):
                assert 0 <= base + tap < len(t)
                t[base + tap] = v
    return tapes


@scan
def mitmot_mode_compat(d, n):
    s = np.array([True, True, False, True, False])
    eye = np.eye(2)
    A = np.zeros((6, 1, 1)) * eye
    B = np.arange(6).reshape(6, 1, 1).astype(f64) * eye

    def step(i, r):
        (a0, a1), (b0, b1) = r
        return [[(s[i] + a0) + a1], [s[i] * b0 + b1]]

    TA, TB = mitmot_loop(5, [A, B], [([0, 1], [1]), ([0, 1], [1])], step)
    assert TA.sum() == 44.0 and TB.sum() == 38.0
    return (TA, TB, np.float64(TA.sum()), np.float64(TB.sum()))


@scan
def mitmot_go_backwards(d, n):
    X, G, w = d["X"], d["G"], d["w"]
    T, N = X.shape
    tape = np.concatenate([G, np.zeros((1, N))])

    def step(i, r):
        ((g, g_next),) = r
        x = X[T - 1 - i]
        return [[g_next + (w * np.tanh(x)) * g]]

    (R,) = mitmot_loop(T, [tape], [([0, 1], [1])], step)
    return (R, R[-1])


@scan
def mitmot_mixed_states(d, n):
    X, Y, h0, B = d["X"], d["Y"], d["h0"], d["B"]
    n_steps = len(X) - 1
    H = steps(n_steps, h0.shape)
    Z = steps(n_steps, ())
    state = {"h": h0}

    def step(i, r):
        ((g0, g1),) = r
        x_prev, x, y, h = X[i], X[i + 1], Y[i], state["h"]
        H[i] = np.tanh(0.5 * h + (x - x_prev))
        Z[i] = np.sum(g0 * g1)
        state["h"] = H[i]
        return [[g1 + (y * g0) * h]]

    (G,) = mitmot_loop(n_steps, [B], [([0, 1], [1])], step)
    return (H, G, Z)


@scan
def mitmot_several_out_taps(d, n):
    G, a, b = d["G"], d["a"], d["b"]
    T, N = G.shape
    tape = np.concatenate([G, np.zeros((3, N))])

    def step(i, r):
        ((g0, g3, g1),) = r
        return [[g3 + a * g0, g1 + b * np.sin(g0)]]

    (R,) = mitmot_loop(T, [tape], [([0, 3, 1], [3, 1])], step)
    return (R,)


@scan
def mitmot_write_only_tap(d, n):
    A, B = d["A"], d["B"]

    def step(i, r):
        (a0,), (bm1, b0) = r
        return [[0.5 * a0 + 1.0], [bm1 * b0, b0 - bm1]]

    RA, RB = mitmot_loop(n["T"], [A, B], [([0], [2]), ([-1, 0], [0, -1])], step)
    return (RA, RB)


@scan
def mitmot_nested(d, n):
    X, c, S = d["X"], d["c"], d["S"]
    R, K, N = X.shape
    P = steps(R, (K + 1, N))
    for j in range(R):
        tape = np.concatenate([X[j], np.zeros((1, N))])

        def inner(i, r):
            ((g0, g1),) = r
            return [[g1 + c * g0]]

        (P[j],) = mitmot_loop(K, [tape], [([0, 1], [1])], inner)

    def outer(i, r):
        ((g0, g1),) = r
        acc = g0
        for row in X[i]:
            acc = acc + row * g0
        return [[g1 + 0.25 * acc]]

    (Q,) = mitmot_loop(R, [np.concatenate([S, np.ones((1, N))])], [([0, 1], [1])], outer)
    return (P, Q)


@scan
def mitmot_zero_steps(d, n):
    G, H = d["G"], d["H"]

    def step(i, r):
        ((g0, g1),) = r
        return [[(g1 * np.float32(0.5) + np.float32(1.0)).astype(f32)]]

    (Q,) = mitmot_loop(3, [H], [([0, 1], [1])], step)
    return (G.copy(), Q)


# ------------------------------------------------------- while loops (until)
#
# SPEC §1 "While loops (`until`)": a do-while. Each step runs its body,
# stores its outputs, then stops if its condition holds; n_steps (or the
# sequences' length) is only the most steps that may run. Every reference
# below checks how many steps ran (fewer than the bound, except
# while_never_fires and the inner loops of while_in_map that end at their
# n_steps) and, where the data rule decides the step, that no condition
# value is close to its threshold.


def until_fires(cond):
    """The truth of an `until` condition: a scalar bool, or a number that is
    non-zero (NaN included)."""
    c = np.asarray(cond)
    assert c.ndim == 0, "the condition must be a scalar"
    if c.dtype == np.bool_:
        return bool(c)
    return bool(c != 0) or bool(np.isnan(c))


@scan
def while_real_test_while(d, n):
    x = np.zeros(50)
    x[23] = 4.0
    rows = []
    for t in range(len(x)):
        rows.append(x[t] + 1.0)
        if until_fires(x[t] > 3.0):
            break
    O = np.array(rows)
    assert len(O) == 24 < len(x)
    return (O, np.float64(len(O)))


@scan
def while_sitsot_counter(d, n):
    M = np.int64(100)
    v, k = np.int64(0), np.int64(0)
    V, K = [], []
    for t in range(100):
        v, k = v + k, k + 1
        V.append(v)
        K.append(k)
        if until_fires(v > M):
            break
    V, K = np.array(V, dtype=i64), np.array(K, dtype=i64)
    assert len(V) == 15 < 100 and V[-1] == 105 and K[-1] == 15
    return (V, K, V[-1], K[-1])


@scan
def while_long_growth(d, n):
    x = d["x"]
    h, k = np.zeros(3), 0.0
    H, K, Y = [], [], []
    for t in range(100000):
        h, k = h * 0.5 + x, k + 1.0
        H.append(h)
        K.append(k)
        Y.append(h * k)
        if until_fires(k >= 300.0):
            break
    assert len(H) == 300
    return (np.array(H), np.array(K), np.array(Y))


@scan
def while_in_map(d, n):
    s = d["s"]
    assert s == 0.0
    ns = 5 - np.arange(5)
    R = steps(len(ns), ())
    lengths = []
    for j, m in enumerate(ns):
        z, Z = s, []
        for t in range(m - 1):
            z = z + 1.0
            Z.append(z)
            if until_fires(z > 2.0):
                break
        lengths.append(len(Z))
        R[j] = np.sum(np.array(Z, dtype=f64))
    assert lengths == [3, 3, 2, 1, 0] and lengths[0] < ns[0] - 1
    assert list(R) == [6.0, 6.0, 3.0, 1.0, 0.0]
    return (R,)


@scan
def while_index_nonseq(d, n):
    x = np.arange(20).astype(f64)
    rows = []
    for i in range(20):
        v = x[i]
        rows.append(v * v)
        if until_fires(v == 5.0):
            break
    R = np.array(rows)
    assert list(R) == [0.0, 1.0, 4.0, 9.0, 16.0, 25.0]
    return (R,)


@scan
def while_nonseq_cond(d, n):
    a, c, x = 1.5, 5.0, 1.0
    rows = []
    for t in range(50):
        x = a * x
        rows.append(x)
        if until_fires(x > c):
            break
    X = np.array(rows)
    assert list(X) == [1.5, 2.25, 3.375, 5.0625]
    return (X, X[-1])


@scan
def while_mitsot_fib(d, n):
    buf = [0.0, 1.0]
    rows = []
    for t in range(30):
        xm2, xm1 = buf[-2], buf[-1]
        rows.append(xm2 + xm1)
        buf.append(rows[-1])
        if until_fires(xm1 >= 34.0):
            break
    F = np.array(rows)
    assert list(F) == [1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0, 55.0]
    return (F, F[-1])


@scan
def while_map_until(d, n):
    s = np.arange(30).astype(f64)
    rows = []
    for t in range(25):
        y = s[t] + 1.0
        rows.append(y)
        if until_fires(y >= 10.0):
            break
    Y = np.array(rows)
    assert len(Y) == 10 < 25
    return (Y, Y[-1])


@scan
def while_sitsot_and_nitsot(d, n):
    X, s = d["X"], d["s0"]
    S, Y = [], []
    for t in range(len(X)):
        s = s * 0.5 + X[t]
        y = np.sum(s * s)
        S.append(s)
        Y.append(y)
        assert abs(y - 0.3) > 0.2
        if until_fires(y < 0.3):
            break
    S, Y = np.array(S), np.array(Y)
    assert len(Y) == 4 < len(X)
    return (S, Y, S[-1] - Y.sum())


@scan
def while_go_backwards(d, n):
    X = d["X"]
    a, rows = 0.0, []
    for t in range(16):
        a = a + X[len(X) - 1 - t]
        rows.append(a)
        assert abs(a + 1.5) > 0.05
        if until_fires(a < -1.5):
            break
    A = np.array(rows)
    assert len(A) == 9 < 16
    return (A,)


@scan
def while_numeric_cond(d, n):
    X, a = d["X"], d["a0"]
    rows = []
    for t in range(len(X)):
        a = a + X[t]
        rows.append(a)
        assert abs(a - 3.0) > 0.05
        if until_fires(np.maximum(0.0, a - 3.0)):
            break
    A = np.array(rows)
    assert len(A) == 8 < len(X)
    return (A,)


@scan
def while_nan_cond(d, n):
    X = d["X"]
    rows = []
    for t in range(len(X)):
        x = X[t]
        rows.append(x * x)
        assert abs(x + 0.3) > 0.03
        if until_fires(np.where(x < -0.3, np.nan, 0.0)):
            break
    Y = np.array(rows)
    assert len(Y) == 12 < len(X)
    return (Y,)


@scan
def while_never_fires(d, n):
    X = d["X"]
    rows = []
    for t in range(len(X)):
        y = np.tanh(X[t])
        rows.append(y)
        if until_fires(np.sum(y) > 100.0):
            break
    Y = np.array(rows)
    assert len(Y) == len(X)
    return (Y, Y.sum())


@scan
def while_first_step(d, n):
    a = d["a0"]
    rows = []
    for t in range(8):
        a = a * 0.5 + 1.0
        rows.append(a)
        if until_fires(np.sum(a) < 100.0):
            break
    A = np.array(rows)
    assert len(A) == 1
    return (A, A[-1])


@scan
def while_real_power_of_2(d, n):
    p, max_value = 1.0, 45.0
    rows = []
    for t in range(1024):
        p = p * 2.0
        rows.append(p)
        if until_fires(p > max_value):
            break
    P = np.array(rows)
    assert list(P) == [2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
    return (P,)


@scan
def while_real_pushout_while(d, n):
    W1, W2 = d["W1"], d["W2"]
    idx = np.arange(5).astype(f64)
    rows = []
    for t in range(5):
        rows.append(np.dot(W1[t], W2))
        if until_fires(idx[t] > 2.0):
            break
    O = np.array(rows)
    assert len(O) == 4 < 5
    return (O,)


@scan
def while_real_newton(d, n):
    M = d["M"]
    E, rows = M, []
    for t in range(50):
        dd = (E - 0.5 * np.sin(E) - M) / (1.0 - 0.5 * np.cos(E))
        E = E - dd
        rows.append(E)
        r = np.max(np.abs(dd))
        assert r < 1e-12 or r > 1e-8, "a step too close to the tolerance"
        if until_fires(r < 1e-10):
            break
    E = np.array(rows)
    assert len(E) == 5 < 50
    assert np.allclose(E[-1] - 0.5 * np.sin(E[-1]), M, rtol=0, atol=1e-14)
    return (E, E[-1])


@scan
def while_last_value_newton_sqrt(d, n):
    a = np.exp(d["A"])
    x, k = a, 0.0
    for t in range(1000):
        x = 0.5 * (x + a / x)
        k = k + 1.0
        r = np.max(np.abs(x * x - a) / a)
        assert r < 1e-14 or r > 1e-11, "a step too close to the tolerance"
        if until_fires(r < 1e-12):
            break
    assert k == 19.0
    assert np.allclose(x, np.sqrt(a), rtol=1e-15, atol=0)
    return (x, np.float64(k))


@scan
def while_newton_1e9(d, n):
    # while_last_value_newton_sqrt with n_steps 10^9: the same 19 steps.
    return while_last_value_newton_sqrt(d, n)


# ------------------------------------------------------------------ i32


@ops
def i32_promote(d, n):
    K, J, F, D, B = d["K"], d["J"], d["F"], d["D"], d["B"]
    return (K + K, K + J, K + F, K * D, K + B, K - 1, K * 2.5, np.maximum(K, F),
            np.minimum(K, J), np.where(B, K, 7), np.where(B, K, J), np.where(B, K, 0.5),
            np.clip(K, -2, 3), K < 3000000000, K > -3000000000, K == F, -K, np.abs(K),
            np.sign(K), np.floor(K), np.round(K), np.exp(K), np.sqrt(np.abs(K)),
            np.stack([K, K]), np.concatenate([K, K], 0))


@ops
def i32_wrap(d, n):
    K = d["K"]
    T = np.array([2147483647, -2147483648, 5, -1], dtype=i32)
    M = np.array(2147483647, dtype=i32)
    N = np.array(-2147483648, dtype=i32)
    with np.errstate(over="ignore"):
        return (T + 1, T * -1, -T, np.abs(T), T * T, T ** 3, T - 2147483647,
                M + 1, N * -1, -N, np.abs(N), M * M, M ** 2, N - 1,
                K + K, K * K, K * 3, K - 2147483647, K ** 2)


@ops
def i32_reduce(d, n):
    X = d["X"]
    with np.errstate(over="ignore"):
        return (X.sum(), X.sum(0), X.sum(-1), X.prod(), X.prod(1), np.cumsum(X, 1),
                np.cumsum(X, 0), np.cumprod(X, 1), X.max(), X.max(0), X.min(1),
                np.argmax(X), np.argmin(X, 0), np.argmax(X, 1), X.mean(), X.mean(1),
                (X + X).sum())


@ops
def i32_divmod(d, n):
    K = d["K"]
    A = np.array([7, -7, 7, -7, 0, -2147483648, -2147483648], dtype=i32)
    B = np.array([3, 3, -3, -3, 0, -1, 0], dtype=i32)
    with np.errstate(all="ignore"):
        return (A / B, A // B, A % B, A // -2, A % 5, K // 0, K % 0, K / 2, K // -3,
                K % -3, A // 2.5, K ** 2, K ** np.array([0, 1, 2, 3, 31, 13], dtype=i32))


@ops
def i32_cast(d, n):
    K, J, B = d["K"], d["J"], d["B"]
    E = np.array([np.nan, np.inf, -np.inf, 3e9, -2.7, 2.7, -2147483648.0, 2147483647.5,
                  2147483648.0, -2147483649.0])
    with np.errstate(invalid="ignore"):
        return (E.astype(i32), E.astype(f32).astype(i32), J.astype(i32), B.astype(i32),
                K.astype(i64), K.astype(f64), K.astype(f32), K.astype(bool), K.astype(i32))


@ops
def i32_matmul(d, n):
    A, C, v, D = d["A"], d["C"], d["v"], d["D"]
    return (A @ C, np.dot(A, C), np.dot(A, v), np.dot(v, v), A @ D, np.stack([A, A]) @ C)


@ops
def i32_update(d, n):
    X, R, B = d["X"], d["R"], d["B"]

    def put(value, *where):
        Y = X.copy()
        Y[where] = value
        return Y

    return (put(R, 0), put(2147483647, 1, 2), put(B, slice(1, 3, 1)),
            put(-2147483648, slice(0, 3, 2)), X[np.array([2, 0, -1])],
            X[:, np.array([1, 3])], X[1], X[-1, 2], X[0:3:2], X.T, X.reshape(4, 3),
            np.zeros(2, i32), np.ones(2, i32), np.full(2, -7, i32))


@scan
def i32_counter_wraps(d, n):
    S, c0 = d["S"], d["c0"]
    T = n["T"]
    C = np.zeros(T, i32)
    A = np.zeros(T, i32)
    W = np.zeros(T, i64)
    c, a = c0 + 2147483640, c0
    with np.errstate(over="ignore"):
        for t in range(T):
            W[t] = a.astype(i64) + S[t]
            c = c + 3
            a = a + S[t]
            C[t], A[t] = c, a
    return (C, A, W, C.sum(), C[-1])


@scan
def i32_seq_float_state(d, n):
    K, X, h0 = d["K"], d["X"], d["h0"]
    T = n["T"]
    H = np.zeros((T, len(h0)))
    G = np.zeros(T, i32)
    h, g = h0, np.array(1, dtype=i32)
    with np.errstate(over="ignore"):
        for t in range(T):
            h = np.tanh(h * 0.5 + X[t] * (K[t].astype(f64) * 1e-9))
            g = g * 3 + K[t][0]
            H[t], G[t] = h, g
    return (H, G, H.sum(0))


# --------------------------------------------------------------------- main

ALLOWED = {np.dtype(t) for t in DTYPES.values()}


def write_case(group, name):
    path = os.path.join(CASES, group, name + ".sexp")
    inputs, dims, scales = read_case(path)
    d = make_inputs(inputs, dims, scales)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        outs = REFS[group][name](d, dims)
    outdir = os.path.join(CASES, group, name + ".expected")
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    for k, o in enumerate(outs):
        o = np.asarray(o)
        if o.dtype not in ALLOWED:
            raise SystemExit(f"{group}/{name}: output {k} has dtype {o.dtype}")
        np.save(os.path.join(outdir, f"out_{k}.npy"), o)
    return len(outs)


def fail_fixtures():
    """Small files for tests/cases/fail (bad --input files)."""
    d = os.path.join(ROOT, "tests", "fixtures", "npy")
    os.makedirs(d, exist_ok=True)
    x = data_rule(0, (4, 3), "f64", 1.0)
    np.save(os.path.join(d, "f64_4x3.npy"), x)
    np.save(os.path.join(d, "f64_3x4.npy"), x.reshape(3, 4))
    np.save(os.path.join(d, "f64_5x4.npy"), data_rule(0, (5, 4), "f64", 1.0))
    np.save(os.path.join(d, "i64_3x4.npy"), np.arange(12, dtype=np.int64).reshape(3, 4))
    with open(os.path.join(d, "not_npy.npy"), "w") as f:
        f.write("this is a text file, not a .npy array\n")
    with open(os.path.join(d, "truncated.npy"), "wb") as f:
        f.write(open(os.path.join(d, "f64_3x4.npy"), "rb").read()[:100])

    def with_header(dict_text, data):
        h = dict_text.encode()
        while (10 + len(h) + 1) % 64:
            h += b" "
        h += b"\n"
        return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data

    # A header that claims 10^12 elements over 8 bytes of data.
    with open(os.path.join(d, "huge_header.npy"), "wb") as f:
        f.write(with_header(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }",
            b"\0" * 8))
    # A header whose dictionary never closes.
    with open(os.path.join(d, "bad_header.npy"), "wb") as f:
        f.write(with_header(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), ", b"\0" * 96))
    print(f"wrote {d}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="+", metavar="NAME", help="only these cases")
    p.add_argument("--fail-fixtures", action="store_true",
                   help="also write tests/fixtures/npy/* for tests/bad_input.rs")
    a = p.parse_args(argv)
    if np.lib.NumpyVersion(np.__version__) < "2.0.0":
        raise SystemExit("NumPy 2 is required (NEP 50 promotion of Python scalars)")
    problems, count = [], 0
    for group in GROUPS:
        gdir = os.path.join(CASES, group)
        files = sorted(f[:-5] for f in os.listdir(gdir) if f.endswith(".sexp"))
        for name in set(REFS[group]) - set(files):
            problems.append(f"{group}/{name}: reference without a case file")
        for name in files:
            if name not in REFS[group]:
                problems.append(f"{group}/{name}.sexp: no reference function")
                continue
            if a.only and name not in a.only:
                continue
            write_case(group, name)
            count += 1
        for e in os.listdir(gdir):
            if e.endswith(".expected") and e[:-9] not in files:
                shutil.rmtree(os.path.join(gdir, e))
    if a.fail_fixtures:
        fail_fixtures()
    print(f"wrote expectations for {count} cases")
    for m in problems:
        print("error:", m, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
