"""Paper 004 HP-MPM (Prop. 1, eqs. 8-10, Cor. 1, Alg. 1): the w-step Model, both solvers, their certificates.

Independent checks: the CVXPY reference `ref_hp_mpm` (bisection on the solver's value), a high-accuracy CVXPY solve
of g(kappa) at the ends of our proven bracket, brentq for the kappa-step, the MPM as nu -> 0.
"""
import json
import math
import warnings

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import InputError
from certiprog.formulations.hp_mpm_paper.hp_mpm import (UNCERTAINTY_FORMS, HPMPMProblem, HPMPMResult, HPMPMStep,
                                                       MethodComparison, algorithm1, hp_mpm, hp_mpm_problem, nu_max,
                                                       solve_hp_mpm, uncertainty_terms)
from certiprog.formulations.hp_mpm_paper.mpm import ClassMoments, class_moments, mpm

from ref_000_004 import hp_mpm_A, ref_hp_mpm  # noqa: E402

PROPS = settings(derandomize=True, deadline=None, max_examples=40)


def _two_class(rng, d=3, n1=30, n0=60, shift=1.0):
    X1 = rng.normal(size=(n1, d)) @ np.diag(rng.uniform(0.4, 0.9, d)) + shift * rng.uniform(0.5, 1.0, d)
    X0 = rng.normal(size=(n0, d)) @ np.diag(rng.uniform(0.4, 0.9, d)) - shift * rng.uniform(0.2, 0.5, d)
    return X1, X0


def _g_accurate(prob: HPMPMProblem, kappa: float) -> tuple[float, float]:
    """g(kappa) by CVXPY with tight Clarabel tolerances (independent of certiprog's compilation).

    Returns (h at the solver's point put in the ball: a rigorous LOWER bound on g, the solver's optimal value).
    """
    mom = prob.moments
    w = cp.Variable(mom.p)
    c1, c0 = math.sqrt((2 + kappa**2) * prob.A1), math.sqrt((2 + kappa**2) * prob.A0)
    obj = (mom.dmu @ w - cp.norm(cp.hstack([c1, kappa * (mom.F1 @ w)]))
           - cp.norm(cp.hstack([c0, kappa * (mom.F0 @ w)])))
    pr = cp.Problem(cp.Maximize(obj), [cp.norm(w) <= 1])
    with warnings.catch_warnings():  # at g ~ 0 Clarabel may call 1e-11 'inaccurate'; h below is exact anyway
        warnings.simplefilter("ignore", UserWarning)
        pr.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert pr.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)
    return float(prob.h(w.value / max(1.0, np.linalg.norm(w.value)), kappa)), float(pr.value)


# ----------------------------------------------------------------------------------------------
# eq. (8)
# ----------------------------------------------------------------------------------------------
def test_uncertainty_terms_eq8_forms_and_nu():
    A1, A0 = uncertainty_terms(30, 60, 1.7, 0.05)
    assert A1 == pytest.approx(hp_mpm_A(1.7, 30, 0.05), rel=1e-14)
    assert A0 == pytest.approx(hp_mpm_A(1.7, 60, 0.05), rel=1e-14)
    assert A1 / A0 == pytest.approx(math.sqrt(2), rel=1e-14)  # 1/sqrt(m_j)
    B1, _ = uncertainty_terms(30, 60, 1.7, 0.05, nu=0.2)
    assert B1 == pytest.approx(0.2 * A1, rel=1e-14)
    for form, c in (("prop1", 4.0), ("cor1", 8.0)):
        F1, _ = uncertainty_terms(30, 60, 1.7, 0.05, form=form)
        assert F1 == pytest.approx(2 * 1.7**2 / math.sqrt(30) * (2 + math.sqrt(2 * math.log(c / 0.05))), rel=1e-14)
        assert F1 > A1
    for bad in (dict(delta=0.0), dict(delta=1.0), dict(delta=-0.1), dict(nu=0.0), dict(nu=-1.0), dict(R=0.0),
                dict(form="nope"), dict(delta=float("nan"))):
        args = dict(n1=30, n0=60, R=1.0, delta=0.1) | bad
        with pytest.raises(InputError):
            uncertainty_terms(**args)


