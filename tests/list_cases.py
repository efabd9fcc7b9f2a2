#!/usr/bin/env python3
"""NumPy references for the list cases of eqscan (`tests/cases/lists/`).

Each case is a program `tests/cases/lists/<name>.sexp` whose inputs include
nested lists (SPEC §1 "Nested lists (FractalTensors)"). A list is held here
as a Python list of (Python lists of ...) NumPy arrays, written independently
of eqscan, and travels as a `.npz` archive: `values` (the innermost tensors
stacked along a new axis 0) and `row_splits_0`, `row_splits_1`, ...
(outermost first, int64).

For each case this file holds its inputs and a function computing the
expected outputs from them. Running

    python3 tests/list_cases.py     # from the repository root (NumPy 2)

writes `<name>.inputs/<INPUT>.npz|npy` (the inputs, one file per input
name) and `<name>.expected/out_K.npz|npy` for every case (stale files
removed), and fails if a case file has no reference or a reference no case
file. A case whose inputs are generated (`; gen: L=2,0,1` header: `eqscan
run --gen --lengths L=2,0,1`) gets no `.inputs` folder: its inputs are the
data rule's, computed here as eqscan computes them (input k, element i:
0.5 * sin(0.37 i + 1.3 k) * scale over the list's `values`).
`--fixtures` (re)writes the malformed archives of `tests/fixtures/npz/`
that the bad-input cases read.

`tests/list_cases.rs` runs each case with eqscan (optimized and `--no-opt`)
and compares dtype, splits and values (rtol 1e-9, atol 1e-12, nan = nan).
"""
import argparse
import os
import shutil
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests", "cases", "lists")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "npz")


# ------------------------------------------------------------ list layout


class L(list):
    """A nested list with its innermost element shape and dtype, so an
    empty list still knows what it holds."""

    def __init__(self, items, shape, dtype, depth=None):
        super().__init__(items)
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.depth = depth if depth is not None else 1 + (
            items[0].depth if items and isinstance(items[0], L) else 0)


def to_parts(lst):
    """The canonical layout of a nested list: values, row splits."""
    splits = [[0, len(lst)]]
    level = [lst]
    for _ in range(lst.depth - 1):
        s, nxt, at = [0], [], 0
        for parent in level:
            for child in parent:
                at += len(child)
                s.append(at)
                nxt.append(child)
        splits.append(s)
        level = nxt
    tensors = [t for parent in level for t in parent]
    if tensors:
        values = np.stack([np.asarray(t, dtype=lst.dtype) for t in tensors])
    else:
        values = np.zeros((0,) + lst.shape, dtype=lst.dtype)
    return values, [np.asarray(s, dtype=np.int64) for s in splits]


def from_lengths(values, levels, shape, dtype):
    """The nested list with lengths `levels` (outermost first) over the rows
    of `values`."""
    depth = len(levels)
    rows = [values[i] for i in range(values.shape[0])]

    def build(k, pos):
        # The list at depth k with position `pos` among that depth's lists.
        n = levels[k][pos]
        start = sum(levels[k][:pos])
        if k == depth - 1:
            return L(rows[start:start + n], shape, dtype, 1)
        return L([build(k + 1, start + j) for j in range(n)], shape, dtype, depth - k)

    return build(0, 0)


def save_list(path, lst):
    values, splits = to_parts(lst)
    arrays = {"values": values}
    arrays.update({f"row_splits_{k}": s for k, s in enumerate(splits)})
    np.savez(path, **arrays)


def data_rule(k, n, scale=1.0):
    i = np.arange(n, dtype=np.float64)
    return 0.5 * np.sin(0.37 * i + 1.3 * k) * scale


def gen_list(k, levels, shape, dtype=np.float64, scale=1.0):
    count = sum(levels[-1])
    n = count * int(np.prod(shape, dtype=np.int64))
    v = data_rule(k, n, scale).reshape((count,) + tuple(shape))
    return from_lengths(cast(v, dtype), levels, shape, dtype)


