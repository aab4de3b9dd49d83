"""Newton polish of a recovered dual on the active set (duals of solvers that return none).

A dual recovered from a primal point x0 (`certiprog.certify.recovery`) inherits x0's error: stationarity
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
``z_k = lambda_k g_k``, lambda_k >= 0, on the boundary of K* (each cone's `Cone.boundary`; its Hessian
diag(D) + c V V'):

* soc: ``f = s_0 - ||s_1:||``, ``g = (1, -u)``, u = s_1: / ||s_1:|| (the reflection of s, in K*);
* exp (x, y, z), y, z > 0: ``f = y log(z / y) - x``, ``g = (-1, log(z / y) - 1, y / z)``; with
  u = -lambda, v = lambda (log(z/y) - 1), w = lambda y / z: ``-u exp(v / u) = lambda e y / z = e w`` (boundary of
  K_exp*);
* pow / pownd (u in R^n_+, w), u > 0, w != 0: ``f = prod u_i^a_i - sigma w`` (sigma = sign w), ``g = (a_i p / u_i,
  -sigma)`` with p = prod u_i^a_i: ``prod (g_i / a_i)^a_i = p / prod u_i^a_i = 1 = |g_w|`` (boundary of K*).

The active set comes from the pair: a row or cone whose dual (times its row's unit, `row_units`) exceeds its
slack (over the unit) is active, blocks whose dual is ~0 are inactive (z = 0), and a cone whose slack is ~0 is at
its apex (all its rows are equalities, its dual free, then checked in K*). Without a dual (``z=None``, what
`certiprog.certify.recovery.recover` tries first) it comes from the slacks alone: within `SLACK_ACTIVE` of
the boundary is active, and the multipliers start at 0; a point with more active constraints than variables
(primal degenerate) is left to the least-squares recovery. A cone active at a non-smooth point (an exp or power
cone's edge, a PSD block) is not polished: the result is then flagged approximate.

The Newton iterations run on the merit ``||F||`` (stationarity divided by the gradient's scale, each constraint
row by its unit, so that rescaled rows and objectives change nothing) with backtracking and Gauss-Newton
least-squares steps on equilibrated columns (minimum norm when the system is small and dense: degenerate,
non-unique duals are fine; sparse LU, else LSMR, when large). Then signs are checked (y >= 0 on nonneg rows,
lambda >= 0, apex duals in K*) and inactive constraints must hold at the polished x; a wrong guess moves the
offending rows across and the polish runs again (3 rounds).
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

from ..conic.cones import Cone, project
from ..errors import InputError

#: the polished pair counts as a KKT point (its dual exact to rounding) below this natural residual ...
EXACT_RESIDUAL = 1e-9
#: ... and when the last Newton step moved z by at most this much relative to ||z||_inf
EXACT_STEP = 1e-7
#: identifying the active set from a primal point alone: a row or cone whose slack is within this of its
#: boundary, relative to its unit (`row_units`), is taken as active (a wrong guess is corrected by the sign checks)
SLACK_ACTIVE = 1e-5
#: systems up to this many unknowns are solved densely (SVD least squares); larger ones with sparse LU / LSMR
DENSE_LIMIT = 500


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
    """(gradient scale, constraint scale) of the pair: the magnitudes the stationarity terms and the slacks are
    made of (each in its own units: the objective's gradient, the constraints' values)."""
    P, A = problem.P, problem.A
    ax = np.abs(x)
    grad = np.linalg.norm(abs(P) @ ax + np.abs(problem.q) + abs(A).T @ np.abs(z))
    cons = np.linalg.norm(problem.b) + np.linalg.norm(abs(A) @ ax)
    tiny = np.finfo(float).tiny
    return max(float(grad), tiny), max(float(cons), tiny)


def row_units(problem, x) -> np.ndarray:
    """The size each row's slack is made of, ``|b_i| + |A_i||x|``, shared by the rows of one cone (their norm):
    dividing a row's slack by it, and multiplying its dual by it, gives numbers that do not change when the row
    is rescaled (a scaled row keeps s_i z_i); a cone's rows share one unit so that the scaled block stays in K."""
    rho = np.abs(problem.b) + abs(problem.A) @ np.abs(x)
    for blk in problem.blocks:
        c = blk.cone
        if c.separable or c.rows == 0:
            continue
        R = rho[blk.start:blk.stop].reshape(c.count, c.dim)
        rho[blk.start:blk.stop] = np.repeat(np.linalg.norm(R, axis=1), c.dim)
    return rho


