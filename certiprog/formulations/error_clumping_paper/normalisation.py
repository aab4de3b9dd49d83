"""Readings of Theta's off-diagonal (paper 003, Sec. 2): ``Theta = I - (eta / den) W``, their PSD ranges, proved.

The paper prints ``theta_ij = -eta/(m-1)`` for j in N_i. With that scale the discount can remove at most a fraction
``eta d_max/(m-1)`` of the penalty (below), a few per cent on MNIST, and Table 1's trade is out of reach (issue 24,
claim 003-T1). So the off-diagonal may have been meant per neighbourhood. Each reading is ``B = (eta/den) W`` with W
symmetric, nonnegative, zero diagonal (A the 0/1 rho-graph, d_i = |N_i| its degrees):

==============  ==============================================  ==========  ===============================
``normalisation``  off-diagonal theta_ij (j in N_i)             den         W_ij (j in N_i)
==============  ==============================================  ==========  ===============================
'printed'       -eta/(m-1)       (the paper's text; default)    m - 1       1
'dmax'          -eta/d_max                                      d_max       1
'symmetric'     -eta/sqrt(|N_i| |N_j|)                          1           1/sqrt(d_i d_j)
'max'           -eta/max(|N_i|, |N_j|)                          1           1/max(d_i, d_j)
'row'           -eta/|N_i| (literal; not symmetric, so the      1           (1/d_i + 1/d_j)/2
                quadratic form is that of its symmetric part)
==============  ==============================================  ==========  ===============================

**PSD, proved** (derivation: docs/derivations/003.md §1.4). For a symmetric nonnegative matrix
``lambda_max = rho`` (spectral radius), and ``0 <= P <= Q`` entrywise gives ``rho(P) <= rho(Q)`` (Perron-Frobenius).
Since ``m - 1 >= d_max >= max(d_i, d_j) >= sqrt(d_i d_j)``, entrywise
``A/(m-1) <= A/d_max <= W_max <= W_symmetric``, and ``W_symmetric sqrt(d) = sqrt(d)`` with the Collatz-Wielandt
bound ``rho(W) <= max_i (W v)_i / v_i`` (any v > 0; v = sqrt(d), 1 on isolated points) gives ``rho(W_symmetric) <= 1``.
Hence for 'printed', 'dmax', 'max' and 'symmetric' ``Theta >= (1 - eta) I >= 0`` for **every** graph when
``eta in [0, 1]``; the range is sharp (the complete graph for 'printed' and 'dmax', any graph with an edge for
'symmetric': ``lambda_max(W) = 1``, so Theta is indefinite for every eta > 1). For 'row' the AM-GM inequality gives
``W_row >= W_symmetric``: ``lambda_max(W_row) >= 1``, with equality only for regular components (a star K_{1,k}:
``(sqrt(k) + 1/sqrt(k))/2``), so its PSD range ``eta <= 1 / lambda_max(W_row)`` depends on the graph; it is checked on
the given graph by the rigorous upper bound below and refused (InputError) when PSD cannot be proved.

**The limit of any discount.** For every xi, ``xi' Theta xi = ||xi||^2 - (eta/den) xi' W xi >= (1 - lambda_max(B))
||xi||^2`` with ``lambda_max(B) = eta rho(W)/den``: the discount is at most the fraction lambda_max(B) of the
penalty ``||xi||^2``, and that fraction is reached (xi the Perron vector of W, which is >= 0, so a feasible slack
pattern). `Normalised.rho_hi` is a rigorous upper bound of ``rho(W)/den`` (Collatz-Wielandt in ball arithmetic,
covering the rounding of W's stored entries: ``|W_exact - W| <= rel_err W`` entrywise), so
``Normalised.max_discount(eta) = eta rho_hi`` bounds lambda_max(B) from above and ``1 - eta rho_hi`` bounds
lambda_min(Theta) from below (used by the certificate of `solver.certify_error_clumping`). The same v makes the
projected Jacobi map of the solver's inner problem a contraction of factor ``eta rho_hi`` in the norm
``max_i |x_i| / v_i``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from certiprog import validation as validate
from certiprog.certify.rigorous import Ball, U, gamma
from certiprog.errors import InputError

__all__ = ["NORMALISATIONS", "ALWAYS_PSD", "Normalised", "normalise", "check_normalisation"]

NORMALISATIONS = ("printed", "dmax", "symmetric", "max", "row")
#: the readings whose Theta is PSD for every graph exactly when eta in [0, 1]
ALWAYS_PSD = ("printed", "dmax", "symmetric", "max")
_POWER_STEPS = 30  # power iterations refining the Collatz-Wielandt vector of 'row'


def check_normalisation(normalisation) -> str:
    """The reading's name, or InputError naming the choices."""
    if not isinstance(normalisation, str) or normalisation not in NORMALISATIONS:
        raise InputError(f"normalisation must be one of {NORMALISATIONS} (Theta's off-diagonal -eta/(m-1) as printed, "
                         f"-eta/d_max, -eta/sqrt(|N_i||N_j|), -eta/max(|N_i|,|N_j|), -eta/|N_i|); got {normalisation!r}")
    return normalisation


