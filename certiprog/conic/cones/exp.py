"""The exponential cone in Clarabel's, SCS's and CVXPY's order (x, y, z); not self-dual.

    K_exp  = closure{(x, y, z): y > 0, y exp(x / y) <= z}
           = {(x, y, z): y > 0, y exp(x/y) <= z} u {(x, 0, z): x <= 0, z >= 0},
    K_exp* = {(u, v, w): u < 0, -u exp(v/u) <= e w} u {(0, v, w): v, w >= 0}.

(MOSEK orders the same cone (z, y, x); its backend permutes.) The projections follow Friberg (2021): cheap
candidates on the faces, else the root of a univariate function found by bisection, vectorised over the copies.
"""
from __future__ import annotations

import numpy as np

from ...errors import InputError
from ._balls import arb_hi, arb_lo, arb_module, arb_rows, lower, upper
from ._bisect import bisect
from .base import Cone


def _exp_candidates(V: np.ndarray) -> tuple:
    """Cheap points of K_exp and of its polar K° = -K_exp* near each row of V (k x 3): (vp, vd)."""
    r, s, t = V[:, 0], V[:, 1], V[:, 2]
    vp = np.stack([np.minimum(r, 0.0), np.zeros_like(r), np.maximum(t, 0.0)], axis=1)  # face y = 0
    vd = np.stack([np.zeros_like(r), np.minimum(s, 0.0), np.minimum(t, 0.0)], axis=1)  # face u = 0 (polar)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        pos = s > 0
        tp = np.where(pos, np.maximum(t, s * np.exp(np.where(pos, r / np.where(pos, s, 1.0), 0.0))), np.inf)
        better = pos & (tp - t < np.linalg.norm(V - vp, axis=1))
        vp[better] = np.stack([r, s, tp], axis=1)[better]
        neg = r > 0  # polar: (r, s, t) with r > 0 and t <= -r exp(s/r - 1)
        td = np.where(neg, np.minimum(t, -r * np.exp(np.where(neg, s / np.where(neg, r, 1.0) - 1.0, 0.0))), -np.inf)
        better = neg & (t - td < np.linalg.norm(V - vd, axis=1))
        vd[better] = np.stack([r, s, td], axis=1)[better]
    return vp, vd


