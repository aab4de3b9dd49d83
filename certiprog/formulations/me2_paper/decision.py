"""ME^2's decision rule (paper Sec. 5.2) in its three readings, shared by the estimator, the tuning and the experiment.

The paper: a query x is associated with its Euclidean-nearest training positive ``c_j``; "it is labelled positive if
1) it belongs to the ellipsoid of its associated positive example in the training set and 2) if it is at most the
m-th closest nearest neighbour of the ellipsoid's center" (m = 3). Condition 2 does not say among which points x is
ranked. The readings (``rule=``):

``"rank"`` (default; batch independent): among the TRAINING NEGATIVES the ellipsoid was learnt against, fewer than
    m are at least as close to ``c_j`` as x: ``r_j(x) < t_j``, t_j the m-th smallest distance from c_j to a training
    negative. The distance (``rank_metric``) is the learned one, ``(x - c_j)^T M_j (x - c_j)``, by default, so the
    rule reads "x is in the ellipsoid shrunk until at most m - 1 training negatives are inside", which is how the
    paper says m acts ("allows ME^2 to control the FP rate"); ``"euclidean"`` ranks by ``||x - c_j||^2``. A point's
    label never depends on the other points predicted with it.
``"batch"`` (the paper's literal protocol, the reading of docs/derivations/002.md §7 and of `programs.me2_predict`):
    among the query points of ONE CALL that are associated with c_j and inside its ellipsoid, the m closest to c_j
    are positive (ties by row order). So each centre labels at most m points per call and a label depends on the
    batch: predicting one point at a time gives the ``"ellipsoid"`` rule.
``"ellipsoid"``: condition 1 only (m is not used).

"Inside" is strict, ``q_j(x) < R_j``: the learned boundary passes through negatives (the support vectors), which thus
stay negative. Scores: ``min(R_j - q_j(x), t_j - r_j(x))`` ("rank"), ``R_j - q_j(x)`` ("ellipsoid"), and for
"batch" ``R_j - q_j(x)`` for the selected points and ``min(R_j - q_j(x), k_m - k(x)) <= 0`` for the others (k the
ranking key, k_m the m-th smallest key of the centre's inside points); positive iff score > 0.
"""
from __future__ import annotations

import numbers

import numpy as np

from certiprog.errors import InputError

RULES = ("rank", "batch", "ellipsoid")
RANK_METRICS = ("mahalanobis", "euclidean")

__all__ = ["RULES", "RANK_METRICS", "check_rule", "nearest_centre", "quad_forms", "rank_thresholds", "rule_scores"]


def check_rule(rule, m, rank_metric) -> None:
    """InputError naming the bad option of the decision rule."""
    if rule not in RULES:
        raise InputError(f"rule must be one of {RULES}; got {rule!r}")
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 1:
        raise InputError(f"m must be a positive integer (the paper uses m = 3); got {m!r}")
    if rank_metric not in RANK_METRICS:
        raise InputError(f"rank_metric must be one of {RANK_METRICS}; got {rank_metric!r}")


def nearest_centre(C: np.ndarray, X: np.ndarray, chunk: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Index of the Euclidean-nearest row of C for every row of X (ties: lowest index) and the squared distance."""
    idx = np.empty(len(X), dtype=np.intp)
    d2 = np.empty(len(X))
    cc = np.einsum("ij,ij->i", C, C)
    for s in range(0, len(X), chunk):
        Xs = X[s:s + chunk]
        D = np.einsum("ij,ij->i", Xs, Xs)[:, None] - 2.0 * Xs @ C.T + cc[None, :]
        j = np.argmin(D, axis=1)
        idx[s:s + chunk] = j
        d2[s:s + chunk] = np.maximum(D[np.arange(len(Xs)), j], 0.0)
    return idx, d2


def quad_forms(Y: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``y_i^T M y_i`` for every row of Y."""
    return np.einsum("ij,jk,ik->i", Y, M, Y)


def rank_thresholds(C, Ms, X_neg, m: int, rank_metric: str) -> np.ndarray:
    """t_j: the m-th smallest distance (squared; learned metric or Euclidean) from c_j to the training negatives
    (+inf when there are fewer than m negatives)."""
    out = np.full(len(C), np.inf)
    for j, c in enumerate(C):
        Y = X_neg - c
        r = quad_forms(Y, Ms[j]) if rank_metric == "mahalanobis" else np.einsum("ij,ij->i", Y, Y)
        if r.size >= m:
            out[j] = np.partition(r, m - 1)[m - 1]
    return out


def rule_scores(C, Ms, Rs, X, *, rule: str = "rank", m: int = 3, rank_metric: str = "mahalanobis",
                thresholds=None) -> tuple[np.ndarray, np.ndarray]:
    """(score, assigned centre) of every row of X under ``rule`` (see the module docstring); positive iff score > 0.
    ``thresholds`` (from `rank_thresholds`) is needed by the "rank" rule."""
    assign, e2 = nearest_centre(C, X)
    score = np.empty(len(X))
    for j in np.unique(assign):
        idx = np.flatnonzero(assign == j)
        Y = X[idx] - C[j]
        q = quad_forms(Y, Ms[j])
        s = Rs[j] - q
        if rule == "rank":
            r = q if rank_metric == "mahalanobis" else e2[idx]
            s = np.minimum(s, thresholds[j] - r)
        elif rule == "batch":
            key = q if rank_metric == "mahalanobis" else e2[idx]
            inside = np.flatnonzero(s > 0)
            if inside.size > m:
                order = inside[np.lexsort((inside, key[inside]))]
                k_m = key[order[m - 1]]
                rest = order[m:]
                s[rest] = np.minimum(s[rest], np.minimum(k_m - key[rest], 0.0))
        score[idx] = s
    return score, assign
