"""A structured, certified solver for eq. (1) of paper 003 that never forms a KKT system.

Eq. (1): ``min_{w, xi} lam/2 ||w||^2 + 1/(2m) xi' Theta xi  s.t.  xi >= h(w) := max(0, 1 - Z w)``, ``Z = y o X``,
``Theta = I - c A`` (``c = eta/(m-1)``, A the 0/1 rho-graph).

Reduction to w (derivation in docs/derivations/003.md §1.3). For fixed w the xi-problem
``V(h) = min {xi' Theta xi / 2 : xi >= h}`` has an M-matrix (Theta: unit diagonal, nonpositive off-diagonal,
positive definite when ``mu_Theta := 1 - eta d_max/(m-1) > 0``, Gershgorin), so its solution is the least fixed
point of ``xi = max(h, c A xi)`` -- the KKT conditions ``xi >= h``, ``Theta xi >= 0``, complementarity -- found by
projected Jacobi iterations, a contraction of factor ``c d_max = eta d_max/(m-1)`` (0.04 for MNIST at 1 %
neighbourhoods). The multiplier of ``xi >= h`` is ``Theta xi`` (unique), so ``V`` is C^1 with ``grad V = Theta xi``
and ``F(w) = lam/2 ||w||^2 + V(h(w))/m`` is smooth and lam-strongly convex with
``grad F = lam w - Z' alpha``, ``alpha = (Theta xi)/m o [1 - Zw > 0]`` (at ``h_i = 0`` the multiplier is 0:
continuous). ``F`` is minimised over w (n = 785 variables for MNIST) by

* ``method='newton'`` (default): `first_order.variable_metric_descent` with the generalised-Newton matrix of the
  squared hinge, ``H = lam I + Z_S' Z_S / m`` over the points S with an active margin (exact when eta = 0; Theta
  differs from I by at most ``c d_max`` in norm), updated row-wise as S changes, Armijo line search;
* ``method='agd'``: `first_order.accelerated_gradient` (FISTA, backtracking, gradient restart); far slower here
  (F's condition number is ~||X||^2/(m lam): 435 iterations and 13 min against Newton's 4 iterations and 6 s on
  MNIST m = 10,000, 10 % neighbourhoods, lam = 1e-2), kept as the matrix-free alternative for large n;
* ``method='auto'`` (default, issue 23): `choose_method` compares their predicted costs in passes over X from a
  cheap estimate of kappa_F (Newton: a step count growing like log10 kappa_F, each step a Gram matrix of n columns;
  the gradient: ~sqrt(kappa_F) ln(1/tol) iterations), so the gradient runs only when n is large and the problem
  well conditioned (e.g. n = 1,200 > m = 300 at lam = 1e3). The Newton step count does not follow the features'
  conditioning (3-6 steps at 10,000 x 300, covariance condition 1 to 1e6, and on MNIST: benchmarks/scale.py
  --sweep), since H is F's generalised Hessian up to the factor ``1 +- c d_max`` of Theta's coupling.

Certificate (never the method's own estimate). From the final w: ``xi`` is raised to a provably feasible point
(``xi >= 0`` and ``xi >= `` the upper end of an enclosure of ``1 - Zw``), and the primal value ``upper`` is its
objective evaluated in ball arithmetic (`certiprog.certificates.rigorous`). A dual point: ``s = max(Theta xi, 0)/m``,
``alpha = s o [g > 0]``, ``beta = s - alpha`` (both >= 0 exactly); by weak duality, for any xi^ (here xi),
``p* >= sum alpha - ||Z' alpha||^2/(2 lam) - xi^' Theta xi^/(2m) - r' xi^ - m ||r||^2/(2 mu_Theta)`` with
``r = s - Theta xi^/m`` (the inner minimum over xi of ``xi' Theta xi/(2m) - s' xi`` bounded through
``Theta >= mu_Theta I``), all evaluated in ball arithmetic; with ``Theta`` PSD also ``p* >= 0``. ``c`` is enclosed
as ``eta/(m-1)`` with its rounding, so the interval holds for the exact Theta of the paper. When ``mu_Theta <= 0``
(eta = 1 and a point adjacent to all others) only ``p* >= 0`` is proved, and the status says whether that is
enough.

Other readings of Theta (``normalisation=``, `normalisation.py`): ``Theta = I - (eta/den) W`` with W symmetric,
nonnegative, zero diagonal; everything above holds with ``c A`` replaced by ``(eta/den) W``, ``c d_max`` (the
contraction, in the norm ``max_i |x_i|/v_i`` of the Collatz-Wielandt vector v) by ``eta rho_hi`` and ``mu_Theta`` by
``1 - eta rho_hi`` (rho_hi a rigorous upper bound of lambda_max(W)/den), and the product ``W xi`` enclosed with the
rounding of W's stored entries. 'printed' computes exactly what it computed before the option existed.

`solve_error_clumping` is the entry point (the signature of `programs.error_clumping`); `solve_error_clumping_path`
warm-starts along a sequence of eta or lam values.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from certiprog import validation as validate
from certiprog.certify.rigorous import Ball, U, gamma
from certiprog.certify.verdict import Interval
from certiprog.errors import InputError
from certiprog.solvers.first_order import accelerated_gradient, variable_metric_descent

from .graph import radius_graph
from .normalisation import Normalised, normalise
from .programs import eq1_inputs_normalised

__all__ = ["ErrorClumpingFit", "solve_error_clumping", "solve_error_clumping_path", "certify_error_clumping",
           "dual_point", "METHODS"]

METHODS = ("auto", "newton", "agd")

#: the method choice (`choose_method`), in passes over X (one pass: m n multiply-adds, memory bound). A generalised
#: Newton step costs about NEWTON_PASSES + n / BLAS3_GAIN passes (the Gram matrix Z_S'Z_S by float32 BLAS-3, ~14x
#: faster per flop than a pass, rebuilt or updated row-wise; the n x n Cholesky), and the descent takes ``1 + log10(kappa_F)``
#: steps, at most NEWTON_STEPS (measured: 5 / 2 / 1 steps at kappa_F ~ 4e3 / 90 / 10 on MNIST 2,000 x 785; 3-6 on the
#: sweep's 10,000-point rows whatever the feature conditioning); the accelerated gradient about
#: ``AGD_PASSES sqrt(kappa_F) ln(1/tol)`` passes, kappa_F = 1 + ||X||_2^2 / (m lam) the condition number of F's
#: Hessian bound (measured ~10 passes an iteration with its inner Jacobi sweeps and checks, and ~0.4 sqrt(kappa_F)
#: ln(1/tol) iterations: 370 / 45 / 15 on the same MNIST data at lam = 1e-2 / 1 / 10, where Newton took 0.69 / 0.13
#: / 0.10 s and the gradient 6.9 / 0.29 / 0.09 s)
NEWTON_STEPS, NEWTON_PASSES, BLAS3_GAIN, AGD_PASSES = 6, 8, 14.0, 4.0


def choose_method(X: np.ndarray, lam: float, tol: float) -> dict:
    """Which method ``method='auto'`` runs, from a cheap estimate (never the size alone): the predicted passes over
    X of the generalised Newton descent (``NEWTON_PASSES + n / BLAS3_GAIN + n^2 / (3 m BLAS3_GAIN)`` per step, the
    Cholesky included, ``1 + log10(kappa_F)`` steps) against the accelerated gradient's
    (``AGD_PASSES sqrt(kappa_F) ln(1/tol)``),
    with ``||X||_2^2`` from 8 power iterations (16 passes, spent only when the Frobenius bound ``||X||_F^2`` leaves
    the choice open). Returns ``method``, ``kappa`` (the estimate of kappa_F), ``newton_passes``, ``agd_passes``
    and ``reason``."""
    m, n = X.shape
    step = NEWTON_PASSES + n / BLAS3_GAIN + n * n / (3.0 * m * BLAS3_GAIN)
    log_tol = max(np.log(1.0 / tol), 1.0)

    def costs(norm2):
        kappa = 1.0 + norm2 / (m * lam)
        steps = min(max(1.0 + np.log10(kappa), 1.0), NEWTON_STEPS)
        return kappa, AGD_PASSES * np.sqrt(kappa) * log_tol, steps * step

    kappa, cost, newton = costs(float(np.einsum("ij,ij->", X, X)))  # ||X||_2 <= ||X||_F: costs bounded above
    how = "Frobenius bound"
    if cost > newton:
        v = np.random.default_rng(0).normal(size=n)
        norm2 = 0.0
        for _ in range(8):  # power iteration on X'X (a lower estimate of ||X||_2^2, enough to choose)
            v = X.T @ (X @ v)
            norm2 = float(np.linalg.norm(v))
            if not norm2 > 0:
                break
            v /= norm2
        kappa, cost, newton = costs(norm2)
        how = "power iteration"
    method = "agd" if cost < newton else "newton"
    return dict(method=method, kappa=kappa, newton_passes=newton, agd_passes=cost,
                reason=f"kappa_F ~ {kappa:.3g} ({how}): accelerated gradient ~{cost:.0f} passes over X, generalised "
                       f"Newton ~{newton:.0f}")


@dataclass
class ErrorClumpingFit:
    """A certified solution of eq. (1).

    ``w`` (n,), ``xi`` (m,) a feasible point (proved), ``objective`` its value (float), ``lower`` <= p* <= ``upper``
    (rigorous, ball arithmetic), ``gap = upper - lower``, ``rel_gap = gap / max(|upper|, tiny)``; ``status``:
    'optimal' (rel_gap <= tol), 'inaccurate' (a certified interval wider than tol), or 'iteration_limit' /
    'stalled' from the descent with the interval as it is; ``certified`` = rel_gap <= tol; ``iterations``,
    ``history`` (per iteration: f, grad norm, step, seconds), ``seconds``, ``info`` (method, inner iterations,
    mu_Theta, certify_seconds, ...).
    """

    w: np.ndarray
    xi: np.ndarray
    objective: float
    lower: float
    upper: float
    gap: float
    rel_gap: float
    status: str
    certified: bool
    iterations: int
    seconds: float
    history: list = field(default_factory=list)
    info: dict = field(default_factory=dict)

    @property
    def interval(self) -> Interval:
        """``lower <= p* <= upper`` as certiprog's one rigorous `Interval` (``lo, hi = fit.interval``)."""
        return Interval(float(self.lower), float(self.upper))


