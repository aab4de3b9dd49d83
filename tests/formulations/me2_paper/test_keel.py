"""KEEL loaders of paper 002's Table 1 (certiprog/datasets/keel.py): one-hot categorical columns (Abalone's sex),
the table's sizes and imbalance ratios, the missing 'Abalone' set, bad files."""
import os
from pathlib import Path

import numpy as np
import pytest

from certiprog.datasets import DATASETS_002, MISSING_002, available_me2_datasets, load_me2_dataset, read_keel
from certiprog.errors import InputError

REPO = Path(__file__).resolve().parents[3]
DATA = Path(os.environ["CERTIPROG_DATA"]) if os.environ.get("CERTIPROG_DATA") else REPO / ".." / "shared" / "data"
need_data = pytest.mark.skipif(not (DATA / "keel" / "yeast6.dat").is_file(),
                               reason="the shared data folder (or $CERTIPROG_DATA) is needed for the KEEL files")


@need_data
@pytest.mark.parametrize("name", sorted(DATASETS_002))
def test_table1_sizes_and_imbalance(name):
    info = DATASETS_002[name]
    X, y = load_me2_dataset(name, root=DATA)
    n_pos, n_neg = int((y > 0).sum()), int((y < 0).sum())
    assert len(y) == info.paper_rows and n_neg / n_pos == pytest.approx(info.paper_ir, abs=0.01)
    extra = 2 if name.startswith("abalone") else 0  # sex: 1 column -> 3 indicators
    assert X.shape == (info.paper_rows, info.paper_features + extra) and np.all(np.isfinite(X))


@need_data
def test_abalone_sex_is_one_hot():
    X, y, names = read_keel(DATA / "keel" / "abalone19.dat")
    assert names[:4] == ["x0=F", "x0=I", "x0=M", "x1"]
    assert np.all(X[:, :3].sum(axis=1) == 1) and set(np.unique(X[:, :3])) == {0.0, 1.0}
    assert X[0, :3].tolist() == [0.0, 0.0, 1.0]  # first row: M


def test_missing_and_unknown_sets():
    assert "abalone" in MISSING_002
    with pytest.raises(InputError, match="not available"):
        load_me2_dataset("abalone")
    with pytest.raises(InputError, match="unknown data set"):
        load_me2_dataset("yeast9")


def test_available_sets_follow_table1(tmp_path):
    (tmp_path / "keel").mkdir()
    assert available_me2_datasets(tmp_path) == ()
    (tmp_path / "keel" / "yeast6.dat").write_text("0.1, 0.2, negative\n0.3, 0.4, positive\n")
    (tmp_path / "keel" / "abalone19.dat").write_text("M, 0.1, negative\nF, 0.3, positive\n")
    assert available_me2_datasets(tmp_path) == ("yeast6", "abalone19")


def test_header_lines_categorical_and_bad_files(tmp_path):
    f = tmp_path / "a.dat"
    f.write_text("@relation t\n@attribute a real\n@data\nb, 1.5, x, negative\na, 2.5, y, positive\nb, 0.5, x, negative\n")
    X, y, names = read_keel(f)
    assert names == ["x0=a", "x0=b", "x1", "x2=x", "x2=y"]
    assert X.tolist() == [[0, 1, 1.5, 1, 0], [1, 0, 2.5, 0, 1], [0, 1, 0.5, 1, 0]] and y.tolist() == [-1, 1, -1]
    with pytest.raises(InputError, match="categorical"):
        read_keel(f, categorical="error")
    (tmp_path / "r.dat").write_text("1, 2, positive\n1, negative\n")
    with pytest.raises(InputError, match="same number"):
        read_keel(tmp_path / "r.dat")
    (tmp_path / "c.dat").write_text("1, a\n2, b\n3, c\n")
    with pytest.raises(InputError, match="two classes"):
        read_keel(tmp_path / "c.dat")
    (tmp_path / "e.dat").write_text("@data\n")
    with pytest.raises(InputError, match="no data"):
        read_keel(tmp_path / "e.dat")
    with pytest.raises(InputError, match="not found"):
        read_keel(tmp_path / "none.dat")
