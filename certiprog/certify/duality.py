"""A rigorous optimality interval ``lower <= p* <= upper`` from an approximate primal-dual pair.

Notation (minimisation form of `ConicProblem`)::

    p* = inf f(x) = 1/2 x'Px + q'x + r0   s.t.  s = b - A x in K.

All arithmetic below is ball arithmetic with proved rounding-error bounds (`rigorous.Ball`, vectorised
numpy; arb from python-flint only for the per-cone PSD / power-cone tests), so rounding cannot invalidate
a bound.

Lower bound (weak duality, no box needed wherever the problem allows)
---------------------------------------------------------------------
The solver's dual z is projected onto K* and nudged until membership is proved (SOC: raise z_0 above an
upper bound of ||z_1||; PSD: add mu*I until an interval Cholesky succeeds; power cones: shrink |w|;
exponential cone (u, v, w): raise w to an arb upper bound of -u exp(v/u - 1), or clamp to the face u = 0). For
every feasible x, ``z's >= 0``, so ``f(x) >= L(x, z) = 1/2 x'Px + v'x + r0 - b'z`` with ``v = q + A'z``,
and p* >= inf_x L(x, z) over any set containing the feasible points with ``f(x) <= upper``. That infimum
is bounded below piece by piece:

* columns where P is diagonal: ``d_j/2 t^2 + v_j t`` exactly (``-v_j^2 / 2 d_j`` needs no bound on x_j);
* the columns S touched by a non-diagonal P, when ``P_SS >= lam I`` with lam > 0 is *proved*
  (`psd_certificate`: sparse LDL' of P_SS - alpha I plus a rigorous bound on its residual): with u an
  approximate solution of ``P_SS u = -v_S`` and ``e = v_S + P_SS u`` (enclosed),
  ``1/2 x'Px + v'x = 1/2 (x-u)'P(x-u) - 1/2 u'Pu + e'u + e'(x-u) >= -1/2 u'Pu + e'u - ||e||^2/(2 lam)``:
  the exact dual function up to the tiny solve residual, again with no box;
* if P_SS is only proved PSD up to a shift mu, L is linearised at x^ and ``-mu/2 max_box ||x - x^||^2``
  is added (this needs a box);
* every other column enters linearly, ``min v_j t`` over ``[lo_j, hi_j]``; an infinite end with a
  coefficient that is not exactly zero gives -inf.

Such columns J are then zeroed *exactly*: a correction dz on a set R of |J| rows (chosen by pivoted QR:
equality rows first, then inequality and SOC rows) solves ``(A_R' dz)_J = -v_J`` (`rigorous.solve`
encloses the exact solution; everything else is evaluated over that enclosure). With ``w = z + dz``,
``f(x) >= L(x, w) + (w - w+)'s`` for any ``w+`` in K*: zero rows cost nothing (s = 0), a nonneg row costs
``min(w_i, 0) * max s_i``, an SOC block whose ``w`` is not proved in the cone costs
``||dz_block|| * sqrt(2) * max s_0``, with the slack maxima taken over the box; an exponential or power
cone block may be corrected only if its corrected dual is proved in K* (the solver's duals lie inside K*, so
tiny corrections keep them there). If that fails the lower end
is -inf and the reason names the columns.

Before that, a few such columns (fewer than `_BALL_MIN`) get their bounds tightened over the linear rows they
occur in (`_tighten_columns`); many of them (a dense SOCP: 004's kernel MPM, whose coordinates are all free) are
bounded through the SOC constraints instead (`_soc_ball`): with M the SOC body rows on J, ``||M x_J||`` is
bounded by the heads' and the other columns' bounds over the box, ``lambda_min(M'M)`` is proved by a Gram product
and two floating-point Cholesky factorisations with a-priori error bounds (`_gram_proof`), so ``||x_J||`` is
bounded and ``c_J' x_J >= -||c_J|| ||x_J||_max``; the body duals are first refined in floating point so that
``c_J`` is at the rounding level, and the whole bound is re-evaluated in ball arithmetic. It replaces the
correction's pivoted QR and verified |J| x |J| solve (an explicit inverse: ~10 |J|^3 flops) when its price is
small beside the interval's width, and falls back to the correction otherwise.

The box ``lo <= x <= hi`` comes from ``x_bound`` (user columns; see `variable_box`) intersected with bounds
derived by feasibility-based bound tightening over the rows (linear rows of zero/nonneg blocks;
``|s_j| <= s_0`` of SOC blocks; diagonal ``>= 0`` and ``|s_ij| <= (s_ii + s_jj)/sqrt 2`` of PSD blocks;
``|w| <= sum x_i`` of power cones; ``y, z >= 0`` and ``x <= z - y`` of exponential cones, from
log(z/y) <= z/y - 1) and over the objective level set ``f(x) <= upper`` (separable when P is
diagonal, linear when P = 0). It is enough that the box contains every feasible x with ``f(x) <= upper``:
p* is the infimum over that set. Derived bounds are widened by a relative 1e-9 (far above the
floating-point error of the n-term sums involved). Rows that can never give a bound (two entries or more whose
needed ends stay infinite at a sign-aware fixpoint, `_useful_rows`) are left out: the box is the same. With a
``width_goal`` (`check` passes half its tolerance), the cheap box of the single-entry rows and the objective
level set is tried first and kept when the interval it gives is that narrow; any box containing those points is
valid, the cheap one is only looser.

Upper bound
-----------
``f`` at a point proved feasible: equality rows are solved for a well-conditioned set of basic columns
(pivoted QR) with an enclosure of the exact solution, or, when the dense equality block or its QR would be
large (``_EQ_DENSE_MAX`` entries, ``_EQ_DENSE_FLOPS``), corrected by a minimum-norm step whose enclosure comes
from a proved lower bound of lambda_min(A_E A_E') (`_SparseEqualities`: sparse, no matrix of the problem's
size); then the other blocks are checked for cone
membership over the whole enclosure (nonneg: lower ends >= 0; SOC: s_0^2 >= ||s_1||^2; PSD: interval
Cholesky; power cones via logarithms; exponential cone: y, z > 0 and log y + x/y <= log z, in arb). If the
solver's point fails, it is moved toward a strictly feasible
point found by a small Clarabel margin problem (``max t s.t. s - t e in K``), ``x_l = (1 - l) x^ + l x_c``
for growing l.

All values are reported in the user's sense (maximisation flips the interval).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..conic.cones import Cone, project
from ..errors import InputError
from .rigorous import Ball, gamma, matvec, quad, solve
from .rigorous import U as _U

_INFL = 1e-9  # relative widening of derived bounds
_NONSYMMETRIC = ("exp", "pow", "pownd")  # their rows may carry a dual correction that keeps w in K* (proved)
_MAX_CORRECTION = 3000  # at most this many columns zeroed by a dual correction (a dense |J| x |J| solve)


# --------------------------------------------------------------------------- arb helpers (per-cone tests)
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


def _to_arb(ball: Ball) -> list:
    arb = _arb()
    return [arb(float(m), float(r)) for m, r in zip(np.ravel(ball.mid), np.ravel(ball.rad))]


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


def _soc_norm_hi(V: np.ndarray) -> np.ndarray:
    """Upper bounds of ||V[k, 1:]|| per row of a float array."""
    s = np.sum(V[:, 1:] ** 2, axis=1) * (1 + 4 * (V.shape[1] + 4) * _U) + 1e-290
    return np.nextafter(np.sqrt(s), np.inf) * (1 + 4 * _U)


def _exactly_in_cone(cone: Cone, v: np.ndarray) -> bool:
    """Whether the exact floating-point vector v lies in the cone, decided without rounding (nonneg: v >= 0; SOC:
    a nonnegative head with an exactly zero body); False where that needs arithmetic (then `_in_cone` decides)."""
    if cone.kind == "nonneg":
        return bool(np.all(v >= 0))
    if cone.kind == "soc":
        V = np.asarray(v, float).reshape(cone.count, cone.dim)
        return bool(np.all(V[:, 0] >= 0) and np.all(V[:, 1:] == 0))
    return False


def _in_cone(cone: Cone, s: Ball) -> bool:
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
    arb = _arb()
    a = None
    if cone.kind in ("pow", "pownd"):
        a = [arb(t) for t in cone.weights]
    for mrow, rrow in zip(M, Rd):
        p = [arb(float(m), float(r)) for m, r in zip(mrow, rrow)]
        if cone.kind == "psd":
            if not _chol_pd(_smat_arb(p, cone.side)):
                return False
        elif cone.kind in ("pow", "pownd"):
            xs, w = p[:-1], p[-1]
            if not all(_lo(u) > 0 for u in xs):
                return False
            g = sum((ai * u.log() for ai, u in zip(a, xs)), arb(0)).exp()
            if not _lo(g) >= max(abs(_lo(w)), abs(_hi(w))):
                return False
        else:  # exp: y > 0, z > 0 and log(y) + x / y <= log(z), i.e. y exp(x/y) <= z
            x, y, z = p
            if not (_lo(y) > 0 and _lo(z) > 0):
                return False
            if not _hi(y.log() + x / y - z.log()) <= 0:
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


def _in_dual_cone(cone: Cone, w: Ball) -> bool:
    """Proves that every point of the ball vector w lies in K* for exp / pow / pownd blocks (all copies)."""
    d = cone.dim
    for c in range(cone.count):
        p = _to_arb(w[c * d:(c + 1) * d])
        if cone.kind == "exp":  # u < 0, w > 0 and log(-u) + v/u - 1 <= log(w)
            u, v, ww = p
            if not (_hi(u) < 0 and _lo(ww) > 0):
                return False
            if not _hi((-u).log() + v / u - 1 - ww.log()) <= 0:
                return False
        elif cone.kind in ("pow", "pownd"):  # u_i > 0 and prod (u_i / a_i)^a_i >= |w|
            a = cone.weights
            us, ww = p[:-1], p[-1]
            if not all(_lo(u) > 0 for u in us):
                return False
            g = _dual_power_mean(a, us)
            if not _lo(g) >= max(abs(_lo(ww)), abs(_hi(ww))):
                return False
        else:
            return False
    return True


def _dual_power_mean(weights, us):
    """``prod_i (u_i / a_i)^a_i`` in arb (u_i > 0 arb balls): the bound on |w| of the power cone's dual cone."""
    arb = _arb()
    return sum((arb(ai) * (u / arb(ai)).log() for ai, u in zip(weights, us)), arb(0)).exp()


