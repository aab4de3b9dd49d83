"""``certiprog reproduce hinge-minimax``: the options, the configuration they give, the output folder.
"""
from __future__ import annotations

from typing import Any

from certiprog.errors import InputError
from certiprog.experiments.kit import PaperExperiment
from certiprog.experiments.runner import number_list

from .config import (
    DELTA_GRID,
    GAMMA_GRID,
    KHHM_ACCEPTS,
    LAM_GRID,
    PARTS,
    QUICK,
    REFITS,
    TABLE2_BASELINES,
    Config,
    network_library_installed,
    validate_config,
)
from .report import aggregate
from .runs import tasks


def add_arguments(parser) -> None:
    """The options of ``certiprog reproduce hinge-minimax``."""
    parser.add_argument("--parts", nargs="+", default=None, choices=PARTS,
                        help=f"what to run (default all: {' '.join(PARTS)})")
    parser.add_argument("--quick", action="store_true",
                        help="Table 1 at 3 fractions x 1 repetition, Table 2 on 3 letters with K = 1, 2, small "
                             "grids, uncertified KKT checks (under ~2 minutes)")
    parser.add_argument("--gamma-grid", default=None,
                        help=f"RBF SVMs' gamma values (default {','.join(map(str, GAMMA_GRID))})")
    parser.add_argument("--letters", default=None, help="Table 2's letters, e.g. 'A,B,C' (default all 26)")
    parser.add_argument("--reps", type=int, default=None, help="repetitions of Table 1 (3; --quick 1)")
    parser.add_argument("--table2-reps", type=int, default=None,
                        help="Table 2's random splits for the paper's rows (default 3; --quick 1)")
    parser.add_argument("--table2-accepts", nargs="+", default=None, choices=KHHM_ACCEPTS,
                        help="Table 2's KHHM acceptance rules: always (the printed Alg. 1) and / or risk (default both)")
    parser.add_argument("--table2-side-reps", type=int, default=None,
                        help="Table 2's splits for the rows beside the paper's: KHHM (risk), our baselines (default 1)")
    parser.add_argument("--refits", type=int, default=None,
                        help=f"hyperplane refits per KHHM fit, ceil(refits / K) rounds (default {REFITS}, Fig. 5)")
    parser.add_argument("--widen", nargs="*", default=None, choices=("delta", "lam"),
                        help="grid parameters widened past an edge choice (default: delta lam; none: no widening)")
    parser.add_argument("--fractions", default=None, help="Table 1's positive fractions, e.g. '0.01,0.5'")
    parser.add_argument("--delta-grid", default=None,
                        help=f"KHHM's delta values tried on validation (default {','.join(map(str, DELTA_GRID))})")
    parser.add_argument("--lam-grid", default=None,
                        help=f"KHHM's lam values tried on validation (default {','.join(map(str, LAM_GRID))})")
    parser.add_argument("--table2-methods", nargs="+", default=None, choices=("KHHM",) + TABLE2_BASELINES,
                        metavar="METHOD", help="Table 2's methods: KHHM (every K) and any of "
                        f"{', '.join(repr(m) for m in TABLE2_BASELINES)} (default all)")
    parser.add_argument("--table4-sizes", default=None,
                        help="Table 4 analogue: C of LHM / LDAs / NN and K of KHHM, e.g. '2,3' (default 2,3,4,5)")
    parser.add_argument("--transfer-positives", default=None,
                        help="transfer, binary: positive training images, e.g. '20,100' (default 20,50,100,250)")
    parser.add_argument("--transfer-per-class", default=None,
                        help="transfer, multi-class: training images per class, e.g. '20,100' (default 20,50,100)")
    parser.add_argument("--transfer-problems", type=int, default=None,
                        help="transfer, binary: target problems per setting, 1..5 (default 5)")
    parser.add_argument("--no-certify", action="store_true",
                        help="check every sub-problem by its KKT residuals only (default: rigorous intervals)")
    parser.add_argument("--backend", default=None, help="backend of every sub-problem (default: certiprog chooses)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the data and splits")
    parser.add_argument("--data", default=None, help="data folder (default: $CERTIPROG_DATA or ../shared/data)")


