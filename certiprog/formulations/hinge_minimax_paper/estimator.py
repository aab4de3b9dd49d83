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

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from certiprog import validation as validate
from certiprog.errors import InputError

from .khhm import ACCEPT, fit_khhm, region_scores, verdict_counts
from .lhm import fit_lhm, stop_threshold

__all__ = ["KHHMClassifier", "LHMClassifier"]


class _HingeMinimax(ClassifierMixin, BaseEstimator):
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
        return dict(delta=self.delta, lam=self.lam, bias=bool(self.bias), squared_reg=bool(self.squared_reg),
                    eps=self.eps, max_rounds=self.max_rounds, accept=self.accept, backend=self.backend,
                    solver=self.solver, certify=bool(self.certify), cov_ridge=self.cov_ridge)

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
    K : int >= 1 — hyperplanes. delta : (0, 1) — eq. (8)'s worst-case false-positive level per hyperplane.
    lam : float >= 0 — eq. (8)'s weight of ``||w||^2`` (``squared_reg=False``: ``||w||``).
    bias : bool — hyperplanes with biases (True) or through the origin (the paper's Def. 1).
    eps, max_rounds : the refinement's stopping rule (background rate falls by <= eps, or the round limit).
    accept : "risk" (default: refits kept only if the tracked risk does not increase), "background", "always"
        (the printed Alg. 1); see `khhm`.
    backend, solver : where every eq. (8) and Thm 1 sub-problem is solved (None: certiprog chooses).
    certify : rigorous interval check of every sub-problem (else the KKT verdict of the solve).
    cov_ridge : ridge added to every background covariance. standardize : z-score the features (module docstring).
    pos_label : the positive class (None: the minority class).
    """

    def __init__(self, K=2, delta=0.1, lam=0.1, bias=True, squared_reg=True, eps=1e-3, max_rounds=10, accept="risk",
                 backend=None, solver=None, certify=True, cov_ridge=0.0, standardize=True, pos_label=None):
        self.K = K
        self.delta = delta
        self.lam = lam
        self.bias = bias
        self.squared_reg = squared_reg
        self.eps = eps
        self.max_rounds = max_rounds
        self.accept = accept
        self.backend = backend
        self.solver = solver
        self.certify = certify
        self.cov_ridge = cov_ridge
        self.standardize = standardize
        self.pos_label = pos_label

    def fit(self, X, y):
        """Alg. 1 on the positive class against the background class."""
        P, N = self._data(X, y)
        fit = fit_khhm(P, N, K=self.K, **self._common())
        self.W_, self.b_ = self._raw(fit.W, fit.b)
        self.W_[~fit.active], self.b_[~fit.active] = 0.0, 1.0
        self.active_ = fit.active.copy()
        self.history_ = [h.to_dict() for h in fit.history]
        self.worst_case_background_risk_ = float(fit.worst_case_background)
        self._record(fit)
        return self


class LHMClassifier(_HingeMinimax):
    """Latent hinge-minimax classifier (paper 000, Alg. 2; `lhm.fit_lhm`): a union of C intersections of K
    half-spaces.

    Parameters
    ----------
    C : int >= 1 — components. K : int >= 1 — hyperplanes per component.
    init : "kmeans" (default, the paper's experiments), "random", or an array of initial component labels (one per
        training positive, in order).
    lam_assign : eq. (25)'s lambda. hinge_scale : "mean" (default) or "sum" (eq. (22) as printed; see `lhm`).
    T : stop when eq. (20)'s risk falls by less than T (-inf: never; only a fixed point or max_iter stop it).
        max_iter : model steps at most. random_state : k-means / random initialisation seed.
    The other parameters are `KHHMClassifier`'s and apply to every component.
    """

    def __init__(self, C=2, K=2, delta=0.1, lam=0.1, init="kmeans", lam_assign=1.0, hinge_scale="mean", T=1e-6,
                 max_iter=10, random_state=None, bias=True, squared_reg=True, eps=1e-3, max_rounds=10,
                 accept="risk", backend=None, solver=None, certify=True, cov_ridge=0.0, standardize=True,
                 pos_label=None):
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
        self.backend = backend
        self.solver = solver
        self.certify = certify
        self.cov_ridge = cov_ridge
        self.standardize = standardize
        self.pos_label = pos_label

    def fit(self, X, y):
        """Alg. 2 on the positive class against the background class."""
        stop_threshold(self.T)  # fit_lhm's own check (-inf: stop only at a fixed point or max_iter)
        P, N = self._data(X, y)
        fit = fit_lhm(P, N, C=self.C, K=self.K, init=self.init, lam_assign=self.lam_assign,
                      hinge_scale=self.hinge_scale, T=self.T, max_iter=self.max_iter, random_state=self.random_state,
                      **self._common())
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
