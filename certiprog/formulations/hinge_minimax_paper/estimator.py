"""`KHHMClassifier` (Alg. 1) and `LHMClassifier` (Alg. 2) of paper 000 as scikit-learn classifiers.

Both are binary: the positive class (the minority class, ties ``classes_[1]``, unless ``pos_label`` names it) is
the one the hyperplanes enclose; the other class is the background whose moments (mu, Sigma) enter eq. (8) and
Thm 1. ``decision_function`` is the score the paper's ROC / EER use: ``min_k (w_k^T x + b_k)`` over a component's
active hyperplanes, then the max over components (> 0 predicts ``classes_[1]``, sklearn's sign convention: it is
negated when the positive class is ``classes_[0]``); ``predict`` gives the positive class where that score is >= 0
(Def. 1's closed half-spaces).

``standardize=True`` (default) fits on z-scored features (statistics of the whole training set; constant columns
kept; with ``bias=False`` only scaled, not centred, so the homogeneous planes stay through the raw origin) and maps
the hyperplanes back, so ``W_``, ``b_`` act on the raw features. The paper does not standardise; eq.
(8)'s regulariser and hinge margin are not scale invariant, so without it data scaled by 1e8 or 1e-8 would give a
different (or trivial) model. Thm 1's worst-case risk is affine invariant, so it is the same in both coordinates.

Fitted attributes (both): ``W_``, ``b_`` (the hyperplanes on the raw features; KHHM: (K, d), (K,); LHM: (C, K, d),
(C, K)), ``active_`` (False: the constant half-space w = 0, b = 1 that Alg. 1 leaves when eq. (8) has no negative
or only the trivial solution), ``history_`` (per round / per iteration, dicts), ``worst_case_background_risk_``
(Thm 1; LHM: one per component), ``subproblems_`` (every certified sub-problem: program, stage, status, verdict,
interval), ``verdicts_`` (counts), ``certified_`` (every sub-problem certified or exact), ``stop_reason_``,
``classes_``, ``pos_label_``, ``n_features_in_``; LHM also ``assignment_`` (the component of each training
positive), ``alive_`` (non-dropped components), ``best_iteration_``, ``n_iter_``. ``components()`` returns the model
as a list of ``(W (K, d), b (K,))`` arrays (one per component) for the network mapping of Sec. 4.

scikit-learn's ``check_estimator`` passes every check it runs (tests/formulations/hinge_minimax_paper/
test_estimator.py); the two it skips are skipped for the environment, not for these estimators:
``check_array_api_input`` (needs SCIPY_ARRAY_API=1 and an array-API library) and
``check_classifier_data_not_an_array`` (needs pandas).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from certiprog import validation as validate
from certiprog.errors import CertiprogError, InputError
from certiprog.estimators.base import CertifiedClassifier

from .khhm import ACCEPT, KEEP, STARTS, InfeasiblePlaneWarning, fit_khhm, region_scores, verdict_counts
from .lhm import INITS, check_n_jobs, fit_lhm, stop_threshold

__all__ = ["AUTO_DELTA_GRID", "AUTO_INITS", "AUTO_LAM_GRID", "UNVALIDATED", "UnvalidatedWarning", "GridChoice", "KHHMClassifier", "LHMClassifier", "WIDEN",
           "select_on_grid"]

#: the internal validation's starting grids (``delta="auto"`` / ``lam="auto"``); `select_on_grid` widens an axis
#: whose choice sits at an end of its grid
AUTO_DELTA_GRID = (0.1, 0.3, 0.5, 0.7, 0.9)
AUTO_LAM_GRID = (0.1,)
#: what "auto" falls back to where the internal validation cannot run (too few points per class, or no grid point
#: fits on the split): the middle of `AUTO_DELTA_GRID` and `AUTO_LAM_GRID`
UNVALIDATED = {"delta": 0.5, "lam": 0.1}


class UnvalidatedWarning(UserWarning):
    """delta / lam were "auto" but the internal validation could not run; `UNVALIDATED` was used."""


#: the LHM starts ``init="auto"`` compares on the internal validation part
AUTO_INITS = ("kmeans", "single-linkage")
#: per parameter: (next value below, next value above, lowest, highest) -- how a grid is widened past an end, and
#: where widening stops (delta: halve the distance to 0 or to 1, within [0.01, 0.99]; lam: decades within
#: [1e-4, 100])
WIDEN = {"delta": (lambda v: v / 2, lambda v: 1 - (1 - v) / 2, 0.01, 0.99),
         "lam": (lambda v: v / 10, lambda v: v * 10, 1e-4, 100.0)}


@dataclass(frozen=True, eq=False)
class GridChoice:
    """What `select_on_grid` chose: ``params`` (dict), ``value`` (its validation value), ``results`` (one dict per
    evaluated point: the parameters and ``value``), ``widened`` (per parameter, the values added past the grid's
    ends) and ``edges`` (a sentence per parameter whose choice is still at an end after widening: the limit of
    `WIDEN` was reached)."""

    params: dict
    value: float
    results: list
    widened: dict
    edges: tuple

    def to_dict(self) -> dict:
        return dict(params=dict(self.params), value=self.value, results=[dict(r) for r in self.results],
                    widened={k: list(v) for k, v in self.widened.items()}, edges=list(self.edges))


def select_on_grid(evaluate, grids: dict, widen: dict | None = None):
    """Model selection on a validation part that does not stop at a grid's edge: ``evaluate(params) -> (fitted,
    value)`` (larger is better; NaN: the point failed) on the product of ``grids`` ({name: values}); then, while the
    best value of a parameter with a `WIDEN` rule sits at the largest (smallest) value tried, the next value past it
    is tried with the other parameters at their chosen values. Ties keep the first point evaluated. Returns
    ``(fitted, GridChoice)``; InputError when every point failed."""
    import itertools
    import math

    widen = WIDEN if widen is None else widen
    names = list(grids)
    tried: dict = {}
    best = None

    def run(params):
        nonlocal best
        key = tuple(params[n] for n in names)
        if key in tried:
            return
        fitted, value = evaluate(dict(params))
        value = float(value)
        tried[key] = value
        if not math.isnan(value) and (best is None or value > best[0]):
            best = (value, dict(params), fitted)

    for combo in itertools.product(*(tuple(float(v) for v in grids[n]) for n in names)):
        run(dict(zip(names, combo)))
    if best is None:
        raise InputError("model selection: every grid point failed to fit")
    widened: dict[str, list[float]] = {n: [] for n in names}
    changed = True
    while changed:
        changed = False
        for n in names:
            if n not in widen:
                continue
            down, up, low, high = widen[n]
            values = sorted({k[names.index(n)] for k in tried})
            v = best[1][n]
            for at_end, step, ok in ((v >= values[-1], up, lambda x: x <= high * (1 + 1e-12)),
                                     (v <= values[0], down, lambda x: x >= low * (1 - 1e-12))):
                nxt = float(step(v))
                if at_end and ok(nxt) and nxt != v:
                    before = best[1][n]
                    run(dict(best[1], **{n: nxt}))
                    widened[n].append(nxt)
                    changed = changed or best[1][n] != before
    edges = []
    for n in names:
        values = sorted({k[names.index(n)] for k in tried})
        v = best[1][n]
        if len(values) > 1 and v in (values[0], values[-1]) and n in widen:
            edges.append(f"{n} = {v:g} is at the end of the widened grid {values[0]:g}..{values[-1]:g} (the limit "
                         f"of the widening rule)")
    results = [dict(zip(names, k), value=v) for k, v in tried.items()]
    return best[2], GridChoice(best[1], best[0], results, widened, tuple(edges))


class _HingeMinimax(CertifiedClassifier):  # backend, solver, certify: certiprog.estimators.base
    """What both classifiers share: the binary split, standardisation, scores, predictions, components."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = False
        return tags

    # ---- data ----------------------------------------------------------------------------------------------
    def _data(self, X, y):
        for flag in ("bias", "squared_reg", "certify", "standardize"):
            validate.flag(getattr(self, flag), flag)
        validate.backend(self.backend)
        validate.optional_name(self.solver, "solver")
        validate.seed(getattr(self, "random_state", None), "random_state")
        X, y = validate.sklearn_data(self, X, y, ensure_all_finite=False, dtype=np.float64)
        X = validate.matrix(X, "X", min_rows=1)  # NaN / inf: an InputError (a ValueError) naming the fix
        self.classes_, is_pos = validate.binary_target(y, type(self).__name__, self.pos_label, minority=True)
        self.pos_label_ = y[is_pos][0]
        if self.standardize:
            self._center = X.mean(axis=0) if self.bias else np.zeros(X.shape[1])  # bias=False: keep the origin
            sd = X.std(axis=0)
            self._scale = np.where(sd > 0, sd, 1.0)
        else:
            self._center, self._scale = np.zeros(X.shape[1]), np.ones(X.shape[1])
        Xs = (X - self._center) / self._scale
        return Xs[is_pos], Xs[~is_pos]

    def _raw(self, W: np.ndarray, b: np.ndarray):
        """Hyperplanes fitted on standardised features, acting on the raw ones: w/s and b - w^T (m/s)."""
        Wr = W / self._scale
        return Wr, b - W @ (self._center / self._scale)

    def _common(self) -> dict:
        if self.accept not in ACCEPT:
            raise InputError(f"accept must be one of {ACCEPT}; got {self.accept!r}")
        if self.keep not in KEEP:
            raise InputError(f"keep must be one of {KEEP}; got {self.keep!r}")
        if self.start not in STARTS:
            raise InputError(f"start must be one of {STARTS}; got {self.start!r}")
        return dict(bias=bool(self.bias), squared_reg=bool(self.squared_reg), eps=self.eps,
                    max_rounds=self.max_rounds, accept=self.accept, keep=self.keep, start=self.start,
                    backend=self.backend, solver=self.solver, certify=bool(self.certify), cov_ridge=self.cov_ridge)

    def _choose(self, P: np.ndarray, N: np.ndarray, fit_one) -> dict:
        """``{"delta": .., "lam": ..}`` for the final fit: the given numbers, or for each one set to "auto" the value
        with the best validation AUC (`select_on_grid` from `AUTO_DELTA_GRID` x `AUTO_LAM_GRID`, widened past an
        edge) on a stratified ``validation_fraction`` of the training points, the model fitted on the rest by
        ``fit_one(P, N, delta, lam)``. Sets ``delta_``, ``lam_``, ``validation_`` (a `GridChoice` dict, or None
        when nothing was chosen)."""
        import warnings

        from sklearn.metrics import roc_auc_score

        auto = {}
        for name, grid in (("delta", AUTO_DELTA_GRID), ("lam", AUTO_LAM_GRID)):
            v = getattr(self, name)
            if isinstance(v, str):
                if v != "auto":
                    raise InputError(f"{name} must be a number or 'auto' (chosen by internal validation); got {v!r}")
                auto[name] = grid
        fixed = {n: getattr(self, n) for n in ("delta", "lam") if n not in auto}
        if "delta" in fixed:  # a number: checked here (complex, NaN, ...) before any grid arithmetic
            fixed["delta"] = validate.scalar(fixed["delta"], "delta", low=0.0, high=1.0, low_open=True,
                                             high_open=True)
        if "lam" in fixed:
            fixed["lam"] = validate.scalar(fixed["lam"], "lam", low=0.0)
        self.validation_ = None
        if not auto:
            self.delta_, self.lam_ = fixed["delta"], fixed["lam"]
            return fixed
        frac = validate.scalar(self.validation_fraction, "validation_fraction", low=0.0, high=1.0, low_open=True,
                               high_open=True)
        rng = np.random.default_rng(0 if self.random_state is None else self.random_state)  # None: reproducible
        parts = []
        for A in (P, N):
            n_val = int(round(frac * len(A)))
            if n_val < 2 or len(A) - n_val < 2:
                return self._unvalidated(fixed, f"delta/lam='auto' holds out {frac:g} of each class for validation, "
                                                f"but a class has {len(A)} training point(s) (at least 2 per part "
                                                "are needed)")
            idx = rng.permutation(len(A))
            parts.append((A[idx[n_val:]], A[idx[:n_val]]))
        (P_fit, P_val), (N_fit, N_val) = parts
        X_val = np.vstack([P_val, N_val])
        y_val = np.r_[np.ones(len(P_val)), np.zeros(len(N_val))]

        errors = []

        def evaluate(params):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", InfeasiblePlaneWarning)
                    fit = fit_one(P_fit, N_fit, params["delta"], params["lam"])
            except CertiprogError as exc:  # a point that cannot be fitted is skipped; all failing: the first error
                errors.append(exc)
                return None, float("nan")
            return None, roc_auc_score(y_val, fit.decision(X_val))

        try:
            _, choice = select_on_grid(evaluate, dict(auto, **{n: (v,) for n, v in fixed.items()}),
                                       {n: WIDEN[n] for n in auto})
        except InputError:
            return self._unvalidated(fixed, "no grid point could be fitted on the validation split (first error: "
                                            f"{errors[0] if errors else 'none'})")
        self.validation_ = choice.to_dict()
        self.delta_, self.lam_ = choice.params["delta"], choice.params["lam"]
        return dict(delta=self.delta_, lam=self.lam_)

    def _unvalidated(self, fixed: dict, why: str) -> dict:
        """Where internal validation cannot run: `UNVALIDATED` for the "auto" parameters, an `UnvalidatedWarning`
        naming why, ``validation_ = {"skipped": why}``; the final fit on all points then runs (and raises if the
        data themselves cannot be fitted)."""
        import warnings

        params = dict(UNVALIDATED, **fixed)
        warnings.warn(f"{type(self).__name__}: {why}; using delta = {params['delta']:g}, lam = {params['lam']:g}. "
                      "Pass numbers for delta and lam to choose them yourself", UnvalidatedWarning, stacklevel=3)
        self.validation_ = {"skipped": why}
        self.delta_, self.lam_ = params["delta"], params["lam"]
        return params

    def _record(self, fit) -> None:
        self.subproblems_ = [s.to_dict() for s in fit.subproblems]
        self.verdicts_ = verdict_counts(fit.subproblems)
        self.certified_ = bool(fit.certified)
        self.stop_reason_ = fit.stop_reason

    # ---- scores --------------------------------------------------------------------------------------------
    def _positive_score(self, X) -> np.ndarray:
        check_is_fitted(self, "W_")
        X = validate_data(self, X, reset=False, ensure_all_finite=False, dtype=np.float64)
        X = validate.matrix(X, "X", min_rows=1)
        W, b, act = self.W_, self.b_, self.active_
        if W.ndim == 2:
            return region_scores(X, W, b, act)
        return np.max(np.vstack([region_scores(X, W[i], b[i], act[i]) for i in np.flatnonzero(self.alive_)]),
                      axis=0)

    def decision_function(self, X) -> np.ndarray:
        """max over components of min over active hyperplanes of ``w^T x + b`` (> 0 predicts ``classes_[1]``)."""
        s = self._positive_score(X)
        return s if self.pos_label_ == self.classes_[1] else -s

    def predict(self, X) -> np.ndarray:
        """The positive class where the score is >= 0 (inside some component's intersection), else the other."""
        s = self._positive_score(X)
        neg = self.classes_[0] if self.pos_label_ == self.classes_[1] else self.classes_[1]
        return np.where(s >= 0, self.pos_label_, neg)

    def components(self) -> list:
        """The model as ``[(W (K, d), b (K,)), ...]`` on the raw features, one pair per component (inactive rows
        w = 0, b = 1; a dropped LHM component w = 0, b = -1): the interface of the network mapping (Sec. 4)."""
        check_is_fitted(self, "W_")
        if self.W_.ndim == 2:
            return [(self.W_.copy(), self.b_.copy())]
        return [(self.W_[i].copy(), self.b_[i].copy()) for i in range(self.W_.shape[0])]


