"""Solution: primal values by variable name, duals by constraint name, status, timings.

Duals follow ONE convention whatever the backend (see `certiprog.model.constraints`):
a constraint is ``s(x) in K`` with dual ``z in K*`` and Lagrangian
``f(x) - <z, s(x)>`` of the minimisation form. So ``dual`` of ``lhs <= rhs`` is
the usual nonnegative multiplier, of ``lhs == rhs`` the multiplier of
``lhs - rhs = 0``, of ``SOC``/``PSD`` a vector/matrix of the (self-dual) cone.
"""
from __future__ import annotations

import hashlib
import json
import math
import warnings
import weakref
from dataclasses import asdict, dataclass, field
from enum import Enum

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401  (sp.linalg.norm)

from ..certify.verdict import Interval, Verdict
from ..conic.cones import Cone
from ..conic.problem import ConicProblem
from ..errors import InputError, ModelError, SavedFileError
from ..model.results import Record


class Termination(str, Enum):
    """Why the solver stopped: a string enum whose values are the words certiprog has always used
    (``sol.status.termination == "optimal"`` keeps working; JSON writes the word). `Status` defines each."""

    OPTIMAL = "optimal"
    INACCURATE = "inaccurate"
    UNCONFIRMED = "unconfirmed"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    INFEASIBLE_OR_UNBOUNDED = "infeasible_or_unbounded"
    ITERATION_LIMIT = "iteration_limit"
    TIME_LIMIT = "time_limit"
    NUMERICAL_ERROR = "numerical_error"

    def __str__(self) -> str:
        return self.value


class Feasibility(str, Enum):
    """What is known of the primal or of the dual side: a string enum of `Status`'s words."""

    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    INFEASIBLE_INACCURATE = "infeasible_inaccurate"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


def _enum(kind, word, what: str):
    try:
        return kind(word)
    except ValueError:
        raise ModelError(f"unknown {what} {word!r}; one of {[k.value for k in kind]}") from None


@dataclass(frozen=True)
class Status:
    """Three parts: why the solver stopped, and what is known of the primal and of the dual.

    termination (`Termination`): optimal | inaccurate | unconfirmed | infeasible | unbounded |
    infeasible_or_unbounded | iteration_limit | time_limit | numerical_error. ``unconfirmed`` is certiprog's own word
    on its default path (certiprog chose the solver): a point is returned that the certificate does not prove
    optimal (the solver may have said 'optimal'; ``Solution.info['solver_termination']`` keeps its word,
    ``Solution.certification`` says why). Where certiprog chooses, ``optimal`` means certified.
    primal, dual (`Feasibility`): feasible | infeasible | infeasible_inaccurate (infeasibility detected to reduced
    accuracy) | unknown. All three are string enums: they compare equal to (and serialise as) the words.
    """

    termination: Termination | str  # a Termination after construction (a word is converted)
    primal: Feasibility | str  # a Feasibility after construction
    dual: Feasibility | str

    def __post_init__(self):
        object.__setattr__(self, "termination", _enum(Termination, self.termination, "termination"))
        object.__setattr__(self, "primal", _enum(Feasibility, self.primal, "primal status"))
        object.__setattr__(self, "dual", _enum(Feasibility, self.dual, "dual status"))

    def __eq__(self, other):
        if isinstance(other, str):
            return self.termination == other
        if not isinstance(other, Status):
            return NotImplemented
        return (self.termination, self.primal, self.dual) == (other.termination, other.primal, other.dual)

    def __hash__(self):
        return hash((self.termination, self.primal, self.dual))

    def __str__(self):
        return str(self.termination)

    @property
    def ok(self) -> bool:
        """True when a primal point is available (optimal or inaccurate)."""
        return self.termination in ("optimal", "inaccurate", "unconfirmed")