def kkt_residual(problem, x, z) -> float:
    """The natural KKT residual of the pair (x, z), relative: max of

    ``||P x + q + A'z|| / || |P||x| + |q| + |A'||z| ||`` (stationarity) and
    ``||s' - Pi_K(s' - z')||`` with s' = (b - A x) / rho and z' = rho z / ||rho z|| (rho = `row_units`),

    the second zero exactly when s in K, z in K* and <s, z> = 0 (Moreau's decomposition of s' - z': rho is
    positive and shared within a cone, so s' in K iff s in K and z' in K* iff z in K*), so the residual is zero
    exactly at a KKT pair and measures primal, dual-cone and complementarity errors at once, unchanged when the
    objective, a constraint row or the whole problem is rescaled."""
    x = np.asarray(x, float).reshape(-1)
    z = np.asarray(z, float).reshape(-1)
    if x.shape != (problem.n,) or z.shape != (problem.m,):
        raise InputError(f"kkt_residual needs x with {problem.n} and z with {problem.m} entries; "
                         f"got {x.size} and {z.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(z))):
        return np.inf
    gs, _ = _scales(problem, x, z)
    rho = row_units(problem, x)
    on = rho > 0
    s = np.where(on, (problem.b - problem.A @ x) / np.where(on, rho, 1.0), 0.0)
    zr = z * rho
    zn = float(np.linalg.norm(zr))
    stat = problem.P @ x + problem.q + problem.A.T @ z
    v = s - (zr / zn if zn > 0 else zr)
    nat = np.empty(problem.m)
    for blk in problem.blocks:
        r = slice(blk.start, blk.stop)
        nat[r] = s[r] - project(blk.cone, v[r])
    return float(max(np.linalg.norm(stat) / gs, np.linalg.norm(nat)))


# --------------------------------------------------------------------------- active set
@dataclass
class _Group:
    """Copies of one cone (``cone``: one copy) active on their smooth boundary: starts (k,), and the branch of the
    boundary function each uses (`Cone.boundary_branch`, k)."""

    cone: Cone
    dim: int
    starts: np.ndarray
    sigma: np.ndarray

    @property
    def rows(self) -> np.ndarray:
        return (self.starts[:, None] + np.arange(self.dim)).reshape(-1)


@dataclass
class _Active:
    eq: np.ndarray  # rows with a free multiplier and s = 0 (zero rows, active nonneg rows, apex cones)
    signed: np.ndarray  # the subset of eq that are nonneg rows (multiplier >= 0)
    apex: list  # (one-copy cone, starts) of cones at their apex (rows in eq; dual checked in K*)
    groups: list  # _Group of cones active on their smooth boundary
    off: list  # (one-copy cone, starts) of inactive cones (their slack must stay in K)
    offrows: np.ndarray  # inactive nonneg rows


def _classify(problem, x, z, force_on=frozenset(), force_off=frozenset()) -> _Active | str:
    """The active set of the pair (x, z), or a string saying why it cannot be polished. force_on / force_off:
    rows (nonneg) and cone starts moved across by an earlier round. z None: identified from the slacks alone
    (a row or cone within SLACK_ACTIVE of its boundary, relative to its unit, is active)."""
    s = problem.b - problem.A @ x
    unit = row_units(problem, x)  # slacks / unit and duals * unit are unit-free (`row_units`)
    by_slack = z is None
    if by_slack:
        zrel = np.zeros(problem.m)
    else:
        zr = np.abs(z) * unit
        zmax = float(np.max(zr, initial=0.0))
        zrel = zr / zmax if zmax > 0 else np.zeros_like(z)
    on_set, off_set = np.array(sorted(force_on), int), np.array(sorted(force_off), int)
    eq, signed, offrows, apex, off = [], [], [], [], []
    smooth: dict = {}
    for blk in problem.blocks:
        c = blk.cone
        if c.rows == 0:
            continue
        if c.kind == "zero":
            eq.append(np.arange(blk.start, blk.stop))
            continue
        u = unit[blk.start:blk.stop]
        if c.kind == "nonneg":
            r = np.arange(blk.start, blk.stop)
            srel = np.where(u > 0, s[r] / np.where(u > 0, u, 1.0), 0.0)
            on = ((srel <= SLACK_ACTIVE) if by_slack else (zrel[r] > srel)) | np.isin(r, on_set)
            on &= ~np.isin(r, off_set)
            eq.append(r[on])
            signed.append(r[on])
            offrows.append(r[~on])
            continue
        one = c.with_count(1)  # a single copy: projections act on one cone's rows
        starts = blk.start + c.dim * np.arange(c.count)
        S = s[blk.start:blk.stop].reshape(c.count, c.dim)
        us = u[::c.dim]
        s_rel = np.where(us > 0, np.linalg.norm(S, axis=1) / np.where(us > 0, us, 1.0), 0.0)
        z_rel = np.linalg.norm(zrel[blk.start:blk.stop].reshape(c.count, c.dim), axis=1)
        forced_on, forced_off = np.isin(starts, on_set), np.isin(starts, off_set)
        if by_slack:
            inside = c.margin(S) / np.where(us > 0, us, 1.0)
            is_off = forced_off | (~forced_on & (inside > SLACK_ACTIVE) & (s_rel > SLACK_ACTIVE))
            is_apex = ~is_off & (s_rel <= SLACK_ACTIVE)
        else:
            is_off = forced_off | (~forced_on & (z_rel <= s_rel) & (z_rel <= 1e-6))
            is_apex = ~is_off & (s_rel <= 1e-9) & (s_rel < z_rel)
        rest = ~is_off & ~is_apex
        off.append((one, starts[is_off]))
        if is_apex.any():
            apex.append((one, starts[is_apex]))
            eq.append((starts[is_apex][:, None] + np.arange(c.dim)).reshape(-1))
        if not rest.any():
            continue
        bad = rest & ~one.boundary_smooth(S)
        if bad.any():
            st = int(starts[bad][0])
            return f"a {c.kind} cone (rows {st}-{st + c.dim - 1}) is active at a non-smooth point of its boundary"
        smooth.setdefault(one, []).append((starts[rest], one.boundary_branch(S[rest])))
    groups = [_Group(one, one.dim, np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))
              for one, parts in smooth.items()]
    cat = lambda parts: np.concatenate(parts).astype(int) if parts else np.zeros(0, int)  # noqa: E731
    return _Active(cat(eq), cat(signed), apex, groups, off, cat(offrows))


