"""MNIST loader: IDX parsing checked on tiny files written here (good and corrupt), then the real files if present."""
from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import pytest

from certiprog.datasets import mnist as M
from certiprog.datasets import loaders as L
from certiprog.errors import CertiprogError, InputError


def _idx(arr: np.ndarray, dtype_byte: int = 0x08) -> bytes:
    arr = np.asarray(arr, np.uint8)
    return bytes([0, 0, dtype_byte, arr.ndim]) + struct.pack(f">{arr.ndim}I", *arr.shape) + arr.tobytes()


def _write_set(root: Path, images: np.ndarray, labels: np.ndarray, part: str = "train", zipped: bool = True):
    (root / "mnist").mkdir(parents=True, exist_ok=True)
    for name, arr in zip(M.MNIST_FILES[part], (images, labels)):
        data = _idx(arr)
        (root / "mnist" / name).write_bytes(gzip.compress(data) if zipped else data)


@pytest.fixture
def tiny(tmp_path):
    rng = np.random.default_rng(0)
    tr = rng.integers(0, 256, (6, 28, 28)), np.array([0, 1, 5, 9, 4, 7])
    te = rng.integers(0, 256, (4, 28, 28)), np.array([3, 8, 2, 6])
    _write_set(tmp_path, *tr, part="train")
    _write_set(tmp_path, *te, part="test")
    return tmp_path, tr, te


def test_roundtrip_uint8_and_all(tiny):
    root, (xi, yi), (xt, yt) = tiny
    images, labels = M.load_mnist("train", root)
    assert images.dtype == np.uint8 and labels.dtype == np.uint8
    np.testing.assert_array_equal(images, xi)
    np.testing.assert_array_equal(labels, yi)
    ia, la = M.load_mnist("all", root)
    assert ia.shape == (10, 28, 28)
    np.testing.assert_array_equal(la, np.r_[yi, yt])


def test_raw_idx_also_read(tmp_path):
    arr = np.arange(12, dtype=np.uint8).reshape(3, 4)
    (tmp_path / "a.idx").write_bytes(_idx(arr))
    np.testing.assert_array_equal(M.read_idx(tmp_path / "a.idx", ndim=2), arr)


def test_env_var_is_followed(tiny, monkeypatch):
    root, (xi, _), _ = tiny
    monkeypatch.setenv(L.DATA_ENV, str(root))
    np.testing.assert_array_equal(M.load_mnist("train")[0], xi)


@pytest.mark.parametrize("corrupt", ["magic", "dtype", "ndim", "truncated", "long", "gzip", "header"])
def test_corrupt_file_raises(tmp_path, corrupt):
    good = _idx(np.zeros((2, 28, 28), np.uint8))
    bad = {"magic": b"\x01" + good[1:], "dtype": good[:2] + b"\x0d" + good[3:], "ndim": good[:3] + b"\x01" + good[4:],
           "truncated": good[:-5], "long": good + b"\x00", "header": good[:9]}.get(corrupt)
    data = gzip.compress(good)[:-12] if corrupt == "gzip" else gzip.compress(bad)
    p = tmp_path / "x.gz"
    p.write_bytes(data)
    with pytest.raises(CertiprogError, match="x.gz"):
        M.read_idx(p, ndim=3)


def test_inconsistent_sets_raise(tmp_path):
    _write_set(tmp_path, np.zeros((3, 28, 28)), np.zeros(2))
    with pytest.raises(InputError, match="3 images but 2 labels"):
        M.load_mnist("train", tmp_path)
    _write_set(tmp_path, np.zeros((2, 28, 28)), np.array([1, 12]))
    with pytest.raises(InputError, match="outside 0-9"):
        M.load_mnist("train", tmp_path)
    _write_set(tmp_path, np.zeros((2, 27, 28)), np.array([1, 2]))
    with pytest.raises(InputError, match="28 x 28"):
        M.load_mnist("train", tmp_path)


def test_missing_file_names_path(tmp_path):
    with pytest.raises(InputError, match="CERTIPROG_DATA"):
        M.load_mnist("test", tmp_path)
    with pytest.raises(InputError, match="part"):
        M.load_mnist("valid", tmp_path)


def test_binary_task(tiny):
    root, (xi, yi), (xt, yt) = tiny
    d = M.mnist_binary(seed=3, root=root)
    assert d.X_train.shape == (5, 785) and d.X_test.shape == (5, 785)
    assert np.all(d.X_train[:, -1] == 1.0) and d.X_train[:, :784].max() <= 1.0
    digits = np.r_[yi, yt]
    np.testing.assert_array_equal(np.sort(np.r_[d.digit_train, d.digit_test]), np.sort(digits))
    np.testing.assert_array_equal(d.y_train, np.where(d.digit_train >= 5, 1.0, -1.0))
    # features are pixels/255 of the right images
    perm = np.random.default_rng(3).permutation(10)
    allimg = np.concatenate([xi, xt]).reshape(10, 784)
    np.testing.assert_allclose(d.X_train[:, :784], allimg[perm[:5]] / 255.0)
    assert M.mnist_binary(seed=3, root=root, n_train=2).X_train.shape == (2, 785)
    for bad in [dict(positive=()), dict(positive=range(10)), dict(positive=(11,)), dict(n_train=1), dict(n_train=99)]:
        with pytest.raises(InputError):
            M.mnist_binary(root=root, **bad)


def test_real_mnist_files():
    root = L.data_root()
    if not (root / "mnist" / M.MNIST_FILES["test"][0]).is_file():
        pytest.skip(f"{root / 'mnist'} absent: the shared data folder (or $CERTIPROG_DATA) is needed for this test")
    images, labels = M.load_mnist("test")
    assert images.shape == (10000, 28, 28) and labels.shape == (10000,)
    assert np.bincount(labels, minlength=10).min() > 800
    imtr, labtr = M.load_mnist("train")
    assert imtr.shape == (60000, 28, 28)
    assert imtr.max() == 255 and imtr.min() == 0
