"""What defines a ``certiprog reproduce mcp`` run: the figures' settings (the paper's and the quick ones), `Config`
(its `option` fields are the command line) and its validation.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.kit import option

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


def _figure_names(names) -> tuple:
    return tuple(dict.fromkeys(str(f).lower() for f in names))


@dataclass
class Config:
    """Everything that defines a run (stored in results.json); the `option` fields are the command line."""

    figures: tuple = option(FIGURES, nargs="+", metavar="FIG", parse=_figure_names,
                            help=f"which figures to run, any of {' '.join(FIGURES)} (default: all)")
    quick: bool = False
    seed: int = option(0, help="base seed (every task derives its own)")
    reps: int = option(3, help="repetitions per figure point (default 3; --quick 1)")
    n_test: int = option(500, help="test points per manifold (default 500)")
    budgets: tuple = (1, 2, 5, 10, 20, 50, 100)  # point-SVM samples per manifold
    delta: float = option(1e-2, help="MCP tolerance delta (0.01)")
    max_iter: int = option(2000, help="MCP iteration limit (default 2000)")
    checkpoints: int = option(10, help="MCP iterates evaluated on the test points (default 10; --quick 5)")
    sweep_N: int = 100
    sweep_P: tuple = (2, 4, 6, 8, 10)
    sweep_D: tuple = (2, 4, 6, 8)
    sweep_R0: tuple = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
    sweep_base: tuple = (10, 8, 20.0)  # P, D, R0 held fixed while another is varied
    image_source: str = option("sample_images", choices=("sample_images", "digits"),
                               help="templates of the image manifolds")
    image_shifts: tuple = (2.0, 4.0)
    image_shear: float = 3.0
    image_C: float = 10.0
    image_budgets: tuple = (1, 2, 5, 10, 20, 50)
    image_starts: int = 5  # the paper's K = 5 random warps per oracle call
    image_local: int = 3  # local searches (L-BFGS-B) from the best of them
    image_max_iter: int = option(300, help="MCP iteration limit on the image manifolds (default 300; --quick 10)")
    image_configs: tuple = ()  # (warp, features, shift, C); () = Fig. 5b + Fig. 6b (`image_configs`)
    # MCP masters (None: `master_backend`, PIQP when installed) and point SVM (None: Clarabel)
    backend: str | None = option(None, type=str,
                                 help="backend of the QPs (MCP masters, point SVM); default: piqp for the masters "
                                      "when installed, clarabel for the rest; the exact robust counterparts go to "
                                      "clarabel unless this backend takes cones")
    solver: str | None = option(None, type=str, help="solver for the cvxpy backend")
    n_jobs: int = 1  # the runner's --jobs
    progress: bool | None = False  # None: bars only on a terminal (the runner's --no-progress)
    settings: dict = field(default_factory=dict)


QUICK = dict(reps=1, n_test=100, budgets=(1, 3, 10, 30), checkpoints=5, max_iter=400, sweep_N=40,
             sweep_P=(2, 4), sweep_D=(2, 4), sweep_R0=(1.0, 10.0), sweep_base=(4, 4, 10.0), image_shifts=(2.0,),
             image_budgets=(1, 5), image_starts=2, image_local=1,
             image_max_iter=10,
             image_configs=(("translation", "pixel", 2.0, None), ("affine", "pixel", 2.0, 10.0)))


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
