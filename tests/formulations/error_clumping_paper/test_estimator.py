"""ErrorClumpingClassifier and HolePunchingClassifier (paper 003) under scikit-learn conventions: any two labels,
the fitted attributes and certificates, agreement with eq. (1) solved by the reference, every solver path, saving
(JSON + .npz) and bad input.

scikit-learn's estimator checks run in tests/core/test_estimator_checks.py (one test for every paper's estimators).
"""
import json

import numpy as np
import pytest
from sklearn.base import clone

from certiprog.errors import CertiprogError, InputError, SavedFileError
from certiprog.estimators import ErrorClumpingClassifier, HolePunchingClassifier

from ref_001_003 import ref_error_clumping  # noqa: E402

def data(seed=0, m=120):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 2))
    y = np.where(X[:, 0] + 0.8 * rng.standard_normal(m) > 0, 1, -1)
    return X, y


def test_matches_eq1_and_any_two_labels():
    X, y = data(1)
    lab = np.where(y > 0, "yes", "no")
    est = ErrorClumpingClassifier(rho=0.7, eta=0.5, lam=0.05).fit(X, lab)
    assert list(est.classes_) == ["no", "yes"]
    Xa = np.c_[X, np.ones(len(X))]
    ref = ref_error_clumping(Xa, np.where(lab == "yes", 1.0, -1.0), 0.7, 0.5, 0.05)
    cert = est.certificate_
    assert est.verdict_ == "certified" and cert["lower"] <= ref["objective"] + 1e-8 <= cert["upper"] + 2e-8
    np.testing.assert_allclose(est.w_, ref["w"], atol=1e-4)
    np.testing.assert_allclose(est.coef_[0], est.w_[:2]) and np.testing.assert_allclose(est.intercept_, est.w_[2:])
    dec = est.decision_function(X)
    np.testing.assert_array_equal(est.predict(X), np.where(dec > 0, "yes", "no"))
    assert est.xi_.shape == (len(X),) and est.solver_.startswith("structured") and est.status_ == "optimal"
    # no constant feature: eq. (1) as printed (bias-free)
    free = ErrorClumpingClassifier(rho=0.7, eta=0.5, lam=0.05, fit_intercept=False).fit(X, y)
    assert free.w_.shape == (2,) and free.intercept_[0] == 0.0
    assert free.objective_ == pytest.approx(ref_error_clumping(X, y, 0.7, 0.5, 0.05)["objective"], rel=1e-6)


def test_solver_paths_agree_to_their_certificates():
    X, y = data(2, 80)
    kw = dict(rho=0.7, eta=0.3, lam=0.1)
    a = ErrorClumpingClassifier(solver="clarabel", **kw).fit(X, y)
    b = ErrorClumpingClassifier(solver="cvxpy", **kw).fit(X, y)
    c = ErrorClumpingClassifier(solver="algorithm1", passes=100, random_state=0, **kw).fit(X, y)
    s = ErrorClumpingClassifier(**kw).fit(X, y)  # default 'auto': the structured solver
    fits = (a, b, c, s)
    for e in fits:  # every certificate brackets the one optimum
        assert max(f.certificate_["lower"] for f in fits) <= e.certificate_["upper"]
    assert a.verdict_ == b.verdict_ == s.verdict_ == "certified" and s.solver_.startswith("structured")
    assert a.solver_.startswith("clarabel") and b.solver_.startswith("cvxpy") and a.history_ == []
    np.testing.assert_allclose(s.w_, a.w_, atol=1e-4)
    assert c.verdict_ in ("bounded", "certified") and len(c.history_) == 100
    assert c.objective_ - a.objective_ < 5e-3 * a.objective_
    with pytest.raises(CertiprogError):
        ErrorClumpingClassifier(solver="no_such_backend").fit(X, y)


