"""The optimality verdict's interval rule (`kkt._decide`): near 0 and monotone under shrinking the interval.

A narrow interval near 0 that excludes it (004's w-step at kappa*, width 1e-14 around 1e-11 with F ~ 1) is no
less a proof than a wider one containing 0; shrinking a certified interval around the objective never loses
'certified'; data far from 0 keep the relative rule.
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.certify.kkt import Certificate, _decide

TOL = 1e-8


def _verdict(lo, hi, objective, terms=1.0, data=0.0):
    cert = Certificate(verdict="accurate", kind="optimality", tol=TOL, tol_inaccurate=1e-5,
                       primal_objective=objective, scales={"objective_terms": terms, "objective_data": data},
                       interval=(lo, hi))
    _decide(cert, objective)
    return cert.verdict


def test_narrow_interval_near_zero_excluding_zero_is_certified():
    assert _verdict(-1e-9, 1e-9, 1e-11) == "certified"  # contains 0: judged against F = 1
    assert _verdict(1e-11, 1e-11 + 1e-14, 1e-11 + 5e-15) == "certified"  # narrower, excludes 0: was 'accurate'
    assert _verdict(-1e-11 - 1e-14, -1e-11, -1e-11) == "certified"


def test_relative_rule_unchanged_away_from_zero_and_under_scaling():
    # an objective of 1e-3 F with absolute error 1e-9 (relative 1e-6) is not certified, at every data scale
    for s in (1e-8, 1.0, 1e8):
        assert _verdict(1e-3 * s, (1e-3 + 1e-9) * s, 1e-3 * s, terms=s) == "accurate"
        assert _verdict(1e-3 * s, (1e-3 + 1e-12) * s, 1e-3 * s, terms=s) == "certified"
        # near 0 in the data's units: certified, and only if the width is small in those units too
        assert _verdict(1e-11 * s, 2e-11 * s, 1.5e-11 * s, terms=s) == "certified"
        assert _verdict(1e-11 * s, 1e-7 * s, 1e-9 * s, terms=s) == "accurate"
    # the floor is the data's scale: data 1e8 times smaller make the same interval not near 0
    assert _verdict(1e-11, 1e-11 + 1e-14, 1e-11, terms=1e-8) == "accurate"


def test_monotone_at_the_edge_of_the_floor():
    # [0.9, 1.8] tol F is zero-like (wider than its distance to 0) and certified on the floor; the much narrower
    # interval near its top must be too (with 'size <= tol F' instead of 2 tol F it was 'accurate')
    assert _verdict(0.9 * TOL, 1.8 * TOL, 1.75 * TOL) == "certified"
    assert _verdict(1.7 * TOL, 1.71 * TOL, 1.705 * TOL) == "certified"


def test_objective_outside_narrow_interval_is_not_certified():
    assert _verdict(1e-11, 1e-11 + 1e-14, 1e-6) == "accurate"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.floats(-30, 2), st.floats(-14, 2), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1),
       st.sampled_from([-1.0, 1.0]), st.floats(-10, 10))
def test_shrinking_a_certified_interval_keeps_certified(log_lo, log_w, a, b, t, sign, log_terms):
    terms = 10.0 ** log_terms
    lo = sign * 10.0 ** log_lo * terms * (1 if a > 0.3 else -1)
    hi = lo + 10.0 ** log_w * max(abs(lo), terms * 1e-8)
    lo2 = lo + a * (hi - lo)
    hi2 = lo2 + b * (hi - lo2)
    obj = lo2 + t * (hi2 - lo2)
    if not (lo <= lo2 <= obj <= hi2 <= hi):
        return
    if _verdict(lo, hi, obj, terms=terms) == "certified":
        assert _verdict(lo2, hi2, obj, terms=terms) == "certified", (lo, hi, lo2, hi2, obj, terms)
