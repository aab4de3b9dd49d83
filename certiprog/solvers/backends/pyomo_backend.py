"""Pyomo, built from certiprog's conic form with the model's structure kept.

Translation (see ``docs/backends.md`` for the per-solver table):

* one indexed ``Var`` per variable block (``problem.columns``), named after the variable;
* one named ``Constraint`` per model constraint whose rows are all linear (``A_i x <= b_i`` for
  nonneg rows, ``A_i x == b_i`` for zero rows), indexed 0..k-1 in the order of ``Solution.dual``;
  a constraint with cone rows becomes a ``Block`` holding ``rows`` (the same linear rows, and for cone
  rows the links ``y_i + A_i x == b_i``), ``y`` (the cone's entries, so y = s) and ``cone``:
  ``sum_j y_j^2 <= y_0^2, y_0 >= 0`` (SOC, for Gurobi's QCP), ``sqrt(sum_j y_j^2) <= y_0`` (SOC, for
  SCIP) or ``y_0^a y_1^(1-a) >= |y_2|, y_0, y_1 >= 0`` (power cone, SCIP), ``pyomo.core.kernel.conic``
  cones for MOSEK (see FORMS);
* every number of A, b, q, P and r0 is a mutable ``Param``: while the sparsity pattern is unchanged a
  re-solve (e.g. after a Parameter change) only refills the values, the Pyomo model is not rebuilt.

Duals: every row, linear or cone, owns one linear Pyomo constraint written as ``expr (<=|==) b_i``;
Pyomo's ``dual`` suffix is d(objective)/d(b_i), so certiprog's z (Lagrangian f - <z, b - A x>)
is ``z_i = -dual_i``. For cone rows the link's multiplier equals the cone dual (stationarity in y);
for an SOC with multiplier lambda of the quadratic constraint that is z = (2 lambda y_0, -2 lambda y_1:).
"""
from __future__ import annotations

import hashlib
import importlib.util
import re
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

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
)
from ...errors import BackendError, InputError, OptionError
from ..registry import LINEAR, Backend, SolverCapabilities, register
from . import licences
from .common import make_solution
from .options import check_value, pop_time_limit


@dataclass(frozen=True)
class SolverSpec:
    """What one Pyomo solver interface takes and returns here."""

    package: str  # import name of the solver's Python package
    quadratic: bool  # quadratic objectives
    cones: frozenset  # cone kinds besides zero / nonneg
    duals: bool
    form: str = "quadratic"  # how cones are written: see FORMS
    defaults: tuple = ()  # (option, value) set unless the caller passes that option
    retry: tuple = ()  # of those, the ones dropped for a second try after a numerical failure
    licence: str | None = None


SOLVERS = {
    "highs": SolverSpec("highspy", quadratic=True, cones=frozenset(), duals=True,
                        defaults=(("qp_regularization_value", 1e-10),)),
    "appsi_highs": SolverSpec("highspy", quadratic=False, cones=frozenset(), duals=True),
    "scip_direct": SolverSpec("pyscipopt", quadratic=True, cones=frozenset({"soc", "pow", "exp", "pownd"}), duals=False,
                              form="norm",
                              defaults=(("display/verblevel", 0), ("limits/gap", 1e-9), ("numerics/feastol", 1e-7))),
    "gurobi_direct": SolverSpec("gurobipy", quadratic=True, cones=frozenset({"soc"}), duals=True,
                                defaults=(("Presolve", 0), ("DualReductions", 0), ("NumericFocus", 3),
                                          ("BarConvTol", 1e-10), ("BarQCPConvTol", 1e-10)),
                                retry=("Presolve",),
                                licence="Gurobi (pip's size-limited licence: ~2000 variables/constraints)"),
    "mosek_direct": SolverSpec("mosek", quadratic=True, cones=frozenset({"soc", "pow"}), duals=True, form="kernel",
                               licence="MOSEK"),
}
#: each solver's own name for certiprog's ``time_limit`` (seconds)
TIME_LIMIT = {"highs": "time_limit", "appsi_highs": "time_limit", "scip_direct": "limits/time",
              "gurobi_direct": "TimeLimit", "mosek_direct": "MSK_DPAR_OPTIMIZER_MAX_TIME"}
