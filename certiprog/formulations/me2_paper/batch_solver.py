"""Many of ME^2's local problems at once: a batched semismooth-Newton proximal point method in numpy.

A tuned fit solves thousands of local problems (every positive of a fold x the 72 (mu, lam) pairs) that are tiny on
small data (Yeast6: d = 8, so the dual's least-squares matrix ``L`` is 37 x ~590): solved one by one, the Python
overhead of each solve dominates. Here a whole batch (every centre of a fold against the fold's negatives, at
several (mu, lam) pairs) advances in lock step, every operation a numpy call over the batch.

The dual of one local problem is the box least-squares problem ``min_x ||A x + v||^2 / 2``, ``0 <= x <= u = 1/n``
(`local_solver`'s ``L``, ``v``; ``A = [K / sqrt(2 lam); 1^T / sqrt(2 mu)]``; only pairs with ``2 mu B >= 1``, where
R = B - s/(2 mu) >= 0 for every x in the box and the R >= 0 multiplier is 0). Its proximal point iteration

    x+ = argmin_{0 <= x <= u} ||A x + v||^2 / 2 + ||x - xbar||^2 / (2 sigma)

is solved through its dual in ``y`` (m = d(d+1)/2 + 1 numbers, the primal point ``[sqrt(2 lam) svec M;
-sqrt(2 mu) R]``): maximise the strongly concave, piecewise quadratic

    phi(y) = -||y||^2/2 + v^T y + sum_i min_{0 <= x_i <= u} (t_i x_i + (x_i - xbar_i)^2 / (2 sigma)),  t = A^T y,

whose maximiser gives ``x+ = clip(xbar - sigma A^T y, 0, u)`` (the augmented Lagrangian method on the primal,
SSNAL's inner problem: Li, Sun & Toh 2018). phi's gradient is ``v + A x(y) - y``; its generalised Hessian is
``-(I + sigma A_F A_F^T)`` with F the coordinates strictly inside the box, solved through the Woodbury identity on
the |F| x |F| matrix ``I/sigma + A_F^T A_F`` (|F| is small near the answer: the support vectors on the ellipsoid's
boundary) or, when |F| > m, on the m x m matrix; backtracking (Armijo) keeps every step an ascent step. Warm starts
(``alpha0``: the neighbouring pair's answer) make a few iterations enough.

Every answer is certified exactly as `local_solver.certify` does, by the duality gap of the closed-form primal point
(`local_solver.duality_batch`, the one definition of that formula); a problem whose gap does not reach ``tol``
within the iteration budget is reported with ``ok`` False (its certificate still holds) for the caller to re-solve
with the one-problem solver.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .local_solver import DEFAULT_TOL, duality_batch, unsvec_batch


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


def _face_solve(K, sl, sm, B, x, free):
    """Every problem's face solve: x with its coordinates outside ``free`` kept (0 or u) and the free ones the
    least-squares minimiser of ``||A x + v||`` on that face (normal equations scaled to a unit diagonal, with a
    1e-13 ridge: the minimum-norm answer when the face is rank deficient), NOT clipped to the box. ``A = [K / sl;
    1^T / sm]``, ``v = [sl svec I; -sm B]`` (`local_solver._ls_matrix`), never formed."""
    b, p, n = K.shape
    counts = free.sum(axis=1)
    k = int(counts.max()) if b else 0
    xc = np.where(free, 0.0, x)
    if k == 0:
        return xc
    _, eye = _svec_eye(p)
    idx = np.argsort(~free, axis=1, kind="stable")[:, :k]
    valid = np.arange(k)[None, :] < counts[:, None]
    # residual of the fixed part, r = A x_fixed + v
    r_top = np.matmul(K, xc[..., None])[..., 0] / sl[:, None] + sl[:, None] * eye[None, :]
    r_last = xc.sum(axis=1) / sm - sm * B
    KF = np.take_along_axis(K, idx[:, None, :], axis=2) * valid[:, None, :] / sl[:, None, None]
    lastF = valid / sm[:, None]
    H = np.matmul(KF.transpose(0, 2, 1), KF) + lastF[:, :, None] * lastF[:, None, :]
    scale = np.sqrt(np.einsum("bkk->bk", H))
    scale = np.where(scale > 0, scale, 1.0)
    H /= scale[:, :, None] * scale[:, None, :]
    H[:, np.arange(k), np.arange(k)] += 1e-13
    rhs = -(np.matmul(r_top[:, None, :], KF)[:, 0, :] + r_last[:, None] * lastF) / scale
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


def _primal_point(K, sl, sm, B, x):
    """z = A x + v = [svec(S)/sl + sl svec I; s/sm - sm B] for every row of x."""
    _, eye = _svec_eye(K.shape[1])
    top = np.matmul(K, x[..., None])[..., 0] / sl[:, None] + sl[:, None] * eye[None, :]
    return np.concatenate([top, (x.sum(axis=1) / sm - sm * B)[:, None]], axis=1)


def _slopes(K, sl, sm, z):
    """g = A^T z for every row of z."""
    p = K.shape[1]
    return np.matmul((z[:, :p] / sl[:, None])[:, None, :], K)[:, 0, :] + (z[:, p] / sm)[:, None]




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


def solve_batch(K, q0, mus, lams, B: float, alpha0=None, *, tol: float = DEFAULT_TOL,
                max_rounds: int = 60, patience: int = 16) -> BatchAnswer:
    """Solve b local problems sharing the number of negatives n, in lock step, by an active-set method on the
    primal with exact line searches (a finite Newton method for the piecewise quadratic primal, in the spirit of
    Keerthi & DeCoste 2005's for the L2-SVM).

    ``K`` (b x p x n): each problem's svec outer products (`local_solver.LocalProblem.K`), ``q0`` (b x n) the
    squared norms, ``mus``, ``lams`` (b,) with ``2 mu B >= 1`` (R >= 0 holds on the whole box), ``alpha0`` (b x n)
    warm starts (e.g. the answers at a neighbouring (mu, lam); default 0, i.e. M = I, R = B).

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
    K, q0, mus, lams = _inputs(K, q0, mus, lams, B)
    b, p, n = K.shape
    u = 1.0 / n
    x = np.zeros((b, n)) if alpha0 is None else np.clip(np.asarray(alpha0, float), 0.0, u)
    best = _Best(x)
    _, eye = _svec_eye(p)
    cap = 2 * (p + 1)
    # the problems still running, with their data (compacted only when some leave)
    rows, Kr, q0r, mur, lamr = np.arange(b), K, q0, mus, lams
    lo, up = x <= 0.0, x >= u
    z = g = kink = None
    since = np.zeros(b, int)  # rounds since each problem's best gap last fell

    def select(mask, *arrays):
        return arrays if mask.all() else tuple(None if a is None else a[mask] for a in arrays)

    for _ in range(max_rounds):
        free = ~(lo | up)
        rows, Kr, q0r, mur, lamr, lo, up, free, z = select(free.sum(axis=1) <= cap, rows, Kr, q0r, mur, lamr, lo,
                                                           up, free, z)
        if rows.size == 0:
            break
        slr, smr = np.sqrt(2.0 * lamr), np.sqrt(2.0 * mur)
        xf = _face_solve(Kr, slr, smr, B, np.where(up, u, 0.0), free)
        xc = np.clip(xf, 0.0, u)
        _, _, _, _, _, primal, _, gap = duality_batch(Kr, q0r, xc, mur, lamr, B)
        best.rounds[rows] += 1
        improved = best.offer(rows, xc, gap)
        since[rows] = np.where(improved, 0, since[rows] + 1)
        going = (gap > tol * np.maximum(1.0, np.abs(primal))) & (since[rows] < patience)
        rows, Kr, q0r, mur, lamr, lo, up, free, xf, xc, z, slr, smr = select(
            going, rows, Kr, q0r, mur, lamr, lo, up, free, xf, xc, z, slr, smr)
        if rows.size == 0:
            break
        zf = _primal_point(Kr, slr, smr, B, xf)
        inbox = free & (xf > 0.0) & (xf < u)
        kink = np.full(rows.size, -1)
        if z is None:  # first round: start from the face solution's point
            z = zf
            g = _slopes(Kr, slr, smr, z)
        else:
            dz = zf - z
            g = _slopes(Kr, slr, smr, z)
            dg = _slopes(Kr, slr, smr, dz)
            v = np.concatenate([slr[:, None] * eye[None, :], (-smr * B)[:, None]], axis=1)
            t, kink = _line_search(z, dz, v, g, dg, u, free)
            z = z + t[:, None] * dz
            g = g + t[:, None] * dg
            # no step and no new kink (a free coordinate's face value left the box and pins the search): restart
            # from the clipped face point, its partition by the signs of a_i^T z
            stalled = (t <= 0) & (kink < 0)
            if stalled.any():
                zc = _primal_point(Kr[stalled], slr[stalled], smr[stalled], B, xc[stalled])
                z[stalled] = zc
                g[stalled] = _slopes(Kr[stalled], slr[stalled], smr[stalled], zc)
                free[stalled] = False
                inbox[stalled] = False
        new_free = inbox.copy()
        has = kink >= 0
        new_free[np.flatnonzero(has), kink[has]] = True
        lo = ~new_free & np.where(free, xf <= 0.0, g > 0.0)
        up = ~new_free & ~lo
    return _answer(K, q0, mus, lams, B, best, tol)


def _answer(K, q0, mus, lams, B, best: _Best, tol) -> BatchAnswer:
    d, eye = _svec_eye(K.shape[1])
    w, _, R, q, _, primal, dual, gap = duality_batch(K, q0, best.x, mus, lams, B)
    M = unsvec_batch(eye[None, :] + w / (2.0 * lams[:, None]), d)
    ok = gap <= tol * np.maximum(1.0, np.abs(primal))
    return BatchAnswer(best.x, M, R, primal, dual, gap, q, ok, best.rounds)


def _inputs(K, q0, mus, lams, B):
    K = np.asarray(K, float)
    b = K.shape[0]
    mus, lams = np.asarray(mus, float).reshape(b), np.asarray(lams, float).reshape(b)
    if np.any(2.0 * mus * B < 1.0):
        raise ValueError("the batched solver covers pairs with 2 mu B >= 1 only")
    return K, np.asarray(q0, float), mus, lams


def fit_batch(P, X_neg, mus, lams, B: float, *, warm_start=None, tol: float = DEFAULT_TOL,
              max_bytes: float = 64e6) -> list:
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
