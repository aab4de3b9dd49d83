"""MOSEK (Task API), built from certiprog's conic form; exports ``.ptf`` / ``.cbf`` files without a licence.

Layout of the MOSEK task (our form: ``min 1/2 x'Px + q'x + r0  s.t.  s = b - A x in K``):

* one free MOSEK variable per column of ``x`` (plus an epigraph column ``t``, see below);
* ``zero`` / ``nonneg`` rows become linear constraints ``a'x = b`` / ``a'x <= b``;
* ``soc`` / ``psd`` / ``pow`` / ``exp`` / ``pownd`` rows become affine conic constraints (ACCs) ``F x + g in D``
  with ``F = -A``, ``g = b`` (so ``F x + g`` *is* our slack ``s``), one ACC per cone, domains
  ``quadratic_cone``, ``svec_psd_cone``, ``primal_power_cone(alpha, 1 - alpha)``, ``primal_exp_cone``
  (MOSEK orders it (z, y, x): the three rows are reversed) and ``primal_power_cone(alpha_1, ..., alpha_n)``.
  MOSEK's svec is the *lower* triangle column by column, ours the upper one (both scale the
  off-diagonals by sqrt 2), so the rows of each PSD cone are permuted (`svec_permutation`);
* the quadratic part ``1/2 x'Px``: MOSEK refuses a quadratic objective together with conic
  constraints (``MSK_RES_ERR_MIXED_CONIC_AND_NL``) and the ``.ptf`` / ``.cbf`` formats cannot store
  one, so it becomes ``t >= 1/2 ||R x||^2`` (``R'R = P``) as the rotated cone ``(t, 1, R x) in Q_r``
  with ``t`` in the objective. Pure LP/QP tasks that are solved (or saved as ``.task``/``.jtask``)
  keep ``putqobj`` instead, which needs no factor of P.

Duals. MOSEK's Lagrangian is ``c'x - y'(A x) - doty'(F x + g)`` (dual: ``A'y + F'doty = c``,
``doty in D*``), ours ``f(x) - z's(x)``. With ``F x + g = s`` the ACC duals are ours as they are
(``z = doty``); a linear row has ``a'x = b - s``, so ``z = -y = s_u^c - s_l^c``. MOSEK's infeasibility
certificates use the same variables, so ``z`` (Farkas ray, ``b'z < 0``, ``A'z = 0``) and the primal
ray ``x`` (``q'x < 0``) map the same way and are stored as `Solution.certificate`.

Solving needs a MOSEK licence; without one `solve_mosek` raises a BackendError naming the
licence path(s) MOSEK searched (``~/mosek/mosek.lic`` or ``$MOSEKLM_LICENSE_FILE``).
"""
from __future__ import annotations

import functools
import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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
from ..registry import Backend, SolverCapabilities, register
from .common import make_solution
from .options import check_value, pop_time_limit

log = logging.getLogger(__name__)

#: file formats `export` writes, and whether each can hold a quadratic objective (else it is made conic)
FORMATS = {".ptf": False, ".cbf": False, ".task": True, ".jtask": True}


@dataclass
class TaskMap:
    """Where our rows and columns went in the task: ``lin_rows`` (linear constraint i is our row
    ``lin_rows[i]``), ``afe_rows`` (AFE i is our row ``afe_rows[i]``; PSD rows in MOSEK's order),
    ``acc_dims`` (dimension of each ACC from our cones; an epigraph ACC, if any, comes after them) and
    ``quadratic`` ('none', 'qobj' or 'cone': how 1/2 x'Px was written; 'cone' adds the column t = n)."""

    n: int
    lin_rows: np.ndarray
    afe_rows: np.ndarray
    acc_dims: list
    quadratic: str


# --------------------------------------------------------------------------- data translation
def svec_permutation(side: int) -> np.ndarray:
    """``perm[k]`` = our svec index of MOSEK's k-th svec entry (MOSEK: lower triangle, column-major)."""
    c, r = np.triu_indices(side)  # (c, r) with c <= r, ordered by c then r = MOSEK's lower (r, c) column-major
    return r * (r + 1) // 2 + c  # our upper-triangle column-major index of (c, r)


