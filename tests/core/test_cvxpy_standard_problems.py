"""CVXPY's own standard test problems (``cvxpy.tests.solver_test_helpers``), written in certiprog's modelling layer
and solved on every backend (and, in the slow tier, every solver) that accepts them.

The expected values are CVXPY's, read from its helper module at test time (``lp_1()``, ``socp_3(axis)``, ...):
objective, primal values and duals. certiprog's duals are compared after the documented sign conversion
(README, "One dual convention"): inequalities and cone constraints keep CVXPY's sign, equalities flip it
(certiprog's Lagrangian is ``f - z'(lhs - rhs)``, CVXPY's ``f + y'(lhs - rhs)``); an SOC dual ``[t, X]`` becomes
one row per cone ``(t_i, X's i-th row or column)``; an exponential or 3-D power cone dual ``[u, v, w]`` becomes
rows ``(u_i, v_i, w_i)``. Infeasible and unbounded problems must come back with that status (or, from a
solver that cannot tell them apart, ``infeasible_or_unbounded``), never with a point; where the solver declares
rays, `certificates.check` must prove the status.

Departures, each because certiprog's layer has no direct equivalent: ``sdp_batched`` (a (2, 3, 3) variable)
is two 3 x 3 variables; ``qp_parameter_update`` writes ``sum(p * square(x))`` as ``sum_squares(sqrt(p) * x)``
(a Parameter may not weight an atom) and takes its expected values from CVXPY + Clarabel in the same run.
Exponential- and power-cone problems run when certiprog.model has the atoms and cones they use (a skip names
the missing one).

Tolerances follow CVXPY's ``places`` (absolute 10**-places); first-order solvers (SCS, OSQP) get 2 places.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import certiprog.model as cm
from certiprog.certify import check
from certiprog.errors import BackendError
from certiprog.model import PSD, SOC, Model, Parameter, Variable, maximize, minimize
from certiprog.solvers import available_backends, available_solvers, get_backend

cvh = pytest.importorskip("cvxpy.tests.solver_test_helpers", reason="CVXPY's test helpers (pip install cvxpy)")
cp = pytest.importorskip("cvxpy")

#: engines compared to 2 places: first-order codes (default accuracy about 1e-4 relative) and SCIP (a global
#: branch-and-bound code with a 1e-4 relative gap, returning no duals: certiprog recovers them from the point)
LOOSE = {"scs", "osqp", "scip"}


# --------------------------------------------------------------------------- dual conversions
def same(d):
    return np.asarray(d, float)


def flip(d):  # equalities: certiprog z = -CVXPY y
    return -np.asarray(d, float)


def soc(axis=None):
    """CVXPY's [t, X] -> certiprog's one row per cone (t_i, x_i)."""
    def convert(d):
        t, X = (np.asarray(a, float) for a in d)
        if X.ndim <= 1 or axis is None and X.shape[0] == 1 and t.size == 1:
            return np.concatenate([t.reshape(-1), X.reshape(-1)])
        rows = X.T if axis == 0 else X
        return np.column_stack([t.reshape(-1), rows])
    return convert


def columns(d):
    """CVXPY's [u, v, w] of an exponential / 3-D power cone -> certiprog's rows (u_i, v_i, w_i)."""
    return np.column_stack([np.asarray(a, float).reshape(-1) for a in d])


# --------------------------------------------------------------------------- the problems
@dataclass
class Case:
    name: str
    reference: Callable  # CVXPY's helper -> SolverTestHelper (expected values)
    build: Callable  # -> (Model, [variable names], [dual conversion per constraint]), constraints named c0, c1, ...
    places: int = 4
    needs: tuple = ()  # names certiprog.model must have
    status: str = "optimal"
    primal: bool = True  # CVXPY's test verifies the primal values
    duals: bool = True  # CVXPY's test verifies the dual values (else only complementarity / dual domains)
    objective_places: int | None = None  # CVXPY records fewer digits of this objective


def model(objective, constraints, name):
    return Model(objective, {f"c{i}": c for i, c in enumerate(constraints)}, name=name)


def lp_0():
    x = Variable(2, "x")
    return model(minimize(cm.norm1(x) + 1.0), [x == 0], "lp_0"), ["x"], [None]


def lp_1():
    x = Variable(2, "x")
    cons = [2 * x[0] + x[1] <= 3, x[0] + 2 * x[1] <= 3, x[0] >= 0, x[1] >= 0]
    return model(minimize(-4 * x[0] - 5 * x[1]), cons, "lp_1"), ["x"], [same] * 4


def lp_2():
    x = Variable(2, "x")
    cons = [x[0] >= -100, x[0] <= -10, x[1] == 1]
    return model(minimize(x[0] + 0.5 * x[1]), cons, "lp_2"), ["x"], [same, same, flip]


def lp_3():
    x = Variable(5, "x")
    return model(minimize(x.sum()), [x <= 1], "lp_3"), [None], [None]


def lp_4():
    x = Variable(5, "x")
    return model(minimize(x.sum()), [x <= 0, x >= 1], "lp_4"), [None], [None, None]


def lp_5():
    """CVXPY's generator, replayed (legacy seeded RNG); the test checks c @ x0 against CVXPY's expected value."""
    x0 = np.array([0, 1, 0, 2, 0, 4, 0, 5, 6, 7])
    mu0 = np.array([-2, -1, 0, 1, 2, 3.5])
    np.random.seed(0)
    A_min = np.random.randn(4, 10)
    A_red = (A_min.T @ np.random.rand(4, 2)).T
    A = np.vstack((A_min, A_red))
    b = A @ x0
    c = A.T @ mu0
    c[[0, 2, 4, 6]] += np.random.rand(4)
    x = Variable(10, "x")
    m = model(minimize(c @ x), [x >= 0, A @ x == b], "lp_5")
    m.data = float(c @ x0)
    return m, [None], [None, None]


def lp_6():
    x = Variable((), "x")
    return model(maximize(0.23 * x), [], "lp_6"), [None], []


def lp_7():
    n = 50
    a, delta, b = Variable(n + 1, "a"), Variable(n, "delta"), Variable(n + 1, "b")
    cons = [a[1:] - a[:-1] == delta, a >= cm.pos(b)]
    return model(minimize(cm.pos(delta).sum()), cons, "lp_7"), [None, None, None], [None, None]


def lp_bound_attr():
    x = Variable(2, "x", bounds=[np.array([-100, 1]), np.array([-10, 1])])
    return model(minimize(x[0] + 0.5 * x[1]), [], "lp_bound_attr"), ["x"], []


def qp_bound_attr():
    x = Variable(2, "x", bounds=[np.array([1, -5]), np.array([10, 5])])
    return model(minimize(cm.sum_squares(x)), [], "qp_bound_attr"), ["x"], []


def qp_0():
    x = Variable(1, "x")
    return model(minimize(cm.square(x)), [x[0] >= 1], "qp_0"), ["x"], [same]


def socp_0():
    x = Variable(2, "x")
    return model(minimize(cm.norm2(x) + 1), [x == 0], "socp_0"), ["x"], [None]


def socp_1():
    x, y = Variable(3, "x"), Variable((), "y")
    cons = [SOC(y, x), x[0] + x[1] + 3 * x[2] >= 1.0, y <= 5]
    return model(minimize(3 * x[0] + 2 * x[1] + x[2]), cons, "socp_1"), ["x", "y"], [soc(), same, same]


def socp_2():
    x = Variable(2, "x")
    cons = [2 * x[0] + x[1] <= 3, SOC(np.array([3.0]), (x[0] + 2 * x[1]).reshape((1, 1)), axis=0),
            x[0] >= 0, x[1] >= 0]
    return model(minimize(-4 * x[0] - 5 * x[1]), cons, "socp_2"), ["x"], [same, soc(0), same, same]


def socp_3(axis):
    def build():
        x = Variable(2, "x")
        r2 = np.sqrt(2)
        u = np.array([[1 / r2, -1 / r2], [1 / r2, 1 / r2]])
        mats = [np.diag([r2, 1 / r2]) @ u.T, np.diag([1, 1]), np.diag([0.2, 1.8])]
        X = cm.vstack([m @ x for m in mats])  # stack these as rows (numpy's vstack)
        con = SOC(np.ones(3), X.T, axis=0) if axis == 0 else SOC(np.ones(3), X, axis=1)
        return model(minimize(np.array([-1, 2]) @ x), [con], f"socp_3ax{axis}"), ["x"], [soc(axis)]
    return build


def socp_4():
    x = Variable(4, "x")
    A1 = np.array([[1., -2., 2., -1.]])
    A2 = np.array([[1., 0., -2., 2.], [0., -2., 2., 2.]])
    A3 = np.array([[-2., -2., -2., -1.], [0., 1., 1., 1.], [0., 2., -1., 0.]])
    b3 = np.array([0., 2., 2.])
    cons = [SOC(1.0, A1 @ x), SOC(2.0, A2 @ x), SOC(3.0, A3 @ x - b3), x.sum() == 1]
    return (model(minimize(np.array([3., 1., 2., -1.]) @ x), cons, "socp_4"), ["x"],
            [soc(), soc(), soc(), flip])


def socp_bounds_attr():
    x = Variable((), "x", bounds=[-1, 1])
    return model(minimize(x), [x ** 2 <= 4], "socp_bounds_attr"), ["x"], [same]


def sdp_1(sense):
    def build():
        rho = Variable((4, 4), "rho", symmetric=True)
        cons = [0.6 <= rho[0, 1], rho[0, 1] <= 0.9, 0.8 <= rho[0, 2], rho[0, 2] <= 0.9,
                0.5 <= rho[1, 3], rho[1, 3] <= 0.7, -0.8 <= rho[2, 3], rho[2, 3] <= -0.4,
                rho[0, 0] == 1, rho[1, 1] == 1, rho[2, 2] == 1, rho[3, 3] == 1, rho >> 0]
        obj = minimize(rho[0, 3]) if sense == "min" else maximize(rho[0, 3])
        return model(obj, cons, f"sdp_1{sense}"), [None], [None] * len(cons)
    return build


def sdp_2():
    X1, X2 = Variable((2, 2), "X1", symmetric=True), Variable((4, 4), "X2", symmetric=True)
    C1, A1 = np.array([[1, 0], [0, 6]]), np.array([[1, 1], [1, 2]])
    C2 = np.array([[1, -3, 0, 0], [-3, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]])
    A2 = np.array([[0, 1, 0, 0], [1, -1, 0, 0], [0, 0, 0, 0], [0, 0, 0, -3]])
    cons = [(A1 @ X1).trace() + (A2 @ X2).trace() == 23, X2[0, 1] <= -3, X1 >> 0, X2 >> 0]
    obj = minimize((C1 @ X1).trace() + (C2 @ X2).trace())
    return model(obj, cons, "sdp_2"), ["X1", "X2"], [flip, same, same, same]


def sdp_batched():
    """CVXPY's (2, 3, 3) batched variable as two 3 x 3 symmetric variables (certiprog has at most 2-D)."""
    X0, X1 = Variable((3, 3), "X0", symmetric=True), Variable((3, 3), "X1", symmetric=True)
    cons = [PSD(X0), PSD(X1), X0[0, 1] >= 1, X1[1, 2] >= 2]
    return model(minimize(X0.trace() + X1.trace()), cons, "sdp_batched"), [None], [None] * 4


