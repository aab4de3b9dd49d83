"""``model.solve(solver="structured")`` on ME2's local programs runs the dedicated solver (`local_solver.solve_local`)
through `ME2Data.structured_solve`; certiprog's certificate judges the answer like any backend's."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from certiprog.certify.kkt import check
from certiprog.formulations.me2_paper.programs import me2_dual, me2_instance, me2_primal

BUILDERS = {"dual": me2_dual, "primal": me2_primal}


@pytest.mark.parametrize("which", ["dual", "primal"])
@pytest.mark.parametrize("seed,n,d,lam", [(0, 300, 3, 1e-3), (1, 120, 4, 1e-1), (2, 500, 2, 10.0)])
def test_structured_answer_is_certified_and_matches_clarabel(which, seed, n, d, lam):
    X, c = me2_instance(seed, n, d)
    model = BUILDERS[which](X, c, 1.0, lam, 4.0)
    ref = model.solve(backend="clarabel")
    sol = model.solve(solver="structured")
    assert sol.backend == "structured"
    cert, ref_cert = check(model, sol), check(model, ref)
    assert cert.verdict == "certified", cert
    lo, hi = cert.interval
    rlo, rhi = ref_cert.interval
    assert lo <= rhi and rlo <= hi  # both rigorous: they share the optimum
    assert hi - lo <= rhi - rlo + 1e-12 * abs(hi)  # and ours is at least as narrow
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)
    for name in model.constraints:  # every multiplier in certiprog's convention, as Clarabel's
        np.testing.assert_allclose(np.ravel(sol.dual(name)), np.ravel(ref.dual(name)), rtol=1e-3,
                                   atol=1e-3 * max(1.0, float(np.max(np.abs(ref.dual(name))))), err_msg=name)


def test_symmetric_matrix_value_is_packed_like_the_compiler():
    """The primal model's M is a symmetric variable (upper triangle columns): the full matrix the hook returns is
    packed in the compiler's order, so the solution reads back the same M."""
    X, c = me2_instance(3, 200, 4)
    model = me2_primal(X, c, 1.0, 1e-2, 4.0)
    sol = model.solve(solver="structured")
    M = np.asarray(sol.value("M"))
    np.testing.assert_allclose(M, M.T)
    ref = model.solve(backend="clarabel")
    # strong convexity: lam ||M - M*||_F^2 <= f(M) - p*, bounded by the two certified intervals
    (lo, hi), (rlo, rhi) = check(model, sol).interval, check(model, ref).interval
    radius = np.sqrt(max(hi, rhi) - min(lo, rlo)) / np.sqrt(1e-2)
    assert np.linalg.norm(M - np.asarray(ref.value("M"))) <= 2 * radius + 1e-9


@pytest.mark.parametrize("scale", [1e8, 1e-8])
def test_badly_scaled_data_never_falsely_certified(scale):
    X, c = me2_instance(5, 200, 3)
    model = me2_dual(X * scale, c * scale, 1.0, 1e-2, 4.0)
    sol = model.solve(solver="structured")
    cert = check(model, sol)
    if cert.verdict == "certified":
        ref = model.solve(backend="clarabel")
        lo, hi = cert.interval
        assert lo <= hi
        if ref.status == "optimal" and check(model, ref).verdict == "certified":
            assert lo - 1e-6 * abs(lo) <= ref.objective <= hi + 1e-6 * abs(hi)
    else:
        assert cert.verdict in ("accurate", "inaccurate", "failed")


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), lam=st.floats(1e-3, 1e2), mu=st.floats(1e-2, 1e2))
def test_interval_contains_clarabel_optimum(seed, lam, mu):
    X, c = me2_instance(seed, 80, 3)
    model = me2_dual(X, c, mu, lam, 4.0)
    sol = model.solve(solver="structured")
    cert = check(model, sol)
    ref = model.solve(backend="clarabel")
    lo, hi = cert.interval
    slack = 1e-7 * max(1.0, abs(ref.objective))
    assert lo - slack <= ref.objective <= hi + slack