# ----------------------------------------------------------------------------------------------
# the two solvers against the reference and against each other
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed,nu", [(40, 0.02), (41, 0.005), (42, 0.05)])
def test_bisection_matches_reference_with_a_proven_bracket(seed, nu):
    rng = np.random.default_rng(seed)
    X1, X0 = _two_class(rng)
    prob = hp_mpm_problem(X1, X0, delta=0.05, nu=nu)
    res = prob.solve("bisection")
    assert res.status == "optimal" and res.kappa > 0
    ref = ref_hp_mpm(X1, X0, prob.A1, prob.A0)
    assert res.kappa == pytest.approx(ref["kappa"], rel=1e-6)
    lo, hi = res.kappa_bracket
    assert lo * (1 - 1e-8) <= res.kappa <= lo <= hi and hi - lo <= 1e-7 * hi
    # the bracket is PROVEN: an independent, high-accuracy g is >= 0 at lo and < 0 just above hi
    assert _g_accurate(prob, res.kappa)[0] >= -1e-10  # g >= h(w, kappa*) for this feasible w
    assert _g_accurate(prob, hi * (1 + 1e-6))[1] < -1e-8  # g(kappa) ~ g'(kappa*) hi 1e-6, far beyond solver error
    # Cor. 1: ||w*|| = 1, h(w*, kappa*) = 0, both forms of b* agree; bound = 1/(1+kappa^2)
    assert np.linalg.norm(res.v) == pytest.approx(1.0, abs=1e-6)
    assert abs(prob.h(res.v, res.kappa)) <= 1e-10
    assert res.b == pytest.approx(res.b_from_class0, abs=1e-9)
    assert res.worst_case_error == pytest.approx(1 / (1 + res.kappa**2), rel=1e-15)
    assert res.alpha == pytest.approx(res.kappa**2 / (1 + res.kappa**2), rel=1e-12)
    np.testing.assert_allclose(res.weights, res.v, atol=0)  # linear, full rank: basis = identity
    np.testing.assert_allclose(res.v, ref["w"], atol=2e-3)
    # the last SOCP is at kappa ~ kappa*, where g ~ 0: an exact answer (the structured w-step, g ~ 1e-11) gets an
    # interval of width ~1e-14-1e-12 that may exclude 0; check() judges it against the data's units there
    cert = res.certificate
    assert cert is not None and cert.certified, cert.summary() if cert is not None else None
    # the history documents each probe; the bracket never widens
    los = [h["lo"] for h in res.history]
    his = [h["hi"] for h in res.history]
    assert all(np.diff(los) >= 0) and all(np.diff(his) <= 1e-15)
    json.dumps(res.summary())


@pytest.mark.parametrize("kappa_step", ["closed_form", "brentq"])
def test_alternating_alg1_agrees_with_bisection(kappa_step):
    rng = np.random.default_rng(43)
    X1, X0 = _two_class(rng, d=4, n1=40, n0=70)
    prob = hp_mpm_problem(X1, X0, delta=0.1, nu=0.01)
    cmp = prob.compare_methods(kappa_step=kappa_step)
    bis, alt = cmp.bisection, cmp.alternating
    assert alt.status == "optimal" and 1 <= alt.iterations <= 20 and cmp.iterations == alt.iterations
    kappas = cmp.kappa_history
    assert all(np.diff(kappas) >= -1e-12)  # Alg. 1 is monotone in kappa
    assert cmp.gap == abs(alt.kappa - bis.kappa) <= 1e-7 * bis.kappa, cmp.gap  # (b) certifies (a)
    assert 0 <= cmp.certified_gap <= 1e-7 * bis.kappa and alt.kappa <= bis.kappa_bracket[1]
    # alternating's own dual certificate contains the bisection optimum
    assert alt.kappa_bracket[0] <= bis.kappa_bracket[1] and bis.kappa_bracket[0] <= alt.kappa_bracket[1]
    assert alt.gap <= 1e-6 * alt.kappa
    assert alt.b == pytest.approx(alt.b_from_class0, abs=1e-9)  # corrected parenthesis: the two forms coincide
    np.testing.assert_allclose(alt.v, bis.v, atol=1e-3)


