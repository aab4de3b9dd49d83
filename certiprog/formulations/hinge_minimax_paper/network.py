"""The LHM classifier as a neural network (paper 000, Sec. 4).

Binary mapping (Sec. 4.1), plain numpy, no training: an LHM with C components, component c an intersection of
K_c half-spaces ``W_c x + b_c >= 0`` (rows of W_c, Def. 1), decides "positive" iff some component holds all its
inequalities. The paper's network: K_1 + ... + K_C hyperplane units ``sigma(w^T x + b)``; one AND unit per
component (weights 1/K, bias -1 + 1/(2K)); an OR unit (weights 1/C, bias -1/(2C)) and a NOT-OR unit (weights
-1/C, bias 1/(2C)); output "positive" iff OR > NOT-OR.

With step activations this is exact. With the paper's unit-gain sigmoids it is not (docs/derivations/000.md item 17:
the AND outputs stay near 1/2, so the OR fires when no component does). Here every sigmoid layer's weights and
biases are multiplied by a gain ``s`` (the paper's network is ``s = 1``), and `sufficient_gain` gives an ``s`` for
which the network decides as the LHM on given points. Derivation (m = min |w^T x + b| over the points and the
hyperplanes, K = max K_c, eps_1 = sigma(-s m) the largest distance of a hyperplane unit from its step value):

* AND unit of a component whose K inequalities hold: mean input >= 1 - eps_1, pre-activation >= 1/(2K) - eps_1;
  if one fails: mean <= 1 - 1/K + eps_1/K, pre-activation <= -1/(2K) + eps_1/K. With ``s >= log(4K - 1)/m``,
  eps_1 <= 1/(4K), so |AND pre-activation| >= 1/(4K) with the step's sign.
* The AND outputs are then within eps_2 = sigma(-s/(4K)) of 0 / 1. OR pre-activation: >= (1 - 2 eps_2)/(2C) if a
  component fires, <= eps_2 - 1/(2C) if none does; both have the step's sign iff eps_2 < 1/(2C), i.e.
  ``s > 4K log(2C - 1)``.
* NOT-OR's pre-activation is minus OR's, so OR > NOT-OR iff OR's pre-activation is > 0 (any gain of the last layer).

So ``s > max(log(4K - 1)/m, 4K log(2C - 1))`` suffices; `sufficient_gain` returns that bound times ``1 + slack``.
A point on a hyperplane (m = 0) has no finite sufficient gain (the LHM's ``>= 0`` is a step at exactly 0):
`sufficient_gain` then raises.

Multi-class mapping (Sec. 4.2): `multiclass_network` and its numpy forward pass need nothing more; its end-to-end
training with cross-entropy (`train_multiclass`) needs JAX and optax (the ``nn`` extra: ``pip install
"certiprog[nn]"``), imported only inside that function, so this module and the rest of certiprog work without them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from certiprog.errors import InputError

__all__ = ["BinaryNetwork", "as_components", "binary_network", "lhm_decisions", "lhm_scores", "min_margin",
           "sufficient_gain"]


# ----------------------------------------------------------------------------------------------------------------
# Components and the LHM decision itself
# ----------------------------------------------------------------------------------------------------------------
def as_components(components, d: int | None = None) -> list:
    """Validated copy of an LHM's components: a non-empty list of ``(W (K, d), b (K,))`` float arrays, K >= 1,
    every W with the same d (``d`` if given), all finite. InputError naming the component otherwise."""
    if isinstance(components, tuple) and len(components) == 2 and np.ndim(components[0]) == 2:
        components = [components]  # one component given as a bare (W, b)
    try:
        comps = list(components)
    except TypeError:
        raise InputError("components must be a list of (W (K, d), b (K,)) pairs") from None
    if not comps:
        raise InputError("components must hold at least one (W, b) pair (C >= 1)")
    out = []
    for i, comp in enumerate(comps):
        try:
            W, b = comp
        except (TypeError, ValueError):
            raise InputError(f"component {i} must be a pair (W (K, d), b (K,)), got {type(comp).__name__}") from None
        W = np.array(W, dtype=float, ndmin=2)
        b = np.array(b, dtype=float).reshape(-1)
        if W.ndim != 2 or W.shape[0] < 1 or W.shape[1] < 1:
            raise InputError(f"component {i}: W must be a (K, d) array with K, d >= 1, got shape {W.shape}")
        if b.shape != (W.shape[0],):
            raise InputError(f"component {i}: b must have shape ({W.shape[0]},) to match W {W.shape}, "
                             f"got {b.shape}")
        if d is None:
            d = W.shape[1]
        if W.shape[1] != d:
            raise InputError(f"component {i}: W has {W.shape[1]} columns, expected d = {d}")
        if not (np.all(np.isfinite(W)) and np.all(np.isfinite(b))):
            raise InputError(f"component {i}: W and b must be finite (NaN or inf found)")
        out.append((W, b))
    return out


def _points(X, d: int) -> np.ndarray:
    X = np.array(X, dtype=float, ndmin=2)
    if X.ndim != 2 or X.shape[1] != d:
        raise InputError(f"X must be an (n, {d}) array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise InputError("X must be finite (NaN or inf found)")
    return X


def _preactivations(components, X) -> tuple[np.ndarray, np.ndarray]:
    """``Z = X W^T + b`` for all hyperplanes stacked (n, sum K_c) and each hyperplane's component index."""
    W = np.vstack([c[0] for c in components])
    b = np.concatenate([c[1] for c in components])
    owner = np.repeat(np.arange(len(components)), [c[0].shape[0] for c in components])
    return X @ W.T + b, owner


