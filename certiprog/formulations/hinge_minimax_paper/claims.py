"""Claims of paper 000 — Hinge-Minimax Learner for the Ensemble of Hyperplanes (Osadchy, Hazan, Keren).

One entry per row of the claims inventory of ``docs/derivations/000.md`` (41 rows). Every check re-derives or
tests the statement: SymPy identities, exact rational arithmetic, seeded random instances, small seeded Monte
Carlo, and solves of certiprog's own formulations (`hinge_minimax`, `background_risk`) against closed forms.

Notation: the paper's W is n x K with COLUMNS w_k; certiprog's `background_risk` takes W as (K, n) with ROWS w_k^T.
In this module ``U`` is (d, K_U) with columns (the paper's convention) unless a name says ``rows``.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy.optimize import minimize as _sp_minimize
from scipy.stats import norm as _normal

from certiprog.audit.claimkit import open_unit, random_spd
from certiprog.audit.registry import claim, not_checkable, not_checkable_rows, refuted, verified
from certiprog.audit.symbolic import verify_identity
from certiprog.formulations.hinge_minimax_paper import bounds as BND

P = "000"


# ----------------------------------------------------------------------------- helpers
def _qp(W_rows, mu, Sigma, b=None):
    """certiprog's Theorem-1 QP; returns its derived dict."""
    from certiprog.formulations.hinge_minimax_paper.programs import background_risk

    model = background_risk(W_rows, mu, Sigma, b)
    sol = model.solve()
    if sol.status != "optimal":
        raise RuntimeError(f"background_risk solve status {sol.status}")
    return model.derived(sol)


def _exterior_instance(rng, d=4, K=3):
    """Random (W rows, mu, Sigma) with mu outside the cone {W z >= 0} (at least one violated row)."""
    while True:
        W = rng.normal(size=(K, d))
        mu = rng.normal(size=d) * 1.5
        if np.min(W @ mu) < -0.3:
            return W, mu, random_spd(rng, d)


def _cantelli(w, mu, Sigma, b=0.0):
    """sup over laws with moments (mu, Sigma) of P(w^T z + b >= 0): the 1-D one-sided Chebyshev value."""
    s2 = float(w @ Sigma @ w)
    m = -(float(w @ mu) + b)
    if m <= 0:
        return 1.0
    return s2 / (s2 + m * m) if s2 > 0 else 0.0


# ----------------------------------------------------------------------------- definitions
_DEF = ("a definition: it introduces notation and has no truth value of its own; its uses are audited in the "
        "entries that rely on it")


# ----------------------------------------------------------------------------- Sec. 2.1.1, Theorem 1
def _worst_case_mixture(W_rows, mu, Sigma):
    """The law attaining 1/(1+d^2): mass p at z*, mass 1-p Gaussian on the hyperplane n^T z = n^T mu - 1."""
    der = _qp(W_rows, mu, Sigma)
    d2, z = der["d2"], der["z_star"]
    v = z - mu
    p = 1.0 / (1.0 + d2)
    m2 = mu - p * v / (1 - p)
    C2 = (Sigma - np.outer(v, v) / d2) / (1 - p)
    return d2, z, v, p, m2, C2


@claim("000-MO", P, "Sec. 2.1.1 (Marshall-Olkin 7.7-7.8)",
       "For closed convex S: sup_{x ~ (M, Gamma)} P(x in S) = 1/(1+d^2), d^2 = inf_{x in S} (x-M)^T Gamma^{-1} (x-M)",
       kind="theorem", relied_on=True)
def _mo():
    rng = np.random.default_rng(1)
    worst_gap = 0.0
    for _ in range(4):
        W, mu, S = _exterior_instance(rng, d=3, K=2)
        d2, z, v, p, m2, C2 = _worst_case_mixture(W, mu, S)
        # moments of the mixture p*delta_{z*} + (1-p)*N(m2, C2)
        mean = p * z + (1 - p) * m2
        second = p * np.outer(z, z) + (1 - p) * (C2 + np.outer(m2, m2))
        cov = second - np.outer(mean, mean)
        if not (np.allclose(mean, mu, atol=1e-7) and np.allclose(cov, S, atol=1e-6)):
            return refuted("worst-case mixture does not have the prescribed moments",
                           counterexample={"mu": mu, "mean": mean})
        ev = np.linalg.eigvalsh(0.5 * (C2 + C2.T))
        if ev[0] < -1e-7:
            return refuted("Gaussian part has a non-PSD covariance", counterexample={"eig": ev})
        nvec = np.linalg.solve(S, v)
        # the Gaussian part lives on n^T z = n^T mu - 1, while S lies in n^T (z - mu) >= d^2 (supporting hyperplane)
        G = rng.multivariate_normal(m2, 0.5 * (C2 + C2.T), size=3000, check_valid="ignore")
        inside = np.all(G @ W.T >= -1e-9, axis=1)
        if inside.any() or abs(nvec @ (m2 - mu) + 1) > 1e-6:
            return refuted("Gaussian part of the mixture enters the region", counterexample={"W": W, "mu": mu})
        # region points sampled near z* satisfy the supporting-hyperplane inequality
        Zs = z + rng.normal(size=(4000, 3)) * 2.0
        Zs = Zs[np.all(Zs @ W.T >= 0, axis=1)]
        if np.min((Zs - mu) @ nvec) < d2 - 1e-6:
            return refuted("z* is not the Mahalanobis projection", counterexample={"W": W, "mu": mu})
        # upper bound side: Gaussian and scaled Student-t laws with the same moments stay below 1/(1+d^2)
        L = np.linalg.cholesky(S)
        g = mu + rng.normal(size=(20000, 3)) @ L.T
        t = mu + (rng.standard_t(5, size=(20000, 3)) * math.sqrt(3 / 5)) @ L.T
        for sample in (g, t):
            frac = np.mean(np.all(sample @ W.T >= 0, axis=1))
            worst_gap = max(worst_gap, frac - p)
            if frac > p + 0.01:
                return refuted("a law with the given moments exceeds 1/(1+d^2)",
                               counterexample={"W": W, "mu": mu, "P": frac, "bound": p})
    return verified("4 random polyhedral cones (K=2, n=3, mu exterior): the two-component law (mass 1/(1+d^2) at "
                    "z*, Gaussian remainder on n^T z = n^T mu - 1 with n = Sigma^{-1}(z*-mu)) has exactly mean mu and "
                    "covariance Sigma, its Gaussian part never enters S and S lies in n^T(z-mu) >= d^2, so P(S) = "
                    f"1/(1+d^2) is attained; Gaussian and t_5 laws with the same moments stay below (max excess "
                    f"{worst_gap:.4f}). General convex S is the cited theorem; only polyhedral S is tested.")


def _active_rows(der, W):
    return np.flatnonzero(der["active"])


@claim("000-T1", P, "Thm 1", "sup_{Z in Omega(mu,Sigma)} P(W^T z >= 0) = 1/(1+d^2), d^2 = mu^T U (U^T Sigma U)^{-1} "
       "U^T mu, U = columns w_k with w_k^T z* = 0, z* = argmin_{W^T z >= 0} (z-mu)^T Sigma^{-1} (z-mu) (the "
       "constraint is lost in the printed statement; U must have linearly independent columns)",
       kind="theorem", relied_on=True)
def _t1():
    rng = np.random.default_rng(2)
    n_ok, worst = 0, 0.0
    for _ in range(12):
        W, mu, S = _exterior_instance(rng, d=4, K=3)
        der = _qp(W, mu, S)
        act = _active_rows(der, W)
        U = W[act].T  # columns
        if np.linalg.matrix_rank(U) < U.shape[1]:
            continue
        d2_cf = float(mu @ U @ np.linalg.solve(U.T @ S @ U, U.T @ mu))
        # independent dual: max_{lam >= 0} -lam^T W mu - 1/4 lam^T W S W^T lam  (L-BFGS-B)
        Q = W @ S @ W.T
        c = W @ mu
        res = _sp_minimize(lambda l: c @ l + 0.25 * l @ Q @ l, np.ones(len(c)), jac=lambda l: c + 0.5 * Q @ l,
                           bounds=[(0, None)] * len(c), method="L-BFGS-B", options={"ftol": 1e-14, "gtol": 1e-12})
        d2_dual = -float(res.fun)
        err = max(abs(der["d2"] - d2_cf), abs(der["d2"] - d2_dual)) / max(1.0, d2_cf)
        worst = max(worst, err)
        if err > 1e-5:
            return refuted("QP, closed form on the active set and dual disagree",
                           counterexample={"W": W.tolist(), "mu": mu.tolist(), "qp": der["d2"], "closed_form": d2_cf,
                                           "dual": d2_dual})
        n_ok += 1
    return verified(f"{n_ok} random instances (K=3, n=4, mu exterior): certiprog's QP d^2, the closed form "
                    f"mu^T U (U^T Sigma U)^{{-1}} U^T mu on the QP's active columns and an independent L-BFGS-B dual agree "
                    f"(max rel. error {worst:.1e}); risk = 1/(1+d^2) by 000-MO. Printed statement lost the constraint "
                    "W^T z >= 0 in the definition of z* (the proof has it).")


@claim("000-T1a", P, "Thm 1 proof, eq. (6)", "Lagrangian (z-mu)^T Sigma^{-1}(z-mu) + sum_i lam_i w_i^T z, lam >= 0, gives "
       "z* = mu - 1/2 sum_i lam_i Sigma w_i and lam* = 2 (U^T Sigma U)^{-1} U^T mu >= 0", kind="step", relied_on=True)
def _t1a():
    # minimal counterexample: n = 1, w = 1, mu = -1, Sigma = 1: region z >= 0, z* = 0
    lam_paper = 2 * sp.Integer(1) ** -1 * sp.Integer(-1)
    # corrected form on random instances against certiprog's multipliers
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(8):
        W, mu, S = _exterior_instance(rng, d=4, K=3)
        der = _qp(W, mu, S)
        act = _active_rows(der, W)
        U = W[act].T
        if np.linalg.matrix_rank(U) < U.shape[1]:
            continue
        lam_c = -2 * np.linalg.solve(U.T @ S @ U, U.T @ mu)
        lam_p = -lam_c
        z_c = mu + 0.5 * S @ U @ lam_c
        if np.min(lam_c) < -1e-6 or not np.allclose(z_c, der["z_star"], atol=1e-5):
            return refuted("corrected multiplier formula fails too", counterexample={"W": W, "mu": mu})
        lam_solver = np.abs(der["lam"][act])
        worst = max(worst, float(np.max(np.abs(lam_solver - lam_c))))
        if np.max(lam_p) >= 0:
            return not_checkable("instance has a non-negative paper multiplier; sign argument inconclusive")
    if worst > 1e-5:
        return not_checkable(f"certiprog's multipliers disagree with the corrected formula (max dev {worst:.1e})")
    return refuted("With '+ lam^T W^T z' and lam >= 0 the multipliers of a >= constraint come out non-positive: "
                   "n=1, w=1, mu=-1, Sigma=1 (region z >= 0, z*=0) gives lam* = 2(U^T Sigma U)^{-1}U^T mu = "
                   f"{lam_paper} < 0, contradicting lam >= 0; the same sign on 8 random instances. The corrected "
                   "Lagrangian (z-mu)^T Sigma^{-1}(z-mu) - lam^T W^T z gives lam* = -2(U^T Sigma U)^{-1}U^T mu >= 0 and "
                   "z* = mu + 1/2 Sigma U lam*, which match certiprog's QP solution and |multipliers| "
                   f"(max dev {worst:.1e}). d^2 is unaffected (quadratic in lam).",
                   counterexample={"n": 1, "w": 1, "mu": -1, "Sigma": 1, "lam_star_paper": -2},
                   corrected="L = (z-mu)^T Sigma^{-1}(z-mu) - sum_i lam_i w_i^T z; z* = mu + 1/2 Sigma U lam*, "
                             "lam* = -2 (U^T Sigma U)^{-1} U^T mu >= 0")