@dataclass(frozen=True, eq=False)
class Attempt(Record):
    """One candidate certiprog tried on its default path (`certiprog.solvers.fallback`), in the order tried.

    ``label``: what the record calls it (``'clarabel/clarabel'``, ``'structured'``, ``'piqp/piqp (tighter:
    {...})'``); ``backend``, ``solver``; ``options``: the solver options it ran with (the caller's, plus the
    declared tighter tolerances of a re-solve); ``termination``: the solver's own word (None when it refused);
    ``verdict``: the certificate's `Verdict` on its answer (None when it refused); ``time``: wall seconds of the
    solve and the check; ``chosen``: whether this answer is the one returned; ``rejected``: why the certificate
    does not back its answer, or why it was not chosen ('' for a chosen answer the certificate backs; why a chosen
    answer is unconfirmed is ``Solution.fallback_note``); ``error``: the refusal (a BackendError's message) when
    the candidate gave no answer."""

    label: str
    backend: str
    solver: str
    options: dict = field(default_factory=dict)
    termination: Termination | str | None = None  # a Termination after construction
    verdict: Verdict | str | None = None  # a Verdict after construction
    time: float = 0.0
    chosen: bool = False
    rejected: str = ""
    error: str = ""

    def __post_init__(self):
        if self.termination is not None:
            object.__setattr__(self, "termination", _enum(Termination, self.termination, "termination"))
        if self.verdict is not None:
            object.__setattr__(self, "verdict", _enum(Verdict, self.verdict, "verdict"))

    @property
    def refused(self) -> bool:
        """True when the candidate gave no answer (``error`` says why)."""
        return self.verdict is None

    def legacy(self) -> dict:
        """The entry the untyped ``info['fallback']['attempts']`` list used to hold (for the deprecated key)."""
        if self.refused:
            return {"solver": self.label, "error": self.error}
        # the old record's 'verdict' was the reason when the certificate never ran (no point and no ray)
        word = str(self.verdict)
        reason = self.rejected if self.rejected and not self.rejected.startswith(word) else word
        backed = word.startswith(("certified", "accurate", "inaccurate"))
        return {"solver": self.label, "status": str(self.termination), "verdict": word if backed else reason}

    def to_json(self) -> dict:
        """Plain JSON data (`Solution.save`); `from_json` reads it back, validated."""
        return {"label": self.label, "backend": self.backend, "solver": self.solver,
                "options": _jsonable(self.options),
                "termination": None if self.termination is None else str(self.termination),
                "verdict": None if self.verdict is None else str(self.verdict), "time": float(self.time),
                "chosen": bool(self.chosen), "rejected": self.rejected, "error": self.error}

    @classmethod
    def from_json(cls, d) -> "Attempt":
        """An Attempt from `to_json`'s data; ValueError naming the fault for anything else."""
        types: dict[str, type | tuple[type, ...]] = {
            "label": str, "backend": str, "solver": str, "options": dict, "termination": (str, type(None)),
            "verdict": (str, type(None)), "time": (int, float), "chosen": bool, "rejected": str, "error": str}
        if not isinstance(d, dict) or set(d) != set(types):
            raise ValueError(f"an attempt must have exactly the keys {sorted(types)}")
        for key, kind in types.items():
            if not isinstance(d[key], kind) or (kind is not bool and isinstance(d[key], bool)):
                raise ValueError(f"attempt field {key!r} is a {type(d[key]).__name__}")
        t = d["time"]
        finite = math.isfinite(t) if isinstance(t, float) else abs(t) < 2**53  # a huge int: no float
        if not (finite and t >= 0):
            raise ValueError(f"attempt time must be finite and >= 0; got {d['time']!r}")
        if (d["verdict"] is None) != (d["termination"] is None):
            raise ValueError("an attempt has both a termination and a verdict (an answer) or neither (a refusal)")
        try:
            return cls(**d)
        except ModelError as exc:
            raise ValueError(str(exc)) from None


class SolutionInfo(dict):
    """``Solution.info``: the solver's own extra words (backend-specific, untyped: its raw status, the recovered
    duals' note, ...). The results certiprog computes are typed fields of the Solution; the keys that used to
    carry them still answer, from those fields, with a DeprecationWarning: ``'verdict'`` (`Solution.verdict`),
    ``'fallback'`` (`Solution.attempts` and `Solution.fallback_note`), ``'interval'`` (`Solution.solver_interval`).
    """

    LEGACY = {"verdict": "sol.verdict", "fallback": "sol.attempts (and sol.fallback_note)",
              "interval": "sol.solver_interval"}

    def __init__(self, data=(), owner=None):
        super().__init__(data)
        self._owner = None if owner is None else weakref.ref(owner)

    def _legacy(self, key):
        owner = self._owner() if self._owner is not None else None
        if owner is None:
            return None
        if key == "verdict":
            return owner.verdict
        if key == "interval":
            return owner.solver_interval
        if not owner.attempts:
            return None
        chosen = next((a.label for a in owner.attempts if a.chosen), None)
        out = {"chosen": chosen, "attempts": [a.legacy() for a in owner.attempts]}
        return {**out, "note": owner.fallback_note} if owner.fallback_note else out

    @staticmethod
    def _warn(key) -> None:
        warnings.warn(f"sol.info[{key!r}] is deprecated: read {SolutionInfo.LEGACY[key]} (typed)", DeprecationWarning,
                      stacklevel=3)

    def __getitem__(self, key):
        if key in self.LEGACY and not dict.__contains__(self, key):
            value = self._legacy(key)
            if value is not None:
                self._warn(key)
                return value
        return super().__getitem__(key)

    def get(self, key, default=None):
        if key in self.LEGACY and not dict.__contains__(self, key):
            value = self._legacy(key)
            if value is not None:
                self._warn(key)
                return value
        return super().get(key, default)

    def __contains__(self, key):
        if key in self.LEGACY and not dict.__contains__(self, key):
            return self._legacy(key) is not None
        return super().__contains__(key)

    def __setitem__(self, key, value):
        if key in self.LEGACY:
            warnings.warn(f"sol.info[{key!r}] is no longer certiprog's record (see {SolutionInfo.LEGACY[key]}); "
                          "the value is kept as an untyped extra", DeprecationWarning, stacklevel=2)
        super().__setitem__(key, value)

    def __reduce__(self):  # copies hold the plain entries; the Solution re-binds its own (Solution.__setstate__)
        return (SolutionInfo, (dict(self),))


