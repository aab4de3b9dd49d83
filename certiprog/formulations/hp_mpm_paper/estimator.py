"""scikit-learn classifiers for paper 004: the MPM (eq. 3-5) and the high-probability MPM (Cor. 1).

Both are binary. ``classes_[1]`` plays the paper's class 1 (predicted iff ``w^T x - b* > 0``; the paper says ``>= 0``,
which differs only on the hyperplane itself), ``classes_[0]`` its class 0. Kernels: ``'linear'`` (primal; ``coef_``,
``intercept_``), ``'rbf'`` (Gaussian, ``gamma`` = 1/(2 sigma^2), None -> 1/n_features) or a callable
``k(X, Y) -> Gram matrix`` (dual; ``dual_coef_`` = gamma of ``w = sum_i gamma_i phi(x_i)`` over ``X_fit_``, the
pivot points of the kernel's pivoted Cholesky factorisation, at most ``max_rank`` of them: see
`certiprog.formulations.hp_mpm_paper.kernels`; the fit costs O(m max_rank) kernel evaluations and memory and
O(m max_rank^2) flops, never an m x m Gram matrix, and prediction evaluates the kernel at the pivots only).

After ``fit``: ``kappa_``, ``alpha_`` = kappa^2/(1+kappa^2), ``worst_case_error_`` = 1 - alpha* = 1/(1+kappa*^2)
(the bound: eq. 5 for the MPM, which holds for the EMPIRICAL moments; Cor. 1 for the HP-MPM, which holds for the
true moments with probability >= 1 - k delta when nu >= 1, see `certiprog.formulations.hp_mpm_paper.hp_mpm`), ``b_`` (the
paper's b*), ``status_`` and ``solution_`` (a JSON-serialisable dict: backend, solver, bracket, history, the
certificate of the last SOCP (the MPM: also ``interval``, a rigorous enclosure of kappa*^{-1}, and
``certify_time``), ``rank_tol``, ``training_bound``; kernels also ``kernel_rank`` (coordinates of the
SOCP), ``kernel_pivots``, ``max_rank``, ``residual_trace`` = trace(K - G G^T) (the part of the Gram matrix the
pivots leave out), ``kernel_trace`` and ``dropped_spread``).

The bound is checked on the training data before it is reported: per class, the Cantelli bound of the training
scores (as ``decision_function`` computes them) bounds the training error and equals 1/(1+kappa*^2) in exact
arithmetic (for the HP-MPM it is at most that). A kernel fit that the training scores refute (rounding in a
numerically rank-deficient Gram matrix) is refitted with fewer pivots and directions; ``worst_case_error_`` is never below the
training bound. A kernel matrix that is numerically constant (rbf ``gamma`` too small for the data) is an
`InputError` saying to increase gamma.

``status_ == 'no_meaningful_solution'`` (alpha_ = kappa_ = 0, worst_case_error_ = 1, with a
`NoMeaningfulSolutionWarning`): the MPM's class means coincide (Thm 2), or the HP-MPM's ``||x̂1 - x̂0|| <=
sqrt(2A_1) + sqrt(2A_0)`` (Cor. 1). The classifier then falls back to: the HP-MPM hyperplane's limit as kappa* -> 0
(``w = x̂1 - x̂0`` normalised, ``b`` splitting the projected mean gap in the ratio sqrt(A_1) : sqrt(A_0)) when the
means differ, else the majority class (ties: ``classes_[1]``).
"""
from __future__ import annotations

import dataclasses
import hashlib
import time
import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from certiprog import validation as validate
from certiprog.errors import BackendError, InputError
from certiprog.estimators.base import CertifiedClassifier, certify_mode
from certiprog.formulations.hp_mpm_paper.hp_mpm import METHODS, UNCERTAINTY_FORMS, HPMPMProblem
from certiprog.formulations.hp_mpm_paper.kernels import gram, kernel_class_moments, make_kernel, pivoted_cholesky
from certiprog.formulations.hp_mpm_paper.mpm import (
    class_moments,
    data_radius,
    feature_sizes,
    mpm_from_moments,
    worst_case_errors,
)

