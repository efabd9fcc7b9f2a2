#!/usr/bin/env python3
"""The loop programs of issues 15 and 40 timed in eqscan and its peers.

The programs are `benches/programs/{kalman,hmm_forward,gru,lstm}.sexp`
(a Kalman filter with 2 states, the HMM forward algorithm in log space, a
GRU layer, an LSTM layer with a mask). Each is timed here, at the medium
sizes of its `(medium: ...)` header line on the data rule's inputs (scales
from its `; scale:` header; `tests/loops_reference.py` makes them as
eqscan's `--gen` does), in:

- eqscan: `target/release/eqscan run benches/programs/NAME.sexp --gen
  --dim K=V ... --scale K=S ... --repeat 20 --json`, optimized as `run`
  does; the median of its 20 `execute_ms` (optimization not counted);
- JAX: the step written with `jax.lax.scan` under `jax.jit` (float64);
- PyTensor: the step written with `pytensor.scan`, compiled in the default
  mode, and in `mode="NUMBA"`;
- NumPy: the plain Python loop of `tests/loops_reference.py`.

Every engine runs on one thread unless `--all-threads` is given: the
script sets OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and MKL_NUM_THREADS
(NumPy, PyTensor), EQSCAN_NUM_THREADS (eqscan's split passes and
products) and MATMUL_NUM_THREADS (matrixmultiply, which eqscan no longer
runs threaded) to 1 and
XLA_FLAGS to one intra-op thread (JAX) before anything is imported, unless
the variable is already set. On a shared 2-core machine OpenBLAS's threads
otherwise spin against the other users' builds: at load 7 the GRU's NumPy
loop took 693 ms with two threads and 79 ms with one.

The peers are timed as `../shared/bench/peers.py` times them: one warm-up
call, then the median of 5 calls (`--reps`); each checks its outputs
against the NumPy loop's (rtol = atol = 1e-8). Everything for one program
runs back to back, so the figures of one line are from the same minute.
Prints, per program, ms per call and µs per loop step of each.

From the repository root, after `cargo build --release`:

    /work/venv/bin/python benches/python/loops_peers.py            # all four
    /work/venv/bin/python benches/python/loops_peers.py --only kalman --no-numba
    taskset -c 0 /work/venv/bin/python benches/python/loops_peers.py   # one core
    /work/venv/bin/python benches/python/loops_peers.py --rounds 10     # eqscan ÷ JAX

`--held` times instead the held programs of issue 40
(`benches/programs/held/NAME.sexp`: a categorical HMM's forward-backward,
a masked LSTM language model, PyTorch's GRU at the issue's sizes, Stan's
stochastic-volatility density, the local level Kalman likelihood, arch's
GARCH-t), published user models written as their users wrote them and not
tuned for eqscan: printed apart, under "held (not tuned)", in eqscan, JAX
and NumPy (no PyTensor forms), with each JAX form written as a JAX user
writes the model (`jax.lax.scan` under `jit`, float64) and checked against
the NumPy loop of `tests/loops_reference.py`.

`--rounds R` prints, per program, eqscan ÷ JAX from R rounds that each
time eqscan (`--repeat` of `--reps` runs) and then JAX (median of `--reps`
calls) back to back: on a shared machine whose speed drifts by a third
within minutes, the median of these paired ratios is steadier than the
ratio of two medians taken minutes apart.

The eqscan command of each program, as this script runs it:

    target/release/eqscan run benches/programs/kalman.sexp --gen --dim T=20000 --scale y=4.0 --repeat 20 --json
    target/release/eqscan run benches/programs/hmm_forward.sexp --gen --dim T=4000 --dim N=32 --scale y=4.0 --scale mu=4.0 --scale pi_logits=2.0 --scale A_logits=2.0 --repeat 20 --json
    target/release/eqscan run benches/programs/gru.sexp --gen --dim T=50 --dim M=80 --dim N=128 --dim D=128 --repeat 20 --json
    target/release/eqscan run benches/programs/lstm.sexp --gen --dim T=100 --dim M=64 --dim N=64 --dim D=64 --repeat 20 --json

and of the held programs (`--held`):

    target/release/eqscan run benches/programs/held/hmm_fb_categorical.sexp --gen --dim T=4000 --dim K=32 --dim V=50 --scale obs=10.0 --scale pi_logits=2.0 --scale A_logits=2.0 --scale B_logits=2.0 --repeat 20 --json
    target/release/eqscan run benches/programs/held/lstm_lm_masked.sexp --gen --dim T=100 --dim M=64 --dim N=64 --dim V=128 --scale tokens=30.0 --repeat 20 --json
    target/release/eqscan run benches/programs/held/gru_b80.sexp --gen --dim T=50 --dim M=80 --dim N=128 --dim D=128 --repeat 20 --json
    target/release/eqscan run benches/programs/held/stochvol_filter.sexp --gen --dim T=20000 --scale y=2.0 --scale h_std=2.0 --repeat 20 --json
    target/release/eqscan run benches/programs/held/local_level.sexp --gen --dim T=20000 --scale y=4.0 --repeat 20 --json
    target/release/eqscan run benches/programs/held/garch_t.sexp --gen --dim T=20000 --scale r=4.0 --repeat 20 --json
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings

if "--all-threads" not in sys.argv:
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "MATMUL_NUM_THREADS",
                "EQSCAN_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import loops_reference as ref  # noqa: E402

warnings.filterwarnings("ignore")
NAMES = ["kalman", "hmm_forward", "gru", "lstm"]
HELD = list(ref.HELD)
LOG_2PI = float(np.log(2.0 * np.pi))


def median_ms(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def agrees(got, want):
    return len(got) == len(want) and all(
        np.allclose(np.asarray(g), w, rtol=1e-8, atol=1e-8) for g, w in zip(got, want))


# ------------------------------------------------------------------ eqscan
def eqscan_command(name, dims, scales, repeat):
    cmd = [os.path.join(ROOT, "target", "release", "eqscan"), "run", ref.program_path(name),
           "--gen"]
    for k, v in dims.items():
        cmd += ["--dim", f"{k}={v}"]
    for k, v in scales.items():
        cmd += ["--scale", f"{k}={v}"]
    return cmd + ["--repeat", str(repeat), "--json"]


def eqscan_report(name, dims, scales, repeat):
    """`eqscan run --json`'s report."""
    res = subprocess.run(eqscan_command(name, dims, scales, repeat),
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def run_eqscan(name, dims, scales, want, repeat):
    """(median execute ms, agrees): the outputs' sums against the NumPy loop's."""
    report = eqscan_report(name, dims, scales, repeat)
    sums = [o["sum"] for o in report["outputs"]]
    ok = len(sums) == len(want) and all(
        np.isclose(s, float(np.sum(w)), rtol=1e-8, atol=1e-8) for s, w in zip(sums, want))
    return statistics.median(report["execute_ms"]), ok


# --------------------------------------------------------------------- JAX
def jax_fn(name):
    import jax
    import jax.numpy as jnp
    scan = jax.lax.scan

    def sigmoid(x):
        return 1.0 / (1.0 + jnp.exp(-x))

    if name == "kalman":
        def f(y, x0, log_q, log_r):
            F = jnp.array([[1.0, 1.0], [0.0, 1.0]])
            H = jnp.array([1.0, 0.0])
            I = jnp.eye(2)
            Q = jnp.diag(jnp.exp(log_q))
            R = jnp.exp(log_r)

            def step(carry, y_t):
                x, P = carry
                x = F @ x
                P = F @ P @ F.T + Q
                v = y_t - H @ x
                S = H @ P @ H + R
                K = P @ H / S
                x = x + K * v
                P = (I - jnp.outer(K, H)) @ P
                return (x, P), (x, -0.5 * (LOG_2PI + jnp.log(S) + v * v / S))
            _, (X, ll) = scan(step, (x0, I), y)
            return X, ll.sum()
    elif name == "hmm_forward":
        def f(y, mu, pi_logits, A_logits):
            def log_softmax(z, axis):
                m = z.max(axis=axis, keepdims=True)
                return z - (m + jnp.log(jnp.exp(z - m).sum(axis=axis, keepdims=True)))
            log_pi = log_softmax(pi_logits, 0)
            log_A = log_softmax(A_logits, 1)
            d = y[:, None] - mu[None, :]
            log_b = -0.5 * (LOG_2PI + d * d)

            def step(alpha, lb_t):
                M = alpha[:, None] + log_A
                m = M.max(axis=0)
                alpha = lb_t + m + jnp.log(jnp.exp(M - m[None, :]).sum(axis=0))
                return alpha, alpha
            alpha0 = log_pi + log_b[0]
            last, alphas = scan(step, alpha0, log_b[1:])
            m = last.max()
            return jnp.concatenate([alpha0[None], alphas]), m + jnp.log(jnp.exp(last - m).sum())
    elif name == "gru":
        def f(X, h0, Wz, Uz, bz, Wr, Ur, br, Wh, Uh, bh):
            def step(h, x):
                z = sigmoid(x @ Wz + h @ Uz + bz)
                r = sigmoid(x @ Wr + h @ Ur + br)
                cand = jnp.tanh(x @ Wh + (r * h) @ Uh + bh)
                h = z * h + (1.0 - z) * cand
                return h, h
            return scan(step, h0, X)[1],
    elif name == "lstm":
        def f(X, mask, h0, c0, W, U, b):
            def step(carry, xm):
                h, c = carry
                x, m = xm
                pre = x @ W + h @ U + b[:, None, :]       # (4, M, N)
                i, fg, o = sigmoid(pre[0]), sigmoid(pre[1]), sigmoid(pre[2])
                g = jnp.tanh(pre[3])
                c_new = fg * c + i * g
                h_new = o * jnp.tanh(c_new)
                m = m.astype(jnp.float64)[:, None]
                h = m * h_new + (1.0 - m) * h
                c = m * c_new + (1.0 - m) * c
                return (h, c), h
            return scan(step, (h0, c0), (X, mask))[1],
    elif name in HELD:
        return jax_held_fn(name)
    else:
        raise KeyError(name)
    return f


def jax_held_fn(name):
    """A held program as a JAX user writes the model (the sources of each
    program's header), arguments in the program's input order."""
    import jax
    import jax.numpy as jnp
    from jax.nn import log_softmax, sigmoid
    from jax.scipy.special import gammaln, logsumexp
    scan = jax.lax.scan

    if name == "hmm_fb_categorical":
        def f(obs, pi_logits, A_logits, B_logits):
            y = obs % B_logits.shape[1]
            log_pi = log_softmax(pi_logits)
            log_A = log_softmax(A_logits, axis=1)
            log_B = log_softmax(B_logits, axis=1)

            def forward(alpha, y_t):
                alpha = log_B[:, y_t] + logsumexp(alpha[:, None] + log_A, axis=0)
                return alpha, alpha

            def backward(beta, y_next):
                beta = logsumexp(log_A + (log_B[:, y_next] + beta)[None, :], axis=1)
                return beta, beta
            alpha0 = log_pi + log_B[:, y[0]]
            _, alphas = scan(forward, alpha0, y[1:])
            _, betas = scan(backward, jnp.zeros_like(alpha0), y[1:], reverse=True)
            log_alpha = jnp.concatenate([alpha0[None], alphas])
            log_beta = jnp.concatenate([betas, jnp.zeros((1, alpha0.shape[0]))])
            log_lik = logsumexp(log_alpha[-1])
            return log_lik, jnp.exp(log_alpha + log_beta - log_lik)
    elif name == "lstm_lm_masked":
        def f(tokens, mask, Wemb, W, U, b, Wout, bout):
            V, N = Wemb.shape
            x = tokens % V
            m = mask.astype(jnp.float64)
            W, U, b = W.reshape(N, 4 * N), U.reshape(N, 4 * N), b.reshape(4 * N)
            state_below = Wemb[x[:-1]] @ W + b                       # (T-1, M, 4N)

            def step(carry, xm):
                h_, c_ = carry
                x_, m_ = xm
                preact = h_ @ U + x_
                i = sigmoid(preact[:, :N])
                fg = sigmoid(preact[:, N:2 * N])
                o = sigmoid(preact[:, 2 * N:3 * N])
                g = jnp.tanh(preact[:, 3 * N:])
                m_ = m_[:, None]
                c = fg * c_ + i * g
                c = m_ * c + (1.0 - m_) * c_
                h = o * jnp.tanh(c)
                h = m_ * h + (1.0 - m_) * h_
                return (h, c), h
            M = tokens.shape[1]
            zeros = jnp.zeros((M, N))
            _, H = scan(step, (zeros, zeros), (state_below, m[:-1]))
            logp = log_softmax(H @ Wout + bout, axis=-1)
            nll = -jnp.take_along_axis(logp, x[1:, :, None], axis=-1)[..., 0]
            return (m[1:] * nll).sum() / m[1:].sum(), H
    elif name == "gru_b80":
        def f(X, h0, W_ir, W_iz, W_in, W_hr, W_hz, W_hn, b_ir, b_iz, b_in, b_hr, b_hz, b_hn):
            def step(h, x):
                r = sigmoid(x @ W_ir + b_ir + h @ W_hr + b_hr)
                z = sigmoid(x @ W_iz + b_iz + h @ W_hz + b_hz)
                n = jnp.tanh(x @ W_in + b_in + r * (h @ W_hn + b_hn))
                h = (1.0 - z) * n + z * h
                return h, h
            return scan(step, h0, X)[1],
    elif name == "stochvol_filter":
        def f(y, h_std, mu, phi_u, log_sigma):
            from jax.scipy.stats import cauchy, norm
            phi = 2.0 * sigmoid(phi_u) - 1.0
            sigma = jnp.exp(log_sigma)
            h0 = mu + sigma * h_std[0] / jnp.sqrt(1.0 - phi * phi)

            def step(h_prev, z_t):
                h = mu + phi * (h_prev - mu) + sigma * z_t
                return h, h
            _, hs = scan(step, h0, h_std[1:])
            h = jnp.concatenate([h0[None], hs])
            lp = (norm.logpdf(y, 0.0, jnp.exp(h / 2.0)).sum() + norm.logpdf(h_std).sum()
                  - jnp.log(2.0) + cauchy.logpdf(sigma, 0.0, 5.0) + cauchy.logpdf(mu, 0.0, 10.0)
                  + jnp.log(2.0) + jax.nn.log_sigmoid(phi_u) + jax.nn.log_sigmoid(-phi_u)
                  + log_sigma)
            return h, lp
    elif name == "local_level":
        def f(y, a1, log_var_eps, log_var_eta):
            H, Q = jnp.exp(log_var_eps), jnp.exp(log_var_eta)

            def step(carry, y_t):
                a, P = carry
                v = y_t - a
                F = P + H
                K = P / F
                a = a + K * v
                P = P * (1.0 - K) + Q
                return (a, P), (a, -0.5 * (LOG_2PI + jnp.log(F) + v * v / F))
            _, (a, ll) = scan(step, (a1, jnp.asarray(1e6)), y)
            return a, ll[1:].sum()
    elif name == "garch_t":
        def f(r, w, a, bb, log_nu_m2):
            omega, alpha, beta = jnp.exp(w), sigmoid(a), sigmoid(bb)
            nu = 2.0 + jnp.exp(log_nu_m2)
            weights = 0.94 ** jnp.arange(75)
            backcast = jnp.sum(r[:75] ** 2 * weights) / weights.sum()

            def step(s_prev, r2_prev):
                s = omega + alpha * r2_prev + beta * s_prev
                return s, s
            r2_prev = jnp.concatenate([backcast[None], r[:-1] ** 2])
            _, sigma2 = scan(step, backcast, r2_prev)
            ll = (gammaln((nu + 1.0) / 2.0) - gammaln(nu / 2.0) - jnp.log(jnp.pi * (nu - 2.0)) / 2.0
                  - 0.5 * jnp.log(sigma2) - (nu + 1.0) / 2.0 * jnp.log1p(r ** 2 / (sigma2 * (nu - 2.0))))
            return sigma2, ll.sum()
    else:
        raise KeyError(name)
    return f


def jax_call(name, d):
    """The jitted JAX program as a call of no arguments, and its outputs."""
    import jax
    jax.config.update("jax_enable_x64", True)
    args = [jax.numpy.asarray(v) for v in d.values()]
    f = jax.jit(jax_fn(name))
    got = [np.asarray(o) for o in f(*args)]
    return (lambda: [o.block_until_ready() for o in f(*args)]), got


def run_jax(name, d, want, reps):
    call, got = jax_call(name, d)
    return median_ms(call, reps), agrees(got, want)


def interleaved(name, dims, scales, d, want, rounds, reps):
    """eqscan ÷ JAX from `rounds` rounds, each timing eqscan (`--repeat
    reps`) and then JAX (median of `reps` calls) back to back, so that the
    machine's slow and fast minutes weigh on both alike. Returns the
    per-round ratios, whether both engines agreed with NumPy, and the
    median ms of eqscan's and of JAX's rounds."""
    call, got = jax_call(name, d)
    ok = agrees(got, want)
    ratios, eq_all, jax_all = [], [], []
    for _ in range(rounds):
        eq_ms, eq_ok = run_eqscan(name, dims, scales, want, reps)
        jax_ms = median_ms(call, reps)
        ratios.append(eq_ms / jax_ms)
        eq_all.append(eq_ms)
        jax_all.append(jax_ms)
        ok = ok and eq_ok
    return ratios, ok, statistics.median(eq_all), statistics.median(jax_all)


# ---------------------------------------------------------------- PyTensor
def pytensor_graph(name, d):
    """(symbolic inputs in declaration order, outputs)."""
    import pytensor
    import pytensor.tensor as pt

    sym = {n: pt.tensor(n, shape=(None,) * v.ndim, dtype=str(v.dtype)) for n, v in d.items()}
    s = sym

    def scan(fn, **kw):
        return pytensor.scan(fn, return_updates=False, **kw)

    if name == "kalman":
        F = pt.constant(np.array([[1.0, 1.0], [0.0, 1.0]]))
        H = pt.constant(np.array([1.0, 0.0]))
        I = pt.constant(np.eye(2))
        Q = pt.diag(pt.exp(s["log_q"]))
        R = pt.exp(s["log_r"])

        def step(y_t, x, P, Q, R):
            x = pt.dot(F, x)
            P = pt.dot(pt.dot(F, P), F.T) + Q
            v = y_t - pt.dot(H, x)
            S = pt.dot(H, pt.dot(P, H)) + R
            K = pt.dot(P, H) / S
            x = x + K * v
            P = pt.dot(I - pt.outer(K, H), P)
            return x, P, -0.5 * (LOG_2PI + pt.log(S) + v * v / S)
        X, _, ll = scan(step, sequences=s["y"], outputs_info=[s["x0"], I, None],
                        non_sequences=[Q, R])
        outs = [X, ll.sum()]
    elif name == "hmm_forward":
        def log_softmax(z, axis):
            m = z.max(axis=axis, keepdims=True)
            return z - (m + pt.log(pt.exp(z - m).sum(axis=axis, keepdims=True)))
        log_pi = log_softmax(s["pi_logits"], 0)
        log_A = log_softmax(s["A_logits"], 1)
        dd = s["y"][:, None] - s["mu"][None, :]
        log_b = -0.5 * (LOG_2PI + dd * dd)

        def step(lb_t, alpha, log_A):
            M = alpha[:, None] + log_A
            m = M.max(axis=0)
            return lb_t + m + pt.log(pt.exp(M - m[None, :]).sum(axis=0))
        alpha0 = log_pi + log_b[0]
        alphas = scan(step, sequences=log_b[1:], outputs_info=alpha0, non_sequences=log_A)
        last = alphas[-1]
        m = last.max()
        outs = [pt.concatenate([alpha0[None], alphas]), m + pt.log(pt.exp(last - m).sum())]
    elif name == "gru":
        def step(x, h, Wz, Uz, bz, Wr, Ur, br, Wh, Uh, bh):
            z = pt.sigmoid(pt.dot(x, Wz) + pt.dot(h, Uz) + bz)
            r = pt.sigmoid(pt.dot(x, Wr) + pt.dot(h, Ur) + br)
            cand = pt.tanh(pt.dot(x, Wh) + pt.dot(r * h, Uh) + bh)
            return z * h + (1.0 - z) * cand
        outs = [scan(step, sequences=s["X"], outputs_info=s["h0"],
                     non_sequences=[s[n] for n in ["Wz", "Uz", "bz", "Wr", "Ur", "br", "Wh", "Uh", "bh"]])]
    elif name == "lstm":
        def step(x, m, h, c, W, U, b):
            pre = pt.matmul(x, W) + pt.matmul(h, U) + b[:, None, :]
            i, fg, o = pt.sigmoid(pre[0]), pt.sigmoid(pre[1]), pt.sigmoid(pre[2])
            g = pt.tanh(pre[3])
            c_new = fg * c + i * g
            h_new = o * pt.tanh(c_new)
            m = pt.cast(m, "float64")[:, None]
            return m * h_new + (1.0 - m) * h, m * c_new + (1.0 - m) * c
        H, _ = scan(step, sequences=[s["X"], s["mask"]], outputs_info=[s["h0"], s["c0"]],
                    non_sequences=[s["W"], s["U"], s["b"]])
        outs = [H]
    else:
        raise KeyError(name)
    return list(sym.values()), outs


def run_pytensor(name, d, want, reps, mode=None):
    """(median ms, compile s, agrees)."""
    import pytensor
    ins, outs = pytensor_graph(name, d)
    t0 = time.perf_counter()
    f = pytensor.function(ins, outs, mode=mode)
    compile_s = time.perf_counter() - t0
    args = list(d.values())
    got = f(*args)
    return median_ms(lambda: f(*args), reps), compile_s, agrees(got, want)


# -------------------------------------------------------------------- main
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", action="append", choices=NAMES + HELD)
    p.add_argument("--held", action="store_true",
                   help="the held programs of issue 40 (not tuned), printed apart; no PyTensor")
    p.add_argument("--reps", type=int, default=5, help="timed calls of each peer (median)")
    p.add_argument("--repeat", type=int, default=20, help="eqscan's --repeat")
    p.add_argument("--no-numba", action="store_true", help="skip PyTensor's NUMBA mode")
    p.add_argument("--no-eqscan", action="store_true")
    p.add_argument("--all-threads", action="store_true",
                   help="leave the engines' thread counts at their defaults (read before parsing)")
    p.add_argument("--rounds", type=int, default=0,
                   help="instead of one pass: eqscan ÷ JAX from this many interleaved rounds "
                        "(median, range)")
    a = p.parse_args(argv)
    if a.rounds > 0:
        return main_rounds(a)
    if a.held or (a.only and all(n in HELD for n in a.only)):
        return main_held(a)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    threads = "engine defaults" if a.all_threads else "one thread each"
    print(f"load average {load}; {threads}")
    cols = ["eqscan", "jax", "pytensor", "pt_numba", "numpy"]
    print(f"{'program':12s} {'steps':>6s} " + " ".join(f"{c + ' ms':>12s}" for c in cols)
          + "   µs/step: " + " ".join(f"{c:>9s}" for c in cols) + "  agree")
    for name in [n for n in a.only or NAMES if n in NAMES]:
        dims = ref.medium_dims(name)
        _, d, _, scales = ref.program_inputs(name, dims)
        steps = dims["T"]
        want = [np.asarray(w) for w in ref.REFERENCES[name](d)]
        ms, oks = {}, []
        if not a.no_eqscan:
            ms["eqscan"], ok = run_eqscan(name, dims, scales, want, a.repeat)
            oks.append(ok)
        ms["jax"], ok = run_jax(name, d, want, a.reps)
        oks.append(ok)
        ms["pytensor"], _, ok = run_pytensor(name, d, want, a.reps)
        oks.append(ok)
        if not a.no_numba:
            ms["pt_numba"], _, ok = run_pytensor(name, d, want, a.reps, mode="NUMBA")
            oks.append(ok)
        ms["numpy"] = median_ms(lambda: ref.REFERENCES[name](d), a.reps)
        ms_cells = " ".join(f"{ms[c]:12.3f}" if c in ms else " " * 12 for c in cols)
        us_cells = " ".join(f"{1e3 * ms[c] / steps:9.2f}" if c in ms else " " * 9 for c in cols)
        print(f"{name:12s} {steps:6d} {ms_cells}            {us_cells}"
              + f"  {'yes' if all(oks) else 'NO'}", flush=True)
    if a.only and any(n in HELD for n in a.only):
        print()
        main_held(a)


def off_tape(report):
    """`loops.off_tape` of an `eqscan run --json` report as `reason (N)`, or "-"."""
    reasons = [o["reason"] for o in report.get("loops", {}).get("off_tape", [])]
    return ", ".join(f"{r} ({reasons.count(r)})" for r in sorted(set(reasons))) or "-"


def main_held(a):
    """The held programs: eqscan (and its loops off the step tape), JAX and
    the NumPy loop, printed under their own title."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    threads = "engine defaults" if a.all_threads else "one thread each"
    print(f"held (not tuned): load average {load}; {threads}")
    cols = ["eqscan", "jax", "numpy"]
    print(f"{'program':20s} {'steps':>6s} " + " ".join(f"{c + ' ms':>11s}" for c in cols)
          + f" {'eq/jax':>7s}  agree  loops (run, on tape; off tape)")
    for name in a.only or HELD:
        if name not in HELD:
            continue
        dims = ref.medium_dims(name)
        _, d, _, scales = ref.program_inputs(name, dims)
        want = [np.asarray(w) for w in ref.REFERENCES[name](d)]
        ms, oks, loops = {}, [], ""
        if not a.no_eqscan:
            report = eqscan_report(name, dims, scales, a.repeat)
            sums = [o["sum"] for o in report["outputs"]]
            oks.append(len(sums) == len(want) and all(
                np.isclose(s, float(np.sum(w)), rtol=1e-8, atol=1e-8) for s, w in zip(sums, want)))
            ms["eqscan"] = statistics.median(report["execute_ms"])
            lp = report["loops"]
            loops = f"{lp['run']}, {lp['on_tape']}; {off_tape(report)}"
        ms["jax"], ok = run_jax(name, d, want, a.reps)
        oks.append(ok)
        ms["numpy"] = median_ms(lambda: ref.REFERENCES[name](d), a.reps)
        ratio = f"{ms['eqscan'] / ms['jax']:7.2f}" if "eqscan" in ms else " " * 7
        print(f"{name:20s} {dims['T']:6d} "
              + " ".join(f"{ms[c]:11.3f}" if c in ms else " " * 11 for c in cols)
              + f" {ratio}  {'yes' if all(oks) else 'NO ':5s}  {loops}", flush=True)


def main_rounds(a):
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    title = "held (not tuned): " if a.held else ""
    print(f"{title}load average {load}; one thread each; eqscan ÷ JAX over {a.rounds} interleaved "
          f"rounds of {a.reps} calls each")
    for name in a.only or (HELD if a.held else NAMES):
        dims = ref.medium_dims(name)
        _, d, _, scales = ref.program_inputs(name, dims)
        want = [np.asarray(w) for w in ref.REFERENCES[name](d)]
        ratios, ok, eq_ms, jax_ms = interleaved(name, dims, scales, d, want, a.rounds, a.reps)
        print(f"{name:20s} median {statistics.median(ratios):.3f}  range {min(ratios):.3f}-"
              f"{max(ratios):.3f}  rounds " + " ".join(f"{r:.2f}" for r in ratios)
              + f"  (eqscan {eq_ms:.3f} ms, jax {jax_ms:.3f} ms)"
              + f"  agree {'yes' if ok else 'NO'}", flush=True)


if __name__ == "__main__":
    main()
