"""Paper 000's bounds (certiprog.formulations.hinge_minimax_paper.bounds): assumptions, printed vs corrected forms,
and Monte Carlo coverage of Lemmas 3-5 and Thm 6 with an exact one-sided binomial test (level 1e-3, seeded).
Moved from tests/core/test_bounds.py when the bounds moved into the paper package."""
import numpy as np
import pytest
import sympy as sp

from certiprog import InputError
from certiprog.audit.bounds import SYMBOLS, get_bound, list_bounds
from certiprog.formulations.hinge_minimax_paper.bounds import (a_matrix, background_risk_k1, cube_law, delta1, delta2,
                                                               risk_gap, thm6_sample_size, u_list)

LEVEL = 1e-3
N_TRIALS = 4000


def test_000_bounds_registered():
    assert {"000-L3", "000-L3b", "000-L4", "000-L4b", "000-L4.cov", "000-L5", "000-T6", "000-T8"} <= {
        b.id for b in list_bounds("000")}


def test_000_assumptions():
    # 000: Bernstein range m >= 8(ln(1/delta) + 1/4) and Thm 6's (corrected) alpha condition
    with pytest.raises(InputError, match="Bernstein range"):
        get_bound("000-L3b").evaluate(C=1, m=20, delta=0.01)
    assert get_bound("000-L3b").evaluate(C=1, m=40, delta=0.01) > 0
    t6 = get_bound("000-T6")
    with pytest.raises(InputError, match="1152"):
        t6.evaluate(C=1.0, alpha=0.2, m=1000, delta=0.1)
    assert t6.evaluate(C=1.0, alpha=0.2, m=100_000, delta=0.1) > 0
    assert t6.failure_probability(delta=0.1) == pytest.approx(0.3)


def test_000_printed_forms_differ_and_scale_invariance():
    C, alpha, m, delta = (SYMBOLS[k] for k in ("C", "alpha", "m", "delta"))
    s = sp.Symbol("s", positive=True)
    L3 = get_bound("000-L3")
    assert L3.printed is not None and sp.simplify(L3.printed - L3.expr) != 0
    assert sp.simplify(L3.printed / L3.expr - C) == 0      # printed = C * corrected
    scale = {C: s * C, alpha: s**2 * alpha}                 # x -> s x: C -> sC, lambda_min -> s^2 lambda_min
    assert sp.simplify(L3.expr.subs(scale, simultaneous=True) - L3.expr) == 0   # Delta_1 is dimensionless
    assert sp.simplify(L3.printed.subs(scale, simultaneous=True) - L3.printed) != 0
    assert sp.simplify(get_bound("000-T6").expr.subs(scale, simultaneous=True) - get_bound("000-T6").expr) == 0
    # Thm 6 constants: 2C t_mean = 2C^2 sqrt(32 L/m) and Delta_2 <= 3C^4/(alpha alpha_hat) sqrt(32 L/m)
    cov = get_bound("000-L4.cov").expr
    assert sp.simplify(cov - 3 * C**2 * sp.sqrt(32 * (sp.log(1 / delta) + sp.Rational(1, 4)) / m)) == 0
    pr = L3.printed_bound()
    assert pr.id == "000-L3.printed" and pr.printed is None
    assert pr.evaluate(C=2.0, alpha=1.0, m=100, delta=0.1) == pytest.approx(
        2 * L3.evaluate(C=2.0, alpha=1.0, m=100, delta=0.1))


@pytest.mark.random
def test_000_lemma3_mean_and_delta1_coverage():
    law, m, delta = cube_law(), 200, 0.05
    C, alpha = law.radius, law.alpha
    sampler = law.moment_sampler(m)
    r = get_bound("000-L3b").coverage(sampler, law.mean, lambda s: s["mean"], N_TRIALS, delta, seed=21,
                                              values=dict(C=C, m=m), level=LEVEL)
    assert r.passes and r.failures == 0, str(r)
    Us = u_list(law.d, np.random.default_rng(0), law.mean)
    L3 = get_bound("000-L3")
    r = L3.coverage(sampler, law.mean, lambda s: s["mean"], N_TRIALS, delta, seed=22,
                    values=dict(C=C, alpha=alpha, m=m), deviation=delta1(law, Us), level=LEVEL)
    assert r.passes and r.failures == 0, str(r)
    # the printed C^4 form is not scale invariant: for data measured in units 1000x larger it fails
    small = cube_law(scale=1e-3)
    sampler_s = small.moment_sampler(m)
    r_ok = L3.coverage(sampler_s, small.mean, lambda s: s["mean"], N_TRIALS, delta, seed=23,
                       values=dict(C=small.radius, alpha=small.alpha, m=m), deviation=delta1(small, Us), level=LEVEL)
    r_pr = L3.printed_bound().coverage(sampler_s, small.mean, lambda s: s["mean"], N_TRIALS, delta, seed=23,
                                       values=dict(C=small.radius, alpha=small.alpha, m=m),
                                       deviation=delta1(small, Us), level=LEVEL)
    assert r_ok.passes and not r_pr.passes and r_pr.rate > 0.5, (str(r_ok), str(r_pr))