@dataclass
class Solution:
    """A backend's answer in certiprog's conventions: values by variable name (`value`), duals by constraint name
    (`dual`, sign convention in the user guide), the `Status`, the ``backend`` and ``solver`` that produced it, and
    the certificate's ``verdict`` once checked. ``x``, ``z``, ``s`` are the stacked conic-form primal, dual and
    slack; ``certificate`` an infeasibility or unboundedness ray. `save` / `load` write and read JSON + .npz.

    Typed results of the solve: ``verdict`` (`certiprog.certify.Verdict`), ``certification`` (the
    `Certificate`), ``attempts`` (one `Attempt` per candidate certiprog's default path tried, empty when the solver
    was named) with ``fallback_note`` (why the returned answer is unconfirmed, when it is), ``solver_interval``
    (a structured solver's own rigorous `Interval`). ``info`` holds only the solver's untyped extra words."""

    status: Status
    objective: float
    x: np.ndarray | None  # stacked primal (conic form columns)
    z: np.ndarray | None  # stacked dual (conic form rows)
    s: np.ndarray | None  # stacked slack
    problem: ConicProblem | None  # the ConicProblem that was solved (None: loaded without it)
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
    #: the `certiprog.certify.Certificate` of this answer (the full check at solve time; None until checked):
    #: ``check(model, sol)`` with default arguments returns (a copy of) it while the data and the point are unchanged
    certification: object = field(default=None, repr=False, compare=False)
    #: certiprog's default path: every candidate tried, in order (`Attempt`); empty when the solver was named
    attempts: list = field(default_factory=list, repr=False, compare=False)
    #: why the returned answer is not proved, when the default path returns an unconfirmed one ('' otherwise)
    fallback_note: str = field(default="", repr=False, compare=False)
    #: the structured solver's own rigorous interval on the optimum (`Interval`; None for a backend's answer)
    solver_interval: Interval | tuple[float, float] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self._verdict = None
        if self.solver_interval is not None:
            self.solver_interval = _interval(self.solver_interval)

    def __setattr__(self, name, value):
        if name == "info":
            value = SolutionInfo(value if value is not None else {}, owner=self)
        object.__setattr__(self, name, value)

    def __setstate__(self, state):  # copy / deepcopy: the copy's info answers for the copy
        self.__dict__.update(state)
        self.info = dict(state.get("info") or {})

    @property
    def verdict(self):
        """The certificate's `certiprog.certify.Verdict` on this answer (a string enum: 'certified',
        'accurate', ...): the remembered `certification`'s, else the one recorded at solve time (a cutting-plane
        master's cheap check, or 'failed' for an answer with neither point nor ray); None when never checked."""
        word = self.certification.verdict if self.certification is not None else self._verdict
        return None if word is None else Verdict(word)

    @verdict.setter
    def verdict(self, word) -> None:
        self._verdict = None if word is None else _enum(Verdict, word, "verdict")

    @property
    def chosen(self) -> Attempt | None:
        """The `Attempt` whose answer this is, on certiprog's default path (None when the solver was named)."""
        return next((a for a in self.attempts if a.chosen), None)

    # ------------------------------------------------------------ access
    def _name(self, obj) -> str | None:
        return obj if isinstance(obj, str) else getattr(obj, "name", None)

    def value(self, var) -> np.ndarray:
        """Value of a variable (by name or object) in its own shape."""
        name = self._name(var)
        problem = self._need_problem()
        if name not in problem.columns:
            raise ModelError(f"no variable named {name!r} in this solution; have {list(problem.columns)}")
        if self.x is None:
            raise ModelError(f"no primal point: the solve ended with status {self.status.termination!r}")
        v, a, b = problem.columns[name]
        return v.unflat(self.x[a:b])

    @property
    def values(self) -> dict:
        """Every variable's value by name (auxiliary variables excluded)."""
        problem = self._need_problem()
        return {n: self.value(n) for n in problem.columns if not n.startswith("_")}

    def dual(self, con) -> np.ndarray:
        """Dual of a constraint (by name or object) in the shape of the constraint (see module doc)."""
        name = self._name(con)
        problem = self._need_problem()
        if (self.z is None or not np.all(np.isfinite(self.z))) and self.x is not None and self.status.ok:
            self._recover_duals()
        if self.z is None:
            raise ModelError(f"no dual point: the solve ended with status {self.status.termination!r}")
        if name is None:
            raise ModelError(f"no constraint named None: {con!r} was never added to a model (pass its name)")
        blocks = problem.rows_of(name)
        con_obj = problem.structure.model.constraints.get(name)
        z = np.concatenate([self.z[b.start:b.stop] for b in blocks])
        shaped = blocks[0].cone.own_shape(z) if len(blocks) == 1 else None
        if shaped is not None:  # a cone with a shape of its own (a PSD block: its matrix)
            return shaped
        if name in self.cuts:
            return z  # one multiplier per cut
        if con_obj is not None:
            return z.reshape(con_obj.dual_shape())
        return z

    def _need_problem(self) -> ConicProblem:
        if self.problem is None:
            raise ModelError("this Solution was loaded without its problem: Solution.load(path, problem=model)")
        return self.problem

    def _recover_duals(self) -> None:
        """Fill missing duals (solvers such as SCIP return none) from the primal point, once, and say so."""
        from ..certify.recovery import recover, recovery_note

        rec = recover(self.problem, self.x)
        self.z = rec.z
        self.duals_recovered = True
        self.info["duals_recovered"] = "the solver returned no usable duals; recovered from the primal point: " + \
            recovery_note(rec)
        self.info["duals_approximate"] = bool(rec.approximate)

    @property
    def duals_approximate(self) -> bool:
        """True when the duals were recovered (`duals_recovered`) but not proved a KKT dual to rounding: the values
        `dual` returns are then approximate (``info['duals_recovered']`` says why; `certiprog.certify.polish`)."""
        return bool(self.duals_recovered and self.info.get("duals_approximate", False))

    @property
    def ok(self) -> bool:
        """True when a primal point is available (status optimal, inaccurate or unconfirmed): `Status.ok`."""
        return self.status.ok

    def summary(self) -> dict:
        """Status, objective, backend, solver, its version, iterations and times, as a dict."""
        return {
            "status": asdict(self.status), "objective": self.objective, "backend": self.backend,
            "solver": self.solver, "solver_version": self.solver_version, "iterations": self.iterations,
            "compile_time": self.compile_time, "solve_time": self.solve_time,
        }

    def __repr__(self):
        return (f"Solution(status={self.status.termination!r}, objective={self.objective:.6g}, "
                f"backend={self.backend!r}, solver={self.solver!r})")

    # ------------------------------------------------------------ saving
    def save(self, path_stem) -> None:
        """Write ``path_stem.json`` (status, metadata, the problem's layout) and ``path_stem.npz`` (x, z, s,
        certificate, cut points), read back by `Solution.load`. No pickle.

        An array with NaN or inf (a backend's unusable duals, say) is left out and listed in the JSON's
        ``not_saved``; a non-finite primal point of an optimal solution is refused.
        """
        stem = _stem(path_stem)
        arrays, not_saved = {}, []
        for key in ARRAYS:
            value = getattr(self, key)
            if value is None:
                continue
            arr = np.asarray(value, dtype=float).reshape(-1)
            if not np.all(np.isfinite(arr)):
                if key == "x" and self.status.ok:
                    raise InputError(f"cannot save: the primal point of a {self.status.termination} solution "
                                     "has NaN or inf")
                not_saved.append(key)
                continue
            arrays[key] = arr
        cut_keys = {}
        for i, (name, points) in enumerate(self.cuts.items()):
            cut_keys[name] = f"cuts{i}"
            arrays[f"cuts{i}"] = np.asarray(points, dtype=float)
        meta = {
            "format": FORMAT, "status": asdict(self.status), "objective": float(self.objective),
            "backend": str(self.backend), "solver": str(self.solver), "solver_version": str(self.solver_version),
            "iterations": None if self.iterations is None else int(self.iterations),
            "compile_time": float(self.compile_time), "solve_time": float(self.solve_time),
            "duals_recovered": bool(self.duals_recovered), "history": _jsonable(self.history),
            "info": _jsonable(self.info), "cuts": cut_keys, "not_saved": not_saved,
            "verdict": None if self.verdict is None else self.verdict.value,
            "attempts": [a.to_json() for a in self.attempts], "fallback_note": str(self.fallback_note),
            "solver_interval": None if self.solver_interval is None else [float(e) for e in self.solver_interval],
            "arrays": {k: list(a.shape) for k, a in arrays.items()},
            "sha256": {k: _digest(a) for k, a in arrays.items()}, "problem": _layout(self.problem),
        }
        with open(f"{stem}.json", "w") as fh:
            json.dump(meta, fh, indent=1)
        # numpy's stub: a **dict could hold savez's own allow_pickle flag; these keys are array names
        np.savez(f"{stem}.npz", **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path, problem=None) -> "Solution":
        """Read a solution written by `save` (``path``: the stem, or the .json / .npz file), validating it.

        Every field of the JSON is checked (format version, keys, types, statuses, the problem's layout) and
        every array of the .npz against it (exactly the keys the JSON lists, float64, the recorded shapes,
        finite values); anything else raises `SavedFileError`. The .npz holds arrays only: it can never
        override a JSON field.

        ``problem`` (a Model, compiled and assembled with its current Parameter values, or the ConicProblem
        itself) re-attaches what was solved, so that ``value``, ``dual`` and `certiprog.certify.check`
        work; it must have the saved layout (sizes, cones, variables, constraint rows) and the same data up to
        rounding (norms of A, b, P, q and r0), else an InputError says what differs. A cutting-plane
        solution was solved on a master problem with cuts: re-attach that ConicProblem (``sol.problem``).
        Without ``problem`` the Solution holds the vectors and metadata only (``problem`` is None).
        """
        stem = _stem(path)
        meta, arrays = _read(stem)
        attached = None if problem is None else _attach(problem, meta["problem"], stem)
        sol = cls(
            status=Status(**meta["status"]), objective=float(meta["objective"]), x=arrays.get("x"),
            z=arrays.get("z"), s=arrays.get("s"), problem=attached, backend=meta["backend"], solver=meta["solver"],
            solver_version=meta["solver_version"], iterations=meta["iterations"], compile_time=meta["compile_time"],
            solve_time=meta["solve_time"], duals_recovered=meta["duals_recovered"], history=meta["history"],
            cuts={name: arrays[key] for name, key in meta["cuts"].items()}, certificate=arrays.get("certificate"),
            info=meta["info"], attempts=[Attempt.from_json(a) for a in meta["attempts"]],
            fallback_note=meta["fallback_note"], solver_interval=meta["solver_interval"],
        )
        sol.verdict = meta["verdict"]
        return sol


