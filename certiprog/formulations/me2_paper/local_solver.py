"""A dedicated, certified solver for ME^2's local problem (Problem 2 for one positive ``c`` against the negatives).

Derivation (re-derived here; the printed dual of Sec. 3 has dimension and sign errors, docs/derivations/002.md E1-E3).
With ``y_i = x_i - c``, ``S(alpha) = sum_i alpha_i y_i y_i^T``, ``s = 1^T alpha``, the Lagrange dual function is
``g(alpha, beta, delta) = -alpha^T q0 - ||S||_F^2/(4 lam) - (beta - delta - s)^2/(4 mu) + B s - B beta`` on
``0 <= alpha <= 1/n``, ``beta, delta >= 0`` (``q0_i = ||y_i||^2``). Maximising over (beta, delta) in closed form
(``delta = 0``, ``beta = max(0, s - 2 mu B)``) and completing squares gives, for every alpha in the box,

    max_{beta, delta} g = lam d + mu B^2 - F(alpha),    F(alpha) = lam ||M(alpha)||_F^2 + mu R(alpha)^2

with the closed forms ``M(alpha) = I + S(alpha)/(2 lam)`` (so ``M >= I``) and ``R(alpha) = max(0, B - s/(2 mu))``.
So the dual is ``min F`` over the box: in symmetric-vectorised coordinates (``svec``, ``||A||_F = ||svec A||``) it is
the bounded-variable least-squares problem ``min ||L alpha + v||^2 / 2`` with the (p+1) x n matrix
``L = [K / sqrt(2 lam); 1^T / sqrt(2 mu)]`` (K's column i is ``svec(y_i y_i^T)``, p = d(d+1)/2; the last row is
dropped where R = 0) and ``v = [sqrt(2 lam) svec(I); -sqrt(2 mu) B]``; ``L alpha + v = [sqrt(2 lam) svec M; -sqrt(2 mu)
R]``. The gradient is ``dF/dalpha_i = q_i(M) - R`` with ``q_i(M) = y_i^T M y_i``: a negative strictly inside the
ellipsoid wants ``alpha_i = 1/n``, one strictly outside ``alpha_i = 0``.

Solver: projected Newton (Bertsekas 1982) on the box; on the free variables the step is the minimum-norm
least-squares (Gauss-Newton) step, which solves the face problem exactly, so the iteration ends once the active set is
found. A tuned fit solves the 72 (mu, lam) pairs of a centre along the grid, each warm-started from the previous
alpha (the box does not depend on mu, lam).

Certificate: for ANY alpha in the box the closed forms give a feasible primal point ``(M, R, xi = [R - q]_+)`` and a
feasible dual point, so ``gap = P - D = sum_i [ (1/n) [R - q_i]_+ + alpha_i (q_i - R) ] >= 0`` (every term is >= 0,
which is how it is computed) bounds the primal suboptimality, and the strong convexity of Problem 2 in (M, R) gives
``lam ||M - M*||_F^2 + mu (R - R*)^2 <= gap``: the returned (M, R) are within ``sqrt(gap/lam)`` and ``sqrt(gap/mu)``
of the exact optimum (`LocalSolution.M_error`, `LocalSolution.R_error`).

The generic path (`solve_local_generic`: the corrected dual as a certiprog Model, `programs.me2_dual`, on Clarabel or
any backend) returns the same `LocalSolution` with the same certificate.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import scipy.linalg

from certiprog import validation as validate
from certiprog.errors import BackendError, InputError
from certiprog.model import Record

__all__ = ["LocalCertificate", "LocalProblem", "LocalSolution", "solve_local", "solve_local_checked",
           "solve_local_path", "solve_local_generic", "solve_local_cvxpy", "solve_local_by", "local_method",
           "local_problem", "local_problems", "LOCAL_METHODS"]

DEFAULT_TOL = 1e-10  # relative duality gap at which the dedicated solver stops
DEFAULT_MAX_ITER = 200
GENERIC_TOL = 1e-7  # relative gap a general-purpose interior-point answer is held to (they stop near 1e-8)
#: the ways to solve a local problem (`solve_local_by`); any other solver name is a certiprog backend (`local_method`)
LOCAL_METHODS = ("dedicated", "generic", "cvxpy-direct")


# ----------------------------------------------------------------------------------------------------------------
# Data of one centre's local problems
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LocalProblem:
    """The data one centre's local problems share: ``Y = X_neg - c`` (n x d), ``K`` (p x n, column i =
    ``svec(y_i y_i^T)``), ``q0 = ||y_i||^2``. Build it with `local_problem`; it does not depend on (mu, lam, B)."""

    center: np.ndarray
    Y: np.ndarray
    K: np.ndarray
    q0: np.ndarray
    svec_I: np.ndarray

    @property
    def n(self) -> int:
        return self.Y.shape[0]

    @property
    def d(self) -> int:
        return self.Y.shape[1]

    def M_of(self, w: np.ndarray, lam: float) -> np.ndarray:
        """``I + S/(2 lam)`` from ``w = svec(S)``."""
        return unsvec(self.svec_I + w / (2.0 * lam), self.d)


@functools.lru_cache(maxsize=64)
def _svec_index(d: int):
    iu, ju = np.triu_indices(d)
    w = np.where(iu == ju, 1.0, np.sqrt(2.0))
    for a in (iu, ju, w):
        a.setflags(write=False)
    return iu, ju, w


def svec(A: np.ndarray) -> np.ndarray:
    """Upper triangle of a symmetric matrix, off-diagonal entries times sqrt(2) (so ``||svec A|| = ||A||_F``)."""
    iu, ju, w = _svec_index(A.shape[0])
    return A[iu, ju] * w


def unsvec(v: np.ndarray, d: int) -> np.ndarray:
    """Inverse of `svec`."""
    iu, ju, w = _svec_index(d)
    A = np.zeros((d, d))
    A[iu, ju] = v / w
    A[ju, iu] = v / w
    return A


def unsvec_batch(V: np.ndarray, d: int) -> np.ndarray:
    """`unsvec` of every row of V (b x d(d+1)/2) -> b x d x d."""
    iu, ju, w = _svec_index(d)
    A = np.zeros((V.shape[0], d, d))
    A[:, iu, ju] = V / w
    A[:, ju, iu] = V / w
    return A


def local_problem(X_neg, center) -> LocalProblem:
    """Validate the negatives (n x d) and the centre (d,) and precompute `LocalProblem` (O(n d^2) memory)."""
    X = validate.matrix(X_neg, "X_neg", min_rows=1)
    c = validate.vector(center, "center", size=X.shape[1])
    Y = X - c
    iu, ju, w = _svec_index(X.shape[1])
    K = np.ascontiguousarray((Y[:, iu] * Y[:, ju] * w).T)
    return LocalProblem(c, Y, K, np.einsum("ij,ij->i", Y, Y), svec(np.eye(X.shape[1])))


def local_problems(X_neg, centers) -> tuple:
    """`local_problem` for every row of ``centers`` (C x d) against the same negatives: (list of `LocalProblem`,
    K (C x p x n), q0 (C x n)), problem j's ``K`` and ``q0`` the j-th slices of those arrays. The batched solver
    reads them stacked; building them at once writes each K once (no per-centre temporaries and stacked copy)."""
    X = validate.matrix(X_neg, "X_neg", min_rows=1)
    Cs = validate.matrix(centers, "centers", cols=X.shape[1])
    Yt = X.T[None, :, :] - Cs[:, :, None]  # C x d x n: each coordinate's row contiguous
    iu, ju, w = _svec_index(X.shape[1])
    K = np.empty((Cs.shape[0], iu.size, X.shape[0]))
    for k, (i, j, wk) in enumerate(zip(iu, ju, w)):
        np.multiply(Yt[:, i, :], Yt[:, j, :], out=K[:, k, :])
        if wk != 1.0:
            K[:, k, :] *= wk
    Y = np.ascontiguousarray(Yt.transpose(0, 2, 1))
    q0 = np.einsum("cnd,cnd->cn", Y, Y)
    eye = svec(np.eye(X.shape[1]))
    return [LocalProblem(Cs[c], Y[c], K[c], q0[c], eye) for c in range(Cs.shape[0])], K, q0


def _params(mu, lam, B):
    return (validate.scalar(mu, "mu", low=0.0, low_open=True), validate.scalar(lam, "lam", low=0.0, low_open=True),
            validate.scalar(B, "B", low=0.0, low_open=True))


# ----------------------------------------------------------------------------------------------------------------
# Result with its certificate
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LocalCertificate(Record):
    """The certificate of one local model (what `LocalSolution.certificate` returns and
    ``ME2Classifier.certificates_`` holds): ``primal`` / ``dual`` objective values (``dual <= p* <= primal``),
    ``gap``, ``rel_gap = gap / max(1, |primal|)``, ``M_error`` / ``R_error`` (certified bounds on ``||M - M*||_F``
    and ``|R - R*|``), ``status``, ``solver``, ``iterations``, ``seconds``, ``n_inside`` (negatives strictly inside:
    training errors), ``n_support`` (alpha_i > 0), the local ``mu``, ``lam``, ``B`` and ``fallback`` (why the
    dedicated answer was replaced by a generic one; "" when it was not). All plain Python numbers and strings, so
    ``as_dict()`` is JSON-safe."""

    primal: float
    dual: float
    gap: float
    rel_gap: float
    M_error: float
    R_error: float
    status: str
    solver: str
    iterations: int
    seconds: float
    n_inside: int
    n_support: int
    mu: float
    lam: float
    B: float
    fallback: str = ""


@dataclass(eq=False)
class LocalSolution(Record):
    """One local model and its certificate.

    ``M``, ``R``: the ellipsoid ``{x : (x - c)^T M (x - c) <= R}`` (closed forms of ``alpha``); ``alpha``,
    ``beta``, ``delta``: the dual point; ``primal`` / ``dual``: objective values at the closed-form primal point and at
    the dual point (``dual <= p* <= primal``); ``gap = primal - dual`` computed as a sum of non-negative terms;
    ``M_error`` / ``R_error``: certified bounds ``sqrt(gap/lam)``, ``sqrt(gap/mu)`` on the distance to the exact
    optimum; ``status`` "optimal" (gap within the tolerance) or "inaccurate"; ``solver``: "dedicated" or the backend.
    How the dedicated solver got there: ``path`` (e.g. "warm start", "screening + interior point + active set"),
    ``ipm_iterations``, ``active_set_rounds``, ``stages`` (screening rounds) and ``screened`` (variables fixed by
    gap-safe screening); ``fallback``: why a dedicated answer was replaced by this generic one ("" otherwise).
    """

    M: np.ndarray
    R: float
    alpha: np.ndarray
    beta: float
    delta: float
    primal: float
    dual: float
    gap: float
    mu: float
    lam: float
    B: float
    status: str
    solver: str
    iterations: int = 0
    seconds: float = 0.0
    n_inside: int = 0
    n_support: int = 0
    path: str = ""
    ipm_iterations: int = 0
    active_set_rounds: int = 0
    stages: int = 0
    screened: int = 0
    fallback: str = ""

    @property
    def rel_gap(self) -> float:
        return self.gap / max(1.0, abs(self.primal))

    @property
    def M_error(self) -> float:
        """Certified bound on ``||M - M*||_F``."""
        return float(np.sqrt(max(self.gap, 0.0) / self.lam))

    @property
    def R_error(self) -> float:
        """Certified bound on ``|R - R*|``."""
        return float(np.sqrt(max(self.gap, 0.0) / self.mu))

    @property
    def ok(self) -> bool:
        return self.status == "optimal"

    def certificate(self) -> LocalCertificate:
        """The `LocalCertificate`: objective values, gap, certified error bounds, counts, solver and time."""
        return LocalCertificate(float(self.primal), float(self.dual), float(self.gap), float(self.rel_gap),
                                self.M_error, self.R_error, str(self.status), str(self.solver), int(self.iterations),
                                float(self.seconds), int(self.n_inside), int(self.n_support), float(self.mu),
                                float(self.lam), float(self.B), str(self.fallback))


def _evaluate(prob: LocalProblem, alpha, mu, lam, B):
    """(w, s, R, q, g) at alpha: w = svec S(alpha), q the squared M-distances, g = q - R the gradient of F."""
    w = prob.K @ alpha
    s = float(alpha.sum())
    R = max(0.0, B - s / (2.0 * mu))
    q = prob.q0 + (prob.K.T @ w) / (2.0 * lam)
    return w, s, R, q, q - R


def _objective(prob: LocalProblem, alpha, mu, lam, B) -> float:
    """F(alpha) - F(0) = q0^T alpha + ||S||^2/(4 lam) + mu R^2 - mu B^2 (= -(dual value))."""
    w = prob.K @ alpha
    R = max(0.0, B - float(alpha.sum()) / (2.0 * mu))
    return float(prob.q0 @ alpha + (w @ w) / (4.0 * lam) + mu * (R * R - B * B))


def duality_batch(K, q0, a, mu, lam, B):
    """The certificate's numbers at b dual points at once: ``K`` (b x p x n, each problem's `LocalProblem.K`),
    ``q0`` (b x n), ``a`` (b x n, in the box), ``mu``, ``lam`` (b,) -> (w, s, R, q, g, primal, dual, gap), each with
    a leading axis b: ``w = svec S(a)``, ``s = 1^T a``, ``R = max(0, B - s/(2 mu))``, ``q`` the squared M-distances,
    ``g = q - R``, the closed-form primal's objective, the dual objective and the gap
    ``sum_i (1/n)[-g_i]_+ + a_i g_i`` written as a sum of products of non-negative numbers (>= 0 exactly). The one
    definition of the certificate (`certify` and the batched solver use it)."""
    lam = np.asarray(lam, float).reshape(-1)
    w = np.matmul(K, a[..., None])[..., 0]
    q = q0 + np.matmul(w[:, None, :], K)[:, 0, :] / (2.0 * lam)[:, None]
    R, g, primal, dual, gap = duality_from(w, q, a, q0, mu, lam, B)
    return w, a.sum(axis=1), R, q, g, primal, dual, gap


def duality_from(w, q, a, q0, mu, lam, B):
    """`duality_batch`'s formulas from ``w = K a`` and ``q = q0 + K^T w / (2 lam)`` computed by the caller (the
    batched solver shares K between problems): (R, g, primal, dual, gap), one entry per row."""
    n = a.shape[1]
    mu, lam = np.asarray(mu, float).reshape(-1), np.asarray(lam, float).reshape(-1)
    R = np.maximum(0.0, B - a.sum(axis=1) / (2.0 * mu))
    g = q - R[:, None]
    norm_S2 = np.einsum("bp,bp->b", w, w)
    # gap = sum_i a_i [g_i]_+ + (1/n - a_i) [-g_i]_+: one of the two products is 0 for each i, every factor >= 0
    # (einsum sums from +0.0, so a g_i = -0.0 gives no -0.0); one work array holds [g]_+, then -[-g]_+ (np.clip:
    # half np.maximum's time on numpy 2, the same values)
    part = np.clip(g, 0.0, np.inf)
    gap = np.einsum("bn,bn->b", a, part)
    np.clip(g, -np.inf, 0.0, out=part)
    primal = -part.sum(axis=1) / n + mu * (B - R) ** 2 + norm_S2 / (4.0 * lam)
    dual = -(np.einsum("bn,bn->b", q0, a) + norm_S2 / (4.0 * lam) + mu * (R * R - B * B))
    gap -= np.einsum("bn,bn->b", np.subtract(1.0 / n, a), part)
    return R, g, primal, dual, gap


def _duality(prob: LocalProblem, a, mu, lam, B):
    """(w, s, R, g, primal, dual, gap) at the dual point ``a`` (in the box): the closed-form primal's objective,
    the dual objective and their gap (`duality_batch` for one point), as `certify` reports them."""
    w, s, R, _, g, primal, dual, gap = duality_batch(prob.K[None], prob.q0[None], np.asarray(a, float)[None],
                                                     mu, lam, B)
    return w[0], float(s[0]), float(R[0]), g[0], float(primal[0]), float(dual[0]), float(gap[0])


def _within(gap: float, primal: float, tol: float) -> bool:
    """The certificate's acceptance rule: ``gap <= tol * max(1, |primal|)``."""
    return gap <= tol * max(1.0, abs(primal))