def test_hole_punching_estimator_attributes_and_routing():
    X, y = data(3, 200)
    y[(np.linalg.norm(X - [1.0, 1.0], axis=1) < 0.6)] *= -1  # a clump of flipped labels: a hole to punch
    est = HolePunchingClassifier(n_holes=3, rho=0.5, eta=0.5, lam=0.01).fit(X, y)
    k = est.n_holes_
    assert 1 <= k <= 3 and est.centers_.shape == (k, 2) and est.radii_.shape == (k,)
    assert [h["round"] for h in est.history_] == list(range(k + 1))
    errs = [h["n_errors"] for h in est.history_]
    assert all(b < a for a, b in zip(errs, errs[1:]))  # every hole strictly lowers the training error
    assert errs[-1] == int(np.sum(est.predict(X) != y))
    assert est.verdict_ == "certified" and est.w_.shape == (3,)
    for h in est.holes_:
        assert h["kind"] in ("constant", "error_clumping") and 2 * h["errors_before"] > h["n_points"]
        if h["kind"] == "error_clumping":
            assert h["certificate"]["verdict"] == "certified"
    stages = list(est.staged_predict(X))
    assert len(stages) == k + 1
    for r, pred in enumerate(stages):  # training errors per round, recomputed from the staged predictors
        assert int(np.sum(pred != y)) == est.history_[r]["n_errors"]
    np.testing.assert_array_equal(stages[-1], est.predict(X))
    with pytest.raises(InputError, match="rounds"):
        est.result_.truncated(k + 1)
    piece = est.route(X)
    assert set(np.unique(piece)) <= set(range(-1, k))
    assert HolePunchingClassifier(n_holes=3, rho=0.5, eta=0.5, lam=0.01).fit(X, y).score(X, y) == est.score(X, y)
    # a precomputed graph (shared across eta by the experiment) gives the same fit; a wrong one is refused
    from certiprog.formulations.error_clumping_paper.programs import neighbourhood_graph

    given = HolePunchingClassifier(n_holes=3, rho=0.5, eta=0.5, lam=0.01).fit(X, y, graph=neighbourhood_graph(X, 0.5))
    np.testing.assert_array_equal(given.radii_, est.radii_)
    np.testing.assert_array_equal(given.predict(X), est.predict(X))
    with pytest.raises(InputError, match="graph"):
        HolePunchingClassifier(n_holes=3, rho=0.5, eta=0.5, lam=0.01).fit(X, y, graph=neighbourhood_graph(X[1:], 0.5))
    zero = HolePunchingClassifier(n_holes=0, rho=0.5, eta=0.5, lam=0.01).fit(X, y)
    base = ErrorClumpingClassifier(rho=0.5, eta=0.5, lam=0.01).fit(X, y)
    np.testing.assert_array_equal(zero.predict(X), base.predict(X))
    assert zero.n_holes_ == 0 and zero.stop_reason_.startswith("n_holes = 0")


def test_save_and_load_round_trip(tmp_path):
    X, y = data(4, 150)
    lab = np.where(y > 0, "b", "a")
    y2 = lab.copy()
    y2[np.linalg.norm(X - [-1.0, 0.5], axis=1) < 0.7] = "b"
    for est in (ErrorClumpingClassifier(rho=0.6).fit(X, lab), HolePunchingClassifier(n_holes=3, rho=0.6).fit(X, y2)):
        stem = str(tmp_path / type(est).__name__)
        est.save(stem)
        back = type(est).load(stem)
        np.testing.assert_array_equal(back.predict(X), est.predict(X))
        np.testing.assert_allclose(back.decision_function(X), est.decision_function(X))
        assert back.get_params() == est.get_params() and back.verdict_ == est.verdict_
    # tampering is caught
    meta = json.load(open(f"{stem}.json"))
    meta["format"] = "something else"
    json.dump(meta, open(f"{stem}.json", "w"))
    with pytest.raises(SavedFileError, match="not a saved"):
        HolePunchingClassifier.load(stem)
    stem2 = str(tmp_path / "ErrorClumpingClassifier")
    np.savez(f"{stem2}.npz", w=np.array([1.0, np.nan, 0.0]), xi=np.zeros(0))
    with pytest.raises(SavedFileError, match="NaN"):
        ErrorClumpingClassifier.load(stem2)
    np.savez(f"{stem2}.npz", w=np.ones(5), xi=np.zeros(0))
    with pytest.raises(SavedFileError, match="weight vector"):
        ErrorClumpingClassifier.load(stem2)
    with pytest.raises(SavedFileError):
        ErrorClumpingClassifier.load(str(tmp_path / "missing"))
    meta = json.load(open(f"{stem2}.json"))
    meta["params"]["no_such_parameter"] = 1
    json.dump(meta, open(f"{stem2}.json", "w"))
    with pytest.raises(SavedFileError, match="invalid"):
        ErrorClumpingClassifier.load(stem2)


