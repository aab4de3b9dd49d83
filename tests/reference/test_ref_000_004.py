"""Cross-checks of the CVXPY references for papers 000 and 004 against
independent computations (closed forms, scipy.optimize, worst-case
distributions, Monte Carlo).  All seeded; runs in a few seconds."""
import os
import sys

import numpy as np
import pytest
from scipy import optimize, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helpers import rand_spd, two_class  # noqa: E402
from ref_000_004 import (  # noqa: E402
    closed_form_d2, hp_mpm_A, ref_background_risk, ref_hinge_minimax,
    ref_hp_mpm, ref_hp_mpm_moments, ref_mpm, ref_mpm_moments, sample_moments,
    sqrtm_psd)




# --------------------------------------------------------------------- 004 MPM
def test_mpm_uses_biased_covariance():
    rng = np.random.default_rng(0)
    X1, X0 = two_class(rng)
    r = ref_mpm(X1, X0)
    np.testing.assert_allclose(r["Sigma1"], np.cov(X1.T, bias=True), atol=1e-12)
    np.testing.assert_allclose(r["Sigma0"], np.cov(X0.T, bias=True), atol=1e-12)


def test_mpm_equal_covariance_closed_form():
    # Sigma1 = Sigma0 = S:  w* ∝ S^{-1} dmu,  kappa* = sqrt(dmu^T S^{-1} dmu) / 2
    rng = np.random.default_rng(1)
    d = 5
    S = rand_spd(rng, d)
    mu1, mu0 = rng.normal(size=d), rng.normal(size=d)
    dmu = mu1 - mu0
    r = ref_mpm_moments(mu1, S, mu0, S)
    kappa = np.sqrt(dmu @ np.linalg.solve(S, dmu)) / 2
    assert abs(r["kappa"] - kappa) < 1e-6 * kappa
    w_cf = np.linalg.solve(S, dmu)
    w_cf /= w_cf @ dmu
    np.testing.assert_allclose(r["w"], w_cf, rtol=1e-5, atol=1e-7)
    # b midway in Mahalanobis sense: b = (mu1+mu0)^T w / 2
    assert abs(r["b"] - 0.5 * w_cf @ (mu1 + mu0)) < 1e-6


def test_mpm_vs_scipy_and_bound():
    rng = np.random.default_rng(2)
    X1, X0 = two_class(rng)
    r = ref_mpm(X1, X0)
    mu1, S1, mu0, S0 = r["mu1"], r["Sigma1"], r["mu0"], r["Sigma0"]
    dmu = mu1 - mu0
    # independent: maximise kappa(w) = w^T dmu / (sqrt(w'S1w)+sqrt(w'S0w))
    # (scale invariant) with BFGS from many starts
    def negk(w):
        return -(w @ dmu) / (np.sqrt(w @ S1 @ w) + np.sqrt(w @ S0 @ w))
    best = min((optimize.minimize(negk, rng.normal(size=dmu.size) + dmu,
                                  method="BFGS", options={"gtol": 1e-10})
                for _ in range(5)), key=lambda o: o.fun)
    assert abs(-best.fun - r["kappa"]) < 1e-6 * r["kappa"]
    # no random direction beats kappa*
    for _ in range(200):
        assert -negk(rng.normal(size=dmu.size)) <= r["kappa"] + 1e-9
    # eq (3)-(5) consistency
    w = r["w"]
    assert abs(w @ dmu - 1) < 1e-8
    assert abs(r["objective"] - 1 / r["kappa"]) < 1e-9
    assert abs(r["b"] - r["b_from_class0"]) < 1e-6
    s = r["sqrt_wSw1"] + r["sqrt_wSw0"]
    assert abs(r["worst_case_error"] - s**2 / (1 + s**2)) < 1e-10  # eq (5) 2nd form
    # worst-case (1-D Cantelli) error of each class at (w, b) equals 1/(1+k^2)
    e1 = 1 / (1 + (w @ mu1 - r["b"]) ** 2 / (w @ S1 @ w))
    e0 = 1 / (1 + (r["b"] - w @ mu0) ** 2 / (w @ S0 @ w))
    assert abs(e1 - r["worst_case_error"]) < 1e-6
    assert abs(e0 - r["worst_case_error"]) < 1e-6