# --------------------------------------------------------------------------- dual cone, rigorously
def dual_in_cone(problem, z: np.ndarray) -> tuple[np.ndarray, float]:
    """z projected onto K* and nudged so that membership is proved; returns (z, ||change||)."""
    arb = _arb() if any(b.cone.kind in ("psd", "pow", "pownd", "exp") for b in problem.blocks) else None
    zz = np.array(z, float)
    for blk in problem.blocks:
        c, r = blk.cone, slice(blk.start, blk.stop)
        if c.kind == "zero":
            continue
        v = project(c, zz[r], dual=True)
        if c.kind == "nonneg":
            v = np.maximum(v, 0.0)
        elif c.kind == "soc":
            v = v.reshape(c.count, c.dim)
            if c.dim > 1:
                v[:, 0] = np.maximum(v[:, 0], _soc_norm_hi(v))
            v = v.reshape(-1)
        elif c.kind == "psd":
            v = v.reshape(c.count, c.dim)
            n = c.side
            diag = np.array([j * (j + 1) // 2 + j for j in range(n)])
            for p in v:
                mu, base = 0.0, p.copy()
                scale = 1.0 + np.abs(p).max()
                while not _chol_pd(_smat_arb([arb(float(t)) for t in p], n)):
                    mu = 1e-15 * scale if mu == 0 else mu * 10
                    p[:] = base
                    p[diag] += mu
            v = v.reshape(-1)
        elif c.kind in ("pow", "pownd"):  # K* = {(u, w): u >= 0, prod (u_i/a_i)^a_i >= |w|}: shrink |w|
            v = v.reshape(c.count, c.dim)
            a = c.weights
            for p in v:
                if np.any(p[:-1] <= 0):
                    p[:-1], p[-1] = np.maximum(p[:-1], 0.0), 0.0
                    continue
                g = _dual_power_mean(a, [arb(float(u)) for u in p[:-1]])
                p[-1] = np.sign(p[-1]) * min(abs(p[-1]), max(_lo(g), 0.0))
            v = v.reshape(-1)
        elif c.kind == "exp":  # K* = {u < 0, -u exp(v/u) <= e w} u {u = 0, v >= 0, w >= 0}: raise w
            v = v.reshape(c.count, 3)
            for p in v:
                if p[0] >= 0:
                    p[0], p[1], p[2] = 0.0, max(p[1], 0.0), max(p[2], 0.0)
                    continue
                u = arb(float(p[0]))
                need = _hi((-u) * (arb(float(p[1])) / u - 1).exp())  # w >= -u exp(v/u - 1)
                if np.isfinite(need):
                    p[2] = max(p[2], need)
                else:  # u ~ 0 with v > 0: exp(v/u) overflows; the face u = 0 is in K* (v, w >= 0)
                    p[0], p[1], p[2] = 0.0, max(p[1], 0.0), max(p[2], 0.0)
            v = v.reshape(-1)
        zz[r] = v
    return zz, float(np.linalg.norm(zz - z))


# --------------------------------------------------------------------------- P: PD, PSD, indefinite?
@dataclass
class PsdCertificate:
    """What is proved about P on the columns ``cols`` it touches.

    kind: 'zero' (P = 0), 'diagonal' (d >= 0; exact), 'pd' (``P_SS >= lam I``, lam > 0), 'shift'
    (``P_SS + mu I >= 0``, mu = -lam >= 0), 'indefinite' (``v'Pv < 0`` proved for ``witness``),
    'unknown' (nothing proved). ``solve(rhs)`` approximately solves ``P_SS u = rhs`` (kind 'pd').
    """

    kind: str
    cols: np.ndarray
    lam: float = 0.0
    why: str = ""
    witness: np.ndarray | None = None
    solver: object = None

    @property
    def mu(self) -> float:
        """The shift proved to make P PSD (``P + mu I >= 0``): 0 when P is proved PD or PSD, inf when nothing is
        proved."""
        return max(0.0, -self.lam) if self.kind in ("pd", "shift", "diagonal", "zero") else np.inf

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """An approximate solution of ``P_SS u = rhs`` with the proof's factorisation (its error is bounded
        separately)."""
        return self.solver(rhs)


def _ldl(Q, sigma: float):
    """Sparse LDL' of Q + sigma I without pivoting (SuperLU, symmetric mode); None if a pivot is <= 0."""
    from scipy.sparse.linalg import splu

    n = Q.shape[0]
    try:
        lu = splu(sp.csc_matrix(Q + sigma * sp.identity(n)), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                  options={"SymmetricMode": True})
    except RuntimeError:
        return None
    D = lu.U.diagonal()
    if not (np.all(lu.perm_r == lu.perm_c) and np.all(D > 0) and np.all(np.isfinite(D))):
        return None
    return lu, sp.csr_matrix(lu.L), D, np.argsort(lu.perm_r)


def _ldl_residual_norm(Q, sigma, L, D, ip) -> float:
    """Upper bound of ||Q + sigma I - L D L'||_2 (permuted), counting every rounding error."""
    n = Q.shape[0]
    Qp = sp.csr_matrix(Q[ip][:, ip] + sigma * sp.identity(n))
    LD = L @ sp.diags(D)
    R = Qp - LD @ L.T
    k = int(np.diff(L.indptr).max()) if L.nnz else 1
    aL = abs(L)
    lower_sum = aL @ (D * (aL.T @ np.ones(n)))  # row sums of |L| D |L'|
    rows = abs(R) @ np.ones(n) * (1 + _U) + gamma(k + 3) * lower_sum + _U * abs(Qp.diagonal())
    return float(np.max(rows)) * (1 + 4 * (n + k + 8) * _U) + 1e-290 if n else 0.0


def _gershgorin_lower(Q) -> float:
    """A proved lower bound of lambda_min(Q) for symmetric sparse Q: min_i Q_ii - sum_{j != i} |Q_ij| (Gershgorin's
    discs, exact for the float matrix; the row sums' rounding errors are bounded a priori)."""
    Q = sp.csr_matrix(Q)
    n = Q.shape[0]
    if n == 0:
        return np.inf
    d = Q.diagonal()
    row = np.repeat(np.arange(n), np.diff(Q.indptr))
    off = np.where(row != Q.indices, np.abs(Q.data), 0.0)
    k = int(np.diff(Q.indptr).max()) if Q.nnz else 1
    off_hi = np.bincount(row, off, n) * (1 + gamma(k + 1)) * (1 + 4 * (k + 4) * _U) + 1e-300
    diff = d - off_hi
    return float(np.min(diff - _U * np.abs(diff) - 1e-300))


def _cg_solver(Q):
    """Approximate ``Q u = rhs`` by Jacobi-preconditioned conjugate gradients (sparse matvecs only; the certificate
    encloses the residual of whatever u comes back, so the accuracy only affects the bound's tightness)."""
    from scipy.sparse.linalg import LinearOperator, cg

    Q = sp.csr_matrix(Q)
    dinv = 1.0 / Q.diagonal()
    M = LinearOperator(Q.shape, matvec=lambda v: dinv * np.ravel(v), dtype=float)

    def solver(rhs):
        rhs = np.asarray(rhs, float)
        u = dinv * rhs
        for _ in range(3):  # restarted: each pass refines against the true residual
            r = rhs - Q @ u
            nr = float(np.linalg.norm(r))
            if nr == 0 or nr <= 1e-15 * float(np.linalg.norm(rhs)):
                break
            du, _ = cg(Q, r, rtol=1e-14, atol=0.0, maxiter=10 * Q.shape[0] + 100, M=M)
            u = u + du
        return u

    return solver


_PSD_CACHE: dict = {}
_PSD_CACHE_SIZE = 8


def _psd_key(P: sp.csr_matrix):
    """A content key of a sparse matrix (shape, pattern and values), for the `psd_certificate` cache."""
    import hashlib

    h = hashlib.blake2b(digest_size=20)
    for arr in (P.indptr, P.indices, P.data):
        h.update(np.ascontiguousarray(arr).view(np.uint8))
    return P.shape, P.nnz, h.hexdigest()


def psd_certificate(P) -> PsdCertificate:
    """`_psd_certificate` with a small cache keyed by P's content: a Model checked again (or re-solved with new
    data that leaves P alone, e.g. a Parameter in the constraints) does not pay the factorisation twice."""
    Pc = sp.csr_matrix(P, dtype=float, copy=True)
    Pc.sum_duplicates()
    Pc.sort_indices()
    key = _psd_key(Pc)
    return _memo(_PSD_CACHE, _PSD_CACHE_SIZE, key, lambda: _psd_certificate(Pc))


def _memo(cache: dict, size: int, key, compute):
    """``cache[key]``, computed by ``compute()`` on a miss; the oldest entry goes when ``size`` are held (the proofs
    are keyed by the data's content, so a hit is the same proof)."""
    hit = cache.get(key)
    if hit is not None:
        return hit
    out = compute()
    if len(cache) >= size:
        cache.pop(next(iter(cache)))
    cache[key] = out
    return out


def _psd_certificate(P) -> PsdCertificate:
    """Prove P positive definite (with a lower eigenvalue bound), PSD up to a shift, or indefinite.

    Diagonal P is read off exactly. Otherwise, on the columns S it touches, ``P_SS + sigma I = L D L' + R``
    is factorised (sparse, no dense matrix of the problem's size) for sigma from -1e-6 to +1e-9 times
    max |P_jj|; D > 0 makes L D L' PSD, so ``lambda_min(P_SS) >= -sigma - ||R||`` with ||R|| bounded
    rigorously. If no factorisation succeeds, the smallest eigenpair (Lanczos) is tried as a witness
    ``v'Pv < 0``, evaluated in ball arithmetic.
    """
    P = sp.csr_matrix(P)
    P.eliminate_zeros()
    if P.nnz == 0:
        return PsdCertificate("zero", np.zeros(0, int))
    cols = np.unique(np.concatenate([P.indices, np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))]))
    Q = sp.csc_matrix(P[cols][:, cols])
    if abs(Q - Q.T).max() > 0:
        return PsdCertificate("unknown", cols, -np.inf, "P is not symmetric")
    d = Q.diagonal()
    if (Q - sp.diags(d)).nnz == 0:
        if d.min() < 0:
            w = np.zeros(P.shape[0])
            w[cols[np.argmin(d)]] = 1.0
            return PsdCertificate("indefinite", cols, float(d.min()), f"P has a negative diagonal entry "
                                  f"{d.min():.3g} (and no off-diagonal entries)", witness=w)
        return PsdCertificate("diagonal", cols, float(d.min()))
    if d.min() > 0:  # diagonally dominant (graph-Laplacian-like, ridge-dominated): proved in O(nnz), solved by CG
        lam = _gershgorin_lower(Q)
        if lam > 0:
            return PsdCertificate("pd", cols, lam, solver=_cg_solver(Q))
    scale = float(np.max(np.abs(d))) or float(abs(Q).max())
    shift = None
    for sigma in (-1e-6 * scale, -1e-9 * scale, -1e-12 * scale, 1e-12 * scale, 1e-9 * scale):
        fac = _ldl(Q, sigma)
        if fac is None:
            continue
        lu, L, D, ip = fac
        lam = -sigma - _ldl_residual_norm(Q, sigma, L, D, ip)
        if lam > 0:
            def solver(rhs, lu=lu, Q=Q):
                u = lu.solve(rhs)
                for _ in range(3):  # iterative refinement against P itself
                    u = u + lu.solve(rhs - Q @ u)
                return u

            return PsdCertificate("pd", cols, float(lam), solver=solver)
        if shift is None or lam > shift:
            shift = lam
        if sigma > 0:
            break
    if shift is not None:
        return PsdCertificate("shift", cols, float(shift))
    # look for a witness of indefiniteness
    try:
        if cols.size <= 500:
            ev, V = np.linalg.eigh(Q.toarray())
            v = V[:, 0]
        else:
            from scipy.sparse.linalg import eigsh

            ev, V = eigsh(Q, k=1, which="SA")
            v = V[:, 0]
        val = quad(Q, v)
        if val.hi() < 0:
            w = np.zeros(P.shape[0])
            w[cols] = v
            return PsdCertificate("indefinite", cols, float(val.mid), f"P is indefinite: v'Pv <= {val.hi():.3g} "
                                  f"< 0 for a unit vector v (smallest eigenvalue ~ {ev[0]:.3g})", witness=w)
    except Exception:  # noqa: BLE001 - an eigen-solver failure only means no witness
        pass
    return PsdCertificate("unknown", cols, -np.inf, "P could not be proved PSD (no LDL' factorisation of P + "
                          "sigma I succeeded) nor indefinite")


