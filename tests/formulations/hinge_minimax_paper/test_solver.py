"""The certified first-order solver for 000 eq. (8) (`hinge_minimax_paper.solver`): its rigorous interval holds
Clarabel's optimum, its point is feasible, the degenerate cone gives w = 0, and bad input is refused."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import CertiprogError, InputError
from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax
from certiprog.formulations.hinge_minimax_paper.solver import _box_ball_project, solve_hinge_minimax, solve_model


def _instance(m, d, seed, sep=3.0):
    rng = np.random.default_rng(seed)
    s = sep / np.sqrt(d)
    X = rng.normal(size=(m, d)) + s
    Z = rng.normal(size=(max(50, 4 * d), d)) - s
    return X, Z.mean(axis=0), np.cov(Z.T) + 1e-3 * np.eye(d)


def _constraint(w, mu, Sigma, delta):
    g = np.sqrt((1 - delta) / delta)
    return g * np.sqrt(max(w @ Sigma @ w, 0.0)) + mu @ w


@settings(max_examples=15, deadline=None, derandomize=True)
@given(m=st.integers(3, 60), d=st.integers(1, 6), lam=st.floats(0.05, 10.0), delta=st.floats(0.1, 0.9),
       sep=st.floats(0.0, 6.0), seed=st.integers(0, 10**6))
def test_interval_holds_clarabels_optimum(m, d, lam, delta, sep, seed):
    X, mu, S = _instance(m, d, seed, sep)
    fit = solve_hinge_minimax(X, mu, S, lam, delta, tol=1e-6)
    ref = hinge_minimax(X, mu, S, lam, delta).solve(backend="clarabel")
    assert fit.lower <= fit.upper
    slack = 1e-6 * max(1.0, abs(ref.objective))
    assert fit.lower - slack <= ref.objective <= fit.upper + slack
    assert fit.lower <= fit.objective <= fit.upper * (1 + 1e-12) + 1e-12
    assert _constraint(fit.w, mu, S, delta) <= 1e-9 * (1 + np.linalg.norm(fit.w))
    if fit.certified:
        assert fit.rel_gap <= 1e-6 and fit.status in ("optimal", "trivial")


def test_reaches_the_goal_tolerance_and_agrees_with_clarabel():
    X, mu, S = _instance(400, 12, 7)
    fit = solve_hinge_minimax(X, mu, S, 1.0, 0.5, tol=1e-5)
    assert fit.certified and fit.status == "optimal" and fit.rel_gap <= 1e-5
    model = hinge_minimax(X, mu, S, 1.0, 0.5)
    ref = model.solve(backend="clarabel")
    assert fit.lower <= ref.objective + 1e-8 and ref.objective <= fit.upper + 1e-8
    assert np.linalg.norm(fit.w - ref.value("w")) <= 1e-2 * np.linalg.norm(ref.value("w"))
    same = solve_model(model, tol=1e-5)
    assert same.lower == pytest.approx(fit.lower) and same.upper == pytest.approx(fit.upper)


def test_only_w_zero_is_feasible():
    X, mu, S = _instance(30, 4, 1, sep=0.0)
    mu = np.zeros(4)  # gamma ||L'w|| <= 0 forces w = 0
    fit = solve_hinge_minimax(X, mu, S, 1.0, 0.3, tol=1e-6, max_iter=3000)
    assert fit.status in ("trivial", "inaccurate") and np.all(fit.w == 0) and fit.upper == 30.0
    assert fit.lower <= 30.0


def test_iteration_limit_still_gives_a_rigorous_interval():
    X, mu, S = _instance(200, 5, 3)
    fit = solve_hinge_minimax(X, mu, S, 0.5, 0.5, tol=1e-12, max_iter=3)
    ref = hinge_minimax(X, mu, S, 0.5, 0.5).solve(backend="clarabel")
    assert not fit.certified and fit.status == "inaccurate"
    assert fit.lower <= ref.objective + 1e-9 <= fit.upper + 2e-9


def test_warm_start_from_a_neighbouring_fit():
    X, mu, S = _instance(300, 6, 5)
    cold = solve_hinge_minimax(X, mu, S, 1.0, 0.5, tol=1e-6)
    warm = solve_hinge_minimax(X, mu, S, 1.1, 0.5, tol=1e-6, alpha0=cold.alpha, y0=cold.y)
    ref = hinge_minimax(X, mu, S, 1.1, 0.5).solve(backend="clarabel")
    assert warm.certified and warm.lower - 1e-8 <= ref.objective <= warm.upper + 1e-8


@pytest.mark.parametrize("scale", [1e-8, 1e8])
def test_scaled_data_is_never_certified_wrongly(scale):
    X, mu, S = _instance(100, 4, 2)
    fit = solve_hinge_minimax(X * scale, mu * scale, S * scale ** 2, 1.0, 0.5, tol=1e-6, max_iter=2000)
    assert fit.lower <= fit.objective <= fit.upper * (1 + 1e-12) + 1e-12
    assert _constraint(fit.w, mu * scale, S * scale ** 2, 0.5) <= 1e-9 * scale * (1 + np.linalg.norm(fit.w))


def test_bad_input_is_refused():
    X, mu, S = _instance(20, 3, 0)
    bad_X = X.copy()
    bad_X[0, 0] = np.nan
    cases = [
        lambda: solve_hinge_minimax(bad_X, mu, S, 1.0, 0.5),
        lambda: solve_hinge_minimax(X, mu[:2], S, 1.0, 0.5),
        lambda: solve_hinge_minimax(X, mu, -np.eye(3), 1.0, 0.5),
        lambda: solve_hinge_minimax(X, mu, S, 0.0, 0.5),
        lambda: solve_hinge_minimax(X, mu, S, 1.0, 1.0),
        lambda: solve_hinge_minimax(X, mu, S, 1.0, 0.5, tol=0.0),
        lambda: solve_hinge_minimax(X, mu, S, 1.0, 0.5, max_iter=-1),
        lambda: solve_hinge_minimax(X, mu, S, 1.0, 0.5, check_every=0),
        lambda: solve_hinge_minimax(X, mu, S, 1.0, 0.5, alpha0=np.ones(3)),
        lambda: solve_model(hinge_minimax(X, mu, S, 1.0, 0.5, bias=True, squared_reg=False)),
        lambda: solve_model(hinge_minimax(X, mu, S, 0.0, 0.5, bias=True)),
        lambda: solve_hinge_minimax(X, mu, S, 1.0, 0.5, bias=1),
        lambda: solve_hinge_minimax(X, mu, S, 1.0, 0.5, bias=True, y0=np.ones(2)),
        lambda: solve_hinge_minimax(np.full((20, 3), 1e308), np.full(3, -1e308), S, 1.0, 0.5, bias=True),
        lambda: solve_hinge_minimax(X * 1e200, mu, S, 1.0, 0.5),
        lambda: solve_model(object()),
    ]
    for case in cases:
        with pytest.raises(InputError):
            case()
    assert issubclass(InputError, CertiprogError)


# ------------------------------------------------------------------------------------------------ bias=True
def _constraint_b(w, b, mu, Sigma, delta):
    return _constraint(w, mu, Sigma, delta) + b


@settings(max_examples=15, deadline=None, derandomize=True)
@given(m=st.integers(3, 60), d=st.integers(1, 6), lam=st.floats(0.05, 10.0), delta=st.floats(0.1, 0.9),
       sep=st.floats(0.0, 6.0), seed=st.integers(0, 10**6))
def test_bias_interval_holds_clarabels_optimum(m, d, lam, delta, sep, seed):
    X, mu, S = _instance(m, d, seed, sep)
    fit = solve_hinge_minimax(X, mu, S, lam, delta, bias=True, tol=1e-6)
    ref = hinge_minimax(X, mu, S, lam, delta, bias=True).solve(backend="clarabel")
    assert fit.lower <= fit.upper
    slack = 1e-6 * max(1.0, abs(ref.objective))
    assert fit.lower - slack <= ref.objective <= fit.upper + slack
    assert fit.lower <= fit.objective <= fit.upper * (1 + 1e-12) + 1e-12
    assert _constraint_b(fit.w, fit.b, mu, S, delta) <= 1e-12 * (1 + np.linalg.norm(fit.w) + abs(fit.b))
    assert fit.y[0] == pytest.approx(fit.alpha.sum(), rel=1e-12, abs=1e-300)  # y0 = 1'alpha (b free)
    if fit.certified:
        assert fit.rel_gap <= 1e-6 and fit.status == "optimal"


def test_bias_agrees_with_clarabel_in_w_and_b_and_through_the_model():
    X, mu, S = _instance(500, 10, 11)
    model = hinge_minimax(X, mu, S, 0.1, 0.1, bias=True)
    fit = solve_hinge_minimax(X, mu, S, 0.1, 0.1, bias=True, tol=1e-7)
    ref = model.solve(backend="clarabel")
    assert fit.certified and fit.lower - 1e-8 <= ref.objective <= fit.upper + 1e-8
    w_ref, b_ref = ref.value("w"), float(ref.value("b"))
    assert np.linalg.norm(fit.w - w_ref) <= 1e-3 * np.linalg.norm(w_ref)
    assert abs(fit.b - b_ref) <= 1e-3 * max(1.0, abs(b_ref))
    assert solve_model(model, tol=1e-7).upper == pytest.approx(fit.upper)
    sol = model.solve(solver="structured")  # the Model's hook: its check confirms the point and the duals
    assert sol.verdict.startswith(("certified", "accurate"))
    lo, up = sol.solver_interval
    assert lo - 1e-8 <= ref.objective <= up + 1e-8
    assert float(sol.value("b")) == pytest.approx(b_ref, rel=1e-3, abs=1e-3)
    from certiprog.certify import check

    cert = check(model, sol)
    # Clarabel's objective is itself a floating-point estimate (~1e-8 relative): slack on both sides
    assert cert.verdict.startswith("certified") and cert.interval[0] - 1e-8 <= ref.objective <= cert.interval[1] + 1e-8


def test_bias_beats_no_bias_and_w_zero_is_not_forced():
    # mu = 0 makes w = 0 the only feasible point without a bias; with one, b < 0 buys a real plane
    X, _, S = _instance(80, 3, 4, sep=0.0)
    X = X + 3.0
    fit = solve_hinge_minimax(X, np.zeros(3), S, 0.5, 0.3, bias=True, tol=1e-6)
    homog = solve_hinge_minimax(X, np.zeros(3), S, 0.5, 0.3, tol=1e-6, max_iter=2000)
    assert fit.certified and fit.upper < homog.lower
    assert np.linalg.norm(fit.w) > 0.1 and fit.b < 0


def test_bias_offset_data_keep_a_tight_interval():
    # a common offset 1e6 changes nothing in exact arithmetic (b absorbs it); centring by mu keeps the bound tight
    X, mu, S = _instance(300, 5, 6)
    base = solve_hinge_minimax(X, mu, S, 0.2, 0.2, bias=True, tol=1e-6)
    off = solve_hinge_minimax(X + 1e6, mu + 1e6, S, 0.2, 0.2, bias=True, tol=1e-6)
    ref = hinge_minimax(X + 1e6, mu + 1e6, S, 0.2, 0.2, bias=True).solve(backend="clarabel")
    assert off.certified and base.certified  # centring by mu: the interval stays narrow (raw X: width ~1e6 u)
    assert off.lower <= base.upper * (1 + 1e-6) and base.lower <= off.upper * (1 + 1e-6)
    if ref.status.ok:
        assert off.lower - 1e-6 * abs(ref.objective) <= ref.objective
    assert _constraint_b(off.w, off.b, mu + 1e6, S, 0.2) <= 1e-9 * (1e6 + abs(off.b))


@pytest.mark.parametrize("scale", [1e-8, 1e8])
def test_bias_scaled_data_is_never_certified_wrongly(scale):
    X, mu, S = _instance(100, 4, 2)
    fit = solve_hinge_minimax(X * scale, mu * scale, S * scale ** 2, 1.0, 0.5, bias=True, tol=1e-6, max_iter=2000)
    assert fit.lower <= fit.objective <= fit.upper * (1 + 1e-12) + 1e-12
    ref = hinge_minimax(X * scale, mu * scale, S * scale ** 2, 1.0, 0.5, bias=True).solve(backend="clarabel")
    if fit.certified:
        assert fit.lower - 1e-6 * max(1.0, abs(ref.objective)) <= ref.objective <= fit.upper * (1 + 1e-6) + 1e-9
    assert fit.status in ("optimal", "inaccurate")


def test_bias_iteration_limit_still_gives_a_rigorous_interval():
    X, mu, S = _instance(200, 5, 3)
    fit = solve_hinge_minimax(X, mu, S, 0.5, 0.5, bias=True, tol=1e-12, max_iter=3)
    ref = hinge_minimax(X, mu, S, 0.5, 0.5, bias=True).solve(backend="clarabel")
    assert not fit.certified and fit.status == "inaccurate"
    assert fit.lower <= ref.objective + 1e-9 <= fit.upper + 2e-9


@settings(max_examples=25, deadline=None, derandomize=True)
@given(m=st.integers(1, 30), k=st.integers(1, 5), scale=st.floats(0.01, 30.0), seed=st.integers(0, 10**6))
def test_box_ball_projection_is_the_nearest_point(m, k, scale, seed):
    """Against the QP solved by Clarabel (through a certiprog Model): same point, and feasible."""
    from certiprog.model import Model, Variable, minimize, norm2, sum_squares

    rng = np.random.default_rng(seed)
    a0, v = rng.normal(size=m), scale * rng.normal(size=k)
    a, y, nu = _box_ball_project(a0, v)
    assert np.all((0 <= a) & (a <= 1)) and np.linalg.norm(y) <= a.sum() * (1 + 1e-12) + 1e-12 and nu >= 0
    A, Y = Variable(m, "a"), Variable(k, "y")
    model = Model(minimize(sum_squares(A - a0) + sum_squares(Y - v)), name="proj")
    model.add(A >= 0.0, name="lo")
    model.add(A <= 1.0, name="hi")
    model.add(norm2(Y) - A.sum() <= 0.0, name="ball")
    ref = model.solve(backend="clarabel")
    assert np.allclose(a, ref.value("a"), atol=1e-6) and np.allclose(y, ref.value("y"), atol=1e-6)


@pytest.mark.parametrize("Sigma", [np.zeros((3, 3)), np.diag([1.0, 0.0, 0.0])])
def test_bias_with_a_singular_background_covariance(Sigma):
    """Sigma = 0 (one negative) or rank one: L has fewer columns than d; the interval still holds Clarabel's value."""
    rng = np.random.default_rng(0)
    X, mu = rng.normal(size=(40, 3)) + 1.0, -np.ones(3)
    fit = solve_hinge_minimax(X, mu, Sigma, 0.1, 0.3, bias=True, tol=1e-6)
    ref = hinge_minimax(X, mu, Sigma, 0.1, 0.3, bias=True).solve(backend="clarabel")
    assert fit.certified and fit.lower - 1e-7 <= ref.objective <= fit.upper * (1 + 1e-6)
    assert _constraint_b(fit.w, fit.b, mu, Sigma, 0.3) <= 1e-12 * (1 + np.linalg.norm(fit.w) + abs(fit.b))
