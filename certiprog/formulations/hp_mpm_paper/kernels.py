"""Paper 004 Sec. 5 — kernel MPM and HP-MPM through the gamma representation ``w = sum_i gamma_i phi(x_i)``.

Derivation (docs/derivations/004.md, K1-K4; the class-0 root's ``A_1`` is corrected to ``A_0``, error 3). Stack the
training points class 1 first (m = m1 + m0), K = (k(x_i, x_k)), ``K_j`` the rows of class j. With

    l_j = K_j^T 1 / m_j                        (class row averages: (l_j)_i = mean_{k in j} k(x_k, x_i))
    L_j = (K_j - 1_{m_j} l_j^T) / sqrt(m_j)    (class-centred kernel rows)

any w = sum_i gamma_i phi(x_i) has ``w^T phi_hat_j = gamma^T l_j``, ``w^T Σ̂_j^phi w = ||L_j gamma||^2`` (biased
covariances) and ``||w||^2 = gamma^T K gamma``; the optimal w lies in the span of the phi(x_i) (K1), so the kernel
HP-MPM is ``max kappa`` s.t. ``gamma^T K gamma <= 1`` and ``gamma^T (l_1 - l_0) = sqrt(2A_1 + kappa^2(||L_1
gamma||^2 + A_1)) + sqrt(2A_0 + kappa^2(||L_0 gamma||^2 + A_0))``; predict class 1 iff ``gamma^T k_x - b* >= 0``.

Coordinates (how the Gram matrix is regularised, honestly): gamma is written ``gamma = B beta`` with
``B = H V_r diag(lambda_r)^{-1/2}`` from the eigendecomposition of the centred Gram matrix ``H K H`` (H = I - 11^T/m),
keeping the r eigenvalues above the rank tolerance (`rank_tolerance`: ``max(rank_tol * lambda_max, m * eps *
max|K_ij|)``, the second term the rounding level of the computed Gram matrix, so rounding noise is never kept as
signal). Then ``gamma^T K gamma = ||beta||^2`` exactly and the
program is the linear one in beta (`ClassMoments`, shared with the linear solvers). The centring removes the one
direction (the common mean of the phi) that changes no moment; the truncation restricts w to the feature directions
in which the data have spread above both ``rank_tol`` of the largest and the rounding level. l_j and L_j are built from the FULL K, so every
returned (gamma, b, kappa) is a feasible point of the untruncated program and its bound 1/(1+kappa^2) is exact for
the returned classifier; `ClassMoments` ``dropped`` says how many directions were cut.

Kernels: ``'linear'`` (x^T y), ``'rbf'`` / ``'gaussian'`` (exp(-gamma ||x - y||^2), gamma = 1/(2 sigma^2); the paper's
exp(-||x - y||^2 / sigma) is gamma = 1/sigma), ``'poly'`` ((scale x^T y + coef0)^degree) or any callable
``k(X, Y) -> (len(X), len(Y))`` Gram matrix.
"""
from __future__ import annotations

from functools import partial

import numpy as np
from scipy.spatial.distance import cdist

from certiprog.errors import InputError
from certiprog.model import Model
from certiprog import validation as validate
from certiprog.formulations.hp_mpm_paper.hp_mpm import HPMPMProblem, HPMPMResult
from certiprog.formulations.hp_mpm_paper.mpm import ClassMoments, _class, mpm_from_moments

__all__ = ["gram", "kernel_class_moments", "kernel_hp_mpm", "kernel_hp_mpm_problem", "kernel_mpm", "kernel_parts",
           "linear_kernel", "make_kernel", "polynomial_kernel", "rank_tolerance", "rbf_kernel"]


def linear_kernel(X, Y) -> np.ndarray:
    """x^T y."""
    return np.asarray(X, float) @ np.asarray(Y, float).T


def rbf_kernel(X, Y, gamma: float = 1.0) -> np.ndarray:
    """exp(-gamma ||x - y||^2) (Gaussian; gamma = 1/(2 sigma^2))."""
    return np.exp(-gamma * cdist(np.asarray(X, float), np.asarray(Y, float), "sqeuclidean"))