# --------------------------------------------------------------------------- Newton on the active set
class _System:
    """The active-set KKT map F(x, y, lambda) (rows scaled to be unit-free) and its Jacobian (module docstring)."""

    def __init__(self, problem, act: _Active, gs: float, rho: np.ndarray):
        self.p, self.act, self.gs = problem, act, gs
        unit = np.where(rho > 0, rho, 1.0)  # each row's slack in its own unit (`row_units`)
        A = sp.csr_matrix(problem.A)
        self.P = sp.csr_matrix(problem.P)
        self.AE = A[act.eq]
        self.wE = 1.0 / unit[act.eq]
        self.Srows = np.concatenate([g.rows for g in act.groups]) if act.groups else np.zeros(0, int)
        self.AS = A[self.Srows]
        # small systems in numpy (scipy.sparse's per-call overhead dominates there), large ones sparse
        self.dense = problem.n + self.AE.shape[0] + self.Srows.size <= DENSE_LIMIT
        if self.dense:
            self.P, self.AE, self.AS = self.P.toarray(), self.AE.toarray(), self.AS.toarray()
        self.wK = np.concatenate([1.0 / unit[g.starts] for g in act.groups]) if act.groups else np.zeros(0)
        self.n, self.ne = problem.n, act.eq.size
        self.nk = int(sum(g.starts.size for g in act.groups))
        # where each group sits in Srows and in lambda
        self.spans, r, k = [], 0, 0
        for g in act.groups:
            kk = g.starts.size
            self.spans.append((r, r + kk * g.dim, k, k + kk))
            r, k = r + kk * g.dim, k + kk

    def _cones(self, x):
        """Per group (f, G, D, c, V) (`Cone.boundary`: the Hessians diag(D) + c V V'), or None when a cone left its
        smooth region."""
        sS = self.p.b[self.Srows] - self.AS @ x
        out = []
        for g, (r0, r1, _, _) in zip(self.act.groups, self.spans):
            S = sS[r0:r1].reshape(-1, g.dim)
            if not np.all(g.cone.boundary_smooth(S)):
                return None
            out.append(g.cone.boundary(S, g.sigma))
        return out

    def _zS(self, lam, cones):
        if not self.nk:
            return np.zeros(0)
        return np.concatenate([(lam[k0:k1, None] * G).reshape(-1)
                               for (_, G, *_), (_, _, k0, k1) in zip(cones, self.spans)])

    def residual(self, u):
        """The scaled F at u = (x, y, lambda), or None outside the cones' smooth regions."""
        x, y, lam = u[:self.n], u[self.n:self.n + self.ne], u[self.n + self.ne:]
        cones = self._cones(x)
        if cones is None:
            return None
        f = np.concatenate([c[0] for c in cones]) if cones else np.zeros(0)
        F1 = self.P @ x + self.p.q + self.AE.T @ y + self.AS.T @ self._zS(lam, cones)
        F2 = self.p.b[self.act.eq] - self.AE @ x
        return np.concatenate([F1 / self.gs, F2 * self.wE, f * self.wK])

    def jacobian(self, u):
        x, lam = u[:self.n], u[self.n + self.ne:]
        cones = self._cones(x)
        if self.dense:
            return self._jacobian_dense(lam, cones)
        J11 = self.P.copy()
        gi, gj, gv = [], [], []  # the block column of the gradients (Srows x nk)
        for g, (f, G, D, c, V), (r0, r1, k0, k1) in zip(self.act.groups, cones, self.spans):
            kk, d = g.starts.size, g.dim
            AG = self.AS[r0:r1]
            lk = lam[k0:k1]
            # -A' (lambda H) A with H = diag(D) + c V V': -A' diag(lambda D) A - (V A)' diag(lambda c) (V A)
            Vb = sp.csr_matrix((V.reshape(-1), (np.repeat(np.arange(kk), d), np.arange(kk * d))), shape=(kk, kk * d))
            VA = Vb @ AG
            J11 = J11 - AG.T @ sp.diags((lk[:, None] * D).reshape(-1)) @ AG - VA.T @ sp.diags(lk * c) @ VA
            gi.append(r0 + np.arange(kk * d)), gj.append(np.repeat(np.arange(k0, k1), d)), gv.append(G.reshape(-1))
        if self.nk:
            Gm = sp.csr_matrix((np.concatenate(gv), (np.concatenate(gi), np.concatenate(gj))),
                               shape=(self.Srows.size, self.nk))
            J13 = self.AS.T @ Gm
        else:
            J13 = sp.csr_matrix((self.n, 0))
        return sp.bmat([[J11 / self.gs, self.AE.T / self.gs, J13 / self.gs],
                        [-sp.diags(self.wE) @ self.AE, None, None],
                        [-sp.diags(self.wK) @ J13.T, None, None]], format="csc")

    def _jacobian_dense(self, lam, cones):
        """`jacobian` in numpy: the same blocks, for small systems."""
        J11 = self.P.copy()
        J13 = np.zeros((self.n, self.nk))
        for g, (f, G, D, c, V), (r0, r1, k0, k1) in zip(self.act.groups, cones, self.spans):
            kk, d = g.starts.size, g.dim
            AG3 = self.AS[r0:r1].reshape(kk, d, self.n)
            lk = lam[k0:k1]
            VA = np.einsum("kd,kdn->kn", V, AG3)
            J11 -= np.einsum("kdn,kd,kdm->nm", AG3, lk[:, None] * D, AG3) + (VA.T * (lk * c)) @ VA
            J13[:, k0:k1] = np.einsum("kdn,kd->nk", AG3, G)
        ne, nk = self.ne, self.nk
        return np.block([[J11 / self.gs, self.AE.T / self.gs, J13 / self.gs],
                         [-self.wE[:, None] * self.AE, np.zeros((ne, ne)), np.zeros((ne, nk))],
                         [-self.wK[:, None] * J13.T, np.zeros((nk, ne)), np.zeros((nk, nk))]])

    def dual(self, u):
        """The full z (length m) of u: y on eq rows, lambda_k g_k on smooth cones, 0 elsewhere."""
        x, y, lam = u[:self.n], u[self.n:self.n + self.ne], u[self.n + self.ne:]
        z = np.zeros(self.p.m)
        z[self.act.eq] = y
        if self.nk:
            z[self.Srows] = self._zS(lam, self._cones(x))
        return z


