"""Paper 002's bound (ME^2, Thm 2: uniform stability) as a `Bound` object in the one audit registry.

Its id is that of the inventory row of ``docs/derivations/002.md`` that states it (``002-C46``), so the claim and
the bound are one entry (`certiprog.certificates.registry`). Its Monte Carlo test (`stability.thm2_coverage`, run
by ``certiprog audit 002``, about 2 s) fits the certified learner on samples from a finite law on the B-ball whose true
exclusion risk is an exact sum. It is only non-vacuous where the constants allow: B = 1/2 (k = 1), n = 200,
mu = lam = 10, delta = 0.05 give an excess of 0.19 < B; at the paper's setting (B = 4, so k = 64, and
min(mu, lam) <= 10) the excess exceeds the loss range B by orders of magnitude (about 2e2 at n = 1159,
min(mu, lam) = 10; 2e9 at lam = 1e-6), so no test there could fail.
"""
from __future__ import annotations

import sympy as sp

from certiprog.audit.bounds import SYMBOLS, Assumption, Bound, delta_in_01, register, symbols

n, delta = SYMBOLS["n"], SYMBOLS["delta"]


def thm2_monte_carlo(bound, n_trials: int, seed: int):
    """The audit's coverage test of Thm 2 (corrected): `stability.thm2_coverage` at its non-vacuous defaults."""
    from .stability import thm2_coverage

    return thm2_coverage(bound, n_trials=n_trials, seed=seed)


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
    printed=thm2(_k), status="corrected", monte_carlo=thm2_monte_carlo,
    notes="beta_stab = 2k^2/(kappa min(mu, lambda)) = 4k^2/min with kappa = 1/2; the paper writes k for k^2. "
          "Monte Carlo with the learner at B = 1/2, n = 200, mu = lam = 10 (non-vacuous there; vacuous at the "
          "paper's B = 4 and grids: see the module docstring)."))