def polynomial_kernel(X, Y, degree: int = 2, coef0: float = 1.0, scale: float = 1.0) -> np.ndarray:
    """(scale x^T y + coef0)^degree."""
    return (scale * (np.asarray(X, float) @ np.asarray(Y, float).T) + coef0) ** degree


def make_kernel(kernel="rbf", gamma: float | None = None, n_features: int | None = None, **params):
    """A callable ``k(X, Y)`` for a kernel name or callable.

    ``gamma`` (rbf): None -> 1 / n_features (as scikit-learn's 'auto'); must be > 0. ``params`` go to 'poly'.
    """
    if callable(kernel):
        return kernel
    if not isinstance(kernel, str):
        raise InputError(f"kernel must be 'linear', 'rbf' (or 'gaussian'), 'poly' or a callable k(X, Y); got "
                         f"{type(kernel).__name__} {kernel!r:.60}")
    if kernel == "linear":
        return linear_kernel
    if kernel in ("rbf", "gaussian"):
        if gamma is None:
            if n_features is None or isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) \
                    or n_features < 1:
                raise InputError("rbf kernel with gamma=None needs n_features (gamma = 1/n_features)")
            gamma = 1.0 / n_features
        gamma = validate.scalar(gamma, "gamma (rbf kernel width 1/(2 sigma^2))", low=0.0, low_open=True)
        return partial(rbf_kernel, gamma=gamma)
    if kernel in ("poly", "polynomial"):
        unknown = set(params) - {"degree", "coef0", "scale"}
        if unknown:
            raise InputError(f"the 'poly' kernel takes degree, coef0 and scale; got {sorted(unknown)}")
        checked = {}
        if "degree" in params:
            checked["degree"] = validate.integer(params["degree"], "degree (poly kernel)", low=1)
        for name in ("coef0", "scale"):
            if name in params:
                checked[name] = validate.scalar(params[name], f"{name} (poly kernel)")
        return partial(polynomial_kernel, **checked)
    raise InputError(f"kernel must be 'linear', 'rbf' (or 'gaussian'), 'poly' or a callable k(X, Y); got {kernel!r}")


def gram(kernel, X, Y=None, *, psd_tol: float = 1e-8) -> np.ndarray:
    """The Gram matrix ``k(X, Y)`` (``Y=None``: the symmetric training Gram matrix, checked symmetric PSD)."""
    Xa = np.asarray(X, float)
    Ya = Xa if Y is None else np.asarray(Y, float)
    try:
        K = kernel(Xa, Ya)
    except (TypeError, ValueError, IndexError, ArithmeticError, np.linalg.LinAlgError) as exc:
        raise InputError(f"the kernel failed on inputs of shape {Xa.shape}, {Ya.shape}: {exc}") from exc
    K = validate.real_array(K, "the kernel's Gram matrix k(X, Y)")
    if K.shape != (Xa.shape[0], Ya.shape[0]):
        raise InputError(f"the kernel returned shape {K.shape}; expected ({Xa.shape[0]}, {Ya.shape[0]}) "
                         "(k(X, Y) must give one row per row of X, one column per row of Y)")
    if not np.all(np.isfinite(K)):
        raise InputError("the kernel returned NaN or inf")
    if Y is None:
        scale = max(1.0, float(np.max(np.abs(K))))
        if not np.allclose(K, K.T, rtol=0, atol=psd_tol * scale):
            raise InputError("the kernel is not symmetric on the training data (k(x, y) != k(y, x))")
        K = 0.5 * (K + K.T)
    return K


def kernel_parts(K, n1: int):
    """The paper's Sec. 5 quantities from the Gram matrix ``K`` of [class 1; class 0]: ``(l1, l0, L1, L0)``."""
    K = np.asarray(K, float)
    K1, K0 = K[:n1], K[n1:]
    l1, l0 = K1.mean(axis=0), K0.mean(axis=0)
    return l1, l0, (K1 - l1) / np.sqrt(K1.shape[0]), (K0 - l0) / np.sqrt(K0.shape[0])


