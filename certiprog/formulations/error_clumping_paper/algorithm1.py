"""Algorithm 1 of paper 003 (stochastic primal-dual dual averaging) for eq. (1), as the paper means it.

The Lagrangian L = lam/2||w||^2 + xi'Theta xi/(2m) + sum_i alpha_i (g_i(w) - xi_i) - beta'xi, g_i(w) = 1 - y_i<w, x_i>,
with the closed-form duals of Sec. 3 (resolved as in the Algorithm box: the whole m d_I h = (Theta xi)_I goes to
alpha_I when the margin constraint is the active one, to beta_I when xi_I = 0 > g_I, to mu_I otherwise). Per step
t (index I uniform, theta = (Theta xi_t)_I, step eta_t = c/sqrt(t)):

    u_{t+1}    = u_t + lam w_t - theta y_I x_I [xi_{t,I} = g_I(w_t) >= 0] [theta > 0]
    mu_{t+1,I} = mu_{t,I} + theta   if (xi_{t,I} > max(0, g_I(w_t)) and theta > 0) or theta < 0
    w_{t+1}    = -eta_t u_{t+1}                                  (corrected w-step, claim 003-wstep)
    xi_{t+1}   = max(-eta_t mu_{t+1}, g(w_{t+1}), 0)             (elementwise)

Corrections (``certiprog audit 003``): the printed w-step argmin ||w - eta_t u_t - w|| does not depend on w and its
reading w = +eta_t u_t diverges (003-wstep): the dual-averaging step is w = Pi_W(-eta_t u_{t+1}) (W = R^n). The
printed start xi_1 = 0 violates every constraint (g_i(0) = 1; 003-init): we start feasible, xi_1 = max(0, g(w_1))
= 1 (the xi-step formula at t = 1), so every iterate, and hence their average, is feasible.

The output is the average (w_bar, xi_bar) of the iterates (as the paper's R(T) statement needs), a per-pass history
(objective of the averaged point and its rigorous duality gap) and the rigorous gap of the final point
(`gap.certified_gap`, i.e. the structured solver's certificate). Cost per step O((deg_I + 1) n) (the margins of I and its neighbours only); the average of
xi is accumulated exactly in blocks of iterates with one BLAS product per block (O(m n) per step amortised).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from certiprog import validation as validate
from certiprog.errors import BackendError

from .gap import DualityGap, certified_gap
from .programs import eq1_inputs

__all__ = ["Algorithm1Result", "algorithm1"]


@dataclass
class Algorithm1Result:
    """``w``, ``xi``: the averaged iterates (xi_bar; feasible); ``objective`` at them (with xi repaired to
    max(xi_bar, g(w_bar), 0), which equals xi_bar up to rounding); ``gap``: the rigorous `DualityGap` of the final
    point; ``history``: one dict per pass (``pass``, ``steps``, ``objective``, and the rigorous ``lower``, ``upper``,
    ``gap`` of the averaged point); ``steps``, ``passes``, ``c``, ``seed``; ``w_last``, ``xi_last``: the last iterate."""

    w: np.ndarray
    xi: np.ndarray
    objective: float
    gap: DualityGap
    history: list = field(default_factory=list)
    steps: int = 0
    passes: float = 0.0
    c: float = 1.0
    seed: int | None = None
    w_last: np.ndarray | None = None
    xi_last: np.ndarray | None = None


def _progress(progress, total, desc):
    from tqdm.auto import tqdm

    # progress=None: a bar on a terminal only (tqdm's disable=None); True: always; False: never
    return tqdm(total=total, desc=desc, disable=(None if progress is None else not progress), leave=False)


def algorithm1(X, y, rho, eta, lam, passes: float = 20, c: float | None = None, seed=0, graph=None,
               progress=None, tol: float = 1e-6, block: int | None = None) -> Algorithm1Result:
    """Run the corrected Algorithm 1 on eq. (1) for ``passes`` x m stochastic steps.

    ``X`` (m, n), ``y`` in {+1, -1} (both classes), ``rho > 0``, ``eta`` in [0, 1], ``lam > 0`` (as
    `programs.error_clumping`); ``c``: step-size constant (eta_t = c/sqrt(t)); None: min(1, 1/(lam + max_i ||x_i||^2)),
    the scale below which no step overshoots: the u-update multiplies u's component along x_I by about
    1 - eta_t ||x_I||^2 and u itself by 1 - eta_t lam, and the mu-update multiplies xi_I by about 1 - eta_t
    (Theta_II = 1). The paper uses one step for both blocks, so the algorithm is not invariant to the scale of X
    (standardise the features); a larger c can diverge, which raises a BackendError; ``seed``: an int or a numpy Generator
    (the index sequence); ``graph``: a precomputed `neighbourhood_graph(X, rho)`; ``progress``: tqdm bar (None: on
    a terminal only); ``tol``: the relative gap under which the final point's verdict is 'certified'; ``block``:
    iterates per exact xi-averaging product (default: about 4 MB of m x block floats).
    """
    X, yv, rho, eta, lam, A = eq1_inputs(X, y, rho, eta, lam, graph)
    m, n = X.shape
    passes = validate.scalar(passes, "passes", low=0.0, low_open=True)
    if c is None:
        c = min(1.0, 1.0 / (lam + float(np.max(np.einsum("ij,ij->i", X, X)))))
    c = validate.scalar(c, "c", low=0.0, low_open=True)
    coef = eta / (m - 1)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    T = max(1, int(round(passes * m)))
    B = int(block) if block else int(max(1, min(512, (1 << 19) // m)))
    Z = X * yv[:, None]
    indptr, indices = A.indptr, A.indices

    u = np.zeros(n)
    mu = np.zeros(m)
    scale = c  # eta_{t-1}; w_t = -scale * u_t (w_1 = 0 since u_1 = 0)
    wsum = np.zeros(n)
    xisum = np.zeros(m)
    # the current block of iterates, for the exact average of xi
    Ublk = np.zeros((n, B))
    sblk = np.zeros(B)
    mu0 = mu.copy()
    changes: list = []  # (local step, index, delta): mu changes, effective from the next step
    filled = 0
    history: list = []

    def flush():
        nonlocal filled, mu0, changes
        if filled == 0:
            return
        G = 1.0 + (Z @ Ublk[:, :filled]) * sblk[:filled]  # g(w_t) for the block's iterates, m x filled
        if changes:
            D = np.zeros((m, filled))
            for s_, i_, d_ in changes:
                if s_ + 1 < filled:
                    D[i_, s_ + 1] += d_
            Mu = mu0[:, None] + np.cumsum(D, axis=1)
        else:
            Mu = np.broadcast_to(mu0[:, None], (m, filled))
        xisum[:] += np.maximum(np.maximum(-sblk[:filled] * Mu, G), 0.0).sum(axis=1)
        filled, mu0, changes = 0, mu.copy(), []

    def record(t):
        """Certify the averaged point after t steps, log it, and return its `DualityGap`."""
        flush()
        G = certified_gap(X, yv, A, eta, lam, wsum / t, xisum / t, tol=tol)
        history.append({"pass": t / m, "steps": t, "objective": G.objective, "lower": G.lower, "upper": G.upper,
                        "gap": G.gap})
        return G

    idx = rng.integers(m, size=T)
    with _progress(progress, T, "Algorithm 1") as bar, np.errstate(over="ignore", invalid="ignore"):
        for t in range(1, T + 1):
            w = -scale * u
            wsum += w
            Ublk[:, filled] = u
            sblk[filled] = scale
            I = int(idx[t - 1])
            nb = indices[indptr[I]:indptr[I + 1]]
            # xi_t at I and its neighbours: max(-scale mu, g(w_t), 0)
            gI = 1.0 + scale * float(Z[I] @ u)
            xiI = max(-scale * mu[I], gI, 0.0)
            if nb.size:
                gN = 1.0 + scale * (Z[nb] @ u)
                xiN = np.maximum(np.maximum(-scale * mu[nb], gN), 0.0)
                theta = xiI - coef * float(xiN.sum())
            else:
                theta = xiI
            margin_active = gI >= 0.0 and gI >= -scale * mu[I]
            u *= 1.0 - lam * scale  # u + lam w_t
            if margin_active and theta > 0:
                u -= theta * Z[I]
            if (theta > 0 and -scale * mu[I] > max(0.0, gI)) or theta < 0:
                mu[I] += theta
                changes.append((filled, I, theta))
            filled += 1
            scale = c / math.sqrt(t)
            if filled == B:
                flush()
            if t % m == 0:
                if not (np.all(np.isfinite(u)) and np.all(np.isfinite(mu))):
                    raise BackendError(f"Algorithm 1 diverged (non-finite iterate within pass {t // m}) with step "
                                       f"constant c = {c:.3g}; use a smaller c (default min(1, 1/(lam + max ||x_i||^2)))")
                gap = record(t)
                bar.set_postfix(objective=f"{history[-1]['objective']:.6g}", gap=f"{history[-1]['gap']:.2e}")
            bar.update(1)
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(mu))):
        raise BackendError(f"Algorithm 1 diverged (non-finite iterate) with step constant c = {c:.3g}; use a "
                           "smaller c (default min(1, 1/(lam + max ||x_i||^2)))")
    if T % m:
        gap = record(T)  # else the loop's last record (t = T) certified the final average already
    w_bar, xi_bar = wsum / T, xisum / T
    w_last = -scale * u
    xi_last = np.maximum(np.maximum(-scale * mu, 1.0 - Z @ w_last), 0.0)
    return Algorithm1Result(w_bar, xi_bar, gap.objective, gap, history, T, T / m, c,
                            seed if not isinstance(seed, np.random.Generator) else None, w_last, xi_last)

