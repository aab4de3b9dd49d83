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

from ..conic.cones import project, smat
from ..errors import InputError
from .polish import EXACT_RESIDUAL, DualPolish, kkt_residual, polish_duals, row_units


def _active_rows(problem, s, thr) -> np.ndarray:
    """Boolean mask of rows whose multiplier may be nonzero."""
    act = np.zeros(problem.m, bool)
    for blk in problem.blocks:
        r = slice(blk.start, blk.stop)
        c = blk.cone
        if c.kind == "zero":
            act[r] = True
        elif c.kind == "nonneg":
            act[r] = s[r] <= thr
        else:  # a whole cone is active when s is near its boundary
            d = s[r].reshape(c.count, c.dim)
            for k, p in enumerate(d):
                inner = _interior_margin(c, p)
                act[blk.start + k * c.dim: blk.start + (k + 1) * c.dim] = inner <= thr
    return act


def _interior_margin(cone, p) -> float:
    if cone.kind == "soc":
        return float(p[0] - np.linalg.norm(p[1:]))
    if cone.kind == "psd":
        return float(np.linalg.eigvalsh(smat(p, cone.side))[0])
    if cone.kind in ("pow", "pownd"):
        a = np.array(cone.weights)
        if np.any(p[:-1] <= 0):
            return 0.0
        return float(np.exp(np.log(p[:-1]) @ a) - abs(p[-1]))
    if cone.kind == "exp":
        if p[1] <= 0:
            return 0.0
        with np.errstate(over="ignore"):
            return float(p[2] - p[1] * np.exp(p[0] / p[1]))
    return 0.0


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
    lp = all(c.kind in ("zero", "nonneg") for c in problem.cones)
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
    lb = np.zeros(idx.size)
    eq = np.zeros(problem.m, bool)
    for blk in problem.blocks:
        if blk.cone.kind == "zero":
            eq[blk.start:blk.stop] = True
    lb[eq[idx]] = -np.inf
    M = sp.csr_matrix(problem.A)[idx].T
    dense = M.shape[0] * M.shape[1] <= 4_000_000
    res = lsq_linear(M.toarray() if dense else M, -g, bounds=(lb, np.full(idx.size, np.inf)),
                     method="bvls" if dense else "trf", tol=1e-14, lsmr_tol="auto" if not dense else None)
    z[idx] = np.maximum(res.x, lb)
    return z


def _solve_conic(problem, act, g, s, weight) -> np.ndarray:
    """Clarabel: min ||A_a'z + g|| + w <Pi_K(s), z> over z in K* (inactive blocks fixed at 0).

    The norm (an SOC epigraph), not its square, is minimised so that the solver's tolerance applies to
    the residual itself."""
    import clarabel

    m, n = problem.m, problem.n
    keep = np.flatnonzero(act)
    if keep.size == 0:
        return np.zeros(m)
    k = keep.size
    M = sp.csr_matrix(problem.A)[keep].T  # n x k
    s_proj = np.concatenate([project(blk.cone, s[blk.start:blk.stop]) for blk in problem.blocks])
    pos = {int(j): i for i, j in enumerate(keep)}
    rows, cones = [], []
    for blk in problem.blocks:
        c = blk.cone
        if c.kind == "zero":
            continue
        if c.kind == "nonneg":
            idx = [pos[j] for j in range(blk.start, blk.stop) if j in pos]
            if idx:
                rows.append((idx, np.ones(len(idx))))
                cones.append(clarabel.NonnegativeConeT(len(idx)))
            continue
        for q in range(c.count):  # conic blocks are kept or dropped whole, cone by cone
            sub = [pos[j] for j in range(blk.start + q * c.dim, blk.start + (q + 1) * c.dim) if j in pos]
            if not sub:
                continue
            if c.kind == "soc":
                rows.append((sub, np.ones(c.dim)))
                cones.append(clarabel.SecondOrderConeT(c.dim))
            elif c.kind == "psd":
                rows.append((sub, np.ones(c.dim)))
                cones.append(clarabel.PSDTriangleConeT(c.side))
            elif c.kind == "pow":  # (u, v, w) in K*_a  <=>  (u/a, v/(1-a), w) in K_a
                a = c.alpha
                rows.append((sub, np.array([1 / a, 1 / (1 - a), 1.0])))
                cones.append(clarabel.PowerConeT(a))
            elif c.kind == "pownd":  # (u, w) in K*  <=>  (u_i / a_i, w) in K
                a = np.asarray(c.alpha)
                rows.append((sub, np.r_[1 / a, 1.0]))
                cones.append(clarabel.GenPowerConeT(list(a), 1))
            elif c.kind == "exp":  # (u, v, w) in K_exp*  <=>  (-v, -u, e w) in K_exp
                rows.append(([sub[1], sub[0], sub[2]], np.array([-1.0, -1.0, np.e])))
                cones.append(clarabel.ExponentialConeT())
    # variables (z_keep, t); first the SOC (t, M z + g), then the dual-cone rows -D z in K
    G_soc = sp.vstack([sp.hstack([sp.csr_matrix((1, k)), -sp.eye(1)]), sp.hstack([-M, sp.csr_matrix((n, 1))])])
    h_soc = np.concatenate([[0.0], g])
    blocks, hs = [G_soc], [h_soc]
    for ix, w in rows:
        blocks.append(sp.csr_matrix((-w, (np.arange(len(ix)), ix)), shape=(len(ix), k + 1)))
        hs.append(np.zeros(len(ix)))
    G = sp.csc_matrix(sp.vstack(blocks))
    h = np.concatenate(hs)
    cost = np.concatenate([weight * s_proj[keep], [1.0]])
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = st.tol_gap_rel = st.tol_feas = 1e-11
    res = clarabel.DefaultSolver(sp.csc_matrix((k + 1, k + 1)), cost, G, h,
                                 [clarabel.SecondOrderConeT(n + 1)] + cones, st).solve()
    z = np.zeros(m)
    z[keep] = np.array(res.x)[:k]
    for blk in problem.blocks:  # exact projection onto K*
        r = slice(blk.start, blk.stop)
        z[r] = project(blk.cone, z[r], dual=True)
    return z
