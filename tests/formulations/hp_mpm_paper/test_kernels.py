"""Paper 004 Sec. 5: kernel MPM / HP-MPM in the gamma representation, checked against explicit feature maps.

Independent checks: the linear kernel against the linear programs; the polynomial kernel against its explicit
degree-2 feature map; the Gaussian kernel against its explicit (truncated Taylor) feature map, exact to 1e-13 on
bounded data. In each case the linear program on explicit features must give the same kappa* and decision values.
"""
import math
from itertools import combinations_with_replacement

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import InputError
from certiprog.formulations.hp_mpm_paper.hp_mpm import HPMPMProblem, hp_mpm_problem
from certiprog.formulations.hp_mpm_paper.kernels import (gram, kernel_class_moments, kernel_hp_mpm, kernel_hp_mpm_problem,
                                            kernel_mpm, kernel_parts, linear_kernel, make_kernel, polynomial_kernel,
                                            rbf_kernel)
from certiprog.formulations.hp_mpm_paper.mpm import class_moments, mpm, mpm_from_moments

PROPS = settings(derandomize=True, deadline=None, max_examples=25)
TIGHT = dict(tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12, tol_ktratio=1e-10)  # Clarabel options


def _data(seed, d=3, n1=25, n0=30, scale=1.0):
    rng = np.random.default_rng(seed)
    X1 = (rng.normal(size=(n1, d)) * 0.7 + 0.6) * scale
    X0 = (rng.normal(size=(n0, d)) * 0.9 - 0.3) * scale
    return X1, X0, rng


def poly_features(X):
    """Explicit map of (x^T y + 1)^2: [1, sqrt2 x_i, x_i^2, sqrt2 x_i x_j (i<j)]."""
    cols = [np.ones(len(X))] + [math.sqrt(2) * X[:, i] for i in range(X.shape[1])]
    for i, j in combinations_with_replacement(range(X.shape[1]), 2):
        cols.append(X[:, i] * X[:, j] * (1.0 if i == j else math.sqrt(2)))
    return np.column_stack(cols)


def gaussian_features(X, gamma, terms=30):
    """Explicit map of exp(-gamma ||x - y||^2): per coordinate exp(-gamma x^2) sqrt((2 gamma)^k / k!) x^k, k < terms,
    tensored over coordinates (truncation error ~ (2 gamma |x y|)^terms / terms!)."""
    k = np.arange(terms)
    coef = np.sqrt((2 * gamma) ** k / np.array([math.factorial(int(i)) for i in k], float))
    per = [np.exp(-gamma * X[:, [c]] ** 2) * coef * X[:, [c]] ** k for c in range(X.shape[1])]
    out = per[0]
    for f in per[1:]:
        out = (out[:, :, None] * f[:, None, :]).reshape(len(X), -1)
    return out


# ----------------------------------------------------------------------------------------------
# kernels and Gram matrices
# ----------------------------------------------------------------------------------------------
def test_kernel_functions():
    X, Y, _ = _data(0, n1=5, n0=4)
    D = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(rbf_kernel(X, Y, 0.3), np.exp(-0.3 * D), rtol=1e-13)
    np.testing.assert_allclose(make_kernel("rbf", None, n_features=3)(X, Y), np.exp(-D / 3), rtol=1e-13)
    sigma = 2.0  # the paper's exp(-||x - y||^2 / sigma) is gamma = 1/sigma
    np.testing.assert_allclose(make_kernel("gaussian", 1 / sigma)(X, Y), np.exp(-D / sigma), rtol=1e-13)
    np.testing.assert_allclose(make_kernel("linear")(X, Y), X @ Y.T)
    np.testing.assert_allclose(polynomial_kernel(X, Y), poly_features(X) @ poly_features(Y).T, atol=1e-12)
    np.testing.assert_allclose(rbf_kernel(X, Y, 0.5), gaussian_features(X, 0.5) @ gaussian_features(Y, 0.5).T,
                               atol=1e-13)
    f = lambda A, B: A @ B.T  # noqa: E731
    assert make_kernel(f) is f
    for bad, msg in ((dict(kernel="sigmoid"), "kernel must be"), (dict(kernel="rbf", gamma=0.0), "gamma"),
                     (dict(kernel="rbf", gamma=-1.0), "gamma"), (dict(kernel="rbf"), "n_features")):
        with pytest.raises(InputError, match=msg):
            make_kernel(**bad)


