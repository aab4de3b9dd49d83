"""Paper 002 — Maximal Exclusion Ellipsoids (ME^2), Metzler et al., CAp 2017.

Derivation, corrected dual and closed forms: ``docs/derivations/002.md``.

Notation (one local model per positive example ``c``):

* ``X_neg`` (n, d) are the negatives ``x_i``; ``y_i = x_i - c`` and ``Y`` stacks the ``y_i`` as rows;
* ``q_i(M) = y_i^T M y_i`` is the SQUARED Mahalanobis distance; the learned ellipsoid is
  ``E = {x : (x - c)^T M (x - c) <= R}`` (so its M-radius is ``sqrt(R)``);
* ``mu > 0`` weights ``(B - R)^2``, ``lam > 0`` weights ``||M - I||_F^2``, ``B > 0`` bounds R.

Problem 2 (primal)::

    min_{M in S^d, R, xi}  (1/n) sum_i xi_i + mu (B - R)^2 + lam ||M - I||_F^2
    s.t.   q_i(M) >= R - xi_i   [alpha_i]    xi >= 0   [gamma]    R >= 0 [beta]    R <= B [delta]
           (M >> 0, optional: never binds since M* >= I)

Dual (maximisation form, value = p*)::

    max_{alpha, beta, delta}  -alpha^T diag(G) - ||S(alpha)||_F^2 / (4 lam)
                              - (beta - delta - 1^T alpha)^2 / (4 mu) + B 1^T alpha - B beta
    s.t.  0 <= alpha <= 1/n,  beta >= 0,  delta >= 0

with ``S(alpha) = Y^T diag(alpha) Y`` (so ``||S(alpha)||_F^2 = alpha^T (G o G) alpha``) and closed forms
``M = I + S(alpha) / (2 lam)``, ``R = B + (beta - delta - 1^T alpha) / (2 mu)``,
``xi_i = max(0, R - q_i(M))``.
"""
from __future__ import annotations

import numbers

import numpy as np

from certiprog.errors import BackendError, InputError
from certiprog.model import Model, Variable, maximize, minimize, sum_squares
from certiprog import validation as validate

__all__ = ["me2_primal", "me2_dual", "recover_primal", "me2_fit", "me2_predict", "squared_distances"]


# ------------------------------------------------------------------ inputs and helpers
def _inputs(X_neg, center, mu, lam, B):
    X = validate.matrix(X_neg, "X_neg", min_rows=1)
    if X.shape[1] < 1:
        raise InputError("X_neg has 0 columns; the negatives need at least one feature")
    c = validate.vector(center, "center", size=X.shape[1])
    mu = validate.scalar(mu, "mu", low=0.0, low_open=True)
    lam = validate.scalar(lam, "lam", low=0.0, low_open=True)
    B = validate.scalar(B, "B", low=0.0, low_open=True)
    return X - c, c, mu, lam, B


def _tri_indices(d: int):
    """Upper-triangle index pairs (i <= j) and the weights making sum w * S_ij^2 == ||S||_F^2."""
    iu, ju = np.triu_indices(d)
    w = np.where(iu == ju, 1.0, np.sqrt(2.0))
    return iu, ju, w


def svec_gram_map(Y: np.ndarray) -> np.ndarray:
    """The (d(d+1)/2, n) matrix K with ``||Y^T diag(alpha) Y||_F^2 == ||K @ alpha||^2``.

    Row (i <= j) of K is ``w_ij * Y[:, i] * Y[:, j]`` with ``w = 1`` on the diagonal and ``sqrt(2)`` off it:
    this is the symmetric-vectorisation of ``S(alpha)``, half the rows of the plain (d*d, n) map.
    """
    iu, ju, w = _tri_indices(Y.shape[1])
    return (Y[:, iu] * Y[:, ju] * w).T


