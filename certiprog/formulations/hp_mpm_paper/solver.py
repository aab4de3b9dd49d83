"""Paper 004 — certified structure-exploiting solvers for the MPM (3) and the HP-MPM w-step (10).

Both programs live in the coordinates v of `ClassMoments` (p = moments.p, ``d = mu1 - mu0``, ``F_j`` k_j x p,
``G_j = F_j^T F_j``). A generic conic backend treats the dense ``F_j`` as sparse data (cost ~ p^3.7 on Clarabel); here
each Newton step is one p x p Cholesky factorisation on the precomputed ``G_j``.

MPM (3): ``f* = min f(v) = ||F1 v|| + ||F0 v||  s.t.  d^T v = 1``.
  Dual (write ``||a|| = max_{||y|| <= 1} y^T a``, minimise the Lagrangian over v)::

      f* = max t  s.t.  F1^T y1 + F0^T y0 = t d,  ||y1|| <= 1, ||y0|| <= 1.

  Solver: equality-constrained Newton on ``{d^T v = 1}`` (f is smooth where both norms are > 0; its Hessian
  ``sum_j (G_j - a_j a_j^T / s_j^2) / s_j``, ``a_j = G_j v``, ``s_j = ||F_j v||``, vanishes along v, so the Newton system
  uses ``H + rho d d^T``, which has the same solution on the tangent space ``d^T s = 0``), started at
  ``v ∝ (G1 + G0)^{-1} d``, backtracking on f. At the optimum ``y_j = F_j v / s_j`` and ``t = f(v)``; a class whose norm
  vanishes gets ``y_j`` from least squares on ``F_j^T y_j = t d - F_o^T y_o``.
  Rigorous interval (ball arithmetic, `certiprog.certificates.rigorous`):
  * upper: f is 1-homogeneous, so for the computed v, ``f(v / d^T v) = f(v) / d^T v`` is bounded above by the ball
    enclosures of ``||F_j v||`` and of ``d^T v`` (no rounding of the rescaled point matters);
  * lower: the y_j are scaled until ``||y_j|| <= 1`` is proved; with the exact residual ``r = F1^T y1 + F0^T y0 - t d``
    (enclosed), every feasible v has ``f(v) >= y1^T F1 v + y0^T F0 v = t + r^T v >= t - ||r|| ||v||`` and
    ``||v|| <= ||F v|| / sigma <= f(v) / sigma`` with ``sigma <= sigma_min([F1; F0])`` proved by a shifted Cholesky
    factorisation (`gram_floor`); hence ``f* >= t / (1 + ||r|| / sigma)`` (and f* >= 0 always). When ``[F1; F0]`` is
    rank-deficient no sigma is proved and the lower end is 0 (the dual t = 0, y = 0, exactly feasible). Status
    'optimal' when ``upper - lower <= tol * upper``; when f* ~ 0 (perfect separation, e.g. a kernel MPM with p ~ m,
    where [F1; F0] has a null direction not orthogonal to d) no relative accuracy exists and the gap is judged
    against ``tol * f_d``, ``f_d = (||F1 d|| + ||F0 d||) / ||d||^2`` the value of the direction d (f is scale free).
  Kinks: when a class's projected variance is ~0 at the optimum (common for kernels: F_j has fewer rows than p),
  Newton stalls and ``F_j v / s_j`` is noise; the solver then follows the log-barrier path of the epigraph form
  (``min tau (t1 + t0) - sum_j log(t_j^2 - ||F_j v||^2)``, self-concordant, p x p Schur complement per step) and
  also tries duals with y_j from least squares; every dual is refined (``y_j -= F_j G^{-1} r``) before the bound.
  The barrier's point is good but its dual can stay ~1e-5 off; a few smoothed problems ``f_mu = sum_j sqrt(||F_j
  v||^2 + mu^2)`` (mu from 1e-5 f down to tol f / 5, Newton warm started there) give duals ``y_j = F_j v / sqrt(s_j^2 +
  mu^2)`` (inside the ball, stationary to Newton accuracy, value >= f* - 2 mu). Such instances cost 60-120 Newton
  steps (seen at rank_tol = 1e-4 on 75 points), smooth ones ~6; if the gap still exceeds tol the status is
  'inaccurate' and model.solve() lets the certificate decide.

HP-MPM w-step (10) at fixed kappa, ``c_j > 0``: ``g = max_{||v|| <= 1} h(v) = d^T v - ||(c1, kappa F1 v)|| -
||(c0, kappa F0 v)||``, smooth and concave.
  Dual (``-||a|| = min_{||u|| <= 1} -u^T a``, maximise over the ball first)::

      g <= ||d - kappa (F1^T u1' + F0^T u0')|| - u10 c1 - u00 c0     for all ||u_j|| <= 1, u_j = (u_j0, u_j'),

  with equality at ``u_j = (c_j, kappa F_j v*) / ||(c_j, kappa F_j v*)||``.
  Solver: ``grad h = d - kappa^2 sum_j a_j / n_j``, ``-hess h = H = kappa^2 sum_j (G_j / n_j - kappa^2 a_j a_j^T / n_j^3)``
  (PSD), ``n_j = ||(c_j, kappa F_j v)||``. KKT: ``grad h = lam v``, lam >= 0, ``lam (1 - ||v||) = 0``. Riemannian Newton
  on the sphere (``lam = v^T grad h``; step ``(H + lam I) xi + mu v = grad h - lam v``, ``v^T xi = 0``, retraction
  ``(v + t xi)/||v + t xi||``, backtracking on h) while lam > 0, and unconstrained Newton ``H s = grad h`` when the
  maximiser is interior (lam <= 0). Warm started from the previous kappa's v.
  Rigorous interval: lower = ``h`` at v scaled until ``||v|| <= 1`` is proved, evaluated in ball arithmetic; upper =
  the dual bound above at the u_j of v, scaled until ``||u_j|| <= 1`` is proved. Status 'optimal' when
  ``upper - lower <= tol * (||d|| + c1 + c0)`` (h is a difference of terms of that size and is ~0 at kappa*, so a
  gap relative to |h| would be meaningless there).

Measured once (2026-11-25, OMP_NUM_THREADS=1, 2 cores shared with other jobs; rbf, gamma = 0.1, two Gaussian classes
in 10-d, means +-0.5, m/2 points each, `kernel_class_moments` at its defaults, so p = m - 1 and F_j is (m/2) x p dense;
HP-MPM at delta = 0.1, nu = 0.01, bisection; times of ``model.solve(solver="structured")`` / ``prob.solve()`` against
``backend='clarabel'``, and of `certiprog.certificates.check` with the interval on the structured answer)::

    m     program   structured   Clarabel    ratio   check()   structured interval / status
    500   MPM        0.08 s        1.05 s     13x     0.19 s   [0, 9.8e-12] optimal (f* = 0: kernel MPM separates)
    500   HP-MPM     0.23 s        1.18 s      5x     0.45 s   kappa bracket width 1e-13, 3 w-steps + polish
    1000  MPM        0.98 s       20.3 s      21x     2.6 s    [0, 2.9e-11] optimal
    1000  HP-MPM     2.2 s        64.1 s      30x     4.0 s    kappa bracket width 2e-13
    2000  MPM        5.3 s       171 s        33x     8.9 s    [0, 3.8e-9] optimal (peak RSS 0.96 GB, with Clarabel)
    2000  HP-MPM     7.5 s       785 s       104x    26 s      kappa bracket width 3e-13 (peak RSS 1.5 GB)
    2000  MPM, max_rank=300 (p = 300): 0.19 s vs 0.96 s; HP-MPM 0.57 s vs 7.2 s (F_j triangular, Clarabel cheap too)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla

from certiprog.certify.rigorous import Ball, U, gamma, matvec
from certiprog.certify.verdict import Interval
from certiprog.errors import InputError

__all__ = ["MPMFit", "WStepFit", "gram_floor", "grams", "mpm_interval", "solve_mpm", "solve_w_step",
           "w_step_interval"]

# ----------------------------------------------------------------------------------------------------------------
# rigorous helpers
# ----------------------------------------------------------------------------------------------------------------
def _up(x: float) -> float:
    return float(np.nextafter(float(x), np.inf))


def _down(x: float) -> float:
    return float(np.nextafter(float(x), -np.inf))


def _sqrt_hi(x: float) -> float:
    """Upper bound of sqrt(x) for x an upper bound (IEEE sqrt is correctly rounded: one ulp up suffices)."""
    return _up(math.sqrt(max(float(x), 0.0)))


def _sqrt_lo(x: float) -> float:
    return max(_down(math.sqrt(max(float(x), 0.0))), 0.0)


def _sq_norm(b: Ball) -> Ball:
    """Ball enclosure of ||b||^2."""
    return b.sqr().sum()


def _into_unit_ball(u: np.ndarray) -> np.ndarray:
    """``u`` scaled (if needed) until ``||u|| <= 1`` is PROVED for the float vector returned."""
    u = np.asarray(u, float)
    for _ in range(8):
        nh = Ball(u).norm_hi()
        if nh <= 1.0:
            return u
        u = u / (nh * (1 + 16 * U))
    raise ArithmeticError("could not scale a vector into the unit ball")  # pragma: no cover (never seen)


def _chol(M: np.ndarray):
    """cho_factor of the symmetric M, shifted by 1e-14, 1e-10, 1e-6 of its mean diagonal when it is not numerically
    PD (a Newton system: the shift only damps the step); None when all fail."""
    p = M.shape[0]
    shift = max(float(np.trace(M)) / max(p, 1), 1e-300)
    for eps in (0.0, 1e-14, 1e-10, 1e-6):
        try:
            A = M if eps == 0.0 else M + (eps * shift) * np.eye(p)
            return sla.cho_factor(A, check_finite=True)
        except (np.linalg.LinAlgError, ValueError):
            continue
    return None


def grams(moments) -> tuple[np.ndarray, np.ndarray]:
    """``(G1, G0) = (F1^T F1, F0^T F0)`` (p x p, symmetrised)."""
    out = []
    for F in (moments.F1, moments.F0):
        G = F.T @ F
        out.append(0.5 * (G + G.T))
    return out[0], out[1]


def gram_floor(Fs, G: np.ndarray) -> float:
    """A PROVED lower bound (>= 0) of lambda_min(sum_j F_j^T F_j), G the floating-point sum of the F_j^T F_j.

    ``G = exact + E`` with ``|E| <= gamma_{k+2} sum_j |F_j|^T |F_j|`` (k the most rows), so ``||E||_2 <=
    gamma_{k+2} sum_j ||F_j||_F^2``. A floating-point Cholesky factor R of ``A = fl(G - sigma I)`` satisfies ``R^T R =
    A + D``, ``|D| <= gamma_{p+1} |R|^T |R|`` (Higham, Thm 10.3), so ``lambda_min(A) >= -gamma_{p+1} ||R||_F^2``; the
    shift's own rounding is ``<= u max|A_ii|``. Hence ``lambda_min(exact) >= sigma - ||E|| - u max|A_ii| -
    gamma_{p+1} ||R||_F^2`` (every bound doubled for safety). sigma is half an inverse-iteration estimate of
    lambda_min(G), cut by 10 while the factorisation fails. 0 when nothing positive is proved.
    """
    p = G.shape[0]
    k = max([F.shape[0] for F in Fs] + [1])
    fro2 = sum(float(np.sum(F * F)) for F in Fs)
    err = 2.0 * (gamma(k + 2) * fro2 * (1 + gamma(2 * k + 4)) + 2 * U * float(np.linalg.norm(G)))
    try:
        R0 = sla.cholesky(G, lower=False, check_finite=True)
    except (np.linalg.LinAlgError, ValueError):
        return 0.0
    x = np.random.default_rng(0).standard_normal(p)
    x /= np.linalg.norm(x)
    est = np.inf
    for _ in range(6):  # inverse iteration on R0^T R0 = G
        y = sla.solve_triangular(R0, sla.solve_triangular(R0, x, trans="T"))
        ny = float(np.linalg.norm(y))
        if not np.isfinite(ny) or ny == 0:
            return 0.0
        est = 1.0 / ny
        x = y / ny
    sigma = 0.5 * est
    eye = np.eye(p)
    for _ in range(4):
        if sigma <= err:
            return 0.0
        A = G - sigma * eye
        try:
            R = sla.cholesky(A, lower=False, check_finite=True)
        except (np.linalg.LinAlgError, ValueError):
            sigma *= 0.1
            continue
        rest = err + 2 * U * float(np.max(np.abs(np.diag(A)))) \
            + 2 * gamma(p + 1) * float(np.sum(R * R)) * (1 + gamma(p + 4))
        floor = sigma - rest
        return max(_down(floor * (1 - 4 * U)), 0.0)
    return 0.0


def _check_moments(moments):
    from .mpm import ClassMoments

    if not isinstance(moments, ClassMoments):
        raise InputError(f"the structured solver takes a ClassMoments; got {type(moments).__name__}")
    for name in ("mu1", "mu0", "F1", "F0"):
        a = getattr(moments, name)
        if not np.all(np.isfinite(a)):
            raise InputError(f"moments.{name} has NaN or inf entries")


def _status(lower: float, upper: float, scale: float, tol: float) -> tuple[str, float]:
    gap = upper - lower
    rel = gap / scale if scale > 0 else math.inf
    ok = np.isfinite(lower) and np.isfinite(upper) and gap <= tol * scale
    return ("optimal" if ok else "inaccurate"), float(rel)


# ----------------------------------------------------------------------------------------------------------------
# MPM (3)
# ----------------------------------------------------------------------------------------------------------------
@dataclass
class MPMFit:
    """`solve_mpm`: ``v`` (d^T v = 1 up to rounding), the dual ``t``, ``y1``, ``y0`` (proved ``||y_j|| <= 1``), the
    rigorous interval ``lower <= f* <= upper``, ``status`` ('optimal' iff ``upper - lower <= tol * upper``, or
    ``<= tol * f_d`` when ``upper <= tol * f_d``, f_d the value of the direction d: see `solve_mpm`),
    ``rel_gap``, ``iterations`` (Newton steps), ``info`` (sigma bound, residual)."""

    v: np.ndarray
    t: float
    y1: np.ndarray
    y0: np.ndarray
    lower: float
    upper: float
    status: str
    rel_gap: float
    iterations: int
    info: dict = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        return self.status == "optimal"

    @property
    def interval(self) -> Interval:
        """``lower <= f* <= upper`` as certiprog's one rigorous `Interval` (``lo, hi = fit.interval``)."""
        return Interval(float(self.lower), float(self.upper))


