"""Seeded checks of the reference implementations for papers 001 (MCP) and 003 (error clumping).

See docs/derivations/001.md and 003.md for the exact programs and the claims inventory.
"""
import math
import os
import sys

import cvxpy as cp
import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ref_001_003 import (  # noqa: E402
    build_theta,
    dual_exponent,
    ellipsoid_instance as ellipsoids,
    error_clumping_alg1,
    hole_punch_ball,
    lq_oracle,
    manifold_min_margin,
    manifold_norm_bound,
    mcp_bounds,
    neighbourhoods_ball_point,
    rademacher_disjoint_intervals,
    ref_error_clumping,
    ref_error_clumping_dual,
    ref_mcp_cutting_plane,
    ref_mcp_exact,
    theta_sos_weights,
)

QS = [1, 1.5, 2, 3, math.inf]
TOL = 1e-6  # interior-point accuracy slack


def qnorm(s, q, axis=-1):
    return np.linalg.norm(s, ord=np.inf if math.isinf(q) else q, axis=axis)


# ---------------------------------------------------------------------------
# 001 Sec. 4.1: Lq oracle
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("q", QS)
def test_lq_oracle_against_brute_force(q):
    rng = np.random.default_rng(11)
    D = 3
    for _ in range(5):
        a = rng.standard_normal(D)
        orc = lq_oracle(a, q)
        s = orc["s"]
        # feasible, on the boundary, value = -||a||_{q*}
        assert qnorm(s, q) <= 1 + 1e-12
        assert abs(qnorm(s, q) - 1) < 1e-9
        assert orc["value"] == pytest.approx(-qnorm(a, dual_exponent(q)), rel=1e-10)
        assert orc["value"] == pytest.approx(a @ s, rel=1e-12)
        # brute force: 200k points of the unit Lq sphere (min of a linear form is on it)
        g = rng.uniform(-1, 1, (200000, D))
        smp = g / qnorm(g, q)[:, None]
        vals = smp @ a
        assert vals.min() >= orc["value"] - 1e-12  # never beaten
        assert vals.min() - orc["value"] <= 0.02 * np.abs(a).sum()  # and nearly attained


@pytest.mark.parametrize("q", QS)
def test_lq_oracle_against_cvxpy(q):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(6)
    s = cp.Variable(6)
    prob = cp.Problem(cp.Minimize(a @ s), [cp.pnorm(s, "inf" if math.isinf(q) else q) <= 1])
    prob.solve(solver=cp.CLARABEL)
    assert lq_oracle(a, q)["value"] == pytest.approx(prob.value, abs=1e-6)


def test_paper_oracle_formula_without_radii_is_suboptimal():
    """001 Sec. 4.1 prints s_i = -(h_i)^{1/(q-1)} / (sum h_i^{q/(q-1)})^{1/q}, h_i = y w.u_i.
    The coefficient of s_i in y w.(x_c + sum R_i s_i u_i) is R_i h_i, so with unequal radii the
    printed formula (taken literally, with the sign fixed) does not minimise."""
    rng = np.random.default_rng(0)
    N, D, q = 8, 3, 2.0
    w, c, U = rng.standard_normal(N), rng.standard_normal(N), rng.standard_normal((N, D))
    r, y = np.array([0.2, 1.0, 5.0]), 1.0
    h = y * (U.T @ w)
    qs = q / (q - 1)
    s_paper = -np.sign(h) * np.abs(h) ** (1 / (q - 1)) / np.sum(np.abs(h) ** qs) ** (1 / q)
    val_paper = y * w @ (c + U @ (r * s_paper))
    val_ref = manifold_min_margin(w, c, U, r, y, q)["value"]
    assert val_ref < val_paper - 1e-3


