"""Plots for paper 000: Fig. 5 (KHHM's greedy steps and final classifier), Fig. 7 (LHM vs a union of LDAs) and
Fig. 8 (LHM iterations and the risk per iteration). matplotlib is imported when a function is called."""
from __future__ import annotations

import numpy as np

__all__ = ["covariance_ellipse", "draw_halfplane", "plot_fig5", "plot_fig7", "plot_fig8", "plot_transfer"]


def covariance_ellipse(mean, cov, radius: float = 1.0, k: int = 100) -> np.ndarray:
    """k points on ``{x : (x - mean)^T cov^-1 (x - mean) = radius^2}`` (2-D)."""
    w, V = np.linalg.eigh(np.asarray(cov, float))
    t = np.linspace(0, 2 * np.pi, k)
    return np.asarray(mean, float) + radius * (V @ (np.sqrt(np.maximum(w, 0))[:, None] * np.stack([np.cos(t),
                                                                                                  np.sin(t)]))).T


def draw_halfplane(ax, w, b, lim, **style) -> None:
    """The line ``w^T x + b = 0`` inside the box ``lim = (xmin, xmax, ymin, ymax)`` with a tick toward its
    positive side."""
    w = np.asarray(w, float)
    if not np.any(w):
        return
    x0 = -b * w / (w @ w)                       # the line's point closest to the origin
    direction = np.array([-w[1], w[0]]) / np.linalg.norm(w)
    span = 2 * max(abs(v) for v in lim) + np.linalg.norm(x0)
    pts = np.stack([x0 - span * direction, x0 + span * direction])
    ax.plot(pts[:, 0], pts[:, 1], **style)


def _scatter(ax, X, y):
    ax.scatter(X[y == 0, 0], X[y == 0, 1], s=3, c="tab:blue", alpha=0.35, label="negatives")
    ax.scatter(X[y > 0, 0], X[y > 0, 1], s=8, c="tab:red", label="positives")


def _limits(X, y=None) -> tuple:
    """The box of the central 99 % of the points, widened to hold every positive, plus a 5 % margin."""
    lo, hi = np.percentile(X, 0.5, axis=0), np.percentile(X, 99.5, axis=0)
    if y is not None and np.any(y > 0):
        lo, hi = np.minimum(lo, X[y > 0].min(axis=0)), np.maximum(hi, X[y > 0].max(axis=0))
    pad = 0.05 * (hi - lo)
    lo, hi = lo - pad, hi + pad
    return lo[0], hi[0], lo[1], hi[1]


def _inside(X, W, b, rows) -> np.ndarray:
    if len(rows) == 0:
        return np.ones(len(X), bool)
    return np.all(X @ W[rows].T + b[rows] >= 0, axis=1)


def plot_fig5(X, y, steps_W, steps_b, steps_active, W, b, active, rounds: int = 0):
    """Fig. 5: panel t (t = 1..K) shows the first t greedy hyperplanes (hyperplane t in black) and the 1- and
    2-sigma ellipses of the negatives inside the intersection of the first t - 1 (the moments hyperplane t is
    trained against); the last panel the final classifier after the refinement rounds."""
    import matplotlib.pyplot as plt

    K = len(steps_b)
    fig, axes = plt.subplots(1, K + 1, figsize=(3.2 * (K + 1), 3.8), sharex=True, sharey=True)
    lim = _limits(X, y)
    for t, ax in enumerate(axes[:K]):
        _scatter(ax, X, y)
        prev = [j for j in range(t) if steps_active[j]]
        Z = X[(y == 0) & _inside(X, steps_W, steps_b, prev)]
        if len(Z) > 2:
            mu, S = Z.mean(axis=0), np.cov(Z, rowvar=False, bias=True)
            for r in (1, 2):
                e = covariance_ellipse(mu, S, r)
                ax.plot(e[:, 0], e[:, 1], c="tab:orange", lw=1)
        for j in prev:
            draw_halfplane(ax, steps_W[j], steps_b[j], lim, c="0.5", lw=1)
        if steps_active[t]:
            draw_halfplane(ax, steps_W[t], steps_b[t], lim, c="k", lw=2)
        ax.set_title(f"greedy step {t + 1}" + ("" if steps_active[t] else " (inactive)"), fontsize=9)
    ax = axes[K]
    _scatter(ax, X, y)
    for k in np.flatnonzero(active):
        draw_halfplane(ax, W[k], b[k], lim, c="k", lw=2)
    ax.set_title(f"final ({rounds} refinement round(s))", fontsize=9)
    for ax in axes:
        ax.set_xlim(lim[0], lim[1])
        ax.set_ylim(lim[2], lim[3])
        ax.set_aspect("equal")
    axes[0].legend(loc="lower left", fontsize=7)
    fig.tight_layout()
    return fig


