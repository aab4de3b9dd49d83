"""Independent reference implementation of ME^2 (paper 002, Metzler et al., CAp 2017).

Maximal Exclusion Ellipsoids: for ONE positive centre c and n negatives x_1..x_n
(rows of ``X_neg``), learn a Mahalanobis matrix M and a (squared) radius R.

Notation (see docs/derivations/002.md for the derivation):
    y_i   = x_i - c                              (Y = X_neg - c, shape (n, d))
    q_i   = y_i^T M y_i = ||x_i - c||_M^2
    G     = Y Y^T                                (n x n Gram matrix, G_ij = <y_i, y_j>)
    G'    = G o G                                (Hadamard square)
    S(a)  = sum_k a_k y_k y_k^T = Y^T diag(a) Y  (d x d)

Primal (Problem 2 of the paper; M in S^d, PSD constraint inactive at optimum):
    min_{M, R, xi}  (1/n) sum_i xi_i + mu (B - R)^2 + lam ||M - I||_F^2
    s.t.  q_i >= R - xi_i   (alpha_i >= 0)
          xi_i >= 0         (gamma_i >= 0)
          R >= 0            (beta    >= 0)
          R <= B            (delta   >= 0)
          M PSD             (Gamma   PSD; always 0 at the optimum)

Dual (derived, not copied):
    max_{alpha, beta, delta}  g = - alpha^T diag(G) - (1/(4 lam)) alpha^T G' alpha
                                  - (beta - delta - 1^T alpha)^2 / (4 mu)
                                  + B 1^T alpha - B beta
    s.t.  0 <= alpha_i <= 1/n,  beta >= 0,  delta >= 0      (gamma = 1/n - alpha)

Closed forms:
    M(alpha) = I + S(alpha) / (2 lam)
    R(alpha, beta, delta) = B + (beta - delta - 1^T alpha) / (2 mu)
    xi_i = max(0, R - q_i)

All functions are pure functions of numpy arrays.
"""
from __future__ import annotations

import numpy as np
import cvxpy as cp

__all__ = [
    "centered", "gram", "hadamard_gram", "primal_objective", "dual_function",
    "ref_me2_primal", "ref_me2_dual", "recover_M", "recover_R", "recover_xi",
    "kkt_residuals", "paper_printed_dual_objective", "paper_eq3_dual",
    "paper_appA_D_printed", "paper_appA_N_printed", "paper_eq4_R",
    "lagrangian_R_part", "me2_loss", "problem8_objective", "me2_predict",
    "lipschitz_constant", "thm2_bound_printed", "thm2_bound_corrected",
]


# ----------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------
# The seeded test instances (seed, n, d, mu, lam, B): n > d, n < d, n == d, tiny lam, big mu/lam; data from
# `make_instance`. certiprog keeps its own copy (me2_paper.programs.ME2_INSTANCES); a test pins the two equal.
INSTANCES = [
    (0, 8, 3, 1.0, 0.5, 4.0),
    (1, 15, 4, 0.8, 0.1, 4.0),
    (2, 5, 6, 2.0, 1.0, 4.0),
    (3, 12, 2, 0.75, 1e-2, 4.0),
    (4, 10, 3, 10.0, 100.0, 2.0),
    (5, 6, 6, 1.0, 0.2, 3.0),
]


def make_instance(seed, n, d, sigma=1.0):
    """(X_neg, center): center ~ N(0, I_d), negatives center + sigma N(0, I_d)."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=d)
    X = c + sigma * rng.normal(size=(n, d))
    return X, c


def _solve(prob: cp.Problem, solver=None):
    solvers = [solver] if solver is not None else [cp.CLARABEL, cp.SCS]
    last = None
    for s in solvers:
        try:
            if s == cp.SCS:
                prob.solve(solver=s, eps=1e-10, max_iters=200000)
            else:
                prob.solve(solver=s)
            if prob.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
                return prob
        except cp.error.SolverError as e:  # pragma: no cover - fallback
            last = e
    raise RuntimeError(f"ME2 reference solve failed: status={prob.status}, err={last}")


def centered(X_neg, center):
    """Y = X_neg - c  (n x d)."""
    X = np.atleast_2d(np.asarray(X_neg, dtype=float))
    c = np.asarray(center, dtype=float).ravel()
    if X.shape[1] != c.size:
        raise ValueError("X_neg must be (n, d) and center (d,)")
    return X - c


def gram(X_neg, center):
    """G_ij = <x_i - c, x_j - c>  (n x n)."""
    Y = centered(X_neg, center)
    return Y @ Y.T


def hadamard_gram(X_neg, center):
    """G' = G o G (Hadamard square), PSD by the Schur product theorem."""
    G = gram(X_neg, center)
    return G * G


