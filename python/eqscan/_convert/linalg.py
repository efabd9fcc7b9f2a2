"""Converters of PyTensor's products and linear algebra: Dot, Blockwise
(of Dot = matmul, and of the linalg ops), the BLAS ops (Gemv, Gemm, Ger,
Dot22, Dot22Scalar, BatchedDot), Cholesky, Solve, SolveTriangular,
CholeskySolve, MatrixInverse, Det and SLogDet.

This module owns the mapping of PyTensor's core linalg signatures to the
language's batched ops (NumPy 2's ``numpy.linalg`` broadcasting): a
``b_ndim=1`` right-hand side is given a trailing axis and has it removed.
"""

from __future__ import annotations

import weakref

from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.math import Dot

from .core import Multi, register


def _linalg(name):
    try:
        import pytensor.tensor.linalg as la

        return getattr(la, name)
    except (ImportError, AttributeError):  # older PyTensor
        import pytensor.tensor.nlinalg as nl
        import pytensor.tensor.slinalg as sl

        return getattr(sl, name, None) or getattr(nl, name, None)


def _blas(*names):
    import pytensor.tensor.blas as blas

    return [getattr(blas, n) for n in names if hasattr(blas, n)]


def _t(cv, v, dtype):
    val = cv.val(v)
    return cv.cast(val.text, dtype, val.dtype)


@register(Dot)
def _dot(cv, node):
    a, b = node.inputs
    dt = node.outputs[0].type.dtype
    return cv.cast(f"(dot {cv.expr(a)} {cv.expr(b)})", dt, _promote2(cv, a, b))


def _promote2(cv, a, b):
    from .elemwise import promote

    return promote([cv.val(a), cv.val(b)])


# ---- core linalg ops: fn(cv, node, texts) -> text or Multi


def _solve_text(cv, node, op, a, b, b_ndim_actual):
    if op.b_ndim == 1 and b_ndim_actual > 1:
        return f"(squeeze (solve {a} (expand_dims {b} -1)) -1)"
    return f"(solve {a} {b})"


def _core(cv, node, op, ins, texts):
    """The text of linalg core op ``op`` on ``texts`` (the operands)."""
    name = type(op).__name__
    if isinstance(op, Dot):
        return f"(matmul {texts[0]} {texts[1]})"
    if name == "Cholesky":
        if op.lower:
            return f"(cholesky {texts[0]})"
        nd = ins[0].type.ndim
        return f"(transpose (cholesky {texts[0]}) {_swap_last(nd)})"
    if name == "Solve":
        return _solve_text(cv, node, op, texts[0], texts[1], ins[1].type.ndim)
    if name == "SolveTriangular":
        lu = _lu_solve(cv, node, op, ins)
        if lu is not None:
            return lu
        if getattr(op, "unit_diagonal", False):
            raise cv.error(node, "a unit-diagonal triangular solve has no eqscan op")
        if getattr(op, "trans", 0) not in (0, "N"):
            raise cv.error(node, "a transposed triangular solve")
        lower = "true" if op.lower else "false"
        a, b = texts
        if op.b_ndim == 1 and ins[1].type.ndim > 1:
            return f"(squeeze (solve_triangular {a} (expand_dims {b} -1) {lower}) -1)"
        return f"(solve_triangular {a} {b} {lower})"
    if name == "CholeskySolve":
        c, b = texts
        nd = ins[0].type.ndim
        ct = f"(transpose {c} {_swap_last(nd)})"
        lo, up = (c, ct) if op.lower else (ct, c)
        vec = op.b_ndim == 1 and ins[1].type.ndim > 1
        bb = f"(expand_dims {b} -1)" if vec else b
        t = f"(solve_triangular {up} (solve_triangular {lo} {bb} true) false)"
        return f"(squeeze {t} -1)" if vec else t
    if name == "MatrixInverse":
        return f"(inv {texts[0]})"
    if name == "Det":
        return f"(det {texts[0]})"
    if name == "SLogDet":
        return Multi(f"(slogdet {texts[0]})")
    return None


def _swap_last(nd):
    perm = list(range(nd))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return " ".join(map(str, perm))


def _convert_core(cv, node, op):
    dt = node.outputs[0].type.dtype
    texts = [_t(cv, i, dt) for i in node.inputs]
    res = _core(cv, node, op, node.inputs, texts)
    if res is None:
        raise cv.error(node, f"{type(op).__name__} has no eqscan op")
    return res


# ---- LU: what PyTensor's FAST_RUN makes of solve(A, b)
#
# solve_triangular(LU, solve_triangular(LU, b[perm], lower, unit), upper)
# with (LU, pivots) = lu_factor(A) and perm = pivots_to_permutations(pivots)
# is (solve A b). The LU factor, the permutation and the unit-diagonal solve
# have no eqscan op: they are bound to deferred errors, raised only if the
# program reads them outside this pattern.

