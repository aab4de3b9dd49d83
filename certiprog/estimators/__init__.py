"""scikit-learn estimators on top of the formulations (fit / predict / decision_function / score).

| estimator | paper | module |
|---|---|---|
| `MPMClassifier`, `HPMPMClassifier` | 004 | `estimators/mpm.py` |
| `ManifoldClassifier` | 001 | `estimators/manifold.py` |
"""
from __future__ import annotations

_LAZY = {
    "MPMClassifier": ".mpm", "HPMPMClassifier": ".mpm",
    "ManifoldClassifier": ".manifold",
}
__all__ = sorted(_LAZY)


def __getattr__(name):  # lazy: scikit-learn is imported only when an estimator is used
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
