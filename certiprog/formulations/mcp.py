"""Paper 001 — Manifold cutting planes (MCP): max-margin separation of Lq-ellipsoid manifolds.

Derivation, corrected corollaries and the reference: ``docs/derivations/001.md``.

Manifold ``p`` is the (solid) Lq ellipsoid ``M_p = {c_p + U_p diag(r_p) s : ||s||_q <= 1}`` with label
``y_p``; there is NO bias (the hyperplane passes through the origin, Sec. 2.1).

Hard margin, eq. (2.1) (``C=None``)::

    min_w  1/2 ||w||^2   s.t.  for all p, for all x in M_p:  y_p <w, x> >= 1

Manifold slack with center constraints, Sec. 3.1 (``C > 0``)::

    min_{w, xi}  1/2 ||w||^2 + C sum_p xi_p
    s.t.  for all p, for all x in M_p:  y_p <w, x> + xi_p >= 1      ('manifold{p}')
          y_p <w, c_p> >= 1                                          ('center{p}')
          xi >= 0                                                    ('xi>=0')

Each manifold is one ``ForAll(LqEllipsoid(...))``: ``model.solve()`` compiles it exactly through the robust
counterpart ``y_p c_p^T w - ||r_p o U_p^T w||_{q*} (+ xi_p) >= 1``; ``model.solve(forall='cutting_plane',
tol=delta, cuts='worst')`` runs MCP (Alg. 1 / Alg. 2: T_1 = the centers, one most-violating point added per
iteration). `mcp_bracket` turns a cutting-plane solution into the certified interval of Cor. 3 / Cor. 5,
`mcp_iteration_bound` evaluates Cor. 2 / corrected Cor. 4.

Objectives are always reported as ``1/2 ||w||^2 (+ C sum xi)`` (NOT ``||w||^2``).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from ..model import ForAll, LqEllipsoid, Model, Variable, minimize, sum_squares
from . import validate

__all__ = ["mcp", "mcp_bracket", "mcp_iteration_bound", "manifold_norm_bound", "manifold_margins",
           "achieved_violation"]


# ------------------------------------------------------------------ inputs
def _q(q) -> float:
    try:
        qv = float(q)
    except (TypeError, ValueError) as exc:
        raise InputError(f"q must be a number >= 1 (math.inf allowed); got {q!r}") from exc
    if math.isnan(qv) or qv < 1:
        raise InputError(f"q must be >= 1 (the Lq ball is not convex for q < 1); got {q!r}")
    return qv


def _geometry(centers, bases, radii):
    """Validated (centers (P,N), [U_p (N,D_p)], [r_p (D_p,)])."""
    c = validate.matrix(centers, "centers", min_rows=1)
    P, N = c.shape
    if N < 1:
        raise InputError("centers has 0 columns; the ambient dimension N must be >= 1")
    if isinstance(bases, np.ndarray) or not isinstance(bases, (list, tuple)):
        B = np.asarray(bases, dtype=float) if not isinstance(bases, np.ndarray) else bases
        if B.ndim != 3:
            raise InputError(f"bases must be (P, N, D) or a list of P arrays (N, D_p); got shape {np.shape(B)}")
        bases = list(B)
    if isinstance(radii, np.ndarray) or not isinstance(radii, (list, tuple)):
        R = np.asarray(radii, dtype=float) if not isinstance(radii, np.ndarray) else radii
        if R.ndim != 2:
            raise InputError(f"radii must be (P, D) or a list of P vectors (D_p,); got shape {np.shape(R)}")
        radii = list(R)
    if len(bases) != P:
        raise InputError(f"bases describes {len(bases)} manifolds but centers has {P} rows; one basis per manifold")
    if len(radii) != P:
        raise InputError(f"radii describes {len(radii)} manifolds but centers has {P} rows; one radius vector per manifold")
    Us, rs = [], []
    for p in range(P):
        Up = np.asarray(bases[p], dtype=float) if not hasattr(bases[p], "toarray") else bases[p].toarray()
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

    ``model.derived(sol)``: ``margin`` (kappa = 1/||w||) and ``w_norm2``; with C also ``xi`` and
    ``manifold_margins`` (min_{x in M_p} y_p<w, x>, closed form); for a cutting-plane solution also
    ``max_violation`` (achieved delta) and ``bracket`` (`mcp_bracket` at that delta).
    """
    c, Us, rs, y, q, C = _inputs(centers, bases, radii, labels, q, C)
    P, N = c.shape
    w = Variable(N, "w")
    obj = 0.5 * sum_squares(w)
    xi = None
    if C is not None:
        xi = Variable(P, "xi")
        obj = obj + C * xi.sum()
    model = Model(minimize(obj), name="mcp" if C is None else "mcp_slack")
    sets = []
    for p in range(P):
        S = LqEllipsoid(c[p], Us[p], rs[p], q=q)
        sets.append(S)
        yp = float(y[p])
        if xi is None:
            fn = (lambda u, yp=yp: yp * (w @ u) >= 1.0)
        else:
            fn = (lambda u, yp=yp, p=p: yp * (w @ u) + xi[p] >= 1.0)
        model.add(ForAll(S, fn), name=f"manifold{p}")
    if xi is not None:
        for p in range(P):
            model.add(float(y[p]) * (c[p] @ w) >= 1.0, name=f"center{p}")
        model.add(xi >= 0, name="xi>=0")

    def derive(model_, sol):
        wv = np.asarray(sol.value("w"), float)
        nw = float(np.linalg.norm(wv))
        out = {"margin": 1.0 / nw if nw > 0 else math.inf, "w_norm2": nw * nw}
        if C is not None:
            out["xi"] = np.maximum(np.asarray(sol.value("xi"), float), 0.0)
        if C is not None or sol.history:
            out["manifold_margins"] = manifold_margins(wv, model_)
        if sol.history:  # a cutting-plane solution: report the certified interval at the achieved violation
            viol = achieved_violation(sol)
            out["max_violation"] = viol
            if C is not None or viol < 1:
                out["bracket"] = mcp_bracket(sol, viol, C=C, P=P)
        return out

    model.info.update(derive=derive, paper="001", P=P, N=N, q=q, C=C, labels=y, sets=sets,
                      L=manifold_norm_bound(c, Us, rs, q))
    return model


