"""ME^2's dedicated local solver (me2_paper/local_solver.py): exactness, certificate, agreement with the generic path.

The certificate is checked against independent solves: the dedicated and the generic (Clarabel) ellipsoids must lie
within the sum of their certified error bounds ``sqrt(gap/lam)``, ``sqrt(gap/mu)``.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import InputError
from certiprog.formulations.me2_paper.local_solver import (
    LocalCertificate, certify, grid_path, local_problem, solve_local, solve_local_checked, solve_local_cvxpy,
    solve_local_generic, solve_local_path, svec, unsvec)

# (seed, n, d, mu, lam, B): n > d, n < d, n == d, tiny lam, big mu / lam (the instances of doc 002)
INSTANCES = [(0, 8, 3, 1.0, 0.5, 4.0), (1, 15, 4, 0.8, 0.1, 4.0), (2, 5, 6, 2.0, 1.0, 4.0),
             (3, 12, 2, 0.75, 1e-2, 4.0), (4, 10, 3, 10.0, 100.0, 2.0), (5, 6, 6, 1.0, 0.2, 3.0),
             (6, 200, 5, 0.9, 1e-6, 4.0), (7, 300, 8, 2.0, 1e-3, 4.0)]


def instance(seed, n, d, sigma=1.0):
    rng = np.random.default_rng(seed)
    c = rng.normal(size=d)
    return c + sigma * rng.normal(size=(n, d)), c


def agree(a, b, slack=1e-7):
    """Both solutions are within their certified distances of the one optimum."""
    assert np.linalg.norm(a.M - b.M) <= a.M_error + b.M_error + slack * max(1.0, np.linalg.norm(b.M))
    assert abs(a.R - b.R) <= a.R_error + b.R_error + slack * max(1.0, abs(b.R))


def test_worked_1d_example():  # doc 002 §4: y^2 = 0.5, mu = lam = B = 1: alpha* = 0.8, M = 1.2, R = 0.6, p* = 0.2
    sol = solve_local(np.array([[np.sqrt(0.5)]]), np.zeros(1), 1.0, 1.0, 1.0)
    assert sol.ok and sol.alpha[0] == pytest.approx(0.8, abs=1e-12)
    assert sol.M[0, 0] == pytest.approx(1.2, abs=1e-12) and sol.R == pytest.approx(0.6, abs=1e-12)
    assert sol.primal == pytest.approx(0.2, abs=1e-12) and sol.dual == pytest.approx(0.2, abs=1e-12)


@pytest.mark.parametrize("inst", INSTANCES, ids=str)
def test_matches_generic_clarabel_path(inst):
    seed, n, d, mu, lam, B = inst
    X, c = instance(seed, n, d)
    ded = solve_local(X, c, mu, lam, B)
    gen = solve_local_generic(X, c, mu, lam, B, backend="clarabel", tol=1e-6)
    assert ded.ok and ded.rel_gap <= 1e-10 and ded.gap >= 0
    # both primal values lie in [p*, p* + own gap]; Clarabel's gap is what its accuracy gives
    assert abs(ded.primal - gen.primal) <= max(ded.gap, gen.gap) + 1e-12 and gen.rel_gap <= 1e-5
    assert ded.primal <= gen.primal + 1e-12
    agree(ded, gen)
    assert np.linalg.eigvalsh(ded.M).min() >= 1 - 1e-12  # M >= I (closed form)
    assert ded.delta == 0.0 and 0 <= ded.R <= B


def test_matches_cvxpy_clarabel():
    X, c = instance(11, 60, 4)
    ded, cvx = solve_local(X, c, 0.8, 0.05, 4.0), solve_local_cvxpy(X, c, 0.8, 0.05, 4.0, tol=1e-6)
    agree(ded, cvx)
    assert ded.gap <= cvx.gap + 1e-12


def test_degenerate_R_zero_branch():
    """Three copies of c and one far point, mu = 0.1, B = 1 (doc 002 §5): R* = 0 (2 mu B < 1: the beta column)."""
    c = np.array([0.3, -0.2])
    X = np.vstack([c, c, c, c + np.array([3.0, 1.0])])
    ded = solve_local(X, c, 0.1, 1.0, 1.0)
    gen = solve_local_generic(X, c, 0.1, 1.0, 1.0, tol=1e-6)
    assert ded.ok and ded.R == pytest.approx(0.0, abs=1e-12) and ded.beta >= 0  # (alpha, beta) not unique
    assert abs(ded.primal - gen.primal) <= max(ded.gap, gen.gap) + 1e-12
    agree(ded, gen)


def test_duplicates_and_ties():
    """Repeated negatives (identical columns, so the face least-squares problems are rank deficient)."""
    X, c = instance(3, 40, 3)
    X = np.vstack([X, X, X[:5]])
    ded = solve_local(X, c, 0.9, 1e-3, 4.0)
    gen = solve_local_generic(X, c, 0.9, 1e-3, 4.0, tol=1e-6)
    assert ded.ok
    agree(ded, gen)


def test_path_warm_starts_equal_cold_solves():
    X, c = instance(5, 120, 4, sigma=0.4)
    prob = local_problem(X, c)
    pairs = grid_path([0.75, 1.0, 10.0], [1e-6, 1e-3, 1.0, 100.0])
    assert len(pairs) == 12 and pairs[:4] == [(0.75, 1e-6), (1.0, 1e-6), (10.0, 1e-6), (10.0, 1e-3)]
    warm = solve_local_path(prob, pairs)
    for (mu, lam), w in zip(pairs, warm):
        cold = solve_local(problem=prob, mu=mu, lam=lam)
        assert w.ok and cold.ok
        agree(w, cold, slack=1e-9)
    assert any(w.path.startswith("warm") for w in warm)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.1, 10), st.floats(1e-4, 10))
def test_certificate_is_sound_at_any_dual_point(seed, mu, lam):
    """For any alpha in the box: dual <= p* <= primal, and lam ||M - M*||^2 + mu (R - R*)^2 <= gap."""
    X, c = instance(seed % 50, 25, 3)
    prob = local_problem(X, c)
    opt = solve_local(problem=prob, mu=mu, lam=lam)
    alpha = np.random.default_rng(seed).uniform(0, 1.0 / 25, 25) * (np.random.default_rng(seed + 1).random(25) < .7)
    pt = certify(prob, alpha, mu, lam, 4.0, solver="test")
    scale = 1e-9 * max(1.0, abs(opt.primal))
    assert pt.gap >= 0 and pt.dual <= opt.primal + scale and opt.dual <= pt.primal + scale
    assert pt.gap == pytest.approx(pt.primal - pt.dual, abs=1e-9 * max(1.0, abs(pt.primal)))
    dist = lam * np.sum((pt.M - opt.M) ** 2) + mu * (pt.R - opt.R) ** 2
    assert dist <= pt.gap + opt.gap + scale


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 40))
def test_duality_numbers_match_a_plain_loop_and_the_gap_is_never_negative_zero(seed, b, n):
    """`duality_from` (the one definition of the certificate's numbers) against a loop over the entries, with dual
    points at 0, at 1/n and inside the box, slopes g_i exactly 0.0, and rows with R = 0 (small mu) whose slopes
    include -0.0: R, g equal, primal and dual to rounding, the gap equal to sum_i a_i [g_i]_+ + (1/n - a_i)
    [-g_i]_+ to rounding, >= 0 and never -0.0."""
    from certiprog.formulations.me2_paper.local_solver import duality_from

    rng = np.random.default_rng(seed)
    p, B = 6, 4.0
    w, q0 = rng.normal(size=(b, p)), rng.random((b, n))
    a = rng.uniform(0.0, 1.0 / n, (b, n))
    a[rng.random((b, n)) < 0.3], a[rng.random((b, n)) < 0.3] = 0.0, 1.0 / n
    mu, lam = np.where(rng.random(b) < 0.5, 1e-3, rng.uniform(0.5, 2.0, b)), rng.uniform(1e-3, 1.0, b)
    R_ref = np.maximum(0.0, B - a.sum(axis=1) / (2.0 * mu))
    q = rng.normal(size=(b, n)) + R_ref[:, None]
    on = rng.random((b, n)) < 0.3
    q[on] = np.where(R_ref[:, None] == 0.0, -0.0, R_ref[:, None]).repeat(n, axis=1)[on]  # g_i = 0.0 or -0.0
    R, g, primal, dual, gap = duality_from(w, q, a, q0, mu, lam, B)
    np.testing.assert_array_equal(R, R_ref)
    np.testing.assert_array_equal(g, q - R_ref[:, None])
    for r in range(b):
        hinge = [max(0.0, -x) for x in g[r]]
        S2 = float(w[r] @ w[r])
        assert primal[r] == pytest.approx(sum(hinge) / n + mu[r] * (B - R[r]) ** 2 + S2 / (4 * lam[r]), rel=1e-12)
        assert dual[r] == pytest.approx(-(q0[r] @ a[r] + S2 / (4 * lam[r]) + mu[r] * (R[r] ** 2 - B * B)),
                                        rel=1e-12, abs=1e-15)
        ref = sum(ai * max(0.0, x) + (1.0 / n - ai) * h for ai, x, h in zip(a[r], g[r], hinge))
        assert gap[r] == pytest.approx(ref, rel=1e-12, abs=1e-300)
    assert (gap >= 0).all() and not np.signbit(gap).any()


def test_svec_round_trip_and_norm():
    A = np.random.default_rng(0).normal(size=(4, 4))
    A = A + A.T
    assert np.allclose(unsvec(svec(A), 4), A) and np.isclose(np.linalg.norm(svec(A)), np.linalg.norm(A))


@pytest.mark.parametrize("kwargs, match", [
    (dict(mu=0.0), "mu"), (dict(lam=-1.0), "lam"), (dict(B=0.0), "B"), (dict(max_iter=0), "max_iter"),
    (dict(alpha0=np.zeros(3)), "alpha0"), (dict(tol=0.0), "tol")])
def test_bad_input(kwargs, match):
    X, c = instance(0, 8, 3)
    with pytest.raises(InputError, match=match):
        solve_local(X, c, **{**dict(mu=1.0, lam=1.0, B=4.0), **kwargs})


def test_bad_data():
    X, c = instance(0, 8, 3)
    X[2, 1] = np.nan
    with pytest.raises(InputError, match="X_neg"):
        local_problem(X, c)
    with pytest.raises(InputError, match="center"):
        local_problem(np.ones((4, 3)), np.ones(2))


def test_inaccurate_status_when_iterations_run_out():
    X, c = instance(6, 200, 5)
    sol = solve_local(X, c, 0.9, 1e-6, 4.0, max_iter=1)
    assert sol.status in ("inaccurate", "optimal") and sol.gap >= 0
    cert = sol.certificate()
    assert isinstance(cert, LocalCertificate) and cert.gap == sol.gap and cert["status"] == sol.status
    assert set(cert) >= {"primal", "dual", "gap", "M_error", "R_error", "status", "solver", "fallback"}


def test_a_stalled_dedicated_solve_is_redone_on_clarabel_and_marked():
    X, c = instance(6, 200, 5)
    prob = local_problem(X, c)
    stalled = solve_local(problem=prob, mu=0.9, lam=1e-6, B=4.0, max_iter=1)
    assert not stalled.ok and stalled.fallback == "" and stalled.ipm_iterations == 1
    redo = solve_local_checked(prob, 0.9, 1e-6, 4.0, max_iter=1)
    assert redo.solver.startswith("generic:clarabel") and redo.gap < stalled.gap
    assert "dedicated solver stopped" in redo.fallback and redo.certificate().fallback == redo.fallback
    kept = solve_local_checked(prob, 0.9, 1e-6, 4.0, max_iter=1, fallback=None)
    assert kept.solver == "dedicated" and kept.gap == stalled.gap


def test_real_data_path_agrees_with_clarabel():
    """Yeast6's training negatives (1159 x 8) around its first positive, along part of the paper's grid."""
    from certiprog.datasets import data_root

    if not (data_root() / "keel" / "yeast6.dat").is_file():
        pytest.skip("the shared data folder (or $CERTIPROG_DATA) is needed for Yeast6")
    from certiprog.formulations.me2_paper import experiment as E

    d = E._scenario_data(dict(part="table3", dataset="yeast6", rate=None, rep=0), dict(seed=0, test_size=0.2))
    prob = local_problem(d["Xs"][~d["ys"]], d["Xs"][d["ys"]][0])
    pairs = grid_path([0.75, 1.0, 10.0], [1e-6, 1e-5, 1e-4])
    sols = solve_local_path(prob, pairs)
    assert all(s.ok and s.rel_gap <= 1e-10 for s in sols)
    for k in (0, 4, 8):
        gen = solve_local_generic(problem=prob, mu=pairs[k][0], lam=pairs[k][1])
        agree(sols[k], gen)
        assert sols[k].primal <= gen.primal + 1e-12
