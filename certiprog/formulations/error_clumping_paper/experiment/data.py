"""The splits of the digits and the data of a task: MNIST halves, rho by the neighbourhood rule, the exact rho-graph
(kept by the worker for its next task), lambda by validation at eta = 0.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from ..tables import DIGITS
from .config import _SPLIT_SEED, FIRST_SPLIT


def digit_splits(n: int, seed: int = 0) -> list[tuple]:
    """The positive groups of Fig. 2: 5-9 (the paper's 0-4 vs 5-9) and ``n - 1`` distinct random groups of five
    digits (seeded), each written as the group without the digit 0 (so a split and its mirror are one split)."""
    out: list[tuple[int, ...]] = [FIRST_SPLIT]
    rng = np.random.default_rng([int(seed), _SPLIT_SEED])
    while len(out) < n:
        group = tuple(sorted(int(d) for d in rng.permutation(10)[:5]))
        if 0 in group:
            group = tuple(d for d in DIGITS if d not in group)
        if group not in out:
            out.append(group)
    return out


def split_label(positive) -> str:
    neg = [d for d in DIGITS if d not in positive]
    if tuple(positive) == FIRST_SPLIT:
        return "0-4 vs 5-9"
    return "".join(map(str, neg)) + " vs " + "".join(map(str, positive))


@functools.lru_cache(maxsize=2)
def _data(positive: tuple, seed: int, n_train: int, n_test: int, root):
    """The task's data (`mnist_binary`), the test half cut to ``n_test`` points; arrays read-only (shared)."""
    from certiprog.datasets.mnist import mnist_binary

    d = mnist_binary(positive=positive, seed=seed, n_train=n_train, root=root)
    out = dict(X=d.X_train, y=d.y_train, digit=d.digit_train, Xt=np.ascontiguousarray(d.X_test[:n_test]),
               yt=d.y_test[:n_test].copy(), digit_t=d.digit_test[:n_test].copy())
    for a in out.values():
        a.setflags(write=False)
    return out


def _rho(X, fraction: float) -> float:
    """The rho rule (module docstring): neighbourhoods of about ``fraction`` of the points."""
    from ..graph import rho_for_mean_degree

    return rho_for_mean_degree(X[:, :-1], fraction)


@functools.lru_cache(maxsize=1)
def _graph(positive: tuple, seed: int, n_train: int, n_test: int, root, rho: float) -> tuple:
    """The split's rho-graph on the pixels (`graph.radius_graph`, exact: the constant feature does not change
    distances) and the seconds it took, kept for this worker's next task: Table 1's eta > 0 tasks share it, and a
    Fig. 2 split's two tasks (hole punching needs it at eta = 0 too)."""
    from ..graph import radius_graph

    t0 = time.perf_counter()
    A = radius_graph(_data(positive, seed, n_train, n_test, root)["X"][:, :-1], rho)
    return A, time.perf_counter() - t0


def _cached_graph(positive: tuple, config: dict, data_root, rho: float) -> tuple:
    """(graph, seconds it took to build, whether an earlier task of this worker built it)."""
    hits = _graph.cache_info().hits
    A, seconds = _graph(positive, config["seed"], config["n_train"], config["n_test"], data_root, rho)
    return A, seconds, _graph.cache_info().hits > hits


@functools.lru_cache(maxsize=8)
def choose_lam(positive: tuple, seed: int, n_train: int, n_test: int, root, lam_grid: tuple, validation: float,
               tol: float, lam=None) -> dict:
    """The lam rule (module docstring): eq. (1) at eta = 0 fitted on the first (1 - validation) of the training
    part for every lam of the grid, validation errors on the rest; ``lam`` given: used as is. Returns dict(lam,
    grid, validation_error (per lam, or None), n_fit, n_validation, rule)."""
    import scipy.sparse as sp

    from ..learner import fit_error_clumping

    if lam is not None:
        return dict(lam=float(lam), grid=[float(lam)], validation_error=None, n_fit=0, n_validation=0,
                    rule="given (--lam)")
    d = _data(positive, seed, n_train, n_test, root)  # the task's (cached) data: its training part only
    m = d["X"].shape[0]
    n_val = int(round(m * validation))
    Xf, yf, Xv, yv = d["X"][:m - n_val], d["y"][:m - n_val], d["X"][m - n_val:], d["y"][m - n_val:]
    empty = sp.csr_matrix((Xf.shape[0], Xf.shape[0]))  # eta = 0: Theta = I, the graph plays no part
    errors = []
    for lam_k in lam_grid:
        fit = fit_error_clumping(Xf, yf, 1.0, 0.0, float(lam_k), "auto", graph=empty, tol=tol)
        errors.append(float(np.mean(np.where(Xv @ fit.w > 0, 1.0, -1.0) != yv)))
    best = int(np.argmin(errors))  # ties: the first in the grid
    return dict(lam=float(lam_grid[best]), grid=[float(v) for v in lam_grid], validation_error=errors,
                n_fit=int(m - n_val), n_validation=n_val,
                rule=f"fewest validation errors at eta = 0 ({n_val} held-out training points)")


def _chosen_lam(positive: tuple, config: dict, data_root) -> dict:
    return choose_lam(positive, config["seed"], config["n_train"], config["n_test"], data_root,
                      tuple(config["lam_grid"]), config["validation"], config["tol"], config["lam"])
