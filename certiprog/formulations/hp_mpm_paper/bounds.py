"""Paper 004's bounds (Cousins & Shawe-Taylor, HP-MPM) as `Bound` objects in the one audit registry.

Ids follow the registry's scheme (`certiprog.certificates.registry`): a bound that states the formula of an
inventory row of ``docs/derivations/004.md`` carries that row's id and is the same entry as the claim
(``004-E6a`` eq. (6) mean, ``004-E6b`` eq. (6) covariance, ``004-P1`` Prop. 1's T, ``004-E8`` A_j of eq. (8),
``004-T2c`` eq. (5), ``004-C1d`` Cor. 1); corrected or re-derived variants add a dot and a name
(``004-E6a.mcdiarmid``, ``004-C1d.eq8``). The eq. (6) bounds and T carry a seeded Monte Carlo coverage test that
`certiprog audit` runs.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from certiprog.audit.bounds import (
    SYMBOLS,
    Bound,
    delta_in_01,
    moment_coverage,
    register,
    scaled_rademacher,
    symbols,
    two_point,
)

m, delta = SYMBOLS["m"], SYMBOLS["delta"]
R, kappa = SYMBOLS["R"], SYMBOLS["kappa"]
log = sp.log

# the audit's laws: a skewed cube-corner law (16 atoms) for the means, a skewed two-point law for covariances
_MEAN_LAW = scaled_rademacher(4, 1.5, p=0.7)
_COV_LAW = two_point([0.0, 2.0], [1.2, -1.6], 0.2)
_M, _DELTA = 40, 0.05


def _r_mean(dl):  # Shawe-Taylor & Cristianini mean radius, unit R/sqrt(m)
    return R / sp.sqrt(m) * (2 + sp.sqrt(2 * log(1 / dl)))


def _r_cov(dl):
    return 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(2 / dl)))


def _mean_mc():
    return moment_coverage(_MEAN_LAW, _M, "mean", _DELTA)


def _cov_mc():
    return moment_coverage(_COV_LAW, _M, "cov", _DELTA)


def prop1_deviation(law, kappa_value: float, n_directions: int = 20, seed: int = 3):
    """Prop. 1's deviation sup_{w, b} |(b - w^T x_hat)^2 - kappa^2 w^T Sigma_hat w - (b - w^T x_bar)^2 + kappa^2
    w^T Sigma w| over a fixed grid of ||w|| <= 1 (``n_directions`` random directions, random lengths) and
    b in {-R, 0, R}; a ``deviation`` for `Bound.coverage` with estimate (x_hat, Sigma_hat)."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n_directions, law.d))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    W *= rng.uniform(0.3, 1.0, size=(n_directions, 1))
    W = np.repeat(W, 3, axis=0)
    b = np.tile([-law.radius, 0.0, law.radius], n_directions)
    mw, q = law.mean @ W.T, np.einsum("pi,ij,pj->p", W, law.cov, W)

    def deviation(est, _):
        xh, Sh = est
        q_h = np.einsum("pi,nij,pj->np", W, Sh, W)
        D = np.abs((b - xh @ W.T) ** 2 - kappa_value**2 * q_h - (b - mw) ** 2 + kappa_value**2 * q)
        return D.max(axis=1)
    return deviation


_SUPPORT_R = "x_1..x_m i.i.d. with ||x|| <= R almost surely"
_BIASED = "Sigma_hat = (1/m) sum (x_k - x_hat)(x_k - x_hat)^T (biased, 1/m)"

E6A = register(Bound(
    "004-E6a", "mean deviation (Shawe-Taylor & Cristianini 2003)", "004", "Sec. 3, eq. (6), first",
    r"\|\bar{x} - \hat{x}\|_2", symbols("R", "m", "delta"), _r_mean(delta), delta,
    [_SUPPORT_R, delta_in_01()], status="as printed (re-derived)",
    notes="Printed with ln(1/delta) (not ln(2/delta); ln(2/delta) appears in Prop. 1 after delta -> delta/2). "
          "Implied by the sharper McDiarmid bound 004-E6a.mcdiarmid.",
    monte_carlo=_mean_mc()))
E6A_MCDIARMID = register(Bound(
    "004-E6a.mcdiarmid", "mean deviation, McDiarmid (re-derived, sharper)", "004", "Sec. 3, eq. (6) (re-derived)",
    r"\|\bar{x} - \hat{x}\|_2", symbols("R", "m", "delta"), R / sp.sqrt(m) * (1 + sp.sqrt(2 * log(1 / delta))), delta,
    [_SUPPORT_R, delta_in_01()], status="re-derived",
    notes="E||x_hat - x_bar|| <= sqrt(E||x - x_bar||^2 / m) <= R/sqrt(m); McDiarmid with c_i = 2R/m.",
    monte_carlo=_mean_mc()))
