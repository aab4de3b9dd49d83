"""ME2Classifier (paper 002) under scikit-learn conventions: the decision-rule readings, labels, fitted attributes
and certificates, the tuned fit, the generic solver path and bad input.

scikit-learn's estimator checks run in tests/core/test_estimator_checks.py (one test for every paper's estimators).
"""
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from certiprog.errors import InputError
from certiprog.estimators import ME2Classifier
from certiprog.formulations.me2_paper.local_solver import LocalCertificate, solve_local_generic
from certiprog.formulations.me2_paper.tuning import PAPER_LAM, PAPER_MU, CentreTuning


def imbalanced(seed=0, n_pos=12, n_neg=150, d=3):
    """Positives in two tight clusters inside a broad cloud of negatives, features in [0, 1]."""
    rng = np.random.default_rng(seed)
    neg = rng.uniform(0, 1, size=(n_neg, d))
    centres = rng.uniform(0.2, 0.8, size=(2, d))
    pos = centres[rng.integers(0, 2, n_pos)] + 0.04 * rng.normal(size=(n_pos, d))
    X = np.vstack([pos, neg])
    y = np.array([1] * n_pos + [0] * n_neg)
    return X, y


def test_minority_is_positive_and_labels_any_two_values():
    X, y = imbalanced()
    lab = np.where(y == 1, "rare", "common")
    est = ME2Classifier(lam=0.1).fit(X, lab)
    assert est.pos_label_ == "rare" and est.centers_.shape == (12, 3)
    assert set(est.predict(X)) <= {"rare", "common"}
    # the positives are the centres: each lies in its own ellipsoid, first in rank
    assert np.all(est.predict(X[:12]) == "rare")
    # decision_function > 0 <=> classes_[1] (sklearn's convention); here classes_ = ['common', 'rare']
    dec = est.decision_function(X)
    assert np.array_equal(np.where(dec > 0, est.classes_[1], est.classes_[0]), est.predict(X))
    flipped = ME2Classifier(lam=0.1, pos_label="common").fit(X, lab)
    assert flipped.pos_label_ == "common" and flipped.centers_.shape[0] == 150


def test_fitted_attributes_and_certificates():
    X, y = imbalanced(1)
    est = ME2Classifier(mu=0.9, lam=0.01).fit(X, y)
    p, d = 12, 3
    assert est.M_.shape == (p, d, d) and est.R_.shape == (p,) and est.thresholds_.shape == (p,)
    assert np.all(est.mu_ == 0.9) and np.all(est.lam_ == 0.01)
    assert all(c["status"] == "optimal" and c["rel_gap"] <= 1e-10 for c in est.certificates_)
    assert all(isinstance(c, LocalCertificate) and c.fallback == "" for c in est.certificates_)
    assert min(np.linalg.eigvalsh(M).min() for M in est.M_) >= 1 - 1e-12
    ref = solve_local_generic(X[y == 0], est.centers_[0], 0.9, 0.01, 4.0, tol=1e-6)
    cert = est.certificates_[0]
    assert np.linalg.norm(ref.M - est.M_[0]) <= ref.M_error + cert["M_error"] + 1e-8
    assert abs(ref.R - est.R_[0]) <= ref.R_error + cert["R_error"] + 1e-8


def test_rank_rule_is_batch_independent_and_batch_rule_is_not():
    X, y = imbalanced(2)
    Xq = np.random.default_rng(5).uniform(0, 1, size=(400, 3))
    est = ME2Classifier(lam=0.1).fit(X, y)
    whole = est.predict(Xq)
    assert np.array_equal(whole, np.concatenate([est.predict(Xq[i:i + 1]) for i in range(len(Xq))]))
    assert np.array_equal(est.predict(Xq[::-1]), whole[::-1])
    batch = ME2Classifier(lam=0.1, rule="batch", m=1).fit(X, y)
    labels, assign = batch.predict(Xq), batch.assign(Xq)
    assert all(np.sum((labels == 1) & (assign == j)) <= 1 for j in range(12))  # at most m per centre per call
    single = np.concatenate([batch.predict(Xq[i:i + 1]) for i in range(len(Xq))])
    ellipsoid = ME2Classifier(lam=0.1, rule="ellipsoid").fit(X, y).predict(Xq)
    assert np.array_equal(single, ellipsoid)  # one point per call = membership only
    assert (ellipsoid == 1).sum() >= (whole == 1).sum()  # the rank condition only removes positives


