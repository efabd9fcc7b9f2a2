#!/usr/bin/env python3
"""Issue 41's benchmark: an Elman RNN over a ragged batch of 64 sequences
(lengths 10-500 from `benches/lists/elman_ragged.lengths`, drawn with
numpy.random.default_rng(41); hidden 128, input 64), forward and gradient
with respect to the weights, timed in:

- eqscan: `target/release/eqscan run benches/lists/elman_ragged{_fwd,}.sexp
  --input L=DIR/L.npz --input W=... --repeat R --json`, the list program as
  written, optimized as `run` does (the batching rewrite when its cost
  model chooses it; `"batched"` in the report says whether it did); the
  median of its `execute_ms` (padding included, optimization not);
- JAX: the same computation padded and masked by hand, one `lax.scan` over
  `(T_max, B, 64)` under `jit` (float64), `jax.grad` for the gradient;
- NumPy: the per-sequence loop (forward), and back-propagation through
  time per sequence written by hand (gradient).

Every output is checked against NumPy's (rtol 1e-8, atol 1e-10). One
thread everywhere (OPENBLAS/OMP/MKL/EQSCAN/MATMUL_NUM_THREADS=1, XLA one
intra-op thread) unless already set. `--rounds R` pairs the engines: each
round times eqscan, JAX and NumPy back to back, and the ratios printed
are medians over the rounds' ratios.

    /work/venv/bin/python benches/python/lists_peers.py --rounds 5
    /work/venv/bin/python benches/python/lists_peers.py --written   # also eqscan --no-opt
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
            "EQSCAN_NUM_THREADS", "MATMUL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EQSCAN = os.path.join(ROOT, "target", "release", "eqscan")
PROGS = os.path.join(ROOT, "benches", "lists")
H, D = 128, 64


def inputs():
    with open(os.path.join(PROGS, "elman_ragged.lengths")) as f:
        lens = [int(x) for x in f.read().strip().split(",")]
    rng = np.random.default_rng(41)
    seqs = [rng.standard_normal((n, D)) for n in lens]
    W = rng.standard_normal((H, H)) * (0.9 / np.sqrt(H))
    U = rng.standard_normal((H, D)) * (1.0 / np.sqrt(D))
    b = rng.standard_normal(H) * 0.1
    return seqs, W, U, b


def write(d, seqs, W, U, b):
    lens = [len(s) for s in seqs]
    np.savez(os.path.join(d, "L.npz"), values=np.concatenate(seqs),
             row_splits_0=np.array([0, len(seqs)], dtype=np.int64),
             row_splits_1=np.concatenate([[0], np.cumsum(lens)]).astype(np.int64))
    for n, v in (("W", W), ("U", U), ("b", b)):
        np.save(os.path.join(d, n + ".npy"), v)


def np_forward(seqs, W, U, b):
    hs = []
    for s in seqs:
        h = np.zeros(H)
        for x in s:
            h = np.tanh(W @ h + U @ x + b)
        hs.append(h)
    Hs = np.stack(hs)
    return 0.5 * np.sum(Hs * Hs), Hs


def np_grad(seqs, W, U, b):
    gW, gU, gb, cost = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b), 0.0
    for s in seqs:
        hs = [np.zeros(H)]
        for x in s:
            hs.append(np.tanh(W @ hs[-1] + U @ x + b))
        cost += 0.5 * hs[-1] @ hs[-1]
        g = hs[-1].copy()
        for t in range(len(s) - 1, -1, -1):
            dz = g * (1 - hs[t + 1] ** 2)
            gW += np.outer(dz, hs[t])
            gU += np.outer(dz, s[t])
            gb += dz
            g = W.T @ dz
    return cost, gW, gU, gb


def jax_fns(seqs):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    lens = np.array([len(s) for s in seqs])
    T, B = lens.max(), len(seqs)
    X = np.zeros((T, B, D))
    for k, s in enumerate(seqs):
        X[:len(s), k] = s
    mask = np.arange(T)[:, None] < lens[None, :]
    X, mask = jnp.asarray(X), jnp.asarray(mask)

    def cost(W, U, b):
        def step(h, xm):
            x, m = xm
            n = jnp.tanh(h @ W.T + x @ U.T + b)
            return jnp.where(m[:, None], n, h), None
        h, _ = jax.lax.scan(step, jnp.zeros((B, H)), (X, mask))
        return 0.5 * jnp.sum(h * h), h

    fwd = jax.jit(cost)
    grad = jax.jit(jax.value_and_grad(lambda W, U, b: cost(W, U, b)[0], argnums=(0, 1, 2)))
    return fwd, grad


def timed(f, reps):
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def eqscan(prog, d, reps, no_opt=False):
    cmd = [EQSCAN, "run", os.path.join(PROGS, prog), "--json", "--repeat", str(reps)]
    for n in ("W", "U", "b"):
        cmd += ["--input", f"{n}={d}/{n}.npy"]
    cmd += ["--input", f"L={d}/L.npz", "--out", os.path.join(d, "out_" + prog)]
    if no_opt:
        cmd.append("--no-opt")
    r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    outs = []
    k = 0
    while os.path.exists(os.path.join(d, "out_" + prog, f"out_{k}.npy")):
        outs.append(np.load(os.path.join(d, "out_" + prog, f"out_{k}.npy")))
        k += 1
    return statistics.median(r["execute_ms"]), r.get("batched"), outs


def check(name, got, want):
    for k, (g, w) in enumerate(zip(got, want)):
        if not np.allclose(g, w, rtol=1e-8, atol=1e-10):
            sys.exit(f"{name} out_{k} differs from NumPy: max |diff| {np.max(np.abs(g - w))}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--written", action="store_true", help="also time eqscan --no-opt")
    a = ap.parse_args()
    seqs, W, U, b = inputs()
    ref_f = np_forward(seqs, W, U, b)
    ref_g = np_grad(seqs, W, U, b)
    fwd, grad = jax_fns(seqs)
    jf, jg = fwd(W, U, b), grad(W, U, b)
    check("jax forward", [np.asarray(jf[0]), np.asarray(jf[1])], ref_f)
    check("jax grad", [np.asarray(jg[0])] + [np.asarray(x) for x in jg[1]], ref_g)
    print(f"load: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as d:
        write(d, seqs, W, U, b)
        _, bf, eo = eqscan("elman_ragged_fwd.sexp", d, 1)
        check("eqscan forward", eo, ref_f)
        _, bg, eo = eqscan("elman_ragged.sexp", d, 1)
        check("eqscan grad", eo, ref_g)
        print(f"eqscan batched: forward {bf}, gradient {bg}; outputs match NumPy")
        if a.written:
            for prog in ("elman_ragged_fwd.sexp", "elman_ragged.sexp"):
                ms, _, _ = eqscan(prog, d, 1, no_opt=True)
                print(f"eqscan --no-opt {prog}: {ms:.1f} ms")
        rows = {"forward": [], "gradient": []}
        for r in range(a.rounds):
            for kind, prog, jfn, nfn in (
                ("forward", "elman_ragged_fwd.sexp", lambda: fwd(W, U, b)[1].block_until_ready(),
                 lambda: np_forward(seqs, W, U, b)),
                ("gradient", "elman_ragged.sexp", lambda: grad(W, U, b)[1][0].block_until_ready(),
                 lambda: np_grad(seqs, W, U, b)),
            ):
                e, _, _ = eqscan(prog, d, a.reps)
                j = timed(jfn, a.reps)
                n = timed(nfn, 1)
                rows[kind].append((e, j, n))
                print(f"round {r} {kind}: eqscan {e:.1f} ms, JAX {j:.1f} ms, NumPy {n:.1f} ms "
                      f"(load {os.getloadavg()[0]:.2f})", flush=True)
        for kind, rs in rows.items():
            med = lambda i: statistics.median(x[i] for x in rs)  # noqa: E731
            rj = statistics.median(x[0] / x[1] for x in rs)
            rn = statistics.median(x[0] / x[2] for x in rs)
            print(f"{kind}: eqscan {med(0):.1f} ms, JAX {med(1):.1f} ms, NumPy {med(2):.1f} ms; "
                  f"eqscan/JAX {rj:.3f}, eqscan/NumPy {rn:.3f}")


if __name__ == "__main__":
    main()