def gen_tensor(k, shape, dtype=np.float64, scale=1.0):
    n = int(np.prod(shape, dtype=np.int64))
    return cast(data_rule(k, n, scale).reshape(shape), dtype)


def cast(v, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.int64:
        return np.round(10 * v).astype(np.int64)
    if dtype == np.int32:
        return np.round(10 * v).astype(np.int64).astype(np.int32)
    if dtype == np.bool_:
        return v > 0
    return v.astype(dtype)


def lst(items, shape, dtype=np.float64):
    """A list literal: `items` are arrays or lists made by `lst`."""
    return L(items, shape, dtype)


# ------------------------------------------------------------ cases

CASES_TABLE = {}


def case(inputs=None, gen=None):
    """Registers a reference: `inputs` (name -> value) are written to the
    case's `.inputs` folder; `gen` (a function) gives the generated inputs
    the case's `; gen:` header asks eqscan for."""

    def wrap(f):
        CASES_TABLE[f.__name__] = (inputs, gen, f)
        return f

    return wrap


def rows(n, w, k=0, scale=1.0, dtype=np.float64):
    """The rows of an (n, w) array of the data rule's values (input k)."""
    x = gen_tensor(k, (n, w), dtype, scale)
    return [x[j] for j in range(n)]


A3 = rows(4, 3, k=0)


@case(inputs={"L": lst(A3, (3,))})
def len_index_d1(i):
    xs = i["L"]
    return [np.int64(len(xs)), xs[0], xs[-1], xs[2] * 2.0, xs]


@case(inputs={"X": gen_tensor(1, (5, 2))})
def stack_unstack(i):
    x = i["X"]
    un = lst([x[j] for j in range(5)], (2,))
    return [un, np.stack(list(un)), np.int64(len(un)), np.int64(x.shape[0])]


D2 = lst([lst(rows(2, 2, k=2), (2,)), lst([], (2,)), lst(rows(3, 2, k=3), (2,))], (2,))


@case(inputs={"L": D2})
def d2_flatten_index(i):
    xs = i["L"]
    flat = lst([t for inner in xs for t in inner], (2,))
    return [flat, xs[1], np.stack(xs[2]), np.int64(len(xs[1])), np.stack(flat),
            np.sum(np.stack(xs[0])), np.zeros((0, 2)), xs]


def d3_value():
    t = rows(4, 2, k=4, dtype=np.int64)
    a = lst([lst(t[0:3], (2,), np.int64)], (2,), np.int64)
    b = lst([lst([], (2,), np.int64), lst(t[3:4], (2,), np.int64)], (2,), np.int64)
    return lst([a, b], (2,), np.int64)


@case(inputs={"L": d3_value()})
def d3_nested(i):
    xs = i["L"]
    f1 = lst([inner for mid in xs for inner in mid], (2,), np.int64)
    f2 = lst([t for inner in f1 for t in inner], (2,), np.int64)
    return [xs[1][0], f1, f2, np.stack(f2), np.int64(len(f1)), xs[-1],
            np.stack(xs[0][0]).sum(axis=0)]


@case(inputs={"L": lst([], (3,), np.float32)})
def empty_outer(i):
    xs = i["L"]
    return [np.int64(0), np.zeros((0, 3), np.float32), xs]


def d1_extreme():
    big = np.array([1e308, -1e308, 5e-324])
    return lst([big, np.array([np.inf, -0.0, np.nan]), -big], (3,))


@case(inputs={"L": d1_extreme(), "W": np.eye(3) * 0.5})
def extreme_magnitudes(i):
    xs, w = i["L"], i["W"]
    with np.errstate(over="ignore", invalid="ignore"):
        return [np.stack(xs), xs[0] * 10.0, np.dot(w, xs[0]), xs[1], xs]


@case(gen=lambda: {"L": gen_list(0, [[3], [2, 0, 1]], (4,)),
                   "W": gen_tensor(1, (4, 4))})
def gen_lengths(i):
    xs, w = i["L"], i["W"]
    seq0 = np.stack(xs[0])
    return [xs, np.dot(seq0, w), np.int64(len(xs[1])), np.stack(xs[2]).sum()]


@case(gen=lambda: {"L": gen_list(0, [[3], [2, 3, 0], [2, 3, 0, 1, 2]], (2,))})
def gen_default_rule_d3(i):
    xs = i["L"]
    f1 = lst([inner for mid in xs for inner in mid], (2,))
    return [xs, f1, np.int64(len(f1))]


@case(inputs={"L": lst(rows(3, 4, k=5), (4,)), "V": gen_tensor(6, (4,))})
def symbolic_element(i):
    xs, v = i["L"], i["V"]
    return [np.stack(xs) * v, np.int64(4), xs[1] + v]


@case(inputs={"L": lst(rows(5, 3, k=7), (3,)), "W": gen_tensor(8, (3, 3))})
def loops_d1(i):
    xs, w = i["L"], i["W"]
    m = lst([np.tanh(w @ x) for x in xs], (3,))
    s = np.zeros(3)
    for x in xs:
        s = s + x
    fl = np.zeros(3)
    for x in xs:
        fl = fl * 0.5 + x
    fr = np.zeros(3)
    for x in reversed(xs):
        fr = fr * 0.5 + x
    sl, acc = [], np.zeros(3)
    for x in xs:
        acc = np.maximum(acc, x)
        sl.append(acc)
    sr, acc = [None] * len(xs), np.zeros(3)
    for t in reversed(range(len(xs))):
        acc = acc + xs[t]
        sr[t] = acc
    f = lst([x for x in xs if x.sum() > 0.0], (3,))
    fa = lst([x for x in xs if x.max() < 0.2], (3,))
    sums = lst([np.sum(x) for x in xs], ())
    return [m, s, fl, fr, lst(sl, (3,)), lst(sr, (3,)), f, fa, np.int64(len(f)), sums]


@case(inputs={"L": lst([], (2,))})
def loops_empty(i):
    e = lst([], (2,))
    return [e, e, e, np.zeros((0, 2)), np.int64(0)]


@case(gen=lambda: {"L": gen_list(0, [[3], [2, 0, 3]], (2,)),
                   "U": gen_tensor(1, (2, 2))})
def loops_over_element(i):
    xs, u = i["L"], i["U"]
    h = np.zeros(2)
    for x in xs[2]:
        h = np.tanh(u @ h + x)
    flat = [t for inner in xs for t in inner]
    return [h, lst([np.sum(x * x) for x in flat], ())]


@case(inputs={"L": d1_extreme(), "D": d3_value()})
def loops_extreme(i):
    xs, d = i["L"], i["D"]
    with np.errstate(over="ignore", invalid="ignore"):
        m = lst([x * 10.0 for x in xs], (3,))
        sl, acc = [], np.zeros(3)
        for x in xs:
            acc = acc + x
            sl.append(acc)
        f = lst([x for x in xs if np.max(x) > 1e300], (3,))
    flat = [t for mid in d for inner in mid for t in inner]
    return [m, lst(sl, (3,)), f, lst([t * 3 for t in flat], (2,), np.int64)]


@case(inputs={"E": lst([], (3,)), "S": lst([lst(rows(4, 3, k=9), (3,)), lst([], (3,))], (3,)),
             "Z": np.zeros((0, 3)), "H": gen_tensor(3, (3,))})
def fold_empty(i):
    s, h = i["S"], i["H"]
    big = np.array([1e308, -0.0, 5e-324])
    n = h.copy()
    for x in s[0]:
        n = np.tanh(n + x)
    return [big, h, h, n, big, h, np.int64(7)]


@case(inputs={"L": lst([np.zeros((0, 2))] * 3, (0, 2)), "v": np.array([5e-324, -1e300])})
def fold_symbolic_empty(i):
    v = i["v"]
    with np.errstate(over="ignore"):
        big = v * 1e300
    return [lst([v, v, v], (2,)), lst([big, big, big], (2,)), v, np.zeros((0, 2)), np.int64(0)]


def map_lists_inputs():
    big = np.array([[1e300, -5e-324], [3.0, -1e-300], [-2.0, 0.5]])
    l2 = lst([lst([big[0], big[1]], (2,)), L([], (2,), np.float64, 1), lst([big[2]], (2,))], (2,))
    m3 = L([L([lst(rows(2, 2, k=3), (2,)), L([], (2,), np.float64, 1)], (2,), np.float64, 2),
            L([], (2,), np.float64, 2),
            L([lst(rows(1, 2, k=4), (2,))], (2,), np.float64, 2)], (2,), np.float64, 3)
    v = lst([np.array([1.0, -2.0, 1e300, 0.0]), np.array([-1.0, -2.0, -3.0, -0.0]),
             np.array([5e-324, 2.0, -1e-300, 4.0])], (4,))
    return {"L": l2, "M": m3, "V": v, "h": np.array([0.25, -1e300])}


@case(inputs=map_lists_inputs())
def map_returns_lists(i):
    l2, m3, v, h = i["L"], i["M"], i["V"], i["h"]
    doubled = L([L([x * 2.0 for x in s], (2,), np.float64, 1) for s in l2], (2,), np.float64, 2)
    scans = []
    for s in l2:
        acc, out = h.copy(), []
        for x in s:
            acc = acc + x
            out.append(acc)
        scans.append(L(out, (2,), np.float64, 1))
    kept = L([L([np.float64(e) for e in x if e > 0.0], (), np.float64, 1) for x in v], (), np.float64, 2)
    deep = L([L([L([np.tanh(x) for x in s], (2,), np.float64, 1) for s in b], (2,), np.float64, 2)
              for b in m3], (2,), np.float64, 3)
    states, acc = [None] * len(l2), h.copy()
    for t in reversed(range(len(l2))):
        total = np.stack(l2[t]).sum(0) if len(l2[t]) else np.zeros(2)
        acc = acc * 0.5 + total
        states[t] = acc
    return [doubled, L(scans, (2,), np.float64, 2), kept, deep, lst(states, (2,)), np.int64(0)]


def seqs_value():
    """Five sequences of 4-vectors, lengths 3, 0, 2, 5, 1; one holds 1e300."""
    lens = [3, 0, 2, 5, 1]
    xs = rows(sum(lens), 4, k=11)
    xs[4] = np.array([1e300, -0.5, 0.25, 0.0])
    out, at = [], 0
    for n in lens:
        out.append(lst(xs[at:at + n], (4,)))
        at += n
    return lst(out, (4,))


def elman(w_x, w_h, b, h, seq, reverse=False):
    order = reversed(range(len(seq))) if reverse else range(len(seq))
    for t in order:
        h = np.tanh(w_x @ seq[t] + w_h @ h + b)
    return h


@case(inputs={"L": seqs_value(), "Wx": gen_tensor(12, (3, 4)), "Wh": gen_tensor(13, (3, 3)),
             "b": gen_tensor(14, (3,)), "H0": gen_tensor(15, (5, 3))})
def seqs_map_loops(i):
    ls, wx, wh, b, h0 = i["L"], i["Wx"], i["Wh"], i["b"], i["H0"]
    z = np.zeros(3)
    hs = [elman(wx, wh, b, z, s) for s in ls]
    hr = [elman(wx, wh, z, b, s, reverse=True) for s in ls]
    hz = [elman(wx, wh, z, h0[k], s) for k, s in enumerate(ls)]
    acc, a = [], np.zeros(4)
    for s in ls:
        a = a + (np.sum(np.stack(s), 0) if len(s) else np.zeros(4))
        acc.append(a)
    count = np.int64(sum(len(s) for s in ls))
    pairs = lst([np.int64(len(s) * len(s)) for s in ls], (), np.int64)
    cap = lst([np.int64(len(s) * len(ls[3])) for s in ls], (), np.int64)
    return [lst(hs, (3,)), lst(hr, (3,)), lst(hz, (3,)), np.stack(acc), count, pairs, cap,
            np.sum(np.stack(hs))]


def seqs_small():
    """Five sequences of 4-vectors, lengths 3, 0, 2, 5, 1 (moderate values)."""
    lens = [3, 0, 2, 5, 1]
    xs = rows(sum(lens), 4, k=21)
    out, at = [], 0
    for n in lens:
        out.append(lst(xs[at:at + n], (4,)))
        at += n
    return lst(out, (4,))


def check_by_differences(cost, params, grads):
    """Asserts `grads` (one per parameter) agree with central differences
    of `cost(params, np)`."""
    for k, p in enumerate(params):
        fd = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            step = 1e-6 * max(1.0, abs(p[idx]))
            up = [q.copy() for q in params]
            dn = [q.copy() for q in params]
            up[k][idx] += step
            dn[k][idx] -= step
            fd[idx] = (cost(up, np) - cost(dn, np)) / (2 * step)
        assert np.allclose(fd, grads[k], rtol=1e-6, atol=1e-8), (k, fd, grads[k])


def rnn_grads(ls, wx, wh, b, h0):
    """The cost (sum of squares of the final states) and its gradients with
    respect to (wx, wh, b, h0), by JAX in float64, checked against central
    finite differences of the NumPy cost."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    seqs = [np.stack(s) if len(s) else np.zeros((0, 4)) for s in ls]

    def cost(params, xp):
        wx, wh, b, h0 = params
        total = 0.0
        for s in seqs:
            h = h0
            for x in s:
                h = xp.tanh(wx @ x + wh @ h + b)
            total = total + xp.sum(h * h)
        return total

    params = (wx, wh, b, h0)
    grads = jax.grad(lambda p: cost(p, jnp))(tuple(jnp.asarray(p) for p in params))
    grads = [np.asarray(g) for g in grads]
    check_by_differences(cost, params, grads)
    return np.float64(cost(params, np)), grads


@case(inputs={"L": seqs_small(), "Wx": gen_tensor(22, (3, 4)), "Wh": gen_tensor(23, (3, 3)),
             "b": gen_tensor(24, (3,)), "h0": gen_tensor(25, (3,))})
def seqs_grad(i):
    c, g = rnn_grads(i["L"], i["Wx"], i["Wh"], i["b"], i["h0"])
    return [c] + g


def seqs_of(lens, k, w=4, scale=1.0):
    """Sequences of w-vectors of the data rule (input k) with lengths `lens`."""
    xs = rows(sum(lens), w, k=k, scale=scale)
    out, at = [], 0
    for n in lens:
        out.append(lst(xs[at:at + n], (w,)))
        at += n
    return lst(out, (w,))


@case(inputs={"L": seqs_value(), "Wx": gen_tensor(31, (3, 4)), "Wh": gen_tensor(32, (3, 3)),
             "b": gen_tensor(33, (3,)), "h0": gen_tensor(34, (3,))})
def batch_edges(i):
    ls, wx, wh, b, h0 = i["L"], i["Wx"], i["Wh"], i["b"], i["h0"]
    hs = [elman(wx, wh, b, h0, s) for s in ls]
    hr = [elman(wx, wh, b, h0, s, reverse=True) for s in ls]
    return [lst(hs, (3,)), lst(hr, (3,)), np.sum(np.stack(hs) * np.stack(hr))]


@case(inputs={"L": seqs_of([0, 4, 0, 1, 7, 0], 41), "Wx": gen_tensor(42, (3, 4)),
             "Wh": gen_tensor(43, (3, 3)), "b": gen_tensor(44, (3,)), "h0": gen_tensor(45, (3,))})
def batch_grad(i):
    c, g = rnn_grads(i["L"], i["Wx"], i["Wh"], i["b"], i["h0"])
    return [c] + g


@case(inputs={"L": seqs_of([6], 51), "Wx": gen_tensor(52, (3, 4)), "Wh": gen_tensor(53, (3, 3)),
             "b": gen_tensor(54, (3,)), "h0": gen_tensor(55, (3,))})
def batch_one(i):
    c, g = rnn_grads(i["L"], i["Wx"], i["Wh"], i["b"], i["h0"])
    return [c] + g


@case(inputs={"L": seqs_of([2, 0, 3], 61, scale=1e300), "Wx": gen_tensor(62, (3, 4), scale=1e-300),
             "Wh": gen_tensor(63, (3, 3)), "b": gen_tensor(64, (3,), scale=1e300),
             "h0": gen_tensor(65, (3,), scale=1e-300)})
def batch_extreme(i):
    ls, wx, wh, b, h0 = i["L"], i["Wx"], i["Wh"], i["b"], i["h0"]
    hs = [elman(wx, wh, b, h0, s) for s in ls]
    H = np.stack(hs)
    return [lst(hs, (3,)), np.sum(H * H)]


def positive_seqs(lens, k):
    """Sequences of 4-vectors in [0.5, 1.5) (input k's data rule, shifted)."""
    xs = [np.abs(r) % 1.0 + 0.5 for r in rows(sum(lens), 4, k=k)]
    out, at = [], 0
    for n in lens:
        out.append(lst(xs[at:at + n], (4,)))
        at += n
    return lst(out, (4,))


@case(inputs={"L": positive_seqs([3, 0, 5, 2], 71), "w": np.abs(gen_tensor(72, (4,))) % 1.0 + 0.5,
             "a": gen_tensor(73, (3,)), "h0": gen_tensor(74, (3,))})
def batch_pole(i):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    seqs = [np.stack(s) if len(s) else np.zeros((0, 4)) for s in i["L"]]

    def cost(params, xp):
        w, a, h0 = params
        total = 0.0
        for s in seqs:
            h = h0
            for x in s:
                h = h * a + xp.log(xp.sum(x * w))
            total = total + xp.sum(h * h)
        return total

    params = (i["w"], i["a"], i["h0"])
    grads = jax.grad(lambda p: cost(p, jnp))(tuple(jnp.asarray(p) for p in params))
    grads = [np.asarray(g) for g in grads]
    check_by_differences(cost, params, grads)
    assert all(np.all(np.isfinite(g)) for g in grads)
    return [np.float64(cost(params, np))] + grads


def nested_inputs():
    """A list of sequences (lengths 2, 0, 3, 1), a list of lists of lists
    (empty lists at depths 2 and 3) and a list of 3-vectors, with 1e300,
    -1e-300 and 5e-324 among the values."""
    a = rows(6, 2, k=31)
    a[1] = np.array([1e300, -1e-300])
    a[4] = np.array([5e-324, -2.0])
    l2 = L([lst(a[0:2], (2,)), L([], (2,), np.float64, 1), lst(a[2:5], (2,)), lst(a[5:6], (2,))],
           (2,), np.float64, 2)
    m = rows(5, 2, k=32)
    m[3] = np.array([-1e300, 1e-300])
    m3 = L([L([lst(m[0:2], (2,)), L([], (2,), np.float64, 1)], (2,), np.float64, 2),
            L([], (2,), np.float64, 2),
            L([lst(m[2:3], (2,)), lst(m[3:5], (2,))], (2,), np.float64, 2)], (2,), np.float64, 3)
    v = rows(4, 3, k=33)
    v[2] = np.array([1e300, -5e-324, 0.0])
    return {"L": l2, "M": m3, "V": lst(v, (3,))}


def like(xs, model):
    """`xs` as a list of `model`'s depth, element shape and dtype."""
    return L(xs, model.shape, model.dtype, model.depth)


def keep_all(pred, x):
    """filterall over a nested list: its innermost tensors where `pred`
    holds, the nesting kept."""
    if x.depth == 1:
        return like([e for e in x if pred(e)], x)
    return like([keep_all(pred, e) for e in x], x)


def forall_ref(f, x, shape):
    """forall over a nested list: `f` of each innermost tensor, the nesting
    kept; `shape` the results' shape."""
    if x.depth == 1:
        return L([f(e) for e in x], shape, np.float64, 1)
    return L([forall_ref(f, e, shape) for e in x], shape, np.float64, x.depth)


@case(inputs=dict(nested_inputs(), t=np.float64(0.1)))
def filter_nested(i):
    l2, m3, v, t = i["L"], i["M"], i["V"], i["t"]

    def total(s):
        return np.sum(np.stack(s)) if len(s) else 0.0

    sums = [total(s) for s in l2 if len(s) > 0]
    return [like([s for s in l2 if len(s) > 1], l2),
            like([s for s in l2 if total(s) > t], l2),
            like([], l2),
            keep_all(lambda x: x[0] > t, l2),
            like([b for b in m3 if len(b) > 0], m3),
            keep_all(lambda x: np.sum(x) > t, m3),
            keep_all(lambda x: x[1] < 0.0, v),
            np.array(sums)]


@case(inputs=dict(nested_inputs(), V=lst(rows(4, 2, k=35), (2,)), W=gen_tensor(34, (3, 2))))
def forall_nested(i):
    v, l2, m3, w = i["V"], i["L"], i["M"], i["W"]
    neg = forall_ref(lambda x: -x, l2, (2,))
    return [forall_ref(lambda x: np.tanh(w @ x), v, (3,)),
            forall_ref(lambda x: np.tanh(w @ x), l2, (3,)),
            forall_ref(lambda x: np.sum(np.abs(x)), m3, ()),
            forall_ref(lambda x: x * 1e-300, m3, (2,)),
            np.int64(0),
            like([s for s in neg if len(s) > 0], neg)]


def forall_grad_inputs():
    """Moderate values (finite differences), the nesting of nested_inputs."""
    a = rows(6, 2, k=41)
    l2 = L([lst(a[0:2], (2,)), L([], (2,), np.float64, 1), lst(a[2:5], (2,)), lst(a[5:6], (2,))],
           (2,), np.float64, 2)
    m = rows(5, 2, k=42)
    m3 = L([L([lst(m[0:2], (2,)), L([], (2,), np.float64, 1)], (2,), np.float64, 2),
            L([], (2,), np.float64, 2),
            L([lst(m[2:3], (2,)), lst(m[3:5], (2,))], (2,), np.float64, 2)], (2,), np.float64, 3)
    return {"L": l2, "M": m3, "W": gen_tensor(43, (3, 2)), "b": gen_tensor(44, (3,))}


@case(inputs=forall_grad_inputs())
def forall_grad(i):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    xs_l = [t for s in i["L"] for t in s]
    xs_m = [t for b in i["M"] for s in b for t in s]

    def cost(params, xp):
        w, b = params
        r = xp.stack([xp.tanh(w @ x + b) for x in xs_l])
        s = xp.stack([xp.sin(w @ x) for x in xs_m])
        return xp.sum(r * r) + xp.sum((s @ b) * (s @ b))

    params = (i["W"], i["b"])
    grads = jax.grad(lambda p: cost(p, jnp))(tuple(jnp.asarray(p) for p in params))
    grads = [np.asarray(g) for g in grads]
    check_by_differences(cost, params, grads)
    return [np.float64(cost(params, np))] + grads


@case(inputs={"L": lst(rows(5, 3, k=45), (3,)), "W": gen_tensor(46, (3, 3)),
              "b": gen_tensor(47, (3,)), "k": np.int64(2)})
def index_grad(i):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    xs, k = list(i["L"]), int(i["k"])

    def cost(params, xp):
        w, b = params
        r = [xp.tanh(w @ x + b) for x in xs]
        return xp.sum(r[-1] * r[-1]) + xp.sum(r[0]) + xp.sum(r[k] * b)

    params = (i["W"], i["b"])
    grads = jax.grad(lambda p: cost(p, jnp))(tuple(jnp.asarray(p) for p in params))
    grads = [np.asarray(g) for g in grads]
    check_by_differences(cost, params, grads)
    return [np.float64(cost(params, np))] + grads


def filter_fusion_inputs():
    """nested_inputs' list of sequences and list of 3-vectors, a threshold."""
    n = nested_inputs()
    return {"L": n["L"], "V": n["V"], "t": np.float64(0.1)}


@case(inputs=filter_fusion_inputs())
def filter_fusion(i):
    l2, v, t = i["L"], i["V"], i["t"]

    def keep(pred, xs):
        return like([e for e in xs if pred(e)], xs)

    def total(s):
        return np.sum(np.stack(s)) if len(s) else 0.0

    return [keep(lambda x: x[1] < 0.0, keep(lambda x: np.sum(x) > t, v)),
            keep(lambda x: np.max(x) >= 0.2,
                 keep(lambda x: x[2] < 0.5,
                      keep(lambda x: abs(x[0]) > 1e-310,
                           keep(lambda x: np.sum(x) != 0.0, v)))),
            keep(lambda s: total(s) > t, keep(lambda s: len(s) > 1, l2)),
            keep(lambda s: s[0][0] > t, keep(lambda s: len(s) > 0, l2))]


@case(inputs=dict(nested_inputs(), V=lst(rows(4, 2, k=36), (2,)), W=gen_tensor(37, (2,))))
def fusion(i):
    v, l2, m3, w = i["V"], i["L"], i["M"], i["W"]
    acc = w.copy()
    for x in v:
        acc = acc + np.tanh(x * w)
    back = w.copy()
    for x in reversed(v):
        back = back * 0.5 + np.sin(x)
    states, run = [], w.copy()
    for x in v:
        run = run + np.cos(x)
        states.append(run)
    # each stacked sequence becomes the list of its rows again
    stacked = forall_ref(lambda x: x * w, l2, (2,))
    return [lst([np.exp(x * w) for x in v], (2,)),
            acc,
            back,
            lst(states, (2,)),
            stacked,
            forall_ref(lambda x: np.tanh(x * w), m3, (2,)),
            forall_ref(lambda x: np.sum(x * 1e-300), l2, ()),
            w.copy()]


# ------------------------------------------------------------ files


def save(path_stem, v):
    if isinstance(v, L):
        save_list(path_stem + ".npz", v)
    else:
        np.save(path_stem + ".npy", np.asarray(v))


def fixtures():
    os.makedirs(FIXTURES, exist_ok=True)
    vals = np.arange(6, dtype=np.float64).reshape(3, 2)
    bad = {
        "decreasing": {"values": vals, "row_splits_0": np.array([0, 2]),
                       "row_splits_1": np.array([0, 2, 1])},
        "short_end": {"values": vals, "row_splits_0": np.array([0, 2]),
                      "row_splits_1": np.array([0, 1, 2])},
        "no_splits": {"values": vals},
        "float_splits": {"values": vals, "row_splits_0": np.array([0.0, 3.0])},
    }
    for name, arrays in bad.items():
        np.savez(os.path.join(FIXTURES, f"{name}.npz"), **arrays)
    save_list(os.path.join(FIXTURES, "d2_f64x2.npz"), D2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--fixtures", action="store_true")
    args = ap.parse_args()
    if args.fixtures:
        fixtures()
    files = {f[:-5] for f in os.listdir(CASES) if f.endswith(".sexp")}
    missing = files - set(CASES_TABLE)
    stale = set(CASES_TABLE) - files
    if missing or stale:
        sys.exit(f"cases without reference: {sorted(missing)}; references without case: {sorted(stale)}")
    for name, (inputs, gen, f) in sorted(CASES_TABLE.items()):
        if args.only and name not in args.only:
            continue
        ins_dir = os.path.join(CASES, name + ".inputs")
        exp_dir = os.path.join(CASES, name + ".expected")
        for d in (ins_dir, exp_dir):
            shutil.rmtree(d, ignore_errors=True)
        if inputs is not None:
            os.makedirs(ins_dir)
            for k, v in inputs.items():
                save(os.path.join(ins_dir, k), v)
            given = inputs
        else:
            given = gen()
        os.makedirs(exp_dir)
        for k, out in enumerate(f(given)):
            save(os.path.join(exp_dir, f"out_{k}"), out)
        print(f"{name}: {len(f(given))} outputs")


if __name__ == "__main__":
    main()
