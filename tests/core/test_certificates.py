"""Certificates (issue 3): KKT verdicts, rigorous optimality intervals, dual recovery. Seeded."""
import dataclasses
import json

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certiprog import PSD, InputError, Model, Variable, maximize, minimize, norm2, sum_squares
from certiprog.certify import Certificate, check, optimality_interval, recover_duals

SCS_OPTS = dict(eps_abs=1e-10, eps_rel=1e-10, max_iters=200_000)
BACKENDS = [("clarabel", None, {}), ("cvxpy", "CLARABEL", {}), ("cvxpy", "SCS", SCS_OPTS)]


# --------------------------------------------------------------------------- random models + cvxpy references
def _rows(rng, n, k):
    x0 = rng.uniform(-0.5, 0.5, n)
    G = rng.normal(size=(k, n))
    return G, G @ x0 + rng.uniform(0.1, 1.0, k), x0


def make_lp(seed):
    rng = np.random.default_rng(seed)
    n = 6
    c = rng.normal(size=n)
    G, h, _ = _rows(rng, n, 8)
    x = Variable(n, "x")
    m = Model(minimize(c @ x), name="lp")
    m.add(G @ x <= h, "rows"), m.add(x <= 1, "ub"), m.add(x >= -1, "lb")
    y = cp.Variable(n)
    ref = cp.Problem(cp.Minimize(c @ y), [G @ y <= h, y <= 1, y >= -1])
    return m, ref


def make_qp(seed):
    rng = np.random.default_rng(seed)
    n = 5
    F, g, c = rng.normal(size=(7, n)), rng.normal(size=7), rng.normal(size=n)
    G, h, x0 = _rows(rng, n, 6)
    x = Variable(n, "x")
    m = Model(minimize(sum_squares(F @ x - g) + c @ x), name="qp")
    m.add(G @ x <= h, "rows"), m.add(x.sum() == x0.sum(), "budget")
    y = cp.Variable(n)
    ref = cp.Problem(cp.Minimize(cp.sum_squares(F @ y - g) + c @ y), [G @ y <= h, cp.sum(y) == x0.sum()])
    return m, ref


def make_socp(seed):
    rng = np.random.default_rng(seed)
    n = 5
    F, g, c = rng.normal(size=(4, n)), rng.normal(size=4), rng.normal(size=n)
    G, h, _ = _rows(rng, n, 4)
    x = Variable(n, "x")
    m = Model(minimize(c @ x + norm2(F @ x - g)), name="socp")
    m.add(norm2(x) <= 2, "ball"), m.add(G @ x <= h, "rows")
    y = cp.Variable(n)
    ref = cp.Problem(cp.Minimize(c @ y + cp.norm2(F @ y - g)), [cp.norm2(y) <= 2, G @ y <= h])
    return m, ref


def make_sdp(seed):
    rng = np.random.default_rng(seed)
    k = 3
    B = rng.normal(size=(k, k))
    C = (B + B.T) / 2
    X = Variable((k, k), "X", symmetric=True)
    m = Model(maximize(-(C * X).sum()), name="sdp")
    m.add(X.trace() == 1, "trace"), m.add(PSD(X), "psd")
    Y = cp.Variable((k, k), symmetric=True)
    ref = cp.Problem(cp.Maximize(-cp.trace(C @ Y)), [cp.trace(Y) == 1, Y >> 0])
    return m, ref, -np.linalg.eigvalsh(C)[0]


def _reference(ref):
    ref.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert ref.status == "optimal"
    return ref.value


MAKERS = {"lp": make_lp, "qp": make_qp, "socp": make_socp, "sdp": make_sdp}
_CACHE = {}


def case(kind, seed=0):
    """(model, clarabel solution, independent reference optimum), cached."""
    key = (kind, seed)
    if key not in _CACHE:
        out = MAKERS[kind](seed)
        m, ref = out[0], out[1]
        opt = _reference(ref)
        if kind == "sdp":
            assert abs(opt - out[2]) < 1e-7  # and the closed form agrees
        _CACHE[key] = (m, m.solve(backend="clarabel"), opt)
    return _CACHE[key]


# --------------------------------------------------------------------------- certified solutions
@pytest.mark.parametrize("kind", list(MAKERS))
@pytest.mark.parametrize("backend,solver,opts", BACKENDS, ids=lambda v: str(v) if not isinstance(v, dict) else "")
def test_solutions_certify(kind, backend, solver, opts):
    for seed in (0, 1):
        m, _, opt = case(kind, seed)
        sol = m.solve(backend=backend, solver=solver, **opts)
        cert = check(m, sol)
        assert cert.verdict == "certified", (kind, backend, solver, str(cert))
        assert abs(cert.primal_objective - opt) <= 1e-5 * (1 + abs(opt))
        assert {b.owner for b in cert.blocks} >= set(m.constraints)


