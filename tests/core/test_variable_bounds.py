"""Variable(shape, bounds=(lb, ub)): validation, compilation to rows every backend and certificate sees, the bound
duals, and the finite box the certificates derive from them."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from certiprog.certify import check
from certiprog.certify.box import variable_box
from certiprog.audit.symbolic import kkt_conditions
from certiprog.errors import CertiprogError, InputError, ShapeError
from certiprog.model import (
    SOC, Model, Variable, concatenate, hstack, maximize, minimize, pos, stack, sum_squares, vstack,
)
from certiprog.solvers import available_backends


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize("bounds, error, words", [
    ((np.nan, 1.0), InputError, "NaN"),
    ((0.0, [1.0, np.nan, 2.0]), InputError, "NaN"),
    ((2.0, 1.0), InputError, "lb > ub"),
    (([0.0, 3.0, 0.0], 2.0), InputError, r"lb > ub at entry \(1,\)"),
    ((np.inf, None), InputError, "no real value"),
    ((None, -np.inf), InputError, "no real value"),
    (([0.0, 1.0], 2.0), ShapeError, "does not broadcast"),
    ((0.0, 1j), InputError, "complex"),
    (("a", 1.0), InputError, "real numbers"),
    ((0.0,), InputError, "pair"),
    ((0.0, 1.0, 2.0), InputError, "pair"),
    (1.0, InputError, "pair"),
    ("ab", InputError, "pair"),
])
def test_bad_bounds_name_the_argument_and_the_fix(bounds, error, words):
    with pytest.raises(error, match=words) as info:
        Variable(3, "x", bounds=bounds)
    assert isinstance(info.value, CertiprogError)
    assert "'x'" in str(info.value) or "bounds" in str(info.value)


def test_bad_shapes_and_constants_raise_certiprog_errors():
    for bad, words in ((-1, ">= 0"), (2.5, "int"), ((2, -3), ">= 0"), ("3", "int"), ((2, 2, 2), "not supported")):
        with pytest.raises(ShapeError, match=words):
            Variable(bad)
    x = Variable(2)
    with pytest.raises(InputError, match="complex"):
        x + np.array([1j, 2.0])
    with pytest.raises(InputError, match="complex"):
        Model(minimize(x.sum()), [x >= 1 + 2j])
    with pytest.raises(InputError, match="not symmetric"):
        Variable((2, 2), symmetric=True, bounds=(np.array([[0.0, 1.0], [0.0, 0.0]]), None))


def test_bounds_broadcast_and_default_to_unbounded():
    x = Variable((2, 3), "x", bounds=(np.array([0.0, -np.inf, 1.0]), None))
    lb, ub = x.bounds
    np.testing.assert_array_equal(lb, np.tile([0.0, -np.inf, 1.0], (2, 1)))
    assert np.all(np.isposinf(ub)) and x.ub is None
    assert Variable(2, bounds=(None, None)).lb is None
    assert Variable(2, bounds=(-np.inf, np.inf)).domain() == []
    names = [name for name, _, _ in Variable(3, "y", bounds=([0.0, 1.0, -np.inf], [0.0, 2.0, 5.0])).domain()]
    assert names == ["y==bound", "y>=lb", "y<=ub"]


# ------------------------------------------------------------------ solving on every backend
def lp_bound_attr():
    """CVXPY's lp_bound_attr: min x0 + x1/2 over -100 <= x0 <= -10, x1 = 1 (bounds only): -99.5 at (-100, 1)."""
    x = Variable(2, "x", bounds=[np.array([-100.0, 1.0]), np.array([-10.0, 1.0])])
    return x, Model(minimize(x[0] + 0.5 * x[1]))


@pytest.mark.parametrize("backend", available_backends())
def test_lp_bounds_on_every_backend(backend):
    x, model = lp_bound_attr()
    if backend not in available_backends(model=model):
        pytest.skip(f"{backend} does not take this model")
    sol = model.solve(backend=backend)
    assert sol.status.termination == "optimal"
    assert sol.objective == pytest.approx(-99.5, abs=1e-6)
    np.testing.assert_allclose(sol.value("x"), [-100.0, 1.0], atol=1e-6)
    z_lb, z_ub = x.bound_duals(sol)  # stationarity: c = z_lb - z_ub, so z_lb - z_ub = (1, 0.5)
    np.testing.assert_allclose(z_lb - z_ub, [1.0, 0.5], atol=1e-6)
    assert np.all(z_lb >= -1e-8) and np.all(z_ub >= -1e-8)
    cert = check(model, sol)
    assert cert.verdict == "certified", (cert.verdict, cert.interval, cert.interval_notes)
    assert cert.interval[0] <= -99.5 + 1e-6 and cert.interval[1] >= -99.5 - 1e-6


