"""Constraints on the non-symmetric cones: the exponential cone and the n-dimensional power cone.

Orders and duals follow `certiprog.conic.cones` (`ExponentialCone`, `PowerConeND`: Clarabel's and CVXPY's conventions):

* ``ExpCone(x, y, z)``: ``y exp(x / y) <= z`` with y > 0 (or y = 0, x <= 0, z >= 0), elementwise over
  equal-size x, y, z (scalars broadcast); dual of shape (k, 3) in K_exp* = {(u, v, w): u < 0,
  -u exp(v/u) <= e w} u {(0, v, w): v, w >= 0}. CVXPY's ``ExpCone`` duals are the same numbers.
* ``PowConeND(W, z, alpha)``: ``prod_i W_i^alpha_i >= |z|``, W >= 0, alpha > 0 summing to 1; W a vector
  (one cone) or a (k, n) matrix with z of shape (k,) (k cones, row-wise, as `SOC`); alpha of shape (n,)
  or (k, n) (one weight vector per cone). Dual of shape (n + 1,) or (k, n + 1) in
  {(u, w): u >= 0, prod (u_i / alpha_i)^alpha_i >= |w|}.

Like every certiprog constraint, the Lagrangian of the minimisation form is ``f(x) - <z, s(x)>``.
"""
from __future__ import annotations

import numpy as np

from ..conic.cones import ExponentialCone, PowerConeND
from ..conic.cones.power_nd import nd_alpha
from ..errors import DCPError, InputError, ShapeError
from .constraints import Constraint, equal_runs
from .expression import as_expression, hstack


def _affine(what: str, *exprs) -> None:
    for e in exprs:
        if not e.is_affine:
            raise DCPError(f"{what} needs affine arguments, got a {e.curvature} expression; bound the atom by a new "
                           "Variable and use that")


def _columns(parts) -> object:
    """(k, d) matrix expression with the given k-vectors as columns, flattened row by row."""
    k = parts[0].size
    return hstack([p.reshape((k, 1)) for p in parts]).flatten()


class ExpCone(Constraint):
    """``y * exp(x / y) <= z`` (y > 0), elementwise; the exponential cone in Clarabel's order (x, y, z)."""

    def __init__(self, x, y, z):
        super().__init__()
        x, y, z = (as_expression(a) for a in (x, y, z))
        _affine("ExpCone(x, y, z)", x, y, z)
        try:
            shape = np.broadcast_shapes(x.shape, y.shape, z.shape)
        except ValueError as exc:
            raise ShapeError(f"ExpCone: shapes {x.shape}, {y.shape}, {z.shape} do not broadcast") from exc
        x, y, z = (e.broadcast_to(shape).flatten() for e in (x, y, z))
        self.k, self.shape = x.size, shape
        if self.k == 0:
            raise ShapeError("ExpCone needs at least one entry")
        self.parts = (x, y, z)
        self.s = _columns(self.parts)

    def expressions(self):
        return list(self.parts)

    def blocks(self):
        return [(ExponentialCone(self.k), self.s)]

    def dual_shape(self):
        return (self.k, 3)


class PowConeND(Constraint):
    """``prod_i W_i^alpha_i >= |z|``, W >= 0; W (n,) with z scalar, or W (k, n) with z (k,): k cones row-wise."""

    def __init__(self, W, z, alpha):
        super().__init__()
        W, z = as_expression(W), as_expression(z)
        _affine("PowConeND(W, z, alpha)", W, z)
        if W.ndim <= 1 and z.size == 1:
            W = W.reshape((1, W.size))
        elif not (W.ndim == 2 and z.size == W.shape[0]):
            raise ShapeError(f"PowConeND: W of shape {W.shape} and z of shape {z.shape} do not match: use W of shape "
                             "(n,) with a scalar z, or W of shape (k, n) with z of shape (k,)")
        self.k, self.n = W.shape
        if self.n < 1 or self.k < 1:
            raise ShapeError(f"PowConeND needs at least one cone of at least one W entry; got W of shape {W.shape}")
        try:
            a = np.asarray(alpha, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"PowConeND's alpha must be positive weights summing to 1; got {alpha!r}") from None
        if a.dtype.kind not in "f" or a.ndim > 2:
            raise InputError(f"PowConeND's alpha must be an array of shape (n,) or (k, n); got {alpha!r}")
        try:
            a = np.broadcast_to(a, (self.k, self.n))
        except ValueError:
            raise ShapeError(f"PowConeND: alpha of shape {a.shape} does not fit {self.k} cone(s) of {self.n} "
                             "W entries") from None
        self.alphas = [nd_alpha(row, self.n + 1) for row in a]
        self.W, self.z = W, z.reshape((self.k,))
        self.s = hstack([W, self.z.reshape((self.k, 1))]).flatten()

    def expressions(self):
        return [self.W, self.z]

    def blocks(self):
        """One block per run of cones with equal weights (rows stay in the user's order)."""
        d = self.n + 1
        return [(PowerConeND(self.alphas[a], b - a), self.s[np.arange(a * d, b * d)])
                for a, b in equal_runs(self.alphas)]

    def dual_shape(self):
        return (self.n + 1,) if self.k == 1 else (self.k, self.n + 1)