def certify(prob: LocalProblem, alpha, mu, lam, B, *, solver: str, tol: float = DEFAULT_TOL, iterations: int = 0,
            seconds: float = 0.0) -> LocalSolution:
    """`LocalSolution` at the dual point ``alpha`` (clipped to the box): closed-form primal, both objective values,
    the gap and the status ("optimal" iff ``gap <= tol * max(1, primal)``)."""
    n = prob.n
    a = np.clip(np.asarray(alpha, float).reshape(-1), 0.0, 1.0 / n)
    w, s, R, g, primal, dual, gap = _duality(prob, a, mu, lam, B)
    tol_R = 1e-9 * max(1.0, R)
    return LocalSolution(
        M=prob.M_of(w, lam), R=float(R), alpha=a, beta=max(0.0, s - 2.0 * mu * B), delta=0.0, primal=primal,
        dual=dual, gap=gap, mu=mu, lam=lam, B=B, status="optimal" if _within(gap, primal, tol) else "inaccurate",
        solver=solver, iterations=iterations, seconds=seconds, n_inside=int(np.sum(g < -tol_R)),
        n_support=int(np.sum(a > 0)))


# ----------------------------------------------------------------------------------------------------------------
# Dedicated solver: active-set (face) solves, interior point where they do not settle it
# ----------------------------------------------------------------------------------------------------------------
class _Point(NamedTuple):
    """A dual point of `solve_local` with its duality gap and primal value."""

    alpha: np.ndarray
    gap: float
    primal: float


