"""KHHM on its (delta, lam) grid, the baselines (SVMs, AdaBoost) as the paper ran them and ours, timing.
"""
from __future__ import annotations

import time

import numpy as np

from certiprog.errors import InputError

from .config import ADA_RATES, LINEAR_C_GRID, PAPER_BASELINES, REFITS


def rounds_for(K: int, refits: int) -> int:
    """Refinement rounds of a K-plane fit that refits ``refits`` hyperplanes in all (Fig. 5's 25 iterations, `REFITS`):
    ceil(refits / K)."""
    return -(-int(refits) // int(K))


def _khhm_settings(config: dict, K: int, accept: str = "always") -> dict:
    """Alg. 1's settings for a K-plane fit from a task's config: a fixed number of rounds (`rounds_for`, eps None),
    the printed acceptance ``accept``, the best round by its tracked risk, the automatic start; backend."""
    return dict(backend=config.get("backend"), max_rounds=rounds_for(K, config.get("refits", REFITS)), eps=None,
                accept=accept, keep="best", start="auto")


def fit_khhm_grid(Xtr, ytr, Xval, yval, K: int, config: dict, metric, accept: str = "always") -> tuple:
    """KHHM (Alg. 1) chosen on the validation part: `estimator.select_on_grid` over ``delta_grid`` x ``lam_grid``
    (each fit checked by its KKT residuals), widened past an edge for the parameters in ``config["widen"]``; then the chosen fit is
    recomputed with every sub-problem certified (``config["certify"]``; the same solves, now with rigorous
    intervals). Returns ``(fit, params, validation value, verdicts of the final fit, GridChoice dict)``."""
    import warnings

    from ..estimator import WIDEN, select_on_grid
    from ..khhm import InfeasiblePlaneWarning, fit_khhm

    settings = _khhm_settings(config, K, accept)
    P, N = Xtr[ytr > 0], Xtr[ytr <= 0]

    def evaluate(params):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InfeasiblePlaneWarning)
            fit = fit_khhm(P, N, K=int(K), certify=False, **params, **settings)
        return fit, metric(yval, fit.decision(Xval))

    fit, choice = select_on_grid(evaluate, dict(delta=config["delta_grid"], lam=config["lam_grid"]),
                                 {k: WIDEN[k] for k in config.get("widen", ("delta", "lam"))})
    if config.get("certify", True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InfeasiblePlaneWarning)
            fit = fit_khhm(P, N, K=int(K), certify=True, **choice.params, **settings)
    return fit, dict(choice.params), float(choice.value), fit.verdicts, choice.to_dict()


def _khhm_summary(fit) -> dict:
    return dict(rounds=int(fit.rounds), best_round=int(fit.best_round), start=str(fit.start),
                n_active=int(np.sum(fit.active)), stop_reason=str(fit.stop_reason),
                worst_case_background=float(fit.worst_case_background), certified=bool(fit.certified),
                infeasible_planes=[dict(e) for e in fit.events], history=[r.to_dict() for r in fit.history])


def scored_and_timed(fn, X, repeat: int = 3) -> tuple:
    """``fn(X)`` and the best of ``repeat`` wall times of it, per row; the first timed call's output is the score
    (no extra, untimed evaluation: for an RBF SVM on Letter's test part that call costs as much as a timing)."""
    if int(repeat) < 1:
        raise InputError(f"repeat must be at least 1; got {repeat!r}")
    best, score = np.inf, None
    for _ in range(int(repeat)):
        t0 = time.perf_counter()
        out = fn(X)
        best = min(best, time.perf_counter() - t0)
        if score is None:
            score = out
    return score, float(best / len(X))


