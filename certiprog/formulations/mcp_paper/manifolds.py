"""Data manifolds for paper 001 (MCP) and their separation oracles.

A manifold M in R^N offers ``oracle(w) -> (x*, <w, x*>)`` with x* = argmin_{x in M} <w, x> (the caller passes
``y_p * w`` to find the most violating point of a labelled manifold), ``sample(n, rng)``, ``initial_points()``
(the first cuts of MCP, at least one), ``center`` (the point of the center constraints of Sec. 3.1) and ``N``.
Every manifold is also an `IndexSet`, so it can index a ``ForAll`` constraint directly.

* `LqEllipsoidManifold` -- {c + U diag(r) s : ||s||_q <= 1}, Sec. 4.1; exact closed-form oracle (doc 001 §3),
  exact robust counterpart.
* `PointCloudManifold` -- finitely many samples; the oracle is exact over their convex hull (only the hull
  matters for a linear classifier, Sec. 2.3).
* `ParametricManifold` -- f(s) for s in a box or a ball of R^dim with a user function f; a local-search oracle
  (multi-start, gradient or finite differences, Sec. 2.3 and 4.2). Not exact: MCP on it has no certificate.

`ManifoldBatch` evaluates the oracles of many manifolds at once (Lq ellipsoids stacked into one tensor,
point clouds into one matrix), which is what makes MCP fast for large P. `lq_ellipsoid_geometry` is the one
generator of the synthetic instances of Sec. 4.1 (arrays); `random_lq_ellipsoids` gives them as manifolds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from certiprog import validation as validate
from certiprog.errors import InputError
from certiprog.model import Record
from certiprog.model.index_sets import IndexSet, LqEllipsoid, PointCloud, lq_ball_minimizer_rows, sample_lq_ball

__all__ = ["LqEllipsoidGeometry", "LqEllipsoidManifold", "ManifoldBatch", "ParametricManifold", "PointCloudManifold",
           "as_manifolds", "lq_ellipsoid_geometry", "random_lq_ellipsoids"]


def _q_value(q) -> float:
    """q in [1, inf] (math.inf allowed)."""
    if isinstance(q, (float, np.floating)) and q == math.inf:
        return math.inf
    try:
        qv = validate.scalar(q, "q")
    except InputError as exc:
        raise InputError(f"q must be >= 1 (a number; math.inf allowed); got {q!r}") from exc
    if qv < 1:
        raise InputError(f"q must be >= 1 (the Lq ball is not convex for q < 1); got {q!r}")
    return qv


def _array(x, name: str) -> np.ndarray:
    """A real float array (sparse matrices densified; complex, strings and ragged lists refused)."""
    return validate.real_array(x, name)


def _rng(rng) -> np.random.Generator:
    return validate.rng(rng)


def _count(n, name="n") -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InputError(f"{name} must be a nonnegative integer; got {n!r}")
    return int(n)


def lq_operator_bound(M: np.ndarray, q: float) -> float:
    """An upper bound on ||M||_{q->2} = max_{||s||_q <= 1} ||M s||_2 (exact for q = 1, doc 001 §2.5)."""
    if M.shape[1] == 0:
        return 0.0
    if q == 1:
        return float(np.max(np.linalg.norm(M, axis=0)))
    op = float(np.linalg.norm(M, 2))
    if q > 2:  # ||s||_2 <= D^{1/2 - 1/q} ||s||_q
        op *= M.shape[1] ** (0.5 - (0.0 if math.isinf(q) else 1.0 / q))
    return op


class Manifold:
    """Mixin: the manifold interface on top of an `IndexSet` whose ``dim`` is the ambient dimension N."""

    exact = True  # the oracle returns the true minimiser (False for local search)
    dim: int  # the IndexSet's

    @property
    def N(self) -> int:
        return self.dim

    def _w(self, w) -> np.ndarray:
        return validate.vector(w, "w", size=self.N)

    def oracle(self, w) -> tuple[np.ndarray, float]:
        """(x*, <w, x*>) with x* = argmin_{x in M} <w, x>."""
        assert isinstance(self, IndexSet)  # a Manifold is always mixed into an IndexSet
        return self.minimize_linear(self._w(w))

    def norm_bound(self) -> float | None:
        """An upper bound on sup_{x in M} ||x||_2 (the L of Thm. 1/2), or None when none is certified."""
        return None


# ---------------------------------------------------------------------------- Lq ellipsoids
class LqEllipsoidManifold(Manifold, LqEllipsoid):
    """M = {c + U diag(r) s : ||s||_q <= 1}, 001 Sec. 4.1 (the solid ellipsoid; its surface gives the same oracle).

    ``center`` (N,), ``basis`` U (N, D), ``radii`` r (D,) >= 0, ``q`` in [1, inf]. Degenerate manifolds are valid
    and documented: zero radii or a rank-deficient basis give a lower-dimensional ellipsoid (all radii zero: the
    single point c); the oracle and the robust counterpart stay exact. D = 0 is rejected.
    """

    def __init__(self, center, basis, radii, q=2):
        c = validate.vector(center, "center")
        if c.size < 1:
            raise InputError("center is empty; it must be a point of R^N with N >= 1")
        U = _array(basis, "basis")
        if U.ndim == 1:
            U = U.reshape(-1, 1)
        U = validate.matrix(U, "basis", min_rows=0)
        if U.shape[0] != c.size:
            raise InputError(f"basis has {U.shape[0]} rows but the center has dimension {c.size}; "
                             "the basis must be (N, D) with one column per intrinsic direction")
        if U.shape[1] < 1:
            raise InputError("basis has no columns (D = 0); for a point manifold pass one column with radius 0")
        r = validate.vector(radii, "radii", size=U.shape[1])
        if np.any(r < 0):
            raise InputError(f"radii has negative entries {r[r < 0][:3]}; radii must be >= 0")
        super().__init__(c, U, r, q=_q_value(q))

    @property
    def D(self) -> int:
        """The intrinsic dimension D (number of basis vectors of the ellipsoid)."""
        return self.basis.shape[1]

    def initial_points(self) -> np.ndarray:
        return self.center.reshape(1, -1)

    def sample(self, n, rng=None, surface: bool = False) -> np.ndarray:
        """n points (n, N): s uniform in the unit Lq ball (``surface=True``: on its sphere, as the paper's
        training and test points) mapped to c + U diag(r) s."""
        S = sample_lq_ball(_count(n), self.D, self.q, _rng(rng), surface=surface)
        return self.center + S @ self.V.T

    def norm_bound(self) -> float:
        return float(np.linalg.norm(self.center)) + lq_operator_bound(self.V, self.q)

    def radius_bound(self) -> float:
        """An upper bound on sup_{x in M} ||x - c||_2."""
        return lq_operator_bound(self.V, self.q)

    def __repr__(self):
        return f"LqEllipsoidManifold(N={self.N}, D={self.D}, q={self.q})"


# ---------------------------------------------------------------------------- point clouds
class PointCloudManifold(Manifold, PointCloud):
    """Finitely many samples x_1..x_K (rows of ``points`` (K, N)) of a manifold.

    The oracle is exact over their convex hull; ``center`` is the centroid (a point of the hull, the paper's
    "center of mass"); the first cut is the sample nearest to it.
    """

    def __init__(self, points):
        X = _array(points, "points")
        if X.ndim != 2:
            raise InputError(f"points must be a (K, N) array of K samples in R^N; got shape {X.shape}. "
                             "Use x.reshape(1, -1) for a single point")
        X = validate.matrix(X, "points", min_rows=1)
        if X.shape[1] < 1:
            raise InputError("points have 0 columns; the ambient dimension N must be >= 1")
        super().__init__(X)

    @property
    def center(self) -> np.ndarray:
        """The centroid of the samples (a point of their convex hull)."""
        return self.points.mean(axis=0)

    def sample(self, n, rng=None) -> np.ndarray:
        """n of the stored samples, drawn uniformly with replacement (the parameter set is {1..K})."""
        idx = _rng(rng).integers(0, self.points.shape[0], _count(n))
        return self.points[idx]

    def norm_bound(self) -> float:
        return float(np.max(np.linalg.norm(self.points, axis=1)))

    def radius_bound(self) -> float:
        """An upper bound on sup_{x in M} ||x - center||_2 (exact for the samples' hull)."""
        return float(np.max(np.linalg.norm(self.points - self.center, axis=1)))

    def __repr__(self):
        return f"PointCloudManifold(K={self.points.shape[0]}, N={self.N})"


# ---------------------------------------------------------------------------- parametric manifolds
class ParametricManifold(Manifold, IndexSet):
    """M = {f(s) : s in S}, f: R^dim -> R^N, S a box (``bounds`` (dim, 2)) or the ball ||s|| <= ``ball_radius``.

    The oracle minimises g(s) = <w, f(s)> by local search (001 Sec. 2.3 and 4.2): g is evaluated at the center
    of S and at ``n_starts`` points of S drawn once from ``rng`` (so the oracle is a deterministic function of
    w), and scipy's L-BFGS-B (box) or SLSQP (ball) refines the ``n_local`` best of them, with the gradient
    J(s)^T w from ``jac`` (s -> (N, dim)) or by finite differences. A local search can miss the global
    minimum: ``exact`` is False and MCP results on such manifolds carry no certificate. The paper's "local
    search among K = 5 neighbouring samples" (Sec. 4.2) is ``n_starts=5``. ``center`` (default f at the center
    of S, e.g. the untransformed template) is the point of MCP-slack's center constraint.
    """

    exact = False

    def __init__(self, f, dim, bounds=None, ball_radius=None, jac=None, n_starts=5, rng=0, n_local=3,
                 center=None):
        if not callable(f):
            raise InputError("f must be a callable s -> point of R^N")
        if jac is not None and not callable(jac):
            raise InputError("jac must be None or a callable s -> (N, dim) Jacobian")
        self.param_dim = _count(dim, "dim")
        if self.param_dim < 1:
            raise InputError("dim (the number of parameters) must be >= 1")
        if (bounds is None) == (ball_radius is None):
            raise InputError("give exactly one parameter set: bounds=(dim, 2) array for a box or ball_radius=R")
        if bounds is not None:
            B = validate.matrix(np.atleast_2d(validate.real_array(bounds, "bounds")), "bounds", min_rows=1, cols=2)
            if B.shape[0] != self.param_dim:
                raise InputError(f"bounds has {B.shape[0]} rows; it needs one (low, high) row per parameter "
                                 f"(dim = {self.param_dim})")
            if np.any(B[:, 0] > B[:, 1]):
                raise InputError("bounds has rows with low > high; each row is (low, high)")
            self.bounds, self.ball_radius = B, None
            s0 = B.mean(axis=1)
        else:
            self.bounds = None
            self.ball_radius = validate.scalar(ball_radius, "ball_radius", low=0.0, low_open=True)
            s0 = np.zeros(self.param_dim)
        gen = _rng(rng)
        self.f, self.jac = f, jac
        self.n_starts = _count(n_starts, "n_starts")
        self.n_local = _count(n_local, "n_local")
        if self.n_local < 1:
            raise InputError("n_local must be >= 1 (the number of local searches per oracle call)")
        x0 = self._f(s0)
        self.dim = x0.size
        self.s0 = s0
        self._center = x0 if center is None else validate.vector(center, "center", size=x0.size)
        self._starts = np.vstack([s0, self.sample_parameters(self.n_starts, gen)])

    def _f(self, s) -> np.ndarray:
        x = np.asarray(self.f(np.asarray(s, dtype=float)), dtype=float)
        if x.ndim != 1 or x.size < 1:
            raise InputError(f"f must return a 1-D point of R^N; got shape {x.shape}")
        if hasattr(self, "dim") and x.size != self.dim:
            raise InputError(f"f returned a point of dimension {x.size}, expected N = {self.dim}")
        if not np.all(np.isfinite(x)):
            raise InputError(f"f returned NaN or inf at s = {np.round(s, 6)}; f must be finite on the parameter set")
        return x

    @property
    def center(self) -> np.ndarray:
        """The manifold's centre: the ``center`` given, else f(s0) at the parameter point s0."""
        return self._center

    def sample_parameters(self, n, rng=None) -> np.ndarray:
        """n parameters (n, dim) uniform in the box or ball S."""
        rng, n = _rng(rng), _count(n)
        if self.bounds is not None:
            return rng.uniform(self.bounds[:, 0], self.bounds[:, 1], (n, self.param_dim))
        return self.ball_radius * sample_lq_ball(n, self.param_dim, 2.0, rng)

    def sample(self, n, rng=None) -> np.ndarray:
        """n points f(s) (n, N) with s uniform in S."""
        S = self.sample_parameters(n, rng)
        return np.array([self._f(s) for s in S]).reshape(len(S), self.dim)

    def initial_points(self) -> np.ndarray:
        return self._f(self.s0).reshape(1, -1)

    def oracle_parameter(self, w) -> tuple[np.ndarray, np.ndarray, float]:
        """(s*, f(s*), <w, f(s*)>) found by the local search."""
        from scipy.optimize import minimize

        w = self._w(w)
        vals = np.array([self._f(s) @ w for s in self._starts])

        def g(s):
            return float(self._f(s) @ w)

        def grad(s):  # J(s)^T w
            J = np.asarray(self.jac(np.asarray(s, dtype=float)), dtype=float)
            if J.shape != (self.dim, self.param_dim) or not np.all(np.isfinite(J)):
                raise InputError(f"jac must return a finite (N, dim) = ({self.dim}, {self.param_dim}) Jacobian; "
                                 f"got shape {J.shape}")
            return J.T @ w

        jac = grad if self.jac is not None else None  # None: scipy's finite differences
        best_s, best_v = self._starts[int(np.argmin(vals))], float(np.min(vals))
        for i in np.argsort(vals)[: self.n_local]:
            if self.bounds is not None:
                res = minimize(g, self._starts[i], jac=jac, method="L-BFGS-B", bounds=self.bounds)
            else:
                R2 = self.ball_radius ** 2
                ball = {"type": "ineq", "fun": lambda s: R2 - s @ s, "jac": lambda s: -2.0 * s}
                res = minimize(g, self._starts[i], jac=jac, method="SLSQP", constraints=[ball])
            s = self._project(res.x)
            v = g(s)
            if v < best_v:
                best_s, best_v = s, v
        x = self._f(best_s)
        return best_s, x, float(x @ w)

    def _project(self, s) -> np.ndarray:
        if self.bounds is not None:
            return np.clip(s, self.bounds[:, 0], self.bounds[:, 1])
        nrm = float(np.linalg.norm(s))
        return s if nrm <= self.ball_radius else s * (self.ball_radius / nrm)

    def minimize_linear(self, a):
        _, x, v = self.oracle_parameter(a)
        return x, v

    def __repr__(self):
        where = f"box {self.bounds.tolist()}" if self.bounds is not None else f"ball radius {self.ball_radius}"
        return f"ParametricManifold(N={self.N}, dim={self.param_dim}, {where})"


# ---------------------------------------------------------------------------- many manifolds at once
def as_manifolds(manifolds) -> list:
    """A validated list of manifolds with one ambient dimension; (K, N) arrays become `PointCloudManifold`."""
    if isinstance(manifolds, np.ndarray) or not isinstance(manifolds, (list, tuple)):
        raise InputError("manifolds must be a list of manifold objects (LqEllipsoidManifold, PointCloudManifold, "
                         "ParametricManifold) or of (K, N) point arrays")
    if len(manifolds) == 0:
        raise InputError("manifolds is empty; MCP needs at least one manifold per class")
    out = []
    for p, m in enumerate(manifolds):
        if isinstance(m, Manifold):
            out.append(m)
        elif isinstance(m, IndexSet):
            raise InputError(f"manifolds[{p}] is a {type(m).__name__}; wrap it as a manifold "
                             "(LqEllipsoidManifold, PointCloudManifold or ParametricManifold)")
        else:
            try:
                out.append(PointCloudManifold(m))
            except InputError as exc:
                raise InputError(f"manifolds[{p}]: {exc}") from exc
    dims = {m.N for m in out}
    if len(dims) > 1:
        raise InputError(f"the manifolds live in different ambient dimensions {sorted(dims)}; all need the same N")
    return out


class ManifoldBatch:
    """The oracles of many manifolds evaluated together: ``minimize(W)`` -> argmin_{x in M_p} <W_p, x> for all p.

    Lq ellipsoids with the same (D, q) are stacked into one (G, N, D) tensor (two einsums per call), point
    clouds into one matrix (one row-wise product and a sort); other manifolds are called one by one.
    """

    def __init__(self, manifolds) -> None:
        self.manifolds = as_manifolds(manifolds)
        self.P, self.N = len(self.manifolds), self.manifolds[0].N
        self.exact = all(m.exact for m in self.manifolds)
        groups: dict = {}
        clouds, others = [], []
        for p, m in enumerate(self.manifolds):
            if isinstance(m, LqEllipsoidManifold):
                groups.setdefault((m.D, m.q), []).append(p)
            elif isinstance(m, PointCloudManifold):
                clouds.append(p)
            else:
                others.append(p)
        self.lq = [(np.array(idx), q, np.stack([self.manifolds[p].center for p in idx]),
                    np.stack([self.manifolds[p].V for p in idx])) for (_, q), idx in groups.items()]
        self.clouds = np.array(clouds, dtype=int)
        if clouds:
            pts = [self.manifolds[p].points for p in clouds]
            counts = np.array([len(x) for x in pts])
            self.cloud_points = np.vstack(pts)
            self.cloud_owner = np.repeat(np.arange(len(clouds)), counts)
            self.cloud_starts = np.r_[0, np.cumsum(counts)[:-1]]
        self.others = others

    @property
    def centers(self) -> np.ndarray:
        return np.stack([m.center for m in self.manifolds])

    def minimize(self, W) -> tuple[np.ndarray, np.ndarray]:
        """X (P, N) with X_p = argmin_{x in M_p} <W_p, x>, and the values (P,); W is (P, N) or one w (N,)."""
        W = np.asarray(W, dtype=float)
        W = np.broadcast_to(W, (self.P, self.N)) if W.ndim == 1 else W
        if W.shape != (self.P, self.N):
            raise InputError(f"W must be (P, N) = ({self.P}, {self.N}); got {W.shape}")
        X = np.empty((self.P, self.N))
        for idx, q, C, V in self.lq:
            G = np.einsum("gn,gnd->gd", W[idx], V)
            S = lq_ball_minimizer_rows(G, q)
            X[idx] = C + np.einsum("gnd,gd->gn", V, S)
        if self.clouds.size:
            vals = np.einsum("kn,kn->k", self.cloud_points, W[self.clouds][self.cloud_owner])
            first = np.lexsort((vals, self.cloud_owner))[self.cloud_starts]
            X[self.clouds] = self.cloud_points[first]
        for p in self.others:
            X[p] = self.manifolds[p].minimize_linear(W[p])[0]
        return X, np.einsum("pn,pn->p", X, W)


# ---------------------------------------------------------------------------- the synthetic setting of Sec. 4.1
@dataclass(frozen=True, eq=False)
class LqEllipsoidGeometry(Record):
    """P Lq ellipsoids as arrays (`lq_ellipsoid_geometry`): ``centers`` (P, N), ``bases`` (P, N, D), ``radii``
    (P, D), ``labels`` (P,) in {+1, -1} and ``q``."""

    centers: np.ndarray
    bases: np.ndarray
    radii: np.ndarray
    labels: np.ndarray
    q: float

    def manifolds(self) -> list:
        """One `LqEllipsoidManifold` per ellipsoid."""
        return [LqEllipsoidManifold(c, U, r, q=self.q) for c, U, r in zip(self.centers, self.bases, self.radii)]


def lq_ellipsoid_geometry(P, N, D, R0, q=2, rng=None, *, unit: bool = False) -> LqEllipsoidGeometry:
    """The generator of 001 Sec. 4.1 (the one definition; the experiment and `random_lq_ellipsoids` call it).

    In this order from ``rng``: centres c_p (P, N) and basis vectors u_i^p (P, N, D) i.i.d. Gaussian, radii
    R_i ~ Unif[0.5 R0, 1.5 R0] (P, D), labels (ceil(P/2) of +1, floor(P/2) of -1, in random order).

    Normalisation: the paper says only "random gaussian". Centres and axes get the SAME scale, N(0, I_N) (the plain
    reading, and the one in which 1/||w*|| is the capacity theory's margin kappa, of order 1 for vectors with O(1)
    components); ``unit=True`` divides both by sqrt(N) (N(0, I_N/N), norm ~1). The two are one geometry up to the
    global factor sqrt(N): separability, test errors and MCP's iterations (its violation 1 - y<w, x> is scale-free)
    are identical, only kappa = 1/||w*|| (times 1/sqrt(N)), F = 1/2||w||^2 and L change. What the paper's capacity
    statements need is the equal scale of c and u (radii measured against the centre norm); N(0, I) centres with
    N(0, I/N) axes make every setting separable (docs/derivations/001.md §6).
    """
    P, N, D = _count(P, "P"), _count(N, "N"), _count(D, "D")
    if P < 2 or N < 1 or D < 1:
        raise InputError(f"need P >= 2 manifolds (both labels), N >= 1, D >= 1; got P={P}, N={N}, D={D}")
    R0 = validate.scalar(R0, "R0", low=0.0)
    q = _q_value(q)
    gen = _rng(rng)
    centers, bases = gen.standard_normal((P, N)), gen.standard_normal((P, N, D))
    if unit:
        centers, bases = centers / math.sqrt(N), bases / math.sqrt(N)
    radii = gen.uniform(0.5 * R0, 1.5 * R0, (P, D))
    labels = gen.permutation(np.r_[np.ones((P + 1) // 2), -np.ones(P // 2)])
    return LqEllipsoidGeometry(centers, bases, radii, labels, q)


def random_lq_ellipsoids(P, N, D, R0, q=2, rng=None, separable=None, max_tries=20, unit: bool = True):
    """(manifolds, labels): P random Lq ellipsoids in R^N as in 001 Sec. 4.1 (`lq_ellipsoid_geometry`; ``unit=True``
    by default: centres and axes N(0, I_N/N), norm ~1).

    ``separable``: None (no check); True redraws until the hard-margin program (2.1) is feasible; False until it
    is infeasible while the centers are separable (so the slack program of Sec. 3.1 is feasible). Checked by the
    exact robust counterpart; after ``max_tries`` draws an InputError says to change P, N, D or R0.
    """
    if separable is not None and not isinstance(separable, (bool, np.bool_)):
        raise InputError(f"separable must be None, True or False; got {separable!r}")
    max_tries = validate.integer(max_tries, "max_tries", low=1)
    rng = _rng(rng)
    for _ in range(max_tries if separable is not None else 1):
        geom = lq_ellipsoid_geometry(P, N, D, R0, q, rng, unit=unit)
        manifolds, y = geom.manifolds(), geom.labels
        if separable is None:
            return manifolds, y
        kind = _separability(manifolds, y)
        if kind == ("separable" if separable else "nonseparable"):
            return manifolds, y
    raise InputError(f"no {'separable' if separable else 'non-separable'} instance in {max_tries} draws with "
                     f"P={P}, N={N}, D={D}, R0={R0}, q={q}: move P/N or R0 towards that regime")


def _separability(manifolds, y) -> str:
    """'separable' if (2.1) is feasible, 'nonseparable' if not but the centers are, else 'centers_nonseparable'
    (exact robust counterparts; 'unknown' if a solve neither succeeds nor proves infeasibility)."""
    from certiprog.formulations.mcp_paper.programs import mcp_model

    def feasible(ms):
        status = mcp_model(ms, y).solve(forall="exact").status
        return True if status.ok else False if status.termination.startswith("infeasible") else None

    hard = feasible(manifolds)
    if hard is None:
        return "unknown"
    if hard:
        return "separable"
    centers = feasible([PointCloudManifold(m.center[None, :]) for m in manifolds])
    return {True: "nonseparable", False: "centers_nonseparable", None: "unknown"}[centers]
