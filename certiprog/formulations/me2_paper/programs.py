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
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from certiprog import validation as validate
from certiprog.errors import BackendError, InputError
from certiprog.formulations.me2_paper.local_solver import DEFAULT_TOL, LOCAL_METHODS
from certiprog.model import Model, Record, Variable, maximize, minimize, sum_squares
from certiprog.solvers.structured import StructuredAnswer

__all__ = ["FIT_METHODS", "LOCAL_METHODS", "ME2_INSTANCES", "ME2Data", "ME2Fit", "ME2Solution", "LocalEllipsoid",
           "me2_dual", "me2_fit",
           "me2_instance", "me2_objective", "me2_predict", "me2_primal", "recover_primal", "squared_distances",
           "svec_gram_map", "warm_alpha"]

#: The seeded test instances of doc 002 (seed, n, d, mu, lam, B): n > d, n < d, n == d, tiny lam, big mu / lam.
#: Data from `me2_instance(seed, n, d)`. The independent reference (tests/reference/ref_002.py) keeps its own copy;
#: a test pins the two equal.
ME2_INSTANCES = (
    (0, 8, 3, 1.0, 0.5, 4.0),
    (1, 15, 4, 0.8, 0.1, 4.0),
    (2, 5, 6, 2.0, 1.0, 4.0),
    (3, 12, 2, 0.75, 1e-2, 4.0),
    (4, 10, 3, 10.0, 100.0, 2.0),
    (5, 6, 6, 1.0, 0.2, 3.0),
)


