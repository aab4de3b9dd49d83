"""Eq. (8) by a primal-dual interior point whose linear algebra lives on the small side: a (d+1) x (d+1) Cholesky.

Why: the dual accelerated gradient of `solver` needs a number of iterations that grows with the conditioning of the
features (8,192 gradient evaluations at 20,000 x 300 on correlated features, slower than CVXPY + Clarabel); an
interior point needs 15-40 Newton steps whatever the data, and each step here costs one ``X' D X`` (BLAS-3, in row
blocks) and a few passes over X. Nothing of size m x m is formed.

The program, with the bias substituted by ``c = mu'w + b`` (free, so an exact change of variables; the rows of X are
then centred, ``M = X - 1 mu'``, which keeps large common offsets out of the Newton systems) and ``M = X``, ``c = 0``
without a bias, in CVXOPT's conic form ``min 1/2 x'Px + q'x  s.t.  G x + s = h, s in K`` over ``x = (u, t)``,
``u = (w, c)`` (``u = w`` without a bias)::

    t_i + M_i w + c - 1 >= 0     (s1, multiplier z1 = alpha)                      hinge rows
    t_i                 >= 0     (s2, multiplier z2 = 1 - alpha at stationarity)
    (-(mu'w) or -c, gamma L'w) in Q^{k+1}   (s3, multiplier z3 = y = (y0, y1))     the Chebyshev constraint

objective ``lam ||w||^2 + 1't``. Stationarity reads ``2 lam w = M'alpha - y0 mu + gamma L y1`` (no bias) or
``M'alpha + gamma L y1`` with ``y0 = 1'alpha`` (bias) and ``z1 + z2 = 1``: exactly the dual of `solver`'s docstring, so
its rigorous interval (`solver._Problem.lower` / ``upper``) is evaluated at the interior point's iterates unchanged.

Method (Vandenberghe, "The CVXOPT linear and quadratic cone program solvers", Sec. 4-5; Mehrotra's predictor-
corrector with Nesterov-Todd scaling, read, not copied): at each step the Newton system
``[P G'; G -W'W] [dx; dz] = [b_x; b_z]`` is reduced by eliminating z and then t (the hinge pair of row i contributes
``D_i = H1_i H2_i / (H1_i + H2_i)`` with ``H = z/s``), leaving ``(P_u + [M 1]' D [M 1] + Gq' W3^-2 Gq) du = rhs`` of
size d (+1 with a bias): ``[M 1]'D[M 1]`` by BLAS in row blocks of `BLOCK` rows (memory: one block), the second-order
cone's scaling ``W3`` a dense (k+1) x (k+1) matrix. The same factor serves the predictor and the corrector; one step
of iterative refinement on the reduced system. This is the reduction an SVM interior point uses (Ferris & Munson) and
the reason LIBLINEAR's trust-region Newton and SSNAL converge in few iterations: second-order steps whose count does
not follow the condition number. The iterates are only candidates: `solver` certifies them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg.lapack import dpotrf as _potrf
from scipy.linalg.lapack import dpotrs as _potrs

__all__ = ["BLOCK", "NewtonResult", "gram_ones", "interior_point", "soc_inverse_rows", "soc_scaling", "soc_step"]

#: rows of X per block when forming X' D X (bounds the extra memory to BLOCK x d floats)
BLOCK = 4096
#: Gondzio centrality correctors per step at most (each one more solve with the step's factor: a few passes over X),
#: used when the reduced system has at least CORRECTOR_MIN_P columns, where a step's X'DX costs far more than a solve.
#: Measured (steps without / with): MNIST 4,869 x 784 18 / 15, 20,000 x 300 kappa 1e4 and 1e6 16 / 14 and 15 / 14
#: (time unchanged there), Adult 11,687 x 108 24 / 22, Letter 9,940 x 16 16 / 14 (no faster: its steps are vector
#: passes, as cheap as the correctors' solves)
CORRECTORS, CORRECTOR_MIN_P = 2, 200
#: with a bias, the start's cone dual head z3[0] is raised to sum(z1) (the bias column's dual equation
#: sum(alpha) = y0 then holds at the start): CVXOPT's scale-blind start leaves z3[0] ~ 2 against an optimum of
#: ~sum(alpha) (thousands) and the first steps stall on the cone (steps of 1e-3). Measured (steps without / with):
#: Letter 9,940 x 16 16 / 14, MNIST 4,869 x 784 15 / 11, Adult 11,687 x 108 24 / 18; 24 random instances
#: (m 200-3,000, d 3-120, data scaled 1e-3..1e3, lam 1e-2..1e2) 495 / 343 in all, every one certified
START_BIAS = True


@dataclass
class NewtonResult:
    """Last iterate: ``w``, ``c`` (the shifted bias; 0 without one), ``alpha`` (z1), ``y`` (z3), ``iterations``,
    ``status`` ('converged': the caller's certificate said stop; 'iteration_limit'; 'stalled': the step length
    collapsed; 'breakdown': the reduced system could not be factored), ``history`` (per step: gap, residuals, step)."""

    w: np.ndarray
    c: float
    alpha: np.ndarray
    y: np.ndarray
    iterations: int
    status: str
    history: list = field(default_factory=list)


# --------------------------------------------------------------------------- second-order cone algebra
def _jdet(u: np.ndarray) -> float:
    return float(u[0] * u[0] - u[1:] @ u[1:])


def _nt_vector(s: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, float]:
    """(v, eta) of the Nesterov-Todd scaling of `soc_scaling`."""
    sd, zd = _jdet(s), _jdet(z)
    sb, zb = s / np.sqrt(sd), z / np.sqrt(zd)
    g = np.sqrt(max((1.0 + float(sb @ zb)) / 2.0, 0.0))
    v = sb.copy()
    v[0] += zb[0]
    v[1:] -= zb[1:]
    v /= 2.0 * g
    return v, (sd / zd) ** 0.25


def soc_inverse_rows(v: np.ndarray, eta: float, G: np.ndarray) -> np.ndarray:
    """``W^-1 G`` for the scaling ``(v, eta)`` of `soc_scaling` in O(k p) (``G``: (k+1) x p), not the O(k^2 p) of the
    dense product: ``W^-1 = [[v0, -v1'], [-v1, I + v1 v1'/(1 + v0)]] / eta``, the identity plus a rank-two term."""
    v0, v1 = v[0], v[1:]
    t = v1 @ G[1:]
    out = np.empty_like(G)
    out[0] = v0 * G[0] - t
    out[1:] = G[1:] + np.outer(v1, t / (1.0 + v0))
    out[1:] -= np.outer(v1, G[0])
    return out / eta


def soc_scaling(s: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nesterov-Todd scaling of a second-order cone pair (s, z interior): symmetric ``W`` with ``W z = W^-1 s``
    (= lambda), and ``W^-1``. With ``sb = s / sqrt(s'Js)``, ``zb = z / sqrt(z'Jz)``, ``g = sqrt((1 + sb'zb) / 2)``,
    ``v = (sb + J zb) / (2 g)`` (``v'Jv = 1``) and ``eta = (s'Js / z'Jz)^(1/4)``:
    ``W = eta [[v0, v1'], [v1, I + v1 v1' / (1 + v0)]]``; ``W^-1`` is the same with ``-v1`` and ``1/eta``."""
    v, eta = _nt_vector(s, z)
    n = s.size
    v0, v1 = v[0], v[1:]
    core = np.eye(n - 1) + np.outer(v1, v1) / (1.0 + v0)
    W = np.empty((n, n))
    W[0, 0], W[0, 1:], W[1:, 0], W[1:, 1:] = v0, v1, v1, core
    Wi = W.copy()
    Wi[0, 1:] = -v1
    Wi[1:, 0] = -v1
    return eta * W, Wi / eta