def _mpm_value(G1, G0, v, mu=0.0):
    """f_mu(v) = sum_j sqrt(v'G_j v + mu^2) (mu = 0: f), the G_j v and the two (smoothed) norms."""
    a1, a0 = G1 @ v, G0 @ v
    n1 = math.sqrt(max(float(v @ a1), 0.0) + mu * mu)
    n0 = math.sqrt(max(float(v @ a0), 0.0) + mu * mu)
    return n1 + n0, a1, a0, n1, n0


def _mpm_newton(G1, G0, d, v, max_iter, mu=0.0):
    """Newton on {d^T v = 1} for f_mu (`_mpm_value`); returns (v, steps). The Hessian ``sum_j (G_j - a_j a_j^T /
    n_j^2) / n_j`` is singular along v when mu = 0 (f is 1-homogeneous), so the system uses ``H + rho d d^T`` (same
    step on the tangent space d^T s = 0)."""
    p = d.size
    dd = float(d @ d)
    v = v / float(d @ v)
    f, a1, a0, n1, n0 = _mpm_value(G1, G0, v, mu)
    steps = 0
    for steps in range(1, max_iter + 1):
        H = np.zeros((p, p))
        grad = np.zeros(p)
        for G, a, n in ((G1, a1, n1), (G0, a0, n0)):
            if n > 1e-15 * f:
                H += G / n - np.outer(a, a) / n ** 3
                grad += a / n
        tr = float(np.trace(H))
        if not tr > 0:
            break
        M = H + (tr / (p * dd)) * np.outer(d, d)
        M = 0.5 * (M + M.T)
        cf = _chol(M)
        if cf is None:
            break
        Mg, Md = sla.cho_solve(cf, grad), sla.cho_solve(cf, d)
        s = -Mg + (float(d @ Mg) / float(d @ Md)) * Md
        s -= (float(d @ s) / dd) * d
        dec = -float(grad @ s)  # Newton decrement^2 (>= 0 for a descent step)
        if not dec > 1e-28 * f:
            break
        step = 1.0
        while step > 1e-10:
            vn = v + step * s
            vn = vn / float(d @ vn)
            fn, a1n, a0n, n1n, n0n = _mpm_value(G1, G0, vn, mu)
            if fn <= f - 1e-4 * step * dec:
                break
            step *= 0.5
        else:
            break
        v, f, a1, a0, n1, n0 = vn, fn, a1n, a0n, n1n, n0n
        if dec <= 1e-20 * f:
            break
    return v, steps