def me2_instance(seed: int, n: int, d: int, sigma: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``(X_neg, center)`` of a seeded test instance: ``center ~ N(0, I_d)``, negatives ``center + sigma N(0, I_d)``."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=d)
    return c + sigma * rng.normal(size=(n, d)), c


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
    """``q_i = y_i^T M y_i`` for every row of Y (`decision.quad_forms`, the one definition)."""
    from certiprog.formulations.me2_paper.decision import quad_forms

    return quad_forms(Y, M)


def me2_objective(M, R: float, xi, mu: float, lam: float, B: float) -> float:
    """Problem 2's objective ``(1/n) sum_i xi_i + mu (B - R)^2 + lam ||M - I||_F^2``."""
    M = np.asarray(M, float)
    return float(np.mean(xi) + mu * (B - R) ** 2 + lam * np.sum((M - np.eye(M.shape[0])) ** 2))


# ------------------------------------------------------------------ typed data and results
@dataclass(frozen=True, eq=False)
class ME2Solution(Record):
    """One local ME^2 ellipsoid ``E = {x : (x - c)^T M (x - c) <= R}`` at a solution (``model.derived(sol)`` of
    `me2_primal` and `me2_dual`, and `recover_primal`).

    ``M``, ``R``, ``radius = sqrt(R)``, ``center``, ``xi``, ``q`` (squared M-distances of the negatives),
    ``inside`` (negatives strictly inside, i.e. ``q_i < R``: training errors), ``on_boundary`` (``q_i == R`` up to
    tolerance: candidate support vectors), ``n_inside``, ``objective`` (Problem 2's objective at ``(M, R, xi)``,
    `me2_objective`) and the multipliers ``alpha, gamma, beta, delta`` (None when unknown: a primal solve without
    duals). ``xi_multiplier``: the dual of ``'alpha<=1/n'`` of a dual solve, which equals the primal xi (else None).
    """

    M: np.ndarray
    R: float
    radius: float
    center: np.ndarray
    xi: np.ndarray
    q: np.ndarray
    inside: np.ndarray
    on_boundary: np.ndarray
    n_inside: int
    objective: float
    alpha: np.ndarray | None = None
    gamma: np.ndarray | None = None
    beta: float | None = None
    delta: float | None = None
    xi_multiplier: np.ndarray | None = None


def _ellipsoid(Y, c, M, R, xi, mu, lam, B, **multipliers) -> ME2Solution:
    q = squared_distances(Y, M)
    tol = 1e-6 * max(1.0, abs(R))
    inside = q < R - tol
    return ME2Solution(M=M, R=R, radius=float(np.sqrt(max(R, 0.0))), center=c.copy(), xi=xi, q=q, inside=inside,
                       on_boundary=np.abs(q - R) <= tol, n_inside=int(np.sum(inside)),
                       objective=me2_objective(M, R, xi, mu, lam, B), **multipliers)


@dataclass(frozen=True, eq=False)
class ME2Data:
    """The data of one local ME^2 problem (``model.data`` of `me2_primal` / `me2_dual`): ``Y = X_neg - center``
    (n, d), ``center``, ``mu``, ``lam``, ``B`` and which program the model is (``problem``: 'primal' or 'dual')."""

    Y: np.ndarray
    center: np.ndarray
    mu: float
    lam: float
    B: float
    problem: str

    @property
    def n(self) -> int:
        return int(self.Y.shape[0])

    @property
    def d(self) -> int:
        return int(self.Y.shape[1])

    def structured_solve(self, **options) -> StructuredAnswer:
        """The dedicated certified local solver (`local_solver.solve_local`) for ``model.solve(solver="structured")``
        (`certiprog.solvers.structured`), on either model. ``options`` go to `solve_local` (``tol``, ``max_iter``,
        ``alpha0``). Not tried first by certiprog's automatic choice: at a degenerate optimum (R* = 0) the
        multipliers are not unique, and the claims registry's evidence for 002-C57 reads the interior point's.

        From its dual point alpha the closed forms give both programs' points and multipliers (module docstring
        of `local_solver`; signs in certiprog's convention, checked against Clarabel's duals in the tests): with
        ``q_i = y_i^T M y_i`` and R the closed-form radius, the dual model's multipliers are ``[q - R]_+``
        ('alpha>=0'), ``xi = [R - q]_+`` ('alpha<=1/n'), ``R`` ('beta>=0') and ``B - R`` ('delta>=0'); the primal
        model's are alpha ('margin'), ``1/n - alpha`` ('xi>=0'), beta ('R>=0') and delta = 0 ('R<=B'); the dual
        model's internal copies of ``K alpha`` and ``beta - delta - s`` get ``K alpha / (2 lam)`` and ``R - B``."""
        from .local_solver import local_problem, solve_local

        fit = solve_local(problem=local_problem(self.Y + self.center, self.center), mu=self.mu, lam=self.lam,
                          B=self.B, **options)
        q = np.einsum("ij,jk,ik->i", self.Y, fit.M, self.Y)
        xi = np.maximum(0.0, fit.R - q)
        if self.problem == "dual":
            values = {"alpha": fit.alpha, "beta": fit.beta, "delta": fit.delta}
            # the compiler's copies of K alpha and beta - delta - s (rows '_objective/sum_squares') carry the
            # gradients of the two squares: S(alpha)/(2 lam) in svec form and R - B
            copies = np.append(svec_gram_map(self.Y) @ fit.alpha / (2.0 * self.lam), fit.R - self.B)
            duals = {"alpha>=0": np.maximum(0.0, q - fit.R), "alpha<=1/n": xi, "beta>=0": fit.R,
                     "delta>=0": self.B - fit.R, "_objective/sum_squares": copies}
        else:
            values = {"M": fit.M, "R": fit.R, "xi": xi}
            duals = {"margin": fit.alpha, "xi>=0": 1.0 / self.n - fit.alpha, "R>=0": fit.beta, "R<=B": fit.delta}
        return StructuredAnswer(values, duals, fit.status, (fit.dual, fit.primal), fit.iterations,
                                info=dict(gap=fit.gap, rel_gap=fit.rel_gap, path=fit.path))

    def structured_auto(self, problem) -> bool:
        """Not tried first below `certiprog.solvers.structured.AUTO_MIN_NNZ` nonzeros (see `structured_solve`)."""
        return False

    def derive(self, sol) -> ME2Solution:
        Y, c, mu, lam, B = self.Y, self.center, self.mu, self.lam, self.B
        if self.problem == "dual":
            rec = recover_primal(Y + c, c, mu, lam, B, sol.value("alpha"), float(sol.value("beta")),
                                 float(sol.value("delta")))
            if sol.z is None:
                return rec
            # the multiplier of alpha <= 1/n is the primal slack xi (a cross-check)
            return _ellipsoid(Y, c, rec.M, rec.R, rec.xi, mu, lam, B, alpha=rec.alpha, gamma=rec.gamma,
                              beta=rec.beta, delta=rec.delta,
                              xi_multiplier=np.asarray(sol.dual("alpha<=1/n"), float))
        Mv = np.asarray(sol.value("M"), float)
        Mv = 0.5 * (Mv + Mv.T)
        duals = {}
        if sol.z is not None:
            duals = dict(alpha=np.asarray(sol.dual("margin"), float), gamma=np.asarray(sol.dual("xi>=0"), float),
                         beta=float(sol.dual("R>=0")), delta=float(sol.dual("R<=B")))
        return _ellipsoid(Y, c, Mv, float(sol.value("R")), np.asarray(sol.value("xi"), float), mu, lam, B, **duals)


# ------------------------------------------------------------------ primal (Problem 2)
def me2_primal(X_neg, center, mu, lam, B, psd: bool = False) -> Model:
    """Problem 2 of ME^2 for one positive ``center`` against the negatives ``X_neg``.

    Variables: ``M`` (symmetric d x d), ``R`` (scalar), ``xi`` (n).
    Constraints: ``'margin'`` (vector over the negatives: ``q_i(M) >= R - xi_i``; its dual is alpha),
    ``'xi>=0'`` (gamma), ``'R>=0'`` (beta), ``'R<=B'`` (delta) and, with ``psd=True``, ``'M_psd'``
    (``M >> 0``; it never binds because ``M* >= I``).

    ``model.data`` is an `ME2Data`; ``model.derived(sol)`` the ellipsoid, an `ME2Solution` (with the multipliers
    ``alpha, gamma, beta, delta`` from the solver's duals).
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

    model.data = ME2Data(Y, c, mu, lam, B, "primal")
    return model


# ------------------------------------------------------------------ dual
def me2_dual(X_neg, center, mu, lam, B) -> Model:
    """The corrected Lagrange dual of Problem 2, in maximisation form (optimal value = p*).

    Variables: ``alpha`` (n), ``beta``, ``delta`` (scalars). Constraints: ``'alpha>=0'``, ``'alpha<=1/n'``
    (i.e. gamma = 1/n - alpha >= 0), ``'beta>=0'``, ``'delta>=0'``.

    ``alpha^T G' alpha`` (G' = G o G, n x n) is never formed: it equals ``||K alpha||^2`` with K the
    (d(d+1)/2, n) symmetric vectorisation of ``alpha -> Y^T diag(alpha) Y`` (see `svec_gram_map`), so the
    model stays vectorised and its size is linear in n.

    ``model.data`` is an `ME2Data`; ``model.derived(sol)`` is `recover_primal` at the dual optimum (an
    `ME2Solution`: ``M``, ``R``, ``xi``, ``objective`` = primal objective at the recovered point, ...) with
    ``xi_multiplier``, the dual of ``'alpha<=1/n'``, which equals the primal xi.
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

    model.data = ME2Data(Y, c, mu, lam, B, "dual")
    return model


