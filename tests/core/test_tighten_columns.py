"""`certiprog.certify.box.tighten_columns`: the bounds it derives for the columns J hold every feasible point.

Checked against an independent computation: the exact range of each column of J over the feasible polyhedron
(`scipy.optimize.linprog`, HiGHS) for random sparse rows (inequalities and equalities), the other columns boxed with
finite, huge (1e200, never the end a term reads) or infinite ends, at scales 1e-8 .. 1e8."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from certiprog.certify.box import tighten_columns
from certiprog.conic.cones import Cone
from certiprog.conic.problem import Block, ConicProblem


def _problem(A_ineq, b_ineq, A_eq, b_eq) -> ConicProblem:
    """``A_ineq x <= b_ineq``, ``A_eq x = b_eq`` in certiprog's form ``b - A x in K`` (zero rows first)."""
    me, mi = A_eq.shape[0], A_ineq.shape[0]
    n = A_ineq.shape[1]
    A = sp.csc_matrix(sp.vstack([A_eq, A_ineq]))
    cones = [Cone("zero", me), Cone("nonneg", mi)]
    blocks = [Block("eq", cones[0], None, True, 0), Block("ineq", cones[1], None, True, me)]
    return ConicProblem(sp.csc_matrix((n, n)), np.zeros(n), 0.0, A, np.concatenate([b_eq, b_ineq]), cones, 1.0,
                        {}, blocks, None)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 100_000), log_scale=st.sampled_from([-8, 0, 8]), n_eq=st.sampled_from([0, 1, 3]))
def test_the_tightened_box_holds_every_feasible_point(seed, log_scale, n_eq):
    rng = np.random.default_rng(seed)
    s = 10.0 ** log_scale
    n, mi, nJ = 8, 12, 2
    J = np.arange(nJ)
    A_ineq = sp.random(mi, n, density=0.5, random_state=rng, data_rvs=rng.standard_normal).toarray()
    A_ineq[:, J] = rng.standard_normal((mi, nJ)) * (rng.random((mi, nJ)) < 0.6)  # J in some rows, both in a few
    x0 = rng.uniform(-1, 1, n) * s  # a feasible point: rows hold with slack
    b_ineq = A_ineq @ x0 + rng.uniform(0.1, 1.0, mi) * s
    A_eq = rng.standard_normal((n_eq, n))
    b_eq = A_eq @ x0
    lo, hi = -np.ones(n) * 2 * s, np.ones(n) * 2 * s
    lo[J], hi[J] = -np.inf, np.inf
    odd = rng.integers(nJ, n)
    hi[odd] = 1e200  # a huge end: only the rows with the other sign read it
    if seed % 3 == 0:
        lo[rng.integers(nJ, n)] = -np.inf  # an infinite end: its rows give nothing
    problem = _problem(sp.csr_matrix(A_ineq), b_ineq, sp.csr_matrix(A_eq), b_eq)
    lo2, hi2 = tighten_columns(problem, J, lo, hi)
    if lo2 is None:
        return
    # the reference in units of s (HiGHS's tolerances are absolute; the program is homogeneous in s)
    bounds = list(zip(np.where(np.isfinite(lo), lo / s, None), np.where(np.isfinite(hi), hi / s, None)))
    for j in J:
        for sign in (1.0, -1.0):
            c = np.zeros(n)
            c[j] = sign
            res = linprog(c, A_ub=A_ineq, b_ub=b_ineq / s, A_eq=A_eq if n_eq else None,
                          b_eq=b_eq / s if n_eq else None, bounds=bounds, method="highs")
            if res.status != 0:
                continue  # unbounded in that direction: nothing to compare
            ext = sign * res.fun * s
            tol = 1e-7 * (abs(ext) + s)
            if sign > 0:
                assert lo2[j] <= ext + tol, (j, lo2[j], ext)
            else:
                assert hi2[j] >= ext - tol, (j, hi2[j], ext)
    assert np.all(lo2 <= x0 + 1e-12 * s) and np.all(x0 <= hi2 + 1e-12 * s)  # the feasible x0 itself
    # and as tight as one pass of the rule says, exactly (fractions): a row whose only unbounded term is x_j bounds
    # it by (b_r - sum of the other terms' least values) / a_rj
    from fractions import Fraction

    rows = [(A_ineq[r], b_ineq[r]) for r in range(mi)] + [(A_eq[r], b_eq[r]) for r in range(n_eq)] + \
        [(-A_eq[r], -b_eq[r]) for r in range(n_eq)]
    for j in J:
        best_hi, best_lo = None, None
        for a, b in rows:
            if a[j] == 0:
                continue
            ends = {k: lo[k] if a[k] > 0 else hi[k] for k in range(n) if k != j and a[k] != 0}  # least a_k x_k
            if not all(np.isfinite(e) for e in ends.values()):
                continue
            rest = sum(Fraction(a[k]) * Fraction(e) for k, e in ends.items())
            bound = (Fraction(b) - rest) / Fraction(a[j])
            if a[j] > 0:
                best_hi = bound if best_hi is None else min(best_hi, bound)
            else:
                best_lo = bound if best_lo is None else max(best_lo, bound)
        if best_hi is not None:
            assert hi2[j] <= float(best_hi) + 1e-8 * (abs(float(best_hi)) + s * 1e3), (j, hi2[j], float(best_hi))
        if best_lo is not None:
            assert lo2[j] >= float(best_lo) - 1e-8 * (abs(float(best_lo)) + s * 1e3), (j, lo2[j], float(best_lo))