def quadratic_factor(P) -> sp.csr_matrix:
    """A matrix R with ``R'R = P`` (P symmetric PSD), rows only for the columns P touches.

    Diagonal P (the usual case: sum_squares) gives ``R = sqrt(diag)``; otherwise a dense Cholesky
    of the touched block, or, when that block is singular, its eigendecomposition.
    """
    P = sp.csr_matrix(P)
    n = P.shape[0]
    P.eliminate_zeros()
    cols = np.unique(P.indices)
    if cols.size == 0:
        return sp.csr_matrix((0, n))
    block = P[cols][:, cols]
    if block.nnz == np.count_nonzero(block.diagonal()):  # diagonal
        d = block.diagonal()
        if np.any(d < 0):
            raise BackendError(f"mosek backend: the quadratic objective is not convex (P has a diagonal entry "
                               f"{d.min():.3g} < 0)")
        return sp.csr_matrix((np.sqrt(d), (np.arange(cols.size), cols)), shape=(cols.size, n))
    dense = block.toarray()
    try:
        R = np.linalg.cholesky(dense).T  # dense = L L', R = L'
    except np.linalg.LinAlgError:
        w, V = np.linalg.eigh(dense)
        scale = max(1.0, float(np.abs(w).max()))
        if w.min() < -1e-9 * scale:
            raise BackendError(f"mosek backend: the quadratic objective is not convex (P has eigenvalue "
                               f"{w.min():.3g})") from None
        keep = w > 1e-14 * scale
        R = np.sqrt(w[keep])[:, None] * V[:, keep].T
    R = sp.coo_matrix(R)
    return sp.csr_matrix((R.data, (R.row, cols[R.col])), shape=(R.shape[0], n))


#: certiprog's cone class -> (the order of one copy's rows in MOSEK's cone, or None for the same order; a function
#: appending MOSEK's domain for one copy). Zero and nonneg rows are MOSEK's linear rows (`fill_task`)
MOSEK_CONES: dict[type[Cone], tuple[Callable | None, Callable]] = {
    SecondOrderCone: (None, lambda task, c: task.appendquadraticconedomain(c.dim)),
    PsdCone: (lambda c: svec_permutation(c.side), lambda task, c: task.appendsvecpsdconedomain(c.dim)),
    PowerCone: (None, lambda task, c: task.appendprimalpowerconedomain(3, [float(c.alpha), 1.0 - float(c.alpha)])),
    # MOSEK's primal exponential cone is (z, y, x): z >= y exp(x / y)
    ExponentialCone: (lambda c: np.array([2, 1, 0]), lambda task, c: task.appendprimalexpconedomain()),
    # x_1^a_1 ... x_n^a_n >= |z|: MOSEK's primal power cone with n weights, one z
    PowerConeND: (None, lambda task, c: task.appendprimalpowerconedomain(c.dim, [float(t) for t in c.alpha])),
}
_LINEAR: tuple[type[Cone], ...] = (ZeroCone, NonnegCone)


def _conic_rows(problem) -> tuple[np.ndarray, list]:
    """Our rows of the soc/psd/pow/exp cones in AFE order, and one single-copy cone per ACC."""
    rows, accs = [], []
    for blk in problem.blocks:
        c = blk.cone
        if isinstance(c, _LINEAR):
            continue
        starts = blk.start + c.dim * np.arange(c.count)
        order = MOSEK_CONES[type(c)][0]
        inner = np.arange(c.dim) if order is None else order(c)
        rows.append((starts[:, None] + inner[None, :]).reshape(-1))
        accs += [c.with_count(1)] * c.count
    return (np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)), accs


def _domain(task, acc):
    """MOSEK's domain for one ACC: a single-copy cone, or ("rquad", dim) for the quadratic objective's epigraph."""
    if isinstance(acc, tuple):
        return task.appendrquadraticconedomain(acc[1])
    return MOSEK_CONES[type(acc)][1](task, acc)


