"""The Letter loader (paper 000, Sec. 5.1.2): both shared files, the per-letter split, malformed files."""
import numpy as np
import pytest

from certiprog.datasets import loaders
from certiprog.datasets.letter import LETTER_FILES, LETTERS, letter_split, load_letter, one_vs_rest
from certiprog.errors import InputError

HAVE = all((loaders.data_root() / f).is_file() for f in LETTER_FILES.values())
needs_data = pytest.mark.skipif(not HAVE, reason="the shared Letter files (shared/data/keel, uci) are absent")


@needs_data
def test_both_files_hold_the_same_rows():
    Xk, yk = load_letter(source="keel")
    Xu, yu = load_letter(source="uci")
    assert Xk.shape == Xu.shape == (20000, 16) and set(yk) == set(LETTERS)
    assert (Xu[0] == [2, 8, 3, 5, 1, 8, 13, 0, 6, 6, 10, 8, 0, 8, 0, 8]).all() and yu[0] == "T"  # UCI's first row
    key = lambda X, y: sorted(map(tuple, np.c_[np.searchsorted(LETTERS, y), X].astype(int).tolist()))  # noqa: E731
    assert key(Xk, yk) == key(Xu, yu)
    assert Xk.min() == 0 and Xk.max() == 15


def test_split_is_per_letter_and_seeded():
    y = np.repeat(np.array(list("ABC")), [400, 380, 500])
    tr, va, te = letter_split(y, n_train=100, n_val=250, seed=3)
    assert all(np.sum(y[tr] == c) == 100 and np.sum(y[va] == c) == 250 for c in "ABC")
    assert len(te) == 1280 - 3 * 350 and len(np.intersect1d(tr, va)) == 0 and len(np.intersect1d(va, te)) == 0
    assert len(np.union1d(np.union1d(tr, va), te)) == len(y)
    again = letter_split(y, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip((tr, va, te), again))
    assert not np.array_equal(letter_split(y, seed=4)[0], tr)
    assert set(one_vs_rest(y, "B")) == {1, -1} and np.sum(one_vs_rest(y, "B") == 1) == 380


def test_bad_arguments_and_files(tmp_path):
    with pytest.raises(InputError, match="more than"):
        letter_split(np.repeat(["A", "B"], [300, 400]))
    with pytest.raises(InputError, match="n_train"):
        letter_split(np.repeat(["A"], 400), n_train=0)
    with pytest.raises(InputError, match="does not occur"):
        one_vs_rest(np.array(["A", "B"]), "Q")
    with pytest.raises(InputError, match="source"):
        load_letter(source="arff")
    (tmp_path / "keel").mkdir()
    (tmp_path / "keel" / "letter.dat").write_text("1,2,3,A\n")
    with pytest.raises(InputError, match="line 1"):
        load_letter(root=tmp_path)
    (tmp_path / "keel" / "letter.dat").write_text(",".join(["1"] * 16) + ",A\n")
    with pytest.raises(InputError, match="20000"):
        load_letter(root=tmp_path)
    (tmp_path / "keel" / "letter.dat").write_text(",".join(["x"] * 16) + ",A\n")
    with pytest.raises(InputError, match="not an integer"):
        load_letter(root=tmp_path)
    with pytest.raises(InputError, match="not found"):
        load_letter(root=tmp_path, source="uci")
