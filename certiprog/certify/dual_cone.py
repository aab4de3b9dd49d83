"""A solver's dual moved into the dual cone K* until membership is proved (`dual_in_cone`).

The lower end of the optimality interval needs a dual that is *exactly* in K* (weak duality): each block's dual is
projected onto K* and nudged inward by its cone (`certiprog.conic.cones.Cone.dual_nudge`: nonneg clipped, SOC head
raised above a bound of the body's norm, PSD ``mu I`` added until an interval Cholesky succeeds, power cones
``|w|`` shrunk, exponential cone ``w`` raised or the point moved to the face ``u = 0``), so that
`Cone.dual_contains` proves it. The derivation: docs/derivations/optimality-interval.md (the dual).
"""
from __future__ import annotations

import numpy as np

from ..conic.cones import project


def dual_in_cone(problem, z: np.ndarray) -> tuple[np.ndarray, float]:
    """z projected onto K* and nudged so that membership is proved; returns (z, ||change||). A block holding NaN
    or inf is only projected (NaN stays NaN: nothing is proved from it)."""
    zz = np.array(z, float)
    for blk in problem.blocks:
        c, r = blk.cone, slice(blk.start, blk.stop)
        v = zz[r]
        zz[r] = c.dual_nudge(v) if np.all(np.isfinite(v)) else project(c, v, dual=True)
    return zz, float(np.linalg.norm(zz - z))
