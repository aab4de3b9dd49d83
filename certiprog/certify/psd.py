"""What is proved about the objective's P: zero, diagonal, positive definite, PSD up to a shift, or indefinite.

`psd_certificate` returns a `PsdCertificate` (cached by P's content): diagonal P is read off exactly; a
diagonally dominant P is proved by Gershgorin's discs (`gershgorin_lower`); otherwise a sparse LDL' of
``P + sigma I`` (`ldl`) with a rigorous bound of its residual (`ldl_residual_norm`) proves
``lambda_min(P) >= -sigma - ||R||``, and an eigenvector evaluated in ball arithmetic witnesses indefiniteness.
The derivation: docs/derivations/optimality-interval.md (the objective's P).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .cache import memo
from .rigorous import U as _U
from .rigorous import gamma, quad


@dataclass
class PsdCertificate:
    """What is proved about P on the columns ``cols`` it touches.

    kind: 'zero' (P = 0), 'diagonal' (d >= 0; exact), 'pd' (``P_SS >= lam I``, lam > 0), 'shift'
    (``P_SS + mu I >= 0``, mu = -lam >= 0), 'indefinite' (``v'Pv < 0`` proved for ``witness``),
    'unknown' (nothing proved). ``solve(rhs)`` approximately solves ``P_SS u = rhs`` (kind 'pd').
    """

    kind: str
    cols: np.ndarray
    lam: float = 0.0
    why: str = ""
    witness: np.ndarray | None = None
    solver: Callable[[np.ndarray], np.ndarray] | None = None

    @property
    def mu(self) -> float:
        """The shift proved to make P PSD (``P + mu I >= 0``): 0 when P is proved PD or PSD, inf when nothing is
        proved."""
        return max(0.0, -self.lam) if self.kind in ("pd", "shift", "diagonal", "zero") else np.inf

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """An approximate solution of ``P_SS u = rhs`` with the proof's factorisation (its error is bounded
        separately)."""
        assert self.solver is not None, "only a 'pd' certificate carries its factorisation"
        return self.solver(rhs)


def ldl(Q, sigma: float):
    """Sparse LDL' of Q + sigma I without pivoting (SuperLU, symmetric mode); None if a pivot is <= 0."""
    from scipy.sparse.linalg import splu

    n = Q.shape[0]
    try:
        lu = splu(sp.csc_matrix(Q + sigma * sp.identity(n)), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                  options={"SymmetricMode": True})
    except RuntimeError:
        return None
    D = lu.U.diagonal()
    if not (np.all(lu.perm_r == lu.perm_c) and np.all(D > 0) and np.all(np.isfinite(D))):
        return None
    return lu, sp.csr_matrix(lu.L), D, np.argsort(lu.perm_r)


def ldl_residual_norm(Q, sigma, L, D, ip) -> float:
    """Upper bound of ||Q + sigma I - L D L'||_2 (permuted), counting every rounding error."""
    n = Q.shape[0]
    Qp = sp.csr_matrix(Q[ip][:, ip] + sigma * sp.identity(n))
    LD = L @ sp.diags(D)
    R = Qp - LD @ L.T
    k = int(np.diff(L.indptr).max()) if L.nnz else 1
    aL = abs(L)
    lower_sum = aL @ (D * (aL.T @ np.ones(n)))  # row sums of |L| D |L'|
    rows = abs(R) @ np.ones(n) * (1 + _U) + gamma(k + 3) * lower_sum + _U * abs(Qp.diagonal())
    return float(np.max(rows)) * (1 + 4 * (n + k + 8) * _U) + 1e-290 if n else 0.0


def gershgorin_lower(Q) -> float:
    """A proved lower bound of lambda_min(Q) for symmetric sparse Q: min_i Q_ii - sum_{j != i} |Q_ij| (Gershgorin's
    discs, exact for the float matrix; the row sums' rounding errors are bounded a priori)."""
    Q = sp.csr_matrix(Q)
    n = Q.shape[0]
    if n == 0:
        return np.inf
    d = Q.diagonal()
    row = np.repeat(np.arange(n), np.diff(Q.indptr))
    off = np.where(row != Q.indices, np.abs(Q.data), 0.0)
    k = int(np.diff(Q.indptr).max()) if Q.nnz else 1
    off_hi = np.bincount(row, off, n) * (1 + gamma(k + 1)) * (1 + 4 * (k + 4) * _U) + 1e-300
    diff = d - off_hi
    return float(np.min(diff - _U * np.abs(diff) - 1e-300))


def _cg_solver(Q):
    """Approximate ``Q u = rhs`` by Jacobi-preconditioned conjugate gradients (sparse matvecs only; the certificate
    encloses the residual of whatever u comes back, so the accuracy only affects the bound's tightness)."""
    from scipy.sparse.linalg import LinearOperator, cg

    Q = sp.csr_matrix(Q)
    dinv = 1.0 / Q.diagonal()
    M = LinearOperator(Q.shape, matvec=lambda v: dinv * np.ravel(v), dtype=float)

    def solver(rhs):
        rhs = np.asarray(rhs, float)
        u = dinv * rhs
        for _ in range(3):  # restarted: each pass refines against the true residual
            r = rhs - Q @ u
            nr = float(np.linalg.norm(r))
            if nr == 0 or nr <= 1e-15 * float(np.linalg.norm(rhs)):
                break
            du, _ = cg(Q, r, rtol=1e-14, atol=0.0, maxiter=10 * Q.shape[0] + 100, M=M)
            u = u + du
        return u

    return solver


_PSD_CACHE: dict = {}
_PSD_CACHE_SIZE = 8


