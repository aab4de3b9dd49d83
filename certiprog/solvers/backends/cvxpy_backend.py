"""CVXPY, built from certiprog's conic form: one CVXPY constraint per conic block.

Cones are emitted natively (``cp.SOC``, ``>> 0``, ``cp.PowCone3D``, ``ExpCone``, ``PowConeND``) so that every
cone's full dual comes back; duals are mapped to certiprog's convention
(CVXPY's equality multipliers have the opposite sign). Any installed CVXPY
solver can be named with ``solver=``; without one certiprog chooses among those in `CAPABILITIES`.
"""
from __future__ import annotations

import functools
import importlib.util
import time
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from ...conic.cones import (
    Cone,
    ExponentialCone,
    NonnegCone,
    PowerCone,
    PowerConeND,
    PsdCone,
    SecondOrderCone,
    ZeroCone,
    svec,
)
from ...errors import BackendError, OptionError
from ..registry import LINEAR, Backend, SolverCapabilities, register
from . import licences
from .common import make_solution
from .options import check_value, pop_time_limit

_STATUS = {
    "optimal": "optimal", "optimal_inaccurate": "inaccurate",
    "infeasible": "infeasible", "infeasible_inaccurate": "infeasible_inaccurate",
    "unbounded": "unbounded", "unbounded_inaccurate": "unbounded_inaccurate",
    "user_limit": "iteration_limit", "infeasible_or_unbounded": "infeasible_or_unbounded",
}


def _smat_operator(n: int) -> sp.csr_matrix:
    """Linear map from the scaled upper triangle to vec_F of the symmetric matrix."""
    rows, cols, vals = [], [], []
    k = 0
    for j in range(n):
        for i in range(j + 1):
            if i == j:
                rows.append(j * n + i)
                cols.append(k)
                vals.append(1.0)
            else:
                w = 1.0 / np.sqrt(2.0)
                rows += [j * n + i, i * n + j]
                cols += [k, k]
                vals += [w, w]
            k += 1
    return sp.csr_matrix((vals, (rows, cols)), shape=(n * n, k))


def _by_row(cp, s, c):
    """The block's slack as a (count, dim) expression, one cone per row."""
    return cp.reshape(s, (c.count, c.dim), order="C")


def _soc(cp, s, c):
    S = _by_row(cp, s, c)
    return cp.SOC(S[:, 0], S[:, 1:], axis=1)


def _soc_dual(dv, c):
    t, X = dv
    return np.hstack([np.reshape(t, (c.count, 1)), np.reshape(X, (c.count, c.dim - 1))]).reshape(-1)


def _psd(cp, s, c):
    n = c.side
    return cp.reshape(_smat_operator(n) @ s, (n, n), order="F") >> 0


def _three(cp, s, c) -> list:
    """The columns (x, y, z) of a block of 3-D cones (CVXPY's PowCone3D and ExpCone have certiprog's order)."""
    S = _by_row(cp, s, c)
    return [S[:, 0], S[:, 1], S[:, 2]]


def _three_dual(dv, c):
    parts = ([np.reshape(p, (c.count, 1)) for p in dv] if isinstance(dv, (list, tuple))
             else [np.reshape(dv, (c.count, 3))])
    return np.hstack(parts).reshape(-1)


def _pownd(cp, s, c):  # one cone per column of W (axis=0), z of shape (count,)
    n = c.dim - 1
    S = _by_row(cp, s, c)
    return cp.PowConeND(S[:, :n].T, S[:, n], np.tile(np.asarray(c.alpha)[:, None], (1, c.count)), axis=0)


def _pownd_dual(dv, c):  # CVXPY: [W dual (n, count), z dual (count,)]
    n = c.dim - 1
    Wd, zd = dv
    return np.hstack([np.reshape(Wd, (n, c.count)).T, np.reshape(zd, (c.count, 1))]).reshape(-1)


