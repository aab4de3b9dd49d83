"""Paper 003, Theta's readings (`normalisation.py`): the PSD proof of each against numpy's eigvalsh, the discount
bound xi' Theta xi >= (1 - lambda_max(B)) ||xi||^2, the sharp ranges, bad input, and eq. (1) under each reading
solved by the structured certified solver against an independent CVXPY model. All seeded."""
import numpy as np
from helpers import clumping_data  # the shared data maker (tests/helpers.py)
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import InputError
from certiprog.estimators import ErrorClumpingClassifier
from certiprog.formulations.error_clumping_paper.normalisation import ALWAYS_PSD, NORMALISATIONS, check_eta, normalise
from certiprog.formulations.error_clumping_paper.programs import (
    error_clumping,
    neighbourhood_graph,
    neighbourhood_matrix,
)
from certiprog.formulations.error_clumping_paper.solver import certify_error_clumping, solve_error_clumping


def random_graph(rng, m, p):
    U = np.triu(rng.random((m, m)) < p, 1).astype(float)
    return sp.csr_matrix(U + U.T)


def complete(m):
    return sp.csr_matrix(np.ones((m, m)) - np.eye(m))


def star(k):
    A = np.zeros((k + 1, k + 1))
    A[0, 1:] = A[1:, 0] = 1.0
    return sp.csr_matrix(A)


def exact_W(A, name):
    """W / den from the definitions, dense, independently of the module."""
    A = A.toarray()
    m = len(A)
    d = A.sum(1)
    with np.errstate(divide="ignore"):
        if name == "printed":
            return A / (m - 1)
        if name == "dmax":
            return A / max(d.max(), 1)
        Di, Dj = np.meshgrid(d, d, indexing="ij")
        f = {"symmetric": 1 / np.sqrt(Di * Dj), "max": 1 / np.maximum(Di, Dj), "row": 0.5 * (1 / Di + 1 / Dj)}[name]
    return np.where(A > 0, f, 0.0)


GRAPHS = [("random 0.1", lambda rng: random_graph(rng, 40, 0.1)), ("random 0.5", lambda rng: random_graph(rng, 30, 0.5)),
          ("complete", lambda rng: complete(12)), ("star 9", lambda rng: star(9)),
          ("isolated points", lambda rng: sp.csr_matrix(sp.block_diag([random_graph(rng, 10, 0.6),
                                                                        sp.csr_matrix((5, 5))])))]


@pytest.mark.parametrize("name", NORMALISATIONS)
@pytest.mark.parametrize("label,make", GRAPHS)
def test_spectral_bound_and_psd_against_eigvalsh(name, label, make):
    A = make(np.random.default_rng(0)).tocsr()
    G = normalise(A, name)
    B1 = exact_W(A, name)
    np.testing.assert_allclose(G.W.toarray() / G.den, B1, rtol=1e-15, atol=0)
    lam_max = float(np.linalg.eigvalsh(B1)[-1])
    assert G.rho_hi >= lam_max - 1e-15  # rigorous upper bound of lambda_max(W)/den
    if name == "symmetric":  # v = sqrt(d) is the Perron vector: the bound is tight (= 1)
        assert G.rho_hi == pytest.approx(lam_max, rel=1e-12) and lam_max == pytest.approx(1.0, rel=1e-12)
    for eta in (0.0, 0.3, 0.7, 1.0):
        if name not in ALWAYS_PSD and eta * G.rho_hi > 1:
            with pytest.raises(InputError, match="PSD"):
                check_eta(eta, G)
            continue
        T = G.theta(check_eta(eta, G)).toarray()
        lo = float(np.linalg.eigvalsh(T)[0])
        assert lo >= G.mu_lower(eta) - 1e-12  # the proved lower bound of lambda_min(Theta)
        assert lo >= -1e-12  # PSD
        assert G.max_discount(eta) >= eta * lam_max - 1e-15