_LU_OF = weakref.WeakKeyDictionary()  # LUFactor output 0 -> A
_PERM_OF = weakref.WeakKeyDictionary()  # PivotToPermutations(inverse) output -> LUFactor output 0
_FORWARD = weakref.WeakKeyDictionary()  # unit lower solve output -> (LU, b)


def _lu_types():
    return [t for t in (_linalg("LUFactor"), _linalg("PivotToPermutations")) if t is not None]


@register(*_lu_types())
def _lu_parts(cv, node):
    name = type(node.op).__name__
    if name == "LUFactor":
        _LU_OF[node.outputs[0]] = node.inputs[0]
    elif getattr(node.op, "inverse", False) and node.inputs[0].owner is not None:
        _PERM_OF[node.outputs[0]] = node.inputs[0].owner.outputs[0]
    for o in node.outputs:
        cv.defer_error(o, cv.error(node, f"{name} has no eqscan op (only solve's LU pattern converts)"))


def _lu_solve(cv, node, op, ins):
    """The LU pattern's two triangular solves (see above), else None."""
    lu, y = ins
    if lu not in _LU_OF:
        return None
    if getattr(op, "unit_diagonal", False) and op.lower:
        take = y.owner
        if take is not None and type(take.op).__name__ == "AdvancedSubtensor1":
            b, perm = take.inputs
            if _PERM_OF.get(perm) is lu:
                _FORWARD[node.outputs[0]] = (lu, b)
                cv.defer_error(
                    node.outputs[0], cv.error(node, "a unit-diagonal triangular solve has no eqscan op")
                )
                return [cv.val(node.outputs[0])]
        return None
    fwd = _FORWARD.get(y)
    if not op.lower and not getattr(op, "unit_diagonal", False) and fwd is not None and fwd[0] is lu:
        a = cv.expr(_LU_OF[lu])
        b = fwd[1]
        if op.b_ndim == 1 and b.type.ndim > 1:
            return f"(squeeze (solve {a} (expand_dims {cv.expr(b)} -1)) -1)"
        return f"(solve {a} {cv.expr(b)})"
    return None


@register(Blockwise)
def _blockwise(cv, node):
    core = node.op.core_op
    res = _core(cv, node, core, node.inputs, [cv.expr(i) for i in node.inputs])
    if res is None:
        raise cv.error(node, f"Blockwise of {core} ({type(core).__name__}) has no eqscan op")
    if isinstance(res, str) and isinstance(core, Dot):
        return cv.cast(res, node.outputs[0].type.dtype, _promote2(cv, *node.inputs))
    return res


def _core_types():
    return [
        t
        for t in (
            _linalg(n)
            for n in ("Cholesky", "Solve", "SolveTriangular", "CholeskySolve", "MatrixInverse", "Det", "SLogDet")
        )
        if t is not None
    ]


@register(*_core_types())
def _linalg_core(cv, node):
    return _convert_core(cv, node, node.op)


# ---- BLAS (a user's FunctionGraph may hold them after PyTensor's rewrites)


def _scalar_text(cv, v):
    return cv.expr(v)


def _is_zero(cv, v):
    c = cv.const_value(v)
    return c is not None and float(c) == 0.0


def _scaled_product(cv, scale, a, b, beta, acc):
    """``scale * dot(a, b) + beta * acc``, the sum left out when ``beta`` is
    the constant 0 (BLAS does not read ``acc`` then)."""
    prod = f"(mul {_scalar_text(cv, scale)} (dot {cv.expr(a)} {cv.expr(b)}))"
    if _is_zero(cv, beta):
        return prod
    return f"(add (mul {_scalar_text(cv, beta)} {cv.expr(acc)}) {prod})"


@register(*_blas("Gemv"))
def _gemv(cv, node):
    y, alpha, A, x, beta = node.inputs
    return _scaled_product(cv, alpha, A, x, beta, y)


@register(*_blas("Gemm"))
def _gemm(cv, node):
    z, a, x, y, b = node.inputs
    return _scaled_product(cv, a, x, y, b, z)


@register(*_blas("Ger"))
def _ger(cv, node):
    A, alpha, x, y = node.inputs
    return f"(add {cv.expr(A)} (mul {_scalar_text(cv, alpha)} (outer {cv.expr(x)} {cv.expr(y)})))"


@register(*_blas("Dot22"))
def _dot22(cv, node):
    x, y = node.inputs
    return f"(dot {cv.expr(x)} {cv.expr(y)})"


@register(*_blas("Dot22Scalar"))
def _dot22scalar(cv, node):
    x, y, a = node.inputs
    return f"(mul {_scalar_text(cv, a)} (dot {cv.expr(x)} {cv.expr(y)}))"


@register(*_blas("BatchedDot"))
def _batched_dot(cv, node):
    x, y = node.inputs
    return f"(matmul {cv.expr(x)} {cv.expr(y)})"
