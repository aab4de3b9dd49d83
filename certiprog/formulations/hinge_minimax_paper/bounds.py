"""Paper 000's bounds (Osadchy, Hazan, Keren: hinge-minimax) as `Bound` objects in the one audit registry.

Ids follow the registry's scheme (`certiprog.certificates.registry`): each bound carries the id of the inventory
row of ``docs/derivations/000.md`` that states it and is the same entry as that claim (``000-L3`` Lemma 3,
``000-L3b`` the mean concentration of its proof, ``000-L4``, ``000-L4b``, ``000-L5``, ``000-T6``, ``000-T8``);
``000-L4.cov`` is a re-derived variant. Lemmas 3-5 and Thm 6 carry a seeded Monte Carlo coverage test on a
finite law inside the C-ball (multinomial counts, so Lemma 5's large m costs nothing) that `certiprog audit` runs.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from certiprog.audit.bounds import (
    SYMBOLS,
    Assumption,
    Bound,
    delta_in_01,
    moment_coverage,
    register,
    scaled_rademacher,
    symbols,
)

m, delta = SYMBOLS["m"], SYMBOLS["delta"]
C, alpha, alpha_hat, dmu = (SYMBOLS[k] for k in ("C", "alpha", "alpha_hat", "dmu"))
log = sp.log
_BIASED = "Sigma_hat = (1/m) sum (x_k - x_hat)(x_k - x_hat)^T (biased, 1/m)"


# ---- the Monte Carlo harness: a law with ||x|| <= C, a few U's, Delta_1, Delta_2 and the background risk
def cube_law(d: int = 2, p: float = 0.5, scale: float = 1.0):
    """||x|| <= C, mean != 0, Sigma = (r^2/d) 4p(1-p) I > 0: the 2^d corners of a cube around (-0.3, 0, ...)."""
    law = scaled_rademacher(d, 0.7 * scale, p=p, center=scale * np.r_[-0.3, np.zeros(d - 1)])
    return law


def u_list(d: int, rng, mu) -> list:
    """Some U's (K = 1 and 2 columns) whose half-spaces exclude mu (w^T mu < 0)."""
    Us = []
    for _ in range(12):
        w = rng.standard_normal(d)
        Us.append((w if w @ mu < 0 else -w)[:, None])
    if d >= 2:
        Us += [rng.standard_normal((d, 2)) for _ in range(4)]
    return Us


def a_matrix(U, S):
    """U (U^T S U)^{-1} U^T for U (d, k) and S (..., d, d)."""
    M = np.einsum("ik,...ij,jl->...kl", U, S, U)
    return np.einsum("ik,...kl,jl->...ij", U, np.linalg.inv(M), U)


def delta1(law, Us):
    """``deviation(mu_hat, mu)`` of Lemma 3: max over the U's of mu^T A (mu_hat - mu) + (mu_hat - mu)^T A mu_hat."""
    As = [a_matrix(U, law.cov) for U in Us]

    def dev(mu_hat, mu):
        dm = mu_hat - mu
        return np.max([dm @ (A @ mu) + np.einsum("ni,ij,nj->n", dm, A, mu_hat) for A in As], axis=0)
    return dev


def delta2(law, Us):
    """``deviation((mu_hat, Sigma_hat), None)`` of Lemma 4: max over the U's of mu_hat^T (A_hat - A) mu_hat."""
    A_true = [a_matrix(U, law.cov) for U in Us]

    def dev(est, _):
        mu_hat, S_hat = est
        return np.max([np.einsum("ni,nij,nj->n", mu_hat, a_matrix(U, S_hat) - A, mu_hat)
                       for U, A in zip(Us, A_true)], axis=0)
    return dev


def background_risk_k1(mu, S, W):
    """Worst-case risk 1/(1 + d^2) of single half-spaces {w^T z >= 0} (K = 1), rows of W; mu (n,d), S (n,d,d)."""
    wm = mu @ W.T
    q = np.einsum("pi,nij,pj->np", W, S, W)
    return np.where(wm < 0, 1.0 / (1.0 + wm**2 / q), 1.0)


def risk_gap(law, n_halfspaces: int = 40, seed: int = 2):
    """``deviation((mu_hat, Sigma_hat), None)`` of Thm 6 (K = 1): max over half-spaces excluding the mean of
    L^B_{mu, Sigma} - L^B_{mu_hat, Sigma_hat}."""
    W = np.random.default_rng(seed).standard_normal((n_halfspaces, law.d))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    W[W @ law.mean > 0] *= -1
    L_true = background_risk_k1(law.mean[None], law.cov[None], W)[0]

    def dev(est, _):
        mu_hat, S_hat = est
        return np.max(L_true - background_risk_k1(mu_hat, S_hat, W), axis=1)
    return dev


