"""Unbounded columns zeroed exactly by a verified dual correction (`dual_correction`), or by setting the
duals of the inequality rows they touch to exactly zero (`zero_row_duals`).

A correction dz on rows R (pivoted QR) solves ``(A_R' dz)_J = -v_J`` in ball arithmetic; the corrected dual's
distance from K* is paid on the slacks' upper ends over the box (nonneg rows, SOC copies), and exponential / power
cone rows must stay provably in K*. The derivation: docs/derivations/optimality-interval.md (the dual correction).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..conic.cones import Cone, ZeroCone
from .box import row_slack_hi
from .cache import csc_A
from .lagrangian import Lagrangian, sum_lo
from .rigorous import Ball, solve
from .rigorous import U as _U

_MAX_CORRECTION = 3000  # at most this many columns zeroed by a dual correction (a dense |J| x |J| solve)


def _proved_in_dual(cone: Cone) -> bool:
    """Rows of a cone that is not self-dual (exp, power cones, ...) may carry a dual correction that keeps w in K*,
    proved by `Cone.dual_contains` (no penalty form); zero, nonneg and SOC rows have their own penalties below."""
    return not cone.self_dual and not isinstance(cone, ZeroCone)


def dual_correction(problem, lag: Lagrangian, W: Ball, coef: Ball, J: np.ndarray, zc: np.ndarray):
    """Zero the coefficients of columns J exactly by a dual correction; (lower bound, reason, info)."""
    import scipy.linalg as sla

    A = lag.A
    m = problem.m
    if J.size > _MAX_CORRECTION:
        return -np.inf, f"{J.size} unbounded columns with nonzero coefficients (more than {_MAX_CORRECTION})", {}
    kind = problem.row_kinds() if hasattr(problem, "row_kinds") else None
    if kind is None:
        kind = np.empty(m, dtype=object)
        for blk in problem.blocks:
            kind[blk.start:blk.stop] = blk.cone.kind
    proved = np.zeros(m, bool)
    for blk in problem.blocks:
        proved[blk.start:blk.stop] = _proved_in_dual(blk.cone)
    head = np.arange(m)  # row index of the SOC head of each row's cone
    for blk in problem.blocks:
        if blk.cone.kind == "soc":
            rows = np.arange(blk.start, blk.stop)
            head[rows] = blk.start + (rows - blk.start) // blk.cone.dim * blk.cone.dim
    AJ = csc_A(problem)[:, J]
    touches = np.bincount(AJ.indices, minlength=m) > 0
    cand = np.flatnonzero(touches & (np.isin(kind, ["zero", "nonneg", "soc"]) | proved))
    # slack upper ends over the box, on the rows read below only (candidates and their SOC heads)
    need = np.union1d(cand, head[cand])
    S_hi = np.full(m, np.inf)
    S_hi[need] = row_slack_hi(A[need], problem.b[need], lag.lo, lag.hi)
    if cand.size < J.size:
        return -np.inf, "fewer usable rows than unbounded columns", {}
    weight = np.where(kind[cand] == "zero", 1e6, 1.0)
    nonneg = kind[cand] == "nonneg"
    # prefer inequality rows whose dual is large (a small correction keeps it >= 0) or whose slack is bounded
    zn = zc[cand[nonneg]]
    # (relative to the largest inequality dual, or to exp / power-cone duals, whose rows come with weight 1)
    zcone = np.abs(zc[cand[proved[cand]]])
    zrel = np.clip(zn / max(float(zn.max(initial=0.0)), float(zcone.max(initial=0.0)), 1e-300), 1e-6, 1.0)
    weight[nonneg] *= np.maximum(zrel, np.where(np.isfinite(S_hi[cand[nonneg]]), 1e-2, 0.0))
    soc = kind[cand] == "soc"
    h0 = head[cand[soc]]
    zh = zc[h0]
    weight[soc] *= np.maximum(np.clip(zh / max(float(zh.max(initial=0.0)), 1e-300), 1e-6, 1.0),
                              np.where(np.isfinite(S_hi[h0]), 1.0, 0.0))
    if cand.size * J.size > 2e7:
        return -np.inf, f"the dual correction would need a dense {cand.size} x {J.size} matrix", {}
    AJr = sp.csr_matrix(AJ)
    M = AJr[cand].toarray()  # rows = candidate rows, cols = J
    norms = np.linalg.norm(M, axis=1)
    Mw = M * (weight / np.where(norms > 0, norms, 1.0))[:, None]
    Rm, piv = sla.qr(Mw.T, pivoting=True, mode="r")  # (no Q: only R and the pivots are read)
    dg = np.abs(np.diag(Rm))
    if dg.size < J.size or dg[:J.size].min() <= 1e-13 * max(dg.max(), 1e-300):
        return -np.inf, "the rows touching the unbounded columns are rank deficient there", {}
    R = np.sort(cand[piv[:J.size]])
    try:
        dz = solve(AJr[R].toarray().T, -coef[J])
    except ValueError as exc:
        return -np.inf, f"the dual correction could not be verified ({exc})", {}
    mid, rad = W.mid.copy(), W.rad.copy()
    mid[R] += dz.mid
    W2 = Ball(mid, rad)
    W2.rad[R] = (Ball(W.mid[R], W.rad[R]) + dz).rad
    const, terms, _ = lag.evaluate(W2)
    terms[J] = 0.0  # the exact correction zeroes these coefficients exactly
    more = np.flatnonzero(terms == -np.inf)
    if more.size:  # a one-sided bound that the correction's tiny change made useless: zero those too
        return -np.inf, "the dual correction left a column unbounded", {"more": more}
    # (w - w+)'s over the rows changed: zero rows cost nothing
    pen = []
    kR = kind[R]
    nn = R[kR == "nonneg"]
    if nn.size:
        wl = W2[nn].lo()
        neg = wl < 0
        if np.any(neg & ~np.isfinite(S_hi[nn])):
            return -np.inf, "a corrected inequality dual turned negative on a row whose slack is unbounded", {}
        pen.append(np.where(neg, (Ball(np.minimum(wl, 0.0)) * Ball(np.where(neg, S_hi[nn], 0.0))).lo(), 0.0))
    for blk in problem.blocks:
        if blk.cone.kind != "soc":
            continue
        hit = R[(R >= blk.start) & (R < blk.stop)]
        if not hit.size:
            continue
        dim = blk.cone.dim
        for h0 in np.unique(head[hit]):
            cone_rows = slice(h0, h0 + dim)
            if blk.cone.with_count(1).contains(W2[cone_rows]):
                continue
            S0 = S_hi[h0]
            if not np.isfinite(S0):
                return -np.inf, "a corrected SOC dual left its cone where the cone's slack is unbounded", {}
            dzb = W2[cone_rows] - Ball(zc[cone_rows])
            pen.append(np.array([-(dzb.norm_hi() * S0 * 1.4142135623730951 * (1 + 8 * _U))]))
    for blk in problem.blocks:  # exp / power cones: the corrected dual must stay in K* (proved; no penalty form)
        if not _proved_in_dual(blk.cone) or not np.any((R >= blk.start) & (R < blk.stop)):
            continue
        if not blk.cone.dual_contains(W2[blk.start:blk.stop]):
            return -np.inf, f"a corrected {blk.cone.kind} dual could not be proved in its dual cone", {}
    penalty = np.concatenate(pen) if pen else np.zeros(0)
    total = sum_lo(np.concatenate([terms, penalty]), const)
    info = {"dual_correction_rows": int(R.size), "dual_correction_norm": float(np.max(np.abs(dz.mid)) + dz.rad.max())}
    if total == -np.inf:
        return -np.inf, "the dual correction left a column unbounded", info
    return total, "", info


def zero_row_duals(problem, lag: Lagrangian, W: Ball, J: np.ndarray):
    """(lower end, info) with the duals of the nonneg rows touching the unbounded columns J set to exactly 0, when
    that leaves every column's coefficient exactly zero or bounded; (-inf, {}) otherwise.

    The dual stays in K* (each nonneg row is its own cone), so the bound is valid whatever the zeroed values were.
    It is what an exact correction cannot do in ball arithmetic for a column whose only rows are inactive
    inequalities (``min t s.t. t == p, y >= 1``: y's cost is 0 and its row's dual ~1e-12, so the corrected dual
    is a ball around 0 that reaches below 0 on a row whose slack is unbounded)."""
    kind = problem.row_kinds()
    A = csc_A(problem)
    rows = np.unique(A[:, J].indices)
    nn = rows[kind[rows] == "nonneg"]
    if nn.size == 0:
        return -np.inf, {}
    mid, rad = np.array(W.mid, float), np.array(W.rad, float)
    mid[nn], rad[nn] = 0.0, 0.0
    const, terms, _ = lag.evaluate(Ball(mid, rad))
    # a column with no cost (q_j = 0, P's column empty) whose rows all had their duals zeroed has coefficient
    # exactly 0 (the evaluation's underflow guard leaves a ~1e-290 radius): its term is exactly 0
    zeroed = np.zeros(problem.m, bool)
    zeroed[nn] = True
    P = None if problem.P is None else sp.csc_matrix(problem.P)
    for j in J:
        col_rows = A.indices[A.indptr[j]:A.indptr[j + 1]]
        no_cost = problem.q[j] == 0 and (P is None or P.indptr[j + 1] == P.indptr[j])
        if terms[j] == -np.inf and no_cost and zeroed[col_rows].all():
            terms[j] = 0.0
    if np.any(terms == -np.inf) or not np.isfinite(const.lo()):
        return -np.inf, {}
    return sum_lo(terms, const), {"zeroed_row_duals": int(nn.size)}