def fill_task(task, problem, quadratic: str = "auto") -> TaskMap:
    """Write ``problem`` into an empty ``mosek.Task``; ``quadratic``: 'auto' (putqobj when there are no
    conic rows, else a rotated cone), 'cone' (always the rotated cone) or 'qobj' (always putqobj)."""
    import mosek

    if quadratic not in ("auto", "cone", "qobj"):
        raise InputError(f"quadratic must be 'auto', 'cone' or 'qobj'; got {quadratic!r}")
    unknown = {c.kind for c in problem.cones if not isinstance(c, (*_LINEAR, *MOSEK_CONES))}
    if unknown:
        raise BackendError(f"mosek backend: unsupported cone(s) {sorted(unknown)}")
    n = problem.n
    kinds = problem.row_kinds()
    lin_rows = np.flatnonzero((kinds == "zero") | (kinds == "nonneg"))
    afe_rows, accs = _conic_rows(problem)
    has_P = problem.P.nnz > 0 and np.any(problem.P.data != 0)
    mode = "none" if not has_P else ("qobj" if (quadratic == "qobj" or (quadratic == "auto" and not accs))
                                     else "cone")
    R = quadratic_factor(problem.P) if mode == "cone" else None
    n_task = n + (mode == "cone")

    task.putobjsense(mosek.objsense.minimize)
    task.appendvars(n_task)
    task.putvarboundsliceconst(0, n_task, mosek.boundkey.fr, -np.inf, np.inf)
    c = np.concatenate([problem.q, [1.0]]) if mode == "cone" else np.asarray(problem.q, float)
    if n_task:
        task.putcslice(0, n_task, c)
    task.putcfix(float(problem.r0))
    if mode == "qobj":
        L = sp.tril(problem.P, format="coo")
        task.putqobj(L.row.astype(np.int32), L.col.astype(np.int32), L.data.astype(float))

    A = sp.csr_matrix(problem.A)
    m_lin = lin_rows.size
    if m_lin:
        task.appendcons(m_lin)
        Al = sp.csc_matrix(A[lin_rows])
        Al.sort_indices()
        if n:
            task.putacolslice(0, n, Al.indptr[:-1].astype(np.int64), Al.indptr[1:].astype(np.int64),
                              Al.indices.astype(np.int32), Al.data.astype(float))
        zero = kinds[lin_rows] == "zero"  # a'x = b (fixed) or a'x <= b (upper bound)
        bkey = np.array([mosek.boundkey.up, mosek.boundkey.fx], dtype=object)[zero.astype(int)].tolist()
        bl = np.where(zero, problem.b[lin_rows], -np.inf)
        task.putconboundslice(0, m_lin, bkey, bl, problem.b[lin_rows].astype(float))

    F = -A[afe_rows] if afe_rows.size else sp.csr_matrix((0, n))
    g = problem.b[afe_rows].astype(float)
    n_acc = len(accs)
    if mode == "cone":  # rows (t, 1, R x) of the rotated cone 2 * t * 1 >= ||R x||^2, t = column n
        assert R is not None  # the factor is computed in cone mode
        r = R.shape[0]
        t_row = sp.csr_matrix(([1.0], ([0], [n])), shape=(1, n + 1))
        F = sp.vstack([sp.hstack([F, sp.csr_matrix((F.shape[0], 1))]), t_row, sp.csr_matrix((1, n + 1)),
                       sp.hstack([R, sp.csr_matrix((r, 1))])], format="csr")
        g = np.concatenate([g, [0.0, 1.0], np.zeros(r)])
        accs = accs + [("rquad", r + 2)]
    if F.shape[0]:
        task.appendafes(F.shape[0])
        Fc = sp.coo_matrix(F)
        task.putafefentrylist(Fc.row.astype(np.int64), Fc.col.astype(np.int32), Fc.data.astype(float))
        task.putafegslice(0, F.shape[0], g)
        domains: dict = {}  # one MOSEK domain per distinct cone (kind, dim, alpha), shared by its ACCs
        for a in accs:
            if a not in domains:
                domains[a] = _domain(task, a)
        dom = np.array([domains[a] for a in accs], dtype=np.int64)
        task.appendaccsseq(dom, F.shape[0], 0, None)
    return TaskMap(n=n, lin_rows=lin_rows, afe_rows=afe_rows, acc_dims=[a.dim for a in accs[:n_acc]],
                   quadratic=mode)


def _name_task(task, problem, tmap: TaskMap) -> None:
    """Readable names in exported files: columns ``var[i]``, rows ``constraint[i]``."""
    for name, (_, a, b) in problem.columns.items():
        for i in range(b - a):
            task.putvarname(a + i, f"{name}[{i}]")
    if tmap.quadratic == "cone":
        task.putvarname(tmap.n, "_quadratic_epigraph")
    owner = np.empty(problem.m, dtype=object)
    local = np.zeros(problem.m, dtype=np.int64)
    for blk in problem.blocks:
        owner[blk.start:blk.stop] = blk.owner
        local[blk.start:blk.stop] = np.arange(blk.cone.rows)
    for i, row in enumerate(tmap.lin_rows):
        task.putconname(i, f"{owner[row]}[{local[row]}]")
    first = 0
    for k, dim in enumerate(tmap.acc_dims):
        row = tmap.afe_rows[first]
        task.putaccname(k, f"{owner[row]}[{local[row] // dim}]")  # the cone's index within its constraint
        first += dim


