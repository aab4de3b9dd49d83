"""Paper 004 bound objects (eq. 5, Cor. 1 and its corrected forms) and the Monte Carlo coverage of Cor. 1.

Coverage: draw both classes' samples from known bounded laws, fit the HP-MPM (nu = 1), compute the TRUE worst-case
error of the fitted (w, b) with the TRUE moments (Marshall-Olkin / Cantelli, `worst_case_errors`, itself checked
against paper 000's Theorem 1 QP), and test 'P(true error > 1/(1+kappa*^2)) <= k delta' with the exact binomial
test of `binomial_coverage`. A near-MPM fit (nu = 1e-4) must FAIL the same test: the harness can detect a bad bound.
"""
import math

import numpy as np
import pytest
import sympy as sp

from certiprog.certificates.bounds import (BOUNDS, SYMBOLS, binomial_coverage, get_bound, scaled_rademacher,
                                           uniform_ball)
from certiprog.formulations.hinge_minimax_paper.programs import background_risk
from certiprog.formulations.hp_mpm_paper.hp_mpm import UNCERTAINTY_FORMS, HPMPMProblem, uncertainty_terms
from certiprog.formulations.hp_mpm_paper.mpm import ClassMoments, worst_case_errors

LEVEL = 1e-3
DELTA = 0.1
FORM_BOUND = {"prop1": "004.cor1", "cor1": "004.cor1.joint", "eq8": "004.cor1.eq8"}


# ----------------------------------------------------------------------------------------------
# the bound objects
# ----------------------------------------------------------------------------------------------
def test_004_worst_case_bound_objects():
    kappa, delta = SYMBOLS["kappa"], SYMBOLS["delta"]
    eq5 = get_bound("004.eq5")
    assert sp.simplify(eq5.expr - 1 / (1 + kappa**2)) == 0 and eq5.failure_probability() == 0
    for k in (0.0, 0.3, 2.0, 50.0):
        assert eq5.evaluate(kappa=k) == pytest.approx(1 / (1 + k * k), rel=1e-15)
    with pytest.raises(Exception, match="kappa"):
        eq5.evaluate(kappa=-1.0)
    expected = {"004.cor1": (2, 1), "004.cor1.joint": (1, None), "004.cor1.eq8": (3, 1)}
    for bid, (k_corr, k_printed) in expected.items():
        b = get_bound(bid)
        assert b.paper == "004" and b.status == "corrected" and b.assumptions
        assert sp.simplify(b.expr - eq5.expr) == 0
        assert b.failure_probability(delta=0.05) == pytest.approx(k_corr * 0.05)
        if k_printed is not None:  # the paper prints 1 - delta
            assert b.printed_bound().failure_probability(delta=0.05) == pytest.approx(0.05)
        assert sp.simplify(b.failure_prob - k_corr * delta) == 0
        with pytest.raises(Exception, match="delta"):
            b.failure_probability(delta=1.5)
    # the form names of the formulation map onto these bounds
    for form, (_, k_corr, _) in UNCERTAINTY_FORMS.items():
        assert get_bound(FORM_BOUND[form]).failure_probability(delta=0.01) == pytest.approx(k_corr * 0.01)
    assert {"004.eq5", "004.cor1", "004.cor1.joint", "004.cor1.eq8"} <= set(BOUNDS)


@pytest.mark.parametrize("form,bound_id,printed", [("eq8", "004.eq8.A", True), ("prop1", "004.eq8.A", False),
                                                   ("cor1", "004.cor1.A", False)])
def test_uncertainty_terms_are_the_bound_objects(form, bound_id, printed):
    b = get_bound(bound_id)
    for m, R, delta in ((30, 1.0, 0.1), (500, 2.5, 0.01), (7, 0.3, 0.5)):
        A1, _ = uncertainty_terms(m, 10, R, delta, form=form)
        ref = b.evaluate_printed(R=R, m=m, delta=delta) if printed else b.evaluate(R=R, m=m, delta=delta)
        assert A1 == pytest.approx(ref, rel=1e-13)
    # T of Prop. 1 (corrected) <= (2 + kappa^2) A for the corrected A ('prop1'); the printed A falls short
    T = get_bound("004.eq7.T")
    A_corr, _ = uncertainty_terms(50, 50, 1.0, 0.1, form="prop1")
    A_print, _ = uncertainty_terms(50, 50, 1.0, 0.1, form="eq8")
    for k in (0.5, 2.0):
        t = T.evaluate(R=1.0, m=50, delta=0.1, kappa=k)
        assert t <= (2 + k * k) * A_corr * (1 + 1e-12) and t > (2 + k * k) * A_print


# ----------------------------------------------------------------------------------------------
# the true worst-case error
# ----------------------------------------------------------------------------------------------
def test_worst_case_errors_match_the_marshall_olkin_qp():
    """Independent check: 000's Theorem 1 QP (sup P over a half-space) for each class."""
    rng = np.random.default_rng(0)
    for _ in range(5):
        d = 3
        mu1, mu0 = rng.normal(size=d) + 1, rng.normal(size=d) - 1
        Q = rng.normal(size=(d, d))
        S1, S0 = Q @ Q.T + 0.1 * np.eye(d), np.diag(rng.uniform(0.2, 2, d))
        w = mu1 - mu0 + 0.3 * rng.normal(size=d)
        b = float(w @ (mu1 + mu0) / 2 + 0.2 * rng.normal())
        e1, e0 = worst_case_errors(w, b, mu1, S1, mu0, S0)
        m1 = background_risk(-w, mu1, S1, np.array([b]))  # class 1 wrong: w^T x <= b
        m0 = background_risk(w, mu0, S0, np.array([-b]))  # class 0 wrong: w^T x >= b
        assert e1 == pytest.approx(m1.derived(m1.solve())["risk"], rel=1e-6)
        assert e0 == pytest.approx(m0.derived(m0.solve())["risk"], rel=1e-6)
    assert worst_case_errors(np.ones(2), 10.0, np.zeros(2), np.eye(2), np.zeros(2), np.eye(2))[0] == 1.0
    assert worst_case_errors(np.ones(2), 0.0, np.ones(2), np.zeros((2, 2)), -np.ones(2), np.eye(2))[0] == 0.0


