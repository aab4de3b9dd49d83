"""Monte Carlo checks of paper 002's stability results (Prop. 1 and Thm 2, both as corrected in docs/derivations/002.md
E13, E14, E17) with the learner itself (`local_solver`, certified solves).

Setting of Sec. 4.2: one centre ``c``, negatives drawn i.i.d. from a law on the ball ``||x|| <= B`` (and ``||c|| <= B``),
loss ``l(theta, x) = [R - (x - c)^T M (x - c)]_+``, ``L(theta) = E l(theta, x)``, ``L_S`` its mean on the sample.
The law is FINITE (atoms in the ball with known probabilities), so the true exclusion risk ``L(theta_S)`` and the
supremum of the loss difference over the law's support are exact sums, not estimates.

Corrected Thm 2 (kappa = 1/2, k = max(1, 4 B^2), K = B since 0 <= l <= R <= B): with probability >= 1 - delta,

    L(theta_S) <= L_S(theta_S) + 8 k^2 / (n min(mu, lam)) + (16 k^2 / min(mu, lam) + K) sqrt(ln(1/delta) / (2 n)).

It is non-vacuous (below the trivial K = B) only when min(mu, lam) is large against k^2 / sqrt(n): with B = 1/2
(k = 1), n = 200 and delta = 0.05 it needs min(mu, lam) > ~5. In the paper's experimental grids (mu >= 0.75,
lam >= 1e-6, B = 4 so k = 64) it is vacuous by orders of magnitude: `thm2_excess` says by how much.

`thm2_coverage` is a ``monte_carlo`` test for the registered bound ``002-C46`` (signature ``f(bound, n_trials,
seed)``); `stability_check` measures Prop. 1's constants (``|R - R^i| + ||M - M^i||_F <= 4k / (n min)`` and
``sup_x |l(theta_S, x) - l(theta_S^i, x)| <= beta / n`` with ``beta = 4 k^2 / min``) on pairs of samples that
differ in one point.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from certiprog.errors import InputError

from .local_solver import local_problem, solve_local

__all__ = ["ExclusionLaw", "exclusion_law", "stability_check", "thm2_coverage", "thm2_excess"]


@dataclass(frozen=True)
class ExclusionLaw:
    """A finite law on the ball ``||x|| <= B`` (``atoms`` n_atoms x d, ``probs``) and the centre ``c``."""

    atoms: np.ndarray
    probs: np.ndarray
    center: np.ndarray
    B: float

    def sample(self, rng, n: int) -> np.ndarray:
        return self.atoms[rng.choice(len(self.probs), size=n, p=self.probs)]

    def losses(self, M, R) -> np.ndarray:
        """``l(theta, a)`` at every atom."""
        Y = self.atoms - self.center
        return np.maximum(0.0, R - np.einsum("ij,jk,ik->i", Y, M, Y))

    def risk(self, M, R) -> float:
        """The exact true exclusion risk ``L(theta) = sum_a p_a l(theta, a)``."""
        return float(self.probs @ self.losses(M, R))


def exclusion_law(d: int = 2, B: float = 0.5, n_atoms: int = 40, seed: int = 0) -> ExclusionLaw:
    """Atoms uniform in the ball of radius 0.9 B around 0, Dirichlet probabilities, centre 0 (all norms <= B)."""
    if d < 1 or n_atoms < 2 or not B > 0:
        raise InputError(f"need d >= 1, n_atoms >= 2 and B > 0; got d={d}, n_atoms={n_atoms}, B={B}")
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((n_atoms, d))
    atoms = 0.9 * B * g / np.linalg.norm(g, axis=1, keepdims=True) * rng.random((n_atoms, 1)) ** (1.0 / d)
    return ExclusionLaw(atoms, rng.dirichlet(np.ones(n_atoms)), np.zeros(d), float(B))


def _k(B: float) -> float:
    return max(1.0, 4.0 * B * B)


def thm2_excess(n: int, mu: float, lam: float, B: float, delta: float, K: float | None = None) -> float:
    """The corrected Thm 2's right-hand side minus ``L_S`` (kappa = 1/2, K = B by default)."""
    k2 = _k(B) ** 2
    mn = min(mu, lam)
    K = B if K is None else K
    return 8 * k2 / (n * mn) + (16 * k2 / mn + K) * np.sqrt(np.log(1 / delta) / (2 * n))