def _soc_apply(v: np.ndarray, eta: float, x: np.ndarray, inverse: bool = False) -> np.ndarray:
    """``W x`` (``W^-1 x`` when ``inverse``) for the scaling ``(v, eta)`` of `soc_scaling` in O(k), without forming
    the (k+1) x (k+1) matrix: ``W = eta [[v0, v1'], [v1, I + v1 v1' / (1 + v0)]]``, ``W^-1`` with ``-v1``, ``1/eta``."""
    v0, v1 = v[0], v[1:]
    sgn = -1.0 if inverse else 1.0
    t = float(v1 @ x[1:])
    out = np.empty_like(x)
    out[0] = v0 * x[0] + sgn * t
    out[1:] = x[1:] + (sgn * x[0] + t / (1.0 + v0)) * v1
    return out / eta if inverse else eta * out


def _soc_prod(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Jordan product ``u o v = (u'v, u0 v1 + v0 u1)``."""
    return np.concatenate([[u @ v], u[0] * v[1:] + v[0] * u[1:]])


def _soc_div(lam: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The x with ``lam o x = r`` (lam interior)."""
    det = _jdet(lam)
    x0 = (lam[0] * r[0] - lam[1:] @ r[1:]) / det
    return np.concatenate([[x0], (r[1:] - x0 * lam[1:]) / lam[0]])


def soc_step(u: np.ndarray, du: np.ndarray) -> float:
    """Largest a >= 0 with u + a du in the second-order cone (u interior; inf when every a is)."""
    a, b, c = _jdet(du), float(u[0] * du[0] - u[1:] @ du[1:]), _jdet(u)
    # q(t) = a t^2 + 2 b t + c, c > 0: the first positive root, if any (and u0 + t du0 stays >= 0 before it)
    disc = b * b - a * c
    roots = []
    if a == 0.0:
        if b < 0:
            roots.append(-c / (2 * b))
    elif disc >= 0:
        sq = np.sqrt(disc)
        qq = -(b + np.copysign(sq, b))
        for r in (qq / a, c / qq if qq != 0 else np.inf):
            if r > 0:
                roots.append(r)
    t = min(roots) if roots else np.inf
    if du[0] < 0:
        t = min(t, -u[0] / du[0])
    return t


def _nonneg_step(u: np.ndarray, du: np.ndarray) -> float:
    """Largest a >= 0 with u + a du >= 0 (u > 0; inf when every a is)."""
    r = float(np.max(-du / u))  # (u > 0: the largest rate of decrease; one pass, no masked copies)
    return 1.0 / r if r > 0 else np.inf


# --------------------------------------------------------------------------- the interior point
class _Newton:
    """The data in the interior point's form (from `solver._Problem`) and its reduced KKT solves."""

    def __init__(self, prob, gram1=None, reduce: bool = True):
        self.bias, self.lam = prob.bias, prob.lam
        M, L, mu = prob.M, prob.L, prob.mu
        self.d_full = M.shape[1]
        # features that no hinge and no constraint reads (a zero column of M, a zero row of L up to the factor's
        # rounding, mu_j = 0 without a bias: MNIST's 111 blank pixels of 784) have w_j = 0 at the optimum and a
        # Newton system of their own; the steps run on the others (the X'DX of 673 columns instead of 784). The
        # iterates are candidates only: the certificate reads the full program.
        self.cols = None
        dead = ~np.any(M != 0, axis=0) if reduce else np.zeros(M.shape[1], bool)
        if dead.any():
            Lrow = np.sqrt(np.einsum("ij,ij->i", L, L))
            dead &= Lrow <= 1e-6 * max(float(Lrow.max(initial=0.0)), 1e-300)
            if not self.bias:
                dead &= mu == 0
        if dead.any() and not dead.all():
            self.cols = np.flatnonzero(~dead)
            M, L, mu = np.ascontiguousarray(M[:, self.cols]), L[self.cols], mu[self.cols]
            if gram1 is not None:
                keep = np.append(self.cols, self.d_full) if self.bias else self.cols
                gram1 = gram1[np.ix_(keep, keep)]
        self.M, self.gram1 = M, gram1
        self.C1: np.ndarray | None = None  # Gq[1:]'Gq[1:] (`_soc_gram`), formed at the first cone scaling
        self.m, self.d = M.shape
        self.p = self.d + (1 if self.bias else 0)
        k = L.shape[1]
        Gq = np.zeros((k + 1, self.p))
        if self.bias:
            Gq[0, self.d] = 1.0  # s3 = (-c, gamma L'w)
        else:
            Gq[0, :] = mu  # s3 = (-mu'w, gamma L'w)
        Gq[1:, :self.d] = -prob.gam * L.T
        self.Gq = Gq
        self.Pdiag = np.zeros(self.p)
        self.Pdiag[:self.d] = 2.0 * prob.lam

    def full_w(self, w: np.ndarray) -> np.ndarray:
        """w on every feature (0 on those the steps leave out)."""
        if self.cols is None:
            return w.copy()
        out = np.zeros(self.d_full)
        out[self.cols] = w
        return out

    # ---- products with [M 1]
    def score(self, u):
        out = self.M @ u[:self.d]
        return out + u[self.d] if self.bias else out

    def scoreT(self, v):
        out = self.M.T @ v
        if not self.bias:
            return out
        full = np.empty(self.p)
        full[:self.d], full[self.d] = out, v.sum()
        return full

    def gram(self, D: np.ndarray) -> np.ndarray:
        """``[M 1]' diag(D) [M 1]`` (p x p), BLAS in row blocks (from ``gram1`` = ``[M 1]'[M 1]`` when D is
        constant, as at the start)."""
        if self.gram1 is not None and np.all(D == D[0]):
            return D[0] * self.gram1
        d, M = self.d, self.M
        K = np.zeros((self.p, self.p))
        for i in range(0, self.m, BLOCK):
            Mb = M[i:i + BLOCK]
            S = Mb * np.sqrt(D[i:i + BLOCK])[:, None]
            K[:d, :d] += S.T @ S
        if self.bias:
            col = M.T @ D
            K[:d, d] = col
            K[d, :d] = col
            K[d, d] = D.sum()
        return K

    def factor(self, H1, H2, W3i, nt=None):
        """Factor the reduced matrix for the scaling ``H = z/s`` of the half-lines and ``W3^-1`` of the cone (a
        matrix; None: the identity; or its NT vector ``nt = (v, eta)``, which wins); False when it cannot be factored. The cone enters as ``(W3^-1 Gq)'(W3^-1 Gq)``, never as ``W3^-2`` (whose condition
        number, the square of W3's, reaches 1e16 near the optimum and wipes out the step)."""
        S12 = H1 + H2
        self.F, self.G2, self.D = H1 / S12, H2 / S12, H1 * H2 / S12
        self.S12 = S12
        if nt is not None:
            self.Gh, cone = soc_inverse_rows(nt[0], nt[1], self.Gq), self._soc_gram(nt[0], nt[1])
        elif W3i is None:  # W3 = I (the start): Gq'Gq from the formed-once C1
            self.Gh, cone = self.Gq, self._soc_gram(np.r_[1.0, np.zeros(self.Gq.shape[0] - 1)], 1.0)
        else:
            self.Gh = W3i @ self.Gq
            cone = self.Gh.T @ self.Gh
        K = self.gram(self.D)
        K[np.diag_indices(self.p)] += self.Pdiag
        K += cone
        self.K = K
        # Cholesky of the Jacobi-equilibrated matrix (a column scaled by 1e8 makes K's diagonal span 1e16; the
        # equilibrated one is what the factorisation's accuracy depends on, van der Sluis), a regularisation
        # relative to its unit diagonal only when the plain factorisation fails
        dg = np.diag(K).copy()
        if not (np.all(np.isfinite(dg)) and np.all(dg > 0)):
            return False
        self.scale = 1.0 / np.sqrt(dg)
        Ks = K * np.outer(self.scale, self.scale)
        for reg in (0.0, 1e-14, 1e-12, 1e-10, 1e-8):
            try:
                Kr = Ks + reg * np.eye(self.p) if reg else Ks
                if not np.all(np.isfinite(Kr)):
                    return False
                c, info = _potrf(Kr, lower=1, clean=0)  # LAPACK directly: scipy's wrappers cost ~0.1 ms a call,
                if info != 0:                           # as much as the whole solve at d = 16 (Letter)
                    continue
                self.chol = c
                return True
            except (np.linalg.LinAlgError, ValueError):
                continue
        return False

    def _soc_gram(self, v: np.ndarray, eta: float) -> np.ndarray:
        """``(W^-1 Gq)'(W^-1 Gq)`` for the scaling ``(v, eta)`` in O(k p + p^2) from ``Gq[1:]'Gq[1:]`` (formed once):
        with ``t = Gq[1:]'v1``, ``W^-1 Gq`` has first row ``r0 = v0 Gq[0] - t`` and the rows ``Gq[1:] + v1 c'``,
        ``c = t / (1 + v0) - Gq[0]`` (`soc_inverse_rows`), so the product is
        ``(C1 + r0 r0' + t c' + c t' + |v1|^2 c c') / eta^2``, ``C1 = Gq[1:]'Gq[1:]``: the k x p x p product
        of every step (MNIST: 785 x 674 x 674, as much as a third of X'DX) becomes one at the start."""
        G0, G1 = self.Gq[0], self.Gq[1:]
        if self.C1 is None:
            self.C1 = G1.T @ G1
        v0, v1 = v[0], v[1:]
        t = v1 @ G1
        r0 = v0 * G0 - t
        c = t / (1.0 + v0) - G0
        tc = np.outer(t, c)
        out = self.C1 + np.outer(r0, r0) + tc + tc.T + float(v1 @ v1) * np.outer(c, c)
        return out / (eta * eta)

    def _cho(self, rhs):
        x, info = _potrs(self.chol, self.scale * rhs, lower=1)
        if info != 0:  # pragma: no cover - a factor potrf accepted always solves
            raise np.linalg.LinAlgError(f"potrs failed ({info})")
        return self.scale * x

    def solve(self, bu, bt, b1, b2, bh3):
        """``P dx + G'dz = b_x``, ``G dx - W'W dz = b_z`` for the factored scaling, the cone's part of b_z given
        scaled (``bh3 = W3^-1 b3``): (du, dt, dz1, dz2, W3 dz3)."""
        v = self.F * bt + self.D * (b1 - b2)
        rhs = bu - self.scoreT(v) + self.Gh.T @ bh3
        du = self._cho(rhs)
        du += self._cho(rhs - self.K @ du)  # one step of iterative refinement
        a = self.score(du)
        e = a + b1 - b2
        dz1 = -self.F * bt - self.D * e
        dz2 = -self.G2 * bt + self.D * e
        dt = bt / self.S12 - self.F * (a + b1) - self.G2 * b2
        return du, dt, dz1, dz2, self.Gh @ du - bh3


def gram_ones(prob) -> np.ndarray:
    """``[M 1]' [M 1]`` of `solver._Problem` ``prob`` (``M' M`` without a bias): what the condition estimate of
    `solver.choose_method` reads and the interior point's first system needs."""
    return _Newton(prob, reduce=False).gram(np.ones(prob.M.shape[0]))


def interior_point(prob, *, max_iter: int, certify, tol: float, progress: bool = False,
                   gram1: np.ndarray | None = None) -> NewtonResult:
    """Mehrotra predictor-corrector on eq. (8) (`solver._Problem` ``prob``) until ``certify(alpha, y, w, c, k)`` says
    stop (tried once the method's own relative gap estimate is below ``tol``) or ``max_iter`` steps. ``gram1``: the
    `gram_ones` of ``prob`` when already computed (saves one pass of BLAS-3)."""
    from certiprog.solvers.first_order import progress_bar

    N = _Newton(prob, gram1)
    m, p, d = N.m, N.p, N.d
    k1 = N.Gq.shape[0]
    nu = 2 * m + 1  # barrier degree: 2m half-lines and one second-order cone

    # ---- starting point (CVXOPT's default: the two least-squares problems with W = I, shifted into the cone)
    ones = np.ones(m)
    if not N.factor(ones, ones, None):
        return NewtonResult(np.zeros(N.d_full), 0.0, np.zeros(m), np.zeros(k1), 0, "breakdown")
    u, t, z1, z2, z3 = N.solve(np.zeros(p), np.zeros(m), -ones, np.zeros(m), np.zeros(k1))
    s1, s2, s3 = -z1, -z2, -z3
    _, _, z1, z2, z3 = N.solve(np.zeros(p), -ones, np.zeros(m), np.zeros(m), np.zeros(k1))

    def shift(a, b, c):
        depth = max(-float(a.min()), -float(b.min()), float(np.linalg.norm(c[1:]) - c[0]))
        if depth >= 0:
            a, b, c = a + (1 + depth), b + (1 + depth), c.copy()
            c[0] += 1 + depth
        return a, b, c

    s1, s2, s3 = shift(s1, s2, s3)
    z1, z2, z3 = shift(z1, z2, z3)
    if N.bias and START_BIAS:  # (z3 only goes deeper into the cone)
        z3[0] = max(z3[0], float(z1.sum()))

    history, status = [], "iteration_limit"
    tried = False
    with progress_bar(max_iter, progress, "hinge-minimax interior point") as bar:
        for it in range(max_iter + 1):
            w = u[:d]
            sc = N.score(u)
            # residuals of P x + q + G'z = 0 and G x + s - h = 0
            ru = N.Pdiag * u - N.scoreT(z1) + N.Gq.T @ z3
            rt = 1.0 - z1 - z2
            r1 = s1 - t - sc + 1.0
            r2 = s2 - t
            r3 = s3 + N.Gq @ u
            gap = float(s1 @ z1 + s2 @ z2 + s3 @ z3)
            pobj = float(N.lam * (w @ w) + t.sum())
            rel = gap / max(abs(pobj), 1.0)
            res = max(float(np.abs(r1).max()), float(np.abs(r2).max()), float(np.abs(r3).max()))
            history.append(dict(k=it, gap=gap, rel_gap=rel, primal_res=res,
                                dual_res=max(float(np.abs(ru).max()), float(np.abs(rt).max()))))
            if rel <= tol or tried:
                tried = True
                if certify(z1, z3, N.full_w(w), u[d] if N.bias else 0.0, it):
                    status = "converged"
                    break
            if it == max_iter:
                break
            # ---- scaling
            H1, H2 = z1 / s1, z2 / s2
            if not (_jdet(s3) > 0 and _jdet(z3) > 0 and s3[0] > 0 and z3[0] > 0):
                status = "stalled"  # rounding put the cone pair on its boundary: no scaling exists
                break
            nt = _nt_vector(s3, z3)  # W3 applied through its vector (`_soc_apply`), never formed

            def W3i(x, nt=nt):
                return _soc_apply(nt[0], nt[1], x, inverse=True)

            lam3 = _soc_apply(nt[0], nt[1], z3)
            if not N.factor(H1, H2, None, nt=nt):
                status = "breakdown"
                break
            mu_gap = gap / nu

            def direction(rs1, rs2, rs3):
                # b_z = -r_z - W'(lambda \ r_s): on the half-lines W'(lambda \ r) = r / z; the cone's part scaled,
                # W3^-1 b3 = -W3^-1 r3 - lambda \ r_s. ds from the linearised primal equation G dx + ds = -r_z
                # (exact up to rounding; through W3^2 it would lose all digits near the boundary)
                du, dt, dz1, dz2, dzh3 = N.solve(-ru, -rt, -r1 - rs1 / z1, -r2 - rs2 / z2,
                                                 -W3i(r3) - _soc_div(lam3, rs3))
                ds1 = (rs1 - s1 * dz1) / z1
                ds2 = (rs2 - s2 * dz2) / z2
                ds3 = -r3 - N.Gq @ du
                return du, dt, dz1, dz2, W3i(dzh3), ds1, ds2, ds3, dzh3

            def max_step(dz1, dz2, dz3, ds1, ds2, ds3):
                return min(_nonneg_step(s1, ds1), _nonneg_step(s2, ds2), soc_step(s3, ds3),
                           _nonneg_step(z1, dz1), _nonneg_step(z2, dz2), soc_step(z3, dz3))

            # ---- predictor (affine scaling)
            ll3 = _soc_prod(lam3, lam3)
            aff = direction(-s1 * z1, -s2 * z2, -ll3)
            a_aff = min(1.0, max_step(*aff[2:8]))
            _, _, dz1, dz2, dz3, ds1, ds2, ds3, dzh3 = aff
            gap_aff = float((s1 + a_aff * ds1) @ (z1 + a_aff * dz1) + (s2 + a_aff * ds2) @ (z2 + a_aff * dz2)
                            + (s3 + a_aff * ds3) @ (z3 + a_aff * dz3))
            sigma = min(1.0, max(0.0, gap_aff / gap)) ** 3 if gap > 0 else 0.0
            # ---- corrector: r_s = -lambda o lambda - (W^-T ds_a) o (W dz_a) + sigma mu e
            e3 = np.zeros(k1)
            e3[0] = 1.0
            rs3 = -ll3 - _soc_prod(W3i(ds3), dzh3) + sigma * mu_gap * e3
            rs1 = -s1 * z1 - ds1 * dz1 + sigma * mu_gap
            rs2 = -s2 * z2 - ds2 * dz2 + sigma * mu_gap
            best = direction(rs1, rs2, rs3)
            amax = max_step(*best[2:8])
            # Gondzio's centrality correctors on the half-lines (the direction is linear in r_s: one more solve with
            # the same factor each): aim at a longer step, pull the trial point's products s_i z_i into
            # [0.1, 10] sigma mu, keep the correction only when the step grows
            for _ in range(CORRECTORS if p >= CORRECTOR_MIN_P else 0):
                if amax >= 1.0:
                    break
                a_t = min(1.0, 1.5 * amax + 0.1)
                c_mu = max(sigma * mu_gap, 1e-300)
                v1 = (s1 + a_t * best[5]) * (z1 + a_t * best[2])
                v2 = (s2 + a_t * best[6]) * (z2 + a_t * best[3])
                t1 = np.clip(v1, 0.1 * c_mu, 10.0 * c_mu) - v1
                t2 = np.clip(v2, 0.1 * c_mu, 10.0 * c_mu) - v2
                t1 = np.maximum(t1, -10.0 * c_mu)
                t2 = np.maximum(t2, -10.0 * c_mu)
                rs1c, rs2c = rs1 + t1, rs2 + t2
                cand = direction(rs1c, rs2c, rs3)
                a_c = max_step(*cand[2:8])
                if not (np.isfinite(a_c) and a_c >= 1.01 * amax):
                    break
                best, amax, rs1, rs2 = cand, a_c, rs1c, rs2c
            du, dt, dz1, dz2, dz3, ds1, ds2, ds3, _ = best
            step = min(1.0, 0.99 * amax)
            history[-1].update(step=step, sigma=sigma)
            if not np.isfinite(step) or step < 1e-10 or not (np.all(np.isfinite(du)) and np.all(np.isfinite(dz1))):
                status = "stalled"
                break
            u, t = u + step * du, t + step * dt
            s1, s2, s3 = s1 + step * ds1, s2 + step * ds2, s3 + step * ds3
            z1, z2, z3 = z1 + step * dz1, z2 + step * dz2, z3 + step * dz3
            bar.update(1)
    return NewtonResult(w=N.full_w(u[:d]), c=float(u[d]) if N.bias else 0.0, alpha=z1, y=z3,
                        iterations=len(history) - 1, status=status, history=history)
