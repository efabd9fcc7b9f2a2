#!/usr/bin/env python3
"""A held set of real PyTensor programs, tried through `mode="EQSCAN"` as a
new user would: each is written as its source writes it (PyTensor's scan
documentation, PyTensor's own scan tests, users' models as published), with
its gradient where the source takes one. Nothing here was tuned for eqscan,
and no program here is one of eqscan's tests.

  pip install ./python pytensor jax scipy     # in a venv
  python3 benches/pytensor_programs.py [--only NAME] [--time]

For each program: compiled with PyTensor's default mode and with "EQSCAN",
called on the same inputs; every output compared (f64 within 1e-9
relative, integers exactly). Prints one line per program: `ok`,
`MISMATCH` (the worst relative error), `cannot convert` (eqscan.Error's
sentence, which names the op) or `ERROR`. `--time` adds the median call
time of both modes.
"""
import argparse
import sys
import traceback

import numpy as np

from pytensor_common import scan, scan_with_updates, median_ms






PROGRAMS = {}


def program(source):
    """Register a builder: returns (inputs, outputs, values[, updates])."""
    def deco(f):
        PROGRAMS[f.__name__] = (source, f)
        return f
    return deco


def rng():
    return np.random.default_rng(20261129)


# ---------------------------------------------------------------- the docs
@program("PyTensor docs, Loops: computing A**k")
def docs_power():
    import pytensor.tensor as pt
    k = pt.iscalar("k")
    A = pt.vector("A")
    res = scan(lambda prior, A: prior * A, outputs_info=pt.ones_like(A),
               non_sequences=A, n_steps=k)
    return [A, k], [res[-1]], [rng().uniform(0.5, 1.5, 10), np.int32(10)]


@program("PyTensor docs, Loops: polynomial from coefficients")
def docs_polynomial():
    import pytensor.tensor as pt
    coefficients = pt.vector("coefficients")
    x = pt.scalar("x")
    comps = scan(lambda c, p, x: c * (x ** p),
                 sequences=[coefficients, pt.arange(10000)],
                 non_sequences=x)
    return [coefficients, x], [comps.sum()], [np.asarray([1.0, 0.0, 2.0]), np.float64(3.0)]


@program("PyTensor docs, Loops: tanh(x(t).dot(W) + b) elementwise")
def docs_tanh_rows():
    import pytensor.tensor as pt
    X = pt.matrix("X")
    W = pt.matrix("W")
    b = pt.vector("b")
    res = scan(lambda v, W, b: pt.tanh(pt.dot(v, W) + b), sequences=X,
               non_sequences=[W, b])
    r = rng()
    return [X, W, b], [res], [r.normal(size=(5, 4)), r.normal(size=(4, 3)), r.normal(size=3)]


@program("PyTensor docs, Loops: x(t) = tanh(x(t-1).dot(W) + y(t).dot(U) + p(T-t).dot(V))")
def docs_seq_recurrence():
    import pytensor.tensor as pt
    X = pt.vector("X")
    W = pt.matrix("W")
    U = pt.matrix("U")
    Y = pt.matrix("Y")
    V = pt.matrix("V")
    P = pt.matrix("P")
    res = scan(lambda y, p, x_tm1: pt.tanh(pt.dot(x_tm1, W) + pt.dot(y, U) + pt.dot(p, V)),
               sequences=[Y, P[::-1]], outputs_info=[X])
    r = rng()
    vals = [r.normal(size=2), r.normal(size=(2, 2)) * 0.5, r.normal(size=2),
            r.normal(size=(2, 2)) * 0.5, r.normal(size=(5, 2)), r.normal(size=(2, 2)) * 0.5,
            r.normal(size=(5, 2))]
    # b_sym is declared in the docs but unused; PyTensor refuses an unused input
    # unless told, so it is left out here.
    return [X, W, U, Y, V, P], [res], [vals[0], vals[1], vals[3], vals[4], vals[5], vals[6]]


