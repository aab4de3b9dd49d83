"""One dual convention for every way of writing a constraint (README "One dual convention").

Each form is written with Python's operators, solved, and checked by stationarity of the Lagrangian
``f(x) - sum_c <z_c, s_c(x)>`` with s_c computed here, from the user's own lhs and rhs (numerically, never
from the stored constraint): ``lhs == rhs`` -> s = lhs - rhs, ``lhs <= rhs`` -> s = rhs - lhs,
``lhs >= rhs`` -> s = lhs - rhs; for ``maximize f`` the duals are those of ``minimize -f``. The one
exception Python imposes: a plain number or array on the left of ``==`` is read as the right side.
"""
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog import Equality, Model, Parameter, Variable, available_backends, maximize, minimize, sum_squares

BACKENDS = [b for b in ("clarabel", "cvxpy", "piqp") if b in available_backends()]

# each form: (lhs(Y, T, P), operator, rhs(Y, T, P), sign of s): s = sign * (lhs - rhs); the sides take either
# Expressions or arrays, so the same code builds the constraint and computes s numerically
EQ, LE, GE = operator.eq, operator.le, operator.ge


def forms(A, c):
    return {
        "expr == var": (lambda Y, T, P: A @ Y + c, EQ, lambda Y, T, P: T, +1),
        "var == expr": (lambda Y, T, P: T, EQ, lambda Y, T, P: A @ Y + c, +1),
        "param == expr": (lambda Y, T, P: P, EQ, lambda Y, T, P: Y - T, +1),
        "expr == param": (lambda Y, T, P: Y - T, EQ, lambda Y, T, P: P, +1),
        "var == var": (lambda Y, T, P: T, EQ, lambda Y, T, P: Y, +1),
        # Python calls expr.__eq__(c) for `c == expr`: the constant is read as the right side
        "const == expr": (lambda Y, T, P: c, EQ, lambda Y, T, P: T + Y, -1),
        "expr == const": (lambda Y, T, P: T + Y, EQ, lambda Y, T, P: c, +1),
        "expr <= var": (lambda Y, T, P: A @ Y + c, LE, lambda Y, T, P: T, -1),
        "var >= expr": (lambda Y, T, P: T, GE, lambda Y, T, P: A @ Y + c, +1),
        "var <= expr": (lambda Y, T, P: -T, LE, lambda Y, T, P: A @ Y + c, -1),
        "expr >= var": (lambda Y, T, P: A @ Y + c, GE, lambda Y, T, P: -T, +1),
        "param <= var": (lambda Y, T, P: P, LE, lambda Y, T, P: T, -1),
        "var >= param": (lambda Y, T, P: T, GE, lambda Y, T, P: P, +1),
        "const <= expr": (lambda Y, T, P: c, LE, lambda Y, T, P: T - Y, -1),
        "expr >= const": (lambda Y, T, P: T - Y, GE, lambda Y, T, P: c, +1),
    }


def _data(seed):
    rng = np.random.default_rng(seed)
    return dict(A=rng.standard_normal((2, 2)), c=rng.standard_normal(2), p=rng.standard_normal(2),
                a=rng.standard_normal(2), b=rng.standard_normal(2) - 10.0, g=rng.standard_normal(2))


def _solve_form(name, seed, backend="clarabel", sense="minimize"):
    """min ||y - a||^2 + ||t - b||^2 + g'y (b << 0 makes the inequalities active) under the form, y >= -5."""
    d = _data(seed)
    lhs, op, rhs, sign = forms(d["A"], d["c"])[name]
    y, t = Variable(2, "y"), Variable(2, "t")
    p = Parameter(2, "p", value=d["p"])
    f = sum_squares(y - d["a"]) + sum_squares(t - d["b"]) + d["g"] @ y
    con = op(lhs(y, t, p), rhs(y, t, p))
    objective = minimize(f) if sense == "minimize" else maximize(-f)
    sol = Model(objective, {"form": con, "box": y >= -5.0}).solve(backend=backend)
    assert sol.status == "optimal", (name, backend, sol.status)
    Y, T = sol.value("y"), sol.value("t")

    def s(Yv, Tv):  # README's s, from the user's sides, with numbers only
        return sign * (np.asarray(lhs(Yv, Tv, d["p"]), float) - np.asarray(rhs(Yv, Tv, d["p"]), float))

    grad = np.concatenate([2 * (Y - d["a"]) + d["g"], 2 * (T - d["b"])])  # of f, the minimised function
    J = np.zeros((2, 4))  # Jacobian of the affine s in (y, t), column by column
    base = s(np.zeros(2), np.zeros(2))
    for k in range(4):
        e = np.zeros(4)
        e[k] = 1.0
        J[:, k] = s(e[:2], e[2:]) - base
    Jbox = np.hstack([np.eye(2), np.zeros((2, 2))])  # s = y + 5
    return sol, grad, J, Jbox


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(forms(np.eye(2), np.zeros(2))))
def test_stationarity_for_every_form(name, backend):
    sol, grad, J, Jbox = _solve_form(name, seed=7, backend=backend)
    z = sol.dual("form").reshape(-1)
    zbox = sol.dual("box").reshape(-1)
    residual = grad - J.T @ z - Jbox.T @ zbox
    assert np.max(np.abs(residual)) <= 1e-5 * (1 + np.max(np.abs(grad))), (name, backend, residual)
    if "<=" in name or ">=" in name:  # active here: the usual multiplier z >= 0, not zero
        assert np.all(z >= -1e-7) and np.max(z) > 1e-3, (name, z)