def _solve(J, rhs):
    """A least-squares solution of J d = rhs (minimum norm in the equilibrated unknowns when J is small and dense).

    Columns are equilibrated first (unit 2-norms): the unknowns x, y and lambda carry the units of the primal, of
    each row's dual and of each cone's multiplier, which can differ by 1e16 on rescaled data, and the rank cut of
    the least-squares solve must not drop a column for its units."""
    N = J.shape[1]
    if not sp.issparse(J):
        cn = np.linalg.norm(J, axis=0)
        cn = np.where(cn > 0, cn, 1.0)
        return np.linalg.lstsq(J / cn, rhs, rcond=None)[0] / cn
    J = sp.csc_matrix(J)
    cn = np.sqrt(np.asarray(J.multiply(J).sum(axis=0)).reshape(-1))
    cn = np.where(cn > 0, cn, 1.0)
    Js = J @ sp.diags(1.0 / cn)
    if J.shape[0] == N:
        try:
            d = spla.splu(sp.csc_matrix(Js)).solve(rhs)
            if np.all(np.isfinite(d)):
                return d / cn
        except RuntimeError:  # exactly singular: least squares below
            pass
    return spla.lsmr(Js, rhs, atol=1e-15, btol=1e-15, maxiter=10 * N)[0] / cn


