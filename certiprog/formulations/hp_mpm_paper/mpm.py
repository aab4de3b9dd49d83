"""Paper 004 — the Minimax Probability Machine (Lanckriet et al. 2003) as used by Cousins & Shawe-Taylor.

Derivation and checks: ``docs/derivations/004.md`` (Sec. 1.1). Class 1 is predicted iff ``w^T x >= b``.

Moments are the sample means and the BIASED (1/m) sample covariances (004 Sec. 3)::

    x̂_j = (1/m_j) sum_k x_k,     Σ_j = (1/m_j) sum_k (x_k - x̂_j)(x_k - x̂_j)^T

Program (3), an SOCP in ``w`` only (no bias inside the program)::

    kappa*^{-1} = min_w  ||Σ1^{1/2} w|| + ||Σ0^{1/2} w||    s.t.  w^T (x̂1 - x̂0) = 1       (3)

written with factors ``F_j`` of `ClassMoments` (``F_j^T F_j = Σ_j``, so ``||Σ_j^{1/2} w|| = ||F_j w||``; a singular
covariance is fine). Afterwards (eqs. 4–5)::

    b*          = w*^T x̂1 - kappa* sqrt(w*^T Σ1 w*)   ( = w*^T x̂0 + kappa* sqrt(w*^T Σ0 w*) )
    1 - alpha*  = 1 / (1 + kappa*^2)                   (worst-case misclassification bound)

When ``x̂1 == x̂0`` the normalisation ``w^T (x̂1 - x̂0) = 1`` reads ``0 = 1``: the program is infeasible and
the solve says so (status ``infeasible``); Theorem 2 of 004 gives kappa* = 0, worst-case error 1 there.

`ClassMoments` holds the same moments in *coordinates* ``v`` in which ``||w|| = ||v||`` and the classifier's
weights are ``basis @ v``: feature weights for the linear MPM (`class_moments`), the expansion coefficients
gamma of ``w = sum_i gamma_i phi(x_i)`` for the kernel MPM (`certiprog.formulations.hp_mpm_paper.kernels`). The MPM
(`mpm_from_moments`) and the HP-MPM (`certiprog.formulations.hp_mpm_paper.hp_mpm`) are written once on that form.

On data whose centred points do not span R^d (constant features, one-hot groups, fewer points than features) `mpm`
pins the directions without spread (constraint ``'null_space'``, `data_span`), which keeps the rounded program well
posed and certifiable without changing its optimum.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from certiprog import validation as validate
from certiprog.errors import InputError
from certiprog.model import Model, Record, Variable, minimize, norm2, psd_factor
from certiprog.solvers.structured import StructuredAnswer

__all__ = ["ClassMoments", "MPMData", "MPMSolution", "SampleMoments", "class_moments", "data_radius", "data_span",
           "feature_sizes", "mpm", "mpm_from_moments", "mpm_moments", "psd_triangular_factor", "worst_case_errors"]


# Relative eigenvalue cut of the equilibrated total scatter below which a direction carries no spread (`data_span`).
RANK_TOL = 1e-12
# A feature whose root-mean-square centred value is at most this many unit roundoffs of its largest |entry| is
# constant: its centred values are the rounding of the mean (`data_span`).
CONSTANT_ULPS = 64


def _class(X, name: str, cols: int | None = None) -> np.ndarray:
    X = validate.squares_representable(validate.matrix(X, name, min_rows=1, cols=cols), name)
    if X.shape[1] < 1:
        raise InputError(f"{name} has 0 columns; at least one feature is needed")
    if X.shape[0] < 2:
        raise InputError(
            f"{name} has a single sample: its covariance is undefined (the MPM needs >= 2 samples per class)"
        )
    return X


@dataclass(frozen=True, eq=False)
class SampleMoments(Record):
    """Sample means and biased (1/m) covariances of class 1 and class 0 (`mpm_moments`)."""

    mu1: np.ndarray
    Sigma1: np.ndarray
    mu0: np.ndarray
    Sigma0: np.ndarray
    n1: int
    n0: int


def mpm_moments(X1, X0) -> SampleMoments:
    """Sample means and biased (1/m) covariances of class 1 (``X1``) and class 0 (``X0``), a `SampleMoments`;
    each class needs >= 2 rows, both the same columns."""
    X1 = _class(X1, "X1")
    X0 = _class(X0, "X0", cols=X1.shape[1])
    out = {}
    for j, X in (("1", X1), ("0", X0)):
        mu = X.mean(axis=0)
        Xc = X - mu
        S = Xc.T @ Xc / X.shape[0]
        out["mu" + j] = mu
        out["Sigma" + j] = 0.5 * (S + S.T)
        out["n" + j] = X.shape[0]
    return SampleMoments(**out)


@dataclass(frozen=True, eq=False)
class MPMSolution(Record):
    """Eqs. (4)-(5) at a solution of (3) (``model.derived(sol)`` of `mpm`, `mpm_from_moments`, `kernel_mpm`).

    ``v`` (the coordinates), ``weights`` (= basis @ v: the feature weights, or the kernel expansion gamma), ``w``
    (= ``weights``, the paper's name),
    ``b`` (eq. 4, class-1 form), ``b_from_class0`` (class-0 form, equal up to solver tolerance), ``kappa``
    (= 1/objective, ``inf`` when both projected variances vanish), ``alpha`` = kappa²/(1+kappa²),
    ``worst_case_error`` = 1 - alpha = 1/(1+kappa²) (eq. 5), ``objective`` (recomputed from v), ``sqrt_wSw1``,
    ``sqrt_wSw0``. Predict class 1 iff ``features @ weights - b >= 0`` (``coef`` = weights, ``intercept`` = -b).
    `mpm` (from samples) also gives the sample moments ``mu1``, ``mu0``, ``Sigma1``, ``Sigma0`` (else None).
    """

    v: np.ndarray
    weights: np.ndarray
    w: np.ndarray
    b: float
    b_from_class0: float
    kappa: float
    alpha: float
    worst_case_error: float
    objective: float
    sqrt_wSw1: float
    sqrt_wSw0: float
    mu1: np.ndarray | None = None
    mu0: np.ndarray | None = None
    Sigma1: np.ndarray | None = None
    Sigma0: np.ndarray | None = None

    @property
    def coef(self) -> np.ndarray:
        return self.weights

    @property
    def intercept(self) -> float:
        return -self.b


def _mpm_solution(v, weights, m1: float, m0: float, s1: float, s0: float, **moments) -> MPMSolution:
    """eqs. (4)-(5) from a solution ``v`` of (3), its projected means ``m_j = v^T mu_j`` and standard deviations."""
    s = s1 + s0  # = kappa*^{-1}, recomputed from v (equal to the objective up to solver tolerance)
    if s > 0:
        kappa = 1.0 / s
        b = m1 - s1 / s          # = w^T x̂1 - kappa s1
        b0 = m0 + s0 / s         # = w^T x̂0 + kappa s0
        wce = s * s / (1.0 + s * s)  # 1/(1+kappa^2), stable for large kappa
    else:  # both projected variances vanish: perfect separation, any b in [w^T x̂0, w^T x̂1]
        kappa, b = np.inf, 0.5 * (m1 + m0)
        b0, wce = b, 0.0
    return MPMSolution(v=v, weights=weights, w=weights, b=float(b), b_from_class0=float(b0), kappa=float(kappa),
                       alpha=float(1.0 - wce), worst_case_error=float(wce), objective=float(s), sqrt_wSw1=float(s1),
                       sqrt_wSw0=float(s0), **moments)


def mpm(X1, X0, *, rank_tol: float = RANK_TOL) -> Model:
    """004 eq. (3): the MPM from samples ``X1`` (class 1, n1 x d) and ``X0`` (class 0, n0 x d).

    `mpm_from_moments` on the samples' moments in feature coordinates: variable ``w`` (d), constraint
    ``'normalization'`` (``w^T (x̂1 - x̂0) == 1``), objective ``norm2(F1 w) + norm2(F0 w)`` (= kappa*^{-1}) with the
    eigen roots ``F_j = psd_factor(Σ_j)^T`` (better scaled for the solvers than triangular factors when the data are
    large, e.g. X * 1e8). ``model.data`` is an `MPMData` (with the sample moments); ``model.derived(sol)`` an
    `MPMSolution` with ``w`` and the moments.

    When the centred data do not span R^d (constant features, one-hot groups whose sum is constant, fewer points
    than features) the model also has the constraint ``'null_space'``: ``N^T w == 0`` (rows scaled by ``||x̂1 -
    x̂0||``, as large as the normalisation's: the same set, better conditioned), N an orthonormal basis of the
    directions without spread (`data_span` with ``scale_free=True``, as ``class_moments(X1, X0, rank_tol=rank_tol,
    scale_free=True)`` cuts them: relative to each feature's own spread, since (3) is invariant under feature
    scaling). Raw Adult: 10 of 108 (the 8 one-hot groups' sums, education-num as a function of the education levels,
    occupation '?' = workclass '?' + 'Never-worked'), where the default relative cut of `class_moments` drops 58.
    There both covariances vanish and ``x̂1 - x̂0`` is orthogonal to N in exact arithmetic, so a component of w in N
    changes neither the objective nor the normalisation: the pinned program has the same optimum as (3) (checked in
    the registry under 004-T2a against the design with the redundant columns deleted and the reduced-coordinate
    program). Without the pin the rounded program is ill-posed (a free direction that the rounding of ``x̂1 - x̂0``
    tilts; with a constant feature at X * 1e8 it even has feasible points below (3)'s optimum) and certiprog's
    certificate cannot confirm it ('unconfirmed' on raw Adult). Full-rank data get no pin (the model is (3) as
    written). Cost of the check: one d x d eigendecomposition.
    """
    rank_tol = validate.scalar(rank_tol, "rank_tol (relative eigenvalue cut, e.g. 1e-12)", low=0.0, high=1.0,
                               high_open=True)
    X1 = _class(X1, "X1")
    X0 = _class(X0, "X0", cols=X1.shape[1])
    sample = mpm_moments(X1, X0)
    d = X1.shape[1]
    radius = data_radius(X1, X0)
    mom = ClassMoments(sample.mu1, sample.mu0, psd_factor(sample.Sigma1, "Sigma1 (class-1 covariance)").T,
                       psd_factor(sample.Sigma0, "Sigma0 (class-0 covariance)").T, sample.n1, sample.n0, radius,
                       np.eye(d), "linear", rank=d)
    try:
        span, null = data_span(sample.n1 * sample.Sigma1, sample.n0 * sample.Sigma0, sample.n1, sample.n0,
                               sample.mu1 - sample.mu0, feature_sizes(X1, X0), rank_tol, scale_free=True)
    except InputError:  # no spread at all, the means equal up to rounding: (3) reads 0 = 1 (status infeasible)
        null = np.zeros((d, 0))
    model = mpm_from_moments(mom, var_name="w")
    if null.shape[1]:
        # rows as large as the normalisation's (the same constraint): at X * 1e8 unit rows leave the certificate's
        # lower end 1e-5 loose (17 points in R^30), scaled ones 1e-11
        pin_scale = float(np.linalg.norm(mom.dmu)) or 1.0
        model.add((pin_scale * null).T @ model.variable("w") == 0.0, name="null_space")
        model.data = MPMData(mom, "w", sample, span=span, null=null, pin_scale=pin_scale)
    else:
        model.data = MPMData(mom, "w", sample)
    model.name = "mpm"
    return model


# ----------------------------------------------------------------------------------------------
# The coordinate form shared by the linear and kernel MPM / HP-MPM
# ----------------------------------------------------------------------------------------------
# Relative size of mu1 - mu0 below which the class means are taken to coincide (`ClassMoments.means_coincide`).
MEANS_RTOL = 1e-12


@dataclass(frozen=True)
class ClassMoments:
    """Both classes' empirical moments in coordinates ``v`` with ``||w|| = ||v||``.

    ``mu1``, ``mu0`` (p,): ``v @ mu_j = w^T x̂_j`` (or ``w^T phi_hat_j``). ``F1`` (k1 x p), ``F0``: ``||F_j v||^2 =
    w^T Σ̂_j w`` (biased covariances). ``basis`` (D x p): the classifier's weights are ``basis @ v`` -- feature weights
    (``kind='linear'``, D = d) or the gamma of ``w = sum_i gamma_i phi(x_i)`` over the training points stacked class 1
    first (``kind='kernel'``, D = m). ``radius``: max_i ||x_i|| (feature-space norm for kernels), the default R of 004
    Prop. 1. How the coordinates were built: ``rank`` (coordinates kept), ``dropped`` (directions cut),
    ``dropped_spread`` (their share of the spread, kernels); kernels also keep the ``kernel`` function and the stacked
    training points ``X_train`` (class 1 first) that prediction needs.
    """

    mu1: np.ndarray
    mu0: np.ndarray
    F1: np.ndarray
    F0: np.ndarray
    n1: int
    n0: int
    radius: float
    basis: np.ndarray
    kind: str = "linear"
    rank: int = 0
    dropped: int = 0
    dropped_spread: float = 0.0
    kernel: object = None
    X_train: np.ndarray | None = None

    @property
    def p(self) -> int:
        """Number of coordinates."""
        return int(self.mu1.size)

    @property
    def dmu(self) -> np.ndarray:
        return self.mu1 - self.mu0

    @property
    def means_coincide(self) -> bool:
        """``mu1 - mu0`` is 0 up to 1e-12 of the means' size (equal sample means leave only rounding there): then
        (3)'s normalisation reads 0 = 1 and Thm 2 gives kappa* = 0. Solving the rounded program would return a
        meaningless kappa ~ 1e-16 instead."""
        size = float(max(np.abs(self.mu1).max(initial=0.0), np.abs(self.mu0).max(initial=0.0)))
        return float(np.linalg.norm(self.dmu)) <= MEANS_RTOL * size

    def variances(self, v) -> tuple[float, float]:
        """``(w^T Σ̂1 w, w^T Σ̂0 w)`` for the coordinates ``v``."""
        v = np.asarray(v, float).reshape(-1)
        f1, f0 = self.F1 @ v, self.F0 @ v
        return float(f1 @ f1), float(f0 @ f0)

    @classmethod
    def from_moments(cls, mu1, Sigma1, n1: int, mu0, Sigma0, n0: int, radius: float) -> "ClassMoments":
        """Given means, biased covariances, class sizes and the support radius (coordinates = features)."""
        mu1 = validate.vector(mu1, "mu1")
        d = mu1.size
        mu0 = validate.vector(mu0, "mu0", size=d)
        S1 = validate.covariance(Sigma1, "Sigma1", d)
        S0 = validate.covariance(Sigma0, "Sigma0", d)
        for name, n in (("n1", n1), ("n0", n0)):
            if int(n) != n or n < 2:
                raise InputError(f"{name} must be an integer >= 2 (the class size); got {n!r}")
        radius = validate.scalar(radius, "radius", low=0.0)
        return cls(mu1, mu0, psd_triangular_factor(S1), psd_triangular_factor(S0), int(n1), int(n0), radius,
                   np.eye(d), "linear", rank=d)


def psd_triangular_factor(S) -> np.ndarray:
    """An upper-triangular ``F`` with ``F^T F = S`` for a symmetric PSD ``S`` (eigenvalues clipped at 0).

    Built from the eigendecomposition (exact for singular ``S``) and compressed by QR, so that an SOCP written with
    ``norm2(F @ v)`` has half the nonzeros of the dense symmetric root.
    """
    lam, V = np.linalg.eigh(0.5 * (S + S.T))
    root = (V * np.sqrt(np.clip(lam, 0.0, None))).T  # root^T root = S
    return np.triu(sla.qr(root, mode="r", check_finite=False)[0])


def data_span(S1, S0, n1: int, n0: int, dmu, size, rank_tol: float = RANK_TOL, *,
              scale_free: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(basis, null)``: orthonormal bases (d x r, d x (d - r)) of the span of the centred training data and of its
    complement; ``(I, d x 0)`` when nothing is cut.

    ``S_j = C_j^T C_j`` the within-class scatter of class j (``C_j`` its n_j centred rows), ``dmu = x̂1 - x̂0``,
    ``size`` (d,) each feature's largest |entry|. The span is the range of the total scatter ``T = S1 + S0 + (n1 n0
    / n) dmu dmu^T`` (every centred point and the mean difference lie in it): a weight component u in its complement
    changes no moment (``C_j u = 0``, ``dmu^T u = 0``). Two cuts of T's small eigenvalues:

    * ``scale_free=False`` (`class_moments`' coordinates for the MPM and the HP-MPM): the eigenvectors of T with
      eigenvalue <= ``rank_tol`` times the largest. Directions with little spread next to a large feature go too
      (raw Adult: 58 of 108 at 1e-12, 48 of them rare one-hot levels beside fnlwgt ~ 1e5), which keeps the HP-MPM's
      coordinates well conditioned but is not (3)'s null space: the MPM is invariant under feature scaling
      (``x -> D x``, ``w -> D^{-1} w``), so a small-spread direction can carry its optimum (raw Adult: kappa*^{-1}
      1.09240 in those 50 coordinates against 1.08866 in the full span, the value standardised data give).
    * ``scale_free=True`` (`mpm`'s null-space pin): the null space as (3) sees it, cut invariantly under feature
      scaling. A feature whose spread is rounding (root-mean-square centred value <= `CONSTANT_ULPS` eps
      ``size_j``: the centred values of a constant column) gives ``e_j``; the others are equilibrated (``E = D T D``,
      ``D = diag(T)^{-1/2}``, so null(T) = D null(E)) and the eigenvectors of E with eigenvalue <= ``rank_tol``
      times its largest, mapped back by D, are orthonormalised (QR); the span is their complement.

    Raises InputError when nothing has spread. Cost: one d x d eigendecomposition (and a d x d QR).
    """
    d = dmu.size
    total = S1 + S0 + (n1 * n0 / (n1 + n0)) * np.outer(dmu, dmu)
    total = 0.5 * (total + total.T)
    if scale_free:
        diag = np.clip(np.diag(total), 0.0, None)
        live = np.sqrt(diag) > CONSTANT_ULPS * np.finfo(float).eps * np.sqrt(n1 + n0) * size
        largest = float(diag.max(initial=0.0))
    else:
        lam, V = np.linalg.eigh(total)
        live = lam > rank_tol * max(lam[-1], 0.0) if lam[-1] > 0 else np.zeros(d, bool)
        largest = max(float(lam[-1]), 0.0)
    if not live.any():
        raise InputError(f"the training data have no spread at this scale (largest |x| = {np.max(size):.3g}; the "
                         f"scatter is {largest:.3g}): constant features, or entries so small that their squares "
                         "underflow. Rescale X1, X0 (e.g. standardise the features)")
    if not scale_free:
        return (np.eye(d), np.zeros((d, 0))) if live.all() else (V[:, live], V[:, ~live])
    idx = np.flatnonzero(live)
    D = 1.0 / np.sqrt(diag[idx])
    E = total[np.ix_(idx, idx)] * np.outer(D, D)
    lam, V = np.linalg.eigh(0.5 * (E + E.T))
    cut = lam <= rank_tol * max(lam[-1], 0.0)
    if live.all() and not cut.any():
        return np.eye(d), np.zeros((d, 0))
    constant = np.flatnonzero(~live)
    null = np.zeros((d, constant.size + int(cut.sum())))
    null[constant, np.arange(constant.size)] = 1.0
    null[idx, constant.size:] = D[:, None] * V[:, cut]
    Q = np.linalg.qr(null, mode="complete")[0]
    k = null.shape[1]
    return Q[:, k:], Q[:, :k]



def data_radius(X1, X0) -> float:
    """max_i ||x_i|| over both classes (about the origin, uncentred): 004 Prop. 1's default support radius R."""
    return float(np.sqrt(max(np.max(np.einsum("ij,ij->i", X1, X1)), np.max(np.einsum("ij,ij->i", X0, X0)))))


def feature_sizes(X1, X0) -> np.ndarray:
    """Each feature's largest |entry| over both classes (`data_span`'s rounding scale)."""
    return np.maximum(np.abs(X1).max(axis=0), np.abs(X0).max(axis=0))


def class_moments(X1, X0, *, reduce: bool = True, rank_tol: float = RANK_TOL,
                  scale_free: bool = False) -> ClassMoments:
    """Moments of ``X1`` (class 1) and ``X0`` (class 0) in coordinates for the linear MPM / HP-MPM.

    ``reduce=True``: when the centred data do not span R^d (constant features, one-hot groups, fewer samples than
    features) the coordinates are an orthonormal basis of their span (`data_span`: the range of the total scatter,
    eigenvalues above ``rank_tol`` times the largest; ``scale_free=True``: the cut `mpm`'s null-space pin uses, the
    same relative to each feature's own spread); a weight component outside the span changes no moment, so the MPM
    optimum is unique there and the HP-MPM optimum lies there anyway (004 Sec. 5, K1). Otherwise ``basis`` is the
    identity.
    Cost: two d x d Gram products (BLAS) and three d x d eigendecompositions, so n = 50 000, d = 100 is fast.
    """
    rank_tol = validate.scalar(rank_tol, "rank_tol (relative eigenvalue cut, e.g. 1e-12)", low=0.0, high=1.0,
                               high_open=True)
    X1 = _class(X1, "X1")
    X0 = _class(X0, "X0", cols=X1.shape[1])
    n1, n0, d = X1.shape[0], X0.shape[0], X1.shape[1]
    mu1, mu0 = X1.mean(axis=0), X0.mean(axis=0)
    C1, C0 = X1 - mu1, X0 - mu0
    S1, S0 = C1.T @ C1, C0.T @ C0  # within-class scatter (n_j Σ̂_j)
    basis, dropped = np.eye(d), 0
    if reduce:
        basis, null = data_span(S1, S0, n1, n0, mu1 - mu0, feature_sizes(X1, X0), rank_tol,
                                scale_free=scale_free)
        dropped = null.shape[1]
    F1 = _coordinate_factor(C1, S1, basis if dropped else None)
    F0 = _coordinate_factor(C0, S0, basis if dropped else None)
    m1, m0 = (basis.T @ mu1, basis.T @ mu0) if dropped else (mu1, mu0)
    radius = data_radius(X1, X0)
    return ClassMoments(m1, m0, F1, F0, n1, n0, radius, basis, "linear", rank=basis.shape[1], dropped=dropped)


def _coordinate_factor(C, S, basis) -> np.ndarray:
    """``F`` with ``F^T F = basis^T (S / n) basis`` for centred rows ``C`` (n x d), ``S = C^T C``.

    The scaled centred rows when there are no more of them than coordinates, else a triangular factor (p x p).
    ``basis=None`` means the identity.
    """
    n = C.shape[0]
    p = C.shape[1] if basis is None else basis.shape[1]
    if n <= p:
        return (C if basis is None else C @ basis) / np.sqrt(n)
    return psd_triangular_factor((S if basis is None else basis.T @ S @ basis) / n)


@dataclass(frozen=True, eq=False)
class MPMData:
    """The data of (3) (``model.data`` of `mpm`, `mpm_from_moments`, `kernel_mpm`): the `ClassMoments`, the
    variable's name and, for `mpm`, the samples' `SampleMoments`; when `mpm` pins the null space (constraint
    ``'null_space'``: ``(pin_scale null)^T w == 0``, ``pin_scale = ||x̂1 - x̂0||``) the orthonormal bases ``span``
    (d x r) and ``null`` (d x (d - r)) of `data_span`."""

    moments: ClassMoments
    var_name: str = "v"
    sample: SampleMoments | None = None
    span: np.ndarray | None = None
    null: np.ndarray | None = None
    pin_scale: float = 1.0

    def derive(self, sol) -> MPMSolution:
        mom = self.moments
        vv = np.asarray(sol.value(self.var_name), float).reshape(-1)
        q1, q0 = mom.variances(vv)
        extra = {} if self.sample is None else dict(mu1=self.sample.mu1, mu0=self.sample.mu0,
                                                   Sigma1=self.sample.Sigma1, Sigma0=self.sample.Sigma0)
        return _mpm_solution(vv, mom.basis @ vv, float(vv @ mom.mu1), float(vv @ mom.mu0), np.sqrt(q1), np.sqrt(q0),
                             **extra)

    def structured_solve(self, **options) -> StructuredAnswer:
        """The certified Newton solver (`solver.solve_mpm`) for ``model.solve(solver="structured")``
        (`certiprog.solvers.structured`): ``v``, the duals in certiprog's convention (``normalization``: t;
        ``_objective/pnorm``: ``(1, -y1)``, ``(1, -y0)``) and its rigorous interval (``StructuredAnswer.interval``).
        With the null-space pin (`mpm`) the solve runs in the span's coordinates (``F_j span``, ``span^T x̂_j``), w =
        ``span @ v`` and the pin's multiplier is ``null^T (F1^T y1 + F0^T y0 - t (x̂1 - x̂0)) / pin_scale``
        (stationarity of the Lagrangian ``f - t (d^T w - 1) - lambda^T (pin_scale null)^T w``), so certiprog's
        certificate judges the pinned model.
        ``options`` go to `solve_mpm` (tol, max_iter). Raises InputError when the projected means coincide
        (infeasible)."""
        from .solver import solve_mpm

        full = mom = self.moments
        B, N = self.span, self.null
        if B is not None and N is not None and N.shape[1]:  # the pin: solve in the span's coordinates
            mom = ClassMoments(B.T @ full.mu1, B.T @ full.mu0, full.F1 @ B, full.F0 @ B, full.n1, full.n0,
                               full.radius, B, "linear", rank=B.shape[1], dropped=N.shape[1])
        try:
            fit = solve_mpm(mom, **options)
        except (np.linalg.LinAlgError, ArithmeticError) as exc:  # a numerical breakdown: let the chooser move on
            from certiprog.errors import BackendError

            raise BackendError(f"the structured MPM solver broke down: {exc}") from exc
        duals = {"normalization": np.array([fit.t]),
                 "_objective/pnorm": np.concatenate([[1.0], -fit.y1, [1.0], -fit.y0])}
        value = fit.v
        if mom is not full and N is not None:
            value = mom.basis @ fit.v
            residual = full.F1.T @ fit.y1 + full.F0.T @ fit.y0 - fit.t * full.dmu
            duals["null_space"] = (N.T @ residual) / self.pin_scale
        return StructuredAnswer({self.var_name: value}, duals, fit.status, fit.interval, fit.iterations,
                                info=dict(rel_gap=fit.rel_gap, certified=fit.certified, structured_status=fit.status,
                                          **fit.info))

    def structured_auto(self, problem) -> bool:
        """certiprog's automatic choice tries `structured_solve` first at every size (a few p x p factorisations;
        the certificate still decides, and the generic solvers follow when it does not confirm)."""
        return True


def mpm_from_moments(moments: ClassMoments, var_name: str = "v") -> Model:
    """004 eq. (3) on a `ClassMoments` (linear or kernel): variable ``var_name`` (the coordinates ``v``).

    ``min norm2(F1 v) + norm2(F0 v)  s.t.  v^T (mu1 - mu0) == 1`` (constraint ``'normalization'``; infeasible status
    when the projected means coincide). ``model.data`` is an `MPMData`, ``model.derived(sol)`` an `MPMSolution`.
    Predict class 1 iff ``features @ weights - b >= 0``.
    """
    if not isinstance(moments, ClassMoments):
        raise InputError(f"mpm_from_moments takes a ClassMoments; got {type(moments).__name__}")
    if moments.p == 0:
        raise InputError("the training data are constant (no direction with any spread): nothing to separate; "
                         "check the features")
    v = Variable(moments.p, var_name)
    model = Model(minimize(norm2(moments.F1 @ v) + norm2(moments.F0 @ v)), name=f"mpm ({moments.kind})")
    model.add(moments.dmu @ v == 1.0, name="normalization")
    model.data = MPMData(moments, var_name)
    return model


def worst_case_errors(w, b: float, mu1, Sigma1, mu0, Sigma0) -> tuple[float, float]:
    """Worst-case misclassification of the rule "class 1 iff w^T x >= b" over all laws with the given moments.

    Per class (Marshall-Olkin / Cantelli, 004 eqs. 1-2): ``sup P(error) = 1/(1 + d^2)`` with ``d = margin /
    sqrt(w^T Σ w)``, margin ``w^T mu1 - b`` (class 1) or ``b - w^T mu0`` (class 0); 1 if the margin is <= 0, 0 if the
    margin is positive and the variance 0. Returns ``(class-1 error, class-0 error)``.
    """
    w = np.asarray(w, float).reshape(-1)
    out = []
    for margin, S in ((float(w @ np.asarray(mu1, float)) - b, Sigma1), (b - float(w @ np.asarray(mu0, float)), Sigma0)):
        var = max(float(w @ np.asarray(S, float) @ w), 0.0)
        out.append(1.0 if margin <= 0 else (0.0 if var == 0 else var / (var + margin * margin)))
    return out[0], out[1]