@program("PyTensor docs, Loops: norms of rows and columns")
def docs_norms():
    import pytensor.tensor as pt
    X = pt.matrix("X")
    rows = scan(lambda x_i: pt.sqrt((x_i ** 2).sum()), sequences=[X])
    cols = scan(lambda x_i: pt.sqrt((x_i ** 2).sum()), sequences=[X.T])
    return [X], [rows, cols], [np.diag(np.arange(1.0, 6.0))]


@program("PyTensor docs, Loops: trace by scan over indices")
def docs_trace():
    import pytensor.tensor as pt
    floatX = "float64"
    X = pt.matrix("X")
    res = scan(lambda i, j, t_f: pt.cast(X[i, j] + t_f, floatX),
               sequences=[pt.arange(X.shape[0]), pt.arange(X.shape[1])],
               outputs_info=np.asarray(0.0, dtype=floatX))
    return [X], [res[-1]], [np.eye(5) + rng().normal(size=(5, 5))]


@program("PyTensor docs, Loops: recurrence with taps x(t-2), x(t-1)")
def docs_taps():
    import pytensor.tensor as pt
    X = pt.matrix("X")
    W = pt.matrix("W")
    b_sym = pt.vector("b_sym")
    U = pt.matrix("U")
    V = pt.matrix("V")
    n_sym = pt.iscalar("n_sym")
    res = scan(lambda x_tm2, x_tm1: pt.dot(x_tm2, U) + pt.dot(x_tm1, V) + pt.tanh(pt.dot(x_tm1, W) + b_sym),
               n_steps=n_sym, outputs_info=[dict(initial=X, taps=[-2, -1])])
    r = rng()
    return [X, U, V, W, b_sym, n_sym], [res], [
        r.normal(size=(2, 2)), r.normal(size=(2, 2)) * 0.3, r.normal(size=(2, 2)) * 0.3,
        r.normal(size=(2, 2)), r.normal(size=2), np.int32(10)]


@program("PyTensor docs, Loops: Jacobian by scan")
def docs_jacobian():
    import pytensor
    import pytensor.tensor as pt
    v = pt.vector("v")
    A = pt.matrix("A")
    y = pt.tanh(pt.dot(A, v)) ** 2
    J = scan(lambda i, y, v: pytensor.grad(y[i], v), sequences=pt.arange(y.shape[0]),
             non_sequences=[y, v])
    r = rng()
    return [A, v], [J], [r.normal(size=(4, 3)), r.normal(size=3)]


@program("PyTensor docs, Gradients: pytensor.gradient.hessian")
def docs_hessian():
    import pytensor
    import pytensor.tensor as pt
    x = pt.dvector("x")
    cost = pt.sum(x ** 3) + pt.sum(pt.exp(x)) * pt.sum(x)
    H = pytensor.gradient.hessian(cost, x)
    return [x], [H], [rng().normal(size=4)]


@program("PyTensor docs, Loops: power of 2 until a maximum (as_while)")
def docs_power_of_2_until():
    import pytensor.tensor as pt
    from pytensor.scan.utils import until
    max_value = pt.scalar("max_value")

    def power_of_2(previous_power, max_value):
        return previous_power * 2, until(previous_power * 2 > max_value)

    values = scan(power_of_2, outputs_info=pt.constant(1.0), non_sequences=max_value,
                  n_steps=1024)
    return [max_value], [values], [np.float64(45.0)]


@program("PyTensor docs, Loops: Fibonacci with taps [-2, -1]")
def docs_fibonacci():
    import pytensor.tensor as pt
    n = pt.iscalar("n")
    init = pt.vector("init")
    res = scan(lambda a, b: a + b, outputs_info=[dict(initial=init, taps=[-2, -1])], n_steps=n)
    return [init, n], [res], [np.asarray([0.0, 1.0]), np.int32(30)]


@program("PyTensor docs, Loops: a shared variable updated by scan")
def docs_shared_counter():
    import pytensor
    import pytensor.tensor as pt
    state = pytensor.shared(np.float64(1.5), name="state")
    x = pt.vector("x")
    out, updates = scan_with_updates(lambda xi, acc: acc + xi * state, sequences=x,
                                     outputs_info=pt.constant(0.0, dtype="float64"))
    updates = dict(updates)
    updates[state] = state + 1.0
    return [x], [out], [np.arange(5.0)], updates


