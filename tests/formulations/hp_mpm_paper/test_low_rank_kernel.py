"""Paper 004 Sec. 5, low-rank kernel coordinates (issue 15): the greedy pivoted Cholesky factorisation of K and the
kernel MPM / HP-MPM restricted to the pivots' span, checked against independent computations from the full Gram
matrix (numpy) on small m.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from certiprog.errors import InputError
from certiprog.estimators import HPMPMClassifier, MPMClassifier
from certiprog.formulations.hp_mpm_paper.hp_mpm import HPMPMProblem
from certiprog.formulations.hp_mpm_paper.kernels import (PivotedCholesky, kernel_class_moments, kernel_diagonal,
                                                          kernel_hp_mpm_problem, kernel_mpm, kernel_parts,
                                                          make_kernel, pivoted_cholesky, rbf_kernel)


def _points(seed, m=40, d=3):
    return np.random.default_rng(seed).normal(size=(m, d))


def _classes(seed, n1=30, n0=35, d=2):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n1, d)) + 0.7, rng.normal(size=(n0, d)) * 1.3 - 0.5


def _embed(mom, gamma_s, m):
    """gamma on the pivots -> gamma in R^m over the stacked training points (zero off the pivots)."""
    g = np.zeros(m)
    g[mom.pivots] = gamma_s
    return g


# ----------------------------------------------------------------------------------------------
# the factorisation against numpy
# ----------------------------------------------------------------------------------------------
def test_full_rank_reproduces_the_gram_matrix():
    X = _points(0)
    K = rbf_kernel(X, X, 0.5)
    f = pivoted_cholesky(make_kernel("rbf", 0.5), X, rank_tol=0.0)
    assert isinstance(f, PivotedCholesky) and f.rank == len(X)  # well-conditioned: every point is a pivot
    np.testing.assert_allclose(f.G @ f.G.T, K, atol=1e-12)
    np.testing.assert_allclose(f.G @ f.L.T, K[:, f.pivots], atol=1e-12)  # K[:, S] = G L^T
    assert np.all(np.triu(f.L, 1) == 0) and np.all(np.diag(f.L) > 0)    # L = G[S] lower triangular
    assert sorted(f.pivots) == list(range(len(X)))
    assert f.residual_trace == pytest.approx(0.0, abs=1e-12) and f.residual_traces[0] == pytest.approx(len(X))


@pytest.mark.parametrize("kernel", [make_kernel("rbf", 0.2), make_kernel("linear"), make_kernel("poly", degree=3)])
def test_pivots_are_the_largest_residual_diagonals_and_the_residual_trace_falls(kernel):
    X = _points(1, m=50, d=4)
    K = kernel(X, X)
    f = pivoted_cholesky(kernel, X, rank_tol=1e-12)
    assert 1 <= f.rank <= len(X)
    for j in range(f.rank):
        resid = np.diag(K - f.G[:, :j] @ f.G[:, :j].T)  # numpy, from the full K
        scale = np.abs(K).max()
        assert resid[f.pivots[j]] == pytest.approx(resid.max(), abs=1e-10 * scale)
        assert f.pivot_values[j] == pytest.approx(resid.max(), abs=1e-10 * scale)
        assert f.residual_traces[j] == pytest.approx(resid.sum(), abs=1e-9 * scale)
    assert np.all(np.diff(f.residual_traces) <= 1e-12 * np.abs(K).max())  # monotone
    assert np.all(np.diff(f.pivot_values) <= 1e-10 * np.abs(K).max())
    # K - G G^T is PSD (the residual of a Cholesky factorisation), its trace what is left out
    R = K - f.G @ f.G.T
    assert np.linalg.eigvalsh(R).min() >= -1e-9 * np.abs(K).max()
    assert f.residual_trace == pytest.approx(np.trace(R), abs=1e-9 * np.abs(K).max())


def test_stopping_rule_and_truncation_are_a_prefix():
    X = _points(2, m=60, d=2)
    k = make_kernel("rbf", 0.05)  # smooth: numerically low rank
    f = pivoted_cholesky(k, X, rank_tol=1e-12)
    assert f.rank < 60 and f.residual_max <= f.tol
    for tol in (1e-8, 1e-4):
        g = pivoted_cholesky(k, X, rank_tol=tol)
        t = f.truncated(tol)
        assert g.rank < f.rank and t.rank == g.rank
        np.testing.assert_array_equal(t.pivots, g.pivots)
        np.testing.assert_allclose(t.G, g.G, atol=1e-14)
        assert g.residual_max <= tol * f.max_diag < g.pivot_values[-1]
    h = pivoted_cholesky(k, X, max_rank=5)
    assert h.rank == 5 and f.truncated(max_rank=5).rank == 5
    np.testing.assert_array_equal(h.pivots, f.pivots[:5])
    assert h.residual_trace == pytest.approx(f.residual_traces[5])


def test_only_the_diagonal_and_the_pivot_columns_are_evaluated():
    """Never the m x m matrix: every call of the kernel is a column k(X, x_p) or a small diagonal block."""
    X = _points(3, m=1200, d=3)
    calls = []

    def counting(A, B):
        calls.append((len(A), len(B)))
        return rbf_kernel(A, B, 0.3)

    f = pivoted_cholesky(counting, X, max_rank=30)
    assert f.rank == 30
    assert max(a * b for a, b in calls) <= 1200 * 256
    assert sum(a * b for a, b in calls) <= 1200 * (30 + 256)
    np.testing.assert_allclose(kernel_diagonal(counting, X), np.ones(1200))
    X1, X0 = X[:500], X[500:]
    calls.clear()
    mom = kernel_class_moments(X1, X0, counting, max_rank=30)
    assert mom.n_pivots == 30 and mom.X_train.shape == (30, 3)
    assert max(a * b for a, b in calls) <= 1200 * 256


# ----------------------------------------------------------------------------------------------
# coordinates: exact moments of the restricted gamma (independent computation from the full K)
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("max_rank", [None, 12, 3])
def test_coordinates_give_the_exact_kernel_moments_of_the_restricted_gamma(max_rank):
    X1, X0 = _classes(4)
    X = np.vstack([X1, X0])
    K = rbf_kernel(X, X, 0.4)
    l1, l0, L1, L0 = kernel_parts(K, len(X1))
    mom = kernel_class_moments(X1, X0, "rbf", 0.4, max_rank=max_rank)
    assert mom.n_pivots == (max_rank or mom.n_pivots) and mom.rank <= mom.n_pivots
    np.testing.assert_array_equal(mom.X_train, X[mom.pivots])
    rng = np.random.default_rng(5)
    for _ in range(5):
        v = rng.normal(size=mom.p)
        g = _embed(mom, mom.basis @ v, len(X))
        assert g @ K @ g == pytest.approx(v @ v, rel=1e-7)  # ||w||^2 = ||v||^2 (gamma is large at full rank)
        assert v @ mom.mu1 == pytest.approx(g @ l1, abs=1e-10 * np.abs(v).sum())
        assert v @ mom.mu0 == pytest.approx(g @ l0, abs=1e-10 * np.abs(v).sum())
        q1, q0 = mom.variances(v)
        assert q1 == pytest.approx(np.sum((L1 @ g) ** 2), rel=1e-8, abs=1e-12)
        assert q0 == pytest.approx(np.sum((L0 @ g) ** 2), rel=1e-8, abs=1e-12)
    S = mom.pivots  # residual trace: trace(K - K[:, S] K_SS^{-1} K[S, :]), the Nystrom approximation's residual
    nys = K[:, S] @ np.linalg.solve(K[np.ix_(S, S)], K[S])
    assert mom.residual_trace == pytest.approx(np.trace(K - nys), abs=1e-6)
    assert mom.kernel_trace == pytest.approx(np.trace(K)) and mom.radius == pytest.approx(1.0)


def test_truncated_hp_mpm_solution_is_feasible_for_the_untruncated_program():
    """The honesty argument: with max_rank binding, the returned (gamma, b, kappa) satisfies the full kernel
    HP-MPM of Sec. 5 (built from the full K), so its bound is that of a feasible point."""
    X1, X0 = _classes(6, n1=40, n0=45)
    X = np.vstack([X1, X0])
    K = rbf_kernel(X, X, 1.0)
    l1, l0, L1, L0 = kernel_parts(K, len(X1))
    prob = kernel_hp_mpm_problem(X1, X0, "rbf", 1.0, delta=0.1, nu=1e-3, max_rank=10)
    assert prob.moments.n_pivots == 10 and prob.moments.residual_trace > 1.0
    res = prob.solve()
    assert res.status == "optimal" and res.kappa > 0
    g, k = _embed(prob.moments, res.weights, len(X)), res.kappa
    assert g @ K @ g <= 1 + 1e-7
    r1 = math.sqrt(2 * res.A1 + k**2 * (np.sum((L1 @ g) ** 2) + res.A1))
    r0 = math.sqrt(2 * res.A0 + k**2 * (np.sum((L0 @ g) ** 2) + res.A0))
    assert g @ (l1 - l0) - r1 - r0 >= -1e-7
    assert g @ l1 - r1 == pytest.approx(res.b, abs=1e-6)


def test_more_pivots_never_lower_kappa():
    """The pivots are nested (a prefix), so the feasible sets grow with max_rank and kappa* cannot fall."""
    X1, X0 = _classes(7, n1=35, n0=35)
    kap_mpm, kap_hp = [], []
    for r in (2, 5, 10, 20, None):
        model = kernel_mpm(X1, X0, "rbf", 0.5, max_rank=r)
        kap_mpm.append(model.derived(model.solve()).kappa)
        mom = kernel_class_moments(X1, X0, "rbf", 0.5, max_rank=r)
        kap_hp.append(HPMPMProblem(mom, 0.1, 1e-3).solve().kappa)
    assert all(b >= a * (1 - 1e-5) for a, b in zip(kap_mpm, kap_mpm[1:])), kap_mpm
    assert all(b >= a * (1 - 1e-5) for a, b in zip(kap_hp, kap_hp[1:])), kap_hp


# ----------------------------------------------------------------------------------------------
# PSD checks on the evaluated entries
# ----------------------------------------------------------------------------------------------
def _line_kernel(A, B):
    """1 - (x - y)^2 / 4 on the line: every 2 x 2 minor is fine, the 3 x 3 one of {0, 1, 2} is not (det -1/8)."""
    return 1.0 - cdist(A, B, "sqeuclidean") / 4.0


@pytest.mark.parametrize("kernel, match", [
    (lambda A, B: -cdist(A, B, "sqeuclidean"), "positive semidefinite"),         # zero diagonal, nonzero columns
    (lambda A, B: A @ B.T - 10.0, "positive semidefinite"),                     # negative diagonal
    (_line_kernel, "positive semidefinite"),                                    # a negative Schur complement
    (lambda A, B: rbf_kernel(A, B, 0.5) + 0.01 * (A[:, :1] - B[:, :1].T), "not symmetric"),
])
def test_a_kernel_that_is_not_psd_is_refused(kernel, match):
    X = np.array([[0.0], [1.0], [2.0], [0.5], [1.5]]) if kernel is _line_kernel else _points(8, m=12, d=2)
    with pytest.raises(InputError, match=match):
        pivoted_cholesky(kernel, X)


# ----------------------------------------------------------------------------------------------
# estimators
# ----------------------------------------------------------------------------------------------
def test_estimators_record_the_pivots_and_predict_from_them():
    X1, X0 = _classes(9, n1=120, n0=100)
    X = np.vstack([X1, X0])
    y = np.r_[np.ones(120), np.zeros(100)]
    for est in (MPMClassifier(kernel="rbf", gamma=0.5, max_rank=25),
                HPMPMClassifier(kernel="rbf", gamma=0.5, nu=1e-3, max_rank=25)):
        est.fit(X, y)
        sol = est.solution_
        assert sol["max_rank"] == 25 and sol["kernel_pivots"] == 25 and sol["kernel_rank"] <= 25
        assert sol["residual_trace"] > 0 and 0 < sol["dropped_spread"] < 1
        assert est.X_fit_.shape == (25, 2) and est.dual_coef_.shape == (1, 25)
        np.testing.assert_allclose(est.decision_function(X),
                                   rbf_kernel(X, est.X_fit_, 0.5) @ est.dual_coef_[0] + est.intercept_[0])
        if isinstance(est, MPMClassifier):  # a rigorous enclosure of kappa*^{-1} = the SOCP's optimum
            lo, hi = sol["interval"]
            assert lo <= sol["objective"] * (1 + 1e-7) and sol["objective"] <= hi * (1 + 1e-7) and hi - lo <= 1e-5 * hi
            assert sol["certify_time"] >= 0
        s = est.decision_function(X)  # each class's training error is within the reported bound
        assert max(np.mean(s[y == 1] <= 0), np.mean(s[y == 0] > 0)) <= est.worst_case_error_ + 1e-9
    full = MPMClassifier(kernel="rbf", gamma=0.5, max_rank=None).fit(X, y)
    assert full.solution_["max_rank"] is None and full.solution_["kernel_pivots"] > 25


@pytest.mark.parametrize("bad", [0, -3, 2.5, "10", True, np.nan, [5]])
def test_estimators_refuse_a_bad_max_rank(bad):
    X1, X0 = _classes(10)
    X, y = np.vstack([X1, X0]), np.r_[np.ones(30), np.zeros(35)]
    for est in (MPMClassifier(kernel="rbf", max_rank=bad), HPMPMClassifier(kernel="rbf", nu=0.01, max_rank=bad)):
        with pytest.raises(InputError, match="max_rank"):
            est.fit(X, y)
    with pytest.raises(InputError, match="max_rank"):
        kernel_class_moments(X1, X0, "rbf", max_rank=bad)


def test_estimators_on_bad_input():
    X1, X0 = _classes(11)
    X, y = np.vstack([X1, X0]), np.r_[np.ones(30), np.zeros(35)]
    Xn = X.copy()
    Xn[3, 1] = np.nan
    for make in (lambda: MPMClassifier(kernel="rbf", max_rank=10),
                 lambda: HPMPMClassifier(kernel="rbf", nu=0.01, max_rank=10)):
        with pytest.raises(InputError, match="NaN"):
            make().fit(Xn, y)
        with pytest.raises(InputError, match="class"):
            make().fit(X, np.ones(len(y)))
        with pytest.raises(InputError, match="numerically constant.*increase gamma"):
            make().set_params(gamma=1e-30).fit(X, y)


# ----------------------------------------------------------------------------------------------
# property
# ----------------------------------------------------------------------------------------------
@settings(derandomize=True, deadline=None, max_examples=25, database=None)
@given(seed=st.integers(0, 10**6), m=st.integers(6, 45), d=st.integers(1, 4), log_gamma=st.floats(-3, 1.5),
       max_rank=st.one_of(st.none(), st.integers(1, 50)), kernel=st.sampled_from(["rbf", "linear", "poly"]))
def test_factor_and_coordinates_property(seed, m, d, log_gamma, max_rank, kernel):
    """For any data, kernel and max_rank: K - G G^T is PSD with the recorded trace, K[:, S] = G L^T, and the
    coordinates' moments and norm are those of the restricted gamma computed from the full K."""
    X = np.random.default_rng(seed).normal(size=(m, d))
    k = make_kernel(kernel, 10.0**log_gamma, d)
    K = k(X, X)
    scale = np.abs(K).max()
    f = pivoted_cholesky(k, X, max_rank=max_rank)
    assert f.rank <= (max_rank or m)
    R = K - f.G @ f.G.T
    assert np.linalg.eigvalsh(R).min() >= -1e-8 * scale
    assert f.residual_trace == pytest.approx(np.trace(R), abs=1e-8 * scale)
    np.testing.assert_allclose(f.G @ f.L.T, K[:, f.pivots], atol=1e-10 * scale)
    n1 = m // 2
    if min(n1, m - n1) < 2:
        return
    try:
        mom = kernel_class_moments(X[:n1], X[n1:], k, max_rank=max_rank)
    except InputError as exc:  # only when nothing but a constant is resolved
        assert "numerically constant" in str(exc)
        return
    l1, l0, L1, L0 = kernel_parts(K, n1)
    v = np.random.default_rng(seed + 1).normal(size=mom.p)
    g = _embed(mom, mom.basis @ v, m)
    assert g @ K @ g == pytest.approx(v @ v, rel=1e-6)
    assert v @ mom.dmu == pytest.approx(g @ (l1 - l0), abs=1e-6 * max(1.0, np.abs(g).sum() * scale))
    q1, q0 = mom.variances(v)
    assert q1 == pytest.approx(np.sum((L1 @ g) ** 2), rel=1e-6, abs=1e-8 * max(1.0, v @ v))
    assert q0 == pytest.approx(np.sum((L0 @ g) ** 2), rel=1e-6, abs=1e-8 * max(1.0, v @ v))