def _check_params(mu, lam, B):
    if not (mu > 0 and lam > 0):
        raise ValueError("mu and lam must be > 0")
    if not B > 0:
        raise ValueError("B must be > 0")


# ----------------------------------------------------------------------------
# objective values
# ----------------------------------------------------------------------------
def primal_objective(M, R, xi, mu, lam, B):
    M = np.asarray(M, float)
    d = M.shape[0]
    xi = np.asarray(xi, float)
    return float(np.mean(xi) + mu * (B - R) ** 2 + lam * np.sum((M - np.eye(d)) ** 2))


def dual_function(alpha, beta, delta, X_neg, center, mu, lam, B):
    """g(alpha, beta, delta) = inf_{M, R, xi} L  (valid for alpha, gamma=1/n-alpha >= 0)."""
    Y = centered(X_neg, center)
    a = np.asarray(alpha, float).ravel()
    G = Y @ Y.T
    s = a.sum()
    S = Y.T @ (a[:, None] * Y)
    return float(-a @ np.diag(G) - np.sum(S * S) / (4 * lam)
                 - (beta - delta - s) ** 2 / (4 * mu) + B * s - B * beta)


# ----------------------------------------------------------------------------
# primal
# ----------------------------------------------------------------------------
def ref_me2_primal(X_neg, center, mu, lam, B, psd=True, solver=None):
    """Problem 2 of the paper.

    X_neg : (n, d) negatives S = {x_i};  center : (d,) positive example c;
    mu    : weight of (B - R)^2;  lam : weight of ||M - I||_F^2;
    B     : scalar upper bound on R (R is compared to SQUARED Mahalanobis
            distances, so the ellipsoid is {x : ||x - c||_M^2 <= R}).
    Returns dict(objective, M, R, xi, alpha, gamma, beta, delta, Gamma, status).
    """
    _check_params(mu, lam, B)
    Y = centered(X_neg, center)
    n, d = Y.shape
    M = cp.Variable((d, d), symmetric=True)
    R = cp.Variable()
    xi = cp.Variable(n)
    q = cp.sum(cp.multiply(Y @ M, Y), axis=1)  # q_i = y_i^T M y_i (affine in M)
    cons = [q - R + xi >= 0,  # alpha
            xi >= 0,          # gamma
            R >= 0,           # beta
            B - R >= 0]       # delta
    if psd:
        cons.append(M >> 0)   # Gamma
    obj = cp.sum(xi) / n + mu * cp.square(B - R) + lam * cp.sum_squares(M - np.eye(d))
    prob = _solve(cp.Problem(cp.Minimize(obj), cons), solver)
    Mv = np.asarray(M.value)
    Mv = 0.5 * (Mv + Mv.T)
    out = dict(objective=float(prob.value), M=Mv, R=float(R.value),
               xi=np.asarray(xi.value).ravel(),
               alpha=np.asarray(cons[0].dual_value).ravel(),
               gamma=np.asarray(cons[1].dual_value).ravel(),
               beta=float(cons[2].dual_value), delta=float(cons[3].dual_value),
               Gamma=(np.asarray(cons[4].dual_value) if psd else np.zeros((d, d))),
               status=prob.status)
    return out


# ----------------------------------------------------------------------------
# dual and closed-form recovery
# ----------------------------------------------------------------------------
def _alpha_of(dual_solution):
    if isinstance(dual_solution, dict):
        return np.asarray(dual_solution["alpha"], float).ravel()
    return np.asarray(dual_solution, float).ravel()


def recover_M(dual_solution, X_neg, center, lam):
    """M = I + (1/(2 lam)) sum_k alpha_k (x_k - c)(x_k - c)^T   (>= I, hence PD)."""
    a = _alpha_of(dual_solution)
    Y = centered(X_neg, center)
    d = Y.shape[1]
    return np.eye(d) + (Y.T @ (a[:, None] * Y)) / (2.0 * lam)


