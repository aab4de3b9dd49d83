"""`certiprog.certify.lift.Lift`: its monotone columns and fix columns against a column-by-column reference on random
problems (zero, nonneg and SOC blocks, explicit zeros, ties), and the slack enclosure `Lift.apply` hands to the upper
end is the one `matvec` computes at the lifted point (bitwise), so reusing it proves the same thing."""
import numpy as np
import pytest
import scipy.sparse as sp

from certiprog.certify.cache import csr_A
from certiprog.certify.lift import Lift
from certiprog.certify.rigorous import Ball, matvec
from certiprog.conic.cones import Cone
from certiprog.conic.problem import Block, ConicProblem


def _random_problem(rng) -> ConicProblem:
    """Blocks in a random order: zero rows, nonneg rows, SOC copies; columns of three kinds: epigraph-like (negative
    entries in nonneg rows / SOC heads only, some with equal coefficients in one row), core (anywhere) and empty."""
    n_epi, n_core, n_empty = rng.integers(1, 12), rng.integers(1, 6), rng.integers(0, 3)
    n = n_epi + n_core + n_empty
    specs = [("zero", int(rng.integers(1, 4)), 1), ("nonneg", int(rng.integers(2, 15)), 1),
             ("soc", int(rng.integers(2, 5)), int(rng.integers(1, 3)))]
    order = rng.permutation(len(specs))
    blocks, cones, start = [], [], 0
    for i in order:
        kind, dim, count = specs[i]
        cone = Cone(kind, dim, count) if kind == "soc" else Cone(kind, dim)
        blocks.append(Block(kind, cone, None, True, start))
        cones.append(cone)
        start += cone.rows
    m = start
    A = np.zeros((m, n))
    good_rows = []
    for blk in blocks:
        if blk.cone.kind == "nonneg":
            good_rows += list(range(blk.start, blk.stop))
        elif blk.cone.kind == "soc":
            good_rows += list(range(blk.start, blk.stop, blk.cone.dim))
    good_rows = np.array(good_rows)
    for j in range(n_epi):  # negative entries in good rows (a few columns get one wrong entry: not monotone)
        rows = rng.choice(good_rows, size=int(rng.integers(1, min(4, good_rows.size) + 1)), replace=False)
        A[rows, j] = -rng.choice([1.0, 2.0, 0.5], size=rows.size)  # repeated values: ties within a row
        if rng.random() < 0.2:
            A[rng.integers(m), j] = rng.normal()
    A[:, n_epi:n_epi + n_core] = rng.normal(size=(m, n_core)) * (rng.random((m, n_core)) < 0.5)
    Asp = sp.csc_matrix(A)
    if rng.random() < 0.5 and Asp.nnz:  # an explicit zero stored in the pattern
        Asp.data[rng.integers(Asp.nnz)] = 0.0
    return ConicProblem(sp.csc_matrix((n, n)), np.zeros(n), 0.0, Asp, rng.normal(size=m), cones, 1.0, {},
                        blocks, None)


def _reference(problem):
    """(mono, fix_col, fix_a, fixable) column by column from the dense matrix: the definitions of the docstring."""
    A = problem.A.toarray()
    m, n = A.shape
    kinds = problem.row_kinds()
    head = np.zeros(m, bool)
    soc_head = np.arange(m)
    for blk in problem.blocks:
        if blk.cone.kind == "soc":
            for r in range(blk.start, blk.stop):
                soc_head[r] = blk.start + (r - blk.start) // blk.cone.dim * blk.cone.dim
            head[blk.start:blk.stop:blk.cone.dim] = True
    good_row = (kinds == "nonneg") | head
    mono = np.array([bool(np.any(A[:, j] != 0)) and all(good_row[i] and A[i, j] < 0 for i in np.flatnonzero(A[:, j]))
                     for j in range(n)])
    fix_col, fix_a = np.full(m, -1), np.zeros(m)
    for i in range(m):
        best = None
        for j in range(n):  # the largest |a|, the larger column on a tie
            if mono[j] and A[i, j] != 0 and (best is None or -A[i, j] >= -A[i, best]):
                best = j
        if best is not None:
            fix_col[i], fix_a[i] = best, -A[i, best]
    fixable = fix_col >= 0
    soc = kinds == "soc"
    fixable[soc] = fix_col[soc_head[soc]] >= 0
    return mono, fix_col, fix_a, fixable


@pytest.mark.parametrize("seed", range(40))
def test_lift_columns_match_the_definition(seed):
    problem = _random_problem(np.random.default_rng(seed))
    lift = Lift(problem)
    mono, fix_col, fix_a, fixable = _reference(problem)
    np.testing.assert_array_equal(lift.mono, mono)
    np.testing.assert_array_equal(lift.fix_col, fix_col)
    np.testing.assert_array_equal(lift.fix_a, fix_a)
    np.testing.assert_array_equal(lift.fixable, fixable)
    np.testing.assert_array_equal(lift.core_cols, np.flatnonzero(~mono))
    np.testing.assert_array_equal(lift.core_rows, np.flatnonzero(~fixable))


@pytest.mark.parametrize("seed", range(20))
def test_apply_returns_the_slack_enclosure_of_the_lifted_point(seed):
    rng = np.random.default_rng(100 + seed)
    problem = _random_problem(rng)
    lift = Lift(problem)
    X = Ball(rng.normal(size=problem.n))
    S = lift.apply(problem, X)
    if S is None:  # three passes still raising: nothing handed over
        return
    fresh = Ball(problem.b) - matvec(csr_A(problem), X)
    np.testing.assert_array_equal(S.mid, fresh.mid)
    np.testing.assert_array_equal(S.rad, fresh.rad)
    nn = lift.fixable & problem.rows_in("nonneg")
    assert np.all(S.lo()[nn] > 0)  # every fixable nonneg row was raised into its cone


def test_rows_in_marks_block_kinds():
    problem = _random_problem(np.random.default_rng(7))
    kinds = problem.row_kinds()
    for kind in ("zero", "nonneg", "soc"):
        np.testing.assert_array_equal(problem.rows_in(kind), kinds == kind)
    np.testing.assert_array_equal(problem.rows_in("zero", "nonneg"), (kinds == "zero") | (kinds == "nonneg"))
