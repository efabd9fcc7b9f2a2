#!/usr/bin/env python3
"""Reference values of the special functions, the fixtures of tests/special.rs.

For each function, `tests/fixtures/special/NAME.npy` holds a (3, n) float64
array: the arguments; the exact values rounded to float64 (mpmath at 60
digits; at the special values, SciPy's convention); and SciPy's (or
NumPy's) values. SciPy is not the arbiter: it is off by up to 52 ulps in
gammaln near 2, 6 in erfc, flushes erfc's subnormal results to 0, and its
digamma is off by 0.8% at -2 + 1e-14. The points
cover the whole range in every decade, both signs, the neighbourhood of
poles (0 and the negative integers) and of digamma's positive root, large
arguments, and the special values (0, -0, inf, -inf).

    /work/venv/bin/python tests/special.py      # from the repository root
"""
import os

import mpmath as mp
import numpy as np
import scipy.special as sp

mp.mp.dps = 60

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "special")


def decades(lo, hi, per=3):
    """Positive points, `per` per decade from 10^lo to 10^hi."""
    return np.logspace(lo, hi, (hi - lo) * per + 1)


def near_poles(kmax, offsets):
    pts = []
    for k in range(0, kmax + 1):
        for o in offsets:
            pts += [-k + o, -k - o]
    return np.array([p for p in pts if p != 0.0 or True])


SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf])
OFFSETS = [1e-14, 1e-9, 1e-5, 1e-3, 0.1, 0.25, 0.5]


def points(name):
    pos = decades(-300, 300) if name in ("erf", "erfc", "expm1", "softplus") else decades(-300, 300)
    mid = np.linspace(-20.0, 20.0, 801)
    if name == "erf":
        xs = np.concatenate([pos, -pos, mid, SPECIAL])
    elif name == "erfc":
        xs = np.concatenate([pos, -pos, mid, np.linspace(20, 27.3, 60), SPECIAL])
    elif name == "expm1":
        xs = np.concatenate([pos[pos < 709.7], -pos, mid, SPECIAL])
    elif name == "softplus":
        xs = np.concatenate([pos, -pos, mid, SPECIAL])
    else:
        root = 1.4616321449683622
        around_root = root + np.concatenate([-decades(-16, 0, 3), decades(-16, 0, 3)]) * 0.29
        xs = np.concatenate([pos, mid, around_root, near_poles(60, OFFSETS),
                             -np.linspace(0.5, 1e6 + 0.5, 97), [1.0, 2.0, 3.0, 0.5, 1.5, 2.5],
                             SPECIAL])
    return np.unique(xs)


FUNCS = {
    "erf": sp.erf,
    "erfc": sp.erfc,
    "expm1": np.expm1,
    "softplus": lambda x: np.logaddexp(0.0, x),
    "gammaln": sp.gammaln,
    "digamma": sp.digamma,
    "trigamma": lambda x: sp.polygamma(1, x),
}


EXACT = {
    "erf": mp.erf,
    "erfc": mp.erfc,
    "expm1": mp.expm1,
    "softplus": lambda x: mp.log1p(mp.exp(x)),
    "gammaln": lambda x: mp.log(abs(mp.gamma(x))),
    "digamma": mp.digamma,
    "trigamma": lambda x: mp.psi(1, x),
}


def exact(name, x, fallback):
    """The exact value at float `x`, rounded to float64; SciPy's at the
    special values and the poles (inf or nan there)."""
    if not np.isfinite(x) or not np.isfinite(fallback) or (x <= 0 and x == np.floor(x)
                                                          and name in ("gammaln", "digamma", "trigamma")):
        return fallback
    if name in ("erf", "erfc") and abs(x) > 30:
        # Beyond 30 erf is +-1 and erfc 0 or 2 in float64 (erfc(27.3) is
        # below the least subnormal); mpmath overflows computing them.
        return {"erf": np.sign(x), "erfc": 0.0 if x > 0 else 2.0}[name]
    v = EXACT[name](mp.mpf(float(x)))
    return float(v)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, f in FUNCS.items():
        xs = points(name)
        with np.errstate(all="ignore"):
            ys = f(xs)
        ex = np.array([exact(name, x, y) for x, y in zip(xs, ys)])
        np.save(os.path.join(OUT, name + ".npy"), np.stack([xs, ex, ys]))
        print(name, xs.size)


if __name__ == "__main__":
    main()
