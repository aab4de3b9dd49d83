"""Random Lq ellipsoids (Sec. 4.1's generator) and uniform draws from them.
"""
from __future__ import annotations

import numpy as np

from certiprog.model.index_sets import sample_lq_ball


def random_ellipsoids(P: int, N: int, D: int, R0: float, q: float, rng) -> dict:
    """Paper Sec. 4.1 (`certiprog.formulations.mcp_paper.manifolds.lq_ellipsoid_geometry`: centres and bases i.i.d.
    N(0, I_N), radii ~ U[0.5 R0, 1.5 R0], ceil(P/2) positive labels at random positions). Returns dict(centers (P, N),
    bases (P, N, D), radii (P, D), labels (P,), q)."""
    from certiprog.formulations.mcp_paper.manifolds import lq_ellipsoid_geometry

    return lq_ellipsoid_geometry(P, N, D, R0, q, np.random.default_rng(rng)).as_dict()


def sample_ellipsoids(geom: dict, n: int, rng) -> tuple:
    """n uniform points of every manifold: X (P n, N) (manifold-major) and their labels y (P n,)."""
    P, N, D = geom["bases"].shape
    s = sample_lq_ball(P * n, D, geom["q"], rng).reshape(P, n, D) * geom["radii"][:, None, :]
    X = geom["centers"][:, None, :] + np.einsum("pnd,pkd->pnk", s, geom["bases"])
    return X.reshape(P * n, N), np.repeat(geom["labels"], n)
