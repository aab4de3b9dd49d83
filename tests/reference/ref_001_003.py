"""Independent reference implementations for papers 001 (MCP) and 003 (error clumping).

Written directly in CVXPY (solver CLARABEL) / numpy / scipy, independently of
``certiprog``.  Every function is pure (numpy arrays in, dict out).  The exact
programs are documented in ``docs/derivations/001.md`` and ``003.md``.

Conventions (paper 001)
-----------------------
* P manifolds, ambient dimension N, intrinsic dimension D.
* Manifold p is the Lq ellipsoid  M_p = { c_p + U_p diag(r_p) s : ||s||_q <= 1 }
  with centers c_p = centers[p] (N,), bases U_p = bases[p] (N, D),
  radii r_p = radii[p] (D,), label y_p = labels[p] in {+1, -1}.
* No bias term: the hyperplane passes through the origin (paper Sec. 2.1).
* q* = q/(q-1) is the dual exponent (q=1 -> q*=inf, q=inf -> q*=1).

Conventions (paper 003)
-----------------------
* X (m, n), y (m,) in {+1,-1}; no bias (the paper appends a constant feature).
* N_i = { j != i : ||x_i - x_j||_2 <= rho }, Theta = I - eta/(m-1) * A,
  A the (symmetric, 0/1) adjacency matrix of the rho-neighbourhood graph.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import cvxpy as cp
import numpy as np
import scipy.optimize
import scipy.sparse as sp
from scipy.spatial import cKDTree

SOLVER = cp.CLARABEL

# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def ellipsoid_instance(seed, P, N, D, R0):
    """Seeded Lq-ellipsoid test instances (centers, bases, radii, labels): c ~ N(0, I_N), axes u_i ~ N(0, I_N/N)
    (centres far from the origin relative to the axes, so small settings separate), radii ~ U[R0/2, 3R0/2],
    alternating labels. Not the paper's equal-scale generator; the tests of both suites draw from here."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((P, N))
    U = rng.standard_normal((P, N, D)) / np.sqrt(N)
    r = rng.uniform(0.5 * R0, 1.5 * R0, (P, D))
    y = np.where(np.arange(P) % 2 == 0, 1.0, -1.0)
    return c, U, r, y


def dual_exponent(q: float) -> float:
    """q* with 1/q + 1/q* = 1 (q=1 -> inf, q=inf -> 1)."""
    q = float(q)
    if q < 1:
        raise ValueError("q must be >= 1")
    if q == 1.0:
        return math.inf
    if math.isinf(q):
        return 1.0
    return q / (q - 1.0)


def _cvx_p(p: float):
    return "inf" if math.isinf(p) else p


def _as_arrays(centers, bases, radii, labels):
    centers = np.asarray(centers, dtype=float)
    P, N = centers.shape
    bases = [np.asarray(b, dtype=float).reshape(N, -1) for b in bases]
    radii = [np.asarray(r, dtype=float).ravel() for r in radii]
    labels = np.asarray(labels, dtype=float).ravel()
    if len(bases) != P or len(radii) != P or labels.shape[0] != P:
        raise ValueError("inconsistent number of manifolds")
    if not np.all(np.isin(labels, [-1.0, 1.0])):
        raise ValueError("labels must be +-1")
    for b, r in zip(bases, radii):
        if b.shape[1] != r.shape[0]:
            raise ValueError("bases[p] must be (N, D_p) and radii[p] (D_p,)")
    return centers, bases, radii, labels


def lq_oracle(a, q: float):
    """argmin_{||s||_q <= 1} a^T s  and the minimum value (= -||a||_{q*}).

    Closed form (Hoelder equality case), 1 < q < inf, p = q* = q/(q-1):
        s_i = -sign(a_i) |a_i|^{p-1} / ||a||_p^{p-1}
            = -sign(a_i) |a_i|^{1/(q-1)} / (sum_j |a_j|^{q/(q-1)})^{1/q}
    q = 1   : s = -sign(a_j) e_j, j = argmax_i |a_i|   (a vertex of the cross-polytope)
    q = inf : s = -sign(a)                             (a vertex of the cube)
    a = 0   : s = 0 (every feasible s is optimal).
    """
    a = np.asarray(a, dtype=float).ravel()
    q = float(q)
    amax = np.max(np.abs(a)) if a.size else 0.0
    if amax == 0.0:
        return {"s": np.zeros_like(a), "value": 0.0}
    if q == 1.0:
        j = int(np.argmax(np.abs(a)))
        s = np.zeros_like(a)
        s[j] = -np.sign(a[j])
    elif math.isinf(q):
        s = -np.sign(a)
    else:
        p = q / (q - 1.0)
        b = np.abs(a) / amax  # scale-invariant; avoids overflow for q -> 1
        num = b ** (p - 1.0)
        den = np.sum(b ** p) ** (1.0 / q)
        s = -np.sign(a) * num / den
    return {"s": s, "value": float(a @ s)}


