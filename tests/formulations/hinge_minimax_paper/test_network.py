"""Paper 000, Sec. 4: the LHM as a neural network (certiprog.formulations.hinge_minimax_paper.network).

Binary mapping (numpy): the network with the derived sufficient gain decides exactly as the LHM on random components
and points; the paper's unit gain does not; step activations (gain -> infinity) are exact. Multi-class mapping and its
training (JAX + optax, the ``nn`` extra) are tested only when JAX is installed.
"""
import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import CertiprogError, InputError
from certiprog.formulations.hinge_minimax_paper.network import (binary_network, lhm_decisions, lhm_scores,
                                                                min_margin, sufficient_gain)


def random_components(rng, C, K, d, ragged=False):
    comps = []
    for _ in range(C):
        k = int(rng.integers(1, K + 1)) if ragged else K
        comps.append((rng.normal(size=(k, d)), rng.normal(size=k)))
    return comps


def lhm_reference(components, X):
    """Independent reading of Def. 1 with loops: positive iff some component has every w.x + b >= 0."""
    out = []
    for x in X:
        out.append(any(all(float(np.dot(w, x)) + float(bk) >= 0 for w, bk in zip(W, b)) for W, b in components))
    return np.array(out)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), C=st.integers(1, 5), K=st.integers(1, 6), d=st.integers(1, 5),
       ragged=st.booleans())
def test_sufficient_gain_reproduces_lhm(seed, C, K, d, ragged):
    rng = np.random.default_rng(seed)
    comps = random_components(rng, C, K, d, ragged)
    X = rng.normal(size=(300, d)) * 2
    s = sufficient_gain(comps, X)
    net = binary_network(comps, gain=s)
    expected = lhm_reference(comps, X)
    np.testing.assert_array_equal(lhm_decisions(comps, X), expected)
    np.testing.assert_array_equal(net.predict(X), expected)
    # the OR pre-activation has the step network's sign, with at least the derived margin
    pre = net.forward(X)["or_pre"]
    assert np.all((pre > 0) == expected)


def test_unit_gain_breaks_the_mapping():
    # audit item 17: two components (K = 3) neither of which contains the point; with unit-gain sigmoids the AND
    # outputs stay near 1/2 and the OR unit fires anyway
    comps = [(np.eye(3), -np.ones(3) * 0.1), (-np.eye(3), -np.ones(3) * 0.1)]
    X = np.array([[0.0, 0.0, 0.0], [0.05, 0.05, 0.05]])
    assert not lhm_decisions(comps, X).any()
    assert binary_network(comps, gain=1.0).predict(X).all()            # the paper's network says positive: wrong
    assert not binary_network(comps, gain=sufficient_gain(comps, X)).predict(X).any()


def test_gain_below_the_layer_bounds_can_fail():
    # with gain below the AND layer's bound the OR unit fires on a point far outside every component (C = 5, K = 1):
    # the first layer is near-exact (margin >= 10), the AND pre-activations are -1/(2K) = -1/2, and the OR unit
    # needs sigma(-s/2) < 1/(2C), i.e. s > 2 log 9; s = log 9 gives AND outputs 1/4 and an OR input 1/4 - 1/10 > 0
    comps = [(np.array([[1.0]]), np.array([-10.0 - i])) for i in range(5)]
    X = np.array([[0.0]])
    s_needed = 2 * np.log(2 * 5 - 1)
    assert not lhm_decisions(comps, X)[0]
    assert binary_network(comps, gain=0.5 * s_needed).predict(X)[0]
    assert not binary_network(comps, gain=sufficient_gain(comps, X)).predict(X)[0]


def test_large_gain_is_the_step_network():
    rng = np.random.default_rng(3)
    comps = random_components(rng, 3, 4, 2)
    X = rng.normal(size=(500, 2))
    net = binary_network(comps, gain=1e12)       # sigmoids saturate to exact 0 / 1 in float64, no overflow warning
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(net.predict(X), lhm_reference(comps, X))


