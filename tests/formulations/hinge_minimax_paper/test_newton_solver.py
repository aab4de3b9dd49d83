"""The interior-point (Newton) solver of 000 eq. (8) (`hinge_minimax_paper.newton`) and certiprog's choice between it
and the dual accelerated gradient (`solver.choose_method`): the cone algebra, certified answers whose Newton step count
does not follow the conditioning, Clarabel's optimum inside every interval, degenerate data, honest statuses."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.certify import check
from certiprog.datasets.synthetic import conditioned_mixing
from certiprog.errors import InputError
from certiprog.formulations.hinge_minimax_paper import solver as hm_solver
from certiprog.formulations.hinge_minimax_paper.newton import _nt_vector, soc_inverse_rows, soc_scaling, soc_step
from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax
from certiprog.formulations.hinge_minimax_paper.solver import solve_hinge_minimax


def correlated(m, d, kappa, seed=0, pos=1.73, neg=5.2):
    """Positives N(pos/sqrt(d), I) A, background moments of N(-neg/sqrt(d), I) A, cond(A'A) = kappa."""
    rng = np.random.default_rng(seed)
    A = conditioned_mixing(d, kappa, rng)
    X = (rng.normal(size=(m, d)) + pos / np.sqrt(d)) @ A
    Z = (rng.normal(size=(2000, d)) - neg / np.sqrt(d)) @ A
    return X, Z.mean(axis=0), np.cov(Z.T)


def clarabel_value(X, mu, S, lam, delta, bias):
    return hinge_minimax(X, mu, S, lam, delta, bias=bias).solve(backend="clarabel").objective


def assert_holds(fit, ref, rel=1e-7):
    slack = rel * max(1.0, abs(ref))
    assert fit.lower <= fit.upper
    assert fit.lower - slack <= ref <= fit.upper + slack
    assert fit.lower <= fit.objective <= fit.upper * (1 + 1e-12) + 1e-12


# --------------------------------------------------------------------------- second-order cone algebra
def _interior(rng, n, scale):
    v = rng.normal(size=n) * scale
    v[0] = np.linalg.norm(v[1:]) * (1 + rng.uniform(1e-6, 2.0)) + rng.uniform(0, 1e-3)
    return v


@settings(max_examples=40, deadline=None, derandomize=True)
@given(n=st.integers(2, 12), seed=st.integers(0, 10**6), scale=st.sampled_from([1e-4, 1.0, 1e4]))
def test_nesterov_todd_scaling_maps_z_and_s_to_the_same_point(n, seed, scale):
    rng = np.random.default_rng(seed)
    s, z = _interior(rng, n, scale), _interior(rng, n, 1.0 / scale)
    W, Wi = soc_scaling(s, z)
    assert np.allclose(W, W.T) and np.allclose(W @ Wi, np.eye(n), atol=1e-6 * np.linalg.cond(W))
    lam = W @ z
    assert np.allclose(lam, Wi @ s, rtol=1e-6, atol=1e-9 * np.abs(lam).max())
    assert lam[0] > np.linalg.norm(lam[1:]) * (1 - 1e-9)  # the scaled point is in the cone


@settings(max_examples=40, deadline=None, derandomize=True)
@given(n=st.integers(2, 12), p=st.integers(1, 6), seed=st.integers(0, 10**6), scale=st.sampled_from([1e-4, 1.0, 1e4]))
def test_inverse_scaling_rows_match_the_dense_product(n, p, seed, scale):
    # the O(k p) identity-plus-rank-two product the interior point uses for W^-1 Gq equals the dense W^-1 @ Gq
    rng = np.random.default_rng(seed)
    s, z = _interior(rng, n, scale), _interior(rng, n, 1.0 / scale)
    G = rng.normal(size=(n, p))
    _, Wi = soc_scaling(s, z)
    v, eta = _nt_vector(s, z)
    dense = Wi @ G
    assert np.allclose(soc_inverse_rows(v, eta, G), dense, rtol=1e-9, atol=1e-12 * np.abs(dense).max())


@settings(max_examples=40, deadline=None, derandomize=True)
@given(n=st.integers(2, 8), seed=st.integers(0, 10**6))
def test_cone_step_reaches_the_boundary_and_not_further(n, seed):
    rng = np.random.default_rng(seed)
    u, du = _interior(rng, n, 1.0), rng.normal(size=n) * 3
    a = soc_step(u, du)
    if np.isfinite(a):
        v = u + a * du
        assert abs(v[0] - np.linalg.norm(v[1:])) <= 1e-7 * max(1.0, np.abs(v).max())
        inner = u + 0.999 * a * du
        assert inner[0] >= np.linalg.norm(inner[1:])
    else:
        for t in (1.0, 1e3, 1e6):
            v = u + t * du
            assert v[0] >= np.linalg.norm(v[1:]) * (1 - 1e-12)


# --------------------------------------------------------------------------- certified answers
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("kappa", [1.0, 1e2, 1e4, 1e6])
def test_newton_is_certified_in_few_steps_whatever_the_conditioning(kappa, bias):
    X, mu, S = correlated(600, 20, kappa, seed=3)
    fit = solve_hinge_minimax(X, mu, S, 1.0, 0.1, bias=bias, tol=1e-7, method="newton")
    assert fit.certified and fit.status == "optimal" and fit.rel_gap <= 1e-7
    assert fit.info["method"] == "interior point (Newton)" and fit.info["runs"][0]["method"] == "newton"
    assert fit.iterations <= 40  # Mehrotra steps; the gradient needs thousands at kappa = 1e4 (solver's comment)
    assert_holds(fit, clarabel_value(X, mu, S, 1.0, 0.1, bias))


def test_auto_takes_newton_on_ill_conditioned_features_and_tries_the_gradient_on_isotropic_ones():
    X, mu, S = correlated(800, 20, 1e6, seed=1)
    fit = solve_hinge_minimax(X, mu, S, 1.0, 0.1, tol=1e-7)
    choice = fit.info["choice"]
    assert choice["method"] == "newton" and choice["kappa"] > hm_solver.GRADIENT_MAX_CONDITION
    assert [r["method"] for r in fit.info["runs"]] == ["newton"] and fit.certified
    # isotropic but small d: the interior point is so cheap that no useful gradient budget exists
    Xs, mus, Ss = correlated(800, 20, 1.0, seed=1)
    small = solve_hinge_minimax(Xs, mus, Ss, 1.0, 0.1, tol=1e-7)
    assert small.info["choice"]["method"] == "newton" and small.info["choice"]["kappa"] <= 1e2
    assert "cheap" in small.info["choice"]["reason"] and small.certified
    # isotropic at d = 280: the gradient first, within its budget, then Newton if it has not certified
    Xi, mui, Si = correlated(1200, 280, 1.0, seed=1)
    iso = solve_hinge_minimax(Xi, mui, Si, 1.0, 0.1, tol=1e-7)
    ch = iso.info["choice"]
    assert ch["method"] == "gradient" and ch["kappa"] <= hm_solver.GRADIENT_MAX_CONDITION
    assert ch["budget"] >= hm_solver.GRADIENT_MIN_BUDGET
    runs = iso.info["runs"]
    assert runs[0]["method"] == "gradient" and runs[0]["iterations"] <= ch["budget"]
    assert iso.certified  # by the gradient within its budget, or by Newton after it
    assert runs[-1]["method"] == ("gradient" if len(runs) == 1 else "newton")
    assert iso.lower <= iso.objective <= iso.upper


def test_the_model_hook_reaches_newton_and_the_certificate_confirms_it():
    X, mu, S = correlated(700, 15, 1e5, seed=2)
    model = hinge_minimax(X, mu, S, 0.5, 0.2, bias=True)
    sol = model.solve(solver="structured")
    assert sol.info["method"] == "interior point (Newton)"
    cert = check(model, sol)
    assert cert.verdict == "certified"
    ref = clarabel_value(X, mu, S, 0.5, 0.2, True)
    lo, up = cert.interval
    assert lo - 1e-8 * abs(ref) <= ref <= up + 1e-8 * abs(ref)


def test_step_limit_gives_an_honest_status_and_a_rigorous_interval():
    X, mu, S = correlated(400, 12, 1e4, seed=5)
    ref = clarabel_value(X, mu, S, 1.0, 0.1, False)
    fit = solve_hinge_minimax(X, mu, S, 1.0, 0.1, tol=1e-10, max_iter=2, method="newton")
    assert not fit.certified and fit.status == "inaccurate"
    assert fit.lower <= ref * (1 + 1e-9) and ref <= fit.upper * (1 + 1e-9)


def test_method_is_validated_and_newton_needs_an_interior():
    X, mu, S = correlated(50, 4, 1.0, seed=0)
    with pytest.raises(InputError, match="method"):
        solve_hinge_minimax(X, mu, S, 1.0, 0.5, method="bfgs")
    with pytest.raises(InputError, match="only feasible point"):  # mu = 0: gamma ||L'w|| <= 0 forces w = 0
        solve_hinge_minimax(X + 5.0, np.zeros(4), S, 1.0, 0.3, method="newton")
    fit = solve_hinge_minimax(X + 5.0, np.zeros(4), S, 1.0, 0.3)  # auto: the trivial fit, no interior point
    assert np.all(fit.w == 0) and fit.upper == 50.0 and fit.lower <= 50.0


# --------------------------------------------------------------------------- degenerate data
def _degenerate(kind, seed=0):
    X, mu, S = correlated(300, 8, 1e2, seed=seed)
    rng = np.random.default_rng(seed)
    if kind == "rank-deficient":  # two features that are combinations of others (X and Sigma singular)
        T = np.eye(8)
        T[:, 6] = T[:, 0] + T[:, 1]
        T[:, 7] = 2 * T[:, 2]
        X, mu, S = X @ T, mu @ T, T.T @ S @ T
    elif kind == "duplicate rows":
        X = np.vstack([X, X[:150], X[:10]])
    elif kind == "constant feature":
        X = np.hstack([X, np.full((len(X), 1), 0.7)])
        mu = np.append(mu, 0.7)
        S = np.pad(S, ((0, 1), (0, 1)))  # the background has no variance along it either
    elif kind == "1e8 column":
        D = np.ones(8)
        D[3] = 1e8
        X, mu, S = X * D, mu * D, S * np.outer(D, D)
    elif kind == "1e-8 column":
        D = np.ones(8)
        D[5] = 1e-8
        X, mu, S = X * D, mu * D, S * np.outer(D, D)
    del rng
    return X, mu, S


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("kind", ["rank-deficient", "duplicate rows", "constant feature", "1e8 column",
                                  "1e-8 column"])
def test_degenerate_data_give_a_certified_answer_or_an_honest_status(kind, bias):
    X, mu, S = _degenerate(kind)
    for method in ("newton", "auto"):
        fit = solve_hinge_minimax(X, mu, S, 1.0, 0.1, bias=bias, tol=1e-7, method=method)
        assert np.isfinite(fit.lower) and np.isfinite(fit.upper) and fit.lower <= fit.upper
        assert fit.certified == (fit.rel_gap <= 1e-7)
        assert fit.status == ("optimal" if fit.certified else "inaccurate")
        if kind != "1e8 column":  # Clarabel's own answer is unreliable at that scale; ours needs no reference
            assert_holds(fit, clarabel_value(X, mu, S, 1.0, 0.1, bias), rel=1e-6)
        if method == "auto":
            assert fit.certified  # the chooser (with its fallback to the gradient) certifies every one of these


def test_large_common_offset_with_a_bias_stays_tight():
    X, mu, S = correlated(400, 10, 1e3, seed=7)
    base = solve_hinge_minimax(X, mu, S, 0.3, 0.2, bias=True, tol=1e-7, method="newton")
    # (the default method: an interior point that stalls a hair short of tol on this offset, as rounding may
    # decide, hands its dual point to the gradient, which certifies)
    off = solve_hinge_minimax(X + 1e6, mu + 1e6, S, 0.3, 0.2, bias=True, tol=1e-7)
    assert base.certified and off.certified
    assert off.upper == pytest.approx(base.upper, rel=1e-6)


@pytest.mark.parametrize("bias", [True, False])
def test_structured_point_is_proved_without_a_margin_problem(bias, monkeypatch):
    # issue 23's MNIST row: the norm's epigraph column filled at fl(||L'w||) sat on the cone's boundary and check()
    # repaired the point by a margin problem over the d-dimensional cone; the solver now leaves room in the
    # Chebyshev row and fill_auxiliary raises that cost-free column into the cone, so the point is proved as it is
    import certiprog.certify.upper_end as upper_end

    X, mu, S = correlated(400, 30, 1e3, seed=2)
    model = hinge_minimax(X, mu, S, 1.0, 0.3, bias=bias)
    sol = model.solve(solver="structured")
    calls = []
    real = upper_end.interior_point
    monkeypatch.setattr(upper_end, "interior_point", lambda *a, **k: calls.append(1) or real(*a, **k))
    cert = check(model, sol)
    assert cert.verdict == "certified" and not calls
    w = np.asarray(sol.value("w"), float)
    LT = model.data.params[1].value  # the model's own factor, transposed
    t = sol.x[sol.problem.columns["_pnorm1"][1]]
    assert t > np.linalg.norm(LT @ w)  # strictly inside its cone, by the margin, not at the boundary


@pytest.mark.parametrize("bias", [True, False])
def test_blank_features_are_left_out_of_the_steps_and_certified(bias):
    # MNIST's blank pixels: features no hinge and no constraint reads (zero in X and mu, zero rows of Sigma) have
    # w_j = 0 at the optimum; the interior point steps on the others only, the certificate reads the full program
    X, mu, S = correlated(300, 8, 1e2, seed=4)
    d = X.shape[1]
    Xb = np.hstack([X[:, :3], np.zeros((300, 2)), X[:, 3:], np.zeros((300, 1))])
    mub = np.concatenate([mu[:3], [0.0, 0.0], mu[3:], [0.0]])
    keep = np.r_[0:3, 5:5 + d - 3]
    Sb = np.zeros((d + 3, d + 3))
    Sb[np.ix_(keep, keep)] = S
    fit = solve_hinge_minimax(Xb, mub, Sb, 1.0, 0.2, bias=bias, tol=1e-8, method="newton")
    assert fit.certified and fit.info["runs"][0]["method"] == "newton"
    # (the point handed out may be the dual's w(alpha, y), whose blank entries are rounding-level, not 0)
    assert np.all(np.abs(fit.w[[3, 4, d + 2]]) <= 1e-12 * np.abs(fit.w).max())
    assert_holds(fit, clarabel_value(Xb, mub, Sb, 1.0, 0.2, bias))
    ref = solve_hinge_minimax(X, mu, S, 1.0, 0.2, bias=bias, tol=1e-8, method="newton")
    assert fit.upper == pytest.approx(ref.upper, rel=1e-6)


@pytest.mark.parametrize("bias", [True, False])
def test_centrality_correctors_at_many_features(bias):
    # p >= CORRECTOR_MIN_P: the steps take Gondzio's correctors; certified, Clarabel's value inside, no more steps
    from certiprog.formulations.hinge_minimax_paper import newton

    X, mu, S = correlated(700, newton.CORRECTOR_MIN_P + 10, 1e3, seed=11)
    fit = solve_hinge_minimax(X, mu, S, 1.0, 0.2, bias=bias, tol=1e-8, method="newton")
    assert fit.certified and fit.iterations <= 40
    assert_holds(fit, clarabel_value(X, mu, S, 1.0, 0.2, bias))