# ----------------------------------------------------------------------------------------------
# Monte Carlo coverage of Cor. 1
# ----------------------------------------------------------------------------------------------
def _laws(kind):
    c = np.array([0.6, 0.0])
    if kind == "ball":
        return uniform_ball(2, 0.4, center=c), uniform_ball(2, 0.4, center=-c)
    return scaled_rademacher(2, 0.4, p=0.7, center=c), scaled_rademacher(2, 0.4, p=0.4, center=-c)


def _coverage(kind, n, form, nu, n_trials, seed):
    """Fit n_trials HP-MPMs on fresh samples; outcome per trial: true worst-case error <= fitted bound."""
    law1, law0 = _laws(kind)
    R = max(law1.radius, law0.radius)
    rng = np.random.default_rng(seed)
    b1, b0 = law1.moment_sampler(n)(rng, n_trials), law0.moment_sampler(n)(rng, n_trials)
    bound = get_bound(FORM_BOUND[form])
    holds, ratios, kappas, good_event = [], [], [], []
    # the event on which Prop. 1 (corrected) is deterministic for this form: both eq. (6) radii with ln(c/delta),
    # c = 2, 4, 8 (2A_j >= 4R * mean radius, kappa^2 A_j >= kappa^2 * covariance radius)
    c = UNCERTAINTY_FORMS[form][0]
    r_mean = get_bound("004.eq6.mean").evaluate(R=R, m=n, delta=DELTA / c)
    r_cov = get_bound("004.eq6.cov").evaluate(R=R, m=n, delta=2 * DELTA / c)
    for i in range(n_trials):
        mom = ClassMoments.from_moments(b1["mean"][i], b1["cov"][i], n, b0["mean"][i], b0["cov"][i], n, R)
        res = HPMPMProblem(mom, DELTA, nu, R, form).solve(certify=False)
        true_err = max(worst_case_errors(res.weights, res.b, law1.mean, law1.cov, law0.mean, law0.cov))
        radius = bound.evaluate(kappa=res.kappa)
        assert radius == pytest.approx(res.worst_case_error, rel=1e-12)
        holds.append(true_err <= radius * (1 + 1e-9))
        ratios.append(true_err / radius)
        kappas.append(res.kappa)
        good_event.append(all(np.linalg.norm(bb["mean"][i] - law.mean) <= r_mean
                              and np.linalg.norm(bb["cov"][i] - law.cov) <= r_cov
                              for bb, law in ((b1, law1), (b0, law0))))
    return np.array(holds), np.array(ratios), np.array(kappas), np.array(good_event), bound


@pytest.mark.parametrize("form", ["prop1", "eq8"])
def test_cor1_coverage_fast(form):
    holds, ratios, kappas, good, bound = _coverage("ball", 20_000, form, 1.0, 40, seed=1)
    assert np.all(kappas > 0)  # the regime where Cor. 1 says something
    res = binomial_coverage(holds, bound.failure_probability(delta=DELTA), LEVEL, bound.id, ratios)
    printed = binomial_coverage(holds, DELTA, LEVEL, bound.id + " (printed 1 - delta)", ratios)
    print(f"\n{res}\n{printed}")
    assert res.passes and printed.passes
    assert good.mean() > 0.9 and not np.any(good & ~holds)  # Prop. 1 (corrected) is deterministic on that event


def test_coverage_detects_an_overconfident_bound():
    """nu = 1e-4: practically the MPM on empirical moments; its 1/(1+kappa^2) is violated about half the time."""
    holds, ratios, _, _, bound = _coverage("ball", 20_000, "prop1", 1e-4, 40, seed=2)
    res = binomial_coverage(holds, bound.failure_probability(delta=DELTA), LEVEL, "near-MPM", ratios)
    print(f"\n{res}")
    assert not res.passes and res.rate > 0.3


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["ball", "rademacher"])
@pytest.mark.parametrize("form", ["prop1", "cor1", "eq8"])
def test_cor1_coverage_long(kind, form):
    holds, ratios, kappas, good, bound = _coverage(kind, 20_000, form, 1.0, 400, seed=3)
    res = binomial_coverage(holds, bound.failure_probability(delta=DELTA), LEVEL, bound.id, ratios)
    printed = binomial_coverage(holds, DELTA, LEVEL, bound.id + " (printed)", ratios)
    print(f"\n{kind} {form}: kappa* mean {kappas.mean():.3f}; {res}\n{printed}")
    assert res.passes and not np.any(good & ~holds)
    small = _coverage(kind, 3_000, form, 1.0, 100, seed=4)  # mostly 'no meaningful solution': bound 1, holds
    assert np.all(small[0])
    assert math.isfinite(float(np.max(ratios)))
