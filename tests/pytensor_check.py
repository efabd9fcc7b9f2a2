#!/usr/bin/env python3
"""Cross-checks the scan expectations of numpy_cases.py against PyTensor.

The references in numpy_cases.py are plain Python loops written from the
semantics of pytensor.scan; this script builds the same scans with PyTensor
itself (taps, go_backwards with and without n_steps, mitsot, nested scans,
closures, and MIT-MOT tapes through the Scan op itself) and compares them with tests/cases/scan/*.expected. Optional: it
needs `pip install numpy pytensor` (checked with PyTensor 3.0.7).

    python3 tests/pytensor_check.py
"""
import glob
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy_cases as nc  # noqa: E402
import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor import scan  # noqa: E402
from pytensor.scan.op import Scan, ScanInfo  # noqa: E402

ROOT = os.path.join(HERE, 'cases', 'scan') + os.sep
BAD = []
def load(name):
    inputs, dims, scales = nc.read_case(ROOT+name+'.sexp')
    d = nc.make_inputs(inputs, dims, scales)
    exp = [np.load(p) for p in sorted(glob.glob(ROOT+name+'.expected/out_*.npy'))]
    return d, dims, exp

def check(name, build):
    d, dims, exp = load(name)
    syms = {k: pt.as_tensor_variable(v).type() for k, v in d.items()}
    outs = build(syms, dims)
    if not isinstance(outs, (list, tuple)): outs = [outs]
    f = pytensor.function(list(syms.values()), outs, mode='FAST_COMPILE', on_unused_input='ignore')
    got = f(*d.values())
    ok = len(got) == len(exp) and all(g.shape == e.shape and np.allclose(g, e, rtol=1e-12, atol=1e-12, equal_nan=True) for g, e in zip(got, exp))
    print(f"{name:35s} {'ok' if ok else 'MISMATCH'}")
    if not ok:
        BAD.append(name)
    if not ok:
        for g, e in zip(got, exp): print(' got', g.shape, g.ravel()[:6], '\n exp', e.shape, e.ravel()[:6])

def S(fn, **kw):
    r = scan(fn, **kw, return_updates=False) if 'return_updates' in scan.__code__.co_varnames else scan(fn, **kw)[0]
    return r

check('scan_seq_taps_m2_0', lambda s, n: S(lambda a, b: b - 0.5*a, sequences=[dict(input=s['X'], taps=[-2, 0])]))
check('scan_seq_taps_m1_p1', lambda s, n: S(lambda a, b, acc: acc*0.5 + a*(b+1.0), sequences=[dict(input=s['X'], taps=[-1, 1])], outputs_info=[s['a0']]))
check('scan_seq_taps_past_only', lambda s, n: S(lambda a, b: b - 2.0*a, sequences=[dict(input=s['X'], taps=[-3, -1])]))
check('scan_seq_taps_future_only', lambda s, n: S(lambda a, b: a + 3.0*b, sequences=[dict(input=s['X'], taps=[1, 2])]))
check('scan_seq_taps_unordered', lambda s, n: S(lambda p1, m1, z: (p1 - 2.0*m1) + 3.0*z, sequences=[dict(input=s['X'], taps=[1, -1, 0])]))
check('scan_two_sequences', lambda s, n: S(lambda a, b, y: a*y + b, sequences=[dict(input=s['X'], taps=[-1, 0]), s['Y']]))
check('scan_mitsot_m2_m1', lambda s, n: S(lambda a, b: (0.5*b - 0.25*a) + 0.1, outputs_info=[dict(initial=s['I'], taps=[-2, -1])], n_steps=n['T']))
check('scan_mitsot_m3_m1', lambda s, n: S(lambda a, b: b + 0.5*a, outputs_info=[dict(initial=s['I'], taps=[-3, -1])], n_steps=n['T']))
check('scan_mitsot_taps_unordered', lambda s, n: S(lambda a, b: a - 0.3*b, outputs_info=[dict(initial=s['I'], taps=[-1, -3])], n_steps=n['T']))
check('scan_mitsot_with_sequence', lambda s, n: S(lambda x, a, b: pt.tanh(x + b*(a+1.0)), sequences=[s['X']], outputs_info=[dict(initial=s['I'], taps=[-2, -1])]))
check('scan_mixed_outputs', lambda s, n: S(lambda x, a, m2, m1, w: (x*w, a + x, 0.5*m1 + 0.25*(m2 - a)), sequences=[s['X']], outputs_info=[None, s['a0'], dict(initial=s['I'], taps=[-2, -1])], non_sequences=[s['w']]))
check('scan_go_backwards_nitsot', lambda s, n: S(lambda x: pt.exp(x)*3.0, sequences=[s['X']], go_backwards=True))
check('scan_go_backwards_sitsot', lambda s, n: S(lambda x, a: a*0.5 + x, sequences=[s['X']], outputs_info=[s['a0']], go_backwards=True))
check('scan_go_backwards_n_steps', lambda s, n: S(lambda x, a: a*0.5 + x, sequences=[s['X']], outputs_info=[s['a0']], n_steps=4, go_backwards=True))
check('scan_go_backwards_mitsot', lambda s, n: S(lambda x, a, b: x + (b - 0.5*a), sequences=[s['X']], outputs_info=[dict(initial=s['I'], taps=[-2, -1])], go_backwards=True))
check('scan_go_backwards_taps', lambda s, n: S(lambda a, b: b - 2.0*a, sequences=[dict(input=s['X'], taps=[-1, 0])], go_backwards=True))
check('scan_go_backwards_taps_n_steps', lambda s, n: S(lambda a, b: b - 2.0*a, sequences=[dict(input=s['X'], taps=[-1, 0])], n_steps=3, go_backwards=True))
check('scan_n_steps_shorter', lambda s, n: S(lambda x, a: (a + x, x*a), sequences=[s['X']], outputs_info=[s['a0'], None], n_steps=4))
check('scan_init_expression', lambda s, n: S(lambda x, a, m2, m1: (a + x, m1 - 0.5*m2), sequences=[s['X']], outputs_info=[s['X'][0], dict(initial=pt.stack([s['X'][1], s['X'][2]]), taps=[-2, -1])]))
check('scan_chain', lambda s, n: (lambda Y: (lambda A: (A.sum(0), A[-1], Y.mean()))(S(lambda a, b, acc: acc + (b - a), sequences=[dict(input=Y, taps=[-1, 0])], outputs_info=[s['a0']])))(S(lambda x: x*x, sequences=[s['X']])))
check('scan_nested_closure', lambda s, n: S(lambda x, h: S(lambda r, acc: pt.tanh(acc*s['w'] + r*h), sequences=[x], outputs_info=[h])[-1], sequences=[s['X']], outputs_info=[s['h0']]))


