"""scikit-learn classifiers for paper 003: the error-clumping linear classifier (eq. (1)) and hole punching (Sec. 5.2).

Both are binary and take any two labels: ``classes_[1]`` is the paper's y = +1 (predicted iff the decision value is
> 0), ``classes_[0]`` its y = -1. Like the paper's experiments, a constant feature (``intercept_scaling``) is
appended instead of an unregularised bias (``fit_intercept=False`` keeps eq. (1) bias-free); it does not change the
neighbourhoods (distances ignore a constant column).

Fitted attributes of `ErrorClumpingClassifier`: ``w_`` (the weights of eq. (1), with the constant feature last),
``coef_`` (1, n_features), ``intercept_`` (1,), ``xi_`` (training slacks), ``objective_``, ``certificate_`` (the
rigorous duality gap of the answer as a dict: lower, upper, gap, rel_gap, verdict), ``verdict_``, ``solver_`` (what
ran; default 'auto' = the structured solver of ``solver.py``), ``status_`` (the solver's own status, not trusted),
``history_`` (Algorithm 1's per pass, the structured solver's per iteration, [] for a backend).

`HolePunchingClassifier`: ``w_``, ``certificate_``, ``verdict_`` of the ambient classifier, ``base_`` (its fit as a
dict), ``holes_`` (a list of dicts: centre index, radius, classifier kind and constant, training points routed to it,
errors before/after, the hole's certificate), ``centers_`` (k, n), ``radii_`` (k,), ``n_holes_``, ``history_``
(training errors per round) and ``stop_reason_``; ``route(X)`` gives each point's piece, ``staged_predict(X)`` the predictions after each round. Routing and the stall rule
are in `hole_punching`; Thm 1 on the fitted predictor in `bounds.thm1_on_predictor`.

Saved models: ``save(stem)`` writes ``stem.json`` (parameters, labels, scalars, certificates) and ``stem.npz``
(arrays), validated by ``load(stem)`` (no pickle).
"""
from __future__ import annotations

import json
import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from certiprog import validation as validate
from certiprog.errors import InputError, SavedFileError
from certiprog.estimators.base import CertifiedClassifier

from .graph import rho_for_mean_degree
from .hole_punching import HolePunchingResult, hole_punching, route
from .learner import fit_error_clumping, resolve_solver
from .normalisation import check_normalisation
from .programs import _check_graph, _eta

__all__ = ["ErrorClumpingClassifier", "HolePunchingClassifier"]

#: ``rho=None``: the radius giving neighbourhoods of about this fraction of the training points
NEIGHBOURHOOD_FRACTION = 0.01


def _warn_uncertified(est, solver: str) -> None:
    """A RuntimeWarning when a deterministic solver's answer is not certified (Algorithm 1's wide interval after a
    fixed number of passes is expected and documented, so it stays quiet)."""
    if est.verdict_ != "certified" and solver != "algorithm1":
        c = est.certificate_
        warnings.warn(f"{type(est).__name__}: the answer of {solver!r} is not certified (verdict {est.verdict_!r}, "
                      f"optimum in [{c['lower']:.6g}, {c['upper']:.6g}], relative gap {c['rel_gap']:.2g} > tol "
                      f"{c['tol']:.2g}); see certificate_", RuntimeWarning, stacklevel=3)


