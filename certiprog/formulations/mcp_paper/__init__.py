"""Paper 001: MCP, cutting-plane learning of data manifolds (``shared/papers/001_*``).

programs.py         the semi-infinite QP (2.1, 3.1): exact robust counterpart, Alg. 1 / 2 (cutting planes)
manifolds.py        Lq ellipsoid, point-cloud and parametric manifolds, and the library generator
estimator.py        ManifoldClassifier (fits on manifolds, predicts points)
experiment.py       ``certiprog reproduce mcp`` (Figs. 3 / 4); image_manifolds.py its image data
claims.py           the paper's statements, checked (``certiprog audit 001``)
Errata: docs/derivations/001.md.
"""
from certiprog.papers import Experiment, Paper

from .manifolds import LqEllipsoidManifold, ParametricManifold, PointCloudManifold, random_lq_ellipsoids
from .programs import mcp, mcp_bracket, mcp_model, mcp_simple, mcp_slack

PAPER = Paper("001", "MCP: cutting-plane learning of data manifolds", __name__,
              claims=(f"{__name__}.claims",),
              experiments=(Experiment("mcp", f"{__name__}.experiment",
                                      "001: Fig. 3/4 (Lq ellipsoid manifolds), image manifolds"),),
              estimators={"ManifoldClassifier": f"{__name__}.estimator"})

__all__ = ["PAPER", "LqEllipsoidManifold", "ParametricManifold", "PointCloudManifold", "mcp", "mcp_bracket",
           "mcp_model", "mcp_simple", "mcp_slack", "random_lq_ellipsoids"]