def test_layers_are_the_papers():
    comps = [(np.ones((3, 2)), np.zeros(3)), (np.ones((3, 2)), np.zeros(3))]
    L = binary_network(comps).layers()
    np.testing.assert_allclose(L["and_W"], np.kron(np.eye(2), np.full((1, 3), 1 / 3)))
    np.testing.assert_allclose(L["and_b"], -1 + 1 / 6)
    np.testing.assert_allclose(L["out_W"], [[0.5, 0.5], [-0.5, -0.5]])
    np.testing.assert_allclose(L["out_b"], [-0.25, 0.25])


def test_scores_and_margin():
    comps = [(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0.0, -1.0]))]
    X = np.array([[2.0, 3.0], [2.0, 0.5], [-1.0, 5.0]])
    np.testing.assert_allclose(lhm_scores(comps, X), [2.0, -0.5, -1.0])
    assert min_margin(comps, X) == pytest.approx(0.5)
    # a bare (W, b) is one component
    np.testing.assert_allclose(lhm_scores(comps[0], X), [2.0, -0.5, -1.0])


def test_scale_invariance_of_the_decision():
    # scaling X and b by 1e8 or 1e-8 changes the margin, so the sufficient gain scales inversely; decisions stay
    rng = np.random.default_rng(5)
    comps = random_components(rng, 2, 3, 3)
    X = rng.normal(size=(200, 3))
    base = lhm_reference(comps, X)
    for scale in (1e8, 1e-8):
        sc = [(W, b * scale) for W, b in comps]
        Xs = X * scale
        net = binary_network(sc, gain=sufficient_gain(sc, Xs))
        np.testing.assert_array_equal(net.predict(Xs), base)


@pytest.mark.parametrize("bad, match", [
    ([], "at least one"),
    ([(np.ones((2, 3)), np.ones(3))], "shape"),
    ([(np.ones((2, 3)), np.ones(2)), (np.ones((2, 4)), np.ones(2))], "columns"),
    ([(np.array([[np.nan, 1.0]]), np.ones(1))], "finite"),
    ([np.ones(3)], "pair"),
    (None, "list"),
])
def test_bad_components(bad, match):
    with pytest.raises(InputError, match=match):
        binary_network(bad)


def test_bad_points_and_gain():
    comps = [(np.eye(2), np.zeros(2))]
    with pytest.raises(InputError, match="shape"):
        lhm_scores(comps, np.ones((3, 3)))
    with pytest.raises(InputError, match="finite"):
        lhm_scores(comps, np.array([[np.nan, 0.0]]))
    for g in (0.0, -1.0, np.nan, np.inf, True, "2"):
        with pytest.raises(InputError, match="gain"):
            binary_network(comps, gain=g)
    with pytest.raises(InputError, match="on a hyperplane"):
        sufficient_gain(comps, np.array([[0.0, 1.0]]))
    with pytest.raises(InputError, match="slack"):
        sufficient_gain(comps, np.array([[1.0, 1.0]]), slack=0)
    assert issubclass(InputError, CertiprogError)


# ------------------------------------------------------------------------------------------------------------------
# Multi-class network (Sec. 4.2)
# ------------------------------------------------------------------------------------------------------------------
from certiprog.formulations.hinge_minimax_paper.network import (MultiClassNetwork, NetworkLibraryMissing,  # noqa: E402
                                                                multiclass_network, train_multiclass)


def box(center, half):
    """A K = 4 component: the square |x - center|_inf <= half as 4 half-spaces."""
    W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    c = np.asarray(center, float)
    return W, np.array([half - c[0], half + c[0], half - c[1], half + c[1]])


def three_classes(n_per=120, seed=0):
    """Class 0: two blobs (two components), classes 1 and 2: one blob each."""
    rng = np.random.default_rng(seed)
    centers = [[-3, -3], [3, 3], [-3, 3], [3, -3]]
    labels = [0, 0, 1, 2]
    X = np.vstack([rng.normal(c, 0.6, size=(n_per, 2)) for c in centers])
    y = np.repeat(labels, n_per)
    comps = [[box(centers[0], 1.5), box(centers[1], 1.5)], [box(centers[2], 1.5)], [box(centers[3], 1.5)]]
    return X, y, comps


