"""The runner's protocol for hp-mpm: one `Task` per (data set, proportion, partition), the aggregation, and
`run_experiment` for Python callers.
"""
from __future__ import annotations

import functools
import platform
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.runner import Task, run_tasks

from .config import TASK_FIELDS, VERSION, Config, available_datasets, validate_config
from .fits import run_task
from .report import write_outputs


def tasks(cfg: Config) -> list:
    """One `Task` per (data set, proportion, partition), in table order; InputError for a missing data file."""
    validate_config(cfg)
    present = set(available_datasets(cfg.data_root))
    for name in cfg.datasets:
        if name not in present:
            from certiprog.datasets import DATASETS_004, data_root

            root = cfg.data_root or data_root()
            raise InputError(f"data set {name!r}: {Path(root) / DATASETS_004[name].file} not found; set "
                             "CERTIPROG_DATA or --data to the shared data folder")
    keyed = {k: getattr(cfg, k) for k in TASK_FIELDS}
    out = []
    for name in cfg.datasets:
        for p in (cfg.adult_proportions if name == "adult" else cfg.proportions):
            out += [Task(f"{name} p={float(p):g} partition {k}", partition_task,
                         dict(keyed, dataset=name, proportion=float(p), partition=k), VERSION,
                         extra=dict(data_root=cfg.data_root)) for k in range(cfg.partitions)]
    return out


def partition_task(config: dict, data_root=None) -> dict:
    """A task: `run_task` on one partition, every parameter from ``config`` (`tasks`); the data set is read from
    ``data_root`` (not part of the task's key) once per worker."""
    c = dict(config)
    name, p, k = c.pop("dataset"), c.pop("proportion"), c.pop("partition")
    fields: dict[str, Any] = {key: tuple(v) if isinstance(v, list) else v for key, v in c.items()}  # JSON lists
    cfg = Config(datasets=(name,), data_root=data_root, **fields)
    return run_task(*_dataset(name, data_root), name, p, k, cfg)


@functools.lru_cache(maxsize=4)
def _dataset(name: str, root) -> tuple[np.ndarray, np.ndarray]:
    from certiprog.datasets import load_dataset

    X, y = load_dataset(name, root=root, **({"missing": "nan"} if name == "vote" else {}))
    X.setflags(write=False)  # shared by every task of the worker
    y.setflags(write=False)
    return X, y


def assemble(cfg: Config, records: list, meta: dict) -> dict:
    """``dict(config, meta, records)`` (what results.json holds) from the tasks' records."""
    records = sorted(records, key=lambda r: (cfg.datasets.index(r["dataset"]), r["proportion"], r["partition"]))
    return dict(config=asdict(cfg), meta=dict(meta, versions=_versions()), records=records)


def aggregate(cfg: Config, records: list, out, meta: dict) -> dict:
    """The runner's aggregation: `write_outputs` of the records; ``{name: path}``, the table first."""
    return write_outputs(assemble(cfg, records, meta), out)


def run_experiment(cfg: Config, store=None, executor: str = "loky", scheduler=None) -> dict:
    """Every task of ``cfg`` (``cfg.n_jobs`` workers; ``store``: a `ResultStore` to resume from, None: keep
    nothing); returns ``dict(config, meta, records)``."""
    report = run_tasks(tasks(cfg), store, executor, cfg.n_jobs, scheduler, progress=cfg.progress, desc="hp-mpm")
    meta = dict(wall_time_s=report.wall_time_s, n_tasks=len(report.results), n_computed=len(report.computed),
                n_reused=len(report.reused), executor=executor, jobs=cfg.n_jobs,
                python=platform.python_version(), machine=platform.machine())
    return assemble(cfg, report.results, meta)


def _versions() -> dict:
    import importlib.metadata as md

    out: dict[str, str | None] = {}
    for pkg in ("certiprog", "numpy", "scipy", "scikit-learn", "clarabel", "cvxpy"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out
