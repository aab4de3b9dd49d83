"""Manifolds of paper 001 and their separation oracles (certiprog.formulations.mcp_paper.manifolds): closed-form Lq oracle
vs brute-force sampling and CVXPY, exact Lq-ball samplers, point-cloud and parametric (local search) oracles,
the vectorised batch oracle, the Sec. 4.1 generator (with the paper's capacity statements), bad inputs."""
import math

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from scipy.special import gamma as gamma_fn

from certiprog.errors import InputError
from certiprog.formulations.mcp_paper.manifolds import (LqEllipsoidManifold, ManifoldBatch, ParametricManifold,
                                                       PointCloudManifold, as_manifolds, lq_ellipsoid_geometry,
                                                       random_lq_ellipsoids)
from certiprog.model import ForAll, Model, Variable, minimize, sum_squares
from certiprog.model.index_sets import dual_exponent, lq_ball_minimizer, lq_ball_minimizer_rows, sample_lq_ball

from ref_001_003 import lq_oracle as ref_lq_oracle  # noqa: E402

QS = [1.0, 1.5, 2.0, 3.0, 50.0, math.inf]


def ellipsoid(seed, N=6, D=3, q=2.0, radii=None):
    rng = np.random.default_rng(seed)
    r = rng.uniform(0.2, 2.0, D) if radii is None else np.asarray(radii, float)
    return LqEllipsoidManifold(rng.standard_normal(N), rng.standard_normal((N, D)), r, q=q)


def qnorm(S, q):
    return np.linalg.norm(S, ord=q, axis=-1)