def recover_primal(X_neg, center, mu, lam, B, alpha, beta=0.0, delta=0.0) -> ME2Solution:
    """Closed-form primal point from dual variables (doc 002 §5), as an `ME2Solution`.

    ``M = I + Y^T diag(alpha) Y / (2 lam)`` (always >= I), ``R = B + (beta - delta - sum alpha) / (2 mu)``,
    ``xi_i = max(0, R - q_i(M))``; ``objective`` is the primal objective at that point, ``gamma = 1/n - alpha``.
    alpha is first clipped to the dual box [0, 1/n] (solver round-off).
    """
    Y, c, mu, lam, B = _inputs(X_neg, center, mu, lam, B)
    n, d = Y.shape
    a = np.clip(validate.vector(alpha, "alpha", size=n), 0.0, 1.0 / n)
    beta = validate.scalar(beta, "beta")
    delta = validate.scalar(delta, "delta")
    M = np.eye(d) + (Y.T @ (a[:, None] * Y)) / (2.0 * lam)
    R = float(B + (beta - delta - a.sum()) / (2.0 * mu))
    xi = np.maximum(0.0, R - squared_distances(Y, M))
    return _ellipsoid(Y, c, M, R, xi, mu, lam, B, alpha=a, gamma=1.0 / n - a, beta=beta, delta=delta)


