"""Vectorised expressions: Variables, Parameters and affine maps with convex atoms.

An `Expression` of shape ``s`` (flattened in C order, ``size = prod(s)``) is

    e = sum_v  C_v @ x_v  +  c  +  sum_k  S_k @ atom_k

where ``x_v`` is the stacked vector of variable ``v``, ``C_v`` a sparse matrix
(or a `Lazy` one when Parameters enter), ``c`` a constant vector and each
``S_k`` a constant sparse matrix applying a convex atom's output. No scalar
expression trees are ever built, so large models build in milliseconds.
"""
from __future__ import annotations

import itertools
import math
import numbers

import numpy as np
import scipy.sparse as sp

from ..errors import DCPError, InputError, ShapeError
from . import coef as cf

_ids = itertools.count()
MAX_SIZE = 2**31 - 1  # entries of one expression (sparse indices are 32-bit below this)
DENSE_MAX = 10**8  # entries of the dense copy a sparse constant may get outside @ and quad_form (800 MB)


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _shape(shape, what: str = "shape") -> tuple:
    """A validated shape: (), (n,) or (m, n) with nonnegative integer sides."""
    if shape is None:
        return ()
    if _is_int(shape):
        shape = (shape,)
    try:
        if isinstance(shape, (str, bytes)):
            raise TypeError(shape)
        shape = tuple(shape)
    except TypeError:
        raise ShapeError(f"{what} must be an int or a tuple of ints, e.g. 3 or (3, 2); got {shape!r}") from None
    if not all(_is_int(s) for s in shape):
        raise ShapeError(f"{what} must contain integers only, e.g. (3, 2); got {shape!r}")
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape) or len(shape) > 2:
        raise ShapeError(f"{what} {shape} is not supported: use (), (n,) or (m, n) with n, m >= 0")
    if _size(shape) > MAX_SIZE:
        raise ShapeError(f"{what} {shape} has more than {MAX_SIZE} entries")
    return shape


def _size(shape: tuple) -> int:
    return math.prod(int(k) for k in shape)


