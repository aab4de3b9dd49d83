"""``check(model, sol)`` judges the problem the model compiles to *now* (`certiprog.certify.kkt.resolve_problem`).

When the model's structure and every coefficient's value are as when the solution's problem was assembled, the
solved problem is reused (no second assembly; `Structure.data_key`); any change since the solve (a Parameter's new
value, a value edited in place, a compiled coefficient edited in place, a constraint added) is still
refused with an InputError, never certified against stale numbers.
"""
import numpy as np
import pytest

from certiprog.certify import check
from certiprog.certify.kkt import _same_problem, resolve_problem
from certiprog.errors import InputError
from certiprog.model import Model, Parameter, Variable, minimize, norm2


def _least_squares(seed: int, scale: float = 1.0):
    """min ||X w - y|| + ||w|| with a Parameter in a constraint: (model, X, p)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 4)) * scale
    y = rng.normal(size=40) * scale
    p = Parameter(4, "p", value=rng.normal(size=4))
    w = Variable(4, "w")
    model = Model(minimize(norm2(X @ w - y) + norm2(w)))
    model.add(p @ w <= 1.0, name="budget")
    return model, X, p


@pytest.mark.parametrize("seed,scale", [(0, 1.0), (1, 1e-6), (2, 1e6)])
def test_an_unchanged_model_reuses_the_solved_problem(seed, scale):
    model, _, _ = _least_squares(seed, scale)
    sol = model.solve(backend="clarabel")
    assert resolve_problem(model, sol) is sol.problem
    fresh = model.compile().assemble()  # what the slow path would compare: the same numbers
    assert _same_problem(fresh, sol.problem)
    assert fresh.data_key == sol.problem.data_key
    assert check(model, sol).verdict == "certified"


def test_a_new_parameter_value_is_refused():
    model, _, p = _least_squares(3)
    sol = model.solve(backend="clarabel")
    p.value = p.value + 0.5
    with pytest.raises(InputError, match="different conic problem"):
        check(model, sol)
    p.value = p.value - 0.5  # back to the solved numbers: accepted again
    assert check(model, sol).verdict == "certified"


def test_a_parameter_value_edited_in_place_is_refused():
    model, _, p = _least_squares(4)
    sol = model.solve(backend="clarabel")
    p.value[0] += 0.25  # no setter runs: only the data's checksum sees it
    with pytest.raises(InputError, match="different conic problem"):
        check(model, sol)


def test_a_compiled_coefficient_edited_in_place_is_refused():
    """The model copies the caller's arrays (dense, sparse, Fortran order alike), so the data the key has to watch
    are the compiled coefficients themselves: an edit there is caught like a Parameter's."""
    model, X, _ = _least_squares(5)
    sol = model.solve(backend="clarabel")
    X[3, 2] += 1.0  # the caller's array: a copy was taken, nothing changes
    assert resolve_problem(model, sol) is sol.problem
    coef = next(c for blk in model.compile().blocks for c in blk.s.terms.values() if getattr(c, "nnz", 0) >= 40)
    coef.data[7] += 1.0
    with pytest.raises(InputError, match="different conic problem"):
        check(model, sol)


def test_a_constraint_added_since_the_solve_is_refused():
    model, _, _ = _least_squares(6)
    sol = model.solve(backend="clarabel")
    model.add(model.variable("w")[0] >= -5.0, name="extra")
    with pytest.raises(InputError):
        check(model, sol)


def test_a_changed_copy_of_the_problem_is_not_taken_for_the_model():
    """``dataclasses.replace`` drops the key: a modified copy goes through the full comparison."""
    import dataclasses

    model, _, _ = _least_squares(7)
    sol = model.solve(backend="clarabel")
    copy = dataclasses.replace(sol.problem, b=sol.problem.b + 1.0)
    assert copy.data_key is None
    sol.problem = copy
    with pytest.raises(InputError, match="different conic problem"):
        check(model, sol)


def test_checksum_is_the_position_weighted_sum():
    """`conic.problem.checksum`: (sum, sum_i i a_i) computed chunk by chunk (no ramp kept as long as the data), equal
    to the direct sums up to rounding at every length around the chunk size, sparse matrices by their stored values
    and pattern size; a swap of two distinct entries or a shifted value changes it."""
    import scipy.sparse as sp

    from certiprog.conic.problem import checksum

    rng = np.random.default_rng(5)
    for n in (0, 1, 7, 1023, 1024, 1025, 3000, 70_001):
        a = rng.normal(size=n)
        total, weighted = checksum(a)
        ramp = np.arange(n, dtype=float)
        assert abs(total - float(np.sum(a))) <= 1e-12 * (1.0 + float(np.sum(np.abs(a))))
        assert abs(weighted - float(a @ ramp)) <= 1e-12 * (1.0 + float(np.abs(a) @ ramp))
        if n > 2:
            b = a.copy()
            b[[0, n - 1]] = b[[n - 1, 0]]
            assert checksum(b) != checksum(a)
            b = a.copy()
            b[n // 2] += 0.5
            assert checksum(b) != checksum(a)
    M = sp.random(30, 20, density=0.2, random_state=rng, format="csr")
    assert checksum(M) == (M.shape, M.nnz) + checksum(M.data)
