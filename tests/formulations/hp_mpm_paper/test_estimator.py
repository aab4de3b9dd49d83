"""scikit-learn estimators for paper 004: MPMClassifier and HPMPMClassifier.

clone/get_params round trip (scikit-learn's estimator checks: tests/core/test_estimator_checks.py),
the fitted bound against the formulation and the bound objects, labels, fallbacks, bad input, kernels, backends,
and scale: a synthetic n = 50 000, d = 100 fit (CI) and the real Adult data (48 842 rows, one-hot; slow).
"""
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

from certiprog.audit.bounds import get_bound
from certiprog.errors import InputError
from certiprog.estimators import HPMPMClassifier, MPMClassifier
from certiprog.formulations.hp_mpm_paper.estimator import DEFAULT_MAX_RANK, NoMeaningfulSolutionWarning
from certiprog.formulations.hp_mpm_paper.hp_mpm import solve_hp_mpm
from certiprog.formulations.hp_mpm_paper.kernels import kernel_hp_mpm, rbf_kernel
from certiprog.formulations.hp_mpm_paper.mpm import mpm

REPO = Path(__file__).resolve().parents[3]
DATA = Path(os.environ["CERTIPROG_DATA"]) if os.environ.get("CERTIPROG_DATA") else REPO / ".." / "shared" / "data"


def _blobs(seed=0, n1=60, n0=80, d=3, sep=1.5):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n1, d)) + sep / 2, rng.normal(size=(n0, d)) * 1.2 - sep / 2])
    y = np.array([1] * n1 + [0] * n0)
    return X, y, rng


def test_clone_get_params_set_params_round_trip():
    est = HPMPMClassifier(delta=0.05, nu=0.2, R=3.0, kernel="rbf", gamma=0.7, method="alternating",
                          backend="cvxpy", solver="CLARABEL", uncertainty="cor1", max_rank=50, certify="auto")
    params = est.get_params()
    assert params == dict(delta=0.05, nu=0.2, R=3.0, kernel="rbf", gamma=0.7, method="alternating",
                          backend="cvxpy", solver="CLARABEL", uncertainty="cor1", max_rank=50, certify="auto")
    c = clone(est)
    assert c is not est and c.get_params() == params
    c.set_params(nu=0.5, kernel="linear")
    assert c.nu == 0.5 and c.kernel == "linear" and est.nu == 0.2
    assert MPMClassifier().get_params() == dict(kernel="linear", gamma=None, backend=None, solver=None,
                                                max_rank=DEFAULT_MAX_RANK, certify="auto")
    X, y, _ = _blobs()
    fitted = HPMPMClassifier(nu=0.01).fit(X, y)
    assert not hasattr(clone(fitted), "coef_")  # clone is unfitted


def test_hp_mpm_classifier_attributes_match_the_formulation_and_bound():
    X, y, rng = _blobs(1)
    est = HPMPMClassifier(delta=0.1, nu=0.01).fit(X, y)
    res = solve_hp_mpm(X[y == 1], X[y == 0], delta=0.1, nu=0.01)
    assert est.status_ == "optimal" and est.kappa_ == pytest.approx(res.kappa, rel=1e-12)
    np.testing.assert_allclose(est.coef_[0], res.weights)
    assert est.intercept_[0] == pytest.approx(-res.b) and est.b_ == pytest.approx(res.b)
    assert est.worst_case_error_ == pytest.approx(1 / (1 + est.kappa_**2), rel=1e-15)
    assert est.worst_case_error_ == pytest.approx(get_bound("004-C1d.eq8").evaluate(kappa=est.kappa_), rel=1e-14)
    assert est.alpha_ == pytest.approx(1 - est.worst_case_error_)
    lo, hi = est.kappa_bracket_
    assert lo * (1 - 1e-8) <= est.kappa_ <= hi and hi - lo <= 1e-6 * hi
    assert est.A_ == (res.A1, res.A0) and est.R_ == pytest.approx(np.linalg.norm(X, axis=1).max())
    assert est.failure_probability_ is None  # nu < 1: no guarantee
    with pytest.warns(NoMeaningfulSolutionWarning):  # nu = 1 on 140 points: kappa* = 0 (Cor. 1)
        assert HPMPMClassifier(nu=1.0, uncertainty="prop1").fit(X, y).failure_probability_ == pytest.approx(0.2)
    s = json.dumps(est.solution_)  # plain JSON: certificate, bracket, history
    assert "certificate" in est.solution_ and est.solution_["certificate"]["verdict"].startswith("certified")
    assert "kappa_bracket" in s
    dec = est.decision_function(X)
    np.testing.assert_allclose(dec, X @ res.weights - res.b)
    np.testing.assert_array_equal(est.predict(X), np.where(dec > 0, 1, 0))
    assert est.score(X, y) > 0.8


