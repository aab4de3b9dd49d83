"""Solution: primal values by variable name, duals by constraint name, status, timings.

Duals follow ONE convention whatever the backend (see `certiprog.model.constraints`):
a constraint is ``s(x) in K`` with dual ``z in K*`` and Lagrangian
``f(x) - <z, s(x)>`` of the minimisation form. So ``dual`` of ``lhs <= rhs`` is
the usual nonnegative multiplier, of ``lhs == rhs`` the multiplier of
``lhs - rhs = 0``, of ``SOC``/``PSD`` a vector/matrix of the (self-dual) cone.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

import numpy as np

from ..errors import ModelError
from ..model.cones import smat



@dataclass(frozen=True)
class Status:
    """Three parts: why the solver stopped, and what is known of the primal and of the dual.

    termination: optimal | inaccurate | infeasible | unbounded | infeasible_or_unbounded | iteration_limit |
    time_limit | numerical_error
    primal, dual: feasible | infeasible | infeasible_inaccurate (infeasibility detected to reduced accuracy) |
    unknown.
    """

    termination: str
    primal: str
    dual: str

    def __eq__(self, other):
        if isinstance(other, str):
            return self.termination == other
        return (self.termination, self.primal, self.dual) == (other.termination, other.primal, other.dual)

    def __hash__(self):
        return hash((self.termination, self.primal, self.dual))

    def __str__(self):
        return self.termination

    @property
    def ok(self) -> bool:
        """True when a primal point is available (optimal or inaccurate)."""
        return self.termination in ("optimal", "inaccurate")


@dataclass
class Solution:
    status: Status
    objective: float
    x: np.ndarray | None  # stacked primal (conic form columns)
    z: np.ndarray | None  # stacked dual (conic form rows)
    s: np.ndarray | None  # stacked slack
    problem: object  # the ConicProblem that was solved
    backend: str
    solver: str
    solver_version: str = ""
    iterations: int | None = None
    compile_time: float = 0.0
    solve_time: float = 0.0
    duals_recovered: bool = False
    history: list = field(default_factory=list)  # cutting planes: one dict per iteration
    cuts: dict = field(default_factory=dict)  # ForAll name -> list of cut points
    certificate: np.ndarray | None = None  # infeasibility / unboundedness ray when the solver gives one
    info: dict = field(default_factory=dict)

    # ------------------------------------------------------------ access
    def _name(self, obj) -> str:
        return obj if isinstance(obj, str) else getattr(obj, "name", None)

    def value(self, var) -> np.ndarray:
        """Value of a variable (by name or object) in its own shape."""
        name = self._name(var)
        if name not in self.problem.columns:
            raise ModelError(f"no variable named {name!r} in this solution; have {list(self.problem.columns)}")
        if self.x is None:
            raise ModelError(f"no primal point: the solve ended with status {self.status.termination!r}")
        v, a, b = self.problem.columns[name]
        return v.unflat(self.x[a:b])

    @property
    def values(self) -> dict:
        return {n: self.value(n) for n in self.problem.columns if not n.startswith("_")}

    def dual(self, con) -> np.ndarray:
        """Dual of a constraint (by name or object) in the shape of the constraint (see module doc)."""
        name = self._name(con)
        if (self.z is None or not np.all(np.isfinite(self.z))) and self.x is not None and self.status.ok:
            self._recover_duals()
        if self.z is None:
            raise ModelError(f"no dual point: the solve ended with status {self.status.termination!r}")
        blocks = self.problem.rows_of(name)
        con_obj = self.problem.structure.model.constraints.get(name)
        z = np.concatenate([self.z[b.start:b.stop] for b in blocks])
        if len(blocks) == 1 and blocks[0].cone.kind == "psd":
            return smat(z, blocks[0].cone.side)
        if name in self.cuts:
            return z  # one multiplier per cut
        if con_obj is not None:
            return z.reshape(con_obj.dual_shape())
        return z

    def _recover_duals(self) -> None:
        """Fill missing duals (solvers such as SCIP return none) from the primal point, once, and say so."""
        from ..certificates.recovery import recover_duals

        self.z = recover_duals(self.problem, self.x)
        self.duals_recovered = True
        self.info["duals_recovered"] = "the solver returned no usable duals; recovered from the primal point"

    @property
    def ok(self) -> bool:
        return self.status.ok

    def summary(self) -> dict:
        return {
            "status": asdict(self.status), "objective": self.objective, "backend": self.backend,
            "solver": self.solver, "solver_version": self.solver_version, "iterations": self.iterations,
            "compile_time": self.compile_time, "solve_time": self.solve_time,
        }

    def __repr__(self):
        return (f"Solution(status={self.status.termination!r}, objective={self.objective:.6g}, "
                f"backend={self.backend!r}, solver={self.solver!r})")

    # ------------------------------------------------------------ saving
    def save(self, path_stem: str) -> None:
        """Write ``path_stem.json`` (metadata, status, names) and ``path_stem.npz`` (arrays). No pickle."""
        meta = self.summary()
        meta["format"] = "certiprog.solution/1"
        meta["history"] = self.history
        meta["variables"] = {n: [a, b] for n, (_, a, b) in self.problem.columns.items()}
        with open(f"{path_stem}.json", "w") as fh:
            json.dump(meta, fh, indent=1, default=float)
        arrays = {k: getattr(self, k) for k in ("x", "z", "s") if getattr(self, k) is not None}
        np.savez(f"{path_stem}.npz", **arrays)


def load_solution_data(path_stem: str) -> dict:
    """Read back what `Solution.save` wrote, validating the format; returns a dict of plain data."""
    with open(f"{path_stem}.json") as fh:
        meta = json.load(fh)
    if meta.get("format") != "certiprog.solution/1":
        raise ModelError(f"{path_stem}.json is not a certiprog solution file (format {meta.get('format')!r})")
    with np.load(f"{path_stem}.npz", allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    n = max((b for _, b in meta["variables"].values()), default=0)
    if "x" in arrays and arrays["x"].shape != (n,):
        raise ModelError(f"{path_stem}.npz: x has shape {arrays['x'].shape}, the metadata says {n} columns")
    meta.update(arrays)
    return meta