def kernel_class_moments(X1, X0, kernel="rbf", gamma: float | None = None, *, rank_tol: float = 1e-10,
                         psd_tol: float = 1e-8) -> ClassMoments:
    """Feature-space moments of ``X1`` (class 1) and ``X0`` (class 0) in the coordinates beta (module docstring).

    ``basis`` (m x r) maps beta to gamma; ``radius`` = max_i sqrt(k(x_i, x_i)) (R of Prop. 1 in feature space).
    Raises `InputError` for a kernel that is not PSD on the data (eigenvalue below -psd_tol * lambda_max).
    Cost: one m x m eigendecomposition (m = n1 + n0), so m up to a few thousand.
    """
    X1 = _class(X1, "X1")
    X0 = _class(X0, "X0", cols=X1.shape[1])
    rank_tol = validate.scalar(rank_tol, "rank_tol (relative eigenvalue cut, e.g. 1e-10)", low=0.0, high=1.0,
                               high_open=True)
    psd_tol = validate.scalar(psd_tol, "psd_tol", low=0.0)
    n1, n0 = X1.shape[0], X0.shape[0]
    m = n1 + n0
    k = make_kernel(kernel, gamma, X1.shape[1])
    K = gram(k, np.vstack([X1, X0]), psd_tol=psd_tol)
    row_mean = K.mean(axis=0)
    Kc = K - row_mean[:, None] - row_mean[None, :] + row_mean.mean()  # H K H
    lam, V = np.linalg.eigh(0.5 * (Kc + Kc.T))
    lam_max = max(float(lam[-1]), 0.0)
    _check_psd(K, lam[0], lam_max, psd_tol)
    tol = rank_tolerance(K, lam_max, rank_tol)
    keep = lam > tol
    if not keep.any():
        raise InputError(
            f"the kernel matrix is numerically constant on the training data: its centred spread (largest "
            f"eigenvalue {lam_max:.3g}) is below the rounding level {tol:.3g} of a Gram matrix with entries up to "
            f"{float(np.max(np.abs(K))):.3g}, so no direction carries signal. For the rbf kernel gamma is too small "
            "for the data's distances: increase gamma (e.g. gamma = 1 / (n_features * X.var()), scikit-learn's "
            "'scale'); otherwise check that the features vary")
    U = V[:, keep] / np.sqrt(lam[keep])
    B = U - U.mean(axis=0)  # H U: gamma = B beta, gamma^T K gamma = ||beta||^2
    l1, l0, L1, L0 = kernel_parts(K, n1)
    F1, F0 = L1 @ B, L0 @ B
    r = B.shape[1]
    F1 = _compress(F1, r)
    F0 = _compress(F0, r)
    radius = float(np.sqrt(max(float(np.max(np.diag(K))), 0.0)))
    spread = float(np.clip(lam[~keep], 0, None).sum() / max(lam.clip(0).sum(), 1e-300))
    return ClassMoments(B.T @ l1, B.T @ l0, F1, F0, n1, n0, radius, B, "kernel", rank=r, dropped=int(m - r),
                        dropped_spread=spread, kernel=k, X_train=np.vstack([X1, X0]))