def test_printed_alg1_guard_would_return_kappa_zero():
    """Alg. 1 as printed runs the loop only if ||dmu|| <= sqrt(2A1)+sqrt(2A0), i.e. exactly when kappa* = 0."""
    rng = np.random.default_rng(44)
    X1, X0 = _two_class(rng)
    prob = hp_mpm_problem(X1, X0, delta=0.1, nu=0.01)
    printed_guard_runs = np.linalg.norm(prob.moments.dmu) <= math.sqrt(2 * prob.A1) + math.sqrt(2 * prob.A0)
    assert not printed_guard_runs and prob.g0 > 0
    assert prob.solve("alternating").kappa > 0.1  # corrected guard: the loop runs and finds kappa* > 0
    w, k = prob.solve("bisection").v, prob.solve("bisection").kappa
    printed_b = w @ prob.moments.mu1 - math.sqrt(2 * prob.A1 + k**2) * (w @ prob.moments.F1.T @ prob.moments.F1 @ w
                                                                        + prob.A1)
    assert abs(printed_b - prob.b_pair(w, k)[0]) > 1e-3  # the printed parenthesis gives a different b


# ----------------------------------------------------------------------------------------------
# kappa-step (closed form vs brentq) and the dual bound (weak duality), as properties
# ----------------------------------------------------------------------------------------------
def _random_problem(seed, d=3):
    rng = np.random.default_rng(seed)
    X1, X0 = _two_class(rng, d=d, n1=25, n0=35, shift=rng.uniform(0.5, 2.0))
    return hp_mpm_problem(X1, X0, delta=0.1, nu=float(rng.uniform(1e-4, 0.05))), rng


@PROPS
@given(st.integers(0, 10_000))
def test_kappa_step_closed_form_equals_line_search(seed):
    prob, rng = _random_problem(seed)
    v = prob.moments.dmu + 0.5 * rng.normal(size=prob.moments.p) * np.linalg.norm(prob.moments.dmu)
    v *= rng.uniform(0.3, 1.0) / np.linalg.norm(v)
    k_cf = prob.kappa_root(v)
    if prob.h(v, 0.0) <= 0:
        assert k_cf == 0.0
        return
    k_bq = prob.kappa_root(v, method="brentq")
    assert k_cf == pytest.approx(k_bq, rel=1e-10, abs=1e-12)
    assert abs(prob.h(v, k_cf)) <= 1e-12 * max(1.0, abs(v @ prob.moments.dmu))
    q1, q0 = prob.moments.variances(v)
    if q1 + q0 > 0:  # 004-A2: kappa' <= kappa_u
        assert k_cf <= np.linalg.norm(prob.moments.dmu) / (math.sqrt(q1) + math.sqrt(q0)) * (1 + 1e-12)


@PROPS
@given(st.integers(0, 10_000))
def test_dual_bound_dominates_h_everywhere(seed):
    """U(kappa') from any v bounds h(w, kappa') above for every ||w|| <= 1 and every kappa' (weak duality)."""
    prob, rng = _random_problem(seed)
    p = prob.moments.p
    v = rng.normal(size=p)
    kappa = float(rng.uniform(0, 3))
    for kp in (0.0, 0.5 * kappa, kappa, 2 * kappa + 0.1):
        U_kp, _ = HPMPMProblem.kappa_upper(prob, v, kappa)  # u from (v, kappa) ...
        # ... evaluated at kappa' through the closed form: recompute U(kappa') with the same u
        W = rng.normal(size=(200, p))
        W /= np.maximum(1.0, np.linalg.norm(W, axis=1))[:, None]
        hs = np.array([prob.h(w, kp) for w in W])
        U = _U_at(prob, v, kappa, kp)
        assert np.all(hs <= U + 1e-12)
    _, kbar = prob.kappa_upper(v, kappa)
    if np.isfinite(kbar):  # the closed-form first sign change of U is correct
        assert _U_at(prob, v, kappa, kbar * (1 + 1e-9) + 1e-12) <= 1e-9
        if kbar > 1e-9:
            assert _U_at(prob, v, kappa, kbar * (1 - 1e-6)) >= -1e-9