class KHHMClassifier(_HingeMinimax):
    """K-hyperplane hinge-minimax classifier (paper 000, Alg. 1; `khhm.fit_khhm`).

    Parameters
    ----------
    K : int >= 1 — hyperplanes.
    delta : (0, 1) or "auto" — eq. (8)'s worst-case false-positive level per hyperplane; "auto" (default): chosen
        by internal validation (`_HingeMinimax._choose`: AUC on a held-out ``validation_fraction``, grid
        `AUTO_DELTA_GRID` widened past an edge), like scikit-learn's ``...CV`` estimators; a number fixes it.
    lam : float >= 0 or "auto" — eq. (8)'s weight of ``||w||^2`` (``squared_reg=False``: ``||w||``); "auto"
        (default) as delta, from `AUTO_LAM_GRID` widened by decades.
    bias : bool — hyperplanes with biases (True) or through the origin (the paper's Def. 1).
    eps, max_rounds : the refinement's rounds (eps None: exactly max_rounds; a number: Alg. 1's rule on Thm 1's P).
    accept : "always" (default: every refit kept, the printed Alg. 1), "risk" (a refit kept only if the tracked risk
        does not increase), "background"; see `khhm`.
    keep : "best" (default: the round with the smallest tracked risk) or "last" (the printed output).
    start : "auto" (default: the printed greedy start, or the enclosing box where it cannot begin), "greedy",
        "enclosing" (`khhm.enclosing_polytope`).
    backend, solver : where every eq. (8) and Thm 1 sub-problem is solved (None: certiprog chooses).
    certify : rigorous interval check of every sub-problem (else the KKT verdict of the solve).
    cov_ridge : ridge added to every background covariance. standardize : z-score the features (module docstring).
    pos_label : the positive class (None: the minority class).
    validation_fraction, random_state : the internal validation's held-out share of each class and its seed (None:
        seed 0, so that two fits of the same data choose the same parameters).

    Fitted (besides the module docstring's): ``delta_``, ``lam_`` (used by the final fit on all training points),
    ``validation_`` (the grid search: every point's validation AUC, values added past the edges, edge flags; None
    with fixed numbers), ``best_round_``, ``start_`` and ``events_`` (every eq. (8) with only the trivial optimum at
    delta; each round's also in its ``history_`` entry as ``infeasible_planes``).
    """

    def __init__(self, K=2, delta="auto", lam="auto", bias=True, squared_reg=True, eps=None, max_rounds=10,
                 accept="always", keep="best", start="auto", backend=None, solver=None, certify=True,
                 cov_ridge=0.0, standardize=True, pos_label=None, validation_fraction=0.3, random_state=None):
        self.K = K
        self.delta = delta
        self.lam = lam
        self.bias = bias
        self.squared_reg = squared_reg
        self.eps = eps
        self.max_rounds = max_rounds
        self.accept = accept
        self.keep = keep
        self.start = start
        self.backend = backend
        self.solver = solver
        self.certify = certify
        self.cov_ridge = cov_ridge
        self.standardize = standardize
        self.pos_label = pos_label
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def fit(self, X, y):
        """Alg. 1 on the positive class against the background class (delta / lam chosen first where "auto")."""
        P, N = self._data(X, y)
        common = self._common()
        grid_fit = dict(common, certify=False)  # the grid's fits: KKT verdicts; the final fit as asked
        params = self._choose(P, N, lambda p, n, delta, lam: fit_khhm(p, n, K=self.K, delta=delta, lam=lam,
                                                                      **grid_fit))
        fit = fit_khhm(P, N, K=self.K, **params, **common)
        self.W_, self.b_ = self._raw(fit.W, fit.b)
        self.W_[~fit.active], self.b_[~fit.active] = 0.0, 1.0
        self.active_ = fit.active.copy()
        self.history_ = [dict(h.to_dict(), infeasible_planes=[e for e in fit.events if e["round"] == h.round])
                         for h in fit.history]
        self.events_ = [dict(e) for e in fit.events]
        self.best_round_ = int(fit.best_round)
        self.start_ = fit.start
        self.worst_case_background_risk_ = float(fit.worst_case_background)
        self._record(fit)
        return self


