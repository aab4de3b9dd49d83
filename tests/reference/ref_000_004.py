"""Independent CVXPY reference implementations for papers 000 and 004.

Paper 000: Osadchy, Hazan, Keren -- "Hinge-Minimax Learner for the Ensemble of
           Hyperplanes" (eq. 8, Theorem 1).
Paper 004: Cousins, Shawe-Taylor -- "High-probability Minimax Probability
           Machines" (MPM eqs. 3-5, HP-MPM Cor. 1 eq. 9).

Every function is a pure function of numpy arrays, solves with cp.CLARABEL, and
returns a dict with key 'objective' (the optimal value in the paper's sense)
plus the paper's variables by name.  The exact mathematics (and the paper typos
corrected here) is written out in docs/derivations/000.md and 004.md.

Conventions
-----------
* Sample covariance: BIASED (divide by m), as in paper 004 Sec. 3
  (Sigma_hat_j = 1/m_j sum (x - xbar)(x - xbar)^T) and paper 000 Lemma 3.
  ``ddof=1`` is accepted for experiments, but the paper uses ddof=0.
* Hyperplane matrices for ``ref_background_risk`` are (K, d): row k is w_k^T
  (this is the transpose of the paper's W, whose columns are w_k).
"""
from __future__ import annotations

import numpy as np
import cvxpy as cp

SOLVER = cp.CLARABEL


# ----------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------
def sqrtm_psd(S: np.ndarray) -> np.ndarray:
    """Symmetric PSD square root F (F = F^T, F @ F = S); negative eigs clipped."""
    S = 0.5 * (np.asarray(S, float) + np.asarray(S, float).T)
    ev, V = np.linalg.eigh(S)
    ev = np.clip(ev, 0.0, None)
    return (V * np.sqrt(ev)) @ V.T


def sample_moments(X: np.ndarray, ddof: int = 0):
    """Mean and covariance of the rows of X (biased, 1/m, by default)."""
    X = np.atleast_2d(np.asarray(X, float))
    mu = X.mean(axis=0)
    Xc = X - mu
    Sigma = Xc.T @ Xc / (X.shape[0] - ddof)
    return mu, Sigma


def _solve(prob: cp.Problem):
    prob.solve(solver=SOLVER)
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise RuntimeError(f"CVXPY status {prob.status}")
    return prob.value


# ----------------------------------------------------------------------------
# Paper 004: Minimax probability machine (Lanckriet et al. 2003), eqs. (3)-(5)
# ----------------------------------------------------------------------------
def ref_mpm_moments(mu1, Sigma1, mu0, Sigma0):
    """MPM from given moments.

    kappa_*^{-1} = min_w ||Sigma1^{1/2} w|| + ||Sigma0^{1/2} w||
                   s.t. w^T (mu1 - mu0) = 1                          (3)
    b_*          = w_*^T mu1 - kappa_* sqrt(w_*^T Sigma1 w_*)        (4)
    1 - alpha_*  = 1 / (1 + kappa_*^2)                               (5)
    Decision: predict class 1 iff w^T x >= b.
    """
    mu1 = np.asarray(mu1, float)
    mu0 = np.asarray(mu0, float)
    delta_mu = mu1 - mu0
    d = mu1.shape[0]
    if np.linalg.norm(delta_mu) <= 1e-12:
        # Theorem 2: no meaningful solution, worst-case error 1.
        return dict(objective=np.inf, w=np.zeros(d), b=np.nan, kappa=0.0,
                    alpha=0.0, worst_case_error=1.0, degenerate=True)
    F1, F0 = sqrtm_psd(Sigma1), sqrtm_psd(Sigma0)
    w = cp.Variable(d)
    prob = cp.Problem(cp.Minimize(cp.norm(F1 @ w, 2) + cp.norm(F0 @ w, 2)),
                      [delta_mu @ w == 1])
    obj = _solve(prob)
    wv = np.asarray(w.value).ravel()
    s1 = float(np.sqrt(max(wv @ Sigma1 @ wv, 0.0)))
    s0 = float(np.sqrt(max(wv @ Sigma0 @ wv, 0.0)))
    obj = s1 + s0  # recompute from the solution (identical up to solver tol)
    kappa = 1.0 / obj if obj > 0 else np.inf
    b = float(wv @ mu1 - kappa * s1)
    b0 = float(wv @ mu0 + kappa * s0)  # must equal b (w^T(mu1-mu0)=1)
    alpha = kappa**2 / (1.0 + kappa**2)
    return dict(objective=float(obj), w=wv, b=b, b_from_class0=b0,
                kappa=float(kappa), alpha=float(alpha),
                worst_case_error=float(1.0 / (1.0 + kappa**2)),
                sqrt_wSw1=s1, sqrt_wSw0=s0, degenerate=False)


