"""The rigorous duality gap of eq. (1) at any point (w, xi), as a verdict: one definition, `solver.certify_error_clumping`.

`solver.certify_error_clumping` (the structured solver's certificate, derivation in its module docstring) raises xi
to a provably feasible point and encloses its objective (the upper end) and the weak-duality value of multipliers
read off the point (the lower end) in ball arithmetic, without Theta^{-1}. Algorithm 1, the Model path (Clarabel,
CVXPY) and the structured solver are all certified by it; here it is wrapped as a `DualityGap` with a verdict.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from certiprog.certify.verdict import Interval

from .solver import certify_error_clumping

__all__ = ["DualityGap", "certified_gap", "from_interval"]


@dataclass(frozen=True)
class DualityGap:
    """A rigorous bracket ``lower <= optimum of eq. (1) <= upper`` (both rounded outward).

    ``objective``: the primal value (floating point) at the repaired point; ``gap = upper - lower``; ``rel_gap`` =
    gap / max(|upper|, tiny) (the structured solver's convention); ``verdict``: ``'certified'`` (both ends finite
    and rel_gap <= ``tol``), ``'bounded'`` (finite but wider), ``'failed'`` (an end is not finite).
    """

    lower: float
    upper: float
    objective: float
    gap: float
    rel_gap: float
    verdict: str
    tol: float

    @property
    def interval(self) -> Interval:
        """``lower <= optimum <= upper`` as certiprog's one rigorous `Interval` (``lo, hi = gap.interval``)."""
        return Interval(float(self.lower), float(self.upper))

    def to_json(self) -> dict:
        return {k: float(v) if isinstance(v, (float, np.floating)) else v for k, v in asdict(self).items()}


def certified_gap(X, y, A, eta, lam, w, xi=None, tol: float = 1e-6, normalisation="printed") -> DualityGap:
    """The rigorous bracket of eq. (1)'s optimum from the point (w, xi) (xi may be None or infeasible: it is
    repaired). ``X`` (m, n), ``y`` in {+1, -1}, ``A`` the neighbourhood graph, ``eta``, ``lam`` as eq. (1);
    ``normalisation``: the reading of Theta (`normalisation.py`)."""
    c = certify_error_clumping(np.asarray(X, float), np.asarray(y, float), A, float(eta), float(lam),
                               np.asarray(w, float), None if xi is None else np.asarray(xi, float),
                               normalisation=normalisation)
    return from_interval(c["lower"], c["upper"], c["objective"], tol)


def from_interval(lower, upper, objective, tol: float = 1e-6) -> DualityGap:
    """A `DualityGap` (with its verdict) from a rigorous interval, e.g. the structured solver's fit."""
    lower, upper = float(lower), float(upper)
    finite = np.isfinite(lower) and np.isfinite(upper)
    gap = float(np.nextafter(upper - lower, np.inf)) if finite else float("inf")
    rel = gap / max(abs(upper), 1e-300) if finite else float("inf")
    verdict = "failed" if not finite else ("certified" if rel <= tol else "bounded")
    return DualityGap(lower, upper, float(objective), gap, float(rel), verdict, float(tol))
