"""Paper 004 Sec. 5 — kernel MPM and HP-MPM through the representation ``w = sum_i gamma_i phi(x_i)``.

Derivation (docs/derivations/004.md, K1-K4; the class-0 root's ``A_1`` is corrected to ``A_0``, error 3). Stack the
training points class 1 first (m = m1 + m0), K = (k(x_i, x_k)), ``K_j`` the rows of class j. With

    l_j = K_j^T 1 / m_j                        (class row averages: (l_j)_i = mean_{k in j} k(x_k, x_i))
    L_j = (K_j - 1_{m_j} l_j^T) / sqrt(m_j)    (class-centred kernel rows)

any w = sum_i gamma_i phi(x_i) has ``w^T phi_hat_j = gamma^T l_j``, ``w^T Σ̂_j^phi w = ||L_j gamma||^2`` (biased
covariances) and ``||w||^2 = gamma^T K gamma``; the optimal w lies in the span of the phi(x_i) (K1), so the kernel
HP-MPM is ``max kappa`` s.t. ``gamma^T K gamma <= 1`` and ``gamma^T (l_1 - l_0) = sqrt(2A_1 + kappa^2(||L_1
gamma||^2 + A_1)) + sqrt(2A_0 + kappa^2(||L_0 gamma||^2 + A_0))``; predict class 1 iff ``gamma^T k_x - b* >= 0``
(`kernel_parts` computes l_j, L_j from a Gram matrix: the definition the tests and claims check against).

Low-rank coordinates, without the m x m Gram matrix (`pivoted_cholesky`). A greedy pivoted (incomplete) Cholesky
factorisation of K picks pivots S (|S| = r) one at a time, each the point of largest residual diagonal, and evaluates
only the diagonal of K and the columns ``K[:, S]``: O(m r) kernel evaluations and memory, O(m r^2) flops. It gives
the Nyström features G (m x r) with ``K[:, S] = G L^T``, ``L = G[S]`` lower triangular (pivot order), and
``K - G G^T`` PSD (its diagonal is the residual). The weights are restricted to the pivots' span,
``w = sum_{s in S} gamma_s phi(x_s)`` with ``gamma_S = L^{-T} beta``. Then, exactly (no approximation of K enters):

    w^T phi(x_i) = K[i, S] gamma_S = G[i] L^T L^{-T} beta = G[i] beta       for all m training points
    ||w||^2 = gamma_S^T K_SS gamma_S = beta^T L^{-1} (L L^T) L^{-T} beta = ||beta||^2

so the training scores of w are the linear scores of beta on the rows of G: the class means and biased covariances
of the scores are those of G's rows, and the kernel MPM / HP-MPM over this span IS the linear MPM / HP-MPM on the
features G (``||w|| <= 1`` is ``||beta|| <= 1``). Inside span G the coordinates are reduced as `class_moments` reduces
linear features: to the eigenvectors V of the centred scatter ``G^T H G`` (H = I - 11^T/m; its nonzero eigenvalues
are those of ``H G G^T H``, the Nyström ``H K H``) above the rank tolerance, ``beta = V v``, ``||w|| = ||v||``. The
removed directions give (numerically) the same score to every training point: they change no moment, and the MPM's
optimum would be unbounded along them. ``basis = L^{-T} V`` maps v to gamma_S; prediction needs only the pivot
points (``k(X, X_S) @ gamma_S``, ``X_train`` = X_S).

Why the bound stays honest: restricting w to a subspace shrinks the feasible set but changes no moment, because the
moments are those of ALL m training points (every row of G). So every returned (gamma, b, kappa) -- gamma zero off S
-- is a feasible point of the untruncated program above, and its bound 1/(1+kappa^2) is exact for the returned
classifier (the empirical moments of its scores); truncation can only lower kappa* (a larger, still valid bound),
never make the bound optimistic. In floating point G L^T reproduces K[:, S] to the recurrence's backward error
(a few r eps max K_ii); the estimators check the bound on the training scores as prediction computes them.

Stopping rule: stop when the largest residual diagonal is <= `rank_tolerance` ``max(rank_tol * max_i K_ii,
m eps max_i K_ii)`` (the second term the rounding level of K: for PSD K, max|K_ij| = max K_ii) or r = ``max_rank``.
At full numerical rank (``max_rank=None``) the span is that of all the phi(x_i), and the centred reduction keeps the
eigen-directions of ``H K H`` above the same tolerance: the coordinates of an eigendecomposition of the full
centred Gram matrix, at O(m r^2) instead of O(m^3). A smaller ``max_rank`` also regularises the kernel MPM: with
r < m - 2 pivots the class covariances of G need not be singular, where the full-rank Gaussian kernel MPM always
finds a zero-variance direction (kappa* = inf). ``residual_trace`` = trace(K - G G^T) records what was left out.

PSD: only evaluated entries can be checked, and they are: the diagonal is >= 0, every evaluated column satisfies
Cauchy-Schwarz with the diagonal, K_SS is symmetric (a new residual column vanishes on earlier pivots) and every
residual diagonal -- the Schur complement of K_SS in ``K[S+i, S+i]``, for every i -- stays >= 0 beyond round-off.
A kernel failing any of these is not PSD (`InputError`); one that is non-PSD only outside these minors is not seen.

Kernels: ``'linear'`` (x^T y), ``'rbf'`` / ``'gaussian'`` (exp(-gamma ||x - y||^2), gamma = 1/(2 sigma^2); the paper's
exp(-||x - y||^2 / sigma) is gamma = 1/sigma), ``'poly'`` ((scale x^T y + coef0)^degree) or any callable
``k(X, Y) -> (len(X), len(Y))`` Gram matrix.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TypedDict

import numpy as np
from scipy.linalg import qr, solve_triangular
from scipy.spatial.distance import cdist

from certiprog import validation as validate
from certiprog.errors import InputError
from certiprog.formulations.hp_mpm_paper.hp_mpm import HPMPMProblem, HPMPMResult
from certiprog.formulations.hp_mpm_paper.mpm import ClassMoments, _class, mpm_from_moments
from certiprog.model import Model

__all__ = ["KernelMoments", "PivotedCholesky", "gram", "kernel_class_moments", "kernel_diagonal", "kernel_hp_mpm",
           "kernel_hp_mpm_problem", "kernel_mpm", "kernel_parts", "linear_kernel", "make_kernel", "pivoted_cholesky",
           "polynomial_kernel", "rank_tolerance", "rbf_kernel"]


def linear_kernel(X, Y) -> np.ndarray:
    """x^T y."""
    return np.asarray(X, float) @ np.asarray(Y, float).T


def rbf_kernel(X, Y, gamma: float = 1.0) -> np.ndarray:
    """exp(-gamma ||x - y||^2) (Gaussian; gamma = 1/(2 sigma^2))."""
    return np.exp(-gamma * cdist(np.asarray(X, float), np.asarray(Y, float), "sqeuclidean"))


def polynomial_kernel(X, Y, degree: int = 2, coef0: float = 1.0, scale: float = 1.0) -> np.ndarray:
    """(scale x^T y + coef0)^degree."""
    return (scale * (np.asarray(X, float) @ np.asarray(Y, float).T) + coef0) ** degree


class _PolyParams(TypedDict, total=False):
    """The checked keyword arguments of `polynomial_kernel` given to ``make_kernel("poly", ...)``."""

    degree: int
    coef0: float
    scale: float


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
        checked: _PolyParams = {}
        if "degree" in params:
            checked["degree"] = validate.integer(params["degree"], "degree (poly kernel)", low=1)
        if "coef0" in params:
            checked["coef0"] = validate.scalar(params["coef0"], "coef0 (poly kernel)")
        if "scale" in params:
            checked["scale"] = validate.scalar(params["scale"], "scale (poly kernel)")
        return partial(polynomial_kernel, **checked)
    raise InputError(f"kernel must be 'linear', 'rbf' (or 'gaussian'), 'poly' or a callable k(X, Y); got {kernel!r}")


def _evaluate(kernel, Xa: np.ndarray, Ya: np.ndarray) -> np.ndarray:
    """``kernel(Xa, Ya)``, checked: the kernel runs, returns a real finite array of shape (len(Xa), len(Ya))."""
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
    return K


def gram(kernel, X, Y=None, *, psd_tol: float = 1e-8) -> np.ndarray:
    """The Gram matrix ``k(X, Y)`` (``Y=None``: the symmetric training Gram matrix, checked symmetric)."""
    Xa = np.asarray(X, float)
    K = _evaluate(kernel, Xa, Xa if Y is None else np.asarray(Y, float))
    if Y is None:
        scale = max(1.0, float(np.max(np.abs(K))))
        if not np.allclose(K, K.T, rtol=0, atol=psd_tol * scale):
            raise InputError("the kernel is not symmetric on the training data (k(x, y) != k(y, x))")
        K = 0.5 * (K + K.T)
    return K


def kernel_diagonal(kernel, X, *, block: int = 256) -> np.ndarray:
    """``k(x_i, x_i)`` for every row of X without the Gram matrix: closed forms for the built-in kernels, else the
    diagonals of ``block x block`` Gram blocks (m * block evaluations)."""
    X = np.asarray(X, float)
    func = kernel.func if isinstance(kernel, partial) else kernel
    kw = kernel.keywords if isinstance(kernel, partial) else {}
    if func is rbf_kernel:
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X)
    if func is linear_kernel:
        return sq
    if func is polynomial_kernel:
        return (kw.get("scale", 1.0) * sq + kw.get("coef0", 1.0)) ** kw.get("degree", 2)
    return np.concatenate([np.diagonal(_evaluate(kernel, X[i:i + block], X[i:i + block]))
                           for i in range(0, X.shape[0], block)]) if X.shape[0] else np.zeros(0)


def kernel_parts(K, n1: int):
    """The paper's Sec. 5 quantities from the Gram matrix ``K`` of [class 1; class 0]: ``(l1, l0, L1, L0)``."""
    K = np.asarray(K, float)
    K1, K0 = K[:n1], K[n1:]
    l1, l0 = K1.mean(axis=0), K0.mean(axis=0)
    return l1, l0, (K1 - l1) / np.sqrt(K1.shape[0]), (K0 - l0) / np.sqrt(K0.shape[0])


