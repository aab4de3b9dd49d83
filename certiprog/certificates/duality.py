"""A rigorous optimality interval ``lower <= p* <= upper`` from an approximate primal-dual pair.

Notation (minimisation form of `ConicProblem`)::

    p* = inf f(x) = 1/2 x'Px + q'x + r0   s.t.  s = b - A x in K.

Lower bound (weak duality with the residual absorbed)
-----------------------------------------------------
Take the solver's dual ``z`` and project it onto K* block by block; then push it
*rigorously* into K* (SOC: raise z_0 to an upper bound of ||z_1||; PSD: add
mu*I until an interval Cholesky factorisation proves positive definiteness;
power cone: shrink |w| below a lower bound of (u/a)^a (v/(1-a))^(1-a)).
For every feasible x, ``z's >= 0`` (z in K*, s in K), hence with the Lagrangian
``L(x, z) = f(x) + z'(Ax - b)``::

    f(x) >= L(x, z) = L(x^, z) + r'(x - x^) + 1/2 (x - x^)'P(x - x^),   r = P x^ + q + A'z

for any expansion point x^. If every feasible x that can matter lies in a box
``lo <= x <= hi`` and P is PSD,

    p* >= L(x^, z) + sum_j min(r_j (lo_j - x^_j), r_j (hi_j - x^_j)).

When P is diagonal (the usual case: ``sum_squares`` compiles to a diagonal P on
auxiliary columns) no expansion point is needed: ``min_box L(., z)`` is
separable and taken exactly per coordinate (``d_j/2 t^2 + v_j t``, ``v = q + A'z``),
so coordinates with ``d_j > 0`` need no bound at all.
A column with an infinite bound and a coefficient (``r_j`` or ``v_j``) that is not
exactly zero would give -inf; such columns are zeroed *exactly* by correcting
the duals of equality rows (free in K*): ``A_RJ' dz = -v_J`` is solved with
``arb_mat.solve`` and everything is evaluated over the ball of dz, which contains
the exact solution. Only if that is impossible (more such columns than
independent equality rows) is the bound -inf, and the interval says why.
If P is only proved to satisfy ``P + mu I > 0`` (interval Cholesky), the term
``- mu/2 max_box ||x - x^||^2`` is added. ``L(x^, z)``, ``r`` and the sum are
evaluated in arb ball arithmetic (python-flint) from the exact float data, so
rounding cannot invalidate the bound.

The box comes from ``x_bound`` (user columns; see `variable_box`) intersected
with bounds derived by feasibility-based bound tightening over the rows
(linear rows of zero/nonneg blocks; ``|s_j| <= s_0`` of SOC blocks; diagonal
``>= 0`` and ``|s_ij| <= (s_ii + s_jj)/sqrt 2`` of PSD blocks; ``|w| <= u + v`` of
power cones) and over the objective level set ``f(x) <= upper`` (separable when
P is diagonal, linear when P = 0). It is enough that the box contains every
feasible x with ``f(x) <= upper``: p* is the infimum over that set. Derived
bounds are widened by a relative 1e-9 (far above the floating-point error of
the n-term sums involved).

Upper bound
-----------
``f`` at a point proved feasible in ball arithmetic: equality rows are solved
for a well-conditioned set of basic columns (chosen by pivoted QR) with
``arb_mat.solve``, which returns balls containing the exact solution; then the
other blocks are checked for cone membership over the whole ball (nonneg:
lower ends >= 0; SOC: s_0 >= ||s_1||; PSD: interval Cholesky; power cone via
logarithms). If the solver's point fails, it is moved toward a strictly
feasible point found by a small Clarabel margin problem
(``max t s.t. s - t e in K``), ``x_l = (1 - l) x^ + l x_c`` for growing l.

All values are reported in the user's sense (maximisation flips the interval).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from ..model.cones import Cone, project

_INFL = 1e-9  # relative widening of derived bounds


# --------------------------------------------------------------------------- arb helpers
def _arb():
    from flint import arb, ctx

    ctx.prec = max(ctx.prec, 128)
    return arb


def _lo(a) -> float:
    v = float(a.lower())
    return -np.inf if np.isnan(v) else float(np.nextafter(v, -np.inf))


def _hi(a) -> float:
    v = float(a.upper())
    return np.inf if np.isnan(v) else float(np.nextafter(v, np.inf))


def _vec(v) -> list:
    arb = _arb()
    return [arb(float(t)) for t in np.asarray(v, float)]


def _matvec(M, v: list, transpose: bool = False) -> list:
    """Ball enclosure of M @ v (or M.T @ v) for sparse float M and a list of arb."""
    arb = _arb()
    M = sp.csr_matrix(M.T if transpose else M)
    out = []
    for i in range(M.shape[0]):
        acc = arb(0)
        for k in range(M.indptr[i], M.indptr[i + 1]):
            acc += float(M.data[k]) * v[M.indices[k]]
        out.append(acc)
    return out


def _dot(u: list, v: list):
    acc = _arb()(0)
    for a, b in zip(u, v):
        acc += a * b
    return acc


def _smat_arb(v: list, n: int) -> list:
    arb = _arb()
    r2 = arb(2).sqrt()
    M = [[None] * n for _ in range(n)]
    k = 0
    for j in range(n):
        for i in range(j + 1):
            M[i][j] = M[j][i] = v[k] if i == j else v[k] / r2
            k += 1
    return M


def _chol_pd(M: list) -> bool:
    """True when an interval Cholesky factorisation of the (ball) matrix M succeeds: M is positive definite."""
    n = len(M)
    L = [[None] * n for _ in range(n)]
    for j in range(n):
        d = M[j][j]
        for k in range(j):
            d -= L[j][k] * L[j][k]
        if not _lo(d) > 0:
            return False
        L[j][j] = d.sqrt()
        for i in range(j + 1, n):
            t = M[i][j]
            for k in range(j):
                t -= L[i][k] * L[j][k]
            L[i][j] = t / L[j][j]
    return True


def _in_cone(cone: Cone, s: list) -> bool:
    """Proves (ball arithmetic) that every point of the ball vector s lies in the cone."""
    arb = _arb()
    if cone.kind == "zero":
        return all(_lo(t) >= 0 and _hi(t) <= 0 for t in s)
    if cone.kind == "nonneg":
        return all(_lo(t) >= 0 for t in s)
    d = cone.dim
    for c in range(cone.count):
        p = s[c * d:(c + 1) * d]
        if cone.kind == "soc":
            nrm = sum((t * t for t in p[1:]), arb(0))
            if not (_lo(p[0]) >= 0 and _lo(p[0] * p[0] - nrm) >= 0):
                return False
        elif cone.kind == "psd":
            if not _chol_pd(_smat_arb(p, cone.side)):
                return False
        elif cone.kind == "pow":
            u, v, w = p
            a = cone.alpha
            if not (_lo(u) > 0 and _lo(v) > 0):
                return False
            g = (a * u.log() + (1 - a) * v.log()).exp()
            if not _lo(g) >= max(abs(_lo(w)), abs(_hi(w))):
                return False
        else:
            return False
    return True


# --------------------------------------------------------------------------- dual cone, rigorously
def dual_in_cone(problem, z: np.ndarray) -> tuple[np.ndarray, float]:
    """z projected onto K* and nudged so that membership is proved; returns (z, ||change||)."""
    arb = _arb()
    zz = np.array(z, float)
    for blk in problem.blocks:
        c, r = blk.cone, slice(blk.start, blk.stop)
        if c.kind == "zero":
            continue
        v = project(c, zz[r], dual=True)
        if c.kind == "soc":
            v = v.reshape(c.count, c.dim)
            for p in v:
                p[0] = max(p[0], _hi(sum((arb(float(t)) ** 2 for t in p[1:]), arb(0)).sqrt()))
            v = v.reshape(-1)
        elif c.kind == "psd":
            v = v.reshape(c.count, c.dim)
            n = c.side
            diag = np.array([j * (j + 1) // 2 + j for j in range(n)])
            for p in v:
                mu, base = 0.0, p.copy()
                scale = 1.0 + np.abs(p).max()
                while not _chol_pd(_smat_arb(_vec(p), n)):
                    mu = 1e-15 * scale if mu == 0 else mu * 10
                    p[:] = base
                    p[diag] += mu
            v = v.reshape(-1)
        elif c.kind == "pow":
            v = v.reshape(c.count, 3)
            a = c.alpha
            for p in v:
                if p[0] <= 0 or p[1] <= 0:
                    p[0], p[1], p[2] = max(p[0], 0.0), max(p[1], 0.0), 0.0
                    continue
                g = (a * (arb(float(p[0])) / a).log() + (1 - a) * (arb(float(p[1])) / (1 - a)).log()).exp()
                p[2] = np.sign(p[2]) * min(abs(p[2]), max(_lo(g), 0.0))
            v = v.reshape(-1)
        zz[r] = v
    return zz, float(np.linalg.norm(zz - z))


# --------------------------------------------------------------------------- P is PSD?
def psd_shift(P) -> tuple[float, np.ndarray]:
    """(mu, cols): proved P + mu I > 0 on the columns ``cols`` touched by P (mu = 0: P is PSD exactly)."""
    P = sp.csr_matrix(P)
    P.eliminate_zeros()
    cols = np.unique(P.indices)
    if cols.size == 0:
        return 0.0, cols
    Q = P[cols][:, cols]
    if (Q - sp.diags(Q.diagonal())).nnz == 0:
        d = Q.diagonal()
        return float(max(0.0, -d.min())), cols
    if cols.size > 300:
        return np.inf, cols
    Qd = Q.toarray()
    arb = _arb()
    scale = float(np.abs(Qd).max())
    for mu in [0.0] + [scale * 10.0**k for k in range(-15, -3)]:
        M = [[arb(float(Qd[i, j])) + (mu if i == j else 0.0) for j in range(len(cols))] for i in range(len(cols))]
        if _chol_pd(M):
            return mu, cols
    return np.inf, cols


# --------------------------------------------------------------------------- bounds on x
def _linear_rows(problem):
    """Rows (G, h) with G x <= h implied by the blocks (see module docstring)."""
    A, b = sp.csr_matrix(problem.A), problem.b
    Gs, hs = [], []
    for blk in problem.blocks:
        c, r0 = blk.cone, blk.start
        if c.kind in ("zero", "nonneg"):
            Ab, bb = A[blk.start:blk.stop], b[blk.start:blk.stop]
            Gs.append(Ab), hs.append(bb)
            if c.kind == "zero":
                Gs.append(-Ab), hs.append(-bb)
            continue
        for k in range(c.count):
            i0 = r0 + k * c.dim
            Ab, bb = A[i0:i0 + c.dim], b[i0:i0 + c.dim]
            if c.kind == "soc":  # s_0 >= 0, s_j - s_0 <= 0, -s_j - s_0 <= 0 (in terms of G x <= h)
                m = c.dim - 1
                top = sp.vstack([Ab[0]] * m) if m else sp.csr_matrix((0, A.shape[1]))
                Gs += [Ab[0], top - Ab[1:], top + Ab[1:]]
                hs += [bb[:1], bb[0] - bb[1:], bb[0] + bb[1:]]
            elif c.kind == "psd":
                n = c.side
                idx = {}
                kk = 0
                for j in range(n):
                    for i in range(j + 1):
                        idx[(i, j)] = kk
                        kk += 1
                dg = [idx[(j, j)] for j in range(n)]
                Gs.append(Ab[dg]), hs.append(bb[dg])
                w = 0.7072  # >= 1/sqrt(2): |s_ij| <= w (s_ii + s_jj)
                for (i, j), kk in idx.items():
                    if i == j:
                        continue
                    d = Ab[idx[(i, i)]] + Ab[idx[(j, j)]]
                    e = bb[idx[(i, i)]] + bb[idx[(j, j)]]
                    Gs += [w * d - Ab[kk], w * d + Ab[kk]]
                    hs += [[w * e - bb[kk]], [w * e + bb[kk]]]
            elif c.kind == "pow":
                Gs += [Ab[0], Ab[1], Ab[0] + Ab[1] - Ab[2], Ab[0] + Ab[1] + Ab[2]]
                hs += [bb[:1], bb[1:2], [bb[0] + bb[1] - bb[2]], [bb[0] + bb[1] + bb[2]]]
    if not Gs:
        return sp.csr_matrix((0, A.shape[1])), np.zeros(0)
    return sp.csr_matrix(sp.vstack(Gs)), np.concatenate([np.atleast_1d(np.asarray(h, float)) for h in hs])


def _improves(new, old, side) -> np.ndarray:
    """new is a notably tighter bound than old (side -1: upper bounds, +1: lower bounds)."""
    with np.errstate(invalid="ignore"):
        tight = side * (new - old) > 1e-7 * (1 + np.abs(old))
    return np.isfinite(new) & (~np.isfinite(old) | tight)


def _tighten_rows(G, h, lo, hi) -> bool:
    """One FBBT pass over G x <= h; updates lo, hi in place; True if something changed notably."""
    if G.shape[0] == 0:
        return False
    a, col = G.data, G.indices
    row = np.repeat(np.arange(G.shape[0]), np.diff(G.indptr))
    with np.errstate(invalid="ignore", over="ignore"):
        c = np.where(a > 0, a * lo[col], a * hi[col])
    c = np.where(a == 0, 0.0, c)
    inf = ~np.isfinite(c)
    cf = np.where(inf, 0.0, c)
    fin_sum = np.bincount(row, cf, G.shape[0])
    abs_sum = np.bincount(row, np.abs(cf), G.shape[0])
    n_inf = np.bincount(row, inf.astype(float), G.shape[0])
    rest_inf = n_inf[row] - inf
    ok = (rest_inf == 0) & (a != 0)
    rest = fin_sum[row] - cf
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        val = (h[row] - rest) / a
        pad = _INFL * (np.abs(h[row]) + abs_sum[row] + np.abs(val * a)) / np.abs(a) + 1e-300
    changed = False
    up = ok & (a > 0)
    if up.any():
        new = np.full(lo.size, np.inf)
        np.minimum.at(new, col[up], val[up] + pad[up])
        better = _improves(new, hi, -1)
        changed |= bool(better.any())
        np.minimum(hi, new, out=hi)
    dn = ok & (a < 0)
    if dn.any():
        new = np.full(lo.size, -np.inf)
        np.maximum.at(new, col[dn], val[dn] - pad[dn])
        better = _improves(new, lo, 1)
        changed |= bool(better.any())
        np.maximum(lo, new, out=lo)
    return changed


def _tighten_objective(problem, U, lo, hi) -> bool:
    """Bounds from f(x) <= U when P is diagonal with P >= 0 (separable quadratic)."""
    P = sp.csr_matrix(problem.P)
    d = P.diagonal()
    if (P - sp.diags(d)).count_nonzero() or (d < 0).any() or not np.isfinite(U):
        return False
    q = problem.q
    # minimum of h_j(x) = d/2 x^2 + q x over [lo, hi]
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        def h(t):
            return np.where(np.isfinite(t), 0.5 * d * t * t + q * t, np.where((d > 0) | (q * t > 0), np.inf, -np.inf))

        cand = [h(lo), h(hi)]
        xs = np.where(d > 0, np.clip(-q / np.where(d > 0, d, 1), lo, hi), lo)
        cand.append(np.where(d > 0, h(xs), np.inf))
        m = np.minimum.reduce(cand)
        m = np.where((d == 0) & (q == 0), 0.0, m)
    inf = ~np.isfinite(m)
    if inf.sum() > 1:
        return False
    R_all = U - problem.r0 - m[~inf].sum()
    pad_all = _INFL * (abs(U) + abs(problem.r0) + np.abs(m[~inf]).sum()) + 1e-300
    changed = False
    for j in range(lo.size):
        if inf.sum() == 1 and not inf[j]:
            continue
        if d[j] == 0 and q[j] == 0:
            continue
        R = R_all + (0.0 if inf[j] else m[j]) + pad_all
        if d[j] > 0:
            disc = q[j] ** 2 + 2 * d[j] * R
            if disc < 0:
                continue  # infeasible level set: leave bounds as they are
            sq = np.sqrt(disc) * (1 + _INFL)
            new_lo, new_hi = (-q[j] - sq) / d[j], (-q[j] + sq) / d[j]
            new_lo -= _INFL * (1 + abs(new_lo))
            new_hi += _INFL * (1 + abs(new_hi))
        elif q[j] > 0:
            new_lo, new_hi = -np.inf, R / q[j] + _INFL * (1 + abs(R / q[j]))
        else:
            new_lo, new_hi = R / q[j] - _INFL * (1 + abs(R / q[j])), np.inf
        if _improves(np.array(new_hi), np.array(hi[j]), -1) or _improves(np.array(new_lo), np.array(lo[j]), 1):
            changed = True
        hi[j], lo[j] = min(hi[j], new_hi), max(lo[j], new_lo)
    return changed


def variable_box(problem, x_bound=None, upper: float = np.inf, rounds: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Box ``lo <= x <= hi`` (stacked columns) containing every feasible x with f(x) <= upper.

    ``x_bound``: None; a number R (every entry of every *user* variable in [-R, R], e.g. from a ball
    ||x|| <= R); a dict ``{variable name: R or (lo, hi)}``; or a pair of arrays (lo, hi) over all columns.
    ``upper`` is in the minimisation form of the problem.
    """
    n = problem.n
    lo, hi = np.full(n, -np.inf), np.full(n, np.inf)
    if x_bound is not None:
        if isinstance(x_bound, dict):
            for name, bnd in x_bound.items():
                if name not in problem.columns:
                    raise InputError(f"x_bound names {name!r}, which is no variable here; have {list(problem.columns)}")
                _, a, b = problem.columns[name]
                l_, h_ = (-float(bnd), float(bnd)) if np.isscalar(bnd) else bnd
                lo[a:b], hi[a:b] = np.maximum(lo[a:b], l_), np.minimum(hi[a:b], h_)
        elif np.isscalar(x_bound):
            R = float(x_bound)
            if not R > 0:
                raise InputError(f"x_bound must be positive, got {x_bound!r}")
            for name, (_, a, b) in problem.columns.items():
                if not name.startswith("_"):
                    lo[a:b], hi[a:b] = -R, R
        else:
            l_, h_ = (np.broadcast_to(np.asarray(t, float), (n,)) for t in x_bound)
            lo, hi = np.maximum(lo, l_), np.minimum(hi, h_)
    G, h = _linear_rows(problem)
    for _ in range(rounds):
        ch = _tighten_rows(G, h, lo, hi)
        ch |= _tighten_objective(problem, upper, lo, hi)
        if not ch:
            break
    return lo, hi


