"""`certiprog reproduce mcp`: paper 001's experiments (Sec. 4) -- MCP against a point SVM on sampled points.

Figures (``--figures``, any subset):

* ``3a`` / ``3b``: L2 ellipsoids, D = 40, R0 = 20; (a) N = 500, P = 10, hard margin (MCP-simple); (b) N = 475,
  P = 12, manifold slack with C = 1 (MCP-slack). ``4a`` / ``4b``: L50 ellipsoids, P = 48, D = 10, R0 = 20;
  (a) N = 500 hard margin, (b) N = 490 slack with C = 100. Each reports the test error (500 uniform points per
  manifold) against the total number of training points: for MCP the P initial points (the centres) plus one
  point per iteration; for the point SVM P * m points drawn uniformly, m on a grid.
* ``3c`` / ``3d``: m kappa^2 against PD/N (P varied, then D varied) and against R0, where kappa = 1/||w*|| is the
  exact hard margin (robust counterpart, `certiprog.formulations.mcp_paper.programs.mcp`) and m the number of points MCP holds when
  its iterate first classifies every manifold correctly (the first iterate with worst violation < 1: zero error on
  the whole manifolds, certified by the closed-form oracle, not by samples). Reduced grid, N = 100 (paper: 500),
  D scaled by the same factor so that PD/N covers the same range.
* ``images``: paper Sec. 4.2 on templates from scikit-learn's sample photographs (or ``--image-source digits``):
  P = 8 manifolds of 2-D translations (pixel features, hard margin, two amounts of variation, as Fig. 5b) and of
  4-D translation + shear (pixel and Gabor features, slack, as Fig. 6b), N = 500 features, labels split 4/4 at
  random per repetition; MCP's oracle is a local search over the warp parameters (K = 5 starts).

Generator (Sec. 4.1): centres and basis vectors i.i.d. N(0, I_N) -- the same scale for both, which is what puts
N = 500, P = 10, D = 40, R0 = 20 just below capacity (capacity ~ 1/(D + 1/2) for large radii: 10/500 < 1/40.5 <
12/475), radii ~ U[0.5 R0, 1.5 R0], P/2 manifolds positive. Points are drawn uniformly in the solid ellipsoid
(`certiprog.model.index_sets.sample_lq_ball`, exact for every q). No bias anywhere (paper Sec. 2.1).

Point SVM (`point_svm`, no bias): hard margin solved exactly as a least-distance program by `scipy.optimize.nnls`
(it also certifies non-separable samples); slack (hinge, same C as MCP) as a certiprog Model on the same backend.

Outputs in ``--out``: ``summary.md`` (every table, with the paper's claims beside our numbers), CSV tables
(``generalisation.csv``, ``capacity.csv``, ``curves.csv``: every error-vs-points point), PNG plots (``fig3a.png`` ...,
``capacity.png``, ``images_<configuration>.png``, ``convergence.png``: objective and delta_k per iteration) and
``results.json`` (every repetition's raw numbers and the configuration; no pickle).

Runs on `certiprog.experiments.runner`: one task per repetition of each figure point (`tasks`, `run_task`), results
kept in ``OUT/tasks`` (a rerun resumes; ``--shard`` / ``--merge`` split a run over machines), outputs from
`aggregate`.
"""
from __future__ import annotations

import json
import platform
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.plotting import pyplot
from certiprog.experiments.runner import Task, run_tasks
from certiprog.formulations.mcp_paper.programs import exact_backend
from certiprog.model.index_sets import sample_lq_ball

FIGURES = ("3a", "3b", "4a", "4b", "3c", "3d", "images")
VERSION = "2"  # of the task results: bump when a change to the code changes what a task returns (2: draws from
# manifolds.lq_ellipsoid_geometry, the library's stream: centres, bases, radii, then ceil(P/2) positive labels)
# Config fields each kind of task depends on (part of its key); the others say which tasks to run, or how
TASK_FIELDS = {
    "ellipsoid": ("seed", "n_test", "delta", "max_iter", "checkpoints", "budgets", "backend", "solver"),
    "capacity": ("seed", "sweep_N", "max_iter", "backend", "solver"),
    "image": ("seed", "n_test", "delta", "checkpoints", "image_source", "image_shear", "image_budgets",
              "image_starts", "image_local", "image_max_iter", "backend", "solver"),
}


@dataclass(frozen=True)
class Setting:
    """One generalisation-error figure on random Lq ellipsoids (C = None: hard margin)."""

    name: str
    P: int
    N: int
    D: int
    R0: float
    q: float
    C: float | None
    claim: str