def recover_R(dual_solution, mu, B, beta=None, delta=None):
    """R = B + (beta - delta - sum(alpha)) / (2 mu)."""
    a = _alpha_of(dual_solution)
    if isinstance(dual_solution, dict):
        beta = dual_solution.get("beta", 0.0) if beta is None else beta
        delta = dual_solution.get("delta", 0.0) if delta is None else delta
    beta = 0.0 if beta is None else beta
    delta = 0.0 if delta is None else delta
    return float(B + (beta - delta - a.sum()) / (2.0 * mu))


def recover_xi(M, R, X_neg, center):
    Y = centered(X_neg, center)
    q = np.einsum("ij,jk,ik->i", Y, M, Y)
    return np.maximum(0.0, R - q)


def ref_me2_dual(X_neg, center, mu, lam, B, solver=None):
    """Derived Lagrange dual of Problem 2 (maximisation form).

    'objective' is the maximal dual value g* (== primal optimum p*).
    'printed_objective' = -g* is the optimal value of the paper's printed
    minimisation form (Sec. 3), after fixing 1_{d x d} -> 1_{n x n}, 1_d -> 1_n.
    """
    _check_params(mu, lam, B)
    Y = centered(X_neg, center)
    n, d = Y.shape
    diagG = np.sum(Y * Y, axis=1)
    alpha = cp.Variable(n)
    beta = cp.Variable(nonneg=True)
    delta = cp.Variable(nonneg=True)
    S = Y.T @ cp.diag(alpha) @ Y                     # sum_k alpha_k y_k y_k^T
    s = cp.sum(alpha)
    g = (-diagG @ alpha - cp.sum_squares(S) / (4 * lam)  # ||S||_F^2 = alpha^T G' alpha
         - cp.square(beta - delta - s) / (4 * mu) + B * s - B * beta)
    cons = [alpha >= 0, alpha <= 1.0 / n]
    prob = _solve(cp.Problem(cp.Maximize(g), cons), solver)
    a = np.clip(np.asarray(alpha.value).ravel(), 0.0, 1.0 / n)
    sol = dict(alpha=a, beta=float(beta.value), delta=float(delta.value))
    sol["gamma"] = 1.0 / n - a
    sol["M"] = recover_M(sol, X_neg, center, lam)
    sol["R"] = recover_R(sol, mu, B)
    sol["xi"] = recover_xi(sol["M"], sol["R"], X_neg, center)
    sol["objective"] = float(prob.value)
    sol["printed_objective"] = -float(prob.value)
    sol["status"] = prob.status
    return sol


# ----------------------------------------------------------------------------
# KKT
# ----------------------------------------------------------------------------
def kkt_residuals(sol, X_neg, center, mu, lam, B):
    """Max-abs residuals of every KKT condition for a (primal, dual) pair in `sol`
    (keys M, R, xi, alpha, beta, delta; gamma defaults to 1/n - alpha)."""
    Y = centered(X_neg, center)
    n, d = Y.shape
    M, R, xi = np.asarray(sol["M"]), float(sol["R"]), np.asarray(sol["xi"])
    a, b, dl = np.asarray(sol["alpha"]), float(sol["beta"]), float(sol["delta"])
    gam = np.asarray(sol.get("gamma", 1.0 / n - a))
    q = np.einsum("ij,jk,ik->i", Y, M, Y)
    S = Y.T @ (a[:, None] * Y)
    res = {
        # stationarity
        "stat_M": np.max(np.abs(2 * lam * (M - np.eye(d)) - S)),
        "stat_R": abs(-2 * mu * (B - R) + a.sum() - b + dl),
        "stat_xi": np.max(np.abs(1.0 / n - a - gam)),
        # primal feasibility
        "pfeas_margin": max(0.0, np.max(R - xi - q)),
        "pfeas_xi": max(0.0, -np.min(xi)),
        "pfeas_R": max(0.0, -R, R - B),
        "pfeas_psd": max(0.0, -np.min(np.linalg.eigvalsh(M))),
        # dual feasibility
        "dfeas": max(0.0, -np.min(a), -np.min(gam), -b, -dl),
        # complementary slackness
        "cs_alpha": np.max(np.abs(a * (q - R + xi))),
        "cs_gamma": np.max(np.abs(gam * xi)),
        "cs_beta": abs(b * R),
        "cs_delta": abs(dl * (B - R)),
    }
    return {k: float(v) for k, v in res.items()}


