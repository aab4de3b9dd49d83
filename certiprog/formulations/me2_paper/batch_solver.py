"""Many of ME^2's local problems at once: an active-set method in numpy over a whole batch.

A tuned fit solves thousands of local problems (every positive of a fold x the 72 (mu, lam) pairs) that are tiny on
small data (Yeast6: d = 8, so the dual's least-squares matrix ``L`` is 37 x ~580): solved one by one
(`local_solver.solve_local`) the Python overhead of each solve dominates. Here a batch (every centre of a fold, at
several lam values) advances in lock step, each step a few numpy calls over the whole batch, and the centres' K
matrices are shared between the problems that use them.

The dual of one local problem is the box least-squares problem ``min_x ||A x + v||^2 / 2``, ``0 <= x <= u = 1/n``
(`local_solver`'s ``L``, ``v``; ``A = [K / sqrt(2 lam); 1^T / sqrt(2 mu)]``; only pairs with ``2 mu B >= 1``, where
R = B - s/(2 mu) >= 0 for every x in the box, so the R >= 0 multiplier is 0). In the coordinates
``z = A x + v = [sqrt(2 lam) svec M; -sqrt(2 mu) R]`` the primal is the strongly convex, piecewise quadratic

    P(z) = ||z||^2 / 2 - v^T z + u sum_i max(0, -a_i^T z),     a_i^T z = q_i(M) - R

(a negative is inside the ellipsoid when a_i^T z < 0). `solve_batch`: an active-set method on a partition of the
negatives (inside: x = u; outside: x = 0; on the boundary: free, a_i^T z = 0). Each round solves every problem's
face problem (`_face_solve`: least squares on the free columns, a |F| x |F| system), certifies the face point
clipped to the box by the duality gap (`local_solver.duality_from`, the one definition of the certificate), and
moves on by an exact line search of P towards the face solution (a descent direction), which carries every negative
it crosses to the other side at once and makes the hinge whose kink is the minimiser free (a finite Newton method
for the piecewise quadratic primal, in the spirit of Keerthi & DeCoste 2005's for the L2-SVM). The first rounds
after a warm start are primal-dual active-set steps, exact in one round after a small change of (mu, lam).

Every answer carries the certificate `local_solver.certify` gives; a problem whose gap does not reach ``tol`` (too
many rounds, no progress) is reported with ``ok`` False and its best point, for the caller to re-solve with the
one-problem solver (`tuning.tune_fold`, `fit_batch`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from certiprog.errors import InputError

from .local_solver import DEFAULT_TOL, duality_from, unsvec_batch


@functools.lru_cache(maxsize=64)
def _svec_eye(p: int) -> tuple:
    """(d, svec(I)) for svec length p = d(d+1)/2."""
    d = int(round((np.sqrt(8 * p + 1) - 1) / 2))
    iu, ju = np.triu_indices(d)
    e = (iu == ju).astype(float)
    e.setflags(write=False)
    return d, e

__all__ = ["BatchAnswer", "fit_batch", "solve_batch"]


@dataclass(eq=False)
class BatchAnswer:
    """The answers of `solve_batch`, one row per problem: ``alpha`` (b x n, in the box), ``M`` (b x d x d), ``R``,
    ``primal``, ``dual``, ``gap`` (>= 0, computed as a sum of non-negative terms), ``q`` (b x n: the negatives'
    squared M-distances), ``ok`` (gap <= tol * max(1, |primal|)), ``rounds`` (face solves of each problem)."""

    alpha: np.ndarray
    M: np.ndarray
    R: np.ndarray
    primal: np.ndarray
    dual: np.ndarray
    gap: np.ndarray
    q: np.ndarray
    ok: np.ndarray
    rounds: np.ndarray

    @property
    def rel_gap(self) -> np.ndarray:
        return self.gap / np.maximum(1.0, np.abs(self.primal))


class _Rows:
    """The matrices of a set of problems: ``K[which[r]]`` for row r, with ``K`` (C x p x n) holding each distinct
    matrix once. When the rows are ``L`` copies of the C centres (row r: centre r % C, "shared"), products with K
    are C matrix-matrix products that read each K once per round; otherwise (a subset, compacted) one
    matrix-vector product per row on a gathered copy."""

    def __init__(self, K, which):
        self.K, self.which = K, which
        C = K.shape[0]
        b = which.size
        self.shared = b % C == 0 and np.array_equal(which, np.arange(b) % C)
        self.L = b // C if self.shared else 0
        self.Kr = None if self.shared else K[which]

    def subset(self, mask) -> "_Rows":
        return _Rows(self.K, self.which[mask])

    def Kx(self, x):
        """K_r x_r for every row (b x p)."""
        if self.shared:
            C, p, n = self.K.shape
            X = x.reshape(self.L, C, n).transpose(1, 2, 0)
            return np.matmul(self.K, X).transpose(2, 0, 1).reshape(-1, p)
        return np.matmul(self.Kr, x[..., None])[..., 0]

    def KTw(self, w):
        """K_r^T w_r for every row (b x n)."""
        if self.shared:
            C, p, n = self.K.shape
            W = w.reshape(self.L, C, p).transpose(1, 0, 2)
            return np.matmul(W, self.K).transpose(1, 0, 2).reshape(-1, n)
        return np.matmul(w[:, None, :], self.Kr)[:, 0, :]

    def columns(self, idx):
        """K_r[:, idx_r] for every row, transposed (b x k x p)."""
        if self.shared:
            return self.K[self.which[:, None], :, idx]
        return np.take_along_axis(self.Kr, idx[:, None, :], axis=2).transpose(0, 2, 1)


def _face_solve(ops: _Rows, sl, sm, B, x, free):
    """Every problem's face solve: x with its coordinates outside ``free`` kept (0 or u) and the free ones the
    least-squares minimiser of ``||A x + v||`` on that face (normal equations scaled to a unit diagonal, with a
    1e-13 ridge: the minimum-norm answer when the face is rank deficient), NOT clipped to the box. ``A = [K / sl;
    1^T / sm]``, ``v = [sl svec I; -sm B]`` (`local_solver._ls_matrix`), never formed."""
    b = x.shape[0]
    counts = free.sum(axis=1)
    k = int(counts.max()) if b else 0
    xc = np.where(free, 0.0, x)
    if k == 0:
        return xc
    _, eye = _svec_eye(ops.K.shape[1])
    idx = np.argsort(~free, axis=1, kind="stable")[:, :k]
    valid = np.arange(k)[None, :] < counts[:, None]
    # residual of the fixed part, r = A x_fixed + v
    r_top = ops.Kx(xc) / sl[:, None] + sl[:, None] * eye[None, :]
    r_last = xc.sum(axis=1) / sm - sm * B
    KF = ops.columns(idx) * (valid / sl[:, None])[:, :, None]  # b x k x p
    lastF = valid / sm[:, None]
    H = np.matmul(KF, KF.transpose(0, 2, 1)) + lastF[:, :, None] * lastF[:, None, :]
    scale = np.sqrt(np.einsum("bkk->bk", H))
    scale = np.where(scale > 0, scale, 1.0)
    H /= scale[:, :, None] * scale[:, None, :]
    H[:, np.arange(k), np.arange(k)] += 1e-13
    rhs = -(np.matmul(KF, r_top[..., None])[..., 0] + r_last[:, None] * lastF) / scale
    xf = np.linalg.solve(H, rhs[..., None])[..., 0] / scale
    xc[np.nonzero(valid)[0], idx[valid]] = xf[valid]
    return xc


class _Best:
    """Each problem's best point so far (smallest certified gap)."""

    def __init__(self, x):
        self.gap = np.full(x.shape[0], np.inf)
        self.x = x.copy()
        self.rounds = np.zeros(x.shape[0], int)

    def offer(self, rows, xc, gap):
        better = gap < self.gap[rows]
        self.gap[rows[better]] = gap[better]
        self.x[rows[better]] = xc[better]
        return better


