"""Certificates: check a Solution against the conic data, never trusting the solver's status.

`check(model_or_problem, solution)` -> `Certificate` (KKT measures, verdict, rigorous optimality interval);
`optimality_interval` (rigorous bounds, `duality`); `recover_duals` (duals from a primal point, `recovery`).
"""
from .duality import OptimalityInterval, optimality_interval, variable_box
from .kkt import DEFAULT_TOL, DEFAULT_TOL_INACCURATE, BlockReport, Certificate, check, kkt_measures
from .recovery import recover_duals

__all__ = ["BlockReport", "Certificate", "DEFAULT_TOL", "DEFAULT_TOL_INACCURATE", "OptimalityInterval", "check",
           "kkt_measures", "optimality_interval", "recover_duals", "variable_box"]