PAPER_SETTINGS = {
    "3a": Setting("3a", 10, 500, 40, 20.0, 2.0, None, "just below capacity (separable); MCP reaches low error with "
                  "far fewer samples than the point SVM"),
    "3b": Setting("3b", 12, 475, 40, 20.0, 2.0, 1.0, "above capacity (not separable), MCP-slack with C = 1 beats the "
                  "point SVM-slack at equal samples"),
    "4a": Setting("4a", 48, 500, 10, 20.0, 50.0, None, "L50, P/N = 0.096 just below capacity (separable); MCP far "
                  "more sample-efficient"),
    "4b": Setting("4b", 48, 490, 10, 20.0, 50.0, 100.0, "L50, P/N = 0.098 just above capacity (not separable), "
                  "MCP-slack with C = 100"),
}
# --quick: the same regimes (below / above P (D + 1/2) = N) at a small scale
QUICK_SETTINGS = {
    "3a": replace(PAPER_SETTINGS["3a"], P=4, N=40, D=6),
    "3b": replace(PAPER_SETTINGS["3b"], P=6, N=36, D=6),
    "4a": replace(PAPER_SETTINGS["4a"], P=8, N=40, D=3),
    "4b": replace(PAPER_SETTINGS["4b"], P=10, N=30, D=3),
}


@dataclass
class Config:
    """Everything that defines a run (stored in results.json)."""

    figures: tuple = FIGURES
    quick: bool = False
    seed: int = 0
    reps: int = 3
    n_test: int = 500
    budgets: tuple = (1, 2, 5, 10, 20, 50, 100)  # point-SVM samples per manifold
    delta: float = 1e-2
    max_iter: int = 2000
    checkpoints: int = 10  # MCP iterates evaluated on the test points
    sweep_N: int = 100
    sweep_P: tuple = (2, 4, 6, 8, 10)
    sweep_D: tuple = (2, 4, 6, 8)
    sweep_R0: tuple = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
    sweep_base: tuple = (10, 8, 20.0)  # P, D, R0 held fixed while another is varied
    image_source: str = "sample_images"
    image_shifts: tuple = (2.0, 4.0)
    image_shear: float = 3.0
    image_C: float = 10.0
    image_budgets: tuple = (1, 2, 5, 10, 20, 50)
    image_starts: int = 5  # the paper's K = 5 random warps per oracle call
    image_local: int = 3  # local searches (L-BFGS-B) from the best of them
    image_max_iter: int = 300
    image_configs: tuple = ()  # (warp, features, shift, C); () = Fig. 5b + Fig. 6b (`image_configs`)
    backend: str | None = None  # MCP masters (None: `master_backend`, PIQP when installed) and point SVM (None: Clarabel)
    solver: str | None = None
    n_jobs: int = 1
    progress: bool | None = False  # None: bars only on a terminal
    settings: dict = field(default_factory=dict)


QUICK = dict(reps=1, n_test=100, budgets=(1, 3, 10, 30), checkpoints=5, max_iter=400, sweep_N=40,
             sweep_P=(2, 4), sweep_D=(2, 4), sweep_R0=(1.0, 10.0), sweep_base=(4, 4, 10.0), image_shifts=(2.0,),
             image_budgets=(1, 5), image_starts=2, image_local=1,
             image_max_iter=10,
             image_configs=(("translation", "pixel", 2.0, None), ("affine", "pixel", 2.0, 10.0)))


# ----------------------------------------------------------------------------------------------------------------
# Data: random Lq ellipsoids
# ----------------------------------------------------------------------------------------------------------------
def random_ellipsoids(P: int, N: int, D: int, R0: float, q: float, rng) -> dict:
    """Paper Sec. 4.1 (`certiprog.formulations.mcp_paper.manifolds.lq_ellipsoid_geometry`: centres and bases i.i.d.
    N(0, I_N), radii ~ U[0.5 R0, 1.5 R0], ceil(P/2) positive labels at random positions). Returns dict(centers (P, N),
    bases (P, N, D), radii (P, D), labels (P,), q)."""
    from certiprog.formulations.mcp_paper.manifolds import lq_ellipsoid_geometry

    return lq_ellipsoid_geometry(P, N, D, R0, q, np.random.default_rng(rng)).as_dict()


def sample_ellipsoids(geom: dict, n: int, rng) -> tuple:
    """n uniform points of every manifold: X (P n, N) (manifold-major) and their labels y (P n,)."""
    P, N, D = geom["bases"].shape
    s = sample_lq_ball(P * n, D, geom["q"], rng).reshape(P, n, D) * geom["radii"][:, None, :]
    X = geom["centers"][:, None, :] + np.einsum("pnd,pkd->pnk", s, geom["bases"])
    return X.reshape(P * n, N), np.repeat(geom["labels"], n)