def _enclose(W: sp.csr_matrix, v: np.ndarray, rel_err: float, k: int) -> Ball:
    """Ball of ``W_exact v`` for nonnegative W (stored entries within rel_err of the exact ones) and exact v >= 0."""
    mid = np.asarray(W @ v, float)
    rad = (gamma(k + 1) + rel_err * (1 + gamma(k + 1))) * mid + U * mid
    return Ball(mid, rad * (1 + 4 * (k + 4) * U) + 1e-290)


@dataclass(frozen=True, eq=False)
class Normalised:
    """One reading of Theta on one graph: ``B = (eta/den) W`` (module docstring).

    ``normalisation``, ``A`` (0/1 graph), ``W`` (CSR: A itself for 'printed' and 'dmax'), ``den`` (exact integer
    as float), ``rel_err`` (entrywise relative bound of W's rounding; 0 when W = A), ``v`` (> 0, the
    Collatz-Wielandt vector), ``rho_hi`` (rigorous upper bound of rho(W_exact)/den), ``degree`` (d_i), ``d_max``,
    ``cw`` (max_i (W v)_i / v_i in floating point: eta cw / den is the solver's Jacobi contraction factor).
    """

    normalisation: str
    A: sp.csr_matrix
    W: sp.csr_matrix
    den: float
    rel_err: float
    v: np.ndarray
    rho_hi: float
    degree: np.ndarray
    d_max: int
    cw: float = 0.0

    @property
    def m(self) -> int:
        return int(self.A.shape[0])

    def coef(self, eta: float) -> float:
        """eta/den (float): B = coef W."""
        return eta / self.den if self.den != 1.0 else eta

    def max_discount(self, eta: float) -> float:
        """Upper bound of lambda_max(B) (rigorous): xi' Theta xi >= (1 - max_discount) ||xi||^2 for all xi."""
        return float(np.nextafter(eta * self.rho_hi, np.inf)) if eta > 0 else 0.0

    def contraction(self, eta: float) -> float:
        """eta cw/den: the factor of the projected Jacobi map xi -> max(h, B xi) in the norm max_i |x_i|/v_i."""
        return self.coef(eta) * self.cw

    def mu_lower(self, eta: float) -> float:
        """Lower bound of lambda_min(Theta) (rigorous)."""
        if self.rel_err == 0.0 and np.all(self.v == 1.0):  # W = A, v = 1: the row maximum d_max is exact
            return float((Ball(1.0) - Ball(eta) * Ball.recip(self.den) * Ball(float(self.d_max))).lo())
        return float((Ball(1.0) - Ball(eta) * Ball(self.rho_hi)).lo())

    def theta(self, eta: float) -> sp.csr_matrix:
        """Theta = I - (eta/den) W (CSR)."""
        return (sp.identity(self.m, format="csr") - self.coef(eta) * self.W).tocsr()

    def apply(self, x: np.ndarray, eta: float) -> np.ndarray:
        """B x = (eta/den) (W x), floating point."""
        return self.coef(eta) * (self.W @ x)

    def enclose(self, xi: np.ndarray, eta: float) -> Ball:
        """Ball of ``B_exact xi`` (xi exact floats), the certificate's product."""
        k = max(self.d_max, 1)
        absxi = np.abs(xi)
        mid = np.asarray(self.W @ xi, float)
        rad = np.asarray(self.W @ (gamma(k + 1) * absxi), float) + U * np.abs(mid)
        if self.rel_err:
            rad = rad + self.rel_err * (1 + gamma(k + 1)) * np.asarray(self.W @ absxi, float)
        Wxi = Ball(mid, rad * (1 + 4 * (k + 4) * U) + 1e-290)
        c = Ball(eta) * Ball.recip(self.den) if self.den != 1.0 else Ball(eta)
        return Wxi * Ball(np.full(self.m, float(c.mid)), np.full(self.m, float(c.rad)))


