"""The IR: expressions evaluate like numpy, DCP rules hold, bad input raises certiprog errors."""
import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import certiprog as cp_
from certiprog import (
    DCPError, InputError, Model, ModelError, Parameter, ShapeError, Variable, hstack, minimize, maximize,
    norm2, pos, quad_form, sum_squares, vstack,
)

RNG = np.random.default_rng(1234)


def test_affine_algebra_matches_numpy():
    rng = np.random.default_rng(0)
    X = Variable((4, 3), "X")
    x = Variable(3, "x")
    A, B, c = rng.standard_normal((5, 4)), rng.standard_normal((3, 2)), rng.standard_normal(3)
    Xv, xv = rng.standard_normal((4, 3)), rng.standard_normal(3)
    vals = {X: Xv, x: xv}
    cases = [
        (A @ X @ B, A @ Xv @ B),
        (X @ c + 1.0, Xv @ c + 1.0),
        (X.T @ A.T, Xv.T @ A.T),
        ((2 * X - 3)[1:, ::2], (2 * Xv - 3)[1:, ::2]),
        (X.sum(axis=0) - x, Xv.sum(axis=0) - xv),
        (X.sum(axis=1), Xv.sum(axis=1)),
        (X.sum(), Xv.sum()),
        (x * c / 2.0, xv * c / 2.0),
        (c @ x, c @ xv),
        (x @ c, xv @ c),
        (X[:3, :].trace(), np.trace(Xv[:3, :])),
        (hstack([x, c]), np.concatenate([xv, c])),
        (vstack([x, c]), np.vstack([xv, c])),
        (hstack([X, X[:, :1]]), np.hstack([Xv, Xv[:, :1]])),
        (X + x, Xv + xv),  # broadcasting
        (-(x[0]) + x, -xv[0] + xv),
        (sp.csr_matrix(A) @ X, A @ Xv),
    ]
    for expr, ref in cases:
        np.testing.assert_allclose(expr.value_at(vals), ref, atol=1e-12)


def test_symmetric_variable_and_svec_roundtrip():
    S = Variable((3, 3), "S", symmetric=True)
    assert S.n_free == 6
    M = np.array([[1.0, 2, 3], [2, 4, 5], [3, 5, 6]])
    np.testing.assert_allclose(S.unflat(S.flat(M)), M)
    np.testing.assert_allclose(S.value_at({S: M}), M)


def test_atoms_numeric_values():
    rng = np.random.default_rng(1)
    x = Variable(4, "x")
    xv = rng.standard_normal(4)
    Q = rng.standard_normal((4, 4))
    Q = Q @ Q.T
    vals = {x: xv}
    assert np.isclose(norm2(x).value_at(vals), np.linalg.norm(xv))
    assert np.isclose(sum_squares(x).value_at(vals), xv @ xv)
    assert np.isclose(quad_form(x, Q).value_at(vals), xv @ Q @ xv)
    np.testing.assert_allclose(pos(x).value_at(vals), np.maximum(xv, 0))
    assert np.isclose(cp_.pnorm(x, 3).value_at(vals), np.linalg.norm(xv, 3))


def test_curvature_rules():
    x = Variable(3, "x")
    assert norm2(x).curvature == "convex"
    assert (-norm2(x)).curvature == "concave"
    assert (norm2(x) - sum_squares(x)).curvature == "unknown"
    assert (x + 1).curvature == "affine"
    with pytest.raises(DCPError, match="smaller side"):
        _ = norm2(x) >= 1
    with pytest.raises(DCPError):
        maximize(norm2(x))
    with pytest.raises(DCPError):
        minimize(-norm2(x))
    with pytest.raises(DCPError, match="not convex"):
        _ = x * x
    with pytest.raises(DCPError, match="affine"):
        norm2(pos(x))
    with pytest.raises(DCPError):
        _ = norm2(x) == 1