# ---------------------------------------------------------------------------- file format
FORMAT = "certiprog.solution/3"
#: earlier formats `load` still reads: /2 kept the verdict, the fallback record and a structured solver's interval
#: in its untyped 'info' (moved to typed fields by `_upgrade`)
OLD_FORMATS = ("certiprog.solution/2",)
ARRAYS = ("x", "z", "s", "certificate")
_KEYS: dict[str, type | tuple[type, ...]] = {
    "format": str, "status": dict, "objective": (int, float), "backend": str, "solver": str, "solver_version": str,
    "iterations": (int, type(None)), "compile_time": (int, float), "solve_time": (int, float),
    "duals_recovered": bool, "history": list, "info": dict, "cuts": dict, "not_saved": list, "arrays": dict,
    "sha256": dict, "problem": dict, "verdict": (str, type(None)), "attempts": list, "fallback_note": str,
    "solver_interval": (list, type(None))}
_PROBLEM_KEYS = {"n", "m", "sense", "cones", "variables", "blocks", "fingerprint"}
_FINGERPRINT = ("A", "b", "P", "q", "r0")


def _interval(pair) -> Interval:
    """``pair`` (lower, upper) as an `Interval` of floats; ModelError for anything else."""
    if isinstance(pair, Interval):
        return pair
    try:
        lo, hi = pair
        return Interval(float(lo), float(hi))
    except (TypeError, ValueError):
        raise ModelError(f"an interval is a pair (lower, upper) of numbers; got {pair!r}") from None


