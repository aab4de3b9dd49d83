"""Licence checks shared by the backends that reach a commercial solver (MOSEK, Gurobi), cached per session."""
from __future__ import annotations

import functools
import importlib.util

GUROBI_RESTRICTED = (2000, 200)  # gurobipy's pip licence: variables / constraints; variables with quadratic terms


def mosek() -> str | None:
    """None when MOSEK can solve here, else why not."""
    if importlib.util.find_spec("mosek") is None:
        return "the package 'mosek' is not installed"
    from .mosek_backend import _licence_problem

    return _licence_problem()


@functools.lru_cache(maxsize=1)
def _gurobi_state() -> tuple[str | None, bool]:
    """(why Gurobi cannot run here or None, whether its licence is the size-limited one), by two tiny solves."""
    if importlib.util.find_spec("gurobipy") is None:
        return "the package 'gurobipy' is not installed", False
    import gurobipy

    try:
        with gurobipy.Env(params={"OutputFlag": 0}) as env:
            with gurobipy.Model(env=env) as g:
                g.addVar()
                g.optimize()
            with gurobipy.Model(env=env) as g:
                g.addVars(GUROBI_RESTRICTED[0] + 1)
                try:
                    g.optimize()
                except gurobipy.GurobiError as exc:
                    return None, "size-limited" in str(exc)
    except gurobipy.GurobiError as exc:  # no licence at all
        return f"Gurobi has no usable licence here ({exc})", False
    return None, False


def gurobi() -> str | None:
    """None when Gurobi can solve here (a size-limited licence counts), else why not."""
    return _gurobi_state()[0]


def gurobi_size_limit(needs) -> str | None:
    """Why a problem is too large for gurobipy's size-limited pip licence (None under a full licence or when it
    fits): more than 2000 variables or constraints, or more than 200 variables with quadratic terms (a quadratic
    objective, or second-order cones written as quadratic constraints). Counted on certiprog's conic form: a
    backend that adds variables can still be refused when solving (`choose` then moves on)."""
    if not _gurobi_state()[1]:
        return None
    n = needs.n
    lin, quad = GUROBI_RESTRICTED
    if n > lin or needs.m > lin:
        return f"too large for gurobipy's size-limited licence ({n} variables, {needs.m} rows; limit {lin})"
    if (needs.quadratic or "soc" in needs.cones) and n > quad:
        return (f"too large for gurobipy's size-limited licence ({n} variables with quadratic terms; limit {quad})")
    return None
