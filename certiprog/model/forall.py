"""ForAll: a constraint that must hold at every point of an index set.

``ForAll(U, fn)`` requires ``fn(u)`` (an inequality affine in the decision
variables and affine in the point u) for all u in U. ``fn`` receives either
one point (shape (D,)) or several as columns (shape (D, k)); written with
``@`` it handles both. Compiled exactly for sets with ``generators()`` (Lq
ellipsoids, point clouds), otherwise by the cutting-plane solver.
"""
from __future__ import annotations

import numpy as np

from ..errors import DCPError, ShapeError
from .atoms import pnorm
from .constraints import Constraint, Inequality
from .index_sets import IndexSet, LqEllipsoid, PointCloud, dual_exponent


class ForAll(Constraint):
    """``fn(u)`` for every point u of ``index_set``: a semi-infinite constraint (see the module docstring).

    ``fn`` maps a point (shape (D,)) or several points as columns (shape (D, k)) to an inequality affine in the
    decision variables, e.g. ``ForAll(U, lambda u: y * (w @ u) >= 1)``. Sets with an exact form (`LqEllipsoid`,
    `PointCloud`) compile to it; others (`OracleSet`) are solved by cutting planes.
    """

    def __init__(self, index_set: IndexSet, fn):
        super().__init__()
        if not isinstance(index_set, IndexSet):
            raise ShapeError("ForAll needs an IndexSet (LqEllipsoid, PointCloud, OracleSet, ...)")
        if not callable(fn):
            raise DCPError(f"ForAll's fn must be a function u -> inequality, e.g. lambda u: w @ u >= 1; got {fn!r}")
        self.index_set, self.fn = index_set, fn
        self._basis_con: Inequality | None = None  # the constraint at u = 0, e_1, ..., e_D (built on first use)
        probe = self._probe = self.instantiate(index_set.initial_points())
        if not probe.s.is_affine:
            raise DCPError("ForAll: fn(u) must be affine in the variables (a linear inequality)")

    # -------------------------------------------------------- instantiation
    def instantiate(self, points) -> Inequality:
        """The inequality at each row of ``points`` (k, D), as one vectorised constraint of shape (k,)."""
        P = np.atleast_2d(np.asarray(points, dtype=float))
        if P.shape[1] != self.index_set.dim:
            raise ShapeError(f"points have dimension {P.shape[1]}, the index set {self.index_set.dim}")
        k = P.shape[0]
        con = self.fn(P[0] if k == 1 else P.T)
        if not isinstance(con, Inequality):
            raise DCPError("ForAll: fn(u) must return an inequality (`<=` or `>=`)")
        if con.s.size == k:
            return con
        if con.s.size == 1 and k > 1:  # fn is not vectorised: call it per point
            from .expression import hstack

            cons = [self.fn(p) for p in P]
            out = Inequality(hstack([c.lhs.flatten() for c in cons]), hstack([c.rhs.flatten() for c in cons]))
            return out
        raise ShapeError(f"ForAll: fn returned a constraint of size {con.s.size} for {k} points; it must be scalar "
                         "per point")

    @property
    def variables(self):
        return self._probe.variables

    def expressions(self):
        return self._probe.expressions()

    @property
    def has_exact_form(self) -> bool:
        return isinstance(self.index_set, (LqEllipsoid, PointCloud))

    def exact_constraint(self) -> Inequality:
        """The finite reformulation: the robust counterpart (Lq ellipsoid) or every point (cloud)."""
        U = self.index_set
        if isinstance(U, PointCloud):
            return self.instantiate(U.points)
        if isinstance(U, LqEllipsoid):
            h = self.instantiate(U.generators()).s  # h(x, c), h(x, c + v_j)
            h0, H = h[0], h[1:] - h[0]
            # min_{||s||_q<=1} h0 + H^T s = h0 - ||H||_{q*} >= 0
            return Inequality(pnorm(H, dual_exponent(U.q)), h0)
        raise DCPError(f"{type(U).__name__} has no exact reformulation: solve with cutting planes")

    def blocks(self):
        return self.exact_constraint().blocks()

    def linear_in_u(self, values: dict) -> tuple[float, np.ndarray]:
        """At numeric variable values, h(u) = h0 + a^T u (slack of the inequality): returns (h0, a)."""
        D = self.index_set.dim
        if self._basis_con is None:
            self._basis_con = self.instantiate(np.vstack([np.zeros(D), np.eye(D)]))
        h = self._basis_con.s.value_at(values).reshape(-1)
        return float(h[0]), h[1:] - h[0]

    def worst_point(self, values: dict) -> tuple[np.ndarray, float]:
        """The oracle's point of the index set with the smallest slack, and that slack."""
        h0, a = self.linear_in_u(values)
        u, au = self.index_set.minimize_linear(a)
        return u, h0 + au

    def dual_shape(self):
        return ()
