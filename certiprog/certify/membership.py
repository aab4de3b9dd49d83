"""Cone membership proved in ball arithmetic: every point of an enclosure lies in the cone (or its dual cone).

`in_cone` decides zero, nonneg and SOC blocks with `rigorous.Ball` bounds, PSD blocks by an interval Cholesky
factorisation and the power / exponential cones through logarithms, in arb (python-flint, 128 bits at least);
`in_dual_cone` does the same for the duals of the exponential and power cones; `exactly_in_cone` decides the cases
that need no arithmetic. The arb helpers (`arb_class`, `arb_lo`, `arb_hi`, `smat_arb`, `chol_pd`) and the bounds
`soc_norm_hi` and `dual_power_mean` are shared with `certiprog.certify.dual_cone`. Each test is in
docs/derivations/optimality-interval.md (cone membership).
"""
from __future__ import annotations

import numpy as np

from ..conic.cones import Cone
from .rigorous import Ball
from .rigorous import U as _U


def arb_class():
    """python-flint's arb ball type, with the working precision raised to 128 bits at least."""
    from flint import arb, ctx

    ctx.prec = max(ctx.prec, 128)
    return arb


def arb_lo(a) -> float:
    """A float below every point of the arb ball ``a`` (-inf when its lower end is not a number)."""
    v = float(a.lower())
    return -np.inf if np.isnan(v) else float(np.nextafter(v, -np.inf))


def arb_hi(a) -> float:
    """A float above every point of the arb ball ``a`` (inf when its upper end is not a number)."""
    v = float(a.upper())
    return np.inf if np.isnan(v) else float(np.nextafter(v, np.inf))


def _to_arb(ball: Ball) -> list:
    arb = arb_class()
    return [arb(float(m), float(r)) for m, r in zip(np.ravel(ball.mid), np.ravel(ball.rad))]


def smat_arb(v: list, n: int) -> list:
    """The symmetric n x n arb matrix of an svec vector (column-major upper triangle, off-diagonal entries
    scaled by sqrt 2)."""
    arb = arb_class()
    r2 = arb(2).sqrt()
    M = [[None] * n for _ in range(n)]
    k = 0
    for j in range(n):
        for i in range(j + 1):
            M[i][j] = M[j][i] = v[k] if i == j else v[k] / r2
            k += 1
    return M


def chol_pd(M: list) -> bool:
    """True when an interval Cholesky factorisation of the (ball) matrix M succeeds: M is positive definite."""
    n = len(M)
    L = [[None] * n for _ in range(n)]
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


def soc_norm_hi(V: np.ndarray) -> np.ndarray:
    """Upper bounds of ||V[k, 1:]|| per row of a float array."""
    s = np.sum(V[:, 1:] ** 2, axis=1) * (1 + 4 * (V.shape[1] + 4) * _U) + 1e-290
    return np.nextafter(np.sqrt(s), np.inf) * (1 + 4 * _U)


def exactly_in_cone(cone: Cone, v: np.ndarray) -> bool:
    """Whether the exact floating-point vector v lies in the cone, decided without rounding (nonneg: v >= 0; SOC:
    a nonnegative head with an exactly zero body); False where that needs arithmetic (then `in_cone` decides)."""
    if cone.kind == "nonneg":
        return bool(np.all(v >= 0))
    if cone.kind == "soc":
        V = np.asarray(v, float).reshape(cone.count, cone.dim)
        return bool(np.all(V[:, 0] >= 0) and np.all(V[:, 1:] == 0))
    return False


