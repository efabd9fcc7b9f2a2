#!/usr/bin/env python3
"""The overhead of calling a compiled program from Python (issue 39: at
most 20 µs beyond the run).

For each small program: the median time of a call from Python,
`f(x)` (timeit: the median over 31 repeats of 2000 calls each), against
the median of the core's `Compiled::call` of the same program on the same
input, as `eqscan run --input ... --repeat 5000 --json` times it
(`execute_ms`: the call alone, in Rust). The difference is what Python
adds: binding arguments, checking dtypes and ranks, lending the arrays,
releasing the GIL, moving the results into NumPy.

Also: the cost of an input that must be copied (a Fortran-order array)
against one read in place (C order), for an 8 MB input.

From the repository root, after `cargo build --release` and with the
package installed (`pip install ./python`):

    python benches/python_overhead.py
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import timeit

import numpy as np

import eqscan

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("EQSCAN_CLI", os.path.join(ROOT, "target", "release", "eqscan"))

PROGRAMS = {
    "add (4 elements)": ("(program tiny (input x (f64 4)) (output (add x 1.0)))", (4,)),
    "add (N=1000)": ("(program add (input x (f64 N)) (output (add x 1.0)))", (1000,)),
    "two outputs": (
        "(program two (input x (f64 N)) (output (mul x 2.0) (sum x)))",
        (16,),
    ),
    "cumsum scan (T=8)": (
        """(program cumsum (input x (f64 T 2))
             (let S (scan (sequences x) (outputs_info (sitsot (zeros (f64 2))))
                          (fn (xt acc) (add acc xt))))
             (output (index S -1)))""",
        (8, 2),
    ),
}


def python_median_us(f, x, number=2000, repeat=31):
    f(x)
    times = timeit.repeat(lambda: f(x), number=number, repeat=repeat)
    return statistics.median(times) / number * 1e6


def rust_median_us(text, x, repeat=5000):
    with tempfile.TemporaryDirectory() as d:
        prog = os.path.join(d, "p.sexp")
        with open(prog, "w") as fh:
            fh.write(text)
        npy = os.path.join(d, "x.npy")
        np.save(npy, x)
        out = subprocess.run(
            [CLI, "run", prog, "--input", f"x={npy}", "--repeat", str(repeat), "--json"],
            capture_output=True, text=True, check=True,
        )
    return statistics.median(json.loads(out.stdout)["execute_ms"]) * 1e3


def main():
    if not os.path.exists(CLI):
        sys.exit(f"{CLI} not found: run `cargo build --release` first (or set EQSCAN_CLI)")
    rng = np.random.default_rng(0)
    print(f"{'program':<20} {'Python call':>12} {'Rust call':>10} {'overhead':>9}")
    worst = 0.0
    for name, (text, shape) in PROGRAMS.items():
        x = rng.normal(size=shape)
        f = eqscan.parse(text).compile()
        py = python_median_us(f, x)
        rs = rust_median_us(text, x)
        worst = max(worst, py - rs)
        print(f"{name:<20} {py:>10.2f}µs {rs:>8.2f}µs {py - rs:>7.2f}µs")
    print(f"largest overhead: {worst:.2f} µs (issue 39's bound: 20 µs)")

    big = rng.normal(size=(1000, 1000))
    f = eqscan.parse("(program s (input x (f64 N M)) (output (index x 0 0)))").compile()
    c = python_median_us(f, big, number=50, repeat=11)
    fortran = np.asfortranarray(big)
    fo = python_median_us(f, fortran, number=50, repeat=11)
    print(f"8 MB input read in place: {c:.1f} µs a call; copied (Fortran order): {fo:.1f} µs")


if __name__ == "__main__":
    main()
