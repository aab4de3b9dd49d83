"""Epigraph columns, which only ever help feasibility, raised to repair a primal point without a solver (`Lift`).

A column whose every entry lies in a nonneg row or an SOC head with a negative coefficient (hinge, slack and
epigraph variables) can be raised until the rows it enters are feasible; the remaining *core* rows and columns
form a margin problem of the core's size (`Lift.core_problem`). The derivation:
docs/derivations/optimality-interval.md (the upper end's repair).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..conic.cones import Cone
from ..conic.problem import Block
from .cache import abs_csr_A, csr_A
from .rigorous import Ball, matvec


class Lift:
    """Columns that only ever help feasibility ("epigraph" columns), to repair a point without a solver.

    A column is *monotone* when each of its nonzero entries lies in a nonneg row or an SOC head row with a
    negative coefficient: raising it raises those slacks and touches no other row (hinge / slack / epigraph
    variables). A nonneg row, or an SOC copy whose head row, holds a monotone column is *fixable*: after the
    other columns are set, raising that column by the (enclosed) deficit makes the row feasible. The remaining
    *core* rows involve core columns only; a strictly feasible core point comes from a margin problem of the
    core's size (the hinge-minimax SOC: d columns, not the m hinge rows).
    """

    def __init__(self, problem):
        A = csr_A(problem)
        m, n = A.shape
        kind = problem.row_kinds()
        head = np.zeros(m, bool)  # SOC head rows
        soc_head = np.arange(m)  # each SOC row's head row
        for blk in problem.blocks:
            if blk.cone.kind == "soc":
                rows = np.arange(blk.start, blk.stop)
                soc_head[rows] = blk.start + (rows - blk.start) // blk.cone.dim * blk.cone.dim
                head[blk.start:blk.stop:blk.cone.dim] = True
        good_row = (kind == "nonneg") | head
        row = np.repeat(np.arange(m), np.diff(A.indptr))
        col, a = A.indices, A.data
        good = good_row[row] & (a < 0)
        nz = (a != 0).astype(float)  # weights, not a gather of the columns: one pass each
        bad_cols = np.bincount(col, weights=nz * ~good, minlength=n) > 0
        has = np.bincount(col, weights=nz, minlength=n) > 0
        self.mono = has & ~bad_cols
        sel = self.mono[col] & (a != 0)
        # per fixable row: the monotone column with the largest |coefficient|
        fix_col = np.full(m, -1)
        fix_a = np.zeros(m)
        if sel.any():
            r, c, v = row[sel], col[sel], -a[sel]
            order = np.lexsort((v, r))  # by row, then |a| ascending: the last of each row wins
            fix_col[r[order]], fix_a[r[order]] = c[order], v[order]
        self.fix_col, self.fix_a = fix_col, fix_a
        fixable = fix_col >= 0
        soc_rows = kind == "soc"
        fixable[soc_rows] = fix_col[soc_head[soc_rows]] >= 0  # an SOC copy is fixable through its head
        self.fixable, self.kind, self.soc_head = fixable, kind, soc_head
        self.core_cols = np.flatnonzero(~self.mono)
        self.core_rows = np.flatnonzero(~fixable)
        self.A = A
        self.useful = bool(self.mono.any())

    def apply(self, problem, X: Ball) -> None:
        """Raise monotone columns of X (a ball whose monotone entries are exact) until every fixable row's
        slack is (probably) feasible; the caller proves it."""
        if not self.useful:
            return
        b = problem.b
        absA = abs_csr_A(problem) if csr_A(problem) is self.A else abs(self.A)
        for _ in range(3):
            S = Ball(b) - matvec(self.A, X, abs_A=absA)
            mag = np.abs(b) + absA @ np.abs(X.mid)  # the size of the terms each slack is made of
            need = np.zeros(problem.m)  # lower bound the fixable row's slack must be raised by
            nn = self.fixable & (self.kind == "nonneg")
            lo = S.lo()
            need[nn] = np.where(lo[nn] <= 0, -lo[nn], 0.0)
            for blk in problem.blocks:
                if blk.cone.kind != "soc" or not self.fixable[blk.start]:
                    continue
                d = blk.cone.dim
                heads = np.arange(blk.start, blk.stop, d)
                heads = heads[self.fixable[heads]]
                for h0 in heads:
                    body = S[h0 + 1:h0 + d].norm_hi() if d > 1 else 0.0
                    need[h0] = max(body - S[h0:h0 + 1].lo()[0], 0.0)
            rows = np.flatnonzero(need > 0)
            if rows.size == 0:
                return
            delta = (need[rows] * (1 + 1e-9) + 1e-12 * (mag[rows] + need[rows]) + 1e-300) / self.fix_a[rows]
            raise_by = np.zeros(problem.n)
            np.maximum.at(raise_by, self.fix_col[rows], delta)
            j = np.flatnonzero(raise_by > 0)
            X.mid[j] = X.mid[j] + raise_by[j]

    def core_problem(self, problem):
        """The core rows and columns as a ConicProblem (for `interior_point`), or None if there are none."""
        if self.core_rows.size == 0 or self.core_cols.size == 0:
            return None
        rows, blocks, cones, start = [], [], [], 0
        for blk in problem.blocks:
            c = blk.cone
            r = np.arange(blk.start, blk.stop)
            keep = r[~self.fixable[r]]
            if keep.size == 0:
                continue
            if c.kind == "nonneg":
                cone = Cone("nonneg", int(keep.size))
            elif keep.size == r.size:
                cone = c
            else:  # SOC: whole copies
                cone = Cone(c.kind, c.dim, int(keep.size // c.dim), c.alpha)
            blocks.append(Block(blk.owner, cone, None, blk.primary, start))
            cones.append(cone)
            rows.append(keep)
            start += keep.size
        rows = np.concatenate(rows)
        C = self.core_cols
        nc = C.size
        return replace(problem, P=sp.csc_matrix((nc, nc)), q=np.zeros(nc), r0=0.0,
                       A=sp.csc_matrix(self.A[rows][:, C]), b=problem.b[rows], cones=cones, blocks=blocks,
                       columns={}, times={})