def test_mpm_degenerate_equal_means():
    S = np.eye(2)
    r = ref_mpm_moments(np.ones(2), S, np.ones(2), S)
    assert r["degenerate"] and r["worst_case_error"] == 1.0


# ------------------------------------------------------------------ 004 HP-MPM
def test_hp_mpm_reduces_to_mpm_when_A_zero():
    rng = np.random.default_rng(3)
    X1, X0 = two_class(rng, d=3)
    r = ref_mpm(X1, X0)
    h = ref_hp_mpm(X1, X0, 0.0, 0.0)
    assert abs(h["kappa"] - r["kappa"]) < 1e-5 * r["kappa"]
    # same direction (w normalised differently: ||w||=1 vs w^T dmu = 1)
    np.testing.assert_allclose(h["w"] / np.linalg.norm(h["w"]),
                               r["w"] / np.linalg.norm(r["w"]), atol=1e-3)


def test_hp_mpm_properties():
    rng = np.random.default_rng(4)
    X1, X0 = two_class(rng, d=3)
    mu1, S1 = sample_moments(X1)
    mu0, S0 = sample_moments(X0)
    dmu = mu1 - mu0
    A1, A0 = 0.02, 0.005
    h = ref_hp_mpm_moments(mu1, S1, mu0, S0, A1, A0)
    w, k = h["w"], h["kappa"]
    assert abs(np.linalg.norm(w) - 1) < 1e-5          # "optimal solution" ||w*||=1
    assert abs(h["b"] - h["b_from_class0"]) < 1e-5    # two forms of b_* agree
    # kappa_u bound of Sec. 4
    assert k <= np.linalg.norm(dmu) / (np.sqrt(w @ S1 @ w) + np.sqrt(w @ S0 @ w)) + 1e-9
    # eq. (11): 2A + k^2 (w'Sw + A) == k^2 w' (S + I(A + 2A/k^2)) w  for ||w||=1
    for A, S in ((A1, S1), (A0, S0)):
        St = S + np.eye(3) * (A + 2 * A / k**2)
        lhs = 2 * A + k**2 * (w @ S @ w + A)
        assert abs(lhs - k**2 * (w @ St @ w) / (w @ w)) < 1e-4 * lhs
    # HP-MPM kappa <= MPM kappa (uncertainty only shrinks it)
    assert k <= ref_mpm_moments(mu1, S1, mu0, S0)["kappa"] + 1e-9
    # Cor. 1 feasibility condition
    big = (np.linalg.norm(dmu) / 2) ** 2 / 2 * 1.01  # sqrt(2A1)+sqrt(2A0) > ||dmu||
    assert ref_hp_mpm_moments(mu1, S1, mu0, S0, big, big)["degenerate"]
    assert hp_mpm_A(1.0, 100, 0.05) == pytest.approx(
        2 / 10 * (2 + np.sqrt(2 * np.log(40))))


# ------------------------------------------------------- 000 background risk
def test_background_risk_K1_closed_form():
    rng = np.random.default_rng(5)
    d = 4
    S = rand_spd(rng, d)
    for _ in range(5):
        w, mu, b = rng.normal(size=d), rng.normal(size=d), rng.normal()
        r = ref_background_risk(w, mu, S, b=[b])
        t = w @ mu + b
        d2 = 0.0 if t >= 0 else t**2 / (w @ S @ w)
        assert abs(r["d2"] - d2) < 1e-6 * max(1, d2)
        assert abs(r["risk"] - 1 / (1 + d2)) < 1e-7


def _dual_d2(W, mu, S, b):
    # d2 = max_{lam>=0} -lam^T (W mu + b) - lam^T W S W^T lam / 4
    c, Q = W @ mu + b, W @ S @ W.T
    f = lambda l: l @ c + l @ Q @ l / 4  # noqa: E731
    g = lambda l: c + Q @ l / 2  # noqa: E731
    o = optimize.minimize(f, np.ones(len(c)), jac=g, method="L-BFGS-B",
                          bounds=[(0, None)] * len(c), options={"ftol": 1e-14, "gtol": 1e-12})
    return -o.fun, o.x


