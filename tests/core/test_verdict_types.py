"""Typed verdicts and intervals (issue 22 item 4), compatible with the strings and tuples users already write."""
import json

import numpy as np
import pytest

import certiprog as cp
from certiprog.certify import Interval, Verdict


def test_every_verdict_word_splits_into_strength_and_kind():
    for v in Verdict:
        assert v.strength in ("certified", "accurate", "inaccurate", "failed")
        assert v.kind in ("optimality", "infeasibility", "unboundedness")
        assert Verdict(v.value) is v and str(v) == v.value
    assert Verdict("accurate_infeasible").kind == "infeasibility"
    assert Verdict("certified_unbounded").proved and not Verdict("accurate").proved
    with pytest.raises(ValueError):
        Verdict("certifed")


def test_check_returns_typed_results_that_still_read_as_strings_and_tuples():
    x = cp.Variable(2, name="x")
    m = cp.Model(cp.minimize(x.sum()), [x >= 1])
    sol = m.solve()
    cert = cp.check(m, sol)
    assert isinstance(cert.verdict, Verdict) and cert.verdict == "certified" and cert.verdict.startswith("cert")
    assert isinstance(sol.verdict, Verdict) and sol.verdict is cert.verdict
    assert isinstance(cert.interval, Interval)
    lo, hi = cert.interval
    assert lo <= 2.0 <= hi and cert.interval.width == hi - lo and cert.interval.finite
    assert json.loads(json.dumps({"v": cert.verdict}))["v"] == "certified"


def test_an_infeasible_program_has_an_infeasibility_verdict():
    x = cp.Variable(2, name="x")
    m = cp.Model(cp.minimize(x.sum()), [x >= 1, x.sum() <= 1])
    sol = m.solve()
    assert sol.verdict.kind == "infeasibility" and sol.verdict.proved
    assert cp.check(m, sol).interval is None
    assert np.isinf(sol.objective)


# ------------------------------------------------------------------ statuses, the fallback record, intervals
def test_statuses_are_string_enums_of_todays_words():
    from certiprog.errors import ModelError
    from certiprog.solvers import Feasibility, Termination

    x = cp.Variable(2, name="x")
    sol = cp.Model(cp.minimize(x.sum()), [x >= 1]).solve()
    st = sol.status
    assert isinstance(st.termination, Termination) and st.termination == "optimal" and st == "optimal"
    assert isinstance(st.primal, Feasibility) and st.primal == "feasible" and str(st) == "optimal"
    assert json.loads(json.dumps({"t": st.termination}))["t"] == "optimal"
    assert cp.Status("optimal", "feasible", "feasible") == st and hash(cp.Status(*st.__dict__.values())) == hash(st)
    assert {t.value for t in Termination} >= {"optimal", "inaccurate", "unconfirmed", "infeasible", "unbounded"}
    with pytest.raises(ModelError, match="unknown termination 'great'"):
        cp.Status("great", "feasible", "feasible")
    with pytest.raises(ModelError, match="unknown primal status"):
        cp.Status("optimal", "maybe", "feasible")


