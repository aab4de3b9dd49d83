"""``model.solve(solver="structured")`` on models whose compiled form has internal columns, and certiprog's
automatic choice trying the formulation's own solver first on large problems (`certiprog.solvers.structured`)."""
from __future__ import annotations

import numpy as np
import pytest

from certiprog.certify import check
from certiprog.errors import CertiprogError
from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax
from certiprog.model import Model, Variable, hinge, minimize, norm1, norm2, norm_inf, sum_squares
from certiprog.model.cones import project
from certiprog.solvers import Attempt, StructuredAnswer
from certiprog.solvers.structured import fill_auxiliary


def _toy(seed: int):
    """A model whose compiled form has atom epigraph columns (hinge, norm2, norm_inf), norm1's internal '_abs'
    columns and a sum-of-squares copy."""
    rng = np.random.default_rng(seed)
    A, B, c = rng.normal(size=(7, 3)), rng.normal(size=(4, 3)), rng.normal(size=3)
    x = Variable(3, "x")
    model = Model(minimize(hinge(A @ x).sum() + norm1(x - c) + sum_squares(B @ x) + norm_inf(x)), name="toy")
    model.add(norm2(x) <= 10.0, name="ball")
    return model, x


def _in_cones(problem, x) -> float:
    """Largest distance of the slack b - A x from its cone, block by block."""
    s = problem.b - problem.A @ x
    return max(float(np.linalg.norm(s[b.start:b.stop] - project(b.cone, s[b.start:b.stop])))
               for b in problem.blocks)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fill_auxiliary_gives_the_user_objective_and_a_feasible_point(seed):
    model, x = _toy(seed)
    problem = model.compile().assemble()
    assert any(name.startswith("_abs") for name in problem.columns)  # an epigraph's own internal variable
    rng = np.random.default_rng(100 + seed)
    point = rng.normal(size=3)
    full = fill_auxiliary(problem, {"x": point})
    assert np.all(np.isfinite(full))
    assert _in_cones(problem, full) <= 1e-7
    expected = model.objective.expr.value_at({x: point})
    assert problem.objective_value(full) == pytest.approx(float(expected), rel=1e-7, abs=1e-7)


def test_fill_auxiliary_matches_clarabel_at_its_point():
    model, x = _toy(3)
    ref = model.solve(backend="clarabel")
    full = fill_auxiliary(ref.problem, {"x": ref.value("x")})
    assert ref.problem.objective_value(full) == pytest.approx(ref.objective, rel=1e-6)


def test_fill_auxiliary_refuses_a_missing_or_misshapen_user_value():
    model, _ = _toy(0)
    problem = model.compile().assemble()
    with pytest.raises(CertiprogError, match="no value for the variable 'x'"):
        fill_auxiliary(problem, {})
    with pytest.raises(CertiprogError, match="has 2 entries"):
        fill_auxiliary(problem, {"x": np.zeros(2)})


def _hinge_instance(seed: int, **kw):
    rng = np.random.default_rng(seed)
    d = 5
    X = rng.normal(size=(60, d)) + np.eye(d)[0]
    mu = -np.ones(d) + 0.2 * rng.normal(size=d)
    Sigma = 0.5 * np.eye(d) + 0.1
    return hinge_minimax(X, mu, Sigma, 0.05, 0.3, **kw)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hinge_minimax_structured_agrees_with_clarabel_and_is_certified(seed):
    model = _hinge_instance(seed)
    ref = model.solve(backend="clarabel")
    sol = model.solve(solver="structured", tol=1e-7)
    lo, hi = sol.solver_interval
    assert type(sol.solver_interval).__name__ == "Interval" and sol.solver_interval.finite and lo <= hi
    cert = check(model, sol)
    assert cert.certified, cert
    clo, chi = cert.interval
    assert clo <= hi and lo <= chi  # the two rigorous intervals meet
    assert clo - 1e-6 * abs(chi) <= ref.objective <= chi + 1e-6 * abs(chi)  # Clarabel's value inside ours
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)
    np.testing.assert_allclose(model.variables["w"].value, ref.value("w"), atol=1e-3)
    assert sol.verdict.startswith(("certified", "accurate"))
    assert model.derived(sol).constraint_value <= 1e-9


