"""Paper 003: error clumping (``shared/papers/003_*``).

programs.py   eq. (1), the QP with the neighbourhood matrix Theta, and the neighbourhood graph
claims.py     the paper's statements, checked (``certiprog audit 003``)
Errata (docs/derivations/003.md): Alg. 1's w-step as printed diverges, xi_1 = 0 is infeasible, the quadratic
rewrite drops terms, hole punching can stall, Thm 1 needs disjoint g_j.
"""
from certiprog.papers import Paper

from .programs import error_clumping, neighbourhood_matrix

PAPER = Paper("003", "Error clumping", __name__, claims=(f"{__name__}.claims",))

__all__ = ["PAPER", "error_clumping", "neighbourhood_matrix"]
