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
