"""Random variables on eqscan keys: the distributions (moments over many
draws: eqscan's stream is not NumPy's), a fresh key per draw along a
generator's chain and per call (a shared generator's update), the same
numbers for two draws from one generator value, as PyTensor."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import run_text

import eqscan
from eqscan.from_pytensor import convert

N = 20000


def _rng(seed=0):
    return pytensor.shared(np.random.default_rng(seed), name="rng")


def test_distributions_moments():
    rng = _rng()
    nrv = pt.random.normal(1.5, 2.0, size=(N,), rng=rng)
    r1, x = nrv.owner.outputs
    u = pt.random.uniform(-1.0, 3.0, size=(N,), rng=r1)
    b = pt.random.bernoulli(0.3, size=(N,), rng=u.owner.outputs[0])
    c = pt.random.categorical(pt.as_tensor([0.2, 0.0, 0.8]), size=(N,), rng=b.owner.outputs[0])
    pmap = convert([x, u, b, c], [])
    xs, us, bs, cs = run_text(pmap.text, {})
    se = 2.0 / np.sqrt(N)
    assert abs(xs.mean() - 1.5) < 5 * se and abs(xs.std() - 2.0) < 0.05
    assert us.min() >= -1.0 and us.max() < 3.0 and abs(us.mean() - 1.0) < 0.05
    assert bs.dtype == np.int64 and set(np.unique(bs)) <= {0, 1} and abs(bs.mean() - 0.3) < 0.02
    counts = np.bincount(cs, minlength=3) / N
    assert counts[1] == 0.0 and abs(counts[0] - 0.2) < 0.02 and abs(counts[2] - 0.8) < 0.02


def test_fresh_key_per_draw_and_per_call():
    rng = _rng()
    a = pt.random.normal(size=(4,), rng=rng)
    b = pt.random.normal(size=(4,), rng=a.owner.outputs[0])
    same = pt.random.normal(size=(4,), rng=rng)  # the same generator value as a
    pmap = convert([a, b, same], [], updates={rng: b.owner.outputs[0]})
    assert pmap.dtypes["rng"] == "rng"
    va, vb, vs = run_text(pmap.text, {})
    assert not np.allclose(va, vb)
    np.testing.assert_array_equal(va, vs)
    # The update advances the counter: the next call draws other numbers.
    va2, _, _ = run_text(pmap.text, {}, shared={"rng": np.int64(2)})
    assert not np.allclose(va, va2)


def test_seeds_differ_between_generators():
    r1, r2 = _rng(1), _rng(2)
    x = pt.random.normal(size=(5,), rng=r1)
    y = pt.random.normal(size=(5,), rng=r2)
    pmap = convert([x, y], [])
    vx, vy = run_text(pmap.text, {})
    assert not np.allclose(vx, vy)


def test_unsupported_distribution_names_it():
    rng = _rng()
    g = pt.random.gamma(2.0, 1.0, size=(3,), rng=rng)
    with pytest.raises(eqscan.Error, match="gamma"):
        convert([g], [])


def test_random_stream_default_update():
    """A RandomStream's generator carries a default_update: applied as
    pytensor.function applies it, so each call draws anew."""
    from pytensor.tensor.random.utils import RandomStream

    srng = RandomStream(seed=3)
    x = srng.normal(0.0, 1.0, size=(3,))
    pmap = convert([x], [])
    assert len(pmap.updates) == 1
    import eqscan as e

    f = e.parse(pmap.text).compile()
    a, b = f()[0], f()[0]
    assert not np.allclose(a, b)
