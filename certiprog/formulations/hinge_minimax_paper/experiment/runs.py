"""The runner's tasks: Table 1, Fig. 5, Table 2, Figs. 7-8 (LHM and the union of LDAs) and Table 4.
"""
from __future__ import annotations

import time

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.runner import Task

from .config import (
    FIG78_LHM,
    PAPER_BASELINES,
    TABLE1_METHODS,
    TRANSFER_BINARY,
    TRANSFER_MULTI,
    VERSION,
    Config,
    network_library_installed,
    validate_config,
)
from .data import _seed, bayes_score, latent_toy, letter_split, load_letter, synthetic_2d
from .learners import _baseline, _khhm_settings, _khhm_summary, fit_khhm_grid, random_components, scored_and_timed
from .metrics import auc, eer
from .transfer import transfer_binary_task, transfer_multi_task

_GRID_FIELDS = ("delta_grid", "lam_grid", "C_grid", "gamma_grid", "ada_depths", "certify", "backend", "refits",
                "widen", "ada_rates", "linear_C_grid", "seed")


def tasks(cfg: Config) -> list:
    """One `Task` per (part, scenario, method)."""
    validate_config(cfg)
    common = {k: getattr(cfg, k) for k in _GRID_FIELDS}
    extra = dict(data_root=cfg.data_root)
    out = []
    if "table1" in cfg.parts:
        for f in cfg.t1_fractions:
            for rep in range(cfg.t1_reps):
                for method in TABLE1_METHODS:
                    conf = dict(common, fraction=float(f), rep=rep, n=cfg.t1_n, K=cfg.t1_K, method=method)
                    out.append(Task(f"table1 fraction={f:g} rep {rep} {method}", table1_task, conf, VERSION))
    if "fig5" in cfg.parts:
        conf = dict(common, fraction=float(cfg.fig5_fraction), rep=0, n=cfg.t1_n, K=cfg.t1_K)
        out.append(Task(f"fig5 fraction={cfg.fig5_fraction:g}", fig5_task, conf, VERSION))
    if "table2" in cfg.parts:
        load_letter(cfg.data_root)  # InputError naming the file before any task runs
        methods = khhm_methods(cfg) + list(cfg.t2_methods)
        for rep in range(cfg.t2_reps):
            for letter in cfg.t2_letters:
                for method in methods:
                    if rep >= cfg.t2_side_reps and not paper_row(method):
                        continue
                    conf = dict(common, letter=letter, rep=rep, method=method)
                    out.append(Task(f"table2 {letter} rep {rep} {method}", table2_task, conf, VERSION, extra=extra))
    if "fig78" in cfg.parts:
        conf = dict(common, n_pos=cfg.f78_n_pos, n_neg=cfg.f78_n_neg, C=cfg.f78_C, K=cfg.f78_K,
                    f78_delta=cfg.f78_delta, f78_lam=cfg.f78_lam, max_iter=cfg.f78_max_iter)
        out.append(Task("fig78 union of LDAs", fig78_lda_task, conf, VERSION))
        for method in cfg.f78_methods:
            out.append(Task(f"fig78 {method}", fig78_lhm_task, dict(conf, method=method), VERSION))
    if "table4" in cfg.parts:
        load_letter(cfg.data_root)
        variants = [("LHM", c) for c in cfg.t4_C] + [("Union of LDAs", c) for c in cfg.t4_C]
        variants += [("NN", c) for c in cfg.t4_C if network_library_installed()] + [("KHHM", k) for k in cfg.t4_K]
        for letter in cfg.t4_letters:
            for method, size in variants:
                conf = dict(common, letter=letter, rep=0, method=method, size=size, delta=cfg.t4_delta,
                            lam=cfg.t4_lam, epochs=cfg.t4_epochs)
                out.append(Task(f"table4 {letter} {method} {size}", table4_task, conf, VERSION, extra=extra))
    if "transfer" in cfg.parts:
        if not network_library_installed():
            raise InputError("the transfer part needs JAX and optax: pip install 'certiprog[nn]' (or drop "
                             "'transfer' from --parts)")
        from certiprog.datasets import data_path

        data_path("mnist/train-images.idx3-ubyte.gz", cfg.data_root)  # InputError naming the file
        base = dict(common, **{k: getattr(cfg, k) for k in ("tr_n_source", "tr_source_epochs", "tr_n_neg",
                                                              "tr_delta", "tr_lam", "tr_epochs",
                                                              "tr_finetune_epochs", "tr_cnn_epochs")})
        for rep in range(cfg.tr_reps):
            for setting in ("best", "worst"):
                for problem in range(cfg.tr_problems):
                    for n_pos in cfg.tr_pos_sizes:
                        for method in TRANSFER_BINARY:
                            conf = dict(base, setting=setting, problem=problem, n_pos=n_pos, rep=rep, method=method)
                            out.append(Task(f"transfer binary {setting} {problem} n={n_pos} rep {rep} {method}",
                                            transfer_binary_task, conf, VERSION, extra=extra))
                for size in cfg.tr_class_sizes:
                    for method in TRANSFER_MULTI:
                        conf = dict(base, setting=setting, size=size, rep=rep, method=method)
                        out.append(Task(f"transfer multi {setting} n={size} rep {rep} {method}",
                                        transfer_multi_task, conf, VERSION, extra=extra))
    return out


