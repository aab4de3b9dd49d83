"""`kkt_measures` reuses its last result only for the same data and the same point (issue 15: a solution checked
by certiprog's automatic choice and then in full by the caller measured the same residuals twice)."""
import dataclasses

import numpy as np

from certiprog.certify import check
from certiprog.certify import kkt as K
from certiprog.model import Model, Variable, minimize, norm2


def _solved(seed=0, p=6):
    rng = np.random.default_rng(seed)
    F1, F0 = rng.normal(size=(p, p)), rng.normal(size=(p, p))
    v = Variable(p, "v")
    model = Model(minimize(norm2(F1 @ v) + norm2(F0 @ v)))
    model.add((rng.normal(size=p) + 0.5) @ v == 1.0, name="normalization")
    return model, model.solve(backend="clarabel")


def _fields(cert):
    d = dataclasses.asdict(cert)
    return {k: d[k] for k in ("verdict", "max_rel", "worst", "primal_objective", "dual_objective", "gap_abs",
                              "stationarity_abs", "scales")}


def test_reused_measures_equal_fresh_ones_and_checks_stay_independent():
    model, sol = _solved()
    fresh = K._kkt_measures(sol.problem, sol.x, sol.z, dict(tol=1e-8, tol_inaccurate=1e-5))
    first = check(sol.problem, sol, interval=False)
    again = check(sol.problem, sol)  # reuses the measures, adds the interval
    assert _fields(first) == _fields(fresh)
    assert again.verdict == "certified" and again.interval is not None
    assert first.interval is None and first.verdict == "accurate"  # the second check did not touch the first
    again.notes.append("edited")
    assert "edited" not in check(sol.problem, sol, interval=False).notes


def test_an_edited_point_or_edited_data_is_measured_again():
    model, sol = _solved(1)
    base = check(sol.problem, sol, interval=False)
    bad = dataclasses.replace(sol, x=sol.x * (1 + 1e-3))
    worse = check(sol.problem, bad, interval=False)
    assert worse.max_rel > 100 * max(base.max_rel, 1e-12) and worse.verdict != "certified"
    # the same objects with their numbers changed in place: a checksum of the data sees it
    prob = sol.problem
    prob.b[:] *= 2.0
    edited = check(prob, sol, interval=False)
    assert edited.max_rel > 1e-3 and edited.verdict in ("inaccurate", "failed")
    prob.b[:] /= 2.0
    assert _fields(check(prob, sol, interval=False)) == _fields(base)
    # a swap of two entries keeps every plain sum: the position-weighted one sees it
    i, j = np.flatnonzero(prob.b != prob.b[np.flatnonzero(prob.b)[0]])[0], np.flatnonzero(prob.b)[0]
    prob.b[[i, j]] = prob.b[[j, i]]
    swapped = check(prob, sol, interval=False)
    assert swapped.max_rel > 1e-3
    prob.b[[i, j]] = prob.b[[j, i]]
    assert _fields(check(prob, sol, interval=False)) == _fields(base)


def test_other_tolerances_are_not_answered_from_the_last_result():
    model, sol = _solved(2)
    loose = check(sol.problem, sol, tol=1e-3, tol_inaccurate=1e-2, interval=False)
    tight = check(sol.problem, sol, tol=1e-14, tol_inaccurate=1e-13, interval=False)
    assert loose.tol == 1e-3 and tight.tol == 1e-14 and tight.verdict != "accurate"
