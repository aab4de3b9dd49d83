"""Image manifolds of paper 001 Sec. 4.2: affine warps, Gabor bank, features, parametric maps."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import InputError
from certiprog.formulations.mcp_paper.image_manifolds import (WINDOW, GaborBank, ImageFeatures, WarpManifoldMap, gabor_kernel,
                                                   image_manifolds, templates, warp)


@pytest.fixture(scope="module")
def image():
    return np.random.default_rng(0).random((40, 50))


def test_identity_warp_reproduces_the_window(image):
    win = (10, 12, 20, 25)
    for kind, zeros in (("translation", [0, 0]), ("affine", [0, 0, 0, 0])):
        assert np.allclose(warp(image, zeros, win, kind), image[10:30, 12:37], atol=1e-12)
    padded = warp(image, [0, 0], win, pad=3)
    assert np.allclose(padded, image[7:33, 9:40], atol=1e-12)


@settings(derandomize=True, deadline=None, max_examples=15)
@given(dy=st.integers(-5, 5), dx=st.integers(-5, 5))
def test_integer_translation_is_a_roll_on_the_interior(dy, dx):
    img = np.random.default_rng(1).random((30, 36))
    full = warp(img, [dy, dx], (0, 0, 30, 36))
    rolled = np.roll(img, (dy, dx), axis=(0, 1))
    assert np.allclose(full[5:-5, 5:-5], rolled[5:-5, 5:-5], atol=1e-12)


def test_translation_moves_the_content_by_the_parameters(image):
    # a window moved by (dy, dx) shows the source content that was dy rows up and dx columns left
    got = warp(image, [2, -3], (10, 12, 20, 25))
    assert np.allclose(got, image[8:28, 15:40], atol=1e-12)


def test_shear_moves_corners_by_the_parameter():
    # a single bright pixel at the window's top-left corner moves horizontally by -hx under horizontal shear hx
    h, w = 21, 25
    img = np.zeros((61, 65))
    r0, c0 = 20, 20
    img[r0, c0 + 8] = 1.0  # top row, 8 columns from the left
    out = warp(img, [0, 0, 4, 0], (r0, c0, h, w), "affine", order=1)
    # top row is at distance (h-1)/2 = 10 above the centre: column shift = 2*4/h*(-10)
    shift = 2 * 4 / h * -((h - 1) / 2)
    r, c = np.unravel_index(np.argmax(out), out.shape)
    assert r == 0 and abs(c - (8 + shift)) <= 0.5
    # vertical shear hy moves the left edge up and the right edge down
    img2 = np.zeros((61, 65))
    img2[r0 + 10, c0] = 1.0  # centre row, left edge
    out2 = warp(img2, [0, 0, 0, 3], (r0, c0, h, w), "affine")
    r, c = np.unravel_index(np.argmax(out2), out2.shape)
    assert c == 0 and abs(r - (10 + 2 * 3 / w * -((w - 1) / 2))) <= 0.5


def test_warp_bad_input(image):
    with pytest.raises(InputError, match="2 parameters"):
        warp(image, [1, 2, 3], (0, 0, 5, 5))
    with pytest.raises(InputError, match="finite"):
        warp(image, [np.nan, 0], (0, 0, 5, 5))
    with pytest.raises(InputError, match="kind"):
        warp(image, [0, 0], (0, 0, 5, 5), kind="rotation")
    with pytest.raises(InputError, match="2-D"):
        warp(np.zeros((4, 4, 3)), [0, 0], (0, 0, 2, 2))
    with pytest.raises(InputError, match="singular"):
        warp(image, [0, 0, 10, 12.5], (0, 0, 20, 25), "affine")


def test_gabor_kernel_properties():
    k = gabor_kernel(5.0, 0.3)
    assert abs(k.sum()) < 1e-12 and abs(np.linalg.norm(k) - 1) < 1e-12
    assert np.allclose(k, k[::-1, ::-1])  # even filter: convolution = correlation
    with pytest.raises(InputError):
        gabor_kernel(-1.0, 0.0)


def test_gabor_bank_shape_and_rectification():
    bank = GaborBank()
    assert len(bank.kernels()) == 16
    X = np.random.default_rng(2).random((3, 20 + 2 * bank.pad, 25 + 2 * bank.pad))
    R = bank.responses(X)
    assert R.shape == (3, 16, 20, 25) and np.all(R >= 0)
    with pytest.raises(InputError, match="pad"):
        bank.responses(np.zeros((1, 10, 10)))


@pytest.mark.parametrize("k", range(4))
def test_gabor_orientation_selectivity(k):
    """A grating whose wave vector has angle theta_k excites the theta_k filters most, at every scale."""
    bank = GaborBank()
    theta = bank.orientations[k]
    size = 20 + 2 * bank.pad
    rows, cols = np.mgrid[:size, :size].astype(float)
    for s, lam in enumerate(bank.wavelengths):
        grating = np.cos(2 * np.pi * (cols * np.cos(theta) + rows * np.sin(theta)) / lam)
        energy = bank.responses(grating[None])[0].reshape(len(bank.wavelengths), 4, -1).mean(axis=2)
        assert int(np.argmax(energy[s])) == k


def test_feature_dimensions_and_sparse_gabor_matches_filtering():
    pix = ImageFeatures("pixel")
    assert pix.N == 500 == WINDOW[0] * WINDOW[1] and pix.pad == 0
    gab = ImageFeatures("gabor", n_features=500, rng=3)
    assert gab.N == 500 and len(np.unique(gab.index)) == 500
    X = np.random.default_rng(4).random((2, 20 + 2 * gab.pad, 25 + 2 * gab.pad))
    F = gab(X)
    assert F.shape == (2, 500)
    assert np.allclose(F, gab.bank.responses(X).reshape(2, -1)[:, gab.index], atol=1e-12)
    small = ImageFeatures("pixel", n_features=100, rng=0)
    assert small(np.ones((4, 20, 25))).shape == (4, 100)
    with pytest.raises(InputError, match="n_features"):
        ImageFeatures("pixel", n_features=501)
    with pytest.raises(InputError, match="features"):
        ImageFeatures("hog")
    with pytest.raises(InputError, match="shape"):
        pix(np.zeros((1, 21, 25)))


@pytest.mark.parametrize("source", ["digits", "sample_images"])
def test_image_manifolds_build_and_sample(source):
    maps = image_manifolds(source, P=8, kind="affine", features="pixel", shift=2, shear=2)
    assert len(maps) == 8 and all(m.N == 500 and m.dim == 4 for m in maps)
    T = np.vstack([m(np.zeros(4)) for m in maps])
    assert np.allclose(T.mean(axis=0), 0, atol=1e-12)  # centred templates
    assert abs(np.linalg.norm(T, axis=1).mean() - 1) < 1e-12
    assert np.linalg.matrix_rank(T) == 7  # distinct templates (rank P - 1 after centring)
    S = maps[0].sample_params(50, 0)
    assert S.shape == (50, 4) and np.all(np.abs(S) <= 2)
    X = maps[0].sample(50, 0)
    assert X.shape == (50, 500) and np.all(np.isfinite(X))
    assert np.allclose(X, maps[0].batch(S))


@pytest.mark.parametrize("kind, features, tol", [("translation", "pixel", 0.01), ("affine", "pixel", 0.01),
                                                 ("affine", "gabor", 0.05)])
def test_jacobian_matches_directional_finite_difference(kind, features, tol):
    """Cubic-spline warps are smooth in s: the Jacobian is accurate to O(step^2) in every direction (rectified
    Gabor responses have kinks where a response crosses zero, hence the looser tolerance)."""
    m = image_manifolds("digits", P=2, kind=kind, features=features, shift=2, shear=2)[1]
    rng = np.random.default_rng(6)
    s = m.sample_params(1, rng)[0] * 0.8
    v = rng.standard_normal(m.dim)
    J = m.jacobian(s)
    assert J.shape == (500, m.dim)
    fd = (m(s + 1e-4 * v) - m(s - 1e-4 * v)) / 2e-4
    assert np.linalg.norm(J @ v - fd) <= tol * np.linalg.norm(fd)


def test_templates_bad_input():
    with pytest.raises(InputError, match="P"):
        templates("digits", 1, 5)
    with pytest.raises(InputError, match="10 classes"):
        templates("digits", 11, 5)
    with pytest.raises(InputError, match="source"):
        templates("imagenet", 4, 5)
    with pytest.raises(InputError, match="shift"):
        WarpManifoldMap(np.zeros((30, 30)), (5, 5, 20, 20), ImageFeatures("pixel", (20, 20), 400), shift=-1)
