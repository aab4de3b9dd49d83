"""General programs written the way a user writes them (issue 21): no silent wrong model, no unconfirmed "optimal".

Each test builds a model as a new user would (chained comparisons, numpy calls, sparse data, unknown options,
near-infeasible and near-unbounded data, 1e-8 / 1e8 scaling) and asserts the status, the certificate's verdict
(`Solution.verdict`, `check`) and that bad input raises a certiprog error. The reference optima come from CVXPY +
Clarabel, an independent modelling layer, where a value is compared.
"""

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import certiprog
from certiprog import (
    DCPError, InputError, ModelError, Model, Parameter, SOC, Variable, exp, maximize, minimize, norm2, quad_form,
)
from certiprog.certify import check
from certiprog.errors import BackendError, OptionError

pytestmark = pytest.mark.random


# ------------------------------------------------------------------------------------------ chained comparisons
@pytest.mark.parametrize("build", [
    lambda x: 0 <= x <= 1,
    lambda x: 1 >= x >= 0,
    lambda x: x[0] == x[1] == 0,
    lambda x: 0 <= x.sum() <= 3,
    lambda x: Parameter(name="lo", value=0.0) <= x[0] <= 1,
])
def test_a_chained_comparison_raises_instead_of_dropping_a_constraint(build):
    x = Variable(3, name="x")
    with pytest.raises(ModelError, match="chained comparison"):
        build(x)


def test_truth_testing_any_constraint_raises():
    x = Variable(2, name="x")
    for con in (x <= 1, x >= 0, x == 1, SOC(x[0], x[1:])):
        with pytest.raises(ModelError, match="no truth value"):
            bool(con)
    with pytest.raises(ModelError):
        if x <= 1:
            pass


def test_the_two_constraint_spelling_solves_and_certifies():
    x = Variable(3, name="x")
    m = Model(minimize(-x.sum()), [0 <= x, x <= 1])
    sol = m.solve()
    assert sol.status == "optimal" and sol.verdict == "certified"
    np.testing.assert_allclose(sol.value(x), np.ones(3), atol=1e-7)


# ------------------------------------------------------------------------------------------------------ options
def _box_lp():
    x = Variable(3, name="x")
    return Model(minimize(x.sum()), [x >= 0, x <= 1]), x


@pytest.mark.parametrize("kwargs", [dict(), dict(backend="cvxpy"), dict(backend="clarabel"),
                                    dict(backend="cvxpy", solver="CLARABEL"), dict(backend="piqp")])
def test_an_option_no_solver_accepts_raises_an_option_error(kwargs):
    m, _ = _box_lp()
    with pytest.raises(OptionError, match="foo_bar") as info:
        m.solve(foo_bar=3, **kwargs)
    assert isinstance(info.value, InputError) and isinstance(info.value, BackendError)


def test_a_named_cvxpy_solver_raises_certiprogs_own_option_error_without_the_chain():
    m, _ = _box_lp()
    with pytest.raises(OptionError) as info:
        m.solve(backend="cvxpy", solver="CLARABEL", foo_bar=3)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_no_solve_runs_when_no_candidate_accepts_the_options(monkeypatch):
    import clarabel

    calls = []
    real = clarabel.DefaultSolver

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(clarabel, "DefaultSolver", counting)
    m, _ = _box_lp()
    with pytest.raises(OptionError):
        m.solve(backend="clarabel", foo_bar=3)
    assert calls == []


def test_an_option_one_candidate_accepts_is_used_and_the_rest_skip():
    m, _ = _box_lp()
    sol = m.solve(tol_gap_abs=1e-9)  # a Clarabel setting: Clarabel takes it, others would refuse
    assert sol.status == "optimal" and sol.chosen.label.startswith("clarabel")


def test_a_bad_option_value_is_an_option_error():
    m, _ = _box_lp()
    with pytest.raises(OptionError, match="max_iter"):
        m.solve(backend="clarabel", max_iter="ten")


# ------------------------------------------------------------------------- status, verdict and check() agree
def _lp_infeasible_by(margin: float):
    y = Variable(2, name="y")
    return Model(minimize(y.sum() + 1), [y >= 1, y[0] + y[1] <= 2 - margin]), y