def _check_flag(value, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{what} must be True or False; got {value!r}")
    return bool(value)


def _check_name(name, what: str):
    if name is not None and (not isinstance(name, str) or not name):
        raise InputError(f"{what} must be a non-empty string (or None for an automatic name); got {name!r}")
    return name


def numeric_array(value, what: str = "constant", finite: bool = True) -> np.ndarray:
    """A float64 array of real numbers, or an InputError naming ``what``.

    Complex numbers are refused (never silently cut to their real part), as are strings and other
    non-numbers; ``finite=True`` also refuses NaN and inf.
    """
    if isinstance(value, Expression):
        raise InputError(f"{what} must be a constant (number, array or sparse matrix), not an Expression")
    if sp.issparse(value) and math.prod(value.shape) > DENSE_MAX:
        raise InputError(f"{what} is a sparse matrix of shape {value.shape} used where a dense constant is needed "
                         f"({8 * math.prod(value.shape) / 2**30:.1f} GiB); only @ keeps a sparse matrix sparse "
                         "(A @ x), as does quad_form(x, P)")
    try:
        if sp.issparse(value):
            value = value.toarray()
        raw = np.asarray(value)
        kind = raw.dtype.kind
        if kind == "O":
            if any(isinstance(v, (complex, np.complexfloating)) for v in raw.flat):
                kind = "c"
            else:
                raw = raw.astype(float)
                kind = "f"
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(f"{what} must be real numbers; got {type(value).__name__} ({exc})") from exc
    if kind == "c":
        raise InputError(f"{what} is complex; certiprog works over the reals: split it into real and "
                         "imaginary parts yourself if that is what you mean")
    if kind not in "biuf":
        raise InputError(f"{what} must be real numbers; got {type(value).__name__} of dtype {raw.dtype}")
    arr = raw.astype(float)
    if finite and not np.all(np.isfinite(arr)):
        raise InputError(f"{what} contains NaN or inf: remove or impute those entries first")
    return arr


def real_scalar(value, what: str) -> float:
    """A real number (not a bool, string or array), or an InputError naming ``what``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.ndarray)):
        raise InputError(f"{what} must be a real number; got {value!r}")
    arr = np.asarray(value)
    if arr.size != 1 or arr.dtype.kind not in "iuf":
        raise InputError(f"{what} must be a real number; got {value!r}")
    return float(arr.reshape(-1)[0])


def as_constant_array(value, what: str = "constant") -> np.ndarray:
    """A finite float64 array, or a clear InputError naming ``what``."""
    return numeric_array(value, what, finite=True)


class Expression:
    """An affine map of the variables plus nonnegative combinations of convex atoms.

    ``Expression(...)`` builds a `_Combination`, a sibling class of `Variable` and `Parameter`: Python
    runs a *subclass's* reflected comparison first, so were combinations of the base class, ``2*y == t``
    would call ``t.__eq__(2*y)`` and store ``t == 2*y``, flipping the equality's dual. As siblings the
    left operand's method always runs and every constraint keeps the user's lhs and rhs.
    """

    __array_ufunc__ = None  # let numpy defer ``array @ expr`` to our reflected operators
    __array_priority__ = 1000

    def __array_function__(self, func, types, args, kwargs):
        """``np.sum(x)``, ``np.trace(X)``, ``np.vstack([x, y])``...: numpy functions on expressions
        (`certiprog.model.numpy_interop`); one with no meaning for an expression raises a certiprog error."""
        from .numpy_interop import array_function

        return array_function(func, args, kwargs)
    __hash__ = object.__hash__

    def __new__(cls, *args, **kwargs):
        return object.__new__(_Combination if cls is Expression else cls)

    def __init__(self, shape, terms=None, const=None, nonlin=()):
        self.shape = _shape(shape)
        self.size = _size(self.shape)
        self.terms = dict(terms or {})
        self.const = np.zeros(self.size) if const is None else const
        self.nonlin = tuple(nonlin)

    # ------------------------------------------------------------------ info
    @property
    def ndim(self) -> int:
        """Number of dimensions (0, 1 or 2)."""
        return len(self.shape)

    @property
    def variables(self) -> list:
        """Variables this expression depends on (atoms' arguments included)."""
        seen = dict.fromkeys(self.terms)
        for _, atom in self.nonlin:
            for a in atom.args:
                seen.update(dict.fromkeys(a.variables))
        return list(seen)

    @property
    def is_constant(self) -> bool:
        """True when the expression involves no variable."""
        return not self.terms and not self.nonlin

    @property
    def is_affine(self) -> bool:
        """True when the expression has no convex atom (an affine map of the variables)."""
        return not self.nonlin

    @property
    def curvature(self) -> str:
        """'constant', 'affine', 'convex', 'concave' or 'unknown' (DCP rules)."""
        if not self.nonlin:
            return "constant" if not self.terms else "affine"
        signs = set()
        for S, atom in self.nonlin:
            data = S.data[S.data != 0]
            pos, neg = bool(np.any(data > 0)), bool(np.any(data < 0))
            if atom.curvature == "concave":
                pos, neg = neg, pos
            signs.update({"convex"} if pos else set())
            signs.update({"concave"} if neg else set())
        if len(signs) == 1:
            return signs.pop()
        return "unknown" if signs else "affine"

    def value_at(self, values: dict) -> np.ndarray:
        """Numeric value given ``values[variable] = array`` (atoms evaluated exactly)."""
        out = np.array(cf.evaluate(self.const), dtype=float).reshape(-1).copy()
        for v, c in self.terms.items():
            out += cf.evaluate(c) @ v.flat(values[v])
        for S, atom in self.nonlin:
            out += S @ atom.numeric([a.value_at(values) for a in atom.args])
        return out.reshape(self.shape)

    @property
    def value(self):
        """Value from the variables' ``.value`` (set by the last solve)."""
        vals = {}
        for v in self.variables:
            if v.value is None:
                return None
            vals[v] = v.value
        return self.value_at(vals)

    def __repr__(self):
        return f"Expression(shape={self.shape}, curvature={self.curvature})"

    # ------------------------------------------------------- structural ops
    def _map_rows(self, fn_coef, fn_const, shape) -> "Expression":
        """Apply one linear row map to every coefficient, the constant and the atoms."""
        terms = {v: fn_coef(c) for v, c in self.terms.items()}
        nonlin = tuple((fn_coef(S), a) for S, a in self.nonlin)
        return Expression(shape, terms, fn_const(self.const), nonlin)

    def _select(self, idx: np.ndarray, shape) -> "Expression":
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        return self._map_rows(
            lambda c: cf.select_rows(c, idx),
            lambda c: cf.lmap(lambda x: np.asarray(x).reshape(-1)[idx], c),
            shape,
        )

    def _linear(self, M, shape) -> "Expression":
        """``M @ self`` as a flattened linear map (M: constant or lazy sparse)."""
        def on_coef(c):
            return cf.left_mul(M, c)

        def on_const(c):
            return cf.lmap(lambda m, x: np.asarray(m @ np.asarray(x).reshape(-1)).reshape(-1), M, c)

        out = Expression(shape, {v: on_coef(c) for v, c in self.terms.items()}, on_const(self.const))
        if self.nonlin:
            if cf.is_lazy(M):
                raise DCPError("a Parameter may not multiply a convex atom: use a constant weight")
            out.nonlin = tuple((sp.csr_matrix(M @ S), a) for S, a in self.nonlin)
        return out

    def broadcast_to(self, shape) -> "Expression":
        """The expression broadcast to ``shape`` by numpy's rules (ShapeError when they do not allow it)."""
        shape = _shape(shape)
        if shape == self.shape:
            return self
        try:
            idx = np.broadcast_to(np.arange(self.size).reshape(self.shape), shape)
        except ValueError as exc:
            raise ShapeError(f"cannot broadcast shape {self.shape} to {shape}") from exc
        return self._select(idx.ravel(), shape)

    def reshape(self, shape) -> "Expression":
        """The same entries in ``shape`` (C order, as ``numpy.reshape``)."""
        shape = _shape(shape)
        if _size(shape) != self.size:
            raise ShapeError(f"cannot reshape size {self.size} into {shape}")
        return Expression(shape, self.terms, self.const, self.nonlin)

    def flatten(self) -> "Expression":
        """The entries as a vector (C order)."""
        return self.reshape((self.size,))

    @property
    def T(self) -> "Expression":
        """The transpose (a vector or a scalar is its own transpose, as in numpy)."""
        if self.ndim < 2:
            return self
        idx = np.arange(self.size).reshape(self.shape).T
        return self._select(idx.ravel(), idx.shape)

    def __getitem__(self, key) -> "Expression":
        if isinstance(key, Expression) or (isinstance(key, tuple) and any(isinstance(k, Expression) for k in key)):
            raise ShapeError("an Expression cannot be used as an index; index with integers, slices or arrays")
        try:
            idx = np.arange(self.size).reshape(self.shape)[key]
        except (IndexError, TypeError, ValueError) as exc:
            raise ShapeError(f"cannot index an expression of shape {self.shape} with {key!r}: {exc}") from exc
        return self._select(np.asarray(idx).ravel(), np.shape(idx))

    def __iter__(self):
        """Iterate over the first axis, like numpy (a scalar expression is not iterable)."""
        if self.ndim == 0:
            raise ShapeError("a scalar expression is not iterable")
        for i in range(self.shape[0]):
            yield self[i]

    def sum(self, axis=None) -> "Expression":
        """Sum of all entries (``axis=None``) or along ``axis``, as ``numpy.sum``."""
        if axis is None:
            M = sp.csr_matrix(np.ones((1, self.size)))
            return self._linear(M, ())
        if not _is_int(axis) or not -self.ndim <= axis < self.ndim:
            raise ShapeError(f"sum: axis must be None or an integer in [{-self.ndim}, {self.ndim}) for shape "
                             f"{self.shape}; got {axis!r}")
        axis = int(axis) % self.ndim
        grid = np.arange(self.size).reshape(self.shape)
        out_shape = tuple(s for k, s in enumerate(self.shape) if k != axis)
        out_idx = np.indices(self.shape).take(
            [k for k in range(self.ndim) if k != axis], axis=0
        )
        rows = np.ravel_multi_index(tuple(out_idx), out_shape) if out_shape else np.zeros(self.size, int)
        M = sp.csr_matrix((np.ones(self.size), (np.ravel(rows), grid.ravel())), shape=(_size(out_shape), self.size))
        return self._linear(M, out_shape)

    def trace(self) -> "Expression":
        """Sum of the diagonal of a square matrix expression."""
        if self.ndim != 2 or self.shape[0] != self.shape[1]:
            raise ShapeError(f"trace needs a square matrix expression, got shape {self.shape}")
        n = self.shape[0]
        return self._select(np.arange(n) * (n + 1), (n,)).sum()

    def diag(self) -> "Expression":
        """The diagonal of a square matrix expression, as a vector."""
        if self.ndim != 2 or self.shape[0] != self.shape[1]:
            raise ShapeError(f"diag needs a square matrix expression, got shape {self.shape}")
        n = self.shape[0]
        return self._select(np.arange(n) * (n + 1), (n,))

    # ------------------------------------------------------------ algebra
    def __add__(self, other):
        other = as_expression(other)
        try:
            shape = np.broadcast_shapes(self.shape, other.shape)
        except ValueError as exc:
            raise ShapeError(f"cannot add shapes {self.shape} and {other.shape}") from exc
        a, b = self.broadcast_to(shape), other.broadcast_to(shape)
        terms = dict(a.terms)
        for v, c in b.terms.items():
            terms[v] = cf.add(terms[v], c) if v in terms else c
        return Expression(shape, terms, cf.add(a.const, b.const), a.nonlin + b.nonlin)

    __radd__ = __add__

    def __neg__(self):
        return self._map_rows(lambda c: cf.lmap(lambda x: -x, c), lambda c: cf.lmap(lambda x: -x, c), self.shape)

    def __pos__(self):
        return self

    def __sub__(self, other):
        return self + (-as_expression(other))

    def __rsub__(self, other):
        return as_expression(other) + (-self)

    def __mul__(self, other):
        if sp.issparse(other) and not isinstance(other, sp.sparray) and math.prod(other.shape) > 1:
            raise ShapeError(f"a scipy.sparse matrix (shape {other.shape}) times an expression: for scipy's "
                             "spmatrix '*' is the matrix product, for numpy (and certiprog) it is elementwise; "
                             "write A @ x for the product (it stays sparse), or sp.csr_array(A) * x for an "
                             "elementwise product")
        other = as_expression(other)
        if not self.is_constant and not other.is_constant:
            raise DCPError(
                "product of two expressions that both contain variables is not convex; "
                "multiply by a constant or a Parameter instead"
            )
        var, const = (other, self) if self.is_constant else (self, other)
        if not const.is_affine:
            raise DCPError("cannot multiply by an atom")
        try:
            shape = np.broadcast_shapes(var.shape, const.shape)
        except ValueError as exc:
            raise ShapeError(f"cannot multiply shapes {self.shape} and {other.shape}") from exc
        var = var.broadcast_to(shape)
        cvals = const.broadcast_to(shape).const
        if const.size == 1 and not cf.is_lazy(cvals):
            scale = float(np.asarray(cvals).reshape(-1)[0])
            return var._linear(sp.identity(var.size, format="csr") * scale, shape)
        M = cf.lmap(lambda c: sp.diags(np.asarray(c, dtype=float).reshape(-1), format="csr"), cvals)
        return var._linear(M, shape)

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = as_expression(other)
        if not other.is_constant:
            raise DCPError("division by an expression with variables is not convex; divide by a constant or "
                           "a Parameter (inv_pos(x) is the convex 1/x for x > 0, c * inv_pos(x) is c/x for c >= 0; "
                           "quad_over_lin(x, y) is the convex ||x||^2 / y)")
        if not cf.is_lazy(other.const):
            _nonzero(other.const, "the divisor")
            return self * Expression(other.shape, const=1.0 / np.asarray(other.const, float))
        name = getattr(other, "name", "a Parameter expression")
        inverse = cf.lmap(lambda c: 1.0 / _nonzero(c, f"divisor {name!r}"), other.const)
        return self * Expression(other.shape, const=inverse)

    def __rtruediv__(self, other):
        return as_expression(other) / self

    def __pow__(self, p):
        """Elementwise ``|x|^p`` for a number p >= 1 (`certiprog.model.atoms.power`; p = 2 is ``square``)."""
        from .atoms import power

        return power(self, p)

    def __rpow__(self, base):
        raise DCPError("c ** x (an exponential of an expression) is not supported as an operator; for c > 0 write "
                       "exp(log(c) * x) with certiprog.model.exp")

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)

    # ------------------------------------------------------------ constraints
    def __le__(self, other):
        from .constraints import Inequality

        return Inequality(self, as_expression(other))

    def __ge__(self, other):
        from .constraints import Inequality

        return Inequality(as_expression(other), self)

    def __eq__(self, other):
        from .constraints import Equality

        return Equality(self, as_expression(other))

    def __rshift__(self, other):
        from .constraints import PSD

        return PSD(self - as_expression(other))

    def __lshift__(self, other):
        from .constraints import PSD

        return PSD(as_expression(other) - self)

    def __rrshift__(self, other):  # other >> self, with other a constant
        from .constraints import PSD

        return PSD(as_expression(other) - self)

    def __rlshift__(self, other):  # other << self
        from .constraints import PSD

        return PSD(self - as_expression(other))

    def __bool__(self):
        raise DCPError("an Expression has no truth value; use it in a constraint")


class _Combination(Expression):
    """What ``Expression(...)`` builds: any expression that is not itself a Variable or a Parameter."""


def _nonzero(c, what: str) -> np.ndarray:
    arr = np.asarray(c, float)
    if np.any(arr == 0):
        raise InputError(f"{what} has a zero entry: division by zero")
    return arr


def as_expression(x) -> Expression:
    """Wrap numbers, arrays and sparse matrices as constant expressions."""
    if isinstance(x, Expression):
        return x
    arr = as_constant_array(x)
    if arr.ndim > 2:
        raise ShapeError(f"constants of {arr.ndim} dimensions are not supported (shape {arr.shape}); "
                         "use scalars, vectors or matrices")
    return Expression(arr.shape, const=arr.reshape(-1))


def _kron_left(A, n):
    """vec_C(A @ X) = kron(A, I_n) vec_C(X) for X with n columns."""
    return cf.lmap(lambda a: sp.kron(sp.csr_matrix(a), sp.identity(n), format="csr"), A)


def _kron_right(B, m):
    """vec_C(X @ B) = kron(I_m, B^T) vec_C(X) for X with m rows."""
    return cf.lmap(lambda b: sp.kron(sp.identity(m), sp.csr_matrix(b).T, format="csr"), B)


def _sparse_matmul(a, b) -> Expression:
    """``a @ b`` where ``a`` or ``b`` is a scipy.sparse matrix or array: the matrix itself (CSR, its nonzeros
    only) is the linear map applied to the other side, never a dense copy nor a constant expression of its size
    (a 50,000 x 100,000 constraint matrix would be 40 GB dense)."""
    if sp.issparse(a) and sp.issparse(b):
        return as_expression(a @ b)
    left = sp.issparse(a)
    mat, ndim = cf.sparse_constant(a if left else b, f"the {'left' if left else 'right'} factor of @")
    e = as_expression(b if left else a)
    if e.ndim == 0:
        raise ShapeError("use * for scalars; @ needs vectors or matrices")
    shape = mat.shape[1:] if ndim == 1 else mat.shape
    if left:
        if shape[-1] != e.shape[0]:
            raise ShapeError(f"matmul: shapes {shape} and {e.shape} do not align")
        out = shape[:-1] + e.shape[1:]
        return e._linear(mat if e.ndim == 1 else _kron_left(mat, e.shape[1]), out)
    if e.shape[-1] != shape[0]:
        raise ShapeError(f"matmul: shapes {e.shape} and {shape} do not align")
    out = e.shape[:-1] + shape[1:]
    row_map = mat if ndim == 1 else mat.T.tocsr()  # (k, n): row i of the product's map
    return e._linear(row_map if e.ndim == 1 else _kron_right(row_map.T, e.shape[0]), out)


def matmul(a, b) -> Expression:
    """Matrix product where one side is constant (or a Parameter); a scipy.sparse side stays sparse."""
    if sp.issparse(a) or sp.issparse(b):
        return _sparse_matmul(a, b)
    a, b = as_expression(a), as_expression(b)
    if not a.is_constant and not b.is_constant:
        raise DCPError("matrix product of two expressions with variables is not convex")
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("use * for scalars; @ needs vectors or matrices")
    if a.is_constant:
        mat = cf.lmap(lambda c: np.asarray(c, float).reshape(a.shape), a.const)
        if a.shape[-1] != b.shape[0]:
            raise ShapeError(f"matmul: shapes {a.shape} and {b.shape} do not align")
        out = a.shape[:-1] + b.shape[1:]
        if b.ndim == 1:
            M = cf.lmap(cf.to_csr, mat)
        else:
            M = _kron_left(cf.lmap(np.atleast_2d, mat), b.shape[1])
        return b._linear(M, out)
    mat = cf.lmap(lambda c: np.asarray(c, float).reshape(b.shape), b.const)
    if a.shape[-1] != b.shape[0]:
        raise ShapeError(f"matmul: shapes {a.shape} and {b.shape} do not align")
    out = a.shape[:-1] + b.shape[1:]
    if a.ndim == 1:
        M = cf.lmap(lambda m: cf.to_csr(np.asarray(m).reshape(b.shape[0], -1).T), mat)
    else:
        M = _kron_right(cf.lmap(lambda m: np.asarray(m).reshape(b.shape[0], -1), mat), a.shape[0])
    return a._linear(M, out)


def _sym_lift(n: int) -> sp.csr_matrix:
    """Map from the n(n+1)/2 upper-triangle entries (column-major) to vec_C(X)."""
    rows, cols = [], []
    k = 0
    for j in range(n):
        for i in range(j + 1):
            rows.append(i * n + j)
            cols.append(k)
            if i != j:
                rows.append(j * n + i)
                cols.append(k)
            k += 1
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n * n, k))