def _psd_key(P: sp.csr_matrix):
    """A content key of a sparse matrix (shape, pattern and values), for the `psd_certificate` cache."""
    import hashlib

    h = hashlib.blake2b(digest_size=20)
    for arr in (P.indptr, P.indices, P.data):
        h.update(np.ascontiguousarray(arr).view(np.uint8).data)
    return P.shape, P.nnz, h.hexdigest()


def psd_certificate(P) -> PsdCertificate:
    """`_psd_certificate` with a small cache keyed by P's content: a Model checked again (or re-solved with new
    data that leaves P alone, e.g. a Parameter in the constraints) does not pay the factorisation twice."""
    Pc = sp.csr_matrix(P, dtype=float, copy=True)
    Pc.sum_duplicates()
    Pc.sort_indices()
    key = _psd_key(Pc)
    return memo(_PSD_CACHE, _PSD_CACHE_SIZE, key, lambda: _psd_certificate(Pc))


def _diagonal_certificate(n: int, cols: np.ndarray, d: np.ndarray) -> PsdCertificate:
    """The certificate of a diagonal P (n x n) whose nonzero diagonal entries are ``d`` on the columns ``cols``."""
    if d.min() < 0:
        w = np.zeros(n)
        w[cols[np.argmin(d)]] = 1.0
        return PsdCertificate("indefinite", cols, float(d.min()), f"P has a negative diagonal entry "
                              f"{d.min():.3g} (and no off-diagonal entries)", witness=w)
    return PsdCertificate("diagonal", cols, float(d.min()))


def _psd_certificate(P) -> PsdCertificate:
    """Prove P positive definite (with a lower eigenvalue bound), PSD up to a shift, or indefinite.

    Diagonal P is read off exactly. Otherwise, on the columns S it touches, ``P_SS + sigma I = L D L' + R``
    is factorised (sparse, no dense matrix of the problem's size) for sigma from -1e-6 to +1e-9 times
    max |P_jj|; D > 0 makes L D L' PSD, so ``lambda_min(P_SS) >= -sigma - ||R||`` with ||R|| bounded
    rigorously. If no factorisation succeeds, the smallest eigenpair (Lanczos) is tried as a witness
    ``v'Pv < 0``, evaluated in ball arithmetic.
    """
    P = sp.csr_matrix(P)
    P.eliminate_zeros()
    if P.nnz == 0:
        return PsdCertificate("zero", np.zeros(0, int))
    counts = np.diff(P.indptr)
    rows = np.repeat(np.arange(P.shape[0]), counts)
    if counts.max() == 1 and np.array_equal(P.indices, rows):
        # diagonal: read off the stored entries in O(n), the general path's answer without its submatrix slices
        # (~1 ms at n = 10,000, paid once per P by the cache)
        return _diagonal_certificate(P.shape[0], rows, P.data.astype(float))
    cols = np.unique(np.concatenate([P.indices, rows]))
    Q = sp.csc_matrix(P[cols][:, cols])
    if abs(Q - Q.T).max() > 0:
        return PsdCertificate("unknown", cols, -np.inf, "P is not symmetric")
    d = Q.diagonal()
    if (Q - sp.diags(d)).nnz == 0:
        return _diagonal_certificate(P.shape[0], cols, d)
    if d.min() > 0:  # diagonally dominant (graph-Laplacian-like, ridge-dominated): proved in O(nnz), solved by CG
        lam = gershgorin_lower(Q)
        if lam > 0:
            return PsdCertificate("pd", cols, lam, solver=_cg_solver(Q))
    scale = float(np.max(np.abs(d))) or float(abs(Q).max())
    shift = None
    for sigma in (-1e-6 * scale, -1e-9 * scale, -1e-12 * scale, 1e-12 * scale, 1e-9 * scale):
        fac = ldl(Q, sigma)
        if fac is None:
            continue
        lu, L, D, ip = fac
        lam = -sigma - ldl_residual_norm(Q, sigma, L, D, ip)
        if lam > 0:
            def solver(rhs, lu=lu, Q=Q):
                u = lu.solve(rhs)
                for _ in range(3):  # iterative refinement against P itself
                    u = u + lu.solve(rhs - Q @ u)
                return u

            return PsdCertificate("pd", cols, float(lam), solver=solver)
        if shift is None or lam > shift:
            shift = lam
        if sigma > 0:
            break
    if shift is not None:
        return PsdCertificate("shift", cols, float(shift))
    # look for a witness of indefiniteness
    try:
        if cols.size <= 500:
            ev, V = np.linalg.eigh(Q.toarray())
            v = V[:, 0]
        else:
            from scipy.sparse.linalg import eigsh

            ev, V = eigsh(Q, k=1, which="SA")
            v = V[:, 0]
        val = quad(Q, v)
        if val.hi() < 0:
            w = np.zeros(P.shape[0])
            w[cols] = v
            return PsdCertificate("indefinite", cols, float(val.mid), f"P is indefinite: v'Pv <= {val.hi():.3g} "
                                  f"< 0 for a unit vector v (smallest eigenvalue ~ {ev[0]:.3g})", witness=w)
    except Exception:  # noqa: BLE001 - an eigen-solver failure only means no witness
        pass
    return PsdCertificate("unknown", cols, -np.inf, "P could not be proved PSD (no LDL' factorisation of P + "
                          "sigma I succeeded) nor indefinite")


def psd_shift(P) -> tuple[float, np.ndarray]:
    """(mu, cols): proved ``P + mu I >= 0`` on the columns ``cols`` touched by P (inf: nothing proved)."""
    pc = psd_certificate(P)
    return pc.mu, pc.cols
