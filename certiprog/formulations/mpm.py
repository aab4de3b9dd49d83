"""Paper 004 — the Minimax Probability Machine (Lanckriet et al. 2003) as used by Cousins & Shawe-Taylor.

Derivation and checks: ``docs/derivations/004.md`` (Sec. 1.1). Class 1 is predicted iff ``w^T x >= b``.

Moments are the sample means and the BIASED (1/m) sample covariances (004 Sec. 3)::

    x̂_j = (1/m_j) sum_k x_k,     Σ_j = (1/m_j) sum_k (x_k - x̂_j)(x_k - x̂_j)^T

Program (3), an SOCP in ``w`` only (no bias inside the program)::

    kappa*^{-1} = min_w  ||Σ1^{1/2} w|| + ||Σ0^{1/2} w||    s.t.  w^T (x̂1 - x̂0) = 1       (3)

written with ``L_j = psd_factor(Σ_j)`` (``Σ_j = L_j L_j^T``, so ``||Σ_j^{1/2} w|| = ||L_j^T w||``; a singular
covariance is fine). Afterwards (eqs. 4–5)::

    b*          = w*^T x̂1 - kappa* sqrt(w*^T Σ1 w*)   ( = w*^T x̂0 + kappa* sqrt(w*^T Σ0 w*) )
    1 - alpha*  = 1 / (1 + kappa*^2)                   (worst-case misclassification bound)

When ``x̂1 == x̂0`` the normalisation ``w^T (x̂1 - x̂0) = 1`` reads ``0 = 1``: the program is infeasible and
the solve says so (status ``infeasible``); Theorem 2 of 004 gives kappa* = 0, worst-case error 1 there.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..model import Model, Variable, minimize, norm2, psd_factor
from . import validate

__all__ = ["mpm", "mpm_moments"]


def _class(X, name: str, cols: int | None = None) -> np.ndarray:
    X = validate.matrix(X, name, min_rows=1, cols=cols)
    if X.shape[1] < 1:
        raise InputError(f"{name} has 0 columns; at least one feature is needed")
    if X.shape[0] < 2:
        raise InputError(
            f"{name} has a single sample: its covariance is undefined (the MPM needs >= 2 samples per class)"
        )
    return X


def mpm_moments(X1, X0) -> dict:
    """Sample means and biased (1/m) covariances of class 1 (``X1``) and class 0 (``X0``).

    Returns ``dict(mu1, Sigma1, mu0, Sigma0, n1, n0)``; each class needs >= 2 rows, both the same columns.
    """
    X1 = _class(X1, "X1")
    X0 = _class(X0, "X0", cols=X1.shape[1])
    out = {}
    for j, X in (("1", X1), ("0", X0)):
        mu = X.mean(axis=0)
        Xc = X - mu
        S = Xc.T @ Xc / X.shape[0]
        out["mu" + j] = mu
        out["Sigma" + j] = 0.5 * (S + S.T)
        out["n" + j] = X.shape[0]
    return out


def mpm(X1, X0) -> Model:
    """004 eq. (3): the MPM from samples ``X1`` (class 1, n1 x d) and ``X0`` (class 0, n0 x d).

    Variable ``w`` (d). Constraint ``'normalization'``: ``w^T (x̂1 - x̂0) == 1``. Objective
    ``norm2(L1^T w) + norm2(L0^T w)`` (= kappa*^{-1}).

    ``model.derived(sol)`` gives ``w``, ``b`` (eq. 4, class-1 form), ``b_from_class0`` (class-0 form, equal up to
    solver tolerance), ``kappa`` (= 1/objective, ``inf`` when both variances vanish), ``alpha`` = kappa²/(1+kappa²),
    ``worst_case_error`` = 1 - alpha = 1/(1+kappa²) (eq. 5), ``sqrt_wSw1``, ``sqrt_wSw0``, the moments, and
    ``decision_function = {'coef': w, 'intercept': -b}`` (predict class 1 iff ``x @ coef + intercept >= 0``).
    ``model.info['moments']`` holds `mpm_moments`.
    """
    mom = mpm_moments(X1, X0)
    mu1, S1, mu0, S0 = mom["mu1"], mom["Sigma1"], mom["mu0"], mom["Sigma0"]
    d = mu1.size
    L1 = psd_factor(S1, "Sigma1 (class-1 covariance)")
    L0 = psd_factor(S0, "Sigma0 (class-0 covariance)")
    dmu = mu1 - mu0
    w = Variable(d, "w")
    model = Model(minimize(norm2(L1.T @ w) + norm2(L0.T @ w)), name="mpm")
    model.add(dmu @ w == 1.0, name="normalization")

    def derive(model_, sol):
        wv = np.asarray(sol.value("w"), float).reshape(-1)
        s1 = float(np.sqrt(max(wv @ S1 @ wv, 0.0)))
        s0 = float(np.sqrt(max(wv @ S0 @ wv, 0.0)))
        s = s1 + s0  # = kappa*^{-1}, recomputed from w (equal to the objective up to solver tolerance)
        m1, m0 = float(wv @ mu1), float(wv @ mu0)
        if s > 0:
            kappa = 1.0 / s
            b = m1 - s1 / s          # = w^T x̂1 - kappa s1
            b0 = m0 + s0 / s         # = w^T x̂0 + kappa s0
            wce = s * s / (1.0 + s * s)  # 1/(1+kappa^2), stable for large kappa
        else:  # both projected variances vanish: perfect separation, any b in [w^T x̂0, w^T x̂1]
            kappa, b = np.inf, 0.5 * (m1 + m0)
            b0, wce = b, 0.0
        return dict(
            w=wv, b=float(b), b_from_class0=float(b0), kappa=float(kappa),
            alpha=float(1.0 - wce), worst_case_error=float(wce), objective=float(s),
            sqrt_wSw1=s1, sqrt_wSw0=s0, mu1=mu1, mu0=mu0, Sigma1=S1, Sigma0=S0,
            decision_function=dict(coef=wv.copy(), intercept=float(-b)),
        )

    model.info.update(derive=derive, paper="004", problem="mpm eq. (3)", moments=mom, d=d,
                      n1=mom["n1"], n0=mom["n0"])
    return model
