"""Seeded data makers shared by the tests (one definition each)."""
import numpy as np
from ref_000_004 import sqrtm_psd  # the reference implementation's own square root (tests/reference)


def rand_spd(rng, d, cond=5.0):
    """A random symmetric positive definite d x d matrix with eigenvalues spread evenly over [1, cond]."""
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    return (Q * np.linspace(1.0, cond, d)) @ Q.T


def two_class(rng, d=4, n1=30, n0=50, sep=1.0, cond0=5.0):
    """Two Gaussian classes with random covariances: class 1 shifted by +sep, class 0 by -sep / 2."""
    X1 = rng.normal(size=(n1, d)) @ sqrtm_psd(rand_spd(rng, d)) + sep
    X0 = rng.normal(size=(n0, d)) @ sqrtm_psd(rand_spd(rng, d, cond=cond0)) - 0.5 * sep
    return X1, X0


def clumping_data(seed=0, m=60):
    """003's small classification set: 2 gaussian features plus a constant (eq. (1) has no bias), labels +-1."""
    rng = np.random.default_rng(seed)
    X = np.c_[rng.standard_normal((m, 2)), np.ones(m)]
    y = np.sign(X[:, 0] + 0.8 * rng.standard_normal(m))
    y[y == 0] = 1.0
    return X, y