# ----------------------------------------------------- PyTensor's own tests
@program("pytensor tests/scan/test_basic.py: go_backwards with a sit-sot")
def test_go_backwards():
    import pytensor.tensor as pt
    u = pt.vector("u")
    x0 = pt.scalar("x0")
    W_in = pt.scalar("win")
    W = pt.scalar("w")
    out = scan(lambda u_t, x_tm1, W_in, W: u_t * W_in + x_tm1 * W, sequences=u,
               outputs_info=x0, non_sequences=[W_in, W], go_backwards=True)
    r = rng()
    return [u, x0, W_in, W], [out], [r.uniform(-5, 5, 4), np.float64(r.uniform()),
                                     np.float64(r.uniform()), np.float64(r.uniform())]


@program("pytensor tests/scan/test_basic.py: multiple inputs and outputs, nit-sot")
def test_multiple_outs():
    import pytensor.tensor as pt
    u1 = pt.matrix("u1")
    u2 = pt.vector("u2")
    x0 = pt.vector("x0")
    y0 = pt.scalar("y0")
    W_in1 = pt.matrix("win")
    W_in2 = pt.vector("win2")
    W = pt.matrix("w")
    W_out = pt.vector("wout")

    def f_rnn_cmpl(u1_t, u2_t, x_tm1, y_tm1, W_in1):
        return [pt.dot(u1_t, W_in1) + u2_t * W_in2 + pt.dot(x_tm1, W),
                pt.dot(x_tm1, W_out), pt.dot(u1_t, W_in1)]

    outs = scan(f_rnn_cmpl, sequences=[u1, u2], outputs_info=[x0, y0, None],
                non_sequences=W_in1)
    r = rng()
    return [u1, u2, x0, y0, W_in1, W_in2, W, W_out], list(outs), [
        r.uniform(-5, 5, (3, 2)), r.uniform(-5, 5, 3), r.uniform(-5, 5, 2),
        np.float64(r.uniform()), r.uniform(-0.5, 0.5, (2, 2)), r.uniform(-0.5, 0.5, 2),
        r.uniform(-0.5, 0.5, (2, 2)), r.uniform(-0.5, 0.5, 2)]


@program("pytensor tests/scan/test_basic.py: while loop stopping on a state (test_while)")
def test_while_state():
    import pytensor.tensor as pt
    from pytensor.scan.utils import until
    x = pt.vector("x")
    out = scan(lambda x_t, acc: (acc + x_t, until(acc + x_t > 10.0)), sequences=x,
               outputs_info=pt.constant(0.0, dtype="float64"))
    return [x], [out, out.sum()], [np.arange(1.0, 20.0)]


@program("pytensor tests/scan: gradient through a sit-sot RNN (test_grad_multiple_outs style)")
def test_grad_rnn():
    import pytensor
    import pytensor.tensor as pt
    u = pt.matrix("u")
    h0 = pt.vector("h0")
    W = pt.matrix("W")
    W_in = pt.matrix("W_in")
    H = scan(lambda u_t, h, W, W_in: pt.tanh(pt.dot(h, W) + pt.dot(u_t, W_in)),
             sequences=u, outputs_info=h0, non_sequences=[W, W_in])
    cost = (H ** 2).sum()
    g = pytensor.grad(cost, [u, h0, W, W_in])
    r = rng()
    return [u, h0, W, W_in], [cost] + g, [r.normal(size=(7, 3)), r.normal(size=4),
                                          r.normal(size=(4, 4)) * 0.4, r.normal(size=(3, 4))]


# --------------------------------------------------------- users' models
@program("PyMC discourse: AR(1) log-likelihood by scan, with its gradient")
def user_ar1():
    import pytensor
    import pytensor.tensor as pt
    y = pt.vector("y")
    rho = pt.scalar("rho")
    sigma = pt.scalar("sigma")
    mu = scan(lambda y_tm1, rho: rho * y_tm1, sequences=y[:-1], non_sequences=rho)
    resid = y[1:] - mu
    logp = pt.sum(-0.5 * (resid / sigma) ** 2 - pt.log(sigma) - 0.5 * np.log(2 * np.pi))
    g = pytensor.grad(logp, [rho, sigma])
    return [y, rho, sigma], [logp] + g, [rng().normal(size=200).cumsum() * 0.1,
                                        np.float64(0.7), np.float64(1.3)]


