"""Paper 000 hinge-minimax (eq. 8) and background risk (Theorem 1) as certiprog Models, against CVXPY references."""
import time

import numpy as np
import pytest

from certiprog.errors import InputError
from certiprog.formulations.hinge_minimax_paper.programs import background_risk, hinge_minimax, worst_case_fp

from helpers import rand_spd  # noqa: E402
from ref_000_004 import ref_background_risk, ref_hinge_minimax  # noqa: E402

BACKENDS = ["clarabel", "cvxpy"]


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


def _hm_data(rng, d=3, m=25):
    S = 0.2 * rand_spd(rng, d, cond=3.0)
    mu = np.array([-3.0] + [0.0] * (d - 1))
    X = rng.normal(size=(m, d)) * 0.7 + np.array([2.0] + [0.5] * (d - 1))
    return X, mu, S


# ----------------------------------------------------------------- eq. (8)
CASES = [  # (delta, shift of mu toward the positives, lam, bias, squared_reg, d)
    (0.05, 0.0, 0.3, False, True, 3), (0.1, 1.4, 0.3, False, True, 3), (0.2, 1.9, 3.0, False, True, 3),
    (0.1, 1.0, 0.01, False, True, 4), (0.1, 1.4, 0.3, True, True, 3), (0.3, 1.0, 0.5, True, True, 5),
    (0.1, 0.5, 0.3, False, False, 3), (0.1, 0.5, 1.0, True, False, 4), (0.1, 0.5, 0.0, False, True, 3),
    (0.1, 2.5, 0.3, False, True, 3),  # background too close: the optimum is w = 0 (objective m)
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_hinge_minimax_matches_reference(backend):
    rng = np.random.default_rng(9)
    for delta, shift, lam, bias, squared_reg, d in CASES:
        X, mu, S = _hm_data(rng, d=d)
        mu = mu + np.r_[shift, np.zeros(d - 1)]
        r = ref_hinge_minimax(X, mu, S, lam, delta, bias=bias, squared_reg=squared_reg)
        model = hinge_minimax(X, mu, S, lam, delta, bias=bias, squared_reg=squared_reg)
        assert set(model.variables) == ({"w", "b"} if bias else {"w"})
        assert "chebyshev" in model.constraints
        sol = model.solve(backend=backend)
        case = (delta, shift, lam, bias, squared_reg, d)
        if lam == 0 or shift == 2.5:  # lam = 0: optimum 0 with w not unique, no lower end (w unbounded);
            # shift 2.5: only w = 0 is feasible (no interior), so no feasible point is proved from the solver's
            # w ~ 1e-9. certiprog's choice reports these right answers as 'unconfirmed' (issue 21), never an
            # unproved 'optimal' (the structured solver certifies w = 0 exactly)
            assert (sol.status, sol.verdict) in (("optimal", "certified"), ("unconfirmed", "accurate")), (case, sol)
        else:
            assert sol.status == "optimal" and sol.verdict == "certified", (case, sol)
        assert rel(sol.objective, r["objective"]) <= 1e-6, (case, sol.objective, r["objective"])
        der = model.derived(sol)
        assert rel(der.objective, r["objective"]) <= 1e-6, case
        assert der.gamma == pytest.approx(np.sqrt((1 - delta) / delta), abs=1e-14)
        assert der.constraint_value <= 1e-6
        if shift == 2.5:
            assert der.trivial and der.worst_case_fp == 1.0 and rel(sol.objective, X.shape[0]) <= 1e-6
            continue
        assert not der.trivial
        assert der.worst_case_fp <= delta + 1e-6
        if lam > 0:  # lam = 0 with zero hinge: w is not unique
            assert abs(der.worst_case_fp - r["worst_case_fp"]) <= 1e-4, case
        if lam > 0 and squared_reg:  # strictly convex: w (and b) unique
            np.testing.assert_allclose(der.w, r["w"], atol=1e-4)
            assert abs(der.b - r["b"]) <= 1e-4
        assert rel(der.hinge + lam * der.reg, r["hinge"] + lam * r["reg"]) <= 1e-6


def test_hinge_minimax_active_constraint_attains_delta_and_singular_sigma():
    rng = np.random.default_rng(9)
    X, mu, S = _hm_data(rng)
    mu = mu + np.array([1.4, 0.0, 0.0])
    der = (m := hinge_minimax(X, mu, S, 0.01, 0.1)).derived(m.solve())
    assert abs(der.constraint_value) <= 1e-6 and abs(der.worst_case_fp - 0.1) <= 1e-5
    assert worst_case_fp(der.w, mu, S) == der.worst_case_fp
    # a singular (rank-1) background covariance is allowed: psd_factor handles PSD
    v = rng.normal(size=3)
    S1 = 0.3 * np.outer(v, v)
    r = ref_hinge_minimax(X, mu, S1, 0.3, 0.1)
    sol = hinge_minimax(X, mu, S1, 0.3, 0.1).solve()
    assert sol.status == "optimal" and rel(sol.objective, r["objective"]) <= 1e-6


def test_hinge_minimax_bad_inputs():
    rng = np.random.default_rng(10)
    X, mu, S = _hm_data(rng)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        hinge_minimax(bad, mu, S, 0.1, 0.1)
    with pytest.raises(InputError, match="NaN"):
        hinge_minimax(X, np.r_[np.nan, 0, 0], S, 0.1, 0.1)
    with pytest.raises(InputError, match="2-D"):
        hinge_minimax(X[:, 0], mu, S, 0.1, 0.1)
    with pytest.raises(InputError, match="empty"):
        hinge_minimax(np.zeros((0, 3)), mu, S, 0.1, 0.1)
    with pytest.raises(InputError, match="mu has 2 entries"):
        hinge_minimax(X, mu[:2], S, 0.1, 0.1)
    with pytest.raises(InputError, match="Sigma"):
        hinge_minimax(X, mu, S[:2, :2], 0.1, 0.1)
    with pytest.raises(InputError, match="Sigma must be 3 x 3"):
        hinge_minimax(X, mu, np.vstack([S, S[:1]]), 0.1, 0.1)
    A = S.copy()
    A[0, 1] += 0.5
    with pytest.raises(InputError, match="not symmetric"):
        hinge_minimax(X, mu, A, 0.1, 0.1)
    with pytest.raises(InputError, match="indefinite"):
        hinge_minimax(X, mu, S - 2.0 * np.eye(3), 0.1, 0.1)
    for delta in (0.0, 1.0, -0.2, 1.5, np.nan, "x"):
        with pytest.raises(InputError, match="delta"):
            hinge_minimax(X, mu, S, 0.1, delta)
    for lam in (-1e-3, np.inf):
        with pytest.raises(InputError, match="lam"):
            hinge_minimax(X, mu, S, lam, 0.1)


# ----------------------------------------------------------------- Theorem 1
@pytest.mark.parametrize("backend", BACKENDS)
def test_background_risk_matches_reference(backend):
    rng = np.random.default_rng(11)
    d = 4
    S = rand_spd(rng, d)
    trials = 0
    for trial in range(12):
        K = 1 + trial % 3
        W = rng.normal(size=(K, d))
        mu = rng.normal(size=d) * 2
        b = None if trial % 2 == 0 else rng.normal(size=K)
        r = ref_background_risk(W, mu, S, b=b)
        model = background_risk(W if K > 1 else W[0], mu, S, b=b)
        assert set(model.variables) == {"z"} and "halfspaces" in model.constraints
        sol = model.solve(backend=backend)
        assert sol.status == "optimal", sol
        der = model.derived(sol)
        assert rel(sol.objective, r["d2"]) <= 1e-6 and rel(der.d2, r["d2"]) <= 1e-6
        assert abs(der.risk - r["risk"]) <= 1e-6
        if r["d2"] > 1e-6:
            trials += 1
            np.testing.assert_array_equal(der.active, r["active"])
            np.testing.assert_allclose(der.z_star, r["z_star"], atol=1e-5)
            np.testing.assert_allclose(der.lam, r["lam"], atol=1e-5)
            assert np.all(der.lam >= -1e-8)
    assert trials >= 4  # the exterior case (d2 > 0) is exercised


@pytest.mark.parametrize("backend", BACKENDS)
def test_background_risk_empty_region_is_infeasible(backend):
    S = np.eye(2)
    W = np.array([[1.0, 0.0], [-1.0, 0.0]])
    model = background_risk(W, np.zeros(2), S, b=[-1.0, -1.0])  # z1 >= 1 and z1 <= -1
    sol = model.solve(backend=backend)
    assert sol.status == "infeasible" and model.derived(sol) is None


def test_background_risk_bad_inputs():
    rng = np.random.default_rng(12)
    S = rand_spd(rng, 3)
    W = rng.normal(size=(2, 3))
    mu = rng.normal(size=3)
    v = rng.normal(size=3)
    with pytest.raises(InputError, match="ridge"):
        background_risk(W, mu, np.outer(v, v))
    with pytest.raises(InputError, match="ridge"):
        background_risk(W, mu, np.zeros((3, 3)))
    with pytest.raises(InputError, match="indefinite"):
        background_risk(W, mu, S - 10 * np.eye(3))
    with pytest.raises(InputError, match="not symmetric"):
        background_risk(W, mu, S + np.triu(np.ones((3, 3)), 1))
    with pytest.raises(InputError, match="columns"):
        background_risk(W, mu, S[:2, :2])
    with pytest.raises(InputError, match="mu has 2 entries"):
        background_risk(W, mu[:2], S)
    with pytest.raises(InputError, match="b has 3 entries"):
        background_risk(W, mu, S, b=np.zeros(3))
    bad = W.copy()
    bad[1, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        background_risk(bad, mu, S)
    with pytest.raises(InputError, match="at least 1"):
        background_risk(np.zeros((0, 3)), mu, S)


# ----------------------------------------------------------------- build speed
def _blas_one_thread():
    """Single-threaded BLAS/LAPACK while timing: on a shared 2-core machine a multithreaded OpenBLAS eigh of a
    300 x 300 matrix can take ~0.5-1 s instead of ~10 ms (oversubscription), which is not what this test measures."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(limits=1)


def test_hinge_minimax_builds_fast_at_20000_by_300():
    rng = np.random.default_rng(13)
    n, d = 20_000, 300
    X = rng.normal(size=(n, d)) + 0.3
    Z = rng.normal(size=(400, d)) - 0.3
    mu, S = Z.mean(0), np.cov(Z.T, bias=True)
    wall, cpu = [], []
    with _blas_one_thread():
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            model = hinge_minimax(X, mu, S, 0.1, 0.1)
            t1, c1 = time.perf_counter(), time.process_time()
            prob = model.compile().assemble()
            wall.append((round(t1 - t0, 3), round(time.perf_counter() - t1, 3)))
            cpu.append((round(c1 - c0, 3), round(time.process_time() - c1, 3)))
    best_wall, best_cpu = min(a + b for a, b in wall), min(a + b for a, b in cpu)
    print(f"hinge_minimax 20000x300 build+compile+assemble: best wall {best_wall:.3f} s, best CPU {best_cpu:.3f} s; "
          f"(build, compile+assemble) wall {wall} CPU {cpu}")
    assert prob.A.shape[1] >= d and prob.A.nnz >= n * d
    # timing is printed, not asserted (a loaded CI machine is not a benchmark): benchmarks/scale.py measures it
    assert prob.P.nnz <= d * d + n  # the quadratic part stays sparse (never n x n)