def _mpm_barrier(G1, G0, d, v, tau, tau_max, max_steps):
    """Log-barrier path following for (3) in epigraph form: ``min tau (t1 + t0) - sum_j log(t_j^2 - v'G_j v)`` on
    ``d^T v = 1``; self-concordant (parameter 2 per cone), so damped Newton never stalls near a kink. The t_j are
    eliminated: the Newton system is the p x p Schur complement ``sum_j 2 G_j / rho_j + beta_j a_j a_j^T`` (rho_j =
    t_j^2 - q_j, a_j = G_j v) bordered by d. tau grows x10 per stage up to ``tau_max``. Yields (v, w1, w0, steps so far) at
    the end of each stage: ``y_j = w_j F_j v``, ``w_j = 1 / t_j`` (= 2 / (tau rho_j) on the central path, and
    ``||y_j|| = s_j / t_j < 1`` anywhere), is the central-path dual, its gap 4 / tau."""
    p = d.size
    v = v / float(d @ v)
    q = [max(float(v @ (G @ v)), 0.0) for G in (G1, G0)]
    f = math.sqrt(q[0]) + math.sqrt(q[1])
    t = [math.sqrt(qj) + 0.1 * f + 1e-300 for qj in q]
    steps = 0

    def phi(v, t, tau):
        out = tau * (t[0] + t[1])
        for G, tj in ((G1, t[0]), (G0, t[1])):
            r = tj * tj - float(v @ (G @ v))
            if not r > 0:
                return math.inf
            out -= math.log(r)
        return out

    while steps < max_steps:
        for _ in range(50):
            steps += 1
            S0 = np.zeros((p, p))
            rhs = np.zeros(p)
            parts = []
            for G, tj in ((G1, t[0]), (G0, t[1])):
                a = G @ v
                q = float(v @ a)
                rho = tj * tj - q
                gt = tau - 2 * tj / rho
                htt = -2 / rho + 4 * tj * tj / rho ** 2
                htv = -4 * tj / rho ** 2  # times a
                S0 += (2 / rho) * G
                rhs += -(2 / rho) * a + (htv * gt / htt) * a
                # the eliminated t_j adds beta_j a_j a_j^T, beta_j = 4/rho^2 - htv^2/htt = -4 / (rho (t^2 + q)) < 0
                parts.append((a, gt, htt, htv, -4.0 / (rho * (tj * tj + q))))
            # S = S0 + A diag(beta) A^T is PD but nearly singular along v at the cone boundary: factor only S0 (PD
            # when [F1; F0] has full column rank) and apply the rank-2 term by Sherman-Morrison-Woodbury
            cf = _chol(0.5 * (S0 + S0.T))
            if cf is None or not np.all(np.isfinite(S0)):
                return
            A = np.column_stack([pt[0] for pt in parts])
            SA = sla.cho_solve(cf, A)
            cap = np.diag([1.0 / pt[4] for pt in parts]) + A.T @ SA

            def solve(r):
                y = sla.cho_solve(cf, r)
                return y - SA @ np.linalg.solve(cap, A.T @ y)

            try:
                Sr, Sd = solve(rhs), solve(d)
            except np.linalg.LinAlgError:
                return
            dv = Sr - (float(d @ Sr) / float(d @ Sd)) * Sd
            dt = [-(gt + htv * float(a @ dv)) / htt for a, gt, htt, htv, _ in parts]
            # Newton decrement^2 = -grad . step
            dec = -sum(((2 / (t[j] * t[j] - float(v @ parts[j][0]))) * float(parts[j][0] @ dv) + parts[j][1] * dt[j])
                       for j in range(2))
            if not dec > 1e-9:  # centred (Newton decrement^2): the central-path dual is accurate
                break
            # self-concordance: the damped step 1/(1 + lambda) (full step once lambda^2 < 1/4) decreases phi and stays
            # feasible, so no line search on phi (whose value ~ tau f is too large to compare in floats at the end)
            step = 1.0 if dec < 0.25 else 1.0 / (1.0 + math.sqrt(dec))
            while step > 1e-12:
                vn = v + step * dv
                vn = vn / float(d @ vn)
                tn = [t[0] + step * dt[0], t[1] + step * dt[1]]
                if phi(vn, tn, tau) < math.inf:  # inside both cones
                    break
                step *= 0.5
            else:
                break
            v, t = vn, tn
        yield v, 1.0 / t[0], 1.0 / t[1], steps
        if tau >= tau_max:
            return
        tau *= 10.0


