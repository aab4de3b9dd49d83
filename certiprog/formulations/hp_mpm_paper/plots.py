"""Plots: paper 004's Figure 1 (MPM and HP-MPM ellipsoids in 2-D) and the accuracy-vs-training-proportion grid.

matplotlib is imported inside the functions (optional dependency, ``pip install certiprog[plots]``).

Figure 1, what is drawn and why (derived from 004 Sec. 4, checked numerically in tests/test_experiment_hp_mpm.py):

* MPM (Lanckriet et al.): E_j(kappa) = {x̂_j + Σ̂_j^{1/2} u : ||u|| <= kappa}, i.e.
  {x : (x - x̂_j)^T Σ̂_j^{-1} (x - x̂_j) <= kappa^2}. For unit w the smallest value of w^T x over E_1(kappa) is
  w^T x̂_1 - kappa sqrt(w^T Σ̂_1 w) (support function), so the MPM hyperplane w*^T x = b* of eq. (4) touches
  E_1(kappa*) and E_0(kappa*) and the two ellipsoids touch each other there.
* HP-MPM, eq. (11): Ê_j(kappa) = {x̂_j + Σ̃_j(kappa)^{1/2} u : ||u|| <= kappa},
  Σ̃_j = Σ̂_j + (A_j + 2 A_j/kappa^2) I, i.e. the ellipse x̂_j + M_j^{1/2} u, ||u|| <= 1, with
  M_j = kappa^2 Σ̂_j + (kappa^2 + 2) A_j I (defined at kappa = 0 too: a circle of radius sqrt(2 A_j), the
  "almost spherical" start of the paper's caption). Its support function in a unit direction w is
  sqrt(w^T M_j w) = sqrt(2 A_j + kappa^2 (w^T Σ̂_j w + A_j)), the square root of eq. (10); so h(w, kappa) = 0 says
  exactly that the hyperplane w^T x = b, b = w^T x̂_1 - sqrt(w^T M_1 w), is tangent to Ê_1(kappa) AND to Ê_0(kappa).
  The paper's Algorithm 1 alternates a kappa-step (grow kappa until h(w, kappa) = 0 for the current w: a tangent
  hyperplane, the ellipsoids still apart) and a w-step (w <- argmax_{||w|| <= 1} h(w, kappa)); at the optimum the
  two regularised ellipsoids also touch each other.
* The figure draws Ê_j(kappa) for kappa = 0, kappa*/n, ..., kappa* (circles first, then the shape of Σ̂_j takes
  over, as the caption says; the optimum in bold) and the hyperplanes of Algorithm 1's kappa-steps (dotted). The path
  is `certiprog.formulations.hp_mpm_paper.hp_mpm.algorithm1` (the one Alg. 1, exact SOCP w-steps), so it needs 2-4
  steps; the paper's partial gradient w-steps take more, smaller ones.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from certiprog.errors import InputError
from certiprog.model import Record

__all__ = ["HPMPMPath", "figure1_data", "hp_mpm_path_2d", "plot_accuracy_vs_proportion", "plot_mpm_ellipsoids"]


def figure1_data(seed: int = 0, m1: int = 20, m0: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Two 2-D Gaussian classes in the setting of 004's Figure 1 (m1 = 20, m0 = 200): ``(X1, X0)``."""
    rng = np.random.default_rng(seed)
    L1 = np.array([[1.0, 0.0], [0.6, 0.5]])
    L0 = np.array([[0.8, 0.0], [-0.3, 0.6]])
    X1 = rng.standard_normal((m1, 2)) @ L1.T + np.array([2.5, 1.5])
    X0 = rng.standard_normal((m0, 2)) @ L0.T + np.array([-1.0, -0.5])
    return X1, X0