def test_gram_validation():
    X, _, _ = _data(1, n1=6, n0=2)
    K = gram(linear_kernel, X)
    assert K.shape == (6, 6) and np.allclose(K, K.T)
    with pytest.raises(InputError, match="shape"):
        gram(lambda A, B: A @ B.T[:, :2], X)
    with pytest.raises(InputError, match="NaN"):
        gram(lambda A, B: np.full((len(A), len(B)), np.nan), X)
    with pytest.raises(InputError, match="symmetric"):
        gram(lambda A, B: A @ B.T + np.arange(len(B))[None, :], X)
    with pytest.raises(InputError, match="failed"):
        gram(lambda A, B: A @ B, X)  # shapes do not align inside the user's kernel
    X1, X0, _ = _data(2, n1=8, n0=8)
    with pytest.raises(InputError, match="positive semidefinite"):  # -||x - y||^2 is not a Mercer kernel
        kernel_class_moments(X1, X0, lambda A, B: -((A[:, None] - B[None]) ** 2).sum(-1))


# ----------------------------------------------------------------------------------------------
# Sec. 5 identities (K2) and the coordinates beta
# ----------------------------------------------------------------------------------------------
@PROPS
@given(st.integers(0, 10_000))
def test_gamma_representation_identities(seed):
    X1, X0, rng = _data(seed, d=2, n1=int(5 + seed % 7), n0=int(4 + seed % 5))
    n1 = X1.shape[0]
    X = np.vstack([X1, X0])
    Phi = poly_features(X)
    K = polynomial_kernel(X, X)
    l1, l0, L1, L0 = kernel_parts(K, n1)
    g = rng.normal(size=len(X))
    w = Phi.T @ g  # w = sum_i gamma_i phi(x_i)
    mu1, mu0 = Phi[:n1].mean(0), Phi[n1:].mean(0)
    S1, S0 = np.cov(Phi[:n1].T, bias=True), np.cov(Phi[n1:].T, bias=True)
    scale = max(1.0, np.abs(w).max() ** 2 * np.abs(Phi).max() ** 2)
    assert abs(w @ (mu1 - mu0) - g @ (l1 - l0)) <= 1e-9 * scale
    assert abs(w @ S1 @ w - np.sum((L1 @ g) ** 2)) <= 1e-9 * scale
    assert abs(w @ S0 @ w - np.sum((L0 @ g) ** 2)) <= 1e-9 * scale
    assert abs(w @ w - g @ K @ g) <= 1e-9 * scale
    # coordinates: gamma = B beta (over the pivot points) has ||w|| = ||beta||, and the moments in beta are those of w
    mom = kernel_class_moments(X1, X0, "poly")
    beta = rng.normal(size=mom.p)
    gb = mom.basis @ beta
    np.testing.assert_array_equal(mom.X_train, X[mom.pivots])
    wb = Phi[mom.pivots].T @ gb
    assert abs(wb @ wb - beta @ beta) <= 1e-7 * max(1.0, beta @ beta)
    assert abs(wb @ mu1 - beta @ mom.mu1) <= 1e-7 * max(1.0, np.abs(wb).max())
    q1, q0 = mom.variances(beta)
    assert abs(wb @ S1 @ wb - q1) <= 1e-7 * max(1.0, q1) and abs(wb @ S0 @ wb - q0) <= 1e-7 * max(1.0, q0)


