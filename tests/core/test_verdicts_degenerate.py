"""Verdicts at degenerate optima and at an optimum of 0 (kkt.check: a rigorous proof beats residual ratios).

At a degenerate optimum slacks and duals (or x) are ~0 together, so residual ratios against their own size
read ~1 although the answer is right; the verdict must then come from the rigorous interval (certified) or
from scales that keep the objective's and data's units (accurate), and a certified verdict must never be
wrong. Exact optima come from construction (integer data, a known primal-dual pair, scalings by powers of 2),
so no reference solver is trusted. Every random test is seeded (hypothesis derandomised).
"""
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certiprog import Model, Variable, minimize
from certiprog.certify import check
from certiprog.errors import CertiprogError
from certiprog.formulations.hinge_minimax_paper import background_risk

TOL = 1e-6


# (CVXPY's degenerate lp_0 / socp_0 / lp_7: tests/core/test_cvxpy_standard_problems.py)


# --------------------------------------------------------------------------- 000's background risk at d^2 = 0
def _region(seed, K=3, d=4):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((K, d))
    mu = np.linalg.lstsq(W, np.ones(K), rcond=None)[0]  # W mu = 1 > 0: mu inside the cone, d^2 = 0
    B = rng.standard_normal((d, d))
    Sigma = B @ B.T / d + 0.5 * np.eye(d)
    return W, mu, Sigma


def test_background_risk_zero_optimum_is_certified():
    W, mu, Sigma = _region(0)
    m = background_risk(W, mu, Sigma)
    sol = m.solve(backend="clarabel")
    cert = check(m, sol)
    assert cert.verdict == "certified", str(cert)
    lo, hi = cert.interval
    assert lo <= 0.0 <= hi  # the exact optimum, 0, is inside the rigorous interval
    natural = float(mu @ np.linalg.solve(Sigma, mu))  # d^2 at z = 0: the objective's own unit
    assert abs(sol.objective) <= TOL * natural and hi - lo <= TOL * natural
    assert m.derived(sol).risk == pytest.approx(1.0, abs=1e-6)
    assert check(m, sol, interval=False).verdict == "accurate"  # residuals alone: tiny in the objective's units


@pytest.mark.parametrize("how", ["W", "Sigma", "mu,Sigma"])
@pytest.mark.parametrize("s", [1e-8, 1e8])
def test_background_risk_zero_optimum_scaled_no_false_certified(how, s):
    """d^2 = 0 whatever the scaling (mu stays inside the cone); certified must mean |objective| <= 2 tol x the
    objective's invariant unit mu' Sigma^-1 mu (the solver's answer at mu x 1e8 is 0.125: never certified)."""
    W, mu, Sigma = _region(1)
    natural = float(mu @ np.linalg.solve(Sigma, mu))
    args = {"W": (s * W, mu, Sigma), "Sigma": (W, mu, s * Sigma), "mu,Sigma": (W, s * mu, s * s * Sigma)}[how]
    try:
        m = background_risk(*args)
    except CertiprogError:  # Sigma x 1e-16 is refused as singular (an absolute threshold): an honest answer
        assert how == "mu,Sigma" and s < 1
        return
    sol = m.solve(backend="clarabel")
    cert = check(m, sol)
    if cert.verdict == "certified":
        assert abs(sol.objective) <= 2 * TOL * natural, str(cert)
        assert cert.interval[0] <= 0.0 <= cert.interval[1]


# --------------------------------------------------------------------------- random degenerate LPs, exact optima
def _degenerate_lp(seed, n=5, m=12):
    """min q'x s.t. A x <= b with a known optimal pair (x*, z*): integer data, many ties.

    Rows: half active at x* (more than n: primal degeneracy), some of them with z* = 0 (dual degeneracy, ties
    among optimal vertices), duplicated rows (exact ties); q = -A'z*, so the optimum is q'x* = -b'z*."""
    rng = np.random.default_rng(seed)
    A = rng.integers(-3, 4, size=(m, n)).astype(float)
    A[m - 3:] = A[:3]  # duplicated rows
    x_star = rng.integers(-2, 3, size=n).astype(float)
    x_star[rng.random(n) < 0.4] = 0.0
    active = np.zeros(m, bool)
    active[: m // 2 + 1] = True
    active[m - 3:] = True  # the duplicates of active rows are active too
    s_star = np.where(active, 0.0, rng.integers(1, 4, size=m).astype(float))
    z_star = np.where(active, rng.integers(0, 3, size=m).astype(float), 0.0)
    z_star[0] = max(z_star[0], 1.0)  # q != 0
    b = A @ x_star + s_star
    q = -(A.T @ z_star)
    return A, b, q, x_star, z_star


def _exact_optimum(q, x_star, r0=0.0):
    return float(sum(Fraction(float(a)) * Fraction(float(v)) for a, v in zip(q, x_star)) + Fraction(r0))


def _model(A, b, q, r0):
    x = Variable(A.shape[1], "x")
    m = Model(minimize(q @ x + r0))
    m.add(A @ x <= b, "rows")
    return m


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), kq=st.sampled_from([-27, 0, 27]), kb=st.sampled_from([-27, 0, 27]),
       zero=st.booleans())
