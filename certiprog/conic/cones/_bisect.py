"""Vectorised bisection, shared by the exponential and power cones' projections."""
from __future__ import annotations

import numpy as np


def bisect(lo: np.ndarray, hi: np.ndarray, root_above) -> tuple:
    """Bisection of the brackets [lo, hi] down to adjacent floats (200 halvings at most): each step keeps the upper
    half where ``root_above(mid)`` is True, the lower half elsewhere. Returns the final (lo, hi)."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.all((mid == lo) | (mid == hi)):
            break
        up = root_above(mid)
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    return lo, hi