@claim("000-T1b", P, "Thm 1 proof, eq. (5)", "the dual function at lam* equals d^2 = mu^T U (U^T Sigma U)^{-1} U^T mu",
       kind="dual", relied_on=True)
def _t1b():
    # symbolic, one active hyperplane: g(lam) = -lam u mu' - lam^2 s / 4 with u mu' = a, s = u^T Sigma u
    a, s = sp.symbols("a s", positive=True)
    lam = -2 * (-a) / s  # corrected lam* for U^T mu = -a < 0
    g = -lam * (-a) - sp.Rational(1, 4) * lam ** 2 * s
    chk = verify_identity(g, a ** 2 / s)
    if not chk:
        return refuted("dual value differs from d^2 (K_U=1)", counterexample=chk.counterexample)
    # exact rationals, K_U = 2, n = 3: the paper's eq. (5) with its own lam* and the corrected dual both equal d^2
    rng = np.random.default_rng(4)
    for _ in range(5):
        U = sp.Matrix(3, 2, [sp.Integer(int(v)) for v in rng.integers(-4, 5, size=6)])
        if U.rank() < 2:
            continue
        B = sp.Matrix(3, 3, [sp.Integer(int(v)) for v in rng.integers(-3, 4, size=9)])
        Sig = B * B.T + sp.eye(3)
        mu = sp.Matrix([sp.Rational(int(v), 3) for v in rng.integers(-9, 10, size=3)])
        M = U.T * Sig * U
        d2 = (mu.T * U * M.inv() * U.T * mu)[0]
        lam_p = 2 * M.inv() * U.T * mu  # paper (Lagrangian with '+')
        h = Sig * U * lam_p / 2
        eq5 = (h.T * Sig.inv() * h)[0] + (lam_p.T * U.T * (mu - h))[0]
        lam_c = -lam_p
        gc = (-lam_c.T * U.T * mu)[0] - (lam_c.T * M * lam_c)[0] / 4
        if sp.simplify(eq5 - d2) != 0 or sp.simplify(gc - d2) != 0:
            return refuted("dual value at lam* differs from d^2", counterexample={"U": U, "Sigma": Sig, "mu": mu})
    return verified("SymPy (K_U=1, symbolic) and exact rational arithmetic (K_U=2, n=3, 5 instances): the paper's dual "
                    "function (5) at its lam* and the correctly signed dual -lam^T U^T mu - 1/4 lam^T U^T Sigma U lam at "
                    "lam* = -2(U^T Sigma U)^{-1}U^T mu both equal mu^T U (U^T Sigma U)^{-1} U^T mu exactly.")


# ----------------------------------------------------------------------------- eq. (8) and Sec. 2.2
def _hm_data(rng, d=3, m=25, shift=1.4):
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    S = 0.2 * (Q * np.linspace(1.0, 3.0, d)) @ Q.T
    mu = np.array([-3.0 + shift] + [0.0] * (d - 1))
    X = rng.normal(size=(m, d)) * 0.7 + np.array([2.0] + [0.5] * (d - 1))
    return X, mu, S


@claim("000-E8", P, "eq. (8)", "min_w lam ||w||^2 + sum_i max{0, 1 - w^T x_i} s.t. gamma sqrt(w^T Sigma w) + w^T mu <= 0, "
       "gamma = sqrt((1-delta)/delta); the constraint <=> sup_{z~(mu,Sigma)} P(w^T z >= 0) <= delta",
       kind="formula", relied_on=True)
def _e8():
    import cvxpy as cp

    from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax

    dl = sp.symbols("delta", positive=True)
    chk = verify_identity(1 / (1 + (1 - dl) / dl), dl, domain=open_unit(dl))
    if not chk:
        return refuted("1/(1+gamma^2) != delta", counterexample=chk.counterexample)
    rng = np.random.default_rng(5)
    # equivalence on random (w, mu, Sigma, delta)
    for _ in range(1500):
        d = 3
        w, mu, S, delta = rng.normal(size=d), rng.normal(size=d) * 2, random_spd(rng, d), rng.uniform(0.02, 0.5)
        gam = math.sqrt((1 - delta) / delta)
        lhs = gam * math.sqrt(w @ S @ w) + w @ mu <= 0
        rhs = _cantelli(w, mu, S) <= delta
        if lhs != rhs and abs(gam * math.sqrt(w @ S @ w) + w @ mu) > 1e-9:
            return refuted("constraint and worst-case FP <= delta disagree",
                           counterexample={"w": w, "mu": mu, "Sigma": S, "delta": delta})
    # certiprog solve vs an independent CVXPY formulation; tightness of the two-point law at an active constraint
    worst = 0.0
    for lam, delta, shift in ((0.01, 0.1, 1.4), (0.3, 0.05, 0.0), (1.0, 0.2, 1.0)):
        X, mu, S = _hm_data(rng, shift=shift)
        model = hinge_minimax(X, mu, S, lam, delta)
        sol = model.solve()
        der = model.derived(sol)
        w = cp.Variable(3)
        gam = math.sqrt((1 - delta) / delta)
        Lc = np.linalg.cholesky(S)
        prob = cp.Problem(cp.Minimize(lam * cp.sum_squares(w) + cp.sum(cp.pos(1 - X @ w))),
                          [gam * cp.norm(Lc.T @ w) + mu @ w <= 0])
        prob.solve(solver=cp.CLARABEL)
        worst = max(worst, abs(prob.value - der["objective"]) / max(1, abs(prob.value)))
        if worst > 1e-5:
            return refuted("certiprog eq. (8) disagrees with an independent CVXPY model",
                           counterexample={"lam": lam, "delta": delta, "certiprog": der["objective"],
                                           "cvxpy": prob.value})
        wv = der["w"]
        mt, s2 = float(wv @ mu), float(wv @ S @ wv)
        if abs(der["constraint_value"]) < 1e-6 and not der["trivial"]:
            p = s2 / (s2 + mt * mt)
            hi = mt + s2 / mt
            mean, var = (1 - p) * hi, (1 - p) * hi * hi - mt * mt
            if not (abs(mean - mt) < 1e-9 * max(1, abs(mt)) and abs(var - s2) < 1e-8 * max(1, s2)
                    and abs(p - delta) < 1e-5):
                return refuted("two-point law does not attain delta at the active constraint",
                               counterexample={"p": p, "delta": delta})
    # w = 0 is feasible (constraint value 0) but accepts every z: worst-case FP = 1 > delta
    w0 = np.zeros(3)
    X, mu, S = _hm_data(rng, shift=1.4)
    cv0 = math.sqrt((1 - 0.1) / 0.1) * math.sqrt(w0 @ S @ w0) + w0 @ mu
    fp0 = 1.0  # P(0 >= 0) = 1 for every law
    return refuted("The equivalence 'constraint <=> worst-case FP <= delta' fails at w = 0: gamma sqrt(0) + 0 = "
                   f"{cv0} <= 0 holds for every (mu, Sigma, delta), but f(x) = 1 iff w^T x >= 0 accepts every z, so "
                   f"sup P(w^T z >= 0) = {fp0} > delta; w = 0 (objective m) is the optimum whenever no nontrivial w "
                   "beats it (000-L2a meets this in a conditional refit). Corrected (w^T mu < 0, automatic for w != 0 "
                   "and Sigma > 0): SymPy gives 1/(1+gamma^2) = delta, so by Cantelli sup P(w^T z >= 0) = "
                   "1/(1+(w^T mu)^2/(w^T Sigma w)) <= delta iff gamma sqrt(w^T Sigma w) + w^T mu <= 0 (agreement on 1500 "
                   "random cases); certiprog's hinge_minimax matches an independent CVXPY model on 3 settings "
                   f"(rel. {worst:.1e}); at an active constraint the two-point law (0 w.p. p, m + s^2/m otherwise) has "
                   "the right mean/variance and P(w^T z >= 0) = delta exactly (tight).",
                   counterexample={"w": "0", "constraint_value": cv0, "worst_case_fp": fp0, "delta": 0.1},
                   corrected="for w with w^T mu < 0 (i.e. w != 0 when Sigma > 0): gamma sqrt(w^T Sigma w) + w^T mu <= 0 "
                             "<=> sup_{z~(mu,Sigma)} P(w^T z >= 0) <= delta; the feasible w = 0 must be reported as "
                             "'no classifier' (certiprog: derived['trivial'])")


@claim("000-G", P, "Sec. 2.2", "for a Gaussian distribution the (minimax) bound is tight: P(w^T z >= 0) = 1/(1+d^2)",
       kind="claim")
def _g():
    rows = {d: (float(_normal.cdf(-d)), 1 / (1 + d * d)) for d in (1.0, 2.0, 3.0)}
    grid = np.linspace(1e-3, 10, 2000)
    if not np.all(_normal.cdf(-grid) < 1 / (1 + grid ** 2)):
        return not_checkable("unexpected: Gaussian tail exceeds the bound somewhere")
    # the bound is attained by the two-point / mixture law (000-MO, 000-E8), never by a Gaussian
    return refuted("For z ~ N(mu, Sigma), P(w^T z >= 0) = Phi(-d) with d = -w^T mu / sqrt(w^T Sigma w), strictly below "
                   "1/(1+d^2) for every d in (0, 10] (grid of 2000): d=1: %.4f vs %.3f; d=2: %.4f vs %.3f; d=3: %.5f vs "
                   "%.3f. The bound is attained only by the two-point/mixture law of 000-MO." % (
                       rows[1.0] + rows[2.0] + rows[3.0]),
                   counterexample={"d": 2, "gaussian_P": rows[2.0][0], "bound": rows[2.0][1]},
                   corrected="for Gaussian z, P(w^T z >= 0) = Phi(-d) < 1/(1+d^2); the bound is tight only over all "
                             "laws with the given moments (attained by a two-point law)")


@claim("000-L2a", P, "Lemma 2 (probability part)", "P(W^T z >= 0) = P(w_t^T z >= 0 | z in S_t) P(z in S_t) <= a*delta, "
       "a = P(z in S_t), when w_t is fitted by eq. (8) on the conditional moments of S_t", kind="lemma")
