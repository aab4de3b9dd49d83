"""A solver's dual moved into the dual cone K* until membership is proved (`dual_in_cone`).

The lower end of the optimality interval needs a dual that is *exactly* in K* (weak duality): the dual is
projected onto K* and nudged (nonneg: clipped; SOC: the head raised above an upper bound of the body's norm; PSD:
``mu I`` added until an interval Cholesky succeeds; power cones: ``|w|`` shrunk; exponential cone: ``w`` raised or
the point moved to the face ``u = 0``). The derivation: docs/derivations/optimality-interval.md (the dual).
"""
from __future__ import annotations

import numpy as np

from ..conic.cones import project
from .membership import arb_class, arb_hi, arb_lo, chol_pd, dual_power_mean, smat_arb, soc_norm_hi


def dual_in_cone(problem, z: np.ndarray) -> tuple[np.ndarray, float]:
    """z projected onto K* and nudged so that membership is proved; returns (z, ||change||)."""
    arb = arb_class() if any(b.cone.kind in ("psd", "pow", "pownd", "exp") for b in problem.blocks) else None
    zz = np.array(z, float)
    for blk in problem.blocks:
        c, r = blk.cone, slice(blk.start, blk.stop)
        if c.kind == "zero":
            continue
        v = project(c, zz[r], dual=True)
        if c.kind == "nonneg":
            v = np.maximum(v, 0.0)
        elif c.kind == "soc":
            v = v.reshape(c.count, c.dim)
            if c.dim > 1:
                v[:, 0] = np.maximum(v[:, 0], soc_norm_hi(v))
            v = v.reshape(-1)
        elif c.kind == "psd":
            v = v.reshape(c.count, c.dim)
            n = c.side
            diag = np.array([j * (j + 1) // 2 + j for j in range(n)])
            for p in v:
                mu, base = 0.0, p.copy()
                scale = 1.0 + np.abs(p).max()
                while not chol_pd(smat_arb([arb(float(t)) for t in p], n)):
                    mu = 1e-15 * scale if mu == 0 else mu * 10
                    p[:] = base
                    p[diag] += mu
            v = v.reshape(-1)
        elif c.kind in ("pow", "pownd"):  # K* = {(u, w): u >= 0, prod (u_i/a_i)^a_i >= |w|}: shrink |w|
            v = v.reshape(c.count, c.dim)
            a = c.weights
            for p in v:
                if np.any(p[:-1] <= 0):
                    p[:-1], p[-1] = np.maximum(p[:-1], 0.0), 0.0
                    continue
                g = dual_power_mean(a, [arb(float(u)) for u in p[:-1]])
                p[-1] = np.sign(p[-1]) * min(abs(p[-1]), max(arb_lo(g), 0.0))
            v = v.reshape(-1)
        elif c.kind == "exp":  # K* = {u < 0, -u exp(v/u) <= e w} u {u = 0, v >= 0, w >= 0}: raise w
            v = v.reshape(c.count, 3)
            for p in v:
                if p[0] >= 0:
                    p[0], p[1], p[2] = 0.0, max(p[1], 0.0), max(p[2], 0.0)
                    continue
                u = arb(float(p[0]))
                need = arb_hi((-u) * (arb(float(p[1])) / u - 1).exp())  # w >= -u exp(v/u - 1)
                if np.isfinite(need):
                    p[2] = max(p[2], need)
                else:  # u ~ 0 with v > 0: exp(v/u) overflows; the face u = 0 is in K* (v, w >= 0)
                    p[0], p[1], p[2] = 0.0, max(p[1], 0.0), max(p[2], 0.0)
            v = v.reshape(-1)
        zz[r] = v
    return zz, float(np.linalg.norm(zz - z))