@pytest.mark.parametrize("backend", [None, "clarabel", "piqp", "pyomo"])
def test_an_lp_infeasible_by_1e9_is_not_reported_optimal(backend):
    if backend == "pyomo":
        pytest.importorskip("pyomo")
    m, _ = _lp_infeasible_by(1e-9)
    sol = m.solve(backend=backend)
    cert = check(m, sol)
    assert sol.status != "optimal"
    if sol.x is not None:  # the solvers return a point within their tolerance: it is not proved
        assert sol.status == "unconfirmed" and sol.status.ok
        assert not cert.certified
        assert sol.info.get("solver_termination") in ("optimal", "inaccurate")
        assert cert.interval_notes  # the reason is given
    assert sol.verdict == cert.verdict  # one verdict: status, sol.verdict and check() agree


def test_the_infeasible_point_is_explained_by_the_interval():
    m, _ = _lp_infeasible_by(1e-9)
    sol = m.solve(backend="clarabel")
    notes = " ".join(sol.certification.interval_notes)
    assert "upper end" in notes or "below" in notes


def test_a_clearly_infeasible_lp_is_infeasible_with_a_proof():
    m, _ = _lp_infeasible_by(1.0)
    sol = m.solve()
    assert sol.status == "infeasible" and sol.verdict.startswith("certified")


def test_an_unbounded_lp_is_unbounded_and_its_verdict_agrees_with_check():
    x = Variable(2, name="x")
    m = Model(minimize(-x.sum()), [x >= 0, x[0] - x[1] <= 1])
    sol = m.solve()
    assert sol.status == "unbounded"
    assert sol.verdict == check(m, sol).verdict


def test_check_returns_the_certificate_computed_at_solve_time_while_nothing_changed():
    m, x = _box_lp()
    sol = m.solve()
    first = check(m, sol)
    assert first.verdict == sol.verdict == "certified"
    assert first is not sol.certification  # a copy: editing it cannot change the solution's
    sol.x = sol.x + 0.5  # a moved point is checked again
    assert check(m, sol).verdict != "certified"


def test_named_solver_answers_carry_the_full_verdict():
    m, _ = _box_lp()
    sol = m.solve(backend="clarabel", solver="clarabel")
    assert sol.verdict == sol.verdict == check(m, sol).verdict == "certified"


# ----------------------------------------------------------------------------------------------- numpy calls
def _compiled(model):
    p = model.compile().assemble()
    return p.A.toarray(), p.b, p.q


def test_numpy_reductions_on_expressions_build_the_same_model_as_the_methods():
    X = Variable((3, 4), name="X")
    A = np.arange(12.0).reshape(3, 4)
    pairs = [
        (np.sum(X), X.sum()), (np.sum(X, axis=0), X.sum(axis=0)), (np.mean(X), X.sum() / 12),
        (np.trace(X[:, :3]), X[:, :3].trace()), (np.transpose(X), X.T), (np.reshape(X, (4, 3)), X.reshape((4, 3))),
        (np.ravel(X), X.reshape((12,))), (np.diag(X[:, :3]), X[:, :3].diag()),
    ]
    for got, want in pairs:
        assert got.shape == want.shape
        m1 = Model(minimize(0), [got <= np.ones(got.shape), X <= A])
        m2 = Model(minimize(0), [want <= np.ones(want.shape), X <= A])
        for a, b in zip(_compiled(m1), _compiled(m2)):
            np.testing.assert_array_equal(a, b)


def test_numpy_reshape_order_f_follows_numpy():
    X = Variable((2, 3), name="X")
    val = np.arange(6.0).reshape(2, 3)
    m = Model(minimize(0), [X == val])
    m.solve()
    got = np.reshape(X, (3, 2), order="F").value
    np.testing.assert_allclose(got, np.reshape(val, (3, 2), order="F"), atol=1e-8)


