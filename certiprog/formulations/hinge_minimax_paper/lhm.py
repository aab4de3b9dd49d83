"""Paper 000, Alg. 2: the latent hinge-minimax learner (LHM): a union of C components, each a K-hyperplane model.

The classifier accepts x when some component's intersection ``Q^i = {x : W^i x + b^i >= 0}`` contains it; its score
is ``max_i min_k (w^i_k^T x + b^i_k)`` (`LHMFit.decision`). Training alternates, from an initial assignment phi of the
positives to components (k-means as in the paper's experiments, random, or given):

(a) **model step**: component i is Alg. 1 (`khhm.fit_khhm`) on its positives ``X_i = {x : phi(x) = i}`` against all
    negatives;
(b) **assignment step**, eq. (25): ``phi(x) = argmin_i P^B(Q^i_x) + lam_assign * l(W^i; x, 1)`` with the surrogate
    regions of Sec. 3.3: if x is in Q^i, the *deflated* model (the hyperplane closest to x in Euclidean distance,
    ``(w_k^T x + b_k)/||w_k||``, translated to pass through x); otherwise the *inflated* model (every violated
    hyperplane translated to pass through x). ``P^B`` is Thm 1's worst-case probability under the moments of all
    negatives (per component, the m surrogate regions are ONE separable certified QP, `programs.background_risks`;
    regions containing mu have P^B = 1 exactly);
    ``l(W; x, 1) = max_k max{0, 1 - w_k^T x - b_k}``.

The empirical latent mixed risk eq. (20) ``L = sum_i [sum_{x in X_i} l(W^i; x, 1) + L^B(W^i)]`` (eqs. (21)-(22))
is evaluated after every model step and recorded per iteration (`LHMIteration`). ``hinge_scale="sum"`` is eq. (22)
as printed; the default ``"mean"`` divides the hinge part by the number m of positives (Def. 2's expectation, the
normalisation Thms 8 and 10 use). Why: with the printed sum, the classifier that accepts everything (one component,
no active plane: hinge 0, L^B = 1) has risk 1 and beats every useful model whose hinge sum exceeds 1, so the risk
Alg. 2 tracks -- and the best iteration it returns -- would favour it (seen on the seeded toys of the tests).

Corrections and choices (``docs/derivations/000.md``):

* **Loop condition** (erratum 14, claim 000-A2): the printed ``while L(t) - L(t-1) >= T`` stops at once; the loop runs
  while ``L(t-1) - L(t) >= T`` (L(0) = inf), and also stops at a fixed point (no positive changes component: the next
  model step would repeat this one) or after ``max_iter`` model steps.
* **Lemma 9** (the risk decreases every iteration) is not guaranteed: Alg. 1 is a heuristic and the assignment step
  scores a surrogate, not the retrained model. The history keeps every iteration's risk (`LHMFit.risk_decreases`,
  claim 000-L9 checks it on real runs) and the fit returns the model of the iteration with the smallest risk.
* **Empty components**: a component that loses all its positives (or starts without any) is *dropped*: its region
  is empty (stored as ``w = 0, b = -1``, score -inf, L^B = 0) and eq. (25) never assigns to it again.
* **Inactive hyperplanes** of a component (Alg. 1's constant half-spaces ``w = 0, b = 1``) are never the "closest"
  plane of a deflation; a component whose planes are all inactive (the whole space) is not deflated.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from certiprog import validation as validate
from certiprog.errors import BackendError, InputError

from .khhm import (
    InfeasiblePlaneWarning,
    SubProblem,
    _certify,
    _int,
    background_moments,
    check_background_covariance,
    check_settings,
    fit_khhm,
    hinge_losses,
    region_scores,
    thm1_solver,
)
from .programs import background_risks

__all__ = ["HINGE_SCALES", "INITS", "LHMFit", "LHMIteration", "assignment_scores", "check_n_jobs", "deflate",
           "fit_components", "fit_lhm", "inflate",
           "initial_assignment", "lemma9_runs", "risk_rose", "stop_threshold", "structure_iteration", "surrogate",
           "surrogate_risks"]

INITS = ("kmeans", "kmeans-whitened", "single-linkage", "random")
HINGE_SCALES = ("mean", "sum")

#: a rise of the eq. (20) risk below this fraction is not evidence against Lemma 9: each term comes from a sub-problem
#: solved and checked to certiprog's default relative tolerance (`certificates.kkt.DEFAULT_TOL`)
RISE_RTOL = 1e-6


def risk_rose(before: float, after: float, rtol: float | None = None) -> bool:
    """Whether the eq. (20) risk rose from ``before`` to ``after`` by more than solver round-off."""
    rtol = RISE_RTOL if rtol is None else rtol
    return after > before + rtol * max(abs(before), abs(after), 1.0)


# ----------------------------------------------------------------------------------------------------------------
# Typed results
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LHMIteration:
    """One model step: ``iteration`` (1, 2, ...), ``hinge`` (eq. (22): sum over the positives of the hinge in their
    component; divided by m with ``hinge_scale="mean"``), ``background`` (eq. (21): sum_i L^B(W^i)), ``risk``
    (eq. (20) = hinge + background),
    ``component_risk`` (eq. (23) per component; 0 for a dropped one), ``sizes`` (|X_i| the step trained on),
    ``reassigned`` (positives the following assignment step moved; None when no assignment step followed),
    ``seconds``."""

    iteration: int
    hinge: float
    background: float
    risk: float
    component_risk: tuple
    sizes: tuple
    reassigned: int | None
    seconds: float

    def to_dict(self) -> dict:
        return dict(iteration=self.iteration, hinge=self.hinge, background=self.background, risk=self.risk,
                    component_risk=list(self.component_risk), sizes=list(self.sizes), reassigned=self.reassigned,
                    seconds=self.seconds)


@dataclass(frozen=True, eq=False)
class LHMFit:
    """A fitted LHM: ``W`` (C, K, d), ``b`` (C, K), ``active`` (C, K) (plane not constant), ``alive`` (C,) (component
    not dropped), ``fits`` (the `khhm.KHHMFit` of each component, None if dropped), ``assignment`` (m,) (the
    assignment the returned model was trained on), ``history`` (an `LHMIteration` per model step), ``best_iteration``
    (the returned one), ``assignment_subproblems`` (every certified Thm 1 solve of eq. (25)), ``stop_reason``,
    ``settings``, ``assignments`` (the assignment each model step was trained on, in order: Fig. 8's panels and
    `structure_iteration`)."""

    W: np.ndarray
    b: np.ndarray
    active: np.ndarray
    alive: np.ndarray
    fits: list
    assignment: np.ndarray
    history: list
    best_iteration: int
    assignment_subproblems: list
    stop_reason: str
    settings: dict = field(default_factory=dict)
    assignments: list = field(default_factory=list)

    @property
    def risk(self) -> float:
        """eq. (20) of the returned model."""
        return self.history[self.best_iteration - 1].risk

    @property
    def worst_case_background(self) -> np.ndarray:
        """Thm 1's worst-case background risk of each component (0 for a dropped one)."""
        return np.array([f.worst_case_background if f is not None else 0.0 for f in self.fits])

    def risk_decreases(self, rtol: float | None = None) -> bool:
        """Lemma 9 on this run: every model step's risk is at most the previous one's, up to ``rtol`` relative
        (None: `RISE_RTOL`, the sub-problems' certification tolerance: smaller rises are solver round-off)."""
        r = [h.risk for h in self.history]
        return not any(risk_rose(a, b, rtol) for a, b in zip(r, r[1:]))

    @property
    def subproblems(self) -> list:
        """Every certified sub-problem: the components' Alg. 1 solves of the returned model, then eq. (25)'s."""
        return [s for f in self.fits if f is not None for s in f.subproblems] + list(self.assignment_subproblems)

    @property
    def certified(self) -> bool:
        return all(s.verdict.startswith(("certified", "exact")) for s in self.subproblems)

    def decision(self, X) -> np.ndarray:
        """``max_i min_k (w^i_k^T x + b^i_k)`` over the live components (active planes; >= 0: accepted)."""
        X = np.asarray(X, float)
        scores = [region_scores(X, self.W[i], self.b[i], self.active[i]) for i in np.flatnonzero(self.alive)]
        return np.max(np.vstack(scores), axis=0)

    def components(self) -> list:
        """``[(W (K, d), b (K,)), ...]`` one pair per component (inactive rows w = 0, b = 1; a dropped component
        w = 0, b = -1: the empty region), the interface of the network mapping (Sec. 4)."""
        return [(self.W[i].copy(), self.b[i].copy()) for i in range(self.W.shape[0])]


