"""What defines a ``certiprog reproduce hp-mpm`` run: the paper's grids and proportions, the quick ones, `Config`
(its `option` fields are the command line) and its validation.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.kit import option
from certiprog.experiments.runner import number_list

PAPER_PROPORTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
PAPER_NU = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
PAPER_C = PAPER_LAMBDA = PAPER_SIGMA = tuple(10.0 ** k for k in range(-3, 4))
QUICK_GRIDS = dict(nu=(0.05, 0.2, 1.0), C=(0.01, 1.0, 100.0), lam=(0.01, 1.0, 100.0), sigma=(10.0, 100.0))
QUICK_DATASETS = ("sonar", "heart")
QUICK_PROPORTIONS = (0.1, 0.3)
QUICK_PARTITIONS = 2
KERNEL_DATASETS = ("sonar", "ionosphere", "heart")
METHODS = ("MPM", "HP-MPM", "bHP-MPM", "SVM", "FDA")
MISSING_NOTE = "missing (not in ../shared/data)"
SVM_SEED = 0  # LinearSVC's random_state (`_fit_svm`)
VERSION = "3"  # of the task results: bump when a change to the code changes what a task returns


# Config fields a task's result depends on (its key); the others only say which tasks to run or how
TASK_FIELDS = ("validation", "seed", "delta", "kernel", "nu", "C", "lam", "sigma", "backend", "solver")


def _lower(names) -> tuple:
    return tuple(str(d).lower() for d in names)


@dataclass
class Config:
    """Everything that defines a run (stored in results.json); the `option` fields are the command line."""

    datasets: tuple = option((), nargs="+", parse=_lower,
                             help="data sets (default: every available one; --quick: sonar heart; --kernel: sonar "
                                  "ionosphere heart); 'all' = every available one")
    proportions: tuple = option(PAPER_PROPORTIONS, parse=number_list,
                                help="training proportions, e.g. '0.1,0.2' (default 0.1..0.7; --quick: 0.1,0.3)")
    adult_proportions: tuple = option((0.1,), parse=number_list, help="training proportions for Adult (default 0.1)")
    partitions: int = option(50, help="random partitions per cell (default 50 as in the paper; --quick: "
                                      f"{QUICK_PARTITIONS})")
    validation: float = option(0.2, help="validation fraction of the data (0.2)")
    seed: int = option(0, help="base seed of the partitions")
    delta: float = option(0.1, help="HP-MPM confidence parameter delta (0.1)")
    kernel: bool = option(False, switch=True, help="Table 3: Gaussian kernel, width chosen on validation")
    nu: tuple = PAPER_NU
    C: tuple = PAPER_C
    lam: tuple = PAPER_LAMBDA
    sigma: tuple = PAPER_SIGMA
    backend: str | None = option(None, type=str, help="backend of the MPM/HP-MPM solves (default: certiprog "
                                                      "chooses)")
    solver: str | None = option(None, type=str, help="solver for the cvxpy backend")
    n_jobs: int = 1  # the runner's --jobs
    progress: bool | None = False  # None: a bar only on a terminal (the runner's --no-progress)
    data_root: str | None = option(None, flag="--data", type=str,
                                   help="data folder (default: $CERTIPROG_DATA or ../shared/data)")
    quick: bool = False


QUICK = dict(proportions=QUICK_PROPORTIONS, partitions=QUICK_PARTITIONS, **QUICK_GRIDS)


def validate_config(cfg: Config, known=None) -> None:
    """InputError for anything a run cannot use (unknown data set, proportions outside (0, 1), ...)."""
    from certiprog.datasets import DATASETS_004, MISSING_004

    known = DATASETS_004 if known is None else known
    if not cfg.datasets:
        raise InputError("no data set to run: give --datasets (see certiprog.datasets.DATASETS_004)")
    for name in cfg.datasets:
        if name in MISSING_004:
            raise InputError(f"data set {name!r} is {MISSING_NOTE}; it is listed as missing in the table")
        if name not in known:
            raise InputError(f"unknown data set {name!r}; choose from {sorted(known)} or 'all'")
    if not 0 < cfg.validation < 1:
        raise InputError(f"--validation must be in (0, 1), got {cfg.validation}")
    for p in tuple(cfg.proportions) + tuple(cfg.adult_proportions):
        if not (0 < p < 1 and p + cfg.validation < 1):
            raise InputError(f"training proportion {p} must be in (0, 1) and leave a test part next to the "
                             f"validation fraction {cfg.validation}")
    if not cfg.proportions:
        raise InputError("--proportions is empty")
    if cfg.partitions < 1:
        raise InputError(f"--partitions must be >= 1, got {cfg.partitions}")
    if not 0 < cfg.delta < 1:
        raise InputError(f"--delta must be in (0, 1), got {cfg.delta}")
    if cfg.n_jobs == 0:
        raise InputError("--n-jobs must be nonzero (joblib: -1 = all cores)")
    from certiprog.solvers import available_backends

    if cfg.backend is not None and cfg.backend not in available_backends():
        raise InputError(f"backend {cfg.backend!r} is not available here; choose from {available_backends()}")
    for key in ("nu", "C", "lam", "sigma"):
        grid = np.asarray(getattr(cfg, key), float)
        if grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
            raise InputError(f"the {key} grid must hold positive finite numbers, got {getattr(cfg, key)}")


def available_datasets(root=None) -> tuple:
    """The paper-004 data sets whose file is present under the data folder."""
    from certiprog.datasets import DATASETS_004, data_root

    base = Path(root) if root else data_root()
    return tuple(name for name, info in DATASETS_004.items() if (base / info.file).is_file())