def test_a_row_with_one_unbounded_term_bounds_it():
    """x0 + x1 <= 3 with x1 in [0, 1], x0 free: x0 <= 3 (padded), and nothing below."""
    A = sp.csr_matrix(np.array([[1.0, 1.0]]))
    problem = _problem(A, np.array([3.0]), sp.csr_matrix((0, 2)), np.zeros(0))
    lo2, hi2 = tighten_columns(problem, np.array([0]), np.array([-np.inf, 0.0]), np.array([np.inf, 1.0]))
    assert lo2[0] == -np.inf and 3.0 <= hi2[0] <= 3.0 + 1e-8


@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=st.integers(0, 100_000))
def test_columns_given_in_any_order_give_the_same_box(seed):
    """J as a list, unsorted, with a repeat and an empty column, gives the box of the sorted distinct columns (the
    rows J touches are read off A's column segments; each column's bound is the least over its entries)."""
    rng = np.random.default_rng(seed)
    n, mi = 9, 14
    A_ineq = rng.standard_normal((mi, n)) * (rng.random((mi, n)) < 0.5)
    A_ineq[:, n - 1] = 0.0  # an empty column
    x0 = rng.uniform(-1, 1, n)
    b_ineq = A_ineq @ x0 + rng.uniform(0.1, 1.0, mi)
    A_eq = rng.standard_normal((2, n)) * (rng.random((2, n)) < 0.5)
    A_eq[:, n - 1] = 0.0
    problem = _problem(sp.csr_matrix(A_ineq), b_ineq, sp.csr_matrix(A_eq), A_eq @ x0)
    lo, hi = -2.0 * np.ones(n), 2.0 * np.ones(n)
    J = sorted(set(rng.choice(n - 1, size=3, replace=False).tolist()))
    lo[J], hi[J] = -np.inf, np.inf
    ref = tighten_columns(problem, np.array(J + [n - 1]), lo, hi)
    got = tighten_columns(problem, [n - 1, J[2], J[0], J[1], J[0]], lo, hi)
    for r, g in zip(ref, got):
        assert (r is None and g is None) or np.array_equal(r, g)
    if ref[0] is not None:
        assert np.all(ref[0] <= x0) and np.all(x0 <= ref[1])


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 16])
def test_the_row_blocks_do_not_change_the_box(monkeypatch, block):
    """The other columns' part is summed in blocks of rows (`box._BLOCK` entries): any block size gives the box of
    one block, bitwise (per row the same sums in the same order), with equalities (rows sliced) and without (read in
    place)."""
    import certiprog.certify.box as box

    rng = np.random.default_rng(block)
    n, mi = 12, 300
    A_ineq = rng.standard_normal((mi, n)) * (rng.random((mi, n)) < 0.6)
    A_ineq[:, 0] = rng.standard_normal(mi)  # J's first column in every row, its second in a few
    A_ineq[:, 1] = rng.standard_normal(mi) * (rng.random(mi) < 0.2)
    x0 = rng.uniform(-1, 1, n)
    b_ineq = A_ineq @ x0 + rng.uniform(0.1, 1.0, mi)
    for n_eq in (0, 2):
        A_eq = rng.standard_normal((n_eq, n))
        problem = _problem(sp.csr_matrix(A_ineq), b_ineq, sp.csr_matrix(A_eq), A_eq @ x0)
        lo, hi = -3.0 * np.ones(n), 3.0 * np.ones(n)
        lo[:2], hi[:2] = -np.inf, np.inf
        hi[5] = np.inf  # an infinite end outside J: counted per row
        monkeypatch.setattr(box, "_BLOCK", 10 ** 9)
        ref = tighten_columns(problem, np.array([0, 1]), lo, hi)
        monkeypatch.setattr(box, "_BLOCK", block)
        got = tighten_columns(problem, np.array([0, 1]), lo, hi)
        assert ref[0] is not None
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])
        assert np.all(ref[0] <= x0) and np.all(x0 <= ref[1])