def _mpm_duals(F1, F0, d, v, cfG, weights=None):
    """Dual candidates (t, y1, y0) at the primal v, each refined to near-exact feasibility.

    Three starts: ``y_j = F_j v / s_j`` for both classes (and ``w_j F_j v`` at a barrier point); or one class's y from v and the other's (with t) by least
    squares on ``F_j^T y_j - t d = -F_o^T y_o`` (accurate when s_j is tiny, near a kink, where F_j v / s_j is noise).
    Refinement: with ``r = F1^T y1 + F0^T y0 - t d`` and ``G s = r`` (G = F^T F, factor ``cfG``), ``y_j -= F_j s``
    zeroes r up to rounding; then all of (t, y1, y0) is divided by max(1, ||y1||, ||y0||)."""
    f1, f0 = F1 @ v, F0 @ v
    s1, s0 = float(np.linalg.norm(f1)), float(np.linalg.norm(f0))
    f = s1 + s0
    dv = float(d @ v)
    starts = []
    if weights is not None:  # a barrier point: y_j = w_j F_j v (the central-path dual, inside the ball)
        y1, y0 = weights[0] * f1, weights[1] * f0
        g = F1.T @ y1 + F0.T @ y0
        starts.append((float(d @ g) / float(d @ d), y1, y0))
    if s1 > 0 and s0 > 0:
        starts.append((f / dv, f1 / s1, f0 / s0))
    for (Fa, fa, sa), (Fb, sb, first) in (((F1, f1, s1), (F0, s0, True)), ((F0, f0, s0), (F1, s1, False))):
        if sa <= 0 or Fb.shape[0] == 0:
            continue
        ya = fa / sa
        try:
            sol = sla.lstsq(np.column_stack([Fb.T, -d]), -(Fa.T @ ya), check_finite=False, lapack_driver="gelsd")[0]
        except (np.linalg.LinAlgError, ValueError):
            continue
        yb, t = sol[:-1], float(sol[-1])
        starts.append((t, ya, yb) if first else (t, yb, ya))
    out = []
    for t, y1, y0 in starts:
        if cfG is not None:
            for _ in range(2):
                r = F1.T @ y1 + F0.T @ y0 - t * d
                sv = sla.cho_solve(cfG, r)
                y1, y0 = y1 - F1 @ sv, y0 - F0 @ sv
        m = max(1.0, float(np.linalg.norm(y1)), float(np.linalg.norm(y0)))
        t, y1, y0 = t / m, _into_unit_ball(y1 / m), _into_unit_ball(y0 / m)
        out.append((t, y1, y0))
    if not out:
        out.append((0.0, np.zeros(F1.shape[0]), np.zeros(F0.shape[0])))
    return out


