"""Input checks shared by the formulations: each failure names the argument and the fix."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .errors import InputError


def matrix(X, name: str, *, min_rows: int = 1, cols: int | None = None) -> np.ndarray:
    """A finite 2-D float array with at least ``min_rows`` rows (and ``cols`` columns if given)."""
    if sp.issparse(X):
        X = X.toarray()
    try:
        A = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be a numeric array") from exc
    if A.ndim != 2:
        raise InputError(f"{name} must be 2-D (samples x features); got shape {A.shape}. Use X.reshape(-1, 1) for one feature")
    if A.shape[0] < min_rows:
        raise InputError(f"{name} has {A.shape[0]} rows; at least {min_rows} needed (is a class empty?)")
    if cols is not None and A.shape[1] != cols:
        raise InputError(f"{name} has {A.shape[1]} columns; expected {cols} to match the other inputs")
    if not np.all(np.isfinite(A)):
        raise InputError(f"{name} contains NaN or inf: drop or impute those entries first")
    return A


def vector(v, name: str, *, size: int | None = None) -> np.ndarray:
    try:
        a = np.asarray(v, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be a numeric vector") from exc
    if size is not None and a.size != size:
        raise InputError(f"{name} has {a.size} entries; expected {size}")
    if not np.all(np.isfinite(a)):
        raise InputError(f"{name} contains NaN or inf")
    return a


def scalar(x, name: str, *, low: float | None = None, high: float | None = None,
           low_open: bool = False, high_open: bool = False) -> float:
    """A finite float in the stated interval (open ends where asked)."""
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be a number; got {x!r}") from exc
    bad = not np.isfinite(v)
    if low is not None:
        bad |= v <= low if low_open else v < low
    if high is not None:
        bad |= v >= high if high_open else v > high
    if bad:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise InputError(f"{name} must lie in {lo}{low if low is not None else '-inf'}, "
                         f"{high if high is not None else 'inf'}{hi}; got {v}")
    return v


def covariance(S, name: str, d: int, *, tol: float = 1e-9, factor: bool = False):
    """A symmetric PSD d x d matrix (symmetry and PSD checked relative to its scale).

    With ``factor=True`` returns ``(S, L)`` with ``S = L L^T`` from the same eigendecomposition
    (so a formulation that needs both decomposes S once).
    """
    S = matrix(S, name, cols=d)
    if S.shape[0] != d:
        raise InputError(f"{name} must be {d} x {d}; got {S.shape}")
    scale = max(1.0, float(np.max(np.abs(S))))
    if not np.allclose(S, S.T, atol=tol * scale, rtol=0):
        raise InputError(f"{name} is not symmetric: pass (S + S.T) / 2")
    S = (S + S.T) / 2
    w, V = np.linalg.eigh(S)
    if w[0] < -1e-8 * scale * d:
        raise InputError(f"{name} is indefinite (smallest eigenvalue {w[0]:.3g}); a covariance must be PSD")
    return (S, V * np.sqrt(np.clip(w, 0.0, None))) if factor else S


def labels(y, name: str = "labels", *, size: int | None = None) -> np.ndarray:
    """Labels in {+1, -1}, with both classes present."""
    a = vector(y, name, size=size)
    if not np.all(np.isin(a, (-1.0, 1.0))):
        raise InputError(f"{name} must be +1 or -1; got values {np.unique(a)[:5]}")
    if np.unique(a).size < 2:
        raise InputError(f"{name} contain one class only; both +1 and -1 are needed")
    return a