# ------------------------------------------------------------------ training and prediction
def _per_model(v, name: str, p: int) -> np.ndarray:
    arr = validate.real_array(v, f"{name} (one number > 0, or one per positive)")
    if arr.ndim == 0:
        arr = np.full(p, float(arr))
    arr = validate.vector(arr, name, size=p)
    if np.any(arr <= 0):
        raise InputError(f"{name} must be > 0 (one value, or one per positive); got {arr[arr <= 0][:3]}")
    return arr


class LocalEllipsoid(NamedTuple):
    """One trained local model: the ellipsoid ``{x : (x - center)^T M (x - center) <= R}``."""

    center: np.ndarray
    M: np.ndarray
    R: float


@dataclass(frozen=True, eq=False)
class ME2Fit(Record):
    """What `me2_fit` returns: ``models`` (one `LocalEllipsoid` per positive, what `me2_predict` takes),
    ``solutions`` (each local model's `ME2Solution`), ``history`` (one dict per local model: ``index``, ``status``,
    ``objective``, ``backend``, ``solver``, ``solve_time``), ``certificates`` (each local solve's
    `certiprog.certificates.Certificate`, or None with ``certify=False``) and ``method``."""

    models: tuple
    solutions: tuple
    history: tuple
    certificates: tuple
    method: str

    def predict(self, X, m: int = 3, **kw):
        """`me2_predict` with these models."""
        return me2_predict(self, X, m, **kw)


#: `me2_fit` methods: the Model paths, then `local_solver.LOCAL_METHODS` (the local dual solved by `local_solver`
#: and certified by the closed-form duality gap)
FIT_METHODS = ("primal", "dual") + LOCAL_METHODS


def _local_options(method: str, options: dict) -> dict:
    allowed = ("tol", "max_iter", "fallback") if method == "dedicated" else ("tol",)
    bad = sorted(set(options) - set(allowed))
    if bad:
        raise InputError(f"method {method!r} takes the options {allowed}; got {bad}")
    out = dict(options)
    out["tol"] = validate.scalar(out.get("tol", DEFAULT_TOL), "tol", low=0.0, low_open=True)
    return out


