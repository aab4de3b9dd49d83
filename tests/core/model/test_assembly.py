"""`certiprog.model.compile._assemble_rows` writes A straight into CSC: the same matrix, bitwise (values, pattern,
stored zeros, index order), as summing each block's full-width term matrices and stacking them
(`_assemble_rows_stacked`, the reference), on random models mixing dense and sparse coefficients with zeros,
Parameters, one-term blocks, second-order cones and bounds; a coefficient that is no canonical matrix (duplicates)
falls back to the reference."""
import numpy as np
import pytest
import scipy.sparse as sp

from certiprog import Model, Parameter, Variable, minimize
from certiprog.model import compile as comp
from certiprog.model import hinge, norm2, sum_squares


def _same(A, B):
    assert A.format == B.format == "csc" and A.shape == B.shape
    for k in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(A, k), getattr(B, k))
        assert getattr(A, k).dtype == getattr(B, k).dtype


def _random_model(seed):
    rng = np.random.default_rng(seed)
    m, d = int(rng.integers(1, 30)), int(rng.integers(1, 8))
    X = rng.normal(size=(m, d))
    X[rng.random((m, d)) < 0.3] = 0.0  # zeros in a dense coefficient: dropped where the block has two terms
    w, b, u = Variable(d, "w"), Variable((), "b"), Variable(3, "u", nonneg=True)
    S = sp.random(4, d, density=0.5, random_state=rng, format=["csr", "csc", "coo"][seed % 3])
    if S.nnz:
        S = S.tocsr()
        S.data[0] = 0.0  # a stored zero in a one-term block's sparse coefficient: kept there
    P = Parameter((d, d), "P", value=rng.normal(size=(d, d)))
    c = Parameter(d, "c", value=rng.normal(size=d))
    obj = hinge(X @ w + b).sum() + sum_squares(w) + u.sum()
    model = Model(minimize(obj))
    model.add(norm2(P @ w) + c @ w + b <= 3.0, name="cone")
    model.add(S @ w <= rng.uniform(1, 2, 4), name="sparse_only")  # one term
    model.add(S @ w + u[0] >= -5.0, name="sparse_and_u")  # two terms: the stored zero dropped
    model.add(u[1:] == rng.normal(size=2), name="eq")
    Qv = rng.normal(size=(3, d))
    Qv[rng.random((3, d)) < 0.4] = 0.0
    Qv[0, 0] = 0.0
    Q = Parameter((3, d), "Q", value=Qv)  # a Parameter's value: a dense coefficient with its zeros at assembly
    model.add(Q @ w <= 2.0, name="param_only")  # one term: every entry stored, zeros too
    model.add(Q @ w + u[2] <= 1.0, name="param_and_u")  # two terms: the zeros dropped
    return model


@pytest.mark.parametrize("seed", range(25))
def test_direct_assembly_is_the_stacked_one_bitwise(seed):
    st = _random_model(seed).compile()
    A, b = comp._assemble_rows(st.blocks, st.columns, st.n, 0, {})
    A0, b0 = comp._assemble_rows_stacked(st.blocks, st.columns, st.n, 0, {})
    _same(A, A0)
    np.testing.assert_array_equal(b, b0)
    assert comp._assemble_csc(st.blocks, st.columns, st.n, 0, A.shape[0], {}) is not None  # (the direct path ran)


@pytest.mark.parametrize("form", ["dense", "full_csr"])
@pytest.mark.parametrize("seed", range(6))
def test_stored_zeros_are_dropped_from_sums_only(monkeypatch, seed, form):
    """A dense coefficient (every entry stored) with zeros in a block of two terms loses them, as the sum of the
    term matrices did; a CSR with a stored zero in a block of one term keeps it."""
    rng = np.random.default_rng(seed)
    st = _random_model(seed).compile()
    multi = next(blk for blk in st.blocks if len(blk.s.terms) > 1)
    single = next(blk for blk in st.blocks if len(blk.s.terms) == 1)
    v, coef = next(iter(multi.s.terms.items()))
    dense = np.asarray(comp.cf.evaluate(coef, {}).toarray())
    dense[rng.random(dense.shape) < 0.5] = 0.0
    # a dense array, or its CSR storing every entry (`coef.to_csr`: read as the dense matrix it is)
    monkeypatch.setitem(multi.s.terms, v, dense if form == "dense" else comp.cf.to_csr(dense))
    v1, coef1 = next(iter(single.s.terms.items()))
    stored = sp.csr_matrix(np.ones(comp.cf.evaluate(coef1, {}).shape))
    stored.data[::2] = 0.0
    monkeypatch.setitem(single.s.terms, v1, stored)
    m = sum(b.cone.rows for b in st.blocks)
    A = comp._assemble_csc(st.blocks, st.columns, st.n, 0, m, {})
    A0, _ = comp._assemble_rows_stacked(st.blocks, st.columns, st.n, 0, {})
    _same(A, A0)
    rows = slice(single.start, single.stop)
    assert A[rows].nnz == stored.nnz  # the one-term block's stored zeros are there
    assert np.all(A[multi.start:multi.stop].data != 0)


def test_full_pattern_tells_a_dense_csr():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(2100, 3))  # more rows than one comparison chunk
    full = comp.cf.to_csr(a)
    assert comp._full_pattern(full)
    np.testing.assert_array_equal(comp._csc_parts(full, 2100, 3), a)
    swapped = full.copy()
    swapped.indices[[2098 * 3, 2098 * 3 + 1]] = swapped.indices[[2098 * 3 + 1, 2098 * 3]]  # unsorted in a late row
    assert not comp._full_pattern(swapped)
    sparse = sp.csr_matrix(np.where(a > 0, a, 0.0))
    assert not comp._full_pattern(sparse)
    parts = comp._csc_parts(swapped, 2100, 3)  # (the general path: its CSC, sorted)
    assert not isinstance(parts, np.ndarray) and np.all(np.diff(parts[1][:2100]) > 0)


def test_a_coefficient_with_duplicates_falls_back_to_the_stacked_assembly(monkeypatch):
    st = _random_model(3).compile()
    blk = next(blk for blk in st.blocks if len(blk.s.terms) == 1)
    v, coef = next(iter(blk.s.terms.items()))
    rows, cols = comp.cf.evaluate(coef, {}).shape
    indptr = np.r_[0, np.full(rows, 2)]  # row 0 stores column 0 twice
    dup = sp.csr_matrix((np.array([1.0, 0.5]), np.array([0, 0]), indptr), shape=(rows, cols))
    assert not dup.has_canonical_format
    monkeypatch.setitem(blk.s.terms, v, dup)
    assert comp._assemble_csc(st.blocks, st.columns, st.n, 0, sum(b.cone.rows for b in st.blocks), {}) is None
    A, _ = comp._assemble_rows(st.blocks, st.columns, st.n, 0, {})
    A0, _ = comp._assemble_rows_stacked(st.blocks, st.columns, st.n, 0, {})
    _same(A, A0)


def test_assembled_problem_still_solves_and_certifies():
    model = _random_model(5)
    sol = model.solve(backend="clarabel")
    assert sol.verdict in ("certified", "accurate")
