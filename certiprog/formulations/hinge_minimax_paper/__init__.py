"""Paper 000: hinge-minimax K-hyperplane and latent classifiers (``shared/papers/000_*``).

programs.py   eq. (8) (one hyperplane against a background's moments) and Thm 1's background-risk QP
khhm.py       Alg. 1 (KHHM: K hyperplanes, greedy + refinement, every sub-problem certified)
lhm.py        Alg. 2 (LHM: C components of K hyperplanes, eq. (25) assignment, eq. (20) per iteration)
estimator.py  KHHMClassifier, LHMClassifier (scikit-learn)
claims.py     every formula, lemma and bound the paper states, checked (``certiprog audit 000``)
Errata (docs/derivations/000.md): Lemma 2 refuted in both parts, Alg. 2's loop sign, the sigmoid gain of
Sec. 4.1, steps of Thms 7, 10 and 11.
"""
from certiprog.papers import Experiment, Paper

from .programs import background_risk, hinge_minimax

PAPER = Paper("000", "Hinge-minimax learners (K hyperplanes, latent models)", __name__,
              claims=(f"{__name__}.claims",), bounds=(f"{__name__}.bounds",),
              estimators={"KHHMClassifier": f"{__name__}.estimator", "LHMClassifier": f"{__name__}.estimator",
                          "LHMNetClassifier": f"{__name__}.estimator_net"},
              experiments=(Experiment("hinge-minimax", f"{__name__}.experiment",
                                      "000: Tables 1-2, Figs. 5, 7-8; Table 4 / Figs. 10-11 analogues"),))

__all__ = ["PAPER", "background_risk", "hinge_minimax"]