#: one Pyomo solve at a time: two threads solving (even separate models) deadlock in Pyomo's output capture
_LOCK = threading.RLock()
ENGINES = {"highs": "highs", "appsi_highs": "highs", "scip_direct": "scip", "gurobi_direct": "gurobi",
           "mosek_direct": "mosek"}


def capabilities() -> dict:
    """`SolverCapabilities` of every solver in SOLVERS (for the registry's choice): no rays from any of them."""
    extra: dict[str, dict[str, Any]] = {
        "gurobi_direct": dict(licence=licences.gurobi, size_limit=licences.gurobi_size_limit),
        "mosek_direct": dict(licence=licences.mosek)}
    return {name: SolverCapabilities(ENGINES.get(name, name), cones=LINEAR | spec.cones, quadratic=spec.quadratic,
                                     quadratic_with_cones=spec.form != "kernel", duals=spec.duals, rays=False,
                                     **extra.get(name, {}))
            for name, spec in SOLVERS.items()}


FORMS = {  # model flavour: how an SOC (t, u) is written on its entries y
    "quadratic": "pyomo.environ, sum u^2 - t^2 <= 0 with t >= 0 (the form Gurobi recognises as a cone)",
    "norm": "pyomo.environ, sqrt(sum u^2) - t <= 0 (violations in the norm's units: SCIP's tolerance means "
            "what it says near the apex)",
    "kernel": "pyomo.kernel, conic.quadratic / conic.primal_power (MOSEK's conic interface)",
}

_STATUS = {  # pyomo.opt.TerminationCondition names -> certiprog status keys
    "optimal": "optimal", "globallyOptimal": "optimal", "locallyOptimal": "optimal",
    "feasible": "inaccurate",
    "infeasible": "infeasible", "unbounded": "unbounded", "infeasibleOrUnbounded": "infeasible_or_unbounded",
    "maxIterations": "iteration_limit", "maxEvaluations": "iteration_limit",
    "maxTimeLimit": "time_limit",
}
DUAL_STATIONARITY = 1e-3  # solver duals worse than this (relative stationarity) are dropped, see `_duals`
_ROW_CHARS = {"<=": "_le_", ">=": "_ge_", "==": "_eq_", "/": "__"}

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # Structure -> {form: PyomoTranslation}


def installed_solvers() -> list[str]:
    """Solver names whose Python package is installed here; MOSEK also needs its licence (Gurobi's pip licence
    is size-limited: see `capabilities`)."""
    return [n for n, s in SOLVERS.items() if importlib.util.find_spec(s.package) is not None
            and (n != "mosek_direct" or licences.mosek() is None)]


def why_unavailable(solver: str) -> str | None:
    """Why a known solver is not offered here (package or licence missing), for the registry's error."""
    spec = SOLVERS.get(solver)
    if spec is None:
        return None
    if importlib.util.find_spec(spec.package) is None:
        return f"its package {spec.package!r} is not installed"
    if solver == "mosek_direct" and licences.mosek() is not None:
        return ("MOSEK has no licence here (it searches ~/mosek/mosek.lic and $MOSEKLM_LICENSE_FILE); "
                "backend='mosek' can still export the problem")
    return None


# --------------------------------------------------------------------------- translation
@dataclass
class PyomoTranslation:
    """A Pyomo model of a ConicProblem plus the maps back to certiprog's columns and rows.

    x: Var data in column order; row_cons: the linear constraint data whose dual is z[i] (None for an
    empty linear row, left out of the model); names: certiprog name -> Pyomo component name.
    """

    model: object
    form: str
    pattern: str
    x: list
    row_cons: list
    empty_rows: np.ndarray  # indices of linear rows with no nonzero in A (checked against b at solve time)
    params: dict  # "A", "b", "q", "P": lists of Params in the order of `values`' arrays; "r0": one Param
    p_rows: np.ndarray  # upper-triangle entries of P, as (row, col) arrays in Param order
    p_cols: np.ndarray
    names: dict = field(default_factory=dict)
    build_time: float = 0.0

    @property
    def kernel(self) -> bool:
        return self.form == "kernel"

    def component(self, name: str):
        """The Pyomo component of a certiprog variable or constraint name."""
        return getattr(self.model, self.names[name])