def test_shape_and_input_errors():
    x = Variable(3, "x")
    with pytest.raises(ShapeError, match="cannot add"):
        _ = x + np.ones(4)
    with pytest.raises(ShapeError, match="do not align"):
        _ = np.ones((2, 4)) @ x
    with pytest.raises(InputError, match="NaN"):
        _ = x + np.array([1.0, np.nan, 0.0])
    with pytest.raises(InputError, match="indefinite"):
        quad_form(x, np.diag([1.0, -1.0, 1.0]))
    with pytest.raises(InputError, match="not symmetric"):
        quad_form(x, np.array([[1.0, 1, 0], [0, 1, 0], [0, 0, 1]]))
    with pytest.raises(ShapeError):
        Variable((2, 3), "S", symmetric=True)
    with pytest.raises(ShapeError, match="scalar"):
        minimize(x)
    m = Model(minimize(x.sum()), [x >= 0], name="m")
    with pytest.raises(ModelError, match="already exists"):
        m.add(x <= 1, name="c0")
    p = Parameter(2, "p")
    with pytest.raises(ShapeError):
        p.value = np.ones(3)
    m2 = Model(minimize(sum_squares(x[:2] - p)))
    with pytest.raises(InputError, match="no value"):
        m2.solve()
    with pytest.raises(ModelError, match="two different variables"):
        Model(minimize(Variable(1, "z").sum() + Variable(1, "z").sum())).solve()


def test_statuses_infeasible_unbounded_are_not_exceptions():
    x = Variable(2, "x")
    for backend in ("clarabel", "cvxpy"):
        s = Model(minimize(x.sum()), [x >= 1, x.sum() <= 1]).solve(backend=backend)
        assert s.status == "infeasible" and s.status.primal.startswith("infeasible") and s.objective == np.inf
        s = Model(minimize(x.sum()), [x <= 1]).solve(backend=backend)
        assert s.status == "unbounded" and s.objective == -np.inf
        s = Model(maximize(x.sum()), [x >= 1]).solve(backend=backend)
        assert s.status == "unbounded" and s.objective == np.inf
        with pytest.raises(ModelError, match="no primal point"):
            s.value("x")


def test_parameter_refill_keeps_structure():
    rng = np.random.default_rng(2)
    p = Parameter(5, "p", value=rng.standard_normal(5))
    A = Parameter((3, 5), "A", value=rng.standard_normal((3, 5)))
    x = Variable(5, "x")
    m = Model(minimize(sum_squares(x - p) + norm2(A @ x)), [x >= -1, x <= 1])
    s1 = m.solve()
    structure = m.compile()
    for _ in range(3):
        p.value = rng.standard_normal(5)
        A.value = rng.standard_normal((3, 5))
        s = m.solve()
        assert m.compile() is structure  # no re-canonicalisation
        fresh = Model(minimize(sum_squares(x - p.value) + norm2(A.value @ x)), [x >= -1, x <= 1]).solve()
        assert abs(s.objective - fresh.objective) <= 1e-6 * (1 + abs(fresh.objective))
    assert s1.objective != s.objective
    assert set(m.parameters) == {"p", "A"}


def test_building_1e5_rows_is_fast():
    rng = np.random.default_rng(3)
    n, d = 100_000, 10
    X = rng.standard_normal((n, d))
    w = Variable(d, "w")
    xi = Variable(n, "xi", nonneg=True)
    t0 = time.perf_counter()
    m = Model(minimize(xi.sum() + sum_squares(w)), [X @ w >= 1 - xi])
    prob = m.compile().assemble()
    elapsed = time.perf_counter() - t0
    assert prob.A.shape[0] == 2 * n
    print(f"building + compiling 2e5 rows: {elapsed:.2f} s (benchmarks/compile_overhead.py measures it)")


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(0, 10_000))
def test_indexing_matches_numpy(m, n, seed):
    rng = np.random.default_rng(seed)
    X = Variable((m, n), "X")
    Xv = rng.standard_normal((m, n))
    i = rng.integers(0, m)
    keys = [(slice(None), 0), i, (slice(None, None, -1), slice(0, n)), (rng.integers(0, m, 3),)]
    for k in keys:
        np.testing.assert_allclose(X[k].value_at({X: Xv}), Xv[k])