def test_mpm_classifier_matches_mpm_and_its_eq5_bound_is_tight_on_the_training_moments():
    X, y, _ = _blobs(2)
    est = MPMClassifier().fit(X, y)
    m = mpm(X[y == 1], X[y == 0])
    d = m.derived(m.solve())
    assert est.status_ == "optimal" and est.kappa_ == pytest.approx(d.kappa, rel=1e-6)
    w = est.coef_[0]
    assert w / np.linalg.norm(w) == pytest.approx(d.w / np.linalg.norm(d.w), abs=1e-4)
    # eq. (5): for the empirical moments, each class's Cantelli worst case is exactly 1/(1+kappa^2)
    from certiprog.formulations.hp_mpm_paper.mpm import worst_case_errors

    S1, S0 = np.cov(X[y == 1].T, bias=True), np.cov(X[y == 0].T, bias=True)
    e1, e0 = worst_case_errors(w, est.b_, X[y == 1].mean(0), S1, X[y == 0].mean(0), S0)
    assert e1 == pytest.approx(est.worst_case_error_, rel=1e-6) and e0 == pytest.approx(est.worst_case_error_, rel=1e-6)
    assert est.worst_case_error_ == pytest.approx(get_bound("004-T2c").evaluate(kappa=est.kappa_))
    assert est.solution_["certificate"]["verdict"].startswith("certified")


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1), (3, 7), ("neg", "pos")])
def test_any_two_labels(labels):
    X, y, _ = _blobs(3)
    yl = np.where(y == 1, labels[1], labels[0])
    est = HPMPMClassifier(nu=0.01).fit(X, yl)
    ref = HPMPMClassifier(nu=0.01).fit(X, y)
    assert list(est.classes_) == sorted(labels, key=lambda v: (str(type(v)), v))
    assert est.classes_[1] == labels[1]  # the larger label is the paper's class 1
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X))
    np.testing.assert_array_equal(est.predict(X), np.where(ref.predict(X) == 1, labels[1], labels[0]))


def test_no_meaningful_solution_warns_and_falls_back():
    X, y, _ = _blobs(4, n1=15, n0=60)
    with pytest.warns(NoMeaningfulSolutionWarning, match="no meaningful solution"):
        est = HPMPMClassifier(nu=1.0).fit(X, y)
    assert est.status_ == "no_meaningful_solution" and est.kappa_ == 0 and est.alpha_ == 0
    assert est.worst_case_error_ == 1.0 and est.kappa_bracket_ == (0.0, 0.0)
    dmu = X[y == 1].mean(0) - X[y == 0].mean(0)
    np.testing.assert_allclose(est.coef_[0], dmu / np.linalg.norm(dmu))  # the limit direction
    assert "fallback" in est.solution_ and est.score(X, y) > 0.7
    # equal class means: the MPM's Theorem 2 case, majority-class fallback
    X2 = np.vstack([X[:20], X[:20][::-1] * 1.0, X[20:40]])
    y2 = np.array([1] * 20 + [0] * 40)
    X2[20:40] = X2[:20]
    X2[40:] = X2[:20] + 0.0
    with pytest.warns(NoMeaningfulSolutionWarning, match="majority"):
        m = MPMClassifier().fit(X2, y2)
    assert m.status_ == "no_meaningful_solution" and np.all(m.predict(X) == 0)


