"""The SVM and FDA baselines (linear and Gaussian kernel), including the kernel Fisher discriminant that
scikit-learn does not have.
"""
from __future__ import annotations

import time

import numpy as np

from .config import SVM_SEED
from .partitions import _scores


def _prior_aware_rule(z: np.ndarray, y: np.ndarray):
    """1-D LDA on projections z: returns f(z') >= 0 <=> predict +1 (shared variance, class priors)."""
    z1, z0 = z[y > 0], z[y < 0]
    m1, m0 = z1.mean(), z0.mean()
    var = (((z1 - m1) ** 2).sum() + ((z0 - m0) ** 2).sum()) / len(z)  # prior-weighted biased, as sklearn
    var = max(var, 1e-12 * max(m1 ** 2 + m0 ** 2, 1.0))
    log_prior = np.log(len(z1) / len(z0))
    return lambda t: (t - 0.5 * (m1 + m0)) * (m1 - m0) / var + log_prior


def kernel_fisher(K: np.ndarray, y: np.ndarray, lam: float):
    """Regularised kernel Fisher discriminant (Mika et al. 1999) from the training Gram matrix ``K``:
    ``gamma = (N + lam I)^{-1} (l1 - l0)``, N = sum_j K_j (I - 1/m_j) K_j^T; returns (gamma, rule) where
    ``rule(K_new @ gamma) >= 0`` predicts +1 (prior-aware bias, as sklearn's LDA)."""
    import scipy.linalg

    pos = y > 0
    l1, l0 = K[:, pos].mean(axis=1), K[:, ~pos].mean(axis=1)
    C1 = K[:, pos] - l1[:, None]
    C0 = K[:, ~pos] - l0[:, None]
    N = C1 @ C1.T + C0 @ C0.T
    gamma = scipy.linalg.solve(N + lam * np.eye(len(K)), l1 - l0, assume_a="pos")
    return gamma, _prior_aware_rule(K @ gamma, y)


def svm_estimator(C, sigma):
    """The SVM baseline at C (and width sigma): LinearSVC, or SVC with the Gaussian kernel. liblinear's coordinate
    descent visits the points in a random order: a fixed seed (`SVM_SEED`) makes its result the same in every run
    and worker (random_state=None drew it from numpy's global generator)."""
    from sklearn.svm import SVC, LinearSVC

    return LinearSVC(C=C, max_iter=20000, random_state=SVM_SEED) if sigma is None else \
        SVC(C=C, kernel="rbf", gamma=1.0 / sigma)


def _fit_svm(parts, C, sigma) -> dict:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y = parts["train"]
    t = time.perf_counter()
    est = svm_estimator(C, sigma)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        est.fit(X, y)
    out = _scores(parts, est.predict)
    out.update(params=dict(C=C, sigma=sigma), converged=not any(issubclass(w.category, ConvergenceWarning)
                                                                for w in caught), fit_s=time.perf_counter() - t)
    return out


def fda_direction_shrinkage(lam: float) -> float:
    """sklearn LDA shrinkage s equivalent to the ridge lam of the paper's grid: s = lam / (1 + lam)."""
    return lam / (1.0 + lam)


def _fit_fda(parts, lam, sigma) -> dict:
    X, y = parts["train"]
    t = time.perf_counter()
    if sigma is None:
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

        est = LinearDiscriminantAnalysis(solver="lsqr", shrinkage=fda_direction_shrinkage(lam)).fit(X, y)
        predict = est.predict
    else:
        from sklearn.metrics.pairwise import rbf_kernel

        gamma_k = 1.0 / sigma
        coef, rule = kernel_fisher(rbf_kernel(X, X, gamma=gamma_k), y, lam)
        predict = lambda Z: np.where(rule(rbf_kernel(Z, X, gamma=gamma_k) @ coef) >= 0, 1.0, -1.0)  # noqa: E731
    out = _scores(parts, predict)
    out.update(params=dict(lam=lam, sigma=sigma), fit_s=time.perf_counter() - t)
    return out
