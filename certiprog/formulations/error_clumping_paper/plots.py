"""Plots for paper 003: Algorithm 1 (corrected) against the structured solver and Clarabel on one instance of eq. (1).

matplotlib is imported inside the functions (optional dependency, ``pip install certiprog[plots]``).

`convergence_data` runs the solvers; `plot_convergence` draws two panels against passes over the data (one pass = m
stochastic steps of Algorithm 1; for the structured solver one descent iteration, which costs at least one pass):
(a) the objective, with the best certified lower bound of all runs as the floor; (b) the suboptimality certified a
posteriori, objective - (best certified lower bound), on a log scale, with Algorithm 1's own per-pass duality gap
dashed. Clarabel is one point: its certified objective at its end (interior point: no passes).
"""
from __future__ import annotations

import time

import numpy as np

from certiprog.errors import InputError

from .algorithm1 import algorithm1
from .learner import fit_error_clumping
from .programs import neighbourhood_graph

__all__ = ["convergence_data", "plot_convergence"]

SOLVERS = ("algorithm1", "structured", "clarabel")


def convergence_data(X, y, rho, eta, lam, passes: float = 50, seed=0, solvers=SOLVERS, c=None) -> dict:
    """Run the ``solvers`` (a subset of 'algorithm1', 'structured', 'clarabel') on eq. (1) and collect per-pass
    curves and certificates.

    Returns {'algorithm1': {passes, objective, gap, certificate, c, seconds}, 'structured': {iterations, objective,
    certificate, seconds}, 'clarabel': {objective, certificate, seconds}, 'lower': the best
    certified lower bound, 'm', 'n'}.
    """
    unknown = set(solvers) - set(SOLVERS)
    if unknown:
        raise InputError(f"solvers must be among {SOLVERS}; got {sorted(unknown)}")
    X = np.asarray(X, float)
    A = neighbourhood_graph(X, rho)
    out: dict = {"m": int(X.shape[0]), "n": int(X.shape[1])}
    if "algorithm1" in solvers:
        t0 = time.perf_counter()
        r = algorithm1(X, y, rho, eta, lam, passes=passes, seed=seed, graph=A, c=c)
        out["algorithm1"] = dict(passes=[h["pass"] for h in r.history], objective=[h["objective"] for h in r.history],
                                 gap=[h["gap"] for h in r.history], certificate=r.gap.to_json(), c=r.c,
                                 seconds=time.perf_counter() - t0)
    if "structured" in solvers:
        t0 = time.perf_counter()
        f = fit_error_clumping(X, y, rho, eta, lam, "structured", graph=A)
        curve = [h.get("f", h.get("objective")) for h in f.history if isinstance(h, dict)]
        out["structured"] = dict(iterations=list(range(1, len(curve) + 1)),
                                 objective=[float(v) for v in curve if v is not None],
                                 certificate=f.certificate.to_json(), seconds=time.perf_counter() - t0)
    if "clarabel" in solvers:
        t0 = time.perf_counter()
        f = fit_error_clumping(X, y, rho, eta, lam, "clarabel", graph=A)
        out["clarabel"] = dict(objective=f.objective, certificate=f.certificate.to_json(),
                               seconds=time.perf_counter() - t0)
    lows = [out[s]["certificate"]["lower"] for s in SOLVERS if s in out and "certificate" in out[s]]
    out["lower"] = max(lows) if lows else float("nan")
    return out


def plot_convergence(data: dict, path=None, title: str | None = None):
    """Draw `convergence_data`'s result (module docstring); save a PNG at ``path`` when given. Returns the figure."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    low = data["lower"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    if "algorithm1" in data:
        a = data["algorithm1"]
        ax1.plot(a["passes"], a["objective"], color="C0", label=f"Algorithm 1 (corrected), c = {a['c']:.3g}")
        ax2.semilogy(a["passes"], np.maximum(np.asarray(a["objective"]) - low, 1e-16), color="C0", label="Alg. 1: objective - "
                     "certified lower bound")
        ax2.semilogy(a["passes"], np.maximum(a["gap"], 1e-16), "--", color="C0", label="Alg. 1: its own duality gap")
    fast = data.get("structured", {})
    if "objective" in fast and fast["objective"]:
        ax1.plot(fast["iterations"], fast["objective"], color="C2", label="structured solver (per iteration)")
        ax2.semilogy(fast["iterations"], np.maximum(np.asarray(fast["objective"]) - low, 1e-16), color="C2",
                     label="structured solver: objective - lower bound")
    if "clarabel" in data:
        cl = data["clarabel"]
        ax1.axhline(cl["objective"], color="k", ls=":", label=f"Clarabel ({cl['seconds']:.2f} s)")
        ax2.axhline(max(cl["certificate"]["gap"], 1e-16), color="k", ls=":", label="Clarabel: certified gap")
    if np.isfinite(low):
        ax1.axhline(low, color="gray", lw=0.8, label="best certified lower bound")
    ax1.set_xlabel("passes over the data")
    ax1.set_ylabel("objective of eq. (1)")
    ax2.set_xlabel("passes over the data")
    ax2.set_ylabel("certified suboptimality")
    ax1.legend(fontsize=7)
    ax2.legend(fontsize=7)
    fig.suptitle(title or f"eq. (1), m = {data['m']}, n = {data['n']}", fontsize=9)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
