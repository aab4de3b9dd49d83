"""Certificates: check a Solution against the conic data, never trusting the solver's status.

`check(model_or_problem, solution)` -> `Certificate` (scale-free KKT measures, rigorous optimality interval, and a
verdict: ``certified`` only when the interval proves the objective, ``accurate`` for residuals alone, then
``inaccurate`` / ``failed``); `optimality_interval` (rigorous bounds, `duality`); `psd_certificate` (P proved PD,
PSD up to a shift, or indefinite); `recover_duals` (duals from a primal point, `recovery`); ball arithmetic with
proved rounding bounds in `rigorous`.
"""
from .duality import OptimalityInterval, PsdCertificate, optimality_interval, psd_certificate, variable_box
from .kkt import DEFAULT_TOL, DEFAULT_TOL_INACCURATE, BlockReport, Certificate, check, kkt_measures
from .recovery import recover_duals
from .verdict import Interval, Verdict

__all__ = ["BlockReport", "Certificate", "DEFAULT_TOL", "DEFAULT_TOL_INACCURATE", "Interval", "OptimalityInterval",
           "PsdCertificate", "Verdict", "check", "kkt_measures", "optimality_interval", "psd_certificate",
           "recover_duals", "variable_box"]
