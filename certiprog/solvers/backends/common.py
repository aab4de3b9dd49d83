"""Helpers shared by backends: statuses, solutions from raw vectors, option checks, quiet solver output."""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading

import numpy as np

from ...errors import OptionError
from ..solution import Solution, Status

STATUS = {
    "optimal": Status("optimal", "feasible", "feasible"),
    "inaccurate": Status("inaccurate", "feasible", "feasible"),
    # certiprog's own word, never a solver's: a point is returned that the certificate does not prove optimal
    # (`certiprog.solvers.fallback.honest_status`)
    "unconfirmed": Status("unconfirmed", "unknown", "unknown"),
    "infeasible": Status("infeasible", "infeasible", "unknown"),
    "infeasible_inaccurate": Status("infeasible", "infeasible_inaccurate", "unknown"),
    "unbounded": Status("unbounded", "unknown", "infeasible"),
    "unbounded_inaccurate": Status("unbounded", "unknown", "infeasible_inaccurate"),
    "infeasible_or_unbounded": Status("infeasible_or_unbounded", "unknown", "unknown"),
    "iteration_limit": Status("iteration_limit", "unknown", "unknown"),
    "time_limit": Status("time_limit", "unknown", "unknown"),
    "numerical_error": Status("numerical_error", "unknown", "unknown"),
}


def make_solution(problem, status_key: str, x, z, s, *, backend, solver, version="", iterations=None,
                  solve_time=0.0, certificate=None, info=None) -> Solution:
    """Build a Solution in certiprog's conventions from a backend's raw conic vectors."""
    status = STATUS[status_key]
    if status.ok:
        objective = problem.objective_value(np.asarray(x, float))
    elif status.termination == "infeasible":
        objective = problem.sense * np.inf
    elif status.termination == "unbounded":
        objective = -problem.sense * np.inf
    else:
        objective = np.nan
    keep = status.ok
    return Solution(
        status=status, objective=float(objective),
        x=np.asarray(x, float) if keep and x is not None else None,
        z=np.asarray(z, float) if keep and z is not None else None,
        s=np.asarray(s, float) if keep and s is not None else None,
        problem=problem, backend=backend, solver=solver, solver_version=version, iterations=iterations,
        compile_time=sum(problem.times.values()), solve_time=solve_time, certificate=certificate,
        info=info or {},
    )


def apply_options(target, options: dict, what: str):
    """Set attributes of a solver's settings object, rejecting unknown names with the list of valid ones."""
    for k, v in options.items():
        if not hasattr(target, k):
            valid = sorted(a for a in dir(target) if not a.startswith("_"))
            raise OptionError(f"unknown {what} option {k!r}; valid options: {valid}")
        setattr(target, k, v)


# ------------------------------------------------------------------------------------------- solver output
class _QuietState:
    """What `quiet` shares between threads: how many quiet solves are running, stdout's saved descriptor."""

    depth: int = 0
    saved: int | None = None


_QUIET = _QuietState()
_QUIET_LOCK = threading.Lock()


def _flush_c_stdio() -> None:
    """Flush C's stdio buffers (a solver's printf / std::cout), so nothing it wrote while quiet is printed later."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):  # no C library to ask (an unusual platform): nothing buffered we can reach
        pass


@contextlib.contextmanager
def quiet_output(enabled: bool = True):
    """Keep a solver's own printing (banners, licence lines, logs written by C code to file descriptor 1) off
    stdout while ``enabled``: fd 1 points to the null device, and back afterwards. Reference-counted under a lock,
    so overlapping solves in threads restore stdout once, when the last one ends. ``verbose=True`` solves run
    with ``enabled=False``."""
    if not enabled:
        yield
        return
    with _QUIET_LOCK:
        if _QUIET.depth == 0:
            try:
                sys.stdout.flush()
            except (AttributeError, ValueError, OSError):
                pass
            _flush_c_stdio()
            try:
                saved = os.dup(1)
            except OSError:  # no fd 1 (a detached process): nothing to keep quiet
                saved = None
            if saved is not None:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.close(null)
            _QUIET.saved = saved
        _QUIET.depth += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _QUIET.depth -= 1
            if _QUIET.depth == 0 and _QUIET.saved is not None:
                _flush_c_stdio()
                os.dup2(_QUIET.saved, 1)
                os.close(_QUIET.saved)
                _QUIET.saved = None


def wants_output(options: dict) -> bool:
    """Whether the caller asked to see the solver's output (``verbose=True``, or Pyomo's ``tee=True``)."""
    return any(bool(options.get(k)) for k in ("verbose", "tee", "output_flag", "log_to_console"))