def _l2a():
    from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax

    def fit(X, Zs, delta):
        model = hinge_minimax(X, Zs.mean(axis=0), np.cov(Zs.T, bias=True), 0.1, delta)
        return model.derived(model.solve())

    def two_steps(X, Z, delta):
        """Two greedy steps: w_1 on all background points, w_2 refit on those w_1 keeps (S = {w_1^T z >= 0})."""
        W = np.zeros((2, Z.shape[1]))
        W[0] = fit(X, Z, delta)["w"]
        S = Z @ W[0] >= 0
        second = fit(X, Z[S], delta)
        W[1] = second["w"]
        return W, S, second

    rng = np.random.default_rng(6)
    # (a) a natural instance where the conditional refit returns the trivial w = 0 (always feasible for eq. (8))
    Z = np.c_[rng.normal(size=(4000, 2)) * 1.5, np.ones(4000)]  # augmented (z, 1): bias absorbed
    X = np.c_[rng.normal(size=(20, 2)) * 0.3 + 2.0, np.ones(20)]
    delta = 0.3
    W, S1, d2 = two_steps(X, Z, delta)
    a, joint = float(S1.mean()), float(np.mean(np.all(Z @ W.T >= 0, axis=1)))
    if not (d2["trivial"] and joint > a * delta + 1e-9):
        return not_checkable("trivial-refit instance not reproduced")
    # (b) the corrected statement on a nontrivial greedy step
    Z0 = np.vstack([rng.normal(size=(2000, 2)) * 0.7 + [-3, 0], rng.normal(size=(2000, 2)) * 0.7 + [2, 4]])
    Zb = np.c_[Z0, np.ones(4000)]
    Xb = np.c_[rng.normal(size=(20, 2)) * 0.3 + [2.0, 0], np.ones(20)]
    db = 0.2
    Wb, Sb, fb = two_steps(Xb, Zb, db)
    ab = float(Sb.mean())
    cond = float(np.mean(Zb[Sb] @ Wb[1] >= 0))
    jb = float(np.mean(np.all(Zb @ Wb.T >= 0, axis=1)))
    wc = _cantelli(Wb[1], Zb[Sb].mean(axis=0), np.cov(Zb[Sb].T, bias=True))
    if fb["trivial"] or abs(jb - cond * ab) > 1e-12 or cond > wc + 1e-9 or wc > db + 1e-6 or jb > ab * db + 1e-9:
        return refuted("corrected product bound fails on a nontrivial refit",
                       counterexample={"a": ab, "cond": cond, "wc": wc, "joint": jb})
    return refuted(f"The step 'eq. (8) constrains P(w_t^T z >= 0 | z in S_t) <= delta' fails when the refit returns the "
                   f"always-feasible w_t = 0 (which accepts everything): seeded negatives N(0, 1.5^2 I) and positives "
                   f"near (2,2) (augmented with a constant 1), delta={delta}: the greedy w_1 is nontrivial, but eq. (8) "
                   f"on the negatives inside w_1's half-space returns w_2 = 0, so P(W^T z >= 0) = {joint:.4f} = a > "
                   f"a*delta = {a * delta:.4f}. Corrected (refit nontrivial, w_t^T mu_t < 0): on a seeded nontrivial "
                   f"greedy step joint = conditional x a exactly ({jb:.5f} = {cond:.4f} x {ab:.4f}), conditional <= "
                   f"Cantelli worst case {wc:.3f} <= delta = {db}, hence joint <= a*delta = {ab * db:.5f}.",
                   counterexample={"negatives": "N(0, 2.25 I), 4000, seed 6", "delta": delta, "w_2": "0 (trivial)",
                                   "P(W^T z >= 0)": joint, "a*delta": a * delta},
                   corrected="if the refitted w_t is nontrivial (w_t^T mu_t < 0), P(W^T z >= 0) <= P(z in S_t) delta; "
                             "a refit returning w_t = 0 must be rejected (certiprog: derived['trivial'])")


@claim("000-L2b", P, "Lemma 2 (hinge part) and its proof", "Alg. 1 minimises L^H_S(W) = sum_i max_j max{0, 1-w_j^T x_i}: "
       "updating the hyperplane with maximal hinge loss decreases the loss of W, other updates leave it unchanged",
       kind="lemma")
def _l2b():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    w2 = np.array([1.0, 0.0])
    w1, w1n = np.array([0.4, 0.4]), np.array([0.1, 1.0])
    h = lambda w: np.maximum(0.0, 1 - X @ w)  # noqa: E731
    own_before, own_after = h(w1).sum(), h(w1n).sum()
    L_before = np.maximum(h(w1), h(w2)).sum()
    L_after = np.maximum(h(w1n), h(w2)).sum()
    # both hyperplanes feasible for eq. (8) with mu = (-10,-10), Sigma = I, delta = 0.1
    mu, gam = np.array([-10.0, -10.0]), 3.0
    feas = all(gam * np.linalg.norm(w) + w @ mu <= 0 for w in (w1, w1n, w2))
    if not (own_after < own_before and L_after > L_before and h(w1).sum() > h(w2).sum() and feas):
        return not_checkable("counterexample construction failed")
    return refuted(f"x_1=(1,0), x_2=(0,1), w_2=(1,0) (hinges (0,1)); w_1=(0.4,0.4) (hinges (0.6,0.6), the maximal "
                   f"hyperplane loss 1.2) is replaced by w_1'=(0.1,1) (hinges (0.9,0)): w_1's own hinge sum drops "
                   f"{own_before:.1f} -> {own_after:.1f} but L^H_S = sum_i max_j h_ij rises {L_before:.1f} -> "
                   f"{L_after:.1f}; all three hyperplanes satisfy the eq. (8) constraint for mu=(-10,-10), Sigma=I, "
                   "delta=0.1. The proof conflates sum_i max_j h_ij with max_j sum_i h_ij.",
                   counterexample={"x": "(1,0),(0,1)", "w2": "(1,0)", "w1": "(0.4,0.4)", "w1_new": "(0.1,1)",
                                   "L_before": L_before, "L_after": L_after},
                   corrected="no monotonicity of sum_i max_j h_ij is guaranteed; each refit only minimises the refitted "
                             "hyperplane's own eq. (8) objective under the current conditional moments")


@claim("000-A1g", P, "Alg. 1, initialisation", "the greedy start exists: eq. (8) against the moments of all negatives "
       "gives a first hyperplane w_1 (a useful, non-trivial one) from which the other K-1 are built", kind="claim")
def _a1g():
    """Refuted for positives whose mean is the background mean (Jensen): every (w, b) feasible for eq. (8) has
    w^T mu + b <= -gamma sqrt(w^T Sigma w) <= 0, so the mean hinge is >= max(0, 1 - (w^T xbar + b)) >= 1 = the value
    of w = 0, b = 0: the optimum is the trivial plane for every lam >= 0, delta in (0, 1). Checked by certiprog's
    eq. (8) solves on a seeded instance (positives centred exactly on mu) and by the bound on random feasible
    planes."""
    from certiprog.formulations.hinge_minimax_paper.khhm import background_moments
    from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax

    rng = np.random.default_rng(24)
    Z = rng.normal(size=(2000, 3))
    mu, S = background_moments(Z)
    X = rng.normal(size=(50, 3)) * 0.3
    X = X - X.mean(axis=0) + mu                      # the positives' mean is exactly mu
    values = []
    for delta in (0.1, 0.5, 0.9):
        for lam in (0.0, 0.1):
            m = hinge_minimax(X, mu, S, lam, delta, bias=True)
            der = m.derived(m.solve())
            values.append(der.hinge / len(X))
            if not der.trivial:
                return not_checkable(f"eq. (8) returned a non-trivial plane at delta={delta}, lam={lam}")
    # the bound itself on random feasible planes: mean hinge >= 1
    worst = math.inf
    for _ in range(200):
        w = rng.normal(size=3)
        gam = math.sqrt((1 - 0.9) / 0.9)
        b = -(w @ mu) - gam * math.sqrt(w @ S @ w) - rng.exponential()
        worst = min(worst, float(np.maximum(0.0, 1 - (X @ w + b)).mean()))
    if worst < 1 - 1e-12:
        return not_checkable(f"a feasible plane with mean hinge {worst} < 1: the Jensen bound failed")
    return refuted(f"for positives whose mean is the background mean mu, eq. (8)'s optimum is w = 0 for every lam "
                   f">= 0 and delta < 1 (Jensen: feasible planes have w^T mu + b <= 0, so the mean hinge is >= 1, the "
                   f"value of w = 0); certiprog's solves at delta in {{0.1, 0.5, 0.9}}, lam in {{0, 0.1}} returned "
                   f"the trivial plane (mean hinge {min(values):.6f}-{max(values):.6f}), 200 random feasible planes "
                   f"had mean hinge >= {worst:.3f}. Then every greedy plane is trivial and Alg. 1 cannot begin; any "
                   "region holding mu has Thm 1 risk 1.",
                   counterexample={"positives": "50 points, mean = mu", "background": "N(0, I_3), 2000 points"},
                   corrected="khhm.fit_khhm detects it (all greedy planes trivial): start='auto' warns and starts "
                             "from khhm.enclosing_polytope (the box of the positives along the generalised "
                             "eigenvectors of (Sigma_pos, Sigma)); start='greedy' refuses with an InputError")


# ----------------------------------------------------------------------------- Sec. 2.3.1
def _UA(rng, d=5, KU=2):
    U = rng.normal(size=(d, KU))
    S = random_spd(rng, d)
    Sh = random_spd(rng, d)
    A = U @ np.linalg.solve(U.T @ S @ U, U.T)
    Ah = U @ np.linalg.solve(U.T @ Sh @ U, U.T)
    return U, S, Sh, A, Ah


@claim("000-E9", P, "eq. (9)", "mu_hat^T A_hat mu_hat - mu^T A mu = mu^T A (mu_hat - mu) + mu_hat^T (A_hat - A) mu_hat + "
       "(mu_hat - mu)^T A mu_hat", kind="step")
def _e9():
    m = sp.Matrix(sp.symbols("m1 m2"))
    mh = sp.Matrix(sp.symbols("h1 h2"))
    A = sp.Matrix(2, 2, sp.symbols("a11 a12 a21 a22"))
    Ah = sp.Matrix(2, 2, sp.symbols("b11 b12 b21 b22"))
    lhs = (mh.T * Ah * mh)[0] - (m.T * A * m)[0]
    rhs = (m.T * A * (mh - m))[0] + (mh.T * (Ah - A) * mh)[0] + ((mh - m).T * A * mh)[0]
    chk = verify_identity(lhs, rhs)
    if not chk:
        return refuted("identity (9) fails", counterexample=chk.counterexample)
    return verified("SymPy identity for general 2x2 A, A_hat (no symmetry needed), exact at 20 rational points: "
                    "(9) holds with equality (the printed '<=' inherits the invalid first step, see 000-Dd).")