# ---------------------------------------------------------------------------
# 001: exact vs cutting plane, Thm 1, Cor 2, Cor 3 (hard margin)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("q", QS)
@pytest.mark.parametrize("delta", [0.2, 0.05])
def test_mcp_simple_bracket_and_iterations(q, delta):
    c, U, r, y = ellipsoids(3, 6, 20, 4, 2.0)
    ex = ref_mcp_exact(c, U, r, y, q=q)
    assert ex["status"] == cp.OPTIMAL
    assert np.all(ex["manifold_margins"] >= 1 - 1e-6)  # exactly feasible for the QSIP
    run = ref_mcp_cutting_plane(c, U, r, y, q=q, delta=delta)
    assert run["converged"]
    nw2, nstar2 = float(run["w"] @ run["w"]), float(ex["w"] @ ex["w"])
    # Cor 3: ||w_MCP||^2 <= ||w*||^2 <= ||w_MCP||^2 / (1-delta)^2
    assert nw2 <= nstar2 * (1 + TOL)
    assert nstar2 <= nw2 / (1 - delta) ** 2 * (1 + TOL)
    # termination => w_MCP/(1-delta) feasible for (2.1)
    wp = run["w"] / (1 - delta)
    for p in range(len(c)):
        assert manifold_min_margin(wp, c[p], U[p], r[p], y[p], q)["value"] >= 1 - 1e-6
    # Thm 1: ||w_{k+1}||^2 - ||w_k||^2 >= delta_k^2 / ||x_{k+1}||^2 >= delta_k^2 / L^2
    L = manifold_norm_bound(c, U, r, q)
    h = run["history"]
    for a, b in zip(h[:-1], h[1:]):
        assert a["x_norm"] <= L + 1e-9
        assert b["w_norm2"] - a["w_norm2"] >= a["delta_k"] ** 2 / a["x_norm"] ** 2 - 1e-6
    # Cor 2: K < L^2 / (kappa^2 delta^2), 1/kappa^2 = ||w*||^2 = 2 F*
    bnd = mcp_bounds(c, U, r, y, q=q, delta=delta, L=L, F_star=ex["objective"])
    assert run["n_iter"] < bnd["cor2"]


# ---------------------------------------------------------------------------
# 001: exact vs cutting plane, Thm 2, Cor 4, Cor 5 (manifold slack with centers)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("q,C", [(1, 1.0), (1.5, 1.0), (2, 1.0), (2, 0.1), (3, 10.0), (math.inf, 1.0)])
def test_mcp_slack_bracket_and_iterations(q, C):
    c, U, r, y = ellipsoids(1, 8, 10, 4, 3.0)
    delta = 0.05
    ex = ref_mcp_exact(c, U, r, y, q=q, C=C)
    assert ex["status"] == cp.OPTIMAL
    run = ref_mcp_cutting_plane(c, U, r, y, q=q, C=C, delta=delta)
    assert run["converged"]
    P = len(c)
    Fm, Fs = run["objective"], ex["objective"]
    # Cor 5: F_MCP <= F* <= F_MCP + P C delta
    assert Fm <= Fs * (1 + TOL) + TOL
    assert Fs <= Fm + P * C * delta + TOL
    # slacks xi_MCP + delta are feasible for the semi-infinite program
    for p in range(P):
        mm = manifold_min_margin(run["w"], c[p], U[p], r[p], y[p], q)["value"]
        assert mm + run["xi"][p] + delta >= 1 - 1e-6
        assert y[p] * run["w"] @ c[p] >= 1 - 1e-6  # center constraints
    # Thm 2: F_{k+1} - F_k >= min(delta_k^2/(8 L^2), C delta_k / 2)
    L = manifold_norm_bound(c, U, r, q)
    h = run["history"]
    for a, b in zip(h[:-1], h[1:]):
        assert b["objective"] - a["objective"] >= min(a["delta_k"] ** 2 / (8 * L ** 2), C * a["delta_k"] / 2) - 1e-6
    bnd = mcp_bounds(c, U, r, y, q=q, C=C, delta=delta, L=L, F_star=Fs, F_1=h[0]["objective"],
                     w_1=None)
    # Cor 4 as corrected: K <= (F* - F_1) / min(delta^2/(8L^2), C delta/2)
    assert run["n_iter"] <= bnd["cor4_corrected"]
    # Cor 4 as printed holds on this instance (its proof does not, see next test)
    assert run["n_iter"] <= bnd["cor4_paper"]