def ref_mpm(X1, X0, ddof: int = 0):
    """MPM (004 eq. 3-5) from samples X1 (n1, d) of class 1 and X0 (n0, d) of
    class 0, using sample means and BIASED (1/n) sample covariances."""
    mu1, S1 = sample_moments(X1, ddof)
    mu0, S0 = sample_moments(X0, ddof)
    out = ref_mpm_moments(mu1, S1, mu0, S0)
    out.update(mu1=mu1, mu0=mu0, Sigma1=S1, Sigma0=S0)
    return out


# ----------------------------------------------------------------------------
# Paper 004: high-probability MPM, Corollary 1 / eq. (9)  (extra reference)
# ----------------------------------------------------------------------------
def hp_mpm_A(R: float, m: int, delta: float) -> float:
    """Eq. (8): A_j = 2 R^2 / sqrt(m_j) * (2 + sqrt(2 ln(2/delta)))."""
    return 2.0 * R**2 / np.sqrt(m) * (2.0 + np.sqrt(2.0 * np.log(2.0 / delta)))


def _hp_g(kappa, mu1, F1, mu0, F0, A1, A0):
    """g(kappa) = max_{||w||<=1} h(w, kappa), h of eq. (10)  (concave SOCP)."""
    d = mu1.shape[0]
    w = cp.Variable(d)
    c1 = np.sqrt(2 * A1 + kappa**2 * A1)
    c0 = np.sqrt(2 * A0 + kappa**2 * A0)
    h = ((mu1 - mu0) @ w
         - cp.norm(cp.hstack([c1, kappa * (F1 @ w)]), 2)
         - cp.norm(cp.hstack([c0, kappa * (F0 @ w)]), 2))
    prob = cp.Problem(cp.Maximize(h), [cp.norm(w, 2) <= 1])
    val = _solve(prob)
    return float(val), np.asarray(w.value).ravel()


def ref_hp_mpm_moments(mu1, Sigma1, mu0, Sigma0, A1, A0, tol=1e-9, max_iter=200):
    """HP-MPM, 004 Cor. 1 eq. (9), solved by bisection on kappa.

    kappa_* = max kappa  s.t.  exists ||w||<=1 with h(w, kappa) >= 0, where
    h(w,k) = w^T(mu1-mu0) - sqrt(2A1 + k^2 (w^T S1 w + A1))
                          - sqrt(2A0 + k^2 (w^T S0 w + A0)).
    g(k) = max_{||w||<=1} h(w,k) is non-increasing in k (h is, pointwise), so
    bisection is exact.  Independent of the paper's Algorithm 1.
    """
    mu1 = np.asarray(mu1, float)
    mu0 = np.asarray(mu0, float)
    F1, F0 = sqrtm_psd(Sigma1), sqrtm_psd(Sigma0)
    dmu = mu1 - mu0
    g0 = np.linalg.norm(dmu) - np.sqrt(2 * A1) - np.sqrt(2 * A0)
    if g0 <= 0:
        return dict(objective=0.0, kappa=0.0, w=dmu / max(np.linalg.norm(dmu), 1e-300),
                    b=np.nan, alpha=0.0, worst_case_error=1.0, degenerate=True)
    # upper bound: kappa <= ||dmu|| / (sqrt(w'S1w + A1) + sqrt(w'S0w + A0))
    lo, hi = 0.0, np.linalg.norm(dmu) / (np.sqrt(A1) + np.sqrt(A0)) if A1 + A0 > 0 else None
    if hi is None:  # A = 0: kappa unbounded only if a direction has zero variance
        hi = 1.0
        while _hp_g(hi, mu1, F1, mu0, F0, A1, A0)[0] > 0 and hi < 1e8:
            hi *= 2.0
    w_best = dmu / np.linalg.norm(dmu)
    for _ in range(max_iter):
        mid = 0.5 * (lo + hi)
        gm, wm = _hp_g(mid, mu1, F1, mu0, F0, A1, A0)
        if gm >= 0:
            lo, w_best = mid, wm
        else:
            hi = mid
        if hi - lo <= tol * max(1.0, hi):
            break
    kappa = lo
    _, w_best = _hp_g(kappa, mu1, F1, mu0, F0, A1, A0)
    w = w_best
    r1 = np.sqrt(2 * A1 + kappa**2 * (w @ Sigma1 @ w + A1))
    r0 = np.sqrt(2 * A0 + kappa**2 * (w @ Sigma0 @ w + A0))
    return dict(objective=float(kappa), kappa=float(kappa), w=w,
                b=float(w @ mu1 - r1), b_from_class0=float(w @ mu0 + r0),
                alpha=float(kappa**2 / (1 + kappa**2)),
                worst_case_error=float(1 / (1 + kappa**2)), degenerate=False)