def test_the_default_path_records_typed_attempts_and_the_old_keys_still_answer():
    from certiprog.solvers import Attempt

    x = cp.Variable(2, name="x")
    m = cp.Model(cp.minimize(cp.sum_squares(x - 3.0)), [x <= 1])
    sol = m.solve()
    a = sol.chosen
    assert isinstance(a, Attempt) and a.chosen and a is sol.attempts[-1]
    assert (a.backend, a.solver) == (sol.backend, sol.solver) and a.label == f"{sol.backend}/{sol.solver}"
    assert a.termination == "optimal" and a.verdict is sol.verdict == "certified" and a.rejected == "" == a.error
    assert a.time > 0 and isinstance(a.options, dict) and not a.refused and sol.fallback_note == ""
    assert sol.solver_interval is None and dict(sol.info).keys().isdisjoint({"verdict", "fallback", "interval"})
    with pytest.warns(DeprecationWarning, match="sol.verdict"):
        assert sol.info["verdict"] == "certified"
    with pytest.warns(DeprecationWarning, match="sol.attempts"):
        old = sol.info.get("fallback")
    assert old == {"chosen": a.label, "attempts": [{"solver": a.label, "status": "optimal", "verdict": "certified"}]}
    assert "verdict" in sol.info and "fallback" in sol.info and "interval" not in sol.info
    with pytest.raises(KeyError):
        sol.info["interval"]
    assert sol.info.get("interval", "none") == "none"
    named = m.solve(backend="clarabel", solver="clarabel")  # the solver named: no fallback record
    assert named.attempts == [] and named.chosen is None and "fallback" not in named.info
    assert named.verdict == "certified"
    with pytest.warns(DeprecationWarning, match="no longer certiprog's record"):
        named.info["verdict"] = "mine"  # writing an old key is kept as an extra word, and said so
    assert named.verdict == "certified"


def test_copies_of_a_solution_answer_for_themselves():
    import copy

    x = cp.Variable(2, name="x")
    sol = cp.Model(cp.minimize(x.sum()), [x >= 1]).solve()
    twin = copy.deepcopy(sol)
    twin.attempts = []
    assert "fallback" in sol.info and "fallback" not in twin.info  # the copy's info reads the copy
    assert copy.copy(sol).verdict == sol.verdict


def test_every_rigorous_pair_is_one_interval_type():
    """OptimalityInterval, the papers' fits and the certificate expose their bounds as the one Interval."""
    from certiprog.certify import optimality_interval
    from certiprog.formulations.error_clumping_paper import learner
    from certiprog.formulations.error_clumping_paper.gap import from_interval
    from certiprog.formulations.error_clumping_paper.solver import solve_error_clumping
    from certiprog.formulations.hinge_minimax_paper.solver import solve_hinge_minimax
    from certiprog.formulations.hp_mpm_paper.mpm import class_moments
    from certiprog.formulations.hp_mpm_paper.solver import solve_mpm, solve_w_step

    rng = np.random.default_rng(0)
    x = cp.Variable(2, name="x")
    m = cp.Model(cp.minimize(cp.sum_squares(x - 2.0)), [x <= 1])
    sol = m.solve(backend="clarabel", solver="clarabel")
    iv = optimality_interval(sol.problem, sol.x, sol.z)
    X = rng.normal(size=(30, 3)) + 1.0
    y = np.where(rng.random(30) < 0.5, 1, -1)
    X1, X0 = rng.normal(size=(25, 3)) + 1.0, rng.normal(size=(25, 3)) - 1.0
    mom = class_moments(X1, X0)
    fits = [iv, from_interval(1.0, 2.0, 1.5), solve_error_clumping(X, y, 1.0, 0.5, 0.1),
            solve_hinge_minimax(X, -np.ones(3), np.eye(3), 0.1, 0.3), solve_mpm(mom), solve_w_step(mom, 1.0, 0.5, 0.5)]
    for fit in fits:
        lo, hi = fit.interval
        assert isinstance(fit.interval, Interval), type(fit).__name__
        assert (lo, hi) == (fit.lower, fit.upper) and lo <= hi and fit.interval.finite
    assert cp.check(m, sol).interval == pytest.approx(tuple(iv.interval), rel=1e-9)
    learnt = learner.fit_error_clumping(X, y, 1.0, 0.5, 0.1)
    assert isinstance(learnt, learner.CertifiedFit) and learnt.interval == learnt.certificate.interval
    assert isinstance(learnt.interval, Interval)
    with pytest.warns(DeprecationWarning, match="CertifiedFit"):
        assert learner.ErrorClumpingFit is learner.CertifiedFit  # the old name of the learner's result
    assert "ErrorClumpingFit" not in learner.__all__