def test_background_risk_theorem1_closed_form_and_dual():
    rng = np.random.default_rng(6)
    d, K = 5, 3
    S = rand_spd(rng, d)
    n_checked = 0
    for trial in range(20):
        W = rng.normal(size=(K, d))
        mu = rng.normal(size=d) * 2
        b = np.zeros(K) if trial % 2 == 0 else rng.normal(size=K)
        r = ref_background_risk(W, mu, S, b=b)
        if r["d2"] == 0.0 or not np.isfinite(r["d2"]):
            continue
        n_checked += 1
        # Theorem 1 closed form on the active set
        assert abs(closed_form_d2(W, mu, S, r["active"], b) - r["d2"]) < 1e-5 * max(1, r["d2"])
        # corrected eq. (6): lam_U = -2 (U S U^T)^{-1} (U mu + b_U) >= 0
        U = W[r["active"]]
        lamU = -2 * np.linalg.solve(U @ S @ U.T, U @ mu + b[r["active"]])
        assert np.all(lamU > -1e-6)
        np.testing.assert_allclose(r["lam"][r["active"]], lamU, rtol=1e-4, atol=1e-6)
        # independent dual (bound-constrained, scipy)
        dd, _ = _dual_d2(W, mu, S, b)
        assert abs(dd - r["d2"]) < 1e-5 * max(1, r["d2"])
        # z* = mu + S U^T lam / 2
        np.testing.assert_allclose(r["z_star"], mu + S @ U.T @ lamU / 2, atol=1e-5)
    assert n_checked >= 5


def test_background_risk_attained_by_worst_case_distribution():
    """Distribution: mass p=1/(1+d2) at z*, mass 1-p on N(m', S') with
    m' = mu - (p/(1-p)) v, S' = (S - v v^T / d2)/(1-p), v = z* - mu.  It has
    mean mu, cov S, and P(region) = p exactly (N part lives on a hyperplane
    outside the region)."""
    rng = np.random.default_rng(7)
    d, K = 4, 3
    S = rand_spd(rng, d)
    W = rng.normal(size=(K, d))
    mu = -2.0 * W.mean(axis=0)  # mean outside the cone
    r = ref_background_risk(W, mu, S)
    assert 0 < r["d2"] < np.inf
    p, v = r["risk"], r["z_star"] - mu
    mprime = mu - p / (1 - p) * v
    Sprime = (S - np.outer(v, v) / r["d2"]) / (1 - p)
    assert np.linalg.eigvalsh(Sprime).min() > -1e-6
    # exact mixture moments
    mean = p * r["z_star"] + (1 - p) * mprime
    cov = (p * np.outer(r["z_star"] - mu, r["z_star"] - mu)
           + (1 - p) * (Sprime + np.outer(mprime - mu, mprime - mu)))
    np.testing.assert_allclose(mean, mu, atol=1e-8)
    np.testing.assert_allclose(cov, S, atol=1e-5)
    # Gaussian part never enters the region
    Z = rng.multivariate_normal(mprime, Sprime, size=20000, check_valid="ignore")
    assert np.mean(np.all(Z @ W.T >= 1e-7, axis=1)) == 0.0
    # and ordinary distributions with the same moments stay below the bound
    F = sqrtm_psd(S)
    G = rng.normal(size=(200000, d)) @ F + mu
    assert np.mean(np.all(G @ W.T >= 0, axis=1)) <= p
    T = rng.standard_t(df=5, size=(200000, d)) * np.sqrt(3 / 5) @ F + mu
    assert np.mean(np.all(T @ W.T >= 0, axis=1)) <= p


# ---------------------------------------------------------- 000 hinge-minimax
def _hm_data(rng, d=3, m=25):
    S = 0.2 * rand_spd(rng, d, cond=3.0)
    mu = np.array([-3.0] + [0.0] * (d - 1))
    X = rng.normal(size=(m, d)) * 0.7 + np.array([2.0] + [0.5] * (d - 1))
    return X, mu, S


@pytest.mark.parametrize("delta,shift,lam", [(0.05, 0.0, 0.3), (0.1, 1.4, 0.3),
                                              (0.2, 1.9, 3.0), (0.1, 1.4, 5.0),
                                              (0.1, 1.4, 0.01)])