def problem_pattern(problem) -> str:
    """A digest of everything the Pyomo model's structure depends on (not the numbers)."""
    A = sp.csr_matrix(problem.A)
    A.sort_indices()
    Pu = sp.triu(problem.P, format="csr")
    Pu.sort_indices()
    h = hashlib.blake2b(digest_size=20)
    for arr in (A.indptr, A.indices, Pu.indptr, Pu.indices):
        h.update(np.ascontiguousarray(arr, dtype=np.int64).tobytes())
    h.update(repr((problem.n, problem.m, [(b.owner, b.start, b.cone.to_json()) for b in problem.blocks],
                   [(k, a, b) for k, (_, a, b) in problem.columns.items()])).encode())
    return h.hexdigest()


def _component_name(name: str, taken: set, model) -> str:
    """A Python-identifier version of a certiprog name, unique in the model and not shadowing an attribute."""
    out = name
    for k, v in _ROW_CHARS.items():
        out = out.replace(k, v)
    out = re.sub(r"\W", "_", out)
    if not out or out[0].isdigit():
        out = "c_" + out
    while out in taken or hasattr(model, out):
        out += "_"
    taken.add(out)
    return out


_LINEAR: tuple[type[Cone], ...] = (ZeroCone, NonnegCone)  # written as linear rows by every builder


def _write_cone(builder, cone, y) -> list:
    """One copy of ``cone`` on its entries y, by the builder's table; a BackendError for a cone it cannot write."""
    write = builder.CONES.get(type(cone))
    if write is None:
        raise BackendError(f"the pyomo backend cannot write a {cone.kind!r} cone in this form; it writes "
                           f"{sorted(k.kind for k in builder.CONES)}")
    return write(builder, cone, y)


class _Environ:
    """Builds with pyomo.environ (every solver but MOSEK's conic interface)."""

    kernel = False

    def __init__(self, norm: bool):
        import pyomo.environ as pe

        self.pe = pe
        self.norm = norm
        self.model = pe.ConcreteModel(name="certiprog")

    def var_block(self, parent, name, size, doc=None):
        v = self.pe.Var(range(size), doc=doc)
        parent.add_component(name, v)
        return [v[i] for i in range(size)]

    def params(self, parent, name, values):
        values = np.asarray(values, float)
        p = self.pe.Param(range(values.size), mutable=True, initialize=dict(enumerate(values.tolist())))
        parent.add_component(name, p)
        return [p[i] for i in range(values.size)]

    def scalar_param(self, parent, name, value):
        p = self.pe.Param(mutable=True, initialize=float(value))
        parent.add_component(name, p)
        return p

    def block(self, parent, name, doc):
        b = self.pe.Block(doc=doc)
        parent.add_component(name, b)
        return b

    def constraints(self, parent, name, exprs: dict, doc=None) -> dict:
        c = self.pe.Constraint(list(exprs), rule=lambda _, i: exprs[i], doc=doc)
        parent.add_component(name, c)
        return {i: c[i] for i in exprs}

    def _soc(self, cone, y) -> list:
        """sum y_1:^2 - y_0^2 <= 0, or sqrt(sum y_1:^2) - y_0 <= 0 in the norm form; y_0 >= 0."""
        y[0].setlb(0.0)
        squares = sum(v ** 2 for v in y[1:])
        return [self.pe.sqrt(squares) - y[0] <= 0] if self.norm else [squares - y[0] ** 2 <= 0]

    def _pow(self, cone, y) -> list:
        """y_0^a y_1^(1-a) -+ y_2 >= 0, y_0, y_1 >= 0."""
        y[0].setlb(0.0)
        y[1].setlb(0.0)
        g = y[0] ** cone.alpha * y[1] ** (1 - cone.alpha)
        return [g - y[2] >= 0, g + y[2] >= 0]

    def _exp(self, cone, y) -> list:
        """y_1 exp(y_0 / y_1) - y_2 <= 0 with y_1 >= 1e-300, y_2 >= 0 (the face y_1 = 0 is left out, so a problem
        whose optimum needs it is solved on its closure's interior only)."""
        y[1].setlb(1e-300)
        y[2].setlb(0.0)
        return [y[1] * self.pe.exp(y[0] / y[1]) - y[2] <= 0]

    def _pownd(self, cone, y) -> list:
        """prod y_i^a_i -+ y_n >= 0, y_i >= 0 (i < n)."""
        for v in y[:-1]:
            v.setlb(0.0)
        g = 1
        for v, a in zip(y[:-1], cone.alpha):
            g = g * v ** a
        return [g - y[-1] >= 0, g + y[-1] >= 0]

    #: certiprog's cone class -> the method writing one copy of it on its entries y
    CONES = {SecondOrderCone: _soc, PowerCone: _pow, ExponentialCone: _exp, PowerConeND: _pownd}

    def cone(self, cone, y) -> list:
        """The constraints of one copy of ``cone`` on its entries y (`CONES`)."""
        return _write_cone(self, cone, y)

    def objective(self, expr):
        self.model.objective = self.pe.Objective(expr=expr, sense=self.pe.minimize)

    @staticmethod
    def linear(body, rhs, equality):
        return body == rhs if equality else body <= rhs