def khhm_methods(cfg: Config) -> list:
    """Table 2's KHHM rows: "KHHM K=k" is the printed Alg. 1 (``accept="always"``), "KHHM K=k (risk)" the
    risk-accepting rule; K = 1 only once (its refit is eq. (8) against all negatives again: the greedy plane)."""
    out = []
    for k in cfg.t2_K:
        for accept in cfg.t2_accepts:
            if accept == "always":
                out.append(f"KHHM K={k}")
            elif k > 1:
                out.append(f"KHHM K={k} ({accept})")
    return out


def paper_row(method: str) -> bool:
    """Whether a Table 2 method is run as the paper ran it (the printed Alg. 1, the paper's baselines): these get
    ``t2_reps`` splits, the rows beside them ``t2_side_reps``."""
    return method in PAPER_BASELINES or (method.startswith("KHHM") and " (" not in method)


def khhm_method(method: str) -> tuple:
    """``(K, accept)`` of a Table 2 KHHM method name (`khhm_methods`)."""
    head, _, tail = method.partition(" (")
    return int(head.split("=")[1]), (tail.rstrip(")") if tail else "always")


def table1_task(config: dict) -> dict:
    """Table 1, one (fraction, repetition, method): validation-tuned test AUC."""
    from threadpoolctl import threadpool_limits

    t0 = time.perf_counter()
    data = synthetic_2d(config["fraction"], config["n"], _seed(config["seed"], config["rep"], config["fraction"]))
    (Xtr, ytr), (Xval, yval), (Xte, yte) = data["train"], data["val"], data["test"]
    out = dict(method=config["method"], fraction=config["fraction"], rep=config["rep"],
               n_pos_train=int(ytr.sum()), n_neg_train=int((ytr == 0).sum()))
    with threadpool_limits(1):
        if config["method"] == "KHHM":
            fit, params, val, verdicts, grid = fit_khhm_grid(Xtr, ytr, Xval, yval, config["K"], config, auc)
            out.update(_khhm_summary(fit), params=params, auc_val=val, auc_test=auc(yte, fit.decision(Xte)),
                       verdicts=verdicts, grid=grid)
        elif config["method"] == "Bayes":
            out.update(params={}, auc_val=auc(yval, bayes_score(Xval)), auc_test=auc(yte, bayes_score(Xte)))
        else:
            fn, params, val = _baseline(config["method"], config, Xtr, ytr, Xval, yval, auc, 0)
            out.update(params=params, auc_val=val, auc_test=auc(yte, fn(Xte)))
    out["seconds"] = time.perf_counter() - t0
    return out


def fig5_task(config: dict) -> dict:
    """Fig. 5: the tuned KHHM's greedy steps (hyperplanes after step t = 1..K) and the final classifier."""
    import warnings

    from threadpoolctl import threadpool_limits

    from ..khhm import InfeasiblePlaneWarning, fit_khhm

    data = synthetic_2d(config["fraction"], config["n"], _seed(config["seed"], config["rep"], config["fraction"]))
    (Xtr, ytr), (Xval, yval) = data["train"], data["val"]
    with threadpool_limits(1):
        fit, params, val, _, grid = fit_khhm_grid(Xtr, ytr, Xval, yval, config["K"], config, auc)
        steps = []
        for t in range(1, config["K"] + 1):  # the greedy phase is deterministic: K = t, no rounds = its first t steps
            with warnings.catch_warnings():  # a trivial greedy plane is in g.events (and in the summary of the fit)
                warnings.simplefilter("ignore", InfeasiblePlaneWarning)
                g = fit_khhm(Xtr[ytr > 0], Xtr[ytr <= 0], K=t, delta=params["delta"], lam=params["lam"],
                             **dict(_khhm_settings(config, t), max_rounds=0, certify=bool(config.get("certify", True))))
            steps.append(dict(W=g.W, b=g.b, active=g.active.astype(int)))
    return dict(params=params, auc_val=val, W=fit.W, b=fit.b, active=fit.active.astype(int),
                steps_W=np.stack([s["W"][-1] for s in steps]), steps_b=np.array([s["b"][-1] for s in steps]),
                steps_active=np.array([s["active"][-1] for s in steps]), summary=_khhm_summary(fit))


