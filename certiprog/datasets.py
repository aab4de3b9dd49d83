"""Loaders: the embedded Pima data set, and KEEL / mlbench files from a data folder."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np

from .errors import InputError


def _split_label(rows: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    raw = [r[-1].strip() for r in rows]
    classes = sorted(set(raw))
    if len(classes) != 2:
        raise InputError(f"expected two classes, found {classes[:5]}")
    pos = next((c for c in classes if c.lower() in ("positive", "tested_positive", "1", "2")), classes[-1])
    y = np.where(np.array(raw) == pos, 1.0, -1.0)
    return X, y


def load_keel(path) -> tuple[np.ndarray, np.ndarray]:
    """A headerless KEEL .dat file (comma-separated, last column the class) as (X, y in {+1,-1})."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"data file {path} not found")
    rows = [line.split(",") for line in path.read_text().splitlines() if line.strip() and not line.startswith("@")]
    return _split_label(rows)


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
