"""The PIQP backend (LP/QP, dense and sparse interfaces): answers and duals against Clarabel, the 'auto'
interface choice, statuses, refusals, and MCP's master QPs on it (the default when installed)."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("piqp")

from certiprog import BackendError, Model, Variable, minimize, norm2, sum_squares  # noqa: E402
from certiprog.certify import check  # noqa: E402
from certiprog.formulations import error_clumping, me2_dual  # noqa: E402
from certiprog.formulations.mcp_paper.manifolds import random_lq_ellipsoids  # noqa: E402
from certiprog.formulations.mcp_paper.programs import exact_backend, master_backend, mcp_simple, mcp_slack  # noqa: E402
from certiprog.solvers import solve_conic  # noqa: E402
from certiprog.solvers.backends import piqp_backend  # noqa: E402


def qp_model(seed, m=30, n=8):
    rng = np.random.default_rng(seed)
    A, b = rng.standard_normal((m, n)), rng.standard_normal(m)
    x = Variable(n, "x")
    model = Model(minimize(0.5 * sum_squares(A @ x - b) + rng.standard_normal(n) @ x), name="qp")
    model.add(x >= -0.3, name="lower")
    model.add(x <= 0.4, name="upper")
    model.add(x.sum() == 0.5, name="total")
    return model


@pytest.mark.parametrize("solver", ["dense", "sparse", None])
@given(seed=st.integers(0, 10_000))
@settings(max_examples=8, deadline=None, derandomize=True)
def test_qp_matches_clarabel_with_duals(solver, seed):
    model = qp_model(seed)
    ref = model.solve(backend="clarabel")
    sol = model.solve(backend="piqp", solver=solver)
    assert sol.status.termination == "optimal"
    assert sol.objective == pytest.approx(ref.objective, rel=1e-7, abs=1e-8)
    for name in ("lower", "upper", "total"):  # z in certiprog's convention: z >= 0 on <= rows, signs as Clarabel
        np.testing.assert_allclose(sol.dual(name), ref.dual(name), atol=3e-4)  # both certified; see check
    assert check(model, sol).verdict == "certified"


def test_auto_interface_follows_fill():
    dense_rows = Model(minimize(0.5 * sum_squares(Variable(40, "w"))), name="dense")
    w = dense_rows.variable("w")
    dense_rows.add(np.random.default_rng(0).standard_normal((60, 40)) @ w >= 1, name="cuts")
    assert dense_rows.solve(backend="piqp").info["interface"] == "dense"
    x = Variable(4000, "x")
    sparse = Model(minimize(0.5 * sum_squares(x) - x.sum()), name="sparse")
    sparse.add(sp.eye(4000, format="csr") @ x <= 0.5, name="box")
    sol = sparse.solve(backend="piqp")
    assert sol.info["interface"] == "sparse" and sol.objective == pytest.approx(4000 * (0.125 - 0.5), rel=1e-8)


def test_statuses_are_the_solvers_word():
    x = Variable(3, "x")
    infeasible = Model(minimize(x.sum()), name="infeasible")
    infeasible.add(x >= 1)
    infeasible.add(x.sum() <= 0)
    assert infeasible.solve(backend="piqp").status.termination == "infeasible"
    unbounded = Model(minimize(x.sum()), name="unbounded")
    unbounded.add(x <= 1)
    assert unbounded.solve(backend="piqp").status.termination == "unbounded"
    # Model.solve's own max_iter is the cutting-plane limit: PIQP's setting goes through solve_conic
    limited = solve_conic(qp_model(0).compile().assemble(), "piqp", None, max_iter=1)
    assert limited.status.termination == "iteration_limit" and limited.x is None


def test_refuses_cones_and_unknown_options():
    x = Variable(3, "x")
    socp = Model(minimize(norm2(x - 1)), name="socp")
    with pytest.raises(BackendError, match="soc"):
        socp.solve(backend="piqp")
    with pytest.raises(BackendError, match="unknown piqp option 'tolerance'"):
        qp_model(1).solve(backend="piqp", tolerance=1e-3)
    with pytest.raises(BackendError, match="not available for backend 'piqp'"):
        qp_model(1).solve(backend="piqp", solver="cholmod")


def test_paper_qps_match_clarabel():
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((40, 3)), np.where(rng.standard_normal(40) > 0, 1.0, -1.0)
    models = (error_clumping(X, y, rho=1.0, eta=1.0, lam=0.1),
              me2_dual(rng.standard_normal((12, 3)), np.zeros(3), mu=1.0, lam=0.5, B=4.0))
    for model in models:
        ref = model.solve(backend="clarabel")
        sol = model.solve(backend="piqp")
        assert sol.objective == pytest.approx(ref.objective, rel=1e-6, abs=1e-8), model.name
        assert check(model, sol).verdict == "certified", model.name


@pytest.mark.parametrize("C", [None, 1.0])
def test_mcp_masters_on_piqp_match_clarabel_and_certify(C):
    ms, y = random_lq_ellipsoids(8, 40, 5, 1.0 if C else 0.3, 2, rng=5)
    run = (lambda **kw: mcp_simple(ms, y, **kw)) if C is None else (lambda **kw: mcp_slack(ms, y, C, **kw))
    fast, ref = run(cuts="all", backend="piqp"), run(cuts="all", backend="clarabel")
    used = fast.solution.info["master_solvers"]  # piqp names the interface 'auto' picked for each master
    assert fast.solution.backend == "piqp" and set(used) <= {"piqp/dense", "piqp/sparse"}
    assert sum(used.values()) == len(fast.history)
    assert fast.status == ref.status == "converged"
    assert fast.objective == pytest.approx(ref.objective, rel=1e-5)
    cert = fast.certificate()  # the exact counterpart has cones: certiprog chooses a conic solver, not piqp
    assert cert["in_bracket"] and cert["exact_status"] == "optimal"
    assert exact_backend("piqp") == {"backend": None, "solver": None}
    assert exact_backend("cvxpy", "OSQP") == {"backend": "cvxpy", "solver": None}  # certiprog picks a conic one
    assert exact_backend("cvxpy", "scs") == {"backend": "cvxpy", "solver": "scs"}


def test_mcp_masters_left_to_the_chooser_go_to_piqp_once_dense():
    """master_backend() leaves the masters to `choose`: Clarabel while they are small, PIQP's dense interior point
    once the cut rows make them dense and large (`piqp_backend.dense_pays`), every answer confirmed."""
    from certiprog.solvers import choose

    assert master_backend() is None and master_backend("clarabel") == "clarabel"
    ms, y = random_lq_ellipsoids(12, 150, 5, 0.3, 2, rng=5)
    run = mcp_simple(ms, y, cuts="all")
    used = run.solution.info["master_solvers"]
    assert run.status == "converged" and sum(used.values()) == len(run.history)
    assert set(used) <= {"clarabel/clarabel", "piqp/dense"} and "piqp/dense" in used, used
    last = run.solution.problem
    assert piqp_backend.dense_pays(last) and choose(last)[0] == ("piqp", "auto")
    assert run.solution.verdict.startswith(("certified", "accurate", "inaccurate"))


def test_choose_interface_thresholds():
    x = Variable(piqp_backend.DENSE_MAX_N + 1, "x")
    big = Model(minimize(0.5 * sum_squares(x)), name="big")
    big.add(x >= 1)
    assert piqp_backend.choose_interface(big.compile().assemble()) == "sparse"


def test_available_backends_filters_by_the_models_cones():
    from certiprog.solvers import available_backends

    x = Variable(3, "x")
    socp = Model(minimize(norm2(x - 1)), name="socp")
    assert "piqp" in available_backends() and "piqp" in available_backends(model=qp_model(0))
    assert "piqp" not in available_backends(model=socp) and "clarabel" in available_backends(model=socp)
    assert available_backends(model=socp.compile().assemble()) == available_backends(model=socp)


def test_demo_skips_backends_that_refuse_the_cones():
    from certiprog.demo import demo_instances, run_demo

    rows = [r for r in run_demo() if r["backend"] == "piqp"]
    assert rows and all(r["verdict"] in ("certified", "accurate") for r in rows), rows
    qp_only = {label for label, m in demo_instances() if {c.kind for c in m.compile().assemble().cones} <= {"zero", "nonneg"}}
    assert {r["program"] for r in rows} == qp_only
