"""One package per paper; each holds its programs, algorithms, estimators, claims, experiment and plots.

| paper | package | builders |
|---|---|---|
| 000 hinge-minimax | `hinge_minimax_paper` | `hinge_minimax`, `background_risk` |
| 001 MCP | `mcp_paper` | `mcp`, `mcp_bracket`, `mcp_simple`, `mcp_slack`, `mcp_model`; manifolds: `LqEllipsoidManifold`, `PointCloudManifold`, `ParametricManifold`, `random_lq_ellipsoids` |
| 002 ME^2 | `me2_paper` | `me2_primal`, `me2_dual` |
| 003 error clumping | `error_clumping_paper` | `error_clumping`, `neighbourhood_matrix` |
| 004 MPM, HP-MPM | `hp_mpm_paper` | `mpm`, `hp_mpm`, `solve_hp_mpm`, `kernel_mpm`, `kernel_hp_mpm` |

A paper imports only the core's public API; the core finds papers through entry points (`certiprog.papers`).
The names above are resolved lazily (module ``__getattr__``): importing one paper does not import the others.
"""
import importlib

# name -> the paper package that defines it; imported on first use, so importing one paper (or one of its modules)
# does not import the other four
_HOMES = {
    "error_clumping": "error_clumping_paper", "neighbourhood_matrix": "error_clumping_paper",
    "background_risk": "hinge_minimax_paper", "hinge_minimax": "hinge_minimax_paper",
    "hp_mpm": "hp_mpm_paper", "kernel_hp_mpm": "hp_mpm_paper", "kernel_mpm": "hp_mpm_paper", "mpm": "hp_mpm_paper",
    "solve_hp_mpm": "hp_mpm_paper",
    "LqEllipsoidManifold": "mcp_paper", "ParametricManifold": "mcp_paper", "PointCloudManifold": "mcp_paper",
    "mcp": "mcp_paper", "mcp_bracket": "mcp_paper", "mcp_model": "mcp_paper", "mcp_simple": "mcp_paper",
    "mcp_slack": "mcp_paper", "random_lq_ellipsoids": "mcp_paper",
    "me2_dual": "me2_paper", "me2_primal": "me2_paper",
}

__all__ = ["background_risk", "error_clumping", "hinge_minimax", "mcp", "mcp_bracket", "me2_dual", "me2_primal",
           "hp_mpm", "kernel_hp_mpm", "kernel_mpm", "mpm", "neighbourhood_matrix", "solve_hp_mpm",
           "LqEllipsoidManifold", "ParametricManifold", "PointCloudManifold", "mcp_model", "mcp_simple", "mcp_slack",
           "random_lq_ellipsoids"]


def __getattr__(name):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