def _ls_matrix(prob: LocalProblem, mu, lam, B):
    """(A, v, ub): the box least-squares form ``min ||A x + v||^2/2``, ``0 <= x <= ub``, x = (alpha, [beta]).

    The beta column (``R >= 0``'s multiplier, ub = inf) is only added when ``2 mu B < 1``: otherwise
    ``R = B - s/(2 mu) >= B - 1/(2 mu) >= 0`` for every alpha in the box and beta* = 0."""
    n = prob.n
    sl, sm = np.sqrt(2.0 * lam), np.sqrt(2.0 * mu)
    A = np.vstack([prob.K / sl, np.full((1, n), 1.0 / sm)])
    v = np.append(sl * prob.svec_I, -sm * B)
    ub = np.full(n, 1.0 / n)
    if 2.0 * mu * B < 1.0:
        col = np.zeros((A.shape[0], 1))
        col[-1, 0] = -1.0 / sm
        A = np.hstack([A, col])
        ub = np.append(ub, np.inf)
    return A, v, ub


def _face_solve(A, v, ub, lo, up):
    """x with x[lo] = 0, x[up] = ub, and the free part the least-squares minimiser on that face (minimum norm in
    column-scaled coordinates when it is not unique)."""
    x = np.where(up, ub, 0.0)
    free = np.flatnonzero(~(lo | up))
    if free.size:
        r0 = A[:, up] @ ub[up] + v
        cols = A[:, free]
        scale = np.sqrt(np.einsum("ij,ij->j", cols, cols))
        scale = np.where(scale > 0, scale, 1.0)
        # gelsy (complete orthogonal factorisation): the same minimum-norm solution as the SVD's gelsd, 2-3x faster
        sol = scipy.linalg.lstsq(cols / scale, -r0, cond=1e-13, lapack_driver="gelsy", check_finite=False)[0]
        x[free] = sol / scale
    return x


