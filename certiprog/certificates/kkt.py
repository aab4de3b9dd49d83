"""KKT check of a Solution against the ConicProblem's own data (the solver's status is never trusted).

For ``min 1/2 x'Px + q'x + r0  s.t.  s = b - A x in K`` with dual ``z in K*``:

* primal violation of a block: ``dist(s_b, K_b)`` with ``s = b - A x`` recomputed;
* dual violation: ``dist(z_b, K_b*)``;
* complementarity: ``<s_b, z_b>`` (signed; its absolute value is judged);
* stationarity: ``||P x + q + A'z||``;
* objectives (minimisation form) ``p = 1/2 x'Px + q'x + r0``, ``d = -1/2 x'Px - b'z + r0``, gap ``p - d``.

Blocks are grouped by owner (constraint name; ``owner/atom`` for an atom's
epigraph rows); per owner the distances are 2-norms over its blocks and the
complementarity is the sum.

Normalisation (all norms Euclidean)::

    primal:          abs / (1 + max(||b||, ||A x||))
    dual cone:       abs / (1 + ||z||)
    stationarity:    abs / (1 + max(||q||, ||P x||, ||A'z||))
    compl., gap:     abs / (1 + max(|p|, |d|))

Verdict: the largest relative measure ``<= tol`` (default 1e-6) is ``certified``,
``<= tol_inaccurate`` (1e-3) ``inaccurate``, otherwise ``failed``.

Infeasibility (``solution.certificate`` = y): y is projected onto K* and scaled
to ``b'y = -1``; then no feasible x has ``||x|| < 1 / ||A'y||`` (from
``0 <= y'(b - A x) = -1 - (A'y)'x``). The measure judged is ``||A'y||`` (that is,
1 / radius), plus the relative distance of the raw y to K*. Unboundedness
(certificate = direction d): scaled to ``q'd = -1``; measures ``||P d||`` and
``dist(-A d, K)``; verdicts ``certified_infeasible`` / ``certified_unbounded``
(dual infeasible: unbounded when the primal is feasible), ``inaccurate_*``, or
``failed``.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

import numpy as np

from ..errors import InputError
from ..model.cones import distance_to_cone, project

DEFAULT_TOL = 1e-6
DEFAULT_TOL_INACCURATE = 1e-3


@dataclass
class BlockReport:
    owner: str
    cones: str
    rows: int
    primal_abs: float
    primal_rel: float
    dual_abs: float
    dual_rel: float
    compl_abs: float
    compl_rel: float


@dataclass
class Certificate:
    """Outcome of `check`: verdict, the measures behind it and (optionally) a rigorous optimality interval."""

    verdict: str
    kind: str  # optimality | infeasibility | unboundedness | none
    tol: float
    tol_inaccurate: float
    max_rel: float = np.nan
    worst: str = ""
    primal_objective: float = np.nan  # user's sense
    dual_objective: float = np.nan  # user's sense
    gap_abs: float = np.nan
    gap_rel: float = np.nan
    stationarity_abs: float = np.nan
    stationarity_rel: float = np.nan
    blocks: list = field(default_factory=list)
    scales: dict = field(default_factory=dict)
    interval: tuple | None = None
    interval_notes: list = field(default_factory=list)
    duals_recovered: bool = False
    farkas: dict = field(default_factory=dict)
    solver_status: str = ""
    backend: str = ""
    solver: str = ""
    notes: list = field(default_factory=list)
    semi_infinite: dict = field(default_factory=dict)  # ForAll name -> oracle's worst violation over its index set

    @property
    def certified(self) -> bool:
        return self.verdict.startswith("certified")

    def summary(self) -> str:
        out = [f"verdict: {self.verdict} ({self.kind}; tol {self.tol:g} / {self.tol_inaccurate:g}; "
               f"worst {self.worst} = {self.max_rel:.3g})",
               f"solver said: {self.solver_status} ({self.backend}/{self.solver})"
               + ("; duals recovered from the primal point" if self.duals_recovered else "")]
        if self.kind == "optimality":
            out.append(f"objective: primal {self.primal_objective:.10g}, dual {self.dual_objective:.10g}, "
                       f"gap {self.gap_abs:.3g} (rel {self.gap_rel:.3g})")
            out.append(f"stationarity ||Px+q+A'z||: {self.stationarity_abs:.3g} (rel {self.stationarity_rel:.3g})")
            if self.interval is not None:
                lo, hi = self.interval
                out.append(f"optimum in [{lo:.12g}, {hi:.12g}] (width {hi - lo:.3g}, rigorous)")
            out.append(f"{'constraint':<28}{'cone':<14}{'primal rel':>12}{'dual rel':>12}{'compl rel':>12}")
            for b in self.blocks:
                out.append(f"{b.owner[:27]:<28}{b.cones[:13]:<14}{b.primal_rel:>12.2e}{b.dual_rel:>12.2e}"
                           f"{b.compl_rel:>12.2e}")
        elif self.farkas:
            out.append("certificate: " + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                                                   for k, v in self.farkas.items()))
        out += [f"note: {n}" for n in self.notes + self.interval_notes]
        return "\n".join(out)

    __str__ = summary

    def to_json(self) -> dict:
        """A JSON-serialisable dict (non-finite numbers as the strings 'inf', '-inf', 'nan')."""
        def clean(v):
            if isinstance(v, dict):
                return {k: clean(t) for k, t in v.items()}
            if isinstance(v, (list, tuple)):
                return [clean(t) for t in v]
            if isinstance(v, (float, np.floating)):
                return float(v) if np.isfinite(v) else str(float(v))
            if isinstance(v, np.integer):
                return int(v)
            return v

        d = asdict(self)
        d["format"] = "certiprog.certificate/1"
        out = clean(d)
        json.dumps(out)
        return out


# --------------------------------------------------------------------------- helpers
def _verdict(max_rel: float, tol: float, tol_inacc: float, prefix: str = "") -> str:
    if not np.isfinite(max_rel):
        return "failed"
    if max_rel <= tol:
        return "certified" + prefix
    if max_rel <= tol_inacc:
        return "inaccurate" + prefix
    return "failed"


def _same_problem(p1, p2) -> bool:
    if (p1.n, p1.m) != (p2.n, p2.m) or p1.cones != p2.cones or p1.sense != p2.sense:
        return False

    def close(a, b):
        a = a.toarray() if hasattr(a, "toarray") else np.asarray(a)
        b = b.toarray() if hasattr(b, "toarray") else np.asarray(b)
        return np.allclose(a, b, rtol=1e-12, atol=1e-12)

    return close(p1.A, p2.A) and close(p1.b, p2.b) and close(p1.P, p2.P) and close(p1.q, p2.q) and \
        np.isclose(p1.r0, p2.r0, rtol=1e-12, atol=1e-12)


def resolve_problem(model_or_problem, solution):
    """The ConicProblem to check against (recompiled from a Model and compared with the solved one)."""
    from ..model.model import Model
    from ..solvers.conic import ConicProblem

    if isinstance(model_or_problem, Model):
        problem = model_or_problem.compile().assemble()
        solved = getattr(solution, "problem", None)
        if solved is not None and not _same_problem(problem, solved):
            raise InputError(
                "the model compiles to a different conic problem than the one the solution was computed for "
                "(changed since the solve, or solved with cutting planes); pass solution.problem instead"
            )
        return problem
    if isinstance(model_or_problem, ConicProblem):
        return model_or_problem
    raise InputError(f"check() takes a Model or a ConicProblem, got {type(model_or_problem).__name__}")


def _group_blocks(problem):
    groups: dict[str, list] = {}
    for blk in problem.blocks:
        groups.setdefault(blk.owner, []).append(blk)
    return groups


# --------------------------------------------------------------------------- main
def check(model_or_problem, solution, tol: float = DEFAULT_TOL, tol_inaccurate: float = DEFAULT_TOL_INACCURATE,
          *, interval: bool = True, x_bound=None, recover: bool = True, repair: bool = True) -> Certificate:
    """Certify ``solution`` for a Model or ConicProblem (see the module docstring for all definitions).

    interval: also compute the rigorous optimality interval (`certiprog.certificates.duality`);
    x_bound: a-priori bound on the variables for its lower end; recover: recover missing duals from the
    primal point (`certiprog.certificates.recovery`); repair: allow moving the primal point toward the
    interior for the upper end.
    """
    if not (0 < tol <= tol_inaccurate):
        raise InputError(f"need 0 < tol <= tol_inaccurate; got tol={tol!r}, tol_inaccurate={tol_inaccurate!r}")
    problem = resolve_problem(model_or_problem, solution)
    base = dict(tol=tol, tol_inaccurate=tol_inaccurate, solver_status=str(getattr(solution, "status", "")),
                backend=getattr(solution, "backend", ""), solver=getattr(solution, "solver", ""))
    x = getattr(solution, "x", None)
    if x is None:
        cert = getattr(solution, "certificate", None)
        term = getattr(getattr(solution, "status", None), "termination", "")
        if cert is not None and term == "infeasible":
            return _check_infeasible(problem, np.asarray(cert, float), base)
        if cert is not None and term == "unbounded":
            return _check_unbounded(problem, np.asarray(cert, float), base)
        why = "no primal point and no infeasibility/unboundedness certificate in the solution"
        return Certificate(verdict="failed", kind="none", notes=[why], **base)
    x = np.asarray(x, float).reshape(-1)
    if x.shape != (problem.n,):
        raise InputError(f"the solution's x has {x.size} entries, the problem {problem.n} columns")
    if not np.all(np.isfinite(x)):
        return Certificate(verdict="failed", kind="optimality", notes=["x contains NaN or inf"], **base)
    z = getattr(solution, "z", None)
    recovered = bool(getattr(solution, "duals_recovered", False))
    notes = []
    if z is None or np.size(z) != problem.m or not np.all(np.isfinite(z)):
        if not recover:
            return Certificate(verdict="failed", kind="optimality", notes=["no usable duals (recover=False)"], **base)
        from .recovery import recover_duals

        z = recover_duals(problem, x)
        recovered = True
        notes.append("the solution had no usable duals; they were recovered from the primal point")
    z = np.asarray(z, float).reshape(-1)
    cert = kkt_measures(problem, x, z, tol, tol_inaccurate, base)
    cert.duals_recovered = recovered
    cert.notes = notes + cert.notes
    if interval:
        from .duality import optimality_interval

        iv = optimality_interval(problem, x, z, x_bound=x_bound, repair=repair)
        cert.interval = (iv.lower, iv.upper)
        cert.interval_notes = [f"interval lower end: {iv.lower_reason}"] * bool(iv.lower_reason) + \
            [f"interval upper end: {iv.upper_reason}"] * bool(iv.upper_reason)
        if iv.lower > iv.upper:
            cert.interval_notes.append("lower > upper: the problem data or the arithmetic is inconsistent")
    _check_semi_infinite(problem, x, cert)
    return cert


def _check_semi_infinite(problem, x, cert) -> None:
    """ForAll constraints solved by cutting planes: ask each index set's oracle for the worst point.

    The cuts are a relaxation, so the certified lower end stays valid; the upper end and the verdict
    hold for the semi-infinite program only if no point of any index set violates its constraint.
    """
    structure = getattr(problem, "structure", None)
    foralls = list(getattr(structure, "cutting_plane", []) or [])
    if not foralls:
        return
    from ..solvers.cutting_plane import relative_violation

    values = {v: v.unflat(x[a:b]) for v, a, b in problem.columns.values()}
    worst_rel = 0.0
    for f in foralls:
        u, slack = f.worst_point(values)
        rel = relative_violation(f, values, u, slack)
        worst_rel = max(worst_rel, rel)
        cert.semi_infinite[f.name] = {"max_violation_abs": max(0.0, -slack), "max_violation_rel": rel,
                                      "worst_point": u.tolist(), "n_cuts": len(problem.rows_of(f.name))}
    if worst_rel > 0 and cert.interval is not None:
        cert.interval = (cert.interval[0], np.inf)
        cert.interval_notes.append("interval upper end: +inf, the point violates a ForAll constraint somewhere "
                                   f"in its index set (worst relative violation {worst_rel:.3g})")
    if worst_rel > cert.max_rel or not np.isfinite(cert.max_rel):
        cert.max_rel, cert.worst = worst_rel, "semi-infinite violation (oracle)"
        if cert.verdict == "certified" and worst_rel > cert.tol:
            cert.verdict = "inaccurate" if worst_rel <= cert.tol_inaccurate else "failed"
        elif cert.verdict == "inaccurate" and worst_rel > cert.tol_inaccurate:
            cert.verdict = "failed"


def kkt_measures(problem, x, z, tol=DEFAULT_TOL, tol_inaccurate=DEFAULT_TOL_INACCURATE, base=None) -> Certificate:
    """The KKT part of `check` for raw vectors x, z (no interval, no recovery)."""
    base = base or dict(tol=tol, tol_inaccurate=tol_inaccurate)
    P, q, A, b = problem.P, problem.q, problem.A, problem.b
    Px, Ax, ATz = P @ x, A @ x, A.T @ z
    s = b - Ax
    p = 0.5 * float(x @ Px) + float(q @ x) + problem.r0
    d = -0.5 * float(x @ Px) - float(b @ z) + problem.r0
    nrm = np.linalg.norm
    scales = {"primal": 1 + max(nrm(b), nrm(Ax)), "dual_cone": 1 + nrm(z),
              "stationarity": 1 + max(nrm(q), nrm(Px), nrm(ATz)), "gap": 1 + max(abs(p), abs(d))}
    stat = float(nrm(Px + q + ATz))
    gap = p - d
    blocks = []
    worst, max_rel = "stationarity", stat / scales["stationarity"]
    for owner, blks in _group_blocks(problem).items():
        pa = da = ca = 0.0
        for blk in blks:
            r = slice(blk.start, blk.stop)
            pa += distance_to_cone(blk.cone, s[r]) ** 2
            da += distance_to_cone(blk.cone, z[r], dual=True) ** 2
            ca += float(s[r] @ z[r])
        kinds = ",".join(sorted({blk.cone.kind for blk in blks}))
        rep = BlockReport(owner, kinds, sum(blk.cone.rows for blk in blks), np.sqrt(pa),
                          np.sqrt(pa) / scales["primal"], np.sqrt(da), np.sqrt(da) / scales["dual_cone"],
                          ca, abs(ca) / scales["gap"])
        blocks.append(rep)
        for name, v in ((f"primal[{owner}]", rep.primal_rel), (f"dual[{owner}]", rep.dual_rel),
                        (f"complementarity[{owner}]", rep.compl_rel)):
            if not v <= max_rel:
                worst, max_rel = name, v
    gap_rel = abs(gap) / scales["gap"]
    if not gap_rel <= max_rel:
        worst, max_rel = "gap", gap_rel
    sense = problem.sense
    return Certificate(
        verdict=_verdict(max_rel, base["tol"], base["tol_inaccurate"]), kind="optimality", max_rel=float(max_rel),
        worst=worst, primal_objective=sense * p, dual_objective=sense * d, gap_abs=abs(gap), gap_rel=gap_rel,
        stationarity_abs=stat, stationarity_rel=stat / scales["stationarity"], blocks=blocks,
        scales={k: float(v) for k, v in scales.items()}, **base,
    )


def _dual_project(problem, y):
    out = y.copy()
    for blk in problem.blocks:
        r = slice(blk.start, blk.stop)
        out[r] = project(blk.cone, y[r], dual=True)
    return out


def _check_infeasible(problem, y, base) -> Certificate:
    if y.shape != (problem.m,) or not np.all(np.isfinite(y)):
        return Certificate(verdict="failed", kind="infeasibility", notes=["malformed Farkas certificate"], **base)
    dist = float(np.linalg.norm(y - _dual_project(problem, y))) / max(np.linalg.norm(y), 1e-300)
    yp = _dual_project(problem, y)
    by = float(problem.b @ yp)
    if not by < 0:
        return Certificate(verdict="failed", kind="infeasibility",
                           notes=[f"b'y = {by:.3g} is not negative: no Farkas certificate"], **base)
    yp = yp / -by
    aty = float(np.linalg.norm(problem.A.T @ yp))
    max_rel, worst = max((aty, "||A'y|| (b'y = -1)"), (dist, "dist(y, K*)/||y||"))
    farkas = {"b'y": -1.0, "||A'y||": aty, "dist(y,K*)/||y||": dist,
              "no feasible x with ||x|| below": (1 / aty) if aty > 0 else np.inf}
    return Certificate(verdict=_verdict(max_rel, base["tol"], base["tol_inaccurate"], "_infeasible"),
                       kind="infeasibility", max_rel=max_rel, worst=worst, farkas=farkas, **base)


def _check_unbounded(problem, dvec, base) -> Certificate:
    if dvec.shape != (problem.n,) or not np.all(np.isfinite(dvec)):
        return Certificate(verdict="failed", kind="unboundedness", notes=["malformed direction"], **base)
    qd = float(problem.q @ dvec)
    if not qd < 0:
        return Certificate(verdict="failed", kind="unboundedness",
                           notes=[f"q'd = {qd:.3g} is not negative: not an improving direction"], **base)
    d = dvec / -qd
    pd = float(np.linalg.norm(problem.P @ d))
    ad = -(problem.A @ d)
    dist = float(np.sqrt(sum(distance_to_cone(blk.cone, ad[blk.start:blk.stop]) ** 2 for blk in problem.blocks)))
    max_rel, worst = max((pd, "||P d|| (q'd = -1)"), (dist, "dist(-A d, K) (q'd = -1)"))
    farkas = {"q'd": -1.0, "||Pd||": pd, "dist(-Ad,K)": dist}
    return Certificate(verdict=_verdict(max_rel, base["tol"], base["tol_inaccurate"], "_unbounded"),
                       kind="unboundedness", max_rel=max_rel, worst=worst, farkas=farkas,
                       notes=["certifies dual infeasibility: the problem is unbounded if it is feasible"], **base)
