"""KHHMClassifier and LHMClassifier (paper 000) under scikit-learn conventions: labels and the positive class,
decision_function = max over components of min over hyperplanes, fitted attributes (hyperplanes on the raw features,
history, worst-case risk, certificates), the components accessor, scale invariance, bad input.

scikit-learn's estimator checks run in tests/core/test_estimator_checks.py (one test for every paper's
estimators). They run with ``certify=False`` (the KKT verdict of every solve instead of the rigorous interval), at
most 2 refinement rounds and, for LHM, at most 2 model steps: the checks are about the API; the certified path and
longer runs are tested below and in test_khhm.py / test_lhm.py.
"""
import numpy as np
import pytest
from sklearn.base import clone

from certiprog.errors import CertiprogError, InputError
from certiprog.estimators import KHHMClassifier, LHMClassifier
from certiprog.formulations.hinge_minimax_paper.claims import latent_toy
from certiprog.formulations.hinge_minimax_paper.khhm import fit_khhm


def two_clusters(seed=0, n_pos=40, n_neg=300):
    rng = np.random.default_rng(seed)
    Xp = rng.normal(size=(n_pos, 2)) * 0.5 + [2.0, 0.0]
    centres = np.array([[-3.0, 0.0], [2.0, 4.0]])
    Xn = centres[rng.integers(0, 2, n_neg)] + rng.normal(size=(n_neg, 2)) * 0.9
    return np.vstack([Xp, Xn]), np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]


def test_khhm_minority_positive_any_labels_and_signs():
    X, y = two_clusters()
    lab = np.where(y == 1, "rare", "common")
    est = KHHMClassifier(K=2, delta=0.3, backend="clarabel").fit(X, lab)
    assert est.pos_label_ == "rare" and list(est.classes_) == ["common", "rare"]
    dec = est.decision_function(X)
    assert np.array_equal(np.where(dec >= 0, "rare", "common"), est.predict(X))
    assert np.mean(est.predict(X) == lab) > 0.9
    # positive = classes_[0]: the score is negated (sklearn: > 0 predicts classes_[1])
    lab2 = np.where(y == 1, "a", "b")
    est2 = KHHMClassifier(K=2, delta=0.3, backend="clarabel").fit(X, lab2)
    assert est2.pos_label_ == "a"
    assert np.allclose(est2.decision_function(X), -dec, atol=1e-6)
    assert np.array_equal(est2.predict(X) == "a", est.predict(X) == "rare")
    flipped = KHHMClassifier(K=1, delta=0.3, pos_label="common", backend="clarabel").fit(X, lab)
    assert flipped.pos_label_ == "common"


def test_khhm_fitted_attributes_match_alg1_on_raw_features():
    X, y = two_clusters(1)
    est = KHHMClassifier(K=3, delta=0.3, lam=0.1, standardize=False, backend="clarabel").fit(X, y)
    ref = fit_khhm(X[y == 1], X[y == 0], K=3, delta=0.3, lam=0.1, backend="clarabel")
    assert np.allclose(est.W_, ref.W, atol=1e-6) and np.allclose(est.b_, ref.b, atol=1e-6)
    assert est.worst_case_background_risk_ == pytest.approx(ref.worst_case_background, abs=1e-8)
    assert est.history_[est.best_round_]["risk"] == pytest.approx(ref.risk) and est.certified_
    assert est.best_round_ == ref.best_round and len(est.history_) == len(ref.history) == 11
    assert sum(est.verdicts_.values()) == len(est.subproblems_) > 0
    assert est.W_.shape == (3, 2) and est.b_.shape == (3,) and est.active_.shape == (3,)
    (W, b), = est.components()
    assert np.array_equal(W, est.W_) and np.array_equal(b, est.b_)