def _active_set(A, v, ub, lo, up, max_rounds, x=None):
    """Primal active-set method (Lawson-Hanson / Stark-Parker bounded-variable least squares, adding up to m
    violators at a time) from the partition (lo: x = 0, up: x = ub, rest free; ``x`` the free values, default the
    face solve). Every face solve is followed by a step towards it that stops at the first bound it meets, so the
    objective never increases. Returns (x, rounds, converged) with x in the box."""
    m = A.shape[0]
    lo, up = lo.copy(), up.copy()
    x = np.where(up, ub, 0.0) if x is None else np.where(lo, 0.0, np.where(up, ub, np.clip(x, 0.0, ub)))
    added = np.zeros(x.size, bool)
    tol_x = 1e-14 * np.where(np.isfinite(ub), ub, 1.0)
    for rounds in range(1, max_rounds + 1):
        z = _face_solve(A, v, ub, lo, up)
        free = ~(lo | up)
        below, above = free & (z < 0), free & (z > ub)
        if below.any() or above.any():  # step from x towards z up to the first bound
            dz = z - x
            ratios = np.concatenate([x[below] / -dz[below], (ub[above] - x[above]) / dz[above]])
            t = float(np.clip(np.min(ratios), 0.0, 1.0))
            if t == 0.0 and (added & (below | above)).any() and added.sum() > 1:
                # a batch of new free variables went the wrong way: keep only the most violating one
                keep = np.flatnonzero(added)
                g = A.T @ (A @ x + v)
                first = keep[np.argmax(np.abs(g[keep]))]
                back = added.copy()
                back[first] = False
                lo |= back & (x <= tol_x)
                up |= back & (x >= ub - tol_x)
                added[:] = False
                added[first] = True
                continue
            x = np.where(free, x + t * dz, x)
            hit_lo = free & (x <= tol_x + 1e-12 * np.abs(dz) * 0)
            hit_up = free & (x >= ub - tol_x)
            hit_lo |= below & (x <= np.maximum(tol_x, 1e-15))
            x = np.where(hit_lo, 0.0, np.where(hit_up, ub, x))
            lo |= hit_lo
            up |= hit_up
            added[:] = False
            continue
        x = z
        g = A.T @ (A @ x + v)
        viol = np.where(lo, -g, 0.0) + np.where(up, g, 0.0)
        bad = np.flatnonzero(viol > 0)
        if bad.size == 0:
            return x, rounds, True
        pick = bad[np.argsort(-viol[bad])[:m]]
        lo[pick] = False
        up[pick] = False
        added[:] = False
        added[pick] = True
    return np.clip(x, 0.0, ub), max_rounds, False


