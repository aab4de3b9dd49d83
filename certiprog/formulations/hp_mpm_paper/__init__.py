"""Paper 004: the minimax probability machine and its high-probability version (``shared/papers/004_*``).

mpm.py         MPM, eqs. (3)-(5), and class moments
hp_mpm.py      HP-MPM of Cor. 1: the uncertainty A_j of eq. (8), bisection with a certified kappa bracket,
               the corrected Alg. 1
kernels.py     kernel MPM / HP-MPM
estimator.py   MPMClassifier, HPMPMClassifier
experiment.py  ``certiprog reproduce hp-mpm`` (Tables 2 / 3, Figure 1); tables.py the paper's numbers
plots.py       Figure 1 and the accuracy plot
claims.py      the paper's statements, checked (``certiprog audit 004``)
Errata: docs/derivations/004.md.
"""
from certiprog.papers import Experiment, Paper

from .hp_mpm import hp_mpm, solve_hp_mpm
from .kernels import kernel_hp_mpm, kernel_mpm
from .mpm import mpm

PAPER = Paper("004", "MPM and HP-MPM", __name__, claims=(f"{__name__}.claims",), bounds=(f"{__name__}.bounds",),
              experiments=(Experiment("hp-mpm", f"{__name__}.experiment",
                                      "004: Table 2/3 (MPM, HP-MPM, SVM, FDA on real data), Figure 1"),),
              estimators={"MPMClassifier": f"{__name__}.estimator", "HPMPMClassifier": f"{__name__}.estimator"})

__all__ = ["PAPER", "hp_mpm", "kernel_hp_mpm", "kernel_mpm", "mpm", "solve_hp_mpm"]
