"""Cutting planes for ForAll constraints: a master problem over finitely many cuts,
refined by each index set's separation oracle until the worst violation is below ``cp_tol``.

Cuts are appended to the assembled conic data: the model is canonicalised once. The Solution carries
``history`` (per master solve: objective, worst violation, number of cuts, and ``added``: the cuts appended
after it, as ``{"constraint", "index" (row of ``cuts[constraint]``), "violation"}``), ``cuts`` (the points
added, per ForAll, in order) and ``info``: 'termination' ('converged', 'iteration_limit', or
'master_<status>' when a master problem did not solve), 'max_violation', 'violation' (the measure),
'master_time' and 'oracle_time' (seconds, summed over iterations), 'n_master_rows' (cut rows in the last
master problem), 'master_solvers' ({"backend/solver": masters it solved}); ``sol.verdict`` and ``sol.attempts``
are the last master's (see `certiprog.solvers.solve_conic`).

The loop stops when the worst violation is at most ``cp_tol`` or after ``cp_max_iter`` master solves. These
names are the cutting planes' own: ``tol`` / ``max_iter`` (the names before) raise a ModelError saying so, since
a solver option of the same name (Clarabel's or PIQP's ``max_iter``) would otherwise change meaning silently.
Every option not named here goes to the master problems' solver (e.g. ``time_limit``, per master).

Options beyond ``cp_tol``/``cp_max_iter``/``cuts``:

* ``violation='relative'`` (default): -slack / max(1, |lhs|, |rhs|); ``'absolute'``: -slack, e.g. the
  margin violation delta_k = 1 - y<w, x> - xi of MCP (001 Alg. 1 and 2).
* ``separation``: a callable ``values -> [(forall, point, slack), ...]`` replacing the per-ForAll oracle loop
  (one vectorised oracle for many ForAlls); ``values`` maps each user Variable to its master value.
* ``drop_inactive``: a float t > 0 removes, before each new round of cuts, the cuts added so far whose slack
  at the master optimum exceeds t, so the master stays small. Strictly inactive constraints do not change the
  optimum of a convex master problem, so the current iterate is optimal for the reduced set too, and the
  progress arguments of cutting-plane methods (e.g. 001 Thm. 1 / Thm. 2, which only need the iterate to be
  optimal for the cuts kept and the next iterate to satisfy them) still hold; later iterates can differ from
  a run that keeps every cut, and a dropped point can come back. ``cuts`` keeps every point ever added, and
  ``info['master_cuts']`` the rows (per ForAll) of the last master problem, which ``Solution.dual`` follows.
  The first cuts (the index sets' ``initial_points``) are never dropped.
"""
from __future__ import annotations

import logging
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..certify.kkt import relative_violation
from ..errors import ModelError
from .solution import Solution, Status

log = logging.getLogger(__name__)


def _append_cuts(problem, cuts: list):
    """``problem`` with the rows of several (name, constraint) cuts appended in one stacking."""
    from ..conic.problem import Block, ConicProblem
    from ..model.compile import _assemble_rows

    new_blocks = []
    row = problem.m
    for name, con in cuts:
        for cone, s in con.blocks():
            new_blocks.append(Block(name, cone, s, True, row))
            row += cone.rows
    A_new, b_new = _assemble_rows(new_blocks, problem.columns, problem.n, problem.m, {})
    return ConicProblem(
        problem.P, problem.q, problem.r0, sp.vstack([problem.A, A_new], format="csc"),
        np.concatenate([problem.b, b_new]), problem.cones + [blk.cone for blk in new_blocks], problem.sense,
        problem.columns, problem.blocks + new_blocks, problem.structure, dict(problem.times),
    ), new_blocks


def _drop_blocks(problem, drop: set):
    """``problem`` without the cut blocks whose ids are in ``drop`` (rows renumbered), and {old id: new block}."""
    from ..conic.problem import Block, ConicProblem

    keep_rows, blocks, cones, renamed, row = [], [], [], {}, 0
    for blk, cone in zip(problem.blocks, problem.cones):
        if id(blk) in drop:
            continue
        keep_rows.append(np.arange(blk.start, blk.stop))
        new = Block(blk.owner, blk.cone, blk.s, blk.primary, row)
        renamed[id(blk)] = new
        blocks.append(new)
        cones.append(cone)
        row += blk.cone.rows
    rows = np.concatenate(keep_rows) if keep_rows else np.zeros(0, dtype=int)
    A = problem.A.tocsr()[rows].tocsc()
    return ConicProblem(problem.P, problem.q, problem.r0, A, problem.b[rows], cones, problem.sense,
                        problem.columns, blocks, problem.structure, dict(problem.times)), renamed


def _checked_cp(cp_tol, cp_max_iter) -> tuple[float, int]:
    """(cp_tol, cp_max_iter) checked: a positive finite number and a positive integer."""
    import numbers

    if (isinstance(cp_tol, bool) or not isinstance(cp_tol, numbers.Real) or not np.isfinite(float(cp_tol))
            or not float(cp_tol) > 0):
        raise ModelError(f"cp_tol={cp_tol!r}: cutting planes need a positive finite tolerance")
    if isinstance(cp_max_iter, bool) or not isinstance(cp_max_iter, numbers.Integral) or int(cp_max_iter) < 1:
        raise ModelError(f"cp_max_iter={cp_max_iter!r}: cutting planes need an integer >= 1")
    return float(cp_tol), int(cp_max_iter)