def test_qp_bounds_and_maximize():
    """CVXPY's qp_bound_attr: min ||x||^2 over [1, 10] x [-5, 5] is 1 at (1, 0); its maximisation twin."""
    x = Variable(2, "x", bounds=[np.array([1.0, -5.0]), np.array([10.0, 5.0])])
    sol = Model(minimize(sum_squares(x))).solve(backend="clarabel")
    assert sol.objective == pytest.approx(1.0, abs=1e-7)
    np.testing.assert_allclose(sol.value("x"), [1.0, 0.0], atol=1e-6)
    z_lb, z_ub = x.bound_duals(sol)
    np.testing.assert_allclose(z_lb, [2.0, 0.0], atol=1e-6)  # gradient 2x = z_lb - z_ub
    np.testing.assert_allclose(z_ub, [0.0, 0.0], atol=1e-6)
    y = Variable(2, "y", bounds=(-1.0, [2.0, 3.0]))
    sol = Model(maximize(y.sum())).solve(backend="clarabel")
    assert sol.objective == pytest.approx(5.0, abs=1e-7)
    np.testing.assert_allclose(y.bound_duals(sol)[1], [1.0, 1.0], atol=1e-6)  # duals of minimize -f


def test_symmetric_bounds_bound_each_entry_once():
    X = Variable((2, 2), "X", symmetric=True, bounds=(-1.0, np.array([[2.0, 0.5], [0.5, 3.0]])))
    assert [c.rows for _, c, _ in X.domain()] == [3, 3]
    sol = Model(maximize(X.sum())).solve(backend="clarabel")
    np.testing.assert_allclose(sol.value("X"), [[2.0, 0.5], [0.5, 3.0]], atol=1e-6)
    z_ub = X.bound_duals(sol)[1]
    np.testing.assert_allclose(z_ub, [[1.0, 2.0], [2.0, 1.0]], atol=1e-6)  # an off-diagonal entry counts twice


def test_nonneg_and_bounds_together():
    x = Variable(3, "x", nonneg=True, bounds=(-5.0, 4.0))
    sol = Model(minimize(x @ np.array([1.0, -1.0, 0.0]))).solve(backend="clarabel")
    np.testing.assert_allclose(sol.value("x")[:2], [0.0, 4.0], atol=1e-6)


# ------------------------------------------------------------------ the certificates use them
def test_bounds_give_the_certificates_a_finite_box():
    """Without bounds the box of a free LP column is infinite; with bounds variable_box returns them (widened by
    at most a relative 1e-8)."""
    lb, ub = np.array([-3.0, 0.5, -np.inf]), np.array([2.0, 7.0, 1.0])
    x = Variable(3, "x", bounds=(lb, ub))
    model = Model(minimize(x @ np.array([1.0, 1.0, -1.0])))
    problem = model.compile().assemble()
    lo, hi = variable_box(problem)
    finite = np.isfinite(lb)
    np.testing.assert_allclose(lo[finite], lb[finite], rtol=1e-8)
    np.testing.assert_allclose(hi, ub, rtol=1e-8)
    assert np.all(lo <= lb) and np.all(hi >= ub)
    free = Model(minimize(Variable(3, "x") @ np.array([1.0, 1.0, -1.0])), [Variable(3) >= 0])
    lo, hi = variable_box(free.compile().assemble())
    assert not np.isfinite(lo[:3]).any() and not np.isfinite(hi[:3]).any()
    sol = model.solve(backend="clarabel")
    cert = check(model, sol)
    assert cert.verdict == "certified" and np.all(np.isfinite(cert.interval))
    assert cert.interval[0] <= -3.0 + 0.5 - 1.0 + 1e-6 <= cert.interval[1] + 2e-6


def test_bounds_make_the_lower_end_finite():
    """CVXPY's lp_7 (free variables): the interval's lower end is -inf without a box, finite with bounds."""
    n = 50
    ends = []
    for bnd in (None, (-10.0, 10.0)):
        a, delta, b = (Variable(k, name, bounds=bnd) for k, name in ((n + 1, "a"), (n, "delta"), (n + 1, "b")))
        m = Model(minimize(pos(delta).sum()), [a[1:] - a[:-1] == delta, a >= pos(b)])
        ends.append(check(m, m.solve(backend="clarabel")).interval)
    assert ends[0][0] == -np.inf
    assert np.all(np.isfinite(ends[1])) and ends[1][0] <= 0.0 <= ends[1][1] + 1e-9 and ends[1][1] - ends[1][0] < 1e-8


def test_symbolic_kkt_sees_the_bounds():
    x = Variable(2, "x", bounds=([0.0, 1.0], [1.0, 1.0]))
    model = Model(minimize(sum_squares(x - np.array([3.0, 0.0]))))
    assert set(kkt_conditions(model).lagrangian.multipliers) == {"x>=lb", "x<=ub", "x==bound"}
    sol = model.solve(backend="clarabel")
    np.testing.assert_allclose(sol.value("x"), [1.0, 1.0], atol=1e-6)
    k = kkt_conditions(model)
    point = k.lagrangian.model.point(sol.values)
    point.update(k.lagrangian.duals_from(sol))
    res = k.residuals(point)
    assert all(v <= 1e-6 for v in res.values()), res


