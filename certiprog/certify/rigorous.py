"""Vectorised ball arithmetic in floating point with proved error bounds (no multiprecision per entry).

A `Ball` is a pair of float arrays (mid, rad), rad >= 0, standing for the exact real values
``[mid - rad, mid + rad]``. Every operation computes the new midpoint in ordinary floating point and a
radius that provably covers (a) the radii of the inputs and (b) every rounding error made, using the
standard a-priori bounds for round-to-nearest arithmetic (u = 2^-53, gamma_k = k u / (1 - k u)):

* a sum or product: ``|fl(a op b) - a op b| <= u |fl(a op b)|``;
* a k-term inner product, in any order and with or without FMA: ``|fl(a'b) - a'b| <= gamma_k |a|'|b|``.

Radii are themselves computed in floating point, so each radius is multiplied by a safety factor
``1 + 4(k + 4) u`` that exceeds the relative error of that (nonnegative) computation, and ``_ETA`` (far
above the underflow unit) is added against underflow. `lo` / `hi` round outward by one ulp. This is
how the optimality interval (`interval`, `lower_end`, `upper_end`) evaluates Lagrangians, residuals and cone
memberships over thousands of rows at numpy speed; arb (python-flint) is used only for small dense solves and
per-cone nonlinear tests.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

U = 2.0 ** -53
_ETA = 1e-290  # >> 2^-1074 per operation; values this small never matter to a certificate


def gamma(k: int) -> float:
    k = max(int(k), 1)
    return k * U / (1 - k * U)


def _safe(r, k: int = 1):
    """A radius computed in floating point, made an upper bound of its exact value."""
    return np.asarray(r, float) * (1 + 4 * (k + 4) * U) + _ETA


class Ball:
    """Exact values in [mid - rad, mid + rad], elementwise (numpy arrays or 0-d)."""

    __slots__ = ("mid", "rad")

    def __init__(self, mid, rad=None):
        self.mid = np.asarray(mid, float)
        if rad is None:
            self.rad = np.zeros_like(self.mid)
        else:  # an own copy; broadcast only when the shapes differ (np.broadcast_to costs ~10 us a call)
            rad = np.asarray(rad, float)
            self.rad = rad.copy() if rad.shape == self.mid.shape else np.broadcast_to(rad, self.mid.shape).copy()

    # ------------------------------------------------------------------ basics
    @staticmethod
    def of(v) -> "Ball":
        return v if isinstance(v, Ball) else Ball(v)

    def __len__(self):
        return len(self.mid)

    def __getitem__(self, idx) -> "Ball":
        return Ball(self.mid[idx], self.rad[idx])

    def lo(self):
        """Lower ends, rounded down (a float or an array)."""
        v = np.nextafter(self.mid - self.rad, -np.inf)
        v = np.where(np.isnan(v), -np.inf, v)
        return float(v) if v.ndim == 0 else v

    def hi(self):
        v = np.nextafter(self.mid + self.rad, np.inf)
        v = np.where(np.isnan(v), np.inf, v)
        return float(v) if v.ndim == 0 else v

    def absmax(self):
        """Upper bound of |exact value|."""
        v = np.nextafter(np.abs(self.mid) + self.rad, np.inf)
        return float(v) if v.ndim == 0 else v

    def __neg__(self) -> "Ball":
        return Ball(-self.mid, self.rad)

    def __add__(self, other) -> "Ball":
        o = Ball.of(other)
        m = self.mid + o.mid
        return Ball(m, _safe(self.rad + o.rad + U * np.abs(m), 2))

    __radd__ = __add__

    def __sub__(self, other) -> "Ball":
        return self + (-Ball.of(other))

    def __rsub__(self, other) -> "Ball":
        return Ball.of(other) + (-self)

    def __mul__(self, other) -> "Ball":
        o = Ball.of(other)
        m = self.mid * o.mid
        r = np.abs(self.mid) * o.rad + self.rad * np.abs(o.mid) + self.rad * o.rad + U * np.abs(m)
        return Ball(m, _safe(r, 4))

    __rmul__ = __mul__

    def sqr(self) -> "Ball":
        """Elementwise square (tighter than self * self: the result is >= 0)."""
        a = np.abs(self.mid)
        lo = np.maximum(a - self.rad, 0.0)
        hi = a + self.rad
        m = 0.5 * (lo * lo + hi * hi)
        return Ball(m, _safe(0.5 * (hi * hi - lo * lo) + 12 * U * m, 4))

    def sum(self, axis=None) -> "Ball":
        k = self.mid.size if axis is None else self.mid.shape[axis]
        m = np.sum(self.mid, axis=axis)
        r = np.sum(self.rad, axis=axis) + gamma(k + 1) * np.sum(np.abs(self.mid), axis=axis) + U * np.abs(m)
        return Ball(m, _safe(r, k))

    @staticmethod
    def recip(d) -> "Ball":
        """1 / d for exact nonzero floats d."""
        m = 1.0 / np.asarray(d, float)
        return Ball(m, _safe(U * np.abs(m)))

    def dot(self, other) -> "Ball":
        return (self * Ball.of(other)).sum()

    def norm_hi(self) -> float:
        """Upper bound of the exact Euclidean norm."""
        a = self.absmax()
        s = float(np.sum(np.asarray(a) ** 2)) * (1 + 4 * (np.size(a) + 4) * U) + _ETA
        return float(np.nextafter(np.sqrt(s), np.inf) * (1 + 4 * U))


def matvec(A, v, transpose: bool = False, abs_A=None, product=None) -> Ball:
    """Ball enclosure of ``A @ v`` (or ``A.T @ v``) for a sparse or dense float matrix A and a Ball/array v.

    For a sparse A, what the caller already has is not formed again: ``abs_A`` (``|A|``, as A is stored; its
    transpose is read for ``transpose``) and, without transpose, ``product`` (the float product ``A @ v.mid``, the
    enclosure's midpoint)."""
    v = Ball.of(v)
    if sp.issparse(A):  # CSR or CSC used as they come (a transpose is a view): no conversion of a large A
        M = A.T if transpose else A
        if M.format not in ("csr", "csc"):
            M = sp.csr_matrix(M)
        if not (M.shape[0] and M.nnz):
            rows = np.ones(M.shape[0])
        elif M.format == "csr":
            rows = np.diff(M.indptr).astype(float)
        else:  # terms per row of a CSC matrix (duplicates counted: each only has to be an upper bound)
            rows = np.bincount(M.indices, minlength=M.shape[0]).astype(float)
        k = int(rows.max(initial=1))
        given = not transpose and M is A
        if abs_A is not None and abs_A.shape == A.shape:
            aM = abs_A.T if transpose else abs_A
        else:
            aM = abs(M)
        # row i's inner product has rows[i] terms: |fl - exact| <= gamma_{rows[i]+1} |a_i|'|v| (a short row of a
        # matrix that also holds long ones keeps its own, tight error bound)
        kk = rows + 1
        g = kk * U / (1 - kk * U)
        m = product if product is not None and given else M @ v.mid
        # an exact point (radius 0: the usual case) needs no pass of |M| over its radius
        r = g * (aM @ np.abs(v.mid)) + (aM @ v.rad if v.rad.any() else 0.0) + U * np.abs(m)
        return Ball(np.asarray(m, float).reshape(-1), _safe(np.asarray(r, float).reshape(-1), k + 2))
    M = np.asarray(A, float)
    M = M.T if transpose else M
    k = M.shape[1] if M.ndim == 2 else 1
    aM = np.abs(M)
    m = M @ v.mid
    r = aM @ (gamma(k + 1) * np.abs(v.mid) + v.rad) + U * np.abs(m)
    return Ball(np.asarray(m, float).reshape(-1), _safe(np.asarray(r, float).reshape(-1), k))


def quad(P, x) -> Ball:
    """Ball enclosure of ``x' P x``."""
    x = Ball.of(x)
    return x.dot(matvec(P, x))


def solve(M, rhs) -> Ball:
    """Ball containing the exact solution of ``M y = rhs`` for every right-hand side in the Ball ``rhs``.

    M: a square float matrix (dense, exact entries). Floating-point LU gives y0 and an approximate
    inverse X; with ``G = I - X M`` enclosed rigorously and ``||G||_inf < 1``, the exact solution
    satisfies ``||y - y0||_inf <= ||X r||_inf / (1 - ||G||_inf)`` where r = rhs - M y0 (a Neumann-series
    bound). Raises ValueError when M is singular or too ill-conditioned to prove anything.
    """
    import scipy.linalg as sla

    M = np.asarray(M, float)
    rhs = Ball.of(rhs)
    k = M.shape[0]
    if k == 0:
        return Ball(np.zeros(0))
    try:
        lu = sla.lu_factor(M, check_finite=True)
        X = sla.lu_solve(lu, np.eye(k))
    except (ValueError, np.linalg.LinAlgError) as exc:
        raise ValueError(f"singular matrix: {exc}") from exc
    if not np.all(np.isfinite(X)):
        raise ValueError("singular matrix")
    y0 = X @ rhs.mid
    y0 = y0 + sla.lu_solve(lu, rhs.mid - M @ y0)  # one refinement step (floating point; not relied on)
    r = rhs - matvec(M, y0)  # Ball of the exact residual
    XM = X @ M
    g = gamma(k + 1)
    G_abs = np.abs(np.eye(k) - XM) + g * (np.abs(X) @ np.abs(M))
    G_abs = _safe(G_abs, 2 * k)
    gnorm = float(np.max(G_abs.sum(axis=1))) * (1 + 4 * (k + 4) * U)
    if not gnorm < 1:
        raise ValueError(f"matrix too ill-conditioned to verify a solve (||I - XM|| = {gnorm:.3g})")
    Xr = matvec(X, r)
    bound = float(np.max(Xr.absmax())) / (1 - gnorm)
    bound = float(np.nextafter(bound * (1 + 8 * U), np.inf))
    return Ball(y0, np.full(k, bound))