def _U_at(prob, v, kappa, kp):
    """U(kp; u(v, kappa)) written out independently of kappa_upper."""
    v = v / max(1.0, np.linalg.norm(v))
    mom = prob.moments
    r, val = np.zeros(mom.p), 0.0
    for F, A in ((mom.F1, prob.A1), (mom.F0, prob.A0)):
        a = np.concatenate([[math.sqrt((2 + kappa**2) * A)], kappa * (F @ v)])
        u = a / np.linalg.norm(a)
        r += F.T @ u[1:]
        val -= u[0] * math.sqrt((2 + kp**2) * A)
    return float(np.linalg.norm(mom.dmu - kp * r) + val)


# ----------------------------------------------------------------------------------------------
# Cor. 1's degenerate case, nu -> 0, backends, the fixed-kappa Model
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["bisection", "alternating"])
def test_no_meaningful_solution_is_a_status_with_the_limit_hyperplane(method):
    rng = np.random.default_rng(45)
    X1, X0 = _two_class(rng, n1=20, n0=80)
    res = solve_hp_mpm(X1, X0, delta=0.1, nu=1.0, method=method)  # full eq. (8) terms: far too large for m = 20
    prob = hp_mpm_problem(X1, X0, delta=0.1, nu=1.0)
    assert prob.g0 <= 0
    assert res.status == "no_meaningful_solution" and res.kappa == 0 and res.alpha == 0
    assert res.worst_case_error == 1.0 and res.kappa_bracket == (0.0, 0.0) and res.n_solves == 0
    dmu = prob.moments.dmu
    np.testing.assert_allclose(res.v, dmu / np.linalg.norm(dmu))
    # b splits the projected gap in the ratio sqrt(A1):sqrt(A0) -- the limit of b* as kappa* -> 0 (nu -> nu_max)
    w = res.v
    t = (w @ prob.moments.mu1 - res.b) / (w @ dmu)
    assert t == pytest.approx(math.sqrt(prob.A1) / (math.sqrt(prob.A1) + math.sqrt(prob.A0)), rel=1e-12)
    nu_max = np.linalg.norm(dmu) ** 2 / (math.sqrt(2 * prob.A1) + math.sqrt(2 * prob.A0)) ** 2
    near = hp_mpm_problem(X1, X0, delta=0.1, nu=0.999 * nu_max).solve(method)
    assert 0 < near.kappa < 0.05
    assert near.b == pytest.approx(res.b, abs=1e-2 * np.abs(X1).max())
    assert res.summary()["status"] == "no_meaningful_solution"
    # equal means: the majority class
    same = hp_mpm_problem(X1, X1[::-1].copy(), delta=0.1, nu=0.01).solve(method)
    assert same.status == "no_meaningful_solution" and np.all(same.weights == 0) and same.b == -1.0


def test_hp_mpm_tends_to_mpm_as_uncertainty_vanishes():
    rng = np.random.default_rng(46)
    X1, X0 = _two_class(rng, d=3, n1=50, n0=60)
    model = mpm(X1, X0)
    # the MPM's w sits at a flat optimum (w error ~ sqrt(solver tolerance) ~ 1e-4 at Clarabel's defaults): solve it
    # tightly, so that the HP-MPM's approach to it is measured down to nu = 1e-6
    d = model.derived(model.solve(tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12, tol_ktratio=1e-10))
    w_mpm = d.w / np.linalg.norm(d.w)
    kappas, errs = [], []
    for nu in (1e-2, 1e-3, 1e-4, 1e-5, 1e-6):
        r = solve_hp_mpm(X1, X0, delta=0.1, nu=nu)
        assert r.status == "optimal"
        kappas.append(r.kappa)
        errs.append(np.linalg.norm(r.v - w_mpm))
    assert all(np.diff(kappas) > 0) and kappas[-1] <= d.kappa * (1 + 1e-8)  # increasing, below the MPM's
    assert kappas[-1] == pytest.approx(d.kappa, rel=1e-4)
    assert all(np.diff(errs) < 0) and errs[-1] <= 1e-3
    assert r.b / np.linalg.norm(r.weights) == pytest.approx(d.b / np.linalg.norm(d.w), abs=1e-3)
    # much smaller terms make the w-step nearly homogeneous (flat along the ray of w*): the bracket says so honestly
    tiny = solve_hp_mpm(X1, X0, delta=0.1, nu=1e-10)
    assert tiny.status in ("optimal", "inaccurate") and tiny.kappa_bracket[0] <= d.kappa * (1 + 1e-8)
    assert tiny.kappa_bracket[1] >= d.kappa * (1 - 1e-6)  # kappa*(nu) -> kappa_MPM lies in the proven bracket