def _bound_side(value, side: str, shape: tuple, name: str) -> np.ndarray | None:
    """One side of a Variable's bounds as a float array of ``shape`` (None when it bounds nothing)."""
    what = f"the {side} bound of variable {name!r}"
    if value is None:
        return None
    arr = numeric_array(value, what, finite=False)
    if np.isnan(arr).any():
        raise InputError(f"{what} contains NaN: use None, -inf or inf for an unbounded side")
    blocked = np.inf if side == "lower" else -np.inf
    if (arr == blocked).any():
        raise InputError(f"{what} contains {blocked}, which no real value satisfies: use "
                         f"{-blocked} (or None) for an unbounded side")
    try:
        arr = np.broadcast_to(arr, shape)
    except ValueError:
        raise ShapeError(f"{what} has shape {arr.shape}, which does not broadcast to the variable's shape "
                         f"{shape}: pass a scalar or an array of that shape") from None
    if not np.isfinite(arr).any():
        return None
    arr = np.array(arr, dtype=float)
    arr.flags.writeable = False
    return arr


def _bounds(bounds, shape: tuple, name: str, symmetric: bool) -> tuple:
    """(lb, ub) validated: a pair of None / scalars / arrays broadcastable to ``shape``, lb <= ub."""
    if bounds is None:
        return None, None
    try:
        if isinstance(bounds, (str, bytes, dict, Expression)) or sp.issparse(bounds):
            raise TypeError(bounds)
        pair = tuple(bounds)
    except TypeError:
        pair = ()
    if len(pair) != 2:
        raise InputError(f"bounds of variable {name!r} must be a pair (lb, ub), each None, a number or an array "
                         f"(e.g. bounds=(0, 1) or bounds=(None, ub)); got {bounds!r}")
    bounds = pair
    lb = _bound_side(bounds[0], "lower", shape, name)
    ub = _bound_side(bounds[1], "upper", shape, name)
    if lb is not None and ub is not None and np.any(lb > ub):
        at = np.argwhere(lb > ub)[0]
        raise InputError(f"bounds of variable {name!r}: lb > ub at entry {tuple(int(i) for i in at)} "
                         f"({lb[tuple(at)]} > {ub[tuple(at)]}); pass lb <= ub everywhere")
    if symmetric:
        for side, arr in (("lower", lb), ("upper", ub)):
            if arr is not None and not np.array_equal(arr, arr.T):
                raise InputError(f"the {side} bound of symmetric variable {name!r} is not symmetric: entries "
                                 "(i, j) and (j, i) are one variable, give them one bound")
    return lb, ub


