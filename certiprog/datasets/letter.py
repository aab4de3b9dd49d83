"""UCI Letter recognition (paper 000, Sec. 5.1.2): 20,000 rows, 16 integer features (0-15), 26 classes 'A'..'Z'.

Files (``shared/data`` or ``$CERTIPROG_DATA``, found by `loaders.data_path`): ``keel/letter.dat`` (KEEL, label last,
rows shuffled; the default) or ``uci/letter-recognition.csv`` (mrcpy's copy of the UCI file: a "rows,features" line
and an empty header line, then the original order with the label first). Both hold the same 20,000 rows. Every
malformed row (wrong field count, a non-integer feature, a label outside A-Z) raises `InputError` naming the file
and the line; the counts are checked against the documented 20,000 x 16.

`letter_split` is the paper's protocol: per letter, 100 training, 250 validation and the rest test rows (a seeded
permutation within each letter), so problem "letter vs rest" has ~25 times more negatives than positives in every
part; `standardised_split` applies it and z-scores every part by the training part's mean and sd (the one
definition the paper's experiment and its benchmark use); `one_vs_rest` gives its +1 / -1 labels.
"""
from __future__ import annotations

import csv
from collections.abc import Sequence

import numpy as np

from ..errors import InputError
from .loaders import data_path

__all__ = ["LETTERS", "LETTER_FILES", "letter_split", "load_letter", "one_vs_rest", "standardised_split"]

LETTERS = tuple(chr(ord("A") + i) for i in range(26))
LETTER_FILES = {"keel": "keel/letter.dat", "uci": "uci/letter-recognition.csv"}
N_ROWS, N_FEATURES = 20000, 16


def load_letter(root=None, source: str = "keel") -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)``: X float64 (20000, 16), y the letters (str, dtype '<U1')."""
    if source not in LETTER_FILES:
        raise InputError(f"source must be one of {sorted(LETTER_FILES)}; got {source!r}")
    path = data_path(LETTER_FILES[source], root)
    feats, labels = [], []
    with open(path, newline="") as fh:
        for line_no, row in enumerate(csv.reader(fh), start=1):
            row = [v.strip() for v in row]
            if not row or not any(row) or row[0].startswith("@"):
                continue
            if source == "uci":
                if line_no == 1:  # "rows,features"
                    continue
                label, values = row[0], row[1:N_FEATURES + 1]
            else:
                label, values = row[-1], row[:-1]
            if len(values) != N_FEATURES or label not in LETTERS:
                raise InputError(f"{path}, line {line_no}: expected {N_FEATURES} features and a letter A-Z; got "
                                 f"{len(values)} field(s) and label {label!r}")
            try:
                feats.append([int(v) for v in values])
            except ValueError:
                raise InputError(f"{path}, line {line_no}: a feature is not an integer: {values}") from None
            labels.append(label)
    X = np.asarray(feats, dtype=float)
    if X.shape != (N_ROWS, N_FEATURES):
        raise InputError(f"{path}: {X.shape[0]} rows x {X.shape[1] if X.ndim == 2 else 0} features; the Letter data "
                         f"set has {N_ROWS} x {N_FEATURES} (truncated or another file?)")
    return X, np.asarray(labels, dtype="<U1")


def letter_split(y, n_train: int = 100, n_val: int = 250,
                 seed: int | Sequence[int] = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row indices (train, validation, test): per class, a seeded permutation's first ``n_train`` rows, the next
    ``n_val``, and the rest (paper: 100 / 250 / ~420 per letter). Each class needs more than n_train + n_val rows.
    ``seed``: what `numpy.random.default_rng` takes (an int or a sequence of ints)."""
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0:
        raise InputError("y must be a non-empty 1-D array of class labels")
    for name, v in (("n_train", n_train), ("n_val", n_val)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{name} must be a positive integer; got {v!r}")
    rng = np.random.default_rng(seed)
    parts: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]] = ([], [], [])
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        if rows.size <= n_train + n_val:
            raise InputError(f"class {c!r} has {rows.size} rows; the split needs more than n_train + n_val = "
                             f"{n_train + n_val}")
        rows = rng.permutation(rows)
        parts[0].append(rows[:n_train])
        parts[1].append(rows[n_train:n_train + n_val])
        parts[2].append(rows[n_train + n_val:])
    train, val, test = (np.sort(np.concatenate(p)) for p in parts)
    return train, val, test


def standardised_split(X, y, n_train: int = 100, n_val: int = 250, seed: int | Sequence[int] = 0) -> dict:
    """`letter_split` of ``(X, y)`` with the features z-scored by the training part's mean and sd (a constant
    training feature keeps sd 1): ``{"train", "val", "test"}`` each ``(X_part, y_part)``."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise InputError(f"X must be 2-D with one row per label; got X {X.shape}, y {y.shape}")
    if not np.all(np.isfinite(X)):
        raise InputError("X holds NaN or infinite values")
    idx = dict(zip(("train", "val", "test"), letter_split(y, n_train, n_val, seed=seed)))
    mean, sd = X[idx["train"]].mean(axis=0), X[idx["train"]].std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return {k: ((X[v] - mean) / sd, y[v]) for k, v in idx.items()}


def one_vs_rest(y, letter: str) -> np.ndarray:
    """+1 for ``letter``, -1 for every other class."""
    y = np.asarray(y)
    if letter not in set(y.tolist()):
        raise InputError(f"letter {letter!r} does not occur in y")
    return np.where(y == letter, 1, -1)