def manifold_min_margin(w, c, U, r, y, q):
    """min_{x in M} y <w, x> = y w^T c - ||r o U^T w||_{q*} and the minimiser x."""
    w = np.asarray(w, dtype=float)
    a = y * (r * (U.T @ w))
    orc = lq_oracle(a, q)
    s = orc["s"]
    x = c + U @ (r * s)
    return {"value": float(y * (w @ c) + orc["value"]), "s": s, "x": x}


def manifold_norm_bound(centers, bases, radii, q: float = 2) -> float:
    """An upper bound L >= sup_p sup_{x in M_p} ||x||_2 (used in Thm 1/2, Cor 1-4).

    ||c + U diag(r) s|| <= ||c|| + ||U diag(r)||_{q->2} and
      q = 1      : ||M||_{1->2} = max column norm (exact),
      1 < q <= 2 : ||M||_{q->2} <= sigma_max(M)            (||s||_2 <= ||s||_q),
      q > 2      : ||M||_{q->2} <= sigma_max(M) D^{1/2-1/q} (||s||_2 <= D^{1/2-1/q}||s||_q).
    """
    centers, bases, radii, _ = _as_arrays(centers, bases, radii, np.ones(len(centers)))
    q = float(q)
    L = 0.0
    for c, U, r in zip(centers, bases, radii):
        M = U * r[None, :]
        if q == 1.0:
            op = float(np.max(np.linalg.norm(M, axis=0)))
        else:
            op = float(np.linalg.norm(M, 2))
            if q > 2:
                D = M.shape[1]
                op *= D ** (0.5 - (0.0 if math.isinf(q) else 1.0 / q))
        L = max(L, float(np.linalg.norm(c)) + op)
    return L


# ---------------------------------------------------------------------------
# 001: exact robust counterpart
# ---------------------------------------------------------------------------


def ref_mcp_exact(centers, bases, radii, labels, q: float = 2, C: Optional[float] = None,
                  solver=SOLVER) -> Dict[str, Any]:
    """Exact solution of 001 eq. (2.1) (C=None) or SVM_manifold-slack (Sec. 3.1).

    Hard margin (2.1):  min_w 1/2||w||^2
        s.t.  y_p w^T c_p - ||r_p o U_p^T w||_{q*} >= 1          (p = 1..P)
    Manifold slack:     min_{w, xi} 1/2||w||^2 + C sum_p xi_p
        s.t.  y_p w^T c_p - ||r_p o U_p^T w||_{q*} + xi_p >= 1   (manifolds)
              y_p w^T c_p >= 1                                   (centers)
              xi_p >= 0
    The semi-infinite constraint  forall x in M_p: y_p<w,x> (+xi_p) >= 1  is exactly the
    robust counterpart above because min_{||s||_q<=1} a^T s = -||a||_{q*}.
    """
    centers, bases, radii, labels = _as_arrays(centers, bases, radii, labels)
    P, N = centers.shape
    p_dual = _cvx_p(dual_exponent(q))
    w = cp.Variable(N)
    cons = []
    robust = [labels[i] * (centers[i] @ w) - cp.pnorm(cp.multiply(radii[i], bases[i].T @ w), p_dual)
              for i in range(P)]
    if C is None:
        cons += [rb >= 1 for rb in robust]
        obj = 0.5 * cp.sum_squares(w)
        xi = None
    else:
        xi = cp.Variable(P)
        cons += [robust[i] + xi[i] >= 1 for i in range(P)]
        cons += [labels[i] * (centers[i] @ w) >= 1 for i in range(P)]
        cons += [xi >= 0]
        obj = 0.5 * cp.sum_squares(w) + C * cp.sum(xi)
    prob = cp.Problem(cp.Minimize(obj), cons)
    prob.solve(solver=solver)
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        return {"status": prob.status, "objective": math.inf if prob.status == cp.INFEASIBLE else None,
                "w": None, "xi": None, "kappa": None}
    wv = np.asarray(w.value).ravel()
    out = {
        "status": prob.status,
        "objective": float(prob.value),
        "w": wv,
        "xi": None if xi is None else np.maximum(np.asarray(xi.value).ravel(), 0.0),
        "kappa": 1.0 / float(np.linalg.norm(wv)),
        "manifold_margins": np.array([manifold_min_margin(wv, centers[i], bases[i], radii[i],
                                                          labels[i], q)["value"] for i in range(P)]),
    }
    return out