@program("PyMC examples: GARCH(1,1) volatility by scan, with its gradient")
def user_garch():
    import pytensor
    import pytensor.tensor as pt
    r = pt.vector("r")
    omega = pt.scalar("omega")
    alpha = pt.scalar("alpha")
    beta = pt.scalar("beta")
    sigma0 = pt.scalar("sigma0")

    def step(r_tm1, sigma_tm1, omega, alpha, beta):
        return pt.sqrt(omega + alpha * r_tm1 ** 2 + beta * sigma_tm1 ** 2)

    sigma = scan(step, sequences=r[:-1], outputs_info=sigma0,
                 non_sequences=[omega, alpha, beta])
    logp = pt.sum(-0.5 * (r[1:] / sigma) ** 2 - pt.log(sigma))
    g = pytensor.grad(logp, [omega, alpha, beta, sigma0])
    return [r, omega, alpha, beta, sigma0], [logp] + g, [
        rng().normal(size=300) * 0.05, np.float64(1e-4), np.float64(0.1), np.float64(0.85),
        np.float64(0.05)]


@program("PyMC discourse: HMM forward algorithm with logsumexp, with its gradient")
def user_hmm_forward():
    import pytensor
    import pytensor.tensor as pt
    obs_logp = pt.matrix("obs_logp")    # T x K emission log-likelihoods
    log_P = pt.matrix("log_P")          # K x K transition log-probabilities
    log_pi = pt.vector("log_pi")

    def step(lp_t, alpha_tm1, log_P):
        return lp_t + pt.logsumexp(alpha_tm1[:, None] + log_P, axis=0)

    alpha = scan(step, sequences=obs_logp[1:], outputs_info=log_pi + obs_logp[0],
                 non_sequences=log_P)
    ll = pt.logsumexp(alpha[-1])
    g = pytensor.grad(ll, [obs_logp, log_P, log_pi])
    r = rng()
    P = r.dirichlet(np.ones(3), size=3)
    return [obs_logp, log_P, log_pi], [ll] + g, [r.normal(size=(50, 3)) * 2.0, np.log(P),
                                                 np.log(np.full(3, 1 / 3))]


@program("PyMC discourse: Gaussian random walk by scan (cumulative sum), with its gradient")
def user_random_walk():
    import pytensor
    import pytensor.tensor as pt
    innov = pt.vector("innov")
    sigma = pt.scalar("sigma")
    x = scan(lambda e, x_tm1, s: x_tm1 + s * e, sequences=innov,
             outputs_info=pt.constant(0.0, dtype="float64"), non_sequences=sigma)
    cost = pt.sum(pt.sin(x))
    g = pytensor.grad(cost, [innov, sigma])
    return [innov, sigma], [x, cost] + g, [rng().normal(size=100), np.float64(0.3)]


@program("PyMC discourse: stochastic volatility latent process by scan")
def user_stochastic_volatility():
    import pytensor
    import pytensor.tensor as pt
    eta = pt.vector("eta")
    mu = pt.scalar("mu")
    phi = pt.scalar("phi")
    sigma = pt.scalar("sigma")
    ret = pt.vector("ret")
    h = scan(lambda e, h_tm1, mu, phi, sigma: mu + phi * (h_tm1 - mu) + sigma * e,
             sequences=eta, outputs_info=mu, non_sequences=[mu, phi, sigma])
    logp = pt.sum(-0.5 * h - 0.5 * ret ** 2 * pt.exp(-h))
    g = pytensor.grad(logp, [eta, mu, phi, sigma])
    r = rng()
    return [eta, mu, phi, sigma, ret], [logp] + g, [r.normal(size=120), np.float64(-1.0),
                                                   np.float64(0.95), np.float64(0.2),
                                                   r.normal(size=120) * 0.5]


