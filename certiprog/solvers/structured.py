"""``model.solve(solver="structured")``: hand a Model to its formulation's own structure-exploiting solver.

A formulation opts in by giving its typed ``model.data`` a method ``structured_solve(**options) -> dict`` with

* ``values``: {variable name: array} for every variable of the model,
* ``duals``: {constraint name: array} in certiprog's convention (`certiprog.solvers.solution`),
* ``status``: 'optimal' (its own rigorous interval met the tolerance) or 'inaccurate' (a feasible point whose
  certified interval is wider than asked),
* optionally ``iterations`` and ``info`` (copied into ``sol.info``, e.g. the solver's rigorous interval).

The answer is mapped into the compiled problem's columns and rows and then checked by certiprog's certificate like
any backend's (``sol.info['verdict']``). Why not a registered backend: a backend receives only the assembled conic
data, and the registry offers every backend to every model its cones fit (`registry.available_solvers`, which the
core tests and the demo enumerate), while this path exists only for models whose data carry their own solver.
Example: paper 003's eq. (1) (`certiprog.formulations.error_clumping_paper.solver`).
"""
from __future__ import annotations

import time

import numpy as np

from ..errors import BackendError
from .backends.common import make_solution

STRUCTURED = "structured"


def has_structured_solver(model) -> bool:
    return callable(getattr(getattr(model, "data", None), "structured_solve", None))


def solve_structured(model, backend=None, **options):
    """Solve ``model`` with ``model.data.structured_solve(**options)``; a Solution checked by the certificate."""
    from .fallback import verdict

    if backend is not None:
        raise BackendError(f"solver='structured' runs the formulation's own solver; it takes no backend "
                           f"(got {backend!r})")
    if not has_structured_solver(model):
        raise BackendError(f"model {model.name!r} has no structured solver (its formulation's model.data provides no "
                           "structured_solve); name a backend instead, e.g. backend='clarabel'")
    structure = model.compile()
    if structure.cutting_plane:
        raise BackendError("solver='structured' does not take ForAll constraints left to cutting planes")
    problem = structure.assemble()
    t0 = time.perf_counter()
    out = model.data.structured_solve(**options)
    elapsed = time.perf_counter() - t0
    x = np.zeros(problem.n)
    for name, (_var, start, stop) in problem.columns.items():
        if name not in out["values"]:
            raise BackendError(f"the structured solver returned no value for the variable {name!r}")
        x[start:stop] = np.ravel(out["values"][name])
    z = np.zeros(problem.m)
    for name, dual in out.get("duals", {}).items():
        blocks = problem.rows_of(name)
        dual = np.ravel(dual)
        rows = sum(b.stop - b.start for b in blocks)
        if rows != dual.size:
            raise BackendError(f"the dual of {name!r} has {dual.size} entries; its compiled rows are {rows}")
        k = 0
        for b in blocks:
            z[b.start:b.stop] = dual[k:k + b.stop - b.start]
            k += b.stop - b.start
    status = out.get("status", "inaccurate")
    sol = make_solution(problem, status if status in ("optimal", "inaccurate") else "inaccurate", x, z,
                        problem.b - problem.A @ x, backend=STRUCTURED, solver=STRUCTURED,
                        iterations=out.get("iterations"), solve_time=elapsed, info=dict(out.get("info", {})))
    sol.info["verdict"] = verdict(problem, sol)
    for name, v in model.variables.items():
        v.value = sol.value(name)
    return sol