def _primal_point(ops: _Rows, sl, sm, B, x):
    """z = A x + v = [svec(S)/sl + sl svec I; s/sm - sm B] for every row of x."""
    _, eye = _svec_eye(ops.K.shape[1])
    top = ops.Kx(x) / sl[:, None] + sl[:, None] * eye[None, :]
    return np.concatenate([top, (x.sum(axis=1) / sm - sm * B)[:, None]], axis=1)


def _slopes(ops: _Rows, sl, sm, z):
    """g = A^T z for every row of z."""
    p = ops.K.shape[1]
    return ops.KTw(z[:, :p] / sl[:, None]) + (z[:, p] / sm)[:, None]


def _line_search(z, dz, v, g, dg, u, free):
    """The exact minimiser t >= 0 of P(z + t dz), P(z) = ||z||^2/2 - v^T z + u sum_i max(0, -a_i^T z) (the primal
    in the least-squares coordinates), for every row; the hinges of ``free`` (a_i^T z = a_i^T dz = 0) are flat along
    dz. P' is nondecreasing and piecewise linear: slope ||dz||^2, a jump u |dg_i| where hinge i changes state at
    t_i = -g_i / dg_i. Returns (t, index of the hinge whose kink is the minimiser, or -1)."""
    b, n = g.shape
    L = np.einsum("bm,bm->b", dz, dz)
    live = ~free
    active0 = live & ((g < 0) | ((g == 0) & (dg < 0)))
    c0 = np.einsum("bm,bm->b", z - v, dz) - u * np.where(active0, dg, 0.0).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        tb = np.where(live & (g * dg < 0), -g / dg, np.inf)
    order = np.argsort(tb, axis=1)
    ts = np.take_along_axis(tb, order, axis=1)
    J = np.where(np.isfinite(ts), u * np.abs(np.take_along_axis(dg, order, axis=1)), 0.0)
    cum = np.cumsum(J, axis=1)
    before = np.concatenate([np.zeros((b, 1)), cum[:, :-1]], axis=1)  # jumps strictly before breakpoint k
    left = c0[:, None] + before + ts * L[:, None]  # P'(t_k-)
    right = left + J  # P'(t_k+)
    # first breakpoint whose right derivative is >= 0: the minimiser is before it (smooth) or at it (kink)
    hit = right >= 0
    k = np.where(hit.any(axis=1), np.argmax(hit, axis=1), n - 1)
    rows = np.arange(b)
    at_kink = hit[rows, k] & (left[rows, k] <= 0) & np.isfinite(ts[rows, k])
    base = c0 + before[rows, k]
    with np.errstate(divide="ignore", invalid="ignore"):
        t_smooth = np.where(L > 0, -base / L, 0.0)
    t = np.where(at_kink, ts[rows, k], np.maximum(t_smooth, 0.0))
    kink = np.where(at_kink, order[rows, k], -1)
    return t, kink