def solve_cutting_plane(structure, backend=None, solver=None, cp_tol=1e-6, cp_max_iter=100, progress=False,
                        cuts="all", violation="relative", separation=None, drop_inactive=None, **options) -> Solution:
    """Solve a compiled structure's ForAll constraints by cutting planes (options: see the module docstring);
    ``cuts='all'`` adds one cut per violated candidate, ``'worst'`` only the most violated one. Each master goes
    to `solve_conic` with ``backend`` / ``solver`` (None: certiprog chooses per master, confirming each answer)."""
    from . import _store_values, solve_conic

    old = sorted({"tol", "max_iter"} & set(options))
    if old:
        raise ModelError(f"{', '.join(old)}: the cutting planes' stopping rule is now cp_tol= / cp_max_iter= "
                         "(a solver option of the same name would change meaning); on a model with ForAll "
                         "constraints solved by cutting planes, pass cp_tol / cp_max_iter")
    tol, max_iter = _checked_cp(cp_tol, cp_max_iter)
    if cuts not in ("all", "worst"):
        raise ModelError(f"cuts must be 'all' (one per violated ForAll) or 'worst'; got {cuts!r}")
    if violation not in ("relative", "absolute"):
        raise ModelError(f"violation must be 'relative' or 'absolute'; got {violation!r}")
    if separation is not None and not callable(separation):
        raise ModelError("separation must be a callable values -> [(forall, point, slack), ...]")
    if drop_inactive is not None and not float(drop_inactive) > 0:
        raise ModelError(f"drop_inactive must be None or a positive slack threshold; got {drop_inactive!r}")
    problem = structure.assemble()
    foralls = structure.cutting_plane
    known = {id(f) for f in foralls}
    points: dict[str, list[np.ndarray]] = {f.name: [] for f in foralls}
    for f in foralls:
        P0 = np.atleast_2d(f.index_set.initial_points())
        problem, _ = _append_cuts(problem, [(f.name, f.instantiate(P0))])
        points[f.name].extend(P0)
    n_initial = {k: len(v) for k, v in points.items()}
    droppable: list = []  # (block, (name, index)) of the cuts added by the loop: candidates for drop_inactive
    in_master: list = []
    history = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=max_iter, desc="cutting planes", leave=False)
    termination = "iteration_limit"
    sol: Solution | None = None
    t_master = t_oracle = 0.0
    used: dict = {}  # "backend/solver" -> number of masters it solved
    try:
        for it in range(1, max_iter + 1):
            in_master = [ref for _, ref in droppable]
            t0 = time.perf_counter()
            sol = solve_conic(problem, backend, solver, **options)
            t_master += time.perf_counter() - t0
            used[f"{sol.backend}/{sol.solver}"] = used.get(f"{sol.backend}/{sol.solver}", 0) + 1
            if not sol.ok:
                termination = f"master_{sol.status.termination}"
                break
            t0 = time.perf_counter()
            values = {v: sol.value(v.name) for v in structure.user_vars}
            if separation is None:
                candidates = [(f, *f.worst_point(values)) for f in foralls]
            else:
                candidates = list(separation(values))
                if any(id(f) not in known for f, _, _ in candidates):
                    raise ModelError("separation returned a constraint that is not a cutting-plane ForAll of "
                                     "this model")
            found = []
            for f, u, slack in candidates:
                u = np.asarray(u, dtype=float).reshape(-1)
                v = max(0.0, -float(slack)) if violation == "absolute" else relative_violation(f, values, u, slack)
                found.append((v, f, u))
            t_oracle += time.perf_counter() - t0
            worst = max((r for r, _, _ in found), default=0.0)
            entry: dict[str, Any] = {"iteration": it, "objective": sol.objective, "max_violation": worst,
                     "n_cuts": sum(len(p) for p in points.values()), "added": []}
            history.append(entry)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(objective=f"{sol.objective:.6g}", violation=f"{worst:.2e}")
            if worst <= tol:
                termination = "converged"
                break
            if drop_inactive is not None and droppable:
                slack_rows = problem.b - problem.A @ sol.x  # s = b - A x: the slack of each cut row
                drop = {id(blk) for blk, _ in droppable if slack_rows[blk.start] > drop_inactive}
                if drop:
                    problem, renamed = _drop_blocks(problem, drop)
                    droppable = [(renamed[id(blk)], ref) for blk, ref in droppable if id(blk) not in drop]
            chosen = [x for x in found if x[0] > tol]
            if cuts == "worst":
                chosen = [max(chosen, key=lambda x: x[0])]
            new, refs = [], []
            for v, f, u in chosen:
                new.append((f.name, f.instantiate(u[None, :])))
                refs.append((f.name, len(points[f.name])))
                entry["added"].append({"constraint": f.name, "index": len(points[f.name]), "violation": v})
                points[f.name].append(u)
            problem, blocks = _append_cuts(problem, new)
            droppable += list(zip(blocks, refs))  # one row per cut
            log.debug("cutting plane iteration %d: objective %.6g, worst violation %.3e", it, sol.objective, worst)
    finally:
        if bar is not None:
            bar.close()
    assert sol is not None  # max_iter >= 1 (checked): at least one master was solved
    sol.history = history
    sol.cuts = {k: np.array(v) for k, v in points.items()}
    sol.info.update(termination=termination, violation=violation, master_time=t_master, oracle_time=t_oracle,
                    max_violation=history[-1]["max_violation"] if history else np.nan,
                    n_master_rows=sol._need_problem().m - structure.m, master_solvers=used)
    if drop_inactive is not None:  # the cut points the last solved master problem (and its duals) holds
        held = {k: list(range(n)) for k, n in n_initial.items()}
        for name, i in in_master:
            held[name].append(i)
        sol.info["master_cuts"] = {k: np.array(v, dtype=int) for k, v in held.items()}
    sol.iterations = len(history)
    if termination == "iteration_limit":
        sol.status = Status("iteration_limit", "unknown", sol.status.dual)
    _store_values(structure.model, sol)
    return sol