def test_numpy_norm_and_sum_solve_like_cvxpy():
    rng = np.random.default_rng(1)
    A, b = rng.normal(size=(8, 5)), rng.normal(size=8)
    x = Variable(5, name="x")
    m = Model(minimize(np.linalg.norm(A @ x - b) + np.sum(x)), [x >= -1])
    sol = m.solve()
    xc = cp.Variable(5)
    ref = cp.Problem(cp.Minimize(cp.norm(A @ xc - b) + cp.sum(xc)), [xc >= -1]).solve(solver="CLARABEL")
    assert sol.status == "optimal" and sol.verdict == "certified"
    assert abs(sol.objective - ref) <= 1e-6 * max(1.0, abs(ref))


@pytest.mark.parametrize("call, fix", [
    (lambda x: np.cumsum(x), "x\\[:k\\]"), (lambda x: np.prod(x), "geo_mean"),
    (lambda x: np.min(x), "max_entries"), (lambda x: np.sum(x, out=np.zeros(())), "out"),
    (lambda x: np.sum(x, keepdims=True), "keepdims"), (lambda x: np.linalg.norm(x, ord=3), "ord"),
])
def test_numpy_calls_without_meaning_raise_a_certiprog_error_naming_the_fix(call, fix):
    x = Variable(4, name="x")
    with pytest.raises(DCPError, match=fix):
        call(x)


# ------------------------------------------------------------------- general programs, sparse data, scaling
def _user_qp(rng, n, m, scale, sparse):
    """A random feasible, bounded QP: min 1/2 x'Px + q'x, Ax <= b, -1 <= x <= 1 (P = M'M + I/10)."""
    M = sp.random(n, n, density=0.2, random_state=rng) + sp.eye(n)
    P = (M.T @ M + 0.1 * sp.eye(n)) * scale
    A = sp.random(m, n, density=0.3, random_state=rng, data_rvs=rng.standard_normal) * scale
    x0 = rng.uniform(-0.5, 0.5, n)
    b = A @ x0 + scale * rng.uniform(0.1, 1.0, m)
    q = rng.normal(size=n) * scale
    if not sparse:
        P, A = P.toarray(), A.toarray()
    return P, q, A, b


@pytest.mark.parametrize("scale", [1e-8, 1.0, 1e8])
@pytest.mark.parametrize("sparse", [True, False])
def test_sparse_and_scaled_qps_certify_and_match_cvxpy(scale, sparse):
    rng = np.random.default_rng(7)
    P, q, A, b = _user_qp(rng, 30, 20, scale, sparse)
    x = Variable(30, name="x")
    m = Model(minimize(0.5 * quad_form(x, P) + q @ x), [A @ x <= b, -1 <= x, x <= 1])
    sol = m.solve()
    # honest either way: 'optimal' exactly when certified; at scale 1e-8 the solvers' absolute tolerances (1e-8)
    # can leave the interval wider than tol * |optimum| ~ 1e-14, and then the status says 'unconfirmed'
    assert (sol.status == "optimal") == (sol.verdict == "certified") == check(m, sol).certified
    if scale >= 1.0:
        assert sol.verdict == "certified"
    if not check(m, sol).certified:
        assert sol.status == "unconfirmed" and sol.fallback_note
        return
    lo, hi = check(m, sol).interval
    assert lo <= sol.objective + 1e-6 * abs(sol.objective) and sol.objective <= hi + 1e-6 * abs(sol.objective)
    xc = cp.Variable(30)
    Pd = P.toarray() if sp.issparse(P) else P
    ref = cp.Problem(cp.Minimize(0.5 * cp.quad_form(xc, cp.psd_wrap(Pd)) + q @ xc),
                     [A @ xc <= b, -1 <= xc, xc <= 1]).solve(solver="CLARABEL")
    assert abs(sol.objective - ref) <= 1e-5 * max(abs(ref), scale)