def squared_distances(Y: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``q_i = y_i^T M y_i`` for every row of Y."""
    return np.einsum("ij,jk,ik->i", Y, M, Y)


# ------------------------------------------------------------------ primal (Problem 2)
def me2_primal(X_neg, center, mu, lam, B, psd: bool = False) -> Model:
    """Problem 2 of ME^2 for one positive ``center`` against the negatives ``X_neg``.

    Variables: ``M`` (symmetric d x d), ``R`` (scalar), ``xi`` (n).
    Constraints: ``'margin'`` (vector over the negatives: ``q_i(M) >= R - xi_i``; its dual is alpha),
    ``'xi>=0'`` (gamma), ``'R>=0'`` (beta), ``'R<=B'`` (delta) and, with ``psd=True``, ``'M_psd'``
    (``M >> 0``; it never binds because ``M* >= I``).

    ``model.derived(sol)`` gives the ellipsoid: ``M``, ``R``, ``radius = sqrt(R)``, ``q`` (squared
    M-distances of the negatives), ``inside`` (negatives strictly inside, i.e. ``xi_i > 0``: training
    errors), ``on_boundary`` (``q_i == R`` up to tolerance: candidate support vectors), ``n_inside`` and the
    multipliers ``alpha, gamma, beta, delta``.
    """
    Y, c, mu, lam, B = _inputs(X_neg, center, mu, lam, B)
    n, d = Y.shape
    M = Variable((d, d), "M", symmetric=True)
    R = Variable((), "R")
    xi = Variable(n, "xi")
    # q_i = y_i^T M y_i = <vec(y_i y_i^T), vec(M)>: one constant (n, d*d) matrix, affine in M.
    Q = np.einsum("ki,kj->kij", Y, Y).reshape(n, d * d)
    q = Q @ M.flatten()
    obj = xi.sum() * (1.0 / n) + mu * sum_squares(B - R) + lam * sum_squares(M - np.eye(d))
    model = Model(minimize(obj), name="me2_primal")
    model.add(q >= R - xi, name="margin")
    model.add(xi >= 0, name="xi>=0")
    model.add(R >= 0, name="R>=0")
    model.add(R <= B, name="R<=B")
    if psd:
        model.add(M >> 0, name="M_psd")

    def derive(model_, sol):
        Mv = np.asarray(sol.value("M"), float)
        Mv = 0.5 * (Mv + Mv.T)
        Rv = float(sol.value("R"))
        qv = squared_distances(Y, Mv)
        tol = 1e-6 * max(1.0, abs(Rv))
        out = dict(M=Mv, R=Rv, radius=float(np.sqrt(max(Rv, 0.0))), center=c.copy(),
                   xi=np.asarray(sol.value("xi"), float), q=qv,
                   inside=qv < Rv - tol, on_boundary=np.abs(qv - Rv) <= tol)
        out["n_inside"] = int(np.sum(out["inside"]))
        if sol.z is not None:
            out.update(alpha=np.asarray(sol.dual("margin"), float), gamma=np.asarray(sol.dual("xi>=0"), float),
                       beta=float(sol.dual("R>=0")), delta=float(sol.dual("R<=B")))
        return out

    model.info.update(derive=derive, paper="002", problem="primal", n=n, d=d, mu=mu, lam=lam, B=B)
    return model


# ------------------------------------------------------------------ dual
def me2_dual(X_neg, center, mu, lam, B) -> Model:
    """The corrected Lagrange dual of Problem 2, in maximisation form (optimal value = p*).

    Variables: ``alpha`` (n), ``beta``, ``delta`` (scalars). Constraints: ``'alpha>=0'``, ``'alpha<=1/n'``
    (i.e. gamma = 1/n - alpha >= 0), ``'beta>=0'``, ``'delta>=0'``.

    ``alpha^T G' alpha`` (G' = G o G, n x n) is never formed: it equals ``||K alpha||^2`` with K the
    (d(d+1)/2, n) symmetric vectorisation of ``alpha -> Y^T diag(alpha) Y`` (see `svec_gram_map`), so the
    model stays vectorised and its size is linear in n.

    ``model.derived(sol)`` is `recover_primal` at the dual optimum (``M``, ``R``, ``xi``, ``objective`` = primal
    objective at the recovered point, ...) plus ``xi_multiplier``, the dual of ``'alpha<=1/n'``, which equals
    the primal xi.
    """
    Y, c, mu, lam, B = _inputs(X_neg, center, mu, lam, B)
    n, d = Y.shape
    K = svec_gram_map(Y)
    diagG = np.sum(Y * Y, axis=1)
    alpha = Variable(n, "alpha")
    beta = Variable((), "beta")
    delta = Variable((), "delta")
    s = alpha.sum()
    g = (-(diagG @ alpha) - sum_squares(K @ alpha) * (1.0 / (4.0 * lam))
         - sum_squares(beta - delta - s) * (1.0 / (4.0 * mu)) + B * s - B * beta)
    model = Model(maximize(g), name="me2_dual")
    model.add(alpha >= 0, name="alpha>=0")
    model.add(alpha <= 1.0 / n, name="alpha<=1/n")
    model.add(beta >= 0, name="beta>=0")
    model.add(delta >= 0, name="delta>=0")

    def derive(model_, sol):
        out = recover_primal(Y + c, c, mu, lam, B, sol.value("alpha"), float(sol.value("beta")),
                             float(sol.value("delta")))
        if sol.z is not None:  # the multiplier of alpha <= 1/n is the primal slack xi (a cross-check)
            out["xi_multiplier"] = np.asarray(sol.dual("alpha<=1/n"), float)
        return out

    model.info.update(derive=derive, paper="002", problem="dual", n=n, d=d, mu=mu, lam=lam, B=B)
    return model


def recover_primal(X_neg, center, mu, lam, B, alpha, beta=0.0, delta=0.0) -> dict:
    """Closed-form primal point from dual variables (doc 002 §5).

    ``M = I + Y^T diag(alpha) Y / (2 lam)`` (always >= I), ``R = B + (beta - delta - sum alpha) / (2 mu)``,
    ``xi_i = max(0, R - q_i(M))``. alpha is first clipped to the dual box [0, 1/n] (solver round-off).
    Returns dict(M, R, xi, objective (primal objective at that point), alpha, beta, delta, gamma).
    """
    Y, c, mu, lam, B = _inputs(X_neg, center, mu, lam, B)
    n, d = Y.shape
    a = np.clip(validate.vector(alpha, "alpha", size=n), 0.0, 1.0 / n)
    beta = validate.scalar(beta, "beta")
    delta = validate.scalar(delta, "delta")
    M = np.eye(d) + (Y.T @ (a[:, None] * Y)) / (2.0 * lam)
    R = float(B + (beta - delta - a.sum()) / (2.0 * mu))
    xi = np.maximum(0.0, R - squared_distances(Y, M))
    obj = float(np.mean(xi) + mu * (B - R) ** 2 + lam * np.sum((M - np.eye(d)) ** 2))
    return dict(M=M, R=R, xi=xi, objective=obj, alpha=a, beta=beta, delta=delta, gamma=1.0 / n - a)


# ------------------------------------------------------------------ training and prediction
def _per_model(v, name: str, p: int) -> np.ndarray:
    arr = np.asarray(v, dtype=float) if not isinstance(v, numbers.Number) else np.array(float(v))
    if arr.ndim == 0:
        arr = np.full(p, float(arr))
    arr = validate.vector(arr, name, size=p)
    if np.any(arr <= 0):
        raise InputError(f"{name} must be > 0 (one value, or one per positive); got {arr[arr <= 0][:3]}")
    return arr


def me2_fit(X_pos, X_neg, mu, lam, B, *, method: str = "primal", backend: str | None = None, **options) -> list:
    """Train ME^2: one Problem 2 per positive ``c_j`` (rows of ``X_pos``), each against all of ``X_neg``.

    ``mu`` and ``lam`` may be scalars or one value per positive (the paper tunes them per local model);
    ``B`` is a scalar (B = 4 in the paper). ``method='primal'`` solves `me2_primal`, ``'dual'`` solves
    `me2_dual` and recovers (M, R) in closed form; ``backend`` and ``**options`` go to ``Model.solve``.
    Returns a list of ``(center, M, R)``, one per positive. Problem 2 is always feasible and bounded, so a
    solve that does not end optimal raises `certiprog.errors.BackendError` naming the local model.
    """
    P = validate.matrix(X_pos, "X_pos", min_rows=1)
    X = validate.matrix(X_neg, "X_neg", min_rows=1, cols=P.shape[1])
    p = P.shape[0]
    mus, lams = _per_model(mu, "mu", p), _per_model(lam, "lam", p)
    B = validate.scalar(B, "B", low=0.0, low_open=True)
    if method not in ("primal", "dual"):
        raise InputError(f"method must be 'primal' or 'dual'; got {method!r}")
    build = me2_primal if method == "primal" else me2_dual
    models = []
    for j in range(p):
        model = build(X, P[j], mus[j], lams[j], B)
        sol = model.solve(backend=backend, **options)
        if not sol.ok:
            raise BackendError(f"ME2 local model {j} did not solve to optimality (status {sol.status}); "
                             "check the scale of X_pos / X_neg and of mu, lam")
        der = model.derived(sol)
        models.append((P[j].copy(), der["M"], der["R"]))
    return models


def _check_models(models):
    if isinstance(models, tuple) and len(models) == 3 and np.ndim(models[0]) == 1:
        models = [models]
    try:
        models = list(models)
    except TypeError as exc:
        raise InputError("models must be a list of (center, M, R) as returned by me2_fit") from exc
    if not models:
        raise InputError("models is empty: train at least one local model with me2_fit")
    C, Ms, Rs = [], [], []
    d = None
    for j, mdl in enumerate(models):
        try:
            c, M, R = mdl
        except (TypeError, ValueError) as exc:
            raise InputError(f"models[{j}] must be a (center, M, R) triple") from exc
        c = validate.vector(c, f"models[{j}] center", size=d)
        d = c.size
        M = validate.matrix(M, f"models[{j}] M", min_rows=d, cols=d)
        if M.shape[0] != d:
            raise InputError(f"models[{j}] M must be {d} x {d}; got {M.shape}")
        C.append(c), Ms.append(M), Rs.append(validate.scalar(R, f"models[{j}] R"))
    return np.array(C), Ms, np.array(Rs)


def me2_predict(models, X, m: int = 3, *, rank_metric: str = "euclidean", return_assignment: bool = False):
    """Sec. 5.2 decision rule: labels in {+1, -1} for the query points X (rows).

    1. each query x is assigned to its Euclidean-nearest centre ``c_j`` (ties: lowest j);
    2. x is labelled +1 iff (a) it lies in that ellipsoid, ``(x - c_j)^T M_j (x - c_j) <= R_j`` (R is a
       squared-distance threshold), and (b) it "is at most the m-th closest nearest neighbour of the
       ellipsoid's centre";
    3. otherwise -1.

    Reading of the ambiguous (b) implemented here (the one of the reference and of doc 002 §7): BATCH
    semantics — among the query points of this call that are assigned to ``c_j`` and satisfy (a), only the
    ``m`` closest to ``c_j`` are labelled +1 (so each centre labels at most m points positive; ties broken
    by row index). "Closest" is Euclidean by default (consistent with step 1) or the learned metric with
    ``rank_metric='mahalanobis'``. Consequently the label of a point can depend on the other points in the
    batch; predict one point at a time to get the pure ellipsoid-membership rule (with m >= 1).

    Returns the labels (int array), and with ``return_assignment=True`` also the assigned centre indices.
    """
    C, Ms, Rs = _check_models(models)
    Xq = validate.matrix(X, "X", min_rows=1, cols=C.shape[1])
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 1:
        raise InputError(f"m must be a positive integer (the paper uses m = 3); got {m!r}")
    if rank_metric not in ("euclidean", "mahalanobis"):
        raise InputError(f"rank_metric must be 'euclidean' or 'mahalanobis'; got {rank_metric!r}")
    d2 = ((Xq[:, None, :] - C[None, :, :]) ** 2).sum(-1)
    assign = np.argmin(d2, axis=1)
    labels = -np.ones(len(Xq), dtype=int)
    for j in range(len(C)):
        idx = np.flatnonzero(assign == j)
        if idx.size == 0:
            continue
        qM = squared_distances(Xq[idx] - C[j], Ms[j])
        ok = qM <= Rs[j]
        inside = idx[ok]
        if inside.size == 0:
            continue
        key = d2[inside, j] if rank_metric == "euclidean" else qM[ok]
        order = inside[np.lexsort((inside, key))]
        labels[order[:int(m)]] = 1
    return (labels, assign) if return_assignment else labels