class Variable(Expression):
    """A named block of decision variables: scalar, vector, matrix or symmetric matrix.

    ``nonneg=True`` adds the sign domain; ``symmetric=True`` stores only the upper
    triangle of a square matrix, so the variable is symmetric by construction.
    ``bounds=(lb, ub)`` adds simple bounds ``lb <= x <= ub`` entrywise: each side None, a number or an
    array broadcastable to the shape, with -inf / inf (or None) for an unbounded side; they compile to rows
    ``'<name>>=lb'`` and ``'<name><=ub'`` of the nonneg cone (finite entries only), which every backend
    takes and from which the certificates derive a finite box (`certiprog.certificates.duality.variable_box`).
    """

    def __init__(self, shape=(), name: str | None = None, *, nonneg: bool = False, symmetric: bool = False,
                 bounds=None):
        shape = _shape(shape, "Variable shape")
        self.id = next(_ids)
        self.name = _check_name(name, "Variable name") or f"var{self.id}"
        self.nonneg = _check_flag(nonneg, "Variable nonneg")
        self.symmetric = _check_flag(symmetric, "Variable symmetric")
        if symmetric:
            if len(shape) != 2 or shape[0] != shape[1]:
                raise ShapeError(f"symmetric variable {self.name!r} needs a square shape, got {shape}")
            self.lift = _sym_lift(shape[0])
        else:
            self.lift = sp.identity(_size(shape), format="csr")
        self.lb, self.ub = _bounds(bounds, shape, self.name, self.symmetric)
        self.n_free = self.lift.shape[1]
        self._val = None
        super().__init__(shape, {self: self.lift}, np.zeros(_size(shape)))

    @property
    def bounds(self) -> tuple:
        """(lb, ub) as arrays of the variable's shape (-inf / inf where unbounded)."""
        lb = np.full(self.shape, -np.inf) if self.lb is None else self.lb.copy()
        ub = np.full(self.shape, np.inf) if self.ub is None else self.ub.copy()
        return lb, ub

    def _own(self) -> np.ndarray:
        """Entries that are variables of their own (the upper triangle of a symmetric matrix)."""
        full = np.ones(self.shape, bool)
        return np.triu(full) if self.symmetric else full

    def _bound_masks(self) -> dict:
        """Entries of each bound block: '==bound' (lb == ub, a fixed entry), '>=lb' and '<=ub' (finite, not fixed)."""
        lb, ub = self.bounds
        own = self._own()
        fixed = own & (lb == ub)
        return {"==bound": fixed, ">=lb": own & np.isfinite(lb) & ~fixed, "<=ub": own & np.isfinite(ub) & ~fixed}

    def domain(self) -> list:
        """The variable's own constraints as ``(name, Cone, s)`` blocks: its sign domain ``'<name>>=0'``; its
        bounds ``'<name>>=lb'`` (s = x - lb >= 0) and ``'<name><=ub'`` (s = ub - x >= 0) over the entries with a
        finite bound, and ``'<name>==bound'`` (s = x - lb = 0) where lb == ub (two opposite inequalities would
        leave no interior, and the certificates need one); for a symmetric variable, the upper triangle only."""
        from ..conic.cones import Cone

        if not self.nonneg and self.lb is None and self.ub is None:
            return []
        entries = Expression(self.shape, {self: self.lift}).flatten()
        out = [(f"{self.name}>=0", Cone("nonneg", self.size), entries)] if self.nonneg else []
        if self.lb is None and self.ub is None:
            return out
        lb, ub = self.bounds
        for label, mask in self._bound_masks().items():
            idx = np.flatnonzero(mask.reshape(-1))
            if idx.size == 0:
                continue
            x = entries._select(idx, (idx.size,))
            s = ub.reshape(-1)[idx] - x if label == "<=ub" else x - lb.reshape(-1)[idx]
            out.append((f"{self.name}{label}", Cone("zero" if label == "==bound" else "nonneg", idx.size), s))
        return out

    def bound_duals(self, solution) -> tuple:
        """Multipliers of the bounds in a Solution, as arrays of the variable's shape (0 where unbounded):
        ``(z_lb, z_ub)``, both >= 0, with Lagrangian ``f - z_lb'(x - lb) - z_ub'(ub - x)`` (a fixed entry's
        equality multiplier z is split as z_lb = max(z, 0), z_ub = max(-z, 0))."""
        from ..errors import ModelError

        if solution.z is None:
            raise ModelError(f"no dual point: the solve ended with status {solution.status.termination!r}")
        z = {}
        for label, mask in self._bound_masks().items():
            full = np.zeros(self.shape)
            if mask.any():
                blocks = [b for b in solution.problem.rows_of(f"{self.name}{label}", primary_only=False)
                          if not b.primary]  # a user's constraint of the same name is not the bound
                full[mask] = np.concatenate([solution.z[b.start:b.stop] for b in blocks])
            if self.symmetric:
                full = full + np.triu(full, 1).T
            z[label] = full
        return z[">=lb"] + np.maximum(z["==bound"], 0.0), z["<=ub"] + np.maximum(-z["==bound"], 0.0)

    @property
    def value(self):
        """The value set by the last solve (None before, or when no primal point exists)."""
        return self._val

    @value.setter
    def value(self, v):
        self._val = None if v is None else self._sized(v)

    def _sized(self, value) -> np.ndarray:
        """A real array of this variable's shape (NaN allowed: solvers may return them)."""
        arr = numeric_array(value, f"value of variable {self.name!r}", finite=False)
        if arr.shape != self.shape and arr.size != _size(self.shape):
            raise ShapeError(f"value for {self.name!r} has shape {arr.shape}, expected {self.shape}")
        return arr.reshape(self.shape)

    def flat(self, value) -> np.ndarray:
        """Stacked (free-entry) vector of a value of this variable."""
        arr = self._sized(value)
        arr = arr.reshape(-1)
        if not self.symmetric:
            return arr
        n = self.shape[0]
        iu = np.triu_indices(n)
        full = arr.reshape(n, n)
        order = np.lexsort((iu[0], iu[1]))
        return full[iu[0][order], iu[1][order]]

    def unflat(self, x: np.ndarray) -> np.ndarray:
        """This variable's value in its own shape from its block ``x`` of the stacked conic columns."""
        return (self.lift @ x).reshape(self.shape)

    def __repr__(self):
        kind = "symmetric " if self.symmetric else ""
        bounded = ", bounds" if self.lb is not None or self.ub is not None else ""
        return f"Variable({self.name!r}, {kind}shape={self.shape}{', nonneg' if self.nonneg else ''}{bounded})"


