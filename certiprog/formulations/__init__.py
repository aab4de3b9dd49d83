"""One package per paper; each holds its programs, algorithms, estimators, claims, experiment and plots.

| paper | package | builders |
|---|---|---|
| 000 hinge-minimax | `hinge_minimax_paper` | `hinge_minimax`, `background_risk` |
| 001 MCP | `mcp_paper` | `mcp`, `mcp_bracket`, `mcp_simple`, `mcp_slack`, `mcp_model`; manifolds: `LqEllipsoidManifold`, `PointCloudManifold`, `ParametricManifold`, `random_lq_ellipsoids` |
| 002 ME^2 | `me2_paper` | `me2_primal`, `me2_dual` |
| 003 error clumping | `error_clumping_paper` | `error_clumping`, `neighbourhood_matrix` |
| 004 MPM, HP-MPM | `hp_mpm_paper` | `mpm`, `hp_mpm`, `solve_hp_mpm`, `kernel_mpm`, `kernel_hp_mpm` |

A paper imports only the core's public API; the core finds papers through entry points (`certiprog.papers`).
"""
from .error_clumping_paper import error_clumping, neighbourhood_matrix
from .hinge_minimax_paper import background_risk, hinge_minimax
from .hp_mpm_paper import hp_mpm, kernel_hp_mpm, kernel_mpm, mpm, solve_hp_mpm
from .mcp_paper import (
                  LqEllipsoidManifold,
                  ParametricManifold,
                  PointCloudManifold,
                  mcp,
                  mcp_bracket,
                  mcp_model,
                  mcp_simple,
                  mcp_slack,
                  random_lq_ellipsoids,
)
from .me2_paper import me2_dual, me2_primal

__all__ = ["background_risk", "error_clumping", "hinge_minimax", "mcp", "mcp_bracket", "me2_dual", "me2_primal",
           "hp_mpm", "kernel_hp_mpm", "kernel_mpm", "mpm", "neighbourhood_matrix", "solve_hp_mpm",
           "LqEllipsoidManifold", "ParametricManifold", "PointCloudManifold", "mcp_model", "mcp_simple", "mcp_slack",
           "random_lq_ellipsoids"]