def test_entrywise_order_and_sharp_ranges():
    """printed <= dmax <= max <= symmetric <= row entrywise (the proof's chain); symmetric has lambda_max = 1 on any
    graph with an edge, so eta > 1 would be indefinite; the star shows 'row' above 1."""
    A = random_graph(np.random.default_rng(3), 50, 0.15)
    Ws = [exact_W(A, n) for n in ("printed", "dmax", "max", "symmetric", "row")]
    for lo, hi in zip(Ws, Ws[1:]):
        assert np.all(lo <= hi + 1e-15)
    Wsym = exact_W(A, "symmetric")
    assert np.linalg.eigvalsh(Wsym)[-1] == pytest.approx(1.0, abs=1e-12)
    assert np.linalg.eigvalsh(np.eye(50) - 1.05 * Wsym)[0] < 0
    assert np.linalg.eigvalsh(np.eye(12) - 1.05 * exact_W(complete(12), "dmax"))[0] < 0
    k = 9
    W_row = exact_W(star(k), "row")
    assert np.linalg.eigvalsh(W_row)[-1] == pytest.approx((np.sqrt(k) + 1 / np.sqrt(k)) / 2, rel=1e-12)
    G = normalise(star(k), "row")
    with pytest.raises(InputError, match="PSD"):
        check_eta(0.7, G)  # 0.7 * 1.667 > 1: indefinite
    assert np.linalg.eigvalsh(np.eye(k + 1) - 0.7 * W_row)[0] < 0
    assert np.linalg.eigvalsh(G.theta(check_eta(0.55, G)).toarray())[0] >= 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 31 - 1), m=st.integers(2, 25), p=st.floats(0.0, 1.0), eta=st.floats(0.0, 1.0),
       name=st.sampled_from(ALWAYS_PSD))
def test_psd_for_every_graph_and_eta_in_range(seed, m, p, eta, name):
    rng = np.random.default_rng(seed)
    A = random_graph(rng, m, p)
    G = normalise(A, name)
    T = G.theta(check_eta(eta, G)).toarray()
    assert np.linalg.eigvalsh(T)[0] >= min(1 - eta, G.mu_lower(eta)) - 1e-12
    assert G.mu_lower(eta) >= 1 - eta - 1e-12  # the proved bound: lambda_min(Theta) >= 1 - eta
    # the discount bound on random slack vectors (>= 0, as slacks are) and at the Perron vector
    B = eta * exact_W(A, name)
    for _ in range(5):
        xi = np.abs(rng.standard_normal(m))
        assert xi @ T @ xi >= (1 - G.max_discount(eta)) * (xi @ xi) - 1e-12 * (xi @ xi)
    vals, vecs = np.linalg.eigh(B)
    perron = np.abs(vecs[:, -1])
    assert perron @ T @ perron == pytest.approx((1 - vals[-1]) * (perron @ perron), abs=1e-12)


@pytest.mark.parametrize("name", NORMALISATIONS)
def test_structured_solver_matches_independent_cvxpy_and_backend(name):
    """eq. (1) under each reading: the certified interval contains the CVXPY optimum of the dense model."""
    import cvxpy as cp

    X, y = clumping_data(1, m=70)
    rho, eta, lam = 1.0, 0.5, 0.1
    fit = solve_error_clumping(X, y, rho, eta, lam, normalisation=name)
    assert fit.status == "optimal" and fit.certified and fit.info["normalisation"] == name
    A = neighbourhood_graph(X, rho)
    T = np.eye(70) - eta * exact_W(A, name)
    w, xi = cp.Variable(3), cp.Variable(70)
    prob = cp.Problem(cp.Minimize(lam / 2 * cp.sum_squares(w) + cp.quad_form(xi, cp.psd_wrap(T)) / 140),
                      [xi >= 1 - cp.multiply(y, X @ w), xi >= 0])
    prob.solve(solver=cp.CLARABEL)
    assert fit.lower - 1e-7 <= prob.value <= fit.upper + 1e-7
    model = error_clumping(X, y, rho, eta, lam, normalisation=name)
    sol = model.solve(backend="clarabel")
    assert sol.objective == pytest.approx(prob.value, rel=1e-6)
    d = model.derived(sol)
    wv = sol.value("w")
    assert sol.objective == pytest.approx(0.5 * lam * wv @ wv + d.penalty - d.discount, rel=1e-6)
    # the discount never exceeds the proved fraction of the penalty
    assert d.discount <= model.data.graph.max_discount(eta) * d.penalty + 1e-12
    # certificate under this reading brackets the backend's point too
    cert = certify_error_clumping(X, y, A, eta, lam, wv, sol.value("xi"), normalisation=name)
    assert cert["lower"] <= prob.value + 1e-7 and cert["upper"] >= prob.value - 1e-7