# ---------------------------------------------------------------------------
# 001: MCP-simple (Alg. 1) and MCP-slack (Alg. 2)
# ---------------------------------------------------------------------------


def _solve_finite(X, yv, pidx, P, centers, labels, C, solver):
    """SVM_{T_k} (2.2) if C is None, else SVM_{T_k}^slack (Sec. 3.2)."""
    N = X.shape[1]
    w = cp.Variable(N)
    Z = X * yv[:, None]  # rows y_{p_i} x_i
    if C is None:
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), [Z @ w >= 1])
        prob.solve(solver=solver)
        if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
            raise RuntimeError(f"SVM_Tk infeasible or failed: {prob.status}")
        return np.asarray(w.value).ravel(), None, float(prob.value)
    xi = cp.Variable(P)
    S = np.zeros((len(pidx), P))
    S[np.arange(len(pidx)), pidx] = 1.0
    cons = [Z @ w + S @ xi >= 1, cp.multiply(labels, centers @ w) >= 1, xi >= 0]
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)), cons)
    prob.solve(solver=solver)
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise RuntimeError(f"SVM_Tk^slack infeasible or failed: {prob.status}")
    wv = np.asarray(w.value).ravel()
    xv = np.maximum(np.asarray(xi.value).ravel(), 0.0)
    return wv, xv, float(prob.value)


def ref_mcp_cutting_plane(centers, bases, radii, labels, q: float = 2, C: Optional[float] = None,
                          delta: float = 1e-2, max_iter: int = 2000, init_points=None,
                          solver=SOLVER) -> Dict[str, Any]:
    """MCP-simple (C=None, Alg. 1) or MCP-slack (C given, Alg. 2).

    T_1 = one point per manifold (default: its center c_p = f_p(0), which lies on M_p).
    Iteration k: solve the finite QP on T_k -> (w_k, xi_k); for every manifold compute the
    most violating point x_p = argmin_{x in M_p} y_p<w_k, x> with the closed-form Lq
    oracle, and delta_{k,p} = 1 - y_p<w_k, x_p> - xi_{k,p} (xi := 0 for MCP-simple).
    Pick p_{k+1} = argmax_p delta_{k,p}; if delta_k := delta_{k,p_{k+1}} <= delta stop,
    else T_{k+1} = T_k u {(x_{p_{k+1}}, y_{p_{k+1}})}.

    Returns dict: w, xi, objective (F(w_K, xi_K) of the last finite QP), n_iter (= number
    of points added = number of QPs solved - 1), T (points, manifold index), history
    (per QP solve: k, objective, w_norm2, delta_k, p, x, x_norm), converged flag.
    """
    centers, bases, radii, labels = _as_arrays(centers, bases, radii, labels)
    P, N = centers.shape
    if init_points is None:
        X = centers.copy()
        pidx = np.arange(P)
    else:
        X = np.asarray(init_points["X"], dtype=float).reshape(-1, N)
        pidx = np.asarray(init_points["p"], dtype=int).ravel()
    history: List[Dict[str, Any]] = []
    converged = False
    n_added = 0
    for k in range(1, max_iter + 2):
        yv = labels[pidx]
        w, xi, F = _solve_finite(X, yv, pidx, P, centers, labels, C, solver)
        xi_eff = np.zeros(P) if xi is None else xi
        best = None
        for p in range(P):
            mm = manifold_min_margin(w, centers[p], bases[p], radii[p], labels[p], q)
            viol = 1.0 - mm["value"] - xi_eff[p]
            if best is None or viol > best[0]:
                best = (viol, p, mm["x"])
        delta_k, p_new, x_new = best
        history.append({"k": k, "objective": F, "w_norm2": float(w @ w), "xi": xi,
                        "delta_k": float(delta_k), "p": int(p_new), "x": x_new,
                        "x_norm": float(np.linalg.norm(x_new))})
        if delta_k <= delta:
            converged = True
            break
        if k > max_iter:
            break
        X = np.vstack([X, x_new[None, :]])
        pidx = np.append(pidx, p_new)
        n_added += 1
    return {"w": w, "xi": xi, "objective": F, "n_iter": n_added, "converged": converged,
            "T": {"X": X, "p": pidx}, "history": history, "delta": delta}