E6B = register(Bound(
    "004-E6b", "covariance deviation (Shawe-Taylor & Cristianini 2003)", "004", "Sec. 3, eq. (6), second",
    r"\|\Sigma - \hat{\Sigma}\|_F", symbols("R", "m", "delta"), _r_cov(delta), delta,
    [_SUPPORT_R, _BIASED, delta_in_01()], status="external (not re-derived)",
    notes="The constant 2R^2 (2 + sqrt(2 ln(2/delta))) is cited from Shawe-Taylor & Cristianini (2003) and "
          "could not be re-derived; the elementary argument gives 004-E6b.rederived (3R^2, 1 + ...), which is "
          "LARGER for every delta < 1.2. This is the form eq. (8) uses; Monte Carlo never came near violating it.",
    monte_carlo=_cov_mc()))
E6B_REDERIVED = register(Bound(
    "004-E6b.rederived", "covariance deviation (elementary re-derivation)", "004", "Sec. 3, eq. (6) (re-derived)",
    r"\|\Sigma - \hat{\Sigma}\|_F", symbols("R", "m", "delta"),
    3 * R**2 / sp.sqrt(m) * (1 + sp.sqrt(2 * log(2 / delta))), delta,
    [_SUPPORT_R, _BIASED, delta_in_01()], status="re-derived",
    notes="Sigma_hat - Sigma = (C_hat - C) - (x_hat x_hat^T - x_bar x_bar^T); McDiarmid on ||C_hat - C||_F "
          "(c_i = 2R^2/m, E <= R^2/sqrt(m)) and on ||x_hat - x_bar|| (times 2R), each at delta/2.",
    monte_carlo=_cov_mc()))
# Prop. 1's joint use of (6) at delta/2: mean radius with ln(2/delta), covariance radius with ln(4/delta).
E6A_HALF = register(Bound(
    "004-E6a.half", "mean deviation at delta/2 (Prop. 1's union)", "004", "Prop. 1 proof, (6) with delta/2",
    r"\|\bar{x} - \hat{x}\|_2", symbols("R", "m", "delta"), _r_mean(delta / 2), delta / 2,
    [_SUPPORT_R, delta_in_01()], status="as printed",
    monte_carlo=_mean_mc()))
E6B_HALF = register(Bound(
    "004-E6b.half", "covariance deviation at delta/2 (Prop. 1's union)", "004", "Prop. 1 proof, (6) with delta/2",
    r"\|\Sigma - \hat{\Sigma}\|_F", symbols("R", "m", "delta"), _r_cov(delta / 2), delta / 2,
    [_SUPPORT_R, _BIASED, delta_in_01()], printed=_r_cov(delta), status="corrected",
    notes="(6) with delta -> delta/2 turns the covariance ln(2/delta) into ln(4/delta); the paper keeps ln(2/delta).",
    monte_carlo=_cov_mc()))
_T_corr = 4 * R * _r_mean(delta / 2) + kappa**2 * _r_cov(delta / 2)
_T_print = 4 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(2 / delta))) \
    + kappa**2 * 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(2 / delta)))
P1_T = register(Bound(
    "004-P1", "Prop. 1 uncertainty term T", "004", "Prop. 1, eq. (7)",
    r"\sup_{\|w\|\le 1, |b| \le R} |(b-w^T\hat{x})^2 - \kappa^2 w^T\hat{\Sigma}w - (b-w^T\bar{x})^2 + \kappa^2 w^T\Sigma w|",
    symbols("R", "m", "delta", "kappa"), _T_corr, delta,
    [_SUPPORT_R, _BIASED, "||w|| <= 1", "|b| <= R (missing in the paper; needed for 2|b| + ||x_hat + x_bar|| <= 4R)",
     delta_in_01()],
    printed=_T_print, status="corrected",
    notes="Corrected: covariance part at ln(4/delta) (union of (6) at delta/2 each); printed keeps ln(2/delta).",
    monte_carlo=moment_coverage(_COV_LAW, 25, ("mean", "cov"), 0.1, values={"kappa": 1.5},
                                deviation=prop1_deviation(_COV_LAW, 1.5))))
_A_print = 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(2 / delta)))
E8_A = register(Bound(
    "004-E8", "HP-MPM uncertainty A_j (per class, m = m_j)", "004", "Sec. 3, eq. (8)",
    r"A_j \text{ with } T_j = 2A_j + \kappa^2 A_j \ge \text{Prop. 1 deviation}",
    symbols("R", "m", "delta"), 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(4 / delta))), delta,
    [_SUPPORT_R, _BIASED, "||w|| <= 1, |b| <= R", delta_in_01(),
     "per class; Cor. 1 combines the two classes: overall confidence 1 - 2 delta (use 004-E8.joint for 1 - delta)"],
    printed=_A_print, status="corrected",
    notes="Printed A_j = (2R^2/sqrt(m_j))(2 + sqrt(2 ln(2/delta))). Corrected (conservative single A): "
          "ln(4/delta), so that 2A + kappa^2 A >= 004-P1 (the mean part of T needs only ln(2/delta))."))