# ----------------------------------------------------------------------------------------------------------------
# The pieces of eq. (25)
# ----------------------------------------------------------------------------------------------------------------
def deflate(W: np.ndarray, b: np.ndarray, active: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Biases of the deflated model (x in Q): the active plane closest to x translated through x (Sec. 3.3)."""
    rows = np.flatnonzero(active)
    out = b.copy()
    if rows.size == 0:
        return out
    dist = (W[rows] @ x + b[rows]) / np.linalg.norm(W[rows], axis=1)
    k = rows[int(np.argmin(dist))]
    out[k] = -float(W[k] @ x)
    return out


def inflate(W: np.ndarray, b: np.ndarray, active: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Biases of the inflated model (x not in Q): every violated active plane translated through x (Sec. 3.3)."""
    out = b.copy()
    viol = active & (W @ x + b < 0)
    out[viol] = -(W[viol] @ x)
    return out


def surrogate(W: np.ndarray, b: np.ndarray, active: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The biases of W^i_x: deflated if x is in Q^i, inflated otherwise (W is unchanged: planes are translated)."""
    rows = np.flatnonzero(active)
    inside_q = bool(np.all(W[rows] @ x + b[rows] >= 0))
    return deflate(W, b, active, x) if inside_q else inflate(W, b, active, x)


def surrogate_risks(W: np.ndarray, B: np.ndarray, mu: np.ndarray, Sigma: np.ndarray, *, backend=None, solver=None,
                    certify: bool = True, iteration: int = 0, options=None):
    """Thm 1's worst-case risk of the n regions ``W z + B[j] >= 0`` (non-empty): ``(risk (n,), SubProblem)``.

    Regions that contain mu have risk 1 exactly (no solve); the others are ONE certified separable QP
    (`programs.background_risks`), whose interval on the sum bounds every block (its docstring)."""
    n = B.shape[0]
    risk = np.ones(n)
    t0 = time.perf_counter()
    need = ~np.all(W @ mu + B >= 0, axis=1)
    if not need.any():
        return risk, SubProblem("thm1", "assign", -1, iteration, 0, "skipped", "exact (mu in every region: d^2 = 0)",
                                0.0, (0.0, 0.0), time.perf_counter() - t0)
    model = background_risks(W, B[need], mu, Sigma)
    sol = model.solve(backend=backend, solver=solver, **dict(options or {}))
    verdict, interval = _certify(model, sol, certify)
    if not sol.ok:
        raise BackendError(f"eq. (25)'s stacked Thm 1 QP returned {sol.status} with verdict {verdict!r}; try another "
                           "backend")
    risk[need] = model.derived(sol).risk
    return risk, SubProblem("thm1", "assign", -1, iteration, int(need.sum()), str(sol.status), verdict,
                            float(np.sum(model.derived(sol).d2)), interval, time.perf_counter() - t0, sol.backend)


def assignment_scores(X: np.ndarray, fits: list, lam_assign: float, mu: np.ndarray, Sigma: np.ndarray,
                      subproblems: list, iteration: int, **solve_kw) -> np.ndarray:
    """The (m, C) matrix of eq. (25)'s scores ``P^B(Q^i_x) + lam_assign l(W^i; x, 1)``; +inf for dropped components.
    One stacked Thm 1 QP per live component (`surrogate_risks`)."""
    m, C = X.shape[0], len(fits)
    S = np.full((m, C), np.inf)
    for i, f in enumerate(fits):
        if f is None:
            continue
        hinge = hinge_losses(X, f.W[f.active], f.b[f.active]) if f.active.any() else np.zeros(m)
        B = np.vstack([surrogate(f.W, f.b, f.active, x) for x in X])
        risk, sp = surrogate_risks(f.W, B, mu, Sigma, iteration=iteration, **solve_kw)
        subproblems.append(sp)
        S[:, i] = risk + lam_assign * hinge
    return S


def stop_threshold(T) -> float:
    """The validated ``T`` of Alg. 2's stop (a finite float, or -inf: never stop on the risk, as `lemma9_runs`)."""
    if isinstance(T, (int, float, np.integer, np.floating)) and not isinstance(T, (bool, np.bool_)) \
            and T == -math.inf:
        return -math.inf
    return validate.scalar(T, "T (stop when the risk falls by less than T; -inf: never)")


def initial_assignment(X: np.ndarray, C: int, init, random_state, Sigma: np.ndarray | None = None) -> np.ndarray:
    """phi_0: k-means (``init="kmeans"``, sklearn, 10 restarts), k-means on the positives whitened by the
    background covariance (``"kmeans-whitened"``: ``L^-1 x`` with ``Sigma = L L^T``; distances in the Mahalanobis
    geometry of Thm 1 and eq. (8), so a direction in which the background is wide counts less: two long parallel
    groups of positives lying along the background's wide direction are then split group by group, where plain
    k-means cuts across them), single-linkage agglomerative clustering (``"single-linkage"``: splits the positives
    at their widest gaps, so connected groups -- e.g. long bars, which k-means and its whitened form cut across
    when they are longer than their distance apart -- become components; outliers far from every group can become
    components of their own), uniformly random (``"random"``) or given labels."""
    m = X.shape[0]
    if isinstance(init, str):
        if init not in INITS:
            raise InputError(f"init must be one of {INITS} or an array of m component labels; got {init!r}")
        if init == "single-linkage":
            from sklearn.cluster import AgglomerativeClustering

            if m < C:
                raise InputError(f"{m} positive(s) for C = {C} components")
            return AgglomerativeClustering(n_clusters=C, linkage="single").fit_predict(X).astype(int)
        if init.startswith("kmeans"):
            from sklearn.cluster import KMeans

            if init == "kmeans":
                Y = X
            elif Sigma is None:
                raise InputError(f"init={init!r} whitens by the background covariance: give Sigma")
            else:
                Y = np.linalg.solve(np.linalg.cholesky(Sigma), X.T).T
            return KMeans(n_clusters=C, n_init=10, random_state=random_state).fit_predict(Y).astype(int)
        return np.random.default_rng(random_state).integers(0, C, size=int(m))
    try:
        phi = np.asarray(init)
    except Exception as exc:  # noqa: BLE001
        raise InputError("init must be 'kmeans', 'random' or an array of component labels") from exc
    if phi.shape != (m,) or not np.issubdtype(phi.dtype, np.integer) or phi.min() < 0 or phi.max() >= C:
        raise InputError(f"a given initial assignment must be {m} integers in [0, {C}) (one per positive); got "
                         f"shape {phi.shape}, dtype {phi.dtype}")
    return phi.astype(int)


# ----------------------------------------------------------------------------------------------------------------
# Alg. 2
# ----------------------------------------------------------------------------------------------------------------
def check_n_jobs(n_jobs):
    """``n_jobs`` as joblib reads it: None, or a nonzero integer (-1: every core); InputError otherwise."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise InputError(f"n_jobs must be None or a nonzero integer (-1: every core); got {n_jobs!r}")
    return int(n_jobs)


def _fit_component(X_i: np.ndarray, Z: np.ndarray, khhm_args: dict):
    """Alg. 1 for one component (a component's infeasible planes are in its fit's events, not warned), on one BLAS
    thread: the same floating-point operations in this process and in a joblib worker, so ``n_jobs`` never
    changes a bit of the result."""
    from threadpoolctl import threadpool_limits

    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore", InfeasiblePlaneWarning)
        return fit_khhm(X_i, Z, **khhm_args)


def fit_components(X: np.ndarray, Z: np.ndarray, phi: np.ndarray, C: int, khhm_args: dict, n_jobs=None) -> list:
    """The model step (a) of Alg. 2: `khhm.fit_khhm` of each component's positives ``X[phi == i]`` against all
    negatives ``Z`` (None for a component without positives). The components are independent, so with ``n_jobs``
    other than None / 1 they run in parallel through joblib (``joblib.parallel_backend("dask")`` or Ray's spread
    them over a cluster); the fits come back in component order."""
    todo = [i for i in range(C) if np.any(phi == i)]
    n_jobs = check_n_jobs(n_jobs)
    if n_jobs in (None, 1) or len(todo) < 2:
        done = [_fit_component(X[phi == i], Z, khhm_args) for i in todo]
    else:
        from joblib import Parallel, delayed

        done = Parallel(n_jobs=n_jobs)(delayed(_fit_component)(X[phi == i], Z, khhm_args) for i in todo)
    fits: list = [None] * C
    for i, f in zip(todo, done):
        fits[i] = f
    return fits


def fit_lhm(X_pos, X_neg, C: int = 2, K: int = 2, delta: float = 0.1, lam: float = 0.1, *, init="kmeans",
            lam_assign: float = 1.0, hinge_scale: str = "mean", T: float = 1e-6, max_iter: int = 10,
            random_state=None, bias: bool = True, squared_reg: bool = True, eps: float | None = None,
            max_rounds: int = 10, accept: str = "always", keep: str = "best", start: str = "auto",
            backend: str | None = None, solver: str | None = None, certify: bool = True, cov_ridge: float = 0.0,
            progress: bool = False, n_jobs: int | None = None, **options) -> LHMFit:
    """Alg. 2 (module docstring) for positives ``X_pos`` against negatives ``X_neg``: C components of K hyperplanes.

    ``init``: "kmeans" | "kmeans-whitened" | "single-linkage" | "random" | labels (m,); ``lam_assign``: eq. (25)'s lambda; ``hinge_scale``: "mean" | "sum"
    (the hinge part of eq. (20), module docstring); ``T``: stop when the risk falls
    by less than T; ``max_iter``: model steps at most; ``n_jobs``: the components of a model step are fitted in
    parallel through joblib (`fit_components`; None or 1: in this process; the result is bitwise the same). The
    rest are Alg. 1's (`khhm.fit_khhm`) and go to every component. Raises InputError for bad input (C < 1, fewer positives than components, singular background
    covariance, NaN, ...).
    """
    C = _int(C, "n_components (Alg. 2's C, the number of components)", 1)
    K, delta, lam, eps, max_rounds, accept, cov_ridge = check_settings(K, delta, lam, eps, max_rounds, accept,
                                                                       cov_ridge)
    lam_assign = validate.scalar(lam_assign, "lam_assign", low=0.0)
    T = stop_threshold(T)
    max_iter = _int(max_iter, "max_iter", 1)
    n_jobs = check_n_jobs(n_jobs)
    if hinge_scale not in HINGE_SCALES:
        raise InputError(f"hinge_scale must be one of {HINGE_SCALES}; got {hinge_scale!r}")
    X = validate.matrix(X_pos, "X_pos (positives)", min_rows=1)
    d = X.shape[1]
    Z = validate.matrix(X_neg, "X_neg (negatives)", min_rows=2, cols=d)
    m = X.shape[0]
    if m < C:
        raise InputError(f"{m} positive(s) for C = {C} components: every component needs at least one positive; "
                         "use fewer components")
    mu, Sigma = background_moments(Z, cov_ridge)
    check_background_covariance(Sigma)
    phi = initial_assignment(X, C, init, random_state, Sigma)
    khhm_args = dict(K=K, delta=delta, lam=lam, bias=bias, squared_reg=squared_reg, eps=eps, max_rounds=max_rounds,
                     accept=accept, keep=keep, start=start, backend=backend, solver=solver, certify=certify,
                     cov_ridge=cov_ridge, **options)
    scale = 1.0 / m if hinge_scale == "mean" else 1.0
    settings = dict(C=C, init=init if isinstance(init, str) else "given", lam_assign=lam_assign,
                    hinge_scale=hinge_scale, T=T,
                    max_iter=max_iter, random_state=random_state, **{k: v for k, v in khhm_args.items()
                                                                      if k not in options})
    from certiprog.solvers.first_order import progress_bar

    history: list[LHMIteration] = []
    best: tuple[float, int, list, np.ndarray] | None = None
    assign_sps: list = []  # assignment_scores appends each step's surrogate-risk subproblems
    assignments: list[np.ndarray] = []
    stop = f"max_iter = {max_iter} model steps"
    prev = math.inf
    bar = progress_bar(max_iter, bool(progress), f"LHM C={C} K={K}")
    for t in range(1, max_iter + 1):
        t0 = time.perf_counter()
        assignments.append(phi.copy())
        fits = fit_components(X, Z, phi, C, khhm_args, n_jobs)
        comp_risk = []
        hinge_total = background_total = 0.0
        for i, f in enumerate(fits):
            if f is None:
                comp_risk.append(0.0)
                continue
            Xi = X[phi == i]
            h = scale * float(hinge_losses(Xi, f.W[f.active], f.b[f.active]).sum()) if f.active.any() else 0.0
            hinge_total += h
            background_total += f.worst_case_background
            comp_risk.append(h + f.worst_case_background)
        risk = hinge_total + background_total
        sizes = tuple(int(np.sum(phi == i)) for i in range(C))
        record: dict[str, Any] = dict(iteration=t, hinge=hinge_total, background=background_total, risk=risk,
                      component_risk=tuple(comp_risk), sizes=sizes)
        if best is None or risk < best[0]:
            best = (risk, t, fits, phi.copy())
        bar.update()
        if prev - risk < T:
            history.append(LHMIteration(**record, reassigned=None, seconds=time.perf_counter() - t0))
            stop = (f"risk rose from {prev:.6g} to {risk:.6g} at model step {t} (Lemma 9 fails here)"
                    if risk_rose(prev, risk) else f"risk fell by {prev - risk:.3g} < T = {T:g} at model step {t}")
            break
        prev = risk
        if t == max_iter:
            history.append(LHMIteration(**record, reassigned=None, seconds=time.perf_counter() - t0))
            break
        S = assignment_scores(X, fits, lam_assign, mu, Sigma, assign_sps, t, backend=backend,
                              solver=thm1_solver(solver),
                              certify=certify, options=options)
        new = np.argmin(S, axis=1)
        moved = int(np.sum(new != phi))
        history.append(LHMIteration(**record, reassigned=moved, seconds=time.perf_counter() - t0))
        if moved == 0:
            stop = f"fixed point: the assignment step after model step {t} moved no positive"
            break
        phi = new
    bar.close()
    assert best is not None  # max_iter >= 1 model steps, the first one sets it
    _, t_best, fits, phi_best = best
    W = np.zeros((C, K, d))
    b = -np.ones((C, K))
    active = np.zeros((C, K), dtype=bool)
    for i, f in enumerate(fits):
        if f is not None:
            W[i], b[i], active[i] = f.W, f.b, f.active
    alive = np.array([f is not None for f in fits])
    return LHMFit(W=W, b=b, active=active, alive=alive, fits=fits, assignment=phi_best, history=history,
                  best_iteration=t_best, assignment_subproblems=assign_sps, stop_reason=stop, settings=settings,
                  assignments=assignments)


def structure_iteration(fit: LHMFit, truth, agreement: float = 0.95) -> int | None:
    """The first model step (1-based) whose assignment agrees with the true groups ``truth`` (m labels) on at least
    ``agreement`` of the positives, under the best matching of components to groups; None if none does (Fig. 8:
    "the LHM training discovers the underlying structure in 3-4 iterations")."""
    import itertools

    truth = np.asarray(truth)
    groups = np.unique(truth)
    for t, phi in enumerate(fit.assignments, start=1):
        C = int(max(phi.max(), len(groups) - 1)) + 1
        best = max(np.mean([perm[g] == p for g, p in zip(np.searchsorted(groups, truth), phi)])
                   for perm in itertools.permutations(range(C), len(groups)))
        if best >= agreement:
            return t
    return None


def lemma9_runs(X_pos, X_neg, **kw) -> tuple[LHMFit, list]:
    """One LHM run with the risk-based stop disabled (T = -inf: only a fixed point or max_iter stop it), and the
    model steps where the risk rose: ``[(t, L(t-1), L(t)), ...]`` (Lemma 9 says this list is empty)."""
    fit = fit_lhm(X_pos, X_neg, **dict(kw, T=-math.inf))
    r = [h.risk for h in fit.history]
    rises = [(i + 2, r[i], r[i + 1]) for i in range(len(r) - 1) if risk_rose(r[i], r[i + 1])]
    return fit, rises
