"""The convex core of each paper, built as certiprog Models (formulations never import backends).

| paper | functions |
|---|---|
| 000 hinge-minimax | `hinge_minimax`, `background_risk` |
| 001 MCP | `mcp`, `mcp_bracket`, `mcp_simple`, `mcp_slack`, `mcp_model`; manifolds: `LqEllipsoidManifold`, `PointCloudManifold`, `ParametricManifold`, `random_lq_ellipsoids` |
| 002 ME^2 | `me2_primal`, `me2_dual` |
| 003 error clumping | `error_clumping`, `neighbourhood_matrix` |
| 004 MPM, HP-MPM | `mpm`, `hp_mpm`, `solve_hp_mpm`, `kernel_mpm`, `kernel_hp_mpm` |
"""
from .error_clumping import error_clumping, neighbourhood_matrix
from .hinge_minimax import background_risk, hinge_minimax
from .manifolds import LqEllipsoidManifold, ParametricManifold, PointCloudManifold, random_lq_ellipsoids
from .mcp import mcp, mcp_bracket, mcp_model, mcp_simple, mcp_slack
from .me2 import me2_dual, me2_primal
from .hp_mpm import hp_mpm, solve_hp_mpm
from .kernels import kernel_hp_mpm, kernel_mpm
from .mpm import mpm

__all__ = ["background_risk", "error_clumping", "hinge_minimax", "mcp", "mcp_bracket", "me2_dual", "me2_primal",
           "hp_mpm", "kernel_hp_mpm", "kernel_mpm", "mpm", "neighbourhood_matrix", "solve_hp_mpm",
           "LqEllipsoidManifold", "ParametricManifold", "PointCloudManifold", "mcp_model", "mcp_simple", "mcp_slack",
           "random_lq_ellipsoids"]