@pytest.mark.parametrize("kw, what", [({"squared_reg": False}, "squared_reg=False"),
                                      ({"bias": True, "squared_reg": False}, "squared_reg=False")])
def test_hinge_minimax_structured_refuses_what_it_does_not_cover(kw, what):
    model = _hinge_instance(0, **kw)
    with pytest.raises(CertiprogError, match=f"{what}.*backend='clarabel'"):
        model.solve(solver="structured")


def test_hinge_minimax_structured_refuses_lam_zero():
    rng = np.random.default_rng(0)
    model = hinge_minimax(rng.normal(size=(10, 2)), -np.ones(2), np.eye(2), 0.0, 0.3)
    with pytest.raises(CertiprogError, match="lam = 0.*backend='clarabel'"):
        model.solve(solver="structured")


# ------------------------------------------------------------------ certiprog's automatic choice (solve_model)
class _WrongAnswer:
    """model.data whose structured solver returns a far-off point (the chooser must not accept it)."""

    def structured_solve(self, **options):
        return StructuredAnswer({"x": np.full(3, 5.0)}, status="optimal")


class _Refuses:
    def structured_solve(self, **options):
        from certiprog.errors import InputError

        raise InputError("this case is not covered; use backend='clarabel'")


@pytest.fixture
def tiny_threshold(monkeypatch):
    import certiprog.solvers.structured as structured

    monkeypatch.setattr(structured, "AUTO_MIN_NNZ", 0)


def test_auto_tries_the_structured_solver_first_on_large_problems(tiny_threshold):
    model = _hinge_instance(1)
    sol = model.solve()
    assert sol.chosen.label == "structured"
    assert sol.attempts[0].label == "structured"
    assert sol.verdict.startswith(("certified", "accurate"))
    ref = _hinge_instance(1).solve(backend="clarabel")
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)
    assert check(model, sol).certified


def test_auto_skips_the_structured_solver_below_the_threshold():
    model = _hinge_instance(1)
    sol = model.solve()
    assert sol.chosen.label != "structured"
    assert all(a.label != "structured" for a in sol.attempts)


def test_auto_falls_back_when_the_structured_answer_is_not_confirmed(tiny_threshold):
    model, _ = _toy(0)
    ref = model.solve(backend="clarabel")
    model.data = _WrongAnswer()
    sol = model.solve()
    attempts = sol.attempts
    assert attempts[0].label == "structured" and attempts[0].verdict.startswith("failed")
    assert sol.chosen.label != "structured"
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)


def test_auto_falls_back_when_the_structured_solver_refuses(tiny_threshold):
    model = _hinge_instance(0, squared_reg=False)
    sol = model.solve()
    first = sol.attempts[0]
    assert first.label == "structured" and "squared_reg=False" in first.error
    assert sol.chosen.label != "structured"
    model2, _ = _toy(1)
    model2.data = _Refuses()
    sol2 = model2.solve()
    assert "not covered" in sol2.attempts[0].error
    assert sol2.verdict.startswith(("certified", "accurate"))


def test_auto_falls_back_on_the_trivial_hinge_minimax_fit(tiny_threshold):
    """w = 0 the only feasible point: the first-order solver's answer is kept only if the chooser's check calls it
    accurate (its duals meet stationarity), else Clarabel's (accurate) answer is returned; the attempt is recorded.
    (Which of the two happens depends on the last digits of the dual point the solver stops at.)"""
    rng = np.random.default_rng(0)
    model = hinge_minimax(rng.normal(size=(40, 4)) + 1, -0.5 * np.ones(4), np.eye(4) + 0.1, 0.1, 0.2)
    sol = model.solve()
    attempts = sol.attempts
    strong = attempts[0].verdict.startswith(("certified", "accurate"))
    assert attempts[0].label == "structured"
    assert (sol.chosen.label == "structured") == strong
    assert sol.verdict.startswith(("certified", "accurate"))
    assert sol.objective == pytest.approx(40.0, rel=1e-6)


# ------------------------------------------------------------------ the typed contract (issue 22 item 4)
class _OldDict:
    """A formulation still returning last release's dict (its interval in ``info``)."""

    def structured_solve(self, **options):
        return dict(values={"x": np.zeros(3)}, status="stalled", iterations=3, info={"interval": (-1.0, 2.0), "k": 1})