E8_A_JOINT = register(Bound(
    "004-E8.joint", "HP-MPM A_j for an overall 1 - delta over both classes", "004", "Cor. 1 (corrected)",
    r"A_j", symbols("R", "m", "delta"), 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(8 / delta))), delta,
    [_SUPPORT_R, _BIASED, "||w|| <= 1, |b| <= R", delta_in_01(), "both classes, union bound (delta/2 per class)"],
    printed=_A_print, status="corrected",
    notes="Cor. 1 applies Prop. 1 to both classes at level delta each, i.e. 1 - 2 delta overall; with delta/2 per "
          "class, A_j needs ln(8/delta).",
    relied_on=True))
# The worst-case misclassification bounds 1 - alpha* = 1/(1 + kappa*^2): eq. (5) (MPM, deterministic given the
# moments it uses) and Cor. 1 (HP-MPM, for the TRUE moments, with the confidence of the A_j used).
_WCE = 1 / (1 + kappa**2)
_WCE_Q = (r"\max_{j} \sup_{x \sim (\bar{x}_j, \Sigma_j)} P(\text{x misclassified}) = "
          r"\max_j 1/(1 + d_j^2),\ d_j = \text{margin}_j / \sqrt{w^T \Sigma_j w}")
T2C = register(Bound(
    "004-T2c", "MPM worst-case misclassification (Marshall-Olkin / Cantelli)", "004", "Sec. 2, eqs. (2), (5)",
    _WCE_Q, symbols("kappa"), _WCE, sp.Integer(0),
    ["(w, b) satisfy w^T x_1 - b >= kappa sqrt(w^T S_1 w) and b - w^T x_0 >= kappa sqrt(w^T S_0 w) for the moments "
     "(x_j, S_j) the bound speaks about (eq. 2); for the MPM's empirical moments it says nothing about the true law",
     "kappa >= 0 (kappa = inf: bound 0)"], status="as printed (re-derived)",
    notes="Deterministic: 1/(1 + d^2) with d >= kappa per class (004-T1, E1, E2 of the claims audit)."))
_COR1 = ("(w*, b*, kappa*) from the HP-MPM program with the stated A_j and nu >= 1; m_j samples per class, "
         "||x|| <= R a.s. for both classes")
C1D = register(Bound(
    "004-C1d", "HP-MPM worst-case error for the true moments (A_j with ln(4/delta))", "004", "Cor. 1 (corrected)",
    _WCE_Q, symbols("kappa", "delta"), _WCE, 2 * delta,
    [_COR1 + " (A_j = 004-E8, i.e. ln(4/delta): Prop. 1 per class at 1 - delta)", delta_in_01(),
     "|b*| <= R (holds at the optimum: b* lies between w*^T x_hat_0 and w*^T x_hat_1)"],
    printed_failure_prob=delta, status="corrected",
    notes="Cor. 1 applies Prop. 1 to each class at level delta: the union bound gives 1 - 2 delta, not 1 - delta "
          "(docs/derivations/004.md, error 9). form='prop1' in certiprog.formulations.hp_mpm_paper.hp_mpm."))
C1D_JOINT = register(Bound(
    "004-C1d.joint", "HP-MPM worst-case error, both classes at 1 - delta (A_j with ln(8/delta))", "004",
    "Cor. 1 (corrected, delta/2 per class)", _WCE_Q, symbols("kappa", "delta"), _WCE, delta,
    [_COR1 + " (A_j = 004-E8.joint, i.e. ln(8/delta))", delta_in_01(), "|b*| <= R (holds at the optimum)"],
    status="corrected", notes="form='cor1' in certiprog.formulations.hp_mpm_paper.hp_mpm.",
    relied_on=True))
C1D_EQ8 = register(Bound(
    "004-C1d.eq8", "HP-MPM worst-case error with A_j as printed in eq. (8) (ln(2/delta))", "004",
    "Cor. 1 with eq. (8) as printed", _WCE_Q, symbols("kappa", "delta"), _WCE, 3 * delta,
    [_COR1 + " (A_j = eq. (8) as printed, ln(2/delta))", delta_in_01(), "|b*| <= R (holds at the optimum)"],
    printed_failure_prob=delta, status="corrected",
    notes="With ln(2/delta) the covariance half of T is eq. (6) at level delta (not delta/2), the mean half at delta/2: "
          "1.5 delta per class, 3 delta for both (the paper prints 1 - delta). form='eq8' (the paper's experiments).",
    relied_on=True))


