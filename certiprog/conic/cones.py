"""Cone descriptions and the numeric operations certificates need on them.

A `Cone` describes ``count`` consecutive copies of one cone of ``dim`` rows:
``zero`` (s = 0), ``nonneg`` (s >= 0), ``soc`` (s_0 >= ||s_1:||), ``psd``
(scaled upper triangle of an n x n PSD matrix, column-major, off-diagonals
times sqrt 2, as Clarabel and SCS use), ``pow`` (3-D power cone
x^a y^(1-a) >= |z|, x, y >= 0), ``exp`` and ``pownd``:

* ``exp``: the exponential cone in Clarabel's, SCS's and CVXPY's order,
  K_exp = closure{(x, y, z): y > 0, y exp(x / y) <= z}
        = {(x, y, z): y > 0, y exp(x/y) <= z} u {(x, 0, z): x <= 0, z >= 0};
  its dual K_exp* = {(u, v, w): u < 0, -u exp(v/u) <= e w} u {(0, v, w): v, w >= 0}.
  (MOSEK orders the same cone (z, y, x); its backend permutes.)
* ``pownd``: the n-dimensional power cone {(x, z) in R^n_+ x R: prod x_i^a_i >= |z|}
  with ``alpha`` = (a_1, ..., a_n), a_i > 0, sum a_i = 1 (Clarabel's GenPowerConeT
  with one z, CVXPY's PowConeND); dim = n + 1. Its dual is
  {(u, w): u >= 0, prod (u_i / a_i)^a_i >= |w|}.

All cones except ``zero``, ``pow``, ``exp`` and ``pownd`` are self-dual. Projections
onto the non-self-dual duals use Moreau's decomposition, Pi_K*(v) = v + Pi_K(-v).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

KINDS = ("zero", "nonneg", "soc", "psd", "pow", "exp", "pownd")


@dataclass(frozen=True)
class Cone:
    """``count`` cones of one ``kind`` (one of `KINDS`) and dimension ``dim`` each; ``alpha``: the power cones'
    exponents (one number or one per cone for ``'pow'``, a vector summing to 1 for ``'pownd'``)."""

    kind: str
    dim: int
    count: int = 1
    alpha: float | tuple | None = None

    def __post_init__(self):
        if self.kind == "pownd":
            object.__setattr__(self, "alpha", _nd_alpha(self.alpha, self.dim))
        if not isinstance(self.kind, str):
            raise InputError(f"Cone kind must be a string such as {KINDS}; got {self.kind!r}")
        for what in ("dim", "count"):
            v = getattr(self, what)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
                raise InputError(f"Cone {what} must be a nonnegative integer; got {v!r}")
        if self.kind == "pow":
            ok = isinstance(self.alpha, (float, int, np.floating)) and not isinstance(self.alpha, bool)
            if not (ok and 0 < self.alpha < 1) or self.dim != 3:
                raise InputError(f"a pow cone has dim 3 and 0 < alpha < 1; got dim={self.dim}, alpha={self.alpha!r}")
        if self.kind == "exp" and self.dim != 3:
            raise InputError(f"an exp cone has dim 3; got dim={self.dim}")
        if self.kind not in KINDS:
            raise InputError(f"unknown cone kind {self.kind!r}; kinds are {KINDS}")
        if self.kind == "psd" and self.side * (self.side + 1) // 2 != self.dim:
            raise InputError(f"a psd cone's dim must be n(n+1)/2; got {self.dim}")

    @property
    def rows(self) -> int:
        """Number of rows the cones take: ``dim * count``."""
        return self.dim * self.count

    @property
    def side(self) -> int:
        """Matrix side n of a psd cone (dim = n(n+1)/2)."""
        return int(round((np.sqrt(8 * self.dim + 1) - 1) / 2))

    @property
    def weights(self) -> tuple:
        """The exponents a_i of a power cone's ``prod x_i^a_i >= |z|``: (alpha, 1 - alpha) for pow, alpha for pownd."""
        return (self.alpha, 1 - self.alpha) if self.kind == "pow" else tuple(self.alpha)

    def to_json(self) -> dict:
        """A JSON-serialisable dict (kind, dim, count, alpha)."""
        alpha = list(self.alpha) if isinstance(self.alpha, tuple) else self.alpha
        return {"kind": self.kind, "dim": self.dim, "count": self.count, "alpha": alpha}


