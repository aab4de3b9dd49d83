"""Certificates at scale (issue 15): sparse-only work, the epigraph-lift repair of the upper end, the Gershgorin
proof of diagonally dominant quadratics, the psd_certificate cache, and benchmarks/scale.py --quick as a
correctness run (intervals finite, references inside them; no timing assertions)."""
from __future__ import annotations

import importlib.util
import math
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.certify import check, psd, psd_certificate, upper_end
from certiprog.certify.lift import Lift
from certiprog.formulations.error_clumping_paper.programs import error_clumping
from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax

ROOT = Path(__file__).resolve().parents[2]


def _scale_module():
    spec = importlib.util.spec_from_file_location("scale_bench", ROOT / "benchmarks" / "scale.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _hinge(m=400, d=10, seed=0):
    rng = np.random.default_rng(seed)
    s = 3.0 / np.sqrt(d)  # ||mu|| ~ 3 > gamma = 1: the cone has an interior
    X = rng.normal(size=(m, d)) + s
    Z = rng.normal(size=(2000, d)) - s
    return hinge_minimax(X, Z.mean(axis=0), np.cov(Z.T), 1.0, 0.5)


def _clumping(m=300, d=5, seed=0, eta=0.5):
    rng = np.random.default_rng(seed)
    X = np.hstack([rng.normal(size=(m, d)), np.ones((m, 1))])
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=m) >= 0, 1.0, -1.0)
    return error_clumping(X, y, 1.5, eta, 1e-2)


# --------------------------------------------------------------------------- Gershgorin
@settings(max_examples=30, deadline=None, derandomize=True)
@given(n=st.integers(1, 30), density=st.floats(0.0, 1.0), slack=st.floats(-0.5, 2.0), seed=st.integers(0, 10**6))
def test_gershgorin_bound_is_below_the_smallest_eigenvalue(n, density, slack, seed):
    rng = np.random.default_rng(seed)
    B = sp.random(n, n, density=density, random_state=rng, data_rvs=lambda k: rng.normal(size=k))
    S = (B + B.T).tocsr()
    S.setdiag(0.0)
    diag = np.asarray(abs(S).sum(axis=1)).ravel() + slack + rng.uniform(0, 1e-3, n)
    Q = (S + sp.diags(diag)).tocsr()
    lam = psd.gershgorin_lower(Q)
    assert lam <= np.linalg.eigvalsh(Q.toarray())[0] + 1e-12 * max(1.0, abs(diag).max())
    assert lam >= slack - 1e-9 * max(1.0, abs(diag).max()) * n  # tight: the discs' bound itself


def test_diagonally_dominant_P_is_proved_without_a_factorisation(monkeypatch):
    model = _clumping()
    problem = model.compile().assemble()
    psd._PSD_CACHE.clear()

    def no_ldl(*args, **kwargs):
        raise AssertionError("a sparse LDL was attempted on a diagonally dominant P")

    monkeypatch.setattr(psd, "ldl", no_ldl)
    pc = psd_certificate(problem.P)
    assert pc.kind == "pd" and pc.lam > 0
    rhs = np.random.default_rng(1).normal(size=pc.cols.size)
    Q = sp.csr_matrix(problem.P)[pc.cols][:, pc.cols]
    u = pc.solve(rhs)
    assert np.linalg.norm(Q @ u - rhs) <= 1e-8 * np.linalg.norm(rhs)
    cert = check(model, model.solve(backend="clarabel"))
    assert cert.verdict == "certified"


def test_psd_certificate_cache_is_keyed_by_content():
    psd._PSD_CACHE.clear()
    P = sp.csc_matrix(np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]))
    a = psd_certificate(P)
    assert psd_certificate(P.copy()) is a  # same content, another object
    P2 = P.copy()
    P2[0, 0] = -5.0
    b = psd_certificate(P2)
    assert b is not a and b.kind in ("indefinite", "unknown")
    assert a.kind == "pd"


# --------------------------------------------------------------------------- upper end without a full-size solve
def test_upper_end_lifts_epigraph_columns_and_solves_only_the_core(monkeypatch):
    model = _hinge(m=500, d=8)
    sol = model.solve(backend="clarabel")
    problem = sol.problem
    sizes = []
    real = upper_end.interior_point

    def spy(p, x0, eps=None, t_max=1.0):
        sizes.append(p.n)
        return real(p, x0, eps, t_max)

    monkeypatch.setattr(upper_end, "interior_point", spy)
    x = np.array(sol.x, float)
    # push the hinge part of the point off feasibility: w moved, epigraph columns left behind
    _, a, b = problem.columns["w"]
    x[a:b] *= 1.0 + 1e-6
    U, why, info = upper_end.upper_bound(problem, x)
    assert math.isfinite(U), why
    assert all(n < problem.n for n in sizes)  # never a margin problem of the full size
    assert U >= sol.objective - 1e-7 * abs(sol.objective)
    cert = check(model, sol)
    lo, hi = cert.interval
    assert math.isfinite(lo) and math.isfinite(hi) and cert.verdict == "certified"


