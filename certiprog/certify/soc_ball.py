"""Columns left unbounded by the box, bounded through the SOC constraints instead (`soc_ball_bound`).

When many columns J have no finite bound (a dense SOCP such as 004's kernel MPM), the SOC copies whose bodies
they enter bound ``||M x_J||`` (M: the body rows on J) by their heads' slacks and the other columns' bounds;
``lambda_min(M'M)`` proved by `certiprog.certify.gram.gram_proof` turns that into a ball ``||x_J|| <= rho / s``
and a price ``||c_J|| rho / s`` on the lower end. The derivation: docs/derivations/optimality-interval.md (the SOC
ball).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .box import row_slack_hi
from .dual_cone import dual_in_cone
from .gram import gram_proof
from .lagrangian import Lagrangian, sum_lo
from .rigorous import Ball
from .rigorous import U as _U

_BALL_MAX_ENTRIES = 2e7  # the dense body-rows x J matrix of `soc_ball_bound` stays below this size


def soc_ball_bound(problem, lag: Lagrangian, coef: Ball, J: np.ndarray, W: Ball, evaluated=None):
    """Lower bound of ``min c_J' x_J`` over every feasible x in the box, through the SOC constraints; (value,
    reason, info). Used when many columns J are unbounded in the box (dense SOCPs such as the kernel MPM of 004).

    The SOC copies whose bodies J enters give ``||M x_J|| <= rho`` (M: their body rows on J); with
    ``lambda_min(M'M) >= s^2 > 0`` proved (`gram_proof`), ``c_J' x_J >= -||c_J|| rho / s``: the price of this
    bound beside the exact `dual_correction` (docs/derivations/optimality-interval.md, the SOC ball). W: the dual
    (proved in K*) the coefficients ``coef`` come from; its SOC body entries are refined in floating point first
    (below), so that c_J, and the price, are at the rounding level. ``evaluated``: ``lag.evaluate(W)`` when the
    caller has it already."""
    A, lo, hi = lag.A, lag.lo, lag.hi
    m, n = A.shape
    inJ = np.zeros(n, bool)
    inJ[J] = True
    row_of = np.repeat(np.arange(m), np.diff(A.indptr))
    entJ = inJ[A.indices]
    touches = np.bincount(row_of[entJ], minlength=m) > 0
    # every row's part in the other columns, b_i - A_iK x_K, enclosed over the box (entries outside J only)
    keep = ~entJ
    AK = sp.csr_matrix((A.data[keep], A.indices[keep], np.r_[0, np.cumsum(np.bincount(row_of[keep], minlength=m))]),
                       shape=A.shape)
    r_hi = row_slack_hi(AK, problem.b, lo, hi)
    r_lo = -row_slack_hi(-AK, -problem.b, lo, hi)
    bodies, rho2 = [], 0.0
    for blk in problem.blocks:
        c = blk.cone
        if c.kind != "soc" or c.dim < 2:
            continue
        heads = np.arange(blk.start, blk.stop, c.dim)
        body_hit = np.add.reduceat(touches[blk.start:blk.stop].astype(int), heads - blk.start) - touches[heads]
        heads = heads[(body_hit > 0) & ~touches[heads]]
        if heads.size == 0:
            continue
        S = r_hi[heads]  # (the head rows do not touch J)
        brow = (heads[:, None] + np.arange(1, c.dim)[None, :]).reshape(-1)
        T2 = np.maximum(np.abs(r_hi[brow]), np.abs(r_lo[brow])).reshape(heads.size, c.dim - 1)
        T = np.sqrt(np.sum(T2 * T2, axis=1) * (1 + 4 * (c.dim + 4) * _U)) * (1 + 4 * _U)
        ok = np.isfinite(S) & np.isfinite(T)
        if not ok.any():
            continue
        tot = np.nextafter((np.maximum(S[ok], 0.0) + T[ok]) * (1 + 2 * _U), np.inf)
        rho2 += float(np.sum(tot * tot)) * (1 + 4 * (tot.size + 4) * _U)
        bodies.append(brow.reshape(heads.size, c.dim - 1)[ok].reshape(-1))
    if not bodies:
        return -np.inf, "no SOC constraint with a bounded head touches the unbounded columns", {}
    rows = np.concatenate(bodies)
    if rows.size * J.size > _BALL_MAX_ENTRIES:
        return -np.inf, f"the SOC ball would need a dense {rows.size} x {J.size} matrix", {}
    if rows.size < J.size:
        return -np.inf, "fewer SOC body rows than unbounded columns", {}
    rpos = np.full(m, -1)
    rpos[rows] = np.arange(rows.size)
    cpos = np.full(n, -1)
    cpos[J] = np.arange(J.size)
    sel = entJ & (rpos[row_of] >= 0)
    M = sp.coo_matrix((A.data[sel], (rpos[row_of[sel]], cpos[A.indices[sel]])),
                      shape=(rows.size, J.size)).toarray()  # (duplicate entries summed)
    lam, gsolve = gram_proof(M)
    if not lam > 0:
        return -np.inf, "the SOC rows do not provably determine the unbounded columns (rank)", {}
    s = float(np.nextafter(np.sqrt(lam) * (1 - 4 * _U), -np.inf))
    radius = float(np.nextafter(np.sqrt(rho2 * (1 + 4 * _U)) * (1 + 4 * _U) / s * (1 + 4 * _U), np.inf))
    info = {"soc_ball_radius": radius, "soc_ball_rows": int(rows.size)}

    def total(const, terms, c):  # the lower end with the ball's term for J
        loss = float(np.nextafter(c[J].norm_hi() * radius * (1 + 4 * _U), np.inf))
        rest = terms.copy()
        rest[J] = 0.0
        return (sum_lo(np.append(rest, -loss), const) if np.isfinite(loss) else -np.inf), loss

    const, terms, _ = evaluated if evaluated is not None else lag.evaluate(W)
    L, loss = total(const, terms, coef)
    info["soc_ball_loss"] = loss
    # floating-point refinement: move the SOC body duals by M g with M'M g = -c_J (the first factor), so that the
    # coefficients of J drop to the rounding level; the heads are raised again to prove the cone (`dual_in_cone`)
    # and everything is re-evaluated in ball arithmetic (the refinement itself needs no rigour)
    try:
        g = gsolve(-np.asarray(coef.mid[J], float))
        w = np.array(W.mid, float)
        # the sign: s = b - A x, so A'z enters the coefficient with A's entries; M holds A's body entries
        w[rows] = w[rows] + M @ g
        w, _ = dual_in_cone(problem, w)
        const2, terms2, coef2 = lag.evaluate(Ball(w))
        if np.array_equal(np.flatnonzero(terms2 == -np.inf), J):
            L2, loss2 = total(const2, terms2, coef2)
            if L2 > L:
                L, info["soc_ball_loss"], info["soc_ball_refined"] = L2, loss2, True
    except (ValueError, np.linalg.LinAlgError, FloatingPointError):
        pass
    return L, "", info