def test_bad_input_raises_clear_errors():
    X, y, _ = _blobs(5)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    cases = [
        (HPMPMClassifier(), Xn, y, "NaN"),
        (HPMPMClassifier(), X, np.zeros(len(y)), "1 class"),
        (MPMClassifier(), X, np.arange(len(y)) % 3, "Only binary"),
        (HPMPMClassifier(), np.ones_like(X), y, "constant"),
        (HPMPMClassifier(nu=0.0), X, y, "nu"),
        (HPMPMClassifier(nu=-1.0), X, y, "nu"),
        (HPMPMClassifier(delta=0.0), X, y, "delta"),
        (HPMPMClassifier(delta=1.0), X, y, "delta"),
        (HPMPMClassifier(R=-2.0), X, y, "R"),
        (HPMPMClassifier(R=0.5), X, y, "smaller than the largest"),
        (HPMPMClassifier(method="newton"), X, y, "method"),
        (HPMPMClassifier(uncertainty="x"), X, y, "uncertainty"),
        (MPMClassifier(kernel="sigmoid"), X, y, "kernel"),
        (MPMClassifier(kernel="rbf", gamma=-1.0), X, y, "gamma"),
        (MPMClassifier(), X, np.r_[1, np.zeros(len(y) - 1)], "1 sample"),
        (MPMClassifier(), X[:, :0], y, "feature"),
    ]
    for est, Xb, yb, msg in cases:
        with pytest.raises(ValueError, match=msg):
            est.fit(Xb, yb)
    assert issubclass(InputError, ValueError)
    fitted = MPMClassifier().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X[:, :2])


def test_constant_and_singular_features_still_fit():
    X, y, _ = _blobs(6, d=3)
    # the MPM is affine invariant: a constant and a linearly dependent column change nothing
    Xc = np.column_stack([X, np.full(len(X), 4.0), X[:, 0] - X[:, 1]])
    a, b = MPMClassifier().fit(X, y), MPMClassifier().fit(Xc, y)
    assert b.status_ == "optimal" and b.kappa_ == pytest.approx(a.kappa_, rel=1e-6)
    assert abs(b.coef_[0, 3]) < 1e-8  # no weight on the constant feature
    np.testing.assert_allclose(b.decision_function(Xc), a.decision_function(X), atol=1e-4)  # solver accuracy
    # the HP-MPM's norm and R are not: with the same R, a constant column (a translation) changes nothing
    Xk = np.column_stack([X, np.full(len(X), 4.0)])
    R = np.linalg.norm(Xk, axis=1).max()
    a, b = HPMPMClassifier(nu=0.01, R=R).fit(X, y), HPMPMClassifier(nu=0.01, R=R).fit(Xk, y)
    assert b.status_ == "optimal" and b.kappa_ == pytest.approx(a.kappa_, rel=1e-7)
    assert abs(b.coef_[0, 3]) < 1e-8
    np.testing.assert_allclose(b.decision_function(Xk), a.decision_function(X), atol=1e-5)