def test_normalised_readings_discount_more_than_printed():
    """The point of the option: the same data, eta = 0.5; the printed discount is at most eta d_max/(m-1), the
    normalised ones up to eta, so their optima are lower."""
    X, y = clumping_data(2, m=80)
    vals = {n: solve_error_clumping(X, y, 1.0, 0.5, 0.1, normalisation=n).upper for n in NORMALISATIONS}
    base = solve_error_clumping(X, y, 1.0, 0.0, 0.1).upper
    assert base >= vals["printed"] >= vals["dmax"] >= vals["max"] >= vals["symmetric"] >= vals["row"]
    G = normalise(neighbourhood_graph(X, 1.0), "printed")
    assert vals["printed"] >= (1 - G.max_discount(0.5)) * base * 0.999  # discount limited by lambda_max(B)


def test_printed_is_unchanged():
    X, y = clumping_data(0)
    a = solve_error_clumping(X, y, 1.0, 0.5, 0.1)
    b = solve_error_clumping(X, y, 1.0, 0.5, 0.1, normalisation="printed")
    assert np.array_equal(a.w, b.w) and a.lower == b.lower and a.upper == b.upper
    m = len(X)
    A = neighbourhood_graph(X, 1.0).toarray()
    assert np.array_equal(neighbourhood_matrix(X, 1.0, 0.5, "printed").toarray(), np.eye(m) - 0.5 / (m - 1) * A)


@pytest.mark.parametrize("name", NORMALISATIONS)
@pytest.mark.parametrize("eta", [-0.1, 1.0001, 2.0, float("nan"), float("inf"), "0.5", None, True])
def test_bad_eta_raises(name, eta):
    X, y = clumping_data(0, m=30)
    with pytest.raises(InputError):
        error_clumping(X, y, 1.0, eta, 0.1, normalisation=name)
    with pytest.raises(InputError):
        solve_error_clumping(X, y, 1.0, eta, 0.1, normalisation=name)
    with pytest.raises(InputError):
        neighbourhood_matrix(X, 1.0, eta, name)


@pytest.mark.parametrize("bad", ["Printed", "d_max", "", None, 3, "sym"])
def test_unknown_normalisation_raises(bad):
    X, y = clumping_data(0, m=30)
    with pytest.raises(InputError, match="normalisation"):
        error_clumping(X, y, 1.0, 0.5, 0.1, normalisation=bad)
    with pytest.raises(InputError, match="normalisation"):
        solve_error_clumping(X, y, 1.0, 0.5, 0.1, normalisation=bad)
    with pytest.raises(InputError, match="normalisation"):
        ErrorClumpingClassifier(rho=1.0, normalisation=bad).fit(X[:, :2], y)


def test_row_refused_where_psd_cannot_be_proved_and_algorithm1_printed_only():
    # a star K_{1,5} (rho = 1.05): the literal -eta/|N_i| is indefinite for eta > 1/1.342 = 0.745
    X = np.r_[[[0.0, 0.0]], [[np.cos(t), np.sin(t)] for t in np.linspace(0, 2 * np.pi, 5, endpoint=False)]]
    assert neighbourhood_graph(X, 1.05).nnz == 10
    X = np.c_[X, np.ones(6)]
    y = np.where(np.arange(6) % 2, 1.0, -1.0)
    with pytest.raises(InputError, match="PSD"):
        solve_error_clumping(X, y, 1.05, 0.8, 0.1, normalisation="row")
    fit = solve_error_clumping(X, y, 1.05, 0.5, 0.1, normalisation="row")
    assert fit.certified
    with pytest.raises(InputError, match="algorithm1"):
        ErrorClumpingClassifier(rho=1.05, solver="algorithm1", normalisation="dmax").fit(X[:, :2], y)


def test_eta_one_is_honest():
    """eta = 1 under 'symmetric': Theta is singular (lambda_min = 0), the certificate's mu is <= 0 so only p* >= 0
    is proved; the status says whether that is enough (never a false 'optimal')."""
    X, y = clumping_data(3, m=50)
    fit = solve_error_clumping(X, y, 1.0, 1.0, 0.1, normalisation="symmetric")
    assert fit.info["mu_theta"] <= 1e-12
    assert fit.lower <= fit.upper
    assert fit.certified == (fit.rel_gap <= 1e-6) and (fit.status == "optimal") == fit.certified


@pytest.mark.parametrize("scale", [1e-8, 1e8])
def test_scaled_data(scale):
    """The readings depend on the graph only: scaling X and rho together leaves Theta unchanged."""
    X, y = clumping_data(4, m=40)
    for name in ("dmax", "symmetric"):
        T1 = neighbourhood_matrix(X, 1.0, 0.5, name).toarray()
        T2 = neighbourhood_matrix(X * scale, 1.0 * scale, 0.5, name).toarray()
        assert np.array_equal(T1, T2)