def test_multiclass_layout_and_forward():
    X, y, comps = three_classes()
    net = multiclass_network(comps, gain=4.0, off_scale=0.0)
    assert isinstance(net, MultiClassNetwork)
    assert net.W.shape == (16, 2) and net.V.shape == (3, 4) and net.n_classes == 3
    np.testing.assert_array_equal(net.component_class, [0, 0, 1, 2])
    np.testing.assert_array_equal(net.V, [[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    A, a0 = net.and_matrix()
    # the AND pre-activation is +1 when all K inputs are 1 and -1 when one is 0 (step inputs)
    assert (np.ones(16) @ A.T + a0)[0] == 1.0 and (np.r_[0.0, np.ones(15)] @ A.T + a0)[0] == -1.0
    # with a large gain the initial network is the argmax of the per-class LHM decisions on this separable data
    big = multiclass_network(comps, gain=50.0, off_scale=0.0)
    assert np.mean(big.predict(X) == y) > 0.97


def test_multiclass_bad_input():
    _, _, comps = three_classes()
    with pytest.raises(InputError, match="at least 2 classes"):
        multiclass_network(comps[:1])
    with pytest.raises(InputError, match="d = "):
        multiclass_network([comps[0], [(np.ones((2, 3)), np.zeros(2))]])
    with pytest.raises(InputError, match="gain"):
        multiclass_network(comps, gain=-1)


def test_missing_library_is_a_clear_error(monkeypatch):
    import sys

    X, y, comps = three_classes(10)
    for mod in ("jax", "jax.numpy", "optax"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(NetworkLibraryMissing, match=r"certiprog\[nn\]"):
        train_multiclass(multiclass_network(comps), X, y, epochs=1)
    from certiprog.formulations.hinge_minimax_paper.estimator_net import LHMNetClassifier
    with pytest.raises(CertiprogError, match="nn"):
        LHMNetClassifier(init_components=comps).fit(X, y)


needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None or importlib.util.find_spec("optax") is None,
                               reason="the nn extra (jax, optax) is not installed")


@needs_jax
def test_training_lowers_the_loss_and_matches_numpy():
    X, y, comps = three_classes(seed=1)
    net = multiclass_network(comps, gain=2.0, off_scale=0.01, random_state=0)
    # JAX's initial loss equals the numpy forward pass's
    lg = net.forward(X)["logits"]
    lse = np.log(np.exp(lg).sum(axis=1))
    trained, hist = train_multiclass(net, X, y, epochs=15, learning_rate=0.05, batch_size=64, random_state=0)
    assert hist.initial_loss == pytest.approx(np.mean(lse - lg[np.arange(len(y)), y]), rel=1e-4)
    assert len(hist.loss) == 15 and hist.loss[-1] < 0.5 * hist.initial_loss
    assert hist.accuracy[-1] >= hist.initial_accuracy and hist.accuracy[-1] > 0.97
    assert np.mean(trained.predict(X) == y) == pytest.approx(hist.accuracy[-1], abs=1e-6)
    # the layout is unchanged, the first layer moved
    np.testing.assert_array_equal(trained.owner, net.owner)
    assert not np.allclose(trained.W, net.W)
    # seeded: the same run twice gives the same parameters
    one, _ = train_multiclass(net, X, y, epochs=2, learning_rate=0.05, batch_size=64, random_state=1)
    two, _ = train_multiclass(net, X, y, epochs=2, learning_rate=0.05, batch_size=64, random_state=1)
    np.testing.assert_allclose(one.W, two.W)


@needs_jax
def test_training_with_a_feature_extractor():
    import jax.numpy as jnp

    X, y, comps = three_classes(seed=2)
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])   # inputs rotated; the extractor starts as the inverse rotation

    def apply(p, xb):
        return xb @ p["A"]

    net = multiclass_network(comps, gain=2.0, random_state=0)
    trained, fparams, hist = train_multiclass(net, X @ rot.T, y, epochs=10, learning_rate=0.05, batch_size=64,
                                              random_state=0, features=(apply, {"A": jnp.asarray(rot)}))
    assert hist.initial_accuracy > 0.97 and hist.loss[-1] < hist.initial_loss
    assert not np.allclose(np.asarray(fparams["A"]), rot)   # the extractor was trained too


@needs_jax
def test_training_bad_input():
    X, y, comps = three_classes(10)
    net = multiclass_network(comps)
    with pytest.raises(InputError, match="class indices"):
        train_multiclass(net, X, y + 1, epochs=1)
    with pytest.raises(InputError, match="epochs"):
        train_multiclass(net, X, y, epochs=0)
    with pytest.raises(InputError, match="columns"):
        train_multiclass(net, np.ones((len(y), 3)), y, epochs=1)
    with pytest.raises(InputError, match="finite"):
        train_multiclass(net, np.full_like(X, np.nan), y, epochs=1)


@needs_jax
def test_lhm_net_classifier_from_given_components():
    from certiprog.formulations.hinge_minimax_paper.estimator_net import LHMNetClassifier

    X, y, comps = three_classes(seed=3)
    names = np.array(["a", "b", "c"])[y]
    clf = LHMNetClassifier(init_components=comps, gain=2.0, epochs=8, learning_rate=0.05, batch_size=64,
                           random_state=0).fit(X, names)
    np.testing.assert_array_equal(clf.classes_, ["a", "b", "c"])
    assert np.mean(clf.predict(X) == names) > 0.97
    P = clf.predict_proba(X)
    assert P.shape == (len(y), 3) and np.allclose(P.sum(axis=1), 1)
    assert clf.decision_function(X).shape == (len(y), 3)
    with pytest.raises(InputError, match="entries"):
        LHMNetClassifier(init_components=comps[:2]).fit(X, names)
    with pytest.raises(InputError, match="2 classes"):
        LHMNetClassifier(init_components=comps).fit(X, np.zeros(len(y)))


@needs_jax
@pytest.mark.skipif(importlib.util.find_spec("certiprog.formulations.hinge_minimax_paper.lhm") is None,
                    reason="the LHM learner (lhm.py) is not in this tree")
def test_lhm_net_classifier_from_lhm_fits():
    # per-class LHMs (Alg. 2) initialise the network; the binary mapping of each class's LHM with the sufficient
    # gain decides as that LHM on the training points
    from certiprog.formulations.hinge_minimax_paper.estimator_net import LHMNetClassifier

    X, y, _ = three_classes(n_per=40, seed=4)
    clf = LHMNetClassifier(C=1, K=2, lhm_params=dict(delta=0.3, lam=0.1, certify=False, random_state=0),
                           gain=2.0, epochs=5, learning_rate=0.05, batch_size=32, random_state=0).fit(X, y)
    assert len(clf.components_) == 3 and all(len(c) == 1 and c[0][0].shape == (2, 2) for c in clf.components_)
    for g, comps in enumerate(clf.components_):
        try:
            s = sufficient_gain(comps, X)
        except InputError:  # a training point exactly on a plane (not expected with continuous data)
            continue
        np.testing.assert_array_equal(binary_network(comps, s).predict(X), lhm_decisions(comps, X))
    assert clf.history_.accuracy[-1] >= clf.history_.initial_accuracy - 0.02
    assert np.mean(clf.predict(X) == y) > 0.6


@needs_jax
def test_small_cnn_shapes_and_bad_input():
    from certiprog.formulations.hinge_minimax_paper.network import cnn_features, cnn_logits, small_cnn, train_cnn

    p = small_cnn(3, random_state=0)
    imgs = np.random.default_rng(0).uniform(size=(4, 28, 28))
    assert np.asarray(cnn_features(p, imgs)).shape == (4, 32)
    assert np.asarray(cnn_logits(p, imgs)).shape == (4, 3)
    assert np.all(np.abs(np.asarray(cnn_features(p, imgs))) <= 1)     # tanh features
    with pytest.raises(InputError, match="n_out"):
        small_cnn(1)
    with pytest.raises(InputError, match="28, 28"):
        train_cnn(p, np.ones((4, 27, 28)), np.zeros(4, int), epochs=1)
    with pytest.raises(InputError, match="class indices"):
        train_cnn(p, imgs, np.array([0, 1, 2, 3]), epochs=1)
    with pytest.raises(InputError, match="epochs"):
        train_cnn(p, imgs, np.zeros(4, int), epochs=0)
