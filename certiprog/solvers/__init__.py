"""Compile Models to conic form, solve them on a registered backend, map answers back.

Who chooses the solver decides how far the answer is trusted:

* ``backend`` and ``solver`` both named: that solver's answer as it is, with ``sol.verdict`` from the
  certificate check (no fallback: ``sol.attempts`` is empty);
* ``backend`` named, ``solver=None``: certiprog chooses among that backend's solvers (`registry.choose`);
* neither: certiprog chooses among every available solver.

When certiprog chooses, an answer the certificate cannot confirm (infeasible or unbounded without a verified
ray, a point whose KKT check fails, no answer at all) moves on to the next capable solver, and
``sol.attempts`` records every attempt, typed (`Attempt`, `certiprog.solvers.fallback`). With neither named, a
model whose ``model.data`` has its own structured solver and whose conic matrix has more than
`structured.AUTO_MIN_NNZ` nonzeros (or whose ``model.data.structured_auto(problem)`` says so) tries that solver
first (`structured.auto_candidate`).
"""
from __future__ import annotations

import functools

from ..conic.problem import ConicProblem
from ..model.compile import compile_model
from . import backends  # noqa: F401  (registers the backends)
from .backends.common import quiet_output, wants_output
from .registry import (
    Needs,
    SolverCapabilities,
    available_backends,
    available_solvers,
    choose,
    get_backend,
    needs,
    registered_backends,
)
from .solution import Attempt, Feasibility, Solution, SolutionInfo, Status, Termination
from .structured import StructuredAnswer


def solve_conic(problem, backend: str | None = None, solver: str | None = None, *, first=None,
                **options) -> Solution:
    """Solve an assembled ConicProblem: on the named solver, or on the first one certiprog chooses whose answer
    the certificate confirms (see the module docstring); ``first``: a (label, solve) candidate tried before them."""
    from ..errors import BackendError
    from .fallback import MAX_ANSWERS, Candidate, first_confirmed, refined, verdict
    from .registry import backend_of_solver, check_solver, why_none

    if backend is None and solver is not None:
        backend = backend_of_solver(solver)
    if backend is not None:
        b = get_backend(backend)
        missing = {c.kind for c in problem.cones} - set(b.cones)
        if missing:
            raise BackendError(f"backend {backend!r} does not support the cone(s) {sorted(missing)}")
    if solver is not None:
        solver = check_solver(b, solver)
        caps = b.capabilities_of(solver)
        why = caps.refusal(needs(problem)) if caps is not None else None
        if why:
            raise BackendError(f"{backend}/{solver} does not take this problem: it {why}; solvers here that do: "
                               f"{choose(problem)}")
        with quiet_output(not wants_output(options)):
            sol = b.solve(problem, solver, options)
        sol.verdict = verdict(problem, sol)
        return sol
    pairs = choose(problem, backend=backend)
    if not pairs:
        where = f"backend {backend!r}" if backend else "any available backend"
        raise BackendError(f"no solver of {where} takes this problem here: {why_none(problem, backend)}")
    candidates = [Candidate(f"{name}/{s}", functools.partial(_run, name, s, problem, options), name, s, dict(options))
                  for name, s in pairs]
    if first is not None:
        candidates.insert(0, first)
    sol = first_confirmed(problem, candidates, skip=lambda exc: True, max_answers=MAX_ANSWERS)
    return refined(problem, sol, options, _run)


def _run(backend: str, solver: str, problem, options: dict) -> Solution:
    with quiet_output(not wants_output(options)):
        return get_backend(backend).solve(problem, solver, dict(options))


def solve_model(model, backend: str | None = None, solver: str | None = None, *, forall: str = "auto",
                cp_tol: float = 1e-6, cp_max_iter: int = 100, progress: bool = False, **options) -> Solution:
    """Compile (cached structure) and solve; ForAll constraints without an exact form use cutting planes
    (``cp_tol``, ``cp_max_iter``: their stopping rule). Every other option goes to the solver (``max_iter``,
    ``time_limit``, ...). ``backend`` / ``solver`` None: certiprog chooses (see the module docstring).
    ``solver="structured"``: the formulation's own solver, when its model.data has one (`solvers.structured`)."""
    if solver == "structured":
        from .structured import solve_structured

        return solve_structured(model, backend, **options)
    if backend is not None:
        get_backend(backend)  # fail early with the list of backends
    structure = model.compile(forall=forall)
    if structure.cutting_plane:
        from .cutting_plane import solve_cutting_plane

        return solve_cutting_plane(structure, backend=backend, solver=solver, cp_tol=cp_tol,
                                   cp_max_iter=cp_max_iter, progress=progress, **options)
    problem = structure.assemble()
    first = None
    if backend is None and solver is None:
        from .structured import auto_candidate

        first = auto_candidate(model, problem)
    sol = solve_conic(problem, backend, solver, first=first, **options)
    _store_values(model, sol)
    return sol


def _store_values(model, sol: Solution) -> None:
    """Set each user variable's ``.value`` (None when no primal point exists)."""
    for name, v in model.variables.items():
        v.value = sol.value(name) if sol.x is not None and name in sol._need_problem().columns else None


__all__ = ["Attempt", "ConicProblem", "Feasibility", "Needs", "Solution", "SolutionInfo", "SolverCapabilities",
           "Status", "StructuredAnswer", "Termination", "available_backends",
           "available_solvers", "choose", "compile_model", "get_backend", "registered_backends", "solve_conic",
           "solve_model"]
