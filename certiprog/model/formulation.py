"""`Formulation`: the contract of ``model.data``, the typed object a paper's builder attaches to its Model.

A builder returns ``Model(objective, constraints, data=...)`` (or sets ``model.data``) with an object holding the
formulation's inputs and derived matrices, which offers

* ``derive(solution) -> Record | None``: what the paper reports from a solution (``model.derived(sol)``,
  `certiprog.model.results`);

and, when the formulation has its own structure-exploiting solver (`StructuredFormulation`),

* ``structured_solve(**options) -> StructuredAnswer``: ``model.solve(solver="structured")`` and certiprog's
  automatic choice (`certiprog.solvers.structured`; `StructuredAnswer` lives there, beside its one consumer);
* ``structured_auto(problem) -> bool``: whether certiprog's automatic choice tries that solver first at this size.

These are `typing.Protocol`s: a dataclass with those methods is a Formulation, no base class needed. Why not
`getattr` on any object: the contract is written down once, type checkers read it, and `Model` warns about a
``data`` that offers none of it (a mistyped method would otherwise silently turn the formulation's solver off).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..errors import ModelError

if TYPE_CHECKING:  # annotations only: the answer type is the solvers layer's
    from ..conic.problem import ConicProblem
    from ..solvers.structured import StructuredAnswer
    from .results import Record

__all__ = ["Formulation", "StructuredFormulation", "check_formulation"]


@runtime_checkable
class Formulation(Protocol):
    """``model.data``: a formulation's typed inputs with ``derive(solution)`` (see the module docstring)."""

    def derive(self, solution: Any) -> Record | None:
        """The quantities the paper reports from ``solution`` (a `Record`), or None."""
        ...


@runtime_checkable
class StructuredFormulation(Formulation, Protocol):
    """A `Formulation` with its own structure-exploiting solver (`certiprog.solvers.structured`)."""

    def structured_solve(self, **options: Any) -> StructuredAnswer:
        """Solve the formulation with its own solver; a typed `StructuredAnswer`."""
        ...

    def structured_auto(self, problem: ConicProblem) -> bool:
        """True when certiprog's automatic choice should try `structured_solve` first for ``problem``."""
        ...


#: the methods a ``model.data`` may offer; it must offer at least one (`check_formulation`)
METHODS = ("derive", "structured_solve", "structured_auto")


def check_formulation(data):
    """``data`` as a Model's ``data``: None or a `Formulation` (an object offering at least one of `METHODS`). Any
    other object is still kept, with a DeprecationWarning naming the contract (code that stored arbitrary values in
    ``model.data`` keeps working for one release); a dict is refused (a mistyped formulation, never a contract)."""
    if data is None or any(callable(getattr(data, m, None)) for m in METHODS):
        return data
    what = (f"model.data should be a Formulation (certiprog.model.Formulation: derive(solution), and for a "
            f"formulation with its own solver structured_solve(**options) / structured_auto(problem)) or None; "
            f"got a {type(data).__name__} with none of {list(METHODS)}")
    if isinstance(data, dict):
        raise ModelError(what)
    warnings.warn(what + "; other objects will be refused in a future release", DeprecationWarning, stacklevel=3)
    return data
