"""certiprog's default path on 000 eq. (8): the structured solver first when it covers the model (issue 23)."""
import numpy as np
import pytest

from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax

pytestmark = pytest.mark.random


def _data(rng, m, d, cond):
    A = np.linalg.qr(rng.normal(size=(d, d)))[0] * np.logspace(0, np.log10(cond) / 2, d)
    X = rng.normal(1.0, 1.0, (m, d)) @ A  # far enough from the background that w = 0 is not optimal
    B = rng.normal(-1.0, 1.0, (4 * d, d)) @ A
    return X, B.mean(axis=0), np.cov(B, rowvar=False) + 1e-6 * np.eye(d)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("cond", [1.0, 1e4])
def test_the_default_path_takes_the_structured_solver_and_certifies(bias, cond):
    rng = np.random.default_rng(3)
    X, mu, S = _data(rng, 2000, 12, cond)
    model = hinge_minimax(X, mu, S, lam=1.0, delta=0.1, bias=bias)
    sol = model.solve()
    assert sol.chosen.label == "structured"
    assert sol.status == "optimal" and sol.verdict == "certified"
    ref = model.solve(backend="clarabel", solver="clarabel")
    assert abs(sol.objective - ref.objective) <= 1e-6 * max(1.0, abs(ref.objective))


@pytest.mark.parametrize("kwargs", [dict(squared_reg=False), dict(lam=0.0)])
def test_models_the_structured_solver_does_not_cover_go_to_the_generic_solvers(kwargs):
    rng = np.random.default_rng(4)
    X, mu, S = _data(rng, 400, 6, 1.0)
    model = hinge_minimax(X, mu, S, **{"lam": 1.0, "delta": 0.1, **kwargs})
    sol = model.solve()
    assert sol.chosen.label != "structured"
    assert sol.status.ok


def test_tiny_models_go_to_clarabel():
    rng = np.random.default_rng(5)
    X, mu, S = _data(rng, 50, 4, 1.0)
    sol = hinge_minimax(X, mu, S, lam=1.0, delta=0.1).solve()
    assert sol.chosen.label.startswith("clarabel") and sol.verdict == "certified"
