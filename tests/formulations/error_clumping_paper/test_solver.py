"""The structured certified solver of eq. (1) (solver.py): agrees with Clarabel inside a rigorous interval, the
interval contains the optimum, both descent methods, warm-started paths, degenerate and bad input."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from certiprog.certify import check
from certiprog.errors import CertiprogError
from certiprog.formulations.error_clumping_paper.graph import radius_graph
from certiprog.formulations.error_clumping_paper.programs import error_clumping
from certiprog.formulations.error_clumping_paper.solver import (
    certify_error_clumping, solve_error_clumping, solve_error_clumping_path,
)


def data(seed, m=60, n=2, noise=0.8):
    rng = np.random.default_rng(seed)
    X = np.c_[rng.standard_normal((m, n)), np.ones(m)]
    y = np.where(X[:, 0] + noise * rng.standard_normal(m) > 0, 1.0, -1.0)
    if abs(y.sum()) == m:
        y[0] = -y[0]
    return X, y


def clarabel_interval(X, y, rho, eta, lam):
    model = error_clumping(X, y, rho, eta, lam)
    sol = model.solve(backend="clarabel")
    cert = check(model, sol)
    return sol, cert


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10 ** 6), m=st.integers(8, 80), eta=st.sampled_from([0.0, 0.3, 0.5, 0.9, 1.0]),
       lam=st.sampled_from([1e-3, 0.1, 1.0]), rho=st.floats(0.3, 3.0), method=st.sampled_from(["newton", "agd"]))
def test_agrees_with_clarabel_inside_a_rigorous_interval(seed, m, eta, lam, rho, method):
    X, y = data(seed, m)
    fit = solve_error_clumping(X, y, rho, eta, lam, tol=1e-7, method=method)
    assert fit.certified and fit.status == "optimal" and fit.rel_gap <= 1e-7
    assert 0.0 <= fit.lower <= fit.objective <= fit.upper
    sol, cert = clarabel_interval(X, y, rho, eta, lam)
    # Clarabel's answer agrees to its own accuracy, and the two rigorous intervals overlap (both contain p*)
    assert abs(sol.objective - fit.upper) <= 1e-6 * max(1.0, fit.upper)
    if cert.interval is not None and np.all(np.isfinite(cert.interval)):
        lo, hi = cert.interval
        assert lo <= fit.upper and fit.lower <= hi
    # the returned point is feasible in floating point too
    assert np.all(fit.xi >= 0) and np.all(fit.xi >= 1 - y * (X @ fit.w))


def test_interval_contains_the_optimum_from_an_arbitrary_point():
    X, y = data(1, 80)
    A = radius_graph(X, 1.0)
    best = solve_error_clumping(X, y, 1.0, 0.5, 0.1, tol=1e-10)
    for w in (np.zeros(3), best.w + 0.3, best.w * 1.001):
        c = certify_error_clumping(X, y, A, 0.5, 0.1, w)
        assert c["lower"] <= best.upper and best.lower <= c["upper"]
        assert c["lower"] <= c["upper"]
    far = certify_error_clumping(X, y, A, 0.5, 0.1, best.w + 0.3)
    assert far["upper"] - far["lower"] > 1e3 * (best.upper - best.lower)  # a bad point gives a wide interval


def test_eta_zero_is_squared_hinge():
    X, y = data(2, 100)
    fit = solve_error_clumping(X, y, 1.0, 0.0, 0.1, tol=1e-9)
    hinge = np.maximum(0, 1 - y * (X @ fit.w))
    np.testing.assert_allclose(fit.xi, hinge, atol=1e-9)
    assert fit.info["inner_iterations"] == 0


def test_slack_lifted_above_hinge_where_theta_xi_vanishes():
    X, y = data(3, 80)
    fit = solve_error_clumping(X, y, 1.0, 0.9, 0.1, tol=1e-9)
    A = radius_graph(X, 1.0)
    lifted = fit.xi - np.maximum(0, 1 - y * (X @ fit.w)) > 1e-6
    assert lifted.any()
    theta_xi = fit.xi - 0.9 / 79 * (A @ fit.xi)
    np.testing.assert_allclose(theta_xi[lifted], 0.0, atol=1e-7)


def test_path_warm_starts_and_matches_cold_solves():
    X, y = data(4, 120)
    etas = [0.0, 0.25, 0.5, 0.75]
    path = solve_error_clumping_path(X, y, 1.2, etas=etas, lams=0.05, tol=1e-8)
    cold = [solve_error_clumping(X, y, 1.2, e, 0.05, tol=1e-8) for e in etas]
    for p, c in zip(path, cold):
        assert p.certified and p.lower <= c.upper and c.lower <= p.upper
    assert sum(p.iterations for p in path[1:]) <= sum(c.iterations for c in cold[1:])
    lams = solve_error_clumping_path(X, y, 1.2, etas=0.5, lams=[1.0, 0.1, 0.01], tol=1e-8)
    assert [f.info["lam"] for f in lams] == [1.0, 0.1, 0.01] and all(f.certified for f in lams)
    with pytest.raises(CertiprogError):
        solve_error_clumping_path(X, y, 1.2, etas=[0.1, 0.2], lams=[1.0, 0.1, 0.01])


def test_degenerate_theta_singular_is_honest():
    # eta = 1 and every point within rho of every other: Theta has the eigenvalue 1 - eta = 0 (constant vector);
    # only p* >= 0 is provable from the dual side, and the status says whether that suffices
    X, y = data(5, 12)
    fit = solve_error_clumping(X, y, 100.0, 1.0, 0.1, tol=1e-6, max_iter=50)
    assert fit.info["mu_theta"] <= 0
    assert fit.lower == 0.0 and fit.upper >= fit.objective >= 0
    assert fit.certified == (fit.rel_gap <= 1e-6)
    assert fit.status in ("optimal", "inaccurate", "iteration_limit", "stalled")
    sol = error_clumping(X, y, 100.0, 1.0, 0.1).solve(backend="clarabel")
    assert sol.objective <= fit.upper + 1e-6


def test_iteration_limit_reported_with_a_valid_interval():
    X, y = data(6, 80)
    fit = solve_error_clumping(X, y, 1.0, 0.5, 1e-3, tol=1e-12, method="agd", max_iter=3)
    assert not fit.certified and fit.status in ("iteration_limit", "inaccurate")
    best = solve_error_clumping(X, y, 1.0, 0.5, 1e-3, tol=1e-9)
    assert fit.lower <= best.upper and best.lower <= fit.upper


def test_scaled_data():
    X, y = data(7, 60)
    for s in (1e-4, 1e4):
        fit = solve_error_clumping(X * s, y, 1.0 * s, 0.5, 0.1, tol=1e-6)
        assert fit.certified, (s, fit.rel_gap, fit.status)


@pytest.mark.parametrize("bad", [dict(eta=-0.1), dict(eta=1.5), dict(eta=np.nan), dict(rho=0.0), dict(rho=-1.0),
                                 dict(lam=0.0), dict(y="one class"), dict(X="zero columns"), dict(X="nan"),
                                 dict(y="labels"), dict(method="sgd"), dict(tol=0.0), dict(w0=np.ones(7))])
def test_bad_input(bad):
    X, y = data(8, 30)
    args = dict(rho=1.0, eta=0.5, lam=0.1)
    kw = {}
    for k, v in bad.items():
        if k == "X" and v == "zero columns":
            X = X[:, :0]
        elif k == "X" and v == "nan":
            X = X.copy()
            X[2, 0] = np.nan
        elif k == "y" and v == "one class":
            y = np.ones_like(y)
        elif k == "y" and v == "labels":
            y = np.where(y > 0, 1.0, 0.0)
        elif k in args:
            args[k] = v
        else:
            kw[k] = v
    with pytest.raises(CertiprogError):
        solve_error_clumping(X, y, args["rho"], args["eta"], args["lam"], **kw)


def test_upper_end_bounds_the_exact_rational_objective_of_the_returned_point():
    from fractions import Fraction as F

    X, y = data(9, 14)
    eta, lam = 0.7, 0.05
    fit = solve_error_clumping(X, y, 1.5, eta, lam, tol=1e-9)
    A = radius_graph(X, 1.5).toarray()
    m = len(y)
    w = [F(v) for v in fit.w]
    xi = [F(v) for v in fit.xi]
    c = F(eta) / (m - 1)
    for i in range(m):  # exactly feasible
        assert xi[i] >= 0 and xi[i] >= 1 - F(y[i]) * sum(F(X[i, j]) * w[j] for j in range(X.shape[1]))
    quad = sum(xi[i] * xi[i] for i in range(m)) - c * sum(xi[i] * xi[j] for i in range(m) for j in range(m) if A[i, j])
    exact = F(lam) / 2 * sum(v * v for v in w) + quad / (2 * m)
    assert F(fit.lower) <= exact <= F(fit.upper)


def test_model_solve_structured_reaches_the_solver_and_is_checked():
    X, y = data(10, 70)
    model = error_clumping(X, y, 1.0, 0.5, 0.1)
    sol = model.solve(solver="structured", tol=1e-9)
    assert sol.status == "optimal" and sol.backend == "structured"
    lo, hi = sol.solver_interval
    assert lo <= sol.objective <= hi * (1 + 1e-12) and sol.info["certified"]
    assert sol.verdict.startswith(("certified", "accurate")), sol.verdict
    ref = error_clumping(X, y, 1.0, 0.5, 0.1).solve(backend="clarabel")
    assert abs(ref.objective - sol.objective) <= 1e-6 * sol.objective
    assert model.variables["w"].value is not None and model.derived(sol).n_errors >= 0
    cert = check(model, sol)
    assert cert.verdict.startswith(("certified", "accurate"))
    with pytest.raises(CertiprogError, match="structured"):
        model.solve(solver="structured", backend="clarabel")
    from certiprog.model import Model, Variable, minimize, sum_squares

    v = Variable(2, "v")
    plain = Model(minimize(sum_squares(v)), [v >= 1])
    with pytest.raises(CertiprogError, match="no structured solver"):
        plain.solve(solver="structured")