def solve_batch(K, q0, mus, lams, B: float, alpha0=None, *, which=None, tol: float = DEFAULT_TOL,
                max_rounds: int = 60, patience: int = 16, pdas_rounds: int = 2) -> BatchAnswer:
    """Solve b local problems sharing the number of negatives n, in lock step, by an active-set method on the
    primal with exact line searches (a finite Newton method for the piecewise quadratic primal, in the spirit of
    Keerthi & DeCoste 2005's for the L2-SVM).

    ``K`` (C x p x n): the svec outer products (`local_solver.LocalProblem.K`) of C centres, ``q0`` (C x n) their
    squared norms, ``which`` (b,) the centre of each problem (default: problem r is centre r); with problem r on
    centre ``r % C`` (L copies of the C centres, e.g. at L lam values) each K is read once per round; ``mus``,
    ``lams`` (b,) with ``2 mu B >= 1`` (R >= 0 holds on the whole box), ``alpha0`` (b x n) warm starts (e.g. the
    answers at a neighbouring (mu, lam); default 0, i.e. M = I, R = B). After a warm start the first
    ``pdas_rounds`` rounds are primal-dual active-set steps (see the module docstring).

    In the least-squares coordinates ``z = A alpha + v`` the primal is ``P(z) = ||z||^2/2 - v^T z + u sum_i
    max(0, -a_i^T z)`` (u = 1/n; a negative is inside when a_i^T z = q_i - R < 0). A round: (1) the face solve
    (`_face_solve`) on the partition (inside: alpha = u; outside: 0; on the boundary: free, a_i^T z = 0), whose
    point, clipped to the box, is certified by the duality gap (`local_solver.duality_batch`); (2) the exact line
    search of P from z towards the face solution's z (a descent direction: P agrees with the face's quadratic model
    to first order), so every negative it carries across the boundary changes side at once; (3) the new partition:
    the free coordinates whose face value left [0, u] go to that bound, a hinge whose kink is the line minimiser
    becomes free, the others follow the sign of a_i^T z. P decreases at every round. With a warm start whose
    partition is right, the first round is exact. Problems not certified within ``max_rounds``, or whose best gap
    did not fall in ``patience`` rounds, keep their best point (``ok`` False): the caller re-solves them with the
    one-problem solver."""
    K, q0, mus, lams = _inputs(K, q0, mus, lams, B, which)
    which = np.arange(K.shape[0]) if which is None else np.asarray(which, int)
    b, (_, p, n) = which.size, K.shape
    u = 1.0 / n
    x = np.zeros((b, n)) if alpha0 is None else np.clip(np.asarray(alpha0, float), 0.0, u)
    best = _Best(x)
    _, eye = _svec_eye(p)
    cap = 2 * (p + 1)
    since = np.zeros(b, int)  # rounds since each problem's best gap last fell
    sl_all, sm_all = np.sqrt(2.0 * lams), np.sqrt(2.0 * mus)
    # the problems in the current arrays (all of them while most still run, then only those), ``run`` the ones
    # still running among them
    rows, ops = np.arange(b), _Rows(K, which)
    run = np.ones(b, bool)
    lo, up = x <= 0.0, x >= u
    z, zset = np.zeros((b, p + 1)), np.zeros(b, bool)  # the line search's point, once it has one
    for r in range(max_rounds):
        if run.sum() <= rows.size // 2:  # compact: only the running problems, their K gathered
            keep = run
            rows, ops, lo, up, run, z, zset = (rows[keep], ops.subset(keep), lo[keep], up[keep], run[keep],
                                               z[keep], zset[keep])
        if not run.any():
            break
        free = ~(lo | up)
        run &= free.sum(axis=1) <= cap  # face solves of at most 2 m coordinates; the others leave
        free &= run[:, None]
        sl, sm, mu_r, lam_r = sl_all[rows], sm_all[rows], mus[rows], lams[rows]
        xf = _face_solve(ops, sl, sm, B, np.where(up, u, 0.0), free)
        xc = np.clip(xf, 0.0, u)
        w = ops.Kx(xc)
        _, g_c, primal, _, gap = duality_from(w, q0[which[rows]] + ops.KTw(w) / (2.0 * lam_r)[:, None], xc,
                                              q0[which[rows]], mu_r, lam_r, B)
        best.rounds[rows[run]] += 1
        improved = best.offer(rows[run], xc[run], gap[run])
        since[rows[run]] = np.where(improved, 0, since[rows[run]] + 1)
        run &= (gap > tol * np.maximum(1.0, np.abs(primal))) & (since[rows] < patience)
        if not run.any():
            break
        inbox = free & (xf > 0.0) & (xf < u)
        new_lo, new_up = lo.copy(), up.copy()
        search = run.copy()
        if r < pdas_rounds:
            # primal-dual active-set step (exact in one more round after a small change of (mu, lam)): the free
            # coordinates that left the box to their bound, the bound ones with the wrong gradient sign freed
            pd_lo = (free & (xf <= 0.0)) | (lo & (g_c >= 0.0))
            pd_up = (free & (xf >= u)) | (up & (g_c <= 0.0))
            pd = run & ~zset & ((~(pd_lo | pd_up)).sum(axis=1) <= cap)
            new_lo[pd], new_up[pd] = pd_lo[pd], pd_up[pd]
            search &= ~pd
        if search.any():
            i = np.flatnonzero(search)
            zf = _primal_point(ops, sl, sm, B, xf)
            kink = np.full(rows.size, -1)
            first = search & ~zset  # start from the face solution's point
            z[first] = zf[first]
            zset |= first
            g = _slopes(ops, sl, sm, z)
            go = search & ~first
            if go.any():
                dz = zf - z
                dg = _slopes(ops, sl, sm, dz)
                v = np.concatenate([sl[:, None] * eye[None, :], (-sm * B)[:, None]], axis=1)
                t = np.zeros(rows.size)
                t[go], kink[go] = _line_search(z[go], dz[go], v[go], g[go], dg[go], u, free[go])
                z += t[:, None] * dz
                g += t[:, None] * dg
                # no step and no new kink (a free coordinate's face value left the box and pins the search):
                # restart from the clipped face point, its partition by the signs of a_i^T z
                stalled = go & (t <= 0) & (kink < 0)
                if stalled.any():
                    zc = _primal_point(ops, sl, sm, B, xc)
                    z[stalled] = zc[stalled]
                    g[stalled] = _slopes(ops, sl, sm, zc)[stalled]
                    free[stalled] = False
                    inbox[stalled] = False
            new_free = inbox & search[:, None]
            has = kink >= 0
            new_free[np.flatnonzero(has), kink[has]] = True
            ls_lo = ~new_free & np.where(free, xf <= 0.0, g > 0.0)
            new_lo[i], new_up[i] = ls_lo[i], (~new_free & ~ls_lo)[i]
        lo, up = new_lo, new_up
    return _answer(K, q0, which, mus, lams, B, best, tol)


