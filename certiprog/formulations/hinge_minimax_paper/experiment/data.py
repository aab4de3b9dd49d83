"""The data of every part: the synthetic 2-D Gaussians of Table 1 / Fig. 5 with their Bayes score, the Letter
splits of Tables 2 and 4, the latent toy of Figs. 7-8.
"""
from __future__ import annotations

import functools
import zlib

import numpy as np

from certiprog.errors import InputError

from .config import SYNTH_NEG, SYNTH_POS


def _seed(*parts) -> list:
    return [int(p) if isinstance(p, (int, np.integer)) else zlib.crc32(str(p).encode()) for p in parts]


def synthetic_2d(fraction: float, n: int, seed) -> dict:
    """Table 1's data: ``round(fraction n)`` positives from N(SYNTH_POS), the rest negatives from N(SYNTH_NEG); each
    class split at random in equal thirds. ``{train, val, test}`` each ``(X, y)`` with y in {0, 1}."""
    rng = np.random.default_rng(seed)
    n_pos = int(round(fraction * n))
    if n_pos < 6:
        raise InputError(f"fraction {fraction} of {n} points gives {n_pos} positives: fewer than 2 per third")
    parts: dict[str, tuple[list, list]] = {k: ([], []) for k in ("train", "val", "test")}  # (X parts, y parts)
    for label, (mean, cov), count in ((1, SYNTH_POS, n_pos), (0, SYNTH_NEG, n - n_pos)):
        X = rng.multivariate_normal(mean, cov, size=count)
        for name, idx in zip(parts, np.array_split(rng.permutation(count), 3)):
            parts[name][0].append(X[idx])
            parts[name][1].append(np.full(len(idx), label))
    return {k: (np.vstack(v[0]), np.concatenate(v[1])) for k, v in parts.items()}


def bayes_score(X) -> np.ndarray:
    """The log-likelihood ratio of the two Gaussians that generate Table 1's data (the optimal ROC)."""
    from scipy.stats import multivariate_normal

    return multivariate_normal(*SYNTH_POS).logpdf(X) - multivariate_normal(*SYNTH_NEG).logpdf(X)


@functools.lru_cache(maxsize=2)
def load_letter(root=None) -> tuple:
    """UCI Letter (`certiprog.datasets.letter.load_letter`, read once per process): X (20000, 16), labels A..Z."""
    from certiprog.datasets.letter import load_letter as read

    X, labels = read(root)
    X.setflags(write=False)
    labels.setflags(write=False)
    return X, labels


@functools.lru_cache(maxsize=4)
def letter_split(seed: int, rep: int, root=None) -> dict:
    """The paper's split (`certiprog.datasets.letter.letter_split`: per letter 100 training, 250 validation, the
    rest test), seeded by (seed, rep); features standardised with the training part's mean and sd.
    ``{train, val, test}`` each ``(X, labels)``."""
    from certiprog.datasets.letter import standardised_split

    X, labels = load_letter(root)
    return standardised_split(X, labels, 100, 250, seed=_seed(seed, rep, "letter"))


def latent_toy(n_pos: int, n_neg: int, seed) -> dict:
    """Figs. 7-8's toy (ours; the paper does not give its data): positives on two long parallel bars (y = 3 and
    y = 5, x in [-3, 3]), which k-means with 2 clusters cuts left / right; negatives: 90 % from N((0, -2), diag(4, 1)),
    10 % on a bar between the two positive ones (y = 4), so one half-plane per k-means cluster (LDA) must take in
    negatives while two strips (LHM, K >= 2) need not. ``{train, test}`` each ``(X, y)``."""
    rng = np.random.default_rng(seed)

    def draw():
        half = n_pos // 2
        bars = [np.column_stack([rng.uniform(-3, 3, size=m), rng.normal(off, 0.15, size=m)])
                for m, off in ((half, 3.0), (n_pos - half, 5.0))]
        n_mid = n_neg // 10
        neg = rng.multivariate_normal((0.0, -2.0), ((4.0, 0.0), (0.0, 1.0)), size=n_neg - n_mid)
        mid = np.column_stack([rng.uniform(-3.5, 3.5, size=n_mid), rng.normal(4.0, 0.15, size=n_mid)])
        return np.vstack(bars + [neg, mid]), np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]

    return dict(train=draw(), test=draw())