def psd_shift(P) -> tuple[float, np.ndarray]:
    """(mu, cols): proved ``P + mu I >= 0`` on the columns ``cols`` touched by P (inf: nothing proved)."""
    pc = psd_certificate(P)
    return pc.mu, pc.cols


def _csr_A(problem) -> sp.csr_matrix:
    """``problem.A`` as CSR, converted once per problem (a certificate reads it several times; a conversion of a
    20,000 x 300 dense-data A costs ~0.1 s each)."""
    cached = problem.__dict__.get("_certificate_csr_A")
    if cached is None or cached[0] is not problem.A:
        cached = (problem.A, sp.csr_matrix(problem.A))
        problem.__dict__["_certificate_csr_A"] = cached
    return cached[1]


def _csc_A(problem) -> sp.csc_matrix:
    """``problem.A`` as CSC (column slices), converted once per problem like `_csr_A`."""
    cached = problem.__dict__.get("_certificate_csc_A")
    if cached is None or cached[0] is not problem.A:
        cached = (problem.A, sp.csc_matrix(problem.A))
        problem.__dict__["_certificate_csc_A"] = cached
    return cached[1]


# --------------------------------------------------------------------------- bounds on x
def _linear_rows(problem):
    """Rows (G, h) with G x <= h implied by the blocks (see module docstring)."""
    A, b = _csr_A(problem), problem.b
    Gs, hs = [], []
    for blk in problem.blocks:
        c, r0 = blk.cone, blk.start
        if c.kind in ("zero", "nonneg"):
            Ab, bb = A[blk.start:blk.stop], b[blk.start:blk.stop]
            Gs.append(Ab), hs.append(bb)
            if c.kind == "zero":
                Gs.append(-Ab), hs.append(-bb)
            continue
        if c.kind in ("pow", "pownd", "exp"):  # all copies at once, by selection matrices on the block's rows
            G, h = _cone_linear_rows(c, A[blk.start:blk.stop], b[blk.start:blk.stop])
            Gs.append(G), hs.append(h)
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
    if not Gs:
        return sp.csr_matrix((0, A.shape[1])), np.zeros(0)
    return sp.csr_matrix(sp.vstack(Gs)), np.concatenate([np.atleast_1d(np.asarray(h, float)) for h in hs])


def _bound_rows(problem):
    """(G, h): the single-entry rows of `_linear_rows` (variable bounds of zero / nonneg rows, ``s_0 >= 0`` of
    SOC heads), read off A in O(nnz) without building the others; the cheap box of `variable_box`."""
    A, b = _csr_A(problem), problem.b
    kind = problem.row_kinds()
    usable = np.isin(kind, ["zero", "nonneg"])
    for blk in problem.blocks:
        if blk.cone.kind == "soc":
            usable[blk.start:blk.stop:blk.cone.dim] = True
    rows = np.flatnonzero(usable & (np.diff(A.indptr) == 1))
    rows = rows[A.data[A.indptr[rows]] != 0]
    eq = kind[rows] == "zero"
    r = np.concatenate([rows, rows[eq]])
    sign = np.concatenate([np.ones(rows.size), -np.ones(int(eq.sum()))])
    G = sp.csr_matrix((sign * A.data[A.indptr[r]], A.indices[A.indptr[r]], np.arange(r.size + 1)),
                      shape=(r.size, A.shape[1]))
    return G, sign * b[r]


def _cone_linear_rows(c: Cone, Ab, bb) -> tuple:
    """(G, h) with G x <= h implied by every copy of an exp / pow / pownd cone, whose rows are Ab x + s = bb.

    Power cones: x_i >= 0 and |z| <= sum_i x_i (weighted AM-GM with weights <= 1). Exponential cones: y >= 0,
    z >= 0 and x <= y log(z/y) <= z - y. Each is ``sum_r c_r s_r <= 0`` for a few rows r of one copy, i.e.
    ``(-sum c_r A_r) x <= -sum c_r b_r``: a sparse selection matrix C gives all copies at once."""
    d, k = c.dim, c.count
    base = d * np.arange(k)
    if c.kind == "exp":  # -s_y <= 0, -s_z <= 0, s_x + s_y - s_z <= 0
        combos = [{1: -1.0}, {2: -1.0}, {0: 1.0, 1: 1.0, 2: -1.0}]
    else:
        n = d - 1
        combos = [{i: -1.0} for i in range(n)]
        combos += [{**{i: -1.0 for i in range(n)}, n: 1.0}, {**{i: -1.0 for i in range(n)}, n: -1.0}]
    rows, cols, vals = [], [], []
    for j, combo in enumerate(combos):
        for r, v in combo.items():
            rows.append(j * k + np.arange(k)), cols.append(base + r), vals.append(np.full(k, v))
    C = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(len(combos) * k, d * k))
    return -(C @ Ab), -(C @ bb)


def _improves(new, old, side) -> np.ndarray:
    """new is a notably tighter bound than old (side -1: upper bounds, +1: lower bounds)."""
    with np.errstate(invalid="ignore"):
        tight = side * (new - old) > 1e-7 * (1 + np.abs(old))
    return np.isfinite(new) & (~np.isfinite(old) | tight)


def _column_order(G):
    """(order, starts, cols): G's entries grouped by column (a stable sort of its column indices), for per-column
    minima by ``np.minimum.reduceat`` (``ufunc.at`` is far slower on millions of entries)."""
    order = np.argsort(G.indices, kind="stable")
    cs = G.indices[order]
    starts = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1]]) if cs.size else np.zeros(0, int)
    return order, starts, cs[starts]


def _col_reduce(ufunc, vals, n: int, fill: float, order) -> np.ndarray:
    """Per-column ``ufunc``-reduction of one value per entry of G (``fill`` where a column has none)."""
    out = np.full(n, fill)
    idx, starts, cols = order
    if starts.size:
        out[cols] = ufunc.reduceat(vals[idx], starts)
    return out


def _tighten_rows(G, h, lo, hi, order=None) -> bool:
    """One FBBT pass over G x <= h; updates lo, hi in place; True if something changed notably.

    ``order``: `_column_order(G)` when several passes run over the same G."""
    if G.shape[0] == 0:
        return False
    if order is None:
        order = _column_order(G)
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
    if not np.any(n_inf <= 1):  # every row has two unbounded terms or more: nothing to derive
        return False
    rest_inf = n_inf[row] - inf
    ok = (rest_inf == 0) & (a != 0)
    val = np.zeros_like(a)
    pad = np.zeros_like(a)
    if ok.any():  # (only the entries that can give a bound)
        r_ok, a_ok = row[ok], a[ok]
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            v = (h[r_ok] - (fin_sum[r_ok] - cf[ok])) / a_ok
            val[ok] = v
            pad[ok] = _INFL * (np.abs(h[r_ok]) + abs_sum[r_ok] + np.abs(v * a_ok)) / np.abs(a_ok) + 1e-300
    changed = False
    up = ok & (a > 0)
    if up.any():
        new = _col_reduce(np.minimum, np.where(up, val + pad, np.inf), lo.size, np.inf, order)
        better = _improves(new, hi, -1)
        changed |= bool(better.any())
        np.minimum(hi, new, out=hi)
    dn = ok & (a < 0)
    if dn.any():
        new = _col_reduce(np.maximum, np.where(dn, val - pad, -np.inf), lo.size, -np.inf, order)
        better = _improves(new, lo, 1)
        changed |= bool(better.any())
        np.maximum(lo, new, out=lo)
    return changed


def _separable_diagonal(problem):
    """P's diagonal when P is diagonal with P >= 0 (the objective is separable), else None."""
    P = sp.csr_matrix(problem.P)
    d = P.diagonal()
    if (P - sp.diags(d)).count_nonzero() or (d < 0).any():
        return None
    return d


def _useful_rows(G, lo, hi, q=None, d=None) -> np.ndarray:
    """Rows of G x <= h that `_tighten_rows` could ever use; a boolean mask.

    A row gives a bound on one of its columns only when every *other* entry's needed end (lo for a > 0, hi for
    a < 0) is finite. The ends that could ever become finite are over-approximated by a fixpoint: the finite
    ends of the start box, plus every end some row (or the separable objective level set, when ``d`` is the
    diagonal of P >= 0 and ``q`` the linear part: columns with d > 0 need nothing and get both ends) would give
    if all ends found so far were finite. A row with two entries or more whose needed end stays infinite at the
    fixpoint never yields a bound in any pass, so dropping it leaves the box unchanged (only the work goes)."""
    m, n = G.shape
    if m == 0:
        return np.ones(0, bool)
    a, col = G.data, G.indices
    row = np.repeat(np.arange(m), np.diff(G.indptr))
    quad = np.zeros(a.size, bool)
    if d is not None:  # the objective as one more row: q_j t (d_j = 0) or a quadratic (d_j > 0, needs nothing)
        oc = np.flatnonzero((d != 0) | (q != 0))
        a = np.concatenate([a, np.where(d[oc] > 0, 0.0, q[oc])])
        col = np.concatenate([col, oc])
        row = np.concatenate([row, np.full(oc.size, m)])
        quad = np.concatenate([quad, d[oc] > 0])
    # ends as one flat array: 2j = lo_j, 2j + 1 = hi_j, 2n = "nothing needed" (always finite)
    can = np.concatenate([np.isfinite(np.column_stack([lo, hi])).ravel(), [True]])
    zero = a == 0
    need = 2 * col + (a < 0)
    need[zero] = 2 * n
    give = 2 * col + (a > 0)  # the end a row gives its column: hi for a > 0, lo for a < 0
    give[zero & ~quad] = 2 * n
    qcols = col[quad]
    rows_total = m + (d is not None)
    while True:
        bad = ~can[need]
        k = np.bincount(row[bad], minlength=rows_total)
        kr = k[row]
        yields = (kr == 0) | ((kr == 1) & bad)
        newly = give[yields]
        newly = newly[~can[newly]]
        qy = qcols[yields[quad]] if qcols.size else qcols
        qnew = np.concatenate([2 * qy, 2 * qy + 1]) if qy.size else qy
        qnew = qnew[~can[qnew]] if qnew.size else qnew
        if newly.size == 0 and qnew.size == 0:
            break
        can[newly] = True
        can[qnew] = True
    return k[:m] <= 1


