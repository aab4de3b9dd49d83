"""Paper 002's bound (ME^2, Thm 2: uniform stability) as a `Bound` object in the one audit registry.

Its id is that of the inventory row of ``docs/derivations/002.md`` that states it (``002-C46``), so the claim and
the bound are one entry (`certiprog.certificates.registry`). Formula only: a Monte Carlo test needs the learner.
"""
from __future__ import annotations

import sympy as sp

from certiprog.certificates.bounds import SYMBOLS, Assumption, Bound, delta_in_01, register, symbols

n, delta = SYMBOLS["n"], SYMBOLS["delta"]


def thm2(kk):
    """Thm 2's excess risk with kappa = 1/2 and the Lipschitz factor ``kk`` (k^2 corrected, k printed)."""
    mu_, lam, K = (SYMBOLS[s] for s in ("mu", "lam", "K"))
    mn = sp.Min(mu_, lam)
    kap = sp.Rational(1, 2)
    return 4 * kk / (n * kap * mn) + (8 * kk / (kap * mn) + K) * sp.sqrt(sp.log(1 / delta) / (2 * n))


_k = SYMBOLS["k"]
C46 = register(Bound(
    "002-C46", "uniform-stability generalisation bound", "002", "Sec. 4.2, Theorem 2 (kappa = 1/2)",
    r"L(\theta_S) - \hat{L}_S(\theta_S)", symbols("k", "n", "mu", "lam", "K", "delta"), thm2(_k**2), delta,
    ["||x|| <= B; k = max(1, 4B^2) (Lemma 1)", "0 <= loss <= K (K = B suffices, Lemma 4)",
     Assumption("k >= 1", lambda v: v["k"] >= 1, ("k",)), delta_in_01()],
    printed=thm2(_k), status="corrected",
    notes="beta_stab = 2k^2/(kappa min(mu, lambda)) = 4k^2/min with kappa = 1/2; the paper writes k for k^2. "
          "Formula only (no Monte Carlo: needs the learner)."))
