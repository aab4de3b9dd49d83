"""PIQP (proximal interior point, LP and QP), called directly on certiprog's conic form.

Zero rows become PIQP's equalities ``A_eq x = b_eq``, nonneg rows its inequalities ``G x <= h``. PIQP has a
sparse and a dense interface; ``solver='auto'`` (the default) picks the dense one when the constraint matrix is
dense enough that a dense Cholesky (LAPACK-speed, n x n) beats sparse LDL: cutting-plane masters whose cut rows are
full-length points (001 MCP: 0.16 s against 2.6 s for sparse LDL at n = 548, m = 1008). ``'dense'`` / ``'sparse'``
force one. Options are PIQP settings (``eps_abs``, ``eps_rel``, ``max_iter``, ...).

Duals: PIQP's Lagrangian is f + y'(A_eq x - b_eq) + z_u'(G x - h); certiprog's z (f - <z, b - A x>, z in K*) is
y on zero rows and z_u on nonneg rows. PIQP returns no infeasibility certificate (Farkas ray), so an infeasible
or unbounded status is the solver's word; ``check()`` certifies only optimal answers.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ...errors import BackendError, OptionError
from ..registry import LINEAR, Backend, SolverCapabilities, register
from .common import make_solution
from .options import pop_time_limit, set_options

SOLVERS = ("auto", "dense", "sparse")
DENSE_MAX_N = 2000  # dense n x n factorisations above this size cost more than they save
DENSE_MIN_FILL = 0.2  # fraction of nonzeros in [P; A] from which 'auto' goes dense (MCP masters: ~0.5; a hinge
#                       point SVM with 2400 points, n = 2890, is 5 % full and 2.5x slower dense than on Clarabel)
PREFERRED_MIN_ENTRIES = 20_000  # (n + m) n from which certiprog's choice puts PIQP before Clarabel on a dense LP/QP:
#                       a 0.5 ||w||^2 QP with dense rows, n = 100, m = 200: Clarabel 0.06 s, PIQP 0.004 s; at
#                       n = 50, m = 100 both take milliseconds; n = 500, m = 1000: 2.9 s against 0.11 s


def _status_key(status) -> str:
    import piqp

    return {piqp.PIQP_SOLVED: "optimal", piqp.PIQP_MAX_ITER_REACHED: "iteration_limit",
            piqp.PIQP_PRIMAL_INFEASIBLE: "infeasible", piqp.PIQP_DUAL_INFEASIBLE: "unbounded"}.get(
        status, "numerical_error")


def choose_interface(problem) -> str:
    """'dense' or 'sparse' for ``solver='auto'``: dense when n <= 2000 and [P; A] is at least 20 % full."""
    n, m = problem.n, problem.m
    if n > DENSE_MAX_N:
        return "sparse"
    fill = (problem.P.nnz + problem.A.nnz) / max(1, (n + m) * n)
    return "dense" if fill >= DENSE_MIN_FILL else "sparse"


def dense_pays(problem) -> bool:
    """Whether PIQP's dense interface should be tried before a sparse interior point (`registry.choose`): the
    'auto' interface is dense and the problem has at least PREFERRED_MIN_ENTRIES entries (n + m) n."""
    return choose_interface(problem) == "dense" and (problem.n + problem.m) * problem.n >= PREFERRED_MIN_ENTRIES


def solve_piqp(problem, solver=None, options=None):
    import piqp

    kinds = problem.row_kinds()
    if not np.isin(kinds, ("zero", "nonneg")).all():  # a direct call must not read cone rows as inequalities
        raise BackendError(f"piqp solves LPs and QPs only; this problem has cone(s) "
                           f"{sorted(set(kinds) - {'zero', 'nonneg'})}")
    interface = choose_interface(problem) if solver in (None, "auto") else solver
    eq = kinds == "zero"
    A = problem.A.tocsr()
    A_eq, b_eq, G, h = A[eq], problem.b[eq], A[~eq], problem.b[~eq]
    P = problem.P
    if interface == "dense":
        box = piqp.DenseSolver()
        conv = lambda M: np.asfortranarray(M.toarray()) if M.shape[0] else None  # noqa: E731
        P = np.asfortranarray(P.toarray())
    else:
        box = piqp.SparseSolver()
        conv = lambda M: M.tocsc() if M.shape[0] else None  # noqa: E731
        P = sp.triu(P, format="csc")
    box.settings.verbose = False
    options = dict(options or {})
    if pop_time_limit(options, "piqp") is not None:
        raise OptionError("piqp has no time limit (its settings have none, and a running solve cannot be "
                           "interrupted); use backend='clarabel' (time_limit) or bound the work with max_iter")
    set_options(box.settings, options, "piqp")
    t0 = time.perf_counter()
    box.setup(P, problem.q, conv(A_eq), b_eq if eq.any() else None, conv(G), None, h if (~eq).any() else None)
    status = box.solve()
    elapsed = time.perf_counter() - t0
    res = box.result
    key = _status_key(status)
    x = np.array(res.x)
    z = np.empty(problem.m)
    z[eq] = np.array(res.y)[: int(eq.sum())]
    z[~eq] = np.array(res.z_u)[: int((~eq).sum())]
    s = problem.b - problem.A @ x
    s[eq] = 0.0
    s[~eq] = np.maximum(s[~eq], 0.0)
    return make_solution(problem, key, x, z, s, backend="piqp", solver=interface, version=_version(),
                         iterations=int(res.info.iter), solve_time=elapsed,
                         info={"solver_status": str(status), "interface": interface})


def _version() -> str:
    from importlib.metadata import version

    return version("piqp")


#: PIQP's defaults stop at 1e-8 (residuals and duality gap); 002's me2_dual on Pima then leaves an interval 8.5e-9
#: wide around 6.6e-3, above tol 1e-6 relative: one more solve at 1e-10 certifies it (2 ms)
REFINE = {"eps_abs": 1e-10, "eps_rel": 1e-10, "eps_duality_gap_abs": 1e-10, "eps_duality_gap_rel": 1e-10}

register(Backend(
    name="piqp", solve=solve_piqp, cones=LINEAR, duals=True, warm_start=False, licence=None,
    requires=("piqp",), solvers=lambda: list(SOLVERS),
    capabilities={name: SolverCapabilities("piqp", cones=LINEAR, duals=True, rays=False, preferred=dense_pays,
                                           refine=REFINE)
                  for name in SOLVERS},
))