#: certiprog's cone class -> (its CVXPY constraint on the block's slack s, that constraint's dual value in
#: certiprog's rows and sign; CVXPY's equality multipliers have the opposite sign)
CVXPY_CONES: dict[type[Cone], tuple[Callable, Callable]] = {
    ZeroCone: (lambda cp, s, c: s == 0, lambda dv, c: -np.asarray(dv, float).reshape(-1)),
    NonnegCone: (lambda cp, s, c: s >= 0, lambda dv, c: np.asarray(dv, float).reshape(-1)),
    SecondOrderCone: (_soc, _soc_dual),
    PsdCone: (_psd, lambda dv, c: svec(np.asarray(dv, float))),
    PowerCone: (lambda cp, s, c: cp.PowCone3D(*_three(cp, s, c), c.alpha), _three_dual),
    ExponentialCone: (lambda cp, s, c: cp.constraints.ExpCone(*_three(cp, s, c)), _three_dual),
    PowerConeND: (_pownd, _pownd_dual),
}


def _translation(c):
    entry = CVXPY_CONES.get(type(c))
    if entry is None:
        raise BackendError(f"cvxpy backend: unsupported cone {c.kind!r}")
    return entry


def build_cvxpy(problem):
    """(cp.Problem, x, list of (block, cvxpy constraint)) for a ConicProblem."""
    import cvxpy as cp

    x = cp.Variable(problem.n, name="x")
    A, b = problem.A.tocsr(), problem.b
    cons = []
    for blk in problem.blocks:
        r = slice(blk.start, blk.stop)
        s = b[r] - A[r] @ x if A[r].nnz else cp.Constant(b[r])
        cons.append((blk, _translation(blk.cone)[0](cp, s, blk.cone)))
    obj = problem.q @ x + problem.r0
    if problem.P.nnz:
        obj = obj + 0.5 * cp.quad_form(x, cp.psd_wrap(problem.P))
    return cp.Problem(cp.Minimize(obj), [c for _, c in cons]), x, cons


def _dual_of(blk, con) -> np.ndarray:
    """The block's dual in certiprog's convention; NaN where the solver's dual is missing or malformed
    (the certificates then recover the duals from the primal point)."""
    try:
        return _dual_of_raw(blk, con)
    except (ValueError, TypeError):
        return np.full(blk.cone.rows, np.nan)


def _dual_of_raw(blk, con) -> np.ndarray:
    c = blk.cone
    dv = con.dual_value
    if dv is None:
        return np.full(c.rows, np.nan)
    return _translation(c)[1](dv, c)


# Solvers whose duals CVXPY reports unreliably (SCIP: zeros for active bound rows on LPs, wrong signs on QPs,
# no SOC duals): their duals are dropped, and `certiprog.certificates.check` recovers them from the primal point.
_UNRELIABLE_DUALS = {"SCIP"}


def _refusal(msg: str) -> bool:
    """True for CVXPY errors that mean the solver cannot take this problem or is not allowed to run (licence)."""
    m = msg.lower()
    return any(k in m for k in ("cannot solve", "size-limited", "size limit", "licen", "not installed"))


#: where each solver reads a time limit in seconds: an option name, or (dict option, key) for nested ones
TIME_LIMIT = {"CLARABEL": "time_limit", "SCS": "time_limit_secs", "OSQP": "time_limit", "GUROBI": "TimeLimit",
              "HIGHS": "time_limit", "SCIP": ("scip_params", "limits/time"),
              "MOSEK": ("mosek_params", "MSK_DPAR_OPTIMIZER_MAX_TIME"), "SCIPY": ("scipy_options", "time_limit")}
#: solvers whose infeasible answers carry a Farkas ray in CVXPY's constraint duals (read back as the certificate;
#: ECOS loses its z on failure in CVXPY 1.9, MOSEK's ray sits in extra_stats["IIS"] and is not read)
FARKAS = {"CLARABEL", "SCS"}
#: options certiprog sets unless the caller does: Gurobi decides infeasible vs unbounded (no INF_OR_UNBD)
DEFAULTS = {"GUROBI": {"DualReductions": 0}}