def _decision_image(ax, lim, score_fn, color):
    xs, ys = np.meshgrid(np.linspace(lim[0], lim[1], 200), np.linspace(lim[2], lim[3], 200))
    S = score_fn(np.column_stack([xs.ravel(), ys.ravel()])).reshape(xs.shape)
    ax.contourf(xs, ys, S >= 0, levels=[0.5, 1.5], colors=[color], alpha=0.2)
    ax.contour(xs, ys, S, levels=[0.0], colors=[color], linewidths=1.5)


def _component_score(W, b):
    W, b = np.asarray(W, float), np.asarray(b, float)
    if W.ndim == 2:  # one hyperplane per component (LDA union)
        return lambda P: (P @ W.T + b).max(axis=1)
    return lambda P: np.max([np.min(P @ Wc.T + bc, axis=1) for Wc, bc in zip(W, b)], axis=0)


def plot_fig7(X, y, results: dict):
    """Fig. 7: the LHM's positive region (left, when run) and the union of LDAs after k-means (right)."""
    import matplotlib.pyplot as plt

    order = [m for m in ("LHM", "LHM (single-linkage start)", "Union of LDAs") if m in results]
    fig, axes = plt.subplots(1, len(order), figsize=(4.5 * len(order), 4.2), squeeze=False)
    lim = _limits(X, y)
    for ax, method in zip(axes[0], order):
        r = results[method]
        _scatter(ax, X, y)
        _decision_image(ax, lim, _component_score(r["W"], r["b"]), "tab:green")
        ax.set_title(f"{method}: test AUC {100 * r['auc_test']:.1f} %", fontsize=9)
        ax.set_xlim(lim[0], lim[1])
        ax.set_ylim(lim[2], lim[3])
        ax.set_aspect("equal")
    fig.tight_layout()
    return fig


def plot_fig8(X, y, lhm: dict, n_iterations: int = 4):
    """Fig. 8: the positives' assignment after each of the first iterations of LHM from a random start, and the
    risk per iteration."""
    import matplotlib.pyplot as plt

    A = np.asarray(lhm["assignments"])
    panels = [np.asarray(lhm["init"])] + [A[i] for i in range(min(n_iterations, len(A)))]
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(3.2 * (len(panels) + 1), 3.3))
    P = X[y > 0]
    for i, (ax, a) in enumerate(zip(axes, panels)):
        ax.scatter(X[y == 0, 0], X[y == 0, 1], s=2, c="0.8")
        ax.scatter(P[:, 0], P[:, 1], s=6, c=a, cmap="tab10", vmin=0, vmax=9)
        ax.set_title("random assignment" if i == 0 else f"iteration {i}", fontsize=9)
        ax.set_aspect("equal")
    risk = np.asarray(lhm["risk"], float)
    axes[-1].plot(np.arange(1, len(risk) + 1), risk, marker="o")
    axes[-1].set_xlabel("iteration")
    axes[-1].set_ylabel("empirical latent risk (eq. 20)")
    axes[-1].grid(alpha=0.3)
    fig.tight_layout()
    return fig


def plot_transfer(rows, ylabel: str, xlabel: str):
    """Figs. 10-11 analogue: one panel per setting (best / worst case), a line per method, ``value`` vs ``size``
    (rows of `experiment.transfer_rows`)."""
    import matplotlib.pyplot as plt

    settings = [s for s in ("best", "worst") if any(r["setting"] == s for r in rows)]
    fig, axes = plt.subplots(1, len(settings), figsize=(5 * len(settings), 3.8), squeeze=False)
    for ax, setting in zip(axes[0], settings):
        sub = [r for r in rows if r["setting"] == setting]
        for method in dict.fromkeys(r["method"] for r in sub):
            rs = sorted((r for r in sub if r["method"] == method), key=lambda r: r["size"])
            ax.plot([r["size"] for r in rs], [r["value"] for r in rs], marker="o",
                    lw=2.5 if method.startswith("LHM") else 1.2, label=method)
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{setting} case", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