def test_certified_is_never_wrong_on_degenerate_lps(seed, kq, kb, zero):
    """Scalings by 2^+-27 (~1e+-8) are exact in floating point, so the optimum is known exactly; with
    ``zero`` the constant r0 = -optimum makes it exactly 0."""
    A, b, q, x_star, z_star = _degenerate_lp(seed)
    q, b, x_star = q * 2.0 ** kq, b * 2.0 ** kb, x_star * 2.0 ** kb  # x* scales with b, z* with q
    unit = 2.0 ** (kq + kb)  # every objective value of the integer instance is a multiple of this
    opt = _exact_optimum(q, x_star)
    assert opt == -float(b @ z_star) * 2.0 ** kq  # the constructed pair has no duality gap
    r0 = -opt if zero else 0.0
    opt = opt + r0
    m = _model(A, b, q, r0)
    sol = m.solve(backend="clarabel")
    if sol.x is None:  # the solver gave up (possible at 2^+-54 ratios): nothing to judge
        assert kq != 0 or kb != 0, sol.status
        return
    cert = check(m, sol)
    lo, hi = cert.interval
    assert lo <= opt <= hi, (cert.interval, opt)  # rigorous: holds whatever the verdict
    if cert.verdict == "certified":
        # the promise (kkt's docstring): |objective - optimum| <= 2 tol max(|lower|, |upper|, F, D), F the size of
        # the objective's terms: with ``zero`` the terms r0 and q'x are |opt| each and cancel to 0, so the error
        # is judged against them (|r0|), not against an exact 0
        assert abs(sol.objective - opt) <= 2 * TOL * max(abs(opt), unit, abs(r0)), str(cert)
    if kq == kb == 0:  # unscaled and well solved: the degeneracy must not make a right answer 'failed'
        assert cert.verdict in ("certified", "accurate"), str(cert)


@pytest.mark.parametrize("zero", [False, True])
def test_degenerate_lp_is_certified_and_a_wrong_answer_is_not(zero):
    """The property above is not vacuous: a clean solve is certified, and the same point with the objective
    misreported, or moved along a feasible direction, is not."""
    A, b, q, x_star, _ = _degenerate_lp(7)
    opt = _exact_optimum(q, x_star)
    r0 = -opt if zero else 0.0
    m = _model(A, b, q, r0)
    sol = m.solve(backend="clarabel")
    cert = check(m, sol)
    assert cert.verdict == "certified", str(cert)
    unit = 1.0
    base = dict(z=sol.z, status=sol.status, problem=sol.problem, backend="clarabel", solver="clarabel")
    misreported = SimpleNamespace(x=sol.x, objective=sol.objective + 1e-3 * unit, **base)
    assert check(m, misreported).verdict != "certified"
    # a feasible but suboptimal point: halfway to a strictly worse feasible point (x* - t*d, d with A d >= 0 ...)
    # simplest: step from x* toward a point of the region where q'x is larger, found by a second solve
    worse = _model(A, b, -q, 0.0).solve(backend="clarabel")
    if worse.status.termination == "optimal":
        x_bad = 0.5 * (np.asarray(sol.x) + np.asarray(worse.x))
        obj_bad = float(q @ x_bad) + r0
        if obj_bad - (opt + r0) > 1e-3:
            bad = SimpleNamespace(x=x_bad, objective=obj_bad, **base)
            assert check(m, bad).verdict != "certified"


@pytest.mark.parametrize("kq, kb", [(20, 0), (0, -20), (-27, 27), (27, 27)])
def test_degenerate_measures_are_scale_invariant(kq, kb):
    """Objective x 2^kq and right-hand side x 2^kb (exact in floating point) with the point scaled alike
    (x x 2^kb, z x 2^kq): every relative measure is unchanged, so no absolute unit hides in the new scales."""
    from certiprog.certify.kkt import kkt_measures

    A, b, q, _, _ = _degenerate_lp(3)
    sol = _model(A, b, q, 0.0).solve(backend="clarabel")
    ref = kkt_measures(sol.problem, np.asarray(sol.x), np.asarray(sol.z))
    scaled = _model(A, b * 2.0 ** kb, q * 2.0 ** kq, 0.0).compile().assemble()
    got = kkt_measures(scaled, np.asarray(sol.x) * 2.0 ** kb, np.asarray(sol.z) * 2.0 ** kq)
    assert got.verdict == ref.verdict
    for a, c in zip(ref.blocks, got.blocks):
        for f in ("primal_rel", "dual_rel", "compl_rel"):
            assert getattr(c, f) == pytest.approx(getattr(a, f), rel=1e-9, abs=1e-300), (a.owner, f)
    assert got.gap_rel == pytest.approx(ref.gap_rel, rel=1e-9)
    assert got.stationarity_rel == pytest.approx(ref.stationarity_rel, rel=1e-9, abs=1e-300)
    assert got.scales["objective"] == pytest.approx(ref.scales["objective"] * 2.0 ** (kq + kb), rel=1e-12)
