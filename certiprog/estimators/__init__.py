"""Every paper's scikit-learn estimators, re-exported (each lives in its paper's package, `certiprog.papers`).

| estimator | paper | module |
|---|---|---|
| `KHHMClassifier`, `LHMClassifier` | 000 | `formulations/hinge_minimax_paper/estimator.py` |
| `LHMNetClassifier` (needs the `nn` extra) | 000 | `formulations/hinge_minimax_paper/estimator_net.py` |
| `ManifoldClassifier` | 001 | `formulations/mcp_paper/estimator.py` |
| `ME2Classifier` | 002 | `formulations/me2_paper/estimator.py` |
| `ErrorClumpingClassifier`, `HolePunchingClassifier` | 003 | `formulations/error_clumping_paper/estimator.py` |
| `MPMClassifier`, `HPMPMClassifier` | 004 | `formulations/hp_mpm_paper/estimator.py` |

Each inherits `certiprog.estimators.base.CertifiedClassifier`: ``backend``, ``solver``, ``certify`` and ``n_jobs``
have one meaning in every estimator (documented there).
"""
from __future__ import annotations

import importlib

from ..papers import estimators as _estimators

# ``__all__`` and every estimator resolve on first use (module ``__getattr__``): importing this package, or the base
# class in `certiprog.estimators.base` that each paper's estimator inherits, reads no entry point and imports no paper.


def __getattr__(name):  # lazy: a paper's estimator module is imported only when it is used
    if name == "__all__":
        return sorted(_estimators())
    where = _estimators().get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}; estimators: {sorted(_estimators())}")
    return getattr(importlib.import_module(where), name)


def __dir__():
    return sorted(set(globals()) | set(_estimators()))