def expcone_1():
    x = Variable((3, 1), "x")
    cons = [x.sum() <= 1.0, x.sum() >= 0.1, x >= 0, cm.ExpCone(x[2], x[1], x[0])]
    obj = minimize(3 * x[0] + 2 * x[1] + x[2])
    return model(obj, cons, "expcone_1"), ["x"], [same, same, same, columns]


def expcone_socp_1():
    sigma = np.array([[1.83, 1.79, 3.22], [1.79, 2.18, 3.18], [3.22, 3.18, 8.69]])
    L = np.linalg.cholesky(sigma)
    t, x, s = Variable((), "t"), Variable(3, "x"), Variable(3, "s")
    cons = [cm.norm2(L.T @ x) <= t, cm.ExpCone(s, np.ones(3), x)]
    return model(minimize(t - 0.75 * s.sum()), cons, "expcone_socp_1"), ["x", "s"], [same, columns]


def sdp_pcp_1():
    Sigma = np.array([[0.4787481, -0.96924914], [-0.96924914, 2.77788598]])
    x, y = Variable((2, 1), "x"), Variable((2, 1), "y")
    X = Variable((2, 2), "X", symmetric=True)
    M3 = cm.hstack([cm.vstack([X, x.T]), cm.vstack([x, np.ones((1, 1))])])
    cons = [x.sum() == 1, x >= 0, y >= 0.01, M3 >> 0, cm.PowerCone3D(x, np.ones((2, 1)), y, 0.9)]
    obj = minimize((Sigma @ X).trace() + cm.norm2(y))
    return model(obj, cons, "sdp_pcp_1"), ["x", "y", "X"], [None] * 5  # CVXPY checks no duals here