# ----------------------------------------------------------------------------------------------
# linear kernel == linear programs; polynomial and Gaussian kernels == explicit features
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["bisection", "alternating"])
def test_linear_kernel_reproduces_the_linear_hp_mpm(method):
    X1, X0, rng = _data(3, d=3, n1=40, n0=50)
    Xt = rng.normal(size=(30, 3))
    lin = hp_mpm_problem(X1, X0, 0.1, 1e-3).solve(method, **TIGHT)
    ker = kernel_hp_mpm(X1, X0, "linear", delta=0.1, nu=1e-3, method=method, **TIGHT)
    assert lin.status == ker.status == "optimal"
    assert ker.R == pytest.approx(lin.R, rel=1e-12) and ker.A1 == pytest.approx(lin.A1, rel=1e-12)
    assert ker.kappa == pytest.approx(lin.kappa, rel=1e-8)
    dec_lin = Xt @ lin.weights - lin.b
    piv = kernel_class_moments(X1, X0, "linear").X_train  # the weights expand over the pivot points
    dec_ker = linear_kernel(Xt, piv) @ ker.weights - ker.b
    # kappa is pinned to 1e-8 but w only to ~sqrt(solver tol) (the w-step is flat along the optimal face);
    # BLAS threading alone moves decision values by ~1e-5 relative.
    np.testing.assert_allclose(dec_ker, dec_lin, atol=5e-5 * np.abs(dec_lin).max())
    np.testing.assert_allclose(piv.T @ ker.weights, lin.weights, atol=1e-5)  # w = X_S^T gamma_S


def test_linear_kernel_reproduces_the_linear_mpm():
    X1, X0, rng = _data(4, d=3, n1=40, n0=50)
    Xt = rng.normal(size=(30, 3))
    m = mpm(X1, X0)
    d = m.derived(m.solve(**TIGHT))
    mk = kernel_mpm(X1, X0, "linear")
    dk = mk.derived(mk.solve(**TIGHT))
    assert dk.kappa == pytest.approx(d.kappa, rel=1e-8)
    dec = Xt @ d.w - d.b
    dec_k = linear_kernel(Xt, mk.data.moments.X_train) @ dk.weights - dk.b
    np.testing.assert_allclose(dec_k, dec, atol=1e-5 * np.abs(dec).max())
    # and the coordinate-form linear MPM is the same program as mpm()
    mc = mpm_from_moments(class_moments(X1, X0))
    dc = mc.derived(mc.solve(**TIGHT))
    assert dc.kappa == pytest.approx(d.kappa, rel=1e-8)
    np.testing.assert_allclose(dc.weights, d.w, atol=1e-5 * np.abs(d.w).max())


def test_polynomial_kernel_equals_its_explicit_feature_map():
    X1, X0, rng = _data(5, d=2, n1=30, n0=35)
    Xt = rng.normal(size=(20, 2))
    ker = kernel_hp_mpm(X1, X0, "poly", delta=0.1, nu=2e-4, **TIGHT)
    lin = hp_mpm_problem(poly_features(X1), poly_features(X0), 0.1, 2e-4).solve(**TIGHT)
    assert ker.R == pytest.approx(lin.R, rel=1e-12)
    assert ker.kappa > 0 and ker.kappa == pytest.approx(lin.kappa, rel=1e-9)
    dec = poly_features(Xt) @ lin.weights - lin.b
    piv = kernel_class_moments(X1, X0, "poly").X_train
    np.testing.assert_allclose(polynomial_kernel(Xt, piv) @ ker.weights - ker.b, dec, atol=2e-5 * np.abs(dec).max())
    # kernel MPM too
    mk = kernel_mpm(X1, X0, "poly")
    dk = mk.derived(mk.solve(**TIGHT))
    ml = mpm_from_moments(class_moments(poly_features(X1), poly_features(X0)))
    dl = ml.derived(ml.solve(**TIGHT))
    assert dk.kappa == pytest.approx(dl.kappa, rel=1e-6)


