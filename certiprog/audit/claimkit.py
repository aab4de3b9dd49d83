"""Small helpers the papers' claim checks share (so each claim module does not carry its own copy).

`random_spd` (a seeded random SPD matrix), `open_unit` (a `verify_identity` domain 0 < sym < 1) and `short`
(floats of a counterexample dict to 6 significant digits).
"""
from __future__ import annotations

import numpy as np
import sympy as sp

__all__ = ["open_unit", "random_spd", "short"]


def random_spd(rng, d: int, lo: float = 0.5, hi: float = 3.0) -> np.ndarray:
    """A random d x d SPD matrix with eigenvalues uniform in [lo, hi] and a random orthonormal eigenbasis."""
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    return (Q * rng.uniform(lo, hi, size=d)) @ Q.T


def open_unit(sym):
    """`verify_identity` domain: 0 < sym < 1 (sym may have cancelled from the difference)."""
    return lambda s: 0 < s.get(sym, sp.Rational(1, 2)) < 1


def short(d: dict) -> dict:
    """A counterexample dict with floats shown to 6 significant digits."""
    return {k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in d.items()}