@pytest.mark.parametrize("kind", list(MAKERS))
def test_interval_contains_optimum_and_is_tight(kind):
    for seed in (0, 1, 2):
        m, sol, opt = case(kind, seed)
        cert = check(m, sol)
        lo, hi = cert.interval
        slack = 1e-8 * (1 + abs(opt))  # the reference itself is only accurate to ~1e-10
        assert lo - slack <= opt <= hi + slack, (kind, seed, lo, opt, hi, cert.interval_notes)
        assert hi - lo <= 1e-6 * (1 + abs(opt)), (kind, seed, hi - lo, cert.interval_notes)


def test_interval_needs_a_bound_or_says_why():
    rng = np.random.default_rng(3)
    F, g = rng.normal(size=(6, 3)), rng.normal(size=6)
    x = Variable(3, "x")
    m = Model(minimize(norm2(F @ x - g)))  # unconstrained: nothing bounds x
    sol = m.solve()
    cert = check(m, sol)
    assert cert.verdict == "certified"
    if cert.interval[0] == -np.inf:
        assert any("x_bound" in n for n in cert.interval_notes)
    opt = np.linalg.norm(F @ np.linalg.lstsq(F, g, rcond=None)[0] - g)
    lo, hi = check(m, sol, x_bound=100.0).interval
    assert lo <= opt <= hi and hi - lo < 1e-5


def test_scs_interval_is_valid():
    m, _, opt = case("socp", 0)
    sol = m.solve(backend="cvxpy", solver="SCS")  # default (loose) SCS tolerances
    cert = check(m, sol)
    lo, hi = cert.interval
    assert lo <= opt + 1e-8 and opt - 1e-8 <= hi


# --------------------------------------------------------------------------- perturbations
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(list(MAKERS)), which=st.sampled_from(["x", "z"]),
       seed=st.integers(0, 2**31 - 1), size=st.floats(1e-4, 1e1))
def test_perturbed_solutions_are_not_certified(kind, which, seed, size):
    m, sol, opt = case(kind)
    rng = np.random.default_rng(seed)
    v = getattr(sol, which)
    d = rng.normal(size=v.size)
    pert = v + size * (1 + np.linalg.norm(v)) * d / np.linalg.norm(d)
    bad = dataclasses.replace(sol, **{which: pert})
    cert = check(sol.problem, bad, interval=False)
    assert cert.verdict != "certified", (kind, which, size, str(cert))
    # the interval stays rigorous whatever the (bad) input
    if size < 1:
        lo, hi = optimality_interval(sol.problem, bad.x, bad.z).lower, np.inf
        if which == "x":
            hi = optimality_interval(sol.problem, bad.x, bad.z).upper
        slack = 1e-8 * (1 + abs(opt))
        assert lo - slack <= opt <= hi + slack


# --------------------------------------------------------------------------- infeasible / unbounded
def test_infeasible_and_unbounded_verdicts():
    x = Variable(3, "x")
    inf = Model(minimize(x.sum()))
    inf.add(x >= 1, "lb"), inf.add(x.sum() <= 0, "cap")
    cert = check(inf, inf.solve())
    assert cert.verdict == "certified_infeasible" and cert.kind == "infeasibility"
    assert cert.farkas["no feasible x with ||x|| below"] > 1e6
    sol = inf.solve(backend="cvxpy")  # CVXPY's Clarabel duals come back as the Farkas ray (issue 13, item 5)
    assert sol.certificate is not None and check(inf, sol).verdict == "certified_infeasible"
    no_ray = dataclasses.replace(sol, certificate=None)  # a status without a ray proves nothing
    assert check(inf, no_ray).verdict == "failed"

    y = Variable(2, "y")
    unb = Model(minimize(y[0] - y[1]))
    unb.add(y[1] <= 1, "cap")
    cert = check(unb, unb.solve())
    assert cert.verdict == "certified_unbounded"

    # a claimed-optimal point of an infeasible problem is not certified
    sol = inf.solve()
    fake = dataclasses.replace(sol, status=case("lp")[1].status, x=np.zeros(3), z=np.zeros(4), certificate=None)
    assert check(inf, fake).verdict == "failed"


# --------------------------------------------------------------------------- dual recovery
@pytest.mark.parametrize("kind", list(MAKERS))
def test_recovered_duals_certify(kind):
    for seed in (0, 1):
        m, sol, opt = case(kind, seed)
        no_duals = dataclasses.replace(sol, z=None)
        cert = check(m, no_duals)
        assert cert.duals_recovered and cert.verdict == "certified", str(cert)
        lo, hi = cert.interval
        assert lo - 1e-8 <= opt <= hi + 1e-8
        z = recover_duals(sol.problem, sol.x)
        assert z.shape == sol.z.shape