def test_batch_rule_matches_the_reference_reading():
    from certiprog.formulations.me2_paper.programs import me2_predict

    X, y = imbalanced(3)
    Xq = np.random.default_rng(6).uniform(0, 1, size=(300, 3))
    est = ME2Classifier(lam=0.05, rule="batch", rank_metric="euclidean", m=2).fit(X, y)
    models = [(c, M, R) for c, M, R in zip(est.centers_, est.M_, est.R_)]
    ref = np.asarray(me2_predict(models, Xq, m=2))
    ref = ref.labels if hasattr(ref, "labels") else ref
    assert np.array_equal(np.where(est.predict(Xq) == 1, 1, -1), ref)


def test_tuned_fit_uses_the_grids_and_records_the_choice():
    X, y = imbalanced(4, n_pos=10, n_neg=120)
    est = ME2Classifier(tuning="local", mu_grid=(0.75, 1.0, 10.0), lam_grid=(1e-3, 1.0), random_state=0).fit(X, y)
    assert len(est.tuning_) == 10
    assert set(est.mu_) <= {0.75, 1.0, 10.0} and set(est.lam_) <= {1e-3, 1.0}
    assert {t["criterion"] for t in est.tuning_} <= {"f-measure", "fp-rate", "none"}
    assert sum(t["n_solves"] for t in est.tuning_) <= 10 * 6
    assert all(isinstance(t, CentreTuning) and len(t.tp) == len(t.pairs) == 6 for t in est.tuning_)
    again = ME2Classifier(tuning="local", mu_grid=(0.75, 1.0, 10.0), lam_grid=(1e-3, 1.0), random_state=0).fit(X, y)
    assert np.array_equal(again.mu_, est.mu_) and np.array_equal(again.lam_, est.lam_)


def test_paper_grids():
    assert PAPER_MU == (0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 2.0, 10.0)
    assert PAPER_LAM == tuple(10.0 ** k for k in range(-6, 3)) and len(PAPER_MU) * len(PAPER_LAM) == 72


def test_generic_solver_path_agrees():
    X, y = imbalanced(5, n_pos=5, n_neg=40)
    ded = ME2Classifier(lam=0.05).fit(X, y)
    gen = ME2Classifier(lam=0.05, solver="clarabel").fit(X, y)
    for a, b, ca, cb in zip(ded.M_, gen.M_, ded.certificates_, gen.certificates_):
        assert np.linalg.norm(a - b) <= ca["M_error"] + cb["M_error"] + 1e-8
    assert gen.certificates_[0]["solver"].startswith("generic:clarabel")
    Xq = np.random.default_rng(1).uniform(0, 1, size=(200, 3))
    assert np.mean(ded.predict(Xq) == gen.predict(Xq)) >= 0.99


def test_clone_keeps_parameters():
    est = ME2Classifier(mu=2.0, lam=0.1, B=3.0, m=5, rule="batch", rank_metric="euclidean", tuning="local",
                        cv=3, prefer="simple", pos_label=1, solver="generic", tol=1e-8, random_state=3)
    assert clone(est).get_params() == est.get_params()


@pytest.mark.parametrize("params, match", [
    (dict(B=0.0), "B"), (dict(B=-1.0), "B"), (dict(mu=0.0), "mu"), (dict(lam=-2.0), "lam"),
    (dict(m=0), "m must"), (dict(rule="nearest"), "rule"), (dict(rank_metric="cosine"), "rank_metric"),
    (dict(tuning="global"), "tuning"), (dict(solver="nope"), "solver"), (dict(pos_label=7), "pos_label"),
    (dict(mu=float("nan")), "mu"), (dict(lam=0.0), "lam"), (dict(mu=-1.0), "mu"), (dict(B=float("inf")), "B"),
    (dict(tol=0.0), "tol"), (dict(mu_grid=(0.75, -1.0), tuning="local"), "mu_grid"),
    (dict(lam_grid=(0.0,), tuning="local"), "lam_grid")])
