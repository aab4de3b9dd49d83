"""Paper 001 — Manifold cutting planes (MCP): max-margin linear separation of data manifolds.

Derivation, corrected corollaries and the reference: ``docs/derivations/001.md``.

Manifold ``p`` (label ``y_p``) is typically the (solid) Lq ellipsoid ``M_p = {c_p + U_p diag(r_p) s : ||s||_q <= 1}``
of Sec. 4.1 (or a point cloud, or f_p(S_p)); c_p is its center. There is NO bias (the hyperplane passes through
the origin, Sec. 2.1).

Hard margin, eq. (2.1) (``C=None``)::

    min_w  1/2 ||w||^2   s.t.  for all p, for all x in M_p:  y_p <w, x> >= 1

Manifold slack with center constraints, Sec. 3.1 (``C > 0``)::

    min_{w, xi}  1/2 ||w||^2 + C sum_p xi_p
    s.t.  for all p, for all x in M_p:  y_p <w, x> + xi_p >= 1      ('manifold{p}')
          y_p <w, c_p> >= 1                                          ('center{p}')
          xi >= 0                                                    ('xi>=0')

Each manifold is one ``ForAll`` over a manifold object (`certiprog.formulations.mcp_paper.manifolds`, an IndexSet):
``model.solve()`` compiles Lq ellipsoids exactly through the robust counterpart
``y_p c_p^T w - ||r_p o U_p^T w||_{q*} (+ xi_p) >= 1`` (point clouds: one row per point).
`mcp` builds the model from arrays of Lq ellipsoids, `mcp_model` from any list of manifolds.

`mcp_simple` / `mcp_slack` run MCP (Alg. 1 / Alg. 2) on the generic cutting-plane solver: T_1 = each manifold's
initial point (its center), the absolute margin violation delta_k = 1 - y<w, x> (- xi_p) of eq. (2.3) / (3.1)
as stopping rule, one vectorised oracle call over all manifolds per iteration, the most violating point (or one
per violating manifold) appended to the compiled master problem; they return an `MCPResult` (w, xi, history,
timings) whose ``certificate()`` solves the exact counterpart and checks the paper's bounds.
`mcp_bracket` turns a cutting-plane solution into the certified interval of Cor. 3 / Cor. 5,
`mcp_iteration_bound` evaluates Cor. 2 / corrected Cor. 4.

Objectives are always reported as ``1/2 ||w||^2 (+ C sum xi)`` (NOT ``||w||^2``).
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from certiprog import validation as validate
from certiprog.errors import InputError, ModelError
from certiprog.formulations.mcp_paper.manifolds import (
    LqEllipsoidManifold,
    ManifoldBatch,
    as_manifolds,
    lq_operator_bound,
)
from certiprog.formulations.mcp_paper.manifolds import _q_value as _q
from certiprog.model import ForAll, Model, Record, Variable, minimize, sum_squares
from certiprog.solvers import Solution

__all__ = ["MCPCertificate", "MCPData", "MCPResult", "MCPSolution", "achieved_violation", "manifold_margins", "manifold_norm_bound", "mcp", "mcp_bracket",
           "mcp_iteration_bound", "mcp_model", "mcp_simple", "mcp_slack", "master_backend", "exact_backend"]


# ------------------------------------------------------------------ inputs


def _geometry(centers, bases, radii):
    """Validated (centers (P,N), [U_p (N,D_p)], [r_p (D_p,)])."""
    c = validate.matrix(centers, "centers", min_rows=1)
    P, N = c.shape
    if N < 1:
        raise InputError("centers has 0 columns; the ambient dimension N must be >= 1")
    if isinstance(bases, np.ndarray) or not isinstance(bases, (list, tuple)):
        B = validate.real_array(bases, "bases (P, N, D)")
        if B.ndim != 3:
            raise InputError(f"bases must be (P, N, D) or a list of P arrays (N, D_p); got shape {np.shape(B)}")
        bases = list(B)
    if isinstance(radii, np.ndarray) or not isinstance(radii, (list, tuple)):
        R = validate.real_array(radii, "radii (P, D)")
        if R.ndim != 2:
            raise InputError(f"radii must be (P, D) or a list of P vectors (D_p,); got shape {np.shape(R)}")
        radii = list(R)
    if len(bases) != P:
        raise InputError(f"bases describes {len(bases)} manifolds but centers has {P} rows; one basis per manifold")
    if len(radii) != P:
        raise InputError(f"radii describes {len(radii)} manifolds but centers has {P} rows; one radius vector per manifold")
    Us, rs = [], []
    for p in range(P):
        Up = validate.real_array(bases[p], f"bases[{p}]")
        if Up.ndim == 1:
            Up = Up.reshape(-1, 1)
        Up = validate.matrix(Up, f"bases[{p}]", min_rows=N)
        if Up.shape[0] != N:
            raise InputError(f"bases[{p}] has {Up.shape[0]} rows; it must be (N, D_p) with N = {N} (the centers' dimension)")
        if Up.shape[1] < 1:
            raise InputError(f"bases[{p}] has no columns; for a point manifold pass one column with radius 0")
        rp = validate.vector(radii[p], f"radii[{p}]", size=Up.shape[1])
        if np.any(rp < 0):
            raise InputError(f"radii[{p}] has negative entries {rp[rp < 0][:3]}; radii must be >= 0 "
                             "(0 gives a degenerate, lower-dimensional manifold)")
        Us.append(Up)
        rs.append(rp)
    return c, Us, rs


def _inputs(centers, bases, radii, labels, q, C):
    """Validated (centers (P,N), [U_p (N,D_p)], [r_p (D_p,)], y (P,), q, C or None)."""
    c, Us, rs = _geometry(centers, bases, radii)
    P = c.shape[0]
    y = validate.vector(labels, "labels", size=P)
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise InputError(f"labels must be +1 or -1 (one per manifold); got values {np.unique(y)[:5]}")
    qv = _q(q)
    if C is not None:
        C = validate.scalar(C, "C", low=0.0, low_open=True)
    return c, Us, rs, y, qv, C


# ------------------------------------------------------------------ the program
def mcp(centers, bases, radii, labels, q=2, C=None) -> Model:
    """001 eq. (2.1) (``C=None``, hard margin) or the manifold-slack program of Sec. 3.1 (``C > 0``).

    Arguments: ``centers`` (P, N); ``bases`` (P, N, D) or a list of P arrays (N, D_p); ``radii`` (P, D) or a list
    of (D_p,) vectors (entries >= 0; zero radii give a degenerate manifold, all-zero radii a single point; a
    rank-deficient basis is allowed); ``labels`` (P,) in {+1, -1}; ``q`` in [1, inf]; ``C > 0`` or None.

    Variables: ``w`` (N,) and, with C, ``xi`` (P,). Constraints: ``'manifold{p}'`` (a ForAll over the Lq
    ellipsoid, p = 0..P-1) and, with C, ``'center{p}'`` and ``'xi>=0'``.

    ``model.data`` is an `MCPData`; ``model.derived(sol)`` an `MCPSolution`.
    """
    c, Us, rs, y, q, C = _inputs(centers, bases, radii, labels, q, C)
    sets = [LqEllipsoidManifold(c[p], Us[p], rs[p], q=q) for p in range(len(c))]
    return _build_model(sets, y, C)


def mcp_model(manifolds, labels, C=None) -> Model:
    """The `mcp` program for any manifolds (`certiprog.formulations.mcp_paper.manifolds`): variables ``w`` (and ``xi``),
    constraints ``'manifold{p}'`` (a ForAll over manifold p), with C also ``'center{p}'`` (y_p<w, center_p> >= 1)
    and ``'xi>=0'``. Lq ellipsoids and point clouds compile exactly (``forall='exact'``); parametric manifolds
    need ``forall='cutting_plane'``. Labels in {+1, -1}; ``C > 0`` or None.
    """
    ms = as_manifolds(manifolds)
    y = validate.vector(labels, "labels", size=len(ms))
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise InputError(f"labels must be +1 or -1 (one per manifold); got values {np.unique(y)[:5]}")
    if C is not None:
        C = validate.scalar(C, "C", low=0.0, low_open=True)
    return _build_model(ms, y, C)


@dataclass(frozen=True, eq=False)
class MCPSolution(Record):
    """An `mcp` / `mcp_model` solution (``model.derived(sol)``): ``w``, ``margin`` (kappa = 1/||w||), ``w_norm2``;
    with C ``xi`` (clipped at 0); with C or for a cutting-plane solution ``manifold_margins`` (min_{x in M_p}
    y_p<w, x>, closed form); for a cutting-plane solution ``max_violation`` (the achieved delta) and ``bracket``
    (`mcp_bracket` at that delta; hard margin only when it is below 1). Fields that do not apply are None."""

    w: np.ndarray
    margin: float
    w_norm2: float
    xi: np.ndarray | None = None
    manifold_margins: np.ndarray | None = None
    max_violation: float | None = None
    bracket: tuple | None = None


@dataclass(frozen=True, eq=False)
class MCPData:
    """The data of an MCP program (``model.data`` of `mcp` / `mcp_model`): the manifolds ``sets``, ``labels``
    (P,), ``C`` (None: hard margin), ``batch`` (their oracles at once, `ManifoldBatch`), ``L`` (a bound on every
    point's norm, None when some manifold has none) and ``q`` (the common Lq exponent, else None)."""

    sets: tuple
    labels: np.ndarray
    C: float | None
    batch: ManifoldBatch
    L: float | None
    q: float | None

    @property
    def P(self) -> int:
        return len(self.sets)

    @property
    def N(self) -> int:
        return int(self.sets[0].N)

    def margins(self, w) -> np.ndarray:
        """min_{x in M_p} y_p <w, x> for every manifold (all oracles in one batch)."""
        wv = validate.vector(w, "w", size=self.N)
        return self.batch.minimize(self.labels[:, None] * wv[None, :])[1]

    def violation(self, w, xi=None) -> float:
        """max_p (1 - min_{x in M_p} y_p<w, x> - xi_p)_+ : the absolute worst violation of (w, xi)."""
        slack = 0.0 if xi is None else np.asarray(xi, float)
        return float(max(0.0, np.max(1.0 - self.margins(w) - slack)))

    def derive(self, sol) -> MCPSolution:
        wv = np.asarray(sol.value("w"), float)
        nw = float(np.linalg.norm(wv))
        out: dict[str, Any] = dict(w=wv, margin=1.0 / nw if nw > 0 else math.inf, w_norm2=nw * nw)
        if self.C is not None:
            out["xi"] = np.maximum(np.asarray(sol.value("xi"), float), 0.0)
        if self.C is not None or sol.history:
            out["manifold_margins"] = self.margins(wv)
        if sol.history:  # a cutting-plane solution: report the certified interval at the achieved violation
            viol = achieved_violation(sol)
            out["max_violation"] = viol
            if self.C is not None or viol < 1:
                out["bracket"] = mcp_bracket(sol, viol, C=self.C, P=self.P)
        return MCPSolution(**out)


def _build_model(sets, y, C) -> Model:
    P = len(sets)
    w = Variable(sets[0].N, "w")
    obj = 0.5 * sum_squares(w)
    xi = None
    if C is not None:
        xi = Variable(P, "xi")
        obj = obj + C * xi.sum()
    model = Model(minimize(obj), name="mcp" if C is None else "mcp_slack")
    for p, S in enumerate(sets):
        yp = float(y[p])
        fn: Callable[..., Any]
        if xi is None:
            fn = (lambda u, yp=yp: w @ (yp * u) >= 1.0)
        else:
            fn = (lambda u, yp=yp, p=p: w @ (yp * u) + xi[p] >= 1.0)
        model.add(ForAll(S, fn), name=f"manifold{p}")
    if xi is not None:
        for p, S in enumerate(sets):
            model.add(float(y[p]) * (S.center @ w) >= 1.0, name=f"center{p}")
        model.add(xi >= 0, name="xi>=0")
    qs = {getattr(S, "q", None) for S in sets}
    bounds = [S.norm_bound() for S in sets]
    model.data = MCPData(tuple(sets), y, C, ManifoldBatch(sets),
                         None if any(b is None for b in bounds) else float(max(bounds)),
                         qs.pop() if len(qs) == 1 else None)
    return model


def _mcp_data(model) -> MCPData:
    data = getattr(model, "data", None)
    if not isinstance(data, MCPData):
        raise InputError(f"expected a model built by mcp / mcp_model; got {model!r}")
    return data


def manifold_margins(w, model: Model) -> np.ndarray:
    """min_{x in M_p} y_p <w, x> for every manifold of an `mcp` / `mcp_model` model (all oracles in one batch)."""
    return _mcp_data(model).margins(w)


def manifold_norm_bound(centers, bases, radii, q=2) -> float:
    """An upper bound L >= sup_p sup_{x in M_p} ||x||_2 (doc 001 §2.5), used by Thm. 1/2 and Cor. 1-4.

    ``||c_p|| + ||U_p diag(r_p)||_{q->2}`` with the exact max column norm for q = 1, sigma_max for 1 < q <= 2 and
    sigma_max * D^{1/2 - 1/q} for q > 2.
    """
    c, Us, rs = _geometry(centers, bases, radii)
    q = _q(q)
    return float(max(np.linalg.norm(cp_) + lq_operator_bound(U * r[None, :], q) for cp_, U, r in zip(c, Us, rs)))


# ------------------------------------------------------------------ certificates
def achieved_violation(solution) -> float:
    """max_p (1 - min_{x in M_p} y_p<w, x> - xi_p)_+ : the absolute worst violation of an `mcp` solution.

    Computed with the closed-form oracle from the solution's own model (exact, unlike the cutting-plane solver's
    *relative* ``info['max_violation']``, which equals it only when below 1). NaN if the model is not an `mcp`.
    """
    model = getattr(getattr(getattr(solution, "problem", None), "structure", None), "model", None)
    data = getattr(model, "data", None)
    if not isinstance(data, MCPData):
        return float("nan")
    xi = None if data.C is None else solution.value("xi")
    return data.violation(solution.value("w"), xi)


def _delta(delta, solution):
    d = validate.scalar(delta, "delta", low=0.0)
    viol = achieved_violation(solution)
    if not np.isfinite(viol):
        viol = float(getattr(solution, "info", {}).get("max_violation", np.nan))
    if np.isfinite(viol) and viol > d * (1 + 1e-9) + 1e-8:
        raise InputError(f"delta = {d} is smaller than the solution's achieved worst violation {viol:.3g}: "
                         "the bracket is only valid for delta >= that violation")
    return d


def mcp_bracket(solution, delta, C=None, P=None) -> tuple:
    """The certified interval [F_MCP, upper] containing the exact optimum F* (objective 1/2||w||^2 (+ C sum xi)).

    ``solution`` is a cutting-plane solution of `mcp` whose every manifold constraint holds up to ``delta``
    (``model.solve(forall='cutting_plane', cp_tol=delta)`` with delta < 1: its relative and absolute violations
    then coincide; `achieved_violation(solution)` is the smallest valid delta).

    * hard margin (``C=None``), Cor. 3: ||w_MCP||^2 <= ||w*||^2 <= ||w_MCP||^2 / (1 - delta)^2, i.e. the same
      factor on F = 1/2||w||^2 (needs delta < 1);
    * manifold slack (C > 0), Cor. 5 / eq. (3.30): F_MCP <= F* <= F_MCP + P C delta (P inferred from ``xi``
      when not given).

    An ``iteration_limit`` solution is accepted too: the bracket holds at any delta >= its achieved violation
    (`achieved_violation`), which is checked whenever the solution comes from an `mcp` model.
    The lower end is the master problem's value (a relaxation); allow ~1e-6 relative slack for the interior-point
    solver's tolerance when checking.
    """
    if not all(hasattr(solution, a) for a in ("x", "status", "objective", "value")):
        raise InputError(f"solution must be the Solution of a solved mcp model (model.solve(forall='cutting_plane', "
                         f"cp_tol=delta)); got {type(solution).__name__}")
    if solution.x is None or not (solution.ok or solution.status.termination == "iteration_limit"):
        raise InputError(f"the solution has status {solution.status}; a bracket needs a primal point")
    d = _delta(delta, solution)
    F = float(solution.objective)
    if C is None:
        if d >= 1:
            raise InputError(f"Cor. 3 needs delta < 1 (w_MCP / (1 - delta) must be feasible); got {d}")
        return F, F / (1.0 - d) ** 2
    C = validate.scalar(C, "C", low=0.0, low_open=True)
    if P is None:
        P = int(np.size(solution.value("xi")))
    if isinstance(P, bool) or int(P) != P or P < 1:
        raise InputError(f"P (the number of manifolds) must be a positive integer; got {P!r}")
    return F, F + int(P) * C * d


def mcp_iteration_bound(solution, delta, L, C=None, F_star=None) -> float:
    """Upper bound on the number K of points MCP adds before stopping at tolerance ``delta``.

    * hard margin, Cor. 2 (lost fraction restored): K < L^2 ||w*||^2 / delta^2 = 2 L^2 F* / delta^2. F* is the
      exact optimum (pass ``F_star``); without it the bracket's upper end is used (still valid).
    * slack, Cor. 4 as corrected in doc 001 §4 item 3 (center constraints break the printed proof):
      K <= (F* - F_1) * max(8 L^2 / delta^2, 2 / (C delta)), F_1 = the first master problem's value
      (``solution.history[0]['objective']``).
    With ``cuts='all'`` the bound holds for the number of master solves minus one (each adds >= 1 point of
    violation > delta); with ``cuts='worst'`` it is exactly the count of added points.
    """
    d = validate.scalar(delta, "delta", low=0.0, low_open=True)
    L = validate.scalar(L, "L", low=0.0, low_open=True)
    if F_star is None:  # the bracket's upper end at the achieved violation is a valid stand-in for F*
        F_star = mcp_bracket(solution, achieved_violation(solution), C=C)[1]
    F_star = validate.scalar(F_star, "F_star", low=0.0)
    if C is None:
        return 2.0 * L ** 2 * F_star / d ** 2
    C = validate.scalar(C, "C", low=0.0, low_open=True)
    if not solution.history:
        raise InputError("Cor. 4 needs F_1 from a cutting-plane solution's history")
    F1 = float(solution.history[0]["objective"])
    return max(F_star - F1, 0.0) * max(8.0 * L ** 2 / d ** 2, 2.0 / (C * d))


# ------------------------------------------------------------------ MCP-simple and MCP-slack (Alg. 1 and 2)
class _Separation:
    """The vectorised separation oracle handed to the cutting-plane solver: for the master's (w, xi) it returns,
    for every manifold p, x_p = argmin_{x in M_p} y_p<w, x> and the slack y_p<w, x_p> + xi_p - 1 = -delta_{k,p}.
    It also keeps each master's w (the solver's history records objectives only)."""

    def __init__(self, model: Model):
        self.model = model
        data = _mcp_data(model)
        self.foralls = [model.constraints[f"manifold{p}"] for p in range(data.P)]
        self.w_var = model.variable("w")
        self.xi_var = model.variables.get("xi")
        self.y = data.labels
        self.batch = data.batch
        self.iterates: list = []

    def __call__(self, values: dict):
        w = np.asarray(values[self.w_var], float).reshape(-1)
        xi = np.zeros(len(self.y)) if self.xi_var is None else np.asarray(values[self.xi_var], float).reshape(-1)
        X, v = self.batch.minimize(self.y[:, None] * w[None, :])
        slack = v + xi - 1.0
        self.iterates.append((w.copy(), None if self.xi_var is None else np.maximum(xi, 0.0)))
        return [(f, X[p], slack[p]) for p, f in enumerate(self.foralls)]


@dataclass(frozen=True, eq=False)
class MCPCertificate(Record):
    """`MCPResult.certificate`: the exact optimum F* (robust counterpart) and the paper's guarantees checked on it.

    ``exact_objective`` (NaN when the exact solve failed), ``exact_status``, ``bracket`` (Cor. 3: [F, F/(1-delta)^2];
    Cor. 5: [F, F + P C delta] at the run's delta), ``bracket_achieved`` (the same at the achieved violation, tighter;
    None for a hard margin whose violation is >= 1), ``in_bracket`` (F* inside ``bracket_achieved`` up to 1e-6
    relative solver slack), ``iteration_bound`` (Cor. 2: 2 L^2 F*/delta^2; corrected Cor. 4: (F* - F_1)
    max(8L^2/delta^2, 2/(C delta)); NaN without F* or L), ``within_bound`` (n_iter below it) and ``L``.
    """

    exact_objective: float
    exact_status: str
    bracket: tuple
    bracket_achieved: tuple | None
    in_bracket: bool
    iteration_bound: float
    within_bound: bool
    L: float | None


@dataclass(eq=False)
class MCPResult(Record):
    """The outcome of `mcp_simple` / `mcp_slack`.

    ``w`` (N,) and ``xi`` (P,) (slack only; None for MCP-simple) of the last master problem, None when it is
    infeasible. There is no bias: the paper's program (2.1) has none (add a constant feature to the manifolds).
    ``objective`` F_MCP = 1/2||w||^2 (+ C sum xi) of the last master (inf when infeasible). ``history``: one dict
    per master solve k = 1, 2, ...: ``iteration``, ``objective`` F_k, ``w``, ``w_norm2`` and ``xi`` (w^(k), xi^(k)),
    ``delta_k`` (max_p of 1 - min_{x in M_p} y_p<w^(k), x> - xi_p, clipped at 0), ``manifold`` and ``point``
    (p_{k+1}, x_{k+1}: the most violating point, added to T; None when none was added), ``added`` (every point
    added after this solve: dicts manifold / point / delta; more than one with ``cuts='all'``) and ``n_points``
    (|T_k|). ``n_iter``: iterations that added points (= K, the points added by Alg. 1 with ``cuts='worst'``);
    ``n_added``: points added; ``status``: 'converged' | 'iteration_limit' | 'infeasible' (a finite subset of
    the manifolds is already not separable: a certificate that the semi-infinite program is infeasible) |
    'master_<status>'. ``achieved_delta``: the final worst violation (<= delta when converged).
    ``certificate()`` solves the exact robust counterpart (Lq ellipsoids, point clouds) and checks Cor. 3 / 5
    and Cor. 2 / corrected Cor. 4.
    """

    w: np.ndarray | None
    xi: np.ndarray | None
    objective: float
    history: list
    n_iter: int
    n_added: int
    status: str
    delta: float
    C: float | None
    labels: np.ndarray
    achieved_delta: float
    solve_time: float
    master_time: float
    oracle_time: float
    exact: bool
    L: float | None
    solution: Solution = field(repr=False)
    model: Model = field(repr=False)
    _certificate: MCPCertificate | None = field(default=None, repr=False)

    @property
    def termination(self) -> str:
        return self.status

    @property
    def converged(self) -> bool:
        return self.status == "converged"

    @property
    def margin(self) -> float:
        """kappa = 1/||w|| (the hard margin of MCP-simple)."""
        return math.inf if self.w is None or not np.any(self.w) else 1.0 / float(np.linalg.norm(self.w))

    def _w_or_raise(self) -> np.ndarray:
        if self.w is None:
            raise ModelError(f"MCP ended with status {self.status!r} and has no weight vector")
        return self.w

    def decision_function(self, X) -> np.ndarray:
        """<w, x> for every row of X (n, N)."""
        w = self._w_or_raise()
        return validate.matrix(X, "X", cols=w.size) @ w

    def predict(self, X) -> np.ndarray:
        """+1 where <w, x> > 0, else -1."""
        return np.where(self.decision_function(X) > 0, 1.0, -1.0)

    def margins(self) -> np.ndarray:
        """min_{x in M_p} y_p<w, x> for every manifold (exact for Lq ellipsoids and point clouds)."""
        return manifold_margins(self._w_or_raise(), self.model)

    def certificate(self, backend: str | None = None, solver: str | None = None) -> MCPCertificate:
        """The exact optimum F* (robust counterpart) and the paper's guarantees checked against it: an
        `MCPCertificate`. Raises ModelError for parametric manifolds (no exact form) or when MCP has no solution.
        Computed once (on ``backend`` / ``solver``, default: the masters' backend when it takes cones) and cached.
        """
        if self._certificate is not None:
            return self._certificate
        if not self.exact:
            raise ModelError("the exact certificate needs manifolds with an exact form (Lq ellipsoids, point clouds); "
                             "parametric manifolds are searched locally")
        self._w_or_raise()
        if not self.solution.history:
            raise ModelError("the certificate needs a cutting-plane solution with a history")
        # the masters' backend may take no cones (piqp); a solver given here goes with the backend given here
        exact = self.model.solve(**exact_backend(backend or self.solution.backend, solver if backend else None),
                                 forall="exact")
        F_star = float(exact.objective) if exact.ok else math.nan
        P = len(self.labels)
        if self.C is None:
            bracket = (self.objective, self.objective / (1.0 - self.delta) ** 2)
        else:
            bracket = (self.objective, self.objective + P * self.C * self.delta)
        achieved = max(self.achieved_delta, 0.0)
        ok_delta = self.C is not None or achieved < 1
        at_achieved = mcp_bracket(self.solution, achieved, C=self.C, P=P) if ok_delta else None
        lo, hi = at_achieved or (math.nan, math.nan)
        slack = 1e-6 * max(1.0, abs(F_star))
        bound = math.nan
        if exact.ok and self.L is not None:
            bound = mcp_iteration_bound(self.solution, self.delta, self.L, C=self.C, F_star=F_star)
        cert = MCPCertificate(
            exact_objective=F_star, exact_status=exact.status.termination, bracket=bracket,
            bracket_achieved=at_achieved, in_bracket=bool(lo <= F_star + slack and F_star <= hi + slack),
            iteration_bound=bound,
            within_bound=bool(self.n_iter < bound if self.C is None else self.n_iter <= bound), L=self.L)
        object.__setattr__(self, "_certificate", cert)
        return cert

    @property
    def exact_objective(self) -> float:
        """F* of the exact robust counterpart (solved on first access, see `certificate`)."""
        return self.certificate()["exact_objective"]

    @property
    def bracket(self) -> tuple:
        """Cor. 3 / Cor. 5 interval at the achieved violation: it contains F* (see `certificate`)."""
        P = len(self.labels)
        return mcp_bracket(self.solution, max(self.achieved_delta, 0.0), C=self.C, P=P)

    def save(self, path_stem: str) -> None:
        """``path_stem.json`` (scalars, history without arrays) and ``path_stem.npz`` (w, xi, iterates, added
        points). No pickle."""
        meta = {"format": "certiprog.mcp_result/1", "objective": self.objective, "n_iter": self.n_iter,
                "n_added": self.n_added, "status": self.status, "delta": self.delta, "C": self.C,
                "achieved_delta": self.achieved_delta, "solve_time": self.solve_time, "L": self.L,
                "labels": self.labels.tolist(),
                "history": [{k: v for k, v in h.items() if k not in ("w", "xi", "point", "added")} |
                            {"added": [{"manifold": a["manifold"], "delta": a["delta"]} for a in h["added"]]}
                            for h in self.history]}
        with open(f"{path_stem}.json", "w") as fh:
            json.dump(meta, fh, indent=1, default=float)
        data = self.model.data
        assert isinstance(data, MCPData)  # the model comes from mcp / mcp_model
        arrays = {"iterates": np.array([h["w"] for h in self.history]).reshape(len(self.history), -1),
                  "added_points": np.array([a["point"] for h in self.history for a in h["added"]]).reshape(
                      -1, data.N)}
        if self.w is not None:
            arrays["w"] = self.w
        if self.xi is not None:
            arrays["xi"] = self.xi
        # numpy's stub: a **dict could hold savez's own allow_pickle flag; these keys are array names
        np.savez(f"{path_stem}.npz", **arrays)  # type: ignore[arg-type]


def master_backend(backend: str | None = None) -> str | None:
    """The backend of MCP's master QPs: ``backend`` if given, else None, which leaves each master to certiprog's
    one chooser (`certiprog.solvers.choose`): PIQP's dense interior point once the cut rows make a master dense
    (every cut row is a full-length point: 0.16 s against Clarabel's 2.6 s per master at N = 500 with 1000 cuts),
    Clarabel before that, and the next capable solver when the certificate cannot confirm an answer (an
    'infeasible' master without a Farkas ray, say)."""
    return backend


def exact_backend(backend: str | None = None, solver: str | None = None) -> dict:
    """``backend`` / ``solver`` options for the exact robust counterpart (second-order / power cones): ``backend``
    and ``solver`` when that solver takes those cones, ``backend`` alone (certiprog chooses among its solvers)
    when another of its solvers does, else None: certiprog chooses (e.g. after an MCP run whose masters went to
    the LP/QP-only 'piqp')."""
    from certiprog.solvers import Needs, available_solvers

    if backend is None:
        return {"backend": None, "solver": None}
    cones = Needs(cones=frozenset({"zero", "nonneg", "soc", "pow"}), quadratic=True)
    able = [str(s).upper() for _, s in available_solvers(cones, backend=backend)]
    if not able:
        return {"backend": None, "solver": None}
    return {"backend": backend, "solver": solver if solver is not None and str(solver).upper() in able else None}


def mcp_simple(manifolds, labels, delta=1e-2, max_iter=1000, backend=None, solver=None, cuts="worst",
               drop_inactive=None, progress=False, **options) -> MCPResult:
    """MCP-simple (001 Alg. 1): the hard-margin program (2.1) by cutting planes.

    T_1 = each manifold's ``initial_points()`` (its center); iteration k solves SVM_{T_k} (2.2), finds for each
    manifold the most violating point x_p = argmin y_p<w^(k), x> (vectorised over manifolds) and
    delta_k = max_p (1 - y_p<w^(k), x_p>); it stops when delta_k <= delta (0 < delta < 1), else adds the worst
    point (``cuts='worst'``, the paper's one point per iteration) or the worst point of every manifold with
    delta_{k,p} > delta (``cuts='all'``: fewer, larger iterations; T_{k+1} still contains the worst point, so
    Thm. 1 and Cor. 2 bound the number of iterations). ``drop_inactive`` (a slack threshold, e.g. 1e-3) keeps
    the master small by dropping cuts strictly inactive at its optimum; Thm. 1 / 2 and Cor. 2-5 still hold
    (w^(k) is optimal for the cuts kept), later iterates may differ from the paper's growing T_k (see
    `certiprog.solvers.cutting_plane`). Both are advisable for large P, N. The master problems are solved through the
    generic cutting-plane solver on ``backend`` / ``solver`` (cuts are appended, the model is compiled once;
    ``backend=None``: `master_backend`, PIQP's dense interior point when installed).
    ``manifolds``: manifold objects or (K, N) point arrays; ``labels`` in {+1, -1}, both present.
    """
    return _run_mcp(manifolds, labels, None, delta, max_iter, backend, solver, cuts, drop_inactive, progress, options)


def mcp_slack(manifolds, labels, C, delta=1e-2, max_iter=1000, backend=None, solver=None, cuts="worst",
              drop_inactive=None, progress=False, **options) -> MCPResult:
    """MCP-slack (001 Alg. 2): the manifold-slack program of Sec. 3.1 (one slack per manifold, hard center
    constraints y_p<w, center_p> >= 1) by cutting planes; delta_{k,p} = 1 - y_p<w^(k), x_p> - xi_p^(k) (eq. 3.1).
    Options as `mcp_simple` (delta > 0). Status 'infeasible' when the centers are not linearly separable."""
    if C is None:
        raise InputError("mcp_slack needs C > 0 (use mcp_simple for the hard margin)")
    return _run_mcp(manifolds, labels, C, delta, max_iter, backend, solver, cuts, drop_inactive, progress, options)


def _run_mcp(manifolds, labels, C, delta, max_iter, backend, solver, cuts, drop_inactive, progress, options):
    validate.solver(solver, validate.backend(backend))
    validate.flag(progress, "progress")
    ms = as_manifolds(manifolds)
    y = validate.labels(labels, "labels", size=len(ms))
    if C is not None:
        C = validate.scalar(C, "C", low=0.0, low_open=True)
    delta = validate.scalar(delta, "delta", low=0.0, low_open=True, high=1.0 if C is None else None,
                            high_open=C is None)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise InputError(f"max_iter must be a positive integer; got {max_iter!r}")
    validate.choice(cuts, "cuts", ("worst", "all"))  # 'worst': one point per iteration (Alg. 1); 'all': one per violating manifold
    if drop_inactive is not None:
        drop_inactive = validate.scalar(drop_inactive, "drop_inactive", low=0.0, low_open=True)
    model = _build_model(ms, y, C)
    backend = master_backend(backend)
    sep = _Separation(model)
    t0 = time.perf_counter()
    sol = model.solve(backend=backend, solver=solver, forall="cutting_plane", cp_tol=delta,
                      cp_max_iter=int(max_iter), progress=progress, cuts=cuts, violation="absolute", separation=sep,
                      drop_inactive=drop_inactive, **options)
    elapsed = time.perf_counter() - t0
    term = sol.info["termination"]
    status = "infeasible" if term.startswith("master_infeasible") else term
    index = {f"manifold{p}": p for p in range(len(ms))}
    history, n_iter, n_added = [], 0, 0
    for h, (w_k, xi_k) in zip(sol.history, sep.iterates):
        added = [{"manifold": index[a["constraint"]], "point": sol.cuts[a["constraint"]][a["index"]],
                  "delta": float(a["violation"])} for a in h["added"]]
        worst = max(added, key=lambda a: a["delta"]) if added else None
        history.append({"iteration": h["iteration"], "objective": float(h["objective"]), "w": w_k, "xi": xi_k,
                        "w_norm2": float(w_k @ w_k), "delta_k": float(h["max_violation"]),
                        "manifold": None if worst is None else worst["manifold"],
                        "point": None if worst is None else worst["point"], "added": added,
                        "n_points": int(h["n_cuts"])})
        n_iter += bool(added)
        n_added += len(added)
    feasible = sol.ok or status == "iteration_limit"
    w = np.asarray(sol.value("w"), float).copy() if feasible and sol.x is not None else None
    xi = None
    if w is not None and C is not None:
        xi = np.maximum(np.asarray(sol.value("xi"), float), 0.0)
    achieved = math.nan if w is None else model.data.violation(w, xi)
    return MCPResult(w=w, xi=xi, objective=float(sol.objective) if w is not None else math.inf, history=history,
                     n_iter=n_iter, n_added=n_added, status=status, delta=delta, C=C, labels=y,
                     achieved_delta=achieved, solve_time=elapsed, master_time=float(sol.info["master_time"]),
                     oracle_time=float(sol.info["oracle_time"]), exact=all(m.exact for m in ms),
                     L=model.data.L, solution=sol, model=model)