def rank_tolerance(max_diag: float, m: int, reference: float, rank_tol: float = 1e-10) -> float:
    """The level below which a residual diagonal of K, or an eigenvalue of the centred ``G^T H G``, is rounding.

    ``max(rank_tol * reference, m * eps * max_diag)``; ``reference`` is ``max_diag`` for the Cholesky's residual
    diagonal and the largest centred eigenvalue for the centred reduction. The second (absolute) term is derived as
    numpy's ``matrix_rank`` and scipy's ``pinvh`` choose theirs: each computed entry of K carries a relative rounding
    error of a few eps, so the computed K (and ``H K H``, ``K - G G^T``) is the exact one plus E with ``||E||_2 <=
    ||E||_F <= m eps max|K_ij|`` (to a small factor), and max|K_ij| = max_i K_ii for a PSD K; by Weyl's inequality
    every eigenvalue (or residual diagonal) below ||E||_2 is indistinguishable from 0. The scale is that of the
    UNcentred K: for an rbf kernel with tiny gamma, K is ~ all ones while ``H K H`` is ~ gamma, so a cut relative to
    the centred spread alone keeps rounding noise of size eps as signal, and the coordinates then turn the noise into
    huge expansion coefficients and a bound the training data refute. The first (relative) term is the user's choice
    of how much weak spread to drop (``rank_tol`` in [0, 1)).
    """
    return max(float(rank_tol) * max(float(reference), 0.0), m * np.finfo(float).eps * max(float(max_diag), 0.0))


