#!/usr/bin/env python3
"""NumPy reference outputs of the loop programs of issues 15 and 40.

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

The held programs of issue 40 (`benches/programs/held/NAME.sexp`, [`HELD`]:
published user models written as their users wrote them, not tuned for
eqscan) are computed the same way, as their sources write them (the HMM's
forward-backward with SciPy's logsumexp, the LSTM language model with the
Theano tutorial's packed `_slice`, Stan's stochastic-volatility density
with SciPy's distributions, arch's GARCH-t). A held program's header may
also give `; extreme: NAME=S ...`: the scales of a second run at extreme
magnitudes, written to `tests/fixtures/loops/NAME.extreme/`.

`tests/loop_programs.rs` checks eqscan against them. Run from anywhere:

    /work/venv/bin/python tests/loops_reference.py            # all
    /work/venv/bin/python tests/loops_reference.py --only gru

The functions here also serve `benches/python/loops_peers.py` as the
"NumPy loop" form of each program (`REFERENCES[name](inputs)`).
"""
import argparse
import json
import os
import sys

import numpy as np
from scipy import special, stats

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


# ------------------------------------------------ held programs (issue 40)

def hmm_fb_categorical(d):
    """Forward-backward of a categorical HMM in log space (Rabiner 1989,
    eqs. 19-27; Stan's forward algorithm): the emission of state k at time
    t is B[k, y_t]. Returns log p(y) and the posterior marginals (T, K)."""
    V = d["B_logits"].shape[1]
    y = np.mod(d["obs"], V)
    log_pi = special.log_softmax(d["pi_logits"])
    log_A = special.log_softmax(d["A_logits"], axis=1)
    log_B = special.log_softmax(d["B_logits"], axis=1)
    T, K = len(y), len(log_pi)
    log_alpha = np.empty((T, K))
    log_beta = np.zeros((T, K))
    log_alpha[0] = log_pi + log_B[:, y[0]]
    for t in range(1, T):
        log_alpha[t] = log_B[:, y[t]] + special.logsumexp(log_alpha[t - 1][:, None] + log_A, axis=0)
    for t in range(T - 2, -1, -1):
        log_beta[t] = special.logsumexp(log_A + (log_B[:, y[t + 1]] + log_beta[t + 1])[None, :], axis=1)
    log_lik = special.logsumexp(log_alpha[-1])
    return np.float64(log_lik), np.exp(log_alpha + log_beta - log_lik)


def lstm_lm_masked(d):
    """The Theano tutorial's masked LSTM (gates i, f, o, c sliced out of a
    packed (M, 4N) pre-activation) as a language model: token t+1 predicted
    from h_t, the mean negative log-likelihood over the unmasked targets."""
    V, N = d["Wemb"].shape
    x = np.mod(d["tokens"], V)
    m = d["mask"].astype(np.float64)
    W = d["W"].reshape(N, 4 * N)
    U = d["U"].reshape(N, 4 * N)
    b = d["b"].reshape(4 * N)
    T, M = x.shape

    def _slice(a, k):
        return a[:, k * N:(k + 1) * N]

    h = np.zeros((M, N))
    c = np.zeros((M, N))
    H = np.empty((T - 1, M, N))
    for t in range(T - 1):
        x_ = d["Wemb"][x[t]] @ W + b
        preact = h @ U + x_
        i = special.expit(_slice(preact, 0))
        f = special.expit(_slice(preact, 1))
        o = special.expit(_slice(preact, 2))
        g = np.tanh(_slice(preact, 3))
        mm = m[t][:, None]
        c_new = f * c + i * g
        c = mm * c_new + (1.0 - mm) * c
        h_new = o * np.tanh(c)
        h = mm * h_new + (1.0 - mm) * h
        H[t] = h
    logp = special.log_softmax(H @ d["Wout"] + d["bout"], axis=2)
    tt, mm_ = np.meshgrid(np.arange(T - 1), np.arange(M), indexing="ij")
    nll = -logp[tt, mm_, x[1:]]
    return np.float64((m[1:] * nll).sum() / m[1:].sum()), H


def gru_b80(d):
    """torch.nn.GRU's equations: the reset gate multiplies the hidden
    product, each gate has an input and a hidden bias."""
    X, h = d["X"], d["h0"]
    out = np.empty(X.shape[:2] + (h.shape[1],))
    for t in range(X.shape[0]):
        x = X[t]
        r = special.expit(x @ d["W_ir"] + d["b_ir"] + h @ d["W_hr"] + d["b_hr"])
        z = special.expit(x @ d["W_iz"] + d["b_iz"] + h @ d["W_hz"] + d["b_hz"])
        n = np.tanh(x @ d["W_in"] + d["b_in"] + r * (h @ d["W_hn"] + d["b_hn"]))
        h = (1.0 - z) * n + z * h
        out[t] = h
    return (out,)


