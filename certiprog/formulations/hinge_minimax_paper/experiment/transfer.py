"""Transfer learning on MNIST (an analogue of Sec. 5.3, Figs. 10-11): the source CNN, its features, the binary
and multi-class problems with LHM and the networks.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from certiprog.errors import InputError

from .data import _seed
from .learners import _khhm_settings, random_components
from .metrics import eer

BEST_MULTI_CLASSES = ((0, 1), (2, 3), (4,))
WORST_MULTI_CLASSES = ((5,), (6,), (7,), (8,), (9,))


@functools.lru_cache(maxsize=2)
def mnist_pools(seed: int, n_source: int, root=None) -> dict:
    """MNIST split for the transfer analogue: ``source`` = the first ``n_source`` of the (seeded) shuffled training
    images of digits 0-4; ``target`` = every other training image (the target tasks draw from it); ``test`` = the
    test set. Each ``(images in [0, 1] float32, labels int)``."""
    from certiprog.datasets.mnist import load_mnist

    X, y = load_mnist("train", root=root)
    Xt, yt = load_mnist("test", root=root)
    rng = np.random.default_rng(_seed(seed, "mnist-source"))
    seen = rng.permutation(np.flatnonzero(y < 5))
    src = np.sort(seen[:n_source])
    rest = np.setdiff1d(np.arange(len(y)), src)
    f = np.float32(1 / 255)
    return dict(source=(X[src] * f, y[src].astype(int)), target=(X[rest] * f, y[rest].astype(int)),
                test=(Xt * f, yt.astype(int)))


@functools.lru_cache(maxsize=2)
def source_cnn(seed: int, n_source: int, epochs: int, root=None) -> dict:
    """The source feature extractor: `network.small_cnn` trained on digits 0-4 (deterministic in its arguments)."""
    from ..network import small_cnn, train_cnn

    X, y = mnist_pools(seed, n_source, root)["source"]
    params, _ = train_cnn(small_cnn(5, random_state=_seed(seed, "cnn")), X, y, epochs=epochs,
                          random_state=_seed(seed, "cnn-batches"))
    return params


def _features(params, images, chunk: int = 4096) -> np.ndarray:
    from ..network import cnn_features

    return np.vstack([np.asarray(cnn_features(params, images[i:i + chunk]), dtype=np.float64)
                      for i in range(0, len(images), chunk)])


def _draw(rng, labels, digits, n) -> np.ndarray:
    rows = np.flatnonzero(np.isin(labels, digits))
    if n > len(rows):
        raise InputError(f"{n} images of digits {digits} requested, {len(rows)} available")
    return np.sort(rng.choice(rows, size=n, replace=False))


def binary_problem(setting: str, problem: int) -> tuple:
    """``(positive digits, negative digits)``: best case = a pair of digits the source saw vs the other seen ones;
    worst case = one unseen digit (5-9) vs the other unseen ones."""
    pos: tuple[int, ...]
    if setting == "best":
        pos = (problem % 5, (problem + 1) % 5)
        return pos, tuple(d for d in range(5) if d not in pos)
    pos = (5 + problem,)
    return pos, tuple(d for d in range(5, 10) if d not in pos)


def _fit_lhm(Fpos, Fneg, config, seed):
    """LHM (C = 2, K = 2, the paper's Sec. 5.3 shape) on features; a tiny ridge keeps dead feature directions from
    making the background covariance singular."""
    from ..lhm import fit_lhm

    fit = fit_lhm(Fpos, Fneg, C=2, K=2, delta=config["tr_delta"], lam=config["tr_lam"], init="kmeans",
                  random_state=seed, certify=bool(config.get("certify", True)), cov_ridge=1e-6,
                  **_khhm_settings(config, 2))
    return fit


def transfer_binary_task(config: dict, data_root=None) -> dict:
    """Fig. 10 analogue, one (setting, problem, positives, repetition, method): 1 - EER on the test digits of the
    setting, features from the source CNN (frozen)."""
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    from ..network import multiclass_network, train_multiclass

    t0 = time.perf_counter()
    seed = int(config["seed"])
    pools = mnist_pools(seed, config["tr_n_source"], data_root)
    params = source_cnn(seed, config["tr_n_source"], config["tr_source_epochs"], data_root)
    pos_d, neg_d = binary_problem(config["setting"], int(config["problem"]))
    rng = np.random.default_rng(_seed(seed, config["setting"], config["problem"], config["n_pos"], config["rep"]))
    Xp, lp = pools["target"]
    ip, ineg = _draw(rng, lp, pos_d, int(config["n_pos"])), _draw(rng, lp, neg_d, int(config["tr_n_neg"]))
    Xt, lt = pools["test"]
    keep = np.isin(lt, pos_d + neg_d)
    yte = np.isin(lt[keep], pos_d).astype(int)
    with threadpool_limits(1):
        Fpos, Fneg, Fte = _features(params, Xp[ip]), _features(params, Xp[ineg]), _features(params, Xt[keep])
        method = config["method"]
        out = dict(method=method, setting=config["setting"], problem=int(config["problem"]),
                   n_pos=int(config["n_pos"]), rep=int(config["rep"]))
        if method == "LHM":
            fit = _fit_lhm(Fpos, Fneg, config, int(rng.integers(2**31)))
            score = fit.decision(Fte)
            out.update(certified=bool(fit.certified), iterations=len(fit.history))
        elif method == "NN linear":
            X = np.vstack([Fpos, Fneg])
            y = np.r_[np.ones(len(Fpos)), np.zeros(len(Fneg))]
            score = LogisticRegression(max_iter=1000).fit(X, y).decision_function(Fte)
        else:  # NN matching: Sec. 4.2's network (G = 2) of the LHM's shape, random start, trained on the features
            d = Fpos.shape[1]
            net = multiclass_network([[(np.zeros((1, d)), np.ones(1))], random_components(2, 2, d, rng)], gain=1.0,
                                     random_state=int(rng.integers(2**31)))
            X = np.vstack([Fpos, Fneg])
            y = np.r_[np.ones(len(Fpos), int), np.zeros(len(Fneg), int)]
            net, _ = train_multiclass(net, X, y, epochs=int(config["tr_epochs"]), learning_rate=0.01,
                                      batch_size=64, random_state=int(rng.integers(2**31)))
            lg = net.forward(Fte)["logits"]
            score = lg[:, 1] - lg[:, 0]
    out.update(rate_test=1 - eer(yte, score), seconds=time.perf_counter() - t0)
    return out


def transfer_multi_task(config: dict, data_root=None) -> dict:
    """Fig. 11 analogue, one (setting, training images per class, repetition, method): test accuracy.
    LHM-NN: per-class LHMs on the source features mapped to Sec. 4.2's network and fine-tuned end to end with the
    feature extractor (a few epochs); NN linear: softmax regression on the features; NN matching: the same network
    from a random start on the features; CNN scratch: `network.small_cnn` trained on the target images only."""
    import jax.numpy as jnp
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    from ..network import cnn_features, cnn_logits, multiclass_network, small_cnn, train_cnn, train_multiclass

    t0 = time.perf_counter()
    seed = int(config["seed"])
    pools = mnist_pools(seed, config["tr_n_source"], data_root)
    params = source_cnn(seed, config["tr_n_source"], config["tr_source_epochs"], data_root)
    classes = BEST_MULTI_CLASSES if config["setting"] == "best" else WORST_MULTI_CLASSES
    rng = np.random.default_rng(_seed(seed, config["setting"], "multi", config["size"], config["rep"]))
    Xp, lp = pools["target"]
    idx = [_draw(rng, lp, digits, int(config["size"])) for digits in classes]
    Ximg = np.concatenate([Xp[i] for i in idx])
    y = np.repeat(np.arange(len(classes)), [len(i) for i in idx])
    Xt, lt = pools["test"]
    keep = np.isin(lt, sum(classes, ()))
    yte = np.zeros(int(keep.sum()), int)
    for g, digits in enumerate(classes):
        yte[np.isin(lt[keep], digits)] = g
    method = config["method"]
    out = dict(method=method, setting=config["setting"], size=int(config["size"]), rep=int(config["rep"]))
    with threadpool_limits(1):
        if method == "CNN scratch":
            p, _ = train_cnn(small_cnn(len(classes), random_state=int(rng.integers(2**31))), Ximg, y,
                             epochs=int(config["tr_cnn_epochs"]), batch_size=32,
                             random_state=int(rng.integers(2**31)))
            pred = np.argmax(np.asarray(cnn_logits(p, Xt[keep])), axis=1)
        else:
            F, Fte = _features(params, Ximg), _features(params, Xt[keep])
            if method == "NN linear":
                pred = LogisticRegression(max_iter=1000).fit(F, y).predict(Fte)
            elif method == "NN matching":
                d = F.shape[1]
                net = multiclass_network([random_components(2, 2, d, rng) for _ in classes], gain=1.0,
                                         random_state=int(rng.integers(2**31)))
                net, _ = train_multiclass(net, F, y, epochs=int(config["tr_epochs"]), learning_rate=0.01,
                                          batch_size=32, random_state=int(rng.integers(2**31)))
                pred = net.predict(Fte)
            else:  # LHM-NN
                comps = []
                for g in range(len(classes)):
                    fit = _fit_lhm(F[y == g], F[y != g], config, int(rng.integers(2**31)))
                    comps.append(fit.components())
                net = multiclass_network(comps, gain=1.0, random_state=int(rng.integers(2**31)))
                out["accuracy_before_finetune"] = float(np.mean(net.predict(Fte) == yte))
                fparams = {k: jnp.asarray(v, jnp.float32) for k, v in params.items()}
                net, fparams, _ = train_multiclass(net, Ximg, y, epochs=int(config["tr_finetune_epochs"]),
                                                   learning_rate=1e-3, batch_size=32,
                                                   random_state=int(rng.integers(2**31)),
                                                   features=(cnn_features, fparams))
                Fte2 = np.vstack([np.asarray(cnn_features(fparams, Xt[keep][i:i + 4096]), dtype=np.float64)
                                  for i in range(0, int(keep.sum()), 4096)])
                pred = net.predict(Fte2)
    out.update(accuracy=float(np.mean(pred == yte)), seconds=time.perf_counter() - t0)
    return out
