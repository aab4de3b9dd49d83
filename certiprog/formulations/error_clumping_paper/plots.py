"""Plots for paper 003: Algorithm 1 (corrected) against the structured solver and Clarabel on one instance of eq. (1).

matplotlib is imported inside the functions (optional dependency, ``pip install certiprog[plots]``).

`convergence_data` runs the solvers; `plot_convergence` draws two panels against passes over the data (one pass = m
stochastic steps of Algorithm 1; for the structured solver one descent iteration, which costs at least one pass):
(a) the objective, with the best certified lower bound of all runs as the floor; (b) the suboptimality certified a
posteriori, objective - (best certified lower bound), on a log scale, with Algorithm 1's own per-pass duality gap
dashed. Clarabel is one point: its certified objective at its end (interior point: no passes).

`plot_fig1` (the paper's Fig. 1: training 0's and 1's projected on <w_0, x> and <w_0.5, x>, quadrants A-D) and
`plot_fig2` (the paper's Fig. 2: test error against the hole-punching round, with and without clumping, one panel
per split of the digits) draw the figures of ``certiprog reproduce error-clumping`` from its stored results.
"""
from __future__ import annotations

import time

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.plotting import pyplot

from .algorithm1 import algorithm1
from .learner import fit_error_clumping
from .programs import neighbourhood_graph

__all__ = ["convergence_data", "plot_convergence", "plot_fig1", "plot_fig2"]

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
    plt = pyplot()

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


def plot_fig1(score_x, score_y, digits, path=None, labels=("w_0", "w_0.5"), title=None, max_points=4000, seed=0):
    """Fig. 1: the training points of digit 0 (blue) and 1 (red) at (<w_a, x>, <w_b, x>) (``score_x``,
    ``score_y``: decision values of the two classifiers; ``digits``: each point's digit; other digits are left
    out). Both digits are in the paper's negative class, so a positive value is an error of that classifier; the
    axes through 0 cut the plane into the paper's quadrants A (x < 0, y > 0), B (both > 0), C (both < 0) and D
    (x > 0, y < 0), whose counts are printed in the legend. At most ``max_points`` points per digit are drawn
    (a seeded subsample; the counts use all). Returns the figure; saves a PNG at ``path`` when given."""
    sx, sy, dg = (np.asarray(a).ravel() for a in (score_x, score_y, digits))
    if not (sx.shape == sy.shape == dg.shape) or not (np.all(np.isfinite(sx)) and np.all(np.isfinite(sy))):
        raise InputError("score_x, score_y and digits must be finite arrays of one length")
    plt = pyplot()
    rng = np.random.default_rng(seed)
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for digit, colour in ((0, "tab:blue"), (1, "tab:red")):
        idx = np.flatnonzero(dg == digit)
        if not idx.size:
            continue
        q = dict(A=int(np.sum((sx[idx] < 0) & (sy[idx] > 0))), B=int(np.sum((sx[idx] > 0) & (sy[idx] > 0))),
                 C=int(np.sum((sx[idx] < 0) & (sy[idx] < 0))), D=int(np.sum((sx[idx] > 0) & (sy[idx] < 0))))
        show = idx if idx.size <= max_points else rng.choice(idx, max_points, replace=False)
        ax.scatter(sx[show], sy[show], s=3, alpha=0.4, color=colour,
                   label=f"{digit}'s (n = {idx.size}; A {q['A']}, B {q['B']}, C {q['C']}, D {q['D']})")
    ax.axhline(0, color="k", lw=0.7)
    ax.axvline(0, color="k", lw=0.7)
    for text, (u, v) in dict(A=(0.03, 0.97), B=(0.97, 0.97), C=(0.03, 0.03), D=(0.97, 0.03)).items():
        ax.text(u, v, text, transform=ax.transAxes, ha="left" if u < 0.5 else "right",
                va="top" if v > 0.5 else "bottom", fontsize=12, weight="bold")
    ax.set_xlabel(f"<{labels[0]}, x>")
    ax.set_ylabel(f"<{labels[1]}, x>")
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 0.06), markerscale=3)
    ax.set_title(title or "Fig. 1: training 0's and 1's on the two classifiers", fontsize=9)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def plot_fig2(curves, path=None, title=None):
    """Fig. 2: test error against the hole-punching round. ``curves``: a list of dicts (split (label), eta,
    test_error (per round, round 0 = the ambient classifier alone), optionally label); one panel per split, one
    line per curve (eta = 0 dashed: without clumping). Returns the figure; saves a PNG at ``path`` when given."""
    if not curves:
        raise InputError("plot_fig2 needs at least one curve")
    plt = pyplot()
    splits = list(dict.fromkeys(c["split"] for c in curves))
    cols = min(len(splits), 3)
    rows = -(-len(splits) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.8 * rows), squeeze=False, sharey=False)
    for ax, split in zip(axes.ravel(), splits):
        for c in (c for c in curves if c["split"] == split):
            e = np.asarray(c["test_error"], float)
            ax.plot(np.arange(e.size), e, "--" if c["eta"] == 0 else "-", marker=".",
                    label=c.get("label") or (f"eta = {c['eta']:g}" + (" (no clumping)" if c["eta"] == 0 else "")))
        ax.set_title(split, fontsize=8)
        ax.set_xlabel("hole-punching round")
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(splits):]:
        ax.axis("off")
    axes[0, 0].set_ylabel("test error")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(title or "Fig. 2: test error of hole punching, with and without error clumping", fontsize=9)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