@claim("000-Dd", P, "Sec. 2.3.1", "Delta = 1/(1+a) - 1/(1+a_hat) <= a_hat - a (omitting the denominators), "
       "a = mu^T U(U^T Sigma U)^{-1} U^T mu, a_hat = mu_hat^T U(U^T Sigma_hat U)^{-1} U^T mu_hat", kind="step")
def _dd():
    a, ah = sp.symbols("a ahat", nonnegative=True)
    delta = 1 / (1 + a) - 1 / (1 + ah)
    chk = verify_identity(delta, (ah - a) / ((1 + a) * (1 + ah)))
    if not chk:
        return not_checkable("unexpected algebra failure")
    val = delta.subs({a: 1, ah: 0})
    rng = np.random.default_rng(7)
    A = rng.uniform(0, 20, 5000)
    Ah = rng.uniform(0, 20, 5000)
    D = 1 / (1 + A) - 1 / (1 + Ah)
    if np.any(D > np.maximum(0, Ah - A) + 1e-12) or np.any(np.abs(D) > np.abs(Ah - A) + 1e-12):
        return not_checkable("unexpected: corrected bound fails")
    return refuted(f"a = 1, a_hat = 0: Delta = {val} > a_hat - a = -1. Dropping the denominators is only valid when "
                   "a_hat >= a. SymPy: Delta = (a_hat - a)/((1+a)(1+a_hat)) exactly, hence Delta <= max(0, a_hat - a) "
                   "<= |a_hat - a| (checked on 5000 random pairs); Lemmas 3-4 bound |Delta_1|, |Delta_2| via "
                   "Cauchy-Schwarz, so Thm 6 survives. Also: Delta uses the same U for (mu, Sigma) and (mu_hat, "
                   "Sigma_hat) though the active set depends on the moments (gap not addressed).",
                   counterexample={"a": 1, "a_hat": 0, "Delta": "-1/2", "a_hat - a": -1},
                   corrected="Delta = (a_hat - a)/((1+a)(1+a_hat)) <= max(0, a_hat - a) <= |a_hat - a|")


@claim("000-E10", P, "eqs. (10)-(11)", "Delta_1 = mu^T U(U^T Sigma U)^{-1}U^T(mu_hat - mu) + (mu_hat - mu)^T U(U^T Sigma "
       "U)^{-1}U^T mu_hat, Delta_2 = mu_hat^T (U(U^T Sigma_hat U)^{-1}U^T - U(U^T Sigma U)^{-1}U^T) mu_hat; "
       "Delta_1 + Delta_2 = a_hat - a", kind="step")
def _e10():
    rng = np.random.default_rng(8)
    for _ in range(100):
        U, S, Sh, _, _ = _UA(rng)
        mu, mh = rng.normal(size=5), rng.normal(size=5)
        M, Mh = U.T @ S @ U, U.T @ Sh @ U
        d1 = mu @ U @ np.linalg.solve(M, U.T @ (mh - mu)) + (mh - mu) @ U @ np.linalg.solve(M, U.T @ mh)
        d2 = mh @ (U @ np.linalg.solve(Mh, U.T @ mh) - U @ np.linalg.solve(M, U.T @ mh))
        a = mu @ U @ np.linalg.solve(M, U.T @ mu)
        ah = mh @ U @ np.linalg.solve(Mh, U.T @ mh)
        if abs(d1 + d2 - (ah - a)) > 1e-8 * max(1, abs(a), abs(ah)):
            return refuted("Delta_1 + Delta_2 != a_hat - a", counterexample={"U": U, "mu": mu, "mu_hat": mh})
    return verified("100 random (U in R^{5x2}, Sigma, Sigma_hat, mu, mu_hat): (10)+(11) written with explicit "
                    "U(U^T Sigma U)^{-1}U^T sum to a_hat - a to 1e-8 (the split of eq. (9)).")


@claim("000-E12", P, "Lemma 3 proof, eq. (12)", "||U(U^T Sigma U)^{-1}U^T||_2 <= 1/lambda_min(Sigma) = 1/alpha "
       "(indeed U(U^T Sigma U)^{-1}U^T <= Sigma^{-1} in the Loewner order)", kind="bound")
def _e12():
    rng = np.random.default_rng(9)
    worst = -np.inf
    for _ in range(200):
        d = int(rng.integers(3, 7))
        KU = int(rng.integers(1, d))
        U, S, _, A, _ = _UA(rng, d, KU)
        gap = np.linalg.eigvalsh(np.linalg.inv(S) - A)[0]
        ratio = np.linalg.norm(A, 2) * np.linalg.eigvalsh(S)[0]
        worst = max(worst, ratio)
        if gap < -1e-9 or ratio > 1 + 1e-9:
            return refuted("bound (12) fails", counterexample={"U": U, "Sigma": S})
    return verified(f"200 random (n in 3..6, K_U < n): Sigma^{{-1}} - U(U^T Sigma U)^{{-1}}U^T is PSD and "
                    f"||U(U^T Sigma U)^{{-1}}U^T||_2 * lambda_min(Sigma) <= 1 (max {worst:.4f}).")


@claim("000-E13", P, "Lemma 3 proof, eq. (13)", "U(U^T Sigma U)^{-1}U^T = V(V^T Sigma V)^{-1}V^T for the thin SVD "
       "U = V S T^T (full column rank)", kind="step")
def _e13():
    rng = np.random.default_rng(10)
    for _ in range(100):
        U, S, _, A, _ = _UA(rng, 5, int(rng.integers(1, 5)))
        V, _, _ = np.linalg.svd(U, full_matrices=False)
        B = V @ np.linalg.solve(V.T @ S @ V, V.T)
        if not np.allclose(A, B, atol=1e-9 * max(1, np.abs(A).max())):
            return refuted("(13) fails", counterexample={"U": U, "Sigma": S})
    return verified("100 random full-column-rank U (n=5): U(U^T Sigma U)^{-1}U^T equals V(V^T Sigma V)^{-1}V^T.")


@claim("000-E15", P, "Lemma 3 proof, eqs. (14)-(15)", "||V(V^T Sigma V)^{-1}V^T||_2 <= ||(V^T Sigma V)^{-1}||_2 = "
       "1/lambda_min(V^T Sigma V) <= 1/lambda_min(Sigma) (Poincare separation)", kind="step")
def _e15():
    rng = np.random.default_rng(11)
    for _ in range(200):
        d = int(rng.integers(2, 7))
        k = int(rng.integers(1, d + 1))
        V, _ = np.linalg.qr(rng.normal(size=(d, k)))
        S = random_spd(rng, d, 0.1, 5.0)
        Minv = np.linalg.inv(V.T @ S @ V)
        n1 = np.linalg.norm(V @ Minv @ V.T, 2)
        n2 = np.linalg.norm(Minv, 2)
        lv, ls = np.linalg.eigvalsh(V.T @ S @ V)[0], np.linalg.eigvalsh(S)[0]
        if n1 > n2 * (1 + 1e-9) or abs(n2 - 1 / lv) > 1e-8 * n2 or lv < ls * (1 - 1e-9):
            return refuted("(14)-(15) fail", counterexample={"V": V, "Sigma": S})
    return verified("200 random orthonormal V (n<=6) and Sigma: ||V M^{-1} V^T|| <= ||M^{-1}|| = 1/lambda_min(M) <= "
                    "1/lambda_min(Sigma), M = V^T Sigma V. Typos: (14)'s second line is the SQUARED norm (hence the "
                    "square in (15)); V has orthonormal columns (VV^T is the projection).")


def _two_point_1d(rng, C, m1, reps):
    """x uniform on {C, C/3}: mu = 2C/3, sigma^2 = (C/3)^2; returns mu_hat per replicate."""
    k = rng.binomial(m1, 0.5, size=reps)
    return (k * C + (m1 - k) * C / 3) / m1


@claim("000-L3", P, "Lemma 3", "w.p. >= 1-delta, uniformly in W: Delta_1 <= (2C/alpha) sqrt(32 C^4 (log(1/delta)+1/4)/m1)",
       kind="lemma", bound=BND.L3)
def _l3():
    C, m1, delta, reps = 0.01, 200, 0.1, 4000
    rng = np.random.default_rng(12)
    mu, alpha = 2 * C / 3, (C / 3) ** 2
    mh = _two_point_1d(rng, C, m1, reps)
    d1 = (mu * (mh - mu) + (mh - mu) * mh) / alpha  # U = [1], A = 1/sigma^2
    Lg = math.log(1 / delta) + 0.25
    b_paper = BND.L3.evaluate_printed(C=C, alpha=alpha, m=m1, delta=delta)
    b_corr = BND.L3.evaluate(C=C, alpha=alpha, m=m1, delta=delta)
    det = np.all(d1 <= 2 * C / alpha * np.abs(mh - mu) + 1e-12)
    f_paper, f_corr = float(np.mean(d1 > b_paper)), float(np.mean(d1 > b_corr))
    # scale check of the corrected form on a bigger radius: violations stay <= delta
    mh2 = _two_point_1d(rng, 3.0, m1, reps)
    mu2, al2 = 2.0, 1.0
    d1b = (mu2 * (mh2 - mu2) + (mh2 - mu2) * mh2) / al2
    f_corr2 = float(np.mean(d1b > BND.L3.evaluate(C=3.0, alpha=al2, m=m1, delta=delta)))
    if not det or f_paper <= delta or f_corr > delta or f_corr2 > delta or m1 < 8 * Lg:
        return not_checkable("Monte Carlo did not separate the printed and corrected constants")
    return refuted(f"Scale-inconsistent constant: Delta_1 is invariant under x -> s x (alpha scales s^2, C scales s), the "
                   f"printed bound scales as s. n=1, x uniform on {{C, C/3}}, C={C}, U=[1], m1={m1}, delta={delta}: "
                   f"Delta_1 exceeds (2C/alpha)sqrt(32C^4(log(1/delta)+1/4)/m1) = {b_paper:.3f} in {f_paper:.1%} of "
                   f"{reps} seeded samples (> delta). The proof's own t gives (2C/alpha)sqrt(32C^2(...)/m1) = "
                   f"(2C^2/alpha)sqrt(32(...)/m1): violated in {f_corr:.1%} (C=0.01) and {f_corr2:.1%} (C=3) of samples; "
                   "the deterministic step Delta_1 <= (2C/alpha)||mu_hat - mu|| holds on every sample. Bernstein's range "
                   "t <= 2C needs m1 >= 8(log(1/delta)+1/4).",
                   counterexample={"C": C, "m1": m1, "delta": delta, "law": "uniform{C, C/3}",
                                   "violation_rate": f_paper, "printed_bound": b_paper},
                   corrected="Delta_1 <= (2C^2/alpha) sqrt(32(log(1/delta)+1/4)/m1) w.p. >= 1-delta, for "
                             "m1 >= 8(log(1/delta)+1/4)")


@claim("000-L3b", P, "Lemma 3 proof", "vector Bernstein (Candes-Plan Thm 2.6) with v_k = (x_k - E x)/m1, B = 2C/m1, "
       "sigma^2 = 4C^2/m1: P(||mu_hat - mu|| >= t) <= exp(-m1 t^2/(32 C^2) + 1/4) for 0 <= t <= 2C; "
       "t = sqrt(32 C^2 (log(1/delta)+1/4)/m1)", kind="step", bound=BND.L3B)