def lstm_graph(T, n_in, n_h):
    import pytensor
    import pytensor.tensor as pt
    X = pt.matrix("X")
    W = pt.matrix("W")      # n_in x 4 n_h
    U = pt.matrix("U")      # n_h x 4 n_h
    b = pt.vector("b")
    h0 = pt.vector("h0")
    c0 = pt.vector("c0")

    def step(x_t, h_tm1, c_tm1, W, U, b):
        z = pt.dot(x_t, W) + pt.dot(h_tm1, U) + b
        i = pt.sigmoid(z[:n_h])
        f = pt.sigmoid(z[n_h:2 * n_h])
        o = pt.sigmoid(z[2 * n_h:3 * n_h])
        g = pt.tanh(z[3 * n_h:])
        c = f * c_tm1 + i * g
        return o * pt.tanh(c), c

    H, C = scan(step, sequences=X, outputs_info=[h0, c0], non_sequences=[W, U, b])
    cost = (H ** 2).sum()
    grads = pytensor.grad(cost, [W, U, b])
    r = np.random.default_rng(7)
    vals = [r.normal(size=(T, n_in)), r.normal(size=(n_in, 4 * n_h)) * 0.1,
            r.normal(size=(n_h, 4 * n_h)) * 0.1, r.normal(size=4 * n_h) * 0.1,
            np.zeros(n_h), np.zeros(n_h)]
    return [X, W, U, b, h0, c0], [cost] + grads, vals


def gru_graph(T, n_in, n_h):
    import pytensor
    import pytensor.tensor as pt
    X = pt.matrix("X")
    W = pt.matrix("W")      # n_in x 3 n_h
    U = pt.matrix("U")      # n_h x 3 n_h
    b = pt.vector("b")
    h0 = pt.vector("h0")

    def step(x_t, h_tm1, W, U, b):
        xw = pt.dot(x_t, W) + b
        hu = pt.dot(h_tm1, U[:, :2 * n_h])
        z = pt.sigmoid(xw[:n_h] + hu[:n_h])
        r_ = pt.sigmoid(xw[n_h:2 * n_h] + hu[n_h:])
        h_hat = pt.tanh(xw[2 * n_h:] + pt.dot(r_ * h_tm1, U[:, 2 * n_h:]))
        return (1.0 - z) * h_tm1 + z * h_hat

    H = scan(step, sequences=X, outputs_info=h0, non_sequences=[W, U, b])
    cost = (H ** 2).sum()
    grads = pytensor.grad(cost, [W, U, b])
    r = np.random.default_rng(8)
    vals = [r.normal(size=(T, n_in)), r.normal(size=(n_in, 3 * n_h)) * 0.1,
            r.normal(size=(n_h, 3 * n_h)) * 0.1, r.normal(size=3 * n_h) * 0.1, np.zeros(n_h)]
    return [X, W, U, b, h0], [cost] + grads, vals


@program("Keras/Theano tutorials: an LSTM layer and its gradient by scan")
def user_lstm():
    return lstm_graph(20, 8, 16)


@program("Keras/Theano tutorials: a GRU layer and its gradient by scan")
def user_gru():
    return gru_graph(20, 8, 16)


@program("Newton's square root with a tolerance (as_while)")
def user_newton_sqrt():
    import pytensor.tensor as pt
    from pytensor.scan.utils import until
    a = pt.scalar("a")

    def step(x, a):
        x_new = 0.5 * (x + a / x)
        return x_new, until(pt.abs(x_new - x) < 1e-12 * x_new)

    xs = scan(step, outputs_info=a, non_sequences=a, n_steps=1000)
    return [a], [xs[-1], xs.shape[0]], [np.float64(1234.5)]