def test_standardized_fit_acts_on_raw_features_and_is_scale_invariant():
    X, y = two_clusters(2)
    a = KHHMClassifier(K=2, delta=0.3, backend="clarabel").fit(X, y)
    for scale in (1e8, 1e-8):
        b = KHHMClassifier(K=2, delta=0.3, backend="clarabel").fit(X * scale, y)
        assert np.array_equal(a.predict(X), b.predict(X * scale))
        assert b.worst_case_background_risk_ == pytest.approx(a.worst_case_background_risk_, rel=1e-5)
    # W_, b_ act on raw features: min over active planes recomputed by hand
    act = a.active_
    assert np.allclose(a.decision_function(X), np.min(X @ a.W_[act].T + a.b_[act], axis=1))


def test_lhm_attributes_components_and_decision():
    Xp, Xn = latent_toy(2)
    X = np.vstack([Xp, Xn])
    y = np.r_[np.ones(len(Xp), int), np.zeros(len(Xn), int)]
    est = LHMClassifier(C=2, K=2, delta=0.1, random_state=2, backend="clarabel").fit(X, y)
    assert est.W_.shape == (2, 2, 2) and est.b_.shape == (2, 2) and est.assignment_.shape == (len(Xp),)
    assert set(est.assignment_) <= {0, 1} and est.alive_.all()
    assert len(est.history_) == est.n_iter_ and 1 <= est.best_iteration_ <= est.n_iter_
    assert est.worst_case_background_risk_.shape == (2,) and est.certified_, est.verdicts_
    comps = est.components()
    ref = np.max([np.min(X @ W[est.active_[i]].T + b[est.active_[i]], axis=1) for i, (W, b) in enumerate(comps)],
                 axis=0)
    assert np.allclose(est.decision_function(X), ref)
    assert np.mean(est.predict(X) == y) > 0.9
    assert clone(est).get_params() == est.get_params()


@pytest.mark.parametrize("cls, params, match", [
    (KHHMClassifier, dict(K=0), "K"), (KHHMClassifier, dict(delta=0.0), "delta"),
    (KHHMClassifier, dict(accept="never"), "accept"), (KHHMClassifier, dict(pos_label=7), "pos_label"),
    (LHMClassifier, dict(C=0), "C"), (LHMClassifier, dict(K=0), "K"), (LHMClassifier, dict(init="spectral"), "init"),
    (LHMClassifier, dict(C=50), "fewer components")])
def test_bad_parameters(cls, params, match):
    X, y = two_clusters(3, n_pos=20, n_neg=60)
    with pytest.raises(InputError, match=match):
        cls(certify=False, **params).fit(X, y)