def stochvol_filter(d):
    """The Stan User's Guide's stochastic-volatility model (non-centered),
    its transformed parameters as Stan writes them and the log density with
    SciPy's distributions, plus the log Jacobians of the constraining
    transforms of phi and sigma."""
    y, h_std, mu = d["y"], d["h_std"], float(d["mu"])
    phi_u, log_sigma = float(d["phi_u"]), float(d["log_sigma"])
    phi = 2.0 * special.expit(phi_u) - 1.0
    sigma = np.exp(log_sigma)
    h = h_std * sigma
    h[0] /= np.sqrt(1.0 - phi * phi)
    h += mu
    for t in range(1, len(h)):
        h[t] += phi * (h[t - 1] - mu)
    lp = (stats.norm.logpdf(y, 0.0, np.exp(h / 2.0)).sum()
          + stats.norm.logpdf(h_std).sum()
          + stats.uniform.logpdf(phi, -1.0, 2.0)
          + stats.cauchy.logpdf(sigma, 0.0, 5.0)
          + stats.cauchy.logpdf(mu, 0.0, 10.0)
          + np.log(2.0) + special.log_expit(phi_u) + special.log_expit(-phi_u)
          + log_sigma)
    return h, np.float64(lp)


def local_level(d):
    """Durbin and Koopman (2012) eq. (2.15): the local level filter, P_1 =
    1e6, the log-likelihood without the first (diffuse) term."""
    y, a = d["y"], float(d["a1"])
    H, Q = np.exp(float(d["log_var_eps"])), np.exp(float(d["log_var_eta"]))
    P = 1e6
    preds = np.empty(len(y))
    ll = np.empty(len(y))
    for t in range(len(y)):
        v = y[t] - a
        F = P + H
        K = P / F
        a = a + K * v
        P = P * (1.0 - K) + Q
        preds[t] = a
        ll[t] = -0.5 * (LOG_2PI + np.log(F) + v * v / F)
    return preds, np.float64(ll[1:].sum())


def garch_t(d):
    """arch's GARCH(1,1) recursion with its exponential backcast (tau = 75,
    weights 0.94^i) and StudentsT.loglikelihood."""
    r = d["r"]
    omega, alpha = np.exp(float(d["w"])), special.expit(float(d["a"]))
    beta, nu = special.expit(float(d["bb"])), 2.0 + np.exp(float(d["log_nu_m2"]))
    tau = min(75, len(r))
    w = 0.94 ** np.arange(tau)
    w = w / w.sum()
    backcast = float(np.sum(r[:tau] ** 2 * w))
    sigma2 = np.empty(len(r))
    for t in range(len(r)):
        prev_r2 = backcast if t == 0 else r[t - 1] ** 2
        prev_s2 = backcast if t == 0 else sigma2[t - 1]
        sigma2[t] = omega + alpha * prev_r2 + beta * prev_s2
    lls = (special.gammaln((nu + 1.0) / 2.0) - special.gammaln(nu / 2.0)
           - np.log(np.pi * (nu - 2.0)) / 2.0 - 0.5 * np.log(sigma2)
           - (nu + 1.0) / 2.0 * np.log(1.0 + r ** 2 / (sigma2 * (nu - 2.0))))
    return sigma2, np.float64(lls.sum())


REFERENCES = {"kalman": kalman, "hmm_forward": hmm_forward, "gru": gru, "lstm": lstm,
              "hmm_fb_categorical": hmm_fb_categorical, "lstm_lm_masked": lstm_lm_masked,
              "gru_b80": gru_b80, "stochvol_filter": stochvol_filter,
              "local_level": local_level, "garch_t": garch_t}
# The held programs of issue 40, in benches/programs/held/.
HELD = ["hmm_fb_categorical", "lstm_lm_masked", "gru_b80", "stochvol_filter", "local_level",
        "garch_t"]


def program_path(name):
    """benches/programs/NAME.sexp, or benches/programs/held/NAME.sexp for a held one."""
    return os.path.join(PROGRAMS, "held", f"{name}.sexp") if name in HELD \
        else os.path.join(PROGRAMS, f"{name}.sexp")


def extreme_scales(name):
    """The scales of the program's `; extreme:` header line, or None."""
    for line in open(program_path(name), encoding="utf-8").read().splitlines():
        line = line.strip()
        if line.startswith("; extreme:"):
            return {k: float(v) for k, v in (kv.split("=") for kv in line[len("; extreme:"):].split())}
    return None


def program_inputs(name, dims=None, scales=None):
    """(inputs dict in declaration order, dims, scales) of a program: its
    header's dims unless `dims` is given, its header's scales unless
    `scales` is."""
    decls, header_dims, header_scales = read_case(program_path(name))
    dims = dict(header_dims if dims is None else dims)
    scales = dict(header_scales if scales is None else scales)
    return decls, make_inputs(decls, dims, scales), dims, scales


def medium_dims(name):
    """The sizes of the program's `(medium: T=... N=...)` header line."""
    text = open(program_path(name), encoding="utf-8").read()
    start = text.index("(medium:") + len("(medium:")
    return {k: int(v) for k, v in (kv.split("=") for kv in text[start:text.index(")", start)].split())}


def write(name, extreme=False):
    """The fixtures of one program: at its header's scales, or (`extreme`)
    at its `; extreme:` scales into `NAME.extreme/`."""
    decls, d, dims, scales = program_inputs(name, scales=extreme_scales(name) if extreme else None)
    outs = REFERENCES[name](d)
    out_dir = os.path.join(FIXTURES, name + (".extreme" if extreme else ""))
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
    print(f"{name}{' (extreme)' if extreme else ''}: dims {dims}, outputs {meta['outputs']}, "
          f"sums {[float(np.sum(v)) for v in outs]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", choices=sorted(REFERENCES))
    args = ap.parse_args(argv)
    for name in args.only or sorted(REFERENCES):
        write(name)
        if extreme_scales(name) is not None:
            write(name, extreme=True)


if __name__ == "__main__":
    main()
