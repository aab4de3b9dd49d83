"""Loaders of certiprog.datasets: the paper-004 data sets (shapes, labels, missing values), DATA_ROOT, errors."""
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog import datasets as D
from certiprog.errors import InputError

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ["CERTIPROG_DATA"]) if os.environ.get("CERTIPROG_DATA") else REPO / ".." / "shared" / "data"

# name -> (rows, features) of what our loaders return (differences from the paper's Table 1 are in DATASETS_004)
SHAPES = {
    "sonar": (208, 60), "ionosphere": (351, 33), "vote": (435, 16), "breast": (683, 9), "diabetes": (768, 8),
    "heart": (270, 13), "german": (1000, 61), "splice": (3175, 60), "twonorm": (7400, 20), "ringnorm": (7400, 20),
    "adult": (48842, 108),
}
SAME_AS_PAPER = {"sonar", "ionosphere", "vote", "diabetes", "german", "splice", "twonorm", "ringnorm", "adult"}


def need(relative: str) -> Path:
    path = DATA / relative
    if not path.is_file():
        pytest.skip(f"{path} absent: the shared data folder (or $CERTIPROG_DATA) is needed for this test")
    return path


def test_registry_covers_every_loader_and_no_missing_set():
    assert set(SHAPES) == set(D.DATASETS_004)
    assert not set(D.MISSING_004) & set(D.DATASETS_004)
    assert {"bci", "digit1", "toy", "australian"} == set(D.MISSING_004)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_loader_shape_labels_and_class_balance(name):
    info = D.DATASETS_004[name]
    need(info.file)
    X, y = D.load_dataset(name)
    assert X.shape == SHAPES[name] and X.dtype == np.float64 and y.shape == (X.shape[0],)
    assert np.all(np.isfinite(X)), "loaders return no NaN by default"
    assert set(np.unique(y)) == {-1.0, 1.0}
    pct = 100 * np.mean(y > 0)
    if name in SAME_AS_PAPER:  # the same data as the paper: class 1 must be the paper's class 1 (Table 1)
        assert pct == pytest.approx(info.paper_class1_percent, abs=0.01)
    assert np.all(X.std(axis=0) > 0) or name in ("adult", "german")  # no constant column to standardise


def test_data_root_env_var_and_default(monkeypatch, tmp_path):
    monkeypatch.delenv(D.DATA_ENV, raising=False)
    assert D.data_root().resolve() == (REPO / ".." / "shared" / "data").resolve()
    monkeypatch.setenv(D.DATA_ENV, str(tmp_path))
    assert D.data_root() == tmp_path and D.DATA_ROOT == tmp_path


def test_missing_file_names_the_path(monkeypatch, tmp_path):
    monkeypatch.setenv(D.DATA_ENV, str(tmp_path))
    with pytest.raises(InputError, match="sonar_mlbench.csv.*CERTIPROG_DATA"):
        D.load_sonar()
    with pytest.raises(InputError, match=str(tmp_path)):
        D.load_dataset("twonorm")


def test_unknown_and_unavailable_names():
    with pytest.raises(InputError, match="unknown data set 'iris'"):
        D.load_dataset("iris")
    with pytest.raises(InputError, match="not in the shared data"):
        D.load_dataset("BCI")


def test_vote_missing_policies():
    need("uci/housevotes84_mlbench.csv")
    Xn, yn = D.load_vote(missing="nan")
    assert np.isnan(Xn).sum() == 392 and set(np.unique(Xn[~np.isnan(Xn)])) == {0.0, 1.0}
    Xm, ym = D.load_vote(missing="mean")
    col_means = np.nanmean(Xn, axis=0)
    rows, cols = np.nonzero(np.isnan(Xn))
    np.testing.assert_allclose(Xm[rows, cols], col_means[cols])
    np.testing.assert_array_equal(Xm[~np.isnan(Xn)], Xn[~np.isnan(Xn)])
    Xd, yd = D.load_vote(missing="drop")
    assert len(Xd) == int((~np.isnan(Xn).any(axis=1)).sum()) and not np.isnan(Xd).any()
    with pytest.raises(InputError, match="missing must be one of"):
        D.load_vote(missing="zero")


def test_breast_matches_keel_complete_cases():
    """Two independent sources: mlbench's 699 rows minus the 16 incomplete ones == KEEL's wisconsin.dat."""
    need("uci/breastcancer_mlbench.csv")
    keel = np.loadtxt(need("keel/wisconsin.dat"), delimiter=",")
    Xn, _ = D.load_breast(missing="nan")
    assert Xn.shape == (699, 9) and np.isnan(Xn).sum() == 16
    X, y = D.load_breast()
    assert sorted(map(tuple, X)) == sorted(map(tuple, keel[:, :-1]))
    assert np.sum(y > 0) == np.sum(keel[:, -1] == 2)  # benign = 2 in KEEL