# MIT-MOT states: PyTensor's scan() cannot make them, so these build the
# Scan op itself (ScanInfo with mit_mot_in_slices / mit_mot_out_slices;
# go_backwards is a reversed sequence, as scan() lowers it).
def mitmot_scan(n, seqs, bufs, in_slices, out_slices, non_seqs, fn):
    """Outputs of a raw PyTensor Scan op with mit-mot states only."""
    inner_seqs = [s.type.clone(shape=s.type.shape[1:])() for s in [pt.as_tensor_variable(x) for x in seqs]]
    inner_mm = []
    for b, ins in zip(bufs, in_slices):
        slot = b.type.clone(shape=b.type.shape[1:])
        inner_mm.append([slot() for _ in ins])
    inner_ns = [v.type() for v in non_seqs]
    outs = fn(*inner_seqs, *[x for g in inner_mm for x in g], *inner_ns)
    info = ScanInfo(n_seqs=len(seqs), mit_mot_in_slices=tuple(tuple(x) for x in in_slices),
                    mit_mot_out_slices=tuple(tuple(x) for x in out_slices), mit_sot_in_slices=(),
                    sit_sot_in_slices=(), n_nit_sot=0, n_untraced_sit_sot=0, n_non_seqs=len(non_seqs), as_while=False)
    op = Scan(inner_seqs + [x for g in inner_mm for x in g] + inner_ns, list(outs), info)
    res = op(pt.as_tensor_variable(n), *seqs, *bufs, *non_seqs)
    return res if isinstance(res, (list, tuple)) else [res]

eye = np.eye(2)
def compat(s, n):
    sq = pt.as_tensor_variable(np.array([1, 1, 0, 1, 0], dtype=bool))
    A = pt.as_tensor_variable(np.zeros((6, 1, 1)) * eye)
    B = pt.as_tensor_variable(np.arange(6).reshape(6, 1, 1) * eye)
    ra, rb = mitmot_scan(5, [sq], [A, B], [[0, 1], [0, 1]], [[1], [1]], [],
                         lambda st, a0, a1, b0, b1: [(st + a0) + a1, st * b0 + b1])
    return [ra, rb, ra.sum(), rb.sum()]
check('mitmot_mode_compat', compat)
def back(s, n):
    N = n['N']
    tape = pt.concatenate([s['G'], pt.zeros((1, N))])
    (r,) = mitmot_scan(n['T'], [s['X'][::-1]], [tape], [[0, 1]], [[1]], [s['w']],
                       lambda x, g, g1, v: [g1 + (v * pt.tanh(x)) * g])
    return [r, r[-1]]
check('mitmot_go_backwards', back)
def several(s, n):
    tape = pt.concatenate([s['G'], pt.zeros((3, n['N']))])
    (r,) = mitmot_scan(n['T'], [], [tape], [[0, 3, 1]], [[3, 1]], [s['a'], s['b']],
                       lambda g0, g3, g1, a, b: [g3 + a * g0, g1 + b * pt.sin(g0)])
    return [r]
check('mitmot_several_out_taps', several)
def wonly(s, n):
    ra, rb = mitmot_scan(n['T'], [], [s['A'], s['B']], [[0], [-1, 0]], [[2], [0, -1]], [],
                         lambda a0, bm1, b0: [0.5 * a0 + 1.0, bm1 * b0, b0 - bm1])
    return [ra, rb]
check('mitmot_write_only_tap', wonly)

print(f'PyTensor {pytensor.__version__}: {len(BAD)} mismatches')
sys.exit(1 if BAD else 0)
