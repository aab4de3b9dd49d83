"""The symbolic layer: models rendered in SymPy, Lagrangians, KKT systems and closed-form duals."""
import numpy as np
import pytest
import sympy

from certiprog.audit.symbolic import (kkt_conditions, lagrange_dual, lagrangian, to_sympy, verify_identity)
from certiprog.errors import ModelError
from certiprog.formulations.me2_paper.programs import me2_primal
from certiprog.model import SOC, Model, Variable, maximize, minimize, norm1, sum_squares


def small_qp():
    x = Variable(2, "x")
    m = Model(minimize(sum_squares(x - np.array([1.0, 2.0])) + x.sum()), name="qp")
    m.add(x.sum() <= 1, name="budget")
    m.add(x[0] >= 0.25, name="lo")
    m.add(x[1] == x[0] + 0.5, name="tie")
    return m


def small_lp():
    y = Variable(2, "y", nonneg=True)
    m = Model(maximize(np.array([1.0, 2.0]) @ y), name="lp")
    m.add(y.sum() <= 4, name="cap")
    m.add(y[1] <= 3, name="y1")
    return m


def me2_1d():
    """Paper 002's primal at n = 2, d = 1: the doc's hand-checkable example (y^2 = 0.5, mu = lam = B = 1) with the
    negative split into two mirror copies y = +-sqrt(0.5) (weight 1/n = 1/2 each): p* = 0.2 with 1^T alpha = 0.8,
    M = 1.2, R = 0.6, as in doc 002 §4."""
    X = np.array([[np.sqrt(0.5)], [-np.sqrt(0.5)]])
    return me2_primal(X, np.zeros(1), 1.0, 1.0, 1.0)


def close(e1, e2, tol=1e-12):
    """Polynomials equal up to float round-off in the coefficients (sqrt(0.5)^2 is 0.5000000000000001 in floats)."""
    d = sympy.expand(sympy.sympify(e1) - e2)
    syms = sorted(d.free_symbols, key=str)
    if not syms:
        return abs(float(d)) <= tol
    return all(abs(float(c)) <= tol for c in sympy.Poly(d, *syms).coeffs())


def kkt_residuals(model, sol):
    k = kkt_conditions(model)
    L = k.lagrangian
    point = L.model.point(sol.values)
    point.update(L.duals_from(sol))
    return k.residuals(point)


# ------------------------------------------------------------------ to_sympy and the Lagrangian
def test_to_sympy_renders_objective_and_constraints_exactly():
    sm = to_sympy(small_qp())
    x0, x1 = sm.symbols
    assert sympy.expand(sm.objective - ((x0 - 1) ** 2 + (x1 - 2) ** 2 + x0 + x1)) == 0
    assert sympy.expand(sm.constraints["budget"].s[0] - (1 - x0 - x1)) == 0  # <=: s = rhs - lhs
    assert sympy.expand(sm.constraints["tie"].s[0] - (x1 - x0 - sympy.Rational(1, 2))) == 0  # ==: s = lhs - rhs
    assert sm.constraints["lo"].s[0] == x0 - sympy.Rational(1, 4)


def test_symmetric_matrix_variable_shares_symbols():
    sm = to_sympy(me2_primal(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), np.zeros(2), 1.0, 1.0, 1.0))
    M = sm.variables["M"]
    assert M[0, 1] == M[1, 0] and len(sm.symbols) == 3 + 1 + 3  # M (3 free), R, xi (3)
    assert sm.constraints["margin"].s[2].has(M[0, 1])


def test_lagrangian_convention():
    m = small_qp()
    L = lagrangian(m)
    sm = L.model
    f = sm.objective
    expect = f - sum(z * s for name, c in sm.constraints.items() for z, s in zip(L.multipliers[name], c.s))
    assert sympy.expand(L.expr - expect) == 0
    assert all(z.is_nonnegative for z in L.multipliers["budget"])
    assert L.multipliers["tie"][0].is_nonnegative is None  # equality multipliers are free


# ------------------------------------------------------------------ KKT at numeric solutions
@pytest.mark.parametrize("build", [small_qp, small_lp, me2_1d])
def test_kkt_holds_at_the_numeric_solution(build):
    m = build()
    sol = m.solve()
    res = kkt_residuals(m, sol)
    assert all(v <= 1e-6 for v in res.values()), res


def test_kkt_with_second_order_cone():
    x, t = Variable(2, "x"), Variable((), "t")
    m = Model(minimize(t + sum_squares(x - np.array([2.0, 1.0]))), name="socp")
    m.add(SOC(t, x), name="cone")
    sol = m.solve()
    res = kkt_residuals(m, sol)
    assert all(v <= 1e-6 for v in res.values()), res


def test_kkt_detects_a_wrong_point():
    m = small_qp()
    sol = m.solve()
    k = kkt_conditions(m)
    point = k.lagrangian.model.point(sol.values)
    point.update({z: 0.0 for z in k.lagrangian.symbols})  # zero multipliers are not optimal here
    assert k.residuals(point)["stationarity"] > 0.1


