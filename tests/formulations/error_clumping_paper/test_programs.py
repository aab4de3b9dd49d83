"""Paper 003 (error clumping) formulation: eq. (1) vs the CVXPY reference on both backends, the sparse
neighbourhood matrix, derived quantities, bad inputs and the build speed at 5,000 points. See
docs/derivations/003.md."""
import time

import numpy as np
from helpers import clumping_data  # the shared data maker (tests/helpers.py)
import pytest
import scipy.sparse as sp

from certiprog.errors import InputError
from certiprog.formulations.error_clumping_paper.programs import error_clumping, neighbourhood_graph, neighbourhood_matrix

from ref_001_003 import build_theta, ref_error_clumping  # noqa: E402

BACKENDS = ["clarabel", "cvxpy"]


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("eta", [0.0, 0.5, 0.9, 1.0])
def test_matches_cvxpy_reference(backend, eta):
    for seed, rho, lam in ((0, 1.0, 0.1), (1, 0.6, 1.0)):
        X, y = clumping_data(seed, m=60 + 20 * seed)
        model = error_clumping(X, y, rho, eta, lam)
        sol = model.solve(backend=backend)
        ref = ref_error_clumping(X, y, rho, eta, lam)
        assert sol.status == "optimal"
        assert rel(sol.objective, ref["objective"]) <= 1e-6, (eta, sol.objective, ref["objective"])
        d = model.derived(sol)
        # the objective splits into lam/2||w||^2 + penalty - discount
        wv = sol.value("w")
        assert sol.objective == pytest.approx(0.5 * lam * wv @ wv + d.penalty - d.discount, rel=1e-7)
        assert np.all(d.xi >= -1e-7) and np.all(d.xi_above_hinge >= -1e-6)
    assert set(model.variables) == {"w", "xi"} and list(model.constraints) == ["margin", "xi>=0"]


def test_neighbourhood_matrix_matches_reference_and_brute_force():
    X, _ = clumping_data(0)
    for rho, eta in ((0.5, 0.3), (1.0, 1.0), (3.0, 0.7)):
        T = neighbourhood_matrix(X, rho, eta)
        assert sp.issparse(T)
        assert abs(T - build_theta(X, rho, eta)["Theta"]).max() < 1e-15
        m = len(X)
        D = np.linalg.norm(X[:, None] - X[None], axis=2)
        A = (D <= rho) & ~np.eye(m, dtype=bool)
        np.testing.assert_allclose(T.toarray(), np.eye(m) - eta / (m - 1) * A)
        assert np.linalg.eigvalsh(T.toarray())[0] >= 1 - eta - 1e-12  # Gershgorin / SOS bound
    # closed ball: a pair at exactly distance rho is a neighbour
    G = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
    A = neighbourhood_graph(G, 1.0).toarray()
    assert A[0, 1] == A[1, 0] == 1 and A[1, 2] == 0 and A.trace() == 0


def test_eta_zero_is_squared_hinge_and_clumping_is_reported():
    X, y = clumping_data(2, m=80)
    lam = 0.1
    model = error_clumping(X, y, rho=1.0, eta=0.0, lam=lam)
    sol = model.solve()
    d = model.derived(sol)
    # eta = 0: xi* = max(0, 1 - y<w,x>); where the hinge is 0 the interior-point xi sits ~1e-4 above 0 (its cost
    # xi^2/(2m) ~ 1e-10 is within the solver tolerance)
    np.testing.assert_allclose(d.xi, d.hinge, atol=1e-3)
    assert d.discount == 0.0
    wv = sol.value("w")
    margin = y * (X @ wv)
    assert d.n_errors == int(np.sum(margin <= 0)) > 0 and d.error_rate == d.n_errors / len(y)
    np.testing.assert_array_equal(d.predictions, np.where(X @ wv >= 0, 1, -1))
    # clumping by brute force
    A = model.data.A.toarray()
    e = d.errors
    assert d.error_pairs == int(np.sum(np.triu(A * np.outer(e, e))))
    fr = [A[i][e].sum() / A[i].sum() for i in np.flatnonzero(e) if A[i].sum() > 0]
    assert d.clumping == pytest.approx(np.mean(fr))


