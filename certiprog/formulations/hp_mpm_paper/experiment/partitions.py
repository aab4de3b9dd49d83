"""The protocol of one random partition (paper Sec. 6): the stratified split, its seed, the accuracies, the choice by
validation accuracy, and bHP-MPM's training-accuracy threshold.
"""
from __future__ import annotations

import zlib

import numpy as np

from certiprog.errors import InputError

from .config import Config


def partition(y: np.ndarray, proportion: float, validation: float, seed) -> tuple:
    """Stratified random (train, validation, test) indices: round(p n), round(validation n), the rest."""
    from sklearn.model_selection import train_test_split

    n = len(y)
    n_train, n_val = int(round(proportion * n)), int(round(validation * n))
    if min(n_train, n_val, n - n_train - n_val) < 4:
        raise InputError(f"{n} rows cannot be split into {proportion} / {validation} / rest with >= 4 rows each")
    rng = np.random.default_rng(seed)
    idx = np.arange(n)
    train, rest = train_test_split(idx, train_size=n_train, stratify=y, random_state=int(rng.integers(2**31)))
    val, test = train_test_split(rest, train_size=n_val, stratify=y[rest], random_state=int(rng.integers(2**31)))
    return np.sort(train), np.sort(val), np.sort(test)


def task_seed(cfg: Config, name: str, proportion: float, k: int) -> list:
    """Seed of one partition: independent of the order and the worker the task runs in."""
    return [cfg.seed, zlib.crc32(name.encode()), int(round(proportion * 1000)), k]


def _accuracy(y_true, y_pred) -> float:
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def best_threshold(scores: np.ndarray, y: np.ndarray) -> float:
    """The threshold t maximising the accuracy of ``sign(score - t)`` on (scores, y in {+1,-1}) (bHP-MPM, Sec. 6);
    candidates: midpoints between sorted scores and both ends. Vectorised: O(n log n)."""
    order = np.argsort(scores, kind="stable")
    s, pos = scores[order], (y[order] > 0)
    # predicting +1 for the points from index i on: errors = negatives at or above i + positives below i
    neg_above = np.concatenate([np.cumsum((~pos)[::-1])[::-1], [0]])
    pos_below = np.concatenate([[0], np.cumsum(pos)])
    errors = neg_above + pos_below
    cuts = np.concatenate([[s[0] - 1.0], 0.5 * (s[1:] + s[:-1]), [s[-1] + 1.0]])
    distinct = np.concatenate([[True], s[1:] > s[:-1], [True]])  # a cut between equal scores is not realisable
    errors = np.where(distinct, errors, np.iinfo(np.int64).max)
    return float(cuts[int(np.argmin(errors))])


def _select(candidates: list) -> dict:
    """The candidate with the best validation accuracy (the first one on ties), without its bHP-MPM twin."""
    ok = [c for c in candidates if c.get("error") is None]
    if not ok:
        errors = sorted({c["error"] for c in candidates if c.get("error")})
        return dict(n_candidates=0, test_acc=None, val_acc=None, params=None,
                    error="; ".join(errors) or "no candidate")
    best = max(ok, key=lambda c: c["val_acc"])  # max() keeps the first maximum
    return dict({k: v for k, v in best.items() if k not in ("biased", "meaningful")}, n_candidates=len(ok))


def _scores(parts, predict) -> dict:
    return dict(val_acc=_accuracy(parts["val"][1], predict(parts["val"][0])),
                test_acc=_accuracy(parts["test"][1], predict(parts["test"][0])))


def _scores_of(parts, predicted) -> dict:
    """`_scores` from ``predicted(part)``, the predictions on the part named 'val' or 'test'."""
    return dict(val_acc=_accuracy(parts["val"][1], predicted("val")),
                test_acc=_accuracy(parts["test"][1], predicted("test")))