def me2_fit(X_pos, X_neg, mu, lam, B, *, method: str = "primal", backend: str | None = None,
            certify: bool | str = True, n_jobs=None, warm_start=None, **options) -> ME2Fit:
    """Train ME^2: one Problem 2 per positive ``c_j`` (rows of ``X_pos``), each against all of ``X_neg`` (the one
    training loop: `ME2Classifier` and the experiment call it).

    ``mu`` and ``lam`` may be scalars or one value per positive (the paper tunes them per local model);
    ``B`` is a scalar (B = 4 in the paper). Methods:

    * ``'primal'`` solves `me2_primal`, ``'dual'`` solves `me2_dual` and recovers (M, R) in closed form;
      ``backend`` and ``**options`` go to ``Model.solve``; ``certify``: `certiprog.certificates.check` of every local
      solve (True: with the rigorous optimality interval; 'kkt': residuals only; False: none). Problem 2 is always
      feasible and bounded, so a solve that does not end optimal raises `certiprog.errors.BackendError` naming the
      local model.
    * ``'dedicated'`` (`local_solver.solve_local_checked`: the dual as box least squares, redone on Clarabel if it
      does not reach ``tol``), ``'generic'`` (`local_solver.solve_local_generic`: `me2_dual` as a Model on
      ``backend``) and ``'cvxpy-direct'`` (the same box QP written in CVXPY, Clarabel): each local model is
      certified by the duality gap of its closed-form primal point (always: the gap is their stopping rule;
      ``certify`` is not used). Options: ``tol`` (relative gap; default `local_solver.DEFAULT_TOL`, a generic answer
      is held to at least ``GENERIC_TOL``), and for 'dedicated' ``max_iter`` and ``fallback`` (backend of the redo,
      None: none). A model that misses the tolerance keeps status "inaccurate" in its certificate (not an error:
      its gap still bounds its error). ``n_jobs``: joblib workers over the local models of these methods
      (scikit-learn's semantics, `parallel.over_chunks`; the result does not depend on it). ``warm_start``
      ('dedicated' only): one ``(M, R)`` or None per positive, e.g. the tuning's ellipsoid at the chosen pair
      (`tuning.CentreTuning.ellipsoid`): the solve starts from alpha = 1/n on the negatives inside it and 0 outside
      (`warm_alpha`); the answer is certified the same way.

    Returns an `ME2Fit`.
    """
    P = validate.matrix(X_pos, "X_pos", min_rows=1)
    X = validate.matrix(X_neg, "X_neg", min_rows=1, cols=P.shape[1])
    validate.backend(backend)
    p = P.shape[0]
    mus, lams = _per_model(mu, "mu", p), _per_model(lam, "lam", p)
    B = validate.scalar(B, "B", low=0.0, low_open=True)
    if method not in FIT_METHODS:
        raise InputError(f"method must be one of {FIT_METHODS}; got {method!r}")
    if certify not in (True, False, "kkt"):
        raise InputError(f"certify must be True, 'kkt' or False; got {certify!r}")
    if method in LOCAL_METHODS:
        if warm_start is not None:
            if method != "dedicated":
                raise InputError("warm_start is used by method='dedicated' only")
            warm_start = list(warm_start)
            if len(warm_start) != p:
                raise InputError(f"warm_start needs one (M, R) or None per positive ({p}); got {len(warm_start)}")
        return _fit_local(P, X, mus, lams, B, method, backend, _local_options(method, options), n_jobs, warm_start)
    build = me2_primal if method == "primal" else me2_dual
    models, solutions, history = [], [], []
    certificates: list = []  # a Certificate per local model, or None when not certified
    for j in range(p):
        model = build(X, P[j], mus[j], lams[j], B)
        sol = model.solve(backend=backend, **options)
        if not sol.ok:
            raise BackendError(f"ME2 local model {j} did not solve to optimality (status {sol.status}); "
                               "check the scale of X_pos / X_neg and of mu, lam")
        der = model.derived(sol)
        models.append(LocalEllipsoid(P[j].copy(), der.M, der.R))
        solutions.append(der)
        history.append(dict(index=j, status=str(sol.status), objective=float(sol.objective), backend=sol.backend,
                            solver=sol.solver, solve_time=sol.solve_time))
        if certify:
            from certiprog.certify import check

            certificates.append(check(model, sol, interval=certify is True))
        else:
            certificates.append(None)
    return ME2Fit(tuple(models), tuple(solutions), tuple(history), tuple(certificates), method)


def _fit_local(P, X, mus, lams, B, method, backend, options, n_jobs=None, warm_start=None) -> ME2Fit:
    """`me2_fit`'s loop for the `LOCAL_METHODS` (inputs validated), over joblib workers (`parallel.over_chunks`)."""
    from .parallel import over_chunks

    tol = options.pop("tol")
    warm = [None] * len(P) if warm_start is None else warm_start
    solutions = [s for chunk in over_chunks(_fit_chunk, list(range(len(P))), n_jobs, P, X, mus, lams, B, method,
                                            backend, tol, options, warm) for s in chunk]
    models = [LocalEllipsoid(P[j].copy(), sol.M, sol.R) for j, sol in enumerate(solutions)]
    history = [dict(index=j, status=str(sol.status), objective=float(sol.primal), backend=method, solver=sol.solver,
                    solve_time=float(sol.seconds)) for j, sol in enumerate(solutions)]
    return ME2Fit(tuple(models), tuple(solutions), tuple(history), tuple(s.certificate() for s in solutions), method)


