"""scikit-learn's estimator checks over every estimator in `certiprog.estimators.__all__` (one test for the five
papers; it replaces their five copies of the check_estimator test).

Each exported name needs an entry below: fast instances (the checks are about the API; the certified paths and
long runs are tested in each paper's own tests) or an exclusion with its reason, so a new estimator cannot be
skipped silently. Checks sklearn itself skips for the environment (check_array_api_input needs SCIPY_ARRAY_API=1
and an array-API library; check_classifier_data_not_an_array needs pandas) show as skipped.

The estimators also share one base (`certiprog.estimators.base.CertifiedClassifier`): one meaning of ``certify``
(True / False / "auto" / "kkt"), tested here.
"""
import importlib.util
import warnings

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import certiprog.estimators as E
from certiprog.errors import InputError
from certiprog.estimators.base import CERTIFY, CertifiedClassifier, certify_mode

# name -> [(instance, slow)]: the instances the checks run on (slow: only in the full suite)
INSTANCES = {
    "KHHMClassifier": [(E.KHHMClassifier(delta=0.1, lam=0.1, certify=False, max_rounds=2), False),
                       (E.KHHMClassifier(certify=False, max_rounds=2), True)],  # delta / lam by validation: 70 s
    "LHMClassifier": [(E.LHMClassifier(delta=0.1, lam=0.1, certify=False, max_iter=2, max_rounds=2), False)],
    "ME2Classifier": [(E.ME2Classifier(), False)],
    "ErrorClumpingClassifier": [(E.ErrorClumpingClassifier(), False),
                                (E.ErrorClumpingClassifier(solver="algorithm1", passes=5, random_state=0), False)],
    "HolePunchingClassifier": [(E.HolePunchingClassifier(n_holes=2), False)],
    "MPMClassifier": [(E.MPMClassifier(), False), (E.MPMClassifier(kernel="rbf"), False)],
    "HPMPMClassifier": [(E.HPMPMClassifier(), False), (E.HPMPMClassifier(nu=0.01, method="alternating"), False),
                        (E.HPMPMClassifier(kernel="rbf", gamma=0.5, nu=0.05), False)],
}
# name -> why the generic checks do not apply
EXCLUDED = {
    "ManifoldClassifier": "fit takes manifolds and one label per manifold, predict takes points: the generic checks "
                          "feed points to fit (tests/formulations/mcp_paper/test_estimator.py tests its API)",
    "LHMNetClassifier": "a network trained with JAX (the nn extra); its API is tested in "
                        "tests/formulations/hinge_minimax_paper/test_network.py",
}


def _instances(slow: bool) -> list:
    return [est for entries in INSTANCES.values() for est, is_slow in entries if is_slow == slow]


def _check(estimator, check):
    from certiprog.formulations.hp_mpm_paper.estimator import NoMeaningfulSolutionWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoMeaningfulSolutionWarning)  # tiny check data: kappa* = 0 is expected
        check(estimator)


def test_every_exported_estimator_is_checked_or_excluded_with_a_reason():
    assert set(INSTANCES) | set(EXCLUDED) == set(E.__all__)
    assert not set(INSTANCES) & set(EXCLUDED)
    for name, entries in INSTANCES.items():
        assert all(type(est).__name__ == name for est, _ in entries)


@parametrize_with_checks(_instances(slow=False))
def test_sklearn_checks(estimator, check):
    _check(estimator, check)


@pytest.mark.slow
@parametrize_with_checks(_instances(slow=True))
def test_sklearn_checks_slow(estimator, check):
    _check(estimator, check)


@pytest.mark.parametrize("name", sorted(set(E.__all__) - {"LHMNetClassifier"}))
def test_every_estimator_has_the_shared_base(name):
    assert issubclass(getattr(E, name), CertifiedClassifier)


def test_certify_has_one_meaning():
    assert [certify_mode(v) for v in CERTIFY] == ["interval", "none", "auto", "kkt"]
    assert certify_mode("full") == "interval"  # the MPM estimators' older spelling
    for bad in (1, 0, None, "yes", "FULL"):
        with pytest.raises(InputError, match="certify must be one of"):
            certify_mode(bad)
    with pytest.raises(InputError, match="certify must be one of True, False"):
        certify_mode("kkt", (True, False))


@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="needs scikit-learn")
def test_the_shared_parameters_are_checked_one_way():
    import numpy as np

    X, y = np.random.default_rng(0).normal(size=(20, 2)), np.repeat([0, 1], 10)
    with pytest.raises(InputError, match="certify must be one of"):
        E.MPMClassifier(certify="yes").fit(X, y)
    with pytest.raises(InputError, match="certify must be one of True, False"):
        E.ManifoldClassifier(certify="kkt")._check_shared()
    with pytest.raises(InputError, match="backend"):
        E.MPMClassifier(backend="no-such-backend").fit(X, y)
    assert E.MPMClassifier(certify=True).fit(X, y).solution_["certificate"] is not None
    assert E.MPMClassifier(certify=False).fit(X, y).solution_.get("certificate") is None


def test_lhm_components_are_n_components_and_C_still_works_with_a_future_warning():
    """``C`` means a regularisation weight in scikit-learn and in ManifoldClassifier; LHM's components are
    ``n_components`` (Alg. 2's C), and the old keyword gives the same model with a FutureWarning."""
    import numpy as np

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(20, 2)) * 0.5 + [2.0, 0.0], rng.normal(size=(60, 2)) * 1.5])
    y = np.r_[np.ones(20, int), np.zeros(60, int)]
    kw = dict(K=1, delta=0.3, lam=0.1, certify=False, max_iter=2, max_rounds=0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        new = E.LHMClassifier(n_components=2, **kw).fit(X, y)
    with pytest.warns(FutureWarning, match="n_components"):
        old = E.LHMClassifier(C=2, **kw).fit(X, y)
    assert len(new.components()) == len(old.components()) == 2
    np.testing.assert_array_equal(new.decision_function(X), old.decision_function(X))
    assert E.LHMClassifier().get_params()["n_components"] == 2
