"""Lower bounds of the Lagrangian ``inf_box L(x, w)`` for a dual enclosure w (`Lagrangian.evaluate`).

With w in K*, ``f(x) >= L(x, w) = 1/2 x'Px + (q + A'w)'x + r0 - b'w`` for every feasible x; its infimum over the
box is bounded column by column (`lin_terms` for linear columns, exact minima for a diagonal P, the dual function
up to a proved solve residual when P is proved positive definite, a linearisation when P is PSD only up to a
shift), and summed with its rounding errors (`sum_lo`). The derivation: docs/derivations/optimality-interval.md
(the lower end).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .cache import abs_csr_A, csr_A
from .psd import PsdCertificate
from .rigorous import Ball, matvec, quad
from .rigorous import U as _U


def lin_terms(c: Ball, lo_e, hi_e) -> np.ndarray:
    """Per-column lower bounds of ``min c_j t`` over ``t in [lo_e_j, hi_e_j]`` (ball c; infinite ends allowed)."""
    lo_e, hi_e = np.asarray(lo_e, float), np.asarray(hi_e, float)
    fl, fh = np.isfinite(lo_e), np.isfinite(hi_e)
    a = (c * Ball(np.where(fl, lo_e, 0.0))).lo()
    b = (c * Ball(np.where(fh, hi_e, 0.0))).lo()
    t = np.minimum(np.where(fl, a, np.inf), np.where(fh, b, np.inf))
    bad = (~fl & ~(c.hi() < 0)) | (~fh & ~(c.lo() > 0))
    t = np.where(bad, -np.inf, t)
    return np.where((c.mid == 0) & (c.rad == 0), 0.0, t)


def _quad_terms(d: np.ndarray, v: Ball, lo_e, hi_e) -> np.ndarray:
    """Per-column lower bounds of ``min d/2 t^2 + v t`` over ``[lo_e, hi_e]``, d > 0 exact floats."""
    inv = Ball.recip(d)
    free = -(Ball(v.sqr().hi()) * inv * 0.5)
    vert = -(v * inv)
    out = free.lo()

    def h(t):
        T = Ball(np.where(np.isfinite(t), t, 0.0))
        return (Ball(0.5 * d) * T.sqr() + v * T).lo()  # 0.5 * d is exact

    right = np.isfinite(hi_e) & (vert.lo() >= hi_e)
    left = np.isfinite(lo_e) & (vert.hi() <= lo_e)
    if right.any():
        out = np.where(right, np.maximum(out, h(hi_e)), out)
    if left.any():
        out = np.where(left, np.maximum(out, h(lo_e)), out)
    return out


def sum_lo(terms: np.ndarray, const: Ball) -> float:
    """Lower end of const + sum(terms), terms being lower bounds (floats, maybe -inf)."""
    if np.any(terms == -np.inf) or not np.isfinite(const.lo()):
        return -np.inf
    return (Ball(terms).sum() + const).lo() if terms.size else const.lo()


class Lagrangian:
    """Lower bounds of ``inf_box L(x, w)`` for ball duals w (see the module docstring)."""

    def __init__(self, problem, x, lo, hi, pc: PsdCertificate):
        self.problem, self.lo, self.hi, self.pc = problem, lo, hi, pc
        self.A = csr_A(problem)
        self.absA = abs_csr_A(problem)
        P = sp.csr_matrix(problem.P)
        P.eliminate_zeros()
        self.P = P
        n = problem.n
        self.d = P.diagonal()
        self.quad_cols = np.zeros(n, bool)  # columns handled by a quadratic term (not linear)
        self.xh = np.zeros(n)
        if pc.kind == "diagonal":
            self.quad_cols = self.d > 0
        elif pc.kind == "pd":
            self.quad_cols[pc.cols] = True
            self.PSS = sp.csr_matrix(P[pc.cols][:, pc.cols])
        elif pc.kind == "shift":
            self.xh = np.clip(np.asarray(x, float), lo, hi)

    def evaluate(self, W: Ball):
        """(const Ball, per-column terms, linear coefficients Ball) for the dual enclosure W."""
        pr, pc = self.problem, self.pc
        v = Ball(pr.q) + matvec(self.A, W, transpose=True, abs_A=self.absA)  # (|A| as cached: no copy)
        const = Ball(float(pr.r0)) - W.dot(Ball(pr.b))
        terms = np.zeros(pr.n)
        coef = v
        lo_e, hi_e = self.lo, self.hi
        if pc.kind == "diagonal":
            qc = self.quad_cols
            terms[qc] = _quad_terms(self.d[qc], v[qc], self.lo[qc], self.hi[qc])
        elif pc.kind == "pd":
            S = pc.cols
            c = v[S]
            u = pc.solve(-c.mid)
            e = c + matvec(self.PSS, u)
            en = e.norm_hi()
            part = -(quad(self.PSS, u) * 0.5) + e.dot(Ball(u)) - Ball(en * en * (1 + 4 * _U)) * Ball.recip(2 * pc.lam)
            const = const + part
        elif pc.kind == "shift":
            X = Ball(self.xh)
            PX = matvec(self.P, X)
            const = const + quad(self.P, X) * 0.5 + v.dot(X)
            coef = v + PX
            lo_e, hi_e = self.lo - self.xh, self.hi - self.xh
            if pc.mu > 0:
                S = pc.cols
                D2 = np.maximum((self.lo[S] - self.xh[S]) ** 2, (self.hi[S] - self.xh[S]) ** 2)
                D2 = float(np.sum(D2)) * (1 + 4 * (S.size + 8) * _U)
                if not np.isfinite(D2):
                    D2 = np.inf
                const = const - Ball(pc.mu * D2 * (1 + 4 * _U) / 2) if np.isfinite(D2) else Ball(-np.inf)
        lin = ~self.quad_cols
        terms[lin] = lin_terms(coef[lin], lo_e[lin], hi_e[lin])
        return const, terms, coef