def warm_alpha(problem, M, R) -> np.ndarray:
    """A dual starting point from an ellipsoid (M, R) near the optimum: alpha_i = 1/n for the negatives strictly
    inside it (they want the upper bound, `local_solver`'s gradient q_i - R < 0), 0 for the others."""
    M = validate.matrix(M, "warm-start M", min_rows=problem.d, cols=problem.d)
    if M.shape[0] != problem.d:
        raise InputError(f"warm-start M must be {problem.d} x {problem.d}; got {M.shape}")
    q = squared_distances(problem.Y, M)
    return np.where(q < validate.scalar(R, "warm-start R"), 1.0 / problem.n, 0.0)


def _fit_chunk(rows, P, X, mus, lams, B, method, backend, tol, options, warm) -> list:
    """The local models ``rows`` of `_fit_local` (one joblib task), BLAS on one thread."""
    from threadpoolctl import threadpool_limits

    from certiprog.formulations.me2_paper import local_solver as LS

    out = []
    with threadpool_limits(1):
        for j in rows:
            prob = LS.local_problem(X, P[j])
            extra = dict(options)
            if warm[j] is not None:
                extra["alpha0"] = warm_alpha(prob, *warm[j])
            out.append(LS.solve_local_by(prob, mus[j], lams[j], B, method=method, backend=backend, tol=tol, **extra))
    return out


def _check_models(models):
    if isinstance(models, ME2Fit):
        models = list(models.models)
    elif isinstance(models, LocalEllipsoid) or (isinstance(models, tuple) and len(models) == 3
                                               and not isinstance(models[0], tuple) and np.ndim(models[0]) == 1):
        models = [models]
    try:
        models = list(models)
    except TypeError as exc:
        raise InputError("models must be an ME2Fit (me2_fit) or a list of (center, M, R)") from exc
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
    """Sec. 5.2 decision rule, batch reading: labels in {+1, -1} for the query points X (rows); ``models`` is an
    `ME2Fit` or a list of ``(center, M, R)``.

    1. each query x is assigned to its Euclidean-nearest centre ``c_j`` (ties: lowest j);
    2. x is labelled +1 iff (a) it lies inside that ellipsoid, ``(x - c_j)^T M_j (x - c_j) < R_j`` (strict: the
       learned boundary passes through negatives, the support vectors, which stay negative), and (b) it "is at
       most the m-th closest nearest neighbour of the ellipsoid's centre";
    3. otherwise -1.

    Reading of the ambiguous (b) implemented here (the one of the reference and of doc 002 §7): BATCH
    semantics — among the query points of this call that are assigned to ``c_j`` and satisfy (a), only the
    ``m`` closest to ``c_j`` are labelled +1 (so each centre labels at most m points positive; ties broken
    by row index). "Closest" is Euclidean by default (consistent with step 1) or the learned metric with
    ``rank_metric='mahalanobis'``. Consequently the label of a point can depend on the other points in the
    batch; predict one point at a time to get the pure ellipsoid-membership rule (with m >= 1). The rule is
    `certiprog.formulations.me2_paper.decision.rule_scores` with ``rule='batch'`` (one definition, shared with
    the estimator, which also offers the batch-independent readings).

    Returns the labels (int array), and with ``return_assignment=True`` also the assigned centre indices.
    """
    from certiprog.formulations.me2_paper.decision import rule_scores

    C, Ms, Rs = _check_models(models)
    Xq = validate.matrix(X, "X", min_rows=1, cols=C.shape[1])
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 1:
        raise InputError(f"m must be a positive integer (the paper uses m = 3); got {m!r}")
    if rank_metric not in ("euclidean", "mahalanobis"):
        raise InputError(f"rank_metric must be 'euclidean' or 'mahalanobis'; got {rank_metric!r}")
    score, assign = rule_scores(C, Ms, Rs, Xq, rule="batch", m=int(m), rank_metric=rank_metric)
    labels = np.where(score > 0, 1, -1)
    return (labels, assign) if return_assignment else labels