class Parameter(Expression):
    """A named constant whose value can change after the model is compiled."""

    def __init__(self, shape=(), name: str | None = None, value=None, *, nonneg: bool = False):
        shape = _shape(shape, "Parameter shape")
        self.id = next(_ids)
        self.name = _check_name(name, "Parameter name") or f"param{self.id}"
        self.nonneg = _check_flag(nonneg, "Parameter nonneg")
        self._value = None
        self.version = 0  # bumped at every new value: data checks run once per value
        super().__init__(shape, const=cf.ParamLeaf(self))
        if value is not None:
            self.value = value

    @property
    def value(self):
        """The current value (None until set); assigning it is checked and refills the model at the next solve."""
        return self._value

    @value.setter
    def value(self, v):
        if v is None:
            raise InputError(f"value of parameter {self.name!r} cannot be None: pass an array of shape {self.shape}")
        arr = as_constant_array(v, f"value of parameter {self.name!r}")
        if arr.shape != self.shape:
            raise ShapeError(f"parameter {self.name!r} has shape {self.shape}; got a value of shape {arr.shape}")
        if self.nonneg and np.any(arr < 0):
            raise InputError(f"parameter {self.name!r} is declared nonneg; got a negative value")
        self._value = arr
        self.version += 1

    def flat_value(self) -> np.ndarray:
        """The value as a flat array (InputError when no value is set)."""
        if self._value is None:
            raise InputError(f"parameter {self.name!r} has no value: set `.value` before solving")
        return self._value.reshape(-1)

    def __repr__(self):
        return f"Parameter({self.name!r}, shape={self.shape})"


