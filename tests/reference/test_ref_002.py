"""Seeded checks of the ME^2 reference (paper 002).  See docs/derivations/002.md."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_002 as R  # noqa: E402

INSTANCES, make_instance = R.INSTANCES, R.make_instance


def _solve_pair(inst):
    seed, n, d, mu, lam, B = inst
    X, c = make_instance(seed, n, d)
    return X, c, mu, lam, B, R.ref_me2_primal(X, c, mu, lam, B), R.ref_me2_dual(X, c, mu, lam, B)


@pytest.fixture(scope="module")
def solved():
    return [_solve_pair(inst) for inst in INSTANCES]


# ----------------------------------------------------------------------------
# duality, closed form, KKT
# ----------------------------------------------------------------------------
def test_strong_duality(solved):
    for X, c, mu, lam, B, P, D in solved:
        p, g = P["objective"], D["objective"]
        assert abs(p - g) / max(1.0, abs(p)) <= 1e-5, (p, g)
        # dual function evaluated at the dual solution, in numpy (independent of cvxpy)
        g_np = R.dual_function(D["alpha"], D["beta"], D["delta"], X, c, mu, lam, B)
        assert abs(g_np - p) / max(1.0, abs(p)) <= 1e-5
        # primal objective of the point recovered from the dual == p*
        p_rec = R.primal_objective(D["M"], D["R"], D["xi"], mu, lam, B)
        assert abs(p_rec - p) / max(1.0, abs(p)) <= 1e-5


def test_weak_duality_random_points(solved):
    rng = np.random.default_rng(11)
    for X, c, mu, lam, B, P, D in solved:
        n = X.shape[0]
        for _ in range(20):
            a = rng.uniform(0, 1.0 / n, size=n)
            b, dl = rng.exponential(size=2)
            assert R.dual_function(a, b, dl, X, c, mu, lam, B) <= P["objective"] + 1e-9


def test_recovered_M_equals_primal_M_and_is_PD(solved):
    for X, c, mu, lam, B, P, D in solved:
        M_rec = R.recover_M(D, X, c, lam)
        scale = max(1.0, np.abs(P["M"]).max())
        assert np.abs(M_rec - P["M"]).max() / scale <= 1e-5
        assert np.allclose(M_rec, M_rec.T)
        assert np.linalg.eigvalsh(M_rec).min() >= 1.0 - 1e-9       # M >= I
        # closed form applied to the primal's own multipliers gives the primal M
        M_from_primal_alpha = R.recover_M(P["alpha"], X, c, lam)
        assert np.abs(M_from_primal_alpha - P["M"]).max() / scale <= 1e-5
        # R closed form
        assert abs(R.recover_R(D, mu, B) - P["R"]) <= 1e-5 * max(1.0, B)


def test_kkt(solved):
    for X, c, mu, lam, B, P, D in solved:
        for sol in (P, D):
            res = R.kkt_residuals(sol, X, c, mu, lam, B)
            assert max(res.values()) <= 1e-6, res


def test_psd_constraint_and_R_bounds_inactive(solved):
    """M >= 0, R >= 0 and R <= B never bind (Gamma = beta = delta = 0)."""
    for X, c, mu, lam, B, P, D in solved:
        assert np.abs(P["Gamma"]).max() <= 1e-6
        assert abs(P["beta"]) <= 1e-6 and abs(P["delta"]) <= 1e-6
        assert abs(D["beta"]) <= 1e-6 and abs(D["delta"]) <= 1e-6
        Pf = R.ref_me2_primal(X, c, mu, lam, B, psd=False)
        assert abs(Pf["objective"] - P["objective"]) <= 1e-6 * max(1, abs(P["objective"]))
        # R = B - sum(alpha)/(2 mu) in (B - 1/(2mu), B]
        assert B - 1 / (2 * mu) - 1e-7 <= P["R"] <= B + 1e-9


# ----------------------------------------------------------------------------
# the paper's printed dual and derivation typos (evidence)
# ----------------------------------------------------------------------------
def test_printed_sec3_dual_dimension_typo_and_sign_convention(solved):
    X, c, mu, lam, B, P, D = solved[0]      # n=8, d=3
    n, d = X.shape
    assert n != d
    with pytest.raises(ValueError):        # 1_{dxd}, 1_d cannot multiply alpha in R^n
        R.paper_printed_dual_objective(D["alpha"], D["beta"], D["delta"], X, c, mu, lam, B, literal=True)
    v = R.paper_printed_dual_objective(D["alpha"], D["beta"], D["delta"], X, c, mu, lam, B, literal=False)
    # the printed program is a MIN of -g: its optimal value is -p*, not p*
    assert abs(v + P["objective"]) <= 1e-5 * abs(P["objective"])
    assert abs(v - P["objective"]) > 1.0
    # identity printed(1_n) == -g at random points
    rng = np.random.default_rng(3)
    for _ in range(10):
        a = rng.uniform(0, 1 / n, n)
        b, dl = rng.exponential(size=2)
        lhs = R.paper_printed_dual_objective(a, b, dl, X, c, mu, lam, B, literal=False)
        assert abs(lhs + R.dual_function(a, b, dl, X, c, mu, lam, B)) <= 1e-10 * max(1, abs(lhs))
    # n == d: the literal print coincides with the corrected one
    X6, c6, mu6, lam6, B6, P6, D6 = solved[5]
    assert X6.shape[0] == X6.shape[1]
    v1 = R.paper_printed_dual_objective(D6["alpha"], 0.1, 0.2, X6, c6, mu6, lam6, B6, literal=True)
    v2 = R.paper_printed_dual_objective(D6["alpha"], 0.1, 0.2, X6, c6, mu6, lam6, B6, literal=False)
    assert v1 == pytest.approx(v2, rel=1e-12)


def test_eq3_delta_sign_typo_gives_wrong_dual(solved):
    """Lagrangian (3) prints +delta(B-R); its dual optimum is the primal with R fixed
    to B (constraint R >= B), strictly larger than p*.  Seed 0: p* = 1.541320...,
    wrong dual = 1.681945..."""
    X, c, mu, lam, B, P, D = solved[0]
    w = R.paper_eq3_dual(X, c, mu, lam, B)
    assert w == pytest.approx(1.6819452663, rel=1e-5)
    assert P["objective"] == pytest.approx(1.5413202676, rel=1e-5)
    assert w - P["objective"] > 0.1
    # it equals the optimum of Problem 2 with R forced to B
    import cvxpy as cp
    Y = X - c
    n, d = Y.shape
    M = cp.Variable((d, d), symmetric=True)
    xi = cp.Variable(n)
    q = cp.sum(cp.multiply(Y @ M, Y), axis=1)
    pr = cp.Problem(cp.Minimize(cp.sum(xi) / n + lam * cp.sum_squares(M - np.eye(d))),
                    [q - B + xi >= 0, xi >= 0])
    pr.solve(solver=cp.CLARABEL)
    assert w == pytest.approx(pr.value, rel=1e-5)


def test_eq4_missing_delta_typo():
    """Eq. (4) drops +delta; R from the printed gradient does not minimise the
    R-part of the (correct) Lagrangian when delta > 0."""
    mu, B, s, b, dl = 1.0, 4.0, 0.5, 0.3, 0.7
    R_true = B + (b - dl - s) / (2 * mu)
    R_print = R.paper_eq4_R(s, b, dl, mu, B)
    D_true = R.lagrangian_R_part(R_true, s, b, dl, mu, B)
    D_print = R.lagrangian_R_part(R_print, s, b, dl, mu, B)
    assert D_true == pytest.approx(0.5975)
    assert D_print == pytest.approx(0.72)
    assert D_print > D_true + 0.1
    # closed-form D* = -(b - dl - s)^2/(4mu) - B b + B s
    assert D_true == pytest.approx(-(b - dl - s) ** 2 / (4 * mu) - B * b + B * s)


def test_appA_D_missing_alpha_typo():
    rng = np.random.default_rng(7)
    n, mu, B = 8, 1.0, 4.0
    a = rng.uniform(0, 1 / n, n)
    b, dl = 0.3, 0.2
    s = a.sum()
    D_star = -(b - dl - s) ** 2 / (4 * mu) - B * b + B * s
    D_fixed = -(s ** 2 + b ** 2 + dl ** 2) / (4 * mu) + s * (B + b / (2 * mu) - dl / (2 * mu)) + b * (-B + dl / (2 * mu))
    assert D_fixed == pytest.approx(D_star, rel=1e-12)
    D_print = R.paper_appA_D_printed(a, b, dl, mu, B)
    assert abs(D_print - D_star) > 1.0


def test_appA_N_exponent_typo(solved):
    X, c, mu, lam, B, P, D = solved[0]
    a = D["alpha"]
    G = R.gram(X, c)
    N_true = np.sum((R.recover_M(a, X, c, lam) - np.eye(X.shape[1])) ** 2)
    assert N_true == pytest.approx(a @ (G * G) @ a / (4 * lam ** 2), rel=1e-10)
    N_print = R.paper_appA_N_printed(a, X, c, lam)
    assert abs(N_print - N_true) > 0.1 * N_true


# ----------------------------------------------------------------------------
# Sec. 3 remarks, Sec. 4 lemmas
# ----------------------------------------------------------------------------
def test_lambda_controls_distance_to_identity_and_full_rank():
    """Text: bigger lam -> M closer to I (true).  Fig. 1 caption ('lam very small
    -> M close to I') is refuted.  'rank M may be << d' is refuted: M >= I."""
    X, c = make_instance(0, 8, 3)
    dist = []
    for lam in [1e-3, 1e-1, 10.0]:
        P = R.ref_me2_primal(X, c, 1.0, lam, 4.0)
        dist.append(np.linalg.norm(P["M"] - np.eye(3)))
        assert np.linalg.matrix_rank(P["M"]) == 3
    assert dist[0] > dist[1] > dist[2]
    assert dist[0] > 5.0 and dist[2] < 0.1


def test_problem8_equivalent_to_problem2_only_without_R_squared(solved):
    X, c, mu, lam, B, P, D = solved[0]
    F = R.problem8_objective(P["M"], P["R"], X, c, mu, lam, B)
    assert F == pytest.approx(P["objective"], rel=1e-6)
    F2 = R.problem8_objective(P["M"], P["R"], X, c, mu, lam, B, squared_R=True)
    assert F2 > F + 1.0    # the printed loss [R^2 - q]_+ is a different problem


def test_lemma3_proof_step_15_false_but_conclusion_holds(solved):
    # step (15): ||M||^2 - ||I||^2 <= ||M - I||^2 is false (needs tr M <= d)
    d = 3
    M = 2 * np.eye(d)
    assert np.sum(M * M) - d > np.sum((M - np.eye(d)) ** 2)     # 9 > 3
    # ... and it fails at every ME^2 optimum with some alpha > 0 (tr M > d)
    for X, c, mu, lam, B, P, D in solved:
        Mx = P["M"]
        dd = X.shape[1]
        assert np.sum(Mx * Mx) - dd > np.sum((Mx - np.eye(dd)) ** 2)
        # conclusion ||M||_F <= sqrt(mu B^2/lam + d) holds, even with mu B^2/(2 lam)
        assert np.sum(Mx * Mx) <= mu * B ** 2 / (2 * lam) + dd + 1e-6
        # Lemma 4 (tight): loss <= R <= B
        for x in X:
            assert R.me2_loss(Mx, P["R"], x, c) <= P["R"] + 1e-12 <= B + 1e-9


def test_lemma1_lipschitz_monte_carlo():
    rng = np.random.default_rng(5)
    B, d = 1.5, 4
    k = R.lipschitz_constant(B)
    def ball():
        v = rng.normal(size=d)
        return v / np.linalg.norm(v) * B * rng.uniform() ** (1 / d)
    worst = 0.0
    for _ in range(2000):
        c, x = ball(), ball()
        A1, A2 = rng.normal(size=(d, d)), rng.normal(size=(d, d))
        M1, M2 = A1 @ A1.T, A2 @ A2.T
        R1, R2 = rng.uniform(0, B, 2)
        lhs = abs(R.me2_loss(M1, R1, x, c) - R.me2_loss(M2, R2, x, c))
        rhs = k * (abs(R1 - R2) + np.linalg.norm(M1 - M2))
        worst = max(worst, lhs / rhs)
    assert worst <= 1.0


def test_prop1_norm_equivalence_step_false():
    """kappa(|a| + |b|) <= a^2 + b^2 cannot hold for any kappa > 0 (take a = kappa/2, b = 0);
    the correct statement is (|a| + |b|)^2 <= 2 (a^2 + b^2)."""
    for kappa in [1e-3, 0.5, 1.0, 10.0]:
        a, b = kappa / 2, 0.0
        assert kappa * (abs(a) + abs(b)) > a ** 2 + b ** 2
    rng = np.random.default_rng(0)
    ab = rng.normal(size=(1000, 2))
    assert np.all(np.abs(ab).sum(1) ** 2 <= 2 * (ab ** 2).sum(1) + 1e-12)


def test_prop1_corrected_stability_monte_carlo():
    """||Delta(M,R)|| <= 4k/(n min(mu,lam)) after replacing one negative (data in the B-ball)."""
    B, n, d = 0.5, 20, 3
    k = R.lipschitz_constant(B)
    rng = np.random.default_rng(100)
    def ball(m):
        v = rng.normal(size=(m, d))
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        return v * B * rng.uniform(0, 1, size=(m, 1)) ** (1 / d)
    for t in range(4):
        c = 0.2 * ball(1)[0]
        X = c + 0.3 * rng.normal(size=(n, d))
        X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True) / B)
        Xi = X.copy()
        Xi[t] = ball(1)[0]
        for mu, lam in [(1.0, 1.0), (0.05, 0.05), (0.01, 0.001)]:
            P1 = R.ref_me2_primal(X, c, mu, lam, B)
            P2 = R.ref_me2_primal(Xi, c, mu, lam, B)
            Dn = abs(P1["R"] - P2["R"]) + np.linalg.norm(P1["M"] - P2["M"])
            assert Dn <= 4 * k / (n * min(mu, lam)) + 1e-6