def config_from_args(args) -> Config:
    """A validated `Config` from parsed arguments (``--quick`` fills what was not given)."""
    quick = bool(getattr(args, "quick", False))
    q: dict[str, Any] = dict(QUICK) if quick else {}
    if getattr(args, "letters", None):
        q["t2_letters"] = tuple(s.strip().upper() for s in str(args.letters).replace(",", " ").split())
    if getattr(args, "reps", None) is not None:
        q["t1_reps"] = args.reps
    if getattr(args, "table2_reps", None) is not None:
        q["t2_reps"] = args.table2_reps
    if getattr(args, "table2_accepts", None):
        q["t2_accepts"] = tuple(args.table2_accepts)
    if getattr(args, "table2_side_reps", None) is not None:
        q["t2_side_reps"] = args.table2_side_reps
    if getattr(args, "refits", None) is not None:
        q["refits"] = args.refits
    if getattr(args, "widen", None) is not None:
        q["widen"] = tuple(args.widen)
    if getattr(args, "fractions", None):
        q["t1_fractions"] = number_list(args.fractions)
    if getattr(args, "no_certify", False):
        q["certify"] = False
    for key in ("delta_grid", "lam_grid", "gamma_grid"):
        if getattr(args, key, None):
            q[key] = number_list(getattr(args, key))
    for option, keys in (("table4_sizes", ("t4_C", "t4_K")), ("transfer_positives", ("tr_pos_sizes",)),
                         ("transfer_per_class", ("tr_class_sizes",))):
        if getattr(args, option, None):
            values = number_list(getattr(args, option))
            if any(v != int(v) for v in values):
                raise InputError(f"--{option.replace('_', '-')} takes integers, got {getattr(args, option)!r}")
            for key in keys:
                q[key] = tuple(int(v) for v in values)
    if getattr(args, "table2_methods", None):
        q["t2_methods"] = tuple(m for m in args.table2_methods if m != "KHHM")
        if "KHHM" not in args.table2_methods:
            q["t2_K"] = ()
    if getattr(args, "transfer_problems", None) is not None:
        q["tr_problems"] = args.transfer_problems
    parts = tuple(args.parts) if getattr(args, "parts", None) else \
        tuple(p for p in PARTS if p != "transfer" or network_library_installed())  # without the nn extra: no transfer
    cfg = Config(parts=parts, seed=int(args.seed),
                 quick=quick, data_root=getattr(args, "data", None), backend=getattr(args, "backend", None), **q)
    validate_config(cfg)
    return cfg


def run(args) -> dict:
    import sys

    from certiprog.experiments.runner import reproduce

    return reproduce(sys.modules[__name__], args, "hinge-minimax").paths


def default_out(cfg: Config) -> str:
    return "results/hinge-minimax-quick" if cfg.quick else "results/hinge-minimax"


class HingeMinimaxExperiment(PaperExperiment):
    """``certiprog reproduce hinge-minimax`` on the paper kit. Its options are the hand-written `add_arguments`
    (41 options whose names do not follow the Config fields: ``--letters`` for ``t2_letters``, comma lists), so
    this class hands the command line to them and the kit gives the rest."""

    name = "hinge-minimax"
    config_class = Config
    quick = QUICK

    def add_arguments(self, parser) -> None:
        add_arguments(parser)

    def config_from_args(self, args) -> Config:
        return config_from_args(args)

    check = staticmethod(validate_config)

    def default_out(self, cfg: Config) -> str:
        return default_out(cfg)

    tasks = staticmethod(tasks)  # the module's functions are the hooks
    aggregate = staticmethod(aggregate)


EXPERIMENT = HingeMinimaxExperiment()
