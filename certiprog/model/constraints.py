"""Constraints. Each reduces to cone blocks ``s(x) in K`` with ``s`` affine.

Sign convention (one for every backend): a constraint is written ``s(x) in K``
and its dual ``z`` lies in the dual cone ``K*``; the Lagrangian of the
minimisation form is ``f(x) - <z, s(x)>``. Hence

* ``lhs <= rhs``:  s = rhs - lhs >= 0, dual z >= 0 (the usual multiplier);
* ``lhs == rhs``:  s = lhs - rhs  = 0, dual z free. The user's sides are kept whichever operand's
  ``__eq__`` Python runs (``2*y == t`` and ``t == 2*y`` have opposite duals), except that a plain
  number or array on the left is read as the right side: Python calls ``expr.__eq__(c)`` for both
  ``c == expr`` and ``expr == c``, so the two cannot be told apart (write ``Equality(c, expr)`` to
  keep c on the left);
* ``SOC(t, x)``:   s = (t, x), dual in the second-order cone;
* ``PSD(X)``:      s = X, dual a PSD matrix;
* for ``maximize f`` the duals are those of ``minimize -f``.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..conic.cones import Cone
from ..errors import DCPError, ModelError, ShapeError
from .expression import _is_int, as_expression, hstack, real_scalar


class Constraint:
    """Base class; ``name`` is set when the constraint is added to a Model."""

    def __init__(self) -> None:
        self.name: str | None = None

    @property
    def variables(self) -> list:
        """The decision variables the constraint involves, in order of appearance."""
        seen = {}
        for e in self.expressions():
            seen.update(dict.fromkeys(e.variables))
        return list(seen)

    def expressions(self) -> list:
        """The Expressions the constraint is made of (its sides, or its cone's arguments)."""
        return []

    def blocks(self) -> list:
        """List of ``(Cone, s)`` with ``s`` a flat Expression of ``cone.rows`` entries."""
        return []

    def dual_shape(self) -> tuple:
        """The shape of the constraint's dual as `Solution.dual` returns it."""
        return ()

    def violation(self, values: dict) -> float:
        """Largest violation (distance to the cone) at numeric variable values."""
        from ..conic.cones import distance_to_cone

        worst = 0.0
        for cone, s in self.blocks():
            worst = max(worst, distance_to_cone(cone, s.value_at(values).reshape(-1)))
        return worst

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r})"

    def __bool__(self):
        # ``0 <= x <= 1`` is Python's ``(0 <= x) and (x <= 1)``: truth-testing the first constraint would keep
        # only the second one, silently. CVXPY refuses the same way.
        raise ModelError(
            "a constraint has no truth value: a chained comparison such as `0 <= x <= 1` or `a == x == b` keeps "
            "only one of its constraints (Python reads it as `(0 <= x) and (x <= 1)`); write them separately, "
            "e.g. [0 <= x, x <= 1], or use Variable(shape, bounds=(0, 1))")


class _Comparison(Constraint):
    """A constraint between two sides broadcast to one shape (`Inequality`, `Equality`), the shape of its dual."""

    def _set_sides(self, lhs, rhs) -> None:
        try:
            self.shape = np.broadcast_shapes(lhs.shape, rhs.shape)
        except ValueError as exc:
            raise ShapeError(f"cannot compare shapes {lhs.shape} and {rhs.shape}") from exc
        self.lhs, self.rhs = lhs.broadcast_to(self.shape), rhs.broadcast_to(self.shape)

    def expressions(self):
        return [self.lhs, self.rhs]

    def dual_shape(self):
        return self.shape


class Inequality(_Comparison):
    """``lhs <= rhs`` elementwise, with lhs convex and rhs concave."""

    def __init__(self, lhs, rhs):
        super().__init__()
        self._set_sides(as_expression(lhs), as_expression(rhs))
        s = self.rhs - self.lhs
        if s.curvature not in ("constant", "affine", "concave"):
            raise DCPError(
                "constraint `lhs <= rhs` needs a convex lhs and a concave rhs "
                f"(here rhs - lhs is {s.curvature}); a convex atom may only appear on the "
                "smaller side, e.g. `norm2(x) <= t`, not `t <= norm2(x)`"
            )
        self.s = s.flatten()

    def blocks(self):
        return [(Cone("nonneg", self.s.size), self.s)]


class Equality(_Comparison):
    """``lhs == rhs`` elementwise; both sides affine."""

    def __init__(self, lhs, rhs):
        super().__init__()
        lhs, rhs = as_expression(lhs), as_expression(rhs)
        if not (lhs.is_affine and rhs.is_affine):
            raise DCPError("an equality constraint needs affine sides; a convex atom may only be bounded above")
        self._set_sides(lhs, rhs)
        self.s = (self.lhs - self.rhs).flatten()

    def blocks(self):
        return [(Cone("zero", self.s.size), self.s)]


