"""SOC(t, X, axis=...): one cone per column (axis=0, CVXPY's convention) or per row (axis=1 and the default)."""
import numpy as np
import pytest

from certiprog.errors import ShapeError
from certiprog.model import SOC, Model, Variable, minimize, vstack


def _rows(con, values):
    return con.s.value_at(values).reshape(con.k, con.n + 1)


def test_axis_picks_rows_or_columns():
    X = Variable((2, 3), "X")
    Xv = np.arange(6.0).reshape(2, 3)
    t3, t2 = Variable(3, "t3"), Variable(2, "t2")
    vals = {X: Xv, t3: np.array([7.0, 8.0, 9.0]), t2: np.array([5.0, 6.0])}
    cols = SOC(t3, X, axis=0)
    assert (cols.k, cols.n, cols.dual_shape()) == (3, 2, (3, 3))
    np.testing.assert_array_equal(_rows(cols, vals), np.column_stack([[7.0, 8.0, 9.0], Xv.T]))
    rows = SOC(t2, X, axis=1)
    assert (rows.k, rows.n, rows.dual_shape()) == (2, 3, (2, 4))
    np.testing.assert_array_equal(_rows(rows, vals), np.column_stack([[5.0, 6.0], Xv]))
    default = SOC(t2, X)
    np.testing.assert_array_equal(_rows(default, vals), _rows(rows, vals))
    # the violation is measured per cone: column 2 of X is (2, 5) with norm sqrt(29) > 1
    tight = SOC(np.array([10.0, 10.0, 1.0]), X, axis=0)
    assert tight.violation(vals) == pytest.approx((np.sqrt(29.0) - 1.0) / np.sqrt(2.0))


def test_axis0_solves_like_its_transpose():
    """min c'x s.t. ||M_j x|| <= 1 per column of a stacked matrix: axis=0 on X' equals axis=1 on X."""
    c = np.array([-1.0, 2.0])
    mats = [np.array([[1.0, -1.0], [0.5, 0.5]]), np.eye(2), np.diag([0.2, 1.8])]
    values = []
    for axis in (0, 1):
        x = Variable(2, "x")
        X = vstack([m @ x for m in mats])  # (3, 2): one row per matrix
        con = SOC(np.ones(3), X.T, axis=0) if axis == 0 else SOC(np.ones(3), X, axis=1)
        sol = Model(minimize(c @ x), {"cones": con}).solve(backend="clarabel")
        assert sol.status.termination == "optimal"
        assert sol.dual("cones").shape == (3, 3)
        values.append((sol.objective, sol.value("x"), sol.dual("cones")))
    assert values[0][0] == pytest.approx(values[1][0], rel=1e-7)
    np.testing.assert_allclose(values[0][1], values[1][1], atol=1e-6)
    np.testing.assert_allclose(values[0][2], values[1][2], atol=1e-6)


@pytest.mark.parametrize("axis", [2, -1, True, "0", 0.0])
def test_bad_axis(axis):
    with pytest.raises(ShapeError, match="axis"):
        SOC(np.ones(2), Variable((2, 3)), axis=axis)


def test_default_is_row_wise():
    with pytest.raises(ShapeError, match="rows"):
        SOC(np.ones(3), Variable((2, 3)))  # one entry of t per row, not per column


def test_shape_mismatches_name_the_fix():
    x, X = Variable(3), Variable((2, 3))
    with pytest.raises(ShapeError, match="axis=1 needs a matrix"):
        SOC(1.0, x, axis=1)
    with pytest.raises(ShapeError, match="t must be a scalar"):
        SOC(np.ones(3), x)
    with pytest.raises(ShapeError, match="size 3"):
        SOC(np.ones(2), X, axis=0)
    SOC(1.0, x, axis=0)  # a vector is one cone whatever axis 0 means