def _newton_system(A, Q, Dinv):
    """``b -> (A^T A + D)^-1 b`` for the diagonal ``D = 1/Dinv``, by the smaller of two Cholesky factorisations:
    with ``Q = A^T A`` given (N <= m columns), of the N x N ``I + S Q S`` (``S = Dinv^(1/2)``: the scaling keeps it
    well conditioned when some D_i are huge); otherwise of the m x m capacitance ``I + A Dinv A^T`` (Woodbury)."""
    from scipy.linalg import cho_factor, cho_solve

    if Q is not None:
        S = np.sqrt(Dinv)
        Ks = S[:, None] * Q * S[None, :]
        Ks[np.diag_indices_from(Ks)] += 1.0
        factor = cho_factor(Ks, lower=True, check_finite=False)
        return lambda b: S * cho_solve(factor, S * b, check_finite=False)
    AD = A * Dinv
    cap = AD @ A.T
    cap[np.diag_indices_from(cap)] += 1.0
    factor = cho_factor(cap, lower=True, check_finite=False)
    return lambda b: Dinv * (b - A.T @ cho_solve(factor, AD @ b, check_finite=False))


def _interior_point(A, v, ub, accept, max_iter):
    """Mehrotra predictor-corrector for ``min ||A x + v||^2/2`` on the box ``0 <= x <= ub`` (ub may be inf).

    The Newton systems ``(A^T A + D) dx = b`` are solved by `_newton_system`: through the m x m capacitance matrix
    ``I + A D^-1 A^T`` (m = rows of A) when m < N (O(N m^2) per iteration), else through
    the N x N matrix ``A^T A`` formed once per call (O(N^3) per iteration). After every iteration
    ``accept(x, zl, zu)`` is called with the iterate and its bound multipliers; it returns True to stop (it checks
    the certificate and tries a crossover). Returns the number of iterations."""
    N = A.shape[1]
    finite = np.isfinite(ub)
    ubf = np.where(finite, ub, 1.0)
    x = np.where(finite, 0.5 * ubf, 1.0 / N)
    Q = A.T @ A if N <= A.shape[0] else None
    g = (Q @ x + A.T @ v) if Q is not None else A.T @ (A @ x + v)
    Atv = A.T @ v
    scale = max(float(np.mean(np.abs(g))), 1e-12)
    zl = np.maximum(g, 0.0) + scale
    zu = np.where(finite, np.maximum(-g, 0.0) + scale, 0.0)
    n_comp = N + int(finite.sum())

    def max_step(pairs):
        a = 1.0
        for val, dv in pairs:
            neg = dv < 0
            if neg.any():
                a = min(a, float(np.min(-val[neg] / dv[neg])))
        return a

    it = 0
    for it in range(1, max_iter + 1):
        t = np.where(finite, ubf - x, 1.0)
        rd = (Q @ x if Q is not None else A.T @ (A @ x)) + Atv - zl + zu
        mu_c = (x @ zl + t[finite] @ zu[finite]) / n_comp
        Dinv = 1.0 / (zl / x + np.where(finite, zu / t, 0.0))
        newton = _newton_system(A, Q, Dinv)

        def directions(rl, ru):
            dx = newton(-rd + rl / x - np.where(finite, ru / t, 0.0))
            return dx, (rl - zl * dx) / x, np.where(finite, (ru + zu * dx) / t, 0.0)

        def steplength(dx, dzl, dzu):
            return max_step(((x, dx), (t[finite], -dx[finite]), (zl, dzl), (zu[finite], dzu[finite])))

        dxa, dzla, dzua = directions(-x * zl, np.where(finite, -t * zu, 0.0))
        a_aff = steplength(dxa, dzla, dzua)
        mu_aff = ((x + a_aff * dxa) @ (zl + a_aff * dzla)
                  + (t - a_aff * dxa)[finite] @ (zu + a_aff * dzua)[finite]) / n_comp
        sigma = min(1.0, (mu_aff / mu_c) ** 3) if mu_c > 0 else 0.0
        rl = sigma * mu_c - x * zl - dxa * dzla
        ru = np.where(finite, sigma * mu_c - t * zu + dxa * dzua, 0.0)
        dx, dzl, dzu = directions(rl, ru)
        a = min(1.0, 0.995 * steplength(dx, dzl, dzu))
        x = np.maximum(x + a * dx, 1e-300)
        zl = np.maximum(zl + a * dzl, 1e-300)
        zu = np.where(finite, np.maximum(zu + a * dzu, 1e-300), 0.0)
        if finite.any():
            x = np.where(finite, np.minimum(x, ubf * (1 - 1e-16)), x)
        if accept(x, zl, zu):
            break
    return it