__all__ = ["CoordinateCache", "HPMPMClassifier", "MPMClassifier", "NoMeaningfulSolutionWarning"]

# Up to this many coordinates (features, or the kept kernel rank) the last SOCP's certificate includes the rigorous
# optimality interval (interval arithmetic: seconds at ~1000 coordinates); above it, the KKT residuals only. The
# HP-MPM's kappa bracket is certified either way.
FULL_CERTIFICATE_MAX = 300

# Kernel fits: relative cuts of the residual diagonal (and of the centred spread) tried in turn (`kernel_class_moments`
# ``rank_tol``) until the reported bound holds on the training scores as `decision_function` computes them (see
# `_MPMBase._fit_honestly`); one pivoted Cholesky factorisation serves them all (a larger cut is a prefix of it).
RANK_TOLS = (1e-10, 1e-8, 1e-6, 1e-4, 1e-2)
# Relative excess of the training scores' own worst-case bound over the reported one (equal in exact arithmetic)
# above which a kernel fit is redone with a larger cut; a smaller excess is the solver's tolerance.
REFIT_GAP = 1e-3
# Default largest number of kernel pivots (``max_rank``): the fit costs O(m max_rank^2) flops and an SOCP in up to
# max_rank coordinates. Measured (issue 15; rbf, gamma = 1/d, 2,000 training points, 3,000 test points): kernel MPM
# test accuracy at 100 / 200 / 400 / 800 pivots, Splice 85.7 / 87.2 / 89.1 / 89.2 % (SVC 90.6), Ringnorm 97.8 / 97.9 /
# 97.9 / 96.9 % (SVC 98.0); at m = 5,000 (benchmarks/scale.py's data) a fit with 400 pivots takes 3-6x the time of
# scikit-learn's SVC. Training sets of at most 400 points (the Table 3 data) are fitted at full numerical rank.
DEFAULT_MAX_RANK = 400
# The classifiers' ``certify`` values (`certiprog.estimators.base.CERTIFY`; 'full' is the older spelling of True)
CERTIFY_CHOICES = (True, False, "auto", "kkt", "full")


class NoMeaningfulSolutionWarning(UserWarning):
    """The (HP-)MPM has kappa* = 0: no worst-case guarantee; the documented fallback classifier is used."""


class CoordinateCache:
    """The nu-independent work of fits on the same training data, shared between them: the kernel's pivoted
    Cholesky factor and the class moments at each rank cut depend on (data, kernel, gamma, max_rank) only, not on
    nu, delta, R or the solver. Pass one cache to ``fit(X, y, cache=...)`` of the fits of a grid (paper 004's
    experiment: the MPM and every nu of one kernel width) so the factorisation runs once instead of once per fit.
    Entries are keyed by the training data's bytes and the kernel parameters, so a fit on other data or another
    kernel only misses (never reuses a wrong factor). Callable kernels are not cached (no reliable key)."""

    def __init__(self) -> None:
        self._store: dict = {}
        self.hits = self.misses = 0

    def get(self, key, make):
        """The value stored under ``key``, made by ``make()`` on the first request."""
        if key in self._store:
            self.hits += 1
            return self._store[key]
        self.misses += 1
        value = self._store[key] = make()
        return value