# ----------------------------------------------------------------------------------------------- the oracle
class _Oracle:
    """F(w), grad F(w) and the inner xi for one instance; keeps the last xi as the warm start of the next call."""

    def __init__(self, X, y, G: Normalised, eta: float, lam: float, inner_tol: float, max_inner: int):
        self.X, self.y, self.G, self.A = X, y, G, G.A
        self.m, self.n = X.shape
        self.eta, self.lam = eta, lam
        self.c = G.coef(eta) if self.m > 1 else 0.0
        self.v = G.v
        self.unit_v = bool(np.all(G.v == 1.0))
        self.q = G.contraction(eta)  # contraction factor of the Jacobi map (in the norm max |x_i| / v_i)
        self.inner_tol, self.max_inner = inner_tol, max_inner
        self.xi = None
        self.inner_iterations = 0
        self.calls = 0
        self._last = None

    def margins(self, w):
        return 1.0 - self.y * (self.X @ w)

    def inner(self, h):
        """The least fixed point of xi = max(h, c A xi) (projected Jacobi from max(h, previous xi) when the map
        contracts well, from h otherwise: monotone from below)."""
        if self.c == 0.0 or self.G.W.nnz == 0:
            return h.copy()
        xi = h.copy() if (self.xi is None or self.q >= 0.5) else np.maximum(h, self.xi)
        scale = max(1.0, float(np.max(h)))
        W, v = self.G.W, self.v
        vmax = 1.0 if self.unit_v else float(v.max())
        for _ in range(self.max_inner):
            new = np.maximum(h, self.c * (W @ xi))
            self.inner_iterations += 1
            step = float(np.max(np.abs(new - xi))) if self.unit_v else float(np.max(np.abs(new - xi) / v))
            xi = new
            bound = step * self.q / (1.0 - self.q) * vmax if self.q < 1 else np.inf
            if bound <= self.inner_tol * scale or step == 0.0:
                break
        return xi

    def __call__(self, w):
        if self._last is not None and np.array_equal(self._last[0], w):
            return self._last[1]
        self.calls += 1
        g = self.margins(w)
        xi = self.inner(np.maximum(g, 0.0))
        self.xi = xi
        s = xi - self.c * (self.G.W @ xi) if self.c else xi
        f = 0.5 * self.lam * float(w @ w) + float(xi @ s) / (2.0 * self.m)
        alpha = np.where(g > 0, s, 0.0) / self.m
        grad = self.lam * w - self.X.T @ (self.y * alpha)
        self._last = (w.copy(), (f, grad))
        return f, grad


