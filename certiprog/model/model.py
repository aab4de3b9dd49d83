"""The Model: named variables, named constraints and one objective."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import DCPError, ModelError, ShapeError
from .constraints import Constraint
from .expression import Expression, Parameter, Variable, as_expression
from .formulation import Formulation, check_formulation

if TYPE_CHECKING:  # for the annotation only: `Model.compile` imports it when first called
    from .compile import Structure


@dataclass(frozen=True)
class Objective:
    """``sense`` is 'minimize' or 'maximize'; ``expr`` a scalar expression."""

    sense: str
    expr: Expression

    def __post_init__(self):
        if self.sense not in ("minimize", "maximize"):
            raise ModelError(f"Objective sense must be 'minimize' or 'maximize'; got {self.sense!r}")
        if not isinstance(self.expr, Expression):
            raise ModelError(f"Objective expr must be an Expression; got {type(self.expr).__name__} "
                             "(use minimize(expr) or maximize(expr))")
        if self.expr.size != 1:
            raise ShapeError(f"the objective must be scalar; got shape {self.expr.shape} (use .sum() or a norm)")
        need = "convex" if self.sense == "minimize" else "concave"
        if self.expr.curvature not in ("constant", "affine", need):
            raise DCPError(
                f"cannot {self.sense} a {self.expr.curvature} expression: "
                f"{self.sense} needs a {need} objective (e.g. maximize -norm2(x), not norm2(x))"
            )

    @property
    def sign(self) -> float:
        """+1 for minimize, -1 for maximize: we always minimise sign * expr."""
        return 1.0 if self.sense == "minimize" else -1.0


def _scalar(expr) -> Expression:
    e = as_expression(expr)
    return e.reshape(()) if e.size == 1 else e


def minimize(expr) -> Objective:
    """The objective ``minimize expr`` (a convex scalar expression), for `Model`."""
    return Objective("minimize", _scalar(expr))


def maximize(expr) -> Objective:
    """The objective ``maximize expr`` (a concave scalar expression), for `Model`; duals are those of
    ``minimize -expr``."""
    return Objective("maximize", _scalar(expr))


class Model:
    """A convex program: ``Model(minimize(f), [constraints], name=...)``.

    Constraints are kept by name (``model.constraints[name]``); unnamed ones
    get ``c0, c1, ...``. Changing a Parameter's value keeps the compiled
    structure and only refills the numbers at the next solve. ``data``: the
    formulation's typed inputs (a `Formulation`: ``derive(solution)``, and
    optionally its own solver), as a paper's builder attaches them.
    """

    def __init__(self, objective: Objective | None = None, constraints=(), name: str = "model", *,
                 data: Formulation | None = None):
        if objective is not None and not isinstance(objective, Objective):
            raise ModelError("Model's objective must be minimize(expr) or maximize(expr); "
                             f"got {type(objective).__name__}")
        if not isinstance(name, str) or not name:
            raise ModelError(f"Model's name must be a non-empty string; got {name!r}")
        try:
            if isinstance(constraints, (Constraint, Expression, str)):
                raise TypeError(constraints)
            constraints = constraints if isinstance(constraints, dict) else list(constraints)
        except TypeError:
            raise ModelError("Model's constraints must be a list (or a dict name -> constraint) of constraints, "
                             f"e.g. [x >= 0]; got {type(constraints).__name__}") from None
        self.name = name
        self.constraints: dict[str, Constraint] = {}
        self.objective = objective
        self.data = data
        self._version = 0
        self._compiled: tuple[tuple[int, str], Structure] | None = None  # (version, forall) -> its structure
        if isinstance(constraints, dict):
            for k, c in constraints.items():
                self.add(c, name=k)
        else:
            for c in constraints:
                self.add(c)

    @property
    def data(self) -> Formulation | None:
        """The formulation's typed data (inputs, derived matrices), a `Formulation` with ``derive(solution)`` and,
        for a formulation with its own solver, ``structured_solve`` / ``structured_auto``; None for a plain model."""
        return self._data

    @data.setter
    def data(self, value: Formulation | None) -> None:
        self._data = check_formulation(value)

    # ------------------------------------------------------------- building
    def add(self, constraint: Constraint, name: str | None = None) -> Constraint:
        """Add a constraint under ``name`` (unique in the model) and return it."""
        if not isinstance(constraint, Constraint):
            raise ModelError(f"add() takes a constraint (e.g. `x >= 0`), got {type(constraint).__name__}")
        if name is not None and (not isinstance(name, str) or not name):
            raise ModelError(f"a constraint's name must be a non-empty string; got {name!r}")
        name = name or constraint.name or f"c{len(self.constraints)}"
        if name in self.constraints:
            raise ModelError(f"a constraint named {name!r} already exists in model {self.name!r}")
        constraint.name = name
        self.constraints[name] = constraint
        self._version += 1
        return constraint

    def remove(self, name: str) -> Constraint:
        """Remove the constraint called ``name`` and return it (ModelError if there is none)."""
        if not isinstance(name, str) or name not in self.constraints:
            raise ModelError(f"no constraint named {name!r}; have {list(self.constraints)}")
        self._version += 1
        return self.constraints.pop(name)

    def minimize(self, expr) -> "Model":
        """Set the objective to ``minimize expr``; returns the model."""
        self.objective = minimize(expr)
        self._version += 1
        return self

    def maximize(self, expr) -> "Model":
        """Set the objective to ``maximize expr``; returns the model."""
        self.objective = maximize(expr)
        self._version += 1
        return self

    @property
    def variables(self) -> dict[str, Variable]:
        """User variables by name, in order of first appearance."""
        found: dict[int, Variable] = {}
        exprs = [self.objective.expr] if self.objective else []
        for e in exprs:
            found.update({v.id: v for v in e.variables})
        for c in self.constraints.values():
            found.update({v.id: v for v in c.variables})
        out: dict[str, Variable] = {}
        for v in found.values():
            if v.name in out and out[v.name] is not v:
                raise ModelError(f"two different variables are named {v.name!r}; give each a unique name")
            out[v.name] = v
        return out

    def variable(self, name: str) -> Variable:
        """The Variable called ``name`` (ModelError listing the model's variables if there is none)."""
        try:
            if not isinstance(name, str):
                raise KeyError(name)
            return self.variables[name]
        except KeyError:
            raise ModelError(f"no variable named {name!r}; have {list(self.variables)}") from None

    @property
    def parameters(self) -> dict[str, Parameter]:
        """Every Parameter the objective and the constraints use, by name."""
        from .coef import Lazy, ParamLeaf

        found: dict[str, Parameter] = {}

        def walk(c):
            if isinstance(c, ParamLeaf):
                found[c.param.name] = c.param
            elif isinstance(c, Lazy):
                for a in c.args:
                    walk(a)

        for e in self._all_expressions():
            walk(e.const)
            for c in e.terms.values():
                walk(c)
            for _, atom in e.nonlin:
                for a in atom.args:
                    walk(a.const)
                    for c in a.terms.values():
                        walk(c)
        return found

    def derived(self, solution):
        """What the formulation derives from a solution (a paper's b*, bound, recovered matrix, ...), typed.

        A builder attaches ``model.data``, a `Formulation` whose ``derive(solution)`` returns a `Record` (see
        `certiprog.model.results`); None when the model has no such data or the solution has no primal point.
        """
        derive = getattr(self.data, "derive", None)
        return None if derive is None or solution is None or solution.x is None else derive(solution)

    def _all_expressions(self):
        if self.objective:
            yield self.objective.expr
        for c in self.constraints.values():
            yield from c.expressions()

    def __repr__(self):
        return (
            f"Model({self.name!r}: {self.objective.sense if self.objective else 'no objective'}, "
            f"{len(self.variables)} variables, {len(self.constraints)} constraints)"
        )

    # ------------------------------------------------------------- solving
    def compile(self, forall: str = "auto"):
        """The canonicalised structure (cached until the model's structure changes); ``.assemble()`` gives numbers.

        ``forall``: 'auto' (= 'exact': ForAll with an exact form compiled, others left to cutting planes)
        or 'cutting_plane' (every ForAll left to cutting planes).
        """
        from .compile import compile_model

        if not isinstance(forall, str) or forall not in ("auto", "exact", "cutting_plane"):
            raise ModelError(f"forall must be 'auto', 'exact' or 'cutting_plane'; got {forall!r}")
        key = (self._version, "exact" if forall == "auto" else forall)
        if self._compiled is None or self._compiled[0] != key:
            self._compiled = (key, compile_model(self, forall=forall))
        return self._compiled[1]

    def export(self, path, *, names: bool = True):
        """Write the compiled conic program to a file other solvers read (.ptf, .cbf, .task, .jtask; via the
        ``mosek`` package, no licence needed). Returns the path."""
        from ..solvers.backends.mosek_backend import export

        return export(self, path, names=names)

    def solve(self, backend: str | None = None, solver: str | None = None, **options):
        """Solve and return a Solution: on ``backend`` / ``solver`` when named (see
        `certiprog.solvers.available_solvers(model=...)`), else on the solver certiprog chooses, moving on to the
        next when the certificate cannot confirm an answer (``sol.attempts``, `certiprog.solvers`).

        ``forall='auto'|'exact'|'cutting_plane'`` picks how ForAll constraints are handled;
        cutting-plane options: ``cp_tol``, ``cp_max_iter``, ``progress``; every other option goes to the solver.
        """
        from ..solvers import solve_model

        return solve_model(self, backend=backend, solver=solver, **options)