def mcp_bounds(centers, bases, radii, labels, q=2, C=None, delta=1e-2, L=None,
               F_star=None, F_1=None, w_1=None):
    """Paper bounds (001) evaluated for an instance.

    Cor 2 (hard): K < L^2 / (kappa^2 delta^2) = L^2 ||w*||^2 / delta^2  (needs F_star = 1/2||w*||^2)
    Cor 4 (slack, as printed): K <= P max(8 C L^2/delta^2, 2/delta)
    Cor 4 (corrected, with center constraints): K <= (F* - F_1) / min(delta^2/(8L^2), C delta/2)
    and the a-priori version F* - F_1 <= C sum_p R_p ||w_1|| (R_p = sup_{x in M_p}||x - c_p||).
    """
    centers, bases, radii, labels = _as_arrays(centers, bases, radii, labels)
    P = centers.shape[0]
    if L is None:
        L = manifold_norm_bound(centers, bases, radii, q)
    out = {"L": L}
    if C is None:
        if F_star is not None:
            out["cor2"] = L ** 2 * (2.0 * F_star) / delta ** 2
    else:
        out["cor4_paper"] = P * max(8 * C * L ** 2 / delta ** 2, 2.0 / delta)
        step = min(delta ** 2 / (8 * L ** 2), C * delta / 2)
        if F_star is not None and F_1 is not None:
            out["cor4_corrected"] = (F_star - F_1) / step
        if w_1 is not None:
            zero_c = np.zeros_like(centers)
            R = manifold_norm_bound(zero_c, bases, radii, q)  # sup ||U diag(r) s|| (upper bound)
            out["cor4_apriori"] = C * P * R * float(np.linalg.norm(w_1)) / step
    return out


# ---------------------------------------------------------------------------
# 003: error clumping
# ---------------------------------------------------------------------------


def build_theta(X, rho: float, eta: float):
    """Theta = I - eta/(m-1) A (scipy.sparse CSR), A_ij = 1 iff i != j, ||x_i-x_j||_2 <= rho.

    Returns dict(Theta, A (CSR 0/1 symmetric), degree, edges (E,2) with i<j).
    """
    X = np.asarray(X, dtype=float)
    m = X.shape[0]
    tree = cKDTree(X)
    pairs = tree.query_pairs(r=rho, p=2.0, output_type="ndarray")  # i<j, dist <= rho
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    E = pairs.shape[0]
    rows = np.concatenate([pairs[:, 0], pairs[:, 1]])
    cols = np.concatenate([pairs[:, 1], pairs[:, 0]])
    A = sp.csr_matrix((np.ones(2 * E), (rows, cols)), shape=(m, m))
    deg = np.asarray(A.sum(axis=1)).ravel()
    coef = eta / (m - 1) if m > 1 else 0.0
    Theta = (sp.identity(m, format="csr") - coef * A).tocsr()
    return {"Theta": Theta, "A": A, "degree": deg, "edges": pairs, "coef": coef}


def neighbourhoods_ball_point(X, rho):
    """N_i via cKDTree.query_ball_point (independent of build_theta's query_pairs)."""
    X = np.asarray(X, dtype=float)
    tree = cKDTree(X)
    lists = tree.query_ball_point(X, r=rho, p=2.0)
    return [sorted(j for j in lst if j != i) for i, lst in enumerate(lists)]


def theta_sos_weights(X, rho, eta):
    """xi^T Theta xi = sum_i a_i xi_i^2 + b sum_{(i,j) in E, i<j} (xi_i - xi_j)^2,
    a_i = 1 - eta d_i/(m-1) >= 1 - eta >= 0, b = eta/(m-1) >= 0  (Theta = diag(a) + b*Laplacian)."""
    th = build_theta(X, rho, eta)
    m = np.asarray(X).shape[0]
    a = 1.0 - th["coef"] * th["degree"]
    return {"a": a, "b": th["coef"], "edges": th["edges"], "Theta": th["Theta"], "m": m}


def error_clumping_objective(w, xi, X, y, Theta, lam):
    m = X.shape[0]
    xi = np.asarray(xi, float)
    return float(0.5 * lam * w @ w + (xi @ (Theta @ xi)) / (2.0 * m))