def export(model_or_problem, path, *, names: bool = True) -> Path:
    """Write a Model (compiled and assembled here) or a ConicProblem to a MOSEK file; no licence needed.

    The suffix picks the format: ``.ptf`` (MOSEK's readable text format), ``.cbf`` (Conic Benchmark
    Format), ``.task`` / ``.jtask`` (MOSEK's own). ``names``: write variable and constraint names.
    The file holds the minimisation form (a ``maximize f`` model is written as minimising ``-f``).
    """
    import mosek

    from ...conic.problem import ConicProblem

    path = Path(path)
    if path.suffix not in FORMATS:
        raise InputError(f"cannot export to {path.name!r}: use one of the suffixes {sorted(FORMATS)}")
    problem = model_or_problem if isinstance(model_or_problem, ConicProblem) else _assemble(model_or_problem)
    with mosek.Env() as env, env.Task() as task:
        tmap = fill_task(task, problem, quadratic="auto" if FORMATS[path.suffix] else "cone")
        if names:
            _name_task(task, problem, tmap)
        try:
            task.writedata(str(path))
        except mosek.Error as exc:
            raise BackendError(f"MOSEK could not write {path}: {exc.errno}: {exc.msg}") from exc
    return path


def _assemble(model):
    from ...model.model import Model

    if not isinstance(model, Model):
        raise InputError(f"export() takes a Model or a ConicProblem, got {type(model).__name__}")
    structure = model.compile()
    if structure.cutting_plane:
        raise InputError("this model has ForAll constraints without an exact form (cutting planes); "
                         "export a master problem (solution.problem) instead")
    return structure.assemble()


# --------------------------------------------------------------------------- licence
_LICENCE_CODES = ("err_license", "err_missing_license_file", "err_file_license", "err_optimizer_license",
                  "err_platform_not_licensed", "err_prob_license", "err_size_license")


def _is_licence_error(code) -> bool:
    name = str(code).split(".")[-1]
    return any(name.startswith(p) for p in _LICENCE_CODES)


def licence_paths(message: str = "") -> list[str]:
    """The licence file(s) MOSEK searched: parsed from its error message, else its documented defaults
    (``$MOSEKLM_LICENSE_FILE`` if set, otherwise ``~/mosek/mosek.lic``)."""
    found = re.search(r"search path is '([^']*)'", message)
    if found:
        paths = [p for p in found.group(1).split(os.pathsep) if p]
        if paths:
            return paths
    env = os.environ.get("MOSEKLM_LICENSE_FILE")
    if env:
        return [p for p in env.split(os.pathsep) if p]
    return [str(Path.home() / "mosek" / "mosek.lic")]


def _licence_error(exc) -> BackendError:
    paths = licence_paths(exc.msg)
    return BackendError(
        f"MOSEK has no usable licence ({exc.errno}: {exc.msg.strip()}). MOSEK searched: {', '.join(paths)}. "
        f"Put a licence file at {Path.home() / 'mosek' / 'mosek.lic'} or point MOSEKLM_LICENSE_FILE at it "
        "(free academic licences: https://www.mosek.com/products/academic-licenses/). Without a licence, "
        "certiprog.solvers.backends.mosek_backend.export(model, 'problem.ptf') still writes the problem."
    )


def licence_status() -> tuple[bool, str]:
    """(True, '') when MOSEK can solve here, else (False, the BackendError message naming the paths searched)."""
    import mosek

    with mosek.Env() as env, env.Task() as task:
        task.appendvars(1)
        task.putvarbound(0, mosek.boundkey.fx, 0.0, 0.0)
        try:
            task.optimize()
        except mosek.Error as exc:
            if _is_licence_error(exc.errno):
                return False, str(_licence_error(exc))
            return False, f"MOSEK could not run: {exc.errno}: {exc.msg}"
    return True, ""


def _licence_problem() -> str | None:
    """None when MOSEK can solve here, else why not (cached per value of MOSEKLM_LICENSE_FILE)."""
    import os

    return _licence_problem_for(os.environ.get("MOSEKLM_LICENSE_FILE"))


@functools.lru_cache(maxsize=8)
def _licence_problem_for(_env_value) -> str | None:
    ok, msg = licence_status()
    return None if ok else msg


# --------------------------------------------------------------------------- solve
def _status_key(mosek, solsta, trm) -> str:
    if solsta == mosek.solsta.optimal:
        return "optimal"
    if solsta == mosek.solsta.prim_infeas_cer:
        return "infeasible"
    if solsta == mosek.solsta.dual_infeas_cer:
        return "unbounded"
    if solsta == mosek.solsta.prim_and_dual_feas:
        return "inaccurate"
    if trm == mosek.rescode.trm_max_iterations:
        return "iteration_limit"
    if trm in (mosek.rescode.trm_max_time, mosek.rescode.trm_server_max_time):
        return "time_limit"
    return "numerical_error"


