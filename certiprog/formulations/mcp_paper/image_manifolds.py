"""Image manifolds of paper 001 Sec. 4.2: affine warps of template images, in pixel or Gabor features.

A manifold is ``M = {f(s) : s in box}``: ``s`` are warp parameters in pixels, ``f`` warps a source image
(`warp`), cuts out a fixed window and maps it to N features (`ImageFeatures`). Two warp families:

* ``"translation"`` (D = 2): ``s = (dy, dx)``, the content moves by dy rows and dx columns;
* ``"affine"`` (D = 4): ``s = (dy, dx, hx, hy)``, translation plus horizontal shear (the window's top and bottom
  edges move by -hx and +hx columns) and vertical shear (its left and right edges move by -hy and +hy rows).

Every parameter is a displacement of the window's corners in pixels, the paper's measure of variability.
Templates come from images that ship with scikit-learn (`load_sample_images`, `load_digits`); the paper's ImageNet
templates are not available offline. Features: grey values of the window (`"pixel"`) or a V1-like Gabor bank
(`GaborBank`: 4 orientations x 4 scales, full-wave rectified), with N features drawn at fixed random positions.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy import ndimage, signal

from certiprog.errors import InputError

WINDOW = (20, 25)  # 500 pixels: pixel features are exactly N = 500
WARP_DIMS = {"translation": 2, "affine": 4}


# ------------------------------------------------------------------ warps
def _params(params, kind: str) -> np.ndarray:
    if kind not in WARP_DIMS:
        raise InputError(f"kind must be one of {sorted(WARP_DIMS)}; got {kind!r}")
    s = np.asarray(params, dtype=float)
    if s.ndim != 1 or s.size != WARP_DIMS[kind]:
        raise InputError(f"a {kind} warp takes {WARP_DIMS[kind]} parameters (pixels); got shape {s.shape}")
    if not np.all(np.isfinite(s)):
        raise InputError(f"warp parameters must be finite; got {s}")
    return s


def spline_coefficients(image, order: int = 3) -> np.ndarray:
    """B-spline coefficients of a grey-level image (`scipy.ndimage.spline_filter`, mirrored edges): compute them
    once per image and pass them to `warp` (the prefilter costs more than one warp)."""
    img = np.asarray(image, dtype=float)
    if img.ndim != 2:
        raise InputError(f"image must be a 2-D grey-level array; got shape {img.shape}")
    return img if order <= 1 else ndimage.spline_filter(img, order=order, mode="mirror")


def warp(image, params, window, kind: str = "translation", pad: int = 0, order: int = 3,
         coefficients=None) -> np.ndarray:
    """The ``window = (row0, col0, height, width)`` of ``image`` after the warp ``params`` (plus ``pad`` pixels
    of context on every side), by `scipy.ndimage.affine_transform` with mirrored edges.

    The warp acts about the window's centre c: a source point p goes to c + B (p - c) + t, t = (dy, dx) and
    B = [[1, 2 hy / width], [2 hx / height, 1]] (rows, cols), so a corner moves by at most |t| + |h| pixels.
    Zero parameters return the window unchanged; an integer translation equals a shift (`np.roll`) of it.
    ``order=3`` (cubic B-splines, the default) makes the warp twice differentiable in the parameters, which the
    manifold oracle's local search needs (bilinear warps are only piecewise linear in them); ``coefficients``:
    `spline_coefficients` of ``image``, precomputed.
    """
    img = np.asarray(image, dtype=float)
    if img.ndim != 2:
        raise InputError(f"image must be a 2-D grey-level array; got shape {img.shape}")
    s = _params(params, kind)
    r0, c0, h, w = (int(v) for v in window)
    if h < 1 or w < 1:
        raise InputError(f"window height and width must be >= 1; got {window}")
    a, b = (2.0 * s[2] / h, 2.0 * s[3] / w) if kind == "affine" else (0.0, 0.0)  # B = [[1, b], [a, 1]]
    det = 1.0 - a * b
    if abs(det) < 1e-6:
        raise InputError(f"shear parameters {s[2:]} make the warp singular; keep |hx * hy| well below height*width/4")
    Binv = np.array([[1.0, -b], [-a, 1.0]]) / det
    centre = np.array([r0 + (h - 1) / 2.0, c0 + (w - 1) / 2.0])
    origin = np.array([r0 - pad, c0 - pad], dtype=float)  # source coordinates of output index (0, 0)
    offset = centre + Binv @ (origin - centre - s[:2])
    coef = spline_coefficients(img, order) if coefficients is None else coefficients
    return ndimage.affine_transform(coef, Binv, offset=offset, output_shape=(h + 2 * pad, w + 2 * pad),
                                    order=order, mode="mirror", prefilter=False)


# ------------------------------------------------------------------ Gabor features
def gabor_kernel(wavelength: float, theta: float, sigma_ratio: float = 0.5, aspect: float = 1.0) -> np.ndarray:
    """Even (cosine) Gabor filter, zero mean and unit L2 norm.

    ``theta`` is the direction of the wave vector in (column, row) image coordinates (0: the filter varies along
    columns, i.e. it matches vertical stripes); envelope sigma = ``sigma_ratio * wavelength`` across the stripes and
    sigma / ``aspect`` along them; size: 2 * ceil(2.5 sigma / aspect) + 1.
    """
    if not (wavelength > 0 and sigma_ratio > 0 and aspect > 0):
        raise InputError("wavelength, sigma_ratio and aspect must be > 0")
    sigma = sigma_ratio * wavelength
    r = int(np.ceil(2.5 * sigma / aspect))
    rows, cols = np.mgrid[-r:r + 1, -r:r + 1].astype(float)
    u = cols * np.cos(theta) + rows * np.sin(theta)  # across the stripes
    v = -cols * np.sin(theta) + rows * np.cos(theta)  # along the stripes
    envelope = np.exp(-(u ** 2 + (aspect * v) ** 2) / (2 * sigma ** 2))
    k = envelope * np.cos(2 * np.pi * u / wavelength)
    k -= envelope * (k.sum() / envelope.sum())  # zero mean: no response to uniform brightness
    return k / np.linalg.norm(k)


@dataclass(frozen=True)
class GaborBank:
    """``len(wavelengths) x n_orientations`` Gabor filters; `responses` are full-wave rectified (absolute value)."""

    wavelengths: tuple = (3.0, 5.0, 7.0, 10.0)
    n_orientations: int = 4

    def __post_init__(self):
        if self.n_orientations < 1 or len(self.wavelengths) < 1:
            raise InputError("a Gabor bank needs at least one wavelength and one orientation")

    @property
    def orientations(self) -> np.ndarray:
        return np.arange(self.n_orientations) * np.pi / self.n_orientations

    def kernels(self) -> list:
        """Kernels ordered scale-major: index = scale * n_orientations + orientation."""
        return [gabor_kernel(lam, th) for lam in self.wavelengths for th in self.orientations]

    @property
    def pad(self) -> int:
        """Context (pixels) a window needs on each side so that no response sees the image border."""
        return max(k.shape[0] // 2 for k in self.kernels())

    def responses(self, images) -> np.ndarray:
        """|image * kernel| for a batch (n, H, W) -> (n, n_filters, H - 2 pad, W - 2 pad) (the inner part)."""
        X = np.asarray(images, dtype=float)
        if X.ndim == 2:
            X = X[None]
        p = self.pad
        if X.ndim != 3 or X.shape[1] <= 2 * p or X.shape[2] <= 2 * p:
            raise InputError(f"images must be (n, H, W) with H, W > 2 * pad = {2 * p}; got shape {X.shape}")
        out = [np.abs(signal.fftconvolve(X, k[None], mode="same", axes=(1, 2)))[:, p:X.shape[1] - p, p:X.shape[2] - p]
               for k in self.kernels()]
        return np.stack(out, axis=1)


class ImageFeatures:
    """Window -> N features: ``"pixel"`` (grey values) or ``"gabor"`` (rectified `GaborBank` responses).

    When the window holds more than N values (always for Gabor: 16 maps), N of them are kept at positions drawn
    once with ``rng`` (the paper "randomly sampled features to match the number of pixels"). Gabor features are
    computed as |G x|, G a sparse (N, padded pixels) matrix holding the flipped kernel of each kept response:
    only the N kept responses are evaluated (about 10x faster than filtering whole maps).
    """

    def __init__(self, kind: str = "pixel", window_shape=WINDOW, n_features: int = 500, bank: GaborBank | None = None,
                 rng=0):
        if kind not in ("pixel", "gabor"):
            raise InputError(f"features must be 'pixel' or 'gabor'; got {kind!r}")
        h, w = (int(v) for v in window_shape)
        self.kind, self.window_shape = kind, (h, w)
        self.bank = (bank or GaborBank()) if kind == "gabor" else None
        self.pad = self.bank.pad if self.bank is not None else 0
        total = h * w * (len(self.bank.kernels()) if self.bank is not None else 1)
        if isinstance(n_features, bool) or int(n_features) != n_features or not 1 <= n_features <= total:
            raise InputError(f"n_features must be an integer in [1, {total}] for {kind} features of a {h}x{w} "
                             f"window; got {n_features!r}")
        self.N = int(n_features)
        gen = np.random.default_rng(rng)
        self.index = np.arange(total) if total == self.N else np.sort(gen.choice(total, self.N, replace=False))
        self.G = self._gabor_matrix() if self.bank is not None else None

    def _gabor_matrix(self):
        """Sparse G with (G x)_k = (x * kernel_f)(i, j) for kept response k = (filter f, row i, col j)."""
        import scipy.sparse as sp

        h, w = self.window_shape
        p = self.pad
        W = w + 2 * p
        f, rest = np.divmod(self.index, h * w)
        i, j = np.divmod(rest, w)
        rows, cols, vals = [], [], []
        for fi, k in enumerate(self.bank.kernels()):
            sel = np.flatnonzero(f == fi)
            if sel.size == 0:
                continue
            r = k.shape[0] // 2
            da, db = np.mgrid[-r:r + 1, -r:r + 1]
            flipped = k[::-1, ::-1].ravel()  # convolution, as in `GaborBank.responses`
            rows.append(np.repeat(sel, flipped.size))
            cols.append(((i[sel, None] + p + da.ravel()) * W + (j[sel, None] + p + db.ravel())).ravel())
            vals.append(np.tile(flipped, sel.size))
        shape = (self.N, (h + 2 * p) * W)
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=shape)

    def __call__(self, padded) -> np.ndarray:
        """(n, h + 2 pad, w + 2 pad) warped windows -> (n, N) features."""
        X = np.asarray(padded, dtype=float)
        if X.ndim == 2:
            X = X[None]
        h, w = self.window_shape
        if X.shape[1:] != (h + 2 * self.pad, w + 2 * self.pad):
            raise InputError(f"expected windows of shape {(h + 2 * self.pad, w + 2 * self.pad)}; got {X.shape[1:]}")
        flat = X.reshape(X.shape[0], -1)
        if self.G is None:
            return flat[:, self.index]
        return np.abs(np.asarray(self.G @ flat.T).T)


# ------------------------------------------------------------------ manifolds
class WarpManifoldMap:
    """f(s) = (features(warp(image, s)) - offset) / scale: a parametric manifold over the box ``bounds``.

    Callable on one parameter vector (-> (N,)) and with `batch` on many ((n, D) -> (n, N)); `sample` draws warps
    uniformly in the box (the paper's test distribution).
    """

    def __init__(self, image, window, features: ImageFeatures, kind: str = "translation", shift: float = 4.0,
                 shear: float = 4.0, offset=None, scale: float = 1.0):
        if kind not in WARP_DIMS:
            raise InputError(f"kind must be one of {sorted(WARP_DIMS)}; got {kind!r}")
        if not (np.isfinite(shift) and np.isfinite(shear) and shift >= 0 and shear >= 0):
            raise InputError(f"shift and shear (pixels) must be finite and >= 0; got {shift}, {shear}")
        self.image = np.asarray(image, dtype=float)
        self.coefficients = spline_coefficients(self.image)
        self.window, self.features, self.kind = tuple(int(v) for v in window), features, kind
        self.dim = WARP_DIMS[kind]
        self.bounds = [(-shift, shift)] * 2 + ([(-shear, shear)] * 2 if kind == "affine" else [])
        self.N = features.N
        self.offset = np.zeros(self.N) if offset is None else np.asarray(offset, dtype=float)
        self.scale = float(scale)

    def raw(self, S) -> np.ndarray:
        """Unnormalised features of the warps S (n, D)."""
        S = np.atleast_2d(np.asarray(S, dtype=float))
        wins = np.stack([warp(self.image, s, self.window, self.kind, pad=self.features.pad,
                              coefficients=self.coefficients) for s in S])
        return self.features(wins)

    def batch(self, S) -> np.ndarray:
        return (self.raw(S) - self.offset) / self.scale

    def __call__(self, s) -> np.ndarray:
        return self.batch(np.asarray(s, dtype=float)[None])[0]

    def jacobian(self, s, step: float = 0.01) -> np.ndarray:
        """(N, D) central differences of f at s (one batch of 2 D warps; cubic-spline warps are smooth in s, so a
        step of a hundredth of a pixel is accurate to O(step^2); rectified Gabor features have kinks, hence small)."""
        s = np.asarray(s, dtype=float).reshape(-1)
        E = step * np.eye(self.dim)
        F = self.batch(np.vstack([s + E, s - E]))
        return ((F[:self.dim] - F[self.dim:]) / (2 * step)).T

    def sample_params(self, n: int, rng) -> np.ndarray:
        lo, hi = np.array(self.bounds).T
        return np.random.default_rng(rng).uniform(lo, hi, size=(int(n), self.dim))

    def sample(self, n: int, rng) -> np.ndarray:
        """n points f(s), s uniform in the box: (n, N)."""
        return self.batch(self.sample_params(n, rng))


@functools.lru_cache(maxsize=1)
def _photographs() -> tuple:
    """scikit-learn's two sample photographs, grey levels in [0, 1], downsampled 4x (107 x 160)."""
    from sklearn.datasets import load_sample_images

    weights = np.array([0.299, 0.587, 0.114]) / 255.0
    return tuple((np.asarray(im, dtype=float) @ weights)[::4, ::4] for im in load_sample_images().images)


def templates(source: str, P: int, margin: int, rng=0) -> list:
    """P (image, window) pairs, windows of shape `WINDOW` with ``margin`` pixels of real image around them.

    * ``"sample_images"``: the two scikit-learn photographs, grey, downsampled 4x; windows of high contrast
      (the most textured of 200 random non-overlapping candidates), alternating between the two photographs;
    * ``"digits"``: the first P digits of distinct classes (P <= 10), upsampled 2.5x to 20 x 20 and centred on a
      black canvas.
    """
    if isinstance(P, bool) or int(P) != P or P < 2:
        raise InputError(f"P must be an integer >= 2; got {P!r}")
    h, w = WINDOW
    gen = np.random.default_rng(rng)
    if source == "digits":
        from sklearn.datasets import load_digits

        if P > 10:
            raise InputError(f"digits has 10 classes; P must be <= 10 for distinct templates; got {P}")
        d = load_digits()
        firsts = [int(np.flatnonzero(d.target == k)[0]) for k in range(P)]
        out = []
        for i in firsts:
            big = ndimage.zoom(d.images[i] / 16.0, 2.5, order=1)  # 20 x 20
            canvas = np.zeros((h + 2 * margin, w + 2 * margin))
            r, c = margin + (h - big.shape[0]) // 2, margin + (w - big.shape[1]) // 2
            canvas[r:r + big.shape[0], c:c + big.shape[1]] = big
            out.append((canvas, (margin, margin, h, w)))
        return out
    if source != "sample_images":
        raise InputError(f"source must be 'sample_images' or 'digits'; got {source!r}")
    photos = _photographs()
    chosen: list[list[tuple[int, int]]] = [[] for _ in photos]
    for k, img in enumerate(photos):
        H, W = img.shape
        if H < h + 2 * margin or W < w + 2 * margin:
            raise InputError(f"margin {margin} is too large for a {H}x{W} photograph")
        rows = gen.integers(margin, H - h - margin + 1, 200)
        cols = gen.integers(margin, W - w - margin + 1, 200)
        contrast = np.array([img[r:r + h, c:c + w].std() for r, c in zip(rows, cols)])
        for j in np.argsort(-contrast):
            r, c = int(rows[j]), int(cols[j])
            if all(abs(r - r2) >= h or abs(c - c2) >= w for r2, c2 in chosen[k]):
                chosen[k].append((r, c))
            if len(chosen[k]) == (P + 1 - k) // 2:  # ceil(P/2) from the first photograph, floor(P/2) from the second
                break
        if len(chosen[k]) < (P + 1 - k) // 2:
            raise InputError(f"could not place {(P + 1 - k) // 2} non-overlapping windows in photograph {k}; lower P")
    out = []
    for i in range(P):
        k = i % 2
        r, c = chosen[k][i // 2]
        out.append((photos[k], (r, c, h, w)))
    return out


def image_manifolds(source: str = "sample_images", P: int = 8, kind: str = "translation", features: str = "pixel",
                    shift: float = 4.0, shear: float = 4.0, n_features: int = 500, rng=0) -> list:
    """P `WarpManifoldMap` s sharing one feature map, centred and scaled so that the templates' features have
    mean zero and mean norm one (no bias in MCP: centring puts the origin among the manifolds)."""
    feats = ImageFeatures(features, WINDOW, n_features, rng=rng)
    margin = int(np.ceil(shift + shear)) + feats.pad + 1
    maps = [WarpManifoldMap(img, win, feats, kind, shift, shear) for img, win in templates(source, P, margin, rng)]
    T = np.vstack([m.raw(np.zeros((1, m.dim))) for m in maps])
    offset = T.mean(axis=0)
    scale = float(np.mean(np.linalg.norm(T - offset, axis=1)))
    if not scale > 0:
        raise InputError("the templates are identical; cannot build distinct manifolds")
    for m in maps:
        m.offset, m.scale = offset, scale
    return maps
