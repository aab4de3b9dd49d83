"""One (data set, proportion, partition) task: MPM and HP-MPM over their grids (shared `CoordinateCache` per width,
the chosen fit certified in full), the baselines, the selection.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from certiprog.errors import CertiprogError
from certiprog.formulations.hp_mpm_paper.estimator import CoordinateCache

from .baselines import _fit_fda, _fit_svm
from .config import Config
from .partitions import _scores, _scores_of, _select, best_threshold, partition, task_seed


def hp_mpm_uncertainty(R: float, m: int, delta: float, form: str = "eq8") -> float:
    """Eq. (8)'s A_j for a class of m points, before the nu scaling (`hp_mpm.uncertainty_terms`)."""
    from certiprog.formulations.hp_mpm_paper.hp_mpm import uncertainty_terms

    return uncertainty_terms(m, m, R, delta, 1.0, form)[0]


def nu_max(mean_gap: float, R: float, m1: int, m0: int, delta: float, form: str = "eq8") -> float:
    """Largest nu with a meaningful HP-MPM solution (`hp_mpm.nu_max`); ``mean_gap`` = ||x̂1 - x̂0|| (feature space)."""
    from certiprog.formulations.hp_mpm_paper.hp_mpm import nu_max as _nu_max

    return _nu_max(mean_gap, R, m1, m0, delta, form)


def _mean_gap(X1, X0, gamma=None) -> float:
    """||x̂1 - x̂0||, in the Gaussian feature space when ``gamma`` is given (via the Gram blocks)."""
    if gamma is None:
        return float(np.linalg.norm(X1.mean(axis=0) - X0.mean(axis=0)))
    from sklearn.metrics.pairwise import rbf_kernel

    sq = rbf_kernel(X1, X1, gamma=gamma).mean() + rbf_kernel(X0, X0, gamma=gamma).mean() \
        - 2 * rbf_kernel(X1, X0, gamma=gamma).mean()
    return float(np.sqrt(max(sq, 0.0)))


def run_task(X: np.ndarray, y: np.ndarray, name: str, proportion: float, k: int, cfg: Config) -> dict:
    """Fit and select every method on one random partition; returns the record stored in results.json."""
    from certiprog.datasets import standardize_fill_missing

    t0 = time.perf_counter()
    train, val, test = partition(y, proportion, cfg.validation, task_seed(cfg, name, proportion, k))
    Z = standardize_fill_missing(X, ref=X[train])
    parts = dict(train=(Z[train], y[train]), val=(Z[val], y[val]), test=(Z[test], y[test]))
    # R (paper Sec. 4: "estimated from the training sample"): Prop. 1 needs ||x|| <= R, so no smaller R is allowed;
    # a larger one only rescales nu (A_j is proportional to nu R^2). k(x, x) = 1 for the Gaussian kernel.
    R = 1.0 if cfg.kernel else float(np.linalg.norm(parts["train"][0], axis=1).max())
    rec: dict[str, Any] = dict(dataset=name, proportion=proportion, partition=k,
                               seed=task_seed(cfg, name, proportion, k), n_train=len(train), n_val=len(val),
                               n_test=len(test), R=R, kernel=cfg.kernel)
    widths = cfg.sigma if cfg.kernel else (None,)
    # the kernel factorisation and the moments depend on (training data, width) only: one per width, shared by
    # the MPM and every nu (CoordinateCache)
    caches = {s: CoordinateCache() for s in widths}
    # a width grid's fits skip the certificate; the chosen one is refitted (from the cache) with it
    one = len(widths) == 1
    rec["MPM"] = _select([_fit_mpm(parts, s, cfg, caches[s], "full" if one else False) for s in widths])
    if not one and rec["MPM"].get("error") is None:
        sigma = rec["MPM"]["params"]["sigma"]
        chosen = _fit_mpm(parts, sigma, cfg, caches[sigma], "full")
        rec["MPM"].update({k: chosen.get(k) for k in ("certificate", "certificate_interval", "certified_kappa")})
    hp = _fit_hp_mpm(parts, widths, R, cfg, caches)
    rec["HP-MPM"] = _select([c for c in hp if c["meaningful"]] or [c for c in hp if c.get("error")])
    rec["HP-MPM"].update(_hp_summary(hp, rec["HP-MPM"]))
    if rec["HP-MPM"].get("error") is None:
        rec["HP-MPM"].update(_certify_chosen(parts, rec["HP-MPM"]["params"], R, cfg, caches))
    rec["bHP-MPM"] = _select([c["biased"] for c in hp if c["meaningful"]])
    rec["SVM"] = _select([_fit_svm(parts, C, s) for s in widths for C in cfg.C])
    rec["FDA"] = _select([_fit_fda(parts, lam, s) for s in widths for lam in cfg.lam])
    rec["time_s"] = time.perf_counter() - t0
    return rec


def _kernel_args(sigma):
    return {} if sigma is None else dict(kernel="rbf", gamma=1.0 / sigma)


def _quiet_fit(est, X, y, cache=None):
    """fit without the estimators' status warnings (the status is recorded in the results instead); ``cache``: the
    `CoordinateCache` of this training set and width."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return est.fit(X, y, cache=cache)


def _fit_mpm(parts, sigma, cfg, cache=None, certify="full") -> dict:
    """The MPM at one width; ``certify`` False for the points of a width grid (`run_task` certifies the chosen
    one), else its certificate's verdict and rigorous interval around kappa*^{-1} are recorded."""
    from certiprog.estimators import MPMClassifier

    X, y = parts["train"]
    t = time.perf_counter()
    try:
        est = _quiet_fit(MPMClassifier(backend=cfg.backend, solver=cfg.solver, certify=certify,
                                       **_kernel_args(sigma)), X, y, cache)
    except CertiprogError as exc:
        return dict(error=f"{type(exc).__name__}: {exc}", params=dict(sigma=sigma))
    out = _scores(parts, est.predict)
    out.update(params=dict(sigma=sigma), kappa=float(est.kappa_), bound=float(est.worst_case_error_),
               status=str(est.status_), fit_s=time.perf_counter() - t)
    if certify:
        cert = est.solution_.get("certificate") or {}
        interval = est.solution_.get("interval")
        out.update(certificate=cert.get("verdict"), certificate_interval=interval, certified_kappa=out["kappa"])
    return out