def test_gaussian_kernel_equals_its_explicit_feature_map():
    X1, X0, rng = _data(6, d=2, n1=25, n0=25, scale=0.6)
    Xt = rng.normal(size=(20, 2)) * 0.6
    g = 0.5
    F1, F0, Ft = (gaussian_features(A, g) for A in (X1, X0, Xt))
    assert np.abs(np.vstack([F1, F0]) @ np.vstack([F1, F0]).T - rbf_kernel(np.vstack([X1, X0]), np.vstack([X1, X0]),
                                                                           g)).max() < 1e-13
    ker = kernel_hp_mpm(X1, X0, "rbf", gamma=g, delta=0.1, nu=0.002, R=1.0, **TIGHT)
    lin = hp_mpm_problem(F1, F0, 0.1, 0.002, R=1.0).solve(**TIGHT)
    assert ker.R == 1.0 and ker.kappa > 0
    assert ker.kappa == pytest.approx(lin.kappa, rel=1e-8)
    dec = Ft @ lin.weights - lin.b
    piv = kernel_class_moments(X1, X0, "rbf", g).X_train
    np.testing.assert_allclose(rbf_kernel(Xt, piv, g) @ ker.weights - ker.b, dec,
                               atol=2e-5 * np.abs(dec).max())
    assert kernel_class_moments(X1, X0, "rbf", g).radius == pytest.approx(1.0)  # k(x, x) = 1: R = 1 (004-X3)


def test_truncated_gram_keeps_the_returned_solution_feasible_for_the_full_program():
    """A very smooth Gaussian kernel has a numerically low-rank Gram matrix: directions are dropped, and the
    returned (gamma, b, kappa) still satisfies the untruncated kernel program exactly."""
    X1, X0, _ = _data(7, d=2, n1=40, n0=40)
    prob = kernel_hp_mpm_problem(X1, X0, "rbf", gamma=0.01, delta=0.1, nu=1e-4)
    mom = prob.moments
    assert mom.dropped > 40 and mom.dropped_spread < 1e-8
    res = prob.solve()
    assert res.status == "optimal" and res.kappa > 0
    X = np.vstack([X1, X0])
    K = rbf_kernel(X, X, 0.01)
    l1, l0, L1, L0 = kernel_parts(K, 40)
    assert mom.n_pivots < 40  # gamma lives on a few pivot points; embed it in R^m
    g = np.zeros(len(X))
    g[mom.pivots] = res.weights
    k = res.kappa
    assert g @ K @ g <= 1 + 1e-9
    h_full = (g @ (l1 - l0) - math.sqrt(2 * res.A1 + k**2 * (np.sum((L1 @ g) ** 2) + res.A1))
              - math.sqrt(2 * res.A0 + k**2 * (np.sum((L0 @ g) ** 2) + res.A0)))
    assert h_full >= -1e-9
    b1 = g @ l1 - math.sqrt(2 * res.A1 + k**2 * (np.sum((L1 @ g) ** 2) + res.A1))  # Sec. 5 b*, class-1 form
    b0 = g @ l0 + math.sqrt(2 * res.A0 + k**2 * (np.sum((L0 @ g) ** 2) + res.A0))  # class-0 form, A_0 (typo fixed)
    assert b1 == pytest.approx(res.b, abs=1e-9) and b0 == pytest.approx(res.b, abs=1e-6)


def test_gaussian_kernel_separates_what_a_line_cannot():
    rng = np.random.default_rng(8)
    ang = rng.uniform(0, 2 * np.pi, 120)
    rad = np.where(np.arange(120) < 60, 0.3, 1.0) + 0.05 * rng.normal(size=120)
    X = np.column_stack([rad * np.cos(ang), rad * np.sin(ang)])
    X1, X0 = X[:60], X[60:]  # inner disc vs outer ring: equal means, no linear separator
    lin = hp_mpm_problem(X1, X0, 0.1, 1e-3).solve()
    ker = kernel_hp_mpm(X1, X0, "rbf", gamma=2.0, delta=0.1, nu=1e-3)
    assert ker.kappa > 3 * lin.kappa
    dec = rbf_kernel(X, kernel_class_moments(X1, X0, "rbf", 2.0).X_train, 2.0) @ ker.weights - ker.b
    acc = np.mean(np.concatenate([dec[:60] > 0, dec[60:] <= 0]))
    assert acc >= 0.95
    mk = kernel_mpm(X1, X0, "rbf", gamma=2.0)
    sol = mk.solve()
    assert sol.status == "optimal" and mk.derived(sol).kappa >= ker.kappa