def _newton(sysm: _System, u, max_iter: int = 20):
    """Damped Gauss-Newton on ||F||; returns (u, ||F||, error estimate, iterations).

    The error estimate is the size of the Newton step computed at the returned u (its change in z relative to
    ||z||_inf): near a regular solution Newton's step estimates the distance to it."""
    F = sysm.residual(u)
    if F is None:
        return u, np.inf, np.inf, 0
    phi = float(np.linalg.norm(F))
    floor = 10 * np.finfo(float).eps * np.sqrt(F.size)  # ||F|| at rounding level (F is unit-free)
    estimate, it = np.inf, 0
    for it in range(max_iter + 1):
        d = _solve(sysm.jacobian(u), -F)
        if not np.all(np.isfinite(d)):
            estimate = np.inf
            break
        full = u + d
        if sysm.residual(full) is None:
            estimate = np.inf
        else:
            z_now, z_next = sysm.dual(u), sysm.dual(full)
            zscale = max(float(np.max(np.abs(z_now), initial=0.0)), float(np.max(np.abs(z_next), initial=0.0)),
                         np.finfo(float).tiny)
            estimate = float(np.max(np.abs(z_next - z_now), initial=0.0)) / zscale
        if phi <= floor or estimate <= 1e-15 or it == max_iter:  # converged to rounding (or out of iterations)
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


def _start(sysm: _System, x, z):
    """u0 = (x, z on eq rows, lambda_k = <z_k, g_k> / ||g_k||^2, at least 0)."""
    lam = np.zeros(sysm.nk)
    cones = sysm._cones(x)
    if cones is not None:
        for (_, G, *_), (r0, r1, k0, k1) in zip(cones, sysm.spans):
            Z = z[sysm.Srows[r0:r1]].reshape(G.shape)
            lam[k0:k1] = np.maximum(np.einsum("kd,kd->k", Z, G) / np.einsum("kd,kd->k", G, G), 0.0)
    return np.concatenate([x, z[sysm.act.eq], lam])


def _violations(problem, act: _Active, x, z, lam, sysm, ztol, stol):
    """Rows / cone starts whose multiplier has the wrong sign, and inactive ones that are violated at x (ztol,
    stol per row)."""
    wrong = act.signed[z[act.signed] < -ztol[act.signed]].tolist()
    for g, (_, _, k0, k1) in zip(act.groups, sysm.spans):
        wrong += g.starts[lam[k0:k1] < -ztol[g.starts]].tolist()
    s = problem.b - problem.A @ x
    violated = act.offrows[s[act.offrows] < -stol[act.offrows]].tolist()
    for one, starts in act.off:
        if starts.size:
            rows = (starts[:, None] + np.arange(one.dim)).reshape(-1)
            S = s[rows]
            dist = np.linalg.norm((S - project(one.with_count(starts.size), S))
                                  .reshape(-1, one.dim), axis=1)
            violated += starts[dist > np.linalg.norm(stol[rows].reshape(-1, one.dim), axis=1)].tolist()
    return wrong, violated