class _Base(CertifiedClassifier):
    """Label encoding, parameter checks, the constant feature, saving (the shared parameters:
    `certiprog.estimators.base`; here ``solver`` names the backend too: 'auto', 'structured', 'algorithm1', a backend
    or 'backend:solver')."""

    _FORMAT = ""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_params(self):
        validate.flag(self.fit_intercept, "fit_intercept")
        validate.seed(self.random_state, "random_state")
        for name in ("min_hole_size", "max_center_tries"):
            if hasattr(self, name):
                validate.integer(getattr(self, name), name, low=1)
        if hasattr(self, "disjoint_holes"):
            validate.flag(self.disjoint_holes, "disjoint_holes")
        if self.progress is not None:
            validate.flag(self.progress, "progress (None: on a terminal only)")
        if self.rho is not None:
            validate.scalar(self.rho, "rho", low=0.0, low_open=True)
        _eta(self.eta)
        check_normalisation(self.normalisation)
        validate.scalar(self.lam, "lam", low=0.0, low_open=True)
        validate.scalar(self.intercept_scaling, "intercept_scaling", low=0.0, low_open=True)
        validate.scalar(self.passes, "passes", low=0.0, low_open=True)
        validate.scalar(self.tol, "tol", low=0.0, low_open=True)
        if self.c is not None:
            validate.scalar(self.c, "c", low=0.0, low_open=True)
        name = resolve_solver(self.solver)
        if name not in ("structured", "algorithm1"):  # a backend name, 'backend' or 'backend:solver'
            validate.backend(name.split(":")[0], "solver (a backend name, or 'auto', 'structured', 'algorithm1')")

    def _encode(self, X, y):
        if y is None:
            raise InputError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        X, y = validate.sklearn_data(self, X, y, dtype=np.float64)
        validate.squares_representable(X, "X")
        self.classes_, is_pos = validate.binary_target(y, type(self).__name__)
        return X, np.where(is_pos, 1.0, -1.0)

    def _set_rho(self, X) -> float:
        """``rho_``: ``rho``, or (None) the radius whose neighbourhoods hold about 1 % of the training points on
        average (`graph.rho_for_mean_degree`; the setting of the issue's MNIST runs); a positive floor when the
        estimate is 0 (many duplicates), so the graph then links duplicates only."""
        if self.rho is not None:
            self.rho_ = float(self.rho)
        else:
            est = rho_for_mean_degree(X, NEIGHBOURHOOD_FRACTION) if X.shape[0] >= 2 else 0.0
            self.rho_ = est if est > 0 else float(np.finfo(float).tiny)
        return self.rho_

    def _augment(self, X):
        return np.c_[X, np.full(X.shape[0], float(self.intercept_scaling))] if self.fit_intercept else X

    def _fit_kwargs(self):
        return dict(passes=self.passes, c=self.c, random_state=self.random_state, tol=self.tol,
                    progress=self.progress, normalisation=self.normalisation)

    def predict(self, X):
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    # ---- saving (JSON + .npz, no pickle) ---------------------------------------------------------------------------
    def _meta(self) -> dict:
        return {"format": self._FORMAT, "params": self.get_params(), "classes": self.classes_.tolist(),
                "n_features_in": int(self.n_features_in_)}

    @classmethod
    def _read(cls, path_stem):
        try:
            with open(f"{path_stem}.json") as fh:
                meta = json.load(fh)
            with np.load(f"{path_stem}.npz", allow_pickle=False) as data:
                arrays = {k: np.asarray(data[k]) for k in data.files}
        except (OSError, ValueError) as exc:
            raise SavedFileError(f"cannot read a saved {cls.__name__} at {path_stem}.json/.npz: {exc}") from exc
        if meta.get("format") != cls._FORMAT:
            raise SavedFileError(f"{path_stem}.json is not a saved {cls.__name__} (format {meta.get('format')!r})")
        for k, a in arrays.items():
            if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
                raise SavedFileError(f"{path_stem}.npz: array {k!r} holds NaN or inf")
        try:
            est = cls(**meta["params"])
            est.classes_ = np.array(meta["classes"])
            est.n_features_in_ = int(meta["n_features_in"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SavedFileError(f"{path_stem}.json: invalid saved {cls.__name__} ({type(exc).__name__}: {exc})") from exc
        if est.classes_.size != 2:
            raise SavedFileError(f"{path_stem}.json: expected 2 classes, got {meta['classes']!r}")
        return est, meta, arrays


class ErrorClumpingClassifier(_Base):
    """The linear classifier of eq. (1) (paper 003): squared slacks discounted for errors that clump.

    ``rho`` > 0: neighbourhood radius (closed Euclidean ball; None: about 1 % of the training points per
    neighbourhood, fitted ``rho_``); ``eta`` in [0, 1]: discount (0 = squared-hinge SVM);
    ``lam`` > 0: ridge weight; ``solver``: 'auto', 'algorithm1' or a backend ('clarabel', 'cvxpy', 'cvxpy:OSQP'),
    see `learner`; ``passes``, ``c``, ``random_state``: Algorithm 1's; ``tol``: the relative duality gap under which
    the certificate's verdict is 'certified'; ``progress``: Algorithm 1's tqdm bar (None: on a terminal only);
    ``normalisation``: Theta's off-diagonal, 'printed' (-eta/(m-1), the paper's text), 'dmax', 'symmetric', 'max'
    or 'row' (`normalisation.py`, PSD ranges proved there).
    """

    _FORMAT = "certiprog.error_clumping_classifier/1"

    def __init__(self, rho=None, eta=0.5, lam=0.01, solver="auto", fit_intercept=True, intercept_scaling=1.0,
                 passes=50, c=None, random_state=None, tol=1e-6, progress=None, normalisation="printed"):
        self.rho = rho
        self.eta = eta
        self.lam = lam
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.passes = passes
        self.c = c
        self.random_state = random_state
        self.tol = tol
        self.progress = progress
        self.normalisation = normalisation

    def fit(self, X, y):
        """Fit eq. (1) on (X, y) with a certified solve; the duality-gap certificate is kept in ``certificate_``."""
        self._check_params()
        X, ypm = self._encode(X, y)
        fit = fit_error_clumping(self._augment(X), ypm, self._set_rho(X), self.eta, self.lam, self.solver,
                                 **self._fit_kwargs())
        self._set(fit.w, fit.xi, fit.objective, fit.certificate.to_json(), fit.solver, fit.status, fit.history)
        _warn_uncertified(self, fit.solver)
        return self

    def _set(self, w, xi, objective, certificate, solver, status, history):
        w = np.asarray(w, float)
        self.w_ = w
        nf = w.size - (1 if self.fit_intercept else 0)
        self.coef_ = w[:nf].reshape(1, -1)
        self.intercept_ = np.array([w[-1] * float(self.intercept_scaling) if self.fit_intercept else 0.0])
        self.xi_ = None if xi is None else np.asarray(xi, float)
        self.objective_ = float(objective)
        self.certificate_ = certificate
        self.verdict_ = certificate["verdict"]
        self.solver_, self.status_, self.history_ = solver, status, list(history)

    def decision_function(self, X):
        """<w, x> (+ the constant feature's weight): > 0 predicts ``classes_[1]``."""
        check_is_fitted(self, "w_")
        X = validate.sklearn_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_[0] + self.intercept_[0]

    def save(self, path_stem) -> None:
        """``path_stem.json`` (parameters, labels, objective, certificate, solver, history) and ``.npz`` (w, xi)."""
        check_is_fitted(self, "w_")
        meta = self._meta() | {"objective": self.objective_, "certificate": self.certificate_,
                               "solver": self.solver_, "status": self.status_, "history": self.history_}
        with open(f"{path_stem}.json", "w") as fh:
            json.dump(meta, fh, indent=1, default=float)
        np.savez(f"{path_stem}.npz", w=self.w_, xi=np.zeros(0) if self.xi_ is None else self.xi_)

    @classmethod
    def load(cls, path_stem) -> "ErrorClumpingClassifier":
        """A classifier that predicts as the saved one (validated: format, labels, finite arrays, shapes)."""
        est, meta, arrays = cls._read(path_stem)
        w = arrays.get("w")
        expected = est.n_features_in_ + (1 if est.fit_intercept else 0)
        if w is None or w.ndim != 1 or w.size != expected:
            raise SavedFileError(f"{path_stem}.npz holds no weight vector of length {expected}")
        try:
            est._set(w, arrays.get("xi"), meta["objective"], meta["certificate"], meta["solver"], meta["status"],
                     meta["history"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SavedFileError(f"{path_stem}.json: invalid saved {cls.__name__} ({type(exc).__name__}: {exc})") from exc
        return est


class HolePunchingClassifier(_Base):
    """The piecewise classifier of Sec. 5.2 (eq. (6)): an ambient error-clumping classifier and up to ``n_holes``
    Euclidean-ball holes, each with its own classifier; a point is routed to the innermost hole containing it.

    ``n_holes``: at most this many holes (rounds); the base classifier's parameters (``rho``, ``eta``, ``lam``,
    ``solver``, ``fit_intercept``, ``intercept_scaling``, ``passes``, ``c``, ``random_state``, ``tol``,
    ``progress``, ``normalisation``) are used for the ambient classifier and for every hole's; ``min_hole_size``: fewest training
    points a hole may take (1 allows the radius-0 holes of the stall rule); ``max_center_tries``: candidate centres
    tried per round; ``disjoint_holes``: every new ball misses the earlier ones, so Thm 1 applies to the fitted
    predictor (`bounds.thm1_on_predictor`); ``error_fraction``: the radius rule, a ball qualifies when more than
    this fraction of its points is misclassified (the paper: 0.5); ``hole_lams``: the lambdas tried for each hole's
    classifier (None: ``lam``); ``fit(X, y, X_val=, y_val=)`` chooses each hole's classifier (constant or one of
    them) by its errors on the validation points the ball takes; see `hole_punching.hole_punching`.
    """

    _FORMAT = "certiprog.hole_punching_classifier/1"

    def __init__(self, n_holes=5, rho=None, eta=0.5, lam=0.01, solver="auto", fit_intercept=True,
                 intercept_scaling=1.0, passes=50, c=None, random_state=None, tol=1e-6, progress=None,
                 min_hole_size=1, max_center_tries=50, disjoint_holes=False, normalisation="printed",
                 error_fraction=0.5, hole_lams=None):
        self.n_holes = n_holes
        self.rho = rho
        self.eta = eta
        self.lam = lam
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.passes = passes
        self.c = c
        self.random_state = random_state
        self.tol = tol
        self.progress = progress
        self.min_hole_size = min_hole_size
        self.max_center_tries = max_center_tries
        self.disjoint_holes = disjoint_holes
        self.normalisation = normalisation
        self.error_fraction = error_fraction
        self.hole_lams = hole_lams

    def fit(self, X, y, graph=None, X_val=None, y_val=None):
        """``graph``: the rho-graph of X (`programs.neighbourhood_graph(X, rho)`) when already at hand, e.g. shared
        by fits at several eta (checked: m x m, symmetric, 0/1, empty diagonal); ``X_val``, ``y_val``: held-out
        points (labels as y) on which each hole's classifier is chosen."""
        self._check_params()
        validate.scalar(self.error_fraction, "error_fraction", low=0.0, high=1.0, high_open=True)
        if self.hole_lams is not None:
            lams = np.atleast_1d(np.asarray(self.hole_lams, dtype=object))
            if lams.size == 0:
                raise InputError("hole_lams is empty; give None (use lam) or positive numbers")
            for v in lams:
                validate.scalar(v, "hole_lams", low=0.0, low_open=True)
        if not (isinstance(self.n_holes, (int, np.integer)) and not isinstance(self.n_holes, bool)
                and self.n_holes >= 0):
            raise InputError(f"n_holes must be an integer >= 0; got {self.n_holes!r}")
        X, ypm = self._encode(X, y)
        if graph is not None:
            graph = _check_graph(graph, X.shape[0])
        validation = None
        if (X_val is None) != (y_val is None):
            raise InputError("give both X_val and y_val, or neither")
        if X_val is not None:
            Xv = validate.matrix(X_val, "X_val", cols=X.shape[1])
            yv = np.asarray(y_val)
            if yv.shape != (Xv.shape[0],):
                raise InputError(f"y_val has shape {yv.shape}; expected ({Xv.shape[0]},) to match X_val")
            unknown = ~np.isin(yv, self.classes_)
            if unknown.any():
                raise InputError(f"y_val holds labels not seen in y: {np.unique(yv[unknown])[:5]!r}")
            validation = (Xv, np.where(yv == self.classes_[1], 1.0, -1.0))
        res = hole_punching(X, ypm, self.n_holes, self._set_rho(X), self.eta, self.lam, self.solver,
                            augment=self._augment, min_hole_size=self.min_hole_size,
                            max_center_tries=self.max_center_tries, disjoint_holes=bool(self.disjoint_holes),
                            graph=graph, error_fraction=float(self.error_fraction), hole_lams=self.hole_lams,
                            validation=validation, **self._fit_kwargs())
        self._set(res)
        _warn_uncertified(self, res.base["solver"])
        return self

    def _set(self, res: HolePunchingResult):
        self.result_ = res
        self.base_ = res.base
        self.w_ = res.base_w
        self.certificate_ = res.base["certificate"]
        self.verdict_ = self.certificate_["verdict"]
        self.holes_ = res.holes
        self.centers_ = res.centers
        self.radii_ = res.radii
        self.history_ = res.history
        self.stop_reason_ = res.stop_reason
        self.n_holes_ = len(res.holes)

    def decision_function(self, X):
        """The routed piece's decision value: > 0 predicts ``classes_[1]``."""
        check_is_fitted(self, "result_")
        X = validate.sklearn_data(self, X, reset=False, dtype=np.float64)
        return self.result_.decision(self._augment(X))

    def staged_predict(self, X):
        """The predictions after 0, 1, ..., ``n_holes_`` holes (a generator, as sklearn's boosting estimators):
        test error against the hole-punching round (the paper's Fig. 2)."""
        check_is_fitted(self, "result_")
        Xa = self._augment(validate.sklearn_data(self, X, reset=False, dtype=np.float64))
        for decision in self.result_.staged_decisions(Xa):
            yield self.classes_[(decision > 0).astype(int)]

    def route(self, X):
        """The piece of each point: -1 ambient, j >= 0 hole j (the innermost containing ball)."""
        check_is_fitted(self, "result_")
        X = validate.sklearn_data(self, X, reset=False, dtype=np.float64)
        return route(X, self.centers_, self.radii_)

    def save(self, path_stem) -> None:
        """``path_stem.json`` (parameters, labels, holes' scalars, history) and ``.npz`` (weights, centres, radii)."""
        check_is_fitted(self, "result_")
        meta_r, arrays = self.result_.to_saved()
        meta = self._meta() | {"result": meta_r}
        with open(f"{path_stem}.json", "w") as fh:
            json.dump(meta, fh, indent=1, default=float)
        np.savez(f"{path_stem}.npz", **arrays)

    @classmethod
    def load(cls, path_stem) -> "HolePunchingClassifier":
        """A classifier that predicts as the saved one (validated)."""
        est, meta, arrays = cls._read(path_stem)
        dim = est.n_features_in_ + (1 if est.fit_intercept else 0)
        try:
            res = HolePunchingResult.from_saved(meta["result"], arrays, est.n_features_in_, dim)
        except (KeyError, ValueError, TypeError) as exc:
            raise SavedFileError(f"{path_stem}: not a valid saved HolePunchingClassifier: {exc}") from exc
        est._set(res)
        return est