@dataclass(frozen=True, eq=False)
class PivotedCholesky:
    """``K ≈ G G^T`` from `pivoted_cholesky` (module docstring).

    ``G`` (m x r) Nyström features, ``K[:, pivots] = G L^T`` with ``L = G[pivots]`` lower triangular;
    ``pivot_values`` (r,) the residual diagonal at each pivot when chosen (= L_jj^2, the largest residual then:
    non-increasing); ``residual_traces`` (r + 1,) trace(K - G[:, :j] G[:, :j]^T) for j = 0..r; ``residual_max`` the
    largest residual diagonal after r steps; ``max_diag`` = max_i K_ii; ``tol`` the stopping level used.
    """

    G: np.ndarray
    pivots: np.ndarray
    pivot_values: np.ndarray
    residual_traces: np.ndarray
    residual_max: float
    max_diag: float
    tol: float

    @property
    def rank(self) -> int:
        return int(self.pivots.size)

    @property
    def L(self) -> np.ndarray:
        return self.G[self.pivots]

    @property
    def residual_trace(self) -> float:
        return float(self.residual_traces[-1])

    def truncated(self, rank_tol: float | None = None, max_rank: int | None = None) -> "PivotedCholesky":
        """The factorisation that a larger ``rank_tol`` (same rounding floor) or a smaller ``max_rank`` would have
        stopped at: a prefix of this one, since the greedy pivots do not depend on when the loop stops."""
        r = self.rank
        if rank_tol is not None:
            tol = max(rank_tolerance(self.max_diag, self.G.shape[0], self.max_diag, rank_tol), self.tol)
            r = int(np.sum(self.pivot_values > tol))  # non-increasing: a prefix
        else:
            tol = self.tol
        if max_rank is not None:
            r = min(r, int(max_rank))
        if r == self.rank:
            return self
        return PivotedCholesky(self.G[:, :r], self.pivots[:r], self.pivot_values[:r], self.residual_traces[:r + 1],
                               float(self.pivot_values[r]), self.max_diag, tol)