# --------------------------------------------------------------------------- lower bound
def _min_linear(v, lo_e, hi_e) -> float:
    """Lower bound of min v*t over t in [lo_e, hi_e] (ball v; infinite ends allowed)."""
    arb = _arb()
    if v.mid() == 0 and v.rad() == 0:
        return 0.0
    out = np.inf
    for e in (lo_e, hi_e):
        if np.isfinite(e):
            out = min(out, _lo(v * arb(float(e))))
        elif not ((e > 0 and _lo(v) > 0) or (e < 0 and _hi(v) < 0)):
            return -np.inf
    return out


def _min_quadratic(d: float, c, lo_e, hi_e) -> float:
    """Lower bound of min d/2 t^2 + c t over t in [lo_e, hi_e], d > 0 (ball c)."""
    arb = _arb()
    vert = -c / d

    def h(t):
        return _lo(arb(0.5) * d * arb(float(t)) ** 2 + c * arb(float(t)))

    if np.isfinite(hi_e) and _lo(vert) >= hi_e:
        return h(hi_e)
    if np.isfinite(lo_e) and _hi(vert) <= lo_e:
        return h(lo_e)
    return _lo(-(c * c) / (2 * d))


def _zero_columns(problem, J, v):
    """Ball dz on equality rows R with (v + A_R' dz)_J = 0 exactly for the exact solution dz* in the ball."""
    import scipy.linalg as sla
    from flint import arb_mat

    E = np.concatenate([np.arange(b.start, b.stop) for b in problem.blocks if b.cone.kind == "zero"] or
                       [np.zeros(0, int)])
    if len(J) > E.size:
        return None
    AEJ = sp.csr_matrix(problem.A)[E][:, J].toarray()
    _, Rm, piv = sla.qr(AEJ.T, pivoting=True, mode="economic")
    dg = np.abs(np.diag(Rm))
    if dg.size < len(J) or dg.min() <= 1e-12 * max(dg.max(), 1e-300):
        return None
    R = np.sort(E[piv[:len(J)]])
    M = sp.csr_matrix(problem.A)[R][:, J].toarray().T  # |J| x |J|: M dz = -v_J
    try:
        sol = arb_mat([[float(t) for t in row] for row in M]).solve(arb_mat([[-v[j]] for j in J]))
    except (ZeroDivisionError, ValueError):
        return None
    return R, [sol[k, 0] for k in range(len(J))]


