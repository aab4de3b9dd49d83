"""Loaders: the embedded Pima data set, KEEL / mlbench files, and the real data sets of paper 004 (Table 1).

Every loader returns ``(X, y)``: ``X`` a float64 array (n x d, ready for `standardize`) and ``y`` in {+1, -1}.
For the 004 sets ``y = +1`` is the paper's "class 1" of Table 1 (e.g. Diabetes: tested_negative, 65.1 %),
so the class-1 fractions can be compared with the paper; `DATASETS_004` records the label used.

Where the files live: `data_root()` = the folder named by the environment variable ``CERTIPROG_DATA``, else
``<repository>/../shared/data`` (``certiprog.datasets.DATA_ROOT`` gives the same, read at access time).
A missing file raises `InputError` naming the full path and the variable to set.

Missing values (Vote, Breast; Adult's "?" is already a category of its own in the source file) follow
``missing=``: ``"nan"`` keeps them as NaN (the experiment then applies the paper's rule, Sec. 6: standardise with
the observed values and set the missing entries to 0 afterwards, see `standardize_fill_missing`), ``"mean"``
replaces them by the column mean of the observed values (the same rule applied to the whole set at once), and
``"drop"`` removes rows with a missing entry (Breast: 699 -> 683 rows, the paper's ~682).
"""
from __future__ import annotations

import csv
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from certiprog.errors import InputError

DATA_ENV = "CERTIPROG_DATA"
MISSING_POLICIES = ("nan", "mean", "drop")


