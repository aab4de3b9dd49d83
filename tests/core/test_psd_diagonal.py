"""`certiprog.certify.psd`: a diagonal P is read off its stored entries (the O(n) path) with the certificate the
general path gives for the same matrix (compared with the general path run on P plus a tiny off-diagonal pair, whose
diagonal part is the same), stored zeros and empty rows included."""
import numpy as np
import pytest
import scipy.sparse as sp

from certiprog.certify.psd import _psd_certificate


def _diag(seed, negative):
    """(n, d, P): P = diag(d) with every diagonal entry stored, the zeros too (eliminated by the certificate)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    d = rng.uniform(0.1, 5.0, n) * (rng.random(n) < 0.6)  # some exact zeros: columns P does not touch
    if negative:
        d[rng.integers(n)] = -rng.uniform(0.1, 2.0)
    idx = np.arange(n)
    return n, d, sp.csr_matrix((d, (idx, idx)), shape=(n, n))


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("negative", [False, True])
def test_diagonal_P_is_read_off(seed, negative):
    n, d, P = _diag(seed, negative)
    cert = _psd_certificate(P)
    nz = np.flatnonzero(d)
    if nz.size == 0:
        assert cert.kind == "zero"
        return
    np.testing.assert_array_equal(cert.cols, nz)
    assert cert.lam == d[nz].min()
    if d[nz].min() < 0:
        assert cert.kind == "indefinite"
        w = np.zeros(n)
        w[nz[np.argmin(d[nz])]] = 1.0
        np.testing.assert_array_equal(cert.witness, w)
        assert "negative diagonal entry" in cert.why
    else:
        assert cert.kind == "diagonal" and cert.witness is None


def test_the_fast_path_takes_only_diagonal_matrices():
    P = sp.csr_matrix(np.array([[2.0, 0.5, 0.0], [0.5, 2.0, 0.0], [0.0, 0.0, 1.0]]))
    assert _psd_certificate(P).kind == "pd"  # off-diagonal entries: the general path (diagonally dominant)
    Pu = sp.csr_matrix(np.array([[1.0, 0.3], [0.0, 1.0]]))
    assert _psd_certificate(Pu).kind == "unknown"  # not symmetric, one entry a row but not on the diagonal
    Pp = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))  # one entry a row, off the diagonal: indefinite
    assert _psd_certificate(Pp).kind in ("indefinite", "unknown") and _psd_certificate(Pp).kind != "diagonal"