def thm6_sample_size(law, delta_value: float, margin: float = 1.2) -> int:
    """The smallest m of the corrected Thm 6 condition alpha >= C^2 sqrt(1152 (ln(2/delta) + 1/4)/m), times margin."""
    return int(np.ceil(1152 * (np.log(2 / delta_value) + 0.25) * law.radius**4 / law.alpha**2 * margin))


_LAW = cube_law(d=2)
_LAW3 = cube_law(d=3, p=0.4)
_US = u_list(2, np.random.default_rng(0), _LAW.mean)
_US3 = u_list(3, np.random.default_rng(1), _LAW3.mean)
_M6 = thm6_sample_size(_LAW, 0.1)

_L1 = log(1 / delta) + sp.Rational(1, 4)
_SUPPORT_C = "x ~ D_neg i.i.d., ||x|| <= C almost surely"
_M_RANGE = Assumption("m >= 8 (ln(1/delta) + 1/4) (Bernstein range t <= 2C, missing in the paper)",
                      lambda v: v["m"] >= 8 * (np.log(1 / v["delta"]) + 0.25), ("m", "delta"))
_t_mean = sp.sqrt(32 * C**2 * _L1 / m)
_t_second = sp.sqrt(32 * C**4 * _L1 / m)
_ALPHA_LE = Assumption("alpha = lambda_min(Sigma) <= C^2 (always true when ||x|| <= C)",
                       lambda v: v["alpha"] <= v["C"] ** 2 * (1 + 1e-12), ("alpha", "C"))
L3B = register(Bound(
    "000-L3b", "mean concentration (vector Bernstein, Lemma 3 proof)", "000", "Sec. 2.3.1, Lemma 3 proof",
    r"\|\hat{\mu} - \mu\|_2", symbols("C", "m", "delta"), _t_mean, delta,
    [_SUPPORT_C, delta_in_01(), _M_RANGE], status="as printed",
    notes="P[||mu_hat - mu|| >= t] <= exp(-m t^2/(32 C^2) + 1/4) for t <= 2C (Candes & Plan Thm 2.6).",
    monte_carlo=moment_coverage(_LAW, 200, "mean")))
L3 = register(Bound(
    "000-L3", "Delta_1 (first part of the background-risk discrepancy)", "000", "Sec. 2.3.1, Lemma 3",
    r"\sup_W \Delta_1(W) = \mu^T A(\hat{\mu}-\mu) + (\hat{\mu}-\mu)^T A\hat{\mu},\ A = U(U^T\Sigma U)^{-1}U^T",
    symbols("C", "alpha", "m", "delta"), 2 * C / alpha * _t_mean, delta,
    [_SUPPORT_C, "alpha = lambda_min(Sigma) > 0", "U: linearly independent columns", delta_in_01(), _M_RANGE,
     _ALPHA_LE],
    printed=2 * C / alpha * sp.sqrt(32 * C**4 * _L1 / m), status="corrected",
    notes="Printed sqrt(32 C^4 (...)/m); the proof gives 32 C^2. Delta_1 is scale invariant (x -> s x, alpha -> s^2 "
          "alpha), the corrected bound is too, the printed one scales like s.",
    monte_carlo=moment_coverage(_LAW, 200, "mean", deviation=delta1(_LAW, _US))))
L4B = register(Bound(
    "000-L4b", "second-moment concentration (Lemma 4 proof)", "000", "Sec. 2.3.1, Lemma 4 proof",
    r"\|\tfrac{1}{m}\sum x_k x_k^T - E xx^T\|_F", symbols("C", "m", "delta"), _t_second, delta,
    [_SUPPORT_C, delta_in_01(), _M_RANGE], status="as printed",
    monte_carlo=moment_coverage(_LAW3, 300, "second")))
L4_COV = register(Bound(
    "000-L4.cov", "covariance concentration (Lemma 4 proof + Lemma 3)", "000", "Sec. 2.3.1, Lemma 4 proof",
    r"\|\hat{\Sigma} - \Sigma\|_F", symbols("C", "m", "delta"), 2 * C * _t_mean + _t_second, 2 * delta,
    [_SUPPORT_C, _BIASED, delta_in_01(), _M_RANGE], status="re-derived",
    notes="||Sigma_hat - Sigma||_F <= ||C_hat - C||_F + 2C ||mu_hat - mu|| = 3 C^2 sqrt(32(ln(1/delta)+1/4)/m); "
          "two events, failure 2 delta.",
    monte_carlo=moment_coverage(_LAW3, 300, "cov")))