def _digest(*arrays) -> str:
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        h.update(str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


class _MPMBase(CertifiedClassifier):
    """Shared fit/predict plumbing: label encoding, the two classes' moments, decision values."""

    # two of the fitted attributes `_set_classifier` sets, declared for the type checker (no class-level values)
    worst_case_error_: float
    solution_: dict

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # ---- fit helpers ------------------------------------------------------------------------------------------------
    def _split(self, X, y):
        X, y = validate.sklearn_data(self, X, y, dtype=np.float64)
        self.classes_, is_pos = validate.binary_target(y, type(self).__name__)
        X1, X0 = X[is_pos], X[~is_pos]
        for lab, Xj in ((self.classes_[1], X1), (self.classes_[0], X0)):
            if Xj.shape[0] < 2:
                raise InputError(f"class {lab!r} has 1 sample; its covariance is undefined: the MPM needs >= 2 "
                                 "samples per class")
        if np.all(np.ptp(X, axis=0) == 0):
            raise InputError("every feature is constant on the training data: there is nothing to learn from X")
        return X1, X0

    def _is_linear(self) -> bool:
        return isinstance(self.kernel, str) and self.kernel == "linear"

    #: how `_moments` cuts the linear span (part of the cache key: the MPM's coordinates are not the HP-MPM's)
    _LINEAR_SPAN = "relative"

    def _moments(self, X1, X0, rank_tol: float = RANK_TOLS[0], factor=None):
        """The classes' moments: features for the linear kernel, the low-rank kernel coordinates with the fit's
        ``_kernel_fn`` otherwise (``factor``: the pivoted Cholesky of [X1; X0] to truncate at ``rank_tol``)."""
        if self._is_linear():
            return class_moments(X1, X0)
        return kernel_class_moments(X1, X0, self._kernel_fn, rank_tol=rank_tol, max_rank=self.max_rank,
                                    factor=factor)

    def _kernel_factor(self, X1, X0):
        """One pivoted Cholesky factorisation (at the smallest cut, at most ``max_rank`` pivots) for every refit."""
        if self._is_linear():
            return None
        return pivoted_cholesky(self._kernel_fn, np.vstack([X1, X0]), rank_tol=RANK_TOLS[0], max_rank=self.max_rank)

    @staticmethod
    def _rank_info(mom) -> dict:
        """What ``solution_`` records about the coordinates (kernels: pivots, residual trace)."""
        if mom.kind != "kernel":
            return dict(kernel_rank=mom.rank)
        return dict(kernel_rank=mom.rank, kernel_pivots=mom.n_pivots, residual_trace=mom.residual_trace,
                    kernel_trace=mom.kernel_trace, dropped_spread=mom.dropped_spread)

    def _training_bound(self, X1, X0) -> float:
        """The worst-case error bound the training data give for the fitted rule: per class, the Marshall-Olkin
        (Cantelli) bound of the empirical moments of the scores `decision_function` computes (`worst_case_errors`
        on the scores), which bounds that class's training error. In exact arithmetic both classes give the MPM's
        1/(1+kappa^2) (and at most the HP-MPM's)."""
        s1, s0 = self.decision_function(X1), self.decision_function(X0)
        e1, e0 = worst_case_errors(np.ones(1), 0.0, [s1.mean()], [[s1.var()]], [s0.mean()], [[s0.var()]])
        return max(e1, e0)

    def fit(self, X, y, cache: CoordinateCache | None = None):
        """Fit on ``X`` (n x d) and binary labels ``y``; see the class docstring for the fitted attributes.
        ``cache``: a `CoordinateCache` shared with other fits on the same data (a parameter grid), reusing their
        kernel factorisation and moments; the fit is the same with or without it."""
        self._check_params()
        if cache is not None and not isinstance(cache, CoordinateCache):
            raise InputError(f"cache must be a CoordinateCache or None, got {type(cache).__name__}")
        X1, X0 = self._split(X, y)
        return self._fit_honestly(X1, X0, cache)

    def _cached(self, cache, X1, X0, what, make):
        """``make()``, through ``cache`` when there is one and the kernel has a reliable key."""
        if cache is None or callable(self.kernel):
            return make()
        key = (what, str(self.kernel), None if self.gamma is None else float(self.gamma),
               None if self._is_linear() else self.max_rank, _digest(X1, X0))
        return cache.get(key, make)

    def _fit_honestly(self, X1, X0, cache: CoordinateCache | None = None):
        """Fit, then check the reported bound against the training scores (`_training_bound`).

        A kernel fit whose bound the training scores refute by more than `REFIT_GAP` (relative) has kept
        directions of the Gram matrix so weakly resolved that rounding in ``K @ dual_coef`` swamps them (a
        numerically rank-deficient kernel matrix): it is refitted with the next, larger relative cut of
        `RANK_TOLS` (fewer, better resolved directions). Whatever remains, the reported ``worst_case_error_`` is
        never below the training bound: a residual excess (solver tolerance) is absorbed quietly, a material one
        with a RuntimeWarning. ``solution_`` records ``rank_tol``, ``training_bound`` and the solver's
        ``solver_worst_case_error``.
        """
        tols = (RANK_TOLS[0],) if self._is_linear() else RANK_TOLS
        self._kernel_fn = None if self._is_linear() else make_kernel(self.kernel, self.gamma, X1.shape[1])
        factor = self._cached(cache, X1, X0, "factor", lambda: self._kernel_factor(X1, X0))
        rank = used = None
        for tol in tols:
            mom = self._cached(cache, X1, X0, ("moments", tol, self._LINEAR_SPAN),
                               lambda: self._moments(X1, X0, tol, factor))
            if (mom.rank, getattr(mom, "n_pivots", 0)) == rank:
                continue  # the cut removed nothing more: the same fit
            rank, used = (mom.rank, getattr(mom, "n_pivots", 0)), tol
            self._fit_moments(mom)
            reported, observed = self.worst_case_error_, self._training_bound(X1, X0)
            if observed <= reported * (1 + REFIT_GAP) + 1e-12:
                break
        self.solution_.update(rank_tol=used, training_bound=float(observed), solver_worst_case_error=reported,
                              max_rank=None if self._is_linear() else self.max_rank)
        if observed > reported:
            if observed > reported * (1 + REFIT_GAP) + 1e-12:
                warnings.warn(f"{type(self).__name__}: the bound 1/(1+kappa^2) = {reported:.4g} does not hold on "
                              f"the training scores (their own worst-case bound is {observed:.4g}): the computation "
                              "lost accuracy (a numerically rank-deficient kernel matrix?); reporting the training "
                              "bound instead. Rescale the features or change gamma", RuntimeWarning, stacklevel=3)
            self.worst_case_error_ = float(observed)
            self.alpha_ = 1.0 - self.worst_case_error_
            self.kappa_ = float(np.sqrt(max(1.0 / observed - 1.0, 0.0))) if observed > 0 else np.inf
        return self

    def _set_classifier(self, mom, weights, b: float, kappa: float, status: str, solution: dict):
        """Store the hyperplane and its bound as plain arrays (no solver objects: the estimator pickles/clones)."""
        for stale in ("coef_", "X_fit_", "dual_coef_"):  # a refit may switch between primal and dual
            self.__dict__.pop(stale, None)
        if mom.kind == "linear":
            self.coef_ = np.asarray(weights, float).reshape(1, -1)
        else:
            self.X_fit_ = mom.X_train
            self.dual_coef_ = np.asarray(weights, float).reshape(1, -1)
        self.intercept_ = np.array([-float(b)])
        self.b_ = float(b)
        self.kappa_ = float(kappa)
        self.worst_case_error_ = 0.0 if np.isinf(kappa) else float(1.0 / (1.0 + kappa * kappa))
        self.alpha_ = 1.0 - self.worst_case_error_
        self.status_ = status
        self.solution_ = solution
        if status == "no_meaningful_solution":
            warnings.warn(f"{type(self).__name__}: no meaningful solution (kappa* = 0, worst-case error 1); "
                          f"{solution.get('fallback', 'fallback classifier used')}", NoMeaningfulSolutionWarning,
                          stacklevel=3)
        elif status != "optimal":
            warnings.warn(f"{type(self).__name__}: solve ended with status {status!r}: {solution.get('notes')}",
                          RuntimeWarning, stacklevel=3)
        return self

    def _check_params(self):
        """The parameters shared by both classifiers, checked before any work (scikit-learn sets them unchecked)."""
        if not (callable(self.kernel) or (isinstance(self.kernel, str) and self.kernel in ("linear", "rbf",
                                                                                          "gaussian"))):
            raise InputError(f"kernel must be 'linear', 'rbf' or a callable k(X, Y); got {self.kernel!r:.60}")
        if self.gamma is not None:
            validate.scalar(self.gamma, "gamma (rbf width; None for 1/n_features)", low=0.0, low_open=True)
        self._check_shared()  # backend, solver, certify (certiprog.estimators.base)
        if self.max_rank is not None:
            validate.integer(self.max_rank, "max_rank (largest number of kernel pivots; None: no limit)", low=1)

    # ---- prediction -------------------------------------------------------------------------------------------------
    def decision_function(self, X) -> np.ndarray:
        """``w*^T phi(x) - b*`` (> 0 predicts ``classes_[1]``)."""
        check_is_fitted(self, "b_")
        X = validate.sklearn_data(self, X, dtype=np.float64, reset=False)
        if hasattr(self, "coef_"):
            return X @ self.coef_[0] + self.intercept_[0]
        return gram(self._kernel_fn, X, self.X_fit_) @ self.dual_coef_[0] + self.intercept_[0]

    def predict(self, X) -> np.ndarray:
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]


