"""Cutting planes for ForAll constraints: a master problem over finitely many cuts,
refined by each index set's separation oracle until the worst relative violation
is below ``tol``.

Cuts are appended to the assembled conic data (`ConicProblem.append`): the model
is canonicalised once. The Solution carries ``history`` (objective, worst
relative violation, number of cuts per iteration), ``cuts`` (the points added,
per ForAll) and ``info['termination']``: 'converged', 'iteration_limit', or
'master_<status>' when a master problem did not solve.
"""
from __future__ import annotations

import logging

import numpy as np

from ..errors import ModelError
from .solution import Status

log = logging.getLogger(__name__)


def relative_violation(forall, values: dict, point: np.ndarray, slack: float) -> float:
    """max(0, -slack) / max(1, |lhs|, |rhs|) of the inequality at ``point``."""
    if slack >= 0:
        return 0.0
    con = forall.instantiate(point[None, :])
    scale = max(1.0, float(np.max(np.abs(con.lhs.value_at(values)))), float(np.max(np.abs(con.rhs.value_at(values)))))
    return -slack / scale


def solve_cutting_plane(structure, backend="clarabel", solver=None, tol=1e-6, max_iter=100, progress=False,
                        cuts="all", **options):
    from . import _store_values, solve_conic

    if tol <= 0 or max_iter < 1:
        raise ModelError("cutting planes need tol > 0 and max_iter >= 1")
    if cuts not in ("all", "worst"):
        raise ModelError(f"cuts must be 'all' (one per violated ForAll) or 'worst'; got {cuts!r}")
    problem = structure.assemble()
    foralls = structure.cutting_plane
    points = {f.name: [] for f in foralls}
    for f in foralls:
        P0 = np.atleast_2d(f.index_set.initial_points())
        problem = problem.append(f.name, f.instantiate(P0))
        points[f.name].extend(P0)
    history = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=max_iter, desc="cutting planes", leave=False)
    termination = "iteration_limit"
    sol = None
    try:
        for it in range(1, max_iter + 1):
            sol = solve_conic(problem, backend, solver, **options)
            if not sol.ok:
                termination = f"master_{sol.status.termination}"
                break
            values = {v: sol.value(v.name) for v in structure.user_vars}
            found = []
            for f in foralls:
                u, slack = f.worst_point(values)
                found.append((relative_violation(f, values, u, slack), f, u))
            worst = max(r for r, _, _ in found)
            history.append({"iteration": it, "objective": sol.objective, "max_violation": worst,
                            "n_cuts": sum(len(p) for p in points.values())})
            if bar is not None:
                bar.update(1)
                bar.set_postfix(objective=f"{sol.objective:.6g}", violation=f"{worst:.2e}")
            if worst <= tol:
                termination = "converged"
                break
            chosen = [x for x in found if x[0] > tol]
            if cuts == "worst":
                chosen = [max(chosen, key=lambda x: x[0])]
            for _, f, u in chosen:
                problem = problem.append(f.name, f.instantiate(u[None, :]))
                points[f.name].append(u)
            log.debug("cutting plane iteration %d: objective %.6g, worst violation %.3e", it, sol.objective, worst)
    finally:
        if bar is not None:
            bar.close()
    sol.history = history
    sol.cuts = {k: np.array(v) for k, v in points.items()}
    sol.info["termination"] = termination
    sol.info["max_violation"] = history[-1]["max_violation"] if history else np.nan
    sol.iterations = len(history)
    if termination == "iteration_limit":
        sol.status = Status("iteration_limit", "unknown", sol.status.dual)
    _store_values(structure.model, sol)
    return sol