def _tighten_objective(problem, U, lo, hi, d=False) -> bool:
    """Bounds from f(x) <= U when P is diagonal with P >= 0 (separable quadratic).

    ``d``: `_separable_diagonal(problem)` when already at hand (None: not separable)."""
    if d is False:
        d = _separable_diagonal(problem)
    if d is None or not np.isfinite(U):
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
    cols = np.flatnonzero(inf) if inf.sum() == 1 else np.arange(lo.size)
    cols = cols[(d[cols] != 0) | (q[cols] != 0)]
    if cols.size == 0:
        return False
    dj, qj = d[cols], q[cols]
    R = R_all + np.where(inf[cols], 0.0, m[cols]) + pad_all
    new_lo, new_hi = np.full(cols.size, -np.inf), np.full(cols.size, np.inf)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        curved = dj > 0
        disc = qj * qj + 2 * dj * R
        ok = curved & (disc >= 0)  # (an infeasible level set leaves the bounds as they are)
        sq = np.sqrt(np.where(ok, disc, 0.0)) * (1 + _INFL)
        dd = np.where(ok, dj, 1.0)
        lo_q, hi_q = (-qj - sq) / dd, (-qj + sq) / dd
        new_lo = np.where(ok, lo_q - _INFL * (1 + np.abs(lo_q)), new_lo)
        new_hi = np.where(ok, hi_q + _INFL * (1 + np.abs(hi_q)), new_hi)
        lin = ~curved
        qq = np.where(lin, qj, 1.0)
        t = R / qq
        new_hi = np.where(lin & (qj > 0), t + _INFL * (1 + np.abs(t)), new_hi)
        new_lo = np.where(lin & (qj < 0), t - _INFL * (1 + np.abs(t)), new_lo)
    changed = bool(np.any(_improves(new_hi, hi[cols], -1)) or np.any(_improves(new_lo, lo[cols], 1)))
    hi[cols] = np.minimum(hi[cols], new_hi)
    lo[cols] = np.maximum(lo[cols], new_lo)
    return changed


