"""Solver options reach the solver and are checked (issue 13 item 5/6): ``max_iter`` goes to Clarabel/PIQP, the
cutting planes' own stopping rule is ``cp_tol`` / ``cp_max_iter``, bad values name the option, ``time_limit``
maps to every backend's own option, and the cvxpy backend passes on Farkas rays, Gurobi's decided statuses and
its size-limited licence."""
import importlib.util
import warnings

import numpy as np
import pytest

from certiprog import BackendError, ForAll, Model, ModelError, PointCloud, Variable, minimize, sum_squares
from certiprog.certify import check
from certiprog.solvers import available_solvers
from certiprog.solvers.backends import cvxpy_backend, licences, options
from certiprog.solvers.backends.cvxpy_backend import solve_cvxpy

HAS = {name: importlib.util.find_spec(pkg) is not None for name, pkg in
       (("piqp", "piqp"), ("cvxpy", "cvxpy"), ("pyomo", "pyomo"), ("gurobi", "gurobipy"), ("scip", "pyscipopt"),
        ("highs", "highspy"), ("scs", "scs"), ("osqp", "osqp"))}


def qp_model(seed=0, m=300, n=150):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n))
    y = Variable(n, "y")
    model = Model(minimize(sum_squares(A @ y - 1)), name="qp")
    model.add(y >= -1, name="lower")
    model.add(y <= 1, name="upper")
    return model


def infeasible_lp():
    x = Variable(3, "x")
    model = Model(minimize(x.sum()), name="infeasible")
    model.add(x >= 1, name="lower")
    model.add(x.sum() <= 1, name="total")
    return model


def unbounded_lp():
    x = Variable(3, "x")
    model = Model(minimize(x[0]), name="unbounded")
    model.add(x[1:] >= 1, name="lower")
    return model


def forall_model():
    rng = np.random.default_rng(1)
    w = Variable(2, "w")
    model = Model(minimize(0.5 * sum_squares(w)), name="forall")
    model.add(ForAll(PointCloud(rng.standard_normal((20, 2)) + 3.0), lambda u: w @ u >= 1), name="margin")
    return model


# --------------------------------------------------------------------------- options reach the solver
@pytest.mark.parametrize("backend", ["clarabel", pytest.param("piqp", marks=pytest.mark.skipif(
    not HAS["piqp"], reason="piqp not installed"))])
def test_max_iter_reaches_the_solver(backend):
    sol = qp_model(0, 30, 8).solve(backend=backend, max_iter=1)
    assert sol.status.termination == "iteration_limit" and sol.iterations == 1


@pytest.mark.parametrize("backend", ["clarabel", pytest.param("piqp", marks=pytest.mark.skipif(
    not HAS["piqp"], reason="piqp not installed"))])
@pytest.mark.parametrize("value, why", [("ten", "integer"), (-5, "positive"), (0, "positive"), (2.5, "integer"),
                                        (True, "integer")])
def test_bad_option_values_name_the_option(backend, value, why):
    with pytest.raises(BackendError, match=f"max_iter.*{why}"):
        qp_model(0, 30, 8).solve(backend=backend, max_iter=value)


@pytest.mark.parametrize("name, value", [("eps_abs", float("nan")), ("eps_abs", -1e-8), ("verbose", "yes")])
@pytest.mark.skipif(not HAS["piqp"], reason="piqp not installed")
def test_bad_piqp_settings(name, value):
    with pytest.raises(BackendError, match=name):
        qp_model(0, 30, 8).solve(backend="piqp", **{name: value})


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(BackendError, match="unknown clarabel option 'maxiter'.*max_iter"):
        qp_model(0, 30, 8).solve(backend="clarabel", maxiter=3)


def test_check_value_rules():
    options.check_value("s", "max_iter", 3, 10)
    options.check_value("s", "eps_abs", 1e-9, 1e-8)
    options.check_value("s", "verbose", True, False)
    for name, value, current in (("max_iter", 3.0, 10), ("eps_abs", "1e-9", 1e-8), ("verbose", 2, False),
                                 ("eps_abs", float("inf"), 1e-8), ("TimeLimit", -1, None), ("max_iters", "x", None)):
        with pytest.raises(BackendError, match=name):
            options.check_value("s", name, value, current)


@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), float("nan"), "10", True])
def test_time_limit_must_be_positive_finite_seconds(bad):
    with pytest.raises(BackendError, match="time_limit"):
        options.pop_time_limit({"time_limit": bad}, "x")
    with pytest.raises(BackendError, match="time_limit"):
        qp_model(0, 30, 8).solve(backend="clarabel", time_limit=bad)
    assert options.pop_time_limit({}, "x") is None


