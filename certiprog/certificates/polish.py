"""Newton polish of a recovered dual on the active set (duals of solvers that return none).

A dual recovered from a primal point x0 (`certiprog.certificates.recovery`) inherits x0's error: stationarity
``P x + q + A'z = 0`` is solved at x0, so a 1e-6 error in x0 becomes an error of the same order times the
problem's conditioning in z. The polish removes it by solving the KKT system of the problem restricted to the
constraints that are active at the pair (x0, z0), in x and z jointly (Newton's method, as in the active-set
polish of OSQP and the solution refinement of Busseti, Moursi and Boyd, 2019, written here for this module's
cones)::

    P x + q + A_E'y + sum_k lambda_k A_k' g_k(s_k) = 0     (stationarity)
    b_E - A_E x = 0                                      (equalities, active nonneg rows, cones at their apex)
    f_k(s_k) = 0,  s_k = b_k - A_k x                     (cones active on their smooth boundary)

with ``f_k`` a degree-1 homogeneous function that is >= 0 exactly on the cone near s_k and ``g_k = grad f_k``:
on the smooth boundary the normal cone of K at s_k is the ray of -g_k, so the complementary duals are
``z_k = lambda_k g_k``, lambda_k >= 0, on the boundary of K* (checked below for each kind):

* soc: ``f = s_0 - ||s_1:||``, ``g = (1, -u)``, u = s_1: / ||s_1:|| (the reflection of s, in K*);
* exp (x, y, z), y, z > 0: ``f = y log(z / y) - x``, ``g = (-1, log(z / y) - 1, y / z)``; with
  u = -lambda, v = lambda (log(z/y) - 1), w = lambda y / z: ``-u exp(v / u) = lambda e y / z = e w`` (boundary of
  K_exp*);
* pow / pownd (u in R^n_+, w), u > 0, w != 0: ``f = prod u_i^a_i - sigma w`` (sigma = sign w), ``g = (a_i p / u_i,
  -sigma)`` with p = prod u_i^a_i: ``prod (g_i / a_i)^a_i = p / prod u_i^a_i = 1 = |g_w|`` (boundary of K*).

Blocks whose dual is ~0 are inactive (z = 0); a cone whose slack is ~0 is at its apex (all its rows are
equalities, its dual free, then checked in K*). A cone active at a non-smooth point (an exp or power cone's edge,
a PSD block) is not polished: the result is then flagged approximate.

The Newton iterations run on the merit ``||F||`` (stationarity divided by the gradient's scale, the rest by the
constraints' scale) with backtracking, Gauss-Newton least-squares steps (minimum norm: degenerate, non-unique duals
are fine). Then signs are checked (y >= 0 on nonneg rows, lambda >= 0, apex duals in K*) and inactive constraints
must hold at the polished x; a wrong guess moves the offending rows across and the polish runs again (3 rounds).
The polished dual is projected onto K* (membership exact up to rounding) and kept only if its KKT residual
(`kkt_residual`, the natural residual of the pair) is no larger than the recovered one's.

The dual is called approximate (`DualPolish.approximate`, with a reason) unless the polished pair is a KKT point
to rounding: natural residual <= `EXACT_RESIDUAL` and the last Newton step moved z by at most `EXACT_STEP`
relative to ||z|| (near a regular solution Newton's step is the a-posteriori estimate of the distance to it).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import InputError
from ..model.cones import Cone, project

#: the polished pair counts as a KKT point (its dual exact to rounding) below this natural residual ...
EXACT_RESIDUAL = 1e-9
#: ... and when the last Newton step moved z by at most this much relative to ||z||_inf
EXACT_STEP = 1e-7
#: systems up to this many unknowns are solved densely (SVD least squares); larger ones with sparse LU / LSMR
DENSE_LIMIT = 1500
SMOOTH_KINDS = ("soc", "exp", "pow", "pownd")


@dataclass
class DualPolish:
    """Outcome of `polish_duals`: the dual to use and how far it can be trusted."""

    z: np.ndarray  # the dual (in K*): polished, or the input when the polish could not improve it
    x: np.ndarray  # the primal point of the polished KKT pair (the input x when not polished)
    residual_before: float  # kkt_residual of the input pair
    residual_after: float  # kkt_residual of the returned pair (x, z)
    step: float  # the last Newton step's change in z relative to ||z||_inf (nan when not polished)
    polished: bool  # z comes from the Newton polish
    approximate: bool  # not proved to be a KKT dual to rounding (see the module docstring)
    reason: str  # why approximate, or what the polish did
    iterations: int = 0
    seconds: float = 0.0


# --------------------------------------------------------------------------- residual
def _scales(problem, x, z):
    """(gradient scale, constraint scale) of the pair: the magnitudes the two residual parts are made of."""
    P, A = problem.P, problem.A
    ax = np.abs(x)
    grad = np.linalg.norm(abs(P) @ ax + np.abs(problem.q) + abs(A).T @ np.abs(z))
    cons = np.linalg.norm(problem.b) + np.linalg.norm(abs(A) @ ax) + np.linalg.norm(z)
    tiny = np.finfo(float).tiny
    return max(float(grad), tiny), max(float(cons), tiny)


def kkt_residual(problem, x, z) -> float:
    """The natural KKT residual of the pair (x, z), relative: max of

    ``||P x + q + A'z|| / || |P||x| + |q| + |A'||z| ||`` (stationarity) and
    ``||s - Pi_K(s - z)|| / (||b|| + || |A||x| || + ||z||)`` with s = b - A x,

    the second zero exactly when s in K, z in K* and <s, z> = 0 (Moreau's decomposition of s - z), so the
    residual is zero exactly at a KKT pair and measures primal, dual-cone and complementarity errors at once."""
    x = np.asarray(x, float).reshape(-1)
    z = np.asarray(z, float).reshape(-1)
    if x.shape != (problem.n,) or z.shape != (problem.m,):
        raise InputError(f"kkt_residual needs x with {problem.n} and z with {problem.m} entries; "
                         f"got {x.size} and {z.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(z))):
        return np.inf
    s = problem.b - problem.A @ x
    stat = problem.P @ x + problem.q + problem.A.T @ z
    v = s - z
    nat = np.empty(problem.m)
    for blk in problem.blocks:
        r = slice(blk.start, blk.stop)
        nat[r] = s[r] - project(blk.cone, v[r])
    gs, cs = _scales(problem, x, z)
    return float(max(np.linalg.norm(stat) / gs, np.linalg.norm(nat) / cs))


# --------------------------------------------------------------------------- cone pieces
def _smooth_here(kind: str, p: np.ndarray) -> bool:
    """Is the slack p of one cone in the region where its f (module docstring) is smooth?"""
    if kind == "soc":
        return p[0] > 0 and np.linalg.norm(p[1:]) > 1e-12 * p[0]
    if kind == "exp":
        return p[1] > 0 and p[2] > 0
    return bool(np.all(p[:-1] > 0) and p[-1] != 0)  # pow, pownd


def _f_grad_hess(kind: str, a, p: np.ndarray, sigma: float):
    """f, grad f, Hessian of f at the slack p of one cone (see the module docstring)."""
    d = p.size
    if kind == "soc":
        t, u = p[0], p[1:]
        nu = np.linalg.norm(u)
        e = u / nu
        g = np.concatenate([[1.0], -e])
        H = np.zeros((d, d))
        H[1:, 1:] = -(np.eye(d - 1) - np.outer(e, e)) / nu
        return t - nu, g, H
    if kind == "exp":
        x, y, z = p
        lz = np.log(z / y)
        g = np.array([-1.0, lz - 1.0, y / z])
        H = np.array([[0.0, 0.0, 0.0], [0.0, -1.0 / y, 1.0 / z], [0.0, 1.0 / z, -y / (z * z)]])
        return y * lz - x, g, H
    a = np.asarray(a, float)  # pow, pownd
    u = p[:-1]
    pr = float(np.exp(np.log(u) @ a))
    gu = a * pr / u
    H = np.zeros((d, d))
    H[:-1, :-1] = pr * (np.outer(a / u, a / u) - np.diag(a / (u * u)))
    return pr - sigma * p[-1], np.concatenate([gu, [-sigma]]), H


# --------------------------------------------------------------------------- active set
@dataclass
class _Active:
    eq: np.ndarray  # rows with a free multiplier and s = 0 (zero rows, active nonneg rows, apex cones)
    signed: np.ndarray  # the subset of eq that are nonneg rows (multiplier >= 0)
    apex: list  # (cone, start) of cones at their apex (rows in eq; dual checked in K*)
    smooth: list  # (kind, weights, start, dim, sigma) of cones active on their smooth boundary
    off: list  # (cone, start) of inactive cones (their slack must stay in K)
    offrows: np.ndarray  # inactive nonneg rows


def _classify(problem, x, z, force_on=(), force_off=()):
    """The active set of the pair (x, z), or a string saying why it cannot be polished."""
    s = problem.b - problem.A @ x
    absA = abs(problem.A)
    rowscale = np.abs(problem.b) + absA @ np.abs(x)
    zmax = float(np.max(np.abs(z), initial=0.0))
    zrel = np.abs(z) / zmax if zmax > 0 else np.zeros_like(z)
    eq, signed, offrows, apex, smooth, off = [], [], [], [], [], []
    for blk in problem.blocks:
        c = blk.cone
        if c.kind == "zero":
            eq.append(np.arange(blk.start, blk.stop))
            continue
        if c.kind == "nonneg":
            r = np.arange(blk.start, blk.stop)
            with np.errstate(invalid="ignore", divide="ignore"):
                srel = np.where(rowscale[r] > 0, s[r] / np.where(rowscale[r] > 0, rowscale[r], 1.0), 0.0)
            on = zrel[r] > srel
            on[np.isin(r, list(force_on))] = True
            on[np.isin(r, list(force_off))] = False
            eq.append(r[on]), signed.append(r[on]), offrows.append(r[~on])
            continue
        one = Cone(c.kind, c.dim, 1, c.alpha)  # a single copy: projections act on one cone's rows
        for k in range(c.count):
            st = blk.start + k * c.dim
            r = slice(st, st + c.dim)
            sc = float(np.linalg.norm(rowscale[r]))
            s_rel = np.linalg.norm(s[r]) / sc if sc > 0 else 0.0
            z_rel = float(np.linalg.norm(zrel[r]))
            if st in force_off or (st not in force_on and z_rel <= s_rel and z_rel <= 1e-6):
                off.append((one, st))
            elif s_rel <= 1e-9 and s_rel < z_rel:
                apex.append((one, st))
                eq.append(np.arange(st, st + c.dim))
            elif c.kind in SMOOTH_KINDS and _smooth_here(c.kind, s[r]):
                sigma = float(np.sign(s[r][-1])) if c.kind in ("pow", "pownd") else 0.0
                w = c.weights if c.kind in ("pow", "pownd") else None
                smooth.append((c.kind, w, st, c.dim, sigma))
            else:
                return f"a {c.kind} cone (rows {st}-{st + c.dim - 1}) is active at a non-smooth point of its boundary"
    cat = lambda parts: np.concatenate(parts).astype(int) if parts else np.zeros(0, int)  # noqa: E731
    return _Active(cat(eq), cat(signed), apex, smooth, off, cat(offrows))


# --------------------------------------------------------------------------- Newton on the active set
class _System:
    """The active-set KKT map F(x, y, lambda) and its Jacobian (module docstring)."""

    def __init__(self, problem, act: _Active, gs: float, cs: float):
        self.p, self.act, self.gs, self.cs = problem, act, gs, cs
        A = sp.csr_matrix(problem.A)
        self.AE = A[act.eq]
        self.Srows = np.concatenate([np.arange(st, st + d) for _, _, st, d, _ in act.smooth]).astype(int) \
            if act.smooth else np.zeros(0, int)
        self.AS = A[self.Srows]
        self.n, self.ne, self.nk = problem.n, act.eq.size, len(act.smooth)

    def _cones(self, x):
        sS = self.p.b[self.Srows] - self.AS @ x
        f, G, H, off = np.zeros(self.nk), [], [], 0
        for i, (kind, w, _, d, sigma) in enumerate(self.act.smooth):
            p = sS[off:off + d]
            if not _smooth_here(kind, p):
                return None
            f[i], g, h = _f_grad_hess(kind, w, p, sigma)
            G.append(g), H.append(h)
            off += d
        return f, G, H

    def residual(self, u):
        """The scaled F at u = (x, y, lambda), or None outside the cones' smooth regions."""
        x, y, lam = u[:self.n], u[self.n:self.n + self.ne], u[self.n + self.ne:]
        cones = self._cones(x)
        if cones is None:
            return None
        f, G, _ = cones
        zS = np.concatenate([lk * g for lk, g in zip(lam, G)]) if self.nk else np.zeros(0)
        F1 = self.p.P @ x + self.p.q + self.AE.T @ y + self.AS.T @ zS
        F2 = self.p.b[self.act.eq] - self.AE @ x
        return np.concatenate([F1 / self.gs, F2 / self.cs, f / self.cs])

    def jacobian(self, u):
        x, lam = u[:self.n], u[self.n + self.ne:]
        f, G, H = self._cones(x)
        P = sp.csr_matrix(self.p.P)
        if self.nk:
            Hl = sp.block_diag([lk * h for lk, h in zip(lam, H)], format="csr")
            Gm = sp.block_diag([g.reshape(-1, 1) for g in G], format="csr")
            J11 = P - self.AS.T @ Hl @ self.AS
            J13 = self.AS.T @ Gm
            J31 = -(Gm.T @ self.AS)
        else:
            J11, J13, J31 = P, sp.csr_matrix((self.n, 0)), sp.csr_matrix((0, self.n))
        J = sp.bmat([[J11 / self.gs, self.AE.T / self.gs, J13 / self.gs],
                     [-self.AE / self.cs, None, None],
                     [J31 / self.cs, None, None]], format="csc")
        return J

    def dual(self, u):
        """The full z (length m) of u: y on eq rows, lambda_k g_k on smooth cones, 0 elsewhere."""
        x, y, lam = u[:self.n], u[self.n:self.n + self.ne], u[self.n + self.ne:]
        z = np.zeros(self.p.m)
        z[self.act.eq] = y
        if self.nk:
            _, G, _ = self._cones(x)
            z[self.Srows] = np.concatenate([lk * g for lk, g in zip(lam, G)])
        return z


def _solve(J, rhs):
    """A least-squares solution of J d = rhs (minimum norm when J is small and dense)."""
    N = J.shape[1]
    if max(J.shape) <= DENSE_LIMIT:
        return np.linalg.lstsq(J.toarray(), rhs, rcond=None)[0]
    if J.shape[0] == N:
        try:
            d = spla.splu(sp.csc_matrix(J)).solve(rhs)
            if np.all(np.isfinite(d)):
                return d
        except RuntimeError:  # exactly singular: least squares below
            pass
    return spla.lsmr(J, rhs, atol=1e-15, btol=1e-15, maxiter=10 * N)[0]


def _newton(sysm: _System, u, max_iter: int = 20):
    """Damped Gauss-Newton on ||F||; returns (u, ||F||, error estimate, iterations).

    The error estimate is the size of the Newton step computed at the returned u (its change in z relative to
    ||z||_inf): near a regular solution Newton's step estimates the distance to it."""
    F = sysm.residual(u)
    if F is None:
        return u, np.inf, np.inf, 0
    phi = float(np.linalg.norm(F))
    zscale = max(float(np.max(np.abs(sysm.dual(u)), initial=0.0)), np.finfo(float).tiny)
    estimate, it = np.inf, 0
    for it in range(max_iter + 1):
        d = _solve(sysm.jacobian(u), -F)
        if not np.all(np.isfinite(d)):
            estimate = np.inf
            break
        full = u + d
        estimate = float(np.max(np.abs(sysm.dual(full) - sysm.dual(u)), initial=0.0)) / zscale \
            if sysm.residual(full) is not None else np.inf
        if phi <= 1e-16 or estimate <= 1e-15 or it == max_iter:
            break
        t, accepted = 1.0, False
        for _ in range(30):
            trial = u + t * d
            Ft = sysm.residual(trial)
            if Ft is not None:
                pt = float(np.linalg.norm(Ft))
                if pt < phi:
                    accepted = True
                    break
            t *= 0.5
        if not accepted:  # u minimises ||F|| to rounding: the estimate above stands
            break
        u, F, phi = trial, Ft, pt
    return u, phi, estimate, it


def _into_dual_cone(cone, z):
    """z moved into K* of one block: the dual of a cone already (to rounding) on or inside the boundary of K*
    changes by rounding only (one coordinate clipped: soc's t, exp's w, a power cone's w), unlike the iterative
    projections (bisection), which move a boundary point by up to ~1e-9; PSD blocks are projected (eigh)."""
    kind = cone.kind
    if kind == "zero":
        return z
    if kind == "nonneg":
        return np.maximum(z, 0.0)
    Z = z.reshape(cone.count, cone.dim).copy()
    if kind == "soc":
        Z[:, 0] = np.maximum(Z[:, 0], np.linalg.norm(Z[:, 1:], axis=1))
    elif kind == "exp":  # K_exp* = {u < 0, -u exp(v / u) <= e w} u {u = 0, v, w >= 0}
        neg = Z[:, 0] < 0
        with np.errstate(over="ignore"):
            need = -Z[neg, 0] * np.exp(Z[neg, 1] / Z[neg, 0] - 1.0)
        Z[neg, 2] = np.maximum(Z[neg, 2], need)
        if not neg.all():
            Z[~neg] = project(Cone("exp", 3, int((~neg).sum())), Z[~neg].reshape(-1), dual=True).reshape(-1, 3)
    elif kind in ("pow", "pownd"):  # K* = {u >= 0, prod (u_i / a_i)^a_i >= |w|}
        a = np.asarray(cone.weights, float)
        Z[:, :-1] = np.maximum(Z[:, :-1], 0.0)
        with np.errstate(divide="ignore"):
            cap = np.exp(np.log(Z[:, :-1] / a) @ a)
        Z[:, -1] = np.clip(Z[:, -1], -cap, cap)
    else:
        return project(cone, z, dual=True)
    return Z.reshape(-1)


def _start(sysm: _System, x, z):
    """u0 = (x, z on eq rows, lambda_k = <z_k, g_k> / ||g_k||^2)."""
    lam = np.zeros(sysm.nk)
    cones = sysm._cones(x)
    if cones is not None:
        off = 0
        for i, g in enumerate(cones[1]):
            zk = z[sysm.Srows[off:off + g.size]]
            lam[i] = max(float(zk @ g) / float(g @ g), 0.0)
            off += g.size
    return np.concatenate([x, z[sysm.act.eq], lam])


def _violations(problem, act: _Active, x, z, ztol: float, stol: np.ndarray):
    """(rows / cone starts whose multiplier has the wrong sign, inactive ones that are violated at x)."""
    from ..model.cones import distance_to_cone

    wrong = [int(i) for i in act.signed if z[i] < -ztol]  # a cone's multiplier sign: checked in polish_duals
    s = problem.b - problem.A @ x
    violated = [int(i) for i in act.offrows if s[i] < -stol[i]]
    for c, st in act.off:
        if distance_to_cone(c, s[st:st + c.dim]) > np.linalg.norm(stol[st:st + c.dim]):
            violated.append(st)
    return wrong, violated


def polish_duals(problem, x, z, rounds: int = 3) -> DualPolish:
    """Polish the dual z recovered at x (module docstring); x itself is not changed for the caller."""
    t0 = time.perf_counter()
    x = np.asarray(x, float).reshape(-1)
    z = np.asarray(z, float).reshape(-1)
    if x.shape != (problem.n,) or z.shape != (problem.m,) or not (np.all(np.isfinite(x)) and np.all(np.isfinite(z))):
        raise InputError(f"polish_duals needs finite x with {problem.n} and z with {problem.m} entries")
    r0 = kkt_residual(problem, x, z)

    def done(zz, xx, r, step, polished, reason, its=0):
        approx = not (r <= EXACT_RESIDUAL and (step <= EXACT_STEP if polished else True))
        return DualPolish(zz, xx, r0, r, step, polished, approx, reason, its, time.perf_counter() - t0)

    if problem.m == 0:
        return done(z, x, r0, 0.0, False, "no constraints")
    if r0 == 0.0:
        return done(z, x, r0, 0.0, False, "the recovered pair is a KKT point")
    gs, cs = _scales(problem, x, z)
    rowscale = np.abs(problem.b) + abs(problem.A) @ np.abs(x)
    force_on, force_off, iters = set(), set(), 0
    why = "not polished"
    for _ in range(rounds):
        act = _classify(problem, x, z, force_on, force_off)
        if isinstance(act, str):
            why = act
            break
        sysm = _System(problem, act, gs, cs)
        u, phi, step, it = _newton(sysm, _start(sysm, x, z))
        iters += it
        if not np.isfinite(phi):
            why = "the Newton polish left the cones' smooth region"
            break
        xp, zp = u[:problem.n], sysm.dual(u)
        lam = u[problem.n + sysm.ne:]
        zmax = max(float(np.max(np.abs(zp), initial=0.0)), np.finfo(float).tiny)
        wrong, violated = _violations(problem, act, xp, zp, 1e-9 * zmax, 1e-9 * np.maximum(rowscale, cs / max(1, problem.m)))
        wrong += [st for (_, _, st, _, _), lk in zip(act.smooth, lam) if lk < -1e-9 * zmax]
        bad_apex = [st for c, st in act.apex
                    if np.linalg.norm(zp[st:st + c.dim] - project(c, zp[st:st + c.dim], dual=True)) > 1e-9 * zmax]
        if bad_apex:
            why = "a cone at its apex gets a dual outside the dual cone (the active set is not identified)"
            break
        if wrong or violated:
            force_off |= set(wrong)
            force_on |= set(violated)
            force_off -= set(violated)
            why = "the active set changed in every round"
            continue
        for blk in problem.blocks:  # membership in K* up to rounding
            r = slice(blk.start, blk.stop)
            zp[r] = _into_dual_cone(blk.cone, zp[r])
        r1 = kkt_residual(problem, xp, zp)
        if r1 <= r0:
            return done(zp, xp, r1, step, True, f"Newton polish on the active set: KKT residual {r0:.2e} -> "
                        f"{r1:.2e}, estimated error {step:.1e} of ||z||", iters)
        why = f"the polish did not lower the KKT residual ({r0:.2e} -> {r1:.2e})"
        break
    return done(z, x, r0, np.nan, False, why, iters)
