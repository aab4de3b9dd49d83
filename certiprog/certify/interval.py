"""A rigorous optimality interval ``lower <= p* <= upper`` from an approximate primal-dual pair
(`optimality_interval`).

The upper end is the objective at a point proved feasible (`certiprog.certify.upper_end`), the lower end weak
duality with a dual proved in the dual cone over a box of bound tightening (`certiprog.certify.lower_end`,
`certiprog.certify.box`); all arithmetic is ball arithmetic with proved rounding bounds, so rounding cannot
invalidate either end. Values are in the user's sense (maximisation flips the interval). The derivation of every
step: docs/derivations/optimality-interval.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .box import variable_box
from .lower_end import lower_bound
from .psd import PsdCertificate
from .upper_end import upper_bound
from .verdict import Interval


@dataclass
class OptimalityInterval:
    """``lower <= optimum <= upper`` in the user's sense, with reasons when an end is infinite."""

    lower: float
    upper: float
    lower_reason: str = ""
    upper_reason: str = ""
    info: dict = field(default_factory=dict)

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower

    @property
    def interval(self) -> Interval:
        """The two ends as certiprog's one rigorous `Interval` (``lo, hi = iv.interval``)."""
        return Interval(float(self.lower), float(self.upper))


def optimality_interval(problem, x, z, x_bound=None, repair: bool = True,
                        psd: PsdCertificate | None = None, width_goal: float | None = None) -> OptimalityInterval:
    """Rigorous bounds on the optimal value of ``problem`` from a primal x and a dual z (user's sense).

    ``psd``: a `psd_certificate` of ``problem.P`` already at hand (computed here otherwise). ``width_goal``: a
    relative width; when given, the lower end is first computed over the cheap box (`variable_box` with
    ``cheap=True``: variable bounds and the objective level set, O(nnz)) and kept when ``upper - lower <=
    width_goal * max(|lower|, |upper|)``; otherwise (and when None) over the box of full bound tightening. Both
    are rigorous; the cheap one is only looser."""
    x, z = np.asarray(x, float).reshape(-1), np.asarray(z, float).reshape(-1)
    if x.shape != (problem.n,) or z.shape != (problem.m,):
        raise InputError(f"x must have {problem.n} entries and z {problem.m}; got {x.size} and {z.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(z))):
        raise InputError("x and z must be finite to bound the optimum")
    U, ureason, uinfo = upper_bound(problem, x, repair=repair)
    L, cheap = -np.inf, None
    if width_goal is not None and np.isfinite(U):  # the cheap box first: enough when the interval is narrow
        lo, hi = variable_box(problem, x_bound, U, cheap=True)
        L, lreason, linfo = lower_bound(problem, x, z, lo, hi, psd=psd, upper=U)
        if not U - L <= width_goal * max(abs(U), abs(L)):
            cheap, L = (lo, hi, L, lreason, linfo), -np.inf
        else:
            linfo["box"] = "cheap"
    if L == -np.inf:
        lo, hi = variable_box(problem, x_bound, U)
        if cheap is not None and np.array_equal(lo, cheap[0]) and np.array_equal(hi, cheap[1]):
            L, lreason, linfo = cheap[2:]  # full tightening found nothing more: the same bound
        else:
            L, lreason, linfo = lower_bound(problem, x, z, lo, hi, psd=psd, upper=U)
    info = {**uinfo, **linfo, "box_finite": int(np.sum(np.isfinite(lo) & np.isfinite(hi))), "n": problem.n}
    if problem.sense < 0:
        return OptimalityInterval(-U, -L, ureason, lreason, info)
    return OptimalityInterval(L, U, lreason, ureason, info)