def in_cone(cone: Cone, s: Ball) -> bool:
    """Proves that every point of the ball vector s lies in the cone (zero cones: see `_verify_point`)."""
    if cone.kind == "zero":
        return bool(np.all(s.lo() >= 0) and np.all(s.hi() <= 0))
    if cone.kind == "nonneg":
        return bool(np.all(s.lo() >= 0))
    d = cone.dim
    if cone.kind == "soc":
        S = Ball(s.mid.reshape(cone.count, d), s.rad.reshape(cone.count, d))
        head = S[:, 0]
        body = Ball(S.mid[:, 1:], S.rad[:, 1:]).sqr().sum(axis=1) if d > 1 else Ball(np.zeros(cone.count))
        return bool(np.all(head.lo() >= 0) and np.all(head.sqr().lo() >= body.hi()))
    if cone.kind not in ("psd", "pow", "pownd", "exp"):
        return False
    M, Rd = s.mid.reshape(cone.count, d), s.rad.reshape(cone.count, d)
    if cone.kind != "psd" and not _plausibly_in_cone(cone, M):
        return False  # clearly outside in floating point: no proof needed to say 'not proved'
    arb = arb_class()
    a = None
    if cone.kind in ("pow", "pownd"):
        a = [arb(t) for t in cone.weights]
    for mrow, rrow in zip(M, Rd):
        p = [arb(float(m), float(r)) for m, r in zip(mrow, rrow)]
        if cone.kind == "psd":
            if not chol_pd(smat_arb(p, cone.side)):
                return False
        elif cone.kind in ("pow", "pownd"):
            xs, w = p[:-1], p[-1]
            if not all(arb_lo(u) > 0 for u in xs):
                return False
            g = sum((ai * u.log() for ai, u in zip(a, xs)), arb(0)).exp()
            if not arb_lo(g) >= max(abs(arb_lo(w)), abs(arb_hi(w))):
                return False
        else:  # exp: y > 0, z > 0 and log(y) + x / y <= log(z), i.e. y exp(x/y) <= z
            x, y, z = p
            if not (arb_lo(y) > 0 and arb_lo(z) > 0):
                return False
            if not arb_hi(y.log() + x / y - z.log()) <= 0:
                return False
    return True


def _plausibly_in_cone(cone: Cone, M: np.ndarray) -> bool:
    """A floating-point screen (rows of M, one per copy): False when some copy is clearly outside the cone,
    so that a failing test skips the per-copy arb proofs. True proves nothing."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if cone.kind == "exp":
            x, y, z = M[:, 0], M[:, 1], M[:, 2]
            gap = np.log(z) - np.log(y) - x / y
            return bool(np.all((y > 0) & (z > 0) & ~(gap < -1e-9 * (1 + np.abs(np.log(z)) + np.abs(x / y)))))
        a = np.array(cone.weights)
        X, w = M[:, :-1], np.abs(M[:, -1])
        g = np.exp(np.log(X) @ a)
        return bool(np.all(np.all(X > 0, axis=1) & ~(g < w * (1 - 1e-9))))


def in_dual_cone(cone: Cone, w: Ball) -> bool:
    """Proves that every point of the ball vector w lies in K* for exp / pow / pownd blocks (all copies)."""
    d = cone.dim
    for c in range(cone.count):
        p = _to_arb(w[c * d:(c + 1) * d])
        if cone.kind == "exp":  # u < 0, w > 0 and log(-u) + v/u - 1 <= log(w)
            u, v, ww = p
            if not (arb_hi(u) < 0 and arb_lo(ww) > 0):
                return False
            if not arb_hi((-u).log() + v / u - 1 - ww.log()) <= 0:
                return False
        elif cone.kind in ("pow", "pownd"):  # u_i > 0 and prod (u_i / a_i)^a_i >= |w|
            a = cone.weights
            us, ww = p[:-1], p[-1]
            if not all(arb_lo(u) > 0 for u in us):
                return False
            g = dual_power_mean(a, us)
            if not arb_lo(g) >= max(abs(arb_lo(ww)), abs(arb_hi(ww))):
                return False
        else:
            return False
    return True


def dual_power_mean(weights, us):
    """``prod_i (u_i / a_i)^a_i`` in arb (u_i > 0 arb balls): the bound on |w| of the power cone's dual cone."""
    arb = arb_class()
    return sum((arb(ai) * (u / arb(ai)).log() for ai, u in zip(weights, us)), arb(0)).exp()
