"""A strictly feasible point near a given one, from a small margin problem (`interior_point`).

``max t s.t. b - A x - t e in K`` with a proximity term, e an interior direction of every cone; its solver is
registered by the solvers layer (`set_margin_solver`: Clarabel's), so the certificates import no backend.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..conic.cones import Cone


def interior_point(problem, x0, eps: float | None = None, t_max: float = 1.0):
    """A point with b - A x in the interior of K (zero rows exact), near x0, from a Clarabel margin problem.

    ``eps``: weight of the proximity term ``eps/2 ||x - x0||^2`` (default ``1e-3 / (1 + ||x0||^2)``; 0 finds
    any strictly feasible point however far); ``t_max``: the margin sought (a small one keeps the point near x0).
    Returns (x, t) with margin t (> 0 means strictly feasible up to the solver's accuracy).

    The margin QP is solved by the function registered with `set_margin_solver` (the solvers layer registers
    Clarabel's on import): the certificates never import a backend. None registered: (x0, -inf), no point found."""
    if _MARGIN_SOLVER[0] is None:
        return np.asarray(x0, float), -np.inf
    n, m = problem.n, problem.m
    e = np.zeros(m)  # an interior direction of every cone (the zero cone's is 0: its rows stay exact)
    for blk in problem.blocks:
        e[blk.start:blk.stop] = blk.cone.interior()
    if eps is None:
        eps = 1e-3 / (1.0 + float(np.dot(x0, x0)))
    P = sp.block_diag([eps * sp.eye(n), sp.csc_matrix((1, 1))], format="csc")
    q = np.concatenate([-eps * x0, [-1.0]])
    A = sp.vstack([sp.hstack([problem.A, sp.csc_matrix(e[:, None])]),
                   sp.hstack([sp.csc_matrix((1, n)), sp.csc_matrix([[1.0]])])], format="csc")
    b = np.concatenate([problem.b, [float(t_max)]])
    cones = problem.merged_cones() + [Cone("nonneg", 1)]
    w = np.asarray(solve_conic(P, q, A, b, cones), float)
    return w[:n], float(w[n])


#: the margin problem's solver: ``solve(P, q, A, b, cones) -> x`` for min 1/2 x'Px + q'x s.t. b - Ax in cones
#: (certiprog `Cone` objects, merged); set by the solvers layer (`set_margin_solver`), called by `interior_point`
_MARGIN_SOLVER: list = [None]


def solve_conic(P, q, A, b, cones, tol: float | None = None):
    """min 1/2 x'Px + q'x s.t. b - Ax in cones (certiprog `Cone` objects) by the registered solver
    (`set_margin_solver`), at tolerance ``tol`` (gap and feasibility; None: the solver's defaults); its primal x,
    or None when no solver is registered. Used by `interior_point` and by the dual recovery's least squares."""
    solve = _MARGIN_SOLVER[0]
    if solve is None:
        return None
    return solve(P, q, A, b, cones) if tol is None else solve(P, q, A, b, cones, tol=tol)


def set_margin_solver(solve) -> None:
    """Register the function that solves `interior_point`'s margin QP (the upper end's repair) and the dual
    recovery's conic least squares, ``solve(P, q, A, b, cones, tol=None) -> x``: the certificates take it as an
    argument instead of importing a backend (certiprog.solvers registers Clarabel's)."""
    if solve is not None and not callable(solve):
        raise TypeError(f"set_margin_solver takes a function (P, q, A, b, cones) -> x, or None; got {solve!r}")
    _MARGIN_SOLVER[0] = solve