def pcp_1():
    x, y_square, epis = Variable(3, "x"), Variable((), "y_square"), Variable(3, "epis")
    cons = [cm.PowerCone3D(np.ones(3), epis, x, np.array([0.5, 0.5, 0.5])), epis.sum() <= y_square,
            x[0] + x[1] + 3 * x[2] >= 1.0, y_square <= 25]
    obj = minimize(3 * x[0] + 2 * x[1] + x[2])
    return model(obj, cons, "pcp_1"), ["x", "epis", "y_square"], [columns, same, same, same]


def pcp_2():
    x, hypos = Variable(3, "x"), Variable(2, "hypos")
    pc = cm.PowerCone3D(cm.hstack([x[0], x[2]]), cm.hstack([x[1], 1.0]), hypos, [0.2, 0.4])
    cons = [x[0] + x[1] + 0.5 * x[2] == 2, pc]
    return model(minimize(-hypos.sum() + x[0]), cons, "pcp_2"), ["x", None], [flip, columns]


def pcp_3():
    D = np.array([[-1.0856306, 0.99734545], [0.2829785, -1.50629471], [-0.57860025, 1.65143654],
                  [-2.42667924, -0.42891263], [1.26593626, -0.8667404], [-0.67888615, -0.09470897],
                  [1.49138963, -0.638902]])
    p = 1 / 0.4
    w, t, d = Variable((2, 1), "w"), Variable((), "t"), Variable((7, 1), "d")
    cons = [w.sum() == 1, w >= 0, cm.PowerCone3D(d, t * np.ones((7, 1)), D @ w, 1 / p), d.sum() == t]
    return model(minimize(t), cons, "pcp_3"), ["d", "w", "t"], [flip, same, columns, flip]