def lower_bound(problem, x, z, lo, hi) -> tuple[float, str, dict]:
    """Rigorous lower bound on p* (minimisation form); see the module docstring.

    With P diagonal the minimum of L(., z) over the box is taken exactly per coordinate (no expansion
    point, no residual term); otherwise L is linearised at x^. Columns whose bound is infinite and whose
    coefficient is not exactly zero are zeroed exactly by a verified correction of the (free) duals of
    equality rows, when there are enough of them.
    """
    arb = _arb()
    info = {}
    zc, dz = dual_in_cone(problem, z)
    info["z_change"] = dz
    P = sp.csr_matrix(problem.P)
    P.eliminate_zeros()
    d = P.diagonal()
    diag = (P - sp.diags(d)).count_nonzero() == 0 and (d >= 0).all()
    mu, pcols = (0.0, np.zeros(0, int)) if diag else psd_shift(P)
    info["P_shift"] = mu
    xh = np.clip(np.asarray(x, float), lo, hi)
    X, Z = _vec(xh), _vec(zc)
    ATz = _matvec(problem.A, Z, transpose=True)
    q, b = _vec(problem.q), _vec(problem.b)
    if diag:  # L(x, z) = sum_j (d_j/2 x_j^2 + v_j x_j) + r0 - b'z,  v = q + A'z
        v = [qq + t for qq, t in zip(q, ATz)]
        const = arb(float(problem.r0)) - _dot(Z, b)
        shift = np.zeros(problem.n)
    else:  # L(x, z) >= L(x^, z) + v'(x - x^),  v = P x^ + q + A'z
        Px = _matvec(P, X)
        v = [p + qq + t for p, qq, t in zip(Px, q, ATz)]
        const = arb(0.5) * _dot(X, Px) + _dot(q, X) + arb(float(problem.r0)) + _dot(Z, _matvec(problem.A, X)) \
            - _dot(Z, b)
        shift = xh

    def term(j):
        if diag and d[j] > 0:
            return _min_quadratic(float(d[j]), v[j], lo[j], hi[j])
        return _min_linear(v[j], lo[j] - shift[j], hi[j] - shift[j])

    info["residual_norm"] = float(np.sqrt(sum(float(t.mid()) ** 2 for t in v))) if not diag else np.nan
    terms = [term(j) for j in range(problem.n)]
    J = [j for j, t in enumerate(terms) if t == -np.inf]
    if J:
        fix = _zero_columns(problem, J, v)
        if fix is None:
            names = sorted({_col_name(problem, j) for j in J})
            return -np.inf, (f"no bound on column(s) of {names[:6]} whose coefficient in the Lagrangian is not "
                             "exactly zero; pass x_bound= (box or ball radius of the variables)"), info
        R, dzR = fix
        AR = sp.csr_matrix(problem.A)[R]
        corr = _matvec(AR, dzR, transpose=True)
        v = [a + c for a, c in zip(v, corr)]
        rhs = [arb(float(t)) for t in problem.b[R]]
        if diag:
            const = const - _dot(dzR, rhs)
        else:
            const = const + _dot(dzR, [t - r for t, r in zip(_matvec(AR, X), rhs)])
        Jset = set(J)
        terms = [0.0 if j in Jset else term(j) for j in range(problem.n)]
        info["equality_dual_correction"] = len(J)
        if min(terms) == -np.inf:
            return -np.inf, "the equality-dual correction left a column unbounded", info
    total = const + sum((arb(t) for t in terms), arb(0))
    if mu > 0:
        if not np.isfinite(mu):
            return -np.inf, "P could not be proved PSD (too large for the interval Cholesky test)", info
        D2 = sum(max((lo[j] - xh[j]) ** 2, (hi[j] - xh[j]) ** 2) for j in pcols)
        if not np.isfinite(D2):
            return -np.inf, "P is PSD only up to a shift and its columns are unbounded", info
        total = total - arb(mu) * arb(D2) * (1 + 1e-12) / 2
    return _lo(total), "", info


