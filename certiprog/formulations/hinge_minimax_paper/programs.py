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

from certiprog import validation as validate
from certiprog.errors import InputError
from certiprog.model import Model, Parameter, Record, Variable, hinge, minimize, norm2, sum_squares
from certiprog.solvers.structured import StructuredAnswer

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

    def structured_solve(self, **options) -> StructuredAnswer:
        """The certified first-order solver (`solver.solve_hinge_minimax`) for ``model.solve(solver="structured")``
        (`certiprog.solvers.structured`): ``w``, and the duals of its certificate in certiprog's convention: the
        hinge rows of ``_objective/pos`` (``t_i >= 1 - x_i'w``: alpha; ``t_i >= 0``: 1 - alpha), ``chebyshev``
        (``-(gamma t + mu'w) >= 0``: y0) and its cone ``chebyshev/pnorm`` (``(t, L'w)``: ``gamma y``);
        its rigorous interval (``StructuredAnswer.interval``). Covers ``squared_reg=True``, ``lam > 0``, with or
        without ``bias`` (`solver.covers`; else an InputError naming the backend to use). ``options`` go to
        `solve_hinge_minimax` (tol, max_iter, ...); ``tol`` defaults to 1e-7 here: certiprog's check calls a point accurate at 1e-6
        relative, and a first-order answer at the solver's own 1e-5 can read inaccurate (benchmarks/scale.py's
        20,000 x 300: inaccurate at 1e-5 in 3.6 s, accurate at 1e-7 in 6.2 s)."""
        from .solver import covers, solve_hinge_minimax

        what = covers(self.bias, self.squared_reg, self.lam)
        if what is not None:
            raise InputError(f"solver='structured' covers hinge_minimax with squared_reg=True, lam > 0; "
                             f"this model has {what}: solve it with model.solve(backend='clarabel')")
        fit = solve_hinge_minimax(self.X, self.mu, self.Sigma, self.lam, self.delta, bias=self.bias,
                                  **{"tol": 1e-7, "factor": self.params[1].value.T if self.params else None,
                                     **options})
        y = np.asarray(fit.y, float)
        duals = {"_objective/pos": np.concatenate([fit.alpha, 1.0 - fit.alpha]), "chebyshev": y[:1],
                 "chebyshev/pnorm": self.gamma * y}
        values = {"w": fit.w, "b": np.asarray(fit.b)} if self.bias else {"w": fit.w}
        return StructuredAnswer(values, duals, "optimal" if fit.certified else "inaccurate", fit.interval,
                                fit.iterations, info=dict(rel_gap=fit.rel_gap, certified=fit.certified,
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


# Theorem 1's QP (Marshall-Olkin) is shared with paper 004, so it lives in the core; re-exported here as before
from certiprog.programs.marshall_olkin import (  # noqa: E402
    PD_RTOL,
    BackgroundRiskData,
    BackgroundRisksData,
    BackgroundRiskSolution,
    BackgroundRisksSolution,
    background_risk,
    background_risks,
    positive_definite_factor,
    set_halfspaces,
)
