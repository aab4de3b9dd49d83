"""What defines a ``certiprog reproduce hinge-minimax`` run: the parts, the paper's grids and sizes, the quick
ones, `Config` and its validation; whether the network library (the ``nn`` extra) is installed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from certiprog.datasets.letter import LETTERS
from certiprog.errors import InputError

from ..tables import TABLE1_FRACTIONS

VERSION = "2"  # 2: Alg. 1 runs its rounds (issue 24), baselines as the paper ran them
PARTS = ("table1", "fig5", "table2", "fig78", "table4", "transfer")
TRANSFER_BINARY = ("LHM", "NN linear", "NN matching")
TRANSFER_MULTI = ("LHM-NN", "NN linear", "NN matching", "CNN scratch")
TABLE4_METHODS = ("LHM", "Union of LDAs", "NN", "KHHM")
SYNTH_POS = ((1.5, 1.5), ((0.5, 0.0), (0.0, 0.5)))
SYNTH_NEG = ((0.0, 0.0), ((1.0, 0.0), (0.0, 1.0)))
TABLE1_METHODS = ("KHHM", "Linear SVM", "Bayes")


#: the paper's baselines as it ran them (libsvm C-SVC without class weights; AdaBoost with 100 stumps, Matlab's
#: AdaBoostM1 default), then ours (balanced class weights; AdaBoost with the tree depth chosen on validation)
PAPER_BASELINES = ("Linear SVM", "RBF SVM", "AdaBoost")
OUR_BASELINES = ("Linear SVM (balanced)", "RBF SVM (balanced)", "AdaBoost (depth by validation)")
TABLE2_BASELINES = PAPER_BASELINES + OUR_BASELINES


#: Table 2's KHHM variants: the printed Alg. 1 (every refit kept) under the paper's name, and the risk-accepting rule
KHHM_ACCEPTS = ("always", "risk")
DELTA_GRID = (0.1, 0.3, 0.5, 0.7, 0.9)
LAM_GRID = (0.1,)
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)


#: the linear SVMs' C: without C = 100, where libsvm's linear C-SVC on Letter (unweighted) ran into its 10^7-iteration
#: cap after 96-124 s per fit (letters B, Q) while C <= 10 took <= 0.3 s
LINEAR_C_GRID = (0.01, 0.1, 1.0, 10.0)
GAMMA_GRID = (0.01, 0.1, 1.0)
ADA_DEPTHS = (1, 3)
ADA_RATES = (0.1, 0.5, 1.0)


#: Fig. 5: "the final classifier after 25 iterations"; an iteration of Alg. 1's printed loop refits ONE hyperplane
#: w_t, so a fit runs ceil(25 / K) rounds over the K planes (5 at the figure's K = 5)
REFITS = 25
QUICK = dict(t1_fractions=(0.01, 0.1, 0.5), t1_reps=1, t2_letters=("A", "B", "C"), t2_K=(1, 2), t2_reps=1,
             delta_grid=(0.5, 0.9), lam_grid=(0.1,), C_grid=(0.1, 10.0), gamma_grid=(0.1,), ada_depths=(1,),
             ada_rates=(1.0,), refits=10, widen=(),
             f78_n_pos=200, f78_n_neg=1000, f78_methods=("LHM", "LHM (single-linkage start)"),
             t2_methods=PAPER_BASELINES, certify=False, t4_letters=("A", "B"), t4_C=(2,), t4_K=(2,),
             t4_epochs=5, tr_n_source=1000, tr_source_epochs=1, tr_pos_sizes=(50,), tr_class_sizes=(20,),
             tr_problems=1, tr_n_neg=300, tr_epochs=3, tr_cnn_epochs=3, tr_finetune_epochs=1)


@dataclass
class Config:
    """Everything that defines a run (stored in results.json)."""

    parts: tuple = PARTS
    seed: int = 0
    quick: bool = False
    data_root: str | None = None
    certify: bool = True
    backend: str | None = None
    delta_grid: tuple = DELTA_GRID
    lam_grid: tuple = LAM_GRID
    C_grid: tuple = C_GRID
    linear_C_grid: tuple = LINEAR_C_GRID
    gamma_grid: tuple = GAMMA_GRID
    ada_depths: tuple = ADA_DEPTHS
    ada_rates: tuple = ADA_RATES
    refits: int = REFITS
    widen: tuple = ("delta", "lam")
    t2_accepts: tuple = KHHM_ACCEPTS
    t1_fractions: tuple = TABLE1_FRACTIONS
    t1_reps: int = 3
    t1_n: int = 5000
    t1_K: int = 5
    fig5_fraction: float = 0.1
    t2_letters: tuple = LETTERS
    t2_K: tuple = (1, 2, 3, 4)
    t2_reps: int = 3
    t2_side_reps: int = 1
    t2_methods: tuple = TABLE2_BASELINES
    f78_n_pos: int = 400
    f78_n_neg: int = 2000
    f78_C: int = 2
    f78_K: int = 3
    f78_delta: float = 0.3
    f78_lam: float = 0.1
    f78_max_iter: int = 10
    f78_methods: tuple = ("LHM", "LHM (k-means start)", "LHM (whitened k-means start)", "LHM (single-linkage start)")
    t4_letters: tuple = LETTERS[:10]
    t4_C: tuple = (2, 3, 4, 5)
    t4_K: tuple = (2, 3, 4, 5)
    t4_delta: float = 0.3
    t4_lam: float = 0.1
    t4_epochs: int = 30
    tr_n_source: int = 10000
    tr_source_epochs: int = 3
    tr_pos_sizes: tuple = (20, 50, 100, 250)
    tr_n_neg: int = 2000
    tr_class_sizes: tuple = (20, 50, 100)
    tr_problems: int = 5
    tr_reps: int = 1
    tr_delta: float = 0.3
    tr_lam: float = 0.1
    tr_epochs: int = 30
    tr_finetune_epochs: int = 5
    tr_cnn_epochs: int = 30


def validate_config(cfg: Config) -> None:
    """InputError for anything a run cannot use."""
    bad = [p for p in cfg.parts if p not in PARTS]
    if bad or not cfg.parts:
        raise InputError(f"unknown part(s) {bad}; choose from {list(PARTS)}")
    for f in cfg.t1_fractions:
        if not 0 < f <= 0.5:
            raise InputError(f"Table 1 fractions must be in (0, 0.5], got {f}")
    if not 0 < cfg.fig5_fraction <= 0.5:
        raise InputError(f"fig5_fraction must be in (0, 0.5], got {cfg.fig5_fraction}")
    bad = [s for s in cfg.t2_letters if s not in LETTERS]
    if bad or not cfg.t2_letters:
        raise InputError(f"letters must be among A..Z, got {bad or 'none'}")
    for key in ("t1_reps", "t2_reps", "t2_side_reps", "t1_n", "t1_K", "refits", "f78_n_pos", "f78_n_neg", "f78_C", "f78_K",
                "f78_max_iter", "tr_n_source", "tr_source_epochs", "tr_n_neg", "tr_problems", "tr_reps", "tr_epochs",
                "tr_finetune_epochs", "tr_cnn_epochs"):
        v = getattr(cfg, key)
        if isinstance(v, bool) or not isinstance(v, int) or v < (0 if key == "refits" else 1):
            raise InputError(f"{key} must be a positive integer, got {v!r}")
    if cfg.tr_problems > 5:
        raise InputError(f"tr_problems is at most 5 (five target problems per setting), got {cfg.tr_problems}")
    for key in ("t2_K", "t4_C", "t4_K", "tr_pos_sizes", "tr_class_sizes"):
        v = getattr(cfg, key)
        if (not v and key != "t2_K") or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in v):
            raise InputError(f"{key} must hold positive integers, got {v}")
    bad = [s for s in cfg.t4_letters if s not in LETTERS]
    if bad or not cfg.t4_letters:
        raise InputError(f"Table 4 letters must be among A..Z, got {bad or 'none'}")
    if not 0 < cfg.t4_delta < 1 or not cfg.t4_lam > 0:
        raise InputError(f"t4_delta must be in (0, 1) and t4_lam > 0, got {cfg.t4_delta}, {cfg.t4_lam}")
    bad = [m for m in cfg.f78_methods if m not in FIG78_LHM]
    if bad:
        raise InputError(f"f78_methods must be among {list(FIG78_LHM)}, got {bad}")
    bad = [a for a in cfg.t2_accepts if a not in KHHM_ACCEPTS]
    if bad:
        raise InputError(f"t2_accepts must be among {KHHM_ACCEPTS}, got {bad}")
    for key in ("delta_grid", "lam_grid", "C_grid", "linear_C_grid", "gamma_grid", "ada_rates"):
        g = np.asarray(getattr(cfg, key), float)
        if g.size == 0 or not np.all(np.isfinite(g) & (g > 0)):
            raise InputError(f"{key} must hold positive finite numbers, got {getattr(cfg, key)}")
    if any(w not in ("delta", "lam") for w in cfg.widen):
        raise InputError(f"widen takes 'delta' and / or 'lam', got {cfg.widen}")
    if any(not 0 < d < 1 for d in cfg.delta_grid):
        raise InputError(f"delta_grid values must be in (0, 1), got {cfg.delta_grid}")
    bad = [m for m in cfg.t2_methods if m not in TABLE2_BASELINES]
    if not cfg.t2_K and not cfg.t2_methods:
        raise InputError("Table 2 has no method: give KHHM (t2_K) or a baseline")
    if bad:
        raise InputError(f"unknown Table 2 method(s) {bad}; choose from {list(TABLE2_BASELINES)}")


def network_library_installed() -> bool:
    """`has_network_library` as the experiment package exposes it (replace it there to simulate a machine without
    the ``nn`` extra: every module asks through here; looked up, not imported, so the package and this module form
    no import cycle)."""
    import sys

    return sys.modules[__package__].has_network_library()


def has_network_library() -> bool:
    """True if JAX and optax (the ``nn`` extra) are installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("jax", "optax"))


#: Figs. 7-8's LHM runs: the paper's random start (Fig. 8) under the name the figures use, and two k-means starts
FIG78_LHM = {"LHM": "random", "LHM (k-means start)": "kmeans", "LHM (whitened k-means start)": "kmeans-whitened",
             "LHM (single-linkage start)": "single-linkage"}