def _col_name(problem, j: int) -> str:
    for name, (_, a, b) in problem.columns.items():
        if a <= j < b:
            return name
    return f"column {j}"


# --------------------------------------------------------------------------- upper bound
def _equality_basis(problem):
    """(rows, basic columns) for the zero-cone rows, or raise ValueError if they are rank deficient."""
    import scipy.linalg as sla

    rows = np.concatenate([np.arange(b.start, b.stop) for b in problem.blocks if b.cone.kind == "zero"] or
                          [np.zeros(0, int)])
    if rows.size == 0:
        return rows, rows
    AE = sp.csr_matrix(problem.A)[rows].toarray()
    _, R, piv = sla.qr(AE, pivoting=True, mode="economic")
    d = np.abs(np.diag(R))
    if d.size < rows.size or d.min() <= 1e-10 * max(d.max(), 1e-300):
        raise ValueError("the equality rows are rank deficient (redundant or inconsistent equalities)")
    return rows, np.sort(piv[: rows.size])


def _verify_point(problem, x, eq_rows, basic) -> float | None:
    """Upper end of f over a ball proved to contain a feasible point near x; None if not proved."""
    from flint import arb_mat

    arb = _arb()
    X = _vec(x)
    if eq_rows.size:
        A = sp.csr_matrix(problem.A)[eq_rows]
        nonbasic = np.setdiff1d(np.arange(problem.n), basic)
        AN = A[:, nonbasic]
        rhs = [arb(float(bb)) - t for bb, t in zip(problem.b[eq_rows], _matvec(AN, [X[j] for j in nonbasic]))]
        AB = A[:, basic].toarray()
        try:
            sol = arb_mat([[float(t) for t in row] for row in AB]).solve(arb_mat([[t] for t in rhs]))
        except (ZeroDivisionError, ValueError):
            return None
        for k, j in enumerate(basic):
            X[j] = sol[k, 0]
    S = [arb(float(bb)) - t for bb, t in zip(problem.b, _matvec(problem.A, X))]
    for blk in problem.blocks:
        if blk.cone.kind == "zero":
            continue
        if not _in_cone(blk.cone, S[blk.start:blk.stop]):
            return None
    f = arb(0.5) * _dot(X, _matvec(problem.P, X)) + _dot(_vec(problem.q), X) + arb(float(problem.r0))
    return _hi(f)


