"""A rigorous duality gap for eq. (1) at any point (w, xi), in O(nnz(Theta) + m n) and without Theta^{-1}.

Upper end: the primal objective lam/2 ||w||^2 + xi_hat' Theta xi_hat / (2m) at the repaired point
xi_hat = max(xi, g(w), 0), g_i(w) = 1 - y_i <w, x_i> (the margin enclosed in ball arithmetic, so xi_hat is feasible
for the exact data).

Lower end (weak duality; doc 003 §1.2 re-derived without the inverse): for every alpha, beta >= 0 and every xi_hat,
with s = alpha + beta and r = s - Theta xi_hat / m,

    inf_{w, xi} L(w, xi, alpha, beta) >= sum alpha - ||X'(y o alpha)||^2 / (2 lam) - xi_hat' Theta xi_hat / (2m)
                                          - r' xi_hat - m ||r||^2 / (2 mu),

where mu > 0 is a lower bound of lambda_min(Theta) (Gershgorin: 1 - eta/(m-1) max_i d_i, proved in ball arithmetic).
Proof: the w-part is minimised at w = X'(y o alpha)/lam; in the xi-part put xi = xi_hat + delta: it equals
-xi_hat'Theta xi_hat/(2m) - r'xi_hat + delta'Theta delta/(2m) - r'delta >= ... - m||r||^2/(2 mu). When r = 0 the last
term vanishes whatever mu (also for a singular Theta at eta = 1). The multipliers are read off the point: s =
max(Theta xi_hat/m, 0) (KKT: s = Theta xi*/m >= 0), alpha = t s on the points whose margin constraint is active
(g_i > 0) and 0 elsewhere, beta = s - alpha (so r = max(-Theta xi_hat/m, 0)), t in [0, 1] the best scaling of alpha.
At the optimum the bound is tight; away from it, it is honest (wide).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp

from certiprog.certificates.rigorous import Ball, matvec

__all__ = ["DualityGap", "certified_gap", "float_gap", "theta_min_eig_lower"]


@dataclass(frozen=True)
class DualityGap:
    """A rigorous bracket ``lower <= optimum of eq. (1) <= upper`` (both rounded outward).

    ``objective``: the primal value (floating point) at the repaired point; ``gap = upper - lower``; ``rel_gap`` =
    gap / max(|lower|, tiny); ``verdict``: ``'certified'`` (both ends finite and rel_gap <= ``tol``), ``'bounded'``
    (finite but wider), ``'failed'`` (an end is infinite, e.g. r != 0 with Theta not provably PD).
    """

    lower: float
    upper: float
    objective: float
    gap: float
    rel_gap: float
    verdict: str
    tol: float

    def to_json(self) -> dict:
        return {k: float(v) if isinstance(v, (float, np.floating)) else v for k, v in asdict(self).items()}


def theta_min_eig_lower(A: sp.csr_matrix, eta: float) -> float:
    """A proved lower bound of lambda_min(Theta), Theta = I - eta/(m-1) A (Gershgorin on the float matrix)."""
    m = A.shape[0]
    if m < 2 or A.nnz == 0 or eta == 0.0:
        return 1.0
    coef = Ball(eta) * Ball.recip(m - 1)
    dmax = float(np.max(np.diff(sp.csr_matrix(A).indptr)))
    return float((1.0 - coef * dmax).lo())


def _multipliers(Theta, xi_hat, g, Z, lam, m):
    """(alpha, beta) >= 0 read off the point (module docstring)."""
    s = np.maximum(Theta @ xi_hat / m, 0.0)
    alpha0 = np.where(g > 0, s, 0.0)
    v = Z.T @ alpha0
    vv = float(v @ v)
    t = 1.0 if vv == 0 else min(1.0, lam * float(alpha0.sum()) / vv)
    alpha = t * alpha0
    beta = np.maximum(s - alpha, 0.0)
    return alpha, beta


def float_gap(X, y, A, Theta, eta, lam, w, xi) -> tuple[float, float]:
    """(primal, dual) in floating point (the same formulas as `certified_gap`; cheap, for per-pass histories)."""
    m = X.shape[0]
    Z = X * y[:, None]
    g = 1.0 - Z @ w
    xi_hat = np.maximum(np.maximum(xi, g), 0.0)
    Tx = Theta @ xi_hat
    q = float(xi_hat @ Tx) / (2 * m)
    primal = 0.5 * lam * float(w @ w) + q
    alpha, beta = _multipliers(Theta, xi_hat, g, Z, lam, m)
    r = alpha + beta - Tx / m
    v = Z.T @ alpha
    mu = theta_min_eig_lower(A, eta)
    rr = float(r @ r)
    corr = 0.0 if rr == 0 else (m * rr / (2 * mu) if mu > 0 else np.inf)
    dual = float(alpha.sum()) - float(v @ v) / (2 * lam) - q - float(r @ xi_hat) - corr
    return primal, dual


def certified_gap(X, y, A, Theta, eta, lam, w, xi, tol: float = 1e-6) -> DualityGap:
    """The rigorous bracket of eq. (1)'s optimum from the point (w, xi) (module docstring).

    ``X`` (m, n), ``y`` in {+1, -1}, ``A`` the neighbourhood graph, ``Theta = I - eta/(m-1) A`` (sparse), ``lam``,
    ``w`` (n,), ``xi`` (m,) (any values: xi is repaired to feasibility). Ball arithmetic throughout
    (`certiprog.certificates.rigorous`); the data (X, y, Theta, lam) are taken as exact floats.
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    w = np.asarray(w, float)
    xi = np.asarray(xi, float)
    m = X.shape[0]
    Z = X * y[:, None]  # y = +-1: exact
    # ---- upper end: primal at a feasible point
    gB = 1.0 - matvec(Z, w)
    xi_hat = np.maximum(np.maximum(xi, gB.hi()), 0.0)
    TxB = matvec(Theta, xi_hat)
    qB = Ball(xi_hat).dot(TxB) * Ball.recip(2 * m)
    wB = Ball(w)
    primalB = Ball(0.5 * lam) * wB.dot(wB) + qB
    upper = primalB.hi()
    # ---- lower end: weak duality with multipliers read off the point
    alpha, beta = _multipliers(Theta, xi_hat, gB.mid, Z, lam, m)
    rB = Ball(alpha) + Ball(beta) - TxB * Ball.recip(m)
    vB = matvec(Z, alpha, transpose=True)
    mu = theta_min_eig_lower(A, eta)
    dualB = Ball(alpha).sum() - vB.dot(vB) * Ball.recip(2 * lam) - qB - rB.dot(xi_hat)
    lower = dualB.lo()
    rr_hi = rB.norm_hi() ** 2
    if rr_hi > 0:
        lower = float((Ball(lower) - Ball(m * rr_hi) * Ball.recip(2 * mu)).lo()) if mu > 0 else -np.inf
    objective = float(primalB.mid)
    gap = float(np.nextafter(upper - lower, np.inf)) if np.isfinite(lower) else np.inf
    rel = gap / max(abs(lower), 1e-300) if np.isfinite(gap) else np.inf
    verdict = "failed" if not (np.isfinite(lower) and np.isfinite(upper)) else (
        "certified" if rel <= tol else "bounded")
    return DualityGap(float(lower), float(upper), objective, gap, float(rel), verdict, float(tol))