def test_bad_parameters(params, match):
    X, y = imbalanced()
    with pytest.raises(InputError, match=match):
        ME2Classifier(**params).fit(X, y)


def test_bad_data():
    X, y = imbalanced()
    with pytest.raises(InputError, match="two classes"):
        ME2Classifier().fit(X, np.zeros(len(y)))  # no positives: one class
    with pytest.raises(InputError, match="two classes"):
        ME2Classifier(pos_label=1).fit(X, np.ones(len(y)))  # no negatives: one class
    Xd = X.copy()
    Xd[20] = Xd[0]  # a negative identical to positive 0
    with pytest.raises(InputError, match="identical to a negative"):
        ME2Classifier().fit(Xd, y)
    for bad in (np.inf, -np.inf, np.nan):
        Xn = X.copy()
        Xn[3, 1] = bad
        with pytest.raises(InputError, match="inf|NaN"):
            ME2Classifier().fit(Xn, y)
    est = ME2Classifier().fit(X, y)
    with pytest.raises(InputError, match="inf|NaN"):
        est.predict(np.where(np.eye(1, X.shape[1], 0, dtype=bool), np.nan, X[:1]))
    with pytest.raises(InputError, match="features"):
        est.predict(X[:, :2])
    with pytest.raises(InputError, match="Only binary"):
        ME2Classifier().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(InputError, match="at least 2 examples of each class"):
        ME2Classifier(tuning="local").fit(X[[0, 20, 21, 22]], y[[0, 20, 21, 22]])


def _same_fit(a, b):
    for name in ("M_", "R_", "mu_", "lam_", "thresholds_", "centers_"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert [c.as_dict() | {"seconds": 0} for c in a.certificates_] == \
        [c.as_dict() | {"seconds": 0} for c in b.certificates_]


def test_n_jobs_gives_the_same_model():
    """The local models are independent: spreading them over 2 joblib workers (tuning and final fits) changes
    nothing, bit for bit; so does a joblib backend context with n_jobs=None (scikit-learn's semantics)."""
    import joblib

    X, y = imbalanced(4, n_pos=14, n_neg=120)
    kw = dict(tuning="local", mu_grid=(0.75, 2.0), lam_grid=(1e-3, 1e-1, 10.0), random_state=2)
    one = ME2Classifier(n_jobs=1, **kw).fit(X, y)
    two = ME2Classifier(n_jobs=2, **kw).fit(X, y)
    _same_fit(one, two)
    assert [t.as_dict() | {"seconds": 0} for t in one.tuning_] == [t.as_dict() | {"seconds": 0} for t in two.tuning_]
    assert np.array_equal(one.decision_function(X), two.decision_function(X))
    with joblib.parallel_config(backend="threading", n_jobs=2):
        _same_fit(one, ME2Classifier(**kw).fit(X, y))
    _same_fit(ME2Classifier(lam=0.1).fit(X, y), ME2Classifier(lam=0.1, n_jobs=-1).fit(X, y))


@pytest.mark.parametrize("n_jobs", [0, 1.5, "2", True])
def test_bad_n_jobs(n_jobs):
    X, y = imbalanced()
    with pytest.raises(InputError, match="n_jobs"):
        ME2Classifier(n_jobs=n_jobs).fit(X, y)


@pytest.mark.parametrize("scale", [1e-8, 1e8])
def test_a_tuned_fit_on_unscaled_data_is_still_certified(scale):
    """A user who forgets to scale the features (the paper's B = 4 and grid assume unit-sized ones): the tuned fit
    on X * 1e-8 (every negative inside every local ellipsoid) and X * 1e8 (every one outside) still certifies every
    local model and every tuning solve (the batched solver at both extremes), and predicts both labels' type."""
    X, y = imbalanced(seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = ME2Classifier(tuning="local", random_state=0).fit(X * scale, y)
    assert all(c.status == "optimal" and c.rel_gap <= 1e-10 for c in est.certificates_)
    assert all(t.max_rel_gap <= 1e-10 for t in est.tuning_ if t.n_solves)
    assert set(np.unique(est.predict(X * scale))) <= {0, 1}
