"""Sparse data stay sparse (issue 21, item 4): a user's scipy.sparse matrices reach the compiled conic form, every
backend and the certificate without a dense copy of the problem's size.

The shapes and values are checked against numpy on the dense matrices (an independent computation); the memory
tests run the whole user path (build, compile, solve with Clarabel, `check`) under a hard address-space limit in a
fresh process, so a single dense copy of the constraint matrix fails them.
"""
import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from certiprog import InputError, Model, Parameter, Variable, hstack, minimize, quad_form, vstack
from certiprog.certify import check
from certiprog.errors import ShapeError

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.random

FORMATS = {
    "csr_matrix": sp.csr_matrix, "csc_matrix": sp.csc_matrix, "coo_matrix": sp.coo_matrix,
    "lil_matrix": sp.lil_matrix, "csr_array": sp.csr_array, "csc_array": sp.csc_array, "coo_array": sp.coo_array,
    "dok_array": sp.dok_array,
}


def _qp_suite():
    spec = importlib.util.spec_from_file_location("qp_suite_bench", ROOT / "benchmarks" / "qp_suite.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec.loader.exec_module(mod)
    return mod


def _data(seed=0, n=40, m=25):
    rng = np.random.default_rng(seed)
    G = sp.random(n, n, density=0.08, random_state=rng, format="csr")
    P = (G @ G.T + sp.identity(n)).tocsr()
    A = sp.random(m, n, density=0.15, random_state=rng, format="csr")
    E = sp.random(4, n, density=0.3, random_state=rng, format="csr")
    x0 = rng.uniform(-1, 1, n)
    return P, rng.standard_normal(n), A, A @ x0 + rng.uniform(0.1, 1, m), E, E @ x0


def _model(P, q, A, b, E, e):
    x = Variable(q.size, name="x")
    return Model(minimize(0.5 * quad_form(x, P) + q @ x), [A @ x <= b, E @ x == e, -2 <= x, x <= 2]), x


def _compiled(model):
    prob = model.compile().assemble()
    return prob.A.toarray(), prob.b, prob.P.toarray(), prob.q, prob.r0


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_sparse_format_compiles_to_the_dense_models_problem(fmt):
    P, q, A, b, E, e = _data()
    to = FORMATS[fmt]
    sparse = _compiled(_model(to(P), q, to(A), b, to(E), e)[0])
    dense = _compiled(_model(P.toarray(), q, A.toarray(), b, E.toarray(), e)[0])
    for s, d in zip(sparse, dense):
        np.testing.assert_allclose(s, d, rtol=1e-14, atol=1e-14)


def test_a_sparse_qp_solves_and_certifies_like_the_dense_one():
    P, q, A, b, E, e = _data(1)
    ms, xs = _model(sp.csc_array(P), q, sp.coo_matrix(A), b, sp.csr_array(E), e)
    md, xd = _model(P.toarray(), q, A.toarray(), b, E.toarray(), e)
    ss, sd = ms.solve(backend="clarabel"), md.solve(backend="clarabel")
    assert ss.status == sd.status == "optimal"
    assert check(ms, ss).verdict == "certified"
    np.testing.assert_allclose(ss.value(xs), sd.value(xd), atol=1e-6)


@pytest.mark.parametrize("to", [sp.csr_matrix, sp.csc_array, sp.coo_array])
def test_sparse_products_indexing_stacking_and_transpose_agree_with_numpy(to):
    rng = np.random.default_rng(2)
    A = sp.random(6, 5, density=0.4, random_state=rng, format="csr")
    B = sp.random(5, 3, density=0.5, random_state=rng, format="csr")
    Ad, Bd = A.toarray(), B.toarray()
    x, X = Variable(5, name="x"), Variable((5, 4), name="X")
    Y = Variable((2, 5), name="Y")
    xv, Xv, Yv = rng.standard_normal(5), rng.standard_normal((5, 4)), rng.standard_normal((2, 5))
    vals = {x: xv, X: Xv, Y: Yv}
    cases = [
        (to(A) @ x, Ad @ xv),
        (x @ to(B), xv @ Bd),
        (to(A) @ X, Ad @ Xv),
        (Y @ to(B), Yv @ Bd),
        (to(A).T @ (to(A) @ x), Ad.T @ (Ad @ xv)),
        ((to(A) @ X).T, (Ad @ Xv).T),
        ((to(A) @ x)[1:4], (Ad @ xv)[1:4]),
        ((to(A) @ X)[[0, 2], 1], (Ad @ Xv)[[0, 2], 1]),
        ((to(A) @ x).sum(), (Ad @ xv).sum()),
        (np.sum(to(A) @ x), (Ad @ xv).sum()),
        ((to(A) @ X).sum(axis=0), (Ad @ Xv).sum(axis=0)),
        (vstack([to(A) @ x, to(A) @ x + 1]), np.vstack([Ad @ xv, Ad @ xv + 1])),
        (hstack([to(A) @ x, to(B).T @ x]), np.hstack([Ad @ xv, Bd.T @ xv])),
        (hstack([to(A) @ X, to(A) @ X]), np.hstack([Ad @ Xv, Ad @ Xv])),
    ]
    for expr, want in cases:
        assert expr.shape == np.shape(want)
        np.testing.assert_allclose(expr.value_at(vals), want, rtol=1e-12, atol=1e-12)


def test_a_one_dimensional_sparse_array_is_a_vector():
    rng = np.random.default_rng(3)
    c = np.where(rng.random(6) < 0.5, rng.standard_normal(6), 0.0)
    x, X = Variable(6, name="x"), Variable((6, 2), name="X")
    xv, Xv = rng.standard_normal(6), rng.standard_normal((6, 2))
    cs = sp.coo_array(c)
    assert cs.ndim == 1
    e, f = cs @ x, x @ cs
    assert e.shape == f.shape == ()
    np.testing.assert_allclose(e.value_at({x: xv}), c @ xv)
    np.testing.assert_allclose(f.value_at({x: xv}), xv @ c)
    g = cs @ X
    assert g.shape == (2,)
    np.testing.assert_allclose(g.value_at({X: Xv}), c @ Xv)


def test_the_users_sparse_matrix_is_not_modified():
    A = sp.coo_matrix((np.array([1.0, 2.0]), (np.array([0, 0]), np.array([1, 1]))), shape=(2, 3))  # duplicates
    before = (A.row.copy(), A.col.copy(), A.data.copy())
    x = Variable(3)
    np.testing.assert_allclose((A @ x).value_at({x: np.ones(3)}), [3.0, 0.0])
    for a, b in zip(before, (A.row, A.col, A.data)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("fmt", ["csr_matrix", "coo_array", "csc_array"])
def test_nan_or_inf_in_a_sparse_matrix_raises_an_input_error(bad, fmt):
    A = sp.random(5, 4, density=0.5, random_state=np.random.default_rng(4), format="coo")
    A.data[1] = bad
    x = Variable(4)
    with pytest.raises(InputError, match="NaN or inf"):
        FORMATS[fmt](A) @ x
    with pytest.raises(InputError, match="NaN or inf"):
        x @ FORMATS[fmt](A.T)
    P = sp.identity(4, format="lil")
    P[2, 2] = bad
    with pytest.raises(InputError, match="NaN or inf"):
        quad_form(x, FORMATS[fmt](P))


def test_complex_sparse_data_raises_an_input_error():
    x = Variable(3)
    with pytest.raises(InputError, match="complex"):
        sp.csr_matrix(np.eye(3) * 1j) @ x


@pytest.mark.parametrize("fmt", ["csr_matrix", "csr_array", "coo_array"])
def test_wrong_shapes_raise_a_shape_error(fmt):
    to = FORMATS[fmt]
    x, X = Variable(5), Variable((5, 2))
    with pytest.raises(ShapeError, match="do not align"):
        to(sp.identity(4)) @ x
    with pytest.raises(ShapeError, match="do not align"):
        x @ to(sp.identity(4))
    with pytest.raises(ShapeError, match="do not align"):
        to(sp.identity(4)) @ X
    with pytest.raises(ShapeError, match="scalars"):
        to(sp.identity(1)) @ Variable()
    with pytest.raises(ShapeError, match="expected"):
        quad_form(x, to(sp.identity(4)))
    with pytest.raises(ShapeError):
        Model(minimize(x.sum()), [to(sp.identity(5)) @ x <= np.ones(4)])


# ------------------------------------------------------------------------------ the whole path under a memory limit
_LIMITED = textwrap.dedent("""
    import json, resource, sys, time
    limit = int(sys.argv[2]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.path.insert(0, sys.argv[3])
    import numpy as np
    import qp_suite
    from certiprog.certify import check
    n = int(sys.argv[1])
    prob = qp_suite.generated_qp(n, seed=7, eq_frac=0.1, ineq_frac=0.5, per_row=16)
    nnz = int(prob["P"].nnz + prob["C"].nnz)
    t0 = time.perf_counter()
    model = qp_suite.certiprog_model(prob)
    sol = model.solve(backend="clarabel")
    cert = check(model, sol)
    ref = qp_suite.clarabel_direct(prob)
    print(json.dumps(dict(nnz=nnz, status=str(sol.status), verdict=cert.verdict, interval=list(cert.interval),
                          objective=sol.objective, reference=ref["reference"], seconds=time.perf_counter() - t0,
                          rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
""")


def _run_limited(n: int, limit_mb: int) -> dict:
    import json
    import os

    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _LIMITED, str(n), str(limit_mb), str(ROOT / "benchmarks")],
                         capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _assert_certified_at_the_optimum(r: dict):
    assert r["status"] == "optimal" and r["verdict"] == "certified"
    lo, hi = r["interval"]
    assert np.isfinite(lo) and np.isfinite(hi) and lo <= r["objective"] <= hi
    assert hi - lo <= 1e-6 * max(1.0, abs(r["objective"]))
    assert abs(r["objective"] - r["reference"]) <= 1e-6 * max(1.0, abs(r["reference"]))  # Clarabel called directly


def test_a_sparse_qp_of_ten_thousand_variables_is_certified_in_600_mb():
    """10^4 variables, ~1.2 x 10^5 nonzeros, 1,000 equality rows: the whole path in a 600 MB address space (a dense
    copy of C alone, 6,000 x 10,000, would take 480 MB; of the equality block with its QR, 160 MB more)."""
    r = _run_limited(10_000, 600)
    assert r["nnz"] >= 100_000
    _assert_certified_at_the_optimum(r)


@pytest.mark.slow  # ~100 s on the shared 2-core machine: two Clarabel solves of ~20-30 s (certiprog's, the reference)
def test_a_sparse_qp_of_a_hundred_thousand_variables_and_a_million_nonzeros_is_certified_in_2_gb():
    r = _run_limited(100_000, 2048)
    assert r["nnz"] >= 1_000_000
    _assert_certified_at_the_optimum(r)


# ------------------------------------------------------------------ the certificate's sparse equality correction
def _equality_model(seed, duplicate_row=False):
    rng = np.random.default_rng(seed)
    n, k = 12, 4
    E = sp.random(k, n, density=0.5, random_state=rng, format="csr") + sp.eye(k, n)
    if duplicate_row:
        E = sp.vstack([E, E[1]]).tocsr()
    x0 = rng.uniform(-1, 1, n)
    x = Variable(n, name="x")
    model = Model(minimize(0.5 * quad_form(x, sp.identity(n)) + rng.standard_normal(n) @ x),
                  [E @ x == E @ x0, x <= 10])
    return model, rng


def test_the_sparse_equality_correction_encloses_an_exact_solution():
    """The enclosure `SparseEqualities.correct` returns contains the exact minimum-norm solution of A_E x = b_E
    from its centre, computed here in rational arithmetic (an independent, exact computation)."""
    from fractions import Fraction

    import certiprog.certify.equalities as D
    from certiprog.certify.rigorous import Ball

    model, rng = _equality_model(5)
    prob = model.compile().assemble()
    rows = np.flatnonzero(prob.row_kinds() == "zero")
    eq = D.SparseEqualities(prob, rows)
    X = Ball(rng.standard_normal(prob.n))  # far from the equalities: residual ~1
    assert eq.correct(prob, X)
    J = eq.touched  # every inequality row is loose at this point: all touched columns move
    assert np.all(X.rad[np.setdiff1d(np.arange(prob.n), J)] == 0)
    assert 0 < X.rad[J].max() < 1e-12
    M = (sp.diags(eq.scale) @ eq.AE[:, J]).toarray()
    F = [[Fraction(float(v)) for v in row] for row in M]
    mid = [Fraction(float(v)) for v in X.mid]
    AE = eq.AE.toarray()
    r = [Fraction(float(eq.scale[i])) * (Fraction(float(eq.b[i])) - sum(Fraction(float(AE[i, j])) * mid[j]
                                                                       for j in range(prob.n)))
         for i in range(rows.size)]
    k = rows.size
    G = [[sum(F[i][t] * F[j][t] for t in range(J.size)) for j in range(k)] for i in range(k)]
    w = _solve_exact(G, r)
    d = [sum(F[i][t] * w[i] for i in range(k)) for t in range(J.size)]
    for t, j in enumerate(J):
        assert abs(d[t]) <= Fraction(float(X.rad[j]))


def _solve_exact(G, r):
    """Gauss-Jordan elimination in rationals."""
    n = len(r)
    a = [row[:] + [r[i]] for i, row in enumerate(G)]
    for c in range(n):
        p = next(i for i in range(c, n) if a[i][c] != 0)
        a[c], a[p] = a[p], a[c]
        for i in range(n):
            if i != c and a[i][c] != 0:
                f = a[i][c] / a[c][c]
                a[i] = [u - f * v for u, v in zip(a[i], a[c])]
    return [a[i][n] / a[i][i] for i in range(n)]


def test_the_sparse_equality_correction_proves_nothing_for_redundant_rows():
    import certiprog.certify.equalities as D
    from certiprog.certify.rigorous import Ball

    model, rng = _equality_model(6, duplicate_row=True)
    prob = model.compile().assemble()
    eq = D.SparseEqualities(prob, np.flatnonzero(prob.row_kinds() == "zero"))
    assert not eq.correct(prob, Ball(rng.standard_normal(prob.n)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_sparse_and_the_dense_equality_paths_give_the_same_certified_interval(seed, monkeypatch):
    import certiprog.certify.equalities as D

    prob = _qp_suite().generated_qp(300, seed=seed)
    intervals = []
    for dense_max in (10**12, 0):  # the pivoted-QR basis, then the sparse minimum-norm correction
        monkeypatch.setattr(D, "_EQ_DENSE_MAX", dense_max)
        monkeypatch.setattr(D, "_EQ_DENSE_FLOPS", dense_max)
        model = _qp_suite().certiprog_model(prob)
        sol = model.solve(backend="clarabel")
        cert = check(model, sol)
        assert cert.verdict == "certified", cert
        intervals.append(cert.interval)
    (lo1, hi1), (lo2, hi2) = intervals
    ref = _qp_suite().clarabel_direct(prob)["reference"]
    tol = 1e-7 * max(1.0, abs(ref))
    for lo, hi in intervals:
        assert lo - tol <= ref <= hi + tol
    assert abs(hi1 - hi2) <= 1e-8 * max(1.0, abs(ref))


# ------------------------------------------------------------------ operators that would densify a sparse matrix
def test_a_sparse_matrix_times_an_expression_is_refused_not_read_elementwise():
    """For scipy's spmatrix '*' is the matrix product; certiprog's '*' is numpy's elementwise one: a square A would
    silently give another model, so it is an error naming @."""
    x = Variable(3)
    A = sp.csr_matrix(np.arange(9.0).reshape(3, 3))
    for build in (lambda: A * x, lambda: x * A):
        with pytest.raises(ShapeError, match="A @ x"):
            build()
    e = sp.csr_array(A) * x  # a sparse array's '*' is elementwise in scipy too: numpy's broadcasting
    np.testing.assert_allclose(e.value_at({x: np.ones(3)}), A.toarray())


def test_a_large_sparse_matrix_used_as_a_dense_constant_raises_an_input_error_naming_at():
    A = sp.random(20_000, 20_000, density=1e-6, random_state=np.random.default_rng(0), format="csr")
    X = Variable(10)
    with pytest.raises(InputError, match="only @ keeps"):
        A + X[0]


def test_quad_form_of_a_sparse_matrix_in_a_constraint_stays_sparse():
    rng = np.random.default_rng(8)
    n = 20_000
    x = Variable(n, name="x")
    c = rng.standard_normal(n)
    d = rng.uniform(0.5, 2.0, n)
    model = Model(minimize(c @ x), [quad_form(x, sp.diags(d)) <= 1])
    sol = model.solve(backend="clarabel")
    assert sol.status == "optimal"
    # min c'x s.t. x'Dx <= 1 has the optimum -sqrt(c' D^-1 c)
    np.testing.assert_allclose(sol.objective, -np.sqrt(c @ (c / d)), rtol=1e-6)
    B = sp.diags([np.ones(n), np.ones(n - 1)], [0, 1])
    with pytest.raises(InputError, match="sum_squares"):
        Model(minimize(x.sum()), [quad_form(x, sp.csr_matrix(B.T @ B)) <= 1]).compile()


def test_quad_form_of_a_small_sparse_non_diagonal_matrix_in_a_constraint_matches_the_dense_one():
    rng = np.random.default_rng(9)
    n = 30
    G = sp.random(n, n, density=0.2, random_state=rng, format="csr")
    P = sp.csr_matrix(G @ G.T + 0.1 * sp.identity(n))
    c = rng.standard_normal(n)
    x = Variable(n)
    values = []
    for Q in (P, P.toarray()):
        sol = Model(minimize(c @ x), [quad_form(x, Q) <= 1]).solve(backend="clarabel")
        assert sol.status == "optimal"
        values.append(sol.objective)
    exact = -np.sqrt(c @ np.linalg.solve(P.toarray(), c))  # min c'x s.t. x'Px <= 1
    np.testing.assert_allclose(values, [exact, exact], rtol=1e-6)


# ------------------------------------------------------------------ benchmarks/qp_suite.py, exercised
def test_the_qp_suite_benchmark_runs_on_its_generated_stand_in_set(capsys):
    s = _qp_suite().main(["--generated", "--sizes", "300", "--seeds", "2", "--inline"])
    out = capsys.readouterr().out
    assert "GENERATED stand-in set" in out and "NOT Maros-Meszaros" in out and "GEN-300-s1" in out
    assert s["counts"] == {"certified": 2, "accurate": 0, "failed": 0, "crash": 0}
    assert s["clarabel_solved"] == 2 and s["goal_certified"] and s["goal_accurate"]
    assert np.isfinite(s["ratio_gmean"]) and s["ratio_gmean"] > 0


@pytest.mark.parametrize("layout", ["P q r A l u n m", "Q c A rl ru lb ub"])
def test_the_qp_suite_reads_both_public_mat_layouts(layout, tmp_path):
    """A file written here in each public layout (from a generated problem, not real data) reads back as the same
    problem: bounds as the last n rows of A (new layout), 1e20 as infinity, P stored as its upper triangle."""
    from scipy.io import savemat

    qs = _qp_suite()
    g = qs.generated_qp(40, seed=3)
    n = g["q"].size
    big = lambda v: np.where(np.isfinite(v), v, np.sign(v) * 1e20)  # noqa: E731
    if layout.startswith("P"):
        A = sp.vstack([g["C"], sp.identity(n)]).tocsc()
        data = dict(P=sp.triu(g["P"]).tocsc(), q=g["q"], r=g["r"], A=A, l=big(np.r_[g["l"], g["lb"]]),
                    u=big(np.r_[g["u"], g["ub"]]), n=n, m=A.shape[0])
    else:
        data = dict(Q=g["P"], c=g["q"], A=g["C"].tocsc(), rl=big(g["l"]), ru=big(g["u"]), lb=big(g["lb"]),
                    ub=big(g["ub"]))
    path = tmp_path / "TOY.mat"
    savemat(str(path), data)
    p = qs.load_mat(path)
    assert p["name"] == "TOY" and not p["generated"]
    np.testing.assert_allclose(p["P"].toarray(), g["P"].toarray())
    np.testing.assert_allclose(p["C"].toarray(), g["C"].toarray())
    for k in ("q", "l", "u", "lb", "ub"):
        np.testing.assert_array_equal(p[k], g[k])
    assert p["r"] == (g["r"] if layout.startswith("P") else 0.0)
    r = qs.measure(dict(path=str(path)))
    assert r["outcome"] == "certified" and r["clarabel_solved"]


@pytest.mark.parametrize("backend", ["clarabel", "piqp", "cvxpy"])
def test_each_backend_gets_the_sparse_data_and_certifies_without_a_dense_copy(backend):
    """3,000 variables, 6,860 compiled rows: a dense copy of the compiled A would take 157 MB (of C alone, 34 MB);
    solve + check stay under 24 MB of Python / numpy heap (measured 3-4 MB; the solvers' own memory is native)."""
    import tracemalloc

    import cvxpy  # noqa: F401 - imported before tracing: its import is not the model's memory

    qs = _qp_suite()
    qs.certiprog_model(qs.generated_qp(30, seed=0)).solve(backend=backend)  # the backend's first-call costs
    prob = qs.generated_qp(3000, seed=4)
    model = qs.certiprog_model(prob)
    tracemalloc.start()
    try:
        sol = model.solve(backend=backend)
        cert = check(model, sol)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sol.status == "optimal" and cert.verdict == "certified"
    assert peak < 24 * 2**20, f"{peak / 2**20:.1f} MB"


def test_the_pyomo_backend_gets_the_sparse_data():
    """Pyomo builds one expression per row from the CSR rows (no dense matrix), at Pyomo's own pace: a small model."""
    pytest.importorskip("pyomo.environ")
    qs = _qp_suite()
    prob = qs.generated_qp(60, seed=5)
    model = qs.certiprog_model(prob)
    sol = model.solve(backend="pyomo")
    assert sol.status == "optimal"
    ref = qs.clarabel_direct(prob)["reference"]
    np.testing.assert_allclose(sol.objective, ref, rtol=1e-6, atol=1e-8)


def test_the_qp_suite_compares_with_published_optima_when_given(tmp_path, capsys):
    from scipy.io import savemat

    qs = _qp_suite()
    g = qs.generated_qp(40, seed=3)
    n = g["q"].size
    big = lambda v: np.where(np.isfinite(v), v, np.sign(v) * 1e20)  # noqa: E731
    A = sp.vstack([g["C"], sp.identity(n)]).tocsc()
    savemat(str(tmp_path / "TOY.mat"), dict(P=g["P"], q=g["q"], r=g["r"], A=A, l=big(np.r_[g["l"], g["lb"]]),
                                             u=big(np.r_[g["u"], g["ub"]]), n=n, m=A.shape[0]))
    ref = qs.clarabel_direct(qs.load_mat(tmp_path / "TOY.mat"))["reference"]
    (tmp_path / "optima.csv").write_text(f"name,optimum\nTOY,{ref + 1.0}\n")  # a wrong 'published' value
    s = qs.main(["--dir", str(tmp_path), "--optima", str(tmp_path / "optima.csv"), "--inline"])
    assert s["counts"]["certified"] == 1
    assert s["off_by_more"] == ["TOY"] and not s["goal_accurate"]  # the certified answer is 1.0 from it: flagged
    (tmp_path / "optima.csv").write_text(f"TOY,{ref}\n")
    s = qs.main(["--dir", str(tmp_path), "--optima", str(tmp_path / "optima.csv"), "--inline"])
    assert s["off_by_more"] == [] and s["goal_accurate"]


def test_a_sparse_matrix_times_a_parameter_follows_its_value():
    A = sp.csr_array(np.array([[1.0, 2.0], [0.0, 3.0]]))
    p = Parameter(2, "p", value=np.array([1.0, 1.0]))
    x = Variable(2, "x")
    model = Model(minimize(x.sum()), [x >= A @ p])
    assert model.solve(backend="clarabel").objective == pytest.approx(6.0, abs=1e-7)  # x = A p = (3, 3)
    p.value = np.array([2.0, 0.0])
    assert model.solve(backend="clarabel").objective == pytest.approx(2.0, abs=1e-7)  # x = (2, 0)
    np.testing.assert_allclose((p @ A).value_at({}), [2.0, 4.0])
