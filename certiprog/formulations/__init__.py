"""The convex core of each paper, built as certiprog Models (formulations never import backends).

| paper | functions |
|---|---|
| 000 hinge-minimax | `hinge_minimax`, `background_risk` |
| 001 MCP | `mcp`, `mcp_bracket` |
| 002 ME^2 | `me2_primal`, `me2_dual` |
| 003 error clumping | `error_clumping`, `neighbourhood_matrix` |
| 004 MPM | `mpm` |
"""
from .error_clumping import error_clumping, neighbourhood_matrix
from .hinge_minimax import background_risk, hinge_minimax
from .mcp import mcp, mcp_bracket
from .me2 import me2_dual, me2_primal
from .mpm import mpm

__all__ = ["background_risk", "error_clumping", "hinge_minimax", "mcp", "mcp_bracket", "me2_dual", "me2_primal",
           "mpm", "neighbourhood_matrix"]