@program("statespace models: a local-level Kalman filter log-likelihood by scan, with its gradient")
def user_kalman_local_level():
    import pytensor
    import pytensor.tensor as pt
    y = pt.vector("y")
    sigma_obs = pt.scalar("sigma_obs")
    sigma_lvl = pt.scalar("sigma_lvl")

    def step(y_t, a, P, H, Q):
        F = P + H
        v = y_t - a
        K = P / F
        ll = -0.5 * (pt.log(2 * np.pi * F) + v ** 2 / F)
        return a + K * v, P * (1 - K) + Q, ll

    _, _, ll = scan(step, sequences=y, outputs_info=[pt.constant(0.0, dtype="float64"), pt.constant(1e6, dtype="float64"), None],
                    non_sequences=[sigma_obs ** 2, sigma_lvl ** 2])
    total = ll.sum()
    g = pytensor.grad(total, [sigma_obs, sigma_lvl])
    return [y, sigma_obs, sigma_lvl], [total] + g, [rng().normal(size=100).cumsum(),
                                                   np.float64(1.1), np.float64(0.4)]


@program("a nested scan: a scan inside a scan's body (pytensor tests, test_nested)")
def test_nested_scan():
    import pytensor
    import pytensor.tensor as pt
    X = pt.matrix("X")
    w = pt.scalar("w")

    def outer(row, acc, w):
        inner = scan(lambda x, s, w: s * w + x, sequences=row, outputs_info=pt.constant(0.0, dtype="float64"),
                     non_sequences=w)
        return acc + inner[-1]

    out = scan(outer, sequences=X, outputs_info=pt.constant(0.0, dtype="float64"), non_sequences=w)
    cost = out[-1]
    g = pytensor.grad(cost, [X, w])
    return [X, w], [out] + g, [rng().normal(size=(4, 5)), np.float64(0.9)]


# ------------------------------------------------------------------ runner
def build(name):
    source, f = PROGRAMS[name]
    built = f()
    inputs, outputs, values = built[:3]
    updates = built[3] if len(built) > 3 else None
    return source, inputs, outputs, values, updates


def compile_fn(name, mode):
    import pytensor
    _, inputs, outputs, values, updates = build(name)
    fn = pytensor.function(inputs, outputs, mode=mode, updates=updates,
                           on_unused_input="ignore")
    return fn, values


def worst_rel(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return float("inf")
    if a.dtype.kind in "iub":
        return 0.0 if np.array_equal(a, b) else float("inf")
    if not np.array_equal(np.isfinite(a), np.isfinite(b)):
        return float("inf")
    fin = np.isfinite(a)
    denom = np.maximum(np.abs(b[fin]), 1e-300)
    err = np.abs(a[fin] - b[fin])
    # Within 1e-9 relative, or 1e-12 absolute for values near zero.
    rel = np.where(err <= 1e-12, 0.0, err / denom)
    return float(rel.max(initial=0.0))




def try_one(name, timing):
    import eqscan
    fn_ref, values = compile_fn(name, None)
    want = fn_ref(*values)
    try:
        fn_eq, values2 = compile_fn(name, "EQSCAN")
        got = fn_eq(*values2)
    except eqscan.Error as e:
        return "cannot convert", str(e).splitlines()[0][:300]
    except Exception as e:  # noqa: BLE001 - every other failure is reported
        return "ERROR", f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
    worst = max(worst_rel(g, w) for g, w in zip(got, want))
    status = "ok" if worst <= 1e-9 and len(got) == len(want) else "MISMATCH"
    extra = f"worst rel {worst:.1e}"
    if timing:
        extra += f"; default {median_ms(lambda: fn_ref(*values), 20):.3f} ms, " \
                 f"EQSCAN {median_ms(lambda: fn_eq(*values2), 20):.3f} ms"
    return status, extra


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only")
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--traceback", action="store_true")
    args = ap.parse_args()
    import eqscan.pytensor  # noqa: F401 - registers the mode
    counts = {}
    for name in PROGRAMS:
        if args.only and args.only != name:
            continue
        try:
            status, detail = try_one(name, args.time)
        except Exception as e:  # noqa: BLE001
            if args.traceback:
                traceback.print_exc()
            status, detail = "ERROR", f"{type(e).__name__}: {e}"
        counts[status] = counts.get(status, 0) + 1
        print(f"{name:28} {status:15} {detail}")
    print(", ".join(f"{v} {k}" for k, v in sorted(counts.items())), f"of {sum(counts.values())}")
    return 0 if set(counts) <= {"ok"} else 1


if __name__ == "__main__":
    sys.exit(main())
