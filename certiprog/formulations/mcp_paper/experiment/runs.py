"""The runner's tasks: one per repetition of each figure point (ellipsoids, capacity, images), the aggregation and
`run_experiment` for Python callers.
"""
from __future__ import annotations

import platform
import time
from dataclasses import asdict, replace
from typing import Any

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.runner import Task, encode, run_tasks
from certiprog.formulations.mcp_paper.programs import exact_backend

from .baseline import error_rate, point_svm
from .config import TASK_FIELDS, VERSION, Config, Setting, validate_config
from .draws import random_ellipsoids, sample_ellipsoids
from .learner import ellipsoid_manifolds, fit_mcp, mcp_error_curve, parametric_manifolds
from .report import write_outputs


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
    out: list[tuple[str, str, float, float | None]] = [("translation", "pixel", s, None) for s in cfg.image_shifts]
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
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v  # JSON lists back to tuples
                              for k, v in ((k, c.pop(k)) for k in TASK_FIELDS[kind])}
    cfg = replace(Config(), **fields, progress=progress, n_jobs=1)
    if kind == "ellipsoid":
        return ellipsoid_task(Setting(**c["setting"]), c["rep"], cfg)
    if kind == "capacity":
        return capacity_task(c["figure"], c["P"], c["D"], c["R0"], c["rep"], cfg)
    return image_task(c["warp"], c["features"], c["shift"], c["C"], c["rep"], cfg)


def assemble(cfg: Config, records: list, meta: dict) -> dict:
    """``dict(config, meta, records)`` (what results.json holds) from the tasks' records."""
    return encode(dict(config=asdict(cfg), meta=meta, records=records), None)


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