POW = ("PowerCone3D",)
EXP = ("ExpCone",)
CASES = [
    Case("lp_0", cvh.lp_0, lp_0, duals=False),
    Case("lp_1", cvh.lp_1, lp_1),
    Case("lp_2", cvh.lp_2, lp_2),
    Case("lp_3", cvh.lp_3, lp_3, status="unbounded"),
    Case("lp_4", cvh.lp_4, lp_4, status="infeasible"),
    Case("lp_5", cvh.lp_5, lp_5, primal=False, duals=False),
    Case("lp_6", cvh.lp_6, lp_6, status="unbounded"),
    Case("lp_7", cvh.lp_7, lp_7),
    Case("lp_bound_attr", cvh.lp_bound_attr, lp_bound_attr),
    Case("qp_bound_attr", cvh.qp_bound_attr, qp_bound_attr),
    Case("qp_0", cvh.qp_0, qp_0, needs=("square",)),
    Case("socp_0", cvh.socp_0, socp_0, duals=False),
    Case("socp_1", cvh.socp_1, socp_1),
    Case("socp_2", cvh.socp_2, socp_2),
    Case("socp_3ax0", lambda: cvh.socp_3(0), socp_3(0), places=3),
    Case("socp_3ax1", lambda: cvh.socp_3(1), socp_3(1), places=3),
    Case("socp_4", cvh.socp_4, socp_4),
    Case("socp_bounds_attr", cvh.socp_bounds_attr, socp_bounds_attr, needs=("power",)),
    Case("sdp_1min", lambda: cvh.sdp_1("min"), sdp_1("min"), duals=False, objective_places=2),
    Case("sdp_1max", lambda: cvh.sdp_1("max"), sdp_1("max"), duals=False, objective_places=2),
    # CVXPY's test_sdp_2 verifies no dual values: its expected dual of X1 >> 0 repeats X1's primal value
    Case("sdp_2", cvh.sdp_2, sdp_2, places=2, duals=False),
    Case("sdp_batched", cvh.sdp_batched, sdp_batched, places=3, duals=False),
    Case("expcone_1", cvh.expcone_1, expcone_1, needs=EXP),
    Case("expcone_socp_1", cvh.expcone_socp_1, expcone_socp_1, places=3, needs=EXP),
    Case("sdp_pcp_1", cvh.sdp_pcp_1, sdp_pcp_1, places=3, needs=POW, duals=False),
    Case("pcp_1", cvh.pcp_1, pcp_1, places=3, needs=POW),
    Case("pcp_2", cvh.pcp_2, pcp_2, places=3, needs=POW),
    Case("pcp_3", cvh.pcp_3, pcp_3, places=3, needs=POW),
]
BY_NAME = {c.name: c for c in CASES}


