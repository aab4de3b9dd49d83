"""A certified first-order solver for 000 eq. (8) at scale: accelerated projected gradient on its dual.

Eq. (8) (`programs.hinge_minimax`, ``bias=False``, ``squared_reg=True``, ``lam > 0``)::

    p* = min_w  lam ||w||^2 + sum_i max(0, 1 - x_i'w)   s.t.  gamma ||L'w|| + mu'w <= 0        (Sigma = L L')

Dual (derived here, checked against Clarabel in the tests): the constraint says ``(-mu'w, gamma L'w)`` lies in the
second-order cone Q (self-dual); with a multiplier ``y = (y0, y1)`` in Q and ``alpha`` in [0, 1]^m for the hinges
(``max(0, s) = max_{a in [0,1]} a s``), ``c(y) = y0 mu - gamma L y1`` and ``r = X'alpha - c(y)``::

    for every feasible w:  f(w) >= f(w) - y'(-mu'w, gamma L'w) = lam ||w||^2 + hinge(w) + c'w
                                 >= lam ||w||^2 + alpha'(1 - X w) + c'w >= 1'alpha - ||r||^2 / (4 lam),

the last minimum being attained at ``w(alpha, y) = r / (2 lam)``. So ``g(alpha, y) = 1'alpha - ||r||^2/(4 lam)`` is
a lower bound for every alpha in the box and y in Q, and the dual ``max g`` over box x Q is a smooth concave
program whose projection is closed-form (clip; the SOC projection). It is solved by FISTA with backtracking and
O'Donoghue-Candes gradient restart (as `certiprog.solvers.first_order.accelerated_gradient`), written out here because
the residual ``r`` is linear in (alpha, y): the extrapolated point's residual is the same combination of the last two
residuals, so an iteration costs one ``X'alpha`` and one ``X r`` (two passes over X, not four).

Certificate (never the method's own estimate), every ``check_every`` iterations, in ball arithmetic
(`certiprog.certificates.rigorous.Ball`):

* lower end: alpha clipped to the box exactly, y0 raised to an upper bound of ||y1|| (so y is in Q exactly), and
  ``g`` evaluated with the rounding error of ``X'alpha`` bounded by ``gamma_m ||X_:j|| ||alpha||`` (Cauchy-Schwarz on
  ``|X|'|alpha|``: no copy of |X|, column norms computed once and rounded up);
* upper end: ``w = r / (2 lam)`` moved along a strictly feasible direction ``d`` (``-Sigma^+ mu``; the constraint
  function is sublinear, so ``G(w + t d) <= G(w) + t G(d)`` with ``G(d) < 0``) until ``G(w) <= 0`` is proved, then
  ``f(w)`` bounded above (``X w`` enclosed by ``gamma_d ||x_i|| ||w||``).

The interval is for the program with the float data given (X, mu, the factor L of `validation.covariance`, the float
gamma), which is exactly what `programs.hinge_minimax` compiles. When no strictly feasible direction exists
(``||L^{-1} mu|| <= gamma``: w = 0 is the only feasible point) the fit is w = 0 with its exact value ``m`` and the dual
bound. Memory: X (float64, C order), one copy of X'alpha-sized vectors; nothing of size m x m or m x d besides X.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from certiprog import validation as validate
from certiprog.certificates.rigorous import U, Ball, gamma as gamma_k, matvec
from certiprog.errors import InputError
from certiprog.solvers.first_order import DescentResult

from .programs import eq8_inputs

__all__ = ["HingeMinimaxFit", "solve_hinge_minimax", "solve_model"]


@dataclass
class HingeMinimaxFit:
    """A certified solution of eq. (8): ``w`` (proved feasible), ``objective`` f(w) (float), ``lower <= p* <= upper``
    (rigorous), ``gap``, ``rel_gap`` = gap / max(|upper|, tiny), ``certified`` (rel_gap <= tol), ``status``
    ('optimal', 'inaccurate', 'trivial' for the w = 0 only feasible point), the dual point ``alpha``, ``y``,
    ``iterations``, ``seconds``, ``history`` (per check: iteration, lower, upper, seconds) and ``info``."""

    w: np.ndarray
    objective: float
    lower: float
    upper: float
    gap: float
    rel_gap: float
    certified: bool
    status: str
    alpha: np.ndarray
    y: np.ndarray
    iterations: int
    seconds: float
    history: list = field(default_factory=list)
    info: dict = field(default_factory=dict)


def _norm_hi(v: np.ndarray) -> float:
    return Ball(np.asarray(v, float)).norm_hi()


def _soc_project(y: np.ndarray) -> np.ndarray:
    y0, y1 = y[0], y[1:]
    n1 = float(np.linalg.norm(y1))
    if n1 <= y0:
        return y
    if n1 <= -y0:
        return np.zeros_like(y)
    t = 0.5 * (y0 + n1)
    return np.concatenate([[t], (t / n1) * y1])


class _Problem:
    """The data, the dual oracle, and the rigorous interval at a dual point."""

    def __init__(self, X, mu, L, gam, lam):
        self.X, self.mu, self.L, self.gam, self.lam = X, mu, L, gam, lam
        self.m, self.d = X.shape
        self.k = L.shape[1]
        # upper bounds of the column and row norms of X (computed once; relative error of a k-term sum <= gamma_k)
        self.col_hi = np.sqrt(np.einsum("ij,ij->j", X, X) * (1 + 2 * gamma_k(self.m + 2))) * (1 + 4 * U) + 1e-300
        self.row_hi = np.sqrt(np.einsum("ij,ij->i", X, X) * (1 + 2 * gamma_k(self.d + 2))) * (1 + 4 * U) + 1e-300
        self.dir = self._interior_direction()

    # ------------------------------------------------------------------ floating-point oracle (minimise -g)
    def split(self, z):
        return z[:self.m], z[self.m:]

    def residual(self, alpha, y):
        return self.X.T @ alpha - (y[0] * self.mu - self.gam * (self.L @ y[1:]))

    def value(self, z, r) -> float:
        """-g at z whose residual is r."""
        return -float(z[:self.m].sum()) + float(r @ r) / (4 * self.lam)

    def grad(self, r) -> np.ndarray:
        """Gradient of -g at a point whose residual is r (one pass over X)."""
        gr = r / (2 * self.lam)
        return np.concatenate([-1.0 + self.X @ gr, [-(self.mu @ gr)], self.gam * (self.L.T @ gr)])

    def res(self, z) -> np.ndarray:
        return self.residual(*self.split(z))

    def project(self, z):
        alpha, y = self.split(z)
        return np.concatenate([np.clip(alpha, 0.0, 1.0), _soc_project(y)])

    # ------------------------------------------------------------------ rigorous pieces
    def xt_ball(self, alpha: np.ndarray) -> Ball:
        """Ball of X'alpha (alpha exact floats)."""
        mid = self.X.T @ alpha
        rad = gamma_k(self.m + 1) * self.col_hi * _norm_hi(alpha) + U * np.abs(mid)
        return Ball(mid, rad * (1 + 4 * (self.m + 4) * U) + 1e-300)

    def x_ball(self, w: np.ndarray) -> Ball:
        """Ball of X w (w exact floats)."""
        mid = self.X @ w
        rad = gamma_k(self.d + 1) * self.row_hi * _norm_hi(w) + U * np.abs(mid)
        return Ball(mid, rad * (1 + 4 * (self.d + 4) * U) + 1e-300)

    def constraint_hi(self, w: np.ndarray) -> float:
        """Upper end of gamma ||L'w|| + mu'w."""
        Lw = matvec(self.L, w, transpose=True)
        return (Ball(self.gam) * Ball(Lw.norm_hi()) + Ball(self.mu).dot(Ball(w))).hi()

    def lower(self, alpha: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """Rigorous lower bound g(alpha, y) after making (alpha, y) exactly dual feasible; returns it and the point."""
        a = np.clip(alpha, 0.0, 1.0)
        yy = y.copy()
        if yy.size > 1:
            yy[0] = max(yy[0], _norm_hi(yy[1:]))
        else:
            yy[0] = max(yy[0], 0.0)
        c = Ball(yy[0]) * Ball(self.mu) - Ball(self.gam) * matvec(self.L, yy[1:])
        r = self.xt_ball(a) - c
        g = Ball(a).sum() - r.sqr().sum() * Ball.recip(4 * self.lam)
        return g.lo(), a, yy

    def upper(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        """Rigorous upper bound f(w') at a point w' proved feasible near w (inf if none is found)."""
        w = np.asarray(w, float)
        G = self.constraint_hi(w)
        if G > 0:
            if self.dir is None:
                return np.inf, w
            gd = self.constraint_hi(self.dir)  # < 0
            t = G / -gd
            for _ in range(20):
                cand = w + (t * (1 + 1e-9) + 1e-300) * self.dir
                if self.constraint_hi(cand) <= 0:
                    w = cand
                    break
                t *= 2.0
            else:
                return np.inf, w
        s = Ball(1.0) - self.x_ball(w)
        hinge = Ball(np.maximum(s.hi(), 0.0)).sum()
        f = Ball(self.lam) * Ball(w).sqr().sum() + hinge
        return f.hi(), w

    def _interior_direction(self):
        """A direction d with gamma ||L'd|| + mu'd < 0 proved (None when w = 0 is the only feasible point)."""
        cands = []
        Lp = np.linalg.pinv(self.L.T)  # d x k: minimum-norm w with L'w = u
        # maximise -mu'w / ||L'w||: w = -Sigma^+ mu (ridge-free); then -mu itself
        cands.append(-(Lp @ (Lp.T @ self.mu)))
        cands.append(-self.mu)
        for dvec in cands:
            n = float(np.linalg.norm(dvec))
            if n > 0 and np.all(np.isfinite(dvec)):
                dvec = dvec / n
                if self.constraint_hi(dvec) < 0:
                    return dvec
        return None


def _lipschitz(prob: _Problem, iters: int = 20, seed: int = 0) -> float:
    """Estimate of ||[X', -mu, gamma L]||^2 / (2 lam) by power iteration (the starting step; FISTA adapts it)."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=prob.m + 1 + prob.k)
    s = 1.0
    for _ in range(iters):
        alpha, y = prob.split(v)
        r = prob.X.T @ alpha - y[0] * prob.mu + prob.gam * (prob.L @ y[1:])
        v = np.concatenate([prob.X @ r, [-(prob.mu @ r)], prob.gam * (prob.L.T @ r)])
        s = float(np.linalg.norm(v))
        if s == 0:
            return 1.0
        v /= s
    return s / (2 * prob.lam)


def _inputs(X_pos, mu, Sigma, lam, delta):
    X, mu, _, L, lam, delta = eq8_inputs(X_pos, mu, Sigma, lam, delta)
    if not lam > 0:
        raise InputError("the structured hinge-minimax solver needs lam > 0 (its dual is smooth only then); "
                         "solve lam = 0 with model.solve(backend='clarabel')")
    return np.ascontiguousarray(X, dtype=float), mu, L, float(np.sqrt((1.0 - delta) / delta)), lam


def solve_hinge_minimax(X_pos, mu, Sigma, lam, delta, *, tol: float = 1e-5, max_iter: int = 20000,
                        check_every: int = 10, alpha0=None, y0=None, progress: bool = False) -> HingeMinimaxFit:
    """Eq. (8) (no bias, squared regulariser) to a certified relative duality gap ``<= tol`` (when reached).

    Arguments as `programs.hinge_minimax`; ``lam > 0``. ``tol``: relative width of the rigorous interval to reach;
    ``max_iter``: accelerated-gradient iterations; ``check_every``: iterations between two certificates (each costs
    about two passes over X); ``alpha0`` (m,), ``y0`` (k+1,): a warm start (e.g. the fit at a neighbouring lam or
    moments). The result's interval is rigorous whatever the status; ``certified`` says whether it met ``tol``.
    """
    t_start = time.perf_counter()
    X, mu, L, gam, lam = _inputs(X_pos, mu, Sigma, lam, delta)
    tol = validate.scalar(tol, "tol", low=0.0, low_open=True)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise InputError(f"max_iter must be a nonnegative integer; got {max_iter!r}")
    if isinstance(check_every, bool) or not isinstance(check_every, (int, np.integer)) or check_every < 1:
        raise InputError(f"check_every must be a positive integer; got {check_every!r}")
    prob = _Problem(X, mu, L, gam, lam)
    m, k = prob.m, prob.k
    z0 = np.zeros(m + 1 + k)
    if alpha0 is not None:
        z0[:m] = validate.vector(alpha0, "alpha0", size=m)
    if y0 is not None:
        z0[m:] = validate.vector(y0, "y0", size=k + 1)
    best = dict(lower=-np.inf, upper=np.inf, w=np.zeros(X.shape[1]), alpha=np.zeros(m), y=np.zeros(k + 1))
    if prob.dir is None:  # w = 0 is the only feasible point: p* = f(0) = m exactly
        best.update(upper=float(m))
    history = []

    def certify(z, it):
        alpha, y = prob.split(z)
        lo, a, yy = prob.lower(alpha, y)
        if lo > best["lower"]:
            best.update(lower=lo, alpha=a, y=yy)
        if prob.dir is not None:
            w = prob.residual(alpha, y) / (2 * lam)
            up, wf = prob.upper(w)
            if up < best["upper"]:
                best.update(upper=up, w=wf)
        history.append(dict(iteration=it, lower=best["lower"], upper=best["upper"],
                            seconds=time.perf_counter() - t_start))
        return _rel(best["lower"], best["upper"]) <= tol

    res = _fista(prob, prob.project(z0), _lipschitz(prob), max_iter, certify, check_every, progress)
    if res.status != "converged":
        certify(res.x, res.iterations)
    lo, up = best["lower"], best["upper"]
    rel = _rel(lo, up)
    w = best["w"]
    objective = float(lam * (w @ w) + np.maximum(0.0, 1.0 - X @ w).sum())
    certified = bool(rel <= tol)
    status = "trivial" if prob.dir is None and certified else "optimal" if certified else "inaccurate"
    return HingeMinimaxFit(w=w, objective=objective, lower=lo, upper=up, gap=up - lo, rel_gap=rel,
                           certified=certified, status=status, alpha=best["alpha"], y=best["y"],
                           iterations=res.iterations, seconds=time.perf_counter() - t_start, history=history,
                           info=dict(method="dual accelerated gradient", descent_status=res.status,
                                     evaluations=res.evaluations, checks=len(history)))


def _fista(prob: _Problem, z, L: float, max_iter: int, check, check_every: int, progress: bool,
           shrink: float = 0.9) -> DescentResult:
    """FISTA with backtracking and gradient restart on -g over box x Q (see the module docstring)."""
    from tqdm.auto import tqdm

    rz = prob.res(z)
    zy, ry, t = z.copy(), rz.copy(), 1.0
    hist, status, evals = [], "iteration_limit", 1
    with tqdm(total=max_iter, desc="hinge-minimax dual", disable=not progress, leave=False) as bar:
        for k in range(1, max_iter + 1):
            if (k - 1) % check_every == 0:
                rz = prob.res(z)  # fresh (the recurrence below drifts by rounding only)
                if check(z, k - 1):
                    status = "converged"
                    break
            gy = prob.grad(ry)
            hy = prob.value(zy, ry)
            while True:
                zn = prob.project(zy - gy / L)
                dz = zn - zy
                rn = prob.res(zn)
                evals += 1
                hn = prob.value(zn, rn)
                if hn <= hy + gy @ dz + 0.5 * L * (dz @ dz) + 1e-12 * abs(hy) or L > 1e300:
                    break
                L *= 2.0
            if gy @ (zn - z) > 0:  # momentum points uphill: restart
                t = 1.0
            tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            beta = (t - 1.0) / tn
            zy, ry = zn + beta * (zn - z), rn + beta * (rn - rz)
            stalled = np.array_equal(zn, z)
            z, rz, t = zn, rn, tn
            L *= shrink
            hist.append(dict(k=k, f=hn, step=1.0 / L))
            bar.update(1)
            if stalled:
                status = "stalled"
                break
        else:
            if check(z, max_iter):
                status = "converged"
    return DescentResult(x=z, f=float(prob.value(z, prob.res(z))), grad=np.zeros(0), iterations=len(hist),
                         status=status, evaluations=evals, history=hist)


def _rel(lo: float, up: float) -> float:
    if not (np.isfinite(lo) and np.isfinite(up)):
        return np.inf
    return max(up - lo, 0.0) / max(abs(up), 1e-300)


def solve_model(model, **options) -> HingeMinimaxFit:
    """`solve_hinge_minimax` on a model built by `programs.hinge_minimax` (its current moments; ``bias=False``,
    ``squared_reg=True``, ``lam > 0``). ``options`` as `solve_hinge_minimax`."""
    from .programs import HingeMinimaxData

    data = getattr(model, "data", None)
    if not isinstance(data, HingeMinimaxData):
        raise InputError("solve_model takes a model built by hinge_minimax")
    if data.bias or not data.squared_reg:
        raise InputError("the structured hinge-minimax solver covers bias=False, squared_reg=True only; solve other "
                         "variants with model.solve(backend='clarabel')")
    return solve_hinge_minimax(data.X, data.mu, data.Sigma, data.lam, data.delta, **options)