class _NewtonDirection:
    """d = -H^{-1} g with H = lam I + Z_S' Z_S / m (S: margin active), H kept up to date row-wise.

    H only chooses the direction (the line search and the certificate do not rely on it), so its Gram matrix is
    accumulated from float32 products, and rebuilt from scratch when S changes a lot or every 10 updates."""

    def __init__(self, oracle: _Oracle):
        self.o = oracle
        self.S = np.zeros(oracle.m, bool)
        self.G = np.zeros((oracle.n, oracle.n))  # Z_S' Z_S (= X_S' X_S)
        self.X32 = oracle.X.astype(np.float32)
        self.updates = 0

    def _gram(self, rows):
        Xr = self.X32[rows]
        return (Xr.T @ Xr).astype(np.float64)

    def __call__(self, w, grad):
        o = self.o
        S = o.margins(w) > 0
        add, rem = S & ~self.S, self.S & ~S
        if add.sum() + rem.sum() > S.sum() // 2 or self.updates >= 10:
            self.G = self._gram(S)
            self.updates = 0
        else:
            if add.any():
                self.G += self._gram(add)
            if rem.any():
                self.G -= self._gram(rem)
            self.updates += 1
        self.S = S
        H = self.G / o.m
        H[np.diag_indices_from(H)] += o.lam
        try:
            return -sla.cho_solve(sla.cho_factor(H, check_finite=False), grad, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            return -grad


# ----------------------------------------------------------------------------------------------- certificate
def _enclose(M, absM, v, k: int) -> Ball:
    """Ball enclosure of ``M @ v`` for an exact float matrix M (dense or sparse) with ``absM = |M|`` given (so
    that a nonnegative M, such as the 0/1 graph or pixel data, is not copied): the bound of
    `certiprog.certificates.rigorous.matvec`, ``|fl(M v) - M v| <= gamma_{k+1} |M| |v| + u |fl(M v)|`` for rows
    of at most k terms, made an upper bound of itself by the factor ``1 + 4(k + 4)u`` (plus underflow)."""
    v = Ball.of(v)
    mid = np.asarray(M @ v.mid, float).reshape(-1)
    r = np.asarray(absM @ (gamma(k + 1) * np.abs(v.mid) + v.rad), float).reshape(-1) + U * np.abs(mid)
    return Ball(mid, r * (1 + 4 * (k + 4) * U) + 1e-290)


def certify_error_clumping(X, y, A: sp.csr_matrix, eta: float, lam: float, w, xi=None, absX=None,
                           normalisation="printed") -> dict:
    """A rigorous interval ``lower <= p* <= upper`` for eq. (1) from any w (and optionally an approximate xi):
    see the module docstring. ``absX``: |X| when already at hand (X itself when X >= 0); ``normalisation``: the
    reading of Theta (a name, or the `normalisation.Normalised` of A when already at hand). Returns dict(lower,
    upper, xi (the proved-feasible slack), objective, mu_theta)."""
    m, n = X.shape
    w = np.asarray(w, float)
    if absX is None:
        absX = X if X.min() >= 0 else np.abs(X)
    if A.nnz and not np.all(A.data == 1.0):
        raise InputError("the graph must have 0/1 entries (see graph.radius_graph)")
    G = normalisation if isinstance(normalisation, Normalised) else normalise(A, normalisation)
    Xw = _enclose(X, absX, w, n)
    g = Ball(1.0) - Ball(y) * Xw  # y in {+1, -1}: the product is exact, kept as a Ball for uniformity
    g_hi = g.hi()
    xi = np.zeros(m) if xi is None else np.asarray(xi, float)
    xi = np.maximum(np.maximum(xi, g_hi), 0.0)  # exactly feasible: xi_i >= upper end of g_i and >= 0
    theta_xi = Ball(xi) - G.enclose(xi, eta)  # Theta xi = xi - B xi, B = (eta/den) W exactly
    inv2m = Ball.recip(2.0 * m)
    quad = Ball(xi).dot(theta_xi)  # xi' Theta xi
    primal = Ball(0.5 * lam) * Ball(w).sqr().sum() + quad * inv2m
    upper = primal.hi()
    # dual point
    s = np.maximum(theta_xi.mid, 0.0) / m
    alpha = np.where(g.mid > 0, s, 0.0)
    mu = G.mu_lower(eta)  # lambda_min(Theta) >= mu (normalisation.py)
    Zt_alpha = _enclose(X.T, absX.T, y * alpha, m)
    dual = Ball(alpha).sum() - Zt_alpha.sqr().sum() * Ball.recip(2.0 * lam) - quad * inv2m
    lower = 0.0
    if mu > 0:
        r = Ball(s) - theta_xi * Ball.recip(m)
        corr = r.dot(Ball(xi)) + r.sqr().sum() * Ball(float(m)) * Ball.recip(2.0) * Ball.recip(mu)
        lower = max(0.0, (dual - corr).lo())
    return dict(lower=float(lower), upper=float(upper), xi=xi, objective=float(primal.mid), mu_theta=float(mu))


def dual_point(X, y, A: sp.csr_matrix, eta: float, w, xi, normalisation=None) -> tuple[np.ndarray, np.ndarray]:
    """The multipliers (alpha of ``xi >= 1 - y o Xw``, beta of ``xi >= 0``) that the certificate uses at (w, xi):
    ``s = max(Theta xi, 0)/m``, ``alpha = s o [1 - y o Xw > 0]``, ``beta = s - alpha`` (both >= 0).
    ``normalisation``: None or 'printed' (Theta as printed), another name or a `normalisation.Normalised`."""
    m = X.shape[0]
    if normalisation is None or normalisation == "printed":
        c = eta / (m - 1) if m > 1 else 0.0
        s = np.maximum(xi - c * (A @ xi), 0.0) / m
    else:
        G = normalisation if isinstance(normalisation, Normalised) else normalise(A, normalisation)
        s = np.maximum(xi - G.apply(xi, eta), 0.0) / m
    alpha = np.where(1.0 - y * (X @ w) > 0, s, 0.0)
    return alpha, s - alpha


# ----------------------------------------------------------------------------------------------- entry points


def solve_error_clumping(X, y, rho, eta, lam, graph=None, *, normalisation: str = "printed", tol: float = 1e-6,
                         method: str = "auto", w0=None, max_iter: int | None = None, inner_tol: float = 1e-12,
                         max_inner: int = 1000, progress: bool = False) -> ErrorClumpingFit:
    """Eq. (1) of paper 003 with a certified relative duality gap ``<= tol`` (when reached).

    Arguments as `programs.error_clumping`: ``X`` (m, n) finite, ``y`` in {+1, -1} (both classes), ``rho > 0``,
    ``eta`` in [0, 1], ``lam > 0``; ``graph``: the rho-graph (`graph.radius_graph(X, rho)`) when already at hand;
    ``normalisation``: Theta's off-diagonal, 'printed' (-eta/(m-1), default), 'dmax' (-eta/d_max), 'symmetric'
    (-eta/sqrt(|N_i||N_j|)), 'max' or 'row' (`normalisation.py`: definitions, PSD ranges proved; the certificate
    uses that module's rigorous lambda_min(Theta) >= 1 - eta rho_hi, and the inner Jacobi map contracts by
    eta rho_hi, so at eta = 1 under 'dmax' / 'symmetric' only p* >= 0 may be proved: an honest 'inaccurate').
    ``tol``: relative gap to certify; ``method``: 'newton', 'agd' (see the module docstring) or 'auto' (default:
    `choose_method`'s cheap estimate of their costs; ``info['choice']``); ``w0``:
    a warm start (e.g. the solution at a neighbouring eta or lam); ``max_iter``: descent iterations (default 200
    for 'newton', 20000 for 'agd'); ``inner_tol``/``max_inner``: the Jacobi iterations for xi; ``progress``: a
    tqdm bar. Bad input raises `InputError` (a `CertiprogError`).
    """
    t_start = time.perf_counter()
    X, yv, rho, eta, lam, G = eq1_inputs_normalised(X, y, rho, eta, lam, graph, normalisation)
    A = G.A
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}; got {method!r}")
    tol = validate.scalar(tol, "tol", low=0.0, low_open=True)
    m, n = X.shape
    w = np.zeros(n) if w0 is None else validate.vector(w0, "w0", size=n)
    choice = dict(method=method, reason="asked")
    if method == "auto":
        choice = choose_method(X, lam, tol)
        method = choice["method"]
    if max_iter is None:
        max_iter = 200 if method == "newton" else 20000
    oracle = _Oracle(X, yv, G, eta, lam, inner_tol, max_inner)
    absX = X if X.min() >= 0 else np.abs(X)
    # shared with check(): the last certified (w, interval) and the time and count of certifications
    state: dict[str, Any] = dict(cert=None, certify_seconds=0.0, certifications=0)

    def check(wk, k):
        # cheap float estimate first (the gap of a lam-strongly convex F is <= ||grad F||^2 / (2 lam)); the
        # rigorous interval only when that estimate is below tol
        f, grad = oracle(wk)
        if float(grad @ grad) / (2.0 * lam) > 0.5 * tol * max(abs(f), 1e-300):
            return False
        t0 = time.perf_counter()
        cert = certify_error_clumping(X, yv, A, eta, lam, wk, oracle.xi, absX=absX, normalisation=G)
        state["certify_seconds"] += time.perf_counter() - t0
        state["certifications"] += 1
        state["cert"] = (wk.copy(), cert)
        return (cert["upper"] - cert["lower"]) <= tol * max(abs(cert["upper"]), 1e-300)

    if method == "newton":
        res = variable_metric_descent(oracle, w, _NewtonDirection(oracle), max_iter=max_iter, check=check,
                                      progress=progress)
    else:
        L0 = lam + float(np.sum(X * X)) / m  # an overestimate of the Lipschitz constant (it adapts)
        res = accelerated_gradient(oracle, w, L0=L0, max_iter=max_iter, check=check, check_every=5,
                                   progress=progress)
    if state["cert"] is None or not np.array_equal(state["cert"][0], res.x):
        oracle(res.x)
        t0 = time.perf_counter()
        state["cert"] = (res.x.copy(), certify_error_clumping(X, yv, A, eta, lam, res.x, oracle.xi, absX=absX,
                                                              normalisation=G))
        state["certify_seconds"] += time.perf_counter() - t0
    wf, cert = state["cert"]
    gap = cert["upper"] - cert["lower"]
    rel = gap / max(abs(cert["upper"]), 1e-300)
    ok = bool(rel <= tol)
    status = "optimal" if ok else ("inaccurate" if res.status == "converged" else res.status)
    return ErrorClumpingFit(
        w=wf, xi=cert["xi"], objective=cert["objective"], lower=cert["lower"], upper=cert["upper"], gap=gap,
        rel_gap=rel, status=status, certified=ok, iterations=res.iterations,
        seconds=time.perf_counter() - t_start, history=res.history,
        info=dict(method=method, choice=choice, descent_status=res.status, evaluations=res.evaluations,
                  inner_iterations=oracle.inner_iterations, contraction=oracle.q, mu_theta=cert["mu_theta"],
                  certify_seconds=state["certify_seconds"], certifications=state["certifications"],
                  nnz_graph=int(A.nnz), rho=rho, eta=eta, lam=lam, normalisation=G.normalisation,
                  max_discount=G.max_discount(eta)))