def test_cor4_proof_step_refuted_by_center_constraints():
    """001 Cor 4's proof claims F* <= F(w=0, xi=1) = P C; w=0 violates the center constraints
    y_p<w, x_p^c> >= 1 and indeed F* > P C here."""
    c, U, r, y = ellipsoids(1, 8, 10, 4, 3.0)
    C = 1.0
    ex = ref_mcp_exact(c, U, r, y, q=2, C=C)
    assert ex["objective"] > len(c) * C * 2  # 19.2 > 8


def test_slack_exact_without_centers_bounded_by_PC():
    """Sanity: the bound F* <= P C used in Cor 4 is valid when the center constraints are
    dropped (w=0, xi=1 feasible); computed here with a direct cvxpy model."""
    c, U, r, y = ellipsoids(1, 8, 10, 4, 3.0)
    C = 1.0
    N = c.shape[1]
    w, xi = cp.Variable(N), cp.Variable(len(c))
    cons = [y[p] * c[p] @ w - cp.norm(cp.multiply(r[p], U[p].T @ w), 2) + xi[p] >= 1 for p in range(len(c))]
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)), cons + [xi >= 0])
    prob.solve(solver=cp.CLARABEL)
    assert prob.value <= len(c) * C + 1e-8


# ---------------------------------------------------------------------------
# 003: Theta, error-clumping QP
# ---------------------------------------------------------------------------


def clumping_data(seed=0, m=60):
    rng = np.random.default_rng(seed)
    X = np.c_[rng.standard_normal((m, 2)), np.ones(m)]
    y = np.sign(X[:, 0] + 0.8 * rng.standard_normal(m))
    y[y == 0] = 1
    return X, y


def test_theta_construction_and_psd():
    X, _ = clumping_data()
    rho = 1.0
    nb = neighbourhoods_ball_point(X, rho)
    m = len(X)
    for eta in [0.0, 0.3, 1.0]:
        th = build_theta(X, rho, eta)
        T = th["Theta"].toarray()
        # definition, entrywise, from independent neighbourhood lists and brute-force distances
        Dm = np.linalg.norm(X[:, None] - X[None], axis=2)
        for i in range(m):
            assert sorted(np.flatnonzero((Dm[i] <= rho) & (np.arange(m) != i))) == nb[i]
            assert T[i, i] == 1.0
            for j in range(m):
                if j != i:
                    assert T[i, j] == (-eta / (m - 1) if j in nb[i] else 0.0)
        assert np.allclose(T, T.T)
        ev = np.linalg.eigvalsh(T)
        assert ev.min() >= 1 - eta - 1e-12  # Gershgorin: spectrum in [1-eta, 1+eta]
        assert ev.max() <= 1 + eta + 1e-12
        sos = theta_sos_weights(X, rho, eta)
        assert np.all(sos["a"] >= 1 - eta - 1e-15)
        rng = np.random.default_rng(1)
        z = rng.standard_normal(m)
        E = sos["edges"]
        q_sos = np.sum(sos["a"] * z ** 2) + sos["b"] * np.sum((z[E[:, 0]] - z[E[:, 1]]) ** 2)
        assert q_sos == pytest.approx(z @ T @ z, rel=1e-12)


def test_theta_not_psd_for_eta_above_one():
    """eta in [0,1] is sharp: complete neighbourhood graph has eigenvalue 1 - eta."""
    X = np.zeros((5, 2)) + 1e-3 * np.arange(5)[:, None]
    T = build_theta(X, rho=1.0, eta=1.5)["Theta"].toarray()
    assert np.linalg.eigvalsh(T).min() == pytest.approx(-0.5)


@pytest.mark.parametrize("eta", [0.0, 0.5, 0.9])
def test_error_clumping_cvxpy_vs_dual(eta):
    X, y = clumping_data()
    lam, rho = 0.1, 1.0
    r = ref_error_clumping(X, y, rho, eta, lam)
    assert r["status"] == cp.OPTIMAL
    assert r["objective"] == pytest.approx(r["objective_check"], rel=1e-9)
    d = ref_error_clumping_dual(X, y, rho, eta, lam)
    assert d["success"]
    # weak duality bracket and agreement
    assert d["dual_value"] <= r["objective"] + 1e-7
    assert r["objective"] <= d["primal_value_feasible"] + 1e-7
    assert r["objective"] == pytest.approx(d["dual_value"], rel=1e-5)
    assert np.allclose(r["w"], d["w"], atol=1e-4)
    # KKT: (1/m) Theta xi = alpha + beta >= 0
    assert (r["Theta"] @ r["xi"]).min() >= -1e-6