def _expression_list(exprs, what: str) -> list:
    """``exprs`` (a non-empty list of expressions or numbers) as Expressions, or a ShapeError naming ``what``."""
    try:
        if isinstance(exprs, (str, bytes)):
            raise TypeError(exprs)
        items = list(exprs)
    except TypeError:
        raise ShapeError(f"{what} takes a list of expressions, e.g. {what}([x, y]); "
                         f"got {type(exprs).__name__}") from None
    if not items:
        raise ShapeError(f"{what} needs at least one expression")
    return [as_expression(e) for e in items]


def _axis(axis, ndim: int, what: str) -> int:
    """An axis in [-ndim, ndim) as a nonnegative int, or a ShapeError naming ``what``."""
    if not _is_int(axis) or not -ndim <= axis < ndim:
        raise ShapeError(f"{what}: axis must be an integer in [{-ndim}, {ndim}) here; got {axis!r}")
    return int(axis) % ndim


def concatenate(exprs, axis=0) -> Expression:
    """Join expressions along an existing axis, as ``numpy.concatenate`` (``axis=None`` flattens them first).

    All pieces must have the same number of dimensions (at least 1) and equal sides except along ``axis``.
    """
    exprs = _expression_list(exprs, "concatenate")
    if axis is None:
        exprs, axis = [e.flatten() for e in exprs], 0
    ndims = {e.ndim for e in exprs}
    if len(ndims) != 1:
        raise ShapeError(f"concatenate: all pieces need the same number of dimensions; got shapes "
                         f"{[e.shape for e in exprs]} (reshape the vectors, or use vstack / hstack)")
    ndim = ndims.pop()
    if ndim == 0:
        raise ShapeError("concatenate: scalars have no axis to join along; use hstack or stack")
    axis = _axis(axis, ndim, "concatenate")
    others = {e.shape[:axis] + e.shape[axis + 1:] for e in exprs}
    if len(others) != 1:
        raise ShapeError(f"concatenate along axis {axis}: the other sides must agree; got shapes "
                         f"{[e.shape for e in exprs]}")
    sides = list(exprs[0].shape)
    sides[axis] = sum(e.shape[axis] for e in exprs)
    shape = _shape(tuple(sides))
    starts = np.cumsum([0] + [e.size for e in exprs])
    joined = _join_flat(exprs, int(starts[-1]))
    if axis == 0:  # C order: the pieces' entries are already in place
        return joined.reshape(shape)
    src = np.concatenate([np.arange(a, a + e.size).reshape(e.shape) for a, e in zip(starts, exprs)], axis=axis)
    return joined._select(src.reshape(-1), shape)