@pytest.mark.parametrize("seed", [3, 4])
def test_mpm_classifier_keeps_small_but_real_directions_of_unscaled_features(seed):
    """(3) is invariant under feature scaling: a rare binary feature beside a 1e6-scale one is a real direction
    (the default relative cut of `class_moments` dropped it, and the fit solved a restricted MPM: raw Adult's
    kappa*^-1 1.09240 instead of 1.08866), so the raw fit equals the standardised one and `mpm`'s pinned program."""
    rng = np.random.default_rng(seed)
    n1, n0 = 300, 700
    X1 = np.column_stack([rng.normal(0.5, 1, n1) * 1e6, rng.normal(0.3, 1, n1), rng.random(n1) < 0.05])
    X0 = np.column_stack([rng.normal(0.0, 1, n0) * 1e6, rng.normal(0.0, 1, n0), rng.random(n0) < 0.005])
    X, y = np.vstack([X1, X0]).astype(float), np.r_[np.ones(n1), np.zeros(n0)]
    raw, scaled = MPMClassifier().fit(X, y), MPMClassifier().fit(X / X.std(axis=0), y)
    assert raw.status_ == "optimal" and raw.solution_["kernel_rank"] == 3  # every direction kept
    assert raw.kappa_ == pytest.approx(scaled.kappa_, rel=1e-9)
    lo, hi = raw.solution_["interval"]
    pinned = mpm(X1.astype(float), X0.astype(float)).solve()
    assert pinned.status == "optimal" and lo - 1e-9 * hi <= pinned.objective <= hi * (1 + 1e-9)
    np.testing.assert_array_equal(raw.predict(X), scaled.predict(X / X.std(axis=0)))


def test_mpm_classifier_on_raw_adult_matches_standardised_features():
    """Raw Adult (fnlwgt ~1e5 beside one-hot columns): the fit works on features divided by their largest |entry|,
    so its certified kappa*^-1 is the standardised fit's (without: 2e-6 off, the digits a raw covariance's
    eigendecomposition loses; with the default relative cut: 1.09240, a restricted MPM)."""
    from certiprog.datasets import load_adult

    try:
        X, y = load_adult()
    except InputError as exc:
        pytest.skip(f"Adult data not available: {exc}")
    raw = MPMClassifier().fit(X, y)
    std = MPMClassifier().fit((X - X.mean(axis=0)) / X.std(axis=0), y)
    (lo, hi), (slo, shi) = raw.solution_["interval"], std.solution_["interval"]
    assert raw.status_ == std.status_ == "optimal"
    assert lo <= shi * (1 + 1e-9) and slo <= hi * (1 + 1e-9)  # the certified intervals meet
    assert 1.0 / raw.kappa_ == pytest.approx(1.08866472, rel=1e-7)

def test_kernel_estimators():
    X, y, rng = _blobs(7, d=2)
    est = HPMPMClassifier(kernel="rbf", gamma=0.5, nu=0.02).fit(X, y)
    res = kernel_hp_mpm(X[y == 1], X[y == 0], "rbf", gamma=0.5, nu=0.02)
    assert est.kappa_ == pytest.approx(res.kappa, rel=1e-12) and est.R_ == pytest.approx(1.0)
    Xt = rng.normal(size=(10, 2))
    # the weights expand over the pivot points only (a subset of the training rows)
    r = est.solution_["kernel_pivots"]
    assert est.dual_coef_.shape == (1, r) and est.X_fit_.shape == (r, 2) and r <= len(X)
    assert all((X == row).all(axis=1).any() for row in est.X_fit_)
    np.testing.assert_allclose(est.decision_function(Xt), rbf_kernel(Xt, est.X_fit_, 0.5) @ res.weights - res.b)
    call = HPMPMClassifier(kernel=lambda A, B: rbf_kernel(A, B, 0.5), nu=0.02).fit(X, y)
    np.testing.assert_allclose(call.decision_function(Xt), est.decision_function(Xt), atol=1e-10)
    auto = MPMClassifier(kernel="rbf").fit(X, y)  # gamma=None -> 1/n_features
    expl = MPMClassifier(kernel="rbf", gamma=0.5).fit(X, y)
    np.testing.assert_allclose(auto.decision_function(Xt), expl.decision_function(Xt), atol=1e-6)
    assert not hasattr(est, "coef_")
    est.set_params(kernel="linear").fit(X, y)  # refitting switches representation cleanly
    assert hasattr(est, "coef_") and not hasattr(est, "dual_coef_") and not hasattr(est, "X_fit_")
    est.set_params(kernel="rbf").fit(X, y)
    assert not hasattr(est, "coef_")
    np.testing.assert_allclose(est.decision_function(Xt), rbf_kernel(Xt, est.X_fit_, 0.5) @ res.weights - res.b)