def _l3b():
    C, m, t, dl = sp.symbols("C m t delta", positive=True)
    B, s2 = 2 * C / m, 4 * C ** 2 / m
    c1 = verify_identity(t ** 2 / (8 * s2), m * t ** 2 / (32 * C ** 2))
    c2 = verify_identity(s2 / B, 2 * C)
    tt = sp.sqrt(32 * C ** 2 * (sp.log(1 / dl) + sp.Rational(1, 4)) / m)
    c3 = verify_identity(sp.exp(-m * tt ** 2 / (32 * C ** 2) + sp.Rational(1, 4)), dl,
                         domain=open_unit(dl))
    if not (c1 and c2 and c3):
        bad = next(c for c in (c1, c2, c3) if not c)
        return refuted("Bernstein parameter algebra fails", counterexample=bad.counterexample)
    # Monte Carlo: law uniform on {+-C e_i} shifted inside the ball (||x|| <= C)
    rng = np.random.default_rng(13)
    Cv, n, m1, reps = 1.0, 3, 100, 3000
    pts = np.vstack([np.eye(n), -np.eye(n)]) * 0.6 + 0.3 * np.ones(n) / math.sqrt(n)
    pts = pts / np.maximum(1, np.linalg.norm(pts, axis=1))[:, None] * Cv
    mean = pts.mean(axis=0)
    idx = rng.integers(0, len(pts), size=(reps, m1))
    dev = np.linalg.norm(pts[idx].mean(axis=1) - mean, axis=1)
    for tv in np.linspace(0.05, 2 * Cv, 12):
        if np.mean(dev >= tv) > math.exp(-m1 * tv ** 2 / (32 * Cv ** 2) + 0.25) + 0.01:
            return refuted("Monte Carlo tail exceeds the Bernstein bound", counterexample={"t": tv})
    return verified("SymPy: t^2/(8 sigma^2) = m1 t^2/(32 C^2), sigma^2/B = 2C and delta = exp(-m1 t^2/(32C^2)+1/4) "
                    "inverts to t = sqrt(32C^2(log(1/delta)+1/4)/m1); ||v_k|| <= 2C/m1 and sum E||v_k||^2 <= 4C^2/m1 "
                    "follow from ||x|| <= C. Seeded MC (n=3, m1=100, 3000 samples) never exceeds the tail on a t-grid "
                    "in [0, 2C]. The inequality itself is cited (Candes-Plan), not re-proved.")


@claim("000-L4", P, "Lemma 4", "w.p. >= 1-delta: Delta_2 <= (C^2/(alpha alpha_hat)) (2C ||mu_hat - mu|| + "
       "sqrt(32 C^4 (log(1/delta)+1/4)/m1)), via A_hat - A = A_hat (Sigma - Sigma_hat) A, mu_hat mu_hat^T - mu mu^T = "
       "mu_hat (mu_hat - mu)^T + (mu_hat - mu) mu^T and Sigma_hat = (1/m1) sum x x^T - mu_hat mu_hat^T", kind="lemma",
       bound=BND.L4)
def _l4():
    rng = np.random.default_rng(14)
    n, m1, Cr = 3, 80, 1.0
    pts = rng.normal(size=(12, n))
    pts = pts / np.linalg.norm(pts, axis=1)[:, None] * rng.uniform(0.3, 1.0, size=(12, 1)) * Cr
    mu = pts.mean(axis=0)
    E2 = pts.T @ pts / len(pts)
    Sig = E2 - np.outer(mu, mu)
    alpha = np.linalg.eigvalsh(Sig)[0]
    worst = 0.0
    for _ in range(150):
        X = pts[rng.integers(0, len(pts), size=m1)]
        mh = X.mean(axis=0)
        Sh = np.cov(X.T, bias=True)
        if not np.allclose(Sh, X.T @ X / m1 - np.outer(mh, mh)):
            return refuted("Sigma_hat identity fails")
        if not np.allclose(np.outer(mh, mh) - np.outer(mu, mu), np.outer(mh, mh - mu) + np.outer(mh - mu, mu)):
            return refuted("mean outer-product identity fails")
        U = rng.normal(size=(n, 2))
        A = U @ np.linalg.solve(U.T @ Sig @ U, U.T)
        Ah = U @ np.linalg.solve(U.T @ Sh @ U, U.T)
        if not np.allclose(Ah - A, Ah @ (Sig - Sh) @ A, atol=1e-8 * max(1, np.abs(A).max())):
            return refuted("A_hat - A identity fails")
        ah = np.linalg.eigvalsh(Sh)[0]
        d2 = mh @ (Ah - A) @ mh
        chain = Cr ** 2 / (alpha * ah) * (2 * Cr * np.linalg.norm(mh - mu) + np.linalg.norm(X.T @ X / m1 - E2, "fro"))
        worst = max(worst, d2 / chain)
        if d2 > chain + 1e-12:
            return refuted("deterministic chain Delta_2 <= C^2/(alpha alpha_hat)(2C||.|| + ||S - ES||_F) fails",
                           counterexample={"Delta_2": d2, "bound": chain})
    return verified("150 seeded samples (n=3, m1=80, ||x|| <= 1, known moments): the three identities hold and the "
                    "deterministic chain Delta_2 <= ||mu_hat||^2 ||Sigma_hat - Sigma||/(alpha alpha_hat) <= "
                    "C^2/(alpha alpha_hat)(2C||mu_hat-mu|| + ||(1/m1)sum xx^T - E xx^T||_F) holds on every sample "
                    f"(max ratio {worst:.3f}); the probabilistic term is 000-L4b.")


@claim("000-L4b", P, "Lemma 4 proof", "||(1/m1) sum_k x_k x_k^T - E xx^T||_F <= sqrt(32 C^4 (log(1/delta)+1/4)/m1) "
       "w.p. >= 1-delta (vector Bernstein with B = 2C^2/m1, sigma^2 = 4C^4/m1, t <= 2C^2)", kind="step", bound=BND.L4B)
def _l4b():
    C, m, t = sp.symbols("C m t", positive=True)
    B, s2 = 2 * C ** 2 / m, 4 * C ** 4 / m
    c1 = verify_identity(t ** 2 / (8 * s2), m * t ** 2 / (32 * C ** 4))
    c2 = verify_identity(s2 / B, 2 * C ** 2)
    if not (c1 and c2):
        return refuted("Bernstein parameter algebra fails", counterexample=(c1.counterexample or c2.counterexample))
    rng = np.random.default_rng(15)
    n, m1, reps, delta = 3, 60, 2000, 0.1
    pts = rng.normal(size=(10, n))
    pts = pts / np.linalg.norm(pts, axis=1)[:, None]
    E2 = pts.T @ pts / len(pts)
    idx = rng.integers(0, len(pts), size=(reps, m1))
    Xs = pts[idx]
    dev = np.linalg.norm(np.einsum("rki,rkj->rij", Xs, Xs) / m1 - E2, axis=(1, 2))
    bound = BND.L4B.evaluate(C=1.0, m=m1, delta=delta)
    frac = float(np.mean(dev > bound))
    if frac > delta:
        return refuted("Monte Carlo violation rate exceeds delta", counterexample={"rate": frac})
    return verified("SymPy: t^2/(8 sigma^2) = m1 t^2/(32 C^4) and sigma^2/B = 2C^2 (||x x^T - E xx^T||_F <= 2C^2); "
                    f"seeded MC (unit-sphere law, n=3, m1={m1}, delta={delta}): violation rate {frac:.3f} <= delta, "
                    f"max deviation/bound {float(dev.max() / bound):.3f}. Bernstein itself is cited.")


@claim("000-L5", P, "Lemma 5 and proof", "alpha_hat >= alpha/2 w.p. >= 1 - 2 exp(-m1 alpha^2/(32*36 C^4) + 1/4); proof: "
       "||U^T Sigma_hat U|| >= ||U^T Sigma U|| - ||Sigma - Sigma_hat|| ||U||^2 >= (alpha/2)||U||^2, 'therefore' "
       "alpha_hat ||U||^2 >= (alpha/2)||U||^2; tails exp(-m1 alpha^2/(36*32)+1/4) (t = alpha/6) and "
       "exp(-m1 alpha^2/(36*32 C^4)+1/4) (t = alpha/(6C))", kind="lemma", bound=BND.L5)
def _l5():
    # the inference from the largest to the smallest eigenvalue is invalid
    Sh, U = np.diag([1.0, 0.01]), np.array([[1.0], [0.0]])
    alpha, ah = 1.0, 0.01
    premise = np.linalg.norm(U.T @ Sh @ U, 2) >= alpha / 2 * np.linalg.norm(U, 2) ** 2
    # corrected route (Weyl) on random pairs, and the tails
    rng = np.random.default_rng(16)
    for _ in range(200):
        S1, E = random_spd(rng, 4), rng.normal(size=(4, 4)) * 0.3
        S2 = S1 + 0.5 * (E + E.T)
        if np.linalg.eigvalsh(S2)[0] < np.linalg.eigvalsh(S1)[0] - np.linalg.norm(S2 - S1, 2) - 1e-10:
            return refuted("Weyl check failed (unexpected)")
    C, m, a = sp.symbols("C m alpha", positive=True)
    tail_mean = sp.exp(-m * (a / (6 * C)) ** 2 / (32 * C ** 2) + sp.Rational(1, 4))
    tail_second = sp.exp(-m * (a / 6) ** 2 / (32 * C ** 4) + sp.Rational(1, 4))
    target = sp.exp(-m * a ** 2 / (36 * 32 * C ** 4) + sp.Rational(1, 4))
    if not (verify_identity(tail_mean, target) and verify_identity(tail_second, target)):
        return refuted("tail algebra fails")
    if not premise or ah >= alpha / 2:
        return not_checkable("counterexample construction failed")
    return refuted("Proof step invalid: the argument lower-bounds ||U^T Sigma_hat U|| (a LARGEST eigenvalue) and concludes "
                   "about lambda_min. Sigma = I (alpha=1), Sigma_hat = diag(1, 0.01), U = e_1: ||U^T Sigma_hat U|| = 1 "
                   ">= (alpha/2)||U||^2 holds but alpha_hat = 0.01 < alpha/2. The conclusion is true by Weyl: "
                   "lambda_min(Sigma_hat) >= alpha - ||Sigma_hat - Sigma||_2 >= alpha/2 on the two Bernstein events "
                   "(Weyl checked on 200 random pairs); SymPy: both tails at t = alpha/6 (second moment) and "
                   "t = alpha/(6C) (mean) equal exp(-m1 alpha^2/(1152 C^4) + 1/4) -- the printed first tail drops C^4; "
                   "the range conditions are alpha/6 <= 2C^2 and alpha/(6C) <= 2C (true as alpha <= C^2), not "
                   "'alpha/6 <= 4 m1'.",
                   counterexample={"Sigma": "I_2", "Sigma_hat": "diag(1, 0.01)", "U": "e_1", "alpha_hat": ah},
                   corrected="alpha_hat >= alpha - ||Sigma_hat - Sigma||_2 (Weyl) >= alpha/2 w.p. >= "
                             "1 - 2 exp(-m1 alpha^2/(1152 C^4) + 1/4)")