# ----------------------------------------------------------------------------------------------------------------
# Point SVM baseline and errors
# ----------------------------------------------------------------------------------------------------------------
def point_svm(X, y, C: float | None = None, backend: str | None = None, solver=None) -> np.ndarray | None:
    """Max-margin w (no bias) on the points: min 1/2||w||^2 s.t. y_i <w, x_i> >= 1 (``C=None``), or
    min 1/2||w||^2 + C sum_i (1 - y_i <w, x_i>)_+ (``C > 0``, a certiprog Model solved on ``backend``, None: Clarabel).

    The hard margin is the least-distance program min ||w|| s.t. A w >= 1 (A = y * X), solved exactly by
    Lawson & Hanson's reduction to non-negative least squares: u = argmin_{u >= 0} ||E u - e||, E = [A^T; 1^T],
    r = E u - e, w = -r[:N] / r[N]; r = 0 certifies that no w exists. Returns None when the points are not
    separable through the origin. (scikit-learn's LinearSVC is not used: with a large C it is an approximation that
    took 17 s on 1000 points of Fig. 3a, against 0.3 s here; with C = 1 on overlapping manifolds liblinear had not
    converged after 200 000 iterations, objective 0.2% above the optimum, 15x slower than the conic solve.)
    """
    from certiprog import validation as validate

    X = validate.matrix(X, "X")
    y = validate.vector(y, "y", size=X.shape[0])
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise InputError("y must hold labels +1 / -1")
    A = y[:, None] * X
    if C is None:
        from scipy.optimize import nnls

        E = np.vstack([A.T, np.ones(len(y))])
        e = np.zeros(E.shape[0])
        e[-1] = 1.0
        u, _ = nnls(E, e, maxiter=50 * max(E.shape))
        r = E @ u - e
        if abs(r[-1]) < 1e-10:  # ||r||^2 = -r[N]: zero residual means A w >= 1 has no solution
            return None
        return -r[:-1] / r[-1]
    from certiprog.model import Model, Variable, hinge, minimize, sum_squares

    C = validate.scalar(C, "C", low=0.0, low_open=True)
    w = Variable(X.shape[1], "w")
    sol = Model(minimize(0.5 * sum_squares(w) + C * hinge(A @ w).sum()), name="point_svm").solve(
        backend=backend, solver=solver)
    if sol.x is None:
        raise InputError(f"the point SVM did not solve (status {sol.status}); try another backend")
    return np.asarray(sol.value("w"), float)


def error_rate(w, X, y) -> float:
    """Fraction of points with y <w, x> <= 0 (a point on the hyperplane counts as an error); 1 if w is None."""
    if w is None:
        return float("nan")
    return float(np.mean(y * (X @ np.asarray(w, float)) <= 0))


# ----------------------------------------------------------------------------------------------------------------
# MCP through the library
# ----------------------------------------------------------------------------------------------------------------
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
    n_points = hist[-1]["n_points"] if hist else len(result.labels)
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


# ----------------------------------------------------------------------------------------------------------------
# Tasks (one repetition each; run under joblib)
# ----------------------------------------------------------------------------------------------------------------
def _svm_curve(sample, C, budgets, X_test, y_test, P, gen, backend=None, solver=None) -> list:
    rows = []
    for m in budgets:
        X, y = sample(int(m), gen)
        t0 = time.perf_counter()
        w = point_svm(X, y, C, backend, solver)
        rows.append(dict(m=int(m), n_points=int(P * m), error=error_rate(w, X_test, y_test),
                         separable=w is not None, seconds=time.perf_counter() - t0))
    return rows


def ellipsoid_task(setting: Setting, rep: int, cfg: Config) -> dict:
    """One repetition of a generalisation figure: exact optimum, MCP run and curve, point-SVM curve."""
    from certiprog.formulations.mcp_paper.programs import mcp

    seed = [cfg.seed, zlib_id(setting.name), rep]
    gen = np.random.default_rng(seed)
    geom = random_ellipsoids(setting.P, setting.N, setting.D, setting.R0, setting.q, gen)
    X_test, y_test = sample_ellipsoids(geom, cfg.n_test, gen)
    args = (geom["centers"], geom["bases"], geom["radii"], geom["labels"])
    t0 = time.perf_counter()
    conic = exact_backend(cfg.backend, cfg.solver)
    hard = mcp(*args, q=setting.q).solve(**conic)
    exact = dict(separable=hard.ok, kappa=float(1 / np.linalg.norm(hard.value("w"))) if hard.ok else 0.0,
                 status=str(hard.status))
    if setting.C is not None:
        slack = mcp(*args, q=setting.q, C=setting.C).solve(**conic)
        exact["objective"] = float(slack.objective) if slack.ok else float("nan")
    else:
        exact["objective"] = float(hard.objective) if hard.ok else float("nan")
    exact["seconds"] = time.perf_counter() - t0

    run = fit_mcp(ellipsoid_manifolds(geom), geom["labels"], setting.C, cfg.delta, cfg.max_iter,
                  cfg.progress and cfg.n_jobs == 1, cfg.backend, cfg.solver)
    curve = mcp_error_curve(run, cfg.checkpoints, X_test, y_test)
    svm = _svm_curve(lambda m, g: sample_ellipsoids(geom, m, g), setting.C, cfg.budgets, X_test, y_test,
                     setting.P, gen, cfg.backend, cfg.solver)
    return dict(kind="ellipsoid", figure=setting.name, rep=rep, setting=asdict(setting), exact=exact,
                mcp=dict(n_points=run.n_points, n_solves=run.n_solves, seconds=run.seconds, objective=run.objective,
                         status=run.status, error=error_rate(run.w, X_test, y_test), history=run.history,
                         curve=[dict(n_points=n, error=e) for n, e in curve]),
                svm=svm)