def test_error_clumping_eta0_is_squared_hinge():
    X, y = clumping_data()
    r = ref_error_clumping(X, y, 1.0, 0.0, 0.1)
    g = r["g"]
    pos = g > 1e-3
    assert np.allclose(r["xi"][pos], g[pos], atol=1e-6)
    assert np.all(r["xi"][~pos] <= 1e-3)  # = max(0, g) up to interior-point flatness


def test_error_clumping_xi_not_hinge_and_not_zero():
    """003 Sec. 2: for eta > 0 the optimal xi_i can exceed max(0, 1 - y_i<w,x_i>) and the
    optimal xi is not the zero vector (the printed sentence 'the optimal xi is the zero vector'
    is false)."""
    X, y = clumping_data()
    r = ref_error_clumping(X, y, 1.0, 0.5, 0.1)
    gap = r["xi"] - np.maximum(0.0, r["g"])
    assert gap.max() > 1e-2
    assert np.abs(r["xi"]).max() > 0.1
    # where xi_i > max(0, g_i), stationarity forces (Theta xi)_i = 0
    idx = gap > 1e-3
    assert np.abs((r["Theta"] @ r["xi"])[idx]).max() < 1e-5


def test_alg1_primal_dual_converges():
    X, y = clumping_data()
    r = ref_error_clumping(X, y, 1.0, 0.5, 0.1)
    a = error_clumping_alg1(X, y, 1.0, 0.5, 0.1, T=20000, c=1.0, seed=0)
    assert a["objective"] == pytest.approx(r["objective"], rel=1e-2)
    # the average includes (w_1, xi_1) = (0, 0), infeasible by exactly 1/T
    viol = np.max(1 - y * (X @ a["w"]) - a["xi"])
    assert viol == pytest.approx(1.0 / 20000, rel=1e-6)


def test_hole_punch_heuristic_can_fail():
    """003 Sec. 5.2: center = point whose neighbourhood has most errors; no ball around it is
    > 50% misclassified although errors exist."""
    X = np.array([[-1.0], [-0.5], [0.0], [0.5], [1.0]])
    yt = np.array([1, 1, 1, 1, 1])
    yp = np.array([-1, 1, 1, 1, -1])  # errors at +-1 only
    assert hole_punch_ball(X, yt, yp, rho=1.0) is None
    # it fails even for a contiguous clump of two errors (center 0 is correct, 2 error nbrs)
    assert hole_punch_ball(X, yt, np.array([-1, -1, 1, 1, 1]), rho=1.0) is None
    # on a benign configuration it returns a > 50%-error ball (ties -> first index)
    b = hole_punch_ball(X, yt, np.array([-1, -1, -1, 1, 1]), rho=1.0)
    assert b is not None and b["n_err"] > b["n_in"] / 2
    assert b["center"] == 0 and b["radius"] == 2.0 and (b["n_in"], b["n_err"]) == (5, 3)


def test_rademacher_thm1_monte_carlo():
    """003 Thm 1 with G = intervals on a line (VC 2 <= d_G = 3), H = constants in [-1, 1]
    (R_m(H) <= 1/sqrt(m), d_H = 1): the empirical complexity stays below both forms of the bound."""
    rng = np.random.default_rng(0)
    m = 30
    for k in [1, 2, 3]:
        vals = [rademacher_disjoint_intervals(rng.choice([-1.0, 1.0], m), k) for _ in range(60)]
        est = float(np.mean(vals))
        b_sqrtk = math.sqrt(k) * (math.sqrt(1.0 / m) + 8 * math.sqrt(3 * math.log(m) / m))
        assert est <= b_sqrtk
        # the sqrt(k) first term alone (sqrt(k d_H / m)) is NOT a bound: the log term is needed
        assert est > math.sqrt(k / m)
