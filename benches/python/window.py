#!/usr/bin/env python3
"""One measuring window: each of the eight forward workloads and the three
gradient workloads timed in its peers and in eqscan back to back, and
eqscan's time divided by the fastest peer's.

For each workload, in one minute: `../shared/bench/peers.py --only NAME`
(or `grad_peers.py`), which prints NumPy's best form, PyTensor and JAX
(medians of 5 calls after a warm-up), then

    target/release/eqscan run benches/programs/NAME.sexp --gen
        --dim K=V ... --scale K=S ... --repeat 20 --json

at the medium sizes of the program's `(medium: ...)` header and the
scales of WORKLOADS.md, optimized as `run` does; its figure is the
median of the 20 `execute_ms` (optimization not counted). The fastest
peer is the least of NumPy best, PyTensor (Scan rewrites on) and JAX.
Threads are left as each engine sets them (both cores), as WORKLOADS.md
measures its peers. Prints the machine's load before each workload,
since a busy core stalls OpenBLAS's threads (WORKLOADS.md).

From the repository root, after `cargo build --release`:

    /work/venv/bin/python benches/python/window.py [--only NAME ...]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "..", "shared", "bench")
FORWARD = ["invariant", "rnn", "map", "cumsum_last", "merge", "fib", "output_push", "constants"]
GRADIENT = ["rnn_grad", "ar1_grad", "garch_grad"]
# WORKLOADS.md's input scales (as benches/common/workloads.rs).
SCALES = {
    "invariant": {"A": 1 / 16},
    "rnn": {"W": 1 / 16, "U": 1 / 16},
    "rnn_grad": {"W": 1 / 16, "U": 1 / 16},
    "output_push": {"W": 1 / 11, "V": 1 / 11},
}


def peers(name):
    """{engine: ms} for one workload, from the shared peer scripts."""
    script = "grad_peers.py" if name in GRADIENT else "peers.py"
    out = subprocess.run([sys.executable, os.path.join(BENCH, script), "--only", name],
                         capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if l.split() and l.split()[0] == name)
    cols = line.split()
    if name in GRADIENT:
        # name, naive, best, pytensor, pt no-scan-rw, jax, compile, scans, agree
        return {"numpy": float(cols[2]), "pytensor": float(cols[3]), "jax": float(cols[5]),
                "agree": cols[-1]}
    # name, best, pytensor, pt no-scan-rw, jax, compile, scans, agree
    return {"numpy": float(cols[1]), "pytensor": float(cols[2]), "jax": float(cols[4]),
            "agree": cols[-1]}


def eqscan(name):
    """The median execute_ms of `eqscan run --repeat 20` at medium size."""
    path = os.path.join(ROOT, "benches", "programs", name + ".sexp")
    with open(path) as f:
        header = f.read(2000)
    dims = re.search(r"\(medium: ([^)]*)\)", header).group(1).split()
    cmd = [os.path.join(ROOT, "target", "release", "eqscan"), "run", path, "--gen"]
    for d in dims:
        cmd += ["--dim", d]
    for k, v in SCALES.get(name, {}).items():
        cmd += ["--scale", f"{k}={v!r}"]
    cmd += ["--repeat", "20", "--json"]
    report = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return statistics.median(report["execute_ms"])


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="+", choices=FORWARD + GRADIENT)
    names = p.parse_args().only or FORWARD + GRADIENT
    print(f"{'workload':12s} {'load':>5s} {'numpy':>9s} {'pytensor':>9s} {'jax':>9s} "
          f"{'eqscan':>9s} {'÷ fastest':>9s}  fastest  agree")
    for name in names:
        load = os.getloadavg()[0]
        ms = peers(name)
        ours = eqscan(name)
        fastest = min(("numpy", "pytensor", "jax"), key=lambda k: ms[k])
        print(f"{name:12s} {load:5.2f} {ms['numpy']:9.3f} {ms['pytensor']:9.3f} {ms['jax']:9.3f} "
              f"{ours:9.3f} {ours / ms[fastest]:9.2f}  {fastest:8s} {ms['agree']}", flush=True)


if __name__ == "__main__":
    main()
