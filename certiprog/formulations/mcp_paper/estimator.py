"""scikit-learn classifier for paper 001: a linear classifier of whole manifolds learnt by MCP (Alg. 1 / 2).

``fit(manifolds, y)`` takes one label per MANIFOLD (not per point): a list of manifold objects
(`certiprog.formulations.mcp_paper.manifolds`), of (K, N) point arrays (each becomes a `PointCloudManifold`), or a dict
``{"centers": (P, N), "bases": (P, N, D) or list, "radii": (P, D) or list}`` of Lq ellipsoids (with the
estimator's ``q``). ``predict`` / ``decision_function`` / ``score`` then work on POINTS (n, N), as any sklearn
classifier. Because fit does not take a sample matrix, sklearn's ``check_estimator`` does not apply; the
conventions that do (get_params / set_params / clone, NotFittedError, ``classes_``, ``coef_`` (1, N),
``predict`` shapes and label types) are kept and tested.

No bias: the paper's program (2.1) has none, so ``intercept_`` is 0 (add a constant feature to the manifolds for
one). ``classes_[1]`` is the +1 class (predicted iff <w, x> > 0). C=None: MCP-simple (hard margin; a
non-separable set of manifolds raises ModelError, since no hard-margin classifier exists: use C > 0);
C > 0: MCP-slack with center constraints (needs separable centers).
"""
from __future__ import annotations

import json
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from certiprog import validation as validate
from certiprog.errors import InputError, ModelError
from certiprog.estimators.base import CertifiedClassifier
from certiprog.formulations.mcp_paper.manifolds import LqEllipsoidManifold, _q_value, as_manifolds
from certiprog.formulations.mcp_paper.programs import _geometry, mcp_simple, mcp_slack

__all__ = ["ManifoldClassifier"]


