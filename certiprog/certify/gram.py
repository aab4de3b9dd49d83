"""A proved lower bound of ``lambda_min(M'M)`` for a dense matrix M (`gram_proof`): one Gram product and two
floating-point Cholesky factorisations with a-priori error bounds, cached by M's content.

The derivation (Higham's bound on a Cholesky factorisation that runs to completion, the Gram product's and the
shift's rounding): docs/derivations/optimality-interval.md (the Gram proof).
"""
from __future__ import annotations

import numpy as np

from .cache import memo
from .rigorous import U as _U
from .rigorous import gamma


def _gram_lambda_min(M: np.ndarray) -> float:
    """`gram_proof`'s bound alone."""
    return gram_proof(M)[0]


_GRAM_CACHE: dict = {}
_GRAM_CACHE_SIZE = 2


def gram_proof(M: np.ndarray):
    """`_gram_proof_uncached` with a small cache keyed by M's content (shape and a blake2b digest of its bytes):
    the same SOC body rows certified again (a bisection over the same data, as HP-MPM's, or check() after a
    re-solve) do not pay the Gram product and the factorisations twice."""
    import hashlib

    M = np.ascontiguousarray(M, dtype=float)
    key = (M.shape, hashlib.blake2b(M.view(np.uint8).data, digest_size=20).hexdigest())
    return memo(_GRAM_CACHE, _GRAM_CACHE_SIZE, key, lambda: _gram_proof_uncached(M))


def _gram_proof_uncached(M: np.ndarray):
    """A proved lower bound of lambda_min(M'M) for a dense float matrix M (r x p); <= 0 when nothing is proved.

    ``lambda_min(M'M) >= sigma - e1 - e2 - e3``: the Gram product's rounding (e1), the shift's (e2) and Higham's
    bound on a Cholesky factorisation of ``fl(G - sigma I)`` that runs to completion (e3); sigma from a first
    factorisation and a few steps of inverse iteration (docs/derivations/optimality-interval.md, the Gram proof).

    Returns (bound, solve) with ``solve(rhs)`` an approximate solution of ``M'M g = rhs`` from the first factor
    (None when nothing is proved); the bound alone is `_gram_lambda_min`."""
    import scipy.linalg as sla

    r, p = M.shape
    if p == 0:
        return np.inf, None
    if r < p or not np.all(np.isfinite(M)):
        return -np.inf, None
    big = float(np.max(np.abs(M)))
    if big == 0:
        return -np.inf, None
    # an exact power-of-two scaling to max |M| ~ 1 keeps every product far from underflow and overflow (what
    # underflows then is below 1e-290 per operation: the absolute term e0 covers it); undone exactly at the end
    e = -int(np.frexp(big)[1])
    M = np.ldexp(M, e)
    # G = M'M by a symmetric rank-r update (half a GEMM's work; only the upper triangle is formed, the one the
    # Cholesky factorisation reads); M.T of a C-ordered M is Fortran-ordered, so BLAS takes it without a copy
    G = sla.blas.dsyrk(1.0, np.asfortranarray(M.T), trans=0, lower=0)
    fro2 = float(np.einsum("ij,ij->", M, M)) * (1 + 4 * (M.size + 4) * _U) + 1e-300
    e0 = 4.0 * (r + p + 4) * p * 1e-290
    e1 = gamma(r + 1) * fro2 * (1 + 8 * _U) + e0
    diag = np.arange(p)

    def factor(sigma):
        A = G.copy()
        A[diag, diag] -= sigma
        try:
            R = sla.cholesky(A, lower=False, overwrite_a=True, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            return None, np.inf
        if not np.all(np.isfinite(R)):
            return None, np.inf
        e2 = _U * float(np.max(np.abs(G[diag, diag] - sigma))) * (1 + 4 * _U)
        e3 = gamma(p + 1) * float(np.einsum("ij,ij->", R, R)) * (1 + 4 * (R.size + 4) * _U) + e0
        return R, (e1 + e2 + e3) * (1 + 8 * _U) + 1e-300

    R, err = factor(0.0)
    if R is None:
        return -np.inf, None
    v = np.random.default_rng(0).standard_normal(p)  # inverse iteration on R'R ~ G (an estimate only)
    lam = np.inf
    for _ in range(8):
        v /= np.linalg.norm(v)
        y = sla.solve_triangular(R, sla.solve_triangular(R, v, trans="T", check_finite=False), check_finite=False)
        ny = float(np.linalg.norm(y))
        if not (np.isfinite(ny) and ny > 0):
            return -err, None
        new = 1.0 / ny
        v = y
        if abs(new - lam) <= 1e-3 * new:
            lam = new
            break
        lam = new
    best = -err
    for frac in (0.5, 0.05):
        sigma = frac * lam
        if not sigma > 0:
            break
        R2, err2 = factor(sigma)
        if R2 is not None:
            best = max(best, float(np.nextafter(sigma - err2, -np.inf)))
            break
    def solve(rhs, R=R):  # M'M = 4^-e M_s'M_s: g = 4^e (R'R)^-1 rhs
        y = sla.solve_triangular(R, sla.solve_triangular(R, rhs, trans="T", check_finite=False), check_finite=False)
        return np.ldexp(y, 2 * e)

    return float(np.ldexp(best, -2 * e)), solve  # lambda_min(M'M) of the unscaled M (exact: a power of two)
