"""Paper 002: ME^2, maximal exclusion ellipsoids (``shared/papers/002_*``).

programs.py   Problem 2 (metric learning QP) and its corrected dual, local fits
claims.py     the paper's statements, checked (``certiprog audit 002``)
Errata (docs/derivations/002.md): the printed dual, the eq. (3) sign, the loss with R vs R^2, Prop. 1,
Lemma 3, Thm 2.
"""
from certiprog.papers import Paper

from .programs import me2_dual, me2_primal

PAPER = Paper("002", "ME^2: maximal exclusion ellipsoids", __name__, claims=(f"{__name__}.claims",),
              bounds=(f"{__name__}.bounds",))

__all__ = ["PAPER", "me2_dual", "me2_primal"]