def _exp_h(V: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """Friberg's (2021) root function: zero where V lies in the plane of the primal boundary ray
    rho -> (rho, 1, e^rho) and the polar boundary ray (-1, rho - 1, e^-rho) orthogonal to it."""
    r, s, t = V[:, 0], V[:, 1], V[:, 2]
    with np.errstate(over="ignore", invalid="ignore"):
        return ((rho - 1) * r + s) * np.exp(rho) - (r - rho * s) * np.exp(-rho) - (rho * (rho - 1) + 1) * t


def _exp_bracket(V: np.ndarray) -> tuple:
    """An interval [lo, hi] of rho holding the root of `_exp_h` (rows with r > 0 or s > 0): from the
    requirements that both rays' coefficients be positive, (rho - 1) r + s > 0 and r - rho s > 0 (an end is
    infinite when r <= 0, resp. s <= 0; `_exp_project` widens those)."""
    r, s = V[:, 0], V[:, 1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # an overflowing end is an infinite one
        lo = np.where(r > 0, 1.0 - s / np.where(r > 0, r, 1.0), -np.inf)
        hi = np.where(s > 0, r / np.where(s > 0, s, 1.0), np.inf)
    return lo, hi


def _exp_project(V: np.ndarray) -> tuple:
    """Euclidean projections of the rows of V (k x 3) onto K_exp and onto its polar, following Friberg (2021):
    cheap candidates first, else the univariate root rho of `_exp_h` (bisection, vectorised), keeping the
    closest point that lies in the cone. Returns (Pi_K(V), Pi_K°(V))."""
    V = np.asarray(V, float).reshape(-1, 3)
    vp, vd = _exp_candidates(V)
    r, s = V[:, 0], V[:, 1]
    scale = 1.0 + np.linalg.norm(V, axis=1)
    pdist, ddist = np.linalg.norm(V - vp, axis=1), np.linalg.norm(V - vd, axis=1)
    tol = 1e-15 * scale
    done = ((r <= 0) & (s <= 0)) | (np.minimum(pdist, ddist) <= tol) | \
        ((np.abs(vp + vd - V).max(axis=1) <= tol) & (np.einsum("ij,ij->i", vp, vd) <= tol * scale))
    idx = np.flatnonzero(~done)
    if idx.size:
        W = V[idx]
        lo, hi = _exp_bracket(W)
        # exp(rho) must stay finite for the candidates: clip to [-745, 709] (a root outside lies on a face,
        # where the cheap candidates are already the projection)
        lo, hi = np.clip(lo, -745.0, 709.0), np.clip(hi, -745.0, 709.0)
        lo = np.where(np.isfinite(lo), lo, np.minimum(hi, 0.0) - 1.0)
        hi = np.where(np.isfinite(hi), hi, np.maximum(lo, 0.0) + 1.0)
        lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
        # widen until h(lo) <= 0 <= h(hi) (h is increasing across its root inside the bracket)
        for _ in range(60):
            hl, hh = _exp_h(W, lo), _exp_h(W, hi)
            bad_lo, bad_hi = ~(hl <= 0), ~(hh >= 0)
            if not (bad_lo.any() or bad_hi.any()):
                break
            span = np.maximum(hi - lo, 1.0)
            lo = np.where(bad_lo, np.maximum(lo - span, -745.0), lo)
            hi = np.where(bad_hi, np.minimum(hi + span, 709.0), hi)
        lo, hi = bisect(lo, hi, lambda mid: _exp_h(W, mid) < 0)
        rho = 0.5 * (lo + hi)
        with np.errstate(over="ignore", invalid="ignore"):
            quad = rho * (rho - 1) + 1
            lin_p = ((rho - 1) * W[:, 0] + W[:, 1]) / quad
            cand_p = np.stack([rho * lin_p, lin_p, np.exp(rho) * lin_p], axis=1)
            lin_d = (W[:, 0] - rho * W[:, 1]) / quad
            cand_d = np.stack([lin_d, (1 - rho) * lin_d, -np.exp(-rho) * lin_d], axis=1)
        okp = (lin_p > 0) & np.all(np.isfinite(cand_p), axis=1)
        okd = (lin_d > 0) & np.all(np.isfinite(cand_d), axis=1)
        dp = np.where(okp, np.linalg.norm(np.where(okp[:, None], cand_p, 0.0) - W, axis=1), np.inf)
        dd = np.where(okd, np.linalg.norm(np.where(okd[:, None], cand_d, 0.0) - W, axis=1), np.inf)
        take_p = dp <= pdist[idx]
        take_d = dd <= ddist[idx]
        vp[idx[take_p]] = cand_p[take_p]
        vd[idx[take_d]] = cand_d[take_d]
        vp[idx], vd[idx] = _moreau_pair(W, vp[idx], vd[idx])
    return vp, vd


def _violation(X: np.ndarray, polar: bool) -> np.ndarray:
    """About how far each row of X lies outside K_exp (``polar``: outside K° = -K_exp*), 0 inside: the positive
    part of the defining function over its gradient's norm on the open part, the coordinates' signs on the faces."""
    a, b, c = X[:, 0], X[:, 1], X[:, 2]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if polar:  # (a, b, c) with a > 0: a exp(b/a - 1) + c <= 0; a = 0: b, c <= 0
            q = b / a
            e = np.exp(q - 1)
            f, grad = a * e + c, np.sqrt((e * (1 - q)) ** 2 + e * e + 1)
            side, key = a, (b, c)
        else:  # (a, b, c) with b > 0: b exp(a/b) - c <= 0; b = 0: a <= 0, c >= 0
            q = a / b
            e = np.exp(q)
            f, grad = b * e - c, np.sqrt(e * e + (e * (1 - q)) ** 2 + 1)
            side, key = b, (a, -c)
        face = np.hypot(np.maximum(key[0], 0.0), np.maximum(key[1], 0.0))
        inner = np.where(np.isfinite(f) & np.isfinite(grad), np.maximum(f, 0.0) / grad, np.inf)
    return np.where(side > 0, inner, np.where(side == 0, face, np.hypot(side, face)))


def _moreau_pair(V: np.ndarray, vp: np.ndarray, vd: np.ndarray) -> tuple:
    """The most consistent of the pairs (vp, vd), (vp, V - vp) and (V - vd, vd) for each row: a root-based
    candidate can lose digits to cancellation along the cone's boundary, where distances cannot tell (distance
    changes to second order), while Moreau's decomposition V = Pi_K(V) + Pi_K°(V), <Pi_K(V), Pi_K°(V)> = 0 can.
    Score: the largest of the two cones' violations and the sum's error, plus |<P, D>| / (1 + ||V||)."""
    norm = 1.0 + np.linalg.norm(V, axis=1)
    pairs = [(vp, vd), (vp, V - vp), (V - vd, vd)]
    scores = []
    for P, D in pairs:
        bad = np.maximum(np.maximum(_violation(P, False), _violation(D, True)), np.abs(P + D - V).max(axis=1))
        scores.append(bad + np.abs(np.einsum("ij,ij->i", P, D)) / norm)
    best = np.argmin(np.stack(scores), axis=0)
    P = np.select([(best == k)[:, None] for k in range(3)], [p for p, _ in pairs])
    D = np.select([(best == k)[:, None] for k in range(3)], [d for _, d in pairs])
    return P, D


class ExponentialCone(Cone):
    """``count`` exponential cones, rows (x, y, z) with y exp(x / y) <= z (``dim`` = 3)."""

    kind = "exp"
    dual_description = "{(u, v, w): u < 0, -u exp(v/u) <= e w} u {(0, v, w): v, w >= 0}"

    def __new__(cls, count: int = 1):
        return cls._create(3, count, None)

    @classmethod
    def _check(cls, dim, alpha):
        alpha = super()._check(dim, alpha)
        if dim != 3:
            raise InputError(f"an exp cone has dim 3; got dim={dim}")
        return alpha

    def _project(self, P):
        return _exp_project(P)[0]

    def _project_dual(self, P):  # Pi_K*(v) = -Pi_K°(-v)
        return -_exp_project(-P)[1]

    def _unit(self):
        return np.array([-1.0, 1.0, 1.0])  # 1 * exp(-1) < 1

    def _dual_unit(self):
        return np.array([-1.0, 1.0, 1.0])  # 1 * exp(-1) < e

    def linear_cuts(self):
        """-y <= 0, -z <= 0 and x + y - z <= 0 (y exp(x/y) >= y (1 + x/y) = x + y)."""
        return np.array([[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 1.0, -1.0]])

    def dual_as_primal(self):
        """(u, v, w) in K_exp*  <=>  (-v, -u, e w) in K_exp (u < 0: -u exp(v/u) <= e w)."""
        return np.array([1, 0, 2]), np.array([-1.0, -1.0, np.e])

    def plausibly_contains(self, M) -> bool:
        M = np.asarray(M, float).reshape(-1, 3)
        x, y, z = M[:, 0], M[:, 1], M[:, 2]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            gap = np.log(z) - np.log(y) - x / y
            return bool(np.all((y > 0) & (z > 0) & ~(gap < -1e-9 * (1 + np.abs(np.log(z)) + np.abs(x / y)))))

    def _margin(self, S):
        """y log(z / y) - x where y, z > 0 (>= 0 exactly when y exp(x / y) <= z); 0 elsewhere."""
        ok = (S[:, 1] > 0) & (S[:, 2] > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            m = S[:, 1] * np.log(S[:, 2] / S[:, 1]) - S[:, 0]
        return np.where(ok, m, 0.0)

    def boundary_smooth(self, S):
        S = np.asarray(S, dtype=float).reshape(-1, 3)
        return (S[:, 1] > 0) & (S[:, 2] > 0)

    def boundary(self, S, branch):
        """f = y log(z / y) - x, G = (-1, log(z / y) - 1, y / z): with u = -lambda, v = lambda (log(z/y) - 1),
        w = lambda y / z, -u exp(v / u) = lambda e y / z = e w (the boundary of K_exp*). Hessian
        -(1/y) V V' with V = (0, 1, -y/z)."""
        S = np.asarray(S, dtype=float).reshape(-1, 3)
        x, y, z = S[:, 0], S[:, 1], S[:, 2]
        k = S.shape[0]
        lz = np.log(z / y)
        G = np.stack([-np.ones(k), lz - 1.0, y / z], axis=1)
        V = np.stack([np.zeros(k), np.ones(k), -y / z], axis=1)
        return y * lz - x, G, np.zeros((k, 3)), -1.0 / y, V

    def _into_dual(self, V):
        """w raised to -u exp(v/u - 1) where u < 0; the other rows projected."""
        Z = V.copy()
        neg = Z[:, 0] < 0
        with np.errstate(over="ignore"):
            need = -Z[neg, 0] * np.exp(Z[neg, 1] / Z[neg, 0] - 1.0)
        Z[neg, 2] = np.maximum(Z[neg, 2], need)
        if not neg.all():
            Z[~neg] = self._project_dual(Z[~neg])
        return Z

    def _contains(self, M, R):
        """y > 0, z > 0 and log y + x / y <= log z in arb; on the face y = 0 (exactly: mid and radius 0),
        x <= 0 and z >= 0."""
        face = (M[:, 1] == 0) & (R[:, 1] == 0)
        if face.any():
            Mf, Rf = M[face], R[face]
            if not (np.all(upper(Mf[:, 0], Rf[:, 0]) <= 0) and np.all(lower(Mf[:, 2], Rf[:, 2]) >= 0)):
                return False
            M, R = M[~face], R[~face]
        if not self.plausibly_contains(M):
            return False
        for x, y, z in arb_rows(M, R):
            if not (arb_lo(y) > 0 and arb_lo(z) > 0):
                return False
            if not arb_hi(y.log() + x / y - z.log()) <= 0:
                return False
        return True

    def _dual_contains(self, M, R):
        """u < 0, w > 0 and log(-u) + v / u - 1 <= log w in arb; on the face u = 0 (exactly), v >= 0 and w >= 0."""
        face = (M[:, 0] == 0) & (R[:, 0] == 0)
        if face.any():
            if not np.all(lower(M[face][:, 1:], R[face][:, 1:]) >= 0):
                return False
            M, R = M[~face], R[~face]
        for u, v, w in arb_rows(M, R):
            if not (arb_hi(u) < 0 and arb_lo(w) > 0):
                return False
            if not arb_hi((-u).log() + v / u - 1 - w.log()) <= 0:
                return False
        return True

    def _dual_nudge(self, V):
        """w raised to an arb upper bound of -u exp(v/u - 1); rows with u >= 0 (or whose bound overflows) clamped
        to the face u = 0, v, w >= 0."""
        arb = arb_module()
        V = V.copy()
        for p in V:
            if p[0] < 0:
                u = arb(float(p[0]))
                need = arb_hi((-u) * (arb(float(p[1])) / u - 1).exp())
                if np.isfinite(need):  # 1e-14 above the bound, so that the test's own rounding passes it
                    p[2] = max(p[2], need * (1 + 1e-14) + 1e-300)
                    continue
            p[0], p[1], p[2] = 0.0, max(p[1], 0.0), max(p[2], 0.0)
        return V