def test_kernel_bad_inputs():
    X1, X0, _ = _data(9)
    bad = X1.copy()
    bad[1, 1] = np.inf
    with pytest.raises(InputError, match="NaN or inf"):
        kernel_class_moments(bad, X0)
    with pytest.raises(InputError, match="columns"):
        kernel_hp_mpm_problem(X1, X0[:, :2])
    with pytest.raises(InputError, match="single sample"):
        kernel_mpm(X1[:1], X0)
    with pytest.raises(InputError, match="nu"):
        kernel_hp_mpm_problem(X1, X0, nu=0.0)
    with pytest.raises(InputError, match="smaller than the largest"):
        kernel_hp_mpm_problem(X1, X0, "rbf", gamma=1.0, R=0.5)  # feature-space radius is 1
    assert isinstance(kernel_hp_mpm_problem(X1, X0, "rbf", gamma=1.0), HPMPMProblem)
    for bad_tol in (None, "x", -1.0, 1.0, np.nan, 1e-3 + 1j):
        with pytest.raises(InputError, match="rank_tol"):
            kernel_mpm(X1, X0, rank_tol=bad_tol)
    with pytest.raises(InputError, match="kernel must be"):
        kernel_mpm(X1, X0, kernel=np.eye(2))
    with pytest.raises(InputError, match="complex"):  # was silently cut to its real part
        kernel_mpm(X1, X0, kernel=lambda X, Y: X @ Y.T + 0j)
    with pytest.raises(InputError, match="complex"):
        kernel_mpm(X1 + 1j, X0)