def _join_flat(exprs, total: int) -> Expression:
    """The pieces' flattened entries end to end: one stacked coefficient per variable (no pairwise sums)."""
    variables = {}
    for e in exprs:
        variables.update(dict.fromkeys(e.terms))
    terms = {}
    for v in variables:
        blocks = [e.terms[v] if v in e.terms else sp.csr_matrix((e.size, v.n_free)) for e in exprs]
        terms[v] = cf.lmap(lambda *bs: sp.vstack([cf.to_csr(b) for b in bs], format="csr"), *blocks)
    const = cf.lmap(lambda *cs: np.concatenate([np.asarray(c, float).reshape(-1) for c in cs]),
                    *[e.const for e in exprs])
    nonlin, start = [], 0
    for e in exprs:
        for S, atom in e.nonlin:
            S = sp.coo_matrix(S)
            nonlin.append((sp.csr_matrix((S.data, (S.row + start, S.col)), shape=(total, S.shape[1])), atom))
        start += e.size
    return Expression((total,), terms, const, nonlin)


def vstack(exprs) -> Expression:
    """Stack as rows, as ``numpy.vstack``: scalars and vectors become rows (n,) -> (1, n), matrices keep theirs.

    ``vstack([x, y])`` of two vectors of length n is (2, n), not a vector of length 2n: use ``hstack`` or
    ``concatenate`` to join vectors end to end.
    """
    exprs = _expression_list(exprs, "vstack")
    return concatenate([e.reshape((1, e.size)) if e.ndim < 2 else e for e in exprs], axis=0)


