"""Helpers shared by backends: statuses, solutions from raw vectors, option checks."""
from __future__ import annotations

import numpy as np

from ...errors import BackendError
from ..solution import Solution, Status

STATUS = {
    "optimal": Status("optimal", "feasible", "feasible"),
    "inaccurate": Status("inaccurate", "feasible", "feasible"),
    "infeasible": Status("infeasible", "infeasible", "unknown"),
    "infeasible_inaccurate": Status("infeasible", "infeasible_inaccurate", "unknown"),
    "unbounded": Status("unbounded", "unknown", "infeasible"),
    "unbounded_inaccurate": Status("unbounded", "unknown", "infeasible_inaccurate"),
    "infeasible_or_unbounded": Status("infeasible_or_unbounded", "unknown", "unknown"),
    "iteration_limit": Status("iteration_limit", "unknown", "unknown"),
    "time_limit": Status("time_limit", "unknown", "unknown"),
    "numerical_error": Status("numerical_error", "unknown", "unknown"),
}


def make_solution(problem, status_key: str, x, z, s, *, backend, solver, version="", iterations=None,
                  solve_time=0.0, certificate=None, info=None) -> Solution:
    """Build a Solution in certiprog's conventions from a backend's raw conic vectors."""
    status = STATUS[status_key]
    if status.ok:
        objective = problem.objective_value(np.asarray(x, float))
    elif status.termination == "infeasible":
        objective = problem.sense * np.inf
    elif status.termination == "unbounded":
        objective = -problem.sense * np.inf
    else:
        objective = np.nan
    keep = status.ok
    return Solution(
        status=status, objective=float(objective),
        x=np.asarray(x, float) if keep and x is not None else None,
        z=np.asarray(z, float) if keep and z is not None else None,
        s=np.asarray(s, float) if keep and s is not None else None,
        problem=problem, backend=backend, solver=solver, solver_version=version, iterations=iterations,
        compile_time=sum(problem.times.values()), solve_time=solve_time, certificate=certificate,
        info=info or {},
    )


def apply_options(target, options: dict, what: str):
    """Set attributes of a solver's settings object, rejecting unknown names with the list of valid ones."""
    for k, v in options.items():
        if not hasattr(target, k):
            valid = sorted(a for a in dir(target) if not a.startswith("_"))
            raise BackendError(f"unknown {what} option {k!r}; valid options: {valid}")
        setattr(target, k, v)
