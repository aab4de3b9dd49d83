"""The zero cone {0} (equality rows, s = 0); its dual is the whole space."""
from __future__ import annotations

import numpy as np

from ._balls import lower, upper
from .base import Cone


class ZeroCone(Cone):
    """``count`` copies of {0} in R^dim (compiled models use one copy of all equality rows)."""

    kind = "zero"
    separable = True
    dual_description = "R^dim (every point)"

    def __new__(cls, dim: int, count: int = 1):
        return cls._create(dim, count, None)

    def _project(self, P):
        return np.zeros_like(P)

    def _project_dual(self, P):
        return P.copy()

    def _unit(self):
        """The zero cone has no interior: its only point, 0, is returned (its relative interior)."""
        return np.zeros(self.dim)

    def _dual_unit(self):
        return np.zeros(self.dim)

    def linear_cuts(self):
        """s <= 0 and -s <= 0."""
        return np.vstack([np.eye(self.dim), -np.eye(self.dim)])

    def dual_as_primal(self):
        return None

    def _margin(self, S):
        """-max |s_i|: the only point, 0, has margin 0; nothing is inside."""
        return -np.max(np.abs(S), axis=1, initial=0.0)

    def _contains(self, M, R):
        return np.all(lower(M, R) >= 0) and np.all(upper(M, R) <= 0)

    def contains_exactly(self, v) -> bool:
        return bool(np.all(self._parts(v, "v") == 0))

    def _dual_contains(self, M, R):
        return True
