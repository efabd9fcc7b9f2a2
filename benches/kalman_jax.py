#!/usr/bin/env python3
"""The multivariate Kalman filter of `examples/kalman.sexp` against JAX.

Makes a valid model (4 states, 2 observed series; a stable transition Tm
with spectral radius 0.9, SPD noise covariances Q and H, P0 = I) and T
observations simulated from it (seed 38), writes them as .npy files, and:

1. checks eqscan's log-likelihood and its gradient with respect to Tm, Q
   and H against `jax.grad` of the same filter written with
   `jax.numpy` and `jax.lax.scan` (float64), within `--rtol` (1e-10);
2. times, on one thread, the forward pass (the log-likelihood alone) and
   the gradient (log-likelihood and gradient) in JAX under `jax.jit` (one
   warm-up call, then the median of `--reps` calls) and in eqscan
   (`eqscan run --repeat --json`, optimized as `run` does: the median of
   its `execute_ms`, optimization not counted), and prints eqscan ÷ JAX
   with the machine's load average next to each figure.

The step is pymc-extras' StandardFilter with `solve` and `slogdet`:
update with y (v = y - Z a, F = Z P Zᵀ + H, K = P Zᵀ F⁻¹, Joseph form for
P), ll = -(2 log 2π + log|F| + vᵀ F⁻¹ v) / 2, then predict (a' = Tm a,
P' = Tm P Tmᵀ + R Q Rᵀ).

From the repository root, after `cargo build --release`:

    /work/venv/bin/python benches/kalman_jax.py [--T 1000] [--reps 20]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "MATMUL_NUM_THREADS",
            "EQSCAN_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("XLA_FLAGS",
                      "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

jax.config.update("jax_enable_x64", True)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "examples", "kalman.sexp")
EQSCAN = os.path.join(ROOT, "target", "release", "eqscan")
LOG_2PI_2 = 2.0 * float(np.log(2.0 * np.pi))
NAMES = ["Tm", "Z", "R", "Q", "H", "x0", "P0", "Y"]


def model(T, seed=38):
    """A valid model and T observations simulated from it."""
    rng = np.random.RandomState(seed)
    M = rng.randn(4, 4)
    Tm = 0.9 * M / np.max(np.abs(np.linalg.eigvals(M)))
    Z = rng.randn(2, 4)
    R = np.eye(4)
    Lq = rng.randn(4, 4) * 0.3
    Q = Lq @ Lq.T + 0.1 * np.eye(4)
    Lh = rng.randn(2, 2) * 0.3
    H = Lh @ Lh.T + 0.2 * np.eye(2)
    x0 = np.zeros(4)
    P0 = np.eye(4)
    x = rng.multivariate_normal(x0, P0)
    Y = np.empty((T, 2))
    for t in range(T):
        Y[t] = Z @ x + rng.multivariate_normal(np.zeros(2), H)
        x = Tm @ x + R @ rng.multivariate_normal(np.zeros(4), Q)
    return dict(Tm=Tm, Z=Z, R=R, Q=Q, H=H, x0=x0, P0=P0, Y=Y)


def loglik(Tm, Z, R, Q, H, x0, P0, Y):
    """The filter's log-likelihood, the step as examples/kalman.sexp writes it."""
    eye = jnp.eye(4)
    RQR = R @ Q @ R.T

    def step(carry, y):
        a, P = carry
        v = y - Z @ a
        PZT = P @ Z.T
        F = Z @ PZT + H
        K = jnp.linalg.solve(F, PZT.T).T
        IKZ = eye - K @ Z
        af = a + K @ v
        Pf = IKZ @ P @ IKZ.T + K @ H @ K.T
        _, logdet = jnp.linalg.slogdet(F)
        ll = -0.5 * (LOG_2PI_2 + logdet + v @ jnp.linalg.solve(F, v))
        return (Tm @ af, Tm @ Pf @ Tm.T + RQR), ll

    _, lls = jax.lax.scan(step, (x0, P0), Y)
    return jnp.sum(lls)


def value_and_grads(Tm, Z, R, Q, H, x0, P0, Y):
    v, (gT, gQ, gH) = jax.value_and_grad(loglik, argnums=(0, 3, 4))(Tm, Z, R, Q, H, x0, P0, Y)
    return v, gT, gQ, gH


def forward_program(path):
    """examples/kalman.sexp without its gradient: the log-likelihood alone."""
    text = open(PROGRAM).read()
    grad = "  (let (gTm gQ gH) (grad loglik Tm Q H))\n  (output loglik gTm gQ gH))"
    assert grad in text, "examples/kalman.sexp changed: update forward_program"
    with open(path, "w") as f:
        f.write(text.replace(grad, "  (output loglik))"))


def eqscan(program, inputs_dir, T, repeat, out=None):
    cmd = [EQSCAN, "run", program, "--dim", f"T={T}", "--repeat", str(repeat), "--json"]
    for n in NAMES:
        cmd += ["--input", f"{n}={os.path.join(inputs_dir, n + '.npy')}"]
    if out:
        cmd += ["--out", out]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def jax_ms(f, args, reps):
    jax.block_until_ready(f(*args))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = f(*args)
        jax.block_until_ready(r)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def load():
    return os.getloadavg()[0]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--T", type=int, default=1000)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--rtol", type=float, default=1e-10)
    p.add_argument("--no-time", action="store_true", help="only check the values")
    a = p.parse_args()
    data = model(a.T)
    tmp = tempfile.mkdtemp(prefix="kalman_jax_")
    for n in NAMES:
        np.save(os.path.join(tmp, n + ".npy"), data[n])
    args = [jnp.asarray(data[n]) for n in NAMES]

    # 1. values
    fwd = jax.jit(loglik)
    vg = jax.jit(value_and_grads)
    want = [np.asarray(x) for x in vg(*args)]
    out = os.path.join(tmp, "out")
    eqscan(PROGRAM, tmp, a.T, 1, out=out)
    worst = 0.0
    for k, (name, w) in enumerate(zip(["loglik", "dTm", "dQ", "dH"], want)):
        got = np.load(os.path.join(out, f"out_{k}.npy"))
        rel = np.max(np.abs(got - w)) / max(np.max(np.abs(w)), 1e-300)
        worst = max(worst, rel)
        print(f"{name:7s} eqscan vs JAX: max |diff| / max |JAX| = {rel:.2e}")
    ok = worst <= a.rtol
    print(f"values agree within {a.rtol:g}: {ok}")
    if a.no_time:
        sys.exit(0 if ok else 1)

    # 2. times, one thread
    fwd_prog = os.path.join(tmp, "kalman_forward.sexp")
    forward_program(fwd_prog)
    print(f"T={a.T}, one thread, medians of {a.reps}")
    for label, prog, f in [("forward", fwd_prog, fwd), ("gradient", PROGRAM, vg)]:
        l0 = load()
        j = jax_ms(f, args, a.reps)
        l1 = load()
        e = statistics.median(eqscan(prog, tmp, a.T, a.reps)["execute_ms"])
        l2 = load()
        print(f"{label:8s} JAX {j:8.3f} ms (load {l0:.2f}->{l1:.2f})  "
              f"eqscan {e:8.3f} ms (load {l2:.2f})  eqscan/JAX {e / j:.2f}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
