"""Every public builder and estimator of every paper answers bad input with a `CertiprogError` (issue 13, item 7).

The builders are found by introspection (``certiprog.formulations.__all__``, each installed paper package's
``__all__`` through the `certiprog.papers` registry, and the public entry points named in `EXTRA`), the estimators
from ``certiprog.estimators.__all__``, so a new one is fuzzed automatically. A hypothesis fuzz (derandomised,
bounded) takes one valid call (`BASELINES`; a builder without one is still fuzzed on generic arrays) and replaces
ONE argument by a bad value (NaN, inf, complex, strings, None, wrong shapes, negative sizes, empty arrays, one
class, huge / tiny scales). Whatever the builder does, an exception must be a `CertiprogError`; for a bad value
that is never meaningful (NaN / inf / complex / a string in a numeric argument, an unknown name in a string
argument) it must raise.
"""
from __future__ import annotations

import importlib
import inspect
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import certiprog.estimators as estimators
import certiprog.formulations as formulations
from certiprog.errors import CertiprogError
from certiprog.papers import papers

# Public entry points that a paper package's __init__ does not re-export (the issue names me2_fit).
EXTRA = {"me2_fit": "certiprog.formulations.me2_paper.programs"}


def _builders() -> dict:
    found = {name: getattr(formulations, name) for name in formulations.__all__}
    for paper in papers().values():
        pkg = importlib.import_module(paper.package)
        for name in getattr(pkg, "__all__", ()):
            obj = getattr(pkg, name)
            if name != "PAPER" and callable(obj):
                found.setdefault(name, obj)
    for name, module in EXTRA.items():
        found.setdefault(name, getattr(importlib.import_module(module), name))
    return dict(sorted(found.items()))


BUILDERS = _builders()
ESTIMATORS = {name: getattr(estimators, name) for name in estimators.__all__}


# ----------------------------------------------------------------------------------------------- valid calls
def _rng():
    return np.random.default_rng(0)


def _two_classes(n=8, d=2):
    r = _rng()
    return r.normal(size=(n, d)) + 2.0, r.normal(size=(n, d))


def _mpm_args():
    X1, X0 = _two_classes()
    return dict(X1=X1, X0=X0)


def _ellipsoids():
    centers = np.array([[2.0, 1.0], [-2.0, -1.0], [2.0, -1.0], [-2.0, 1.0]])
    bases = np.tile(np.eye(2)[None], (4, 1, 1)) * 0.3
    radii = np.ones((4, 2))
    return dict(centers=centers, bases=bases, radii=radii, labels=np.array([1.0, -1.0, 1.0, -1.0]))


def _clouds():
    r = _rng()
    pts = [c + 0.2 * r.normal(size=(3, 2)) for c in _ellipsoids()["centers"]]
    return dict(manifolds=pts, labels=np.array([1.0, -1.0, 1.0, -1.0]))


def _me2():
    r = _rng()
    X_neg = r.normal(size=(10, 2)) * 2.0
    return dict(X_neg=X_neg, center=np.zeros(2), mu=1.0, lam=1.0, B=4.0)


def _mcp_solution():
    e = _ellipsoids()
    model = formulations.mcp(e["centers"], e["bases"], e["radii"], e["labels"])
    return model.solve(forall="cutting_plane", cp_tol=0.05)