# --------------------------------------------------------------------------- running and comparing
def missing(needs: tuple) -> list:
    return [n for n in needs if not hasattr(cm, n)]


def build(case: Case):
    gone = missing(case.needs)
    if gone:
        pytest.skip(f"certiprog.model has no {gone} yet")
    return case.build()


def places_for(case: Case, backend: str, solver: str | None) -> int:
    return min(case.places, 2) if engine_of(backend, solver) in LOOSE else case.places


def engine_of(backend: str, solver: str | None) -> str | None:
    if solver is None:
        return None
    caps = get_backend(backend).capabilities_of(solver)
    return caps.engine if caps is not None else None


def solve(m, backend, solver):
    """The solution; a skip, with the reason, when the licence is missing or a named solver refuses the problem
    before solving (a BackendError that says so: CVXPY's SCS takes no problem without constraints)."""
    try:
        return m.solve(backend=backend, solver=solver)
    except BackendError as exc:
        text = str(exc).lower()
        if "licen" in text or (solver is not None and "refused the problem" in text):
            pytest.skip(str(exc))
        raise


def close(actual, expected, places: int, what: str):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.size == expected.size, f"{what}: {actual.shape} vs CVXPY's {expected.shape}"
    tol = 10.0 ** -places
    err = np.max(np.abs(actual.reshape(-1) - expected.reshape(-1)), initial=0.0)
    assert err <= tol, f"{what}: {actual.reshape(-1)} vs CVXPY's {expected.reshape(-1)} (max error {err:.2e} > {tol})"