def lhm_scores(components, X) -> np.ndarray:
    """The LHM score ``max_c min_k (W_c x + b_c)_k`` per point: >= 0 iff some component holds all its half-spaces
    (the score used for ROC / EER)."""
    comps = as_components(components)
    X = _points(X, comps[0][0].shape[1])
    Z, owner = _preactivations(comps, X)
    per_comp = np.stack([Z[:, owner == c].min(axis=1) for c in range(len(comps))], axis=1)
    return per_comp.max(axis=1)


def lhm_decisions(components, X) -> np.ndarray:
    """True where the LHM says positive (Def. 1: all inequalities ``>= 0`` of some component)."""
    return lhm_scores(components, X) >= 0


def min_margin(components, X) -> float:
    """``min |w^T x + b|`` over the points and every hyperplane: how close a point comes to a unit's step."""
    comps = as_components(components)
    X = _points(X, comps[0][0].shape[1])
    Z, _ = _preactivations(comps, X)
    return float(np.abs(Z).min()) if Z.size else np.inf


def sufficient_gain(components, X, slack: float = 0.01) -> float:
    """A sigmoid gain ``s`` for which `binary_network` decides as the LHM on every row of ``X`` (derivation in the
    module docstring): ``(1 + slack) * max(log(4K - 1)/m, 4K log(2C - 1))``. InputError if a point lies on a
    hyperplane (m = 0: no finite gain reproduces the step at 0)."""
    comps = as_components(components)
    if not (np.isfinite(slack) and slack > 0):
        raise InputError(f"slack must be a positive number, got {slack!r}")
    m = min_margin(comps, X)
    if not m > 0:
        raise InputError("a point lies exactly on a hyperplane (margin 0): no finite sigmoid gain reproduces the "
                         "LHM's step at 0 there; drop or perturb such points")
    K = max(W.shape[0] for W, _ in comps)
    C = len(comps)
    bound = max(np.log(4 * K - 1) / m, 4 * K * np.log(2 * C - 1))
    if not np.isfinite(bound):
        raise InputError(f"the margin {m:.3g} is too small for a finite float gain")
    return float((1 + slack) * bound)


# ----------------------------------------------------------------------------------------------------------------
# The binary network of Sec. 4.1
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class BinaryNetwork:
    """Sec. 4.1's network with every sigmoid layer's weights and biases times ``gain``.

    ``W`` (U, d), ``b`` (U,): the hyperplane units (U = K_1 + ... + K_C), ``owner`` (U,): the component of each unit,
    ``K`` (C,): hyperplanes per component. The AND / OR / NOT-OR weights are fixed (the paper's) and built in
    `forward`."""

    W: np.ndarray
    b: np.ndarray
    owner: np.ndarray
    K: np.ndarray
    gain: float

    @property
    def n_components(self) -> int:
        return int(self.K.size)

    def layers(self) -> dict:
        """The fixed layers as matrices: ``and_W`` (C, U), ``and_b`` (C,), ``out_W`` (2, C) (rows OR, NOT-OR),
        ``out_b`` (2,); the paper's values, before the gain."""
        C, U = self.n_components, self.W.shape[0]
        and_W = np.zeros((C, U))
        and_W[self.owner, np.arange(U)] = 1.0 / self.K[self.owner]
        and_b = -1.0 + 1.0 / (2 * self.K)
        out_W = np.vstack([np.full(C, 1.0 / C), np.full(C, -1.0 / C)])
        out_b = np.array([-1.0 / (2 * C), 1.0 / (2 * C)])
        return dict(and_W=and_W, and_b=and_b, out_W=out_W, out_b=out_b)

    def forward(self, X) -> dict:
        """Activations of every layer: ``hidden`` (n, U), ``and_`` (n, C), ``outputs`` (n, 2) = (OR, NOT-OR),
        and the OR unit's pre-activation ``or_pre`` (n,) (its sign is the decision)."""
        X = _points(X, self.W.shape[1])
        L = self.layers()
        s = self.gain
        hidden = expit(s * (X @ self.W.T + self.b))
        and_ = expit(s * (hidden @ L["and_W"].T + L["and_b"]))
        pre = and_ @ L["out_W"].T + L["out_b"]
        return dict(hidden=hidden, and_=and_, or_pre=pre[:, 0], outputs=expit(s * pre))

    def predict(self, X) -> np.ndarray:
        """True where the positive output (OR) exceeds the negative one (NOT-OR)."""
        out = self.forward(X)["outputs"]
        return out[:, 0] > out[:, 1]


def binary_network(components, gain: float = 1.0) -> BinaryNetwork:
    """Sec. 4.1's network of an LHM's components ``[(W (K, d), b (K,)), ...]`` with sigmoid gain ``gain`` (the
    paper's network is ``gain = 1``, which does not reproduce the LHM; see `sufficient_gain`)."""
    comps = as_components(components)
    if isinstance(gain, bool) or not isinstance(gain, (int, float, np.floating, np.integer)) \
            or not np.isfinite(gain) or gain <= 0:
        raise InputError(f"gain must be a positive finite number, got {gain!r}")
    W = np.vstack([c[0] for c in comps])
    b = np.concatenate([c[1] for c in comps])
    K = np.array([c[0].shape[0] for c in comps])
    owner = np.repeat(np.arange(len(comps)), K)
    for a in (W, b, K, owner):
        a.setflags(write=False)
    return BinaryNetwork(W, b, owner, K, float(gain))
