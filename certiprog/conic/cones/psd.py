"""The cone of positive semidefinite matrices, as the scaled upper triangle (svec); self-dual.

A symmetric n x n matrix M is stored as its upper triangle, column by column, off-diagonal entries times sqrt 2
(Clarabel's and SCS's svec), so that <svec A, svec B> = trace(A B) and the cone is self-dual in R^(n(n+1)/2).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...errors import InputError
from ._balls import arb_cholesky_pd, arb_module, arb_rows
from .base import Cone

_R2 = np.sqrt(2.0)


@lru_cache(maxsize=64)
def _triangle(n: int) -> tuple:
    """Row and column indices (i <= j) of the upper triangle in svec order (column-major), and the diagonal mask."""
    j = np.repeat(np.arange(n), np.arange(1, n + 1))  # column j holds rows 0..j
    i = np.concatenate([np.arange(c + 1) for c in range(n)]) if n else np.zeros(0, dtype=np.int64)
    return i, j, i == j


def smat_batch(V: np.ndarray, n: int) -> np.ndarray:
    """Symmetric matrices (k x n x n) from the rows of V (k x n(n+1)/2), the inverse of svec."""
    i, j, diag = _triangle(n)
    vals = np.where(diag, V, V / _R2)
    M = np.zeros((V.shape[0], n, n))
    M[:, i, j] = vals
    M[:, j, i] = vals
    return M


def svec_batch(M: np.ndarray) -> np.ndarray:
    """The rows svec(M_k) (k x n(n+1)/2) of matrices M (k x n x n), symmetrised: off-diagonals
    sqrt 2 (M_ij + M_ji) / 2."""
    n = M.shape[-1]
    i, j, diag = _triangle(n)
    return np.where(diag, M[:, i, j], _R2 * (M[:, i, j] + M[:, j, i]) / 2)


def smat(v: np.ndarray, n: int) -> np.ndarray:
    """Inverse of svec: symmetric matrix from the scaled upper triangle (column-major)."""
    return smat_batch(np.asarray(v, float).reshape(1, -1), n)[0]


def svec(M: np.ndarray) -> np.ndarray:
    """The scaled upper triangle (column-major, off-diagonals times sqrt 2) of a square matrix, symmetrised."""
    M = np.asarray(M, float)
    return svec_batch(M.reshape(1, *M.shape))[0]


def _smat_arb(p: list, n: int) -> list:
    """smat of a list of arb balls, as a list of rows."""
    r2 = arb_module()(2).sqrt()
    M = [[None] * n for _ in range(n)]
    k = 0
    for j in range(n):
        for i in range(j + 1):
            M[i][j] = M[j][i] = p[k] if i == j else p[k] / r2
            k += 1
    return M


class PsdCone(Cone):
    """``count`` PSD cones of n x n matrices in svec form, ``dim = n(n+1)/2`` rows each."""

    kind = "psd"
    self_dual = True
    dual_description = "itself (self-dual under the trace inner product)"

    def __new__(cls, dim: int, count: int = 1):
        return cls._create(dim, count, None)

    @classmethod
    def of_side(cls, n: int, count: int = 1) -> PsdCone:
        """The cone of n x n PSD matrices."""
        return cls._create(n * (n + 1) // 2, count, None)

    @classmethod
    def _check(cls, dim, alpha):
        alpha = super()._check(dim, alpha)
        n = int(round((np.sqrt(8 * dim + 1) - 1) / 2))
        if n * (n + 1) // 2 != dim:
            raise InputError(f"a psd cone's dim must be n(n+1)/2; got {dim}")
        return alpha

    def own_shape(self, v) -> np.ndarray:
        """The symmetric matrix of one copy (n x n), or the stack of them (count x n x n)."""
        V = self._parts(v, "v", finite=False)
        return smat_batch(V, self.side)[0] if self.count == 1 else smat_batch(V, self.side)

    def _project(self, P):
        if P.shape[0] == 0 or self.dim == 0:
            return P.copy()
        w, V = np.linalg.eigh(smat_batch(P, self.side))
        return svec_batch((V * np.maximum(w, 0.0)[:, None, :]) @ np.swapaxes(V, 1, 2))

    def _unit(self):
        return svec(np.eye(self.side))

    def linear_cuts(self):
        """-s_jj <= 0 for the diagonal, and +-s_ij - w (s_ii + s_jj) <= 0 off it with w = 0.7072 >= 1/sqrt 2
        (|M_ij| <= sqrt(M_ii M_jj) <= (M_ii + M_jj) / 2 and s_ij = sqrt 2 M_ij)."""
        i, j, diag = _triangle(self.side)
        pos = {(a, b): k for k, (a, b) in enumerate(zip(i, j))}
        rows = [-np.eye(1, self.dim, pos[(a, a)])[0] for a in range(self.side)]
        w = 0.7072
        for k in np.flatnonzero(~diag):
            d = w * (np.eye(1, self.dim, pos[(i[k], i[k])])[0] + np.eye(1, self.dim, pos[(j[k], j[k])])[0])
            e = np.eye(1, self.dim, k)[0]
            rows += [e - d, -e - d]
        return np.array(rows).reshape(-1, self.dim)

    def _margin(self, S):
        """The smallest eigenvalue of each matrix."""
        if S.shape[0] == 0 or self.dim == 0:
            return np.zeros(S.shape[0])
        return np.linalg.eigvalsh(smat_batch(S, self.side))[:, 0]

    def _contains(self, M, R):
        """An interval Cholesky factorisation (arb) of every copy succeeds: each is positive definite (a singular
        PSD matrix is not proved)."""
        n = self.side
        return all(arb_cholesky_pd(_smat_arb(p, n)) for p in arb_rows(M, R))

    def plausibly_contains(self, M) -> bool:
        M = np.asarray(M, float).reshape(-1, self.dim)
        if M.shape[0] == 0 or self.dim == 0:
            return True
        w = np.linalg.eigvalsh(smat_batch(M, self.side))
        scale = 1.0 + np.abs(M).max(axis=1)
        return bool(np.all(w[:, 0] >= -1e-9 * scale))

    def _dual_nudge(self, V):
        """mu I added (mu = 1e-15 scale, times 10 until proved) to every copy whose Cholesky fails."""
        arb = arb_module()
        n = self.side
        diag = np.array([j * (j + 1) // 2 + j for j in range(n)], dtype=np.int64)
        V = V.copy()
        for p in V:
            mu, base = 0.0, p.copy()
            scale = 1.0 + np.abs(p).max()
            while not arb_cholesky_pd(_smat_arb([arb(float(t)) for t in p], n)):
                mu = 1e-15 * scale if mu == 0 else mu * 10
                p[:] = base
                p[diag] += mu
        return V
