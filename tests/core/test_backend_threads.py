"""Solves from several threads finish (issue 13 item 6): two threads solving separate models through Pyomo
deadlocked in Pyomo's output capture; the pyomo backend now runs one solve at a time. Each thread's answers
must equal the same model solved alone."""
import threading

import numpy as np
import pytest

from certiprog import Model, Variable, minimize, sum_squares
from certiprog.solvers import available_solvers

pytest.importorskip("pyomo")

PYOMO = [s for b, s in available_solvers() if b == "pyomo" and s in ("highs", "scip_direct", "gurobi_direct")]


def small_qp(seed):
    rng = np.random.default_rng(seed)
    A, b = rng.standard_normal((30, 8)), rng.standard_normal(30)
    x = Variable(8, "x")
    model = Model(minimize(0.5 * sum_squares(A @ x - b)), name=f"qp{seed}")
    model.add(x >= -0.3, name="lower")
    model.add(x <= 0.4, name="upper")
    return model


def _in_threads(work, n=2):
    """Run ``work(i)`` in n threads; returns {i: result}; re-raises the first exception a thread met."""
    results, errors = {}, []

    def run(i):
        try:
            results[i] = work(i)
        except BaseException as exc:  # reported in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(50)
    assert not any(t.is_alive() for t in threads), "a solving thread is stuck"
    if errors:
        raise errors[0]
    return results


@pytest.mark.timeout(60)
@pytest.mark.parametrize("solver", PYOMO)
def test_two_threads_solving_separate_models_through_pyomo(solver):
    alone = {i: small_qp(i).solve(backend="pyomo", solver=solver).objective for i in range(2)}
    got = _in_threads(lambda i: [small_qp(i).solve(backend="pyomo", solver=solver).objective for _ in range(4)])
    for i in range(2):
        np.testing.assert_allclose(got[i], alone[i], rtol=1e-6)


@pytest.mark.timeout(60)
def test_threads_mixing_backends_and_the_chooser():
    """One thread on Pyomo, one on Clarabel, one where certiprog chooses: all finish with the same optimum."""
    backends = [("pyomo", None), ("clarabel", None), (None, None)]
    ref = small_qp(7).solve(backend="clarabel").objective
    got = _in_threads(lambda i: small_qp(7).solve(backend=backends[i][0], solver=backends[i][1]).objective, n=3)
    for i in range(3):
        assert got[i] == pytest.approx(ref, rel=1e-6)
