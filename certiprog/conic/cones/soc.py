"""The second-order cone {(t, x): t >= ||x||}; self-dual."""
from __future__ import annotations

import numpy as np

from ._balls import abs_upper, lower, square_lower, sum_squares_upper
from .base import Cone


def soc_project(P: np.ndarray) -> np.ndarray:
    """Projections of the rows (t, x) of P onto the second-order cone: the row itself when ||x|| <= t, 0 when
    ||x|| <= -t, else ((t + ||x||)/2) (1, x / ||x||)."""
    t, X = P[:, 0], P[:, 1:]
    nx = np.linalg.norm(X, axis=1)
    a = (t + nx) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.concatenate([a[:, None], a[:, None] * X / nx[:, None]], axis=1)
    out[nx <= -t] = 0.0
    inside = nx <= t
    out[inside] = P[inside]
    return out


def body_norm_upper(V: np.ndarray) -> np.ndarray:
    """Upper bounds of ||V[k, 1:]|| for the rows of a float array, with room to spare: a head raised to it passes
    `SecondOrderCone.contains` (whose bound of the body is the same sum of squares; 16 u above its square root)."""
    B = sum_squares_upper(abs_upper(V[:, 1:], np.zeros_like(V[:, 1:])), axis=1)
    return np.nextafter(np.sqrt(B), np.inf) * (1 + 16 * 2.0 ** -53)


class SecondOrderCone(Cone):
    """``count`` second-order cones of ``dim`` rows each, (t, x) with t >= ||x||, one per row of (count, dim)."""

    kind = "soc"
    self_dual = True
    dual_description = "itself (self-dual)"

    def __new__(cls, dim: int, count: int = 1):
        return cls._create(dim, count, None)

    def _project(self, P):
        if self.dim == 0 or P.shape[0] == 0:
            return P.copy()
        return soc_project(P)

    def _unit(self):
        e = np.zeros(self.dim)
        e[:1] = 1.0
        return e

    def linear_cuts(self):
        """-s_0 <= 0, s_j - s_0 <= 0 and -s_j - s_0 <= 0 (|s_j| <= ||s_1:|| <= s_0)."""
        m = self.dim - 1
        C = np.zeros((1 + 2 * m, self.dim))
        C[:, 0] = -1.0
        C[1:1 + m, 1:] = np.eye(m)
        C[1 + m:, 1:] = -np.eye(m)
        return C

    def _margin(self, S):
        """s_0 - ||s_1:||."""
        return S[:, 0] - np.linalg.norm(S[:, 1:], axis=1)

    def boundary_smooth(self, S):
        S = np.asarray(S, dtype=float).reshape(-1, self.dim)
        return (S[:, 0] > 0) & (np.linalg.norm(S[:, 1:], axis=1) > 1e-12 * np.abs(S[:, 0]))

    def boundary(self, S, branch):
        """f = s_0 - ||x||, G = (1, -u) with u = x / ||x|| (the reflection of s, in K*); the Hessian -(I - u u') / ||x||
        on x: D = (0, -1/||x||, ...), c = 1/||x||, V = (0, u)."""
        S = np.asarray(S, dtype=float).reshape(-1, self.dim)
        k = S.shape[0]
        nu = np.linalg.norm(S[:, 1:], axis=1)
        E = S[:, 1:] / nu[:, None]
        G = np.concatenate([np.ones((k, 1)), -E], axis=1)
        D = np.concatenate([np.zeros((k, 1)), np.repeat(-1.0 / nu[:, None], self.dim - 1, axis=1)], axis=1)
        V = np.concatenate([np.zeros((k, 1)), E], axis=1)
        return S[:, 0] - nu, G, D, 1.0 / nu, V

    def _into_dual(self, V):
        V = V.copy()
        if V.shape[0] and self.dim:
            V[:, 0] = np.maximum(V[:, 0], np.linalg.norm(V[:, 1:], axis=1))
        return V

    def _contains(self, M, R):
        if self.dim == 0:
            return True
        head = lower(M[:, 0], R[:, 0])
        if not np.all(head >= 0):
            return False
        if self.dim == 1:  # t >= 0
            return True
        body = sum_squares_upper(abs_upper(M[:, 1:], R[:, 1:]), axis=1)
        return np.all(square_lower(head) >= body)

    def contains_exactly(self, v) -> bool:
        V = self._parts(v, "v")
        return bool(np.all(V[:, :1] >= 0) and np.all(V[:, 1:] == 0))

    def plausibly_contains(self, M) -> bool:
        M = np.asarray(M, float).reshape(-1, self.dim)
        return bool(np.all(M[:, 0] >= np.linalg.norm(M[:, 1:], axis=1) * (1 - 1e-9)))

    def _dual_nudge(self, V):
        V = V.copy()
        if self.dim > 1:
            V[:, 0] = np.maximum(V[:, 0], body_norm_upper(V))
        return V
