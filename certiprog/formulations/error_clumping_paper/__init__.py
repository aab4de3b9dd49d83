"""Paper 003: error clumping (``shared/papers/003_*``).

programs.py       eq. (1), the QP with the neighbourhood matrix Theta, and the neighbourhood graph
normalisation.py  Theta's readings (printed -eta/(m-1), dmax, symmetric, max, row): PSD ranges proved, rigorous
                  lambda_max bound (the limit of any discount), used by programs, solver and estimators
graph.py          the exact rho-graph: blocked float32 BLAS distances + rigorous recheck (radius_graph), rho_for_mean_degree
solver.py         the structured certified solver of eq. (1): ``solve_error_clumping(X, y, rho, eta, lam, graph=None, *,
                  tol=1e-6, method='newton'|'agd', w0=None, max_iter=None, progress=False) -> ErrorClumpingFit``
                  (w, xi proved feasible, objective, lower <= p* <= upper rigorous, rel_gap, status, certified,
                  iterations, history, info); ``solve_error_clumping_path`` warm-starts along etas or lams
algorithm1.py     the paper's stochastic primal-dual Algorithm 1, corrected (w-step, feasible start)
gap.py            the rigorous duality gap of eq. (1) at any point (no Theta^-1)
learner.py        eq. (1) by a chosen solver, certified by gap.py
hole_punching.py  Sec. 5.2: the piecewise predictor of eq. (6) with ball holes (and the stall rule)
estimator.py      ErrorClumpingClassifier, HolePunchingClassifier (scikit-learn)
bounds.py         Thm 1 (disjoint holes) as a bound object, evaluated on a fitted hole-punching predictor
plots.py          Alg. 1 vs the solvers: objective and gap against passes; Figs. 1 and 2
experiment.py     ``certiprog reproduce error-clumping`` (Table 1, Figs. 1-2); tables.py the paper's numbers
claims.py         the paper's statements, checked (``certiprog audit 003``)
Errata (docs/derivations/003.md): Alg. 1's w-step as printed diverges, xi_1 = 0 is infeasible, the quadratic
rewrite drops terms, hole punching can stall, Thm 1 needs disjoint g_j.
"""
from certiprog.papers import Experiment, Paper

from .programs import error_clumping, neighbourhood_matrix

PAPER = Paper("003", "Error clumping", __name__, claims=(f"{__name__}.claims",), bounds=(f"{__name__}.bounds",),
              estimators={"ErrorClumpingClassifier": f"{__name__}.estimator",
                          "HolePunchingClassifier": f"{__name__}.estimator"},
              experiments=(Experiment("error-clumping", f"{__name__}.experiment",
                                      "003: Table 1 (per-digit MNIST errors, eta 0/0.3/0.5), Figs. 1 and 2, "
                                      "the Theta-normalisation study"),))

__all__ = ["PAPER", "error_clumping", "neighbourhood_matrix"]