def pivoted_cholesky(kernel, X, *, rank_tol: float = 1e-10, max_rank: int | None = None,
                     psd_tol: float = 1e-8) -> PivotedCholesky:
    """Greedy pivoted (incomplete) Cholesky factorisation of ``K = k(X, X)``, one kernel column per step.

    Step j: pivot p = argmax of the residual diagonal d; stop if ``d_p <= rank_tolerance(max K_ii, m, max K_ii,
    rank_tol)`` or j = ``max_rank``; else evaluate the column ``k(X, x_p)``, ``g = (K[:, p] - G[:, :j] G[p, :j]) /
    sqrt(d_p)``, ``d -= g^2``. Only the diagonal and the r chosen columns of K are evaluated (no m x m array), and the
    PSD checks of the module docstring run on them (`InputError` for a kernel that fails). scipy's LAPACK ``?pstrf``
    needs the whole matrix and scikit-learn's ``Nystroem`` samples its landmarks at random, hence this loop.
    """
    X = np.asarray(X, float)
    m = X.shape[0]
    rank_tol = validate.scalar(rank_tol, "rank_tol (relative cut of the residual diagonal, e.g. 1e-10)", low=0.0,
                               high=1.0, high_open=True)
    psd_tol = validate.scalar(psd_tol, "psd_tol", low=0.0)
    max_rank = m if max_rank is None else min(validate.integer(max_rank, "max_rank (largest kernel rank kept)",
                                                               low=1), m)
    d = kernel_diagonal(kernel, X)
    if d.shape != (m,) or not np.all(np.isfinite(d)):
        raise InputError("the kernel's diagonal k(x_i, x_i) is not finite")
    max_diag = float(np.max(d)) if m else 0.0
    slack = psd_tol * max(max_diag, np.finfo(float).tiny)
    if m and float(np.min(d)) < -slack:
        raise _not_psd("k(x, x) < 0 for a training point")
    d = np.clip(d, 0.0, None)
    diag = d.copy()
    tol = rank_tolerance(max_diag, m, max_diag, rank_tol)
    cap = max(min(max_rank, 256 if max_rank == m else max_rank), 1)  # no limit given: grow by doubling
    G = np.zeros((m, cap), order="F")
    pivots: list[int] = []
    values: list[float] = []
    traces = [float(d.sum())]
    for j in range(max_rank):
        p = int(np.argmax(d))
        dp = float(d[p])
        if dp <= tol and j > 0:
            break
        col = _evaluate(kernel, X, X[p:p + 1])[:, 0]
        if np.any(np.abs(col) > np.sqrt(diag * diag[p]) * (1 + psd_tol) + slack):
            raise _not_psd("|k(x, y)| > sqrt(k(x, x) k(y, y)) for two training points")
        if dp <= tol:  # j == 0: the first column was checked; nothing above the rounding level
            break
        if j == cap:
            cap = min(2 * cap, max_rank)
            G = np.asfortranarray(np.hstack([G, np.zeros((m, cap - j))]))
        res = col - G[:, :j] @ G[p, :j]
        earlier = np.asarray(pivots, dtype=np.intp)
        if j and np.max(np.abs(res[earlier])) > slack + 8 * (j + 1) * np.finfo(float).eps * max_diag:
            raise InputError("the kernel is not symmetric on the training data (k(x, y) != k(y, x))")
        g = res / np.sqrt(dp)
        g[earlier] = 0.0
        G[:, j] = g
        d -= g * g
        if float(np.min(d)) < -slack - 8 * (j + 1) * np.finfo(float).eps * max_diag:
            raise _not_psd("a Schur complement of the evaluated Gram matrix is negative")
        d[p] = 0.0
        np.clip(d, 0.0, None, out=d)
        pivots.append(p)
        values.append(dp)
        traces.append(float(d.sum()))
    r = len(pivots)
    return PivotedCholesky(np.ascontiguousarray(G[:, :r]), np.asarray(pivots, dtype=np.intp), np.asarray(values),
                           np.asarray(traces), float(np.max(d)) if m else 0.0, max_diag, tol)