def interior_point(problem, x0):
    """A point with b - A x in the interior of K (zero rows exact), near x0, from a Clarabel margin problem.

    Returns (x, t) with margin t (> 0 means strictly feasible up to the solver's accuracy)."""
    import clarabel

    from ..solvers.backends.clarabel_backend import clarabel_cones

    n, m = problem.n, problem.m
    e = np.zeros(m)
    for blk in problem.blocks:
        c = blk.cone
        if c.kind == "nonneg":
            e[blk.start:blk.stop] = 1.0
        elif c.kind == "soc":
            e[blk.start:blk.stop:c.dim] = 1.0
        elif c.kind == "psd":
            one = np.array([1.0 if i == j else 0.0 for j in range(c.side) for i in range(j + 1)])
            e[blk.start:blk.stop] = np.tile(one, c.count)
        elif c.kind == "pow":
            e[blk.start:blk.stop] = np.tile([1.0, 1.0, 0.0], c.count)
    eps = 1e-3 / (1.0 + float(np.dot(x0, x0)))
    P = sp.block_diag([eps * sp.eye(n), sp.csc_matrix((1, 1))], format="csc")
    q = np.concatenate([-eps * x0, [-1.0]])
    A = sp.vstack([sp.hstack([problem.A, sp.csc_matrix(e[:, None])]),
                   sp.hstack([sp.csc_matrix((1, n)), sp.csc_matrix([[1.0]])])], format="csc")
    b = np.concatenate([problem.b, [1.0]])
    cones = clarabel_cones(problem) + [clarabel.NonnegativeConeT(1)]
    s = clarabel.DefaultSettings()
    s.verbose = False
    res = clarabel.DefaultSolver(sp.triu(P, format="csc"), q, A, b, cones, s).solve()
    w = np.array(res.x)
    return w[:n], float(w[n])


