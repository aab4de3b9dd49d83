"""Clarabel, called directly on certiprog's conic form (same form Clarabel reads: A x + s = b)."""
from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from ...certify.interior import set_margin_solver
from ...conic.cones import (
    Cone,
    ExponentialCone,
    NonnegCone,
    PowerCone,
    PowerConeND,
    PsdCone,
    SecondOrderCone,
    ZeroCone,
)
from ...errors import BackendError
from ..registry import Backend, SolverCapabilities, register
from .common import make_solution
from .options import set_options

_STATUS = {
    "Solved": "optimal", "AlmostSolved": "inaccurate",
    "PrimalInfeasible": "infeasible", "AlmostPrimalInfeasible": "infeasible_inaccurate",
    "DualInfeasible": "unbounded", "AlmostDualInfeasible": "unbounded_inaccurate",
    "MaxIterations": "iteration_limit", "MaxTime": "time_limit",
    "NumericalError": "numerical_error", "InsufficientProgress": "numerical_error",
}


#: certiprog's cone class -> Clarabel's cones for all its copies (``cl`` is the clarabel module). Clarabel reads the
#: same rows in the same order for every cone (exp: (x, y, z) with y exp(x/y) <= z; pownd: (x, z), one z per cone)
CLARABEL_CONES: dict[type[Cone], Callable] = {
    ZeroCone: lambda cl, c: [cl.ZeroConeT(c.rows)],
    NonnegCone: lambda cl, c: [cl.NonnegativeConeT(c.rows)],
    SecondOrderCone: lambda cl, c: [cl.SecondOrderConeT(c.dim)] * c.count,
    PsdCone: lambda cl, c: [cl.PSDTriangleConeT(c.side)] * c.count,
    PowerCone: lambda cl, c: [cl.PowerConeT(c.alpha)] * c.count,
    ExponentialCone: lambda cl, c: [cl.ExponentialConeT()] * c.count,
    PowerConeND: lambda cl, c: [cl.GenPowerConeT(list(c.alpha), 1)] * c.count,
}


def clarabel_cones(cones) -> list:
    """Clarabel's cone objects for certiprog's ``cones`` (already merged, `ConicProblem.merged_cones`)."""
    import clarabel

    out = []
    for c in cones:
        make = CLARABEL_CONES.get(type(c))
        if make is None:
            raise BackendError(f"clarabel backend: unsupported cone {c.kind!r}")
        out += make(clarabel, c)
    return out


#: Clarabel's defaults stop at a gap of 1e-8 (absolute and relative); a certificate asks 1e-6 of the interval's
#: width relative to the optimum, which an optimum near 1e-2 with a wide dual misses (002's me2_primal on Pima:
#: width 3.9e-8 > 6.6e-9). One more solve at 1e-11 certifies it (0.01 s more)
REFINE = {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11}


def solve_clarabel(problem, solver=None, options=None):
    import clarabel

    settings = clarabel.DefaultSettings()
    settings.verbose = False
    set_options(settings, dict(options or {}), "clarabel")  # time_limit is Clarabel's own setting (seconds)
    P = sp.triu(problem.P, format="csc")
    t0 = time.perf_counter()
    if problem.m == 0:  # Clarabel needs at least one row: add the trivially satisfied 0 <= 1
        A, b, cones = sp.csc_matrix((1, problem.n)), np.ones(1), [clarabel.NonnegativeConeT(1)]
    else:
        A, b, cones = problem.A, problem.b, clarabel_cones(problem.merged_cones())
    try:
        res = clarabel.DefaultSolver(P, problem.q, A, b, cones, settings).solve()
    except BaseException as exc:  # a Rust panic arrives as pyo3's PanicException, a BaseException
        if type(exc).__name__ != "PanicException":
            raise
        raise BackendError(f"Clarabel stopped on an internal check ({exc}); the problem data may be out of its "
                           "range (e.g. power-cone weights not summing to 1 in floating point)") from None
    elapsed = time.perf_counter() - t0
    key = _STATUS.get(str(res.status).split(".")[-1], "numerical_error")
    x, z, s = np.array(res.x), np.array(res.z)[: problem.m], np.array(res.s)[: problem.m]
    cert = None
    if key.startswith("infeasible"):
        cert = z
    elif key.startswith("unbounded"):
        cert = x
    return make_solution(problem, key, x, z, s, backend="clarabel", solver="clarabel",
                         version=clarabel.__version__, iterations=int(res.iterations),
                         solve_time=elapsed, certificate=cert, info={"solver_status": str(res.status)})


CONES = frozenset(k.kind for k in CLARABEL_CONES)
register(Backend(
    name="clarabel", solve=solve_clarabel, cones=CONES, duals=True, warm_start=False, licence=None,
    requires=("clarabel",), solvers=lambda: ["clarabel"],
    capabilities={"clarabel": SolverCapabilities("clarabel", cones=CONES, duals=True, rays=True, refine=REFINE)},
))


def solve_margin_problem(P, q, A, b, cones, tol: float | None = None) -> np.ndarray:
    """The certificates' conic solves (`certiprog.certify.interior.solve_conic`: the margin QP, the dual recovery's
    least squares) on Clarabel, quietly: the primal point (whatever the status: the caller proves what it gets);
    ``tol``: gap and feasibility tolerances (None: Clarabel's defaults)."""
    import clarabel

    settings = clarabel.DefaultSettings()
    settings.verbose = False
    if tol is not None:
        settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = tol
    res = clarabel.DefaultSolver(sp.triu(P, format="csc"), q, sp.csc_matrix(A), b, clarabel_cones(cones),
                                 settings).solve()
    return np.array(res.x)


set_margin_solver(solve_margin_problem)