# ------------------------------------------------------------------ Lq ellipsoids
@pytest.mark.parametrize("q", QS)
def test_lq_oracle_beats_brute_force_and_is_nearly_attained(q):
    M = ellipsoid(1, q=q)
    rng = np.random.default_rng(2)
    cloud = M.sample(40000, rng, surface=True)
    for w in rng.standard_normal((5, M.N)):
        x, val = M.oracle(w)
        brute = float(np.min(cloud @ w))
        assert val <= brute + 1e-9  # never beaten by a sample
        assert val >= brute - 0.05 * (abs(brute) + 1)  # and nearly attained by the samples
        # the point lies on the manifold and the value is the robust counterpart's
        s = np.linalg.lstsq(M.V, x - M.center, rcond=None)[0]
        assert qnorm(s, q) <= 1 + 1e-9
        assert val == pytest.approx(float(w @ x), abs=1e-12)
        closed = w @ M.center - np.linalg.norm(M.radii * (M.basis.T @ w), ord=dual_exponent(q))
        assert val == pytest.approx(closed, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("q", [1.0, 1.5, 3.0, math.inf])
def test_lq_ball_minimizer_matches_cvxpy_and_reference(q):
    rng = np.random.default_rng(4)
    g = rng.standard_normal(5)
    s = cp.Variable(5)
    prob = cp.Problem(cp.Minimize(g @ s), [cp.norm(s, "inf" if math.isinf(q) else q) <= 1])
    prob.solve(solver=cp.CLARABEL)
    mine = lq_ball_minimizer(g, q)
    assert g @ mine == pytest.approx(prob.value, abs=1e-6)
    assert g @ mine == pytest.approx(ref_lq_oracle(g, q)["value"], abs=1e-12)


@settings(derandomize=True, deadline=None, max_examples=40)
@given(q=st.one_of(st.floats(1.0, 60.0), st.just(math.inf)), k=st.integers(1, 6), D=st.integers(1, 7),
       seed=st.integers(0, 10 ** 6), scale=st.sampled_from([1e-8, 1.0, 1e6]))
def test_rowwise_minimizer_is_feasible_and_attains_the_dual_norm(q, k, D, seed, scale):
    G = scale * np.random.default_rng(seed).standard_normal((k, D))
    G[0, 0] = 0.0  # zeros inside rows are fine
    S = lq_ball_minimizer_rows(G, q)
    assert np.all(np.isfinite(S))
    assert np.all(qnorm(S, q) <= 1 + 1e-9)
    vals = np.einsum("kd,kd->k", G, S)
    assert np.allclose(vals, -np.linalg.norm(G, ord=dual_exponent(q), axis=1), rtol=1e-9, atol=1e-300)
    for i in range(k):  # the row-wise form equals the single-vector form
        assert np.allclose(S[i], lq_ball_minimizer(G[i], q))


def test_minimizer_zero_rows_and_q_near_one_do_not_overflow():
    G = np.array([[0.0, 0.0, 0.0], [3e3, -2e3, 1.0]])
    S = lq_ball_minimizer_rows(G, 1.0001)  # exponent q* - 1 = 10^4: |g|^(q*-1) would overflow unscaled
    assert np.all(S[0] == 0) and np.all(np.isfinite(S))
    p = dual_exponent(1.0001)
    scaled_norm = 3e3 * np.sum(np.abs(G[1] / 3e3) ** p) ** (1 / p)  # ||g||_p without overflow
    assert G[1] @ S[1] == pytest.approx(-scaled_norm, rel=1e-9)
    assert qnorm(S[1], 1.0001) <= 1 + 1e-9


@pytest.mark.parametrize("q", QS)
def test_ball_sampler_is_uniform_radially(q):
    """Uniform in the unit Lq ball <=> ||s||_q^D ~ U(0, 1) (the gauge of a uniform point); surface: ||s||_q = 1."""
    D = 3
    S = sample_lq_ball(4000, D, q, np.random.default_rng(7))
    r = qnorm(S, q)
    assert np.all(r <= 1 + 1e-12)
    assert stats.kstest(r ** D, "uniform").pvalue > 1e-3
    assert np.allclose(qnorm(sample_lq_ball(500, D, q, 8, surface=True), q), 1.0)


@pytest.mark.parametrize("q", [1.0, 1.5, 3.0])
def test_ball_sampler_matches_areas(q):
    """D = 2: the fraction of points with s_1 > 1/2 equals that region's share of the ball's area."""
    n = 20000
    S = sample_lq_ball(n, 2, q, np.random.default_rng(9))
    t = np.linspace(0.5, 1.0, 200001)
    part = integrate.trapezoid(2 * (1 - t ** q) ** (1 / q), t)
    total = 4 * gamma_fn(1 + 1 / q) ** 2 / gamma_fn(1 + 2 / q)
    p = part / total
    frac = np.mean(S[:, 0] > 0.5)
    assert abs(frac - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_ellipsoid_sample_lies_on_the_manifold():
    M = ellipsoid(3, N=7, D=4, q=3.0)
    X = M.sample(300, 1)
    s = np.linalg.lstsq(M.V, (X - M.center).T, rcond=None)[0].T
    assert X.shape == (300, 7) and np.all(qnorm(s, 3.0) <= 1 + 1e-9)
    assert M.initial_points().shape == (1, 7) and np.allclose(M.initial_points()[0], M.center)
    assert M.norm_bound() >= np.max(np.linalg.norm(M.sample(3000, 2, surface=True), axis=1))


def test_degenerate_ellipsoids_are_valid():
    """Zero radii and rank-deficient bases give lower-dimensional ellipsoids; the oracle stays exact."""
    rng = np.random.default_rng(5)
    U = rng.standard_normal((5, 3))
    U[:, 2] = U[:, 0]  # rank 2
    M = LqEllipsoidManifold(np.ones(5), U, [1.0, 0.0, 2.0], q=2)
    w = rng.standard_normal(5)
    x, val = M.oracle(w)
    assert val <= np.min(M.sample(20000, 1, surface=True) @ w) + 1e-9
    point = LqEllipsoidManifold(np.ones(5), U, np.zeros(3))
    assert np.allclose(point.oracle(w)[0], np.ones(5))


def test_ellipsoid_bad_inputs():
    c, U, r = np.zeros(4), np.eye(4)[:, :2], np.ones(2)
    with pytest.raises(InputError, match="basis has 3 rows"):
        LqEllipsoidManifold(c, U[:3], r)
    with pytest.raises(InputError, match="radii has 3 entries"):
        LqEllipsoidManifold(c, U, np.ones(3))
    with pytest.raises(InputError, match="q must be >= 1"):
        LqEllipsoidManifold(c, U, r, q=0.5)
    with pytest.raises(InputError, match="q must be"):
        LqEllipsoidManifold(c, U, r, q="two")
    with pytest.raises(InputError, match="q must be >= 1"):
        LqEllipsoidManifold(c, U, r, q=float("nan"))
    with pytest.raises(InputError, match="negative"):
        LqEllipsoidManifold(c, U, [1.0, -1.0])
    with pytest.raises(InputError, match="NaN"):
        LqEllipsoidManifold([0, np.nan, 0, 0], U, r)
    with pytest.raises(InputError, match="NaN"):
        LqEllipsoidManifold(c, np.where(U == 1, np.inf, 0), r)
    with pytest.raises(InputError, match="D = 0"):
        LqEllipsoidManifold(c, np.zeros((4, 0)), np.zeros(0))
    with pytest.raises(InputError, match="w has 3 entries"):
        LqEllipsoidManifold(c, U, r).oracle(np.ones(3))
    with pytest.raises(InputError, match="nonnegative integer"):
        LqEllipsoidManifold(c, U, r).sample(-1, 0)


# ------------------------------------------------------------------ point clouds
def test_point_cloud_oracle_is_the_min_over_points_and_its_hull():
    rng = np.random.default_rng(6)
    pts = rng.standard_normal((50, 4))
    M = PointCloudManifold(pts)
    for w in rng.standard_normal((10, 4)):
        x, val = M.oracle(w)
        assert val == pytest.approx(np.min(pts @ w)) and np.any(np.all(pts == x, axis=1))
        hull = rng.dirichlet(np.ones(50), 2000) @ pts
        assert val <= np.min(hull @ w) + 1e-12
    assert np.allclose(M.center, pts.mean(axis=0))
    near = pts[np.argmin(np.linalg.norm(pts - pts.mean(0), axis=1))]
    assert np.allclose(M.initial_points()[0], near)
    S = M.sample(100, 0)
    assert S.shape == (100, 4) and all(np.any(np.all(pts == s, axis=1)) for s in S)
    assert M.norm_bound() == pytest.approx(np.max(np.linalg.norm(pts, axis=1)))


def test_point_cloud_bad_inputs():
    with pytest.raises(InputError, match="reshape\\(1, -1\\)"):
        PointCloudManifold(np.ones(3))
    with pytest.raises(InputError, match="rows"):
        PointCloudManifold(np.ones((0, 3)))
    with pytest.raises(InputError, match="NaN"):
        PointCloudManifold([[1.0, np.nan]])
    with pytest.raises(InputError, match="different ambient dimensions"):
        as_manifolds([np.ones((2, 3)), np.ones((2, 4))])
    with pytest.raises(InputError, match="empty"):
        as_manifolds([])
    with pytest.raises(InputError, match="list of manifold"):
        as_manifolds(np.ones((2, 3)))
    with pytest.raises(InputError, match=r"manifolds\[1\]"):
        as_manifolds([np.ones((2, 3)), "abc"])


# ------------------------------------------------------------------ parametric manifolds (local search)
def torus(theta_phi, R=2.0, r=0.5):
    th, ph = theta_phi
    return np.array([(R + r * np.cos(ph)) * np.cos(th), (R + r * np.cos(ph)) * np.sin(th), r * np.sin(ph)])


def torus_jac(theta_phi, R=2.0, r=0.5):
    th, ph = theta_phi
    return np.array([[-(R + r * np.cos(ph)) * np.sin(th), -r * np.sin(ph) * np.cos(th)],
                     [(R + r * np.cos(ph)) * np.cos(th), -r * np.sin(ph) * np.sin(th)],
                     [0.0, r * np.cos(ph)]])


@pytest.mark.parametrize("use_jac", [True, False])
def test_parametric_local_search_finds_the_torus_minimum(use_jac):
    """min over the torus of <w, x> = -R ||(w1, w2)|| - r ||w|| (closed form); local search from K = 5 starts."""
    box = [(0.0, 2 * np.pi)] * 2
    M = ParametricManifold(torus, 2, bounds=box, jac=torus_jac if use_jac else None, n_starts=5, rng=1)
    rng = np.random.default_rng(3)
    cloud = M.sample(4000, rng)
    for w in rng.standard_normal((6, 3)):
        x, val = M.oracle(w)
        exact = -2.0 * np.linalg.norm(w[:2]) - 0.5 * np.linalg.norm(w)
        assert val == pytest.approx(exact, abs=1e-6)
        assert val <= np.min(cloud @ w) + 1e-9
        assert np.allclose(x, torus(M.oracle_parameter(w)[0])) and val == pytest.approx(w @ x)
    assert not M.exact and M.N == 3 and M.norm_bound() is None


def test_parametric_ball_and_circle():
    """Ball parameter set: f(s) = c + A s, ||s|| <= R has min <w,c> - R||A^T w||; circle: <w,c> - rho||w_12||."""
    rng = np.random.default_rng(11)
    c, A = rng.standard_normal(4), rng.standard_normal((4, 2))
    M = ParametricManifold(lambda s: c + A @ s, 2, ball_radius=1.5, jac=lambda s: A, rng=0)
    for w in rng.standard_normal((5, 4)):
        assert M.oracle(w)[1] == pytest.approx(w @ c - 1.5 * np.linalg.norm(A.T @ w), abs=1e-6)
    assert np.all(np.linalg.norm(M.sample_parameters(500, 1), axis=1) <= 1.5)
    assert np.allclose(M.center, c) and np.allclose(M.initial_points()[0], c)
    circle = ParametricManifold(lambda t: c[:3] + 0.7 * np.array([np.cos(t[0]), np.sin(t[0]), 0.0]), 1,
                                bounds=[(0.0, 2 * np.pi)], rng=2)
    for w in rng.standard_normal((5, 3)):
        assert circle.oracle(w)[1] == pytest.approx(w @ c[:3] - 0.7 * np.linalg.norm(w[:2]), abs=1e-6)


def test_parametric_bad_inputs():
    f = lambda s: np.r_[s, 1.0]  # noqa: E731
    with pytest.raises(InputError, match="exactly one parameter set"):
        ParametricManifold(f, 2)
    with pytest.raises(InputError, match="exactly one parameter set"):
        ParametricManifold(f, 2, bounds=[(0, 1)] * 2, ball_radius=1.0)
    with pytest.raises(InputError, match="one \\(low, high\\) row per parameter"):
        ParametricManifold(f, 2, bounds=[(0, 1)] * 3)
    with pytest.raises(InputError, match="low > high"):
        ParametricManifold(f, 2, bounds=[(0, 1), (1, 0)])
    with pytest.raises(InputError, match="ball_radius"):
        ParametricManifold(f, 2, ball_radius=0.0)
    with pytest.raises(InputError, match="callable"):
        ParametricManifold(np.ones(3), 2, ball_radius=1.0)
    with pytest.raises(InputError, match="dim"):
        ParametricManifold(f, 0, ball_radius=1.0)
    with pytest.raises(InputError, match="NaN or inf"):
        ParametricManifold(lambda s: np.r_[s, np.nan], 2, ball_radius=1.0)
    with pytest.raises(InputError, match="1-D point"):
        ParametricManifold(lambda s: np.ones((2, 2)), 2, ball_radius=1.0)
    with pytest.raises(InputError, match="Jacobian"):
        ParametricManifold(f, 2, ball_radius=1.0, jac=lambda s: np.ones((2, 3))).oracle(np.ones(3))
    bad = ParametricManifold(lambda s: np.r_[s, 1.0] if s[0] < 0.9 else np.r_[s, np.nan], 2,
                             bounds=[(0, 1)] * 2, n_starts=0)
    with pytest.raises(InputError, match="NaN or inf"):
        bad.sample(50, 0)


# ------------------------------------------------------------------ many manifolds at once
@settings(derandomize=True, deadline=None, max_examples=15)
@given(seed=st.integers(0, 10 ** 6), P=st.integers(1, 6), q=st.sampled_from(QS))
def test_batch_oracle_equals_one_by_one(seed, P, q):
    rng = np.random.default_rng(seed)
    N = 5
    ms = []
    for p in range(P):
        kind = p % 3
        if kind == 0:
            ms.append(LqEllipsoidManifold(rng.standard_normal(N), rng.standard_normal((N, 1 + p % 3)),
                                          rng.uniform(0, 2, 1 + p % 3), q=q if p % 2 else 2.0))
        elif kind == 1:
            ms.append(PointCloudManifold(rng.standard_normal((1 + 3 * p, N))))
        else:
            A = rng.standard_normal((N, 2))
            ms.append(ParametricManifold(lambda s, A=A: A @ s, 2, ball_radius=1.0, jac=lambda s, A=A: A, rng=p))
    batch = ManifoldBatch(ms)
    W = rng.standard_normal((P, N))
    X, vals = batch.minimize(W)
    for p, m in enumerate(ms):
        x, v = m.oracle(W[p])
        assert v == pytest.approx(vals[p], abs=1e-9) and np.allclose(x, X[p])
    assert batch.exact == (P < 3)
    with pytest.raises(InputError, match="W must be"):
        batch.minimize(np.ones((P + 1, N)))


def test_manifolds_index_forall_constraints_exactly():
    """A manifold is an IndexSet: ForAll over it compiles to the robust counterpart (Lq) or all points (cloud)."""
    rng = np.random.default_rng(12)
    M1 = LqEllipsoidManifold(np.r_[3.0, 0, 0], rng.standard_normal((3, 2)) * 0.3, [1.0, 0.5], q=3.0)
    M2 = PointCloudManifold(rng.standard_normal((20, 3)) * 0.3 + np.r_[0, 3.0, 0])
    w = Variable(3, "w")
    model = Model(minimize(0.5 * sum_squares(w)))
    for i, M in enumerate((M1, M2)):
        model.add(ForAll(M, lambda u: w @ u >= 1.0), name=f"m{i}")
    exact = model.solve()
    cut = model.solve(forall="cutting_plane", cp_tol=1e-8, cp_max_iter=200)
    assert exact.status == "optimal" and cut.info["termination"] == "converged"
    assert cut.objective == pytest.approx(exact.objective, rel=1e-5)
    wv = exact.value("w")
    assert M1.oracle(wv)[1] >= 1 - 1e-6 and M2.oracle(wv)[1] >= 1 - 1e-6


# ------------------------------------------------------------------ the Sec. 4.1 generator
def test_random_lq_ellipsoids_follow_sec_4_1():
    ms, y = random_lq_ellipsoids(9, 400, 5, 20.0, q=3, rng=0)
    assert len(ms) == 9 and sorted(y.tolist()) == [-1.0] * 4 + [1.0] * 5  # ceil(P/2) positive
    assert all(isinstance(m, LqEllipsoidManifold) and m.q == 3 and m.D == 5 for m in ms)
    R = np.concatenate([m.radii for m in ms])
    assert 10.0 <= R.min() and R.max() <= 30.0 and abs(R.mean() - 20) < 2
    # c and u ~ N(0, I/N): norms ~ 1
    assert abs(np.mean([np.linalg.norm(m.center) for m in ms]) - 1) < 0.1
    assert abs(np.mean(np.linalg.norm(np.hstack([m.basis for m in ms]), axis=0)) - 1) < 0.1
    ms2, y2 = random_lq_ellipsoids(9, 400, 5, 20.0, q=3, rng=0)
    assert np.array_equal(y, y2) and all(np.array_equal(a.basis, b.basis) for a, b in zip(ms, ms2))
    with pytest.raises(InputError, match="P >= 2"):
        random_lq_ellipsoids(1, 4, 2, 1.0)
    with pytest.raises(InputError, match="q must be >= 1"):
        random_lq_ellipsoids(4, 4, 2, 1.0, q=0.9)
    with pytest.raises(InputError, match="R0"):
        random_lq_ellipsoids(4, 4, 2, -1.0)
    with pytest.raises(InputError, match="separable must be"):
        random_lq_ellipsoids(4, 4, 2, 1.0, separable="yes")


def test_one_generator_two_scales_one_geometry():
    """The one Sec. 4.1 generator: the experiment's draw is `lq_ellipsoid_geometry` (N(0, I_N)), `random_lq_ellipsoids`
    the same draw divided by sqrt(N) (N(0, I_N/N)). A global scale changes neither separability nor MCP's run (its
    violation 1 - y<w, x> is scale-free); only kappa = 1/||w*|| scales, by sqrt(N)."""
    from certiprog.formulations.mcp_paper import experiment as exp
    from certiprog.formulations.mcp_paper.programs import mcp, mcp_model, mcp_simple

    P, N, D, R0 = 6, 40, 3, 0.6
    g = lq_ellipsoid_geometry(P, N, D, R0, q=2, rng=3)
    e = exp.random_ellipsoids(P, N, D, R0, 2.0, np.random.default_rng(3))
    for k in ("centers", "bases", "radii", "labels"):
        np.testing.assert_array_equal(g[k], e[k])
    ms, y = random_lq_ellipsoids(P, N, D, R0, q=2, rng=3)
    np.testing.assert_array_equal(y, g.labels)
    np.testing.assert_allclose(np.array([m.center for m in ms]), g.centers / np.sqrt(N), rtol=1e-15)
    np.testing.assert_allclose(np.array([m.basis for m in ms]), g.bases / np.sqrt(N), rtol=1e-15)
    np.testing.assert_array_equal(np.array([m.radii for m in ms]), g.radii)
    big = mcp(g.centers, g.bases, g.radii, g.labels).solve()
    unit = mcp_model(ms, y).solve()
    assert big.status == unit.status == "optimal"
    k_big, k_unit = (1 / np.linalg.norm(s.value("w")) for s in (big, unit))
    assert k_big == pytest.approx(np.sqrt(N) * k_unit, rel=1e-5)
    run_big, run_unit = mcp_simple(g.manifolds(), g.labels, delta=0.05), mcp_simple(ms, y, delta=0.05)
    assert run_big.converged and run_unit.converged and run_big.n_iter == run_unit.n_iter
    with pytest.raises(InputError, match="D"):
        lq_ellipsoid_geometry(4, 10, 2.5, 1.0)


def test_generator_separable_flag_and_the_papers_capacity_statements():
    """Sec. 4.1 / Fig. 3: with centers and axes of the same scale, P=10 L2 ellipsoids (D=40, R0=20) in N=500 are
    separable ("below critical capacity") and P=12 in N=475 are not ("above"); with ||c|| ~ sqrt(N) against axes of
    norm ~1 both would be separable, which is why the equal scale is the paper's."""
    ms, y = random_lq_ellipsoids(10, 500, 40, 20.0, q=2, rng=0, separable=True, max_tries=1)
    ms, y = random_lq_ellipsoids(12, 475, 40, 20.0, q=2, rng=0, separable=False, max_tries=1)
    with pytest.raises(InputError, match="no separable instance in 1 draws"):
        random_lq_ellipsoids(12, 475, 40, 20.0, q=2, rng=0, separable=True, max_tries=1)