def _not_psd(why: str) -> InputError:
    return InputError(f"the kernel is not positive semidefinite on the training data ({why}); use a valid "
                      "(Mercer) kernel")


@dataclass(frozen=True, eq=False)
class KernelMoments(ClassMoments):
    """`ClassMoments` of the kernel MPM in the low-rank coordinates (module docstring), plus how they were built:
    ``pivots`` (indices into [X1; X0] of the points ``X_train`` that ``basis`` expands over), ``residual_trace``
    (trace(K - G G^T), the part of K left out) and ``kernel_trace`` (trace K)."""

    pivots: np.ndarray | None = None
    residual_trace: float = 0.0
    kernel_trace: float = 0.0

    @property
    def n_pivots(self) -> int:
        return 0 if self.pivots is None else int(self.pivots.size)


def kernel_class_moments(X1, X0, kernel="rbf", gamma: float | None = None, *, rank_tol: float = 1e-10,
                         max_rank: int | None = None, psd_tol: float = 1e-8,
                         factor: PivotedCholesky | None = None) -> KernelMoments:
    """Feature-space moments of ``X1`` (class 1) and ``X0`` (class 0) in the low-rank coordinates v (module docstring).

    ``max_rank``: at most this many pivots (None: up to m, the full numerical rank at ``rank_tol``). ``basis``
    (r x p) maps v to gamma over the pivot points ``X_train``; ``radius`` = max_i sqrt(k(x_i, x_i)) (R of Prop. 1 in
    feature space); ``rank`` = p coordinates, ``dropped`` = m - p, ``dropped_spread`` an upper bound on the share of
    the centred spread left out. ``factor``: a `pivoted_cholesky` of ``vstack([X1, X0])`` with this kernel at a
    ``rank_tol`` no larger than this one, reused (truncated) instead of recomputed (the estimators' refits).
    Cost: O(m r) kernel evaluations and memory, O(m r^2) flops; never an m x m array.
    """
    X1 = _class(X1, "X1")
    X0 = _class(X0, "X0", cols=X1.shape[1])
    rank_tol = validate.scalar(rank_tol, "rank_tol (relative cut, e.g. 1e-10)", low=0.0, high=1.0, high_open=True)
    if max_rank is not None:
        max_rank = validate.integer(max_rank, "max_rank (largest kernel rank kept)", low=1)
    n1, n0 = X1.shape[0], X0.shape[0]
    m = n1 + n0
    k = make_kernel(kernel, gamma, X1.shape[1])
    X = np.vstack([X1, X0])
    if factor is None:
        factor = pivoted_cholesky(k, X, rank_tol=rank_tol, max_rank=max_rank, psd_tol=psd_tol)
    else:
        if not isinstance(factor, PivotedCholesky) or factor.G.shape[0] != m:
            raise InputError(f"factor must be a PivotedCholesky of the {m} stacked training points")
        factor = factor.truncated(rank_tol, max_rank)
    G, S = factor.G, factor.pivots
    G1, G0 = G[:n1], G[n1:]
    g1, g0 = G1.mean(axis=0), G0.mean(axis=0)
    R1, R0 = _compress(G1 - g1), _compress(G0 - g0)  # R_j^T R_j = n_j Σ̂_j (class scatter of the features)
    C = G - G.mean(axis=0)
    lam, V = np.linalg.eigh(C.T @ C)  # G^T H G: its spectrum is the nonzero one of H G G^T H (the Nyström H K H)
    lam_max = max(float(lam[-1]), 0.0) if lam.size else 0.0
    tol = rank_tolerance(factor.max_diag, m, lam_max, rank_tol)
    keep = lam > tol
    if not keep.any():
        raise InputError(
            f"the kernel matrix is numerically constant on the training data: its centred spread (largest "
            f"eigenvalue {lam_max:.3g}) is below the rounding level {tol:.3g} of a Gram matrix with entries up to "
            f"{factor.max_diag:.3g}, so no direction carries signal. For the rbf kernel gamma is too small "
            "for the data's distances: increase gamma (e.g. gamma = 1 / (n_features * X.var()), scikit-learn's "
            "'scale'); otherwise check that the features vary")
    V = V[:, keep]
    p = V.shape[1]
    F1 = _compress(R1 @ V / np.sqrt(n1))  # ||F_j v||^2 = v^T V^T Σ̂_j(G) V v: the biased class covariances
    F0 = _compress(R0 @ V / np.sqrt(n0))
    basis = solve_triangular(factor.L, V, trans="T", lower=True, check_finite=False)  # gamma_S = L^{-T} V v
    left = factor.residual_trace + float(np.clip(lam[~keep], 0, None).sum())
    spread = left / max(float(np.clip(lam, 0, None).sum()) + factor.residual_trace, 1e-300)
    return KernelMoments(g1 @ V, g0 @ V, F1, F0, n1, n0, float(np.sqrt(max(factor.max_diag, 0.0))), basis, "kernel",
                         rank=p, dropped=int(m - p), dropped_spread=float(spread), kernel=k, X_train=X[S],
                         pivots=S, residual_trace=factor.residual_trace, kernel_trace=float(factor.residual_traces[0]))


