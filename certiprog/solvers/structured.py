"""``model.solve(solver="structured")``: hand a Model to its formulation's own structure-exploiting solver.

A formulation opts in by giving its ``model.data`` (a `certiprog.model.StructuredFormulation`) a method
``structured_solve(**options) -> StructuredAnswer`` (typed, validated on construction) with

* ``values``: {variable name: array} for every variable of the model,
* ``duals``: {constraint name: array} in certiprog's convention (`certiprog.solvers.solution`),
* ``status``: 'optimal' (its own rigorous interval met the tolerance) or 'inaccurate' (a feasible point whose
  certified interval is wider than asked); any other word of the solver's is kept in ``solver_status`` and read as
  'inaccurate',
* ``interval``: its own rigorous `Interval` on the optimum, when it proves one (``sol.solver_interval``),
* optionally ``iterations`` and ``info`` (the solver's extra words, copied into ``sol.info``).

A plain dict with those keys (the interval under ``info['interval']``) is still read, with a DeprecationWarning,
for one release. The answer is mapped into the compiled problem's columns and rows and then checked by certiprog's
certificate like any backend's (``sol.verdict``). Why not a registered backend: a backend receives only the
assembled conic data, and the registry offers every backend to every model its cones fit
(`registry.available_solvers`, which the core tests and the demo enumerate), while this path exists only for models
whose data carry their own solver. Example: paper 003's eq. (1) (`certiprog.formulations.error_clumping_paper.solver`).

``values`` need only name the model's own variables: the compiler's internal columns (the epigraph variable of each
atom, ``_pnorm1``, ``_pos2``, ...; the ``_sq`` copies of a sum of squares) are filled by `fill_auxiliary`, each with
the value of the expression it stands for at the user point (``Structure.aux_defs``), and any column left (the
internal variables an atom's epigraph creates, e.g. norm1's ``_abs``) by a small conic problem over those columns
alone, the others fixed. Duals may name a constraint's own rows or an internal block's owner (``"chebyshev/pnorm"``,
``"_objective/pos"``; `ConicProblem.blocks`); rows given no dual get 0.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..errors import BackendError, CertiprogError, ModelError
from .backends.common import make_solution
from .solution import Interval, Termination, _interval

STRUCTURED = "structured"
# certiprog's own choice (model.solve() with no backend and no solver) tries the formulation's structured solver first
# when the conic matrix A has more nonzeros than this. Below it an interior point costs about a second, and a
# first-order method that stalls on an ill-conditioned small instance would only add its time before the fallback.
# Measured (000 eq. (8), benchmarks/scale.py's instances, 2 shared cores): 2,000 x 100 (2.1e5 nonzeros) model.solve()
# 1.3 s on Clarabel (structured alone 0.1 s); 20,000 x 300 (6.1e6) model.solve() 4.6 s, structured chosen, verdict
# accurate (Clarabel 26-83 s, issue 15 and benchmarks/scale.py).
AUTO_MIN_NNZ = 10**6


@dataclass(frozen=True, eq=False)
class StructuredAnswer:
    """What a formulation's ``structured_solve`` returns (module docstring): ``values`` {variable: array},
    ``duals`` {constraint or block owner: array}, ``status`` ('optimal' when its own interval met the tolerance,
    else 'inaccurate'), ``interval`` (its rigorous `Interval`, or None), ``iterations``, ``solver_status`` (the
    solver's own word when it is neither), ``info`` (its extra words: no verdict, fallback or interval)."""

    values: dict
    duals: dict = field(default_factory=dict)
    status: Termination | str = Termination.INACCURATE  # a Termination after construction
    interval: Interval | tuple[float, float] | None = None  # an Interval after construction
    iterations: int | None = None
    solver_status: str = ""
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.values, dict) or not all(isinstance(k, str) for k in self.values):
            raise BackendError(f"a structured answer's values must be a dict {{variable name: array}}; got "
                               f"{type(self.values).__name__}")
        if not isinstance(self.duals, dict) or not all(isinstance(k, str) for k in self.duals):
            raise BackendError(f"a structured answer's duals must be a dict {{constraint name: array}}; got "
                               f"{type(self.duals).__name__}")
        word = str(getattr(self.status, "value", self.status))
        status = Termination(word) if word in ("optimal", "inaccurate") else Termination.INACCURATE
        object.__setattr__(self, "status", status)
        if word != status.value and not self.solver_status:
            object.__setattr__(self, "solver_status", word)
        if self.interval is not None:
            try:
                object.__setattr__(self, "interval", _interval(self.interval))
            except ModelError as exc:
                raise BackendError(f"a structured answer's interval: {exc}") from None
        if self.iterations is not None:
            object.__setattr__(self, "iterations", int(self.iterations))
        if not isinstance(self.info, dict) or set(self.info) & {"verdict", "fallback", "interval"}:
            raise BackendError("a structured answer's info holds the solver's extra words only (a dict without "
                               "'verdict', 'fallback' or 'interval': the interval is StructuredAnswer.interval)")

    @classmethod
    def from_dict(cls, out: dict) -> "StructuredAnswer":
        """The answer of a hook that still returns the old dict (its interval under ``info['interval']``)."""
        if not isinstance(out, dict) or "values" not in out:
            raise BackendError(f"structured_solve must return a StructuredAnswer; got {type(out).__name__}")
        info = dict(out.get("info", {}))
        interval = info.pop("interval", None)
        for key in ("verdict", "fallback"):
            info.pop(key, None)
        return cls(out["values"], dict(out.get("duals", {})), out.get("status", "inaccurate"), interval,
                   out.get("iterations"), info=info)