# --------------------------------------------------------------------------- API
def test_certificate_output_and_errors():
    m, sol, _ = case("qp")
    cert = check(m, sol)
    assert isinstance(cert, Certificate) and "verdict: certified" in str(cert) and "budget" in cert.summary()
    d = json.loads(json.dumps(cert.to_json()))
    assert d["verdict"] == "certified" and len(d["interval"]) == 2
    with pytest.raises(InputError):
        check("not a model", sol)
    with pytest.raises(InputError):
        check(m, sol, tol=1e-2, tol_inaccurate=1e-4)
    other, _, _ = case("qp", 1)
    with pytest.raises(InputError):
        check(other, sol)  # a different problem than the one solved
    with pytest.raises(InputError):
        optimality_interval(sol.problem, sol.x[:-1], sol.z)
    loose = check(m, sol, tol=1e-14, tol_inaccurate=1e-2)
    assert loose.verdict == "inaccurate"


def test_cutting_plane_certificate_reports_oracle_violation():
    """Issue 3 item 4: a cutting-plane solution's certificate reports the worst violation over the whole set."""
    from certiprog import ForAll, LqEllipsoid, Model, Variable, minimize, sum_squares
    from certiprog.certify import check

    rng = np.random.default_rng(4)
    w = Variable(5, "w")
    model = Model(minimize(sum_squares(w)))
    for p in range(3):
        y = 1.0 if p % 2 == 0 else -1.0
        S = LqEllipsoid(y * (2 + rng.random(5)), np.linalg.qr(rng.standard_normal((5, 2)))[0], [0.8, 0.5], q=2)
        model.add(ForAll(S, lambda u, y=y: y * (w @ u) >= 1), name=f"m{p}")
    exact = model.solve()
    done = model.solve(forall="cutting_plane", cp_tol=1e-8, cp_max_iter=100)
    early = model.solve(forall="cutting_plane", cp_tol=1e-12, cp_max_iter=1)
    c_done, c_early = check(done.problem, done), check(early.problem, early)
    assert c_done.certified and set(c_done.semi_infinite) == {"m0", "m1", "m2"}
    assert max(v["max_violation_rel"] for v in c_done.semi_infinite.values()) <= 1e-7
    assert c_done.interval[0] <= exact.objective + 1e-7 and exact.objective <= c_done.interval[1] + 1e-7
    # one iteration: the master is solved exactly, but the oracle finds violated points
    assert max(v["max_violation_rel"] for v in c_early.semi_infinite.values()) > 1e-3
    assert not c_early.certified and c_early.interval[1] == np.inf
    assert c_early.interval[0] <= exact.objective + 1e-7  # the relaxation's lower end stays valid


def test_solution_dual_recovers_missing_duals_on_demand():
    """A solver without duals (SCIP) still answers sol.dual(name): recovered once from the primal point."""
    import numpy as np

    from certiprog import Model, Variable, minimize, sum_squares
    from certiprog.certify import check

    x = Variable(3, "x")
    m = Model(minimize(sum_squares(x - np.array([2.0, -1.0, 0.5]))))
    m.add(x.sum() <= 1.0, name="budget")
    ref = m.solve(backend="clarabel")
    sol = m.solve(backend="clarabel")
    sol.z = None  # as a backend without duals returns it
    assert abs(float(sol.dual("budget")) - float(ref.dual("budget"))) < 1e-5
    assert sol.duals_recovered and "duals_recovered" in sol.info
    assert check(m, sol).duals_recovered


def test_the_upper_end_repair_uses_the_registered_margin_solver_and_degrades_without_one(monkeypatch):
    """The certificates take the margin QP's solver as a registered function (no backend import): without one
    the repair finds no interior point and the upper end says so instead of failing."""
    import certiprog.certify.interior as D
    from certiprog.certify.upper_end import upper_bound
    from certiprog import Model, Variable, minimize

    x = Variable(2, name="x")
    m = Model(minimize(x.sum()), [x >= 1, x.sum() <= 3])
    sol = m.solve(backend="clarabel", solver="clarabel")
    bad = sol.x - 1e-4  # infeasible: the upper end must repair it through the margin problem
    calls = []
    real = D._MARGIN_SOLVER[0]
    monkeypatch.setattr(D, "_MARGIN_SOLVER", [lambda *a: calls.append(1) or real(*a)])
    up, why, _ = upper_bound(sol.problem, bad)
    assert calls and np.isfinite(up) and why == ""
    monkeypatch.setattr(D, "_MARGIN_SOLVER", [None])
    up, why, _ = upper_bound(sol.problem, bad)
    assert up == np.inf and "strictly feasible" in why
    with pytest.raises(TypeError):
        D.set_margin_solver(3)