def _compress(F) -> np.ndarray:
    """An upper-triangular factor with the same ``F^T F`` and at most as many rows as columns (QR's R; F itself
    when it has no more rows than columns): a smaller SOCP, and no squaring of F's condition number."""
    if F.shape[0] <= F.shape[1]:
        return F
    return np.triu(qr(F, mode="r", check_finite=False)[0][:F.shape[1]])  # mode="r" returns R as (rows, cols)


def kernel_mpm(X1, X0, kernel="rbf", gamma: float | None = None, rank_tol: float = 1e-10,
               max_rank: int | None = None) -> Model:
    """Kernel MPM (Lanckriet et al. 2003 / 004 Sec. 5 with A = 0): min ||L1 gamma|| + ||L0 gamma|| s.t.
    gamma^T (l1 - l0) = 1 over w in the span of at most ``max_rank`` pivot points, in the coordinates v (variable
    ``'beta'``); ``model.derived(sol).weights`` = gamma over ``model.data.moments.X_train`` (the pivot points)."""
    return mpm_from_moments(kernel_class_moments(X1, X0, kernel, gamma, rank_tol=rank_tol, max_rank=max_rank),
                            var_name="beta")


def kernel_hp_mpm_problem(X1, X0, kernel="rbf", gamma: float | None = None, delta: float = 0.1, nu: float = 1.0,
                          R: float | None = None, form: str = "eq8", rank_tol: float = 1e-10,
                          max_rank: int | None = None) -> HPMPMProblem:
    """The kernel HP-MPM (Sec. 5, A_0 typo corrected); R=None: max_i sqrt(k(x_i, x_i)) (1 for the Gaussian).
    ``prob.moments.X_train`` holds the pivot points that the weights (gamma) expand over."""
    mom = kernel_class_moments(X1, X0, kernel, gamma, rank_tol=rank_tol, max_rank=max_rank)
    return HPMPMProblem(mom, delta, nu, R, form, var_name="beta")


def kernel_hp_mpm(X1, X0, kernel="rbf", gamma: float | None = None, delta: float = 0.1, nu: float = 1.0,
                  R: float | None = None, method: str = "bisection", form: str = "eq8", backend: str | None = None,
                  solver: str | None = None, rank_tol: float = 1e-10, max_rank: int | None = None,
                  **options) -> HPMPMResult:
    """Fit the kernel HP-MPM; ``result.weights`` = gamma* over the pivot points (``kernel_hp_mpm_problem(...)
    .moments.X_train``); predict 1 iff ``k(X, X_pivots) @ gamma* - b* >= 0``."""
    prob = kernel_hp_mpm_problem(X1, X0, kernel, gamma, delta, nu, R, form, rank_tol, max_rank)
    return prob.solve(method, backend, solver, **options)
