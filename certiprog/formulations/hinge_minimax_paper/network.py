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

A small LeNet-like CNN (`small_cnn`, `train_cnn`, `cnn_features`; JAX too) is the source feature extractor of the
transfer experiment (the Sec. 5.3 analogue on MNIST in `experiment.py`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from certiprog.errors import BackendError, InputError

__all__ = ["BinaryNetwork", "MultiClassNetwork", "NetworkLibraryMissing", "TrainingHistory", "as_components",
           "binary_network", "cnn_features", "cnn_logits", "lhm_decisions", "lhm_scores", "min_margin",
           "multiclass_network", "require_jax", "small_cnn", "sufficient_gain", "train_cnn", "train_multiclass"]


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


# ----------------------------------------------------------------------------------------------------------------
# The multi-class network of Sec. 4.2
# ----------------------------------------------------------------------------------------------------------------
class NetworkLibraryMissing(BackendError):
    """JAX / optax (the ``nn`` extra) are needed to train the multi-class network and are not installed."""


def require_jax():
    """``(jax, jax.numpy, optax)``; NetworkLibraryMissing saying how to install them otherwise."""
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError as exc:
        raise NetworkLibraryMissing(
            f"training the LHM network needs JAX and optax ({exc}); install the extra: pip install "
            "'certiprog[nn]' (or pip install jax optax)") from None
    return jax, jnp, optax


@dataclass(frozen=True, eq=False)
class MultiClassNetwork:
    """Sec. 4.2's network: G classes, class g an LHM with components of K hyperplanes each.

    Layers: hyperplane units ``h = sigmoid(gain (X W^T + b))`` (U = all hyperplanes of all classes); one AND unit
    per component, the paper's weights 1/K and bias -1 + 1/(2K) times ``2K`` (so its pre-activation is +-1 on step
    inputs) times ``gain``, fixed; G output logits ``a V^T + c`` (trained with the first layer by cross-entropy).
    ``owner`` (U,) is each unit's component, ``K`` (M,) the hyperplanes per component, ``component_class`` (M,)
    each component's class. Arrays are numpy; `forward` is numpy, `train_multiclass` trains with JAX."""

    W: np.ndarray
    b: np.ndarray
    V: np.ndarray
    c: np.ndarray
    owner: np.ndarray
    K: np.ndarray
    component_class: np.ndarray
    gain: float

    @property
    def n_classes(self) -> int:
        return int(self.V.shape[0])

    def params(self) -> dict:
        """The trained parameters ``{W, b, V, c}``."""
        return dict(W=self.W, b=self.b, V=self.V, c=self.c)

    def with_params(self, params: dict) -> "MultiClassNetwork":
        """The same layout with other parameters (shapes checked)."""
        new = {k: np.array(params[k], dtype=float) for k in ("W", "b", "V", "c")}
        for k, v in new.items():
            if v.shape != getattr(self, k).shape:
                raise InputError(f"parameter {k}: shape {v.shape}, expected {getattr(self, k).shape}")
            v.setflags(write=False)
        return MultiClassNetwork(**new, owner=self.owner, K=self.K, component_class=self.component_class,
                                 gain=self.gain)

    def and_matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """The fixed AND layer: ``(A (M, U), a0 (M,))``, pre-activation ``h A^T + a0`` = 2 sum h - 2K + 1."""
        M, U = self.K.size, self.W.shape[0]
        A = np.zeros((M, U))
        A[self.owner, np.arange(U)] = 2.0
        return A, 1.0 - 2.0 * self.K

    def forward(self, X) -> dict:
        """``hidden`` (n, U), ``and_`` (n, M), ``logits`` (n, G) (numpy)."""
        X = _points(X, self.W.shape[1])
        A, a0 = self.and_matrix()
        hidden = expit(self.gain * (X @ self.W.T + self.b))
        and_ = expit(self.gain * (hidden @ A.T + a0))
        return dict(hidden=hidden, and_=and_, logits=and_ @ self.V.T + self.c)

    def predict(self, X) -> np.ndarray:
        """Index of the largest logit per row."""
        return np.argmax(self.forward(X)["logits"], axis=1)


def multiclass_network(class_components, gain: float = 4.0, off_scale: float = 0.01,
                       random_state=None) -> MultiClassNetwork:
    """Sec. 4.2's network initialised from per-class LHMs: ``class_components[g]`` is class g's list of
    ``(W (K, d), b (K,))``. The output weights are 1 from a class's own components and N(0, off_scale^2)
    elsewhere (the paper's "very small values from a Gaussian"), biases 0."""
    try:
        per_class = [as_components(comps) for comps in class_components]
    except TypeError:
        raise InputError("class_components must be a list (one entry per class) of component lists") from None
    if len(per_class) < 2:
        raise InputError(f"a multi-class network needs at least 2 classes, got {len(per_class)}")
    d = per_class[0][0][0].shape[1]
    for g, comps in enumerate(per_class):
        if comps[0][0].shape[1] != d:
            raise InputError(f"class {g}: components have d = {comps[0][0].shape[1]}, class 0 has d = {d}")
    if isinstance(gain, bool) or not np.isfinite(gain) or gain <= 0:
        raise InputError(f"gain must be a positive finite number, got {gain!r}")
    if not (np.isfinite(off_scale) and off_scale >= 0):
        raise InputError(f"off_scale must be a nonnegative number, got {off_scale!r}")
    flat = [comp for comps in per_class for comp in comps]
    component_class = np.repeat(np.arange(len(per_class)), [len(comps) for comps in per_class])
    K = np.array([W.shape[0] for W, _ in flat])
    rng = np.random.default_rng(random_state)
    V = rng.normal(scale=off_scale, size=(len(per_class), len(flat))) if off_scale > 0 else \
        np.zeros((len(per_class), len(flat)))
    V[component_class, np.arange(len(flat))] = 1.0
    arrays = dict(W=np.vstack([W for W, _ in flat]), b=np.concatenate([b for _, b in flat]), V=V,
                  c=np.zeros(len(per_class)), owner=np.repeat(np.arange(len(flat)), K), K=K,
                  component_class=component_class)
    for a in arrays.values():
        a.setflags(write=False)
    return MultiClassNetwork(**arrays, gain=float(gain))


@dataclass(frozen=True)
class TrainingHistory:
    """Per epoch: mean cross-entropy over the mini-batches and the training accuracy after the epoch."""

    loss: tuple
    accuracy: tuple
    initial_loss: float
    initial_accuracy: float


def _labels_index(y, n: int, G: int) -> np.ndarray:
    y = np.asarray(y)
    if y.shape != (n,):
        raise InputError(f"y must have shape ({n},), got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= G:
        raise InputError(f"y must hold class indices 0..{G - 1}")
    return y.astype(np.int32)


@functools.lru_cache(maxsize=16)
def _compiled_training(gain: float, learning_rate: float, apply_f):
    """``(optimizer, step, evaluate)`` of `train_multiclass`, jitted once per (gain, learning rate, feature
    function): later calls with the same shapes reuse the compiled code."""
    jax, jnp, optax = require_jax()
    opt = optax.adam(learning_rate)

    def logits_fn(params, A, a0, xb):
        z = xb if apply_f is None else apply_f(params["features"], xb)
        h = jax.nn.sigmoid(gain * (z @ params["W"].T + params["b"]))
        a = jax.nn.sigmoid(gain * (h @ A.T + a0))
        return a @ params["V"].T + params["c"]

    def loss_fn(params, A, a0, xb, yb):
        return optax.softmax_cross_entropy_with_integer_labels(logits_fn(params, A, a0, xb), yb).mean()

    @jax.jit
    def step(params, state, A, a0, xb, yb):
        loss, grads = jax.value_and_grad(loss_fn)(params, A, a0, xb, yb)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    @jax.jit
    def evaluate(params, A, a0, xb, yb):
        lg = logits_fn(params, A, a0, xb)
        return (optax.softmax_cross_entropy_with_integer_labels(lg, yb).mean(),
                jnp.mean(jnp.argmax(lg, axis=1) == yb))

    return opt, step, evaluate


def train_multiclass(net: MultiClassNetwork, X, y, epochs: int = 20, learning_rate: float = 1e-2,
                     batch_size: int = 128, random_state=None, features=None):
    """Train the first layer and the output layer of ``net`` end to end with softmax cross-entropy (Adam, optax).

    ``y`` holds class indices 0..G-1. ``features = (apply, params)``, optional: a JAX function ``apply(params, X)``
    giving the (n, d) inputs of the network (e.g. a pre-trained feature extractor), trained jointly with it.
    Returns ``(net, history)`` or, with features, ``(net, feature_params, history)``. Needs the ``nn`` extra."""
    _, jnp, _ = require_jax()
    for name, v in (("epochs", epochs), ("batch_size", batch_size)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{name} must be a positive integer, got {v!r}")
    if not (np.isfinite(learning_rate) and learning_rate > 0):
        raise InputError(f"learning_rate must be a positive number, got {learning_rate!r}")
    X = np.asarray(X, dtype=np.float32)
    if X.ndim < 2 or X.shape[0] < 1 or not np.all(np.isfinite(X)):
        raise InputError(f"X must be a finite array with one row per sample, got shape {X.shape}")
    if features is None and X.shape[1:] != (net.W.shape[1],):
        raise InputError(f"X must have {net.W.shape[1]} columns (the hyperplanes' d), got shape {X.shape}")
    n = X.shape[0]
    yi = _labels_index(y, n, net.n_classes)
    A, a0 = (jnp.asarray(v, dtype=jnp.float32) for v in net.and_matrix())
    apply_f, fparams = features if features is not None else (None, None)
    opt, step, evaluate = _compiled_training(float(net.gain), float(learning_rate), apply_f)
    params = {k: jnp.asarray(v, dtype=jnp.float32) for k, v in net.params().items()}
    if apply_f is not None:
        params["features"] = fparams
    state = opt.init(params)

    Xj, yj = jnp.asarray(X), jnp.asarray(yi)
    init_loss, init_acc = (float(v) for v in evaluate(params, A, a0, Xj, yj))
    rng = np.random.default_rng(random_state)
    bs = min(int(batch_size), n)
    losses, accs = [], []
    for _ in range(int(epochs)):
        order = rng.permutation(n)
        batch_losses = []
        for start in range(0, n - bs + 1, bs):  # full batches only: one compiled shape
            idx = order[start:start + bs]
            params, state, loss = step(params, state, A, a0, Xj[idx], yj[idx])
            batch_losses.append(float(loss))
        if not np.all(np.isfinite(batch_losses)):
            raise InputError("training diverged (non-finite loss); lower learning_rate or gain")
        losses.append(float(np.mean(batch_losses)))
        accs.append(float(evaluate(params, A, a0, Xj, yj)[1]))
    history = TrainingHistory(tuple(losses), tuple(accs), init_loss, init_acc)
    trained = net.with_params({k: np.asarray(params[k], dtype=float) for k in ("W", "b", "V", "c")})
    if apply_f is not None:
        return trained, params["features"], history
    return trained, history


# ----------------------------------------------------------------------------------------------------------------
# A small CNN (the source feature extractor of the transfer experiment, Sec. 5.3 analogue)
# ----------------------------------------------------------------------------------------------------------------
def small_cnn(n_out: int, random_state=None, channels: tuple = (8, 16), hidden: int = 32) -> dict:
    """Parameters of a LeNet-like CNN for (n, 28, 28) images: two 5x5 convolutions with stride 2 and ReLU, a dense
    layer of ``hidden`` tanh units (the features), a dense output of ``n_out`` logits. Numpy arrays (He / Glorot
    scaled normal), usable by `cnn_features`, `cnn_logits` and `train_cnn`. Needs the ``nn`` extra to run."""
    if isinstance(n_out, bool) or not isinstance(n_out, (int, np.integer)) or n_out < 2:
        raise InputError(f"n_out must be an integer >= 2, got {n_out!r}")
    rng = np.random.default_rng(random_state)
    c1, c2 = channels
    return dict(c1=rng.normal(scale=np.sqrt(2 / 25), size=(c1, 1, 5, 5)), c1b=np.zeros(c1),
                c2=rng.normal(scale=np.sqrt(2 / (25 * c1)), size=(c2, c1, 5, 5)), c2b=np.zeros(c2),
                d1=rng.normal(scale=np.sqrt(1 / (49 * c2)), size=(49 * c2, hidden)), d1b=np.zeros(hidden),
                d2=rng.normal(scale=np.sqrt(1 / hidden), size=(hidden, n_out)), d2b=np.zeros(n_out))


def cnn_features(params, images):
    """The CNN's feature layer (n, hidden) for images (n, 28, 28) in [0, 1]; a JAX function (jit-able, used as the
    ``features`` of `train_multiclass`)."""
    jax, jnp, _ = require_jax()
    x = jnp.asarray(images, dtype=jnp.float32)[:, None, :, :]
    for w, b in (("c1", "c1b"), ("c2", "c2b")):
        x = jax.lax.conv_general_dilated(x, jnp.asarray(params[w], jnp.float32), (2, 2), "SAME")
        x = jax.nn.relu(x + jnp.asarray(params[b], jnp.float32)[None, :, None, None])
    x = x.reshape(x.shape[0], -1)
    return jnp.tanh(x @ params["d1"] + params["d1b"])


def cnn_logits(params, images):
    """The CNN's output logits (n, n_out)."""
    return cnn_features(params, images) @ params["d2"] + params["d2b"]


def _check_images(images, labels, n_out):
    X = np.asarray(images, dtype=np.float32)
    if X.ndim != 3 or X.shape[1:] != (28, 28) or X.shape[0] < 1 or not np.all(np.isfinite(X)):
        raise InputError(f"images must be a finite (n, 28, 28) array, got shape {X.shape}")
    return X, _labels_index(labels, X.shape[0], n_out)


@functools.lru_cache(maxsize=8)
def _compiled_cnn(learning_rate: float):
    """``(optimizer, step)`` of `train_cnn`, jitted once per learning rate."""
    jax, _, optax = require_jax()
    opt = optax.adam(learning_rate)

    def loss_fn(p, xb, yb):
        return optax.softmax_cross_entropy_with_integer_labels(cnn_logits(p, xb), yb).mean()

    @jax.jit
    def step(p, state, xb, yb):
        loss, g = jax.value_and_grad(loss_fn)(p, xb, yb)
        updates, state = opt.update(g, state, p)
        return optax.apply_updates(p, updates), state, loss

    return opt, step


def train_cnn(params, images, labels, epochs: int = 2, learning_rate: float = 1e-3, batch_size: int = 128,
              random_state=None) -> tuple:
    """Train every layer of `small_cnn` with softmax cross-entropy (Adam). Returns ``(params, losses per epoch)``
    with numpy parameters. Needs the ``nn`` extra."""
    _, jnp, _ = require_jax()
    for name, v in (("epochs", epochs), ("batch_size", batch_size)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{name} must be a positive integer, got {v!r}")
    if not (np.isfinite(learning_rate) and learning_rate > 0):
        raise InputError(f"learning_rate must be a positive number, got {learning_rate!r}")
    X, y = _check_images(images, labels, params["d2"].shape[1])
    p = {k: jnp.asarray(v, jnp.float32) for k, v in params.items()}
    opt, step = _compiled_cnn(float(learning_rate))
    state = opt.init(p)

    rng = np.random.default_rng(random_state)
    bs = min(int(batch_size), len(y))
    losses = []
    for _ in range(int(epochs)):
        order = rng.permutation(len(y))
        batch = []
        for start in range(0, len(y) - bs + 1, bs):
            idx = order[start:start + bs]
            p, state, loss = step(p, state, X[idx], y[idx])
            batch.append(float(loss))
        if not np.all(np.isfinite(batch)):
            raise InputError("CNN training diverged (non-finite loss); lower learning_rate")
        losses.append(float(np.mean(batch)))
    return {k: np.asarray(v, dtype=np.float64) for k, v in p.items()}, losses
