"""Paper 004 MPM (eqs. 3-5) as a certiprog Model, against the independent CVXPY reference."""

import numpy as np
import pytest

from certiprog.errors import InputError
from certiprog.formulations.hp_mpm_paper.mpm import mpm, mpm_moments

from helpers import two_class  # noqa: E402
from ref_000_004 import ref_mpm  # noqa: E402

BACKENDS = ["clarabel", "cvxpy"]


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))




def _check_against_reference(model, sol, r, tol_w=1e-3):
    assert sol.status == "optimal", sol
    assert rel(sol.objective, r["objective"]) <= 1e-6
    d = model.derived(sol)
    assert rel(d.objective, r["objective"]) <= 1e-6
    assert rel(d.kappa, r["kappa"]) <= 1e-6
    assert abs(d.alpha - r["alpha"]) <= 1e-6
    assert abs(d.worst_case_error - r["worst_case_error"]) <= 1e-6
    assert abs(d.worst_case_error - 1.0 / (1.0 + d.kappa ** 2)) <= 1e-12
    # w and b sit at a flat optimum (objective error eps -> w error ~ sqrt(eps)): looser tolerance
    np.testing.assert_allclose(d.w, r["w"], atol=tol_w * max(1.0, np.abs(r["w"]).max()))
    assert abs(d.b - r["b"]) <= tol_w * max(1.0, abs(r["b"]))
    assert abs(d.b - d.b_from_class0) <= 1e-5 * max(1.0, abs(d.b))  # the two forms of eq. (4)
    for k in ("mu1", "mu0", "Sigma1", "Sigma0"):
        np.testing.assert_allclose(getattr(d, k), r[k], rtol=0, atol=1e-12)
    return d


@pytest.mark.parametrize("backend", BACKENDS)
def test_mpm_matches_reference_on_random_instances(backend):
    rng = np.random.default_rng(4)
    for d, n1, n0, sep in [(2, 30, 40, 1.0), (3, 40, 60, 0.7), (5, 25, 50, 1.5), (8, 60, 45, 0.4)]:
        X1, X0 = two_class(rng, d, n1, n0, sep, cond0=3.0)
        r = ref_mpm(X1, X0)
        model = mpm(X1, X0)
        sol = model.solve(backend=backend)
        _check_against_reference(model, sol, r)
        assert model.variable("w").shape == (d,)
        assert set(model.constraints) == {"normalization"}
        np.testing.assert_allclose(sol.value("w") @ (X1.mean(0) - X0.mean(0)), 1.0, atol=1e-7)


def test_mpm_bound_decision_function_and_moments():
    rng = np.random.default_rng(5)
    X1, X0 = two_class(rng, 4, 50, 70, cond0=3.0)
    model = mpm(X1, X0)
    d = model.derived(model.solve())
    # eq. (2) per class: (w^T x̂1 - b)/s1 = (b - w^T x̂0)/s0 = kappa, so each one-sided Cantelli bound is 1/(1+kappa^2)
    w, b = d.w, d.b
    k1 = (w @ d.mu1 - b) / d.sqrt_wSw1
    k0 = (d.b_from_class0 - w @ d.mu0) / d.sqrt_wSw0
    assert rel(k1, d.kappa) <= 1e-9 and rel(k0, d.kappa) <= 1e-9
    # coef / intercept: predict class 1 iff x @ coef + intercept >= 0 (same as w^T x >= b)
    scores = np.vstack([X1, X0]) @ d.coef + d.intercept
    np.testing.assert_allclose(scores, np.vstack([X1, X0]) @ w - b)
    acc = np.mean(np.concatenate([scores[:50] >= 0, scores[50:] < 0]))
    assert acc > 0.6
    # biased (1/m) covariances
    mom = mpm_moments(X1, X0)
    np.testing.assert_allclose(mom.Sigma1, np.cov(X1.T, bias=True), atol=1e-12)
    np.testing.assert_allclose(mom.Sigma0, np.cov(X0.T, bias=True), atol=1e-12)
    assert (mom.n1, mom.n0) == (50, 70)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mpm_equal_means_is_an_infeasible_status(backend):
    rng = np.random.default_rng(6)
    X1 = rng.normal(size=(20, 3))
    X0 = X1[::-1] * 1.0  # same rows, same mean: w^T (x̂1 - x̂0) = 1 reads 0 = 1
    model = mpm(X1, X0)
    sol = model.solve(backend=backend)
    assert sol.status == "infeasible"
    assert not sol.ok and model.derived(sol) is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_mpm_singular_covariance(backend):
    rng = np.random.default_rng(7)
    X1, X0 = two_class(rng, 4, 30, 40, cond0=3.0)
    X1[:, 2] = 1.7  # class 1 has no variance along e_3: Sigma1 singular
    r = ref_mpm(X1, X0)
    model = mpm(X1, X0)
    _check_against_reference(model, model.solve(backend=backend), r)
    # fewer samples than features in both classes: a zero-variance separating direction exists
    X1 = rng.normal(size=(3, 6)) + 1.0
    X0 = rng.normal(size=(3, 6)) - 1.0
    model = mpm(X1, X0)
    sol = model.solve(backend=backend)
    assert sol.status == "optimal" and sol.objective <= 1e-6
    d = model.derived(sol)
    assert d.worst_case_error <= 1e-10 and d.kappa > 1e5
    assert np.all(X1 @ d.w >= d.b - 1e-6) and np.all(X0 @ d.w <= d.b + 1e-6)


def test_mpm_bad_inputs():
    rng = np.random.default_rng(8)
    X1, X0 = two_class(rng, 3, 10, 12, cond0=3.0)
    bad = X1.copy()
    bad[2, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        mpm(bad, X0)
    bad[2, 1] = np.inf
    with pytest.raises(InputError, match="NaN or inf"):
        mpm(X1, bad)
    with pytest.raises(InputError, match="columns"):
        mpm(X1, X0[:, :2])
    with pytest.raises(InputError, match="2-D"):
        mpm(X1[:, 0], X0)
    with pytest.raises(InputError, match="empty"):
        mpm(X1, np.zeros((0, 3)))
    with pytest.raises(InputError, match="single sample"):
        mpm(X1[:1], X0)
    with pytest.raises(InputError, match="single sample"):
        mpm_moments(X1, X0[:1])
    with pytest.raises(InputError, match="numeric"):
        mpm([["a", "b"], ["c", "d"]], X0)