class MPMClassifier(_MPMBase):
    """The minimax probability machine (004 eqs. 3-5) on any certiprog backend.

    ``kernel``: 'linear', 'rbf' or callable; ``gamma``: rbf width (None -> 1/n_features); ``max_rank``: largest
    number of kernel pivots (None: the full numerical rank); ``backend``/``solver``: where the SOCP is solved.
    ``worst_case_error_`` = 1/(1+kappa*^2) for the empirical moments (eq. 5). ``certify``: the check of the SOCP,
    'auto' (default: the rigorous optimality interval up to `FULL_CERTIFICATE_MAX` coordinates, KKT residuals
    above), True (the interval; 'full' is read the same), 'kkt' or False (none: for the points of a parameter grid;
    certify the chosen one), as in `certiprog.estimators.base`.
    """

    def __init__(self, kernel="linear", gamma=None, backend=None, solver=None, max_rank=DEFAULT_MAX_RANK,
                 certify="auto"):
        self.kernel = kernel
        self.gamma = gamma
        self.backend = backend
        self.solver = solver
        self.max_rank = max_rank
        self.certify = certify

    _LINEAR_SPAN = "scale-free, equilibrated"

    def _moments(self, X1, X0, rank_tol: float = RANK_TOLS[0], factor=None):
        """As `_MPMBase._moments`, but the linear span is cut relative to each feature's own spread (`data_span`
        with ``scale_free=True``, the cut of `mpm`'s null-space pin): (3) is invariant under feature scaling, so a
        rare one-hot level next to a 1e5-scale feature is a real direction (raw Adult: the default relative cut
        drops 48 such directions and the fit solved a restricted MPM, kappa*^-1 1.09240 instead of 1.08866). The
        coordinates are those of the features divided by their largest |entry|, so the basis (weights = basis @ v)
        is not orthonormal here: ``||w|| != ||v||``, which (3) does not use."""
        if self._is_linear():
            # and the moments are taken of the features divided by their largest |entry| (the same program: x -> x/s,
            # w -> s w), the weights mapped back through the basis: a raw covariance's eigendecomposition (raw
            # Adult: ~1e10 beside 0/1 columns) loses the small directions' digits (kappa*^-1 2e-6 off there)
            scale = feature_sizes(X1, X0)
            scale = np.where(scale > 0, scale, 1.0)
            mom = class_moments(X1 / scale, X0 / scale, scale_free=True)
            return dataclasses.replace(mom, basis=mom.basis / scale[:, None], radius=data_radius(X1, X0))
        return super()._moments(X1, X0, rank_tol, factor)

    def _fit_moments(self, mom):
        if mom.means_coincide:
            weights = np.zeros(mom.basis.shape[0])
            b = -1.0 if mom.n1 >= mom.n0 else 1.0
            return self._set_classifier(mom, weights, b, 0.0, "no_meaningful_solution", dict(
                status="no_meaningful_solution", fallback="the class means coincide (Thm 2): predicting the "
                "majority class"))
        model = mpm_from_moments(mom)
        sol = model.solve(backend=self.backend, solver=self.solver)
        if not sol.ok:
            raise BackendError(f"the MPM SOCP ended with status {sol.status!r} on {sol.backend}/{sol.solver}; "
                               "try another backend or solver")
        from certiprog.certify.kkt import check

        d = model.derived(sol)
        t0 = time.perf_counter()
        mode = certify_mode(self.certify)
        full = mode == "interval" or (mode == "auto" and mom.p <= FULL_CERTIFICATE_MAX)
        cert = check(sol.problem, sol, interval=full) if mode != "none" else None
        certify_time = time.perf_counter() - t0
        # the rigorous interval around kappa*^{-1}: the certificate's, else the one a certified solver returned
        interval = cert.interval if cert is not None and cert.interval is not None else \
            sol.solver_interval
        solution = dict(status=str(sol.status), backend=sol.backend, solver=sol.solver, objective=float(sol.objective),
                        solve_time=sol.solve_time, certify_time=certify_time,
                        certificate=None if cert is None else cert.to_json(),
                        interval=None if interval is None else [float(v) for v in interval], **self._rank_info(mom))
        return self._set_classifier(mom, d.weights, d.b, d.kappa, "optimal", solution)


