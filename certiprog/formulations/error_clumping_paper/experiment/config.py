"""What defines a ``certiprog reproduce error-clumping`` run: the paper's sizes and grids, the quick ones, `Config`
(its `option` fields are the command line) and its validation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.kit import option
from certiprog.experiments.runner import number_list

VERSION = "5"  # of the task results: bump when a change to the code changes what a task returns
HALF = 35_000  # the paper's training (and test) size
FIG2_SIZE = 10_000  # Fig. 2's default training / test size (12 hole-punching runs per split)
PAPER_ETAS = (0.0, 0.3, 0.5)
LAM_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)


#: Fig. 2's radius rules tried on the validation part: (error_fraction, min_hole_size); (0.5, 1) is the paper's
HP_RULES = ((0.5, 1), (0.2, 20), (0.15, 50))
HP_NORMALISATIONS = ("printed", "dmax")
STUDY_NEIGHBOURHOODS = (0.01, 0.03, 0.1, 0.3)
STUDY_LAMS = (0.1, 0.3, 1.0, 3.0, 10.0)
STUDY_ETAS = (0.3, 0.5)
STUDY_TRAIN = 3000
QUICK = dict(n_train=3000, n_test=3000, fig2_train=3000, fig2_test=3000, n_holes=10, splits=1,
             study_neighbourhoods=(0.01, 0.3), study_lams=(0.1, 3.0), study_etas=(0.5,),
             hp_rules=((0.5, 1), (0.15, 50)))
FIRST_SPLIT = (5, 6, 7, 8, 9)
STUDY_READINGS = ("printed", "row", "symmetric", "max", "dmax")  # the five readings, in its order
_SPLIT_SEED = 3  # mixed with --seed: the random splits of the digits


def _names(text) -> tuple:
    """``"printed, dmax"`` -> ``("printed", "dmax")``."""
    return tuple(v.strip() for v in str(text).split(",") if v.strip())


@dataclass
class Config:
    """Everything that defines a run (stored in results.json); the `option` fields are the command line."""

    n_train: int = option(HALF, help=f"training points (default {HALF}, the paper's)")
    n_test: int = option(HALF, help=f"test points (default {HALF}, the paper's)")
    seed: int = option(0, help="seed of the train/test shuffle and of the splits")
    etas: tuple = option(PAPER_ETAS, parse=number_list, help="Table 1's eta values (default 0,0.3,0.5)")
    neighbourhood: float = option(0.01, help="rho: the radius of neighbourhoods holding about this fraction of the "
                                             "training points (default 0.01)")
    lam: float | None = option(None, type=float, help="fix lambda (default: validation on --lam-grid)")
    lam_grid: tuple = option(LAM_GRID, parse=number_list,
                             help="lambda values validated at eta = 0 (default 1e-4,1e-3,1e-2,1e-1,1)")
    validation: float = option(0.2, help="held-out fraction of the training part (0.2)")
    fig2: bool = option(True, negate=True, help="skip Fig. 2 (hole punching)")
    splits: int = option(5, help="Fig. 2: 0-4 vs 5-9 and SPLITS-1 random splits (5; --quick: 1)")
    n_holes: int = option(20, help=f"Fig. 2: hole-punching rounds (20; --quick: {QUICK['n_holes']})")
    hp_eta: float = option(0.5, help="Fig. 2: eta of the clumping runs (0.5)")
    fig2_train: int = option(FIG2_SIZE, help=f"Fig. 2: training points, fitting + validation part (default "
                                             f"{FIG2_SIZE})")
    fig2_test: int = option(FIG2_SIZE, help=f"Fig. 2: test points (default {FIG2_SIZE})")
    hp_normalisations: tuple = option(HP_NORMALISATIONS, parse=_names,
                                      help="Fig. 2: Theta readings of the clumping runs (default printed,dmax)")
    hp_rules: tuple = HP_RULES
    study: bool = option(True, negate=True, help="skip the Theta-normalisation study")
    study_train: int = option(STUDY_TRAIN, help=f"study: training points (default {STUDY_TRAIN}); test points "
                                                "min(--n-test, 10000)")
    study_neighbourhoods: tuple = option(STUDY_NEIGHBOURHOODS, parse=number_list,
                                         help="study: neighbourhood fractions (default 0.01,0.03,0.1,0.3; --quick "
                                              "0.01,0.3)")
    study_lams: tuple = option(STUDY_LAMS, parse=number_list,
                               help="study: lambdas (default 0.1,0.3,1,3,10; --quick 0.1,3)")
    study_etas: tuple = option(STUDY_ETAS, parse=number_list, help="study: etas (default 0.3,0.5; --quick 0.5)")
    tol: float = option(1e-6, help="relative duality gap to certify (1e-6)")
    quick: bool = False
    data_root: str | None = option(None, flag="--data", type=str,
                                   help="data folder (default: $CERTIPROG_DATA or ../shared/data)")


def _int(v, name, low, high):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not low <= v <= high:
        raise InputError(f"--{name} must be an integer in [{low}, {high}], got {v!r}")


def _in(v, name, low, high, low_open=False):
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise InputError(f"--{name} must be a number, got {v!r}") from None
    if not np.isfinite(x) or x < low or x > high or (low_open and x == low):
        raise InputError(f"--{name} must be in {'(' if low_open else '['}{low}, {high}], got {v!r}")


def validate_config(cfg: Config) -> None:
    """InputError for anything a run cannot use (sizes, eta outside [0, 1], nonpositive lam, missing data)."""
    _int(cfg.n_train, "n-train", 10, HALF)
    _int(cfg.n_test, "n-test", 1, HALF)
    _int(cfg.fig2_train, "fig2-train", 10, HALF)
    _int(cfg.fig2_test, "fig2-test", 1, HALF)
    _int(cfg.splits, "splits", 1, 50)
    _int(cfg.n_holes, "n-holes", 0, 10_000)
    _int(cfg.seed, "seed", 0, 2 ** 32 - 1)
    if not cfg.etas:
        raise InputError("--etas is empty")
    if len(set(cfg.etas)) != len(cfg.etas):
        raise InputError(f"--etas repeats a value: {cfg.etas}")
    for eta in cfg.etas:
        _in(eta, "etas", 0.0, 1.0)
    _in(cfg.hp_eta, "hp-eta", 0.0, 1.0, low_open=True)
    from ..normalisation import ALWAYS_PSD

    if not cfg.hp_normalisations or any(v not in ALWAYS_PSD for v in cfg.hp_normalisations):
        raise InputError(f"--hp-normalisations must be a non-empty list of {ALWAYS_PSD}; got {cfg.hp_normalisations}")
    for frac, size in cfg.hp_rules:
        _in(frac, "hp-rules error fraction", 0.0, 1.0, low_open=True)
        _int(size, "hp-rules min hole size", 1, HALF)
    _int(cfg.study_train, "study-train", 10, HALF)
    for name, values, low_open in (("study-neighbourhoods", cfg.study_neighbourhoods, True),
                                   ("study-etas", cfg.study_etas, True)):
        if not values:
            raise InputError(f"--{name} is empty")
        for v in values:
            _in(v, name, 0.0, 1.0, low_open=low_open)
    if not cfg.study_lams:
        raise InputError("--study-lams is empty")
    for v in cfg.study_lams:
        _in(v, "study-lams", 0.0, 1e12, low_open=True)
    _in(cfg.neighbourhood, "neighbourhood", 0.0, 1.0, low_open=True)
    _in(cfg.validation, "validation", 0.0, 0.5, low_open=True)
    _in(cfg.tol, "tol", 0.0, 1.0, low_open=True)
    if cfg.lam is not None:
        _in(cfg.lam, "lam", 0.0, 1e12, low_open=True)
    if not cfg.lam_grid:
        raise InputError("--lam-grid is empty")
    for lam in cfg.lam_grid:
        _in(lam, "lam-grid", 0.0, 1e12, low_open=True)
    for n, name in ((cfg.n_train, "n-train"), (cfg.fig2_train, "fig2-train")):
        if int(round(n * cfg.validation)) < 1 or n - int(round(n * cfg.validation)) < 2:
            raise InputError(f"--{name} {n} with --validation {cfg.validation} leaves no validation or fitting part")
    from certiprog.datasets.loaders import data_path
    from certiprog.datasets.mnist import MNIST_FILES

    for files in MNIST_FILES.values():
        for f in files:
            data_path(f"mnist/{f}", cfg.data_root)  # InputError naming the missing file and CERTIPROG_DATA
