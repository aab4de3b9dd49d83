"""Dual recovery for backends that return no duals.

`recover` first solves the KKT system on the active set read from x's slacks, in x and z jointly by Newton's
method (`certiprog.certify.polish.polish_duals` without a dual): at a nondegenerate point this gives a KKT
dual to rounding at the cost of a few sparse factorisations. When that does not prove a KKT pair (a degenerate or
inaccurate point, a wrong guess of the active set), it falls back to least squares: from x (s = b - A x), find
the active blocks and solve

    min_z  1/2 ||P x + q + A'z||^2  (+ w <Pi_K(s), z> for conic blocks)   s.t.  z in K*,
           z_b = 0 on blocks that are inactive at x,

* only zero / nonneg blocks: a bounded least-squares problem (free z on equality rows, z >= 0 on active
  inequality rows; `scipy.optimize.lsq_linear`, i.e. nonnegative least squares with free variables);
  the activity threshold is loosened until the stationarity residual is small;
* SOC / PSD / power blocks: a small Clarabel conic least-squares problem in z (the complementarity
  weight w picks, among duals with the same residual, one complementary to s).

on data whose rows are divided by their units (`certiprog.certify.polish.row_units`) and gradient by its
norm (thresholds and tolerances then mean the same on data scaled by 1e8 or 1e-8). That z inherits the error of x
(stationarity is solved at x), so it is then polished: Newton's method on the KKT system restricted to the
active set of the pair, in x and z jointly (`certiprog.certify.polish`). `recover` returns the outcome with
the flag saying whether the dual is exact to rounding or approximate (and why); `recover_duals` the dual alone.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ..conic.cones import Cone, project
from ..errors import InputError
from .interior import solve_conic
from .polish import EXACT_RESIDUAL, DualPolish, kkt_residual, polish_duals, row_units


def _copies(c: Cone) -> Cone:
    """The cone whose copies are kept or dropped whole: a separable cone (zero, nonneg) row by row, any other cone
    copy by copy."""
    return Cone(c.kind, 1, c.rows, c.alpha) if c.separable else c


def _active_rows(problem, s, thr) -> np.ndarray:
    """Boolean mask of rows whose multiplier may be nonzero: a whole copy of a cone (a row of a separable one) is
    active when s is within thr of its boundary (`Cone.margin`; the zero cone's margin is never positive)."""
    act = np.zeros(problem.m, bool)
    for blk in problem.blocks:
        one = _copies(blk.cone)
        if one.rows == 0:
            continue
        inner = one.margin(s[blk.start:blk.stop].reshape(one.count, one.dim))
        act[blk.start:blk.stop] = np.repeat(inner <= thr, one.dim)
    return act


def recover(problem, x, *, polish: bool = True, thresholds=(1e-7, 1e-5, 1e-3, 1e-1),
            weight: float = 1e-4):
    """Duals for the primal point x, polished: a `certiprog.certify.polish.DualPolish` (``.z`` the dual,
    in K*; ``.approximate`` and ``.reason`` whether it is a KKT dual to rounding; ``.residual_before`` /
    ``.residual_after`` the KKT residuals of the recovered and the returned pair). polish=False: the least-squares
    recovery alone (judged by the same rule: approximate unless its KKT residual is below rounding level)."""
    t0 = time.perf_counter()
    if polish:  # first Newton's method on the active set read from x's slacks: no least squares when it succeeds
        x = np.asarray(x, float).reshape(-1)
        if x.shape != (problem.n,) or not np.all(np.isfinite(x)):
            raise InputError(f"recover_duals needs a finite x with {problem.n} entries")
        out = polish_duals(problem, x)
        if out.polished and not out.approximate:
            out.seconds = time.perf_counter() - t0
            return out
    z = _least_squares_duals(problem, x, thresholds, weight)
    x = np.asarray(x, float).reshape(-1)
    if polish:
        out = polish_duals(problem, x, z)
    else:
        r = kkt_residual(problem, x, z)
        out = DualPolish(z, x, r, r, np.nan, False, not r <= EXACT_RESIDUAL, "not polished (polish=False)")
    out.seconds = time.perf_counter() - t0
    return out


def recovery_note(rec) -> str:
    """One sentence for a certificate or a Solution's info: what the polish did, and whether the dual is
    approximate (then the values read from it may be off; the optimality interval stays rigorous)."""
    if rec.approximate:
        return (f"APPROXIMATE duals ({rec.reason}; KKT residual {rec.residual_after:.2e}): dual values read from them "
                "may be off, while the optimality interval stays rigorous (its lower end is proved for any dual)")
    return f"a KKT dual to rounding ({rec.reason})"


def recover_duals(problem, x, thresholds=(1e-7, 1e-5, 1e-3, 1e-1), weight: float = 1e-4, *,
                  polish: bool = True) -> np.ndarray:
    """Duals z (length m, in K*) for the primal point x; see the module docstring and `recover`."""
    return recover(problem, x, polish=polish, thresholds=thresholds, weight=weight).z


def _least_squares_duals(problem, x, thresholds, weight) -> np.ndarray:
    """The least-squares recovery of the module docstring (before the polish)."""
    x = np.asarray(x, float).reshape(-1)
    if x.shape != (problem.n,) or not np.all(np.isfinite(x)):
        raise InputError(f"recover_duals needs a finite x with {problem.n} entries")
    from types import SimpleNamespace

    g = problem.P @ x + problem.q
    gn = float(np.linalg.norm(g))
    if gn == 0.0 or problem.m == 0:  # z = 0 is stationary
        return np.zeros(problem.m)
    # unit-free data: each row (each cone: its rows together) divided by its slack's unit, the gradient by its
    # norm, so that thresholds and solver tolerances mean the same on data scaled by 1e8 or 1e-8; z = D z~ ||g||
    unit = row_units(problem, x)
    unit = np.where(unit > 0, unit, 1.0)
    scaled = SimpleNamespace(A=sp.diags(1.0 / unit) @ sp.csr_matrix(problem.A), b=problem.b / unit,
                             blocks=problem.blocks, cones=problem.cones, m=problem.m, n=problem.n)
    s = scaled.b - scaled.A @ x
    g = g / gn
    lp = all(c.separable for c in problem.cones)
    best, best_res = np.zeros(problem.m), np.inf
    for t in thresholds:
        act = _active_rows(scaled, s, t)
        if lp:
            z = _solve_lp(scaled, act, g)
        else:
            z = _solve_conic(scaled, act, g, s, weight / (1.0 + np.linalg.norm(s)))
        res = float(np.linalg.norm(g + scaled.A.T @ z))
        if res < best_res:
            best, best_res = z, res
        if res <= 2e-9:
            break
    return best / unit * gn


def _solve_lp(problem, act, g) -> np.ndarray:
    from scipy.optimize import lsq_linear

    z = np.zeros(problem.m)
    idx = np.flatnonzero(act)
    if idx.size == 0:
        return z
    # each row's dual cone (the rows are 1-D cones): R (the zero cone's) where it holds -1, else z >= 0
    free = np.zeros(problem.m, bool)
    for blk in problem.blocks:
        free[blk.start:blk.stop] = blk.cone.project_dual(-np.ones(blk.cone.rows)) == -1.0
    lb = np.where(free[idx], -np.inf, 0.0)
    M = sp.csr_matrix(problem.A)[idx].T
    dense = M.shape[0] * M.shape[1] <= 4_000_000
    res = lsq_linear(M.toarray() if dense else M, -g, bounds=(lb, np.full(idx.size, np.inf)),
                     method="bvls" if dense else "trf", tol=1e-14, lsmr_tol="auto" if not dense else None)
    z[idx] = np.maximum(res.x, lb)
    return z


def _solve_conic(problem, act, g, s, weight) -> np.ndarray:
    """min ||A_a'z + g|| + w <Pi_K(s), z> over z in K* (inactive blocks fixed at 0), by the registered conic solver
    (`certiprog.certify.interior.solve_conic`: Clarabel's) at tolerance 1e-11; z = 0 when none is registered.

    The norm (an SOC epigraph), not its square, is minimised so that the solver's tolerance applies to the residual
    itself. Each kept copy's dual constraint ``z in K*`` is written in K itself: ``scale * z[perm] in K``
    (`Cone.dual_as_primal`); zero-cone duals are free."""
    m, n = problem.m, problem.n
    keep = np.flatnonzero(act)
    if keep.size == 0:
        return np.zeros(m)
    k = keep.size
    M = sp.csr_matrix(problem.A)[keep].T  # n x k
    s_proj = np.concatenate([project(blk.cone, s[blk.start:blk.stop]) for blk in problem.blocks])
    pos = np.full(m, -1)
    pos[keep] = np.arange(k)
    ix: list[np.ndarray] = []  # per kept copy: its rows among the kept ones, in the dual-as-primal order
    scale: list[np.ndarray] = []
    cones: list[Cone] = []
    for blk in problem.blocks:
        one = _copies(blk.cone)
        as_primal = one.dual_as_primal() if one.rows else None
        if as_primal is None:  # the zero cone: free duals
            continue
        perm, sc = as_primal
        unit = one.with_count(1)
        for q in range(one.count):  # kept or dropped whole, copy by copy (`_active_rows`)
            sub = pos[blk.start + q * one.dim: blk.start + (q + 1) * one.dim]
            if sub[0] < 0:
                continue
            ix.append(sub[perm])
            scale.append(sc)
            if cones and cones[-1].with_count(1) == unit:
                cones[-1] = unit.with_count(cones[-1].count + 1)
            else:
                cones.append(unit)
    # variables (z_keep, t); first the SOC (t, M z + g), then the dual-cone rows -D z in K
    G_soc = sp.vstack([sp.hstack([sp.csr_matrix((1, k)), -sp.eye(1)]), sp.hstack([-M, sp.csr_matrix((n, 1))])])
    h_soc = np.concatenate([[0.0], g])
    rows_ix = np.concatenate(ix) if ix else np.zeros(0, int)
    G_dual = sp.csr_matrix((-np.concatenate(scale) if scale else np.zeros(0),
                            (np.arange(rows_ix.size), rows_ix)), shape=(rows_ix.size, k + 1))
    G = sp.csc_matrix(sp.vstack([G_soc, G_dual]))
    h = np.concatenate([h_soc, np.zeros(rows_ix.size)])
    cost = np.concatenate([weight * s_proj[keep], [1.0]])
    sol = solve_conic(sp.csc_matrix((k + 1, k + 1)), cost, G, h, [Cone("soc", n + 1)] + cones, tol=1e-11)
    z = np.zeros(m)
    if sol is None:
        return z
    z[keep] = np.asarray(sol, float)[:k]
    for blk in problem.blocks:  # exact projection onto K*
        r = slice(blk.start, blk.stop)
        z[r] = project(blk.cone, z[r], dual=True)
    return z
