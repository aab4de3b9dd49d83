"""Typed results of a check: `Verdict` (strength x kind) and `Interval` (a rigorous [lower, upper]).

Both stay compatible with what users already write: a `Verdict` is a string enum whose values are the words
`check` has always returned (``cert.verdict == "certified"``, ``v.startswith("accurate")`` keep working, and
JSON writes the word); an `Interval` is a named tuple (``lo, hi = cert.interval``).
"""
from __future__ import annotations

from enum import Enum
from typing import NamedTuple

STRENGTHS = ("certified", "accurate", "inaccurate", "failed")
KINDS = ("optimality", "infeasibility", "unboundedness")


class Verdict(str, Enum):
    """What the certificate established, from strong to weak (module `certiprog.certify.kkt` defines each).

    ``strength``: certified (proved), accurate (residuals within tol, nothing proved), inaccurate (within
    tol_inaccurate), failed. ``kind``: what it is about: optimality, infeasibility or unboundedness."""

    CERTIFIED = "certified"
    ACCURATE = "accurate"
    INACCURATE = "inaccurate"
    FAILED = "failed"
    CERTIFIED_INFEASIBLE = "certified_infeasible"
    ACCURATE_INFEASIBLE = "accurate_infeasible"
    INACCURATE_INFEASIBLE = "inaccurate_infeasible"
    CERTIFIED_UNBOUNDED = "certified_unbounded"
    ACCURATE_UNBOUNDED = "accurate_unbounded"
    INACCURATE_UNBOUNDED = "inaccurate_unbounded"

    def __str__(self) -> str:
        return self.value

    @property
    def strength(self) -> str:
        """The verdict's rung: 'certified', 'accurate', 'inaccurate' or 'failed'."""
        return self.value.split("_", 1)[0]

    @property
    def kind(self) -> str:
        """What the verdict is about: 'optimality', 'infeasibility' or 'unboundedness'."""
        tail = self.value.split("_", 1)[1] if "_" in self.value else ""
        return {"infeasible": "infeasibility", "unbounded": "unboundedness"}.get(tail, "optimality")

    @property
    def proved(self) -> bool:
        """True when the verdict is a proof (strength 'certified')."""
        return self.strength == "certified"


class Interval(NamedTuple):
    """A rigorous enclosure of the optimum: ``lower <= optimum <= upper`` (either end may be infinite)."""

    lower: float
    upper: float

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower

    @property
    def finite(self) -> bool:
        """True when both ends are finite."""
        return abs(self.lower) < float("inf") and abs(self.upper) < float("inf")