def _split_label(rows: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    raw = [r[-1].strip() for r in rows]
    classes = sorted(set(raw))
    if len(classes) != 2:
        raise InputError(f"expected two classes, found {classes[:5]}")
    pos = next((c for c in classes if c.lower() in ("positive", "tested_positive", "1", "2")), classes[-1])
    y = np.where(np.array(raw) == pos, 1.0, -1.0)
    return X, y


def load_pima() -> tuple[np.ndarray, np.ndarray]:
    """The embedded Pima diabetes data: X (768 x 8), y = +1 for tested_positive."""
    text = resources.files("certiprog").joinpath("data/pima.dat").read_text()
    rows = [line.split(",") for line in text.splitlines() if line.strip()]
    return _split_label(rows)


def standardize(X: np.ndarray, ref: np.ndarray | None = None) -> np.ndarray:
    """Zero mean, unit variance per column (statistics from ``ref``, default X); constant columns kept at 0."""
    ref = X if ref is None else ref
    mu, sd = ref.mean(axis=0), ref.std(axis=0)
    return (X - mu) / np.where(sd > 0, sd, 1.0)


def standardize_fill_missing(X: np.ndarray, ref: np.ndarray | None = None) -> np.ndarray:
    """The paper-004 rule (Sec. 6): standardise with the mean/std of the OBSERVED values of ``ref`` (default X),
    then set the missing (NaN) entries of ``X`` to 0, i.e. to the reference mean. Constant columns become 0."""
    X = np.asarray(X, float)
    ref = X if ref is None else np.asarray(ref, float)
    observed = ~np.isnan(ref)
    if not observed.any(axis=0).all():
        bad = np.flatnonzero(~observed.any(axis=0)).tolist()
        raise InputError(f"columns {bad} have no observed value in the reference data; drop them first")
    mu, sd = np.nanmean(ref, axis=0), np.nanstd(ref, axis=0)
    Z = (X - mu) / np.where(sd > 0, sd, 1.0)
    return np.where(np.isnan(Z), 0.0, Z)


# ----------------------------------------------------------------------------------------------------------------
# Where the data live
# ----------------------------------------------------------------------------------------------------------------
def data_root() -> Path:
    """The data folder: ``$CERTIPROG_DATA`` if set, else ``<repository>/../shared/data``."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def __getattr__(name):  # DATA_ROOT follows the environment variable at access time
    if name == "DATA_ROOT":
        return data_root()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def data_path(relative: str, root=None) -> Path:
    """``root / relative`` (root default `data_root()`); InputError naming the path when the file is absent."""
    base = Path(root).expanduser() if root is not None else data_root()
    path = (base / relative).resolve()
    if not path.is_file():
        raise InputError(
            f"data file {path} not found; put the shared data folder there or set {DATA_ENV} to the folder "
            f"that contains {relative!r} (see shared/data/MANIFEST.md)"
        )
    return path


def _read_rows(path: Path, skip: int = 0) -> list[list[str]]:
    with open(path, newline="") as fh:
        rows = [[v.strip() for v in r] for r in csv.reader(fh)]
    return [r for r in rows[skip:] if r and any(v for v in r)]


def _labels(raw, positive: str | tuple) -> np.ndarray:
    """+1 where the label is in ``positive`` (the paper's class 1), -1 elsewhere; exactly two classes required."""
    raw = np.asarray(raw)
    classes = sorted(set(raw.tolist()))
    positive = (positive,) if isinstance(positive, str) else tuple(positive)
    if len(classes) != 2 or not set(positive) & set(classes):
        raise InputError(f"expected two classes including {positive}, found {classes[:6]}")
    return np.where(np.isin(raw, positive), 1.0, -1.0)


def _one_hot(column: np.ndarray) -> np.ndarray:
    """Indicator columns, one per distinct value (sorted)."""
    levels, codes = np.unique(column, return_inverse=True)
    return (codes[:, None] == np.arange(levels.size)[None, :]).astype(float)


def _apply_missing(X: np.ndarray, y: np.ndarray, missing: str) -> tuple[np.ndarray, np.ndarray]:
    if missing not in MISSING_POLICIES:
        raise InputError(f"missing must be one of {MISSING_POLICIES}, got {missing!r}")
    nan = np.isnan(X)
    if missing == "drop":
        keep = ~nan.any(axis=1)
        return X[keep], y[keep]
    if missing == "mean":
        X = np.where(nan, np.nanmean(X, axis=0), X)
    return X, y


# ----------------------------------------------------------------------------------------------------------------
# Paper 004 data sets (Table 1)
# ----------------------------------------------------------------------------------------------------------------
def load_sonar(root=None) -> tuple[np.ndarray, np.ndarray]:
    """Sonar (mlbench): 208 x 60, y = +1 for M (mine, 53.4 %)."""
    rows = _read_rows(data_path("uci/sonar_mlbench.csv", root), skip=1)
    return np.array([r[:-1] for r in rows], float), _labels([r[-1] for r in rows], "M")


def load_ionosphere(root=None) -> tuple[np.ndarray, np.ndarray]:
    """Ionosphere (mlbench): 351 x 33 (V2, constant 0, dropped; the paper lists 32), y = +1 for good (64.1 %)."""
    rows = _read_rows(data_path("uci/ionosphere_mlbench.csv", root), skip=1)
    X = np.array([r[:-1] for r in rows], float)
    return np.delete(X, 1, axis=1), _labels([r[-1] for r in rows], "good")


def load_vote(root=None, missing: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """House votes 84 (mlbench): 435 x 16 with y/n -> 1/0 (392 missing votes, see ``missing``),
    y = +1 for republican (38.6 %)."""
    rows = _read_rows(data_path("uci/housevotes84_mlbench.csv", root), skip=1)
    code = {"y": 1.0, "n": 0.0, "": np.nan, "NA": np.nan}
    try:
        X = np.array([[code[v] for v in r[1:]] for r in rows], float)
    except KeyError as exc:
        raise InputError(f"unexpected vote value {exc} in housevotes84_mlbench.csv (expected y, n or empty)")
    return _apply_missing(X, _labels([r[0] for r in rows], "republican"), missing)


def load_breast(root=None, missing: str = "drop") -> tuple[np.ndarray, np.ndarray]:
    """Wisconsin breast cancer (mlbench): 9 features (Id dropped), y = +1 for benign. Bare.nuclei has 16 missing
    values; the default ``missing="drop"`` keeps the 683 complete rows (65.0 % benign; the paper: 682, 64.96 %)."""
    rows = _read_rows(data_path("uci/breastcancer_mlbench.csv", root), skip=1)
    X = np.array([[np.nan if v in ("", "NA") else float(v) for v in r[1:-1]] for r in rows], float)
    return _apply_missing(X, _labels([r[-1] for r in rows], "benign"), missing)


def load_diabetes(root=None) -> tuple[np.ndarray, np.ndarray]:
    """Pima diabetes (KEEL pima.dat): 768 x 8, y = +1 for tested_negative (65.1 %, the paper's class 1;
    note `load_pima` uses the opposite sign)."""
    rows = _read_rows(data_path("keel/pima.dat", root))
    return np.array([r[:-1] for r in rows], float), _labels([r[-1] for r in rows], "tested_negative")


def load_heart(root=None) -> tuple[np.ndarray, np.ndarray]:
    """Statlog heart (KEEL heart.dat): 270 x 13, y = +1 for absence of disease (label 1, 55.6 %). The paper used
    the 920-row UCI heart-disease set (44.7 % absence), which is not in the shared data."""
    rows = _read_rows(data_path("keel/heart.dat", root))
    return np.array([r[:-1] for r in rows], float), _labels([r[-1] for r in rows], "1")


def load_german(root=None) -> tuple[np.ndarray, np.ndarray]:
    """German credit (KEEL german.dat): 7 numeric attributes kept, 13 categorical ones (A11, ...) one-hot encoded
    -> 61 features (the paper used the 24-column numeric version); y = +1 for good credit (label 1, 70 %)."""
    rows = _read_rows(data_path("keel/german.dat", root))
    table = np.array([r[:-1] for r in rows])
    blocks = []
    for j in range(table.shape[1]):
        col = table[:, j]
        numeric = not np.char.startswith(col, "A").any()
        blocks.append(col.astype(float)[:, None] if numeric else _one_hot(col))
    return np.hstack(blocks), _labels([r[-1] for r in rows], "1")


_NUCLEOTIDES = "AGCT"  # purines then pyrimidines


def load_splice(root=None, encoding: str = "ordinal") -> tuple[np.ndarray, np.ndarray]:
    """Splice junctions (KEEL splice.dat, 3190 rows): the 15 rows holding ambiguous bases (N, D, R, S) are dropped
    (3175 rows, as in the paper); y = +1 for N, neither boundary (51.9 %), -1 for EI or IE.

    ``encoding="ordinal"`` gives the paper's 60 features, A, G, C, T -> 0, 1, 2, 3 (the paper does not say its
    coding; this order gives LDA 84 % in 5-fold CV, the paper's level, where A, C, G, T gives 80 %);
    ``"onehot"`` gives 240 features (LDA: 94 %)."""
    if encoding not in ("ordinal", "onehot"):
        raise InputError(f"encoding must be 'ordinal' or 'onehot', got {encoding!r}")
    rows = _read_rows(data_path("keel/splice.dat", root))
    seq = np.array([r[:-1] for r in rows])
    labels = np.array([r[-1] for r in rows])
    keep = np.isin(seq, list(_NUCLEOTIDES)).all(axis=1)
    seq, labels = seq[keep], labels[keep]
    codes = np.select([seq == base for base in _NUCLEOTIDES], np.arange(4.0))
    if encoding == "onehot":
        codes = (codes[:, :, None] == np.arange(4)[None, None, :]).reshape(len(codes), -1).astype(float)
    return codes, _labels(np.where(labels == "N", "N", "EI/IE"), "N")


def load_twonorm(root=None) -> tuple[np.ndarray, np.ndarray]:
    """Twonorm (KEEL twonorm.dat): 7400 x 20, y = +1 for label 0 (50.04 %, the paper's class 1)."""
    data = np.loadtxt(data_path("keel/twonorm.dat", root), delimiter=",")
    return data[:, :-1], _labels(data[:, -1].astype(int).astype(str), "0")


def load_ringnorm(root=None) -> tuple[np.ndarray, np.ndarray]:
    """Ringnorm (KEEL ring.dat; values integer-scaled, irrelevant after standardising): 7400 x 20,
    y = +1 for label 0 (49.51 %, the paper's class 1)."""
    data = np.loadtxt(data_path("keel/ring.dat", root), delimiter=",")
    return data[:, :-1], _labels(data[:, -1].astype(int).astype(str), "0")


# workclass, education, marital status, occupation, relationship, race, sex, native country
_ADULT_CATEGORICAL = (1, 3, 5, 6, 7, 8, 9, 13)


def load_adult(root=None) -> tuple[np.ndarray, np.ndarray]:
    """Adult (mrcpy adult.csv, label-encoded, 48842 rows): the 6 numeric columns kept, the 8 categorical ones
    one-hot encoded ("?" is its own level in the file) -> 108 features (the paper: 123, the binarised a9a
    version); y = +1 for income > 50K (23.9 %)."""
    rows = _read_rows(data_path("uci/adult.csv", root), skip=2)  # line 1: "rows,features"; line 2: header
    data = np.array(rows, float)
    X, label = data[:, :-1], data[:, -1]
    blocks = [_one_hot(X[:, j]) if j in _ADULT_CATEGORICAL else X[:, j:j + 1] for j in range(X.shape[1])]
    return np.hstack(blocks), _labels(label.astype(int).astype(str), "1")


@dataclass(frozen=True)
class DatasetInfo:
    """A paper-004 data set: its loader, file and what Table 1 of the paper says about it."""

    name: str
    paper_name: str
    file: str
    loader: Callable[..., tuple[np.ndarray, np.ndarray]] = field(repr=False)
    class1: str
    paper_rows: int
    paper_features: int
    paper_class1_percent: float
    note: str = ""


DATASETS_004: dict[str, DatasetInfo] = {
    d.name: d for d in (
        DatasetInfo("sonar", "Sonar", "uci/sonar_mlbench.csv", load_sonar, "M", 208, 60, 53.37),
        DatasetInfo("ionosphere", "Ionosphere", "uci/ionosphere_mlbench.csv", load_ionosphere, "good", 351, 32,
                    64.10, "constant column V2 dropped: 33 features"),
        DatasetInfo("vote", "Vote", "uci/housevotes84_mlbench.csv", load_vote, "republican", 435, 16, 38.62,
                    "missing votes: standardised on observed values, then set to 0 (paper's rule)"),
        DatasetInfo("breast", "Breast", "uci/breastcancer_mlbench.csv", load_breast, "benign", 682, 10, 64.96,
                    "16 rows with a missing value dropped (683 rows, 9 features)"),
        DatasetInfo("diabetes", "Diabetes", "keel/pima.dat", load_diabetes, "tested_negative", 768, 8, 65.10),
        DatasetInfo("heart", "Heart", "keel/heart.dat", load_heart, "absence", 920, 13, 44.67,
                    "Statlog heart (270 rows), not the paper's 920-row set"),
        DatasetInfo("german", "German", "keel/german.dat", load_german, "good", 1000, 24, 70.00,
                    "categoricals one-hot: 61 features"),
        DatasetInfo("splice", "Splice", "keel/splice.dat", load_splice, "N (neither)", 3175, 60, 51.91,
                    "ambiguous-base rows dropped; bases A,G,C,T coded 0-3"),
        DatasetInfo("twonorm", "Twonorm", "keel/twonorm.dat", load_twonorm, "0", 7400, 20, 50.04),
        DatasetInfo("ringnorm", "Ringnorm", "keel/ring.dat", load_ringnorm, "0", 7400, 20, 49.51),
        DatasetInfo("adult", "Adult", "uci/adult.csv", load_adult, ">50K", 48844, 123, 23.93,
                    "categoricals one-hot: 108 features (paper: binarised a9a, 123)"),
    )
}

#: Data sets of paper 004 that no package in the shared data provides (listed as missing, never faked).
MISSING_004 = {
    "australian": "Australian (690 x 14)",
    "bci": "BCI (400 x 117)",
    "digit1": "Digit1 (1500 x 241)",
    "toy": "Toy, Lanckriet et al. 2003 (120 x 2)",
}


def load_dataset(name: str, root=None, **options) -> tuple[np.ndarray, np.ndarray]:
    """A paper-004 data set by name (see `DATASETS_004`); ``options`` go to its loader (``missing``, ``encoding``)."""
    key = str(name).lower()
    if key in MISSING_004:
        raise InputError(f"data set {name!r} ({MISSING_004[key]}) is not in the shared data folder: not available")
    if key not in DATASETS_004:
        raise InputError(f"unknown data set {name!r}; choose from {sorted(DATASETS_004)}")
    X, y = DATASETS_004[key].loader(root, **options)
    return np.ascontiguousarray(X, dtype=float), y
