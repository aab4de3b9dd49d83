"""The nonnegative orthant (inequality rows, s >= 0); self-dual."""
from __future__ import annotations

import numpy as np

from ._balls import lower
from .base import Cone


class NonnegCone(Cone):
    """``count`` copies of R^dim_+ (compiled models use one copy of all inequality rows)."""

    kind = "nonneg"
    self_dual = True
    separable = True
    dual_description = "itself (self-dual)"

    def __new__(cls, dim: int, count: int = 1):
        return cls._create(dim, count, None)

    def _project(self, P):
        return np.maximum(P, 0.0)

    def _unit(self):
        return np.ones(self.dim)

    def linear_cuts(self):
        """-s <= 0."""
        return -np.eye(self.dim)

    def _margin(self, S):
        """min_i s_i."""
        return np.min(S, axis=1, initial=np.inf)

    def _contains(self, M, R):
        return np.all(lower(M, R) >= 0)

    def contains_exactly(self, v) -> bool:
        return bool(np.all(self._parts(v, "v") >= 0))

    def plausibly_contains(self, M) -> bool:
        return bool(np.all(np.asarray(M) >= 0))

    def _dual_nudge(self, V):
        return np.maximum(V, 0.0)