def capacity_task(figure: str, P: int, D: int, R0: float, rep: int, cfg: Config) -> dict:
    """Fig. 3c/3d point: exact kappa, and m = points MCP holds at its first zero-error iterate."""
    from certiprog.formulations.mcp_paper.programs import mcp

    N = cfg.sweep_N
    # Fig. 3d shares one draw across R0 (radii = R0 x the same U[0.5, 1.5] factors): only the size changes
    key = [P, D, rep] if figure == "3d" else [P, D, int(round(R0 * 1000)), rep]
    gen = np.random.default_rng([cfg.seed, zlib_id(figure), *key])
    geom = random_ellipsoids(P, N, D, R0, 2.0, gen)
    hard = mcp(geom["centers"], geom["bases"], geom["radii"], geom["labels"], q=2.0).solve(
        **exact_backend(cfg.backend, cfg.solver))
    row = dict(kind="capacity", figure=figure, rep=rep, P=P, N=N, D=D, R0=R0, PD_over_N=P * D / N,
               separable=bool(hard.ok), kappa=float("nan"), m=float("nan"), m_kappa2=float("nan"), seconds=0.0)
    if not hard.ok:
        return row
    kappa = float(1.0 / np.linalg.norm(hard.value("w")))
    # stop at the first iterate whose worst violation is < 1, i.e. min_{x in M_p} y_p <w, x> > 0 for every p
    run = fit_mcp(ellipsoid_manifolds(geom), geom["labels"], None, 1.0 - 1e-6, cfg.max_iter, False, cfg.backend,
                  cfg.solver)
    converged = run.status == "converged"
    row.update(kappa=kappa, m=run.n_points if converged else float("nan"),
               m_kappa2=run.n_points * kappa ** 2 if converged else float("nan"), seconds=run.seconds)
    return row