def mpm_interval(moments, v, t, y1, y0, sigma: float) -> tuple[float, float, dict]:
    """The rigorous ``(lower, upper)`` of f* from the primal v (any d^T v > 0) and the dual (t, y1, y0) with
    ``||y_j|| <= 1`` proved by the caller; ``sigma`` a proved lower bound of lambda_min(F^T F) (0: none)."""
    F1, F0, d = moments.F1, moments.F0, moments.dmu
    dv = Ball(d).dot(v)
    f_hi = _up(_sqrt_hi(_sq_norm(matvec(F1, v)).hi()) + _sqrt_hi(_sq_norm(matvec(F0, v)).hi()))
    dv_lo = dv.lo()
    upper = _up(f_hi / dv_lo * (1 + 2 * U)) if dv_lo > 0 else math.inf
    r = matvec(F1, y1, transpose=True) + matvec(F0, y0, transpose=True) - Ball(t) * Ball(d)
    r_hi = r.norm_hi()
    smin = _sqrt_lo(sigma) if sigma > 0 else 0.0
    t_lo = Ball(t).lo()
    lower = 0.0
    if smin > 0 and t_lo > 0:
        lower = max(0.0, _down(t_lo / _up(1.0 + r_hi / smin * (1 + 2 * U)) * (1 - 2 * U)))
    return lower, upper, dict(residual=r_hi, sigma_min_lower=smin)