def test_hinge_minimax_vs_scipy(delta, shift, lam):
    rng = np.random.default_rng(9)
    X, mu, S = _hm_data(rng)
    mu = mu + np.array([shift, 0.0, 0.0])
    r = ref_hinge_minimax(X, mu, S, lam, delta)
    assert np.linalg.norm(r["w"]) > 0.1
    g = np.sqrt((1 - delta) / delta)
    m, d = X.shape
    # independent: SLSQP on (w, xi) with smooth constraints
    #   xi >= 0, xi_i >= 1 - w^T x_i, -w^T mu >= 0, (w^T mu)^2 >= g^2 w^T S w
    def f(v):
        return lam * v[:d] @ v[:d] + v[d:].sum()
    cons = [
        {"type": "ineq", "fun": lambda v: v[d:]},
        {"type": "ineq", "fun": lambda v: v[d:] - (1 - X @ v[:d])},
        {"type": "ineq", "fun": lambda v: -(v[:d] @ mu)},
        {"type": "ineq", "fun": lambda v: (v[:d] @ mu) ** 2 - g**2 * v[:d] @ S @ v[:d]},
    ]
    best = None
    for _ in range(4):
        w0 = np.array([0.05] + list(rng.normal(size=d - 1) * 0.01))
        v0 = np.concatenate([w0, np.maximum(0, 1 - X @ w0) + 0.1])
        o = optimize.minimize(f, v0, constraints=cons, method="SLSQP",
                              options={"maxiter": 2000, "ftol": 1e-12})
        if o.success and (best is None or o.fun < best.fun):
            best = o
    assert best is not None
    assert abs(best.fun - r["objective"]) < 1e-4 * max(1, r["objective"])
    np.testing.assert_allclose(best.x[:d], r["w"], atol=1e-3)
    # gamma and the Cantelli meaning of the constraint
    assert abs(r["gamma"] - g) < 1e-12
    assert r["constraint_value"] < 1e-6
    assert r["worst_case_fp"] <= delta + 1e-6


def test_hinge_minimax_constraint_is_cantelli_and_tight():
    """When the constraint is active the worst-case false-positive probability
    equals delta, attained by the two-point law of t = w^T z:
    t = 0 w.p. p = s^2/(s^2+m^2), t = m + s^2/m otherwise (mean m, var s^2)."""
    rng = np.random.default_rng(9)
    X, mu, S = _hm_data(rng)
    mu = mu + np.array([1.4, 0.0, 0.0])  # background close enough -> active
    delta = 0.1
    r = ref_hinge_minimax(X, mu, S, lam=0.01, delta=delta)
    w = r["w"]
    assert np.linalg.norm(w) > 0.1
    mt, s2 = w @ mu, w @ S @ w
    assert abs(r["constraint_value"]) < 1e-5  # active for this data
    p = s2 / (s2 + mt**2)
    assert abs(p - delta) < 1e-5
    c = mt + s2 / mt
    mean, var = (1 - p) * c, p * mt**2 + (1 - p) * (c - mt) ** 2
    assert abs(mean - mt) < 1e-9 and abs(var - s2) < 1e-9
    # Gaussian background with the same moments: far below delta
    assert stats.norm.sf(-mt / np.sqrt(s2)) < delta
    # Cantelli MC with a skewed law (shifted exponential) stays below delta
    e = rng.exponential(size=400000)
    t = mt + np.sqrt(s2) * (e - 1)
    assert np.mean(t >= 0) <= delta


def test_hinge_minimax_bias_option_and_feasible_zero():
    rng = np.random.default_rng(10)
    X, mu, S = _hm_data(rng)
    r0 = ref_hinge_minimax(X, mu, S, 0.3, 0.1)
    rb = ref_hinge_minimax(X, mu, S, 0.3, 0.1, bias=True)
    assert rb["objective"] <= r0["objective"] + 1e-6  # more freedom
    assert rb["constraint_value"] < 1e-6
    # w = 0 is always feasible -> objective <= m
    assert r0["objective"] <= X.shape[0] + 1e-6