class HPMPMClassifier(_MPMBase):
    """The high-probability MPM (004 Cor. 1) on any certiprog backend.

    ``delta`` in (0, 1): confidence parameter; ``nu`` > 0: fraction of the uncertainty terms A_j (Sec. 6; the
    guarantee needs nu >= 1); ``R``: support radius (None -> max training norm, feature-space norm for kernels);
    ``method``: 'bisection' (global optimum with a proven kappa bracket) or 'alternating' (the paper's Alg. 1,
    corrected); ``uncertainty``: 'eq8' (as printed), 'prop1' or 'cor1' (see `certiprog.formulations.hp_mpm_paper.hp_mpm`).
    Extra fitted attributes: ``kappa_bracket_`` (lo, hi) with lo <= kappa* <= hi, ``A_`` = (A_1, A_0), ``R_``,
    ``failure_probability_`` (corrected Cor. 1 level; None when nu < 1). ``max_rank``: largest number of kernel
    pivots (None: the full numerical rank). ``certify``: the check of the last SOCP (`HPMPMProblem.solve`):
    'auto' (the default) the rigorous optimality interval up to `FULL_CERTIFICATE_MAX` coordinates and the KKT
    residuals above, True (the interval; 'full' is read the same), 'kkt' (residuals only: for the points of a parameter grid, whose kappa bracket is
    certified by the bisection either way; certify the chosen one) or False.
    """

    def __init__(self, delta=0.1, nu=1.0, R=None, kernel="linear", gamma=None, method="bisection",
                 backend=None, solver=None, uncertainty="eq8", max_rank=DEFAULT_MAX_RANK, certify="auto"):
        self.delta = delta
        self.nu = nu
        self.R = R
        self.kernel = kernel
        self.gamma = gamma
        self.method = method
        self.backend = backend
        self.solver = solver
        self.uncertainty = uncertainty
        self.max_rank = max_rank
        self.certify = certify

    def _check_params(self):
        super()._check_params()
        validate.scalar(self.delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
        validate.scalar(self.nu, "nu", low=0.0, low_open=True)
        if self.R is not None:
            validate.scalar(self.R, "R", low=0.0, low_open=True)
        validate.choice(self.method, "method", METHODS)
        validate.choice(self.uncertainty, "uncertainty", sorted(UNCERTAINTY_FORMS))

    def _fit_moments(self, mom):
        prob = HPMPMProblem(mom, self.delta, self.nu, self.R, self.uncertainty)
        mode = certify_mode(self.certify)
        if mode == "auto":
            mode = "interval" if mom.p <= FULL_CERTIFICATE_MAX else "kkt"
        certify = {"interval": True, "kkt": "kkt", "none": False}[mode]
        res = prob.solve(self.method, self.backend, self.solver, certify=certify)
        self.kappa_bracket_ = tuple(float(k) for k in res.kappa_bracket)
        self.A_ = (res.A1, res.A0)
        self.R_ = res.R
        self.failure_probability_ = res.failure_probability
        solution = res.summary()
        solution.update(self._rank_info(mom))
        if res.status == "no_meaningful_solution":
            solution["fallback"] = res.notes[-1]
        return self._set_classifier(mom, res.weights, res.b, res.kappa, res.status, solution)