def _answer(K, q0, which, mus, lams, B, best: _Best, tol) -> BatchAnswer:
    d, eye = _svec_eye(K.shape[1])
    ops = _Rows(K, which)
    w = ops.Kx(best.x)
    q = q0[which] + ops.KTw(w) / (2.0 * lams)[:, None]
    R, _, primal, dual, gap = duality_from(w, q, best.x, q0[which], mus, lams, B)
    M = unsvec_batch(eye[None, :] + w / (2.0 * lams[:, None]), d)
    ok = gap <= tol * np.maximum(1.0, np.abs(primal))
    return BatchAnswer(best.x, M, R, primal, dual, gap, q, ok, best.rounds)


def _inputs(K, q0, mus, lams, B, which=None):
    K = np.asarray(K, float)
    b = K.shape[0] if which is None else np.size(which)
    mus, lams = np.asarray(mus, float).reshape(b), np.asarray(lams, float).reshape(b)
    if np.any(2.0 * mus * B < 1.0):
        raise InputError(f"the batched solver covers pairs with 2 mu B >= 1 only (R >= 0 on the whole box); got "
                         f"mu = {float(np.min(mus))}, B = {B}: use local_solver.solve_local")
    return K, np.asarray(q0, float), mus, lams


def fit_batch(P, X_neg, mus, lams, B: float, *, warm_start=None, tol: float = DEFAULT_TOL,
              max_bytes: float = 16e6) -> list:
    """The local models of every positive ``P[j]`` against all of ``X_neg`` with its own (``mus[j]``, ``lams[j]``)
    (every ``2 mu B >= 1``), solved in batches (`solve_batch`; the centres cut into consecutive chunks of at most
    ``max_bytes`` of `LocalProblem.K`) from ``warm_start[j]`` = (M, R) (`programs.warm_alpha`; None: cold). Returns one
    `local_solver.LocalSolution` per centre, each certified by `local_solver.certify` (the same duality gap); a
    problem the batch does not certify is re-solved by `local_solver.solve_local_checked` from the batch's best
    point (its answer says so in ``path``)."""
    import time

    from .local_solver import certify, local_problem, solve_local_checked
    from .programs import warm_alpha

    P = np.asarray(P, float)
    mus, lams = np.asarray(mus, float), np.asarray(lams, float)
    n, d = np.shape(X_neg)
    per = 8.0 * n * d * (d + 1) / 2
    step = max(1, int(max_bytes // per))
    out = []
    for a in range(0, len(P), step):
        t0 = time.perf_counter()
        idx = range(a, min(a + step, len(P)))
        probs = [local_problem(X_neg, P[j]) for j in idx]
        alpha0 = (None if warm_start is None else
                  np.stack([warm_alpha(pr, *warm_start[j]) if warm_start[j] is not None else np.zeros(n)
                            for pr, j in zip(probs, idx)]))
        ans = solve_batch(np.stack([pr.K for pr in probs]), np.stack([pr.q0 for pr in probs]), mus[list(idx)],
                          lams[list(idx)], B, alpha0, tol=tol)
        share = (time.perf_counter() - t0) / len(probs)
        for i, (pr, j) in enumerate(zip(probs, idx)):
            if ans.ok[i]:
                sol = certify(pr, ans.alpha[i], mus[j], lams[j], B, solver="dedicated", tol=tol,
                              iterations=int(ans.rounds[i]), seconds=share)
                sol.path = "batch"
            else:
                sol = solve_local_checked(pr, mus[j], lams[j], B, alpha0=ans.alpha[i], tol=tol)
                sol.path = "batch, then " + sol.path
            out.append(sol)
    return out