L4 = register(Bound(
    "000-L4", "Delta_2 (second part of the discrepancy)", "000", "Sec. 2.3.1, Lemma 4",
    r"\sup_W \Delta_2(W) = \hat{\mu}^T(\hat{A} - A)\hat{\mu}",
    symbols("C", "alpha", "alpha_hat", "dmu", "m", "delta"),
    C**2 / (alpha * alpha_hat) * (2 * C * dmu + _t_second), delta,
    [_SUPPORT_C, "alpha = lambda_min(Sigma) > 0, alpha_hat = lambda_min(Sigma_hat) > 0 (data dependent)",
     "dmu = ||mu_hat - mu|| (data dependent)", delta_in_01(), _M_RANGE, _ALPHA_LE], status="as printed",
    notes="As stated (with the random ||mu_hat - mu||); Thm 6 substitutes Lemma 3's radius: 3C^4/(alpha alpha_hat) "
          "sqrt(32(...)/m) at failure 2 delta.",
    monte_carlo=moment_coverage(
        _LAW3, 300, ("mean", "cov"), deviation=delta2(_LAW3, _US3),
        values={"alpha_hat": lambda s: np.linalg.eigvalsh(s["cov"])[:, 0],
                "dmu": lambda s: np.linalg.norm(s["mean"] - _LAW3.mean, axis=1)})))
L5 = register(Bound(
    "000-L5", "lambda_min of the sample covariance", "000", "Sec. 2.3.1, Lemma 5",
    r"\alpha - \hat{\alpha}\ (\text{i.e. } \hat{\alpha} \ge \alpha/2)", symbols("C", "alpha", "m"), alpha / 2,
    2 * sp.exp(-m * alpha**2 / (1152 * C**4) + sp.Rational(1, 4)),
    [_SUPPORT_C, "alpha = lambda_min(Sigma) > 0", _ALPHA_LE], status="corrected (proof)",
    notes="Statement as printed; the proof bounds the largest eigenvalue - the conclusion holds by Weyl: "
          "lambda_min(Sigma_hat) >= alpha - ||Sigma_hat - Sigma||_2. The second-moment tail needs C^4 (dropped).",
    monte_carlo=lambda b, n, seed: b.coverage(
        _LAW.moment_sampler(_M6), _LAW.alpha, lambda s: np.linalg.eigvalsh(s["cov"])[:, 0], n, None, seed,
        deviation=lambda a_hat, a: a - a_hat, values=dict(C=_LAW.radius, alpha=_LAW.alpha, m=_M6))))
_L2 = log(2 / delta) + sp.Rational(1, 4)
T6 = register(Bound(
    "000-T6", "background (worst-case) risk generalisation", "000", "Sec. 2.3.1, Theorem 6",
    r"\sup_W L^B_{\mu,\Sigma}(W) - L^B_{\hat{\mu},\hat{\Sigma}}(W)",
    symbols("C", "alpha", "m", "delta"), (2 * C**2 / alpha + 6 * C**4 / alpha**2) * sp.sqrt(32 * _L1 / m), 3 * delta,
    [_SUPPORT_C, "K linearly independent hyperplanes; the active set U of the true moments is used for both "
     "(gap: the active set depends on the moments; exact for K = 1)", delta_in_01(), _M_RANGE, _ALPHA_LE,
     Assumption("alpha >= C^2 sqrt(1152 (ln(2/delta) + 1/4)/m) (paper drops C^2)",
                lambda v: v["alpha"] >= v["C"] ** 2 * np.sqrt(1152 * (np.log(2 / v["delta"]) + 0.25) / v["m"]),
                ("alpha", "C", "m", "delta"))],
    status="corrected (condition)",
    notes="Printed condition alpha >= sqrt(1152(ln(2/delta)+1/4)/m) is not scale invariant; with C^2 it makes "
          "Lemma 5's failure <= delta. Bound expression as printed.",
    monte_carlo=moment_coverage(_LAW, _M6, ("mean", "cov"), 0.1, deviation=risk_gap(_LAW))))
T8 = register(Bound(
    "000-T8", "hinge risk of the positive class (Rademacher)", "000", "Sec. 2.3.2, Theorem 8",
    r"\sup_W L^H_D(W) - L^H_S(W)", {"K": SYMBOLS["K"], "m": m, "delta": delta},
    2 * SYMBOLS["K"] / sp.sqrt(m) + 8 * SYMBOLS["K"] * sp.sqrt(2 * log(2 / delta) / m), delta,
    ["||w_j|| <= 1, ||x|| <= 1", delta_in_01()], status="as printed",
    notes="Valid but loose (the loss is <= 2, not 2K). Formula only; no Monte Carlo here."))


