"""`ME2Classifier`: maximal exclusion ellipsoids (paper 002) as a scikit-learn classifier.

One ellipsoid ``E_j = {x : (x - c_j)^T M_j (x - c_j) < R_j}`` per positive training example ``c_j``, learnt from the
negatives by Problem 2 (`local_solver`: the dual as a box least-squares problem, certified by the duality gap of the
closed-form primal). A query is associated with its Euclidean-nearest centre and labelled by the decision rule of
Sec. 5.2 (`decision`: ``rule="rank"``, batch independent, by default; the paper's literal batch rule with
``rule="batch"``). The positive class is the minority class (ties: ``classes_[1]``) unless ``pos_label`` names it.

Hyper-parameters: ``B`` (bound on R; the paper uses 4 and Sec. 4 assumes ``B >= max ||x||``: scale the features,
e.g. to [0, 1], so that it holds), ``mu`` and ``lam`` (fixed values, or with ``tuning="local"`` the paper's per-model
choice from ``mu_grid`` x ``lam_grid`` by 2-fold cross-validation, `tuning`), ``m`` (the rule's m = 3).

Fitted attributes: ``centers_`` (p x d), ``M_`` (p x d x d), ``R_`` (p,), ``mu_`` and ``lam_`` (p,: the local
hyper-parameters used), ``thresholds_`` (the "rank" rule's t_j), ``certificates_`` (one
`local_solver.LocalCertificate` per ellipsoid: primal and dual objective, duality gap, certified bounds on
``||M - M*||_F`` and ``|R - R*|``, status, solver, time, fallback; readable as ``c.gap`` or ``c["gap"]``),
``tuning_`` (one `tuning.CentreTuning` per local model with ``tuning="local"``: the chosen pair, the criterion and
its value, the local validation counts, per grid pair tp / fp / fn), ``classes_``, ``pos_label_``,
``n_features_in_``. With the dedicated solver (and ``2 mu B >= 1``) the local models are learnt in batches
(`batch_solver.fit_batch`, the tuning by `tuning.tune_fold`), otherwise by `programs.me2_fit`.

scikit-learn's ``check_estimator`` passes every check (tests/formulations/me2_paper/test_estimator.py); the only two it
skips are skipped for the environment, not for this estimator: ``check_array_api_input`` (needs SCIPY_ARRAY_API=1 and
an array-API library) and ``check_classifier_data_not_an_array`` (needs pandas).

No ``predict_proba``: the rule is a set membership (inside an ellipsoid, ranked among the m nearest), with no
probabilistic reading; ``decision_function`` gives a signed margin (squared-distance units, > 0 predicts
``classes_[1]``, sklearn's convention).
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from certiprog import validation as validate
from certiprog.errors import InputError
from certiprog.estimators.base import CertifiedClassifier

from .batch_solver import fit_batch
from .decision import check_rule, rank_thresholds, rule_scores
from .local_solver import DEFAULT_TOL, LOCAL_METHODS, local_method
from .parallel import one_blas_thread, over_chunks
from .programs import me2_fit
from .tuning import PAPER_LAM, PAPER_MU, PREFER, batch_groups, positive_grid, tune_local

__all__ = ["ME2Classifier"]


class ME2Classifier(CertifiedClassifier):
    """Maximal exclusion ellipsoids (Metzler et al., CAp 2017) for imbalanced binary classification.

    Parameters
    ----------
    mu, lam : float > 0 — weights of ``(B - R)^2`` and ``||M - I||_F^2`` (used for every local model unless
        ``tuning="local"``).
    B : float > 0 — upper bound on R (paper: 4).
    m : int >= 1 — the decision rule's m (paper: 3).
    rule : "rank" (default, batch independent), "batch" (the paper's literal protocol: labels depend on the batch
        predicted together), "ellipsoid" (membership only). See `certiprog.formulations.me2_paper.decision`.
    rank_metric : "mahalanobis" (default) or "euclidean" — the distance of the rule's ranking.
    tuning : None (fixed mu, lam) or "local" (Sec. 5.2: per-model (mu, lam) from the grids by ``cv``-fold CV).
    mu_grid, lam_grid : the grids of the local tuning (default: the paper's 8 x 9).
    cv : folds of the local tuning (paper: 2). prefer : tie order of the tuning ("grid" or "simple", see `tuning`).
    pos_label : the positive (minority) class; None: the less frequent class (ties: the larger label).
    solver : "dedicated" (default), "generic" (the certiprog Model path, backend chosen by certiprog), a backend
        name (e.g. "clarabel", "cvxpy") or "cvxpy-direct" (the same box QP written in CVXPY, on Clarabel); used by
        the tuning and the final fits. tol : relative duality gap of the dedicated solver.
    random_state : seed of the tuning folds. n_jobs : joblib workers over the local models (tuning and final
        fits; they are independent), scikit-learn's semantics: None is 1 unless inside a joblib backend context
        (``with joblib.parallel_config("dask"): ...`` spreads them over a Dask cluster), -1 all cores. The fitted
        model does not depend on it.
    """

    def __init__(self, mu=1.0, lam=1.0, B=4.0, m=3, rule="rank", rank_metric="mahalanobis", tuning=None,
                 mu_grid=PAPER_MU, lam_grid=PAPER_LAM, cv=2, prefer="grid", pos_label=None, solver="dedicated",
                 tol=DEFAULT_TOL, random_state=None, n_jobs=None):
        self.mu = mu
        self.lam = lam
        self.B = B
        self.m = m
        self.rule = rule
        self.rank_metric = rank_metric
        self.tuning = tuning
        self.mu_grid = mu_grid
        self.lam_grid = lam_grid
        self.cv = cv
        self.prefer = prefer
        self.pos_label = pos_label
        self.solver = solver
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.poor_score = False
        return tags

    # ---- checks ---------------------------------------------------------------------------------------------
    def _check_params(self):
        mu = validate.scalar(self.mu, "mu", low=0.0, low_open=True)
        lam = validate.scalar(self.lam, "lam", low=0.0, low_open=True)
        B = validate.scalar(self.B, "B", low=0.0, low_open=True)
        check_rule(self.rule, self.m, self.rank_metric)
        if self.tuning not in (None, "local"):
            raise InputError(f"tuning must be None (fixed mu, lam) or 'local' (Sec. 5.2); got {self.tuning!r}")
        if self.prefer not in PREFER:
            raise InputError(f"prefer must be one of {PREFER}; got {self.prefer!r}")
        if not isinstance(self.solver, str) or not self.solver:
            raise InputError(f"solver must be 'dedicated', 'generic' or a backend name; got {self.solver!r}")
        if self.solver not in LOCAL_METHODS:
            from certiprog.solvers import available_backends

            if self.solver not in available_backends():
                raise InputError(f"solver {self.solver!r} is neither {LOCAL_METHODS} nor an available backend "
                                 f"({available_backends()})")
        tol = validate.scalar(self.tol, "tol", low=0.0, low_open=True)
        for name, grid in (("mu_grid", self.mu_grid), ("lam_grid", self.lam_grid)):
            positive_grid(grid, name)
        validate.integer(self.cv, "cv (folds of the local tuning)", low=2)
        if self.n_jobs is not None and validate.integer(self.n_jobs, "n_jobs (joblib workers: None, a positive "
                                                        "integer, or -1 for all cores, -2 all but one...)") == 0:
            raise InputError("n_jobs must be None, a positive integer, or negative (-1: all cores); got 0")
        validate.seed(self.random_state, "random_state")
        return mu, lam, B, tol

    def _split(self, X, y):
        self.classes_, is_pos = validate.binary_target(y, "ME2Classifier", self.pos_label, minority=True)
        self.pos_label_ = y[is_pos][0]
        P, N = X[is_pos], X[~is_pos]
        # a positive equal to a negative sits at distance 0 from the ellipsoid it must exclude (R* = 0 or an
        # ellipsoid that cannot exclude it): refuse rather than learn a degenerate model
        # (np.unique sorts the rows: O((p + n) log(p + n)), so it is checked at every size)
        _, inv = np.unique(np.vstack([P, N]), axis=0, return_inverse=True)
        inv = inv.ravel()
        both = np.intersect1d(inv[:len(P)], inv[len(P):])
        if both.size:
            j = int(np.flatnonzero(np.isin(inv[:len(P)], both))[0])
            raise InputError(f"positive example {j} is identical to a negative example ({both.size} such "
                             "point(s)): ME2 cannot exclude a negative from the ellipsoid centred on it; remove "
                             "the conflicting duplicates first")
        return P, N, is_pos

    # ---- fit ------------------------------------------------------------------------------------------------
    def fit(self, X, y):
        """Learn one ellipsoid per positive example (after the local tuning with ``tuning="local"``)."""
        X, y = validate.sklearn_data(self, X, y, dtype=np.float64)
        mu, lam, B, tol = self._check_params()
        P, N, is_pos = self._split(X, y)
        p = len(P)
        if self.tuning == "local":
            tuned = tune_local(X, is_pos, mu_grid=self.mu_grid, lam_grid=self.lam_grid, B=B, m=self.m,
                               rule=self.rule, rank_metric=self.rank_metric, prefer=self.prefer, cv=self.cv,
                               random_state=self.random_state, tol=tol, n_jobs=self.n_jobs, solver=self.solver)
            self.tuning_ = list(tuned)
            mus, lams = np.array([t.mu for t in tuned]), np.array([t.lam for t in tuned])
        else:
            mus, lams = np.full(p, mu), np.full(p, lam)
        method, backend = local_method(self.solver)
        # the final fits start from the tuning's ellipsoids at the chosen pairs (learnt on half the negatives)
        warm = [t.ellipsoid for t in self.tuning_] if self.tuning == "local" and method == "dedicated" else None
        if method == "dedicated" and 2.0 * float(np.min(mus)) * B >= 1.0:
            # all the local models in batches (batch_solver.fit_batch), over joblib workers
            groups = batch_groups(list(range(p)), P.shape[1], key=lambda j: 0, size=lambda j: len(N))
            sols = [s for chunk in over_chunks(_fit_batch_chunk, groups, self.n_jobs, P, N, mus, lams, B, warm, tol)
                    for s in chunk]
            models, certs = [(s.M, s.R) for s in sols], [s.certificate() for s in sols]
        else:
            fitted = me2_fit(P, N, mus, lams, B, method=method, backend=backend, tol=tol, n_jobs=self.n_jobs,
                             warm_start=warm)
            models, certs = [(m.M, m.R) for m in fitted.models], list(fitted.certificates)
        bad = [c for c in certs if c.status != "optimal"]
        if bad:
            warnings.warn(f"ME2Classifier: {len(bad)} local model(s) not certified to the tolerance (worst relative "
                          f"gap {max(c.rel_gap for c in bad):.2g}); see certificates_", RuntimeWarning,
                          stacklevel=2)
        self.centers_ = P.copy()
        self.M_ = np.array([M for M, _ in models])
        self.R_ = np.array([R for _, R in models], dtype=float)
        self.mu_, self.lam_ = mus, lams
        self.certificates_ = certs
        self.thresholds_ = (rank_thresholds(P, self.M_, N, self.m, self.rank_metric) if self.rule == "rank"
                            else np.full(p, np.inf))
        return self

    # ---- predict --------------------------------------------------------------------------------------------
    def _positive_score(self, X):
        check_is_fitted(self, "M_")
        X = validate.sklearn_data(self, X, dtype=np.float64, reset=False)
        score, assign = rule_scores(self.centers_, self.M_, self.R_, X, rule=self.rule, m=self.m,
                                    rank_metric=self.rank_metric, thresholds=self.thresholds_)
        return score, assign

    def decision_function(self, X) -> np.ndarray:
        """Signed margin of the rule (> 0 predicts ``classes_[1]``; squared-distance units)."""
        score, _ = self._positive_score(X)
        return score if self.pos_label_ == self.classes_[1] else -score

    def predict(self, X) -> np.ndarray:
        """The positive class where the rule fires (score > 0), the other class elsewhere."""
        score, _ = self._positive_score(X)
        neg = self.classes_[0] if self.pos_label_ == self.classes_[1] else self.classes_[1]
        return np.where(score > 0, self.pos_label_, neg)

    def assign(self, X) -> np.ndarray:
        """Index (into ``centers_``) of the local model each row of X is associated with (Euclidean-nearest)."""
        return self._positive_score(X)[1]


def _fit_batch_chunk(groups, P, N, mus, lams, B, warm, tol) -> list:
    """`batch_solver.fit_batch` for every batch of local models in ``groups`` (one joblib task), BLAS on 1 thread."""
    with one_blas_thread():
        return [s for rows in groups for s in fit_batch(P[rows], N, mus[rows], lams[rows], B, tol=tol,
                                                        warm_start=None if warm is None else [warm[j] for j in rows])]