def ref_error_clumping(X, y, rho: float, eta: float, lam: float, solver=SOLVER) -> Dict[str, Any]:
    """003 eq. (1):
        min_{w in R^n, xi in R^m}  lam/2 ||w||^2 + 1/(2m) xi^T Theta xi
        s.t. xi_i >= 0,  xi_i >= 1 - y_i <w, x_i>        (i = 1..m)
    The quadratic is written as the explicit sum of squares (valid for eta in [0,1])
        xi^T Theta xi = sum_i (1 - eta d_i/(m-1)) xi_i^2 + eta/(m-1) sum_{i~j, i<j} (xi_i - xi_j)^2
    so the model is DCP without a numerical PSD check.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    m, n = X.shape
    if not (0.0 <= eta <= 1.0):
        raise ValueError("eta must lie in [0,1] (Theta PSD); see 003.md")
    sos = theta_sos_weights(X, rho, eta)
    a, b, E = sos["a"], sos["b"], sos["edges"]
    w = cp.Variable(n)
    xi = cp.Variable(m)
    quad = cp.sum(cp.multiply(np.maximum(a, 0.0), cp.square(xi)))
    if E.shape[0] > 0 and b > 0:
        B = sp.csr_matrix((np.r_[np.ones(len(E)), -np.ones(len(E))],
                           (np.r_[np.arange(len(E)), np.arange(len(E))], np.r_[E[:, 0], E[:, 1]])),
                          shape=(len(E), m))
        quad = quad + b * cp.sum_squares(B @ xi)
    obj = 0.5 * lam * cp.sum_squares(w) + quad / (2.0 * m)
    cons = [xi >= 0, xi >= 1 - cp.multiply(y, X @ w)]
    prob = cp.Problem(cp.Minimize(obj), cons)
    prob.solve(solver=solver)
    wv = np.asarray(w.value).ravel()
    xv = np.asarray(xi.value).ravel()
    return {"status": prob.status, "objective": float(prob.value), "w": wv, "xi": xv,
            "Theta": sos["Theta"], "g": 1.0 - y * (X @ wv),
            "objective_check": error_clumping_objective(wv, xv, X, y, sos["Theta"], lam)}


def ref_error_clumping_dual(X, y, rho, eta, lam, tol=1e-12, maxiter=20000) -> Dict[str, Any]:
    """Independent check of eq. (1) through its Lagrange dual (requires eta < 1 so Theta is PD):

        max_{alpha, beta >= 0}  sum_i alpha_i - 1/(2 lam) ||X^T (alpha o y)||^2
                                 - m/2 (alpha+beta)^T Theta^{-1} (alpha+beta)
        w = X^T(alpha o y)/lam,  xi = m Theta^{-1}(alpha+beta).
    Solved with scipy L-BFGS-B (box constraints). Returns the recovered primal point, the
    dual value, and the primal value of (w, max(xi, 0, g)) (a feasible point).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    m, n = X.shape
    Theta = build_theta(X, rho, eta)["Theta"].toarray()
    Tinv = np.linalg.inv(Theta)
    Z = X * y[:, None]

    def negdual(v):
        al, be = v[:m], v[m:]
        u = Z.T @ al
        s = al + be
        Ts = Tinv @ s
        val = al.sum() - (u @ u) / (2 * lam) - 0.5 * m * (s @ Ts)
        g_al = 1.0 - (Z @ u) / lam - m * Ts
        g_be = -m * Ts
        return -val, -np.r_[g_al, g_be]

    v0 = np.zeros(2 * m)
    res = scipy.optimize.minimize(negdual, v0, jac=True, method="L-BFGS-B",
                                  bounds=[(0, None)] * (2 * m),
                                  options={"ftol": tol, "gtol": 1e-10, "maxiter": maxiter})
    al, be = res.x[:m], res.x[m:]
    w = Z.T @ al / lam
    xi = m * Tinv @ (al + be)
    g = 1.0 - Z @ w
    xi_feas = np.maximum.reduce([xi, g, np.zeros(m)])
    return {"dual_value": -float(res.fun), "w": w, "xi": xi, "alpha": al, "beta": be,
            "primal_value_feasible": error_clumping_objective(w, xi_feas, X, y, Theta, lam),
            "success": bool(res.success)}


