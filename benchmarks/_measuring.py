"""How the benchmarks measure, written once: best-of-N wall time, peak memory (tracemalloc's heap peak and the
process's peak resident set) and one measurement in a fresh spawned process, so that its peak memory is its own
(`run_measured`: timed untraced, the heap peak from a second, traced run).

The scripts import it by name (``from _measuring import ...``): ``python benchmarks/<name>.py`` puts this folder on
``sys.path``; a script that tests load by file path puts it there itself.
"""
from __future__ import annotations

import multiprocessing as mp
import resource
import time
import tracemalloc

__all__ = ["best_of", "peak_rss_kb", "traced_heap_mb", "run_isolated", "run_measured", "start_trace", "finish",
           "heap_text"]


def best_of(fn, repeats: int):
    """(smallest wall time, last result) of ``repeats`` runs of ``fn()`` (the machine is shared: the minimum is the
    honest figure)."""
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def peak_rss_kb() -> int:
    """This process's peak resident set size so far, in kB (``ru_maxrss`` on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def traced_heap_mb() -> float:
    """tracemalloc's peak since ``tracemalloc.start()`` in MB (Python and numpy allocations, not native solvers'
    memory); stops tracing."""
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return peak


def run_isolated(measure, job: dict, timeout: float | None = None) -> dict:
    """``measure(job)`` in a fresh spawned process (``measure`` importable at module level), its dict returned;
    ``{"timeout": timeout}`` when it takes longer than ``timeout`` seconds (None: no limit)."""
    ctx = mp.get_context("spawn")
    with ctx.Pool(1, maxtasksperchild=1) as pool:
        res = pool.apply_async(measure, (job,))
        try:
            return res.get(timeout=timeout)
        except mp.TimeoutError:
            return dict(timeout=timeout)


def start_trace(job: dict) -> None:
    """Start tracemalloc when ``job`` is the traced run of `run_measured` (``job["trace"]``)."""
    if job.get("trace"):
        tracemalloc.start()


def finish(out: dict, job: dict) -> dict:
    """The end of a `run_measured` measurement: ``out`` with ``rss_kb`` and, in the traced run, ``heap_mb``."""
    out["rss_kb"] = peak_rss_kb()
    out["heap_mb"] = traced_heap_mb() if job.get("trace") else None
    return out


def run_measured(measure, job: dict, timeout: float | None = None, heap_under: float = 10.0) -> dict:
    """``measure(job)`` in a fresh process, untraced (its ``seconds`` and peak RSS), and, when it took under
    ``heap_under`` seconds, once more under tracemalloc for its peak heap (``heap_mb``; None otherwise). Tracing
    every allocation slows numpy's many small arrays far more than a native solver, so it is never on while the
    clock runs. ``measure`` calls `start_trace` before its clock starts and returns `finish`'s dict."""
    res = run_isolated(measure, dict(job, trace=False), timeout)
    if "timeout" in res or res.get("seconds", float("inf")) >= heap_under:
        res["heap_mb"] = None
        return res
    res["heap_mb"] = run_isolated(measure, dict(job, trace=True), timeout).get("heap_mb")
    return res


def heap_text(r: dict, digits: int = 1) -> str:
    """A result's peak heap for a table ("n/a" when it was not traced)."""
    return "n/a" if r.get("heap_mb") is None else f"{r['heap_mb']:.{digits}f} MB"