def run_case(case: Case, backend: str, solver: str | None):
    m, var_names, converters = build(case)
    ref = case.reference()
    sol = solve(m, backend, solver)
    pl = places_for(case, backend, sol.solver)
    label = f"{case.name} on {backend}/{sol.solver}"
    if case.status != "optimal":
        allowed = {case.status, "infeasible_or_unbounded"}
        assert sol.status.termination in allowed, f"{label}: {sol.status} (expected {case.status})"
        assert sol.x is None or not sol.status.ok, f"{label}: a point reported for a {case.status} problem"
        if sol.certificate is not None and sol.status.termination == case.status:  # a ray: it must prove it
            verdict = check(m, sol).verdict
            assert verdict == f"certified_{case.status}", f"{label}: {verdict}"
        assert np.isinf(ref.expect_val) and (ref.expect_val > 0) == (case.status == "infeasible") ^ (
            m.objective.sense == "maximize")
        return sol
    if solver is None:  # certiprog chose: 'optimal' exactly when certified, else 'unconfirmed' (fallback.honest_status)
        certified = check(m, sol).certified
        assert sol.status.termination == ("optimal" if certified else "unconfirmed"), f"{label}: {sol.status}"
        assert certified or (case.name, backend) in UNPROVED, f"{label}: not certified ({sol.verdict})"
    else:
        assert sol.status.termination == "optimal", f"{label}: {sol.status}"
    expect_obj = m.data if case.name == "lp_5" else ref.expect_val
    if case.name == "lp_5":
        close(m.data, ref.expect_val, 9, "lp_5 replay of CVXPY's data: c @ x0")
    close(sol.objective, expect_obj, min(pl, case.objective_places or pl), f"{label} objective")
    if case.primal:
        for name, expect in zip(var_names, ref.expect_prim_vars):
            if name is not None and expect is not None:
                close(sol.value(name), expect, pl, f"{label} {name}")
    if case.duals:
        assert len(converters) == len(ref.constraints), f"{case.name}: constraint lists differ"
        for i, (convert, expect) in enumerate(zip(converters, ref.expect_dual_vars)):
            if convert is not None and expect is not None:
                close(sol.dual(f"c{i}"), convert(expect), pl, f"{label} dual of c{i}")
    # CVXPY checks complementarity and the duals' cones; certiprog's check does that and stationarity too
    if case.name not in SCALE_FREE_OPTIMA:
        verdict = check(m, sol).verdict
        # certiprog's own choice (solver=None) is confirmed by the certificate; a named solver's answer is taken
        # as it is, and may be 'inaccurate' (Gurobi's barrier on SOCPs, first-order codes), never 'failed'
        good = ("certified", "accurate") if solver is None and pl >= 3 else ("certified", "accurate", "inaccurate")
        assert verdict in good, f"{label}: certificate verdict {verdict}"
    return sol


#: (problem, backend) whose right answer (KKT residuals within tolerance, values = CVXPY's) the certificate cannot
#: prove, so certiprog's own choice reports status 'unconfirmed' (issue 21): an infinite end of the interval.
#: lp_5: redundant equalities (rank deficient), so no feasible point is proved; lp_7: homogeneous, no lower end;
#: expcone_socp_1, sdp_pcp_1, expcone_1 (SCIP's recovered dual): free columns the bound tightening cannot box and
#: a corrected dual that leaves its cone
UNPROVED = {(name, b) for name in ("lp_5", "lp_7", "expcone_socp_1", "sdp_pcp_1") for b in
            ("clarabel", "cvxpy", "piqp", "pyomo")} | {("expcone_1", "pyomo")}

#: degenerate optima (an atom's epigraph rows all ~0 at the optimum, so slacks and duals are ~0 together): their
#: complementarity ~1e-10 was divided by a scale of the same size and these right answers were 'failed'. Now the
#: rigorous interval decides (lp_0: [1 - 3e-16, 1 + 3e-9], narrow and holding the objective) and the residual
#: scales keep the objective's units (kkt.py, "Normalisation"); lp_7 has no finite lower end, so at best accurate
DEGENERATE_VERDICTS = {"lp_0": "certified", "socp_0": "certified", "lp_7": "accurate"}

#: lp_7 is homogeneous (b = 0, r0 = 0, optimum 0 at every multiple of an optimal point): OSQP returns x ~ 1e-30,
#: where no quantity of the data or the point gives the residuals a unit (complementarity 5e-29 against an
#: objective scale 1.5e-28), and its lower end is -inf, so that point stays 'failed'; Clarabel's is checked above
SCALE_FREE_OPTIMA = {"lp_7"}


@pytest.mark.parametrize("case_name", sorted(DEGENERATE_VERDICTS))
def test_degenerate_optimum_is_not_failed(case_name):
    m, _, _ = BY_NAME[case_name].build()
    sol = m.solve(backend="clarabel", solver="clarabel")
    assert sol.status.termination == "optimal"
    cert = check(m, sol)
    assert cert.verdict == DEGENERATE_VERDICTS[case_name], str(cert)
    # residuals alone: tiny in absolute and relative terms, so 'accurate' (was 'failed')
    assert check(m, sol, interval=False).verdict == "accurate", str(check(m, sol, interval=False))


def backend_combos():
    return [(c.name, b) for c in CASES for b in available_backends()]