def ref_hp_mpm(X1, X0, A1, A0, ddof: int = 0):
    mu1, S1 = sample_moments(X1, ddof)
    mu0, S0 = sample_moments(X0, ddof)
    out = ref_hp_mpm_moments(mu1, S1, mu0, S0, A1, A0)
    out.update(mu1=mu1, mu0=mu0, Sigma1=S1, Sigma0=S0)
    return out


# ----------------------------------------------------------------------------
# Paper 000: single-hyperplane hinge-minimax, eq. (8)
# ----------------------------------------------------------------------------
def ref_hinge_minimax(X_pos, mu, Sigma, lam, delta, bias: bool = False,
                      squared_reg: bool = True):
    """000 eq. (8) (Osadchy et al. 2016 single hyperplane):

        minimize_w  lam ||w||^2 + sum_i max{0, 1 - w^T x_i}
        s.t.        gamma sqrt(w^T Sigma w) + w^T mu <= 0,
                    gamma = sqrt((1 - delta) / delta).

    X_pos: (m, d) positive samples; (mu, Sigma): background moments.
    The paper has NO bias in (8) (Sec. 2: "b = 0 (or absorbed by w)").
    bias=True adds a free, unregularised b: hinge uses w^T x_i + b and the
    constraint becomes gamma sqrt(w^T Sigma w) + w^T mu + b <= 0 (NOT in the
    paper; the 'absorbed' variant = bias=False on data augmented with a
    constant-1 coordinate, mu_aug=[mu,1], Sigma_aug=blkdiag(Sigma,0)).
    squared_reg=False uses lam ||w||_2 (the extracted text is ambiguous;
    the paper's programme is lam ||w||^2).
    Constraint <=> worst-case (Cantelli / Marshall-Olkin) probability
    sup_{z~(mu,Sigma)} P(w^T z (+b) >= 0) <= delta.
    """
    X = np.atleast_2d(np.asarray(X_pos, float))
    mu = np.asarray(mu, float)
    m, d = X.shape
    gamma = np.sqrt((1.0 - delta) / delta)
    F = sqrtm_psd(Sigma)
    w = cp.Variable(d)
    b = cp.Variable() if bias else 0.0
    hinge = cp.sum(cp.pos(1 - (X @ w + b)))
    reg = cp.sum_squares(w) if squared_reg else cp.norm(w, 2)
    cons = [gamma * cp.norm(F @ w, 2) + mu @ w + b <= 0]
    prob = cp.Problem(cp.Minimize(lam * reg + hinge), cons)
    _solve(prob)
    wv = np.asarray(w.value).ravel()
    bv = float(b.value) if bias else 0.0
    hinge_v = float(np.maximum(0.0, 1.0 - (X @ wv + bv)).sum())
    reg_v = float(wv @ wv) if squared_reg else float(np.linalg.norm(wv))
    s = float(np.sqrt(max(wv @ Sigma @ wv, 0.0)))
    margin = -(wv @ mu + bv)  # >= gamma * s at feasibility
    # worst-case (one-sided Chebyshev) false-positive probability of w
    if margin <= 0:
        wc = 1.0
    elif s == 0:
        wc = 0.0
    else:
        wc = 1.0 / (1.0 + (margin / s) ** 2)
    return dict(objective=float(lam * reg_v + hinge_v), w=wv, b=bv,
                gamma=float(gamma), hinge=hinge_v, reg=reg_v,
                constraint_value=float(gamma * s - margin),
                worst_case_fp=float(wc))