def test_thm2_printed_uses_k_not_k_squared():
    # with kappa = 1/2 (valid after correcting Prop. 1) the printed bound is smaller
    # than what Prop. 1 + Thm 1 actually give whenever k = 4B^2 > 1
    args = dict(emp_risk=0.0, n=1000, delta_conf=0.05, mu=1.0, lam=1.0, B=4.0, d=8)
    assert R.thm2_bound_printed(kappa=0.5, **args) < R.thm2_bound_corrected(**args)
    # k = 1 (B <= 1/2): the two coincide
    args["B"] = 0.5
    assert R.thm2_bound_printed(kappa=0.5, **args) == pytest.approx(R.thm2_bound_corrected(**args))


# ----------------------------------------------------------------------------
# Sec. 5.2 decision rule
# ----------------------------------------------------------------------------
def test_decision_rule():
    centers = np.array([[0.0, 0.0], [10.0, 0.0]])
    Ms = [np.eye(2), np.diag([1.0, 4.0])]
    Rs = [1.0, 1.0]
    Xq = np.array([[0.1, 0.0], [0.2, 0.0], [0.3, 0.0], [0.4, 0.0],   # 4 inside c0
                   [2.0, 0.0],                                    # outside c0
                   [10.0, 0.45], [10.0, 0.6], [9.5, 0.0]])          # c1: in, out (M), in
    lab, assign = R.me2_predict(Xq, centers, Ms, Rs, m=3)
    assert list(assign) == [0, 0, 0, 0, 0, 1, 1, 1]
    assert list(lab) == [1, 1, 1, -1, -1, 1, -1, 1]