def test_methods_and_backends_agree():
    X, y, _ = _blobs(8, n1=30, n0=40, d=2)
    a = HPMPMClassifier(nu=0.01).fit(X, y)
    b = HPMPMClassifier(nu=0.01, method="alternating").fit(X, y)
    c = HPMPMClassifier(nu=0.01, backend="cvxpy", solver="CLARABEL").fit(X, y)
    assert b.kappa_ == pytest.approx(a.kappa_, rel=1e-7) and c.kappa_ == pytest.approx(a.kappa_, rel=1e-7)
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X), atol=1e-4)
    # a (structured w-step) brackets kappa* to ~1e-15; CVXPY/Clarabel's w is off by ~1e-4 (h is flat in w near w*)
    np.testing.assert_allclose(c.decision_function(X), a.decision_function(X), atol=1e-3)
    assert c.solution_["backend"] == "cvxpy"
    m1 = MPMClassifier().fit(X, y)
    m2 = MPMClassifier(backend="cvxpy").fit(X, y)
    assert m2.kappa_ == pytest.approx(m1.kappa_, rel=1e-6)


def _scale_fit(X, y, est):
    t0 = time.perf_counter()
    est.fit(X, y)
    return time.perf_counter() - t0


def test_scale_synthetic_50k_by_100():
    """The Adult shape without the data (CI): n = 50 000, d = 100, fits in seconds."""
    rng = np.random.default_rng(9)
    n, d = 50_000, 100
    y = (rng.random(n) < 0.25).astype(int)
    shift = rng.normal(size=d)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, d) + np.outer(y, 3.0 * shift / np.linalg.norm(shift))
    est = HPMPMClassifier(nu=0.01)
    seconds = _scale_fit(X, y, est)
    print(f"\nsynthetic 50000 x 100 HP-MPM fit: {seconds:.2f} s, kappa {est.kappa_:.4f}, "
          f"{est.solution_['n_solves']} SOCPs")
    assert est.status_ == "optimal"


def _load_adult():
    path = DATA / "uci" / "adult.csv"
    if not path.exists():
        pytest.skip(f"{path} absent: the shared data folder (or $CERTIPROG_DATA) is needed for the Adult test")
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    A = np.loadtxt(path, delimiter=",", skiprows=2)  # line 1: "rows,features"; line 2: header
    assert A.shape == (48842, 15)
    cat, num = [1, 3, 5, 6, 7, 8, 9, 13], [0, 2, 4, 10, 11, 12]  # categorical codes / numeric columns
    X = np.hstack([StandardScaler().fit_transform(A[:, num]),
                   OneHotEncoder(sparse_output=False, dtype=float).fit_transform(A[:, cat])])
    return X, A[:, 14].astype(int)


def test_adult_subsample():
    """Fast Adult variant (CI): 5 000 rows."""
    X, y = _load_adult()
    idx = np.random.default_rng(10).choice(len(y), 5000, replace=False)
    est = HPMPMClassifier(nu=1e-3)
    _scale_fit(X[idx], y[idx], est)
    assert est.status_ == "optimal"
    assert est.score(X[idx], y[idx]) > 0.75
    assert est.coef_.shape == (1, X.shape[1])


@pytest.mark.slow
def test_adult_full_fit_time():
    """All 48 842 rows, 108 one-hot features: both estimators fit in seconds (time printed)."""
    X, y = _load_adult()
    for est in (MPMClassifier(), HPMPMClassifier(nu=0.01), HPMPMClassifier(nu=0.01, method="alternating"),
                HPMPMClassifier(nu=1.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoMeaningfulSolutionWarning)
            seconds = _scale_fit(X, y, est)
        print(f"\nAdult {X.shape}: {est!r} fit {seconds:.2f} s, status {est.status_}, kappa {est.kappa_:.4f}, "
              f"bound {est.worst_case_error_:.4f}, train accuracy {est.score(X, y):.4f}")
    assert est.status_ == "no_meaningful_solution"  # full eq. (8) terms (nu = 1): Sec. 6's observation
