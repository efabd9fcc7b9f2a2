"""The converter's core: naming, types, constants, errors."""

import numpy as np
import pytensor.tensor as pt
import pytest
from conftest import check_graph

import eqscan
from eqscan.from_pytensor import convert


def test_elemwise_mixed_dtypes(rng):
    x = pt.vector("x")
    y = pt.matrix("y", dtype="float32")
    i = pt.lscalar("i")
    vals = [rng.normal(size=3), rng.normal(size=(2, 3)).astype("float32"), 4]
    check_graph([pt.exp(x) + y * 2, pt.switch(x > 0, x, -x), (x + i) // 3], [x, y, i], vals)


def test_unknown_op_raises_naming_it():
    x = pt.matrix("x")
    y = pt.linalg.eigh(x)[0]
    with pytest.raises(eqscan.Error, match="Eigh"):
        convert([y], [x])