def test_kkt_refuses_nonsmooth_atoms():
    x = Variable(2, "x")
    with pytest.raises(ModelError, match="epigraph"):
        kkt_conditions(Model(minimize(norm1(x)), [x >= 1]))


# ------------------------------------------------------------------ closed-form duals
@pytest.mark.parametrize("build", [small_qp, small_lp, me2_1d])
def test_derived_dual_optimum_equals_the_numeric_solve(build):
    m = build()
    p = m.solve().objective
    D = lagrange_dual(m)
    d = D.to_model().solve().objective
    assert d == pytest.approx(p, abs=1e-6)


def test_qp_dual_closed_form():
    D = lagrange_dual(small_qp())
    zb, zl, zt = D.multipliers
    assert set(D.primal) == set(to_sympy(small_qp()).symbols) and not D.linear_variables
    # x(z) minimises L: the gradient of L vanishes there
    L = D.lagrangian.expr
    for x in D.primal:
        assert sympy.simplify(sympy.diff(L, x).subs(D.primal)) == 0


def test_lp_dual_is_the_textbook_dual():
    D = lagrange_dual(small_lp())
    # max c^T y, A y <= b, y >= 0  <=>  dual min b^T z, A^T z >= c: here g = -(4 z_cap + 3 z_y1) with equalities
    assert sympy.expand(D.objective + 4 * D.multipliers[0] + 3 * D.multipliers[1]) == 0
    assert len([r for r in D.constraints if isinstance(r, sympy.Equality)]) == 2


def test_me2_dual_matches_the_papers_closed_forms():
    """n = 2, d = 1: the derived dual is the corrected dual of paper 002 and its optimum is the doc's p* = 0.2."""
    m = me2_1d()
    D = lagrange_dual(m)
    assert [str(v) for v in D.linear_variables] == ["xi_0", "xi_1"]
    sm = D.lagrangian.model
    al0, al1 = D.lagrangian.multipliers["margin"]
    g0, g1 = D.lagrangian.multipliers["xi>=0"]
    beta, = D.lagrangian.multipliers["R>=0"]
    delta, = D.lagrangian.multipliers["R<=B"]
    M, R = sm.variables["M"][0, 0], sm.variables["R"]
    # closed forms M = I + S(alpha)/(2 lam), R = B + (beta - delta - 1^T alpha)/(2 mu), with y^2 = (1/2, 1/2)
    assert close(D.primal[M], 1 + (al0 + al1) * sympy.Rational(1, 2) / 2)
    assert close(D.primal[R], 1 + (beta - delta - al0 - al1) / 2)
    # gamma_i = 1/n - alpha_i from the linear variables xi
    eqs = {sympy.expand(r.lhs - r.rhs) for r in D.constraints if isinstance(r, sympy.Equality)}
    assert len(eqs) == 2 and all(any(close(e, t) for e in eqs)
                                 for t in (sympy.Rational(1, 2) - al0 - g0, sympy.Rational(1, 2) - al1 - g1))
    # g(alpha, beta, delta) = -a^T diag G - a^T G' a/(4 lam) - (beta - delta - s)^2/(4 mu) + B s - B beta
    G = sympy.Matrix([[1, -1], [-1, 1]]) / 2
    a = sympy.Matrix([al0, al1])
    g = (-(a.T * sympy.Matrix([G[0, 0], G[1, 1]]))[0] - (a.T * G.multiply_elementwise(G) * a)[0] / 4
         - (beta - delta - al0 - al1) ** 2 / 4 + (al0 + al1) - beta)
    assert close(D.objective, g, tol=1e-9)
    assert D.to_model().solve().objective == pytest.approx(0.2, abs=1e-7)
    sol = m.solve()
    assert sol.objective == pytest.approx(0.2, abs=1e-7)
    assert float(np.sum(sol.dual("margin"))) == pytest.approx(0.8, abs=1e-6)
    assert float(sol.value("M")[0, 0]) == pytest.approx(1.2, abs=1e-6)
    assert float(sol.value("R")) == pytest.approx(0.6, abs=1e-6)


def test_dual_raises_when_quadratic_part_is_not_definite():
    x = Variable(2, "x")
    m = Model(minimize(sum_squares(x[0] - x[1]) + x.sum()), [x >= 0])  # P = [[2,-2],[-2,2]]: singular
    with pytest.raises(ModelError, match="positive definite"):
        lagrange_dual(m)
    y, t = Variable(2, "y"), Variable((), "t")
    with pytest.raises(ModelError, match="soc"):
        lagrange_dual(Model(minimize(t), [SOC(t, y), y >= 1]))


# ------------------------------------------------------------------ verify_identity
def test_verify_identity_true_and_false():
    a, b = sympy.symbols("a b", real=True)
    ok = verify_identity((a + b) ** 2, a ** 2 + 2 * a * b + b ** 2)
    assert ok.holds and ok.counterexample is None
    bad = verify_identity((a + b) ** 2, a ** 2 + b ** 2)
    assert not bad.holds and bad.counterexample
    ce = bad.counterexample
    assert ((a + b) ** 2).subs(ce) != (a ** 2 + b ** 2).subs(ce)