# ----------------------------------------------------------------------------
# Paper 000: background risk via Marshall-Olkin, Theorem 1
# ----------------------------------------------------------------------------
def ref_background_risk(W, mu, Sigma, b=None, active_tol=1e-6):
    """000 Theorem 1 / Marshall-Olkin:

      sup_{Z in Omega(mu,Sigma)} P_{z~Z}(W z + b >= 0) = 1 / (1 + d2),
      d2 = min_z (z - mu)^T Sigma^{-1} (z - mu)  s.t.  W z + b >= 0.

    W: (K, d) array, row k = w_k^T (paper's W transposed); 1-D (d,) = K=1.
    b: (K,) biases (paper: b = 0, homogeneous cone W^T z >= 0).
    Solved as  d2 = min ||u||^2  s.t.  W (mu + F u) + b >= 0,  F = Sigma^{1/2}
    (for singular Sigma this restricts z - mu to range(Sigma), matching the
    generalised-inverse Mahalanobis distance).  Returns d2 (= 'objective'),
    risk, z_star, the active set and the multipliers lambda >= 0 of the
    (correctly signed) Lagrangian  (z-mu)^T S^-1 (z-mu) - lambda^T (W z + b).
    """
    W = np.atleast_2d(np.asarray(W, float))
    mu = np.asarray(mu, float)
    K, d = W.shape
    bb = np.zeros(K) if b is None else np.asarray(b, float).reshape(K)
    F = sqrtm_psd(Sigma)
    if np.all(W @ mu + bb >= 0):
        return dict(objective=0.0, d2=0.0, risk=1.0, z_star=mu.copy(),
                    active=np.zeros(K, bool), lam=np.zeros(K))
    u = cp.Variable(d)
    con = W @ (mu + F @ u) + bb >= 0
    prob = cp.Problem(cp.Minimize(cp.sum_squares(u)), [con])
    prob.solve(solver=SOLVER)
    if prob.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        return dict(objective=np.inf, d2=np.inf, risk=0.0, z_star=None,
                    active=np.zeros(K, bool), lam=np.zeros(K))
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise RuntimeError(f"CVXPY status {prob.status}")
    uv = np.asarray(u.value).ravel()
    d2 = float(uv @ uv)
    z = mu + F @ uv
    # dual of  u^T u  s.t.  W F u >= -(W mu + b)  equals the multiplier of the
    # z-problem (same constraint values), lambda >= 0
    lam = np.asarray(con.dual_value, float).ravel()
    slack = W @ z + bb
    scale = np.maximum(1.0, np.linalg.norm(W, axis=1) * max(1.0, np.linalg.norm(z)))
    active = slack <= active_tol * scale
    return dict(objective=d2, d2=d2, risk=float(1.0 / (1.0 + d2)), z_star=z,
                active=active, lam=lam)


def closed_form_d2(W, mu, Sigma, active, b=None):
    """Theorem 1 closed form on a given active set U (rows of W):
    d2 = (U mu + b_U)^T (U Sigma U^T)^{-1} (U mu + b_U)   (W rows = w^T)."""
    W = np.atleast_2d(np.asarray(W, float))
    K = W.shape[0]
    bb = np.zeros(K) if b is None else np.asarray(b, float).reshape(K)
    U = W[np.asarray(active, bool)]
    if U.shape[0] == 0:
        return 0.0
    r = U @ mu + bb[np.asarray(active, bool)]
    return float(r @ np.linalg.solve(U @ Sigma @ U.T, r))


if __name__ == "__main__":  # small smoke demo
    rng = np.random.default_rng(0)
    X1 = rng.normal(size=(40, 3)) + np.array([1.5, 0.0, 0.5])
    X0 = rng.normal(size=(60, 3)) @ np.diag([1.0, 2.0, 0.5])
    r = ref_mpm(X1, X0)
    print("MPM kappa", r["kappa"], "bound", r["worst_case_error"], "b", r["b"], r["b_from_class0"])
    mu, S = sample_moments(X0)
    h = ref_hinge_minimax(X1, mu - 1.0, S, lam=0.1, delta=0.1)
    print("hinge-minimax obj", h["objective"], "wc fp", h["worst_case_fp"])
    br = ref_background_risk(rng.normal(size=(3, 3)), np.array([-1.0, 0.5, 0.2]), S)
    print("background risk", br["d2"], br["risk"], br["active"])
