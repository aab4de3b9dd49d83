"""The PNG figures: error against training points, m kappa^2, MCP's convergence.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from certiprog.experiments.plotting import pyplot


def plot_generalisation(records: list, path: Path, title: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for i, r in enumerate(records):
        c = r["mcp"]["curve"]
        ax.plot([p["n_points"] for p in c], [p["error"] for p in c], "-o", color="tab:blue", ms=3,
                label="MCP" if i == 0 else None)
    budgets = [s["n_points"] for s in records[0]["svm"]]
    err = np.array([[s["error"] for s in r["svm"]] for r in records], float)
    spread = np.nanstd(err, axis=0, ddof=1) if len(records) > 1 else None
    ax.errorbar(budgets, np.nanmean(err, axis=0), yerr=spread, fmt="--s", color="k", ms=3,
                label="point SVM")
    ax.set_xscale("log")
    ax.set_xlabel("total training points")
    ax.set_ylabel("test error")
    ax.set_title(title, fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_capacity(rows: list, path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    for fig_name, marker, ax, xkey in (("3c-P", "o", axes[0], "PD_over_N"), ("3c-D", "x", axes[0], "PD_over_N"),
                                       ("3d", "o", axes[1], "R0")):
        rs = [r for r in rows if r["figure"] == fig_name]
        if rs:
            ax.errorbar([r[xkey] for r in rs], [r["m_kappa2"] for r in rs],
                    yerr=np.nan_to_num([r["m_kappa2_std"] for r in rs]),
                        fmt=f"-{marker}", label={"3c-P": "P varied", "3c-D": "D varied", "3d": "R0 varied"}[fig_name])
    axes[0].set_xlabel("PD/N")
    axes[1].set_xlabel("R0")
    axes[1].set_xscale("log")
    for ax in axes:
        ax.set_ylabel("m kappa^2")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_convergence(history: list, path: Path, title: str = "MCP convergence") -> None:
    """Objective F(w^(k)) and worst violation delta_k per iteration (log scale) from an MCP history."""
    plt = pyplot()
    k = [h["iteration"] for h in history]
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ax.plot(k, [h["objective"] for h in history], color="tab:blue")
    ax.set_xlabel("iteration k")
    ax.set_ylabel("objective", color="tab:blue")
    ax2 = ax.twinx()
    ax2.semilogy(k, np.maximum([h["violation"] for h in history], 1e-16), color="tab:red")
    ax2.set_ylabel("worst violation delta_k", color="tab:red")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