def _baseline(method: str, config: dict, Xtr, ytr, Xval, yval, metric, seed: int):
    """Fit a scikit-learn baseline on every value of its grid; the best by validation ``metric``:
    ``(decision function, params, validation value)``."""
    import warnings

    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    paper = method in PAPER_BASELINES
    kind = method.split(" (")[0]
    if kind == "Linear SVM":
        grid = [dict(kernel="linear", C=float(c)) for c in config.get("linear_C_grid", LINEAR_C_GRID)]
    elif kind == "RBF SVM":
        grid = [dict(kernel="rbf", C=float(c), gamma=float(g)) for c in config["C_grid"] for g in config["gamma_grid"]]
    elif kind == "AdaBoost":
        grid = ([dict(max_depth=1, learning_rate=float(r)) for r in config.get("ada_rates", ADA_RATES)] if paper
                else [dict(max_depth=int(d), learning_rate=1.0) for d in config["ada_depths"]])
    else:
        raise InputError(f"unknown baseline {method!r}")
    fits = []
    for params in grid:
        if kind == "AdaBoost":
            est = AdaBoostClassifier(DecisionTreeClassifier(max_depth=params["max_depth"]), n_estimators=100,
                                     learning_rate=params["learning_rate"], random_state=seed)
        else:  # libsvm's C-SVC; the paper's without class weights, ours balanced
            est = SVC(cache_size=500, class_weight=None if paper else "balanced", **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(Xtr, ytr > 0)
        fits.append(est)
    scores = (svc_decisions(fits, Xval) if kind != "AdaBoost"
              else [est.decision_function(Xval) for est in fits])
    best = None
    for est, params, score in zip(fits, grid, scores):
        value = metric(yval, score)
        if best is None or value > best[2]:
            best = (est.decision_function, params, float(value))
    return best


def svc_decisions(fits: list, X, chunk: int = 1024) -> list:
    """``est.decision_function(X)`` of every fitted binary `sklearn.svm.SVC` in ``fits`` (linear or RBF kernels, all
    trained on the same rows), from the dual: ``sum_i dual_coef_i k(x, sv_i) + intercept``. The squared distances
    from a block of ``chunk`` rows of X to the training rows are computed once and shared by every RBF fit (libsvm
    evaluates each fit's kernel row by row: on Letter's validation part the grid's 15 RBF decisions took 2/3 of a
    Table 2 task). Equal to libsvm's values up to rounding (tested)."""
    X = np.asarray(X, dtype=float)
    out = [np.empty(len(X)) for _ in fits]
    for est in fits:
        if est.kernel not in ("linear", "rbf") or len(est.classes_) != 2:
            raise InputError(f"svc_decisions takes binary linear or RBF SVCs; got kernel {est.kernel!r}")
    rbf = [j for j, est in enumerate(fits) if est.kernel == "rbf"]
    for j, est in enumerate(fits):
        if est.kernel == "linear":
            out[j][:] = X @ (est.support_vectors_.T @ est.dual_coef_[0]) + est.intercept_[0]
    if rbf:
        # the union of the RBF fits' support vectors (by training-row index): each fit's are a subset of it
        by_index: dict[int, np.ndarray] = {}
        for j in rbf:
            for i, v in zip(fits[j].support_, fits[j].support_vectors_):
                by_index.setdefault(int(i), v)
        sv_all = np.array(sorted(by_index))
        SV = np.stack([by_index[int(i)] for i in sv_all])
        cols = {j: np.searchsorted(sv_all, fits[j].support_) for j in rbf}
        sv_sq = np.einsum("ij,ij->i", SV, SV)
        for start in range(0, len(X), chunk):
            B = X[start:start + chunk]
            D = np.einsum("ij,ij->i", B, B)[:, None] - 2.0 * (B @ SV.T) + sv_sq[None, :]
            np.maximum(D, 0.0, out=D)
            for j in rbf:
                est = fits[j]
                out[j][start:start + len(B)] = (np.exp(-est._gamma * D[:, cols[j]]) @ est.dual_coef_[0]
                                                + est.intercept_[0])
    return out


def random_components(C: int, K: int, d: int, rng) -> list:
    """C components of K hyperplanes with N(0, 1/d) weights and zero biases: the random start of "NN"."""
    return [(rng.normal(scale=1 / np.sqrt(d), size=(K, d)), np.zeros(K)) for _ in range(C)]