@pytest.mark.parametrize("name", ["expr == var", "param == expr", "expr <= var", "var >= param", "const == expr"])
def test_maximize_duals_are_those_of_minimizing_the_negative(name):
    smin, grad, J, Jbox = _solve_form(name, seed=3)
    smax, *_ = _solve_form(name, seed=3, sense="maximize")
    np.testing.assert_allclose(smax.dual("form"), smin.dual("form"), atol=1e-6)
    residual = grad - J.T @ smax.dual("form").reshape(-1) - Jbox.T @ smax.dual("box").reshape(-1)
    assert np.max(np.abs(residual)) <= 1e-5 * (1 + np.max(np.abs(grad)))


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.sampled_from(sorted(forms(np.eye(2), np.zeros(2)))))
def test_stationarity_on_random_data(seed, name):
    sol, grad, J, Jbox = _solve_form(name, seed=seed)
    residual = grad - J.T @ sol.dual("form").reshape(-1) - Jbox.T @ sol.dual("box").reshape(-1)
    assert np.max(np.abs(residual)) <= 1e-5 * (1 + np.max(np.abs(grad))), (name, seed, residual)


# ------------------------------------------------------------------ the explicit sign on tiny instances
def _tiny(make, sense="minimize"):
    """min t s.t. the constraint and y >= 1 (or max -t): returns the constraint's dual (a float)."""
    y, t = Variable((), "y"), Variable((), "t")
    objective = minimize(t) if sense == "minimize" else maximize(-t)
    sol = Model(objective, {"c": make(y, t), "y>=1": y >= 1}).solve()
    assert sol.status == "optimal"
    return float(sol.dual("c"))


@pytest.mark.parametrize("sense", ["minimize", "maximize"])
def test_explicit_signs(sense):
    p = Parameter((), "p", value=3.0)
    # 2y == t: s = 2y - t, L = t - z(2y - t) - w(y - 1) -> dL/dt = 1 + z = 0 -> z = -1 (the case)
    assert _tiny(lambda y, t: 2 * y == t, sense) == pytest.approx(-1.0, abs=1e-6)
    assert _tiny(lambda y, t: t == 2 * y, sense) == pytest.approx(+1.0, abs=1e-6)
    # 2y <= t and t >= 2y: s = t - 2y, z = +1 both ways
    assert _tiny(lambda y, t: 2 * y <= t, sense) == pytest.approx(1.0, abs=1e-6)
    assert _tiny(lambda y, t: t >= 2 * y, sense) == pytest.approx(1.0, abs=1e-6)
    # a Parameter on either side: p == t has s = p - t, z = -1; t == p has z = +1
    assert _tiny(lambda y, t: p == t, sense) == pytest.approx(-1.0, abs=1e-6)
    assert _tiny(lambda y, t: t == p, sense) == pytest.approx(+1.0, abs=1e-6)
    # a number on the left of == is read as the right side; Equality(c, expr) keeps it on the left
    assert _tiny(lambda y, t: 3.0 == t, sense) == pytest.approx(+1.0, abs=1e-6)
    assert _tiny(lambda y, t: np.float64(3.0) == t, sense) == pytest.approx(+1.0, abs=1e-6)
    assert _tiny(lambda y, t: Equality(3.0, t), sense) == pytest.approx(-1.0, abs=1e-6)


def test_stored_sides_follow_the_user():
    y, t = Variable(2, "y"), Variable(2, "t")
    p = Parameter(2, "p", value=np.ones(2))
    for con, lhs in [(2 * y == t, "y"), (t == 2 * y, "t"), (y + 1 == p, "y"), (2 * y <= t, "y"), (t >= 2 * y, "y")]:
        assert [v.name for v in con.lhs.variables] == [lhs]
    assert (p == 2 * y).lhs is p and (2 * y == p).rhs is p