class _Kernel:
    """Builds with pyomo.kernel, whose conic constraints MOSEK's interface reads natively."""

    kernel = True

    def __init__(self):
        import pyomo.kernel as pmo

        self.pmo = pmo
        self.model = pmo.block()

    def var_block(self, parent, name, size, doc=None):
        v = self.pmo.variable_list(self.pmo.variable() for _ in range(size))
        setattr(parent, name, v)
        return list(v)

    def params(self, parent, name, values):
        p = self.pmo.parameter_list(self.pmo.parameter(float(a)) for a in np.asarray(values, float))
        setattr(parent, name, p)
        return list(p)

    def scalar_param(self, parent, name, value):
        p = self.pmo.parameter(float(value))
        setattr(parent, name, p)
        return p

    def block(self, parent, name, doc):
        b = self.pmo.block()
        setattr(parent, name, b)
        return b

    def constraints(self, parent, name, exprs: dict, doc=None) -> dict:
        c = self.pmo.constraint_dict(exprs)
        setattr(parent, name, c)
        return dict(c.items())

    def _soc(self, cone, y) -> list:
        y[0].lb = 0.0
        return [self.pmo.conic.quadratic(r=y[0], x=list(y[1:]))]

    def _pow(self, cone, y) -> list:
        y[0].lb = y[1].lb = 0.0
        return [self.pmo.conic.primal_power(r1=y[0], r2=y[1], x=[y[2]], alpha=float(cone.alpha))]

    #: certiprog's cone class -> the method writing one copy of it as pyomo.kernel's conic constraint
    CONES = {SecondOrderCone: _soc, PowerCone: _pow}

    def cone(self, cone, y) -> list:
        """The constraints of one copy of ``cone`` on its entries y (`CONES`)."""
        return _write_cone(self, cone, y)

    def objective(self, expr):
        self.model.objective = self.pmo.objective(expr)

    def linear(self, body, rhs, equality):
        return self.pmo.constraint(body=body, rhs=rhs) if equality else self.pmo.constraint(body=body, ub=rhs)


