"""`LHMNetClassifier`: paper 000's multi-class LHM network (Sec. 4.2) as a scikit-learn classifier.

fit: one LHM per class (one-vs-rest, the other classes as the background; `lhm.fit_lhm` with ``C``, ``K`` and
``lhm_params``), or the components given in ``init_components``; map them to the network of
`network.multiclass_network`; train it end to end with cross-entropy (`network.train_multiclass`, JAX + optax: the
``nn`` extra). Without the extra, fit raises `network.NetworkLibraryMissing` (a CertiprogError) saying how to
install it.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from certiprog import validation as validate
from certiprog.errors import InputError

from .network import as_components, multiclass_network, require_jax, train_multiclass

__all__ = ["LHMNetClassifier"]


class LHMNetClassifier(ClassifierMixin, BaseEstimator):
    """Per-class LHMs mapped to one network (Sec. 4.2) and fine-tuned with cross-entropy.

    Parameters: ``C``, ``K`` (components and hyperplanes per class LHM), ``lhm_params`` (other `lhm.fit_lhm`
    arguments, a dict: delta, lam, init, random_state, certify, backend, ...), ``init_components`` (optional: per class, in the order of ``np.unique(y)``, a list of
    ``(W (K, d), b (K,))``; skips the LHM fits), ``gain`` (sigmoid gain of the hidden layers), ``off_scale`` (sd of
    the initial cross-class output weights), ``epochs``, ``learning_rate``, ``batch_size``, ``random_state``.

    Fitted: ``classes_``, ``components_`` (per class, the initial LHM's components), ``network_`` (the trained
    `MultiClassNetwork`), ``initial_network_``, ``history_`` (`TrainingHistory`: loss and accuracy per epoch)."""

    def __init__(self, C: int = 2, K: int = 2, lhm_params=None, init_components=None, gain: float = 4.0,
                 off_scale: float = 0.01, epochs: int = 20, learning_rate: float = 1e-2, batch_size: int = 128,
                 random_state=None):
        self.C = C
        self.K = K
        self.lhm_params = lhm_params
        self.init_components = init_components
        self.gain = gain
        self.off_scale = off_scale
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.random_state = random_state

    def _class_components(self, X, y) -> list:
        if self.init_components is not None:
            comps = list(self.init_components)
            if len(comps) != len(self.classes_):
                raise InputError(f"init_components has {len(comps)} entries for {len(self.classes_)} classes")
            return [as_components(c, d=X.shape[1]) for c in comps]
        from .lhm import fit_lhm  # the per-class learner (Alg. 2)

        out = []
        for g in self.classes_:
            fit = fit_lhm(X[y == g], X[y != g], C=self.C, K=self.K, **dict(self.lhm_params or {}))
            out.append(as_components(fit.components(), d=X.shape[1]))
        return out

    def fit(self, X, y):
        """Fit one LHM per class, map them to a network (Sec. 4.2) and fine-tune it with cross-entropy (needs JAX)."""
        require_jax()  # fail before the LHM fits if the extra is missing
        for name in ("gain", "off_scale", "learning_rate"):
            validate.scalar(getattr(self, name), name, low=0.0)
        for name in ("C", "K", "epochs", "batch_size"):
            validate.integer(getattr(self, name), name, low=1)
        validate.seed(self.random_state, "random_state")
        if self.lhm_params is not None and not isinstance(self.lhm_params, dict):
            raise InputError(f"lhm_params must be None or a dict of fit_lhm arguments; got {self.lhm_params!r:.60}")
        if self.init_components is not None and not isinstance(self.init_components, (list, tuple)):
            raise InputError("init_components must be None or a list (one entry per class) of (W, b) pairs; got "
                             f"{type(self.init_components).__name__}")
        X, y = validate.sklearn_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise InputError(f"LHMNetClassifier needs at least 2 classes, got {len(self.classes_)}")
        self.components_ = self._class_components(X, y)
        yi = np.searchsorted(self.classes_, y)
        self.initial_network_ = multiclass_network(self.components_, gain=self.gain, off_scale=self.off_scale,
                                                   random_state=self.random_state)
        seed = np.random.default_rng(self.random_state).integers(2**31)
        self.network_, self.history_ = train_multiclass(self.initial_network_, X, yi, epochs=self.epochs,
                                                        learning_rate=self.learning_rate,
                                                        batch_size=self.batch_size, random_state=int(seed))
        return self

    def decision_function(self, X) -> np.ndarray:
        """The network's logits (n, G); for two classes the difference logit_1 - logit_0 (n,)."""
        check_is_fitted(self, "network_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        logits = self.network_.forward(X)["logits"]
        return logits[:, 1] - logits[:, 0] if len(self.classes_) == 2 else logits

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: the softmax of the network's logits, one column per class."""
        check_is_fitted(self, "network_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        logits = self.network_.forward(X)["logits"]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """The class with the largest logit."""
        check_is_fitted(self, "network_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.classes_[self.network_.predict(X)]