# ----------------------------------------------------------------------------
# the paper's printed formulas (kept as evidence of typos)
# ----------------------------------------------------------------------------
def paper_printed_dual_objective(alpha, beta, delta, X_neg, center, mu, lam, B, literal=True):
    """Objective of the dual printed in Sec. 3 (a MINIMISATION).

    literal=True uses 1_{d x d} and 1_d exactly as printed: this is only
    defined when n == d (otherwise a ValueError: shapes don't match).
    literal=False uses the corrected 1_{n x n}, 1_n; then the value equals
    -g(alpha, beta, delta) (minus the true dual function).
    """
    Y = centered(X_neg, center)
    n, d = Y.shape
    a = np.asarray(alpha, float).ravel()
    G = Y @ Y.T
    Gp = G * G
    m = d if literal else n
    ones_mat = np.ones((m, m))
    ones_vec = np.ones(m)
    if ones_mat.shape[0] != n:
        raise ValueError(f"printed dual uses 1_{{dxd}} with d={d} but alpha has n={n} entries")
    Q = Gp / (4 * lam) + ones_mat / (4 * mu)
    lin = np.diag(G) - (B + beta / (2 * mu) - delta / (2 * mu)) * ones_vec
    return float(a @ Q @ a + beta ** 2 / (4 * mu) + delta ** 2 / (4 * mu) + a @ lin
                 + beta * (B - delta / (2 * mu)))


def paper_eq3_dual(X_neg, center, mu, lam, B, solver=None):
    """Dual obtained from the Lagrangian (3) AS PRINTED, i.e. with +delta (B - R)
    (wrong sign for the constraint R <= B).  Returns its optimal value; it is the
    dual of the problem with R >= B instead of R <= B, so it is NOT p*."""
    Y = centered(X_neg, center)
    n, d = Y.shape
    diagG = np.sum(Y * Y, axis=1)
    alpha = cp.Variable(n)
    beta = cp.Variable(nonneg=True)
    delta = cp.Variable(nonneg=True)
    S = Y.T @ cp.diag(alpha) @ Y
    s = cp.sum(alpha)
    g = (-diagG @ alpha - cp.sum_squares(S) / (4 * lam)
         - cp.square(beta + delta - s) / (4 * mu) + B * s - B * beta)
    prob = _solve(cp.Problem(cp.Maximize(g), [alpha >= 0, alpha <= 1.0 / n]), solver)
    return float(prob.value)


def lagrangian_R_part(R, alpha_sum, beta, delta, mu, B):
    """D(R) = mu (B-R)^2 + R sum(alpha) - beta R + delta (R - B)   (correct sign)."""
    return mu * (B - R) ** 2 + R * alpha_sum - beta * R + delta * (R - B)


def paper_eq4_R(alpha_sum, beta, delta, mu, B):
    """R from eq. (4) AS PRINTED (gradient without +delta): R = (beta + 2 mu B - s)/(2 mu)."""
    return (beta + 2 * mu * B - alpha_sum) / (2 * mu)


def paper_appA_D_printed(alpha, beta, delta, mu, B):
    """App. A final expression for D as printed (sum_k (B + ...) without alpha_k)."""
    a = np.asarray(alpha, float).ravel()
    s = a.sum()
    n = a.size
    return float(-(s ** 2 + beta ** 2 + delta ** 2) / (4 * mu)
                 + n * (B + beta / (2 * mu) - delta / (2 * mu)) + beta * (-B + delta / (2 * mu)))


def paper_appA_N_printed(alpha, X_neg, center, lam):
    """App. A penultimate line for N = ||M - I||_F^2 as printed:
    (1/4lam^2)[sum_k a_k^2 G_kk^4 + 2 sum_{k>l} a_k a_l G_kl^2 G_lk^2]."""
    a = np.asarray(alpha, float).ravel()
    G = gram(X_neg, center)
    n = a.size
    tot = np.sum(a ** 2 * np.diag(G) ** 4)
    for k in range(n):
        for l in range(k):
            tot += 2 * a[k] * a[l] * G[k, l] ** 2 * G[l, k] ** 2
    return float(tot / (4 * lam ** 2))