def build_pyomo_model(problem, form: str = "quadratic") -> PyomoTranslation:
    """Translate a ConicProblem into a Pyomo model; ``form`` (a key of FORMS) says how cones are written."""
    from pyomo.core.expr.numeric_expr import LinearExpression

    t0 = time.perf_counter()
    if form not in FORMS:
        raise BackendError(f"unknown Pyomo model form {form!r}; choose from {sorted(FORMS)}")
    bld = _Kernel() if form == "kernel" else _Environ(norm=form == "norm")
    m = bld.model
    taken: set = set()
    names = {}
    # variables: one indexed Var per column block
    x = [None] * problem.n
    for name, (_, a, b) in problem.columns.items():
        cname = _component_name(name, taken, m)
        names[name] = cname
        x[a:b] = bld.var_block(m, cname, b - a, doc=name)
    A = sp.csr_matrix(problem.A)
    A.sort_indices()
    Pu = sp.triu(problem.P, format="coo")
    params = {
        "A": bld.params(m, "A_coef", A.data), "b": bld.params(m, "b_rhs", problem.b),
        "q": bld.params(m, "q_coef", problem.q), "P": bld.params(m, "P_coef", _p_values(Pu)),
        "r0": bld.scalar_param(m, "r0", problem.r0),
    }
    taken.update({"A_coef", "b_rhs", "q_coef", "P_coef", "r0", "objective", "dual"})
    Ac, bp = params["A"], params["b"]

    def row_body(i, extra=None):  # A_i x (+ extra): the row's CSR slice, coefficients as Params
        k0, k1 = A.indptr[i], A.indptr[i + 1]
        coefs = [Ac[k] for k in range(k0, k1)]
        xs = [x[j] for j in A.indices[k0:k1]]
        if extra is not None:
            coefs.append(1.0)
            xs.append(extra)
        return LinearExpression(linear_coefs=coefs, linear_vars=xs)

    row_cons = [None] * problem.m
    empty = []
    owners: dict[str, list] = {}
    for blk in problem.blocks:
        owners.setdefault(blk.owner, []).append(blk)
    row_nnz = np.diff(A.indptr)
    for owner, blks in owners.items():
        cname = _component_name(owner, taken, m)
        names[owner] = cname
        conic = {id(b): b for b in blks if not isinstance(b.cone, _LINEAR) and b.cone.dim > 1}
        parent = bld.block(m, cname, owner) if conic else m
        y = iter(bld.var_block(parent, "y", sum(b.cone.rows for b in conic.values()), doc=f"cone entries of {owner}")
                 if conic else ())
        rows, exprs, cone_exprs = {}, {}, []  # keyed by the row's position within the constraint
        off = 0
        for b in blks:
            if id(b) in conic:  # links y_i + A_i x == b_i, then the cone on y
                yb = [next(y) for _ in range(b.cone.rows)]
                for k, i in enumerate(range(b.start, b.stop)):
                    rows[off + k], exprs[off + k] = i, bld.linear(row_body(i, yb[k]), bp[i], True)
                d = b.cone.dim
                for c in range(b.cone.count):
                    cone_exprs += bld.cone(b.cone, yb[c * d:(c + 1) * d])
            else:
                for k, i in enumerate(range(b.start, b.stop)):
                    if row_nnz[i] == 0:  # nothing for a solver: its feasibility is checked on b at solve time
                        empty.append(i)
                        continue
                    rows[off + k], exprs[off + k] = i, bld.linear(row_body(i), bp[i], isinstance(b.cone, ZeroCone))
            off += b.cone.rows
        cons = bld.constraints(parent, "rows" if conic else cname, exprs, doc=owner)
        for k, i in rows.items():
            row_cons[i] = cons[k]
        if cone_exprs:
            bld.constraints(parent, "cone", dict(enumerate(cone_exprs)), doc=f"cones of {owner}")
    # objective: sum_{i<=j} P_coef * x_i x_j + q'x + r0 (P_coef holds P_ij above, P_ii / 2 on the diagonal)
    qp = params["q"]
    lin = LinearExpression(linear_coefs=list(qp), linear_vars=list(x))
    quad = [pk * x[i] * x[j] for pk, i, j in zip(params["P"], Pu.row, Pu.col)]
    bld.objective(sum(quad, lin) + params["r0"] if quad else lin + params["r0"])
    return PyomoTranslation(m, form, problem_pattern(problem), x, row_cons, np.array(empty, int), params,
                            Pu.row.copy(), Pu.col.copy(), names, time.perf_counter() - t0)


def _p_values(Pu) -> np.ndarray:
    return np.where(Pu.row == Pu.col, 0.5, 1.0) * Pu.data


def update_params(tr: PyomoTranslation, problem) -> None:
    """Refill every mutable Param from the problem's numbers (same sparsity pattern as at build)."""
    A = sp.csr_matrix(problem.A)
    A.sort_indices()
    Pu = sp.triu(problem.P, format="coo")
    order = np.lexsort((Pu.col, Pu.row))
    ref = np.lexsort((tr.p_cols, tr.p_rows))
    pvals = np.empty(len(tr.params["P"]))
    pvals[ref] = _p_values(Pu)[order]
    for key, vals in (("A", A.data), ("b", problem.b), ("q", problem.q), ("P", pvals)):
        for p, v in zip(tr.params[key], np.asarray(vals, float).tolist()):
            p.value = v
    tr.params["r0"].value = float(problem.r0)