def test_lift_marks_only_columns_that_help_feasibility():
    problem = _hinge(m=50, d=4).compile().assemble()
    lift = Lift(problem)
    A = sp.csc_matrix(problem.A)
    kinds = problem.row_kinds()
    for j in np.flatnonzero(lift.mono):
        rows = A.indices[A.indptr[j]:A.indptr[j + 1]]
        vals = A.data[A.indptr[j]:A.indptr[j + 1]]
        assert np.all(vals < 0) and np.all(np.isin(kinds[rows], ["nonneg", "soc"]))
    _, a, b = problem.columns["w"]
    assert not lift.mono[a:b].any()  # w is a core column (it enters the cone)
    assert lift.mono.sum() == 50  # one hinge epigraph column per positive


# --------------------------------------------------------------------------- no dense copies of the problem's size
def test_check_memory_stays_far_below_a_dense_copy():
    m, d = 6000, 10
    model = _hinge(m=m, d=d, seed=3)
    sol = model.solve(backend="clarabel")
    check(model, sol)  # warm imports (flint) outside the measurement
    tracemalloc.start()
    cert = check(model, sol)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    n_rows = sol.problem.m
    assert peak < 0.25 * n_rows * n_rows * 8  # a dense (rows x rows) or (rows x columns ~ m) array would exceed this
    assert cert.verdict == "certified"


def test_error_clumping_check_lower_end_is_finite_and_tight():
    model = _clumping(m=400, seed=2)
    sol = model.solve(backend="clarabel")
    cert = check(model, sol)
    lo, hi = cert.interval
    assert math.isfinite(lo) and math.isfinite(hi)
    assert lo <= sol.objective + 1e-9 and hi - lo <= 1e-6 * abs(hi)


# --------------------------------------------------------------------------- the benchmark's quick run
def test_scale_benchmark_quick_is_consistent(capsys):
    scale = _scale_module()
    report = scale.main(["--quick", "--programs", "000", "003", "002", "004"])
    out = capsys.readouterr().out
    assert "Scaling curves" in out
    ours = [r for r in report["sizes"] if r["path"] == "certiprog"]
    assert {(r["program"], r["m"]) for r in ours} == {(p, m) for p, s in scale.QUICK_SIZES.items() for m, _ in s}
    for r in ours:
        assert math.isfinite(r["lower"]) and math.isfinite(r["upper"]), r
        assert r["lower"] <= r["objective"] + 1e-7 * max(1.0, abs(r["objective"])), r
        if r["program"] != "004":  # the kernel MPM's optimum is 0 on these tiny full-rank kernels
            assert r["verdict"] == "certified", r
    for r in report["sizes"]:
        if r["path"] == "cvxpy":
            assert r["inside"], r  # CVXPY + Clarabel's value lies in our certified interval
        if r["path"] == "structured" and not r.get("missing"):
            assert r["certified"] and r["lower"] <= r["upper"] + 1e-12
    for prog, ex in report["exponents"].items():
        assert all(math.isfinite(v) for v in ex.values()), (prog, ex)


def test_fit_exponent_recovers_a_power_law():
    scale = _scale_module()
    ms = [100, 200, 400, 800]
    assert scale.fit_exponent(ms, [3e-6 * m ** 2.5 for m in ms]) == pytest.approx(2.5)
    assert math.isnan(scale.fit_exponent([100], [1.0]))
    assert math.isnan(scale.fit_exponent(ms, [0.0, float("nan"), 0.0, 1.0]))


# --------------------------------------------------------------------------- per-row rounding bounds, bound clipping
@settings(max_examples=20, deadline=None, derandomize=True)
@given(n=st.integers(2, 400), seed=st.integers(0, 10**6))
def test_matvec_rows_keep_their_own_error_bound(n, seed):
    from fractions import Fraction

    from certiprog.certify.rigorous import U, matvec

    rng = np.random.default_rng(seed)
    dense = rng.normal(size=n)
    A = sp.csr_matrix(np.vstack([dense, np.eye(n)[0] * 3.0]))  # a dense row and a one-term row
    v = rng.normal(size=n)
    out = matvec(A, v)
    exact0 = sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(dense, v))
    assert out.lo()[0] <= exact0 <= out.hi()[0]
    assert out.lo()[1] <= Fraction(3.0) * Fraction(float(v[0])) <= out.hi()[1]
    assert out.rad[1] <= 8 * U * abs(3.0 * v[0]) + 1e-280  # not gamma_n of the dense row


def test_clipping_to_bounds_repairs_rounding_size_violations_only():
    from certiprog.model import Model, Variable, minimize, sum_squares

    n = 50
    x = Variable(n, "x")
    model = Model(minimize(sum_squares(x - 2.0)))
    model.add(x <= 1.0, name="ub")
    model.add(x >= 0.0, name="lb")
    problem = model.compile().assemble()
    _, a, b = problem.columns["x"]
    pt = np.zeros(problem.n)
    pt[a:b] = 1.0 + 1e-16 * np.arange(n)  # at or just beyond the bound
    clipped = upper_end._clip_to_bounds(problem, pt)
    assert np.all(clipped[a:b] < 1.0) and np.all(clipped[a:b] > 1.0 - 1e-12)
    U, why, info = upper_end.upper_bound(problem, pt)
    assert np.isfinite(U) and info.get("clipped")
    far = pt.copy()
    far[a] = 1.5  # a real violation is left to the margin-problem repair
    assert upper_end._clip_to_bounds(problem, far) is far
