"""bias=False keeps the paper's homogeneous hyperplanes (Def. 1: through the origin of the raw features), also with
the default standardisation."""
import numpy as np
import pytest

from certiprog.estimators import KHHMClassifier, LHMClassifier
from certiprog.formulations.hinge_minimax_paper.experiment import synthetic_2d


@pytest.mark.parametrize("make", [lambda: KHHMClassifier(K=2, bias=False, delta=0.9, lam=0.1, certify=False,
                                                         max_rounds=2),
                                  lambda: LHMClassifier(C=2, K=2, bias=False, delta=0.9, lam=0.1, certify=False,
                                                        random_state=0, max_iter=2, max_rounds=2)],
                         ids=["KHHM", "LHM"])
def test_bias_false_planes_through_raw_origin(make):
    X, y = synthetic_2d(0.1, 1500, seed=0)["train"]
    X = X * np.array([3.0, 0.5]) + np.array([-3.0, 0.0])  # negatives' mean away from the origin, unequal scales
    est = make().fit(X, y)
    assert est.active_.any()  # a homogeneous plane can separate here (centring made every plane trivial)
    assert np.all(est.b_[est.active_] == 0.0)
    if isinstance(est, KHHMClassifier):  # LHM's k-means start depends on the scaling, so its components may differ
        ref = make().set_params(standardize=False).fit(X, y)
        assert np.array_equal(est.active_, ref.active_)
    pts = X[:50]
    assert np.array_equal(est.predict(pts), est.predict(2.0 * pts))  # homogeneous: scaling x keeps the decision


def test_bias_false_refuses_where_no_homogeneous_start_exists():
    """With bias=False there is no enclosing box to start from: a greedy start that cannot begin is an error."""
    from certiprog.errors import InputError

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(40, 2)) * 0.3, rng.normal(size=(400, 2))])   # positives around the mean
    y = np.r_[np.ones(40, int), np.zeros(400, int)]
    with pytest.raises(InputError, match="bias=False"):
        KHHMClassifier(K=2, bias=False, delta=0.5, lam=0.1, certify=False).fit(X, y)
