"""Index sets of semi-infinite constraints and their separation oracles.

An index set U in R^D offers ``minimize_linear(a) -> (u*, a^T u*)``, the
minimiser of a linear functional over U (the separation oracle for a
constraint affine in u), and ``initial_points()``, the first cuts. Sets that
admit an exact finite reformulation also offer ``generators()``.
"""
from __future__ import annotations

import abc

import numpy as np

from ..errors import InputError
from .expression import _is_int, as_constant_array, real_scalar


class IndexSet(abc.ABC):
    """A compact set of points u in R^dim."""

    dim: int

    @abc.abstractmethod
    def minimize_linear(self, a: np.ndarray) -> tuple[np.ndarray, float]:
        """A point u* of the set minimising a^T u, and the minimum value."""

    @abc.abstractmethod
    def initial_points(self) -> np.ndarray:
        """Points (k, dim) used as the first cuts."""

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n points of the set (used to check oracles by brute force)."""
        raise InputError(f"{type(self).__name__} cannot be sampled")


def dual_exponent(q: float) -> float:
    """q* with 1/q + 1/q* = 1 (q = 1 -> inf, q = inf -> 1)."""
    if q == 1:
        return np.inf
    if np.isinf(q):
        return 1.0
    return q / (q - 1.0)


def lq_ball_minimizer(g: np.ndarray, q: float) -> np.ndarray:
    """argmin_{||s||_q <= 1} g^T s in closed form (value -||g||_{q*}); see `lq_ball_minimizer_rows`."""
    g = np.asarray(g, dtype=float)
    return lq_ball_minimizer_rows(g.reshape(1, -1), q).reshape(g.shape)


def lq_ball_minimizer_rows(G: np.ndarray, q: float) -> np.ndarray:
    """Row-wise argmin_{||s||_q <= 1} g^T s for every row g of G (k, D), vectorised (doc 001 §3).

    Hoelder's equality case: s_i = -sign(g_i) |g_i|^{q*-1} / ||g||_{q*}^{q*-1} for 1 < q < inf; a signed vertex
    e_j (j = argmax |g_i|) for q = 1; -sign(g) for q = inf; s = 0 for g = 0. Each row is first divided by its
    largest |g_i| (the minimiser is scale invariant), so the powers cannot overflow as q -> 1.
    """
    G = np.atleast_2d(np.asarray(G, dtype=float))
    S = np.zeros_like(G)
    if G.shape[1] == 0:
        return S
    gmax = np.max(np.abs(G), axis=1, keepdims=True)
    nz = gmax[:, 0] > 0
    if not np.any(nz):
        return S
    B = G[nz] / gmax[nz]  # entries in [-1, 1], max |.| = 1
    if np.isinf(q):
        S[nz] = -np.sign(B)
    elif q == 1:
        j = np.argmax(np.abs(B), axis=1)
        rows = np.flatnonzero(nz)
        S[rows, j] = -np.sign(B[np.arange(rows.size), j])
    else:
        p = dual_exponent(q)
        A = np.abs(B)
        M = A ** (p - 1.0)
        S[nz] = -np.sign(B) * M / np.sum(A ** p, axis=1, keepdims=True) ** (1.0 / q)
    return S


def sample_lq_ball(n: int, D: int, q: float, rng, surface: bool = False) -> np.ndarray:
    """n points (n, D) uniform in the unit Lq ball, or with ``surface=True`` on its boundary sphere.

    Uniform in the ball: g_i i.i.d. with density proportional to exp(-|t|^q) and E ~ Exp(1) independent, then
    g / (||g||_q^q + E)^{1/q} (Barthe, Guedon, Mendelson, Naor 2005). ``surface=True`` returns g / ||g||_q, the
    cone measure of the sphere: the normalised surface measure for q in {1, 2, inf}, close to it otherwise.
    q = inf: uniform in the cube (surface: a uniformly chosen face, uniform on it).
    """
    rng = np.random.default_rng(rng)
    n, D = int(n), int(D)
    if np.isinf(q):
        S = rng.uniform(-1.0, 1.0, (n, D))
        if surface and D > 0:
            face = rng.integers(0, D, n)
            S[np.arange(n), face] = rng.choice((-1.0, 1.0), n)
        return S
    g = rng.gamma(1.0 / q, 1.0, (n, D)) ** (1.0 / q) * rng.choice((-1.0, 1.0), (n, D))
    norm_q = np.sum(np.abs(g) ** q, axis=1, keepdims=True)
    if surface:
        return g / np.maximum(norm_q, 1e-300) ** (1.0 / q)
    return g / (norm_q + rng.exponential(1.0, (n, 1))) ** (1.0 / q)


class LqEllipsoid(IndexSet):
    """{c + U diag(r) s : ||s||_q <= 1}, q >= 1 (inf allowed)."""

    def __init__(self, center, basis, radii, q: float = 2.0):
        c = as_constant_array(center, "center").reshape(-1)
        U = as_constant_array(basis, "basis")
        if U.ndim == 1:
            U = U.reshape(-1, 1)
        if U.ndim != 2:
            raise InputError(f"basis must be a (D, m) matrix (or a vector, for m = 1); got shape {U.shape}")
        r = as_constant_array(radii, "radii").reshape(-1)
        if U.shape[0] != c.size:
            raise InputError(f"basis has {U.shape[0]} rows but the center has dimension {c.size}: pass basis as (D, m)")
        if r.size != U.shape[1]:
            raise InputError(f"radii has {r.size} entries but the basis has {U.shape[1]} columns")
        if np.any(r < 0):
            raise InputError("radii must be nonnegative")
        q = real_scalar(q, "q of LqEllipsoid")
        if not q >= 1:
            raise InputError(f"q must be >= 1 (got {q}); the Lq ball is not convex otherwise")
        self.center, self.basis, self.radii, self.q = c, U, r, q
        self.dim = c.size
        self.V = U * r  # columns v_j = r_j U_j

    def minimize_linear(self, a):
        a = np.asarray(a, dtype=float).reshape(-1)
        g = self.V.T @ a
        s = lq_ball_minimizer(g, self.q)
        u = self.center + self.V @ s
        return u, float(a @ u)

    def initial_points(self):
        return self.center.reshape(1, -1)

    def generators(self) -> np.ndarray:
        """Rows c, c + v_1, ..., c + v_m: the exact reformulation reads the constraint at these."""
        return np.vstack([self.center, self.center + self.V.T])

    def sample(self, n, rng):
        m = self.V.shape[1]
        s = rng.standard_normal((n, m))
        norms = np.linalg.norm(s, ord=self.q, axis=1, keepdims=True)
        s = s / np.maximum(norms, 1e-300) * rng.uniform(0, 1, (n, 1)) ** (1.0 / max(m, 1))
        return self.center + s @ self.V.T


class PointCloud(IndexSet):
    """The convex hull of finitely many points (rows of ``points``)."""

    def __init__(self, points):
        X = as_constant_array(points, "points")
        if X.ndim != 2 or X.shape[0] == 0:
            raise InputError(f"points must be a non-empty (k, D) array; got shape {X.shape}")
        self.points = X
        self.dim = X.shape[1]

    def minimize_linear(self, a):
        vals = self.points @ np.asarray(a, float).reshape(-1)
        j = int(np.argmin(vals))
        return self.points[j].copy(), float(vals[j])

    def initial_points(self):
        centroid = self.points.mean(axis=0)
        j = int(np.argmin(np.linalg.norm(self.points - centroid, axis=1)))
        return self.points[j:j + 1].copy()

    def sample(self, n, rng):
        w = rng.dirichlet(np.ones(self.points.shape[0]), size=n)
        return w @ self.points


class OracleSet(IndexSet):
    """A set known only through a user oracle ``oracle(a) -> u*`` (minimiser of a^T u)."""

    def __init__(self, oracle, initial_points, dim: int | None = None):
        if not callable(oracle):
            raise InputError(f"OracleSet's oracle must be a function a -> argmin of a^T u over the set; got {oracle!r}")
        P = as_constant_array(initial_points, "initial_points")
        if P.ndim == 1:
            P = P.reshape(1, -1)
        if P.ndim != 2 or P.shape[0] == 0:
            raise InputError(f"initial_points must be a non-empty (k, D) array; got shape {P.shape}")
        if dim is not None and (not _is_int(dim) or dim != P.shape[1]):
            raise InputError(f"OracleSet's dim must be the integer {P.shape[1]} (the columns of initial_points); "
                             f"got {dim!r}")
        self.oracle = oracle
        self.points0 = P
        self.dim = P.shape[1]

    def minimize_linear(self, a):
        u = as_constant_array(self.oracle(np.asarray(a, float)), "oracle output").reshape(-1)
        if u.size != self.dim:
            raise InputError(f"the oracle returned a point of dimension {u.size}, expected {self.dim}")
        return u, float(np.asarray(a).reshape(-1) @ u)

    def initial_points(self):
        return self.points0