def solve_error_clumping_path(X, y, rho, etas=None, lams=None, graph=None, **options) -> list[ErrorClumpingFit]:
    """Eq. (1) along a path of ``etas`` (with one ``lams`` value) or ``lams`` (with one ``etas`` value), each
    solve warm-started at the previous w; the graph is built once. Returns one `ErrorClumpingFit` per value."""
    if etas is None or lams is None:
        raise InputError("give both etas and lams (one of them may be a single value)")
    etas = np.atleast_1d(np.asarray(etas, float))
    lams = np.atleast_1d(np.asarray(lams, float))
    if etas.size > 1 and lams.size > 1 and etas.size != lams.size:
        raise InputError(f"etas ({etas.size}) and lams ({lams.size}) must have one value or the same length")
    k = max(etas.size, lams.size)
    X = validate.matrix(X, "X", min_rows=2)
    A = radius_graph(X, validate.scalar(rho, "rho", low=0.0, low_open=True)) if graph is None else graph
    fits, w0 = [], options.pop("w0", None)
    for i in range(k):
        fit = solve_error_clumping(X, y, rho, etas[min(i, etas.size - 1)], lams[min(i, lams.size - 1)], graph=A,
                                   w0=w0, **options)
        fits.append(fit)
        w0 = fit.w
    return fits
