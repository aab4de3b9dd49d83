"""The runner's tasks: Table 1 (one fit of eq. (1) per eta), Fig. 2 (hole punching per split) and the
Theta-normalisation study.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from certiprog.experiments.runner import Task

from ..tables import DIGITS
from .config import FIRST_SPLIT, STUDY_READINGS, VERSION, Config, validate_config
from .data import _cached_graph, _chosen_lam, _data, _rho, digit_splits, split_label

_SHARED = ("seed", "neighbourhood", "lam", "lam_grid", "validation", "tol")


def tasks(cfg: Config) -> list:
    """One `Task` per eta of Table 1 and per (split, eta) of Fig. 2, in report order."""
    validate_config(cfg)
    shared = {k: getattr(cfg, k) for k in _SHARED}
    extra = dict(data_root=cfg.data_root)
    out = [Task(f"table1 eta={float(eta):g}", table1_task,
                dict(shared, eta=float(eta), n_train=cfg.n_train, n_test=cfg.n_test), VERSION, extra=extra)
           for eta in cfg.etas]
    if cfg.fig2:
        runs = [[0.0, "printed"]] + [[float(cfg.hp_eta), v] for v in cfg.hp_normalisations]
        for pos in digit_splits(cfg.splits, cfg.seed):
            out.append(Task(f"fig2 {split_label(pos)}", fig2_task,
                            dict(shared, runs=runs, positive=list(pos), n_train=cfg.fig2_train,
                                 n_test=cfg.fig2_test, n_holes=cfg.n_holes,
                                 rules=[[float(f), int(k)] for f, k in cfg.hp_rules]), VERSION, extra=extra))
    if cfg.study:
        for nb in cfg.study_neighbourhoods:
            out.append(Task(f"study neighbourhood={float(nb):g}", study_task,
                            dict(seed=cfg.seed, tol=cfg.tol, neighbourhood=float(nb), n_train=cfg.study_train,
                                 n_test=min(cfg.n_test, 10_000), lams=[float(v) for v in cfg.study_lams],
                                 etas=[float(v) for v in cfg.study_etas], readings=list(STUDY_READINGS)),
                            VERSION, extra=extra))
    return out


def _per_digit(pred, y, digits) -> tuple:
    err = np.zeros(10)
    count = np.bincount(np.asarray(digits, int), minlength=10)
    for k in DIGITS:
        sel = digits == k
        err[k] = float(np.mean(pred[sel] != y[sel])) if sel.any() else np.nan
    return err, count


def table1_task(config: dict, data_root=None) -> dict:
    """Fit w_eta on the training part (rho and lam by the module's rules) and score it per digit on the test part;
    also the training decision values of the 0's and 1's (Fig. 1)."""
    from threadpoolctl import threadpool_limits

    from ..learner import fit_error_clumping

    t0 = time.perf_counter()
    with threadpool_limits(1):
        d = _data(FIRST_SPLIT, config["seed"], config["n_train"], config["n_test"], data_root)
        X, y = d["X"], d["y"]
        rho = _rho(X, config["neighbourhood"])
        chosen = _chosen_lam(FIRST_SPLIT, config, data_root)
        if config["eta"] > 0:
            A, graph_seconds, reused = _cached_graph(FIRST_SPLIT, config, data_root, rho)
        else:  # eta = 0: Theta = I whatever the graph
            import scipy.sparse as sp

            A, graph_seconds, reused = sp.csr_matrix((X.shape[0], X.shape[0])), 0.0, False
        t2 = time.perf_counter()
        fit = fit_error_clumping(X, y, rho, config["eta"], chosen["lam"], "auto", graph=A, tol=config["tol"])
        t3 = time.perf_counter()
    pred = np.where(d["Xt"] @ fit.w > 0, 1.0, -1.0)
    err, count = _per_digit(pred, d["yt"], d["digit_t"])
    sel = d["digit"] <= 1
    d_max = int(np.diff(A.indptr).max()) if A.nnz else 0
    return dict(eta=config["eta"], rho=rho, lam=chosen["lam"], lam_choice=chosen, m=int(X.shape[0]),
                n_test=int(d["Xt"].shape[0]), nnz=int(A.nnz), mean_degree=float(A.nnz / X.shape[0]),
                max_degree=d_max, clumping_reach=float(config["eta"] * d_max / (X.shape[0] - 1)),
                graph_seconds=graph_seconds, graph_reused=reused, solve_seconds=t3 - t2,
                certificate=fit.certificate.to_json(), solver=fit.solver, status=fit.status,
                iterations=len(fit.history), error=err, count=count, overall=float(np.mean(pred != d["yt"])),
                train_error=float(np.mean(np.where(X @ fit.w > 0, 1.0, -1.0) != y)), w=np.asarray(fit.w),
                fig1_score=X[sel] @ fit.w, fig1_digit=np.asarray(d["digit"][sel], np.int64),
                seconds=time.perf_counter() - t0)


def _fit_part(n: int, validation: float) -> int:
    """Points of the fitting part: the training part minus its last round(n validation) (the lam rule's split)."""
    return n - int(round(n * validation))


@functools.lru_cache(maxsize=1)
def _fit_graph(positive: tuple, seed: int, n_train: int, n_test: int, root, rho: float, n_fit: int) -> tuple:
    """The rho-graph of the fitting part's pixels and the seconds it took."""
    from ..graph import radius_graph

    t0 = time.perf_counter()
    A = radius_graph(_data(positive, seed, n_train, n_test, root)["X"][:n_fit, :-1], rho)
    return A, time.perf_counter() - t0


def fig2_task(config: dict, data_root=None) -> dict:
    """Hole punching on one split, for each (eta, normalisation) of ``config['runs']`` (eta = 0: no clumping) and
    each radius rule (error_fraction, min_hole_size) of ``config['rules']`` (the paper's: (0.5, 1)), on the fitting
    part; each hole's classifier (the constant or eq. (1) at a lambda of the lam grid) is chosen on the validation
    part, and so is the rule (fewest validation errors after the last round; ties: the earlier rule). The test
    error after every round (`staged_predict`) of every rule is kept. Returns dict(runs=[one dict per run])."""
    import warnings

    from threadpoolctl import threadpool_limits

    from ..estimator import HolePunchingClassifier

    pos = tuple(config["positive"])
    runs = []
    with threadpool_limits(1):
        d = _data(pos, config["seed"], config["n_train"], config["n_test"], data_root)
        n_fit = _fit_part(d["X"].shape[0], config["validation"])
        Xf, yf = d["X"][:n_fit, :-1], d["y"][:n_fit]
        Xv, yv = d["X"][n_fit:, :-1], d["y"][n_fit:]
        Xt = d["Xt"][:, :-1]
        rho = _rho(d["X"][:n_fit], config["neighbourhood"])
        chosen = _chosen_lam(pos, config, data_root)
        A, graph_seconds = _fit_graph(pos, config["seed"], config["n_train"], config["n_test"], data_root, rho,
                                      n_fit)
        for eta, normalisation in config["runs"]:
            t0 = time.perf_counter()
            rules: list[dict] = []
            for frac, size in config["rules"]:
                est = HolePunchingClassifier(n_holes=config["n_holes"], rho=rho, eta=float(eta), lam=chosen["lam"],
                                             tol=config["tol"], progress=False, normalisation=normalisation,
                                             error_fraction=float(frac), min_hole_size=int(size),
                                             hole_lams=list(config["lam_grid"]))
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", RuntimeWarning)
                    est.fit(Xf, yf, graph=A, X_val=Xv, y_val=yv)
                rules.append(dict(
                    error_fraction=float(frac), min_hole_size=int(size),
                    test_error=[float(np.mean(p != d["yt"])) for p in est.staged_predict(Xt)],
                    validation_error=[float(np.mean(p != yv)) for p in est.staged_predict(Xv)],
                    train_error=[float(h["training_error"]) for h in est.history_], n_holes=int(est.n_holes_),
                    stop_reason=est.stop_reason_, uncertified_warnings=len(caught),
                    holes=[dict(radius=float(h["radius"]), n_points=int(h["n_points"]), kind=h["kind"],
                                lam=h.get("lam"), errors_before=int(h["errors_before"]),
                                errors_after=int(h["errors_after"]),
                                verdict=(h.get("certificate") or {}).get("verdict")) for h in est.holes_],
                    base_certificate=dict(est.certificate_)))
            best = min(range(len(rules)), key=lambda i: (rules[i]["validation_error"][-1], i))
            runs.append(dict(positive=list(pos), split=split_label(pos), eta=float(eta),
                             normalisation=normalisation if eta > 0 else "none", rho=rho, lam=chosen["lam"],
                             lam_choice=chosen, m=int(n_fit), n_validation=int(yv.size), n_test=int(Xt.shape[0]),
                             rules=rules, chosen_rule=best, test_error=rules[best]["test_error"],
                             train_error=rules[best]["train_error"], n_holes=rules[best]["n_holes"],
                             graph_seconds=graph_seconds, nnz=int(A.nnz), seconds=time.perf_counter() - t0))
    return dict(runs=runs)


def _eig_max(W) -> float:
    """lambda_max of a symmetric sparse matrix by ARPACK (an independent check of the proved bound)."""
    import scipy.sparse.linalg as sla

    if W.nnz == 0:
        return 0.0
    return float(sla.eigsh(W, k=1, which="LA", return_eigenvectors=False, tol=1e-10,
                           v0=np.ones(W.shape[0]))[0])


def study_task(config: dict, data_root=None) -> dict:
    """The Theta-normalisation study on 0-4 vs 5-9 at one neighbourhood size: for every lambda of
    ``config['lams']``, w_0 and, for every reading of ``config['readings']`` and eta of ``config['etas']``, w_eta
    (the structured certified solver), scored per digit on the test part; each reading's proved bound of
    lambda_max(B)/eta against ARPACK's. A reading whose PSD cannot be proved at an eta is recorded as refused."""
    from threadpoolctl import threadpool_limits

    from certiprog.errors import InputError as _InputError

    from ..graph import radius_graph
    from ..learner import fit_error_clumping
    from ..normalisation import normalise

    t0 = time.perf_counter()
    with threadpool_limits(1):
        d = _data(FIRST_SPLIT, config["seed"], config["n_train"], config["n_test"], data_root)
        X, y = d["X"], d["y"]
        rho = _rho(X, config["neighbourhood"])
        A = radius_graph(X[:, :-1], rho)
        readings = []
        for name in config["readings"]:
            G = normalise(A, name)
            readings.append(dict(reading=name, rho_hi=G.rho_hi, lam_max=_eig_max(G.W) / G.den,
                                 eta_psd_max=min(1.0, 1.0 / G.rho_hi) if G.rho_hi > 0 else 1.0))
        rows = []
        for lam in config["lams"]:
            fits = [("none", 0.0)] + [(r, float(e)) for r in config["readings"] for e in config["etas"]]
            for name, eta in fits:
                try:
                    fit = fit_error_clumping(X, y, rho, eta, lam, "auto", graph=A, tol=config["tol"],
                                             normalisation="printed" if name == "none" else name)
                except _InputError as exc:
                    rows.append(dict(lam=lam, reading=name, eta=eta, refused=str(exc)[:200]))
                    continue
                pred = np.where(d["Xt"] @ fit.w > 0, 1.0, -1.0)
                err, count = _per_digit(pred, d["yt"], d["digit_t"])
                rows.append(dict(lam=lam, reading=name, eta=eta, error=err.tolist(),
                                 overall=float(np.mean(pred != d["yt"])),
                                 verdict=fit.certificate.verdict, objective=fit.objective,
                                 rel_gap=fit.certificate.rel_gap))
    return dict(study_rows=rows, neighbourhood=config["neighbourhood"], rho=rho, m=int(X.shape[0]),
                n_test=int(d["Xt"].shape[0]), count=count.tolist(), mean_degree=float(A.nnz / X.shape[0]),
                max_degree=int(np.diff(A.indptr).max()) if A.nnz else 0, readings=readings,
                seconds=time.perf_counter() - t0)


def _records(results: list) -> list:
    """Table 1's results and every Fig. 2 run (a Fig. 2 task holds one run per eta), in task order."""
    return [run for r in results for run in (r["runs"] if "runs" in r else [r])]