def manifold_margins(w, model: Model) -> np.ndarray:
    """min_{x in M_p} y_p <w, x> for every manifold of an `mcp` model (closed-form Lq oracle)."""
    y = model.info["labels"]
    wv = np.asarray(w, float).reshape(-1)
    return np.array([S.minimize_linear(y[p] * wv)[1] for p, S in enumerate(model.info["sets"])])


def manifold_norm_bound(centers, bases, radii, q=2) -> float:
    """An upper bound L >= sup_p sup_{x in M_p} ||x||_2 (doc 001 §2.5), used by Thm. 1/2 and Cor. 1-4.

    ``||c_p|| + ||U_p diag(r_p)||_{q->2}`` with the exact max column norm for q = 1, sigma_max for 1 < q <= 2 and
    sigma_max * D^{1/2 - 1/q} for q > 2.
    """
    c, Us, rs = _geometry(centers, bases, radii)
    q = _q(q)
    L = 0.0
    for cp_, U, r in zip(c, Us, rs):
        M = U * r[None, :]
        if q == 1:
            op = float(np.max(np.linalg.norm(M, axis=0)))
        else:
            op = float(np.linalg.norm(M, 2))
            if q > 2:
                op *= M.shape[1] ** (0.5 - (0.0 if math.isinf(q) else 1.0 / q))
        L = max(L, float(np.linalg.norm(cp_)) + op)
    return L


# ------------------------------------------------------------------ certificates
def achieved_violation(solution) -> float:
    """max_p (1 - min_{x in M_p} y_p<w, x> - xi_p)_+ : the absolute worst violation of an `mcp` solution.

    Computed with the closed-form oracle from the solution's own model (exact, unlike the cutting-plane solver's
    *relative* ``info['max_violation']``, which equals it only when below 1). NaN if the model is not an `mcp`.
    """
    model = getattr(getattr(getattr(solution, "problem", None), "structure", None), "model", None)
    if model is None or model.info.get("paper") != "001":
        return float("nan")
    w = np.asarray(solution.value("w"), float)
    xi = np.zeros(model.info["P"]) if model.info["C"] is None else np.asarray(solution.value("xi"), float)
    return float(max(0.0, np.max(1.0 - manifold_margins(w, model) - xi)))


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
    (``model.solve(forall='cutting_plane', tol=delta)`` with delta < 1: its relative and absolute violations
    then coincide; `achieved_violation(solution)` is the smallest valid delta).

    * hard margin (``C=None``), Cor. 3: ||w_MCP||^2 <= ||w*||^2 <= ||w_MCP||^2 / (1 - delta)^2, i.e. the same
      factor on F = 1/2||w||^2 (needs delta < 1);
    An ``iteration_limit`` solution is accepted too: the bracket holds at any delta >= its achieved violation
    (`achieved_violation`), which is checked whenever the solution comes from an `mcp` model.

    * manifold slack (C > 0), Cor. 5 / eq. (3.30): F_MCP <= F* <= F_MCP + P C delta (P inferred from ``xi``
      when not given).
    The lower end is the master problem's value (a relaxation); allow ~1e-6 relative slack for the interior-point
    solver's tolerance when checking.
    """
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