@claim("000-T6", P, "Thm 6 and proof", "for alpha >= sqrt(1152 (log(2/delta)+1/4)/m1), w.p. >= 1-3delta, for all W with "
       "K independent hyperplanes: L^B_{mu,Sigma} <= L^B_{mu_hat,Sigma_hat} + (2C^2/alpha + 6C^4/alpha^2) "
       "sqrt(32 (log(1/delta)+1/4)/m1); proof: Delta_1 + Delta_2 with alpha_hat >= alpha/2 at error probability <= delta",
       kind="theorem", bound=BND.T6)
def _t6():
    C, m, a, dl = sp.symbols("C m alpha delta", positive=True)
    Lg = sp.log(1 / dl) + sp.Rational(1, 4)
    t1 = sp.sqrt(32 * C ** 2 * Lg / m)
    t2 = sp.sqrt(32 * C ** 4 * Lg / m)
    ok = [verify_identity(2 * C * t1, 2 * t2, domain=open_unit(dl)),
          verify_identity(2 * C / a * t1, 2 * C ** 2 / a * sp.sqrt(32 * Lg / m), domain=open_unit(dl)),
          verify_identity(C ** 2 / (a * a / 2) * (2 * C * t1 + t2), 6 * C ** 4 / a ** 2 * sp.sqrt(32 * Lg / m),
                          domain=open_unit(dl))]
    a_corr = C ** 2 * sp.sqrt(1152 * (sp.log(2 / dl) + sp.Rational(1, 4)) / m)
    fail_at = 2 * sp.exp(-m * a_corr ** 2 / (1152 * C ** 4) + sp.Rational(1, 4))
    ok.append(verify_identity(fail_at, dl, domain=open_unit(dl)))
    if not all(ok):
        return refuted("constant algebra fails", counterexample=next(c for c in ok if not c).counterexample)
    # the printed condition does not make Lemma 5's failure probability <= delta
    Cv, m1, delta = 2.0, 1000, 0.05
    a_print = math.sqrt(1152 * (math.log(2 / delta) + 0.25) / m1)
    alpha = 4.0  # x = +-2: alpha = 4 = C^2 >= a_print
    fail = 2 * math.exp(-m1 * alpha ** 2 / (1152 * Cv ** 4) + 0.25)
    if not (alpha >= a_print and fail > delta):
        return not_checkable("counterexample construction failed")
    return refuted(f"The printed alpha-condition lacks C^2 (scale-inconsistent), so the proof's accounting 'alpha_hat >= "
                   f"alpha/2 with error probability at most delta' fails: C=2 (law x = +-2, alpha = 4), m1={m1}, "
                   f"delta={delta}: alpha = 4 >= sqrt(1152(log(2/delta)+1/4)/m1) = {a_print:.3f}, yet Lemma 5's failure "
                   f"bound is 2exp(-m1 alpha^2/(1152C^4)+1/4) = {fail:.3f} > delta. SymPy: the failure bound is <= delta "
                   "iff alpha >= C^2 sqrt(1152(log(2/delta)+1/4)/m1); with it the constants follow: 2C t_1 = 2 t_2 "
                   "(t_1 = sqrt(32C^2 L/m1), t_2 = sqrt(32C^4 L/m1)), Delta_1 <= (2C^2/alpha)sqrt(32L/m1), Delta_2 <= "
                   "3C^4/(alpha alpha_hat)sqrt(32L/m1) <= (6C^4/alpha^2)sqrt(32L/m1). Remaining gaps: the proof line "
                   "'sqrt(32 log(1/delta) + 1/4)' should be sqrt(32(log(1/delta)+1/4)); same-U issue of 000-Dd; "
                   "'L^B(U)' means L^B(W).",
                   counterexample={"C": Cv, "alpha": alpha, "m1": m1, "delta": delta, "printed_threshold": a_print,
                                   "lemma5_failure_bound": fail},
                   corrected="for alpha >= C^2 sqrt(1152(log(2/delta)+1/4)/m1): w.p. >= 1-3delta, L^B_{mu,Sigma} <= "
                             "L^B_{mu_hat,Sigma_hat} + (2C^2/alpha + 6C^4/alpha^2) sqrt(32(log(1/delta)+1/4)/m1)")


# ----------------------------------------------------------------------------- Sec. 2.3.2
def _hinge_max(Wset, X):
    """per-point K-hyperplane loss for every W in a product set: returns (n_W, m)."""
    H = np.maximum(0.0, 1 - np.einsum("wkd,md->wkm", Wset, X))
    return H.max(axis=1), H


@claim("000-T7", P, "Thm 7 and proof", "||w_j|| <= 1, ||x|| <= 1 => R(F o S2) <= K/sqrt(m2); proof via the pointwise step "
       "sum_i sigma_i max_j h_ij <= sum_i sigma_i sum_j h_ij ('a maximum over positive numbers is at most their sum')",
       kind="theorem")
def _t7():
    # pointwise step fails for sigma = -1
    s, h = -1, (1.0, 1.0)
    lhs, rhs = s * max(h), s * sum(h)
    # corrected route on finite product sub-classes: E max_W sum sigma_i max_j h_ij <= sum_j E max_{w_j} sum sigma_i h_ij
    rng = np.random.default_rng(17)
    m, K, d, nw = 8, 2, 3, 12
    X = rng.normal(size=(m, d))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    cand = rng.normal(size=(K, nw, d))
    cand /= np.maximum(1, np.linalg.norm(cand, axis=2))[:, :, None]
    grids = np.array(np.meshgrid(*[np.arange(nw)] * K, indexing="ij")).reshape(K, -1).T
    Wset = np.stack([cand[np.arange(K), g] for g in grids])  # (nw^K, K, d)
    Lmax, _ = _hinge_max(Wset, X)
    signs = np.array(np.meshgrid(*[[-1, 1]] * m, indexing="ij")).reshape(m, -1).T  # all 2^m
    lhs_R = np.mean(np.max(signs @ Lmax.T, axis=1)) / m
    per_j = [np.maximum(0, 1 - cand[j] @ X.T) for j in range(K)]
    rhs_R = sum(np.mean(np.max(signs @ Hj.T, axis=1)) for Hj in per_j) / m
    if not (lhs > rhs and lhs_R <= rhs_R + 1e-12 and lhs_R <= K / math.sqrt(m)):
        return not_checkable("finite-class sanity check failed")
    return refuted(f"Pointwise step false: sigma_i = -1, h_i = (1, 1): sigma max_j h_ij = {lhs} > sigma sum_j h_ij = {rhs}. "
                   "The theorem itself is true by the standard lemma R(max(F_1..F_K)) <= sum_j R(F_j) (max(a,b) = "
                   "(a+b)/2 + |a-b|/2 plus contraction) and R({x -> max(0, 1 - w^T x)}) <= 1/sqrt(m2) (Talagrand, "
                   "||w||, ||x|| <= 1). Sanity on a finite product sub-class (m=8, K=2, 144 W's, exact over all 2^8 "
                   f"sign vectors): R(max) = {lhs_R:.4f} <= sum_j R(F_j) = {rhs_R:.4f} <= K/sqrt(m) = {K / math.sqrt(m):.4f}.",
                   counterexample={"sigma_i": -1, "h_i": "(1, 1)", "lhs": lhs, "rhs": rhs},
                   corrected="R(F o S2) <= sum_j R(hinge o F_j) <= K/sqrt(m2) via R(max(F_1,..,F_K)) <= sum_j R(F_j)")


@claim("000-T8", P, "Thm 8", "w.p. >= 1-delta, for all ||w_j|| <= 1 and ||x|| <= 1: L^H_D(W) <= L^H_S(W) + 2K/sqrt(m2) + "
       "8K sqrt(2 log(2/delta)/m2), L^H_S = (1/m2) sum_{i<=m2} l(W, x_i, 1); proof: |l| <= 2K", kind="theorem",
       bound=BND.T8)
def _t8():
    rng = np.random.default_rng(18)
    W = rng.normal(size=(4000, 3, 5))
    W /= np.maximum(1, np.linalg.norm(W, axis=2))[:, :, None]
    x = rng.normal(size=(4000, 5))
    x /= np.linalg.norm(x, axis=1)[:, None]
    ell = np.max(np.maximum(0, 1 - np.einsum("nkd,nd->nk", W, x)), axis=1)
    ell_adv = np.max(np.maximum(0, 1 - np.einsum("kd,d->k", -x[:1].repeat(3, 0), x[0])))  # w = -x: l = 2
    # Mohri et al. Thm 3.3 for losses in [0, M]: E <= E_hat + 2 R_hat + 3M sqrt(log(2/delta)/(2m)); M = 2, R_hat <= K/sqrt m
    K, m, dl = sp.symbols("K m delta", positive=True)
    paper = BND.T8.expr.subs({BND.SYMBOLS["K"]: K, BND.m: m, BND.delta: dl})
    std = 2 * K / sp.sqrt(m) + 3 * 2 * sp.sqrt(sp.log(2 / dl) / (2 * m))
    gap = sp.simplify((paper - std) * sp.sqrt(m) / sp.sqrt(sp.log(2 / dl)))  # = 8 sqrt2 K - 3 sqrt2
    if not (ell.max() <= 2 + 1e-12 and abs(ell_adv - 2) < 1e-12 and sp.simplify(gap - (8 * K - 3) * sp.sqrt(2)) == 0):
        return refuted("loss range or constant domination fails", counterexample={"max_loss": float(ell.max())})
    return verified("Loss range: 0 <= l <= 1 + ||w|| ||x|| <= 2 (4000 random draws, 2 attained at w = -x), so the "
                    "printed |l| <= 2K is valid but loose. Re-derivation: the standard Rademacher bound for losses in "
                    "[0, M] (E <= E_hat + 2 R_hat + 3M sqrt(log(2/delta)/(2m))) with M = 2 and R_hat <= K/sqrt(m2) "
                    "(000-T7, true) gives 2K/sqrt(m2) + 6 sqrt(log(2/delta)/(2 m2)); SymPy: the printed term exceeds it "
                    "by (8K - 3) sqrt(2) sqrt(log(2/delta)/m2) >= 0 for K >= 1. L^H_D carries P(y=1) <= 1 while L^H_S "
                    "estimates E[l | y=1], so the inequality stays valid; the printed sum runs to m (read m2).")


# ----------------------------------------------------------------------------- Sec. 3
@claim("000-E25", P, "eq. (25), Fig. 3", "phi(x) = argmin_i sup_{Z(mu_hat,Sigma_hat)} P(z in Q^i_x) + lam l(W^i; x, 1), "
       "Q^i_x from W^def (x in Q^i: translate the hyperplane closest to x to pass through x; probability decreases) or "
       "W^inf (x not in Q^i: translate every violated hyperplane to pass through x; probability increases)",
       kind="algorithm")