@pytest.mark.parametrize("case_name, backend", backend_combos())
def test_standard_problem_on_each_backend(case_name, backend):
    """Each problem on each backend that takes it, the backend choosing its solver."""
    case = BY_NAME[case_name]
    m, _, _ = build(case)
    if backend not in available_backends(model=m):
        pytest.skip(f"{backend} takes no {sorted({c.kind for c in m.compile().assemble().cones})} problem here")
    run_case(case, backend, None)


def solver_combos():
    return [(c.name, b, s) for c in CASES for b, s in available_solvers()]


@pytest.mark.slow
@pytest.mark.parametrize("case_name, backend, solver", solver_combos())
def test_standard_problem_on_each_solver(case_name, backend, solver):
    """Each problem on every installed solver of every backend whose declared capabilities take it."""
    case = BY_NAME[case_name]
    m, _, _ = build(case)
    if (backend, solver) not in available_solvers(model=m):
        pytest.skip(f"{backend}/{solver} does not take this problem")
    run_case(case, backend, solver)


# --------------------------------------------------------------------------- the parameter-update QP
def test_qp_parameter_update():
    """CVXPY's StandardTestQPs.test_qp_parameter_update: solve, change every Parameter, solve again; compared
    with CVXPY + Clarabel on the same data (duals of x >= 0 and a'x <= b)."""
    x = Variable(2, "x")
    sqrt_p, q, a, b = Parameter(2, "sqrt_p", nonneg=True), Parameter(2, "q"), Parameter(2, "a"), Parameter((), "b")
    m = Model(minimize(0.5 * cm.sum_squares(sqrt_p * x) + q @ x), {"x>=0": x >= 0, "budget": a @ x <= b})
    xc = cp.Variable(2)
    pc, qc, ac, bc = cp.Parameter(2, nonneg=True), cp.Parameter(2), cp.Parameter(2), cp.Parameter()
    cons = [xc >= 0, ac @ xc <= bc]
    ref = cp.Problem(cp.Minimize(cp.sum(cp.multiply(pc, cp.square(xc))) / 2 + qc @ xc), cons)
    for p_, q_, a_, b_ in (([4., 0.25], [-4., 2.], [1., 1.], 2.), ([2., 1.], [-6., 2.], [1., 2.], 1.5)):
        sqrt_p.value, q.value, a.value, b.value = np.sqrt(p_), q_, a_, b_
        pc.value, qc.value, ac.value, bc.value = p_, q_, a_, b_
        ref.solve(solver="CLARABEL")
        for backend in available_backends(model=m):
            sol = m.solve(backend=backend)
            label = f"qp_parameter_update on {backend}/{sol.solver}"
            close(sol.objective, ref.value, 4, f"{label} objective")
            close(sol.value("x"), xc.value, 4, f"{label} x")
            close(sol.dual("x>=0"), cons[0].dual_value, 4, f"{label} dual of x >= 0")
            close(sol.dual("budget"), cons[1].dual_value, 4, f"{label} dual of a'x <= b")


# --------------------------------------------------------------------------- StandardTestInfeasibleProblems
def infeasible_lp_ineq():
    A, b = np.array([[1, 0], [0, 1], [-1, -1]]), np.array([0, 0, -1])
    x = Variable(2, "x")
    return Model(minimize(0 * x.sum()), {"c0": A @ x <= b}), (A, b)


def infeasible_lp_eq():
    A, b = np.array([[1, 0], [0, 1], [1, 1]]), np.array([0, 0, 1])
    x = Variable(2, "x")
    return Model(minimize(0 * x.sum()), {"c0": A @ x == b, "c1": x >= 0}), (A, b)


def infeasible_soc():
    x = Variable(2, "x")
    return Model(minimize(0 * x.sum()), {"c0": SOC(-1.0, x)}), None


def infeasible_psd():
    X = Variable((2, 2), "X")
    return Model(minimize(0 * X.sum()), {"c0": X >> 0, "c1": X[0, 0] == -1}), None


