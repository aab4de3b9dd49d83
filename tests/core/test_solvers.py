"""Compiler and backends: every atom and cone against an independent CVXPY model; registry; ForAll."""
import cvxpy as cp
import numpy as np
import pytest

import certiprog as cpg
from certiprog import (
    SOC, BackendError, ForAll, LqEllipsoid, Model, OracleSet, PointCloud, Variable, available_backends, minimize,
    norm1, norm2, norm_inf, pnorm, pos, quad_form, quad_over_lin, sum_squares,
)
from certiprog.solvers import registered_backends

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
    cut = model.solve(forall="cutting_plane", tol=1e-7, max_iter=200)
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
    sol = model.solve(forall="cutting_plane", tol=1e-12, max_iter=2)
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
