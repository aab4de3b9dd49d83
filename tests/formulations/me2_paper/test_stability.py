"""Monte Carlo checks of paper 002's corrected Prop. 1 and Thm 2 with the certified learner (me2_paper/stability.py)."""
import numpy as np
import pytest

from certiprog.audit.bounds import get_bound
from certiprog.errors import InputError
from certiprog.formulations.me2_paper.stability import exclusion_law, stability_check, thm2_coverage, thm2_excess


def test_thm2_corrected_covers_and_is_non_vacuous():
    bound = get_bound("002-C46")
    assert thm2_excess(200, 10, 10, 0.5, 0.05) == pytest.approx(bound.evaluate(k=1, n=200, mu=10, lam=10, K=0.5,
                                                                                 delta=0.05))
    res = thm2_coverage(bound, n_trials=60, seed=1)
    assert res.passes and res.failures == 0 and res.max_ratio < 1


def test_coverage_detects_a_shrunk_bound():
    res = thm2_coverage(get_bound("002-C46").scaled(0.01), n_trials=60, seed=1)
    assert not res.passes and res.failures > 10


def test_vacuous_settings_are_refused():
    with pytest.raises(InputError, match="vacuous"):
        thm2_coverage(None, n_trials=5, mu=1.0, lam=1.0)
    assert thm2_excess(1000, 0.75, 1e-6, 4.0, 0.05) > 1e9  # the paper's grid and B = 4: vacuous by far


def test_prop1_constants_hold():
    out = stability_check(n_pairs=20, seed=3)
    assert 0 < out["theta_ratio"] <= 1 and 0 < out["loss_ratio"] <= 1


def test_finite_law_risk_is_exact():
    law = exclusion_law(3, 0.5, 10, seed=2)
    assert np.all(np.linalg.norm(law.atoms, axis=1) <= 0.5) and law.probs.sum() == pytest.approx(1)
    M, R = np.eye(3) * 2, 0.2
    direct = sum(p * max(0.0, R - 2 * a @ a) for a, p in zip(law.atoms, law.probs))
    assert law.risk(M, R) == pytest.approx(direct, rel=1e-12)


def test_the_audit_runs_the_monte_carlo_check_of_thm2():
    bound = get_bound("002-C46")
    assert bound.monte_carlo is not None
    res = bound.audit(n_trials=40, seed=2)
    assert res.status == "verified" and "Monte Carlo: 0/40 failures" in res.detail
    shrunk = bound.scaled(0.01).audit(n_trials=40, seed=2)  # the same audit refutes a bound 100 times too small
    assert shrunk.status == "refuted" and "Monte Carlo coverage rejects" in shrunk.detail
