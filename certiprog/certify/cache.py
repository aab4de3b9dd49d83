"""Caches of the certificate: ``problem.A`` converted once per problem, and small content-keyed proof caches.

A certificate reads A by rows and by columns several times (`csr_A`, `csc_A`, stored on the problem beside the A
they were made from); the proofs about P and about SOC body rows are kept for a few matrices by content (`memo`),
so that a Model checked again, or re-solved with data that leaves them alone, does not pay them twice.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def memo(cache: dict, size: int, key, compute):
    """``cache[key]``, computed by ``compute()`` on a miss; the oldest entry goes when ``size`` are held (the proofs
    are keyed by the data's content, so a hit is the same proof)."""
    hit = cache.get(key)
    if hit is not None:
        return hit
    out = compute()
    if len(cache) >= size:
        cache.pop(next(iter(cache)))
    cache[key] = out
    return out


def csr_A(problem) -> sp.csr_matrix:
    """``problem.A`` as CSR, converted once per problem (a certificate reads it several times; a conversion of a
    20,000 x 300 dense-data A costs ~0.1 s each)."""
    cached = problem.__dict__.get("_certificate_csr_A")
    if cached is None or cached[0] is not problem.A:
        cached = (problem.A, sp.csr_matrix(problem.A))
        problem.__dict__["_certificate_csr_A"] = cached
    return cached[1]


def abs_csr_A(problem) -> sp.csr_matrix:
    """``|A|`` of `csr_A`, formed once per problem: every rounding-error bound of a product with A reads it (the
    upper end proves up to a few dozen points of one problem)."""
    A = csr_A(problem)
    cached = problem.__dict__.get("_certificate_abs_csr_A")
    if cached is None or cached[0] is not A:  # (A's index arrays shared: only the values are new)
        cached = (A, sp.csr_matrix((np.abs(A.data), A.indices, A.indptr), shape=A.shape))
        problem.__dict__["_certificate_abs_csr_A"] = cached
    return cached[1]


def csc_A(problem) -> sp.csc_matrix:
    """``problem.A`` as CSC (column slices), converted once per problem like `csr_A`."""
    cached = problem.__dict__.get("_certificate_csc_A")
    if cached is None or cached[0] is not problem.A:
        cached = (problem.A, sp.csc_matrix(problem.A))
        problem.__dict__["_certificate_csc_A"] = cached
    return cached[1]