def _check_2d(X, name):
    X = np.asarray(X, float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise InputError(f"{name} must be an (m, 2) array of 2-D points, got shape {X.shape}")
    if X.shape[0] < 2:
        raise InputError(f"{name} needs at least 2 points (its covariance), got {X.shape[0]}")
    if not np.all(np.isfinite(X)):
        raise InputError(f"{name} contains NaN or inf; remove or impute those points")
    return X


@dataclass(frozen=True, eq=False)
class HPMPMPath(Record):
    """Alg. 1's path on 2-D data (`hp_mpm_path_2d`): ``kappas``, ``ws``, ``bs`` (each kappa-step, the w it was
    taken for and the tangent offset b = w^T x̂1 - sqrt(w^T M_1 w)), the optimum ``kappa``, ``w``, ``b``, ``A1``,
    ``A0``, ``nu``, ``nu_max``, ``R``, the moments ``mu1``, ``mu0``, ``Sigma1``, ``Sigma0``, ``meaningful``
    (kappa* > 0) and ``result`` (the `HPMPMResult` of `algorithm1`)."""

    kappas: list
    ws: list
    bs: list
    kappa: float
    w: np.ndarray
    b: float
    A1: float
    A0: float
    nu: float
    nu_max: float
    R: float
    mu1: np.ndarray
    mu0: np.ndarray
    Sigma1: np.ndarray
    Sigma0: np.ndarray
    meaningful: bool
    result: object


def hp_mpm_path_2d(X1, X0, nu: float | None = None, delta: float = 0.1, R: float | None = None,
                   tol: float = 1e-9, max_iter: int = 100, form: str = "eq8", backend: str | None = None) -> HPMPMPath:
    """The paper's Algorithm 1 (guard and b* corrected, docs/derivations/004.md items 1-2) on 2-D data: `algorithm1`
    with ``eps_kappa = eps_w = tol``; ``A_j = nu * 2R^2/sqrt(m_j) (2 + sqrt(2 ln(c/delta)))`` (eq. 8, ``form`` picks
    c, `uncertainty_terms`).

    ``R`` defaults to the largest norm of a point; ``nu=None`` takes 0.3 * nu_max, where nu_max is the largest nu
    with kappa* > 0 (`nu_max`). Returns an `HPMPMPath`.
    """
    from certiprog.formulations.hp_mpm_paper.hp_mpm import HPMPMProblem, algorithm1
    from certiprog.formulations.hp_mpm_paper.mpm import class_moments, mpm_moments

    X1, X0 = _check_2d(X1, "X1"), _check_2d(X0, "X0")
    mom = class_moments(X1, X0, reduce=False)
    full = HPMPMProblem(mom, delta, 1.0, R, form, var_name="w")
    numax = full.nu_max
    nu = 0.3 * numax if nu is None else float(nu)
    if not nu > 0:
        raise InputError(f"nu must be positive, got {nu}")
    prob = HPMPMProblem(mom, delta, nu, full.R, form, var_name="w")
    res = algorithm1(prob, backend, eps_kappa=tol, eps_w=tol, max_iter=max_iter, certify=False)
    kappas = [h["kappa"] for h in res.history]
    ws = [h["v"] for h in res.history]
    sample = mpm_moments(X1, X0)
    return HPMPMPath(kappas=kappas, ws=ws, bs=[prob.b_pair(w, k)[0] for w, k in zip(ws, kappas)], kappa=res.kappa,
                     w=res.weights, b=res.b, A1=prob.A1, A0=prob.A0, nu=nu, nu_max=numax, R=prob.R, mu1=sample.mu1,
                     mu0=sample.mu0, Sigma1=sample.Sigma1, Sigma0=sample.Sigma0,
                     meaningful=res.status != "no_meaningful_solution", result=res)


def _ellipse(center, M, n=200):
    """Boundary of {center + M^{1/2} u : ||u|| <= 1}."""
    ev, U = np.linalg.eigh(0.5 * (M + M.T))
    F = (U * np.sqrt(np.clip(ev, 0, None))) @ U.T
    t = np.linspace(0, 2 * np.pi, n)
    return center + np.stack([np.cos(t), np.sin(t)], axis=1) @ F.T


def _line(ax, w, b, lim, **kw):
    """Draw {x : w^T x = b} across the box ``lim`` = (xmin, xmax, ymin, ymax)."""
    x0, x1, y0, y1 = lim
    if abs(w[1]) > abs(w[0]):
        xs = np.array([x0, x1])
        ax.plot(xs, (b - w[0] * xs) / w[1], **kw)
    else:
        ys = np.array([y0, y1])
        ax.plot((b - w[1] * ys) / w[0], ys, **kw)


def plot_mpm_ellipsoids(X1=None, X0=None, nu: float | None = None, delta: float = 0.1, R: float | None = None,
                        n_mpm: int = 4, backend: str | None = None, form: str = "eq8"):
    """004 Figure 1 in two panels: (a) the MPM ellipsoids E_j(kappa) for kappa = kappa*/n_mpm, ..., kappa* with the
    MPM hyperplane (from `certiprog.formulations.hp_mpm_paper.mpm`, solved on ``backend``) tangent to both at kappa*; (b) the
    HP-MPM regularised ellipsoids Ê_j(kappa) of eq. (11) for kappa = 0, kappa*/n_mpm, ..., kappa*
    (`hp_mpm_path_2d`), with the hyperplanes of Algorithm 1's kappa-steps (dotted) and the optimum (bold).
    Default data: `figure1_data()` (m1 = 20, m0 = 200).
    Returns the matplotlib Figure; the computed path is in ``fig.hp_mpm_path`` and the MPM numbers in
    ``fig.mpm_solution``."""
    import matplotlib.pyplot as plt

    from certiprog.formulations import mpm

    if X1 is None and X0 is None:
        X1, X0 = figure1_data()
    elif X1 is None or X0 is None:
        raise InputError("give both classes X1 and X0, or neither (then figure1_data() is used)")
    X1, X0 = _check_2d(X1, "X1"), _check_2d(X0, "X0")
    if int(n_mpm) < 1:
        raise InputError(f"n_mpm must be >= 1, got {n_mpm}")
    model = mpm(X1, X0)
    sol = model.solve(backend=backend)
    mp = model.derived(sol)
    path = hp_mpm_path_2d(X1, X0, nu=nu, delta=delta, R=R, form=form, backend=backend)

    pts = np.vstack([X1, X0])
    pad = 0.25 * np.ptp(pts, axis=0) + 0.5
    lim = (pts[:, 0].min() - pad[0], pts[:, 0].max() + pad[0], pts[:, 1].min() - pad[1], pts[:, 1].max() + pad[1])
    fig, axes = plt.subplots(1, 2, figsize=(11, 5), constrained_layout=True)
    colors = {1: "tab:red", 0: "tab:blue"}
    for ax in axes:
        ax.scatter(*X1.T, s=14, c=colors[1], label=f"class 1 (m1 = {len(X1)})")
        ax.scatter(*X0.T, s=8, c=colors[0], alpha=0.6, label=f"class 0 (m0 = {len(X0)})")
        ax.set_xlim(lim[:2])
        ax.set_ylim(lim[2:])
        ax.set_aspect("equal")

    ax = axes[0]
    k_mpm = mp.kappa
    for i, k in enumerate(np.linspace(k_mpm / n_mpm, k_mpm, int(n_mpm)) if np.isfinite(k_mpm) else []):
        last = i == n_mpm - 1
        for j, (mu, S) in ((1, (mp.mu1, mp.Sigma1)), (0, (mp.mu0, mp.Sigma0))):
            e = _ellipse(mu, k * k * S)
            ax.plot(*e.T, c=colors[j], lw=2.0 if last else 0.8, alpha=1.0 if last else 0.5)
    _line(ax, mp.w, mp.b, lim, c="k", lw=1.5, label=f"MPM hyperplane, κ* = {k_mpm:.3g}")
    ax.set_title("(a) MPM: E_j(κ) for growing κ up to κ*")
    ax.legend(loc="lower right", fontsize=8)

    ax = axes[1]
    k_hp = path.kappa
    for i, k in enumerate(np.linspace(0.0, k_hp, int(n_mpm) + 1)):
        last = i == n_mpm
        for j, (mu, S, A) in ((1, (path.mu1, path.Sigma1, path.A1)), (0, (path.mu0, path.Sigma0, path.A0))):
            e = _ellipse(mu, k * k * S + (k * k + 2) * A * np.eye(2))
            ax.plot(*e.T, c=colors[j], lw=2.0 if last else 0.8, alpha=1.0 if last else 0.45)
    for w, b in zip(path.ws, path.bs):  # Alg. 1 kappa-steps: tangent to both Ê_j(kappa_t)
        _line(ax, w, b, lim, c="k", lw=0.6, ls=":", alpha=0.7)
    if path.meaningful:
        _line(ax, path.w, path.b, lim, c="k", lw=1.5, label=f"HP-MPM hyperplane, κ* = {path.kappa:.3g}")
    ax.set_title(f"(b) HP-MPM: Ê_j(κ), κ = 0 ... κ* (ν = {path.nu:.2g})")
    ax.legend(loc="lower right", fontsize=8)
    # the documented extras on matplotlib's Figure (a class whose attributes a checker cannot extend)
    fig.hp_mpm_path = path  # type: ignore[attr-defined]
    fig.mpm_solution = mp  # type: ignore[attr-defined]
    return fig


def plot_accuracy_vs_proportion(rows: list[dict], title: str = "", methods=None):
    """One panel per data set: our mean test accuracy ± std (solid, error bars) and the paper's (dashed) against the
    training proportion. ``rows`` as produced by `certiprog.formulations.hp_mpm_paper.experiment.summarise`. Returns the Figure."""
    import matplotlib.pyplot as plt

    if not rows:
        raise InputError("no rows to plot")
    methods = methods or list(dict.fromkeys(r["method"] for r in rows))
    names = list(dict.fromkeys(r["dataset"] for r in rows))
    ncol = min(4, len(names))
    nrow = -(-len(names) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4 * ncol, 3.2 * nrow), squeeze=False, constrained_layout=True)
    colors = dict(zip(methods, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for ax, name in zip(axes.flat, names):
        for m in methods:
            rs = sorted((r for r in rows if r["dataset"] == name and r["method"] == m), key=lambda r: r["proportion"])
            ours = [(r["proportion"], r["mean"], r["std"]) for r in rs if r["mean"] is not None]
            if ours:
                p, mean, std = map(np.array, zip(*ours))
                ax.errorbar(p, mean, yerr=std, c=colors[m], marker="o", ms=3, lw=1.2, capsize=2, label=m)
            paper = [(r["proportion"], r["paper"]) for r in rs if r.get("paper") is not None]
            if paper:
                p, v = map(np.array, zip(*paper))
                ax.plot(p, v, c=colors[m], ls="--", marker="x", ms=4, lw=0.9)
        ax.set_title(name)
        ax.set_xlabel("training proportion")
        ax.set_ylabel("test accuracy (%)")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7, title="solid: ours, dashed: paper", title_fontsize=7)
    if title:
        fig.suptitle(title)
    return fig