def solve_local(X_neg=None, center=None, mu=1.0, lam=1.0, B=4.0, *, problem: LocalProblem | None = None,
                alpha0=None, tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER) -> LocalSolution:
    """Solve one local problem with the dedicated solver; returns a certified `LocalSolution`.

    Give the data as ``(X_neg, center)`` or as a prebuilt ``problem`` (`local_problem`: reuse it across (mu, lam)).

    1. Warm start (``alpha0``, e.g. the solution at a neighbouring (mu, lam)): active-set rounds from its partition
       (outside / inside / on the boundary); each is one small least-squares solve, and once the partition is right
       the face solve IS the optimum.
    2. Otherwise, gap-safe screening: the primal is 1-strongly convex in ``z = [sqrt(2 lam) svec M; -sqrt(2 mu) R]``
       and ``dF/dalpha_i = a_i^T z`` (a_i the i-th column of L), so with the certified gap G of the best point,
       ``|a_i^T (z - z*)| <= ||a_i|| sqrt(2 G)`` fixes every alpha_i whose gradient is farther than that from 0
       (Fercoq, Gramfort & Salmon 2015). The rest is solved by an interior-point method whose Newton systems are
       m x m (m = p + 1), in stages that re-screen as the gap falls, each ended by active-set rounds (crossover).

    Stops when the duality gap is below ``tol * max(1, primal)``; a solution that does not get there within
    ``max_iter`` interior-point iterations has status "inaccurate" (its certificate still holds).
    """
    prob = problem if problem is not None else local_problem(X_neg, center)
    mu, lam, B = _params(mu, lam, B)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise InputError(f"max_iter must be a positive integer; got {max_iter!r}")
    tol = validate.scalar(tol, "tol", low=0.0, low_open=True)
    t0 = time.perf_counter()
    n = prob.n
    A, v, ub = _ls_matrix(prob, mu, lam, B)
    N = A.shape[1]
    colnorm = np.sqrt(np.einsum("ij,ij->j", A, A))
    # shared with the closures below: the best _Point so far, its path, and the work counters
    state: dict[str, Any] = dict(best=None, rounds=0, ipm=0, path="", stages=0)

    def consider(alpha, path) -> bool:
        """Keep alpha if its duality gap is the smallest so far (`_duality`; the returned answer is certified again
        by `certify`); True if it meets the tolerance."""
        a = np.clip(alpha, 0.0, 1.0 / n)
        *_, primal, _, gap = _duality(prob, a, mu, lam, B)
        if state["best"] is None or gap < state["best"].gap:
            state["best"], state["path"] = _Point(a, gap, primal), path
        return _within(gap, primal, tol)

    def full_x(alpha):
        """alpha with its optimal beta appended when beta is a variable."""
        return alpha if N == n else np.append(alpha, max(0.0, alpha.sum() - 2.0 * mu * B))

    solved = False
    if alpha0 is not None:
        solved = consider(np.clip(validate.vector(alpha0, "alpha0", size=n), 0.0, 1.0 / n), "warm start")
    fixed_lo = np.zeros(N, bool)
    fixed_up = np.zeros(N, bool)

    def screen():
        """Gap-safe screening at the best point so far (fixes more variables as its gap falls), then the data of
        the problem on the variables left: (work, base, A_w, ub_w, v_w)."""
        best = state["best"]
        if best is not None:
            x = full_x(best.alpha)
            g = A.T @ (A @ x + v)
            radius = colnorm * np.sqrt(2.0 * max(best.gap, 0.0)) * (1 + 1e-9) + 1e-12 * float(np.max(np.abs(g)))
            fixed_lo[:] |= g > radius
            fixed_up[:] |= np.isfinite(ub) & (g < -radius)
        work = np.flatnonzero(~(fixed_lo | fixed_up))
        return work, np.where(fixed_up, ub, 0.0), A[:, work], ub[work], v + A[:, fixed_up] @ ub[fixed_up]

    while not solved and state["ipm"] < max_iter and state["stages"] < 20:
        state["stages"] += 1
        work, base, A_w, ub_w, v_w = screen()
        if work.size == 0:
            solved = consider(base[:n], "screening")
            break

        def assemble(x_w):
            x = base.copy()
            x[work] = x_w
            return x

        best = state["best"]
        if best is not None:  # active-set rounds on what screening left, from the best point's partition
            xb = full_x(best.alpha)[work]
            x_w, used, _ = _active_set(A_w, v_w, ub_w, xb <= 0.0, np.isfinite(ub_w) & (xb >= ub_w), max_rounds=12,
                                       x=xb)
            state["rounds"] += used
            if consider(assemble(x_w)[:n], "warm start + screening + active set" if alpha0 is not None
                        and state["stages"] == 1 else "screening + interior point + active set"):
                break
            if state["best"].gap < best.gap:  # the rounds lowered the gap: screen again before the interior point
                work, base, A_w, ub_w, v_w = screen()
                if work.size == 0:
                    solved = consider(base[:n], "screening")
                    break
        start_gap = state["best"].gap if state["best"] is not None else np.inf

        def accept(x_w, zl, zu) -> bool:
            if consider(assemble(x_w)[:n], "screening + interior point"):
                return True
            gap = state["best"].gap
            # end this stage (re-screen, then cross over) once the gap fell enough
            return gap <= (1e-3 * start_gap if np.isfinite(start_gap) else 1e-3 * max(1.0, abs(state["best"].primal)))

        state["ipm"] += _interior_point(A_w, v_w, ub_w, accept, max_iter - state["ipm"])
        solved = _within(state["best"].gap, state["best"].primal, tol)
    best = certify(prob, state["best"].alpha, mu, lam, B, solver="dedicated", tol=tol)
    best.iterations = state["ipm"] + state["rounds"]
    best.seconds = time.perf_counter() - t0
    best.path, best.ipm_iterations, best.active_set_rounds = state["path"], state["ipm"], state["rounds"]
    best.stages, best.screened = state["stages"], int(fixed_lo.sum() + fixed_up.sum())
    return best


