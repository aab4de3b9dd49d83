"""Backend registry, per-solver capabilities, and the one place where certiprog chooses a solver.

Every backend declares a `SolverCapabilities` for each solver it can drive: cones, quadratic objective, duals,
infeasibility / unboundedness rays, licence and size limit. From these declarations alone

* `available_solvers(model)` lists the (backend, solver) pairs installed here, licensed, and able to take the
  model's cones and objective; `available_backends(model)` the backends with at least one such solver;
* `choose(problem, backend=None)` orders them by preference (`ENGINE_ORDER`, with a solver's own
  ``preferred(problem)`` first: PIQP's dense interior point for large dense LP/QPs such as cutting-plane masters),
  one pair per solver engine. `certiprog.solvers.solve_conic` tries them in that order and keeps the first answer
  its certificate confirms (`certiprog.solvers.fallback`).
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from typing import Callable

from ..errors import BackendError, InputError

LINEAR = frozenset({"zero", "nonneg"})

#: preference between solver engines when certiprog chooses (engines not listed come last, in registry order):
#: the two that return infeasibility / unboundedness rays first, then accurate interior point / simplex codes,
#: first-order and global (branch-and-bound) codes last
ENGINE_ORDER = ("clarabel", "mosek", "highs", "gurobi", "piqp", "ecos", "cvxopt", "osqp", "scs", "scip", "scipy")
#: preference between backends offering the same engine: direct interfaces, then Pyomo (tuned defaults), then CVXPY
BACKEND_ORDER = ("clarabel", "mosek", "piqp", "pyomo", "cvxpy")


@dataclass(frozen=True)
class Needs:
    """What a problem asks of a solver: cone kinds, a quadratic objective, its size (n columns, m rows)."""

    cones: frozenset = LINEAR
    quadratic: bool = False
    n: int = 0
    m: int = 0

    @property
    def conic(self) -> bool:
        """True when the problem has a cone beyond zero and nonnegative rows."""
        return bool(self.cones - LINEAR)


@dataclass(frozen=True)
class SolverCapabilities:
    """What one solver of one backend takes and returns.

    engine: the solver underneath (the same engine behind two backends is tried once by `choose`);
    cones: cone kinds it takes; quadratic: quadratic objectives; quadratic_with_cones: both in one problem;
    duals: it returns duals; rays: infeasibility / unboundedness certificates in ``Solution.certificate``;
    licence(): None when its licence is present (or it needs none), else why not; size_limit(needs): None, or
    why the problem is too large (a size-limited licence); preferred(problem): True when this solver should be
    tried first for that problem; warm_start: it can start from a previous point; refine: options for a tighter
    re-solve (None: it has none certiprog uses).
    """

    engine: str
    cones: frozenset = LINEAR
    quadratic: bool = True
    quadratic_with_cones: bool = True
    duals: bool = True
    rays: bool = False
    licence: Callable | None = None
    size_limit: Callable | None = None
    preferred: Callable | None = None
    warm_start: bool = False
    #: options that ask this solver for a more accurate answer; certiprog's own choice re-solves once with them
    #: when the answer's interval is finite but too wide to certify (`certiprog.solvers.solve_conic`)
    refine: dict | None = None

    def refusal(self, needs: Needs) -> str | None:
        """Why this solver cannot take a problem with these needs (None when it can)."""
        missing = needs.cones - self.cones
        if missing:
            return f"takes no {sorted(missing)} cone"
        if needs.quadratic and not self.quadratic:
            return "takes linear objectives only"
        if needs.quadratic and needs.conic and not self.quadratic_with_cones:
            return "takes no quadratic objective together with cones"
        return self.size_limit(needs) if self.size_limit is not None else None

    def licence_problem(self) -> str | None:
        """None when the solver can run here, else why not (a missing licence)."""
        return self.licence() if self.licence is not None else None


@dataclass
class Backend:
    """A backend: ``solve(problem, solver, options) -> Solution``.

    cones: every cone kind some solver of it accepts; duals, warm_start: the same for the backend as a whole;
    licence: what licence it needs (None if free); requires: import names that must be installed;
    solvers(): names of the solvers it can drive here; capabilities: {solver name: SolverCapabilities} (or a
    function returning it) for every solver it knows, installed or not (a backend without it gets one entry per
    solver built from the fields above); licence_check(): None when the licence it needs is present, else the
    reason (a backend without its licence can still build and export, but is not listed by
    `available_backends()`); default_solver: not used to choose (see `choose`), kept for callers that read it.
    """

    name: str
    solve: Callable
    cones: frozenset
    duals: bool
    warm_start: bool = False
    licence: str | None = None
    requires: tuple = ()
    solvers: Callable = field(default=lambda: [])
    default_solver: str | None = None
    licence_check: Callable | None = None
    why_unavailable: Callable | None = None  # solver name -> reason it cannot run here (e.g. its licence), or None
    capabilities: dict | Callable | None = None

    def available(self) -> bool:
        return all(importlib.util.find_spec(r) is not None for r in self.requires)

    def licence_problem(self) -> str | None:
        """None when the backend can solve here, else why not (missing licence)."""
        return self.licence_check() if self.licence_check is not None else None

    def capabilities_of(self, solver: str) -> SolverCapabilities | None:
        """The declared capabilities of ``solver`` (matched case-insensitively); None when undeclared."""
        if self.capabilities is None:
            return SolverCapabilities(engine=f"{self.name}:{solver}", cones=frozenset(self.cones), duals=self.duals,
                                      warm_start=self.warm_start)
        declared = self.capabilities() if callable(self.capabilities) else self.capabilities
        for name, caps in declared.items():
            if name.upper() == str(solver).upper():
                return caps
        return None


_REGISTRY: dict[str, Backend] = {}


def register(backend: Backend) -> Backend:
    _REGISTRY[backend.name] = backend
    return backend


def registered_backends() -> dict[str, Backend]:
    """Every backend certiprog knows, by name, installed here or not (`available_backends` lists the installed)."""
    return dict(_REGISTRY)


def get_backend(name: str) -> Backend:
    """The backend called ``name``, or a BackendError listing the available ones."""
    if name not in _REGISTRY:
        raise BackendError(f"unknown backend {name!r}; available here: {available_backends()}")
    b = _REGISTRY[name]
    if not b.available():
        raise BackendError(
            f"backend {name!r} needs the package(s) {list(b.requires)} (pip install 'certiprog[{name}]'); "
            f"available here: {available_backends()}"
        )
    return b


# --------------------------------------------------------------------------- what a problem needs
def as_problem(model_or_problem):
    """An assembled ConicProblem from a Model (ForAll constraints in their exact form) or a ConicProblem."""
    if hasattr(model_or_problem, "compile"):
        return model_or_problem.compile(forall="exact").assemble()
    if hasattr(model_or_problem, "cones") and hasattr(model_or_problem, "P"):
        return model_or_problem
    raise InputError(f"model must be a Model, a ConicProblem or a Needs; got {type(model_or_problem).__name__}")


def needs(model_or_problem) -> Needs:
    """The `Needs` of a Model, a ConicProblem, or a Needs (returned as is)."""
    if isinstance(model_or_problem, Needs):
        return model_or_problem
    p = as_problem(model_or_problem)
    return Needs(cones=frozenset(c.kind for c in p.cones) | LINEAR, quadratic=bool(p.P.count_nonzero()),
                 n=p.n, m=p.m)


# --------------------------------------------------------------------------- what is available here
def _solver_problem(b: Backend, solver: str, licensed: bool) -> tuple[SolverCapabilities | None, str | None]:
    caps = b.capabilities_of(solver)
    if caps is None:
        return None, f"{b.name}/{solver} declares no capabilities (name it to use it)"
    if licensed:
        why = b.licence_problem() or caps.licence_problem()
        if why:
            return caps, why
    return caps, None


def available_solvers(model=None, licensed: bool = True, backend: str | None = None) -> list[tuple[str, str]]:
    """(backend, solver) pairs installed here (and, with ``licensed``, licensed) whose declared capabilities take
    ``model`` (a Model, an assembled ConicProblem or a `Needs`; None: every installed pair), in registry order;
    ``backend`` restricts the list to one backend."""
    nd = None if model is None else needs(model)
    out = []
    for name, b in _REGISTRY.items():
        if (backend is not None and name != backend) or not b.available():
            continue
        for s in b.solvers():
            caps, why = _solver_problem(b, s, licensed)
            if caps is None or why or (nd is not None and caps.refusal(nd)):
                continue
            out.append((name, s))
    return out


def available_backends(licensed: bool = True, model=None) -> list[str]:
    """Names of backends whose packages are installed here (and, with ``licensed``, whose licence is present);
    with ``model`` (a Model, an assembled ConicProblem or a `Needs`), only those with an installed solver whose
    own capabilities take its cones and objective (pyomo with only HiGHS installed is not offered for an SOCP)."""
    if model is None:
        return [n for n, b in _REGISTRY.items() if b.available() and not (licensed and b.licence_problem())]
    names = {b for b, _ in available_solvers(model, licensed=licensed)}
    return [n for n in _REGISTRY if n in names]


# --------------------------------------------------------------------------- the choice
def _rank(order: tuple, name: str) -> int:
    return order.index(name) if name in order else len(order)


def choose(model_or_problem, backend: str | None = None) -> list[tuple[str, str]]:
    """(backend, solver) pairs to try for a problem, best first: every available, licensed pair whose capabilities
    take it (restricted to ``backend`` if given), one per engine, a solver whose ``preferred(problem)`` holds
    first, then by `ENGINE_ORDER` and `BACKEND_ORDER`. Empty when nothing here takes the problem. A named backend
    none of whose capable solvers has its licence keeps them, so that solving says why (MOSEK's licence paths)."""
    problem = model_or_problem if isinstance(model_or_problem, Needs) else as_problem(model_or_problem)
    pairs = available_solvers(problem, backend=backend)
    if not pairs and backend is not None:
        pairs = available_solvers(problem, licensed=False, backend=backend)

    def key(pair):
        caps = _REGISTRY[pair[0]].capabilities_of(pair[1])
        first = caps.preferred is not None and not isinstance(problem, Needs) and bool(caps.preferred(problem))
        return (not first, _rank(ENGINE_ORDER, caps.engine), _rank(BACKEND_ORDER, pair[0]))

    out, engines = [], set()
    for pair in sorted(pairs, key=key):  # stable: registry order breaks the remaining ties
        caps = _REGISTRY[pair[0]].capabilities_of(pair[1])
        assert caps is not None  # available_solvers lists only solvers with declared capabilities
        engine = caps.engine
        if engine not in engines:
            engines.add(engine)
            out.append(pair)
    return out


def why_none(model_or_problem, backend: str | None = None) -> str:
    """Why `choose` found nothing: each installed solver's refusal, for the error message."""
    nd = needs(model_or_problem)
    reasons = []
    for name, b in _REGISTRY.items():
        if (backend is not None and name != backend) or not b.available():
            continue
        for s in b.solvers():
            caps, why = _solver_problem(b, s, True)
            why = why or (caps.refusal(nd) if caps is not None else None)
            if why:
                reasons.append(f"{name}/{s}: {why}")
    return "; ".join(reasons) or "no solver is installed"


def check_solver(backend: Backend, solver: str) -> str:
    """The backend's own spelling of a named solver (matched case-insensitively), or a BackendError listing the
    installed ones."""
    choices = backend.solvers()
    for c in choices:
        if str(c).upper() == str(solver).upper():
            return c
    why = backend.why_unavailable(solver) if backend.why_unavailable is not None else None
    raise BackendError(f"solver {solver!r} is not available for backend {backend.name!r}"
                       + (f" ({why})" if why else "") + f"; available: {choices}")


def backend_of_solver(solver: str) -> str:
    """The backend that offers ``solver`` (for ``solve(solver=...)`` without a backend): the only one, or the
    backend of that name (the direct interface: 'clarabel', not CVXPY's 'CLARABEL')."""
    owners = [n for n, b in _REGISTRY.items() if b.available()
              and str(solver).upper() in [str(s).upper() for s in b.solvers()]]
    if len(owners) == 1 or str(solver).lower() in owners:
        return owners[0] if len(owners) == 1 else str(solver).lower()
    if not owners:
        raise BackendError(f"no available backend offers the solver {solver!r}; available (backend, solver) pairs: "
                           f"{available_solvers()}")
    raise BackendError(f"the solver {solver!r} is offered by the backends {owners}: name one with backend=...")