def test_socp_and_exp_cone_programs_written_plainly_certify():
    rng = np.random.default_rng(3)
    A = sp.random(10, 6, density=0.5, random_state=rng, data_rvs=rng.standard_normal).tocsr()
    b = rng.normal(size=10)
    x, t = Variable(6, name="x"), Variable(name="t")
    m = Model(minimize(t + np.sum(x)), [norm2(A @ x - b) <= t, x >= -2])
    sol = m.solve()
    assert sol.status == "optimal" and sol.verdict == "certified"
    # exp cone: maximise entropy-like objective under a budget
    w = Variable(4, name="w")
    m2 = Model(minimize(np.sum(exp(w)) - w[0]), [w.sum() == 1])
    sol2 = m2.solve()
    wc = cp.Variable(4)
    ref = cp.Problem(cp.Minimize(cp.sum(cp.exp(wc)) - wc[0]), [cp.sum(wc) == 1]).solve(solver="CLARABEL")
    assert sol2.status == "optimal" and sol2.verdict == "certified"
    assert abs(sol2.objective - ref) <= 1e-6 * max(1.0, abs(ref))


def test_near_unbounded_program_is_certified_at_its_large_optimum():
    x = Variable(2, name="x")
    m = Model(maximize(x.sum()), [x >= 0, x <= 1e6, x[0] - x[1] <= 1e-9])
    sol = m.solve()
    assert sol.status == "optimal" and sol.verdict == "certified"
    assert abs(sol.objective - 2e6) <= 1e-6 * 2e6


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_or_inf_in_sparse_data_raises_an_input_error(bad):
    A = sp.random(5, 4, density=0.5, random_state=0).tocsr()
    A.data[0] = bad
    x = Variable(4, name="x")
    with pytest.raises(InputError):
        Model(minimize(x.sum()), [A @ x <= 1, x >= 0]).solve()


def test_wrong_shapes_raise_a_shape_error():
    x = Variable(4, name="x")
    with pytest.raises(certiprog.ShapeError):
        sp.eye(3).tocsr() @ x


