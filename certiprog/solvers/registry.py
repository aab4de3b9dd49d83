"""Backend registry: each backend declares what it can do and how to solve a ConicProblem."""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from typing import Callable

from ..errors import BackendError


@dataclass
class Backend:
    """A backend: ``solve(problem, solver, options) -> Solution``.

    cones: cone kinds it accepts; duals: whether it returns duals; warm_start;
    licence: what licence it needs (None if free); requires: import names that must be installed;
    solvers(): names of the solvers it can drive here; licence_check(): None when the licence it needs is
    present, else the reason (a backend without its licence can still build and export, but is not listed by
    `available_backends()`, so loops over "every backend" skip it).
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

    def available(self) -> bool:
        return all(importlib.util.find_spec(r) is not None for r in self.requires)

    def licence_problem(self) -> str | None:
        """None when the backend can solve here, else why not (missing licence)."""
        return self.licence_check() if self.licence_check is not None else None


_REGISTRY: dict[str, Backend] = {}


def register(backend: Backend) -> Backend:
    _REGISTRY[backend.name] = backend
    return backend


def available_backends(licensed: bool = True, model=None) -> list[str]:
    """Names of backends whose packages are installed here (and, with ``licensed``, whose licence is present);
    with ``model`` (a Model or an assembled ConicProblem), only those that take every cone kind it has (e.g. no
    LP/QP-only backend for an SOCP)."""
    names = [n for n, b in _REGISTRY.items() if b.available() and not (licensed and b.licence_problem())]
    if model is None:
        return names
    problem = model.compile(forall="exact").assemble() if hasattr(model, "compile") else model
    kinds = {c.kind for c in problem.cones}
    return [n for n in names if kinds <= set(_REGISTRY[n].cones)]


def registered_backends() -> dict[str, Backend]:
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


def check_solver(backend: Backend, solver: str | None) -> str:
    """Resolve the solver name for a backend, raising a BackendError that lists the choices."""
    choices = backend.solvers()
    if solver is None:
        if backend.default_solver is not None:
            return backend.default_solver
        if not choices:
            raise BackendError(f"backend {backend.name!r} has no solver installed")
        return choices[0]
    if solver.upper() not in [c.upper() for c in choices]:
        why = backend.why_unavailable(solver) if backend.why_unavailable is not None else None
        raise BackendError(f"solver {solver!r} is not available for backend {backend.name!r}"
                           + (f" ({why})" if why else "") + f"; available: {choices}")
    return solver
