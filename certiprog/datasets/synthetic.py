"""Synthetic data whose conditioning is set, for sweeps over it (benchmarks and tests: "build for the class").

`conditioned_mixing` gives the matrix ``A`` that makes ``N(0, I) A`` data with a feature covariance of a chosen
condition number, the way real features (pixels, one-hot groups, correlated measurements) are far from isotropic.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError

__all__ = ["conditioned_mixing"]


def conditioned_mixing(d: int, kappa: float, rng: np.random.Generator) -> np.ndarray:
    """``A = Q1 diag(s) Q2'`` (d x d): ``Q1``, ``Q2`` random orthogonal (QR of Gaussian matrices drawn from ``rng``, in
    that order), ``s`` geometric with ``s_max^2 / s_min^2 = kappa`` and mean square 1, so ``N(0, I) A`` has the feature
    covariance ``A'A`` of condition number ``kappa`` and trace d (the scale of isotropic data)."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise InputError(f"d must be a positive integer; got {d!r}")
    if not (np.isfinite(kappa) and kappa >= 1):
        raise InputError(f"kappa (a condition number) must be finite and >= 1; got {kappa!r}")
    q1 = np.linalg.qr(rng.normal(size=(d, d)))[0]
    q2 = np.linalg.qr(rng.normal(size=(d, d)))[0]
    sv = float(kappa) ** (-np.arange(d) / (2.0 * max(d - 1, 1)))
    return (q1 * (sv / np.sqrt(np.mean(sv ** 2)))) @ q2.T
