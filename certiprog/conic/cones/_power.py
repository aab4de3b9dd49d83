"""What the 3-D and the n-dimensional power cones share: the projection, the rigorous tests and the dual nudge,
written for ``prod x_i^a_i >= |z|`` with weights a_i > 0 summing to 1 (the 3-D cone has a = (alpha, 1 - alpha)).

    K  = {(x, z) in R^n_+ x R: prod x_i^a_i >= |z|},
    K* = {(u, w) in R^n_+ x R: prod (u_i / a_i)^a_i >= |w|}.
"""
from __future__ import annotations

import numpy as np

from ._balls import arb_hi, arb_lo, arb_module, arb_rows, lower
from ._bisect import bisect
from .base import Cone


def power_project(V: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Euclidean projection of the rows (x, z) of V (k x (n+1)) onto {x >= 0, prod x_i^a_i >= |z|}.

    Off the cone and its polar the projection is (x(r), sign(z0) r) with
    x_i(r) = (x0_i + sqrt(x0_i^2 + 4 a_i r (|z0| - r))) / 2 (for x0_i < 0 written as c / (2 (sqrt(x0_i^2 + c) - x0_i)),
    c = 4 a_i r (|z0| - r), which loses nothing to cancellation near the polar cone) and r in (0, |z0|) the root of
    prod x_i(r)^a_i = r (the stationarity conditions on the boundary; Hien 2015 for n = 2); found by
    bisection, vectorised. Candidates (max(x0, 0), 0) and 0 are compared, and the closest point kept."""
    V = np.asarray(V, float)
    X, z = V[:, :-1], V[:, -1]
    a = np.asarray(alpha, float)
    az = np.abs(z)
    out = np.concatenate([np.maximum(X, 0.0), np.zeros((V.shape[0], 1))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g = np.exp(np.log(np.maximum(X, 0.0)) @ a)
    inside = np.all(X >= 0, axis=1) & (g >= az)
    out[inside] = V[inside]
    idx = np.flatnonzero(~inside & (az > 0))
    if idx.size:
        X0, Z0 = X[idx], az[idx]
        lo, hi = np.zeros(idx.size), Z0.copy()

        def phi(r):
            c = 4 * a * (r * (Z0 - r))[:, None]
            sq = np.sqrt(X0 * X0 + c)
            with np.errstate(divide="ignore", invalid="ignore"):  # x0 < 0: the same root without cancellation
                xr = np.where(X0 >= 0, 0.5 * (X0 + sq), c / (2 * (sq - X0)))
            xr = np.where(np.isfinite(xr), xr, 0.0)
            with np.errstate(divide="ignore"):
                return np.exp(np.log(np.maximum(xr, 0.0)) @ a) - r, xr

        lo, hi = bisect(lo, hi, lambda mid: phi(mid)[0] > 0)
        r = lo  # phi(lo) >= 0: the point lies in the cone
        xr = phi(r)[1]
        cand = np.concatenate([xr, (np.sign(z[idx]) * r)[:, None]], axis=1)
        d_cand = np.linalg.norm(cand - V[idx], axis=1)
        d_face = np.linalg.norm(out[idx] - V[idx], axis=1)
        d_zero = np.linalg.norm(V[idx], axis=1)
        best = np.where(d_cand <= d_face, 0, 1)
        pts = np.where((best == 0)[:, None], cand, out[idx])
        pts[np.minimum(d_cand, d_face) > d_zero] = 0.0
        out[idx] = pts
    return out


def dual_power_mean(weights, us):
    """``prod_i (u_i / a_i)^a_i`` in arb (u_i > 0 arb balls): the bound on |w| of the power cone's dual cone."""
    arb = arb_module()
    return sum((arb(ai) * (u / arb(ai)).log() for ai, u in zip(weights, us)), arb(0)).exp()


def _face(M, R) -> np.ndarray:
    """Rows proved on the face z = 0 (exactly) with x >= 0; the rest go to the arb test."""
    return (M[:, -1] == 0) & (R[:, -1] == 0) & np.all(lower(M[:, :-1], R[:, :-1]) >= 0, axis=1)


def _z_bound(w) -> float:
    """An upper bound of |w| over the arb ball w."""
    return max(abs(arb_lo(w)), abs(arb_hi(w)))


class PowerConeBase(Cone):
    """The operations of the power cones, from their ``weights`` (no kind of its own)."""

    dual_description = "{(u, w): u >= 0, prod (u_i / a_i)^a_i >= |w|}"

    @property
    def weights(self) -> tuple:
        """The exponents a_i of ``prod x_i^a_i >= |z|``."""
        raise NotImplementedError

    def _project(self, P):
        return power_project(P, np.array(self.weights))

    def _unit(self):
        return np.concatenate([np.ones(self.dim - 1), [0.0]])

    def _dual_unit(self):
        return np.concatenate([np.ones(self.dim - 1), [0.0]])

    def linear_cuts(self):
        """-x_i <= 0 and +-z - sum x_i <= 0 (|z| <= prod x_i^a_i <= sum a_i x_i <= sum x_i)."""
        n = self.dim - 1
        ones = -np.ones((1, n))
        return np.vstack([np.hstack([-np.eye(n), np.zeros((n, 1))]), np.hstack([ones, [[1.0]]]),
                          np.hstack([ones, [[-1.0]]])])

    def dual_as_primal(self):
        """(u, w) in K*  <=>  (u_i / a_i, w) in K."""
        return np.arange(self.dim), np.r_[1.0 / np.array(self.weights), 1.0]

    def plausibly_contains(self, M) -> bool:
        M = np.asarray(M, float).reshape(-1, self.dim)
        a = np.array(self.weights)
        X, w = M[:, :-1], np.abs(M[:, -1])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            g = np.exp(np.log(X) @ a)
            return bool(np.all(np.all(X > 0, axis=1) & ~(g < w * (1 - 1e-9))))

    def _margin(self, S):
        """prod x_i^a_i - |z| where x > 0; 0 elsewhere."""
        U = S[:, :-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.exp(np.log(np.maximum(U, 0.0)) @ np.asarray(self.weights, float)) - np.abs(S[:, -1])
        return np.where(np.all(U > 0, axis=1), m, 0.0)

    def boundary_smooth(self, S):
        S = np.asarray(S, dtype=float).reshape(-1, self.dim)
        return np.all(S[:, :-1] > 0, axis=1) & (S[:, -1] != 0)

    def boundary_branch(self, S):
        return np.sign(np.asarray(S, dtype=float).reshape(-1, self.dim)[:, -1])

    def boundary(self, S, branch):
        """f = p - sigma z with p = prod x_i^a_i (sigma = ``branch``, the sign of z), G = (a_i p / x_i, -sigma):
        prod (G_i / a_i)^a_i = 1 = |G_z| (the boundary of K*). Hessian on x: p (a/x)(a/x)' - diag(p a / x^2)."""
        S = np.asarray(S, dtype=float).reshape(-1, self.dim)
        a = np.asarray(self.weights, float)
        k = S.shape[0]
        U = S[:, :-1]
        pr = np.exp(np.log(U) @ a)
        au = a / U
        G = np.concatenate([au * pr[:, None], -np.asarray(branch, float)[:, None]], axis=1)
        D = np.concatenate([-pr[:, None] * a / (U * U), np.zeros((k, 1))], axis=1)
        V = np.concatenate([au, np.zeros((k, 1))], axis=1)
        return pr - branch * S[:, -1], G, D, pr, V

    def _into_dual(self, V):
        """u clipped at 0 and w at +-prod (u_i / a_i)^a_i."""
        a = np.asarray(self.weights, float)
        Z = V.copy()
        Z[:, :-1] = np.maximum(Z[:, :-1], 0.0)
        with np.errstate(divide="ignore"):
            cap = np.exp(np.log(Z[:, :-1] / a) @ a)
        Z[:, -1] = np.clip(Z[:, -1], -cap, cap)
        return Z

    def _contains(self, M, R):
        """x_i > 0 and exp(sum a_i log x_i) >= |z| in arb; rows with z = 0 exactly need only x >= 0."""
        face = _face(M, R)
        M, R = M[~face], R[~face]
        if not self.plausibly_contains(M):
            return False
        arb = arb_module()
        a = [arb(t) for t in self.weights]
        for p in arb_rows(M, R):
            xs, w = p[:-1], p[-1]
            if not all(arb_lo(u) > 0 for u in xs):
                return False
            g = sum((ai * u.log() for ai, u in zip(a, xs)), arb(0)).exp()
            if not arb_lo(g) >= _z_bound(w):
                return False
        return True

    def _dual_contains(self, M, R):
        """u_i > 0 and prod (u_i / a_i)^a_i >= |w| in arb; rows with w = 0 exactly need only u >= 0."""
        face = _face(M, R)
        for p in arb_rows(M[~face], R[~face]):
            us, w = p[:-1], p[-1]
            if not all(arb_lo(u) > 0 for u in us):
                return False
            if not arb_lo(dual_power_mean(self.weights, us)) >= _z_bound(w):
                return False
        return True

    def _dual_nudge(self, V):
        """|w| shrunk to a proved lower bound of prod (u_i / a_i)^a_i; rows with some u_i <= 0 go to (max(u, 0), 0)."""
        arb = arb_module()
        V = V.copy()
        for p in V:
            if np.any(p[:-1] <= 0):
                p[:-1], p[-1] = np.maximum(p[:-1], 0.0), 0.0
                continue
            g = dual_power_mean(self.weights, [arb(float(u)) for u in p[:-1]])
            bound = max(arb_lo(g) * (1 - 1e-15), 0.0)  # a little below, so that the test's outward rounding passes
            p[-1] = np.sign(p[-1]) * min(abs(p[-1]), bound)
        return V