def solve_mpm(moments, *, tol: float = 1e-7, max_iter: int = 50, v0=None, grams_=None) -> MPMFit:
    """004 eq. (3) on a `ClassMoments` by Newton with a rigorous interval (module docstring). Raises `InputError`
    when ``d = mu1 - mu0`` is 0 (the program is infeasible)."""
    _check_moments(moments)
    if not (isinstance(tol, float) or isinstance(tol, int)) or not 0 < tol < 1:
        raise InputError(f"tol must be in (0, 1); got {tol!r}")
    d = np.asarray(moments.dmu, float)
    if moments.means_coincide:
        raise InputError("the projected class means coincide (mu1 == mu0 up to rounding): the normalisation d^T v = 1 reads 0 = 1, "
                         "so the MPM (3) is infeasible (Theorem 2 of 004: kappa* = 0)")
    F1, F0 = moments.F1, moments.F0
    G1, G0 = grams(moments) if grams_ is None else grams_
    G = G1 + G0
    p = d.size
    if v0 is None:
        scale = max(float(np.trace(G)) / p, 1e-300)
        cf = _chol(G + 1e-12 * scale * np.eye(p))
        v = sla.cho_solve(cf, d) if cf is not None else d.copy()
        if not (np.all(np.isfinite(v)) and 0 < float(d @ v) < math.inf):  # (G ~ 0: both classes constant)
            v = d.copy()
    else:
        v = np.asarray(v0, float).copy()
        if not float(d @ v) > 0:
            v = d.copy()
    sigma = gram_floor((F1, F0), G)
    cfG = _chol(G) if sigma > 0 else None
    best: dict[str, Any] = dict(lower=0.0, upper=math.inf, v=None, dual=None, info={})  # the best ends so far

    def consider(v, weights=None):
        v = v / float(d @ v)
        for t, y1, y0 in _mpm_duals(F1, F0, d, v, cfG, weights):
            lower, upper, info = mpm_interval(moments, v, t, y1, y0, sigma)
            if upper < best["upper"]:
                best.update(upper=upper, v=v)
            if lower > best["lower"] or best["dual"] is None:
                best.update(lower=max(lower, best["lower"]), dual=(t, y1, y0), info=info)
        return best["upper"] - best["lower"] <= tol * best["upper"]

    v, steps = _mpm_newton(G1, G0, d, v, min(max_iter, 12))  # converges in ~6 steps away from kinks
    done = consider(v)
    # near a kink (a class's projected variance ~0) plain Newton stalls and its dual is noise: follow the barrier
    # path (gap 4 / tau) from v; every stage's point and central-path dual is a candidate
    stages = barrier_steps = 0
    if not done and sigma > 0:  # (sigma = 0: no lower end can be proved, the barrier would not help)
        f = best["upper"]
        # gap of the central path = 4 / tau: stop at 0.05 tol f (further, rho_j = t_j^2 - q_j loses its digits)
        for vb, w1, w0, k in _mpm_barrier(G1, G0, d, v, 10.0 / f, 4.0 / (0.05 * tol * f), 10 * max_iter):
            stages, barrier_steps = stages + 1, k
            v = vb
            if consider(vb, (w1, w0)):
                break
        # then the smoothed problems f_mu (mu down to tol f / 4), warm started at the barrier's point: their Newton
        # points give duals y_j = F_j v / sqrt(s_j^2 + mu^2), inside the ball and stationary to Newton accuracy
        mu = 1e-5 * best["upper"]
        while not (best["upper"] - best["lower"] <= tol * best["upper"]) and mu >= 0.2 * tol * best["upper"]:
            v, k = _mpm_newton(G1, G0, d, v, 15, mu)
            barrier_steps += k
            f1, f0 = F1 @ v, F0 @ v
            n1 = math.sqrt(float(f1 @ f1) + mu * mu)
            n0 = math.sqrt(float(f0 @ f0) + mu * mu)
            consider(v, (1.0 / n1, 1.0 / n0))
            mu *= 0.1
    lower, upper, v, info = best["lower"], best["upper"], best["v"], dict(best["info"])
    t, y1, y0 = best["dual"]
    info["barrier_stages"] = stages
    steps += barrier_steps
    # f is 1-homogeneous and scale-free (f = 1/kappa); the direction d gives f_d = (||F1 d|| + ||F0 d||) / ||d||^2 >=
    # f*. When f* ~ 0 (perfect separation: [F1; F0] has a null direction not orthogonal to d, e.g. a kernel MPM
    # with p ~ m) no relative accuracy exists: the gap is then judged against tol * f_d, and the dual is the exactly
    # feasible (t, y) = 0 (lower end 0)
    f_d = (float(np.linalg.norm(F1 @ d)) + float(np.linalg.norm(F0 @ d))) / float(d @ d)
    status, rel = _status(lower, upper, max(upper, 0.0), tol)
    if status != "optimal" and upper <= tol * f_d:
        status, rel = _status(lower, upper, f_d, tol)
        if lower == 0.0:
            t, y1, y0 = 0.0, np.zeros(F1.shape[0]), np.zeros(F0.shape[0])
    info.update(f_d=f_d)
    return MPMFit(v, t, y1, y0, lower, upper, status, rel, steps, info)


