"""Coefficients that may depend on Parameters, evaluated lazily.

An affine expression stores, per variable, a sparse coefficient matrix. When a
Parameter enters the expression the coefficient becomes a `Lazy` node: a small
tree whose leaves are constant matrices and Parameter values. Compiling a model
records the structure once; a parameter change only re-evaluates these trees.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


class Lazy:
    """A deferred value: ``fn(*evaluated args)``; args may be Lazy themselves."""

    __slots__ = ("fn", "args")

    def __init__(self, fn, *args):
        self.fn = fn
        self.args = args

    def evaluate(self, cache: dict):
        key = id(self)
        if key not in cache:
            cache[key] = self.fn(*(evaluate(a, cache) for a in self.args))
        return cache[key]


class ParamLeaf(Lazy):
    """The current value of a Parameter, flattened in C order."""

    __slots__ = ("param",)

    def __init__(self, param):
        self.param = param

    def evaluate(self, cache: dict):
        return self.param.flat_value()


def evaluate(c, cache: dict | None = None):
    """Value of a coefficient: constants pass through, Lazy nodes are computed."""
    if isinstance(c, Lazy):
        return c.evaluate({} if cache is None else cache)
    return c


def is_lazy(c) -> bool:
    return isinstance(c, Lazy)


def lmap(fn, *args):
    """Apply ``fn`` now if every argument is concrete, else defer it."""
    if any(isinstance(a, Lazy) for a in args):
        return Lazy(fn, *args)
    return fn(*args)


def to_csr(m) -> sp.csr_matrix:
    """CSR of a sparse or dense matrix; a dense one keeps every entry (fast, and a fixed pattern)."""
    if sp.issparse(m):
        return m.tocsr()
    a = np.atleast_2d(np.asarray(m, dtype=float))
    r, c = a.shape
    return sp.csr_matrix((a.ravel(), np.tile(np.arange(c, dtype=np.int32), r), np.arange(0, r * c + 1, c)),
                         shape=(r, c))


def sparse_constant(m, what: str = "sparse matrix") -> tuple:
    """A scipy.sparse matrix or array (any format, 1-D or 2-D) as ``(float64 CSR, ndim)``, never densified.

    A 1-D sparse array (``coo_array`` of shape (n,)) becomes a (1, n) CSR with ``ndim = 1``. Complex or
    non-numeric entries and stored NaN / inf raise an InputError naming ``what``; wrong sides are the
    caller's to check (they know the other operand).
    """
    from ..errors import InputError

    kind = np.dtype(m.dtype).kind
    if kind == "c":
        raise InputError(f"{what} is complex; certiprog works over the reals: split it into real and imaginary "
                         "parts yourself if that is what you mean")
    if kind not in "biuf":
        raise InputError(f"{what} must be real numbers; got a sparse matrix of dtype {m.dtype}")
    ndim = len(m.shape)
    if ndim == 1:
        v = sp.coo_array(m)
        m = sp.coo_matrix((v.data, (np.zeros(v.nnz, dtype=np.int64), v.coords[0])), shape=(1, v.shape[0]))
    elif ndim != 2:
        raise InputError(f"{what} has {ndim} dimensions (shape {m.shape}); use a vector or a matrix")
    csr = sp.csr_matrix(m, dtype=float, copy=True)  # a copy: the user's matrix is never modified
    csr.sum_duplicates()
    if not np.all(np.isfinite(csr.data)):
        raise InputError(f"{what} contains NaN or inf: remove or impute those entries first")
    return csr, ndim


def add(a, b):
    """Sum of two coefficient matrices or constant vectors."""
    return lmap(lambda x, y: x + y, a, b)


def select_rows(c, idx: np.ndarray):
    if isinstance(c, Lazy):
        return Lazy(lambda m: m[idx], c)
    return c[idx]


def left_mul(M, c):
    """``M @ c`` where M is a (possibly lazy) matrix and c a coefficient."""
    return lmap(_left_mul_now, M, c)


def _left_mul_now(m, x):
    """``m @ x``; a copy of ``m`` when ``x`` is the identity (a plain variable's coefficient: ``X @ w`` on a large data
    matrix skips a sparse product as large as X). As the product gives: a new matrix (never the caller's data),
    floats, and for a sparse ``m`` no stored zeros (a Parameter's zero is a structural zero of that value)."""
    if _is_identity(x) and getattr(m, "ndim", 0) == 2 and m.shape[1] == x.shape[0]:
        if not sp.issparse(m):
            return np.array(m, dtype=float)
        out = sp.csr_matrix(m, dtype=float, copy=True)
        out.eliminate_zeros()
        return out
    return _as_csr_or_array(m @ x)


def _is_identity(x) -> bool:
    """Whether ``x`` is a sparse identity matrix (stored as one unit entry per row, in order)."""
    if not sp.issparse(x) or x.format != "csr" or x.shape[0] != x.shape[1] or x.nnz != x.shape[0]:
        return False
    n = x.shape[0]
    return bool(np.array_equal(x.indptr, np.arange(n + 1)) and np.array_equal(x.indices, np.arange(n))
                and np.all(x.data == 1.0))


def _as_csr_or_array(m):
    if sp.issparse(m):
        return m.tocsr()
    return np.asarray(m)
