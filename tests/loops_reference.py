#!/usr/bin/env python3
"""NumPy reference outputs of the four loop programs of issue 15.

The programs are `benches/programs/{kalman,hmm_forward,gru,lstm}.sexp`: a
Kalman filter, the forward algorithm of an HMM in log space, a GRU layer and
an LSTM layer with a mask. Each program's header says the small size the
tests run at (`; dims: T=... N=...`) and the data rule's scales
(`; scale: NAME=S ...`). This script reads those two headers and the
program's input declarations (and nothing else of the program), makes the
inputs with the data rule of `bench/WORKLOADS.md` exactly as eqscan's
`generate_inputs` does (`tests/numpy_cases.py`'s `make_inputs`), and
computes the outputs with plain NumPy loops from the textbook definitions,
independently of the `.sexp` (the HMM in probability space with per-step
normalisation, the others step by step as the equations say). It writes

    tests/fixtures/loops/NAME/in_INPUT.npy   each input
    tests/fixtures/loops/NAME/out_K.npy      each output
    tests/fixtures/loops/NAME/meta.json      inputs, dims, scales, outputs

`tests/loop_programs.rs` checks eqscan against them. Run from anywhere:

    /work/venv/bin/python tests/loops_reference.py            # all four
    /work/venv/bin/python tests/loops_reference.py --only gru

The functions here also serve `benches/python/loops_peers.py` as the
"NumPy loop" form of each program (`REFERENCES[name](inputs)`).
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from numpy_cases import make_inputs, read_case  # noqa: E402

PROGRAMS = os.path.join(ROOT, "benches", "programs")
FIXTURES = os.path.join(HERE, "fixtures", "loops")
LOG_2PI = np.log(2.0 * np.pi)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def kalman(d):
    """Local linear trend: predict x = F x, P = F P F' + Q; update with the
    scalar y_t (S = H P H' + R, K = P H' / S); x_0 = x0, P_0 = I."""
    y, x, log_q, log_r = d["y"], d["x0"].copy(), d["log_q"], d["log_r"]
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    H = np.array([1.0, 0.0])
    I = np.eye(2)
    Q = np.diag(np.exp(log_q))
    R = float(np.exp(log_r))
    P = I.copy()
    means = np.empty((len(y), 2))
    ll = np.empty(len(y))
    for t in range(len(y)):
        x = F @ x
        P = F @ P @ F.T + Q
        v = y[t] - H @ x
        S = H @ P @ H + R
        K = P @ H / S
        x = x + K * v
        P = (I - np.outer(K, H)) @ P
        means[t] = x
        ll[t] = -0.5 * (LOG_2PI + np.log(S) + v * v / S)
    return means, np.float64(ll.sum())


def hmm_forward(d):
    """The scaled forward algorithm (Rabiner 1989, section V.A) in
    probability space: alpha_hat_t = (alpha_hat_{t-1} A) * b_t / c_t, with
    log alpha_t = log alpha_hat_t + sum_{s<=t} log c_s and log p(y) =
    sum_t log c_t. pi and the rows of A are softmaxes of their logits; b_t[j]
    is the unit-variance Gaussian density of y_t at mu_j."""
    y, mu = d["y"], d["mu"]
    pi = np.exp(d["pi_logits"] - d["pi_logits"].max())
    pi /= pi.sum()
    A = np.exp(d["A_logits"] - d["A_logits"].max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    b = np.exp(-0.5 * (y[:, None] - mu[None, :]) ** 2) / np.sqrt(2.0 * np.pi)
    T, N = b.shape
    log_alpha = np.empty((T, N))
    log_c_total = 0.0
    alpha = pi * b[0]
    for t in range(T):
        if t > 0:
            alpha = (alpha @ A) * b[t]
        c = alpha.sum()
        alpha = alpha / c
        log_c_total += np.log(c)
        log_alpha[t] = np.log(alpha) + log_c_total
    return log_alpha, np.float64(log_c_total)


def gru(d):
    """Cho et al. (2014): z, r gates, candidate from r * h, h = z h + (1-z) h~."""
    X, h = d["X"], d["h0"]
    out = np.empty(X.shape[:2] + (h.shape[1],))
    for t in range(X.shape[0]):
        x = X[t]
        z = sigmoid(x @ d["Wz"] + h @ d["Uz"] + d["bz"])
        r = sigmoid(x @ d["Wr"] + h @ d["Ur"] + d["br"])
        cand = np.tanh(x @ d["Wh"] + (r * h) @ d["Uh"] + d["bh"])
        h = z * h + (1.0 - z) * cand
        out[t] = h
    return (out,)


def lstm(d):
    """An LSTM with forget gate; gate k of W, U, b is (i, f, o, g)[k]; a
    masked step (m = 0) keeps the previous h and c."""
    X, mask, h, c = d["X"], d["mask"], d["h0"], d["c0"]
    W, U, b = d["W"], d["U"], d["b"]
    out = np.empty(X.shape[:2] + (h.shape[1],))
    for t in range(X.shape[0]):
        x = X[t]
        i = sigmoid(x @ W[0] + h @ U[0] + b[0])
        f = sigmoid(x @ W[1] + h @ U[1] + b[1])
        o = sigmoid(x @ W[2] + h @ U[2] + b[2])
        g = np.tanh(x @ W[3] + h @ U[3] + b[3])
        c_new = f * c + i * g
        h_new = o * np.tanh(c_new)
        m = mask[t].astype(np.float64)[:, None]
        c = m * c_new + (1.0 - m) * c
        h = m * h_new + (1.0 - m) * h
        out[t] = h
    return (out,)


REFERENCES = {"kalman": kalman, "hmm_forward": hmm_forward, "gru": gru, "lstm": lstm}


def program_inputs(name, dims=None):
    """(inputs dict in declaration order, dims, scales) of a program: its
    header's dims unless `dims` is given, its header's scales."""
    decls, header_dims, scales = read_case(os.path.join(PROGRAMS, f"{name}.sexp"))
    dims = dict(header_dims if dims is None else dims)
    return decls, make_inputs(decls, dims, scales), dims, scales


def medium_dims(name):
    """The sizes of the program's `(medium: T=... N=...)` header line."""
    text = open(os.path.join(PROGRAMS, f"{name}.sexp"), encoding="utf-8").read()
    start = text.index("(medium:") + len("(medium:")
    return {k: int(v) for k, v in (kv.split("=") for kv in text[start:text.index(")", start)].split())}


def write(name):
    decls, d, dims, scales = program_inputs(name)
    outs = REFERENCES[name](d)
    out_dir = os.path.join(FIXTURES, name)
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, f))
    for n, v in d.items():
        np.save(os.path.join(out_dir, f"in_{n}.npy"), v)
    for k, v in enumerate(outs):
        assert np.all(np.isfinite(v)), (name, k)
        np.save(os.path.join(out_dir, f"out_{k}.npy"), np.asarray(v, dtype=np.float64))
    meta = {
        "inputs": [n for n, _, _ in decls],
        "dims": dims,
        "scales": scales,
        "outputs": [list(np.shape(v)) for v in outs],
    }
    with open(os.path.join(out_dir, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{name}: dims {dims}, outputs {meta['outputs']}, "
          f"sums {[float(np.sum(v)) for v in outs]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", choices=sorted(REFERENCES))
    args = ap.parse_args(argv)
    for name in args.only or sorted(REFERENCES):
        write(name)


if __name__ == "__main__":
    main()
