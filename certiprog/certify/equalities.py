"""The equality rows made exact inside an enclosure of the primal point, for the upper end.

`equality_basis` picks a well-conditioned set of basic columns (pivoted QR; cached per problem), whose values
`rigorous.solve` encloses (`equality_split` keeps the blocks of A it reads); when the dense equality block or its
QR would be large, `SparseEqualities` corrects the point by a minimum-norm step whose enclosure comes from a
proved lower bound of ``lambda_min(A_E A_E')``, with nothing of the problem's size formed. The derivation:
docs/derivations/optimality-interval.md (the equality rows).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .cache import csr_A
from .psd import gershgorin_lower, ldl, ldl_residual_norm
from .rigorous import Ball, gamma, matvec
from .rigorous import U as _U


def equality_basis(problem):
    """(rows, basic columns) for the zero-cone rows, or raise ValueError if they are rank deficient; computed once
    per problem and A (`equality_split` keeps the pieces of A `_verify_point` needs beside it)."""
    cached = problem.__dict__.get("_certificate_eq_basis")
    if cached is None or cached[0] is not problem.A:
        try:
            out = _equality_basis_uncached(problem)
        except ValueError as exc:
            out = exc
        cached = (problem.A, out, {})
        problem.__dict__["_certificate_eq_basis"] = cached
    if isinstance(cached[1], ValueError):
        raise cached[1]
    return cached[1]


def equality_split(problem, rows, basic):
    """(dense A_EB, sparse A_EN, nonbasic columns) for the equality rows E, basic columns B and the others N."""
    store = problem.__dict__.get("_certificate_eq_basis")
    key = (rows.tobytes(), basic.tobytes())
    if store is not None and store[0] is problem.A and key in store[2]:
        return store[2][key]
    AE = csr_A(problem)[rows]
    nonbasic = np.setdiff1d(np.arange(problem.n), basic)
    out = (AE[:, basic].toarray(), sp.csr_matrix(AE[:, nonbasic]), nonbasic)
    if store is not None and store[0] is problem.A:
        store[2].clear()
        store[2][key] = out
    return out


_EQ_DENSE_MAX = 1_000_000  # entries (rows x columns) of the dense equality block the pivoted-QR basis may form
_EQ_GRAM_MAX = 5e7  # products summed into A_E A_E' (sum of squared column counts) the sparse correction may form
_EQ_DENSE_FLOPS = 5e7  # and rows^2 x columns, its QRs' cost (3,000 columns and 300 equalities: 0.5 s, 2x the solve)


class SparseEqualities:
    """The equality rows E made exact by a minimum-norm correction, for blocks too large to densify.

    ``x + M'(MM')^{-1} D r`` (M: the rows scaled by powers of two, on the columns J allowed to move; r: the exact
    residual) solves ``A_E x = b_E`` exactly; its change is enclosed through a proved lower bound of
    ``lambda_min(MM')`` (Gershgorin's discs or a sparse LDL', less the rounding of MM'). Nothing of size rows x
    columns is formed: one sparse factorisation of the k x k matrix MM' per column set J
    (docs/derivations/optimality-interval.md, the upper end).
    """

    def __init__(self, problem, rows) -> None:
        self.rows = rows
        A = csr_A(problem)
        AE = sp.csr_matrix(A[rows])
        AE.sum_duplicates()
        norms = np.sqrt(np.asarray(AE.multiply(AE).sum(axis=1)).reshape(-1))
        self.scale = np.exp2(-np.round(np.log2(np.where(norms > 0, norms, 1.0))))  # powers of two: D A_E exact
        self.AE = AE
        self.b = problem.b[rows]
        self.row_of = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
        self.kind = problem.row_kinds()
        self.touched = np.flatnonzero(np.bincount(AE.indices, minlength=A.shape[1]) > 0)
        self._proofs: dict = {}

    def _proof(self, cols):
        key = cols.tobytes()
        if key not in self._proofs:
            if len(self._proofs) >= 4:
                self._proofs.pop(next(iter(self._proofs)))
            self._proofs[key] = self._prove(cols)
        return self._proofs[key]

    def _prove(self, cols):
        """(M, lam, ||M_j||_2 upper bounds, approximate solver of G w = v), or None when nothing is proved."""
        from scipy.sparse.linalg import splu

        M = sp.csr_matrix(sp.diags(self.scale) @ self.AE[:, cols])
        k = M.shape[0]
        if np.any(np.diff(M.indptr) == 0):
            return None  # an equality row none of the movable columns enters
        if float(np.sum(np.bincount(M.indices).astype(float) ** 2)) > _EQ_GRAM_MAX:
            return None  # columns in many rows: MM' would be (nearly) dense
        G = sp.csc_matrix(M @ M.T)
        aM = abs(M)
        p = int(np.diff(M.indptr).max())
        c = int(np.bincount(M.indices, minlength=M.shape[1]).max(initial=1))
        # ||G - MM'||_2 <= gamma_{p+2} || |M||M|' ||_inf; the row sums of |M||M|' are sums of c, then p,
        # nonnegative terms, so their floating-point values are exact within a factor 1 + gamma_{c+p+4}
        rounding = gamma(p + 2) * float(np.max(aM @ (aM.T @ np.ones(k)))) * (1 + gamma(c + p + 4))
        lam = gershgorin_lower(G)
        if not lam > rounding:
            top = float(G.diagonal().max())
            lam = -np.inf
            for t in (1e-3, 1e-6, 1e-9):
                fac = ldl(G, -t * top)
                if fac is None:
                    continue
                _, L, D, ip = fac
                lam = t * top - ldl_residual_norm(G, -t * top, L, D, ip)
                if lam > rounding:
                    break
        lam = float(np.nextafter((lam - rounding) * (1 - 4 * _U), -np.inf))
        if not lam > 0:
            return None
        colsq = np.asarray(aM.multiply(aM).sum(axis=0)).reshape(-1) * (1 + gamma(k + 2))
        colnorm = np.nextafter(np.sqrt(colsq) * (1 + 4 * _U), np.inf)
        try:
            lu = splu(G, permc_spec="MMD_AT_PLUS_A")
        except RuntimeError:
            return None
        return M, lam, colnorm, lu

    def correct(self, problem, X: Ball) -> bool:
        """Move X (in place) to an enclosure of a point satisfying the equalities exactly; False if not proved.

        The columns that may move are first those not in a tight row (a nonneg row with slack below 1e-9 of its
        scale, or any row of another cone), so active bounds and constraints stay as the solver left them; then
        every column the equalities touch."""
        A = csr_A(problem)
        s = problem.b - A @ X.mid
        loose = (self.kind == "nonneg") & (s > 1e-9 * (1.0 + np.abs(problem.b)))
        tight_row = (self.kind != "zero") & ~loose
        pinned = np.bincount(A.indices[tight_row[self.row_of]], minlength=A.shape[1]) > 0
        free = self.touched[~pinned[self.touched]]
        for cols in ((free, self.touched) if free.size < self.touched.size else (self.touched,)):
            proof = self._proof(cols)
            if proof is None:
                continue
            M, lam, colnorm, lu = proof
            r = (Ball(self.b) - matvec(self.AE, X)) * self.scale
            w = lu.solve(r.mid)
            w = w + lu.solve(r.mid - M @ (M.T @ w))  # one refinement step (floating point; not relied on)
            Y = Ball(X.mid.copy(), X.rad.copy())
            Y.mid[cols] += M.T @ w
            rn = ((Ball(self.b) - matvec(self.AE, Y)) * self.scale).norm_hi()
            rad = np.minimum(colnorm * rn / lam, rn / np.sqrt(lam)) * (1 + 8 * _U)
            Y.rad[cols] = np.nextafter((Y.rad[cols] + np.nextafter(rad, np.inf)) * (1 + 2 * _U), np.inf)
            if not np.all(np.isfinite(Y.rad[cols])):
                continue
            X.mid[:], X.rad[:] = Y.mid, Y.rad
            return True
        return False


def _equality_basis_uncached(problem):
    import scipy.linalg as sla

    rows = np.concatenate([np.arange(b.start, b.stop) for b in problem.blocks if b.cone.kind == "zero"] or
                          [np.zeros(0, int)])
    if rows.size == 0:
        return rows, rows
    if rows.size * problem.n > _EQ_DENSE_MAX or rows.size ** 2 * problem.n > _EQ_DENSE_FLOPS:
        return rows, SparseEqualities(problem, rows)  # a dense QR would take k n memory and ~k^2 n time
    A = csr_A(problem)
    AE = A[rows].toarray()
    n = problem.n
    only = (np.bincount(A.indices, minlength=n) == np.bincount(A[rows].indices, minlength=n)) & np.any(AE != 0, 0)
    if only.sum() == rows.size:  # exactly one epigraph column per equality row (sum_squares, norms): take them
        # when they are well conditioned against the largest column of AE, an upper bound of the smallest pivot of
        # AE's pivoted QR, so the test below would accept them too (without its two larger QRs)
        cand = np.flatnonzero(only)
        d2 = np.abs(np.diag(sla.qr(AE[:, cand], mode="r")[0]))
        top = float(np.sqrt(np.max(np.sum(AE * AE, axis=0))))
        if d2.min() > 1e-10 * max(d2.max(), 1e-300) and d2.min() >= 1e-3 * top:
            return rows, cand
    R, piv = sla.qr(AE, pivoting=True, mode="r")  # (no Q)
    d = np.abs(np.diag(R))
    if d.size < rows.size or d.min() <= 1e-10 * max(d.max(), 1e-300):
        raise ValueError("the equality rows are rank deficient (redundant or inconsistent equalities)")
    basic = np.sort(piv[: rows.size])
    # prefer columns that occur in the equality rows only (epigraph variables these rows define): solving for them
    # leaves the other columns, and so their bounds, as the solver returned them
    if only.any() and not np.all(only[basic]):
        R2, piv2 = sla.qr(AE * np.where(only, 1e3, 1.0), pivoting=True, mode="r")
        cand = np.sort(piv2[: rows.size])
        d2 = np.abs(np.diag(sla.qr(AE[:, cand], mode="r")[0]))  # judged unweighted, as the original basis
        if d2.size == rows.size and d2.min() > 1e-10 * max(d2.max(), 1e-300) and d2.min() >= 1e-3 * d.min():
            basic = cand
    return rows, basic
