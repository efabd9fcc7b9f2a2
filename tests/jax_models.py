"""JAX references for the PyMC-style model cases (issue 38).

Each model below is written by hand in jax.numpy (lax.scan for loops),
independently of the eqscan program in tests/cases/grad/NAME.sexp that
says `; reference: jax`. Its inputs come from the same data rule
(tests/numpy_cases.py: make_inputs), and its outputs — the log-density
and jax.grad of it with respect to the case's `; wrt:` inputs, in f64 —
are written to tests/cases/grad/NAME.expected/out_K.npy, which
tests/grad_cases.rs compares eqscan's outputs with (`; rtol:`).

Usage: /work/venv/bin/python tests/jax_models.py   (needs jax, numpy)
"""

import os
import shutil
import sys

import numpy as np

os.environ.setdefault("JAX_ENABLE_X64", "1")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.scipy.special import gammaln, logsumexp  # noqa: E402

jax.config.update("jax_enable_x64", True)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy_cases  # noqa: E402

GRAD = os.path.join(HERE, "cases", "grad")


def poisson_regression(X, Y, beta, a):
    y = jnp.abs(Y).astype(jnp.float64)
    eta = X @ beta + a
    loglik = jnp.sum(y * eta - jnp.exp(eta) - gammaln(y + 1.0))
    half_log_2pi = 0.5 * jnp.log(2.0 * jnp.pi)
    prior_beta = jnp.sum(-0.5 * beta**2 - half_log_2pi)
    prior_a = -0.5 * (a / 2.0) ** 2 - half_log_2pi - jnp.log(2.0)
    return loglik + prior_beta + prior_a


def categorical_hmm(TA, TB, a0, O):
    obs = jnp.mod(O, 4)
    la = jax.nn.log_softmax(TA, axis=1)
    lb = jax.nn.log_softmax(TB, axis=1)
    emit = lb[:, obs].T  # (T, K)
    alpha0 = jax.nn.log_softmax(a0) + emit[0]

    def step(alpha, e):
        nxt = logsumexp(alpha[:, None] + la, axis=0) + e
        return nxt, nxt

    last, _ = lax.scan(step, alpha0, emit[1:])
    return logsumexp(last)


# case name -> (model, names of its inputs in order, names to differentiate)
MODELS = {
    "pymc_poisson_regression": (poisson_regression, ["X", "Y", "beta", "a"], ["beta", "a"]),
    "pymc_categorical_hmm": (categorical_hmm, ["TA", "TB", "a0", "O"], ["TA", "TB", "a0"]),
}


def main():
    for name, (model, names, wrt) in MODELS.items():
        path = os.path.join(GRAD, name + ".sexp")
        inputs, dims, scales = numpy_cases.read_case(path)
        values = numpy_cases.make_inputs(inputs, dims, scales)
        assert list(values) == names, (name, list(values))
        args = [jnp.asarray(values[n]) for n in names]
        argnums = tuple(names.index(w) for w in wrt)
        value, grads = jax.jit(jax.value_and_grad(model, argnums=argnums))(*args)
        outs = [np.asarray(value, dtype=np.float64)] + [np.asarray(g, dtype=np.float64)
                                                        for g in grads]
        exp_dir = os.path.join(GRAD, name + ".expected")
        shutil.rmtree(exp_dir, ignore_errors=True)
        os.makedirs(exp_dir)
        for k, o in enumerate(outs):
            np.save(os.path.join(exp_dir, f"out_{k}.npy"), o)
        print(f"{name}: L = {float(value)!r}")


if __name__ == "__main__":
    main()