def _fit_hp_mpm(parts, widths, R, cfg, caches=None) -> list:
    """HP-MPM for every (sigma, nu) of the grids; when no pair gives a meaningful solution (kappa* > 0), every
    width is refitted on nu_max(width) times the paper's fractions below 1 (marked grid="extended"). The grid's
    fits skip the certificate of their last SOCP (their kappa bracket comes from the bisection's attained root and
    weak-duality bound either way); `_certify_chosen` certifies the chosen one in full. ``caches``: a
    `CoordinateCache` per width."""
    caches = caches if caches is not None else {s: None for s in widths}
    X, y = parts["train"]
    m1, m0 = int((y > 0).sum()), int((y < 0).sum())
    runs = []
    for sigma in widths:
        gap = _mean_gap(X[y > 0], X[y < 0], None if sigma is None else 1.0 / sigma)
        numax = nu_max(gap, R, m1, m0, cfg.delta)
        runs += [dict(_fit_one_hp(parts, nu, sigma, R, cfg, "paper", caches[sigma]), nu_max=numax)
                 for nu in cfg.nu]
    if not any(r["meaningful"] for r in runs):
        fractions = [f for f in cfg.nu if f < 1.0] or [0.5]
        for sigma, numax in {r["params"]["sigma"]: r["nu_max"] for r in runs}.items():
            runs += [dict(_fit_one_hp(parts, f * numax, sigma, R, cfg, "extended", caches[sigma]), nu_max=numax)
                     for f in fractions]
    return runs


def _hp_estimator(nu, sigma, R, cfg, certify):
    from certiprog.estimators import HPMPMClassifier

    return HPMPMClassifier(delta=cfg.delta, nu=float(nu), R=R, backend=cfg.backend, solver=cfg.solver,
                           certify=certify, **_kernel_args(sigma))


def _certify_chosen(parts, params, R, cfg, caches) -> dict:
    """The chosen HP-MPM refitted with the full certificate of its last SOCP (`HPMPMClassifier` certify='full'):
    the verdict, the rigorous interval around that SOCP's optimum (ball arithmetic; at kappa* the optimum g(kappa*)
    is 0 and the interval a few 1e-13 wide) and the bisection's kappa bracket. The refit is the grid's fit (same data, nu, width, solver): its kappa is the
    chosen one (``certified_kappa``, recorded to show it)."""
    X, y = parts["train"]
    est = _quiet_fit(_hp_estimator(params["nu"], params["sigma"], R, cfg, "full"), X, y, caches[params["sigma"]])
    cert = est.solution_.get("certificate") or {}
    interval = cert.get("interval")
    return dict(certificate=cert.get("verdict"), certificate_interval=None if interval is None else
                [float(v) for v in interval], kappa_bracket=[float(k) for k in est.kappa_bracket_],
                certified_kappa=float(est.kappa_))


def _fit_one_hp(parts, nu, sigma, R, cfg, grid, cache=None) -> dict:
    X, y = parts["train"]
    params = dict(nu=float(nu), sigma=sigma, grid=grid)
    t = time.perf_counter()
    try:
        est = _quiet_fit(_hp_estimator(nu, sigma, R, cfg, False), X, y, cache)
    except CertiprogError as exc:
        return dict(error=f"{type(exc).__name__}: {exc}", params=params, meaningful=False)
    meaningful = est.status_ in ("optimal", "inaccurate") and float(est.kappa_) > 0
    out = dict(params=params, kappa=float(est.kappa_), bound=float(est.worst_case_error_), status=str(est.status_),
               meaningful=meaningful, fit_s=time.perf_counter() - t)
    if not meaningful:
        return out
    # the decision values once per part, for both rules (est.predict is classes_[score > 0])
    values = {part: est.decision_function(Z) for part, (Z, _) in parts.items()}
    pos, neg = est.classes_[1], est.classes_[0]
    out.update(_scores_of(parts, lambda part: np.where(values[part] > 0, pos, neg)))
    threshold = best_threshold(values["train"], np.where(y == pos, 1, -1))
    out["biased"] = dict(params=dict(params, threshold=threshold),
                         **_scores_of(parts, lambda part: np.where(values[part] >= threshold, pos, neg)))
    return out


def _hp_summary(runs: list, chosen: dict) -> dict:
    """What the table reports about the nu grid: extended or not, and the bound at nu = 1 (the statistically valid
    one, 1 where kappa* = 0) for the chosen kernel width."""
    sigma = (chosen.get("params") or {}).get("sigma")
    at_one = [r for r in runs if r["params"]["grid"] == "paper" and r["params"]["nu"] == 1.0
              and r["params"]["sigma"] == sigma]
    return dict(grid_extended=any(r["params"]["grid"] == "extended" for r in runs),
                n_meaningful_paper_grid=sum(r["meaningful"] for r in runs if r["params"]["grid"] == "paper"),
                bound_nu1=(at_one[0].get("bound", 1.0) if at_one[0]["meaningful"] else 1.0) if at_one else None,
                nu_max=next((r["nu_max"] for r in runs if r["params"]["sigma"] == sigma), None))