def solver_options(solver: str, options: dict) -> tuple[dict, float | None]:
    """(the options CVXPY passes on, time limit) for ``solver``: values checked (`options.check_value`), certiprog's
    defaults added, ``time_limit`` moved to the solver's own option (TIME_LIMIT)."""
    what = f"cvxpy/{solver}"
    options = dict(options)
    t = pop_time_limit(options, what)
    for k, v in options.items():
        if not isinstance(v, dict):
            check_value(what, k, v)
    options = {**DEFAULTS.get(solver, {}), **options}
    if t is not None:
        where = TIME_LIMIT.get(solver)
        if where is None:
            able = sorted(TIME_LIMIT)
            raise OptionError(f"CVXPY solver {solver} has no time limit; solvers that take time_limit: {able}")
        if isinstance(where, tuple):
            outer, key = where
            options[outer] = {**dict(options.get(outer) or {}), key: t}
        else:
            options[where] = t
    return options, t


def _gurobi_licence_error(problem, exc) -> BackendError | None:
    """A BackendError naming gurobipy's size-limited licence when it is the likely cause of a failed solve
    (CVXPY reports that only as 'Solver GUROBI failed'); None when the licence is a full one or cannot matter."""
    from ..registry import needs

    if not licences._gurobi_state()[1]:
        return None
    why = licences.gurobi_size_limit(needs(problem))
    if why is None and problem.n + problem.m <= licences.GUROBI_RESTRICTED[1]:
        return None
    lin, quad = licences.GUROBI_RESTRICTED
    why = why or (f"likely too large for gurobipy's size-limited licence once CVXPY has rewritten it ({problem.n} "
                  f"variables and {problem.m} rows here; limits {lin} variables/constraints, {quad} with quadratic "
                  "terms)")
    return BackendError(f"CVXPY solver GUROBI: {why}; CVXPY said: {str(exc).rstrip('.')}. Use a full Gurobi licence, "
                        "or another solver (backend='clarabel')")


def _names_an_option(exc: Exception, options) -> bool:
    """Whether a solver's exception is about one of the caller's options (CVXPY passes unknown names on to the
    solver, which refuses them in its own words: 'unrecognized solver setting', 'invalid keyword argument')."""
    text = str(exc)
    return bool(options) and any(str(k) in text for k in (options or {})) or any(
        w in text.lower() for w in ("setting", "keyword argument", "parameter", "option"))


def solve_cvxpy(problem, solver=None, options=None):
    """Solve on the CVXPY solver ``solver``; None: the one certiprog chooses (`certiprog.solvers.solve_conic`).

    An infeasible answer of a solver in FARKAS carries its ray as ``sol.certificate`` (certiprog's z); CVXPY
    returns no primal ray for unbounded answers. ``time_limit`` goes to the solver's own option (TIME_LIMIT)."""
    import cvxpy as cp

    if solver is None:
        from .. import solve_conic

        return solve_conic(problem, "cvxpy", None, **dict(options or {}))
    solver = solver.upper()
    opts, t_limit = solver_options(solver, dict(options or {}))
    t0 = time.perf_counter()
    prob, x, cons = build_cvxpy(problem)
    t_build = time.perf_counter() - t0
    if solver not in cp.installed_solvers():
        raise BackendError(f"CVXPY solver {solver!r} is not installed; installed: {cp.installed_solvers()}")
    t1 = time.perf_counter()
    prob_err = None
    try:
        prob.solve(solver=solver, **opts)
        key = _STATUS.get(prob.status, "numerical_error")
    except cp.error.SolverError as exc:
        if _refusal(str(exc)):
            raise BackendError(f"CVXPY solver {solver} refused the problem: {exc}") from exc
        if solver == "GUROBI":
            err = _gurobi_licence_error(problem, exc)
            if err is not None:
                raise err from exc
        if _names_an_option(exc, options):
            raise OptionError(f"CVXPY solver {solver} rejected an option: {exc}") from None
        key = "numerical_error"
        prob_err = str(exc)
    except Exception as exc:  # a solver's own failure (e.g. MOSEK without a licence): say which and why
        if _names_an_option(exc, options):  # certiprog's own error, without CVXPY's chained traceback
            raise OptionError(f"CVXPY solver {solver} rejected an option: {type(exc).__name__}: {exc}") from None
        raise BackendError(f"CVXPY solver {solver} could not run: {type(exc).__name__}: {exc}") from exc
    elapsed = time.perf_counter() - t1
    if t_limit is not None and elapsed >= t_limit and key in ("iteration_limit", "numerical_error", "inaccurate"):
        key = "time_limit"  # CVXPY says user_limit, fails without a point (SCIP) or 'inaccurate' (SCS): the limit
    xv = x.value if x.value is not None else None
    if solver in _UNRELIABLE_DUALS:
        z = None
    else:
        z = np.concatenate([_dual_of(blk, con) for blk, con in cons]) if cons and xv is not None else np.zeros(0)
    cert = None
    if key.startswith("infeasible") and solver in FARKAS and cons:
        ray = np.concatenate([_dual_of(blk, con) for blk, con in cons])
        cert = ray if np.all(np.isfinite(ray)) else None
    s = problem.b - problem.A @ xv if xv is not None else None
    stats = prob.solver_stats
    info = {"cvxpy_build_time": t_build, "cvxpy_status": prob.status,
            "solver_time": getattr(stats, "solve_time", None)}  # the solver's own time (elapsed adds CVXPY's)
    if solver in _UNRELIABLE_DUALS:
        info["duals"] = f"dropped: CVXPY's {solver} duals are unreliable; certificates recover them"
    if prob_err:
        info["error"] = prob_err
    return make_solution(problem, key, xv, z, s, backend="cvxpy", solver=solver,
                         version=cp.__version__, iterations=getattr(stats, "num_iters", None),
                         solve_time=elapsed, certificate=cert, info=info)


