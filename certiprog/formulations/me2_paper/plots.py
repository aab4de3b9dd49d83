"""Plots for paper 002: the learned ellipsoids in 2-D (the paper's Figs. 1-2) and Fig. 3 (F-measure vs the rate of
positives). matplotlib is imported when a function is called."""
from __future__ import annotations

import numpy as np

__all__ = ["ellipse_points", "plot_ellipsoids", "plot_fig3"]


def ellipse_points(center, M, R, k: int = 200) -> np.ndarray:
    """k points on the boundary of ``{x : (x - c)^T M (x - c) = R}`` in 2-D (M 2 x 2, positive definite)."""
    w, V = np.linalg.eigh(np.asarray(M, float))
    t = np.linspace(0, 2 * np.pi, k)
    circle = np.stack([np.cos(t), np.sin(t)])
    return np.asarray(center, float) + (V @ (np.sqrt(max(R, 0.0) / w)[:, None] * circle)).T


def plot_ellipsoids(X_pos, X_neg, models, ax=None, title: str = ""):
    """Negatives (blue), positives (red) and one ellipse per local model ``(center, M, R)`` (2-D data)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 5))
    ax.scatter(X_neg[:, 0], X_neg[:, 1], s=8, c="tab:blue", label="negatives")
    ax.scatter(X_pos[:, 0], X_pos[:, 1], s=24, c="tab:red", marker="^", label="positives")
    for c, M, R in models:
        pts = ellipse_points(c, M, R)
        ax.plot(pts[:, 0], pts[:, 1], c="tab:red", lw=1)
    ax.set_aspect("equal")
    ax.set_title(title)
    ax.legend(loc="upper right", fontsize=8)
    return ax.figure


def plot_fig3(rows, ax=None):
    """Mean F-measure per method against the rate of positives (rows of `experiment.fig3_rows`)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 4))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    for method in methods:
        rs = sorted((r for r in rows if r["method"] == method), key=lambda r: -r["rate"])
        ax.plot([100 * (1 - r["rate"]) for r in rs], [r["f1_mean"] for r in rs], marker="o",
                lw=2.5 if method == "ME2" else 1.2, label=method)
    ax.set_xlabel("rate of negative examples (%)")
    ax.set_ylabel("mean F-measure (test)")
    ax.set_title("Fig. 3: Yeast6 with fewer and fewer positives")
    ax.legend(fontsize=8, ncol=2)
    ax.grid(alpha=0.3)
    return ax.figure