def test_backends_give_the_same_answer():
    rng = np.random.default_rng(47)
    X1, X0 = _two_class(rng, d=2, n1=20, n0=30)
    prob = hp_mpm_problem(X1, X0, delta=0.1, nu=0.01)
    a = prob.solve("bisection", backend="clarabel")
    b = prob.solve("bisection", backend="cvxpy", solver="CLARABEL", certify=False)
    assert b.backend == "cvxpy" and b.status == "optimal"
    assert a.kappa == pytest.approx(b.kappa, rel=1e-7)
    np.testing.assert_allclose(a.v, b.v, atol=1e-4)


def test_fixed_kappa_model_is_the_w_step_socp():
    rng = np.random.default_rng(48)
    X1, X0 = _two_class(rng)
    model = hp_mpm(X1, X0, delta=0.05, nu=0.02, kappa=0.4)
    assert model.variable("w").shape == (3,) and set(model.constraints) == {"unit_ball"}
    assert model.objective.sense == "maximize" and model.data.kappa == 0.4
    prob = model.data
    assert isinstance(prob, HPMPMProblem) and prob.model is model and float(model.parameters["kappa"].value) == 0.4
    for backend in ("clarabel", "cvxpy"):
        sol = model.solve(backend=backend)
        assert sol.status == "optimal"
        d = model.derived(sol)
        assert sol.objective == pytest.approx(_g_accurate(prob, 0.4)[1], abs=1e-7)
        assert d.h == pytest.approx(sol.objective, abs=1e-7) and d.kappa == 0.4
        assert isinstance(d, HPMPMStep) and model.derived(sol).weights is not d.weights  # a fresh typed result
        np.testing.assert_array_equal(d.weights, d.v)  # feature coordinates (no reduction): weights = w
        assert np.linalg.norm(d.weights) <= 1 + 1e-7
        assert d.kappa_root >= 0.4 - 1e-9  # g(0.4) > 0 here, so the kappa-step moves right
    prob.set_kappa(0.0)  # kappa = 0: h(w, 0) = w^T dmu - const, maximised by dmu/||dmu|| (004-A0)
    sol = model.solve()
    dmu = prob.moments.dmu
    np.testing.assert_allclose(sol.value("w"), dmu / np.linalg.norm(dmu), atol=1e-6)
    assert sol.objective == pytest.approx(prob.g0, abs=1e-7)


def test_singular_covariance_constant_features_and_reduction():
    rng = np.random.default_rng(49)
    X1, X0 = _two_class(rng, d=4, n1=30, n0=40)
    X1[:, 1] = 0.3  # class 1 has no spread along e_2: Sigma1 singular
    Xc1, Xc0 = np.column_stack([X1, np.full(30, 2.0)]), np.column_stack([X0, np.full(40, 2.0)])  # a constant feature
    full = solve_hp_mpm(X1, X0, delta=0.1, nu=0.01)
    const = solve_hp_mpm(Xc1, Xc0, delta=0.1, nu=0.01, R=np.linalg.norm(np.vstack([Xc1, Xc0]), axis=1).max())
    mom = class_moments(Xc1, Xc0)
    assert mom.dropped == 1 and mom.p == 4
    assert const.status == full.status == "optimal"
    assert abs(const.weights[-1]) <= 1e-9  # the constant feature gets no weight
    unreduced = hp_mpm_problem(Xc1, Xc0, delta=0.1, nu=0.01, R=const.R, reduce=False).solve()
    assert unreduced.kappa == pytest.approx(const.kappa, rel=1e-7)
    np.testing.assert_allclose(unreduced.weights, const.weights, atol=1e-4)
    # fewer samples than features in each class
    Y1, Y0 = rng.normal(size=(4, 10)) + 1.0, rng.normal(size=(5, 10)) - 1.0
    r = solve_hp_mpm(Y1, Y0, delta=0.1, nu=1e-3)
    assert r.status == "optimal" and r.kappa > 0 and abs(r.b - r.b_from_class0) < 1e-8


