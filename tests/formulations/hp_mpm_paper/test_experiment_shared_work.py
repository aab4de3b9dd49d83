"""Paper 004's experiment shares the nu-independent work of a grid (`CoordinateCache`) and certifies the chosen
HP-MPM in full while the grid's fits check residuals only; neither changes a fit."""
import numpy as np
import pytest

from certiprog.errors import InputError
from certiprog.formulations.hp_mpm_paper import experiment as H
from certiprog.formulations.hp_mpm_paper.estimator import CoordinateCache, HPMPMClassifier, MPMClassifier


def _data(seed=0, n=70, d=4, shift=0.9):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
    return rng.normal(size=(n, d)) + shift * y[:, None] * np.linspace(1.0, 0.2, d), y


def _same_fit(a, b):
    assert a.status_ == b.status_ and a.kappa_ == b.kappa_ and a.b_ == b.b_
    assert a.worst_case_error_ == b.worst_case_error_
    wa = a.dual_coef_ if hasattr(a, "dual_coef_") else a.coef_
    wb = b.dual_coef_ if hasattr(b, "dual_coef_") else b.coef_
    np.testing.assert_array_equal(wa, wb)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_a_shared_cache_gives_the_fits_without_it_and_factorises_once(kernel):
    X, y = _data()
    args = dict(kernel=kernel, gamma=0.3) if kernel == "rbf" else {}
    cache = CoordinateCache()
    for nu in (0.001, 0.01, 0.05):
        plain = HPMPMClassifier(nu=nu, certify="kkt", **args).fit(X, y)
        shared = HPMPMClassifier(nu=nu, certify="kkt", **args).fit(X, y, cache=cache)
        _same_fit(plain, shared)
        np.testing.assert_array_equal(plain.decision_function(X), shared.decision_function(X))
    _same_fit(MPMClassifier(**args).fit(X, y), MPMClassifier(**args).fit(X, y, cache=cache))
    factors = [k for k in cache._store if k[0] == "factor"]
    assert len(factors) == 1 and cache.hits >= 3  # one factorisation for 3 nu + the MPM


def test_a_cache_never_serves_other_data_or_another_width():
    X, y = _data(1)
    cache = CoordinateCache()
    HPMPMClassifier(nu=0.01, kernel="rbf", gamma=0.3).fit(X, y, cache=cache)
    for Xo, gamma in ((X * 1.5, 0.3), (X, 0.1), (X[::-1], 0.3)):
        yo = y[::-1] if Xo.base is X and Xo.strides[0] < 0 else y
        a = HPMPMClassifier(nu=0.01, kernel="rbf", gamma=gamma).fit(Xo, yo, cache=cache)
        b = HPMPMClassifier(nu=0.01, kernel="rbf", gamma=gamma).fit(Xo, yo)
        _same_fit(a, b)
    assert len([k for k in cache._store if k[0] == "factor"]) == 4


def test_bad_cache_and_certify_values_raise():
    X, y = _data(2)
    with pytest.raises(InputError, match="CoordinateCache"):
        HPMPMClassifier().fit(X, y, cache={})
    for bad in ("yes", 1, None, "FULL"):
        with pytest.raises(InputError, match="certify"):
            HPMPMClassifier(certify=bad).fit(X, y)
    # True is the rigorous interval in every certiprog estimator (certiprog.estimators.base); "full" its old name
    with_true, with_full = (HPMPMClassifier(nu=0.01, certify=c).fit(X, y) for c in (True, "full"))
    assert with_true.solution_["certificate"]["verdict"] == with_full.solution_["certificate"]["verdict"]
    assert with_true.solution_["certificate"].get("interval") is not None


def test_residual_only_grid_fits_equal_the_certified_fit():
    X, y = _data(3)
    full = HPMPMClassifier(nu=0.01, certify="full").fit(X, y)
    kkt = HPMPMClassifier(nu=0.01, certify="kkt").fit(X, y)
    _same_fit(full, kkt)
    assert full.kappa_bracket_ == kkt.kappa_bracket_
    lo, hi = full.solution_["certificate"]["interval"]  # rigorous, around g(kappa*) = 0 (hence 'accurate')
    assert full.solution_["certificate"]["verdict"] in ("certified", "accurate") and 0 <= hi - lo < 1e-9
    assert kkt.solution_["certificate"]["interval"] is None  # residuals only


def test_the_chosen_hp_mpm_of_a_task_is_certified_and_matches_its_grid_fit():
    X, y = _data(4, n=160, d=5, shift=0.5)
    cfg = H.Config(datasets=("sonar",), nu=(0.05, 0.2, 1.0), C=(1.0,), lam=(1.0,))
    rec = H.run_task(X, y, "sonar", 0.3, 0, cfg)
    hp = rec["HP-MPM"]
    assert hp["certificate"] in ("certified", "accurate")
    c_lo, c_hi = hp["certificate_interval"]
    assert np.isfinite(c_lo) and np.isfinite(c_hi) and 0 <= c_hi - c_lo < 1e-9
    lo, hi = hp["kappa_bracket"]
    assert 0 < lo <= hp["certified_kappa"] <= hi and hi - lo <= 1e-6 * hi
    assert hp["certified_kappa"] == hp["kappa"]  # the refit is the grid's fit


def test_the_chosen_kernel_mpm_of_a_width_grid_is_certified_like_a_single_fit():
    X, y = _data(5, n=90, d=3, shift=0.7)
    cfg = H.Config(datasets=("sonar",), kernel=True, nu=(1.0,), C=(1.0,), lam=(1.0,), sigma=(3.0, 30.0))
    rec = H.run_task(X, y, "sonar", 0.4, 0, cfg)
    mpm = rec["MPM"]
    assert mpm["certified_kappa"] == mpm["kappa"] and mpm["certificate"] in ("certified", "accurate")
    lo, hi = mpm["certificate_interval"]
    assert np.isfinite(lo) and np.isfinite(hi) and lo <= hi
    plain = MPMClassifier(certify=False).fit(X, y)
    assert plain.solution_["certificate"] is None and plain.kappa_ == MPMClassifier().fit(X, y).kappa_


def test_linear_svm_does_not_depend_on_numpy_global_state():
    """LinearSVC (liblinear) shuffles its coordinates: the experiment seeds it, so runs and workers agree."""
    X, y = _data(6, n=30, d=60, shift=0.2)  # fewer points than features: liblinear solves the dual
    coefs = []
    for state in (1, 2):
        np.random.seed(state)
        coefs.append(H.svm_estimator(10.0, None).fit(X, y).coef_)
    np.testing.assert_array_equal(coefs[0], coefs[1])
