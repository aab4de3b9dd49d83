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
from dataclasses import asdict, dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401  (sp.linalg.norm)

from ..conic.cones import Cone, smat
from ..errors import InputError, ModelError, SavedFileError


@dataclass(frozen=True)
class Status:
    """Three parts: why the solver stopped, and what is known of the primal and of the dual.

    termination: optimal | inaccurate | unconfirmed | infeasible | unbounded | infeasible_or_unbounded |
    iteration_limit | time_limit | numerical_error. ``unconfirmed`` is certiprog's own word on its default path
    (certiprog chose the solver): a point is returned that the certificate does not prove optimal (the solver may
    have said 'optimal'; ``Solution.info['solver_termination']`` keeps its word, ``Solution.certification`` says why).
    Where certiprog chooses, ``optimal`` means certified.
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
        return self.termination in ("optimal", "inaccurate", "unconfirmed")


@dataclass
class Solution:
    """A backend's answer in certiprog's conventions: values by variable name (`value`), duals by constraint name
    (`dual`, sign convention in the user guide), the `Status`, the ``backend`` and ``solver`` that produced it, and
    the certificate's ``verdict`` once checked. ``x``, ``z``, ``s`` are the stacked conic-form primal, dual and
    slack; ``certificate`` an infeasibility or unboundedness ray. `save` / `load` write and read JSON + .npz."""

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
    #: the `certiprog.certificates.Certificate` of this answer (the full check at solve time; None until checked):
    #: ``check(model, sol)`` with default arguments returns (a copy of) it while the data and the point are unchanged
    certification: object = field(default=None, repr=False, compare=False)

    @property
    def verdict(self):
        """The certificate's `certiprog.certificates.Verdict` on this answer (a string enum: 'certified',
        'accurate', ...); None when it was never checked."""
        from ..certify.verdict import Verdict

        word = self.certification.verdict if self.certification is not None else self.info.get("verdict")
        return None if word is None else Verdict(word)

    # ------------------------------------------------------------ access
    def _name(self, obj) -> str:
        return obj if isinstance(obj, str) else getattr(obj, "name", None)

    def value(self, var) -> np.ndarray:
        """Value of a variable (by name or object) in its own shape."""
        name = self._name(var)
        self._need_problem()
        if name not in self.problem.columns:
            raise ModelError(f"no variable named {name!r} in this solution; have {list(self.problem.columns)}")
        if self.x is None:
            raise ModelError(f"no primal point: the solve ended with status {self.status.termination!r}")
        v, a, b = self.problem.columns[name]
        return v.unflat(self.x[a:b])

    @property
    def values(self) -> dict:
        """Every variable's value by name (auxiliary variables excluded)."""
        self._need_problem()
        return {n: self.value(n) for n in self.problem.columns if not n.startswith("_")}

    def dual(self, con) -> np.ndarray:
        """Dual of a constraint (by name or object) in the shape of the constraint (see module doc)."""
        name = self._name(con)
        self._need_problem()
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

    def _need_problem(self) -> None:
        if self.problem is None:
            raise ModelError("this Solution was loaded without its problem: Solution.load(path, problem=model)")

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
        `dual` returns are then approximate (``info['duals_recovered']`` says why; `certiprog.certificates.polish`)."""
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
            "arrays": {k: list(a.shape) for k, a in arrays.items()},
            "sha256": {k: _digest(a) for k, a in arrays.items()}, "problem": _layout(self.problem),
        }
        with open(f"{stem}.json", "w") as fh:
            json.dump(meta, fh, indent=1)
        np.savez(f"{stem}.npz", **arrays)

    @classmethod
    def load(cls, path, problem=None) -> "Solution":
        """Read a solution written by `save` (``path``: the stem, or the .json / .npz file), validating it.

        Every field of the JSON is checked (format version, keys, types, statuses, the problem's layout) and
        every array of the .npz against it (exactly the keys the JSON lists, float64, the recorded shapes,
        finite values); anything else raises `SavedFileError`. The .npz holds arrays only: it can never
        override a JSON field.

        ``problem`` (a Model, compiled and assembled with its current Parameter values, or the ConicProblem
        itself) re-attaches what was solved, so that ``value``, ``dual`` and `certiprog.certificates.check`
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
            info=meta["info"],
        )
        return sol


# ---------------------------------------------------------------------------- file format
FORMAT = "certiprog.solution/2"
ARRAYS = ("x", "z", "s", "certificate")
_KEYS = {"format": str, "status": dict, "objective": (int, float), "backend": str, "solver": str,
         "solver_version": str, "iterations": (int, type(None)), "compile_time": (int, float),
         "solve_time": (int, float), "duals_recovered": bool, "history": list, "info": dict, "cuts": dict,
         "not_saved": list, "arrays": dict, "sha256": dict, "problem": dict}
_PROBLEM_KEYS = {"n", "m", "sense", "cones", "variables", "blocks", "fingerprint"}
_FINGERPRINT = ("A", "b", "P", "q", "r0")


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
