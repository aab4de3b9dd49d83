"""ME^2's local models are independent: `over_chunks` spreads them over joblib workers (scikit-learn's ``n_jobs``).

Used by the tuning (`tuning.tune_local`) and the final fits (`programs.me2_fit`). Through joblib, a Dask or Ray
backend (``with joblib.parallel_config("dask"): ...``) spreads the chunks over a cluster.
"""
from __future__ import annotations

import functools

import numpy as np

__all__ = ["one_blas_thread", "over_chunks"]


@functools.lru_cache(maxsize=1)
def _blas_controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread():
    """A context manager holding BLAS to one thread (each worker's local problems are many and small), through one
    `threadpoolctl.ThreadpoolController` per process: finding the libraries costs ~7 ms, paid once instead of at
    every call."""
    return _blas_controller().limit(limits=1)


def over_chunks(function, items: list, n_jobs, *args) -> list:
    """``[function(chunk, *args) for chunk in chunks of items]`` through joblib with scikit-learn's ``n_jobs``
    semantics (None: 1 unless inside a ``joblib.parallel_config`` / ``parallel_backend`` context, whose backend, e.g.
    Dask or Ray, then spreads the chunks; -1: all cores). The items are cut into about 4 chunks per worker, in order,
    so the concatenated results are in the order of ``items`` whatever the number of workers."""
    from joblib import Parallel, delayed, effective_n_jobs

    if not items:
        return []
    workers = max(1, int(effective_n_jobs(n_jobs)))
    n_chunks = 1 if workers == 1 else min(len(items), 4 * workers)
    bounds = np.linspace(0, len(items), n_chunks + 1).round().astype(int)
    chunks = [items[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    if len(chunks) == 1:
        return [function(chunks[0], *args)]
    return Parallel(n_jobs=n_jobs)(delayed(function)(c, *args) for c in chunks)