def error_clumping_alg1(X, y, rho, eta, lam, T=200000, c=1.0, seed=0) -> Dict[str, Any]:
    """003 Algorithm 1 (stochastic primal-dual, dual averaging), specialised to eq. (1),
    with the typo in the w-step corrected: w_{t+1} = Pi_W(-eta_t u_{t+1}) (W = R^n).
    Step size eta_t = c / sqrt(t).  Returns the averaged iterate (w_bar, xi_bar) and its
    objective (it is feasible by convexity of g_i)."""
    rng = np.random.default_rng(seed)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    m, n = X.shape
    Theta = build_theta(X, rho, eta)["Theta"].tocsr()
    w = np.zeros(n)
    xi = np.zeros(m)
    u = np.zeros(n)
    mu = np.zeros(m)
    wsum = np.zeros(n)
    xisum = np.zeros(m)
    g = 1.0 - y * (X @ w)
    for t in range(1, T + 1):
        wsum += w
        xisum += xi
        I = int(rng.integers(m))
        row = Theta.getrow(I)
        th_xi = float(row.dot(xi)[0])        # (Theta xi)_I = m * dh/dxi_I
        gI = g[I]
        active_g = (xi[I] == gI) and (gI >= 0.0)  # xi_I = g_I(w_t) (the max is attained by g)
        u += lam * w
        if active_g and th_xi > 0:
            u += th_xi * (-y[I] * X[I])     # m * alpha_I * grad g_I,  m*alpha_I = (Theta xi)_I
        if (xi[I] > max(0.0, gI) and th_xi > 0) or th_xi < 0:
            mu[I] += th_xi                  # m * dh/dxi_I
        step = c / math.sqrt(t)
        w = -step * u
        g = 1.0 - y * (X @ w)
        xi = np.maximum(np.maximum(-step * mu, g), 0.0)
    w_bar, xi_bar = wsum / T, xisum / T
    return {"w": w_bar, "xi": xi_bar,
            "objective": error_clumping_objective(w_bar, xi_bar, X, y, Theta, lam),
            "feasible": bool(np.all(xi_bar >= -1e-12) and np.all(xi_bar >= 1 - y * (X @ w_bar) - 1e-9))}


def hole_punch_ball(X, y_true, y_pred, rho):
    """One hole-punching step of 003 Sec. 5.2 (the paper's heuristic, made precise):
    center = argmax_i #{j in N_i : j misclassified}; radius = the largest distance
    r in {||x_j - x_center||} such that the closed ball B(center, r) contains > 50%
    misclassified training points. Returns None when no radius qualifies (e.g. when the
    chosen center itself is classified correctly and no larger ball qualifies)."""
    X = np.asarray(X, float)
    err = np.asarray(y_true) != np.asarray(y_pred)
    nb = neighbourhoods_ball_point(X, rho)
    counts = np.array([err[list(n)].sum() if n else 0 for n in nb])
    cidx = int(np.argmax(counts))
    d = np.linalg.norm(X - X[cidx], axis=1)
    order = np.argsort(d, kind="stable")
    ds = d[order]
    cum_err = np.cumsum(err[order])
    best = None
    for k in range(len(ds)):
        if k + 1 < len(ds) and ds[k + 1] == ds[k]:
            continue  # closed ball includes all ties
        if cum_err[k] > 0.5 * (k + 1):
            best = (float(ds[k]), k + 1, int(cum_err[k]))
    if best is None:
        return None
    return {"center": cidx, "radius": best[0], "n_in": best[1], "n_err": best[2],
            "inside": d <= best[0]}


# ---------------------------------------------------------------------------
# 003 Thm 1: brute-force empirical Rademacher complexity (1-D, intervals x constants)
# ---------------------------------------------------------------------------


def rademacher_disjoint_intervals(sigma_sorted, k):
    """sup over k disjoint intervals g_j and constants h_j in [-1,1] of
    (1/m) sum_i sigma_i sum_j h_j g_j(x_i), for points sorted on a line
    = (1/m) max over <= k disjoint contiguous blocks of sum |block sum| (DP, O(m^2 k))."""
    s = np.asarray(sigma_sorted, float)
    m = len(s)
    pre = np.r_[0.0, np.cumsum(s)]
    # best[j][i]: best value using first i points and at most j blocks
    best = np.zeros((k + 1, m + 1))
    for j in range(1, k + 1):
        for i in range(1, m + 1):
            v = best[j][i - 1]
            for st in range(i):
                v = max(v, best[j - 1][st] + abs(pre[i] - pre[st]))
            best[j][i] = v
    return best[k][m] / m
