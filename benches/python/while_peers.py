#!/usr/bin/env python3
"""The while-loop workload of issue 37 timed in eqscan and in JAX.

`benches/while/fixed_point.sexp`: x_{t+1} = tanh(W x_t + b) until
max |x_{t+1} - x_t| < 1e-12 (at most 100000 steps), on the data rule's
inputs (`value = 0.5 sin(0.37 i + 1.3 k) · scale`, W scaled by 4/N), read
at its last state and its step count. Timed:

- eqscan: `target/release/eqscan run benches/while/fixed_point.sexp
  --gen --dim N=256 --scale W=0.015625 --repeat 20 --json`, the median of
  its `execute_ms` (optimization not counted);
- JAX: the same iteration as `jax.lax.while_loop` under `jax.jit`
  (float64), the median of `--reps` calls after one warm-up call.

Both run on one thread (as `loops_peers.py` sets them). Each checks its
last state and step count against a NumPy loop. `--rounds R` prints the
median of R paired ratios (eqscan then JAX, back to back).

    /work/venv/bin/python benches/python/while_peers.py --rounds 10
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "EQSCAN_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402

from loops_peers import median_ms  # noqa: E402  (the peers' timing, one warm-up call)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_STEPS = 100000
TOL = 1e-12


def data(n):
    """The data rule's W, b, x0 (inputs 0, 1, 2), W scaled by 4/n."""
    def rule(k, shape, scale):
        i = np.arange(int(np.prod(shape)), dtype=np.float64)
        return (0.5 * np.sin(0.37 * i + 1.3 * k) * scale).reshape(shape)
    return rule(0, (n, n), 4.0 / n), rule(1, (n,), 1.0), rule(2, (n,), 1.0)


def numpy_loop(W, b, x0):
    x, k = x0, 0.0
    for _ in range(MAX_STEPS):
        x1 = np.tanh(W @ x + b)
        k += 1.0
        stop = np.max(np.abs(x1 - x)) < TOL
        x = x1
        if stop:
            break
    return x, k


def eqscan(n, repeat):
    cmd = [os.path.join(ROOT, "target", "release", "eqscan"), "run",
           os.path.join(ROOT, "benches", "while", "fixed_point.sexp"), "--gen",
           "--dim", f"N={n}", "--scale", f"W={4.0 / n}", "--repeat", str(repeat), "--json"]
    report = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return statistics.median(report["execute_ms"]), [o["sum"] for o in report["outputs"]]


def jax_fn():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    def f(W, b, x0):
        def cond(c):
            _, _, k, done = c
            return jnp.logical_and(jnp.logical_not(done), k < MAX_STEPS)

        def body(c):
            x, _, k, _ = c
            x1 = jnp.tanh(W @ x + b)
            return x1, x, k + 1.0, jnp.max(jnp.abs(x1 - x)) < TOL

        x, _, k, _ = jax.lax.while_loop(cond, body, (x0, x0, 0.0, False))
        return x, k

    return jax.jit(f)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, action="append")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    f = jax_fn()
    for n in a.n or [64, 256]:
        W, b, x0 = data(n)
        want_x, want_k = numpy_loop(W, b, x0)
        _, sums = eqscan(n, 2)
        jx, jk = f(W, b, x0)
        ok = (np.isclose(sums[0], want_x.sum(), rtol=1e-9) and sums[1] == want_k
              and np.allclose(np.asarray(jx), want_x, rtol=1e-9) and float(jk) == want_k)
        ratios, es, js = [], [], []
        for _ in range(a.rounds):
            e, _ = eqscan(n, a.reps)
            j = median_ms(lambda: [v.block_until_ready() for v in f(W, b, x0)], a.reps)
            ratios.append(e / j)
            es.append(e)
            js.append(j)
        load = os.getloadavg()
        print(f"N={n:4d} steps={int(want_k):3d}  eqscan {statistics.median(es) * 1e3:8.1f} µs"
              f"  jax {statistics.median(js) * 1e3:8.1f} µs  eqscan ÷ JAX median {statistics.median(ratios):.3f}"
              f" (rounds {' '.join(f'{r:.2f}' for r in ratios)})  agree {'yes' if ok else 'NO'}"
              f"  load {load[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
