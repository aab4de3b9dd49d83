"""Compile Models to conic form, solve them on a registered backend, map answers back."""
from __future__ import annotations

from . import backends  # noqa: F401  (registers the backends)
from .conic import ConicProblem, compile_model
from .registry import available_backends, get_backend, registered_backends
from .solution import Solution, Status


def solve_conic(problem, backend: str = "clarabel", solver: str | None = None, **options) -> Solution:
    """Solve an assembled ConicProblem on a backend."""
    from .registry import check_solver

    b = get_backend(backend)
    missing = {c.kind for c in problem.cones} - set(b.cones)
    if missing:
        from ..errors import BackendError

        raise BackendError(f"backend {backend!r} does not support the cone(s) {sorted(missing)}")
    return b.solve(problem, check_solver(b, solver), options)


def solve_model(model, backend: str = "clarabel", solver: str | None = None, *, forall: str = "auto",
                tol: float = 1e-6, max_iter: int = 100, progress: bool = False, **options) -> Solution:
    """Compile (cached structure) and solve; ForAll constraints without an exact form use cutting planes."""
    get_backend(backend)  # fail early with the list of backends
    structure = model.compile(forall=forall)
    if structure.cutting_plane:
        from .cutting_plane import solve_cutting_plane

        return solve_cutting_plane(structure, backend=backend, solver=solver, tol=tol, max_iter=max_iter,
                                   progress=progress, **options)
    problem = structure.assemble()
    sol = solve_conic(problem, backend, solver, **options)
    _store_values(model, sol)
    return sol


def _store_values(model, sol: Solution) -> None:
    """Set each user variable's ``.value`` (None when no primal point exists)."""
    for name, v in model.variables.items():
        v.value = sol.value(name) if sol.x is not None and name in sol.problem.columns else None


__all__ = ["ConicProblem", "Solution", "Status", "available_backends", "compile_model", "get_backend",
           "registered_backends", "solve_conic", "solve_model"]