@pytest.mark.parametrize("cls", [ErrorClumpingClassifier, HolePunchingClassifier])
def test_bad_input_raises_certiprog_errors(cls):
    X, y = data(5, 40)
    for eta in (-0.1, 1.5, np.nan):
        with pytest.raises(InputError, match="eta"):
            cls(eta=eta).fit(X, y)
    for rho in (0.0, -2.0, np.inf):
        with pytest.raises(InputError, match="rho"):
            cls(rho=rho).fit(X, y)
    with pytest.raises(InputError, match="lam"):
        cls(lam=0.0).fit(X, y)
    with pytest.raises(InputError, match="1 class"):
        cls().fit(X, np.ones(40))
    with pytest.raises(InputError, match="feature"):
        cls().fit(np.zeros((40, 0)), y)
    for bad in (np.nan, np.inf):
        Xb = X.copy()
        Xb[2, 1] = bad
        with pytest.raises(InputError, match="NaN|inf"):
            cls().fit(Xb, y)
    with pytest.raises(InputError, match="Only binary"):
        cls().fit(X, np.arange(40) % 3)
    fitted = cls().fit(X, y)
    with pytest.raises(InputError, match="NaN|inf"):
        fitted.predict(np.array([[np.nan, 0.0]]))
    with pytest.raises(InputError, match="features"):
        fitted.predict(np.zeros((3, 5)))
    assert clone(fitted).get_params() == fitted.get_params()
    if cls is HolePunchingClassifier:
        for n in (-1, 2.5, True):
            with pytest.raises(InputError, match="n_holes"):
                cls(n_holes=n).fit(X, y)


@pytest.mark.parametrize("scale", [1e-8, 1e8])
def test_scaled_data_gives_the_same_classifier(scale):
    """X -> s X with rho -> s rho and lam -> s^2 lam is the same problem (w -> w/s): same predictions, same optimum
    (certified), same holes (radii scaled)."""
    X, y = data(6, 100)
    kw = dict(fit_intercept=False, eta=0.5)
    base = ErrorClumpingClassifier(rho=0.5, lam=0.01, **kw).fit(X, y)
    big = ErrorClumpingClassifier(rho=0.5 * scale, lam=0.01 * scale**2, **kw).fit(X * scale, y)
    assert big.verdict_ == "certified"
    assert big.objective_ == pytest.approx(base.objective_, rel=1e-6)
    np.testing.assert_array_equal(big.predict(X * scale), base.predict(X))
    h0 = HolePunchingClassifier(n_holes=2, rho=0.5, lam=0.01, **kw).fit(X, y)
    hs = HolePunchingClassifier(n_holes=2, rho=0.5 * scale, lam=0.01 * scale**2, **kw).fit(X * scale, y)
    np.testing.assert_allclose(hs.radii_ / scale, h0.radii_, rtol=1e-9)
    np.testing.assert_array_equal(hs.predict(X * scale), h0.predict(X))


def test_default_rho_gives_about_one_percent_neighbourhoods():
    from certiprog.formulations.error_clumping_paper.programs import neighbourhood_graph

    X, y = data(8, 300)
    est = ErrorClumpingClassifier().fit(X, y)
    A = neighbourhood_graph(X, est.rho_)
    assert 0.003 <= A.nnz / 300 / 299 <= 0.03  # the estimate is a sampled quantile: about 1 %
    assert ErrorClumpingClassifier(rho=0.7).fit(X, y).rho_ == 0.7
    hp = HolePunchingClassifier(n_holes=1).fit(X, y)
    assert hp.rho_ == est.rho_
    dup = ErrorClumpingClassifier().fit(np.repeat(X[:10], 30, axis=0), np.repeat(y[:10], 30))  # distances 0
    assert dup.rho_ > 0 and dup.verdict_ == "certified"


def test_an_uncertified_answer_warns():
    X, y = data(9, 60)
    with pytest.warns(RuntimeWarning, match="not certified"):
        est = ErrorClumpingClassifier(tol=1e-300, solver="clarabel").fit(X, y)
    assert est.verdict_ == "bounded" and est.certificate_["lower"] <= est.objective_ <= est.certificate_["upper"]