def solve_local_checked(problem: LocalProblem, mu, lam, B: float = 4.0, *, alpha0=None, tol: float = DEFAULT_TOL,
                        max_iter: int = DEFAULT_MAX_ITER, fallback: str | None = "clarabel") -> LocalSolution:
    """`solve_local`, and when it does not reach ``tol``, the generic path on backend ``fallback`` (held to
    ``max(tol, GENERIC_TOL)``; None: keep the inaccurate answer): the answer with the smaller certified gap, the
    generic one marked with ``fallback`` (why it replaced the dedicated one)."""
    sol = solve_local(problem=problem, mu=mu, lam=lam, B=B, alpha0=alpha0, tol=tol, max_iter=max_iter)
    if sol.ok or fallback is None:
        return sol
    redo = solve_local_generic(problem=problem, mu=mu, lam=lam, B=B, backend=fallback, tol=max(tol, GENERIC_TOL))
    if redo.gap >= sol.gap:
        return sol
    redo.fallback = f"dedicated solver stopped at gap {sol.gap:.3g} after {sol.iterations} iterations"
    return redo


def local_method(solver: str) -> tuple:
    """``(method, backend)`` for a solver name: a `LOCAL_METHODS` name with no backend ("generic": certiprog
    chooses it), any other name the "generic" path on that certiprog backend."""
    return (solver, None) if solver in LOCAL_METHODS else ("generic", solver)