class LHMClassifier(_HingeMinimax):
    """Latent hinge-minimax classifier (paper 000, Alg. 2; `lhm.fit_lhm`): a union of C intersections of K
    half-spaces.

    Parameters
    ----------
    n_components : int >= 1 — components (Alg. 2's C). K : int >= 1 — hyperplanes per component.
    C : deprecated name of ``n_components`` (a FutureWarning; in scikit-learn, and in `ManifoldClassifier`, C is a
        regularisation weight).
    delta, lam : numbers, or "auto" (default): chosen by internal validation as in `KHHMClassifier`.
    init : "auto" (default: the start among `AUTO_INITS` -- k-means and single linkage -- with the better internal
        validation AUC, ``init_``; with numbers for both delta and lam there is no validation part and k-means,
        the paper's, is used; on Sec. 5.2.1's geometry, two long bars, k-means and a random start stall in a
        symmetric fixed point while single linkage, which splits the positives at their widest gaps, finds the bars;
        on overlapping clusters single linkage cuts off outliers and k-means does better. Eq. (20)'s risk cannot
        choose: its union bound prefers one band over both bars, 0.30 vs 0.41, on a seeded toy), "kmeans" (the
        paper's experiments), "single-linkage", "kmeans-whitened", "random", or an array of initial component labels
        (one per training positive, in order); see `lhm.initial_assignment`.
    lam_assign : eq. (25)'s lambda. hinge_scale : "mean" (default) or "sum" (eq. (22) as printed; see `lhm`).
    T : stop when eq. (20)'s risk falls by less than T (-inf: never; only a fixed point or max_iter stop it).
        max_iter : model steps at most. random_state : k-means / random initialisation / validation split seed.
    n_jobs : None or int — the C components of each model step are fitted in parallel through joblib (None / 1: in
        this process; -1: every core; a ``joblib.parallel_backend`` such as Dask's spreads them over a cluster); the
        fitted model is bitwise the same for every value (`lhm.fit_components`).
    The other parameters are `KHHMClassifier`'s and apply to every component.
    """

    def __init__(self, n_components=2, K=2, delta="auto", lam="auto", init="auto", lam_assign=1.0, hinge_scale="mean",
                 T=1e-6, max_iter=10, random_state=None, bias=True, squared_reg=True, eps=None, max_rounds=10,
                 accept="always", keep="best", start="auto", backend=None, solver=None, certify=True, cov_ridge=0.0,
                 standardize=True, pos_label=None, validation_fraction=0.3, n_jobs=None, C="deprecated"):
        self.n_components = n_components
        self.C = C
        self.K = K
        self.delta = delta
        self.lam = lam
        self.init = init
        self.lam_assign = lam_assign
        self.hinge_scale = hinge_scale
        self.T = T
        self.max_iter = max_iter
        self.random_state = random_state
        self.bias = bias
        self.squared_reg = squared_reg
        self.eps = eps
        self.max_rounds = max_rounds
        self.accept = accept
        self.keep = keep
        self.start = start
        self.backend = backend
        self.solver = solver
        self.certify = certify
        self.cov_ridge = cov_ridge
        self.standardize = standardize
        self.pos_label = pos_label
        self.validation_fraction = validation_fraction
        self.n_jobs = n_jobs

    def _components(self) -> int:
        """``n_components``, or the deprecated ``C`` (with a FutureWarning) when it is given."""
        if isinstance(self.C, str) and self.C == "deprecated":
            return self.n_components
        import warnings

        warnings.warn("LHMClassifier(C=...) is deprecated: pass n_components (in scikit-learn, and in "
                      "ManifoldClassifier, C is a regularisation weight)", FutureWarning, stacklevel=3)
        return self.C

    def fit(self, X, y):
        """Alg. 2 on the positive class against the background class (delta / lam chosen first where "auto")."""
        stop_threshold(self.T)  # fit_lhm's own check (-inf: stop only at a fixed point or max_iter)
        P, N = self._data(X, y)
        common = self._common()
        lhm_args = dict(C=self._components(), K=self.K, lam_assign=self.lam_assign, hinge_scale=self.hinge_scale, T=self.T,
                        max_iter=self.max_iter, random_state=self.random_state, n_jobs=check_n_jobs(self.n_jobs),
                        **common)
        if isinstance(self.init, str) and self.init != "auto" and self.init not in INITS:
            raise InputError(f"init must be 'auto', one of {INITS} or an array of component labels; got "
                             f"{self.init!r}")
        if isinstance(self.init, str):
            grid_args = dict(lhm_args, certify=False)  # the grid's fits: KKT verdicts; the final fit as asked
            starts = AUTO_INITS if self.init == "auto" else (self.init,)
            chosen = []
            for start in starts:
                params = self._choose(P, N, lambda p, n, delta, lam: fit_lhm(p, n, delta=delta, lam=lam, init=start,
                                                                             **grid_args))
                if len(starts) > 1 and (self.validation_ is None or "skipped" in self.validation_):  # no validation
                    chosen = [(-np.inf, "kmeans", params, None)]          # the paper's start (init_ says so)
                    break
                value = self.validation_.get("value", -np.inf) if self.validation_ else -np.inf
                chosen.append((value, start, params, self.validation_))
            value, self.init_, params, self.validation_ = max(chosen, key=lambda c: c[0])
            if len(starts) > 1 and self.validation_ is not None and "skipped" not in self.validation_:
                self.validation_ = dict(self.validation_, init={c[1]: c[0] for c in chosen})
        else:  # given labels name the training positives in order: validate on a split of nothing but the given
            if isinstance(self.delta, str) or isinstance(self.lam, str):
                raise InputError("LHMClassifier: a given initial assignment (init=array) labels every training "
                                 "positive, so delta and lam cannot be chosen on a held-out part; pass numbers")
            params = self._choose(P, N, None)
            self.init_ = "given"
        fit = fit_lhm(P, N, init=self.init if self.init_ == "given" else self.init_, **params, **lhm_args)
        C, K, d = fit.W.shape
        W, b = self._raw(fit.W.reshape(C * K, d), fit.b.reshape(C * K))
        W, b = W.reshape(C, K, d), b.reshape(C, K)
        W[~fit.active], b[~fit.active] = 0.0, 1.0
        W[~fit.alive], b[~fit.alive] = 0.0, -1.0
        self.W_, self.b_ = W, b
        self.active_ = fit.active.copy()
        self.alive_ = fit.alive.copy()
        self.assignment_ = fit.assignment.copy()
        self.history_ = [h.to_dict() for h in fit.history]
        self.component_histories_ = [[h.to_dict() for h in f.history] if f is not None else [] for f in fit.fits]
        self.worst_case_background_risk_ = fit.worst_case_background
        self.best_iteration_ = int(fit.best_iteration)
        self.n_iter_ = len(fit.history)
        self._record(fit)
        return self
