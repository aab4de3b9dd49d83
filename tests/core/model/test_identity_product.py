"""``M @ x`` for a plain variable x skips the product with x's identity coefficient (`certiprog.model.coef.left_mul`):
the compiled coefficient is M itself, as floats, for dense, sparse and integer M, and a non-identity coefficient
(``M @ (B @ x)``, ``M @ x[idx]``) still gets the product."""
import numpy as np
import pytest
import scipy.sparse as sp

from certiprog.model import Variable
from certiprog.model import coef as cf


def _coef(expr, var):
    return cf.evaluate(expr.terms[var])


def _dense(c):
    return c.toarray() if sp.issparse(c) else np.asarray(c)


@pytest.mark.parametrize("kind", ["dense", "csr", "csc", "int"])
def test_a_plain_variable_keeps_the_matrix(kind):
    rng = np.random.default_rng(0)
    M = rng.normal(size=(30, 5))
    given = {"dense": M, "csr": sp.csr_matrix(M), "csc": sp.csc_matrix(M),
             "int": np.round(M * 10).astype(int)}[kind]
    x = Variable(5, "x")
    c = _coef(given @ x, x)
    want = np.asarray(given.toarray() if sp.issparse(given) else given, float)
    assert np.array_equal(_dense(c), want)
    assert np.asarray(_dense(c)).dtype == float


def test_other_coefficients_are_still_multiplied():
    rng = np.random.default_rng(1)
    M, B = rng.normal(size=(7, 4)), rng.normal(size=(4, 6))
    x = Variable(6, "x")
    assert np.allclose(_dense(_coef(M @ (B @ x), x)), M @ B)
    sel = _dense(_coef(M @ x[[0, 2, 3, 5]], x))  # a selection, not the identity
    want = np.zeros((7, 6))
    want[:, [0, 2, 3, 5]] = M
    assert np.allclose(sel, want)
    W = rng.normal(size=(3, 6))
    assert np.allclose(_dense(_coef(W @ (2.0 * x), x)), 2.0 * W)  # a scaled identity is no identity


def test_the_identity_test_is_exact():
    assert cf._is_identity(sp.identity(4, format="csr"))
    assert not cf._is_identity(2.0 * sp.identity(4, format="csr"))
    assert not cf._is_identity(sp.csr_matrix(np.eye(4)[[1, 0, 2, 3]]))
    assert not cf._is_identity(np.eye(4))
    assert not cf._is_identity(sp.identity(4, format="csc"))


def test_as_the_product_gives_a_new_matrix_without_stored_zeros():
    """The shortcut must not change what the model holds: its own copy (an edit of the caller's array afterwards
    changes nothing) and, for a sparse matrix, no stored zeros (the pattern a backend's model reuse compares)."""
    M = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]])
    S = sp.csr_matrix(M)
    S.data[0] = 0.0  # a stored zero
    x = Variable(3, "x")
    c_sparse = _coef(S @ x, x)
    assert sp.issparse(c_sparse) and c_sparse.nnz == 2 and np.array_equal(c_sparse.toarray(), S.toarray())
    c_dense = _coef(M @ x, x)
    M[0, 0] = 99.0
    S.data[1] = 99.0
    assert _dense(c_dense)[0, 0] == 1.0 and c_sparse.toarray()[0, 2] == 2.0
