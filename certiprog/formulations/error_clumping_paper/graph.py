"""The closed-ball rho-graph of paper 003 (``N_i = {j != i : ||x_i - x_j||_2 <= rho}``), exactly, fast, in bounded memory.

Method (``method='blas'``, the default): squared distances ``|x_i|^2 + |x_j|^2 - 2 <x_i, x_j>`` block by block
(rows ``i`` of one block against columns ``j >= i``: the graph is symmetric, so half the products) with a float32
matrix product on the centred data, then a *rigorous* screen: every pair farther than ``rho^2 + E_ij`` is out,
every pair nearer than ``rho^2 - E_ij`` is in, and only the pairs in between are rechecked, first in float64
from the differences (with their own error bound), the last undecided ones in exact rational arithmetic. The
screening bound: with ``c_i`` the centred float32 rows (each entry within ``2u |x_i - mu|`` of its exact
value, u = 2^-24 the float32 unit) and ``N_i >= ||c_i||``, the computed value differs from the exact squared
distance by at most ``E_ij = (3n + 24) u (N_i + N_j)^2``: an n-term float32 inner product errs by at most
``gamma_n |c_i|.|c_j| <= gamma_n N_i N_j``, the squared norms by ``gamma_n N^2``, the three-term combination by
``3u (N_i + N_j)^2``, and the rounding of the data into float32 moves ``||x_i - x_j||^2`` by at most
``(4u + 4u^2)(N_i + N_j)^2``; ``(3n + 24) u`` covers their sum with room for the float64 computation of ``N``.
So the answer is the exact closed-ball graph of the float64 data, whatever the rounding, at float32 BLAS speed.
Memory: one block of ``block_rows x m`` float32 values (``max_block_bytes``, default 256 MB) plus the graph.

``method='kdtree'`` (``scipy.spatial.cKDTree.query_pairs``) is kept for comparison (benchmarks/error_clumping.py):
at m = 35,000 MNIST points (785 dimensions) it takes ~45 s where the blocked product takes a few seconds.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from certiprog import validation as validate

__all__ = ["radius_graph", "GRAPH_METHODS"]

GRAPH_METHODS = ("auto", "blas", "kdtree")
_KDTREE_MAX_DIM = 16  # below this a kd-tree prunes well and beats the quadratic product
_U32 = 2.0 ** -24
_U64 = 2.0 ** -53
_MAX_BLOCK_BYTES = 256 * 2 ** 20


def radius_graph(X, rho, *, method: str = "auto", max_block_bytes: int = _MAX_BLOCK_BYTES) -> sp.csr_matrix:
    """Symmetric 0/1 adjacency (CSR, float64 data, sorted indices) of the closed-ball rho-graph, empty diagonal.

    ``method``: 'blas' (blocked float32 products with a rigorous recheck, exact; see the module docstring),
    'kdtree' (scipy's cKDTree, distances compared in floating point) or 'auto' (kdtree up to 16 features, where
    it prunes well, blas above). ``max_block_bytes`` bounds the work array.
    """
    X = validate.matrix(X, "X", min_rows=1)
    rho = validate.scalar(rho, "rho", low=0.0, low_open=True)
    if method not in GRAPH_METHODS:
        from certiprog.errors import InputError

        raise InputError(f"method must be one of {GRAPH_METHODS}; got {method!r}")
    m = X.shape[0]
    if method == "auto":
        method = "kdtree" if X.shape[1] <= _KDTREE_MAX_DIM else "blas"
    if method == "kdtree":
        from scipy.spatial import cKDTree

        pairs = cKDTree(X).query_pairs(r=rho, p=2.0, output_type="ndarray").reshape(-1, 2)
        upper = sp.csr_matrix((np.ones(len(pairs)), (pairs.min(1), pairs.max(1))), shape=(m, m))
    else:
        upper = _upper_blas(X, rho, int(max_block_bytes))
    A = (upper + upper.T).tocsr()
    A.sort_indices()
    return A


def _upper_blas(X: np.ndarray, rho: float, max_block_bytes: int) -> sp.csr_matrix:
    """The strictly upper triangle of the graph, row block by row block (CSR)."""
    m, n = X.shape
    mu = X.mean(axis=0)
    C = (X - mu).astype(np.float32)
    norms = np.sqrt(np.einsum("ij,ij->i", C.astype(np.float64), C.astype(np.float64))) * (1 + 8 * _U64) + 1e-300
    sq = np.einsum("ij,ij->i", C, C)  # float32 squared norms (their error is inside E)
    k = (3 * n + 24) * _U32
    rho2 = rho * rho
    block = max(1, min(m, max_block_bytes // max(4 * m, 1)))
    indptr = np.zeros(m + 1, np.int64)
    cols_parts: list[np.ndarray] = []
    for i0 in range(0, m, block):
        i1 = min(m, i0 + block)
        D = C[i0:i1] @ C[i0:].T  # (b, m - i0) float32
        D *= -2.0
        D += sq[i0:i1, None]
        D += sq[None, i0:]
        b = i1 - i0
        nmax = float(norms[i0:].max())
        E = (k * (norms[i0:i1] + nmax) ** 2).astype(np.float32)[:, None] * np.float32(1 + 1e-3)
        maybe = D <= np.float32(rho2) + E
        r, c = np.nonzero(maybe)
        upper = c > r  # only j > i (the block's columns start at i0)
        r, c = r[upper], c[upper]
        sure = D[r, c] < np.float32(rho2) - E[r, 0]
        rows, cols = r + i0, c + i0
        undecided = ~sure
        if undecided.any():
            keep = _recheck(X, rows[undecided], cols[undecided], rho)
            sure[np.flatnonzero(undecided)[keep]] = True
        rows, cols = rows[sure], cols[sure]
        indptr[i0 + 1:i1 + 1] = np.bincount(rows - i0, minlength=b)
        cols_parts.append(cols.astype(np.int64))
    indptr = np.cumsum(indptr)
    cols = np.concatenate(cols_parts) if cols_parts else np.zeros(0, np.int64)
    idx_dtype = np.int32 if max(m, cols.size) < 2 ** 31 else np.int64
    return sp.csr_matrix((np.ones(cols.size), cols.astype(idx_dtype), indptr.astype(idx_dtype)), shape=(m, m))


def _recheck(X: np.ndarray, rows: np.ndarray, cols: np.ndarray, rho: float) -> np.ndarray:
    """Which pairs satisfy ||x_i - x_j||^2 <= rho^2 exactly: float64 differences with a relative error bound
    ((n + 8) u64 of the computed value), exact rationals for the pairs inside that bound."""
    n = X.shape[1]
    out = np.zeros(rows.size, bool)
    step = max(1, 2 ** 22 // max(n, 1))
    for s in range(0, rows.size, step):
        r, c = rows[s:s + step], cols[s:s + step]
        diff = X[r] - X[c]
        d2 = np.einsum("ij,ij->i", diff, diff)
        tol = (n + 8) * _U64 * d2 * (1 + 1e-6) + 1e-300
        rho2_lo, rho2_hi = rho * rho * (1 - 4 * _U64), rho * rho * (1 + 4 * _U64)
        yes = d2 + tol < rho2_lo
        no = d2 - tol > rho2_hi
        res = yes.copy()
        for t in np.flatnonzero(~yes & ~no):
            res[t] = _exact_within(X[r[t]], X[c[t]], rho)
        out[s:s + step] = res
    return out


def _exact_within(a: np.ndarray, b: np.ndarray, rho: float) -> bool:
    """||a - b||^2 <= rho^2 in exact rational arithmetic (the floats as the exact numbers they are)."""
    total = sum((Fraction(float(p)) - Fraction(float(q))) ** 2 for p, q in zip(a, b))
    return total <= Fraction(float(rho)) ** 2


def rho_for_mean_degree(X, fraction: float, *, sample: int = 500, seed: int = 0) -> float:
    """A radius whose neighbourhoods hold about ``fraction`` of the other points on average: the ``fraction``
    quantile of the distances from ``sample`` random rows (seeded) to all rows (self-distances left out).
    An estimate (the exact mean degree is ``graph.nnz / m``, printed by the benchmark)."""
    X = validate.matrix(X, "X", min_rows=2)
    fraction = validate.scalar(fraction, "fraction", low=0.0, high=1.0, low_open=True)
    m = X.shape[0]
    rows = np.random.default_rng(seed).choice(m, size=min(sample, m), replace=False)
    sq = np.einsum("ij,ij->i", X, X)
    D = sq[rows, None] + sq[None, :] - 2.0 * (X[rows] @ X.T)
    D[np.arange(rows.size), rows] = np.inf
    return float(np.sqrt(max(np.quantile(D[:, :].ravel()[np.isfinite(D.ravel())], fraction), 0.0)))
