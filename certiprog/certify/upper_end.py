"""The upper end of the optimality interval: the objective over a ball proved to hold a feasible point
(`upper_bound`).

The solver's point is clipped into its variable bounds, its equality rows are made exact
(`certiprog.certify.equalities`), and every other block is proved to hold over the whole enclosure
(`certiprog.conic.cones.Cone.contains`); a point that fails is repaired by raising epigraph columns
(`certiprog.certify.lift`) or moved toward a strictly feasible point (`certiprog.certify.interior`). The
derivation: docs/derivations/optimality-interval.md (the upper end).
"""
from __future__ import annotations

import numpy as np

from .cache import abs_csr_A, csr_A
from .equalities import SparseEqualities, equality_basis, equality_split
from .interior import interior_point
from .lift import Lift
from .rigorous import Ball, matvec, quad, solve


def _clip_to_bounds(problem, x: np.ndarray) -> np.ndarray:
    """x moved into the box of the single-entry inequality rows ``a x_j <= b`` (variable bounds), slightly inside
    (a relative 1e-15, at least 1e-250 / |a|) so that the slack's enclosure proves the bound; x itself when nothing
    moves. A QP solver's point often leaves its bounds by ~1e-16; this repairs it without a margin problem."""
    A = csr_A(problem)
    rows = np.flatnonzero((np.diff(A.indptr) == 1) & problem.rows_in("nonneg"))
    if rows.size == 0:
        return x
    cols, a = A.indices[A.indptr[rows]], A.data[A.indptr[rows]]
    keep = a != 0
    rows, cols, a = rows[keep], cols[keep], a[keep]
    bound = problem.b[rows] / a
    pad = np.maximum(1e-15 * np.abs(bound), 1e-250 / np.abs(a))
    hi = np.full(x.size, np.inf)
    lo = np.full(x.size, -np.inf)
    np.minimum.at(hi, cols[a > 0], (bound - pad)[a > 0])
    np.maximum.at(lo, cols[a < 0], (bound + pad)[a < 0])
    xc = np.where(lo <= hi, np.clip(x, lo, hi), x)
    if np.array_equal(xc, x) or np.any(np.abs(xc - x) > 1e-8 * (1 + np.abs(x))):  # only a rounding-size repair
        return x
    return xc


def _verify_point(problem, x, eq_rows, basic, lift: Lift | None = None) -> float | None:
    """Upper end of f over a ball proved to contain a feasible point near x; None if not proved.

    ``lift``: raise the monotone columns after the equality solve (`Lift`)."""
    X = Ball(np.array(x, float))  # a copy: the equality solve and the lift write into it, never into the caller's x
    A = csr_A(problem)
    if isinstance(basic, SparseEqualities):
        if not basic.correct(problem, X):
            return None
    elif eq_rows.size:
        AEB, AEN, nonbasic = equality_split(problem, eq_rows, basic)
        rhs = Ball(problem.b[eq_rows]) - matvec(AEN, X[nonbasic])
        try:
            sol = solve(AEB, rhs)
        except ValueError:
            return None
        X.mid[basic], X.rad[basic] = sol.mid, sol.rad
    S = lift.apply(problem, X) if lift is not None else None  # the slack's enclosure at the lifted X, or None
    absA = abs_csr_A(problem)
    # a row touching only exactly-zero entries of x has slack exactly b (products with exact zeros carry no
    # rounding): such a block is judged on b itself, e.g. an SOC at its apex (0, 0), which no enclosure proves
    exact = np.zeros(problem.m, bool)
    zero_x = (X.mid == 0) & (X.rad == 0)
    if zero_x.any():
        exact = (absA @ (~zero_x).astype(float)) == 0
    blocks = [blk for blk in problem.blocks if blk.cone.kind != "zero"  # zero rows: exact by the equality solve
              and not (exact[blk.start:blk.stop].all() and blk.cone.contains_exactly(problem.b[blk.start:blk.stop]))]
    # the enclosure's midpoint first (bitwise the one `matvec` computes): a block it leaves clearly outside its cone
    # cannot be proved, so a point on a boundary (a hinge column at its value) is given up for the cost of one
    # product, not a rigorous one
    AX = A @ X.mid if S is None else None
    mid = S.mid if S is not None else problem.b - AX  # (bitwise the same: S.mid is b + -(A @ X.mid))
    if not np.all(np.isfinite(mid)) or not all(blk.cone.plausibly_contains(mid[blk.start:blk.stop]) for blk in blocks):
        return None
    S = S if S is not None else Ball(problem.b) - matvec(A, X, abs_A=absA, product=AX)
    for blk in blocks:
        if not blk.cone.contains(S[blk.start:blk.stop]):
            return None
    f = quad(problem.P, X) * 0.5 + X.dot(Ball(problem.q)) + float(problem.r0)
    return f.hi()