def translation_for(problem, form: str = "quadratic") -> tuple[PyomoTranslation, bool]:
    """The cached Pyomo model for this problem's structure (refilled) or a new one; second item: reused?"""
    structure = getattr(problem, "structure", None)
    pattern = problem_pattern(problem)
    slot = _CACHE.get(structure) if structure is not None else None
    if slot is not None and form in slot and slot[form].pattern == pattern:
        tr = slot[form]
        update_params(tr, problem)
        return tr, True
    tr = build_pyomo_model(problem, form=form)
    if structure is not None:
        _CACHE.setdefault(structure, {})[form] = tr
    return tr, False


# --------------------------------------------------------------------------- solving
def _refuse_unsupported(problem, solver: str, spec: SolverSpec) -> None:
    kinds = {c.kind for c in problem.cones if not isinstance(c, _LINEAR)
             and not (isinstance(c, SecondOrderCone) and c.dim == 1)}  # an soc of dim 1 is t >= 0: a linear row
    if PsdCone.kind in kinds:
        raise BackendError("the pyomo backend has no PSD cone (no Pyomo solver interface here takes semidefinite "
                           "constraints): use backend='clarabel' or backend='cvxpy'")
    missing = kinds - spec.cones
    if missing:
        able = [n for n, s in SOLVERS.items() if kinds <= s.cones]
        raise BackendError(f"pyomo solver {solver!r} does not take {sorted(missing)} cones; pyomo solvers that do: "
                           f"{able}, or backend='clarabel'")
    quadratic = sp.csr_matrix(problem.P).count_nonzero() > 0
    if spec.form == "kernel" and quadratic and kinds:
        raise BackendError(f"pyomo solver {solver!r}: MOSEK does not take a quadratic objective together with conic "
                           "constraints (MSK_RES_ERR_MIXED_CONIC_AND_NL); use backend='mosek' (it rewrites "
                           "1/2 x'Px as a rotated cone) or pyomo solver 'gurobi_direct' / 'scip_direct'")
    if not spec.quadratic and quadratic:
        able = [n for n, s in SOLVERS.items() if s.quadratic and kinds <= s.cones]
        raise BackendError(f"pyomo solver {solver!r} takes linear objectives only and this problem has a quadratic "
                           f"one; use one of {able}")


def _check_options(solver: str, options: dict) -> None:
    """HiGHS accepts unknown option names silently: check them against highspy first."""
    if solver not in ("appsi_highs", "highs") or not options:
        return
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)  # no "option is unknown" lines on the terminal: the error says it
    for k, v in options.items():
        if h.setOptionValue(k, v) != highspy.HighsStatus.kOk:
            raise OptionError(f"HiGHS rejected the option {k}={v!r} (unknown name or wrong type); see "
                               "https://ergo-code.github.io/HiGHS/stable/options/definitions/")


def _load(tr, results) -> None:
    if tr.kernel:
        tr.model.load_solution(results.solution(0))
    else:
        tr.model.solutions.load_from(results)


def _iterations(opt, solver):
    """Gurobi's barrier (or simplex) iteration count, read from the interface's solver model; None otherwise."""
    try:
        if solver == "gurobi_direct":
            g = opt._solver_model
            return int(g.BarIterCount or g.IterCount)
    except Exception:  # the count is informative only
        return None
    return None


def solve_pyomo(problem, solver=None, options=None, *, form: str | None = None):
    """Solve a ConicProblem through Pyomo with ``solver`` (a key of SOLVERS; None or 'auto': the one certiprog
    chooses, `certiprog.solvers.solve_conic`, trying the next when the certificate cannot confirm an answer).

    ``form`` overrides how the model is written (FORMS; default: the solver's own). Gurobi reads the
    'quadratic' and 'kernel' forms, which is how the kernel model built for MOSEK is tested without a
    MOSEK licence.
    """
    solver = None if solver is None else str(solver).lower()  # the registry matches names case-insensitively
    if solver in (None, "auto"):
        from .. import solve_conic

        return solve_conic(problem, "pyomo", None, **dict(options or {}))
    with _LOCK:  # Pyomo's output capture and the shared model cache are not thread-safe
        return _solve_named(problem, solver, options, form)


