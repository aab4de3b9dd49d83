"""Paper 002: ME^2, maximal exclusion ellipsoids (``shared/papers/002_*``).

programs.py      Problem 2 (metric learning QP) and its corrected dual, local fits
local_solver.py  the dedicated certified solver of one local problem (dual as box least squares)
batch_solver.py  many local problems at once (a fold's centres x lam values), the same certificate
decision.py      the decision rule of Sec. 5.2 (batch-independent "rank" reading, the literal "batch" one)
tuning.py        the local tuning of Sec. 5.2 (2-fold CV, per-model (mu, lam) by F-measure / FP rate)
estimator.py     ME2Classifier (scikit-learn)
experiment.py    ``certiprog reproduce me2`` (Table 3, Fig. 3); tables.py the paper's numbers; plots.py
claims.py        the paper's statements, checked (``certiprog audit 002``)
Errata (docs/derivations/002.md): the printed dual, the eq. (3) sign, the loss with R vs R^2, Prop. 1,
Lemma 3, Thm 2.
"""
from certiprog.papers import Experiment, Paper

from .programs import me2_dual, me2_primal

PAPER = Paper("002", "ME^2: maximal exclusion ellipsoids", __name__, claims=(f"{__name__}.claims",),
              bounds=(f"{__name__}.bounds",),
              estimators={"ME2Classifier": f"{__name__}.estimator"},
              experiments=(Experiment("me2", f"{__name__}.experiment",
                                      "002: Table 3 (ME2 vs RF, DT, DT_O, DT_U, DT_OU, LSVM, RBFSVM) and Fig. 3"),))

__all__ = ["PAPER", "me2_dual", "me2_primal"]
