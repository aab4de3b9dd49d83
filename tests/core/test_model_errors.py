"""Bad input to the model layer raises a CertiprogError naming the argument, never a raw Python error;
data that make a model non-convex are refused before any backend runs."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from certiprog import (
    PSD, SOC, DCPError, Equality, Expression, ForAll, Inequality, InputError, LqEllipsoid, Model, ModelError,
    OracleSet, Parameter, PointCloud, PowerCone3D, ShapeError, Variable, abs_, as_expression, hinge, hstack,
    matmul, max_entries, maximize, minimize, norm1, norm2, norm_inf, pnorm, pos, psd_factor, quad_form,
    quad_over_lin, sum_squares, vstack,
)
from certiprog.errors import CertiprogError, NonConvexError
from certiprog.model import atoms

# ------------------------------------------------------------------ the list, one by one
x3 = Variable(3, "x")


def _known_bad():
    x, X = Variable(3, "x"), Variable((3, 3), "X")
    return {
        "Variable(-1)": (lambda: Variable(-1), ShapeError, "nonnegative|>= 0"),
        "Variable(2.5)": (lambda: Variable(2.5), ShapeError, "int"),
        "Variable('3')": (lambda: Variable("3"), ShapeError, "int"),
        "Variable((2.0,))": (lambda: Variable((2.0,)), ShapeError, "integers"),
        "Variable(True)": (lambda: Variable(True), ShapeError, "int"),
        "Variable(10**12)": (lambda: Variable(10**12), ShapeError, "entries"),
        "Variable(name=3)": (lambda: Variable(3, 3), InputError, "name"),
        "Variable(nonneg='yes')": (lambda: Variable(3, nonneg="yes"), InputError, "nonneg"),
        "Parameter complex": (lambda: Parameter(2, value=[1 + 1j, 2]), InputError, "complex"),
        "Parameter complex, zero imaginary": (lambda: Parameter(1, value=np.array([1 + 0j])), InputError, "complex"),
        "Parameter string": (lambda: Parameter((), value="1.5"), InputError, "real numbers"),
        "Parameter None": (lambda: setattr(Parameter((), "p"), "value", None), InputError, "None"),
        "complex constant": (lambda: x + np.array([1j, 0, 0]), InputError, "complex"),
        "complex scalar": (lambda: 2j * x, InputError, "complex"),
        "NaN constant": (lambda: x + np.nan, InputError, "NaN"),
        "inf constant": (lambda: x <= np.inf, InputError, "NaN or inf"),
        "huge int constant": (lambda: x + 10**400, InputError, "real numbers"),
        "3-d constant": (lambda: x + np.ones((1, 1, 3)), ShapeError, "dimensions"),
        "x ** 0.5": (lambda: x ** 0.5, DCPError, "p >= 1"),
        "x ** 'a'": (lambda: x ** "a", InputError, "real number >= 1"),
        "x ** x": (lambda: x ** x, DCPError, "exponent"),
        "2 ** x": (lambda: 2 ** x, DCPError, "not supported"),
        "1 / x": (lambda: 1 / x, DCPError, "inv_pos"),
        "x * x": (lambda: x * x, DCPError, "not convex"),
        "x @ x": (lambda: x @ x, DCPError, "not convex"),
        "x / 0": (lambda: x / 0, InputError, "zero"),
        "x[5]": (lambda: x[5], ShapeError, "index"),
        "x[x]": (lambda: x[x], ShapeError, "index"),
        "X.sum(axis=2)": (lambda: X.sum(axis=2), ShapeError, "axis"),
        "x.sum(axis='a')": (lambda: x.sum(axis="a"), ShapeError, "axis"),
        "wrong shapes": (lambda: x + np.ones(4), ShapeError, "cannot add"),
        "iterate a scalar": (lambda: list(x[0]), ShapeError, "not iterable"),
        "bool(expr)": (lambda: bool(x[0]), DCPError, "truth value"),
        "pnorm(x, 'a')": (lambda: pnorm(x, "a"), InputError, "p must be a real number"),
        "pnorm(x, 1j)": (lambda: pnorm(x, 1j), InputError, "real number"),
        "pnorm(x, 0.5)": (lambda: pnorm(x, 0.5), DCPError, "p >= 1"),
        "pnorm(x, nan)": (lambda: pnorm(x, np.nan), DCPError, "p >= 1"),
        "PowerCone3D(alpha=[.5, .5])": (lambda: PowerCone3D(x, x, x, alpha=[0.5, 0.5]), ShapeError, "alpha"),
        "PowerCone3D(alpha='0.5')": (lambda: PowerCone3D(x, x, x, "0.5"), InputError, "alpha"),
        "PowerCone3D(alpha=1.5)": (lambda: PowerCone3D(x, x, x, 1.5), DCPError, "0 < alpha < 1"),
        "PowerCone3D(norm2(x), ...)": (lambda: PowerCone3D(norm2(x), 1, 1, 0.5), DCPError, "affine"),
        "quad_form shape": (lambda: quad_form(x, np.eye(4)), ShapeError, "expected"),
        "quad_form complex": (lambda: quad_form(x, 1j * np.eye(3)), InputError, "complex"),
        "quad_form sparse complex": (lambda: quad_form(x, 1j * sp.eye(3)), InputError, "complex"),
        "quad_form NaN": (lambda: quad_form(x, np.full((3, 3), np.nan)), InputError, "NaN"),
        "quad_form expression Q": (lambda: quad_form(x, as_expression(np.eye(3))), InputError, "Parameter"),
        "quad_form assume_psd='y'": (lambda: quad_form(x, np.eye(3), assume_psd="y"), InputError, "assume_psd"),
        "quad_over_lin(x, -1)": (lambda: quad_over_lin(x, -1.0), NonConvexError, "positive"),
        "quad_over_lin(x, vector)": (lambda: quad_over_lin(x, np.ones(2)), ShapeError, "scalar"),
        "max_entries(empty)": (lambda: max_entries(x[:0]), ShapeError, "empty"),
        "hinge('a')": (lambda: hinge("a"), InputError, "real numbers"),
        "norm2(pos(x))": (lambda: norm2(pos(x)), DCPError, "affine"),
        "SOC shapes": (lambda: SOC(x, X[:2]), ShapeError, "SOC"),
        "PSD non-square": (lambda: PSD(X[:2]), ShapeError, "square"),
        "vstack(3)": (lambda: vstack(3), ShapeError, "list of expressions"),
        "Model('x')": (lambda: Model("x"), ModelError, "objective"),
        "Model(obj, x >= 0)": (lambda: Model(minimize(x.sum()), x >= 0), ModelError, "list"),
        "Model(name=3)": (lambda: Model(None, [], name=3), ModelError, "name"),
        "minimize(vector)": (lambda: minimize(x), ShapeError, "scalar"),
        "maximize(convex)": (lambda: maximize(norm2(x)), DCPError, "concave"),
        "compile(forall=[...])": (lambda: Model(minimize(x.sum())).compile(forall=[1]), ModelError, "forall"),
        "ForAll(U, 3)": (lambda: ForAll(LqEllipsoid(np.ones(3), np.eye(3), np.ones(3)), 3), DCPError, "fn"),
        "LqEllipsoid(q='2')": (lambda: LqEllipsoid(np.ones(3), np.eye(3), np.ones(3), q="2"), InputError, "q"),
        "LqEllipsoid(basis=3)": (lambda: LqEllipsoid(np.ones(3), 3.0, np.ones(3)), InputError, "basis"),
        "OracleSet(oracle=3)": (lambda: OracleSet(3, np.ones((1, 3))), InputError, "oracle"),
        "OracleSet(dim='a')": (lambda: OracleSet(lambda a: -a, np.ones((1, 3)), dim="a"), InputError, "dim"),
    }


@pytest.mark.parametrize("case", sorted(_known_bad()))
def test_known_bad_inputs_raise_certiprog_errors(case):
    fn, error, match = _known_bad()[case]
    with pytest.raises(error, match=match):
        fn()


# ------------------------------------------------------------------ fuzz over the public model API
BAD = st.one_of(
    st.sampled_from([None, "a", "", b"x", 1j, np.nan, np.inf, -np.inf, True, False, [1, "a"], [[1, 2], [3]], {},
                     object(), (lambda u: u), 10**400, 2**40, slice(None), Ellipsis, (2, -1), (2.0,), ("3",), (1, 2, 3),
                     np.zeros((2, 2, 2)), sp.csr_matrix(np.eye(3) * 1j), sp.csr_matrix(np.eye(3)), np.float64(np.nan)]),
    st.integers(-10, 12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(),
    st.text(max_size=4),
    hnp.arrays(st.sampled_from([np.float64, np.complex128, np.int64, np.bool_]),
               hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)),
    st.lists(st.one_of(st.floats(allow_nan=True), st.integers(-5, 5), st.complex_numbers(max_magnitude=3)), max_size=4),
    st.tuples(st.integers(-3, 5), st.integers(-3, 5)),
)


def _targets():
    x, X, t = Variable(3, "x"), Variable((3, 3), "X"), Variable((), "t")
    p = Parameter(3, "p", value=np.ones(3))
    U = LqEllipsoid(np.ones(3), np.eye(3), np.ones(3))
    m = Model(minimize(x.sum()), [x >= 0], name="m")
    return {
        "Variable(shape)": lambda b: Variable(b), "Variable(name)": lambda b: Variable(3, b),
        "Variable(nonneg)": lambda b: Variable(3, nonneg=b),
        "Variable(symmetric)": lambda b: Variable((2, 2), symmetric=b),
        "Parameter(shape)": lambda b: Parameter(b), "Parameter(value)": lambda b: Parameter(3, value=b),
        "Parameter(nonneg)": lambda b: Parameter(3, nonneg=b), "Parameter(name)": lambda b: Parameter(3, b),
        "p.value =": lambda b: setattr(p, "value", b), "x.value =": lambda b: setattr(x, "value", b),
        "Expression(shape)": lambda b: Expression(b), "as_expression": as_expression,
        "x + b": lambda b: x + b, "b + x": lambda b: b + x, "x - b": lambda b: x - b, "b - x": lambda b: b - x,
        "x * b": lambda b: x * b, "b * x": lambda b: b * x, "x / b": lambda b: x / b, "b / x": lambda b: b / x,
        "x @ b": lambda b: x @ b, "b @ x": lambda b: b @ x, "matmul(b, x)": lambda b: matmul(b, x),
        "x ** b": lambda b: x ** b,
        "x <= b": lambda b: x <= b, "x >= b": lambda b: x >= b, "x == b": lambda b: x == b, "b <= x": lambda b: b <= x,
        "b == x": lambda b: b == x, "X >> b": lambda b: X >> b, "b >> X": lambda b: b >> X, "X << b": lambda b: X << b,
        "x[b]": lambda b: x[b], "X[b]": lambda b: X[b], "X.sum(axis=b)": lambda b: X.sum(axis=b),
        "x.reshape(b)": lambda b: x.reshape(b), "x.broadcast_to(b)": lambda b: x.broadcast_to(b),
        "x.value_at": lambda b: x.value_at({x: b}), "trace": lambda b: as_expression(b).trace(),
        "pnorm(x, b)": lambda b: pnorm(x, b), "pnorm(b)": pnorm, "norm2": norm2, "norm1": norm1, "norm_inf": norm_inf,
        "hinge": hinge, "pos": pos, "abs_": abs_, "max_entries": max_entries, "sum_squares": sum_squares,
        "quad_over_lin(x, b)": lambda b: quad_over_lin(x, b), "quad_over_lin(b, 1)": lambda b: quad_over_lin(b, 1.0),
        "quad_form(x, b)": lambda b: quad_form(x, b), "quad_form(b, I)": lambda b: quad_form(b, np.eye(3)),
        "quad_form(assume_psd=b)": lambda b: quad_form(x, np.eye(3), assume_psd=b), "psd_factor": psd_factor,
        "check_psd": atoms.check_psd, "SOC(b, x)": lambda b: SOC(b, x), "SOC(t, b)": lambda b: SOC(t, b), "PSD": PSD,
        "PowerCone3D(alpha=b)": lambda b: PowerCone3D(x, x, x, b),
        "PowerCone3D(b, ...)": lambda b: PowerCone3D(b, x, x, 0.5),
        "hstack": hstack, "vstack": vstack, "vstack([x, b])": lambda b: vstack([x, b]),
        "Equality(b, x)": lambda b: Equality(b, x), "Inequality(x, b)": lambda b: Inequality(x, b),
        "Model(b)": Model, "Model(obj, b)": lambda b: Model(minimize(x.sum()), b),
        "Model(name=b)": lambda b: Model(minimize(x.sum()), [], name=b), "m.add(b)": m.add,
        "m.add(name=b)": lambda b: m.add(x <= 5, name=b), "m.remove": m.remove, "m.minimize": m.minimize,
        "m.maximize": m.maximize, "m.variable": m.variable, "m.compile(forall=b)": lambda b: m.compile(forall=b),
        "minimize": minimize, "maximize": maximize,
        "ForAll(b, fn)": lambda b: ForAll(b, lambda u: x @ u >= 1), "ForAll(U, b)": lambda b: ForAll(U, b),
        "LqEllipsoid(center)": lambda b: LqEllipsoid(b, np.eye(3), np.ones(3)),
        "LqEllipsoid(basis)": lambda b: LqEllipsoid(np.ones(3), b, np.ones(3)),
        "LqEllipsoid(radii)": lambda b: LqEllipsoid(np.ones(3), np.eye(3), b),
        "LqEllipsoid(q)": lambda b: LqEllipsoid(np.ones(3), np.eye(3), np.ones(3), q=b), "PointCloud": PointCloud,
        "OracleSet(oracle)": lambda b: OracleSet(b, np.ones((1, 3))),
        "OracleSet(points)": lambda b: OracleSet(lambda a: -a, b),
        "OracleSet(dim)": lambda b: OracleSet(lambda a: -a, np.ones((1, 3)), dim=b),
    }


TARGETS = sorted(_targets())


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.sampled_from(TARGETS), BAD)
def test_fuzz_model_api_raises_only_certiprog_errors(target, bad):
    """Any argument either works or raises a CertiprogError (never TypeError, ValueError, IndexError, ...).

    Not covered: ``sparse ** expr`` (SciPy's own __pow__ raises before Python asks the expression).
    """
    fn = _targets()[target]
    try:
        fn(bad)
    except CertiprogError:
        pass


# ------------------------------------------------------------------ non-convex data refused before solving
def _no_backend(monkeypatch):
    """Make every solve fail loudly if it reaches a backend."""
    from certiprog import solvers

    def boom(*a, **k):
        raise AssertionError("a backend was called")

    monkeypatch.setattr(solvers, "solve_conic", boom)


def test_parameter_q_set_indefinite_is_refused_before_any_backend(monkeypatch):
    x = Variable(2, "x")
    Q = Parameter((2, 2), "Q", value=np.eye(2))
    m = Model(minimize(quad_form(x, Q) + x.sum()), [x >= -1, x <= 1])
    assert m.solve().status == "optimal"
    Q.value = np.array([[1.0, 0.0], [0.0, -1.0]])  # the issue: a saddle point used to come back 'certified'
    _no_backend(monkeypatch)
    with pytest.raises(NonConvexError, match="parameter 'Q'.*indefinite"):
        m.solve()
    with pytest.raises(DCPError):  # also a DCPError and an InputError
        m.compile().assemble()
    Q.value = np.array([[2.0, 3.0], [3.0, 2.0]])  # positive diagonal, not diagonally dominant, indefinite
    with pytest.raises(NonConvexError, match="smallest eigenvalue -1"):
        m.compile().assemble()


def test_parameter_q_in_a_constraint_is_checked_too():
    x = Variable(2, "x")
    Q = Parameter((2, 2), "Q", value=np.diag([4.0, 1.0]))
    m = Model(minimize(x.sum()), [quad_form(x, Q) <= 1])
    assert m.solve().objective == pytest.approx(-np.sqrt(1.25), abs=1e-6)
    Q.value = np.diag([1.0, -1.0])
    with pytest.raises(NonConvexError, match="parameter 'Q'"):
        m.solve()


def test_parameter_q_checked_once_per_value(monkeypatch):
    calls = []
    real = atoms.check_psd
    monkeypatch.setattr(atoms, "check_psd", lambda Q, what, tol=1e-9: calls.append(what) or real(Q, what, tol))
    x = Variable(2, "x")
    Q = Parameter((2, 2), "Q", value=np.eye(2))
    m = Model(minimize(quad_form(x, Q)), [x >= 1])
    for _ in range(3):
        m.compile().assemble()
    assert len(calls) == 1
    Q.value = 2 * np.eye(2)
    m.compile().assemble()
    assert len(calls) == 2


@pytest.mark.parametrize("sparse", [False, True])
def test_constant_indefinite_q_refused_even_with_assume_psd(sparse):
    x = Variable(3, "x")
    Q = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # eigenvalues 3, 1, -1
    with pytest.raises(NonConvexError, match="indefinite"):
        quad_form(x, sp.csr_matrix(Q) if sparse else Q, assume_psd=True)
    with pytest.raises(InputError, match="indefinite"):  # NonConvexError is an InputError too
        quad_form(x, sp.csr_matrix(Q) if sparse else Q)


def test_check_psd_on_sparse_matrices_beyond_diagonal_dominance():
    rng = np.random.default_rng(5)
    n = 300
    B = sp.random(n, n, density=0.02, random_state=rng, format="csr")
    Q = (B @ B.T).tocsr()  # PSD (rank-deficient), generally not diagonally dominant
    atoms.check_psd(Q, "Q")
    atoms.check_psd(Q.toarray(), "Q")
    w_min = np.linalg.eigvalsh(Q.toarray())[0]
    bad = (Q - (abs(w_min) + 1e-2) * sp.identity(n) - 0.05 * sp.identity(n)).tocsr()
    with pytest.raises(NonConvexError):
        atoms.check_psd(bad, "Q")
    # diagonally dominant matrices (error clumping's Theta = I - eta/(m-1) A) pass on the cheap test
    A = (B + B.T > 0).astype(float)
    A.setdiag(0)
    deg = np.asarray(A.sum(axis=1)).max()
    atoms.check_psd((sp.identity(n) - A / deg).tocsr(), "Theta")


def test_quad_over_lin_parameter_denominator_refused_when_nonpositive(monkeypatch):
    x = Variable(2, "x")
    y = Parameter((), "y", value=2.0)
    m = Model(minimize(quad_over_lin(x, y)), [x >= 1])
    assert m.solve().objective == pytest.approx(1.0, abs=1e-6)
    y.value = -1.0
    _no_backend(monkeypatch)
    with pytest.raises(NonConvexError, match="parameter 'y'"):
        m.solve()


def test_division_by_a_parameter_with_a_zero_entry():
    x = Variable(2, "x")
    d = Parameter(2, "d", value=np.array([1.0, 2.0]))
    m = Model(minimize((x / d).sum()), [x >= 1])
    assert m.solve().objective == pytest.approx(1.5, abs=1e-6)
    d.value = np.array([1.0, 0.0])
    with pytest.raises(InputError, match="divisor 'd'.*zero"):
        m.solve()


def test_valid_inputs_still_work():
    """The validation keeps the ordinary spellings: numpy integers, lists, sparse matrices, iteration."""
    x = Variable(np.int64(3), "x")
    X = Variable((np.int32(2), 3), "X")
    assert x.shape == (3,) and X.shape == (2, 3)
    assert [e.shape for e in X] == [(3,), (3,)]
    assert (x + [1, 2, 3]).shape == (3,)
    assert (sp.csr_matrix(np.eye(3)) @ x).shape == (3,)
    assert pnorm(x, np.float64(3)).shape == () and pnorm(x, np.inf).shape == ()
    assert PowerCone3D(x, x, x, np.float64(0.3)).alpha == 0.3
    assert X.sum(axis=-1).shape == (2,)
    assert (np.eye(2) >> Variable((2, 2), "S", symmetric=True)) is not None
    assert quad_form(x, sp.identity(3)).shape == ()