def _solve_named(problem, solver, options, form):
    if solver not in SOLVERS:
        raise BackendError(f"unknown pyomo solver {solver!r}; choose from {installed_solvers()}")
    spec = SOLVERS[solver]
    form = spec.form if form is None else form
    if form != spec.form and not (solver == "gurobi_direct" and form == "kernel"):
        raise BackendError(f"pyomo solver {solver!r} reads its models in the {spec.form!r} form only")
    _refuse_unsupported(problem, solver, spec)
    _check_finite(problem)
    if importlib.util.find_spec(spec.package) is None:
        raise BackendError(f"pyomo solver {solver!r} needs the package {spec.package!r}; "
                           f"installed here: {installed_solvers()}")
    options = dict(options or {})
    t_limit = pop_time_limit(options, f"pyomo/{solver}")
    for k, v in options.items():
        check_value(f"pyomo/{solver}", k, v)
    if t_limit is not None:
        options[TIME_LIMIT[solver]] = t_limit
    _check_options(solver, options)
    tr, reused = translation_for(problem, form=form)
    info = {"pyomo_build_time": 0.0 if reused else tr.build_time, "pyomo_model_reused": reused,
            "pyomo_model": tr.model, "pyomo_names": dict(tr.names)}
    # a constant row that fails (0 <= b_i violated, or 0 == b_i with b_i != 0) makes the problem infeasible
    bad = _violated_empty_rows(problem, tr.empty_rows)
    if bad:
        info["termination_condition"] = f"infeasible: rows {bad[:5]} have no variables and fail 0 <= b / 0 == b"
        return make_solution(problem, "infeasible", None, None, None, backend="pyomo", solver=solver, info=info)
    ours = {k: v for k, v in spec.defaults if k not in options}
    opt, results, elapsed = _run(tr, solver, {**ours, **options})
    tc = str(results.solver.termination_condition).split(".")[-1]
    if _STATUS.get(tc, "numerical_error") == "numerical_error" and any(k in spec.retry for k in ours):
        # our accuracy settings can trip the solver (Gurobi's barrier without presolve on some infeasible QPs):
        # run once more with the solver's own values for them, and say so
        info["retried"] = f"{tc} with {ours}; solved again with the solver's defaults for {list(spec.retry)}"
        ours = {k: v for k, v in ours.items() if k not in spec.retry}
        opt, results, more = _run(tr, solver, {**ours, **options})
        elapsed += more
        tc = str(results.solver.termination_condition).split(".")[-1]
    if tc == "licensingProblem":
        raise BackendError(f"pyomo solver {solver}: licence problem ({results.solver.message}); "
                           f"{spec.licence or ''}")
    key = _STATUS.get(tc, "numerical_error")
    info.update(termination_condition=tc, solver_status=str(results.solver.status))
    x = z = s = None
    if key in ("optimal", "inaccurate"):
        try:
            _load(tr, results)
        except Exception as exc:  # the solver said optimal but has no point: report, do not guess
            key = "numerical_error"
            info["error"] = f"{type(exc).__name__}: {exc}"
    if key in ("optimal", "inaccurate"):
        x = np.array([np.nan if v.value is None else v.value for v in tr.x], float)
        x[np.isnan(x)] = 0.0  # columns the solver never saw have no coefficient anywhere
        s = problem.b - problem.A @ x
        z, info["duals"] = _duals(tr, problem, x) if spec.duals else (
            None, f"none: {solver} returns no duals; certiprog.certificates.check recovers them from the primal point")
    version = ".".join(str(v) for v in (opt.version() or ()))
    return make_solution(problem, key, x, z, s, backend="pyomo", solver=solver, version=version,
                         iterations=_iterations(opt, solver), solve_time=elapsed, info=info)


def _run(tr, solver, options):
    """(solver object, Pyomo results, wall time) of one solve; a solver's exception becomes a BackendError."""
    from pyomo.opt import SolverFactory

    _set_dual_suffix(tr, SOLVERS[solver].duals)
    for v in tr.x:
        v.value = None
    opt = SolverFactory(solver)
    t0 = time.perf_counter()
    try:
        results = opt.solve(tr.model, load_solutions=False, options=options)
    except Exception as exc:
        why = _failure_message(solver, exc)
        raise (OptionError if options and "rejected an option" in why else BackendError)(why) from exc
    return opt, results, time.perf_counter() - t0


