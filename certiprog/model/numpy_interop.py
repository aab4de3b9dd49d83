"""numpy functions on certiprog expressions (``np.sum(x)``, ``np.trace(X)``, ``A @ x`` is an operator, not here).

numpy hands a call such as ``np.sum(x)`` with an `Expression` argument to ``Expression.__array_function__``
(NEP 18), which looks the function up in `HANDLERS`. Each handler takes numpy's signature and either maps it to
the expression's own method or to a certiprog atom, or raises a certiprog error when an argument has no meaning
for an expression (``out=``, ``dtype=``, ``keepdims=True``, ...). A numpy function with no handler raises a
`DCPError` naming certiprog's equivalent where there is one: a user never gets numpy's internal ``TypeError``.
ufuncs (``np.exp(x)``) are refused by numpy itself (``Expression.__array_ufunc__ = None``): use ``certiprog.exp``.
"""
from __future__ import annotations

import numpy as np

from ..errors import DCPError, ShapeError

#: numpy names -> what to write instead, for functions certiprog does not run through numpy
SUGGESTIONS = {
    "prod": "no product of expressions is convex; use geo_mean for a concave alternative",
    "min": "-max_entries(-x)", "amin": "-max_entries(-x)", "max": "max_entries(x)", "amax": "max_entries(x)",
    "abs": "abs_(x)", "absolute": "abs_(x)", "exp": "exp(x)", "log": "log(x)", "square": "square(x)",
    "cumsum": "a sum per prefix: x[:k].sum()", "outer": "a Variable of the product's shape and constraints",
    "clip": "two constraints, or Variable(shape, bounds=(lo, hi))",
}


def _refuse_options(func_name: str, **given) -> None:
    """Raise when numpy's options with no meaning for an expression are set (out=, dtype=, keepdims=True ...)."""
    bad = {k: v for k, v in given.items() if v is not None and v is not False and v is not np._NoValue}
    if bad:
        raise DCPError(f"np.{func_name} on a certiprog expression takes no {sorted(bad)}; "
                       f"got {', '.join(f'{k}={v!r}' for k, v in bad.items())}")


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue, where=np._NoValue):
    _refuse_options("sum", dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where)
    return _expr(a).sum(axis=axis)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=np._NoValue):
    _refuse_options("mean", dtype=dtype, out=out, keepdims=keepdims, where=where)
    e = _expr(a)
    count = e.size if axis is None else e.shape[axis]
    return e.sum(axis=axis) / count


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    _refuse_options("trace", dtype=dtype, out=out)
    if (offset, axis1, axis2) != (0, 0, 1):
        raise DCPError("np.trace on a certiprog expression takes no offset or axes; use x.trace()")
    return _expr(a).trace()


def _diag(v, k=0):
    e = _expr(v)
    if k != 0:
        raise DCPError("np.diag on a certiprog expression takes no offset k")
    if e.ndim != 2:
        raise ShapeError(f"np.diag on a certiprog expression takes a square matrix (its diagonal); got shape "
                         f"{e.shape}")
    return e.diag()


def _by_index(e, fn):
    """The expression whose entries are ``fn`` applied to the array of e's entry indices (reshape, transpose)."""
    idx = fn(np.arange(e.size).reshape(e.shape))
    return e._select(np.asarray(idx).ravel(), np.shape(idx))


def _reshape(a, *args, **kwargs):
    e = _expr(a)
    try:
        return _by_index(e, lambda idx: np.reshape(idx, *args, **kwargs))
    except (ValueError, TypeError) as exc:
        raise ShapeError(f"np.reshape: cannot reshape an expression of shape {e.shape}: {exc}") from None


def _ravel(a, order="C"):
    return _by_index(_expr(a), lambda idx: np.ravel(idx, order=order))


def _transpose(a, axes=None):
    return _by_index(_expr(a), lambda idx: np.transpose(idx, axes))


def _dot(a, b, out=None):
    from .expression import matmul

    _refuse_options("dot", out=out)
    return matmul(a, b)


def _stacker(name):
    def run(arrays, *args, **kwargs):
        from . import expression

        return getattr(expression, name)(list(arrays), *args, **kwargs)

    return run


def _linalg_norm(x, ord=None, axis=None, keepdims=False):
    from .atoms import norm1, norm2, norm_inf

    _refuse_options("linalg.norm", axis=axis, keepdims=keepdims)
    e = _expr(x)
    if ord in (None, 2, "fro") and (e.ndim < 2 or ord != 2):
        return norm2(e.flatten())
    if e.ndim < 2 and ord == 1:
        return norm1(e)
    if e.ndim < 2 and ord == np.inf:
        return norm_inf(e)
    raise DCPError(f"np.linalg.norm(x, ord={ord!r}) on a certiprog expression of shape {e.shape}: supported are the "
                   "vector norms ord=None/2/1/inf and the Frobenius norm; otherwise use norm2 / norm1 / norm_inf")


def _expr(a):
    from .expression import as_expression

    return as_expression(a)


HANDLERS = {
    np.sum: _sum, np.mean: _mean, np.trace: _trace, np.diag: _diag, np.diagonal: lambda a, *r, **k: _diag(a),
    np.reshape: _reshape, np.ravel: _ravel, np.transpose: _transpose, np.dot: _dot,
    np.vstack: _stacker("vstack"), np.hstack: _stacker("hstack"), np.stack: _stacker("stack"),
    np.concatenate: _stacker("concatenate"), np.linalg.norm: _linalg_norm,
}


def array_function(func, args, kwargs):
    """``Expression.__array_function__``: run ``func``'s handler, or raise a certiprog error naming the fix."""
    handler = HANDLERS.get(func)
    if handler is None:
        name = getattr(func, "__name__", str(func))
        hint = SUGGESTIONS.get(name)
        raise DCPError(f"numpy.{name} cannot take a certiprog expression"
                       + (f"; write {hint}" if hint else "; use certiprog's atoms and methods (x.sum(), x.T, "
                          "x.reshape(...), matmul, vstack, norm2, max_entries, ...)"))
    return handler(*args, **kwargs)