# ----------------------------------------------------------------------------------------------------------------
# HP-MPM w-step (10)
# ----------------------------------------------------------------------------------------------------------------
@dataclass
class WStepFit:
    """`solve_w_step`: ``v`` (``||v|| <= 1`` proved), ``lam`` (the ball's multiplier), the dual ``u1``, ``u0`` (proved
    in the unit ball), the rigorous interval ``lower <= g(kappa) <= upper``, ``status``, ``rel_gap`` (gap over
    ``||d|| + c1 + c0``), ``iterations``, ``info``."""

    v: np.ndarray
    lam: float
    u1: np.ndarray
    u0: np.ndarray
    lower: float
    upper: float
    status: str
    rel_gap: float
    iterations: int
    info: dict = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        return self.status == "optimal"

    @property
    def interval(self) -> Interval:
        """``lower <= g(kappa) <= upper`` as certiprog's one rigorous `Interval` (``lo, hi = fit.interval``)."""
        return Interval(float(self.lower), float(self.upper))


def _h_parts(G1, G0, d, kappa, c1, c0, v):
    k2 = kappa * kappa
    a1, a0 = G1 @ v, G0 @ v
    n1 = math.sqrt(c1 * c1 + k2 * max(float(v @ a1), 0.0))
    n0 = math.sqrt(c0 * c0 + k2 * max(float(v @ a0), 0.0))
    return float(d @ v) - n1 - n0, a1, a0, n1, n0


def _w_newton(G1, G0, d, kappa, c1, c0, v, max_iter, eps):
    """Newton for max_{||v|| <= 1} h (module docstring); returns (v, lam, steps)."""
    p = d.size
    k2 = kappa * kappa
    scale = float(np.linalg.norm(d)) + c1 + c0
    h, a1, a0, n1, n0 = _h_parts(G1, G0, d, kappa, c1, c0, v)
    lam, steps = 0.0, 0
    eye = np.eye(p)
    for steps in range(1, max_iter + 1):
        grad = d - k2 * (a1 / n1 + a0 / n0)
        nv = float(np.linalg.norm(v))
        H = k2 * (G1 / n1 + G0 / n0) - (k2 * k2) * (np.outer(a1, a1) / n1 ** 3 + np.outer(a0, a0) / n0 ** 3)
        H = 0.5 * (H + H.T)
        on_sphere = nv >= 1.0 - 1e-12
        lam = float(v @ grad) / (nv * nv) if on_sphere else 0.0
        if on_sphere and lam > 0:
            gt = grad - lam * v
            if float(np.linalg.norm(gt)) <= eps * scale:
                break
            M = H + lam * eye
            cf = _chol(M)
            if cf is None:
                break
            Mg, Mv = sla.cho_solve(cf, gt), sla.cho_solve(cf, v)
            mu = float(v @ Mg) / float(v @ Mv)
            xi = Mg - mu * Mv
            xi -= (float(v @ xi) / (nv * nv)) * v
            step, moved = 1.0, False
            while step > 1e-12:
                vn = v + step * xi
                vn = vn / np.linalg.norm(vn)
                hn, a1n, a0n, n1n, n0n = _h_parts(G1, G0, d, kappa, c1, c0, vn)
                if hn >= h - 1e-15 * scale:
                    moved = True
                    break
                step *= 0.5
            if not moved:
                break
        else:  # interior: unconstrained Newton, projected back to the ball if it leaves it
            if float(np.linalg.norm(grad)) <= eps * scale:
                break
            cf = _chol(H)
            s = sla.cho_solve(cf, grad) if cf is not None else grad
            step, moved = 1.0, False
            while step > 1e-12:
                vn = v + step * s
                nn = float(np.linalg.norm(vn))
                if nn > 1.0:
                    vn = vn / nn
                hn, a1n, a0n, n1n, n0n = _h_parts(G1, G0, d, kappa, c1, c0, vn)
                if hn >= h - 1e-15 * scale:
                    moved = True
                    break
                step *= 0.5
            if not moved:
                break
        if np.array_equal(vn, v):
            break
        v, h, a1, a0, n1, n0 = vn, hn, a1n, a0n, n1n, n0n
    grad = d - k2 * (a1 / n1 + a0 / n0)
    nv = float(np.linalg.norm(v))
    lam = max(float(v @ grad) / (nv * nv), 0.0) if nv >= 1.0 - 1e-9 else 0.0
    return v, lam, steps