BASELINES = {
    "mpm": _mpm_args,
    "hp_mpm": lambda: dict(**_mpm_args(), delta=0.1, nu=1.0, R=None, kappa=0.5, form="eq8"),
    "solve_hp_mpm": lambda: dict(**_mpm_args(), delta=0.1, nu=1.0, R=None, method="bisection", form="eq8",
                                 backend=None, solver=None, tol=1e-4, max_iter=20),
    "kernel_mpm": lambda: dict(**_mpm_args(), kernel="rbf", gamma=0.5, rank_tol=1e-10),
    "kernel_hp_mpm": lambda: dict(**_mpm_args(), kernel="rbf", gamma=0.5, delta=0.1, nu=1.0, R=None,
                                  method="bisection", form="eq8", backend=None, solver=None, rank_tol=1e-10,
                                  tol=1e-4, max_iter=20),
    "background_risk": lambda: dict(W=np.array([[1.0, 0.0], [0.0, 1.0]]), mu=np.array([-1.0, -1.0]),
                                    Sigma=np.eye(2), b=np.zeros(2)),
    "hinge_minimax": lambda: dict(X_pos=_two_classes()[0], mu=np.zeros(2), Sigma=np.eye(2), lam=0.1, delta=0.1,
                                  bias=False, squared_reg=True),
    "error_clumping": lambda: dict(X=np.vstack(_two_classes()), y=np.r_[np.ones(8), -np.ones(8)], rho=1.0,
                                   eta=0.5, lam=1.0, graph=None),
    "neighbourhood_matrix": lambda: dict(X=np.vstack(_two_classes()), rho=1.0, eta=0.5),
    "mcp": lambda: dict(**_ellipsoids(), q=2, C=None),
    "mcp_model": lambda: dict(**_clouds(), C=None),
    "mcp_simple": lambda: dict(**_clouds(), delta=0.05, max_iter=50, backend=None, solver=None, cuts="worst",
                               drop_inactive=None),
    "mcp_slack": lambda: dict(**_clouds(), C=1.0, delta=0.05, max_iter=50, backend=None, solver=None,
                              cuts="worst", drop_inactive=None),
    "mcp_bracket": lambda: dict(solution=_mcp_solution(), delta=0.05, C=None, P=None),
    "LqEllipsoidManifold": lambda: dict(center=np.ones(2), basis=np.eye(2), radii=np.ones(2), q=2),
    "PointCloudManifold": lambda: dict(points=_two_classes()[0]),
    "ParametricManifold": lambda: dict(f=lambda s: np.array([np.cos(s[0]), np.sin(s[0])]), dim=1,
                                       bounds=np.array([[0.0, 1.0]]), n_starts=2, rng=0, n_local=1),
    "random_lq_ellipsoids": lambda: dict(P=4, N=3, D=2, R0=0.5, q=2, rng=0, max_tries=3),
    "me2_primal": lambda: dict(**_me2(), psd=False),
    "me2_dual": _me2,
    "me2_fit": lambda: dict(X_pos=_rng().normal(size=(6, 2)) * 0.3, X_neg=_me2()["X_neg"], mu=1.0, lam=1.0, B=4.0,
                            method="primal", backend=None),
}


# Small settings that keep one fit fast (only those the estimator has are used; the fuzz changes one of them).
ESTIMATOR_BASE = {"ManifoldClassifier": dict(max_iter=30), "LHMClassifier": dict(max_iter=2),
                  "LHMNetClassifier": dict(epochs=1, batch_size=8, C=1, K=1, lhm_params=dict(max_iter=1)), "HolePunchingClassifier": dict(n_holes=1),
                  "ErrorClumpingClassifier": dict(passes=5)}
# (argument, bad-value label) pairs where the "bad" value is meaningful: q = inf is the L-infinity norm; T = -inf is
# Alg. 2's "never stop on the risk" (`lhm.stop_threshold`, accepted by fit_lhm and LHMClassifier alike).
MEANINGFUL = {("q", "inf"), ("T", "-inf")}


def _estimator(cls, **changes):
    params = cls().get_params()
    base = {k: v for k, v in ESTIMATOR_BASE.get(cls.__name__, {}).items() if k in params}
    return cls(**{**base, **changes})


def _estimator_data(name):
    """Valid (X, y) for an estimator's fit."""
    if name == "ManifoldClassifier":
        c = _clouds()
        return c["manifolds"], np.array([1, 0, 1, 0])
    X1, X0 = _two_classes(10)
    return np.vstack([X1, X0]), np.r_[np.ones(10, int), np.zeros(10, int)]