def table2_task(config: dict, data_root=None) -> dict:
    """Table 2, one (letter, repetition, method): classification rate at EER on the test part, time per sample."""
    from threadpoolctl import threadpool_limits

    t0 = time.perf_counter()
    split = letter_split(int(config["seed"]), int(config["rep"]), data_root)
    (Xtr, ltr), (Xval, lval), (Xte, lte) = split["train"], split["val"], split["test"]
    letter = config["letter"]
    ytr, yval, yte = (ltr == letter).astype(int), (lval == letter).astype(int), (lte == letter).astype(int)

    def rate(y, s):
        return 1.0 - eer(y, s)

    out = dict(method=config["method"], letter=letter, rep=config["rep"])
    with threadpool_limits(1):
        if config["method"].startswith("KHHM"):
            K, accept = khhm_method(config["method"])
            fit, params, val, verdicts, grid = fit_khhm_grid(Xtr, ytr, Xval, yval, K, config, rate, accept)
            fn = fit.decision
            out.update(_khhm_summary(fit), verdicts=verdicts, grid=grid)
        else:
            fn, params, val = _baseline(config["method"], config, Xtr, ytr, Xval, yval, rate, _seed(letter)[0])
        score, seconds_per_sample = scored_and_timed(fn, Xte)
        out.update(params=params, rate_val=val, rate_test=rate(yte, score), auc_test=auc(yte, score),
                   seconds_per_sample=seconds_per_sample, n_test=int(len(yte)), n_test_pos=int(yte.sum()))
    out["seconds"] = time.perf_counter() - t0
    return out


def union_of_ldas(X_pos, X_neg, C: int, seed: int) -> tuple:
    """Hariharan et al.'s baseline: k-means (C clusters) on the whitened positives, then per cluster the LDA
    direction w_c = Sigma^-1 (mu_c - mu) with the background's moments (mu, Sigma); score max_c (w_c^T x + b_c),
    b_c = -w_c^T (mu_c + mu) / 2. Returns ``(W (C, d), b (C,), labels)``."""
    from sklearn.cluster import KMeans

    mu, Sigma = X_neg.mean(axis=0), np.cov(X_neg, rowvar=False, bias=True)
    L = np.linalg.cholesky(Sigma)
    white = np.linalg.solve(L, (X_pos - mu).T).T
    labels = KMeans(C, n_init=10, random_state=seed).fit_predict(white)
    W, b = [], []
    for c in range(C):
        mc = X_pos[labels == c].mean(axis=0)
        w = np.linalg.solve(Sigma, mc - mu)
        W.append(w)
        b.append(-w @ (mc + mu) / 2)
    return np.array(W), np.array(b), labels


def fig78_lda_task(config: dict) -> dict:
    data = latent_toy(config["n_pos"], config["n_neg"], _seed(config["seed"], "latent"))
    (Xtr, ytr), (Xte, yte) = data["train"], data["test"]
    W, b, labels = union_of_ldas(Xtr[ytr > 0], Xtr[ytr == 0], config["C"], int(config["seed"]))
    score = (Xte @ W.T + b).max(axis=1)
    return dict(method="Union of LDAs", W=W, b=b, labels=labels, auc_test=auc(yte, score),
                rate_test=1 - eer(yte, score))


