"""Rigorous bounds for the cones' membership tests: the ends of a ball vector rounded outward, a proved upper bound
of a sum of squares, and arb (python-flint) for the tests that need logarithms or a Cholesky factorisation.

A ball vector is a pair of float arrays (mid, rad), rad >= 0, standing for the exact reals in [mid - rad, mid + rad].
The conic layer sits under the certificates, so it reads any object with ``mid`` and ``rad`` (the certificates'
`Ball`) or a plain array (rad = 0) and imports nothing above it. Bounds use the a-priori error model of
round-to-nearest arithmetic: ``|fl(a op b) - a op b| <= u |fl(a op b)|`` with u = 2^-53, plus ``_ETA`` per result
against underflow; a k-term sum of nonnegative floats has relative error at most gamma_k < 4 (k + 4) u.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import InputError, ShapeError

U = 2.0 ** -53
_ETA = 1e-290  # far above the underflow unit, far below anything a certificate reads


def as_ball(s, rad=None, rows: int | None = None, what: str = "s") -> tuple[np.ndarray, np.ndarray]:
    """(mid, rad) as flat float arrays from a Ball-like object, or from an array and an optional radius; checks
    the length (``rows``) and the radius (>= 0, not NaN); an InputError names ``what``."""
    if rad is None and hasattr(s, "mid") and hasattr(s, "rad"):
        s, rad = s.mid, s.rad
    try:
        mid = np.asarray(s, dtype=float).reshape(-1)
        r = np.zeros_like(mid) if rad is None else np.broadcast_to(np.asarray(rad, dtype=float), mid.shape).reshape(-1)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be an array of numbers with a radius of its shape or a scalar one; got "
                         f"{type(s).__name__}") from None
    if rows is not None and mid.size != rows:
        raise ShapeError(f"{what} has {mid.size} entries; the cone has {rows} rows")
    if not np.all(r >= 0):
        raise InputError(f"{what}'s radius must be >= 0 everywhere (no NaN)")
    return mid, r


def lower(mid: np.ndarray, rad: np.ndarray) -> np.ndarray:
    """Lower ends of the balls, rounded down (exact where the radius is 0)."""
    return np.where(rad == 0, mid, np.nextafter(mid - rad, -np.inf))


def upper(mid: np.ndarray, rad: np.ndarray) -> np.ndarray:
    """Upper ends of the balls, rounded up (exact where the radius is 0)."""
    return np.where(rad == 0, mid, np.nextafter(mid + rad, np.inf))


def abs_upper(mid: np.ndarray, rad: np.ndarray) -> np.ndarray:
    """Upper bounds of |x| over the balls."""
    return np.nextafter(np.abs(mid) + rad, np.inf)


def square_lower(a: np.ndarray) -> np.ndarray:
    """Lower bounds of a^2 for floats a >= 0 (fl(a a) <= (1 + u) a^2, and the scaling loses at most another u;
    a product near the underflow range, where the error is absolute, counts as 0)."""
    p = np.nextafter(a * a * (1 - 4 * U), -np.inf)
    return np.where(p >= 1e-300, p, 0.0)


def sum_squares_upper(A: np.ndarray, axis: int = -1) -> np.ndarray:
    """Upper bounds of the sums of squares of the floats A along ``axis``."""
    k = A.shape[axis] if A.ndim else 1
    s = np.sum(A * A, axis=axis) * (1 + 4 * (k + 4) * U) + _ETA
    return np.nextafter(s, np.inf)


# --------------------------------------------------------------------------------------------------- arb
def arb_module():
    """python-flint's ``arb`` at 128 bits or more (imported on first use: only the nonlinear cones need it)."""
    from flint import arb, ctx

    ctx.prec = max(ctx.prec, 128)
    return arb


def arb_lo(a) -> float:
    """A float below every point of the arb ball a (-inf when its end is not finite)."""
    v = float(a.lower())
    return -np.inf if np.isnan(v) else float(np.nextafter(v, -np.inf))


def arb_hi(a) -> float:
    """A float above every point of the arb ball a (+inf when its end is not finite)."""
    v = float(a.upper())
    return np.inf if np.isnan(v) else float(np.nextafter(v, np.inf))


def arb_rows(mid: np.ndarray, rad: np.ndarray) -> list:
    """Each row of (mid, rad) as a list of arb balls."""
    arb = arb_module()
    return [[arb(float(m), float(r)) for m, r in zip(mrow, rrow)] for mrow, rrow in zip(mid, rad)]


def arb_cholesky_pd(M: list) -> bool:
    """True when an interval Cholesky factorisation of the arb matrix M (list of rows) succeeds: every symmetric
    matrix in M is positive definite."""
    n = len(M)
    L: list[list[Any]] = [[None] * n for _ in range(n)]
    for j in range(n):
        d = M[j][j]
        for k in range(j):
            d -= L[j][k] * L[j][k]
        if not arb_lo(d) > 0:
            return False
        L[j][j] = d.sqrt()
        for i in range(j + 1, n):
            t = M[i][j]
            for k in range(j):
                t -= L[i][k] * L[j][k]
            L[i][j] = t / L[j][j]
    return True