# --------------------------------------------------------------------------- cutting-plane option names
def test_cutting_plane_options_have_their_own_names():
    model = forall_model()
    done = model.solve(backend="clarabel", forall="cutting_plane", cp_tol=1e-8, cp_max_iter=50)
    assert done.info["termination"] == "converged"
    one = model.solve(backend="clarabel", forall="cutting_plane", cp_tol=1e-12, cp_max_iter=1)
    assert one.iterations == 1 and one.status.termination == "iteration_limit"
    for old in (dict(tol=1e-6), dict(max_iter=3)):
        with pytest.raises(ModelError, match="cp_tol= / cp_max_iter="):
            model.solve(backend="clarabel", forall="cutting_plane", **old)
    for bad in (dict(cp_tol=0.0), dict(cp_tol="x"), dict(cp_max_iter=0), dict(cp_max_iter=2.5)):
        with pytest.raises(ModelError, match=next(iter(bad))):
            model.solve(backend="clarabel", forall="cutting_plane", **bad)


def test_solver_options_reach_the_masters():
    sol = forall_model().solve(backend="clarabel", forall="cutting_plane", time_limit=1e-9)
    assert sol.info["termination"] == "master_time_limit"
    with pytest.raises(BackendError, match="time_limit"):
        forall_model().solve(backend="clarabel", forall="cutting_plane", time_limit=-1)


# --------------------------------------------------------------------------- time_limit on every backend
def _time_limited_pairs():
    """Every available solver with a time limit that stops it within a few iterations on `qp_model`."""
    wanted = {("clarabel", "clarabel"), ("cvxpy", "CLARABEL"), ("cvxpy", "OSQP"), ("cvxpy", "SCS"),
              ("cvxpy", "HIGHS"), ("cvxpy", "SCIP"), ("pyomo", "highs"), ("pyomo", "scip_direct")}
    return [p for p in available_solvers() if p in wanted]


@pytest.mark.parametrize("backend, solver", _time_limited_pairs())
def test_time_limit_stops_the_solver(backend, solver):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = qp_model().solve(backend=backend, solver=solver, time_limit=1e-6)
    assert sol.status.termination == "time_limit", sol.status
    assert sol.x is None


@pytest.mark.skipif(not HAS["piqp"], reason="piqp not installed")
def test_piqp_refuses_a_time_limit_and_the_chooser_moves_on():
    with pytest.raises(BackendError, match="piqp has no time limit"):
        qp_model(0, 30, 8).solve(backend="piqp", time_limit=10.0)
    sol = qp_model(0, 30, 8).solve(time_limit=10.0)
    assert sol.status.termination == "optimal" and sol.backend != "piqp"


@pytest.mark.skipif(not HAS["cvxpy"], reason="cvxpy not installed")
def test_cvxpy_solver_without_a_time_limit_says_so():
    opts, t = cvxpy_backend.solver_options("SCIP", {"time_limit": 2.0, "verbose": False})
    assert t == 2.0 and opts["scip_params"] == {"limits/time": 2.0}
    assert cvxpy_backend.solver_options("GUROBI", {"time_limit": 3})[0] == {"DualReductions": 0, "TimeLimit": 3.0}
    assert cvxpy_backend.solver_options("GUROBI", {"DualReductions": 1})[0] == {"DualReductions": 1}
    with pytest.raises(BackendError, match="PIQP has no time limit"):
        cvxpy_backend.solver_options("PIQP", {"time_limit": 1.0})
    with pytest.raises(BackendError, match="max_iter"):
        cvxpy_backend.solver_options("OSQP", {"max_iter": "ten"})


# --------------------------------------------------------------------------- what CVXPY's solvers know
@pytest.mark.skipif(not HAS["cvxpy"], reason="cvxpy not installed")
@pytest.mark.parametrize("solver", ["CLARABEL", "SCS"])
def test_cvxpy_farkas_rays_are_certificates(solver):
    if solver not in cvxpy_backend._solvers():
        pytest.skip(f"{solver} not installed")
    model = infeasible_lp()
    sol = model.solve(backend="cvxpy", solver=solver)
    assert sol.status.termination == "infeasible" and sol.certificate is not None
    assert check(model, sol).verdict == "certified_infeasible"
    assert sol.verdict == "certified_infeasible"


@pytest.mark.skipif(not HAS["gurobi"] or not HAS["cvxpy"] or licences.gurobi() is not None,
                    reason="Gurobi not usable here")
def test_cvxpy_gurobi_decides_infeasible_or_unbounded():
    assert infeasible_lp().solve(backend="cvxpy", solver="GUROBI").status.termination == "infeasible"
    assert unbounded_lp().solve(backend="cvxpy", solver="GUROBI").status.termination == "unbounded"


@pytest.mark.skipif(not HAS["gurobi"] or not HAS["cvxpy"] or licences.gurobi() is not None
                    or not licences._gurobi_state()[1], reason="needs gurobipy's size-limited licence")
def test_cvxpy_gurobi_size_limited_licence_is_a_backend_error():
    x = Variable(2500, "x")
    model = Model(minimize(x.sum()), name="big")
    model.add(x >= 1)
    with pytest.raises(BackendError, match="size-limited licence"):
        solve_cvxpy(model.compile().assemble(), "GUROBI")