@settings(max_examples=12, deadline=None, derandomize=True)
@given(n=st.integers(2, 12), m=st.integers(1, 10), seed=st.integers(0, 2**16), margin=st.sampled_from([0.0, 1e-9]))
def test_default_path_says_optimal_only_when_certified(n, m, seed, margin):
    """Property: on random LPs (feasible, or pushed infeasible by a hair), the default path's status is 'optimal'
    exactly when its verdict is certified, and check() returns the same verdict."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, n))
    x0 = rng.uniform(0, 1, n)
    b = A @ x0 + rng.uniform(0, 1, m)
    x = Variable(n, name="x")
    cons = [A @ x <= b, x >= 0, x <= 1]
    if margin:
        cons = [x >= 0, x <= 1, x.sum() <= -margin]  # infeasible by `margin`
    sol = Model(minimize(rng.normal(size=n) @ x), cons).solve()
    if sol.x is not None:
        assert (sol.status == "optimal") == sol.verdict.startswith("certified")
    assert sol.verdict == check(sol.problem, sol).verdict


# ------------------------------------------------------------------------------------------- solver output
def test_solver_output_stays_off_stdout_unless_verbose(capfd):
    m, _ = _box_lp()
    m.solve(backend="cvxpy", solver="HIGHS")
    m.solve(backend="pyomo", solver="highs") if _has("pyomo") else None
    out, _ = capfd.readouterr()
    assert out == ""
    m.solve(backend="cvxpy", solver="HIGHS", verbose=True)
    out, _ = capfd.readouterr()
    assert "HiGHS" in out


def test_base_dependencies_exclude_the_broken_highspy():
    import tomllib
    from pathlib import Path

    meta = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert any(d.replace(" ", "").startswith("highspy") and "!=1.16.0" in d for d in meta["project"]["dependencies"])


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


# ------------------------------------------------------------------------------------------------------- CLI
def test_demo_with_an_unknown_backend_exits_2_and_lists_the_backends(capsys):
    from certiprog.cli import main

    assert main(["demo", "--backends", "foo"]) == 2
    err = capsys.readouterr().err
    assert "foo" in err and "clarabel" in err


def test_audit_writes_no_progress_bar_into_a_log(capsys, tmp_path):
    from certiprog.cli import main

    main(["audit", "004", "--only", "004-E6a", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert "audit:" not in err and "it/s" not in err


def test_quick_runs_write_to_a_quick_folder_for_every_experiment():
    from dataclasses import dataclass

    from certiprog.experiments.runner import default_folder

    @dataclass
    class Cfg:
        quick: bool

    class Module:
        @staticmethod
        def default_out(cfg):
            return "results/hp-mpm"

    assert default_folder(Module, Cfg(False), "hp-mpm") == "results/hp-mpm"
    assert default_folder(Module, Cfg(True), "hp-mpm") == "results/hp-mpm-quick"
    assert default_folder(object(), Cfg(True), "me2") == "results/me2-quick"


def test_a_finite_but_wide_interval_gets_one_tighter_solve_of_the_same_solver():
    """002's me2_primal on Pima: Clarabel's default gap (1e-8) leaves the interval 3.9e-8 wide around 6.6e-3, too
    wide for tol 1e-6; certiprog's choice re-solves once with Clarabel's declared tighter tolerances and certifies."""
    from certiprog.demo import demo_instances

    m = dict(demo_instances())["002 me2_primal (Pima)"]
    loose = m.solve(backend="clarabel", solver="clarabel")  # named: the answer as it is
    assert loose.verdict == "accurate" and loose.status == "optimal"
    sol = m.solve(backend="clarabel")
    assert sol.status == "optimal" and sol.verdict == "certified"
    assert "tighter" in sol.chosen.label
    assert [a.verdict for a in sol.attempts] == ["accurate", "certified"]
    # tolerances the caller set are respected: no tighter re-solve, the honest status instead
    user = m.solve(backend="clarabel", tol_gap_abs=1e-8, tol_gap_rel=1e-8)
    assert user.status == "unconfirmed" and len(user.attempts) == 1


@pytest.mark.parametrize("sense", ["minimize", "maximize"])
def test_a_free_variable_held_only_by_an_inactive_bound_is_certified(sense):
    """``min t s.t. t == p, y >= 1``: y costs nothing and its only row is inactive; the interior point leaves its
    dual at ~1e-8, so y's Lagrangian coefficient is not exactly 0. The lower end zeroes that dual exactly."""
    p = Parameter((), "p", value=3.0)
    y, t = Variable((), "y"), Variable((), "t")
    objective = minimize(t) if sense == "minimize" else maximize(-t)
    sol = Model(objective, {"c": t == p, "y>=1": y >= 1}).solve()
    assert sol.status == "optimal" and sol.verdict == "certified"
    lo, hi = sol.certification.interval
    assert lo <= (3.0 if sense == "minimize" else -3.0) <= hi


def test_a_feasible_set_with_no_interior_around_zero_is_certified():
    """Only x = 0 is feasible (an SOC at its apex: ||x|| <= -a'x with a in the interior of the dual cone direction),
    so no margin problem finds a strictly feasible point; the solver's x ~ 1e-10 snapped to exactly 0 is proved
    with exact slacks (no enclosure can prove 0 >= 0)."""
    x, t = Variable(3, name="x"), Variable(5, name="t")
    a = np.array([0.3, -0.2, 0.1])  # ||x|| <= -a'x forces x = 0 (||a|| < 1)
    A = np.arange(15.0).reshape(5, 3) / 10
    m = Model(minimize(t.sum()), [norm2(x) <= -(a @ x), t >= 1 - A @ x, t >= 0])
    sol = m.solve()
    assert sol.status == "optimal" and sol.verdict == "certified"
    assert abs(sol.objective - 5.0) <= 1e-6
    assert sol.certification.interval.lower <= 5.0 <= sol.certification.interval.upper


def test_piqp_declares_a_tighter_resolve_too():
    """002's me2_dual on Pima through PIQP: its default 1e-8 leaves the interval 8.5e-9 wide around 6.6e-3; the
    default path re-solves once at PIQP's declared 1e-10 and certifies (the demo's PIQP row)."""
    from certiprog.demo import demo_instances

    m = dict(demo_instances())["002 me2_dual (Pima)"]
    sol = m.solve(backend="piqp")
    assert sol.status == "optimal" and sol.verdict == "certified"
    assert "tighter" in sol.chosen.label
