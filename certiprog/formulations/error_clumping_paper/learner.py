"""Fit eq. (1) with a chosen solver and certify the answer: the one entry point of the estimators.

``solver``:

* ``'auto'`` (default) or ``'structured'``: the structure-exploiting certified solver of ``solver.py``
  (`solver.solve_error_clumping`: generalised Newton on w with the closed-form xi);
* ``'algorithm1'``: the paper's stochastic primal-dual Algorithm 1, corrected (`algorithm1.algorithm1`);
* ``'<backend>'`` or ``'<backend>:<solver>'``: the Model of `programs.error_clumping` on a certiprog backend
  (``'clarabel'``, ``'cvxpy'``, ``'cvxpy:OSQP'``, ...).

Whatever solved it, the answer is certified the same way: the rigorous duality interval of
`solver.certify_error_clumping` (`gap.certified_gap`; the structured solver returns it itself), never the solver's
status.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from certiprog.certify.verdict import Interval
from certiprog.errors import BackendError, InputError

from .algorithm1 import algorithm1
from .gap import DualityGap, certified_gap, from_interval
from .normalisation import check_normalisation
from .programs import ErrorClumpingData, error_clumping
from .solver import solve_error_clumping

__all__ = ["CertifiedFit", "fit_error_clumping", "resolve_solver"]


@dataclass
class CertifiedFit:
    """What `fit_error_clumping` returns, whatever solved eq. (1): ``w`` (n,), ``xi`` (m,), ``objective``,
    ``certificate`` (a `gap.DualityGap`: its rigorous interval, also as ``interval``), ``solver`` (what ran),
    ``history`` (Algorithm 1's per-pass dicts, or the structured solver's, else []), ``status`` (the solver's own).

    Named ``ErrorClumpingFit`` before issue 22, the name of the structured solver's own result
    (`solver.ErrorClumpingFit`); the old name still works here, with a DeprecationWarning."""

    w: np.ndarray
    xi: np.ndarray
    objective: float
    certificate: DualityGap
    solver: str
    status: str
    history: list = field(default_factory=list)

    @property
    def interval(self) -> Interval:
        """The certificate's rigorous `Interval` on eq. (1)'s optimum (``lo, hi = fit.interval``)."""
        return self.certificate.interval


def __getattr__(name):
    if name == "ErrorClumpingFit":
        import warnings

        warnings.warn("learner.ErrorClumpingFit is now learner.CertifiedFit (solver.ErrorClumpingFit is the "
                      "structured solver's own result)", DeprecationWarning, stacklevel=2)
        return CertifiedFit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def resolve_solver(solver) -> str:
    """The solver that ``solver`` names here (``'auto'`` resolved to ``'structured'``)."""
    if not isinstance(solver, str) or not solver:
        raise InputError(f"solver must be 'auto', 'structured', 'algorithm1', or a backend name such as 'clarabel' "
                         f"(optionally 'backend:solver'); got {solver!r}")
    return "structured" if solver == "auto" else solver


def fit_error_clumping(X, y, rho, eta, lam, solver="auto", graph=None, passes=50, c=None, random_state=None,
                       tol=1e-6, progress=None, normalisation="printed") -> CertifiedFit:
    """Solve eq. (1) on (X, y in {+1, -1}) with ``solver`` (module docstring) and certify the answer.

    ``passes``, ``c``, ``random_state``: Algorithm 1's passes over the data, step constant, seed; ``tol``: the
    relative gap under which the certificate's verdict is 'certified'; ``graph``: a precomputed neighbourhood graph;
    ``normalisation``: Theta's off-diagonal (`normalisation.py`; Algorithm 1 implements the printed one only).
    """
    name = resolve_solver(solver)
    check_normalisation(normalisation)
    if name == "algorithm1" and normalisation != "printed":
        raise InputError(f"solver 'algorithm1' implements Theta as printed (-eta/(m-1)) only; normalisation="
                         f"{normalisation!r} needs solver 'auto' (structured) or a backend")
    if name == "algorithm1":
        res = algorithm1(X, y, rho, eta, lam, passes=passes, c=c, seed=random_state, graph=graph, progress=progress,
                         tol=tol)
        return CertifiedFit(res.w, res.xi, res.objective, res.gap, "algorithm1", "iteration_limit",
                                res.history)
    if name == "structured":
        out = solve_error_clumping(X, y, rho, eta, lam, graph=graph, tol=tol, progress=bool(progress),
                                   normalisation=normalisation)
        cert = from_interval(out.lower, out.upper, out.objective, tol)  # its own certificate: the same definition
        return CertifiedFit(np.asarray(out.w, float), np.asarray(out.xi, float), cert.objective, cert,
                                f"structured:{out.info.get('method', '')}", str(out.status), list(out.history))
    model = error_clumping(X, y, rho, eta, lam, graph=graph, normalisation=normalisation)
    d = model.data
    assert isinstance(d, ErrorClumpingData)
    backend, _, sub = name.partition(":")
    try:
        sol = model.solve(backend=backend, solver=sub or None)
    except InputError as exc:
        raise InputError(f"solver {solver!r}: {exc}") from exc
    if sol.x is None or not np.all(np.isfinite(sol.value("w"))):
        raise BackendError(f"eq. (1) on {name!r} ended with status {sol.status!r} and no point")
    w, xi = np.asarray(sol.value("w"), float), np.asarray(sol.value("xi"), float)
    cert = certified_gap(d.X, d.y, d.A, d.eta, d.lam, w, xi, tol=tol, normalisation=d.graph or "printed")
    return CertifiedFit(w, xi, cert.objective, cert, f"{sol.backend}:{sol.solver}", str(sol.status), [])