def _apply_options(task, options: dict) -> bool:
    """MOSEK parameters by their generic names (e.g. ``MSK_DPAR_INTPNT_CO_TOL_REL_GAP=1e-10``); ``verbose``;
    ``time_limit`` (seconds) is MSK_DPAR_OPTIMIZER_MAX_TIME."""
    import mosek

    options = dict(options)
    t_limit = pop_time_limit(options, "mosek")
    if t_limit is not None:
        options["MSK_DPAR_OPTIMIZER_MAX_TIME"] = t_limit
    verbose = bool(options.pop("verbose", False))
    for name, value in options.items():
        check_value("mosek", str(name), value)
        try:
            task.putparam(str(name), str(value))
        except mosek.Error as exc:
            raise OptionError(f"mosek option {name}={value!r} rejected ({exc.msg.strip()}); use MOSEK's generic "
                               "parameter names such as MSK_DPAR_INTPNT_CO_TOL_REL_GAP or MSK_IPAR_NUM_THREADS, "
                               "or verbose=True") from exc
    if verbose:
        task.set_Stream(mosek.streamtype.log, lambda text: log.info(text.rstrip()))
    return verbose


def _dual_vector(task, soltype, problem, tmap: TaskMap) -> np.ndarray:
    """z in certiprog's convention from MOSEK's y (linear rows) and doty (ACCs)."""
    z = np.zeros(problem.m)
    if tmap.lin_rows.size:
        z[tmap.lin_rows] = -np.asarray(task.getyslice(soltype, 0, tmap.lin_rows.size))
    if tmap.afe_rows.size:
        doty = np.asarray(task.getaccdotys(soltype))
        z[tmap.afe_rows] = doty[: tmap.afe_rows.size]
    return z


def solve_mosek(problem, solver=None, options=None):
    import mosek

    t0 = time.perf_counter()
    with mosek.Env() as env, env.Task() as task:
        tmap = fill_task(task, problem)
        _apply_options(task, options or {})
        t_build = time.perf_counter() - t0
        t1 = time.perf_counter()
        try:
            trm = task.optimize()
        except mosek.Error as exc:
            if _is_licence_error(exc.errno):
                raise _licence_error(exc) from exc
            raise BackendError(f"MOSEK failed: {exc.errno}: {exc.msg.strip()}") from exc
        elapsed = time.perf_counter() - t1
        soltype = mosek.soltype.bas if task.solutiondef(mosek.soltype.bas) else mosek.soltype.itr
        if task.solutiondef(soltype):
            solsta, prosta = task.getsolsta(soltype), task.getprosta(soltype)
            n_task = task.getnumvar()
            x = np.asarray(task.getxxslice(soltype, 0, n_task))[: problem.n] if n_task else np.zeros(0)
            z = _dual_vector(task, soltype, problem, tmap)
        else:  # stopped before any solution existed
            solsta, prosta, x, z = mosek.solsta.unknown, mosek.prosta.unknown, None, None
        key = _status_key(mosek, solsta, trm)
        iters = task.getintinf(mosek.iinfitem.intpnt_iter)
        if soltype == mosek.soltype.bas:
            iters += task.getintinf(mosek.iinfitem.sim_primal_iter) + task.getintinf(mosek.iinfitem.sim_dual_iter)
        info = {"solver_status": str(solsta), "problem_status": str(prosta), "termination_code": str(trm),
                "solution_type": str(soltype), "optimizer_time": task.getdouinf(mosek.dinfitem.optimizer_time),
                "build_time": t_build, "quadratic": tmap.quadratic}
    cert = z if key == "infeasible" else (x if key == "unbounded" else None)
    s = problem.b - problem.A @ x if x is not None else None
    version = ".".join(str(v) for v in mosek.Env.getversion())
    return make_solution(problem, key, x, z, s, backend="mosek", solver="mosek", version=version,
                         iterations=int(iters), solve_time=elapsed, certificate=cert, info=info)


CONES = frozenset(k.kind for k in (*_LINEAR, *MOSEK_CONES))
register(Backend(
    name="mosek", solve=solve_mosek, cones=CONES, duals=True, warm_start=False, licence="MOSEK licence file",
    requires=("mosek",), solvers=lambda: ["mosek"], licence_check=_licence_problem,
    capabilities={"mosek": SolverCapabilities("mosek", cones=CONES, duals=True, rays=True)},
))