def _fit(law: ExclusionLaw, X, mu, lam):
    sol = solve_local(problem=local_problem(X, law.center), mu=mu, lam=lam, B=law.B, tol=1e-12)
    return sol


def thm2_coverage(bound=None, n_trials: int = 200, seed: int = 0, *, n: int = 200, mu: float = 10.0,
                  lam: float = 10.0, B: float = 0.5, delta: float = 0.05, d: int = 2, n_atoms: int = 40,
                  level: float = 1e-3):
    """Coverage of Thm 2 (corrected): ``n_trials`` samples of ``n`` negatives, ME2 fitted on each (certified), the
    deviation ``L(theta_S) - L_S(theta_S)`` (exact) against the bound; an exact binomial test of 'failure rate <=
    delta' (`certiprog.certificates.bounds.binomial_coverage`). ``bound``: the registered `Bound` (``002-C46``;
    None: the formula of `thm2_excess`). InputError if the bound is vacuous (>= B) at these values."""
    from certiprog.audit.bounds import binomial_coverage

    t0 = time.perf_counter()
    law = exclusion_law(d, B, n_atoms, seed)
    values = dict(k=_k(B), n=n, mu=mu, lam=lam, K=B, delta=delta)
    radius = float(bound.evaluate(**{k: v for k, v in values.items() if k in bound.symbols})) if bound is not None \
        else thm2_excess(n, mu, lam, B, delta)
    if radius >= B:
        raise InputError(f"Thm 2's excess {radius:.3g} >= B = {B} (the loss never exceeds B): the bound is vacuous "
                         f"at n={n}, mu={mu}, lam={lam}; raise min(mu, lam) or n")
    rng = np.random.default_rng(seed)
    devs = np.empty(n_trials)
    for t in range(n_trials):
        X = law.sample(rng, n)
        sol = _fit(law, X, mu, lam)
        Y = X - law.center
        emp = float(np.mean(np.maximum(0.0, sol.R - np.einsum("ij,jk,ik->i", Y, sol.M, Y))))
        # the certified distance to the exact optimum moves both risks by at most (|dR| + 4B^2 ||dM||_F)
        slack = sol.R_error + 4 * B * B * sol.M_error
        devs[t] = law.risk(sol.M, sol.R) - emp - 2 * slack
    nominal = float(delta)
    return binomial_coverage(devs <= radius, nominal, level, getattr(bound, "id", "002-C46"), devs / radius,
                             time.perf_counter() - t0)


def stability_check(n_pairs: int = 50, seed: int = 0, *, n: int = 30, mu: float = 1.0, lam: float = 1.0,
                    B: float = 0.5, d: int = 2, n_atoms: int = 40) -> dict:
    """Prop. 1 (corrected) on ``n_pairs`` pairs of samples S, S^i differing in one point: the largest observed
    ratios ``(|R - R^i| + ||M - M^i||_F) / (4k / (n min))`` and ``max_a |l(theta_S, a) - l(theta_S^i, a)| /
    (4k^2 / (n min))`` (over the atoms and the sample points; both must stay <= 1)."""
    law = exclusion_law(d, B, n_atoms, seed)
    rng = np.random.default_rng(seed)
    k, mn = _k(B), min(mu, lam)
    theta_bound, loss_bound = 4 * k / (n * mn), 4 * k * k / (n * mn)
    worst_theta = worst_loss = 0.0
    for _ in range(n_pairs):
        X = law.sample(rng, n)
        Xi = X.copy()
        Xi[rng.integers(n)] = law.sample(rng, 1)[0]
        a, b = _fit(law, X, mu, lam), _fit(law, Xi, mu, lam)
        certified = a.R_error + b.R_error + a.M_error + b.M_error
        dtheta = max(0.0, abs(a.R - b.R) + np.linalg.norm(a.M - b.M) - certified)
        pts = np.vstack([law.atoms, X, Xi])
        Y = pts - law.center
        la = np.maximum(0.0, a.R - np.einsum("ij,jk,ik->i", Y, a.M, Y))
        lb = np.maximum(0.0, b.R - np.einsum("ij,jk,ik->i", Y, b.M, Y))
        worst_theta = max(worst_theta, dtheta / theta_bound)
        worst_loss = max(worst_loss, float(np.max(np.abs(la - lb))) / loss_bound)
    return dict(theta_ratio=worst_theta, loss_ratio=worst_loss, theta_bound=theta_bound, loss_bound=loss_bound,
                n_pairs=n_pairs, n=n, mu=mu, lam=lam, B=B)