class SOC(Constraint):
    """Second-order cones ``||x_i|| <= t_i``.

    * t a scalar and x a scalar or vector: one cone ``||x|| <= t``;
    * x a (m, n) matrix, ``axis=1``: one cone per row, ``||x[i, :]|| <= t[i]`` (t of size m);
    * x a (m, n) matrix, ``axis=0``: one cone per column, ``||x[:, j]|| <= t[j]`` (t of size n), as CVXPY's
      ``SOC(t, X, axis=0)``;
    * ``axis=None`` (the default) reads a matrix x row-wise (``axis=1``). CVXPY's default is ``axis=0``
      (columns): pass ``axis`` explicitly when porting CVXPY code with a matrix x.

    The dual has one row per cone, ``(dual of t_i, dual of x's i-th row or column)``: shape (n_cone + 1,) for
    one cone, (k, n_cone + 1) for k cones.
    """

    def __init__(self, t, x, axis=None):
        super().__init__()
        t, x = as_expression(t), as_expression(x)
        if not (t.is_affine and x.is_affine):
            raise DCPError("SOC(t, x) needs affine t and x")
        if axis is not None and not (_is_int(axis) and axis in (0, 1)):
            raise ShapeError(f"SOC's axis must be None, 0 (one cone per column of x) or 1 (one per row); "
                             f"got {axis!r}")
        if x.ndim <= 1:
            if axis == 1:
                raise ShapeError(f"SOC: axis=1 needs a matrix x (one cone per row); x has shape {x.shape}")
            if t.size != 1:
                raise ShapeError(f"SOC: with x of shape {x.shape} (one cone), t must be a scalar; got shape "
                                 f"{t.shape}")
            self.k, self.n = 1, x.size
            self.s = hstack([t.reshape((1,)), x.flatten()])
        else:
            rows = x if axis in (None, 1) else x.T
            if t.size != rows.shape[0]:
                side = "columns" if axis == 0 else "rows"
                raise ShapeError(f"SOC: t of shape {t.shape} does not match x of shape {x.shape}: one cone per "
                                 f"{side} of x (axis={axis}) needs t of size {rows.shape[0]}")
            self.k, self.n = rows.shape
            self.s = hstack([t.reshape((self.k, 1)), rows]).flatten()
        self.t, self.x, self.axis = t, x, axis

    def expressions(self):
        return [self.t, self.x]

    def blocks(self):
        return [(Cone("soc", self.n + 1, self.k), self.s)]

    def dual_shape(self):
        return (self.n + 1,) if self.k == 1 else (self.k, self.n + 1)


def svec_matrix(n: int) -> sp.csr_matrix:
    """Map vec_C(X) to the scaled upper triangle (column-major, off-diagonals times sqrt 2)."""
    rows, cols, vals = [], [], []
    k = 0
    r2 = np.sqrt(2.0) / 2.0
    for j in range(n):
        for i in range(j + 1):
            if i == j:
                rows.append(k)
                cols.append(i * n + i)
                vals.append(1.0)
            else:
                rows += [k, k]
                cols += [i * n + j, j * n + i]
                vals += [r2, r2]
            k += 1
    return sp.csr_matrix((vals, (rows, cols)), shape=(k, n * n))


class PSD(Constraint):
    """``X`` symmetric positive semidefinite (X affine and square)."""

    def __init__(self, X):
        super().__init__()
        X = as_expression(X)
        if not X.is_affine:
            raise DCPError("PSD(X) needs an affine X")
        if X.ndim != 2 or X.shape[0] != X.shape[1]:
            raise ShapeError(f"PSD needs a square matrix expression, got shape {X.shape}")
        self.X = X
        self.n = X.shape[0]
        self.s = X.flatten()._linear(svec_matrix(self.n), (self.n * (self.n + 1) // 2,))

    def expressions(self):
        return [self.X]

    def blocks(self):
        return [(Cone("psd", self.n * (self.n + 1) // 2), self.s)]

    def dual_shape(self):
        return (self.n, self.n)


def equal_runs(values) -> list:
    """(start, stop) of each run of equal consecutive entries of ``values`` (one cone block per run of equal
    parameters keeps the rows in the user's order)."""
    out, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            out.append((start, i))
            start = i
    return out


class PowerCone3D(Constraint):
    """``x^alpha * y^(1-alpha) >= |z|``, x, y >= 0, elementwise over equal-size vectors.

    ``alpha``: one number in (0, 1), or one per entry (an array of the entries' count, or of size 1); runs of equal
    values share one cone block, so the rows and the dual (shape (k, 3)) keep the entries' order."""

    def __init__(self, x, y, z, alpha):
        super().__init__()
        x, y, z = (as_expression(a).flatten() for a in (x, y, z))
        if not (x.size == y.size == z.size):
            raise ShapeError(f"PowerCone3D: x, y, z must have equal sizes; got {x.size}, {y.size}, {z.size}")
        if not (x.is_affine and y.is_affine and z.is_affine):
            raise DCPError("PowerCone3D(x, y, z, alpha) needs affine x, y and z")
        self.k = x.size
        if np.ndim(alpha) == 0 or isinstance(alpha, (str, bytes)):
            a = np.array([real_scalar(alpha, "PowerCone3D's alpha")])
        else:
            a = np.array([real_scalar(v, "each PowerCone3D alpha") for v in np.asarray(alpha, dtype=object).ravel()])
            if a.size != self.k and a.size != 1:
                raise ShapeError(f"PowerCone3D: {a.size} alpha values for {self.k} cones; pass one number or one "
                                 "per entry")
        if not np.all((a > 0) & (a < 1)):
            raise DCPError(f"PowerCone3D needs 0 < alpha < 1, got {alpha}")
        self.alphas = np.broadcast_to(a, (self.k,)) if a.size == 1 else a
        self.alpha = float(a[0]) if np.all(a == a[0]) else a
        self.s = hstack([x.reshape((self.k, 1)), y.reshape((self.k, 1)), z.reshape((self.k, 1))]).flatten()
        self.parts = (x, y, z)

    def expressions(self):
        return list(self.parts)

    def blocks(self):
        if self.k == 0 or np.all(self.alphas == self.alphas[0]):
            return [(Cone("pow", 3, self.k, float(self.alpha if self.k == 0 else self.alphas[0])), self.s)]
        return [(Cone("pow", 3, b - a, float(self.alphas[a])), self.s[np.arange(3 * a, 3 * b)])
                for a, b in equal_runs(self.alphas)]

    def dual_shape(self):
        return (self.k, 3)