def _weights(A: sp.csr_matrix, d: np.ndarray, normalisation: str) -> tuple[sp.csr_matrix, float]:
    """W and the relative rounding bound of its entries (each computed by at most 4 correctly rounded ops)."""
    if normalisation in ("printed", "dmax"):
        return A, 0.0
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    di, dj = d[rows], d[A.indices]
    if normalisation == "symmetric":
        vals = 1.0 / np.sqrt(di * dj)  # d_i d_j exact (< 2^53), sqrt and division: 2 roundings
    elif normalisation == "max":
        vals = 1.0 / np.maximum(di, dj)  # one rounding
    else:  # 'row': (1/d_i + 1/d_j)/2, three roundings (the halving is exact)
        vals = 0.5 * (1.0 / di + 1.0 / dj)
    W = sp.csr_matrix((vals, A.indices.copy(), A.indptr.copy()), shape=A.shape)
    return W, 8 * U


def _cw_hi(W: sp.csr_matrix, v: np.ndarray, rel_err: float, den: float, k: int) -> float:
    """Rigorous upper bound of max_i (W_exact v)_i / v_i / den (Collatz-Wielandt: >= rho(W_exact)/den)."""
    if W.nnz == 0:
        return 0.0
    ratio = _enclose(W, v, rel_err, k) * Ball.recip(v)
    top = float(np.max(ratio.hi()))
    return float((Ball(top) * Ball.recip(den)).hi()) if den != 1.0 else top


def normalise(A: sp.csr_matrix, normalisation: str = "printed") -> Normalised:
    """The reading ``normalisation`` of Theta on the 0/1 graph A (checked by the caller), with its rigorous
    spectral bound (module docstring)."""
    normalisation = check_normalisation(normalisation)
    m = A.shape[0]
    d = np.diff(A.indptr).astype(float)
    d_max = int(d.max()) if m else 0
    W, rel = _weights(A, d, normalisation)
    den = {"printed": float(max(m - 1, 1)), "dmax": float(max(d_max, 1))}.get(normalisation, 1.0)
    k = max(d_max, 1)
    ones = np.ones(m)
    if normalisation in ("printed", "dmax", "max"):
        v = ones
    else:
        v = np.where(d > 0, np.sqrt(d), 1.0)
    rho_hi = _cw_hi(W, v, rel, den, k)
    if normalisation == "row" and W.nnz:  # refine v towards the Perron vector; keep the best rigorous bound
        x = v / v.max()
        for _ in range(_POWER_STEPS):
            x = W @ x + 1e-12 * x.max()
            x = np.maximum(x / x.max(), 1e-300)
        for cand in (x, ones):
            b = _cw_hi(W, cand, rel, den, k)
            if b < rho_hi:
                rho_hi, v = b, cand
    cw = float(np.max((W @ v) / v)) if W.nnz else 0.0
    return Normalised(normalisation, A, W, den, rel, v, rho_hi, d, d_max, cw)


def check_eta(eta, G: Normalised) -> float:
    """eta as a float, or InputError: eta in [0, 1] for every reading, and for 'row' also eta rho_hi <= 1 (PSD
    proved on this graph)."""
    v = validate.scalar(eta, "eta (the discount, a number in [0, 1])")
    if not (0.0 <= v <= 1.0):
        raise InputError(
            f"eta must lie in [0, 1]; got {eta!r}. Theta = I - eta B is PSD for every neighbourhood graph only when "
            "eta <= 1 (doc 003 §1.1 and §1.4); for eta > 1 it is indefinite (complete graph; for "
            "normalisation='symmetric' any graph with an edge) and eq. (1) is not convex")
    if v > 0 and G.normalisation not in ALWAYS_PSD and v * G.rho_hi > 1.0:
        raise InputError(
            f"normalisation={G.normalisation!r}: Theta = I - eta (D^-1 A + A D^-1)/2 is PSD only for eta <= "
            f"1/lambda_max, and on this graph lambda_max <= {G.rho_hi:.6g} could not be shown below 1/eta = "
            f"{1 / v:.6g} (it is >= 1 on every graph, > 1 unless every component is regular): eq. (1) may not be "
            f"convex. Use eta <= {1 / G.rho_hi:.6g} or normalisation='symmetric' / 'dmax'")
    return v