# ------------------------------------------------------------------ fuzz: only certiprog errors
ODD = st.one_of(
    st.sampled_from([None, "a", b"x", 1j, np.nan, np.inf, -np.inf, True, [1, "a"], [[1, 2], [3]], {}, object(),
                     10**400, (2, -1), (None, None), (np.inf, None), (None, -np.inf), (1, 0), ([0, 1], [1, 0]),
                     (np.zeros((2, 2, 2)), None), (sp.csr_matrix(np.eye(3)), 1.0), ([1, 2, 3], [4, 5, 6])]),
    st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True), st.complex_numbers(max_magnitude=3),
    st.tuples(st.one_of(st.none(), st.floats(allow_nan=True),
                        hnp.arrays(np.float64, st.sampled_from([(3,), (1, 3), (2,)]))),
              st.one_of(st.none(), st.floats(allow_nan=True), hnp.arrays(np.float64, st.sampled_from([(3,), (3, 1)])))),
    hnp.arrays(st.sampled_from([np.float64, np.complex128, np.int64]),
               hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)),
)


def _fuzz_targets():
    x, X = Variable(3, "x"), Variable((2, 3), "X")

    def bounded(b):
        v = Variable(3, "v", bounds=b)
        Model(minimize(v.sum()), [v <= 1]).compile().assemble()

    return {
        "Variable(bounds=b)": bounded,
        "Variable(2x2, symmetric, bounds=b)": lambda b: Variable((2, 2), symmetric=True, bounds=b).domain(),
        "SOC(axis=b)": lambda b: SOC(np.ones(3), X, axis=b),
        "SOC(b, X, axis=0)": lambda b: SOC(b, X, axis=0),
        "stack(axis=b)": lambda b: stack([x, x], axis=b), "concatenate(axis=b)": lambda b: concatenate([X, X], axis=b),
        "vstack([x, b])": lambda b: vstack([x, b]), "hstack([x, b])": lambda b: hstack([x, b]),
        "stack([x, b])": lambda b: stack([x, b]), "concatenate([X, b])": lambda b: concatenate([X, b], axis=1),
    }


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(sorted(_fuzz_targets())), ODD)
def test_fuzz_new_arguments_raise_only_certiprog_errors(target, bad):
    try:
        _fuzz_targets()[target](bad)
    except CertiprogError:
        pass


def test_bound_duals_ignore_a_constraint_of_the_same_name():
    x = Variable(2, "x", bounds=(0.0, None))
    m = Model(minimize(x.sum()), {"x>=lb": x[0] >= 1.0})
    sol = m.solve(backend="clarabel")
    np.testing.assert_allclose(sol.value("x"), [1.0, 0.0], atol=1e-7)
    np.testing.assert_allclose(x.bound_duals(sol)[0], [0.0, 1.0], atol=1e-7)
    np.testing.assert_allclose(sol.dual("x>=lb"), 1.0, atol=1e-7)


def test_separable_diagonal_reads_off_diagonal_entries():
    """`box._separable_diagonal`: P's diagonal when P is diagonal and >= 0 (stored zeros off the diagonal and
    duplicates on it allowed), None when an off-diagonal entry is nonzero (also after summing duplicates) or a
    diagonal entry is negative."""
    import types

    import scipy.sparse as sp

    from certiprog.certify.box import _separable_diagonal

    def prob(P):
        return types.SimpleNamespace(P=P)

    n = 5
    idx = np.arange(n)
    d = np.array([0.0, 1.0, 2.5, 0.0, 4.0])
    np.testing.assert_array_equal(_separable_diagonal(prob(sp.csc_matrix(np.diag(d)))), d)
    stored_zero = sp.csr_matrix((np.r_[d, 0.0], (np.r_[idx, 0], np.r_[idx, 3])), shape=(n, n))
    np.testing.assert_array_equal(_separable_diagonal(prob(stored_zero)), d)
    dup = sp.csr_matrix((np.r_[1.0, 2.0, 3.0], np.array([1, 1, 2]), np.array([0, 0, 2, 3])), shape=(3, 3))
    assert not dup.has_canonical_format  # (1, 1) stored twice
    np.testing.assert_array_equal(_separable_diagonal(prob(dup)), [0.0, 3.0, 3.0])
    off = sp.csr_matrix(np.diag(d) + np.eye(n, k=1) * 1e-300)
    assert _separable_diagonal(prob(off)) is None
    cancel = sp.csr_matrix((np.r_[1.0, -1.0, 1.0], np.array([1, 1, 1]), np.array([0, 2, 3])), shape=(2, 2))
    assert not cancel.has_canonical_format
    np.testing.assert_array_equal(_separable_diagonal(prob(cancel)), [0.0, 1.0])  # (0, 1) sums to an exact zero
    assert _separable_diagonal(prob(sp.csr_matrix(np.diag(-d)))) is None