_ALL = frozenset(k.kind for k in CVXPY_CONES)
_SOC = LINEAR | {"soc"}
#: what each CVXPY solver takes through this backend (checked against the installed ones in the tests); CVXPY
#: rewrites a quadratic objective into a cone for conic-only solvers; infeasibility rays come back from the FARKAS
#: solvers (no unboundedness rays: CVXPY keeps no primal point on unbounded answers)
CAPABILITIES = {
    "CLARABEL": SolverCapabilities("clarabel", cones=_ALL, rays=True,  # infeasibility rays only
                                   refine={"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11}),
    "MOSEK": SolverCapabilities("mosek", cones=_ALL, licence=licences.mosek),
    "SCS": SolverCapabilities("scs", cones=_ALL, rays=True),  # infeasibility rays only (pownd: CVXPY rewrites it)
    "CVXOPT": SolverCapabilities("cvxopt", cones=LINEAR | {"soc", "psd"}),
    "ECOS": SolverCapabilities("ecos", cones=_SOC | {"exp"}),
    "GUROBI": SolverCapabilities("gurobi", cones=_SOC, licence=licences.gurobi,
                                 size_limit=licences.gurobi_size_limit),
    "SCIP": SolverCapabilities("scip", cones=_SOC, duals=False),  # duals dropped, see _UNRELIABLE_DUALS
    "HIGHS": SolverCapabilities("highs", cones=LINEAR),
    "OSQP": SolverCapabilities("osqp", cones=LINEAR),
    "PIQP": SolverCapabilities("piqp", cones=LINEAR),
    "SCIPY": SolverCapabilities("scipy", cones=LINEAR, quadratic=False),
}
#: the Python package behind each solver: how `_solvers` lists them without importing CVXPY (1-2 s)
PACKAGES = {"CLARABEL": "clarabel", "MOSEK": "mosek", "SCS": "scs", "CVXOPT": "cvxopt", "ECOS": "ecos",
            "GUROBI": "gurobipy", "SCIP": "pyscipopt", "HIGHS": "highspy", "OSQP": "osqp", "PIQP": "piqp",
            "SCIPY": "scipy"}


@functools.lru_cache(maxsize=1)
def _solvers() -> list:
    """The solvers of `CAPABILITIES` whose package is installed (CVXPY checks its own list again when solving)."""
    return [name for name in CAPABILITIES if importlib.util.find_spec(PACKAGES[name]) is not None]


register(Backend(
    name="cvxpy", solve=solve_cvxpy, cones=_ALL, duals=True, warm_start=False, licence=None, requires=("cvxpy",),
    solvers=_solvers, capabilities=CAPABILITIES,
))
