"""Writes tests/fixtures/memory_budget/rnn_grad/out_K.npy: grad_reference.py's
best form of rnn_grad (../shared/bench/grad_reference.py) at T=2000, N=32 on
the data rule's inputs (W and U scaled by 1/16, as WORKLOADS.md says), the
size tests/memory_budget.rs runs under --memory-budget.

    /work/venv/bin/python tests/memory_budget_reference.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "shared", "bench"))
sys.path.insert(0, "/work/shared/bench")
import grad_reference  # noqa: E402

T, N = 2000, 32
SHAPES = [("W", (N, N), 1 / 16), ("U", (N, N), 1 / 16), ("b", (N,), 1.0),
          ("X", (T, N), 1.0), ("h0", (N,), 1.0), ("Y", (T, N), 1.0)]


def inputs():
    d = {}
    for k, (name, shape, s) in enumerate(SHAPES):
        i = np.arange(int(np.prod(shape)), dtype=np.float64)
        d[name] = (0.5 * np.sin(0.37 * i + 1.3 * k) * s).reshape(shape)
    return d


def main():
    out = os.path.join(HERE, "fixtures", "memory_budget", "rnn_grad")
    os.makedirs(out, exist_ok=True)
    for k, v in enumerate(grad_reference.best_rnn_grad(inputs())):
        np.save(os.path.join(out, f"out_{k}.npy"), v)


if __name__ == "__main__":
    main()