def test_a_dict_answer_is_read_with_a_deprecation_warning():
    model, _ = _toy(0)
    model.data = _OldDict()
    with pytest.warns(DeprecationWarning, match="StructuredAnswer"):
        sol = model.solve(solver="structured")
    assert sol.solver_interval == (-1.0, 2.0) and sol.iterations == 3
    assert sol.info == {"k": 1, "structured_status": "stalled"}  # the interval is a typed field, not in info
    assert sol.status.termination == "inaccurate"  # any word but 'optimal' / 'inaccurate' reads 'inaccurate'


def test_structured_answer_is_validated():
    a = StructuredAnswer({"x": np.zeros(2)}, status="optimal", interval=[0, 1], iterations=np.int64(4))
    assert a.status == "optimal" and a.interval == (0.0, 1.0) and type(a.interval).__name__ == "Interval"
    assert isinstance(a.iterations, int) and a.values["x"].shape == (2,) and a.duals == {} and a.info == {}
    assert StructuredAnswer({}, status="trivial").solver_status == "trivial"
    for bad in (dict(values=[1.0]), dict(values={}, duals=[0.0]), dict(values={}, interval=(1.0,)),
                dict(values={}, interval=("a", "b")), dict(values={}, info={"interval": (0, 1)}),
                dict(values={}, info={"verdict": "certified"})):
        with pytest.raises(CertiprogError):
            StructuredAnswer(**bad)


def test_the_automatic_choice_records_typed_attempts(tiny_threshold):
    model, _ = _toy(0)
    model.data = _WrongAnswer()
    sol = model.solve()
    first, chosen = sol.attempts[0], sol.chosen
    assert isinstance(first, Attempt) and first.label == first.backend == first.solver == "structured"
    assert first.verdict == "failed" and first.termination == "optimal" and not first.chosen and first.rejected
    assert chosen is sol.attempts[-1] and chosen.backend == sol.backend and chosen.solver == sol.solver
    assert chosen.verdict == sol.verdict and chosen.rejected == "" and chosen.time > 0
    assert sum(a.chosen for a in sol.attempts) == 1 and all(a.time >= 0 for a in sol.attempts)
    assert sol.solver_interval is None  # a backend's answer carries no solver interval
    with pytest.warns(DeprecationWarning, match="sol.attempts"):
        old = sol.info["fallback"]
    assert old["chosen"] == chosen.label and [a["solver"] for a in old["attempts"]] == [a.label for a in sol.attempts]
    assert old["attempts"][0]["verdict"] == "failed"


def test_inside_raises_only_cost_free_epigraph_columns():
    """`structured._inside`: an atom's epigraph column is raised by AUX_MARGIN (relative) only when neither q nor P
    touches it (P's entries read off its CSC columns; a stored zero does not count), any format of P."""
    import types

    import scipy.sparse as sp

    from certiprog.solvers.structured import AUX_MARGIN, _inside

    convex = types.SimpleNamespace(nonlin=((None, types.SimpleNamespace(curvature="convex")),), terms=None)
    concave = types.SimpleNamespace(nonlin=((None, types.SimpleNamespace(curvature="concave")),), terms=None)
    P = sp.csc_matrix((np.array([2.0, 0.0]), (np.array([2, 3]), np.array([2, 3]))), shape=(5, 5))  # (3, 3): 0
    for fmt in ("csc", "csr", "coo"):
        prob = types.SimpleNamespace(P=P.asformat(fmt), q=np.array([0.0, 0.0, 0.0, 0.0, 1.0]))
        v = np.array([3.0])
        assert _inside(prob, convex, 2, 3, v) is v  # P reads it: left at its value
        assert _inside(prob, convex, 4, 5, v) is v  # q reads it
        assert _inside(prob, convex, 1, 2, v)[0] == 3.0 + AUX_MARGIN * 3.0
        assert _inside(prob, convex, 3, 4, v)[0] == 3.0 + AUX_MARGIN * 3.0  # a stored zero is no cost
        assert _inside(prob, concave, 0, 1, v)[0] == 3.0 - AUX_MARGIN * 3.0