def answer_of(out) -> StructuredAnswer:
    """``structured_solve``'s return value as a `StructuredAnswer` (a dict: converted, with a DeprecationWarning)."""
    if isinstance(out, StructuredAnswer):
        return out
    warnings.warn("structured_solve returning a dict is deprecated: return certiprog.solvers.StructuredAnswer "
                  "(the interval as its 'interval' field)", DeprecationWarning, stacklevel=3)
    return StructuredAnswer.from_dict(out)


def auto_candidate(model, problem):
    """('structured', zero-argument solve) for `fallback.first_confirmed` when certiprog's automatic choice should try
    the formulation's own solver first (it has one and ``problem.A`` has more than `AUTO_MIN_NNZ` nonzeros, or
    ``model.data.structured_auto(problem)`` exists and says True: a formulation whose solver is cheap at every size),
    else None. The structured solver runs with its own defaults; a refusal (a case it does not cover) becomes a
    BackendError so the chooser moves on to the generic solvers."""
    if not has_structured_solver(model):
        return None
    wants = getattr(model.data, "structured_auto", None)
    if problem.A.nnz <= AUTO_MIN_NNZ and not (callable(wants) and wants(problem)):
        return None

    def solve():
        try:
            return structured_answer(model, problem, {})
        except BackendError:
            raise
        except CertiprogError as exc:
            raise BackendError(f"the structured solver does not take this model: {exc}") from exc

    return STRUCTURED, solve


def has_structured_solver(model) -> bool:
    """Whether ``model.data`` offers ``structured_solve`` (a `certiprog.model.StructuredFormulation`)."""
    return callable(getattr(getattr(model, "data", None), "structured_solve", None))


def solve_structured(model, backend=None, **options):
    """Solve ``model`` with ``model.data.structured_solve(**options)``; a Solution checked by the certificate."""
    if backend is not None:
        raise BackendError(f"solver='structured' runs the formulation's own solver; it takes no backend "
                           f"(got {backend!r})")
    if not has_structured_solver(model):
        raise BackendError(f"model {model.name!r} has no structured solver (its formulation's model.data provides no "
                           "structured_solve); name a backend instead, e.g. backend='clarabel'")
    structure = model.compile()
    if structure.cutting_plane:
        raise BackendError("solver='structured' does not take ForAll constraints left to cutting planes")
    sol = structured_answer(model, structure.assemble(), options)
    from . import _store_values
    from .fallback import verdict

    sol.verdict = verdict(sol.problem, sol)
    _store_values(model, sol)
    return sol


def structured_answer(model, problem, options: dict):
    """``model.data.structured_solve(**options)`` as a Solution of the assembled ``problem`` (no verdict, no
    variable values set): user values completed by `fill_auxiliary`, duals placed by constraint or block owner."""
    t0 = time.perf_counter()
    out = answer_of(model.data.structured_solve(**options))
    elapsed = time.perf_counter() - t0
    x = fill_auxiliary(problem, out.values)
    z = np.zeros(problem.m)
    for name, dual in out.duals.items():
        try:
            owned = problem.rows_of(name, primary_only=False)
        except ModelError as exc:
            raise BackendError(f"the structured solver returned a dual for {name!r}, which names no rows: {exc}") \
                from exc
        blocks = [b for b in owned if b.primary] or owned  # a constraint's own rows, else an internal block's
        dual = np.ravel(dual)
        rows = sum(b.stop - b.start for b in blocks)
        if rows != dual.size:
            raise BackendError(f"the dual of {name!r} has {dual.size} entries; its compiled rows are {rows}")
        k = 0
        for b in blocks:
            z[b.start:b.stop] = dual[k:k + b.stop - b.start]
            k += b.stop - b.start
    info = dict(out.info)
    if out.solver_status:
        info.setdefault("structured_status", out.solver_status)
    sol = make_solution(problem, str(out.status), x, z, problem.b - problem.A @ x, backend=STRUCTURED,
                        solver=STRUCTURED, iterations=out.iterations, solve_time=elapsed, info=info)
    sol.solver_interval = out.interval
    return sol