# ----------------------------------------------------------------------------
# Sec. 4: loss, Problem 8, constants
# ----------------------------------------------------------------------------
def me2_loss(M, R, x, center, squared_R=False):
    """Per-example hinge [R - ||x - c||_M^2]_+  (WITHOUT the 1/n of Sec. 4.2).
    squared_R=True gives the printed Sec. 4.2 variant [R^2 - ||x-c||_M^2]_+."""
    y = np.asarray(x, float).ravel() - np.asarray(center, float).ravel()
    r = R ** 2 if squared_R else R
    return float(max(0.0, r - y @ M @ y))


def problem8_objective(M, R, X_neg, center, mu, lam, B, squared_R=False):
    """F_S(M, R) = (1/n) sum_i [R - q_i]_+ + mu (B-R)^2 + lam ||M-I||_F^2."""
    Y = centered(X_neg, center)
    q = np.einsum("ij,jk,ik->i", Y, M, Y)
    r = R ** 2 if squared_R else R
    d = Y.shape[1]
    return float(np.mean(np.maximum(0.0, r - q)) + mu * (B - R) ** 2
                 + lam * np.sum((np.asarray(M) - np.eye(d)) ** 2))


def lipschitz_constant(B):
    """k = max(1, 4 B^2) of Lemma 1."""
    return max(1.0, 4.0 * B ** 2)


def thm2_bound_printed(emp_risk, n, delta_conf, mu, lam, B, d, kappa):
    """Theorem 2 as printed (note: k, not k^2)."""
    k = lipschitz_constant(B)
    K = B + 4 * B ** 2 * np.sqrt(mu * B ** 2 / lam + d)
    m = min(mu, lam)
    return emp_risk + 4 * k / (n * kappa * m) + (8 * k / (kappa * m) + K) * np.sqrt(np.log(1 / delta_conf) / (2 * n))


def thm2_bound_corrected(emp_risk, n, delta_conf, mu, lam, B, d, K=None):
    """Thm 1 + corrected Prop. 1 (beta_stab = 4 k^2 / min(mu, lam), i.e. kappa = 1/2)
    + loss bound K (default: Lemma 4's constant; the tight valid value is K = B)."""
    k = lipschitz_constant(B)
    if K is None:
        K = B + 4 * B ** 2 * np.sqrt(mu * B ** 2 / lam + d)
    bs = 4 * k ** 2 / min(mu, lam)
    return emp_risk + 2 * bs / n + (4 * bs + K) * np.sqrt(np.log(1 / delta_conf) / (2 * n))


# ----------------------------------------------------------------------------
# Sec. 5.2 decision rule
# ----------------------------------------------------------------------------
def me2_predict(X_query, centers, Ms, Rs, m=3, rank_metric="euclidean"):
    """Sec. 5.2 labelling rule (batch semantics, see docs/derivations/002.md).

    1. each query x is associated with its Euclidean-nearest positive centre c_j;
    2. x is labelled +1 iff (a) ||x - c_j||_{M_j}^2 <= R_j (inside the ellipsoid)
       and (b) x is among the m points of the query batch associated with c_j and
       lying in its ellipsoid that are closest to c_j (rank <= m; ties broken by
       index; distance = Euclidean by default, or the learned metric with
       rank_metric='mahalanobis');
    otherwise -1.  Returns (labels in {+1,-1}, assigned centre index).
    """
    Xq = np.atleast_2d(np.asarray(X_query, float))
    C = np.atleast_2d(np.asarray(centers, float))
    d2 = ((Xq[:, None, :] - C[None, :, :]) ** 2).sum(-1)
    assign = np.argmin(d2, axis=1)
    labels = -np.ones(len(Xq), dtype=int)
    for j in range(len(C)):
        idx = np.where(assign == j)[0]
        if idx.size == 0:
            continue
        Y = Xq[idx] - C[j]
        qM = np.einsum("ij,jk,ik->i", Y, Ms[j], Y)
        inside = idx[qM <= Rs[j]]
        if inside.size == 0:
            continue
        if rank_metric == "euclidean":
            key = d2[inside, j]
        elif rank_metric == "mahalanobis":
            key = qM[qM <= Rs[j]]
        else:
            raise ValueError(rank_metric)
        order = inside[np.lexsort((inside, key))]
        labels[order[:m]] = 1
    return labels, assign