def variable_box(problem, x_bound=None, upper: float = np.inf, rounds: int = 30,
                 cheap: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Box ``lo <= x <= hi`` (stacked columns) containing every feasible x with f(x) <= upper.

    ``x_bound``: None; a number R (every entry of every *user* variable in [-R, R], e.g. from a ball
    ||x|| <= R); a dict ``{variable name: R or (lo, hi)}``; or a pair of arrays (lo, hi) over all columns.
    ``upper`` is in the minimisation form of the problem. ``cheap``: only the single-entry rows (variable
    bounds, `_bound_rows`) and the objective level set, in O(nnz): a looser box, as valid (any box containing
    those points is), for a first try of the lower bound (`optimality_interval`'s ``width_goal``).
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
    G, h = _bound_rows(problem) if cheap else _linear_rows(problem)
    d = _separable_diagonal(problem) if np.isfinite(upper) else None
    if not cheap:
        keep = _useful_rows(G, lo, hi, problem.q if d is not None else None, d)
        if not keep.all():  # drop the rows that can never give a bound (the box is the same without them)
            G, h = sp.csr_matrix(G[keep]), h[keep]
    order = _column_order(G)
    for _ in range(rounds):
        ch = _tighten_rows(G, h, lo, hi, order)
        ch |= _tighten_objective(problem, upper, lo, hi, d)
        if not ch:
            break
    return lo, hi


# --------------------------------------------------------------------------- lower bound
def _lin_terms(c: Ball, lo_e, hi_e) -> np.ndarray:
    """Per-column lower bounds of ``min c_j t`` over ``t in [lo_e_j, hi_e_j]`` (ball c; infinite ends allowed)."""
    lo_e, hi_e = np.asarray(lo_e, float), np.asarray(hi_e, float)
    fl, fh = np.isfinite(lo_e), np.isfinite(hi_e)
    a = (c * Ball(np.where(fl, lo_e, 0.0))).lo()
    b = (c * Ball(np.where(fh, hi_e, 0.0))).lo()
    t = np.minimum(np.where(fl, a, np.inf), np.where(fh, b, np.inf))
    bad = (~fl & ~(c.hi() < 0)) | (~fh & ~(c.lo() > 0))
    t = np.where(bad, -np.inf, t)
    return np.where((c.mid == 0) & (c.rad == 0), 0.0, t)


def _quad_terms(d: np.ndarray, v: Ball, lo_e, hi_e) -> np.ndarray:
    """Per-column lower bounds of ``min d/2 t^2 + v t`` over ``[lo_e, hi_e]``, d > 0 exact floats."""
    inv = Ball.recip(d)
    free = -(Ball(v.sqr().hi()) * inv * 0.5)
    vert = -(v * inv)
    out = free.lo()

    def h(t):
        T = Ball(np.where(np.isfinite(t), t, 0.0))
        return (Ball(0.5 * d) * T.sqr() + v * T).lo()  # 0.5 * d is exact

    right = np.isfinite(hi_e) & (vert.lo() >= hi_e)
    left = np.isfinite(lo_e) & (vert.hi() <= lo_e)
    if right.any():
        out = np.where(right, np.maximum(out, h(hi_e)), out)
    if left.any():
        out = np.where(left, np.maximum(out, h(lo_e)), out)
    return out


def _sum_lo(terms: np.ndarray, const: Ball) -> float:
    """Lower end of const + sum(terms), terms being lower bounds (floats, maybe -inf)."""
    if np.any(terms == -np.inf) or not np.isfinite(const.lo()):
        return -np.inf
    return (Ball(terms).sum() + const).lo() if terms.size else const.lo()


class _Lagrangian:
    """Lower bounds of ``inf_box L(x, w)`` for ball duals w (see the module docstring)."""

    def __init__(self, problem, x, lo, hi, pc: PsdCertificate):
        self.problem, self.lo, self.hi, self.pc = problem, lo, hi, pc
        self.A = _csr_A(problem)
        P = sp.csr_matrix(problem.P)
        P.eliminate_zeros()
        self.P = P
        n = problem.n
        self.d = P.diagonal()
        self.quad_cols = np.zeros(n, bool)  # columns handled by a quadratic term (not linear)
        self.xh = np.zeros(n)
        if pc.kind == "diagonal":
            self.quad_cols = self.d > 0
        elif pc.kind == "pd":
            self.quad_cols[pc.cols] = True
            self.PSS = sp.csr_matrix(P[pc.cols][:, pc.cols])
        elif pc.kind == "shift":
            self.xh = np.clip(np.asarray(x, float), lo, hi)

    def evaluate(self, W: Ball):
        """(const Ball, per-column terms, linear coefficients Ball) for the dual enclosure W."""
        pr, pc = self.problem, self.pc
        v = Ball(pr.q) + matvec(self.A, W, transpose=True)
        const = Ball(float(pr.r0)) - W.dot(Ball(pr.b))
        terms = np.zeros(pr.n)
        coef = v
        lo_e, hi_e = self.lo, self.hi
        if pc.kind == "diagonal":
            qc = self.quad_cols
            terms[qc] = _quad_terms(self.d[qc], v[qc], self.lo[qc], self.hi[qc])
        elif pc.kind == "pd":
            S = pc.cols
            c = v[S]
            u = pc.solve(-c.mid)
            e = c + matvec(self.PSS, u)
            en = e.norm_hi()
            part = -(quad(self.PSS, u) * 0.5) + e.dot(Ball(u)) - Ball(en * en * (1 + 4 * _U)) * Ball.recip(2 * pc.lam)
            const = const + part
        elif pc.kind == "shift":
            X = Ball(self.xh)
            PX = matvec(self.P, X)
            const = const + quad(self.P, X) * 0.5 + v.dot(X)
            coef = v + PX
            lo_e, hi_e = self.lo - self.xh, self.hi - self.xh
            if pc.mu > 0:
                S = pc.cols
                D2 = np.maximum((self.lo[S] - self.xh[S]) ** 2, (self.hi[S] - self.xh[S]) ** 2)
                D2 = float(np.sum(D2)) * (1 + 4 * (S.size + 8) * _U)
                if not np.isfinite(D2):
                    D2 = np.inf
                const = const - Ball(pc.mu * D2 * (1 + 4 * _U) / 2) if np.isfinite(D2) else Ball(-np.inf)
        lin = ~self.quad_cols
        terms[lin] = _lin_terms(coef[lin], lo_e[lin], hi_e[lin])
        return const, terms, coef


def _row_slack_hi(A, b, lo, hi) -> np.ndarray:
    """Upper bounds of s_i = b_i - A_i x over the box (inf where a needed end is infinite)."""
    a, col = A.data, A.indices
    row = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    with np.errstate(invalid="ignore", over="ignore"):
        t = np.where(a > 0, a * lo[col], a * hi[col])  # min of a x_j
    t = np.where(a == 0, 0.0, t)
    inf = ~np.isfinite(t)
    tf = np.where(inf, 0.0, t)
    m = A.shape[0]
    s = b - np.bincount(row, tf, m)
    k = int(np.diff(A.indptr).max()) if A.nnz else 1
    pad = gamma(k + 2) * (np.abs(b) + np.bincount(row, np.abs(tf), m)) * (1 + 4 * (k + 4) * _U) + 1e-290
    s = np.nextafter(s + pad, np.inf)
    return np.where(np.bincount(row, inf.astype(float), m) > 0, np.inf, s)


_BALL_MIN = 64  # from this many unbounded columns on, bound them by the SOC ball first (`_soc_ball`)
_BALL_MAX_ENTRIES = 2e7  # the dense body-rows x J matrix of `_soc_ball` stays below this size


def _gram_lambda_min(M: np.ndarray) -> float:
    """`_gram_proof`'s bound alone."""
    return _gram_proof(M)[0]


_GRAM_CACHE: dict = {}
_GRAM_CACHE_SIZE = 2


def _gram_proof(M: np.ndarray):
    """`_gram_proof_uncached` with a small cache keyed by M's content (shape and a blake2b digest of its bytes):
    the same SOC body rows certified again (a bisection over the same data, as HP-MPM's, or check() after a
    re-solve) do not pay the Gram product and the factorisations twice."""
    import hashlib

    M = np.ascontiguousarray(M, dtype=float)
    key = (M.shape, hashlib.blake2b(M.view(np.uint8), digest_size=20).hexdigest())
    return _memo(_GRAM_CACHE, _GRAM_CACHE_SIZE, key, lambda: _gram_proof_uncached(M))


def _gram_proof_uncached(M: np.ndarray):
    """A proved lower bound of lambda_min(M'M) for a dense float matrix M (r x p); <= 0 when nothing is proved.

    G = fl(M'M) carries ``|G - M'M| <= gamma_{r+1} |M|'|M|``, so ``||G - M'M||_2 <= gamma_{r+1} ||M||_F^2`` (e1).
    A floating-point Cholesky factorisation R of ``A = fl(G - sigma I)`` that runs to completion satisfies
    ``R'R = A + E3`` with ``|E3| <= gamma_{p+1} |R'||R|`` (Higham, Accuracy and Stability, Thm 10.3; any order of
    the inner products, so the blocked LAPACK one too, as INTLAB's ``isspd`` uses it), so
    ``||E3||_2 <= gamma_{p+1} ||R||_F^2`` (e3) and ``A >= -e3 I``; the subtraction of sigma rounds each diagonal
    entry by at most ``u |A_jj|`` (e2). Hence ``lambda_min(M'M) >= sigma - e1 - e2 - e3``. sigma comes from a
    first factorisation (sigma = 0) and a few steps of inverse iteration: one Gram product and two Cholesky
    factorisations in all, no product of p x p matrices and no multiprecision.

    Returns (bound, solve) with ``solve(rhs)`` an approximate solution of ``M'M g = rhs`` from the first factor
    (None when nothing is proved); the bound alone is `_gram_lambda_min`."""
    import scipy.linalg as sla

    r, p = M.shape
    if p == 0:
        return np.inf, None
    if r < p or not np.all(np.isfinite(M)):
        return -np.inf, None
    big = float(np.max(np.abs(M)))
    if big == 0:
        return -np.inf, None
    # an exact power-of-two scaling to max |M| ~ 1 keeps every product far from underflow and overflow (what
    # underflows then is below 1e-290 per operation: the absolute term e0 covers it); undone exactly at the end
    e = -int(np.frexp(big)[1])
    M = np.ldexp(M, e)
    # G = M'M by a symmetric rank-r update (half a GEMM's work; only the upper triangle is formed, the one the
    # Cholesky factorisation reads); M.T of a C-ordered M is Fortran-ordered, so BLAS takes it without a copy
    G = sla.blas.dsyrk(1.0, np.asfortranarray(M.T), trans=0, lower=0)
    fro2 = float(np.einsum("ij,ij->", M, M)) * (1 + 4 * (M.size + 4) * _U) + 1e-300
    e0 = 4.0 * (r + p + 4) * p * 1e-290
    e1 = gamma(r + 1) * fro2 * (1 + 8 * _U) + e0
    diag = np.arange(p)

    def factor(sigma):
        A = G.copy()
        A[diag, diag] -= sigma
        try:
            R = sla.cholesky(A, lower=False, overwrite_a=True, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            return None, np.inf
        if not np.all(np.isfinite(R)):
            return None, np.inf
        e2 = _U * float(np.max(np.abs(G[diag, diag] - sigma))) * (1 + 4 * _U)
        e3 = gamma(p + 1) * float(np.einsum("ij,ij->", R, R)) * (1 + 4 * (R.size + 4) * _U) + e0
        return R, (e1 + e2 + e3) * (1 + 8 * _U) + 1e-300

    R, err = factor(0.0)
    if R is None:
        return -np.inf, None
    v = np.random.default_rng(0).standard_normal(p)  # inverse iteration on R'R ~ G (an estimate only)
    lam = np.inf
    for _ in range(8):
        v /= np.linalg.norm(v)
        y = sla.solve_triangular(R, sla.solve_triangular(R, v, trans="T", check_finite=False), check_finite=False)
        ny = float(np.linalg.norm(y))
        if not (np.isfinite(ny) and ny > 0):
            return -err, None
        new = 1.0 / ny
        v = y
        if abs(new - lam) <= 1e-3 * new:
            lam = new
            break
        lam = new
    best = -err
    for frac in (0.5, 0.05):
        sigma = frac * lam
        if not sigma > 0:
            break
        R2, err2 = factor(sigma)
        if R2 is not None:
            best = max(best, float(np.nextafter(sigma - err2, -np.inf)))
            break
    def solve(rhs, R=R):  # M'M = 4^-e M_s'M_s: g = 4^e (R'R)^-1 rhs
        y = sla.solve_triangular(R, sla.solve_triangular(R, rhs, trans="T", check_finite=False), check_finite=False)
        return np.ldexp(y, 2 * e)

    return float(np.ldexp(best, -2 * e)), solve  # lambda_min(M'M) of the unscaled M (exact: a power of two)


def _soc_ball(problem, lag: _Lagrangian, coef: Ball, J: np.ndarray, W: Ball, evaluated=None):
    """Lower bound of ``min c_J' x_J`` over every feasible x in the box, through the SOC constraints; (value,
    reason, info). Used when many columns J are unbounded in the box (dense SOCPs such as the kernel MPM of 004).

    Each SOC copy with head row h and body rows B gives ``||A_BJ x_J|| <= ||s_B|| + ||b_B - A_BK x_K|| <=
    S_h + T_B`` with ``S_h`` the head slack's upper end over the box and ``T_B`` the largest norm of the body's
    part in the other (bounded) columns K, both in rounded-up arithmetic. Stacking the copies (M = their body rows
    restricted to J): ``||M x_J|| <= rho = sqrt(sum (S_h + T_B)^2)``; with ``lambda_min(M'M) >= s^2 > 0`` proved
    (`_gram_proof`), ``||x_J|| <= rho / s`` and ``c_J' x_J >= -||c_J|| rho / s`` for c_J in its ball. This
    replaces the exact dual correction (`_correction`: a pivoted QR and a verified |J| x |J| solve with an
    explicit inverse, ~10 |J|^3 flops) by one Gram product and two Cholesky factorisations, at the price of
    the term ``||c_J|| rho / s``. W: the dual (proved in K*) the coefficients ``coef`` come from; its SOC body
    entries are refined in floating point first (below), so that c_J, and the price, are at the rounding level.
    ``evaluated``: ``lag.evaluate(W)`` when the caller has it already."""
    A, lo, hi = lag.A, lag.lo, lag.hi
    m, n = A.shape
    inJ = np.zeros(n, bool)
    inJ[J] = True
    row_of = np.repeat(np.arange(m), np.diff(A.indptr))
    entJ = inJ[A.indices]
    touches = np.bincount(row_of[entJ], minlength=m) > 0
    # every row's part in the other columns, b_i - A_iK x_K, enclosed over the box (entries outside J only)
    keep = ~entJ
    AK = sp.csr_matrix((A.data[keep], A.indices[keep], np.r_[0, np.cumsum(np.bincount(row_of[keep], minlength=m))]),
                       shape=A.shape)
    r_hi = _row_slack_hi(AK, problem.b, lo, hi)
    r_lo = -_row_slack_hi(-AK, -problem.b, lo, hi)
    bodies, rho2 = [], 0.0
    for blk in problem.blocks:
        c = blk.cone
        if c.kind != "soc" or c.dim < 2:
            continue
        heads = np.arange(blk.start, blk.stop, c.dim)
        body_hit = np.add.reduceat(touches[blk.start:blk.stop].astype(int), heads - blk.start) - touches[heads]
        heads = heads[(body_hit > 0) & ~touches[heads]]
        if heads.size == 0:
            continue
        S = r_hi[heads]  # (the head rows do not touch J)
        brow = (heads[:, None] + np.arange(1, c.dim)[None, :]).reshape(-1)
        T2 = np.maximum(np.abs(r_hi[brow]), np.abs(r_lo[brow])).reshape(heads.size, c.dim - 1)
        T = np.sqrt(np.sum(T2 * T2, axis=1) * (1 + 4 * (c.dim + 4) * _U)) * (1 + 4 * _U)
        ok = np.isfinite(S) & np.isfinite(T)
        if not ok.any():
            continue
        tot = np.nextafter((np.maximum(S[ok], 0.0) + T[ok]) * (1 + 2 * _U), np.inf)
        rho2 += float(np.sum(tot * tot)) * (1 + 4 * (tot.size + 4) * _U)
        bodies.append(brow.reshape(heads.size, c.dim - 1)[ok].reshape(-1))
    if not bodies:
        return -np.inf, "no SOC constraint with a bounded head touches the unbounded columns", {}
    rows = np.concatenate(bodies)
    if rows.size * J.size > _BALL_MAX_ENTRIES:
        return -np.inf, f"the SOC ball would need a dense {rows.size} x {J.size} matrix", {}
    if rows.size < J.size:
        return -np.inf, "fewer SOC body rows than unbounded columns", {}
    rpos = np.full(m, -1)
    rpos[rows] = np.arange(rows.size)
    cpos = np.full(n, -1)
    cpos[J] = np.arange(J.size)
    sel = entJ & (rpos[row_of] >= 0)
    M = sp.coo_matrix((A.data[sel], (rpos[row_of[sel]], cpos[A.indices[sel]])),
                      shape=(rows.size, J.size)).toarray()  # (duplicate entries summed)
    lam, gsolve = _gram_proof(M)
    if not lam > 0:
        return -np.inf, "the SOC rows do not provably determine the unbounded columns (rank)", {}
    s = float(np.nextafter(np.sqrt(lam) * (1 - 4 * _U), -np.inf))
    radius = float(np.nextafter(np.sqrt(rho2 * (1 + 4 * _U)) * (1 + 4 * _U) / s * (1 + 4 * _U), np.inf))
    info = {"soc_ball_radius": radius, "soc_ball_rows": int(rows.size)}

    def total(const, terms, c):  # the lower end with the ball's term for J
        loss = float(np.nextafter(c[J].norm_hi() * radius * (1 + 4 * _U), np.inf))
        rest = terms.copy()
        rest[J] = 0.0
        return (_sum_lo(np.append(rest, -loss), const) if np.isfinite(loss) else -np.inf), loss

    const, terms, _ = evaluated if evaluated is not None else lag.evaluate(W)
    L, loss = total(const, terms, coef)
    info["soc_ball_loss"] = loss
    # floating-point refinement: move the SOC body duals by M g with M'M g = -c_J (the first factor), so that the
    # coefficients of J drop to the rounding level; the heads are raised again to prove the cone (`dual_in_cone`)
    # and everything is re-evaluated in ball arithmetic (the refinement itself needs no rigour)
    try:
        g = gsolve(-np.asarray(coef.mid[J], float))
        w = np.array(W.mid, float)
        # the sign: s = b - A x, so A'z enters the coefficient with A's entries; M holds A's body entries
        w[rows] = w[rows] + M @ g
        w, _ = dual_in_cone(problem, w)
        const2, terms2, coef2 = lag.evaluate(Ball(w))
        if np.array_equal(np.flatnonzero(terms2 == -np.inf), J):
            L2, loss2 = total(const2, terms2, coef2)
            if L2 > L:
                L, info["soc_ball_loss"], info["soc_ball_refined"] = L2, loss2, True
    except (ValueError, np.linalg.LinAlgError, FloatingPointError):
        pass
    return L, "", info


def _tighten_columns(problem, J, lo, hi, rounds: int = 2):
    """(lo, hi) with the bounds of columns J tightened over the zero / nonneg rows they occur in (FBBT passes on
    those rows alone, `_tighten_rows`), or (None, None) when nothing about J changed. Valid for any box that
    contains the feasible points: it only reads the rows' own implications."""
    AJ = _csc_A(problem)[:, J]
    kind = problem.row_kinds()
    rows = np.unique(AJ.indices)
    rows = rows[np.isin(kind[rows], ["zero", "nonneg"])]
    if rows.size == 0:
        return None, None
    Ar = _csr_A(problem)[rows]
    br = problem.b[rows]
    eq = kind[rows] == "zero"
    G = sp.csr_matrix(sp.vstack([Ar, -Ar[eq]])) if eq.any() else Ar
    h = np.concatenate([br, -br[eq]])
    lo2, hi2 = lo.copy(), hi.copy()
    order = _column_order(G)
    for _ in range(rounds):
        if not _tighten_rows(G, h, lo2, hi2, order):
            break
    if np.array_equal(lo2[J], lo[J]) and np.array_equal(hi2[J], hi[J]):
        return None, None
    return lo2, hi2


def _correction(problem, lag: _Lagrangian, W: Ball, coef: Ball, J: np.ndarray, zc: np.ndarray):
    """Zero the coefficients of columns J exactly by a dual correction; (lower bound, reason, info)."""
    import scipy.linalg as sla

    A = lag.A
    m = problem.m
    if J.size > _MAX_CORRECTION:
        return -np.inf, f"{J.size} unbounded columns with nonzero coefficients (more than {_MAX_CORRECTION})", {}
    kind = problem.row_kinds() if hasattr(problem, "row_kinds") else None
    if kind is None:
        kind = np.empty(m, dtype=object)
        for blk in problem.blocks:
            kind[blk.start:blk.stop] = blk.cone.kind
    head = np.arange(m)  # row index of the SOC head of each row's cone
    for blk in problem.blocks:
        if blk.cone.kind == "soc":
            rows = np.arange(blk.start, blk.stop)
            head[rows] = blk.start + (rows - blk.start) // blk.cone.dim * blk.cone.dim
    AJ = _csc_A(problem)[:, J]
    touches = np.bincount(AJ.indices, minlength=m) > 0
    cand = np.flatnonzero(touches & np.isin(kind, ["zero", "nonneg", "soc", *_NONSYMMETRIC]))
    # slack upper ends over the box, on the rows read below only (candidates and their SOC heads)
    need = np.union1d(cand, head[cand])
    S_hi = np.full(m, np.inf)
    S_hi[need] = _row_slack_hi(A[need], problem.b[need], lag.lo, lag.hi)
    if cand.size < J.size:
        return -np.inf, "fewer usable rows than unbounded columns", {}
    weight = np.where(kind[cand] == "zero", 1e6, 1.0)
    nonneg = kind[cand] == "nonneg"
    # prefer inequality rows whose dual is large (a small correction keeps it >= 0) or whose slack is bounded
    zn = zc[cand[nonneg]]
    # (relative to the largest inequality dual, or to exp / power-cone duals, whose rows come with weight 1)
    zcone = np.abs(zc[cand[np.isin(kind[cand], _NONSYMMETRIC)]])
    zrel = np.clip(zn / max(float(zn.max(initial=0.0)), float(zcone.max(initial=0.0)), 1e-300), 1e-6, 1.0)
    weight[nonneg] *= np.maximum(zrel, np.where(np.isfinite(S_hi[cand[nonneg]]), 1e-2, 0.0))
    soc = kind[cand] == "soc"
    h0 = head[cand[soc]]
    zh = zc[h0]
    weight[soc] *= np.maximum(np.clip(zh / max(float(zh.max(initial=0.0)), 1e-300), 1e-6, 1.0),
                              np.where(np.isfinite(S_hi[h0]), 1.0, 0.0))
    if cand.size * J.size > 2e7:
        return -np.inf, f"the dual correction would need a dense {cand.size} x {J.size} matrix", {}
    AJr = sp.csr_matrix(AJ)
    M = AJr[cand].toarray()  # rows = candidate rows, cols = J
    norms = np.linalg.norm(M, axis=1)
    Mw = M * (weight / np.where(norms > 0, norms, 1.0))[:, None]
    Rm, piv = sla.qr(Mw.T, pivoting=True, mode="r")  # (no Q: only R and the pivots are read)
    dg = np.abs(np.diag(Rm))
    if dg.size < J.size or dg[:J.size].min() <= 1e-13 * max(dg.max(), 1e-300):
        return -np.inf, "the rows touching the unbounded columns are rank deficient there", {}
    R = np.sort(cand[piv[:J.size]])
    try:
        dz = solve(AJr[R].toarray().T, -coef[J])
    except ValueError as exc:
        return -np.inf, f"the dual correction could not be verified ({exc})", {}
    mid, rad = W.mid.copy(), W.rad.copy()
    mid[R] += dz.mid
    W2 = Ball(mid, rad)
    W2.rad[R] = (Ball(W.mid[R], W.rad[R]) + dz).rad
    const, terms, _ = lag.evaluate(W2)
    terms[J] = 0.0  # the exact correction zeroes these coefficients exactly
    more = np.flatnonzero(terms == -np.inf)
    if more.size:  # a one-sided bound that the correction's tiny change made useless: zero those too
        return -np.inf, "the dual correction left a column unbounded", {"more": more}
    # (w - w+)'s over the rows changed: zero rows cost nothing
    pen = []
    kR = kind[R]
    nn = R[kR == "nonneg"]
    if nn.size:
        wl = W2[nn].lo()
        neg = wl < 0
        if np.any(neg & ~np.isfinite(S_hi[nn])):
            return -np.inf, "a corrected inequality dual turned negative on a row whose slack is unbounded", {}
        pen.append(np.where(neg, (Ball(np.minimum(wl, 0.0)) * Ball(np.where(neg, S_hi[nn], 0.0))).lo(), 0.0))
    for blk in problem.blocks:
        if blk.cone.kind != "soc":
            continue
        hit = R[(R >= blk.start) & (R < blk.stop)]
        if not hit.size:
            continue
        dim = blk.cone.dim
        for h0 in np.unique(head[hit]):
            rows = slice(h0, h0 + dim)
            if _in_cone(Cone("soc", dim), W2[rows]):
                continue
            S0 = S_hi[h0]
            if not np.isfinite(S0):
                return -np.inf, "a corrected SOC dual left its cone where the cone's slack is unbounded", {}
            dzb = W2[rows] - Ball(zc[rows])
            pen.append(np.array([-(dzb.norm_hi() * S0 * 1.4142135623730951 * (1 + 8 * _U))]))
    for blk in problem.blocks:  # exp / power cones: the corrected dual must stay in K* (proved; no penalty form)
        if blk.cone.kind not in _NONSYMMETRIC or not np.any((R >= blk.start) & (R < blk.stop)):
            continue
        if not _in_dual_cone(blk.cone, W2[blk.start:blk.stop]):
            return -np.inf, f"a corrected {blk.cone.kind} dual could not be proved in its dual cone", {}
    penalty = np.concatenate(pen) if pen else np.zeros(0)
    total = _sum_lo(np.concatenate([terms, penalty]), const)
    info = {"dual_correction_rows": int(R.size), "dual_correction_norm": float(np.max(np.abs(dz.mid)) + dz.rad.max())}
    if total == -np.inf:
        return -np.inf, "the dual correction left a column unbounded", info
    return total, "", info


def lower_bound(problem, x, z, lo, hi, psd: PsdCertificate | None = None,
                upper: float = np.inf) -> tuple[float, str, dict]:
    """Rigorous lower bound on p* (minimisation form); see the module docstring.

    ``upper``: the upper end at hand (minimisation form); it only decides whether the SOC ball's price is small
    enough (`_soc_ball`), never the bound's validity."""
    info = {}
    pc = psd if psd is not None else psd_certificate(problem.P)
    info["P"] = pc.kind
    if pc.kind == "indefinite":
        return -np.inf, pc.why + ": the program is not convex, no bound", info
    if pc.kind == "unknown":
        return -np.inf, pc.why, info
    zc, dz = dual_in_cone(problem, z)
    info["z_change"] = dz
    lag = _Lagrangian(problem, x, lo, hi, pc)
    W = Ball(zc)
    const, terms, coef = lag.evaluate(W)
    J = np.flatnonzero(terms == -np.inf)
    if J.size == 0:
        return _sum_lo(terms, const), "" if np.isfinite(const.lo()) else "P is PSD only up to a shift and its " \
            "columns are unbounded", info
    if J.size < _BALL_MIN:  # a few: first tighten their bounds over the linear rows they occur in (cheap box)
        lo2, hi2 = _tighten_columns(problem, J, lo, hi)
        if lo2 is not None and pc.kind in ("zero", "diagonal", "pd"):  # J's terms are linear: recompute those only
            tJ = _lin_terms(coef[J], lo2[J], hi2[J])
            if np.all(tJ > -np.inf):
                terms2 = terms.copy()
                terms2[J] = tJ
                info["tightened_columns"] = int(J.size)
                return _sum_lo(terms2, const), "", info
        elif lo2 is not None:
            lag2 = _Lagrangian(problem, x, lo2, hi2, pc)
            const2, terms2, coef2 = lag2.evaluate(W)
            if not np.any(terms2 == -np.inf):
                info["tightened_columns"] = int(J.size)
                return _sum_lo(terms2, const2), "" if np.isfinite(const2.lo()) else "P is PSD only up to a shift " \
                    "and its columns are unbounded", info
    if J.size >= _BALL_MIN and pc.kind in ("zero", "diagonal", "pd"):  # many unbounded columns: the SOC ball
        L, bwhy, binfo = _soc_ball(problem, lag, coef, J, W, (const, terms, coef))
        if np.isfinite(L):
            price = binfo.get("soc_ball_loss", np.inf)
            # accepted when its price is small beside the interval's width (otherwise the exact correction)
            if not np.isfinite(upper) or price <= 0.25 * max(upper - L, 0.0) or price <= 1e-12 * abs(L):
                info.update(binfo)
                return L, "", info
            info["soc_ball_rejected"] = float(price)
    for _ in range(4):
        L, why, cinfo = _correction(problem, lag, W, coef, J, zc)
        more = cinfo.pop("more", None)
        if more is None:
            break
        J = np.union1d(J, more)
    info.update(cinfo)
    if L == -np.inf:  # last resort: the inequality rows touching J with their duals set to exactly 0
        L0, zinfo = _zero_row_duals(problem, lag, W, J)
        if np.isfinite(L0):
            info.update(zinfo)
            return L0, "", info
    if L == -np.inf:
        names = sorted({_col_name(problem, j) for j in J})
        return -np.inf, (f"no bound on column(s) of {names[:6]} whose coefficient in the Lagrangian is not exactly "
                         f"zero, and {why}; pass x_bound= (box or ball radius of the variables)"), info
    return L, "", info


def _zero_row_duals(problem, lag: _Lagrangian, W: Ball, J: np.ndarray):
    """(lower end, info) with the duals of the nonneg rows touching the unbounded columns J set to exactly 0, when
    that leaves every column's coefficient exactly zero or bounded; (-inf, {}) otherwise.

    The dual stays in K* (each nonneg row is its own cone), so the bound is valid whatever the zeroed values were.
    It is what an exact correction cannot do in ball arithmetic for a column whose only rows are inactive
    inequalities (``min t s.t. t == p, y >= 1``: y's cost is 0 and its row's dual ~1e-12, so the corrected dual
    is a ball around 0 that reaches below 0 on a row whose slack is unbounded)."""
    kind = problem.row_kinds()
    A = _csc_A(problem)
    rows = np.unique(A[:, J].indices)
    nn = rows[kind[rows] == "nonneg"]
    if nn.size == 0:
        return -np.inf, {}
    mid, rad = np.array(W.mid, float), np.array(W.rad, float)
    mid[nn], rad[nn] = 0.0, 0.0
    const, terms, _ = lag.evaluate(Ball(mid, rad))
    # a column with no cost (q_j = 0, P's column empty) whose rows all had their duals zeroed has coefficient
    # exactly 0 (the evaluation's underflow guard leaves a ~1e-290 radius): its term is exactly 0
    zeroed = np.zeros(problem.m, bool)
    zeroed[nn] = True
    P = None if problem.P is None else sp.csc_matrix(problem.P)
    for j in J:
        col_rows = A.indices[A.indptr[j]:A.indptr[j + 1]]
        no_cost = problem.q[j] == 0 and (P is None or P.indptr[j + 1] == P.indptr[j])
        if terms[j] == -np.inf and no_cost and zeroed[col_rows].all():
            terms[j] = 0.0
    if np.any(terms == -np.inf) or not np.isfinite(const.lo()):
        return -np.inf, {}
    return _sum_lo(terms, const), {"zeroed_row_duals": int(nn.size)}


def _col_name(problem, j: int) -> str:
    for name, (_, a, b) in problem.columns.items():
        if a <= j < b:
            return name
    return f"column {j}"


# --------------------------------------------------------------------------- upper bound
def _equality_basis(problem):
    """(rows, basic columns) for the zero-cone rows, or raise ValueError if they are rank deficient; computed once
    per problem and A (`_equality_split` keeps the pieces of A `_verify_point` needs beside it)."""
    cached = problem.__dict__.get("_certificate_eq_basis")
    if cached is None or cached[0] is not problem.A:
        try:
            out = _equality_basis_uncached(problem)
        except ValueError as exc:
            out = exc
        cached = (problem.A, out, {})
        problem.__dict__["_certificate_eq_basis"] = cached
    if isinstance(cached[1], ValueError):
        raise cached[1]
    return cached[1]


def _equality_split(problem, rows, basic):
    """(dense A_EB, sparse A_EN, nonbasic columns) for the equality rows E, basic columns B and the others N."""
    store = problem.__dict__.get("_certificate_eq_basis")
    key = (rows.tobytes(), basic.tobytes())
    if store is not None and store[0] is problem.A and key in store[2]:
        return store[2][key]
    AE = _csr_A(problem)[rows]
    nonbasic = np.setdiff1d(np.arange(problem.n), basic)
    out = (AE[:, basic].toarray(), sp.csr_matrix(AE[:, nonbasic]), nonbasic)
    if store is not None and store[0] is problem.A:
        store[2].clear()
        store[2][key] = out
    return out


_EQ_DENSE_MAX = 1_000_000  # entries (rows x columns) of the dense equality block the pivoted-QR basis may form
_EQ_GRAM_MAX = 5e7  # products summed into A_E A_E' (sum of squared column counts) the sparse correction may form
_EQ_DENSE_FLOPS = 5e7  # and rows^2 x columns, its QRs' cost (3,000 columns and 300 equalities: 0.5 s, 2x the solve)


class _SparseEqualities:
    """The equality rows E made exact by a minimum-norm correction, for blocks too large to densify.

    With ``M = D A_E[:, J]`` (J: the columns allowed to move; D: powers of two making M's rows about unit length,
    so M is exact) of full row rank, ``x + M'(MM')^{-1} D r`` solves ``A_E x = b_E`` exactly, r the exact residual
    ``b_E - A_E x``; its change d has ``|d_j| <= ||M_j||_2 ||Dr||_2 / lam`` and ``||d||_2 <= ||Dr||_2 / sqrt(lam)``
    for ``lam <= lambda_min(MM')``. lam is proved from G = fl(MM'): Gershgorin's discs (`_gershgorin_lower`) or a
    sparse LDL' of G - t I (`_ldl`, `_ldl_residual_norm`), less G's own rounding (``|G - MM'| <= gamma_{p+2}
    |M||M|'``, p the longest row of M, whose 2-norm is at most its largest row sum). Nothing of size rows x
    columns is formed: the cost is one sparse factorisation of the k x k matrix G per column set J.
    """

    def __init__(self, problem, rows):
        self.rows = rows
        A = _csr_A(problem)
        AE = sp.csr_matrix(A[rows])
        AE.sum_duplicates()
        norms = np.sqrt(np.asarray(AE.multiply(AE).sum(axis=1)).reshape(-1))
        self.scale = np.exp2(-np.round(np.log2(np.where(norms > 0, norms, 1.0))))  # powers of two: D A_E exact
        self.AE = AE
        self.b = problem.b[rows]
        self.row_of = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
        self.kind = problem.row_kinds()
        self.touched = np.flatnonzero(np.bincount(AE.indices, minlength=A.shape[1]) > 0)
        self._proofs: dict = {}

    def _proof(self, cols):
        key = cols.tobytes()
        if key not in self._proofs:
            if len(self._proofs) >= 4:
                self._proofs.pop(next(iter(self._proofs)))
            self._proofs[key] = self._prove(cols)
        return self._proofs[key]

    def _prove(self, cols):
        """(M, lam, ||M_j||_2 upper bounds, approximate solver of G w = v), or None when nothing is proved."""
        from scipy.sparse.linalg import splu

        M = sp.csr_matrix(sp.diags(self.scale) @ self.AE[:, cols])
        k = M.shape[0]
        if np.any(np.diff(M.indptr) == 0):
            return None  # an equality row none of the movable columns enters
        if float(np.sum(np.bincount(M.indices).astype(float) ** 2)) > _EQ_GRAM_MAX:
            return None  # columns in many rows: MM' would be (nearly) dense
        G = sp.csc_matrix(M @ M.T)
        aM = abs(M)
        p = int(np.diff(M.indptr).max())
        c = int(np.bincount(M.indices, minlength=M.shape[1]).max(initial=1))
        # ||G - MM'||_2 <= gamma_{p+2} || |M||M|' ||_inf; the row sums of |M||M|' are sums of c, then p,
        # nonnegative terms, so their floating-point values are exact within a factor 1 + gamma_{c+p+4}
        rounding = gamma(p + 2) * float(np.max(aM @ (aM.T @ np.ones(k)))) * (1 + gamma(c + p + 4))
        lam = _gershgorin_lower(G)
        if not lam > rounding:
            top = float(G.diagonal().max())
            lam = -np.inf
            for t in (1e-3, 1e-6, 1e-9):
                fac = _ldl(G, -t * top)
                if fac is None:
                    continue
                _, L, D, ip = fac
                lam = t * top - _ldl_residual_norm(G, -t * top, L, D, ip)
                if lam > rounding:
                    break
        lam = float(np.nextafter((lam - rounding) * (1 - 4 * _U), -np.inf))
        if not lam > 0:
            return None
        colsq = np.asarray(aM.multiply(aM).sum(axis=0)).reshape(-1) * (1 + gamma(k + 2))
        colnorm = np.nextafter(np.sqrt(colsq) * (1 + 4 * _U), np.inf)
        try:
            lu = splu(G, permc_spec="MMD_AT_PLUS_A")
        except RuntimeError:
            return None
        return M, lam, colnorm, lu

    def correct(self, problem, X: Ball) -> bool:
        """Move X (in place) to an enclosure of a point satisfying the equalities exactly; False if not proved.

        The columns that may move are first those not in a tight row (a nonneg row with slack below 1e-9 of its
        scale, or any row of another cone), so active bounds and constraints stay as the solver left them; then
        every column the equalities touch."""
        A = _csr_A(problem)
        s = problem.b - A @ X.mid
        loose = (self.kind == "nonneg") & (s > 1e-9 * (1.0 + np.abs(problem.b)))
        tight_row = (self.kind != "zero") & ~loose
        pinned = np.bincount(A.indices[tight_row[self.row_of]], minlength=A.shape[1]) > 0
        free = self.touched[~pinned[self.touched]]
        for cols in ((free, self.touched) if free.size < self.touched.size else (self.touched,)):
            proof = self._proof(cols)
            if proof is None:
                continue
            M, lam, colnorm, lu = proof
            r = (Ball(self.b) - matvec(self.AE, X)) * self.scale
            w = lu.solve(r.mid)
            w = w + lu.solve(r.mid - M @ (M.T @ w))  # one refinement step (floating point; not relied on)
            Y = Ball(X.mid.copy(), X.rad.copy())
            Y.mid[cols] += M.T @ w
            rn = ((Ball(self.b) - matvec(self.AE, Y)) * self.scale).norm_hi()
            rad = np.minimum(colnorm * rn / lam, rn / np.sqrt(lam)) * (1 + 8 * _U)
            Y.rad[cols] = np.nextafter((Y.rad[cols] + np.nextafter(rad, np.inf)) * (1 + 2 * _U), np.inf)
            if not np.all(np.isfinite(Y.rad[cols])):
                continue
            X.mid[:], X.rad[:] = Y.mid, Y.rad
            return True
        return False


def _equality_basis_uncached(problem):
    import scipy.linalg as sla

    rows = np.concatenate([np.arange(b.start, b.stop) for b in problem.blocks if b.cone.kind == "zero"] or
                          [np.zeros(0, int)])
    if rows.size == 0:
        return rows, rows
    if rows.size * problem.n > _EQ_DENSE_MAX or rows.size ** 2 * problem.n > _EQ_DENSE_FLOPS:
        return rows, _SparseEqualities(problem, rows)  # a dense QR would take k n memory and ~k^2 n time
    A = _csr_A(problem)
    AE = A[rows].toarray()
    n = problem.n
    only = (np.bincount(A.indices, minlength=n) == np.bincount(A[rows].indices, minlength=n)) & np.any(AE != 0, 0)
    if only.sum() == rows.size:  # exactly one epigraph column per equality row (sum_squares, norms): take them
        # when they are well conditioned against the largest column of AE, an upper bound of the smallest pivot of
        # AE's pivoted QR, so the test below would accept them too (without its two larger QRs)
        cand = np.flatnonzero(only)
        d2 = np.abs(np.diag(sla.qr(AE[:, cand], mode="r")[0]))
        top = float(np.sqrt(np.max(np.sum(AE * AE, axis=0))))
        if d2.min() > 1e-10 * max(d2.max(), 1e-300) and d2.min() >= 1e-3 * top:
            return rows, cand
    R, piv = sla.qr(AE, pivoting=True, mode="r")  # (no Q)
    d = np.abs(np.diag(R))
    if d.size < rows.size or d.min() <= 1e-10 * max(d.max(), 1e-300):
        raise ValueError("the equality rows are rank deficient (redundant or inconsistent equalities)")
    basic = np.sort(piv[: rows.size])
    # prefer columns that occur in the equality rows only (epigraph variables these rows define): solving for them
    # leaves the other columns, and so their bounds, as the solver returned them
    if only.any() and not np.all(only[basic]):
        R2, piv2 = sla.qr(AE * np.where(only, 1e3, 1.0), pivoting=True, mode="r")
        cand = np.sort(piv2[: rows.size])
        d2 = np.abs(np.diag(sla.qr(AE[:, cand], mode="r")[0]))  # judged unweighted, as the original basis
        if d2.size == rows.size and d2.min() > 1e-10 * max(d2.max(), 1e-300) and d2.min() >= 1e-3 * d.min():
            basic = cand
    return rows, basic


class _Lift:
    """Columns that only ever help feasibility ("epigraph" columns), to repair a point without a solver.

    A column is *monotone* when each of its nonzero entries lies in a nonneg row or an SOC head row with a
    negative coefficient: raising it raises those slacks and touches no other row (hinge / slack / epigraph
    variables). A nonneg row, or an SOC copy whose head row, holds a monotone column is *fixable*: after the
    other columns are set, raising that column by the (enclosed) deficit makes the row feasible. The remaining
    *core* rows involve core columns only; a strictly feasible core point comes from a margin problem of the
    core's size (the hinge-minimax SOC: d columns, not the m hinge rows).
    """

    def __init__(self, problem):
        A = _csr_A(problem)
        m, n = A.shape
        kind = problem.row_kinds()
        head = np.zeros(m, bool)  # SOC head rows
        soc_head = np.arange(m)  # each SOC row's head row
        for blk in problem.blocks:
            if blk.cone.kind == "soc":
                rows = np.arange(blk.start, blk.stop)
                soc_head[rows] = blk.start + (rows - blk.start) // blk.cone.dim * blk.cone.dim
                head[blk.start:blk.stop:blk.cone.dim] = True
        good_row = (kind == "nonneg") | head
        row = np.repeat(np.arange(m), np.diff(A.indptr))
        col, a = A.indices, A.data
        good = good_row[row] & (a < 0)
        bad_cols = np.bincount(col[~good & (a != 0)], minlength=n) > 0
        has = np.bincount(col[a != 0], minlength=n) > 0
        self.mono = has & ~bad_cols
        sel = self.mono[col] & (a != 0)
        # per fixable row: the monotone column with the largest |coefficient|
        fix_col = np.full(m, -1)
        fix_a = np.zeros(m)
        if sel.any():
            r, c, v = row[sel], col[sel], -a[sel]
            order = np.lexsort((v, r))  # by row, then |a| ascending: the last of each row wins
            fix_col[r[order]], fix_a[r[order]] = c[order], v[order]
        self.fix_col, self.fix_a = fix_col, fix_a
        fixable = fix_col >= 0
        soc_rows = kind == "soc"
        fixable[soc_rows] = fix_col[soc_head[soc_rows]] >= 0  # an SOC copy is fixable through its head
        self.fixable, self.kind, self.soc_head = fixable, kind, soc_head
        self.core_cols = np.flatnonzero(~self.mono)
        self.core_rows = np.flatnonzero(~fixable)
        self.A = A
        self.useful = bool(self.mono.any())

    def apply(self, problem, X: Ball) -> None:
        """Raise monotone columns of X (a ball whose monotone entries are exact) until every fixable row's
        slack is (probably) feasible; the caller proves it."""
        if not self.useful:
            return
        b = problem.b
        if not hasattr(self, "absA"):
            self.absA = abs(self.A)
        for _ in range(3):
            S = Ball(b) - matvec(self.A, X)
            mag = np.abs(b) + self.absA @ np.abs(X.mid)  # the size of the terms each slack is made of
            need = np.zeros(problem.m)  # lower bound the fixable row's slack must be raised by
            nn = self.fixable & (self.kind == "nonneg")
            lo = S.lo()
            need[nn] = np.where(lo[nn] <= 0, -lo[nn], 0.0)
            for blk in problem.blocks:
                if blk.cone.kind != "soc" or not self.fixable[blk.start]:
                    continue
                d = blk.cone.dim
                heads = np.arange(blk.start, blk.stop, d)
                heads = heads[self.fixable[heads]]
                for h0 in heads:
                    body = S[h0 + 1:h0 + d].norm_hi() if d > 1 else 0.0
                    need[h0] = max(body - S[h0:h0 + 1].lo()[0], 0.0)
            rows = np.flatnonzero(need > 0)
            if rows.size == 0:
                return
            delta = (need[rows] * (1 + 1e-9) + 1e-12 * (mag[rows] + need[rows]) + 1e-300) / self.fix_a[rows]
            raise_by = np.zeros(problem.n)
            np.maximum.at(raise_by, self.fix_col[rows], delta)
            j = np.flatnonzero(raise_by > 0)
            X.mid[j] = X.mid[j] + raise_by[j]

    def core_problem(self, problem):
        """The core rows and columns as a ConicProblem (for `interior_point`), or None if there are none."""
        from dataclasses import replace

        from ..conic.problem import Block

        if self.core_rows.size == 0 or self.core_cols.size == 0:
            return None
        rows, blocks, cones, start = [], [], [], 0
        for blk in problem.blocks:
            c = blk.cone
            r = np.arange(blk.start, blk.stop)
            keep = r[~self.fixable[r]]
            if keep.size == 0:
                continue
            if c.kind == "nonneg":
                cone = Cone("nonneg", int(keep.size))
            elif keep.size == r.size:
                cone = c
            else:  # SOC: whole copies
                cone = Cone(c.kind, c.dim, int(keep.size // c.dim), c.alpha)
            blocks.append(Block(blk.owner, cone, None, blk.primary, start))
            cones.append(cone)
            rows.append(keep)
            start += keep.size
        rows = np.concatenate(rows)
        C = self.core_cols
        nc = C.size
        return replace(problem, P=sp.csc_matrix((nc, nc)), q=np.zeros(nc), r0=0.0,
                       A=sp.csc_matrix(self.A[rows][:, C]), b=problem.b[rows], cones=cones, blocks=blocks,
                       columns={}, times={})


def _clip_to_bounds(problem, x: np.ndarray) -> np.ndarray:
    """x moved into the box of the single-entry inequality rows ``a x_j <= b`` (variable bounds), slightly inside
    (a relative 1e-15, at least 1e-250 / |a|) so that the slack's enclosure proves the bound; x itself when nothing
    moves. A QP solver's point often leaves its bounds by ~1e-16; this repairs it without a margin problem."""
    A = _csr_A(problem)
    kinds = problem.row_kinds()
    rows = np.flatnonzero((np.diff(A.indptr) == 1) & (kinds == "nonneg"))
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


def _verify_point(problem, x, eq_rows, basic, lift: _Lift | None = None) -> float | None:
    """Upper end of f over a ball proved to contain a feasible point near x; None if not proved.

    ``lift``: raise the monotone columns after the equality solve (`_Lift`)."""
    X = Ball(np.array(x, float))  # a copy: the equality solve and the lift write into it, never into the caller's x
    A = _csr_A(problem)
    if isinstance(basic, _SparseEqualities):
        if not basic.correct(problem, X):
            return None
    elif eq_rows.size:
        AEB, AEN, nonbasic = _equality_split(problem, eq_rows, basic)
        rhs = Ball(problem.b[eq_rows]) - matvec(AEN, X[nonbasic])
        try:
            sol = solve(AEB, rhs)
        except ValueError:
            return None
        X.mid[basic], X.rad[basic] = sol.mid, sol.rad
    if lift is not None:
        lift.apply(problem, X)
    S = Ball(problem.b) - matvec(A, X)
    # a row touching only exactly-zero entries of x has slack exactly b (products with exact zeros carry no
    # rounding): such a block is judged on b itself, e.g. an SOC at its apex (0, 0), which no enclosure proves
    exact = np.zeros(problem.m, bool)
    zero_x = (X.mid == 0) & (X.rad == 0)
    if zero_x.any():
        exact = (abs(A) @ (~zero_x).astype(float)) == 0
    for blk in problem.blocks:
        if blk.cone.kind == "zero":  # satisfied exactly by the exact solution inside the enclosure
            continue
        if exact[blk.start:blk.stop].all() and _exactly_in_cone(blk.cone, problem.b[blk.start:blk.stop]):
            continue
        if not _in_cone(blk.cone, S[blk.start:blk.stop]):
            return None
    f = quad(problem.P, X) * 0.5 + X.dot(Ball(problem.q)) + float(problem.r0)
    return f.hi()


def interior_point(problem, x0, eps: float | None = None, t_max: float = 1.0):
    """A point with b - A x in the interior of K (zero rows exact), near x0, from a Clarabel margin problem.

    ``eps``: weight of the proximity term ``eps/2 ||x - x0||^2`` (default ``1e-3 / (1 + ||x0||^2)``; 0 finds
    any strictly feasible point however far); ``t_max``: the margin sought (a small one keeps the point near x0).
    Returns (x, t) with margin t (> 0 means strictly feasible up to the solver's accuracy).

    The margin QP is solved by the function registered with `set_margin_solver` (the solvers layer registers
    Clarabel's on import): the certificates never import a backend. None registered: (x0, -inf), no point found."""
    from ..conic.cones import Cone

    if _MARGIN_SOLVER[0] is None:
        return np.asarray(x0, float), -np.inf
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
        elif c.kind in ("pow", "pownd"):
            e[blk.start:blk.stop] = np.tile(np.r_[np.ones(c.dim - 1), 0.0], c.count)
        elif c.kind == "exp":  # (-1, 1, 1) is interior: exp(-1) < 1
            e[blk.start:blk.stop] = np.tile([-1.0, 1.0, 1.0], c.count)
    if eps is None:
        eps = 1e-3 / (1.0 + float(np.dot(x0, x0)))
    P = sp.block_diag([eps * sp.eye(n), sp.csc_matrix((1, 1))], format="csc")
    q = np.concatenate([-eps * x0, [-1.0]])
    A = sp.vstack([sp.hstack([problem.A, sp.csc_matrix(e[:, None])]),
                   sp.hstack([sp.csc_matrix((1, n)), sp.csc_matrix([[1.0]])])], format="csc")
    b = np.concatenate([problem.b, [float(t_max)]])
    cones = problem.merged_cones() + [Cone("nonneg", 1)]
    w = np.asarray(_MARGIN_SOLVER[0](P, q, A, b, cones), float)
    return w[:n], float(w[n])


#: the margin problem's solver: ``solve(P, q, A, b, cones) -> x`` for min 1/2 x'Px + q'x s.t. b - Ax in cones
#: (certiprog `Cone` objects, merged); set by the solvers layer (`set_margin_solver`), called by `interior_point`
_MARGIN_SOLVER: list = [None]


def set_margin_solver(solve) -> None:
    """Register the function that solves `interior_point`'s margin QP (the upper end's repair): the certificates
    take it as an argument instead of importing a backend (certiprog.solvers registers Clarabel's)."""
    if solve is not None and not callable(solve):
        raise TypeError(f"set_margin_solver takes a function (P, q, A, b, cones) -> x, or None; got {solve!r}")
    _MARGIN_SOLVER[0] = solve


def upper_bound(problem, x, repair: bool = True, eps: float | None = None) -> tuple[float, str, dict]:
    """Rigorous upper bound on p* (minimisation form) from a primal point, repaired if needed.

    ``eps``: proximity weight of the repair's margin problem (`interior_point`)."""
    info = {}
    try:
        rows, basic = _equality_basis(problem)
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
    lift = _Lift(problem)
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
        """``upper - lower``."""
        return self.upper - self.lower


def optimality_interval(problem, x, z, x_bound=None, repair: bool = True,
                        psd: PsdCertificate | None = None, width_goal: float | None = None) -> OptimalityInterval:
    """Rigorous bounds on the optimal value of ``problem`` from a primal x and a dual z (user's sense).

    ``psd``: a `psd_certificate` of ``problem.P`` already at hand (computed here otherwise). ``width_goal``: a
    relative width; when given, the lower end is first computed over the cheap box (`variable_box` with
    ``cheap=True``: variable bounds and the objective level set, O(nnz)) and kept when ``upper - lower <=
    width_goal * max(|lower|, |upper|)``; otherwise (and when None) over the box of full bound tightening. Both
    are rigorous; the cheap one is only looser."""
    x, z = np.asarray(x, float).reshape(-1), np.asarray(z, float).reshape(-1)
    if x.shape != (problem.n,) or z.shape != (problem.m,):
        raise InputError(f"x must have {problem.n} entries and z {problem.m}; got {x.size} and {z.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(z))):
        raise InputError("x and z must be finite to bound the optimum")
    U, ureason, uinfo = upper_bound(problem, x, repair=repair)
    L, cheap = -np.inf, None
    if width_goal is not None and np.isfinite(U):  # the cheap box first: enough when the interval is narrow
        lo, hi = variable_box(problem, x_bound, U, cheap=True)
        L, lreason, linfo = lower_bound(problem, x, z, lo, hi, psd=psd, upper=U)
        if not U - L <= width_goal * max(abs(U), abs(L)):
            cheap, L = (lo, hi, L, lreason, linfo), -np.inf
        else:
            linfo["box"] = "cheap"
    if L == -np.inf:
        lo, hi = variable_box(problem, x_bound, U)
        if cheap is not None and np.array_equal(lo, cheap[0]) and np.array_equal(hi, cheap[1]):
            L, lreason, linfo = cheap[2:]  # full tightening found nothing more: the same bound
        else:
            L, lreason, linfo = lower_bound(problem, x, z, lo, hi, psd=psd, upper=U)
    info = {**uinfo, **linfo, "box_finite": int(np.sum(np.isfinite(lo) & np.isfinite(hi))), "n": problem.n}
    if problem.sense < 0:
        return OptimalityInterval(-U, -L, ureason, lreason, info)
    return OptimalityInterval(L, U, lreason, ureason, info)
