"""ME^2's local tuning (Sec. 5.2): stratified 2-fold CV, local validation sets by the nearest positive, the criterion
(F-measure / FP rate / none) and its ties, exactly as me2_paper/tuning.py documents them."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import InputError
from certiprog.formulations.me2_paper.decision import nearest_centre
from certiprog.formulations.me2_paper.local_solver import grid_path
from certiprog.formulations.me2_paper.tuning import (
    _f_measure, _preference, local_tasks, tune_centre, tune_local, tuning_folds)


def data(seed=0, n_pos=10, n_neg=90, d=3):
    rng = np.random.default_rng(seed)
    X = np.vstack([0.5 + 0.05 * rng.normal(size=(n_pos, d)), rng.uniform(0, 1, size=(n_neg, d))])
    return X, np.arange(n_pos + n_neg) < n_pos


def test_folds_keep_the_imbalance_ratio_and_cover_S():
    _, y = data(n_pos=10, n_neg=90)
    folds = tuning_folds(y, 2, random_state=0)
    assert len(folds) == 2
    for tr, va in folds:
        assert y[tr].sum() == 5 and y[va].sum() == 5 and len(tr) == len(va) == 50
    assert np.array_equal(np.sort(np.concatenate([folds[0][1], folds[1][1]])), np.arange(100))


def test_every_positive_is_one_local_model_with_its_nearest_validation_points():
    X, y = data(1)
    folds = tuning_folds(y, 2, random_state=1)
    jobs = local_tasks(X, y, folds)
    assert [j[0] for j in jobs] == list(np.flatnonzero(y))
    for k, (tr, va) in enumerate(folds):
        mine = [j for j in jobs if j[1] == k]
        assert sorted(j[0] for j in mine) == sorted(tr[y[tr]])
        assert np.array_equal(np.sort(np.concatenate([j[3] for j in mine])), np.sort(va))  # a partition of V_k
        for row, _, neg, val in mine:
            assert np.array_equal(neg, tr[~y[tr]])
            if val.size:
                near, _ = nearest_centre(X[tr[y[tr]]], X[val])
                assert np.all(tr[y[tr]][near] == row)


def test_criterion_and_choice():
    X, y = data(2)
    c, neg = X[0], X[~y][:60]
    grid = dict(mu_grid=(0.75, 2.0), lam_grid=(1e-3, 1.0))
    both = tune_centre(c, neg, np.vstack([X[1:4], X[~y][60:70]]), np.r_[np.ones(3, bool), np.zeros(10, bool)], **grid)
    assert both.criterion == "f-measure"
    f = _f_measure(both.tp, both.fp, both.fn)
    best = [i for i in range(4) if f[i] == f.max()]
    assert (both.mu, both.lam) in [both.pairs[i] for i in best] and both.score == pytest.approx(f.max())
    only_neg = tune_centre(c, neg, X[~y][60:70], np.zeros(10, bool), **grid)
    assert only_neg.criterion == "fp-rate" and only_neg.score == min(only_neg.fp) / 10
    empty = tune_centre(c, neg, X[:0], np.zeros(0, bool), **grid)
    assert empty.criterion == "none" and (empty.mu, empty.lam) == (0.75, 1e-3) and empty.n_solves == 0


def test_preference_orders():
    pairs = grid_path((0.75, 10.0), (1e-6, 1.0))
    grid_rank, simple_rank = _preference(pairs, "grid"), _preference(pairs, "simple")
    assert pairs[int(np.argmin(grid_rank))] == (0.75, 1e-6)
    assert pairs[int(np.argmin(simple_rank))] == (10.0, 1.0)


def test_tune_local_is_seeded_and_checks_its_input():
    X, y = data(3)
    a = tune_local(X, y, mu_grid=(0.8, 2.0), lam_grid=(1e-2, 1.0), random_state=4)
    b = tune_local(X, y, mu_grid=(0.8, 2.0), lam_grid=(1e-2, 1.0), random_state=4)
    assert [(t.mu, t.lam) for t in a] == [(t.mu, t.lam) for t in b] and len(a) == 10
    assert all(t.max_rel_gap <= 1e-9 for t in a)
    with pytest.raises(InputError, match="at least 2 examples"):
        tune_local(X[9:], y[9:])
    with pytest.raises(InputError, match="lam_grid"):
        tune_local(X, y, lam_grid=(0.0, 1.0))
    with pytest.raises(InputError, match="cv"):
        tune_local(X, y, cv=1)
    with pytest.raises(InputError, match="prefer"):
        tune_local(X, y, prefer="best")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(1, 5), st.integers(1, 400))
def test_mth_smallest_is_partition(seed, m, n):
    """The rank threshold's m-th smallest entry a row equals numpy's partition, ties and all."""
    from certiprog.formulations.me2_paper.tuning import _mth_smallest

    rng = np.random.default_rng(seed)
    r = rng.random((7, n)) * 10
    r[:, ::3] = np.round(r[:, ::3])  # ties
    if n >= m:
        assert np.array_equal(_mth_smallest(r, m), np.partition(r, m - 1, axis=1)[:, m - 1])
