"""Many of ME^2's local problems at once: an active-set method in numpy over a whole batch.

A tuned fit solves thousands of local problems (every positive of a fold x the 72 (mu, lam) pairs) that are tiny on
small data (Yeast6: d = 8, so the dual's least-squares matrix ``L`` is 37 x ~580): solved one by one
(`local_solver.solve_local`) the Python overhead of each solve dominates. Here a batch of slots (every centre of a
fold at several lam values) advances in lock step, each round a few numpy calls over the whole batch, the centres'
K matrices shared between the slots that use them; each slot walks a path of problems (the mu values), moving on,
warm-started from its last answer, as soon as that answer is settled, so a batch takes the rounds of its longest
path rather than the sum over the path's steps of each step's slowest problem.

The dual of one local problem is the box least-squares problem ``min_x ||A x + v||^2 / 2``, ``0 <= x <= u = 1/n``
(`local_solver`'s ``L``, ``v``; ``A = [K / sqrt(2 lam); 1^T / sqrt(2 mu)]``; only pairs with ``2 mu B >= 1``, where
R = B - s/(2 mu) >= 0 for every x in the box, so the R >= 0 multiplier is 0). In the coordinates
``z = A x + v = [sqrt(2 lam) svec M; -sqrt(2 mu) R]`` the primal is the strongly convex, piecewise quadratic

    P(z) = ||z||^2 / 2 - v^T z + u sum_i max(0, -a_i^T z),     a_i^T z = q_i(M) - R

(a negative is inside the ellipsoid when a_i^T z < 0). `solve_batch`: an active-set method on a partition of the
negatives (inside: x = u; outside: x = 0; on the boundary: free, a_i^T z = 0). Each round solves every problem's
face problem (`_face_solve`: least squares on the free columns, a |F| x |F| system), certifies the face point
clipped to the box by the duality gap (`local_solver.duality_from`, the one definition of the certificate), and
moves on by an exact line search of P towards the face solution (a descent direction, the minimiser at t <= 1),
which carries every negative it crosses to the other side at once and makes the hinge whose kink is the minimiser
free (a finite Newton method for the piecewise quadratic primal, in the spirit of Keerthi & DeCoste 2005's for the
L2-SVM). Free coordinates whose face value left the box are released to that bound at the face's minimiser (where
the face values are the multipliers), or at every round once a problem's gap has stalled (`HOLD_ROUNDS`). The
first rounds after a warm start are primal-dual active-set steps, exact in one round after a small change of
(mu, lam).

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

__all__ = ["BatchAnswer", "fit_batch", "left_aligned", "solve_batch"]


def left_aligned(mask, counts=None) -> tuple:
    """The True entries of a 2-D ``mask`` in row-major order as (row, position in its row, column): row r's
    entries at positions 0 .. counts[r] - 1 (``counts``: mask.sum(axis=1) if the caller has it), to lay each
    row's entries out left-aligned in a (rows x max count) array. One pass over the flattened mask (a 2-D
    ``np.nonzero`` costs ~9x more on numpy 2: 85 vs 9 us on a 84 x 579 mask, a few times in every round)."""
    counts = mask.sum(axis=1) if counts is None else counts
    flat = np.flatnonzero(mask)
    rows, cols = np.divmod(flat, mask.shape[1])
    return rows, np.arange(flat.size) - np.repeat(np.cumsum(counts) - counts, counts), cols

#: a search stopped short of the face's minimiser keeps every free coordinate (an active-set method releases
#: them only there, where the face values are the multipliers: needed when p > n, every negative possibly on the
#: boundary) unless the problem's best gap has not fallen for this many rounds; then, as after a face minimum,
#: the free coordinates whose face value left the box are released at once (what breast cancer's small-lam cold
#: problems need)
HOLD_ROUNDS = 5


@dataclass(eq=False)
class BatchAnswer:
    """The answers of `solve_batch`, one row per problem: ``alpha`` (b x n, in the box; None when the caller
    asked only for the points of the problems not certified, ``keep_alpha=False``), ``M`` (b x d x d), ``R``,
    ``primal``, ``dual``, ``gap`` (>= 0, computed as a sum of non-negative terms; `local_solver.duality_from` at
    the problem's point), ``ok`` (gap <= tol * max(1, |primal|)), ``rounds`` (face solves of each problem),
    ``unsettled`` ({row: point} for the problems not certified, whichever ``keep_alpha``: the caller re-solves
    them from there)."""

    alpha: np.ndarray | None
    M: np.ndarray
    R: np.ndarray
    primal: np.ndarray
    dual: np.ndarray
    gap: np.ndarray
    ok: np.ndarray
    rounds: np.ndarray
    unsettled: dict

    @property
    def rel_gap(self) -> np.ndarray:
        return self.gap / np.maximum(1.0, np.abs(self.primal))


class _Rows:
    """The matrices of a set of problems: ``K[which[r]]`` for row r, with ``K`` (C x p x n) holding each distinct
    matrix once. When the rows are ``L`` copies of each of the C centres in turn (row r: centre r // L, "shared"),
    products with K are C matrix-matrix products that read each K once per round, their inputs and outputs
    reshaped in place (no copies); a subset of those rows (``at``, after the finished problems left) is
    zero-filled back into that layout for the products (no copy of K; reading K costs less than reading a gathered
    copy), until it is small enough (a quarter of the rows) to gather its own copy; rows in no such layout: one
    matrix-vector product per row on a gathered copy."""

    def __init__(self, K, which, at=None):
        self.K, self.which = K, which
        C = K.shape[0]
        b = which.size
        self.at = np.arange(b) if at is None else at
        self.centre = which[self.at]
        self.shared = b % C == 0 and np.array_equal(which, np.arange(b) // (b // C)) and 4 * self.at.size > b
        self.L = b // C if self.shared else 0
        self.Kr = None if self.shared else K[self.centre]

    def subset(self, mask) -> "_Rows":
        return _Rows(self.K, self.which, self.at[mask]) if self.shared else _Rows(self.K, self.centre[mask])

    def _spread(self, x):
        """x (rows ``at``) as rows of the whole shared layout, zero elsewhere."""
        if self.at.size == self.which.size:
            return x
        full = np.zeros((self.which.size,) + x.shape[1:])
        full[self.at] = x
        return full

    def _pick(self, out):
        return out if self.at.size == self.which.size else out[self.at]

    def Kx(self, x):
        """K_r x_r for every row (b x p)."""
        if self.shared:
            C, p, n = self.K.shape
            X = self._spread(x).reshape(C, self.L, n)
            return self._pick(np.matmul(X, self.K.transpose(0, 2, 1)).reshape(-1, p))
        return np.matmul(self.Kr, x[..., None])[..., 0]

    def KTw(self, w):
        """K_r^T w_r for every row: w (b x p) -> (b x n), or several vectors a row, (b x m x p) -> (b x m x n), in
        one product (K read once)."""
        W = w[:, None, :] if w.ndim == 2 else w
        _, m, p = W.shape
        if self.shared:
            C, _, n = self.K.shape
            Wc = self._spread(W).reshape(C, self.L * m, p)
            out = self._pick(np.matmul(Wc, self.K).reshape(-1, m, n))
        else:
            out = np.matmul(W, self.Kr)
        return out[:, 0, :] if w.ndim == 2 else out

    def columns(self, idx):
        """K_r[:, idx_r] for every row, transposed (b x k x p)."""
        return self.K[self.centre[:, None], :, idx]


def _face_solve(ops: _Rows, sl, sm, B, u, x, free, counts=None):
    """Every problem's face solve: x (0 on ``free``, overwritten) with its coordinates outside ``free`` kept (0 or u)
    and the free ones the
    least-squares minimiser of ``||A x + v||`` on that face (normal equations scaled to a unit diagonal, with a
    1e-13 ridge: the minimum-norm answer when the face is rank deficient), NOT clipped to the box. ``A = [K / sl;
    1^T / sm]``, ``v = [sl svec I; -sm B]`` (`local_solver._ls_matrix`), never formed. Returns (xf, K xf,
    K clip(xf, 0, u)): the two products from the fixed part's and the free columns' (one product with the whole K
    a round instead of three). ``counts``: free.sum(axis=1) if the caller has it."""
    b = x.shape[0]
    counts = free.sum(axis=1) if counts is None else counts
    k = int(counts.max()) if b else 0
    xf = x  # the caller's fresh array of the fixed values (0 on the free coordinates)
    w0 = ops.Kx(xf)
    if k == 0:
        return xf, w0, w0
    _, eye = _svec_eye(ops.K.shape[1])
    idx, valid = _gather(free, counts)  # the free coordinates of each row, left-aligned
    # residual of the fixed part, r = A x_fixed + v
    r_top = w0 / sl[:, None] + sl[:, None] * eye[None, :]
    r_last = xf.sum(axis=1) / sm - sm * B
    cols = ops.columns(idx) * valid[:, :, None]  # b x k x p, K's free columns
    KF = cols / sl[:, None, None]
    lastF = valid / sm[:, None]
    H = np.matmul(KF, KF.transpose(0, 2, 1)) + lastF[:, :, None] * lastF[:, None, :]
    scale = np.sqrt(np.einsum("bkk->bk", H))
    scale = np.where(scale > 0, scale, 1.0)
    H /= scale[:, :, None] * scale[:, None, :]
    H[:, np.arange(k), np.arange(k)] += 1e-13
    rhs = -(np.matmul(KF, r_top[..., None])[..., 0] + r_last[:, None] * lastF) / scale
    vals = np.linalg.solve(H, rhs[..., None])[..., 0] / scale * valid
    xf[np.repeat(np.arange(b), counts), idx[valid]] = vals[valid]
    both = np.matmul(np.stack([vals, np.clip(vals, 0.0, u)], axis=1), cols)  # b x 2 x p
    return xf, w0 + both[:, 0], w0 + both[:, 1]


class _Best:
    """Each problem's best point so far (smallest certified gap) with its certificate's numbers (``duality_from``'s
    R, primal, dual, gap at that point, and w = K x), so the answer needs no product. The points themselves are
    held one per slot (its current problem's; ``x``, b x n) and, when a problem is settled (`settle`), copied into
    ``alpha`` (every problem's, if kept) or ``unsettled`` (the problems not certified): a tuning batch's b T
    points are never all held (Yeast6: 2.6 MB of fresh pages a batch, ~1 ms a MB on this machine)."""

    def __init__(self, x, T: int, p: int, tol: float, keep_alpha: bool):
        b, n = x.shape
        self.x, self.w, self.tol = x.copy(), np.zeros((b * T, p)), tol
        self.gap, self.primal, self.dual, self.R = np.full(b * T, np.inf), np.zeros(b * T), np.zeros(b * T), \
            np.zeros(b * T)
        self.rounds = np.zeros(b * T, int)
        self.alpha = None if not keep_alpha else self.x if T == 1 else np.zeros((b * T, n))
        self.unsettled: dict = {}

    def offer(self, probs, slots, xc, w, R, primal, dual, gap):
        """Keep the points (of problems ``probs``, on ``slots``) whose gap is smaller than their problem's best
        one's; True where kept."""
        better = gap < self.gap[probs]
        sel = slice(None) if better.all() else better  # every point better (most rounds): views, no gathering
        at = probs[sel]
        self.x[slots[sel]], self.w[at] = xc[sel], w[sel]
        self.gap[at], self.primal[at], self.dual[at], self.R[at] = gap[sel], primal[sel], dual[sel], R[sel]
        return better

    def ok(self, probs):
        return self.gap[probs] <= self.tol * np.maximum(1.0, np.abs(self.primal[probs]))

    def settle(self, probs, slots) -> None:
        """The problems ``probs`` (on ``slots``) are finished: their best points into ``alpha`` (if kept) and, for
        those not certified, ``unsettled``."""
        if self.alpha is not None and self.alpha is not self.x:
            self.alpha[probs] = self.x[slots]
        for i in np.flatnonzero(~self.ok(probs)):
            self.unsettled[int(probs[i])] = self.x[slots[i]].copy()


def _primal_point(sl, sm, B, eye, w, s):
    """z = A x + v = [svec(S)/sl + sl svec I; s/sm - sm B] for every row, from w = svec S = K x and s = 1^T x."""
    return np.concatenate([w / sl[:, None] + sl[:, None] * eye[None, :], (s / sm - sm * B)[:, None]], axis=1)


def _line_search(z, dz, v, g, dg, u, lo, up, m: int = 16):
    """The exact minimiser t of P(z + t dz) over [0, 1], P(z) = ||z||^2/2 - v^T z + u sum_i max(0, -a_i^T z) (the
    primal in the least-squares coordinates), for every row; the hinges neither ``lo`` nor ``up`` (free: a_i^T z =
    a_i^T dz = 0) are flat along dz. P' is nondecreasing and piecewise linear: slope ||dz||^2, a jump u |dg_i|
    where hinge i changes state at t_i = max(0, -g_i / dg_i). The state at t = 0 is the partition's (``up``:
    inside), not the sign of g_i: a hinge just released from the face has g_i = 0 up to rounding, and its sign
    would put a spurious kink at t ~ 1e-15 (the search would stop there and hold that hinge again, round after
    round). z and z + dz are on the same face and z + dz minimises the face's quadratic model (whose slope at t = 1
    is 0, and P' >= that slope), so the minimiser is at t <= 1 and only the breakpoints up to 1 count (and up to
    -c0 / L, where c0 + t L, a lower bound on P', reaches 0): rows with at most ``m`` of them, and rows with at most a
    quarter of n, scan those (gathered, two groups each as wide as its widest row), the others all theirs (sorted);
    ties are taken in index order either way. Returns (t, index of the hinge whose
    kink is the minimiser or -1, the hinges crossed strictly before the minimiser)."""
    b, n = g.shape
    L = np.einsum("bm,bm->b", dz, dz)
    c0 = np.einsum("bm,bm->b", z - v, dz) - u * np.einsum("bn,bn->b", dg, up)
    cross = (up & (dg > 0)) | (lo & (dg < 0))
    # P'(t) >= c0 + t L (the jumps are >= 0), so the minimiser is at most -c0 / L: later breakpoints cannot be it
    # (kept with a margin: an extra breakpoint only costs a candidate)
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = np.minimum(1.0, np.maximum(np.where(L > 0, -c0 / L, 1.0), 0.0) * (1.0 + 1e-9))
        tb = np.divide(g, dg)
    np.negative(tb, out=tb)
    np.clip(tb, 0.0, np.inf, out=tb)  # max(0, -g_i / dg_i) (np.clip: half np.maximum's time)
    near = cross & (tb <= reach[:, None])
    np.copyto(tb, np.inf, where=~near)
    count = near.sum(axis=1)
    t, kink = np.empty(b), np.empty(b, int)
    full = count > max(m, n // 4)
    for group in (count <= m, (count > m) & ~full):  # few breakpoints, some: gathered, each group as wide as it needs
        if group.any():
            r = np.flatnonzero(group)
            cand, valid = _gather(near[r], count[r])
            t[r], kink[r] = _scan(tb[r], cand, valid, dg[r], c0[r], L[r], u)
    if full.any():
        r = np.flatnonzero(full)
        t[r], kink[r] = _scan(tb[r], np.argsort(tb[r], axis=1, kind="stable"), None, dg[r], c0[r], L[r], u,
                              ordered=True)
    t = np.minimum(t, 1.0)
    crossed = tb < np.where(kink >= 0, tb[np.arange(b), kink], t)[:, None]
    return t, kink, crossed


def _gather(near, count):
    """The indices of each row's ``near`` entries (``count`` a row), left-aligned in increasing order (b x max count,
    padded with 0) and where they are (``valid``: the first count[r] positions of row r)."""
    k = max(int(count.max()), 1)
    cand = np.zeros((near.shape[0], k), int)
    nr, pos, nc = left_aligned(near, count)
    cand[nr, pos] = nc
    return cand, np.arange(k)[None, :] < count[:, None]


def _scan(tb, cand, valid, dg, c0, L, u, ordered: bool = False):
    """`_line_search` over the breakpoints ``cand`` of each row (b x k indices, every finite breakpoint of the row
    among them; ``valid``: which positions hold one, None: all; ``ordered``: already sorted by breakpoint, ties by
    index): (t, the hinge whose kink is the minimiser or -1)."""
    b = tb.shape[0]
    at = np.arange(b)[:, None]
    tc = tb[at, cand]
    if valid is not None:
        tc[~valid] = np.inf
    if ordered:
        order, ts = cand, tc
    else:  # ties by index: the same order however the candidates were gathered
        o = np.argsort(tc, axis=1, kind="stable")
        order, ts = cand[at, o], tc[at, o]
    finite = np.isfinite(ts)
    J = np.where(finite, u * np.abs(dg[at, order]), 0.0)
    cum = np.cumsum(J, axis=1)
    before = cum - J  # jumps strictly before breakpoint k
    left = c0[:, None] + before + np.where(finite, ts, 0.0) * L[:, None]  # P'(t_k-)
    # first finite breakpoint whose right derivative P'(t_k+) is >= 0: the minimiser is before it or at it (kink)
    hit = (left + J >= 0) & finite
    found = hit.any(axis=1)
    k = np.argmax(hit, axis=1)
    rows = np.arange(b)
    at_kink = found & (left[rows, k] <= 0)
    base = np.where(found, c0 + before[rows, k], c0 + cum[:, -1])  # none found: past every breakpoint
    with np.errstate(divide="ignore", invalid="ignore"):
        t_smooth = np.where(L > 0, -base / L, 0.0)
    return np.where(at_kink, ts[rows, k], np.maximum(t_smooth, 0.0)), np.where(at_kink, order[rows, k], -1)


def solve_batch(K, q0, mus, lams, B: float, alpha0=None, *, which=None, tol: float = DEFAULT_TOL,
                max_rounds: int = 60, patience: int = 16, pdas_rounds: int = 2, keep_alpha: bool = True) -> BatchAnswer:
    """Solve b local problems sharing the number of negatives n, in lock step, by an active-set method on the
    primal with exact line searches (a finite Newton method for the piecewise quadratic primal, in the spirit of
    Keerthi & DeCoste 2005's for the L2-SVM); or b PATHS of T problems each, every slot moving on to its next
    problem, warm-started from its last answer, as soon as that answer is settled (so the batch's rounds are the
    longest path's, not the sum over the steps of each step's slowest problem).

    ``K`` (C x p x n): the svec outer products (`local_solver.LocalProblem.K`) of C centres, ``q0`` (C x n) their
    squared norms, ``which`` (b,) the centre of each slot (default: slot r is centre r); with slot r on centre
    ``r // L`` (L copies of each centre in turn, e.g. at L lam values) each K is read once per round; ``mus``, ``lams``
    (b,) or (b, T): slot r solves (mus[r, 0], lams[r, 0]), then (mus[r, 1], lams[r, 1]) from that answer, ...
    (every ``2 mu B >= 1``: R >= 0 holds on the whole box); ``alpha0`` (b x n) the slots' first warm starts (e.g.
    the answers at a neighbouring (mu, lam); default 0, i.e. M = I, R = B). The first ``pdas_rounds`` rounds of a
    slot's first problem are primal-dual active-set steps (see the module docstring). The answer has
    one row per problem, step-major: row ``t * b + r`` is slot r's step t (row r when T = 1).

    In the least-squares coordinates ``z = A alpha + v`` the primal is ``P(z) = ||z||^2/2 - v^T z + u sum_i
    max(0, -a_i^T z)`` (u = 1/n; a negative is inside when a_i^T z = q_i - R < 0). A round: (1) the face solve
    (`_face_solve`) on the partition (inside: alpha = u; outside: 0; on the boundary: free, a_i^T z = 0), whose
    point, clipped to the box, is certified by the duality gap (`local_solver.duality_from`); (2) the exact line
    search of P from z towards the face solution's z (a descent direction: P agrees with the face's quadratic model
    to first order), so every negative it carries across the boundary changes side at once; (3) the new partition:
    the hinges crossed change side, a hinge whose kink is the line minimiser becomes free, and the free coordinates
    whose face value left [0, u] go to that bound. P decreases at every round. With a warm start whose partition
    is right, the first round is exact. A problem not certified within ``max_rounds`` rounds, or whose best gap
    did not fall in ``patience`` rounds, keeps its best point (``ok`` False; its slot moves on): the caller
    re-solves it with the one-problem solver."""
    K, q0, mus, lams = _inputs(K, q0, mus, lams, B, which)
    which = np.arange(K.shape[0]) if which is None else np.asarray(which, int)
    (b, T), (_, p, n) = mus.shape, K.shape
    u = 1.0 / n
    x = np.zeros((b, n)) if alpha0 is None else np.clip(np.asarray(alpha0, float), 0.0, u)
    best = _Best(x, T, p, tol, keep_alpha)
    _, eye = _svec_eye(p)
    cap = 2 * (p + 1)
    since = np.zeros(b * T, int)  # rounds since each problem's best gap last fell
    step, age = np.zeros(b, int), np.zeros(b, int)  # each slot's problem on its path, rounds spent on it
    # the slots in the current arrays (all of them while most still run, then only those), ``run`` the ones
    # still running among them; ``z`` the line search's point once it has one (``zset``), ``g = A^T z``
    rows, ops = np.arange(b), _Rows(K, which)
    run = np.ones(b, bool)
    lo, up = x <= 0.0, x >= u
    z, g, zset = np.zeros((b, p + 1)), np.zeros((b, n)), np.zeros(b, bool)
    q0r = q0[which]  # each row's q0, compacted with the rows
    while True:
        if run.sum() <= rows.size * 3 // 4:  # compact: only the running slots
            keep = run
            rows, ops, lo, up, run, z, g, zset, q0r = (rows[keep], ops.subset(keep), lo[keep], up[keep], run[keep],
                                                       z[keep], g[keep], zset[keep], q0r[keep])
        if not run.any():
            break
        everyone = bool(run.all())
        prob = step[rows] * b + rows  # each slot's current problem
        free = ~(lo | up)
        counts = free.sum(axis=1)
        over = counts > cap  # face solves of at most 2 m coordinates; the others give up
        if not everyone or over.any():
            solving = run & ~over
            free &= solving[:, None]
            counts = np.where(solving, counts, 0)
        mu_r, lam_r = mus[rows, step[rows]], lams[rows, step[rows]]
        sl, sm = np.sqrt(2.0 * lam_r), np.sqrt(2.0 * mu_r)
        xf, w_f, w_c = _face_solve(ops, sl, sm, B, u, up * u, free, counts)
        xc = np.clip(xf, 0.0, u)
        # K^T w for the clipped point (its certificate) and the face solution (the line search), in one product
        # (one vector when no face value left the box)
        # q = q0 + K^T w / (2 lam) (``qw[:, 0]`` at the clipped point, ``qw[:, 1]`` at the face solution)
        if np.array_equal(w_c, w_f):
            q = ops.KTw(w_c / (2.0 * lam_r)[:, None])
            q += q0r
            qw = np.broadcast_to(q[:, None, :], (rows.size, 2, n))
        else:
            qw = ops.KTw(np.stack([w_c, w_f], axis=1) / (2.0 * lam_r)[:, None, None])
            qw += q0r[:, None, :]
        R, g_c, primal, dual, gap = duality_from(w_c, qw[:, 0], xc, q0r, mu_r, lam_r, B)
        act = prob if everyone else prob[run]
        best.rounds[act] += 1
        if everyone:
            improved = best.offer(act, rows, xc, w_c, R, primal, dual, gap)
        else:
            improved = best.offer(act, rows[run], xc[run], w_c[run], R[run], primal[run], dual[run], gap[run])
        since[act] = np.where(improved, 0, since[act] + 1)
        age[rows[run]] += 1
        done = run & ((gap <= tol * np.maximum(1.0, np.abs(primal))) | (since[prob] >= patience)
                      | (age[rows] >= max_rounds) | over)
        i = np.flatnonzero(run & ~done)
        if i.size:  # the others' partition, z and g are not read again
            every = i.size == rows.size
            sel = slice(None) if every else i  # all rows: views, updated in place, no gathering
            s_f = xf[sel].sum(axis=1)
            sl_i, sm_i = sl[sel], sm[sel]
            zf = _primal_point(sl_i, sm_i, B, eye, w_f[sel], s_f)
            gf = qw[sel, 1] + (s_f / (2.0 * mu_r[sel]) - B)[:, None]
            v = np.concatenate([sl_i[:, None] * eye[None, :], (-sm_i * B)[:, None]], axis=1)
            at_rows = np.arange(rows.size)[sel]

            def zc_of(r, at_rows=at_rows, sl=sl, sm=sm, w_c=w_c, xc=xc):
                """The clipped face point z of the searching rows ``r`` (only a stalled search reads it)."""
                rr = at_rows[r]
                return _primal_point(sl[rr], sm[rr], B, eye, w_c[rr], xc[rr].sum(axis=1))

            # primal-dual steps in the first rounds of a slot's first problem only (cold, or from alpha0: a larger
            # move); a path's next problems start from their neighbour's answer, where line searches take fewer
            # rounds (Yeast6's tuning: 5103 -> 4942)
            pd_rounds = (age[rows[sel]] <= pdas_rounds) & (step[rows[sel]] == 0)
            new = _next_partition(v, u, cap, lo[sel], up[sel], z[sel], g[sel], zset[sel], free[sel], xf[sel], zc_of,
                                  g_c[sel], zf, gf, first_rounds=pd_rounds, hold=since[prob[sel]] < HOLD_ROUNDS)
            if not every:
                lo[i], up[i], z[i], g[i], zset[i] = new
        if done.any():  # settled problems: their slots move on along the path, warm-started, or stop
            best.settle(prob[done], rows[done])
            nxt = done & (step[rows] + 1 < T)
            j = np.flatnonzero(nxt)
            step[rows[j]] += 1
            age[rows[j]] = 0
            x0 = best.x[rows[j]]
            lo[j], up[j], zset[j] = x0 <= 0.0, x0 >= u, False
            run &= ~(done & ~nxt)
    return _answer(lams.T.reshape(-1), best)


def _next_partition(v, u, cap, lo, up, z, g, zset, free, xf, zc_of, g_c, zf, gf, first_rounds, hold):
    """Step (3) of `solve_batch`'s round for the rows still searching: (lo, up, z, g, zset) for the next face
    solve (the arrays given are the caller's copies, updated in place); ``v`` the rows' v, ``zc_of(rows)`` the
    clipped face point zc of those rows, ``g_c`` its slopes A^T zc, ``zf``, ``gf`` the face solution's.

    Rows in their first rounds after a warm start (``first_rounds``, no line-search point yet) take a primal-dual
    active-set step; the others a line search from z towards zf (at the first one, z = zf and the partition is
    the signs there). A search that cannot move (t = 0, no kink: a free coordinate's face value left the box and
    pins it) restarts from the clipped face point, its partition by the signs there."""
    # primal-dual active-set step (exact in one more round after a small change of (mu, lam)): the free
    # coordinates that left the box to their bound, the bound ones with the wrong gradient sign freed
    r = np.flatnonzero(first_rounds & ~zset)
    searching = np.ones(zset.size, bool)
    if r.size:
        fr, x = free[r], xf[r]
        pd_lo = (fr & (x <= 0.0)) | (lo[r] & (g_c[r] >= 0.0))
        pd_up = (fr & (x >= u)) | (up[r] & (g_c[r] <= 0.0))
        ok = (~(pd_lo | pd_up)).sum(axis=1) <= cap
        lo[r[ok]], up[r[ok]] = pd_lo[ok], pd_up[ok]
        searching[r[ok]] = False
    first = searching & ~zset
    go = np.flatnonzero(searching & zset)
    if first.any():  # start from the face solution's point, the partition by the signs there
        f = np.flatnonzero(first)
        z[f], g[f] = zf[f], gf[f]
        _release(lo, up, f, free[f], xf[f], u, gf[f] > 0.0)
        zset[f] = True
    if go.size:
        at = slice(None) if go.size == zset.size else go  # every row: views, no gathering
        dz, dg = zf[at] - z[at], gf[at] - g[at]
        t, kink, crossed = _line_search(z[at], dz, v[at], g[at], dg, u, lo[at], up[at])
        z[at] += t[:, None] * dz
        g[at] += t[:, None] * dg
        moved = (kink >= 0) | crossed.any(axis=1)  # not at the face's minimiser
        stalled = ~hold[at] & (t <= 0.0) & ~moved
        side_lo = lo[at] ^ crossed
        fr = free[go]  # a copy (changed below)
        if stalled.any():
            s = go[stalled]
            z[s], g[s] = zc_of(s), g_c[s]
            side_lo[stalled], fr[stalled] = g_c[s] > 0.0, False
        _release(lo, up, at, fr, xf[at], u, side_lo, kink, hold[at] & moved)
    return lo, up, z, g, zset


def _release(lo, up, rows, free, xf, u, side_lo, kink=None, hold=None) -> None:
    """The new partition of ``rows`` (in place): the free coordinates stay free where the row ``hold``s them or
    their face value is inside the box, else go to the bound it left by; a row's ``kink`` (>= 0) becomes free; the
    others are outside where ``side_lo``."""
    keep = free & (xf > 0.0) & (xf < u)
    if hold is not None:
        keep |= free & hold[:, None]
    if kink is not None:
        has = np.flatnonzero(kink >= 0)
        keep[has, kink[has]] = True
    new_lo = ~keep & np.where(free, xf <= 0.0, side_lo)
    lo[rows], up[rows] = new_lo, ~(keep | new_lo)


def _answer(lams, best: _Best) -> BatchAnswer:
    """The answers from each problem's best point and its certificate."""
    d, eye = _svec_eye(best.w.shape[1])
    M = unsvec_batch(eye[None, :] + best.w / (2.0 * lams[:, None]), d)
    ok = best.ok(slice(None))
    return BatchAnswer(best.alpha, M, best.R, best.primal, best.dual, best.gap, ok, best.rounds, best.unsettled)


def _inputs(K, q0, mus, lams, B, which=None):
    """K, q0 as float arrays and mus, lams as (b, T) paths (T = 1 for one problem a slot)."""
    K = np.asarray(K, float)
    b = K.shape[0] if which is None else np.size(which)
    mus, lams = np.asarray(mus, float), np.asarray(lams, float)
    if mus.shape != lams.shape or mus.ndim > 2 or np.size(mus) == 0 or (mus.ndim == 2 and mus.shape[0] != b):
        raise InputError(f"mus and lams must both be ({b},) or ({b}, T); got {mus.shape} and {lams.shape}")
    mus, lams = mus.reshape(b, -1), lams.reshape(b, -1)
    if np.any(2.0 * mus * B < 1.0):
        raise InputError(f"the batched solver covers pairs with 2 mu B >= 1 only (R >= 0 on the whole box); got "
                         f"mu = {float(np.min(mus))}, B = {B}: use local_solver.solve_local")
    return K, np.asarray(q0, float), mus, lams


def _warm_points(K, ellipsoids, n_free: int = 8) -> np.ndarray:
    """Starting points from ellipsoids (M, R) near the optima (each problem's, or None: 0), one row per problem of
    ``K`` (C x p x n): `programs.warm_alpha`'s point (1/n for the negatives strictly inside, q_i = y_i^T M y_i =
    svec(M)^T K[:, i] < R; 0 for the others), with the ``n_free`` negatives nearest its boundary (smallest
    |q_i - R|) at 1/(2n), so the first face solve places them (the final model's boundary negatives are near the
    tuned one's: measured on Yeast6 and breast cancer, its rounds 25-36 -> 21-26 and 43-51 -> 30-31 at most)."""
    C, p, n = K.shape
    d = int(round((np.sqrt(8 * p + 1) - 1) / 2))
    iu, ju = np.triu_indices(d)
    x = np.zeros((C, n))
    have = [j for j, e in enumerate(ellipsoids) if e is not None]
    if not have:
        return x
    Ms = np.stack([np.asarray(ellipsoids[j][0], float) for j in have])
    Rs = np.array([float(ellipsoids[j][1]) for j in have])
    svec_M = (Ms[:, iu, ju] * np.where(iu == ju, 1.0, np.sqrt(2.0)))[:, None, :]
    q = np.matmul(svec_M, K if len(have) == C else K[have])[:, 0, :]
    x[have] = np.where(q < Rs[:, None], 1.0 / n, 0.0)
    k = min(n_free, n)
    near = np.argpartition(np.abs(q - Rs[:, None]), k - 1, axis=1)[:, :k]
    x[np.repeat(have, k), near.ravel()] = 0.5 / n
    return x


def fit_batch(P, X_neg, mus, lams, B: float, *, warm_start=None, tol: float = DEFAULT_TOL,
              max_bytes: float = 16e6) -> list:
    """The local models of every positive ``P[j]`` against all of ``X_neg`` with its own (``mus[j]``, ``lams[j]``)
    (every ``2 mu B >= 1``), solved in batches (`solve_batch`; the centres cut into consecutive chunks of at most
    ``max_bytes`` of `LocalProblem.K`) from ``warm_start[j]`` = (M, R) (`_warm_points`; None: cold). Returns one
    `local_solver.LocalSolution` per centre, each certified by `local_solver.certify` (the same duality gap); a
    problem the batch does not certify is re-solved by `local_solver.solve_local_checked` from the batch's best
    point (its answer says so in ``path``)."""
    import time

    from .local_solver import certify, local_problems, solve_local_checked

    P = np.asarray(P, float)
    mus, lams = np.asarray(mus, float), np.asarray(lams, float)
    n, d = np.shape(X_neg)
    per = 8.0 * n * d * (d + 1) / 2
    step = max(1, int(max_bytes // per))
    out = []
    for a in range(0, len(P), step):
        t0 = time.perf_counter()
        idx = range(a, min(a + step, len(P)))
        probs, K, q0 = local_problems(X_neg, P[list(idx)])
        alpha0 = None if warm_start is None else _warm_points(K, [warm_start[j] for j in idx])
        ans = solve_batch(K, q0, mus[list(idx)], lams[list(idx)], B, alpha0, tol=tol)
        share = (time.perf_counter() - t0) / len(probs)
        alpha = ans.alpha
        assert alpha is not None  # kept (keep_alpha's default)
        for i, (pr, j) in enumerate(zip(probs, idx)):
            if ans.ok[i]:
                sol = certify(pr, alpha[i], mus[j], lams[j], B, solver="dedicated", tol=tol,
                              iterations=int(ans.rounds[i]), seconds=share)
                sol.path = "batch"
            else:
                sol = solve_local_checked(pr, mus[j], lams[j], B, alpha0=alpha[i], tol=tol)
                sol.path = "batch, then " + sol.path
            out.append(sol)
    return out