@pytest.mark.random
def test_000_lemma4_coverage():
    law, m, delta = cube_law(d=3, p=0.4), 300, 0.05
    C, alpha = law.radius, law.alpha
    sampler = law.moment_sampler(m)
    r = get_bound("000-L4b").coverage(sampler, law.second, lambda s: s["second"], N_TRIALS,
                                                       delta, seed=31, values=dict(C=C, m=m), level=LEVEL)
    assert r.passes and r.failures == 0, str(r)
    r = get_bound("000-L4.cov").coverage(sampler, law.cov, lambda s: s["cov"], N_TRIALS, delta, seed=32,
                                             values=dict(C=C, m=m), level=LEVEL)
    assert r.passes and r.failures == 0 and r.nominal == pytest.approx(2 * delta), str(r)
    Us = u_list(law.d, np.random.default_rng(1), law.mean)
    r = get_bound("000-L4").coverage(
        sampler, None, lambda s: (s["mean"], s["cov"]), N_TRIALS, delta, seed=33, deviation=delta2(law, Us),
        values=dict(C=C, alpha=alpha, m=m, alpha_hat=lambda s: np.linalg.eigvalsh(s["cov"])[:, 0],
                    dmu=lambda s: np.linalg.norm(s["mean"] - law.mean, axis=1)), level=LEVEL)
    assert r.passes and r.failures == 0, str(r)


@pytest.mark.random
def test_000_lemma5_and_thm6_coverage():
    law, delta = cube_law(d=2), 0.1
    C, alpha = law.radius, law.alpha
    m = thm6_sample_size(law, delta)  # corrected Thm 6 condition, 1.2x
    assert m == int(np.ceil(1152 * (np.log(2 / delta) + 0.25) * C**4 / alpha**2 * 1.2))
    sampler = law.moment_sampler(m)
    L5 = get_bound("000-L5")
    r5 = L5.coverage(sampler, law.alpha, lambda s: np.linalg.eigvalsh(s["cov"])[:, 0], N_TRIALS, None, seed=41,
                     deviation=lambda a_hat, a: a - a_hat, values=dict(C=C, alpha=alpha, m=m), level=LEVEL)
    assert r5.nominal < delta and r5.passes and r5.failures == 0, str(r5)
    gap = risk_gap(law, 40, seed=2)  # 40 half-spaces excluding the mean (risk < 1)
    r6 = get_bound("000-T6").coverage(sampler, None, lambda s: (s["mean"], s["cov"]), N_TRIALS, delta, seed=42,
                                        deviation=gap, values=dict(C=C, alpha=alpha, m=m), level=LEVEL)
    assert r6.passes and r6.failures == 0 and r6.nominal == pytest.approx(3 * delta), str(r6)
    # the printed condition alpha >= sqrt(1152(...)/m) (no C^2) is not scale invariant: for the same law in units
    # 5x smaller (C -> 5 C, alpha -> 25 alpha) it accepts m = m_printed, where Lemma 5 is vacuous
    Cs, As = 5 * C, 25 * alpha
    m_printed = int(np.ceil(1152 * (np.log(2 / delta) + 0.25) / As**2))
    assert m_printed < m
    assert L5.failure_probability(C=Cs, alpha=As, m=m_printed) == 1.0   # 2 exp(...) >= 1: no guarantee
    with pytest.raises(InputError, match="1152"):
        get_bound("000-T6").evaluate(C=Cs, alpha=As, m=m_printed, delta=delta)


def test_000_harness_pieces():
    """The Monte Carlo pieces the audit uses agree with direct computations."""
    law = cube_law(d=2)
    assert law.radius <= 1.0 and law.alpha > 0 and np.linalg.norm(law.mean) > 0
    small = cube_law(scale=1e-3)
    assert np.allclose(small.atoms, 1e-3 * law.atoms) and np.allclose(small.probs, law.probs)
    Us = u_list(2, np.random.default_rng(0), law.mean)
    assert all((U[:, 0] @ law.mean < 0) for U in Us if U.shape[1] == 1)
    A = a_matrix(Us[0], law.cov)
    U = Us[0]
    assert np.allclose(A, U @ np.linalg.inv(U.T @ law.cov @ U) @ U.T)
    mu_hat = law.mean[None] + np.array([[0.01, -0.02]])
    d1 = delta1(law, Us[:1])(mu_hat, law.mean)
    dm = mu_hat[0] - law.mean
    assert d1[0] == pytest.approx(law.mean @ A @ dm + dm @ A @ mu_hat[0])
    # the background risk of a half-space containing the mean is 1; Cantelli otherwise
    w = np.array([[1.0, 0.0]])
    r = background_risk_k1(np.array([[-1.0, 0.0]]), np.eye(2)[None], w)
    assert r[0, 0] == pytest.approx(0.5) and background_risk_k1(np.array([[1.0, 0.0]]), np.eye(2)[None], w)[0, 0] == 1
    assert delta2(law, Us)((law.mean[None], law.cov[None]), None)[0] == pytest.approx(0, abs=1e-12)
    assert risk_gap(law)((law.mean[None], law.cov[None]), None)[0] == pytest.approx(0, abs=1e-12)
