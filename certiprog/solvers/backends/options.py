"""Solver options: checked before they reach a solver, so that a bad value names the option instead of being
accepted silently (``max_iter="ten"``, ``max_iter=-5``) or failing deep inside a solver.

``time_limit`` (seconds, positive and finite) is certiprog's own name: each backend maps it to its solver's
option (see ``docs/backends.md``); a solver that has none refuses it with a BackendError.
"""
from __future__ import annotations

import math
import numbers

from ...errors import OptionError

#: option names whose value must be a positive number (iteration counts, tolerances, time limits)
_POSITIVE = ("max_iter", "maxiter", "max_iters", "iter_limit", "tol", "eps", "time", "gap")


def _must_be_positive(name: str) -> bool:
    low = name.lower()
    return any(k in low for k in _POSITIVE)


def check_value(what: str, name: str, value, current=None) -> None:
    """Reject a value of the wrong type for ``current`` (the solver's default, when known), non-finite numbers,
    and non-positive values of iteration counts, tolerances and time limits; the error names the option."""
    if isinstance(current, bool):
        if not isinstance(value, (bool, numbers.Integral)) or value not in (0, 1):
            raise OptionError(f"{what} option {name}={value!r} rejected: expected True or False")
        return
    if isinstance(current, numbers.Integral) and not isinstance(value, numbers.Integral) or (
            isinstance(current, numbers.Integral) and isinstance(value, bool)):
        raise OptionError(f"{what} option {name}={value!r} rejected: expected an integer")
    if isinstance(current, numbers.Real) and (not isinstance(value, numbers.Real) or isinstance(value, bool)):
        raise OptionError(f"{what} option {name}={value!r} rejected: expected a number")
    if isinstance(current, str) and not isinstance(value, str):
        raise OptionError(f"{what} option {name}={value!r} rejected: expected a string")
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not math.isfinite(float(value)):
            raise OptionError(f"{what} option {name}={value!r} rejected: expected a finite number")
        if _must_be_positive(name) and not float(value) > 0:
            raise OptionError(f"{what} option {name}={value!r} rejected: must be positive")
    elif _must_be_positive(name) and current is None and isinstance(value, str):
        raise OptionError(f"{what} option {name}={value!r} rejected: expected a positive number")


def set_options(target, options: dict, what: str) -> None:
    """Set attributes of a solver's settings object after `check_value`, rejecting unknown names with the list
    of valid ones; a value the settings object refuses becomes a BackendError naming the option."""
    for k, v in options.items():
        if not hasattr(target, k) or k.startswith("_"):
            valid = sorted(a for a in dir(target) if not a.startswith("_"))
            raise OptionError(f"unknown {what} option {k!r}; valid options: {valid}")
        check_value(what, k, v, getattr(target, k))
        try:
            setattr(target, k, v)
        except (TypeError, ValueError, OverflowError) as exc:
            raise OptionError(f"{what} option {k}={v!r} rejected: {exc}") from exc


def pop_time_limit(options: dict, what: str) -> float | None:
    """Remove and return ``time_limit`` (seconds) from ``options``, checked positive and finite; None if absent."""
    if "time_limit" not in options:
        return None
    t = options.pop("time_limit")
    if t is None:
        return None
    if isinstance(t, bool) or not isinstance(t, numbers.Real) or not math.isfinite(float(t)) or not float(t) > 0:
        raise OptionError(f"{what}: time_limit={t!r} must be a positive finite number of seconds")
    return float(t)