def w_step_interval(moments, kappa: float, c1: float, c0: float, v, u1, u0) -> tuple[float, float]:
    """Rigorous ``(lower, upper)`` of g(kappa): h at v (``||v|| <= 1`` proved by the caller) and the dual bound at
    (u1, u0) (``||u_j|| <= 1`` proved by the caller), both in ball arithmetic."""
    F1, F0, d = moments.F1, moments.F0, moments.dmu
    K = Ball(float(kappa))
    terms = []
    for F, c in ((F1, c1), (F0, c0)):
        q = Ball(float(c)).sqr() + K.sqr() * _sq_norm(matvec(F, v))
        terms.append(_sqrt_hi(q.hi()))
    lower = (Ball(d).dot(v) - Ball(terms[0]) - Ball(terms[1])).lo()
    r = matvec(F1, u1[1:], transpose=True) + matvec(F0, u0[1:], transpose=True)
    w = Ball(d) - K * r
    beta = Ball(float(u1[0])) * Ball(float(c1)) + Ball(float(u0[0])) * Ball(float(c0))
    upper = (Ball(w.norm_hi()) - beta).hi()
    return float(lower), float(upper)


def solve_w_step(moments, kappa: float, c1: float | None = None, c0: float | None = None, A1: float | None = None,
                 A0: float | None = None, *, tol: float = 1e-9, max_iter: int = 60, v0=None,
                 grams_=None) -> WStepFit:
    """max_{||v|| <= 1} d^T v - ||(c1, kappa F1 v)|| - ||(c0, kappa F0 v)|| (eq. 10) with a rigorous interval.

    ``c_j`` given, or from ``A_j``: ``c_j = sqrt((2 + kappa^2) A_j)``; both must be > 0 (the smooth case). ``v0``: a
    warm start (the previous kappa's v); ``grams_``: precomputed `grams`.
    """
    _check_moments(moments)
    kappa = float(kappa)
    if not (np.isfinite(kappa) and kappa >= 0):
        raise InputError(f"kappa must be a finite number >= 0; got {kappa!r}")
    if c1 is None:
        if A1 is None:
            raise InputError("the structured w-step needs c1 or A1")
        c1 = math.sqrt((2 + kappa * kappa) * float(A1))
    if c0 is None:
        if A0 is None:
            raise InputError("the structured w-step needs c0 or A0")
        c0 = math.sqrt((2 + kappa * kappa) * float(A0))
    c1, c0 = float(c1), float(c0)
    if not (c1 > 0 and c0 > 0 and np.isfinite(c1) and np.isfinite(c0)):
        raise InputError(f"the structured w-step needs c1, c0 > 0 and finite (got {c1!r}, {c0!r})")
    if not 0 < tol < 1:
        raise InputError(f"tol must be in (0, 1); got {tol!r}")
    d = np.asarray(moments.dmu, float)
    G1, G0 = grams(moments) if grams_ is None else grams_
    nd = float(np.linalg.norm(d))
    if v0 is not None and np.all(np.isfinite(v0)) and float(np.linalg.norm(v0)) > 0:
        v = np.asarray(v0, float).copy()
        v /= max(float(np.linalg.norm(v)), 1.0)
    elif nd > 0:
        v = d / nd
    else:
        v = np.zeros(d.size)
    steps = 0
    if kappa > 0 and nd > 0:
        v, lam, steps = _w_newton(G1, G0, d, kappa, c1, c0, v, max_iter, 1e-13)
    v = _into_unit_ball(v)
    # the dual point of v, in the unit ball
    k2 = kappa * kappa
    us = []
    for F, c in ((moments.F1, c1), (moments.F0, c0)):
        y = kappa * (F @ v)
        n = math.sqrt(c * c + float(y @ y))
        us.append(_into_unit_ball(np.concatenate([[c / n], y / n])))
    grad = d - k2 * (G1 @ v / math.sqrt(c1 * c1 + k2 * float(v @ G1 @ v))
                     + G0 @ v / math.sqrt(c0 * c0 + k2 * float(v @ G0 @ v)))
    nv = float(np.linalg.norm(v))
    lam = max(float(v @ grad), 0.0) / max(nv * nv, 1e-300) if nv >= 1 - 1e-9 else 0.0
    lower, upper = w_step_interval(moments, kappa, c1, c0, v, us[0], us[1])
    scale = nd + c1 + c0
    status, rel = _status(lower, upper, scale, tol)
    return WStepFit(v, lam, us[0], us[1], lower, upper, status, rel, steps,
                    dict(kappa=kappa, c1=c1, c0=c0))