def _apex_outside(act: _Active, z, ztol) -> bool:
    """Does a cone at its apex get a dual outside K* (beyond ztol)?"""
    for one, starts in act.apex:
        rows = (starts[:, None] + np.arange(one.dim)).reshape(-1)
        Z = z[rows]
        gap = np.linalg.norm((Z - project(one.with_count(starts.size), Z, dual=True))
                             .reshape(-1, one.dim), axis=1)
        if np.any(gap > ztol[starts]):
            return True
    return False


def polish_duals(problem, x, z=None, rounds: int = 3) -> DualPolish:
    """Polish the dual z recovered at x (module docstring); the caller's x is not changed (the polished primal
    point is returned in ``DualPolish.x``). z None: no dual yet; the active set is identified from x's slacks
    (`SLACK_ACTIVE`) and the multipliers start at 0 (``residual_before`` is then inf, and a failure returns z = 0,
    flagged approximate)."""
    t0 = time.perf_counter()
    x = np.asarray(x, float).reshape(-1)
    given = z is not None
    z = np.asarray(z, float).reshape(-1) if given else np.zeros(problem.m)
    if x.shape != (problem.n,) or z.shape != (problem.m,) or not (np.all(np.isfinite(x)) and np.all(np.isfinite(z))):
        raise InputError(f"polish_duals needs finite x with {problem.n} and z with {problem.m} entries")
    r0 = kkt_residual(problem, x, z) if given else np.inf

    def done(zz, xx, r, step, polished, reason, its=0):
        approx = not (r <= EXACT_RESIDUAL and (step <= EXACT_STEP if polished else True))
        return DualPolish(zz, xx, r0, r, step, polished, approx, reason, its, time.perf_counter() - t0)

    if problem.m == 0:
        return done(z, x, r0, 0.0, False, "no constraints")
    if r0 <= 1e-12:  # nothing left to polish (the rule for 'exact' is r <= EXACT_RESIDUAL)
        return done(z, x, r0, 0.0, False, f"the recovered pair is a KKT point to rounding (residual {r0:.1e})")
    gs, _ = _scales(problem, x, z)
    rho = row_units(problem, x)
    unit = np.where(rho > 0, rho, 1.0)
    force_on: set[int] = set()
    force_off: set[int] = set()
    iters = 0
    why = "not polished"
    for _ in range(rounds):
        act = _classify(problem, x, z if given else None, frozenset(force_on), frozenset(force_off))
        if isinstance(act, str):
            why = act
            break
        if not given and act.eq.size + sum(g.starts.size for g in act.groups) > problem.n:
            # more active constraints than variables: primal degenerate, the duals are not determined by the
            # slacks' active set (lp_7's x = 0 has all 303 rows active on 253 columns); the least squares decide
            why = "primal degenerate at x (more active constraints than variables)"
            break
        sysm = _System(problem, act, gs, rho)
        u, phi, step, it = _newton(sysm, _start(sysm, x, z))
        iters += it
        if not np.isfinite(phi):
            why = "the Newton polish left the cones' smooth region"
            break
        xp, zp = u[:problem.n], sysm.dual(u)
        lam = u[problem.n + sysm.ne:]
        # signs and membership judged unit-free: duals times their row's unit, slacks over it (`row_units`)
        ztol = 1e-9 * max(float(np.max(np.abs(zp) * rho, initial=0.0)), np.finfo(float).tiny) / unit
        if _apex_outside(act, zp, ztol):
            why = "a cone at its apex gets a dual outside the dual cone (the active set is not identified)"
            break
        wrong, violated = _violations(problem, act, xp, zp, lam, sysm, ztol, 1e-9 * rho)
        if wrong or violated:
            force_off |= set(wrong)
            force_on |= set(violated)
            force_off -= set(violated)
            why = "the active set changed in every round"
            continue
        for blk in problem.blocks:  # membership in K* up to rounding
            r = slice(blk.start, blk.stop)
            zp[r] = blk.cone.into_dual(zp[r])
        r1 = kkt_residual(problem, xp, zp)
        if r1 <= r0:
            how = f"KKT residual {r0:.2e} -> {r1:.2e}" if given else \
                f"active set from the slacks, KKT residual {r1:.2e}"
            return done(zp, xp, r1, step, True, f"Newton polish on the active set: {how}, estimated error "
                        f"{step:.1e} of ||z||", iters)
        why = f"the polish did not lower the KKT residual ({r0:.2e} -> {r1:.2e})"
        break
    return done(z, x, r0, np.nan, False, why, iters)
