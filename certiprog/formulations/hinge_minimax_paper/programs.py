"""Paper 000 — Hinge-Minimax Learner for the Ensemble of Hyperplanes (Osadchy, Hazan, Keren).

Derivation and checks: ``docs/derivations/000.md`` (Sec. 1.1 and 1.2).

Single-hyperplane hinge-minimax, eq. (8), with ``gamma = sqrt((1 - delta) / delta)``::

    min_w  lam ||w||^2 + sum_i max{0, 1 - w^T x_i}
    s.t.   gamma ||Σ^{1/2} w|| + w^T mu <= 0                                   ('chebyshev')

The constraint is equivalent to the worst-case (Cantelli / Marshall–Olkin) false-positive bound
``sup_{z ~ (mu, Σ)} P(w^T z >= 0) <= delta``. ``bias=True`` (not in the paper) adds a free unregularised ``b``
(hinge on ``w^T x_i + b``; constraint ``gamma ||Σ^{1/2} w|| + w^T mu + b <= 0``); ``squared_reg=False`` uses
``lam ||w||_2``.

Background risk, Theorem 1 (with biases ``b`` for the deflated/inflated models of eq. 25)::

    sup_{Z in Ω(mu, Σ)} P(W z + b >= 0) = 1 / (1 + d^2),
    d^2 = min_z (z - mu)^T Σ^{-1} (z - mu)   s.t.  W z + b >= 0                 ('halfspaces')

``W`` is (K, d) with ROWS ``w_k^T`` (the paper's W transposed). The objective is written
``sum_squares(L^{-1} (z - mu))`` with ``Σ = L L^T`` (Cholesky), so Σ must be positive definite.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sps

from certiprog import validation as validate
from certiprog.errors import InputError
from certiprog.model import Model, Parameter, Record, Variable, hinge, minimize, norm2, sum_squares

__all__ = ["BackgroundRiskData", "BackgroundRiskSolution", "BackgroundRisksData", "BackgroundRisksSolution",
           "HingeMinimaxData", "HingeMinimaxSolution", "PD_RTOL", "background_risk", "background_risks",
           "hinge_minimax", "positive_definite_factor", "set_halfspaces", "set_moments", "worst_case_fp"]


def worst_case_fp(w, mu, Sigma, b: float = 0.0) -> float:
    """``sup_{z ~ (mu, Σ)} P(w^T z + b >= 0)`` by the one-sided Chebyshev (Cantelli) bound.

    ``1 / (1 + m^2 / s^2)`` with margin ``m = -(w^T mu + b)`` and ``s^2 = w^T Σ w``; 1 if ``m <= 0``; 0 if
    ``m > 0`` and ``s = 0``.
    """
    w = np.asarray(w, float).reshape(-1)
    s = float(np.sqrt(max(w @ Sigma @ w, 0.0)))
    margin = -(float(w @ mu) + float(b))
    if margin <= 0:
        return 1.0
    if s == 0:
        return 0.0
    return float(s * s / (s * s + margin * margin))


@dataclass(frozen=True, eq=False)
class HingeMinimaxSolution(Record):
    """What eq. (8) gives at a solution (`hinge_minimax`'s ``model.derived(sol)``).

    ``w``, ``b`` (0 without bias), ``gamma``, ``hinge`` (sum of hinge losses), ``reg`` (``||w||^2`` or ``||w||``),
    ``objective`` (recomputed), ``constraint_value`` (``gamma sqrt(w^T Σ w) + w^T mu + b``, <= 0 up to tolerance),
    ``worst_case_fp`` (the Cantelli bound on the background false-positive rate of ``w``, <= delta), ``delta`` and
    ``trivial``: True when the optimum is (numerically) ``w = 0`` -- every score ``|w^T x_i| <= 1e-6``; the rule then
    accepts everything, the solution is uninformative and ``worst_case_fp`` is reported as 1 (0 if ``b < 0``), not
    the Cantelli ratio of solver noise.
    """

    w: np.ndarray
    b: float
    gamma: float
    hinge: float
    reg: float
    objective: float
    constraint_value: float
    worst_case_fp: float
    delta: float
    trivial: bool


@dataclass(frozen=True, eq=False)
class HingeMinimaxData:
    """The data of eq. (8) (``model.data`` of `hinge_minimax`): positives ``X`` (m, d), background moments ``mu``,
    ``Sigma``, weights ``lam``, ``delta``, ``gamma = sqrt((1 - delta)/delta)``, ``bias``, ``squared_reg``."""

    X: np.ndarray
    mu: np.ndarray
    Sigma: np.ndarray
    lam: float
    delta: float
    gamma: float
    bias: bool
    squared_reg: bool
    params: tuple = field(default=(), repr=False)  # the Parameters (mu, Sigma factor^T) `set_moments` refills

    def structured_solve(self, **options) -> dict:
        """The certified first-order solver (`solver.solve_hinge_minimax`) for ``model.solve(solver="structured")``
        (`certiprog.solvers.structured`): ``w``, and the duals of its certificate in certiprog's convention: the
        hinge rows of ``_objective/pos`` (``t_i >= 1 - x_i'w``: alpha; ``t_i >= 0``: 1 - alpha), ``chebyshev``
        (``-(gamma t + mu'w) >= 0``: y0) and its cone ``chebyshev/pnorm`` (``(t, L'w)``: ``gamma y``);
        its rigorous interval in ``info``. Covers ``squared_reg=True``, ``lam > 0``, with or without ``bias``
        (`solver.covers`; else an InputError naming the backend to use). ``options`` go to `solve_hinge_minimax`
        (tol, max_iter, ...); ``tol`` defaults to 1e-7 here: certiprog's check calls a point accurate at 1e-6
        relative, and a first-order answer at the solver's own 1e-5 can read inaccurate (benchmarks/scale.py's
        20,000 x 300: inaccurate at 1e-5 in 3.6 s, accurate at 1e-7 in 6.2 s)."""
        from .solver import covers, solve_hinge_minimax

        what = covers(self.bias, self.squared_reg, self.lam)
        if what is not None:
            raise InputError(f"solver='structured' covers hinge_minimax with squared_reg=True, lam > 0; "
                             f"this model has {what}: solve it with model.solve(backend='clarabel')")
        fit = solve_hinge_minimax(self.X, self.mu, self.Sigma, self.lam, self.delta, bias=self.bias,
                                  **{"tol": 1e-7, **options})
        y = np.asarray(fit.y, float)
        duals = {"_objective/pos": np.concatenate([fit.alpha, 1.0 - fit.alpha]), "chebyshev": y[:1],
                 "chebyshev/pnorm": self.gamma * y}
        values = {"w": fit.w, "b": np.asarray(fit.b)} if self.bias else {"w": fit.w}
        return dict(values=values, duals=duals,
                    status="optimal" if fit.certified else "inaccurate", iterations=fit.iterations,
                    info=dict(interval=(fit.lower, fit.upper), rel_gap=fit.rel_gap, certified=fit.certified,
                              structured_status=fit.status, **fit.info))

    def structured_auto(self, problem) -> bool:
        """certiprog's automatic choice tries `structured_solve` first whenever it covers the model (``lam > 0``,
        ``squared_reg``) and the data are not tiny (m d >= 2,000): its Newton / gradient solver is then faster than
        Clarabel at every conditioning (measured, bias on, lam = 1, delta = 0.1: 2,000 x 16 0.06 s vs 0.23 s;
        5,000 x 50 0.55 s vs 5.3 s; 20,000 x 16 0.75 s vs 4.6 s; 200 x 5 both 0.04 s). The certificate still
        decides, and the generic solvers follow when it does not confirm the answer."""
        from .solver import covers

        return covers(self.bias, self.squared_reg, self.lam) is None and self.X.size >= 2_000

    def derive(self, sol) -> HingeMinimaxSolution:
        X, mu, Sigma = self.X, self.mu, self.Sigma
        wv = np.asarray(sol.value("w"), float).reshape(-1)
        bv = float(sol.value("b")) if self.bias else 0.0
        hinge_v = float(np.maximum(0.0, 1.0 - (X @ wv + bv)).sum())
        reg_v = float(wv @ wv) if self.squared_reg else float(np.linalg.norm(wv))
        s = float(np.sqrt(max(wv @ Sigma @ wv, 0.0)))
        # w = 0 is always feasible (objective m). Numerically zero scores (|w^T x_i| <= 1e-6 against the hinge's
        # margin 1) mean the classifier is the constant sign(b) rule: accept everything (b >= 0), a worst-case
        # false-positive rate of 1 -- the Cantelli ratio of a ~1e-9 w would be solver noise.
        trivial = bool(np.max(np.abs(X @ wv)) <= 1e-6)
        wc = (1.0 if bv >= -1e-6 else 0.0) if trivial else worst_case_fp(wv, mu, Sigma, bv)
        return HingeMinimaxSolution(w=wv, b=bv, gamma=self.gamma, hinge=hinge_v, reg=reg_v,
                                    objective=float(self.lam * reg_v + hinge_v),
                                    constraint_value=float(self.gamma * s + wv @ mu + bv), worst_case_fp=wc,
                                    delta=self.delta, trivial=trivial)


def eq8_inputs(X_pos, mu, Sigma, lam, delta):
    """Validated ``(X, mu, Sigma, L, lam, delta)`` of eq. (8) (``L``: a factor with ``Sigma = L L^T``): the one
    check that the Model and the structured solver both run."""
    X = validate.matrix(X_pos, "X_pos", min_rows=1)
    d = X.shape[1]
    if d < 1:
        raise InputError("X_pos has 0 columns; at least one feature is needed")
    mu = validate.vector(mu, "mu", size=d)
    Sigma, L = validate.covariance(Sigma, "Sigma", d, factor=True)
    lam = validate.scalar(lam, "lam", low=0.0)
    delta = validate.scalar(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    return X, mu, Sigma, L, lam, delta


def hinge_minimax(X_pos, mu, Sigma, lam, delta, bias: bool = False, squared_reg: bool = True) -> Model:
    """000 eq. (8) for positives ``X_pos`` (m x d) against background moments ``mu`` (d), ``Sigma`` (d x d, PSD).

    Variables ``w`` (d) and, with ``bias=True``, ``b`` (scalar). Constraint ``'chebyshev'``:
    ``gamma * norm2(L^T w) + mu^T w (+ b) <= 0`` with ``Sigma = L L^T`` (one eigendecomposition; singular Sigma allowed).
    ``lam >= 0``; ``0 < delta < 1``. ``model.data`` is a `HingeMinimaxData`; ``model.derived(sol)`` a
    `HingeMinimaxSolution`. ``mu`` and ``L^T`` are Parameters: `set_moments` moves the model to other background
    moments without compiling it again (Alg. 1 refits against many conditional moments).
    """
    X, mu, Sigma, L, lam, delta = eq8_inputs(X_pos, mu, Sigma, lam, delta)
    m, d = X.shape
    gamma = float(np.sqrt((1.0 - delta) / delta))

    w = Variable(d, "w")
    b = Variable((), "b") if bias else None
    score = X @ w if b is None else X @ w + b
    obj = hinge(score).sum()
    if lam > 0:
        obj = obj + lam * (sum_squares(w) if squared_reg else norm2(w))
    model = Model(minimize(obj), name="hinge_minimax")
    mu_p = Parameter(d, "mu", value=mu)
    LT_p = Parameter((d, d), "Sigma_factor_T", value=L.T)
    lhs = gamma * norm2(LT_p @ w) + mu_p @ w
    model.add((lhs if b is None else lhs + b) <= 0.0, name="chebyshev")
    model.data = HingeMinimaxData(X, mu, Sigma, lam, delta, gamma, bool(bias), bool(squared_reg), (mu_p, LT_p))
    return model


def set_moments(model: Model, mu, Sigma) -> Model:
    """Move a `hinge_minimax` model to background moments ``mu``, ``Sigma`` (same checks as the builder); the
    compiled structure is kept, only the Parameters' numbers change. Returns the model."""
    data = model.data
    if not isinstance(data, HingeMinimaxData) or len(data.params) != 2:
        raise InputError("set_moments takes a model built by hinge_minimax")
    d = data.mu.size
    mu = validate.vector(mu, "mu", size=d)
    Sigma, L = validate.covariance(Sigma, "Sigma", d, factor=True)
    data.params[0].value = mu
    data.params[1].value = L.T
    model.data = replace(data, mu=mu, Sigma=Sigma)
    return model


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