def _nd_alpha(alpha, dim) -> tuple:
    """The weights of a pownd cone as a tuple of floats, checked: dim - 1 >= 1 entries, positive, summing to 1."""
    try:
        a = np.asarray(alpha, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InputError(f"a pownd cone's alpha must be an array of positive weights summing to 1; "
                         f"got {alpha!r}") from None
    if a.size < 1 or a.size != dim - 1 or not np.all(np.isfinite(a)) or np.any(a <= 0) \
            or abs(a.sum() - 1.0) > 1e-12 * a.size:
        raise InputError(f"a pownd cone has dim n + 1 and n positive weights alpha summing to 1; got dim={dim}, "
                         f"alpha={alpha!r}")
    # Clarabel panics unless the weights' float sum is 1 within n eps / 2: rescale, and put the rounding into the
    # largest weight so that summing in order gives 1 (the cone changes by O(eps) at most)
    a = a / math.fsum(a)
    k = int(np.argmax(a))
    a[k] = 0.0
    a[k] = 1.0 - math.fsum(a)
    return tuple(float(t) for t in a)


def smat(v: np.ndarray, n: int) -> np.ndarray:
    """Inverse of svec: symmetric matrix from the scaled upper triangle (column-major)."""
    M = np.zeros((n, n))
    k = 0
    for j in range(n):
        for i in range(j + 1):
            M[i, j] = M[j, i] = v[k] if i == j else v[k] / np.sqrt(2.0)
            k += 1
    return M


def svec(M: np.ndarray) -> np.ndarray:
    n = M.shape[0]
    out = []
    for j in range(n):
        for i in range(j + 1):
            out.append(M[i, j] if i == j else np.sqrt(2.0) * (M[i, j] + M[j, i]) / 2)
    return np.array(out)


def _soc_project(v: np.ndarray) -> np.ndarray:
    t, x = v[0], v[1:]
    nx = np.linalg.norm(x)
    if nx <= t:
        return v.copy()
    if nx <= -t:
        return np.zeros_like(v)
    a = (t + nx) / 2
    return np.concatenate([[a], a * x / nx])


_BIG = 1e300


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
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = np.where(r > 0, 1.0 - s / np.where(r > 0, r, 1.0), -np.inf)
        hi = np.where(s > 0, r / np.where(s > 0, s, 1.0), np.inf)
    return lo, hi


def _bisect(lo: np.ndarray, hi: np.ndarray, root_above) -> tuple:
    """Vectorised bisection of the brackets [lo, hi] down to adjacent floats (200 halvings at most): each step keeps
    the upper half where ``root_above(mid)`` is True, the lower half elsewhere. Returns the final (lo, hi)."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.all((mid == lo) | (mid == hi)):
            break
        up = root_above(mid)
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
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
        lo, hi = _bisect(lo, hi, lambda mid: _exp_h(W, mid) < 0)
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
    return vp, vd


def _pownd_project(V: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Euclidean projection of the rows (x, z) of V (k x (n+1)) onto {x >= 0, prod x_i^a_i >= |z|}.

    Off the cone and its polar the projection is (x(r), sign(z0) r) with
    x_i(r) = (x0_i + sqrt(x0_i^2 + 4 a_i r (|z0| - r))) / 2 and r in (0, |z0|) the root of
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
            xr = 0.5 * (X0 + np.sqrt(X0 * X0 + 4 * a * (r * (Z0 - r))[:, None]))
            with np.errstate(divide="ignore"):
                return np.exp(np.log(np.maximum(xr, 0.0)) @ a) - r, xr

        lo, hi = _bisect(lo, hi, lambda mid: phi(mid)[0] > 0)
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


def _in_pownd(V: np.ndarray, alpha) -> np.ndarray:
    a = np.asarray(alpha, float)
    with np.errstate(divide="ignore"):
        return np.all(V[:, :-1] >= 0, axis=1) & (np.exp(np.log(np.maximum(V[:, :-1], 0.0)) @ a) >= np.abs(V[:, -1]))


def project(cone: Cone, s: np.ndarray, dual: bool = False) -> np.ndarray:
    """Euclidean projection of s (all rows of the block) onto the cone, or onto its dual."""
    s = np.asarray(s, dtype=float)
    kind = cone.kind
    if kind == "zero":
        return s.copy() if dual else np.zeros_like(s)
    if kind == "nonneg":
        return np.maximum(s, 0.0)
    parts = s.reshape(cone.count, cone.dim)
    if kind == "soc":
        return np.concatenate([_soc_project(p) for p in parts])
    if kind == "psd":
        n = cone.side
        out = []
        for p in parts:
            w, V = np.linalg.eigh(smat(p, n))
            out.append(svec((V * np.maximum(w, 0)) @ V.T))
        return np.concatenate(out)
    if kind == "exp":
        if dual:  # Pi_K*(v) = -Pi_K°(-v)
            return -_exp_project(-parts)[1].reshape(-1)
        return _exp_project(parts)[0].reshape(-1)
    if kind in ("pow", "pownd"):
        a = np.array(cone.weights)
        if dual:  # Moreau: Pi_K*(v) = v + Pi_K(-v)
            return (parts + _pownd_project(-parts, a)).reshape(-1)
        return _pownd_project(parts, a).reshape(-1)
    raise InputError(f"unknown cone kind {kind!r}")


def distance_to_cone(cone: Cone, s: np.ndarray, dual: bool = False) -> float:
    """Euclidean distance from the block ``s`` to the cone (or its dual)."""
    s = np.asarray(s, dtype=float).reshape(-1)
    if s.size == 0:
        return 0.0
    return float(np.linalg.norm(s - project(cone, s, dual=dual)))