def upper_bound(problem, x, repair: bool = True) -> tuple[float, str, dict]:
    """Rigorous upper bound on p* (minimisation form) from a primal point, repaired if needed."""
    info = {}
    try:
        rows, basic = _equality_basis(problem)
    except ValueError as exc:
        return np.inf, str(exc), info
    x = np.asarray(x, float)
    U = _verify_point(problem, x, rows, basic)
    if U is not None:
        info["repair"] = 0.0
        return U, "", info
    if not repair:
        return np.inf, "the primal point could not be proved feasible (repair disabled)", info
    xc, t = interior_point(problem, x)
    info["interior_margin"] = t
    if not t > 0:
        return np.inf, "the primal point is not provably feasible and no strictly feasible point was found", info
    for lam in 10.0 ** np.arange(-10, 0.01, 0.5):
        U = _verify_point(problem, (1 - lam) * x + lam * xc, rows, basic)
        if U is not None:
            info["repair"] = lam
            return U, "", info
    return np.inf, "no point on the segment to a strictly feasible point could be proved feasible", info


# --------------------------------------------------------------------------- public
@dataclass
class OptimalityInterval:
    """``lower <= optimum <= upper`` in the user's sense, with reasons when an end is infinite."""

    lower: float
    upper: float
    lower_reason: str = ""
    upper_reason: str = ""
    info: dict = field(default_factory=dict)

    @property
    def width(self) -> float:
        return self.upper - self.lower


def optimality_interval(problem, x, z, x_bound=None, repair: bool = True) -> OptimalityInterval:
    """Rigorous bounds on the optimal value of ``problem`` from a primal x and a dual z (user's sense)."""
    x, z = np.asarray(x, float).reshape(-1), np.asarray(z, float).reshape(-1)
    if x.shape != (problem.n,) or z.shape != (problem.m,):
        raise InputError(f"x must have {problem.n} entries and z {problem.m}; got {x.size} and {z.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(z))):
        raise InputError("x and z must be finite to bound the optimum")
    U, ureason, uinfo = upper_bound(problem, x, repair=repair)
    lo, hi = variable_box(problem, x_bound, U)
    L, lreason, linfo = lower_bound(problem, x, z, lo, hi)
    info = {**uinfo, **linfo, "box_finite": int(np.sum(np.isfinite(lo) & np.isfinite(hi))), "n": problem.n}
    if problem.sense < 0:
        return OptimalityInterval(-U, -L, ureason, lreason, info)
    return OptimalityInterval(L, U, lreason, ureason, info)