def _digest(arr: np.ndarray) -> str:
    """SHA-256 of an array's float64 bytes (C order): the .npz must hold exactly what was saved."""
    return hashlib.sha256(np.ascontiguousarray(arr, dtype=np.float64).tobytes()).hexdigest()


def _stem(path) -> str:
    path = str(path)
    for ext in (".json", ".npz"):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def _jsonable(obj):
    """Plain JSON data: arrays become lists, numpy scalars numbers, anything else unknown its repr."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return repr(obj)


def _fingerprint(problem) -> dict:
    norm = lambda M: float(sp.linalg.norm(M)) if sp.issparse(M) else float(np.linalg.norm(M))  # noqa: E731
    return {"A": norm(problem.A), "b": norm(problem.b), "P": norm(problem.P), "q": norm(problem.q),
            "r0": float(problem.r0)}


def _layout(problem) -> dict:
    """What `load` needs to check a re-attached problem: sizes, cones, columns, rows, data norms."""
    return {
        "n": int(problem.n), "m": int(problem.m), "sense": float(problem.sense),
        "cones": [c.to_json() for c in problem.cones],
        "variables": {name: {"columns": [int(a), int(b)], "shape": list(v.shape), "symmetric": bool(v.symmetric)}
                      for name, (v, a, b) in problem.columns.items()},
        "blocks": [[blk.owner, int(blk.start), int(blk.stop), bool(blk.primary)] for blk in problem.blocks],
        "fingerprint": _fingerprint(problem),
    }


def _bad(stem: str, what: str) -> SavedFileError:
    return SavedFileError(f"{stem}.json/.npz is not a valid certiprog solution: {what}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_meta(meta, stem: str) -> None:
    """Every field of the JSON, by type and meaning; raises SavedFileError naming the first fault."""
    if not isinstance(meta, dict):
        raise _bad(stem, f"the JSON holds a {type(meta).__name__}, not an object")
    if meta.get("format") in OLD_FORMATS:
        _upgrade(meta, stem)
    if meta.get("format") != FORMAT:
        raise SavedFileError(f"{stem}.json is not a certiprog solution file of format {FORMAT!r} "
                             f"(format {meta.get('format')!r}); re-run the solve and save it again")
    missing, extra = set(_KEYS) - set(meta), set(meta) - set(_KEYS)
    if missing or extra:
        raise _bad(stem, f"missing keys {sorted(missing)}, unexpected keys {sorted(extra)}")
    for key, types in _KEYS.items():
        if not isinstance(meta[key], types) or (types is not bool and isinstance(meta[key], bool)):
            raise _bad(stem, f"{key!r} is a {type(meta[key]).__name__}")
    from .backends.common import STATUS  # the statuses backends produce

    status = meta["status"]
    if set(status) != {"termination", "primal", "dual"}:
        raise _bad(stem, f"'status' must have the keys termination, primal, dual; has {sorted(status)}")
    terms = {s.termination for s in STATUS.values()}
    sides = {s.primal for s in STATUS.values()} | {s.dual for s in STATUS.values()} | {"feasible"}
    if status["termination"] not in terms or status["primal"] not in sides or status["dual"] not in sides:
        raise _bad(stem, f"unknown status {status}")
    if meta["verdict"] is not None and meta["verdict"] not in {v.value for v in Verdict}:
        raise _bad(stem, f"unknown verdict {meta['verdict']!r}")
    for i, a in enumerate(meta["attempts"]):
        try:
            Attempt.from_json(a)
        except ValueError as exc:
            raise _bad(stem, f"attempt {i}: {exc}") from None
    if sum(bool(isinstance(a, dict) and a.get("chosen")) for a in meta["attempts"]) > 1:
        raise _bad(stem, "more than one attempt is marked chosen")
    iv = meta["solver_interval"]
    if iv is not None and not (len(iv) == 2 and all(isinstance(e, float) or _is_int(e) and abs(e) < 2**53
                                                     for e in iv) and iv[0] <= iv[1]):
        raise _bad(stem, f"'solver_interval' must be [lower, upper] with lower <= upper; got {iv!r}")
    if meta["iterations"] is not None and meta["iterations"] < 0:
        raise _bad(stem, "'iterations' is negative")
    for key in ("compile_time", "solve_time"):
        if not (np.isfinite(meta[key]) and meta[key] >= 0):
            raise _bad(stem, f"{key!r} must be a finite time >= 0; got {meta[key]!r}")
    layout = meta["problem"]
    if set(layout) != _PROBLEM_KEYS:
        raise _bad(stem, f"'problem' must have the keys {sorted(_PROBLEM_KEYS)}; has {sorted(layout)}")
    n, m = layout["n"], layout["m"]
    if not (_is_int(n) and _is_int(m) and n >= 0 and m >= 0) or layout["sense"] not in (1.0, -1.0):
        raise _bad(stem, "the problem's n, m must be integers >= 0 and its sense +1 or -1")
    try:
        cones = [Cone(**c) for c in layout["cones"]]
        rows = sum(c.rows for c in cones)
    except Exception as exc:  # a list of anything: report it as a bad cone
        raise _bad(stem, f"bad cone list ({exc})") from None
    if rows != m:
        raise _bad(stem, f"the cones have {rows} rows, the problem {m}")
    if not isinstance(layout["variables"], dict) or not isinstance(layout["blocks"], list):
        raise _bad(stem, "the problem's 'variables' must be an object and 'blocks' a list")
    for name, v in layout["variables"].items():
        ok = isinstance(v, dict) and set(v) == {"columns", "shape", "symmetric"} and isinstance(v["symmetric"], bool)
        ok = ok and isinstance(v["columns"], list) and len(v["columns"]) == 2 and all(map(_is_int, v["columns"]))
        ok = ok and isinstance(v["shape"], list) and len(v["shape"]) <= 2 and all(map(_is_int, v["shape"]))
        if ok:
            a, b = v["columns"]
            size = int(np.prod(v["shape"])) if v["shape"] else 1
            side = v["shape"][0] if v["shape"] else 0
            free = side * (side + 1) // 2 if v["symmetric"] else size
            ok = 0 <= a <= b <= n and b - a == free and min(v["shape"], default=0) >= 0
            ok = ok and (not v["symmetric"] or (len(v["shape"]) == 2 and v["shape"][0] == v["shape"][1]))
        if not ok:
            raise _bad(stem, f"variable {name!r} has a bad layout {v!r}")
    for blk in layout["blocks"]:
        ok = isinstance(blk, list) and len(blk) == 4 and isinstance(blk[0], str) and _is_int(blk[1])
        if not (ok and _is_int(blk[2]) and isinstance(blk[3], bool) and 0 <= blk[1] <= blk[2] <= m):
            raise _bad(stem, f"bad constraint block {blk!r}")
    fp = layout["fingerprint"]
    if not isinstance(fp, dict) or set(fp) != set(_FINGERPRINT) or not all(
            isinstance(fp[k], (int, float)) and not isinstance(fp[k], bool) for k in _FINGERPRINT):
        raise _bad(stem, "bad data fingerprint")
    shapes = {"x": [n], "z": [m], "s": [m]}
    certificate = {"infeasible": [[m]], "unbounded": [[n]]}.get(status["termination"], [[m], [n]])
    cut_keys = list(meta["cuts"].values())
    if not all(isinstance(k, str) for k in cut_keys) or len(set(cut_keys)) != len(cut_keys):
        raise _bad(stem, "'cuts' must map each constraint name to its own array key")
    for key, shape in meta["arrays"].items():
        if not (isinstance(shape, list) and all(_is_int(d) and d >= 0 for d in shape)):
            raise _bad(stem, f"array {key!r} has a bad shape {shape!r}")
        if key in shapes and shape != shapes[key] or key == "certificate" and shape not in certificate:
            raise _bad(stem, f"array {key!r} has shape {shape}; the problem's sizes (n={n}, m={m}) say otherwise")
        if key not in ARRAYS and key not in meta["cuts"].values():
            raise _bad(stem, f"unknown array {key!r}")
        if key in meta["cuts"].values() and len(shape) != 2:
            raise _bad(stem, f"cut points {key!r} must be a (k, D) matrix; shape {shape}")
    if set(meta["sha256"]) != set(meta["arrays"]) or not all(isinstance(h, str) for h in meta["sha256"].values()):
        raise _bad(stem, "'sha256' must give one digest per array")
    if set(meta["cuts"].values()) - set(meta["arrays"]):
        raise _bad(stem, "a cut array listed in 'cuts' is missing from 'arrays'")
    if not set(meta["not_saved"]) <= set(ARRAYS) or set(meta["not_saved"]) & set(meta["arrays"]):
        raise _bad(stem, f"bad 'not_saved' {meta['not_saved']!r}")
    if status["termination"] in ("optimal", "inaccurate", "unconfirmed") and "x" not in meta["arrays"]:
        raise _bad(stem, f"a {status['termination']} solution must hold its primal point x")


def _upgrade(meta: dict, stem: str) -> None:
    """A format-/2 file's untyped info['verdict'] / ['fallback'] / ['interval'] as the typed fields of /3."""
    info = meta.get("info")
    if not isinstance(info, dict):
        return  # _check_meta reports it
    verdict, fallback, interval = info.pop("verdict", None), info.pop("fallback", None), info.pop("interval", None)
    meta["verdict"] = verdict if isinstance(verdict, str) and verdict in {v.value for v in Verdict} else None
    meta["solver_interval"] = interval
    meta["fallback_note"] = str(fallback.get("note", "")) if isinstance(fallback, dict) else ""
    attempts = []
    for a in fallback.get("attempts", []) if isinstance(fallback, dict) else []:
        if not isinstance(a, dict) or not isinstance(a.get("solver"), str):
            raise _bad(stem, f"bad fallback attempt {a!r}")
        label = a["solver"]
        backend, _, solver = label.partition(" ")[0].partition("/")
        word = a.get("verdict")
        known = isinstance(word, str) and word in {v.value for v in Verdict}
        answered = "error" not in a
        attempts.append({"label": label, "backend": backend, "solver": solver or backend, "options": {},
                         "termination": str(a.get("status")) if answered else None,
                         "verdict": (word if known else "failed") if answered else None, "time": 0.0,
                         "chosen": label == fallback.get("chosen"), "rejected": "" if known or not answered
                         else str(word), "error": str(a.get("error", ""))})
    chosen = [i for i, a in enumerate(attempts) if a["chosen"]]
    for i in chosen[:-1]:  # a label tried twice: the later answer is the one returned
        attempts[i]["chosen"] = False
    meta["attempts"] = attempts
    meta["format"] = FORMAT