def _generic(builder):
    """A builder without a baseline: every parameter without a default gets a small valid-looking array."""
    X1, _ = _two_classes()
    return {p.name: X1 for p in inspect.signature(builder).parameters.values()
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


# ----------------------------------------------------------------------------------------------- bad values
# (label, value or function of the valid value, strict): strict bad values must raise; the others may be accepted.
def _with_nan(a):
    a = np.array(a, dtype=float, copy=True)
    a.flat[0] = np.nan
    return a


ARRAY_BAD = [
    ("nan entry", _with_nan, True),
    ("inf entry", lambda a: np.asarray(a, float) * np.inf, True),
    ("complex", lambda a: np.asarray(a, float) + 1j, True),
    ("strings", lambda a: np.full(np.shape(a), "a"), True),
    ("a string", lambda a: "abc", True),
    ("None", lambda a: None, False),
    ("empty", lambda a: np.asarray(a, float)[:0], False),
    ("zero columns", lambda a: np.zeros((np.shape(a)[0], 0)) if np.ndim(a) == 2 else np.zeros(0), False),
    ("one row", lambda a: np.asarray(a, float)[:1], False),
    ("transposed", lambda a: np.asarray(a, float).T, False),
    ("3-D", lambda a: np.asarray(a, float)[None], False),
    ("flat", lambda a: np.asarray(a, float).ravel(), False),
    ("ragged list", lambda a: [[1.0, 2.0], [3.0]], False),
    ("times 1e300", lambda a: np.asarray(a, float) * 1e300, False),
    ("times 1e-300", lambda a: np.asarray(a, float) * 1e-300, False),
    ("constant", lambda a: np.ones_like(np.asarray(a, float)), False),
    ("negative", lambda a: -np.abs(np.asarray(a, float)) - 1.0, False),
]
SCALAR_BAD = [
    ("nan", np.nan, True), ("inf", np.inf, True), ("-inf", -np.inf, True), ("complex", 0.5 + 1j, True),
    ("numpy complex", np.complex128(0.5), True), ("string", "abc", True), ("None", None, False),
    ("negative", -1, False), ("zero", 0, False), ("half", 0.5, False), ("huge", 1e300, False),
    ("tiny", 1e-300, False), ("bool", True, False), ("list", [1.0, 2.0], False), ("2.5", 2.5, False),
]
NAME_BAD = [("unknown name", "nope", True), ("number", 1.5, False), ("None", None, False), ("list", ["a"], False),
            ("empty", "", False)]


def _bad_values(valid):
    if isinstance(valid, np.ndarray):
        return ARRAY_BAD
    if isinstance(valid, str):
        return NAME_BAD
    if isinstance(valid, (list, tuple)) and valid and all(isinstance(v, np.ndarray) for v in valid):
        return [("one bad item " + lab, (lambda f: lambda v: [f(v[0])] + list(v[1:]))(f), strict)
                for lab, f, strict in ARRAY_BAD if callable(f)] + [("empty list", lambda v: [], False)]
    return SCALAR_BAD + NAME_BAD[:1]


def _strict_for(valid, value, strict) -> bool:
    """A bad value must raise when it is never meaningful for this argument (a string for a number, NaN, ...)."""
    if valid is None or callable(valid) or isinstance(valid, bool):
        return False  # optional arguments: None, "abc", ... may be legitimate alternatives (kernel='poly', ...)
    if isinstance(valid, str):
        return strict and isinstance(value, str)
    return strict


def _call(f, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(**kwargs)


def _check(what, f, kwargs, arg, label, strict):
    try:
        _call(f, kwargs)
    except CertiprogError as exc:
        assert str(exc), f"{what}({arg}={label}): a CertiprogError without a message"
        if strict and arg != "data":  # a value that is never valid: the message names the argument
            assert arg in str(exc), f"{what}({arg}={label}): the error does not name {arg!r}: {exc}"
        return
    except Exception as exc:  # noqa: BLE001 - the point of the test
        pytest.fail(f"{what}({arg}={label}) raised {type(exc).__name__}: {exc}")
    assert not strict, f"{what}({arg}={label}) was accepted; it must raise a CertiprogError"


FUZZ = settings(max_examples=30, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))
FUZZ_FITS = settings(FUZZ, max_examples=15)  # estimator fits cost a solve (or a network's training) each
EXPENSIVE = {"LHMNetClassifier": 5}  # fits that train a network: fewer examples


def test_the_fuzzed_lists_are_complete():
    assert len(BUILDERS) >= 20 and len(ESTIMATORS) >= 4
    for name in ("mpm", "kernel_mpm", "hp_mpm", "mcp", "mcp_simple", "me2_primal", "me2_dual", "me2_fit",
                 "error_clumping", "neighbourhood_matrix", "hinge_minimax", "background_risk"):
        assert name in BUILDERS
    assert {"MPMClassifier", "HPMPMClassifier", "ManifoldClassifier", "ME2Classifier"} <= set(ESTIMATORS)


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_baselines_are_valid_calls(name):
    """The fuzz starts from calls that work, so a refusal is caused by the one bad argument."""
    _call(BUILDERS[name], BASELINES[name]())


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_builder_bad_input_raises_certiprog_error(name):
    f = BUILDERS[name]
    base = BASELINES.get(name, lambda: _generic(f))()
    cases = [(arg, lab, bad, strict) for arg, valid in base.items() for lab, bad, strict in _bad_values(valid)]

    @FUZZ
    @given(st.sampled_from(cases))
    def fuzz(case):
        arg, label, bad, strict = case
        kwargs = BASELINES.get(name, lambda: _generic(f))()
        valid = kwargs[arg]
        value = bad(valid) if callable(bad) else bad
        kwargs[arg] = value
        strict = _strict_for(valid, value, strict) and (arg, label) not in MEANINGFUL
        _check(name, f, kwargs, arg, label, strict)

    fuzz()


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_bad_parameters_raise_certiprog_error(name):
    cls = ESTIMATORS[name]
    params = cls().get_params()
    cases = [(arg, lab, bad, strict) for arg in params for lab, bad, strict in SCALAR_BAD + NAME_BAD[:1]]

    @settings(FUZZ_FITS, max_examples=EXPENSIVE.get(name, FUZZ_FITS.max_examples))
    @given(st.sampled_from(cases))
    def fuzz(case):
        arg, label, bad, strict = case  # NaN, inf, complex, 'abc', 'nope' are never a valid setting
        X, y = _estimator_data(name)
        strict = strict and (arg, label) not in MEANINGFUL
        _check(f"{name}", lambda **kw: _estimator(cls, **kw).fit(X, y), {arg: bad}, arg, label, strict)

    fuzz()


DATA_BAD = [
    ("nan in X", lambda X, y: (_with_nan(X), y), True),
    ("complex X", lambda X, y: (np.asarray(X) + 1j, y), True),
    ("string X", lambda X, y: (np.full(np.shape(X), "a"), y), True),
    ("one class", lambda X, y: (X, np.zeros_like(y)), True),
    ("y too short", lambda X, y: (X, y[:-1]), True),
    ("empty", lambda X, y: (np.asarray(X)[:0], y[:0]), True),
    ("X 1-D", lambda X, y: (np.asarray(X)[:, 0], y), True),
    ("X 3-D", lambda X, y: (np.asarray(X)[None], y), True),
    ("X None", lambda X, y: (None, y), True),
    ("nan in y", lambda X, y: (X, np.where(np.arange(y.size) == 0, np.nan, y)), False),
    ("complex y", lambda X, y: (X, y + 1j), True),
    ("X * 1e300", lambda X, y: (np.asarray(X) * 1e300, y), False),
    ("X * 1e-300", lambda X, y: (np.asarray(X) * 1e-300, y), False),
    ("constant X", lambda X, y: (np.ones_like(np.asarray(X)), y), False),
    ("three classes", lambda X, y: (X, np.arange(y.size) % 3), False),
]


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_bad_data_raise_certiprog_error(name):
    cls = ESTIMATORS[name]

    @settings(FUZZ_FITS, max_examples=EXPENSIVE.get(name, FUZZ_FITS.max_examples))
    @given(st.sampled_from(DATA_BAD))
    def fuzz(case):
        label, bad, strict = case
        X, y = _estimator_data(name)
        if name == "ManifoldClassifier":  # X is a list of point clouds: damage the first cloud
            if label in ("X 1-D", "X 3-D", "empty", "X None"):
                return
            Xb, yb = bad(X[0], y)
            X = [Xb] + list(X[1:]) if label not in ("one class", "y too short", "nan in y", "complex y",
                                                      "three classes") else X
            y = yb if label in ("one class", "y too short", "nan in y", "complex y", "three classes") else y
        else:
            X, y = bad(X, y)
        _check(f"{name}.fit", lambda X, y: _estimator(cls).fit(X, y), dict(X=X, y=y), "data", label, strict)

    fuzz()


# ----------------------------------------------------------------------------------------------- issue 13's list
def _reproducers():
    X1, X0 = _two_classes()
    X, y = _estimator_data("MPMClassifier")
    e, c = _ellipsoids(), _clouds()
    from certiprog.formulations.me2_paper.programs import me2_fit

    return {
        "kernel_mpm(rank_tol=None)": lambda: formulations.kernel_mpm(X1, X0, rank_tol=None),
        "mcp(bases='x')": lambda: formulations.mcp(e["centers"], "x", e["radii"], e["labels"]),
        "me2_fit(mu='abc')": lambda: me2_fit(X1, X0, mu="abc", lam=1.0, B=4.0),
        "mpm(complex X1)": lambda: formulations.mpm(X1 + 1j, X0),
        "MPMClassifier(backend='nope')": lambda: estimators.MPMClassifier(backend="nope").fit(X, y),
        "HPMPMClassifier(backend='nope')": lambda: estimators.HPMPMClassifier(backend="nope").fit(X, y),
        "ManifoldClassifier(q=0.5)": lambda: estimators.ManifoldClassifier(q=0.5).fit(c["manifolds"], [1, 0, 1, 0]),
        "MPMClassifier(complex X)": lambda: estimators.MPMClassifier().fit(X + 1j, y),
        "MPMClassifier(kernel='rbf', gamma=1e-30)": lambda: estimators.MPMClassifier(kernel="rbf",
                                                                                       gamma=1e-30).fit(X, y),
    }


@pytest.mark.parametrize("case", sorted(_reproducers()))
def test_issue_13_reproducers_raise_certiprog_errors(case):
    with pytest.raises(CertiprogError) as info:
        _call(_reproducers()[case], {})
    assert len(str(info.value)) > 20


def test_issue_13_neighbourhood_reproducers_give_the_exact_graph():
    """cKDTree raised IndexError on zero columns and ValueError on 1e300 data; the exact graph is defined for both:
    points without features all coincide (every pair within rho), points 1e300 apart have no neighbour."""
    X1, _ = _two_classes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        far = formulations.neighbourhood_matrix(1e300 * X1, 1.0, 0.5).toarray()
    np.testing.assert_array_equal(far, np.eye(len(X1)))
    none = formulations.neighbourhood_matrix(np.zeros((5, 0)), 1.0, 0.5).toarray()
    np.testing.assert_allclose(none, np.eye(5) - 0.5 / 4 * (1 - np.eye(5)))


@pytest.mark.slow
def test_every_bad_value_exhaustively():
    """The fuzz above samples its cases; this walks all of them (every builder x argument x bad value, every
    estimator x parameter x bad value, every bad data set): minutes, so marked slow."""
    for name, f in BUILDERS.items():
        make = BASELINES.get(name, lambda f=f: _generic(f))
        for arg, valid in make().items():
            for label, bad, strict in _bad_values(valid):
                kwargs = make()
                value = bad(kwargs[arg]) if callable(bad) else bad
                kwargs[arg] = value
                _check(name, f, kwargs, arg, label, _strict_for(valid, value, strict) and (arg, label) not in MEANINGFUL)
    for name, cls in ESTIMATORS.items():
        X, y = _estimator_data(name)
        for arg in cls().get_params():
            for label, bad, strict in SCALAR_BAD + NAME_BAD[:1]:
                _check(name, lambda **kw: _estimator(cls, **kw).fit(X, y), {arg: bad}, arg, label,
                       strict and (arg, label) not in MEANINGFUL)
