"""ManifoldClassifier (paper 001, MCP) under scikit-learn conventions. sklearn's check_estimator does not apply:
fit takes manifolds and one label per manifold, predict takes points. Tested instead: clone / get_params /
set_params, NotFittedError, classes_ encoding with arbitrary labels, output shapes and types, agreement with
mcp_simple / mcp_slack, all manifold points classified correctly after a converged hard-margin fit, the three
input forms, warnings and errors, JSON + npz saving."""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from certiprog.errors import InputError, ModelError
from certiprog.estimators import ManifoldClassifier
from certiprog.formulations.mcp_paper.manifolds import LqEllipsoidManifold, random_lq_ellipsoids
from certiprog.formulations.mcp_paper.programs import mcp_simple, mcp_slack


@pytest.fixture(scope="module")
def separable():
    return random_lq_ellipsoids(6, 20, 3, 0.3, q=2, rng=1)


def test_sklearn_parameter_conventions():
    est = ManifoldClassifier(C=2.0, q=3, delta=0.05)
    params = est.get_params()
    assert params["C"] == 2.0 and params["q"] == 3 and params["delta"] == 0.05 and params["backend"] is None
    twin = clone(est)
    assert twin is not est and twin.get_params() == params
    assert est.set_params(C=None, max_iter=7) is est and est.C is None and est.max_iter == 7
    with pytest.raises(ValueError):
        est.set_params(gamma=1.0)
    with pytest.raises(NotFittedError):
        ManifoldClassifier().predict(np.ones((2, 3)))
    with pytest.raises(NotFittedError):
        ManifoldClassifier().decision_function(np.ones((2, 3)))


def test_fit_predict_and_agreement_with_mcp_simple(separable):
    ms, y = separable
    labels = np.where(y > 0, "cat", "dog")  # any two labels; classes_ sorted, classes_[1] = 'dog' is +1
    est = ManifoldClassifier(delta=0.02).fit(ms, labels)
    assert list(est.classes_) == ["cat", "dog"]
    ref = mcp_simple(ms, np.where(labels == "dog", 1.0, -1.0), delta=0.02)
    assert np.allclose(est.coef_[0], ref.w) and est.coef_.shape == (1, 20) and np.all(est.intercept_ == 0)
    assert est.n_iter_ == ref.n_iter and est.status_ == "converged" and est.n_features_in_ == 20
    assert len(est.history_) == ref.n_iter + 1 and est.margin_ == pytest.approx(1 / np.linalg.norm(ref.w))
    # a converged hard margin classifies every manifold point correctly (margin >= 1 - delta > 0)
    X = np.vstack([m.sample(100, p, surface=True) for p, m in enumerate(ms)])
    truth = np.repeat(labels, 100)
    pred = est.predict(X)
    assert pred.shape == (600,) and pred.dtype == truth.dtype and np.all(pred == truth)
    assert est.score(X, truth) == 1.0
    d = est.decision_function(X)
    assert d.shape == (600,) and np.all((d > 0) == (truth == "dog"))
    assert est.predict(X[:1]).shape == (1,)


def test_slack_fit_matches_mcp_slack_and_certifies():
    ms, y = random_lq_ellipsoids(8, 10, 4, 3.0, q=2, rng=1)  # large radii: not separable, centers are
    est = ManifoldClassifier(C=1.0, delta=0.05, certify=True).fit(ms, y)
    ref = mcp_slack(ms, y, 1.0, delta=0.05)
    assert np.allclose(est.coef_[0], ref.w) and np.allclose(est.xi_, ref.xi) and np.max(est.xi_) > 0
    cert = est.certificate_
    assert cert.in_bracket and cert.within_bound
    assert est.objective_ <= cert.exact_objective * (1 + 1e-6) <= est.objective_ + 8 * 1.0 * 0.05 + 1e-6
    with pytest.raises(ModelError, match="use C > 0"):
        ManifoldClassifier().fit(ms, y)


def test_input_forms_point_arrays_and_ellipsoid_dict(separable):
    ms, y = separable
    clouds = [m.sample(30, p) for p, m in enumerate(ms)]
    est = ManifoldClassifier(delta=0.02).fit(clouds, y)
    assert np.min(np.repeat(y, 30) * est.decision_function(np.vstack(clouds))) >= 1 - 0.02 - 1e-9
    geom = {"centers": np.stack([m.center for m in ms]), "bases": np.stack([m.basis for m in ms]),
            "radii": np.stack([m.radii for m in ms])}
    est_q = ManifoldClassifier(q=3, delta=0.02).fit(geom, y)
    direct = ManifoldClassifier(delta=0.02).fit([LqEllipsoidManifold(m.center, m.basis, m.radii, q=3) for m in ms], y)
    assert np.allclose(est_q.coef_, direct.coef_)
    with pytest.raises(InputError, match="missing \\['radii'\\]"):
        ManifoldClassifier().fit({"centers": geom["centers"], "bases": geom["bases"]}, y)


def test_fit_and_predict_bad_inputs(separable):
    ms, y = separable
    with pytest.raises(InputError, match="y has 1 .*nothing to separate"):
        ManifoldClassifier().fit(ms, np.ones(len(ms)))
    with pytest.raises(InputError, match="two classes; y has 3"):
        ManifoldClassifier().fit(ms, np.arange(len(ms)) % 3)
    with pytest.raises(InputError, match="one label per manifold"):
        ManifoldClassifier().fit(ms, y[:-1])
    with pytest.raises(InputError, match="NaN"):
        ManifoldClassifier().fit(ms, np.r_[y[:-1], np.nan])
    with pytest.raises(InputError, match="delta"):
        ManifoldClassifier(delta=2.0).fit(ms, y)
    with pytest.raises(InputError, match="C must lie"):
        ManifoldClassifier(C=-1.0).fit(ms, y)
    with pytest.raises(InputError, match="q must be >= 1"):
        ManifoldClassifier(q=0.5).fit({"centers": np.ones((2, 3)), "bases": np.ones((2, 3, 1)),
                                       "radii": np.ones((2, 1))}, [1, -1])
    est = ManifoldClassifier(delta=0.05).fit(ms, y)
    with pytest.raises(InputError, match="columns"):
        est.predict(np.ones((3, 19)))
    with pytest.raises(InputError, match="NaN"):
        est.predict(np.full((3, 20), np.nan))
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        ManifoldClassifier(delta=1e-3, max_iter=1).fit(ms, y)


def test_save_and_load_roundtrip(tmp_path, separable):
    ms, y = separable
    est = ManifoldClassifier(delta=0.05, cuts="all").fit(ms, np.where(y > 0, 7, 3))
    est.save(str(tmp_path / "clf"))
    back = ManifoldClassifier.load(str(tmp_path / "clf"))
    X = np.vstack([m.sample(20, p) for p, m in enumerate(ms)])
    assert np.array_equal(back.predict(X), est.predict(X)) and back.get_params() == est.get_params()
    assert list(back.classes_) == [3, 7]
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    with pytest.raises(InputError, match="not a saved ManifoldClassifier"):
        ManifoldClassifier.load(str(tmp_path / "bad"))
