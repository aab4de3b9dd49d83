"""Every paper's scikit-learn estimators, re-exported (each lives in its paper's package, `certiprog.papers`).

| estimator | paper | module |
|---|---|---|
| `MPMClassifier`, `HPMPMClassifier` | 004 | `formulations/hp_mpm/estimator.py` |
| `ManifoldClassifier` | 001 | `formulations/mcp/estimator.py` |
"""
from __future__ import annotations

import importlib

from ..papers import estimators as _estimators

__all__ = sorted(_estimators())


def __getattr__(name):  # lazy: a paper's estimator module is imported only when it is used
    where = _estimators().get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}; estimators: {__all__}")
    return getattr(importlib.import_module(where), name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
