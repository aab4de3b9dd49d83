"""MNIST from its four original gzipped IDX files, validated, and the binary task of paper 003 (Sec. 5).

Files (``shared/data/mnist`` or ``$CERTIPROG_DATA/mnist``, found by `loaders.data_root` like every other loader):
``train-images.idx3-ubyte.gz``, ``train-labels.idx1-ubyte.gz`` (60,000) and ``t10k-*`` (10,000). An IDX file is a
big-endian header -- two zero bytes, a type byte (0x08 = unsigned byte), the number of dimensions -- then one
32-bit size per dimension, then the data. Every check that fails (magic, dimensions, a truncated or over-long
body, a gzip stream that does not decode, labels outside 0-9, image and label counts that differ) raises
`InputError` naming the file; nothing is silently cut or padded.

`load_mnist` returns uint8 images (N, 28, 28) and uint8 labels (N,); `mnist_binary` gives the paper's task:
digits in ``positive`` (default 5-9) are +1, the others -1, features pixels / 255 plus a constant 1 (785 columns),
and the paper's split "the 70K examples randomly split into equal size training and test sets" (a seeded
permutation of train + test, the first half for training).
"""
from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from .loaders import data_path

__all__ = ["MNIST_FILES", "read_idx", "load_mnist", "mnist_binary", "MnistBinary"]

MNIST_FILES = {
    "train": ("train-images.idx3-ubyte.gz", "train-labels.idx1-ubyte.gz"),
    "test": ("t10k-images.idx3-ubyte.gz", "t10k-labels.idx1-ubyte.gz"),
}
_UBYTE = 0x08
_MAX_BYTES = 1 << 31  # no MNIST file is near this; a header claiming more is corrupt


def read_idx(path, ndim: int | None = None) -> np.ndarray:
    """The uint8 array stored in a (gzipped or raw) IDX file, with every header field checked.

    ``ndim``: the number of dimensions expected (1 for labels, 3 for images); any other raises `InputError`.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read IDX file {path}: {exc}") from exc
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{path}: corrupt gzip stream ({exc})") from exc
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise InputError(f"{path}: not an IDX file (magic number {raw[:4].hex() or 'missing'}; expected 0000 08 0d)")
    if raw[2] != _UBYTE:
        raise InputError(f"{path}: IDX data type 0x{raw[2]:02x}; only unsigned bytes (0x08) are MNIST")
    nd = raw[3]
    if nd < 1 or (ndim is not None and nd != ndim):
        raise InputError(f"{path}: IDX file with {nd} dimensions; expected {ndim if ndim is not None else '>= 1'}")
    head = 4 + 4 * nd
    if len(raw) < head:
        raise InputError(f"{path}: truncated IDX header ({len(raw)} bytes, {head} needed)")
    dims = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=nd, offset=4))
    size = int(np.prod(dims, dtype=np.int64))
    if size > _MAX_BYTES:
        raise InputError(f"{path}: header claims dimensions {dims}; corrupt")
    if len(raw) - head != size:
        raise InputError(f"{path}: IDX body has {len(raw) - head} bytes; the header's dimensions {dims} need {size} "
                         "(truncated or corrupt file)")
    return np.frombuffer(raw, dtype=np.uint8, offset=head).reshape(dims).copy()


def load_mnist(part: str = "all", root=None) -> tuple[np.ndarray, np.ndarray]:
    """MNIST images (N, 28, 28) uint8 and labels (N,) uint8: ``part`` 'train' (60,000), 'test' (10,000) or 'all'
    (train then test, 70,000). ``root``: the data folder (default `loaders.data_root()`); the files are read from
    ``root/mnist``. A missing file raises `InputError` naming the path and ``CERTIPROG_DATA``."""
    if part == "all":
        parts = [load_mnist(p, root) for p in ("train", "test")]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    if part not in MNIST_FILES:
        raise InputError(f"part must be 'train', 'test' or 'all'; got {part!r}")
    img_name, lab_name = MNIST_FILES[part]
    images = read_idx(data_path(f"mnist/{img_name}", root), ndim=3)
    labels = read_idx(data_path(f"mnist/{lab_name}", root), ndim=1)
    if images.shape[1:] != (28, 28):
        raise InputError(f"{img_name}: images of shape {images.shape[1:]}; MNIST images are 28 x 28")
    if images.shape[0] != labels.shape[0]:
        raise InputError(f"MNIST {part}: {images.shape[0]} images but {labels.shape[0]} labels")
    if labels.size and labels.max() > 9:
        raise InputError(f"{lab_name}: label {int(labels.max())} outside 0-9")
    return images, labels


@dataclass(frozen=True)
class MnistBinary:
    """Paper 003's binary MNIST task: ``X_train``/``X_test`` (float64, pixels / 255 then a constant 1 column, 785
    features), ``y_train``/``y_test`` in {+1, -1} (+1 for ``positive`` digits), the hidden ``digit_train`` /
    ``digit_test`` (uint8, for per-digit error rates), ``positive`` and ``seed``."""

    X_train: np.ndarray
    y_train: np.ndarray
    digit_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    digit_test: np.ndarray
    positive: tuple
    seed: int


def _features(images: np.ndarray) -> np.ndarray:
    n = images.shape[0]
    X = np.empty((n, 785))
    np.divide(images.reshape(n, 784), 255.0, out=X[:, :784])
    X[:, 784] = 1.0
    return X


def mnist_binary(positive=(5, 6, 7, 8, 9), seed: int = 0, n_train: int | None = None, root=None) -> MnistBinary:
    """The paper's task: 70,000 MNIST digits shuffled by ``seed`` and split in two equal halves (35,000 training,
    35,000 test); ``y = +1`` for digits in ``positive`` (default 5-9, the paper's 0-4 vs 5-9). ``n_train``: keep
    only the first n_train training points (a subsample of the same shuffled order; the test half is unchanged)."""
    pos = tuple(sorted({int(d) for d in positive}))
    if not pos or not set(pos) <= set(range(10)) or len(pos) == 10:
        raise InputError(f"positive must be a non-empty proper subset of the digits 0-9; got {positive!r}")
    images, labels = load_mnist("all", root)
    perm = np.random.default_rng(seed).permutation(labels.size)
    half = labels.size // 2
    tr, te = perm[:half], perm[half:]
    if n_train is not None:
        if not (isinstance(n_train, (int, np.integer)) and 2 <= n_train <= half):
            raise InputError(f"n_train must be an integer in [2, {half}]; got {n_train!r}")
        tr = tr[: int(n_train)]
    sign = np.where(np.isin(labels, pos), 1.0, -1.0)
    return MnistBinary(X_train=_features(images[tr]), y_train=sign[tr], digit_train=labels[tr],
                       X_test=_features(images[te]), y_test=sign[te], digit_test=labels[te], positive=pos, seed=seed)