# ----------------------------------------------------------------------------------------------
# rank decisions: rounding is not signal (issue 13, item 9)
# ----------------------------------------------------------------------------------------------
def _noisy_labels(seed, n=60, d=2, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * scale
    y = (X[:, 0] + 0.8 * scale * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_rank_tolerance_is_the_gram_matrix_rounding_level():
    """rank_tolerance = max(rank_tol * reference, m eps max_i K_ii): for an rbf kernel with tiny gamma the centred
    Gram matrix is ~ 2 gamma H X X^T H (rank d) plus gamma^2 terms (the d(d+1)/2 quadratic features) plus rounding of
    size eps; only the resolved directions are kept, never the m - 1 a relative cut alone keeps."""
    from certiprog.formulations.hp_mpm_paper.kernels import rank_tolerance

    assert rank_tolerance(1.0, 50, 0.0) == pytest.approx(50 * np.finfo(float).eps)
    assert rank_tolerance(1.0, 50, 1.0, rank_tol=1e-3) == 1e-3
    X, y = _noisy_labels(0)
    for gamma, most in ((1e-8, 2 + 3), (1e-4, 2 + 3 + 4 + 5)):  # linear, quadratic, ... features resolved
        mom = kernel_class_moments(X[y == 1], X[y == 0], "rbf", gamma)
        assert 2 <= mom.rank <= most, (gamma, mom.rank)
    # at gamma = 1e-8 a cut relative to lam_max alone keeps rounding noise as directions
    Kc = rbf_kernel(X, X, 1e-8)
    Kc = Kc - Kc.mean(0) - Kc.mean(1)[:, None] + Kc.mean()
    lam = np.linalg.eigvalsh(Kc)
    assert np.sum(lam > 1e-10 * lam[-1]) > 5


def test_tiny_gamma_bound_is_not_refuted_by_the_training_data():
    """Issue 13's reproducer: MPMClassifier(kernel='rbf', gamma=1e-8) reported a worst-case error of 0.0037 while
    its training error on class +1 was 100 % (rounding noise in the centred Gram matrix kept as signal)."""
    from certiprog.estimators import MPMClassifier

    X, y = _noisy_labels(1)
    clf = MPMClassifier(kernel="rbf", gamma=1e-8).fit(X, y)
    pred = clf.predict(X)
    for label in (0, 1):
        assert np.mean(pred[y == label] != label) <= clf.worst_case_error_
    assert clf.worst_case_error_ > 0.1 and clf.solution_["kernel_rank"] <= 5
    # the tiny-gamma rbf fit is (numerically) the linear MPM: its bound is close to the linear one
    lin = MPMClassifier().fit(X, y)
    assert clf.worst_case_error_ == pytest.approx(lin.worst_case_error_, abs=0.05)


def test_gamma_too_small_is_a_clear_error():
    from certiprog.estimators import HPMPMClassifier, MPMClassifier

    X, y = _noisy_labels(2)
    for est in (MPMClassifier(kernel="rbf", gamma=1e-30), HPMPMClassifier(kernel="rbf", gamma=1e-30)):
        with pytest.raises(InputError, match="numerically constant.*increase gamma"):
            est.fit(X, y)
    with pytest.raises(InputError, match="numerically constant"):
        kernel_mpm(X[y == 1], X[y == 0], "rbf", gamma=1e-30)


def _training_errors(clf, X, y):
    s = clf.decision_function(X)
    return np.mean(s[y == clf.classes_[1]] <= 0), np.mean(s[y == clf.classes_[0]] > 0)


@settings(derandomize=True, deadline=None, max_examples=30, database=None)
@given(seed=st.integers(0, 10**6), log_gamma=st.floats(-10, 3), log_scale=st.floats(-3, 3),
       n=st.integers(12, 50), d=st.integers(1, 4), kernel=st.sampled_from(["rbf", "linear"]))
def test_mpm_bound_is_never_refuted_by_its_training_error(seed, log_gamma, log_scale, n, d, kernel):
    """The MPM's worst-case error 1/(1+kappa^2) holds for every law with the empirical moments, the training
    sample's own included: each class's training error is at most the reported bound (no sampling slack is
    needed; 1e-9 for the solver). Either the fit is honest (rank reduced) or it raises a clear InputError."""
    from certiprog.estimators import MPMClassifier

    X, y = _noisy_labels(seed, n, d, 10.0**log_scale)
    if min(y.sum(), n - y.sum()) < 2:
        return
    try:
        clf = MPMClassifier(kernel=kernel, gamma=10.0**log_gamma / 10.0 ** (2 * log_scale)).fit(X, y)
    except InputError as exc:
        assert "gamma" in str(exc) or "constant" in str(exc)
        return
    e1, e0 = _training_errors(clf, X, y)
    assert max(e1, e0) <= clf.worst_case_error_ + 1e-9, (e1, e0, clf.worst_case_error_, clf.solution_["kernel_rank"])


@settings(derandomize=True, deadline=None, max_examples=8, database=None)
@given(seed=st.integers(0, 10**6), log_gamma=st.floats(-10, 3), n=st.integers(12, 40))
def test_hp_mpm_bound_is_never_refuted_by_its_training_error(seed, log_gamma, n):
    """The HP-MPM's b* leaves each class a margin of at least kappa* times its empirical spread, so (Cantelli on
    the training sample) its training error is at most 1/(1+kappa*^2) too (nu small so that kappa* > 0)."""
    from certiprog.estimators import HPMPMClassifier

    X, y = _noisy_labels(seed, n, 2)
    if min(y.sum(), n - y.sum()) < 2:
        return
    try:
        clf = HPMPMClassifier(kernel="rbf", gamma=10.0**log_gamma, nu=0.005).fit(X, y)
    except InputError as exc:
        assert "gamma" in str(exc)
        return
    e1, e0 = _training_errors(clf, X, y)
    assert max(e1, e0) <= clf.worst_case_error_ + 1e-9