def test_lemma2_printed_sign_typo_counterexample():
    """Lemma 2 as printed, N(th) - N(th + tD) + N(th^i - tD) - N(th^i) <= 2tk/n ||D||,
    fails on an actual pair of ME^2 optima; the corrected form
    N(th) - N(th + tD) + N(th^i) - N(th^i - tD) <= 2tk/n ||D|| holds."""
    B, n, d, mu, lam, t = 0.5, 20, 3, 1.0, 1.0, 0.5
    k = R.lipschitz_constant(B)
    rng = np.random.default_rng(1)

    def ball(m):
        v = rng.normal(size=(m, d))
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        return v * B * rng.uniform(0, 1, size=(m, 1)) ** (1 / d)

    for it in range(29):                      # the 29th draw (it = 28) is the witness
        c = 0.2 * ball(1)[0]
        X = c + 0.3 * rng.normal(size=(n, d))
        X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True) / B)
        Xi = X.copy()
        Xi[0] = c + (0.01 if it % 2 else 1) * ball(1)[0]

    def N(M, Rr):
        return mu * (B - Rr) ** 2 + lam * np.sum((M - np.eye(d)) ** 2)

    P1 = R.ref_me2_primal(X, c, mu, lam, B)
    P2 = R.ref_me2_primal(Xi, c, mu, lam, B)
    M, Rr, Mi, Ri = P1["M"], P1["R"], P2["M"], P2["R"]
    Dn = abs(Rr - Ri) + np.linalg.norm(M - Mi)
    Mt, Rt = M + t * (Mi - M), Rr + t * (Ri - Rr)
    Mit, Rit = Mi - t * (Mi - M), Ri - t * (Ri - Rr)
    rhs = 2 * t * k / n * Dn
    printed = N(M, Rr) - N(Mt, Rt) + N(Mit, Rit) - N(Mi, Ri)
    corrected = N(M, Rr) - N(Mt, Rt) + N(Mi, Ri) - N(Mit, Rit)
    assert printed > 1.5 * rhs > 0          # ~4.5e-4 > ~2.8e-4
    assert corrected <= rhs + 1e-9