def test_diabetes_is_the_embedded_pima_with_the_paper_sign():
    need("keel/pima.dat")
    X, y = D.load_diabetes()
    Xp, yp = D.load_pima()
    np.testing.assert_array_equal(X, Xp)
    np.testing.assert_array_equal(y, -yp)


def test_ionosphere_matches_the_weka_arff():
    need("uci/ionosphere_mlbench.csv")
    text = need("uci/ionosphere.arff").read_text().splitlines()
    rows = [r.split(",") for r in text[text.index(next(t for t in text if t.lower().startswith("@data"))) + 1:]
            if r.strip() and not r.startswith("%")]
    arff = np.array([r[:-1] for r in rows], float)
    X, y = D.load_ionosphere()
    np.testing.assert_allclose(X, np.delete(arff, 1, axis=1), atol=1e-5)
    assert np.sum(y > 0) == sum(r[-1].strip() == "g" for r in rows)


def test_one_hot_blocks():
    """Every categorical attribute becomes indicator columns with exactly one 1 per row."""
    need("keel/german.dat")
    X, _ = D.load_german()
    binary = np.all(np.isin(X, (0.0, 1.0)), axis=0)  # the 7 numeric attributes are never 0/1-valued
    assert binary.sum() == 54 and np.all(X[:, binary].sum(axis=1) == 13)
    need("uci/adult.csv")
    Xa, ya = D.load_adult()
    binary = np.all(np.isin(Xa, (0.0, 1.0)), axis=0)
    assert binary.sum() == 102 and np.all(Xa[:, binary].sum(axis=1) == 8)
    assert np.sum(ya > 0) == 11687  # income > 50K in the 48842 rows


def test_splice_encodings():
    need("keel/splice.dat")
    Xo, yo = D.load_splice()
    Xh, yh = D.load_splice(encoding="onehot")
    assert set(np.unique(Xo)) == {0.0, 1.0, 2.0, 3.0}
    np.testing.assert_array_equal(yo, yh)
    assert Xh.shape == (3175, 240) and np.all(Xh.sum(axis=1) == 60)
    np.testing.assert_array_equal(Xh.reshape(-1, 60, 4).argmax(axis=2), Xo)
    with pytest.raises(InputError, match="encoding"):
        D.load_splice(encoding="binary")


def test_bad_file_content_is_an_input_error(tmp_path):
    (tmp_path / "uci").mkdir()
    (tmp_path / "uci" / "housevotes84_mlbench.csv").write_text("Class,V1\nrepublican,maybe\ndemocrat,y\n")
    with pytest.raises(InputError, match="unexpected vote value"):
        D.load_vote(root=tmp_path)
    (tmp_path / "uci" / "sonar_mlbench.csv").write_text("V1,Class\n0.1,M\n0.2,M\n")
    with pytest.raises(InputError, match="two classes"):
        D.load_sonar(root=tmp_path)


def test_standardize_fill_missing_rule():
    X = np.array([[1.0, 2.0], [np.nan, 4.0], [3.0, np.nan], [5.0, 8.0]])
    Z = D.standardize_fill_missing(X)
    assert Z[1, 0] == 0.0 and Z[2, 1] == 0.0 and not np.isnan(Z).any()
    obs = np.array([1.0, 3.0, 5.0])
    assert Z[0, 0] == pytest.approx((1.0 - obs.mean()) / obs.std())
    clean = np.random.default_rng(0).normal(size=(20, 3))
    np.testing.assert_allclose(D.standardize_fill_missing(clean), D.standardize(clean))
    with pytest.raises(InputError, match="no observed value"):
        D.standardize_fill_missing(np.array([[1.0, np.nan], [2.0, np.nan]]))


@settings(derandomize=True, deadline=None, max_examples=25)
@given(n=st.integers(5, 30), d=st.integers(1, 5), frac=st.floats(0.0, 0.4), seed=st.integers(0, 10_000))
def test_standardize_fill_missing_property(n, d, frac, seed):
    """With ref = X: observed entries get mean 0 / std 1 per column (non-constant), missing ones become 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, d) + rng.normal(size=d)
    mask = rng.random((n, d)) < frac
    mask[0] = False  # every column keeps an observed value
    X[mask] = np.nan
    Z = D.standardize_fill_missing(X)
    assert not np.isnan(Z).any() and np.all(Z[mask] == 0)
    for j in range(d):
        obs = Z[~mask[:, j], j]
        assert abs(obs.mean()) < 1e-9
        if np.nanstd(X[:, j]) > 0:
            assert obs.std() == pytest.approx(1.0)