def fig78_lhm_task(config: dict) -> dict:
    """LHM (Alg. 2, `lhm.fit_lhm`) on the latent toy from the start ``FIG78_LHM[config["method"]]`` (the paper's
    Fig. 8: random): the risk per iteration (Fig. 8's curve), the final components, the assignment each model step
    was trained on (Fig. 8's panels) and the first iteration whose assignment matches the two bars on >= 95 % of the
    positives (`lhm.structure_iteration`; None: never)."""
    from threadpoolctl import threadpool_limits

    from ..lhm import fit_lhm, structure_iteration

    data = latent_toy(config["n_pos"], config["n_neg"], _seed(config["seed"], "latent"))
    (Xtr, ytr), (Xte, yte) = data["train"], data["test"]
    n_pos = int(ytr.sum())
    truth = np.r_[np.zeros(n_pos // 2, int), np.ones(n_pos - n_pos // 2, int)]   # latent_toy's bar of each positive
    init: str | np.ndarray = FIG78_LHM[config.get("method", "LHM")]  # a start's name, or given labels
    if init == "random":
        rng = np.random.default_rng(_seed(config["seed"], "assign"))
        init = rng.integers(0, config["C"], size=n_pos)
    args = dict(C=config["C"], K=config["K"], delta=config["f78_delta"], lam=config["f78_lam"], init=init,
                random_state=int(_seed(config["seed"], "kmeans")[0]), certify=bool(config.get("certify", True)),
                **_khhm_settings(config, config["K"]))
    with threadpool_limits(1):
        fit = fit_lhm(Xtr[ytr > 0], Xtr[ytr == 0], max_iter=config["max_iter"], **args)
    score = fit.decision(Xte)
    comps = fit.components()
    A = np.stack(fit.assignments)
    return dict(method=config.get("method", "LHM"), auc_test=auc(yte, score), rate_test=1 - eer(yte, score),
                risk=np.array([float(r.risk) for r in fit.history]), risk_decreases=bool(fit.risk_decreases()),
                W=np.stack([W for W, _ in comps]), b=np.stack([b for _, b in comps]), init=A[0],
                assignments=A[1:], structure_iteration=structure_iteration(fit, truth),
                iterations=len(fit.history), best_iteration=int(fit.best_iteration),
                certified=bool(fit.certified), stop_reason=str(fit.stop_reason),
                history=[r.to_dict() for r in fit.history])


def table4_task(config: dict, data_root=None) -> dict:
    """Table 4 analogue, one (letter, method, size): accuracy at EER (1 - EER) on Letter's test part, one letter
    vs the rest, the background moments shared by every class (all training rows, the paper's VOC protocol)."""
    from threadpoolctl import threadpool_limits

    t0 = time.perf_counter()
    split = letter_split(int(config["seed"]), 0, data_root)
    (Xtr, ltr), (Xte, lte) = split["train"], split["test"]
    letter, method, size = config["letter"], config["method"], int(config["size"])
    pos, yte = Xtr[ltr == letter], (lte == letter).astype(int)
    seed = int(_seed(config["seed"], letter, method, size)[1])
    out = dict(method=method, letter=letter, size=size)
    with threadpool_limits(1):
        if method == "Union of LDAs":
            W, b, _ = union_of_ldas(pos, Xtr, size, seed)
            score = (Xte @ W.T + b).max(axis=1)
        elif method == "KHHM":
            import warnings

            from ..khhm import InfeasiblePlaneWarning, fit_khhm

            with warnings.catch_warnings():  # trivial planes are in the fit's events (summary: infeasible_planes)
                warnings.simplefilter("ignore", InfeasiblePlaneWarning)
                fit = fit_khhm(pos, Xtr, K=size, delta=config["delta"], lam=config["lam"],
                               certify=bool(config.get("certify", True)), **_khhm_settings(config, size))
            score = fit.decision(Xte)
            out.update(_khhm_summary(fit))
        elif method == "LHM":
            from ..lhm import fit_lhm

            lhm_fit = fit_lhm(pos, Xtr, C=size, K=2, delta=config["delta"], lam=config["lam"], init="kmeans",
                              random_state=seed, certify=bool(config.get("certify", True)),
                              **_khhm_settings(config, 2))
            score = lhm_fit.decision(Xte)
            out.update(risk=[float(r.risk) for r in lhm_fit.history], certified=bool(lhm_fit.certified),
                       stop_reason=str(lhm_fit.stop_reason))
        elif method == "NN":
            from ..network import multiclass_network, train_multiclass

            rng = np.random.default_rng(seed)
            d = Xtr.shape[1]
            # Sec. 4.2's network with G = 2: the letter's C components of K = 2 random hyperplanes, the rest one
            # (trained) unit; the paper's "NN with an architecture equivalent to LHM ... initialized at random"
            net = multiclass_network([[(np.zeros((1, d)), np.ones(1))], random_components(size, 2, d, rng)],
                                     gain=1.0, off_scale=0.01, random_state=seed)
            ytr = (ltr == letter).astype(int)
            net, hist = train_multiclass(net, Xtr, ytr, epochs=int(config["epochs"]), learning_rate=0.01,
                                         batch_size=128, random_state=seed)
            lg = net.forward(Xte)["logits"]
            score = lg[:, 1] - lg[:, 0]
            out.update(loss=list(hist.loss))
        else:
            raise InputError(f"unknown Table 4 method {method!r}")
    out.update(rate_test=1 - eer(yte, score), auc_test=auc(yte, score), seconds=time.perf_counter() - t0)
    return out
