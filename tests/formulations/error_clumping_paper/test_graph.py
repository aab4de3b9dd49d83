"""The rho-graph of paper 003 (graph.radius_graph): exact against brute force in exact arithmetic, the blocked path
equal to cKDTree's, pairs at exactly rho included, blocks of any size, bad input refused."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from certiprog.errors import CertiprogError
from certiprog.formulations.error_clumping_paper import graph as G
from certiprog.formulations.error_clumping_paper.programs import neighbourhood_graph


def brute(X, rho):
    """Pairwise distances; pairs within 1e-9 (relative) of rho^2 decided in exact rational arithmetic."""
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    A = D <= rho * rho
    for i, j in zip(*np.nonzero(np.abs(D - rho * rho) <= 1e-9 * rho * rho)):
        A[i, j] = sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(X[i], X[j])) <= Fraction(rho) ** 2
    np.fill_diagonal(A, False)
    return A


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10 ** 6), m=st.integers(1, 120), n=st.integers(1, 12), q=st.floats(0.0, 1.0),
       block=st.integers(1, 200))
def test_blas_equals_brute_force_and_kdtree(seed, m, n, q, block):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n)) * 10.0 ** rng.integers(-3, 4) + rng.standard_normal(n) * 100
    d = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)).ravel()
    rho = float(np.quantile(d, q)) if m > 1 and np.quantile(d, q) > 0 else 1.0
    A = G.radius_graph(X, rho, method="blas", max_block_bytes=4 * m * block)
    assert sp.isspmatrix_csr(A) and A.has_sorted_indices and (A != A.T).nnz == 0 and not A.diagonal().any()
    B = brute(X, rho)
    np.testing.assert_array_equal(A.toarray() != 0, B)
    assert (A != G.radius_graph(X, rho, method="kdtree")).nnz <= 2 * int(np.sum(np.isclose(d, rho, rtol=1e-12)))


def test_ties_at_exactly_rho_and_near_it_exact():
    # integer points: distance exactly 5 included; 5 + 1 ulp radius change flips nothing else
    X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0], [0.0, 5.000000000000001]])
    for method in G.GRAPH_METHODS:
        A = G.radius_graph(X, 5.0, method=method).toarray()
        assert A[0, 1] == A[1, 2] == 1 and A[0, 2] == 0 and A[0, 3] == 0
    assert G.radius_graph(X, np.nextafter(5.0, 0), method="blas").toarray()[0, 1] == 0
    # many near-ties in high dimension are decided exactly (the recheck path)
    rng = np.random.default_rng(1)
    X = rng.integers(0, 256, (60, 785)) / 255.0
    rho = float(np.sqrt(((X[0] - X[1]) ** 2).sum()))
    A = G.radius_graph(X, rho)
    exact = np.array([[sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(X[i], X[j])) <= Fraction(rho) ** 2
                       and i != j for j in range(60)] for i in range(3)])
    np.testing.assert_array_equal(A.toarray()[:3] != 0, exact)


def test_programs_uses_the_same_graph():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((200, 5))
    assert (neighbourhood_graph(X, 2.0) != G.radius_graph(X, 2.0)).nnz == 0


def test_rho_for_mean_degree():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((2000, 10))
    rho = G.rho_for_mean_degree(X, 0.05, sample=400)
    A = G.radius_graph(X, rho)
    assert 0.035 < A.nnz / 2000 / 1999 < 0.065


@pytest.mark.parametrize("bad", [dict(rho=0.0), dict(rho=-1.0), dict(rho=np.nan), dict(method="ball_tree"),
                                 dict(X=np.array([[0.0, np.inf]]))])
def test_bad_input(bad):
    args = dict(X=np.zeros((3, 2)), rho=1.0) | bad
    X, rho = args.pop("X"), args.pop("rho")
    with pytest.raises(CertiprogError):
        G.radius_graph(X, rho, **args)