def solve_local_by(problem: LocalProblem, mu, lam, B: float = 4.0, *, method: str = "dedicated",
                   backend: str | None = None, tol: float = DEFAULT_TOL, alpha0=None, **options) -> LocalSolution:
    """One local problem by ``method`` (one of `LOCAL_METHODS`): "dedicated" `solve_local_checked` (warm-started
    from ``alpha0``; ``options`` max_iter, fallback), "cvxpy-direct" `solve_local_cvxpy`, "generic"
    `solve_local_generic` on ``backend``; a general-purpose answer is held to ``max(tol, GENERIC_TOL)``."""
    if method == "dedicated":
        return solve_local_checked(problem, mu, lam, B, alpha0=alpha0, tol=tol, **options)
    if method == "cvxpy-direct":
        return solve_local_cvxpy(problem=problem, mu=mu, lam=lam, B=B, tol=max(tol, GENERIC_TOL), **options)
    return solve_local_generic(problem=problem, mu=mu, lam=lam, B=B, backend=backend, tol=max(tol, GENERIC_TOL),
                               **options)


def solve_local_path(problem: LocalProblem, pairs, B: float = 4.0, *, method: str = "dedicated",
                     backend: str | None = None, tol: float = DEFAULT_TOL, **options) -> list:
    """`solve_local_by` for every ``(mu, lam)`` of ``pairs`` in the given order, the dedicated method warm-started
    from the previous alpha (order the pairs so neighbours are close: see `grid_path`)."""
    out, alpha = [], None
    for mu, lam in pairs:
        sol = solve_local_by(problem, mu, lam, B, method=method, backend=backend, tol=tol, alpha0=alpha, **options)
        out.append(sol)
        alpha = sol.alpha
    return out


def grid_path(mus, lams) -> list:
    """The (mu, lam) pairs of the grid in a snake order (lam outer, mu alternately up and down) so consecutive
    pairs differ in one parameter: good warm starts for `solve_local_path`."""
    mus, lams = sorted(float(m) for m in mus), sorted(float(v) for v in lams)
    out = []
    for k, lam in enumerate(lams):
        out += [(mu, lam) for mu in (mus if k % 2 == 0 else mus[::-1])]
    return out


# ----------------------------------------------------------------------------------------------------------------
# Generic paths (for fallback, tests and benchmarks)
# ----------------------------------------------------------------------------------------------------------------
def solve_local_generic(X_neg=None, center=None, mu=1.0, lam=1.0, B=4.0, *, problem: LocalProblem | None = None,
                        backend: str | None = "clarabel", tol: float = GENERIC_TOL, **options) -> LocalSolution:
    """The corrected dual as a certiprog Model (`programs.me2_dual`) on ``backend`` (None: certiprog chooses), then
    the same closed forms and certificate as `solve_local`. BackendError if the solve does not end optimal."""
    from .programs import me2_dual

    prob = problem if problem is not None else local_problem(X_neg, center)
    mu, lam, B = _params(mu, lam, B)
    t0 = time.perf_counter()
    model = me2_dual(prob.Y + prob.center, prob.center, mu, lam, B)
    sol = model.solve(backend=backend, **options)
    if not sol.ok:
        raise BackendError(f"the ME2 dual did not solve to optimality on {backend or 'the chosen backend'} "
                           f"(status {sol.status})")
    return certify(prob, sol.value("alpha"), mu, lam, B, solver=f"generic:{sol.backend}/{sol.solver}", tol=tol,
                   iterations=int(sol.iterations or 0), seconds=time.perf_counter() - t0)


def solve_local_cvxpy(X_neg=None, center=None, mu=1.0, lam=1.0, B=4.0, *, problem: LocalProblem | None = None,
                      solver: str = "CLARABEL", tol: float = GENERIC_TOL) -> LocalSolution:
    """The same box QP written directly in CVXPY (``min ||L alpha + v||^2/2`` over the box, valid where the optimum
    has R > 0, i.e. always when 2 mu B >= 1) and solved by ``solver``; closed forms and certificate as above."""
    import cvxpy as cp

    prob = problem if problem is not None else local_problem(X_neg, center)
    mu, lam, B = _params(mu, lam, B)
    if 2.0 * mu * B < 1.0:
        raise InputError("solve_local_cvxpy writes the quadratic branch of R(alpha) only: it needs 2 mu B >= 1")
    t0 = time.perf_counter()
    a = cp.Variable(prob.n)
    L = np.vstack([prob.K / np.sqrt(2 * lam), np.full((1, prob.n), 1.0 / np.sqrt(2 * mu))])
    v = np.append(np.sqrt(2 * lam) * prob.svec_I, -np.sqrt(2 * mu) * B)
    cvx = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(L @ a + v)), [a >= 0, a <= 1.0 / prob.n])
    cvx.solve(solver=solver)
    if cvx.status not in ("optimal", "optimal_inaccurate") or a.value is None:
        raise BackendError(f"CVXPY/{solver} ended with status {cvx.status} on the ME2 dual")
    return certify(prob, a.value, mu, lam, B, solver=f"cvxpy/{solver}", tol=tol,
                   seconds=time.perf_counter() - t0)