def infeasible_pow3d():
    z = Variable((), "z")
    return Model(minimize(0 * z), {"c0": cm.PowerCone3D(-1.0, 1.0, z, 0.5)}), None


def infeasible_pownd():
    x, z = Variable(3, "x"), Variable((), "z")
    cons = {"c0": cm.PowConeND(x, z, np.array([0.2, 0.3, 0.5])), "c1": x == np.ones(3), "c2": z == 2.0}
    return Model(minimize(0 * z), cons), None


def infeasible_exp():
    x, y, z = Variable((), "x"), Variable((), "y"), Variable((), "z")
    cons = {"c0": cm.ExpCone(x, y, z), "c1": x == 1, "c2": y == 1, "c3": z == 1}
    return Model(minimize(0 * x), cons), None


def infeasible_soc_exp():
    x, y = Variable((), "x"), Variable((), "y")
    cons = {"c0": x == y, "c1": SOC(x, cm.hstack([1.0])), "c2": cm.ExpCone(x, y, 1.0)}
    return Model(maximize(0 * x), cons), None


INFEASIBLE = {
    "lp_ineq_constraints": (infeasible_lp_ineq, ()),
    "lp_eq_constraints": (infeasible_lp_eq, ()),
    "soc": (infeasible_soc, ()),
    "psd_cone": (infeasible_psd, ()),
    "power_cone_3d": (infeasible_pow3d, POW),
    "power_cone_nd": (infeasible_pownd, ("PowConeND",)),
    "exp_cone": (infeasible_exp, EXP),
    "soc_exp_mixed": (infeasible_soc_exp, EXP),
}


@pytest.mark.parametrize("name, backend", [(n, b) for n in INFEASIBLE for b in available_backends()])
def test_infeasible_problem(name, backend):
    """CVXPY's StandardTestInfeasibleProblems on each backend that takes them (see `run_infeasible`)."""
    run_infeasible(name, backend, None)


@pytest.mark.slow
@pytest.mark.parametrize("name, backend, solver", [(n, b, s) for n in INFEASIBLE for b, s in available_solvers()])
def test_infeasible_problem_on_each_solver(name, backend, solver):
    run_infeasible(name, backend, solver)


def run_infeasible(name, backend, solver):
    """Status infeasible and no point; the LP Farkas rays as CVXPY checks them (y >= 0, A'y = 0, b'y < 0 for
    A x <= b; A'y >= 0, b'y < 0 for A x = b, x >= 0) where the solver returns a ray, and `check` proves it."""
    make, needs = INFEASIBLE[name]
    gone = missing(needs)
    if gone:
        pytest.skip(f"certiprog.model has no {gone} yet")
    m, data = make()
    if solver is None and backend not in available_backends(model=m):
        pytest.skip(f"{backend} takes no such problem here")
    if solver is not None and (backend, solver) not in available_solvers(model=m):
        pytest.skip(f"{backend}/{solver} does not take this problem")
    sol = solve(m, backend, solver)
    assert sol.status.termination in ("infeasible", "infeasible_or_unbounded"), (backend, sol.solver, sol.status)
    assert not sol.status.ok
    if sol.certificate is None:
        return
    assert sol.status.termination == "infeasible"
    verdict = check(m, sol).verdict
    if data is not None:  # an LP: the ray proves infeasibility over all x
        assert verdict == "certified_infeasible", verdict
    else:  # a cone may leave columns the ray cannot bound exactly: then a bounded-region statement, said so
        assert verdict in ("certified_infeasible", "accurate_infeasible"), verdict
    if data is not None:
        A, b = data
        blk = m.compile().assemble().rows_of("c0")[0]
        y = np.asarray(sol.certificate, float)[blk.start:blk.stop]
        scale = np.max(np.abs(y))
        assert scale > 0
        if name == "lp_ineq_constraints":
            assert np.all(y >= -1e-9 * scale)
            np.testing.assert_allclose(A.T @ y, 0, atol=1e-7 * scale)
            assert b @ y < 0
        else:  # certiprog's equality ray has the opposite sign to CVXPY's
            assert np.all(A.T @ (-y) >= -1e-7 * scale) and b @ (-y) < 0