def image_task(kind: str, features: str, shift: float, C, rep: int, cfg: Config) -> dict:
    """One label split of one image-manifold configuration: MCP (local-search oracle) vs the point SVM."""
    from certiprog.formulations.mcp_paper.image_manifolds import image_manifolds

    P = 8
    gen = np.random.default_rng([cfg.seed, zlib_id(kind + features), int(shift * 100), rep])
    maps = image_manifolds(cfg.image_source, P, kind, features, shift=shift, shear=cfg.image_shear, rng=cfg.seed)
    labels = gen.permutation(np.r_[np.ones(P // 2), -np.ones(P - P // 2)])
    n_test = cfg.n_test

    def sample(m, g):
        X = np.vstack([mp.sample(m, g) for mp in maps])
        return X, np.repeat(labels, m)

    X_test, y_test = sample(n_test, gen)

    ms = parametric_manifolds(maps, cfg.image_starts, cfg.image_local, seed=cfg.seed + 1000 * rep)
    run = fit_mcp(ms, labels, C, cfg.delta, cfg.image_max_iter, cfg.progress and cfg.n_jobs == 1, cfg.backend,
                  cfg.solver)
    curve = mcp_error_curve(run, cfg.checkpoints, X_test, y_test)
    svm = _svm_curve(sample, C, cfg.image_budgets, X_test, y_test, P, gen, cfg.backend, cfg.solver)
    name = f"{'2-D translation' if kind == 'translation' else '4-D translation+shear'}, {features}, shift {shift:g}"
    return dict(kind="image", figure="images", config=name, rep=rep, warp=kind, features=features, shift=shift, C=C,
                labels=labels.tolist(),
                mcp=dict(n_points=run.n_points, n_solves=run.n_solves, seconds=run.seconds, objective=run.objective,
                         status=run.status, error=error_rate(run.w, X_test, y_test), history=run.history,
                         curve=[dict(n_points=n, error=e) for n, e in curve]),
                svm=svm)


def zlib_id(text: str) -> int:
    """A stable integer for a name (seeds must not depend on Python's randomised str hash)."""
    import zlib

    return zlib.crc32(text.encode())


def image_configs(cfg: Config) -> list:
    """(warp, features, shift, C): Fig. 5b (2-D, pixel, hard margin, each shift) and Fig. 6b (4-D, slack)."""
    if cfg.image_configs:
        return [tuple(c) for c in cfg.image_configs]
    out = [("translation", "pixel", s, None) for s in cfg.image_shifts]
    out += [("affine", f, cfg.image_shifts[-1], cfg.image_C) for f in ("pixel", "gabor")]
    return out


def tasks(cfg: Config, inner_progress: bool | None = None) -> list:
    """One `Task` per repetition of every figure point, in output order. ``inner_progress``: MCP's own bars inside
    each task (None: with one worker, progress not turned off and a terminal)."""
    import sys

    validate_config(cfg)
    if inner_progress is None:
        inner_progress = cfg.n_jobs == 1 and cfg.progress is not False and sys.stderr.isatty()
    extra = dict(progress=bool(inner_progress))

    def task(name, kind, **args):
        keyed = {k: getattr(cfg, k) for k in TASK_FIELDS[kind]}
        return Task(name, run_task, dict(keyed, kind=kind, **args), VERSION, extra=extra)

    out = []
    for name in cfg.figures:
        if name in cfg.settings:
            out += [task(f"fig {name} rep {r}", "ellipsoid", setting=asdict(cfg.settings[name]), rep=r)
                    for r in range(cfg.reps)]
    P0, D0, R00 = cfg.sweep_base
    sweeps = []
    if "3c" in cfg.figures:
        sweeps += [("3c-P", P, D0, R00) for P in cfg.sweep_P] + [("3c-D", P0, D, R00) for D in cfg.sweep_D]
    if "3d" in cfg.figures:
        sweeps += [("3d", P0, D0, R0) for R0 in cfg.sweep_R0]
    out += [task(f"{f} P={P} D={D} R0={R0:g} rep {r}", "capacity", figure=f, P=P, D=D, R0=R0, rep=r)
            for f, P, D, R0 in sweeps for r in range(cfg.reps)]
    if "images" in cfg.figures:
        out += [task(f"images {kind} {features} shift {shift:g} rep {r}", "image", warp=kind, features=features,
                     shift=shift, C=C, rep=r) for kind, features, shift, C in image_configs(cfg)
                for r in range(cfg.reps)]
    return out


def run_task(config: dict, progress: bool = False) -> dict:
    """A task of `tasks`: `ellipsoid_task`, `capacity_task` or `image_task` with the parameters of ``config``."""
    c = dict(config)
    kind = c.pop("kind")
    if kind not in TASK_FIELDS:
        raise InputError(f"unknown mcp task kind {kind!r}; expected one of {sorted(TASK_FIELDS)}")
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in ((k, c.pop(k)) for k in TASK_FIELDS[kind])}
    cfg = replace(Config(), **fields, progress=progress, n_jobs=1)
    if kind == "ellipsoid":
        return ellipsoid_task(Setting(**c["setting"]), c["rep"], cfg)
    if kind == "capacity":
        return capacity_task(c["figure"], c["P"], c["D"], c["R0"], c["rep"], cfg)
    return image_task(c["warp"], c["features"], c["shift"], c["C"], c["rep"], cfg)


def assemble(cfg: Config, records: list, meta: dict) -> dict:
    """``dict(config, meta, records)`` (what results.json holds) from the tasks' records."""
    return dict(config=_jsonable(asdict(cfg)), meta=meta, records=_jsonable(records))


def aggregate(cfg: Config, records: list, out, meta: dict) -> dict:
    """The runner's aggregation: `write_outputs`; ``{name: path}``, the summary first."""
    return write_outputs(assemble(cfg, records, meta), out)


def default_out(cfg: Config) -> str:
    return "results/mcp"


def run_experiment(cfg: Config, store=None, executor: str = "loky", scheduler=None) -> dict:
    """Every task of ``cfg`` (``cfg.n_jobs`` workers; ``store``: a `ResultStore` to resume from, None: keep
    nothing); returns dict(config, meta, records)."""
    inner = bool(cfg.progress) and cfg.n_jobs == 1 and executor in ("serial", "loky")
    report = run_tasks(tasks(cfg, inner), store, executor, cfg.n_jobs, scheduler, progress=cfg.progress,
                       desc="mcp")
    meta = dict(wall_time_s=report.wall_time_s, n_tasks=len(report.results), n_computed=len(report.computed),
                n_reused=len(report.reused), executor=executor, jobs=cfg.n_jobs,
                python=platform.python_version(), machine=platform.machine())
    return assemble(cfg, report.results, meta)


# ----------------------------------------------------------------------------------------------------------------
# Tables and plots
# ----------------------------------------------------------------------------------------------------------------
def _mean_std(values) -> tuple:
    v = np.asarray([x for x in values if x is not None], float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), float("nan")
    return float(v.mean()), (float(v.std(ddof=1)) if v.size > 1 else float("nan"))  # no spread from one value


def _fmt(m, s=None, digits=3) -> str:
    if not np.isfinite(m):
        return "n/a"
    return f"{m:.{digits}f}" if s is None or not np.isfinite(s) else f"{m:.{digits}f} ± {s:.{digits}f}"


def first_reaching(curve: list, level: float) -> float:
    """Smallest n_points whose error is <= level (NaN if none)."""
    hits = [c["n_points"] for c in curve if np.isfinite(c["error"]) and c["error"] <= level]
    return float(min(hits)) if hits else float("nan")


def generalisation_table(records: list, level: float = 0.05) -> list:
    """One row per figure / configuration: MCP's points, time, error; the point SVM's error at about the same
    number of points and the points each method needs to reach ``level`` test error."""
    groups = {}
    for r in records:
        if r["kind"] in ("ellipsoid", "image"):
            groups.setdefault(r.get("config", r["figure"]), []).append(r)
    rows = []
    for name, rs in groups.items():
        mcp_pts = _mean_std(r["mcp"]["n_points"] for r in rs)
        svm_at = []  # point SVM at the smallest budget >= MCP's points (else the largest)
        for r in rs:
            cands = [s for s in r["svm"] if s["n_points"] >= r["mcp"]["n_points"]] or [r["svm"][-1]]
            svm_at.append(cands[0])
        row = dict(figure=name, reps=len(rs), mcp_points=mcp_pts[0], mcp_points_std=mcp_pts[1],
                   mcp_solves=_mean_std(r["mcp"]["n_solves"] for r in rs)[0],
                   mcp_seconds=_mean_std(r["mcp"]["seconds"] for r in rs)[0],
                   mcp_error=_mean_std(r["mcp"]["error"] for r in rs)[0],
                   mcp_error_std=_mean_std(r["mcp"]["error"] for r in rs)[1],
                   svm_points=_mean_std(s["n_points"] for s in svm_at)[0],
                   svm_error=_mean_std(s["error"] for s in svm_at)[0],
                   svm_error_std=_mean_std(s["error"] for s in svm_at)[1],
                   svm_max_points=max(r["svm"][-1]["n_points"] for r in rs),
                   svm_error_at_max=_mean_std(r["svm"][-1]["error"] for r in rs)[0],
                   mcp_points_to_level=_mean_std(first_reaching(r["mcp"]["curve"], level) for r in rs)[0],
                   svm_points_to_level=_mean_std(first_reaching(r["svm"], level) for r in rs)[0])
        if rs[0]["kind"] == "ellipsoid":
            row.update(separable_exact=f"{sum(r['exact']['separable'] for r in rs)}/{len(rs)}",
                       kappa=_mean_std(r["exact"]["kappa"] for r in rs)[0],
                       exact_objective=_mean_std(r["exact"]["objective"] for r in rs)[0],
                       mcp_objective=_mean_std(r["mcp"]["objective"] for r in rs)[0],
                       claim=rs[0]["setting"]["claim"])
        rows.append(row)
    return rows


def capacity_table(records: list) -> list:
    """Fig. 3c/3d rows: mean kappa, m and m kappa^2 over repetitions, per grid point."""
    groups = {}
    for r in records:
        if r["kind"] == "capacity":
            groups.setdefault((r["figure"], r["P"], r["D"], r["R0"]), []).append(r)
    rows = []
    for (fig, P, D, R0), rs in groups.items():
        rows.append(dict(figure=fig, P=P, D=D, R0=R0, N=rs[0]["N"], PD_over_N=rs[0]["PD_over_N"],
                         separable=f"{sum(r['separable'] for r in rs)}/{len(rs)}",
                         kappa=_mean_std(r["kappa"] for r in rs)[0], m=_mean_std(r["m"] for r in rs)[0],
                         m_kappa2=_mean_std(r["m_kappa2"] for r in rs)[0],
                         m_kappa2_std=_mean_std(r["m_kappa2"] for r in rs)[1]))
    return rows


def _markdown(rows: list, columns: list) -> str:
    head = "| " + " | ".join(c for c, _ in columns) + " |\n|" + "---|" * len(columns) + "\n"
    body = "".join("| " + " | ".join(f(r) for _, f in columns) + " |\n" for r in rows)
    return head + body


def _csv(rows: list, path: Path) -> None:
    import csv

    if not rows:
        return
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def summary_markdown(result: dict, level: float = 0.05) -> str:
    gen = generalisation_table(result["records"], level)
    cap = capacity_table(result["records"])
    cfg, meta = result["config"], result["meta"]
    parts = [f"# Paper 001 experiments (certiprog reproduce mcp{' --quick' if cfg['quick'] else ''})\n",
             f"seed {cfg['seed']}, {cfg['reps']} repetition(s), {cfg['n_test']} test points per manifold, "
             f"MCP delta = {cfg['delta']}, wall time {meta['wall_time_s']:.1f} s"
             + (f" ({meta['n_reused']} of {meta['n_tasks']} task results reused from {meta.get('store', 'the store')}, "
                f"{meta.get('task_seconds', 0.0):.1f} s of task time in all)" if meta.get("n_reused") else "")
             + ".\n"]
    if gen:
        cols = [("figure", lambda r: r["figure"]),
                ("exact separable", lambda r: r.get("separable_exact", "-")),
                ("MCP points", lambda r: f"{r['mcp_points']:.0f}"),
                ("MCP solves", lambda r: f"{r['mcp_solves']:.0f}"),
                ("MCP time (s)", lambda r: f"{r['mcp_seconds']:.2f}"),
                ("MCP error", lambda r: _fmt(r["mcp_error"], r["mcp_error_std"])),
                ("point-SVM points", lambda r: f"{r['svm_points']:.0f}"),
                ("point-SVM error there", lambda r: _fmt(r["svm_error"], r["svm_error_std"])),
                ("point-SVM error at its max", lambda r: f"{_fmt(r['svm_error_at_max'])} ({r['svm_max_points']})"),
                (f"points to error <= {level:g}: MCP / SVM",
                 lambda r: f"{_fmt(r['mcp_points_to_level'], digits=0)} / {_fmt(r['svm_points_to_level'], digits=0)}")]
        parts += ["\n## Generalisation error vs training points (Fig. 3a/3b, 4a/4b, images)\n\n", _markdown(gen, cols)]
        claims = [r for r in gen if "claim" in r]
        if claims:
            parts.append("\nPaper's claims beside our numbers:\n\n")
            for r in claims:
                better = (r["mcp_error"] <= r["svm_error"]) if np.isfinite(r["svm_error"]) else None
                verdict = "n/a" if better is None else "MCP better or equal" if better else "point SVM better"
                parts.append(f"* {r['figure']}: paper: {r['claim']}. Ours: exact program separable in "
                             f"{r['separable_exact']} draws (kappa = {_fmt(r['kappa'])}); MCP error "
                             f"{_fmt(r['mcp_error'])} with {r['mcp_points']:.0f} points vs point SVM "
                             f"{_fmt(r['svm_error'])} with {r['svm_points']:.0f} points "
                             f"({verdict});"
                             f" MCP objective {_fmt(r['mcp_objective'], digits=4)} vs exact "
                             f"{_fmt(r['exact_objective'], digits=4)}.\n")
    if cap:
        cols = [("figure", lambda r: r["figure"]), ("P", lambda r: str(r["P"])), ("D", lambda r: str(r["D"])),
                ("R0", lambda r: f"{r['R0']:g}"), ("N", lambda r: str(r["N"])),
                ("PD/N", lambda r: f"{r['PD_over_N']:.2f}"), ("separable", lambda r: r["separable"]),
                ("kappa", lambda r: _fmt(r["kappa"])), ("m", lambda r: _fmt(r["m"], digits=1)),
                ("m kappa^2", lambda r: _fmt(r["m_kappa2"], r["m_kappa2_std"], digits=2))]
        parts += ["\n## m kappa^2 (Fig. 3c: P or D varied; Fig. 3d: R0 varied)\n\n", _markdown(cap, cols),
                  "\nPaper: m kappa^2 shows an approximate plateau as P or D grows, except near capacity "
                  "(PD/N -> 1, kappa -> 0); against R0 it rises quickly for easy tasks, then plateaus.\n"]
    return "".join(parts)


def plot_generalisation(records: list, path: Path, title: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for i, r in enumerate(records):
        c = r["mcp"]["curve"]
        ax.plot([p["n_points"] for p in c], [p["error"] for p in c], "-o", color="tab:blue", ms=3,
                label="MCP" if i == 0 else None)
    budgets = [s["n_points"] for s in records[0]["svm"]]
    err = np.array([[s["error"] for s in r["svm"]] for r in records], float)
    spread = np.nanstd(err, axis=0, ddof=1) if len(records) > 1 else None
    ax.errorbar(budgets, np.nanmean(err, axis=0), yerr=spread, fmt="--s", color="k", ms=3,
                label="point SVM")
    ax.set_xscale("log")
    ax.set_xlabel("total training points")
    ax.set_ylabel("test error")
    ax.set_title(title, fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_capacity(rows: list, path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    for fig_name, marker, ax, xkey in (("3c-P", "o", axes[0], "PD_over_N"), ("3c-D", "x", axes[0], "PD_over_N"),
                                       ("3d", "o", axes[1], "R0")):
        rs = [r for r in rows if r["figure"] == fig_name]
        if rs:
            ax.errorbar([r[xkey] for r in rs], [r["m_kappa2"] for r in rs],
                    yerr=np.nan_to_num([r["m_kappa2_std"] for r in rs]),
                        fmt=f"-{marker}", label={"3c-P": "P varied", "3c-D": "D varied", "3d": "R0 varied"}[fig_name])
    axes[0].set_xlabel("PD/N")
    axes[1].set_xlabel("R0")
    axes[1].set_xscale("log")
    for ax in axes:
        ax.set_ylabel("m kappa^2")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_convergence(history: list, path: Path, title: str = "MCP convergence") -> None:
    """Objective F(w^(k)) and worst violation delta_k per iteration (log scale) from an MCP history."""
    plt = pyplot()
    k = [h["iteration"] for h in history]
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ax.plot(k, [h["objective"] for h in history], color="tab:blue")
    ax.set_xlabel("iteration k")
    ax.set_ylabel("objective", color="tab:blue")
    ax2 = ax.twinx()
    ax2.semilogy(k, np.maximum([h["violation"] for h in history], 1e-16), color="tab:red")
    ax2.set_ylabel("worst violation delta_k", color="tab:red")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_outputs(result: dict, out) -> dict:
    """summary.md, CSV tables, PNG plots and results.json under ``out``; returns {name: path}."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    recs = result["records"]
    (out / "summary.md").write_text(summary_markdown(result))
    paths["summary.md"] = out / "summary.md"
    gen, cap = generalisation_table(recs), capacity_table(recs)
    if gen:
        _csv(gen, out / "generalisation.csv")
        paths["generalisation.csv"] = out / "generalisation.csv"
    if cap:
        _csv(cap, out / "capacity.csv")
        paths["capacity.csv"] = out / "capacity.csv"
        plot_capacity(cap, out / "capacity.png")
        paths["capacity.png"] = out / "capacity.png"
    curves = [dict(figure=r.get("config", r["figure"]), rep=r["rep"], method=meth, n_points=c["n_points"],
                   error=c["error"]) for r in recs if r["kind"] != "capacity"
              for meth, cs in (("MCP", r["mcp"]["curve"]), ("point SVM", r["svm"])) for c in cs]
    if curves:
        _csv(curves, out / "curves.csv")
        paths["curves.csv"] = out / "curves.csv"
    for name in ("3a", "3b", "4a", "4b"):
        rs = [r for r in recs if r["kind"] == "ellipsoid" and r["figure"] == name]
        if rs:
            s = rs[0]["setting"]
            title = (f"Fig. {name}: L{s['q']:g} ellipsoids P={s['P']} N={s['N']} D={s['D']} R0={s['R0']:g}"
                     + (f" C={s['C']:g}" if s["C"] is not None else " hard margin"))
            plot_generalisation(rs, out / f"fig{name}.png", title)
            paths[f"fig{name}.png"] = out / f"fig{name}.png"
    imgs = [r for r in recs if r["kind"] == "image"]
    for cname in dict.fromkeys(r["config"] for r in imgs):
        rs = [r for r in imgs if r["config"] == cname]
        fname = "images_" + "".join(ch if ch.isalnum() else "_" for ch in cname).strip("_") + ".png"
        plot_generalisation(rs, out / fname, f"image manifolds: {cname}")
        paths[fname] = out / fname
    first = next((r for r in recs if r["kind"] != "capacity" and r["mcp"]["history"]), None)
    if first is not None:
        plot_convergence(first["mcp"]["history"], out / "convergence.png",
                         f"MCP convergence ({first.get('config', 'Fig. ' + first['figure'])}, rep {first['rep']})")
        paths["convergence.png"] = out / "convergence.png"
    (out / "results.json").write_text(json.dumps(result, indent=1))
    paths["results.json"] = out / "results.json"
    return paths


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if np.isfinite(v) else None
    return obj


# ----------------------------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------------------------
def add_arguments(parser) -> None:
    """The options of ``certiprog reproduce mcp``."""
    parser.add_argument("--figures", nargs="+", default=list(FIGURES), metavar="FIG",
                        help=f"which figures to run, any of {' '.join(FIGURES)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="small sizes with the same regimes (about 10 s)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (every task derives its own)")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per figure point (default 3; --quick 1)")
    parser.add_argument("--n-test", type=int, default=None, help="test points per manifold (default 500)")
    parser.add_argument("--delta", type=float, default=1e-2, help="MCP tolerance delta (0.01)")
    parser.add_argument("--max-iter", type=int, default=None, help="MCP iteration limit (default 2000)")
    parser.add_argument("--image-max-iter", type=int, default=None,
                        help="MCP iteration limit on the image manifolds (default 300; --quick 10)")
    parser.add_argument("--checkpoints", type=int, default=None,
                        help="MCP iterates evaluated on the test points (default 10; --quick 5)")
    parser.add_argument("--image-source", default="sample_images", choices=("sample_images", "digits"),
                        help="templates of the image manifolds")
    parser.add_argument("--backend", default=None, help="backend of the QPs (MCP masters, point SVM); default: piqp "
                        "for the masters when installed, clarabel for the rest; the exact robust counterparts go to "
                        "clarabel unless this backend takes cones")
    parser.add_argument("--solver", default=None, help="solver for the cvxpy backend")


def config_from_args(args) -> Config:
    """A validated `Config` from parsed arguments (``--quick`` fills what was not given)."""
    quick = bool(args.quick)
    base = Config(**QUICK) if quick else Config()
    figures = tuple(dict.fromkeys(f.lower() for f in args.figures))
    cfg = replace(base, figures=figures, quick=quick, seed=args.seed, delta=args.delta,
                  image_source=args.image_source, backend=args.backend, solver=args.solver,
                  n_jobs=getattr(args, "jobs", 1), progress=False if getattr(args, "no_progress", False) else None)
    for key in ("reps", "n_test", "max_iter", "checkpoints", "image_max_iter"):
        if getattr(args, key) is not None:
            cfg = replace(cfg, **{key: getattr(args, key)})
    cfg.settings = QUICK_SETTINGS if quick else PAPER_SETTINGS
    validate_config(cfg)
    return cfg


def validate_config(cfg: Config) -> None:
    """InputError for anything a run cannot use."""
    unknown = [f for f in cfg.figures if f not in FIGURES]
    if unknown or not cfg.figures:
        raise InputError(f"unknown figure(s) {unknown or '(none)'}; choose from {' '.join(FIGURES)}")
    for key in ("reps", "n_test", "max_iter", "checkpoints", "sweep_N", "image_starts", "image_local",
                "image_max_iter"):
        v = getattr(cfg, key)
        if isinstance(v, bool) or int(v) != v or v < 1:
            raise InputError(f"--{key.replace('_', '-')} must be a positive integer; got {v!r}")
    if not (np.isfinite(cfg.delta) and 0 < cfg.delta < 1):
        raise InputError(f"--delta must lie in (0, 1) (Cor. 3 needs delta < 1); got {cfg.delta}")
    if cfg.n_jobs == 0:
        raise InputError("--n-jobs must be nonzero (joblib: -1 = all cores)")
    if not cfg.settings:
        cfg.settings = QUICK_SETTINGS if cfg.quick else PAPER_SETTINGS


def run(args) -> dict:
    """Entry point of ``certiprog reproduce mcp`` (`certiprog.experiments.runner.reproduce`): run and write the
    files; ``{name: path}``, the summary first. Bad input raises a CertiprogError (the CLI prints it, exits 2)."""
    import sys

    from certiprog.experiments.runner import reproduce

    return reproduce(sys.modules[__name__], args, "mcp").paths