def _e25():
    rng = np.random.default_rng(19)
    n_def = n_inf = 0
    mu, S = np.array([-1.5, -1.0]), np.array([[1.0, 0.3], [0.3, 0.7]])
    for _ in range(40):
        if n_def >= 4 and n_inf >= 4:
            break
        W = rng.normal(size=(3, 2))
        b = rng.normal(size=3) * 0.5
        x = rng.normal(size=2) * 1.5
        sl = W @ x + b
        b_new = b.copy()
        if np.all(sl >= 0):
            if n_def >= 4:
                continue
            k = int(np.argmin(sl / np.linalg.norm(W, axis=1)))
            b_new[k] = -W[k] @ x
            kind = "def"
        else:
            if n_inf >= 4:
                continue
            viol = sl < 0
            b_new[viol] = -(W[viol] @ x)
            kind = "inf"
        try:
            r_old = _qp(W, mu, S, b)["risk"]
        except RuntimeError:
            continue  # empty region
        r_new = _qp(W, mu, S, b_new)["risk"]
        s_new = W @ x + b_new
        on_boundary = np.min(s_new) > -1e-12 and np.min(np.abs(s_new)) < 1e-12
        ok = on_boundary and ((kind == "def" and np.all(b_new <= b + 1e-15) and r_new <= r_old + 1e-6)
                              or (kind == "inf" and np.all(b_new >= b - 1e-15) and r_new >= r_old - 1e-6))
        if not ok:
            return refuted(f"{kind}lated model violates the Fig. 3 description",
                           counterexample={"W": W, "b": b, "x": x, "risk_old": r_old, "risk_new": r_new})
        n_def += kind == "def"
        n_inf += kind == "inf"
    if n_def == 0 or n_inf == 0:
        return not_checkable("no instances generated")
    return verified(f"{n_def} deflations and {n_inf} inflations on random biased 3-plane models (n=2): x lies in the new "
                    "region on a face; deflation only lowers biases (Q^def subset of Q) and certiprog's Theorem-1 risk "
                    "does not increase; inflation only raises biases (Q subset of Q^inf) and the risk does not "
                    "decrease. The assignment rule itself is a definition (argmin of the stated score).")


@claim("000-A2", P, "Alg. 2", "LHM training: model step (KHHM per component) and assignment step (eq. 25) while "
       "L(W^t; phi^t) - L(W^{t-1}; phi^{t-1}) >= T, with L(W^0; phi^0) = infinity", kind="algorithm")
def _a2():
    risks = [10.0, 8.0, 7.0, 6.5, 6.45, 6.449]  # a decreasing risk sequence (what the algorithm aims at)
    T = 0.01

    def run(cond):
        hist, t = [math.inf], 0
        while t < len(risks):
            hist.append(risks[t])
            t += 1
            if not cond(hist[-1], hist[-2]):
                break
        return t

    printed = run(lambda cur, prev: cur - prev >= T)
    corrected = run(lambda cur, prev: prev - cur >= T)
    if not (printed == 1 and corrected == 6):
        return not_checkable("simulation did not behave as expected")
    return refuted("With L(0) = inf and a decreasing risk, L(t) - L(t-1) is -inf or negative, so the printed loop "
                   f"condition is false at once: on the risk sequence {risks} (T={T}) the printed loop stops after "
                   f"{printed} model step; the corrected condition L(t-1) - L(t) >= T runs {corrected} steps and stops "
                   "when the decrease falls below T.",
                   counterexample={"risks": risks, "T": T, "steps_printed": printed, "steps_corrected": corrected},
                   corrected="while L(W^{t-1}; phi^{t-1}) - L(W^t; phi^t) >= T (L evaluated after each model step)")


@claim("000-T10", P, "Thm 10 and proof", "fixed phi*: w.p. >= 1-delta, L^H_D <= L^H_{S2} + sqrt(log(1/delta)/(2 m2)) "
       "L^H_{S2} + max_i (2K/sqrt(m_i) + 8K sqrt(2 log(2/delta)/m2)); proof eq. (34): L^H_D - L^H_{S2} = "
       "sum_i (p_i L^H_D(W^i) - (m_i/m2) L^H_{S2}(W^i)), with L^H_{S2}(W^i) = sum_{x in X_i} l (eq. 22)",
       kind="theorem")
def _t10():
    losses = {1: [1.0, 1.0, 1.0], 2: [0.5, 0.5]}
    m2 = sum(len(v) for v in losses.values())
    sums = {i: sum(v) for i, v in losses.items()}
    means = {i: sum(v) / len(v) for i, v in losses.items()}
    total_sum = sum(sums.values())
    proof_form = sum(len(losses[i]) / m2 * sums[i] for i in losses)
    mean_form = sum(len(losses[i]) / m2 * means[i] for i in losses)
    overall_mean = sum(sum(v) for v in losses.values()) / m2
    if not (abs(proof_form - total_sum) > 1e-9 and abs(mean_form - overall_mean) < 1e-12):
        return not_checkable("construction failed")
    return refuted(f"Normalisation clash: with eq. (22)'s sums, sum_i L^H_{{S2}}(W^i) = {total_sum} but the proof's "
                   f"sum_i (m_i/m2) L^H_{{S2}}(W^i) = {proof_form} (C=2 components with losses (1,1,1) and (0.5,0.5)), "
                   "so (34) does not decompose the stated empirical risk; with per-component MEANS L_i it does: "
                   f"sum_i (m_i/m2) L_i = {mean_form} = overall mean. Further: Thm 8 applied to component i uses m_i "
                   "samples, giving 8K sqrt(2 log(2/delta)/m_i) (not m2); C Thm-8 events plus Hoeffding for each p_i "
                   "need a union bound, so the confidence is 1 - 2C delta (or delta -> delta/(2C)); 'm+' = m2.",
                   counterexample={"losses_component_1": "(1,1,1)", "losses_component_2": "(0.5,0.5)",
                                   "eq22_total": total_sum, "eq34_weighted": proof_form},
                   corrected="with L_i = mean loss over X_i and L = sum_i (m_i/m2) L_i: w.p. >= 1 - 2C delta, L^H_D <= L "
                             "+ max_i(2K/sqrt(m_i) + 8K sqrt(2 log(2/delta)/m_i)) + sqrt(log(2/delta)/(2 m2)) sum_i L_i")


@claim("000-T11", P, "Thm 11", "w.p. >= 1-3delta, for all W_LHM with C components of K independent hyperplanes: "
       "L^B_{mu,Sigma}(W_LHM) <= L^B_{mu_hat,Sigma_hat}(W_LHM) + C (2G^2/alpha + 6G^4/alpha^2) "
       "sqrt(32(log(1/delta)+1/4)/m1) (no condition on alpha)", kind="theorem")
def _t11():
    G, a, m, dl, Cc = sp.symbols("G alpha m delta C", positive=True)
    per = (2 * G ** 2 / a + 6 * G ** 4 / a ** 2) * sp.sqrt(32 * (sp.log(1 / dl) + sp.Rational(1, 4)) / m)
    if sp.simplify(sum([per] * 3) - 3 * per) != 0:
        return not_checkable("algebra failed")
    Gv, alpha, m1, delta = 1.0, 0.05, 2000, 0.05
    fail = 2 * math.exp(-m1 * alpha ** 2 / (1152 * Gv ** 4) + 0.25)
    need = Gv ** 2 * math.sqrt(1152 * (math.log(2 / delta) + 0.25) / m1)
    if not (fail > delta and alpha < need):
        return not_checkable("construction failed")
    return refuted("Summing Thm 6 over C components is fine (the Lemma 3-5 events do not depend on W, so no further "
                   "union bound), but Thm 11 omits Thm 6's alpha-condition, without which the 1-3delta accounting "
                   f"fails: G=1, alpha={alpha}, m1={m1}, delta={delta}: Lemma 5's failure bound 2exp(-m1 alpha^2/(1152 "
                   f"G^4)+1/4) = {fail:.3f} > delta. The radius is renamed G because C counts components here.",
                   counterexample={"G": Gv, "alpha": alpha, "m1": m1, "delta": delta, "lemma5_failure_bound": fail},
                   corrected="for alpha >= G^2 sqrt(1152(log(2/delta)+1/4)/m1): w.p. >= 1-3delta the stated bound "
                             "(C times Thm 6, corrected)")


def latent_toy(seed: int, n_pos: int = 40, n_neg: int = 300):
    """The seeded 2-D latent toy of the Lemma 9 check: positives in three clusters ((4,0), (0,4), (3,3), sd 0.8),
    negatives N(0, 1.2^2 I)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[4.0, 0.0], [0.0, 4.0], [3.0, 3.0]])
    Xp = centres[rng.integers(0, 3, n_pos)] + rng.normal(size=(n_pos, 2)) * 0.8
    Xn = rng.normal(size=(n_neg, 2)) * 1.2
    return Xp, Xn


def lemma9_verdict(runs: dict):
    """000-L9 on real runs: ``runs`` maps a label to an `lhm.LHMFit` fitted with the risk-based stop disabled
    (`lhm.lemma9_runs`); refuted with the first run whose eq. (20) risk rose between model steps by more than
    solver round-off (`lhm.risk_rose`), else verified on these runs. Usable on any user's runs (e.g. Letter)."""
    from certiprog.formulations.hinge_minimax_paper.lhm import risk_rose

    rows, bad = [], None
    for label, fit in runs.items():
        r = [h.risk for h in fit.history]
        rows.append(f"{label}: " + " -> ".join(f"{v:.4f}" for v in r))
        rises = [(i + 2, r[i], r[i + 1]) for i in range(len(r) - 1) if risk_rose(r[i], r[i + 1])]
        if rises and bad is None:
            bad = (label, rises[0], fit)
    if bad is None:
        return verified(f"eq. (20) risk non-increasing over every model step of {len(runs)} real run(s): "
                        + "; ".join(rows))
    label, (t, before, after), fit = bad
    return refuted(f"Alg. 2 (certiprog's lhm.fit_lhm: KHHM model step, eq. (25) assignment with the deflated/"
                   f"inflated surrogates, every Thm 1 risk KKT-checked) on {label}: the empirical latent mixed risk "
                   f"eq. (20) rises from {before:.6f} to {after:.6f} at model step {t}. Runs: " + "; ".join(rows) +
                   ". The proof's steps (31) 'KHHM would not be worse than the naive inflation' and (32) 'x in X_j "
                   "implies x in Q^{j,t+1}' do not hold for Alg. 1 (a heuristic; 000-L2b), and (28) writes L^B_{S2} "
                   "for L^B_{S1}.",
                   counterexample={"run": label, "model_step": t, "risk_before": before, "risk_after": after,
                                   "risks": [h.risk for h in fit.history],
                                   "reassigned": [h.reassigned for h in fit.history]},
                   corrected="no monotonicity is guaranteed; keep the best iteration (lhm.fit_lhm returns the model "
                             "with the smallest risk) and stop when the risk stops falling")


