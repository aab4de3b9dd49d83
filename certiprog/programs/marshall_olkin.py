"""The Marshall-Olkin (multivariate Chebyshev) worst-case probability of a polyhedron, as a convex QP.

For every distribution of z with mean ``mu`` and covariance ``Σ`` (positive definite)::

    sup_{Z in Ω(mu, Σ)} P(W z + b >= 0) = 1 / (1 + d^2),
    d^2 = min_z (z - mu)^T Σ^{-1} (z - mu)   s.t.  W z + b >= 0                 ('halfspaces')

(Marshall & Olkin 1960; paper 000's Theorem 1, and the bound paper 004's minimax probability machine rests on).
``W`` is (K, d) with ROWS ``w_k^T``. The objective is written ``sum_squares(L^{-1} (z - mu))`` with ``Σ = L L^T``
(Cholesky). Shared by the papers that use it (000's learners, 004's claims), so it lives in the core: a paper
never imports another paper. Derivation: ``docs/derivations/000.md`` (Sec. 1.2).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sps

from certiprog import validation as validate
from certiprog.errors import InputError
from certiprog.model import Model, Parameter, Record, Variable, minimize, sum_squares

__all__ = ["BackgroundRiskData", "BackgroundRiskSolution", "BackgroundRisksData", "BackgroundRisksSolution",
           "PD_RTOL", "background_risk", "background_risks", "positive_definite_factor", "set_halfspaces"]

#: Sigma counts as singular (Thm 1 needs its inverse) when its smallest eigenvalue is at most
#: ``PD_RTOL * d * max(1, max |Sigma_ij|)``: the one test behind `background_risk(s)` and Alg. 1 / 2's check of the
#: negatives' covariance (`khhm.check_background_covariance`)
PD_RTOL = 1e-10


def positive_definite_factor(Sigma: np.ndarray, what: str = "Sigma",
                             hint: str = "add a ridge, e.g. Sigma + 1e-6 * np.eye(d)") -> np.ndarray:
    """Lower Cholesky factor of a positive definite Sigma, or an InputError (``what`` is singular ..., ``hint``)."""
    d = Sigma.shape[0]
    scale = max(1.0, float(np.max(np.abs(Sigma))))
    lam_min = float(np.linalg.eigvalsh(Sigma)[0])
    msg = f"{what} is singular (smallest eigenvalue {lam_min:.3g}): Theorem 1 needs its inverse; {hint}"
    if lam_min <= PD_RTOL * scale * d:
        raise InputError(msg)
    try:
        return np.linalg.cholesky(Sigma)
    except np.linalg.LinAlgError as exc:
        raise InputError(msg) from exc


@dataclass(frozen=True, eq=False)
class BackgroundRiskSolution(Record):
    """Theorem 1 at a solution (`background_risk`'s ``model.derived(sol)``): ``d2`` (recomputed from ``z``),
    ``risk`` = 1/(1+d2), ``z_star``, ``slack`` (``W z + b``), ``active`` (rows with zero slack, relative tolerance
    1e-6) and ``lam`` (the multipliers of 'halfspaces'; None when the solver returned no duals)."""

    d2: float
    risk: float
    z_star: np.ndarray
    active: np.ndarray
    slack: np.ndarray
    lam: np.ndarray | None


@dataclass(frozen=True, eq=False)
class BackgroundRiskData:
    """The data of Theorem 1's QP (``model.data`` of `background_risk`): ``W`` (K, d), ``b`` (K,), ``mu``,
    ``Sigma`` and its inverse ``Sinv``."""

    W: np.ndarray
    b: np.ndarray
    mu: np.ndarray
    Sigma: np.ndarray
    Sinv: np.ndarray
    params: tuple = field(default=(), repr=False)  # the Parameters (W, b) `set_halfspaces` refills

    def derive(self, sol) -> BackgroundRiskSolution:
        zv = np.asarray(sol.value("z"), float).reshape(-1)
        r = zv - self.mu
        d2 = float(max(r @ self.Sinv @ r, 0.0))
        slack = self.W @ zv + self.b
        tol = 1e-6 * np.maximum(1.0, np.linalg.norm(self.W, axis=1) * max(1.0, np.linalg.norm(zv)))
        lam = np.asarray(sol.dual("halfspaces"), float).reshape(-1) if sol.z is not None else None
        return BackgroundRiskSolution(d2=d2, risk=float(1.0 / (1.0 + d2)), z_star=zv, active=slack <= tol,
                                      slack=slack, lam=lam)


def background_risk(W, mu, Sigma, b=None) -> Model:
    """000 Theorem 1: the QP for ``d^2`` and the worst-case background risk ``1 / (1 + d^2)``.

    ``W``: (K, d), row k = ``w_k^T`` (a 1-D (d,) array means K = 1); ``mu`` (d); ``Sigma`` (d x d, positive
    definite); ``b`` (K,) biases, default 0 (the paper's homogeneous cone ``W^T z >= 0``).

    Variable ``z`` (d). Objective ``sum_squares(L^{-1} (z - mu))`` with ``Sigma = L L^T`` (Cholesky).
    Constraint ``'halfspaces'``: ``W z + b >= 0``; its dual is the multiplier ``lambda >= 0`` of the
    correctly signed Lagrangian ``(z-mu)^T Σ^{-1} (z-mu) - lambda^T (W z + b)`` (000.md typo 2).

    ``W`` and ``b`` are Parameters: `set_halfspaces` moves the model to another region of the same K without
    compiling it again (eq. (25) scores many translated regions).

    ``model.data`` is a `BackgroundRiskData`, ``model.derived(sol)`` a `BackgroundRiskSolution`. An empty region
    (only possible with b != 0) makes the QP infeasible: the solve reports status ``infeasible`` (then d2 = inf and
    risk = 0; ``model.derived`` gives None).
    """
    Wa = W.toarray() if hasattr(W, "toarray") else W
    try:
        if np.ndim(Wa) == 1:  # one hyperplane
            Wa = np.reshape(np.asarray(Wa, dtype=float), (1, -1))
    except (TypeError, ValueError) as exc:
        raise InputError("W must be a numeric array (K hyperplanes x d features)") from exc
    Wm = validate.matrix(Wa, "W", min_rows=1)
    K, d = Wm.shape
    if d < 1:
        raise InputError("W has 0 columns; at least one feature is needed")
    mu = validate.vector(mu, "mu", size=d)
    Sigma = validate.covariance(Sigma, "Sigma", d)
    bb = np.zeros(K) if b is None else validate.vector(b, "b", size=K)
    L = positive_definite_factor(Sigma)
    Linv = sla.solve_triangular(L, np.eye(d), lower=True)

    z = Variable(d, "z")
    model = Model(minimize(sum_squares(Linv @ z - Linv @ mu)), name="background_risk")
    W_p, b_p = Parameter((K, d), "W", value=Wm), Parameter(K, "b", value=bb)
    model.add(W_p @ z + b_p >= 0.0, name="halfspaces")
    model.data = BackgroundRiskData(Wm, bb, mu, Sigma, Linv.T @ Linv, (W_p, b_p))
    return model


def set_halfspaces(model: Model, W, b=None) -> Model:
    """Move a `background_risk` model to the region ``W z + b >= 0`` (same K and d); the compiled structure is kept.
    Returns the model."""
    data = model.data
    if not isinstance(data, BackgroundRiskData) or len(data.params) != 2:
        raise InputError("set_halfspaces takes a model built by background_risk")
    K, d = data.W.shape
    Wm = validate.matrix(np.reshape(np.asarray(W, dtype=float), (-1, d)) if np.ndim(W) == 1 else W, "W", cols=d)
    if Wm.shape[0] != K:
        raise InputError(f"W has {Wm.shape[0]} rows; this model was built for K = {K}")
    bb = np.zeros(K) if b is None else validate.vector(b, "b", size=K)
    data.params[0].value = Wm
    data.params[1].value = bb
    model.data = replace(data, W=Wm, b=bb)
    return model


@dataclass(frozen=True, eq=False)
class BackgroundRisksSolution(Record):
    """Theorem 1 for n regions at once (`background_risks`' ``model.derived(sol)``): ``d2`` (n,) (recomputed from
    ``z_star``), ``risk`` (n,) = 1/(1+d2), ``z_star`` (n, d)."""

    d2: np.ndarray
    risk: np.ndarray
    z_star: np.ndarray


@dataclass(frozen=True, eq=False)
class BackgroundRisksData:
    """The data of `background_risks`: ``W`` (K, d), ``B`` (n, K), ``mu``, ``Sigma``, its factor ``L`` and ``Sinv``."""

    W: np.ndarray
    B: np.ndarray
    mu: np.ndarray
    Sigma: np.ndarray
    L: np.ndarray
    Sinv: np.ndarray

    def derive(self, sol) -> BackgroundRisksSolution:
        n, d = self.B.shape[0], self.mu.size
        U = np.asarray(sol.value("u"), float).reshape(n, d)
        Z = self.mu + U @ self.L.T
        R = Z - self.mu
        d2 = np.maximum(np.einsum("ij,jk,ik->i", R, self.Sinv, R), 0.0)
        return BackgroundRisksSolution(d2=d2, risk=1.0 / (1.0 + d2), z_star=Z)


def background_risks(W, B, mu, Sigma) -> Model:
    """Theorem 1's QP for n regions ``{z : W z + B[j] >= 0}`` sharing the normals ``W`` (K, d) (eq. (25) scores one
    translated region per positive), as ONE separable QP in ``z_j = mu + L u_j`` (``Sigma = L L^T``, Cholesky)::

        min sum_j ||u_j||^2   s.t.  W L u_j + W mu + B[j] >= 0,  j = 1..n        ('halfspaces', n*K rows)

    The blocks share no variable, so block j's optimum is region j's ``d^2`` (`background_risk`), and a certified
    interval [lo, hi] on the sum bounds each block: ``d2_j in [v_j - (V - lo), v_j]`` for block values v_j summing to
    V. ``model.data`` is a `BackgroundRisksData`, ``model.derived(sol)`` a `BackgroundRisksSolution`. Every region
    must be non-empty (an empty one makes the whole QP infeasible).
    """
    Wm = validate.matrix(W, "W", min_rows=1)
    K, d = Wm.shape
    Bm = validate.matrix(B, "B", min_rows=1, cols=K)
    n = Bm.shape[0]
    mu = validate.vector(mu, "mu", size=d)
    Sigma = validate.covariance(Sigma, "Sigma", d)
    L = positive_definite_factor(Sigma)
    Linv = sla.solve_triangular(L, np.eye(d), lower=True)
    u = Variable(n * d, "u")
    model = Model(minimize(sum_squares(u)), name="background_risks")
    G = sps.kron(sps.identity(n, format="csr"), sps.csr_matrix(Wm @ L), format="csr")
    model.add(G @ u + (Bm + Wm @ mu).reshape(-1) >= 0.0, name="halfspaces")
    model.data = BackgroundRisksData(Wm, Bm, mu, Sigma, L, Linv.T @ Linv)
    return model
