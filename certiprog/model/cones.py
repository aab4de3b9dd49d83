"""Cone descriptions and the numeric operations certificates need on them.

A `Cone` describes ``count`` consecutive copies of one cone of ``dim`` rows:
``zero`` (s = 0), ``nonneg`` (s >= 0), ``soc`` (s_0 >= ||s_1:||), ``psd``
(scaled upper triangle of an n x n PSD matrix, column-major, off-diagonals
times sqrt 2, as Clarabel and SCS use) and ``pow`` (3-D power cone
x^a y^(1-a) >= |z|). All cones except ``zero`` and ``pow`` are self-dual.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError

KINDS = ("zero", "nonneg", "soc", "psd", "pow")


@dataclass(frozen=True)
class Cone:
    kind: str
    dim: int
    count: int = 1
    alpha: float | None = None

    def __post_init__(self):
        if not isinstance(self.kind, str):
            raise InputError(f"Cone kind must be a string such as {KINDS}; got {self.kind!r}")
        for what in ("dim", "count"):
            v = getattr(self, what)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
                raise InputError(f"Cone {what} must be a nonnegative integer; got {v!r}")
        if self.kind == "pow":
            ok = isinstance(self.alpha, (float, int, np.floating)) and not isinstance(self.alpha, bool)
            if not (ok and 0 < self.alpha < 1) or self.dim != 3:
                raise InputError(f"a pow cone has dim 3 and 0 < alpha < 1; got dim={self.dim}, alpha={self.alpha!r}")
        if self.kind == "psd" and self.side * (self.side + 1) // 2 != self.dim:
            raise InputError(f"a psd cone's dim must be n(n+1)/2; got {self.dim}")

    @property
    def rows(self) -> int:
        return self.dim * self.count

    @property
    def side(self) -> int:
        """Matrix side n of a psd cone (dim = n(n+1)/2)."""
        return int(round((np.sqrt(8 * self.dim + 1) - 1) / 2))

    def to_json(self) -> dict:
        return {"kind": self.kind, "dim": self.dim, "count": self.count, "alpha": self.alpha}


def smat(v: np.ndarray, n: int) -> np.ndarray:
    """Inverse of svec: symmetric matrix from the scaled upper triangle (column-major)."""
    M = np.zeros((n, n))
    k = 0
    for j in range(n):
        for i in range(j + 1):
            M[i, j] = M[j, i] = v[k] if i == j else v[k] / np.sqrt(2.0)
            k += 1
    return M


def svec(M: np.ndarray) -> np.ndarray:
    n = M.shape[0]
    out = []
    for j in range(n):
        for i in range(j + 1):
            out.append(M[i, j] if i == j else np.sqrt(2.0) * (M[i, j] + M[j, i]) / 2)
    return np.array(out)


def _soc_project(v: np.ndarray) -> np.ndarray:
    t, x = v[0], v[1:]
    nx = np.linalg.norm(x)
    if nx <= t:
        return v.copy()
    if nx <= -t:
        return np.zeros_like(v)
    a = (t + nx) / 2
    return np.concatenate([[a], a * x / nx])


def _pow_project(v: np.ndarray, alpha: float) -> np.ndarray:
    """Euclidean projection onto the 3-D power cone (small SLSQP solve; used only by certificates)."""
    x, y, z = v
    if x >= 0 and y >= 0 and x**alpha * y ** (1 - alpha) >= abs(z):
        return v.copy()
    from scipy.optimize import minimize

    def obj(p):
        return 0.5 * np.sum((p - v) ** 2)

    cons = [{"type": "ineq", "fun": lambda p: np.maximum(p[0], 0) ** alpha * np.maximum(p[1], 0) ** (1 - alpha) - abs(p[2])},
            {"type": "ineq", "fun": lambda p: p[0]}, {"type": "ineq", "fun": lambda p: p[1]}]
    start = np.array([max(x, 1e-3), max(y, 1e-3), 0.0])
    res = minimize(obj, start, constraints=cons, method="SLSQP", options={"ftol": 1e-14, "maxiter": 200})
    return res.x


def project(cone: Cone, s: np.ndarray, dual: bool = False) -> np.ndarray:
    """Euclidean projection of s (all rows of the block) onto the cone, or onto its dual."""
    s = np.asarray(s, dtype=float)
    kind = cone.kind
    if kind == "zero":
        return s.copy() if dual else np.zeros_like(s)
    if kind == "nonneg":
        return np.maximum(s, 0.0)
    parts = s.reshape(cone.count, cone.dim)
    if kind == "soc":
        return np.concatenate([_soc_project(p) for p in parts])
    if kind == "psd":
        n = cone.side
        out = []
        for p in parts:
            w, V = np.linalg.eigh(smat(p, n))
            out.append(svec((V * np.maximum(w, 0)) @ V.T))
        return np.concatenate(out)
    if kind == "pow":
        a = cone.alpha
        if dual:
            # K*_a = {(u, v, w): (u/a)^a (v/(1-a))^(1-a) >= |w|}: scale, project, unscale
            D = np.array([a, 1 - a, 1.0])
            return np.concatenate([D * _pow_project(p / D, a) for p in parts])
        return np.concatenate([_pow_project(p, a) for p in parts])
    raise InputError(f"unknown cone kind {kind!r}")


def distance_to_cone(cone: Cone, s: np.ndarray, dual: bool = False) -> float:
    """Euclidean distance from the block ``s`` to the cone (or its dual)."""
    s = np.asarray(s, dtype=float).reshape(-1)
    if s.size == 0:
        return 0.0
    return float(np.linalg.norm(s - project(cone, s, dual=dual)))