def rank_tolerance(K, lam_max: float, rank_tol: float = 1e-10) -> float:
    """The eigenvalue level below which a direction of the centred Gram matrix ``H K H`` is rounding, not signal.

    ``max(rank_tol * lam_max, m * eps * max_ij |K_ij|)``. The second (absolute) term is derived as numpy's
    ``matrix_rank`` and scipy's ``pinvh`` choose theirs: each computed entry of K carries a relative rounding error
    of a few eps (the kernel evaluation, then the centring subtracts row means of size max|K|), so the computed
    ``H K H`` is the exact one plus E with ``||E||_2 <= ||E||_F <= m * eps * max|K_ij|`` (to a small factor); by
    Weyl's inequality every eigenvalue below ||E||_2 is indistinguishable from 0. The scale is that of the
    UNcentred K, not of ``H K H``: for an rbf kernel with tiny gamma, K is ~ all ones while ``H K H`` is ~ gamma, so
    a tolerance relative to ``lam_max`` alone keeps rounding noise of size eps as signal; its 1/sqrt(lambda)
    coordinates then turn the noise into huge expansion coefficients and a bound the training data refute. The
    first (relative) term is the user's choice of how much weak spread to drop (``rank_tol`` in [0, 1)).
    """
    K = np.asarray(K, float)
    m = K.shape[0]
    return max(float(rank_tol) * max(float(lam_max), 0.0), m * np.finfo(float).eps * float(np.max(np.abs(K))))


def _check_psd(K, lam_min_centred: float, lam_max: float, psd_tol: float) -> None:
    """K must be PSD on the data (Prop. 1 needs a feature map with ||phi(x)|| <= R): the centred spectrum is
    checked from the decomposition at hand, the uncentred K by a Cholesky factorisation with a tiny shift."""
    scale = max(float(np.max(np.abs(np.diag(K)))), lam_max, 1e-300)
    bad = lam_min_centred < -psd_tol * scale
    if not bad:
        try:
            np.linalg.cholesky(K + (psd_tol * scale) * np.eye(K.shape[0]))
        except np.linalg.LinAlgError:
            bad = True
    if bad:
        raise InputError("the kernel is not positive semidefinite on the training data (its Gram matrix has a "
                         "negative eigenvalue beyond round-off); use a valid (Mercer) kernel")


def _compress(F, r: int) -> np.ndarray:
    """An r x r triangular factor with the same F^T F when F has more rows than columns (smaller SOCP)."""
    if F.shape[0] <= r:
        return F
    from scipy.linalg import qr

    return np.triu(qr(F, mode="r", check_finite=False)[0])


def kernel_mpm(X1, X0, kernel="rbf", gamma: float | None = None, rank_tol: float = 1e-10) -> Model:
    """Kernel MPM (Lanckriet et al. 2003 / 004 Sec. 5 with A = 0): min ||L1 gamma|| + ||L0 gamma|| s.t.
    gamma^T (l1 - l0) = 1, in the coordinates beta (variable ``'beta'``); ``model.derived(sol).weights`` = gamma.
    ``model.data.moments.X_train`` holds the stacked training points for prediction."""
    return mpm_from_moments(kernel_class_moments(X1, X0, kernel, gamma, rank_tol=rank_tol), var_name="beta")


def kernel_hp_mpm_problem(X1, X0, kernel="rbf", gamma: float | None = None, delta: float = 0.1, nu: float = 1.0,
                          R: float | None = None, form: str = "eq8", rank_tol: float = 1e-10) -> HPMPMProblem:
    """The kernel HP-MPM (Sec. 5, A_0 typo corrected); R=None: max_i sqrt(k(x_i, x_i)) (1 for the Gaussian)."""
    mom = kernel_class_moments(X1, X0, kernel, gamma, rank_tol=rank_tol)
    return HPMPMProblem(mom, delta, nu, R, form, var_name="beta")


def kernel_hp_mpm(X1, X0, kernel="rbf", gamma: float | None = None, delta: float = 0.1, nu: float = 1.0,
                  R: float | None = None, method: str = "bisection", form: str = "eq8", backend: str | None = None,
                  solver: str | None = None, rank_tol: float = 1e-10, **options) -> HPMPMResult:
    """Fit the kernel HP-MPM; ``result.weights`` = gamma*, predict 1 iff ``k(X, X_train) @ gamma* - b* >= 0``."""
    prob = kernel_hp_mpm_problem(X1, X0, kernel, gamma, delta, nu, R, form, rank_tol)
    return prob.solve(method, backend, solver, **options)
