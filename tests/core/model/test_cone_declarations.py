"""Every installed solver's declaration of the exponential and n-dimensional power cones matches what it does
(as tests/core/test_solvers.py does for LP, QP, SOCP, the 3-D power cone and PSD)."""
import numpy as np
import pytest

import certiprog as c
from certiprog.errors import BackendError
from certiprog.solvers import available_solvers, choose, solve_conic
from certiprog.solvers.registry import needs, registered_backends

CONFIRMING = ("certified", "accurate", "inaccurate")


def _models() -> dict:
    x, z = c.Variable(3, name="x"), c.Variable(name="z")
    return {
        "exp": c.Model(c.minimize(c.log_sum_exp(x) - c.log(x + 2).sum()), [x.sum() == 1, x >= -1]),
        "pownd": c.Model(c.maximize(z - x.sum() / 4), [c.PowConeND(x, z, [0.2, 0.3, 0.5]), x <= 1]),
    }


@pytest.mark.parametrize("pair", available_solvers(), ids=lambda p: f"{p[0]}-{p[1]}")
def test_exp_and_pownd_declarations_match_what_each_installed_solver_does(pair):
    backend, solver = pair
    caps = registered_backends()[backend].capabilities_of(solver)
    for kind, model in _models().items():
        problem = model.compile().assemble()
        if caps.refusal(needs(problem)):
            with pytest.raises(BackendError):
                solve_conic(problem, backend, solver)
            assert pair not in available_solvers(problem) and pair not in choose(problem)
            continue
        assert pair in available_solvers(problem)
        ref = solve_conic(problem, "clarabel", "clarabel")
        sol = solve_conic(problem, backend, solver)
        where = f"{backend}/{solver} on {kind}: {sol.status}"
        assert sol.status == "optimal", where
        assert abs(sol.objective - ref.objective) <= 1e-3 * max(1.0, abs(ref.objective)), where
        assert sol.verdict.startswith(CONFIRMING), (where, sol.verdict)
        assert (sol.z is not None) == caps.duals, where


def test_refusing_solvers_are_named_in_the_declarations():
    """PIQP, OSQP and HiGHS take no exponential cone: none of them is offered for one."""
    problem = _models()["exp"].compile().assemble()
    engines = {registered_backends()[b].capabilities_of(s).engine for b, s in available_solvers(problem)}
    assert not engines & {"piqp", "osqp", "highs", "scipy", "gurobi"}
    assert np.isfinite(solve_conic(problem).objective)
