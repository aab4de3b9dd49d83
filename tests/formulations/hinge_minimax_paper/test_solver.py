"""The certified first-order solver for 000 eq. (8) (`hinge_minimax_paper.solver`): its rigorous interval holds
Clarabel's optimum, its point is feasible, the degenerate cone gives w = 0, and bad input is refused."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import CertiprogError, InputError
from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax
from certiprog.formulations.hinge_minimax_paper.solver import solve_hinge_minimax, solve_model


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
        lambda: solve_model(hinge_minimax(X, mu, S, 1.0, 0.5, bias=True)),
        lambda: solve_model(object()),
    ]
    for case in cases:
        with pytest.raises(InputError):
            case()
    assert issubclass(InputError, CertiprogError)
