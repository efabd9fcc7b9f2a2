#!/usr/bin/env python3
"""GRU and LSTM layers with their gradients, as users write them with
`pytensor.scan`, timed through `mode="EQSCAN"`, PyTensor's default mode and
`mode="JAX"` in one run (issue 39's layer benchmark).

  python3 benches/python_layers.py [--T 50] [--batch 32] [--n-in 64] [--n-h 128] [--reps 20]

Each layer: X (T, batch, n_in), static shapes (PyTensor's JAX mode cannot
trace the gradient's shapes otherwise), the cost sum(H**2) and its gradient with
respect to W, U, b. Every mode's outputs are checked against the default
mode's (1e-9 relative) before timing. Prints medians in ms and the ratios
EQSCAN/default and EQSCAN/JAX. Time with both cores otherwise idle.
"""
import argparse
import time

import numpy as np

from pytensor_common import scan, median_ms




def lstm(T, B, n_in, n_h):
    import pytensor
    import pytensor.tensor as pt
    X = pt.tensor("X", shape=(T, B, n_in))
    W = pt.tensor("W", shape=(n_in, 4 * n_h))
    U = pt.tensor("U", shape=(n_h, 4 * n_h))
    b = pt.tensor("b", shape=(4 * n_h,))
    h0 = pt.tensor("h0", shape=(B, n_h))
    c0 = pt.tensor("c0", shape=(B, n_h))

    def step(x_t, h_tm1, c_tm1, W, U, b):
        z = pt.dot(x_t, W) + pt.dot(h_tm1, U) + b
        i = pt.sigmoid(z[:, :n_h])
        f = pt.sigmoid(z[:, n_h:2 * n_h])
        o = pt.sigmoid(z[:, 2 * n_h:3 * n_h])
        g = pt.tanh(z[:, 3 * n_h:])
        c = f * c_tm1 + i * g
        return o * pt.tanh(c), c

    H, _ = scan(step, sequences=X, outputs_info=[h0, c0], non_sequences=[W, U, b])
    cost = (H ** 2).sum()
    r = np.random.default_rng(7)
    vals = [r.normal(size=(T, B, n_in)), r.normal(size=(n_in, 4 * n_h)) * 0.1,
            r.normal(size=(n_h, 4 * n_h)) * 0.1, r.normal(size=4 * n_h) * 0.1,
            np.zeros((B, n_h)), np.zeros((B, n_h))]
    return [X, W, U, b, h0, c0], [cost] + pytensor.grad(cost, [W, U, b]), vals


def gru(T, B, n_in, n_h):
    import pytensor
    import pytensor.tensor as pt
    X = pt.tensor("X", shape=(T, B, n_in))
    W = pt.tensor("W", shape=(n_in, 3 * n_h))
    U = pt.tensor("U", shape=(n_h, 3 * n_h))
    b = pt.tensor("b", shape=(3 * n_h,))
    h0 = pt.tensor("h0", shape=(B, n_h))

    def step(x_t, h_tm1, W, U, b):
        xw = pt.dot(x_t, W) + b
        hu = pt.dot(h_tm1, U[:, :2 * n_h])
        z = pt.sigmoid(xw[:, :n_h] + hu[:, :n_h])
        r_ = pt.sigmoid(xw[:, n_h:2 * n_h] + hu[:, n_h:])
        h_hat = pt.tanh(xw[:, 2 * n_h:] + pt.dot(r_ * h_tm1, U[:, 2 * n_h:]))
        return (1.0 - z) * h_tm1 + z * h_hat

    H = scan(step, sequences=X, outputs_info=h0, non_sequences=[W, U, b])
    cost = (H ** 2).sum()
    r = np.random.default_rng(8)
    vals = [r.normal(size=(T, B, n_in)), r.normal(size=(n_in, 3 * n_h)) * 0.1,
            r.normal(size=(n_h, 3 * n_h)) * 0.1, r.normal(size=3 * n_h) * 0.1,
            np.zeros((B, n_h))]
    return [X, W, U, b, h0], [cost] + pytensor.grad(cost, [W, U, b]), vals




def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--T", type=int, default=50)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--n-in", type=int, default=64)
    ap.add_argument("--n-h", type=int, default=128)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    import pytensor
    import eqscan.pytensor  # noqa: F401 - registers "EQSCAN"
    for name, make in [("gru", gru), ("lstm", lstm)]:
        row = {}
        ref = None
        for mode in [None, "JAX", "EQSCAN"]:
            inputs, outputs, vals = make(args.T, args.batch, args.n_in, args.n_h)
            t0 = time.perf_counter()
            fn = pytensor.function(inputs, outputs, mode=mode)
            compile_s = time.perf_counter() - t0
            got = [np.asarray(o) for o in fn(*vals)]
            if ref is None:
                ref = got
            else:
                for g, w in zip(got, ref):
                    assert np.allclose(g, w, rtol=1e-9, atol=1e-12), (name, mode)
            # np.asarray waits for JAX's asynchronous results.
            row[mode or "default"] = (
                median_ms(lambda: [np.asarray(o) for o in fn(*vals)], args.reps), compile_s)
        d, j, e = row["default"][0], row["JAX"][0], row["EQSCAN"][0]
        print(f"{name}: default {d:.3f} ms, JAX {j:.3f} ms, EQSCAN {e:.3f} ms; "
              f"EQSCAN/default {e / d:.2f}, EQSCAN/JAX {e / j:.2f}; compile s "
              + ", ".join(f"{k} {v[1]:.2f}" for k, v in row.items()))


if __name__ == "__main__":
    main()