@claim("000-L9", P, "Lemma 9", "Alg. 2 reduces the empirical risk L^{HB}_S(W_LHM; phi) (eq. (20)) in each iteration",
       kind="lemma")
def _l9():
    from certiprog.formulations.hinge_minimax_paper.lhm import lemma9_runs

    runs = {}
    for seed, scale in ((2, "sum"), (5, "sum"), (5, "mean")):
        Xp, Xn = latent_toy(seed)
        # KKT-checked solves (the rigorous interval of every sub-problem: 10x slower; the rises found are > 1e-2)
        fit, _ = lemma9_runs(Xp, Xn, C=2, K=2, delta=0.1, lam=0.1, init="kmeans", random_state=seed,
                             hinge_scale=scale, max_iter=6, backend="clarabel", certify=False)
        bad = [s.verdict for s in fit.subproblems if not s.verdict.startswith(("certified", "accurate", "exact"))]
        if bad:
            return not_checkable(f"sub-problems of the seed-{seed} run failed their KKT check: {bad[:3]}")
        runs[f"latent toy seed {seed}, C=2, K=2, delta=0.1, lam=0.1, k-means init, hinge {scale}"] = fit
    return lemma9_verdict(runs)


# ----------------------------------------------------------------------------- Sec. 4
def _step(z):
    return (np.asarray(z) >= 0).astype(float)


def _sigmoid(z):
    return 1 / (1 + np.exp(-np.asarray(z, float)))


def _lhm_net(H, K, C, act, gain=1.0):
    """H: (..., C*K) first-layer outputs in [0,1]; fixed AND/OR/NOT-OR layers of Sec. 4.1."""
    Hc = H.reshape(H.shape[:-1] + (C, K))
    andv = act(gain * (Hc.sum(-1) / K - 1 + 1 / (2 * K)))
    orv = act(gain * (andv.sum(-1) / C - 1 / (2 * C)))
    notor = act(gain * (-andv.sum(-1) / C + 1 / (2 * C)))
    return orv, notor


@claim("000-NN1", P, "Sec. 4.1", "a union of C intersections of K half-spaces is a NN with sigmoid activations: K*C "
       "first-layer units; AND units weights 1/K, bias -1 + 1/(2K); OR unit weights 1/C, bias -1/(2C); NOT-OR unit "
       "weights -1/C, bias 1/(2C)", kind="claim")
def _nn1():
    for K, C in ((3, 2), (2, 5), (4, 3)):
        pats = np.array(np.meshgrid(*[[0, 1]] * (K * C), indexing="ij")).reshape(K * C, -1).T.astype(float)
        truth = np.any(np.all(pats.reshape(-1, C, K) == 1, axis=2), axis=1)
        o, no = _lhm_net(pats, K, C, _step)
        o_s, no_s = _lhm_net(pats, K, C, _sigmoid, gain=60.0)
        if not (np.array_equal(o == 1, truth) and np.array_equal(no == 1, ~truth)
                and np.array_equal(o_s > no_s, truth)):
            return refuted("step-activation network does not implement the union", counterexample={"K": K, "C": C})
    K, C = 3, 2
    H = np.zeros((1, K * C))  # no first-layer unit fires
    o, no = _lhm_net(H, K, C, _sigmoid)
    return refuted(f"With unit-gain sigmoids the fixed layers are wrong: K=3, C=2, all first-layer outputs 0 (no component "
                   f"fires): AND = sigma(-1+1/6) = {_sigmoid(-1 + 1 / 6):.3f}, OR = {float(o[0]):.3f} > 0.5 and > NOT-OR "
                   f"= {float(no[0]):.3f}, so the net predicts positive. With step activations (or all weights and "
                   "biases scaled by a large gain, s=60 tested) the layers are exact: exhaustive truth tables for "
                   "(K,C) = (3,2), (2,5), (4,3).",
                   counterexample={"K": K, "C": C, "first_layer": "all 0", "OR": float(o[0]), "NOT_OR": float(no[0])},
                   corrected="use step activations, or scale the fixed weights and biases by a gain s >> 1 (sigmoid(s z))")


@claim("000-X2", P, "Abstract, Sec. 2.3", "the KHHM generalisation bounds are dimension independent and decay as "
       "K/sqrt(m)", kind="claim")
def _x2():
    rng = np.random.default_rng(20)
    worst = np.inf
    for n in (2, 10, 50):
        for _ in range(30):
            X = rng.normal(size=(400, n)) * rng.uniform(0.2, 2, size=n) + rng.normal(size=n) * 0.3
            X /= np.linalg.norm(X, axis=1).max()  # C = 1
            ratio = 1.0 / np.linalg.eigvalsh(np.cov(X.T, bias=True))[0]
            worst = min(worst, ratio / n)
            if ratio < n - 1e-9:
                return not_checkable("unexpected: C^2/alpha < n")
    n = 50
    E = np.vstack([np.eye(n), -np.eye(n)])  # uniform on {+-e_i}: C = 1, Sigma = I/n, C^2/alpha = n exactly
    tight = 1.0 / np.linalg.eigvalsh(np.cov(E.T, bias=True))[0]
    const = 2 * n + 6 * n * n
    return refuted(f"The background bound (Thm 6) has no explicit n but is not dimension independent: for any law in the "
                   f"radius-C ball of R^n, alpha = lambda_min(Sigma) <= tr(Sigma)/n <= C^2/n, so C^2/alpha >= n and "
                   f"(2C^2/alpha + 6C^4/alpha^2) >= 2n + 6n^2 (checked on 90 random laws, n in {{2,10,50}}; min "
                   f"(C^2/alpha)/n = {worst:.2f}; equality for uniform on +-C e_i: C^2/alpha = {tight:.1f} at n=50, "
                   f"constant {const}). The hinge bound (Thm 8) is dimension free and decays as K/sqrt(m2); the "
                   "background bound does not depend on K.",
                   counterexample={"n": n, "law": "uniform on {+-e_i}", "C2_over_alpha": tight,
                                   "thm6_constant_lower_bound": const},
                   corrected="hinge part: O(K/sqrt(m2)), dimension free; background part: O((C^2/alpha + C^4/alpha^2)"
                             "/sqrt(m1)) with C^2/alpha >= n, i.e. at least order n^2/sqrt(m1)")


# ----------------------------------------------------------------------------- rows with nothing to compute
# (definitions, citations, design choices, results on unavailable data): data, one row each
not_checkable_rows(P, [  # (id, where, kind, statement, reason)
    ("000-A1", "Alg. 1", "algorithm",
     "greedy init (w_t fitted by eq. (8) on the negatives inside the previous half-spaces), then cyclic refit of "
     "each w_t on the negatives inside the other K-1 half-spaces; stop when P_{t-1} - P_t <= eps",
     "a procedure (heuristic) with no truth value of its own: its claimed guarantees are audited as 000-L2a "
     "(probability part, verified) and 000-L2b (monotone hinge loss, refuted). Printed ambiguities: t is both the "
     "iteration counter and the hyperplane index; P_0 is undefined; the stopping eps is not Lemma 2's eps = "
     "a*delta; empty or one-point conditioning sets leave Sigma_t undefined."),
    ("000-NN2", "Sec. 4.2", "claim",
     "multi-class: C*K*G first-layer units, C*G AND units, G outputs initialised with 1's on the own components "
     "and small Gaussian weights elsewhere; trained with cross-entropy",
     "an architecture and initialisation recipe (design choice) with no checkable assertion beyond the unit "
     "counts, which follow from Sec. 4.1; its effect is empirical (Sec. 5.3 data)."),
    ("000-X1", "Sec. 5", "claim",
     "experimental results (Table 1 AUC 94.68...95.83, Table 2 EER rates, Table 3 AUC, Table 4 71.48% ...)",
     "empirical results on external data sets (UCI letters, SUN, CNN features) and tuned hyper-parameters that "
     "are not available here."),
])


# ----------------------------------------------------------------------------- definitions (no truth value)
not_checkable_rows(P, [  # (id, where, kind, statement, reason)
    ("000-D1", "Def. 1, eq. (1)", "formula",
     "f_W(x) = 1 if W^T x >= 0 (componentwise), -1 otherwise; W = [w_1..w_K] (n x K), no bias (absorbed)",
     _DEF + " (000-T1, 000-NN1)."),
    ("000-D2", "Def. 2, eq. (2)", "formula",
     "L^H_D(W) = E_D[l(W,x,y) 1[y=1]], l(W,x,y) = max_j max{0, 1 - y w_j^T x}",
     _DEF + " (000-T7, 000-T8; the loss range l <= 2 is checked in 000-T8)."),
    ("000-D3", "Def. 3, eq. (3)", "formula",
     "L^B_{mu,Sigma}(W) = sup_{Z in Omega(mu,Sigma)} P_{z~Z}(W^T z >= 0) (printed with a vacuous factor 1[y=-1] "
     "+ 0*1[y=1])",
     _DEF + " (its closed form is 000-T1). The printed indicator factors 1[y=-1] are meaningless outside an "
            "expectation over y: read L^B = sup_Z P(W^T z >= 0)."),
    ("000-D4", "Def. 4, eq. (4)", "formula",
     "L^{HB}_D(W) = L^H_D(W) + L^B_{mu,Sigma}(W)",
     _DEF + "."),
    ("000-R", "Sec. 2.3.2", "formula",
     "R(A) = (1/m) E_sigma[max_{a in A} sum_i sigma_i a_i], sigma_i iid uniform on {-1,+1}",
     _DEF + " (000-T7, 000-T8)."),
    ("000-E17", "eqs. (17)-(19)", "formula",
     "L_D(W_LHM; phi) = sum_i sup_Z P(z in Q_i) + E[sum_i l_alpha(W^i; x, y) 1[phi(x)=i]], Q_i = {x : W^{iT} x "
     ">= 0}, l_alpha = max_j max{0, alpha - y w_j^T x}",
     _DEF + ". Note: eq. (18) sums per-component worst cases (a union bound, can exceed 1) and the hinge margin "
            "alpha clashes with alpha = lambda_min(Sigma) of Sec. 2.3."),
    ("000-E20", "eqs. (20)-(23)", "formula",
     "L^{HB}_S = L^H_{S2} + L^B_{S1}; L^B_{S1} = sum_i L^B_{mu_hat,Sigma_hat}(W^i); L^H_{S2} = sum_i sum_{x in "
     "X_i} l(W^i, x, 1); component risk L^{HB}(W^i) = L^H_{S2}(W^i) + L^B(W^i)",
     _DEF + ". The hinge part is a SUM over X_i (not a mean), which clashes with the means used in Thm 10's "
            "proof (see 000-T10)."),
    ("000-E24", "eq. (24)", "formula",
     "per-sample loss l(W^{phi(x)}, x, 1) + L^B_{mu_hat,Sigma_hat}(W^{phi(x)})/|S_{phi(x)}|",
     _DEF + " (printed 'L^M' is L^B). Summing it over a component's samples returns the component risk (23) by "
            "construction."),
])