def hstack(exprs) -> Expression:
    """Stack along the columns, as ``numpy.hstack``: scalars and vectors are joined end to end into a vector,
    matrices side by side (mixing vectors and matrices is a ShapeError, as in numpy)."""
    exprs = _expression_list(exprs, "hstack")
    exprs = [e.reshape((1,)) if e.ndim == 0 else e for e in exprs]
    return concatenate(exprs, axis=0 if exprs[0].ndim == 1 else 1)


def stack(exprs, axis=0) -> Expression:
    """Join equal-shape expressions along a new axis, as ``numpy.stack`` (results of at most 2 dimensions:
    scalars into a vector, vectors into a matrix, one per row for ``axis=0`` and per column for ``axis=1``)."""
    exprs = _expression_list(exprs, "stack")
    shapes = {e.shape for e in exprs}
    if len(shapes) != 1:
        raise ShapeError(f"stack: all pieces need the same shape; got {[e.shape for e in exprs]}")
    shape = shapes.pop()
    if len(shape) >= 2:
        raise ShapeError(f"stack of pieces of shape {shape} would have 3 dimensions; certiprog expressions have at "
                         "most 2 (use vstack / hstack / concatenate to join matrices)")
    axis = _axis(axis, len(shape) + 1, "stack")
    new = shape[:axis] + (1,) + shape[axis:]
    return concatenate([e.reshape(new) for e in exprs], axis=axis)