def _read(stem: str) -> tuple[dict, dict]:
    """The validated JSON and the arrays of the .npz."""
    try:
        with open(f"{stem}.json", encoding="utf-8") as fh:
            meta = json.load(fh)
    except FileNotFoundError:
        raise SavedFileError(f"no saved solution at {stem}.json") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise SavedFileError(f"{stem}.json is not a readable JSON file ({exc})") from None
    _check_meta(meta, stem)
    expected = meta["arrays"]
    arrays = {}
    try:
        data = np.load(f"{stem}.npz", allow_pickle=False)
    except FileNotFoundError:
        raise SavedFileError(f"{stem}.npz is missing (the arrays of {stem}.json)") from None
    except Exception as exc:  # truncated or overwritten archives fail in many ways (zip, zlib, EOF, format)
        raise SavedFileError(f"{stem}.npz is not a readable .npz archive ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise SavedFileError(f"{stem}.npz holds a single array, not a .npz archive")
    with data:
        keys = set(data.files)
        if keys != set(expected):
            raise _bad(stem, f"the .npz has keys {sorted(keys)}; the JSON lists {sorted(expected)}")
        for key in sorted(keys):
            try:
                arr = data[key]
            except Exception as exc:  # a damaged member of the archive
                raise _bad(stem, f"array {key!r} cannot be read ({type(exc).__name__}: {exc})") from None
            if arr.dtype != np.float64 or list(arr.shape) != expected[key]:
                raise _bad(stem, f"array {key!r} is {arr.dtype} of shape {list(arr.shape)}; the JSON says float64 "
                                 f"of shape {expected[key]}")
            if not np.all(np.isfinite(arr)):
                raise _bad(stem, f"array {key!r} contains NaN or inf")
            if _digest(arr) != meta["sha256"][key]:
                raise _bad(stem, f"array {key!r} differs from what was saved (SHA-256 mismatch)")
            arrays[key] = arr
    return meta, arrays


def _attach(problem, layout: dict, stem: str):
    """The ConicProblem for a Model or ConicProblem, checked against the saved layout."""
    from ..conic.problem import ConicProblem
    from ..model.model import Model

    if isinstance(problem, Model):
        problem = problem.compile().assemble()
    elif not isinstance(problem, ConicProblem):
        raise InputError(f"problem must be the Model or the ConicProblem that was solved; got {type(problem).__name__}")
    mine = _layout(problem)
    for key in ("n", "m", "sense", "cones", "variables", "blocks"):
        if mine[key] != layout[key]:
            hint = ""
            if key in ("m", "cones", "blocks"):
                hint = " (a cutting-plane solution re-attaches only to its ConicProblem, sol.problem)"
            raise InputError(f"the problem given does not match the one saved in {stem}.json: its {key} differ{hint}")
    for key in _FINGERPRINT:
        a, b = mine["fingerprint"][key], layout["fingerprint"][key]
        if abs(a - b) > 1e-9 * max(1.0, abs(a), abs(b)):
            raise InputError(f"the problem given has other data than the one saved in {stem}.json (norm of {key}: "
                             f"{a:.12g} vs {b:.12g}); were Parameter values or data changed?")
    return problem


def load_solution_data(path_stem: str) -> dict:
    """The JSON fields and arrays of a saved solution as plain data, validated as in `Solution.load`."""
    meta, arrays = _read(_stem(path_stem))
    meta.update(arrays)  # the arrays' names never clash with the JSON's keys (checked)
    return meta
