"""Certification: judge a Solution against certiprog's own conic data, never trusting the solver's status.

`check(model_or_problem, solution)` -> `Certificate`: scale-free KKT measures, a rigorous optimality interval and
a `Verdict` (``certified`` only when the interval proves the objective, ``accurate`` for residuals alone, then
``inaccurate`` / ``failed``). The modules, one idea each:

* `kkt` - the check, its measures and the verdict rule; `verdict` - the `Verdict` and `Interval` types;
* `interval` - `optimality_interval`, from `upper_end` (a point proved feasible: `equalities`, `lift`,
  `interior`) and `lower_end` (weak duality: `dual_cone`, `lagrangian`, `box`, `soc_ball` with `gram`,
  `correction`), with `psd` (what is proved about P) and `cache`; cone membership, the dual nudge, interior
  points, the cones' linear cuts and their boundary functions are methods of the cone classes
  (`certiprog.conic.cones`), so a new cone needs no edit here;
* `recovery` and `polish` - duals from a primal point; `rigorous` - ball arithmetic with proved rounding bounds.

The derivations are in the documentation (docs/derivations/optimality-interval.md). The paper audit (claims,
bounds, symbolic checks) is the separate package `certiprog.audit`.
"""
from .box import variable_box
from .interval import OptimalityInterval, optimality_interval
from .kkt import DEFAULT_TOL, DEFAULT_TOL_INACCURATE, BlockReport, Certificate, check, kkt_measures
from .psd import PsdCertificate, psd_certificate
from .recovery import recover_duals
from .verdict import Interval, Verdict

__all__ = ["BlockReport", "Certificate", "DEFAULT_TOL", "DEFAULT_TOL_INACCURATE", "Interval", "OptimalityInterval",
           "PsdCertificate", "Verdict", "check", "kkt_measures", "optimality_interval", "psd_certificate",
           "recover_duals", "variable_box"]
