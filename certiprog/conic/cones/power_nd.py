"""The n-dimensional power cone {(x, z) in R^n_+ x R: prod x_i^a_i >= |z|}, a_i > 0 summing to 1 (Clarabel's
GenPowerConeT with one z, CVXPY's PowConeND); dim = n + 1; dual {(u, w): u >= 0, prod (u_i / a_i)^a_i >= |w|}."""
from __future__ import annotations

import math

import numpy as np

from ...errors import InputError
from ._power import PowerConeBase


def nd_alpha(alpha, dim) -> tuple:
    """The weights of a pownd cone as a tuple of floats, checked: dim - 1 >= 1 entries, positive, summing to 1."""
    try:
        a = np.asarray(alpha, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InputError(f"a pownd cone's alpha must be an array of positive weights summing to 1; "
                         f"got {alpha!r}") from None
    if a.size < 1 or a.size != dim - 1 or not np.all(np.isfinite(a)) or np.any(a <= 0) \
            or abs(a.sum() - 1.0) > 1e-12 * a.size:
        raise InputError(f"a pownd cone has dim n + 1 and n positive weights alpha summing to 1; got dim={dim}, "
                         f"alpha={alpha!r}")
    # Clarabel panics unless the weights' float sum is 1 within n eps / 2: rescale, and put the rounding into the
    # largest weight so that summing in order gives 1 (the cone changes by O(eps) at most)
    a = a / math.fsum(a)
    k = int(np.argmax(a))
    a[k] = 0.0
    a[k] = 1.0 - math.fsum(a)
    return tuple(float(t) for t in a)


class PowerConeND(PowerConeBase):
    """``count`` n-dimensional power cones with one weight vector ``alpha`` (n entries; ``dim`` = n + 1)."""

    kind = "pownd"

    def __new__(cls, alpha, count: int = 1):
        n = np.size(alpha) if np.ndim(alpha) else 0
        return cls._create(n + 1, count, alpha)

    @classmethod
    def _check(cls, dim, alpha):
        return nd_alpha(alpha, dim)

    @property
    def weights(self) -> tuple:
        """alpha (a tuple of floats summing to 1 in floating point)."""
        return tuple(self.alpha)