def test_clumping_lifts_slacks_above_the_hinge():
    """Doc 003 §1.2: for eta > 0 a slack can sit strictly above the hinge (then (Theta xi)_i = 0)."""
    X, y = clumping_data(0)
    model = error_clumping(X, y, rho=1.0, eta=0.5, lam=0.1)
    sol = model.solve()
    d = model.derived(sol)
    above = d.xi_above_hinge > 1e-2
    assert above.any()
    np.testing.assert_allclose((model.data.Theta @ d.xi)[above], 0.0, atol=1e-5)


def test_bad_inputs():
    X, y = clumping_data(0)
    with pytest.raises(InputError, match="indefinite"):
        error_clumping(X, y, 1.0, 1.5, 0.1)
    with pytest.raises(InputError, match="indefinite"):
        neighbourhood_matrix(X, 1.0, 2.0)
    with pytest.raises(InputError, match="eta must lie in \\[0, 1\\]"):
        error_clumping(X, y, 1.0, -0.1, 0.1)
    for lam in (0.0, -1.0, np.nan):
        with pytest.raises(InputError, match="lam must lie"):
            error_clumping(X, y, 1.0, 0.5, lam)
    for rho in (0.0, -1.0, np.inf):
        with pytest.raises(InputError, match="rho must lie"):
            error_clumping(X, y, rho, 0.5, 0.1)
    with pytest.raises(InputError, match="y must be \\+1 or -1"):
        error_clumping(X, np.where(y > 0, 1.0, 0.0), 1.0, 0.5, 0.1)
    with pytest.raises(InputError, match="one class"):
        error_clumping(X, np.ones(len(y)), 1.0, 0.5, 0.1)
    with pytest.raises(InputError, match="y has 59 entries"):
        error_clumping(X, y[:-1], 1.0, 0.5, 0.1)
    Xb = X.copy()
    Xb[3, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        error_clumping(Xb, y, 1.0, 0.5, 0.1)
    with pytest.raises(InputError, match="2-D"):
        error_clumping(X[:, 0], y, 1.0, 0.5, 0.1)


def test_build_5000_points_stays_sparse():
    """5,000 x 20 builds (graph + model) and compiles to sparse conic data (timing: benchmarks/error_clumping.py)."""
    rng = np.random.default_rng(4)
    m, n = 5000, 20
    X = rng.standard_normal((m, n))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(m) > 0, 1.0, -1.0)
    error_clumping(X[:200], y[:200], 4.0, 0.5, 0.1).compile().assemble()  # warm imports
    t0 = time.perf_counter()
    model = error_clumping(X, y, rho=4.0, eta=0.5, lam=0.1)
    t1 = time.perf_counter()
    prob = model.compile().assemble()
    t2 = time.perf_counter()
    assert model.data.A.nnz > 20 * m  # a real neighbourhood graph (mean degree > 20)
    assert prob.P.nnz <= model.data.Theta.nnz + n  # the quadratic stays sparse
    print(f"error_clumping 5000x20: build {t1 - t0:.3f}s, compile+assemble {t2 - t1:.3f}s, "
          f"mean degree {model.data.A.nnz / m:.1f}")


def test_precomputed_graph_gives_the_same_model_and_is_validated():
    import scipy.sparse as sp

    from certiprog.formulations.error_clumping_paper.programs import neighbourhood_graph

    rng = np.random.default_rng(21)
    X = rng.standard_normal((60, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    A = neighbourhood_graph(X, 1.0)
    a = error_clumping(X, y, rho=1.0, eta=0.7, lam=0.1).solve()
    b = error_clumping(X, y, rho=1.0, eta=0.7, lam=0.1, graph=A).solve()
    assert abs(a.objective - b.objective) <= 1e-9 * (1 + abs(a.objective))
    with pytest.raises(InputError, match="symmetric"):
        error_clumping(X, y, rho=1.0, eta=0.7, lam=0.1, graph=sp.triu(A, format="csr") * 2)
    with pytest.raises(InputError, match="shape"):
        error_clumping(X, y, rho=1.0, eta=0.7, lam=0.1, graph=A[:10, :10])