@pytest.mark.parametrize("cls", [KHHMClassifier, LHMClassifier])
def test_bad_data(cls):
    X, y = two_clusters(3, n_pos=20, n_neg=60)
    with pytest.raises(InputError, match="two classes"):
        cls().fit(X, np.zeros(len(y)))
    Xn = X.copy()
    Xn[4, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        cls().fit(Xn, y)
    with pytest.raises(InputError, match="Only binary"):
        cls().fit(X, np.arange(len(y)) % 3)
    Xs = np.c_[X, X[:, 0] + X[:, 1]]  # a linearly dependent feature: singular background covariance
    with pytest.raises(CertiprogError, match="singular"):
        cls().fit(Xs, y)
    est = cls(certify=False, cov_ridge=1e-3).fit(Xs, y)  # the documented remedy
    assert est.predict(Xs).shape == y.shape


def test_lhm_classifier_takes_T_minus_inf_as_fit_lhm_does():
    """T = -inf (never stop on the risk; `lhm.lemma9_runs`) is accepted by both; NaN and strings by neither."""
    import math

    from certiprog.formulations.hinge_minimax_paper.lhm import fit_lhm

    X, y = two_clusters(3, n_pos=20, n_neg=60)
    kw = dict(C=1, K=1, max_iter=2, max_rounds=0, certify=False, backend="clarabel")
    est = LHMClassifier(T=-math.inf, **kw).fit(X, y)
    assert est.n_iter_ >= 1 and np.isneginf(est.get_params()["T"])
    assert len(fit_lhm(X[y == 1], X[y == 0], T=-math.inf, **kw).history) == est.n_iter_
    for bad in (math.nan, math.inf, "1e-6", True):
        with pytest.raises(InputError, match="T"):
            LHMClassifier(T=bad, **kw).fit(X, y)
        with pytest.raises(InputError, match="T"):
            fit_lhm(X[y == 1], X[y == 0], T=bad, **kw)


# ------------------------------------------------------------------------------------------------------------------
# Issue 24: internal validation by default, grids widened past an edge, the paper's geometries
# ------------------------------------------------------------------------------------------------------------------
from certiprog.formulations.hinge_minimax_paper.estimator import WIDEN, select_on_grid  # noqa: E402


def test_select_on_grid_widens_past_an_edge_until_interior_or_the_limit():
    calls = []

    def peak_at(p):
        def evaluate(params):
            calls.append(dict(params))
            return params["delta"], -(params["delta"] - p) ** 2 - (np.log10(params["lam"]) + 2) ** 2
        return evaluate

    fitted, choice = select_on_grid(peak_at(0.97), dict(delta=(0.1, 0.5, 0.9), lam=(0.1,)))
    # delta widened 0.9 -> 0.95 -> 0.975 -> 0.9875 (worse: stop); lam 0.1 -> 1 (worse), -> 0.01 -> 0.001 (worse)
    assert choice.params == dict(delta=0.975, lam=0.01) and fitted == 0.975
    assert choice.widened["delta"][:3] == [0.95, 0.975, 0.9875] and 0.001 in choice.widened["lam"]
    assert not choice.edges
    assert len({(c["delta"], c["lam"]) for c in calls}) == len(calls)   # no point evaluated twice
    # a value still rising at the limit: widened up to 0.99 and flagged
    _, choice = select_on_grid(lambda p: (None, p["delta"]), dict(delta=(0.5, 0.9)), {"delta": WIDEN["delta"]})
    assert 0.98 < choice.params["delta"] <= 0.99 and choice.edges and "delta" in choice.edges[0]
    # no widening rule: the edge stays and is flagged
    _, choice = select_on_grid(lambda p: (None, p["delta"]), dict(delta=(0.5, 0.9)), {})
    assert choice.params["delta"] == 0.9 and choice.edges == ()  # not widenable: not a widening limit
    with pytest.raises(InputError, match="every grid point failed"):
        select_on_grid(lambda p: (None, float("nan")), dict(delta=(0.5,)))


def narrow_inside_wide(seed, n_pos, n_neg):
    """Sec. 5.1.1's geometry: a narrow positive Gaussian N((1, 0.5), 0.3^2 I) overlapping a wide negative N(0, I):
    the best region is a small disc, which one half-plane cannot approximate."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_pos, 2)) * 0.3 + [1.0, 0.5], rng.normal(size=(n_neg, 2))])
    return X, np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]


@pytest.mark.slow
def test_defaults_choose_delta_lam_and_k4_beats_one_plane_on_sec_511_geometry():
    from sklearn.metrics import roc_auc_score

    X, y = narrow_inside_wide(0, 80, 800)
    Xt, yt = narrow_inside_wide(1, 1000, 10000)
    one = KHHMClassifier(K=1, certify=False, random_state=0, max_rounds=4).fit(X, y)
    four = KHHMClassifier(K=4, certify=False, random_state=0, max_rounds=4).fit(X, y)
    a1, a4 = (roc_auc_score(yt, e.decision_function(Xt)) for e in (one, four))
    assert a4 > a1 + 0.05 and a4 > 0.9, (a1, a4)
    for est in (one, four):
        v = est.validation_
        assert v["params"] == dict(delta=est.delta_, lam=est.lam_) and len(v["results"]) >= 5
        assert np.abs(est.W_[est.active_]).sum() > 0


def test_fixed_parameters_are_one_argument_away():
    X, y = two_clusters(4)
    est = KHHMClassifier(K=2, delta=0.3, lam=0.1, certify=False, max_rounds=2, backend="clarabel").fit(X, y)
    assert est.validation_ is None and (est.delta_, est.lam_) == (0.3, 0.1)
    half = KHHMClassifier(K=2, delta=0.3, certify=False, max_rounds=2, backend="clarabel", random_state=1).fit(X, y)
    assert half.delta_ == 0.3 and {r["delta"] for r in half.validation_["results"]} == {0.3}
    assert len({r["lam"] for r in half.validation_["results"]}) >= 2   # lam alone was chosen (and widened)
    with pytest.raises(InputError, match="auto"):
        KHHMClassifier(delta="best", certify=False).fit(X, y)
    from certiprog.formulations.hinge_minimax_paper.estimator import UnvalidatedWarning

    with pytest.warns(UnvalidatedWarning, match="validation"):   # 3 positives: no validation part; the middle
        few = KHHMClassifier(certify=False, max_rounds=1).fit(*two_clusters(4, n_pos=3, n_neg=40))
    assert (few.delta_, few.lam_) == (0.5, 0.1) and "skipped" in few.validation_


def test_positives_around_the_background_mean_warn_and_give_a_meaningful_box():
    from sklearn.metrics import roc_auc_score

    from certiprog.formulations.hinge_minimax_paper.khhm import InfeasiblePlaneWarning

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(60, 2)) * 0.4, rng.normal(size=(600, 2))])
    y = np.r_[np.ones(60, int), np.zeros(600, int)]
    with pytest.warns(InfeasiblePlaneWarning, match="cannot begin"):
        est = KHHMClassifier(K=4, delta=0.5, lam=0.1, max_rounds=2, certify=False).fit(X, y)
    assert est.start_ == "enclosing" and est.active_.all()
    assert not (np.all(est.W_ == 0) and np.all(est.b_ == 1))          # never the accept-everything model
    assert est.events_ and est.history_[0]["infeasible_planes"] == [e for e in est.events_ if e["round"] == 0]
    Xt = np.vstack([rng.normal(size=(500, 2)) * 0.4, rng.normal(size=(5000, 2))])
    yt = np.r_[np.ones(500), np.zeros(5000)]
    assert roc_auc_score(yt, est.decision_function(Xt)) > 0.8          # Bayes: 1 / (1 + 0.16) = 0.862
    with pytest.raises(InputError, match="cannot begin"):
        KHHMClassifier(K=4, delta=0.5, lam=0.1, start="greedy", certify=False).fit(X, y)


@pytest.mark.slow
def test_lhm_defaults_on_sec_521_geometry_beat_one_polytope():
    """Sec. 5.2.1: two bars of positives with a bar of negatives between them (`experiment.latent_toy`): no single
    polytope holds both bars without the negatives between; LHM's union of two does."""
    from sklearn.metrics import roc_auc_score

    from certiprog.formulations.hinge_minimax_paper.experiment import latent_toy

    d = latent_toy(120, 600, 0)
    (X, y), (Xt, yt) = d["train"], d["test"]
    lhm = LHMClassifier(C=2, K=2, certify=False, random_state=0, max_rounds=4, max_iter=4).fit(X, y)
    khhm = KHHMClassifier(K=4, certify=False, random_state=0, max_rounds=4).fit(X, y)
    a_lhm, a_khhm = (roc_auc_score(yt, e.decision_function(Xt)) for e in (lhm, khhm))
    assert a_lhm > 0.93 and a_lhm > a_khhm, (a_lhm, a_khhm)
    assert lhm.validation_ is not None and lhm.alive_.all()
    # init="auto" compared k-means and single linkage on the validation part; single linkage finds the bars
    assert lhm.init_ == "single-linkage" and set(lhm.validation_["init"]) == {"kmeans", "single-linkage"}
