"""KEEL imbalanced data sets (``.dat``), with categorical attributes one-hot encoded: the data sets of paper 002's
Table 1 (ME^2).

`read_keel` reads a KEEL file: comma-separated rows, the class last, optional ``@relation/@attribute/@data`` header
lines (the files in ``shared/data/keel`` have none). A column holding a non-numeric value is categorical and is
replaced "by as many binary attributes as the number of modalities of the original feature" (paper 002, Sec. 5.1),
one indicator per level in sorted order (Abalone's sex: F, I, M -> 3 columns; the paper lists M, I, F, an order that
changes no distance). Labels: ``y = +1`` for the class ``positive`` (the minority), ``-1`` for ``negative``.

`DATASETS_002` describes Table 1's sets and our file for each; `load_me2_dataset(name)` loads one. The paper's 4,177-row
"Abalone" (I.R. 8.32, i.e. 448 positives) is not among the shared files and cannot be built from them faithfully:
the KEEL Abalone files hold only a binary class (not the ring counts the UCI file has) and 4,174 of the 4,177 rows;
the paper does not say which rings it took as positive. It is listed in `MISSING_002`, never faked.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from certiprog.errors import InputError

from .loaders import data_path

__all__ = ["DATASETS_002", "MISSING_002", "Keel002Info", "available_me2_datasets", "load_me2_dataset", "read_keel"]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_keel(path, *, positive: str = "positive", categorical: str = "onehot") -> tuple[np.ndarray, np.ndarray, list]:
    """A KEEL ``.dat`` file as ``(X, y, columns)``: X float (n x features), y in {+1 (``positive``), -1}, and the
    name of every output column (``"x3"`` for numeric column 3, ``"x0=F"`` for a level of categorical column 0).

    ``categorical="onehot"`` (default, the paper's encoding) or ``"error"`` (refuse non-numeric columns).
    InputError for a missing file, ragged rows, a class other than two, or an empty file."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"KEEL file {path} not found")
    if categorical not in ("onehot", "error"):
        raise InputError(f"categorical must be 'onehot' or 'error'; got {categorical!r}")
    rows = []
    for k, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith(("@", "%")):
            continue
        rows.append([v.strip() for v in line.split(",")])
    if not rows:
        raise InputError(f"{path}: no data rows")
    width = len(rows[0])
    ragged = [i for i, r in enumerate(rows) if len(r) != width]
    if ragged or width < 2:
        raise InputError(f"{path}: every row must have the same number (>= 2) of comma-separated fields; row "
                         f"{ragged[0] if ragged else 0} differs")
    table = np.array(rows, dtype=object)
    labels = np.array([str(v) for v in table[:, -1]])
    classes = sorted(set(labels.tolist()))
    if len(classes) != 2 or positive not in classes:
        raise InputError(f"{path}: expected two classes including {positive!r}; found {classes[:6]}")
    blocks, names = [], []
    for j in range(width - 1):
        col = np.array([str(v) for v in table[:, j]])
        numeric = np.array([_is_number(v) for v in col])
        if numeric.all():
            blocks.append(col.astype(float)[:, None])
            names.append(f"x{j}")
            continue
        if categorical == "error":
            raise InputError(f"{path}: column {j} is categorical ({col[~numeric][0]!r}); use categorical='onehot'")
        levels = np.unique(col)
        blocks.append((col[:, None] == levels[None, :]).astype(float))
        names += [f"x{j}={lv}" for lv in levels]
    X = np.hstack(blocks)
    if not np.all(np.isfinite(X)):
        raise InputError(f"{path}: non-finite values")
    return X, np.where(labels == positive, 1.0, -1.0), names


@dataclass(frozen=True)
class Keel002Info:
    """A data set of paper 002's Table 1: our file and what the table says (rows, features before one-hot, I.R.)."""

    name: str
    paper_name: str
    file: str
    paper_rows: int
    paper_features: int
    paper_ir: float
    note: str = field(default="")


DATASETS_002: dict[str, Keel002Info] = {d.name: d for d in (
    Keel002Info("yeast3", "Yeast3", "keel/yeast3.dat", 1484, 8, 8.1),
    Keel002Info("wine", "Wine", "keel/winequality-red-4.dat", 1599, 11, 29.16,
                "red wine quality 4 vs rest (53 positives)"),
    Keel002Info("abalone17", "Abalone 17", "keel/abalone-17_vs_7-8-9-10.dat", 2338, 8, 39.31,
                "sex one-hot: 10 features"),
    Keel002Info("yeast6", "Yeast6", "keel/yeast6.dat", 1484, 8, 41.4),
    Keel002Info("abalone20", "Abalone 20", "keel/abalone-20_vs_8-9-10.dat", 1916, 8, 72.69,
                "sex one-hot: 10 features"),
    Keel002Info("abalone19", "Abalone19", "keel/abalone19.dat", 4174, 8, 129.44, "sex one-hot: 10 features"),
)}

#: Table 1's sets that the shared data cannot provide (listed as missing, never faked).
MISSING_002 = {
    "abalone": "Abalone (UCI, 4177 x 8, I.R. 8.32): not in the shared data (uci/ has no abalone file, see "
               "MANIFEST.md); the KEEL Abalone files hold a binary class only (no ring counts) and 4174 rows, and the "
               "paper does not say which rings are positive, so it cannot be rebuilt",
}

#: Table 1's order (least to most imbalanced), with the missing set in its place.
TABLE1_ORDER = ("yeast3", "abalone", "wine", "abalone17", "yeast6", "abalone20", "abalone19")


def load_me2_dataset(name: str, root=None) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of a Table-1 data set of paper 002 (`DATASETS_002`; y = +1 for the minority class)."""
    key = str(name).lower()
    if key in MISSING_002:
        raise InputError(f"data set {name!r} is not available: {MISSING_002[key]}")
    if key not in DATASETS_002:
        raise InputError(f"unknown data set {name!r}; choose from {sorted(DATASETS_002)}")
    X, y, _ = read_keel(data_path(DATASETS_002[key].file, root))
    return np.ascontiguousarray(X), y


def available_me2_datasets(root=None) -> tuple:
    """The Table-1 data sets whose file is present (in Table 1's order)."""
    from .loaders import data_root

    base = Path(root) if root is not None else data_root()
    return tuple(k for k in TABLE1_ORDER if k in DATASETS_002 and (base / DATASETS_002[k].file).is_file())
