"""The 3-D power cone {(x, y, z): x^a y^(1-a) >= |z|, x, y >= 0}, 0 < a < 1 (Clarabel's PowerConeT, CVXPY's
PowCone3D); dual {(u, v, w): u, v >= 0, (u/a)^a (v/(1-a))^(1-a) >= |w|}."""
from __future__ import annotations

import numpy as np

from ...errors import InputError
from ._power import PowerConeBase


class PowerCone(PowerConeBase):
    """``count`` 3-D power cones with one exponent ``alpha`` (``dim`` = 3)."""

    kind = "pow"

    def __new__(cls, alpha: float, count: int = 1):
        return cls._create(3, count, alpha)

    @classmethod
    def _check(cls, dim, alpha):
        ok = isinstance(alpha, (float, int, np.floating)) and not isinstance(alpha, bool)
        if not (ok and 0 < alpha < 1) or dim != 3:
            raise InputError(f"a pow cone has dim 3 and 0 < alpha < 1; got dim={dim}, alpha={alpha!r}")
        return alpha

    @property
    def weights(self) -> tuple:
        """(alpha, 1 - alpha)."""
        return (self.alpha, 1 - self.alpha)