def _check_finite(problem) -> None:
    for what, arr in (("A", sp.csr_matrix(problem.A).data), ("b", problem.b), ("q", problem.q),
                      ("P", sp.csr_matrix(problem.P).data), ("r0", np.array([problem.r0]))):
        if not np.all(np.isfinite(arr)):
            raise InputError(f"the conic data {what} contains NaN or inf: check the model's data and Parameter "
                             "values")


def _violated_empty_rows(problem, empty) -> list:
    if empty.size == 0:
        return []
    kinds = problem.row_kinds()
    b = problem.b[empty]
    tol = 1e-12 * (1.0 + np.abs(problem.b).max())
    eq = kinds[empty] == "zero"
    bad = np.where(eq, np.abs(b) > tol, b < -tol)
    return empty[bad].tolist()


def _set_dual_suffix(tr, on: bool) -> None:
    """Attach an empty IMPORT suffix ``dual`` for solvers that return duals, remove it for the others."""
    import pyomo.environ as pe
    import pyomo.kernel as pmo

    m = tr.model  # the suffix holds the previous solve's duals: empty it, so that none is read stale
    if on and getattr(m, "dual", None) is not None:
        m.dual.clear()
    if tr.kernel:
        if on and not hasattr(m, "dual"):
            m.dual = pmo.suffix(direction=pmo.suffix.IMPORT)
        elif not on and hasattr(m, "dual"):
            del m.dual
    elif on and m.component("dual") is None:
        m.dual = pe.Suffix(direction=pe.Suffix.IMPORT)
    elif not on and m.component("dual") is not None:
        m.del_component("dual")


def _duals(tr, problem, x) -> tuple:
    """(z, note): z_i = -(Pyomo dual of row i's constraint), empty rows 0; None when the duals are unusable.

    Duals that miss stationarity ``P x + q + A'z = 0`` by more than DUAL_STATIONARITY (relative, as in
    `certiprog.certificates.kkt`) are dropped: a QCP multiplier is undefined where a cone sits at its apex,
    and Gurobi then returns numbers that certify nothing. `check` recovers duals from x instead.
    """
    dual = tr.model.dual
    z = np.zeros(problem.m)
    for i, con in enumerate(tr.row_cons):
        if con is not None:
            d = dual.get(con)
            z[i] = np.nan if d is None else -float(d)
    if not np.all(np.isfinite(z)):
        return None, "dropped: the solver left some rows without a dual"
    Px, ATz = problem.P @ x, problem.A.T @ z
    nrm = np.linalg.norm
    rel = nrm(Px + problem.q + ATz) / (1 + max(nrm(problem.q), nrm(Px), nrm(ATz)))
    if rel > DUAL_STATIONARITY:
        return None, (f"dropped: the solver's duals miss stationarity by {rel:.2g} (relative); "
                      "certiprog.certificates.check recovers them from the primal point")
    return z, "from the solver (Pyomo dual suffix, sign-mapped)"


def _failure_message(solver: str, exc: Exception) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    low = text.lower()
    if "size-limited" in low or "model too large" in low:
        return (f"pyomo solver {solver}: the problem is too large for gurobipy's size-limited licence ({text}); "
                "use a full Gurobi licence, or solver='scip_direct' / backend='clarabel'")
    if "licen" in low:
        return f"pyomo solver {solver}: no usable licence ({text}); {SOLVERS[solver].licence} is needed"
    if "parameter" in low or "option" in low:
        return f"pyomo solver {solver} rejected an option ({text})"
    return f"pyomo solver {solver} failed: {text}"


register(Backend(
    name="pyomo", solve=solve_pyomo, cones=LINEAR | frozenset().union(*(s.cones for s in SOLVERS.values())),
    duals=True, warm_start=False, licence=None, requires=("pyomo",), solvers=lambda: installed_solvers(),
    why_unavailable=why_unavailable, capabilities=capabilities,
))
