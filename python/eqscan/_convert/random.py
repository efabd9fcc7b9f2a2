"""Converters of PyTensor's random variables (``pytensor.tensor.random``):
normal, uniform, bernoulli and categorical, on eqscan's keys.

The design. A PyTensor random generator (``RandomGeneratorType``: a shared
``np.random.Generator``, or an input) becomes an ``i64`` scalar of the
program: a draw counter, 0 unless given. A random variable node
``(rng, size, *params) -> (next_rng, draw)`` draws with the key
``(fold_in (key SEED) COUNTER)`` and gives ``next_rng = COUNTER + 1``, so a
chain of draws threading one generator (and a shared generator updated with
``next_rng``, call after call) gets a fresh key per draw, while two draws
from the same generator value give the same numbers, as in PyTensor. SEED
is a constant of the root generator: taken from a shared Generator's state
when the graph is converted (different PyTensor seeds give different
streams), else its position among the program's generators.

The numbers are eqscan's, not NumPy's: the same distributions, another
stream.
"""

from __future__ import annotations

import numpy as np

from .core import lang_dtype, register, render_type


def _rv_types():
    try:
        from pytensor.tensor.random.op import RandomVariable

        return [RandomVariable]
    except ImportError:  # pragma: no cover
        return []


def is_rng(var) -> bool:
    """Whether ``var`` is a random generator variable."""
    try:
        from pytensor.tensor.random.type import RandomType
    except ImportError:  # pragma: no cover
        return False
    return isinstance(var.type, RandomType)


def root_seed(var, position: int) -> int:
    """The SEED constant of a root generator (see the module doc)."""
    try:
        value = var.get_value(borrow=True)
        st = value.bit_generator.state
        inner = st.get("state")
        n = inner.get("state") if isinstance(inner, dict) else inner
        if isinstance(n, (int, np.integer)):
            return int(n) % (2**62)
        if isinstance(n, np.ndarray):
            return int(np.asarray(n, dtype=np.uint64).sum() % (2**62))
    except Exception:  # an input, or a generator with another state layout
        pass
    return position


def _key(cv, rng) -> str:
    seed = cv.rng_seed(rng)
    return f"(fold_in (key {seed}) {cv.expr(rng)})"


def _draw_type(cv, node, out):
    """The draw's TYPE: the ``size`` sizes, else the output's dims."""
    size = node.inputs[1]
    from pytensor.tensor.type_other import NoneTypeT

    if isinstance(size.type, NoneTypeT):
        dims = list(cv.dims(out)) if out.owner is None else list(_out_dims(cv, node, out))
    else:
        dims = cv.static_sizes(size)
        if dims is None:
            raise cv.error(node, "the draw's size is not literal or symbolic sizes")
    if any(d is None for d in dims):
        raise cv.error(node, "the draw's shape is known only at run time")
    return dims


def _out_dims(cv, node, out):
    from .shapes import infer_dims

    return infer_dims(cv, node, out)


@register(*_rv_types())
def _random_variable(cv, node):
    op = node.op
    name = getattr(op, "name", type(op).__name__)
    rng = node.inputs[0]
    params = node.inputs[2:]
    next_rng, out = node.outputs
    dims = _draw_type(cv, node, out)
    ld = lang_dtype(out.type.dtype)
    fty = render_type("f64" if ld not in ("f64", "f32") else ld, dims)
    key = _key(cv, rng)
    p = [cv.expr(x) for x in params]
    if name == "normal":
        text = f"(add {p[0]} (mul {p[1]} (normal {key} {fty})))"
    elif name == "uniform":
        text = f"(add {p[0]} (mul (sub {p[1]} {p[0]}) (uniform {key} {fty})))"
    elif name == "bernoulli":
        prob = f"(add (zeros {render_type('f64', dims)}) {p[0]})"
        text = f"(bernoulli {key} {prob})"
    elif name == "categorical":
        k = cv.dims(params[0])[-1]
        if k is None:
            raise cv.error(node, "the number of categories is known only at run time")
        probs = f"(add (zeros {render_type('f64', list(dims) + [k])}) {p[0]})"
        text = f"(categorical {key} (log {probs}))"
    else:
        raise cv.error(node, f"the random variable {name} has no eqscan draw")
    text = f"(cast {ld} {text})"
    cv.bind(out, text, dims=tuple(dims))
    cv.set_rng_seed(next_rng, cv.rng_seed(rng))
    cv.bind(next_rng, f"(add {cv.expr(rng)} 1)", dims=(), ldtype="i64")
    return None