def fill_auxiliary(problem, values: dict) -> np.ndarray:
    """The stacked primal vector of ``problem`` from ``values`` = {user variable name: array}.

    Internal columns not named in ``values`` are filled in creation order with the value of what they stand for
    (``problem.structure.aux_defs``: an atom's epigraph variable takes the atom's value, a ``_sq`` copy its affine
    expression) once every variable that expression reads is known; what is left (variables an atom's epigraph
    creates inside itself) is the solution of the conic problem over those columns alone, the others fixed
    (`_solve_remaining`). Raises BackendError when a user variable is missing or has the wrong size.
    """
    structure = problem.structure
    user = {v.id for v in structure.user_vars}
    x = np.full(problem.n, np.nan)
    known: dict = {}
    for name, (var, start, stop) in problem.columns.items():
        if name in values:
            given = np.asarray(values[name], dtype=float)
            # a symmetric variable's columns are its upper triangle: pack a full matrix as the compiler does
            val = var.flat(given) if getattr(var, "symmetric", False) and given.size == var.size else np.ravel(given)
            if val.size != stop - start:
                raise BackendError(f"the structured solver's value for {name!r} has {val.size} entries; the "
                                   f"variable has {stop - start}")
            x[start:stop] = val
            known[var] = np.asarray(values[name], dtype=float).reshape(var.shape)
        elif var.id in user:
            raise BackendError(f"the structured solver returned no value for the variable {name!r}")
    defs = getattr(structure, "aux_defs", {})
    for var in structure.aux_vars:
        if var in known or var.id not in defs:
            continue
        expr = defs[var.id]
        if all(v in known for v in expr.variables):
            known[var] = np.asarray(expr.value_at(known), dtype=float).reshape(var.shape)
    for name, (var, start, stop) in problem.columns.items():
        if var in known and var.id not in user:  # the user's own columns are set above
            x[start:stop] = np.ravel(known[var])
            if name not in values:
                x[start:stop] = _inside(problem, defs.get(var.id), start, stop, x[start:stop])
    free = np.isnan(x)
    if free.any():
        x[free] = _solve_remaining(problem, x, free)
    return x


#: an atom's epigraph column that costs nothing (read by constraints only, e.g. the norm in ``norm(.) <= c``) is
#: filled with the atom's value raised by this much (relative; a concave atom's hypograph column lowered): at the
#: value itself the column sits on its cone's boundary, where no enclosure proves membership, and the check repaired
#: the point by a margin problem over the cone (000 eq. (8) on MNIST, 785-dimensional: 18 of 28 s). A solver whose
#: point keeps at least this slack where the column is read is proved directly. Columns with a cost are left at the
#: value (the check raises those itself, and the objective stays the solver's).
AUX_MARGIN = 1e-10


def _inside(problem, expr, start: int, stop: int, value: np.ndarray) -> np.ndarray:
    """``value`` of the epigraph column(s) ``start:stop`` of ``expr`` (one atom) moved by `AUX_MARGIN` into the
    atom's cone when they cost nothing (zero in q and P)."""
    atoms: tuple = getattr(expr, "nonlin", ())  # ((selection, atom), ...)
    if len(atoms) != 1 or getattr(expr, "terms", None) or np.any(problem.q[start:stop]):
        return value  # a `_sq` copy (an equality), a costed column, anything else: its exact value
    P = problem.P
    if P is not None:  # (P's stored entries in those columns, read off its CSC segments: no column slice)
        Pc = P if sp.issparse(P) and P.format == "csc" else sp.csc_matrix(P)
        if np.any(Pc.data[Pc.indptr[start]:Pc.indptr[stop]] != 0):
            return value
    sign = {"convex": 1.0, "concave": -1.0}.get(getattr(atoms[0][1], "curvature", ""), 0.0)
    return value + sign * AUX_MARGIN * np.abs(value) if sign else value


def _solve_remaining(problem, x: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Minimise the objective over the columns ``free`` with the others fixed at ``x``, subject to the cone blocks
    those columns enter (Clarabel); the point it returns, whatever its status (the certificate judges it)."""
    import clarabel
    import scipy.sparse as sp

    from ..conic.problem import merge_cones
    from .backends.clarabel_backend import clarabel_cones

    A = sp.csc_matrix(problem.A)
    J = np.flatnonzero(free)
    fixed = np.where(free, 0.0, x)
    AJ = A[:, J].tocsr()
    touched = np.diff(AJ.indptr) > 0
    keep = [blk for blk in problem.blocks if touched[blk.start:blk.stop].any()]
    if not keep:
        return np.zeros(J.size)
    rows = np.concatenate([np.arange(b.start, b.stop) for b in keep])
    A_sub = sp.csc_matrix(AJ[rows])
    b_sub = (problem.b - A @ fixed)[rows]
    P = sp.csc_matrix(problem.P)
    P_sub = sp.triu(P[J][:, J], format="csc")
    q_sub = problem.q[J] + (P @ fixed)[J]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    cones = clarabel_cones(merge_cones(b.cone for b in keep))
    res = clarabel.DefaultSolver(P_sub, q_sub, A_sub, b_sub, cones, settings).solve()
    return np.asarray(res.x, dtype=float)
