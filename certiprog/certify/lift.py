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
from .cache import abs_csr_A, csc_A, csr_A
from .rigorous import Ball, matvec


def _col_any(mask: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Per column of a CSC layout (``indptr``): whether any of its entries has ``mask`` set."""
    padded = np.append(mask, False)  # every start a valid index, and the last column's segment ends on a False
    out = np.logical_or.reduceat(padded, indptr[:-1]) if indptr.size > 1 else np.zeros(0, bool)
    return out & (np.diff(indptr) > 0)  # (reduceat gives an empty column its next entry's value)


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
        nonneg, soc = problem.rows_in("nonneg"), problem.rows_in("soc")  # (from the blocks' slices)
        head = np.zeros(m, bool)  # SOC head rows
        soc_head = np.arange(m)  # each SOC row's head row
        for blk in problem.blocks:
            if blk.cone.kind == "soc":
                rows = np.arange(blk.start, blk.stop)
                soc_head[rows] = blk.start + (rows - blk.start) // blk.cone.dim * blk.cone.dim
                head[blk.start:blk.stop:blk.cone.dim] = True
        good_row = nonneg | head
        # by columns (A as the compiler stores it, CSC: no conversion): a column is monotone when it has a nonzero and
        # every nonzero is negative in a good row (per-column reductions over contiguous entries)
        Ac = csc_A(problem)
        rc, ac, indptr = Ac.indices, Ac.data, Ac.indptr
        nz = ac != 0
        self.mono = _col_any(nz, indptr) & ~_col_any(nz & ~(good_row.take(rc) & (ac < 0)), indptr)
        sel = np.flatnonzero(np.repeat(self.mono, np.diff(indptr)) & nz)
        # per fixable row: the monotone column with the largest |coefficient| (ties: the larger column)
        fix_col = np.full(m, -1)
        fix_a = np.zeros(m)
        if sel.size:
            r, v = rc[sel], -ac[sel]
            c = np.searchsorted(indptr, sel, side="right") - 1
            if np.bincount(r, minlength=m).max() > 1:  # (the usual case, one monotone column a row, needs no sort)
                order = np.lexsort((c, v, r))  # by row, then |a|, then column: the last of each row wins
                r, c, v = r[order], c[order], v[order]
            fix_col[r], fix_a[r] = c, v
        self.fix_col, self.fix_a = fix_col, fix_a
        fixable = fix_col >= 0
        fixable[soc] = fix_col[soc_head[soc]] >= 0  # an SOC copy is fixable through its head
        self.fixable, self.soc_head = fixable, soc_head
        self.nonneg = nonneg
        self.core_cols = np.flatnonzero(~self.mono)
        self.core_rows = np.flatnonzero(~fixable)
        self.A = A
        self.useful = bool(self.mono.any())

    def apply(self, problem, X: Ball) -> Ball | None:
        """Raise monotone columns of X (a ball whose monotone entries are exact) until every fixable row's
        slack is (probably) feasible; the caller proves it. Returns the enclosure of the slack ``b - A X`` at X as
        it is left when the last pass raised nothing (`matvec`'s, what the caller's proof would compute again),
        else None."""
        if not self.useful:
            return None
        b = problem.b
        absA = abs_csr_A(problem) if csr_A(problem) is self.A else abs(self.A)
        nn = self.fixable & self.nonneg
        for _ in range(3):
            S = Ball(b) - matvec(self.A, X, abs_A=absA)
            need = np.zeros(problem.m)  # lower bound the fixable row's slack must be raised by
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
                return S
            mag = np.abs(b[rows]) + (absA @ np.abs(X.mid))[rows]  # the size of the terms each raised slack is made of
            delta = (need[rows] * (1 + 1e-9) + 1e-12 * (mag + need[rows]) + 1e-300) / self.fix_a[rows]
            raise_by = np.zeros(problem.n)
            np.maximum.at(raise_by, self.fix_col[rows], delta)
            j = np.flatnonzero(raise_by > 0)
            X.mid[j] = X.mid[j] + raise_by[j]
        return None

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
