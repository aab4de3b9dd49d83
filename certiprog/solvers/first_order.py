"""Generic first-order loops for smooth convex problems that a formulation solves without forming its KKT system.

Two loops over an oracle ``fun(x) -> (f(x), grad f(x))``, both stopping when a caller's ``check(x, k)`` says so
(a paper's solver passes its certified duality gap here: a loop never trusts its own estimate of optimality):

* `accelerated_gradient`: Nesterov / FISTA steps for ``min f(x) + indicator(C)`` with an optional Euclidean
  projection onto C, a backtracking estimate of the Lipschitz constant (doubled on a failed sufficient-decrease
  test, shrunk by ``shrink`` after each accepted step) and O'Donoghue & Candes' gradient restart (the momentum is
  dropped when it points uphill, which recovers linear convergence on strongly convex problems without knowing
  the modulus);
* `variable_metric_descent`: ``x+ = x + t d`` with ``d = direction(x, g)`` from the caller (a Newton-like step
  with an approximate Hessian, a preconditioned gradient, ...; replaced by ``-g`` when it is not a descent
  direction) and Armijo backtracking from t = 1.

Both return a `DescentResult` with a per-iteration history (f, gradient norm, step) and a status: 'converged'
(``check`` said stop), 'iteration_limit', or 'stalled' (no step decreases f any more in floating point).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..errors import InputError

__all__ = ["DescentResult", "accelerated_gradient", "variable_metric_descent"]


@dataclass
class DescentResult:
    """Final point ``x``, ``f`` and ``grad`` there, ``iterations``, ``status``, ``history`` (one dict per
    iteration: k, f, grad_norm, step, seconds) and ``evaluations`` (oracle calls)."""

    x: np.ndarray
    f: float
    grad: np.ndarray
    iterations: int
    status: str
    evaluations: int
    history: list = field(default_factory=list)


def _check_args(x0, max_iter) -> np.ndarray:
    x = np.array(x0, dtype=float, copy=True)
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise InputError("x0 must be a finite 1-d array")
    if not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise InputError(f"max_iter must be a nonnegative integer; got {max_iter!r}")
    return x


class _NoBar:
    """What a disabled progress bar does: nothing (its update / set_postfix / close calls, a context manager)."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix(self, *args, **kwargs) -> None:
        pass

    def set_description(self, *args, **kwargs) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:  # exceptions propagate
        return None


def progress_bar(total: int, enabled: bool, desc: str):
    """A tqdm bar of ``total`` steps when ``enabled``, else a bar that does nothing: a disabled tqdm still creates
    tqdm's multiprocessing lock on its first use in a process (~2 ms, as much as a Letter-sized solve's certificate
    check takes to build its row masks), which a caller that asked for no bar should not pay."""
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, leave=False)


def accelerated_gradient(fun: Callable, x0, *, project: Callable | None = None, L0: float = 1.0,
                         max_iter: int = 10000, check: Callable | None = None, check_every: int = 1,
                         shrink: float = 0.9, restart: bool = True, progress: bool = False) -> DescentResult:
    """FISTA with backtracking and gradient restart for ``min f(x)`` over a convex set (``project``, default R^n).

    ``fun(x) -> (f, grad)``; ``check(x, k) -> bool`` (stop when True) is called on the current iterate every
    ``check_every`` iterations; ``L0``: initial Lipschitz estimate (any positive number; it adapts).
    """
    x = _check_args(x0, max_iter)
    proj = project if project is not None else (lambda v: v)
    x = proj(x)
    if not (np.isfinite(L0) and L0 > 0):
        raise InputError(f"L0 must be positive and finite; got {L0!r}")
    L = float(L0)
    fx, gx = fun(x)
    evals = 1
    yk, fy, gy = x.copy(), fx, gx
    t = 1.0
    hist, t0 = [], time.perf_counter()
    status = "iteration_limit"
    with progress_bar(max_iter, progress, "accelerated gradient") as bar:
        for k in range(1, max_iter + 1):
            if check is not None and (k - 1) % check_every == 0 and check(x, k - 1):
                status = "converged"
                break
            while True:  # backtracking on L at the extrapolated point
                xn = proj(yk - gy / L)
                d = xn - yk
                fn, gn = fun(xn)
                evals += 1
                if fn <= fy + gy @ d + 0.5 * L * (d @ d) + 1e-12 * abs(fy) or L > 1e300:
                    break
                L *= 2.0
            if restart and gy @ (xn - x) > 0:  # momentum points uphill: restart
                t = 1.0
            tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            yk = xn + ((t - 1.0) / tn) * (xn - x)
            stalled = np.array_equal(xn, x)
            x, fx, gx, t = xn, fn, gn, tn
            fy, gy = fun(yk) if not np.array_equal(yk, xn) else (fn, gn)
            evals += 1
            L *= shrink
            hist.append(dict(k=k, f=float(fx), grad_norm=float(np.linalg.norm(gx)), step=1.0 / L,
                             seconds=time.perf_counter() - t0))
            bar.update(1)
            if stalled:
                status = "stalled"
                break
        else:
            if check is not None and check(x, max_iter):
                status = "converged"
    return DescentResult(x=x, f=float(fx), grad=gx, iterations=len(hist), status=status, evaluations=evals,
                         history=hist)


def variable_metric_descent(fun: Callable, x0, direction: Callable, *, max_iter: int = 200,
                            check: Callable | None = None, armijo: float = 1e-4, max_halvings: int = 40,
                            progress: bool = False) -> DescentResult:
    """``x+ = x + t d``, ``d = direction(x, grad)`` (``-grad`` when not a descent direction), ``t`` the first of
    1, 1/2, 1/4, ... with ``f(x + t d) <= f(x) + armijo t grad'd``. ``check(x, k)`` as in `accelerated_gradient`
    (called before every step)."""
    x = _check_args(x0, max_iter)
    fx, gx = fun(x)
    evals = 1
    hist, t0 = [], time.perf_counter()
    status = "iteration_limit"
    with progress_bar(max_iter, progress, "variable-metric descent") as bar:
        for k in range(1, max_iter + 2):
            if check is not None and check(x, k - 1):
                status = "converged"
                break
            if k > max_iter:
                break
            d = np.asarray(direction(x, gx), float)
            slope = float(gx @ d)
            if not (np.all(np.isfinite(d)) and slope < 0):
                d = -gx
                slope = -float(gx @ gx)
            if slope == 0:
                status = "stalled"
                break
            step, accepted = 1.0, False
            for _ in range(max_halvings):
                xn = x + step * d
                fn, gn = fun(xn)
                evals += 1
                if fn <= fx + armijo * step * slope:
                    accepted = True
                    break
                step *= 0.5
            if not accepted or np.array_equal(xn, x):
                status = "stalled"
                break
            x, fx, gx = xn, fn, gn
            hist.append(dict(k=k, f=float(fx), grad_norm=float(np.linalg.norm(gx)), step=step,
                             seconds=time.perf_counter() - t0))
            bar.update(1)
    return DescentResult(x=x, f=float(fx), grad=gx, iterations=len(hist), status=status, evaluations=evals,
                         history=hist)