def test_from_moments_and_progress_bar(capsys):
    rng = np.random.default_rng(50)
    X1, X0 = _two_class(rng)
    direct = hp_mpm_problem(X1, X0, delta=0.1, nu=0.02, reduce=False)
    mom = ClassMoments.from_moments(X1.mean(0), np.cov(X1.T, bias=True), 30, X0.mean(0), np.cov(X0.T, bias=True), 60,
                                    direct.R)
    a = direct.solve(certify=False)
    b = HPMPMProblem(mom, 0.1, 0.02).solve(progress=True, certify=False)
    assert a.kappa == pytest.approx(b.kappa, rel=1e-8)
    assert "HP-MPM" in capsys.readouterr().err  # tqdm bar on stderr when asked
    with pytest.raises(InputError, match="n1"):
        ClassMoments.from_moments(X1.mean(0), np.eye(3), 1, X0.mean(0), np.eye(3), 60, 1.0)
    with pytest.raises(InputError, match="indefinite"):
        ClassMoments.from_moments(X1.mean(0), -np.eye(3), 10, X0.mean(0), np.eye(3), 60, 1.0)


def test_bad_inputs():
    rng = np.random.default_rng(51)
    X1, X0 = _two_class(rng)
    bad = X1.copy()
    bad[0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        hp_mpm_problem(bad, X0)
    with pytest.raises(InputError, match="columns"):
        hp_mpm_problem(X1, X0[:, :2])
    with pytest.raises(InputError, match="empty"):
        hp_mpm_problem(X1, np.zeros((0, 3)))  # one class only
    with pytest.raises(InputError, match="single sample"):
        hp_mpm_problem(X1[:1], X0)
    with pytest.raises(InputError, match="2-D"):
        hp_mpm_problem(X1[:, 0], X0)
    for kw, msg in ((dict(delta=0.0), "delta"), (dict(delta=1.5), "delta"), (dict(nu=0.0), "nu"),
                    (dict(nu=-0.5), "nu"), (dict(R=-1.0), "R"), (dict(R=0.1), "smaller than the largest"),
                    (dict(form="x"), "form")):
        with pytest.raises(InputError, match=msg):
            hp_mpm_problem(X1, X0, **kw)
    with pytest.raises(InputError, match="method"):
        hp_mpm_problem(X1, X0).solve("newton")
    with pytest.raises(InputError, match="constant"):
        hp_mpm_problem(np.ones((5, 2)), np.ones((6, 2)))
    with pytest.raises(InputError, match="ClassMoments"):
        HPMPMProblem(X1)


# ---------------------------------------------------------------------------------------------------------------------
# One definition of A_j (eq. 8), nu_max and Alg. 1: every caller honours ``form``
# ---------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", sorted(UNCERTAINTY_FORMS))
def test_nu_max_honours_form_and_is_the_meaningful_boundary(form):
    rng = np.random.default_rng(60)
    X1, X0 = _two_class(rng, d=3, n1=20, n0=35)
    prob = hp_mpm_problem(X1, X0, delta=0.1, form=form)
    gap = float(np.linalg.norm(prob.moments.dmu))
    a1, a0 = uncertainty_terms(20, 35, prob.R, 0.1, form=form)
    assert nu_max(gap, prob.R, 20, 35, 0.1, form) == pytest.approx(gap ** 2 / (math.sqrt(2 * a1) + math.sqrt(2 * a0)) ** 2,
                                                                    rel=1e-14)
    numax = prob.nu_max
    assert numax == nu_max(gap, prob.R, 20, 35, 0.1, form)
    assert hp_mpm_problem(X1, X0, delta=0.1, nu=0.98 * numax, form=form).solve(certify=False).kappa > 0
    assert hp_mpm_problem(X1, X0, delta=0.1, nu=1.02 * numax, form=form).solve().status == "no_meaningful_solution"
    # the experiment's helpers are the same definition (they used to hard-code ln(2/delta))
    from certiprog.formulations.hp_mpm_paper import experiment as H

    assert H.nu_max(gap, prob.R, 20, 35, 0.1, form) == numax
    assert H.hp_mpm_uncertainty(prob.R, 20, 0.1, form) == a1 and H.hp_mpm_uncertainty(prob.R, 35, 0.1, form) == a0
    others = [nu_max(gap, prob.R, 20, 35, 0.1, f) for f in UNCERTAINTY_FORMS if f != form]
    assert all(abs(o - numax) > 1e-3 * numax for o in others)  # the forms really differ


@pytest.mark.parametrize("form", sorted(UNCERTAINTY_FORMS))
def test_figure1_path_is_algorithm1_and_honours_form(form):
    from certiprog.formulations.hp_mpm_paper.plots import HPMPMPath, figure1_data, hp_mpm_path_2d

    X1, X0 = figure1_data(seed=3)
    path = hp_mpm_path_2d(X1, X0, delta=0.1, form=form)  # nu = 0.3 nu_max(form)
    assert isinstance(path, HPMPMPath) and path.meaningful and path.result.method == "alternating"
    prob = hp_mpm_problem(X1, X0, delta=0.1, nu=path.nu, form=form, reduce=False)
    assert path.nu == pytest.approx(0.3 * prob.nu_max, rel=1e-14)
    assert (path.A1, path.A0) == uncertainty_terms(len(X1), len(X0), prob.R, 0.1, nu=path.nu, form=form)
    bis = prob.solve("bisection", certify=False)
    assert path.kappa == pytest.approx(bis.kappa, rel=1e-6) and path.kappa <= bis.kappa_bracket[1]
    assert path.kappas == [h["kappa"] for h in path.result.history] and len(path.ws) == len(path.bs) >= 1
    for k, w, b in zip(path.kappas, path.ws, path.bs):  # each kappa-step: h(w, kappa) = 0, b = the tangent offset
        assert prob.h(w, k) == pytest.approx(0.0, abs=1e-9)
        assert b == pytest.approx(prob.b_pair(w, k)[1], abs=1e-8)


def test_algorithm1_guards_and_typed_results():
    rng = np.random.default_rng(61)
    X1, X0 = _two_class(rng)
    prob = hp_mpm_problem(X1, X0, delta=0.1, nu=0.01)
    res = algorithm1(prob, certify=False)
    assert isinstance(res, HPMPMResult) and res.status == "optimal" and res.solution is not None
    assert res == res and res["kappa"] == res.kappa and "solution" not in res.summary()  # typed; JSON summary
    assert all(isinstance(h["v"], np.ndarray) for h in res.history) and "v" not in res.summary()["history"][0]
    same = prob.solve("alternating", certify=False)
    assert same.kappa == res.kappa and same.iterations == res.iterations
    printed = algorithm1(prob, guard="printed", certify=False)  # the paper's inverted guard skips the loop (item 1)
    assert printed.kappa == 0.0 and printed.iterations == 0 and printed.status == "inaccurate"
    assert "printed guard" in printed.notes[0] and printed.kappa_bracket[1] >= res.kappa * (1 - 1e-9)
    far = hp_mpm_problem(X1, X0, delta=0.1, nu=1.0)  # Cor. 1: no meaningful solution
    assert algorithm1(far).status == "no_meaningful_solution"
    loop = algorithm1(far, guard="printed", certify=False)  # the printed guard runs the loop where it cannot move
    assert loop.kappa == 0.0 and loop.iterations >= 1
    with pytest.raises(InputError, match="guard"):
        algorithm1(prob, guard="inverted")
    cmp = prob.compare_methods(certify=False)
    assert isinstance(cmp, MethodComparison) and cmp.alternating.method == "alternating"