def upper_bound(problem, x, repair: bool = True, eps: float | None = None) -> tuple[float, str, dict]:
    """Rigorous upper bound on p* (minimisation form) from a primal point, repaired if needed.

    ``eps``: proximity weight of the repair's margin problem (`interior_point`)."""
    info: dict = {}  # how the upper end was found (the certificate's report)
    try:
        rows, basic = equality_basis(problem)
    except ValueError as exc:
        return np.inf, str(exc), info
    x = np.asarray(x, float)
    xb = _clip_to_bounds(problem, x)  # variable bounds, then epigraph columns: no solver needed for these
    # a point a rounding-size clip moves has left a variable bound (by ~1e-16): the clipped one first
    for point in ((xb, x) if xb is not x else (x,)):
        U = _verify_point(problem, point, rows, basic)
        if U is not None:
            info["repair"] = 0.0
            if point is xb and xb is not x:
                info["clipped"] = True
            return U, "", info
    lift = Lift(problem)
    if lift.useful:  # raise epigraph columns first: no solver needed when only their rows are violated
        U = _verify_point(problem, x, rows, basic, lift)
        if U is not None:
            info["repair"] = 0.0
            info["lifted"] = True
            return U, "", info
        # core entries at rounding level set to exactly 0, then lifted: a feasible set with no interior around a
        # point such as w = 0 (000 eq. (8) with the background too close: only w = 0 is feasible, and the
        # solver's w ~ 1e-10 with its norm column on the cone's apex is proved by no margin problem)
        core = lift.core_cols
        tiny = core[np.abs(x[core]) <= 1e-7 * max(1.0, float(np.max(np.abs(x[core]), initial=0.0)))]
        if tiny.size and np.any(x[tiny] != 0):
            xs = x.copy()
            xs[tiny] = 0.0
            U = _verify_point(problem, xs, rows, basic, lift)
            if U is not None:
                info["repair"] = 0.0
                info["lifted"] = True
                info["snapped_to_zero"] = int(tiny.size)
                return U, "", info
    if not repair:
        return np.inf, "the primal point could not be proved feasible (repair disabled)", info
    core = lift.core_problem(problem) if lift.useful else None
    if core is not None and core.n < problem.n:  # a strictly feasible core point from a small margin problem
        C = lift.core_cols
        scale = 1.0 + float(np.max(np.abs(core.b), initial=0.0)) + \
            float(np.max(abs(core.A) @ np.abs(x[C]), initial=0.0))
        for t_max in (1e-7 * scale, 1e-4 * scale, 1.0):  # a small margin first: the point stays near x
            # (a firm proximity weight when the margin is capped small: the nearest such point, not any)
            xc_core, t = interior_point(core, x[C], eps if t_max == 1.0 else 1.0, t_max=t_max)
            info["interior_margin"] = t
            if not t > 0:
                continue
            xc = x.copy()
            xc[C] = xc_core
            for lam in 10.0 ** np.arange(-10, 0.01, 0.5):
                U = _verify_point(problem, (1 - lam) * x + lam * xc, rows, basic, lift)
                if U is not None:
                    info["repair"] = lam
                    info["lifted"] = True
                    return U, "", info
    xc, t = interior_point(problem, x, eps)
    info["interior_margin"] = t
    if not t > 0:
        return np.inf, "the primal point is not provably feasible and no strictly feasible point was found", info
    for lam in 10.0 ** np.arange(-10, 0.01, 0.5):
        U = _verify_point(problem, (1 - lam) * x + lam * xc, rows, basic, lift if lift.useful else None)
        if U is not None:
            info["repair"] = lam
            return U, "", info
    return np.inf, "no point on the segment to a strictly feasible point could be proved feasible", info
