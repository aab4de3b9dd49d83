"""Compiler and backends: every atom and cone against an independent CVXPY model; registry; ForAll."""
import cvxpy as cp
import numpy as np
import pytest

import certiprog as cpg
from certiprog import (
    SOC, BackendError, ForAll, LqEllipsoid, Model, OracleSet, PointCloud, Variable, available_backends, minimize,
    norm1, norm2, norm_inf, pnorm, pos, quad_form, quad_over_lin, sum_squares,
)
from certiprog.solvers import (
    Needs, SolverCapabilities, available_solvers, choose, registered_backends, registry, solve_conic,
)
from certiprog.solvers.registry import needs

BACKENDS = ["clarabel", "cvxpy"]


def rel(a, b):
    return abs(a - b) / (1 + abs(b))


def _atom_models(rng):
    n = 5
    A = rng.standard_normal((8, n))
    y = rng.standard_normal(8)
    Q = rng.standard_normal((n, n))
    Q = Q @ Q.T + 0.1 * np.eye(n)
    x = Variable(n, "x")
    t = Variable((), "t")
    xc = cp.Variable(n)
    tc = cp.Variable()
    yield (Model(minimize(sum_squares(A @ x - y) + norm1(x))),
           cp.Problem(cp.Minimize(cp.sum_squares(A @ xc - y) + cp.norm1(xc))))
    yield (Model(minimize(pos(1 - A @ x).sum() + 0.5 * quad_form(x, Q))),
           cp.Problem(cp.Minimize(cp.sum(cp.pos(1 - A @ xc)) + 0.5 * cp.quad_form(xc, Q))))
    yield (Model(minimize(norm2(A @ x - y)), [norm_inf(x) <= 0.3]),
           cp.Problem(cp.Minimize(cp.norm2(A @ xc - y)), [cp.norm_inf(xc) <= 0.3]))
    yield (Model(minimize(pnorm(A @ x - y, 3)), [pnorm(x, 1.5) <= 1]),
           cp.Problem(cp.Minimize(cp.pnorm(A @ xc - y, 3)), [cp.pnorm(xc, 1.5) <= 1]))
    yield (Model(minimize(quad_over_lin(x - 1, t) + t), [t <= 4]),
           cp.Problem(cp.Minimize(cp.quad_over_lin(xc - 1, tc) + tc), [tc <= 4]))
    yield (Model(minimize(x @ y[:n]), [SOC(1.0, x), quad_form(x, Q) <= 2.0]),
           cp.Problem(cp.Minimize(xc @ y[:n]), [cp.norm(xc) <= 1, cp.quad_form(xc, Q) <= 2.0]))
    S = Variable((3, 3), "S", symmetric=True)
    Sc = cp.Variable((3, 3), symmetric=True)
    C = rng.standard_normal((3, 3))
    C = C + C.T
    yield (Model(minimize((C @ S).trace()), [S >> 0, S.trace() == 1]),
           cp.Problem(cp.Minimize(cp.trace(C @ Sc)), [Sc >> 0, cp.trace(Sc) == 1]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_atoms_and_cones_match_independent_cvxpy(backend):
    rng = np.random.default_rng(7)
    for model, ref in _atom_models(rng):
        ref.solve(solver=cp.CLARABEL)
        sol = model.solve(backend=backend)
        assert sol.status == "optimal", sol
        assert rel(sol.objective, ref.value) <= 1e-6, (model, sol.objective, ref.value)


def test_maximize_and_duals_in_one_convention():
    """Duals agree across backends and satisfy the documented Lagrangian f - <z, s>."""
    rng = np.random.default_rng(3)
    c = rng.standard_normal(4)
    x = Variable(4, "x")
    m = Model(maximize_expr := cpg.maximize(c @ x - sum_squares(x)), [x.sum() == 1, x >= -0.2, norm2(x) <= 2])
    assert maximize_expr.sense == "maximize"
    sols = [m.solve(backend=b) for b in BACKENDS]
    for name in ("c0", "c1", "c2"):
        np.testing.assert_allclose(sols[0].dual(name), sols[1].dual(name), atol=1e-5)
    # stationarity of the minimisation form: grad(-f) = sum_i z_i grad s_i
    xv = sols[0].value("x")
    grad = -(c - 2 * xv)
    z_eq, z_ge = sols[0].dual("c0"), sols[0].dual("c1")
    z_soc = sols[0].dual("c2")  # cone dual (lambda) of norm2(x) <= 2 through its epigraph
    assert z_ge.shape == (4,) and np.all(z_ge >= -1e-8)
    assert np.ndim(z_soc) == 0 and z_soc >= -1e-8
    gnorm = xv / np.linalg.norm(xv)
    np.testing.assert_allclose(grad, z_eq * np.ones(4) + z_ge - z_soc * gnorm, atol=1e-5)


def test_registry_errors_list_alternatives():
    assert {"clarabel", "cvxpy"} <= set(available_backends())
    info = registered_backends()["clarabel"]
    assert info.duals and "soc" in info.cones and info.licence is None
    x = Variable(2, "x")
    m = Model(minimize(x.sum()), [x >= 0])
    with pytest.raises(BackendError, match="available here"):
        m.solve(backend="no-such-backend")
    with pytest.raises(BackendError, match="CLARABEL"):
        m.solve(backend="cvxpy", solver="NO_SUCH_SOLVER")
    with pytest.raises(BackendError, match="valid options"):
        m.solve(backend="clarabel", not_an_option=1)


def test_solution_fields_and_save_roundtrip(tmp_path):
    x = Variable(3, "x")
    sol = Model(minimize(sum_squares(x - 1)), [x <= 0.5]).solve()
    assert sol.status.termination == "optimal" and sol.status.primal == "feasible" and sol.status.dual == "feasible"
    assert sol.solver == "clarabel" and sol.solver_version and sol.iterations > 0
    assert sol.compile_time > 0 and sol.solve_time > 0
    np.testing.assert_allclose(x.value, 0.5, atol=1e-6)
    sol.save(str(tmp_path / "s"))
    from certiprog.solvers.solution import load_solution_data

    back = load_solution_data(str(tmp_path / "s"))
    np.testing.assert_allclose(back["x"], sol.x)
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    with pytest.raises(cpg.ModelError, match="not a certiprog solution"):
        load_solution_data(str(tmp_path / "bad"))


def _mcp_like(rng, q, method):
    """Max-margin separation of Lq ellipsoids through the origin (001 eq. 2.1 shape)."""
    D, m, P = 6, 3, 4
    w = Variable(D, "w")
    model = Model(minimize(sum_squares(w)), name="ellipsoids")
    sets = []
    for mu in range(P):
        y = 1.0 if mu % 2 == 0 else -1.0
        c = y * (2.0 + rng.random(D))
        U = np.linalg.qr(rng.standard_normal((D, m)))[0]
        S = LqEllipsoid(c, U, 0.8 * rng.random(m) + 0.2, q=q)
        sets.append(S)
        model.add(ForAll(S, lambda u, y=y: y * (w @ u) >= 1), name=f"manifold{mu}")
    return model, sets


@pytest.mark.parametrize("q", [1.0, 1.5, 2.0, 3.0, np.inf])
def test_forall_exact_matches_cutting_planes(q):
    rng = np.random.default_rng(11)
    model, sets = _mcp_like(rng, q, "exact")
    exact = model.solve(forall="exact")
    cut = model.solve(forall="cutting_plane", cp_tol=1e-7, cp_max_iter=200)
    assert exact.status == "optimal" and cut.info["termination"] == "converged"
    # the master problem is a relaxation: its objective never exceeds the exact one
    assert cut.objective <= exact.objective * (1 + 1e-6)
    assert rel(cut.objective, exact.objective) <= 1e-5
    assert len(cut.history) == cut.iterations and cut.history[-1]["max_violation"] <= 1e-7
    # the exact solution satisfies every sampled point of every ellipsoid
    wv = exact.value("w")
    for mu, S in enumerate(sets):
        pts = S.sample(500, np.random.default_rng(mu))
        y = 1.0 if mu % 2 == 0 else -1.0
        assert np.min(y * pts @ wv) >= 1 - 1e-6


def test_lq_oracle_matches_brute_force():
    rng = np.random.default_rng(5)
    for q in (1.0, 1.5, 2.0, 4.0, np.inf):
        S = LqEllipsoid(rng.standard_normal(5), rng.standard_normal((5, 3)), rng.random(3) + 0.1, q=q)
        a = rng.standard_normal(5)
        u, val = S.minimize_linear(a)
        brute = np.min(S.sample(20000, rng) @ a)
        assert val <= brute + 1e-9 and val >= brute - 0.5 * abs(brute) - 0.5
        s = np.linalg.lstsq(S.V, u - S.center, rcond=None)[0]
        assert np.linalg.norm(s, ord=q) <= 1 + 1e-9


def test_forall_point_cloud_and_oracle_set():
    rng = np.random.default_rng(8)
    pts = rng.standard_normal((50, 3)) + 3.0
    w = Variable(3, "w")
    exact = Model(minimize(sum_squares(w)), [ForAll(PointCloud(pts), lambda u: w @ u >= 1)]).solve()
    ref_w = cp.Variable(3)
    ref = cp.Problem(cp.Minimize(cp.sum_squares(ref_w)), [pts @ ref_w >= 1])
    ref.solve(solver=cp.CLARABEL)
    assert rel(exact.objective, ref.value) <= 1e-6
    cloud = PointCloud(pts)
    oracle = OracleSet(lambda a: cloud.minimize_linear(a)[0], pts[:1])
    w2 = Variable(3, "w")
    cut = Model(minimize(sum_squares(w2)), [ForAll(oracle, lambda u: w2 @ u >= 1)]).solve(progress=False)
    assert cut.info["termination"] == "converged" and rel(cut.objective, ref.value) <= 1e-5
    assert cut.dual(cut.problem.blocks[-1].owner).shape == (len(cut.cuts[cut.problem.blocks[-1].owner]),)


def test_cutting_plane_iteration_limit_is_a_status():
    rng = np.random.default_rng(9)
    model, _ = _mcp_like(rng, 2.0, "cut")
    sol = model.solve(forall="cutting_plane", cp_tol=1e-12, cp_max_iter=2)
    assert sol.info["termination"] == "iteration_limit" and sol.status == "iteration_limit"
    assert len(sol.history) == 2


def test_forall_rejects_non_affine_and_bad_sets():
    w = Variable(3, "w")
    with pytest.raises(cpg.ShapeError):
        ForAll(np.eye(3), lambda u: w @ u >= 1)
    with pytest.raises(cpg.InputError, match="q must be >= 1"):
        LqEllipsoid(np.zeros(3), np.eye(3), np.ones(3), q=0.5)
    with pytest.raises(cpg.InputError, match="radii"):
        LqEllipsoid(np.zeros(3), np.eye(3), np.ones(2))
    with pytest.raises(cpg.DCPError):
        ForAll(PointCloud(np.eye(3)), lambda u: norm2(w) >= w @ u)


def test_unlicensed_backend_is_registered_but_not_listed_as_available():
    from certiprog.solvers import registry

    fake = registry.Backend(name="_unlicensed", solve=lambda p, s, o: None, cones=frozenset({"zero"}), duals=True,
                            licence="a licence file", licence_check=lambda: "no licence at /nowhere/x.lic")
    registry.register(fake)
    try:
        assert "_unlicensed" not in registry.available_backends()
        assert "_unlicensed" in registry.available_backends(licensed=False)
        assert registry.get_backend("_unlicensed") is fake  # it can still build/export; solving says why not
        assert fake.licence_problem() == "no licence at /nowhere/x.lic"
    finally:
        registry._REGISTRY.pop("_unlicensed")


# --------------------------------------------------------------------------- capabilities and the one chooser
CONFIRMING = ("certified", "accurate", "inaccurate")  # the verdicts `fallback.confirmed` accepts
GOOD = ("certified", "accurate")  # what the cheap check (no interval) gives a solver's accurate answer


def _tiny_models() -> dict:
    """One small model per problem class: LP, QP, SOCP, power cone, PSD (each with a unique optimum)."""
    from certiprog import PowerCone3D

    x = Variable(3, "x")
    S = Variable((2, 2), "S", symmetric=True)
    C = np.array([[2.0, 0.5], [0.5, 1.0]])
    return {
        "lp": Model(minimize(np.array([1.0, 2.0, -1.0]) @ x), [x >= -1, x <= 1, x.sum() == 0.5]),
        "qp": Model(minimize(sum_squares(x - np.array([1.0, 2.0, 3.0]))), [x.sum() <= 1, x >= -2]),
        "socp": Model(minimize(np.array([1.0, -2.0, 0.5]) @ x), [norm2(x - 1) <= 1]),
        "pow": Model(minimize(-x[2]), [PowerCone3D(x[0], x[1], x[2], 0.4), x[:2] <= 1]),
        "psd": Model(minimize((C @ S).trace()), [S >> 0, S.trace() == 1]),
    }


def _infeasible_lp():
    x = Variable(2, "x")
    return Model(minimize(x.sum()), [x >= 1, x.sum() <= 0])


def _pair_id(pair):
    return f"{pair[0]}-{pair[1]}"


@pytest.mark.parametrize("pair", available_solvers(), ids=_pair_id)
def test_capability_declarations_match_what_each_installed_solver_does(pair):
    """Declared capable: solves each class to the reference optimum, with duals iff declared; declared incapable:
    a BackendError before solving; rays iff declared (on an infeasible LP)."""
    backend, solver = pair
    caps = registered_backends()[backend].capabilities_of(solver)
    for kind, model in _tiny_models().items():
        problem = model.compile().assemble()
        if caps.refusal(needs(problem)):
            with pytest.raises(BackendError, match="does not (take|support)"):
                solve_conic(problem, backend, solver)
            assert pair not in available_solvers(problem) and pair not in choose(problem)
            continue
        assert pair in available_solvers(problem)
        ref = solve_conic(problem, "clarabel", "clarabel")
        sol = solve_conic(problem, backend, solver)
        where = f"{backend}/{solver} on {kind}: {sol.status}"
        assert sol.status == "optimal", where
        assert rel(sol.objective, ref.objective) <= 1e-3, (where, sol.objective, ref.objective)
        assert sol.verdict.startswith(CONFIRMING), (where, sol.verdict)
        assert (sol.z is not None) == caps.duals, where
    sol = solve_conic(_infeasible_lp().compile().assemble(), backend, solver)
    assert sol.status.termination in ("infeasible", "infeasible_or_unbounded"), (pair, sol.status)
    assert (sol.certificate is not None) == caps.rays, pair
    if caps.rays:
        assert sol.verdict.endswith("_infeasible") and sol.verdict.startswith(CONFIRMING)


def test_available_backends_follow_the_solvers_that_take_the_model():
    models = _tiny_models()
    for kind, model in models.items():
        pairs = available_solvers(model)
        assert available_backends(model=model) == [b for b in available_backends() if b in {p[0] for p in pairs}]
        assert set(choose(model.compile().assemble())) <= set(pairs), kind
    assert "piqp" in available_backends(model=models["qp"]) and "piqp" not in available_backends(model=models["socp"])
    assert available_solvers(models["socp"]) == available_solvers(models["socp"].compile().assemble())
    assert ("clarabel", "clarabel") in available_solvers(Needs(cones=frozenset({"zero", "psd"}), quadratic=True))
    with pytest.raises(cpg.InputError, match="Model, a ConicProblem or a Needs"):
        available_solvers("socp")


def test_choose_orders_by_preference_one_pair_per_engine():
    models = _tiny_models()
    for kind, model in models.items():
        pairs = choose(model.compile().assemble())
        assert pairs[0] == ("clarabel", "clarabel"), kind  # rays and duals: first whenever it takes the problem
        engines = [registered_backends()[b].capabilities_of(s).engine for b, s in pairs]
        assert len(engines) == len(set(engines)), (kind, pairs)
    # PIQP's dense interface goes first on a large dense QP (a cutting-plane master), not on a small one
    rng = np.random.default_rng(0)
    w = Variable(120, "w")
    master = Model(minimize(0.5 * sum_squares(w)), {"cuts": (rng.standard_normal((200, 120)) + 0.5) @ w >= 1})
    assert choose(master.compile().assemble())[0] == ("piqp", "auto")
    assert choose(models["qp"].compile().assemble())[0] == ("clarabel", "clarabel")
    sol = master.solve()
    assert sol.backend == "piqp" and sol.chosen.label == "piqp/auto"
    assert sol.verdict in GOOD
    assert choose(master.compile().assemble(), backend="cvxpy")[0] == ("cvxpy", "CLARABEL")


def _liar(lie: str):
    """A backend whose one solver lies: 'unbounded' with no ray, 'optimal' at x = 0, or refuses (licence)."""
    from certiprog.solvers.backends.common import make_solution

    def solve(problem, solver, options):
        if lie == "refuses":
            raise BackendError("liar: no licence here")
        if lie == "unbounded":
            return make_solution(problem, "unbounded", None, None, None, backend="_liar", solver="lie")
        x = np.zeros(problem.n)
        return make_solution(problem, "optimal", x, np.zeros(problem.m), problem.b - problem.A @ x,
                             backend="_liar", solver="lie")

    caps = SolverCapabilities("liar", cones=frozenset({"zero", "nonneg", "soc"}), preferred=lambda problem: True)
    return registry.Backend(name="_liar", solve=solve, cones=caps.cones, duals=True, solvers=lambda: ["lie"],
                            capabilities={"lie": caps})


def _qp():
    x = Variable(3, "x")
    return Model(minimize(sum_squares(x - 1)), [x <= 0.5])


@pytest.mark.parametrize("lie,why", [("unbounded", "no verified ray"), ("optimal", "failed"), ("refuses", None)])
def test_a_lying_solver_makes_the_chooser_move_on_and_say_so(lie, why, monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "_liar", _liar(lie))
    model = _qp()
    assert choose(model.compile().assemble())[0] == ("_liar", "lie")  # tried first: it says it is preferred
    sol = model.solve()
    first, chosen = sol.attempts[0], sol.chosen.label
    assert first.label == "_liar/lie" and chosen == "clarabel/clarabel" and sol.backend == "clarabel"
    if why is None:
        assert "no licence" in first.error
    else:
        assert first.termination == lie and why in first.rejected
    assert sol.status == "optimal" and sol.verdict in GOOD
    np.testing.assert_allclose(model.variable("x").value, 0.5, atol=1e-6)
    np.testing.assert_allclose(sol.objective, model.solve(backend="clarabel").objective, rtol=1e-9)


def test_a_named_solver_gets_its_own_answer_with_the_verdict(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "_liar", _liar("optimal"))
    model = _qp()
    sol = model.solve(backend="_liar", solver="lie")
    assert sol.backend == "_liar" and not sol.attempts and sol.verdict == "failed"
    np.testing.assert_allclose(sol.x, 0.0)
    alone = model.solve(solver="lie")  # the one backend that offers it
    assert alone.backend == "_liar" and alone.verdict == "failed"
    # naming only the backend: certiprog chooses within it; nothing else there, so the answer comes back unconfirmed
    within = model.solve(backend="_liar")
    assert within.backend == "_liar" and "unconfirmed" in within.fallback_note
    ref = model.solve(backend="clarabel", solver="clarabel")
    assert ref.verdict in GOOD and not ref.attempts
    same = model.solve(backend="clarabel")
    assert [a.label for a in same.attempts] == ["clarabel/clarabel"]
    np.testing.assert_array_equal(same.x, ref.x)


def test_fallback_stops_after_max_answers_and_returns_the_first():
    from certiprog.solvers.backends.common import make_solution
    from certiprog.solvers.fallback import MAX_ANSWERS, first_confirmed

    problem = _qp().compile().assemble()
    calls = []

    def unbounded(label):
        calls.append(label)
        return make_solution(problem, "unbounded", None, None, None, backend="fake", solver=label)

    cands = [(f"s{i}", lambda i=i: unbounded(f"s{i}")) for i in range(MAX_ANSWERS + 2)]
    sol = first_confirmed(problem, cands, max_answers=MAX_ANSWERS)
    assert calls == [f"s{i}" for i in range(MAX_ANSWERS)] and sol.solver == "s0"
    assert sol.chosen.label == "s0" and sol.verdict == "failed"


def test_solver_names_without_a_backend():
    model = _qp()
    assert model.solve(solver="clarabel").backend == "clarabel"  # the direct interface, not CVXPY's CLARABEL
    assert model.solve(solver="sparse").backend == "piqp"
    assert model.solve(backend="piqp", solver="DENSE").solver == "dense"  # the backend's own spelling
    with pytest.raises(BackendError, match="no available backend offers the solver 'nope'"):
        model.solve(solver="nope")
    owners = [b for b, s in available_solvers() if s.upper() == "HIGHS"]
    if len(owners) > 1:
        with pytest.raises(BackendError, match="name one with backend="):
            model.solve(solver="highs")


def test_a_named_solver_that_cannot_take_the_problem_is_refused_before_solving():
    x = Variable(3, "x")
    socp = Model(minimize(x.sum()), [norm2(x) <= 1])
    with pytest.raises(BackendError, match=r"cvxpy/OSQP does not take this problem: it takes no \['soc'\] cone"):
        socp.solve(backend="cvxpy", solver="osqp")
    with pytest.raises(BackendError, match=r"backend 'piqp' does not support the cone\(s\) \['soc'\]"):
        socp.solve(backend="piqp", solver="dense")
    with pytest.raises(BackendError, match=r"backend 'piqp' does not support the cone\(s\) \['soc'\]"):
        socp.solve(backend="piqp")


def test_cvxpy_solvers_are_listed_without_importing_cvxpy_and_agree_with_it():
    import cvxpy as cp

    from certiprog.solvers.backends import cvxpy_backend

    listed = registered_backends()["cvxpy"].solvers()
    assert set(listed) == set(cp.installed_solvers()) & set(cvxpy_backend.CAPABILITIES)
    assert set(cvxpy_backend.PACKAGES) == set(cvxpy_backend.CAPABILITIES)


def _sloppy():
    """A backend whose one solver stops early: Clarabel's answer moved off the optimum by 1e-4 (an 'inaccurate'
    verdict), so the chooser must try the next solver and keep the sloppy answer only as a last resort."""
    from certiprog.solvers.backends.common import make_solution

    def solve(problem, solver, options):
        ref = solve_conic(problem, "clarabel", "clarabel")
        x = ref.x - 1e-4
        return make_solution(problem, "optimal", x, ref.z, problem.b - problem.A @ x, backend="_sloppy",
                             solver="sloppy")

    caps = SolverCapabilities("sloppy", cones=frozenset({"zero", "nonneg", "soc"}), preferred=lambda problem: True)
    return registry.Backend(name="_sloppy", solve=solve, cones=caps.cones, duals=True, solvers=lambda: ["sloppy"],
                            capabilities={"sloppy": caps})


def test_an_inaccurate_answer_makes_the_chooser_try_the_next_solver(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "_sloppy", _sloppy())
    model = _qp()
    named = model.solve(backend="_sloppy", solver="sloppy")
    assert named.verdict.startswith("inaccurate"), named.verdict  # the premise of this test
    sol = model.solve()
    attempts = sol.attempts
    assert attempts[0].label == "_sloppy/sloppy" and attempts[0].verdict.startswith("inaccurate")
    assert sol.backend == "clarabel" and sol.verdict in GOOD
    # nothing better inside the one backend: the inaccurate answer comes back, labelled as such
    within = model.solve(backend="_sloppy")
    assert within.backend == "_sloppy" and within.verdict.startswith("inaccurate")
    assert "inaccurate" in within.fallback_note
