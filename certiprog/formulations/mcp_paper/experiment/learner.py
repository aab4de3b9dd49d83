"""MCP through the library: one run's record, the manifolds (ellipsoids, image warps) and the error curve along
its iterates.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .baseline import error_rate


@dataclass
class MCPRun:
    """What the experiment keeps of one `mcp_simple` / `mcp_slack` run.

    ``n_points`` = |T_k| of the returned iterate (the P centres plus the points added); ``iterates`` = (|T_k|, w^(k))
    of every master solve, in order; ``w`` is None when a master problem was infeasible (not separable).
    """

    w: np.ndarray | None
    n_points: int
    n_solves: int
    seconds: float
    objective: float
    status: str
    history: list  # dicts: iteration, objective, violation (delta_k), n_points
    iterates: list


def _run_record(result, seconds: float) -> MCPRun:
    hist = [dict(iteration=int(h["iteration"]), objective=float(h["objective"]), violation=float(h["delta_k"]),
                 n_points=int(h["n_points"])) for h in result.history]
    iterates = [(int(h["n_points"]), np.asarray(h["w"], float)) for h in result.history]
    n_points = int(hist[-1]["n_points"]) if hist else len(result.labels)
    return MCPRun(None if result.w is None else np.asarray(result.w, float), n_points, len(hist), seconds,
                  float(result.objective), str(result.status), hist, iterates)


def fit_mcp(manifolds, labels, C=None, delta=1e-2, max_iter=2000, progress=False, backend=None, solver=None,
            **options) -> MCPRun:
    """`mcp_simple` (C = None, Alg. 1) or `mcp_slack` (Alg. 2): T_1 = the centres, one most-violating point added
    per iteration (the paper's scheme), stopping when the worst violation delta_k <= ``delta``."""
    from certiprog.formulations.mcp_paper.programs import mcp_simple, mcp_slack

    opts = dict(delta=delta, max_iter=int(max_iter), backend=backend, solver=solver, progress=progress, **options)
    t0 = time.perf_counter()
    res = mcp_simple(manifolds, labels, **opts) if C is None else mcp_slack(manifolds, labels, C, **opts)
    return _run_record(res, time.perf_counter() - t0)


def ellipsoid_manifolds(geom: dict) -> list:
    """`LqEllipsoidManifold` objects of a `random_ellipsoids` draw."""
    from certiprog.formulations.mcp_paper.manifolds import LqEllipsoidManifold

    return [LqEllipsoidManifold(c, U, r, q=geom["q"]) for c, U, r in zip(geom["centers"], geom["bases"],
                                                                        geom["radii"])]


def parametric_manifolds(maps, n_starts: int = 5, n_local: int = 3, seed: int = 0) -> list:
    """`ParametricManifold` objects of image maps: ``n_starts`` random warps (the paper's K = 5), ``n_local`` local
    searches from the best of them, with the maps' finite-difference Jacobians."""
    from certiprog.formulations.mcp_paper.manifolds import ParametricManifold

    return [ParametricManifold(m, m.dim, bounds=m.bounds, jac=m.jacobian, n_starts=n_starts, n_local=n_local,
                               rng=seed + i) for i, m in enumerate(maps)]


def checkpoint_solves(n_solves: int, count: int) -> list:
    """About ``count`` master-solve counts 1 .. n_solves, geometric (where the error changes fastest)."""
    return sorted({int(k) for k in np.round(np.geomspace(1, max(n_solves, 1), max(count, 2)))} | {n_solves})


def mcp_error_curve(run: MCPRun, count: int, X_test, y_test) -> list:
    """[(|T_k|, test error of w^(k))] at about ``count`` geometric checkpoints k of the run's master solves."""
    return [(run.iterates[k - 1][0], error_rate(run.iterates[k - 1][1], X_test, y_test))
            for k in checkpoint_solves(run.n_solves, count)]