class ManifoldClassifier(CertifiedClassifier):
    """Max-margin linear classifier of labelled manifolds (001: MCP-simple for C=None, MCP-slack for C > 0).

    Parameters: ``C`` (None or > 0), ``q`` (Lq norm of ellipsoids given as a dict), ``delta`` (MCP tolerance:
    stop when no manifold point violates its margin by more than delta), ``max_iter``, ``cuts`` ('worst': one
    point per iteration as in the paper; 'all': one per violating manifold), ``drop_inactive`` (None or a slack
    threshold, see `mcp_simple`), ``backend`` / ``solver`` (master QP; None: PIQP's dense interior point when installed, else Clarabel), ``progress``, ``certify`` (also solve the
    exact robust counterpart and store `MCPResult.certificate` in ``certificate_``; Lq ellipsoids and point
    clouds only).

    Fitted attributes: ``classes_``, ``coef_`` (1, N), ``intercept_`` (zeros(1)), ``n_features_in_``,
    ``n_iter_``, ``n_added_``, ``history_`` (the `MCPResult` history), ``status_``, ``objective_``, ``margin_``
    (1/||w||), ``xi_`` (slacks, C > 0), ``achieved_delta_``, ``solve_time_``, ``certificate_`` (or None).
    """

    _certify_allowed = (True, False)

    def __init__(self, C=None, q=2, delta=1e-2, max_iter=1000, cuts="worst", drop_inactive=None, backend=None,
                 solver=None, progress=False, certify=False):
        self.C = C
        self.q = q
        self.delta = delta
        self.max_iter = max_iter
        self.cuts = cuts
        self.drop_inactive = drop_inactive
        self.backend = backend
        self.solver = solver
        self.progress = progress
        self.certify = certify

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # ------------------------------------------------------------------ fit
    def _check_params(self):
        """Every parameter, before any work (scikit-learn sets them unchecked); the MCP run rechecks its own."""
        _q_value(self.q)
        if self.C is not None:
            validate.positive(self.C, "C")
        validate.scalar(self.delta, "delta", low=0.0, low_open=True)
        validate.integer(self.max_iter, "max_iter", low=1)
        validate.choice(self.cuts, "cuts", ("worst", "all"))
        if self.drop_inactive is not None:
            validate.positive(self.drop_inactive, "drop_inactive (None or a slack threshold > 0)")
        self._check_shared()  # backend, solver, certify (True / False here; certiprog.estimators.base)
        validate.flag(self.progress, "progress")

    def _manifolds(self, manifolds) -> list:
        if isinstance(manifolds, dict):
            missing = {"centers", "bases", "radii"} - set(manifolds)
            if missing:
                raise InputError("a dict of Lq ellipsoids needs the keys centers, bases, radii; "
                                 f"missing {sorted(missing)}")
            c, Us, rs = _geometry(manifolds["centers"], manifolds["bases"], manifolds["radii"])
            return [LqEllipsoidManifold(c[p], Us[p], rs[p], q=self.q) for p in range(len(c))]
        return as_manifolds(manifolds)

    def fit(self, manifolds, y):
        """Learn w from manifolds (list of manifolds / point arrays, or a dict of ellipsoids) and one label each."""
        self._check_params()
        ms = self._manifolds(manifolds)
        if validate._is_complex(y):
            raise InputError("y is complex; it must hold one class label per manifold")
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != len(ms):
            raise InputError(f"y must hold one label per manifold: {len(ms)} labels; got shape {y.shape}")
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise InputError("y contains NaN or inf; every manifold needs a label")
        if y.dtype.kind not in "biufUSO":
            raise InputError(f"y must hold class labels (numbers or strings); got dtype {y.dtype}")
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise InputError(f"ManifoldClassifier separates two classes; y has {self.classes_.size} "
                             f"({self.classes_.tolist()[:5]})" + (": there is nothing to separate"
                                                                 if self.classes_.size == 1 else ""))
        labels = np.where(y == self.classes_[1], 1.0, -1.0)
        opts = dict(delta=self.delta, max_iter=self.max_iter, backend=self.backend, solver=self.solver,
                    cuts=self.cuts, drop_inactive=self.drop_inactive, progress=self.progress)
        res = mcp_simple(ms, labels, **opts) if self.C is None else mcp_slack(ms, labels, self.C, **opts)
        if res.status == "infeasible":
            raise ModelError("the manifolds are not linearly separable through the origin (a finite subset of them "
                             "is already not separable): use C > 0 (MCP-slack)" if self.C is None else
                             "the manifold centers are not linearly separable through the origin, so the center "
                             "constraints of MCP-slack (Sec. 3.1) cannot hold")
        if res.w is None:
            raise ModelError(f"MCP failed: the master problem ended with status {res.status!r}")
        if res.status == "iteration_limit":
            warnings.warn(f"MCP stopped after max_iter={self.max_iter} iterations with worst violation "
                          f"{res.achieved_delta:.3g} > delta={self.delta}; increase max_iter", ConvergenceWarning)
        self.coef_ = res.w.reshape(1, -1)
        self.intercept_ = np.zeros(1)
        self.n_features_in_ = res.w.size
        self.n_iter_, self.n_added_ = res.n_iter, res.n_added
        self.history_ = res.history
        self.status_, self.objective_, self.margin_ = res.status, res.objective, res.margin
        self.xi_ = res.xi
        self.achieved_delta_, self.solve_time_ = res.achieved_delta, res.solve_time
        self.certificate_ = res.certificate(backend=self.backend) if self.certify else None
        return self

    # ------------------------------------------------------------------ predict
    def decision_function(self, X) -> np.ndarray:
        """<w, x> for every point (row) of X (n, N); > 0 means ``classes_[1]``."""
        check_is_fitted(self, "coef_")
        X = validate.matrix(X, "X", cols=self.n_features_in_)
        return X @ self.coef_[0]

    def predict(self, X) -> np.ndarray:
        """The class of every point (row) of X."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    # ------------------------------------------------------------------ saving (JSON + .npz, no pickle)
    def save(self, path_stem: str) -> None:
        """``path_stem.json`` (parameters, classes, scalars) and ``path_stem.npz`` (``coef_``)."""
        check_is_fitted(self, "coef_")
        meta = {"format": "certiprog.manifold_classifier/1", "params": self.get_params(),
                "classes": self.classes_.tolist(), "status": self.status_, "n_iter": self.n_iter_,
                "objective": self.objective_, "achieved_delta": self.achieved_delta_}
        with open(f"{path_stem}.json", "w") as fh:
            json.dump(meta, fh, indent=1, default=float)
        np.savez(f"{path_stem}.npz", coef=self.coef_)

    @classmethod
    def load(cls, path_stem: str) -> "ManifoldClassifier":
        """A classifier that predicts as the saved one (history and certificate are not stored)."""
        with open(f"{path_stem}.json") as fh:
            meta = json.load(fh)
        if meta.get("format") != "certiprog.manifold_classifier/1":
            raise InputError(f"{path_stem}.json is not a saved ManifoldClassifier (format {meta.get('format')!r})")
        est = cls(**meta["params"])
        with np.load(f"{path_stem}.npz", allow_pickle=False) as data:
            coef = np.asarray(data["coef"], float)
        if coef.ndim != 2 or coef.shape[0] != 1 or not np.all(np.isfinite(coef)):
            raise InputError(f"{path_stem}.npz holds no valid (1, N) coefficient vector")
        est.coef_, est.intercept_, est.n_features_in_ = coef, np.zeros(1), coef.shape[1]
        est.classes_ = np.array(meta["classes"])
        est.status_, est.n_iter_, est.objective_ = meta["status"], meta["n_iter"], meta["objective"]
        est.achieved_delta_ = meta["achieved_delta"]
        est.history_, est.certificate_ = [], None
        return est
